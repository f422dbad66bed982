#!/bin/bash
# build.sh - configure and build Jobtree in a build directory.
#
#   contrib/build.sh [--sanitizers] [--no-slurm] BUILDDIR
#
# Without --no-slurm (and without --sanitizers, since the plugins are loaded
# by uninstrumented Slurm daemons) it first makes sure a configured Slurm
# source tree matching the installed packages exists (contrib/slurm-source.sh)
# and builds the plugins against it.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
san=no
slurm=yes
while [ $# -gt 1 ]; do
    case "$1" in
    --sanitizers) san=yes; slurm=no ;;
    --no-slurm) slurm=no ;;
    *) echo "build.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
builddir=${1:?usage: build.sh [--sanitizers] [--no-slurm] BUILDDIR}

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
    autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
fi

args=(--enable-werror)
[ "$san" = yes ] && args+=(--enable-sanitizers)
if [ "$slurm" = yes ] && [ -x contrib/slurm-source.sh ]; then
    src=$(contrib/slurm-source.sh | tail -n 1)
    args+=("--with-slurm-source=$src")
fi

mkdir -p "$builddir"
cd "$builddir"
if [ ! -f Makefile ] || [ "$(cat .jt-configure-args 2>/dev/null)" != "${args[*]}" ]; then
    "$top/configure" "${args[@]}" >configure.out 2>&1 || {
        tail -n 30 configure.out >&2
        exit 1
    }
    echo "${args[*]}" >.jt-configure-args
fi
make -j"$(nproc)" >make.out 2>&1 || {
    grep -E 'error|Error' make.out | head -n 40 >&2
    tail -n 20 make.out >&2
    exit 1
}
echo "build.sh: built in $builddir (${args[*]})"
