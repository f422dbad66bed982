#!/bin/bash
# t2910-sim-live.sh - `jobtree sim` against the live cluster (issue 13): the
# window tests/cluster/sim-live-window.txt (24 runs of 1-4 nodes, one group
# each) replayed on the real 16-node cluster under select/cons_tres_jobtree
# with PackPolicy=best-fit, then in `jobtree sim` on the same cluster (the
# snapshot `jobtree snapshot` reads from it before the first job), the same
# budgets, the same time limits and policy. Asserts: no group split, the
# same fast-fabric domain for every run placed before the first run waits
# (after that the two may hold a reservation on different nodes: each
# run's domain is shown, not asserted), and the mean wait within the
# tolerance docs/sim.md
# states ("Against the live cluster"): per scheduling decision on a run's
# chain, one backfill interval (bf_interval=1: a run only backfill may
# start waits for its next pass) plus 1 s (Slurm records start and end in
# whole seconds). A run's own wait may differ by more (a run backfilled
# beside the reservation of a run ahead, which slurmctld's backfill and the
# simulator may hold on different nodes): the table shows each run's.
# The envelope is the cluster's 128 GPUs, so runs wait for room only
# (funding holds: docs/sim.md).
#
# The simulator is given what the live cluster measured and it cannot
# know: each run's eligible time and its run time (end - start, which
# includes slurmstepd's launch and the completion). The decisions -- when
# a run starts and on which nodes -- are the simulator's own.
#
# JT_SIMLIVE_KEEP=1 keeps the live records, the trace and the sim output.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

BUILD=${1:?usage: $0 BUILDDIR}
WINDOW=$(dirname "$0")/sim-live-window.txt
BF_INTERVAL=1           # slurm.conf.in's SchedulerParameters (bf_interval=1)
GPN=8
RESULTS=$(mktemp -d /tmp/jt-simlive.XXXXXX)

plan 8

mkdir -p "$RESULTS/budgets"
cat >"$RESULTS/budgets/simlive.json" <<'EOB'
{ "owner": "simlive",
  "envelopes": [ { "name": "simlive-h100", "flavor": "h100", "selector": { "cluster": "c1" },
                   "start": "2026-01-01T00:00:00Z", "end": "2031-01-01T00:00:00Z",
                   "concurrency": 128 } ] }
EOB

# bf_resolution=1: backfill's reservations at the time limits to the
# second, as the simulator makes them (the default rounds to 60 s).
JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$RESULTS/budgets \
JT_CLUSTER_SCHED_EXTRA=",bf_resolution=1" \
JT_CLUSTER_JOBTREE_EXTRA="PackPolicy=best-fit" cluster_setup "$BUILD"
cluster_start
grep -q "bf_interval=$BF_INTERVAL," "$JT_CLUSTER_DIR/etc/slurm.conf" \
    || bail_out "slurm.conf's bf_interval is not $BF_INTERVAL: update the tolerance"

jobtree_cli snapshot -o "$RESULTS/cluster.json" 2>"$RESULTS/snapshot.err"
ok $? "jobtree snapshot read the idle cluster ($(head -c 200 "$RESULTS/snapshot.err"))"

# Each job submitted at its offset (a submission is an event: slurmctld's
# main scheduler runs at once, and backfill within bf_interval). A begin
# time is no event: backfill runs only after a change (a job, a node), so
# a job whose --begin came waits for the next one (node pings, up to
# SlurmdTimeout / 3 here). The simulator gets each job's eligible time as
# slurmctld recorded it. Pacing the workload is the only sleep.
t0=$(( $(date +%s) + 2 ))
ids=()
while read -r job off dur gpus team; do
    case $job in '#'*|'') continue ;; esac
    sleep "$(awk -v t=$((t0 + off)) -v n="$(date +%s.%N)" 'BEGIN { d = t - n; print (d > 0 ? d : 0) }')"
    id=$(submit --account="$team" -J "$job" -N $(( (gpus + GPN - 1) / GPN )) \
         --gres=gpu:h100:$GPN --group-gpus="$gpus" -t 1 --wrap "sleep $dur")
    [ -n "$id" ] || bail_out "$job not submitted: $(last_err)"
    ids+=("$id")
done < "$WINDOW"
diag "submitted ${#ids[@]} jobs by t0 + $(( $(date +%s) - t0 )) s"
wait_for 400 queue_empty || bail_out "jobs still queued after 400 s"
for id in "${ids[@]}"; do
    echo "$(job_field "$id" JobName) $(job_field "$id" JobState)" \
         "$(epoch "$(job_field "$id" EligibleTime)") $(epoch "$(job_field "$id" StartTime)")" \
         "$(epoch "$(job_field "$id" EndTime)")" \
         "$(scontrol show hostnames "$(job_field "$id" NodeList)" | paste -sd,)" \
         "$(epoch "$(job_field "$id" SubmitTime)")"
done > "$RESULTS/live.jobs"
cluster_stop
is "$(awk '$2 != "COMPLETED"' "$RESULTS/live.jobs" | wc -l)" 0 \
   "every job of the window completed live"

# The trace: offsets from the first eligible instant, run times as measured.
python3 - "$WINDOW" "$RESULTS/live.jobs" > "$RESULTS/trace.csv" <<'EOP'
import sys
win = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f and not f[0].startswith("#"):
        win[f[0]] = (int(f[3]), f[4])
