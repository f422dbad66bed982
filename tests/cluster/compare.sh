#!/bin/bash
# compare.sh - the same GPU workload under stock select/cons_tres with
# --switches=1, stock with no topology hint, and select/cons_tres_jobtree,
# each on a fresh 16-node cluster (tests/cluster/lib.sh). Prints, for each,
# how many jobs (each job is one group: its GPUs must share a domain) were
# split across fabric domains, the makespan, the mean and p95 wait, the
# mean wait of the largest jobs and how many later jobs overtook each of
# them, and the utilization; asserts that Jobtree split none. Jobtree runs
# with libjobtree's default order (best-fit); the variant jobtree-packtoempty
# (not run by default) runs it with the seed's pack-to-empty
# (JOBTREE_PACK_POLICY in slurmctld's environment, see docs/select-plugin.md).
# On Slurm 24.05+ (docs/slurm-24.11.md) three more: stock-block (stock
# cons_tres under TopologyPlugin=topology/block, 4 blocks of 4 nodes, no
# hint), stock-block-segment (the same with --segment=<the job's nodes> on
# every multi-node job: each job inside one block), on 25.11+
# stock-block-consolidate (--segment=1 --consolidate-segments on every
# multi-node job: its one-node segments gathered into the smallest
# aggregated block that holds the job; docs/slurm-26.05.md) and jobtree-block
# (Jobtree under topology/block; its domains stay the nodes' fabric.domain
# features, the same four: t2035 shows the blocks alone giving them).
#
#   tests/cluster/compare.sh BUILDDIR [WORKLOAD]
#
# JT_COMPARE_LIMIT=F gives every job a time limit of F x its duration,
# rounded up to whole minutes (as users set them; default: none, Slurm takes
# the partition's INFINITE). JT_COMPARE_VARIANTS="jobtree" runs a subset; JT_COMPARE_KEEP=1 keeps the
# per-job results (id state eligible start end nodes). JT_COMPARE_DRY_RUN=1
# checks the arguments (every variant known, the limit a number, each
# workload line "job offset duration gpus team" with whole numbers) and
# says what would run, starting no cluster (the doc-test runs
# docs/slurm-26.05.md's command so). Every run checks them first too.
#
# Fabric levels (issue 33): JT_COMPARE_SCALE=K multiplies every job's GPUs
# by K (at most the cluster's 16 nodes), JT_COMPARE_GROUP_NODES=G makes a
# job of more than G nodes (rounded up to a multiple of G) a run of G-node
# groups: Jobtree's --group-gpus, stock's --segment=G (with consolidate:
# --segment=G --consolidate-segments). A run is then split when a group
# crosses a domain (some domain holds a count of its nodes that is not a
# multiple of G). The variant jobtree-block-levels is jobtree-block with
# FabricLevels=block,spine (the 8- and 16-node aggregated blocks as
# levels). Every summary adds over_blocks: the runs over more 8-node blocks
# than their nodes need.
#
# Two variants (not run by default) add preemption and mixed priorities:
# the jobs of the most nodes (the whole-domain runs) go to a partition
# `urgent` (PriorityTier 10), every other job gets --nice 0, 50 or 100 in
# turn; requeued jobs restart from scratch (PreemptMode=REQUEUE,
# cred_expire 10 s). stock-switches-preempt: stock cons_tres, --switches=1,
# preempt/partition_prio; stock-switches-qos: the same with preempt/qos,
# the whole-domain runs at QOS high (Preempt=low) and every other job at
# QOS low instead of the partition (needs the packages slurmdbd and
# mariadb-server: lib.sh's JT_CLUSTER_SLURMDBD=1); jobtree-maxwait:
# Jobtree, MaxWait=30s, preempt/jobtree (the tier orders the queue only;
# who gives way is the activation's). The summary adds the mean wait of
# every job that is not a whole-domain run and the jobs requeued.
#
# WORKLOAD (default tests/cluster/compare-workload.txt): "job offset_s
# duration_s gpus team" lines derived from the Philly 2017 trace by
# mkworkload.py (each file's header says how). Every job is submitted at
# once with --begin at its offset, so the runs see the same arrivals. Teams
# are Slurm accounts; for the Jobtree run each gets an envelope as large as
# the cluster: with several teams budgets never bind and only placement
# differs; compare-window150.txt puts 150 jobs under one account, so its
# envelope is full whenever the cluster is and runs wait for funding too.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

