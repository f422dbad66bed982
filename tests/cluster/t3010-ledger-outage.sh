#!/bin/bash
# t3010-ledger-outage.sh - the ledger survives jobtree-ledgerd being down:
# a 500-run workload of tiny jobs, the sidecar stopped for part of it and
# restarted; the plugin never blocks (runs keep starting and ending while it
# is down, events go to its spool) and once the spool drains every run has
# exactly one Start and one End per lease, and `jobtree verify` passes.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

N=${JT_OUTAGE_RUNS:-500}
plan 8
JT_CLUSTER_SELECT=jobtree
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
G8="--gres=gpu:h100:8"

njobs_done () { [ "$(squeue -h 2>/dev/null | wc -l)" -le "$1" ]; }
spool_has () { [ -s "$JT_CLUSTER_DIR/ledger-spool/select.spool" ]; }

ids=()
submit_n () {
    local i id
    for i in $(seq 1 "$1"); do
        # team-a (west) and team-b (east): one 8-GPU group each
        if [ $((i % 2)) -eq 0 ]; then id=$(submit --account=team-a -N1 $G8 --group-gpus=8 -t 1 --wrap true)
        else id=$(submit --account=team-b -N1 $G8 --group-gpus=8 -t 1 --wrap true); fi
        [ -n "$id" ] && ids+=("$id")
    done
}

t0=$(date +%s)
submit_n $((N / 3))
diag "submitted $((N / 3)) in $(( $(date +%s) - t0 ))s"
ledger_stop
ok $? "jobtree-ledgerd stopped with $(squeue -h | wc -l) runs queued or running"
submit_n $((N / 3))
wait_for 60 njobs_done $((N / 3))
ok $? "runs keep starting and ending while the sidecar is down"
ok "$(spool_has; echo $?)" "their events wait in the plugin's spool"
ledger_start
submit_n $((N - 2 * (N / 3)))
is "${#ids[@]}" "$N" "$N runs submitted"
wait_for 150 queue_empty
ok $? "every run finished"
diag "workload took $(( $(date +%s) - t0 ))s"

# Every run's one lease closed with End (one row per lease in the report)
# -- wait until the spool has drained into the ledger. (It waited for 2N
# rows before, so it always ran out its 60 s; the checks below decide.)
want=$N
_all_in () {
    [ "$(jobtree_cli report leases -P -n -o Reason "$JT_LEDGER_DIR" | grep -cx End)" -ge "$want" ]
}
wait_for 60 _all_in || diag "the spool did not drain $want End rows in 60 s"
per_run=$(jobtree_cli report leases -P -n -o Run,Reason "$JT_LEDGER_DIR" | sort | uniq -c \
          | awk '{print $1 "x" $2}' | sed 's/^1x.*|End$/ok/' | sort | uniq -c \
          | awk '{print $1 "x" $2}')
is "$per_run" "${N}xok" "each of the $N runs has exactly one lease, closed with End"
starts=$(grep -ho '"type":"Start","id":"jtc:[0-9]*:' "$JT_LEDGER_DIR"/ledger-*.jtl | sort -u | wc -l)
ends=$(grep -ho '"type":"End","id":"jtc:[0-9]*:' "$JT_LEDGER_DIR"/ledger-*.jtl | sort -u | wc -l)
is "$starts/$ends" "$N/$N" "one Start and one End per run in the ledger files"
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify: $(head -n1 <<< "$out")"

done_testing
