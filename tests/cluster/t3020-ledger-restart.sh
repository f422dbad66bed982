#!/bin/bash
# t3020-ledger-restart.sh - slurmctld killed (SIGKILL) in the middle of a
# workload and restarted: the plugin reconciles its jobs with the ledger
# (LedgerDir) once at start, so no lease is lost or duplicated: every lease
# has one Start and one End, none stays open, every completed run has its
# lease, `jobtree verify` passes, and the reconciliation is logged.
#
# That SIGKILL loses no End: the plugin spools each event at once and sends
# its spool when it starts again, so the reconciliation has nothing to close
# there. A second restart injects the fault it is for: runs end while
# jobtree-ledgerd is down (their Ends wait in the spool), slurmctld is killed
# and the spool is lost. Slurm restores the runs COMPLETED, the ledger still
# has their leases open, and the plugin must close each at start with End
# at the job's end time.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

N=${JT_RESTART_RUNS:-120}
plan 16
JT_CLUSTER_SELECT=jobtree
JT_CLUSTER_CRED_EXPIRE=10
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
G8="--gres=gpu:h100:8"
LOG=$JT_CLUSTER_DIR/log/slurmctld.log

_started_some () { [ "$(squeue -h -t running | wc -l)" -ge 8 ]; }
_ledger_starts () { [ "$(grep -c '"type":"Start"' "$JT_LEDGER_DIR"/ledger-*.jtl)" -ge "$1" ]; }

ids=()
for i in $(seq 1 "$N"); do
    if [ $((i % 2)) -eq 0 ]; then a=team-a; else a=team-b; fi
    id=$(submit --account=$a -N1 $G8 --group-gpus=8 -t 1 --wrap "sleep 2")
    [ -n "$id" ] && ids+=("$id")
done
is "${#ids[@]}" "$N" "$N runs submitted"
# slurmctld saves job state in the background: wait until the file holds
# the submissions, or a SIGKILL loses the jobs themselves (Slurm's doing).
t_sub=$(date +%s)
_state_saved () { [ "$(stat -c %Y "$JT_CLUSTER_DIR/state/job_state" 2>/dev/null || echo 0)" -gt "$t_sub" ]; }
wait_for 30 _state_saved
wait_for 30 _started_some
wait_for 30 _ledger_starts 20
ok $? "runs are starting and their leases reach the ledger"

kill -KILL "$(ctld_pid)"
wait_for 20 ctld_gone
ok $? "slurmctld killed with SIGKILL mid-workload"
sleep 2     # some runs end (and others would start) while it is down
_spawn "$JT_CLUSTER_DIR/log/slurmctld.out" slurmctld -D -f "$SLURM_CONF"
wait_for 30 scontrol ping
ok $? "slurmctld restarted"
like "$(grep 'reconciled with the ledger' "$LOG" | tail -n1)" \
     "leases closed, [0-9]+ open" "the plugin reconciled its jobs with the ledger"
# A job launched just before the SIGKILL but not yet in the saved state is
# launched again after the restart. Its slurmd refuses ("already running,
# do not launch second copy"): Slurm drains that node ("Duplicate jobid",
# agent.c) and requeues the job held ("launch failed requeued held",
# priority 0). That is Slurm's answer to a lost state save, not Jobtree's;
# an admin releases the job and resumes the node, and so does this test, so
# the workload can finish. A requeued job waits out the credential lifetime
# (cred_expire, 10 s here) before it starts again. Each attempt is its own
# lease in the ledger, checked below like the rest.
_drain () {
    local held drained
    # Held means priority 0 (a Jobtree reason may say "held" of a funding
    # hold: that job is waiting, not held).
    held=$(squeue -h -t pending -o '%i %Q' 2>/dev/null | awk '$2 == 0 { print $1 }')
    if [ -n "$held" ]; then
        echo "$held" >> "$JT_CLUSTER_DIR/released"
        scontrol release $held >/dev/null 2>&1
    fi
    drained=$(sinfo -h -N -R -o '%N|%E' 2>/dev/null | awk -F'|' '$2 == "Duplicate jobid" { print $1 }' | sort -u)
    if [ -n "$drained" ]; then
        echo "$drained" >> "$JT_CLUSTER_DIR/resumed"
        for n in $drained; do scontrol update NodeName="$n" State=RESUME >/dev/null 2>&1; done
    fi
    queue_empty
}
wait_for 300 _drain
rc=$?
ok $rc "the workload finished"
[ -s "$JT_CLUSTER_DIR/released" ] && diag "released held jobs: $(sort -un "$JT_CLUSTER_DIR/released" | tr '\n' ' ')"
[ -s "$JT_CLUSTER_DIR/resumed" ] && diag "resumed nodes drained for a duplicate launch: $(sort -u "$JT_CLUSTER_DIR/resumed" | tr '\n' ' ')"
if [ $rc -ne 0 ]; then
    diag "$(squeue -h -o '%i %T %r %N' | head -n 20)"
    diag "$(grep -iE 'requeue|not responding|held|drain|duplicate' "$LOG" | tail -n 10)"
    diag "$(sinfo -h -N -o '%N %T %E')"
fi

