#!/bin/bash
# make-chroot.sh - a Debian 13 (trixie) root filesystem with Slurm 24.11,
# its build dependencies and its source, for building and running the
# Jobtree plugins against Slurm 24.11 on a bookworm host (issue 15).
#
#   contrib/trixie/make-chroot.sh [ROOT]     (as root; ROOT defaults to
#                                              /var/tmp/jobtree-trixie)
#
# Idempotent: each step is skipped when its result is already there
# (a stamp file under ROOT/.jobtree), so a second run costs seconds.
# Prints the path of the configured Slurm source tree inside ROOT last.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -euo pipefail

root=${1:-/var/tmp/jobtree-trixie}
mirror=${JT_TRIXIE_MIRROR:-http://deb.debian.org/debian}
stamps=$root/.jobtree

say() { echo "make-chroot: $*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (debootstrap and chroot need it)"

# The host's apt, one at a time among Jobtree's scripts (they run beside
# each other in contrib/test.sh), and waiting for anyone else's dpkg lock.
host_apt() { flock /var/tmp/jobtree-apt.lock apt-get -o DPkg::Lock::Timeout=600 "$@"; }

if ! command -v debootstrap >/dev/null; then
    say "installing debootstrap on the host"
    host_apt install -y debootstrap >/dev/null 2>&1 ||
        { host_apt update >/dev/null && host_apt install -y debootstrap >/dev/null; } ||
        die "cannot install debootstrap; install it with apt-get and retry"
fi

# 1. The base system.
if [ ! -f "$stamps/debootstrap" ]; then
    say "debootstrap trixie into $root (a few minutes)"
    mkdir -p "$root"
    debootstrap --variant=minbase trixie "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
        die "debootstrap failed; see $root.debootstrap.log (remove $root and retry)"
    mkdir -p "$stamps"
    touch "$stamps/debootstrap"
fi

cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# Slurm resolves localhost and the host's name (SlurmctldHost, NodeAddr):
# debootstrap's minbase leaves /etc/hosts out.
cp -L /etc/hosts "$root/etc/hosts"

# Commands in the chroot run in a private mount namespace (in-chroot.sh):
# nothing stays mounted under ROOT.
here=$(cd "$(dirname "$0")" && pwd)
in_root() { "$here/../chroot/in-chroot.sh" "$root" "$@"; }

# 2. Sources (binary and source), Slurm 24.11, the build dependencies and
# what the cluster tests run (python3). Bump pkgs_v when the list changes.
pkgs_v=2
if [ ! -f "$stamps/packages-$pkgs_v" ]; then
    cat >"$root/etc/apt/sources.list" <<SRC
deb $mirror trixie main
deb-src $mirror trixie main
SRC
    # Daemons must not start inside the chroot at install time.
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
    chmod 755 "$root/usr/sbin/policy-rc.d"
    say "installing Slurm 24.11 and the build dependencies in the chroot"
    in_root apt-get update >"$root.apt.log" 2>&1 || die "apt-get update failed; see $root.apt.log"
    in_root apt-get install -y --no-install-recommends \
        slurmctld slurmd slurm-client munge libslurm-dev slurm-wlm-plugins-dev \
        build-essential autoconf automake libtool pkg-config dpkg-dev \
        libjson-c-dev libssl-dev ca-certificates procps iproute2 python3 \
        libpmix-dev libpam0g-dev libhwloc-dev liblz4-dev libmunge-dev \
        >>"$root.apt.log" 2>&1 || die "apt-get install failed; see $root.apt.log"
    touch "$stamps/packages-$pkgs_v"
fi

# 3. The matching source, configured as Debian configures it (the plugins
# include Slurm's private headers and config.h).
ver=$(in_root dpkg-query -W -f='${Version}' slurmctld)
src=/usr/src/slurm-wlm-$ver
if [ ! -f "$stamps/source-$ver" ]; then
    say "fetching and configuring the slurm-wlm $ver source"
    rm -rf "$root$src"
    mkdir -p "$root$src.tmp"
    # The mirror may lack the .dsc of a stable update while it has the
    # upstream tarball (seen for 24.11.5-4+deb13u1): then the upstream
    # source is used, without Debian's patches (they do not touch the
    # plugin API; docs/slurm-24.11.md).
    if ! in_root sh -c "cd $src.tmp && apt-get source slurm-wlm=$ver" >"$root.source.log" 2>&1; then
        orig=$(find "$root$src.tmp" -maxdepth 1 -name 'slurm-wlm_*.orig.tar.*' | head -n 1)
        [ -n "$orig" ] || die "apt-get source slurm-wlm=$ver failed; see $root.source.log"
        say "no Debian source package on the mirror; using the upstream tarball ${orig##*/}"
        tar -C "$root$src.tmp" -xf "$orig" || die "cannot unpack $orig"
    fi
    d=$(find "$root$src.tmp" -mindepth 1 -maxdepth 1 -type d -name 'slurm*' | head -n 1)
    [ -n "$d" ] || die "no source directory after apt-get source; see $root.source.log"
    mv "$d" "$root$src"
    rm -rf "$root$src.tmp"
    # Configure with Debian's flags (as contrib/slurm-source.sh does for
    # 22.05); only the generated headers are needed, nothing is compiled.
    pmix=$(cd "$root" && ls -d usr/lib/x86_64-linux-gnu/pmix* 2>/dev/null | head -n 1)
    in_root sh -c "cd $src && ./configure --prefix=/usr --sysconfdir=/etc/slurm \
        --libdir=/usr/lib/x86_64-linux-gnu --with-munge --enable-pam --without-rpath \
        --disable-debug --enable-multiple-slurmd ${pmix:+--with-pmix=/$pmix}" \
        >>"$root.source.log" 2>&1 || die "configure of the Slurm source failed; see $root.source.log"
    [ -f "$root$src/config.h" ] || die "no config.h after configure; see $root.source.log"
    touch "$stamps/source-$ver"
fi
echo "$src"
