#!/bin/bash
# t2045-select-funding-hold.sh - a reservation holds its funding as
# backfill holds its nodes (issue 8): a run of the same envelope that would
# still be running when a reserved run is to start may not take the GPUs
# that run waits for, even on free nodes the reservation does not hold; a
# run that ends before then may. Without the hold, small runs take every
# GPU that frees and the reserved run's start slips behind each of them.
#
# Cluster: see t2000-select.sh, with team-a's a-west-h100 cut to 40 GPUs
# (5 nodes) so the reserved run (4 nodes) is short of funding while bB
# runs: 8 (bA) + 16 (bB) + 32 > 40.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 9
BUD=$(mktemp -d /tmp/jt-hold-budgets.XXXXXX)
for f in team-a small; do
    cp "$(dirname "$0")/../../etc/slurm/test-cluster/budgets/$f.json" "$BUD/"
done
sed -i 's/"concurrency": 64/"concurrency": 40/' "$BUD/team-a.json"
JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$BUD cluster_setup "${1:?usage: $0 BUILDDIR}"
rm -rf "$BUD"     # copied into the cluster's directory
cluster_start
G8="--gres=gpu:h100:8"

# bA: one node of A for long; bB: two more nodes of A (best-fit: the
# smallest domain that holds it) until it ends (20 s; its 3-min limit is
# what backfill plans with). B, C and D stay idle: the 4-node run below is
# short of funding, not of room.
bA=$(submit --account=team-a -N1 $G8 --group-gpus=8 -t 10 --wrap "sleep 600")
wait_job_state "$bA" RUNNING 15 || bail_out "bA does not start"
bB=$(submit --account=team-a -N2 $G8 --group-gpus=16 -t 3 --wrap "sleep 20")
wait_job_state "$bB" RUNNING 15 || bail_out "bB does not start"
is "$(job_domains "$bA") $(job_domains "$bB")" "A A" "bA holds a node of A, bB two more of A"

big=$(submit --account=team-a -N4 $G8 --group-gpus=32 -t 2 --wrap "sleep 5")
wait_for 20 reason_like "$big" '^jobtree: [^;]+; reserved [^ ]*/B from [0-9T:-]+Z$' \
    || bail_out "no reservation in B"
ok 0 "the 4-node run is reserved in idle B from bB's limit (when funding frees)"

# A's free node is not the reservation's. A run of team-a's that
# would still be running at the reserved start waits for funding; one that
# ends before it starts now.
long=$(submit --account=team-a -N1 $G8 --group-gpus=8 -t 5 --wrap "sleep 2")
short=$(submit --account=team-a -N1 $G8 --group-gpus=8 -t 1 --wrap "sleep 2")
wait_job_state "$short" "RUNNING|COMPLETING|COMPLETED" 15
ok $? "the short run (ends before the reserved start) starts at once ($(job_field "$short" JobState))"
is "$(job_domains "$short")" "A" "on A's free node"
wait_for 10 reason_like "$long" '^jobtree: 32 GPUs held for runs reserved ahead at [0-9T:Z-]+$'
ok $? "the long run waits for the funding held for the reserved run, and squeue says so: $JT_REASON_SEEN"
wait_for 10 why_like "$long" '^32 GPUs held for runs reserved ahead at [0-9T:Z-]+ \| envelope a-west-h100: [0-9]+ of [0-9]+ GPUs active, run needs 8'
ok $? "its explanation names the envelope's bound then: $JT_WHY_SEEN"

wait_job_state "$big" "RUNNING|COMPLETING|COMPLETED" 60 \
    || bail_out "the reserved run did not start: $(job_field "$big" Reason)"
bB_end=$(epoch "$(job_field "$bB" EndTime)")
big_start=$(epoch "$(job_field "$big" StartTime)")
ok "$(test "$big_start" -le $((bB_end + 5)); echo $?)" \
   "the reserved run starts as soon as bB ends ($big_start, bB ended $bB_end)"
wait_job_state "$long" "RUNNING|COMPLETING|COMPLETED" 60
long_start=$(epoch "$(job_field "$long" StartTime)")
ok "$(test "$long_start" -ge "$big_start"; echo $?)" \
   "the long run starts only after it ($long_start >= $big_start)"

scancel "$bA"
wait_for 30 queue_empty
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $(tail -n1 <<< "$out")"
done_testing