BUILD=${1:?usage: $0 BUILDDIR [WORKLOAD]}
WORKLOAD=${2:-$(dirname "$0")/compare-workload.txt}
[ -f "$WORKLOAD" ] || { echo "Bail out! no workload $WORKLOAD"; exit 255; }
GPN=8
VARIANTS=${JT_COMPARE_VARIANTS:-stock-switches stock-nohint jobtree}
for v in $VARIANTS; do
    case $v in
    stock-switches|stock-nohint|stock-block|stock-block-segment|stock-block-consolidate) ;;
    jobtree|jobtree-block|jobtree-block-levels|jobtree-packtoempty) ;;
    stock-switches-preempt|stock-switches-qos|jobtree-maxwait) ;;
    *) echo "Bail out! unknown variant $v (JT_COMPARE_VARIANTS)"; exit 255 ;;
    esac
done
case ${JT_COMPARE_LIMIT:-1} in
''|*[!0-9.]*|*.*.*|.*|*.) echo "Bail out! JT_COMPARE_LIMIT=$JT_COMPARE_LIMIT is not a number"; exit 255 ;;
esac
bad=$(awk '!/^#/ && NF && (NF != 5 || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ || $4 !~ /^[0-9]+$/) \
           { print FILENAME ":" NR ": " $0; exit }' "$WORKLOAD")
[ -z "$bad" ] || { echo "Bail out! not a workload line (job offset duration gpus team): $bad"; exit 255; }
if [ "${JT_COMPARE_DRY_RUN:-0}" = 1 ]; then
    echo "compare: dry run: $(grep -c '^[^#]' "$WORKLOAD") jobs of $WORKLOAD," \
         "variants: $VARIANTS; limit: ${JT_COMPARE_LIMIT:-none}${JT_COMPARE_LIMIT:+ x duration};" \
         "build: $BUILD$([ -d "$BUILD" ] || echo ' (not built yet)')"
    exit 0
fi
for k in "${JT_COMPARE_SCALE:-1}" "${JT_COMPARE_GROUP_NODES:-0}"; do
    case $k in ''|*[!0-9]*) echo "Bail out! JT_COMPARE_SCALE/JT_COMPARE_GROUP_NODES: $k is not a whole number"; exit 255 ;; esac
done
SCALE=${JT_COMPARE_SCALE:-1} GROUPN=${JT_COMPARE_GROUP_NODES:-0}
[ "$SCALE" -ge 1 ] || { echo "Bail out! JT_COMPARE_SCALE must be at least 1"; exit 255; }
RESULTS=$(mktemp -d /tmp/jt-compare.XXXXXX)

plan 9

# Budgets for the Jobtree run: one owner per team, each with one envelope
# of JT_COMPARE_CONCURRENCY GPUs (default 128, the cluster's).
CONCURRENCY=${JT_COMPARE_CONCURRENCY:-128}
case $CONCURRENCY in ''|*[!0-9]*) bail_out "JT_COMPARE_CONCURRENCY=$CONCURRENCY is not a number" ;; esac
BUDGETS=$RESULTS/budgets
mkdir -p "$BUDGETS"
for t in $(awk '!/^#/ { print $5 }' "$WORKLOAD" | sort -u); do
    cat > "$BUDGETS/$t.json" <<EOB
{ "owner": "$t",
  "envelopes": [ { "name": "$t-h100", "flavor": "h100", "selector": { "cluster": "c1" },
                   "start": "2026-01-01T00:00:00Z", "end": "2031-01-01T00:00:00Z",
                   "concurrency": $CONCURRENCY } ] }
EOB
done


