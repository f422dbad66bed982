/*
 * ledger_reader.c - the ONE ledger reader, used by jobtree-ledgerd's
 * startup recovery (through the writer) and by `jobtree verify`.
 *
 * DESIGN: segments are mapped read-only and walked record by record. The
 * first problem ends the walk with a named outcome (redis AOF style) and
 * the seq the bad record should have had, its file and byte offset. A bad
 * record is a torn tail (TRUNCATED) only when it is what a crash leaves: in
 * the last segment, with no LF after it, and not complete (bad_record).
 * Otherwise it is CORRUPT and only an operator may cut it (and only a
 * damaged tail: tail_damage).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobtree/ledger.h"
#include "jobtree/libc_tune.h"
#include "ledger_record.h"

const char *jt_ledger_status_str (jt_ledger_status_t s)
{
    switch (s) {
    case JT_LEDGER_OK: return "OK";
    case JT_LEDGER_EMPTY: return "EMPTY";
    case JT_LEDGER_TRUNCATED: return "TRUNCATED";
    case JT_LEDGER_CORRUPT: return "CORRUPT";
    case JT_LEDGER_BADCHAIN: return "BADCHAIN";
    case JT_LEDGER_BADSEQ: return "BADSEQ";
    case JT_LEDGER_BADHEAD: return "BADHEAD";
    case JT_LEDGER_IOERR: return "IOERR";
    }
    return "?";
}

int jt_ledger_segment_name (const char *name, unsigned long long *first)
{
    if (strncmp (name, "ledger-", 7) || strlen (name) != 7 + 20 + 4
        || strcmp (name + 27, ".jtl"))
        return 0;
    unsigned long long v = 0;
    for (int i = 7; i < 27; i++) {
        if (name[i] < '0' || name[i] > '9')
            return 0;
        v = v * 10 + (unsigned long long) (name[i] - '0');
    }
    *first = v;
    return 1;
}

int jt_ledger_head_parse (const char *s, uint64_t *seq, char hash[65])
{
    uint64_t v = 0;
    size_t i = 0;

    if (!s || s[0] < '1' || s[0] > '9')
        return -1;
    for (; s[i] >= '0' && s[i] <= '9'; i++) {
        uint64_t d = (uint64_t) (s[i] - '0');
        if (i >= 20 || v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (s[i++] != ':')
        return -1;
    for (size_t k = 0; k < 64; k++, i++) {
        char c = s[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return -1;
        hash[k] = c;
    }
    if (s[i] != '\0')
        return -1;
    hash[64] = '\0';
    *seq = v;
    return 0;
}

static int cmpstr (const void *a, const void *b)
{
    return strcmp (*(char *const *) a, *(char *const *) b);
}

void jt_ledger_segments_free (char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free (paths[i]);
    free (paths);
}

int jt_ledger_segments (const char *dir, char ***paths, size_t *n, jt_error_t *err)
{
    DIR *d = opendir (dir);
    struct dirent *de;
    char **v = NULL;
    size_t cnt = 0, cap = 0;
    unsigned long long first;

    *paths = NULL;
    *n = 0;
    if (!d)
        return jt_errprintf (err, "%s: %s", dir, strerror (errno));
    while ((de = readdir (d))) {
        if (!jt_ledger_segment_name (de->d_name, &first))
            continue;
        if (cnt == cap) {
            cap = cap ? 2 * cap : 16;
            char **nv = realloc (v, cap * sizeof (*v));
            if (!nv)
                goto nomem;
            v = nv;
        }
        size_t l = strlen (dir) + strlen (de->d_name) + 2;
        if (!(v[cnt] = malloc (l)))
            goto nomem;
        snprintf (v[cnt++], l, "%s/%s", dir, de->d_name);
    }
    closedir (d);
    if (cnt)
        qsort (v, cnt, sizeof (*v), cmpstr);
    *paths = v;
    *n = cnt;
    return 0;
nomem:
    closedir (d);
    jt_ledger_segments_free (v, cnt);
    return jt_errprintf (err, "out of memory");
}

struct walk {
    const char *head_hash;
    uint64_t head_seq;
    bool head_seen;
    jt_ledger_record_f cb;
    void *arg;
    jt_ledger_result_t *res;
    bool trust_first;           /* jt_ledger_read_from: the first record's
                                 * prev starts the chain */
    const jt_ledger_pre_t *pre; /* jt_ledger_read_pre: work for the hash thread */
    size_t start_off;           /* jt_ledger_read_at: the first file's records
                                 * from this byte on (0: all of it) */
};

static void problem (jt_ledger_result_t *res, jt_ledger_status_t st, const char *file,
                     uint64_t off, const char *fmt, const char *detail)
{
    res->status = st;
    res->bad_seq = res->last_seq + 1;
    res->bad_offset = off;
    snprintf (res->bad_file, sizeof (res->bad_file), "%s", file);
    snprintf (res->msg, sizeof (res->msg), fmt, detail);
}

