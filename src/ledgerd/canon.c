/*
 * canon.c - jobtree-ledgerd's request lines made canonical events: parse
 * (json-c), the canonical check, the canonical text and its id key. This
 * is most of the daemon's work per event, and it depends on nothing but
 * the line, so it runs on the serving thread and a helper at once; the
 * order-dependent part (resends, who pays) stays in server.c's take_line.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/libc_tune.h"

#include "canon.h"
#include "ledgerd.h"

/* Rounds from this many lines on are shared with the helper (waking it
 * costs a few microseconds; a line about ten). */
#define PAR_MIN_LINES 4

static void canonicalize (struct ledgerd_line *l)
{
    jt_error_t err = { "" };
    if (l->len == 4 && !memcmp (l->text, "HEAD", 4)) {
        l->head = true;
        return;
    }
    bool canonical = false;
    jt_event_t *ev = jt_event_from_json_canon (l->text, l->len, &canonical, &err);
    if (ev && ev->type == JT_EV_CHECKPOINT) {
        snprintf (err.text, sizeof (err.text),
                  "type: Checkpoint records are written by jobtree-ledgerd only");
        jt_event_destroy (ev);
        ev = NULL;
    }
    if (ev && canonical) { /* what the client library sends: kept as it came */
        if (!(l->canon = strndup (l->text, l->len)))
            snprintf (err.text, sizeof (err.text), "out of memory");
    } else
        l->canon = ev ? jt_event_to_json (ev, &err) : NULL;
    l->ev = ev;
    l->key = l->canon ? ledgerd_id_key (l->canon, strlen (l->canon)) : NULL;
    if (!l->canon || !l->key) {
        snprintf (l->err, sizeof (l->err), "%s", l->canon ? "out of memory" : err.text);
        free (l->canon);
        free (l->key);
        l->canon = l->key = NULL;
        jt_event_destroy (l->ev);
        l->ev = NULL;
    }
}


/* Take the lines of round gen not yet taken, one at a time: next holds
 * the round in its high half, so that a helper woken late (its round
 * already done by the serving thread) takes nothing of a later one. */
static void take_lines (struct ledgerd_canon *k, uint64_t gen, struct ledgerd_line *v,
                        size_t n)
{
    uint64_t x = __atomic_load_n (&k->next, __ATOMIC_ACQUIRE);
    for (;;) {
        if (x >> 32 != (gen & 0xffffffffu) || (x & 0xffffffffu) >= n)
            return;
        if (!__atomic_compare_exchange_n (&k->next, &x, x + 1, false, __ATOMIC_ACQ_REL,
                                          __ATOMIC_ACQUIRE))
            continue; /* x: what the other took meanwhile */
        canonicalize (&v[x & 0xffffffffu]);
        __atomic_fetch_add (&k->done, 1, __ATOMIC_RELEASE);
        x = __atomic_load_n (&k->next, __ATOMIC_ACQUIRE);
    }
}

static void *canon_thread (void *arg)
{
    struct ledgerd_canon *k = arg;
    uint64_t seen = 0;
    jt_locale_c_thread (); /* json-c's parse: no locale copy under glibc's lock */
    pthread_mutex_lock (&k->mu);
    for (;;) {
        while (k->gen == seen && !k->stop)
            pthread_cond_wait (&k->cv, &k->mu);
        if (k->stop)
            break;
        seen = k->gen;
        struct ledgerd_line *v = k->v;
        size_t n = k->n;
        pthread_mutex_unlock (&k->mu);
        take_lines (k, seen, v, n);
        pthread_mutex_lock (&k->mu);
    }
    pthread_mutex_unlock (&k->mu);
    return NULL;
}

void ledgerd_canon_start (struct ledgerd_canon *k)
{
    memset (k, 0, sizeof (*k));
    pthread_mutex_init (&k->mu, NULL);
    pthread_cond_init (&k->cv, NULL);
    k->threaded = ledgerd_thread_start (&k->th, canon_thread, k);
    if (!k->threaded)
        log_msg ("no helper thread: requests are canonicalized on one core");
}

void ledgerd_canon_all (struct ledgerd_canon *k, struct ledgerd_line *v, size_t n)
{
    if (!k->threaded || n < PAR_MIN_LINES || n > 0xffffffffu) {
        for (size_t i = 0; i < n; i++)
            canonicalize (&v[i]);
        return;
    }
    pthread_mutex_lock (&k->mu);
    k->v = v;
    k->n = n;
    uint64_t gen = ++k->gen;
    __atomic_store_n (&k->done, 0, __ATOMIC_RELAXED);
    __atomic_store_n (&k->next, (gen & 0xffffffffu) << 32, __ATOMIC_RELEASE);
    pthread_cond_signal (&k->cv);
    pthread_mutex_unlock (&k->mu);
    take_lines (k, gen, v, n);
    /* the lines the helper took: at most the one it is on */
    while (__atomic_load_n (&k->done, __ATOMIC_ACQUIRE) < n)
        sched_yield ();
}

void ledgerd_canon_stop (struct ledgerd_canon *k)
{
    if (!k->threaded)
        return;
    pthread_mutex_lock (&k->mu);
    k->stop = true;
    pthread_cond_broadcast (&k->cv);
    pthread_mutex_unlock (&k->mu);
    pthread_join (k->th, NULL);
    k->threaded = false;
    pthread_mutex_destroy (&k->mu);
    pthread_cond_destroy (&k->cv);
}
