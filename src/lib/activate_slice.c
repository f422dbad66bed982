/*
 * activate_slice.c - a reserved run's activation request in a live
 * snapshot (jt_activation_slice: its single-domain estimate sets, and the
 * fabric units of a set across domains, as the alternatives, fewest units
 * first; the snapshot's leases as the holders) and the funding a slice
 * may reclaim (jt_reclaim_need: what the run's owner lent away;
 * jt_cap_need: what an aggregate cap holds). Who gives way on it, and the
 * nodes that clears (jt_activation_cleared), are activate.c's.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/activate.h"
#include "jobtree/cover.h"
#include "jobtree/pack.h"
#include "util/grow.h"
#include "util/strbuf.h"

void jt_activation_slice_free (jt_activation_slice_t *sl)
{
    if (!sl)
        return;
    for (size_t i = 0; i < sl->npools; i++)
        free (sl->pools[i]);
    free (sl->pools);
    for (size_t a = 0; sl->alt_sets && a < sl->req.nalts; a++)
        free (sl->alt_sets[a].nodes);
    for (size_t a = 0; sl->alt_where && a < sl->req.nalts; a++)
        free (sl->alt_where[a]);
    free (sl->alt_sets);
    free (sl->alt_where);
    free (sl->alt_units);
    free (sl->alt_cand);
    free (sl->scope);
    free (sl->alts);
    free (sl->needs);
    free (sl->holders);
    memset (sl, 0, sizeof (*sl));
}

const jt_node_set_t *jt_activation_alt_set (const jt_activation_slice_t *sl,
                                            const jt_node_set_t *cands, size_t a)
{
    if (a >= sl->req.nalts)
        return NULL;
    if (sl->alt_sets && sl->alt_sets[a].nodes)
        return &sl->alt_sets[a];
    return &cands[sl->alt_cand[a]];
}

/* Per snapshot node: the one lease on it, or -1 (none), or -2 (several). */
static ssize_t *node_owners (const jt_snapshot_t *s)
{
    ssize_t *own = malloc ((s->nnodes + 1) * sizeof (*own));

    if (!own)
        return NULL;
    for (size_t k = 0; k < s->nnodes; k++)
        own[k] = -1;
    for (size_t l = 0; l < s->nleases; l++)
        for (size_t j = 0; j < s->leases[l].nnodes; j++) {
            ssize_t k = jt_snapshot_node_index (s, s->leases[l].nodes[j]);
            if (k >= 0)
                own[k] = own[k] == -1 ? (ssize_t) l : -2;
        }
    return own;
}

/* Per snapshot node: the pool its GPUs count in (its domain's, when the
 * set that pool counts on holds it), or -1. One pass over those sets. */
static ssize_t *node_pools (const jt_snapshot_t *s, const jt_node_set_t *cands,
                            const ssize_t *dom_pool, const size_t *pool_cand,
                            size_t first, size_t npools)
{
    ssize_t *np = malloc ((s->nnodes + 1) * sizeof (*np));
    bool *done = calloc (npools + 1, sizeof (*done));

    if (!np || !done) {
        free (np);
        free (done);
        return NULL;
    }
    for (size_t k = 0; k < s->nnodes; k++)
        np[k] = -1;
    for (size_t p = first; p < npools; p++) {
        const jt_node_set_t *c = &cands[pool_cand[p]];
        if (done[p])
            continue;
        for (size_t j = 0; j < c->nnodes; j++) {
            int d = s->nodes[c->nodes[j]].domain;
            ssize_t q = d >= 0 ? dom_pool[d] : -1;
            if (q >= 0 && pool_cand[q] == pool_cand[p])
                np[c->nodes[j]] = q;
        }
        for (size_t q = p; q < npools; q++)     /* the set is counted once */
            if (pool_cand[q] == pool_cand[p])
                done[q] = true;
    }
    free (done);
    return np;
}

