/*
 * score_inputs.c - what a run's score factors take from a snapshot and the
 * budgets (jobtree/score.h): fair share from live usage, the fewest
 * domains its groups need (topology), conformance, the cluster's
 * per-domain capacities kept across runs (jt_score_cluster_t), the
 * running and queued GPU-hours of the backlog factor. The factors and the
 * sum are score.c's.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobtree/pack.h"
#include "jobtree/score.h"
#include "jobtree/timeutil.h"
#include "util/strbuf.h"

static bool candidate (const jt_node_t *n, const jt_run_t *r)
{
    return n->flavor && r->flavor && !strcmp (n->flavor, r->flavor)
           && n->domain >= 0 && n->state != JT_NODE_DOWN
           && jt_constraints_match (&r->constraints, &n->labels);
}

static int cmp_desc_i64 (const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int cmp_str (const void *a, const void *b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Fewest domains (capacities cap[0..nd), largest first) holding nfull
 * groups of a nodes and one last group of b nodes (b == 0: none), each
 * whole in one domain; or soft (chunks by node): the fewest holding the
 * total. nd + 1 when they do not fit. cap is sorted here unless sorted. */
static int64_t fewest_domains (int64_t *cap, size_t nd, bool sorted, bool soft,
                               bool one, int64_t nfull, int64_t a, int64_t b)
{
    int64_t total = nfull * a + b, used = 0;

    if (!sorted)
        qsort (cap, nd, sizeof (*cap), cmp_desc_i64);
    if (one || soft) {
        for (size_t i = 0; i < nd; i++) {
            if (one)
                return cap[0] >= total ? 1 : (int64_t) nd + 1;
            used += cap[i];
            if (used >= total)
                return (int64_t) i + 1;
        }
        return (int64_t) nd + 1;
    }
    for (size_t i = 0; i < nd; i++) {
        int64_t room = cap[i], q = a > 0 ? room / a : 0;
        bool placed = false;

        if (q > nfull)
            q = nfull;
        nfull -= q;
        room -= q * a;
        placed = q > 0;
        if (nfull == 0 && b > 0 && room >= b) {
            b = 0;
            placed = true;
        }
        if (placed)
            used = (int64_t) i + 1;
        if (nfull == 0 && b == 0)
            return used;
    }
    return (int64_t) nd + 1;
}

/* f3: the owner's open envelopes of the run's flavor. */
static void share_inputs (const jt_budgets_t *b, const jt_usage_t *u,
                          const jt_run_t *r, int64_t now, jt_score_input_t *in)
{
    in->fs_target_gpus = in->fs_used_gpus = 0;
    for (size_t i = 0; b && r->owner && r->flavor && i < b->nenv; i++) {
        const jt_envelope_t *e = b->env[i];
        if (strcmp (e->owner, r->owner) || strcmp (e->flavor, r->flavor)
            || !jt_envelope_open_at (e, now))
            continue;
        in->fs_target_gpus += e->concurrency;
        if (u && e->id < u->nenv)
            in->fs_used_gpus += u->active[e->id];
    }
}

/* f4 over the levels above the domain: per level, a unit's room is its
 * domains' room for the run's groups (each counted as its largest group,
 * so never more than Pack could place), or its nodes for a soft run; the
 * fewest units whose room holds the run (Pack's own count,
 * jt_levels_fewest, on the whole cluster at that level), and the units
 * with candidate nodes. Spread off: one unit wherever one domain holds it;
 * no:LEVEL: one unit of that level (and so of every level above) when one
 * holds it. dcap: candidate nodes per snapshot domain; scratch: nunits +
 * ndomains per level. 0, or -1 on ENOMEM. O(levels^2 x (domains + units
 * log units)), levels at most JT_LEVELS_MAX. */
