#!/bin/bash
# t2030-select-leaf.sh - nodes without a fabric.domain feature fall back to
# their topology.conf leaf switch (domA..domD) as the domain, in the select
# plugin and in `jobtree snapshot` alike; features without '=' are ignored.
. "$(dirname "$0")/lib.sh"

plan 7
JT_CLUSTER_SELECT=jobtree
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
G8="--gres=gpu:h100:8"

# Drop fabric.domain from every node (keep region and cluster, add a plain
# feature): only topology.conf says where the domains are now.
scontrol update NodeName=gpu[01-08] AvailableFeatures=region=west,cluster=c1,ib \
    ActiveFeatures=region=west,cluster=c1,ib
ok $? "west nodes lose their fabric.domain feature"
scontrol update NodeName=gpu[09-16] AvailableFeatures=region=east,cluster=c1,ib \
    ActiveFeatures=region=east,cluster=c1,ib
ok $? "east nodes too"

snap=$JT_CLUSTER_DIR/snap.json
"$JT_BUILDDIR/src/cli/jobtree" snapshot -o "$snap"
is "$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
nodes = {n["name"]: n for n in s["nodes"]}
print(" ".join("%s=%s" % (k, nodes[k]["labels"].get("fabric.domain", "-"))
               for k in ("gpu01", "gpu08", "gpu16")),
      ",".join(sorted(nodes["gpu01"]["labels"])))' "$snap")" \
   "gpu01=domA gpu08=domB gpu16=domD cluster,fabric.domain,region" \
   "jobtree snapshot: leaf switches as domains, plain features ignored"

run=$(submit --account=team-a -N6 $G8 --group-gpus=16 --wrap "sleep 60")
wait_job_state "$run" RUNNING 10
is "$(job_field "$run" JobState)" RUNNING "a 3-group run starts"
bound=$(job_field "$run" AdminComment | sed 's/^jobtree\/1 //' | python3 -c '
import json, sys
for l in json.load(sys.stdin)["bound"]["leases"]:
    print("%d:%s" % (l["group"], "".join(sorted({"ABCD"[(int(n[3:]) - 1) // 4]
                                                  for n in l["nodes"]}))))')
is "$(echo "$bound" | grep -c '^[0-9]*:.$')" 3 "every group within one leaf switch"
is "$(echo "$bound" | tr '\n' ' ')" "0:A 1:A 2:B " "leaf domA filled before domB"
like "$(grep -m1 "JobId=$run: BindNow" "$JT_CLUSTER_DIR/log/slurmctld.log")" \
     "west/c1/domA\[" "the plan names the leaf switch as the domain"
done_testing
