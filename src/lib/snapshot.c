/*
 * snapshot.c - the cluster model behind jobtree/snapshot.h: programmatic
 * construction of nodes and leases, finalize (sort nodes, reject duplicate
 * names, build fast-fabric domains), look-ups, and the role/state names.
 * The JSON side (parse, load, to_json) lives in snapshot_json.c.
 *
 * DESIGN: a domain is keyed by its name "region/cluster/fabric" (absent parts
 * left out). Two different label tuples that spell the same name (e.g.
 * region=west,fabric=A and cluster=west,fabric=A) would silently merge, so
 * finalize rejects them naming both nodes. A domain's name and its three
 * parts live in one allocation (name\0region\0cluster\0fabric\0) so the
 * const parts need no separate ownership.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/map.h"
#include "jobtree/snapshot.h"
#include "snapshot_int.h"
#include "util/strbuf.h"

/* The last serial given by jt_snapshot_finalize (snapshots are finalized
 * from several threads in slurmctld: the plugins' and the elastic one). */
static uint64_t snapshot_serial;

jt_snapshot_t *jt_snapshot_create (void)
{
    return calloc (1, sizeof (jt_snapshot_t));
}

static void domains_free (jt_snapshot_t *s)
{
    jt_snapshot_levels_free (s);
    for (size_t i = 0; i < s->ndomains; i++) {
        free (s->domains[i].name);
        free (s->domains[i].nodes);
    }
    free (s->domains);
    s->domains = NULL;
    s->ndomains = 0;
}

void jt_lease_clear (jt_lease_t *l)
{
    free (l->run);
    free (l->owner);
    free (l->envelope);
    for (size_t i = 0; i < l->nnodes; i++)
        free (l->nodes[i]);
    free (l->nodes);
    memset (l, 0, sizeof (*l));
}

void jt_snapshot_destroy (jt_snapshot_t *s)
{
    if (!s)
        return;
    int saved = errno;
    for (size_t i = 0; i < s->nnodes; i++) {
        free (s->nodes[i].name);
        free (s->nodes[i].flavor);
        jt_labels_free (&s->nodes[i].labels);
    }
    free (s->nodes);
    domains_free (s);
    for (size_t l = 0; l < s->nlevels; l++)
        free (s->levels[l]);
    for (size_t i = 0; i < s->nleases; i++)
        jt_lease_clear (&s->leases[i]);
    free (s->leases);
    free (s);
    errno = saved;
}

/* Make room for element n of *v (element size sz). Arrays only ever grow
 * one element at a time through jt_snapshot_add_*, so the capacity is
 * implied by the count (8, then doubling) and the public struct needs no
 * capacity field. */
static int grow (void **v, size_t n, size_t sz)
{
    size_t cap;

    if (n == 0)
        cap = 8;
    else if (n >= 8 && (n & (n - 1)) == 0)
        cap = 2 * n;
    else
        return 0;
    void *nv = realloc (*v, cap * sz);
    if (!nv)
        return -1;
    *v = nv;
    return 0;
}

int jt_snapshot_add_node (jt_snapshot_t *s, const char *name,
                          const jt_labels_t *labels, const char *flavor,
                          int gpus, int used_gpus, jt_node_state_t state,
                          jt_error_t *err)
{
    jt_node_t n;

    if (!s || !name || !*name)
        return jt_errprintf (err, "node without a name");
    if (gpus < 0 || used_gpus < 0 || used_gpus > gpus)
        return jt_errprintf (err, "node %s: bad GPU counts (gpus %d, used %d)",
                             name, gpus, used_gpus);
    if (state != JT_NODE_UP && state != JT_NODE_DOWN && state != JT_NODE_DRAIN)
        return jt_errprintf (err, "node %s: bad state %d", name, (int) state);
    memset (&n, 0, sizeof (n));
    n.name = strdup (name);
    n.flavor = flavor ? strdup (flavor) : NULL;
    if (!n.name || (flavor && !n.flavor)
        || jt_labels_copy (&n.labels, labels) < 0
        || grow ((void **) &s->nodes, s->nnodes, sizeof (jt_node_t)) < 0) {
        free (n.name);
        free (n.flavor);
        jt_labels_free (&n.labels);
        return jt_errprintf (err, "node %s: out of memory", name);
    }
    n.gpus = gpus;
    n.used_gpus = used_gpus;
    n.state = state;
    n.domain = -1;
    n.lclass = JT_LCLASS_NONE;
    s->nodes[s->nnodes++] = n;
    s->finalized = false;
    return 0;
}

