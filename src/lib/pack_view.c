/*
 * pack_view.c - the pack view (jobtree/pack.h, layout in pack_view.h):
 * built once per snapshot and flavor in O(nodes), consumed node by node by
 * jt_pack, given back by jt_pack_unplace, plus the cache of the last
 * node-level selector's matches.
 *
 * DESIGN: a domain's free GPUs never exceed what it had when the view was
 * built, so requests order domains with a counting sort over that bound
 * (O(domains + max free)) rather than a comparison sort; this keeps jt_pack
 * O(domains + nodes taken) on clusters of tens of thousands of nodes.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack_view.h"

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
    free (v->dsel_key);
    free (v->dsel_ok);
    free (v->held);
    free (v->order);
    free (v->order_tmp);
    free (v->bucket);
    free (v);
    errno = saved;
}

/* Key desc, then index asc: packing order inside a domain slice (GPUs
 * desc, then name, node indexes being in name order) and domain order
 * (free GPUs desc, then name, domain indexes being in name order). */
int jt_packv_dord_cmp (const void *a, const void *b)
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
    qsort (tmp, n, sizeof (*tmp), jt_packv_dord_cmp);
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
    v->order = calloc (nd + 1, sizeof (struct dord));
    if (!v->flavor || !v->dstart || !v->head || !v->free_nodes
        || !v->free_gpus || !v->ugpus || !v->pos || !v->order)
        goto nomem;
    for (size_t i = 0; i < nn; i++) {
        const jt_node_t *n = &s->nodes[i];
        v->pos[i] = NOPOS;
        if (n->gpus > 0 && n->domain >= 0 && n->flavor
            && strcmp (n->flavor, flavor) == 0) {
            v->nlabelled++;
            if (node_free (n, flavor)) {
                v->pos[i] = 0;  /* marks "free" for the pass below */
                nent++;
            }
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
            if (v->pos[dom->nodes[k]] == NOPOS)
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
    /* A domain's free GPUs never exceed what it had when the view was
     * built, so requests can order domains by a counting sort (O(domains +
     * max free)) instead of a comparison sort, unless one huge domain would
     * make the buckets outnumber the domains by far. */
    for (size_t d = 0; d < nd; d++)
        if (v->free_gpus[d] + 1 > v->nbucket)
            v->nbucket = v->free_gpus[d] + 1;
    if (v->nbucket <= (int64_t) (8 * nd + 4096)) {
        v->bucket = calloc ((size_t) v->nbucket + 1, sizeof (size_t));
        v->order_tmp = calloc (nd + 1, sizeof (struct dord));
        if (!v->bucket || !v->order_tmp)
            goto nomem;
    }
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

void jt_packv_take (jt_pack_view_t *v, size_t e)
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

void jt_packv_untake (jt_pack_view_t *v, size_t e)
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
    v->held_first = 0;          /* a held domain may have a free node again */
}

int jt_pack_unplace (jt_pack_view_t *v, const jt_placement_t *p)
{
    if (!v || !p)
        return 0;
    for (size_t i = 0; i < p->ngroups; i++) {
        const jt_pack_group_t *g = &p->groups[i];
        for (size_t k = 0; k < g->nnodes; k++)
            if (g->nodes[k] < v->s->nnodes && v->pos[g->nodes[k]] != NOPOS)
                jt_packv_untake (v, v->pos[g->nodes[k]]);
        for (size_t k = 0; k < g->nspares; k++)
            if (g->spares[k] < v->s->nnodes && v->pos[g->spares[k]] != NOPOS)
                jt_packv_untake (v, v->pos[g->spares[k]]);
    }
    return 0;
}

/* Is *cached the canonical text of sel? 1: yes, the cache is current;
 * 0: no, *cached now holds sel's text and the caller recomputes (and must
 * clear *cached if that fails); -1: ENOMEM, *cached cleared. */
static int sel_key_update (const jt_labels_t *sel, char **cached)
{
    char small[256], *key = small;
    int len = jt_labels_format (sel, small, sizeof (small));

    if (len < 0)
        return -1;
    if ((size_t) len >= sizeof (small)) {
        if (!(key = malloc ((size_t) len + 1)))
            return -1;
        jt_labels_format (sel, key, (size_t) len + 1);
    }
    if (*cached && strcmp (*cached, key) == 0) {
        if (key != small)
            free (key);
        return 1;
    }
    free (*cached);
    *cached = key != small ? key : strdup (small);
    return *cached ? 0 : -1;
}

/* The match bits of the free nodes are computed once per distinct
 * selector (Plan asks with the same envelope selector many times); the
 * per-domain counters then follow every take and untake. */
int jt_packv_sel_cache (jt_pack_view_t *v, const jt_labels_t *sel)
{
    size_t nent = v->dstart[v->ndom];
    int fresh = sel_key_update (sel, &v->sel_key);

    if (fresh != 0)
        return fresh > 0 ? 0 : -1;
    if (!v->sel_match) {
        v->sel_match = calloc (nent + 1, 1);
        v->sel_nodes = calloc (v->ndom + 1, sizeof (size_t));
        v->sel_gpus = calloc (v->ndom + 1, sizeof (int64_t));
    }
    if (!v->sel_match || !v->sel_nodes || !v->sel_gpus) {
        free (v->sel_key);
        v->sel_key = NULL;
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
    return 0;
}

bool jt_packv_sel_domain_level (const jt_labels_t *sel)
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

int jt_packv_dsel_cache (jt_pack_view_t *v, const jt_labels_t *sel)
{
    int fresh = sel_key_update (sel, &v->dsel_key);

    if (fresh != 0)
        return fresh > 0 ? 0 : -1;
    if (!v->dsel_ok && !(v->dsel_ok = calloc (v->ndom + 1, 1))) {
        free (v->dsel_key);
        v->dsel_key = NULL;
        return -1;
    }
    for (size_t d = 0; d < v->ndom; d++)
        v->dsel_ok[d] = sel_match_domain (sel, &v->s->domains[d]);
    return 0;
}

void jt_packv_sort_domains (jt_pack_view_t *v, struct dord *a, size_t n)
{
    if (!v->bucket) {
        qsort (a, n, sizeof (struct dord), jt_packv_dord_cmp);
        return;
    }
    /* stable counting sort, keys descending; ties keep index order */
    int64_t nb = v->nbucket;
    memset (v->bucket, 0, ((size_t) nb + 1) * sizeof (size_t));
    for (size_t j = 0; j < n; j++)
        v->bucket[nb - 1 - a[j].key]++;
    size_t at = 0;
    for (int64_t b = 0; b < nb; b++) {
        size_t c = v->bucket[b];
        v->bucket[b] = at;
        at += c;
    }
    for (size_t j = 0; j < n; j++)
        v->order_tmp[v->bucket[nb - 1 - a[j].key]++] = a[j];
    memcpy (a, v->order_tmp, n * sizeof (struct dord));
}

int jt_pack_view_hold_order (jt_pack_view_t *v, bool hold)
{
    if (!v)
        return 0;
    v->hold = false;
    if (!hold)
        return 0;
    if (!v->held && !(v->held = calloc (v->ndom + 1, sizeof (struct dord))))
        return -1;
    v->nheld = 0;
    v->held_first = 0;
    for (size_t d = 0; d < v->ndom; d++)
        if (v->free_nodes[d] > 0) {
            v->held[v->nheld].key = v->free_gpus[d];
            v->held[v->nheld++].d = d;
        }
    jt_packv_sort_domains (v, v->held, v->nheld);
    v->hold = true;
    return 0;
}
