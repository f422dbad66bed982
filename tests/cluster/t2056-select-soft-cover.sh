#!/bin/bash
# t2056-select-soft-cover.sh - a soft run (no --group-gpus) larger than any
# one envelope is funded owner first by whole nodes (docs/cover.md): team-a's
# 96-GPU run is paid 64 by its own a-west-h100 (west's 8 nodes) and 32 by
# team-b's b-east-h100 (4 east nodes, Borrowed); admitted, started, recorded
# chunk by chunk in admin_comment and in the ledger, and `jobtree verify`
# accepts it. Before, the soft group was one 96-GPU piece no envelope could
# hold: job_submit refused it ("largest group 96 GPUs > concurrency 64").
# With spread off the soft group must lie in one domain and is still paid
# owner first (4.): team-c (parent team-b) has 16 GPUs of its own in east,
# so its 32-GPU spread-off run is paid 16 by c-east-h100 and 16 by its
# parent's b-east-h100, both chunks in one east domain. Before, the parent
# paid all 32.
#
# Cluster: see t2000-select.sh (a-west-h100: 64 GPUs west; b-east-h100: 64
# east, lends 32 to team-a), plus team-c, child of team-b, with c-east-h100
# (16 GPUs east).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 15
BUD=$(mktemp -d /tmp/jt-soft-budgets.XXXXXX)
cp "$(dirname "$0")"/../../etc/slurm/test-cluster/budgets/*.json "$BUD/"
cat > "$BUD/team-c.json" <<'JSON'
{
  "owner": "team-c",
  "parent": "team-b",
  "envelopes": [
    { "name": "c-east-h100", "flavor": "h100",
      "selector": { "region": "east" },
      "start": "2026-01-01T00:00:00Z", "end": "2031-01-01T00:00:00Z",
      "concurrency": 16 }
  ]
}
JSON
JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$BUD cluster_setup "${1:?usage: $0 BUILDDIR}"
rm -rf "$BUD"     # copied into the cluster's directory
cluster_start
G8="--gres=gpu:h100:8"

# "ENVELOPE:ROLE:GPUS" per bound lease (chunk) of a job, in record order.
chunks_of () {
    job_field "$1" AdminComment | sed 's/^jobtree\/1 //' | python3 -c '
import json, sys
rec = json.load(sys.stdin)
print(" ".join("%s:%s:%d" % (l["envelope"], l["role"], l["gpus"])
               for l in rec.get("bound", {}).get("leases", [])))'
}
# GPUs per envelope in the record's funding segments: "ENV=GPUS ...".
funding_of () {
    job_field "$1" AdminComment | sed 's/^jobtree\/1 //' | python3 -c '
import json, sys
rec = json.load(sys.stdin)
print(" ".join("%s=%d" % (s["envelope"], s["gpus"]) for s in rec["funding"]))'
}
leases () {
    jobtree_cli report leases -P -n --now "$(( $(date +%s) + 60 ))" -j "$1" \
        -o Envelope,Role,GPUs,Reason "$JT_LEDGER_DIR" | sort
}
_closed () {
    local r
    r=$(leases "$1" | cut -d'|' -f4)
    echo "job $1 lease reasons: [$(tr '\n' ',' <<< "$r")]"
    [ -n "$r" ] && ! grep -qx '' <<< "$r"
}

## 1. Without borrowing only a-west-h100 (64) may pay: never fundable.
# (--cross-group-spread=yes, its default, makes it a Jobtree run: a job
# with no Jobtree option is a plain Slurm job)
id=$(submit --account=team-a -N12 $G8 --cross-group-spread=yes --wrap true)
is "$id" "" "96 soft GPUs on a 64-GPU envelope alone: refused"
like "$(grep -m1 'error: jobtree:' "$JT_CLUSTER_DIR/last.err")" \
     "96 GPUs exceed what the candidate envelopes can fund together by whole nodes" \
     "the refusal names the whole-node sum, not one indivisible group"

## 2. With the sponsor: admitted, 64 + 32, started on 12 nodes.
soft=$(submit --account=team-a -N12 $G8 --cross-group-spread=yes --borrow \
     --sponsors=team-b --wrap "sleep 3")
like "$soft" '^[0-9]+$' "96 soft GPUs with team-b's loan: admitted (was NeverFundable)"
wait_job_state "$soft" "RUNNING|COMPLETING|COMPLETED" 30
is "$(funding_of "$soft")" "a-west-h100=64 b-east-h100=32" \
   "funding: the owner's envelope first (64), the sponsor the rest (32)"
is "$(chunks_of "$soft")" \
   "a-west-h100:Active:32 a-west-h100:Active:32 b-east-h100:Borrowed:32" \
   "bound: west's two domains paid by a-west-h100, east's chunk Borrowed"
is "$(job_domains "$soft")" "A,B,C" "on west's 8 nodes and 4 of east's"
wait_job_state "$soft" COMPLETED 30

## 3. The ledger: a lease per chunk, each with its payer; verify passes.
wait_for 20 _closed "$soft"
is "$(leases "$soft" | tr '\n' ' ')" \
   "a-west-h100|Active|32|End a-west-h100|Active|32|End b-east-h100|Borrowed|32|End " \
   "three leases, 64 GPUs of a-west-h100 and 32 Borrowed of b-east-h100"
like "$(jobtree_cli report leases -P -n -j "$soft" -o Lease "$JT_LEDGER_DIR" | sort | tr '\n' ' ')" \
     ":g0 .*:g0:c1 .*:g0:c2 $" "lease ids: g0, g0:c1, g0:c2"
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the split run: $out"

## 4. Spread off: owner first inside one domain (team-c 16 + team-b 16).
off=$(submit --account=team-c -N4 $G8 --cross-group-spread=no --wrap "sleep 3")
like "$off" '^[0-9]+$' "team-c's 32-GPU spread-off soft run: admitted"
wait_job_state "$off" "RUNNING|COMPLETING|COMPLETED" 30
is "$(funding_of "$off")" "c-east-h100=16 b-east-h100=16" \
   "funding: team-c's own 16 first, its parent's 16 the rest (not 32 by the parent)"
is "$(chunks_of "$off")" "c-east-h100:Active:16 b-east-h100:Active:16" \
   "bound: two chunks of group 0, each with its payer, both Active (family)"
like "$(job_domains "$off")" '^[CD]$' "all 4 nodes in one east domain"
wait_job_state "$off" COMPLETED 30
wait_for 20 _closed "$off"
is "$(jobtree_cli report leases -P -n -j "$off" -o Lease,Envelope,GPUs "$JT_LEDGER_DIR" \
      | sed 's/^[^|]*\(:g0[^|]*\)|/\1|/' | LC_ALL=C sort | tr '\n' ' ')" \
   ":g0:c1|b-east-h100|16 :g0|c-east-h100|16 " \
   "the ledger: lease g0 paid by c-east-h100, g0:c1 by b-east-h100"
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts it: $out"

done_testing
