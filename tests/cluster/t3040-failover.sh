#!/bin/bash
# t3040-failover.sh - slurmctld fails over to its backup (issue 37): a
# primary and a backup slurmctld on this machine (SlurmctldHost twice; the
# backup in its own UTS and network namespaces, host jtbackup, joined to
# this one by a veth pair, since both bind SlurmctldPort on every address),
# one StateSaveLocation, each with its own jobtree-ledgerd on the one ledger
# directory (the backup's waits: --wait-lock). Mid-workload `scontrol
# takeover` (Slurm 22.05: the backup asks the primary to shut down, then
# takes over); the primary's sidecar is then stopped, as the admin guide's
# SlurmctldPrimaryOffProg does, and the backup's takes the ledger over. Then:
# `jobtree verify` passes with no lease open, each run's leases hold its
# GPU-seconds as Slurm ran them, no run started twice, and the runs that
# waited with a reservation through the takeover kept it. Phase 2: the
# backup, in control, is killed (SIGKILL) with its sidecar, a run's End
# waiting in the shared spool; the old primary comes back (its sidecar
# takes the ledger over from a writer that did not stop: epoch 3, a segment
# of its own); the same checks across both segments.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 21
JT_CLUSTER_SELECT=jobtree
cluster_setup "${1:?usage: $0 BUILDDIR}"
D=$JT_CLUSTER_DIR
# Both slurmctld bind SlurmctldPort on every address: the backup gets a
# network namespace of its own, joined to this one by a veth pair (named
# and numbered by the port lane, so lanes never meet). Every daemon is
# reached on this side's address: the slurmd bind all addresses here.
lane=${JT_CLUSTER_PORT_LANE:-0}
VH=jtfo${lane}h VB=jtfo${lane}b NET=10.231.$((40 + lane))
ip link del "$VH" 2>/dev/null    # a crashed run's
trap 'cluster_stop; ip link del "$VH" 2>/dev/null' EXIT
_spawn "$D/log/netns.out" unshare -n -u sleep 86401
_pid_with () {    # a process of this cluster whose command line holds STRING
    local p
    for p in $(cluster_pids); do
        tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | grep -qF -- "$1" && echo "$p"
    done
}
wait_for 10 _pid_with "sleep 86401" >/dev/null
ns=$(_pid_with "sleep 86401")
{ ip link add "$VH" type veth peer name "$VB" && ip link set "$VB" netns "$ns" \
  && ip addr add "$NET.1/30" dev "$VH" && ip link set "$VH" up \
  && nsenter -t "$ns" -n -u sh -c "hostname jtbackup && ip addr add $NET.2/30 dev $VB \
       && ip link set $VB up && ip link set lo up"; } \
  || bail_out "cannot make the backup's network namespace (ip, nsenter)"
# The primary by its host name on this side (Slurm reads
# SlurmctldHost=localhost as the host it runs on: in the backup's namespace,
# the backup), the backup as jtbackup on the other; the nodes on this side.
sed -i -e "s|^SlurmctldHost=localhost\$|SlurmctldHost=$(hostname)($NET.1)\nSlurmctldHost=jtbackup($NET.2)|" \
    -e "s|NodeAddr=127.0.0.1|NodeAddr=$NET.1|" "$SLURM_CONF"
# The backup's own slurm.conf beside the primary's (so it finds the same
# jobtree.conf, gres.conf, topology.conf): only its pid and log files differ.
sed -e "s|^SlurmctldPidFile=.*|SlurmctldPidFile=$D/run/slurmctld-backup.pid|" \
    -e "s|^SlurmctldLogFile=.*|SlurmctldLogFile=$D/log/slurmctld-backup.log|" \
    "$SLURM_CONF" > "$D/etc/slurm-backup.conf"
cluster_start
G8="--gres=gpu:h100:8"
BLOG=$D/log/slurmctld-backup.log
primary_ledgerd=$(daemon_pid jobtree-ledgerd)

# The backup's daemons, as host jtbackup in its namespaces.
_spawn "$D/log/ledgerd-backup.out" nsenter -t "$ns" -n -u \
    "$JT_BUILDDIR/src/ledgerd/jobtree-ledgerd" -F -d "$JT_LEDGER_DIR" -S "$JT_LEDGER_SOCKET" \
    -u root -L "$D/log/ledgerd-backup.log" --wait-lock --lock-poll 100
_waiting () { grep -q "held by pid $primary_ledgerd on host $(hostname) since .*; waiting" "$D/log/ledgerd-backup.log" 2>/dev/null; }
wait_for 10 _waiting
ok $? "the backup's jobtree-ledgerd waits for the ledger the primary's holds"
_spawn "$D/log/slurmctld-backup.out" env SLURM_CONF="$D/etc/slurm-backup.conf" \
    nsenter -t "$ns" -n -u slurmctld -D -f "$D/etc/slurm-backup.conf"
