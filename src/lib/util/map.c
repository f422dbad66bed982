/*
 * map.c - string-keyed hash map with FIFO eviction (jobtree/map.h).
 *
 * Open hashing with chains (FNV-1a); entries also sit on a doubly linked
 * insertion list so that the oldest can be evicted in O(1) and removal
 * stays O(1).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/map.h"

struct entry {
    char *key;
    void *val;
    uint64_t h;
    struct entry *next; /* chain */
    struct entry *older, *newer;
};

struct jt_map {
    struct entry **tab;
    size_t nbuckets;
    size_t n;
    size_t max;
    struct entry *oldest, *newest;
};

static uint64_t hash (const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char) *s;
        h *= 1099511628211ULL;
    }
    return h;
}

jt_map_t *jt_map_create (size_t max_entries)
{
    jt_map_t *m = calloc (1, sizeof (*m));
    if (!m)
        return NULL;
    m->nbuckets = 64;
    m->max = max_entries;
    while (m->nbuckets < max_entries && m->nbuckets < ((size_t) 1 << 24))
        m->nbuckets *= 2;
    if (!(m->tab = calloc (m->nbuckets, sizeof (*m->tab)))) {
        free (m);
        return NULL;
    }
    return m;
}

void jt_map_destroy (jt_map_t *m, void (*free_val) (void *))
{
    if (!m)
        return;
    int saved = errno;
    struct entry *e = m->oldest;
    while (e) {
        struct entry *nx = e->newer;
        if (free_val)
            free_val (e->val);
        free (e->key);
        free (e);
        e = nx;
    }
    free (m->tab);
    free (m);
    errno = saved;
}

static struct entry **find (const jt_map_t *m, const char *key, uint64_t h)
{
    struct entry **pp = &m->tab[h & (m->nbuckets - 1)];
    while (*pp && ((*pp)->h != h || strcmp ((*pp)->key, key)))
        pp = &(*pp)->next;
    return pp;
}

void *jt_map_get (const jt_map_t *m, const char *key)
{
    struct entry **pp = find (m, key, hash (key));
    return *pp ? (*pp)->val : NULL;
}

static int grow (jt_map_t *m)
{
    size_t nb = m->nbuckets * 2;
    struct entry **tab = calloc (nb, sizeof (*tab));
    if (!tab)
        return -1;
    for (struct entry *e = m->oldest; e; e = e->newer) {
        size_t b = e->h & (nb - 1);
        e->next = tab[b];
        tab[b] = e;
    }
    free (m->tab);
    m->tab = tab;
    m->nbuckets = nb;
    return 0;
}

static void unlink_entry (jt_map_t *m, struct entry **pp)
{
    struct entry *e = *pp;
    *pp = e->next;
    if (e->older)
        e->older->newer = e->newer;
    else
        m->oldest = e->newer;
    if (e->newer)
        e->newer->older = e->older;
    else
        m->newest = e->older;
    m->n--;
}

void *jt_map_remove (jt_map_t *m, const char *key)
{
    struct entry **pp = find (m, key, hash (key));
    if (!*pp)
        return NULL;
    struct entry *e = *pp;
    void *val = e->val;
    unlink_entry (m, pp);
    free (e->key);
    free (e);
    return val;
}

int jt_map_put (jt_map_t *m, const char *key, void *val, void **dropped)
{
    uint64_t h = hash (key);
    struct entry **pp = find (m, key, h);
    if (dropped)
        *dropped = NULL;
    if (*pp) {
        void *old = (*pp)->val;
        (*pp)->val = val;
        if (dropped && old != val)
            *dropped = old;
        return 0;
    }
    /* everything that can fail comes before the eviction: a failure
     * changes nothing */
    bool evict = m->max && m->n >= m->max;
    struct entry *e = calloc (1, sizeof (*e));
    if (!e || !(e->key = strdup (key))
        || (m->n + (evict ? 0 : 1) > m->nbuckets && grow (m) < 0)) {
        if (e)
            free (e->key);
        free (e);
        return -1;
    }
    if (evict) {
        void *old = jt_map_remove (m, m->oldest->key);
        if (dropped)
            *dropped = old;
    }
    e->val = val;
    e->h = h;
    pp = &m->tab[h & (m->nbuckets - 1)];
    e->next = *pp;
    *pp = e;
    e->older = m->newest;
    if (m->newest)
        m->newest->newer = e;
    else
        m->oldest = e;
    m->newest = e;
    m->n++;
    return 0;
}

size_t jt_map_count (const jt_map_t *m)
{
    return m->n;
}

static int cmpstr (const void *a, const void *b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

void jt_map_each (const jt_map_t *m, void (*fn) (const char *key, void *val, void *arg),
                  void *arg)
{
    for (const struct entry *e = m->oldest; e; e = e->newer)
        fn (e->key, e->val, arg);
}

const char **jt_map_sorted_keys (const jt_map_t *m, size_t *n)
{
    *n = 0;
    if (m->n == 0)
        return NULL;
    const char **v = malloc (m->n * sizeof (*v));
    if (!v)
        return NULL;
    size_t i = 0;
    for (struct entry *e = m->oldest; e; e = e->newer)
        v[i++] = e->key;
    qsort (v, i, sizeof (*v), cmpstr);
    *n = i;
    return v;
}
