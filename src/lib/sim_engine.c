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
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/options.h"
#include "jobtree/run.h"
#include "jobtree/schedule.h"
#include "sim_int.h"

#define NEVER INT64_MAX

typedef struct alloc {
    size_t node;
    int gpus;
} alloc_t;

typedef struct heap_ent {
    int64_t t;
    size_t job;
} heap_ent_t;

typedef struct sim {
    const jt_sim_trace_t *t;
    const jt_budgets_t *b;
    const jt_sim_policy_t *p;
    const jt_sim_opts_t *o;
    jt_sim_result_t *r;
    jt_snapshot_t *s;           /* our copy: used GPUs and leases change */
    const char *only_flavor;    /* the cluster's flavor when it has one */
    int64_t *limit;             /* per job, s */
    jt_run_t **run;             /* per pending run */
    alloc_t **alloc;            /* per running job */
    size_t *nalloc;
    size_t *queue;              /* pending jobs, priority order */
    size_t nqueue;
    heap_ent_t *heap;           /* running jobs by end, then index */
    size_t nheap;
    int64_t *walls;             /* envelope window boundaries, trace time */
    size_t nwalls;
    int64_t free_gpus;          /* GPUs free on up nodes */
    int64_t busy_gpus;
    int64_t last_now;           /* the last instant with an event */
    int *flavor_id;             /* per node: index into flavors, -1 none */
    const char **flavors;
    int *gpn;                   /* per flavor: GPUs per node */
    size_t nflavors;
    int *job_flavor;            /* per job: index into flavors, -1 none */
    /* What may change a refused run's answer: room (a whole node frees),
     * funding (a lease ends, a window opens or closes); both when a run
     * ahead starts or leaves (its reservation and hold go). A run refused
     * since the last change is refused again, so it is not asked again:
     * its reservation is kept (DESIGN in sim.md). */
    uint32_t room_gen, fund_gen;
    uint32_t *seen_room, *seen_fund;    /* per job: gens at its refusal */
    uint8_t *kind;              /* per job: 1 room, 2 funding */
    size_t **rnodes;            /* per job: its reservation's nodes */
    uint32_t *rn;
    int64_t *rstart;
    const char **renv;          /* its hold */
    int64_t *rgpus;
    /* per pass */
    int64_t *resv_start;        /* earliest reservation on the node */
    int64_t *resv_end;          /* the node is taken by reservations until */
    int64_t *avail;             /* expected end of the jobs on the node */
    bool avail_ok;
    bool *eligible;
    bool *all;
    jt_hold_t *holds;
    size_t nholds;
    int64_t *starts;            /* per candidate set */
    size_t *order;              /* scratch: nodes of a set */
} sim_t;

/* ---- the heap of running jobs ---- */

static bool heap_less (const heap_ent_t *a, const heap_ent_t *b)
{
    return a->t < b->t || (a->t == b->t && a->job < b->job);
}

static void heap_push (sim_t *m, int64_t t, size_t job)
{
    size_t i = m->nheap++;

    m->heap[i] = (heap_ent_t){ t, job };
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!heap_less (&m->heap[i], &m->heap[up]))
            break;
        heap_ent_t x = m->heap[i];
        m->heap[i] = m->heap[up];
        m->heap[up] = x;
        i = up;
    }
}

static heap_ent_t heap_pop (sim_t *m)
{
    heap_ent_t top = m->heap[0];
    size_t i = 0;

    m->heap[0] = m->heap[--m->nheap];
    for (;;) {
        size_t l = 2 * i + 1, rr = l + 1, k = i;
        if (l < m->nheap && heap_less (&m->heap[l], &m->heap[k]))
            k = l;
        if (rr < m->nheap && heap_less (&m->heap[rr], &m->heap[k]))
            k = rr;
        if (k == i)
            break;
        heap_ent_t x = m->heap[i];
        m->heap[i] = m->heap[k];
        m->heap[k] = x;
        i = k;
    }
    return top;
}