# run_variant NAME SELECT MODE [TOPO]: MODE is switches, nohint, segment
# (--segment=<the job's nodes>), consolidate (--segment=1
# --consolidate-segments) or jobtree; TOPO block for topology/block
# (Slurm 24.05+: lib.sh's cluster_use_blocks, the blocks of t2035; default
# topology/tree, leaf switches domA..domD).
run_variant () {
    local name=$1 sel=$2 mode=$3 topo=${4:-tree} prio=${5:-} t0 job off dur gpus team nodes id ids=() begin
    local sx="" jx="${JT_COMPARE_JOBTREE_EXTRA:-}" ce="" most k=0 dbd=0 sam=""
    if [ "$prio" = qos ]; then  # stock's QOS preemption (above)
        dbd=1
        sx="PreemptType=preempt/qos
PreemptMode=REQUEUE
AccountingStorageEnforce=associations,qos"
        sam="add qos low
add qos high Preempt=low PreemptMode=requeue
add account $(awk '!/^#/ && NF { print $5 }' "$WORKLOAD" | sort -u | paste -sd,)
add user root account=$(awk '!/^#/ && NF { print $5 }' "$WORKLOAD" | sort -u | paste -sd,) qos=normal,low,high"
        ce=10
    elif [ -n "$prio" ]; then   # preemption and mixed priorities (above)
        sx="PreemptType=preempt/partition_prio"
        [ "$sel" = jobtree ] && { sx="PreemptType=preempt/jobtree"; jx="MaxWait=30s"; }
        sx+="
PreemptMode=REQUEUE
PartitionName=urgent Nodes=ALL MaxTime=INFINITE State=UP OverSubscribe=NO PriorityTier=10"
        ce=10
    fi
    most=$(awk -v g=$GPN -v k="$SCALE" -v G="$GROUPN" '!/^#/ && NF { n = int(($4 * k + g - 1) / g); if (n > 16) n = 16;
           if (G > 0 && n > G && n % G) n += G - n % G; if (n > m) m = n } END { print m + 0 }' "$WORKLOAD")
    JT_CLUSTER_SELECT=$sel JT_CLUSTER_BUDGETS=$BUDGETS JT_CLUSTER_SLURM_EXTRA=$sx \
    JT_CLUSTER_JOBTREE_EXTRA=$jx JT_CLUSTER_CRED_EXPIRE=$ce \
    JT_CLUSTER_SLURMDBD=$dbd JT_CLUSTER_SACCTMGR=$sam cluster_setup "$BUILD"
    [ "$topo" = block ] && cluster_use_blocks
    cluster_start
    if [ "$prio" = qos ]; then
        wait_for 10 qos_high_preempts_low \
            || bail_out "$name: slurmctld does not know QOS low and high: $(qos_high_preempts_low)"
    fi
    t0=$(( $(date +%s) + 3 ))
    while read -r job off dur gpus team; do
        case $job in '#'*|'') continue ;; esac
        nodes=$(( (gpus * SCALE + GPN - 1) / GPN ))
        [ "$nodes" -le 16 ] || nodes=16
        [ "$GROUPN" -gt 0 ] && [ "$nodes" -gt "$GROUPN" ] && [ $((nodes % GROUPN)) -ne 0 ] \
            && nodes=$(( nodes + GROUPN - nodes % GROUPN ))
        gpus=$(( nodes * GPN < gpus * SCALE ? nodes * GPN : gpus * SCALE ))
        local seg=$nodes grp=$gpus
        if [ "$GROUPN" -gt 0 ] && [ "$nodes" -gt "$GROUPN" ]; then
            seg=$GROUPN grp=$(( GROUPN * GPN )) gpus=$(( nodes * GPN ))
        fi
        begin=$(date -d "@$((t0 + off))" +%Y-%m-%dT%H:%M:%S)
        local extra=()
        if [ -n "$prio" ]; then
            local top=(-p urgent) low=()
            [ "$prio" = qos ] && top=(--qos=high) low=(--qos=low)
            if [ "$nodes" = "$most" ]; then extra+=("${top[@]}")
            else extra+=("${low[@]}" --nice=$(( (k % 3) * 50 ))); k=$((k + 1)); fi
        fi
        if [ -n "${JT_COMPARE_LIMIT:-}" ]; then
            extra+=(-t "$(awk -v d="$dur" -v f="$JT_COMPARE_LIMIT" \
                         'BEGIN { m = d * f / 60; print (m == int(m) ? m : int(m) + 1) }')")
        fi
        case $mode in
            switches) extra+=(--switches=1) ;;
            segment) if [ "$nodes" -gt 1 ]; then extra+=(--segment="$seg"); fi ;;
            consolidate) if [ "$nodes" -gt 1 ]; then
                             extra+=(--segment=$(( seg < nodes ? seg : 1 )) --consolidate-segments); fi ;;
            jobtree) extra+=(--group-gpus="$grp") ;;
        esac
        id=$(submit --account="$team" -J "$job" -N "$nodes" --gres=gpu:h100:$GPN \
             --begin="$begin" "${extra[@]}" --wrap "sleep $dur")
        [ -n "$id" ] || bail_out "$name: $job not submitted: $(last_err)"
        ids+=("$id")
    done < "$WORKLOAD"
    wait_for 600 queue_empty \
        || bail_out "$name: jobs still queued after 600 s"
    for id in "${ids[@]}"; do
        echo "$id $(job_field "$id" JobState) $(job_field "$id" EligibleTime)" \
             "$(job_field "$id" StartTime) $(job_field "$id" EndTime)" \
             "$(scontrol show hostnames "$(job_field "$id" NodeList)" | paste -sd,)" \
             "$(job_field "$id" Restarts)"
    done > "$RESULTS/$name.jobs"
    cluster_stop
}

