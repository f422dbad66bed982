/*
 * sim_backfill.c - the simulator's pass over the queue (sim_engine.h), as
 * backfill runs it: in priority order, each run asked jt_sched_answer NOW
 * on the nodes no earlier reservation holds before it would end, with the
 * funding holds of the runs reserved ahead; a run that cannot start asks
 * ESTIMATE, and the set jt_answer_pick takes becomes its reservation. A
 * refused run is asked again only once something it waits for changed.
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

/* ---- reservations ---- */

/* Expected ends (time limits) of the jobs on each node, and of the
 * reservations made so far in this pass. */
static void avail_build (sim_t *m, int64_t now)
{
    for (size_t n = 0; n < m->s->nnodes; n++)
        m->avail[n] = now;
    for (size_t h = 0; h < m->nheap; h++) {
        size_t j = m->heap[h].job;
        if (!jt_simx_current (m, &m->heap[h]))
            continue;
        int64_t e = m->r->start[j] + m->limit[j];
        for (size_t k = 0; k < m->nalloc[j]; k++)
            if (m->avail[m->alloc[j][k].node] < e)
                m->avail[m->alloc[j][k].node] = e;
    }
    m->avail_ok = true;
}

/* When a node set could hold `need` nodes: the need-th smallest of the
 * nodes' availability (jobs' ends, reservations), -1 if too few. The
 * nodes chosen are left first in m->order. */
static int64_t set_start (sim_t *m, const jt_node_set_t *set, uint32_t need)
{
    size_t n = set->nnodes;

    if (need == 0 || n < need)
        return -1;
    memcpy (m->order, set->nodes, n * sizeof (size_t));
    /* partial selection sort of the need earliest (ties by node index);
     * need is the run's node count, small next to the set */
    for (size_t i = 0; i < need; i++) {
        size_t best = i;
        for (size_t k = i + 1; k < n; k++) {
            int64_t a = m->avail[m->order[k]] > m->resv_end[m->order[k]]
                            ? m->avail[m->order[k]] : m->resv_end[m->order[k]];
            int64_t b = m->avail[m->order[best]] > m->resv_end[m->order[best]]
                            ? m->avail[m->order[best]] : m->resv_end[m->order[best]];
            if (a < b || (a == b && m->order[k] < m->order[best]))
                best = k;
        }
        size_t x = m->order[i];
        m->order[i] = m->order[best];
        m->order[best] = x;
    }
    size_t last = m->order[need - 1];
    return m->avail[last] > m->resv_end[last] ? m->avail[last] : m->resv_end[last];
}

/* Apply run j's reservation: its nodes are held from its start (its latest
 * estimate, never before now) until its time limit after, and its payer's
 * GPUs from that same start: slurmctld's holds are the ledger's open reservations,
 * which keep the payer and GPUs of the estimate that created them, each
 * counted from its run's latest estimate (jtsel_ledger_holds,
 * jt_ledger_sink_hold_start), while backfill re-plans the nodes on every
 * pass. */
static void apply_resv (sim_t *m, size_t j, int64_t now)
{
    int64_t start = m->rstart[j] > now ? m->rstart[j] : now;
    int64_t end = start + m->limit[j];

    for (uint32_t k = 0; k < m->rn[j]; k++) {
        size_t n = m->rnodes[j][k];
        if (start < m->resv_start[n])
            m->resv_start[n] = start;
        if (end > m->resv_end[n])
            m->resv_end[n] = end;
    }
    if (m->renv[j] && m->rn[j])
        m->holds[m->nholds++] = (jt_hold_t){ m->renv[j], m->rgpus[j],
                                              m->o->epoch + start };
}

/* Run j cannot start now: ask for the estimate (ESTIMATE, every node, as
 * backfill's will_run sees the cluster), compute each candidate set's
 * start from the jobs' and earlier reservations' ends, let jt_answer_pick
 * take one, and keep it as j's reservation. */
