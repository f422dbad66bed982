#!/bin/bash
# t2052-select-shrink.sh - structural cuts before the lottery, in slurmctld
# (issue 8): when a reservation activates at its MaxWait and a malleable run
# holds the slice, the run gives up whole groups (highest first, never below
# its minimum) instead of a gang being preempted; a run's spare node is
# dropped (DropSpare) before that. slurmctld shrinks the job
# to the nodes it keeps (reshape.c: the same update as `scontrol update
# JobId=X NodeList=...`, sent after the job lock is released), the waiting
# run starts on the freed nodes on a later pass, the ledger has one
# Activation whose cuts are Shrink (no RandomPreempt) and the cut groups'
# lease Ends say Shrink, and `jobtree verify` replays it. Before each
# activation, `jobtree plan --activate` on a snapshot of the cluster names
# the same cuts, in the same order (issue 32: the prediction decides as
# slurmctld does, structural cuts included).
#
# Cluster: see t2000-select.sh. East is C (gpu09-12) and D (gpu13-16).
# D: a plain 4-node job (never a cut). C: one malleable run of team-b, four
# one-node groups (--malleable=16:32:8: it may lose two). The run: team-c,
# 2 nodes (16 GPUs) in one domain, funded now: deficit 16 on C. Then C: a
# team-b run of one 2-node group with a spare (3 nodes) and a plain job on
# the fourth; a one-node team-c run: deficit 8, the spare is dropped.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 17
activation_cluster "${1:?usage: $0 BUILDDIR}" team-b:64 team-c:16
G8="--gres=gpu:h100:8"

