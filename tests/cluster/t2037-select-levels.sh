#!/bin/bash
# t2037-select-levels.sh - Pack over two fabric levels on a live
# slurmctld (issue 33): 16 nodes, 4 leaves of 4 (domains A-D) under 2
# blocks (B1: A B, B2: C D; node features fabric.block=...), jobtree.conf
# FabricLevels=block. Domains are named east/c1/C, east/c1/D, west/c1/A,
# west/c1/B, so that is best-fit's order on a tie. With A, B and C half
# busy and D full, a 2-group run goes to A and B inside B1 (the domain rule
# alone takes C, then A: across both blocks); a --cross-group-spread=no:block
# run of 3 groups waits, told it fits no block, reserved inside one block,
# and starts inside B2 once B2 has room; a level the cluster does not have
# is refused at submission with its levels; `jobtree snapshot --levels`
# shows them. Spares from the block: a group of 4 nodes with a spare (no
# leaf holds 5) starts with its spare in the other leaf of its block, and
# a failed node of the group is swapped for it; `jobtree verify` accepts
# the ledger.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 17
for i in $(seq 1 16); do
    eval "JT_CLUSTER_FEATURES_$(printf gpu%02d "$i")=fabric.block=B$(( (i - 1) / 8 + 1 ))"
done
bud=$(mktemp -d /tmp/jt-levels-budgets.XXXXXX) || bail_out "mktemp"
cat > "$bud/lv.json" <<'JSON'
{ "owner": "lv",
  "envelopes": [ { "name": "lv-h100", "flavor": "h100", "selector": { },
                   "start": "2026-01-01T00:00:00Z", "end": "2031-01-01T00:00:00Z",
                   "concurrency": 128 } ] }
JSON
JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$bud \
JT_CLUSTER_JOBTREE_EXTRA="FabricLevels=block
PackPolicy=best-fit" cluster_setup "${1:?usage: $0 BUILDDIR}"
rm -rf "$bud"
cluster_start

snap=$JT_CLUSTER_DIR/snap.json
jobtree_cli snapshot --levels=block -o "$snap"
is "$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
n = {x["name"]: x["labels"] for x in s["nodes"]}
print(s.get("levels"), n["gpu01"]["fabric.block"], n["gpu16"]["fabric.block"])' "$snap")" \
   "['fabric.block'] B1 B2" "jobtree snapshot --levels shows the levels and each node's block"

# Plain fillers: A, B and C half busy, D full.
fill=()
for w in "gpu[01-02]" "gpu[05-06]" "gpu[09-10]" "gpu[13-16]"; do
    fill+=("$(submit -w "$w" -N"$(scontrol show hostnames "$w" | wc -l)" --exclusive --wrap "sleep 600")")
done
for j in "${fill[@]}"; do wait_job_state "$j" RUNNING 20; done
is "$(squeue -h -t running -o %i | wc -l)" 4 "four plain fillers run"

r1=$(submit --account=lv -N4 --gres=gpu:h100:8 --group-gpus=16 --wrap "sleep 600")
wait_job_state "$r1" RUNNING 20
is "$(job_field "$r1" JobState)" RUNNING "a 2-group run starts"
is "$(job_domains "$r1")" "A,B" "its groups go to A and B, inside block B1, not to C and A across blocks"

r2=$(submit --account=lv -N6 --gres=gpu:h100:8 --group-gpus=16 \
            --cross-group-spread=no:block --wrap "sleep 60")
