/*
 * canon.h - jobtree-ledgerd's request lines made canonical events
 * (canon.c), on the serving thread and a helper beside it.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_LEDGERD_CANON_H
#define JT_LEDGERD_CANON_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobtree/ledger.h"

struct client;

/* A request line of a round and what canonicalizing it gave (pure: done
 * on any thread): the canonical event and its id key, or the error. */
struct ledgerd_line {
    struct client *c;
    const char *text;
    size_t len;
    bool head;
    char *canon, *key;
    jt_event_t *ev;
    char err[256];
};

/* The helper: one thread that takes lines of a round beside the serving
 * thread, the next line not yet taken each (an atomic counter), so that
 * a round of any size uses both cores and ends when its last line does. */
struct ledgerd_canon {
    pthread_t th;
    bool threaded;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct ledgerd_line *v;
    size_t n;
    uint64_t next; /* __atomic: the round (high half), the next line to take */
    size_t done;   /* __atomic: lines of the round done */
    uint64_t gen;  /* under mu: the round */
    bool stop;
};

/* Start the helper (signals blocked in it); without one, rounds are done
 * on the calling thread alone. */
void ledgerd_canon_start (struct ledgerd_canon *k);
/* Canonicalize v[0..n), on the helper too when it has more than a few. */
void ledgerd_canon_all (struct ledgerd_canon *k, struct ledgerd_line *v, size_t n);
void ledgerd_canon_stop (struct ledgerd_canon *k);

#endif /* JT_LEDGERD_CANON_H */
