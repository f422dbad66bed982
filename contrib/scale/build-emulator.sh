#!/bin/bash
# build-emulator.sh - build a front-end ("emulator") Slurm 22.05 from the
# Debian source tree and the Jobtree plugins against it, outside the checkout.
#
#   contrib/scale/build-emulator.sh [SCALEDIR] [PLUGBUILD]
#
# SCALEDIR (default /var/tmp/jobtree-scale) receives a copy of the configured
# Debian source (contrib/slurm-source.sh's tree is never modified), configured
# again with Debian's flags plus --enable-front-end (as debian/rules does for
# slurm-wlm-emulator; --disable-static halves the compile time, no static
# library is needed) and installed into SCALEDIR/inst. PLUGBUILD (default
# build-scale-plug in the checkout) is a Jobtree build configured with
# --with-slurm-source=SCALEDIR/slurm-src. Each step is skipped when its stamp
# is newer than its inputs; the last line printed is SCALEDIR.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
scale=${1:-/var/tmp/jobtree-scale}
plug=${2:-$top/build-scale-plug}
src=/var/tmp/jobtree-slurm-src/slurm-src
nice="nice -n 10"
jobs=2

log() { echo "build-emulator: $*" >&2; }
fail() { log "$*"; exit 1; }

[ -f "$src/config.status" ] ||
    src=$("$top/contrib/slurm-source.sh" | tail -n 1)
[ -f "$src/config.status" ] || fail "no configured Slurm source at $src (run contrib/slurm-source.sh)"
mkdir -p "$scale"

# 1. A private copy of the source, configured as the emulator package is.
if [ ! -f "$scale/stamp-copy" ]; then
    log "copying $src to $scale/slurm-src"
    rm -rf "$scale/slurm-src"
    cp -a "$src" "$scale/slurm-src"
    # The copy was configured in place for the normal daemons: start over.
    $nice make -C "$scale/slurm-src" -s distclean >/dev/null 2>&1 || true
    touch "$scale/stamp-copy"
fi
# Two fixes the front-end build needs (emulator-fixes.patch says why).
if [ ! -f "$scale/stamp-patch" ]; then
    patch -d "$scale/slurm-src" -p1 --forward <"$here/emulator-fixes.patch" >&2 ||
        fail "emulator-fixes.patch does not apply to $scale/slurm-src"
    rm -f "$scale/stamp-install"
    touch "$scale/stamp-patch"
fi
if [ ! -f "$scale/stamp-configure" ]; then
    cd "$scale/slurm-src"
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
    log "configuring with --enable-front-end (log: $scale/configure.out)"
    CFLAGS="$(dpkg-buildflags --get CFLAGS 2>/dev/null || echo '-g -O2')" \
    CPPFLAGS="$(dpkg-buildflags --get CPPFLAGS 2>/dev/null || true)" \
    LDFLAGS="$(dpkg-buildflags --get LDFLAGS 2>/dev/null || true)" \
    $nice ./configure -q --prefix="$scale/inst" --sysconfdir="$scale/etc" \
        --with-munge --enable-pam --without-rpath --disable-debug \
        --enable-front-end --enable-multiple-slurmd --disable-static \
        --with-pmix=/usr/lib/$multiarch/pmix2 \
        SUCMD=/bin/su SLEEP_CMD=/bin/sleep >"$scale/configure.out" 2>&1 ||
        fail "configure failed: see $scale/configure.out"
    grep -q '^#define HAVE_FRONT_END 1' config.h || fail "config.h lacks HAVE_FRONT_END"
    touch "$scale/stamp-configure"
fi

# 2. Build and install the daemons, the commands and the plugins.
if [ ! -f "$scale/stamp-install" ]; then
    cd "$scale/slurm-src"
    log "building Slurm (front-end) in $scale/slurm-src (log: $scale/make.out)"
    $nice make -j$jobs -C src >"$scale/make.out" 2>&1 ||
        { tail -n 30 "$scale/make.out" >&2; fail "Slurm build failed"; }
    $nice make -C src install >"$scale/install.out" 2>&1 ||
        { tail -n 30 "$scale/install.out" >&2; fail "Slurm install failed"; }
    touch "$scale/stamp-install"
fi

# 3. The Jobtree plugins against the front-end tree.
cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
    fail "the checkout's configure is missing or stale (run contrib/build.sh once)"
fi
mkdir -p "$plug"
cd "$plug"
args="--enable-werror --with-slurm-source=$scale/slurm-src --with-slurm-plugindir=$scale/inst/lib/slurm"
if [ ! -f Makefile ] || [ "$(cat .jt-configure-args 2>/dev/null)" != "$args" ]; then
    # shellcheck disable=SC2086
    $nice "$top/configure" $args >configure.out 2>&1 ||
        { tail -n 30 configure.out >&2; fail "Jobtree configure failed in $plug"; }
    echo "$args" >.jt-configure-args
fi
log "building Jobtree in $plug (log: $plug/make.out)"
$nice make -j$jobs >make.out 2>&1 ||
    { grep -E 'error|Error' make.out | head -n 40 >&2; fail "Jobtree build failed in $plug"; }
echo "$scale"
