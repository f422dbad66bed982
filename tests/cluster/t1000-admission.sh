#!/bin/bash
# t1000-admission.sh - the SPANK options and job_submit/jobtree on a real
# cluster (select/cons_tres): bad option values refused by sbatch itself,
# malformed and never-fundable runs refused by job_submit with their one
# line, plain CPU and GPU jobs untouched, and the admin_comment record.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

plan 68
cluster_setup "${1:?usage: $0 BUILDDIR}"
cluster_start

# refused_by_sbatch "OPTS" "MESSAGE": refused before submission (no job id,
# the SPANK line is all sbatch prints: Slurm's own "Invalid --OPT argument"
# no longer repeats the value), nothing reaches the queue.
refused_by_sbatch () {
    local id
    id=$(submit $1 --wrap true)
    is "$id" "" "sbatch $1: no job"
    is "$(cat "$JT_CLUSTER_DIR/last.err")" "sbatch: error: jobtree: $2" \
        "sbatch $1: $2, once"
}

# refused_by_ctld "OPTS" "MESSAGE": job_submit's line, as sbatch prints it.
refused_by_ctld () {
    local id
    id=$(submit $1 --wrap true)
    is "$id" "" "sbatch $1: refused"
    is "$(grep -m1 'error: jobtree:' "$JT_CLUSTER_DIR/last.err")" \
        "sbatch: error: jobtree: $2" "sbatch $1: $2"
}

## --help
is "$(sbatch --help | grep -c '\[jobtree\]')" 10 "sbatch --help lists 10 [jobtree] options"

## Syntactically bad values: refused in sbatch.
refused_by_sbatch "--malleable=64:32" \
    "--malleable=64:32: MIN must be <= MAX, e.g. --malleable=32:64:8"
refused_by_sbatch "--group-gpus=0" "--group-gpus=0: must be at least 1, e.g. --group-gpus=32"
refused_by_sbatch "--cross-group-spread=maybe" \
    "--cross-group-spread=maybe: expected yes, no or no:LEVEL, e.g. --cross-group-spread=no"
refused_by_sbatch "--checkpoint=soon" "--checkpoint=soon: not a duration, e.g. --checkpoint=30m"
refused_by_sbatch "--sponsors=a,,b" "--sponsors=a,,b: empty owner name, e.g. --sponsors=vision,speech"
refused_by_sbatch "--borrow=0" "--borrow=0: must be at least 1, e.g. --borrow=32"
# In the script's #SBATCH lines too, with sbatch's exit status for a bad option.
printf '#!/bin/sh\n#SBATCH --spares=-1\ntrue\n' > "$JT_CLUSTER_DIR/bad-spares.sh"
err=$(sbatch "$JT_CLUSTER_DIR/bad-spares.sh" 2>&1)
rc=$?
is "$err" "sbatch: error: jobtree: --spares=-1: not a whole number, e.g. --spares=1" \
    "#SBATCH --spares=-1: one line"
is "$rc" 255 "and sbatch's status for a refused option"
# From Slurm's SPANK environment variable: Slurm's line says which variable.
err=$(env SLURM_SPANK__SLURM_SPANK_OPTION_jobtree_group_gpus=x sbatch --wrap true 2>&1)
is "$err" "sbatch: error: jobtree: --group-gpus=x: not a whole number, e.g. --group-gpus=32
sbatch: error: Invalid argument (x) for environment variable: SLURM_SPANK__SLURM_SPANK_OPTION_jobtree_group_gpus" \
    "a bad value from the environment: why, then where it came from"
is "$(squeue -h | wc -l)" 0 "nothing was submitted"

## Malformed or never fundable: refused by job_submit.
G8="--gres=gpu:h100:8"
refused_by_ctld "--account=small -N2 $G8 --group-gpus=16" \
    "no envelope could ever fund this run (NeverFundable): largest group 16 GPUs > concurrency 8 of every candidate"
refused_by_ctld "--account=expired -N1 $G8 --group-gpus=8" \
    "no envelope could ever fund this run (WindowClosed): every candidate envelope's window has ended (latest: expired-h100 ended 2021-01-01T00:00:00Z)"