int jt_snapshot_add_lease (jt_snapshot_t *s, const jt_lease_t *lease,
                           jt_error_t *err)
{
    jt_lease_t l;

    if (!s || !lease || !lease->run)
        return jt_errprintf (err, "lease without a run");
    memset (&l, 0, sizeof (l));
    l.run = strdup (lease->run);
    l.owner = lease->owner ? strdup (lease->owner) : NULL;
    l.envelope = lease->envelope ? strdup (lease->envelope) : NULL;
    if (!l.run || (lease->owner && !l.owner)
        || (lease->envelope && !l.envelope))
        goto nomem;
    if (lease->nnodes > 0) {
        l.nodes = calloc (lease->nnodes, sizeof (char *));
        if (!l.nodes)
            goto nomem;
        for (size_t i = 0; i < lease->nnodes; i++) {
            l.nodes[i] = strdup (lease->nodes[i] ? lease->nodes[i] : "");
            if (!l.nodes[i])
                goto nomem;
            l.nnodes = i + 1;
        }
    }
    if (grow ((void **) &s->leases, s->nleases, sizeof (jt_lease_t)) < 0)
        goto nomem;
    l.group = lease->group;
    l.gpus = lease->gpus;
    l.role = lease->role;
    l.start = lease->start;
    l.end = lease->end;
    l.min_gpus = lease->min_gpus;
    s->leases[s->nleases++] = l;
    return 0;
nomem:
    jt_lease_clear (&l);
    return jt_errprintf (err, "lease of %s: out of memory", lease->run);
}

static int node_cmp (const void *a, const void *b)
{
    return strcmp (((const jt_node_t *) a)->name, ((const jt_node_t *) b)->name);
}

/* A node's domain key, computed once per node during finalize. */
struct dkey {
    char *name;
    const char *region, *cluster, *fabric;
    size_t node;
};

static int dkey_cmp (const void *a, const void *b)
{
    const struct dkey *x = a, *y = b;
    int c = strcmp (x->name, y->name);

    if (c != 0)
        return c;
    return x->node < y->node ? -1 : x->node > y->node;
}

static bool str_eq (const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp (a, b) == 0);
}

/* "name\0region\0cluster\0fabric\0" for the domain's single allocation. */
static char *domain_blob (const struct dkey *k, const char **region,
                          const char **cluster, const char **fabric)
{
    size_t ln = strlen (k->name) + 1;
    size_t lr = k->region ? strlen (k->region) + 1 : 0;
    size_t lc = k->cluster ? strlen (k->cluster) + 1 : 0;
    size_t lf = strlen (k->fabric) + 1;
    char *b = malloc (ln + lr + lc + lf);

    if (!b)
        return NULL;
    memcpy (b, k->name, ln);
    *region = k->region ? memcpy (b + ln, k->region, lr) : NULL;
    *cluster = k->cluster ? memcpy (b + ln + lr, k->cluster, lc) : NULL;
    *fabric = memcpy (b + ln + lr + lc, k->fabric, lf);
    return b;
}

