/*
 * bench_ledger.c - `make bench`: the ledger against SQLite (WAL mode,
 * synchronous=FULL) on the same events, in the same run:
 *
 *  1. sustained durable appends/s: K concurrent clients, each pipelining up
 *     to W events to a real jobtree-ledgerd (group commit), vs K threads
 *     each committing one INSERT per event (each commit durable);
 *     with each client's acknowledgement latency (send of a window of W to
 *     its last "OK"; p50/p99 over every window of every client); then the
 *     same clients paced at a fixed offered rate, each window sent at its
 *     due time and its latency counted from that time, beside the
 *     group-commit floor at that rate (gc_floor: the same windows appended
 *     and synced in groups by one thread doing nothing else, right after);
 *  2. read and fold N events: the record layer alone (grammar, hashes,
 *     chain: jt_ledger_read without a callback, sequential and with the
 *     parallel hash check), the replay slurmctld does at start-up
 *     (jt_ledger_fold_replay_dir: + parse and fold), and verify
 *     (jt_ledger_verify: + canonical form and every invariant, in process,
 *     and `jobtree verify` as a subprocess) vs SELECT every row, parse and
 *     fold;
 *  3. usage report over N events (`jobtree report usage`, a subprocess) vs
 *     the same GPU-hours per owner/envelope/role as one SQL query (Start
 *     joined to End on the lease id, indexed);
 *  4. restart with H events of history: a ledger written as jobtree-ledgerd
 *     writes it (a checkpoint every 50000 records, 64 MiB segments), read
 *     as slurmctld's start-up does (jt_ledger_fold_replay_dir_ckpt: the
 *     last checkpoint's state and the tail), against the full replay of the
 *     same ledger in the same run;
 *  5. reports from checkpoints: `jobtree report usage` over the last day
 *     and over all of a ledger of H events with checkpoints, as it reads
 *     by default (from the checkpoint at or before the window, or the last
 *     checkpoint's totals) and with --full-replay, the outputs compared;
 *     vs the same sums as SQL over the same H events in SQLite (loaded
 *     beside the ledger, the table of phases 1-3 and three indexes, see
 *     build_reports_db; all time: phase 3's join, open leases up to --now;
 *     last day: the Ends in the window and the open leases, clipped to
 *     it), the rows and totals checked against jobtree's;
 *  6. the making of a checkpoint (on jobtree-ledgerd's serving thread)
 *     with JT_BENCH_OPEN (4096) leases open that stay open, as on a
 *     cluster whose jobs run for hours: the daemon's jt_ckpt_payloads,
 *     which keeps each open lease's text, the first time and again, vs
 *     jt_ckpt_state_text, which makes every entry afresh as all
 *     checkpoints did before.
 *
 * Sizes: N = 1000000 events (5-6 minutes in all on the 2-vCPU build VM at
 * load 7-9, before phase 5's SQLite load: about 25 s more at H = 1M),
 * JT_BENCH_EVENTS=N to change it;
 * JT_BENCH_CLIENTS (8), JT_BENCH_SECONDS (3), JT_BENCH_WINDOW (32: events
 * a client sends before it waits for their acks; each run of clients has a
 * daemon of its own, whose latency line at its stop is printed as "its
 * log": the disk's part of its acks beside the whole) for the append
 * phase, and
 * JT_BENCH_CKPT_EVERY (the daemon's --checkpoint-every, 50000; 0: off),
 * JT_BENCH_RATE (events/s offered in all by the paced run, 34600: the
 * throughput issue 35 started from; 0: no paced run);
 * JT_BENCH_DIR (default ./bench-ledger.tmp, i.e. the build directory's
 * disk, not a tmpfs); JT_BENCH_HISTORY=H (default 1000000) for the
 * restart and the reports (JT_BENCH_NO_FULL: the reports without the full
 * replay, for a long history); JT_BENCH_REUSE (keep JT_BENCH_DIR and reuse
 * a history, and the reports' SQLite database, of the same length built
 * there before);
 * JT_BENCH_ONLY=appends,replay,restart,reports,checkpoint
 * runs only those phases
 * (replay: the phases 2 and 3). Run from the top build directory.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobtree/ledger.h"
#include "jobtree/ledger_checkpoint.h"
#include "ledger_record.h"
#include "bench_gen.h"

static char dir[512];
static const int64_t T0 = BENCH_T0;

static double now_s (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* CPU seconds of this process and of its waited-for children: on a
 * shared machine wall time measures the load as much as the code. */
static double cpu_s (void)
{
    struct rusage a, b;
    getrusage (RUSAGE_SELF, &a);
    getrusage (RUSAGE_CHILDREN, &b);
    return (double) (a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec
                     + b.ru_stime.tv_sec)
           + (double) (a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec
                       + b.ru_stime.tv_usec)
                 / 1e6;
}

static double cpu_last; /* CPU seconds of the last timed phase */

static void die (const char *what)
{
    fprintf (stderr, "bench_ledger: %s: %s\n", what, strerror (errno));
    exit (1);
}

/* json-c's parse of one generated event, seconds per record: the floor
 * of any path that reads an event (issue 35). One tokener reused, as the
 * read paths do; the best of 5 passes over 20,000 events held in memory,
 * timed around the parses only. */
static double parse_floor (void)
{
    enum { N = 20000 };
    char *buf = malloc ((size_t) N * 512);
    size_t *off = malloc ((N + 1) * sizeof (*off));
    json_tokener *tok = json_tokener_new ();
    double best = 0;
    if (!buf || !off || !tok)
        die ("parse floor");
    json_tokener_set_flags (tok, JSON_TOKENER_STRICT);
    off[0] = 0;
    for (uint64_t i = 0; i < N; i++)
        off[i + 1] = off[i] + (size_t) bench_lease_event (i, "f-", buf + off[i], 512);
    for (int pass = 0; pass < 5; pass++) {
        double t0 = now_s ();
        for (size_t i = 0; i < N; i++) {
            json_tokener_reset (tok);
            json_object *o = json_tokener_parse_ex (tok, buf + off[i], (int) (off[i + 1] - off[i]));
            if (!o)
                die ("parse floor: json-c refused a generated event");
            json_object_put (o);
        }
        double t = (now_s () - t0) / N;
        if (!pass || t < best)
            best = t;
    }
    json_tokener_free (tok);
    free (off);
    free (buf);
    return best;
}

static double pfloor; /* parse_floor (), seconds a record */

/* ---- 1. sustained appends ---- */

struct appender {
    const char *sock;
    int id;
    char tag;      /* the events' id prefix: one per run on one daemon */
    double period; /* paced: seconds from one window's due time to the next
                      (0: closed loop, the next window sent at the last ack) */
    double due;    /* paced: the next window's due time */
    double until;
    uint64_t acked;
    sqlite3 *db;
    double *lat; /* seconds from a send to its last acknowledgement */
    size_t nlat, latcap;
};

static void lat_add (struct appender *a, double dt)
{
    if (a->nlat == a->latcap) {
        size_t nc = a->latcap ? 2 * a->latcap : 4096;
        double *nv = realloc (a->lat, nc * sizeof (*nv));
        if (!nv)
            return;
        a->lat = nv;
        a->latcap = nc;
    }
    a->lat[a->nlat++] = dt;
}

static int cmp_double (const void *x, const void *y)
{
    double a = *(const double *) x, b = *(const double *) y;
    return a < b ? -1 : a > b;
}

/* p50 and p99 (ms) of every client's latencies; frees them. */
static void lat_pct (struct appender *a, int clients, double *p50, double *p99)
{
    size_t n = 0;
    for (int i = 0; i < clients; i++)
        n += a[i].nlat;
    double *all = malloc ((n ? n : 1) * sizeof (*all));
    size_t k = 0;
    for (int i = 0; i < clients; i++) {
        if (all && a[i].nlat)
            memcpy (all + k, a[i].lat, a[i].nlat * sizeof (*all));
        k += a[i].nlat;
        free (a[i].lat);
        a[i].lat = NULL;
        a[i].nlat = a[i].latcap = 0;
    }
    *p50 = *p99 = 0;
    if (all && n) {
        qsort (all, n, sizeof (*all), cmp_double);
        *p50 = all[n / 2] * 1e3;
        *p99 = all[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1] * 1e3;
    }
    free (all);
}

