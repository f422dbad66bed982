/*
 * schedule_funding.c - the funding side of the scheduler's answer
 * (schedule.c): when a run's funding frees (the earliest instant its plan
 * is funded, over lease ends), and the funding holds of runs reserved
 * ahead that keep a run from starting now.
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

/* ---- when funding frees ---- */

static int cmp_i64 (const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return x < y ? -1 : x > y;
}

/* Sort and drop duplicates; returns the new count. */
static size_t sort_unique (int64_t *v, size_t n)
{
    size_t m = 0;

    if (n)
        qsort (v, n, sizeof (*v), cmp_i64);
    for (size_t i = 0; i < n; i++)
        if (!m || v[m - 1] != v[i])
            v[m++] = v[i];
    return m;
}

/* The envelope of a plan's first cover segment, or NULL. */
const jt_envelope_t *jt_sched_first_payer (const jt_plan_t *p)
{
    return p->nsegs ? p->segs[0].env : NULL;
}

/* The nodes as they will be at t, for an estimate of room: a node whose
 * free time (free_at, see node_free_times) is at or before t is idle and
 * up, any other is busy. `keep` receives the live values (view_restore). */
static void view_at (jt_snapshot_t *s, const int64_t *free_at, int64_t t,
                     node_live_t *keep)
{
    for (size_t k = 0; k < s->nnodes; k++) {
        jt_node_t *n = &s->nodes[k];

        keep[k] = (node_live_t){ n->used_gpus, n->state };
        if (free_at[k] <= t) {
            n->used_gpus = 0;
            n->state = JT_NODE_UP;
        } else
            n->used_gpus = n->gpus;
    }
}

/* Would the run be funded at t? Without `room` placement is assumed (the
 * caller has viewed its nodes idle); with it, only the nodes free by t
 * (room->free_at) count. 1 yes (the plan moved into *keep, if not NULL),
 * 0 no, -1 error. */

int jt_sched_funded_at (const jt_sched_request_t *req, const jt_run_t *run,
                      int64_t t, const room_t *room, jt_plan_t *keep,
                      jt_error_t *err)
{
    jt_plan_opts_t cold = req->opts;    /* another instant: no warm view */
    jt_usage_t u;
    jt_plan_t p;
    int rc;

    cold.views = NULL;
    if (jt_sched_tense_usage (req, t, &u, err) < 0)
        return -1;
    memset (&p, 0, sizeof (p));
    if (room)
        view_at (req->snap, room->free_at, t, room->keep);
    rc = jt_plan_run (req->budgets, req->snap, &u, run, t, &cold, &p, err);
    if (room)
        jt_sched_view_restore (req->snap, room->keep);
    if (rc == 0)
        rc = p.decision == JT_BIND_NOW;
    if (rc == 1 && keep) {
        *keep = p;
        memset (&p, 0, sizeof (p));
    }
    jt_plan_free (&p);
    jt_usage_free (&u);
    return rc;
}

/* The first instant after now at which the run's envelopes fund it:
 * candidates are the snapshot's lease ends and the window boundaries of
 * envelopes of its flavor. Between two window boundaries usage only falls
 * as leases end, so the first funded lease end is found by binary search;
 * intervals are tried in time order. *when = 0 when none funds it. Without
 * `room` the snapshot must already be viewed idle on the caller's nodes;
 * with it, nodes free as their leases end too (and `first` = now is a
 * candidate: the caller knows only that the run does not start now with
 * holds or live nodes as they are). */