# summarize NAME: "splits multinode makespan_s mean_wait_s failed p95_wait_s
# big_wait_s overtaken util rest_wait_s requeued": big_* are the jobs of the
# most nodes (the whole-domain runs); overtaken is how many later-eligible
# jobs started before each of them (mean); util is node-seconds run over 16
# nodes x makespan (every job holds whole nodes); rest_wait_s the mean wait
# of the other jobs; requeued the jobs that were requeued (Restarts > 0; a
# requeued job's wait runs from its last eligibility to its last start).
summarize () {
    python3 - "$RESULTS/$1.jobs" "$GROUPN" <<'EOP'
import sys, datetime
def ts(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S").timestamp()
split = multi = failed = requeued = over_blocks = 0
G = int(sys.argv[2]) if len(sys.argv) > 2 else 0
jobs = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 6 or f[1] != "COMPLETED":
        failed += 1
        continue
    requeued += len(f) > 6 and f[6].isdigit() and int(f[6]) > 0
    nodes = f[5].split(",")
    idx = [int(n[3:]) - 1 for n in nodes]
    doms = {i // 4 for i in idx}
    if len(nodes) > 1:
        multi += 1
        if G > 0 and len(nodes) > G:    # a group crossed a domain
            split += any(sum(1 for i in idx if i // 4 == d) % G for d in doms)
        else:
            split += len(doms) > 1
        over_blocks += len({i // 8 for i in idx}) > (len(nodes) + 7) // 8
    jobs.append((ts(f[2]), ts(f[3]), ts(f[4]), len(nodes)))
if not jobs:
    print(split, multi, 0, "0.0", failed, "0.0", "0.0", "0.0", "0.000", "0.0", requeued, 0)
    sys.exit(0)
first = min(j[0] for j in jobs)
span = max(max(j[2] for j in jobs) - first, 1)
waits = sorted(j[1] - j[0] for j in jobs)
p95 = waits[min(len(waits) - 1, int(0.95 * len(waits)))]
most = max(j[3] for j in jobs)
big = [j for j in jobs if j[3] == most]
over = [sum(1 for o in jobs if o[0] > b[0] and o[1] < b[1]) for b in big]
util = sum((j[2] - j[1]) * j[3] for j in jobs) / (16 * span)
rest = [j[1] - j[0] for j in jobs if j[3] != most]
print(split, multi, int(span), "%.1f" % (sum(waits) / len(waits)), failed,
      "%.1f" % p95, "%.1f" % (sum(b[1] - b[0] for b in big) / len(big)),
      "%.1f" % (sum(over) / len(over)), "%.3f" % util,
      "%.1f" % (sum(rest) / len(rest) if rest else 0.0), requeued, over_blocks)
EOP
}

for v in $VARIANTS; do
    case $v in
        stock-switches) run_variant stock-switches cons_tres switches ;;
        stock-nohint) run_variant stock-nohint cons_tres nohint ;;
        stock-block) run_variant stock-block cons_tres nohint block ;;
        stock-block-segment) run_variant stock-block-segment cons_tres segment block ;;
        stock-block-consolidate) run_variant stock-block-consolidate cons_tres consolidate block ;;
        jobtree-block) run_variant jobtree-block jobtree jobtree block ;;
        jobtree-block-levels)
            JT_COMPARE_JOBTREE_EXTRA="FabricLevels=block,spine" \
                run_variant jobtree-block-levels jobtree jobtree block ;;
        jobtree) run_variant jobtree jobtree jobtree ;;
        stock-switches-preempt) run_variant stock-switches-preempt cons_tres switches tree prio ;;
        stock-switches-qos) run_variant stock-switches-qos cons_tres switches tree qos ;;
        jobtree-maxwait) run_variant jobtree-maxwait jobtree jobtree tree prio ;;
        jobtree-packtoempty)    # slurmctld's environment selects the pack policy
            JOBTREE_PACK_POLICY=pack-to-empty run_variant jobtree-packtoempty jobtree jobtree ;;
        *) bail_out "unknown variant $v" ;;
    esac
