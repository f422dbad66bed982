#!/bin/bash
# t2085-elastic.sh - a malleable run grows at its checkpoint (issue 10):
# started below its maximum because a plain job holds half of its domain,
# it is requeued at its first checkpoint after that job ends and restarts
# on more whole groups; squeue, its record, the job's environment and
# layout file, and the ledger agree on its size before and after; then it
# shrinks on request (scontrol NumNodes) and they agree again; `jobtree
# verify` accepts the ledger. Between the requeue and the restart its
# nodes and the new groups' are held for it: a job submitted right after
# the requeue waits. Decided by state: each step waits for the
# state it needs (the requeue, the restart), never for a time.
#
# Cluster: see t2000-select.sh (A gpu01-04 west: team-a, 64 GPUs).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 12
JT_CLUSTER_SELECT=jobtree JT_CLUSTER_CRED_EXPIRE=10 JT_CLUSTER_DEBUG=debug cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
OUT=$JT_CLUSTER_DIR/t2085
mkdir -p "$OUT"
G8="--gres=gpu:h100:8"

ev () { grep -h "\"run\":\"jtc:$1\"" "$JT_LEDGER_DIR"/ledger-*.jtl 2>/dev/null; }
# GPUs of the leases open in the ledger (Starts minus Ends, by lease id)
open_gpus () {
    ev "$1" | python3 -c '
import json, sys
o = {}
for line in sys.stdin:
    if "{" not in line: continue
    p = json.loads(line[line.index("{"):line.rindex("}") + 1])
    if p.get("type") == "Start": o[p["lease"]] = p["gpus"]
    elif p.get("type") == "End": o.pop(p["lease"], None)
print(sum(o.values()))'
}
bound_gpus () {
    job_field "$1" AdminComment | sed 's/^jobtree\/1 //' | python3 -c '
import json, sys
print(sum(l["gpus"] for l in json.load(sys.stdin)["bound"]["leases"]))'
}

# The job: its node count and layout file per incarnation.
cat > "$OUT/job.sh" <<EOF
#!/bin/bash
r=\${SLURM_RESTART_COUNT:-0}
echo "\$SLURM_JOB_NUM_NODES" > $OUT/nodes.\$r.tmp && mv $OUT/nodes.\$r.tmp $OUT/nodes.\$r
cat "\$JOBTREE_LAYOUT" > $OUT/file.\$r
while :; do sleep 1 & wait \$!; done
EOF
chmod +x "$OUT/job.sh"

## 1. A plain job holds two nodes of A: the malleable run (16-32 GPUs in
## groups of 16, checkpoint every 20 s) starts on the other two.
blk=$(submit -N2 --exclusive --constraint=fabric.domain=A -t 10 --wrap "sleep 600")
wait_job_state "$blk" RUNNING 15 || bail_out "the blocking job does not start"
run=$(TMPDIR=$OUT submit --account=team-a -N2-4 $G8 --group-gpus=16 --malleable=16:32:16 \
             --checkpoint=20s --constraint=fabric.domain=A -t 30 "$OUT/job.sh")
wait_job_state "$run" RUNNING 20 || bail_out "the run does not start: $(last_err)"
_told0 () { [ -s "$OUT/nodes.0" ] && [ -s "$OUT/file.0" ]; }
wait_for 20 _told0 || bail_out "the job did not write its size"
_led16 () { [ "$(open_gpus "$run")" = 16 ]; }
wait_for 10 _led16
is "$(job_field "$run" NumNodes) $(bound_gpus "$run") $(cat "$OUT/nodes.0") $(open_gpus "$run")" \
   "2 16 2 16" "below its maximum: squeue 2 nodes, record 16 GPUs, the job 2 nodes, the ledger 16 GPUs"

## 2. The blocking job ends: at its next checkpoint the run is requeued
## and restarts on four nodes (two groups).
t0=$(date +%s)
scancel "$blk"
_restarted () { [ "$(job_field "$run" Restarts)" = 1 ] \
                && [ "$(job_field "$run" JobState)" = RUNNING ]; }
