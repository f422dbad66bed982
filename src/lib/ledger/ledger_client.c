/*
 * ledger_client.c - the never-blocking client of jobtree-ledgerd (see
 * jobtree/ledger_client.h).
 *
 * DESIGN: submit() only validates, canonicalizes and enqueues under a mutex
 * (no I/O). One background thread owns the socket and the spool:
 *  - spool empty: send the queued events pipelined, read one reply each;
 *    whatever is not settled when the daemon fails or times out goes to
 *    the spool, in order;
 *  - spool not empty: new events are appended behind it (order is kept),
 *    and every retry_ms the whole spool is resent; once every line is
 *    settled the spool is truncated. Resending lines the daemon already has
 *    is harmless: it answers a known event id with its original seq.
 * The socket (ledger_conn.c) is bounded by timeout_ms and never raises
 * SIGPIPE in the host process. A refusal other than INVALID (DENIED: this
 * process may not append; FAIL: the daemon failed closed) keeps the event
 * for the spool and is kept in the stats for the host to log.
 *
 * A full queue (opts.overflow_to_spool): submit still does no I/O; the
 * event goes to an overflow list behind the queue (and so does every later
 * one while the list is not empty, which keeps the order). The thread takes
 * the queue first, then the overflow, and writes any batch holding
 * overflowed events to the spool (fsync'd) instead of sending it: the
 * daemon is not keeping up, and the spool is the one durable place, drained
 * as above. Nothing is dropped; memory beyond queue_max lasts only until
 * the thread's next write. Without the option a full queue refuses
 * (EAGAIN), for callers that prefer to shed load.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobtree/ledger_client.h"
#include "ledger_conn.h"

#define SEND_CHUNK 1024

struct jt_ledger_client {
    char *socket_path;
    char *spool_path;
    int timeout_ms, retry_ms;
    pthread_t th;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t work;     /* queue non-empty or stop */
    pthread_cond_t progress; /* something settled */
    char **q;
    size_t qmax, qhead, qlen;
    bool overflow_to_spool;
    char **ovf; /* overflow behind the queue, oldest first from ovfhead */
    size_t ovfhead, novf, ovfcap;
    bool stop;
    size_t inflight; /* taken from the queue, not settled/spooled */
    uint64_t spool_lines;
    jt_ledger_client_stats_t st;
    /* thread-only */
    int spool_fd;
    jt_ledger_conn_t conn;
};

static int64_t now_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Send n event lines pipelined and read their replies. Returns how many of
 * them (a prefix) are settled: acknowledged or rejected as invalid. */
static size_t send_events (jt_ledger_client_t *c, char *const *ev, size_t n)
{
    size_t total = 0, off = 0, settled = 0;
    char line[JT_LEDGER_REFUSAL_MAX];

    if (n == 0 || jt_ledger_conn_open (&c->conn, c->socket_path, c->timeout_ms) < 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        total += strlen (ev[i]) + 1;
    char *buf = malloc (total);
    if (!buf)
        return 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen (ev[i]);
        memcpy (buf + off, ev[i], l);
        buf[off + l] = '\n';
        off += l + 1;
    }
    (void) jt_ledger_conn_send (&c->conn, buf, total);
    free (buf);
    /* Read replies even after a failed send: the daemon refuses a peer at
     * accept and closes, possibly before our send, and its DENIED line is
     * then waiting in the socket. */
    while (settled < n && jt_ledger_conn_read_line (&c->conn, line, sizeof (line)) == 0) {
        unsigned long long seq;
        bool stop_reading = false;
        pthread_mutex_lock (&c->mu);
        if (sscanf (line, "OK %llu", &seq) == 1) {
            c->st.acked++;
            c->st.last_seq = seq;
        } else {
            /* INVALID settles the event (it can never be recorded); any
             * other refusal (DENIED, FAIL) leaves it to the spool */
            snprintf (c->st.last_refusal, sizeof (c->st.last_refusal), "%s", line);
            if (!strncmp (line, "ERR INVALID", 11))
                c->st.rejected++;
            else {
                c->st.refused++;
                stop_reading = true;
            }
        }
        pthread_cond_broadcast (&c->progress);
        pthread_mutex_unlock (&c->mu);
        if (stop_reading)
            break;
        settled++;
    }
    if (settled < n)
        jt_ledger_conn_close (&c->conn);
    return settled;
}

