#!/bin/bash
# t1005-demo.sh - the demo's workload (contrib/demo-workload.txt, the same
# lines contrib/demo.sh submits) on the demo's budgets (etc/budgets): each
# run ends as the file says (running, pending with a Jobtree reason, or
# refused at submission with a jobtree: line), every running run's groups
# are leases in the ledger, `jobtree report usage` counts the running GPUs
# up to now and `jobtree verify` accepts the ledger. contrib/test.sh also
# runs it on the installed Debian packages (run.sh --installed), which is
# the issue's "apt install, then the demo's workload against Debian's own
# slurmctld with the installed plugins".
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
workload=$top/contrib/demo-workload.txt
mapfile -t lines < <(grep -v '^#' "$workload" | grep -v '^[[:space:]]*$')
plan $(( ${#lines[@]} + 7 ))
JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$top/etc/budgets \
    cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start
G8="--gres=gpu:h100:8"

declare -A want id err
names=()
for l in "${lines[@]}"; do
    read -r name outcome opts <<< "$l"
    names+=("$name"); want[$name]=$outcome
    # shellcheck disable=SC2086  # the options are words
    id[$name]=$(submit -J "$name" --time=10 $G8 $opts --wrap "sleep 300")
    [ "$outcome" = REFUSED ] && err[$name]=$(grep -m1 'error: jobtree:' "$JT_CLUSTER_DIR/last.err")
done

# Every accepted job out of CONFIGURING and through one scheduling pass
# (running, or pending with the reason the plugin gave it).
_settled () {
    local n st r
    for n in "${names[@]}"; do
        [ -n "${id[$n]}" ] || continue
        st=$(job_field "${id[$n]}" JobState)
        r=$(squeue -h -j "${id[$n]}" -o %r 2>/dev/null)
        echo "$n: $st $r"
        case "${want[$n]}:$st" in
        RUNNING:RUNNING) ;;
        PENDING:PENDING) [[ "$r" == jobtree:* ]] || return 1 ;;
        *:RUNNING|*:PENDING) [ "$st" = "${want[$n]}" ] || return 1 ;;
        *) return 1 ;;
        esac
    done
}
wait_for 30 _settled

running=0
for n in "${names[@]}"; do
    case "${want[$n]}" in
    REFUSED)
        is "${id[$n]}:${err[$n]:+jobtree line}" ":jobtree line" \
           "$n is refused at submission with a jobtree: line (${err[$n]#sbatch: error: })" ;;
    *)
        st=$(job_field "${id[$n]}" JobState)
        is "$st" "${want[$n]}" "$n (job ${id[$n]}): ${want[$n]} ($(squeue -h -j "${id[$n]}" -o %r 2>/dev/null))"
        [ "$st" = RUNNING ] && running=$((running + $(job_field "${id[$n]}" AdminComment \
                                | { grep -o '"group":' || true; } | wc -l)))
        ;;
    esac
done

# What a user reads: squeue's reason is short (the blocker and, once
# backfill planned it, the reservation); jobtree explain has the whole
# explanation; a job without Jobtree options is plain Slurm.
wait_for 20 why_like "${id[eval-east]}" '.' || true
ex=$(jobtree_cli explain "${id[eval-east]}")
like "$(tr '\n' '~' <<< "$ex")" "^job ${id[eval-east]}: PENDING, a Jobtree run \(account rai\)~run: rai, 16 GPUs of h100 in groups of 16~squeue reason: [^~]*~why, as the select plugin last decided:~(  [^~]+~)+\$" \
     "jobtree explain: eval-east's whole explanation ($(sed -n '/^why/,$p' <<< "$ex" | tr -s ' \n' ' '))"
r=$(reason_when "${id[eval-east]}" '^jobtree: ')
ok "$(test "${#r}" -le 110 && test "${#r}" -lt "$(sed -n '/^why/,$p' <<< "$ex" | wc -c)"; echo $?)" \
   "squeue's reason is the short form, ${#r} characters: $r"
is "$(jobtree_cli explain "${id[platform]}" | head -n1)" \
   "job ${id[platform]}: RUNNING, a plain Slurm job (no envelope)" "a plain job is shown as such"

# One Start per running group, plus the BudgetLoaded record.
ledger_settled $((running + 1)) 20
ok $? "the ledger holds a Start for each of the $running running groups"
gpus=$(jobtree_cli report usage -P -n -o PeakGPUs "$JT_LEDGER_DIR" | awk '{ s += $1 } END { print s + 0 }')
ok "$(test "${gpus:-0}" -gt 0; echo $?)" \
   "jobtree report usage counts the running GPUs up to now (peak sum $gpus)"
out=$(jobtree_cli report leases "$JT_LEDGER_DIR")
like "$(grep -c ' Active ' <<< "$out")" '^[1-9]' "jobtree report leases lists the Active leases"
out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
ok $? "jobtree verify accepts the ledger: $(tail -n1 <<< "$out")"
done_testing
