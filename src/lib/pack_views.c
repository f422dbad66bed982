/*
 * pack_views.c - Pack's warm views (jobtree/pack.h, jt_pack_views_t): the
 * views of the runs asked about, kept across calls and brought up to date
 * with the snapshot instead of built again (issue 12).
 *
 * DESIGN: building a run's view is a pass over every node with label and
 * constraint look-ups (0.5 ms at 16k nodes), and slurmctld asks about
 * thousands of runs per minute on a snapshot that changes by a few nodes
 * between questions. A warm view (pack_view.c, view_build) has an entry
 * for every node the run may use, the busy ones taken, so a node that
 * frees or fills is one take or untake. jt_pack_views_sync compares each
 * node's state with the one it saw last (one byte per node, no string, no
 * allocation) and moves only the nodes that changed, in every kept view;
 * a new snapshot (another serial: a new node table) drops every view. The
 * flavor facts Plan asks per call (has the flavor nodes in a domain; its
 * GPUs per node among the up nodes) follow the same pass.
 *
 * A view is handed out clean (nothing placed) and must come back clean
 * (jt_pack_views_put): Plan gives back what it placed; a view that does not
 * come back clean is dropped, never reused. With the check on, every view
 * handed out is compared with a fresh build (its free nodes, in order, and
 * every counter) and a difference is counted and its text kept (the
 * select plugin's DebugCrossCheck logs it).
 *
 * Keys: flavor, spread, conformance strictness and the view's filter text
 * (constraints and group-by), so two runs get one view exactly when a fresh
 * build would give them the same one. At most JT_PACK_VIEWS_MAX views are
 * kept, the least recently used dropped first.
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

#define JT_PACK_VIEWS_MAX 8

struct slot {
    char *key;
    jt_pack_view_t *v;
    uint64_t used;              /* LRU tick */
    bool out;                   /* handed out, not yet put back */
};

/* A flavor's GPUs per node: how many up nodes have each count. */
struct gval {
    int gpus;
    size_t up;
};

struct flavor {
    char *name;
    bool has_nodes;             /* a node of it is in a domain */
    struct gval *vals;
    size_t nvals;
};

#define NO_FLAVOR UINT32_MAX

struct jt_pack_views {
    uint64_t serial;            /* the snapshot synced with (0: none) */
    size_t nnodes;
    unsigned char *st;          /* per node: ST_FREE | ST_UP as last seen */
    uint32_t *fl;               /* per node: its flavor, or NO_FLAVOR */
    uint32_t *gv;               /* per node: its GPU count in the flavor */
    struct flavor *fls;
    size_t nfls;
    struct slot slot[JT_PACK_VIEWS_MAX];
    uint64_t tick;
    bool check;
    jt_pack_views_stats_t stats;
};

#define ST_FREE 1u
#define ST_UP 2u

static unsigned char node_st (const jt_node_t *n)
{
    unsigned char st = 0;

    if (n->state == JT_NODE_UP) {
        st |= ST_UP;
        if (n->used_gpus == 0)
            st |= ST_FREE;
    }
    return st;
}

jt_pack_views_t *jt_pack_views_create (void)
{
    return calloc (1, sizeof (jt_pack_views_t));
}

static void slot_clear (struct slot *sl)
{
    free (sl->key);
    jt_pack_view_destroy (sl->v);
    memset (sl, 0, sizeof (*sl));
}

/* Forget the snapshot and every view. */
static void unbind (jt_pack_views_t *c)
{
    for (size_t i = 0; i < JT_PACK_VIEWS_MAX; i++)
        slot_clear (&c->slot[i]);
    for (size_t i = 0; i < c->nfls; i++) {
        free (c->fls[i].name);
        free (c->fls[i].vals);
    }
    free (c->fls);
    free (c->st);
    free (c->fl);
    free (c->gv);
    c->fls = NULL;
    c->nfls = 0;
    c->st = NULL;
    c->fl = NULL;
    c->gv = NULL;
    c->serial = 0;
    c->nnodes = 0;
}

