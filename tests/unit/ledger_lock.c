/*
 * ledger_lock.c - one writer per ledger directory: jobtree-ledgerd's lock
 * (src/ledgerd/lock.c, linked in: taken, a second taker refused naming the
 * holder, a waiting taker gets it once it is free) and the writer's fencing
 * epoch (ledger_writer.c, opts.fence: a writer whose epoch another writer
 * took is refused at its next append and head save, writes nothing, and
 * the ledger the new writer continues verifies; takeover onto a segment of
 * its own; a malformed epoch file refused naming file and field).
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobtree/ledger.h"
#include "ledgerd.h"
#include "tap.h"

/* What lock.c needs of ledgerd.c: the exit flag and the log (kept, to
 * check what a waiting daemon says). */
volatile sig_atomic_t ledgerd_exit_flag;
volatile sig_atomic_t ledgerd_hup_flag;
static char logged[4096];
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

void log_msg (const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock (&log_mu);
    size_t n = strlen (logged);
    va_start (ap, fmt);
    vsnprintf (logged + n, sizeof (logged) - n, fmt, ap);
    va_end (ap);
    n = strlen (logged);
    if (n + 1 < sizeof (logged))
        strcat (logged, "\n");
    pthread_mutex_unlock (&log_mu);
}

static char tmpdir[256];

static void msleep (int ms)
{
    struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
    nanosleep (&ts, NULL);
}

static void subdir (char *buf, size_t len, const char *name)
{
    snprintf (buf, len, "%s/%s", tmpdir, name);
    if (mkdir (buf, 0700) < 0)
        bail_out ("mkdir %s: %s", buf, strerror (errno));
}

/* ---- the lock ---- */

struct releaser {
    int fd;
    int ms;
};

static void *release_later (void *arg)
{
    struct releaser *r = arg;
    msleep (r->ms);
    close (r->fd); /* an OFD lock goes with its open file description */
    return NULL;
}

