/*
 * map.c - string-keyed hashing (jobtree/map.h): the map with FIFO
 * eviction, and the set of ids.
 *
 * The map: open hashing with chains (FNV-1a); entries also sit on a doubly
 * linked insertion list so that the oldest can be evicted in O(1) and
 * removal stays O(1).
 *
 * The id set: the same hash, finished by SplitMix64's finalizer
 * (jt_str_hash64, also jobtree-ledgerd's on-disk id table's), in a flat
 * table probed linearly, each slot the hash and the key's copy, the copies packed into blocks. Measured on
 * `jobtree verify` of 1M records (bench_verify.md): the map as the fold's
 * id index cost a sixth of the verify's CPU, most of it cache misses on
 * its buckets, entries and keys and the two mallocs per id.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

/* ---- the id set ---- */

struct idslot {
    uint64_t h;      /* the key's hash, never 0: 0 is an empty slot */
    const char *key; /* its copy, in a key block */
};

struct keyblock {
    struct keyblock *prev;
    size_t used, size;
    char text[];
};

struct jt_idset {
    struct idslot *slot;
    size_t nslots; /* a power of two, at least twice n */
    size_t n;
    struct keyblock *keys; /* the newest block, linked to the older */
};

#define IDSET_FIRST_SLOTS ((size_t) 1024)
#define IDSET_BLOCK ((size_t) 256 << 10) /* bytes of keys per block */

uint64_t jt_str_hash64 (const char *key)
{
    uint64_t h = hash (key);
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h ? h : 1;
}

/* The slot holding key, or the empty one where it would go. */
static size_t idset_find (const jt_idset_t *s, const char *key, uint64_t h)
{
    size_t mask = s->nslots - 1, i = (size_t) h & mask;
    while (s->slot[i].h && (s->slot[i].h != h || strcmp (s->slot[i].key, key)))
        i = (i + 1) & mask;
    return i;
}

/* A zeroed table of n slots. One of 2 MiB or more is aligned to 2 MiB and
 * asks the kernel for huge pages (where transparent huge pages are set to
 * "madvise", as Debian's are): each add's probe lands on a random slot,
 * and with 4 KiB pages each one was also a TLB miss; perf on `jobtree
 * verify` of 1M records: the probe's share 7.8 % with them, 3.4 % with
 * huge pages. */
#define IDSET_HUGE ((size_t) 2 << 20)
static struct idslot *idset_table (size_t n)
{
    size_t bytes = n * sizeof (struct idslot);
    void *p = NULL;

    if (bytes < IDSET_HUGE)
        return calloc (n, sizeof (struct idslot));
    if ((errno = posix_memalign (&p, IDSET_HUGE, bytes)) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    (void) madvise (p, bytes, MADV_HUGEPAGE); /* a hint: without, 4 KiB pages */
#endif
    return memset (p, 0, bytes);
}

jt_idset_t *jt_idset_create (void)
{
    jt_idset_t *s = calloc (1, sizeof (*s));
    if (!s || !(s->slot = idset_table (IDSET_FIRST_SLOTS))) {
        free (s);
        return NULL;
    }
    s->nslots = IDSET_FIRST_SLOTS;
    return s;
}

void jt_idset_destroy (jt_idset_t *s)
{
    if (!s)
        return;
    int saved = errno;
    while (s->keys) {
        struct keyblock *b = s->keys;
        s->keys = b->prev;
        free (b);
    }
    free (s->slot);
    free (s);
    errno = saved;
}

/* Twice the slots, every key moved by its hash alone (its text is not
 * read). -1 on ENOMEM with the set unchanged. */
static int idset_grow (jt_idset_t *s)
{
    if (s->nslots > SIZE_MAX / 2 / sizeof (*s->slot)) {
        errno = ENOMEM;
        return -1;
    }
    size_t nb = s->nslots * 2, mask = nb - 1;
    struct idslot *slot = idset_table (nb);
    if (!slot)
        return -1;
    for (size_t i = 0; i < s->nslots; i++) {
        if (!s->slot[i].h)
            continue;
        size_t j = (size_t) s->slot[i].h & mask;
        while (slot[j].h)
            j = (j + 1) & mask;
        slot[j] = s->slot[i];
    }
    free (s->slot);
    s->slot = slot;
    s->nslots = nb;
    return 0;
}

/* A copy of key (len bytes with its NUL) in the newest block, or in a new
 * one when it has no room (the old one's rest stays unused). */
static const char *idset_keep (jt_idset_t *s, const char *key, size_t len)
{
    struct keyblock *b = s->keys;
    if (!b || b->size - b->used < len) {
        size_t size = len > IDSET_BLOCK ? len : IDSET_BLOCK;
        if (!(b = malloc (sizeof (*b) + size)))
            return NULL;
        b->prev = s->keys;
        b->used = 0;
        b->size = size;
        s->keys = b;
    }
    char *k = b->text + b->used;
    memcpy (k, key, len);
    b->used += len;
    return k;
}

int jt_idset_add (jt_idset_t *s, const char *key)
{
    return jt_idset_add_hashed (s, key, jt_str_hash64 (key));
}

void jt_idset_prefetch (const jt_idset_t *s, uint64_t h)
{
    __builtin_prefetch (&s->slot[(size_t) h & (s->nslots - 1)], 1);
}

int jt_idset_add_hashed (jt_idset_t *s, const char *key, uint64_t h)
{
    size_t i = idset_find (s, key, h);
    if (s->slot[i].h)
        return 0;
    if ((s->n + 1) * 2 > s->nslots) { /* at most half full: short probes */
        if (idset_grow (s) < 0)
            return -1;
        i = idset_find (s, key, h);
    }
    const char *k = idset_keep (s, key, strlen (key) + 1);
    if (!k)
        return -1;
    s->slot[i].h = h;
    s->slot[i].key = k;
    s->n++;
    return 1;
}

int jt_idset_has (const jt_idset_t *s, const char *key)
{
    return s->slot[idset_find (s, key, jt_str_hash64 (key))].h != 0;
}

size_t jt_idset_count (const jt_idset_t *s)
{
    return s->n;
}
