#!/bin/bash
# ci.sh - the Slurm 24.11 half of the test suite (contrib/chroot/ci.sh
# trixie), kept under this name for the docs that cite it:
#
#   contrib/trixie/ci.sh chroot              make (or reuse) the trixie chroot
#   contrib/trixie/ci.sh cluster BUILDDIR    build against 24.11, run the cluster suite
#
# JT_TRIXIE_SKIP, if set, overrides the scripts not run (JT_CHROOT_SKIP).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
[ -n "${JT_TRIXIE_SKIP+set}" ] && export JT_CHROOT_SKIP=$JT_TRIXIE_SKIP
case "${1:-}" in
chroot) exec "$(dirname "$0")/../chroot/ci.sh" trixie root ;;
*) exec "$(dirname "$0")/../chroot/ci.sh" trixie "$@" ;;
esac
