#!/bin/bash
# in-chroot.sh - run a command inside a debootstrap chroot (the trixie one
# here; contrib/fresh/measure.sh's bookworm one too), in a private mount
# namespace: proc, dev, dev/pts, sys and (with --bind DIR) DIR at the same
# path are mounted for that command only and vanish with it, so nothing
# stays mounted under ROOT (an `rm -rf ROOT` can never reach the source
# tree through a forgotten bind mount).
#
#   contrib/chroot/in-chroot.sh ROOT [--cgroup] [--bind DIR]... CMD [ARG...]   (as root)
#
# --cgroup also binds the host's /sys/fs/cgroup (with its controllers), as a
# booted machine has it: Slurm 22.05's slurmd will not start without one
# (24.11's runs with CgroupPlugin=disabled instead: tests/cluster/lib.sh).
#
# The command runs with a clean environment (PATH, HOME, LANG,
# DEBIAN_FRONTEND, and the JT_CLUSTER_* knobs of tests/cluster/lib.sh).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -euo pipefail

if [ "${JT_IN_CHROOT_NS:-}" != 1 ]; then
    exec env JT_IN_CHROOT_NS=1 unshare --mount --propagation private "$0" "$@"
fi
root=${1:?usage: in-chroot.sh ROOT [--cgroup] [--bind DIR]... CMD [ARG...]}
shift
cgroup=no
[ "${1:-}" = --cgroup ] && { cgroup=yes; shift; }
binds=()
while [ "${1:-}" = --bind ]; do
    binds+=("${2:?--bind needs a directory}")
    shift 2
done
[ $# -gt 0 ] || { echo "in-chroot.sh: no command" >&2; exit 2; }

mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t sysfs sysfs "$root/sys"
if [ "$cgroup" = yes ]; then
    mkdir -p "$root/sys/fs/cgroup" 2>/dev/null || true
    mount --rbind /sys/fs/cgroup "$root/sys/fs/cgroup"
fi
for d in "${binds[@]}"; do
    mkdir -p "$root$d"
    mount --bind "$d" "$root$d"
done
mapfile -t knobs < <(env | grep -E '^JT_CLUSTER_[A-Z_]*=' || true)
exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "${knobs[@]}" "$@"
