#!/bin/bash
# run-cluster.sh - the cluster tests (tests/cluster/run.sh) on Slurm 24.11,
# inside the trixie chroot, against a build made by contrib/trixie/build.sh.
#
#   contrib/trixie/run-cluster.sh BUILDDIR [TEST...]    (as root)
#
# The source tree is bind-mounted at the same path inside the chroot (as
# build.sh does); the daemons (munged, slurmctld, 16 slurmd) are the
# chroot's, their state in a temporary directory under the chroot's /tmp.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
builddir=${1:?usage: run-cluster.sh BUILDDIR [TEST...]}
shift
root=${JT_TRIXIE_ROOT:-/var/tmp/jobtree-trixie}
builddir=$(cd "$builddir" && pwd)
[ -f "$root/.jobtree/debootstrap" ] ||
    { echo "run-cluster.sh: no chroot at $root (contrib/trixie/make-chroot.sh)" >&2; exit 2; }
"$top/contrib/trixie/make-chroot.sh" "$root" >/dev/null   # mounts, /etc/hosts
mkdir -p "$root$top"
mountpoint -q "$root$top" || mount --bind "$top" "$root$top"
# The test knobs (JT_CLUSTER_KEEP, JT_CLUSTER_DEBUG, ...: tests/cluster/lib.sh)
# pass through; nothing else of the host's environment does.
mapfile -t knobs < <(env | grep -E '^JT_CLUSTER_[A-Z_]*=' || true)
exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 "${knobs[@]}" bash "$top/tests/cluster/run.sh" "$builddir" "$@"