# predict JOB GPUS: jobtree plan --activate's cuts for JOB's reservation (a
# run of team-c, GPUS in one group) on a snapshot taken now, at the
# reservation's creation + MaxWait (20 s), as "KIND JOB/GROUP,...".
predict () {
    local job=$1 gpus=$2 rid
    wait_for 20 ledger_resv_of "$job" || { echo "no ReservationCreate for $job" > "$JT_CLUSTER_DIR/plan-$job.txt"; return; }
    rid=$(ledger_resv_of "$job")
    "$JT_BUILDDIR/src/cli/jobtree" snapshot -o "$JT_CLUSTER_DIR/snap-$job.json" \
        || { echo "no snapshot"; return; }
    printf '{ "owner": "team-c", "resources": { "gpuType": "h100", "totalGPUs": %s },\n'\
'  "locality": { "groupGPUs": %s } }\n' "$gpus" "$gpus" > "$JT_CLUSTER_DIR/run-$job.json"
    "$JT_BUILDDIR/src/cli/jobtree" plan --budgets "$JT_CLUSTER_DIR/budgets" \
        --snapshot "$JT_CLUSTER_DIR/snap-$job.json" --run "$JT_CLUSTER_DIR/run-$job.json" \
        --activate "$rid" --at "$(date -u -d "@$(( ${rid##*:} + 20 ))" +%Y-%m-%dT%H:%M:%SZ)" \
        > "$JT_CLUSTER_DIR/plan-$job.txt" 2>&1
    grep -o '\(DropSpare\|Shrink\|RandomPreempt\) [0-9]*/[0-9]*' "$JT_CLUSTER_DIR/plan-$job.txt" \
        | paste -sd,
}
# actual_cuts JOB: the cuts of the Activation of JOB's reservation, alike.
actual_cuts () {
    grep -h '"type":"Activation"' "$JT_LEDGER_DIR"/ledger-*.jtl | grep "\"run\":\"jtc:$1\"" \
        | grep -o '"run":"jtc:[0-9]*","group":[0-9]*,"cut":"[A-Za-z]*"' \
        | sed -E 's/"run":"jtc:([0-9]*)","group":([0-9]*),"cut":"([A-Za-z]*)"/\3 \1\/\2/' \
        | paste -sd,
}

plain=$(submit -N4 --exclusive --constraint=fabric.domain=D -t 10 --wrap "sleep 600")
wait_job_state "$plain" RUNNING 15 || bail_out "the plain job does not start"
mall=$(submit --account=team-b -N2-4 $G8 --group-gpus=8 --malleable=16:32:8 \
              --constraint=fabric.domain=C -t 10 --wrap "sleep 600")
wait_job_state "$mall" RUNNING 15 || bail_out "the malleable run does not start"
is "$(job_field "$mall" NumNodes) $(job_domains "$mall")" "4 C" \
   "the malleable run starts at its maximum: four groups on C"

big=$(submit --account=team-c -N2 $G8 --group-gpus=16 -t 2 --wrap "sleep 5")
wait_for 30 reason_like "$big" '^jobtree: [^;]+; reserved [^ ]+ from ' \
    || bail_out "no reservation: $(job_field "$big" Reason)"
ok 0 "the run waits under a reservation: $(reason_like "$big" . | sed 's/^job [0-9]* reason: //')"
predicted=$(predict "$big" 16)
# What it is told is when it will start: its activation at the
# reservation's creation + MaxWait (20 s), on C where the malleable run may
# give way, not the estimate (the jobs' time limits, minutes away).
rid=$(ledger_resv_of "$big")
bound=$(date -u -d "@$(( ${rid##*:} + 20 ))" +%Y-%m-%dT%H:%M:%SZ)
is "$(jobtree_cli report reservations -P -n -j "$big" -o EarliestStart "$JT_LEDGER_DIR")" "$bound" \
   "its ReservationCreate's EarliestStart is the activation's instant, created + MaxWait"
like "$(why_of "$big")" "reserved 2 nodes in east/c1/C from $bound .*by its activation at MaxWait, the runs there giving way.*else from " \
     "the explanation says the start is its activation's, on C, and when it would be without it"

wait_job_state "$big" "RUNNING|COMPLETING|COMPLETED" 120 \
    || bail_out "the run did not start after MaxWait: $(job_field "$big" Reason)"
is "$(job_domains "$big")" "C" "it starts on C, on the nodes the malleable run gave up"
is "$(job_field "$mall" JobState) $(job_field "$mall" NumNodes) $(job_field "$mall" Restarts)" \
   "RUNNING 2 0" "the malleable run keeps running on two nodes, never requeued"
grep -Eq "reservation jtc:$big:resv:[0-9]+ activates \(MaxWait\) at .* 16 GPUs short, 1 run\(s\) shrunk, 0 requeued" \
    "$JT_CLUSTER_DIR/log/slurmctld.log"
ok $? "slurmctld's log says the reservation activated by shrinking one run"

_act () { grep -h '"type":"Activation"' "$JT_LEDGER_DIR"/ledger-*.jtl; }
_shrink_ends () { grep -h '"type":"End"' "$JT_LEDGER_DIR"/ledger-*.jtl \
                  | grep "\"run\":\"jtc:$mall\"" | grep -c '"reason":"Shrink"'; }
_settled () { [ -n "$(_act)" ] && [ "$(_shrink_ends)" -ge 2 ]; }
wait_for 30 _settled || bail_out "no Activation or no Shrink ends in the ledger"
is "$(_act | grep -o '"cut":"[A-Za-z]*"' | sort | uniq -c | awk '{ print $1, $2 }' | paste -sd' ')" \
   '2 "cut":"Shrink"' "the Activation cut two whole groups (Shrink), no lottery draw"
is "$(grep -h '"type":"End"' "$JT_LEDGER_DIR"/ledger-*.jtl | grep -c '"reason":"RandomPreempt"')" 0 \
   "no lease ended RandomPreempt"
is "$predicted" "$(actual_cuts "$big")" \
   "jobtree plan --activate predicted slurmctld's cuts, in order (two Shrinks of $mall)"
[ "$predicted" = "$(actual_cuts "$big")" ] || sed 's/^/# plan: /' "$JT_CLUSTER_DIR/plan-$big.txt"

# Spares go first: the run keeps its group, only the spare node is taken.
scancel "$mall"
_c_free () { [ "$(sinfo -h -N -n gpu09,gpu10,gpu11,gpu12 -t idle -o %N | wc -l)" = 4 ]; }
wait_for 60 _c_free || bail_out "C did not empty"
spare=$(submit --account=team-b -N2-3 $G8 --group-gpus=16 --spares=1 \
               --constraint=fabric.domain=C -t 10 --wrap "sleep 600")
wait_job_state "$spare" RUNNING 15 || bail_out "the run with a spare does not start"
fill=$(submit -N1 --exclusive --constraint=fabric.domain=C -t 10 --wrap "sleep 600")
wait_job_state "$fill" RUNNING 15 || bail_out "the plain job on C does not start"
is "$(job_field "$spare" NumNodes)" 3 "the run holds its group and its spare node on C"
one=$(submit --account=team-c -N1 $G8 --group-gpus=8 -t 2 --wrap "sleep 5")
predicted=$(predict "$one" 8)
wait_job_state "$one" "RUNNING|COMPLETING|COMPLETED" 120 \
    || bail_out "the one-node run did not start after MaxWait: $(job_field "$one" Reason)"
is "$(job_field "$spare" JobState) $(job_field "$spare" NumNodes) $(job_field "$spare" Restarts)" \
   "RUNNING 2 0" "the run with a spare keeps running on its group's two nodes"
is "$(job_field "$fill" JobState) $(job_field "$fill" Restarts)" "RUNNING 0" \
   "the plain job was never touched"
_drop_end () { grep -h '"type":"End"' "$JT_LEDGER_DIR"/ledger-*.jtl \
               | grep "\"run\":\"jtc:$spare\"" | grep -c '"reason":"DropSpare"'; }
wait_for 30 _drop_end || bail_out "no DropSpare end in the ledger"
is "$(_act | tail -n1 | grep -o '"cut":"[A-Za-z]*"' | paste -sd' ')" '"cut":"DropSpare"' \
   "the second Activation's only cut is DropSpare"
is "$(grep -h '"type":"End"' "$JT_LEDGER_DIR"/ledger-*.jtl | grep -c '"reason":"RandomPreempt"')" 0 \
   "still no lease ended RandomPreempt"
is "$predicted" "$(actual_cuts "$one")" \
   "jobtree plan --activate predicted the dropped spare of $spare"
[ "$predicted" = "$(actual_cuts "$one")" ] || sed 's/^/# plan: /' "$JT_CLUSTER_DIR/plan-$one.txt"

scancel "$spare" "$fill" "$plain"
wait_for 60 queue_empty
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $(tail -n1 <<< "$out")"
done_testing