static const char *record_status_text (jt_record_status_t st)
{
    switch (st) {
    case JT_RECORD_INCOMPLETE: return "incomplete record";
    case JT_RECORD_MALFORMED: return "malformed record";
    case JT_RECORD_BADHASH: return "record hash mismatch";
    case JT_RECORD_BADTERM: return "record not ended by LF";
    default: return "record";
    }
}

/* A bad record at off of a segment: the problem it is. One pass over the
 * rest of the segment at most (linear in its size, whatever it holds).
 *
 * A torn write leaves at most a prefix of one record after the last good
 * one: bytes with no LF (a record's only LF is its last byte) that are not
 * a complete record. So the bad record is a torn tail (TRUNCATED) only in
 * the last segment, when no LF follows it and it is not complete (its hash
 * field and the byte after it are all there: BADTERM). Anything else is
 * damage (CORRUPT): a complete record failing its hash or its terminator,
 * whole lines (a CRLF conversion, garbage, more records), or a bad record
 * in an earlier segment. tail_damage says the damage is in the last
 * segment and no good record follows it (an operator may cut it there). */
static void bad_record (jt_ledger_result_t *res, const char *file, const char *buf,
                        size_t size, size_t off, jt_record_status_t st, bool is_last)
{
    const char *what = record_status_text (st);
    const char *nl = memchr (buf + off, '\n', size - off);
    char detail[160];
    jt_record_t rec;

    res->last_good_size = off;
    if (is_last && !nl && st != JT_RECORD_BADTERM) {
        problem (res, JT_LEDGER_TRUNCATED, file, off,
                 "%s at the end of the last segment (torn tail)", what);
        return;
    }
    /* the record after the bad one's line, if any: one parse */
    if (nl && (size_t) (nl - buf) + 1 < size
        && jt_record_parse (nl + 1, size - (size_t) (nl - buf) - 1, &rec)
               == JT_RECORD_OK) {
        snprintf (detail, sizeof (detail), "%s followed by good records", what);
        is_last = false; /* damage in the middle: not a tail to cut */
    } else if (!is_last)
        snprintf (detail, sizeof (detail), "%s in a segment before the last", what);
    else
        snprintf (detail, sizeof (detail), "%s%s at the end of the last segment: "
                  "damage, not a torn write", what,
                  st == JT_RECORD_BADHASH || st == JT_RECORD_BADTERM
                      ? " (a complete record)"
                      : " with whole lines after it");
    problem (res, JT_LEDGER_CORRUPT, file, off, "%s", detail);
    res->tail_damage = is_last;
}

/* The checks of one good record in order (seq, chain, head anchor) and the
 * callback. 0 to go on, 1 when a problem ended the walk, -1 when the
 * callback failed. */
static int take_record (struct walk *w, const char *file, jt_record_t *rec, size_t pos,
                        void *pre, jt_error_t *err)
{
    jt_ledger_result_t *res = w->res;
    char detail[128];

    rec->pre = pre;
    rec->file = file;
    rec->offset = pos;
    if (w->trust_first && !res->nrecords && rec->seq == res->last_seq + 1)
        memcpy (res->last_hash, rec->prev, 65);
    if (rec->seq != res->last_seq + 1) {
        snprintf (detail, sizeof (detail), "%" PRIu64, rec->seq);
        problem (res, JT_LEDGER_BADSEQ, file, pos, "found seq %s", detail);
        return 1;
    }
    if (memcmp (rec->prev, res->last_hash, 65)) {
        problem (res, JT_LEDGER_BADCHAIN, file, pos,
                 "prev hash %.16s... does not match the previous record", rec->prev);
        return 1;
    }
    if (w->head_hash && rec->seq == w->head_seq) {
        w->head_seen = true;
        if (strcmp (rec->hash, w->head_hash)) {
            problem (res, JT_LEDGER_BADHEAD, file, pos,
                     "hash %.16s... differs from the head anchor", rec->hash);
            return 1;
        }
    }
    if (w->cb && w->cb (rec, w->arg, err) < 0)
        return -1;
    res->last_seq = rec->seq;
    memcpy (res->last_hash, rec->hash, 65);
    res->nrecords++;
    return 0;
}

/* Walk one mapped segment record by record. Same results as walk_buf. */
static int walk_seq (struct walk *w, const char *file, const char *buf, size_t size,
                     size_t from, bool is_last, jt_error_t *err)
{
    size_t pos = from;
    jt_record_t rec;
    int rc;

    while (pos < size) {
        jt_record_status_t st = jt_record_parse (buf + pos, size - pos, &rec);
        if (st != JT_RECORD_OK) {
            bad_record (w->res, file, buf, size, pos, st, is_last);
            return 1;
        }
        if ((rc = take_record (w, file, &rec, pos, NULL, err)) != 0)
            return rc;
        pos += rec.size;
    }
    w->res->last_good_size = pos;
    return 0;
}