static int connect_sock (const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf (sa.sun_path, sizeof (sa.sun_path), "%s", path);
    int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect (fd, (struct sockaddr *) &sa, sizeof (sa)) == 0)
        return fd;
    if (fd >= 0)
        close (fd);
    return -1;
}

static int W = 32; /* JT_BENCH_WINDOW: events a client sends before its acks */

static void *append_ledger (void *arg)
{
    struct appender *a = arg;
    int fd = connect_sock (a->sock);
    size_t outcap = (size_t) W * 512;
    char *out = malloc (outcap), in[8192], prefix[32];
    size_t inlen = 0;
    uint64_t i = 0;
    snprintf (prefix, sizeof (prefix), "%c%d-", a->tag, a->id);
    while (out && fd >= 0 && now_s () < a->until) {
        size_t off = 0;
        for (int k = 0; k < W; k++) {
            off += (size_t) bench_lease_event (i++, prefix, out + off, outcap - off - 1);
            out[off++] = '\n';
        }
        double sent = now_s ();
        if (a->period > 0) { /* paced: latency counts from the due time, so a
                              * client that fell behind counts its lag too */
            if (a->due > sent) {
                struct timespec ts = { .tv_sec = (time_t) a->due,
                                       .tv_nsec = (long) ((a->due - (double) (time_t) a->due)
                                                          * 1e9) };
                while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                    ;
            }
            sent = a->due;
            a->due += a->period;
        }
        if (send (fd, out, off, MSG_NOSIGNAL) != (ssize_t) off)
            break;
        int got = 0;
        while (got < W) {
            ssize_t n = recv (fd, in + inlen, sizeof (in) - inlen, 0);
            if (n <= 0)
                goto done;
            inlen += (size_t) n;
            char *p = in, *nl;
            while ((nl = memchr (p, '\n', inlen - (size_t) (p - in)))) {
                if (strncmp (p, "OK ", 3)) {
                    fprintf (stderr, "bench_ledger: daemon said %.*s\n", (int) (nl - p),
                             p);
                    goto done;
                }
                got++;
                p = nl + 1;
            }
            inlen -= (size_t) (p - in);
            memmove (in, p, inlen);
        }
        a->acked += W;
        lat_add (a, now_s () - sent);
    }
done:
    if (fd >= 0)
        close (fd);
    free (out);
    return NULL;
}

/* The floor of any durable acknowledgement on this disk: FLOOR_SYNCS
 * rounds of a write of one window's records (W x 391 bytes) and its
 * fdatasync, in the bench directory. p50 and p99 in ms. With 200 rounds
 * the p99 was the second slowest sync, and it ranged from 0.48 to 1.76 ms
 * between runs minutes apart, and the ack target with it; 2000 (under a
 * second) puts it on twenty. */
#define FLOOR_SYNCS 2000
static void fsync_floor (double *p50, double *p99)
{
    char path[600];
    size_t len = (size_t) W * 391;
    char *buf = calloc (1, len);
    struct appender a = { 0 };
    snprintf (path, sizeof (path), "%s/fsync.probe", dir);
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    for (int i = 0; buf && fd >= 0 && i < FLOOR_SYNCS; i++) {
        double t = now_s ();
        if (write (fd, buf, len) != (ssize_t) len || fdatasync (fd) < 0)
            die ("fsync probe");
        lat_add (&a, now_s () - t);
    }
    if (fd >= 0)
        close (fd);
    unlink (path);
    free (buf);
    lat_pct (&a, 1, p50, p99);
}

/* The floor of a group commit at the paced load: the windows the paced
 * clients offer (one every W / rate seconds in all, as their staggered
 * schedules add up), each W x 391 bytes, appended to one file by one
 * thread that writes every window waiting and syncs them together, as
 * jobtree-ledgerd's commit thread does, and nothing else: no socket, no
 * parse, no hash. A window's latency runs from its due time to the sync
 * that made it durable. What any daemon committing groups to one file on
 * this disk at this load waits at least; the fdatasync floor above has
 * no queue (a window that arrives during a sync waits for it). */
struct gc_floor {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    double *due;           /* every window's due time */
    size_t n, taken, cap;  /* offered, handed to the committer, room */
    bool stop;
    int fd;
    char *buf;             /* up to 64 windows, written in one go */
    struct appender lat;
};

static void *gc_commit (void *arg)
{
    struct gc_floor *g = arg;
    size_t len = (size_t) W * 391;
    pthread_mutex_lock (&g->mu);
    for (;;) {
        while (g->taken == g->n && !g->stop)
            pthread_cond_wait (&g->cv, &g->mu);
        if (g->taken == g->n)
            break;
        size_t from = g->taken, to = g->n;
        g->taken = to;
        pthread_mutex_unlock (&g->mu);
        for (size_t k = from; k < to; k += 64) {
            size_t m = to - k < 64 ? to - k : 64;
            if (write (g->fd, g->buf, m * len) != (ssize_t) (m * len))
                die ("group-commit floor: write");
        }
        if (fdatasync (g->fd) < 0)
            die ("group-commit floor: fdatasync");
        double t = now_s ();
        pthread_mutex_lock (&g->mu);
        for (size_t k = from; k < to; k++)
            lat_add (&g->lat, t - g->due[k]);
    }
    pthread_mutex_unlock (&g->mu);
    return NULL;
}

static void gc_floor (double rate, double secs, double *p50, double *p99)
{
    char path[600];
    struct gc_floor g = { .fd = -1 };
    pthread_t th;
    double gap = (double) W / rate, t0 = now_s () + 0.01, due = t0;

    snprintf (path, sizeof (path), "%s/gc.probe", dir);
    g.cap = (size_t) (secs / gap) + 2;
    g.due = calloc (g.cap, sizeof (*g.due));
    g.buf = calloc (64, (size_t) W * 391);
    g.fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (!g.due || !g.buf || g.fd < 0)
        die ("group-commit floor");
    pthread_mutex_init (&g.mu, NULL);
    pthread_cond_init (&g.cv, NULL);
    if (pthread_create (&th, NULL, gc_commit, &g) != 0)
        die ("group-commit floor: pthread_create");
    while (due < t0 + secs && g.n < g.cap) {
        double left = due - now_s ();
        if (left > 0) {
            struct timespec ts = { (time_t) left, (long) ((left - (double) (time_t) left) * 1e9) };
            nanosleep (&ts, NULL);
        }
        pthread_mutex_lock (&g.mu);
        g.due[g.n++] = due;
        pthread_cond_signal (&g.cv);
        pthread_mutex_unlock (&g.mu);
        due += gap;
    }
    pthread_mutex_lock (&g.mu);
    g.stop = true;
    pthread_cond_signal (&g.cv);
    pthread_mutex_unlock (&g.mu);
    pthread_join (th, NULL);
    close (g.fd);
    unlink (path);
    lat_pct (&g.lat, 1, p50, p99);
    pthread_cond_destroy (&g.cv);
    pthread_mutex_destroy (&g.mu);
    free (g.due);
    free (g.buf);
}

static void sql (sqlite3 *db, const char *q)
{
    char *err = NULL;
    if (sqlite3_exec (db, q, NULL, NULL, &err) != SQLITE_OK) {
        fprintf (stderr, "bench_ledger: sqlite: %s: %s\n", q, err);
        exit (1);
    }
}

