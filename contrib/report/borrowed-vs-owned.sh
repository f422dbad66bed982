#!/bin/sh
# borrowed-vs-owned.sh - what each sponsor lent: GPU-hours and peak GPUs of
# other owners' leases paid by the sponsor's envelopes (loans, role
# Borrowed, and family sharing), per borrower. A thin wrapper over
# `jobtree report usage -P` (the sponsor is the envelope's owner as
# recorded by the last BudgetLoaded event).
#
# Usage: borrowed-vs-owned.sh [jobtree report options, e.g. -S/-E] LEDGER...
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -eu
echo "Sponsor|Borrower|Envelope|GPUHours|PeakGPUs"
jobtree report usage -P -n -o Sponsor,Owner,Envelope,BorrowedGPUHours,PeakGPUs "$@" |
awk -F'|' '$4 + 0 > 0 { print }' |
LC_ALL=C sort -t'|' -k1,1 -k2,2 -k3,3
