#!/bin/bash
# preempt-compare.sh - one whole-domain run arriving into a full cluster:
# how long until it starts and how many GPUs are evicted for it, under
# stock Slurm's own preemption and under Jobtree's activation (issue 8).
#
#   tests/cluster/preempt-compare.sh BUILDDIR [FILL_LIMIT_MIN]
#
# JT_PCOMPARE_FILL_NODES=N (default 1, or 2) makes the fillers 16/N gangs of
# N nodes each (one job, one run), so that a victim is a multi-node gang.
# JT_PCOMPARE_FILL_NODES=mixed fills each domain differently, gangs of
# mixed sizes at different priorities (nice): A one 4-node gang (nice 0),
# B two 2-node gangs (nice 10, 20), C one 2-node and two 1-node gangs
# (nice 30, 40, 50), D four 1-node gangs (nice 60 to 90); and right after
# the big run, a third job (plain, 1 node, no preemption) is submitted: did
# it start before the big run, on nodes the eviction freed?
# JT_PCOMPARE_VARIANTS="stock-qos stock jobtree" picks the variants and their
# order (default "stock jobtree": stock-qos needs the packages slurmdbd and
# mariadb-server, which CI does not install).
#
# Every variant fills the 16-node cluster with 16 one-node jobs (8 GPUs
# each, FILL_LIMIT_MIN-minute limit, default 60: without preemption the big
# run would wait that long), then submits one 4-node run (32 GPUs, one
# domain):
#   stock-qos select/cons_tres, PreemptType=preempt/qos, PreemptMode=REQUEUE,
#             with accounting (a private slurmdbd: lib.sh's
#             JT_CLUSTER_SLURMDBD=1; AccountingStorageEnforce=associations,
#             qos): QOS low, and high with Preempt=low PreemptMode=requeue;
#             the fillers at --qos=low, the big run at --qos=high with
#             --switches=1. Stock's usual "a higher QOS preempts".
#   stock     select/cons_tres, PreemptType=preempt/partition_prio,
#             PreemptMode=REQUEUE: the fillers in partition gpu
#             (PriorityTier 1), the big run in partition urgent
#             (PriorityTier 10) with --switches=1: stock's accounting-free
#             equivalent (a higher tier preempts a lower).
#   jobtree   select/cons_tres_jobtree, PreemptType=preempt/jobtree,
#             PreemptMode=REQUEUE, MaxWait=30s: fillers are Jobtree runs of
#             two owners, the big run --group-gpus=32 of a third.
# Prints per variant: seconds from submission to start, GPUs evicted (jobs
# requeued x their GPUs), gangs evicted (jobs requeued), partial-gang kills
# (fillers still running on fewer nodes than they started with: a gang cut,
# not ended), the big run's domains. Jobtree's start is bounded by MaxWait
# by design (the wait it grants running work); stock preempts at once.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

BUILD=${1:?usage: $0 BUILDDIR [FILL_LIMIT_MIN]}
LIMIT=${2:-60}
FILL_NODES=${JT_PCOMPARE_FILL_NODES:-1}
case $FILL_NODES in 1|2|mixed) ;; *) echo "JT_PCOMPARE_FILL_NODES: 1, 2 or mixed" >&2; exit 2 ;; esac
# The fillers: "DOMAIN NODES NICE" per gang.
if [ "$FILL_NODES" = mixed ]; then
    FILLERS="A 4 0
B 2 10
B 2 20
C 2 30
C 1 40
C 1 50
D 1 60
D 1 70
D 1 80
D 1 90"
else
    FILLERS=$(for i in $(seq 1 $((16 / FILL_NODES))); do echo "- $FILL_NODES 0"; done)
fi
VARIANTS=${JT_PCOMPARE_VARIANTS:-stock jobtree}
ntests=0
for v in $VARIANTS; do
    case $v in
    stock) ;;
    stock-qos) ntests=$((ntests + 1)) ;;
    jobtree) ntests=$((ntests + 2)) ;;
    *) echo "JT_PCOMPARE_VARIANTS: '$v' is none of stock-qos, stock, jobtree" >&2; exit 2 ;;
    esac