_requeued () { [ "$(job_field "$run" Restarts)" = 1 ]; }
wait_for 90 _requeued || bail_out "the run was not requeued to grow: $(job_field "$run" JobState)"
# right after the requeue, a job that fits on the freed nodes: the run's
# restart is held there (ReservationCreate), so it waits
t1=$(date +%s%N)
comp=$(submit -N1 --exclusive --constraint=fabric.domain=A -t 10 --wrap "sleep 600")
wait_for 60 _restarted || bail_out "the run did not grow: $(job_field "$run" JobState) $(job_field "$run" Reason)"
diag "blocking job cancelled to the run running again, larger: $(( $(date +%s) - t0 )) s (checkpoint 20 s, poll 5 s, cred_expire 10 s + 1); from the requeue, with a job competing for its nodes: $(( ($(date +%s%N) - t1) / 1000000 )) ms"
is "$(job_field "$comp" JobState) $(ev "$run" | grep -c '"type":"ReservationCreate"')" "PENDING 1" \
   "a job submitted right after the grow requeue does not take the run's nodes: its restart was reserved at the requeue"
grep -Eq "JobId=$run: requeued: reserved 4 nodes in west/c1/A from .* for its restart" \
    "$JT_CLUSTER_DIR/log/slurmctld.log"
ok $? "slurmctld's log names the restart's slice"
grep -Eq "JobId=$run: grows from 16 to 32 GPUs: requeued [0-9]+ s after its checkpoint" \
    "$JT_CLUSTER_DIR/log/slurmctld.log"
ok $? "slurmctld's log says it grows from 16 to 32 GPUs at its checkpoint"
_told1 () { [ -s "$OUT/nodes.1" ] && [ -s "$OUT/file.1" ]; }
wait_for 20 _told1 || bail_out "the restarted job did not write its size"
_led32 () { [ "$(open_gpus "$run")" = 32 ]; }
wait_for 10 _led32
is "$(job_field "$run" NumNodes) $(bound_gpus "$run") $(cat "$OUT/nodes.1") $(open_gpus "$run")" \
   "4 32 4 32" "grown: squeue 4 nodes, record 32 GPUs, the job 4 nodes, the ledger 32 GPUs"
is "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["groups"]))' "$OUT/file.1")" \
   2 "the restarted job's layout file has two groups"
is "$(ev "$run" | grep -c '"type":"End"') $(ev "$run" | grep '"type":"End"' | grep -c '"reason":"End"')" \
   "1 1" "the first incarnation's lease ended (End) at the requeue"
is "$(ev "$run" | grep -c '"type":"Start"')" 3 "one Start before, two after (one per group)"

scancel "$comp"
wait_job_state "$comp" CANCELLED 20

## 3. Shrink on request: NumNodes=2 ends the highest group (Shrink); all agree.
## (job_submit turns it into group 0's NodeList; Slurm takes the two nodes
## out one at a time, a job_resized each, and the group's lease ends whole.)
scontrol update jobid="$run" NumNodes=2
ok $? "scontrol update NumNodes=2"
_led16b () { [ "$(open_gpus "$run")" = 16 ]; }
wait_for 10 _led16b
is "$(job_field "$run" NumNodes) $(open_gpus "$run") $(ev "$run" | grep -c '"reason":"Shrink"')" \
   "2 16 1" "shrunk: squeue 2 nodes, the ledger 16 GPUs; group 1 ended Shrink whole (no 8-GPU remainder between its two nodes)"
# The shrink stands: at its next checkpoint, with two nodes free, the grow
# thread decides not to grow it (logged at debug: the state waited for).
_kept () { log_has "$JT_CLUSTER_DIR/log/slurmctld.log" "JobId=$run: grow: shrunk since it started (16 of the 32 GPUs"; }
wait_for 40 _kept || bail_out "no grow decision at the checkpoint after the shrink"
is "$(job_field "$run" JobState) $(job_field "$run" Restarts) $(job_field "$run" NumNodes)" \
   "RUNNING 1 2" "shrunk on request: still running, not requeued"

scancel "$run"
wait_for 30 queue_empty
_closed () { [ "$(open_gpus "$run")" = 0 ]; }
wait_for 10 _closed
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $out"
done_testing