/* GPUs lease l frees per pool (acc[pool] += ...; touched: the pools it
 * frees in, each once, *ntouched of them): its nodes counted in a pool
 * that nothing else uses. stamp: per node, the lease last counted + 1. */
static void lease_frees (const jt_snapshot_t *s, const ssize_t *own,
                         const ssize_t *np, size_t l, size_t *stamp,
                         int64_t *acc, size_t *touched, size_t *ntouched)
{
    const jt_lease_t *le = &s->leases[l];
    int64_t share = le->nnodes ? le->gpus / (int64_t) le->nnodes : 0;

    *ntouched = 0;
    for (size_t j = 0; j < le->nnodes; j++) {
        ssize_t k = jt_snapshot_node_index (s, le->nodes[j]);
        const jt_node_t *n;
        if (k < 0 || stamp[k] == l + 1 || np[k] < 0)
            continue;
        stamp[k] = l + 1;
        n = &s->nodes[k];
        if (own[k] != (ssize_t) l || n->state != JT_NODE_UP || n->used_gpus > share
            || n->gpus <= 0)
            continue;
        if (acc[np[k]] == 0)
            touched[(*ntouched)++] = (size_t) np[k];
        acc[np[k]] += n->gpus;
    }
}

static int lease_by_run (const void *a, const void *b, void *arg)
{
    const jt_snapshot_t *s = arg;
    size_t x = *(const size_t *) a, y = *(const size_t *) b;
    int c = strcmp (s->leases[x].run, s->leases[y].run);

    return c ? c : (x > y) - (x < y);
}

/* Does lease le count for this slice: a run that may give way and, when
 * reclaiming, a lease the envelope pays for another owner. */
static bool slice_lease (const jt_lease_t *le, const jt_reclaim_t *fund)
{
    if (fund && fund->cap) {    /* any lease one of the cap's envelopes pays */
        for (size_t j = 0; le->envelope && j < fund->cap->nenvelopes; j++)
            if (!strcmp (le->envelope, fund->cap->envelopes[j]))
                return true;
        return false;
    }
    return !fund || (le->envelope && !strcmp (le->envelope, fund->envelope)
                     && (!le->owner || strcmp (le->owner, fund->owner)));
}

/* ---- building the alternatives ---- */

/* One alternative while the slice is built: its needs are needs[at ..
 * at + n) of the builder (an index: the array grows). */
typedef struct alt_rec {
    size_t at, n;
    size_t nunits;
    size_t cand;                /* index into the cands */
    jt_node_set_t set;          /* across domains: its nodes; else empty */
    char *where;
} alt_rec_t;

typedef struct slice_build {
    const jt_snapshot_t *s;
    const jt_node_set_t *cands;
    uint32_t cand_nodes;
    uint32_t group_nodes;       /* > 0: the run's groups, whole nodes each */
    int64_t gpn;
    const jt_reclaim_t *fund;
    jt_activation_slice_t *out;
    ssize_t *dom_pool;          /* per domain: its pool, or -1 */
    size_t *pool_cand;          /* per pool: the set its holders count on */
    int *pool_dom;              /* per pool: its domain (-1: the funding's) */
    alt_rec_t *alts;
    size_t nalts, alts_cap;
    jt_need_t *needs;
    size_t nneeds, needs_cap;
    /* per domain, for the set across domains being split */
    size_t *cnt;                /* its nodes there */
    int64_t *freeg;             /* the GPUs of its free nodes there */
} slice_build_t;

/* Domain d's pool, created for set cand on first use; -1 on ENOMEM. */
static ssize_t pool_of (slice_build_t *b, int d, size_t cand)
{
    jt_activation_slice_t *o = b->out;

    if (b->dom_pool[d] >= 0)
        return b->dom_pool[d];
    if (!(o->pools[o->npools] = strdup (b->s->domains[d].name)))
        return -1;
    b->pool_cand[o->npools] = cand;
    b->pool_dom[o->npools] = d;
    b->dom_pool[d] = (ssize_t) o->npools;
    return (ssize_t) o->npools++;
}

