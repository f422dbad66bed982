/*
 * pack.c - Pack: where a run's groups go (jobtree/pack.h). Owns the pack
 * view (free whole nodes of one flavor per domain, in packing order), the
 * placement rules (pack-to-empty, best-fit, single domain, soft chunks,
 * partial prefixes, spares), undo, and the canonical placement dump.
 *
 * DESIGN: the view keeps all free nodes of the flavor in one array, domain
 * by domain, each domain's slice in packing order (GPUs desc, then name),
 * with a taken flag per entry and a head cursor per domain (first entry that
 * may still be free). Counters per domain (free nodes, free GPUs) make "does
 * domain d hold g GPUs + s spares" O(1) when the domain's free nodes all
 * have the same GPU count (the normal case), so a request costs
 * O(domains log domains + nodes taken), never a scan of all nodes.
 *
 * Selectors: a selector that only names region/cluster/fabric.domain is
 * decided per domain (O(domains)). Any other key needs per-node matching;
 * the view caches the match bits and per-domain counters for the last such
 * selector (Plan asks with the same envelope selector many times), so only
 * the first request with a new node-level selector scans the free nodes.
 *
 * A request is all-or-nothing: groups are taken one by one from the view
 * and, when one cannot be placed, everything taken so far is given back
 * (jt_pack_unplace), which restores counters, flags and heads exactly.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/pack.h"

#define NOPOS SIZE_MAX

struct jt_pack_view {
    const jt_snapshot_t *s;
    size_t ndom;
    size_t *ent;                /* snapshot node indexes, per domain slices */
    unsigned char *taken;       /* per entry */
    size_t *dstart;             /* ndom + 1 slice offsets into ent */
    size_t *head;               /* per domain: first entry possibly free */
    size_t *free_nodes;         /* per domain */
    int64_t *free_gpus;         /* per domain */
    int *ugpus;                 /* per domain: GPUs of every free node, or 0
                                   when they differ */
    size_t *pos;                /* per snapshot node: entry or NOPOS */
    size_t nlabelled;           /* flavor nodes with GPUs and a domain */
    char *flavor;

    /* cache for the last node-level selector */
    char *sel_key;
    unsigned char *sel_match;   /* per entry */
    size_t *sel_nodes;          /* per domain: free matching nodes */
    int64_t *sel_gpus;

    /* per-request scratch */
    unsigned char *dok;         /* per domain: usable by this request */
    struct dord *order;         /* usable domains in request order */
};

/* A domain and its sort key; keys travel with the index so qsort needs no
 * global context (the view may be used from several threads, one view
 * per thread). */
struct dord {
    int64_t key;
    size_t d;
};

const char *jt_pack_policy_str (jt_pack_policy_t p)
{
    switch (p) {
    case JT_PACK_TO_EMPTY:
        return "pack-to-empty";
    case JT_PACK_BEST_FIT:
        return "best-fit";
    }
    return "?";
}

int jt_pack_policy_parse (const char *s, jt_pack_policy_t *out)
{
    if (!s)
        return -1;
    if (strcmp (s, "pack-to-empty") == 0) {
        *out = JT_PACK_TO_EMPTY;
        return 0;
    }
    if (strcmp (s, "best-fit") == 0) {
        *out = JT_PACK_BEST_FIT;
        return 0;
    }
    return -1;
}

void jt_pack_view_destroy (jt_pack_view_t *v)
{
    if (!v)
        return;
    int saved = errno;
    free (v->ent);
    free (v->taken);
    free (v->dstart);
    free (v->head);
    free (v->free_nodes);
    free (v->free_gpus);
    free (v->ugpus);
    free (v->pos);
    free (v->flavor);
    free (v->sel_key);
    free (v->sel_match);
    free (v->sel_nodes);
    free (v->sel_gpus);
    free (v->dok);
    free (v->order);
    free (v);
    errno = saved;
}

/* Key desc, then index asc: packing order inside a domain slice (GPUs
 * desc, then name, node indexes being in name order) and domain order
 * (free GPUs desc, then name, domain indexes being in name order). */
static int dord_cmp (const void *a, const void *b)
{
    const struct dord *x = a, *y = b;

    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return x->d < y->d ? -1 : x->d > y->d;
}

static bool node_free (const jt_node_t *n, const char *flavor)
{
    return n->state == JT_NODE_UP && n->used_gpus == 0 && n->gpus > 0
           && n->domain >= 0 && n->flavor && strcmp (n->flavor, flavor) == 0;
}

