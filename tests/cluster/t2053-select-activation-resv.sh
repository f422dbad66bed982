#!/bin/bash
# t2053-select-activation-resv.sh - an activation goes to the next domain
# when Slurm will not give the first (issue 32 item 5's cluster test).
# Slurm's own advance reservation takes three nodes of C for maintenance
# (IGNORE_JOBS: the runs there keep running). Jobtree's snapshot does not
# know Slurm reservations, but job_test's node set does: the reserved nodes
# are not in it, so C is no candidate for the run and the activation clears
# D instead; nothing of C is preempted. Without the reservation C is the
# domain chosen: `jobtree plan --activate` on a snapshot taken meanwhile
# (which has no Slurm reservations) ranks C first.
#
# This is why Jobtree need not try C and be refused: the refusal path
# (jt_activate_except, cons_tres refusing a domain's nodes) is left for
# what neither the snapshot nor the node set shows (memory, CPUs); it is
# unit-tested (tests/unit/activate.c, test_refused).
#
# Cluster: see t2000-select.sh. East is C (gpu09-12) and D (gpu13-16),
# each with four one-node runs (two of team-b, two of team-d). The run:
# team-c, 2 nodes (16 GPUs) in one domain, MaxWait 20 s.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 6
activation_cluster "${1:?usage: $0 BUILDDIR}" team-b:64 team-c:16 team-d:64
G8="--gres=gpu:h100:8"
VICTIM='if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then sleep 1; else sleep 600; fi'

declare -A dom_of
v=()
for d in C D; do
    for acct in team-b team-b team-d team-d; do
        j=$(submit --account=$acct -N1 $G8 --group-gpus=8 --constraint=fabric.domain=$d \
                   -t 10 --wrap "$VICTIM")
        v+=("$j")
        dom_of[$j]=$d
    done
done
for j in "${v[@]}"; do
    wait_job_state "$j" RUNNING 15 || bail_out "run $j does not start"
done

scontrol create reservation reservationname=jt-maint nodes=gpu[09-11] starttime=now \
    duration=30 users=root flags=maint,ignore_jobs >/dev/null
ok $? "a Slurm maintenance reservation on gpu[09-11] of C, its runs left running"

big=$(submit --account=team-c -N2 $G8 --group-gpus=16 -t 2 --wrap "sleep 5")
wait_for 30 ledger_resv_of "$big" || bail_out "no ReservationCreate for $big: $(job_field "$big" Reason)"
rid=$(ledger_resv_of "$big")
jobtree_cli snapshot -o "$JT_CLUSTER_DIR/snap.json" || bail_out "jobtree snapshot"
cat > "$JT_CLUSTER_DIR/run-c.json" <<EOR
{ "owner": "team-c", "resources": { "gpuType": "h100", "totalGPUs": 16 },
  "locality": { "groupGPUs": 16 } }
EOR
jobtree_cli plan --budgets "$JT_CLUSTER_DIR/budgets" --snapshot "$JT_CLUSTER_DIR/snap.json" \
    --run "$JT_CLUSTER_DIR/run-c.json" --activate "$rid" \
    --at "$(date -u -d "@$(( ${rid##*:} + 20 ))" +%Y-%m-%dT%H:%M:%SZ)" \
    > "$JT_CLUSTER_DIR/plan-activate.txt" 2>&1
like "$(grep -A1 '^activation of' "$JT_CLUSTER_DIR/plan-activate.txt" | paste -sd' ')" \
     "scope east/c1/C,east/c1/D +resolved alt=0 " \
     "without Slurm's reservation C is the domain chosen (jobtree plan --activate on a snapshot)"

wait_job_state "$big" "RUNNING|COMPLETING|COMPLETED" 120 \
    || bail_out "the run did not start after MaxWait: $(job_field "$big" Reason)"
is "$(job_domains "$big")" D "the run starts on D"
act=$(grep -h '"type":"Activation"' "$JT_LEDGER_DIR"/ledger-*.jtl | grep "\"run\":\"jtc:$big\"")
is "$(grep -o '"pool":"[^"]*"' <<< "$act" | sort -u | paste -sd' ')" '"pool":"east/c1/D"' \
   "the ledger's Activation clears D, and only D"
requeued=""
for j in "${v[@]}"; do
    [ "$(job_field "$j" Restarts)" -ge 1 ] 2>/dev/null && requeued+="${dom_of[$j]}"
done
is "$requeued" "DD" "two whole runs of D were requeued, none of C"
scontrol delete reservationname=jt-maint
scancel "${v[@]}"
wait_for 60 queue_empty
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $(tail -n1 <<< "$out")"
done_testing
