/*
 * ledger_daemon.c - jobtree-ledgerd end to end: idempotent appends, crash
 * (SIGKILL at random instants during sustained pipelined appends; every
 * acknowledged event must survive, the chain must verify), torn tail and
 * mid-file corruption at startup, peer-credential permission, and the
 * client library's spool (daemon down -> spooled; back -> drained once, in
 * order), and Starts refused for who pays them under the latest
 * BudgetLoaded's content (verify's payer and role, where the daemon can
 * know).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
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
#include "jobtree/ledger_client.h"
#include "ledger/ledger_conn.h"
#include "jobtree/map.h"
#include "fixtures.h"
#include "tap.h"

static char daemon_path[1024];
static char tmpdir[256];

static void msleep (int ms)
{
    struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
    nanosleep (&ts, NULL);
}

/* The tests speak to the daemon through the library's own transport
 * (src/lib/ledger/ledger_conn.c), as the client does: one client, not two. */
#define CONN_TIMEOUT_MS 20000

static int connect_conn (jt_ledger_conn_t *c, const char *path)
{
    *c = (jt_ledger_conn_t) JT_LEDGER_CONN_INIT;
    return jt_ledger_conn_open (c, path, CONN_TIMEOUT_MS);
}

/* Start the daemon in the foreground; wait until its socket answers.
 * extra: one more option or NULL. Returns the pid (or -1 if it exited,
 * *status then holds its wait status). */
static rlim_t fsize_limit = RLIM_INFINITY;
static const char *extra2; /* a second option after extra (extra not NULL) */
static const char *extra3; /* a third (extra2 not NULL) */

