#!/bin/sh
# tests/doc/apt-planned.sh - a documented `apt install ./DIR/NAME_*.deb ...`
# checked against what the build would make: each .deb argument (a glob)
# must match a line of PLAN, which `contrib/build-debs.sh --dry-run DIR`
# printed (DIR/NAME_VERSION_ARCH.deb). The doc-test's examples.list turns
# the documented `apt install` into this (tests/doc/README.md).
#
#   tests/doc/apt-planned.sh PLAN ARG...
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
plan=${1:?usage: apt-planned.sh PLAN ARG...}
shift
n=0
for a in "$@"; do
    case $a in *.deb) ;; *) continue ;; esac
    pat=${a#./}
    hit=0
    while IFS= read -r f; do
        # shellcheck disable=SC2254
        case ${f#./} in $pat) hit=1 ;; esac
    done < "$plan"
    [ $hit = 1 ] || { echo "apt-planned: $a names no package the build makes:"; sed 's/^/  /' "$plan"; exit 1; }
    n=$((n + 1))
done
[ $n -gt 0 ] || { echo "apt-planned: no .deb to install"; exit 1; }
echo "apt-planned: $n package(s), each made by the build"
