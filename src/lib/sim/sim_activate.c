/*
 * sim_activate.c - activation in the simulator (sim_engine.h), decided as
 * slurmctld's adapter (plugins/select/activation.c) decides it: when a
 * reserved run may not start now, jt_activation_due says whether an
 * activation is due (room at the reservation's creation + MaxWait, once;
 * a reclaim of what its owner lent, at once, once) and who is paid back,
 * jt_activation_slice
 * builds the choice from the run's estimate sets and the snapshot's
 * leases, and jt_activate picks who gives way by the published lottery,
 * seeded by the reservation's id and the activation instant. Structural
 * cuts come first, as in slurmctld (structural true): a spare dropped
 * (the group's spare nodes go back, the run keeps running), a malleable
 * run giving up whole groups down to its minimum (the group's nodes and
 * spares go back, the run keeps the rest until its end: reshape.c's
 * `scontrol update NodeList=`); then the lottery's runs are requeued whole
 * (PreemptMode=REQUEUE).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/activate.h"
#include "sim_engine.h"

static ssize_t job_of (const sim_t *m, const char *id);

/* Every running run may give way (preempt/jobtree offers Jobtree runs
 * only, and plain jobs hold no leases); a malleable one down to its
 * minimum, as activation.c reads it from the run's record. */
static int may_yield (const char *run, int64_t *min_gpus, void *arg)
{
    const sim_t *m = arg;
    ssize_t j = job_of (m, run);

    if (j >= 0 && m->min_gpus[j] > 0)
        *min_gpus = m->min_gpus[j];
    return 1;
}

/* The job whose id is `id`, by binary search over m->by_id. */
static ssize_t job_of (const sim_t *m, const char *id)
{
    size_t lo = 0, hi = m->t->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp (id, m->t->jobs[m->by_id[mid]].id);
        if (c == 0)
            return (ssize_t) m->by_id[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

typedef struct cut_ref {
    ssize_t job;                /* -1: not a job of the trace */
    int group;
    jt_cut_kind_t kind;
} cut_ref_t;

/* Apply the activation: its structural cuts in cut order (each DropSpare
 * or Shrink of a (run, group) once), then the lottery's runs whole, in
 * draw order. Every cut is resolved to its job before any is applied: the
 * holders' names point into the leases the cuts free. A run cut at all
 * counts once in shrunk[] per activation, and once in runs_shrunk when it
 * gave up a group. Returns the cuts and evictions applied, -1 on error. */
static int apply (sim_t *m, size_t self, const jt_activation_req_t *req,
                  const jt_activation_t *a, int64_t now, jt_error_t *err)
{
    cut_ref_t *c = calloc (a->ncuts + a->ndraws + 1, sizeof (*c));
    size_t n = 0;
    int done = 0;

    if (!c)
        return jt_errprintf (err, "jobtree sim: out of memory");
    for (size_t i = 0; i < a->ncuts; i++)
        if (a->cuts[i].kind != JT_CUT_LOTTERY) {
            const jt_holder_t *h = &req->holders[a->cuts[i].holder];
            c[n++] = (cut_ref_t){ job_of (m, h->run), h->group, a->cuts[i].kind };
        }
    for (size_t i = 0; i < a->ndraws; i++)
        c[n++] = (cut_ref_t){ job_of (m, a->draws[i].run_id), -1, JT_CUT_LOTTERY };
    for (size_t i = 0; i < n && done >= 0; i++) {
        ssize_t v = c[i].job;
        bool seen = false, cut = false, shrank = false;
        int got;

        if (v < 0 || (size_t) v == self || m->r->state[v] != SIM_RUNNING)
            continue;
        for (size_t k = 0; k < i; k++) {
            if (c[k].job != v || c[k].kind == JT_CUT_LOTTERY)
                continue;
            seen |= c[k].kind == c[i].kind && c[k].group == c[i].group;
            cut = true;
            shrank |= c[k].kind == JT_CUT_SHRINK;
        }
        if (c[i].kind == JT_CUT_LOTTERY) {
            done = jt_simx_evict (m, (size_t) v, now, err) < 0 ? -1 : done + 1;
            continue;
        }
        if (seen)           /* the group's holders in several pools */
            continue;
        if ((got = jt_simx_cut (m, (size_t) v, c[i].group,
                                c[i].kind == JT_CUT_SPARE, now, err)) < 0) {
            done = -1;
            continue;
        }
        if (c[i].kind == JT_CUT_SPARE)
            m->r->spares_dropped += (size_t) got;
        if (!cut)
            m->r->shrunk[v]++;
        if (c[i].kind == JT_CUT_SHRINK && !shrank)
            m->r->runs_shrunk++;
        done += got > 0;
    }
    free (c);
    return done;
}

int jt_simx_activate (sim_t *m, size_t j, const jt_sched_request_t *now_req,
                      int64_t now, jt_error_t *err)
{
    const jt_run_t *run = m->run[j];
    /* now_req->now is the trace's epoch + now: the clock too */
    const jt_resv_clock_t clk = { .created = m->o->epoch + m->created[j],
                                  .max_wait = m->p->max_wait,
                                  .room_done = m->activated[j] & 1,
                                  .reclaim_done = m->activated[j] & 2 };
    jt_activation_due_t due;
    jt_activation_slice_t sl;
    jt_activation_t a;
    jt_answer_t e;
    char resv[512];
    int rc = 0, kind;

    if (!m->p->preempt || m->created[j] < 0)
        return 0;
    memset (&sl, 0, sizeof (sl));
    memset (&a, 0, sizeof (a));
    if ((kind = jt_activation_due (now_req, &clk, &e, &due, err)) < 0)
        return -1;
    if (due.applies >= 0)
        m->r->answers++;
    if (kind == JT_DUE_NONE)
        goto out;
    snprintf (resv, sizeof (resv), "%s:resv:%" PRId64, run->id, m->o->epoch + m->created[j]);
    if (jt_activation_slice (m->s, e.cands, e.ncands, e.cand_nodes, e.cand_group_nodes, run->flavor,
                             due.fund, run->id, resv, due.at, true,
                             may_yield, m, &sl, err) < 0) {
        rc = -1;
        goto out;
    }
    if (jt_activate (&sl.req, &a, err) < 0) {
        rc = -1;
        goto out;
    }
    if (!sl.req.nalts || !a.resolved)
        goto out;
    m->activated[j] |= kind == JT_DUE_RECLAIM ? 2 : 1;
    rc = apply (m, j, &sl.req, &a, now, err);
out:
    jt_activation_free (&a);
    jt_activation_slice_free (&sl);
    jt_answer_free (&e);
    return rc;
}
