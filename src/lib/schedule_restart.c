/*
 * schedule_restart.c - a requeued run's restart, reserved at the requeue
 * (jt_sched_restart, jobtree/schedule.h): its slice on the snapshot with
 * its own leases hidden, the line it holds, who keeps off that slice
 * (jt_sched_nominated) and whether the run waits for it (jt_restart_where).
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

/* ---- a requeued run's restart (jobtree/schedule.h) ---- */

#define RESTART_DELAY_MAX (INT64_C (1) << 30)

void jt_restart_free (jt_restart_t *r)
{
    if (!r)
        return;
    jt_plan_free (&r->plan);
    free (r->slice.nodes);
    memset (r, 0, sizeof (*r));
}

bool jt_sched_nominated (const char *holder, int64_t start, const char *self,
                         int64_t end)
{
    if (holder && self && !strcmp (holder, self))
        return false;
    return end <= 0 || end > start;
}

const char *jt_restart_where_str (jt_restart_where_t w)
{
    switch (w) {
    case JT_RESTART_SLICE:
        return "slice";
    case JT_RESTART_WAIT:
        return "wait";
    case JT_RESTART_LOST:
        return "lost";
    }
    return "?";
}

jt_restart_where_t jt_restart_where (const jt_snapshot_t *s, const char *const *names,
                                     size_t n, int64_t start, int64_t now,
                                     jt_answer_kind_t on_slice)
{
    if (on_slice == JT_ANSWER_BIND || on_slice == JT_ANSWER_ESTIMATE)
        return JT_RESTART_SLICE;
    if (!s || !names || n == 0 || start > INT64_MAX - JT_RESTART_GRACE
        || now >= start + JT_RESTART_GRACE)
        return JT_RESTART_LOST;
    for (size_t k = 0; k < n; k++) {
        ssize_t x = names[k] ? jt_snapshot_node_index (s, names[k]) : -1;
        if (x < 0 || s->nodes[x].state != JT_NODE_UP)
            return JT_RESTART_LOST;
    }
    return JT_RESTART_WAIT;
}

/* The snapshot without run self's leases: they are compacted out (the
 * others keep their order) and the GPUs they held on their nodes are free.
 * *saved and *used receive what view_unhide puts back. Marks self's nodes
 * in own[]. */
static int view_hide_run (jt_snapshot_t *s, const char *self, jt_lease_t **saved,
                          size_t *nsaved, int **used, bool *own, jt_error_t *err)
{
    size_t m = 0;

    *saved = malloc ((s->nleases ? s->nleases : 1) * sizeof (**saved));
    *used = malloc ((s->nnodes ? s->nnodes : 1) * sizeof (**used));
    if (!*saved || !*used) {
        free (*saved);
        free (*used);
        *saved = NULL;
        *used = NULL;
        return jt_errprintf (err, "out of memory");
    }
    if (s->nleases)
        memcpy (*saved, s->leases, s->nleases * sizeof (**saved));
    *nsaved = s->nleases;
    for (size_t k = 0; k < s->nnodes; k++)
        (*used)[k] = s->nodes[k].used_gpus;
    for (size_t i = 0; i < s->nleases; i++) {
        const jt_lease_t *l = &(*saved)[i];
        int64_t share;

        if (!l->run || strcmp (l->run, self)) {
            s->leases[m++] = *l;
            continue;
        }
        share = l->nnodes ? (l->gpus + (int64_t) l->nnodes - 1) / (int64_t) l->nnodes : 0;
        for (size_t j = 0; j < l->nnodes; j++) {
            ssize_t k = jt_snapshot_node_index (s, l->nodes[j]);
            if (k < 0)
                continue;
            own[k] = true;
            s->nodes[k].used_gpus = s->nodes[k].used_gpus > share
                                    ? s->nodes[k].used_gpus - (int) share : 0;
        }
    }
    s->nleases = m;
    return 0;
}

static void view_unhide (jt_snapshot_t *s, jt_lease_t *saved, size_t nsaved,
                         int *used)
{
    if (nsaved)
        memcpy (s->leases, saved, nsaved * sizeof (*saved));
    s->nleases = nsaved;
    for (size_t k = 0; k < s->nnodes; k++)
        s->nodes[k].used_gpus = used[k];
    free (saved);
    free (used);
}

/* The reason line of a reserved restart: its slice's domains, in order. */
static void restart_line (jt_restart_t *r, const jt_snapshot_t *s)
{
    jt_strbuf_t b = JT_STRBUF_INIT;
    char t[40], *doms;
    size_t nd = 0;

    for (size_t g = 0; g < r->plan.ngroups; g++) {
        size_t d = r->plan.groups[g].domain;
        bool seen = false;
        for (size_t h = 0; h < g && !seen; h++)
            seen = r->plan.groups[h].domain == d;
        if (!seen && d < s->ndomains)
            jt_strbuf_printf (&b, "%s%s", nd++ ? "," : "", s->domains[d].name);
    }
    doms = jt_strbuf_take (&b);
    jt_time_format (r->start, t, sizeof (t));
    snprintf (r->line, sizeof (r->line), "jobtree: reserved %zu nodes in %s from %s "
              "for its restart (paid by %s)", r->slice.nnodes, doms ? doms : "?", t,
              r->payer ? r->payer->name : "?");
    free (doms);
}

