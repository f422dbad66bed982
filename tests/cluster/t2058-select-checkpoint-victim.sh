#!/bin/bash
# t2058-select-checkpoint-victim.sh - a --checkpoint run the lottery takes
# is requeued with its restart planned (issue 32 item 3, seed 002): when a
# reservation activates at its MaxWait and the published lottery requeues
# whole gangs, a victim that checkpoints gets its restart held at once, as
# a run out of spares does (restart.c): a ReservationCreate of its own at
# the requeue, on nodes the activated run does not start on, shown by
# `jobtree report reservations` and by its squeue reason; it restarts on
# that slice once its holder ends, and `jobtree verify` accepts the ledger.
# The restart rule (jt_restart_where, jt_resv_clock_t.restart): the slice
# is on nodes the victim may use (its --constraint), the victim waits for
# it and binds nowhere else, and its reservation never activates: past
# its MaxWait it preempts nobody (no cascade). One holder ends first, so
# one pass finds a node free and both victims past their MaxWait: with the
# rule off (jtsel_restart_waits and jt_resv_clock_t.restart both removed)
# the victim left out activated on the other and tests 10 and 13 failed.
#
# Cluster: see t2000-select.sh. East is C (gpu09-12) and D (gpu13-16).
# D: a plain 4-node job. C: four one-node --checkpoint runs, two of team-b
# and two of team-d (lib.sh's east_filled). The run: team-c, 2 nodes (16
# GPUs) in one domain, running until cancelled: deficit 16 on C, cleared
# by 2 of the 4 gangs, which are requeued.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 14
activation_cluster "${1:?usage: $0 BUILDDIR}" team-b:64 team-c:16 team-d:16
G8="--gres=gpu:h100:8"

east_filled --checkpoint=10m    # $plain on D, ${victims[@]} on C (lib.sh)
v=("${victims[@]}")

# The run keeps its nodes until cancelled: a victim has nowhere to go but
# its slice, so a restart reservation that activated at MaxWait would
# preempt a run left running (the cascade this test rules out).
big=$(submit --account=team-c -N2 $G8 --group-gpus=16 -t 5 --wrap "sleep 600")
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
resv_nodes () { ledger_resv_nodes "$1"; }
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

# Past both restarts' MaxWait (created + 20 s) the victims still wait for
# their slices, the slices' holders still run.
created=$(ledger_resv_time "${taken[0]}")
_past_maxwait () {
    local t
    t=$(date +%s)
    echo "now $t, restart reservation created $created + MaxWait 20 s + 15 s"
    [ "$t" -ge $((created + 35)) ]
}
wait_for 60 _past_maxwait || bail_out "no restart reservation time"
is "$(job_field "${kept[0]}" JobState) $(job_field "${kept[1]}" JobState) $(job_field "$big" JobState)" \
   "RUNNING RUNNING RUNNING" "the runs holding the victims' slices still run, and the activated run"
# Its reason as seen, not read once (reason_when: on 24.11 and 26.05 the
# main scheduler's pass shows "Resources" until backfill's next pass sets
# the plugin's line again; 26.05 read it once as "Resources" in CI).
r=$(reason_when "${taken[0]}" 'for.its.restart')
like "$(job_field "${taken[0]}" JobState) $r" \
     "^PENDING .*for.its.restart" "a victim waits for its slice, its reason the restart's"

# One slice's holder ends: that victim restarts there, in the pass that
# finds one node free and two victims past their MaxWait; the other keeps
# waiting for its own slice. (With the restart rule off, both are planned
# anywhere: one takes the node and the other's reservation, due, clears
# it again: a cascade.)
hold1=""
for j in "${kept[@]}"; do
    [ "$(scontrol show hostnames "$(job_field "$j" NodeList)" | paste -sd, -)" = "$(resv_nodes "${taken[1]}")" ] \
        && hold1=$j
done
[ -n "$hold1" ] || bail_out "no run left holds ${taken[1]}'s slice $(resv_nodes "${taken[1]}")"
scancel "$hold1"
wait_for 60 jobs_completed 1 "${taken[1]}"
ok $? "${taken[1]} restarts and completes once its slice's holder ($hold1) ends"
r=$(reason_when "${taken[0]}" 'for.its.restart')
like "$(job_field "${taken[0]}" JobState) $r" \
     "^PENDING .*for.its.restart" "${taken[0]} still waits for its own slice"

# The other holders end: the other victim restarts on its slice too.
scancel "${kept[@]}" "$plain" "$big"
wait_for 120 jobs_completed 2 "${taken[@]}"
ok $? "the requeued victims restart and complete once their slices' holders end"
landed=""
for j in "${taken[@]}"; do
    landed+="$(scontrol show hostnames "$(job_field "$j" NodeList)" | paste -sd, -)=$(resv_nodes "$j") "
done
like "$landed" '^(gpu[0-9]+)=\1 (gpu[0-9]+)=\2 $' "each victim restarted on its reserved slice (ran=reserved: $landed)"
# No cascade over the whole test: slurmctld tried the waiting victims past
# their MaxWait (at the latest when the holders ended, a pass that bound
# them). With the restart rule off (a victim planned anywhere, its
# reservation due at MaxWait) one victim bound on a node the other's slice
# was waiting for, and that one's reservation then activated on it: a
# third requeue and a second Activation.
cascade=$(grep -c 'preempted JobId=' "$JT_CLUSTER_DIR/log/slurmctld.log")
is "$cascade $(grep -h '"type":"Activation"' "$JT_LEDGER_DIR"/ledger-*.jtl | wc -l)" "2 1" \
   "the victims' restarts preempt nobody: 2 requeues, 1 Activation in all (no cascade)"
wait_for 30 queue_empty
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $(tail -n1 <<< "$out")"
done_testing