/* Fork and exec the daemon (start_daemon without the wait). */
static pid_t spawn_daemon (const char *dir, const char *sock, const char *log,
                           const char *extra)
{
    pid_t pid = fork ();
    if (pid == 0) {
        if (fsize_limit != RLIM_INFINITY) {
            /* writes past the limit fail with EFBIG instead of killing */
            struct rlimit rl = { fsize_limit, fsize_limit };
            signal (SIGXFSZ, SIG_IGN);
            setrlimit (RLIMIT_FSIZE, &rl);
        }
        /* never outlive the test, never hold the TAP driver's pipe */
        prctl (PR_SET_PDEATHSIG, SIGKILL);
        int fd = open (log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        int nul = open ("/dev/null", O_RDWR);
        if (fd >= 0) {
            dup2 (fd, 2);
            close (fd);
        }
        if (nul >= 0) {
            dup2 (nul, 0);
            dup2 (nul, 1);
            close (nul);
        }
        execl (daemon_path, "jobtree-ledgerd", "-F", "-d", dir, "-S", sock, "-u", "0",
               "--index-size", "100000", extra, extra2, extra3, (char *) NULL);
        _exit (127);
    }
    return pid;
}

static pid_t start_daemon (const char *dir, const char *sock, const char *log,
                           const char *extra, int *status)
{
    pid_t pid = spawn_daemon (dir, sock, log, extra);
    for (int i = 0; i < 2000; i++) {
        jt_ledger_conn_t probe;
        if (connect_conn (&probe, sock) == 0) {
            jt_ledger_conn_free (&probe);
            return pid;
        }
        if (waitpid (pid, status, WNOHANG) == pid)
            return -1;
        msleep (5);
    }
    kill (pid, SIGKILL);
    waitpid (pid, status, 0);
    return -1;
}

static void stop_daemon (pid_t pid)
{
    int st;
    if (pid <= 0)
        return; /* not started: kill (-1, ...) would signal every process */
    kill (pid, SIGTERM);
    waitpid (pid, &st, 0);
}

static char *event (char *buf, size_t len, const char *id)
{
    /* Event ids in these tests are short; a longer one would be a test bug. */
    if (strlen (id) > 64)
        bail_out ("event id too long: %s", id);
    (void) !snprintf (buf, len,
              "{\"v\":1,\"type\":\"NodeFail\",\"id\":\"%s\",\"time\":1,"
              "\"nodes\":[\"n1\"]}",
              id);
    return buf;
}

/* Send one request line, read one reply line. Like the client, read even
 * after a failed send: the daemon may have answered and closed first. */
static int rpc (jt_ledger_conn_t *c, const char *req, char *reply, size_t len)
{
    char out[4096];
    int n = snprintf (out, sizeof (out), "%s\n", req);
    (void) jt_ledger_conn_send (c, out, (size_t) n);
    if (jt_ledger_conn_read_line (c, reply, len) < 0) {
        reply[0] = '\0';
        return -1;
    }
    return 0;
}

/* Send the events <prefix>from .. <prefix>(to - 1), replies not checked. */
static void send_ids (jt_ledger_conn_t *cn, const char *prefix, int from, int to)
{
    char buf[512], id[32], reply[512];
    for (int i = from; i < to; i++) {
        snprintf (id, sizeof (id), "%s%d", prefix, i);
        rpc (cn, event (buf, sizeof (buf), id), reply, sizeof (reply));
    }
}

/* Resend <prefix>0 .. <prefix>(n - 1), appended first to last into an
 * empty ledger: how many did not get their original seq (OK i + 1); the
 * first three said in a diag, with when. */
static int resends_wrong (jt_ledger_conn_t *cn, const char *prefix, int n,
                          const char *when)
{
    char buf[512], id[32], want[32], reply[512];
    int bad = 0;
    for (int i = 0; i < n; i++) {
        snprintf (id, sizeof (id), "%s%d", prefix, i);
        snprintf (want, sizeof (want), "OK %d", i + 1);
        rpc (cn, event (buf, sizeof (buf), id), reply, sizeof (reply));
        if (strcmp (reply, want) && bad++ < 3)
            diag ("resend of %s%s: %s (want %s)", id, when, reply, want);
    }
    return bad;
}

/* Resend id: 0 when it is answered with seq, else 1 (said in a diag
 * while *shown < 3, with when). */
static int resend_wrong (jt_ledger_conn_t *cn, const char *id, uint64_t seq,
                         const char *when, int *shown)
{
    char buf[512], want[32], reply[512];
    snprintf (want, sizeof (want), "OK %" PRIu64, seq);
    rpc (cn, event (buf, sizeof (buf), id), reply, sizeof (reply));
    if (!strcmp (reply, want))
        return 0;
    if ((*shown)++ < 3)
        diag ("resend of %s%s: %s (want %s)", id, when, reply, want);
    return 1;
}

static char *slurp (const char *path)
{
    FILE *f = fopen (path, "r");
    static char buf[65536];
    size_t n = f ? fread (buf, 1, sizeof (buf) - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose (f);
    return buf;
}

/* Collect the event ids of a ledger (payload scan) into map; return status. */
static int ids_cb (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    const char *p = memmem (rec->payload, rec->len, "\"id\":\"", 6);
    if (!p)
        return jt_errprintf (err, "no id");
    p += 6;
    const char *e = memchr (p, '"', rec->len - (size_t) (p - rec->payload));
    char id[256];
    snprintf (id, sizeof (id), "%.*s", (int) (e - p), p);
    if (jt_map_get (arg, id))
        return jt_errprintf (err, "duplicate id %s at seq %" PRIu64, id, rec->seq);
    return jt_map_put (arg, id, (void *) (uintptr_t) rec->seq, NULL);
}

static jt_ledger_status_t read_ids (const char *dir, jt_map_t *ids, char *err_out)
{
    jt_ledger_result_t res;
    jt_error_t err = { "" };
    const char *p[] = { dir };
    if (jt_ledger_read (p, 1, NULL, ids_cb, ids, &res, &err) < 0) {
        snprintf (err_out, 256, "%s", err.text);
        return JT_LEDGER_IOERR;
    }
    return res.status;
}

/* Check (test named what) that the ledger in dir verifies; return its
 * event ids, each mapped to its seq (caller destroys). */
static jt_map_t *verified_ids (const char *dir, const char *what)
{
    jt_map_t *ids = jt_map_create (0);
    char e[256] = "";
    jt_ledger_status_t ls = read_ids (dir, ids, e);

    is (jt_ledger_status_str (ls), "OK", "%s %s", what, e);
    return ids;
}

/* The ledger in dir verifies and holds events PREFIX000..PREFIX(n-1) once
 * each, event i at seq i+1 (the order they were submitted in). */
static void expect_once_in_order (const char *dir, const char *prefix, int n)
{
    jt_map_t *ids = verified_ids (dir, "ledger verifies (no duplicate ids)");
    int order = 0;

    is_int (jt_map_count (ids), n, "%d events recorded exactly once", n);
    for (int i = 0; i < n; i++) {
        char id[16];
        snprintf (id, sizeof (id), "%s%03d", prefix, i);
        if ((uintptr_t) jt_map_get (ids, id) != (uintptr_t) i + 1)
            order++;
    }
    is_int (order, 0, "each event i has seq i+1: submission order kept");
    jt_map_destroy (ids, NULL);
}

/* Where one test's daemon keeps its ledger (created), socket and log, and
 * where its client spools: under tmpdir, named after the test. */
struct place {
    char dir[512], sock[512], log[512], spool[512];
};

static void place_init (struct place *pl, const char *name)
{
    snprintf (pl->dir, sizeof (pl->dir), "%s/%s", tmpdir, name);
    snprintf (pl->sock, sizeof (pl->sock), "%s/%s.sock", tmpdir, name);
    snprintf (pl->log, sizeof (pl->log), "%s/%s.log", tmpdir, name);
    snprintf (pl->spool, sizeof (pl->spool), "%s/%s.spool", tmpdir, name);
    mkdir (pl->dir, 0700);
}

/* Submit events PREFIX<from>..PREFIX<to-1> through c, with the ids
 * expect_once_in_order looks for; returns how many submits failed. */
static int submit_range (jt_ledger_client_t *c, const char *prefix, int from, int to)
{
    char buf[256];
    jt_error_t err = { "" };
    int fails = 0;

    for (int i = from; i < to; i++) {
        char id[16];
        snprintf (id, sizeof (id), "%s%03d", prefix, i);
        event (buf, sizeof (buf), id);
        if (jt_ledger_client_submit (c, buf, strlen (buf), &err) < 0)
            fails++;
    }
    return fails;
}

/* The start of the stuck-daemon tests: a daemon in pl (pid in *pid); a
 * client of it with a queue of 4 and a 300 ms reply timeout (options in
 * *o, overflowing to the spool if asked) whose event PREFIX000 has been
 * acknowledged; then the daemon stopped with SIGSTOP. */
static jt_ledger_client_t *stuck_daemon_client (const struct place *pl,
                                                const char *prefix, bool overflow,
                                                jt_ledger_client_opts_t *o, pid_t *pid)
{
    jt_error_t err = { "" };
    int st;

    *pid = start_daemon (pl->dir, pl->sock, pl->log, NULL, &st);
    if (*pid < 0)
        bail_out ("daemon did not start:\n%s", slurp (pl->log));
    *o = (jt_ledger_client_opts_t) { .socket = pl->sock, .spool = pl->spool,
                                     .queue_max = 4, .timeout_ms = 300,
                                     .retry_ms = 50, .overflow_to_spool = overflow };
    jt_ledger_client_t *c = jt_ledger_client_create (o, &err);
    submit_range (c, prefix, 0, 1);
    ok (jt_ledger_client_flush (c, 20000) == 0, "client connected");
    kill (*pid, SIGSTOP);
    return c;
}

/* Many request lines in one send, so rounds of 32 lines and more are
 * canonicalized on two threads: new ids, repeats of an id of the same
 * round and of earlier rounds, invalid lines and non-canonical spellings
 * of an event (extra blanks), mixed; every reply in line order is what a
 * one-line-at-a-time model says, and the ledger holds each new id once in
 * order. */
static void test_pipelined (void)
{
    enum { L = 600 };
    struct place pl;
    int st;
    place_init (&pl, "pipelined");
    pid_t pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    ok (pid > 0, "pipelined: daemon starts");
    if (pid < 0)
        return;
    jt_ledger_conn_t cn;
    connect_conn (&cn, pl.sock);
    static char out[L * 160];
    static char want[L][64];
    int seq_of[L] = { 0 }, nnew = 0;
    size_t off = 0;
    for (int i = 0; i < L; i++) {
        char id[16], buf[256];
        int kind = i % 7, k = nnew;
        if (kind == 3 && nnew > 0)
            k = (i * 13) % nnew; /* a resend of an earlier new id */
        snprintf (id, sizeof (id), "p%03d", k);
        if (kind == 5) {
            off += (size_t) snprintf (out + off, sizeof (out) - off,
                                      "{\"v\":1,\"type\":\"NodeFail\",\"id\":\"x%d\"}\n", i);
            snprintf (want[i], sizeof (want[i]), "ERR INVALID time: missing");
            continue;
        }
        if (kind == 6)
            snprintf (buf, sizeof (buf),
                      "{ \"v\": 1, \"type\": \"NodeFail\", \"id\": \"%s\", \"time\": 1, "
                      "\"nodes\": [\"n1\"] }",
                      id);
        else
            event (buf, sizeof (buf), id);
        off += (size_t) snprintf (out + off, sizeof (out) - off, "%s\n", buf);
        if (k == nnew) {
            seq_of[nnew] = nnew + 1;
            nnew++;
        }
        snprintf (want[i], sizeof (want[i]), "OK %d", seq_of[k]);
    }
    (void) jt_ledger_conn_send (&cn, out, off);
    int bad = 0;
    for (int i = 0; i < L; i++) {
        char reply[512];
        if (jt_ledger_conn_read_line (&cn, reply, sizeof (reply)) < 0) {
            diag ("no reply to line %d", i);
            bad++;
            break;
        }
        if (strcmp (reply, want[i]) && bad++ < 5)
            diag ("line %d: got '%s', want '%s'", i, reply, want[i]);
    }
    is_int (bad, 0, "%d pipelined lines: every reply in order is the model's", L);
    jt_ledger_conn_free (&cn);
    stop_daemon (pid);
    expect_once_in_order (pl.dir, "p", nnew);
}

static void test_basic (void)
{
    struct place pl;
    char buf[512], reply[512];
    place_init (&pl, "basic");
    int st;
    pid_t pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    ok (pid > 0, "daemon starts on an empty ledger");
    if (pid < 0)
        return;
    struct stat sb;
    ok (stat (pl.sock, &sb) == 0 && (sb.st_mode & 0777) == 0660, "socket mode 0660");
    jt_ledger_conn_t cn;
    connect_conn (&cn, pl.sock);
    rpc (&cn, event (buf, sizeof (buf), "a"), reply, sizeof (reply));
    is (reply, "OK 1", "first event gets seq 1 once durable");
    rpc (&cn, event (buf, sizeof (buf), "b"), reply, sizeof (reply));
    is (reply, "OK 2", "second event seq 2");
    rpc (&cn, event (buf, sizeof (buf), "a"), reply, sizeof (reply));
    is (reply, "OK 1", "resent id answers its original seq");
    rpc (&cn, "{\"v\":1,\"type\":\"NodeFail\",\"id\":\"c\"}", reply, sizeof (reply));
    is (reply, "ERR INVALID time: missing", "invalid event refused");
    rpc (&cn, "HEAD", reply, sizeof (reply));
    ok (!strncmp (reply, "HEAD 2 ", 7) && strlen (reply) == 7 + 64, "HEAD: %s", reply);
    jt_ledger_conn_free (&cn);
    int st2 = -1;
    pid_t dup = fork ();
    if (dup == 0) {
        prctl (PR_SET_PDEATHSIG, SIGKILL);
        int lfd = open (pl.log, O_WRONLY | O_APPEND);
        dup2 (lfd, 2);
        execl (daemon_path, "jobtree-ledgerd", "-F", "-d", pl.dir, "-S", pl.sock, "-u",
               "0", (char *) NULL);
        _exit (127);
    }
    for (int i = 0; i < 2000 && waitpid (dup, &st2, WNOHANG) != dup; i++)
        msleep (5);
    ok (WIFEXITED (st2) && WEXITSTATUS (st2) == 3,
        "a second daemon on the same ledger refuses to start (exit status 3)");
    ok (strstr (slurp (pl.log), "held by pid ") != NULL, "and says why");
    stop_daemon (pid);
    pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    connect_conn (&cn, pl.sock);
    rpc (&cn, event (buf, sizeof (buf), "b"), reply, sizeof (reply));
    is (reply, "OK 2",
        "after a restart a resent id still answers its seq (startup scan)");
    rpc (&cn, event (buf, sizeof (buf), "d"), reply, sizeof (reply));
    is (reply, "OK 3", "and new events continue the sequence");
    jt_ledger_conn_free (&cn);
    stop_daemon (pid);
}

/* A resend of an id whose group is being written and synced (the commit
 * thread holds it for JT_LEDGERD_TEST_COMMIT_DELAY_MS): answered with the
 * original seq once that group is durable, never appended a second time;
 * and the HEAD asked meanwhile answers after it. */
static void test_inflight (void)
{
    struct place pl;
    char buf[512], out[1200], ra[512], rb[512], rb2[512], rb3[512];
    place_init (&pl, "inflight");
    int st;
    setenv ("JT_LEDGERD_TEST_COMMIT_DELAY_MS", "400", 1);
    pid_t pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    unsetenv ("JT_LEDGERD_TEST_COMMIT_DELAY_MS");
    ok (pid > 0, "daemon starts with its commits held 400 ms");
    if (pid < 0)
        return;
    jt_ledger_conn_t a, b;
    connect_conn (&a, pl.sock);
    connect_conn (&b, pl.sock);
    int n = snprintf (out, sizeof (out), "%s\n", event (buf, sizeof (buf), "f1"));
    (void) jt_ledger_conn_send (&a, out, (size_t) n);
    msleep (150); /* f1's group is with the commit thread now */
    n = snprintf (out, sizeof (out), "%s\n", event (buf, sizeof (buf), "f1"));
    n += snprintf (out + n, sizeof (out) - (size_t) n, "%s\nHEAD\n",
                   event (buf, sizeof (buf), "f2"));
    (void) jt_ledger_conn_send (&b, out, (size_t) n);
    if (jt_ledger_conn_read_line (&a, ra, sizeof (ra)) < 0)
        ra[0] = '\0';
    if (jt_ledger_conn_read_line (&b, rb, sizeof (rb)) < 0)
        rb[0] = '\0';
    if (jt_ledger_conn_read_line (&b, rb2, sizeof (rb2)) < 0)
        rb2[0] = '\0';
    if (jt_ledger_conn_read_line (&b, rb3, sizeof (rb3)) < 0)
        rb3[0] = '\0';
    is (ra, "OK 1", "the first send of f1: seq 1");
    is (rb, "OK 1", "its resend while f1's group was being synced: the same seq");
    is (rb2, "OK 2", "and the next event seq 2");
    ok (!strncmp (rb3, "HEAD 2 ", 7), "HEAD asked behind them: %s", rb3);
    jt_ledger_conn_free (&a);
    jt_ledger_conn_free (&b);
    stop_daemon (pid);
    jt_map_t *ids = verified_ids (pl.dir, "the ledger verifies");
    is_int (jt_map_count (ids), 2, "f1 recorded once, f2 once");
    jt_map_destroy (ids, NULL);
    /* The latency line of a clean stop (server.c latency_report): the held
     * commits are in the acks (each waited 400 ms or more from its read),
     * not in the disk's part, which times the write and sync alone. */
    const char *line = strstr (slurp (pl.log), "appends in the last ");
    unsigned long recs = 0, groups = 0;
    double d50, d99, d999, dmax, a50, a99, a999, amax;
    int got = line ? sscanf (line, "appends in the last %*f s: %lu records in %lu group "
                             "commits; write+fdatasync p50 %lf p99 %lf p99.9 %lf max %lf "
                             "ms; acks (read to reply) p50 %lf p99 %lf p99.9 %lf max %lf ms",
                             &recs, &groups, &d50, &d99, &d999, &dmax, &a50, &a99, &a999,
                             &amax)
                   : 0;
    ok (got == 10 && recs == 2 && groups == 2,
        "a clean stop logs its latency line: 2 records in 2 group commits (%d fields)", got);
    ok (got == 10 && a50 >= 250 && amax >= 400 && dmax < 400,
        "acks count from a request's read (p50 %.0f, max %.0f ms, the commits held "
        "400 ms), the disk's part the write and sync alone (max %.1f ms)", a50, amax, dmax);
}

/* The on-disk id index doubles on a thread of its own while ids are
 * added (ids.c): with 2 ids in memory, every resend within the run is
 * answered from the disk index, the ids added while it was being doubled
 * included. */
static void test_ids_grow (void)
{
    struct place pl;
    place_init (&pl, "idsgrow");
    int st;
    pid_t pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
    ok (pid > 0, "daemon starts with 2 ids in memory");
    if (pid < 0)
        return;
    jt_ledger_conn_t cn;
    connect_conn (&cn, pl.sock);
    send_ids (&cn, "g", 0, 300);
    is_int (resends_wrong (&cn, "g", 300, ""), 0, "300 ids (in memory, then merged into a table doubled 3 times at the stop): every resend its seq");
    jt_ledger_conn_free (&cn);
    stop_daemon (pid);
    jt_map_t *ids = verified_ids (pl.dir, "the ledger verifies");
    is_int (jt_map_count (ids), 300, "each id once");
    jt_map_destroy (ids, NULL);

    /* 100 more, then SIGKILL: the next start indexes again the records
     * after the clean stop's stamp, which the table file already holds.
     * Each id must still fill one slot (they filled two, until the table's
     * load passed 1/2 and a start refused its stamp: "not an index") */
    pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
    connect_conn (&cn, pl.sock);
    send_ids (&cn, "g", 300, 400);
    jt_ledger_conn_free (&cn);
    kill (pid, SIGKILL);
    waitpid (pid, &st, 0);
    pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
    connect_conn (&cn, pl.sock);
    is_int (resends_wrong (&cn, "g", 400, " after SIGKILL"), 0,
            "after SIGKILL and a start that indexed the records after the stamp again: "
            "every resend its seq");
    jt_ledger_conn_free (&cn);
    stop_daemon (pid);
    char path[600];
    snprintf (path, sizeof (path), "%s/ledgerd.ids", pl.dir);
    FILE *f = fopen (path, "rb");
    uint64_t slot[2];
    size_t used = 0;
    while (f && fread (slot, sizeof (slot), 1, f) == 1)
        used += slot[0] != 0;
    if (f)
        fclose (f);
    is_int ((int) used, 400, "the table holds each of the 400 ids once");
    unlink (pl.log);
    pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
    ok (strstr (slurp (pl.log), "(the id index stamped by the last run)") != NULL,
        "and the next start uses its stamp");
    stop_daemon (pid);
}

/* How many stamps in the daemon's log merged ids from memory. */
static int stamps_merging (const char *log)
{
    int merges = 0;
    for (const char *p = slurp (log); p && (p = strstr (p, "id index stamped at seq")); p++) {
        unsigned long long seq, n, mem, mib;
        if (sscanf (p, "id index stamped at seq %llu: %llu ids (%llu merged from memory), "
                    "%llu MiB", &seq, &n, &mem, &mib) == 4 && mem > 0)
            merges++;
    }
    return merges;
}

/* The ids appended while serving go into chunks in memory (ids.c's
 * DESIGN), and a stamp merges them into the table on its own thread,
 * while look-ups go on: into the table as it is, or into a doubled one
 * that replaces it. Chunks of 16 slots (8 ids each), a checkpoint every 4
 * records and no minute between stamps, so that 400 ids make many chunks
 * and many merges of both kinds while the resends are answered. */
static void test_ids_merge (void)
{
    struct place pl;
    place_init (&pl, "idsmerge");
    char buf[512], id[32], reply[512];
    static uint64_t seqs[800];
    int st, bad = 0;

    setenv ("JT_LEDGERD_TEST_CHUNK", "16", 1);
    setenv ("JT_LEDGERD_TEST_STAMP_GAP", "0", 1);
    extra2 = "--checkpoint-every=4";
    pid_t pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
    ok (pid > 0, "daemon with chunks of 16 slots and a checkpoint every 4 records");
    if (pid < 0)
        goto out;
    jt_ledger_conn_t cn;
    connect_conn (&cn, pl.sock);
    /* each id sent, then every one before it resent: each resend is a
     * look-up in the chunks or the table as the merges leave them */
    for (int i = 0; i < 400; i++) {
        unsigned long long q = 0;
        snprintf (id, sizeof (id), "m%d", i);
        rpc (&cn, event (buf, sizeof (buf), id), reply, sizeof (reply));
        if (sscanf (reply, "OK %llu", &q) != 1 && bad++ < 3)
            diag ("m%d: %s", i, reply);
        seqs[i] = q;
        /* one earlier id after each, all of them after every 50th */
        for (int j = i % 50 ? (i * 37) % (i ? i : 1) : 0; j < i; j += i % 50 ? i : 1) {
            snprintf (id, sizeof (id), "m%d", j);
            resend_wrong (&cn, id, seqs[j], "", &bad);
        }
    }
    is_int (bad, 0, "400 ids, resends among them: each its seq, none appended twice");
    /* the merges happened while serving, into the table and into doubled ones */
    int merges = stamps_merging (pl.log);
    ok (merges >= 3, "stamps merged the ids in memory while serving: %d merges", merges);
    kill (pid, SIGKILL);
    waitpid (pid, &st, 0);
    jt_ledger_conn_free (&cn);
    /* after SIGKILL: the stamped table and the records after it */
    unsetenv ("JT_LEDGERD_TEST_CHUNK");
    pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
    connect_conn (&cn, pl.sock);
    bad = 0;
    for (int i = 0; i < 400; i++) {
        snprintf (id, sizeof (id), "m%d", i);
        resend_wrong (&cn, id, seqs[i], " after SIGKILL", &bad);
    }
    is_int (bad, 0, "after SIGKILL and a start from the last stamp: every resend its seq");
    jt_ledger_conn_free (&cn);
    stop_daemon (pid);
    /* a clean stop merges what is in memory: the table holds each id once
     * (the checkpoints' ids too when a start indexed them: not counted) */
    char path[600];
    snprintf (path, sizeof (path), "%s/ledgerd.ids", pl.dir);
    FILE *f = fopen (path, "rb");
    static uint64_t table[2 * 4096];
    size_t nslots = f ? fread (table, 2 * sizeof (uint64_t), 4096, f) : 0;
    if (f)
        fclose (f);
    int once = 0;
    for (int i = 0; i < 400; i++) {
        snprintf (id, sizeof (id), "m%d", i);
        uint64_t h = jt_str_hash64 (id);
        int n = 0;
        for (size_t k = 0; k < nslots; k++)
            n += table[2 * k] == h;
        once += n == 1;
    }
    is_int (once, 400, "after a clean stop the table (%zu slots) holds each of the 400 ids "
            "once", nslots);

    /* no checkpoints: the stamps come from the rounds themselves, or the
     * ids in memory would only grow (400 more ids: a quarter of the ids
     * comes twice) */
    extra2 = "--checkpoint-every=0";
    extra3 = "--checkpoint-interval=0";
    setenv ("JT_LEDGERD_TEST_CHUNK", "16", 1);
    unlink (pl.log);
    pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
    connect_conn (&cn, pl.sock);
    for (int i = 400; i < 800; i++) {
        unsigned long long q = 0;
        snprintf (id, sizeof (id), "m%d", i);
        rpc (&cn, event (buf, sizeof (buf), id), reply, sizeof (reply));
        seqs[i] = sscanf (reply, "OK %llu", &q) == 1 ? q : 0;
    }
    merges = stamps_merging (pl.log);
    bad = 0;
    for (int i = 0; i < 800; i++) {
        snprintf (id, sizeof (id), "m%d", i);
        resend_wrong (&cn, id, seqs[i], " without checkpoints", &bad);
    }
    jt_ledger_conn_free (&cn);
    kill (pid, SIGKILL);
    waitpid (pid, &st, 0);
    ok (merges >= 2 && bad == 0, "without checkpoints the ids in memory are merged too "
        "(%d stamps while serving) and every resend answers its seq", merges);
    extra3 = NULL;
out:
    unsetenv ("JT_LEDGERD_TEST_CHUNK");
    unsetenv ("JT_LEDGERD_TEST_STAMP_GAP");
    extra2 = NULL;
}

/* The killer of one crash trial. The instant is decided by progress, not
 * by the clock: once the trial has `after` acknowledgements (so every trial
 * does sustained work, however slow the machine), it waits a random 0-3 ms
 * more -- while the next pipelined batch is being read, written or synced
 * -- and sends SIGKILL. */
struct killer {
    pid_t pid;
    int after;                  /* acknowledgements before the kill */
    int delay_us;               /* then this long */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int acked;                  /* this trial's acknowledgements so far */
    bool gone;                  /* the client gave up (daemon died early) */
};

static void *kill_later (void *arg)
{
    struct killer *k = arg;
    pthread_mutex_lock (&k->mu);
    while (k->acked < k->after && !k->gone)
        pthread_cond_wait (&k->cv, &k->mu);
    pthread_mutex_unlock (&k->mu);
    usleep ((useconds_t) k->delay_us);
    kill (k->pid, SIGKILL);
    return NULL;
}

static void killer_note (struct killer *k, int acked, bool gone)
{
    pthread_mutex_lock (&k->mu);
    k->acked += acked;
    k->gone |= gone;
    pthread_cond_signal (&k->cv);
    pthread_mutex_unlock (&k->mu);
}

static void test_crash (void)
{
    enum { TRIALS = 30, PIPE = 64, KILL_AFTER_MIN = 20, KILL_AFTER_SPREAD = 100 };
    struct place pl;
    char err[256] = "";
    place_init (&pl, "crash");
    jt_map_t *acked = jt_map_create (0);
    uint64_t next_id = 0, nacked = 0, min_acked = 0;
    int lost = 0, bad_status = 0, torn = 0, failed_start = 0;
    unsigned seed = 12345;

    for (int t = 0; t < TRIALS; t++) {
        int st;
        pid_t pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
        if (pid < 0) {
            failed_start++;
            diag ("trial %d: daemon did not start:\n%s", t, slurp (pl.log));
            break;
        }
        struct killer k = { .pid = pid,
                            .after = KILL_AFTER_MIN
                                     + (int) (rand_r (&seed) % KILL_AFTER_SPREAD),
                            .delay_us = (int) (rand_r (&seed) % 3000),
                            .mu = PTHREAD_MUTEX_INITIALIZER,
                            .cv = PTHREAD_COND_INITIALIZER };
        min_acked += (uint64_t) k.after;
        pthread_t th;
        pthread_create (&th, NULL, kill_later, &k);
        jt_ledger_conn_t cn;
        bool alive = connect_conn (&cn, pl.sock) == 0;
        while (alive) {
            char out[PIPE * 128], ids[PIPE][32];
            size_t off = 0;
            for (int i = 0; i < PIPE; i++) {
                char ev[128];
                snprintf (ids[i], sizeof (ids[i]), "e%" PRIu64, next_id++);
                off += (size_t) snprintf (out + off, sizeof (out) - off, "%s\n",
                                          event (ev, sizeof (ev), ids[i]));
            }
            if (jt_ledger_conn_send (&cn, out, off) < 0)
                alive = false;
            char rb[64];
            for (int i = 0; i < PIPE; i++) {
                if (jt_ledger_conn_read_line (&cn, rb, sizeof (rb)) < 0) {
                    alive = false;
                    break;
                }
                unsigned long long seq;
                if (sscanf (rb, "OK %llu", &seq) == 1) {
                    jt_map_put (acked, ids[i], (void *) (uintptr_t) seq, NULL);
                    nacked++;
                    killer_note (&k, 1, false);
                }
            }
        }
        killer_note (&k, 0, true);
        jt_ledger_conn_free (&cn);
        pthread_join (th, NULL);
        waitpid (pid, &st, 0);
        /* before any repair: OK, or a torn tail; never corruption */
        jt_map_t *ids = jt_map_create (0);
        jt_ledger_status_t s = read_ids (pl.dir, ids, err);
        if (s == JT_LEDGER_TRUNCATED)
            torn++;
        else if (s != JT_LEDGER_OK && s != JT_LEDGER_EMPTY) {
            bad_status++;
            diag ("trial %d: ledger after SIGKILL is %s %s", t,
                  jt_ledger_status_str (s), err);
        }
        jt_map_destroy (ids, NULL);
    }
    /* restart once more: recovery, then every acknowledged id is there with
     * its acknowledged seq and the ledger verifies */
    int st;
    pid_t pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    ok (pid > 0, "daemon restarts after %d SIGKILLs", TRIALS);
    if (pid > 0)
        stop_daemon (pid);
    jt_map_t *ids = jt_map_create (0);
    jt_ledger_status_t s = read_ids (pl.dir, ids, err);
    is (jt_ledger_status_str (s), "OK", "chain intact after recovery %s", err);
    size_t n;
    const char **keys = jt_map_sorted_keys (acked, &n);
    for (size_t i = 0; i < n; i++)
        if (jt_map_get (ids, keys[i]) != jt_map_get (acked, keys[i]))
            if (lost++ < 5)
                diag ("acked id %s (seq %" PRIuPTR ") missing or moved", keys[i],
                      (uintptr_t) jt_map_get (acked, keys[i]));
    free (keys);
    ok (nacked >= min_acked,
        "sustained appends: %" PRIu64 " acknowledged (each trial killed after its"
        " %d..%d acks) of %" PRIu64 " sent", nacked, KILL_AFTER_MIN,
        KILL_AFTER_MIN + KILL_AFTER_SPREAD - 1, next_id);
    is_int (failed_start, 0, "daemon started in every trial");
    is_int (lost, 0, "no acknowledged event lost (each at its acknowledged seq)");
    is_int (bad_status, 0, "no trial left a corrupt ledger (%d left a torn tail)",
            torn);
    diag ("crash: %d trials, %" PRIu64 " acked, %zu records, %d torn tails", TRIALS,
          nacked, jt_map_count (ids), torn);
    jt_map_destroy (ids, NULL);
    jt_map_destroy (acked, NULL);
}

static void test_torn (void)
{
    struct place pl;
    char seg[600], buf[256], reply[256];
    place_init (&pl, "torn");
    snprintf (seg, sizeof (seg), "%s/ledger-00000000000000000001.jtl", pl.dir);
    int st;
    pid_t pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    jt_ledger_conn_t cn;
    connect_conn (&cn, pl.sock);
    for (int i = 0; i < 5; i++) {
        char id[16];
        snprintf (id, sizeof (id), "t%d", i);
        rpc (&cn, event (buf, sizeof (buf), id), reply, sizeof (reply));
    }
    jt_ledger_conn_free (&cn);
    stop_daemon (pid);
    struct stat sb;
    stat (seg, &sb);
    off_t good = sb.st_size;
    FILE *f = fopen (seg, "a");
    fputs ("JT1 6 00ab half a rec", f);
    fclose (f);
    unlink (pl.log);
    pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    ok (pid > 0, "daemon starts with half a record at the end");
    char want[1200];
    snprintf (want, sizeof (want), "truncated a torn tail: %s offset %lld (seq 6)", seg,
              (long long) good);
    ok (strstr (slurp (pl.log), want) != NULL, "and logs '%s'", want);
    connect_conn (&cn, pl.sock);
    rpc (&cn, event (buf, sizeof (buf), "t5"), reply, sizeof (reply));
    is (reply, "OK 6", "the next event takes seq 6");
    jt_ledger_conn_free (&cn);
    stop_daemon (pid);
    f = fopen (seg, "a");
    fputs ("garbage\x01\x02 no line end", f);
    fclose (f);
    unlink (pl.log);
    pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    ok (pid > 0 && strstr (slurp (pl.log), "truncated a torn tail"),
        "garbage without a line end is a torn tail too");
    stop_daemon (pid);
    /* whole lines are not what a torn write leaves: damage, refused */
    stat (seg, &sb);
    good = sb.st_size;
    f = fopen (seg, "a");
    static const char lines[] = "garbage\n\n\x01\x02more garbage\n";
    fputs (lines, f);
    fclose (f);
    unlink (pl.log);
    pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    snprintf (want, sizeof (want), "CORRUPT at seq 7, %s offset %lld: malformed record "
              "with whole lines after it at the end of the last segment", seg,
              (long long) good);
    ok (pid < 0 && strstr (slurp (pl.log), want), "garbage lines at the end: refused, "
        "'%s'", want);
    stop_daemon (pid); /* started after all: the check failed */
    ok (stat (seg, &sb) == 0 && sb.st_size == good + (off_t) strlen (lines),
        "and nothing was cut");
    unlink (pl.log);
    pid = start_daemon (pl.dir, pl.sock, pl.log, "--truncate-damaged-tail", &st);
    ok (pid > 0 && strstr (slurp (pl.log), "--truncate-damaged-tail: cut a damaged tail")
            && stat (seg, &sb) == 0 && sb.st_size == good,
        "--truncate-damaged-tail: the operator cuts them");
    stop_daemon (pid);
    /* garbage in the middle: refuse with the offset (the recovery reads
     * from the id index's stamp on; the fold, from genesis here since no
     * checkpoint serves, finds it) */
    stat (seg, &sb);
    char *text = malloc ((size_t) sb.st_size + 16);
    f = fopen (seg, "r");
    size_t n = fread (text, 1, (size_t) sb.st_size, f);
    text[n] = '\0';
    fclose (f);
    char *second = strchr (text, '\n') + 1;
    second[5] ^= 0x20;
    f = fopen (seg, "w");
    fwrite (text, 1, n, f);
    fclose (f);
    unlink (pl.log);
    pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    ok (pid < 0 && WIFEXITED (st) && WEXITSTATUS (st) == 1,
        "damage in the middle: the daemon refuses to start");
    snprintf (want, sizeof (want), "CORRUPT at seq 2, %s offset %td", seg,
              second - text);
    ok (strstr (slurp (pl.log), want) != NULL, "and names '%s'", want);
    /* the launcher of a background daemon gets the error too */
    char cmd[4096];
    snprintf (cmd, sizeof (cmd), "%s -d %s -S %s -u 0 2>%s.bg", daemon_path, pl.dir,
              pl.sock, pl.log);
    int rc = system (cmd);
    ok (WIFEXITED (rc) && WEXITSTATUS (rc) == 1,
        "background start fails with status 1");
    snprintf (cmd, sizeof (cmd), "%s.bg", pl.log);
    ok (strstr (slurp (cmd), "CORRUPT at seq 2") != NULL,
        "and the launching shell sees why");
    free (text);
}

/* Write n events TAG0..TAG(n-1) to a new daemon in pl and stop it (the
 * durable head is then saved); returns the segment's text (malloc'd). */
static char *fill (const struct place *pl, const char *tag, int n, size_t *len)
{
    char seg[600], buf[256], reply[256], id[32];
    jt_ledger_conn_t cn;
    struct stat sb;
    int st;
    pid_t pid = start_daemon (pl->dir, pl->sock, pl->log, NULL, &st);

    if (pid < 0)
        bail_out ("daemon did not start:\n%s", slurp (pl->log));
    connect_conn (&cn, pl->sock);
    for (int i = 0; i < n; i++) {
        snprintf (id, sizeof (id), "%s%d", tag, i);
        rpc (&cn, event (buf, sizeof (buf), id), reply, sizeof (reply));
    }
    jt_ledger_conn_free (&cn);
    stop_daemon (pid);
    snprintf (seg, sizeof (seg), "%s/ledger-00000000000000000001.jtl", pl->dir);
    stat (seg, &sb);
    char *text = malloc ((size_t) sb.st_size + 1);
    FILE *f = fopen (seg, "r");
    *len = f ? fread (text, 1, (size_t) sb.st_size, f) : 0;
    if (f)
        fclose (f);
    return text;
}

static void put_file (const char *path, const char *buf, size_t len)
{
    FILE *f = fopen (path, "w");
    if (!f || fwrite (buf, 1, len, f) != len || fclose (f) != 0)
        bail_out ("cannot write %s", path);
}

/* The durable head is saved while the daemon runs (about a second after
 * the appends, on its own thread: server.c's save_head), not only at a
 * clean stop: after SIGKILL the file names the last acknowledged record. */
static void test_head_running (void)
{
    struct place pl;
    char buf[256], reply[256], id[32], head[600], want[128] = "";
    jt_ledger_conn_t cn;
    int st;
    place_init (&pl, "head");
    pid_t pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    if (pid < 0)
        bail_out ("daemon did not start:\n%s", slurp (pl.log));
    connect_conn (&cn, pl.sock);
    for (int i = 0; i < 3; i++) {
        snprintf (id, sizeof (id), "h%d", i);
        rpc (&cn, event (buf, sizeof (buf), id), reply, sizeof (reply));
    }
    rpc (&cn, "HEAD", reply, sizeof (reply)); /* "HEAD 3 <hash>" */
    unsigned long long seq = 0;
    char hash[65] = "";
    if (sscanf (reply, "HEAD %llu %64s", &seq, hash) == 2)
        snprintf (want, sizeof (want), "%llu:%s\n", seq, hash);
    snprintf (head, sizeof (head), "%s/ledgerd.head", pl.dir);
    for (int i = 0; i < 500 && strcmp (slurp (head), want); i++)
        msleep (10); /* a second and a few ms; bounded at 5 s */
    kill (pid, SIGKILL);
    waitpid (pid, &st, 0);
    jt_ledger_conn_free (&cn);
    ok (seq == 3 && !strcmp (slurp (head), want),
        "the durable head saved while running names the last record (%s)", want);
}

/* The daemon never cuts an acknowledged record (issue 9): a flipped byte in
 * the last record, a CRLF conversion of the last segment, the last record
 * cut at its boundary are refused at start-up, naming file and offset (or
 * the durable head), and nothing is cut; a misnamed empty last segment is
 * refused with a clear line. */
static void test_tail_damage (void)
{
    struct place pl;
    char seg[600], want[1024];
    size_t len;
    int st;
    pid_t pid;
    struct stat sb;
    place_init (&pl, "tail");
    snprintf (seg, sizeof (seg), "%s/ledger-00000000000000000001.jtl", pl.dir);
    char *text = fill (&pl, "d", 3, &len), *copy = malloc (2 * len + 1);
    size_t last = len - 1;
    while (last > 0 && text[last - 1] != '\n')
        last--; /* the last record's offset */

    memcpy (copy, text, len);
    copy[last + 40] ^= 0x01;
    put_file (seg, copy, len);
    unlink (pl.log);
    pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    snprintf (want, sizeof (want), "CORRUPT at seq 3, %s offset %zu: record hash mismatch "
              "(a complete record) at the end of the last segment", seg, last);
    ok (pid < 0 && WIFEXITED (st) && WEXITSTATUS (st) == 1 && strstr (slurp (pl.log), want),
        "one flipped byte in the last (acknowledged) record: refused, '%s'", want);
    stop_daemon (pid); /* started after all: the check failed */
    ok (stat (seg, &sb) == 0 && (size_t) sb.st_size == len, "and nothing was cut");

    size_t cl = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n')
            copy[cl++] = '\r';
        copy[cl++] = text[i];
    }
    put_file (seg, copy, cl);
    unlink (pl.log);
    pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    snprintf (want, sizeof (want), "CORRUPT at seq 1, %s offset 0: record not ended by LF",
              seg);
    ok (pid < 0 && strstr (slurp (pl.log), want),
        "a CRLF-converted last segment: refused, '%s'", want);
    stop_daemon (pid); /* started after all: the check failed */
    ok (stat (seg, &sb) == 0 && (size_t) sb.st_size == cl, "and nothing was cut");

    put_file (seg, text, last);
    unlink (pl.log);
    pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    snprintf (want, sizeof (want), "durable head %s/ledgerd.head: seq 3 was durable, "
              "maybe acknowledged, but the ledger ends at seq 2", pl.dir);
    ok (pid < 0 && strstr (slurp (pl.log), want),
        "the last record cut at its boundary: refused, '%s'", want);
    stop_daemon (pid); /* started after all: the check failed */

    put_file (seg, text, len);
    char stray[700];
    snprintf (stray, sizeof (stray), "%s/ledger-00000000000000000099.jtl", pl.dir);
    put_file (stray, "", 0);
    unlink (pl.log);
    pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    snprintf (want, sizeof (want), "BADSEQ at seq 4, %s offset 0: empty last segment "
              "named for seq 99, the next record is seq 4 (remove it)", stray);
    ok (pid < 0 && strstr (slurp (pl.log), want),
        "a misnamed empty last segment (a stray touch): refused, '%s'", want);
    stop_daemon (pid); /* started after all: the check failed */
    unlink (stray);
    unlink (pl.log);
    pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    ok (pid > 0, "repaired, the daemon starts");
    if (pid > 0)
        stop_daemon (pid);
    free (copy);
    free (text);
}

/* Idempotency for every id in the ledger (issue 9): with an in-memory index
 * of 2 ids, a resend of the first event (long evicted) answers its original
 * seq, before and after a restart, and nothing is appended twice. */
static void test_eviction (void)
{
    struct place pl;
    char buf[256], reply[256], id[32];
    jt_ledger_conn_t cn;
    int st, dups = 0;
    place_init (&pl, "evict");
    pid_t pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
    ok (pid > 0, "daemon with an in-memory index of 2 ids");
    if (pid < 0)
        return;
    connect_conn (&cn, pl.sock);
    send_ids (&cn, "v", 0, 50);
    is_int (resends_wrong (&cn, "v", 50, ""), 0, "a resend of any of 50 ids answers its original seq");
    rpc (&cn, event (buf, sizeof (buf), "v50"), reply, sizeof (reply));
    is (reply, "OK 51", "a new id still appends");
    jt_ledger_conn_free (&cn);
    stop_daemon (pid);
    pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
    connect_conn (&cn, pl.sock);
    rpc (&cn, event (buf, sizeof (buf), "v0"), reply, sizeof (reply));
    is (reply, "OK 1", "after a restart too (the first of 51)");
    /* that start used the index the clean stop stamped (issue 37): it read
     * only the stamped record (51) and indexed none, and answers every id */
    ok (strstr (slurp (pl.log), "1 records read in 1 segments (the id index stamped by "
                                "the last run)") != NULL,
        "a restart after a clean stop indexes no record (the stamped index)");
    is_int (resends_wrong (&cn, "v", 51, " after a restart"), 0, "and every one of the 51 ids answers its original seq");
    /* records after the stamp, then SIGKILL and the index file as the stamp
     * left it (as a power cut may: its later pages were never synced): the
     * next start indexes them again */
    char cmd[1400];
    snprintf (cmd, sizeof (cmd), "cp %s/ledgerd.ids %s/ids.at-stamp", pl.dir, pl.dir);
    if (system (cmd) != 0)
        bail_out ("%s failed", cmd);
    send_ids (&cn, "v", 51, 60);
    jt_ledger_conn_free (&cn);
    kill (pid, SIGKILL);
    waitpid (pid, &st, 0);
    snprintf (cmd, sizeof (cmd), "mv %s/ids.at-stamp %s/ledgerd.ids", pl.dir, pl.dir);
    if (system (cmd) != 0)
        bail_out ("%s failed", cmd);
    pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
    connect_conn (&cn, pl.sock);
    is_int (resends_wrong (&cn, "v", 60, " after SIGKILL"), 0, "after SIGKILL, the index file as stamped: it and the 9 records "
                     "after the stamp, indexed again, answer all 60 ids");
    jt_ledger_conn_free (&cn);
    stop_daemon (pid);
    /* checkpoints every 4 records: the index is stamped when one is due (on a
     * thread of its own); SIGKILL at any point, and every id answers its
     * seq at the next start */
    /* a stamp writes the whole table back: not after every checkpoint,
     * only once the records since the last reach a quarter of the ids,
     * and never within a minute of the last (server.c's stamp_due). Two
     * runs of 20 events (25 records, 5 checkpoints each): the first with
     * that minute, so none (its start read the clean stop's stamp); the
     * second without it (JT_LEDGERD_TEST_STAMP_GAP=0), so the quarter of
     * the ~80 ids makes one due at most (timing only skips one) */
    extra2 = "--checkpoint-every=4";
    uint64_t cseq[40] = { 0 };
    for (int run = 0; run < 2; run++) {
        if (run)
            setenv ("JT_LEDGERD_TEST_STAMP_GAP", "0", 1);
        unlink (pl.log);
        pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
        unsetenv ("JT_LEDGERD_TEST_STAMP_GAP");
        connect_conn (&cn, pl.sock);
        for (int i = 20 * run; i < 20 * run + 20; i++) {
            unsigned long long q = 0;
            snprintf (id, sizeof (id), "c%d", i);
            rpc (&cn, event (buf, sizeof (buf), id), reply, sizeof (reply));
            if (sscanf (reply, "OK %llu", &q) != 1)
                diag ("c%d: %s", i, reply);
            cseq[i] = q;
        }
        jt_ledger_conn_free (&cn);
        if (!run) /* a clean stop joins a stamp being written: logged */
            stop_daemon (pid);
        int nstamps = 0;
        for (const char *p = slurp (pl.log); p && (p = strstr (p, "id index stamped at seq"));
             p++)
            nstamps++;
        if (!run)
            is_int (nstamps, 0, "5 checkpoints within a minute of the last stamp: no stamp");
        else
            ok (nstamps <= 1, "5 checkpoints after 60 ids, no minute between stamps: %d "
                "stamp(s) of the id index, at most 1", nstamps);
    }
    kill (pid, SIGKILL);
    waitpid (pid, &st, 0);
    unlink (pl.log);
    pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
    extra2 = NULL;
    /* which stamp serves depends on when the kill fell (one being written,
     * or older than the table's last growth: then none, and the whole
     * ledger is indexed); either way every id must answer */
    ok (pid > 0, "checkpoints every 4 records, then SIGKILL: the daemon starts (%s)",
        strstr (slurp (pl.log), "(the id index stamped by the last run)")
            ? "from a stamp"
            : "no stamp served");
    connect_conn (&cn, pl.sock);
    for (int i = dups = 0; i < 100; i++) {
        if (i < 60)
            snprintf (id, sizeof (id), "v%d", i);
        else
            snprintf (id, sizeof (id), "c%d", i - 60);
        resend_wrong (&cn, id, i < 60 ? (uint64_t) i + 1 : cseq[i - 60], "", &dups);
    }
    is_int (dups, 0, "and all 100 ids (40 among checkpoints) answer their seqs");
    jt_ledger_conn_free (&cn);
    stop_daemon (pid);
    /* a stamp that does not fit the ledger: the whole ledger is indexed */
    char stamp[600];
    snprintf (stamp, sizeof (stamp), "%s/ledgerd.ids.stamp", pl.dir);
    /* the stamp's seq made one more */
    char *stext = slurp (stamp), *sl = stext ? strstr (stext, "\nseq ") : NULL;
    unsigned long long sseq = 0;
    if (!sl || sscanf (sl, "\nseq %llu", &sseq) != 1)
        bail_out ("no seq in %s", stamp);
    char *rest = strchr (sl + 5, ' '), newtext[8192];
    snprintf (newtext, sizeof (newtext), "%.*sseq %llu%s", (int) (sl + 1 - stext), stext,
              sseq + 1, rest);
    FILE *sf = fopen (stamp, "w");
    if (!sf || fputs (newtext, sf) == EOF || fclose (sf) != 0)
        bail_out ("cannot change %s", stamp);
    pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
    char want[900];
    snprintf (want, sizeof (want), "id index: indexing the whole ledger (the stamp's "
              "record %llu is not in the ledger as stamped)", sseq + 1);
    ok (strstr (slurp (pl.log), want) != NULL,
        "a stamp naming another record: refused, the whole ledger indexed");
    connect_conn (&cn, pl.sock);
    rpc (&cn, event (buf, sizeof (buf), "v59"), reply, sizeof (reply));
    is (reply, "OK 60", "and a resend still answers its seq");
    jt_ledger_conn_free (&cn);
    stop_daemon (pid);
    jt_map_t *ids = verified_ids (pl.dir, "the ledger verifies");
    is_int (jt_map_count (ids), 100 + 11, "100 events, each once, and 11 checkpoints");
    jt_map_destroy (ids, NULL);

    /* a crash between a doubling's unlink of the table and its rename
     * (ids.c's take_name): a stamp, no table; the whole ledger indexed */
    char table[600];
    snprintf (table, sizeof (table), "%s/ledgerd.ids", pl.dir);
    ok (access (stamp, F_OK) == 0 && unlink (table) == 0,
        "a stamp (the clean stop's) and the table removed");
    pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
    snprintf (want, sizeof (want), "id index: indexing the whole ledger (%s is not the "
              "stamp's", table);
    ok (strstr (slurp (pl.log), want) != NULL,
        "no table for the stamp: the whole ledger indexed");
    connect_conn (&cn, pl.sock);
    rpc (&cn, event (buf, sizeof (buf), "c7"), reply, sizeof (reply));
    snprintf (want, sizeof (want), "OK %" PRIu64, cseq[7]);
    is (reply, want, "and a resend answers its seq");
    jt_ledger_conn_free (&cn);
    stop_daemon (pid);

    /* the record cannot be read: fail closed rather than append a copy */
    char seg[600], moved[700];
    snprintf (seg, sizeof (seg), "%s/ledger-00000000000000000001.jtl", pl.dir);
    snprintf (moved, sizeof (moved), "%s.away", seg);
    pid = start_daemon (pl.dir, pl.sock, pl.log, "--index-size=2", &st);
    if (pid < 0)
        bail_out ("daemon did not start:\n%s", slurp (pl.log));
    rename (seg, moved);
    connect_conn (&cn, pl.sock);
    rpc (&cn, event (buf, sizeof (buf), "v3"), reply, sizeof (reply));
    jt_ledger_conn_free (&cn);
    pid_t gone = 0;
    for (int i = 0; i < 4000 && (gone = waitpid (pid, &st, WNOHANG)) == 0; i++)
        msleep (5); /* it exits at once; bounded so a failure cannot hang */
    if (gone == 0)
        stop_daemon (pid);
    ok (gone == pid && !strncmp (reply, "ERR FAIL id index: ", 19) && WIFEXITED (st)
            && WEXITSTATUS (st) == 1,
        "an evicted id whose record cannot be read: ERR FAIL, the daemon stops (%s)",
        reply);
    rename (moved, seg);
    ids = verified_ids (pl.dir, "the ledger still verifies");
    is_int (jt_map_count (ids), 111, "with nothing appended");
    jt_map_destroy (ids, NULL);
}

/* How a client running as nobody meets the daemon (test_permission). */
enum nobody_way {
    NOBODY_RPC,           /* connect and send one event, as the tests do */
    NOBODY_REFUSED_FIRST, /* wait until the daemon refused and closed, then send */
    NOBODY_SENT_FIRST,    /* send while the daemon is stopped, then let it refuse */
    NOBODY_CLIENT,        /* the public client: submit, wait for the refusal */
};

/* Wait until the daemon has closed its end of c (bounded; not a timing
 * assumption: the condition is polled). 0 when it has. The refusal line
 * arrives just before the close: POLLIN is not asked for, or poll would
 * return at once for that line and the 4,000 tries would be spent in a few
 * milliseconds while the daemon is still between its write and its close
 * (a loaded machine made this test fail that way). Each try waits up to
 * 5 ms for the hang-up (POLLHUP is always reported); a half-close alone
 * (POLLRDHUP) waits 5 ms before the next. */
static int wait_peer_closed (jt_ledger_conn_t *c)
{
    for (int i = 0; i < 4000; i++) {
        struct pollfd pf = { .fd = c->fd, .events = POLLRDHUP };
        int n = poll (&pf, 1, 5);
        if (n == 1 && (pf.revents & POLLHUP))
            return 0;
        if (n == 1)
            msleep (5);
    }
    return -1;
}

static void nobody_client (const char *sock, const char *spool, char *out, size_t len)
{
    jt_error_t err = { "" };
    jt_ledger_client_opts_t o = { .socket = sock, .spool = spool,
                                  .timeout_ms = CONN_TIMEOUT_MS,
                                  /* no resend from the spool during the test */
                                  .retry_ms = 600000 };
    jt_ledger_client_t *c = jt_ledger_client_create (&o, &err);
    char ev[256];
    event (ev, sizeof (ev), "intruder");
    if (!c || jt_ledger_client_submit (c, ev, strlen (ev), &err) < 0) {
        snprintf (out, len, "client: %s", err.text);
        jt_ledger_client_destroy (c);
        return;
    }
    jt_ledger_client_stats_t st = { 0 };
    for (int i = 0; i < 4000; i++) {
        jt_ledger_client_stats (c, &st);
        if (st.refused && st.pending == st.spooled && st.spooled)
            break;
        msleep (5);
    }
    snprintf (out, len, "%s; refused %" PRIu64 ", acked %" PRIu64 ", pending %" PRIu64,
              st.last_refusal, st.refused, st.acked, st.pending);
    jt_ledger_client_destroy (c);
}

/* Fork a client as nobody, run it the given way, return what it saw in
 * reply. With NOBODY_SENT_FIRST, daemon is stopped until the child has
 * sent. */
static void as_nobody (enum nobody_way way, const char *sock, const char *spool,
                       pid_t daemon, char *reply, size_t len)
{
    int p[2], sync[2];
    if (pipe (p) < 0 || pipe (sync) < 0)
        bail_out ("pipe: %s", strerror (errno));
    if (way == NOBODY_SENT_FIRST)
        kill (daemon, SIGSTOP);
    pid_t pid = fork ();
    if (pid == 0) {
        close (p[0]);
        close (sync[0]);
        char out[512] = "", ev[256], line[JT_LEDGER_REFUSAL_MAX] = "";
        jt_ledger_conn_t cn;
        if (setgroups (0, NULL) < 0 || setgid (65534) < 0 || setuid (65534) < 0)
            snprintf (out, sizeof (out), "setuid failed");
        else if (way == NOBODY_CLIENT)
            nobody_client (sock, spool, out, sizeof (out));
        else if (connect_conn (&cn, sock) < 0)
            snprintf (out, sizeof (out), "connect: %s", strerror (errno));
        else if (way == NOBODY_RPC) {
            if (rpc (&cn, event (ev, sizeof (ev), "intruder"), out, sizeof (out)) < 0)
                snprintf (out, sizeof (out), "(closed)");
        } else {
            if (way == NOBODY_REFUSED_FIRST && wait_peer_closed (&cn) < 0)
                snprintf (out, sizeof (out), "the daemon never closed; ");
            char req[300];
            snprintf (req, sizeof (req), "%s\n", event (ev, sizeof (ev), "intruder"));
            int sent = jt_ledger_conn_send (&cn, req, strlen (req));
            int e = errno;
            if (way == NOBODY_SENT_FIRST && write (sync[1], "s", 1) != 1)
                _exit (1);
            int got = jt_ledger_conn_read_line (&cn, line, sizeof (line));
            snprintf (out + strlen (out), sizeof (out) - strlen (out),
                      "send: %s; reply: %s", sent == 0 ? "ok" : strerror (e),
                      got == 0 ? line : "(none)");
        }
        if (write (p[1], out, strlen (out)) < 0)
            _exit (1);
        _exit (0);
    }
    close (p[1]);
    close (sync[1]);
    if (way == NOBODY_SENT_FIRST) {
        char b;
        if (read (sync[0], &b, 1) != 1)
            diag ("the client never said it had sent");
        kill (daemon, SIGCONT);
    }
    close (sync[0]);
    size_t n = 0;
    ssize_t k;
    while (n + 1 < len && (k = read (p[0], reply + n, len - 1 - n)) > 0)
        n += (size_t) k;
    reply[n] = '\0';
    close (p[0]);
    int st;
    waitpid (pid, &st, 0);
}

#define DENIED "ERR DENIED uid 65534 may not append (root or SlurmUser)"

static void test_permission (void)
{
    if (geteuid () != 0) {
        skip (6, "permission test needs root (to run a client as nobody)");
        return;
    }
    struct place pl;
    char spooldir[512], spool[600], reply[512];
    place_init (&pl, "perm");
    snprintf (spooldir, sizeof (spooldir), "%s/perm-spool", tmpdir);
    snprintf (spool, sizeof (spool), "%s/spool", spooldir);
    mkdir (spooldir, 0700);
    if (chown (spooldir, 65534, 65534) < 0)
        bail_out ("chown %s: %s", spooldir, strerror (errno));
    chmod (tmpdir, 0711);
    int st;
    pid_t pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    as_nobody (NOBODY_RPC, pl.sock, NULL, pid, reply, sizeof (reply));
    is (reply, "connect: Permission denied",
        "nobody cannot even connect (socket 0660)");
    stop_daemon (pid);
    pid = start_daemon (pl.dir, pl.sock, pl.log, "--socket-mode=0666", &st);
    as_nobody (NOBODY_RPC, pl.sock, NULL, pid, reply, sizeof (reply));
    is (reply, DENIED, "with a world-writable socket, peer credentials still refuse nobody");
    /* The daemon refuses at accept: the refusal may come before the
     * request is sent or after. Both orders, forced: */
    as_nobody (NOBODY_REFUSED_FIRST, pl.sock, NULL, pid, reply, sizeof (reply));
    is (reply, "send: Broken pipe; reply: " DENIED,
        "refused before the request is sent: the send fails, the refusal is read");
    as_nobody (NOBODY_SENT_FIRST, pl.sock, NULL, pid, reply, sizeof (reply));
    is (reply, "send: ok; reply: " DENIED,
        "refused after the request is sent: the refusal is the reply");
    as_nobody (NOBODY_CLIENT, pl.sock, spool, pid, reply, sizeof (reply));
    is (reply, DENIED "; refused 1, acked 0, pending 1",
        "the library client reports the refusal and keeps the event (spooled)");
    stop_daemon (pid);
    jt_map_t *ids = jt_map_create (0);
    char err[256];
    read_ids (pl.dir, ids, err);
    ok (jt_map_get (ids, "intruder") == NULL, "nothing was appended");
    jt_map_destroy (ids, NULL);
}

static void test_spool (void)
{
    struct place pl;
    place_init (&pl, "spool");
    jt_error_t err = { "" };
    jt_ledger_client_opts_t o = {
        .socket = pl.sock, .spool = pl.spool, .timeout_ms = 2000, .retry_ms = 50
    };
    jt_ledger_client_t *c = jt_ledger_client_create (&o, &err);
    ok (c != NULL, "client starts while the daemon is down");
    is_int (submit_range (c, "s", 0, 100), 0,
            "submit never fails while the daemon is down");
    ok (jt_ledger_client_flush (c, 300) < 0 && errno == ETIMEDOUT,
        "flush times out while the daemon is down");
    jt_ledger_client_stats_t st;
    jt_ledger_client_stats (c, &st);
    is_int (st.spooled, 100, "all 100 events went to the spool");
    is_int (st.pending, 100, "and are pending");
    /* a new process takes over the spool: destroy, then recreate later */
    jt_ledger_client_destroy (c);
    int s;
    pid_t pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &s);
    if (pid < 0)
        bail_out ("daemon did not start:\n%s", slurp (pl.log));
    c = jt_ledger_client_create (&o, &err);
    submit_range (c, "s", 100, 120);
    ok (jt_ledger_client_flush (c, 20000) == 0, "daemon back: everything settles");
    jt_ledger_client_stats (c, &st);
    is_int (st.pending, 0, "nothing pending");
    struct stat sb;
    ok (stat (pl.spool, &sb) == 0 && sb.st_size == 0, "spool is empty");
    /* daemon killed mid-stream: the rest is spooled, then drained */
    kill (pid, SIGKILL);
    waitpid (pid, &s, 0);
    submit_range (c, "s", 120, 150);
    msleep (200);
    pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &s);
    ok (jt_ledger_client_flush (c, 20000) == 0,
        "after a SIGKILL and restart it settles");
    jt_ledger_client_destroy (c);
    stop_daemon (pid);

    /* exactly once, in order */
    expect_once_in_order (pl.dir, "s", 150);
}

