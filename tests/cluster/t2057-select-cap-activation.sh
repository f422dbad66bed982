#!/bin/bash
# t2057-select-cap-activation.sh - a funding wait held by an aggregate cap
# is activated at MaxWait, like a room wait (issue 8; jt_cap_need): owner
# capt has cw (64 GPUs, west) and ce (64, east) under cap capt-total (64).
# Eight one-node runs paid by cw fill the cap; a 2-node run then finds ce's
# own concurrency free but the cap full (AggregateCap). At its
# reservation's creation + MaxWait (30 s) the cap's leases are the
# conflict set: two whole gangs (16 GPUs, the deficit) are drawn by the
# published lottery and requeued, the run starts in one domain (where the
# lottery cleared room, or a free one) paid under the cap, the
# Activation names the cap's pool, and `jobtree verify` replays it. Before,
# nothing activated a cap wait: the run waited for the fillers' time limit.
#
# Cluster: see t2000-select.sh (west is A gpu01-04 and B gpu05-08, east C
# and D), with this test's own budget.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 7
BUD=$(mktemp -d /tmp/jt-capact.XXXXXX)
cat > "$BUD/capt.json" <<'JSON'
{ "owner": "capt",
  "envelopes": [
    { "name": "cw", "flavor": "h100", "selector": { "region": "west" },
      "start": "2026-01-01T00:00:00Z", "end": "2031-01-01T00:00:00Z", "concurrency": 64 },
    { "name": "ce", "flavor": "h100", "selector": { "region": "east" },
      "start": "2026-01-01T00:00:00Z", "end": "2031-01-01T00:00:00Z", "concurrency": 64 } ],
  "aggregateCaps": [
    { "name": "capt-total", "flavor": "h100", "envelopes": ["cw", "ce"],
      "maxConcurrency": 64 } ] }
JSON
JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$BUD JT_CLUSTER_CRED_EXPIRE=10 \
JT_CLUSTER_SLURM_EXTRA="PreemptType=preempt/jobtree
PreemptMode=REQUEUE" JT_CLUSTER_JOBTREE_EXTRA="MaxWait=30s" \
    cluster_setup "${1:?usage: $0 BUILDDIR}"
rm -rf "$BUD"
cluster_start
G8="--gres=gpu:h100:8"
VICTIM='if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then sleep 1; else sleep 600; fi'
payers () { job_field "$1" AdminComment | grep -o '"envelope":"[a-z]*"' | sort -u | paste -sd,; }

fill=()
for i in $(seq 1 8); do
    fill+=("$(submit --account=capt -N1 $G8 --group-gpus=8 -t 10 --wrap "$VICTIM")")
done
for j in "${fill[@]}"; do
    wait_job_state "$j" RUNNING 15 || bail_out "filler $j does not start: $(job_field "$j" Reason)"
done
is "$(for j in "${fill[@]}"; do payers "$j"; done | sort -u)" '"envelope":"cw"' \
   "the eight fillers are paid by cw: the cap's 64 GPUs in use"

t_sub=$(date +%s)
big=$(submit --account=capt -N2 $G8 --group-gpus=16 -t 2 --wrap "sleep 5")
wait_job_state "$big" "RUNNING|COMPLETING|COMPLETED" 120 \
    || bail_out "the cap-held run did not start: $(job_field "$big" Reason)"
t_start=$(epoch "$(job_field "$big" StartTime)")
# At most 15 s after MaxWait: backfill asks for the main pass that
# activates (jtsel_activation_nudge) as soon as MaxWait is reached, not
# slurmctld's periodic one (sched_interval, 60 s after its start).
ok "$([ $((t_start - t_sub)) -ge 25 ] && [ $((t_start - t_sub)) -le 45 ]; echo $?)" \
   "it starts at MaxWait (30 s) plus requeue delays, not at the next periodic pass nor at the fillers' limit: $((t_start - t_sub)) s"
# "ENVELOPE:GPUS" per bound lease, and the domains of the run's nodes
bound_of () {
    job_field "$1" AdminComment | sed 's/^jobtree\/1 //' | python3 -c '
import json, sys
rec = json.load(sys.stdin)
print(" ".join("%s:%d" % (l["envelope"], l["gpus"])
               for l in rec.get("bound", {}).get("leases", [])))'
}
like "$(bound_of "$big") $(job_domains "$big")" '^c[we]:16 [A-D]$' \
     "bound: its one group of 16 GPUs in one domain, paid by an envelope under the cap"
requeued=0
for j in "${fill[@]}"; do
    [ "$(job_field "$j" Restarts)" -ge 1 ] 2>/dev/null && requeued=$((requeued + 1))
done
is "$requeued" 2 "exactly two whole gangs were requeued (16 GPUs: the deficit)"
grep -Eq "reservation jtc:$big:resv:[0-9]+ activates \(MaxWait\) for 16 GPUs of aggregate cap capt-total" \
    "$JT_CLUSTER_DIR/log/slurmctld.log"
ok $? "slurmctld's log says the activation was for 16 GPUs of aggregate cap capt-total"

_act () { grep -h '"type":"Activation"' "$JT_LEDGER_DIR"/ledger-*.jtl; }
wait_for 30 _act || bail_out "no Activation in the ledger"
ok "$(_act | grep -q '"pool":"cap:capt-total"'; echo $?)" \
   "the Activation names the cap's pool: $(_act | grep -o '"needs":\[[^]]*\]')"

scancel "${fill[@]}" "$big"
wait_for 60 queue_empty
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify replays the activation: $(grep -i lotter <<< "$out")"
done_testing
