#!/bin/sh
# check.sh - TAP test of `jobtree check`: exit status contract (0 clean,
# 1 errors, 2 usage), the exact diagnostics on stderr for broken budget
# directories and snapshots, warnings that do not fail, and the summary.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.

. "$(dirname "$0")/../tap/jobtree.sh"
data=$srcdir/tests/data/inputs

# run_check WANT_RC NAME ARGS...: run in $data (relative file names in the
# messages), compare the exit status; stdout/stderr kept in $tmp.
run_check () {
    want=$1 name=$2
    shift 2
    (cd "$data" && "$jobtree" check "$@") >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -eq "$want" ]; then
        ok 0 "$name: exit $want"
    else
        ok 1 "$name: exit $rc, wanted $want"
        sed 's/^/# err: /' "$tmp/err"
    fi
}

# same FILE NAME: $tmp/FILE equals the text on stdin.
same () {
    cat >"$tmp/want"
    same_file "$tmp/want" "$tmp/$1" "$2"
}

[ -x "$jobtree" ] || bail_out "$jobtree not built"

run_check 0 "example budgets and snapshot" "$srcdir/etc/budgets" \
    --snapshot "$srcdir/etc/snapshot.json"
same out "example: summary" <<'EOT'
4 owners, 5 envelopes, 1 aggregate caps; 16 nodes, 4 domains, 2 leases: OK
EOT
same err "example: nothing on stderr" </dev/null

run_check 0 "example budgets alone" "$srcdir/etc/budgets"
same out "budgets alone: summary" <<'EOT'
4 owners, 5 envelopes, 1 aggregate caps: OK
EOT

run_check 0 "quiet" --quiet "$srcdir/etc/budgets"
same out "quiet: no summary" </dev/null

run_check 2 "no arguments"
grep -q '^Usage: jobtree check BUDGET_DIR' "$tmp/err"
ok $? "no arguments: usage on stderr"
run_check 2 "two directories" good good
run_check 2 "unknown option" --frobnicate good
run_check 0 "--help" --help
grep -q '^Usage: jobtree check BUDGET_DIR' "$tmp/out"
ok $? "--help: usage on stdout"

run_check 1 "syntax and type errors in two files" mixed
same err "mixed: every bad file, file:line:col" <<'EOT'
mixed/b.json:1:1: syntax error: unexpected character
mixed/c.json:3:3: envelopes: expected an array, got an object
EOT
same out "mixed: no summary on failure" </dev/null

run_check 1 "duplicate envelope names" dup
same err "dup: names both places" <<'EOT'
dup/c.json:5:7: envelopes[0].name: duplicate envelope name 'west' (first defined at dup/a.json:5:7); envelope names must be unique across all budget files
EOT

run_check 1 "cyclic parents" cycle
same err "cycle: the cycle is named" <<'EOT'
cycle/a.json:1:17: parent: cycle in parents: a -> b -> c -> a
EOT

run_check 1 "empty directory" empty
same err "empty: says so" <<'EOT'
empty: no budget files (*.json) in directory
EOT

run_check 1 "missing directory" nope
same err "missing: says so" <<'EOT'
nope: cannot open budget directory: No such file or directory
EOT

run_check 0 "snapshot warnings do not fail" good --snapshot snap-warn.json
same err "snapshot warnings" <<'EOT'
snap-warn.json:5:5: warning: nodes[1]: node n2 has no fabric.domain label; it belongs to no domain and will not be packed
snap-warn.json:6:5: warning: nodes[2]: node n3 has 8 GPUs but no flavor ("flavor" or label gpu.flavor); it will not be packed
snap-warn.json:7:5: warning: nodes[3]: no envelope has flavor 'a100' (offered by node n4 and maybe others); such GPUs can never be funded
EOT
same out "snapshot warnings: summary says so" <<'EOT'
2 owners, 1 envelopes, 0 aggregate caps; 5 nodes, 2 domains, 0 leases: OK (with warnings)
EOT

run_check 0 "quiet hides warnings" --quiet good --snapshot snap-warn.json
same err "quiet: no warnings" </dev/null

run_check 1 "leases against budgets" good --snapshot snap-leases.json
same err "leases: unknown envelope, unknown owner, selector" <<'EOT'
snap-leases.json:9:36: leases[0].envelope: lease of run c1:1 names unknown envelope 'wesst'; did you mean 'west'?
snap-leases.json:10:22: leases[1].owner: lease of run c1:2 names unknown owner 'zed'
snap-leases.json:10:68: leases[1].nodes[0]: node n2 does not match envelope west's selector region=west
EOT

run_check 1 "truncated snapshot" good --snapshot snap-truncated.json
same err "truncated snapshot: end of input" <<'EOT'
snap-truncated.json:3:1: unexpected end of input
EOT

run_check 1 "missing snapshot" good --snapshot nope.json
same err "missing snapshot: says so" <<'EOT'
nope.json: cannot read: No such file or directory
EOT

run_check 0 "budget warnings do not fail" upper
same err "upper-case owner, lending to an unknown owner" <<'EOT'
upper/vision.json: warning: owner: owner 'Vision' has upper-case letters, but Slurm stores account names in lower case, so no job will ever match it
upper/vision.json: warning: envelopes[0].lending.to[0]: envelope v lends to 'nobody', which has no budget file
EOT

done_testing
