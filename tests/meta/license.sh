#!/bin/sh
# license.sh - every source file of the tree states its license: the
# copyright line and `SPDX-License-Identifier: GPL-2.0-or-later` with the
# OpenSSL exception line (LICENSE.OpenSSL), within its head comment (the first 150 lines); and
# COPYING and LICENSE.OpenSSL are there. Source files: C, headers, shell,
# Python, automake and m4 fragments, version scripts, configure.ac,
# debian/rules and maintainer scripts. It runs on the distributed tree too
# (make distcheck).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.

srcdir=${JT_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/tap/tap.sh"

plan 3
ok "$( [ -s "$srcdir/COPYING" ] && grep -q 'GNU GENERAL PUBLIC LICENSE' "$srcdir/COPYING"; echo $?)" \
   "COPYING holds the GPL"
ok "$( [ -s "$srcdir/LICENSE.OpenSSL" ] && grep -q 'OpenSSL' "$srcdir/LICENSE.OpenSSL"; echo $?)" \
   "LICENSE.OpenSSL holds the exception"

missing=$(cd "$srcdir" && find . \( -path ./build\* -o -path ./.git -o -path ./autom4te.cache \
        -o -path ./build-aux -o -path ./debian/tmp -o \( -type d -path './debian/jobtree-*' \) \
        -o -path ./sim-out -o -name 'jobtree-*.tar.gz' -o -path './_build' -o -path './jobtree-[0-9]*' \) -prune -o \
        -type f \( -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.py' \
                   -o -name '*.am' -o -name '*.m4' -o -name '*.map' \
                   -o -name configure.ac -o -path ./debian/rules -o -path './debian/*.postinst' \) -print |
    grep -v -e '^\./m4/libtool\.m4$' -e '^\./m4/lt.*\.m4$' -e '^\./aclocal\.m4$' \
            -e '^\./config\.h$' |
    while read -r f; do
        head -n 150 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0-or-later' &&
            head -n 150 "$f" | grep -q 'LICENSE.OpenSSL' || echo "$f"
    done | sort)
if [ -z "$missing" ]; then
    ok 0 "every source file names GPL-2.0-or-later and the OpenSSL exception"
else
    ok 1 "every source file names GPL-2.0-or-later and the OpenSSL exception"
    echo "$missing" | sed 's/^/# no license lines: /'
fi
done_testing