int jt_sched_funding_time (const jt_sched_request_t *req, const jt_run_t *run,
                         const room_t *room, int64_t *when, jt_error_t *err)
{
    const jt_snapshot_t *s = req->snap;
    const jt_budgets_t *b = req->budgets;
    int64_t *ends, *walls;
    size_t ne = 0, nw = 0, i = 0;
    int rc = 0;

    *when = 0;
    ends = calloc (s->nleases + (room ? s->nnodes : 0) + 1, sizeof (*ends));
    walls = calloc (2 * b->nenv + 1, sizeof (*walls));
    if (!ends || !walls) {
        free (ends);
        free (walls);
        return jt_errprintf (err, "out of memory");
    }
    for (size_t k = 0; k < s->nleases; k++)
        if (s->leases[k].end > req->now)
            ends[ne++] = s->leases[k].end;
    /* nodes free as the caller says (jt_sched_restart's free_at: every
     * job's end, Jobtree's or not); from the leases these are lease ends */
    for (size_t k = 0; room && k < s->nnodes; k++)
        if (room->free_at[k] > req->now && room->free_at[k] != INT64_MAX)
            ends[ne++] = room->free_at[k];
    for (size_t k = 0; k < b->nenv; k++) {
        const jt_envelope_t *e = b->env[k];
        if (!e->flavor || strcmp (e->flavor, run->flavor))
            continue;
        if (e->start > req->now)
            walls[nw++] = e->start;
        if (e->end > req->now)
            walls[nw++] = e->end;
    }
    ne = sort_unique (ends, ne);
    nw = sort_unique (walls, nw);
    /* Interval w is [walls[w-1], walls[w]) (the first starts after now,
     * the last has no end); its candidates are its opening wall and the
     * lease ends inside it, ascending. */
    for (size_t w = 0; w <= nw && !*when && rc >= 0; w++) {
        int64_t open = w ? walls[w - 1] : req->now;
        int64_t close = w < nw ? walls[w] : INT64_MAX;
        size_t first = i, n;
        int64_t cand_lo = w ? open : -1;

        while (i < ne && ends[i] < close)
            i++;
        n = i - first;  /* lease ends in (open, close) are ends[first..i) */
        /* candidate j: j == 0 the opening wall (none in the first
         * interval: now was already tried), else ends[first + j - 1] */
        size_t lo = cand_lo >= 0 ? 0 : 1, hi = n, found = SIZE_MAX;
        if (lo > hi)
            continue;
        int64_t last = hi ? ends[first + hi - 1] : cand_lo;
        if ((rc = jt_sched_funded_at (req, run, last, room, NULL, err)) <= 0)
            continue;
        found = hi;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int64_t t = mid ? ends[first + mid - 1] : cand_lo;
            if ((rc = jt_sched_funded_at (req, run, t, room, NULL, err)) < 0)
                break;
            if (rc)
                found = hi = mid;
            else
                lo = mid + 1;
        }
        if (rc >= 0)
            *when = found ? ends[first + found - 1] : cand_lo;
    }
    free (ends);
    free (walls);
    return rc < 0 ? -1 : 0;
}

/* When jt_sched_funding_time finds no instant because leases of unknown
 * end hold the funding: would the run be funded once they had ended? A
 * running lease always ends, so a run that is then is a wait of unknown
 * length, not a refusal. They are taken to end just after now (the most
 * waiting can give them back; their GPU-hours counted up to then) and the
 * same search is run; the snapshot's lease ends are put back after. *when
 * is the instant found (0: none) and, when keep is not NULL and it is
 * found, *keep the plan there. 1 funded then, 0 not (no amount of waiting
 * funds it, or no lease has an unknown end), -1 error. */
int jt_sched_funded_unknown (const jt_sched_request_t *req,
                             const jt_run_t *run, const room_t *room,
                             int64_t *when, jt_plan_t *keep, jt_error_t *err)
{
    jt_snapshot_t *s = req->snap;
    int64_t *ends;
    size_t n = 0;
    int rc;

    *when = 0;
    for (size_t k = 0; k < s->nleases; k++)
        n += s->leases[k].end <= 0;
    if (n == 0)
        return 0;
    if (!(ends = malloc (s->nleases * sizeof (*ends))))
        return jt_errprintf (err, "out of memory");
    for (size_t k = 0; k < s->nleases; k++) {
        ends[k] = s->leases[k].end;
        if (ends[k] <= 0)
            s->leases[k].end = req->now + 1;
    }
    rc = jt_sched_funding_time (req, run, room, when, err);
    if (rc == 0 && *when && keep)
        rc = jt_sched_funded_at (req, run, *when, room, keep, err) < 0 ? -1 : 0;
    for (size_t k = 0; k < s->nleases; k++)
        s->leases[k].end = ends[k];
    free (ends);
    if (rc < 0)
        *when = 0;
    return rc < 0 ? -1 : *when != 0;
}

/* ---- funding holds ---- */

/* The envelope of hold h when it binds the run (a known envelope, GPUs in
 * range, starting before the run would end: always when its end is
 * unknown), else NULL. */
static const jt_envelope_t *binds (const jt_sched_request_t *req, const jt_hold_t *h)
{
    if (!h->envelope || h->gpus < 1 || h->gpus > JT_RUN_GPUS_MAX
        || (req->end > 0 && h->start >= req->end))
        return NULL;
    return jt_budgets_envelope (req->budgets, h->envelope);
}