_ping_is () { scontrol ping 2>/dev/null | grep -q "$1"; }
wait_for 30 _ping_is "(backup) at jtbackup is UP"
ok $? "the backup slurmctld runs as jtbackup: $(scontrol ping 2>&1 | tr '\n' ' ')"

## The workload: 8 runs of 2 nodes fill the 16 nodes, 2 more wait (each
## gets a reservation at its first estimate).
ids=()
for i in $(seq 1 10); do
    if [ $((i % 2)) -eq 0 ]; then a=team-a; else a=team-b; fi
    id=$(submit --account=$a -N2 $G8 --group-gpus=16 -t 2 --wrap "sleep 20")
    [ -n "$id" ] && ids+=("$id")
done
_running () { [ "$(squeue -h -t running | wc -l)" -ge 8 ]; }
_resv () { [ "$(grep -c '"type":"ReservationCreate"' "$JT_LEDGER_DIR"/ledger-*.jtl 2>/dev/null | awk -F: '{s += $NF} END {print s + 0}')" -ge "$1" ]; }
_starts () { [ "$(grep -h -c '"type":"Start"' "$JT_LEDGER_DIR"/ledger-*.jtl 2>/dev/null | awk '{s += $1} END {print s + 0}')" -ge "$1" ]; }
wait_for 30 _running && wait_for 30 _starts 8 && wait_for 30 _resv 2
ok $? "10 runs: 8 running with their leases in the ledger, 2 waiting with a reservation"

## Takeover, then the old primary's sidecar goes (SlurmctldPrimaryOffProg).
t_take=$(date +%s)
scontrol takeover >/dev/null 2>&1
_backup_rules () { grep -q "reconciled with the ledger" "$BLOG" 2>/dev/null; }
wait_for 60 _backup_rules
ok $? "scontrol takeover: the backup's select plugin reconciled with the ledger: $(grep -o 'reconciled with the ledger.*' "$BLOG" | tail -n1)"
kill -TERM "$primary_ledgerd"
_lock_moved () { grep -q "writer epoch 2" "$D/log/ledgerd-backup.log" 2>/dev/null; }
wait_for 30 _lock_moved
ok $? "the backup's jobtree-ledgerd took the ledger over (epoch 2) $(( $(date +%s) - t_take )) s after the takeover"

# From the takeover request to the backup in control and to its plugin
# reconciled with the ledger, in the backup's log.
_first () { grep -m1 -E "$1" "$BLOG" | sed -E 's/^\[([^]]*)\].*/\1/'; }
diag "takeover: requested $(_first 'REQUEST_TAKEOVER'), in control $(_first 'taking over'), reconciled $(_first 'reconciled with the ledger')"

## The workload finishes under the backup.
wait_for 120 queue_empty
ok $? "every run finished after the takeover"
_no_open () { jobtree_cli verify "$JT_LEDGER_DIR" 2>/dev/null | grep -q ', 0 open;'; }
wait_for 60 _no_open
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify: $(head -n1 <<< "$out")"
like "$out" ", 0 open;" "every lease that started has ended"

## Each run's leases hold the GPU-seconds Slurm ran it for, once.
bad=0
for id in "${ids[@]}"; do
    st=$(job_field "$id" StartTime); en=$(job_field "$id" EndTime)
    want=$(( 16 * ($(epoch "$en") - $(epoch "$st")) ))
    got=0
    while IFS='|' read -r g s e; do
        got=$(( got + g * ($(epoch "$e") - $(epoch "$s")) ))
    done < <(jobtree_cli report leases -P -n -j "$id" -o GPUs,Start,End "$JT_LEDGER_DIR")
    [ "$got" = "$want" ] || { bad=$((bad + 1)); diag "run $id: leases $got GPU-s, Slurm $want ($st..$en)"; }
done
is "$bad" 0 "each run's leases hold its GPU-seconds as Slurm ran it"
twice=$(jobtree_cli report leases -P -n -o Run "$JT_LEDGER_DIR" | sort | uniq -d | tr '\n' ' ')
restarts=$(for id in "${ids[@]}"; do job_field "$id" Restarts; done | sort -u | tr '\n' ' ')
is "$twice/$restarts" "/0 " "no run started twice (one lease each, Restarts=0)"
# The waiting runs' reservations: each created once and activated once.
acts=$(grep -h -c '"type":"ReservationActivate"' "$JT_LEDGER_DIR"/ledger-*.jtl | awk '{s += $1} END {print s + 0}')
creates=$(grep -h -c '"type":"ReservationCreate"' "$JT_LEDGER_DIR"/ledger-*.jtl | awk '{s += $1} END {print s + 0}')
is "$creates/$acts" "2/2" "the 2 waiting runs kept their reservations through the takeover and started on them"