static int reserve (sim_t *m, size_t j, int64_t now, jt_sched_request_t *req,
                    jt_error_t *err)
{
    jt_answer_t a;
    jt_node_set_t one;
    int64_t start;
    size_t best;

    m->rn[j] = 0;
    req->tense = JT_TENSE_ESTIMATE;
    req->eligible = m->all;
    m->r->answers++;
    if (jt_sched_answer (req, &a, err) < 0)
        return -1;
    if (!m->avail_ok)
        avail_build (m, now);
    if (a.kind == JT_ANSWER_BIND) {
        /* room now, but only on nodes reserved earlier in the pass */
        one = a.bind;
        a.cands = &one;
        a.ncands = 1;
        a.cand_nodes = (uint32_t) one.nnodes;
        a.cand_gpus = a.plan.total_gpus;
        a.payer = a.plan.nsegs ? a.plan.segs[0].env : NULL;
    }
    if (a.kind == JT_ANSWER_BIND || a.kind == JT_ANSWER_ESTIMATE) {
        int64_t *st = realloc (m->starts, (a.ncands + 1) * sizeof (*st));
        size_t *rn = realloc (m->rnodes[j], (a.cand_nodes + 1) * sizeof (*rn));
        if (rn)
            m->rnodes[j] = rn;
        if (st)
            m->starts = st;
        if (!st || !rn) {
            if (a.kind == JT_ANSWER_BIND)
                a.cands = NULL, a.ncands = 0;
            jt_answer_free (&a);
            return jt_errprintf (err, "out of memory");
        }
        for (size_t i = 0; i < a.ncands; i++) {
            st[i] = set_start (m, &a.cands[i], a.cand_nodes);
            if (st[i] >= 0)
                st[i] += m->o->epoch;
        }
        best = jt_answer_pick (&a, st, &start);
        if (best < a.ncands) {
            set_start (m, &a.cands[best], a.cand_nodes);
            memcpy (m->rnodes[j], m->order, a.cand_nodes * sizeof (size_t));
            m->rn[j] = a.cand_nodes;
            m->rstart[j] = start - m->o->epoch;
            if (m->created[j] < 0) {
                /* the hold's payer and GPUs are the first estimate's */
                m->renv[j] = a.payer ? a.payer->name : NULL;
                m->rgpus[j] = a.cand_gpus;
            }
            apply_resv (m, j, now);
            if (m->created[j] < 0) {
                /* the reservation exists from now: a reclaim may be due at
                 * once (a pass at this instant again), room at MaxWait */
                m->created[j] = now;
                if (m->p->preempt
                    && (jt_simx_heap_push (&m->timers, &m->ntimers, &m->timers_cap,
                                           now, j) < 0
                        || (m->p->max_wait > 0
                            && jt_simx_heap_push (&m->timers, &m->ntimers,
                                                  &m->timers_cap,
                                                  now + m->p->max_wait, j) < 0)))
                    m->oom = true;
            }
        }
    }
    if (a.kind == JT_ANSWER_BIND)
        a.cands = NULL, a.ncands = 0;
    jt_answer_free (&a);
    return 0;
}

/* ---- the pass ---- */

static bool answer_stands (const sim_t *m, size_t j)
{
    if (m->kind[j] == 0)
        return false;
    if (m->seen_fund[j] != m->fund_gen)
        return false;
    return m->kind[j] == 2 || m->seen_room[j] == m->room_gen;
}

