#!/bin/bash
# t3030-ledger-gpuhours.sh - the integral bound (maxGPUHours) enforced by
# Cover from the fold of the ledger: an envelope with a tiny GPU-hours
# budget is exhausted by one run, and the next run waits with a GPU-hours
# reason -- also after a slurmctld restart, when the used GPU-hours can only
# come from the ledger (no run is live any more).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 9
JT_CLUSTER_SELECT=jobtree
JT_CLUSTER_BUDGETS=$(mktemp -d /tmp/jt-budgets.XXXXXX)
# 0.15 GPU-hours: a 16-GPU run with a 1-minute limit is charged 0.27 in
# advance -- too much; an 8-GPU one 0.13 fits while nothing is used.
cat > "$JT_CLUSTER_BUDGETS/small.json" <<'JSON'
{
  "owner": "small",
  "envelopes": [
    { "name": "small-h100", "flavor": "h100",
      "selector": { "region": "west" },
      "start": "2026-01-01T00:00:00Z", "end": "2031-01-01T00:00:00Z",
      "concurrency": 16, "maxGPUHours": 0.15 }
  ]
}
JSON
cluster_setup "${1:?usage: $0 BUILDDIR}"
rm -rf "$JT_CLUSTER_BUDGETS"
cluster_start
G8="--gres=gpu:h100:8"
LOG=$JT_CLUSTER_DIR/log/slurmctld.log

_closed () { jobtree_cli report leases -P -n -j "$1" -o Reason "$JT_LEDGER_DIR" | grep -x End; }
_hours_reason () { squeue -h -j "$1" -o '%T %r' | grep -E 'GPU-hours|GPUHoursExhausted' \
                   || { echo "job $1: $(squeue -h -j "$1" -o '%T %r')"; return 1; }; }

## One 8-GPU run for 30 s uses 8 x 30 s = 0.067 GPU-hours.
r1=$(submit --account=small -N1 $G8 --group-gpus=8 -t 1 --wrap "sleep 30")
wait_job_state "$r1" RUNNING 15
is "$(job_field "$r1" JobState)" RUNNING "an 8-GPU run fits 0.15 GPU-hours"
wait_job_state "$r1" COMPLETED 60
wait_for 20 _closed "$r1"
ok $? "its lease is closed in the ledger"
used=$(jobtree_cli report usage -P -n -o Envelope,GPUHours --envelope small-h100 "$JT_LEDGER_DIR")
like "$used" '^small-h100\|0\.0[6-9]' "the ledger's usage: $used"

## 0.067 used + 0.133 charged for the next run > 0.15: it waits.
r2=$(submit --account=small -N1 $G8 --group-gpus=8 -t 1 --wrap "sleep 1")
wait_for 15 _hours_reason "$r2"
is "$(job_field "$r2" JobState)" PENDING "the next run waits on an idle cluster"
r=$(reason_when "$r2" 'small-h100.*GPU-hours|GPUHoursExhausted')
like "$r" "small-h100.*GPU-hours|GPUHoursExhausted" "with a GPU-hours reason: $r"

## After a restart only the ledger knows the used GPU-hours.
kill -TERM "$(ctld_pid)"
wait_for 20 ctld_gone
_spawn "$JT_CLUSTER_DIR/log/slurmctld.out" slurmctld -D -f "$SLURM_CONF"
wait_for 30 scontrol ping
ok $? "slurmctld restarted"
sleep 3
is "$(job_field "$r2" JobState)" PENDING "still waiting after the restart (GPU-hours folded from the ledger)"
wait_for 15 _hours_reason "$r2"
ok $? "with the GPU-hours reason: $(squeue -h -j "$r2" -o %r)"
# r2's state and reason were saved before the restart; a run submitted
# after it is judged by the restarted plugin alone, whose GPU-hours can
# only come from LedgerDir.
r3=$(submit --account=small -N1 $G8 --group-gpus=8 -t 1 --wrap "sleep 1")
wait_for 15 _hours_reason "$r3"
ok $? "a run submitted after the restart waits on the GPU-hours read from the ledger: $(squeue -h -j "$r3" -o '%T %r')"

done_testing
