#!/bin/bash
# t2041-select-levels-activation.sh - activation's victim search over
# fabric levels on a live slurmctld (issue 33): a waiting run of two
# domains reaches its MaxWait and the lottery clears one block for it, not
# the pieces of two blocks that are most free.
#
# Cluster: 16 nodes, 4 domains of 4 (A gpu01-04, B gpu05-08, C gpu09-12,
# D gpu13-16) under 2 blocks (B1: A B, B2: C D; node features
# fabric.block=...), jobtree.conf FabricLevels=block, MaxWait=20s,
# preempt/jobtree with PreemptMode=REQUEUE. Two one-node runs on A, four
# on B, two on C, a plain 4-node job on D. The run: 8 nodes in 2 groups of
# 4 (64 GPUs), funded, may spread; no domain has 4 free nodes, so it waits
# under a reservation. At MaxWait its alternatives are block B1 (A: 16
# short, B: 32 short; six runs give way), block B2 (D's plain job never
# gives way: none) and the most free domains A and C across both blocks
# (16 and 16 short; four runs). Both alternatives return a GPU freed per
# GPU taken, and one block cleared wins over pieces of two: the six runs
# of B1 are requeued, C's two keep running, the run starts on A and B, the
# Activation in the ledger needs A and B, and `jobtree verify` replays it.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 12
for i in $(seq 1 16); do
    eval "JT_CLUSTER_FEATURES_$(printf gpu%02d "$i")=fabric.block=B$(( (i - 1) / 8 + 1 ))"
done
bud=$(mktemp -d /tmp/jt-levels-act-budgets.XXXXXX) || bail_out "mktemp"
for o in lv:128 team-b:64 team-d:64; do
    cat > "$bud/${o%%:*}.json" <<JSON
{ "owner": "${o%%:*}",
  "envelopes": [ { "name": "${o%%:*}-h100", "flavor": "h100", "selector": { },
                   "start": "2026-01-01T00:00:00Z", "end": "2031-01-01T00:00:00Z",
                   "concurrency": ${o##*:} } ] }
JSON
done
JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$bud JT_CLUSTER_CRED_EXPIRE=10 JT_CLUSTER_SLURM_EXTRA="PreemptType=preempt/jobtree
PreemptMode=REQUEUE" JT_CLUSTER_JOBTREE_EXTRA="MaxWait=20s
FabricLevels=block" cluster_setup "${1:?usage: $0 BUILDDIR}"
rm -rf "$bud"
cluster_start

plain=$(submit -N4 --exclusive --constraint=fabric.domain=D -t 10 --wrap "sleep 600")
wait_job_state "$plain" RUNNING 15 || bail_out "the plain job does not start"
declare -A dom_of
runs=()
for spec in A:team-b A:team-b B:team-b B:team-b B:team-d B:team-d C:team-d C:team-d; do
    j=$(submit --account="${spec#*:}" -N1 --gres=gpu:h100:8 --group-gpus=8 \
               --constraint=fabric.domain="${spec%%:*}" -t 10 --wrap \
               'if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then sleep 1; else sleep 600; fi')
    wait_job_state "$j" RUNNING 15 || bail_out "run $j on ${spec%%:*} does not start"
    runs+=("$j")
    dom_of[$j]=${spec%%:*}
done
is "$(for j in "${runs[@]}"; do job_domains "$j"; done | paste -sd, -)" "A,A,B,B,B,B,C,C" \
   "two runs on A, four on B, two on C; D is the plain job's"

big=$(submit --account=lv -N8 --gres=gpu:h100:8 --group-gpus=32 -t 2 --wrap "sleep 5")
wait_for 30 reason_like "$big" '^jobtree: [^;]+; reserved ' \
    || bail_out "no reservation: $(job_field "$big" Reason)"
wait_for 20 ledger_resv_of "$big" >/dev/null
ok $? "the 2-domain run waits under a reservation ($(ledger_resv_of "$big")): $(reason_like "$big" . | sed 's/^job [0-9]* reason: //')"

wait_job_state "$big" "RUNNING|COMPLETING|COMPLETED" 120 \
    || bail_out "the run did not start after MaxWait: $(job_field "$big" Reason)"
is "$(job_domains "$big")" "A,B" "it starts on A and B: block B1, cleared whole"
gone=() kept=()
for j in "${runs[@]}"; do
    if [ "$(job_field "$j" Restarts)" -ge 1 ] 2>/dev/null; then gone+=("${dom_of[$j]}")
    else kept+=("${dom_of[$j]}/$(job_field "$j" JobState)"); fi
done
is "$(IFS=,; echo "${gone[*]}")" "A,A,B,B,B,B" "the six runs of block B1 were requeued"
is "$(IFS=,; echo "${kept[*]}")" "C/RUNNING,C/RUNNING" \
   "C's two runs still run: no pieces of block B2 were taken"
is "$(job_field "$plain" JobState) $(job_field "$plain" Restarts)" "RUNNING 0" \
   "the plain job on D was never preempted"
grep -Eq "reservation jtc:$big:resv:[0-9]+ activates \(MaxWait\) at .* in block B1 \(west/c1/A,west/c1/B\): 48 GPUs short, 6 run" \
    "$JT_CLUSTER_DIR/log/slurmctld.log"
ok $? "slurmctld's log names the block cleared: $(grep -o 'activates (MaxWait) at .* in [^:]*: [0-9]* GPUs short' "$JT_CLUSTER_DIR/log/slurmctld.log" | head -1)"

_act () { grep -h '"type":"Activation"' "$JT_LEDGER_DIR"/ledger-*.jtl; }
_settled () { [ -n "$(_act)" ]; }
wait_for 30 _settled || bail_out "no Activation in the ledger"
is "$(ledger_payloads | grep '"type":"Activation"' | python3 -c 'import json, sys
ev = json.loads(sys.stdin.readline())
print(" ".join("%s:%d" % (n["pool"], n["deficit"]) for n in ev["needs"]))')" \
   "west/c1/A:16 west/c1/B:32" "the Activation needs room in A and B, a need per domain"
seed=$(_act | grep -o '"seed":"[0-9a-f]*"' | head -n1)

# The victims run again and finish; then verify replays the lottery.
activation_victims_rerun 120 6 "$plain" "$seed" "${runs[@]}"
done_testing
