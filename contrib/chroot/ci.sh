#!/bin/bash
# ci.sh - one other Slurm release's half of the test suite, as
# contrib/test.sh runs it beside the host's 22.05 (contrib/chroot/root.sh:
# trixie for 24.11, sid for 26.05):
#
#   contrib/chroot/ci.sh NAME root              make (or reuse) the root
#   contrib/chroot/ci.sh NAME cluster BUILDDIR  build against its Slurm, run the cluster suite
#   contrib/chroot/ci.sh trixie packages OUTDIR  build the .debs in the root, apt install
#                                                them there, run t1000, t1005 and t3000 on
#                                                the installed files, purge them
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
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
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
packages)
    # Debian ships Slurm's source for 24.11 (trixie) but not for 26.05
    # (sid's source package is not served: docs/slurm-26.05.md), so only
    # trixie's packages are built and installed here.
    [ "$name" = trixie ] || { echo "ci.sh: packages only for trixie (docs/slurm-26.05.md says why)" >&2; exit 2; }
    out=${3:?usage: ci.sh trixie packages OUTDIR}
    mkdir -p "$out" && out=$(cd "$out" && pwd)
    rm -f "$out"/*.deb
    "$top/contrib/trixie/build-debs.sh" --nocheck "$out" "$jt_root" >"$out/build-debs.out" 2>&1 || {
        echo "not ok - the trixie packages could not be built"
        tail -n 30 "$out/build-debs.out" | sed 's/^/# /'
        exit 1
    }
    echo "ok - the trixie packages are built ($(cd "$out" && ls *.deb | paste -sd' '))"
    in_root() { "$top/contrib/chroot/in-chroot.sh" "$jt_root" --bind "$top" "$@"; }
    debs=(jobtree-slurm-plugins jobtree-ledgerd jobtree-tools)
    if in_root sh -c "apt-get install -y -qq $(cd "$out" && for d in *.deb; do printf '%s ' "$out/$d"; done)" \
            >"$out/apt.out" 2>&1; then
        echo "ok - apt installs them in the trixie root beside Slurm $(in_root dpkg-query -W -f='${Version}' slurmctld)"
        in_root bash "$top/tests/cluster/run.sh" --installed t1000-admission.sh t1005-demo.sh t3000-ledger.sh
        rc=$?
    else
        echo "not ok - apt install of the trixie packages"
        tail -n 20 "$out/apt.out" | sed 's/^/# /'
        rc=1
    fi
    in_root apt-get purge -y -qq "${debs[@]}" >/dev/null 2>&1 || true
    exit "$rc"
    ;;
*)
    echo "usage: ci.sh trixie|sid root | cluster BUILDDIR | packages OUTDIR" >&2
    exit 2
    ;;
esac
