#!/bin/sh
# sim.sh - TAP test of `jobtree sim`: a tiny replay's table and files, two
# policies side by side, the same bytes twice, bad traces named by
# file:line:col: field, every number option range-checked, and the exit
# status contract (0 replayed, 1 bad input, 2 usage).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.

. "$(dirname "$0")/../tap/jobtree.sh"

mkdir -p "$tmp/budgets"
cat >"$tmp/budgets/a.json" <<'EOF'
{ "owner": "a",
  "envelopes": [ { "name": "a-h100", "flavor": "h100", "selector": {},
                   "start": "2026-01-01T00:00:00Z", "end": "2027-01-01T00:00:00Z",
                   "concurrency": 32 } ] }
EOF
# The policies' hand-computed case of tests/unit/sim.c: j3 starts at 2
# under best-fit and at 100 under pack-to-empty.
cat >"$tmp/trace.csv" <<'EOF'
id,submit_s,duration_s,time_limit_s,gpus,nodes,owner,flavor,options
j1,0,100,100,8,,a,,
j2,1,100,100,8,,a,,
j3,2,10,10,16,,a,,--group-gpus=16
EOF

sim () {
    "$jobtree" sim --trace "$tmp/trace.csv" --budgets "$tmp/budgets" \
        --cluster 2x2x8:h100 "$@" >"$tmp/out" 2>"$tmp/err"
}

# fails_with STATUS TEXT DESCRIPTION ARGS...: exits STATUS, stderr has TEXT.
fails_with () {
    want=$1 text=$2 desc=$3
    shift 3
    sim "$@"
    rc=$?
    if [ $rc -eq "$want" ] && grep -qF -- "$text" "$tmp/err"; then
        ok 0 "$desc"
    else
        ok 1 "$desc (exit $rc, want $want)"
        sed 's/^/# stderr: /' "$tmp/err"
    fi
}

sim --policy pack-to-empty --policy best-fit --out "$tmp/o1"
rc=$?
ok $rc "replays two policies (exit $rc)"
grep -q '^pack-to-empty  *0.500 ' "$tmp/out" && grep -q '^best-fit  *0.545 ' "$tmp/out"
ok $? "the table has one row per policy with its utilization"
sed 's/^/# /' "$tmp/out" | head -4
for f in summary.csv owners.csv jobs.csv timeline.csv summary.json; do
    [ -s "$tmp/o1/$f" ]
    ok $? "--out wrote $f"
done
grep -q '^pack-to-empty,j3,a,2,100,110,98,16,1,1,0,0,done,,sim/h100-d000,0$' "$tmp/o1/jobs.csv" \
    && grep -q '^best-fit,j3,a,2,2,12,0,16,1,1,0,0,done,,sim/h100-d001,0$' "$tmp/o1/jobs.csv"
ok $? "jobs.csv: j3 waits 98 s under pack-to-empty (domain d000), none under best-fit (d001)"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [p["policy"] for p in d["policies"]] == ["pack-to-empty", "best-fit"]; assert d["policies"][0]["groupsSplit"] == 0' "$tmp/o1/summary.json"
ok $? "summary.json parses, policies in order, no split"

sim --policy best-fit,noresv --out "$tmp/o3"
python3 -c 'import csv,sys; rows=list(csv.DictReader(open(sys.argv[1]))); assert [r["policy"] for r in rows] == ["best-fit,noresv"], rows' "$tmp/o3/summary.csv" \
    && python3 -c 'import csv,sys; rows=list(csv.DictReader(open(sys.argv[1]))); assert len(rows) == 3 and all(r["policy"] == "best-fit,noresv" and r["state"] == "done" for r in rows), rows' "$tmp/o3/jobs.csv"
ok $? "a policy with options is one quoted CSV field"

sim --policy pack-to-empty --policy best-fit --out "$tmp/o2"
same=0
for f in summary.csv owners.csv jobs.csv timeline.csv summary.json; do
    cmp -s "$tmp/o1/$f" "$tmp/o2/$f" || same=1
done
ok $same "the same inputs give byte-identical files"

sim
grep -q '^pack-to-empty ' "$tmp/out" && grep -q '^best-fit ' "$tmp/out"
ok $? "default policies: pack-to-empty and best-fit"

sim --policy best-fit --progress
grep -q 'jobtree sim: best-fit .*100%' "$tmp/err"
ok $? "--progress writes a progress line on stderr"
sim --policy best-fit
[ ! -s "$tmp/err" ]
ok $? "no progress line when stderr is not a tty"

printf 'id,submit_s,duration_s,time_limit_s,gpus,nodes,owner,flavor,options\nj1,0,100,100,8,,a,,\nj2,0,-3,0,8,,a,,\nj3,0,10,0,2000000,,a,,\n' >"$tmp/bad.csv"
"$jobtree" sim --trace "$tmp/bad.csv" --budgets "$tmp/budgets" --cluster 2x2x8:h100 \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -qF "bad.csv:3:6: duration_s: '-3' is not a whole number from 1" "$tmp/err" \
    && grep -qF "bad.csv:4:11: gpus: '2000000' is not a whole number from 1 to 1048576" "$tmp/err"
ok $? "bad trace: every problem named by file:line:col: field (exit $rc)"
sed 's/^/# /' "$tmp/err"

fails_with 1 "--cluster: cluster spec '2x2x8': write DOMAINSxNODESxGPUS:FLAVOR" \
    "a bad cluster spec says how to write one" --cluster 2x2x8
fails_with 2 "--policy 'worst-fit': unknown policy 'worst-fit'" "unknown policy" \
    --policy worst-fit
fails_with 2 "--policy best-fit is given twice" "a policy twice" --policy best-fit \
    --policy best-fit
fails_with 2 "--depth=0: give a whole number from 1 to 1000000" "--depth range" --depth 0
fails_with 2 "--limit-factor=99: give a whole number from 100 to 10000" \
    "--limit-factor range" --limit-factor 99
fails_with 2 "--limit-factor=1e3: give a whole number" "--limit-factor is a whole number" \
    --limit-factor 1e3
fails_with 2 "--sample=59: give a whole number from 60 to 604800" "--sample range" \
    --sample 59
fails_with 2 "--seed=-1: give a whole number from 0" "--seed range" --seed -1
fails_with 2 "--seed=99999999999999999999: give a whole number" "--seed overflow" \
    --seed 99999999999999999999
fails_with 2 "--epoch=yesterday" "--epoch must be a time" --epoch yesterday

"$jobtree" sim --budgets "$tmp/budgets" --cluster 2x2x8:h100 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -qF -- "--trace, --budgets and --cluster are required" "$tmp/err"
ok $? "--trace is required (exit $rc)"

"$jobtree" sim --trace "$tmp/nonexistent.csv" --budgets "$tmp/budgets" \
    --cluster 2x2x8:h100 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -qF "nonexistent.csv" "$tmp/err"
ok $? "a missing trace is named (exit $rc)"

done_testing