/* A large segment is read in chunks of jt_ledger_read_chunk framed records
 * (grammar, length, terminator: jt_record_parse_frame) whose hashes helper
 * threads check while this one takes the previous chunks' records (checks
 * and callback, typically the fold). Hashing then overlaps with the rest on
 * other cores. The outcome is the sequential walk's, record for record: a
 * chunk's records are taken only once its hashes are known, in order, up
 * to its first bad hash; a framing problem ends the chunk it is found in,
 * and no chunk is framed after it. Without a helper (pthread_create
 * failed) a chunk's hashes are checked inline.
 *
 * With a jt_ledger_pre_t of `threads` T (0: 2) there are T - 1 helpers,
 * started once per segment, and 2T chunks in flight ahead of the one
 * being taken; a thread takes the oldest chunk waiting, frames it up to
 * its cut, checks its hashes and runs the pre's parse on its good records.
 * The callback's thread is one of them whenever the chunk it must take
 * next is not done (hash_join): it folds what is ready and parses what it
 * has room for, so the share of each thread follows what the fold costs.
 * Without a pre there is one helper, hashing only.
 *
 * A chunk is 256 records (about 100 KiB of a segment): the events of the
 * 2T + 1 chunks in flight, each a json-c tree of about 40 allocations
 * until the fold takes it, then stay within a core's cache. With 4096 the
 * 20,000 events parsed ahead at -j 2 made every parse allocate from, and
 * every release free to, memory out of cache: `jobtree verify -j 2` of 1M
 * records took 8.8 s median against 6.7 s with 256 (bench_verify.md). */
size_t jt_ledger_read_chunk = 256;
size_t jt_ledger_read_parallel_min = 4u << 20;

#define WALK_THREADS_MAX 256

int jt_ledger_read_test_chunks (size_t records)
{
    if (records < 1 || records > 65536)
        return -1;
    jt_ledger_read_chunk = records;
    jt_ledger_read_parallel_min = 0;
    return 0;
}

enum chunk_state { CHUNK_IDLE, CHUNK_QUEUED, CHUNK_RUNNING, CHUNK_DONE };

struct chunk {
    const char *buf;      /* the segment */
    size_t size;          /* its bytes */
    size_t start, end;    /* byte range of the framed records */
    size_t limit;         /* framing stops at or after it (a cut: next_cut) */
    jt_record_t *recs;    /* jt_ledger_read_chunk */
    size_t *pos;          /* each record's offset */
    void **pre;           /* jt_ledger_pre_t's results (NULL: none) */
    const jt_ledger_pre_t *hook;
    size_t n;             /* framed records */
    size_t nok;           /* records before the first bad hash (n: none) */
    jt_record_status_t st; /* what ended the framing at end (OK: n records or
                              the end of the segment) */
    enum chunk_state state; /* under the pool's lock */
    uint64_t ticket;      /* queue order */
    size_t maker;         /* the thread whose run made pre[] (0: the
                             callback's, k: helper k), under the pool's lock */
};

/* An array of what the hook made on one thread, waiting for that thread
 * to release it (struct pool's dead), or empty (its idle). */
struct spare {
    void **pre;
    size_t n;
    struct spare *next;  /* in a dead list or the idle one */
    struct spare *every; /* the pool's list of every spare */
};

static void frame_chunk (struct chunk *c);
static void chunk_release (struct chunk *c);

/* Release what hook made of n records and was not taken (NULL after). */
static void release_pre (const jt_ledger_pre_t *hook, void **pre, size_t n)
{
    for (size_t i = 0; hook && i < n; i++)
        if (pre[i]) {
            hook->release (pre[i]);
            pre[i] = NULL;
        }
}

/* A thread's work on c: release what the slot's last chunk left (made on
 * this thread, or on another when no array could be had: claim), frame,
 * hash, parse. */
static void hash_chunk (struct chunk *c)
{
    size_t i = 0;
    chunk_release (c);
    frame_chunk (c);
    while (i < c->n && jt_record_hash_ok (c->buf + c->pos[i], &c->recs[i]))
        i++;
    c->nok = i;
    if (c->hook)
        for (i = 0; i < c->nok; i++)
            c->pre[i] = c->hook->parse (&c->recs[i], c->hook->arg);
}