static sqlite3 *open_db (const char *path)
{
    sqlite3 *db;
    if (sqlite3_open (path, &db) != SQLITE_OK)
        die ("sqlite3_open");
    sqlite3_busy_timeout (db, 60000);
    sql (db, "PRAGMA journal_mode=WAL");
    sql (db, "PRAGMA synchronous=FULL");
    sql (db,
         "CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, id TEXT UNIQUE, "
         "type TEXT, lease TEXT, owner TEXT, envelope TEXT, role TEXT, gpus INTEGER, "
         "start INTEGER, stop INTEGER, payload TEXT)");
    return db;
}

/* Insert one generated event (columns filled from the event struct). */
static void db_insert (sqlite3_stmt *st, const char *payload, size_t len)
{
    jt_error_t err = { "" };
    jt_event_t *ev = jt_event_from_json (payload, len, &err);
    if (!ev) {
        fprintf (stderr, "bench_ledger: %s\n", err.text);
        exit (1);
    }
    sqlite3_bind_text (st, 1, ev->id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 2, jt_ev_type_str (ev->type), -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 3, ev->lease, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 4, ev->owner, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 5, ev->envelope, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 6, jt_role_str (ev->role), -1, SQLITE_STATIC);
    sqlite3_bind_int64 (st, 7, ev->gpus);
    sqlite3_bind_int64 (st, 8, ev->start);
    sqlite3_bind_int64 (st, 9, ev->type == JT_EV_END ? ev->end : -1);
    sqlite3_bind_text (st, 10, payload, (int) len, SQLITE_TRANSIENT);
    if (sqlite3_step (st) != SQLITE_DONE) {
        fprintf (stderr, "bench_ledger: insert failed\n");
        exit (1);
    }
    sqlite3_reset (st);
    jt_event_destroy (ev);
}

#define INSERT_SQL                                                                     \
    "INSERT INTO events (id, type, lease, owner, envelope, role, gpus, start, stop, "  \
    "payload) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"

static void *append_sqlite (void *arg)
{
    struct appender *a = arg;
    sqlite3_stmt *st;
    char buf[512], prefix[32];
    uint64_t i = 0;
    snprintf (prefix, sizeof (prefix), "s%d-", a->id);
    sqlite3_prepare_v2 (a->db, INSERT_SQL, -1, &st, NULL);
    while (now_s () < a->until) {
        int n = bench_lease_event (i++, prefix, buf, sizeof (buf));
        /* autocommit: one durable transaction per event, like one ack */
        double t = now_s ();
        db_insert (st, buf, (size_t) n);
        lat_add (a, now_s () - t);
        a->acked++;
    }
    sqlite3_finalize (st);
    return NULL;
}

static double lp50, lp99, sp50, sp99;

/* K clients appending to the daemon at sock for secs: closed loop (rate
 * 0: each sends its next window at its last ack) or paced (rate events/s
 * offered in all, each client's windows due at fixed times, staggered).
 * Events/s acknowledged; the latencies. p50 and p99 (ms) into the last two. */
static double run_clients (const char *sock, int clients, double secs, double rate, char tag,
                           double *p50, double *p99)
{
    struct appender *a = calloc ((size_t) clients, sizeof (*a));
    pthread_t *th = calloc ((size_t) clients, sizeof (*th));
    if (!a || !th)
        die ("calloc");
    double period = rate > 0 ? (double) W * clients / rate : 0, t0 = now_s ();
    for (int i = 0; i < clients; i++) {
        a[i] = (struct appender){ .sock = sock, .id = i, .tag = tag, .until = t0 + secs,
                                  .period = period,
                                  .due = t0 + period * i / clients };
        pthread_create (&th[i], NULL, append_ledger, &a[i]);
    }
    uint64_t total = 0;
    for (int i = 0; i < clients; i++) {
        pthread_join (th[i], NULL);
        total += a[i].acked;
    }
    double got = (double) total / (now_s () - t0);
    lat_pct (a, clients, p50, p99);
    free (a);
    free (th);
    return got;
}

static double paced_rate, pp50, pp99, paced_got;
static double gp50, gp99; /* gc_floor at the paced rate, right after it */
/* The daemon's own latency line for each run (its log at a clean stop:
 * server.c latency_report): the disk's part beside the whole ack. */
static char closed_line[512], paced_line[512];

static pid_t start_daemon (const char *ldir, const char *sock, const char *log)
{
    pid_t pid = fork ();
    if (pid == 0) {
        prctl (PR_SET_PDEATHSIG, SIGKILL);
        if (!freopen (log, "a", stderr))
            _exit (127);
        const char *every = getenv ("JT_BENCH_CKPT_EVERY"); /* the daemon's */
        execl ("src/ledgerd/jobtree-ledgerd", "jobtree-ledgerd", "-F", "-d", ldir, "-S",
               sock, "-u", "0", "--checkpoint-every", every ? every : "50000",
               (char *) NULL);
        _exit (127);
    }
    for (int i = 0; i < 1000; i++) {
        int fd = connect_sock (sock);
        if (fd >= 0) {
            close (fd);
            break;
        }
        usleep (10000);
    }
    return pid;
}

/* Stop the daemon (a clean stop logs its latency line) and copy from its
 * log the last such line's measures, from "write+fdatasync", into line. */
static void stop_daemon (pid_t pid, const char *log, char *line, size_t len)
{
    char buf[1024];
    FILE *f;

    kill (pid, SIGTERM);
    waitpid (pid, NULL, 0);
    snprintf (line, len, "(no latency line in %s)", log);
    if (!(f = fopen (log, "r")))
        return;
    while (fgets (buf, sizeof (buf), f)) {
        char *at = strstr (buf, "write+fdatasync");
        if (strstr (buf, "appends in the last") && at) {
            at[strcspn (at, "\n")] = '\0';
            snprintf (line, len, "%s", at);
        }
    }
    fclose (f);
}

static double bench_appends (int clients, double secs, double *sqlite_rate)
{
    char ldir[600], sock[600], log[600], dbp[600];
    snprintf (ldir, sizeof (ldir), "%s/append", dir);
    snprintf (sock, sizeof (sock), "%s/append.sock", dir);
    snprintf (log, sizeof (log), "%s/append.log", dir);
    snprintf (dbp, sizeof (dbp), "%s/append.db", dir);
    mkdir (ldir, 0700);
    /* one daemon run each, so that each has its own latency line */
    pid_t pid = start_daemon (ldir, sock, log);
    double rate = run_clients (sock, clients, secs, 0, 'a', &lp50, &lp99);
    stop_daemon (pid, log, closed_line, sizeof (closed_line));
    if (paced_rate > 0) {
        pid = start_daemon (ldir, sock, log);
        paced_got = run_clients (sock, clients, secs, paced_rate, 'p', &pp50, &pp99);
        stop_daemon (pid, log, paced_line, sizeof (paced_line));
        gc_floor (paced_rate, secs, &gp50, &gp99);
    }

    sqlite3 *setup = open_db (dbp);
    sqlite3_close (setup);
    struct appender *a = calloc ((size_t) clients, sizeof (*a));
    pthread_t *th = calloc ((size_t) clients, sizeof (*th));
    if (!a || !th)
        die ("calloc");
    double t0 = now_s ();
    uint64_t total = 0;
    for (int i = 0; i < clients; i++) {
        a[i] = (struct appender){ .id = i, .until = t0 + secs, .db = open_db (dbp) };
        pthread_create (&th[i], NULL, append_sqlite, &a[i]);
    }
    for (int i = 0; i < clients; i++) {
        pthread_join (th[i], NULL);
        total += a[i].acked;
        sqlite3_close (a[i].db);
    }
    *sqlite_rate = (double) total / (now_s () - t0);
    lat_pct (a, clients, &sp50, &sp99);
    free (a);
    free (th);
    return rate;
}

/* ---- 2./3. replay and report over N events ---- */

