#!/bin/bash
# t2080-spares.sh - a run with spares survives node failures (issue 10):
# --spares=1 gives each group one whole spare node in its domain whatever
# -N says (job_submit raises the node count, no kill on node failure); the
# job learns its layout (JOBTREE_* in every task, the JSON file); two nodes
# of two groups set DOWN at once are both swapped for their group's spare
# (the run keeps running; NodeFail, the failed group lease ends Fail, the
# spare lease ends Swap, the group's new Active lease holds the spare; the
# record, `jobtree layout` and the job, told by SIGWINCH, agree); a third
# failure in a group with no spare left requeues the whole run (every lease
# ends Fail), which starts again once nodes are back; `jobtree verify`
# accepts the ledger. A --checkpoint run out of spares gets its restart as
# a reservation at the requeue (section 5). Prints the time from the DOWN to
# the job having run `jobtree layout` on its SIGWINCH (the run is then on
# its spares).
#
# Cluster: see t2000-select.sh (A gpu01-04, B gpu05-08 west: team-a).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 22
JT_CLUSTER_SELECT=jobtree JT_CLUSTER_CRED_EXPIRE=10 cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
OUT=$JT_CLUSTER_DIR/t2080
mkdir -p "$OUT"

# The record's layout: "G: nodes | spares" per group.
layout_of () {
    job_field "$1" AdminComment | sed 's/^jobtree\/1 //' | python3 -c '
import json, sys
for l in json.load(sys.stdin)["bound"]["leases"]:
    print("%d: %s | %s" % (l["group"], ",".join(l["nodes"]), ",".join(l.get("spares", []))))'
}
swaps_of () {
    job_field "$1" AdminComment | sed 's/^jobtree\/1 //' | python3 -c '
import json, sys
print(" ".join("%s>%s" % (w["failed"], w["spare"]) for l in json.load(sys.stdin)["bound"]["leases"]
               for w in l.get("swaps", [])))'
}
ev () { grep -h "\"run\":\"jtc:$1\"" "$JT_LEDGER_DIR"/ledger-*.jtl 2>/dev/null; }

# The job: its JOBTREE_* and layout file at the start; on SIGWINCH it runs
# `jobtree layout` (the layout now) into winch.N.
cat > "$OUT/job.sh" <<EOF
#!/bin/bash
env | grep '^JOBTREE_' | sort > $OUT/env.\${SLURM_RESTART_COUNT:-0}
cat "\$JOBTREE_LAYOUT" > $OUT/file.\${SLURM_RESTART_COUNT:-0}
n=0
trap 'n=\$((n + 1)); $JT_BUILDDIR/src/cli/jobtree layout -o "$OUT/winch.\$n"' WINCH
while :; do sleep 1 & wait \$!; done
EOF
chmod +x "$OUT/job.sh"

## 1. Spares always: -N4 in 16-GPU groups with one spare each: 6 nodes.
# TMPDIR: the layout file goes there (per cluster: tests may run side by side)
run=$(TMPDIR=$OUT submit --account=team-a -N4 --gres=gpu:h100:8 --group-gpus=16 --spares=1 -t 30 \
             "$OUT/job.sh")
wait_job_state "$run" RUNNING 20 || bail_out "the run does not start: $(last_err)"
is "$(job_field "$run" NumNodes)" 6 "the job holds its 4 nodes and 2 spares"
lay0=$(layout_of "$run")
_two_domains () {
    for g in 0 1; do
        grep "^$g: " <<< "$lay0" | sed 's/^[0-9]: //; s/ | /,/' | tr , '\n' \
            | while read -r n; do node_domain "$n"; done | sort -u | wc -l
    done | paste -sd' ' -
}
is "$(_two_domains)" "1 1" "each group's spare is in the group's own domain: $(echo $lay0)"
_env_ready () { [ -s "$OUT/env.0" ] && [ -s "$OUT/file.0" ]; }
wait_for 20 _env_ready || bail_out "the job did not write its environment"
batch=$(job_field "$run" BatchHost)
gb=$(grep -E "^[0-9]: (.*,)?$batch[, ]" <<< "$lay0")
like "$(cat "$OUT/env.0" | paste -sd' ' -)" \
     "^JOBTREE_GROUP=${gb%%:*} JOBTREE_GROUP_NODES=$(sed 's/^[0-9]: //; s/ |.*//' <<< "$gb") JOBTREE_LAYOUT=$OUT/jobtree-layout-$run.json JOBTREE_NODE_ROLE=run JOBTREE_SPARE_NODES=$(sed 's/.*| //' <<< "$gb")\$" \
     "the batch task ($batch) knows its group, its nodes and spares, and the layout file"
like "$(cat "$OUT/file.0")" "^\\{\"version\":1,\"job\":$run,\"groups\":\\[\\{\"group\":0," \
     "the layout file is the JSON of jobtree/spares.h"

