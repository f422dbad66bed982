#!/bin/bash
# t2058-select-checkpoint-victim.sh - a --checkpoint run the lottery takes
# is requeued with its restart planned (issue 32 item 3, seed 002): when a
# reservation activates at its MaxWait and the published lottery requeues
# whole gangs, a victim that checkpoints gets its restart held at once, as
# a run out of spares does (restart.c): a ReservationCreate of its own at
# the requeue, on nodes the activated run does not start on, shown by
# `jobtree report reservations` and by its squeue reason; it restarts on
# that slice once its holder ends, and `jobtree verify` accepts the ledger.
#
# Cluster: see t2000-select.sh. East is C (gpu09-12) and D (gpu13-16).
# D: a plain 4-node job. C: four one-node --checkpoint runs, two of team-b
# and two of team-d. The run: team-c, 2 nodes (16 GPUs) in one domain:
# deficit 16 on C, cleared by 2 of the 4 gangs, which are requeued.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 8
activation_cluster "${1:?usage: $0 BUILDDIR}" team-b:64 team-c:16 team-d:16
G8="--gres=gpu:h100:8"
# A victim sleeps long the first time and briefly once requeued.
VICTIM='if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then sleep 1; else sleep 600; fi'

plain=$(submit -N4 --exclusive --constraint=fabric.domain=D -t 10 --wrap "sleep 600")
wait_job_state "$plain" RUNNING 15 || bail_out "the plain job does not start"
v=()
for acct in team-b team-b team-d team-d; do
    v+=("$(submit --account=$acct -N1 $G8 --group-gpus=8 --checkpoint=10m \
                 --constraint=fabric.domain=C -t 10 --wrap "$VICTIM")")
done
for j in "${v[@]}"; do
    wait_job_state "$j" RUNNING 15 || bail_out "victim candidate $j does not start"
done

big=$(submit --account=team-c -N2 $G8 --group-gpus=16 -t 2 --wrap "sleep 5")
wait_job_state "$big" "RUNNING|COMPLETING|COMPLETED" 120 \
    || bail_out "the run did not start after MaxWait: $(job_field "$big" Reason)"
bignodes=$(scontrol show hostnames "$(job_field "$big" NodeList)" | paste -sd, -)
taken=() kept=()
for j in "${v[@]}"; do
    if [ "$(job_field "$j" Restarts)" -ge 1 ] 2>/dev/null; then taken+=("$j"); else kept+=("$j"); fi
done
is "${#taken[@]} ${#kept[@]}" "2 2" "the lottery requeued two whole --checkpoint gangs ($bignodes to the run)"

# Each requeued victim's restart: a ReservationCreate of its own, off the
# activated run's nodes.
resv_nodes () {
    grep -h '"type":"ReservationCreate"' "$JT_LEDGER_DIR"/ledger-*.jtl \
        | grep "\"run\":\"jtc:$1\"" | tail -n1 | grep -o '"nodes":\[[^]]*\]' \
        | grep -o 'gpu[0-9]*' | paste -sd, -
}
_both () { [ -n "$(resv_nodes "${taken[0]}")" ] && [ -n "$(resv_nodes "${taken[1]}")" ]; }
wait_for 30 _both || bail_out "no ReservationCreate at the victims' requeue: $(grep -h 'requeued' "$JT_CLUSTER_DIR/log/slurmctld.log" | tail -n 3)"
ok 0 "each requeued --checkpoint victim has its restart reserved: ${taken[0]} on $(resv_nodes "${taken[0]}"), ${taken[1]} on $(resv_nodes "${taken[1]}")"
overlap=0
for j in "${taken[@]}"; do
    for n in $(resv_nodes "$j" | tr , ' '); do
        case ",$bignodes," in *",$n,"*) overlap=1 ;; esac
    done
done
is "$overlap" 0 "no restart slice is on the nodes the activated run starts on"
is "$( (resv_nodes "${taken[0]}"; resv_nodes "${taken[1]}") | tr , '\n' | sort | uniq -d | wc -l)" 0 \
   "the two restarts hold different nodes"
is "$(jobtree_cli report reservations -P -n -j "${taken[0]}" -o Activated "$JT_LEDGER_DIR")" "Unknown" \
   "jobtree report reservations shows the restart, not activated yet"
grep -Eq "JobId=${taken[0]}: requeued: " "$JT_CLUSTER_DIR/log/slurmctld.log"
ok $? "slurmctld's log says the victim was requeued with its restart reserved"

# The holders end: the victims restart (on their slices) and complete.
scancel "${kept[@]}" "$plain"
_victims_done () {
    local j n=0
    for j in "${taken[@]}"; do
        [ "$(job_field "$j" JobState)" = COMPLETED ] && n=$((n + 1))
    done
    [ "$n" = 2 ]
}
wait_for 120 _victims_done
ok $? "the requeued victims restart and complete once their slices' holders end"
wait_for 30 queue_empty
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $(tail -n1 <<< "$out")"
done_testing
