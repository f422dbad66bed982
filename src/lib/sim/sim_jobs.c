/*
 * sim_jobs.c - the simulator's jobs and nodes (sim_engine.h): a job
 * becoming a run as job_submit would record it, the running jobs by end
 * time, a start on a BIND answer's plan (nodes used, one lease per group
 * as the plugin records them, GPU-hours borrowed and lent), the cons_tres
 * stand-in for plain GPU jobs, the baseline's first free nodes, and a
 * job's end (nodes and leases given back).
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

#include "jobtree/options.h"
#include "sim_engine.h"

/* ---- the heap of running jobs ---- */

static bool heap_less (const heap_ent_t *a, const heap_ent_t *b)
{
    return a->t < b->t || (a->t == b->t && a->job < b->job);
}

int jt_simx_heap_push (heap_ent_t **v, size_t *n, size_t *cap, int64_t t,
                       size_t job)
{
    heap_ent_t *h = *v;
    size_t i;

    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 1024;
        if (!(h = realloc (*v, nc * sizeof (*h))))
            return -1;
        *v = h;
        *cap = nc;
    }
    i = (*n)++;
    h[i] = (heap_ent_t){ t, job };
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!heap_less (&h[i], &h[up]))
            break;
        heap_ent_t x = h[i];
        h[i] = h[up];
        h[up] = x;
        i = up;
    }
    return 0;
}

heap_ent_t jt_simx_heap_pop (heap_ent_t *h, size_t *n)
{
    heap_ent_t top = h[0];
    size_t i = 0;

    h[0] = h[--*n];
    for (;;) {
        size_t l = 2 * i + 1, rr = l + 1, k = i;
        if (l < *n && heap_less (&h[l], &h[k]))
            k = l;
        if (rr < *n && heap_less (&h[rr], &h[k]))
            k = rr;
        if (k == i)
            break;
        heap_ent_t x = h[i];
        h[i] = h[k];
        h[k] = x;
        i = k;
    }
    return top;
}

bool jt_simx_current (const sim_t *m, const heap_ent_t *e)
{
    return m->r->state[e->job] == SIM_RUNNING && m->r->end[e->job] == e->t;
}

const char *jt_simx_job_flavor (const sim_t *m, const jt_sim_job_t *j)
{
    return j->flavor ? j->flavor : m->only_flavor;
}

void jt_simx_set_why (sim_t *m, size_t j, const char *why)
{
    free (m->r->why[j]);
    m->r->why[j] = strdup (why);
}

void jt_simx_refuse (sim_t *m, size_t j, const char *why)
{
    m->r->state[j] = SIM_REFUSED;
    m->room_gen++;
    m->fund_gen++;
    jt_simx_set_why (m, j, why);
    jt_run_destroy (m->run[j]);
    m->run[j] = NULL;
}

/* The run a job is, as job_submit would record it; NULL with *why set
 * when it cannot be one. */
jt_run_t *jt_simx_make_run (sim_t *m, const jt_sim_job_t *j, int gpn,
                           char *why, size_t len)
{
    jt_run_t *run = jt_run_create ();
    jt_error_t e;

    if (!run) {
        snprintf (why, len, "out of memory");
        return NULL;
    }
    run->id = strdup (j->id);
    run->owner = strdup (j->owner);
    run->flavor = strdup (jt_simx_job_flavor (m, j));
    run->total_gpus = j->gpus;
    run->time_limit_s = m->limit[j - m->t->jobs];
    if (m->t->format == JT_SIM_PHILLY) {
        /* one group, on whole nodes: it must sit in one domain; with
         * --philly-groups, a larger job is whole groups of that size */
        int64_t g = m->o->philly_group_gpus;
        run->total_gpus = (j->gpus + gpn - 1) / gpn * gpn;
        if (g > 0 && g % gpn == 0 && run->total_gpus > g)
            run->total_gpus = (run->total_gpus + g - 1) / g * g;
        run->group_gpus = g > 0 && g % gpn == 0 && run->total_gpus > g
                          ? g : run->total_gpus;
    }
    if (j->options) {
        char *copy = strdup (j->options), *save = NULL, *tok;
        for (tok = copy ? strtok_r (copy, " ", &save) : NULL; tok;
             tok = strtok_r (NULL, " ", &save)) {
            char *eq = strchr (tok, '=');
            if (eq)
                *eq = '\0';
            if (jt_opt_apply (run, tok + 2, eq ? eq + 1 : NULL, &e) < 0) {
                snprintf (why, len, "%s", e.text);
                free (copy);
                jt_run_destroy (run);
                return NULL;
            }
        }
        free (copy);
        jt_opts_finish (run);
    }
    if (m->p->checkpoint > 0)
        run->checkpoint_s = m->p->checkpoint;
    m->ckpt[j - m->t->jobs] = run->checkpoint_s;
    if (m->p->borrow == 1)
        run->allow_borrow = true;
    else if (m->p->borrow == 0) {
        run->allow_borrow = false;
        run->max_borrow_gpus = JT_UNSET;
        for (size_t i = 0; i < run->nsponsors; i++)
            free (run->sponsors[i]);
        free (run->sponsors);
        run->sponsors = NULL;
        run->nsponsors = 0;
    }
    if (!run->id || !run->owner || !run->flavor) {
        snprintf (why, len, "out of memory");
        jt_run_destroy (run);
        return NULL;
    }
    return run;
}

