#!/bin/bash
# build-debs.sh - the Debian packages of Jobtree (contrib/build-debs.sh)
# for Debian 13's Slurm 24.11, built inside the trixie chroot that
# make-chroot.sh makes, against its configured 24.11 source.
#
#   contrib/trixie/build-debs.sh [--nocheck] [--no-lintian] OUTDIR [ROOT]   (as root)
#
# The checkout's files (tracked and new, not ignored: as contrib/build-debs.sh
# takes them) are exported to a scratch directory under ROOT/tmp, where
# contrib/build-debs.sh runs in the chroot (it installs its build
# dependencies there with apt, never on the host); the .deb files, build.log
# and lintian.txt land in OUTDIR on the host. The packages depend on exactly
# the chroot's slurm-wlm-basic-plugins version.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
opts=()
while [ "${1:-}" = --nocheck ] || [ "${1:-}" = --no-lintian ]; do opts+=("$1"); shift; done
out=${1:?usage: build-debs.sh [--nocheck] [--no-lintian] OUTDIR [ROOT]}
root=${2:-/var/tmp/jobtree-trixie}
mkdir -p "$out"
out=$(cd "$out" && pwd)

src=$("$top/contrib/trixie/make-chroot.sh" "$root" | tail -n 1)
work=$(mktemp -d "$root/tmp/jobtree-debs.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/src" "$work/out"
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf -) | tar -x -C "$work/src"
in_work=${work#"$root"}
rc=0
"$top/contrib/chroot/in-chroot.sh" "$root" env JT_SLURM_SOURCE="$src" \
    bash "$in_work/src/contrib/build-debs.sh" "${opts[@]}" "$in_work/out" || rc=$?
cp -a "$work/out/." "$out/"
echo "build-debs (trixie): exit $rc; $(ls "$out"/*.deb 2>/dev/null | wc -l) .deb in $out"
exit "$rc"
