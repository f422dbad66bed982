#!/bin/bash
# t2042-select-estimate-alone.sh - a waiting --exclusive run's start
# estimate comes from the nodes' free times (jt_answer_from_free), not from
# cons_tres's will_run replay (issue 12): its nodes are free exactly when
# the jobs on them end. With DebugCrossCheck=yes every such estimate is
# compared with cons_tres's will_run on the same nodes and logged ("free
# times start it at T, cons_tres's will_run at T'"; an error when cons_tres
# refuses the nodes or starts the run earlier). A run that shares its
# nodes (no --exclusive) is still estimated by cons_tres. The run starts
# on the nodes it was estimated on when they free.
#
# Cluster: see t2000-select.sh. Plain exclusive jobs hold every node: two
# of A until 3 and 6 minutes, the rest until 10, so the first domain of
# west (team-a's a-west-h100) to free whole is A, at the 6-minute job's end.
. "$(dirname "$0")/lib.sh"

plan 9
JT_CLUSTER_SELECT=jobtree
JT_CLUSTER_JOBTREE_EXTRA="DebugCrossCheck=yes"
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
G8="--gres=gpu:h100:8"
LOG=$JT_CLUSTER_DIR/log/slurmctld.log

plain () {  # plain NODES DOMAIN MINUTES: a plain exclusive job, running
    local id
    id=$(submit -N"$1" --exclusive --constraint=fabric.domain="$2" -t "$3" \
                --wrap "sleep 600")
    wait_job_state "$id" RUNNING 15 || bail_out "plain job on $2 does not start"
    echo "$id"
}
p1=$(plain 2 A 3)
p2=$(plain 2 A 6)
pB=$(plain 4 B 10)
pC=$(plain 4 C 10)
pD=$(plain 4 D 10)
is "$(job_domains "$p1")$(job_domains "$p2")$(job_domains "$pB")" "AAB" \
   "the blockers hold A (two jobs) and B"

alone=$(submit --account=team-a -N4 --exclusive $G8 --group-gpus=32 -t 2 \
               --wrap "sleep 5")
wait_for 30 reason_like "$alone" '^jobtree: reserved 4 nodes in [^ ]*/A from ' \
    || bail_out "no reservation in A for the exclusive run: $(job_field "$alone" Reason)"
reason=$(reason_like "$alone" . | sed 's/^job [0-9]* reason: //')
reserved=$(epoch "$(sed -E 's/.* from ([0-9T:Z-]+).*/\1/' <<< "$reason")")
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
wait_for 30 reason_like "$shared" '^jobtree: reserved 4 nodes in [^ ]*/[AB] from ' \
    || bail_out "no reservation for the shared run: $(job_field "$shared" Reason)"
ok 0 "the run without --exclusive is reserved: $(job_field "$shared" Reason)"
is "$(grep -c "DebugCrossCheck: JobId=$shared: free times" "$LOG")" 0 \
   "and estimated by cons_tres, not from free times"

# A frees (the blockers cancelled early): the exclusive run starts there.
scancel "$p1" "$p2"
wait_job_state "$alone" "RUNNING|COMPLETING|COMPLETED" 60 \
    || bail_out "the exclusive run did not start: $(job_field "$alone" Reason)"
is "$(job_domains "$alone")" "A" "it starts on the domain it was estimated on"

scancel "$shared" "$pB" "$pC" "$pD"
wait_for 30 queue_empty
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $(tail -n1 <<< "$out")"
done_testing
