/*
 * jobtree/plan.h - Admission: Cover then Pack, to a decision.
 *
 * [Bind-Now]   Cover funds every group and Pack places it now.
 * [Plan-Later] Cover would fund it (concurrency/hours are there) but Pack
 *              returns None now: a reservation would be created.
 * [Reject]     No envelope can pay now (reason says which bound), or the
 *              run is not well formed.
 *
 * jt_plan_run answers for one instant. The calculus's decision over time
 * (Reject only when the run can never start; Plan-Later, with its earliest
 * start, for every run that is fundable and placeable at some future
 * instant, whatever stops it now) is jt_sched_decide's (schedule.h), which
 * asks jt_plan_run at the instants that matter.
 *
 * Funding and placement are interleaved group by group: a group paid by
 * envelope e is placed only on nodes matching e's selector, candidates are
 * tried in Cover's order, and with cross-group spread off every group shares
 * one domain (domains tried in packing order). For a malleable run the
 * largest total from maxTotalGPUs down to minTotalGPUs in stepGPUs that can
 * be funded and placed now is bound.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_PLAN_H
#define JOBTREE_PLAN_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "budget.h"
#include "cover.h"
#include "pack.h"
#include "run.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jt_decision {
    JT_BIND_NOW = 0,
    JT_PLAN_LATER,
    JT_REJECT,
} jt_decision_t;

const char *jt_decision_str (jt_decision_t d);   /* "BindNow", ... */

typedef struct jt_plan_group {
    size_t index;               /* group index in the compiled run */
    int64_t gpus;
    size_t domain;
    const jt_envelope_t *env;   /* who pays */
    jt_source_t source;
    jt_role_t role;             /* Active, or Borrowed for sponsor-paid */
    size_t nnodes;
    size_t *nodes;
    int *node_gpus;
    size_t nspares;
    size_t *spares;
} jt_plan_group_t;

typedef struct jt_plan {
    jt_decision_t decision;
    jt_reason_t reason;
    char detail[JT_ERRMSG_MAX];
    int64_t requested_gpus;     /* G, or maxTotalGPUs for malleable runs */
    int64_t total_gpus;         /* GPUs bound (0 unless BindNow) */
    jt_cover_seg_t *segs;       /* the cover partition phi */
    size_t nsegs;
    jt_plan_group_t *groups;
    size_t ngroups;
    int64_t *residual;          /* free GPUs of the flavor per domain after */
    size_t ndomains;
    /* Set by jt_sched_decide only: the instant it starts (BindNow: now;
     * PlanLater: when room and funding are both there, counting only the
     * leases' ends; 0 for a PlanLater run whose room, or funding, is held
     * by something with no known end). jt_plan_run leaves it 0. */
    int64_t earliest_start;
} jt_plan_t;

typedef struct jt_plan_opts {
    jt_pack_policy_t policy;
    /* Warm views (jobtree/pack.h), synced with the snapshot jt_plan_run is
     * given, or NULL: a view is built for the call. jt_sched_answer syncs
     * them and passes them to its own call only. */
    jt_pack_views_t *views;
    /* Ignore the snapshot's fabric levels when a run's groups may spread
     * (the simulator's one-level baseline, `jobtree sim --policy
     * ...,flat`); a run's own --cross-group-spread=no:LEVEL still holds. */
    bool flat;
    /* Per snapshot domain, nonzero: try these first (a growing run's
     * blocks, jt_elastic_grow), then anywhere; NULL: no preference. */
    const unsigned char *prefer;
} jt_plan_opts_t;

/* Decide for run r at time now. u may be NULL (then derived from s's leases).
 * Returns 0 with out filled (any decision), -1 on error (err set). */
int jt_plan_run (const jt_budgets_t *b, const jt_snapshot_t *s,
                 const jt_usage_t *u, const jt_run_t *r, int64_t now,
                 const jt_plan_opts_t *opts, jt_plan_t *out, jt_error_t *err);
void jt_plan_free (jt_plan_t *p);

/* Human table (jobtree plan) and JSON (jobtree plan --json, malloc'd). */
int jt_plan_print (const jt_plan_t *p, const jt_snapshot_t *s, FILE *f);
char *jt_plan_to_json (const jt_plan_t *p, const jt_snapshot_t *s);

/* Compact canonical dump for tests (malloc'd; NULL on ENOMEM). Grammar:
 *   dump  := head { " | " item }
 *   head  := DECISION [ " " REASON ] " total=" BOUND [ " want=" REQUESTED ]
 *            (REASON unless JT_OK; want= only when it differs from total=)
 *   item  := for BindNow, one per placed group, in order:
 *              "g" INDEX " " GPUS " " DOMAIN "[" NODE ":" GPUS { " " NODE ":" GPUS } "]"
 *              [ " s[" NODE { " " NODE } "]" ] " " ENVELOPE [ " borrowed" ]
 *            otherwise, one per cover segment (who would pay):
 *              "pay " ENVELOPE " g" FIRST [ "-g" LAST ] " " GPUS [ " borrowed" ]
 * e.g. "BindNow total=96 | g0 64 west/A[a01:8 ... a08:8] west-h100 | g1 32 ..."
 *      "PlanLater NoDomainFits total=0 want=128 | pay west-h100 g0-g1 128"
 *      "Reject InsufficientCapacity total=0 want=64"
 * A soft group (no groupGPUs) chunked across domains gives several items
 * with the same INDEX. */
char *jt_plan_dump (const jt_plan_t *p, const jt_snapshot_t *s);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_PLAN_H */