/* ---- jobs ---- */

static const char *job_flavor (const sim_t *m, const jt_sim_job_t *j)
{
    return j->flavor ? j->flavor : m->only_flavor;
}

static void set_why (sim_t *m, size_t j, const char *why)
{
    free (m->r->why[j]);
    m->r->why[j] = strdup (why);
}

static void refuse (sim_t *m, size_t j, const char *why)
{
    m->r->state[j] = SIM_REFUSED;
    m->room_gen++;
    m->fund_gen++;
    set_why (m, j, why);
    jt_run_destroy (m->run[j]);
    m->run[j] = NULL;
}

/* The run a job is, as job_submit would record it; NULL with *why set
 * when it cannot be one. */
static jt_run_t *make_run (sim_t *m, const jt_sim_job_t *j, int gpn,
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
    run->flavor = strdup (job_flavor (m, j));
    run->total_gpus = j->gpus;
    run->time_limit_s = m->limit[j - m->t->jobs];
    if (m->t->format == JT_SIM_PHILLY) {
        /* one group, on whole nodes: it must sit in one domain */
        run->total_gpus = (j->gpus + gpn - 1) / gpn * gpn;
        run->group_gpus = run->total_gpus;
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
    m->s->nodes[node].used_gpus += gpus;
    m->free_gpus -= gpus;
    m->busy_gpus += gpus;
}

static int64_t runtime (const sim_t *m, size_t j)
{
    int64_t d = m->t->jobs[j].duration, l = m->limit[j];
    return l > 0 && l < d ? l : d;
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
    r->owners[r->owner[j]].gpu_s += (double) gpus * (double) (end - now);
    free (r->why[j]);
    r->why[j] = NULL;
    heap_push (m, end, j);
}

/* Is node n free of reservations for a job ending at end? */
static bool resv_ok (const sim_t *m, size_t n, int64_t end)
{
    return end <= m->resv_start[n];
}

/* cons_tres's stand-in for a plain GPU job (smaller than a node): the node
 * with the fewest free GPUs that holds it, ties by node order. */
static bool place_plain (sim_t *m, size_t j, int64_t now)
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
            || !resv_ok (m, n, end))
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
static bool place_first (sim_t *m, size_t j, int64_t now, int gpn)
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
static int start_run (sim_t *m, size_t j, const jt_answer_t *a, int64_t now,
                      jt_error_t *err)
{
    const jt_plan_t *p = &a->plan;
    const jt_run_t *run = m->run[j];
    jt_sim_result_t *r = m->r;
    int64_t rt = runtime (m, j);
    char *names[256];
    size_t need = 0;

    for (size_t g = 0; g < p->ngroups; g++)
        need += p->groups[g].nnodes + p->groups[g].nspares;
    if (alloc_room (m, j, need) < 0)
        return jt_errprintf (err, "jobtree sim: out of memory");
    for (size_t g = 0; g < p->ngroups; g++) {
        const jt_plan_group_t *pg = &p->groups[g];
        jt_lease_t l;
        size_t nn = pg->nnodes < 256 ? pg->nnodes : 256;

        for (size_t k = 0; k < pg->nnodes; k++) {
            const jt_node_t *nd = &m->s->nodes[pg->nodes[k]];
            take (m, j, pg->nodes[k], pg->node_gpus[k]);
            if (nd->domain != (int) pg->domain)
                r->split[j]++;
            if (k < nn)
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
                          .nodes = names, .nnodes = nn, .gpus = pg->gpus,
                          .role = pg->role, .start = m->o->epoch + now,
                          .end = m->o->epoch + now + m->limit[j] };
        if (jt_snapshot_add_lease (m->s, &l, err) < 0)
            return -1;
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
    jt_run_destroy (m->run[j]);
    m->run[j] = NULL;
    m->room_gen++;
    m->fund_gen++;
    started (m, j, now);
    return 0;
}

static void lease_drop (jt_lease_t *l)
{
    free (l->run);
    free (l->owner);
    free (l->envelope);
    for (size_t i = 0; i < l->nnodes; i++)
        free (l->nodes[i]);
    free (l->nodes);
}

static void finish (sim_t *m, size_t j)
{
    const char *id = m->t->jobs[j].id;
    size_t w = 0;

    for (size_t k = 0; k < m->nalloc[j]; k++) {
        jt_node_t *nd = &m->s->nodes[m->alloc[j][k].node];
        nd->used_gpus -= m->alloc[j][k].gpus;
        if (nd->used_gpus == 0)
            m->room_gen++;
        m->free_gpus += m->alloc[j][k].gpus;
        m->busy_gpus -= m->alloc[j][k].gpus;
    }
    if (m->r->is_run[j])
        m->fund_gen++;
    m->nalloc[j] = 0;
    free (m->alloc[j]);
    m->alloc[j] = NULL;
    if (m->r->is_run[j])
        for (size_t i = 0; i < m->s->nleases; i++) {
            if (!strcmp (m->s->leases[i].run, id))
                lease_drop (&m->s->leases[i]);
            else
                m->s->leases[w++] = m->s->leases[i];
        }
    else
        w = m->s->nleases;
    m->s->nleases = w;
    m->r->state[j] = SIM_DONE;
}

/* ---- reservations ---- */

/* Expected ends (time limits) of the jobs on each node, and of the
 * reservations made so far in this pass. */
static void avail_build (sim_t *m, int64_t now)
{
    for (size_t n = 0; n < m->s->nnodes; n++)
        m->avail[n] = now;
    for (size_t h = 0; h < m->nheap; h++) {
        size_t j = m->heap[h].job;
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

/* Apply run j's reservation: its nodes are held from its start (never
 * before now) until its time limit after, and its payer's GPUs too. */
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
            m->renv[j] = a.payer ? a.payer->name : NULL;
            m->rgpus[j] = a.cand_gpus;
            apply_resv (m, j, now);
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
        return place_first (m, j, now, gpn > 0 ? gpn : 1) ? 1 : 0;
    if (answer_stands (m, j)) {
        /* nothing it waits for has changed: the same refusal */
        if (m->p->reservations)
            apply_resv (m, j, now);
        return 0;
    }
    for (size_t n = 0; n < m->s->nnodes; n++)
        m->eligible[n] = resv_ok (m, n, end);
    req = (jt_sched_request_t){
        .budgets = m->b, .snap = m->s, .eligible = m->eligible,
        .run = m->run[j], .now = m->o->epoch + now, .tense = JT_TENSE_NOW,
        .min_nodes = (uint32_t) job->nodes, .max_nodes = (uint32_t) job->nodes,
        .holds = m->holds, .nholds = m->nholds,
        .end = m->o->epoch + end,
    };
    req.opts.policy = m->p->pack;
    if (m->p->split_nodes > 0 && gpn > 0)
        req.opts.policy = m->run[j]->total_gpus <= m->p->split_nodes * gpn
                              ? JT_PACK_BEST_FIT : JT_PACK_TO_EMPTY;
    m->r->answers++;
    if (jt_sched_answer (&req, &a, err) < 0)
        return -1;
    if (a.kind == JT_ANSWER_BIND) {
        int rc = start_run (m, j, &a, now, err);
        jt_answer_free (&a);
        return rc < 0 ? -1 : 1;
    }
    if (!a.waits) {
        refuse (m, j, a.reason);
        jt_answer_free (&a);
        return 1;
    }
    set_why (m, j, a.reason);
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

static int pass (sim_t *m, int64_t now, size_t depth, jt_error_t *err)
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
    for (i = 0; i < m->nqueue && tested < depth && m->free_gpus > 0 && rc >= 0; i++) {
        size_t j = m->queue[i];
        tested++;
        if (!m->r->is_run[j])
            place_plain (m, j, now);
        else
            rc = test_run (m, j, now, err);
        if (m->r->state[j] == SIM_PENDING)
            m->queue[w++] = j;
    }
    for (; i < m->nqueue; i++)
        m->queue[w++] = m->queue[i];
    m->nqueue = w;
    return rc < 0 ? -1 : 0;
}

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
    jt_snapshot_destroy (m->s);
}

/* A copy of the cluster's nodes (no leases), finalized. */
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
    if (jt_snapshot_finalize (s, err) < 0) {
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
    const char *fl = job_flavor (m, job);
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
        refuse (m, j, why);
        return;
    }
    m->r->is_run[j] = job->gpus >= gpn || job->options;
    if (m->r->is_run[j] && m->p->placement) {
        if (!(m->run[j] = make_run (m, job, gpn, why, sizeof (why)))) {
            refuse (m, j, why);
            return;
        }
        char detail[JT_ERRMSG_MAX] = "";
        jt_reason_t rs = jt_cover_ever (m->b, m->run[j], m->o->epoch + now,
                                        detail, sizeof (detail));
        jt_error_t e;
        if (rs != JT_OK) {
            snprintf (why, sizeof (why), "jobtree: never fundable: %s",
                      detail[0] ? detail : jt_reason_str (rs));
            refuse (m, j, why);
            return;
        }
        if (jt_run_validate (m->run[j], gpn, &e) < 0) {
            snprintf (why, sizeof (why), "jobtree: %s", e.text);
            refuse (m, j, why);
            return;
        }
    }
    m->queue[m->nqueue++] = j;
}

