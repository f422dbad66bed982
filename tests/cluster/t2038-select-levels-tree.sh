#!/bin/bash
# t2038-select-levels-tree.sh - fabric levels from Slurm's switch tree
# (issue 33): the same 16 nodes as t2037, but no block feature; the
# topology.conf puts leaves domA, domB under switch blk1 and domC, domD
# under blk2, both under spine. With FabricLevels=block,spine the select
# plugin reads blk1/blk2 as the nodes' blocks (the level-1 switches) and
# spine as their spine (level 2), says so once in its log, and with A and
# C half busy and D full a 3-group run of 2-node groups goes to A and B
# inside blk1, where the domain rule alone takes C, A and B. (Six nodes:
# topology/block, below, refuses a run of 4 nodes or fewer over two base
# blocks, but takes 6 inside an 8-node block.) A run that no block could ever hold (--cross-group-spread=no:block,
# 5 groups of 2 nodes: 10 nodes, a block has 8) is refused at submission.
# Then 2 groups of 2 nodes (4 nodes) with 2 nodes free in C and 2 in D: a
# switch tree takes the split over C and D; topology/block takes 4 nodes
# only inside one base block, so Jobtree holds the run until one has room
# (jt_pack_block_confine) and it starts in C alone.
# With JT_LEVELS_TOPO=block (t2039) the same on topology/block: base
# blocks blkA-blkD of 4 nodes, BlockSizes=4,8,16, the 8-node aggregated
# blocks blk[A-B] and blk[C-D] as the block level, blk[A-D] as the spine
# (Slurm 24.05 and later; skipped before).
# `jobtree snapshot --levels block,spine` reads the same levels from
# topology.conf (the switch tree, or BlockSizes and the aggregated
# blocks) as the plugin logs them, and `jobtree plan` on its snapshot
# taken with the fillers running names the nodes the plugin then gives the
# 3-group run.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

topo=${JT_LEVELS_TOPO:-tree}
if [ "$topo" = block ]; then plan 10; else plan 8; fi
if [ "$topo" = block ] && ! cluster_has_blocks; then
    for i in 1 2 3 4 5 6 7 8 9 10; do skip "no topology/block in $(slurmctld -V 2>/dev/null)"; done
    done_testing
    exit
fi
bud=$(mktemp -d /tmp/jt-levels-budgets.XXXXXX) || bail_out "mktemp"
cat > "$bud/lv.json" <<'JSON'
{ "owner": "lv",
  "envelopes": [ { "name": "lv-h100", "flavor": "h100", "selector": { },
                   "start": "2026-01-01T00:00:00Z", "end": "2031-01-01T00:00:00Z",
                   "concurrency": 128 } ] }
JSON
JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$bud \
JT_CLUSTER_JOBTREE_EXTRA="FabricLevels=block,spine
PackPolicy=best-fit" cluster_setup "${1:?usage: $0 BUILDDIR}"
rm -rf "$bud"
if [ "$topo" = block ]; then
    cluster_use_blocks      # blkA..blkD, BlockSizes=4,8,16
    blk1=blkA,blkB      # an aggregated block's name in the records
    blk2=blkC,blkD spine=blkA,blkB,blkC,blkD sizes="[4, 8, 16]"
else
    cat > "$JT_CLUSTER_DIR/etc/topology.conf" <<'EOF2'
SwitchName=domA Nodes=gpu[01-04]
SwitchName=domB Nodes=gpu[05-08]
SwitchName=domC Nodes=gpu[09-12]
SwitchName=domD Nodes=gpu[13-16]
SwitchName=blk1 Switches=domA,domB
SwitchName=blk2 Switches=domC,domD
SwitchName=spine Switches=blk1,blk2
EOF2
    blk1=blk1 blk2=blk2 spine=spine sizes=None
fi
cluster_start

