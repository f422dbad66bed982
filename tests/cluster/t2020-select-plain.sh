#!/bin/bash
# t2020-select-plain.sh - jobs without Jobtree options get exactly
# cons_tres's placement under select/cons_tres_jobtree: the same sequence of
# plain CPU and GPU jobs (whole and partial nodes, --switches, a pending one)
# is run on a stock cluster and on a Jobtree cluster, and Slurm's answers
# (state, node list and reason of every job) must be identical.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 5
BUILD=${1:?usage: $0 BUILDDIR}
G="--gres=gpu:h100"

# The workload: one sbatch option set per line.
JOBS=(
    "-N1"
    "-N2 $G:8"
    "-N1 $G:4"
    "-N3 $G:8"
    "-N2 $G:8 --switches=1"
    "-n4"
    "-N1 $G:2"
    "-N4 $G:8"
    "-N1 $G:6"
    "-N6 $G:8"
)

# run_plain OUT: submit JOBS in order (each settles before the next) and
# write "state nodes reason" per job.
run_plain () {
    local out=$1 opts id ids=()
    cluster_start
    for opts in "${JOBS[@]}"; do
        # shellcheck disable=SC2086
        id=$(submit $opts --wrap "sleep 120")
        [ -n "$id" ] || bail_out "sbatch $opts: $(last_err)"
        wait_job_state "$id" "RUNNING|PENDING" 10
        # give the scheduler a pass so a pending job is really pending
        wait_for 3 job_field_like "$id" JobState '^RUNNING$'
        ids+=("$id")
    done
    for id in "${ids[@]}"; do
        echo "$(job_field "$id" JobState) $(job_field "$id" NodeList)" \
             "$(job_field "$id" Reason)"
    done > "$out"
    cluster_stop
}

TMP=$(mktemp -d /tmp/jt-plain.XXXXXX)
JT_CLUSTER_SELECT=cons_tres cluster_setup "$BUILD"
run_plain "$TMP/stock"
JT_CLUSTER_SELECT=jobtree cluster_setup "$BUILD"
run_plain "$TMP/jobtree"

is "$(wc -l < "$TMP/stock")" "${#JOBS[@]}" "stock: every job answered"
is "$(grep -c RUNNING "$TMP/stock")" 9 "stock: 9 run, the last one waits for nodes"
is "$(cat "$TMP/jobtree")" "$(cat "$TMP/stock")" \
   "plain jobs: identical states and nodes under cons_tres and the Jobtree wrapper"
diag "$(paste -d'|' "$TMP/stock" "$TMP/jobtree")"
is "$(grep -c jobtree "$TMP/jobtree")" 0 "no Jobtree reason on any plain job"
ok "$(test "$(head -n1 "$TMP/jobtree")" = "RUNNING gpu01 None"; echo $?)" \
   "the first job is on gpu01, as cons_tres does"
rm -rf "$TMP"
done_testing
