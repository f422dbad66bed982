/*
 * sim_engine.c - the simulator's event loop (jobtree/sim.h): arrivals,
 * ends and envelope window boundaries in time order; at every instant one
 * backfill-like pass over the queue in priority order, each run asked
 * jt_sched_answer (NOW, then ESTIMATE for its reservation) exactly as the
 * select plugin asks it, plain GPU jobs placed by a cons_tres stand-in.
 *
 * DESIGN: per instant the work is the jobs tested (at most `depth`) times
 * one answer each, never a scan of every job; node state is the snapshot
 * (used GPUs per node, one lease per running group), changed in place as
 * jobs start and end. A pass stops as soon as no GPU is free (nothing
 * could start; the next pass rebuilds the reservations anyway). The per-
 * node expected ends backfill needs are computed once per pass, and only
 * when a reservation is made.
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

#include "sim_engine.h"

/* ---- setup ---- */

static int cmp_str (const void *a, const void *b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static int owners_build (sim_t *m)
{
    jt_sim_result_t *r = m->r;
    size_t all = m->t->n + m->b->n, n = 0;
    const char **names = calloc (all + 1, sizeof (*names));

    if (!names)
        return -1;
    /* the trace's owners and the budgets' (lenders may run nothing) */
    for (size_t j = 0; j < m->t->n; j++)
        names[j] = m->t->jobs[j].owner;
    for (size_t o = 0; o < m->b->n; o++)
        names[m->t->n + o] = m->b->v[o].owner;
    qsort (names, all, sizeof (*names), cmp_str);
    for (size_t j = 0; j < all; j++)
        if (!n || strcmp (names[n - 1], names[j]))
            names[n++] = names[j];
    if (!(r->owners = calloc (n + 1, sizeof (*r->owners)))) {
        free (names);
        return -1;
    }
    r->nowners = n;
    for (size_t o = 0; o < n; o++) {
        const jt_budget_t *bg = jt_budgets_owner (m->b, names[o]);
        r->owners[o].name = names[o];
        for (size_t e = 0; bg && e < bg->nenv; e++)
            r->owners[o].entitled += bg->env[e].concurrency;
    }
    for (size_t j = 0; j < m->t->n; j++) {
        const char *key = m->t->jobs[j].owner;
        const char **hit = bsearch (&key, names, n, sizeof (*names), cmp_str);
        r->owner[j] = (uint32_t) (hit - names);
    }
    free (names);
    return 0;
}

static int cmp_job_id (const void *a, const void *b)
{
    return strcmp ((*(const jt_sim_job_t *const *) a)->id,
                   (*(const jt_sim_job_t *const *) b)->id);
}

/* m->by_id: job indexes by id (ids are unique: the reader checks), for
 * finding the runs an activation names. 0 or -1 (ENOMEM). */
static int sort_by_id (sim_t *m)
{
    const jt_sim_job_t **v = calloc (m->t->n + 1, sizeof (*v));

    if (!v)
        return -1;
    for (size_t j = 0; j < m->t->n; j++)
        v[j] = &m->t->jobs[j];
    qsort (v, m->t->n, sizeof (*v), cmp_job_id);
    for (size_t j = 0; j < m->t->n; j++)
        m->by_id[j] = (size_t) (v[j] - m->t->jobs);
    free (v);
    return 0;
}

static int cmp_i64 (const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

static int walls_build (sim_t *m)
{
    size_t n = 0;

    if (!(m->walls = calloc (2 * m->b->nenv + 1, sizeof (*m->walls))))
        return -1;
    for (size_t e = 0; e < m->b->nenv; e++) {
        int64_t s = m->b->env[e]->start - m->o->epoch;
        int64_t t = m->b->env[e]->end - m->o->epoch;
        if (s > 0)
            m->walls[n++] = s;
        if (t > 0)
            m->walls[n++] = t;
    }
    qsort (m->walls, n, sizeof (*m->walls), cmp_i64);
    m->nwalls = n;
    return 0;
}

static void sim_free (sim_t *m)
{
    if (m->alloc)
        for (size_t j = 0; j < m->t->n; j++)
            free (m->alloc[j]);
    if (m->run)
        for (size_t j = 0; j < m->t->n; j++)
            jt_run_destroy (m->run[j]);
    free (m->alloc);
    free (m->nalloc);
    free (m->run);
    free (m->limit);
    free (m->queue);
    free (m->heap);
    free (m->walls);
    free (m->resv_start);
    free (m->resv_end);
    free (m->avail);
    free (m->eligible);
    free (m->all);
    free (m->holds);
    free (m->starts);
    free (m->order);
    if (m->rnodes)
        for (size_t j = 0; j < m->t->n; j++)
            free (m->rnodes[j]);
    free (m->rnodes);
    free (m->rn);
    free (m->rstart);
    free (m->renv);
    free (m->rgpus);
    free (m->seen_room);
    free (m->seen_fund);
    free (m->kind);
    free (m->flavor_id);
    free (m->flavors);
    free (m->gpn);
    free (m->job_flavor);
    free (m->dom_busy);
    free (m->timers);
    free (m->created);
    free (m->saved);
    free (m->ckpt);
    free (m->activated);
    free (m->requeued);
    free (m->by_id);
    free (m->qtmp);
    free (m->min_gpus);
    jt_pack_views_destroy (m->views);
    jt_snapshot_destroy (m->s);
}

/* A copy of the cluster's nodes and levels (no leases), finalized. */
static jt_snapshot_t *copy_cluster (const jt_snapshot_t *c, jt_error_t *err)
{
    jt_snapshot_t *s = jt_snapshot_create ();

    if (!s) {
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    for (size_t n = 0; n < c->nnodes; n++) {
        const jt_node_t *nd = &c->nodes[n];
        if (jt_snapshot_add_node (s, nd->name, &nd->labels, nd->flavor, nd->gpus,
                                  0, nd->state, err) < 0) {
            jt_snapshot_destroy (s);
            return NULL;
        }
    }
    if (jt_snapshot_set_levels (s, (const char *const *) c->levels, c->nlevels,
                                err) < 0
        || jt_snapshot_finalize (s, err) < 0) {
        jt_snapshot_destroy (s);
        return NULL;
    }
    s->time = c->time;
    return s;
}

/* A job's effective time limit: its own, else duration x factor in whole
 * minutes (both bounded by the reader: no overflow). */
static int64_t limit_of (const jt_sim_job_t *j, int64_t pct)
{
    if (j->limit > 0)
        return j->limit;
    int64_t l = (j->duration * pct + 99) / 100;
    return (l + 59) / 60 * 60;
}

/* An arriving job: a plain GPU job, a run, or refused at once (what
 * TEST_ONLY would say never runs). */
static void arrive (sim_t *m, size_t j, int64_t now)
{
    const jt_sim_job_t *job = &m->t->jobs[j];
    const char *fl = jt_simx_job_flavor (m, job);
    char why[JT_ERRMSG_MAX + 64];
    int gpn = 0;

    m->job_flavor[j] = -1;
    for (size_t f = 0; fl && f < m->nflavors; f++)
        if (!strcmp (m->flavors[f], fl)) {
            m->job_flavor[j] = (int) f;
            gpn = m->gpn[f];
        }
    m->r->gpus[j] = job->gpus;
    if (!fl || gpn <= 0) {
        snprintf (why, sizeof (why), "jobtree sim: %s", fl ? "no node of its flavor"
                  : "no flavor given and the cluster has several");
        jt_simx_refuse (m, j, why);
        return;
    }
    m->r->is_run[j] = job->gpus >= gpn || job->options;
    if (m->r->is_run[j] && m->p->placement) {
        if (!(m->run[j] = jt_simx_make_run (m, job, gpn, why, sizeof (why)))) {
            jt_simx_refuse (m, j, why);
            return;
        }
        char detail[JT_ERRMSG_MAX] = "";
        jt_reason_t rs = jt_cover_ever_gpn (m->b, m->run[j], m->o->epoch + now,
                                            gpn, detail, sizeof (detail));
        jt_error_t e;
        if (rs != JT_OK) {
            snprintf (why, sizeof (why), "jobtree: never fundable: %s",
                      detail[0] ? detail : jt_reason_str (rs));
            jt_simx_refuse (m, j, why);
            return;
        }
        if (jt_run_validate (m->run[j], gpn, &e) < 0) {
            snprintf (why, sizeof (why), "jobtree: %s", e.text);
            jt_simx_refuse (m, j, why);
            return;
        }
    }
    m->queue[m->nqueue++] = j;
}

/* Record the state at t; at JT_SIM_SAMPLES_MAX samples every other one is
 * dropped and the interval doubles, so a long trace with a short interval
 * keeps a bounded timeline (the kept samples stay on the new grid). */
static void sample (sim_t *m, int64_t t, int64_t *step)
{
    sim_sample_t s = { t, m->busy_gpus, (int64_t) m->nqueue, (int64_t) m->nrunning,
                       m->free_domains };
    jt_sim_result_t *r = m->r;

    if (r->nsamples >= JT_SIM_SAMPLES_MAX) {
        size_t w = 0;
        for (size_t i = 0; i < r->nsamples; i += 2)
            r->samples[w++] = r->samples[i];
        r->nsamples = w;
        *step *= 2;
        if (t % *step)
            return;
    }
    jt_simx_sample_push (r, &s);
}

static int loop (sim_t *m, jt_error_t *err)
{
    const jt_sim_trace_t *t = m->t;
    size_t ai = 0, wi = 0, done = 0, every = t->n / 200 + 1;
    int64_t next_sample = 0, step = m->o->sample > 0 ? m->o->sample : 3600;
    size_t depth = m->o->depth ? m->o->depth : SIZE_MAX;

    for (;;) {
        int64_t now = NEVER;
        if (ai < t->n)
            now = t->jobs[ai].submit;
        if (m->nheap && m->heap[0].t < now)
            now = m->heap[0].t;
        while (wi < m->nwalls && m->walls[wi] < 0)
            wi++;
        if (m->nqueue && wi < m->nwalls && m->walls[wi] < now)
            now = m->walls[wi];
        if (m->ntimers && m->timers[0].t < now)
            now = m->timers[0].t;
        if (now == NEVER) {
            /* nothing more happens: one last pass over the whole queue */
            size_t before = m->nqueue;
            if (!m->nqueue)
                break;
            if (jt_simx_pass (m, m->last_now, SIZE_MAX, err) < 0)
                return -1;
            if (m->nqueue == before && !m->nheap)
                break;
            continue;
        }
        while (next_sample <= now) {
            sample (m, next_sample, &step);
            next_sample += step;
        }
        while (m->nheap && m->heap[0].t == now) {
            heap_ent_t e = jt_simx_heap_pop (m->heap, &m->nheap);
            if (!jt_simx_current (m, &e))
                continue;       /* it gave way before this end */
            jt_simx_finish (m, e.job);
            if (m->o->progress && ++done % every == 0)
                m->o->progress (m->o->progress_arg, m->r->policy, done, t->n);
        }
        while (ai < t->n && t->jobs[ai].submit == now)
            arrive (m, ai++, now);
        while (wi < m->nwalls && m->walls[wi] <= now) {
            wi++;
            m->fund_gen++;
        }
        while (m->ntimers && m->timers[0].t <= now) {
            /* an activation may be due: the run is asked again */
            heap_ent_t e = jt_simx_heap_pop (m->timers, &m->ntimers);
            m->kind[e.job] = 0;
        }
        m->last_now = now;
        if (m->nqueue && jt_simx_pass (m, now, depth, err) < 0)
            return -1;
    }
    sample (m, next_sample, &step);
    if (m->o->progress)
        m->o->progress (m->o->progress_arg, m->r->policy, t->n, t->n);
    return 0;
}

jt_sim_result_t *jt_sim_run (const jt_sim_trace_t *t, const jt_budgets_t *b,
                             const jt_snapshot_t *c, const jt_sim_policy_t *p,
                             const jt_sim_opts_t *o, jt_error_t *err)
{
    sim_t m;
    size_t nn;

    memset (&m, 0, sizeof (m));
    if (!t || !b || !c || !p || !o) {
        jt_errprintf (err, "jobtree sim: trace, budgets, cluster, policy and "
                      "options are required");
        return NULL;
    }
    m.room_gen = m.fund_gen = 1;
    m.t = t;
    m.b = b;
    m.p = p;
    m.o = o;
    if (!(m.s = copy_cluster (c, err)))
        return NULL;
    m.views = jt_pack_views_create ();  /* as slurmctld: warm views */
    nn = m.s->nnodes;
    for (size_t n = 0; n < nn; n++) {
        const jt_node_t *nd = &m.s->nodes[n];
        if (!nd->flavor)
            continue;
        if (!m.only_flavor)
            m.only_flavor = nd->flavor;
        else if (strcmp (m.only_flavor, nd->flavor))
            m.only_flavor = "";
        if (nd->state == JT_NODE_UP)
            m.free_gpus += nd->gpus;
    }
    if (m.only_flavor && !*m.only_flavor)
        m.only_flavor = NULL;
    m.r = jt_simx_result_create (t, p->name);
    m.limit = calloc (t->n + 1, sizeof (*m.limit));
    m.run = calloc (t->n + 1, sizeof (*m.run));
    m.alloc = calloc (t->n + 1, sizeof (*m.alloc));
    m.nalloc = calloc (t->n + 1, sizeof (*m.nalloc));
    m.queue = calloc (t->n + 1, sizeof (*m.queue));
    m.created = calloc (t->n + 1, sizeof (*m.created));
    m.saved = calloc (t->n + 1, sizeof (*m.saved));
    m.ckpt = calloc (t->n + 1, sizeof (*m.ckpt));
    m.activated = calloc (t->n + 1, sizeof (*m.activated));
    m.requeued = calloc (t->n + 1, sizeof (*m.requeued));
    m.by_id = calloc (t->n + 1, sizeof (*m.by_id));
    m.qtmp = calloc (t->n + 1, sizeof (*m.qtmp));
    m.min_gpus = calloc (t->n + 1, sizeof (*m.min_gpus));
    if (!m.min_gpus || !m.created || !m.activated || !m.requeued || !m.by_id || !m.qtmp
        || !m.saved || !m.ckpt) {
        jt_errprintf (err, "jobtree sim: out of memory");
        goto fail;
    }
    m.resv_start = calloc (nn + 1, sizeof (*m.resv_start));
    m.resv_end = calloc (nn + 1, sizeof (*m.resv_end));
    m.avail = calloc (nn + 1, sizeof (*m.avail));
    m.eligible = calloc (nn + 1, sizeof (*m.eligible));
    m.all = calloc (nn + 1, sizeof (*m.all));
    m.holds = calloc (t->n + 1, sizeof (*m.holds));
    m.order = calloc (nn + 1, sizeof (*m.order));
    m.flavor_id = calloc (nn + 1, sizeof (*m.flavor_id));
    m.flavors = calloc (nn + 1, sizeof (*m.flavors));
    m.gpn = calloc (nn + 1, sizeof (*m.gpn));
    m.job_flavor = calloc (t->n + 1, sizeof (*m.job_flavor));
    m.rnodes = calloc (t->n + 1, sizeof (*m.rnodes));
    m.rn = calloc (t->n + 1, sizeof (*m.rn));
    m.rstart = calloc (t->n + 1, sizeof (*m.rstart));
    m.renv = calloc (t->n + 1, sizeof (*m.renv));
    m.rgpus = calloc (t->n + 1, sizeof (*m.rgpus));
    m.seen_room = calloc (t->n + 1, sizeof (*m.seen_room));
    m.seen_fund = calloc (t->n + 1, sizeof (*m.seen_fund));
    m.kind = calloc (t->n + 1, sizeof (*m.kind));
    m.dom_busy = calloc (m.s->ndomains + 1, sizeof (*m.dom_busy));
    m.free_domains = (int64_t) m.s->ndomains;
    if (m.r)
        m.r->nlevels = m.s->nlevels;
    if (!m.flavor_id || !m.flavors || !m.gpn || !m.job_flavor || !m.rnodes
        || !m.rn || !m.rstart || !m.renv || !m.rgpus || !m.seen_room
        || !m.seen_fund || !m.kind || !m.dom_busy) {
        jt_errprintf (err, "jobtree sim: out of memory");
        goto fail;
    }
    if (!m.r || !m.limit || !m.run || !m.alloc || !m.nalloc || !m.queue
        || !m.resv_start || !m.resv_end || !m.avail || !m.eligible
        || !m.all || !m.holds || !m.order || owners_build (&m) < 0
        || walls_build (&m) < 0) {
        jt_errprintf (err, "jobtree sim: out of memory");
        goto fail;
    }
    for (size_t n = 0; n < nn; n++) {
        const jt_node_t *nd = &m.s->nodes[n];
        m.all[n] = true;
        m.flavor_id[n] = -1;
        if (!nd->flavor)
            continue;
        size_t f = 0;
        while (f < m.nflavors && strcmp (m.flavors[f], nd->flavor))
            f++;
        if (f == m.nflavors) {
            m.flavors[m.nflavors] = nd->flavor;
            m.gpn[m.nflavors++] = jt_snapshot_gpus_per_node (m.s, nd->flavor);
        }
        m.flavor_id[n] = (int) f;
    }
    m.r->cluster_gpus = m.free_gpus;
    if (!(m.r->dom_names = calloc (m.s->ndomains + 1, sizeof (*m.r->dom_names)))) {
        jt_errprintf (err, "jobtree sim: out of memory");
        goto fail;
    }
    for (size_t d = 0; d < m.s->ndomains; d++, m.r->ndom_names++)
        if (!(m.r->dom_names[d] = strdup (m.s->domains[d].name))) {
            jt_errprintf (err, "jobtree sim: out of memory");
            goto fail;
        }
    if (sort_by_id (&m) < 0) {
        jt_errprintf (err, "jobtree sim: out of memory");
        goto fail;
    }
    for (size_t j = 0; j < t->n; j++) {
        m.created[j] = -1;
        m.limit[j] = limit_of (&t->jobs[j], o->limit_factor_pct);
        m.r->start[j] = -1;
        m.r->end[j] = -1;
    }
    if (loop (&m, err) < 0)
        goto fail;
    sim_free (&m);
    return m.r;
fail:
    sim_free (&m);
    jt_sim_result_destroy (m.r);
    return NULL;
}