/* ---- node state ---- */

/* Room for n more allocations of job j. 0 or -1 (ENOMEM). */
static int alloc_room (sim_t *m, size_t j, size_t n)
{
    alloc_t *a = realloc (m->alloc[j], (m->nalloc[j] + n + 1) * sizeof (*a));

    if (!a)
        return -1;
    m->alloc[j] = a;
    return 0;
}

static void take (sim_t *m, size_t j, size_t node, int gpus)
{
    alloc_t *a = &m->alloc[j][m->nalloc[j]++];

    a->node = node;
    a->gpus = gpus;
    int d = m->s->nodes[node].domain;

    if (m->s->nodes[node].used_gpus == 0 && gpus > 0 && d >= 0
        && m->dom_busy[d]++ == 0)
        m->free_domains--;
    m->s->nodes[node].used_gpus += gpus;
    m->free_gpus -= gpus;
    m->busy_gpus += gpus;
}

/* How long job j runs from a start: what is left of its duration (less
 * what checkpoints kept of attempts that gave way), or its time limit. */
static int64_t runtime (const sim_t *m, size_t j)
{
    int64_t d = m->t->jobs[j].duration - m->saved[j], l = m->limit[j];
    return l > 0 && l < d ? l : d;
}

/* How many units of level l the job's allocated nodes are in (a domain
 * that is a unit of its own counts once). O(nodes x units found). */
static uint16_t units_of (const sim_t *m, size_t j, size_t l)
{
    ssize_t seen[64];
    size_t n = 0;

    if (l >= m->s->nlevels)
        return 0;
    for (size_t k = 0; k < m->nalloc[j]; k++) {
        int d = m->s->nodes[m->alloc[j][k].node].domain;
        ssize_t u;
        bool dup = false;
        if (d < 0)
            continue;
        u = m->s->domains[d].up[l];
        if (u < 0)
            u = -1 - d;         /* a unit of its own */
        for (size_t i = 0; i < n && !dup; i++)
            dup = seen[i] == u;
        if (!dup && n < sizeof (seen) / sizeof (seen[0]))
            seen[n++] = u;
    }
    return (uint16_t) n;
}

static void started (sim_t *m, size_t j, int64_t now)
{
    jt_sim_result_t *r = m->r;
    int64_t gpus = 0, end = now + runtime (m, j);
    int last = -1;

    r->state[j] = SIM_RUNNING;
    r->start[j] = now;
    r->end[j] = end;
    for (size_t k = 0; k < m->nalloc[j]; k++) {
        int d = m->s->nodes[m->alloc[j][k].node].domain;
        gpus += m->alloc[j][k].gpus;
        if (k == 0 || d != last)
            r->domains[j]++;
        last = d;
    }
    r->gpus[j] = gpus;
    r->units[j] = units_of (m, j, 0);
    r->units_top[j] = m->s->nlevels ? units_of (m, j, m->s->nlevels - 1) : 0;
    r->dom[j] = m->nalloc[j] ? m->s->nodes[m->alloc[j][0].node].domain : -1;
    r->owners[r->owner[j]].gpu_s += (double) gpus * (double) (end - now);
    free (r->why[j]);
    r->why[j] = NULL;
    m->nrunning++;
    m->created[j] = -1;
    m->activated[j] = 0;
    if (jt_simx_heap_push (&m->heap, &m->nheap, &m->heap_cap, end, j) < 0)
        m->oom = true;
}


/* cons_tres's stand-in for a plain GPU job (smaller than a node): the node
 * with the fewest free GPUs that holds it, ties by node order. */
