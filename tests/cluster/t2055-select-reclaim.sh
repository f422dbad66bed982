#!/bin/bash
# t2055-select-reclaim.sh - lending never costs the lender its capacity
# (issue 8): team-b's envelope b-east-h100 (64 GPUs, east) lends up to 32
# to team-a. With 32 of its GPUs lent to team-a's runs and 32 in team-b's
# own use, a new team-b run is refused funding; it reclaims at once, long
# before MaxWait (10 minutes here, so a reclaim that waited for it would
# miss the 30 s the test allows): the conflict set is the borrowers only, in the domain where
# the run can then run; whole gangs are drawn by the published lottery,
# slurmctld requeues exactly those, the run starts, the Activation names
# the envelope's pool, the victims' lease Ends say RandomPreempt with its
# seed, team-b's own runs are untouched, and `jobtree verify` replays it.
#
# Cluster: see t2000-select.sh (east is C gpu09-12 and D gpu13-16).
# team-a borrows 4 one-node runs (2 on C, 2 on D: pack-to-empty spreads
# one-node runs), team-b holds a 2-node run on each of C and D; the new
# team-b run needs 2 nodes in one domain: funding deficit 16, room
# deficit 16 there, both cleared by that domain's two borrowers.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 12
JT_CLUSTER_SELECT=jobtree JT_CLUSTER_CRED_EXPIRE=10 JT_CLUSTER_JOBTREE_EXTRA="MaxWait=10m" \
JT_CLUSTER_SLURM_EXTRA="PreemptType=preempt/jobtree
PreemptMode=REQUEUE" cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
G8="--gres=gpu:h100:8"
VICTIM='if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then sleep 1; else sleep 600; fi'
groups_of () { job_field "$1" AdminComment | grep -o '"role":"[A-Za-z]*"' | sort -u | paste -sd,; }

bor=()
for i in 1 2 3 4; do
    bor+=("$(submit --account=team-a -N1 $G8 --group-gpus=8 --borrow --sponsors=team-b \
                    --constraint=region=east -t 10 --wrap "$VICTIM")")
done
for j in "${bor[@]}"; do
    wait_job_state "$j" RUNNING 15 || bail_out "borrower $j does not start: $(job_field "$j" Reason)"
done
own=()
for i in 1 2; do
    own+=("$(submit --account=team-b -N2 $G8 --group-gpus=16 -t 10 --wrap "sleep 600")")
done
for j in "${own[@]}"; do
    wait_job_state "$j" RUNNING 15 || bail_out "team-b run $j does not start: $(job_field "$j" Reason)"
done
is "$(for j in "${bor[@]}"; do groups_of "$j"; done | sort -u)" '"role":"Borrowed"' \
   "team-a's four runs are paid by team-b's envelope as Borrowed"

# Within 30 s: backfill makes the reservation, and only a main scheduler
# pass (RUN_NOW) activates it; the plugin asks for one at once
# (jtsel_activation_nudge). Without that ask the next pass is slurmctld's
# periodic one (sched_interval, 60 s after its start: about 50 s from
# here), which this bound tells apart.
lender=$(submit --account=team-b -N2 $G8 --group-gpus=16 -t 2 --wrap "sleep 5")
wait_job_state "$lender" "RUNNING|COMPLETING|COMPLETED" 30
ok $? "the lender's run starts at once, not at MaxWait=10m nor at the next periodic pass (within 30 s: $(job_field "$lender" JobState), $(job_field "$lender" Reason))"
requeued=0 dom_v=""
for j in "${bor[@]}"; do
    if [ "$(job_field "$j" Restarts)" -ge 1 ] 2>/dev/null; then
        requeued=$((requeued + 1))
    fi
done
is "$requeued" 2 "exactly two borrowed gangs were requeued (16 GPUs of funding and room)"
is "$(for j in "${own[@]}"; do job_field "$j" JobState; job_field "$j" Restarts; done | paste -sd' ')" \
   "RUNNING 0 RUNNING 0" "team-b's own runs were never preempted"
is "$(job_domains "$lender" | sort -u | wc -l)" 1 "the lender's run sits in one domain"
grep -Eq "reservation jtc:$lender:resv:[0-9]+ reclaims 16 GPUs of b-east-h100 lent" \
    "$JT_CLUSTER_DIR/log/slurmctld.log"
ok $? "slurmctld's log says the lender reclaimed 16 GPUs of b-east-h100"

_act () { grep -h '"type":"Activation"' "$JT_LEDGER_DIR"/ledger-*.jtl; }
_settled () { [ -n "$(_act)" ] && [ "$(grep -h '"type":"End"' "$JT_LEDGER_DIR"/ledger-*.jtl \
                                      | grep -c RandomPreempt)" -ge 2 ]; }
wait_for 30 _settled || bail_out "no Activation or RandomPreempt ends in the ledger"
ok "$(_act | grep -q '"pool":"envelope:b-east-h100"'; echo $?)" \
   "the Activation names the envelope's pool: $(_act | grep -o '"needs":\[[^]]*\]')"
seed=$(_act | grep -o '"seed":"[0-9a-f]*"' | head -n1)
# At once: the reclaim is due at the reservation's creation (the id's
# jtc:JOB:resv:CREATED), not at creation + MaxWait.
resv=$(_act | grep -o '"reservation":"[^"]*"' | cut -d'"' -f4)
is "$(_act | grep -o '"time":[0-9]*' | head -n1 | cut -d: -f2)" "${resv##*:}" \
   "the reclaim is due at once: the Activation's time is its reservation's creation ($resv)"
is "$(grep -h '"type":"End"' "$JT_LEDGER_DIR"/ledger-*.jtl | grep RandomPreempt | grep -c -- "$seed")" 2 \
   "both victims' lease Ends say RandomPreempt with $seed"

scancel "${bor[@]}" "${own[@]}"
wait_for 60 queue_empty
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $(tail -n1 <<< "$out")"
verify_lottery_checks "$out" "$seed"
done_testing