static void build (uint64_t n, const char *ldir, const char *dbp)
{
    jt_error_t err = { "" };
    jt_ledger_result_t res;
    mkdir (ldir, 0700);
    jt_ledger_writer_t *w = jt_ledger_writer_open (ldir, 0, NULL, NULL, &res, &err);
    if (!w) {
        fprintf (stderr, "bench_ledger: %s\n", err.text);
        exit (1);
    }
    sqlite3 *db = open_db (dbp);
    sqlite3_stmt *st;
    sqlite3_prepare_v2 (db, INSERT_SQL, -1, &st, NULL);
    sql (db, "BEGIN");
    enum { B = 4096 };
    static char bufs[B][512];
    const char *p[B];
    size_t lens[B];
    for (uint64_t i = 0; i < n;) {
        size_t k = 0;
        for (; k < B && i < n; k++, i++) {
            lens[k] = (size_t) bench_lease_event (i, "r", bufs[k], sizeof (bufs[k]));
            p[k] = bufs[k];
            db_insert (st, bufs[k], lens[k]);
        }
        uint64_t first;
        if (jt_ledger_writer_append (w, p, lens, k, &first, &err) < 0) {
            fprintf (stderr, "bench_ledger: %s\n", err.text);
            exit (1);
        }
    }
    sql (db, "COMMIT");
    sql (db, "CREATE INDEX IF NOT EXISTS events_lease ON events (lease, type)");
    sqlite3_finalize (st);
    sqlite3_close (db);
    jt_ledger_writer_close (w);
}

static double replay_sqlite (const char *dbp, uint64_t *count)
{
    sqlite3 *db = open_db (dbp);
    sqlite3_stmt *st;
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    jt_error_t err = { "" };
    double c0 = cpu_s (), t0 = now_s ();
    sqlite3_prepare_v2 (db, "SELECT seq, payload FROM events ORDER BY seq", -1, &st,
                        NULL);
    *count = 0;
    while (sqlite3_step (st) == SQLITE_ROW) {
        const char *p = (const char *) sqlite3_column_text (st, 1);
        int len = sqlite3_column_bytes (st, 1);
        jt_event_t *ev = jt_event_from_json (p, (size_t) len, &err);
        jt_violation_t v;
        if (!ev
            || jt_ledger_fold_apply (f, (uint64_t) sqlite3_column_int64 (st, 0), ev, &v,
                                     &err)
                   != 0) {
            fprintf (stderr, "bench_ledger: sqlite replay: %s %s\n", err.text, v.msg);
            exit (1);
        }
        jt_event_destroy (ev);
        (*count)++;
    }
    double dt = now_s () - t0;
    cpu_last = cpu_s () - c0;
    sqlite3_finalize (st);
    sqlite3_close (db);
    jt_ledger_fold_destroy (f);
    return dt;
}

static double report_sqlite (const char *dbp, int *rows)
{
    sqlite3 *db = open_db (dbp);
    sqlite3_stmt *st;
    double c0 = cpu_s (), t0 = now_s ();
    sqlite3_prepare_v2 (
        db,
        "SELECT s.owner, s.envelope, "
        "SUM(CASE WHEN s.role != 'Borrowed' THEN s.gpus * (e.stop - s.start) "
        "ELSE 0 END) / 3600.0, "
        "SUM(CASE WHEN s.role = 'Borrowed' THEN s.gpus * (e.stop - s.start) "
        "ELSE 0 END) / 3600.0 "
        "FROM events s JOIN events e ON e.lease = s.lease AND e.type = 'End' "
        "WHERE s.type = 'Start' GROUP BY s.owner, s.envelope "
        "ORDER BY s.owner, s.envelope",
        -1, &st, NULL);
    *rows = 0;
    while (sqlite3_step (st) == SQLITE_ROW)
        (*rows)++;
    double dt = now_s () - t0;
    cpu_last = cpu_s () - c0;
    sqlite3_finalize (st);
    sqlite3_close (db);
    return dt;
}

/* The record layer alone: every record's grammar, hash and chain, no
 * callback; parallel: the hash check on a second thread. */
static double read_records (const char *ldir, bool parallel, uint64_t *count)
{
    jt_ledger_result_t res;
    jt_error_t err = { "" };
    const char *paths[] = { ldir };
    size_t keep = jt_ledger_read_parallel_min;
    jt_ledger_read_parallel_min = parallel ? keep : SIZE_MAX;
    double c0 = cpu_s (), t0 = now_s ();
    if (jt_ledger_read (paths, 1, NULL, NULL, NULL, &res, &err) < 0
        || res.status != JT_LEDGER_OK) {
        fprintf (stderr, "bench_ledger: read: %s %s\n", err.text,
                 jt_ledger_status_str (res.status));
        exit (1);
    }
    double dt = now_s () - t0;
    cpu_last = cpu_s () - c0;
    jt_ledger_read_parallel_min = keep;
    *count = res.nrecords;
    return dt;
}

/* What slurmctld does at start-up (ledger_sink.c): replay into a fold. */
static double replay_ledger (const char *ldir, uint64_t *count)
{
    jt_ledger_result_t res;
    jt_error_t err = { "" };
    uint64_t nviol = 0;
    double c0 = cpu_s (), t0 = now_s ();
    jt_ledger_fold_t *f = jt_ledger_fold_replay_dir (ldir, &res, &nviol, NULL, &err);
    double dt = now_s () - t0;
    cpu_last = cpu_s () - c0;
    if (!f || res.status != JT_LEDGER_OK || nviol) {
        fprintf (stderr, "bench_ledger: replay: %s %s %" PRIu64 " violations\n",
                 err.text, jt_ledger_status_str (res.status), nviol);
        exit (1);
    }
    jt_ledger_fold_destroy (f);
    *count = res.nrecords;
    return dt;
}

static double run_timed (const char *cmd)
{
    double c0 = cpu_s (), t0 = now_s ();
    FILE *p = popen (cmd, "r");
    char line[512];
    while (p && fgets (line, sizeof (line), p))
        ;
    if (!p || pclose (p) != 0) {
        fprintf (stderr, "bench_ledger: %s failed\n", cmd);
        exit (1);
    }
    cpu_last = cpu_s () - c0;
    return now_s () - t0;
}

/* ---- 4. restart with a long history ---- */

#define CKPT_EVERY 50000

static void build_history_new (uint64_t n, const char *ldir);

/* A ledger of n events written as the daemon writes it: group commits,
 * the fold of every event, its checkpoint every CKPT_EVERY records. */
static void build_history (uint64_t n, const char *ldir)
{
    char mark[700];
    snprintf (mark, sizeof (mark), "%s.built-%" PRIu64, ldir, n);
    if (getenv ("JT_BENCH_REUSE") && access (mark, F_OK) == 0) {
        printf ("reusing %s (JT_BENCH_REUSE)\n", ldir);
        return;
    }
    char cmd[1600];
    /* and the marks of other lengths: the directory is about to change */
    snprintf (cmd, sizeof (cmd), "rm -rf %s %s.built-*", ldir, ldir);
    if (system (cmd) != 0)
        die (cmd);
    build_history_new (n, ldir);
    FILE *mf = fopen (mark, "w");
    if (mf)
        fclose (mf);
}

static void build_history_new (uint64_t n, const char *ldir)
{
    jt_error_t err = { "" };
    if (bench_build_ledger (ldir, n, "h", CKPT_EVERY, true, &err) < 0) {
        fprintf (stderr, "bench_ledger: history: %s\n", err.text);
        exit (1);
    }
}

