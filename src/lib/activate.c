/*
 * activate.c - who gives way when a reservation activates on a slice that
 * is not free (jobtree/activate.h): structural cuts (spares, then malleable
 * groups), then the published lottery over whole gangs, in the slice's
 * alternative (of the first K the holders can cover) that frees its
 * deficit at the least global cost; and when an activation is due
 * (jt_activation_due: the one rule the select plugin, the simulator and
 * `jobtree plan --activate` ask); the nodes a decision clears for its run
 * (jt_activation_cleared). The slice in a live snapshot and the funding
 * needs (reclaim, aggregate cap) are activate_slice.c's.
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
#include "jobtree/cover.h"
#include "jobtree/lottery.h"
#include "util/strbuf.h"

const char *jt_cut_kind_str (jt_cut_kind_t k)
{
    switch (k) {
    case JT_CUT_SPARE:
        return "DropSpare";
    case JT_CUT_SHRINK:
        return "Shrink";
    case JT_CUT_LOTTERY:
        return "RandomPreempt";
    }
    return "?";
}

void jt_activation_free (jt_activation_t *a)
{
    if (!a)
        return;
    free (a->cuts);
    free (a->draws);
    memset (a, 0, sizeof (*a));
}

/* A run of the holders: its holders are order[first .. first + n). */
typedef struct gang {
    const char *id, *owner;
    size_t first, n;
    int64_t left;               /* GPUs it still holds (spares excluded) */
    int64_t min;
    bool taken;
} gang_t;

typedef struct work {
    const jt_activation_req_t *req;
    const jt_slice_alt_t *alt;
    size_t *order;              /* holder indexes by (run, group) */
    ssize_t *need_of;           /* holder -> need index in alt, or -1 */
    ssize_t *pool_need;         /* pool -> need index in alt, or -1 */
    size_t maxpool;             /* the largest pool of holders and needs */
    bool *cut;                  /* holder already ended */
    int64_t *short_;            /* per need: GPUs still missing */
    gang_t *gangs;
    size_t ngangs;
    jt_activation_t *out;
} work_t;

static int by_run_group (const void *a, const void *b, void *arg)
{
    const jt_holder_t *hs = arg;
    const jt_holder_t *x = &hs[*(const size_t *) a];
    const jt_holder_t *y = &hs[*(const size_t *) b];
    int c = strcmp (x->run, y->run);

    if (c)
        return c;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->pool < y->pool ? -1 : x->pool > y->pool;
}

static bool any_short (const work_t *w)
{
    for (size_t i = 0; i < w->alt->nneeds; i++)
        if (w->short_[i] > 0)
            return true;
    return false;
}

/* Is holder h in a pool that is still short? */
static bool in_short (const work_t *w, size_t h)
{
    return w->need_of[h] >= 0 && w->short_[w->need_of[h]] > 0;
}

static int cut (work_t *w, size_t h, jt_cut_kind_t kind, size_t draw)
{
    jt_activation_t *o = w->out;
    const jt_holder_t *x = &w->req->holders[h];
    jt_cut_t *c = realloc (o->cuts, (o->ncuts + 1) * sizeof (*c));

    if (!c)
        return -1;
    o->cuts = c;
    o->cuts[o->ncuts++] = (jt_cut_t){ h, kind, draw };
    w->cut[h] = true;
    if (w->need_of[h] >= 0) {
        w->short_[w->need_of[h]] -= x->gpus;
        o->freed += x->gpus;
    }
    return 0;
}

/* 1. Spare leases in short pools, by run then group. */
static int cut_spares (work_t *w)
{
    for (size_t k = 0; k < w->req->nholders && any_short (w); k++) {
        size_t h = w->order[k];
        if (w->req->holders[h].role == JT_ROLE_SPARE && !w->cut[h] && in_short (w, h)
            && cut (w, h, JT_CUT_SPARE, 0) < 0)
            return -1;
    }
    return 0;
}

/* 2. Malleable runs give up whole groups in short pools, highest first,
 * never below their minimum; runs by id. */
static int cut_shrink (work_t *w)
{
    for (size_t g = 0; g < w->ngangs && any_short (w); g++) {
        gang_t *r = &w->gangs[g];
        for (size_t k = r->n; k-- > 0 && any_short (w);) {
            size_t h = w->order[r->first + k];
            const jt_holder_t *x = &w->req->holders[h];
            if (x->role == JT_ROLE_SPARE || w->cut[h] || !in_short (w, h)
                || r->left - x->gpus < r->min)
                continue;
            if (cut (w, h, JT_CUT_SHRINK, 0) < 0)
                return -1;
            r->left -= x->gpus;
        }
    }
    return 0;
}