void jt_pack_views_destroy (jt_pack_views_t *c)
{
    if (!c)
        return;
    unbind (c);
    free (c);
}

void jt_pack_views_check (jt_pack_views_t *c, bool on)
{
    if (c)
        c->check = on;
}

void jt_pack_views_stats (const jt_pack_views_t *c, jt_pack_views_stats_t *out)
{
    if (out)
        *out = c ? c->stats : (jt_pack_views_stats_t){ 0 };
}

/* The flavor's index in c->fls, added when new; NO_FLAVOR on ENOMEM. */
static uint32_t flavor_index (jt_pack_views_t *c, const char *name)
{
    struct flavor *nf;

    for (size_t i = 0; i < c->nfls; i++)
        if (strcmp (c->fls[i].name, name) == 0)
            return (uint32_t) i;
    if (c->nfls >= NO_FLAVOR - 1
        || !(nf = realloc (c->fls, (c->nfls + 1) * sizeof (*nf))))
        return NO_FLAVOR;
    c->fls = nf;
    memset (&nf[c->nfls], 0, sizeof (*nf));
    if (!(nf[c->nfls].name = strdup (name)))
        return NO_FLAVOR;
    return (uint32_t) c->nfls++;
}

/* The index of GPU count g in flavor f's table, added when new;
 * UINT32_MAX on ENOMEM. */
static uint32_t gval_index (struct flavor *f, int g)
{
    struct gval *nv;

    for (size_t i = 0; i < f->nvals; i++)
        if (f->vals[i].gpus == g)
            return (uint32_t) i;
    if (!(nv = realloc (f->vals, (f->nvals + 1) * sizeof (*nv))))
        return UINT32_MAX;
    f->vals = nv;
    nv[f->nvals] = (struct gval){ g, 0 };
    return (uint32_t) f->nvals++;
}

/* Bind to s: per node its flavor and state, per flavor its facts. The
 * only pass with strings; once per snapshot. */
static int bind (jt_pack_views_t *c, const jt_snapshot_t *s)
{
    size_t nn = s->nnodes;

    unbind (c);
    c->st = malloc (nn + 1);
    c->fl = malloc ((nn + 1) * sizeof (*c->fl));
    c->gv = malloc ((nn + 1) * sizeof (*c->gv));
    if (!c->st || !c->fl || !c->gv)
        goto nomem;
    for (size_t k = 0; k < nn; k++) {
        const jt_node_t *n = &s->nodes[k];
        struct flavor *f;

        c->st[k] = node_st (n);
        c->fl[k] = NO_FLAVOR;
        c->gv[k] = UINT32_MAX;
        if (!n->flavor)
            continue;
        if ((c->fl[k] = flavor_index (c, n->flavor)) == NO_FLAVOR)
            goto nomem;
        f = &c->fls[c->fl[k]];
        if (n->domain >= 0)
            f->has_nodes = true;
        if ((c->gv[k] = gval_index (f, n->gpus)) == UINT32_MAX)
            goto nomem;
        if (c->st[k] & ST_UP)
            f->vals[c->gv[k]].up++;
    }
    c->nnodes = nn;
    c->serial = s->serial;
    return 0;
nomem:
    unbind (c);
    return -1;
}

