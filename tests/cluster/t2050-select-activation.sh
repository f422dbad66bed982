#!/bin/bash
# t2050-select-activation.sh - a reservation activates at its MaxWait and
# the published lottery clears its slice (issue 8): a funded run that Pack
# cannot place waits under a reservation; at creation + MaxWait
# (jobtree.conf) slurmctld offers running Jobtree runs as preemptees
# (preempt/jobtree), libjobtree picks whole gangs by the seeded lottery in
# the first domain they can clear, slurmctld requeues exactly those
# (PreemptMode=REQUEUE), the run starts there, the ledger records the
# Activation (seed, conflict set, cuts) and each victim's lease End says
# RandomPreempt with that seed, the victims run again later, and `jobtree
# verify` replays the lottery from the ledger alone. Plain jobs take no
# part: a plain job waiting for C's nodes never preempts the runs there
# (preempt/jobtree offers a plain preemptor nothing; stock cons_tres would
# preempt for it), and the plain job on D is never preempted (the lottery
# draws only among Jobtree leases, and preempt/jobtree gives a plain job
# PreemptMode OFF besides leaving it out of the offer: no one of these three
# guards can be seen alone from here).
#
# Cluster: see t2000-select.sh. East is C (gpu09-12) and D (gpu13-16).
# D: a plain 4-node job (never a victim); a plain one-node job waits for C
# a while, then is cancelled. C: four one-node runs, two of
# team-b and two of team-d (the lottery draws an owner, then a run). The
# run: team-c, 2 nodes (16 GPUs) in one domain, funded now; room is what
# it waits for: deficit 16 on C, cleared by 2 of the 4 gangs.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 15
activation_cluster "${1:?usage: $0 BUILDDIR}" team-b:64 team-c:16 team-d:16
G8="--gres=gpu:h100:8"

east_filled             # $plain on D, ${victims[@]} on C (lib.sh)
v=("${victims[@]}")
is "$(job_domains "$plain") $(for j in "${v[@]}"; do job_domains "$j"; done | sort -u)" \
   "D C" "east is full: the plain job on D, four one-node runs on C"

# A plain job that needs a node of C: slurmctld asks preempt/jobtree which
# running jobs it may preempt, and the answer is none (only a pending
# Jobtree run may preempt). Stock cons_tres would preempt a run of C for it
# if it were offered one (PreemptMode=REQUEUE), so it must still wait, and
# every run of C still run unrequeued, after the main scheduler (at
# submission) and two whole backfill cycles have tried it.
n0=$(bf_cycles)
pre=$(submit -N1 --exclusive --constraint=fabric.domain=C -t 10 --wrap "sleep 600")
wait_for 30 bf_cycles_since "${n0:-0}" || bail_out "backfill does not cycle"
is "$(job_field "$pre" JobState) $(for j in "${v[@]}"; do
        echo "$(job_field "$j" JobState)/$(job_field "$j" Restarts)"; done | paste -sd' ')" \
   "PENDING RUNNING/0 RUNNING/0 RUNNING/0 RUNNING/0" \
   "a plain job waiting for C preempts none of its runs (preempt/jobtree offers it none)"
scancel "$pre"
wait_job_state "$pre" CANCELLED 15 || bail_out "the plain job on C is not cancelled"

big=$(submit --account=team-c -N2 $G8 --group-gpus=16 -t 2 --wrap "sleep 5")
wait_for 30 reason_like "$big" '^jobtree: [^;]+; reserved [^ ]+ from ' \
    || bail_out "no reservation: $(job_field "$big" Reason)"
ok 0 "the run waits under a reservation: $(reason_like "$big" . | sed 's/^job [0-9]* reason: //')"