static int spool_append (jt_ledger_client_t *c, char *const *ev, size_t n)
{
    size_t total = 0, off = 0;
    for (size_t i = 0; i < n; i++)
        total += strlen (ev[i]) + 1;
    char *buf = malloc (total ? total : 1);
    if (!buf)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen (ev[i]);
        memcpy (buf + off, ev[i], l);
        buf[off + l] = '\n';
        off += l + 1;
    }
    off = 0;
    struct stat sb;
    off_t before = fstat (c->spool_fd, &sb) == 0 ? sb.st_size : -1;
    while (off < total) {
        ssize_t k = write (c->spool_fd, buf + off, total - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        off += (size_t) k;
    }
    free (buf);
    if (off < total || fdatasync (c->spool_fd) < 0) {
        if (before >= 0 && ftruncate (c->spool_fd, before) < 0) {
            /* a torn spool line is skipped when the spool is drained */
        }
        return -1;
    }
    return 0;
}

/* Resend the whole spool; truncate it once every line is settled. */
static int drain_spool (jt_ledger_client_t *c)
{
    struct stat sb;
    if (fstat (c->spool_fd, &sb) < 0)
        return -1;
    size_t size = (size_t) sb.st_size;
    char *buf = malloc (size + 1);
    if (!buf)
        return -1;
    size_t got = 0;
    while (got < size) {
        ssize_t k = pread (c->spool_fd, buf + got, size - got, (off_t) got);
        if (k <= 0) {
            free (buf);
            return -1;
        }
        got += (size_t) k;
    }
    char *lines[SEND_CHUNK];
    size_t n = 0, off = 0;
    int rc = 0;
    while (rc == 0) {
        char *nl = off < size ? memchr (buf + off, '\n', size - off) : NULL;
        if (nl) {
            *nl = '\0';
            if (nl > buf + off)
                lines[n++] = buf + off;
            off = (size_t) (nl - buf) + 1;
        }
        if (n == SEND_CHUNK || (!nl && n)) {
            if (send_events (c, lines, n) < n)
                rc = -1;
            n = 0;
        }
        if (!nl)
            break;
    }
    free (buf);
    if (rc < 0)
        return -1;
    /* everything in the file up to size is settled; lines appended later
     * can only come from this thread, so size is the whole spool */
    if (ftruncate (c->spool_fd, 0) < 0 || fdatasync (c->spool_fd) < 0)
        return -1;
    pthread_mutex_lock (&c->mu);
    c->spool_lines = 0;
    pthread_cond_broadcast (&c->progress);
    pthread_mutex_unlock (&c->mu);
    return 0;
}

