#!/bin/bash
# t2042-select-estimate-alone.sh - a waiting --exclusive run's start
# estimate comes from the nodes' free times (jt_answer_from_free), not from
# cons_tres's will_run replay (issue 12): its nodes are free exactly when
# the jobs on them end. With DebugCrossCheck=yes every such estimate is
# compared with cons_tres's will_run on the same nodes and logged ("free
# times start it at T, cons_tres's will_run at T'"; an error when cons_tres
# refuses the nodes or starts the run earlier). A run that shares its
# nodes (no --exclusive) is still estimated by cons_tres. The run starts
# on the nodes it was estimated on when they free. A run whose groups may
# spread is held a domain per group (the groups that free first), not on
# the nodes that free first wherever they are.
#
# Cluster: see t2000-select.sh. Plain exclusive jobs hold every node: two
# of A until 3 and 6 minutes, the rest until 10, so the first domain of
# west (team-a's a-west-h100) to free whole is A, at the 6-minute job's end.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 14
JT_CLUSTER_SELECT=jobtree
JT_CLUSTER_JOBTREE_EXTRA="DebugCrossCheck=yes"
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
G8="--gres=gpu:h100:8"
LOG=$JT_CLUSTER_DIR/log/slurmctld.log

running () {  # running WHERE MINUTES SBATCH-ARGS...: a plain exclusive job, running
    local where=$1 minutes=$2 id
    shift 2
    id=$(submit --exclusive -t "$minutes" "$@" --wrap "sleep 900")
    wait_job_state "$id" RUNNING 15 || bail_out "plain job on $where does not start"
    echo "$id"
}
plain () { running "$2" "$3" -N"$1" --constraint=fabric.domain="$2"; }  # plain NODES DOMAIN MINUTES
p1=$(plain 2 A 3)
p2=$(plain 2 A 6)
pB=$(plain 4 B 10)
pC=$(plain 4 C 10)
pD=$(plain 4 D 10)
is "$(job_domains "$p1")$(job_domains "$p2")$(job_domains "$pB")" "AAB" \
   "the blockers hold A (two jobs) and B"

alone=$(submit --account=team-a -N4 --exclusive $G8 --group-gpus=32 -t 2 \
               --wrap "sleep 5")
wait_for 30 why_like "$alone" '^reserved 4 nodes in [^ ]*/A from ' \
    || bail_out "no reservation in A for the exclusive run: $(why_of "$alone")"
reason=$JT_WHY_SEEN
reserved=$(epoch "$(resv_from "$reason")")
p2_end=$(epoch "$(job_field "$p2" EndTime)")
is "$reserved" "$p2_end" "the estimate is exactly when the later of A's jobs ends: $reason"

_cross () { grep -E "DebugCrossCheck: JobId=$alone: free times start it at [0-9]+, cons_tres's will_run at [0-9]+" "$LOG" | tail -n1; }
wait_for 20 _cross || bail_out "no free-times estimate logged for job $alone"
line=$(_cross)
ours=$(sed -E 's/.*start it at ([0-9]+),.*/\1/' <<< "$line")
cons=$(sed -E 's/.*will_run at ([0-9]+)$/\1/' <<< "$line")
is "$ours" "$p2_end" "the estimate was taken from the free times"
is "$cons" "$ours" "cons_tres's will_run on the same nodes finds the same instant"
errs=$(grep "error: .*DebugCrossCheck: .*free times" "$LOG" | head -n 3)
is "$errs" "" "no estimate from free times disagreed with cons_tres"

# A run that shares its nodes: cons_tres's will_run estimates it (a west
# domain, when backfill's plan has room for it), no free-times line.
shared=$(submit --account=team-a -N4 $G8 --group-gpus=32 -t 2 --wrap "sleep 5")
wait_for 30 why_like "$shared" '^reserved 4 nodes in [^ ]*/[AB] from ' \
    || bail_out "no reservation for the shared run: $(why_of "$shared")"
ok 0 "the run without --exclusive is reserved: $JT_WHY_SEEN"
is "$(grep -c "DebugCrossCheck: JobId=$shared: free times" "$LOG")" 0 \
   "and estimated by cons_tres, not from free times"

# A frees (the blockers cancelled early): the exclusive run starts there.
scancel "$p1" "$p2"
wait_job_state "$alone" "RUNNING|COMPLETING|COMPLETED" 60 \
    || bail_out "the exclusive run did not start: $(job_field "$alone" Reason)"
is "$(job_domains "$alone")" "A" "it starts on the domain it was estimated on"

scancel "$shared" "$pB" "$pC" "$pD"
wait_for 30 queue_empty

# A run whose groups may spread (two groups of two nodes, --exclusive) is
# held a domain per group: the nodes freeing first anywhere (gpu01-03 and
# gpu05 by 5 minutes) hold no two groups; A's second pair frees when
# gpu04's job ends (9 minutes), before any pair of B (12).
blockers=()
for nm in gpu01:3 gpu02:4 gpu03:5 gpu04:9 gpu05:5 gpu06:12 gpu07:12 gpu08:12; do
    blockers+=("$(running "${nm%:*}" "${nm#*:}" -N1 -w "${nm%:*}")")
done
pC=$(plain 4 C 12)
pD=$(plain 4 D 12)
spread=$(submit --account=team-a -N4 --exclusive $G8 --group-gpus=16 -t 2 \
                --wrap "sleep 5")
wait_for 30 why_like "$spread" '^reserved 4 nodes from ' \
    || bail_out "no reservation for the spread run: $(why_of "$spread")"
reason=$JT_WHY_SEEN
reserved=$(epoch "$(resv_from "$reason")")
g4_end=$(epoch "$(job_field "${blockers[3]}" EndTime)")
_scross () { grep -E "DebugCrossCheck: JobId=$spread: free times start it at [0-9]+, cons_tres's will_run at [0-9]+" "$LOG" | tail -n1; }
wait_for 20 _scross || bail_out "no free-times estimate logged for job $spread"
line=$(_scross)
is "$reserved $(sed -E 's/.*start it at ([0-9]+),.*/\1/' <<< "$line")" "$g4_end $g4_end" \
   "the spread run is reserved when A's second pair frees (gpu04's job's end), from the free times: $reason"
is "$(sed -E 's/.*will_run at ([0-9]+)$/\1/' <<< "$line")" "$g4_end" \
   "cons_tres's will_run on those nodes finds the same instant"
is "$(scontrol show hostnames "$(job_field "$spread" SchedNodeList)" | paste -sd, -)" \
   "gpu01,gpu02,gpu03,gpu04" "backfill holds A's four nodes for it, two groups in one domain each"
scancel "${blockers[@]:0:4}"
wait_job_state "$spread" "RUNNING|COMPLETING|COMPLETED" 60 \
    || bail_out "the spread run did not start: $(job_field "$spread" Reason)"
is "$(job_domains "$spread")" "A" "it starts on A when A frees"
errs=$(grep "error: .*DebugCrossCheck: .*free times" "$LOG" | head -n 3)
is "$errs" "" "no estimate from free times disagreed with cons_tres"
scancel "${blockers[@]:4}" "$pC" "$pD"
wait_for 30 queue_empty
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $(tail -n1 <<< "$out")"
done_testing