static int build_domains (jt_snapshot_t *s, jt_error_t *err)
{
    struct dkey *keys = NULL;
    size_t nkeys = 0;
    int rc = -1;

    if (s->nnodes > 0 && !(keys = calloc (s->nnodes, sizeof (*keys))))
        return jt_errprintf (err, "snapshot: out of memory");
    for (size_t i = 0; i < s->nnodes; i++) {
        jt_node_t *n = &s->nodes[i];
        struct dkey *k = &keys[nkeys];
        n->domain = -1;
        k->fabric = jt_labels_get (&n->labels, JT_LABEL_FABRIC);
        if (!k->fabric)
            continue;
        k->region = jt_labels_get (&n->labels, JT_LABEL_REGION);
        k->cluster = jt_labels_get (&n->labels, JT_LABEL_CLUSTER);
        k->node = i;
        size_t len = strlen (k->fabric) + 1
            + (k->region ? strlen (k->region) + 1 : 0)
            + (k->cluster ? strlen (k->cluster) + 1 : 0);
        if (!(k->name = malloc (len))) {
            jt_errprintf (err, "snapshot: out of memory");
            goto done;
        }
        snprintf (k->name, len, "%s%s%s%s%s", k->region ? k->region : "",
                  k->region ? "/" : "", k->cluster ? k->cluster : "",
                  k->cluster ? "/" : "", k->fabric);
        nkeys++;
    }
    if (nkeys > 1)
        qsort (keys, nkeys, sizeof (*keys), dkey_cmp);
    size_t nd = 0;
    for (size_t i = 0; i < nkeys; i++)
        if (i == 0 || strcmp (keys[i].name, keys[i - 1].name) != 0)
            nd++;
    if (nd > 0 && !(s->domains = calloc (nd, sizeof (jt_domain_t)))) {
        jt_errprintf (err, "snapshot: out of memory");
        goto done;
    }
    for (size_t i = 0, j; i < nkeys; i = j) {
        jt_domain_t *d = &s->domains[s->ndomains];
        for (j = i; j < nkeys && strcmp (keys[j].name, keys[i].name) == 0; j++) {
            if (!str_eq (keys[j].region, keys[i].region)
                || !str_eq (keys[j].cluster, keys[i].cluster)) {
                jt_errprintf (err, "nodes %s and %s: different labels spell "
                              "the same domain name %s",
                              s->nodes[keys[i].node].name,
                              s->nodes[keys[j].node].name, keys[i].name);
                goto done;
            }
        }
        d->nodes = malloc ((j - i) * sizeof (size_t));
        d->name = d->nodes ? domain_blob (&keys[i], &d->region, &d->cluster,
                                          &d->fabric) : NULL;
        s->ndomains++;
        if (!d->name) {
            jt_errprintf (err, "snapshot: out of memory");
            goto done;
        }
        /* keys of one name are sorted by node index, i.e. by node name */
        for (size_t k = i; k < j; k++) {
            d->nodes[d->nnodes++] = keys[k].node;
            s->nodes[keys[k].node].domain = (int) (s->ndomains - 1);
        }
    }
    rc = 0;
done:
    for (size_t i = 0; i < nkeys; i++)
        free (keys[i].name);
    free (keys);
    if (rc < 0) {
        domains_free (s);
        for (size_t i = 0; i < s->nnodes; i++)
            s->nodes[i].domain = -1;
    }
    return rc;
}

/* Number the distinct (flavor, labels) of the nodes: a key per node that
 * spells them unambiguously (every string length-prefixed), looked up in
 * a map. O(nodes x labels), once per finalize. */
static int label_classes (jt_snapshot_t *s, jt_error_t *err)
{
    jt_map_t *m = jt_map_create (0);
    size_t n = 0;

    if (!m)
        return jt_errprintf (err, "out of memory");
    for (size_t i = 0; i < s->nnodes; i++) {
        jt_node_t *nd = &s->nodes[i];
        jt_strbuf_t b = JT_STRBUF_INIT;
        char *key;
        void *id;

        jt_strbuf_printf (&b, "%zu:%s", nd->flavor ? strlen (nd->flavor) : 0,
                          nd->flavor ? nd->flavor : "");
        for (size_t k = 0; k < nd->labels.n; k++)
            jt_strbuf_printf (&b, "|%zu:%s%zu:%s", strlen (nd->labels.v[k].key),
                              nd->labels.v[k].key, strlen (nd->labels.v[k].value),
                              nd->labels.v[k].value);
        if (!(key = jt_strbuf_take (&b))) {
            jt_map_destroy (m, NULL);
            return jt_errprintf (err, "out of memory");
        }
        if (!(id = jt_map_get (m, key))) {
            id = (void *) (uintptr_t) ++n;      /* ids from 1: NULL is absent */
            if (jt_map_put (m, key, id, NULL) < 0) {
                free (key);
                jt_map_destroy (m, NULL);
                return jt_errprintf (err, "out of memory");
            }
        }
        nd->lclass = (uint32_t) ((uintptr_t) id - 1);
        free (key);
    }
    s->nlclasses = n;
    jt_map_destroy (m, NULL);
    return 0;
}

