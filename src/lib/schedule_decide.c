/*
 * schedule_decide.c - the calculus's decision over time, offline
 * (jt_sched_decide, jobtree/schedule.h): Reject only when never,
 * PlanLater with its earliest start from the nodes' free times (unknown
 * when it waits on something of no known end), built on jt_sched_answer
 * (schedule.c).
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

/* ---- the calculus's decision over time (offline) ---- */

/* Per node, when it is free for a new run: now when up and idle; else the
 * last end of the leases on it; INT64_MAX when it is down, or held by
 * something without a known end (a lease of unknown end, or GPUs that no
 * lease accounts for: a job outside Jobtree). A lease's GPUs are counted
 * on its nodes evenly. Work: the nodes plus the leases' node names. */
int jt_sched_node_free_times (const jt_snapshot_t *s, int64_t now,
                            int64_t *free_at, jt_error_t *err)
{
    int64_t *covered = calloc (s->nnodes ? s->nnodes : 1, sizeof (*covered));

    if (!covered)
        return jt_errprintf (err, "out of memory");
    for (size_t k = 0; k < s->nnodes; k++)
        free_at[k] = s->nodes[k].state == JT_NODE_UP ? now : INT64_MAX;
    for (size_t i = 0; i < s->nleases; i++) {
        const jt_lease_t *l = &s->leases[i];
        int64_t share = l->nnodes ? (l->gpus + (int64_t) l->nnodes - 1)
                                        / (int64_t) l->nnodes : 0;
        for (size_t j = 0; j < l->nnodes; j++) {
            ssize_t k = jt_snapshot_node_index (s, l->nodes[j]);
            if (k < 0)
                continue;
            covered[k] += share;
            if (l->end <= 0)
                free_at[k] = INT64_MAX;
            else if (free_at[k] != INT64_MAX && l->end > free_at[k])
                free_at[k] = l->end;
        }
    }
    for (size_t k = 0; k < s->nnodes; k++)
        if (s->nodes[k].used_gpus > covered[k])
            free_at[k] = INT64_MAX;
    free (covered);
    return 0;
}

/* Move a's plan into out with decision d. */
static void take_plan (jt_answer_t *a, jt_plan_t *out, jt_decision_t d)
{
    *out = a->plan;
    memset (&a->plan, 0, sizeof (a->plan));
    out->decision = d;
}