done

echo "# variant                split/multi-node  makespan_s  mean_wait_s  failed  p95_wait_s  big_wait_s  overtaken  util   rest_wait_s  requeued  over_blocks"
for v in $VARIANTS; do
    read -r s m mk w f p95 bw ov u rw rq ob <<< "$(summarize $v)"
    printf "# %-22s %5s/%-11s %10s  %11s  %6s  %10s  %10s  %9s  %s  %11s  %8s  %11s\n" \
        "$v" "$s" "$m" "$mk" "$w" "$f" "$p95" "$bw" "$ov" "$u" "$rw" "$rq" "$ob"
    eval "split_${v//-/_}=$s; failed_${v//-/_}=$f; multi_${v//-/_}=$m"
    [ "$m" -gt "${multi_any:-0}" ] && multi_any=$m
done
# each check is about one variant: skipped (not passed) when it did not run
ran () { case " $VARIANTS " in *" $1 "*) return 0 ;; esac; skip "variant $1 not run"; return 1; }
ran jobtree && is "$failed_jobtree" 0 "every job completed under Jobtree"
ran stock-nohint && is "$failed_stock_nohint" 0 "every job completed under stock cons_tres"
ok "$(test "${multi_any:-0}" -gt 0; echo $?)" \
   "the workload has multi-node jobs (${multi_any:-0})"
ran jobtree && is "$split_jobtree" 0 "Jobtree split no group across domains"
ran jobtree-maxwait && is "$failed_jobtree_maxwait" 0 "every job completed under Jobtree with MaxWait"
ran jobtree-maxwait && is "$split_jobtree_maxwait" 0 "Jobtree with MaxWait split no group across domains"
ran jobtree-packtoempty && is "$split_jobtree_packtoempty" 0 "Jobtree (pack-to-empty) split no group across domains"
ran jobtree-block && is "$split_jobtree_block" 0 "Jobtree (topology/block) split no group across blocks"
ran jobtree-block-levels && is "$split_jobtree_block_levels" 0 "Jobtree (topology/block, two levels) split no group across blocks"
[ -n "${JT_COMPARE_KEEP:-}" ] && echo "# results kept in $RESULTS" || rm -rf "$RESULTS"
done_testing