/* Put a domain slice whose nodes differ in GPUs into packing order. */
static int sort_slice (jt_pack_view_t *v, size_t d)
{
    size_t n = v->free_nodes[d], *ent = v->ent + v->dstart[d];
    struct dord *tmp = malloc (n * sizeof (*tmp));

    if (!tmp)
        return -1;
    for (size_t i = 0; i < n; i++) {
        tmp[i].key = v->s->nodes[ent[i]].gpus;
        tmp[i].d = ent[i];
    }
    qsort (tmp, n, sizeof (*tmp), dord_cmp);
    for (size_t i = 0; i < n; i++)
        ent[i] = tmp[i].d;
    free (tmp);
    v->ugpus[d] = 0;
    return 0;
}

jt_pack_view_t *jt_pack_view_create (const jt_snapshot_t *s,
                                     const char *flavor, jt_error_t *err)
{
    jt_pack_view_t *v;
    size_t nd, nn, nent = 0;

    if (!s || !s->finalized || !flavor) {
        jt_errprintf (err, "pack view: needs a finalized snapshot and a flavor");
        errno = EINVAL;
        return NULL;
    }
    nd = s->ndomains;
    nn = s->nnodes;
    if (!(v = calloc (1, sizeof (*v))))
        goto nomem;
    v->s = s;
    v->ndom = nd;
    v->flavor = strdup (flavor);
    v->dstart = calloc (nd + 1, sizeof (size_t));
    v->head = calloc (nd + 1, sizeof (size_t));
    v->free_nodes = calloc (nd + 1, sizeof (size_t));
    v->free_gpus = calloc (nd + 1, sizeof (int64_t));
    v->ugpus = calloc (nd + 1, sizeof (int));
    v->pos = malloc ((nn + 1) * sizeof (size_t));
    v->dok = calloc (nd + 1, 1);
    v->order = calloc (nd + 1, sizeof (struct dord));
    if (!v->flavor || !v->dstart || !v->head || !v->free_nodes
        || !v->free_gpus || !v->ugpus || !v->pos || !v->dok || !v->order)
        goto nomem;
    for (size_t i = 0; i < nn; i++) {
        const jt_node_t *n = &s->nodes[i];
        v->pos[i] = NOPOS;
        if (n->gpus > 0 && n->domain >= 0 && n->flavor
            && strcmp (n->flavor, flavor) == 0) {
            v->nlabelled++;
            if (node_free (n, flavor))
                nent++;
        }
    }
    v->ent = malloc ((nent + 1) * sizeof (size_t));
    v->taken = calloc (nent + 1, 1);
    if (!v->ent || !v->taken)
        goto nomem;
    nent = 0;
    for (size_t d = 0; d < nd; d++) {
        const jt_domain_t *dom = &s->domains[d];
        bool uniform = true;
        v->dstart[d] = v->head[d] = nent;
        for (size_t k = 0; k < dom->nnodes; k++) {
            const jt_node_t *n = &s->nodes[dom->nodes[k]];
            if (!node_free (n, flavor))
                continue;
            if (v->free_nodes[d] > 0 && n->gpus != v->ugpus[d])
                uniform = false;
            v->ugpus[d] = n->gpus;
            v->ent[nent++] = dom->nodes[k];
            v->free_nodes[d]++;
            v->free_gpus[d] += n->gpus;
        }
        if (!uniform && sort_slice (v, d) < 0)
            goto nomem;
        for (size_t e = v->dstart[d]; e < nent; e++)
            v->pos[v->ent[e]] = e;
    }
    v->dstart[nd] = nent;
    return v;
nomem:
    jt_pack_view_destroy (v);
    jt_errprintf (err, "pack view: out of memory");
    errno = ENOMEM;
    return NULL;
}

int64_t jt_pack_view_free (const jt_pack_view_t *v, size_t domain)
{
    if (!v || domain >= v->ndom)
        return 0;
    return v->free_gpus[domain];
}

/* Which domain an entry belongs to: the node's snapshot domain. */
static size_t ent_dom (const jt_pack_view_t *v, size_t e)
{
    return (size_t) v->s->nodes[v->ent[e]].domain;
}