snap=$JT_CLUSTER_DIR/snap.json
jobtree_cli snapshot --levels=block,spine -o "$snap"
is "$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
n = {x["name"]: x["labels"] for x in s["nodes"]}
print(s.get("levels"), n["gpu01"].get("fabric.block"), n["gpu01"].get("fabric.spine"),
      n["gpu16"].get("fabric.block"), n["gpu16"].get("fabric.spine"), s.get("blockNodes"))' "$snap")" \
   "['fabric.block', 'fabric.spine'] $blk1 $spine $blk2 $spine $sizes" \
   "jobtree snapshot reads the $topo's levels 1 and 2 from topology.conf as the plugin does"

fill=()
for w in "gpu[01-02]" "gpu[09-10]" "gpu[13-16]"; do
    fill+=("$(submit -w "$w" -N"$(scontrol show hostnames "$w" | wc -l)" --exclusive --wrap "sleep 600")")
done
for j in "${fill[@]}"; do wait_job_state "$j" RUNNING 20; done
is "$(squeue -h -t running -o %i | wc -l)" 3 "three plain fillers run"

jobtree_cli snapshot --levels=block,spine -o "$snap"
cat > "$JT_CLUSTER_DIR/run-lv.json" <<'EOR'
{ "owner": "lv", "resources": { "gpuType": "h100", "totalGPUs": 48 },
  "locality": { "groupGPUs": 16 } }
EOR
pred=$(jobtree_cli plan --budgets "$JT_CLUSTER_DIR/budgets" --snapshot "$snap" \
           --run "$JT_CLUSTER_DIR/run-lv.json" --json | python3 -c '
import json, sys
p = json.load(sys.stdin)
print(p["decision"], ",".join(sorted(n["name"] for g in p["groups"] for n in g["nodes"])))' 2>&1)
r1=$(submit --account=lv -N6 --gres=gpu:h100:8 --group-gpus=16 --wrap "sleep 600")
wait_job_state "$r1" RUNNING 20
is "BindNow $(scontrol show hostnames "$(job_field "$r1" NodeList)" | paste -sd,)" "$pred" \
   "jobtree plan on the snapshot with levels named the nodes slurmctld gave the run"
is "$(job_domains "$r1")" "A,B" "a 3-group run goes to A and B, inside $topo block $blk1"
log_has "$JT_CLUSTER_DIR/log/slurmctld.log" \
    "fabric levels above the 4 domains: block (2 units), spine (1 unit)" >/dev/null
ok $? "the select plugin read the $topo's levels 1 and 2 as block and spine"

bad=$(submit --account=lv -N10 --gres=gpu:h100:8 --group-gpus=16 \
             --cross-group-spread=no:block --wrap "sleep 1")
is "$bad" "" "a run no block could ever hold is refused at submission"
like "$(last_err)" "never place the run: fits no block: all 5 groups \(80 GPUs\) in one; the largest, $blk1, has 64 free GPUs" \
     "with the level and the largest block: $(last_err | head -1)"

## Two groups of two nodes (4 nodes) when C and D have 2 free nodes each.
## topology/block takes a run of no more nodes than a base block holds
## only inside one base block (eval_nodes_block.c@26.05.3:226-244): the run
## waits for one, then starts in it. A switch tree takes the split.
scancel "${fill[2]}"
wait_job_state "${fill[2]}" "COMPLETED|CANCELLED" 20
d2=$(submit -w "gpu[15-16]" -N2 --exclusive --wrap "sleep 600")
wait_job_state "$d2" RUNNING 20
r2=$(submit --account=lv -N4 --gres=gpu:h100:8 --group-gpus=16 --wrap "sleep 600")
if [ "$topo" = block ]; then
    why=$(reason_when "$r2" "no domain holds all 2 groups" 20)
    ok $? "block: 4 nodes with 2 free in C and 2 in D wait for one base block: $why"
    is "$(job_field "$r2" JobState)" PENDING "block: the run is not split over two base blocks"
    scancel "${fill[1]}"
    wait_job_state "$r2" RUNNING 30
    is "$(job_domains "$r2")" C "block: once C has 4 free nodes the run starts inside it alone"
else
    wait_job_state "$r2" RUNNING 20
    is "$(job_domains "$r2")" "C,D" "tree: the same run splits its groups between leaves C and D"
fi
scancel "${fill[@]}" "$r1" "$r2" "$d2" 2>/dev/null
done_testing