static void *worker (void *arg)
{
    jt_ledger_client_t *c = arg;
    char *batch[SEND_CHUNK];
    size_t n = 0;
    int64_t next_retry = 0;

    for (;;) {
        pthread_mutex_lock (&c->mu);
        while (n == 0 && c->qlen == 0 && c->novf == 0 && !c->stop
               && !(c->spool_lines && now_ms () >= next_retry)) {
            struct timespec ts;
            clock_gettime (CLOCK_REALTIME, &ts);
            int64_t wait = c->spool_lines ? next_retry - now_ms () : c->retry_ms;
            if (wait < 1)
                wait = 1;
            ts.tv_sec += wait / 1000;
            ts.tv_nsec += (wait % 1000) * 1000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait (&c->work, &c->mu, &ts);
        }
        while (n < SEND_CHUNK && c->qlen) {
            batch[n++] = c->q[c->qhead];
            c->qhead = (c->qhead + 1) % c->qmax;
            c->qlen--;
            c->inflight++;
        }
        /* the overflow is behind the queue: only once the queue is empty */
        bool overflowed = false;
        while (n < SEND_CHUNK && c->qlen == 0 && c->novf) {
            batch[n++] = c->ovf[c->ovfhead++];
            c->novf--;
            c->inflight++;
            overflowed = true;
        }
        if (c->novf == 0)
            c->ovfhead = 0;
        bool stop = c->stop;
        uint64_t spooled = c->spool_lines;
        pthread_mutex_unlock (&c->mu);

        size_t done = 0;
        if (n && !spooled && !stop && !overflowed)
            done = send_events (c, batch, n);
        size_t tospool = n - done;
        if (tospool && spool_append (c, batch + done, tospool) < 0) {
            /* cannot spool either: keep them and retry later, in order */
            for (size_t i = 0; i < done; i++)
                free (batch[i]);
            memmove (batch, batch + done, tospool * sizeof (*batch));
            pthread_mutex_lock (&c->mu);
            c->inflight -= done;
            pthread_cond_broadcast (&c->progress);
            pthread_mutex_unlock (&c->mu);
            n = tospool;
            if (stop)
                break;
            usleep ((useconds_t) c->retry_ms * 1000);
            continue;
        }
        pthread_mutex_lock (&c->mu);
        c->inflight -= n;
        c->spool_lines += tospool;
        c->st.spooled += tospool;
        spooled = c->spool_lines;
        pthread_cond_broadcast (&c->progress);
        pthread_mutex_unlock (&c->mu);
        for (size_t i = 0; i < n; i++)
            free (batch[i]);
        if (tospool && spooled == tospool && !stop)
            next_retry = now_ms () + c->retry_ms; /* the daemon just failed */
        n = 0;
        if (stop) {
            pthread_mutex_lock (&c->mu);
            bool empty = c->qlen == 0 && c->novf == 0;
            pthread_mutex_unlock (&c->mu);
            if (empty)
                break;
            continue;
        }
        if (spooled && now_ms () >= next_retry) {
            if (drain_spool (c) < 0)
                next_retry = now_ms () + c->retry_ms;
        }
    }
    for (size_t i = 0; i < n; i++)
        free (batch[i]);
    return NULL;
}