static void take (jt_pack_view_t *v, size_t e)
{
    size_t d = ent_dom (v, e);
    int g = v->s->nodes[v->ent[e]].gpus;

    v->taken[e] = 1;
    v->free_nodes[d]--;
    v->free_gpus[d] -= g;
    if (v->sel_key && v->sel_match[e]) {
        v->sel_nodes[d]--;
        v->sel_gpus[d] -= g;
    }
    while (v->head[d] < v->dstart[d + 1] && v->taken[v->head[d]])
        v->head[d]++;
}

static void untake (jt_pack_view_t *v, size_t e)
{
    size_t d = ent_dom (v, e);
    int g = v->s->nodes[v->ent[e]].gpus;

    if (!v->taken[e])
        return;
    v->taken[e] = 0;
    v->free_nodes[d]++;
    v->free_gpus[d] += g;
    if (v->sel_key && v->sel_match[e]) {
        v->sel_nodes[d]++;
        v->sel_gpus[d] += g;
    }
    if (e < v->head[d])
        v->head[d] = e;
}

int jt_pack_unplace (jt_pack_view_t *v, const jt_placement_t *p)
{
    if (!v || !p)
        return 0;
    for (size_t i = 0; i < p->ngroups; i++) {
        const jt_pack_group_t *g = &p->groups[i];
        for (size_t k = 0; k < g->nnodes; k++)
            if (g->nodes[k] < v->s->nnodes && v->pos[g->nodes[k]] != NOPOS)
                untake (v, v->pos[g->nodes[k]]);
        for (size_t k = 0; k < g->nspares; k++)
            if (g->spares[k] < v->s->nnodes && v->pos[g->spares[k]] != NOPOS)
                untake (v, v->pos[g->spares[k]]);
    }
    return 0;
}

void jt_placement_free (jt_placement_t *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->ngroups; i++) {
        free (p->groups[i].nodes);
        free (p->groups[i].node_gpus);
        free (p->groups[i].spares);
    }
    free (p->groups);
    p->groups = NULL;
    p->ngroups = 0;
    p->total_gpus = 0;
}

/* ---- one request ---- */

enum selmode { SEL_ANY, SEL_DOMAIN, SEL_NODE };

struct req {
    jt_pack_view_t *v;
    const jt_pack_request_t *r;
    enum selmode mode;
    jt_placement_t *out;
    size_t cap;                 /* allocated out->groups */
};

static bool sel_domain_level (const jt_labels_t *sel)
{
    for (size_t i = 0; i < sel->n; i++) {
        const char *k = sel->v[i].key;
        if (strcmp (k, JT_LABEL_REGION) != 0 && strcmp (k, JT_LABEL_CLUSTER) != 0
            && strcmp (k, JT_LABEL_FABRIC) != 0)
            return false;
    }
    return true;
}

static bool sel_match_domain (const jt_labels_t *sel, const jt_domain_t *d)
{
    for (size_t i = 0; i < sel->n; i++) {
        const char *k = sel->v[i].key, *have;
        if (strcmp (k, JT_LABEL_REGION) == 0)
            have = d->region;
        else if (strcmp (k, JT_LABEL_CLUSTER) == 0)
            have = d->cluster;
        else
            have = d->fabric;
        if (!have || strcmp (have, sel->v[i].value) != 0)
            return false;
    }
    return true;
}

/* Make the node-level selector cache hold sel. Returns 0 or -1 (ENOMEM). */
static int sel_cache (jt_pack_view_t *v, const jt_labels_t *sel)
{
    char small[256], *key = small;
    int len = jt_labels_format (sel, small, sizeof (small));
    size_t nent = v->dstart[v->ndom];

    if (len < 0)
        return -1;
    if ((size_t) len >= sizeof (small)) {
        if (!(key = malloc ((size_t) len + 1)))
            return -1;
        jt_labels_format (sel, key, (size_t) len + 1);
    }
    if (v->sel_key && strcmp (v->sel_key, key) == 0) {
        if (key != small)
            free (key);
        return 0;
    }
    free (v->sel_key);
    v->sel_key = NULL;
    if (!v->sel_match) {
        v->sel_match = calloc (nent + 1, 1);
        v->sel_nodes = calloc (v->ndom + 1, sizeof (size_t));
        v->sel_gpus = calloc (v->ndom + 1, sizeof (int64_t));
    }
    if (!v->sel_match || !v->sel_nodes || !v->sel_gpus) {
        if (key != small)
            free (key);
        return -1;
    }
    for (size_t d = 0; d < v->ndom; d++) {
        v->sel_nodes[d] = 0;
        v->sel_gpus[d] = 0;
        for (size_t e = v->dstart[d]; e < v->dstart[d + 1]; e++) {
            const jt_node_t *n = &v->s->nodes[v->ent[e]];
            v->sel_match[e] = jt_labels_match (sel, &n->labels);
            if (v->sel_match[e] && !v->taken[e]) {
                v->sel_nodes[d]++;
                v->sel_gpus[d] += n->gpus;
            }
        }
    }
    v->sel_key = key != small ? key : strdup (small);
    return v->sel_key ? 0 : -1;
}

