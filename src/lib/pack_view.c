/*
 * pack_view.c - the pack view (jobtree/pack.h, layout in pack_view.h):
 * built once per snapshot and flavor in O(nodes), consumed node by node by
 * jt_pack, given back by jt_pack_unplace, plus the cache of the last
 * node-level selector's matches. A view made for a run keeps only the
 * nodes its constraints and group-by label allow, sliced by class
 * (pack_view.h). This file builds views; using one (taking and giving back
 * nodes, its classes, the selector caches, the domain order, the orders
 * and keys building relies on) is pack_view_use.c's, below this file.
 *
 * DESIGN: a domain's free GPUs never exceed what it had when the view was
 * built, so requests order domains with a counting sort over that bound
 * (O(domains + max free)) rather than a comparison sort; this keeps jt_pack
 * O(domains + nodes taken) on clusters of tens of thousands of nodes.
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

void jt_pack_view_destroy (jt_pack_view_t *v)
{
    if (!v)
        return;
    int saved = errno;
    free (v->ent);
    free (v->ecls);
    free (v->cdom);
    free (v->cval);
    free (v->cfirst);
    free (v->dom_free);
    free (v->group_by);
    jt_constraints_free (&v->cons);
    free (v->filter);
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

/* A free node on its way into the view: in domain, class value, GPUs
 * desc, then name order (node indexes are in name order), which is the
 * slices' order and, inside a slice, packing order. */
struct bent {
    size_t dd;
    const char *val;
    int gpus;
    int rank;                   /* its value's rank in the domain */
    size_t node;
};

