#!/bin/bash
# build.sh - build Jobtree and its plugins against Slurm 24.11 inside the
# trixie chroot (issue 15): contrib/chroot/build.sh trixie.
#
#   contrib/trixie/build.sh BUILDDIR    (as root; JT_TRIXIE_ROOT moves the chroot)
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
[ -n "${2:-}" ] && export JT_TRIXIE_ROOT=$2
exec "$(dirname "$0")/../chroot/build.sh" trixie "${1:?usage: build.sh BUILDDIR [ROOT]}"
