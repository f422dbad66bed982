#!/bin/bash
# run-cluster.sh - the cluster tests on Slurm 24.11 inside the trixie
# chroot, against a build made by contrib/trixie/build.sh:
# contrib/chroot/run-cluster.sh trixie.
#
#   contrib/trixie/run-cluster.sh BUILDDIR [TEST...]    (as root)
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
exec "$(dirname "$0")/../chroot/run-cluster.sh" trixie "$@"