static int bent_cmp (const void *a, const void *b)
{
    const struct bent *x = a, *y = b;
    int c;

    if (x->dd != y->dd)
        return x->dd < y->dd ? -1 : 1;
    if (x->val && y->val && (c = strcmp (x->val, y->val)) != 0)
        return c;
    if (x->gpus != y->gpus)
        return x->gpus > y->gpus ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* "nodes where gpu.mem GE 80 and rack.row LT 4, grouped by rack". */
static char *filter_text (const jt_constraints_t *cons, const char *group_by)
{
    size_t len = 64 + (group_by ? strlen (group_by) : 0);
    char *t;
    size_t at = 0;

    for (size_t i = 0; cons && i < cons->n; i++)
        len += (size_t) jt_constraint_format (&cons->v[i], NULL, 0) + 16;
    if (!(t = malloc (len)))
        return NULL;
    t[0] = '\0';
    for (size_t i = 0; cons && i < cons->n; i++) {
        at += (size_t) snprintf (t + at, len - at, "%s", i ? " and " : "nodes where ");
        at += (size_t) jt_constraint_format (&cons->v[i], t + at, len - at);
    }
    if (group_by)
        snprintf (t + at, len - at, "%sgrouped by %s", at ? ", " : "", group_by);
    return t;
}

/* Put the slice of class d, whose nodes differ in GPUs, into packing
 * order (GPUs desc, then name). */
static int sort_slice (jt_pack_view_t *v, size_t d)
{
    size_t n = v->free_nodes[d], *ent = v->ent + v->dstart[d];
    struct dord *tmp = malloc ((n + 1) * sizeof (*tmp));

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

/* How many distinct values a domain may have before its entries are
 * sorted by comparison rather than bucketed by a small table. */
#define SMALL_VALUES 32

/* The nodes marked in the view (mark[i] != NOPOS) into be (nent of them),
 * domain by domain, each domain's sorted by group-by value, GPUs desc,
 * then name. A domain with few values (racks, slices) and nodes alike is
 * bucketed in one stable pass (its entries are in name order already);
 * otherwise it is sorted by comparison. Returns 0, -1 on ENOMEM. */
static int sort_by_value (const jt_snapshot_t *s, const size_t *mark,
                          const char *group_by, struct bent *be, size_t nent)
{
    struct bent *tmp = malloc ((nent + 1) * sizeof (*tmp));
    size_t at = 0;

    if (!tmp)
        return -1;
    for (size_t dd = 0; dd < s->ndomains; dd++) {
        const jt_domain_t *dom = &s->domains[dd];
        const char *val[SMALL_VALUES];
        size_t first = at, nval = 0, rank[SMALL_VALUES], cnt[SMALL_VALUES + 1];
        unsigned char slot[SMALL_VALUES];
        bool small = true, uniform = true;

        for (size_t k = 0; k < dom->nnodes; k++) {
            const jt_node_t *n = &s->nodes[dom->nodes[k]];
            if (mark[dom->nodes[k]] == NOPOS)
                continue;
            be[at] = (struct bent){ dd, jt_labels_get (&n->labels, group_by),
                                    n->gpus, 0, dom->nodes[k] };
            if (at > first && n->gpus != be[first].gpus)
                uniform = false;
            at++;
        }
        /* the domain's distinct values, in a small table */
        for (size_t e = first; e < at && small; e++) {
            size_t j = 0;
            while (j < nval && strcmp (val[j], be[e].val) != 0)
                j++;
            if (j == nval) {
                if (nval == SMALL_VALUES)
                    small = false;
                else
                    val[nval++] = be[e].val;
            }
        }
        if (!small || !uniform) {
            qsort (be + first, at - first, sizeof (*be), bent_cmp);
            for (size_t e = first + 1; e < at; e++)
                be[e].rank = be[e - 1].rank
                             + (strcmp (be[e].val, be[e - 1].val) != 0);
            continue;
        }
        /* rank the values (insertion sort of at most SMALL_VALUES), then a
         * stable counting sort by rank keeps name order inside each */
        for (size_t j = 0; j < nval; j++)
            slot[j] = (unsigned char) j;
        for (size_t j = 1; j < nval; j++)
            for (size_t i = j; i > 0 && strcmp (val[slot[i - 1]], val[slot[i]]) > 0;
                 i--) {
                unsigned char t = slot[i];
                slot[i] = slot[i - 1];
                slot[i - 1] = t;
            }
        for (size_t j = 0; j < nval; j++)
            rank[slot[j]] = j;
        memset (cnt, 0, sizeof (cnt));
        for (size_t e = first; e < at; e++) {
            size_t j = 0;
            while (strcmp (val[j], be[e].val) != 0)
                j++;
            be[e].gpus = (int) j;       /* the slot, for the pass below */
            cnt[rank[j] + 1]++;
        }
        for (size_t j = 1; j <= nval; j++)
            cnt[j] += cnt[j - 1];
        for (size_t e = first; e < at; e++) {
            struct bent x = be[e];
            size_t r = rank[x.gpus];
            x.gpus = s->nodes[x.node].gpus;
            x.rank = (int) r;
            tmp[first + cnt[r]++] = x;
        }
        memcpy (be + first, tmp + first, (at - first) * sizeof (*be));
    }
    free (tmp);
    return 0;
}

/* A node Pack may take now: up, nothing allocated on it. */
static bool node_free (const jt_node_t *n)
{
    return n->state == JT_NODE_UP && n->used_gpus == 0;
}

/* Build the view. all: a warm view (pack_views.c) if it can be one: every
 * node the run may use gets an entry, the busy ones taken, so a node that
 * frees later is given back (jt_packv_node_free) instead of the view being
 * built again. Only where that view's free entries are exactly a fresh
 * view's, in the same order: not when slicing by a group-by value (a class
 * exists only where a node is free), not with spread off and group-by (its
 * pin follows the first take) and not when a node carries a conformance
 * fingerprint the run's preference orders by (the order depends on which
 * nodes are free). Otherwise the view is built as a fresh one (warm
 * false). */
static jt_pack_view_t *view_build (const jt_snapshot_t *s, const char *flavor,
                                   const jt_constraints_t *cons,
                                   const char *group_by, bool one_class,
                                   bool all, bool conf_prefers,
                                   jt_error_t *err)
{
    jt_pack_view_t *v;
    struct bent *be = NULL;
    size_t nsd, nn, nent = 0, nc, ncons;
    bool by_value;

    if (!s || !s->finalized || !flavor) {
        jt_errprintf (err, "pack view: needs a finalized snapshot and a flavor");
        errno = EINVAL;
        return NULL;
    }
    nsd = s->ndomains;
    nn = s->nnodes;
    ncons = cons ? cons->n : 0;
    by_value = group_by && !jt_packv_domain_key (group_by);
    if (by_value || (one_class && group_by))
        all = false;
    if (!(v = calloc (1, sizeof (*v))))
        goto nomem;
    v->s = s;
    v->pin = -1;
    v->fixed = -1;
    v->one_class = one_class && group_by;
    v->flavor = strdup (flavor);
    v->pos = malloc ((nn + 1) * sizeof (size_t));
    v->dom_free = calloc (nsd + 1, sizeof (int64_t));
    v->cfirst = calloc (nsd + 1, sizeof (size_t));
    if (!v->flavor || !v->pos || !v->dom_free || !v->cfirst)
        goto nomem;
    if (group_by && !(v->group_by = strdup (group_by)))
        goto nomem;
    if (jt_constraints_copy (&v->cons, cons) < 0)
        goto nomem;
    if ((group_by || (cons && cons->n))
        && !(v->filter = filter_text (cons, group_by)))
        goto nomem;
    for (size_t i = 0; i < nn; i++) {
        const jt_node_t *n = &s->nodes[i];

        v->pos[i] = NOPOS;
        if (!(n->gpus > 0 && n->domain >= 0 && n->flavor
              && strcmp (n->flavor, flavor) == 0))
            continue;
        v->nlabelled++;
        if ((group_by && !jt_labels_get (&n->labels, group_by))
            || (ncons && !jt_constraints_match (cons, &n->labels)))
            continue;
        v->nsatisfy++;
        if (all && conf_prefers
            && jt_labels_get (&n->labels, JT_CONFORMANCE_LABEL)) {
            /* not warm after all: forget the busy nodes marked so far */
            all = false;
            nent = 0;
            for (size_t j = 0; j < i; j++)
                if (v->pos[j] != NOPOS && !node_free (&s->nodes[j]))
                    v->pos[j] = NOPOS;
                else if (v->pos[j] != NOPOS)
                    nent++;
        }
        if (all || node_free (n)) {
            v->pos[i] = 0;      /* marks "in the view" for the passes below */
            nent++;
        }
    }
    v->warm = all;
    /* classes: every snapshot domain (empty ones too, so class and domain
     * indexes agree) unless grouping by a value, then each (domain, value)
     * that has a free node */
    nc = nsd;
    if (by_value) {
        if (!(be = malloc ((nent + 1) * sizeof (*be))))
            goto nomem;
        if (sort_by_value (s, v->pos, group_by, be, nent) < 0)
            goto nomem;
        nc = 0;
        for (size_t e = 0; e < nent; e++)
            if (e == 0 || be[e].dd != be[e - 1].dd
                || be[e].rank != be[e - 1].rank)
                nc++;
    }
    v->ndom = nc;
    v->cdom = calloc (nc + 1, sizeof (size_t));
    v->cval = calloc (nc + 1, sizeof (char *));
    v->dstart = calloc (nc + 1, sizeof (size_t));
    v->head = calloc (nc + 1, sizeof (size_t));
    v->free_nodes = calloc (nc + 1, sizeof (size_t));
    v->free_gpus = calloc (nc + 1, sizeof (int64_t));
    v->ugpus = calloc (nc + 1, sizeof (int));
    v->order = calloc (nc + 1, sizeof (struct dord));
    v->ent = malloc ((nent + 1) * sizeof (size_t));
    v->ecls = malloc ((nent + 1) * sizeof (size_t));
    v->taken = calloc (nent + 1, 1);
    if (!v->cdom || !v->cval || !v->dstart || !v->head || !v->free_nodes
        || !v->free_gpus || !v->ugpus || !v->order || !v->ent || !v->ecls
        || !v->taken)
        goto nomem;
    if (!by_value) {
        /* an ordinary run: domain by domain, nodes in name order (as the
         * snapshot keeps them), a slice sorted only when its nodes differ
         * in GPUs, so the view stays O(nodes) */
        size_t e = 0;
        for (size_t dd = 0; dd < nsd; dd++) {
            const jt_domain_t *dom = &s->domains[dd];
            bool uniform = true;

            v->cdom[dd] = dd;
            v->cval[dd] = !group_by ? NULL
                          : strcmp (group_by, JT_LABEL_REGION) == 0 ? dom->region
                          : strcmp (group_by, JT_LABEL_CLUSTER) == 0 ? dom->cluster
                          : dom->fabric;
            v->dstart[dd] = v->head[dd] = e;
            for (size_t k = 0; k < dom->nnodes; k++) {
                const jt_node_t *n = &s->nodes[dom->nodes[k]];
                if (v->pos[dom->nodes[k]] == NOPOS)
                    continue;
                if (v->free_nodes[dd] > 0 && n->gpus != v->ugpus[dd])
                    uniform = false;
                v->ugpus[dd] = n->gpus;
                v->ent[e] = dom->nodes[k];
                v->ecls[e++] = dd;
                v->free_nodes[dd]++;
                v->free_gpus[dd] += n->gpus;
            }
            v->dom_free[dd] = v->free_gpus[dd];
            if (!uniform && sort_slice (v, dd) < 0)
                goto nomem;
            for (size_t x = v->dstart[dd]; x < e; x++)
                v->pos[v->ent[x]] = x;
        }
    } else {
        size_t c = 0;
        for (size_t e = 0; e < nent; e++) {
            if (e > 0 && (be[e].dd != be[e - 1].dd
                          || be[e].rank != be[e - 1].rank))
                c++;
            v->cdom[c] = be[e].dd;
            v->cval[c] = be[e].val;
            if (v->free_nodes[c] == 0) {
                v->dstart[c] = v->head[c] = e;
                v->ugpus[c] = be[e].gpus;
            } else if (v->ugpus[c] != be[e].gpus)
                v->ugpus[c] = 0;
            v->ent[e] = be[e].node;
            v->ecls[e] = c;
            v->pos[be[e].node] = e;
            v->free_nodes[c]++;
            v->free_gpus[c] += be[e].gpus;
            v->dom_free[be[e].dd] += be[e].gpus;
        }
    }
    /* empty slices (domains without a free node) start where the next
     * slice does */
    v->dstart[nc] = nent;
    for (size_t k = nc; k-- > 0;)
        if (v->free_nodes[k] == 0)
            v->dstart[k] = v->head[k] = v->dstart[k + 1];
    /* cfirst: each domain's first class; classes are in domain order */
    v->cfirst[nsd] = nc;
    for (size_t dd = nsd, k = nc; dd-- > 0;) {
        while (k > 0 && v->cdom[k - 1] >= dd)
            k--;
        v->cfirst[dd] = k;
    }
    free (be);
    be = NULL;
    /* A class's free GPUs never exceed what it had when the view was
     * built, so requests can order classes by a counting sort (O(classes +
     * max free)) instead of a comparison sort, unless one huge class would
     * make the buckets outnumber the classes by far. */
    for (size_t d = 0; d < nc; d++)
        if (v->free_gpus[d] + 1 > v->nbucket)
            v->nbucket = v->free_gpus[d] + 1;
    if (v->nbucket <= (int64_t) (8 * nc + 4096)) {
        v->bucket = calloc ((size_t) v->nbucket + 1, sizeof (size_t));
        v->order_tmp = calloc (nc + 1, sizeof (struct dord));
        if (!v->bucket || !v->order_tmp)
            goto nomem;
    }
    /* a warm view's busy nodes: taken, as if placed (after the bounds
     * above, which thus hold for every node that may free) */
    for (size_t e = 0; v->warm && e < nent; e++)
        if (!node_free (&s->nodes[v->ent[e]])) {
            jt_packv_take (v, e);
            v->nbusy++;
        }
    return v;
nomem:
    free (be);
    jt_pack_view_destroy (v);
    jt_errprintf (err, "pack view: out of memory");
    errno = ENOMEM;
    return NULL;
}

jt_pack_view_t *jt_pack_view_create (const jt_snapshot_t *s,
                                     const char *flavor, jt_error_t *err)
{
    return view_build (s, flavor, NULL, NULL, false, false, false, err);
}

/* Conformance preference (jobtree/conformance.h): each slice whose free
 * nodes carry more than one fingerprint (a node without one is a class of
 * its own) is put in the order GPUs desc, then the size of the node's
 * fingerprint class in the slice desc, then the fingerprint, then name, so
 * a group takes nodes of the slice's largest one-fingerprint set first.
 * Slices of one fingerprint (or none) keep their order: O(nodes), plus a
 * sort of each mixed slice. Returns 0, -1 on ENOMEM. */
struct centry {
    int gpus;
    size_t size;                /* nodes of its fingerprint in the slice */
    const char *fp;             /* NULL: none */
    size_t node;
};

static int fp_cmp (const char *a, const char *b)
{
    return a == b ? 0 : !a ? 1 : !b ? -1 : strcmp (a, b);
}

static int centry_fp_cmp (const void *a, const void *b)
{
    const struct centry *x = a, *y = b;
    int c = fp_cmp (x->fp, y->fp);
    return c ? c : x->node < y->node ? -1 : x->node > y->node;
}

static int centry_cmp (const void *a, const void *b)
{
    const struct centry *x = a, *y = b;
    int c;

    if (x->gpus != y->gpus)
        return x->gpus > y->gpus ? -1 : 1;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    if ((c = fp_cmp (x->fp, y->fp)) != 0)
        return c;
    return x->node < y->node ? -1 : x->node > y->node;
}

static int conf_prefer (jt_pack_view_t *v)
{
    for (size_t c = 0; c < v->ndom; c++) {
        size_t n = v->free_nodes[c], *ent = v->ent + v->dstart[c];
        const char *first = NULL;
        bool mixed = false, seen = false;
        struct centry *ce;

        for (size_t i = 0; i < n && !mixed; i++) {
            const char *fp = jt_labels_get (&v->s->nodes[ent[i]].labels,
                                            JT_CONFORMANCE_LABEL);
            if (!seen) {
                first = fp;
                seen = true;
            } else if (fp_cmp (first, fp) != 0 || !fp)
                mixed = true;
        }
        if (!mixed)
            continue;
        if (!(ce = malloc (n * sizeof (*ce))))
            return -1;
        for (size_t i = 0; i < n; i++)
            ce[i] = (struct centry){ v->s->nodes[ent[i]].gpus, 1,
                                     jt_labels_get (&v->s->nodes[ent[i]].labels,
                                                    JT_CONFORMANCE_LABEL), ent[i] };
        qsort (ce, n, sizeof (*ce), centry_fp_cmp);
        for (size_t i = 0, j; i < n; i = j) {
            for (j = i + 1; j < n && ce[i].fp && fp_cmp (ce[i].fp, ce[j].fp) == 0; j++)
                ;
            for (size_t k = i; k < j; k++)
                ce[k].size = j - i;
        }
        qsort (ce, n, sizeof (*ce), centry_cmp);
        for (size_t i = 0; i < n; i++) {
            ent[i] = ce[i].node;
            v->pos[ce[i].node] = v->dstart[c] + i;
        }
        free (ce);
    }
    return 0;
}

jt_pack_view_t *jt_packv_create (const jt_snapshot_t *s, const jt_run_t *r,
                                 bool warm, jt_error_t *err)
{
    jt_pack_view_t *v;

    if (!r) {
        jt_errprintf (err, "pack view: no run");
        errno = EINVAL;
        return NULL;
    }
    v = view_build (s, r->flavor, &r->constraints, jt_run_class_label (r),
                    !r->cross_group_spread, warm, !r->conformance_strict, err);
    /* a warm view has no fingerprint to prefer (view_build): its order
     * is already the one conf_prefer would give */
    if (v && !v->warm && !r->conformance_strict && conf_prefer (v) < 0) {
        jt_pack_view_destroy (v);
        jt_errprintf (err, "pack view: out of memory");
        errno = ENOMEM;
        return NULL;
    }
    return v;
}

jt_pack_view_t *jt_pack_view_create_run (const jt_snapshot_t *s,
                                         const jt_run_t *r, jt_error_t *err)
{
    return jt_packv_create (s, r, false, err);
}