static size_t avail_nodes (const struct req *q, size_t d)
{
    if (!q->v->dok[d])
        return 0;
    return q->mode == SEL_NODE ? q->v->sel_nodes[d] : q->v->free_nodes[d];
}

static int64_t avail_gpus (const struct req *q, size_t d)
{
    if (!q->v->dok[d])
        return 0;
    return q->mode == SEL_NODE ? q->v->sel_gpus[d] : q->v->free_gpus[d];
}

static bool eligible (const struct req *q, size_t e)
{
    return !q->v->taken[e] && (q->mode != SEL_NODE || q->v->sel_match[e]);
}

/* Next eligible entry of domain d at or after e, or the slice end. */
static size_t next_ent (const struct req *q, size_t d, size_t e)
{
    size_t end = q->v->dstart[d + 1];

    while (e < end && !eligible (q, e))
        e++;
    return e;
}

/* How many of groups[0..n) (each + spares) domain d holds one after the
 * other, as jt_pack would take them. O(n) for a uniform domain. */
static size_t dom_prefix (const struct req *q, size_t d, const int64_t *groups,
                          size_t n, int64_t spares)
{
    const jt_pack_view_t *v = q->v;
    size_t left = avail_nodes (q, d);
    int ug = v->ugpus[d];

    if (left == 0)
        return 0;
    if (ug > 0) {
        for (size_t i = 0; i < n; i++) {
            uint64_t need = (uint64_t) ((groups[i] + ug - 1) / ug)
                            + (uint64_t) spares;
            if (need > left)
                return i;
            left -= need;
        }
        return n;
    }
    size_t e = v->head[d], end = v->dstart[d + 1];
    for (size_t i = 0; i < n; i++) {
        int64_t rem = groups[i];
        while (rem > 0) {
            e = next_ent (q, d, e);
            if (e >= end)
                return i;
            rem -= v->s->nodes[v->ent[e++]].gpus;
        }
        for (int64_t k = 0; k < spares; k++) {
            e = next_ent (q, d, e);
            if (e >= end)
                return i;
            e++;
        }
    }
    return n;
}

static bool dom_fits (const struct req *q, size_t d, int64_t g, int64_t spares)
{
    return dom_prefix (q, d, &g, 1, spares) == 1;
}

static jt_pack_group_t *new_group (struct req *q)
{
    if (q->out->ngroups == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 8;
        jt_pack_group_t *ng = realloc (q->out->groups, cap * sizeof (*ng));
        if (!ng)
            return NULL;
        q->out->groups = ng;
        q->cap = cap;
    }
    jt_pack_group_t *g = &q->out->groups[q->out->ngroups];
    memset (g, 0, sizeof (*g));
    return g;
}

/* Take up to g GPUs (at most maxnodes nodes) and then `spares` spare nodes
 * from domain d into a new output group. The caller has checked that they
 * are there. Returns 0 or -1 (ENOMEM, nothing taken). */
