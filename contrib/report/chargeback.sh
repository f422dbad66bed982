#!/bin/sh
# chargeback.sh - monthly GPU-hours per account (owner), owned and borrowed,
# from the ledger: a thin wrapper over `jobtree report usage -P`.
#
# Usage: chargeback.sh YYYY-MM [jobtree report options, e.g. --now] LEDGER...
# Output: pipe-separated, one line per account, sorted by account.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 YYYY-MM LEDGER..." >&2; exit 2; }
month=$1; shift
y=${month%-*}; m=${month#*-}
case "$m" in 0?|1[0-2]) ;; *) echo "$0: bad month '$month'" >&2; exit 2 ;; esac
m=${m#0}
if [ "$m" -eq 12 ]; then ny=$((y + 1)); nm=1; else ny=$y; nm=$((m + 1)); fi
start=$(printf '%04d-%02d-01T00:00:00Z' "$y" "$m")
end=$(printf '%04d-%02d-01T00:00:00Z' "$ny" "$nm")
echo "# GPU-hours by account, $start .. $end"
echo "Account|OwnedGPUHours|BorrowedGPUHours|GPUHours"
jobtree report usage -P -n -S "$start" -E "$end" \
    -o Owner,OwnedGPUHours,BorrowedGPUHours "$@" |
awk -F'|' '{ o[$1] += $2; b[$1] += $3 }
    END { for (a in o) printf "%s|%.2f|%.2f|%.2f\n", a, o[a], b[a], o[a] + b[a] }' |
LC_ALL=C sort -t'|' -k1,1
