/*
 * pack_props.c - property tests of Pack on seeded random clusters: no node
 * over-allocated or used twice, every group inside one domain, totals,
 * determinism (also under a shuffled node insertion order), and None iff a
 * naive re-implementation of the placement rule says the request cannot be
 * placed (and the same domains when it can).
 *
 * The PRNG is splitmix64 (tests/tap/prng.h) with fixed seeds, so every run checks the same
 * few hundred clusters.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/pack.h"
#include "prng.h"
#include "tap.h"

static uint64_t rng_state;

/* Uniform in [0, n). */
static int rnd (int n)
{
    return prng_below (&rng_state, n);
}

struct nspec {
    char name[32];
    char fabric[16];            /* "" = no label */
    char region[16];            /* "" = none */
    char rack[16];
    const char *flavor;
    int gpus, used;
    jt_node_state_t st;
};

struct cluster {
    struct nspec *n;
    size_t nn;
};

static void gen_cluster (struct cluster *c, int max_domains, int max_per)
{
    int nd = 1 + rnd (max_domains);
    bool hetero = rnd (4) == 0;
    bool regions = rnd (2) == 0;

    c->nn = 0;
    c->n = calloc ((size_t) nd * (size_t) max_per + 8, sizeof (*c->n));
    for (int d = 0; d < nd; d++) {
        int per = 1 + rnd (max_per);
        for (int k = 0; k < per; k++) {
            struct nspec *s = &c->n[c->nn++];
            snprintf (s->name, sizeof (s->name), "n%03d-%02d", d, k);
            if (rnd (20) != 0)
                snprintf (s->fabric, sizeof (s->fabric), "F%02d", d);
            if (regions)
                snprintf (s->region, sizeof (s->region), "r%d", d % 3);
            snprintf (s->rack, sizeof (s->rack), "k%d", rnd (3));
            s->flavor = rnd (10) == 0 ? "a100" : "h100";
            s->gpus = hetero && rnd (3) == 0 ? 4 : 8;
            int u = rnd (10);
            s->used = u < 6 ? 0 : u < 8 ? s->gpus : rnd (s->gpus + 1);
            int st = rnd (12);
            s->st = st == 0 ? JT_NODE_DOWN : st == 1 ? JT_NODE_DRAIN : JT_NODE_UP;
        }
    }
}

/* Build the snapshot adding nodes in the order perm (NULL = as generated). */
static jt_snapshot_t *build (const struct cluster *c, const size_t *perm)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err;

    for (size_t i = 0; i < c->nn; i++) {
        const struct nspec *n = &c->n[perm ? perm[i] : i];
        jt_labels_t l = JT_LABELS_INIT;
        if (*n->fabric)
            jt_labels_set (&l, JT_LABEL_FABRIC, n->fabric);
        if (*n->region)
            jt_labels_set (&l, JT_LABEL_REGION, n->region);
        jt_labels_set (&l, JT_LABEL_RACK, n->rack);
        if (jt_snapshot_add_node (s, n->name, &l, n->flavor, n->gpus, n->used,
                                  n->st, &err) < 0)
            bail_out ("add: %s", err.text);
        jt_labels_free (&l);
    }
    if (jt_snapshot_finalize (s, &err) < 0)
        bail_out ("finalize: %s", err.text);
    return s;
}

struct rq {
    int64_t groups[8];
    jt_pack_request_t r;
    jt_labels_t sel;
};