static void restart_bench (uint64_t h)
{
    char ldir[600];
    jt_ledger_result_t res;
    jt_replay_info_t info;
    jt_error_t err = { "" };
    uint64_t nviol = 0, cnt;

    snprintf (ldir, sizeof (ldir), "%s/history", dir);
    double t0 = now_s ();
    /* the worst tail: CKPT_EVERY - 1 records after the last checkpoint */
    h = (h / CKPT_EVERY) * CKPT_EVERY + CKPT_EVERY - 1;
    build_history (h, ldir);
    printf ("built %" PRIu64 " events of history (checkpoint every %d, tail %d) in %.1f s\n",
            h, CKPT_EVERY, CKPT_EVERY - 1, now_s () - t0);
    fflush (stdout);
    double c0 = cpu_s ();
    t0 = now_s ();
    jt_ledger_fold_t *f = jt_ledger_fold_replay_dir_ckpt (ldir, &res, &nviol, NULL, &info,
                                                          &err);
    double rt = now_s () - t0, rt_c = cpu_s () - c0;
    if (!f || res.status != JT_LEDGER_OK || nviol || !info.ckpt_seq) {
        fprintf (stderr, "bench_ledger: restart: %s %s %s\n", err.text,
                 jt_ledger_status_str (res.status), info.why);
        exit (1);
    }
    char *a = jt_ckpt_state_text (f, 0, &err);
    jt_ledger_fold_destroy (f);
    /* the full replay, timed, and the same state either way */
    c0 = cpu_s ();
    t0 = now_s ();
    f = jt_ledger_fold_replay_dir (ldir, &res, &nviol, NULL, &err);
    double full = now_s () - t0, full_c = cpu_s () - c0;
    cnt = res.nrecords;
    char *b = f ? jt_ckpt_state_text (f, 0, &err) : NULL;
    jt_ledger_fold_destroy (f);
    if (!a || !b || strcmp (a, b) || nviol) {
        fprintf (stderr, "bench_ledger: restart: the states differ\n");
        exit (1);
    }
    free (a);
    free (b);
    printf ("restart with %" PRIu64 " records of history (slurmctld's start-up):\n", cnt);
    printf ("  from checkpoint  %10.3f s  cpu %6.3f s  (%" PRIu64 " segment(s), %" PRIu64
            " records read, %" PRIu64 " folded)\n",
            rt, rt_c, info.segments_read, info.records_read, info.records_folded);
    printf ("  full replay      %10.2f s  cpu %6.2f s\n", full, full_c);
    printf ("  ratio            %10.1fx (full / from checkpoint; cpu %.1fx)\n", full / rt,
            full_c / rt_c);
    fflush (stdout);
}

/* ---- 5. reports from checkpoints (issue 35) ---- */

/* Run cmd, its stdout into a malloc'd *out; wall seconds (cpu_last). */
static double run_capture (const char *cmd, char **out)
{
    double c0 = cpu_s (), t0 = now_s ();
    FILE *p = popen (cmd, "r");
    size_t n = 0, cap = 0;
    char buf[4096];
    *out = NULL;
    while (p && fgets (buf, sizeof (buf), p)) {
        size_t k = strlen (buf);
        if (n + k + 1 > cap) {
            cap = 2 * (n + k + 1);
            if (!(*out = realloc (*out, cap)))
                die ("out of memory");
        }
        memcpy (*out + n, buf, k + 1);
        n += k;
    }
    if (!p || pclose (p) != 0) {
        fprintf (stderr, "bench_ledger: %s failed\n", cmd);
        exit (1);
    }
    if (!*out && !(*out = strdup ("")))
        die ("out of memory");
    cpu_last = cpu_s () - c0;
    return now_s () - t0;
}

/* The same h events as the reports ledger (prefix "h", no Checkpoint
 * records) in SQLite at dbp: the table of phases 1-3 (open_db, db_insert),
 * loaded in one transaction, then the indexes the two usage queries use,
 * each read without the table's rows (which carry the payload):
 * events_type_lease (type, lease, stop) finds a Start's End and its stop
 * (the all-time join) and tells the open leases (a Start without an End),
 * events_type_stop (type, stop) the Ends in a window (last day), and
 * events_usage (type, owner, envelope, role, gpus, start, lease) the
 * Starts in GROUP BY order with all the all-time sum needs; then ANALYZE.
 * Reused under JT_BENCH_REUSE, as the ledger beside it is. */
static void build_reports_db (uint64_t h, const char *dbp)
{
    char mark[700], cmd[2600], buf[512];
    snprintf (mark, sizeof (mark), "%s.built-%" PRIu64, dbp, h);
    if (getenv ("JT_BENCH_REUSE") && access (mark, F_OK) == 0) {
        printf ("reusing %s (JT_BENCH_REUSE)\n", dbp);
        return;
    }
    snprintf (cmd, sizeof (cmd), "rm -f %s %s-wal %s-shm %s.built-*", dbp, dbp, dbp, dbp);
    if (system (cmd) != 0)
        die (cmd);
    double t0 = now_s ();
    sqlite3 *db = open_db (dbp);
    sqlite3_stmt *st;
    sql (db, "PRAGMA cache_size=-1048576"); /* 1 GiB for the load's index pages */
    sqlite3_prepare_v2 (db, INSERT_SQL, -1, &st, NULL);
    sql (db, "BEGIN");
    for (uint64_t i = 0; i < h; i++) {
        int n = bench_lease_event (i, "h", buf, sizeof (buf));
        db_insert (st, buf, (size_t) n);
    }
    sqlite3_finalize (st);
    sql (db, "CREATE INDEX events_type_lease ON events (type, lease, stop)");
    sql (db, "CREATE INDEX events_type_stop ON events (type, stop)");
    sql (db, "CREATE INDEX events_usage ON events (type, owner, envelope, role, gpus, "
             "start, lease)");
    sql (db, "COMMIT");
    sql (db, "ANALYZE");
    sqlite3_close (db);
    FILE *mf = fopen (mark, "w");
    if (mf)
        fclose (mf);
    printf ("loaded %" PRIu64 " events into sqlite (WAL, one transaction, 3 indexes) "
            "in %.1f s\n",
            h, now_s () - t0);
}

/* GPU-seconds per owner/envelope owned (role not Borrowed) and borrowed,
 * as `jobtree report usage` sums them when no BudgetLoaded names an
 * envelope's owner (the bench's ledger has none); ?1: the window's start,
 * ?2: --now (open leases count up to it). All time: phase 3's join of
 * each Start to its End, a LEFT JOIN for the open leases. */
#define USAGE_ALL_SQL                                                                  \
    "SELECT s.owner, s.envelope, COUNT(*), "                                           \
    "SUM(CASE WHEN s.role != 'Borrowed' THEN s.gpus * (COALESCE(e.stop, ?2) - s.start) " \
    "ELSE 0 END), "                                                                    \
    "SUM(CASE WHEN s.role = 'Borrowed' THEN s.gpus * (COALESCE(e.stop, ?2) - s.start) " \
    "ELSE 0 END) "                                                                     \
    "FROM events s LEFT JOIN events e ON e.type = 'End' AND e.lease = s.lease "        \
    "WHERE s.type = 'Start' AND (e.stop IS NOT NULL OR s.start <= ?2) "                \
    "GROUP BY s.owner, s.envelope ORDER BY s.owner, s.envelope"

/* A window [?1, no end): the leases it clips, as cmd_report.c's lease_in:
 * a closed lease (its End carries its start, owner, envelope, role and
 * GPUs) if it ends after ?1 (or is empty and ends at ?1), an open one (a
 * Start without an End) if it started by ?2; each counted from
 * max(start, ?1) to its end or ?2. The open leases are found in the
 * indexes alone (every Start's lease probed for an End), their rows then
 * read by rowid: this table has no list of open leases, so that probe of
 * every Start is most of the time at any window. */