static int place_in (struct req *q, size_t d, int64_t g, size_t maxnodes,
                     int64_t spares)
{
    jt_pack_view_t *v = q->v;
    jt_pack_group_t *grp = new_group (q);
    size_t k = 0, end = v->dstart[d + 1], e;
    int64_t rem = g;

    if (!grp)
        return -1;
    /* count the nodes first so the arrays are allocated exactly */
    if (v->ugpus[d] > 0) {
        k = (size_t) ((g + v->ugpus[d] - 1) / v->ugpus[d]);
        if (k > maxnodes)
            k = maxnodes;
    } else {
        for (e = next_ent (q, d, v->head[d]); rem > 0 && e < end && k < maxnodes;
             e = next_ent (q, d, e + 1)) {
            rem -= v->s->nodes[v->ent[e]].gpus;
            k++;
        }
        rem = g;
    }
    grp->nodes = malloc ((k + 1) * sizeof (size_t));
    grp->node_gpus = malloc ((k + 1) * sizeof (int));
    grp->spares = malloc (((size_t) spares + 1) * sizeof (size_t));
    if (!grp->nodes || !grp->node_gpus || !grp->spares) {
        free (grp->nodes);
        free (grp->node_gpus);
        free (grp->spares);
        return -1;
    }
    grp->domain = d;
    q->out->ngroups++;
    e = v->head[d];
    while (grp->nnodes < k && rem > 0) {
        e = next_ent (q, d, e);
        if (e >= end)
            break;
        int ng = v->s->nodes[v->ent[e]].gpus;
        if (ng > rem)
            ng = (int) rem;
        grp->nodes[grp->nnodes] = v->ent[e];
        grp->node_gpus[grp->nnodes++] = ng;
        grp->gpus += ng;
        rem -= ng;
        take (v, e++);
    }
    while ((int64_t) grp->nspares < spares) {
        e = next_ent (q, d, e);
        if (e >= end)
            break;
        grp->spares[grp->nspares++] = v->ent[e];
        take (v, e++);
    }
    q->out->total_gpus += grp->gpus;
    return 0;
}

/* Append to buf (which holds used bytes) the domain with the most GPUs
 * this request could use (ties by name). */
static void most_free (const struct req *q, char *buf, size_t len, int used)
{
    size_t best = NOPOS;

    if (used < 0 || (size_t) used >= len)
        return;
    buf += used;
    len -= (size_t) used;

    for (size_t d = 0; d < q->v->ndom; d++)
        if (avail_gpus (q, d) > 0
            && (best == NOPOS || avail_gpus (q, d) > avail_gpus (q, best)))
            best = d;
    if (best == NOPOS)
        snprintf (buf, len, "no domain has a free node");
    else
        snprintf (buf, len, "most free is %s with %" PRId64,
                  q->v->s->domains[best].name, avail_gpus (q, best));
}

static void spares_text (int64_t spares, char *buf, size_t len)
{
    if (spares > 0)
        snprintf (buf, len, " + %" PRId64 " spare node%s", spares,
                  spares == 1 ? "" : "s");
    else
        buf[0] = '\0';
}

/* Record why group i could not be placed (in out->detail). */
static void group_detail (struct req *q, size_t i, int64_t g)
{
    char sp[48];
    int n;

    spares_text (q->r->spares_per_group, sp, sizeof (sp));
    n = snprintf (q->out->detail, sizeof (q->out->detail),
                  "group %zu (%" PRId64 " GPUs%s) fits no domain: ", i, g, sp);
    most_free (q, q->out->detail, sizeof (q->out->detail), n);
}

/* Fill v->order with the usable domains by free GPUs desc, then name.
 * Returns how many. */
static size_t make_order (struct req *q)
{
    jt_pack_view_t *v = q->v;
    size_t n = 0;

    for (size_t d = 0; d < v->ndom; d++) {
        if (avail_nodes (q, d) == 0)
            continue;
        v->order[n].key = avail_gpus (q, d);
        v->order[n++].d = d;
    }
    qsort (v->order, n, sizeof (struct dord), dord_cmp);
    return n;
}

/* Best-fit choice for one group: the usable domain with the fewest free
 * GPUs that holds it, ties by name. NOPOS if none. */
static size_t best_fit (const struct req *q, size_t nord, int64_t g)
{
    size_t best = NOPOS;

    for (size_t j = 0; j < nord; j++) {
        size_t d = q->v->order[j].d;
        if (!dom_fits (q, d, g, q->r->spares_per_group))
            continue;
        if (best == NOPOS || avail_gpus (q, d) < avail_gpus (q, best)
            || (avail_gpus (q, d) == avail_gpus (q, best) && d < best))
            best = d;
    }
    return best;
}

/* Groups each in their own first-fitting (or best-fitting) domain.
 * Returns 0 placed, 1 None, -1 ENOMEM. */