## 2. Two nodes, one of each group (not the batch host), DOWN at once.
pick () {   # a run node of group $1 other than the batch host
    grep "^$1: " <<< "$(layout_of "$run")" | sed 's/^[0-9]: //; s/ |.*//' | tr , '\n' \
        | grep -vx "$batch" | head -1
}
v0=$(pick 0) v1=$(pick 1)
s0=$(grep '^0: ' <<< "$lay0" | sed 's/.*| //') s1=$(grep '^1: ' <<< "$lay0" | sed 's/.*| //')
t0=$(date +%s%N)
scontrol update nodename="$v0,$v1" state=down reason=t2080
_told () { [ -s "$OUT/winch.1" ]; }
wait_for 20 _told || bail_out "the job was not told (no SIGWINCH layout): $(swaps_of "$run")"
t1=$(date +%s%N)
diag "node failure to the run told it runs on its spares: $(( (t1 - t0) / 1000000 )) ms"
is "$(swaps_of "$run")" "$v0>$s0 $v1>$s1" "both failed nodes were replaced by their group's spare"
is "$(job_field "$run" JobState) $(job_field "$run" NumNodes)" "RUNNING 4" \
   "the run keeps running on 4 nodes (the failed ones excised, the spares running)"
_active_with () { ev "$run" | grep '"type":"Start"' | grep '"role":"Active"' | grep -c "\"$1\""; }
# the last events of the two swaps: the second Swap End, then its Start
_settled2 () { [ "$(ev "$run" | grep -c '"reason":"Swap"')" -ge 2 ] \
               && [ "$(_active_with "$s0") $(_active_with "$s1")" = "1 1" ]; }
wait_for 10 _settled2 || bail_out "no Swap ends or new Active leases in the ledger"
is "$(ev "$run" | grep -c "\"type\":\"NodeFail\"") $(ev "$run" | grep '"type":"End"' \
      | grep -o '"reason":"[A-Za-z]*"' | sort | uniq -c | awk '{ print $1 $2 }' | paste -sd' ' -)" \
   '2 2"reason":"Fail" 2"reason":"Swap"' \
   "two NodeFail; each failed group lease ends Fail, each spare lease ends Swap"
is "$(_active_with "$s0") $(_active_with "$s1")" "1 1" \
   "each spare now runs in a new Active lease of its group"
like "$(cat "$OUT/winch.1")" "\"swaps\":\\[\\{\"failed\":\"$v0\",\"spare\":\"$s0\"" \
     "jobtree layout, run by the job on SIGWINCH, names the swap"

## 3. Group 0's spare fails in turn: no spare left, the run is requeued.
t2=$(date +%s%N)
scontrol update nodename="$s0" state=down reason=t2080
_requeued () { [ "$(job_field "$run" Restarts)" = 1 ]; }
wait_for 20 _requeued || bail_out "not requeued: $(job_field "$run" JobState)"
diag "no spare left to requeued: $(( ($(date +%s%N) - t2) / 1000000 )) ms"
_all_ended () {
    [ "$(ev "$run" | grep -c '"type":"Start"')" = "$(ev "$run" | grep -c '"type":"End"')" ]
}
wait_for 10 _all_ended || bail_out "open leases left after the requeue"
is "$(ev "$run" | grep '"type":"End"' | grep -o '"reason":"[A-Za-z]*"' | sort | uniq -c \
      | awk '{ print $1 $2 }' | paste -sd' ' -)" '4"reason":"Fail" 2"reason":"Swap"' \
   "both group leases (each holding its swapped-in spare) end Fail too: no lease open, never half a gang"
grep -q "node $s0 failed: group 0 lost 1 node(s) and holds 0 spare(s): the run is requeued" \
    "$JT_CLUSTER_DIR/log/slurmctld.log"
ok $? "slurmctld's log says why"
t3=$(date +%s%N)
scontrol update nodename="$v0,$v1,$s0" state=resume
wait_job_state "$run" RUNNING 60 || bail_out "the run does not start again: $(job_field "$run" Reason)"
diag "nodes back to the run running again: $(( ($(date +%s%N) - t3) / 1000000 )) ms (a requeued batch job waits cred_expire + 1 s)"
is "$(job_field "$run" NumNodes) swaps=$(swaps_of "$run")" "6 swaps=" \
   "it starts again with its spares, a fresh layout (no swaps)"
_env1 () { [ -s "$OUT/env.1" ]; }
wait_for 20 _env1
ok $? "the restarted job is told its layout again"

## 4. --no-requeue: a group out of spares cannot be requeued: the run is
## cancelled, never left running without a node of a group.
nrq=$(submit --account=team-b -N2 --gres=gpu:h100:8 --group-gpus=16 --spares=1 --no-requeue \
             -t 30 --wrap "sleep 300")
wait_job_state "$nrq" RUNNING 20 || bail_out "the --no-requeue run does not start: $(last_err)"
nb=$(job_field "$nrq" BatchHost)
nv=$(layout_of "$nrq" | sed 's/^[0-9]: //; s/ |.*//' | tr , '\n' | grep -vx "$nb" | head -1)
ns=$(layout_of "$nrq" | sed 's/.*| //')
scontrol update nodename="$nv,$ns" state=down reason=t2080
wait_job_state "$nrq" "CANCELLED|COMPLETED|FAILED|NODE_FAIL" 20
ok $? "its node and spare down, the --no-requeue run ends ($(job_field "$nrq" JobState)), not half a gang"
scontrol update nodename="$nv,$ns" state=resume

