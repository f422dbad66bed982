# tests/ledger/lib.sh - the start of the ledger's shell tests
# (tests/tap/jobtree.sh) and an independent writer of the ledger format,
# written from docs/ledger-format.md with sha256sum(1) only (no
# libjobtree), so the tests also check that the document is enough to
# implement the format.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.

. "$(dirname "$0")/../tap/jobtree.sh"
data=$srcdir/tests/data/ledger

# mk_ledger JSONL OUTFILE: one record per payload line, genesis prev, seq 1..
mk_ledger () {
    prev=0000000000000000000000000000000000000000000000000000000000000000
    seq=1
    : > "$2"
    while IFS= read -r p; do
        [ -n "$p" ] || continue
        len=$(printf '%s' "$p" | wc -c)
        body="JT1 $seq $prev $len $p"
        h=$(printf '%s' "$body" | sha256sum | cut -c1-64)
        printf '%s %s\n' "$body" "$h" >> "$2"
        prev=$h
        seq=$((seq + 1))
    done < "$1"
}
