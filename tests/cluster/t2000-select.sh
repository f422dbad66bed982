#!/bin/bash
# t2000-select.sh - select/cons_tres_jobtree on a real cluster: plain jobs
# scheduled as by cons_tres, a run filling one domain to empty before the
# next, no group spanning domains, cross-group spread off (one domain or
# pending), a run over its envelope waiting with a Jobtree reason and
# starting when capacity frees, borrowing from a sponsor recorded, and
# `jobtree plan` on a `jobtree snapshot` predicting slurmctld's placement.
#
# Cluster (etc/slurm/test-cluster): gpu01-16, 8 x h100 each, domains
# A=gpu01-04 B=gpu05-08 (west) C=gpu09-12 D=gpu13-16 (east); team-a pays
# with a-west-h100 (64 GPUs, west), team-b with b-east-h100 (64, east),
# which lends up to 32 to team-a.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 35
JT_CLUSTER_SELECT=jobtree
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
JOBTREE=$JT_BUILDDIR/src/cli/jobtree
G8="--gres=gpu:h100:8"

# Domain letter of gpuNN.
dom () { local n=${1#gpu}; n=$((10#$n)); printf "\\x$(printf %x $((65 + (n - 1) / 4)))\\n"; }

# "GROUP:DOMAINS:ENVELOPE:ROLE" per bound lease of a job, DOMAINS the
# distinct domains of the group's nodes (one letter when it stays in one).
groups_of () {
    job_field "$1" AdminComment | sed 's/^jobtree\/1 //' | python3 -c '
import json, sys
rec = json.load(sys.stdin)
for l in rec.get("bound", {}).get("leases", []):
    doms = sorted({chr(65 + (int(n[3:]) - 1) // 4) for n in l["nodes"]})
    print("%d:%s:%s:%s" % (l["group"], "".join(doms), l["envelope"], l["role"]))'
}

# Nodes of a job, one per line, expanded.
nodes_of () { scontrol show hostnames "$(job_field "$1" NodeList)" 2>/dev/null; }


reset_cluster () {
    scancel --quiet --user="$(id -un)"
    wait_for 20 queue_empty
    wait_for 20 _all_idle
}

## 1. Plain jobs: exactly cons_tres (lowest-index node, no record, no reason).
cpu=$(submit -N1 --wrap "sleep 60")
gpu=$(submit -N1 $G8 --wrap "sleep 60")
wait_job_state "$cpu" RUNNING 10
wait_job_state "$gpu" RUNNING 10
is "$(job_field "$cpu" JobState) $(job_field "$cpu" NodeList)" "RUNNING gpu01" \
    "plain CPU job runs where cons_tres puts it"
is "$(job_field "$gpu" JobState) $(job_field "$gpu" NodeList)" "RUNNING gpu02" \
    "plain GPU job runs where cons_tres puts it"
is "$(job_field "$gpu" AdminComment)" "" "plain GPU job carries no Jobtree record"
reset_cluster

## 2. Pack to empty: 3 groups of 16 on an idle cluster fill A, then B.
run=$(submit --account=team-a -N6 $G8 --group-gpus=16 --wrap "sleep 60")
wait_job_state "$run" RUNNING 10
is "$(job_field "$run" JobState)" RUNNING "48-GPU run started"
# "A4 B2 ": nodes per domain.
per_domain () {
    nodes_of "$1" | while read -r n; do dom "$n"; done | sort | uniq -c \
        | awk '{printf "%s%s ", $2, $1}'
}
is "$(per_domain "$run")" \
   "A4 B2 " "domain A filled to empty before B"
is "$(groups_of "$run" | cut -d: -f1,2 | tr '\n' ' ')" "0:A 1:A 2:B " \
   "groups 0,1 in A, group 2 in B"
is "$(groups_of "$run" | cut -d: -f2 | grep -c '..')" 0 "no group spans domains"
is "$(groups_of "$run" | cut -d: -f3 | sort -u)" "a-west-h100" "paid by team-a's envelope"

## 3. A second run goes where the free whole nodes are, never split.
run2=$(submit --account=team-b -N4 $G8 --group-gpus=16 --wrap "sleep 60")
wait_job_state "$run2" RUNNING 10
is "$(groups_of "$run2" | cut -d: -f2 | grep -c '..')" 0 "second run: no group spans domains"
is "$(groups_of "$run2" | cut -d: -f2 | sort -u | tr -d '\n')" "C" \
   "second run (east envelope) fills domain C"
reset_cluster

## 4. Cross-group spread off: one domain or pending.
blk1=$(submit -N1 -w gpu01 --wrap "sleep 120")
blk2=$(submit -N1 -w gpu05 --wrap "sleep 120")
wait_job_state "$blk2" RUNNING 10
one=$(submit --account=team-a -N4 $G8 --group-gpus=16 --cross-group-spread=no --wrap "sleep 60")
wait_for 10 job_field_like "$one" Reason '^jobtree:'
is "$(job_field "$one" JobState)" PENDING \
   "spread off: pending while no west domain has 4 free nodes (6 free in all)"
r=$(reason_when "$one" '^jobtree: ')
like "$r" "^jobtree:" "the reason is Jobtree's: $r"
like "$(reason_when "$one" '^jobtree: ')" "^jobtree: " "squeue shows the Jobtree reason"
scancel "$blk1"
wait_job_state "$one" RUNNING 15
is "$(job_field "$one" JobState)" RUNNING "starts when a domain frees"
is "$(nodes_of "$one" | while read -r n; do dom "$n"; done | sort -u | tr -d '\n')" "A" \
   "all groups in domain A"
reset_cluster

## 5. Over the envelope: waits with a Jobtree reason, starts when capacity frees.
big=$(submit --account=team-a -N8 $G8 --group-gpus=32 --wrap "sleep 300")
wait_job_state "$big" RUNNING 10
is "$(job_field "$big" JobState)" RUNNING "64-GPU run uses all of a-west-h100"
late=$(submit --account=team-a -N2 $G8 --group-gpus=16 --wrap "sleep 60")
wait_for 10 job_field_like "$late" Reason '^jobtree:'
is "$(job_field "$late" JobState)" PENDING "a run over the envelope's concurrency waits"
r=$(reason_when "$late" '^jobtree: .*(a-west-h100|borrow)')
like "$r" "^jobtree: .*(a-west-h100|borrow)" "its reason names the envelope: $r"

## 6. Borrowing: the sponsor's envelope pays, recorded as Borrowed.
bor=$(submit --account=team-a -N2 $G8 --group-gpus=16 --borrow --sponsors=team-b \
     --wrap "sleep 60")
wait_job_state "$bor" RUNNING 10
is "$(job_field "$bor" JobState)" RUNNING "borrowing run starts while a-west-h100 is full"
is "$(groups_of "$bor" | cut -d: -f3,4)" "b-east-h100:Borrowed" \
   "funding recorded: b-east-h100, Borrowed"
like "$(nodes_of "$bor" | while read -r n; do dom "$n"; done | sort -u | tr -d '\n')" "^[CD]$" \
   "placed on the sponsor's (east) nodes, one domain"
like "$(job_field "$bor" AdminComment)" '"bound":\{"time":"[0-9T:Z-]+","leases":\[' \
   "AdminComment carries the bound funding"

## 7. `jobtree plan` on `jobtree snapshot` predicts slurmctld's choice.
snap=$JT_CLUSTER_DIR/snap.json
"$JOBTREE" snapshot -o "$snap"
ok $? "jobtree snapshot"
is "$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print(len(s["nodes"]), len(s["leases"]))' "$snap")" \
   "16 3" "snapshot: 16 nodes, the leases of the two running runs"
cat > "$JT_CLUSTER_DIR/run-b.json" <<EOR
{ "owner": "team-b", "resources": { "gpuType": "h100", "totalGPUs": 16 },
  "locality": { "groupGPUs": 16 } }
EOR
"$JOBTREE" plan --budgets "$JT_CLUSTER_DIR/budgets" --snapshot "$snap" \
    --run "$JT_CLUSTER_DIR/run-b.json" --json > "$JT_CLUSTER_DIR/plan.json"
ok $? "jobtree plan"
pred=$(python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
print(p["decision"], ",".join(sorted(n["name"] for g in p["groups"] for n in g["nodes"])))' \
    "$JT_CLUSTER_DIR/plan.json" 2>&1)
like "$pred" "^BindNow gpu" "plan predicts BindNow: $pred"
pb=$(submit --account=team-b -N2 $G8 --group-gpus=16 --wrap "sleep 60")
wait_job_state "$pb" RUNNING 10
is "BindNow $(nodes_of "$pb" | paste -sd,)" "$pred" \
   "slurmctld placed it where jobtree plan said"

## 8. The waiting run starts once the big one ends.
scancel "$big"
wait_job_state "$late" RUNNING 15
is "$(job_field "$late" JobState)" RUNNING "the waiting run started when capacity freed"
# A or B: whichever west domain finished completing the big run first.
like "$(groups_of "$late" | cut -d: -f2,3)" "^[AB]:a-west-h100$" \
     "paid by its own envelope, in one west domain"
is "$(job_field "$late" Reason)" None "its Jobtree reason is gone"
reset_cluster

## 9. A pure budget wait: small-h100 funds 8 GPUs; with 16 idle nodes the
##    second run still waits, then starts when the first ends.
s1=$(submit --account=small -N1 $G8 --group-gpus=8 --wrap "sleep 120")
wait_job_state "$s1" RUNNING 10
s2=$(submit --account=small -N1 $G8 --group-gpus=8 --wrap "sleep 30")
wait_for 10 job_field_like "$s2" Reason '^jobtree:'
is "$(job_field "$s2" JobState)" PENDING "over its envelope on an idle cluster: waits"
r=$(reason_when "$s2" '^jobtree: .*small-h100')
like "$r" "^jobtree: .*small-h100" "the reason names the exhausted envelope: $r"
scancel "$s1"
wait_job_state "$s2" RUNNING 15
is "$(job_field "$s2" JobState)" RUNNING "starts when its envelope has room again"
reset_cluster

## 10. Never runnable: a spread-off run larger than any domain is refused at once.
nv=$(submit --account=team-a -N6 $G8 --group-gpus=16 --cross-group-spread=no --wrap true)
is "$nv" "" "a run no domain could ever hold is refused at submission"
like "$(last_err | head -n1)" \
     '^sbatch: error: jobtree: this cluster can never place the run: no domain holds all 3 groups \(48 GPUs\) on nodes its payers may use' \
     "refused by job_submit's placement check, with its why: $(last_err | head -n1)"

done_testing
