#!/bin/bash
# tests/cli/verify-jobs.sh - `jobtree verify -j N` gives the verdicts of
# -j 1, byte for byte: tests/ledger/verify.sh and tests/ledger/checkpoint.sh
# (every forged and damaged ledger of theirs: record damage, bad events,
# violations of every class, checkpoints that disagree with their fold,
# head anchors, budgets) run with a `jobtree` whose every `verify` runs the
# real one with -j 1, then with -j 2, 3 and 5 reading every segment in
# chunks of 1 to 3 records (JOBTREE_VERIFY_CHUNK: tiny ledgers read as a
# large one is, work on every helper thread); stdout, stderr and the exit
# status must be the same each time. The scripts' own checks must pass
# too (they see -j 1's answers).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/../tap/jobtree.sh"

# A build tree whose src/cli/jobtree is the comparing wrapper; the rest
# (the daemon, test programs) is the real one's.
fake=$tmp/build
mkdir -p "$fake/src/cli"
for e in "$builddir"/* "$builddir"/.libs; do
    [ -e "$e" ] && [ "$(basename "$e")" != src ] && ln -s "$e" "$fake/"
done
for e in "$builddir"/src/*; do
    [ "$(basename "$e")" != cli ] && ln -s "$e" "$fake/src/"
done
log=$tmp/mismatch.log
count=$tmp/count
: > "$log"
: > "$count"
cat > "$fake/src/cli/jobtree" << EOF
#!/bin/bash
real='$jobtree'
log='$log'
count='$count'
w=\$(mktemp -d "\${TMPDIR:-/tmp}/jt-vj.XXXXXX") || exit 2
trap 'rm -rf "\$w"' EXIT
[ "\$1" = verify ] || { "\$real" "\$@"; exit \$?; }
shift
unset JOBTREE_VERIFY_CHUNK
"\$real" verify -j 1 "\$@" > "\$w/out.1" 2> "\$w/err.1"; rc1=\$?
for way in 2:1 3:2 5:3; do
    JOBTREE_VERIFY_CHUNK=\${way#*:} "\$real" verify -j \${way%:*} "\$@" \\
        > "\$w/out.n" 2> "\$w/err.n"; rcn=\$?
    echo "\$way \$rc1" >> "\$count"
    if [ \$rcn != \$rc1 ] || ! cmp -s "\$w/out.1" "\$w/out.n" \\
        || ! cmp -s "\$w/err.1" "\$w/err.n"; then
        { echo "verify \$* (-j/chunk \$way): exit \$rc1 vs \$rcn"
          diff "\$w/out.1" "\$w/out.n"; diff "\$w/err.1" "\$w/err.n"; } >> "\$log"
    fi
done
cat "\$w/out.1"
cat "\$w/err.1" >&2
exit \$rc1
EOF
chmod +x "$fake/src/cli/jobtree"

for t in tests/ledger/verify.sh tests/ledger/checkpoint.sh; do
    JT_BUILDDIR=$fake bash "$srcdir/$t" > "$tmp/tap.out" 2>&1
    rc=$?
    notok=$(grep -c '^not ok' "$tmp/tap.out")
    nok=$(grep -c '^ok' "$tmp/tap.out")
    is "$rc:$notok" "0:0" "$t passes with every verify compared ($nok checks)"
    [ "$rc:$notok" = "0:0" ] || sed 's/^/  /' "$tmp/tap.out" | head -40 | while IFS= read -r l; do diag "$l"; done
done
n=$(wc -l < "$count")
bad=$(awk '$2 != 0' "$count" | wc -l)
classes=$(awk '$2 != 0 { print $2 }' "$count" | sort -un | tr '\n' ' ')
ok "$([ "$n" -ge 150 ] && [ "$bad" -ge 60 ] && echo 0 || echo 1)" \
    "$n runs of verify with -j 2, 3 and 5 compared, $bad of them failing (exits $classes)"
is "$(head -c 2000 "$log")" "" "-j 2, 3 and 5 print and exit as -j 1 every time"

# -j's argument and JOBTREE_VERIFY_CHUNK are range-checked
for j in 0 257 01 -1 x ""; do
    "$jobtree" verify -j "$j" "$tmp" > /dev/null 2> "$tmp/err"; rc=$?
    is "$rc" 2 "-j '$j': refused (exit 2)"
done
JOBTREE_VERIFY_CHUNK=0 "$jobtree" verify "$tmp" > /dev/null 2>&1
is "$?" 2 "JOBTREE_VERIFY_CHUNK=0: refused (exit 2)"
done_testing
