#!/bin/bash
# t3000-ledger.sh - select/cons_tres_jobtree writes the ledger through
# jobtree-ledgerd: one Start and one End per lease of every run, with the
# envelope, role, owner and nodes it was bound to; a sponsor-paid run's
# lease is Borrowed; `scontrol update NumNodes` shrinks a malleable run by
# whole groups only (job_submit's job_modify: a count that would split a
# group or pass the minimum is refused), and the ended group's lease says
# Shrink, with no remainder; the budgets are recorded
# (BudgetLoaded) and `jobtree verify` accepts the whole ledger.
#
# Cluster: see t2000-select.sh (a-west-h100: 64 GPUs west; b-east-h100: 64
# east, lends 32 to team-a).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 20
JT_CLUSTER_SELECT=jobtree
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
G8="--gres=gpu:h100:8"

# Leases of a job: FIELDS per line, sorted (report -P -n).
leases () {
    local j=$1; shift
    # --now: a lease that started at the ledger's last event shows too
    jobtree_cli report leases -P -n --now "$(( $(date +%s) + 60 ))" -j "$j" \
        -o "$1" "$JT_LEDGER_DIR" | sort
}
# Wait until every lease of job J is closed (reason filled) in the ledger.
_closed () {
    local r
    r=$(leases "$1" Reason)
    echo "job $1 lease reasons: [$(tr '\n' ',' <<< "$r")]"
    [ -n "$r" ] && ! grep -qx '' <<< "$r"
}

like "$(grep -c 'ledger events to' "$JT_CLUSTER_DIR/log/slurmctld.log")" '^[1-9]' \
     "the plugin sends ledger events to jobtree-ledgerd"

## 1. A three-group run: three leases, Active, a-west-h100, End.
r1=$(submit --account=team-a -N6 $G8 --group-gpus=16 --wrap "sleep 2")
wait_job_state "$r1" COMPLETED 30
wait_for 20 _closed "$r1"
is "$(leases "$r1" Group,Owner,Envelope,Role,GPUs,Reason | tr '\n' ' ')" \
   "0|team-a|a-west-h100|Active|16|End 1|team-a|a-west-h100|Active|16|End 2|team-a|a-west-h100|Active|16|End " \
   "one lease per group, closed with End"
is "$(leases "$r1" Nodes | tr '\n' ' ')" \
   "$(scontrol show hostnames "$(job_field "$r1" NodeList)" | paste -sd, - \
      | python3 -c 'import sys; n=sys.stdin.read().strip().split(","); print(" ".join(",".join(n[i:i+2]) for i in range(0,len(n),2)) + " ")')" \
   "the leases name the job's nodes, two per group"
like "$(jobtree_cli report leases -P -n -j "$r1" -o Lease "$JT_LEDGER_DIR" | head -n1)" \
     "^jtc:$r1:[0-9]+:g0\$" "lease ids are cluster:job:start:group"

## 2. Borrowed: a-west-h100 full, the sponsor pays.
big=$(submit --account=team-a -N8 $G8 --group-gpus=32 --wrap "sleep 300")
wait_job_state "$big" RUNNING 15
bor=$(submit --account=team-a -N2 $G8 --group-gpus=16 --borrow --sponsors=team-b \
     --wrap "sleep 1")
wait_job_state "$bor" COMPLETED 30
wait_for 20 _closed "$bor"
is "$(leases "$bor" Owner,Envelope,Role,GPUs,Reason)" "team-a|b-east-h100|Borrowed|16|End" \
   "the sponsor-paid run's lease is Borrowed, paid by b-east-h100, owner team-a"
is "$(leases "$big" Reason | tr '\n' ' ')" "  " "the big run's two leases are open"
scancel "$big"
wait_for 20 _closed "$big"
is "$(leases "$big" Reason | tr '\n' ' ')" "End End " "scancel closes them with End"

## 3. Shrink by whole groups: a malleable run of 2 groups of 2 nodes
## (--malleable=16:32:16). NumNodes=3 would split a group: refused, the run
## keeps its four nodes; so is a NodeList keeping part of a group;
## NumNodes=2 ends one group whole: the highest, unless the batch script
## runs there (Slurm cannot take the batch host from a running job).
wait_for 20 queue_empty
shr=$(submit --account=team-a -N2-4 $G8 --group-gpus=16 --malleable=16:32:16 \
             --wrap "sleep 300")
wait_job_state "$shr" RUNNING 15
_nleases () { [ "$(leases "$1" Lease | wc -l)" -ge "$2" ]; }
wait_for 10 _nleases "$shr" 2
out=$(scontrol update jobid="$shr" NumNodes=3 2>&1)
rc=$?
is "$rc $(scontrol show hostnames "$(job_field "$shr" NodeList)" | wc -l)" "1 4" \
   "NumNodes=3 is refused (it would split a group): the run keeps its 4 nodes ($out)"
