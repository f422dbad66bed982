/*
 * map.h - a small string-keyed hash map (src/lib/util/map.c): the ledger's
 * event id index, open leases, node owners and envelopes, the snapshot's
 * and the spares' name lookups, the report's groupings and the daemon's id
 * index. Public so the CLI and the daemon need no private header of the
 * library.
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

#endif /* JOBTREE_MAP_H */
