/*
 * schedule_base.c - the scheduler's shared steps, below its files
 * (schedule.c, schedule_funding.c, schedule_decide.c, schedule_restart.c;
 * declared in schedule_int.h): the answer's kind and reason, which
 * refusals are placement's or funding's, a malleable run's range clamped
 * to the caller's, the live values a tense's view put back, a bound
 * plan's nodes, and the usage a tense counts.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/conformance.h"
#include "jobtree/schedule.h"
#include "jobtree/constraint.h"
#include "jobtree/labels.h"
#include "jobtree/timeutil.h"
#include "schedule_int.h"
#include "util/strbuf.h"

void jt_sched_say (jt_answer_t *a, jt_answer_kind_t kind, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
void jt_sched_say (jt_answer_t *a, jt_answer_kind_t kind, const char *fmt, ...)
{
    va_list ap;

    a->kind = kind;
    va_start (ap, fmt);
    vsnprintf (a->reason, sizeof (a->reason), fmt, ap);
    va_end (ap);
}

/* Placement, not funding, is what is missing: time can cure it. */
bool jt_sched_is_pack_reason (jt_reason_t r)
{
    return r == JT_NO_DOMAIN_FITS || r == JT_SPREAD_NO_DOMAIN || r == JT_NO_NODES;
}

/* Funding, not placement, is what is missing, and time could cure it: a
 * lease ending or a window opening. */
bool jt_sched_is_funding_reason (jt_reason_t r)
{
    switch (r) {
    case JT_WINDOW_CLOSED:
    case JT_INSUFFICIENT_CAPACITY:
    case JT_GPU_HOURS_EXHAUSTED:
    case JT_AGGREGATE_CAP:
    case JT_LENDING_CAP:
    case JT_BORROW_LIMIT:
        return true;
    default:
        return false;
    }
}

bool jt_sched_no_bound (uint32_t max_nodes)
{
    return max_nodes == 0 || max_nodes >= JT_SCHED_NODES_ANY;
}

/* A malleable run binds a total between its bounds; keep that inside the
 * node range Slurm will accept for the job, so the plan and the job agree
 * (when the ranges do not meet, the run's own bounds stand). */
void jt_sched_clamp_malleable (jt_run_t *run, const jt_snapshot_t *s,
                             uint32_t min_nodes, uint32_t max_nodes)
{
    int gpn;
    int64_t lo, hi;

    if (!run->malleable || (gpn = jt_snapshot_gpus_per_node (s, run->flavor)) <= 0)
        return;
    lo = run->min_gpus > (int64_t) min_nodes * gpn ? run->min_gpus
                                                   : (int64_t) min_nodes * gpn;
    hi = run->max_gpus;
    if (!jt_sched_no_bound (max_nodes) && (int64_t) max_nodes * gpn < hi)
        hi = (int64_t) max_nodes * gpn;
    if (lo <= hi) {
        run->min_gpus = lo;
        run->max_gpus = hi;
        /* The run asks for its maximum; keep the request inside the range. */
        if (run->total_gpus > hi)
            run->total_gpus = hi;
        if (run->total_gpus < lo)
            run->total_gpus = lo;
    }
}

void jt_sched_view_restore (jt_snapshot_t *s, const node_live_t *keep)
{
    for (size_t k = 0; k < s->nnodes; k++) {
        s->nodes[k].used_gpus = keep[k].used_gpus;
        s->nodes[k].state = keep[k].state;
    }
}

/* Add node k to set once (seen marks members). */
static void set_add (jt_node_set_t *set, bool *seen, size_t k)
{
    if (!seen[k]) {
        seen[k] = true;
        set->nodes[set->nnodes++] = k;
    }
}

/* The nodes a bound plan runs on: every group's, then spares while the
 * count stays below the job's max_nodes. */
int jt_sched_bind_nodes (jt_answer_t *a, size_t nnodes, uint32_t max_nodes,
                       bool *seen, jt_error_t *err)
{
    const jt_plan_t *p = &a->plan;
    size_t cap = 0;

    for (size_t g = 0; g < p->ngroups; g++)
        cap += p->groups[g].nnodes + p->groups[g].nspares;
    if (cap > nnodes)
        cap = nnodes;
    if (!(a->bind.nodes = calloc (cap ? cap : 1, sizeof (size_t))))
        return jt_errprintf (err, "out of memory");
    a->bind.domain = -1;
    memset (seen, 0, nnodes * sizeof (*seen));
    for (size_t g = 0; g < p->ngroups; g++)
        for (size_t k = 0; k < p->groups[g].nnodes; k++)
            set_add (&a->bind, seen, p->groups[g].nodes[k]);
    for (size_t g = 0; g < p->ngroups; g++)
        for (size_t k = 0; k < p->groups[g].nspares; k++) {
            if (a->bind.nnodes >= max_nodes)
                break;
            set_add (&a->bind, seen, p->groups[g].spares[k]);
        }
    return 0;
}

/* The usage the tense counts: none in EVER; else the snapshot's leases and
 * the ledger's closed GPU-hours, as they are now (at 0) or will be at `at`
 * if nothing else starts. */
int jt_sched_tense_usage (const jt_sched_request_t *req, int64_t at,
                        jt_usage_t *u, jt_error_t *err)
{
    if (req->tense == JT_TENSE_EVER) {
        if (jt_usage_init (u, req->budgets) < 0)
            return jt_errprintf (err, "out of memory");
        return 0;
    }
    if (jt_usage_from_snapshot_at (u, req->budgets, req->snap, req->now, at,
                                   err) < 0)
        return -1;
    if (req->closed_hours)
        req->closed_hours (u, req->budgets, req->closed_hours_arg);
    return 0;
}
