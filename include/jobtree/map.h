/*
 * map.h - a small string-keyed hash map (src/lib/util/map.c): the ledger's
 * event id index, open leases, node owners and envelopes, the snapshot's
 * and the spares' name lookups, the report's groupings and the daemon's id
 * index. Public so the CLI and the daemon need no private header of the
 * library. And a set of strings (jt_idset_t): the fold's every event id,
 * the largest structure of a verify.
 *
 * Keys are copied; values are opaque pointers the caller owns. Insertion
 * order is kept in a FIFO so the map can be bounded (the oldest key is
 * evicted first) and iterated deterministically.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_MAP_H
#define JOBTREE_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct jt_map jt_map_t;

/* max_entries 0: unbounded. NULL on ENOMEM. A bounded map has its
 * buckets for max_entries from the start (up to 2^24 of them; the pages
 * are the kernel's zero pages until used), so that a put never rehashes
 * the whole map: no pause that grows with it (jobtree-ledgerd's index,
 * answering on the ack path). */
jt_map_t *jt_map_create (size_t max_entries);
/* free_val (may be NULL) is called on every remaining value. */
void jt_map_destroy (jt_map_t *m, void (*free_val) (void *));

/* Value for key, or NULL. */
void *jt_map_get (const jt_map_t *m, const char *key);
/* Insert key with val, or replace the value of a key already there.
 * *dropped (if not NULL; else it is dropped unseen) receives the value the
 * map no longer holds, for the caller to free: the key's previous value
 * when it was there (replaced; NULL when that was val itself), or, for a
 * new key into a full map, the oldest entry's (evicted); NULL when neither.
 * Replacing keeps the key's place in the insertion order. 0, or -1 on
 * ENOMEM with the map unchanged and *dropped NULL. */
int jt_map_put (jt_map_t *m, const char *key, void *val, void **dropped);
/* Remove key; returns its value or NULL. */
void *jt_map_remove (jt_map_t *m, const char *key);
size_t jt_map_count (const jt_map_t *m);
/* Call fn on every entry, oldest first (fn must not change the map). */
void jt_map_each (const jt_map_t *m, void (*fn) (const char *key, void *val, void *arg),
                  void *arg);

/* Keys sorted by strcmp (malloc'd array of pointers into the map, valid
 * until the next change). NULL on ENOMEM or when empty (*n = 0). */
const char **jt_map_sorted_keys (const jt_map_t *m, size_t *n);

/* A string's 64-bit hash for open addressing: FNV-1a, then SplitMix64's
 * finalizer, so that its low bits (a table's first) depend on every byte;
 * never 0 (0 marks an empty slot). The id set's, and jobtree-ledgerd's
 * on-disk id table's (ids.c), which stores it: it must not change. */
uint64_t jt_str_hash64 (const char *key);

/* A set of strings, for the one index that holds every event of a ledger
 * (the fold's duplicate-id check: a million entries per million events)
 * and only asks "seen before?". A slot is the key's 64-bit hash and a
 * pointer to its copy, in a flat table probed linearly, so an add touches
 * one cache line of the table, and the key only when the hashes match;
 * keys are packed into large blocks, not allocated one by one, so a
 * million adds are not two million mallocs interleaved with the parse's.
 * No removal, no order, no bound: for those, jt_map_t. */
typedef struct jt_idset jt_idset_t;

/* NULL on ENOMEM. */
jt_idset_t *jt_idset_create (void);
void jt_idset_destroy (jt_idset_t *s);
/* 1 when key was added, 0 when it was there already, -1 on ENOMEM with
 * the set unchanged. */
int jt_idset_add (jt_idset_t *s, const char *key);
/* jt_idset_add with h = jt_str_hash64 (key), computed earlier (on another
 * thread: the reader's parse). */
int jt_idset_add_hashed (jt_idset_t *s, const char *key, uint64_t h);
/* A hint that the key of hash h is about to be added or looked up: its
 * slot is fetched into the cache now, so that the add, a few records
 * later, does not wait for memory (the table of a million ids is far
 * larger than the cache, and each id lands on a random slot). */
void jt_idset_prefetch (const jt_idset_t *s, uint64_t h);
/* Whether key is in the set. */
int jt_idset_has (const jt_idset_t *s, const char *key);
size_t jt_idset_count (const jt_idset_t *s);

#endif /* JOBTREE_MAP_H */