/* At most this many instants are checked one by one for the holds
 * (bounded work per call: a plan each); past them, every binding hold is
 * counted at the last one (never less strict). */
#define HOLD_TIMES_MAX 16

/* The start of hold h as the check counts it: never before now. */
static int64_t hold_start (const jt_sched_request_t *req, const jt_hold_t *h)
{
    return h->start < req->now ? req->now : h->start;
}

/* The distinct starts of the holds that bind the run, ascending, in
 * times[] (at most HOLD_TIMES_MAX: the earliest ones); returns how many
 * (0: none binds). */
static size_t binding_times (const jt_sched_request_t *req, int64_t *times)
{
    size_t n = 0;

    for (size_t i = 0; i < req->nholds; i++) {
        const jt_hold_t *h = &req->holds[i];
        int64_t t = hold_start (req, h);
        size_t k;

        if (!binds (req, h))
            continue;
        for (k = 0; k < n && times[k] < t; k++)
            ;
        if (k < n && times[k] == t)
            continue;
        if (k == HOLD_TIMES_MAX)
            continue;           /* later than every kept one */
        if (n == HOLD_TIMES_MAX)
            n--;                /* the latest kept one makes room */
        memmove (&times[k + 1], &times[k], (n - k) * sizeof (*times));
        times[k] = t;
        n++;
    }
    return n;
}

/* A run Cover funds now, checked against the holds that bind it: at each
 * of their starts t, with the leases still running at t (by their time
 * limits), the run (still running) and every binding hold started by t
 * must be funded together. Between two starts usage only falls (leases
 * end; a hold is counted from its start on, whatever its end, since its
 * run may start later than the hold says), so these instants are the
 * only ones to check. Counting every hold at the earliest start instead
 * counts the GPUs of a run reserved for later together with the leases
 * that end before it starts, and keeps runs of the envelope off nodes
 * that nothing reserved wants (docs/select-plugin.md: 0.928 to 0.949
 * utilization in the simulator's replay of the 150-job window). Backfill
 * keeps a reserved run's nodes the same way (another job may use them
 * only if it ends before the reservation starts). Returns 1 when the holds
 * keep the run back (out becomes a refusal saying so), 0 when they do not,
 * -1 on error. The snapshot must be viewed idle on the caller's nodes. */
int jt_sched_held_back (const jt_sched_request_t *req, const jt_run_t *run,
                      jt_answer_t *out, jt_error_t *err)
{
    int64_t times[HOLD_TIMES_MAX], counted = 0, at = 0;
    size_t n = binding_times (req, times);
    jt_plan_opts_t cold = req->opts;    /* the idle view: no warm view */
    jt_plan_t p;
    char t[40];
    int rc = 0;

    cold.views = NULL;
    memset (&p, 0, sizeof (p));
    for (size_t k = 0; k < n && rc == 0; k++) {
        bool last = k + 1 == n;
        jt_usage_t u;

        at = times[k];
        counted = 0;
        if (jt_sched_tense_usage (req, at, &u, err) < 0)
            return -1;
        for (size_t i = 0; i < req->nholds; i++) {
            const jt_envelope_t *e = binds (req, &req->holds[i]);
            if (e && (last || hold_start (req, &req->holds[i]) <= at)) {
                jt_usage_add (&u, e, e->owner, JT_ROLE_ACTIVE,
                              req->holds[i].gpus, 0.);
                counted += req->holds[i].gpus;
            }
        }
        jt_plan_free (&p);
        memset (&p, 0, sizeof (p));
        rc = jt_plan_run (req->budgets, req->snap, &u, run, at, &cold, &p, err);
        jt_usage_free (&u);
        if (rc < 0)
            break;
        rc = p.decision != JT_BIND_NOW && jt_sched_is_funding_reason (p.reason);
    }
    if (rc == 1) {
        jt_time_format (at, t, sizeof (t));
        /* the hold first: it is what stops the run (squeue's brief is
         * the first clause, jt_reason_brief); the bound it meets after */
        jt_sched_say (out, JT_ANSWER_REFUSE, "jobtree: %" PRId64 " GPUs held for"
             " runs reserved ahead at %s (%s)", counted, t,
             p.detail[0] ? p.detail : jt_reason_str (p.reason));
        out->waits = req->tense == JT_TENSE_NOW;
    }
    jt_plan_free (&p);
    return rc;
}
