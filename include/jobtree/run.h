/*
 * jobtree/run.h - a Run (the researcher's surface spec) and its compilation.
 *
 *   { "id": "c1:4242", "owner": "rai",
 *     "resources": { "gpuType": "h100", "totalGPUs": 96 },
 *     "locality": { "groupGPUs": 64, "allowCrossGroupSpread": true,
 *                   "groupBy": "rack", "conformance": "strict" },
 *     "nodeConstraints": [ "gpu.mem GE 80", "taint:maint NOT_EXISTS" ],
 *     "malleable": { "minTotalGPUs": 64, "maxTotalGPUs": 128, "stepGPUs": 64 },
 *     "sparesPerGroup": 1,
 *     "runtime": { "checkpoint": "30m", "timeLimit": "4h" },
 *     "funding": { "allowBorrow": true, "maxBorrowGPUs": 32, "sponsors": ["vision"] } }
 *
 * The sbatch options of the SPANK plugin map 1:1 onto these fields.
 * Compilation (calculus section 2): with groupGPUs g, SHARD(ceil(G/g), g)
 * with the last group short (DESIGN decision 1); without it, one soft group
 * that Pack may chunk across domains by whole nodes.
 *
 * groupBy (--group-by=LABEL) and nodeConstraints (--node-constraint) say
 * which nodes a run may use; Pack applies them (jobtree/pack.h), and
 * jt_constraints_vet (jobtree/constraint.h) is their submission check.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_RUN_H
#define JOBTREE_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "constraint.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jt_run {
    char *id;                   /* "cluster:jobid" or free text; may be NULL */
    char *owner;
    char *flavor;               /* resources.gpuType */
    int64_t total_gpus;         /* resources.totalGPUs (G) */
    int64_t group_gpus;         /* locality.groupGPUs (g); 0 when absent */
    bool cross_group_spread;    /* locality.allowCrossGroupSpread, default true */
    char *spread_level;         /* locality.spreadLevel: with spread off, the
                                 * fabric level one unit of which holds the
                                 * whole run ("block"); NULL: the domain */
    bool malleable;             /* malleable block present */
    int64_t min_gpus;           /* malleable.minTotalGPUs */
    int64_t max_gpus;           /* malleable.maxTotalGPUs */
    int64_t step_gpus;          /* malleable.stepGPUs (default: g, else 1) */
    int64_t spares_per_group;   /* whole spare nodes per group, same domain */
    int64_t checkpoint_s;       /* runtime.checkpoint; 0 when absent */
    int64_t time_limit_s;       /* runtime.timeLimit; 0 when absent */
    bool allow_borrow;          /* funding.allowBorrow */
    int64_t max_borrow_gpus;    /* funding.maxBorrowGPUs; JT_UNSET: no cap */
    char **sponsors;            /* funding.sponsors (preference order) */
    size_t nsponsors;
    bool step_given;            /* stepGPUs was written (else step_gpus is the
                                 * default; see jt_run_step_gpus) */
    char *group_by;             /* locality.groupBy: the label whose one value
                                 * each group's nodes share (the whole run's
                                 * without cross-group spread); NULL: none */
    jt_constraints_t constraints;   /* nodeConstraints: all must hold */
    bool conformance_strict;    /* locality.conformance "strict"
                                 * (--conformance=strict): each group only on
                                 * nodes of one conformance fingerprint;
                                 * default "prefer": Pack prefers them */
} jt_run_t;

/* Default expected duration used for the integral bound when the run has no
 * time limit (GPU-hours = GPUs x time limit). */
#define JT_RUN_DEFAULT_TIME_LIMIT_S (3600)

/* The most GPUs a run may ask for (2^20): more than any cluster holds, and
 * small enough that a run's groups, and products of its counts, stay
 * bounded (jt_run_validate refuses more; jobtree/gres.h caps requests). */
#define JT_RUN_GPUS_MAX (INT64_C (1) << 20)

/* The most spare nodes a group may hold (--spares). */
#define JT_RUN_SPARES_MAX 64

/* The one place a run's defaults are written: everything zero or absent,
 * except allowCrossGroupSpread (true), maxBorrowGPUs (JT_UNSET: no cap) and
 * stepGPUs (1, not given). jt_run_init fills a caller's jt_run_t with them;
 * jt_run_clear frees its members and leaves it as jt_run_init does. */
void jt_run_init (jt_run_t *r);
void jt_run_clear (jt_run_t *r);

jt_run_t *jt_run_create (void);     /* a jt_run_init'ed run; NULL on ENOMEM */
void jt_run_destroy (jt_run_t *r);

/* Parse a run document. NULL on error, with every problem in diags. */
jt_run_t *jt_run_parse_json (const char *file, const char *text, size_t len,
                             jt_diags_t *diags);
jt_run_t *jt_run_load_file (const char *path, jt_diags_t *diags);

/* Well-formedness (calculus section 3 plus DESIGN decision 2).
 * gpus_per_node is the flavor's GPUs per node, or 0 when unknown (then the
 * multiple-of-node checks are skipped). Returns 0 or -1 with err naming the
 * field, the numbers involved and how to fix it. */
int jt_run_validate (const jt_run_t *r, int64_t gpus_per_node, jt_error_t *err);

/* The malleable step to use: stepGPUs when given, else groupGPUs, else
 * gpus_per_node when known (> 0), else 1. */
int64_t jt_run_step_gpus (const jt_run_t *r, int64_t gpus_per_node);

/* Compiled groups: SHARD of whole-node groups, or one soft group. */
typedef struct jt_groups {
    int64_t *gpus;              /* size of each group, in order */
    size_t n;
    bool soft;                  /* no groupGPUs: Pack may chunk by node */
    int64_t unit;               /* a soft group's funding unit: the GPUs of
                                   one node of the flavor (0 unknown: 1
                                   GPU); jt_run_compile leaves it 0, the
                                   caller that knows the nodes sets it */
} jt_groups_t;

/* Compile `total` GPUs of run r into groups (total is G, or a malleable
 * target). Returns 0 or -1 (err set). Free with jt_groups_free. */
int jt_run_compile (const jt_run_t *r, int64_t total, jt_groups_t *out,
                    jt_error_t *err);
void jt_groups_free (jt_groups_t *g);

/* The whole nodes `total` GPUs of run r fill when compiled into groups
 * (jt_run_compile's shape: groups of groupGPUs, the last the remainder),
 * each group on nodes of gpus_per_node GPUs and with its spares_per_group
 * spare nodes: the node count topology/block's rule is decided on (Plan
 * and the estimate alike). 0 when total is out of 1..JT_RUN_GPUS_MAX or
 * gpus_per_node < 1; spares outside 0..2^20 count as none. */
int64_t jt_run_nodes (const jt_run_t *r, int64_t total, int64_t gpus_per_node);

/* The GPU-hours a demand of `gpus` is charged in advance by Cover:
 * gpus x time limit (or JT_RUN_DEFAULT_TIME_LIMIT_S) in hours. */
double jt_run_gpu_hours (const jt_run_t *r, int64_t gpus);

/* Canonical JSON text of the run (malloc'd, caller frees). */
char *jt_run_to_json (const jt_run_t *r);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_RUN_H */
