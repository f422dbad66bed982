#!/bin/bash
# t2030-select-leaf.sh - nodes without a fabric.domain feature fall back to
# their topology.conf leaf switch (domA..domD) as the domain, in the select
# plugin and in `jobtree snapshot` alike; features without '=' are ignored.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 7
JT_CLUSTER_SELECT=jobtree
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start

# Drop fabric.domain from every node (keep region and cluster, add a plain
# feature): only topology.conf says where the domains are now.
drop_fabric_domains ,ib

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

topology_domains_run "leaf switch" domA
done_testing
