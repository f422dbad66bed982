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
#
# Then conformance (node label conformance=<hash>): A holds gpu01 (y) and
# gpu02-04 (x), B gpu05-08 (x y z w). A two-node group prefers two x nodes
# of A over gpu01+gpu02 by name; with A busy, --conformance=strict waits
# (B has no two alike) while the default mixes in B; once A frees, the
# strict run starts on two x nodes.
#
# Last, sibling failure (seed 003) with KillOnBadExit=1 (docs/score.md):
# one task of a two-node run exits 3, its sibling is killed and both
# nodes are released; with srun -K0 (Slurm's default, KillOnBadExit=0)
# the sibling goes on, which is why Jobtree clusters set it.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 21
JT_CLUSTER_SELECT=jobtree
JT_CLUSTER_SLURM_EXTRA="PriorityType=priority/multifactor
PrioritySiteFactorPlugin=site_factor/jobtree
PriorityWeightAge=0
PriorityWeightFairshare=0
PriorityWeightJobSize=0
PriorityWeightPartition=0
PriorityWeightQOS=0
KillOnBadExit=1
PartitionName=p2 Nodes=ALL State=UP OverSubscribe=NO"
JT_CLUSTER_JOBTREE_EXTRA="ScoreProfile=ckpt:checkpoint=1
ScoreProfile=topo:topology=1
ScorePartitionProfile=gpu:ckpt,p2:topo"
JT_CLUSTER_FEATURES_gpu01="conformance=y"
for i in 2 3 4 5; do eval "JT_CLUSTER_FEATURES_gpu0$i=conformance=x"; done
JT_CLUSTER_FEATURES_gpu06="conformance=y"
JT_CLUSTER_FEATURES_gpu07="conformance=z"
JT_CLUSTER_FEATURES_gpu08="conformance=w"
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
cluster_reconfigure
a3=$(submit -p gpu --account=team-a -N8 $G8 --group-gpus=32 --checkpoint=10 --wrap "sleep 60")
wait_for 20 in_sprio "$a3"
is "$(site "$a3")" 5000 "after reconfigure, gpu weighs with topo: the same run scores 5000"

## 4. Plain jobs keep Slurm's site factor.
p=$(submit -p gpu -N1 --wrap "sleep 60")
wait_for 20 in_sprio "$p"
is "$(site "$p")" 0 "a plain job's site factor stays 0"

reset_cluster () {
    scancel --quiet --user="$(id -un)"
    wait_for 30 queue_empty
    wait_for 30 _all_idle
}
nodes_idle () {
    local st
    st=$(sinfo -h -N -n "$1" -o %t 2>/dev/null | sort -u | paste -sd, -)
    echo "$1: $st"
    [ "$st" = idle ]
}
reset_cluster

## 5. Conformance preferred: pack-to-empty picks A (tie with B, by name);
##    inside A the two x nodes, not gpu01 (y) + gpu02 by name.
pref=$(submit --account=team-a -N2 $G8 --group-gpus=16 --wrap "sleep 600")
wait_job_state "$pref" RUNNING 30
is "$(job_field "$pref" NodeList)" "gpu[02-03]" "prefer: two nodes of fingerprint x in A"
scancel "$pref"
wait_for 30 nodes_idle "gpu[02-03]"

## 6. Strict: with A busy, the strict run waits (B has x y z w) and says
##    why, and reserves nothing in B (its estimate is per fingerprint class,
##    as for --group-by); a default run then mixes in B (classes of one, by
##    fingerprint: w, x); once A frees, the strict run starts on two x nodes.
blk=$(submit -N4 --exclusive -w "gpu[01-04]" --wrap "sleep 600")
wait_job_state "$blk" RUNNING 30 || bail_out "the job holding A does not start"
strict=$(submit --account=team-a -N2 $G8 --group-gpus=16 --conformance=strict --wrap "sleep 600")
[ -n "$strict" ] || bail_out "the strict run was refused: $(last_err)"
like "$(job_field "$strict" AdminComment)" '"conformance":"strict"' "the record carries strict"
wait_for 30 why_like "$strict" 'grouped by conformance'
is "$(job_field "$strict" JobState)" PENDING "strict waits rather than mix: $(squeue -h -j "$strict" -o %r)"
mix=$(submit --account=team-a -N2 $G8 --group-gpus=16 --wrap "sleep 600")
wait_job_state "$mix" RUNNING 30
is "$(job_field "$mix" NodeList)" "gpu[05,08]" \
    "prefer mixes when no two nodes match (w, then x); the strict run holds nothing in B"