static int level_inputs (const jt_snapshot_t *s, const jt_run_t *r,
                         const int64_t *dcap, int64_t *scratch, bool soft,
                         int64_t ngroups, int64_t group_nodes, int64_t nodes,
                         jt_score_input_t *in)
{
    ssize_t lv = r->spread_level && !r->cross_group_spread
                 ? jt_level_index (s, r->spread_level) : -1;
    bool one_in = false;
    int64_t need = soft ? nodes : ngroups;
    uint64_t *room = calloc (s->ndomains + 1, sizeof (*room));
    unsigned char *scope = calloc (s->ndomains + 1, 1);
    size_t spans[JT_LEVELS_MAX];
    int rc = -1;

    if (!room || !scope)
        goto done;
    in->nlevels = s->nlevels;
    for (size_t l = 0; l < in->nlevels && l < JT_LEVELS_MAX; l++) {
        size_t nu = s->nunits[l] + s->ndomains, avail = 0;
        int64_t *cap = scratch;

        memset (scratch, 0, nu * sizeof (*scratch));
        for (size_t d = 0; d < s->ndomains; d++) {
            ssize_t u = s->domains[d].up[l];
            cap[u >= 0 ? (size_t) u : s->nunits[l] + d] += dcap[d];
        }
        for (size_t k = 0; k < nu; k++)
            avail += cap[k] > 0;
        in->units_available[l] = (int64_t) avail;
        if (!r->cross_group_spread && lv < 0)
            in->units_needed[l] = in->domains_needed == 1 ? 1 : (int64_t) avail + 1;
        else if (lv >= 0 && (ssize_t) l > lv)
            in->units_needed[l] = one_in ? 1 : (int64_t) avail + 1;
        else {
            int n = 0;
            for (size_t d = 0; d < s->ndomains; d++) {
                room[d] = (uint64_t) (soft ? dcap[d]
                                      : group_nodes > 0 ? dcap[d] / group_nodes : 0);
                scope[d] = 1;
            }
            /* from level l down; its first step, at l, sees every unit */
            if (need > 0
                && (n = jt_levels_fewest (s, room, (uint64_t) need, l + 1,
                                          JT_PACK_DEFAULT, scope, spans)) < 0)
                goto done;
            in->units_needed[l] = n > 0 ? (int64_t) spans[l] : (int64_t) avail + 1;
            if ((ssize_t) l == lv) {
                one_in = in->units_needed[l] == 1;
                if (!one_in)
                    in->units_needed[l] = (int64_t) avail + 1;
            }
        }
    }
    rc = 0;
done:
    free (room);
    free (scope);
    return rc;
}

/* f4 and the nodes requested, from the candidate domains' capacities cap
 * (nd of them, largest first: fewest_domains sorts them) and the GPUs per
 * node of the flavor; the levels' f4 from dcap (candidate nodes per
 * snapshot domain; NULL: no levels). 0, or -1 with err. */
static int domain_inputs (const jt_snapshot_t *s, const jt_run_t *r, int64_t gpn,
                          int64_t *cap, size_t nd, bool sorted, const int64_t *dcap,
                          int64_t *scratch, jt_score_input_t *in, jt_error_t *err)
{
    jt_groups_t g = { 0 };
    int64_t nfull = 0, a = 0, last = 0;

    in->domains_available = (int64_t) nd;
    in->nodes_requested = 0;
    in->domains_needed = (int64_t) nd + 1;
    in->nlevels = 0;
    if (gpn <= 0 || r->total_gpus <= 0)
        return 0;                       /* no node of the flavor: fits nowhere */
    if (jt_run_compile (r, r->total_gpus, &g, err) < 0)
        return -1;
    for (size_t i = 0; i < g.n; i++) {
        int64_t nodes = (g.gpus[i] + gpn - 1) / gpn + r->spares_per_group;
        in->nodes_requested += nodes;
        if (i == 0)
            a = nodes;
        if (nodes == a && last == 0)
            nfull++;
        else
            last = nodes;
    }
    /* spread off: one domain; no:LEVEL (a level s has): groups in domains
     * of one unit, counted over the domains as a spreading run's */
    bool one = !r->cross_group_spread
               && !(s && r->spread_level && jt_level_index (s, r->spread_level) >= 0);
    in->domains_needed = fewest_domains (cap, nd, sorted, g.soft, one, nfull, a, last);
    if (dcap && s && s->nlevels
        && level_inputs (s, r, dcap, scratch, g.soft, (int64_t) g.n,
                         a > last ? a : last, in->nodes_requested, in) < 0) {
        jt_groups_free (&g);
        return jt_errprintf (err, "out of memory");
    }
    jt_groups_free (&g);
    return 0;
}

/* Scratch for level_inputs: the most units of a level + domains. */
static size_t level_scratch (const jt_snapshot_t *s)
{
    size_t most = 0;

    for (size_t l = 0; l < s->nlevels && l < JT_LEVELS_MAX; l++)
        if (s->nunits[l] > most)
            most = s->nunits[l];
    return most + s->ndomains + 1;
}