jt_ledger_client_t *jt_ledger_client_create (const jt_ledger_client_opts_t *o,
                                             jt_error_t *err)
{
    jt_ledger_client_t *c;
    if (!o || !o->socket || !o->spool) {
        errno = EINVAL;
        jt_errprintf (err, "ledger client: socket and spool paths are required");
        return NULL;
    }
    if (!(c = calloc (1, sizeof (*c)))) {
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    c->conn = (jt_ledger_conn_t) JT_LEDGER_CONN_INIT;
    c->spool_fd = -1;
    c->qmax = o->queue_max ? o->queue_max : 65536;
    c->overflow_to_spool = o->overflow_to_spool;
    c->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 5000;
    c->retry_ms = o->retry_ms > 0 ? o->retry_ms : 1000;
    pthread_mutex_init (&c->mu, NULL);
    pthread_cond_init (&c->work, NULL);
    pthread_cond_init (&c->progress, NULL);
    if (!(c->socket_path = strdup (o->socket)) || !(c->spool_path = strdup (o->spool))
        || !(c->q = calloc (c->qmax, sizeof (*c->q)))) {
        jt_errprintf (err, "out of memory");
        goto error;
    }
    c->spool_fd = open (o->spool, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (c->spool_fd < 0) {
        jt_errprintf (err, "spool %s: %s", o->spool, strerror (errno));
        goto error;
    }
    struct stat sb;
    if (fstat (c->spool_fd, &sb) == 0 && sb.st_size > 0)
        c->spool_lines = 1; /* exact count unknown: drain it first */
    int e = pthread_create (&c->th, NULL, worker, c);
    if (e) {
        errno = e;
        jt_errprintf (err, "ledger client thread: %s", strerror (e));
        goto error;
    }
    c->started = true;
    return c;
error:
    jt_ledger_client_destroy (c);
    return NULL;
}

void jt_ledger_client_destroy (jt_ledger_client_t *c)
{
    if (!c)
        return;
    int saved = errno;
    if (c->started) {
        pthread_mutex_lock (&c->mu);
        c->stop = true;
        pthread_cond_broadcast (&c->work);
        pthread_mutex_unlock (&c->mu);
        pthread_join (c->th, NULL);
    }
    for (size_t i = 0; c->q && i < c->qlen; i++)
        free (c->q[(c->qhead + i) % c->qmax]);
    free (c->q);
    for (size_t i = 0; i < c->novf; i++)
        free (c->ovf[c->ovfhead + i]);
    free (c->ovf);
    jt_ledger_conn_free (&c->conn);
    if (c->spool_fd >= 0)
        close (c->spool_fd);
    free (c->socket_path);
    free (c->spool_path);
    pthread_mutex_destroy (&c->mu);
    pthread_cond_destroy (&c->work);
    pthread_cond_destroy (&c->progress);
    free (c);
    errno = saved;
}

/* Put canon behind the queue, in the overflow (c->mu held). 0, or -1 on
 * ENOMEM. */
static int overflow (jt_ledger_client_t *c, char *canon)
{
    if (c->ovfhead + c->novf == c->ovfcap) {
        if (c->ovfhead > 0) { /* reuse the room the thread took */
            memmove (c->ovf, c->ovf + c->ovfhead, c->novf * sizeof (*c->ovf));
            c->ovfhead = 0;
        } else {
            size_t cap = c->ovfcap ? 2 * c->ovfcap : 1024;
            char **v = realloc (c->ovf, cap * sizeof (*v));
            if (!v)
                return -1;
            c->ovf = v;
            c->ovfcap = cap;
        }
    }
    c->ovf[c->ovfhead + c->novf++] = canon;
    return 0;
}

static int enqueue (jt_ledger_client_t *c, char *canon, jt_error_t *err)
{
    pthread_mutex_lock (&c->mu);
    if (c->overflow_to_spool && (c->qlen == c->qmax || c->novf)) {
        if (overflow (c, canon) < 0) {
            pthread_mutex_unlock (&c->mu);
            free (canon);
            errno = ENOMEM;
            return jt_errprintf (err, "out of memory");
        }
        c->st.full++;
        c->st.submitted++;
        pthread_cond_signal (&c->work);
        pthread_mutex_unlock (&c->mu);
        return 0;
    }
    if (c->qlen == c->qmax) {
        c->st.full++;
        pthread_mutex_unlock (&c->mu);
        free (canon);
        errno = EAGAIN;
        return jt_errprintf (err, "ledger client queue full (%zu events)", c->qmax);
    }
    c->q[(c->qhead + c->qlen) % c->qmax] = canon;
    c->qlen++;
    c->st.submitted++;
    pthread_cond_signal (&c->work);
    pthread_mutex_unlock (&c->mu);
    return 0;
}

int jt_ledger_client_submit_event (jt_ledger_client_t *c, const jt_event_t *ev,
                                   jt_error_t *err)
{
    char *canon = jt_event_to_json (ev, err);
    if (!canon) {
        errno = EINVAL;
        return -1;
    }
    return enqueue (c, canon, err);
}

int jt_ledger_client_submit (jt_ledger_client_t *c, const char *json, size_t len,
                             jt_error_t *err)
{
    jt_event_t *ev = jt_event_from_json (json, len, err);
    if (!ev) {
        errno = EINVAL;
        return -1;
    }
    int rc = jt_ledger_client_submit_event (c, ev, err);
    jt_event_destroy (ev);
    return rc;
}

int jt_ledger_client_flush (jt_ledger_client_t *c, int timeout_ms)
{
    int64_t deadline = now_ms () + timeout_ms;
    pthread_mutex_lock (&c->mu);
    while (c->qlen || c->novf || c->inflight || c->spool_lines) {
        int64_t left = deadline - now_ms ();
        if (left <= 0) {
            pthread_mutex_unlock (&c->mu);
            errno = ETIMEDOUT;
            return -1;
        }
        if (left > 50)
            left = 50;
        struct timespec ts;
        clock_gettime (CLOCK_REALTIME, &ts);
        ts.tv_nsec += left * 1000000;
        while (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait (&c->progress, &c->mu, &ts);
    }
    pthread_mutex_unlock (&c->mu);
    return 0;
}

void jt_ledger_client_stats (jt_ledger_client_t *c, jt_ledger_client_stats_t *st)
{
    pthread_mutex_lock (&c->mu);
    *st = c->st;
    st->pending = c->qlen + c->novf + c->inflight + c->spool_lines;
    pthread_mutex_unlock (&c->mu);
}