# Before it activates: jobtree plan --activate on a snapshot of the cluster
# names the victims slurmctld is about to draw (same library, same seed).
wait_for 20 ledger_resv_of "$big" || bail_out "no ReservationCreate for $big"
rid=$(ledger_resv_of "$big")
"$JT_BUILDDIR/src/cli/jobtree" snapshot -o "$JT_CLUSTER_DIR/snap.json"
ok $? "jobtree snapshot before the activation (reservation $rid)"
cat > "$JT_CLUSTER_DIR/run-c.json" <<EOR
{ "owner": "team-c", "resources": { "gpuType": "h100", "totalGPUs": 16 },
  "locality": { "groupGPUs": 16 } }
EOR
"$JT_BUILDDIR/src/cli/jobtree" plan --budgets "$JT_CLUSTER_DIR/budgets" \
    --snapshot "$JT_CLUSTER_DIR/snap.json" --run "$JT_CLUSTER_DIR/run-c.json" \
    --activate "$rid" --at "$(date -u -d "@$(( ${rid##*:} + 20 ))" +%Y-%m-%dT%H:%M:%SZ)" \
    > "$JT_CLUSTER_DIR/plan-activate.txt" 2>&1
predicted=$(grep -o 'RandomPreempt [0-9]*' "$JT_CLUSTER_DIR/plan-activate.txt" \
            | awk '{ print $2 }' | sort -n | paste -sd' ')

wait_job_state "$big" "RUNNING|COMPLETING|COMPLETED" 120 \
    || bail_out "the run did not start after MaxWait: $(job_field "$big" Reason)"
is "$(job_domains "$big")" "C" "it starts on C, the domain the victims cleared"
requeued=0 running=0
for j in "${v[@]}"; do
    r=$(job_field "$j" Restarts)
    [ "${r:-0}" -ge 1 ] && requeued=$((requeued + 1))
    [ "$(job_field "$j" JobState)" = RUNNING ] && [ "${r:-0}" = 0 ] && running=$((running + 1))
done
actual=$(for j in "${v[@]}"; do
    [ "$(job_field "$j" Restarts)" -ge 1 ] 2>/dev/null && echo "$j"; done | sort -n | paste -sd' ')
is "$actual" "$predicted" "jobtree plan --activate predicted exactly the runs slurmctld preempted"
[ "$actual" = "$predicted" ] \
    || { sed 's/^/# plan: /' "$JT_CLUSTER_DIR/plan-activate.txt"
         grep -h '"type":"Activation"' "$JT_LEDGER_DIR"/ledger-*.jtl | sed 's/^/# ledger: /'; }
is "$requeued $running" "2 2" \
   "exactly two whole gangs were requeued (16 GPUs for a deficit of 16), two still run"
is "$(job_field "$plain" JobState) $(job_field "$plain" Restarts)" "RUNNING 0" \
   "the plain job was never preempted"
grep -Eq "reservation jtc:$big:resv:[0-9]+ activates \(MaxWait\) at .* 16 GPUs short, 2 run" \
    "$JT_CLUSTER_DIR/log/slurmctld.log"
ok $? "slurmctld's log says which reservation activated, where and who gave way"

# The ledger: one Activation with the seed; each victim's lease End says
# RandomPreempt with that seed.
_act () { grep -h '"type":"Activation"' "$JT_LEDGER_DIR"/ledger-*.jtl; }
_ends () { grep -h '"type":"End"' "$JT_LEDGER_DIR"/ledger-*.jtl | grep -c '"reason":"RandomPreempt"'; }
_settled () { [ -n "$(_act)" ] && [ "$(_ends)" -ge 2 ]; }
wait_for 30 _settled || bail_out "no Activation or no RandomPreempt ends in the ledger"
seed=$(_act | grep -o '"seed":"[0-9a-f]*"' | head -n1)
is "$(_act | wc -l)" 1 "one Activation event for the reservation"
is "$(grep -h '"type":"End"' "$JT_LEDGER_DIR"/ledger-*.jtl | grep '"reason":"RandomPreempt"' \
      | grep -c -- "$seed")" 2 "both victims' lease Ends say RandomPreempt with the published $seed"

# The victims run again and finish; then verify replays the lottery.
activation_victims_rerun 90 2 "$plain" "$seed" "${v[@]}"
done_testing