int jt_pack_views_sync (jt_pack_views_t *c, const jt_snapshot_t *s,
                        jt_error_t *err)
{
    if (!c || !s || !s->finalized)
        return jt_errprintf (err, "pack views: no views or no finalized snapshot");
    if (c->serial != s->serial || c->nnodes != s->nnodes) {
        if (bind (c, s) < 0)
            return jt_errprintf (err, "pack views: out of memory");
        return 0;
    }
    for (size_t k = 0; k < s->nnodes; k++) {
        unsigned char st = node_st (&s->nodes[k]), was = c->st[k];

        if (st == was)
            continue;
        if ((st ^ was) & ST_FREE) {
            for (size_t i = 0; i < JT_PACK_VIEWS_MAX; i++)
                if (c->slot[i].v)
                    jt_packv_node_free (c->slot[i].v, k, st & ST_FREE);
        }
        if (((st ^ was) & ST_UP) && c->fl[k] != NO_FLAVOR) {
            struct gval *g = &c->fls[c->fl[k]].vals[c->gv[k]];
            if (st & ST_UP)
                g->up++;
            else
                g->up--;
        }
        c->st[k] = st;
        c->stats.synced_nodes++;
    }
    return 0;
}

int jt_pack_views_gpus_per_node (const jt_pack_views_t *c,
                                 const jt_snapshot_t *s, const char *flavor,
                                 bool *has_nodes)
{
    if (!c || !s || !flavor || c->serial != s->serial || c->nnodes != s->nnodes)
        return -1;
    for (size_t i = 0; i < c->nfls; i++) {
        const struct flavor *f = &c->fls[i];
        int best = 0;

        if (strcmp (f->name, flavor) != 0)
            continue;
        for (size_t j = 0; j < f->nvals; j++)
            if (f->vals[j].up > 0 && f->vals[j].gpus > best)
                best = f->vals[j].gpus;
        if (has_nodes)
            *has_nodes = f->has_nodes;
        return best;
    }
    if (has_nodes)
        *has_nodes = false;
    return 0;
}

/* What makes two runs' views the same: flavor, spread, strictness, and
 * the view's filter (constraints, group-by). NULL on ENOMEM. */
static char *view_key (const jt_run_t *r)
{
    const char *by = jt_run_class_label (r);
    size_t len = strlen (r->flavor) + (by ? strlen (by) : 0) + 16;
    char *k;
    size_t at;

    for (size_t i = 0; i < r->constraints.n; i++)
        len += (size_t) jt_constraint_format (&r->constraints.v[i], NULL, 0) + 1;
    if (!(k = malloc (len)))
        return NULL;
    at = (size_t) snprintf (k, len, "%s\037%d%d\037%s", r->flavor,
                            r->cross_group_spread ? 1 : 0,
                            r->conformance_strict ? 1 : 0, by ? by : "");
    for (size_t i = 0; i < r->constraints.n; i++) {
        k[at++] = '\037';
        at += (size_t) jt_constraint_format (&r->constraints.v[i], k + at, len - at);
    }
    k[at] = '\0';
    return k;
}

/* The warm view against a fresh one: the same classes, the same free
 * nodes in each, in the same order, the same counters. 0 when equal;
 * else 1 and the first difference in diff. */
static int view_same (const jt_pack_view_t *w, const jt_pack_view_t *f,
                      char *diff, size_t len)
{
    if (w->ndom != f->ndom || w->nlabelled != f->nlabelled
        || w->nsatisfy != f->nsatisfy) {
        snprintf (diff, len, "classes %zu/%zu, labelled %zu/%zu, satisfying "
                  "%zu/%zu (warm/fresh)", w->ndom, f->ndom, w->nlabelled,
                  f->nlabelled, w->nsatisfy, f->nsatisfy);
        return 1;
    }
    for (size_t d = 0; d < w->ndom; d++) {
        size_t a = w->dstart[d], b = f->dstart[d];

        if (w->free_nodes[d] != f->free_nodes[d]
            || w->free_gpus[d] != f->free_gpus[d]
            || w->dom_free[w->cdom[d]] != f->dom_free[f->cdom[d]]) {
            snprintf (diff, len, "class %zu: %zu/%zu free nodes, %lld/%lld "
                      "free GPUs (warm/fresh)", d, w->free_nodes[d],
                      f->free_nodes[d], (long long) w->free_gpus[d],
                      (long long) f->free_gpus[d]);
            return 1;
        }
        for (;;) {
            while (a < w->dstart[d + 1] && w->taken[a])
                a++;
            while (b < f->dstart[d + 1] && f->taken[b])
                b++;
            if (a >= w->dstart[d + 1] || b >= f->dstart[d + 1])
                break;
            if (w->ent[a] != f->ent[b]) {
                snprintf (diff, len, "class %zu: free node %s where a fresh "
                          "view has %s", d, w->s->nodes[w->ent[a]].name,
                          f->s->nodes[f->ent[b]].name);
                return 1;
            }
            a++;
            b++;
        }
    }
    return 0;
}

