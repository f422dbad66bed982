# tests/tap/jobtree.sh - the start of every shell test of the jobtree
# command (POSIX sh; source it as . "$(dirname "$0")/../tap/jobtree.sh"):
#
#   $srcdir, $builddir   the source and build trees: JT_SRCDIR and
#                        JT_BUILDDIR (make check sets them), else the tree
#                        the script is in, built here or in the current
#                        directory
#   $jobtree             the command under test
#   $tmp                 a directory of the test's own, removed on exit
#
# and the TAP functions of tests/tap/tap.sh.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.

srcdir=${JT_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ -n "$JT_BUILDDIR" ]; then
    builddir=$JT_BUILDDIR
elif [ -x src/cli/jobtree ]; then
    builddir=$(pwd)
else
    builddir=$srcdir
fi
jobtree=$builddir/src/cli/jobtree
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-$(basename "$0" .sh).XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

. "$srcdir/tests/tap/tap.sh"
