#!/bin/bash
# build-debs.sh - build the Debian packages of Jobtree into OUTDIR:
# jobtree-slurm-plugins (the five plugins, for exactly the installed
# slurm-wlm), jobtree-ledgerd (daemon, systemd unit, the slurm user) and
# jobtree-tools (the jobtree command, man pages), then check them with
# lintian. Debian bookworm, as root (it installs what it needs).
#
#   contrib/build-debs.sh [--ref REF] [--nocheck] [--no-lintian] [--dry-run] OUTDIR
#
# The source is this checkout's files as they are (tracked and new files,
# not ignored ones), or the commit REF with --ref; it is copied to a
# scratch directory and built there with `dpkg-buildpackage -us -uc -b`
# (debian/rules), so the checkout and its build directories are untouched.
# The Slurm source the plugins are built against comes from
# contrib/slurm-source.sh. --nocheck skips `make check` in the package
# build. OUTDIR gets the .deb, .changes and .buildinfo files, build.log and
# lintian.txt. Exit status: 0, or 1 if the build fails or lintian reports
# an error (E:) or a warning (W:); notes (I:) are listed, not fatal.
#
# --dry-run checks the arguments, the source's version (debian/changelog)
# and REF, says which build dependencies would be installed, prints the
# .deb files the build would make (OUTDIR/NAME_VERSION_ARCH.deb and each
# NAME-dbgsym's, one a line) and exits, changing nothing (the doc-test
# runs it).
#
# Then, on a host running Debian's Slurm of the same version:
#   apt install ./OUTDIR/jobtree-*.deb
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ref=""
nocheck=no
lintian=yes
dry=no
while [ $# -gt 1 ]; do
    case "$1" in
    --ref) ref=$2; shift ;;
    --nocheck) nocheck=yes ;;
    --no-lintian) lintian=no ;;
    --dry-run) dry=yes ;;
    *) echo "build-debs.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
out=${1:?usage: build-debs.sh [--ref REF] [--nocheck] [--no-lintian] [--dry-run] OUTDIR}
case $out in -*) echo "build-debs.sh: OUTDIR $out looks like an option" >&2; exit 2 ;; esac
say () { echo "build-debs: $*"; }
# Build dependencies (debian/control's Build-Depends, and the tools).
build_deps () {
    echo build-essential dpkg-dev debhelper dh-autoreconf fakeroot pkgconf \
         libjson-c-dev libssl-dev libslurm-dev slurm-wlm-basic-plugins-dev
    [ "$lintian" = no ] || echo lintian
}
if [ "$dry" = yes ]; then
    # What the build would use and make; nothing is installed or written.
    version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version) || exit 1
    if [ -n "$ref" ]; then
        git -C "$top" rev-parse --verify -q "$ref^{commit}" >/dev/null \
            || { echo "build-debs.sh: --ref $ref is not a commit" >&2; exit 2; }
    fi
    arch=$(dpkg-architecture -qDEB_HOST_ARCH) || exit 1
    for p in $(build_deps); do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
            || say "dry run: would install $p"
    done
    say "dry run: jobtree $version from ${ref:-the files of the checkout} into $out" \
        "(make check: $([ "$nocheck" = yes ] && echo no || echo yes), lintian: $lintian); would make:"
    # each with its -dbgsym package (debhelper's, unless noautodbgsym)
    sed -n 's/^Package: *//p' "$top/debian/control" | while read -r p; do
        echo "$out/${p}_${version}_$arch.deb"
        case " ${DEB_BUILD_OPTIONS:-} " in
        *" noautodbgsym "*) ;;
        *) echo "$out/${p}-dbgsym_${version}_$arch.deb" ;;
        esac
    done
    exit 0
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

read -r -a pkgs <<< "$(build_deps | tr '\n' ' ')"
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
        || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # one apt at a time among Jobtree's scripts (contrib/test.sh runs this
    # beside the chroots' making), and waiting for anyone else's dpkg lock
    flock /var/tmp/jobtree-apt.lock apt-get -o DPkg::Lock::Timeout=600 update -qq
    flock /var/tmp/jobtree-apt.lock apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
        --no-install-recommends "${missing[@]}" >/dev/null
fi

# The configured Slurm source of the installed version (idempotent), or
# JT_SLURM_SOURCE's (contrib/trixie/build-debs.sh: the chroot's 24.11 tree).
slurm_src=${JT_SLURM_SOURCE:-$("$top/contrib/slurm-source.sh" | tail -n 1)}
say "Slurm source: $slurm_src ($(cat "$(dirname "$slurm_src")/.jobtree-configured" 2>/dev/null ||
    dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins))"

# A copy of the source to build in.
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
work=$(mktemp -d "${TMPDIR:-/var/tmp}/jobtree-debs.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/jobtree-$version
mkdir "$src"
if [ -n "$ref" ]; then
    say "source: commit $(git -C "$top" rev-parse --short "$ref")"
    git -C "$top" archive "$ref" | tar -x -C "$src"
elif ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
    say "source: $top, not a git checkout (an exported tree): all of it"
    tar -C "$top" -cf - . | tar -x -C "$src"
else
    say "source: the files of $top as they are"
    (cd "$top" && git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
        tar --null -T - -cf -) | tar -x -C "$src"
fi

opts="${DEB_BUILD_OPTIONS:-}"
[ "$nocheck" = yes ] && opts="$opts nocheck"
say "dpkg-buildpackage -us -uc -b in $src (log: $out/build.log)"
if ! (cd "$src" && DEB_BUILD_OPTIONS="$opts" JT_SLURM_SOURCE="$slurm_src" \
        dpkg-buildpackage -us -uc -b -j"$(nproc)") >"$out/build.log" 2>&1; then
    grep -E 'error:|Error [0-9]|^FAIL|^ERROR' "$out/build.log" | head -n 30 >&2 || true
    tail -n 20 "$out/build.log" >&2
    say "the package build failed (see $out/build.log)"
    exit 1
fi
changes=$work/jobtree_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).changes
for f in $(sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]* [0-9]* [^ ]* [^ ]* //p' "$changes"); do
    mv "$work/$f" "$out/"
done
mv "$changes" "$out/"
changes=$out/${changes##*/}
say "built:"
for f in "$out"/*_"$version"_*.deb; do
    echo "  $f  ($(dpkg-deb -f "$f" Depends))"
done

if [ "$lintian" = yes ]; then
    lintian --display-info "$changes" >"$out/lintian.txt" 2>&1 || true
    e=$(grep -c '^E: ' "$out/lintian.txt" || true)
    w=$(grep -c '^W: ' "$out/lintian.txt" || true)
    i=$(grep -c '^I: ' "$out/lintian.txt" || true)
    say "lintian: $e errors, $w warnings, $i notes ($out/lintian.txt)"
    grep -E '^(E|W): ' "$out/lintian.txt" | sed 's/^/  /' || true
    [ "$e" -eq 0 ] && [ "$w" -eq 0 ] || exit 1
fi