/* GPUs run g would free in short pools now. */
static int64_t gain (const work_t *w, const gang_t *r)
{
    int64_t sum = 0;

    for (size_t k = 0; k < r->n; k++) {
        size_t h = w->order[r->first + k];
        if (!w->cut[h] && in_short (w, h))
            sum += w->req->holders[h].gpus;
    }
    return sum;
}

static int by_str (const void *a, const void *b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Several pools short (a reclaim: the envelope and the domain): when the
 * gangs holding GPUs in every short pool can cover every one of them, the
 * others are left out, so a gang that frees funding where the run cannot
 * go is not taken while one that frees both exists. */
static void keep_complete (const work_t *w, bool *in)
{
    const jt_slice_alt_t *alt = w->alt;
    int64_t *cover = calloc (alt->nneeds, sizeof (*cover));
    bool *all = calloc (w->ngangs + 1, sizeof (*all));
    bool enough = true;

    if (!cover || !all)
        goto out;               /* no narrowing: the plain conflict set */
    for (size_t g = 0; g < w->ngangs; g++) {
        const gang_t *r = &w->gangs[g];
        int64_t *held = NULL;
        if (!in[g])
            continue;
        if (!(held = calloc (alt->nneeds, sizeof (*held))))
            goto out;
        for (size_t k = 0; k < r->n; k++) {
            size_t h = w->order[r->first + k];
            if (!w->cut[h] && w->need_of[h] >= 0)
                held[w->need_of[h]] += w->req->holders[h].gpus;
        }
        all[g] = true;
        for (size_t i = 0; i < alt->nneeds; i++)
            if (w->short_[i] > 0 && held[i] <= 0)
                all[g] = false;
        for (size_t i = 0; all[g] && i < alt->nneeds; i++)
            cover[i] += held[i];
        free (held);
    }
    for (size_t i = 0; i < alt->nneeds; i++)
        if (w->short_[i] > 0 && cover[i] < w->short_[i])
            enough = false;
    if (enough)
        for (size_t g = 0; g < w->ngangs; g++)
            in[g] = in[g] && all[g];
out:
    free (cover);
    free (all);
}

/* 3. The lottery over whole gangs. */
static int lottery (work_t *w)
{
    jt_activation_t *o = w->out;
    jt_lottery_t lot;
    const char **owners = calloc (w->ngangs + 1, sizeof (*owners));
    size_t *cand = calloc (w->ngangs + 1, sizeof (*cand));
    bool *in = calloc (w->ngangs + 1, sizeof (*in));
    int rc = -1;

    if (!owners || !cand || !in)
        goto out;
    jt_lottery_init (&lot, o->rho);
    while (any_short (w)) {
        int64_t need = 0, local = 0;
        size_t nown = 0, nrun = 0, pick = 0;
        jt_draw_t *d;
        bool only_local;

        for (size_t i = 0; i < w->alt->nneeds; i++)
            if (w->short_[i] > 0)
                need += w->short_[i];
        /* the conflict set, and whether its local runs can cover alone */
        for (size_t g = 0; g < w->ngangs; g++) {
            int64_t gn = w->gangs[g].taken ? 0 : gain (w, &w->gangs[g]);
            in[g] = gn > 0;
            if (in[g] && gn >= w->gangs[g].left - gn)
                local += gn;
        }
        only_local = local >= need;
        for (size_t g = 0; g < w->ngangs; g++)
            if (in[g] && only_local) {
                int64_t gn = gain (w, &w->gangs[g]);
                in[g] = gn >= w->gangs[g].left - gn;
            }
        if (w->alt->nneeds > 1)
            keep_complete (w, in);
        for (size_t g = 0; g < w->ngangs; g++)
            if (in[g])
                owners[nown++] = w->gangs[g].owner;
        if (!nown)
            break;                              /* nothing left to take */
        qsort (owners, nown, sizeof (*owners), by_str);
        {
            size_t m = 0;
            for (size_t i = 0; i < nown; i++)
                if (!m || strcmp (owners[m - 1], owners[i]))
                    owners[m++] = owners[i];
            nown = m;
        }
        d = realloc (o->draws, (o->ndraws + 1) * sizeof (*d));
        if (!d)
            goto out;
        o->draws = d;
        d = &o->draws[o->ndraws];
        d->nowners = nown;
        d->owner = (size_t) jt_lottery_below (&lot, nown);
        /* the owner's runs, by id (gangs are sorted by id already) */
        for (size_t g = 0; g < w->ngangs; g++)
            if (in[g] && !strcmp (w->gangs[g].owner, owners[d->owner]))
                cand[nrun++] = g;
        d->nruns = nrun;
        d->run = (size_t) jt_lottery_below (&lot, nrun);
        pick = cand[d->run];
        d->run_id = w->gangs[pick].id;
        o->ndraws++;
        w->gangs[pick].taken = true;
        for (size_t k = 0; k < w->gangs[pick].n; k++) {
            size_t h = w->order[w->gangs[pick].first + k];
            if (!w->cut[h] && cut (w, h, JT_CUT_LOTTERY, o->ndraws - 1) < 0)
                goto out;
        }
    }
    rc = 0;
out:
    free (owners);
    free (cand);
    free (in);
    return rc;
}

/* Could the holders cover every need of alt at all? */
static bool coverable (const jt_activation_req_t *req, const jt_slice_alt_t *alt)
{
    for (size_t i = 0; i < alt->nneeds; i++) {
        int64_t have = 0;
        if (alt->needs[i].deficit <= 0)
            continue;
        for (size_t h = 0; h < req->nholders; h++)
            if (req->holders[h].pool == alt->needs[i].pool)
                have += req->holders[h].gpus;
        if (have < alt->needs[i].deficit)
            return false;
    }
    return true;
}

/* holder -> need through its pool (the last need of a pool counts):
 * O(holders + needs + pools) with the map, an alternative having a need
 * per domain it spans; pairwise for a caller's sparse pool numbers. */
static void map_needs (work_t *w)
{
    const jt_activation_req_t *req = w->req;
    size_t n = req->nholders;

    if (w->pool_need) {
        for (size_t p = 0; p <= w->maxpool; p++)
            w->pool_need[p] = -1;
        for (size_t i = 0; i < w->alt->nneeds; i++)
            w->pool_need[w->alt->needs[i].pool] = (ssize_t) i;
        for (size_t h = 0; h < n; h++)
            w->need_of[h] = w->pool_need[req->holders[h].pool];
        return;
    }
    for (size_t h = 0; h < n; h++) {
        w->need_of[h] = -1;
        for (size_t i = 0; i < w->alt->nneeds; i++)
            if (req->holders[h].pool == w->alt->needs[i].pool)
                w->need_of[h] = (ssize_t) i;
    }
}

static int resolve (work_t *w)
{
    for (size_t i = 0; i < w->alt->nneeds; i++) {
        w->short_[i] = w->alt->needs[i].deficit;
        if (w->short_[i] > 0)
            w->out->deficit += w->short_[i];
    }
    map_needs (w);
    if (cut_spares (w) < 0 || cut_shrink (w) < 0 || lottery (w) < 0)
        return -1;
    w->out->resolved = !any_short (w);
    return 0;
}

/* The gangs of w's holders (sorted by run), whole again: nothing cut. */
static void fresh_gangs (work_t *w)
{
    const jt_activation_req_t *req = w->req;

    w->ngangs = 0;
    for (size_t k = 0; k < req->nholders; k++) {
        const jt_holder_t *x = &req->holders[w->order[k]];
        gang_t *g = w->ngangs ? &w->gangs[w->ngangs - 1] : NULL;
        w->cut[w->order[k]] = false;
        if (!g || strcmp (g->id, x->run)) {
            g = &w->gangs[w->ngangs++];
            *g = (gang_t){ .id = x->run, .owner = x->owner, .first = k,
                           .left = x->run_gpus, .min = x->run_min_gpus };
        }
        g->n++;
    }
}

/* The global cost of a's cuts: the GPUs they take anywhere, a gang the
 * lottery took counted whole (its GPUs in every pool, spares excluded),
 * once: a draw takes one gang and cuts its holders one after the other,
 * so a draw's first cut counts it; a Spare lease or a shrunk group its own
 * GPUs. One pass over the cuts. */
static int64_t cost_of (const jt_activation_req_t *req, const jt_activation_t *a)
{
    int64_t cost = 0;

    for (size_t i = 0; i < a->ncuts; i++) {
        const jt_cut_t *c = &a->cuts[i];
        const jt_holder_t *x = &req->holders[c->holder];
        if (c->kind != JT_CUT_LOTTERY)
            cost += x->gpus;
        else if (i == 0 || a->cuts[i - 1].kind != JT_CUT_LOTTERY
                 || a->cuts[i - 1].draw != c->draw)
            cost += x->run_gpus;
    }
    return cost;
}

/* Is outcome x (deficit dx, cost cx) a better return than y: more of the
 * deficit per GPU taken (dx / cx > dy / cy)? A tie is not. */
static bool better (int64_t dx, int64_t cx, int64_t dy, int64_t cy)
{
    if (cx <= 0 || cy <= 0)
        return cx <= 0 && cy > 0;               /* nothing taken beats all */
    return (__int128) dx * cy > (__int128) dy * cx;
}

/* jt_activate, the alternatives with refused[a] set passed over (refused
 * may be NULL). */
static int activate (const jt_activation_req_t *req, const bool *refused,
                     jt_activation_t *out, jt_error_t *err)
{
    work_t w = { .req = req };
    size_t n = req->nholders, maxneeds = 1, tried = 0;
    jt_activation_t trial;
    int64_t best_cost = 0;
    bool have = false;
    int rc = -1;

    memset (out, 0, sizeof (*out));
    for (size_t h = 0; h < n; h++)
        if (!req->holders[h].run || !req->holders[h].owner
            || req->holders[h].gpus < 0)
            return jt_errprintf (err, "activation: holder %zu without run, "
                                 "owner or with negative GPUs", h);
    for (size_t a = 0; a < req->nalts; a++) {
        if (req->alts[a].nneeds > maxneeds)
            maxneeds = req->alts[a].nneeds;
        for (size_t i = 0; i < req->alts[a].nneeds; i++)
            if (req->alts[a].needs[i].pool > w.maxpool)
                w.maxpool = req->alts[a].needs[i].pool;
    }
    for (size_t h = 0; h < n; h++)
        if (req->holders[h].pool > w.maxpool)
            w.maxpool = req->holders[h].pool;
    /* pools are small indexes (the slice's, the ledger's by appearance);
     * a caller's sparse numbering keeps the pairwise match */
    if (w.maxpool <= n + JT_ACTIVATE_TOP_K * maxneeds + 64)
        w.pool_need = calloc (w.maxpool + 1, sizeof (*w.pool_need));
    if (jt_lottery_seed (req->scope, req->resv_id, req->time, &out->rho, err) < 0)
        return -1;
    w.order = calloc (n + 1, sizeof (*w.order));
    w.need_of = calloc (n + 1, sizeof (*w.need_of));
    w.cut = calloc (n + 1, sizeof (*w.cut));
    w.gangs = calloc (n + 1, sizeof (*w.gangs));
    w.short_ = calloc (maxneeds, sizeof (*w.short_));
    if (!w.order || !w.need_of || !w.cut || !w.gangs || !w.short_) {
        jt_errprintf (err, "activation: out of memory");
        goto out;
    }
    for (size_t h = 0; h < n; h++)
        w.order[h] = h;
    if (n)
        qsort_r (w.order, n, sizeof (*w.order), by_run_group,
                 (void *) req->holders);
    out->alt = req->nalts;
    /* The first JT_ACTIVATE_TOP_K alternatives the holders could cover, in
     * preference order, each decided alone (the same rules and seed); the
     * one that frees its deficit at the least global cost wins (seed 002's
     * return on investment: deficit over the GPUs the cuts take), ties to
     * the earlier (a slice's alternatives come in fewer fabric units
     * first: one block cleared, not pieces of three). */
    for (size_t a = 0; a < req->nalts && tried < JT_ACTIVATE_TOP_K; a++) {
        int64_t cost;
        if ((refused && refused[a]) || !coverable (req, &req->alts[a]))
            continue;
        tried++;
        fresh_gangs (&w);
        memset (&trial, 0, sizeof (trial));
        trial.rho = out->rho;
        trial.alt = a;
        w.out = &trial;
        w.alt = &req->alts[a];
        if (resolve (&w) < 0) {
            jt_activation_free (&trial);
            jt_errprintf (err, "activation: out of memory");
            goto out;
        }
        cost = cost_of (req, &trial);
        if (trial.resolved
            && (!have || better (trial.deficit, cost, out->deficit, best_cost))) {
            jt_activation_free (out);
            *out = trial;
            best_cost = cost;
            have = true;
        } else
            jt_activation_free (&trial);
    }
    rc = 0;         /* none resolved: out is still alt = nalts, no cut */
out:
    free (w.order);
    free (w.need_of);
    free (w.cut);
    free (w.gangs);
    free (w.short_);
    free (w.pool_need);
    if (rc < 0)
        jt_activation_free (out);
    return rc;
}

int jt_activate (const jt_activation_req_t *req, jt_activation_t *out,
                 jt_error_t *err)
{
    return activate (req, NULL, out, err);
}

int jt_activate_except (const jt_activation_req_t *req, const bool *refused,
                        jt_activation_t *out, jt_error_t *err)
{
    return activate (req, refused, out, err);
}

char *jt_activation_dump (const jt_activation_t *a, const jt_activation_req_t *req)
{
    jt_strbuf_t b = JT_STRBUF_INIT;

    jt_strbuf_printf (&b, "%s alt=%zu deficit=%" PRId64 " freed=%" PRId64
                      " rho=%016" PRIx64, a->resolved ? "resolved" : "unresolved",
                      a->alt, a->deficit, a->freed, a->rho);
    for (size_t i = 0; i < a->ncuts; i++) {
        const jt_cut_t *c = &a->cuts[i];
        const jt_holder_t *h = &req->holders[c->holder];
        jt_strbuf_printf (&b, " | %s %s/%d", jt_cut_kind_str (c->kind), h->run,
                          h->group);
        if (c->kind == JT_CUT_LOTTERY) {
            const jt_draw_t *d = &a->draws[c->draw];
            jt_strbuf_printf (&b, " draw %zu owner %zu/%zu run %zu/%zu", c->draw,
                              d->owner, d->nowners, d->run, d->nruns);
        }
    }
    return jt_strbuf_take (&b);
}

const char **jt_activation_runs (const jt_activation_t *a,
                                 const jt_activation_req_t *req, size_t *n,
                                 jt_error_t *err)
{
    const char **v;

    *n = 0;
    if (!a->ncuts)
        return NULL;
    if (!(v = calloc (a->ncuts, sizeof (*v)))) {
        jt_errprintf (err, "activation: out of memory");
        return NULL;
    }
    for (size_t i = 0; i < a->ncuts; i++) {
        const char *run = req->holders[a->cuts[i].holder].run;
        bool seen = false;
        for (size_t k = 0; k < *n && !seen; k++)
            seen = !strcmp (v[k], run);
        if (!seen)
            v[(*n)++] = run;
    }
    return v;
}

/* ---- the nodes an activation clears for its run ---- */

static bool run_cut (const jt_activation_t *a, const jt_activation_req_t *req,
                     const char *run)
{
    for (size_t i = 0; run && i < a->ncuts; i++)
        if (a->cuts[i].holder < req->nholders
            && !strcmp (req->holders[a->cuts[i].holder].run, run))
            return true;
    return false;
}

int jt_activation_cleared (const jt_snapshot_t *s, const jt_node_set_t *set,
                           const jt_activation_t *a, const jt_activation_req_t *req,
                           jt_node_set_t *out, jt_error_t *err)
{
    bool *kept, *cut;

    memset (out, 0, sizeof (*out));
    out->domain = set->domain;
    kept = calloc (s->nnodes ? s->nnodes : 1, sizeof (*kept));
    cut = calloc (s->nnodes ? s->nnodes : 1, sizeof (*cut));
    out->nodes = malloc ((set->nnodes ? set->nnodes : 1) * sizeof (*out->nodes));
    if (!kept || !cut || !out->nodes) {
        free (kept);
        free (cut);
        free (out->nodes);
        memset (out, 0, sizeof (*out));
        return jt_errprintf (err, "activation: out of memory");
    }
    for (size_t i = 0; i < s->nleases; i++) {
        const jt_lease_t *l = &s->leases[i];
        bool gone = run_cut (a, req, l->run);
        for (size_t j = 0; j < l->nnodes; j++) {
            ssize_t k = jt_snapshot_node_index (s, l->nodes[j]);
            if (k >= 0)
                *(gone ? &cut[k] : &kept[k]) = true;
        }
    }
    for (size_t i = 0; i < set->nnodes; i++) {
        size_t k = set->nodes[i];
        if (k < s->nnodes && !kept[k] && (cut[k] || s->nodes[k].used_gpus == 0))
            out->nodes[out->nnodes++] = k;
    }
    free (kept);
    free (cut);
    return 0;
}

int jt_activation_applies (const jt_sched_request_t *now_req, jt_answer_t *e,
                           jt_reclaim_t *fund, jt_error_t *err)
{
    jt_sched_request_t req = *now_req;
    jt_usage_t u;
    int rc;

    memset (fund, 0, sizeof (*fund));
    req.tense = JT_TENSE_ESTIMATE;
    if (jt_sched_answer (&req, e, err) < 0)
        return -1;
    if (e->kind != JT_ANSWER_ESTIMATE)
        return 0;
    if (e->not_before == 0)
        return 1;                       /* funded now: room is missing */
    if (jt_usage_from_snapshot (&u, req.budgets, req.snap, req.now, NULL) < 0) {
        jt_answer_free (e);
        return jt_errprintf (err, "activation: out of memory");
    }
    if (req.closed_hours)
        req.closed_hours (&u, req.budgets, req.closed_hours_arg);
    rc = jt_reclaim_need (req.budgets, &u, req.run, e->cand_gpus, req.now, fund, err);
    if (rc == 1) {
        rc = 2;                         /* a reclaim, at once */
    } else if (rc == 0) {
        /* held by an aggregate cap: activated at MaxWait, like room */
        rc = jt_cap_need (req.budgets, &u, req.run, e->cand_gpus, req.now, fund, err);
    }
    jt_usage_free (&u);
    if (rc < 0)
        jt_answer_free (e);
    return rc < 0 ? -1 : rc;
}

/* ---- when an activation is due ---- */

static bool room_may_be_due (const jt_resv_clock_t *clk, int64_t now)
{
    if (clk->restart)
        return false;                   /* its slice is held: no cascade */
    return clk->what_if
           || (clk->max_wait > 0 && now >= clk->created + clk->max_wait
               && !clk->room_done);
}

static bool reclaim_may_be_due (const jt_resv_clock_t *clk)
{
    if (clk->restart)
        return false;
    return clk->what_if || !clk->reclaim_done;
}

int64_t jt_told_start (int64_t estimate, const jt_resv_clock_t *clk,
                       bool funded_now, bool clearable, int64_t now,
                       bool *by_activation)
{
    int64_t bound;

    *by_activation = false;
    if (!clk || clk->restart || clk->max_wait <= 0 || clk->room_done || !funded_now
        || !clearable
        || clk->created < 0 || clk->max_wait > INT64_MAX - clk->created)
        return estimate;
    bound = clk->created + clk->max_wait;
    if (bound <= now || bound >= estimate)
        return estimate;
    *by_activation = true;
    return bound;
}

bool jt_activation_may_be_due (const jt_resv_clock_t *clk, int64_t now)
{
    return room_may_be_due (clk, now) || reclaim_may_be_due (clk);
}

jt_due_kind_t jt_activation_when (const jt_resv_clock_t *clk, int64_t now, int applies,
                                  jt_activation_due_t *out)
{
    out->kind = JT_DUE_NONE;
    out->applies = applies;
    out->at = 0;
    out->fund = NULL;
    if (applies == 2 && reclaim_may_be_due (clk)) {
        out->kind = JT_DUE_RECLAIM;         /* at once: at the creation */
        out->at = clk->what_if ? now : clk->created;
        out->fund = &out->reclaim;
    } else if (applies == 1 && room_may_be_due (clk, now)) {
        out->kind = JT_DUE_ROOM;            /* at MaxWait */
        out->at = clk->what_if ? now : clk->created + clk->max_wait;
        if (out->reclaim.deficit > 0 && out->reclaim.cap)
            out->fund = &out->reclaim;      /* a cap holds its funding */
    }
    return out->kind;
}

int jt_activation_due (const jt_sched_request_t *now_req, const jt_resv_clock_t *clk,
                       jt_answer_t *e, jt_activation_due_t *out, jt_error_t *err)
{
    int applies;

    memset (e, 0, sizeof (*e));
    memset (out, 0, sizeof (*out));
    if (!jt_activation_may_be_due (clk, now_req->now))
        return (int) jt_activation_when (clk, now_req->now, -1, out);
    if ((applies = jt_activation_applies (now_req, e, &out->reclaim, err)) < 0) {
        memset (e, 0, sizeof (*e));
        return -1;
    }
    return (int) jt_activation_when (clk, now_req->now, applies, out);
}