bool jt_simx_place_plain (sim_t *m, size_t j, int64_t now)
{
    const jt_sim_job_t *job = &m->t->jobs[j];
    int fl = m->job_flavor[j];
    int64_t end = now + m->limit[j];
    size_t best = SIZE_MAX;
    int bestfree = 0;

    for (size_t n = 0; n < m->s->nnodes; n++) {
        const jt_node_t *nd = &m->s->nodes[n];
        int fr = nd->gpus - nd->used_gpus;
        if (fr < job->gpus || m->flavor_id[n] != fl || nd->state != JT_NODE_UP
            || !jt_simx_resv_ok (m, n, end))
            continue;
        if (best == SIZE_MAX || fr < bestfree) {
            best = n;
            bestfree = fr;
        }
    }
    if (best == SIZE_MAX || alloc_room (m, j, 1) < 0)
        return false;
    take (m, j, best, (int) job->gpus);
    started (m, j, now);
    return true;
}

/* The baseline (placement off): first whole free nodes in node order. */
bool jt_simx_place_first (sim_t *m, size_t j, int64_t now, int gpn)
{
    const jt_sim_job_t *job = &m->t->jobs[j];
    int fl = m->job_flavor[j];
    int64_t need = (job->gpus + gpn - 1) / gpn, got = 0;

    for (size_t n = 0; n < m->s->nnodes && got < need; n++) {
        const jt_node_t *nd = &m->s->nodes[n];
        if (nd->used_gpus == 0 && nd->state == JT_NODE_UP && m->flavor_id[n] == fl)
            got++;
    }
    if (got < need || alloc_room (m, j, (size_t) need) < 0)
        return false;
    for (size_t n = 0; n < m->s->nnodes && need > 0; n++) {
        const jt_node_t *nd = &m->s->nodes[n];
        if (nd->used_gpus == 0 && nd->state == JT_NODE_UP && m->flavor_id[n] == fl) {
            take (m, j, n, nd->gpus);
            need--;
        }
    }
    started (m, j, now);
    return true;
}

/* Start run j on the plan of a BIND answer: its groups' nodes (and spares)
 * become used, one lease per group as the plugin records them. */
/* After run j started: no node holds more GPUs than it has and no
 * envelope is active beyond its concurrency. The library funded and
 * placed the run; this checks that the simulator's own bookkeeping (node
 * use, leases) is what the library saw. -1 (an internal error) if not. */
static int check_bounds (sim_t *m, size_t j, int64_t now, jt_error_t *err)
{
    jt_usage_t u;
    int rc = 0;

    for (size_t k = 0; k < m->nalloc[j]; k++) {
        const jt_node_t *nd = &m->s->nodes[m->alloc[j][k].node];
        if (nd->used_gpus > nd->gpus)
            return jt_errprintf (err, "jobtree sim: internal: %s starts on %s, "
                                 "which would hold %d of %d GPUs", m->t->jobs[j].id,
                                 nd->name, nd->used_gpus, nd->gpus);
    }
    if (jt_usage_from_snapshot (&u, m->b, m->s, m->o->epoch + now, NULL) < 0)
        return jt_errprintf (err, "jobtree sim: out of memory");
    for (size_t e = 0; e < m->b->nenv && rc == 0; e++)
        if (u.active[e] > m->b->env[e]->concurrency)
            rc = jt_errprintf (err, "jobtree sim: internal: %s starts and envelope "
                               "%s is active with %lld of %lld GPUs",
                               m->t->jobs[j].id, m->b->env[e]->name,
                               (long long) u.active[e],
                               (long long) m->b->env[e]->concurrency);
    jt_usage_free (&u);
    return rc;
}

