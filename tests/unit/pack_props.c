/*
 * pack_props.c - property tests of Pack on seeded random clusters: no node
 * over-allocated or used twice, every group inside one domain, totals,
 * determinism (also under a shuffled node insertion order), and None iff a
 * naive re-implementation of the placement rule says the request cannot be
 * placed (and the same domains when it can).
 *
 * The PRNG is splitmix64 with fixed seeds, so every run checks the same
 * few hundred clusters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/pack.h"
#include "tap.h"

static uint64_t rng_state;

static uint64_t splitmix64 (void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static int rnd (int n)
{
    return (int) (splitmix64 () % (uint64_t) n);
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

/* ---- the naive model: per domain, the GPUs of its free matching nodes in
 * packing order, with a used flag; everything recomputed by plain scans ---- */

struct mdom {
    int gpus[2048];
    bool used[2048];
    int n;
};

static int64_t mfree (const struct mdom *m)
{
    int64_t f = 0;
    for (int i = 0; i < m->n; i++)
        if (!m->used[i])
            f += m->gpus[i];
    return f;
}

/* Take g GPUs + sp spares greedily; false (and nothing taken) if short. */
static bool mtake (struct mdom *m, int64_t g, int64_t sp, bool commit)
{
    bool save[2048];
    int64_t rem = g;
    int i = 0;

    memcpy (save, m->used, sizeof (save));
    for (; i < m->n && rem > 0; i++)
        if (!m->used[i]) {
            m->used[i] = true;
            rem -= m->gpus[i];
        }
    for (; i < m->n && sp > 0; i++)
        if (!m->used[i]) {
            m->used[i] = true;
            sp--;
        }
    bool ok = rem <= 0 && sp == 0;
    if (!ok || !commit)
        memcpy (m->used, save, sizeof (save));
    return ok;
}

static int ord_cmp (const void *a, const void *b)
{
    const int64_t *x = a, *y = b;   /* [free, index] */
    if (x[0] != y[0])
        return x[0] > y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The fixed-group rules (not soft, not single_domain) on the model. Writes
 * the chosen domain per placed group; returns how many were placed, or -1
 * for None. */
static int model_groups (struct mdom *m, size_t nd, const jt_pack_request_t *r,
                         size_t *doms)
{
    int64_t (*ord)[2] = calloc (nd + 1, sizeof (*ord));
    size_t no = 0;
    int placed = 0;

    for (size_t d = 0; d < nd; d++)
        if (m[d].n > 0 && mfree (&m[d]) > 0) {
            ord[no][0] = mfree (&m[d]);
            ord[no++][1] = (int64_t) d;
        }
    qsort (ord, no, sizeof (*ord), ord_cmp);
    for (size_t i = 0; i < r->ngroups; i++) {
        size_t pick = SIZE_MAX;
        for (size_t j = 0; j < no; j++) {
            size_t d = (size_t) ord[j][1];
            if (!mtake (&m[d], r->groups[i], r->spares_per_group, false))
                continue;
            if (r->policy == JT_PACK_TO_EMPTY) {
                pick = d;
                break;
            }
            if (pick == SIZE_MAX || mfree (&m[d]) < mfree (&m[pick])
                || (mfree (&m[d]) == mfree (&m[pick]) && d < pick))
                pick = d;
        }
        if (pick == SIZE_MAX)
            break;
        mtake (&m[pick], r->groups[i], r->spares_per_group, true);
        doms[placed++] = pick;
    }
    free (ord);
    if ((size_t) placed < r->ngroups && !(r->partial_ok && placed > 0))
        return -1;
    return placed;
}

static void model_build (struct mdom *m, const jt_snapshot_t *s,
                         const jt_pack_view_t *v, const bool *taken,
                         const jt_pack_request_t *r)
{
    (void) v;
    for (size_t d = 0; d < s->ndomains; d++) {
        const jt_domain_t *dom = &s->domains[d];
        m[d].n = 0;
        if (r->only_domain >= 0 && (size_t) r->only_domain != d)
            continue;
        /* 8-GPU nodes first, then the rest: packing order by construction */
        for (int pass = 0; pass < 2; pass++)
            for (size_t k = 0; k < dom->nnodes; k++) {
                const jt_node_t *n = &s->nodes[dom->nodes[k]];
                if (n->state != JT_NODE_UP || n->used_gpus != 0 || n->gpus == 0
                    || !n->flavor || strcmp (n->flavor, "h100") != 0
                    || taken[dom->nodes[k]]
                    || !jt_labels_match (r->selector, &n->labels)
                    || (pass == 0) != (n->gpus == 8))
                    continue;
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
    size_t out_len = 0, out_cap = 4096;
    char *out = malloc (out_cap);

    out[0] = '\0';
    rng_state = seed * 7919 + 1;
    for (int step = 0; step < nreq; step++) {
        struct rq q;
        jt_placement_t p;
        jt_error_t err;
        size_t mdoms[8];
        int mres = 0;

        gen_request (&q, s);
        bool modelled = with_model && !q.r.soft && !q.r.single_domain;
        if (modelled) {
            model_build (m, s, v, taken, &q.r);
            mres = model_groups (m, s->ndomains, &q.r, mdoms);
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
        free (d);

        if (modelled) {
            check ((rc == 1) == (mres < 0), "None iff the model says None",
                   seed, step);
            if (rc == 0 && mres >= 0) {
                check (p.ngroups == (size_t) mres, "same number of groups",
                       seed, step);
                for (size_t i = 0; i < p.ngroups && i < (size_t) mres; i++)
                    check (p.groups[i].domain == mdoms[i],
                           "same domain per group as the model", seed, step);
            }
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
        jt_placement_free (&p);
        jt_labels_free (&q.sel);
        /* sometimes give a placement back to exercise unplace */
    }
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