/* A write that fails must not be acknowledged: the daemon cuts the batch
 * back, answers ERR FAIL and exits; a restart finds exactly the acked
 * records. */
static void test_fail_closed (void)
{
    struct place pl;
    char buf[256], reply[256];
    place_init (&pl, "full");
    int st;
    fsize_limit = 2000;
    pid_t pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    fsize_limit = RLIM_INFINITY;
    jt_ledger_conn_t cn;
    int oks = 0;
    connect_conn (&cn, pl.sock);
    char last[256] = "";
    for (int i = 0; i < 100; i++) {
        char id[16];
        snprintf (id, sizeof (id), "f%d", i);
        if (rpc (&cn, event (buf, sizeof (buf), id), reply, sizeof (reply)) < 0)
            break;
        snprintf (last, sizeof (last), "%s", reply);
        if (strncmp (reply, "OK ", 3))
            break;
        oks++;
    }
    jt_ledger_conn_free (&cn);
    ok (!strncmp (last, "ERR FAIL ", 9), "a failed write answers ERR FAIL (%.60s)",
        last);
    waitpid (pid, &st, 0);
    ok (WIFEXITED (st) && WEXITSTATUS (st) == 1, "and the daemon exits (fail closed)");
    ok (strstr (slurp (pl.log), "fatal: ledger ") != NULL, "and logs why");
    pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    ok (pid > 0, "it restarts on the same ledger");
    if (pid > 0)
        stop_daemon (pid);
    jt_map_t *ids = verified_ids (pl.dir, "the ledger verifies");
    is_int (jt_map_count (ids), oks, "it holds exactly the %d acknowledged events",
            oks);
    jt_map_destroy (ids, NULL);
}