/* The helpers of one segment's walk and the chunks they take. */
struct pool {
    pthread_mutex_t mu;
    pthread_cond_t queued, done;
    struct chunk *ch;
    size_t nslot;
    pthread_t *th;
    size_t nth;           /* helpers started */
    size_t nid;           /* helpers that took their number */
    uint64_t next_ticket;
    bool quit;
    const jt_ledger_pre_t *hook;
    struct spare *spares; /* every one made (pre[] all NULL when idle) */
    struct spare *idle;
    struct spare **dead;  /* per thread (0: the callback's): to release */
};

static struct spare *spare_new (struct pool *p)
{
    struct spare *s = calloc (1, sizeof (*s));
    if (s && !(s->pre = calloc (jt_ledger_read_chunk, sizeof (*s->pre)))) {
        free (s);
        s = NULL;
    }
    if (s) {
        s->every = p->spares;
        p->spares = s;
    }
    return s;
}

/* c is about to run on thread `me` (under p->mu). What its last run made
 * and the callback did not take was allocated on c->maker's thread: it
 * goes, in the array it is in, to that thread's dead list, and an idle
 * array takes its place, so that glibc frees each event on the thread
 * that allocated it. A free from another thread goes to the allocating
 * thread's arena under its lock and misses this thread's cache: with it,
 * `jobtree verify -j 2` of 1M records took 6.9 s median against 5.9 s
 * (bench_verify.md). The arrays are made as needed: each thread drains
 * its list before each chunk it takes, so there are at most about T
 * times the slots. Without memory for one they are released here. */
static void claim (struct pool *p, struct chunk *c, size_t me)
{
    c->state = CHUNK_RUNNING;
    struct spare *s;
    if (c->maker != me && c->n && c->hook && p->dead
        && (s = p->idle ? p->idle : spare_new (p))) {
        void **pre = c->pre;
        if (s == p->idle)
            p->idle = s->next;
        c->pre = s->pre;
        s->pre = pre;
        s->n = c->n;
        c->n = 0;
        s->next = p->dead[c->maker];
        p->dead[c->maker] = s;
    }
    c->maker = me;
}

static void spare_release (const jt_ledger_pre_t *hook, struct spare *s)
{
    release_pre (hook, s->pre, s->n);
    s->n = 0;
}

/* Release, outside the lock, what thread `me` made and others ran past
 * (under p->mu on entry and on return). */
static void drain (struct pool *p, size_t me)
{
    while (p->dead && p->dead[me]) {
        struct spare *list = p->dead[me], *s;
        p->dead[me] = NULL;
        pthread_mutex_unlock (&p->mu);
        for (s = list; s; s = s->next)
            spare_release (p->hook, s);
        pthread_mutex_lock (&p->mu);
        while (list) {
            s = list;
            list = s->next;
            s->next = p->idle;
            p->idle = s;
        }
    }
}

/* The chunk waiting longest for a thread (under p->mu), NULL: none. */
static struct chunk *oldest_queued (struct pool *p)
{
    struct chunk *c = NULL;
    for (size_t k = 0; k < p->nslot; k++)
        if (p->ch[k].state == CHUNK_QUEUED && (!c || p->ch[k].ticket < c->ticket))
            c = &p->ch[k];
    return c;
}

static void *helper (void *arg)
{
    struct pool *p = arg;
    jt_locale_c_thread (); /* the parse's locale copies off the global lock */
    pthread_mutex_lock (&p->mu);
    size_t me = ++p->nid;
    for (;;) {
        drain (p, me);
        struct chunk *c = oldest_queued (p);
        if (!c && p->quit)
            break;
        if (!c) {
            pthread_cond_wait (&p->queued, &p->mu);
            continue;
        }
        claim (p, c, me);
        pthread_mutex_unlock (&p->mu);
        hash_chunk (c);
        pthread_mutex_lock (&p->mu);
        c->state = CHUNK_DONE;
        pthread_cond_broadcast (&p->done);
    }
    pthread_mutex_unlock (&p->mu);
    /* the walk is over (hash_cancel: no chunk runs or will): what this
     * thread made and nobody ran past is released here too */
    for (size_t k = 0; k < p->nslot; k++)
        if (p->ch[k].maker == me)
            chunk_release (&p->ch[k]);
    return NULL;
}

/* Start up to want helpers with every signal blocked (p->nth: how many
 * could be had). */
static void pool_start (struct pool *p, size_t want)
{
    sigset_t all, old;
    sigfillset (&all);
    pthread_sigmask (SIG_SETMASK, &all, &old);
    for (p->nth = 0; p->nth < want; p->nth++)
        if (pthread_create (&p->th[p->nth], NULL, helper, p) != 0)
            break;
    pthread_sigmask (SIG_SETMASK, &old, NULL);
}

static void pool_stop (struct pool *p)
{
    pthread_mutex_lock (&p->mu);
    p->quit = true;
    pthread_cond_broadcast (&p->queued);
    pthread_mutex_unlock (&p->mu);
    for (size_t i = 0; i < p->nth; i++)
        pthread_join (p->th[i], NULL);
    p->nth = 0;
}

