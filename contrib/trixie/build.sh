#!/bin/bash
# build.sh - build Jobtree and its plugins against Slurm 24.11 inside the
# trixie chroot that make-chroot.sh makes (issue 15).
#
#   contrib/trixie/build.sh BUILDDIR [ROOT]    (as root)
#
# The source tree is bind-mounted at the same path inside the chroot (for
# each command only: in-chroot.sh), so
# BUILDDIR (absolute, or relative to the current directory) is the same
# path inside and out. Configure runs with --enable-werror against the
# chroot's configured Slurm 24.11 source; configure's exact-version check
# compares it with the chroot's installed slurmctld.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
builddir=${1:?usage: build.sh BUILDDIR [ROOT]}
root=${2:-/var/tmp/jobtree-trixie}
mkdir -p "$builddir"
builddir=$(cd "$builddir" && pwd)
case "$builddir" in
"$top"/*) ;;
*) echo "build.sh: BUILDDIR must be inside $top (it is bind-mounted)" >&2; exit 2 ;;
esac

src=$("$top/contrib/trixie/make-chroot.sh" "$root" | tail -n 1)

in_root() { "$top/contrib/trixie/in-chroot.sh" "$root" --bind "$top" "$@"; }

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
echo "build.sh: built in $builddir against Slurm $(in_root dpkg-query -W -f='${Version}' slurmctld) ($src)"
