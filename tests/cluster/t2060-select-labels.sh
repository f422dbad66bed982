#!/bin/bash
# t2060-select-labels.sh - node labels on a real cluster (issue 14):
# --group-by=rack puts a group (and, with --cross-group-spread=no, the
# whole run) on the nodes of one rack where plain domain packing spans two;
# --node-constraint keeps only the nodes whose labels satisfy it, a run that
# only busy nodes satisfy waits with a reason naming the constraint and
# starts on them once they free; what can never run is refused at
# submission with its exact line (a type error naming label, value and
# node; a constraint nobody satisfies; a group-by label nobody has; a value
# that does not parse, by sbatch itself).
#
# Cluster: see t2000-select.sh (team-a's a-west-h100 pays in A and B).
# Racks (lib.sh): r1 = gpu01-02, r2 = gpu03-04 (A), r3 = gpu05-06,
# r4 = gpu07-08 (B). Extra labels: gpu.mem 80 on gpu01-02, 40 on gpu03-08;
# nic.fw 22 on gpu01-03, 22.3a on gpu04 (not a number).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 19
JT_CLUSTER_SELECT=jobtree
JT_CLUSTER_FEATURES_gpu01="gpu.mem=80,nic.fw=22"
JT_CLUSTER_FEATURES_gpu02="gpu.mem=80,nic.fw=22"
JT_CLUSTER_FEATURES_gpu03="gpu.mem=40,nic.fw=22"
JT_CLUSTER_FEATURES_gpu04="gpu.mem=40,nic.fw=22.3a"
for i in 5 6 7 8; do eval "JT_CLUSTER_FEATURES_gpu0$i=gpu.mem=40"; done
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
G8="--gres=gpu:h100:8"

reset_cluster () {
    scancel --quiet --user="$(id -un)"
    wait_for 20 queue_empty
    wait_for 20 _all_idle
}

# Every node of a hostlist idle (prints what it saw, for wait_for).
nodes_idle () {
    local st
    st=$(sinfo -h -N -n "$1" -o %t 2>/dev/null | sort -u | paste -sd, -)
    echo "$1: $st"
    [ "$st" = idle ]
}