scancel "$blk"
wait_job_state "$strict" RUNNING 60
is "$(job_field "$strict" NodeList)" "gpu[02-03]" "strict starts on two x nodes once A frees"
like "$(job_field "$strict" AdminComment)" '"nodes":\["gpu02","gpu03"\],"conformance":"x"' \
    "its bound lease records the fingerprint it runs on"
# The conformance of the run's Start in the ledger (what wait_for shows).
start_conf () {
    local c
    c=$(cat "$JT_LEDGER_DIR"/ledger-*.jtl 2>/dev/null | grep '"type":"Start"' \
        | grep "\"run\":\"jtc:$1\"" | grep -o '"conformance":"[^"]*"' | head -n 1)
    echo "Start of job $1: ${c:-none yet}"
    [ -n "$c" ]
}
wait_for 30 start_conf "$strict"
is "$(start_conf "$strict")" 'Start of job '"$strict"': "conformance":"x"' \
    "the ledger's Start records it too"
reset_cluster

## 7. Sibling failure: task 1 writes its PID and waits for a file that never
##    comes; task 0 then exits 3; the step is killed (task 1's process is
##    gone), the job fails, both nodes are released.
cat > "$JT_CLUSTER_DIR/gang.sh" <<'GANG'
#!/bin/sh
d=$1
if [ "$SLURM_PROCID" = 0 ]; then
    while [ ! -s "$d/pid.$SLURM_JOB_ID" ]; do sleep 0.2; done
    touch "$d/failed.$SLURM_JOB_ID"; exit 3
fi
echo $$ > "$d/pid.$SLURM_JOB_ID.tmp" && mv "$d/pid.$SLURM_JOB_ID.tmp" "$d/pid.$SLURM_JOB_ID"
while [ ! -e "$d/go.$SLURM_JOB_ID" ]; do sleep 0.2; done
touch "$d/survived.$SLURM_JOB_ID"
GANG
chmod +x "$JT_CLUSTER_DIR/gang.sh"
sib=$(submit --account=team-a -N2 $G8 --group-gpus=16 \
      --wrap "srun -N2 --ntasks-per-node=1 $JT_CLUSTER_DIR/gang.sh $JT_CLUSTER_DIR")
wait_job_state "$sib" "FAILED|COMPLETED" 60
is "$(job_field "$sib" JobState)" FAILED \
    "one task exits 3: the run fails without waiting for the sibling (exit $(job_field "$sib" ExitCode))"
sib_nodes=$(job_field "$sib" NodeList)
wait_for 30 nodes_idle "$sib_nodes"
sibpid=$(cat "$JT_CLUSTER_DIR/pid.$sib" 2>/dev/null)
ok "$([ -n "$sibpid" ] && ! kill -0 "$sibpid" 2>/dev/null; echo $?)" \
   "the sibling task was killed (it had started: pid ${sibpid:-none}; no such process now)"
is "$(sinfo -h -N -n "$sib_nodes" -o %t | sort -u | paste -sd, -)" idle \
    "every node of the run is released ($sib_nodes)"

## 8. What Slurm does without it (srun -K0, the KillOnBadExit=0 default):
##    the sibling goes on after task 0 failed.
k0=$(submit --account=team-a -N2 $G8 --group-gpus=16 \
     --wrap "srun -K0 -N2 --ntasks-per-node=1 $JT_CLUSTER_DIR/gang.sh $JT_CLUSTER_DIR")
wait_for 30 test -e "$JT_CLUSTER_DIR/failed.$k0"
k0pid=$(cat "$JT_CLUSTER_DIR/pid.$k0" 2>/dev/null)
ok "$([ -n "$k0pid" ] && kill -0 "$k0pid" 2>/dev/null; echo $?)" \
   "with -K0 the sibling's process is still there after task 0 failed (what section 7's check would see)"
touch "$JT_CLUSTER_DIR/go.$k0"
wait_for 30 test -e "$JT_CLUSTER_DIR/survived.$k0"
ok $? "with -K0 the sibling outlives the failed task (so Jobtree sets KillOnBadExit=1)"
