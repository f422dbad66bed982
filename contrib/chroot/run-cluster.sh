#!/bin/bash
# run-cluster.sh - the cluster tests (tests/cluster/run.sh) on the Slurm of
# a Debian root (contrib/chroot/root.sh: trixie for 24.11, sid for 26.05),
# inside it, against a build made by contrib/chroot/build.sh.
#
#   contrib/chroot/run-cluster.sh trixie|sid BUILDDIR [TEST...]    (as root)
#
# The source tree is bind-mounted at the same path inside the root, for
# this run only (in-chroot.sh); the daemons (munged, slurmctld, 16 slurmd)
# are the root's, their state in a temporary directory under its /tmp.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/contrib/chroot/root.sh"
jt_root_select "$top" "${1:?usage: run-cluster.sh trixie|sid BUILDDIR [TEST...]}" || exit 2
builddir=${2:?usage: run-cluster.sh trixie|sid BUILDDIR [TEST...]}
shift 2
builddir=$(cd "$builddir" && pwd)
[ -f "$jt_root/.jobtree/debootstrap" ] ||
    { echo "run-cluster.sh: no root at $jt_root ($jt_maker)" >&2; exit 2; }
"$jt_maker" "$jt_root" >/dev/null   # /etc/hosts
# The test knobs (JT_CLUSTER_KEEP, JT_CLUSTER_DEBUG, ...: tests/cluster/lib.sh)
# pass through in-chroot.sh; nothing else of the host's environment does.
exec "$top/contrib/chroot/in-chroot.sh" "$jt_root" --bind "$top" \
    bash "$top/tests/cluster/run.sh" "$builddir" "$@"
