/*
 * server.c - jobtree-ledgerd's work: the writer lock, startup recovery, the
 * Unix socket with peer-credential checks, and the group-commit loop.
 *
 * One writer per ledger directory: the lock (lock.c) and the writer's
 * epoch (opts.fence, ledger_writer.c): a daemon whose epoch another took
 * stops at its next commit or head save, acknowledging nothing after it,
 * and exits LEDGERD_EXIT_FENCED.
 *
 * DESIGN: one poll() loop, and two groups. The loop reads what clients
 * have sent, canonicalizes every complete line (canon.c: on this thread
 * and a helper at once) and turns it into a request of the group being
 * gathered, in order; meanwhile the commit thread (commit.c) writes and
 * syncs the other group (one write, one fdatasync). When that sync
 * returns, the loop answers its group in request order and sends the
 * replies (OK only now: the records are durable), then indexes and folds
 * it, writes a checkpoint when one is due, and hands over the group
 * gathered meanwhile: group commit without timers, and a window's ack
 * waits for its own group's sync, not for its group's bookkeeping nor the
 * next round's work. (Handing the next group over before the bookkeeping
 * was tried and measured worse: paced p99 higher in 5 of 5 alternated
 * runs, contrib/bench/README.md.) The writer is the commit thread's
 * while a group is in flight; everything else (indexes,
 * fold, payer check, clients) is the loop's alone. A write or sync failure
 * is fatal (fail closed): every request of both groups not yet answered
 * gets "ERR FAIL" and the daemon exits; recovery at the next start cuts
 * whatever part of the group hit the disk. A clean stop answers both
 * groups first.
 *
 * Idempotency for every id in the ledger: a bounded FIFO map from event id
 * to seq answers recent resends from memory; when it misses, the group in
 * flight's ids (whose seqs are known at hand-over: such a resend is
 * answered with that seq, after that group), then the on-disk index of
 * every id (ids.c) finds the record. Both indexes are filled by the scan
 * at startup and by each group once durable.
 *
 * The durable head (JT_LEDGER_HEAD_FILE) is saved after a commit when the
 * last save is a second old or more, when idle, and at a clean stop: never
 * on a commit's path (its two syncs would halve the commit rate), so it
 * trails the acknowledgements by about two seconds at most.
 *
 * Protocol (one line each way): an event JSON -> "OK <seq>" once durable,
 * or "ERR INVALID|DENIED|FAIL <text>"; "HEAD" -> "HEAD <seq> <hash>".
 *
 * Who pays: the daemon holds the BudgetLoaded in force from its time on
 * (the latest by time, then seq, found by the start-up scan or appended
 * since) and refuses a Start that its recorded budget content shows Cover
 * could not have paid so (jt_ledger_check_payer: verify's classes payer
 * and role) when the lease starts at or after that load; any other Start
 * is appended and left to verify. A Start is judged in request order, so
 * a BudgetLoaded earlier in the same batch is the one it is judged by.
 *
 * Why one file past HACKING.md's ~800 lines (about 1350): every function
 * here reads or changes the one struct server of the loop, and it reads top
 * to bottom in the order a request lives (accept, gather, commit, reply,
 * checkpoint: crash_at's points around it are what tests/ledger/checkpoint.sh
 * kills the daemon at). What needs no struct server went out: the
 * canonicalization (canon.c), the commit thread (commit.c) and the latency
 * histograms of its log line (latency.c). The seams
 * when it grows: startup (lock, pidfile, recover, fold) and checkpointing,
 * each beside a private server.h holding struct server.
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
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "jobtree/ledger_checkpoint.h"
#include "jobtree/map.h"
#include "canon.h"
#include "commit.h"
#include "ledgerd.h"

#define MAX_CLIENTS 1024
#define READ_CHUNK 65536

struct client {
    int fd;
    uid_t uid;
    pid_t pid;
    char *in;
    size_t inlen, incap;
    char *out;
    size_t outlen, outoff, outcap;
    bool eof;
    size_t nreq; /* requests read and not yet answered: freed at 0 only */
};

enum req_kind { REQ_APPEND, REQ_DUP, REQ_BATCHDUP, REQ_REPLY, REQ_HEAD };

struct req {
    struct client *c;
    enum req_kind kind;
    char *payload; /* canonical event (REQ_APPEND) */
    size_t len;
    uint64_t seq;    /* REQ_DUP: original seq */
    size_t dup_of;   /* REQ_BATCHDUP: index in the batch */
    char reply[320]; /* REQ_REPLY */
    char *key;
    jt_event_t *ev;  /* REQ_APPEND, checkpoints on: for the fold */
    double read_at;  /* monotonic seconds: the poll that read its line */
};

/* A group commit: the requests of the rounds gathered into it, in order,
 * and its appends (the payloads handed to the commit thread). */
struct group {
    struct req *reqs;
    size_t nreqs, reqcap;
    jt_map_t *batch; /* id key -> 1 + index among the appends */
    size_t nappend;
    const char **p;
    size_t *lens;
    uint64_t *offs;
    size_t pcap;
    uint64_t first;      /* in flight: the seq of its first append */
    size_t load_pending; /* 1 + the append index of the load kept, 0: none */
    bool load_none;      /* ... and it left no load kept (unreadable) */
    char last_hash[65];  /* answered: the writer's last hash after it */
    char ierr[256];      /* answered: the id index's failure ("": none) */
};

#define HEAD_SAVE_S 1.0
#define HEAD_POLL_MS 5
#define STAMP_MAX_AGE_S 600.0 /* stamp_due */
#define STAMP_MIN_GAP_S 60.0  /* stamp_due; JT_LEDGERD_TEST_STAMP_GAP for tests */
#define LATENCY_EVERY_S 600.0 /* latency_report */

struct server {
    const struct ledgerd_conf *conf;
    jt_ledger_writer_t *w;
    jt_map_t *index; /* event id -> seq, the latest index_max */
    struct ledgerd_ids ids; /* every event id -> its record, on disk */
    const char *scan_file;  /* the start-up scan's current segment */
    char fatal[256];        /* set: fail the batch and stop (fail closed) */
    double head_saved_at;   /* monotonic seconds */
    bool head_failing;      /* the last save failed (logged once) */
    /* the durable head being saved on its own thread (save_head) */
    pthread_t header;
    bool heading;           /* a thread was started, not yet joined */
    int head_done;          /* __atomic: it returned */
    int head_rc;
    uint64_t head_seq;
    char head_hash[65];
    jt_error_t head_err;
    int lfd;
    struct client *clients[MAX_CLIENTS];
    size_t nclients;
    /* the group being gathered, and the one the commit thread is writing
     * and syncing (NULL: none): answered when its sync returns */
    struct group grp[2];
    struct group *cur, *fly;
    struct ledgerd_commit cm;
    struct ledgerd_canon canon; /* the helper that canonicalizes beside it */
    struct ledgerd_line *lines; /* a round's lines, and what each client used */
    size_t linecap, *used, usedcap;
    /* checkpoints (conf->checkpoint_every or _interval): the fold of every
     * record, records since the last checkpoint and when they began */
    jt_ledger_fold_t *fold;
    /* the BudgetLoaded in force from its time on (NULL: none, or one that
     * could not be read: then no Start is refused) */
    jt_event_t *load;
    /* the id index kept across restarts (ids.c's stamp): the records up to
     * stamp_seq were indexed by an earlier run; mark is the last record
     * indexed and where load is (what the next stamp says) */
    uint64_t stamp_seq;
    struct ledgerd_stamp mark;
    /* the stamp after a checkpoint is written on a thread of its own (its
     * msync may take a second for a large table); one at a time */
    pthread_t stamper;
    bool stamping;
    pthread_t settler;      /* the start's table written back (settle) */
    bool settling;
    int stamp_done, stamp_rc; /* __atomic: set by the thread */
    double stamp_ms;          /* set by the thread: how long it took */
    struct ledgerd_stamp_job stamp_job;
    /* the last stamp started: its record and the table's slots then */
    uint64_t stamped_seq;
    size_t stamped_slots;
    double stamped_at; /* monotonic seconds */
    double stamp_gap;  /* STAMP_MIN_GAP_S, or the test's */
    uint64_t since;
    double since_at;
    bool ckpt_failing;
    /* the latency line (latency_report): acks from the poll that read a
     * request to its reply, since lat_since; cm.sync has the disk's part */
    struct ledgerd_lat acks;
    double lat_since, read_at; /* monotonic seconds; read_at: the last poll's return */
    uint64_t lat_groups, lat_records;
    const char *crash; /* JT_LEDGERD_TEST_CRASH: tests kill the daemon there */
    size_t chunk;      /* JT_LEDGERD_TEST_CHUNK: slots of the id chunks */
};