#define USAGE_WINDOW_SQL                                                               \
    "SELECT owner, envelope, COUNT(*), "                                               \
    "SUM(CASE WHEN role != 'Borrowed' THEN g ELSE 0 END), "                            \
    "SUM(CASE WHEN role = 'Borrowed' THEN g ELSE 0 END) FROM ("                        \
    "SELECT owner, envelope, role, gpus * (stop - MAX(start, ?1)) AS g FROM events "   \
    "WHERE type = 'End' AND (stop > ?1 OR (stop = ?1 AND start = stop)) "              \
    "UNION ALL "                                                                       \
    "SELECT owner, envelope, role, gpus * (?2 - MAX(start, ?1)) FROM events "          \
    "WHERE start <= ?2 AND rowid IN (SELECT s.rowid FROM events s "                    \
    "WHERE s.type = 'Start' AND NOT EXISTS (SELECT 1 FROM events e "                   \
    "WHERE e.type = 'End' AND e.lease = s.lease))) "                                   \
    "GROUP BY owner, envelope ORDER BY owner, envelope"

/* The usage rows over [from, now) (from INT64_MIN: all time) from the
 * database at dbp, into a malloc'd *out in `report usage -P -n`'s columns
 * (Sponsor and PeakGPUs left empty: not computed); wall seconds
 * (cpu_last). */
static double usage_sqlite (const char *dbp, int64_t from, int64_t now, char **out)
{
    sqlite3 *db = open_db (dbp);
    sqlite3_stmt *st;
    size_t n = 0, cap = 4096;
    double c0 = cpu_s (), t0 = now_s ();
    if (sqlite3_prepare_v2 (db, from == INT64_MIN ? USAGE_ALL_SQL : USAGE_WINDOW_SQL, -1,
                            &st, NULL)
        != SQLITE_OK) {
        fprintf (stderr, "bench_ledger: sqlite: %s\n", sqlite3_errmsg (db));
        exit (1);
    }
    sqlite3_bind_int64 (st, 1, from);
    sqlite3_bind_int64 (st, 2, now);
    if (!(*out = malloc (cap)))
        die ("out of memory");
    (*out)[0] = '\0';
    int rc;
    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        double own = (double) sqlite3_column_int64 (st, 3) / 3600.0;
        double bor = (double) sqlite3_column_int64 (st, 4) / 3600.0;
        if (n + 512 > cap && !(*out = realloc (*out, cap *= 2)))
            die ("out of memory");
        n += (size_t) snprintf (*out + n, cap - n, "%s|%s||%lld||%.2f|%.2f|%.2f\n",
                                (const char *) sqlite3_column_text (st, 0),
                                (const char *) sqlite3_column_text (st, 1),
                                (long long) sqlite3_column_int64 (st, 2), own, bor,
                                own + bor);
    }
    double dt = now_s () - t0;
    cpu_last = cpu_s () - c0;
    if (rc != SQLITE_DONE) {
        fprintf (stderr, "bench_ledger: sqlite: %s\n", sqlite3_errmsg (db));
        exit (1);
    }
    sqlite3_finalize (st);
    sqlite3_close (db);
    return dt;
}

/* Totals of `report usage -P -n` rows (Owner|Envelope|Sponsor|Leases|
 * PeakGPUs|OwnedGPUHours|BorrowedGPUHours|GPUHours). */
struct usage_sum {
    size_t rows;
    long long leases;
    double owned, borrowed;
};

/* One row of text at *p (advanced past it): its Owner|Envelope into key,
 * its leases, owned and borrowed hours. 1, 0 at the end, -1 malformed. */
static int usage_row (const char **p, char *key, size_t klen, long long *leases,
                      double *owned, double *borrowed)
{
    char line[1024], *f[8], *s = line;
    size_t len = strcspn (*p, "\n"), k = 0;
    if (!**p)
        return 0;
    snprintf (line, sizeof (line), "%.*s", (int) len, *p);
    *p += len + ((*p)[len] == '\n');
    while (k < 8 && (f[k] = strsep (&s, "|")))
        k++;
    if (k != 8 || s)
        return -1;
    snprintf (key, klen, "%s|%s", f[0], f[1]);
    *leases = atoll (f[3]);
    *owned = atof (f[5]);
    *borrowed = atof (f[6]);
    return 1;
}

/* Do jobtree's rows (a) and SQLite's (b) agree: the same owner/envelope
 * rows and leases, owned and borrowed hours within their rounding to
 * 0.01 (and so the totals, *sa and *sb)? */
static bool usage_agree (const char *a, const char *b, struct usage_sum *sa,
                         struct usage_sum *sb)
{
    char ka[600], kb[600];
    long long la, lb;
    double oa, ob, ba, bb;
    int ra, rb;
    bool same = true;
    *sa = *sb = (struct usage_sum){ 0 };
    do {
        ra = usage_row (&a, ka, sizeof (ka), &la, &oa, &ba);
        rb = usage_row (&b, kb, sizeof (kb), &lb, &ob, &bb);
        if (ra < 0 || rb < 0 || ra != rb)
            same = false;
        if (ra > 0)
            *sa = (struct usage_sum){ sa->rows + 1, sa->leases + la, sa->owned + oa,
                                      sa->borrowed + ba };
        if (rb > 0)
            *sb = (struct usage_sum){ sb->rows + 1, sb->leases + lb, sb->owned + ob,
                                      sb->borrowed + bb };
        if (ra > 0 && rb > 0
            && (strcmp (ka, kb) || la != lb || fabs (oa - ob) > 0.0051
                || fabs (ba - bb) > 0.0051))
            same = false;
    } while (ra > 0 || rb > 0);
    return same;
}

/* `jobtree report usage` over the last day and over all of a ledger of h
 * events written with checkpoints, from them and with --full-replay (the
 * outputs compared byte for byte), and the same sums as SQL queries over
 * the same events in SQLite (the rows compared with jobtree's). */