int jt_simx_start_run (sim_t *m, size_t j, const jt_answer_t *a, int64_t now,
                      jt_error_t *err)
{
    const jt_plan_t *p = &a->plan;
    const jt_run_t *run = m->run[j];
    jt_sim_result_t *r = m->r;
    int64_t rt = runtime (m, j);
    size_t need = 0;

    for (size_t g = 0; g < p->ngroups; g++)
        need += p->groups[g].nnodes + p->groups[g].nspares;
    if (alloc_room (m, j, need) < 0)
        return jt_errprintf (err, "jobtree sim: out of memory");
    for (size_t g = 0; g < p->ngroups; g++) {
        const jt_plan_group_t *pg = &p->groups[g];
        char **names = calloc (pg->nnodes + 1, sizeof (*names));
        jt_lease_t l;

        if (!names)
            return jt_errprintf (err, "jobtree sim: out of memory");
        for (size_t k = 0; k < pg->nnodes; k++) {
            const jt_node_t *nd = &m->s->nodes[pg->nodes[k]];
            take (m, j, pg->nodes[k], pg->node_gpus[k]);
            if (nd->domain != (int) pg->domain)
                r->split[j]++;
            names[k] = nd->name;
        }
        for (size_t k = 0; k < pg->nspares; k++)
            take (m, j, pg->spares[k], m->s->nodes[pg->spares[k]].gpus
                                           - m->s->nodes[pg->spares[k]].used_gpus);
        /* a grouped run's group chunked into several domains is split */
        for (size_t h = 0; h < g; h++)
            if (run->group_gpus > 0 && p->groups[h].index == pg->index
                && p->groups[h].domain != pg->domain) {
                r->split[j]++;
                break;
            }
        l = (jt_lease_t){ .run = run->id, .group = (int) pg->index,
                          .owner = run->owner, .envelope = pg->env->name,
                          .nodes = names, .nnodes = pg->nnodes, .gpus = pg->gpus,
                          .role = pg->role, .start = m->o->epoch + now,
                          .end = m->o->epoch + now + m->limit[j] };
        int rc = jt_snapshot_add_lease (m->s, &l, err);
        free (names);
        if (rc < 0)
            return -1;
        if (pg->nspares) {
            /* its spare nodes: a lease of role Spare paid by the same
             * envelope, as the plugin's snapshot has it (nodemap.c) */
            char **sn = calloc (pg->nspares + 1, sizeof (*sn));
            int64_t sg = 0;
            if (!sn)
                return jt_errprintf (err, "jobtree sim: out of memory");
            for (size_t k = 0; k < pg->nspares; k++) {
                sn[k] = m->s->nodes[pg->spares[k]].name;
                sg += m->s->nodes[pg->spares[k]].gpus;
            }
            l.nodes = sn;
            l.nnodes = pg->nspares;
            l.gpus = sg;
            l.role = JT_ROLE_SPARE;
            rc = jt_snapshot_add_lease (m->s, &l, err);
            free (sn);
            if (rc < 0)
                return -1;
        }
        if (pg->role == JT_ROLE_BORROWED) {
            double gs = (double) pg->gpus * (double) rt;
            r->owners[r->owner[j]].borrowed_gpu_s += gs;
            for (size_t o = 0; o < r->nowners; o++)
                if (!strcmp (r->owners[o].name, pg->env->owner)) {
                    r->owners[o].lent_gpu_s += gs;
                    break;
                }
        }
    }
    if (check_bounds (m, j, now, err) < 0)
        return -1;
    m->min_gpus[j] = run->malleable && run->min_gpus > 0 ? run->min_gpus : -1;
    jt_run_destroy (m->run[j]);
    m->run[j] = NULL;
    m->room_gen++;
    m->fund_gen++;
    started (m, j, now);
    return 0;
}

/* Give back the GPUs of allocation a (a node of some job). */
static void untake (sim_t *m, const alloc_t *a)
{
    jt_node_t *nd = &m->s->nodes[a->node];

    nd->used_gpus -= a->gpus;
    if (nd->used_gpus == 0) {
        m->room_gen++;
        if (nd->domain >= 0 && --m->dom_busy[nd->domain] == 0)
            m->free_domains++;
    }
    m->free_gpus += a->gpus;
    m->busy_gpus -= a->gpus;
}

/* Give job j's nodes and leases back. */
static void release (sim_t *m, size_t j)
{
    const char *id = m->t->jobs[j].id;
    size_t w = 0;

    for (size_t k = 0; k < m->nalloc[j]; k++)
        untake (m, &m->alloc[j][k]);
    if (m->r->is_run[j])
        m->fund_gen++;
    m->nalloc[j] = 0;
    free (m->alloc[j]);
    m->alloc[j] = NULL;
    if (m->r->is_run[j])
        for (size_t i = 0; i < m->s->nleases; i++) {
            if (!strcmp (m->s->leases[i].run, id))
                jt_lease_clear (&m->s->leases[i]);
            else
                m->s->leases[w++] = m->s->leases[i];
        }
    else
        w = m->s->nleases;
    m->s->nleases = w;
}

void jt_simx_finish (sim_t *m, size_t j)
{
    release (m, j);
    m->nrunning--;
    m->r->state[j] = SIM_DONE;
}