/* Queue c for a helper; without one, hash it here. */
static void hash_start (struct pool *p, struct chunk *c)
{
    if (!p->nth) {
        hash_chunk (c);
        c->state = CHUNK_DONE;
        return;
    }
    pthread_mutex_lock (&p->mu);
    c->state = CHUNK_QUEUED;
    c->ticket = p->next_ticket++;
    pthread_cond_signal (&p->queued);
    pthread_mutex_unlock (&p->mu);
}

/* Wait for c's hashes (and parses), if it was started, without sitting
 * idle: while c is not done, this thread runs c itself if no helper took
 * it yet, else the oldest chunk still queued, and only waits when every
 * chunk in flight is running. So the callback's thread takes on as much of
 * the hashing and parsing as its own work (the fold) leaves it room for,
 * whatever that costs per record: at -j 2 the two cores stay busy when
 * the fold is lighter than the parse, instead of the one helper parsing
 * nearly every record while the fold waits for it. Who runs a chunk
 * changes nothing in what it holds. */
static void hash_join (struct pool *p, struct chunk *c)
{
    if (p->nth) {
        pthread_mutex_lock (&p->mu);
        while (c->state == CHUNK_QUEUED || c->state == CHUNK_RUNNING) {
            drain (p, 0);
            if (c->state != CHUNK_QUEUED && c->state != CHUNK_RUNNING)
                break;
            struct chunk *q = c->state == CHUNK_QUEUED ? c : oldest_queued (p);
            if (!q) {
                pthread_cond_wait (&p->done, &p->mu);
                continue;
            }
            claim (p, q, 0);
            pthread_mutex_unlock (&p->mu);
            hash_chunk (q);
            pthread_mutex_lock (&p->mu);
            q->state = CHUNK_DONE;
        }
        pthread_mutex_unlock (&p->mu);
    }
    c->state = CHUNK_IDLE;
}

/* The end of a walk: the chunks still queued are dropped unrun (a problem
 * ended the walk before them), the running ones waited for. */
static void hash_cancel (struct pool *p)
{
    pthread_mutex_lock (&p->mu);
    for (size_t k = 0; k < p->nslot; k++) {
        struct chunk *c = &p->ch[k];
        if (c->state == CHUNK_QUEUED)
            c->state = CHUNK_IDLE;
        while (c->state == CHUNK_RUNNING)
            pthread_cond_wait (&p->done, &p->mu);
        c->state = CHUNK_IDLE;
    }
    pthread_mutex_unlock (&p->mu);
}

/* Release what the hook made for c's records and was not taken. */
static void chunk_release (struct chunk *c)
{
    release_pre (c->hook, c->pre, c->n);
}

/* Where the chunk from byte `from` is cut: after its
 * jt_ledger_read_chunk-th LF (a good record's only LF is its last byte),
 * or at the end. Only a guess of where its records end: the chunk is
 * framed up to it, and the walk checks that the next chunk starts where
 * the framing ended (walk_par). */
static size_t next_cut (const char *buf, size_t size, size_t from)
{
    size_t pos = from;
    for (size_t k = 0; k < jt_ledger_read_chunk && pos < size; k++) {
        const char *nl = memchr (buf + pos, '\n', size - pos);
        pos = nl ? (size_t) (nl - buf) + 1 : size;
    }
    return pos;
}

/* A chunk to frame from byte `from` up to its cut. */
static void chunk_prepare (struct chunk *c, const char *buf, size_t size, size_t from)
{
    c->buf = buf;
    c->size = size;
    c->start = c->end = from;
    c->limit = next_cut (buf, size, from);
    c->nok = 0; /* n stays: the slot's last records, for chunk_release */
    c->st = JT_RECORD_OK;
}

/* Frame c's records (on its helper) from its start until its cut, at most
 * jt_ledger_read_chunk of them, each seen with the rest of the segment:
 * its outcome is the sequential walk's. */
static void frame_chunk (struct chunk *c)
{
    size_t pos = c->start;
    c->n = 0;
    while (pos < c->limit && c->n < jt_ledger_read_chunk) {
        jt_record_status_t st =
            jt_record_parse_frame (c->buf + pos, c->size - pos, &c->recs[c->n]);
        if (st != JT_RECORD_OK) {
            c->st = st;
            break;
        }
        c->pos[c->n] = pos;
        pos += c->recs[c->n++].size;
    }
    c->end = pos;
}

/* How many records before its callback a record is handed to the pre's
 * ahead: the fold of one takes about a microsecond, a cache miss a tenth
 * of that, so a few are enough and the line is still cached when used. */
#define TAKE_AHEAD 8