static int push_need (slice_build_t *b, size_t pool, int64_t deficit)
{
    void *v = b->needs;

    if (jt_grow (&v, &b->needs_cap, b->nneeds + 1, sizeof (*b->needs)) < 0)
        return -1;
    b->needs = v;
    b->needs[b->nneeds++] = (jt_need_t){ pool, deficit };
    return 0;
}

/* Append alternative r (needs already pushed from r->at); takes r's set
 * and where (freed on ENOMEM). */
static int push_alt (slice_build_t *b, alt_rec_t *r)
{
    void *v = b->alts;

    if (jt_grow (&v, &b->alts_cap, b->nalts + 1, sizeof (*b->alts)) < 0) {
        free (r->set.nodes);
        free (r->where);
        return -1;
    }
    b->alts = v;
    b->alts[b->nalts++] = *r;
    return 0;
}

/* A single-domain set (today's alternative): one pool, its room need. */
static int alt_one_domain (slice_build_t *b, size_t i)
{
    const jt_snapshot_t *s = b->s;
    const jt_node_set_t *c = &b->cands[i];
    int64_t free_gpus = 0, room;
    alt_rec_t r = { .at = b->nneeds, .nunits = 1, .cand = i };
    ssize_t pool;

    /* one alternative per domain (a pool is named by its domain): of
     * several sets in one domain (group-by classes), the first */
    if (b->dom_pool[c->domain] >= 0)
        return 0;
    for (size_t j = 0; j < c->nnodes; j++) {
        const jt_node_t *n = &s->nodes[c->nodes[j]];
        if (n->state == JT_NODE_UP && n->used_gpus == 0)
            free_gpus += n->gpus;
    }
    room = (int64_t) b->cand_nodes * b->gpn - free_gpus;
    if (room <= 0 && !b->fund)
        return 0;
    if ((pool = pool_of (b, c->domain, i)) < 0
        || (b->fund && push_need (b, 0, b->fund->deficit) < 0)
        || push_need (b, (size_t) pool, room) < 0
        || !(r.where = strdup (s->domains[c->domain].name)))
        return -1;
    r.n = b->nneeds - r.at;
    return push_alt (b, &r);
}

static int cmp_idx (const void *x, const void *y)
{
    size_t a = *(const size_t *) x, c = *(const size_t *) y;

    return (a > c) - (a < c);
}

typedef struct fill_ctx {
    const int64_t *freeg;
} fill_ctx_t;

/* Most free first, then domain order. */
static int by_free (const void *x, const void *y, void *arg)
{
    const fill_ctx_t *f = arg;
    size_t a = *(const size_t *) x, c = *(const size_t *) y;

    if (f->freeg[a] != f->freeg[c])
        return f->freeg[a] > f->freeg[c] ? -1 : 1;
    return (a > c) - (a < c);
}

/* The alternative over domains dom[0 .. nd) (ascending) of set i: the
 * run's nodes fill them most free first; one need per domain used. Adds
 * nothing when they cannot hold the run, when no domain used is short
 * (and not reclaiming), or when an earlier alternative uses the same
 * domains with the same deficits. label: the unit's name
 * ("block b1"), or NULL for the set itself. */
