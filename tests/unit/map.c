/*
 * map.c - unit tests of the string map (jobtree/map.h): what jt_map_put
 * hands back (a replaced value, an evicted one, nothing), that a failure
 * or a replacement keeps the insertion order, and that values freed by the
 * contract alone leave nothing behind (LeakSanitizer in the sanitizer
 * build). And the id set: every key added once is found, a second add of
 * it is refused, through the table's growths, with keys long enough to
 * fill a key block by themselves.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/map.h"
#include "tap.h"

static void cat_key (const char *key, void *val, void *arg)
{
    char *out = arg;
    (void) val;
    snprintf (out + strlen (out), 256 - strlen (out), "%s ", key);
}

/* Keys oldest first, as "a b c ". */
static const char *order (const jt_map_t *m)
{
    static char out[256];
    out[0] = '\0';
    jt_map_each (m, cat_key, out);
    return out;
}

static char *val (const char *s)
{
    char *v = strdup (s);
    if (!v)
        bail_out ("out of memory");
    return v;
}

/* An unbounded map: a replaced value comes back, an unchanged one does not. */
static void test_replace (void)
{
    jt_map_t *m = jt_map_create (0);
    void *old = (void *) 1;
    char *a1 = val ("a1"), *a2 = val ("a2"), *b = val ("b");

    if (!m)
        bail_out ("out of memory");
    ok (jt_map_put (m, "a", a1, &old) == 0 && old == NULL, "a new key hands back nothing");
    ok (jt_map_put (m, "b", b, &old) == 0 && old == NULL, "another new key: nothing");
    ok (jt_map_put (m, "a", a2, &old) == 0 && old == a1,
        "replacing a key's value hands back the value it replaced");
    free (old);
    is (jt_map_get (m, "a"), "a2", "the key now holds the new value");
    is_int (jt_map_count (m), 2, "a replacement adds no entry");
    is (order (m), "a b ", "and keeps the key's place in the insertion order");
    ok (jt_map_put (m, "a", a2, &old) == 0 && old == NULL,
        "putting the value the key holds again hands back nothing (it is still held)");
    is (jt_map_get (m, "a"), "a2", "  and the key still holds it");
    jt_map_destroy (m, free);
}

/* A bounded map: a new key into a full map evicts the oldest. */
static void test_evict (void)
{
    jt_map_t *m = jt_map_create (2);
    void *old = (void *) 1;
    char *x = val ("x"), *y = val ("y"), *y2 = val ("y2"), *z = val ("z");

    if (!m)
        bail_out ("out of memory");
    ok (jt_map_put (m, "x", x, &old) == 0 && old == NULL, "x into an empty map of 2");
    ok (jt_map_put (m, "y", y, &old) == 0 && old == NULL, "y fills it");
    ok (jt_map_put (m, "y", y2, &old) == 0 && old == y,
        "replacing in a full map hands back the replaced value, evicts nothing");
    free (old);
    is (order (m), "x y ", "  both keys still there, in order");
    ok (jt_map_put (m, "z", z, &old) == 0 && old == x,
        "a new key into a full map hands back the oldest entry's value");
    free (old);
    is (order (m), "y z ", "  the oldest key is gone");
    ok (jt_map_get (m, "x") == NULL, "  and not found");
    jt_map_destroy (m, free);
}

/* Many replacements and evictions with every value freed only as the
 * contract hands it back: LeakSanitizer finds any value lost on the way. */
static void test_no_loss (void)
{
    jt_map_t *m = jt_map_create (50);
    int bad = 0;

    if (!m)
        bail_out ("out of memory");
    for (int i = 0; i < 1000; i++) {
        char key[16];
        void *old = NULL;
        snprintf (key, sizeof (key), "k%d", i % 70);
        if (jt_map_put (m, key, val (key), &old) < 0)
            bail_out ("out of memory");
        if (old && strncmp (old, "k", 1))
            bad++;
        free (old);
    }
    is_int (bad, 0, "every value handed back is one the map held");
    is_int (jt_map_count (m), 50, "the bound holds");
    jt_map_destroy (m, free);
}

/* 200,000 ids (the table grows eight times), each added once, then
 * every one again and some never added. */