static int pack_groups (struct req *q, size_t nord)
{
    const jt_pack_request_t *r = q->r;
    size_t cursor = 0;
    int64_t cur_g = -1;

    for (size_t i = 0; i < r->ngroups; i++) {
        int64_t g = r->groups[i];
        size_t d = NOPOS;
        if (r->policy == JT_PACK_BEST_FIT)
            d = best_fit (q, nord, g);
        else {
            /* Domains skipped for size cur_g cannot hold any g >= cur_g
             * either (free only shrinks within a request), so equal-size
             * groups resume where the last one was placed. */
            if (cur_g < 0 || g < cur_g)
                cursor = 0;
            cur_g = g;
            for (; cursor < nord; cursor++)
                if (dom_fits (q, q->v->order[cursor].d, g, r->spares_per_group)) {
                    d = q->v->order[cursor].d;
                    break;
                }
        }
        if (d == NOPOS) {
            group_detail (q, i, g);
            if (r->partial_ok && i > 0)
                return 0;
            q->out->reason = JT_NO_DOMAIN_FITS;
            return 1;
        }
        if (place_in (q, d, g, SIZE_MAX, r->spares_per_group) < 0)
            return -1;
    }
    return 0;
}

/* All groups (or, with partial_ok, the longest prefix) in one domain. */
static int pack_single (struct req *q, size_t nord, const int64_t *groups,
                        size_t n)
{
    const jt_pack_request_t *r = q->r;
    size_t best = NOPOS, bestn = 0;
    int64_t sum = 0;

    for (size_t j = 0; j < nord; j++) {
        size_t d = q->v->order[j].d;
        size_t k = dom_prefix (q, d, groups, n, r->spares_per_group);
        if (k == 0 || k < bestn)
            continue;
        if (r->policy == JT_PACK_BEST_FIT && k == bestn
            && avail_gpus (q, d) >= avail_gpus (q, best))
            continue;
        if (r->policy == JT_PACK_TO_EMPTY && k == bestn)
            continue;
        best = d;
        bestn = k;
        if (k == n && r->policy == JT_PACK_TO_EMPTY)
            break;
    }
    for (size_t i = 0; i < n; i++)
        sum += groups[i];
    if (best == NOPOS || (bestn < n && !r->partial_ok)) {
        char sp[48];
        spares_text (r->spares_per_group, sp, sizeof (sp));
        int len = snprintf (q->out->detail, sizeof (q->out->detail),
                            "no single domain holds all %zu group%s (%" PRId64
                            " GPUs%s%s): ", n, n == 1 ? "" : "s", sum, sp,
                            *sp ? " per group" : "");
        most_free (q, q->out->detail, sizeof (q->out->detail), len);
        q->out->reason = JT_SPREAD_NO_DOMAIN;
        return 1;
    }
    for (size_t i = 0; i < bestn; i++)
        if (place_in (q, best, groups[i], SIZE_MAX, r->spares_per_group) < 0)
            return -1;
    return 0;
}

/* Soft demand: whole nodes, domain by domain in order, each filled to empty
 * (keeping room for its chunk's spares); one output group per chunk. */
static int pack_soft (struct req *q, size_t nord, int64_t demand)
{
    const jt_pack_request_t *r = q->r;
    int64_t rem = demand, sp = r->spares_per_group;

    if (r->policy == JT_PACK_BEST_FIT) {
        size_t d = best_fit (q, nord, demand);
        if (d != NOPOS)
            return place_in (q, d, demand, SIZE_MAX, sp) < 0 ? -1 : 0;
    }
    for (size_t j = 0; j < nord && rem > 0; j++) {
        size_t d = q->v->order[j].d, n = avail_nodes (q, d);
        if (n <= (size_t) sp)
            continue;
        if (place_in (q, d, rem, n - (size_t) sp, sp) < 0)
            return -1;
        rem -= q->out->groups[q->out->ngroups - 1].gpus;
    }
    if (rem > 0) {
        char sps[48];
        spares_text (sp, sps, sizeof (sps));
        snprintf (q->out->detail, sizeof (q->out->detail),
                  "soft demand of %" PRId64 " GPUs%s%s: only %" PRId64
                  " placeable", demand, sps, *sps ? " per chunk" : "",
                  demand - rem);
        if (r->partial_ok && rem < demand)
            return 0;
        q->out->reason = JT_NO_DOMAIN_FITS;
        return 1;
    }
    return 0;
}