/* One writer per ledger directory (jobtree-ledgerd(8), "One writer"): a
 * second daemon on the same directory is refused (exit 3) or, with
 * --wait-lock, waits, saying who holds it, and takes over once the holder
 * is killed; resends of what the first acknowledged get their original
 * seq from the second (idempotency across daemons, as across hosts: its id
 * index is rebuilt from the ledger); a daemon whose epoch another took is
 * refused at its next commit and exits 4 without acknowledging. */
static void test_failover (void)
{
    struct place a, b;
    char buf[256], reply[256], want[256], path[600];
    int st;
    jt_ledger_conn_t cn;

    place_init (&a, "fo-a");
    place_init (&b, "fo-b");
    pid_t pa = start_daemon (a.dir, a.sock, a.log, NULL, &st);
    if (pa < 0)
        bail_out ("failover: the first daemon did not start");
    connect_conn (&cn, a.sock);
    for (int i = 0; i < 3; i++) {
        char id[16];
        snprintf (id, sizeof (id), "fo%d", i);
        rpc (&cn, event (buf, sizeof (buf), id), reply, sizeof (reply));
        snprintf (want, sizeof (want), "OK %d", i + 1);
        is (reply, want, "the first daemon acknowledges fo%d", i);
    }
    jt_ledger_conn_free (&cn);

    pid_t pb = start_daemon (a.dir, b.sock, b.log, NULL, &st);
    ok (pb < 0 && WIFEXITED (st) && WEXITSTATUS (st) == 3,
        "a second daemon on the same ledger is refused, exit status 3");
    snprintf (want, sizeof (want), "held by pid %d on host ", (int) pa);
    ok (strstr (slurp (b.log), want) != NULL, "naming the holder: %s", want);

    /* the second waits, then takes over from a killed first */
    extra2 = "--lock-poll=20";
    pb = spawn_daemon (a.dir, b.sock, b.log, "--wait-lock");
    extra2 = NULL;
    bool waiting = false;
    for (int i = 0; i < 400 && !waiting; i++) {
        msleep (5);
        waiting = strstr (slurp (b.log), "; waiting") != NULL;
    }
    ok (waiting, "--wait-lock: it logs that it waits");
    ok (connect_conn (&cn, b.sock) < 0, "and does not listen meanwhile");
    jt_ledger_conn_free (&cn);
    kill (pa, SIGKILL);
    waitpid (pa, &st, 0);
    int up = -1;
    for (int i = 0; i < 2000 && up < 0; i++) {
        if ((up = connect_conn (&cn, b.sock)) < 0) {
            jt_ledger_conn_free (&cn);
            msleep (5);
        }
    }
    ok (up == 0, "once the first is killed, the second serves the ledger");
    for (int i = 0; i < 3; i++) {
        char id[16];
        snprintf (id, sizeof (id), "fo%d", i);
        rpc (&cn, event (buf, sizeof (buf), id), reply, sizeof (reply));
        snprintf (want, sizeof (want), "OK %d", i + 1);
        is (reply, want, "a resend of fo%d gets its seq from the first daemon", i);
    }
    rpc (&cn, event (buf, sizeof (buf), "fo3"), reply, sizeof (reply));
    is (reply, "OK 4", "a new event continues the chain");
    ok (strstr (slurp (b.log), "writer epoch 2, taken over from a writer that did not "
                               "stop") != NULL,
        "its log says it took epoch 2 from a writer that did not stop");

    /* fenced: its epoch taken behind its back, the next commit is refused */
    snprintf (path, sizeof (path), "%s/%s", a.dir, JT_LEDGER_EPOCH_FILE);
    FILE *f = fopen (path, "r+");
    if (!f || fputs ("00000000000000000003 writing\n", f) < 0 || fclose (f) != 0)
        bail_out ("%s: %s", path, strerror (errno));
    rpc (&cn, event (buf, sizeof (buf), "fo4"), reply, sizeof (reply));
    ok (!strncmp (reply, "ERR FAIL ", 9) && strstr (reply, "fenced"),
        "a daemon whose epoch was taken refuses its next commit: %.90s", reply);
    jt_ledger_conn_free (&cn);
    waitpid (pb, &st, 0);
    ok (WIFEXITED (st) && WEXITSTATUS (st) == 4, "and exits with status 4");
    ok (strstr (slurp (b.log), "fenced, stopping: ") != NULL, "saying why");
    jt_map_t *ids = verified_ids (a.dir, "the ledger verifies");
    is_int (jt_map_count (ids), 4, "with the 4 acknowledged events, not the fenced one");
    jt_map_destroy (ids, NULL);
}

