#!/bin/bash
# t2070-score.sh - the ordering score on a real cluster (issue 14):
# site_factor/jobtree under priority/multifactor gives each waiting Jobtree
# run round(score x ScoreScale) as its site factor, with the profile of its
# partition; two profiles give two queue orders for the same two runs,
# visible in sprio's SITE column and in squeue's priority order.
#
# Cluster: see t2000-select.sh (team-a's a-west-h100, 64 GPUs, pays in A and
# B). Partition gpu weighs with "ckpt" (checkpoint only), partition p2 with
# "topo" (topology only). Every node is held by a plain exclusive job, so
# the runs wait and keep the priority set at submission.
. "$(dirname "$0")/lib.sh"

plan 9
JT_CLUSTER_SELECT=jobtree
JT_CLUSTER_SLURM_EXTRA="PriorityType=priority/multifactor
PrioritySiteFactorPlugin=site_factor/jobtree
PriorityWeightAge=0
PriorityWeightFairshare=0
PriorityWeightJobSize=0
PriorityWeightPartition=0
PriorityWeightQOS=0
PartitionName=p2 Nodes=ALL State=UP OverSubscribe=NO"
JT_CLUSTER_JOBTREE_EXTRA="ScoreProfile=ckpt:checkpoint=1
ScoreProfile=topo:topology=1
ScorePartitionProfile=gpu:ckpt,p2:topo"
cluster_setup "${1:?usage: $0 BUILDDIR}"
so=$JT_BUILDDIR/plugins/site_factor/.libs/site_factor_jobtree.so
[ -f "$so" ] || bail_out "$so not built"
ln -s "$so" "$JT_CLUSTER_DIR/plugins/"
cluster_start
G8="--gres=gpu:h100:8"

# The SITE factor sprio shows for a job.
site () { sprio -h -j "$1" -o "%S" 2>/dev/null | tr -d ' '; }
# Pending jobs of a partition, highest priority first (ties: job id).
queue_order () { squeue -h -t PD -p "$1" --sort=-p,i -o %i 2>/dev/null | paste -sd' ' -; }
# A job is listed by sprio (pending, eligible, priority set).
in_sprio () { local s; s=$(site "$1"); echo "job $1 site: $s"; [ -n "$s" ]; }

## 1. Two profiles, two orders. A: two groups of 4 nodes (two of the four
##    domains), checkpointing every 10 min; B: one node, no checkpoint.
##    (B has --group-gpus: a plain one-node GPU job is no run.)
##    ckpt: A 1/(1+10) = 0.0909 -> 909, B 0. topo: A 1 - 2/4 -> 5000,
##    B 1 - 1/4 -> 7500.
hold=$(submit -N16 --exclusive --wrap "sleep 600")
wait_job_state "$hold" RUNNING 30 || bail_out "the plain job holding every node does not start"
a1=$(submit -p gpu --account=team-a -N8 $G8 --group-gpus=32 --checkpoint=10 --wrap "sleep 60")
b1=$(submit -p gpu --account=team-a -N1 $G8 --group-gpus=8 --wrap "sleep 60")
a2=$(submit -p p2 --account=team-a -N8 $G8 --group-gpus=32 --checkpoint=10 --wrap "sleep 60")
b2=$(submit -p p2 --account=team-a -N1 $G8 --group-gpus=8 --wrap "sleep 60")
for j in "$a1" "$b1" "$a2" "$b2"; do
    [ -n "$j" ] || bail_out "a run was refused: $(last_err)"
    wait_for 20 in_sprio "$j" || bail_out "job $j not in sprio"
done
is "$(site "$a1") $(site "$b1")" "909 0" \
    "partition gpu (ckpt): site factors 909 (checkpoint 10 min) and 0 (none)"
is "$(site "$a2") $(site "$b2")" "5000 7500" \
    "partition p2 (topo): site factors 5000 (two of four domains) and 7500 (one)"
is "$(queue_order gpu)" "$a1 $b1" "ckpt orders the checkpointing run first"
is "$(queue_order p2)" "$b2 $a2" "topo orders the one-domain run first"
like "$(job_field "$a1" AdminComment)" '"checkpoint":600' \
    "the record carries the checkpoint the score read"

## 2. The score never decides who gives way: preempt/jobtree is not loaded
##    here and the site factor is only the priority's; the priorities
##    equal the site factors (every other weight 0, B at the floor 1).
is "$(squeue -h -j "$a1" -o %Q)" 909 "priority = site factor (909)"
is "$(squeue -h -j "$b1" -o %Q)" 1 "a zero score is priority 1 (0 means held)"

## 3. A reconfigure with another mapping re-weighs at the next priority
##    pass; a new submission gets the new profile at once.
sed -i 's/^ScorePartitionProfile=.*/ScorePartitionProfile=gpu:topo,p2:ckpt/' \
    "$JT_CLUSTER_DIR/etc/jobtree.conf"
scontrol reconfigure
a3=$(submit -p gpu --account=team-a -N8 $G8 --group-gpus=32 --checkpoint=10 --wrap "sleep 60")
wait_for 20 in_sprio "$a3"
is "$(site "$a3")" 5000 "after reconfigure, gpu weighs with topo: the same run scores 5000"

## 4. Plain jobs keep Slurm's site factor.
p=$(submit -p gpu -N1 --wrap "sleep 60")
wait_for 20 in_sprio "$p"
is "$(site "$p")" 0 "a plain job's site factor stays 0"