refused_by_ctld "--account=ampere -N1 $G8 --group-gpus=8" \
    "no envelope could ever fund this run (NoMatchingEnvelope): no envelope of flavor h100 for ampere, its family or a sponsor lending to it"
refused_by_ctld "--account=nobody -N1 $G8 --group-gpus=8" \
    "account nobody has no budget (no budget file names owner nobody); use --account=ACCOUNT"
refused_by_ctld "-N1 $G8 --group-gpus=8" \
    "account $(id -un) has no budget (no budget file names owner $(id -un)); use --account=ACCOUNT"
refused_by_ctld "--account=team-a -N2 $G8 --group-gpus=12" \
    "--group-gpus=12 is not a multiple of the 8 GPUs per h100 node, e.g. --group-gpus=16"
refused_by_ctld "--account=team-a -N4 --gres=gpu:h100:4 --group-gpus=16" \
    "--group-gpus needs whole nodes: ask for all 8 GPUs of each node, e.g. --gres=gpu:h100:8 (got 4 per node)"
refused_by_ctld "--account=team-a -N2 $G8 --malleable=32:64" \
    "--malleable=32:64: the job asks for 16 GPUs, outside MIN..MAX; ask for 32 to 64 GPUs, e.g. -N 4 --gres=gpu:h100:8"
refused_by_ctld "--account=team-a -N1 --gres=gpu:v100:8 --group-gpus=8" \
    "unknown GPU flavor v100: no node has gres gpu:v100"
refused_by_ctld "--account=team-a --group-gpus=8" \
    "Jobtree options need a GPU request, e.g. --gres=gpu:h100:8 -N 4"
like "$(last_err)" "Batch job submission failed: Invalid generic resource" \
    "the ESLURM code is reported too"
## Hostile counts reach job_submit as strings: refused, never overflowed.
refused_by_ctld "--account=team-a -N1 --gpus=h100:2000000 --group-gpus=8" \
    "cannot read the GPU request (gres:gpu:h100:2000000): one GPU type and a count of at most 1048576, e.g. --gres=gpu:h100:8"
refused_by_ctld "--account=team-a -N 200000 $G8 --group-gpus=8" \
    "the job asks for more than 1048576 GPUs (8 GPUs x 200000 nodes); ask for what the run needs, e.g. -N 4 --gres=gpu:h100:8"
## A run no domain could ever hold: refused at submission in Jobtree's
## words (not only slurmctld's "Requested node configuration is not
## available" after job_submit accepted it).
id=$(submit --account=team-a -N8 $G8 --group-gpus=32 --cross-group-spread=no --wrap true)
is "$id" "" "--cross-group-spread=no, 64 GPUs in domains of 32: refused"
is "$(last_err)" "sbatch: error: jobtree: this cluster can never place the run: no domain holds all 2 groups (64 GPUs) on nodes its payers may use; most free is east/c1/C with 32
sbatch: error: Batch job submission failed: Requested node configuration is not available" \
    "why, in Jobtree's words, then Slurm's"
refused_by_ctld "--account=team-a -N4 $G8 --group-gpus=32 --spares=1" \
    "this cluster can never place the run: group 0 (32 GPUs + 1 spare node) fits no domain: most free is west/c1/A with 32"
## A sub-node job is cons_tres's: with a Jobtree option it is refused.
refused_by_ctld "--account=team-a -N1 --gres=gpu:h100:1 --cross-group-spread=no" \
    "a Jobtree run takes whole nodes: ask for all 8 GPUs of each node, e.g. --gres=gpu:h100:8 (got 1 per node), or drop the Jobtree options to run on part of a node as a plain Slurm job"
refused_by_ctld "--account=team-a --gpus=h100:12 --checkpoint=1h" \
    "a Jobtree run takes whole nodes: ask for a multiple of the 8 GPUs per h100 node, e.g. --gpus=h100:16 (got 12), or drop the Jobtree options to run on part of a node as a plain Slurm job"
is "$(scontrol ping | grep -c 'is UP')" 1 "slurmctld is up after hostile GRES counts"
is "$(squeue -h | wc -l)" 0 "nothing was queued"