int jt_sched_restart (const jt_sched_request_t *req, const char *self,
                      int64_t delay, const int64_t *free_in, jt_restart_t *out,
                      jt_error_t *err)
{
    jt_sched_request_t q = *req;
    jt_snapshot_t *s = req->snap;
    jt_lease_t *saved = NULL;
    size_t nsaved = 0;
    int *used = NULL;
    int64_t *free_at = NULL, when = 0;
    node_live_t *keep = NULL;
    bool *own = NULL, *seen = NULL;
    jt_run_t run;
    jt_answer_t a;
    int rc;

    memset (out, 0, sizeof (*out));
    memset (&a, 0, sizeof (a));
    if (!req->budgets || !s || !req->run || !req->run->flavor || !req->eligible || !self)
        return jt_errprintf (err, "restart request without budgets, snapshot, run "
                             "flavor, node set or run name");
    if (delay < 0 || delay > RESTART_DELAY_MAX || req->now < 0
        || req->now > INT64_MAX - RESTART_DELAY_MAX)
        return jt_errprintf (err, "restart delay %" PRId64 " s or now %" PRId64
                             " out of range (delay 0..2^30 s)", delay, req->now);
    if (req->run->checkpoint_s <= 0) {
        snprintf (out->detail, sizeof (out->detail), "no --checkpoint: its restart "
                  "waits as any run does");
        return 0;
    }
    run = *req->run;
    jt_sched_clamp_malleable (&run, s, req->min_nodes, req->max_nodes);
    q.now = req->now + delay;
    q.tense = JT_TENSE_ESTIMATE;        /* live usage, at instants */
    q.holds = NULL;
    q.nholds = 0;
    free_at = calloc (s->nnodes ? s->nnodes : 1, sizeof (*free_at));
    keep = calloc (s->nnodes ? s->nnodes : 1, sizeof (*keep));
    own = calloc (s->nnodes ? s->nnodes : 1, sizeof (*own));
    seen = calloc (s->nnodes ? s->nnodes : 1, sizeof (*seen));
    if (!free_at || !keep || !own || !seen) {
        rc = jt_errprintf (err, "out of memory");
        goto out;
    }
    if ((rc = view_hide_run (s, self, &saved, &nsaved, &used, own, err)) < 0)
        goto out;
    if (free_in)
        memcpy (free_at, free_in, s->nnodes * sizeof (*free_at));
    else
        rc = jt_sched_node_free_times (s, q.now, free_at, err);
    for (size_t k = 0; rc == 0 && k < s->nnodes; k++) {
        if (own[k] && s->nodes[k].state == JT_NODE_UP && s->nodes[k].used_gpus == 0)
            free_at[k] = q.now;         /* the run's own: free at its requeue */
        if (!req->eligible[k] || s->nodes[k].state != JT_NODE_UP)
            free_at[k] = INT64_MAX;
    }
    if (rc == 0) {
        room_t room = { free_at, keep };
        rc = jt_sched_funded_at (&q, &run, q.now, &room, &a.plan, err);
        if (rc == 1)
            when = q.now;
        else if (rc == 0 && (rc = jt_sched_funding_time (&q, &run, &room, &when, err)) == 0
                 && when)
            rc = jt_sched_funded_at (&q, &run, when, &room, &a.plan, err);
        rc = rc < 0 ? -1 : 0;
        if (rc == 0 && when && a.plan.decision != JT_BIND_NOW)
            when = 0;
    }
    view_unhide (s, saved, nsaved, used);
    if (rc < 0)
        goto out;
    if (!when) {
        snprintf (out->detail, sizeof (out->detail), "no instant from its requeue on "
                  "funds and places its restart on the nodes it may use (down, or "
                  "held without a known end)");
        goto out;
    }
    if ((rc = jt_sched_bind_nodes (&a, s->nnodes, jt_sched_no_bound (req->max_nodes) ? UINT32_MAX
                          : req->max_nodes, seen, err)) < 0)
        goto out;
    out->reserved = true;
    out->start = when;
    out->plan = a.plan;
    out->slice = a.bind;
    memset (&a, 0, sizeof (a));
    out->payer = jt_sched_first_payer (&out->plan);
    restart_line (out, s);
out:
    jt_answer_free (&a);
    free (free_at);
    free (keep);
    free (own);
    free (seen);
    if (rc < 0)
        jt_restart_free (out);
    return rc;
}