static int alt_domains (slice_build_t *b, size_t i, const size_t *dom, size_t nd,
                        const char *label)
{
    const jt_snapshot_t *s = b->s;
    const jt_node_set_t *c = &b->cands[i];
    size_t *ord = malloc ((nd + 1) * sizeof (*ord));
    size_t *use = calloc (s->ndomains + 1, sizeof (*use));
    jt_strbuf_t w = JT_STRBUF_INIT;
    alt_rec_t r = { .at = b->nneeds, .cand = i, .set = { NULL, 0, -1 } };
    uint32_t left = b->cand_nodes;
    bool shortd = false;
    int rc = -1;

    if (!ord || !use)
        goto out;
    memcpy (ord, dom, nd * sizeof (*ord));
    qsort_r (ord, nd, sizeof (*ord), by_free, &(fill_ctx_t){ b->freeg });
    for (size_t k = 0; k < nd && left > 0; k++) {
        size_t d = ord[k];
        /* whole groups only: a domain's nodes past its last whole group
         * hold no piece of the run (Pack never splits a group) */
        size_t have = b->group_nodes > 0 && left % b->group_nodes == 0
                      ? b->cnt[d] / b->group_nodes * b->group_nodes : b->cnt[d];
        use[d] = have < left ? have : left;
        left -= (uint32_t) use[d];
    }
    rc = 0;
    if (left > 0)
        goto out;                       /* cannot hold the run */
    for (size_t k = 0; k < nd; k++)
        if (use[dom[k]] && (int64_t) use[dom[k]] * b->gpn > b->freeg[dom[k]])
            shortd = true;
    if (!shortd && !b->fund)
        goto out;
    rc = -1;
    if (b->fund && push_need (b, 0, b->fund->deficit) < 0)
        goto out;
    if (label)
        jt_strbuf_printf (&w, "%s (", label);
    for (size_t k = 0, first = 1; k < nd; k++) {
        size_t d = dom[k];
        ssize_t pool;
        if (!use[d])
            continue;
        if ((pool = pool_of (b, (int) d, i)) < 0
            || push_need (b, (size_t) pool, (int64_t) use[d] * b->gpn - b->freeg[d]) < 0)
            goto out;
        jt_strbuf_printf (&w, "%s%s", first ? "" : ",", s->domains[d].name);
        first = 0;
        /* units: the lowest level's its domains lie in (a domain of its
         * own there counts alone); without levels, its domains */
        bool seen = false;
        ssize_t u = s->nlevels ? s->domains[d].up[0] : -1;
        for (size_t j = 0; j < k && !seen && u >= 0; j++)
            seen = use[dom[j]] && s->domains[dom[j]].up[0] == u;
        if (!seen)
            r.nunits++;
    }
    if (label)
        jt_strbuf_printf (&w, ")");
    r.n = b->nneeds - r.at;
    /* the same domains and deficits as an earlier alternative (a unit's,
     * or a single-domain set's): no second one */
    for (size_t a = 0; a < b->nalts; a++) {
        const alt_rec_t *o = &b->alts[a];
        bool same = o->n == r.n;
        for (size_t k = 0; same && k < r.n; k++)
            same = b->needs[o->at + k].pool == b->needs[r.at + k].pool
                   && b->needs[o->at + k].deficit == b->needs[r.at + k].deficit;
        if (same) {
            b->nneeds = r.at;
            rc = 0;
            goto out;
        }
    }
    if (!(r.set.nodes = malloc ((c->nnodes + 1) * sizeof (size_t))))
        goto out;
    for (size_t j = 0; j < c->nnodes; j++) {
        int d = s->nodes[c->nodes[j]].domain;
        if (d >= 0 && use[d])
            r.set.nodes[r.set.nnodes++] = c->nodes[j];
    }
    if (!(r.where = jt_strbuf_take (&w))) {
        free (r.set.nodes);
        goto out;
    }
    rc = push_alt (b, &r);
out:
    free (jt_strbuf_take (&w));
    free (ord);
    free (use);
    return rc;
}

/* A set across domains: one alternative per unit of the lowest level
 * below the set's own whose units can hold the run, then the set itself
 * when it spans several units of that level (or when none can). */