done
RESULTS=$(mktemp -d /tmp/jt-pcompare.XXXXXX)
plan $ntests
mkdir -p "$RESULTS/budgets"
for o in fill-a:80 fill-b:80 big:32; do
    cat > "$RESULTS/budgets/${o%%:*}.json" <<JSON
{ "owner": "${o%%:*}",
  "envelopes": [ { "name": "${o%%:*}-h100", "flavor": "h100", "selector": { "cluster": "c1" },
                   "start": "2026-01-01T00:00:00Z", "end": "2031-01-01T00:00:00Z",
                   "concurrency": ${o##*:} } ] }
JSON
done
VICTIM='if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then sleep 1; else sleep 3600; fi'

run_variant () {   # run_variant NAME
    local name=$1 i acct id ids=() extra=() big t_sub t_start evicted=0 gangs=0 partial=0 doms nn
    local dom nice third="" third_first=- vdoms=""
    local -A fnodes=() fdom=()
    case $name in
    stock-qos)
        JT_CLUSTER_SELECT=cons_tres JT_CLUSTER_CRED_EXPIRE=10 JT_CLUSTER_SLURMDBD=1 \
        JT_CLUSTER_SACCTMGR="add qos low
add qos high Preempt=low PreemptMode=requeue
add account fill-a,fill-b,big
add user root account=fill-a,fill-b,big qos=normal,low,high" \
        JT_CLUSTER_SLURM_EXTRA="PreemptType=preempt/qos
PreemptMode=REQUEUE
AccountingStorageEnforce=associations,qos" \
            cluster_setup "$BUILD" ;;
    stock)
        JT_CLUSTER_SELECT=cons_tres JT_CLUSTER_CRED_EXPIRE=10 \
        JT_CLUSTER_SLURM_EXTRA="PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
PartitionName=urgent Nodes=ALL MaxTime=INFINITE State=UP OverSubscribe=NO PriorityTier=10" \
            cluster_setup "$BUILD" ;;
    jobtree)
        JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$RESULTS/budgets JT_CLUSTER_CRED_EXPIRE=10 \
        JT_CLUSTER_SLURM_EXTRA="PreemptType=preempt/jobtree
PreemptMode=REQUEUE" JT_CLUSTER_JOBTREE_EXTRA="MaxWait=30s" \
            cluster_setup "$BUILD" ;;
    esac
    cluster_start
    if [ "$name" = stock-qos ]; then
        wait_for 10 qos_high_preempts_low || bail_out "stock-qos: slurmctld does not know QOS low and high"
    fi
    i=0
    while read -r dom nn nice; do
        i=$((i + 1))
        acct=fill-a; [ $((i % 2)) = 0 ] && acct=fill-b
        case $name in
        jobtree) extra=(--group-gpus=$((8 * nn))) ;;
        stock-qos) extra=(--qos=low) ;;
        *) extra=() ;;
        esac
        [ "$dom" = - ] || extra+=(--constraint=fabric.domain=$dom)
        id=$(submit --account=$acct -N"$nn" --gres=gpu:h100:8 -t "$LIMIT" --nice="$nice" \
             "${extra[@]}" --wrap "$VICTIM")
        [ -n "$id" ] || bail_out "$name: filler not submitted: $(last_err)"
        ids+=("$id")
        fnodes[$id]=$nn
    done <<< "$FILLERS"
    for id in "${ids[@]}"; do
        wait_job_state "$id" RUNNING 30 || bail_out "$name: filler $id does not start"
        fdom[$id]=$(job_domains "$id" | sort -u | paste -sd+)
    done
    case $name in
    stock-qos) extra=(--qos=high --switches=1) ;;
    stock) extra=(-p urgent --switches=1) ;;
    jobtree) extra=(--group-gpus=32) ;;
    esac
    t_sub=$(date +%s)
    big=$(submit --account=big -N4 --gres=gpu:h100:8 -t 5 "${extra[@]}" --wrap "sleep 5")
    [ -n "$big" ] || bail_out "$name: big run not submitted: $(last_err)"
    [ "$FILL_NODES" = mixed ] && third=$(submit -N1 --gres=gpu:h100:8 -t 5 --wrap "sleep 60")
    wait_job_state "$big" "RUNNING|COMPLETING|COMPLETED" 300 \
        || bail_out "$name: the big run did not start: $(job_field "$big" Reason)"
    t_start=$(epoch "$(job_field "$big" StartTime)")
    for id in "${ids[@]}"; do
        if [ "$(job_field "$id" Restarts)" -ge 1 ] 2>/dev/null; then
            evicted=$((evicted + 8 * fnodes[$id]))
            gangs=$((gangs + 1))
            vdoms+="${fdom[$id]}"$'\n'
        else
            nn=$(job_field "$id" NumNodes)
            [ "${nn%%-*}" -lt "${fnodes[$id]}" ] 2>/dev/null && partial=$((partial + 1))
        fi
    done
    if [ -n "$third" ]; then
        local ts
        ts=$(epoch "$(job_field "$third" StartTime)" 2>/dev/null)
        third_first=no
        [ "$(job_field "$third" JobState)" != PENDING ] && [ -n "$ts" ] \
            && [ "$ts" -lt "$t_start" ] && third_first=yes
    fi
    doms=$(job_domains "$big" | sort -u | paste -sd,)
    echo "$name $((t_start - t_sub)) $evicted $gangs $partial $doms $(grep -c . <<< "$(printf '%s' "$vdoms" | tr '+' '\n' | sort -u)") $third_first" \
        >> "$RESULTS/summary"
    scancel "${ids[@]}" "$big" $third 2>/dev/null
    wait_for 60 queue_empty
    cluster_stop
}

for v in $VARIANTS; do run_variant "$v"; done
printf '%-9s %14s %12s %13s %18s %-8s %16s %s\n' variant "start after s" "GPUs evicted" \
    "gangs evicted" "partial-gang kills" domains "domains touched" "third job first"
while read -r n s e g p d t f; do
    printf '%-9s %14s %12s %13s %18s %-8s %16s %s\n' "$n" "$s" "$e" "$g" "$p" "$d" "$t" "$f"
done < "$RESULTS/summary"
case " $VARIANTS " in *" stock-qos "*)
ok "$(awk '$1 == "stock-qos" && $3 >= 32 && $2 < 60 * '"$LIMIT"' { f = 1 } END { exit !f }' "$RESULTS/summary"; echo $?)" \
   "stock preempt/qos starts the big run by preemption (>= 32 GPUs evicted, before the fillers' limit)" ;;
esac
case " $VARIANTS " in *" jobtree "*)
ok "$(awk '$1 == "jobtree" && $3 <= 32 && $5 == 0 && $6 !~ /,/ { f = 1 } END { exit !f }' "$RESULTS/summary"; echo $?)" \
   "Jobtree evicts no more than the deficit (32 GPUs), cuts no gang, and keeps the run in one domain"
ok "$(awk '$1 == "jobtree" && $2 <= 120 { f = 1 } END { exit !f }' "$RESULTS/summary"; echo $?)" \
   "Jobtree starts it within MaxWait plus scheduling and requeue delays" ;;
esac
rm -rf "$RESULTS"
done_testing