/* Take a hashed chunk's records. 0 to go on (the whole chunk was good and
 * framing did not stop in it), 1 when a problem ended the walk, -1 when
 * the callback failed. What the hook made is released when the slot is
 * next hashed (hash_chunk: on a helper) or at the end of the walk. */
static int take_chunk (struct walk *w, const char *file, struct chunk *c, size_t size,
                       bool is_last, jt_error_t *err)
{
    int rc = 0;
    void (*ahead) (const jt_record_t *, void *) = c->hook ? c->hook->ahead : NULL;
    for (size_t i = 0; ahead && i < TAKE_AHEAD && i < c->nok; i++)
        if ((c->recs[i].pre = c->pre[i]))
            ahead (&c->recs[i], w->arg);
    for (size_t i = 0; i < c->nok && rc == 0; i++) {
        size_t j = i + TAKE_AHEAD;
        if (ahead && j < c->nok && (c->recs[j].pre = c->pre[j]))
            ahead (&c->recs[j], w->arg);
        rc = take_record (w, file, &c->recs[i], c->pos[i], c->pre[i], err);
    }
    if (rc != 0)
        return rc;
    if (c->nok < c->n) {
        bad_record (w->res, file, c->buf, size, c->pos[c->nok], JT_RECORD_BADHASH,
                    is_last);
        return 1;
    }
    if (c->st != JT_RECORD_OK) {
        bad_record (w->res, file, c->buf, size, c->end, c->st, is_last);
        return 1;
    }
    return 0;
}

static void chunks_free (struct chunk *ch, size_t n)
{
    for (size_t k = 0; ch && k < n; k++) {
        free (ch[k].recs);
        free (ch[k].pos);
        free (ch[k].pre);
    }
    free (ch);
}

/* At the end of a walk (its helpers stopped, each having drained its
 * dead list): release what is still waiting, the callback's thread's own,
 * and free the arrays. */
static void spares_free (struct pool *p, size_t threads)
{
    for (size_t t = 0; p->dead && t < threads; t++)
        for (struct spare *s = p->dead[t]; s; s = s->next)
            spare_release (p->hook, s);
    while (p->spares) {
        struct spare *s = p->spares;
        p->spares = s->every;
        free (s->pre);
        free (s);
    }
    free (p->dead);
}

/* The threads a walk uses: its pre's (0: 2), at most WALK_THREADS_MAX. */
static size_t walk_threads (const struct walk *w)
{
    size_t t = w->pre && w->pre->threads ? w->pre->threads : 2;
    return t > WALK_THREADS_MAX ? WALK_THREADS_MAX : t;
}

static int walk_par (struct walk *w, const char *file, const char *buf, size_t size,
                     size_t from, bool is_last, jt_error_t *err)
{
    /* two chunks in flight per thread: one running, one queued for
     * whichever thread is free first (the callback's too: hash_join) */
    size_t helpers = walk_threads (w) - 1, nslot = 2 * (helpers + 1) + 1;
    struct pool p = { .nslot = nslot };
    int rc = 0;

    p.ch = calloc (nslot, sizeof (*p.ch));
    p.th = calloc (helpers, sizeof (*p.th));
    bool ok = p.ch && p.th;
    for (size_t k = 0; ok && k < nslot; k++) {
        struct chunk *c = &p.ch[k];
        c->recs = malloc (jt_ledger_read_chunk * sizeof (*c->recs));
        c->pos = malloc (jt_ledger_read_chunk * sizeof (*c->pos));
        c->pre = calloc (jt_ledger_read_chunk, sizeof (*c->pre));
        c->hook = w->pre;
        ok = c->recs && c->pos && c->pre;
    }
    if (!ok) {
        chunks_free (p.ch, nslot);
        free (p.th);
        return walk_seq (w, file, buf, size, from, is_last, err);
    }
    p.hook = w->pre;
    if (w->pre) /* NULL when out of memory: events freed where they are */
        p.dead = calloc (helpers + 1, sizeof (*p.dead));
    pthread_mutex_init (&p.mu, NULL);
    pthread_cond_init (&p.queued, NULL);
    pthread_cond_init (&p.done, NULL);
    pool_start (&p, helpers);
    /* slots head .. head + inflight - 1 (mod nslot) are queued or done,
     * in order; the next chunk starts at byte next, the next record to take
     * at byte at */
    size_t head = 0, inflight = 0, next = from, at = from;
    bool fallback = false;
    while (next < size && inflight < nslot - 1) {
        struct chunk *c = &p.ch[(head + inflight++) % nslot];
        chunk_prepare (c, buf, size, next);
        next = c->limit;
        hash_start (&p, c);
    }
    while (inflight) {
        struct chunk *done = &p.ch[head];
        hash_join (&p, done);
        if (next < size) { /* the free slot: the one taken last */
            struct chunk *c = &p.ch[(head + inflight++) % nslot];
            chunk_prepare (c, buf, size, next);
            next = c->limit;
            hash_start (&p, c);
        }
        if (done->start != at) { /* the last chunk's framing did not end at
                                  * its cut: go on one record at a time */
            fallback = true;
            break;
        }
        rc = take_chunk (w, file, done, size, is_last, err);
        inflight--;
        head = (head + 1) % nslot;
        if (rc != 0)
            break;
        at = done->end;
    }
    if (p.nth) /* a problem ended it early */
        hash_cancel (&p);
    pool_stop (&p);
    for (size_t k = 0; k < nslot; k++)
        chunk_release (&p.ch[k]);
    spares_free (&p, helpers + 1);
    pthread_cond_destroy (&p.done);
    pthread_cond_destroy (&p.queued);
    pthread_mutex_destroy (&p.mu);
    chunks_free (p.ch, nslot);
    free (p.th);
    if (rc == 0 && (fallback || at < size))
        return walk_seq (w, file, buf, size, at, is_last, err);
    if (rc == 0)
        w->res->last_good_size = size;
    return rc;
}

