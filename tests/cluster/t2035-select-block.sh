#!/bin/bash
# t2035-select-block.sh - under TopologyPlugin=topology/block (Slurm 24.05+)
# each base block is a domain, as a leaf switch is under topology/tree
# (t2030): nodes without a fabric.domain feature take their block, and a
# run's groups stay in one block each (plugins/common/compat.h,
# jtc_leaf_switches; docs/slurm-24.11.md). Skipped on Slurm 22.05, which
# has no topology/block.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 6
if ! cluster_has_blocks; then
    for i in 1 2 3 4 5 6; do skip "no topology/block in $(slurmctld -V 2>/dev/null)"; done
    done_testing
    exit
fi
JT_CLUSTER_SELECT=jobtree
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_use_blocks      # the same 4 x 4 nodes as blocks blkA..blkD
cluster_start
drop_fabric_domains     # only the blocks say where domains are
topology_domains_run block blkA
done_testing
