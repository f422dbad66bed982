#!/bin/bash
# make-root.sh - a Debian unstable (sid) root filesystem with upstream
# Slurm 26.05 built from source and installed under /usr, for building and
# running the Jobtree plugins against Slurm 26.05 on a bookworm host
# (issue 36; docs/slurm-26.05.md).
#
#   contrib/sid/make-root.sh [ROOT]     (as root; ROOT defaults to
#                                        /var/tmp/jobtree-sid)
#   contrib/sid/make-root.sh --check    only say whether the tarball is there
#                                        (exit 0, or 3 with how to give one)
#
# Why a source build: sid ships slurm-wlm 26.05.5 binaries, but the mirror
# these machines reach serves no 26.05 source package, and every plugin
# type but SPANK must be built against the configured source tree of the
# exact release that loads it. So the root runs upstream's own release from
# a tarball: JT_SLURM_2605_TARBALL, by default the workspace's
# ../shared/slurm/slurm-26.05.3.tar.xz (SchedMD's tag slurm-26-05-3-1).
# Without a tarball this script says how to give one and exits 3.
#
# Idempotent: each step is skipped when its stamp under ROOT/.jobtree says
# it is done, so a second run costs seconds. On a fresh 2-core machine:
# debootstrap about 40 s, packages about 1 min, Slurm's configure + make
# -j2 + make install about 7 min. Prints the path of the configured Slurm
# source tree inside ROOT last.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
check=no
[ "${1:-}" = --check ] && { check=yes; shift; }
root=${1:-/var/tmp/jobtree-sid}
mirror=${JT_SID_MIRROR:-http://deb.debian.org/debian}
tarball=${JT_SLURM_2605_TARBALL:-$top/../shared/slurm/slurm-26.05.3.tar.xz}
# A clone elsewhere than beside the workspace: its usual place.
[ -f "$tarball" ] || [ -n "${JT_SLURM_2605_TARBALL:-}" ] || [ ! -f /work/shared/slurm/slurm-26.05.3.tar.xz ] ||
    tarball=/work/shared/slurm/slurm-26.05.3.tar.xz
stamps=$root/.jobtree

say() { echo "make-root: $*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (debootstrap and chroot need it)"
if [ ! -f "$tarball" ]; then
    say "no Slurm 26.05 source tarball at $tarball"
    say "give one with JT_SLURM_2605_TARBALL=/path/to/slurm-26.05.x.tar.xz (SchedMD's release"
    say "tarball or 'git archive' of a slurm-26-05-*-1 tag); the 26.05 suite is skipped"
    exit 3
fi
[ "$check" = yes ] && { say "Slurm 26.05 source: $tarball"; exit 0; }
# The host's apt, one at a time among Jobtree's scripts (they run beside
# each other in contrib/test.sh), and waiting for anyone else's dpkg lock.
host_apt() { flock /var/tmp/jobtree-apt.lock apt-get -o DPkg::Lock::Timeout=600 "$@"; }
command -v debootstrap >/dev/null || host_apt install -y debootstrap >/dev/null 2>&1 ||
    { host_apt update >/dev/null 2>&1 && host_apt install -y debootstrap >/dev/null 2>&1; } ||
    die "cannot install debootstrap; install it with apt-get and retry"

# 1. The base system.
if [ ! -f "$stamps/debootstrap" ]; then
    say "debootstrap sid into $root (about a minute)"
    rm -rf "$root"
    mkdir -p "$root"
    debootstrap --variant=minbase sid "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
        die "debootstrap failed; see $root.debootstrap.log (remove $root and retry)"
    mkdir -p "$stamps"
    touch "$stamps/debootstrap"
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
cp -L /etc/hosts "$root/etc/hosts"     # Slurm resolves localhost and the host name

in_root() { "$top/contrib/chroot/in-chroot.sh" "$root" "$@"; }
# The mirror's sid Release file may be past its Valid-Until date.
apt_opts=(-o Acquire::Check-Valid-Until=false)

# 2. Slurm's build dependencies, munge, and what the tests and Jobtree's
# own build need. Bump pkgs_v when the list changes.
pkgs_v=1
if [ ! -f "$stamps/packages-$pkgs_v" ]; then
    echo "deb $mirror sid main" >"$root/etc/apt/sources.list"
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"   # no daemons at install
    chmod 755 "$root/usr/sbin/policy-rc.d"
    say "installing the build dependencies and munge in the root"
    in_root apt-get "${apt_opts[@]}" update >"$root.apt.log" 2>&1 ||
        die "apt-get update failed; see $root.apt.log"
    in_root apt-get "${apt_opts[@]}" install -y --no-install-recommends \
        build-essential autoconf automake libtool pkg-config dpkg-dev xz-utils \
        munge libmunge-dev libjson-c-dev libyaml-dev libhwloc-dev liblz4-dev \
        libpam0g-dev libssl-dev ca-certificates procps iproute2 python3 \
        >>"$root.apt.log" 2>&1 || die "apt-get install failed; see $root.apt.log"
    touch "$stamps/packages-$pkgs_v"
fi

# 3. Slurm from the tarball: configured as a distribution would (under
# /usr, plugins in /usr/lib/x86_64-linux-gnu/slurm), with several slurmd on
# one host, built and installed. The configured tree stays: the plugins
# include its config.h and src/ headers.
sum=$(sha256sum "$tarball" | cut -c1-16)
if [ ! -f "$stamps/slurm-$sum" ]; then
    say "building Slurm from ${tarball##*/} in the root (configure, make -j$(nproc), install: about 7 min; log $root.slurm.log)"
    rm -rf "$root/usr/src/slurm-26" "$root/usr/src/slurm.tmp"
    mkdir -p "$root/usr/src/slurm.tmp"
    tar -C "$root/usr/src/slurm.tmp" -xf "$tarball" || die "cannot unpack $tarball"
    d=$(find "$root/usr/src/slurm.tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
    [ -n "$d" ] || die "no directory in $tarball"
    mv "$d" "$root/usr/src/slurm-26"
    rm -rf "$root/usr/src/slurm.tmp"
    start=$(date +%s)
    in_root sh -c "cd /usr/src/slurm-26 && ./configure --prefix=/usr --sysconfdir=/etc/slurm \
        --libdir=/usr/lib/x86_64-linux-gnu --with-munge --enable-pam --without-rpath \
        --disable-debug --enable-multiple-slurmd && nice -n 10 make -j$(nproc) && make install" \
        >"$root.slurm.log" 2>&1 || die "the Slurm build failed; see $root.slurm.log"
    [ -f "$root/usr/src/slurm-26/config.h" ] || die "no config.h after configure; see $root.slurm.log"
    in_root ldconfig
    say "Slurm $(in_root slurmctld -V) built and installed in $(( $(date +%s) - start )) s"
    touch "$stamps/slurm-$sum"
fi
echo /usr/src/slurm-26