/* Walk one mapped segment. 0 to go on, 1 when a problem ended the walk,
 * -1 when the callback failed. */
static int walk_buf (struct walk *w, const char *file, const char *buf, size_t size,
                     size_t from, bool is_last, jt_error_t *err)
{
    if (size - from >= jt_ledger_read_parallel_min && jt_ledger_read_chunk > 0
        && walk_threads (w) > 1)
        return walk_par (w, file, buf, size, from, is_last, err);
    return walk_seq (w, file, buf, size, from, is_last, err);
}

static int walk_file (struct walk *w, const char *path, bool is_last, jt_error_t *err)
{
    jt_ledger_result_t *res = w->res;
    const char *base = strrchr (path, '/');
    unsigned long long first;
    struct stat sb;
    size_t from = w->start_off;
    int fd, rc;

    w->start_off = 0; /* the first file only */
    base = base ? base + 1 : path;
    snprintf (res->last_file, sizeof (res->last_file), "%s", path);
    res->last_good_size = from;
    res->nsegments++;
    if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0 || fstat (fd, &sb) < 0) {
        problem (res, JT_LEDGER_IOERR, path, 0, "%s", strerror (errno));
        if (fd >= 0)
            close (fd);
        return 1;
    }
    if (from && (uint64_t) sb.st_size <= from) {
        close (fd);
        problem (res, JT_LEDGER_BADSEQ, path, from, "%s",
                 "the segment ends before the record to start from");
        return 1;
    }
    if (sb.st_size == 0) {
        close (fd);
        if (!is_last) {
            problem (res, JT_LEDGER_BADSEQ, path, 0, "%s",
                     "empty segment before the last");
            return 1;
        }
        /* an empty last segment (a crash right after a rotation) is named
         * for the seq its first record will have */
        if (jt_ledger_segment_name (base, &first) && first != res->last_seq + 1) {
            char detail[128];
            snprintf (detail, sizeof (detail),
                      "empty last segment named for seq %llu, the next record is seq "
                      "%" PRIu64 " (remove it)",
                      first, res->last_seq + 1);
            problem (res, JT_LEDGER_BADSEQ, path, 0, "%s", detail);
            return 1;
        }
        return 0;
    }
    if (!from && jt_ledger_segment_name (base, &first) && first != res->last_seq + 1) {
        char detail[64];
        snprintf (detail, sizeof (detail), "%llu", first);
        problem (res, JT_LEDGER_BADSEQ, path, 0, "segment named for seq %s", detail);
        close (fd);
        return 1;
    }
    const char *buf = mmap (NULL, (size_t) sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close (fd);
    if (buf == MAP_FAILED) {
        problem (res, JT_LEDGER_IOERR, path, 0, "mmap: %s", strerror (errno));
        return 1;
    }
    rc = walk_buf (w, path, buf, (size_t) sb.st_size, from, is_last, err);
    munmap ((void *) buf, (size_t) sb.st_size);
    return rc;
}

int jt_ledger_expand_paths (const char *const *paths, size_t npaths,
                            char ***files, size_t *nfiles, jt_error_t *err)
{
    char **v = NULL;
    size_t nv = 0;

    for (size_t i = 0; i < npaths; i++) {
        struct stat sb;
        char **seg = NULL;
        size_t nseg = 0;
        if (stat (paths[i], &sb) == 0 && S_ISDIR (sb.st_mode)) {
            if (jt_ledger_segments (paths[i], &seg, &nseg, err) < 0)
                goto error;
        } else if (!(seg = malloc (sizeof (*seg))) || !(seg[0] = strdup (paths[i]))) {
            free (seg);
            jt_errprintf (err, "out of memory");
            goto error;
        } else
            nseg = 1;
        char **nvv = realloc (v, (nv + nseg + 1) * sizeof (*v));
        if (!nvv) {
            jt_ledger_segments_free (seg, nseg);
            jt_errprintf (err, "out of memory");
            goto error;
        }
        v = nvv;
        if (nseg)       /* an empty directory gives no array */
            memcpy (v + nv, seg, nseg * sizeof (*seg));
        nv += nseg;
        free (seg);
    }
    *files = v;
    *nfiles = nv;
    return 0;
error:
    jt_ledger_segments_free (v, nv);
    return -1;
}