/* A stuck daemon (SIGSTOP): submit never waits; a full queue says EAGAIN;
 * after the reply timeout the client spools; once the daemon runs again
 * every accepted event is recorded once, in order. */
static void test_slow (void)
{
    struct place pl;
    char buf[256];
    place_init (&pl, "slow");
    jt_ledger_client_opts_t o;
    pid_t pid;
    jt_ledger_client_t *c = stuck_daemon_client (&pl, "w", false, &o, &pid);
    jt_error_t err = { "" };
    int accepted = 1, full = 0;
    char ids[64][16];
    snprintf (ids[0], sizeof (ids[0]), "w000");
    for (int i = 1; i < 40; i++) {
        char id[16];
        snprintf (id, sizeof (id), "w%03d", i);
        event (buf, sizeof (buf), id);
        if (jt_ledger_client_submit (c, buf, strlen (buf), &err) == 0)
            snprintf (ids[accepted++], sizeof (ids[0]), "%s", id);
        else if (errno == EAGAIN)
            full++;
    }
    ok (full > 0, "with the daemon stuck, a full queue refuses at once (%d EAGAIN)",
        full);
    jt_ledger_client_stats_t cs;
    jt_ledger_client_stats (c, &cs);
    is_int (cs.full, full, "and counts them");
    msleep (800);
    kill (pid, SIGCONT);
    ok (jt_ledger_client_flush (c, 20000) == 0, "daemon running again: all settle");
    jt_ledger_client_destroy (c);
    stop_daemon (pid);
    jt_map_t *m = verified_ids (pl.dir, "ledger verifies (no duplicates)");
    is_int (jt_map_count (m), accepted, "every accepted event recorded once (%d)",
            accepted);
    int order = 0;
    for (int i = 0; i < accepted; i++)
        if ((uintptr_t) jt_map_get (m, ids[i]) != (uintptr_t) i + 1)
            order++;
    is_int (order, 0, "in submission order");
    jt_map_destroy (m, NULL);
}