## Phase 2: the backup, now in control, dies with its sidecar (SIGKILL
## both) while a run's End waits in the spool; the old primary comes back.
ids2=()
for i in $(seq 1 10); do
    if [ $((i % 2)) -eq 0 ]; then a=team-a; else a=team-b; fi
    w="sleep 25"; [ "$i" = 1 ] && w="sleep 5"    # ends while the sidecar is down
    id=$(submit --account=$a -N2 $G8 --group-gpus=16 -t 2 --wrap "$w")
    [ -n "$id" ] && ids2+=("$id")
done
wait_for 30 _running && wait_for 30 _starts 18 && wait_for 30 _resv 4
ok $? "10 more runs under the backup: 8 running with their leases, 2 waiting with a reservation"
backup_ledgerd=$(_pid_with "$D/log/ledgerd-backup.log")
backup_ctld=$(_pid_with "$D/etc/slurm-backup.conf" | while read -r p; do grep -qx slurmctld "/proc/$p/comm" && echo "$p"; done)
kill -KILL "$backup_ledgerd"
wait_job_state "${ids2[0]}" COMPLETED 30
_spooled () { [ -s "$D/ledger-spool/select.spool" ]; }
wait_for 20 _spooled
ok $? "the backup's sidecar killed: run ${ids2[0]} ended, its End waits in the shared spool"
t_end=$(date +%s)
_state_saved () { [ "$(stat -c %Y "$D/state/job_state" 2>/dev/null || echo 0)" -gt "$t_end" ]; }
wait_for 30 _state_saved
kill -KILL "$backup_ctld"
wait_for 20 ctld_gone
ok $? "the backup slurmctld killed (SIGKILL) in control, mid-workload"

## The old primary comes back: its sidecar (waiting for the lock, which
## died with the backup's) takes the ledger over from a writer that did
## not stop, onto a segment of its own; its slurmctld takes control.
_spawn "$D/log/ledgerd-2.out" "$JT_BUILDDIR/src/ledgerd/jobtree-ledgerd" -F -d "$JT_LEDGER_DIR" \
    -S "$JT_LEDGER_SOCKET" -u root -L "$D/log/ledgerd-2.log" --wait-lock --lock-poll 100
_took () { grep -q "writer epoch 3, taken over from a writer that did not stop" "$D/log/ledgerd-2.log" 2>/dev/null; }
wait_for 20 _took
ok $? "the primary's new sidecar took the ledger over (epoch 3, a segment of its own)"
n0=$(grep -c "reconciled with the ledger" "$D/log/slurmctld.log")
_spawn "$D/log/slurmctld.out" slurmctld -D -f "$SLURM_CONF"
_primary_back () { [ "$(grep -c "reconciled with the ledger" "$D/log/slurmctld.log")" -gt "$n0" ]; }
wait_for 60 _primary_back
ok $? "the old primary is back in control and reconciled with the ledger: $(grep -o 'reconciled with the ledger.*' "$D/log/slurmctld.log" | tail -n1)"
wait_for 120 queue_empty
ok $? "every run finished"
wait_for 60 _no_open
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify across the segments: $(head -n1 <<< "$out")"
like "$out" ", 0 open;" "every lease that started has ended"
bad=0
for id in "${ids2[@]}"; do
    st=$(job_field "$id" StartTime); en=$(job_field "$id" EndTime)
    want=$(( 16 * ($(epoch "$en") - $(epoch "$st")) ))
    got=0
    while IFS='|' read -r g s e; do
        got=$(( got + g * ($(epoch "$e") - $(epoch "$s")) ))
    done < <(jobtree_cli report leases -P -n -j "$id" -o GPUs,Start,End "$JT_LEDGER_DIR")
    [ "$got" = "$want" ] || { bad=$((bad + 1)); diag "run $id: leases $got GPU-s, Slurm $want ($st..$en)"; }
done
twice=$(jobtree_cli report leases -P -n -o Run "$JT_LEDGER_DIR" | sort | uniq -d | tr '\n' ' ')
restarts=$(for id in "${ids2[@]}"; do job_field "$id" Restarts; done | sort -u | tr '\n' ' ')
is "$bad/$twice/$restarts" "0//0 " "each run's leases hold its GPU-seconds, none started twice"
acts=$(grep -h -c '"type":"ReservationActivate"' "$JT_LEDGER_DIR"/ledger-*.jtl | awk '{s += $1} END {print s + 0}')
creates=$(grep -h -c '"type":"ReservationCreate"' "$JT_LEDGER_DIR"/ledger-*.jtl | awk '{s += $1} END {print s + 0}')
is "$creates/$acts" "4/4" "the waiting runs kept their reservations through both failovers"

done_testing
