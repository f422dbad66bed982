#!/bin/bash
# ci.sh - one other Slurm release's half of the test suite, as
# contrib/test.sh runs it beside the host's 22.05 (contrib/chroot/root.sh:
# trixie for 24.11, sid for 26.05):
#
#   contrib/chroot/ci.sh NAME root              make (or reuse) the root
#   contrib/chroot/ci.sh NAME cluster BUILDDIR  build against its Slurm, run the cluster suite
#
# (as root). `root` is the slow part (debootstrap and Debian's packages; for
# sid also Slurm's own build, about 7 minutes on 2 cores; seconds once made:
# the makers' stamps are the cache), so test.sh starts it first, in the
# background, while the unit tests run. `cluster` then builds Jobtree and
# its plugins against the root's Slurm (--enable-werror) and runs
# tests/cluster/run.sh inside it, while the host's suite runs: the suites
# take different port lanes (tests/cluster/lib.sh JT_CLUSTER_PORT_LANE), and
# every daemon's state is in its own temporary directory, so they cannot
# meet.
#
# Which tests: every tests/cluster/t*.sh but those JT_CHROOT_SKIP names
# (space-separated), by default t2900-compare (stock against Jobtree under
# topology/tree, four minutes of one workload per variant: run on 22.05;
# each newer release's counterpart, against topology/block, is a table in
# its docs page). contrib/test.sh says which scripts run on which release.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later WITH Slurm's OpenSSL exception
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/contrib/chroot/root.sh"
name=${1:-}
jt_root_select "$top" "$name" || { echo "usage: ci.sh trixie|sid root | cluster BUILDDIR" >&2; exit 2; }

case "${2:-}" in
root)
    exec "$jt_maker" "$jt_root"
    ;;
cluster)
    builddir=${3:?usage: ci.sh NAME cluster BUILDDIR}
    "$top/contrib/chroot/build.sh" "$name" "$builddir" || exit 1
    skip=" ${JT_CHROOT_SKIP-t2900-compare.sh} "
    tests=()
    for t in "$top"/tests/cluster/t[0-9]*.sh; do
        n=$(basename "$t")
        case "$skip" in *" $n "*) echo "# $n: not run on $jt_release (contrib/test.sh says why)"; continue ;; esac
        tests+=("$n")
    done
    exec "$top/contrib/chroot/run-cluster.sh" "$name" "$builddir" "${tests[@]}"
    ;;
*)
    echo "usage: ci.sh trixie|sid root | cluster BUILDDIR" >&2
    exit 2
    ;;
esac