/* Append "; text" (or text) to a plan's detail, as far as it holds. */
static void detail_add (jt_plan_t *p, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
static void detail_add (jt_plan_t *p, const char *fmt, ...)
{
    size_t len = strlen (p->detail);
    va_list ap;

    if (len && len + 2 < sizeof (p->detail)) {
        memcpy (p->detail + len, "; ", 3);
        len += 2;
    }
    va_start (ap, fmt);
    vsnprintf (p->detail + len, sizeof (p->detail) - len, fmt, ap);
    va_end (ap);
}

/* No instant was found at which room and funding are both there. Waiting
 * may still start it: a running lease always ends, and nodes of unknown
 * free time may free. Reject is only for a run no amount of waiting funds,
 * so with placement assumed (EVER placed it on the idle nodes: free_at,
 * the caller's scratch, becomes now on every eligible node), is it funded
 * at a known lease end or window opening (then the nodes it needs stand in
 * the way), or once the leases of unknown end have ended? Then *out is
 * PlanLater with no earliest start, its detail saying which, its cover who
 * would pay then. Returns 1 (out filled, a's plan taken), 0 (never: out
 * untouched), -1. */
static int wait_unknown (const jt_sched_request_t *q, const jt_run_t *run,
                         int64_t *free_at, node_live_t *keep, jt_answer_t *a,
                         jt_plan_t *out, jt_error_t *err)
{
    room_t room = { free_at, keep };
    int64_t when = 0;
    jt_plan_t then;
    bool ends = false;
    int rc;

    memset (&then, 0, sizeof (then));
    for (size_t k = 0; k < q->snap->nnodes; k++)
        free_at[k] = q->eligible[k] ? q->now : INT64_MAX;
    rc = jt_sched_funding_time (q, run, &room, &when, err);
    if (rc == 0 && when)
        rc = jt_sched_funded_at (q, run, when, &room, &then, err) < 0 ? -1 : 1;
    else if (rc == 0) {
        rc = jt_sched_funded_unknown (q, run, &room, &when, &then, err);
        ends = true;
    }
    if (rc > 0) {
        take_plan (a, out, JT_PLAN_LATER);
        out->earliest_start = 0;
        free (out->segs);
        out->segs = then.segs;
        out->nsegs = then.nsegs;
        then.segs = NULL;
        then.nsegs = 0;
        if (ends)
            detail_add (out, "%s", JT_SCHED_UNKNOWN_ENDS);
        else {
            char t[40];
            jt_time_format (when, t, sizeof (t));
            detail_add (out, "start unknown: funded from %s; nodes it needs"
                        " have no known free time", t);
        }
    }
    jt_plan_free (&then);
    return rc;
}

int jt_sched_decide (const jt_sched_request_t *req, jt_plan_t *out,
                     jt_error_t *err)
{
    jt_sched_request_t q = *req;
    jt_snapshot_t *s = req->snap;
    jt_answer_t a;
    jt_plan_t later;
    int64_t *free_at = NULL, when = 0;
    node_live_t *keep = NULL;
    int rc;

    memset (out, 0, sizeof (*out));
    memset (&later, 0, sizeof (later));
    q.tense = JT_TENSE_NOW;
    if (jt_sched_answer (&q, &a, err) < 0)
        return -1;
    if (a.kind == JT_ANSWER_BIND) {
        take_plan (&a, out, JT_BIND_NOW);
        out->earliest_start = req->now;
        jt_answer_free (&a);
        return 0;
    }
    if (a.plan.decision == JT_REJECT && !jt_sched_is_funding_reason (a.plan.reason)
        && !jt_sched_is_pack_reason (a.plan.reason)) {
        take_plan (&a, out, JT_REJECT);     /* not well formed, no budget */
        jt_answer_free (&a);
        return 0;
    }
    /* Never: EVER refuses it. */
    jt_answer_t ever;
    q.tense = JT_TENSE_EVER;
    if (jt_sched_answer (&q, &ever, err) < 0) {
        jt_answer_free (&a);
        return -1;
    }
    if (ever.kind == JT_ANSWER_REFUSE) {
        /* Now's plan (what is free, what was asked), EVER's verdict. */
        const char *why = strncmp (ever.reason, "jobtree: ", 9) ? ever.reason
                                                                : ever.reason + 9;
        take_plan (&a, out, JT_REJECT);
        out->reason = ever.plan.reason;
        free (out->segs);
        out->segs = NULL;
        out->nsegs = 0;
        const char *pre = jt_sched_is_pack_reason (ever.plan.reason)
                          ? "never placeable, even with every node idle: " : "";
        size_t pl = strlen (pre);
        size_t wl = strnlen (why, sizeof (out->detail) - 1 - pl);
        memcpy (out->detail, pre, pl);
        memcpy (out->detail + pl, why, wl);
        out->detail[pl + wl] = '\0';
        jt_answer_free (&ever);
        jt_answer_free (&a);
        return 0;
    }
    jt_answer_free (&ever);

    /* Later: the first instant room and funding are both there, counting
     * the usage that runs on then (as ESTIMATE does). */
    q.tense = JT_TENSE_ESTIMATE;
    jt_run_t run = *req->run;
    jt_sched_clamp_malleable (&run, s, req->min_nodes, req->max_nodes);
    free_at = calloc (s->nnodes ? s->nnodes : 1, sizeof (*free_at));
    keep = calloc (s->nnodes ? s->nnodes : 1, sizeof (*keep));
    if (!free_at || !keep) {
        rc = jt_errprintf (err, "out of memory");
        goto out;
    }
    if ((rc = jt_sched_node_free_times (s, req->now, free_at, err)) < 0)
        goto out;
    for (size_t k = 0; k < s->nnodes; k++)
        if (!req->eligible[k])
            free_at[k] = INT64_MAX;
    room_t room = { free_at, keep };
    if ((rc = jt_sched_funding_time (&q, &run, &room, &when, err)) < 0)
        goto out;
    if (when && (rc = jt_sched_funded_at (&q, &run, when, &room, &later, err)) < 0)
        goto out;
    rc = 0;
    if (when || jt_sched_is_pack_reason (a.plan.reason)) {
        /* Why not now stays the reason; who pays is who pays then. */
        take_plan (&a, out, JT_PLAN_LATER);
        out->earliest_start = when;
        if (when) {
            free (out->segs);
            out->segs = later.segs;
            out->nsegs = later.nsegs;
            later.segs = NULL;
            later.nsegs = 0;
        }
    } else if ((rc = wait_unknown (&q, &run, free_at, keep, &a, out, err)) < 0)
        goto out;
    else if (rc == 0) {
        /* Funding, and no lease end or window opening brings it back,
         * even with every running lease ended. */
        take_plan (&a, out, JT_REJECT);
        size_t len = strlen (out->detail);
        snprintf (out->detail + len, sizeof (out->detail) - len, "%s"
                  "no lease end or window opening funds it", len ? "; " : "");
    }
    rc = rc < 0 ? -1 : 0;
out:
    jt_plan_free (&later);
    jt_answer_free (&a);
    free (free_at);
    free (keep);
    return rc;
}
