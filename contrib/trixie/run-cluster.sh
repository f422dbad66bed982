#!/bin/bash
# run-cluster.sh - the cluster tests (tests/cluster/run.sh) on Slurm 24.11,
# inside the trixie chroot, against a build made by contrib/trixie/build.sh.
#
#   contrib/trixie/run-cluster.sh BUILDDIR [TEST...]    (as root)
#
# The source tree is bind-mounted at the same path inside the chroot, for
# this run only (in-chroot.sh); the daemons (munged, slurmctld, 16 slurmd) are the
# chroot's, their state in a temporary directory under the chroot's /tmp.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
builddir=${1:?usage: run-cluster.sh BUILDDIR [TEST...]}
shift
root=${JT_TRIXIE_ROOT:-/var/tmp/jobtree-trixie}
builddir=$(cd "$builddir" && pwd)
[ -f "$root/.jobtree/debootstrap" ] ||
    { echo "run-cluster.sh: no chroot at $root (contrib/trixie/make-chroot.sh)" >&2; exit 2; }
"$top/contrib/trixie/make-chroot.sh" "$root" >/dev/null   # /etc/hosts
# The test knobs (JT_CLUSTER_KEEP, JT_CLUSTER_DEBUG, ...: tests/cluster/lib.sh)
# pass through in-chroot.sh; nothing else of the host's environment does.
exec "$top/contrib/trixie/in-chroot.sh" "$root" --bind "$top" \
    bash "$top/tests/cluster/run.sh" "$builddir" "$@"