static void test_idset (void)
{
    jt_idset_t *s = jt_idset_create ();
    char key[64];
    int added = 0, again = 0, found = 0, stray = 0;

    if (!s)
        bail_out ("out of memory");
    ok (jt_idset_count (s) == 0 && !jt_idset_has (s, "v0"), "a new set is empty");
    for (int i = 0; i < 200000; i++) {
        snprintf (key, sizeof (key), "v%d", i);
        added += jt_idset_add (s, key) == 1;
    }
    for (int i = 0; i < 200000; i++) {
        snprintf (key, sizeof (key), "v%d", i);
        found += jt_idset_has (s, key);
        again += jt_idset_add (s, key) == 0;
        snprintf (key, sizeof (key), "w%d", i);
        stray += jt_idset_has (s, key);
    }
    is_int (added, 200000, "every new id is added");
    is_int (found, 200000, "every id added is found");
    is_int (again, 200000, "every second add of an id says it was there");
    is_int (stray, 0, "no id never added is found");
    is_int ((int) jt_idset_count (s), 200000, "the count is the ids added once");
    ok (jt_idset_add (s, "") == 1 && jt_idset_add (s, "") == 0, "the empty id is an id");
    jt_idset_destroy (s);

    /* the hash computed elsewhere (a reader's parse thread), the slot
     * prefetched first: the same set as jt_idset_add's */
    int mixed = 0;
    if (!(s = jt_idset_create ()))
        bail_out ("out of memory");
    for (int i = 0; i < 50000; i++) {
        snprintf (key, sizeof (key), "h%d", i);
        uint64_t h = jt_str_hash64 (key);
        jt_idset_prefetch (s, h);
        mixed += i % 2 ? jt_idset_add_hashed (s, key, h) == 1 : jt_idset_add (s, key) == 1;
    }
    for (int i = 0; i < 50000; i++) {
        snprintf (key, sizeof (key), "h%d", i);
        mixed += (i % 2 ? jt_idset_add (s, key) == 0
                        : jt_idset_add_hashed (s, key, jt_str_hash64 (key)) == 0)
                 && jt_idset_has (s, key);
    }
    is_int (mixed, 100000, "jt_idset_add_hashed and jt_idset_add: one set, either way round");
    jt_idset_destroy (s);
}

/* jobtree-ledgerd's on-disk id table stores jt_str_hash64: a table
 * stamped by one release is read by the next, so its values are pinned
 * (those of ids.c's own FNV-1a and SplitMix64 finalizer, which it
 * replaced). */
static void test_str_hash64 (void)
{
    ok (jt_str_hash64 ("") == UINT64_C (0x552d3fb62b3c344f)
            && jt_str_hash64 ("v0") == UINT64_C (0xd2e9a4d116fd8a54)
            && jt_str_hash64 ("jtc:7:resv:1772366400:activate")
                   == UINT64_C (0x902b3262b74a3a1e),
        "jt_str_hash64: the on-disk id table's values, unchanged");
}

/* Keys larger than a key block (256 KiB) get blocks of their own, between
 * short ones, and are told apart by their last byte. */
static void test_idset_long (void)
{
    size_t len = (size_t) 300 << 10;
    char *a = malloc (len + 1), *b = malloc (len + 1);
    jt_idset_t *s = jt_idset_create ();

    if (!a || !b || !s)
        bail_out ("out of memory");
    memset (a, 'x', len);
    memcpy (b, a, len);
    a[len] = b[len] = '\0';
    a[len - 1] = 'a';
    b[len - 1] = 'b';
    ok (jt_idset_add (s, "short") == 1 && jt_idset_add (s, a) == 1
            && jt_idset_add (s, "after") == 1 && jt_idset_add (s, b) == 1,
        "long keys and short ones are added");
    ok (jt_idset_add (s, a) == 0 && jt_idset_add (s, b) == 0 && jt_idset_has (s, "short")
            && jt_idset_has (s, "after"),
        "each is found again");
    a[len - 1] = 'c';
    ok (!jt_idset_has (s, a), "a long key differing in its last byte is not");
    jt_idset_destroy (s);
    free (a);
    free (b);
}

int main (void)
{
    test_replace ();
    test_evict ();
    test_no_loss ();
    test_idset ();
    test_idset_long ();
    test_str_hash64 ();
    return done_testing ();
}
