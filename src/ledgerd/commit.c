/*
 * commit.c - jobtree-ledgerd's commit thread: the writer's append (format,
 * hash, write, fdatasync, fence checks) of one group at a time, off the
 * serving thread, so that the loop gathers and canonicalizes the next group
 * while this one is written and synced.
 *
 * The writer belongs to this thread from ledgerd_commit_submit until
 * ledgerd_commit_collect returns; in between the serving thread neither
 * reads nor changes it (nor the payloads it handed over). The thread
 * writes a byte to a pipe when a group is done, which the loop polls; it
 * never logs (the log may be reopened meanwhile): the result says how it
 * went. Without a thread (pthread_create failed) the append runs inside
 * submit, as before the thread existed.
 *
 * Each append's time (write and fdatasync: the disk's part of an ack) is
 * counted in c->sync, which the loop reads and resets between groups
 * (server.c's latency line).
 *
 * JT_LEDGERD_TEST_COMMIT_DELAY_MS (tests only, 0..10000): the thread
 * sleeps that long before each append, so that a test can resend an id
 * while its group is being synced.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commit.h"
#include "ledgerd.h"

static void run_job (struct ledgerd_commit *c)
{
    if (c->delay_ms) {
        struct timespec ts = { c->delay_ms / 1000, (long) (c->delay_ms % 1000) * 1000000L };
        while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
            ;
    }
    struct timespec t0, t1;
    c->err = (jt_error_t){ "" };
    c->first = 0;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    c->rc = jt_ledger_writer_append_at (c->w, c->p, c->lens, c->n, &c->first, c->offs,
                                        &c->err);
    clock_gettime (CLOCK_MONOTONIC, &t1);
    ledgerd_lat_add (&c->sync, (double) (t1.tv_sec - t0.tv_sec)
                                   + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9);
}

static void notify (struct ledgerd_commit *c)
{
    char b = 1;
    while (write (c->pipe[1], &b, 1) < 0 && errno == EINTR)
        ;
}

static void *commit_thread (void *arg)
{
    struct ledgerd_commit *c = arg;
    pthread_mutex_lock (&c->mu);
    for (;;) {
        while (!c->job && !c->stop)
            pthread_cond_wait (&c->cv, &c->mu);
        if (c->stop)
            break;
        pthread_mutex_unlock (&c->mu);
        run_job (c);
        pthread_mutex_lock (&c->mu);
        c->job = false;
        c->done = true;
        pthread_cond_broadcast (&c->cv);
        notify (c);
    }
    pthread_mutex_unlock (&c->mu);
    return NULL;
}

int ledgerd_commit_start (struct ledgerd_commit *c, jt_ledger_writer_t *w, char *errbuf,
                          size_t errlen)
{
    const char *d = getenv ("JT_LEDGERD_TEST_COMMIT_DELAY_MS");

    memset (c, 0, sizeof (*c));
    c->w = w;
    c->pipe[0] = c->pipe[1] = -1;
    if (d) {
        char *end;
        long v = strtol (d, &end, 10);
        if (*end || v < 0 || v > 10000) {
            snprintf (errbuf, errlen, "JT_LEDGERD_TEST_COMMIT_DELAY_MS: not in 0..10000: %s",
                      d);
            return -1;
        }
        c->delay_ms = (int) v;
    }
    if (pipe2 (c->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
        snprintf (errbuf, errlen, "pipe: %s", strerror (errno));
        return -1;
    }
    pthread_mutex_init (&c->mu, NULL);
    pthread_cond_init (&c->cv, NULL);
    c->threaded = ledgerd_thread_start (&c->th, commit_thread, c);
    return 0;
}

void ledgerd_commit_submit (struct ledgerd_commit *c, const char *const *p,
                            const size_t *lens, size_t n, uint64_t *offs)
{
    c->p = p;
    c->lens = lens;
    c->n = n;
    c->offs = offs;
    c->busy = true;
    if (!c->threaded) {
        run_job (c);
        c->done = true;
        notify (c);
        return;
    }
    pthread_mutex_lock (&c->mu);
    c->done = false;
    c->job = true;
    pthread_cond_signal (&c->cv);
    pthread_mutex_unlock (&c->mu);
}

bool ledgerd_commit_ready (struct ledgerd_commit *c)
{
    if (!c->busy)
        return false;
    pthread_mutex_lock (&c->mu);
    bool d = c->done;
    pthread_mutex_unlock (&c->mu);
    return d;
}

int ledgerd_commit_collect (struct ledgerd_commit *c, uint64_t *first, jt_error_t *err)
{
    char b[64];
    pthread_mutex_lock (&c->mu);
    while (!c->done)
        pthread_cond_wait (&c->cv, &c->mu);
    c->done = false;
    pthread_mutex_unlock (&c->mu);
    while (read (c->pipe[0], b, sizeof (b)) > 0)
        ;
    c->busy = false;
    *first = c->first;
    *err = c->err;
    return c->rc;
}

void ledgerd_commit_stop (struct ledgerd_commit *c)
{
    uint64_t first;
    jt_error_t err;
    if (c->pipe[0] < 0)
        return;
    if (c->busy)
        (void) ledgerd_commit_collect (c, &first, &err);
    if (c->threaded) {
        pthread_mutex_lock (&c->mu);
        c->stop = true;
        pthread_cond_signal (&c->cv);
        pthread_mutex_unlock (&c->mu);
        pthread_join (c->th, NULL);
    }
    pthread_mutex_destroy (&c->mu);
    pthread_cond_destroy (&c->cv);
    close (c->pipe[0]);
    close (c->pipe[1]);
    c->pipe[0] = c->pipe[1] = -1;
}
