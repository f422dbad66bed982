/*
 * commit.h - jobtree-ledgerd's commit thread (commit.c): one group's
 * append at a time, written and synced while the serving loop goes on.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_LEDGERD_COMMIT_H
#define JT_LEDGERD_COMMIT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobtree/ledger.h"
#include "latency.h"

struct ledgerd_commit {
    jt_ledger_writer_t *w;
    pthread_t th;
    bool threaded; /* false: submit appends in place */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int pipe[2]; /* a byte when a group is done: pipe[0] is polled */
    int delay_ms; /* JT_LEDGERD_TEST_COMMIT_DELAY_MS */
    bool busy;    /* the serving thread's: submitted, not collected */
    /* under mu */
    bool job, done, stop;
    /* the group: the loop's until collected */
    const char *const *p;
    const size_t *lens;
    size_t n;
    uint64_t *offs;
    /* its result */
    int rc;
    uint64_t first;
    jt_error_t err;
    /* each group's write + fdatasync, in seconds: the thread's while a
     * group is in flight, the loop's between collect and the next submit */
    struct ledgerd_lat sync;
};

/* Start the thread for writer w (signals blocked in it). 0, or -1 with
 * errbuf (a bad test variable, no pipe); a thread that cannot be created
 * leaves submit appending in place. */
int ledgerd_commit_start (struct ledgerd_commit *c, jt_ledger_writer_t *w, char *errbuf,
                          size_t errlen);
/* Hand over one group of n canonical payloads (kept by the caller, like
 * p, lens and offs, until collected): jt_ledger_writer_append_at. One
 * group at a time. */
void ledgerd_commit_submit (struct ledgerd_commit *c, const char *const *p,
                            const size_t *lens, size_t n, uint64_t *offs);
/* Whether the group submitted is done (collect will not wait). */
bool ledgerd_commit_ready (struct ledgerd_commit *c);
/* Wait for the group submitted: the append's return, *first and *err;
 * the writer is the caller's again. */
int ledgerd_commit_collect (struct ledgerd_commit *c, uint64_t *first, jt_error_t *err);
/* Collect what is in flight (its result dropped) and end the thread. */
void ledgerd_commit_stop (struct ledgerd_commit *c);

#endif /* JT_LEDGERD_COMMIT_H */