static void gen_request (struct rq *q, const jt_snapshot_t *s)
{
    size_t n = 1 + (size_t) rnd (6);
    int64_t gsize = 8 * (1 + rnd (8));

    memset (q, 0, sizeof (*q));
    for (size_t i = 0; i < n; i++)
        q->groups[i] = gsize;
    if (rnd (3) == 0)
        q->groups[n - 1] = 1 + rnd ((int) gsize);     /* short last group */
    q->r.groups = q->groups;
    q->r.ngroups = n;
    q->r.only_domain = -1;
    q->r.spares_per_group = rnd (4) == 0 ? 1 + rnd (2) : 0;
    q->r.policy = rnd (4) == 0 ? JT_PACK_BEST_FIT : JT_PACK_TO_EMPTY;
    q->r.single_domain = rnd (5) == 0;
    q->r.partial_ok = rnd (5) == 0;
    q->r.soft = rnd (6) == 0;
    if (rnd (6) == 0 && s->ndomains > 0)
        q->r.only_domain = rnd ((int) s->ndomains);
    int sk = rnd (8);
    if (sk == 0) {
        char rack[16];
        snprintf (rack, sizeof (rack), "k%d", rnd (3));
        jt_labels_set (&q->sel, JT_LABEL_RACK, rack);
        q->r.selector = &q->sel;
    } else if (sk == 1) {
        char reg[16];
        snprintf (reg, sizeof (reg), "r%d", rnd (3));
        jt_labels_set (&q->sel, JT_LABEL_REGION, reg);
        q->r.selector = &q->sel;
    }
}

/* ---- the naive model: per domain, the free matching nodes in packing
 * order with a used flag; every rule re-implemented by plain scans and
 * copies, producing a dump in jt_placement_dump's format ---- */

#define MNODES 2048

struct mdom {
    size_t idx[MNODES];         /* snapshot node index */
    int gpus[MNODES];
    bool used[MNODES];
    int n;
};

struct mplace {
    char dump[8192];
    size_t len;
    int ngroups;
};

static int64_t mfree (const struct mdom *m)
{
    int64_t f = 0;
    for (int i = 0; i < m->n; i++)
        if (!m->used[i])
            f += m->gpus[i];
    return f;
}

static int mnodes (const struct mdom *m)
{
    int f = 0;
    for (int i = 0; i < m->n; i++)
        f += !m->used[i];
    return f;
}

/* Take g GPUs on at most maxn nodes, then sp spares, greedily in order.
 * Returns the GPUs taken, or -1 (nothing taken) when g (or, with maxn
 * limited, at least one node) and the spares are not there. With out, the
 * group is appended to the dump. */
static int64_t mtake (struct mdom *m, const jt_snapshot_t *s, size_t dom,
                      int64_t g, int64_t sp, int maxn, struct mplace *out)
{
    bool save[MNODES];
    int64_t rem = g, got = 0;
    int i = 0, taken = 0;
    int tk[MNODES], tg[MNODES], nt = 0, spn[8], nsp = 0;

    memcpy (save, m->used, sizeof (save));
    for (; i < m->n && rem > 0 && taken < maxn; i++)
        if (!m->used[i]) {
            int t = m->gpus[i] < rem ? m->gpus[i] : (int) rem;
            m->used[i] = true;
            tk[nt] = i;
            tg[nt++] = t;
            rem -= t;
            got += t;
            taken++;
        }
    for (int64_t k = sp; i < m->n && k > 0; i++)
        if (!m->used[i]) {
            m->used[i] = true;
            spn[nsp++] = i;
            k--;
        }
    bool ok = (maxn == INT32_MAX ? rem <= 0 : got > 0) && nsp == sp;
    if (!ok || !out) {
        memcpy (m->used, save, sizeof (save));
        return ok ? got : -1;
    }
    size_t u = out->len, cap = sizeof (out->dump);
    u += (size_t) snprintf (out->dump + u, cap - u, "%sg%d %s[",
                            out->ngroups ? " | " : "", out->ngroups,
                            s->domains[dom].name);
    for (int k = 0; k < nt && u < cap; k++)
        u += (size_t) snprintf (out->dump + u, cap - u, "%s%s:%d", k ? " " : "",
                                s->nodes[m->idx[tk[k]]].name, tg[k]);
    if (u < cap)
        u += (size_t) snprintf (out->dump + u, cap - u, "]");
    if (nsp > 0 && u < cap) {
        u += (size_t) snprintf (out->dump + u, cap - u, " s[");
        for (int k = 0; k < nsp && u < cap; k++)
            u += (size_t) snprintf (out->dump + u, cap - u, "%s%s", k ? " " : "",
                                    s->nodes[m->idx[spn[k]]].name);
        if (u < cap)
            u += (size_t) snprintf (out->dump + u, cap - u, "]");
    }
    out->len = u < cap ? u : cap - 1;
    out->ngroups++;
    return got;
}

