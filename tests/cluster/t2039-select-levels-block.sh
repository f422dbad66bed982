#!/bin/bash
# t2039-select-levels-block.sh - fabric levels from topology/block's
# aggregated blocks (BlockSizes): t2038 on topology/block (Slurm 24.05 and
# later; skipped before). See t2038's head.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
JT_LEVELS_TOPO=block exec "$(dirname "$0")/t2038-select-levels-tree.sh" "$@"