## 5. A --checkpoint run out of spares gets its restart as a reservation at
## the requeue: planned without its failed nodes (A keeps two nodes up, too
## few), held on B from when B's holder ends by its time limit; a job that
## would still run then keeps off the slice, one that ends first may use it
## (B's holder has two nodes, so the slice is those and one free node);
## the run restarts on the slice; `jobtree report reservations` says so.
scancel "$run"
wait_for 30 queue_empty || bail_out "the first run does not end"
resv () { jobtree_cli report reservations -P -n -j "$1" -o "$2" "$JT_LEDGER_DIR"; }
created_nodes () {   # the nodes of the run's ReservationCreate
    ev "$1" | grep '"type":"ReservationCreate"' | tail -1 | python3 -c '
import json, sys
l = sys.stdin.read(); print(",".join(json.loads(l[l.index("{"):l.rindex("}") + 1])["nodes"]))'
}
hold=$(submit -N2 --exclusive --constraint=fabric.domain=B -t 3 --wrap "sleep 600")
wait_job_state "$hold" RUNNING 15 || bail_out "B's holder does not start"
ck=$(submit --account=team-a -N2 --gres=gpu:h100:8 --group-gpus=16 --spares=1 \
            --checkpoint=10m -t 30 --wrap "sleep 600")
wait_job_state "$ck" RUNNING 20 || bail_out "the --checkpoint run does not start: $(last_err)"
cb=$(job_field "$ck" BatchHost)
cv=$(layout_of "$ck" | sed 's/^[0-9]: //; s/ |.*//' | tr , '\n' | grep -vx "$cb" | head -1)
cs=$(layout_of "$ck" | sed 's/.*| //')
t4=$(date +%s%N)
scontrol update nodename="$cv,$cs" state=down reason=t2080
_ck_requeued () { [ "$(job_field "$ck" Restarts)" = 1 ]; }
wait_for 20 _ck_requeued || bail_out "the --checkpoint run was not requeued"
_created () { [ -n "$(created_nodes "$ck")" ]; }
wait_for 10 _created || bail_out "no ReservationCreate at the requeue"
slice=$(created_nodes "$ck")
hold_end=$(epoch "$(job_field "$hold" EndTime)")
is "$(for n in ${slice//,/ }; do node_domain "$n"; done | sort -u | paste -sd, -) $(tr , '\n' <<< "$slice" | wc -l) $(( $(epoch "$(resv "$ck" EarliestStart)") - hold_end ))" \
   "B 3 0" "ReservationCreate at the requeue: 3 nodes of B ($slice) from B's holder's end by its time limit"
is "$(resv "$ck" Envelope,Activated)" "a-west-h100|Unknown" \
   "jobtree report reservations shows it, paid by a-west-h100, not activated"
# Right after the requeue (Slurm holds the requeued job: BeginTime, no
# backfill reservation for it): B's two free nodes are one of the slice's
# and one other; a two-node job needs both. One that would still run at
# the start waits; one that ends before it may use them.
long=$(submit -N2 --exclusive --constraint=fabric.domain=B -t 10 --wrap "sleep 600")
short=$(submit -N2 --exclusive --constraint=fabric.domain=B -t 1 --wrap "sleep 2")
wait_job_state "$short" COMPLETED 60
ok $? "a job that ends before the reservation's start may use the slice meanwhile ($(job_field "$short" NodeList))"
_reason () { job_field_like "$ck" Reason "^jobtree:_reserved_3_nodes_in_west/c1/B_from_.*_for_its_restart"; }
wait_for 40 _reason || bail_out "squeue's reason does not show the restart: $(job_field "$ck" Reason)"
ok 0 "once Slurm's hold on the requeued job is over, its reason is the restart's reservation"
is "$(job_field "$long" JobState) $(job_field "$ck" JobState)" "PENDING PENDING" \
   "a job submitted at the requeue that would still run at the start did not take the slice"
t5=$(date +%s%N)
scancel "$hold"
wait_job_state "$ck" RUNNING 60 || bail_out "the run does not restart: $(job_field "$ck" Reason)"
diag "--checkpoint run: node failure to requeued with its restart reserved, then B's holder cancelled to the run running again: $(( (t5 - t4) / 1000000 )) ms waiting for the holder, $(( ($(date +%s%N) - t5) / 1000000 )) ms from its end"
is "$(scontrol show hostnames "$(job_field "$ck" NodeList)" | paste -sd, -)" \
   "$(tr , '\n' <<< "$slice" | sort | paste -sd, -)" \
   "the run restarts on its reserved slice"
_activated () { [ "$(resv "$ck" Activated)" != Unknown ]; }
wait_for 20 _activated
ok $? "its reservation activates when it starts"
scontrol update nodename="$cv,$cs" state=resume
scancel "$ck" "$long"

wait_for 30 queue_empty
_closed () { _all_ended; }
wait_for 10 _closed
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $out"
done_testing