live = [l.split() for l in open(sys.argv[2])]
t0 = min(int(f[2]) for f in live)
print("id,submit_s,duration_s,time_limit_s,gpus,nodes,owner,flavor,options")
for f in sorted(live, key=lambda f: (int(f[2]), f[0])):
    gpus, team = win[f[0]]
    print("%s,%d,%d,60,%d,%d,%s,,--group-gpus=%d" % (
        f[0], int(f[2]) - t0, max(1, int(f[4]) - int(f[3])), gpus,
        (gpus + 7) // 8, team, gpus))
EOP
# Priority order: Slurm's is job id (submission) order, the simulator's is
# submit then trace line; both are the window's order when offsets tie.
"$JT_BUILDDIR/src/cli/jobtree" sim --trace "$RESULTS/trace.csv" \
    --budgets "$RESULTS/budgets" --cluster "$RESULTS/cluster.json" \
    --policy best-fit --out "$RESULTS/sim" >"$RESULTS/sim.out" 2>"$RESULTS/sim.err"
ok $? "jobtree sim replayed the window ($(head -c 200 "$RESULTS/sim.err"))"

# Run by run: live and sim domain and wait, the run's chain depth in the
# sim (0: it started when it became eligible; else 1 + the depth of a run
# whose end started it) and its tolerance (depth + 1) x (bf_interval + 1).
python3 - "$RESULTS/live.jobs" "$RESULTS/sim/jobs.csv" "$RESULTS/cluster.json" \
    "$BF_INTERVAL" > "$RESULTS/compare.txt" <<'EOP'
import csv, json, sys
live = {f[0]: f for f in (l.split() for l in open(sys.argv[1]))}
snap = json.load(open(sys.argv[3]))
dom_of = {n["name"]: n["labels"].get("fabric.domain", "?") for n in snap["nodes"]}
step = int(sys.argv[4]) + 1
sim = {r["job"]: r for r in csv.DictReader(open(sys.argv[2]))}
ends = {}
for j, r in sim.items():
    if r["end_s"]:
        ends.setdefault(int(r["end_s"]), []).append(j)
depth = {}
def dep(j):
    if j not in depth:
        r = sim[j]
        s = int(r["start_s"])
        depth[j] = 0 if s == int(r["submit_s"]) else \
            1 + max([dep(k) for k in ends.get(s, []) if k != j] or [0])
    return depth[j]
t0 = min(int(f[2]) for f in live.values())
# Until the first run waits, no reservation exists and every run is placed
# on a cluster state that events a pass apart leave the same (the window
# keeps events apart); after it, slurmctld's backfill and the simulator
# may hold a reservation on different nodes, and runs placed around it
# see different free nodes.
first = min([int(r["submit_s"]) for r in sim.values() if r["wait_s"] and int(r["wait_s"]) > 0]
            or [10**9])
same = waits_ok = split = early = early_same = 0
print("# run   live: dom wait   sim: dom wait  depth tol")
for j in sorted(sim, key=lambda j: (int(sim[j]["submit_s"]), j)):
    f, r = live[j], sim[j]
    ld = sorted({dom_of.get(n, "?") for n in f[5].split(",")})
    sd = r["domain"].rsplit("/", 1)[-1]
    lw = int(f[3]) - int(f[2])
    sw = int(r["wait_s"]) if r["wait_s"] else -1
    tol = (dep(j) + 1) * step if sw >= 0 else 0
    split += len(ld) != 1 or int(r["split"]) != 0
    same += ld == [sd]
    if sw >= 0 and int(r["start_s"]) <= first:
        early += 1
        early_same += ld == [sd]
    waits_ok += sw >= 0 and abs(lw - sw) <= tol
    print("# %-6s %-3s %4d      %-3s %4d   %3d %3d %s" % (
        j, ",".join(ld), lw, sd, sw, dep(j), tol,
        "" if ld == [sd] and sw >= 0 and abs(lw - sw) <= tol else "<--"))
lm = sum(int(f[3]) - int(f[2]) for f in live.values()) / len(live)
sm = sum(int(r["wait_s"]) for r in sim.values() if r["wait_s"]) / len(sim)
mt = sum((dep(j) + 1) * step for j in sim if sim[j]["start_s"]) / len(sim)
print("# mean wait: live %.1f s, sim %.1f s, tolerance %.1f s; %d of %d runs "
      "within their own tolerance" % (lm, sm, mt, waits_ok, len(sim)))
print("# same domain: %d of %d runs; %d of the %d placed before the first "
      "reservation (%d s)" % (same, len(sim), early_same, early, first))
print("RESULT", sum(1 for r in sim.values() if r["start_s"]), early, early_same,
      split, "%.1f" % abs(lm - sm), "%.1f" % mt)
EOP
grep '^#' "$RESULTS/compare.txt"
read -r _ n early same split dmean tmean <<< "$(grep '^RESULT' "$RESULTS/compare.txt")"
is "$n" "$(grep -vc '^#' "$WINDOW")" "the sim started every run of the window"
is "$split" 0 "no group split across domains, live or sim"
ok "$(test "$early" -ge 5; echo $?)" "the window places runs before its first reservation ($early)"
is "$same" "$early" "each of them in the same domain live and in the sim"
awk -v d="$dmean" -v t="$tmean" 'BEGIN { exit !(d <= t) }'
ok $? "mean wait within the mean of (depth + 1) x (bf_interval + 1 s): differs by $dmean s, tolerance $tmean s"
[ -n "${JT_SIMLIVE_KEEP:-}" ] && echo "# results kept in $RESULTS" || rm -rf "$RESULTS"
done_testing