/* Drop slot i (its view destroyed). */
static void drop (jt_pack_views_t *c, size_t i)
{
    slot_clear (&c->slot[i]);
    c->stats.dropped++;
}

jt_pack_view_t *jt_pack_views_get (jt_pack_views_t *c, const jt_snapshot_t *s,
                                   const jt_run_t *r, bool *owned,
                                   jt_error_t *err)
{
    jt_pack_view_t *v;
    char *key;
    size_t i, lru = 0;

    *owned = true;
    if (!r || !r->flavor)
        return jt_pack_view_create_run (s, r, err);
    if (!c || !s || c->serial != s->serial || c->nnodes != s->nnodes) {
        if (c)
            c->stats.cold++;
        return jt_pack_view_create_run (s, r, err);
    }
    if (!(key = view_key (r))) {
        jt_errprintf (err, "pack views: out of memory");
        return NULL;
    }
    for (i = 0; i < JT_PACK_VIEWS_MAX; i++)
        if (c->slot[i].v && !c->slot[i].out && strcmp (c->slot[i].key, key) == 0)
            break;
    if (i < JT_PACK_VIEWS_MAX) {
        free (key);
        v = c->slot[i].v;
        c->stats.hits++;
        if (c->check) {
            jt_pack_view_t *f = jt_packv_create (s, r, false, err);
            char diff[JT_ERRMSG_MAX - 64];
            if (!f)
                return NULL;
            if (view_same (v, f, diff, sizeof (diff)) != 0) {
                if (c->stats.mismatches++ == 0)
                    snprintf (c->stats.first_mismatch,
                              sizeof (c->stats.first_mismatch), "%s", diff);
                drop (c, i);
                return f;       /* the fresh one decides */
            }
            jt_pack_view_destroy (f);
        }
        c->slot[i].used = ++c->tick;
        c->slot[i].out = true;
        *owned = false;
        return v;
    }
    if (!(v = jt_packv_create (s, r, true, err))) {
        free (key);
        return NULL;
    }
    c->stats.builds++;
    if (!v->warm) {             /* cannot follow the snapshot: not kept */
        free (key);
        return v;
    }
    for (i = 0; i < JT_PACK_VIEWS_MAX; i++) {
        if (!c->slot[i].v)
            break;
        if (!c->slot[i].out
            && (c->slot[lru].out || c->slot[i].used < c->slot[lru].used))
            lru = i;
    }
    if (i == JT_PACK_VIEWS_MAX) {
        if (c->slot[lru].out) { /* every view is out: this one is not kept */
            free (key);
            return v;
        }
        drop (c, lru);
        i = lru;
    }
    c->slot[i] = (struct slot){ key, v, ++c->tick, true };
    *owned = false;
    return v;
}

void jt_pack_views_put (jt_pack_views_t *c, jt_pack_view_t *v)
{
    if (!c || !v)
        return;
    v->scope = NULL;
    for (size_t i = 0; i < JT_PACK_VIEWS_MAX; i++) {
        if (c->slot[i].v != v)
            continue;
        c->slot[i].out = false;
        jt_pack_view_fix_class (v, -1);
        jt_pack_view_hold_order (v, false);
        /* back clean: only the busy nodes taken */
        if (v->ntaken != v->nbusy)
            drop (c, i);
        return;
    }
    jt_pack_view_destroy (v);   /* not kept */
}