/* overflow_to_spool: with the daemon stuck, a full queue still accepts at
 * once; the overflow goes to the spool, also when the client is destroyed
 * right away; the next client sends it all, once, in order. */
static void test_overflow (void)
{
    struct place pl;
    place_init (&pl, "ovf");
    jt_ledger_client_opts_t o;
    pid_t pid;
    jt_ledger_client_t *c = stuck_daemon_client (&pl, "o", true, &o, &pid);
    jt_error_t err = { "" };
    is_int (submit_range (c, "o", 1, 200), 0,
            "with the daemon stuck, a full queue still accepts every event");
    jt_ledger_client_stats_t cs;
    jt_ledger_client_stats (c, &cs);
    ok (cs.full > 0, "and counts the overflow (%llu)", (unsigned long long) cs.full);
    jt_ledger_client_destroy (c);
    struct stat sb;
    int src = stat (pl.spool, &sb);
    ok (src == 0 && sb.st_size > 0,
        "destroyed at once: the overflow is in the spool (%lld bytes)",
        src == 0 ? (long long) sb.st_size : -1LL);
    kill (pid, SIGCONT);
    c = jt_ledger_client_create (&o, &err);
    ok (c && jt_ledger_client_flush (c, 20000) == 0, "the next client drains the spool");
    jt_ledger_client_destroy (c);
    stop_daemon (pid);
    expect_once_in_order (pl.dir, "o", 200);
}

