#!/bin/bash
# t2090-incremental.sh - the select plugin's snapshot is kept up to date
# from Slurm's events, not rebuilt (issue 12), and equals a rebuild after
# every update: with DebugCrossCheck=yes in jobtree.conf each update
# (runs starting and ending, a plain job, a drained and resumed node, a
# running run's time limit changed, a run shrunk) is compared with a full
# rebuild and logged ("equals a rebuild" or "differs from a rebuild: the
# first difference"). Every step waits for a job_test that follows it (a
# job started), so each update is checked. Pack's warm views are checked
# the same way: each one handed out is compared with a fresh build.
#
# Cluster: see t2000-select.sh.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 10
JT_CLUSTER_SELECT=jobtree
JT_CLUSTER_JOBTREE_EXTRA="DebugCrossCheck=yes"
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
G8="--gres=gpu:h100:8"
LOG=$JT_CLUSTER_DIR/log/slurmctld.log

equal () { grep -c 'DebugCrossCheck: patched snapshot equals a rebuild' "$LOG"; }
differs () { grep 'DebugCrossCheck: patched snapshot differs' "$LOG" | head -n 3; }
# more_checks N: more than N "equals" lines (prints the count)
more_checks () { local n; n=$(equal); echo "checks: $n"; [ "$n" -gt "$1" ]; }
# a run of N nodes that starts (a job_test after the last change)
start_run () {
    local id
    id=$(submit --account="$1" -N"$2" $G8 --group-gpus=$((8 * $2)) -t "${3:-10}" \
                --wrap "sleep 600")
    wait_job_state "$id" RUNNING 20 || bail_out "run $id does not start: $(job_field "$id" Reason)"
    echo "$id"
}

r1=$(start_run team-a 2)
r2=$(start_run team-b 4)
r3=$(start_run team-a 1)
wait_for 20 more_checks 1 || bail_out "no DebugCrossCheck line after three starts"
ok 0 "runs starting: the patched snapshot equals a rebuild ($(equal) checks)"
grep -Eq 'equals a rebuild \([0-9]+ nodes, [1-9][0-9]* leases, [1-9][0-9]* jobs patched\)' "$LOG"
ok $? "leases patched from job events, not rebuilt"

# A plain (non-Jobtree) job holds nodes: only node states change.
n=$(equal)
plain=$(submit -N1 --exclusive -t 10 --wrap "sleep 600")
wait_job_state "$plain" RUNNING 20 || bail_out "the plain job does not start"
r4=$(start_run team-b 1)
wait_for 20 more_checks "$n"
ok $? "a plain job: equal"

# A drained node (no job event: slurmctld's last_node_update), then resumed.
n=$(equal)
scontrol update nodename=gpu16 state=drain reason=t2090
r5=$(start_run team-a 1)
wait_for 20 more_checks "$n"
ok $? "a drained node: equal"
n=$(equal)
scontrol update nodename=gpu16 state=resume
r6=$(start_run team-b 1)
wait_for 20 more_checks "$n"
ok $? "a resumed node: equal"

# A running run's time limit changes (its lease's end; no select hook).
n=$(equal)
scontrol update jobid="$r1" timelimit=20
r7=$(start_run team-a 1)
wait_for 20 more_checks "$n"
ok $? "a time limit changed: equal"

# Runs end (select_p_job_fini), then a run starts on the freed nodes.
n=$(equal)
scancel "$r2" "$r3"
_gone () { [ -z "$(squeue -h -j "$r2,$r3" -t running,completing 2>/dev/null)" ]; }
wait_for 30 _gone || bail_out "r2, r3 did not end"
# r8 is malleable (two groups of 2 nodes): a run shrinks by whole groups.
r8=$(submit --account=team-b -N2-4 $G8 --group-gpus=16 --malleable=16:32:16 -t 10 \
            --wrap "sleep 600")
wait_job_state "$r8" RUNNING 20 || bail_out "run $r8 does not start: $(job_field "$r8" Reason)"
wait_for 20 more_checks "$n"
ok $? "runs ending and another starting: equal"

# A run shrinks (select_p_job_resized per node given up).
n=$(equal)
scontrol update jobid="$r8" numnodes=2
_shrunk () { [ "$(job_field "$r8" NumNodes)" = 2 ]; }
wait_for 20 _shrunk || bail_out "r8 did not shrink: $(job_field "$r8" NumNodes)"
r9=$(start_run team-b 1)
wait_for 20 more_checks "$n"
ok $? "a run shrunk: equal"

is "$(differs)" "" "no update differed from a rebuild"
# Pack's warm views (kept across job_tests, synced with the snapshot): used,
# and each one handed out equal to a fresh build.
views=$(grep -o 'warm pack views: [0-9]* handed out.*' "$LOG" | tail -n 1)
[[ $views =~ ^warm\ pack\ views:\ ([0-9]+)\ handed\ out.*\ ([0-9]+)\ differed$ ]] \
    && [ "${BASH_REMATCH[1]}" -gt 0 ] && [ "${BASH_REMATCH[2]}" = 0 ]
ok $? "warm pack views handed out, none differed from a fresh build ($views)"
scancel "$r1" "$r4" "$r5" "$r6" "$r7" "$r8" "$r9" "$plain"
wait_for 30 queue_empty
done_testing
