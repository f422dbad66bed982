#!/bin/sh
# plan.sh - TAP test of `jobtree plan`: the human table and JSON of the
# worked example's shapes, borrowing, a Reject, --at, --policy, and the
# exit status contract (0 decision printed, 1 invalid input, 2 usage).
#
# Expected outputs live in tests/data/plan/expected/; to refresh one after an
# intended change, run the command shown by a failing case and review the diff.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.

. "$(dirname "$0")/../tap/jobtree.sh"
data=$srcdir/tests/data/plan

# same_output NAME SNAPSHOT RUN [OPTIONS...]: stdout equals expected/NAME,
# exit status 0.
same_output () {
    name=$1 snap=$2 run=$3
    shift 3
    "$jobtree" plan --budgets "$data/budgets" --snapshot "$data/$snap" \
        --run "$data/runs/$run.json" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    # json-c 0.17+ prints an empty array as [] (0.16: "[", newline, "]").
    sed -zi 's/\[\n *\]/[]/g' "$tmp/out"
    sed -z 's/\[\n *\]/[]/g' "$data/expected/$name" >"$tmp/want"
    if [ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/want"; then
        ok 0 "$name $*"
    else
        ok 1 "$name $* (exit $rc)"
        diff -u "$tmp/want" "$tmp/out" | sed 's/^/# /'
        sed 's/^/# stderr: /' "$tmp/err"
    fi
}

# fails_with STATUS TEXT DESCRIPTION ARGS...: exits STATUS, stderr has TEXT.
fails_with () {
    want=$1 text=$2 desc=$3
    shift 3
    "$jobtree" plan "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -eq "$want" ] && grep -qF -- "$text" "$tmp/err"; then
        ok 0 "$desc"
    else
        ok 1 "$desc (exit $rc, want $want)"
        sed 's/^/# stderr: /' "$tmp/err"
    fi
}

plan 24
same_output worked-96.txt snapshot.json worked-96
same_output worked-96.json snapshot.json worked-96 --json
# Two groups of 64 need 8 nodes each in two domains; B has 6: never (Reject).
same_output worked-128.txt snapshot.json worked-128
same_output worked-incr.txt snapshot.json worked-incr
same_output borrow-64-best-fit.txt snapshot.json borrow-64 --policy best-fit
same_output borrow-96-busy.txt snapshot-busy.json borrow-96
# 96 of west-h100's 128 GPUs held by a lease with no end: it will end, so
# PlanLater with its start unknown, not Reject.
same_output big-128-busy.txt snapshot-busy.json big-128
same_output worked-96-late.txt snapshot.json worked-96 --at 2027-02-01T00:00:00Z
# Before the window opens: PlanLater from the opening (Reject means never).
same_output worked-96-early.txt snapshot.json worked-96 --at 2025-12-01T00:00:00Z
# What activation would cut, as slurmctld draws it: domain A first (Pack's
# order), two whole one-node gangs for a deficit of 16, seed published.
same_output pair-16-activate.txt snapshot-full.json pair-16 --activate c1:300:resv:1772366400
# Structural cuts first, as slurmctld makes them: c1:201's spare on a01
# (DropSpare), then c1:203 (malleable, minGPUs 8) gives up its group 1 on
# a04 (Shrink); 16 GPUs freed, no draw.
same_output pair-16-activate-structural.txt snapshot-structural.json pair-16 --activate c1:300:resv:1772366400

# Never fundable by its envelopes together: the detail names the bound
# that stops them (libjobtree's text, also job_submit's and squeue's).
mkdir "$tmp/capped"
cat >"$tmp/capped/team-a.json" <<'EOF'
{ "owner": "team-a",
  "envelopes": [
    { "name": "a-west-h100", "flavor": "h100", "selector": { "region": "west" },
      "start": "2026-01-01T00:00:00Z", "end": "2027-01-01T00:00:00Z",
      "concurrency": 24 },
    { "name": "a-east-h100", "flavor": "h100", "selector": { "region": "east" },
      "start": "2026-01-01T00:00:00Z", "end": "2027-01-01T00:00:00Z",
      "concurrency": 16 } ],
  "aggregateCaps": [
    { "name": "rai-h100-total", "flavor": "h100",
      "envelopes": ["a-west-h100", "a-east-h100"], "maxConcurrency": 24 } ] }
EOF
echo '{ "owner": "team-a", "resources": { "gpuType": "h100", "totalGPUs": 40 } }' \
    >"$tmp/r40.json"
"$jobtree" plan --budgets "$tmp/capped" --snapshot "$data/snapshot.json" \
    --run "$tmp/r40.json" >"$tmp/out" 2>&1
is "$(sed -n '1,3p' "$tmp/out")" "decision:   Reject
reason:     NeverFundable
detail:     never fundable: aggregate cap rai-h100-total allows 24 of the 40 GPUs" \
    "an aggregate cap below its envelopes: the table names the cap and the numbers"
"$jobtree" plan --budgets "$tmp/capped" --snapshot "$data/snapshot.json" \
    --run "$tmp/r40.json" --json >"$tmp/out" 2>&1
is "$(grep '"detail"' "$tmp/out")" \
    '  "detail": "never fundable: aggregate cap rai-h100-total allows 24 of the 40 GPUs",' \
    "the same detail in the JSON"

fails_with 1 "groupGPUs=12 is not a multiple of the 8 GPUs per h100 node" \
    "an invalid run exits 1 with the field and the fix" \
    --budgets "$data/budgets" --snapshot "$data/snapshot.json" \
    --run "$data/runs/bad-group.json"
fails_with 1 "budgets not loaded" "a missing budget directory exits 1" \
    --budgets "$tmp/none" --snapshot "$data/snapshot.json" \
    --run "$data/runs/worked-96.json"
fails_with 2 "are required" "missing options exit 2" \
    --budgets "$data/budgets"
fails_with 2 "unknown policy 'fastest'" "an unknown policy exits 2" \
    --budgets "$data/budgets" --snapshot "$data/snapshot.json" \
    --run "$data/runs/worked-96.json" --policy fastest
fails_with 2 "--at:" "a bad --at exits 2" \
    --budgets "$data/budgets" --snapshot "$data/snapshot.json" \
    --run "$data/runs/worked-96.json" --at yesterday

# --score: the factor breakdown after the plan, the profile named
"$jobtree" plan --budgets "$srcdir/etc/budgets" --snapshot "$srcdir/etc/snapshot.json" \
    --run "$srcdir/etc/runs/small.json" --score=ml-training >"$tmp/out" 2>&1
ok $? "--score exits 0"
is "$(sed -n '/^score/,$p' "$tmp/out" | sed -n '2p;6p;12p')" "profile ml-training
  topology     0.7500 x 0.25 = 0.1875
  sum          0.5375   site factor 5375" "--score=ml-training: profile, topology 1 - 1/4, the sum"
fails_with 2 "no such profile" "--score with an unknown profile exits 2" \
    --budgets "$srcdir/etc/budgets" --snapshot "$srcdir/etc/snapshot.json" \
    --run "$srcdir/etc/runs/small.json" --score=fastest

# Fabric levels (docs/packing.md, "Levels"): a snapshot naming the block
# level; the plan keeps the run's three groups in block B1 (A's two free
# nodes, B's four) and says which units they are in.
{
    printf '{ "levels": ["fabric.block"], "nodes": [\n'
    sep=
    for d in A B C D; do
        for k in 1 2 3 4; do
            used=0
            case $d$k in A1|A2|C1|C2|D*) used=8 ;; esac
            blk=B1; case $d in C|D) blk=B2 ;; esac
            printf '%s{ "name": "%s%02d", "flavor": "h100", "gpus": 8, "usedGPUs": %d, "state": "up", "labels": { "fabric.domain": "%s", "fabric.block": "%s" } }\n' \
                "$sep" "$(echo $d | tr A-D a-d)" "$k" "$used" "$d" "$blk"
            sep=,
        done
    done
    printf '] }\n'
} >"$tmp/levels.json"
mkdir -p "$tmp/lvbud"
printf '{ "owner": "lv", "envelopes": [ { "name": "lv-h100", "flavor": "h100", "selector": { }, "start": "2026-01-01T00:00:00Z", "end": "2031-01-01T00:00:00Z", "concurrency": 128 } ] }\n' >"$tmp/lvbud/lv.json"
printf '{ "owner": "lv", "resources": { "gpuType": "h100", "totalGPUs": 48 }, "locality": { "groupGPUs": 16 } }\n' >"$tmp/lvrun.json"
"$jobtree" plan --budgets "$tmp/lvbud" --snapshot "$tmp/levels.json" \
    --run "$tmp/lvrun.json" --at 2026-06-01T00:00:00Z >"$tmp/out" 2>&1
ok $? "a plan on a snapshot with levels exits 0"
is "$(sed -n '/^levels/,/^$/p' "$tmp/out")" "levels (the units the groups are in):
  LEVEL     UNITS  NAMES
  block     1      B1" "the groups' units: one block, B1"

"$jobtree" plan --help >"$tmp/out" 2>&1
rc=$?
grep -q "^Usage: jobtree plan" "$tmp/out"
ok $((rc + $?)) "--help prints the usage and exits 0"

done_testing
