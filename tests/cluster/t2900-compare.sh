#!/bin/bash
# t2900-compare.sh - run.sh's entry for compare.sh (stock cons_tres with
# --switches=1 and without a hint vs Jobtree on the same workload), so the
# comparison runs in the same session as the other cluster tests.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
exec bash "$(dirname "$0")/compare.sh" "$@"