static double mono_now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* A BudgetLoaded in the ledger or appended (canonical payload): kept when
 * it is the latest by time (seq order is the call order). One that cannot
 * be read clears what was kept: nothing is refused on rules the daemon may
 * not hold. */
static void note_load (struct server *s, const char *payload, size_t len)
{
    jt_error_t err = { "" };
    jt_event_t *ev = jt_event_from_json (payload, len, &err);

    if (!ev || ev->type != JT_EV_BUDGET_LOADED) {
        log_msg ("a BudgetLoaded could not be read (%s): no Start is refused for its "
                 "payer until the next one", ev ? "not a BudgetLoaded" : err.text);
        jt_event_destroy (ev);
        jt_event_destroy (s->load);
        s->load = NULL;
        return;
    }
    if (s->load && ev->time < s->load->time) {
        jt_event_destroy (ev); /* in force only before the one kept */
        return;
    }
    jt_event_destroy (s->load);
    s->load = ev;
}

#define LOAD_PREFIX "{\"v\":1,\"type\":\"BudgetLoaded\","

/* The recovery's callback: every record read after the stamp (all of them
 * without one) indexed, in memory (the latest) and on disk. */
static int index_cb (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    struct server *s = arg;
    char e[256];
    if (rec->seq <= s->stamp_seq)
        return 0; /* indexed by the run that stamped the index */
    if (rec->file != s->scan_file) {
        if (ledgerd_ids_segment (&s->ids, rec->file, e, sizeof (e)) < 0)
            return jt_errprintf (err, "%s", e);
        s->scan_file = rec->file;
    }
    uint64_t pos = ledgerd_ids_pos (&s->ids, rec->offset);
    if (rec->len > strlen (LOAD_PREFIX)
        && !memcmp (rec->payload, LOAD_PREFIX, strlen (LOAD_PREFIX))) {
        const jt_event_t *before = s->load;
        note_load (s, rec->payload, rec->len);
        if (s->load != before)
            s->mark.load_pos = s->load ? pos + 1 : 0;
    }
    s->mark.seq = rec->seq;
    s->mark.pos = pos;
    memcpy (s->mark.hash, rec->hash, 65);
    char *key = ledgerd_id_key (rec->payload, rec->len);
    if (!key)
        return 0; /* verify reports it; recovery only indexes */
    int rc = jt_map_put (s->index, key, (void *) (uintptr_t) rec->seq, NULL);
    if (rc < 0)
        jt_errprintf (err, "out of memory");
    else if ((rc = ledgerd_ids_add (&s->ids, key, rec->offset, e, sizeof (e))) < 0)
        jt_errprintf (err, "%s", e);
    free (key);
    return rc;
}

/* Stamp the id index with the last record it holds (after a checkpoint,
 * and at a clean stop), so that the next start indexes only the records
 * after it. Logged when it fails: the next start then reads more. */
static void stamp_ids (struct server *s)
{
    char e[256];
    if (!s->mark.seq)
        return;
    if (ledgerd_ids_stamp (&s->ids, s->conf->dir, &s->mark, e, sizeof (e)) < 0)
        log_msg ("id index: no stamp (the next start indexes the whole ledger): %s", e);
}

/* The stamp's thread: no logging here (the log may be reopened meanwhile);
 * stamp_join says how it went. */
