#!/bin/bash
# t2035-select-block.sh - under TopologyPlugin=topology/block (Slurm 24.05+)
# each base block is a domain, as a leaf switch is under topology/tree
# (t2030): nodes without a fabric.domain feature take their block, and a
# run's groups stay in one block each (plugins/common/compat.h,
# jtc_leaf_switches; docs/slurm-24.11.md). Skipped on Slurm 22.05, which
# has no topology/block.
. "$(dirname "$0")/lib.sh"

plan 5
if ! cluster_has_blocks; then
    for i in 1 2 3 4 5; do skip "no topology/block in $(slurmctld -V 2>/dev/null)"; done
    done_testing
    exit
fi
JT_CLUSTER_SELECT=jobtree
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_use_blocks      # the same 4 x 4 nodes as blocks blkA..blkD
cluster_start
G8="--gres=gpu:h100:8"

scontrol update NodeName=gpu[01-08] AvailableFeatures=region=west,cluster=c1 \
    ActiveFeatures=region=west,cluster=c1 \
 && scontrol update NodeName=gpu[09-16] AvailableFeatures=region=east,cluster=c1 \
    ActiveFeatures=region=east,cluster=c1
ok $? "nodes lose their fabric.domain feature: only the blocks say where domains are"

run=$(submit --account=team-a -N6 $G8 --group-gpus=16 --wrap "sleep 60")
wait_job_state "$run" RUNNING 10
is "$(job_field "$run" JobState)" RUNNING "a 3-group run starts"
bound=$(job_field "$run" AdminComment | sed 's/^jobtree\/1 //' | python3 -c '
import json, sys
for l in json.load(sys.stdin)["bound"]["leases"]:
    print("%d:%s" % (l["group"], "".join(sorted({"ABCD"[(int(n[3:]) - 1) // 4]
                                                  for n in l["nodes"]}))))')
is "$(echo "$bound" | grep -c '^[0-9]*:.$')" 3 "every group within one block"
is "$(echo "$bound" | tr '\n' ' ')" "0:A 1:A 2:B " "block blkA filled before blkB"
like "$(grep -m1 "JobId=$run: BindNow" "$JT_CLUSTER_DIR/log/slurmctld.log")" \
     "west/c1/blkA\[" "the plan names the block as the domain"
done_testing
