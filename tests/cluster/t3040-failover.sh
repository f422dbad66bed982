#!/bin/bash
# t3040-failover.sh - slurmctld fails over to its backup (issue 37): a
# primary and a backup slurmctld on this machine (SlurmctldHost twice; the
# backup in its own UTS and network namespaces, host jtbackup, joined to
# this one by a veth pair, since both bind SlurmctldPort on every address),
# one StateSaveLocation, each with its own jobtree-ledgerd on the one ledger
# directory (the backup's waits: --wait-lock). Reservations activate at
# MaxWait 20 s (preempt/jobtree, PreemptMode=REQUEUE), as in t2050.
#
# Phase 1, `scontrol takeover` (Slurm 22.05: the backup asks the primary to
# shut down, then takes over) with under way: a run with a spare that has
# swapped it in for a failed node (west); a lottery just drawn (a team-c
# run's reservation activated at MaxWait on C, two one-node runs of team-b
# requeued, as t2050; the run waits for them to die: they ignore SIGTERM,
# KillWait 10 s); a team-d run reserved and waiting for its funding
# (team-d's other run holds it; no activation applies to it) with a plain
# job on D, so D can never be cleared. The primary's sidecar is then
# stopped, as the admin guide's SlurmctldPrimaryOffProg does, and the
# backup's takes the ledger over. On the backup: the lottery's run starts
# where it cleared and nothing is drawn again; the reserved run keeps its
# reservation (same id) and starts on it once funded; the victims run again.
# Phase 2: the backup, in control, is killed (SIGKILL) with its sidecar, a
# run's End waiting in the shared spool, two runs reserved waiting for
# funding; the old primary comes back (its sidecar takes the ledger over
# from a writer that did not stop: epoch 3, a segment of its own).
# After each phase (check_phase): `jobtree verify` passes with no lease
# open, each run's leases hold its GPU-seconds as Slurm ran it, no run
# started twice, every reservation was created once and activated, and the
# ledger holds the one Activation. Prints the takeover's times: from the
# primary gone to the backup in control, to its plugin reconciled, to its
# first Jobtree decision (a run submitted once the primary is gone); after
# the kill, the old primary's start to its plugin reconciled.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 32
# Budgets: the test cluster's (team-a west, team-b east) and 16 GPUs each
# east for team-c and team-d; the activation cluster's settings.
BUD=$(east_budgets team-c:16 team-d:16)
cp "$JT_SRCDIR"/etc/slurm/test-cluster/budgets/*.json "$BUD/"
JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$BUD JT_CLUSTER_CRED_EXPIRE=10 \
JT_CLUSTER_SLURM_EXTRA="PreemptType=preempt/jobtree
PreemptMode=REQUEUE" JT_CLUSTER_JOBTREE_EXTRA="MaxWait=20s" \
    cluster_setup "${1:?usage: $0 BUILDDIR}"
rm -rf "$BUD"
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
        tr '\0' ' ' 2>/dev/null < "/proc/$p/cmdline" | grep -qF -- "$1" && echo "$p"
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
# A due activation is drawn at the main scheduler's next pass (preemption
# is the main scheduler's): every 5 s here, not sched_interval's 60.
# A requeued victim that ignores SIGTERM holds its node KillWait s: the
# activated run waits that long, its lottery drawn, for the takeover.
sed -i -e 's|^SchedulerParameters=.*|&,sched_interval=5|' -e 's|^KillWait=.*|KillWait=10|' "$SLURM_CONF"
# The backup's own slurm.conf beside the primary's (so it finds the same
# jobtree.conf, gres.conf, topology.conf): only its pid and log files differ.
sed -e "s|^SlurmctldPidFile=.*|SlurmctldPidFile=$D/run/slurmctld-backup.pid|" \
    -e "s|^SlurmctldLogFile=.*|SlurmctldLogFile=$D/log/slurmctld-backup.log|" \
    "$SLURM_CONF" > "$D/etc/slurm-backup.conf"
cluster_start
G8="--gres=gpu:h100:8"
BLOG=$D/log/slurmctld-backup.log
primary_ledgerd=$(daemon_pid jobtree-ledgerd) primary_ctld=$(ctld_pid)

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

G8="--gres=gpu:h100:8"
# A victim of the lottery sleeps long the first time, deaf to SIGTERM (it
# dies by SIGKILL, KillWait after its requeue), and briefly once requeued.
VICTIM='if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then sleep 1; else trap "" TERM; sleep 600; fi'
# The ledger's events of TYPE (of run JOB if given), one a line.
_evs () { ledger_payloads | grep "\"type\":\"$1\"" | grep -- "${2:+\"run\":\"jtc:$2\"}"; }
_resv_of () { _evs ReservationCreate "$1" | grep -o '"reservation":"[^"]*"' | head -n1 | cut -d'"' -f4; }
_reserved () { [ -n "$(_resv_of "$1")" ]; }
_no_open () { jobtree_cli verify "$JT_LEDGER_DIR" 2>/dev/null | grep -q ', 0 open;'; }
_drawn () { cat "$@" | grep -Ec "reservation jtc:[0-9]+:resv:[0-9]+ (activates|reclaims) "; }

# check_phase LABEL ACTIVATIONS JOB...: once the Jobtree runs JOB... are
# over (7 tests): every run finished; `jobtree verify` passes (its output
# left in $VERIFIED) with no lease open; each run's leases from Slurm's
# StartTime hold its GPU-seconds as Slurm ran it (a requeued run's earlier
# leases ended at its requeue; a run with spares held N0[JOB] nodes until
# its NodeFail, NumNodes after); no run started twice (no lease id twice,
# a run's Active leases are its Restarts + 1 and one per swap: every run
# here has one group); every reservation was created once for its run and
# activated; the ledger holds ACTIVATIONS Activation events and the
# controllers' logs drew as many.
declare -A N0
check_phase () {
    local label=$1 acts=$2 id st en nn want got g role s e tf r n fails bad= twice= out
    shift 2
    wait_for 120 queue_empty
    ok $? "$label: every run finished"
    wait_for 60 _no_open
    VERIFIED=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
    ok $? "$label: jobtree verify: $(head -n1 <<< "$VERIFIED")"
    like "$VERIFIED" ", 0 open;" "$label: every lease that started has ended"
    for id; do
        st=$(epoch "$(job_field "$id" StartTime)") en=$(epoch "$(job_field "$id" EndTime)")
        nn=$(job_field "$id" NumNodes) r=$(job_field "$id" Restarts)
        want=$(( 8 * nn * (en - st) ))
        fails=$(_evs NodeFail "$id" | wc -l)
        if [ -n "${N0[$id]:-}" ]; then
            tf=$(_evs NodeFail "$id" | grep -o '"time":[0-9]*' | head -n1 | cut -d: -f2)
            want=$(( want + 8 * (N0[$id] - nn) * (${tf:-$st} - st) ))
        fi
        got=0 n=0
        while IFS='|' read -r g role s e; do
            s=$(epoch "$s") e=$(epoch "$e")
            [ "$s" -ge "$st" ] && got=$(( got + g * (e - s) ))
            [ "$role" = Active ] && n=$((n + 1))
        done < <(jobtree_cli report leases -P -n -j "$id" -o GPUs,Role,Start,End "$JT_LEDGER_DIR")
        [ "$got" = "$want" ] || bad+="$id: leases $got GPU-s, Slurm $want; "
        [ "$n" = $(( r + 1 + fails )) ] || twice+="$id: $n Active leases, Restarts=$r, $fails swaps; "
    done
    is "$bad" "" "$label: each run's leases hold its GPU-seconds as Slurm ran it"
    twice+=$(jobtree_cli report leases -P -n -o Lease "$JT_LEDGER_DIR" | sort | uniq -d | tr '\n' ' ')
    is "$twice" "" "$label: no run started twice (no lease id twice; Active leases = Restarts + 1 + swaps)"
    out=$(jobtree_cli report reservations -P -n -o Run,Activated "$JT_LEDGER_DIR")
    is "$(cut -d'|' -f1 <<< "$out" | sort | uniq -d | tr '\n' ' ')/$(grep -c '|Unknown$' <<< "$out")" "/0" \
       "$label: $(grep -c . <<< "$out") reservations, each its run's only one, each activated"
    local resvs=$(_evs Activation | grep -o '"reservation":"[^"]*"' | sort)
    local n_act=$(grep -c . <<< "$resvs") n_uniq=$(sort -u <<< "$resvs" | grep -c .)
    local n_drawn=$(_drawn "$D/log/slurmctld.log" "$BLOG")
    is "$n_act/$n_uniq/$n_drawn" "$acts/$acts/$acts" \
       "$label: $acts Activation in the ledger, each its own reservation's, drawn as often in the controllers' logs"
}

## Phase 1's workload. East: on D a plain job and team-d's run Q (team-d's
## whole budget); on C four one-node team-b runs, the lottery's pool (t2050).
## West: team-a's run S with a spare.
plain=$(submit -N2 --exclusive --constraint=fabric.domain=D -t 10 --wrap "sleep 600")
q=$(submit --account=team-d -N2 $G8 --group-gpus=16 --constraint=fabric.domain=D -t 10 --wrap "sleep 600")
v=()
for i in 1 2 3 4; do
    v+=("$(submit --account=team-b -N1 $G8 --group-gpus=8 --constraint=fabric.domain=C -t 10 \
           --wrap "$VICTIM")")
done
s=$(submit --account=team-a -N2 $G8 --group-gpus=16 --spares=1 -t 10 --wrap "sleep 600")
for j in "$plain" "$q" "${v[@]}" "$s"; do
    wait_job_state "$j" RUNNING 30 || bail_out "job $j does not start: $(job_field "$j" Reason) $(last_err)"
done
N0[$s]=$(job_field "$s" NumNodes)
# The spare swap (t2080): a node of S's group, not its batch host, fails.
batch=$(job_field "$s" BatchHost)
sv=$(job_field "$s" AdminComment | sed 's/^jobtree\/1 //' | python3 -c '
import json, sys
print("\n".join(n for l in json.load(sys.stdin)["bound"]["leases"] for n in l["nodes"]))' \
     | grep -vx "$batch" | head -n1)
scontrol update nodename="$sv" state=down reason=t3040
_swapped () { [ "$(_evs End "$s" | grep -c '"reason":"Swap"')/$(_evs Start "$s" | wc -l)" = 1/3 ]; }
wait_for 20 _swapped
ok $? "run $s swapped its spare in for $sv: $(job_field "$s" JobState) on $(job_field "$s" NumNodes) of ${N0[$s]} nodes"
# BIG, funded, waits for room: at its reservation's creation + MaxWait
# the lottery clears C. R (on D) waits for team-d's funding: no activation
# applies to it.
big=$(submit --account=team-c -N2 $G8 --group-gpus=16 -t 2 --wrap "sleep 8")
r=$(submit --account=team-d -N2 $G8 --group-gpus=16 --constraint=fabric.domain=D -t 2 --wrap "sleep 5")
wait_for 20 _reserved "$big" && wait_for 20 _reserved "$r"
ok $? "run $r reserved for its funding ($(_resv_of "$r")), run $big for room ($(_resv_of "$big"))"
rid=$(_resv_of "$r")
_lottery () { [ "$(_evs Activation | wc -l)/$(_evs End | grep -c '"reason":"RandomPreempt"')" = 1/2 ]; }
wait_for 60 _lottery
is "$(_evs Activation | wc -l)/$(job_field "$big" JobState)" 1/PENDING \
   "the lottery drawn on the primary: one Activation, two runs requeued; run $big waits for them to die"
seed=$(_evs Activation | grep -o '"seed":"[0-9a-f]*"' | head -n1)
diag "at the takeover: $(for j in "${v[@]}" "$s" "$r" "$big"; do echo "$j=$(job_field "$j" JobState)/$(job_field "$j" Restarts)"; done | paste -sd' ')"

## Takeover, then the old primary's sidecar goes (SlurmctldPrimaryOffProg).
## A one-node run PROBE is submitted once the primary has exited: sbatch
## retries until the backup is in control, which decides it at once.
t_take=$(date +%s)
scontrol takeover >/dev/null 2>&1
_primary_gone () { ! kill -0 "$primary_ctld" 2>/dev/null; }
wait_for 30 _primary_gone
t_down=$(date +%s%N)
( submit --account=team-a -N1 $G8 --group-gpus=8 -t 2 --wrap "sleep 1" > "$D/probe.id" ) &
probe_sub=$!
_backup_rules () { grep -q "reconciled with the ledger" "$BLOG" 2>/dev/null; }
wait_for 60 _backup_rules
ok $? "scontrol takeover: the backup's select plugin reconciled with the ledger: $(grep -o 'reconciled with the ledger.*' "$BLOG" | tail -n1)"
kill -TERM "$primary_ledgerd"
_lock_moved () { grep -q "writer epoch 2" "$D/log/ledgerd-backup.log" 2>/dev/null; }
wait_for 30 _lock_moved
ok $? "the backup's jobtree-ledgerd took the ledger over (epoch 2) $(( $(date +%s) - t_take )) s after the takeover"

# The takeover's times (the backup's log): the primary gone (seen here),
# the backup in control, its plugin reconciled with the ledger, its first
# Jobtree decision (PROBE's BindNow).
_first () { grep -m1 -E "$1" "$BLOG" | sed -E 's/^\[([^]]*)\].*/\1/'; }
wait "$probe_sub"
probe=$(cat "$D/probe.id")
[ -n "$probe" ] || bail_out "the probe run was not submitted: $(last_err)"
_ms () { echo $(( $(date -d "$1" +%s%N) / 1000000 - t_down / 1000000 )); }
wait_for 30 grep -q "JobId=$probe: BindNow" "$BLOG"
diag "takeover: primary gone at $(date -d "@$((t_down / 1000000000))" +%T); after it, ms: backup in control $(_ms "$(_first 'taking over')"), reconciled $(_ms "$(_first 'reconciled with the ledger')"), run $probe accepted $(_ms "$(_first "submit_batch_job: JobId=$probe ")") (sbatch's retries), decided $(_ms "$(_first "JobId=$probe: BindNow")")"

