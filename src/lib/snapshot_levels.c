/*
 * snapshot_levels.c - the fabric above the domain (jobtree/snapshot.h,
 * "Levels"): which label keys name the levels, and each level's units
 * (blocks, spines) with the domains inside them, built by finalize.
 *
 * DESIGN: a unit is the value of its level's label that every node of a
 * domain shares. A domain whose nodes disagree, or lack the label, is a
 * unit of its own at that level (up == -1): Pack then counts it alone,
 * which is what it is to the fabric as far as the labels tell. Units are
 * sorted by name, so their order is the same on every host and run.
 * O(nodes + domains x log) per level, once per finalize.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/snapshot.h"
#include "snapshot_int.h"

#define LEVEL_PREFIX "fabric."

int jt_snapshot_set_levels (jt_snapshot_t *s, const char *const *keys,
                            size_t n, jt_error_t *err)
{
    char *copy[JT_LEVELS_MAX] = { NULL };

    if (!s)
        return jt_errprintf (err, "no snapshot");
    if (n > JT_LEVELS_MAX)
        return jt_errprintf (err, "%zu fabric levels: at most %d", n,
                             JT_LEVELS_MAX);
    for (size_t i = 0; i < n; i++) {
        const char *k = keys[i];
        if (!k || strncmp (k, LEVEL_PREFIX, strlen (LEVEL_PREFIX)) != 0
            || !k[strlen (LEVEL_PREFIX)] || strchr (k, ',') || strchr (k, '=')
            || strcmp (k, JT_LABEL_FABRIC) == 0)
            return jt_errprintf (err, "fabric level '%s': a level is a label "
                                 "key fabric.<name> other than %s, e.g. "
                                 "fabric.block", k ? k : "", JT_LABEL_FABRIC);
        for (size_t j = 0; j < i; j++)
            if (strcmp (keys[j], k) == 0)
                return jt_errprintf (err, "fabric level '%s' named twice", k);
    }
    for (size_t i = 0; i < n; i++)
        if (!(copy[i] = strdup (keys[i]))) {
            for (size_t j = 0; j < i; j++)
                free (copy[j]);
            return jt_errprintf (err, "out of memory");
        }
    jt_snapshot_levels_free (s);
    for (size_t i = 0; i < s->nlevels; i++)
        free (s->levels[i]);
    for (size_t i = 0; i < n; i++)
        s->levels[i] = copy[i];
    s->nlevels = n;
    memset (s->block_nodes, 0, sizeof (s->block_nodes));   /* per level */
    return 0;
}

#define BLOCK_NODES_MAX (1u << 20)

int jt_snapshot_set_block_nodes (jt_snapshot_t *s, const uint32_t *nodes,
                                 size_t n, jt_error_t *err)
{
    if (!s)
        return jt_errprintf (err, "no snapshot");
    if (n > s->nlevels + 1)
        return jt_errprintf (err, "%zu block sizes for %zu fabric levels: at "
                             "most one for the domain and one per level", n,
                             s->nlevels);
    for (size_t i = 0; i < n; i++)
        if (nodes[i] < 1 || nodes[i] > BLOCK_NODES_MAX
            || (i && nodes[i] <= nodes[i - 1]))
            return jt_errprintf (err, "block size %zu (%s): %" PRIu32 " nodes;"
                                 " sizes are 1 to %u nodes, each larger than "
                                 "the one below", i, i ? jt_level_name (s, i - 1)
                                 : "domain", nodes[i], BLOCK_NODES_MAX);
    memset (s->block_nodes, 0, sizeof (s->block_nodes));
    for (size_t i = 0; i < n; i++)
        s->block_nodes[i] = nodes[i];
    return 0;
}

size_t jt_snapshot_block_sizes_named (const jt_snapshot_t *s, size_t n)
{
    if (!s)
        return 0;
    return n < s->nlevels + 1 ? n : s->nlevels + 1;
}

const char *jt_level_name (const jt_snapshot_t *s, size_t l)
{
    if (!s || l >= s->nlevels)
        return "domain";
    return s->levels[l] + strlen (LEVEL_PREFIX);
}

ssize_t jt_level_index (const jt_snapshot_t *s, const char *name)
{
    if (!s || !name)
        return -1;
    for (size_t l = 0; l < s->nlevels; l++)
        if (strcmp (s->levels[l], name) == 0
            || strcmp (jt_level_name (s, l), name) == 0)
            return (ssize_t) l;
    return -1;
}

void jt_snapshot_levels_free (jt_snapshot_t *s)
{
    for (size_t l = 0; l < JT_LEVELS_MAX; l++) {
        for (size_t u = 0; u < s->nunits[l]; u++) {
            free (s->units[l][u].name);
            free (s->units[l][u].domains);
        }
        free (s->units[l]);
        s->units[l] = NULL;
        s->nunits[l] = 0;
    }
    for (size_t d = 0; d < s->ndomains; d++)
        for (size_t l = 0; l < JT_LEVELS_MAX; l++)
            s->domains[d].up[l] = -1;
}

/* The value of level key every node of domain d has, or NULL. */
static const char *shared_value (const jt_snapshot_t *s, const jt_domain_t *d,
                                 const char *key)
{
    const char *v = NULL;

    for (size_t i = 0; i < d->nnodes; i++) {
        const char *x = jt_labels_get (&s->nodes[d->nodes[i]].labels, key);
        if (!x || (v && strcmp (v, x) != 0))
            return NULL;
        v = x;
    }
    return v;
}

struct dval {
    const char *value;
    size_t d;
};

static int dval_cmp (const void *a, const void *b)
{
    const struct dval *x = a, *y = b;
    int c = strcmp (x->value, y->value);
    return c ? c : (x->d < y->d ? -1 : x->d > y->d);
}

/* Build level l's units from the domains' shared values. 0 or -1. */
static int build_level (jt_snapshot_t *s, size_t l, jt_error_t *err)
{
    struct dval *v = calloc (s->ndomains + 1, sizeof (*v));
    size_t n = 0, nu = 0;

    if (!v)
        return jt_errprintf (err, "out of memory");
    for (size_t d = 0; d < s->ndomains; d++) {
        const char *x = shared_value (s, &s->domains[d], s->levels[l]);
        if (x)
            v[n++] = (struct dval) { .value = x, .d = d };
    }
    qsort (v, n, sizeof (*v), dval_cmp);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp (v[i].value, v[i - 1].value) != 0)
            nu++;
    if (nu > 0 && !(s->units[l] = calloc (nu, sizeof (jt_unit_t)))) {
        free (v);
        return jt_errprintf (err, "out of memory");
    }
    for (size_t i = 0, j; i < n; i = j) {
        jt_unit_t *u = &s->units[l][s->nunits[l]];
        for (j = i; j < n && strcmp (v[j].value, v[i].value) == 0; j++)
            ;
        u->name = strdup (v[i].value);
        u->domains = malloc ((j - i) * sizeof (size_t));
        s->nunits[l]++;
        if (!u->name || !u->domains) {
            free (v);
            return jt_errprintf (err, "out of memory");
        }
        for (size_t k = i; k < j; k++) {
            u->domains[u->ndomains++] = v[k].d;
            s->domains[v[k].d].up[l] = (ssize_t) (s->nunits[l] - 1);
        }
    }
    free (v);
    return 0;
}

int jt_snapshot_levels_build (jt_snapshot_t *s, jt_error_t *err)
{
    jt_snapshot_levels_free (s);
    for (size_t l = 0; l < s->nlevels; l++)
        if (build_level (s, l, err) < 0) {
            jt_snapshot_levels_free (s);
            return -1;
        }
    return 0;
}