wait_job_state "$r2" PENDING 10 >/dev/null
ok $? "a 3-group no:block run is accepted"
wait_for 30 why_like "$r2" "fits no block" >/dev/null
_resv_logged () { ledger_payloads | grep -q "\"type\":\"ReservationCreate\".*\"run\":\"[^\"]*:$r2\""; }
wait_for 30 _resv_logged >/dev/null
resv=$(ledger_payloads | grep "\"type\":\"ReservationCreate\".*\"run\":\"[^\"]*:$r2\"" | tail -1)
is "$(python3 -c 'import json, sys
r = json.loads(sys.argv[1])
print(len(r["nodes"]), len({(int(n[3:]) - 1) // 8 for n in r["nodes"]}))' "$resv")" "6 1" \
   "its reservation holds 6 nodes inside one block: $(sed -E 's/.*"nodes":(\[[^]]*\]).*/\1/' <<< "$resv")"
why=$(why_of "$r2")
like "$why" "fits no block: all 3 groups \(48 GPUs\) in one \| the largest, B[12], has [0-9]+ free GPUs" \
     "it waits, told no block holds it: $why"

# B2 gets room: C and D free. The run starts there, whole inside B2.
scancel "${fill[2]}" "${fill[3]}"
wait_job_state "$r2" RUNNING 60
is "$(job_field "$r2" JobState)" RUNNING "it starts once block B2 has room"
like "$(job_domains "$r2")" "^(C|D|C,D)$" "inside B2: $(job_domains "$r2")"

bad=$(submit --account=lv -N4 --gres=gpu:h100:8 --group-gpus=16 \
             --cross-group-spread=no:rack --wrap "sleep 1")
is "$bad" "" "a level the cluster does not have is refused at submission"
like "$(last_err)" "no fabric level 'rack' in this cluster; its levels: block" \
     "naming the cluster's levels: $(last_err | head -1)"
scancel "${fill[@]}" "$r1" "$r2" 2>/dev/null

# Spares from the block: one 32-GPU group and a spare is 5 nodes, more than
# a leaf of 4 holds. The group goes whole into a leaf, its spare into the
# other leaf of that block; a failed node of the group is swapped for it.
_idle () { [ -z "$(squeue -h -o %i)" ]; }
wait_for 30 _idle >/dev/null
sp=$(submit --account=lv -N4 --gres=gpu:h100:8 --group-gpus=32 --spares=1 \
            --wrap "sleep 600")
wait_job_state "$sp" RUNNING 20
is "$(job_field "$sp" JobState) $(job_field "$sp" NumNodes)" "RUNNING 5" \
   "a group of 4 nodes with a spare starts on 5 nodes (no leaf holds 5): $(last_err)"
lay=$(job_field "$sp" AdminComment | sed 's/^jobtree\/1 //' | python3 -c '
import json, sys
l = json.load(sys.stdin)["bound"]["leases"][0]
print(",".join(l["nodes"]), ",".join(l.get("spares", [])))')
gn=${lay% *} spare=${lay#* }
blk () { local n=${1#gpu}; echo $(( (10#$n - 1) / 8 )); }
is "$(for n in ${gn//,/ }; do node_domain "$n"; done | sort -u | wc -l) \
$([ "$(node_domain "$spare")" != "$(node_domain "${gn%%,*}")" ] && echo other) \
$([ "$(blk "$spare")" = "$(blk "${gn%%,*}")" ] && echo same)" "1 other same" \
   "the group in one leaf, its spare in the other leaf of its block: $lay"
batch=$(job_field "$sp" BatchHost)
victim=$(tr , '\n' <<< "$gn" | grep -vx "$batch" | head -1)
scontrol update nodename="$victim" state=down reason=t2037
_swapped () { job_field "$sp" AdminComment | grep -q "\"failed\":\"$victim\",\"spare\":\"$spare\""; }
wait_for 20 _swapped
ok $? "a failed node of the group ($victim) is swapped for the block's spare ($spare)"
log_has "$JT_CLUSTER_DIR/log/slurmctld.log" "node $victim failed:" | grep -q "now spans two domains of block"
ok $? "slurmctld's log says the group now spans two domains of its block"
is "$(job_field "$sp" JobState) $(job_field "$sp" NumNodes)" "RUNNING 4" \
   "the run keeps running, its group now across two leaves of one block"
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $out"
scancel "$sp" 2>/dev/null
scontrol update nodename="$victim" state=resume 2>/dev/null
done_testing