grep -q "NumNodes=3 would split a group: a run shrinks by whole groups.*NumNodes may be 2 (16 GPUs)" \
    "$JT_CLUSTER_DIR/log/slurmctld.log"
ok $? "slurmctld's log says why and which counts would do"
g0=$(leases "$shr" Group,Nodes | grep '^0|' | cut -d'|' -f2)
g1one=$(leases "$shr" Group,Nodes | grep '^1|' | cut -d'|' -f2 | cut -d, -f1)
out=$(scontrol update jobid="$shr" NodeList="$g0,$g1one" 2>&1)
is "$? $(scontrol show hostnames "$(job_field "$shr" NodeList)" | wc -l)" "1 4" \
   "a NodeList keeping one node of group 1 is refused too ($out)"
bh=$(job_field "$shr" BatchHost)
kg=$(leases "$shr" Group,Nodes | grep -E "[|,]$bh(,|\$)" | cut -d'|' -f1)
scontrol update jobid="$shr" NumNodes=2
ok $? "scontrol update NumNodes=2"
is "$(scontrol show hostnames "$(job_field "$shr" NodeList)" | paste -sd, -)" \
   "$(leases "$shr" Group,Nodes | grep "^$kg|" | cut -d'|' -f2)" \
   "Slurm keeps exactly the nodes of group $kg, the batch host's ($bh); the other group ends"
_shrunk () { [ -n "$(leases "$shr" Group,Reason | grep '|Shrink')" ]; }
wait_for 10 _shrunk
if [ "$kg" = 0 ]; then want="0|16| 1|16|Shrink "; else want="0|16|Shrink 1|16| "; fi
is "$(leases "$shr" Group,GPUs,Reason | tr '\n' ' ')" "$want" \
   "the other group's lease ends with Shrink, whole: no remainder starts"
scancel "$shr"
wait_for 20 _closed "$shr"
is "$(leases "$shr" Group,GPUs,Reason | tr '\n' ' ')" "${want//| /|End }" \
   "cancel closes the rest with End"

## 4. A node fails under a --no-kill run: Fail for its group's lease.
wait_for 20 queue_empty
wait_for 20 _all_idle
nk=$(submit --account=team-a -N4 $G8 --group-gpus=16 --no-kill --wrap "sleep 300")
wait_job_state "$nk" RUNNING 15
wait_for 10 _nleases "$nk" 2
victim=$(leases "$nk" Group,Nodes | grep '^1|' | cut -d'|' -f2 | cut -d, -f2)
scontrol update nodename="$victim" state=down reason=t3000
wait_for 10 _nleases "$nk" 3
is "$(leases "$nk" Group,GPUs,Reason | tr '\n' ' ') $(job_field "$nk" JobState)" \
   "0|16| 1|16|Fail 1|8|  RUNNING" \
   "node $victim down: its group's lease ends with Fail, the run goes on"
ok "$(grep -q "\"type\":\"NodeFail\".*\"$victim\"" "$JT_LEDGER_DIR"/ledger-*.jtl; echo $?)" \
   "a NodeFail event names $victim"
scancel "$nk"
wait_for 20 _closed "$nk"
scontrol update nodename="$victim" state=resume

## 5. A soft run (no --group-gpus) of 6 nodes: one chunk per domain (A's 4
##    nodes, B's 2), each its own lease; before, the second chunk's Start
##    had the first's id and the sidecar dropped it as a resend (16 of 48
##    GPUs never in the ledger).
wait_for 20 queue_empty
wait_for 20 _all_idle
soft=$(submit --account=team-a -N6 $G8 --cross-group-spread=yes --wrap "sleep 1")
wait_job_state "$soft" COMPLETED 30
wait_for 20 _closed "$soft"
is "$(leases "$soft" Lease,Group,GPUs | sed 's/^[^|]*:\(g0[^|]*\)|/\1|/' | tr '\n' ' ')" \
   "g0:c1|0|16 g0|0|32 " "a soft run in two domains: a lease per chunk, 48 GPUs in all"

## 6. The ledger as a whole.
like "$(jobtree_cli report leases -P -n -o Run "$JT_LEDGER_DIR" | sort -u | wc -l)" '^6$' \
     "six runs in the ledger"
ok "$(grep -c '"type":"BudgetLoaded"' "$JT_LEDGER_DIR"/ledger-*.jtl | grep -qv '^0$'; echo $?)" \
   "the budgets are recorded (BudgetLoaded)"
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $out"

done_testing
