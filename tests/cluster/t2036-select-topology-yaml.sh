#!/bin/bash
# t2036-select-topology-yaml.sh - Slurm 25.05+ reads topology.yaml, with
# several topologies and one cluster default (topology.yaml.5): Jobtree's
# domains are the cluster default's leaves, whatever TopologyPlugin and
# topology.conf say (slurmctld then ignores both), read through slurmctld's
# own topology plugin (plugins/common/compat_topo_records.h). A default
# Jobtree cannot take domains from (topology/ring) is said once in
# slurmctld's log, and domains then come from the nodes' features.
# Skipped before 25.05.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 15
if ! cluster_has_topology_yaml; then
    for i in $(seq 15); do skip "no topology.yaml in $(slurmctld -V 2>/dev/null)"; done
    done_testing
    exit
fi
build=${1:?usage: $0 BUILDDIR}

# snap_levels LEVELS: `jobtree snapshot --levels=LEVELS` (the CLI reads
# topology.yaml's cluster default with libyaml, as slurmctld's plugin
# does): the levels, gpu01's and gpu16's fabric.domain and each level's
# unit, and blockNodes.
snap_levels () {
    local snap=$JT_CLUSTER_DIR/snap.json
    jobtree_cli snapshot --levels="$1" -o "$snap" 2>&1 || return
    python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
n = {x["name"]: x["labels"] for x in s["nodes"]}
print(s.get("levels"), *[n[h].get(k) for h in ("gpu01", "gpu16")
                          for k in ["fabric.domain"] + s.get("levels", [])], s.get("blockNodes"))' "$snap"
}

# blocks DEFAULT: the four blocks of 4 nodes as topology "blocks", the
# cluster default or not (true/false).
blocks () {
    cat <<YAML
- topology: blocks
  cluster_default: $1
  block:
    block_sizes: [4, 8, 16]
    blocks:
      - block: bA
        nodes: gpu[01-04]
      - block: bB
        nodes: gpu[05-08]
      - block: bC
        nodes: gpu[09-12]
      - block: bD
        nodes: gpu[13-16]
YAML
}

# 1. A tree (leaves lf1..lf4, not topology.conf's domA..domD) as the
# cluster default, a block topology beside it.
JT_CLUSTER_SELECT=jobtree
cluster_setup "$build"
{ echo ---; blocks false; cat <<'YAML'
- topology: fabric
  cluster_default: true
  tree:
    switches:
      - switch: spine
        children: lf[1-4]
      - switch: lf1
        nodes: gpu[01-04]
      - switch: lf2
        nodes: gpu[05-08]
      - switch: lf3
        nodes: gpu[09-12]
      - switch: lf4
        nodes: gpu[13-16]
YAML
} | cluster_use_topology_yaml
cluster_start
like "$(scontrol show topology 2>&1 | head -n 20)" "lf1" "slurmctld reads topology.yaml's tree"
drop_fabric_domains
is "$(snap_levels spine)" "['fabric.spine'] lf1 spine lf4 spine None" \
   "jobtree snapshot reads topology.yaml's default tree: leaves the domains, the spine above"
topology_domains_run "leaf switch" lf1
cluster_stop

# 2. A block topology as the default: its base blocks are the domains.
cluster_setup "$build"
{ echo ---; blocks true; } | cluster_use_topology_yaml
cluster_start
drop_fabric_domains
is "$(snap_levels block,spine)" "['fabric.block', 'fabric.spine'] bA bA,bB bA,bB,bC,bD bD bC,bD bA,bB,bC,bD [4, 8, 16]" \
   "jobtree snapshot reads topology.yaml's default blocks: base blocks the domains, the 8- and 16-node blocks above"
run=$(submit --account=team-a -N2 --gres=gpu:h100:8 --group-gpus=16 --wrap "sleep 30")
wait_job_state "$run" RUNNING 10
like "$(grep -m1 "JobId=$run: BindNow" "$JT_CLUSTER_DIR/log/slurmctld.log")" \
     "/bA\\[" "a block of topology.yaml's default names the domain"
cluster_stop

# 3. A ring as the default: no domains from it, said once; the nodes'
# fabric.domain features still place a run.
cluster_setup "$build"
cluster_use_topology_yaml <<'YAML'
---
- topology: rings
  cluster_default: true
  ring:
    rings:
      - ring: ring0
        nodes: gpu[01-08]
      - ring: ring1
        nodes: gpu[09-16]
YAML
cluster_start
run=$(submit --account=team-a -N2 --gres=gpu:h100:8 --group-gpus=16 --wrap "sleep 30")
wait_job_state "$run" RUNNING 10
is "$(job_field "$run" JobState)" RUNNING "under a ring, a run placed by the fabric.domain features starts"
said () { grep -c 'default topology is topology/ring, which gives Jobtree no domains' \
               "$JT_CLUSTER_DIR/log/slurmctld.log"; }
n=$(said)
ok $((n < 1)) "slurmctld's log says the ring gives no domains ($n lines: one per plugin)"
run2=$(submit --account=team-a -N2 --gres=gpu:h100:8 --group-gpus=16 --wrap "sleep 30")
wait_job_state "$run2" RUNNING 10
is "$(said)" "$n" "and does not say it again for the next run"
done_testing