static int alt_across (slice_build_t *b, size_t i)
{
    const jt_snapshot_t *s = b->s;
    const jt_node_set_t *c = &b->cands[i];
    size_t *dom = NULL, *ud = NULL, nd = 0, own_level = s->nlevels;
    ssize_t fit = -1;
    int rc = -1;

    if (!(dom = malloc ((s->ndomains + 1) * sizeof (*dom)))
        || !(ud = malloc ((s->ndomains + 1) * sizeof (*ud))))
        goto out;
    for (size_t d = 0; d < s->ndomains; d++)
        b->cnt[d] = 0, b->freeg[d] = 0;
    for (size_t j = 0; j < c->nnodes; j++) {
        const jt_node_t *n = &s->nodes[c->nodes[j]];
        if (n->domain < 0 || (size_t) n->domain >= s->ndomains)
            continue;
        b->cnt[n->domain]++;
        if (n->state == JT_NODE_UP && n->used_gpus == 0)
            b->freeg[n->domain] += n->gpus;
    }
    for (size_t d = 0; d < s->ndomains; d++)
        if (b->cnt[d])
            dom[nd++] = d;
    if (!nd) {
        rc = 0;
        goto out;
    }
    /* the set's own level: the lowest whose one unit holds all its domains
     * (a unit of --cross-group-spread=no:LEVEL); none: above them all */
    for (size_t l = 0; l < s->nlevels && own_level == s->nlevels; l++) {
        bool one = s->domains[dom[0]].up[l] >= 0 || nd == 1;
        for (size_t k = 1; k < nd && one; k++)
            one = s->domains[dom[k]].up[l] == s->domains[dom[0]].up[l];
        if (one)
            own_level = l;
    }
    if (nd == 1)
        own_level = 0;
    for (size_t l = 0; l < own_level && fit < 0; l++) {
        size_t nu = jt_pack_level_nunits (s, l);
        for (size_t u = 0; u < nu; u++) {
            size_t one, n, m = 0, cap = 0;
            const size_t *in = jt_pack_level_domains (s, l, u, &one, &n);
            char label[256];
            for (size_t k = 0; k < n; k++)
                if (b->cnt[in[k]]) {
                    ud[m++] = in[k];
                    cap += b->group_nodes > 0
                           ? b->cnt[in[k]] / b->group_nodes * b->group_nodes
                           : b->cnt[in[k]];
                }
            if (!m || cap < b->cand_nodes)
                continue;
            fit = (ssize_t) l;
            snprintf (label, sizeof (label), "%s %s", jt_level_name (s, l),
                      jt_pack_level_unit_name (s, l, u));
            /* the unit's domains, ascending (as the set's) */
            qsort (ud, m, sizeof (*ud), cmp_idx);
            if (alt_domains (b, i, ud, m, label) < 0)
                goto out;
        }
    }
    /* the set itself: its domains across units (pieces of several), or
     * the one unit of its own level (named so); an alternative already
     * made with the same domains is not made again */
    if (own_level < s->nlevels && s->domains[dom[0]].up[own_level] >= 0) {
        char label[256];
        snprintf (label, sizeof (label), "%s %s", jt_level_name (s, own_level),
                  s->units[own_level][s->domains[dom[0]].up[own_level]].name);
        rc = alt_domains (b, i, dom, nd, label);
    } else
        rc = alt_domains (b, i, dom, nd, NULL);
out:
    free (dom);
    free (ud);
    return rc;
}

/* Fewer units first; the order they were made among equals. */
static void sort_by_units (alt_rec_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        alt_rec_t x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1].nunits > x.nunits; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