static void reports_bench (uint64_t h)
{
    char ldir[600], dbp[600], cmd[1400];
    double t0 = now_s ();
    bool full = !getenv ("JT_BENCH_NO_FULL"); /* a long history: no full replay */

    snprintf (ldir, sizeof (ldir), "%s/reports", dir);
    snprintf (dbp, sizeof (dbp), "%s/reports.db", dir);
    h = (h / CKPT_EVERY) * CKPT_EVERY + CKPT_EVERY - 1; /* the worst tail */
    build_history (h, ldir);
    printf ("built %" PRIu64 " events with checkpoints (every %d) in %.1f s\n", h, CKPT_EVERY,
            now_s () - t0);
    build_reports_db (h, dbp);
    /* the last instant: bench_lease_event's last End (or Start) */
    uint64_t slot = (h - 1) / 2000;
    int64_t last = T0 + (int64_t) slot * 3600 + 3000, day = last - 86400;
    static const struct {
        const char *name, *win;
    } w[] = { { "last day", "-S %lld" }, { "all time", "" } };
    printf ("usage report over %" PRIu64 " records (--now %lld; from checkpoint vs "
            "--full-replay, outputs compared):\n",
            h, (long long) last + 1);
    for (size_t k = 0; k < 2; k++) {
        char win[64], *a, *b = NULL, *q;
        double fu = 0, fu_c = 0;
        snprintf (win, sizeof (win), w[k].win, (long long) day);
        snprintf (cmd, sizeof (cmd),
                  "src/cli/jobtree report usage -P -n --now %lld %s -v %s 2>%s/report.err",
                  (long long) last + 1, win, ldir, dir);
        double ck = run_capture (cmd, &a), ck_c = cpu_last;
        char how[400] = "", path[700];
        snprintf (path, sizeof (path), "%s/report.err", dir);
        FILE *hf = fopen (path, "r");
        if (!hf || !fgets (how, sizeof (how), hf))
            how[0] = '\0';
        if (hf)
            fclose (hf);
        how[strcspn (how, "\n")] = '\0';
        if (!full) {
            printf ("  %-9s from checkpoint %7.3f s  cpu %6.3f s | full replay not run "
                    "(JT_BENCH_NO_FULL)\n            (%s)\n",
                    w[k].name, ck, ck_c, how);
        } else {
            snprintf (cmd, sizeof (cmd),
                      "src/cli/jobtree report usage -P -n --now %lld %s --full-replay %s",
                      (long long) last + 1, win, ldir);
            fu = run_capture (cmd, &b);
            fu_c = cpu_last;
            if (strcmp (a, b)) {
                fprintf (stderr, "bench_ledger: report usage %s: from checkpoint and full "
                         "replay differ\n", w[k].name);
                exit (1);
            }
            printf ("  %-9s from checkpoint %7.3f s  cpu %6.3f s | full replay %7.2f s  "
                    "cpu %6.2f s | ratio %6.1fx (cpu %.1fx)\n",
                    w[k].name, ck, ck_c, fu, fu_c, fu / ck, fu_c / ck_c);
            printf ("            (%s)\n", how);
        }
        double sq = usage_sqlite (dbp, k == 0 ? day : INT64_MIN, last + 1, &q);
        double sq_c = cpu_last;
        struct usage_sum sa, sb;
        if (!usage_agree (a, q, &sa, &sb)) {
            fprintf (stderr,
                     "bench_ledger: report usage %s: jobtree and sqlite differ\n"
                     "jobtree (%zu rows, %lld leases, %.2f owned, %.2f borrowed):\n%s"
                     "sqlite (%zu rows, %lld leases, %.2f owned, %.2f borrowed):\n%s",
                     w[k].name, sa.rows, sa.leases, sa.owned, sa.borrowed, a, sb.rows,
                     sb.leases, sb.owned, sb.borrowed, q);
            exit (1);
        }
        /* time ratios: below 1, jobtree took less */
        /* the floor: json-c's parse of the records this report read */
        const char *rr = strstr (how, " records read");
        while (rr && rr > how && rr[-1] >= '0' && rr[-1] <= '9')
            rr--;
        unsigned long long nread = rr ? strtoull (rr, NULL, 10) : 0;
        if (nread)
            printf ("            floor (%llu records read x %.1f us of parse) %7.3f s | "
                    "checkpoint %.1fx the floor\n",
                    nread, pfloor * 1e6, (double) nread * pfloor,
                    ck / ((double) nread * pfloor));
        printf ("            sqlite query    %7.3f s  cpu %6.3f s | jobtree/sqlite: "
                "checkpoint %.2fx (cpu %.2fx)",
                sq, sq_c, ck / sq, ck_c / sq_c);
        if (full)
            printf (", full %.1fx (cpu %.1fx)", fu / sq, fu_c / sq_c);
        printf ("\n            (%zu rows, %lld leases, %.2f / %.2f GPU-h owned / borrowed "
                "in both)\n",
                sa.rows, sa.leases, sa.owned, sa.borrowed);
        free (a);
        free (b);
        free (q);
    }
    fflush (stdout);
}

/* Phase 6: checkpoints of a fold with nopen long-open leases (one node
 * each, 8 GPUs, two envelopes), made 20 times: ms each, best of the 20 (the
 * first call apart: it makes the kept texts). */
static void ckpt_bench (int nopen)
{
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    jt_error_t err = { "" };
    jt_violation_t v;
    char buf[1024];
    double first = 0, warm = 0, fresh = 0;
    size_t bytes = 0;

    if (!f)
        die ("fold");
    for (int i = 0; i < nopen; i++) {
        snprintf (buf, sizeof (buf),
                  "{\"v\":1,\"type\":\"Start\",\"id\":\"c:%d:0:start\",\"time\":%lld,"
                  "\"lease\":\"c:%d:0\",\"run\":\"c:%d\",\"group\":\"0\","
                  "\"nodes\":[\"gpu-%05d\"],\"gpus\":8,\"role\":\"%s\","
                  "\"envelope\":\"e%d\",\"owner\":\"team%d\",\"start\":%lld}",
                  i, (long long) T0 + i, i, i, i, i % 5 ? "Active" : "Borrowed", i % 2, i % 2,
                  (long long) T0 + i);
        jt_event_t *ev = jt_event_from_json (buf, strlen (buf), &err);
        if (!ev || jt_ledger_fold_apply (f, (uint64_t) i + 1, ev, &v, &err) < 0) {
            fprintf (stderr, "bench_ledger: checkpoint phase: %s\n", err.text);
            exit (1);
        }
        jt_event_destroy (ev);
    }
    for (int k = 0; k < 21; k++) {
        char **p = NULL, *s;
        size_t *lens = NULL, n = 0;
        double t0 = now_s ();
        if (jt_ckpt_payloads (f, (uint64_t) nopen, T0, 0, &p, &lens, &n, &err) < 0) {
            fprintf (stderr, "bench_ledger: checkpoint: %s\n", err.text);
            exit (1);
        }
        double t = now_s () - t0;
        if (!k) {
            first = t;
            for (size_t i = 0; i < n; i++)
                bytes += lens[i];
        } else if (k == 1 || t < warm)
            warm = t;
        jt_ckpt_payloads_free (p, lens, n);
        t0 = now_s ();
        if (!(s = jt_ckpt_state_text (f, 0, &err))) {
            fprintf (stderr, "bench_ledger: state: %s\n", err.text);
            exit (1);
        }
        t = now_s () - t0;
        if (!k || t < fresh)
            fresh = t;
        free (s);
    }
    printf ("checkpoint with %d leases open (%zu bytes; made on the daemon's serving "
            "thread):\n",
            nopen, bytes);
    printf ("  first (texts made and kept)  %7.2f ms\n", first * 1e3);
    printf ("  again (kept texts)           %7.2f ms\n", warm * 1e3);
    printf ("  state made afresh            %7.2f ms  (every entry's json-c tree built "
            "and printed; no parts, no hash)\n",
            fresh * 1e3);
    printf ("  ratio                        %7.2fx (afresh / again)\n", fresh / warm);
    fflush (stdout);
    jt_ledger_fold_destroy (f);
}

static bool want (const char *phase)
{
    const char *only = getenv ("JT_BENCH_ONLY");
    return !only || strstr (only, phase);
}

static double report_ledger (const char *ldir, int *rows)
{
    char cmd[1024];
    snprintf (cmd, sizeof (cmd), "src/cli/jobtree report usage -P -n %s", ldir);
    double c0 = cpu_s (), t0 = now_s ();
    FILE *p = popen (cmd, "r");
    char line[512];
    *rows = 0;
    while (p && fgets (line, sizeof (line), p))
        (*rows)++;
    if (!p || pclose (p) != 0) {
        fprintf (stderr, "bench_ledger: %s failed\n", cmd);
        exit (1);
    }
    cpu_last = cpu_s () - c0;
    return now_s () - t0;
}