int jt_score_inputs (const jt_snapshot_t *s, const jt_budgets_t *b,
                     const jt_usage_t *u, const jt_run_t *r, int64_t now,
                     jt_score_input_t *in, jt_error_t *err)
{
    int64_t *cap = NULL, *dcap = NULL, *scratch = NULL;
    const char **fp = NULL;
    size_t nfp = 0, nd = 0;
    int rc = -1;

    if (!s || !r || !in || !s->finalized)
        return jt_errprintf (err, "score inputs: no run or no finalized snapshot");
    in->checkpoint_s = r->checkpoint_s;
    share_inputs (b, u, r, now, in);

    /* f4, f9: the candidates per domain and per fingerprint */
    if (!(cap = calloc (s->ndomains ? s->ndomains : 1, sizeof (*cap)))
        || !(fp = calloc (s->nnodes ? s->nnodes : 1, sizeof (*fp)))
        || (s->nlevels && (!(dcap = calloc (s->ndomains + 1, sizeof (*dcap)))
                           || !(scratch = calloc (level_scratch (s),
                                                  sizeof (*scratch)))))) {
        jt_errprintf (err, "out of memory");
        goto done;
    }
    in->conformance_largest = 0;
    for (size_t i = 0; i < s->nnodes; i++) {
        const jt_node_t *n = &s->nodes[i];
        const char *v;
        if (!candidate (n, r))
            continue;
        cap[n->domain]++;
        if ((v = jt_labels_get (&n->labels, JT_CONFORMANCE_LABEL)))
            fp[nfp++] = v;
        else
            in->conformance_largest = 1;    /* a class of its own */
    }
    qsort (fp, nfp, sizeof (*fp), cmp_str);
    for (size_t i = 0, j; i < nfp; i = j) {
        for (j = i + 1; j < nfp && !strcmp (fp[i], fp[j]); j++)
            ;
        if ((int64_t) (j - i) > in->conformance_largest)
            in->conformance_largest = (int64_t) (j - i);
    }
    if (dcap)
        memcpy (dcap, cap, s->ndomains * sizeof (*cap));
    for (size_t d = 0; d < s->ndomains; d++)
        if (cap[d] > 0)
            cap[nd++] = cap[d];
    rc = domain_inputs (s, r, jt_snapshot_gpus_per_node (s, r->flavor), cap, nd, false,
                        dcap, scratch, in, err);
done:
    free (cap);
    free (dcap);
    free (scratch);
    free (fp);
    return rc;
}

/* Per flavor: the capacities of its domains (largest first) and its
 * largest fingerprint class, over nodes with a domain and not down. */
struct flavor_sum {
    const char *flavor;         /* into the snapshot */
    int64_t gpn;
    int64_t *cap;
    size_t nd;
    int64_t largest;
    int64_t *dcap;              /* per snapshot domain (levels only) */
};

struct jt_score_cluster {
    const jt_snapshot_t *s;
    struct flavor_sum *f;
    size_t nf;
    int64_t *scratch;           /* ndomains + 1 */
    int64_t *lscratch;          /* level_scratch (levels only) */
};

void jt_score_cluster_destroy (jt_score_cluster_t *c)
{
    if (!c)
        return;
    int saved = errno;
    for (size_t i = 0; i < c->nf; i++) {
        free (c->f[i].cap);
        free (c->f[i].dcap);
    }
    free (c->f);
    free (c->scratch);
    free (c->lscratch);
    free (c);
    errno = saved;
}