static void sample (sim_t *m, int64_t t)
{
    sim_sample_t s = { t, m->busy_gpus, (int64_t) m->nqueue, (int64_t) m->nheap };
    sim_sample_push (m->r, &s);
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
        if (now == NEVER) {
            /* nothing more happens: one last pass over the whole queue */
            size_t before = m->nqueue;
            if (!m->nqueue)
                break;
            if (pass (m, m->last_now, SIZE_MAX, err) < 0)
                return -1;
            if (m->nqueue == before && !m->nheap)
                break;
            continue;
        }
        while (next_sample <= now) {
            sample (m, next_sample);
            next_sample += step;
        }
        while (m->nheap && m->heap[0].t == now) {
            heap_ent_t e = heap_pop (m);
            finish (m, e.job);
            if (m->o->progress && ++done % every == 0)
                m->o->progress (m->o->progress_arg, m->r->policy, done, t->n);
        }
        while (ai < t->n && t->jobs[ai].submit == now)
            arrive (m, ai++, now);
        while (wi < m->nwalls && m->walls[wi] <= now) {
            wi++;
            m->fund_gen++;
        }
        m->last_now = now;
        if (m->nqueue && pass (m, now, depth, err) < 0)
            return -1;
    }
    sample (m, next_sample);
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
    m.r = sim_result_create (t, p->name);
    m.limit = calloc (t->n + 1, sizeof (*m.limit));
    m.run = calloc (t->n + 1, sizeof (*m.run));
    m.alloc = calloc (t->n + 1, sizeof (*m.alloc));
    m.nalloc = calloc (t->n + 1, sizeof (*m.nalloc));
    m.queue = calloc (t->n + 1, sizeof (*m.queue));
    m.heap = calloc (t->n + 1, sizeof (*m.heap));
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
    if (!m.flavor_id || !m.flavors || !m.gpn || !m.job_flavor || !m.rnodes
        || !m.rn || !m.rstart || !m.renv || !m.rgpus || !m.seen_room
        || !m.seen_fund || !m.kind) {
        jt_errprintf (err, "jobtree sim: out of memory");
        goto fail;
    }
    if (!m.r || !m.limit || !m.run || !m.alloc || !m.nalloc || !m.queue
        || !m.heap || !m.resv_start || !m.resv_end || !m.avail || !m.eligible
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
    for (size_t j = 0; j < t->n; j++) {
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
