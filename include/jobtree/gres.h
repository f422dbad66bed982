/*
 * jobtree/gres.h - the GPU part of a Slurm GRES or TRES string, without
 * Slurm, and the checked arithmetic that turns a request into a run's GPUs.
 *
 * sbatch turns --gres=gpu:h100:8, --gpus=h100:64, --gpus-per-node=h100:8
 * into strings like "gres:gpu:h100:8" (older forms drop "gres:"; the TRES
 * form is "gres/gpu:h100=8"); a node's GRES reads "gpu:h100:8(S:0-1)" and
 * its GRES in use "gpu:h100:2(IDX:0-1)". Entries are separated by ',' or
 * ';' (a parenthesised suffix may hold commas of its own).
 *
 * The strings come from users (sbatch) and reach slurmctld: every count is
 * converted with its errors checked and bounded by JT_GRES_COUNT_MAX, and
 * every sum and product by JT_RUN_GPUS_MAX, so no input can overflow.
 * One parser for the job_submit and select plugins and `jobtree snapshot`.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_GRES_H
#define JOBTREE_GRES_H

#include <stddef.h>
#include <stdint.h>

#include "run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest GPU count one GRES entry, or the sum of a string's entries,
 * may give: no request or node can name more GPUs than a run may hold. */
#define JT_GRES_COUNT_MAX JT_RUN_GPUS_MAX

/* Find the "gpu" entries of s. On success *count is their GPU count (1 for
 * an entry without one) and type (len bytes) the GPU type, "" when untyped.
 * Returns 1 when a GPU entry was found, 0 when none (or s is NULL), -1 when
 * one is malformed, names two different types, has a count that is not a
 * number in 0..JT_GRES_COUNT_MAX, or the counts add up to more. */
int jt_gres_gpu_req (const char *s, char *type, size_t len, int64_t *count);

/* How a GPU count is meant: per job (--gpus), per node (--gres,
 * --gpus-per-node) or per socket (--gpus-per-socket). */
typedef enum jt_gres_scope {
    JT_GRES_PER_JOB,
    JT_GRES_PER_NODE,
    JT_GRES_PER_SOCKET,
} jt_gres_scope_t;

/* The job's GPUs: count per scope times nodes (and sockets per node).
 * Every factor must be positive (sockets only for PER_SOCKET) and the
 * product at most JT_RUN_GPUS_MAX. 0 with *total, or -1 (too large, or a
 * factor out of range). */
int jt_gres_total (int64_t count, jt_gres_scope_t scope, int64_t nodes,
                   int64_t sockets, int64_t *total);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_GRES_H */
