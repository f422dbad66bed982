#!/bin/bash
# build.sh - build Jobtree and its plugins against the Slurm of a Debian
# root (contrib/chroot/root.sh: trixie for 24.11, sid for 26.05), inside it.
#
#   contrib/chroot/build.sh trixie|sid BUILDDIR    (as root)
#
# The source tree is bind-mounted at the same path inside the root (for
# each command only: in-chroot.sh), so BUILDDIR (absolute, or relative to
# the current directory, inside the source tree) is the same path inside
# and out. Configure runs with --enable-werror against the root's
# configured Slurm source; configure's exact-version check compares it with
# the root's installed slurmctld and picks the release's adapter.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/contrib/chroot/root.sh"
jt_root_select "$top" "${1:?usage: build.sh trixie|sid BUILDDIR}" || exit 2
builddir=${2:?usage: build.sh trixie|sid BUILDDIR}
mkdir -p "$builddir"
builddir=$(cd "$builddir" && pwd)
case "$builddir" in
"$top"/*) ;;
*) echo "build.sh: BUILDDIR must be inside $top (it is bind-mounted)" >&2; exit 2 ;;
esac

src=$("$jt_maker" "$jt_root" | tail -n 1)

in_root() { "$top/contrib/chroot/in-chroot.sh" "$jt_root" --bind "$top" "$@"; }

if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ]; then
    (cd "$top" && autoreconf -fi >/dev/null 2>&1)
fi
args="--enable-werror --with-slurm-source=$src"
if [ ! -f "$builddir/Makefile" ] || [ "$(cat "$builddir/.jt-configure-args" 2>/dev/null)" != "$args" ]; then
    in_root sh -c "cd $builddir && $top/configure $args" >"$builddir/configure.out" 2>&1 || {
        tail -n 30 "$builddir/configure.out" >&2
        exit 1
    }
    echo "$args" >"$builddir/.jt-configure-args"
fi
in_root sh -c "cd $builddir && nice -n 10 make -j2" >"$builddir/make.out" 2>&1 || {
    { grep -E 'error|warning' "$builddir/make.out" || true; } | head -n 60 >&2
    tail -n 20 "$builddir/make.out" >&2
    exit 1
}
echo "build.sh: built in $builddir against $jt_release: $(in_root slurmctld -V) ($src)"