## On the backup: BIG starts where its lottery cleared, not drawn again;
## R still reserved, and once funded (Q cancelled) it
## starts on that reservation; the victims run again; nothing is drawn again.
wait_job_state "$big" "RUNNING|COMPLETING|COMPLETED" 60
is "$(grep -c "JobId=$big: BindNow" "$BLOG")/$(job_domains "$big")/$(_drawn "$BLOG")" "1/C/0" \
   "run $big started by the backup on C, the domain its lottery cleared, with no second draw"
reason_when "$r" "reserved .* from " 30 >/dev/null
ok $? "the backup tells run $r its reservation: $(job_field "$r" Reason | cut -c1-90)"
scancel "$q"
wait_job_state "$r" "RUNNING|COMPLETING|COMPLETED" 60
# the ReservationActivate reaches the ledger through the sidecar after the
# start (the client thread sends it): wait for it there, not a fixed time
_r_activated () { [ -n "$(_evs ReservationActivate "$r")" ]; }
wait_for 30 _r_activated >/dev/null
is "$(_evs ReservationActivate "$r" | grep -o '"reservation":"[^"]*"' | cut -d'"' -f4 | paste -sd' ')" "$rid" \
   "run $r, funded, started on the backup on the primary's reservation $rid"
_victims_done () { [ "$(for j in "${v[@]}"; do echo "$(job_field "$j" JobState)/$(job_field "$j" Restarts)"; done | grep -c '^COMPLETED/1$')" = 2 ]; }
wait_for 90 _victims_done
ok $? "the two requeued victims ran again and completed on the backup"
scontrol update nodename="$sv" state=resume
scancel "$s" "$plain" "${v[@]}" 2>/dev/null
check_phase "takeover" 1 "$q" "${v[@]}" "$s" "$r" "$big" "$probe"
verify_lottery_checks "$VERIFIED" "$seed"

## Phase 2: the backup, now in control, dies with its sidecar (SIGKILL
## both) while a run's End waits in the spool; the old primary comes back.
## 6 runs run (team-a's four the west, its whole budget; one each of
## team-c and -d east), and a second of team-c and of team-d wait,
## reserved, for their owner's funding, on the east's 4 free nodes: room
## is theirs all along, so none is due an activation however long the
## phase runs past MaxWait. (With a team-b run in the east too, the two
## had room for one only: once the phase ran past MaxWait under load, the
## second funded drew a lottery on the first while the funders' nodes
## still completed, one run in ten on 26.05.) The runs end when told (a file
## appears), not by a timer: the first once the backup's sidecar is dead,
## the others once the old primary is back. (Timed, they raced the kill:
## a run that ended on the backup after its last state save ran on in the
## primary's recovered state until its time limit.)
n_starts=$(_evs Start | wc -l) n_resv=$(_evs ReservationCreate | wc -l)
ids2=()
for a in team-a team-a team-a team-a team-c team-d team-c team-d; do
    go=$D/go; [ ${#ids2[@]} = 0 ] && go=$D/go0    # ends while the sidecar is down
    id=$(submit --account=$a -N2 $G8 --group-gpus=16 -t 10 \
                --wrap "while [ ! -e $go ]; do sleep 0.2; done")
    [ -n "$id" ] && ids2+=("$id")
done
_running () { [ "$(squeue -h -t running | wc -l)" -ge 6 ]; }
_counts () { [ "$(_evs Start | wc -l)" -ge $((n_starts + 6)) ] && [ "$(_evs ReservationCreate | wc -l)" -ge $((n_resv + 2)) ]; }
wait_for 30 _running && wait_for 30 _counts
ok $? "8 more runs under the backup: 6 running with their leases, 2 waiting with a reservation"
backup_ledgerd=$(_pid_with "$D/log/ledgerd-backup.log")
backup_ctld=$(_pid_with "$D/etc/slurm-backup.conf" | while read -r p; do grep -qx slurmctld "/proc/$p/comm" && echo "$p"; done)
kill -KILL "$backup_ledgerd"
touch "$D/go0"
wait_job_state "${ids2[0]}" COMPLETED 30
_spooled () { [ -s "$D/ledger-spool/select.spool" ]; }
wait_for 20 _spooled
ok $? "the backup's sidecar killed: run ${ids2[0]} ended, its End waits in the shared spool"
t_end=$(date +%s)
_state_saved () { [ "$(stat -c %Y "$D/state/job_state" 2>/dev/null || echo 0)" -gt "$t_end" ]; }
wait_for 30 _state_saved
kill -KILL "$backup_ctld"
t_kill=$(date +%s%N)
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
t_start=$(date +%s%N)
_spawn "$D/log/slurmctld.out" slurmctld -D -f "$SLURM_CONF"
_primary_back () { [ "$(grep -c "reconciled with the ledger" "$D/log/slurmctld.log")" -gt "$n0" ]; }
wait_for 60 _primary_back
ok $? "the old primary is back in control and reconciled with the ledger: $(grep -o 'reconciled with the ledger.*' "$D/log/slurmctld.log" | tail -n1)"
t_rec=$(grep 'reconciled with the ledger' "$D/log/slurmctld.log" | tail -n1 | sed -E 's/^\[([^]]*)\].*/\1/')
diag "kill -9: the old primary started $(( t_start / 1000000 - t_kill / 1000000 )) ms after the kill, reconciled with the ledger $(( $(date -d "$t_rec" +%s%N) / 1000000 - t_start / 1000000 )) ms after its start"
touch "$D/go"
check_phase "kill -9" 1 "${ids2[@]}"

done_testing