static void test_lock (void)
{
    char dir[512], err[512] = "", want[128], host[128] = "";
    struct ledgerd_conf c = { .lock_poll_ms = 20 };
    int a = -1, b = -1;

    subdir (dir, sizeof (dir), "lock");
    c.dir = dir;
    ok (ledgerd_lock (&c, &a, err, sizeof (err)) == 0 && a >= 0, "the lock is taken%s%s",
        err[0] ? ": " : "", err);
    /* OFD locks conflict between two opens of one process: the second
     * taker here is as another daemon would be */
    int rc = ledgerd_lock (&c, &b, err, sizeof (err));
    is_int (rc, LEDGERD_EXIT_LOCKED, "a second taker is refused (exit status 3)");
    ok (b == -1, "and holds nothing");
    gethostname (host, sizeof (host) - 1);
    snprintf (want, sizeof (want), "held by pid %d on host %s since ", (int) getpid (), host);
    ok (strstr (err, want) && strstr (err, dir), "its error names the ledger and the holder: %s",
        err);

    /* --wait-lock: waits, says who holds it, takes it once it is free */
    struct releaser r = { a, 300 };
    pthread_t th;
    logged[0] = '\0';
    c.wait_lock = true;
    if (pthread_create (&th, NULL, release_later, &r) != 0)
        bail_out ("pthread_create");
    struct timespec t0, t1;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    rc = ledgerd_lock (&c, &b, err, sizeof (err));
    clock_gettime (CLOCK_MONOTONIC, &t1);
    pthread_join (th, NULL);
    double waited = (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9;
    ok (rc == 0 && b >= 0, "a waiting taker gets the lock once it is free (%.2f s)", waited);
    ok (waited >= 0.25, "and not before");
    ok (strstr (logged, want) && strstr (logged, "; waiting\n"),
        "it logs 'ledger DIR held by pid P on host H since T; waiting'");
    ok (strstr (logged, "the lock is ours"), "and when the lock is its own");

    /* the exit flag ends a wait */
    int d = -1;
    ledgerd_exit_flag = 1;
    rc = ledgerd_lock (&c, &d, err, sizeof (err));
    ledgerd_exit_flag = 0;
    ok (rc == LEDGERD_EXIT_LOCKED && d == -1, "a stop request ends the wait: %s", err);
    close (b);
}

/* ---- fencing ---- */

static void nodefail (char *p, size_t len, size_t *l, const char *id)
{
    *l = (size_t) snprintf (p, len,
                            "{\"v\":1,\"type\":\"NodeFail\",\"id\":\"%s\",\"time\":1000,"
                            "\"nodes\":[\"n1\"]}",
                            id);
}

static int append1 (jt_ledger_writer_t *w, const char *id, jt_error_t *err)
{
    char p[256];
    const char *pp = p;
    size_t l;
    uint64_t first;
    nodefail (p, sizeof (p), &l, id);
    return jt_ledger_writer_append (w, &pp, &l, 1, &first, err);
}

static jt_ledger_writer_t *open_fenced (const char *dir, jt_ledger_record_f cb, void *arg,
                                        jt_error_t *err)
{
    jt_ledger_result_t res;
    jt_ledger_writer_opts_t o = { .fence = true, .cb = cb, .arg = arg };
    return jt_ledger_writer_open_opts (dir, &o, &res, err);
}

static jt_ledger_result_t read_dir (const char *dir)
{
    jt_ledger_result_t res;
    jt_error_t err = { "" };
    const char *p = dir;
    if (jt_ledger_read (&p, 1, NULL, NULL, NULL, &res, &err) < 0)
        bail_out ("read %s: %s", dir, err.text);
    return res;
}

static char *epoch_text (const char *dir, char *buf, size_t len)
{
    char path[600];
    snprintf (path, sizeof (path), "%s/%s", dir, JT_LEDGER_EPOCH_FILE);
    FILE *f = fopen (path, "r");
    buf[0] = '\0';
    if (f) {
        if (!fgets (buf, (int) len, f))
            buf[0] = '\0';
        fclose (f);
    }
    return buf;
}

static off_t size_of (const char *path)
{
    struct stat sb;
    return stat (path, &sb) < 0 ? -1 : sb.st_size;
}

static void test_fence (void)
{
    char dir[512], seg1[600], seg4[600], buf[64];
    jt_error_t err = { "" };

    subdir (dir, sizeof (dir), "fence");
    snprintf (seg1, sizeof (seg1), "%s/ledger-00000000000000000001.jtl", dir);
    snprintf (seg4, sizeof (seg4), "%s/ledger-00000000000000000004.jtl", dir);
    jt_ledger_writer_t *a = open_fenced (dir, NULL, NULL, &err);
    if (!a)
        bail_out ("open: %s", err.text);
    is_int (jt_ledger_writer_epoch (a), 1, "the first writer takes epoch 1");
    ok (!jt_ledger_writer_took_over (a), "from nobody");
    is (epoch_text (dir, buf, sizeof (buf)), "00000000000000000001 writing\n",
        "ledgerd.epoch: its epoch, writing");
    ok (append1 (a, "a:1", &err) == 0 && append1 (a, "a:2", &err) == 0
            && append1 (a, "a:3", &err) == 0,
        "it appends");
    off_t a_size = size_of (seg1);

    /* a second writer takes the ledger while the first still runs (its
     * lock lost, or stalled): epoch 2, a segment file of its own */
    jt_ledger_writer_t *b = open_fenced (dir, NULL, NULL, &err);
    ok (b != NULL, "a second writer opens the ledger behind the first's back%s%s",
        err.text[0] ? ": " : "", err.text);
    if (!b)
        bail_out ("open b: %s", err.text);
    is_int (jt_ledger_writer_epoch (b), 2, "it takes epoch 2");
    ok (jt_ledger_writer_took_over (b), "from a writer that did not stop");
    is (jt_ledger_writer_segment (b), seg4, "and appends to a new segment (seq 4 on)");

    /* the stale writer wakes up: refused at its next commit */
    err.text[0] = '\0';
    ok (append1 (a, "a:4", &err) < 0, "the stale writer's next append is refused");
    ok (jt_ledger_writer_fenced (a), "it is fenced");
    ok (strstr (err.text, "fenced before a write") && strstr (err.text, "epoch 2")
            && strstr (err.text, "writer's is 1"),
        "why: %s", err.text);
    is_int (size_of (seg1), a_size, "nothing of its batch reached the disk");
    ok (append1 (a, "a:5", &err) < 0, "and every later append is refused");
    ok (jt_ledger_writer_save_head (a, &err) < 0, "as is a save of its durable head");
    jt_ledger_writer_close (a); /* must not mark b's epoch stopped */
    is (epoch_text (dir, buf, sizeof (buf)), "00000000000000000002 writing\n",
        "closing it leaves the new writer's epoch alone");

    ok (append1 (b, "b:1", &err) == 0, "the new writer appends");
    jt_ledger_result_t res = read_dir (dir);
    is (jt_ledger_status_str (res.status), "OK", "the ledger verifies");
    is_int (res.last_seq, 4, "4 records: the first writer's 3, the new one's 1");
    is_int (res.nsegments, 2, "in two segments");
    jt_ledger_writer_close (b);
    is (epoch_text (dir, buf, sizeof (buf)), "00000000000000000002 stopped\n",
        "a clean close marks the epoch stopped");

    /* after a clean stop the next writer continues the same segment */
    jt_ledger_writer_t *c = open_fenced (dir, NULL, NULL, &err);
    if (!c)
        bail_out ("open c: %s", err.text);
    ok (jt_ledger_writer_epoch (c) == 3 && !jt_ledger_writer_took_over (c),
        "after a clean stop: epoch 3, no takeover");
    is (jt_ledger_writer_segment (c), seg4, "the same segment goes on");
    ok (append1 (c, "c:1", &err) == 0, "and is appended to");
    jt_ledger_writer_close (c);
    res = read_dir (dir);
    ok (res.status == JT_LEDGER_OK && res.last_seq == 5, "the ledger verifies, 5 records");
}

/* A takeover when the last segment is empty (a writer that rotated and
 * died, or is stalled, before its first record there): the new writer
 * writes into a new file of that name, never the one the old one holds. */
static void test_fence_empty_segment (void)
{
    char dir[512], seg[600];
    jt_error_t err = { "" };

    subdir (dir, sizeof (dir), "fence-empty");
    snprintf (seg, sizeof (seg), "%s/ledger-00000000000000000001.jtl", dir);
    jt_ledger_writer_t *a = open_fenced (dir, NULL, NULL, &err);
    jt_ledger_writer_t *b = a ? open_fenced (dir, NULL, NULL, &err) : NULL;
    if (!b)
        bail_out ("open: %s", err.text);
    ok (jt_ledger_writer_took_over (b), "a takeover of an empty ledger");
    ok (append1 (b, "b:1", &err) == 0, "the new writer appends seq 1");
    ok (append1 (a, "a:1", &err) < 0 && jt_ledger_writer_fenced (a),
        "the stale one is fenced");
    jt_ledger_writer_close (a);
    jt_ledger_writer_close (b);
    jt_ledger_result_t res = read_dir (dir);
    ok (res.status == JT_LEDGER_OK && res.last_seq == 1 && size_of (seg) > 0,
        "the ledger verifies: the new writer's record, in %s", seg);
}

/* A stale writer that passed its check appends while the new writer reads
 * the ledger (here: bytes added to the old segment from the new writer's
 * recovery callback): the new writer refuses to start. */
static const char *grow_path;

static int grow_cb (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    (void) rec;
    (void) err;
    int *done = arg;
    if (!*done) {
        int fd = open (grow_path, O_WRONLY | O_APPEND);
        if (fd < 0 || write (fd, "JT1 ", 4) != 4)
            bail_out ("grow %s: %s", grow_path, strerror (errno));
        close (fd);
        *done = 1;
    }
    return 0;
}

static void test_fence_grown (void)
{
    char dir[512], seg[600];
    jt_error_t err = { "" };
    int done = 0;

    subdir (dir, sizeof (dir), "fence-grown");
    snprintf (seg, sizeof (seg), "%s/ledger-00000000000000000001.jtl", dir);
    jt_ledger_writer_t *a = open_fenced (dir, NULL, NULL, &err);
    if (!a || append1 (a, "a:1", &err) < 0)
        bail_out ("a: %s", err.text);
    grow_path = seg;
    jt_ledger_writer_t *b = open_fenced (dir, grow_cb, &done, &err);
    ok (b == NULL && strstr (err.text, "grew from") && strstr (err.text, seg),
        "a takeover refuses a last segment that grew while it was read: %s", err.text);
    jt_ledger_writer_close (b);
    jt_ledger_writer_close (a);
}

/* A writer without fencing (the tests', the benches') neither reads nor
 * writes the epoch file. */
static void test_no_fence (void)
{
    char dir[512], path[600];
    jt_error_t err = { "" };
    jt_ledger_result_t res;

    subdir (dir, sizeof (dir), "nofence");
    snprintf (path, sizeof (path), "%s/%s", dir, JT_LEDGER_EPOCH_FILE);
    jt_ledger_writer_t *w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err);
    if (!w || append1 (w, "n:1", &err) < 0)
        bail_out ("nofence: %s", err.text);
    is_int (jt_ledger_writer_epoch (w), 0, "a writer without fencing has no epoch");
    jt_ledger_writer_close (w);
    ok (access (path, F_OK) < 0, "and leaves no epoch file");
    w = open_fenced (dir, NULL, NULL, &err);
    ok (w && jt_ledger_writer_epoch (w) == 1 && !jt_ledger_writer_took_over (w),
        "the first fencing writer after it takes epoch 1%s", err.text);
    jt_ledger_writer_close (w);
}

