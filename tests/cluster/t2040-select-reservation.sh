#!/bin/bash
# t2040-select-reservation.sh - a Jobtree run that must wait holds a
# reservation (issue 8, Plan-Later -> reservation, on stock backfill):
# backfill's estimate for it is Jobtree's (one domain, never before its
# envelope funds it), squeue says "jobtree: reserved N nodes in D from T",
# the reservation goes to the ledger (ReservationCreate: run, payer, GPUs,
# earliest start), a short job backfills into the held domain only when it
# ends before that start and a longer one waits, the run starts no later
# than the estimate on the held domain (ReservationActivate before its
# lease Start), a cancelled waiting run's reservation is released, and
# `jobtree verify` accepts the ledger.
#
# Cluster: see t2000-select.sh. team-a's a-west-h100 (64 GPUs) covers
# domains A and B (west); small's small-h100 (8 GPUs) covers west too.
# The run waits for room (no west domain has 4 free nodes) and for funding
# (team-a's 40 GPUs in use + 32 > 64) until blocker bA ends.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 16
JT_CLUSTER_SELECT=jobtree
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
G8="--gres=gpu:h100:8"

resv () {   # resv JOB FIELDS: the job's reservations in the ledger
    jobtree_cli report reservations -P -n -j "$1" -o "$2" "$JT_LEDGER_DIR"
}
_resv_has () {   # _resv_has JOB FIELDS REGEX
    local r
    r=$(resv "$1" "$2")
    echo "job $1 reservations ($2): [$r]"
    grep -Eq -- "$3" <<< "$r"
}

# Blockers: bA one node of A until it ends (20 s; its limit, 3 min, is
# what backfill plans with), bB the whole of B (limit 10 min).
bA=$(submit --account=team-a -N1 $G8 --group-gpus=8 -t 3 --wrap "sleep 20")
wait_job_state "$bA" RUNNING 15 || bail_out "bA does not start"
bB=$(submit --account=team-a -N4 $G8 --group-gpus=32 -t 10 --wrap "sleep 600")
wait_job_state "$bB" RUNNING 15 || bail_out "bB does not start"
is "$(job_domains "$bA") $(job_domains "$bB")" "A B" "the blockers hold a node of A and all of B"

big=$(submit --account=team-a -N4 $G8 --group-gpus=32 -t 2 --wrap "sleep 5")
wait_for 20 why_like "$big" '^reserved 4 nodes in [^ ]*/A from [0-9T:Z-]+ \| ' \
    || bail_out "no reservation announced in domain A"
reason=$JT_WHY_SEEN
reserved=$(epoch "$(resv_from "$reason")")
# squeue's reason is the short form: the one blocker, then where and when
# (to the minute); the whole explanation is `jobtree explain`'s.
brief=$(reason_when "$big" '; reserved [^ ]*/A from ')
like "$brief" "^jobtree: [^;]+; reserved [^ ]*/A from $(date -u -d "@$reserved" +%Y-%m-%dT%H:%M)Z\$" \
   "squeue's reason names the blocker and the reservation: $brief"
ok "$(test "${#brief}" -le 110; echo $?)" "in ${#brief} characters (the explanation: $reason)"
like "$(jobtree_cli explain "$big" | tr '\n' '~')" \
     "^job $big: PENDING, a Jobtree run \(account team-a\)~run: team-a, 32 GPUs of h100 in groups of 32~squeue reason: [^~]+~why, as the select plugin last decided:~  reserved 4 nodes in [^ ]*/A from [0-9T:Z-]+~(    [^ ][^~]*~)+\$" \
     "jobtree explain lays out the run, squeue's reason and the whole explanation"
bA_limit=$(epoch "$(job_field "$bA" EndTime)")
ok "$(test "$reserved" -ge "$bA_limit" && test "$reserved" -le $((bA_limit + 5)); echo $?)" \
   "the estimate is when bA's time limit frees A and funding ($reserved vs $bA_limit): $reason"
wait_for 20 _resv_has "$big" Owner,Envelope,GPUs,Activated,Released \
    '^team-a\|a-west-h100\|32\|Unknown\|Unknown$' \
    || bail_out "no ReservationCreate in the ledger"
ok 0 "ReservationCreate in the ledger: owner, payer, GPUs; neither activated nor released"
is "$(epoch "$(resv "$big" EarliestStart)")" "$reserved" \
   "its earliest start is the estimate squeue shows"

# A short run of another team (its 1-min limit ends before the reserved
# start, also at backfill's 60-s resolution) backfills into A, the only
# west room; a longer one would overlap the reservation and waits.
short=$(submit --account=small -N1 $G8 --group-gpus=8 -t 1 --wrap "sleep 2")
long=$(submit --account=small -N1 $G8 --group-gpus=8 -t 5 --wrap "sleep 2")
wait_job_state "$short" "RUNNING|COMPLETING|COMPLETED" 15
ok $? "the short job starts at once ($(job_field "$short" JobState))"
is "$(job_domains "$short")" "A" "in the reserved domain's free nodes"

wait_job_state "$big" "RUNNING|COMPLETING|COMPLETED" 60 \
    || bail_out "the reserved run did not start: $(job_field "$big" Reason)"
big_start=$(epoch "$(job_field "$big" StartTime)")
ok "$(test "$big_start" -le "$reserved"; echo $?)" \
   "the run starts no later than its reservation ($big_start <= $reserved)"
is "$(job_domains "$big")" "A" "on the reserved domain"
long_start=$(job_field "$long" StartTime)
long_state=$(job_field "$long" JobState)
ok "$(test "$long_state" = PENDING || test "$(epoch "$long_start")" -ge "$big_start"; echo $?)" \
   "the long job never started before the reserved run ($long_state, $long_start)"

# A run that waits behind it (A and B full, team-a's envelope too) and is
# cancelled: its reservation is released (at the next job end or
# job_test, within 10 s).
late=$(submit --account=team-a -N4 $G8 --group-gpus=32 -t 2 --wrap "sleep 5")
wait_for 20 _resv_has "$late" Released '^Unknown$' \
    || bail_out "the second run has no reservation: $(job_field "$late" Reason)"
scancel "$late"
wait_for 30 _resv_has "$late" Released '^[0-9]'
ok $? "a cancelled waiting run's reservation is released"

# Ledger order: the big run's ReservationActivate precedes its lease Start.
_seq_of () { grep -h -n -- "$1" "$JT_LEDGER_DIR"/ledger-*.jtl | head -n1 | cut -d: -f1; }
_both () { [ -n "$(_seq_of "\"jtc:$big:resv:[0-9]*:activate\"")" ] \
           && [ -n "$(_seq_of "\"jtc:$big:[0-9]*:g0:start\"")" ]; }
wait_for 20 _both
act=$(_seq_of "\"jtc:$big:resv:[0-9]*:activate\"")
st=$(_seq_of "\"jtc:$big:[0-9]*:g0:start\"")
ok "$(test -n "$act" && test -n "$st" && test "$act" -lt "$st"; echo $?)" \
   "ReservationActivate (record $act) comes before the lease Start (record $st)"

scancel "$bB" "$long"
wait_for 30 queue_empty
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $(tail -n1 <<< "$out")"
is "$(resv "$late" Activated)" Unknown "the cancelled run's reservation was never activated"
done_testing