int main (void)
{
    const char *e = NULL;
    uint64_t n = (e = getenv ("JT_BENCH_EVENTS")) ? strtoull (e, NULL, 10) : 1000000;
    int clients = (e = getenv ("JT_BENCH_CLIENTS")) ? atoi (e) : 8;
    W = (e = getenv ("JT_BENCH_WINDOW")) ? atoi (e) : 32;
    if (W < 1 || W > 4096) {
        fprintf (stderr, "bench_ledger: JT_BENCH_WINDOW must be in [1, 4096]\n");
        return 2;
    }
    double secs = (e = getenv ("JT_BENCH_SECONDS")) ? atof (e) : 3.0;
    paced_rate = (e = getenv ("JT_BENCH_RATE")) ? atof (e) : 34600;
    if (!(paced_rate >= 0 && paced_rate <= 1e7)) {
        fprintf (stderr, "bench_ledger: JT_BENCH_RATE must be in [0, 10000000] events/s\n");
        return 2;
    }
    snprintf (dir, sizeof (dir), "%s",
              (e = getenv ("JT_BENCH_DIR")) ? e : "./bench-ledger.tmp");
    char cmd[1200];
    snprintf (cmd, sizeof (cmd), getenv ("JT_BENCH_REUSE") ? "mkdir -p %s%.0s"
              : "rm -rf %s && mkdir -p %s", dir, dir);
    if (system (cmd) != 0)
        die (cmd);
    char *abs = realpath (dir, NULL); /* the daemon wants absolute paths */
    if (!abs)
        die (dir);
    snprintf (dir, sizeof (dir), "%s", abs);
    free (abs);
    if (access ("src/ledgerd/jobtree-ledgerd", X_OK) < 0
        || access ("src/cli/jobtree", X_OK) < 0)
        die ("run from the top build directory (needs src/ledgerd/jobtree-ledgerd and "
             "src/cli/jobtree)");
    signal (SIGPIPE, SIG_IGN);

    pfloor = parse_floor ();
    printf ("json-c parse floor: %.2f us a record (parse only, one tokener, best of 5 "
            "passes over 20,000 events)\n",
            pfloor * 1e6);
    if (want ("appends")) {
    double fp50, fp99;
    fsync_floor (&fp50, &fp99);
    double srate, lrate = bench_appends (clients, secs, &srate);
    printf ("appends (durable, %d clients, %.0f s each, a daemon started for each; "
            "latency: send to last ack):\n",
            clients, secs);
    printf ("  fdatasync floor             p50 %.2f ms  p99 %.2f ms (a write of %d "
            "records and its sync, %d times)\n",
            fp50, fp99, W, FLOOR_SYNCS);
    printf ("  jobtree-ledgerd  %10.0f events/s  p50 %.2f ms  p99 %.2f ms (window of "
            "%d)\n",
            lrate, lp50, lp99, W);
    printf ("    its log: %s\n", closed_line);
    if (paced_rate > 0) {
        double target = 3 * fp99 + W * pfloor * 1e3;
        printf ("  paced at %.0f/s %6.0f events/s  p50 %.2f ms  p99 %.2f ms (window of %d, "
                "from its due time)\n",
                paced_rate, paced_got, pp50, pp99, W);
        printf ("    its log: %s\n", paced_line);
        printf ("  group-commit floor at %.0f/s  p50 %.2f ms  p99 %.2f ms (the same windows "
                "into one file by one thread, nothing else; right after)\n",
                paced_rate, gp50, gp99);
        printf ("  target (issue 35): paced p99 <= 3 x the fdatasync p99 + one window's "
                "parse (%d x %.1f us) = %.2f ms: %s (the group-commit floor: %s); "
                "paced p99 %.2fx the group-commit floor's\n",
                W, pfloor * 1e6, target,
                pp99 <= target && paced_got >= 0.99 * paced_rate ? "met" : "not met",
                gp99 <= target ? "met" : "not met", gp99 > 0 ? pp99 / gp99 : 0);
    }
    printf ("  sqlite WAL FULL  %10.0f events/s  p50 %.2f ms  p99 %.2f ms (one event)\n",
            srate, sp50, sp99);
    printf ("  ratio            %10.2fx\n", lrate / srate);
    fflush (stdout);
    }
    if (want ("restart"))
        restart_bench ((e = getenv ("JT_BENCH_HISTORY")) ? strtoull (e, NULL, 10) : 1000000);
    if (want ("checkpoint")) {
        int nopen = (e = getenv ("JT_BENCH_OPEN")) ? atoi (e) : 4096;
        if (nopen < 1 || nopen > 1000000) {
            fprintf (stderr, "bench_ledger: JT_BENCH_OPEN must be in [1, 1000000]\n");
            return 1;
        }
        ckpt_bench (nopen);
    }
    if (want ("reports"))
        reports_bench ((e = getenv ("JT_BENCH_HISTORY")) ? strtoull (e, NULL, 10) : 1000000);
    if (!want ("replay"))
        goto done;

    char ldir[600], dbp[600];
    snprintf (ldir, sizeof (ldir), "%s/replay", dir);
    snprintf (dbp, sizeof (dbp), "%s/replay.db", dir);
    double t0 = now_s ();
    build (n, ldir, dbp);
    printf ("built %" PRIu64 " events in both stores in %.1f s\n", n, now_s () - t0);

    uint64_t cnt, rcnt;
    double seq = read_records (ldir, false, &rcnt), seq_c = cpu_last;
    double par = read_records (ldir, true, &rcnt), par_c = cpu_last;
    printf ("record layer of %" PRIu64 " records (grammar, SHA-256, chain; no parse):\n",
            rcnt);
    printf ("  sequential       %10.2f s  cpu %6.2f s  (%.0f records/s)\n", seq, seq_c,
            (double) rcnt / seq);
    printf ("  parallel hashes  %10.2f s  cpu %6.2f s  (%.0f records/s)\n", par, par_c,
            (double) rcnt / par);
    fflush (stdout);

    double lrp = replay_ledger (ldir, &cnt), lrp_c = cpu_last;
    double srep = replay_sqlite (dbp, &cnt), srep_c = cpu_last;
    printf ("replay + fold of %" PRIu64 " events (slurmctld's start-up; the ledger also "
            "checks hashes and chain):\n",
            cnt);
    printf ("  ledger           %10.2f s  cpu %6.2f s  (%.0f events/s)\n", lrp, lrp_c,
            (double) cnt / lrp);
    printf ("  sqlite           %10.2f s  cpu %6.2f s  (%.0f events/s)\n", srep, srep_c,
            (double) cnt / srep);
    printf ("  ratio            %10.2fx (sqlite time / ledger time; cpu %.2fx)\n",
            srep / lrp, srep_c / lrp_c);
    fflush (stdout);

    jt_ledger_result_t res;
    jt_violation_t v;
    jt_error_t err = { "" };
    const char *paths[] = { ldir };
    double c0 = cpu_s ();
    t0 = now_s ();
    if (jt_ledger_verify (paths, 1, NULL, NULL, &res, &v, NULL, &err) < 0
        || res.status != JT_LEDGER_OK || v.kind != JT_VIOL_NONE) {
        fprintf (stderr, "bench_ledger: verify: %s %s %s\n", err.text,
                 jt_ledger_status_str (res.status), v.msg);
        return 1;
    }
    double lrep = now_s () - t0, lrep_c = cpu_s () - c0;
    snprintf (cmd, sizeof (cmd), "src/cli/jobtree verify -q %s", ldir);
    double lver = run_timed (cmd), lver_c = cpu_last;
    printf ("verify of %" PRIu64 " records (hashes, chain, canonical payloads, every "
            "invariant):\n",
            res.nrecords);
    printf ("  jt_ledger_verify %10.2f s  cpu %6.2f s  (%.0f records/s)\n", lrep, lrep_c,
            (double) res.nrecords / lrep);
    printf ("  jobtree verify   %10.2f s  cpu %6.2f s  (whole process)\n", lver, lver_c);
    printf ("  ratio            %10.2fx (sqlite replay time / jobtree verify time; cpu "
            "%.2fx)\n",
            srep / lver, srep_c / lver_c);
    fflush (stdout);

    int lrows, srows;
    double lu = report_ledger (ldir, &lrows), lu_c = cpu_last;
    double su = report_sqlite (dbp, &srows), su_c = cpu_last;
    printf ("usage report over %" PRIu64 " events (%d / %d rows):\n", n, lrows, srows);
    printf ("  jobtree report   %10.2f s  cpu %6.2f s  (whole process: read, check, parse, "
            "peak)\n",
            lu, lu_c);
    printf ("  sqlite query     %10.2f s  cpu %6.2f s  (indexed join, no peak "
            "concurrency)\n",
            su, su_c);
    printf ("  ratio            %10.2fx (sqlite time / ledger time; cpu %.2fx)\n", su / lu,
            su_c / lu_c);
done:
    if (!getenv ("JT_BENCH_KEEP") && !getenv ("JT_BENCH_REUSE")) {
        snprintf (cmd, sizeof (cmd), "rm -rf %s", dir);
        if (system (cmd) != 0)
            die (cmd);
    }
    return 0;
}