static int test_run (sim_t *m, size_t j, int64_t now, jt_error_t *err)
{
    const jt_sim_job_t *job = &m->t->jobs[j];
    int64_t end = now + m->limit[j];
    jt_sched_request_t req;
    jt_answer_t a;
    int gpn = m->job_flavor[j] >= 0 ? m->gpn[m->job_flavor[j]] : 0;

    if (!m->p->placement)
        return jt_simx_place_first (m, j, now, gpn > 0 ? gpn : 1) ? 1 : 0;
    if (answer_stands (m, j)) {
        /* nothing it waits for has changed: the same refusal */
        if (m->p->reservations)
            apply_resv (m, j, now);
        return 0;
    }
    for (size_t n = 0; n < m->s->nnodes; n++)
        m->eligible[n] = jt_simx_resv_ok (m, n, end);
    req = (jt_sched_request_t){
        .budgets = m->b, .snap = m->s, .eligible = m->eligible,
        .run = m->run[j], .now = m->o->epoch + now, .tense = JT_TENSE_NOW,
        .min_nodes = (uint32_t) job->nodes, .max_nodes = (uint32_t) job->nodes,
        .holds = m->holds, .nholds = m->nholds,
        .end = m->o->epoch + end,
    };
    req.opts.policy = m->p->pack;
    req.opts.flat = m->p->flat;
    req.opts.views = m->views;
    if (m->p->split_nodes > 0 && gpn > 0)
        req.opts.policy = m->run[j]->total_gpus <= m->p->split_nodes * gpn
                              ? JT_PACK_BEST_FIT : JT_PACK_TO_EMPTY;
    m->r->answers++;
    if (jt_sched_answer (&req, &a, err) < 0)
        return -1;
    if (a.kind == JT_ANSWER_BIND) {
        int rc = jt_simx_start_run (m, j, &a, now, err);
        jt_answer_free (&a);
        return rc < 0 ? -1 : 1;
    }
    if (!a.waits) {
        jt_simx_refuse (m, j, a.reason);
        jt_answer_free (&a);
        return 1;
    }
    if (m->p->preempt) {
        int n = jt_simx_activate (m, j, &req, now, err);
        if (n < 0) {
            jt_answer_free (&a);
            return -1;
        }
        if (n > 0) {            /* room made: slurmctld starts it now */
            jt_answer_free (&a);
            for (size_t k = 0; k < m->s->nnodes; k++)
                m->eligible[k] = jt_simx_resv_ok (m, k, end);
            req.tense = JT_TENSE_NOW;
            req.eligible = m->eligible;
            m->r->answers++;
            if (jt_sched_answer (&req, &a, err) < 0)
                return -1;
            if (a.kind == JT_ANSWER_BIND) {
                int rc = jt_simx_start_run (m, j, &a, now, err);
                jt_answer_free (&a);
                return rc < 0 ? -1 : 1;
            }
        }
    }
    jt_simx_set_why (m, j, a.reason);
    m->kind[j] = a.plan.decision == JT_PLAN_LATER
                 && (a.plan.reason == JT_NO_DOMAIN_FITS
                     || a.plan.reason == JT_SPREAD_NO_DOMAIN
                     || a.plan.reason == JT_NO_NODES) ? 1 : 2;
    m->seen_room[j] = m->room_gen;
    m->seen_fund[j] = m->fund_gen;
    jt_answer_free (&a);
    if (m->p->reservations)
        return reserve (m, j, now, &req, err);
    return 0;
}

static int cmp_size (const void *a, const void *b)
{
    size_t x = *(const size_t *) a, y = *(const size_t *) b;
    return (x > y) - (x < y);
}

int jt_simx_pass (sim_t *m, int64_t now, size_t depth, jt_error_t *err)
{
    size_t tested = 0, w = 0, i;
    int rc = 0;

    m->r->passes++;
    m->nholds = 0;
    m->avail_ok = false;
    for (size_t n = 0; n < m->s->nnodes; n++) {
        m->resv_start[n] = NEVER;
        m->resv_end[n] = 0;
    }
    /* with activation a full cluster may still start a run (runs give
     * way), so the pass goes on */
    for (i = 0; i < m->nqueue && tested < depth && rc >= 0
                && (m->free_gpus > 0 || m->p->preempt); i++) {
        size_t j = m->queue[i];
        tested++;
        if (!m->r->is_run[j]) {
            if (m->free_gpus >= m->t->jobs[j].gpus)
                jt_simx_place_plain (m, j, now);
        } else
            rc = test_run (m, j, now, err);
        if (m->r->state[j] == SIM_PENDING)
            m->queue[w++] = j;
    }
    for (; i < m->nqueue; i++)
        m->queue[w++] = m->queue[i];
    m->nqueue = w;
    if (m->nrequeued) {
        /* the runs that gave way wait again, in priority order (index) */
        size_t a = 0, b = 0, n = 0;
        qsort (m->requeued, m->nrequeued, sizeof (size_t), cmp_size);
        while (a < m->nqueue || b < m->nrequeued)
            m->qtmp[n++] = b == m->nrequeued
                               || (a < m->nqueue && m->queue[a] < m->requeued[b])
                               ? m->queue[a++] : m->requeued[b++];
        memcpy (m->queue, m->qtmp, n * sizeof (size_t));
        m->nqueue = n;
        m->nrequeued = 0;
    }
    if (rc >= 0 && m->oom)
        rc = jt_errprintf (err, "jobtree sim: out of memory");
    return rc < 0 ? -1 : 0;
}