int jt_ledger_read (const char *const *paths, size_t npaths, const char *head,
                    jt_ledger_record_f cb, void *arg, jt_ledger_result_t *res,
                    jt_error_t *err)
{
    return jt_ledger_read_pre (paths, npaths, head, NULL, cb, arg, res, err);
}

int jt_ledger_read_pre (const char *const *paths, size_t npaths, const char *head,
                        const jt_ledger_pre_t *pre, jt_ledger_record_f cb, void *arg,
                        jt_ledger_result_t *res, jt_error_t *err)
{
    struct walk w = { .cb = cb, .arg = arg, .res = res, .pre = pre };
    char **files = NULL;
    size_t nfiles = 0;
    char head_hash[65];
    int rc = 0;

    memset (res, 0, sizeof (*res));
    memcpy (res->last_hash, JT_LEDGER_GENESIS, 65);
    if (head) {
        if (jt_ledger_head_parse (head, &w.head_seq, head_hash) < 0)
            return jt_errprintf (err,
                                 "head anchor must be SEQ:HASH (seq from 1, no leading "
                                 "zeros; 64 lowercase hex digits; nothing else), got "
                                 "'%.100s'",
                                 head);
        w.head_hash = head_hash;
    }
    if (jt_ledger_expand_paths (paths, npaths, &files, &nfiles, err) < 0)
        goto error;
    for (size_t i = 0; i < nfiles && rc == 0; i++)
        rc = walk_file (&w, files[i], i + 1 == nfiles, err);
    if (rc < 0)
        goto error;
    if (rc == 0) {
        if (w.head_hash && !w.head_seen) {
            res->status = JT_LEDGER_BADHEAD;
            res->bad_seq = res->last_seq + 1;
            snprintf (res->bad_file, sizeof (res->bad_file), "%s", res->last_file);
            res->bad_offset = res->last_good_size;
            snprintf (res->msg, sizeof (res->msg),
                      "ledger ends at seq %" PRIu64 " before the head anchor %" PRIu64,
                      res->last_seq, w.head_seq);
        } else
            res->status = res->nrecords ? JT_LEDGER_OK : JT_LEDGER_EMPTY;
    }
    jt_ledger_segments_free (files, nfiles);
    return 0;
error:
    jt_ledger_segments_free (files, nfiles);
    return -1;
}

int jt_ledger_read_from (const char *const *files, size_t nfiles, bool ends_ledger,
                         jt_ledger_record_f cb, void *arg, jt_ledger_result_t *res,
                         jt_error_t *err)
{
    return jt_ledger_read_at (files, nfiles, 0, 0, ends_ledger, cb, arg, res, err);
}

int jt_ledger_read_at (const char *const *files, size_t nfiles, uint64_t off, uint64_t seq,
                       bool ends_ledger, jt_ledger_record_f cb, void *arg,
                       jt_ledger_result_t *res, jt_error_t *err)
{
    struct walk w = { .cb = cb, .arg = arg, .res = res, .trust_first = true };
    const char *base;
    unsigned long long first;
    int rc = 0;

    memset (res, 0, sizeof (*res));
    memcpy (res->last_hash, JT_LEDGER_GENESIS, 65);
    if (!nfiles) {
        res->status = JT_LEDGER_EMPTY;
        return 0;
    }
    base = strrchr (files[0], '/');
    base = base ? base + 1 : files[0];
    if (!jt_ledger_segment_name (base, &first) || first < 1) {
        problem (res, JT_LEDGER_BADSEQ, files[0], 0, "%s",
                 "not a segment name (ledger-<first seq>.jtl)");
        return 0;
    }
    if (off && (seq <= first || off > SIZE_MAX)) {
        problem (res, JT_LEDGER_BADSEQ, files[0], off, "%s",
                 "a record inside a segment is after its first");
        return 0;
    }
    res->last_seq = off ? seq - 1 : first - 1;
    w.start_off = (size_t) off;
    for (size_t i = 0; i < nfiles && rc == 0; i++)
        rc = walk_file (&w, files[i], ends_ledger && i + 1 == nfiles, err);
    if (rc < 0)
        return -1;
    if (rc == 0)
        res->status = res->nrecords ? JT_LEDGER_OK : JT_LEDGER_EMPTY;
    return 0;
}