static int ord_cmp (const void *a, const void *b)
{
    const int64_t *x = a, *y = b;   /* [free, index] */
    if (x[0] != y[0])
        return x[0] > y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* How many of groups (+ spares each) domain d holds one after the other. */
static size_t mprefix (struct mdom *md, const jt_snapshot_t *s, const int64_t *g,
                       size_t n, int64_t sp)
{
    struct mdom *copy = malloc (sizeof (*copy));
    size_t k = 0;

    memcpy (copy, md, sizeof (*copy));
    while (k < n && mtake (copy, s, 0, g[k], sp, INT32_MAX, NULL) >= 0) {
        /* commit on the copy: take again with a throwaway dump */
        struct mplace junk = { .len = 0 };
        mtake (copy, s, 0, g[k], sp, INT32_MAX, &junk);
        k++;
    }
    free (copy);
    return k;
}

/* Better best-fit candidate: less free, then lower index. */
static bool bf_better (struct mdom *m, size_t d, size_t best)
{
    return best == SIZE_MAX || mfree (&m[d]) < mfree (&m[best])
           || (mfree (&m[d]) == mfree (&m[best]) && d < best);
}

/* Every rule on the model. Returns 1 for None, 0 placed (dump in out). */
static int model (struct mdom *m, const jt_snapshot_t *s,
                  const jt_pack_request_t *r, struct mplace *out)
{
    size_t nd = s->ndomains, no = 0;
    int64_t (*ord)[2] = calloc (nd + 1, sizeof (*ord));
    int64_t demand = 0, sp = r->spares_per_group;
    int rc = 0;

    out->len = 0;
    out->ngroups = 0;
    out->dump[0] = '\0';
    for (size_t i = 0; i < r->ngroups; i++)
        demand += r->groups[i];
    for (size_t d = 0; d < nd; d++)
        if (mnodes (&m[d]) > 0) {
            ord[no][0] = mfree (&m[d]);
            ord[no++][1] = (int64_t) d;
        }
    qsort (ord, no, sizeof (*ord), ord_cmp);

    /* a soft demand confined to one domain with partial_ok: chunked there */
    if (r->single_domain && !(r->soft && r->partial_ok && r->only_domain >= 0)) {
        const int64_t *g = r->soft ? &demand : r->groups;
        size_t n = r->soft ? 1 : r->ngroups, best = SIZE_MAX, bestn = 0;
        for (size_t j = 0; j < no; j++) {
            size_t d = (size_t) ord[j][1];
            size_t k = mprefix (&m[d], s, g, n, sp);
            if (k == 0 || k < bestn)
                continue;
            if (k == bestn && (r->policy == JT_PACK_TO_EMPTY
                               || !bf_better (m, d, best)))
                continue;
            best = d;
            bestn = k;
        }
        if (best == SIZE_MAX || (bestn < n && !r->partial_ok))
            rc = 1;
        else
            for (size_t i = 0; i < bestn; i++)
                mtake (&m[best], s, best, g[i], sp, INT32_MAX, out);
    } else if (r->soft) {
        int64_t rem = demand;
        size_t pick = SIZE_MAX;
        if (r->policy == JT_PACK_BEST_FIT)
            for (size_t j = 0; j < no; j++) {
                size_t d = (size_t) ord[j][1];
                if (mprefix (&m[d], s, &demand, 1, sp) == 1 && bf_better (m, d, pick))
                    pick = d;
            }
        if (pick != SIZE_MAX)
            mtake (&m[pick], s, pick, demand, sp, INT32_MAX, out);
        else {
            for (size_t j = 0; j < no && rem > 0; j++) {
                size_t d = (size_t) ord[j][1];
                int n = mnodes (&m[d]);
                if (n <= sp)
                    continue;
                rem -= mtake (&m[d], s, d, rem, sp, n - (int) sp, out);
            }
            if (rem > 0 && !(r->partial_ok && rem < demand))
                rc = 1;
        }
    } else {
        for (size_t i = 0; i < r->ngroups; i++) {
            size_t pick = SIZE_MAX;
            for (size_t j = 0; j < no; j++) {
                size_t d = (size_t) ord[j][1];
                if (mprefix (&m[d], s, &r->groups[i], 1, sp) != 1)
                    continue;
                if (r->policy == JT_PACK_TO_EMPTY) {
                    pick = d;
                    break;
                }
                if (bf_better (m, d, pick))
                    pick = d;
            }
            if (pick == SIZE_MAX) {
                if (!(r->partial_ok && i > 0))
                    rc = 1;
                break;
            }
            mtake (&m[pick], s, pick, r->groups[i], sp, INT32_MAX, out);
        }
    }
    free (ord);
    return rc;
}

/* The model's domains: free up h100 nodes matching the request, packing
 * order (more GPUs first, then name), minus what earlier requests took. */
static void model_build (struct mdom *m, const jt_snapshot_t *s,
                         const bool *taken, const jt_pack_request_t *r)
{
    for (size_t d = 0; d < s->ndomains; d++) {
        const jt_domain_t *dom = &s->domains[d];
        m[d].n = 0;
        if (r->only_domain >= 0 && (size_t) r->only_domain != d)
            continue;
        for (int want = 8; want >= 1; want--)
            for (size_t k = 0; k < dom->nnodes; k++) {
                const jt_node_t *n = &s->nodes[dom->nodes[k]];
                if (n->state != JT_NODE_UP || n->used_gpus != 0 || n->gpus != want
                    || !n->flavor || strcmp (n->flavor, "h100") != 0
                    || taken[dom->nodes[k]]
                    || !jt_labels_match (r->selector, &n->labels))
                    continue;
                m[d].idx[m[d].n] = dom->nodes[k];
                m[d].gpus[m[d].n] = n->gpus;
                m[d].used[m[d].n++] = false;
            }
    }
}

/* ---- checks ---- */

/* One counter per property, so each is reported as its own TAP test. */
static struct prop {
    const char *what;
    int checked, failed;
} props[32];
static size_t nprops;

static void check (bool cond, const char *what, uint64_t seed, int step)
{
    size_t i;

    for (i = 0; i < nprops && strcmp (props[i].what, what) != 0; i++)
        ;
    if (i == nprops) {
        if (nprops == sizeof (props) / sizeof (props[0]))
            bail_out ("too many properties");
        props[nprops++].what = what;
    }
    props[i].checked++;
    if (!cond && props[i].failed++ < 3)
        diag ("seed %llu step %d: %s", (unsigned long long) seed, step, what);
}

/* Run a sequence of random requests on one cluster; return the joined
 * dumps. Checks the invariants along the way. */
static char *run_case (const struct cluster *c, const size_t *perm,
                       uint64_t seed, int nreq, bool with_model)
{
    jt_snapshot_t *s = build (c, perm);
    jt_pack_view_t *v = jt_pack_view_create (s, "h100", NULL);
    bool *taken = calloc (s->nnodes + 1, sizeof (bool));
    struct mdom *m = calloc (s->ndomains + 1, sizeof (*m));
    struct mplace *mp = malloc (sizeof (*mp));
    size_t out_len = 0, out_cap = 4096;
    char *out = malloc (out_cap);

    out[0] = '\0';
    rng_state = seed * 7919 + 1;
    for (int step = 0; step < nreq; step++) {
        struct rq q;
        jt_placement_t p;
        jt_error_t err;
        int mres = 0;

        gen_request (&q, s);
        if (with_model) {
            model_build (m, s, taken, &q.r);
            mres = model (m, s, &q.r, mp);
        }
        int rc = jt_pack (v, &q.r, &p, &err);
        check (rc == 0 || rc == 1, "jt_pack returns 0 or 1", seed, step);
        char *d = jt_placement_dump (&p, s);
        size_t dl = strlen (d);
        if (out_len + dl + 2 >= out_cap) {
            out_cap = 2 * (out_len + dl + 2);
            out = realloc (out, out_cap);
        }
        memcpy (out + out_len, d, dl);
        out_len += dl;
        out[out_len++] = '\n';
        out[out_len] = '\0';

        if (with_model) {
            check ((rc == 1) == (mres == 1), "None iff the naive model says None",
                   seed, step);
            if (rc == 0 && mres == 0)
                check (strcmp (d, mp->dump) == 0,
                       "placement equals the naive model's, node for node",
                       seed, step);
        }
        int64_t total = 0;
        for (size_t i = 0; rc == 0 && i < p.ngroups; i++) {
            const jt_pack_group_t *g = &p.groups[i];
            int64_t gs = 0;
            for (size_t k = 0; k < g->nnodes + g->nspares; k++) {
                size_t ni = k < g->nnodes ? g->nodes[k] : g->spares[k - g->nnodes];
                const jt_node_t *n = &s->nodes[ni];
                check (!taken[ni], "no node used twice", seed, step);
                taken[ni] = true;
                check (n->domain == (int) g->domain, "group within one domain",
                       seed, step);
                check (n->state == JT_NODE_UP && n->used_gpus == 0
                       && strcmp (n->flavor, "h100") == 0,
                       "only free up h100 nodes", seed, step);
                check (jt_labels_match (q.r.selector, &n->labels),
                       "selector respected", seed, step);
                check (q.r.only_domain < 0
                       || (size_t) q.r.only_domain == g->domain,
                       "only_domain respected", seed, step);
                if (k < g->nnodes) {
                    check (g->node_gpus[k] > 0 && g->node_gpus[k] <= n->gpus,
                           "node not over-allocated", seed, step);
                    gs += g->node_gpus[k];
                }
            }
            check (g->nspares == (size_t) q.r.spares_per_group,
                   "spares per group", seed, step);
            check (gs == g->gpus, "group gpus = sum of node gpus", seed, step);
            if (!q.r.soft)
                check (g->gpus == q.groups[i], "group size as requested", seed,
                       step);
            total += gs;
        }
        if (rc == 0) {
            int64_t want = 0;
            for (size_t i = 0; i < q.r.ngroups; i++)
                want += q.groups[i];
            check (total == p.total_gpus, "total_gpus is the sum", seed, step);
            if (!q.r.partial_ok)
                check (total == want, "total == requested", seed, step);
            else
                check (total > 0 && total <= want, "partial total", seed, step);
        }
        free (d);
        jt_placement_free (&p);
        jt_labels_free (&q.sel);
    }
    free (mp);
    free (m);
    free (taken);
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
    return out;
}

/* Place, unplace, place again: identical dumps and free counts. */
static void unplace_case (const struct cluster *c, uint64_t seed)
{
    jt_snapshot_t *s = build (c, NULL);
    jt_pack_view_t *v = jt_pack_view_create (s, "h100", NULL);

    rng_state = seed * 31 + 7;
    for (int step = 0; step < 6; step++) {
        struct rq q;
        jt_placement_t p1, p2;
        int64_t before = 0, after = 0;

        gen_request (&q, s);
        for (size_t d = 0; d < s->ndomains; d++)
            before += jt_pack_view_free (v, d) * (int64_t) (d + 1);
        int rc1 = jt_pack (v, &q.r, &p1, NULL);
        char *d1 = jt_placement_dump (&p1, s);
        jt_pack_unplace (v, &p1);
        for (size_t d = 0; d < s->ndomains; d++)
            after += jt_pack_view_free (v, d) * (int64_t) (d + 1);
        check (before == after, "unplace restores free", seed, step);
        int rc2 = jt_pack (v, &q.r, &p2, NULL);
        char *d2 = jt_placement_dump (&p2, s);
        check (rc1 == rc2 && strcmp (d1, d2) == 0, "replace after unplace is identical",
               seed, step);
        free (d1);
        free (d2);
        jt_placement_free (&p1);
        jt_placement_free (&p2);
        jt_labels_free (&q.sel);
    }
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

/* One group per request under jt_pack_view_hold_order gives what one
 * request of all the groups gives (pack-to-empty, the way Plan calls). */
static void hold_case (const struct cluster *c, uint64_t seed)
{
    jt_snapshot_t *s = build (c, NULL);
    jt_pack_view_t *v1 = jt_pack_view_create (s, "h100", NULL);
    jt_pack_view_t *v2 = jt_pack_view_create (s, "h100", NULL);

    rng_state = seed * 131 + 3;
    for (int step = 0; step < 10; step++) {
        struct rq q;
        jt_placement_t all, one[8];
        char joined[8192] = "";
        size_t n = 0;
        int rc2 = 0;

        gen_request (&q, s);
        q.r.policy = JT_PACK_TO_EMPTY;
        q.r.soft = q.r.single_domain = q.r.partial_ok = false;
        if (q.r.selector && !jt_labels_get (q.r.selector, JT_LABEL_REGION))
            q.r.selector = NULL;       /* node-level keys: order differs */
        int rc1 = jt_pack (v1, &q.r, &all, NULL);
        char *d1 = jt_placement_dump (&all, s);

        jt_pack_view_hold_order (v2, true);
        for (n = 0; n < q.r.ngroups; n++) {
            jt_pack_request_t r1 = q.r;
            r1.groups = &q.groups[n];
            r1.ngroups = 1;
            if ((rc2 = jt_pack (v2, &r1, &one[n], NULL)) != 0)
                break;
            char *d = jt_placement_dump (&one[n], s);
            size_t u = strlen (joined);
            snprintf (joined + u, sizeof (joined) - u, "%sg%zu%s",
                      n ? " | " : "", n, d + 2);
            free (d);
        }
        jt_pack_view_hold_order (v2, false);
        if (rc2 != 0) {
            for (size_t i = 0; i < n; i++) {
                jt_pack_unplace (v2, &one[i]);
                jt_placement_free (&one[i]);
            }
            n = 0;
            snprintf (joined, sizeof (joined), "-");
        }
        check (rc1 == rc2, "hold order: None iff one request is None", seed, step);
        check (strcmp (d1, joined) == 0,
               "hold order: group-by-group equals one request", seed, step);
        for (size_t i = 0; i < n; i++)
            jt_placement_free (&one[i]);
        free (d1);
        jt_placement_free (&all);
        jt_labels_free (&q.sel);
    }
    jt_pack_view_destroy (v1);
    jt_pack_view_destroy (v2);
    jt_snapshot_destroy (s);
}

int main (void)
{
    int ncases = 0, nbig = 0;

    for (uint64_t seed = 1; seed <= 300; seed++) {
        struct cluster c;
        bool big = seed % 25 == 0;      /* a few clusters up to ~2k nodes */

        rng_state = seed;
        gen_cluster (&c, big ? 64 : 12, big ? 32 : 16);
        nbig += big;
        size_t *perm = malloc ((c.nn + 1) * sizeof (size_t));
        for (size_t i = 0; i < c.nn; i++)
            perm[i] = i;
        for (size_t i = c.nn; i > 1; i--) {
            size_t j = (size_t) rnd ((int) i);
            size_t t = perm[i - 1];
            perm[i - 1] = perm[j];
            perm[j] = t;
        }
        char *a = run_case (&c, NULL, seed, 12, true);
        char *b = run_case (&c, NULL, seed, 12, false);
        char *sh = run_case (&c, perm, seed, 12, false);
        check (strcmp (a, b) == 0, "deterministic: two runs give equal dumps",
               seed, -1);
        check (strcmp (a, sh) == 0, "shuffled insertion order gives equal dumps",
               seed, -1);
        unplace_case (&c, seed);
        hold_case (&c, seed);
        free (a);
        free (b);
        free (sh);
        free (perm);
        free (c.n);
        ncases++;
    }
    diag ("%d random clusters (%d of up to ~2k nodes)", ncases, nbig);
    for (size_t i = 0; i < nprops; i++)
        ok (props[i].failed == 0, "%s (%d checks)", props[i].what,
            props[i].checked);
    return done_testing ();
}