int jt_snapshot_finalize (jt_snapshot_t *s, jt_error_t *err)
{
    if (!s)
        return jt_errprintf (err, "no snapshot");
    domains_free (s);
    if (s->nnodes > 1)
        qsort (s->nodes, s->nnodes, sizeof (jt_node_t), node_cmp);
    for (size_t i = 1; i < s->nnodes; i++)
        if (strcmp (s->nodes[i].name, s->nodes[i - 1].name) == 0)
            return jt_errprintf (err, "duplicate node name %s",
                                 s->nodes[i].name);
    if (build_domains (s, err) < 0 || jt_snapshot_levels_build (s, err) < 0
        || label_classes (s, err) < 0)
        return -1;
    s->finalized = true;
    s->serial = __atomic_add_fetch (&snapshot_serial, 1, __ATOMIC_RELAXED);
    return 0;
}

/* bsearch comparator: a name against an element whose first member is its
 * name (jt_node_t and jt_domain_t both are laid out so). */
_Static_assert (offsetof (jt_node_t, name) == 0, "jt_node_t starts with its name");
_Static_assert (offsetof (jt_domain_t, name) == 0, "jt_domain_t starts with its name");

static int cmp_name_key (const void *key, const void *elem)
{
    return strcmp ((const char *) key, *(char *const *) elem);
}

ssize_t jt_snapshot_node_index (const jt_snapshot_t *s, const char *name)
{
    const jt_node_t *n;

    if (!s || !name || !s->finalized || s->nnodes == 0)
        return -1;
    n = bsearch (name, s->nodes, s->nnodes, sizeof (*n), cmp_name_key);
    return n ? n - s->nodes : -1;
}

ssize_t jt_snapshot_domain_index (const jt_snapshot_t *s, const char *name)
{
    const jt_domain_t *d;

    if (!s || !name || s->ndomains == 0)
        return -1;
    d = bsearch (name, s->domains, s->ndomains, sizeof (*d), cmp_name_key);
    return d ? d - s->domains : -1;
}

int jt_snapshot_gpus_per_node (const jt_snapshot_t *s, const char *flavor)
{
    int best = 0;

    if (!s || !flavor)
        return 0;
    for (size_t i = 0; i < s->nnodes; i++) {
        const jt_node_t *n = &s->nodes[i];
        if (n->state == JT_NODE_UP && n->flavor && n->gpus > best
            && strcmp (n->flavor, flavor) == 0)
            best = n->gpus;
    }
    return best;
}

static const char *const role_names[] = { "Active", "Spare", "Borrowed" };
static const char *const state_names[] = { "up", "down", "drain" };
#define NELEM(a) (sizeof (a) / sizeof ((a)[0]))

/* One lookup for both name tables: the name of v, "?" when out of range. */
static const char *table_str (const char *const *names, size_t n, int v)
{
    return v >= 0 && (size_t) v < n ? names[v] : "?";
}

/* ... and back: the index of s, or -1. */
static int table_parse (const char *const *names, size_t n, const char *s)
{
    for (size_t i = 0; s && i < n; i++)
        if (strcmp (s, names[i]) == 0)
            return (int) i;
    return -1;
}

const char *jt_role_str (jt_role_t role)
{
    return table_str (role_names, NELEM (role_names), (int) role);
}

int jt_role_parse (const char *s, jt_role_t *out)
{
    int i = table_parse (role_names, NELEM (role_names), s);

    if (i < 0)
        return -1;
    *out = (jt_role_t) i;
    return 0;
}

const char *jt_node_state_str (jt_node_state_t st)
{
    return table_str (state_names, NELEM (state_names), (int) st);
}

int jt_node_state_parse (const char *s, jt_node_state_t *out)
{
    int i = table_parse (state_names, NELEM (state_names), s);

    if (i < 0)
        return -1;
    *out = (jt_node_state_t) i;
    return 0;
}
