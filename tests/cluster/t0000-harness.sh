#!/bin/bash
# t0000-harness.sh - the harness itself: a cluster comes up (munged,
# slurmctld, 16 slurmd all registered idle, on ports below the kernel's
# ephemeral range, in its port lane), runs a job, and goes away leaving no process, no
# listening port and no directory behind: not even what its jobs wrote in
# $TMPDIR, the cluster's own temp dir (a Jobtree run's layout file, which
# would otherwise pile up in /tmp). contrib/flake-hunt.sh repeats it.
# With select/cons_tres_jobtree, so a run is bound and given its layout
# (and jobtree-ledgerd is part of what must go away).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"
plan 10
tmpdir_before=${TMPDIR-unset}
JT_CLUSTER_SELECT=jobtree
cluster_setup "${1:?usage: t0000-harness.sh BUILDDIR}"
cluster_start
ok $? "16 nodes idle"
read -r lo _ < /proc/sys/net/ipv4/ip_local_port_range
port=$(sed -n 's/^SlurmctldPort=//p' "$SLURM_CONF")
ok "$([ $((port + JT_NNODES)) -lt "$lo" ]; echo $?)" \
   "ports $port..$((port + JT_NNODES)) lie below the ephemeral range ($lo)"
lanes=${JT_CLUSTER_PORT_LANES:-1} lane=${JT_CLUSTER_PORT_LANE:-0}
is "$(( (port - 20000) % 20 )),$(( (port - 20000) / 20 % lanes ))" "0,$lane" \
   "the ports are a 20-port slot of lane $lane of $lanes (suites run side by side never collide)"
id=$(submit -N2 --gres=gpu:h100:8 --wrap "true")
wait_job_state "$id" COMPLETED 20
is "$(job_field "$id" JobState)" COMPLETED "a 2-node job runs"
run=$(submit --account=team-a -N2 --gres=gpu:h100:8 --group-gpus=16 \
             --wrap 'echo "$TMPDIR"; echo "$JOBTREE_LAYOUT"; test -s "$JOBTREE_LAYOUT" && echo written')
wait_job_state "$run" COMPLETED 20
is "$(cat "$JT_CLUSTER_DIR/log/job-$run.out")" "$JT_CLUSTER_DIR/tmp
$JT_CLUSTER_DIR/tmp/jobtree-layout-$run.json
written" "a Jobtree run's TMPDIR is the cluster's tmp, and its layout file is written there, not in /tmp"
ok "$([ -s "$JT_CLUSTER_DIR/tmp/jobtree-layout-$run.json" ]; echo $?)" \
   "the layout file outlives the job (until teardown)"
dir=$JT_CLUSTER_DIR
cluster_stop
is "${TMPDIR-unset}" "$tmpdir_before" "teardown gives the caller's TMPDIR back"
_listening () {
    local p
    for p in $(ports_in_use 0A); do
        [ "$p" -ge "$port" ] && [ "$p" -le $((port + JT_NNODES)) ] && echo "$p"
    done
}
is "$(grep -lzxF "JT_CLUSTER_ID=$dir" /proc/[0-9]*/environ 2>/dev/null | wc -l)" 0 \
   "no process of the cluster is left"
is "$(_listening)" "" "no port of the cluster is still listening"
ok "$([ ! -e "$dir" ]; echo $?)" "its directory is gone, with the layout file"
done_testing
