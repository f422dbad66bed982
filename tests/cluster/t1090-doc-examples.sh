#!/bin/bash
# t1090-doc-examples.sh - the documented examples that need a cluster
# (tests/doc/lib.sh finds and classifies them; tests/doc/examples.sh runs
# the rest), all on one cluster set up as the demo's: select/cons_tres_jobtree,
# preempt/jobtree, the ledger, etc/budgets, 16 nodes of 8 h100 in 4 domains.
#
#   cluster-commands    each sbatch is accepted, a job with a Jobtree option
#                       gets its record, and the job (its script is `true`)
#                       runs to completion on the idle cluster; jobtree
#                       commands exit 0
#   cluster-transcript  what the commands print is the example's text
#   cluster-script      the example as a shell script exits 0
#   cluster-slurmconf   the documented keys have their values in
#                       `scontrol show config`, up to case (paths and
#                       NodeName lines are the cluster's own)
#   cluster-schema      the example's lines, its placeholders standing for
#                       values, are among what a command prints here (a
#                       job's record, the ledger's files, slurmctld's log)
#   cluster-grammar     every line a command prints (the ledger's records)
#                       is an instance of the example's ABNF (abnf.py)
#
# Every node is labelled gpu.mem=80 (an H100's 80 GB), so the documented
# --node-constraint='gpu.mem GE 80' runs as written.
#
# The queue is emptied after each example, so each meets an idle cluster.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"
srcdir=$JT_SRCDIR
. "$JT_SRCDIR/tests/doc/lib.sh"

export JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$JT_SRCDIR/etc/budgets
JT_CLUSTER_SLURM_EXTRA=$'PreemptType=preempt/jobtree\nPreemptMode=REQUEUE'
for i in $(seq 1 16); do eval "JT_CLUSTER_FEATURES_$(printf gpu%02d "$i")=gpu.mem=80"; done
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start

PATH=$JT_BUILDDIR/src/cli:$PATH
work=$JT_CLUSTER_DIR/doc
mkdir -p "$work"
for s in job.sh train.sh; do printf '#!/bin/sh\ntrue\n' > "$work/$s"; done
export JT_DOC_BUDGETS=$JT_SRCDIR/etc/budgets JT_DOC_ANCHOR=$work/ledger.anchor
# The user guide's examples leave --account out (the user's default
# account pays); this cluster has no accounting database, so the guide says
# to set SBATCH_ACCOUNT, as here.
export SBATCH_ACCOUNT=rai
# Examples run marked, so their jobs are this cluster's (cluster_stop); only
# they carry the marker, never this shell's other children.
doc_run="env JT_CLUSTER_ID=$JT_CLUSTER_DIR"

jt_opt_re='--(group-gpus|cross-group-spread|malleable|spares|checkpoint|borrow|sponsors|group-by|node-constraint|conformance)'

# empty_queue: cancel everything, wait until nothing is left.
empty_queue () {
    scancel --quiet --user="$(id -un)" 2>/dev/null
    wait_for 30 queue_empty
}

# run_sbatch W CMD: accepted, recorded if a Jobtree run, runs to completion.
run_sbatch () {
    local w=$1 c=$2 out id st
    out=$(cd "$work" && $doc_run sh -c "$c" 2>&1)
    id=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' <<< "$out")
    if [ -z "$id" ]; then
        ok 1 "$w: $c: accepted"
        diag "$out"
        return
    fi
    ok 0 "$w: $c: accepted (job $id)"
    if grep -Eq -- "$jt_opt_re" <<< "$c"; then
        like "$(job_field "$id" AdminComment)" '^jobtree/1 \{"run":' "$w: job $id has its Jobtree record"
    fi
    wait_job_state "$id" COMPLETED 30
    st=$(job_field "$id" JobState)
    is "$st" COMPLETED "$w: job $id ran on the idle cluster"
    [ "$st" = COMPLETED ] || diag "reason: $(squeue -h -j "$id" -o %R)"
}

# the anchor the verify example reads
anchor () { jobtree verify "$JT_LEDGER_DIR" | sed -n 's/^head //p' > "$JT_DOC_ANCHOR"; }