/* ---- who pays, at append ---- */

#define PT0 1767225600 /* 2026-01-01T00:00:00Z, the budgets' window start */
#define PWIN "\"start\":\"2026-01-01T00:00:00Z\",\"end\":\"2027-01-01T00:00:00Z\""
#define PENV(name, flavor, extra)                                                       \
    "{\"owner\":\"" name "\",\"envelopes\":[{\"name\":\"" name "-" flavor "\","          \
    "\"flavor\":\"" flavor "\",\"selector\":{}," PWIN ",\"concurrency\":32" extra "}]}"

/* The BudgetLoaded of rai (rai-h100 lending to `to`, a JSON list), vision
 * and nlp (not family: each its own root), with content, as the select
 * plugin writes it. */
static void payer_load (char *buf, size_t len, const char *id, int64_t time,
                        const char *to)
{
    char rai[512];
    jt_error_t err = { "" };

    snprintf (rai, sizeof (rai),
              PENV ("rai", "h100", ",\"lending\":{\"allow\":true,\"to\":%s}"), to);
    jt_budgets_t *b = fx_budgets (rai, PENV ("vision", "a100", ""), PENV ("nlp", "a100", ""),
                                  FX_END);
    jt_event_t *ev = jt_event_budget_loaded (b, id, time, &err);
    char *js = ev ? jt_event_to_json (ev, &err) : NULL;
    if (!js || strlen (js) >= len)
        bail_out ("BudgetLoaded: %s", js ? "too long" : err.text);
    snprintf (buf, len, "%s", js);
    free (js);
    jt_event_destroy (ev);
    jt_budgets_destroy (b);
}