int jt_activation_slice (const jt_snapshot_t *s, const jt_node_set_t *cands,
                         size_t ncands, uint32_t cand_nodes, uint32_t group_nodes,
                         const char *flavor,
                         const jt_reclaim_t *fund, const char *self,
                         const char *resv_id, int64_t time, bool structural,
                         jt_yield_fn yield, void *arg,
                         jt_activation_slice_t *out, jt_error_t *err)
{
    slice_build_t b = { .s = s, .cands = cands, .cand_nodes = cand_nodes,
                        .group_nodes = group_nodes,
                        .gpn = jt_snapshot_gpus_per_node (s, flavor),
                        .fund = fund, .out = out };
    int64_t *run_gpus = NULL, *run_min = NULL;
    ssize_t *own = NULL;
    bool *in_scope = NULL, any = fund != NULL;
    ssize_t *np = NULL;
    size_t *stamp = NULL, *touched = NULL;
    int64_t *acc = NULL, *have = NULL;
    jt_strbuf_t scope = JT_STRBUF_INIT;
    size_t nh = 0, nalts = 0, npl, nt;
    int ret = -1;

    memset (out, 0, sizeof (*out));
    if (fund && (fund->deficit <= 0 || !fund->envelope || !fund->owner))
        return jt_errprintf (err, "activation: a reclaim without envelope, "
                             "owner or deficit");
    npl = s->ndomains + 2;              /* a pool per domain, the funding's */
    if (!(own = node_owners (s))
        || !(out->pools = calloc (npl, sizeof (*out->pools)))
        || !(b.dom_pool = malloc (npl * sizeof (*b.dom_pool)))
        || !(b.pool_cand = calloc (npl, sizeof (*b.pool_cand)))
        || !(b.pool_dom = calloc (npl, sizeof (*b.pool_dom)))
        || !(b.cnt = calloc (npl, sizeof (*b.cnt)))
        || !(b.freeg = calloc (npl, sizeof (*b.freeg)))
        || !(in_scope = calloc (npl, sizeof (*in_scope)))
        || !(run_gpus = calloc (s->nleases + 1, sizeof (*run_gpus)))
        || !(run_min = calloc (s->nleases + 1, sizeof (*run_min))))
        goto nomem;
    for (size_t d = 0; d < npl; d++)
        b.dom_pool[d] = -1;
    if (fund) {
        if (fund->cap)
            jt_strbuf_printf (&scope, "cap:%s", fund->cap->name);
        else
            jt_strbuf_printf (&scope, "envelope:%s", fund->envelope);
        if (!(out->pools[0] = jt_strbuf_take (&scope)))
            goto nomem;
        b.pool_dom[0] = -1;
        out->npools = 1;
    }
    /* alternatives: single-domain sets that are short of room (or, when
     * reclaiming, every single-domain set: the funding is short), and the
     * units of sets across domains; fewest units first */
    if (b.gpn > 0)
        for (size_t i = 0; i < ncands; i++) {
            int rc;
            if (cands[i].domain >= 0 && (size_t) cands[i].domain < s->ndomains)
                rc = alt_one_domain (&b, i);
            else if (cands[i].domain < 0)
                rc = alt_across (&b, i);
            else
                continue;
            if (rc < 0)
                goto nomem;
        }
    sort_by_units (b.alts, b.nalts);
    /* each yielding run's GPUs (its global cost) and minimum, per lease:
     * leases sorted by run, one yield() per run */
    {
        size_t *ord = malloc ((s->nleases + 1) * sizeof (*ord));
        if (!ord)
            goto nomem;
        for (size_t l = 0; l < s->nleases; l++)
            ord[l] = l;
        if (s->nleases)
            qsort_r (ord, s->nleases, sizeof (*ord), lease_by_run, (void *) s);
        for (size_t i = 0, j; i < s->nleases; i = j) {
            const char *run = s->leases[ord[i]].run;
            int64_t total = 0, min;
            for (j = i; j < s->nleases && !strcmp (s->leases[ord[j]].run, run); j++)
                if (!structural || s->leases[ord[j]].role != JT_ROLE_SPARE)
                    total += s->leases[ord[j]].gpus;
            min = total;
            if (!strcmp (run, self) || total <= 0 || !yield (run, &min, arg))
                continue;
            for (size_t k = i; k < j; k++) {
                run_gpus[ord[k]] = total;
                run_min[ord[k]] = structural && min >= 0 && min <= total ? min : total;
            }
        }
        free (ord);
    }
    if (!(out->holders = calloc ((s->nleases + 1) * (out->npools + 1),
                                 sizeof (*out->holders)))
        || !(np = node_pools (s, cands, b.dom_pool, b.pool_cand, fund ? 1 : 0,
                              out->npools))
        || !(stamp = calloc (s->nnodes + 1, sizeof (*stamp)))
        || !(acc = calloc (out->npools + 1, sizeof (*acc)))
        || !(have = calloc (out->npools + 1, sizeof (*have)))
        || !(touched = calloc (out->npools + 1, sizeof (*touched))))
        goto nomem;
    for (size_t l = 0; l < s->nleases; l++) {
        const jt_lease_t *le = &s->leases[l];
        jt_holder_t h = {
            .run = le->run, .owner = le->owner ? le->owner : "",
            .group = le->group,
            .role = structural ? le->role
                    : le->role == JT_ROLE_SPARE ? JT_ROLE_ACTIVE : le->role,
            .run_gpus = run_gpus[l], .run_min_gpus = run_min[l],
        };
        if (!run_gpus[l] || !slice_lease (le, fund))
            continue;
        if (fund && le->gpus > 0) {             /* what it uses of the envelope */
            h.gpus = le->gpus;
            h.pool = 0;
            out->holders[nh++] = h;
        }
        /* per domain pool, in the order the alternatives made them */
        lease_frees (s, own, np, l, stamp, acc, touched, &nt);
        qsort (touched, nt, sizeof (*touched), cmp_idx);
        for (size_t i = 0; i < nt; i++) {
            h.gpus = acc[touched[i]];
            h.pool = touched[i];
            acc[touched[i]] = 0;
            out->holders[nh++] = h;
        }
    }
    for (size_t h = 0; h < nh; h++)     /* what each pool's holders hold */
        have[out->holders[h].pool] += out->holders[h].gpus;
    /* Only the alternatives the holders could clear are the slice's
     * scope: a domain nobody may leave (a plain job, a run not offered) is
     * no candidate, whether the caller's node set showed it busy or left
     * it out, so slurmctld and `jobtree plan --activate` publish the same
     * scope and seed. */
    if (!(out->alts = calloc (b.nalts + 1, sizeof (*out->alts)))
        || !(out->alt_cand = calloc (b.nalts + 1, sizeof (*out->alt_cand)))
        || !(out->alt_sets = calloc (b.nalts + 1, sizeof (*out->alt_sets)))
        || !(out->alt_where = calloc (b.nalts + 1, sizeof (*out->alt_where)))
        || !(out->alt_units = calloc (b.nalts + 1, sizeof (*out->alt_units))))
        goto nomem;
    if (fund)
        jt_strbuf_printf (&scope, "%s", out->pools[0]);
    for (size_t a = 0; a < b.nalts; a++) {
        alt_rec_t *r = &b.alts[a];
        bool can = true;
        for (size_t i = 0; i < r->n && can; i++) {
            const jt_need_t *nd = &b.needs[r->at + i];
            can = nd->deficit <= 0 || have[nd->pool] >= nd->deficit;
        }
        if (!can) {
            free (r->set.nodes);
            free (r->where);
            continue;
        }
        for (size_t i = 0; i < r->n; i++) {
            size_t p = b.needs[r->at + i].pool;
            if ((fund && p == 0) || in_scope[p])
                continue;
            in_scope[p] = true;
            jt_strbuf_printf (&scope, "%s%s", any ? "," : "", out->pools[p]);
            any = true;
        }
        out->alts[nalts] = (jt_slice_alt_t){ NULL, r->n };
        out->alt_units[nalts] = r->nunits;
        out->alt_cand[nalts] = r->cand;
        out->alt_sets[nalts] = r->set;
        out->alt_where[nalts] = r->where;
        b.alts[nalts] = *r;             /* where its needs start */
        nalts++;
    }
    out->needs = b.needs;
    b.needs = NULL;
    for (size_t a = 0; a < nalts; a++)
        out->alts[a].needs = out->needs + b.alts[a].at;
    if (!(out->scope = jt_strbuf_take (&scope)))
        goto nomem_kept;
    out->req = (jt_activation_req_t){
        .scope = out->scope, .resv_id = resv_id, .time = time,
        .alts = out->alts, .nalts = nalts,
        .holders = out->holders, .nholders = nh,
    };
    ret = 0;
    goto done;
nomem_kept:
    out->req.nalts = nalts;             /* the kept ones are out's to free */
    b.nalts = 0;
nomem:
    for (size_t a = 0; a < b.nalts; a++) {
        free (b.alts[a].set.nodes);
        free (b.alts[a].where);
    }
    free (jt_strbuf_take (&scope));
    free (b.needs);
    jt_activation_slice_free (out);
    jt_errprintf (err, "activation: out of memory");
done:
    /* the scratch, on either path (out keeps what it took) */
    free (own);
    free (b.dom_pool);
    free (b.pool_cand);
    free (b.pool_dom);
    free (b.cnt);
    free (b.freeg);
    free (b.alts);
    free (in_scope);
    free (np);
    free (stamp);
    free (acc);
    free (have);
    free (touched);
    free (run_gpus);
    free (run_min);
    return ret;
}