static void *stamp_thread (void *arg)
{
    struct server *s = arg;
    double t0 = mono_now ();
    s->stamp_rc = ledgerd_ids_stamp_write (&s->stamp_job);
    s->stamp_ms = (mono_now () - t0) * 1e3;
    __atomic_store_n (&s->stamp_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Wait for the stamp being written, if any, and log a failure. */
static void stamp_join (struct server *s)
{
    if (!s->stamping)
        return;
    pthread_join (s->stamper, NULL);
    if (s->stamp_rc < 0) {
        log_msg ("id index: no stamp (the next start reads from an older one): %s",
                 s->stamp_job.err);
        s->stamped_slots = 0; /* due again at the next checkpoint */
    } else
        log_msg ("id index stamped at seq %" PRIu64 ": %zu ids (%zu merged from memory), "
                 "%zu MiB of table written back and synced in %.0f ms",
                 s->stamp_job.st.seq, s->stamp_job.count, s->stamp_job.mem,
                 s->stamp_job.nslots * 2 * sizeof (uint64_t) >> 20, s->stamp_ms);
    ledgerd_ids_stamp_done (&s->stamp_job);
    s->stamping = false;
}

/* Whether a stamp is due (after a checkpoint; every round when none are
 * written). A stamp writes the whole table, a copy with the ids in
 * memory merged (16 bytes a slot: 64 MiB for a million ids); before the
 * ids were held in memory every record's id landed on a random page of
 * it, and a stamp wrote back what one checkpoint's records had dirtied:
 * nearly every page. Written after every checkpoint, that
 * was more than the ledger itself: at 34,600 events/s, 64 MiB every 1.4 s,
 * and each of the ledger's fdatasyncs after it waited for the disk's
 * flush of that too (the append bench's paced p99: 14 to 34 ms with it,
 * 2.2 ms without). What a stamp saves is the records a start after a crash
 * indexes again; so it is written when those reach a quarter of the ids
 * the table holds (at most a quarter more than a full index, and about
 * 128 to 256 bytes written a record), and after the table grew (a stamp
 * names the table's size: none serves until then); at a slow rate, once
 * STAMP_MAX_AGE_S has passed (a 512 MiB table then costs under 1 MiB/s).
 * But never within STAMP_MIN_GAP_S of the last: while a ledger is young
 * and fast a quarter comes every few seconds (the append bench: a stamp of
 * 16 to 32 MiB every 2 to 3 s, each felt by the syncs around it). A start
 * after a crash then indexes again at most a quarter of the ids or a
 * minute of records, whichever is more. Past IDS_MEM_PRESSING ids in
 * memory (ids.c) the minute does not hold; with nothing new since the
 * last stamp, none is due. */
static bool stamp_due (const struct server *s)
{
    double age = mono_now () - s->stamped_at;
    if (s->stamped_slots && age < s->stamp_gap && !ledgerd_ids_pressing (&s->ids))
        return false;
    if (s->mark.seq == s->stamped_seq && s->ids.nslots == s->stamped_slots)
        return false; /* nothing new: a stamp copies the whole table */
    return s->ids.nslots != s->stamped_slots
           || s->mark.seq - s->stamped_seq >= ledgerd_ids_count (&s->ids) / 4
           || age >= STAMP_MAX_AGE_S;
}

/* stamp_ids off the serving thread (after a checkpoint): skipped while the
 * last one is still being written (the next checkpoint stamps). */
static void stamp_ids_async (struct server *s)
{
    if (!s->mark.seq || !stamp_due (s)
        || (s->stamping && !__atomic_load_n (&s->stamp_done, __ATOMIC_ACQUIRE)))
        return;
    stamp_join (s);
    if (ledgerd_ids_stamp_prepare (&s->ids, s->conf->dir, &s->mark, &s->stamp_job) < 0) {
        log_msg ("id index: no stamp: out of memory");
        return;
    }
    s->stamped_seq = s->mark.seq;
    s->stamped_slots = s->ids.nslots;
    s->stamped_at = mono_now ();
    __atomic_store_n (&s->stamp_done, 0, __ATOMIC_RELAXED);
    s->stamping = ledgerd_thread_start (&s->stamper, stamp_thread, s);
    if (!s->stamping) { /* no thread: here */
        stamp_thread (s);
        s->stamping = true;
        stamp_join (s);
    }
}

/* The table a start built from the whole ledger (no stamp served) is
 * dirty in the page cache, every page of it, and the kernel writes a
 * dirty mapped file back on its own about 30 s later, all at once, in
 * front of the ledger's syncs: after a start with 3.9 M ids (a 128 MiB
 * table, then copied from the stamp), 40 s of appends at 200 events/s
 * had a sync of 57.7 ms there (bench_ledger, JT_BENCH_SECONDS=40
 * JT_BENCH_RATE=200). Written back here instead, a slice at a time while
 * serving (each sync waits for one slice at most): largest sync 3.9 ms.
 * A table from a stamp is mapped as it is, clean: nothing to do (done
 * for it too, this writeback put the paced run's p99 at 10 to 21 ms).
 * No logging: best effort. */
static void *settle_thread (void *arg)
{
    ledgerd_ids_writeback (&((struct server *) arg)->ids);
    return NULL;
}

static void settle_join (struct server *s)
{
    if (s->settling)
        pthread_join (s->settler, NULL);
    s->settling = false;
}

/* The id index from its stamp, the BudgetLoaded kept by the run that
 * stamped it read back: 1 (s->stamp_seq), 0 when there is none that
 * serves (why logged), -1 with errbuf. */
static int restore_ids (struct server *s, char *errbuf, size_t errlen)
{
    char **segs = NULL, why[400] = "";
    size_t n = 0;
    struct ledgerd_stamp st;
    jt_error_t err = { "" };

    if (jt_ledger_segments (s->conf->dir, &segs, &n, &err) < 0) {
        snprintf (errbuf, errlen, "%s", err.text);
        return -1;
    }
    int r = n ? ledgerd_ids_restore (&s->ids, s->conf->dir, segs, n, &st, why, sizeof (why),
                                     errbuf, errlen)
              : 0;
    jt_ledger_segments_free (segs, n);
    if (r == 1 && st.load_pos) {
        size_t plen;
        char *p = ledgerd_ids_payload (&s->ids, st.load_pos - 1, &plen, why, sizeof (why));
        if (p)
            note_load (s, p, plen);
        free (p);
        if (!p || !s->load) {
            ledgerd_ids_close (&s->ids);
            jt_event_destroy (s->load);
            s->load = NULL;
            r = 0;
        }
    }
    if (r == 1 && ledgerd_ids_serve (&s->ids, s->chunk) < 0) {
        snprintf (errbuf, errlen, "id index: out of memory");
        ledgerd_ids_close (&s->ids);
        return -1;
    }
    if (r == 1) {
        s->stamp_seq = s->stamped_seq = st.seq;
        s->stamped_slots = s->ids.nslots;
        s->stamped_at = mono_now ();
        s->mark = st;
    } else if (r == 0 && n)
        log_msg ("id index: indexing the whole ledger (%s)", why);
    return r;
}

/* The head save's thread: the file's two syncs (jt_ledger_head_write)
 * off the serving thread, which took 1 to 1.6 ms of them every second,
 * and 10 ms at times, while acknowledgements waited (a paced run of
 * bench_ledger, timed around the call). No logging here: head_join. */
static void *head_thread (void *arg)
{
    struct server *s = arg;
    s->head_rc = jt_ledger_head_write (s->conf->dir, s->head_seq, s->head_hash, &s->head_err);
    __atomic_store_n (&s->head_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* What the head save returned: the writer told, or the failure logged
 * (once until a save succeeds again). On the serving thread, the writer
 * idle. */
static void head_result (struct server *s)
{
    if (s->head_rc < 0) {
        if (!s->head_failing)
            log_msg ("cannot save the durable head: %s", s->head_err.text);
        s->head_failing = true;
        return;
    }
    jt_ledger_writer_head_saved (s->w, s->head_seq);
    if (s->head_failing) {
        log_msg ("the durable head is saved again");
        s->head_failing = false;
    }
}

/* Wait for the head save in flight, if any, and take its result. */
static void head_join (struct server *s)
{
    if (!s->heading)
        return;
    pthread_join (s->header, NULL);
    s->heading = false;
    head_result (s);
}

/* Save the durable head when it changed and the last save is HEAD_SAVE_S
 * old, on a thread of its own (one save at a time). A failure is logged,
 * not fatal: the file then trails further, which is safe; a fenced writer
 * fails here as at a commit (jt_ledger_writer_head_due), and its next
 * commit stops the daemon. */
static void save_head (struct server *s)
{
    double now = mono_now ();

    if (s->heading) {
        if (!__atomic_load_n (&s->head_done, __ATOMIC_ACQUIRE))
            return;
        head_join (s);
    }
    if (jt_ledger_writer_saved_seq (s->w) == jt_ledger_writer_last_seq (s->w)
        || now - s->head_saved_at < HEAD_SAVE_S)
        return;
    s->head_saved_at = now;
    int r = jt_ledger_writer_head_due (s->w, &s->head_seq, s->head_hash, &s->head_err);
    if (r <= 0) {
        if (r < 0 && !s->head_failing)
            log_msg ("cannot save the durable head: %s", s->head_err.text);
        s->head_failing = s->head_failing || r < 0;
        return;
    }
    __atomic_store_n (&s->head_done, 0, __ATOMIC_RELAXED);
    s->heading = ledgerd_thread_start (&s->header, head_thread, s);
    if (!s->heading) { /* no thread: here */
        head_thread (s);
        head_result (s);
    }
}

/* Poll timeout (ms): when the head awaits its save, wake up for it; while
 * a save is in flight, look again every few ms (it takes about one). */
static int idle_timeout (struct server *s)
{
    if (s->heading)
        return HEAD_POLL_MS;
    if (jt_ledger_writer_saved_seq (s->w) == jt_ledger_writer_last_seq (s->w))
        return 1000;
    double left = HEAD_SAVE_S - (mono_now () - s->head_saved_at);
    return left <= 0 ? 0 : (int) (left * 1000) + 1;
}

static int buf_add (char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n > *cap) {
        size_t nc = *cap ? *cap : 4096;
        while (nc < *len + n)
            nc *= 2;
        char *nb = realloc (*buf, nc);
        if (!nb)
            return -1;
        *buf = nb;
        *cap = nc;
    }
    memcpy (*buf + *len, s, n);
    *len += n;
    return 0;
}

static void client_reply (struct client *c, const char *line)
{
    if (buf_add (&c->out, &c->outlen, &c->outcap, line, strlen (line)) < 0)
        c->eof = true;
}

static void client_flush (struct client *c)
{
    while (c->outoff < c->outlen) {
        ssize_t n = write (c->fd, c->out + c->outoff, c->outlen - c->outoff);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            c->eof = true;
            c->outlen = c->outoff = 0;
            return;
        }
        c->outoff += (size_t) n;
    }
    c->outlen = c->outoff = 0;
}

static void client_free (struct client *c)
{
    if (!c)
        return;
    close (c->fd);
    free (c->in);
    free (c->out);
    free (c);
}

static void accept_clients (struct server *s)
{
    for (;;) {
        int fd = accept4 (s->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        struct ucred cr;
        socklen_t crlen = sizeof (cr);
        if (getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) < 0) {
            close (fd);
            continue;
        }
        if (cr.uid != 0 && cr.uid != s->conf->slurm_uid) {
            char msg[128];
            int n = snprintf (msg, sizeof (msg),
                              "ERR DENIED uid %u may not append (root or SlurmUser)\n",
                              (unsigned) cr.uid);
            log_msg ("denied a connection from uid %u pid %d", (unsigned) cr.uid,
                     (int) cr.pid);
            if (write (fd, msg, (size_t) n) < 0) {
                /* the peer is being turned away anyway */
            }
            close (fd);
            continue;
        }
        struct client *c = calloc (1, sizeof (*c));
        if (!c || s->nclients == MAX_CLIENTS) {
            log_msg ("refusing a client: %s", c ? "too many clients" : "out of memory");
            free (c);
            close (fd);
            continue;
        }
        c->fd = fd;
        c->uid = cr.uid;
        c->pid = cr.pid;
        s->clients[s->nclients++] = c;
    }
}

static struct req *req_new (struct group *g, struct client *c)
{
    if (g->nreqs == g->reqcap) {
        size_t nc = g->reqcap ? 2 * g->reqcap : 256;
        struct req *nv = realloc (g->reqs, nc * sizeof (*nv));
        if (!nv)
            return NULL;
        g->reqs = nv;
        g->reqcap = nc;
    }
    struct req *r = &g->reqs[g->nreqs++];
    memset (r, 0, sizeof (*r));
    r->c = c;
    c->nreq++;
    return r;
}

/* Whether Start ev is refused for who pays it (the file's head): reply
 * then holds the ERR INVALID line. Out of memory, it is appended (verify
 * judges it) and logged. */
static bool refuse_payer (struct server *s, const jt_event_t *ev, char *reply, size_t len)
{
    jt_violation_kind_t kind;
    char why[200], msg[512];
    int rc = ev->type == JT_EV_START && s->load
                 ? jt_ledger_check_payer (s->load, ev, &kind, why, sizeof (why))
                 : 0;

    if (rc < 0)
        log_msg ("event %s: who pays lease %s not checked: out of memory", ev->id,
                 ev->lease);
    if (rc <= 0)
        return false;
    snprintf (msg, sizeof (msg), "%s: lease %.64s: %s (BudgetLoaded %.64s)",
              jt_violation_str (kind), ev->lease, why, s->load->id);
    log_msg ("refused event %s: %s", ev->id, msg);
    snprintf (reply, len, "ERR INVALID %.*s\n", (int) (len - 14), msg);
    return true;
}

/* Turn one canonicalized line into a request of group g (in order: the
 * id indexes, the group in flight's ids and g's own decide). Takes l's
 * canon and key. */
static void take_line (struct server *s, struct ledgerd_line *l, struct group *g)
{
    size_t *nappend = &g->nappend;
    struct req *r = req_new (g, l->c);
    char *canon = l->canon, *key = l->key;
    jt_event_t *ev = l->ev;
    l->canon = l->key = NULL;
    l->ev = NULL;
    if (!r) {
        l->c->eof = true;
        free (canon);
        free (key);
        jt_event_destroy (ev);
        return;
    }
    r->read_at = s->read_at;
    r->kind = REQ_REPLY;
    if (l->head) {
        r->kind = REQ_HEAD; /* answered after this batch's commit */
        return;
    }
    if (!canon) {
        snprintf (r->reply, sizeof (r->reply), "ERR INVALID %s\n", l->err);
        return;
    }
    void *seq = jt_map_get (s->index, key);
    /* an id whose group is being synced: its seq is known (answered after
     * that group's, so only once it is durable), never a second record */
    void *fidx = !seq && s->fly ? jt_map_get (s->fly->batch, key) : NULL;
    void *bidx = jt_map_get (g->batch, key);
    uint64_t old = 0;
    int found = 0;
    char e[256];
    if (fidx)
        old = s->fly->first + (uint64_t) (uintptr_t) fidx - 1;
    if (!seq && !fidx && !bidx
        && (found = ledgerd_ids_find (&s->ids, key, &old, e, sizeof (e))) < 0) {
        /* cannot tell whether it is a resend (the ledger cannot be read):
         * fail closed, appending nothing of this batch, rather than risk a
         * second copy; the clients keep their events */
        snprintf (s->fatal, sizeof (s->fatal), "id index: %.200s", e);
        snprintf (r->reply, sizeof (r->reply), "ERR FAIL %.250s\n", s->fatal);
    } else if (seq || fidx || found) {
        r->kind = REQ_DUP;
        r->seq = seq ? (uint64_t) (uintptr_t) seq : old;
    } else if (bidx) {
        r->kind = REQ_BATCHDUP;
        r->dup_of = (size_t) (uintptr_t) bidx - 1;
    } else if (refuse_payer (s, ev, r->reply, sizeof (r->reply))) {
        /* r->reply: ERR INVALID */
    } else if (jt_map_put (g->batch, key, (void *) (uintptr_t) (*nappend + 1), NULL) < 0) {
        snprintf (r->reply, sizeof (r->reply), "ERR FAIL out of memory\n");
    } else {
        if (ev->type == JT_EV_BUDGET_LOADED) { /* judges the Starts after it */
            const jt_event_t *before = s->load;
            note_load (s, canon, strlen (canon));
            if (s->load != before) { /* where it is: known once appended */
                g->load_pending = *nappend + 1;
                g->load_none = !s->load;
            }
        }
        r->kind = REQ_APPEND;
        r->payload = canon;
        r->len = strlen (canon);
        r->key = key;
        r->dup_of = (*nappend)++;
        if (s->fold)
            r->ev = ev;
        else
            jt_event_destroy (ev);
        return;
    }
    free (canon);
    free (key);
    jt_event_destroy (ev);
}

/* Split complete lines out of every client's input, up to batch_max
 * requests a group, canonicalize them, and turn them into requests of g
 * in order. Returns true if some input was left for a later round. */
static bool gather (struct server *s, struct group *g)
{
    bool left = false;
    size_t nlines = 0, cap = s->linecap, *used = s->used;
    size_t room = g->nreqs < s->conf->batch_max ? s->conf->batch_max - g->nreqs : 0;
    struct ledgerd_line *lines = s->lines; /* kept: a round's array is large */

    if (!s->nclients)
        return false;
    if (s->nclients > s->usedcap) {
        if (!(used = realloc (s->used, MAX_CLIENTS * sizeof (*used))))
            return true; /* try again next round */
        s->used = used;
        s->usedcap = MAX_CLIENTS;
    }
    for (size_t i = 0; i < s->nclients; i++) {
        struct client *c = s->clients[i];
        size_t off = 0;
        while (off < c->inlen) {
            if (nlines >= room) {
                left = true;
                break;
            }
            char *nl = memchr (c->in + off, '\n', c->inlen - off);
            if (!nl)
                break;
            size_t len = (size_t) (nl - (c->in + off));
            if (len && c->in[off + len - 1] == '\r')
                len--;
            if (len && nlines == cap) {
                size_t nc = cap ? 2 * cap : 256;
                struct ledgerd_line *nv = realloc (lines, nc * sizeof (*nv));
                if (!nv) {
                    left = true; /* the rest next round */
                    break;
                }
                s->lines = lines = nv;
                s->linecap = cap = nc;
            }
            if (len)
                lines[nlines++] = (struct ledgerd_line){ .c = c, .text = c->in + off, .len = len };
            off = (size_t) (nl - c->in) + 1;
        }
        used[i] = off;
    }
    ledgerd_canon_all (&s->canon, lines, nlines);
    for (size_t k = 0; k < nlines; k++)
        take_line (s, &lines[k], g);
    for (size_t i = 0; i < s->nclients; i++) {
        struct client *c = s->clients[i];
        size_t off = used[i];
        if (off)
            memmove (c->in, c->in + off, c->inlen - off);
        c->inlen -= off;
        if (c->inlen > JT_LEDGER_MAX_PAYLOAD + 1024) {
            client_reply (c, "ERR INVALID request line too long\n");
            c->eof = true;
            c->inlen = 0;
        }
    }
    return left;
}

/* Hand group g's appends to the commit thread (the writer is idle: the
 * seqs it will get are known now). 0, or -1 out of memory (s->fatal). */
static int group_submit (struct server *s, struct group *g)
{
    if (g->nappend > g->pcap) {
        size_t nc = g->pcap ? g->pcap : 256;
        while (nc < g->nappend)
            nc *= 2;
        const char **p = realloc (g->p, nc * sizeof (*p));
        if (p)
            g->p = p;
        size_t *lens = p ? realloc (g->lens, nc * sizeof (*lens)) : NULL;
        if (lens)
            g->lens = lens;
        uint64_t *offs = lens ? realloc (g->offs, nc * sizeof (*offs)) : NULL;
        if (!offs) {
            snprintf (s->fatal, sizeof (s->fatal), "out of memory");
            return -1;
        }
        g->offs = offs;
        g->pcap = nc;
    }
    for (size_t i = 0; i < g->nreqs; i++)
        if (g->reqs[i].kind == REQ_APPEND) {
            g->p[g->reqs[i].dup_of] = g->reqs[i].payload;
            g->lens[g->reqs[i].dup_of] = g->reqs[i].len;
        }
    g->first = jt_ledger_writer_last_seq (s->w) + 1;
    ledgerd_commit_submit (&s->cm, g->p, g->lens, g->nappend, g->offs);
    return 0;
}

/* Answer group g, in order, once its appends are durable (rc 0, first) or
 * failed (rc -1, err): then every request not answered otherwise gets ERR
 * FAIL. Only the replies: the records are indexed and folded by
 * group_record, after the replies went out, so that a window's ack does
 * not wait for the bookkeeping of its whole group. The writer is idle. */
static void group_answer (struct server *s, struct group *g, int rc, uint64_t first,
                          const jt_error_t *err)
{
    g->ierr[0] = '\0';
    g->first = first;
    if (rc == 0 && g->nappend) {
        (void) ledgerd_ids_segment (&s->ids, jt_ledger_writer_segment (s->w), g->ierr,
                                    sizeof (g->ierr));
        memcpy (g->last_hash, jt_ledger_writer_last_hash (s->w), 65);
    }
    for (size_t i = 0; i < g->nreqs; i++) {
        struct req *r = &g->reqs[i];
        char line[400];
        if (r->kind == REQ_REPLY)
            snprintf (line, sizeof (line), "%s", r->reply);
        else if (r->kind == REQ_HEAD)
            snprintf (line, sizeof (line), "HEAD %" PRIu64 " %s\n",
                      jt_ledger_writer_last_seq (s->w),
                      jt_ledger_writer_last_hash (s->w));
        else if (rc < 0)
            snprintf (line, sizeof (line), "ERR FAIL %s\n", err->text);
        else if (r->kind == REQ_DUP)
            snprintf (line, sizeof (line), "OK %" PRIu64 "\n", r->seq);
        else
            snprintf (line, sizeof (line), "OK %" PRIu64 "\n", first + r->dup_of);
        client_reply (r->c, line);
        r->c->nreq--;
    }
    if (rc == 0) { /* the replies go out now (flush_all): each one's wait */
        double now = mono_now ();
        for (size_t i = 0; i < g->nreqs; i++)
            if (g->reqs[i].kind != REQ_REPLY && g->reqs[i].kind != REQ_HEAD)
                ledgerd_lat_add (&s->acks, now - g->reqs[i].read_at);
    }
    if (rc == 0 && g->nappend) {
        s->lat_groups++;
        s->lat_records += g->nappend;
        if (!s->since)
            s->since_at = mono_now ();
        s->since += g->nappend;
    }
}

/* After group_answer: index (memory and disk) and fold g's durable
 * records (rc 0), free its requests and make it empty. 0, or -1 with
 * errbuf: stop (fail closed). */
static int group_record (struct server *s, struct group *g, int rc, const jt_error_t *err,
                         char *errbuf, size_t errlen)
{
    char *ierr = g->ierr;
    size_t nappend = g->nappend, ierrlen = sizeof (g->ierr);
    uint64_t first = g->first;

    for (size_t i = 0; i < g->nreqs; i++) {
        struct req *r = &g->reqs[i];
        if (rc == 0 && r->kind == REQ_APPEND) {
            uint64_t seq = first + r->dup_of;
            if (jt_map_put (s->index, r->key, (void *) (uintptr_t) seq, NULL) < 0)
                log_msg ("index full of memory: id %s not indexed", r->key);
            /* the record is durable and acknowledged; if it cannot be
             * indexed, a resend could be appended twice: stop after these
             * replies (the index is rebuilt at the next start) */
            if (r->ev && s->fold) {
                jt_violation_t v;
                jt_error_t ferr = { "" };
                if (jt_ledger_fold_apply (s->fold, seq, r->ev, &v, &ferr) < 0) {
                    log_msg ("checkpoints off: the fold failed at seq %" PRIu64 ": %s", seq,
                             ferr.text);
                    jt_ledger_fold_destroy (s->fold);
                    s->fold = NULL;
                }
            }
            if (!ierr[0]
                && ledgerd_ids_add (&s->ids, r->key, g->offs[r->dup_of], ierr, ierrlen) < 0
                && !ierr[0])
                snprintf (ierr, ierrlen, "id index failed");
        }
        free (r->payload);
        free (r->key);
        jt_event_destroy (r->ev);
        r->ev = NULL;
    }
    if (rc == 0 && nappend && !ierr[0]) { /* every record of the group indexed */
        s->mark.seq = first + nappend - 1;
        s->mark.pos = ledgerd_ids_pos (&s->ids, g->offs[nappend - 1]);
        memcpy (s->mark.hash, g->last_hash, 65);
        if (g->load_pending)
            s->mark.load_pos =
                g->load_none ? 0 : ledgerd_ids_pos (&s->ids, g->offs[g->load_pending - 1]) + 1;
    }
    g->load_pending = 0;
    g->load_none = false;
    g->nreqs = 0;
    g->nappend = 0;
    jt_map_destroy (g->batch, NULL);
    g->batch = jt_map_create (0);
    if (rc < 0)
        snprintf (errbuf, errlen, "%s", err->text);
    else if (ierr[0]) {
        snprintf (errbuf, errlen, "%s", ierr);
        rc = -1;
    } else if (!g->batch) {
        snprintf (errbuf, errlen, "out of memory");
        rc = -1;
    }
    return rc;
}

/* group_answer, then group_record: the writer idle throughout. */
static int group_finish (struct server *s, struct group *g, int rc, uint64_t first,
                         const jt_error_t *err, char *errbuf, size_t errlen)
{
    group_answer (s, g, rc, first, err);
    return group_record (s, g, rc, err, errbuf, errlen);
}

static void flush_all (struct server *s)
{
    for (size_t i = 0; i < s->nclients; i++)
        client_flush (s->clients[i]);
}

/* Answer the group in flight once its sync returned (waiting for it),
 * send the replies at once, then index and fold its records (before any
 * checkpoint). */
static int fly_finish (struct server *s, char *errbuf, size_t errlen)
{
    uint64_t first = 0;
    jt_error_t err = { "" };
    struct group *g = s->fly;
    int rc = ledgerd_commit_collect (&s->cm, &first, &err);
    s->fly = NULL;
    group_answer (s, g, rc, first, &err);
    flush_all (s);
    return group_record (s, g, rc, &err, errbuf, errlen);
}

/* Group cur, gathered while nothing is in flight: answered at once when it
 * appends nothing, failed when s->fatal says so, else handed to the commit
 * thread (and cur is the other group from now on). 0, or -1 (stop). */
static int cur_commit (struct server *s, char *errbuf, size_t errlen)
{
    struct group *g = s->cur;
    jt_error_t err = { "" };

    if (s->fatal[0] || (g->nappend && group_submit (s, g) < 0)) {
        snprintf (err.text, sizeof (err.text), "%s", s->fatal);
        return group_finish (s, g, -1, 0, &err, errbuf, errlen);
    }
    if (!g->nappend)
        return g->nreqs ? group_finish (s, g, 0, 0, &err, errbuf, errlen) : 0;
    s->fly = g;
    s->cur = g == &s->grp[0] ? &s->grp[1] : &s->grp[0];
    return 0;
}

static int listen_socket (struct server *s, char *errbuf, size_t errlen)
{
    const char *path = s->conf->socket;
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct stat sb;

    if (strlen (path) >= sizeof (sa.sun_path)) {
        snprintf (errbuf, errlen, "socket path too long: %s", path);
        return -1;
    }
    strcpy (sa.sun_path, path);
    if (lstat (path, &sb) == 0) {
        if (!S_ISSOCK (sb.st_mode)) {
            snprintf (errbuf, errlen, "%s exists and is not a socket", path);
            return -1;
        }
        int t = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (t >= 0 && connect (t, (struct sockaddr *) &sa, sizeof (sa)) == 0) {
            close (t);
            snprintf (errbuf, errlen, "%s: another daemon is listening", path);
            return -1;
        }
        if (t >= 0)
            close (t);
        unlink (path);
    }
    s->lfd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    mode_t old = umask (0177);
    int rc = s->lfd < 0 ? -1 : bind (s->lfd, (struct sockaddr *) &sa, sizeof (sa));
    umask (old);
    if (rc < 0 || chmod (path, s->conf->socket_mode) < 0 || listen (s->lfd, 128) < 0) {
        snprintf (errbuf, errlen, "%s: %s", path, strerror (errno));
        return -1;
    }
    return 0;
}

static int write_pidfile (const char *path, char *errbuf, size_t errlen)
{
    FILE *f = fopen (path, "w");
    if (!f || fprintf (f, "%d\n", (int) getpid ()) < 0 || fclose (f) != 0) {
        snprintf (errbuf, errlen, "pidfile %s: %s", path, strerror (errno));
        return -1;
    }
    return 0;
}

static int recover (struct server *s, char *errbuf, size_t errlen)
{
    jt_ledger_result_t res;
    jt_error_t err = { "" };
    jt_ledger_writer_opts_t o = { .segment_max = s->conf->segment_max,
                                  .cb = index_cb,
                                  .arg = s,
                                  .truncate_damaged_tail =
                                      s->conf->truncate_damaged_tail,
                                  .fence = true };

    int restored = restore_ids (s, errbuf, errlen);
    if (restored < 0
        || (!restored && ledgerd_ids_open (&s->ids, s->conf->dir, errbuf, errlen) < 0))
        return -1;
    o.from_seq = s->stamp_seq;
    o.from_off = s->stamp_seq ? ledgerd_ids_offset (s->mark.pos) : 0;
    s->w = jt_ledger_writer_open_opts (s->conf->dir, &o, &res, &err);
    if (!s->w) {
        snprintf (errbuf, errlen, "%s", err.text);
        return -1;
    }
    s->head_saved_at = mono_now ();
    if (res.status == JT_LEDGER_TRUNCATED)
        log_msg ("truncated a torn tail: %s offset %" PRIu64 " (seq %" PRIu64 "): %s; "
                 "the cut bytes are in %s/torn-%020" PRIu64 ".bin",
                 res.bad_file, res.bad_offset, res.bad_seq, res.msg, s->conf->dir,
                 res.bad_seq);
    if (res.status == JT_LEDGER_CORRUPT)
        log_msg ("--truncate-damaged-tail: cut a damaged tail: %s offset %" PRIu64
                 " (seq %" PRIu64 "): %s; the cut bytes are in %s/damaged-%020" PRIu64
                 ".bin",
                 res.bad_file, res.bad_offset, res.bad_seq, res.msg, s->conf->dir,
                 res.bad_seq);
    if (res.cut_seq && res.durable_seq >= res.cut_seq)
        log_msg ("--truncate-damaged-tail: records %" PRIu64 "..%" PRIu64 " were "
                 "durable and may have been acknowledged; they are lost, and seq %" PRIu64
                 " will be reused",
                 res.cut_seq, res.durable_seq, res.cut_seq);
    log_msg ("ledger %s: %" PRIu64 " records read in %" PRIu64 " segments%s, head %" PRIu64
             ":%s, %zu ids indexed (%zu in memory), writer epoch %" PRIu64 "%s%s",
             s->conf->dir, res.nrecords, res.nsegments,
             s->stamp_seq ? " (the id index stamped by the last run)" : "",
             jt_ledger_writer_last_seq (s->w), jt_ledger_writer_last_hash (s->w),
             ledgerd_ids_count (&s->ids), jt_map_count (s->index),
             jt_ledger_writer_epoch (s->w),
             jt_ledger_writer_took_over (s->w)
                 ? ", taken over from a writer that did not stop: appending to "
                 : "",
             jt_ledger_writer_took_over (s->w) ? jt_ledger_writer_segment (s->w) : "");
    return 0;
}

/* A test's crash point (JT_LEDGERD_TEST_CRASH): die as a power cut would. */
static void crash_at (const struct server *s, const char *where)
{
    if (s->crash && !strcmp (s->crash, where)) {
        log_msg ("JT_LEDGERD_TEST_CRASH=%s: killed", where);
        raise (SIGKILL);
    }
}

/* Write a checkpoint of the fold when its records are due (count or age),
 * as one group commit of its parts right after the records it covers. A
 * state that cannot be written is logged and retried at the next due
 * point; a failed append fails the writer (fail closed, like any). */
static int maybe_checkpoint (struct server *s, char *errbuf, size_t errlen)
{
    const struct ledgerd_conf *c = s->conf;
    char **p = NULL;
    size_t *lens = NULL, n = 0;
    uint64_t up_to = jt_ledger_writer_last_seq (s->w), first;
    jt_error_t err = { "" };

    if (!s->fold || !s->since
        || !((c->checkpoint_every && s->since >= c->checkpoint_every)
             || (c->checkpoint_interval
                 && mono_now () - s->since_at >= (double) c->checkpoint_interval)))
        return 0;
    s->since = 0;
    double t0 = mono_now (), t1;
    if (jt_ckpt_payloads (s->fold, up_to, (int64_t) time (NULL), 0, &p, &lens, &n, &err)
        < 0) {
        if (!s->ckpt_failing)
            log_msg ("cannot write a checkpoint after seq %" PRIu64 ": %s", up_to, err.text);
        s->ckpt_failing = true;
        return 0;
    }
    crash_at (s, "checkpoint-before");
    t1 = mono_now ();
    if (jt_ledger_writer_append (s->w, (const char *const *) p, lens, n, &first, &err) < 0) {
        jt_ckpt_payloads_free (p, lens, n);
        snprintf (errbuf, errlen, "checkpoint after seq %" PRIu64 ": %s", up_to, err.text);
        return -1;
    }
    crash_at (s, "checkpoint-after");
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += lens[i];
    jt_ckpt_payloads_free (p, lens, n);
    if (s->ckpt_failing)
        log_msg ("checkpoints are written again");
    s->ckpt_failing = false;
    log_msg ("checkpoint after seq %" PRIu64 ": %zu parts, seq %" PRIu64 "..%" PRIu64
             ", %zu bytes; made in %.1f ms, written and synced in %.1f ms",
             up_to, n, first, first + n - 1, bytes, (t1 - t0) * 1e3, (mono_now () - t1) * 1e3);
    return 0;
}

/* The ledger ends inside a checkpoint (its write was cut short after some
 * parts reached the disk, or a part was cut as a torn tail): nothing came
 * after it, so the fold is still the state after its upTo. Write its
 * missing parts, made again from the fold: the same state text, the same
 * stateSha256 (checked), so that the checkpoint is whole. */
static int complete_checkpoint (struct server *s, const jt_replay_info_t *info,
                                char *errbuf, size_t errlen)
{
    char **p = NULL;
    size_t *lens = NULL, n = 0, k = (size_t) info->dangling_part;
    uint64_t first;
    jt_error_t err = { "" };
    jt_event_t *ev = NULL;
    int rc = 0;

    if (jt_ckpt_payloads (s->fold, info->dangling_up_to, (int64_t) time (NULL), 0, &p,
                          &lens, &n, &err)
            < 0
        || !(ev = jt_event_from_json (p[0], lens[0], &err))) {
        log_msg ("cannot complete the checkpoint at seq %" PRIu64 ": %s", info->dangling_seq,
                 err.text);
        goto out;
    }
    if ((int64_t) n != info->dangling_parts || k >= n
        || strcmp (ev->state_sha256, info->dangling_sha256)) {
        log_msg ("cannot complete the checkpoint at seq %" PRIu64 " (%" PRId64 " of %" PRId64
                 " parts): the state now is not the one it recorded (%zu parts, sha256 "
                 "%.16s...); jobtree verify will name it",
                 info->dangling_seq, info->dangling_part, info->dangling_parts, n,
                 ev->state_sha256);
        goto out;
    }
    if (jt_ledger_writer_append (s->w, (const char *const *) p + k, lens + k, n - k, &first,
                                 &err)
        < 0) {
        snprintf (errbuf, errlen, "completing the checkpoint at seq %" PRIu64 ": %s",
                  info->dangling_seq, err.text);
        rc = -1;
        goto out;
    }
    s->since = 0; /* it covers every record before it */
    log_msg ("completed the checkpoint at seq %" PRIu64 " (its write was cut short after "
             "part %zu of %zu): parts %zu..%zu written at seq %" PRIu64,
             info->dangling_seq, k, n, k + 1, n, first);
out:
    jt_event_destroy (ev);
    jt_ckpt_payloads_free (p, lens, n);
    return rc;
}

/* The fold checkpoints are made of, from the ledger's last checkpoint. */
static int fold_ledger (struct server *s, char *errbuf, size_t errlen)
{
    jt_ledger_result_t res;
    jt_replay_info_t info;
    jt_error_t err = { "" };
    uint64_t nviol = 0;

    if (!s->conf->checkpoint_every && !s->conf->checkpoint_interval)
        return 0;
    s->fold = jt_ledger_fold_replay_dir_ckpt (s->conf->dir, &res, &nviol, NULL, &info, &err);
    if (!s->fold) {
        snprintf (errbuf, errlen, "checkpoints: the fold of %s: %s", s->conf->dir, err.text);
        return -1;
    }
    jt_ledger_fold_forget_ids (s->fold);
    if (res.last_seq != jt_ledger_writer_last_seq (s->w)) {
        /* the records before the id index's stamp are read here only
         * (from genesis when no checkpoint serves): name the damage */
        if (res.status != JT_LEDGER_OK && res.status != JT_LEDGER_EMPTY)
            snprintf (errbuf, errlen, "checkpoints: the fold of %s: %s at seq %" PRIu64
                      ", %s offset %" PRIu64 ": %s; refusing to append (run `jobtree "
                      "verify %s`)", s->conf->dir, jt_ledger_status_str (res.status),
                      res.bad_seq, res.bad_file, res.bad_offset, res.msg, s->conf->dir);
        else
            snprintf (errbuf, errlen, "checkpoints: the fold of %s ends at seq %" PRIu64
                      " (%s), the ledger at %" PRIu64, s->conf->dir, res.last_seq,
                      jt_ledger_status_str (res.status), jt_ledger_writer_last_seq (s->w));
        return -1;
    }
    if (info.ckpt_seq)
        log_msg ("checkpoints: from the checkpoint at seq %" PRIu64 " (after seq %" PRIu64
                 "), %" PRIu64 " records folded",
                 info.ckpt_seq, info.up_to, info.records_folded);
    else
        log_msg ("checkpoints: full fold of %" PRIu64 " records%s%s", info.records_folded,
                 info.why[0] ? ": " : "", info.why);
    s->since = info.records_folded;
    s->since_at = mono_now ();
    if (info.dangling_part && info.dangling_up_to + (uint64_t) info.dangling_part
                                  == jt_ledger_writer_last_seq (s->w))
        return complete_checkpoint (s, &info, errbuf, errlen);
    return 0;
}

static void drop_closed (struct server *s)
{
    size_t j = 0;
    for (size_t i = 0; i < s->nclients; i++) {
        struct client *c = s->clients[i];
        if (c->eof && !c->nreq) /* a group still to answer points at it */
            client_free (c);
        else
            s->clients[j++] = c;
    }
    s->nclients = j;
}

/* Stop failed (errbuf says why; nothing is in flight): every request of
 * the group being gathered gets ERR FAIL, and the replies go out. */
static int stop_failed (struct server *s, const char *why)
{
    jt_error_t err = { "" };
    char e[256];
    snprintf (err.text, sizeof (err.text), "%s", why);
    if (s->cur->nreqs)
        (void) group_finish (s, s->cur, -1, 0, &err, e, sizeof (e));
    flush_all (s);
    return -1;
}

/* After a group's sync returned and it was answered (the writer idle, the
 * fold at its last record): the checkpoint when due, the stamp after it,
 * the durable head when due. 0, or -1 (a checkpoint failed: stop). */
/* Every LATENCY_EVERY_S with appends, and at a clean stop: one log line of
 * what the appends since the last one took, the disk's part (each group's
 * write + fdatasync, commit.c) beside the whole (a request's read to its
 * reply), so that an admin tells a slow disk from a slow daemon. Then
 * both start again. The commit thread is idle (between groups). */
static void latency_report (struct server *s, bool stop)
{
    double now = mono_now ();
    char disk[96], acks[96];

    if (!s->lat_groups || (!stop && now - s->lat_since < LATENCY_EVERY_S))
        return;
    ledgerd_lat_format (&s->cm.sync, disk, sizeof (disk));
    ledgerd_lat_format (&s->acks, acks, sizeof (acks));
    log_msg ("appends in the last %.0f s: %" PRIu64 " records in %" PRIu64 " group commits; "
             "write+fdatasync %s; acks (read to reply) %s",
             now - s->lat_since, s->lat_records, s->lat_groups, disk, acks);
    memset (&s->cm.sync, 0, sizeof (s->cm.sync));
    memset (&s->acks, 0, sizeof (s->acks));
    s->lat_groups = s->lat_records = 0;
    s->lat_since = now;
}

static int after_commit (struct server *s, char *errbuf, size_t errlen)
{
    uint64_t ckpt_before = s->since;
    if (s->stamping && __atomic_load_n (&s->stamp_done, __ATOMIC_ACQUIRE))
        stamp_join (s); /* done: logged now, not at the next stamp */
    if (maybe_checkpoint (s, errbuf, errlen) < 0)
        return -1;
    /* after a checkpoint; and every round when none are written, or when
     * the ids in memory are many, so that they never grow unmerged */
    bool ckpts = s->fold && (s->conf->checkpoint_every || s->conf->checkpoint_interval);
    if ((ckpt_before && !s->since) || !ckpts || ledgerd_ids_pressing (&s->ids))
        stamp_ids_async (s);
    save_head (s);
    latency_report (s, false);
    return 0;
}

/* DESIGN (see the head comment): gather into s->cur while s->fly is being
 * written and synced by the commit thread; when its sync returns, answer
 * it, then hand over what cur gathered meanwhile. */
static int loop (struct server *s, char *errbuf, size_t errlen)
{
    struct pollfd pfd[MAX_CLIENTS + 2];
    bool more = false;
    char buf[READ_CHUNK];

    for (;;) {
        if (ledgerd_exit_flag) {
            /* a clean stop: what was read is answered first */
            if (s->fly && (fly_finish (s, errbuf, errlen) < 0
                           || after_commit (s, errbuf, errlen) < 0))
                return stop_failed (s, errbuf);
            if (s->cur->nreqs && (cur_commit (s, errbuf, errlen) < 0
                                  || (s->fly && (fly_finish (s, errbuf, errlen) < 0
                                                 || after_commit (s, errbuf, errlen) < 0))))
                return stop_failed (s, errbuf);
            flush_all (s);
            latency_report (s, true);
            return 0;
        }
        if (ledgerd_hup_flag) {
            ledgerd_hup_flag = 0;
            log_open (s->conf->logfile);
            log_msg ("reopened the log");
        }
        pfd[0] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
        for (size_t i = 0; i < s->nclients; i++) {
            struct client *c = s->clients[i];
            pfd[i + 1] = (struct pollfd){
                .fd = c->fd,
                .events = (short) ((c->eof ? 0 : POLLIN) | (c->outlen ? POLLOUT : 0))
            };
        }
        size_t npfd = s->nclients + 1;
        if (s->fly)
            pfd[npfd] = (struct pollfd){ .fd = s->cm.pipe[0], .events = POLLIN };
        bool full = s->cur->nreqs >= s->conf->batch_max;
        int timeout = more && !(s->fly && full) ? 0 : s->fly ? -1 : idle_timeout (s);
        int n = poll (pfd, npfd + (s->fly ? 1 : 0), timeout);
        s->read_at = mono_now (); /* what this round reads arrived by now */
        if (n < 0) {
            if (errno == EINTR)
                continue;
            snprintf (errbuf, errlen, "poll: %s", strerror (errno));
            return -1;
        }
        for (size_t i = 1; i < npfd; i++) {
            struct client *c = s->clients[i - 1];
            if (pfd[i].revents & POLLOUT)
                client_flush (c);
            if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                ssize_t k = read (c->fd, buf, sizeof (buf));
                if (k > 0) {
                    if (buf_add (&c->in, &c->inlen, &c->incap, buf, (size_t) k) < 0)
                        c->eof = true;
                } else if (k == 0 || (errno != EAGAIN && errno != EINTR))
                    c->eof = true;
            }
        }
        if (s->fly && ledgerd_commit_ready (&s->cm)) {
            if (fly_finish (s, errbuf, errlen) < 0 || after_commit (s, errbuf, errlen) < 0)
                return stop_failed (s, errbuf); /* fail closed */
        }
        more = !s->fatal[0] && gather (s, s->cur);
        if (!s->fly && s->cur->nreqs && cur_commit (s, errbuf, errlen) < 0)
            return stop_failed (s, errbuf);
        flush_all (s);
        if (!s->fly && after_commit (s, errbuf, errlen) < 0)
            return stop_failed (s, errbuf);
        drop_closed (s);
        if (pfd[0].revents & POLLIN)
            accept_clients (s);
    }
}

int ledgerd_serve (const struct ledgerd_conf *conf, void (*ready) (void *), void *arg,
                   char *errbuf, size_t errlen)
{
    struct server s = { .conf = conf, .lfd = -1, .ids = { .fd = -1 },
                        .cm = { .pipe = { -1, -1 } } };
    int lockfd = -1, rc = -1;

    if ((rc = ledgerd_lock (conf, &lockfd, errbuf, errlen)) != 0)
        return rc == LEDGERD_EXIT_LOCKED && ledgerd_exit_flag ? 0 : rc;
    rc = -1;
    if (!(s.index = jt_map_create (conf->index_max))) {
        snprintf (errbuf, errlen, "out of memory");
        goto done;
    }
    s.crash = getenv ("JT_LEDGERD_TEST_CRASH");
    const char *chunk = getenv ("JT_LEDGERD_TEST_CHUNK"); /* slots a chunk */
    s.chunk = chunk ? (size_t) strtoul (chunk, NULL, 10) : 0;
    const char *gap = getenv ("JT_LEDGERD_TEST_STAMP_GAP"); /* seconds */
    s.stamp_gap = gap ? atof (gap) : STAMP_MIN_GAP_S;
    if (!(s.stamp_gap >= 0 && s.stamp_gap <= STAMP_MAX_AGE_S))
        s.stamp_gap = STAMP_MIN_GAP_S;
    s.cur = &s.grp[0];
    if (!(s.grp[0].batch = jt_map_create (0)) || !(s.grp[1].batch = jt_map_create (0))) {
        snprintf (errbuf, errlen, "out of memory");
        goto done;
    }
    if (recover (&s, errbuf, errlen) < 0 || fold_ledger (&s, errbuf, errlen) < 0
        || listen_socket (&s, errbuf, errlen) < 0
        || ledgerd_commit_start (&s.cm, s.w, errbuf, errlen) < 0)
        goto done;
    if (ledgerd_ids_serve (&s.ids, s.chunk) < 0) { /* the ids appended from now: in memory */
        snprintf (errbuf, errlen, "id index: out of memory");
        goto done;
    }
    ledgerd_canon_start (&s.canon);
    if (conf->pidfile && write_pidfile (conf->pidfile, errbuf, errlen) < 0)
        goto done;
    log_msg ("listening on %s (mode %04o, SlurmUser uid %u)", conf->socket,
             (unsigned) conf->socket_mode, (unsigned) conf->slurm_uid);
    if (ready)
        ready (arg);
    s.lat_since = mono_now ();
    if (!s.stamp_seq) /* a table built by this start (one from a stamp is clean) */
        s.settling = ledgerd_thread_start (&s.settler, settle_thread, &s);
    rc = loop (&s, errbuf, errlen);
    if (rc < 0 && jt_ledger_writer_fenced (s.w))
        rc = LEDGERD_EXIT_FENCED; /* errbuf: the writer's why */
done:
    ledgerd_commit_stop (&s.cm); /* the writer is this thread's again */
    ledgerd_canon_stop (&s.canon);
    free (s.lines);
    free (s.used);
    for (size_t i = 0; i < s.nclients; i++)
        client_free (s.clients[i]);
    for (int k = 0; k < 2; k++) {
        struct group *g = &s.grp[k];
        for (size_t i = 0; i < g->nreqs; i++) {
            free (g->reqs[i].payload);
            free (g->reqs[i].key);
            jt_event_destroy (g->reqs[i].ev);
        }
        free (g->reqs);
        jt_map_destroy (g->batch, NULL);
        free (g->p);
        free (g->lens);
        free (g->offs);
    }
    if (s.lfd >= 0) {
        close (s.lfd);
        unlink (conf->socket);
    }
    if (conf->pidfile && rc == 0)
        unlink (conf->pidfile);
    stamp_join (&s);
    settle_join (&s);
    head_join (&s); /* before the writer's close saves it again */
    if (rc == 0 && s.w && !jt_ledger_writer_fenced (s.w))
        stamp_ids (&s); /* a clean stop: the next start indexes nothing */
    jt_ledger_writer_close (s.w); /* saves the durable head after a clean run */
    jt_ledger_fold_destroy (s.fold);
    jt_event_destroy (s.load);
    ledgerd_ids_close (&s.ids);
    jt_map_destroy (s.index, NULL);
    close (lockfd);
    return rc;
}
