#!/bin/bash
# ci.sh - the Slurm 24.11 half of the test suite (issue 15), as
# contrib/test.sh runs it beside the 22.05 half:
#
#   contrib/trixie/ci.sh chroot              make (or reuse) the trixie chroot
#   contrib/trixie/ci.sh cluster BUILDDIR    build against 24.11, run the cluster suite
#
# (as root). `chroot` is the slow, network-bound part (debootstrap and
# Debian's packages: 4 to 7 minutes on a fresh machine, seconds once made:
# make-chroot.sh's stamps are the cache), so test.sh starts it first, in the
# background, while the unit tests run. `cluster` then builds Jobtree and its
# plugins against the chroot's Slurm 24.11 (build.sh: --enable-werror) and
# runs tests/cluster/run.sh inside it, while the host's 22.05 suite runs: the
# two suites take different port lanes (tests/cluster/lib.sh
# JT_CLUSTER_PORT_LANE), and every daemon's state is in its own temporary
# directory, so they cannot meet.
#
# Which tests: every tests/cluster/t*.sh but t2900-compare (stock against
# Jobtree under topology/tree, four minutes of one workload per variant,
# run on 22.05; its 24.11 counterpart, against topology/block, is the table
# in docs/slurm-24.11.md). t2910-sim-live runs here and not on 22.05
# (contrib/test.sh: the two suites then take about as long).
# JT_TRIXIE_SKIP overrides that list (space-separated names).
#
# The chroot is ROOT=JT_TRIXIE_ROOT (default /var/tmp/jobtree-trixie).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
root=${JT_TRIXIE_ROOT:-/var/tmp/jobtree-trixie}
export JT_TRIXIE_ROOT=$root

case "${1:-}" in
chroot)
    exec "$top/contrib/trixie/make-chroot.sh" "$root"
    ;;
cluster)
    builddir=${2:?usage: ci.sh cluster BUILDDIR}
    "$top/contrib/trixie/build.sh" "$builddir" "$root" || exit 1
    skip=" ${JT_TRIXIE_SKIP-t2900-compare.sh} "
    tests=()
    for t in "$top"/tests/cluster/t[0-9]*.sh; do
        n=$(basename "$t")
        case "$skip" in *" $n "*) echo "# $n: not run on 24.11 (contrib/trixie/ci.sh says why)"; continue ;; esac
        tests+=("$n")
    done
    exec "$top/contrib/trixie/run-cluster.sh" "$builddir" "${tests[@]}"
    ;;
*)
    echo "usage: ci.sh chroot | ci.sh cluster BUILDDIR" >&2
    exit 2
    ;;
esac