jt_score_cluster_t *jt_score_cluster_create (const jt_snapshot_t *s,
                                             jt_error_t *err)
{
    jt_score_cluster_t *c;
    const char **fp = NULL;

    if (!s || !s->finalized) {
        jt_errprintf (err, "score cluster: needs a finalized snapshot");
        return NULL;
    }
    if (!(c = calloc (1, sizeof (*c)))
        || !(c->scratch = calloc (s->ndomains + 1, sizeof (*c->scratch)))
        || !(fp = calloc (s->nnodes + 1, sizeof (*fp)))
        || (s->nlevels && !(c->lscratch = calloc (level_scratch (s),
                                                  sizeof (*c->lscratch)))))
        goto nomem;
    c->s = s;
    for (size_t i = 0; i < s->nnodes; i++) {
        const jt_node_t *n = &s->nodes[i];
        size_t k;
        if (!n->flavor)
            continue;
        for (k = 0; k < c->nf && strcmp (c->f[k].flavor, n->flavor); k++)
            ;
        if (k == c->nf) {
            struct flavor_sum *nf = realloc (c->f, (c->nf + 1) * sizeof (*nf));
            if (!nf)
                goto nomem;
            c->f = nf;
            memset (&c->f[k], 0, sizeof (c->f[k]));
            c->nf++;
            c->f[k].flavor = n->flavor;
            c->f[k].gpn = jt_snapshot_gpus_per_node (s, n->flavor);
            if (!(c->f[k].cap = calloc (s->ndomains + 1, sizeof (int64_t)))
                || (s->nlevels && !(c->f[k].dcap = calloc (s->ndomains + 1,
                                                           sizeof (int64_t)))))
                goto nomem;
        }
    }
    for (size_t k = 0; k < c->nf; k++) {
        struct flavor_sum *f = &c->f[k];
        size_t nfp = 0;
        for (size_t i = 0; i < s->nnodes; i++) {
            const jt_node_t *n = &s->nodes[i];
            const char *v;
            if (!n->flavor || strcmp (n->flavor, f->flavor) || n->domain < 0
                || n->state == JT_NODE_DOWN)
                continue;
            f->cap[n->domain]++;
            if ((v = jt_labels_get (&n->labels, JT_CONFORMANCE_LABEL)))
                fp[nfp++] = v;
            else
                f->largest = f->largest > 1 ? f->largest : 1;
        }
        qsort (fp, nfp, sizeof (*fp), cmp_str);
        for (size_t i = 0, j; i < nfp; i = j) {
            for (j = i + 1; j < nfp && !strcmp (fp[i], fp[j]); j++)
                ;
            if ((int64_t) (j - i) > f->largest)
                f->largest = (int64_t) (j - i);
        }
        if (f->dcap)
            memcpy (f->dcap, f->cap, s->ndomains * sizeof (*f->cap));
        for (size_t d = 0; d < s->ndomains; d++)
            if (f->cap[d] > 0)
                f->cap[f->nd++] = f->cap[d];
        qsort (f->cap, f->nd, sizeof (*f->cap), cmp_desc_i64);
    }
    free (fp);
    return c;
nomem:
    free (fp);
    jt_score_cluster_destroy (c);
    jt_errprintf (err, "out of memory");
    return NULL;
}

int jt_score_inputs_cached (const jt_score_cluster_t *c, const jt_budgets_t *b,
                            const jt_usage_t *u, const jt_run_t *r, int64_t now,
                            jt_score_input_t *in, jt_error_t *err)
{
    const struct flavor_sum *f = NULL;

    if (!c || !r || !in)
        return jt_errprintf (err, "score inputs: no run or no cluster summary");
    if (r->constraints.n > 0)
        return jt_score_inputs (c->s, b, u, r, now, in, err);
    in->checkpoint_s = r->checkpoint_s;
    share_inputs (b, u, r, now, in);
    for (size_t k = 0; r->flavor && k < c->nf && !f; k++)
        if (!strcmp (c->f[k].flavor, r->flavor))
            f = &c->f[k];
    in->conformance_largest = f ? f->largest : 0;
    if (f)      /* already largest first: no sort, O(domains) */
        memcpy (c->scratch, f->cap, f->nd * sizeof (*f->cap));
    return domain_inputs (c->s, r, f ? f->gpn : 0, c->scratch, f ? f->nd : 0, true,
                          f ? f->dcap : NULL, c->lscratch, in, err);
}

double jt_score_running_gpu_hours (const jt_snapshot_t *s)
{
    double h = 0;

    for (size_t i = 0; s && i < s->nleases; i++) {
        const jt_lease_t *l = &s->leases[i];
        int64_t d = l->end > l->start ? l->end - l->start
                                      : JT_RUN_DEFAULT_TIME_LIMIT_S;
        if (l->role == JT_ROLE_SPARE || l->gpus <= 0)
            continue;
        h += (double) l->gpus * (double) d / 3600.0;
    }
    return h;
}

double jt_score_queued_gpu_hours (const jt_run_t *r)
{
    return r && r->total_gpus > 0 ? jt_run_gpu_hours (r, r->total_gpus) : 0.0;
}