## Plain jobs pass through untouched (no budget needed, no record).
cpu=$(submit --wrap "true")
gpu=$(submit --account=nobody -N1 $G8 --wrap 'test -n "$CUDA_VISIBLE_DEVICES"')
ok "$(test -n "$cpu" -a -n "$gpu"; echo $?)" "plain CPU and GPU jobs accepted"
wait_job_state "$cpu" COMPLETED 30
is "$(job_field "$cpu" JobState)" COMPLETED "plain CPU job completed"
wait_job_state "$gpu" COMPLETED 30
is "$(job_field "$gpu" JobState)" COMPLETED "plain GPU job completed with its GPUs"
is "$(job_field "$cpu" AdminComment)" "" "CPU job has no Jobtree record"
is "$(job_field "$gpu" AdminComment)" "" "GPU job has no Jobtree record"
one=$(submit --account=team-a -N1 --gres=gpu:h100:1 --wrap true)
ok "$(test -n "$one" && test -z "$(job_field "$one" AdminComment)"; echo $?)" \
    "a 1-GPU job without options: a plain job, no record"

## A Jobtree job: the documented record, then it runs.
id=$(submit --account=team-a -N4 $G8 --group-gpus=16 --malleable=16:64:16 \
     --spares=0 --checkpoint=30m --cross-group-spread=no -t 10 --wrap "true")
ok "$(test -n "$id"; echo $?)" "Jobtree job accepted"
is "$(job_field "$id" AdminComment)" \
   'jobtree/1 {"run":{"owner":"team-a","resources":{"gpuType":"h100","totalGPUs":32},"locality":{"groupGPUs":16,"allowCrossGroupSpread":false},"malleable":{"minTotalGPUs":16,"maxTotalGPUs":64,"stepGPUs":16},"runtime":{"checkpoint":1800,"timeLimit":600}},"funding":[{"envelope":"a-west-h100","owner":"team-a","source":"owner","firstGroup":0,"groups":2,"gpus":32}],"fundedGPUs":32,"borrowedGPUs":0,"reason":"OK"}' \
   "admin_comment holds the run and its funding"
wait_job_state "$id" COMPLETED 30
is "$(job_field "$id" JobState)" COMPLETED "Jobtree job ran"

## Borrowing options are recorded; --gpus and --gpus-per-node are read.
id=$(submit --account=team-a --gpus=h100:16 --group-gpus=8 --sponsors=team-b --borrow=16 \
     --wrap true)
like "$(job_field "$id" AdminComment)" \
    '"resources":\{"gpuType":"h100","totalGPUs":16\}.*"funding":\{"allowBorrow":true,"maxBorrowGPUs":16,"sponsors":\["team-b"\]\}' \
    "--gpus=h100:16 and the borrowing options in the record"
id=$(submit --account=team-a -N2 --gpus-per-node=h100:8 --spares=1 --wrap true)
like "$(job_field "$id" AdminComment)" '"totalGPUs":16\}.*"sparesPerGroup":1' \
    "--gpus-per-node x nodes"

## salloc and srun have the options too; steps may repeat them.
err=$(salloc --malleable=64:32 true 2>&1)
is "$err" "salloc: error: jobtree: --malleable=64:32: MIN must be <= MAX, e.g. --malleable=32:64:8" \
    "salloc refuses a bad value, once"
err=$(srun --group-gpus=x true 2>&1)
is "$err" "srun: error: jobtree: --group-gpus=x: not a whole number, e.g. --group-gpus=32" \
    "srun refuses a bad value, once"
env JT_CLUSTER_ID="$JT_CLUSTER_DIR" srun --account=team-a -N1 $G8 --group-gpus=8 \
    --job-name=srunjob true 2>"$JT_CLUSTER_DIR/last.err"
ok $? "srun creating a Jobtree job runs"
id=$(squeue -h -t all -n srunjob -o %i)
like "$(job_field "$id" AdminComment)" '^jobtree/1 \{"run":\{"owner":"team-a".*"groupGPUs":8' \
    "srun's job got its record"
id=$(submit --account=team-a -N2 $G8 --group-gpus=16 --wrap 'srun --spares=1 true')
wait_job_state "$id" COMPLETED 30
is "$(job_field "$id" JobState)" COMPLETED "a step's srun may repeat a Jobtree option"

done_testing