/* What a candidate is short of: its own concurrency, lent to other owners
 * (a reclaim), or an aggregate cap's, in use (a cap wait). */
typedef enum { SHORT_LENT, SHORT_CAP } short_of_t;

/* The walk jt_reclaim_need and jt_cap_need share: Cover's candidates for r
 * in order (a reclaim: the owner's own envelopes; a cap wait: all but
 * sponsors'). 0 at the first whose headroom funds gpus (nothing need give
 * way), or when none qualifies; 1 at the first short of `of` whose
 * shortfall the GPUs held there (lent away, or active under the cap) would
 * make up: *out its envelope, deficit gpus - headroom, and the cap; -1
 * with err. */
static int first_short (const jt_budgets_t *b, const jt_usage_t *u,
                        const jt_run_t *r, int64_t gpus, int64_t now, short_of_t of,
                        jt_reclaim_t *out, jt_error_t *err)
{
    jt_coverer_t *c = jt_coverer_create (b, u, r, now, err);
    int rc = 0;

    memset (out, 0, sizeof (*out));
    if (!c)
        return -1;
    for (size_t i = 0; i < jt_coverer_count (c); i++) {
        const jt_cover_cand_t *cand = jt_coverer_cand (c, i);
        const jt_envelope_t *e = cand->env;
        const jt_aggcap_t *cap = NULL;
        int64_t h, held = 0;
        if (of == SHORT_LENT ? cand->source != JT_SRC_OWNER : cand->source == JT_SRC_SPONSOR)
            continue;
        h = jt_coverer_headroom (c, i, NULL);
        if (h >= gpus)
            break;                      /* a candidate funds it: none */
        if ((size_t) e->id >= u->nenv)
            continue;
        if (of == SHORT_LENT) {
            /* the owner's own concurrency binds, full or not: with 8 GPUs
             * free and 16 lent, a 16-GPU run reclaims 8 */
            if (jt_coverer_bound (c, i) != JT_INSUFFICIENT_CAPACITY)
                continue;
            held = u->lent_active[e->id];
        } else {
            if (!(cap = jt_coverer_cap_binding (c, i))
                || e->concurrency - u->active[e->id] < gpus)
                continue;
            for (size_t j = 0; j < cap->nenvelopes; j++)
                if (cap->env_ids && cap->env_ids[j] < u->nenv)
                    held += u->active[cap->env_ids[j]];
        }
        if (h + held < gpus)
            continue;
        *out = (jt_reclaim_t){ e->name, r->owner, gpus - h, cap };
        rc = 1;
        break;
    }
    jt_coverer_destroy (c);
    return rc;
}

int jt_reclaim_need (const jt_budgets_t *b, const jt_usage_t *u,
                     const jt_run_t *r, int64_t gpus, int64_t now,
                     jt_reclaim_t *out, jt_error_t *err)
{
    return first_short (b, u, r, gpus, now, SHORT_LENT, out, err);
}

int jt_cap_need (const jt_budgets_t *b, const jt_usage_t *u,
                 const jt_run_t *r, int64_t gpus, int64_t now,
                 jt_reclaim_t *out, jt_error_t *err)
{
    return first_short (b, u, r, gpus, now, SHORT_CAP, out, err);
}
