#!/bin/bash
# preempt-compare.sh - one whole-domain run arriving into a full cluster:
# how long until it starts and how many GPUs are evicted for it, under
# stock Slurm's own preemption and under Jobtree's activation (issue 8).
#
#   tests/cluster/preempt-compare.sh BUILDDIR [FILL_LIMIT_MIN]
#
# JT_PCOMPARE_FILL_NODES=N (default 1, or 2) makes the fillers 16/N gangs of
# N nodes each (one job, one run), so that a victim is a multi-node gang.
#
# Both variants fill the 16-node cluster with 16 one-node jobs (8 GPUs
# each, FILL_LIMIT_MIN-minute limit, default 60: without preemption the big
# run would wait that long), then submit one 4-node run (32 GPUs, one
# domain):
#   stock     select/cons_tres, PreemptType=preempt/partition_prio,
#             PreemptMode=REQUEUE: the fillers in partition gpu
#             (PriorityTier 1), the big run in partition urgent
#             (PriorityTier 10) with --switches=1. (preempt/qos needs QOS
#             records, hence slurmdbd; partition_prio is stock's
#             accounting-free equivalent: a higher tier preempts a lower.)
#   jobtree   select/cons_tres_jobtree, PreemptType=preempt/jobtree,
#             PreemptMode=REQUEUE, MaxWait=30s: fillers are Jobtree runs of
#             two owners, the big run --group-gpus=32 of a third.
# Prints per variant: seconds from submission to start, GPUs evicted (jobs
# requeued x their GPUs), gangs evicted (jobs requeued), the big run's
# domains. Jobtree's start is bounded by MaxWait by design (the wait it
# grants running work); stock preempts at once.
. "$(dirname "$0")/lib.sh"

BUILD=${1:?usage: $0 BUILDDIR [FILL_LIMIT_MIN]}
LIMIT=${2:-60}
FILL_NODES=${JT_PCOMPARE_FILL_NODES:-1}
case $FILL_NODES in 1|2) ;; *) echo "JT_PCOMPARE_FILL_NODES: 1 or 2" >&2; exit 2 ;; esac
RESULTS=$(mktemp -d /tmp/jt-pcompare.XXXXXX)
plan 2
mkdir -p "$RESULTS/budgets"
for o in fill-a:64 fill-b:64 big:32; do
    cat > "$RESULTS/budgets/${o%%:*}.json" <<JSON
{ "owner": "${o%%:*}",
  "envelopes": [ { "name": "${o%%:*}-h100", "flavor": "h100", "selector": { "cluster": "c1" },
                   "start": "2026-01-01T00:00:00Z", "end": "2031-01-01T00:00:00Z",
                   "concurrency": ${o##*:} } ] }
JSON
done
VICTIM='if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then sleep 1; else sleep 3600; fi'

run_variant () {   # run_variant NAME
    local name=$1 i acct id ids=() extra=() big t_sub t_start evicted=0 gangs=0 doms
    if [ "$name" = stock ]; then
        JT_CLUSTER_SELECT=cons_tres JT_CLUSTER_CRED_EXPIRE=10 \
        JT_CLUSTER_SLURM_EXTRA="PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
PartitionName=urgent Nodes=ALL MaxTime=INFINITE State=UP OverSubscribe=NO PriorityTier=10" \
            cluster_setup "$BUILD"
    else
        JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$RESULTS/budgets JT_CLUSTER_CRED_EXPIRE=10 \
        JT_CLUSTER_SLURM_EXTRA="PreemptType=preempt/jobtree
PreemptMode=REQUEUE" JT_CLUSTER_JOBTREE_EXTRA="MaxWait=30s" \
            cluster_setup "$BUILD"
    fi
    cluster_start
    for i in $(seq 1 $((16 / FILL_NODES))); do
        acct=fill-a; [ $((i % 2)) = 0 ] && acct=fill-b
        [ "$name" = jobtree ] && extra=(--group-gpus=8)
        id=$(submit --account=$acct -N"$FILL_NODES" --gres=gpu:h100:8 -t "$LIMIT" \
             "${extra[@]}" --wrap "$VICTIM")
        [ -n "$id" ] || bail_out "$name: filler not submitted: $(last_err)"
        ids+=("$id")
    done
    for id in "${ids[@]}"; do
        wait_job_state "$id" RUNNING 30 || bail_out "$name: filler $id does not start"
    done
    if [ "$name" = stock ]; then extra=(-p urgent --switches=1); else extra=(--group-gpus=32); fi
    t_sub=$(date +%s)
    big=$(submit --account=big -N4 --gres=gpu:h100:8 -t 5 "${extra[@]}" --wrap "sleep 5")
    [ -n "$big" ] || bail_out "$name: big run not submitted: $(last_err)"
    wait_job_state "$big" "RUNNING|COMPLETING|COMPLETED" 300 \
        || bail_out "$name: the big run did not start: $(job_field "$big" Reason)"
    t_start=$(epoch "$(job_field "$big" StartTime)")
    for id in "${ids[@]}"; do
        if [ "$(job_field "$id" Restarts)" -ge 1 ] 2>/dev/null; then
            evicted=$((evicted + 8 * FILL_NODES))
            gangs=$((gangs + 1))
        fi
    done
    doms=$(job_domains "$big" | sort -u | paste -sd,)
    echo "$name $((t_start - t_sub)) $evicted $gangs $doms" >> "$RESULTS/summary"
    scancel "${ids[@]}" "$big" 2>/dev/null
    wait_for 60 queue_empty
    cluster_stop
}

for v in ${JT_PCOMPARE_VARIANTS:-stock jobtree}; do run_variant "$v"; done
printf '%-8s %14s %12s %13s %s\n' variant "start after s" "GPUs evicted" \
    "gangs evicted" domains
while read -r n s e g d; do
    printf '%-8s %14s %12s %13s %s\n' "$n" "$s" "$e" "$g" "$d"
done < "$RESULTS/summary"
ok "$(awk '$1 == "jobtree" && $3 <= 32 && $5 !~ /,/ { f = 1 } END { exit !f }' "$RESULTS/summary"; echo $?)" \
   "Jobtree evicts no more than the deficit (32 GPUs) and keeps the run in one domain"
ok "$(awk '$1 == "jobtree" && $2 <= 120 { f = 1 } END { exit !f }' "$RESULTS/summary"; echo $?)" \
   "Jobtree starts it within MaxWait plus scheduling and requeue delays"
rm -rf "$RESULTS"
done_testing