int jt_simx_evict (sim_t *m, size_t v, int64_t now, jt_error_t *err)
{
    jt_sim_result_t *r = m->r;
    const jt_sim_job_t *job = &m->t->jobs[v];
    int64_t left = r->end[v] - now;
    char why[JT_ERRMSG_MAX + 64];
    int gpn = m->job_flavor[v] >= 0 ? m->gpn[m->job_flavor[v]] : 0;

    /* what it will not run is not used: its owner's GPU-hours, and the
     * borrowed part of them, lose it */
    r->owners[r->owner[v]].gpu_s -= (double) r->gpus[v] * (double) left;
    for (size_t i = 0; i < m->s->nleases; i++) {
        const jt_lease_t *l = &m->s->leases[i];
        const jt_envelope_t *e;
        if (l->role != JT_ROLE_BORROWED || strcmp (l->run, job->id)
            || !(e = jt_budgets_envelope (m->b, l->envelope)))
            continue;
        r->owners[r->owner[v]].borrowed_gpu_s -= (double) l->gpus * (double) left;
        for (size_t o = 0; o < r->nowners; o++)
            if (!strcmp (r->owners[o].name, e->owner))
                r->owners[o].lent_gpu_s -= (double) l->gpus * (double) left;
    }
    r->evicted_gpu_s += (double) r->gpus[v] * (double) (now - r->start[v]);
    if (m->ckpt[v] > 0) {
        /* it resumes from its last checkpoint (never done: 1 s is left) */
        int64_t keep = (now - r->start[v]) / m->ckpt[v] * m->ckpt[v];
        m->saved[v] += keep;
        if (m->saved[v] > job->duration - 1)
            m->saved[v] = job->duration - 1;
    }
    r->preemptions++;
    r->gpus_evicted += r->gpus[v];
    r->preempted[v]++;
    release (m, v);
    m->nrunning--;
    r->state[v] = SIM_PENDING;
    r->start[v] = r->end[v] = -1;
    r->domains[v] = 0;
    r->dom[v] = -1;
    r->split[v] = 0;
    m->kind[v] = 0;
    m->rn[v] = 0;
    if (!(m->run[v] = jt_simx_make_run (m, job, gpn, why, sizeof (why))))
        return jt_errprintf (err, "jobtree sim: requeue of %s: %s", job->id, why);
    m->requeued[m->nrequeued++] = v;
    return 0;
}

/* The owner index of envelope e's owner, or r->nowners. */
static size_t owner_of_env (const sim_t *m, const char *env)
{
    const jt_envelope_t *e = jt_budgets_envelope (m->b, env);

    for (size_t o = 0; e && o < m->r->nowners; o++)
        if (!strcmp (m->r->owners[o].name, e->owner))
            return o;
    return m->r->nowners;
}

int jt_simx_cut (sim_t *m, size_t v, int group, bool spares_only, int64_t now,
                 jt_error_t *err)
{
    jt_sim_result_t *r = m->r;
    const char *id = m->t->jobs[v].id;
    int64_t left = r->end[v] - now, ran = now - r->start[v], gpus = 0;
    size_t w = 0;
    int nodes = 0;

    if (r->state[v] != SIM_RUNNING)
        return jt_errprintf (err, "jobtree sim: internal: a cut of %s, which "
                             "is not running", id);
    for (size_t i = 0; i < m->s->nleases; i++) {
        jt_lease_t *l = &m->s->leases[i];
        if (strcmp (l->run, id) || l->group != group
            || (spares_only && l->role != JT_ROLE_SPARE)) {
            m->s->leases[w++] = *l;
            continue;
        }
        for (size_t k = 0; k < l->nnodes; k++) {
            ssize_t n = jt_snapshot_node_index (m->s, l->nodes[k]);
            size_t a = 0;
            while (n >= 0 && a < m->nalloc[v] && m->alloc[v][a].node != (size_t) n)
                a++;
            if (n < 0 || a == m->nalloc[v])
                continue;
            untake (m, &m->alloc[v][a]);
            gpus += m->alloc[v][a].gpus;
            m->alloc[v][a] = m->alloc[v][--m->nalloc[v]];
            nodes++;
        }
        if (l->role == JT_ROLE_BORROWED) {
            /* what it will not run is not borrowed, nor lent */
            size_t o = owner_of_env (m, l->envelope);
            r->owners[r->owner[v]].borrowed_gpu_s -= (double) l->gpus * (double) left;
            if (o < r->nowners)
                r->owners[o].lent_gpu_s -= (double) l->gpus * (double) left;
        }
        jt_lease_clear (l);
    }
    m->s->nleases = w;
    if (!nodes)
        return 0;
    r->owners[r->owner[v]].gpu_s -= (double) gpus * (double) left;
    r->cut_gpu_s += (double) gpus * (double) ran;
    r->gpus[v] -= gpus;
    r->gpus_cut += gpus;
    m->fund_gen++;
    return nodes;
}
