#!/bin/sh
# contrib/slurm-source.sh - fetch and configure the Slurm source tree that
# matches the installed Slurm, for `configure --with-slurm-source=DIR`.
#
#   contrib/slurm-source.sh [DIR]      (default /var/tmp/jobtree-slurm-src)
#
# Slurm plugins include Slurm's private headers (src/common/*.h, config.h), so
# they must be built against the very source the daemons were built from. This
# script enables deb-src for the system's suites if needed, installs the build
# dependencies the configure step needs, runs `apt-get source slurm-wlm=<the
# installed version>` and Debian's configure flags once. It is idempotent: a
# tree already configured for that version is reused. The last line printed
# is the tree's path. Needs root for apt-get (the only step that does).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -eu

DIR=${1:-/var/tmp/jobtree-slurm-src}
PKG=slurmctld
export DEBIAN_FRONTEND=noninteractive

die () { echo "slurm-source: $*" >&2; exit 1; }
say () { echo "slurm-source: $*" >&2; }
# jt_progress LOG CMD: CMD's output to LOG, a line every 15 s meanwhile.
. "$(dirname "$0")/progress.sh"
as_root () {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@";
    else die "need root for: $*"; fi
}

# The installed Slurm decides the version: plugins must match it exactly.
VERSION=$(dpkg-query -W -f='${Version}' $PKG 2>/dev/null || true)
if [ -z "$VERSION" ]; then
    say "$PKG is not installed; installing Debian's Slurm"
    as_root apt-get update -q >&2
    as_root apt-get install -y -q slurmctld slurmd slurm-client munge >&2
    VERSION=$(dpkg-query -W -f='${Version}' $PKG) || die "cannot install $PKG"
fi
UPSTREAM=${VERSION%%-*}                 # 22.05.8-4+deb12u3 -> 22.05.8
STAMP="$DIR/.jobtree-configured"

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$VERSION" ] \
   && [ -f "$DIR/slurm-src/config.h" ]; then
    say "reusing $DIR/slurm-src (configured for $VERSION)"
    echo "$DIR/slurm-src"
    exit 0
fi

mkdir -p "$DIR"
LOG=$DIR/fetch.log
: >"$LOG"
echo "=== Slurm source: fetching slurm-wlm=$VERSION (apt-get source, 10 MB) and" \
     "configuring it with Debian's flags, about 1 min on a fresh machine (log $LOG)" >&2

# Build dependencies of Slurm's configure (it fails without pmix).
NEED=""
for p in build-essential libpmix-dev libpam0g-dev libhwloc-dev liblz4-dev \
         libmunge-dev dpkg-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" \
        || NEED="$NEED $p"
done
if [ -n "$NEED" ]; then
    say "installing:$NEED"
    as_root apt-get update -q >&2
    # shellcheck disable=SC2086
    as_root apt-get install -y -q $NEED >&2
fi

# deb-src: add a deb822 file mirroring the existing deb entries, once.
if ! apt-get source --print-uris -q "slurm-wlm=$VERSION" >/dev/null 2>&1; then
    SRCLIST=/etc/apt/sources.list.d/jobtree-deb-src.sources
    if [ ! -f "$SRCLIST" ]; then
        say "enabling deb-src in $SRCLIST"
        tmp=$(mktemp)
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -f "$f" ] || continue
            [ "$f" = "$SRCLIST" ] && continue
            # Copy each stanza that lists Types: deb, as Types: deb-src.
            awk 'BEGIN { RS = ""; ORS = "\n\n" }
                 /(^|\n)Types:[^\n]*deb([ \n]|$)/ && /URIs:[^\n]*debian/ {
                     gsub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f" >> "$tmp"
        done
        if [ -f /etc/apt/sources.list ]; then
            grep '^deb .*debian' /etc/apt/sources.list | sed 's/^deb /deb-src /' \
                > "${tmp}.list" || true
            [ -s "${tmp}.list" ] && as_root cp "${tmp}.list" \
                /etc/apt/sources.list.d/jobtree-deb-src.list
            rm -f "${tmp}.list"
        fi
        if [ -s "$tmp" ]; then
            as_root cp "$tmp" "$SRCLIST"
            as_root chmod 0644 "$SRCLIST"
        fi
        rm -f "$tmp"
    fi
    # A third-party repository without sources must not stop us here;
    # apt-get source below says clearly if the package is still missing.
    jt_progress "$LOG" as_root apt-get update -q ||
        say "apt-get update reported errors (see $LOG)"
fi

mkdir -p "$DIR"
rm -rf "$DIR/slurm-src" "$STAMP"
(
    cd "$DIR"
    rm -rf "slurm-wlm-$UPSTREAM"
    jt_progress "$LOG" apt-get source -q --download-only "slurm-wlm=$VERSION"
    dsc=$(ls slurm-wlm_*.dsc | head -n 1)
    jt_progress "$LOG" dpkg-source --no-check -x "$dsc" "slurm-src"
) || { tail -n 20 "$LOG" >&2; die "apt-get source slurm-wlm=$VERSION failed (log $LOG)"; }

say "configuring $DIR/slurm-src (Debian's flags)"
(
    cd "$DIR/slurm-src"
    : >"$DIR/configure.log"
    jt_progress "$DIR/configure.log" ./configure --prefix=/usr --sysconfdir=/etc/slurm \
        --libdir=/usr/lib/x86_64-linux-gnu --with-munge --enable-pam \
        --without-rpath --disable-debug --enable-multiple-slurmd \
        --with-pmix=/usr/lib/x86_64-linux-gnu/pmix2
) || { tail -n 20 "$DIR/configure.log" >&2; die "Slurm configure failed (log $DIR/configure.log)"; }

# Generated headers the plugins include (slurm/slurm_version.h is made by
# configure; nothing needs compiling).
[ -f "$DIR/slurm-src/config.h" ] || die "no config.h after configure"
echo "$VERSION" > "$STAMP"
echo "$DIR/slurm-src"