static void test_epoch_file (void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        { "12 writing\n", "field epoch: not 20 decimal digits" },
        { "00000000000000000000 writing\n", "field epoch: 0 is out of range" },
        { "99999999999999999999 writing\n", "field epoch: larger than" },
        { "00000000000000000007 running\n", "field state" },
        { "00000000000000000007 writing", "field state" },
        { "00000000000000000007 writing\nx", "field state" },
    };
    char dir[512], path[600];
    jt_error_t err = { "" };

    subdir (dir, sizeof (dir), "epochfile");
    snprintf (path, sizeof (path), "%s/%s", dir, JT_LEDGER_EPOCH_FILE);
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        FILE *f = fopen (path, "w");
        if (!f || fputs (bad[i].text, f) < 0 || fclose (f) != 0)
            bail_out ("%s: %s", path, strerror (errno));
        err.text[0] = '\0';
        jt_ledger_writer_t *w = open_fenced (dir, NULL, NULL, &err);
        ok (!w && strstr (err.text, path) && strstr (err.text, bad[i].want),
            "epoch file %zu refused: %s", i, err.text);
        jt_ledger_writer_close (w);
    }
    uint64_t e;
    bool writing;
    FILE *f = fopen (path, "w");
    if (!f || fputs ("00000000000000000041 stopped\n", f) < 0 || fclose (f) != 0)
        bail_out ("%s", path);
    ok (jt_ledger_epoch_read (dir, &e, &writing, &err) == 0 && e == 41 && !writing,
        "a good one reads: 41 stopped");
    jt_ledger_writer_t *w = open_fenced (dir, NULL, NULL, &err);
    ok (w && jt_ledger_writer_epoch (w) == 42, "the next writer takes 42");
    jt_ledger_writer_close (w);
}

int main (void)
{
    snprintf (tmpdir, sizeof (tmpdir), "/tmp/jt-lock.XXXXXX");
    if (!mkdtemp (tmpdir))
        bail_out ("mkdtemp: %s", strerror (errno));
    test_lock ();
    test_fence ();
    test_fence_empty_segment ();
    test_fence_grown ();
    test_no_fence ();
    test_epoch_file ();
    char cmd[300];
    snprintf (cmd, sizeof (cmd), "rm -rf %s", tmpdir);
    if (system (cmd) != 0)
        diag ("could not remove %s", tmpdir);
    return done_testing ();
}
