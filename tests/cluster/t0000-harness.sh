#!/bin/bash
# t0000-harness.sh - the harness itself: a cluster comes up (munged,
# slurmctld, 16 slurmd all registered idle, on ports below the kernel's
# ephemeral range, in its port lane), runs a job, and goes away leaving no process, no
# listening port and no directory behind. contrib/flake-hunt.sh repeats it.
. "$(dirname "$0")/lib.sh"
plan 7
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
dir=$JT_CLUSTER_DIR
cluster_stop
_listening () {
    local p
    for p in $(ports_in_use 0A); do
        [ "$p" -ge "$port" ] && [ "$p" -le $((port + JT_NNODES)) ] && echo "$p"
    done
}
is "$(grep -lzxF "JT_CLUSTER_ID=$dir" /proc/[0-9]*/environ 2>/dev/null | wc -l)" 0 \
   "no process of the cluster is left"
is "$(_listening)" "" "no port of the cluster is still listening"
ok "$([ ! -e "$dir" ]; echo $?)" "its directory is gone"
done_testing
