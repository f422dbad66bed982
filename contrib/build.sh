#!/bin/bash
# build.sh - configure and build Jobtree in a build directory.
#
#   contrib/build.sh [--sanitizers] [--no-slurm] BUILDDIR
#
# Without --no-slurm (and without --sanitizers, since the plugins are loaded
# by uninstrumented Slurm daemons) it first makes sure a configured Slurm
# source tree matching the installed packages exists (contrib/slurm-source.sh)
# and builds the plugins against it.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
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

# jt_progress LOG CMD: CMD's output to LOG, a line every 15 s meanwhile.
. "$top/contrib/progress.sh"

cd "$top"
args=(--enable-werror)
[ "$san" = yes ] && args+=(--enable-sanitizers)
if [ "$slurm" = yes ] && [ -x contrib/slurm-source.sh ]; then
    src=$(contrib/slurm-source.sh | tail -n 1)
    args+=("--with-slurm-source=$src")
fi

mkdir -p "$builddir"
echo "=== building Jobtree in $builddir (autoreconf, configure, make -j$(nproc);" \
     "logs in $builddir), 1 to 2.5 min on a fresh 2-core machine"
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
    : >"$builddir/autoreconf.out"
    jt_progress "$builddir/autoreconf.out" autoreconf -fi || {
        tail -n 30 "$builddir/autoreconf.out" >&2
        exit 1
    }
fi
cd "$builddir"
if [ ! -f Makefile ] || [ "$(cat .jt-configure-args 2>/dev/null)" != "${args[*]}" ]; then
    : >configure.out
    jt_progress configure.out "$top/configure" "${args[@]}" || {
        tail -n 30 configure.out >&2
        exit 1
    }
    echo "${args[*]}" >.jt-configure-args
fi
: >make.out
jt_progress make.out make -j"$(nproc)" || {
    grep -E 'error|Error' make.out | head -n 40 >&2
    tail -n 20 make.out >&2
    exit 1
}
echo "build.sh: built in $builddir (${args[*]})"