static char *payer_start (char *buf, size_t len, const char *id, const char *role,
                          const char *env, const char *owner, int64_t start)
{
    snprintf (buf, len,
              "{\"v\":1,\"type\":\"Start\",\"id\":\"%s\",\"time\":%lld,\"lease\":\"%s\","
              "\"run\":\"c1:%s\",\"group\":\"0\",\"nodes\":[\"n-%s\"],\"gpus\":8,"
              "\"role\":\"%s\",\"envelope\":\"%s\",\"owner\":\"%s\",\"start\":%lld}",
              id, (long long) start, id, id, id, role, env, owner, (long long) start);
    return buf;
}

/* Issue 35's two forgeries refused at append (verify's classes payer and
 * role, by the content of the BudgetLoaded in force at the lease's start),
 * what the daemon cannot know appended, the load kept across a restart
 * (start-up scan) and judged in request order within a batch, a load of an
 * earlier time not taking over; the ledger then verifies but for the one
 * Start the daemon could not judge. */
static void test_payer (void)
{
    struct place pl;
    char buf[4096], reply[512], want[512];
    int st;

    place_init (&pl, "payer");
    pid_t pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    ok (pid > 0, "payer: daemon starts");
    if (pid < 0)
        return;
    jt_ledger_conn_t cn;
    connect_conn (&cn, pl.sock);
    payer_load (buf, sizeof (buf), "b1", PT0 + 30, "[\"vision\"]");
    rpc (&cn, buf, reply, sizeof (reply));
    is (reply, "OK 1", "a BudgetLoaded with content: rai-h100 lends to vision");
    rpc (&cn, payer_start (buf, sizeof (buf), "A", "Borrowed", "rai-h100", "vision", PT0 + 60),
         reply, sizeof (reply));
    is (reply, "OK 2", "a Borrowed lease of vision on rai-h100: appended");
    rpc (&cn, payer_start (buf, sizeof (buf), "B", "Borrowed", "rai-h100", "rai", PT0 + 60),
         reply, sizeof (reply));
    is (reply,
        "ERR INVALID role: lease B: Borrowed, but envelope rai-h100 is in rai's family "
        "(owner): Cover pays it Active (BudgetLoaded b1)",
        "a Borrowed lease on its owner's own envelope: refused (role)");
    rpc (&cn, payer_start (buf, sizeof (buf), "C", "Borrowed", "rai-h100", "nlp", PT0 + 60),
         reply, sizeof (reply));
    is (reply,
        "ERR INVALID payer: lease C: envelope rai-h100 (owner rai) is not in nlp's family "
        "and does not lend to nlp (BudgetLoaded b1)",
        "a Borrowed lease from an envelope whose lending.to lacks its owner: refused (payer)");
    rpc (&cn, payer_start (buf, sizeof (buf), "B", "Borrowed", "rai-h100", "rai", PT0 + 60),
         reply, sizeof (reply));
    ok (!strncmp (reply, "ERR INVALID role: lease B:", 26), "a resend of it: refused again");
    rpc (&cn, payer_start (buf, sizeof (buf), "D", "Borrowed", "rai-h100", "rai", PT0 + 10),
         reply, sizeof (reply));
    is (reply, "OK 3",
        "the same forgery starting before the load: appended (rules the daemon may not "
        "hold; verify judges it)");
    jt_ledger_conn_free (&cn);
    ok (strstr (slurp (pl.log), "refused event C: payer: lease C:") != NULL,
        "the daemon logs what it refused");
    stop_daemon (pid);

    pid = start_daemon (pl.dir, pl.sock, pl.log, NULL, &st);
    connect_conn (&cn, pl.sock);
    rpc (&cn, payer_start (buf, sizeof (buf), "E", "Borrowed", "rai-h100", "rai", PT0 + 90),
         reply, sizeof (reply));
    ok (!strncmp (reply, "ERR INVALID role: lease E:", 26),
        "after a restart the load is found by the start-up scan: refused (%s)", reply);
    /* one send: a load lending to nlp too, then nlp's Borrowed lease */
    size_t off = 0;
    payer_load (buf, sizeof (buf), "b2", PT0 + 3600, "[\"vision\",\"nlp\"]");
    off = strlen (buf);
    buf[off++] = '\n';
    payer_start (buf + off, sizeof (buf) - off, "F", "Borrowed", "rai-h100", "nlp",
                 PT0 + 3600);
    off += strlen (buf + off);
    buf[off++] = '\n';
    (void) jt_ledger_conn_send (&cn, buf, off);
    for (int i = 0; i < 2; i++) {
        if (jt_ledger_conn_read_line (&cn, reply, sizeof (reply)) < 0)
            snprintf (reply, sizeof (reply), "(none)");
        is (reply, i ? "OK 5" : "OK 4", "%s",
            i ? "  and nlp's Borrowed lease after it, sent with it: judged by that load"
              : "a load lending to vision and nlp");
    }
    payer_load (buf, sizeof (buf), "b0", PT0 + 40, "[\"vision\"]");
    rpc (&cn, buf, reply, sizeof (reply));
    is (reply, "OK 6", "a later load of an earlier time");
    rpc (&cn, payer_start (buf, sizeof (buf), "G", "Borrowed", "rai-h100", "nlp", PT0 + 3700),
         reply, sizeof (reply));
    is (reply, "OK 7", "does not take over from the latest by time (b2 lends to nlp)");
    jt_ledger_conn_free (&cn);
    stop_daemon (pid);

    const char *paths[] = { pl.dir };
    jt_ledger_result_t res;
    jt_violation_t v;
    jt_error_t err = { "" };
    if (jt_ledger_verify (paths, 1, NULL, NULL, &res, &v, NULL, &err) < 0)
        bail_out ("verify: %s", err.text);
    snprintf (want, sizeof (want), "%s %s@%llu", jt_ledger_status_str (res.status),
              jt_violation_str (v.kind), (unsigned long long) v.seq);
    is (want, "OK role@3",
        "verify: the ledger's only violation is the Start the daemon could not judge");
}

int main (void)
{
    const char *b = getenv ("JT_BUILDDIR");
    snprintf (daemon_path, sizeof (daemon_path), "%s/src/ledgerd/jobtree-ledgerd",
              b ? b : ".");
    if (access (daemon_path, X_OK) < 0)
        bail_out ("%s: %s", daemon_path, strerror (errno));
    snprintf (tmpdir, sizeof (tmpdir), "/tmp/jt-ledgerd.XXXXXX");
    if (!mkdtemp (tmpdir))
        bail_out ("mkdtemp: %s", strerror (errno));
    signal (SIGPIPE, SIG_IGN);
    test_basic ();
    test_pipelined ();
    test_inflight ();
    test_ids_grow ();
    test_ids_merge ();
    test_torn ();
    test_head_running ();
    test_tail_damage ();
    test_eviction ();
    test_permission ();
    test_spool ();
    test_fail_closed ();
    test_slow ();
    test_overflow ();
    test_payer ();
    test_failover ();
    test_crash ();
    char cmd[300];
    snprintf (cmd, sizeof (cmd), "rm -rf %s", tmpdir);
    if (getenv ("JT_TEST_KEEP")) /* the daemons' logs, e.g. for a sanitizer's report */
        diag ("kept %s", tmpdir);
    else if (system (cmd) != 0)
        diag ("could not remove %s", tmpdir);
    return done_testing ();
}