int jt_pack (jt_pack_view_t *v, const jt_pack_request_t *req,
             jt_placement_t *out, jt_error_t *err)
{
    struct req q = { .v = v, .r = req, .mode = SEL_ANY, .out = out };
    int64_t demand = 0;
    size_t nord;
    int rc;

    if (!out)
        return jt_errprintf (err, "pack: no output placement");
    memset (out, 0, sizeof (*out));
    if (!v || !req || !req->groups || req->ngroups == 0)
        return jt_errprintf (err, "pack: empty request");
    if (req->spares_per_group < 0)
        return jt_errprintf (err, "pack: negative spares_per_group");
    if (req->only_domain >= 0 && (size_t) req->only_domain >= v->ndom)
        return jt_errprintf (err, "pack: no domain %zd", req->only_domain);
    for (size_t i = 0; i < req->ngroups; i++) {
        if (req->groups[i] <= 0)
            return jt_errprintf (err, "pack: group %zu has %" PRId64 " GPUs",
                                 i, req->groups[i]);
        demand += req->groups[i];
    }
    if (v->nlabelled == 0) {
        out->reason = JT_NO_NODES;
        snprintf (out->detail, sizeof (out->detail),
                  "no node of flavor %s has GPUs and a %s label", v->flavor,
                  JT_LABEL_FABRIC);
        return 1;
    }
    if (req->selector && req->selector->n > 0) {
        if (sel_domain_level (req->selector))
            q.mode = SEL_DOMAIN;
        else if (sel_cache (v, req->selector) < 0)
            return jt_errprintf (err, "pack: out of memory");
        else
            q.mode = SEL_NODE;
    }
    for (size_t d = 0; d < v->ndom; d++)
        v->dok[d] = (req->only_domain < 0 || (size_t) req->only_domain == d)
                    && (q.mode != SEL_DOMAIN
                        || sel_match_domain (req->selector, &v->s->domains[d]));
    nord = make_order (&q);
    if (req->soft && req->single_domain)
        rc = pack_single (&q, nord, &demand, 1);
    else if (req->soft)
        rc = pack_soft (&q, nord, demand);
    else if (req->single_domain)
        rc = pack_single (&q, nord, req->groups, req->ngroups);
    else
        rc = pack_groups (&q, nord);
    if (rc != 0) {
        jt_reason_t why = out->reason;
        char detail[sizeof (out->detail)];
        memcpy (detail, out->detail, sizeof (detail));
        jt_pack_unplace (v, out);
        jt_placement_free (out);
        out->reason = why;
        memcpy (out->detail, detail, sizeof (detail));
        if (rc < 0)
            return jt_errprintf (err, "pack: out of memory");
        return 1;
    }
    out->reason = JT_OK;
    return 0;
}

/* ---- dump ---- */

struct sbuf {
    char *s;
    size_t len, cap;
    bool oom;
};

static void sb_add (struct sbuf *b, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void sb_add (struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->oom)
        return;
    va_start (ap, fmt);
    n = vsnprintf (b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0,
                   fmt, ap);
    va_end (ap);
    if (n < 0) {
        b->oom = true;
        return;
    }
    if (!b->s || b->len + (size_t) n >= b->cap) {
        size_t cap = b->cap ? b->cap : 128;
        while (cap <= b->len + (size_t) n)
            cap *= 2;
        char *ns = realloc (b->s, cap);
        if (!ns) {
            b->oom = true;
            return;
        }
        b->s = ns;
        b->cap = cap;
        va_start (ap, fmt);
        vsnprintf (b->s + b->len, b->cap - b->len, fmt, ap);
        va_end (ap);
    }
    b->len += (size_t) n;
}

char *jt_placement_dump (const jt_placement_t *p, const jt_snapshot_t *s)
{
    struct sbuf b = { NULL, 0, 0, false };

    if (!p || !s || p->ngroups == 0)
        return strdup ("-");
    for (size_t i = 0; i < p->ngroups; i++) {
        const jt_pack_group_t *g = &p->groups[i];
        sb_add (&b, "%sg%zu %s[", i ? " | " : "", i,
                g->domain < s->ndomains ? s->domains[g->domain].name : "?");
        for (size_t k = 0; k < g->nnodes; k++)
            sb_add (&b, "%s%s:%d", k ? " " : "",
                    g->nodes[k] < s->nnodes ? s->nodes[g->nodes[k]].name : "?",
                    g->node_gpus[k]);
        sb_add (&b, "]");
        if (g->nspares > 0) {
            sb_add (&b, " s[");
            for (size_t k = 0; k < g->nspares; k++)
                sb_add (&b, "%s%s", k ? " " : "",
                        g->spares[k] < s->nnodes ? s->nodes[g->spares[k]].name
                                                 : "?");
            sb_add (&b, "]");
        }
    }
    if (b.oom) {
        free (b.s);
        errno = ENOMEM;
        return NULL;
    }
    return b.s;
}
