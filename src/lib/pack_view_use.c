/*
 * pack_view_use.c - using a pack view (pack_view.h) once built by
 * pack_view.c: a node freed or taken (jt_packv_take, jt_packv_untake,
 * jt_pack_unplace), the view's classes and per-domain free GPUs, the
 * caches of the last node-level and domain-level selector's matches, and
 * the domains' order for a request (a counting sort over the free GPUs a
 * domain had when the view was built).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/conformance.h"
#include "pack_view.h"

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

/* Keys whose value every node of a domain shares (a domain is region,
 * cluster and fabric.domain): grouping by one of them is the domain rule. */
bool jt_packv_domain_key (const char *k)
{
    return strcmp (k, JT_LABEL_REGION) == 0 || strcmp (k, JT_LABEL_CLUSTER) == 0
           || strcmp (k, JT_LABEL_FABRIC) == 0;
}

void jt_packv_node_free (jt_pack_view_t *v, size_t node, bool now_free)
{
    size_t e = node < v->s->nnodes ? v->pos[node] : NOPOS;

    if (e == NOPOS || !v->taken[e] == now_free)
        return;
    if (now_free) {
        jt_packv_untake (v, e);
        v->nbusy--;
    } else {
        jt_packv_take (v, e);
        v->nbusy++;
    }
}

void jt_packv_class_name (const jt_pack_view_t *v, size_t c, char *buf,
                          size_t len)
{
    const char *dom = c < v->ndom ? v->s->domains[v->cdom[c]].name : "?";

    if (c < v->ndom && v->group_by && v->cval[c] && !jt_packv_domain_key (v->group_by))
        snprintf (buf, len, "%s %s=%s", dom, v->group_by, v->cval[c]);
    else
        snprintf (buf, len, "%s", dom);
}

int64_t jt_pack_view_free (const jt_pack_view_t *v, size_t domain)
{
    if (!v || domain >= v->s->ndomains)
        return 0;
    return v->dom_free[domain];
}

size_t jt_pack_view_nclasses (const jt_pack_view_t *v)
{
    return v ? v->ndom : 0;
}

size_t jt_pack_view_class_domain (const jt_pack_view_t *v, size_t c)
{
    return v->cdom[c];
}

int64_t jt_pack_view_class_free (const jt_pack_view_t *v, size_t c)
{
    return c < v->ndom ? v->free_gpus[c] : 0;
}

bool jt_pack_view_one_class (const jt_pack_view_t *v)
{
    return v && v->one_class;
}

void jt_pack_view_fix_class (jt_pack_view_t *v, ssize_t c)
{
    v->fixed = c >= 0 && (size_t) c < v->ndom ? c : -1;
}

/* Which class (slice) an entry belongs to. */
static size_t ent_dom (const jt_pack_view_t *v, size_t e)
{
    return v->ecls[e];
}

void jt_packv_take (jt_pack_view_t *v, size_t e)
{
    size_t d = ent_dom (v, e);
    int g = v->s->nodes[v->ent[e]].gpus;

    v->taken[e] = 1;
    v->free_nodes[d]--;
    v->free_gpus[d] -= g;
    v->dom_free[v->cdom[d]] -= g;
    if (v->ntaken++ == 0 && v->one_class)
        v->pin = (ssize_t) d;
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
    v->dom_free[v->cdom[d]] += g;
    if (--v->ntaken == 0)
        v->pin = -1;
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
        v->dsel_ok[d] = sel_match_domain (sel, &v->s->domains[v->cdom[d]]);
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
