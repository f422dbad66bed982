#!/bin/bash
# t1010-reconfigure.sh - budgets and jobtree.conf are re-read on `scontrol
# reconfigure`; a broken file keeps the last good version in force and is
# logged as file:line, never a crash. Also UnfundedPolicy=passthrough.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 18
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
B=$JT_CLUSTER_DIR/budgets
LOG=$JT_CLUSTER_DIR/log/slurmctld.log
J="-N1 --gres=gpu:h100:8 --group-gpus=8 --wrap true"

# cluster_reconfigure (lib.sh): in a later second than the previous load,
# so the change is seen at once, and back with every node known.
reconfigure () { cluster_reconfigure; }

id=$(submit --account=team-a $J)
ok "$(test -n "$id"; echo $?)" "team-a job accepted with the initial budgets"
id=$(submit --account=team-c $J)
like "$(last_err)" "account team-c has no budget" "team-c has no budget yet"

## Break team-a's file (line 4) and add team-c: nothing of it applies.
cat > "$B/team-a.json" <<'JSON'
{
  "owner": "team-a",
  "envelopes": [
    { "name": "a-west-h100", "flavor": "h100", "concurrency": oops }
  ]
}
JSON
sed 's/team-b/team-c/; s/b-east-h100/c-east-h100/; s/"team-a"/"team-b"/' \
    "$B/team-b.json" > "$B/team-c.json"
reconfigure
ok $? "scontrol reconfigure with a broken budget file"
id=$(submit --account=team-a $J)
ok "$(test -n "$id"; echo $?)" "team-a still accepted: last good budgets in force"
id=$(submit --account=team-c $J)
like "$(last_err)" "account team-c has no budget" "team-c's new file not applied (all or nothing)"
like "$(grep 'job_submit/jobtree' "$LOG" | grep -m1 "$B/team-a.json:4:")" \
    "error: job_submit/jobtree: $B/team-a.json:4:[0-9]+: " "the log names file:line"
like "$(grep -m1 'keeping the last good budgets' "$LOG")" \
    "budget directory $B has errors: keeping the last good budgets \(5 owner\(s\)\)" \
    "the log says the last good budgets are kept"
ok "$(scontrol ping >/dev/null; echo $?)" "slurmctld still up"

## Fix it: the new set applies.
cp "$JT_SRCDIR/etc/slurm/test-cluster/budgets/team-a.json" "$B/team-a.json"
reconfigure
id=$(submit --account=team-c $J)
ok "$(test -n "$id"; echo $?)" "after the fix, team-c's budget applies"
like "$(job_field "$id" AdminComment)" '"envelope":"c-east-h100","owner":"team-c"' \
    "team-c funded by its envelope"

## A broken jobtree.conf keeps the previous settings too.
C=$JT_CLUSTER_DIR/etc/jobtree.conf
cp "$C" "$C.good"
printf 'UnfundedPolicy=passthrough\nBudgetDirectory=/nowhere\n' >> "$C"
reconfigure
id=$(submit --account=nobody $J)
like "$(last_err)" "account nobody has no budget" "bad jobtree.conf: still refusing"
n=$(wc -l < "$C")     # the line just appended, whatever the file's header
like "$(grep -m1 "$C:$n: unknown key BudgetDirectory" "$LOG")" \
    "job_submit/jobtree: $C:$n: unknown key BudgetDirectory" "the log names jobtree.conf:$n"

## UnfundedPolicy=passthrough: unfunded runs become plain Slurm jobs.
cp "$C.good" "$C"
sed -i 's/^UnfundedPolicy=.*/UnfundedPolicy=passthrough/' "$C"
reconfigure
id=$(submit --account=nobody $J)
ok "$(test -n "$id"; echo $?)" "passthrough: account without budget accepted"
is "$(job_field "$id" AdminComment)" "" "passthrough: no Jobtree record"
id=$(submit --account=team-a -N2 --gres=gpu:h100:8 --group-gpus=12 --wrap true)
like "$(last_err)" "not a multiple of the 8 GPUs" "passthrough: malformed runs still refused"

## PlainGpuJobs=jobtree: GPU jobs without options are runs too.
echo "PlainGpuJobs=jobtree" >> "$C"
reconfigure
id=$(submit --account=team-a -N1 --gres=gpu:h100:8 --wrap true)
like "$(job_field "$id" AdminComment)" '^jobtree/1 \{"run":\{"owner":"team-a","resources":\{"gpuType":"h100","totalGPUs":8\}\}' \
    "PlainGpuJobs=jobtree: a plain GPU job gets a record"
id=$(submit --account=team-a --wrap true)
is "$(job_field "$id" AdminComment)" "" "PlainGpuJobs=jobtree: CPU jobs stay untouched"
ok "$(scontrol ping >/dev/null; echo $?)" "slurmctld survived it all"

done_testing