# The racks of a job's nodes, distinct, comma-separated ("r2" or "r1,r2").
job_racks () {
    scontrol show hostnames "$(job_field "$1" NodeList)" 2>/dev/null \
        | while read -r n; do n=${n#gpu}; echo "r$(( (10#$n - 1) / 2 + 1 ))"; done \
        | sort -u | paste -sd, -
}

# Refused at submission: no job, and job_submit's (or sbatch's) line.
refused () {    # refused "OPTS" LINE
    local id
    id=$(eval submit "$1" --wrap true)
    is "$id" "" "refused at submission: sbatch $1"
    is "$(grep -m1 'error: jobtree:' "$JT_CLUSTER_DIR/last.err")" \
        "sbatch: error: jobtree: $2" "with its line: $2"
}

## 1. Group-by: with gpu01 and gpu05 busy, A and B have 24 GPUs free each.
##    Plain domain packing takes gpu02+gpu03 (racks r1 and r2); grouped by
##    rack the group goes to the most free rack, r2 (gpu03+gpu04).
b1=$(submit -N1 $G8 -w gpu01 --wrap "sleep 600")
b5=$(submit -N1 $G8 -w gpu05 --wrap "sleep 600")
wait_job_state "$b1" RUNNING 15 || bail_out "blocker on gpu01 does not start"
wait_job_state "$b5" RUNNING 15 || bail_out "blocker on gpu05 does not start"
plain=$(submit --account=team-a -N2 $G8 --group-gpus=16 --wrap "sleep 600")
wait_job_state "$plain" RUNNING 15
is "$(job_field "$plain" NodeList) $(job_racks "$plain")" "gpu[02-03] r1,r2" \
    "without --group-by the group spans racks r1 and r2 (one domain)"
scancel "$plain"
wait_for 20 job_field_like "$plain" JobState '^(CANCELLED|COMPLETED)$'
wait_for 20 nodes_idle "gpu[02-03]"
grouped=$(submit --account=team-a -N2 $G8 --group-gpus=16 --group-by=rack --wrap "sleep 600")
wait_job_state "$grouped" RUNNING 15
is "$(job_field "$grouped" NodeList) $(job_racks "$grouped")" "gpu[03-04] r2" \
    "--group-by=rack: the group on the two nodes of rack r2"
scancel "$grouped"
wait_for 20 job_field_like "$grouped" JobState '^(CANCELLED|COMPLETED)$'
wait_for 20 nodes_idle "gpu[03-04]"

## 2. Spread off with group-by: two groups of 8, the whole run on one rack
##    (Plan places group by group; the second follows the first).
spread=$(submit --account=team-a -N2 $G8 --group-gpus=8 --cross-group-spread=no \
         --group-by=rack --wrap "sleep 600")
wait_job_state "$spread" RUNNING 15
is "$(job_racks "$spread")" "r2" "--cross-group-spread=no --group-by=rack: both groups in rack r2"
reset_cluster

## 3. A constraint only busy nodes satisfy: the run waits, naming it, and
##    starts on those nodes when they free.
b1=$(submit -N1 $G8 -w gpu01 --wrap "sleep 600")
wait_job_state "$b1" RUNNING 15 || bail_out "blocker on gpu01 does not start"
big=$(submit --account=team-a -N2 $G8 --group-gpus=16 --node-constraint='gpu.mem GE 80' \
      --wrap "sleep 600")
# (jobtree explain sets a closing aside on its own line: "| nodes where")
wait_for 20 why_like "$big" 'fits no domain: [^|]* \| nodes where gpu\.mem GE 80'
is "$(job_field "$big" JobState)" PENDING "gpu.mem GE 80 holds on gpu01-02 only, gpu01 busy: waits"
like "$JT_WHY_SEEN" "fits no domain: [^|]* \| nodes where gpu\.mem GE 80" "its explanation names the constraint: $JT_WHY_SEEN"
is "$(job_field "$big" AdminComment | grep -o '"nodeConstraints":\[[^]]*\]')" \
    '"nodeConstraints":["gpu.mem GE 80"]' "the run record carries the constraint"
scancel "$b1"
wait_job_state "$big" RUNNING 30
is "$(job_field "$big" NodeList)" "gpu[01-02]" "it starts on the two 80 GB nodes once gpu01 frees"
reset_cluster

## 4. Composes with the envelope: team-a pays in the west; a constraint
##    that west nodes satisfy (gpu.mem EQ 40, rack NE r2) leaves gpu05-08.
both=$(submit --account=team-a -N2 $G8 --group-gpus=16 --node-constraint='gpu.mem EQ 40' \
       --node-constraint='rack NE r2' --wrap "sleep 600")
wait_job_state "$both" RUNNING 15
is "$(job_field "$both" NodeList)" "gpu[05-06]" \
    "two constraints and the envelope's selector: B's first two nodes"
reset_cluster

## 5. The options in #SBATCH lines: quoted blanks, repeats, and the command
##    line's copy added once (sbatch reads the command line twice).
printf '%s\n' '#!/bin/sh' '#SBATCH --node-constraint="gpu.mem EQ 40"' \
    "#SBATCH --node-constraint='rack NE r2'" '#SBATCH --group-by=rack' 'sleep 600' \
    > "$JT_CLUSTER_DIR/labels.sh"
scr=$(submit --account=team-a -N2 $G8 --group-gpus=16 --node-constraint='nic.fw NOT_EXISTS' \
      "$JT_CLUSTER_DIR/labels.sh")
wait_job_state "$scr" RUNNING 15
is "$(job_field "$scr" AdminComment | grep -o '"nodeConstraints":\[[^]]*\]')" \
    '"nodeConstraints":["gpu.mem EQ 40","rack NE r2","nic.fw NOT_EXISTS"]' \
    "#SBATCH lines, then the command line: three constraints, each once"
is "$(job_field "$scr" NodeList) $(job_racks "$scr")" "gpu[05-06] r3" "on one rack of B"
reset_cluster

## 6. Never runnable: refused at submission, each with its line.
refused "--account=team-a -N1 $G8 --node-constraint='nic.fw GE 20'" \
    "--node-constraint='nic.fw GE 20': nic.fw is not a number on h100 nodes: nic.fw=22.3a on gpu04"
refused "--account=team-a -N1 $G8 --node-constraint='gpu.mem GE 100'" \
    "never runnable: no h100 node satisfies --node-constraint='gpu.mem GE 100' (gpu.mem on h100 nodes: 80, 40)"
refused "--account=team-a -N1 $G8 --group-by=tpu-name" \
    "never runnable: no h100 node has the label tpu-name (--group-by=tpu-name)"
refused "--account=team-a -N1 $G8 --node-constraint='gpu.mem GE big'" \
    "--node-constraint: 'gpu.mem GE big': GE compares numbers and 'big' is not one (an optional -, at most 12 digits, optionally . and at most 6 more), e.g. --node-constraint='gpu.mem GE 80'"
is "$(squeue -h | wc -l)" 0 "nothing reached the queue"

done_testing