# Settled: no open lease left once the spool drained.
_no_open () {
    jobtree_cli verify "$JT_LEDGER_DIR" 2>&1 | head -n 3
    jobtree_cli verify "$JT_LEDGER_DIR" 2>/dev/null | grep -q ', 0 open;'
}
wait_for 60 _no_open
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify (no duplicate id, Start or End): $(head -n1 <<< "$out")"
like "$out" ", 0 open;" "every lease that started has ended"
# Every run that completed in Slurm has a lease closed with End.
missing=0
for id in "${ids[@]}"; do
    st=$(job_field "$id" JobState)
    [ "$st" = COMPLETED ] || continue
    jobtree_cli report leases -P -n -j "$id" -o Reason "$JT_LEDGER_DIR" | grep -qx End \
        || { missing=$((missing + 1)); diag "run $id: $(jobtree_cli report leases -P -n -j "$id" -o Lease,Reason "$JT_LEDGER_DIR" | tr '\n' ' ')"; }
done
is "$missing" 0 "every completed run has its lease ended with End"
# Closed at reconciliation only when Slurm lost the job (JobGone).
bad=0
while IFS='|' read -r run reason; do
    case $reason in
    End) ;;
    JobGone) [ -z "$(job_field "${run#jtc:}" JobState)" ] || { bad=$((bad + 1)); diag "$run: JobGone but known"; } ;;
    *) bad=$((bad + 1)); diag "$run: $reason" ;;
    esac
done < <(jobtree_cli report leases -P -n -o Run,Reason "$JT_LEDGER_DIR")
is "$bad" 0 "every lease ended with End, or JobGone for a job Slurm lost"
diag "leases: $(jobtree_cli report leases -P -n -o Reason "$JT_LEDGER_DIR" | sort | uniq -c | tr '\n' ' ')"


## The fault: Ends lost with the spool. K one-node runs start and their
## Starts reach the ledger; jobtree-ledgerd stops; the runs end (their Ends
## go to the spool); slurmctld's saved state has them COMPLETED; SIGKILL,
## the spool removed, both daemons started again.
# The runs end when the test says so (the file go), not after a time, so
# none ends before the daemon is down.
K=4
rec=()
for i in $(seq 1 $K); do
    id=$(submit --account=team-a -N1 $G8 --group-gpus=8 -t 2 \
                --wrap "while [ ! -e '$JT_CLUSTER_DIR/go' ]; do sleep 0.2; done")
    [ -n "$id" ] && rec+=("$id")
done
_open_k () { jobtree_cli verify "$JT_LEDGER_DIR" 2>/dev/null | grep -q ", $K open;"; }
wait_for 30 _open_k || diag "$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1 | head -n 2)"
_rec_done () {
    local j
    for j in "${rec[@]}"; do [ "$(job_field "$j" JobState)" = COMPLETED ] || return 1; done
}
ledger_stop
ok "$([ ${#rec[@]} = $K ] && _open_k; echo $?)" \
   "$K runs started, their $K leases open in the ledger; jobtree-ledgerd stopped"
touch "$JT_CLUSTER_DIR/go"
wait_for 60 _rec_done || bail_out "the $K runs did not complete"
t_done=$(date +%s)
_spooled () { [ "$(cat "$JT_CLUSTER_DIR"/ledger-spool/* 2>/dev/null | grep -c '"type":"End"')" -ge $K ]; }
wait_for 10 _spooled
ok $? "they completed while the ledger was down: their $K Ends wait in the spool"
_state_saved () { [ "$(stat -c %Y "$JT_CLUSTER_DIR/state/job_state" 2>/dev/null || echo 0)" -gt "$t_done" ]; }
wait_for 30 _state_saved || bail_out "slurmctld did not save its job state"
kill -KILL "$(ctld_pid)"
wait_for 20 ctld_gone || bail_out "slurmctld is not gone"
rm -f "$JT_CLUSTER_DIR"/ledger-spool/*
ledger_start
nlog=$(grep -c 'reconciled with the ledger' "$LOG")
_spawn "$JT_CLUSTER_DIR/log/slurmctld.out" slurmctld -D -f "$SLURM_CONF"
wait_for 30 scontrol ping || bail_out "slurmctld did not restart"
_reconciled () { [ "$(grep -c 'reconciled with the ledger' "$LOG")" -gt "$nlog" ]; }
wait_for 30 _reconciled
like "$(grep 'reconciled with the ledger' "$LOG" | tail -n1)" \
     "reconciled with the ledger: $K leases closed, 0 open, 0 started" \
     "the restarted plugin closed the $K leases whose Ends were lost"
# Each closed with End at its job's end time (Slurm's EndTime, local time).
bad=0
for id in "${rec[@]}"; do
    got=$(jobtree_cli report leases -P -n -j "$id" -o Reason,End "$JT_LEDGER_DIR")
    want="End|$(epoch "$(job_field "$id" EndTime)")"
    [ "${got%%|*}|$(epoch "${got#*|}" 2>/dev/null)" = "$want" ] \
        || { bad=$((bad + 1)); diag "run $id: lease '$got', want $want (EndTime $(job_field "$id" EndTime))"; }
done
is "$bad" 0 "each lease ended End at its job's end time"
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify after the reconciliation: $(head -n1 <<< "$out")"
like "$out" ", 0 open;" "no lease is left open"

done_testing