# check_slurmconf W EX: each documented KEY=VALUE against scontrol show config.
check_slurmconf () {
    local w=$1 ex=$2 k v got bad=0 n=0
    scontrol show config > "$work/config"
    while IFS='=' read -r k v; do
        k=${k%% *}; v=${v%%#*}; v=${v%"${v##*[! ]}"}
        case "$k" in ''|\#*|NodeName|PartitionName|PluginDir|PlugStackConfig) continue ;; esac
        got=$(awk -v k="$k" '$1 == k { sub(/^[^=]*= */, ""); print; exit }' "$work/config")
        n=$((n + 1))
        # scontrol shows some values in capitals (CR_CORE_MEMORY)
        [ "${got,,}" = "${v,,}" ] || { bad=1; diag "$k: documented $v, the cluster has '${got:-(not shown)}'"; }
    done < "$ex"
    ok $bad "$w: $n slurm.conf keys as documented"
}

# For the schema and grammar examples' commands (examples.list):
# doc_ledger_run: a one-node run submitted and run, and its lease's End in
# the ledger, so the ledger holds whole records of a run.
doc_ledger_run () {
    local id
    id=$(cd "$work" && $doc_run sbatch --parsable -N1 --gres=gpu:h100:8 --group-gpus=8 job.sh) || return 1
    _doc_ended () { grep -h '"type":"End"' "$JT_LEDGER_DIR"/ledger-*.jtl 2>/dev/null | grep -q "\"run\":\"jtc:$id\""; }
    wait_for 30 _doc_ended >/dev/null
}
# doc_ctld_log: slurmctld's log without its time stamps.
doc_ctld_log () { sed 's/^\[[^]]*\] //' "$JT_CLUSTER_DIR/log/slurmctld.log"; }

ex=$JT_CLUSTER_DIR/examples
total=$(doc_extract "$ex")
n=0
for e in "$ex"/[0-9][0-9][0-9][0-9]; do
    w=$(doc_where "$e")
    read -r kind arg1 rest <<< "$(doc_kind "$e")"
    if [ "$kind" = list ]; then
        read -r kind args <<< "$rest"
        case "$kind" in cluster-commands|cluster-transcript|cluster-script)
            [ -n "$args" ] && sed -i -e "$args" "$e" ;;
        esac
    fi
    case "$kind" in
    cluster-commands)
        [ -s "$JT_DOC_ANCHOR" ] || anchor
        while IFS= read -r c; do
            case "$c" in
            sbatch\ *) run_sbatch "$w" "$c" ;;
            *) out=$(cd "$work" && $doc_run sh -c "$c" 2>&1); rc=$?
               ok $rc "$w: $c: exit 0"
               [ $rc -eq 0 ] || diag "$out" ;;
            esac
        done < <(doc_commands "$e")
        ;;
    cluster-transcript)
        doc_transcript_run "$e" "$work"
        if doc_match "$e.want" "$e.got"; then ok 0 "$w: transcript"
        else ok 1 "$w: transcript"; diff -u "$e.want" "$e.got" | sed 's/^/# /'; fi
        ;;
    cluster-script)
        out=$(cd "$work" && $doc_run sh "$e" 2>&1); rc=$?
        ok $rc "$w: the example script exits 0"
        [ $rc -eq 0 ] || diag "$out"
        ;;
    cluster-slurmconf)
        check_slurmconf "$w" "$e" ;;
    cluster-schema)
        read -r specs cmd <<< "$args"
        (cd "$work" && export JT_CLUSTER_ID=$JT_CLUSTER_DIR && eval "$cmd") > "$e.got" 2>&1
        if why=$(doc_schema "$specs" "$e" "$e.got"); then ok 0 "$w: schema, of what $cmd prints"
        else ok 1 "$w: schema, of what $cmd prints"; diag "$why"; tail -n 20 "$e.got" | sed 's/^/# got: /'; fi
        ;;
    cluster-grammar)
        (cd "$work" && export JT_CLUSTER_ID=$JT_CLUSTER_DIR && eval "$args") > "$e.got" 2>&1
        if why=$(python3 "$JT_SRCDIR/tests/doc/abnf.py" "$e" < "$e.got"); then ok 0 "$w: grammar: $why, of what $args prints"
        else ok 1 "$w: grammar, of what $args prints"; diag "$why"; fi
        ;;
    *) continue ;;
    esac
    n=$((n + 1))
    empty_queue
done
diag "$n of the $total documented examples need the cluster and ran here"
ok "$([ "$n" -gt 0 ]; echo $?)" "some examples ran"
done_testing
