#!/bin/bash
# t2059-select-nomination.sh - the domain an activation cleared is held for
# the run it activated (issue 32 item 2, seed 002's nomination): between the
# activation and the run's start, a third job that would take the freed
# nodes first is kept off them (restart.c: jtsel_restart_nominate, as a
# restart's slice is held), so the run starts where its victims made room.
#
# Cluster: see t2000-select.sh; the activation cluster of t2052 (MaxWait
# 20 s), with an Epilog of 4 s, so the nodes a shrink frees stay COMPLETING
# a while after the activation. D: a plain 4-node job. C: a malleable run
# of team-b, four one-node groups (--malleable=16:32:8). The run: team-c,
# 2 nodes in one domain: deficit 16 on C, two groups shrunk. As soon as the
# activation is logged, a plain 2-node job for C is submitted and put ahead
# of everything (Priority): without the hold it is the one the freed nodes
# go to.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 5
bud=$(east_budgets team-b:64 team-c:16)
JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$bud JT_CLUSTER_CRED_EXPIRE=10 \
JT_CLUSTER_SLURM_EXTRA="PreemptType=preempt/jobtree
PreemptMode=REQUEUE" JT_CLUSTER_JOBTREE_EXTRA="MaxWait=20s" \
    cluster_setup "${1:?usage: $0 BUILDDIR}"
rm -rf "$bud"
printf '#!/bin/sh\nsleep 4\n' > "$JT_CLUSTER_DIR/etc/epilog.sh"
chmod 0755 "$JT_CLUSTER_DIR/etc/epilog.sh"
echo "Epilog=$JT_CLUSTER_DIR/etc/epilog.sh" >> "$JT_CLUSTER_DIR/etc/slurm.conf"
cluster_start
G8="--gres=gpu:h100:8"

plain=$(submit -N4 --exclusive --constraint=fabric.domain=D -t 10 --wrap "sleep 600")
wait_job_state "$plain" RUNNING 15 || bail_out "the plain job does not start"
mall=$(submit --account=team-b -N2-4 $G8 --group-gpus=8 --malleable=16:32:8 \
              --constraint=fabric.domain=C -t 10 --wrap "sleep 600")
wait_job_state "$mall" RUNNING 15 || bail_out "the malleable run does not start"
big=$(submit --account=team-c -N2 $G8 --group-gpus=16 -t 2 --wrap "sleep 30")
wait_for 30 reason_like "$big" '^jobtree: [^;]+; reserved [^ ]+ from ' \
    || bail_out "no reservation: $(job_field "$big" Reason)"

_activated () { grep -Eq "JobId=$big: reservation jtc:$big:resv:[0-9]+ activates" \
                    "$JT_CLUSTER_DIR/log/slurmctld.log"; }
wait_for 60 _activated || bail_out "no activation: $(job_field "$big" Reason)"
third=$(submit -N2 --exclusive --constraint=fabric.domain=C -t 10 --wrap "sleep 600")
scontrol update jobid="$third" priority=4294967000
ok $? "a plain 2-node job for C submitted right after the activation, put first ($(job_field "$third" Priority) over $(job_field "$big" Priority))"
is "$(job_field "$mall" JobState)" RUNNING "the malleable run is being shrunk, not requeued"

wait_job_state "$big" "RUNNING|COMPLETING|COMPLETED" 60 \
    || bail_out "the run did not start: $(job_field "$big" Reason); the third job: $(job_field "$third" JobState) $(job_field "$third" NodeList)"
is "$(job_domains "$big") $(job_field "$third" JobState)" "C PENDING" \
   "the run starts on C, on the nodes its activation freed; the third job, though first, still waits"
grep -Eq "JobId=$third.*(Started|sched: Allocate)" "$JT_CLUSTER_DIR/log/slurmctld.log"
is $? 1 "the third job never started meanwhile"
scancel "$third" "$mall" "$plain"
wait_for 60 queue_empty
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $(tail -n1 <<< "$out")"
done_testing
