/*
 * ids.c - jobtree-ledgerd's index of every event id in the ledger, on disk,
 * so that a resend is answered with its original seq however old it is
 * (the in-memory FIFO of --index-size answers recent ones without a read).
 *
 * DESIGN: an open-addressing hash table (linear probing, load <= 1/2) of
 * 16-byte slots {h, pos} in DIR/ledgerd.ids, mapped shared: the kernel's
 * page cache holds it, not the daemon's heap, so the daemon's memory does
 * not grow with the ledger. h is a 64-bit hash of the id (jt_str_hash64,
 * never 0: 0 marks an empty slot); pos is where the record is: segment
 * ordinal << 40 | byte offset. A slot whose h matches is confirmed by reading the record there
 * and comparing its id, so a hash collision costs one read, never a wrong
 * answer. The file is derived data. A start without a stamp builds it
 * (doubled into a new file when needed); once serving (ledgerd_ids_serve,
 * and from the stamped record on after a start that found a stamp) the
 * ids go into chunks in memory, tables of the same kind, and a look-up
 * reads the chunks, then the file's table. Each id lands at a
 * random place: put into the mapped file, every insert dirtied a page of
 * it, faulted into ext4 on the serving thread, and at 34,600 inserts a
 * second the whole table was dirty again within a second, which the
 * kernel wrote back at once every 30 s, in front of the ledger's syncs
 * (bench_ledger, 40 s runs: syncs of 77 and 113 ms). Now only a stamp
 * writes a table, on a thread of its own: after a checkpoint when one is
 * due (server.c's stamp_due) and at a clean stop, it copies the table and
 * the chunks into ledgerd.ids.new (doubled while the load would pass
 * 3/8), writes it back a slice at a time, syncs it (msync), gives it the
 * table's name (take_name) and stamps it (ledgerd.ids.stamp: the last
 * record it holds by seq, hash and position, its slots, its segments,
 * where the BudgetLoaded kept is). A named table is never changed: a
 * start maps a stamped table that fits read only, as it is, and indexes
 * only the records after the stamp (issue 37), else it removes the stamp
 * and rebuilds the table from the whole ledger. Entries after the stamp that survived a crash are
 * harmless: a record is confirmed by reading it, and its id indexed twice
 * answers alike.
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
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobtree/map.h"

#include "ledgerd.h"

#define IDS_MIN_SLOTS 64u
/* A stamp writes the table back this much at a time (ledgerd_ids_writeback) */
#define IDS_WRITEBACK_SLICE (256u << 10)

/* The table's mapping changes in grow() (a start's indexing) and in
 * ledgerd_ids_stamp_done, on the serving thread; the settle thread's
 * writeback holds this while it takes a descriptor of it. */
static pthread_mutex_t map_mu = PTHREAD_MUTEX_INITIALIZER;
#define POS_OFFSET_BITS 40
#define POS_OFFSET_MAX ((UINT64_C (1) << POS_OFFSET_BITS) - 1)
#define POS_SEGS_MAX (UINT64_C (1) << (64 - POS_OFFSET_BITS))

char *ledgerd_id_key (const char *p, size_t len)
{
    static const char pat[] = "\"id\":\"";
    const char *s = memmem (p, len, pat, sizeof (pat) - 1);
    if (!s)
        return NULL;
    s += sizeof (pat) - 1;
    const char *e = s, *end = p + len;
    while (e < end && *e != '"')
        e += (*e == '\\' && e + 1 < end) ? 2 : 1;
    return strndup (s, (size_t) (e - s));
}

/* A new table file of n slots at path, mapped. */
static int map_new (const char *path, size_t n, int *fd, uint64_t **slot, char *err,
                    size_t len)
{
    size_t bytes = n * 2 * sizeof (uint64_t);
    *fd = open (path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (*fd < 0 || ftruncate (*fd, (off_t) bytes) < 0) {
        snprintf (err, len, "%s: %s", path, strerror (errno));
        if (*fd >= 0)
            close (*fd);
        *fd = -1;
        return -1;
    }
    *slot = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (*slot == MAP_FAILED) {
        snprintf (err, len, "%s: mmap: %s", path, strerror (errno));
        close (*fd);
        *fd = -1;
        *slot = NULL;
        return -1;
    }
    return 0;
}

/* A slot's pos is stored before its h (release), and a look-up reads h
 * with acquire: a slot is seen whole or empty, should a table ever be
 * read while written (none is: serving reads the chunks it alone writes,
 * and tables are written before they are named).
 * An entry already there ({h, pos} both) is not put twice: false. Twice
 * happened when a start indexed again the records after the stamp that
 * the table already held; the copies filled slots the count did not know
 * of, until the table's load passed 1/2 and the next start refused its
 * stamp ("holds N ids in M slots: not an index") and indexed the whole
 * ledger. */
static bool put (uint64_t *slot, size_t n, uint64_t h, uint64_t pos)
{
    size_t i = (size_t) h & (n - 1);
    uint64_t s;
    while ((s = slot[2 * i])) {
        if (s == h && slot[2 * i + 1] == pos)
            return false;
        i = (i + 1) & (n - 1);
    }
    __atomic_store_n (&slot[2 * i + 1], pos, __ATOMIC_RELAXED);
    __atomic_store_n (&slot[2 * i], h, __ATOMIC_RELEASE);
    return true;
}

int ledgerd_ids_open (struct ledgerd_ids *x, const char *dir, char *err, size_t len)
{
    memset (x, 0, sizeof (*x));
    x->fd = -1;
    snprintf (x->path, sizeof (x->path), "%s/ledgerd.ids", dir);
    snprintf (x->tmp, sizeof (x->tmp), "%s/ledgerd.ids.new", dir);
    x->nslots = IDS_MIN_SLOTS;
    /* the stamp first: it must never describe a table being rebuilt */
    char spath[JT_LEDGER_PATH_MAX + 32];
    snprintf (spath, sizeof (spath), "%s/ledgerd.ids.stamp", dir);
    if (unlink (spath) < 0 && errno != ENOENT) {
        snprintf (err, len, "%s: %s", spath, strerror (errno));
        return -1;
    }
    /* a new file, never the old one emptied: a previous daemon that may
     * still run (stalled, then fenced at its next commit) keeps its own */
    if (unlink (x->path) < 0 && errno != ENOENT) {
        snprintf (err, len, "%s: %s", x->path, strerror (errno));
        return -1;
    }
    return map_new (x->path, x->nslots, &x->fd, &x->slot, err, len);
}

static void drop_prev (struct ledgerd_ids *x);

/* ---- the chunks: ids added while serving, in memory ---- */

/* The first chunk's slots, doubled for each next one up to the last:
 * 1 MiB to 8 MiB, the one being filled touched a page at a time. A look-up
 * probes every chunk: at 34,600 ids a second a minute's chunks are 8 to 10
 * (server.c's stamps come at most once a minute). */
#define IDS_CHUNK_FIRST ((size_t) 1 << 16)
#define IDS_CHUNK_MAX ((size_t) 1 << 19)
/* ids in memory past which a stamp is due whatever its age: 128 MiB */
#define IDS_MEM_PRESSING ((size_t) 1 << 22)

static struct ids_chunk *chunk_new (size_t nslots)
{
    struct ids_chunk *c = calloc (1, sizeof (*c));
    if (c && !(c->slot = calloc (nslots, 2 * sizeof (uint64_t)))) {
        free (c);
        return NULL;
    }
    if (c)
        c->nslots = nslots;
    return c;
}

static void chunks_free (struct ids_chunk *c)
{
    while (c) {
        struct ids_chunk *next = c->next;
        free (c->slot);
        free (c);
        c = next;
    }
}

int ledgerd_ids_serve (struct ledgerd_ids *x, size_t chunk)
{
    if (x->serving)
        return 0;
    if (chunk < 4 || chunk > IDS_CHUNK_MAX || (chunk & (chunk - 1)))
        chunk = 0;
    x->chunk_max = chunk ? chunk : IDS_CHUNK_MAX;
    if (!(x->chunks = chunk_new (chunk ? chunk : IDS_CHUNK_FIRST)))
        return -1;
    x->serving = true;
    return 0;
}

bool ledgerd_ids_pressing (const struct ledgerd_ids *x)
{
    return x->nmem >= IDS_MEM_PRESSING;
}

size_t ledgerd_ids_count (const struct ledgerd_ids *x)
{
    return x->tcount + x->nmem;
}

void ledgerd_ids_close (struct ledgerd_ids *x)
{
    drop_prev (x);
    chunks_free (x->chunks);
    chunks_free (x->done);
    if (x->slot)
        munmap (x->slot, x->nslots * 2 * sizeof (uint64_t));
    if (x->fd >= 0)
        close (x->fd);
    for (size_t i = 0; i < x->nsegs; i++)
        free (x->segs[i]);
    free (x->segs);
    memset (x, 0, sizeof (*x));
    x->fd = -1;
}

/* The table the last merge replaced, and the chunks it merged: unmapped,
 * closed and freed off the serving thread (the last close of a file
 * unlinked frees its blocks: milliseconds for a large one). */
static void drop_prev (struct ledgerd_ids *x)
{
    chunks_free (x->done);
    x->done = NULL;
    if (!x->g_prev)
        return;
    munmap (x->g_prev, x->g_prevn * 2 * sizeof (uint64_t));
    close (x->g_prevfd);
    x->g_prev = NULL;
}

/* The table made at x->tmp takes x->path's name. The old name is
 * unlinked first, not renamed over: ext4 (auto_da_alloc, its default)
 * starts the writeback of every dirty page of a file renamed over another,
 * to spare the replace-by-rename idiom a zero-length file after a crash.
 * For a freshly filled table that is its whole size at once (32 MiB for
 * 2^21 slots), queued on the disk ahead of the ledger's fdatasync: in
 * bench_ledger's paced run, right after a start copied the stamped table,
 * the daemon's own writes of it (4 KiB growing to 4 MiB requests, then
 * the flusher's) stood before two group commits that took 9.7 and 18.6
 * ms, where the run's p99 was 0.6 ms (perf's block:block_rq_issue). The
 * table is derived data: after a crash between the two calls the next
 * start finds no table for its stamp and indexes the ledger again. */
static int take_name (struct ledgerd_ids *x, char *err, size_t len)
{
    if ((unlink (x->path) < 0 && errno != ENOENT) || rename (x->tmp, x->path) < 0) {
        snprintf (err, len, "%s: %s", x->path, strerror (errno));
        return -1;
    }
    return 0;
}

/* A new table of n slots at x->tmp holding the n0 slots of old: 0 with
 * *fd, *slot and *count (the ids it holds), or -1 with err. */
static int table_copy (struct ledgerd_ids *x, const uint64_t *old, size_t n0, size_t n,
                       int *fd, uint64_t **slot, size_t *count, char *err, size_t len)
{
    if (map_new (x->tmp, n, fd, slot, err, len) < 0)
        return -1;
    *count = 0;
    for (size_t i = 0; i < n0; i++)
        if (old[2 * i] && put (*slot, n, old[2 * i], old[2 * i + 1]))
            (*count)++;
    return 0;
}

/* Double the table here and now (a start's indexing: not serving yet). */
static int grow (struct ledgerd_ids *x, char *err, size_t len)
{
    int fd;
    uint64_t *slot;
    size_t n = x->nslots * 2, count;

    if (table_copy (x, x->slot, x->nslots, n, &fd, &slot, &count, err, len) < 0)
        return -1;
    if (take_name (x, err, len) < 0) {
        munmap (slot, n * 2 * sizeof (uint64_t));
        close (fd);
        unlink (x->tmp);
        return -1;
    }
    pthread_mutex_lock (&map_mu);
    munmap (x->slot, x->nslots * 2 * sizeof (uint64_t));
    close (x->fd);
    x->slot = slot;
    x->fd = fd;
    x->nslots = n;
    x->tcount = count;
    pthread_mutex_unlock (&map_mu);
    return 0;
}

int ledgerd_ids_segment (struct ledgerd_ids *x, const char *path, char *err, size_t len)
{
    if (x->nsegs && !strcmp (x->segs[x->nsegs - 1], path))
        return 0;
    if (x->nsegs >= POS_SEGS_MAX) {
        snprintf (err, len, "id index: more than %" PRIu64 " segments", POS_SEGS_MAX);
        return -1;
    }
    if (x->nsegs == x->segcap) {
        size_t nc = x->segcap ? 2 * x->segcap : 16;
        char **v = realloc (x->segs, nc * sizeof (*v));
        if (!v)
            goto nomem;
        x->segs = v;
        x->segcap = nc;
    }
    if (!(x->segs[x->nsegs] = strdup (path)))
        goto nomem;
    x->nsegs++;
    return 0;
nomem:
    snprintf (err, len, "id index: out of memory");
    return -1;
}

int ledgerd_ids_add (struct ledgerd_ids *x, const char *key, uint64_t offset, char *err,
                     size_t len)
{
    if (!x->nsegs || offset > POS_OFFSET_MAX) {
        snprintf (err, len, "id index: offset %" PRIu64 " too large, or no segment",
                  offset);
        return -1;
    }
    uint64_t h = jt_str_hash64 (key);
    uint64_t pos = (uint64_t) (x->nsegs - 1) << POS_OFFSET_BITS | offset;
    if (!x->serving) { /* a start's indexing: into the table */
        if (2 * (x->tcount + 1) > x->nslots && grow (x, err, len) < 0)
            return -1;
        if (put (x->slot, x->nslots, h, pos)) /* else there already */
            x->tcount++;
        return 0;
    }
    struct ids_chunk *c = x->chunks;
    if (2 * (c->count + 1) > c->nslots) { /* full: a new one, never a copy */
        struct ids_chunk *nc =
            chunk_new (c->nslots < x->chunk_max ? 2 * c->nslots : c->nslots);
        if (!nc) {
            snprintf (err, len, "id index: out of memory");
            return -1;
        }
        nc->next = c;
        x->chunks = c = nc;
    }
    if (put (c->slot, c->nslots, h, pos)) {
        c->count++;
        x->nmem++;
    }
    return 0;
}

/* Read the record at pos into *buf (malloc'd, freed by the caller even
 * on failure) and parse it into *rec: 1 when a good record is there, 0
 * when not, -1 on a read error (err). */
static int read_record (const struct ledgerd_ids *x, uint64_t pos, jt_record_t *rec,
                        char **buf, char *err, size_t len)
{
    uint64_t ord = pos >> POS_OFFSET_BITS, off = pos & POS_OFFSET_MAX;
    size_t cap = 4096;
    int fd, rc = -1;

    *buf = NULL;
    if (ord >= x->nsegs)
        return 0;
    if ((fd = open (x->segs[ord], O_RDONLY | O_CLOEXEC)) < 0) {
        snprintf (err, len, "%s: %s", x->segs[ord], strerror (errno));
        return -1;
    }
    for (;;) {
        char *nb = realloc (*buf, cap);
        if (!nb) {
            snprintf (err, len, "id index: out of memory");
            break;
        }
        *buf = nb;
        ssize_t n = pread (fd, *buf, cap, (off_t) off);
        if (n < 0) {
            snprintf (err, len, "%s: %s", x->segs[ord], strerror (errno));
            break;
        }
        jt_record_status_t st = jt_record_parse (*buf, (size_t) n, rec);
        if (st == JT_RECORD_INCOMPLETE && (size_t) n == cap && cap == 4096) {
            cap = JT_LEDGER_MAX_PAYLOAD + 4096;
            continue;
        }
        rc = st == JT_RECORD_OK;
        break;
    }
    close (fd);
    return rc;
}

/* Read the record at pos; 1 when it is there and its id is key (*seq), 0
 * when not, -1 on a read error (err). */
static int confirm (const struct ledgerd_ids *x, uint64_t pos, const char *key,
                    uint64_t *seq, char *err, size_t len)
{
    jt_record_t rec;
    char *buf;
    int rc = read_record (x, pos, &rec, &buf, err, len);

    if (rc == 1) {
        char *k = ledgerd_id_key (rec.payload, rec.len);
        rc = k && !strcmp (k, key);
        if (rc)
            *seq = rec.seq;
        free (k);
    }
    free (buf);
    return rc;
}

uint64_t ledgerd_ids_offset (uint64_t pos)
{
    return pos & POS_OFFSET_MAX;
}

uint64_t ledgerd_ids_pos (const struct ledgerd_ids *x, uint64_t offset)
{
    return (uint64_t) (x->nsegs ? x->nsegs - 1 : 0) << POS_OFFSET_BITS | offset;
}

char *ledgerd_ids_payload (const struct ledgerd_ids *x, uint64_t pos, size_t *plen,
                           char *err, size_t len)
{
    jt_record_t rec;
    char *buf, *p = NULL;
    int rc = read_record (x, pos, &rec, &buf, err, len);

    if (rc == 0)
        snprintf (err, len, "no record at segment %" PRIu64 " offset %" PRIu64,
                  pos >> POS_OFFSET_BITS, pos & POS_OFFSET_MAX);
    else if (rc == 1 && !(p = strndup (rec.payload, rec.len)))
        snprintf (err, len, "out of memory");
    if (p)
        *plen = rec.len;
    free (buf);
    return p;
}

/* ---- the stamp: the index kept across restarts ---- */

#define STAMP_MAGIC "jobtree-ledgerd ids 1"

static const char *base_of (const char *path)
{
    const char *b = strrchr (path, '/');
    return b ? b + 1 : path;
}

int ledgerd_ids_stamp_prepare (struct ledgerd_ids *x, const char *dir,
                               const struct ledgerd_stamp *st,
                               struct ledgerd_stamp_job *job)
{
    size_t n = 0;
    memset (job, 0, sizeof (*job));
    job->x = x;
    job->st = *st;
    job->m_fd = -1;
    snprintf (job->dir, sizeof (job->dir), "%s", dir);
    for (size_t i = 0; i < x->nsegs; i++)
        n += strlen (base_of (x->segs[i])) + 1;
    if (!(job->segs = malloc (n + 1)))
        return -1;
    job->segs[0] = '\0';
    for (size_t i = 0, off = 0; i < x->nsegs; i++)
        off += (size_t) sprintf (job->segs + off, "%s\n", base_of (x->segs[i]));
    job->nsegs = x->nsegs;
    job->count = ledgerd_ids_count (x);
    if (x->serving && x->nmem) { /* the chunks so far to the job, a new one here */
        struct ids_chunk *nc = chunk_new (x->chunks->nslots);
        if (!nc) {
            free (job->segs);
            job->segs = NULL;
            return -1;
        }
        nc->next = x->chunks;
        x->chunks = nc;
        job->from = nc->next;
        job->mem = x->nmem;
    }
    return 0;
}

void ledgerd_ids_stamp_done (struct ledgerd_stamp_job *job)
{
    struct ledgerd_ids *x = job->x;
    if (job->m_slot && job->merged) { /* the new table, named */
        pthread_mutex_lock (&map_mu);
        x->g_prev = x->slot; /* the next stamp's thread drops it */
        x->g_prevn = x->nslots;
        x->g_prevfd = x->fd;
        x->slot = job->m_slot;
        x->fd = job->m_fd;
        x->nslots = job->m_n;
        pthread_mutex_unlock (&map_mu);
    } else if (job->m_slot) {
        munmap (job->m_slot, job->m_n * 2 * sizeof (uint64_t));
        close (job->m_fd);
    }
    job->m_slot = NULL;
    job->m_fd = -1;
    if (job->merged) {
        x->tcount = job->m_tcount;
        if (job->from) { /* the merged chunks leave the list */
            struct ids_chunk *p = x->chunks;
            while (p->next != job->from)
                p = p->next;
            p->next = NULL;
            struct ids_chunk **tail = &x->done;
            while (*tail)
                tail = &(*tail)->next;
            *tail = job->from;
            x->nmem -= job->mem;
        }
    }
    /* else: the chunks stay, and the next stamp merges them */
    free (job->segs);
    job->segs = NULL;
}

int ledgerd_ids_stamp (struct ledgerd_ids *x, const char *dir,
                       const struct ledgerd_stamp *st, char *err, size_t len)
{
    struct ledgerd_stamp_job job;
    if (ledgerd_ids_stamp_prepare (x, dir, st, &job) < 0) {
        snprintf (err, len, "out of memory");
        return -1;
    }
    int rc = ledgerd_ids_stamp_write (&job);
    if (rc < 0)
        snprintf (err, len, "%s", job.err);
    ledgerd_ids_stamp_done (&job);
    return rc;
}

/* Write a table's dirty pages back a slice at a time, each waited for,
 * before the msync that makes it durable. After 50,000 inserts at random
 * places every page of the table is dirty, and one msync of it queued
 * them all on the disk at once: the ledger's fdatasync on the commit
 * thread waited behind megabytes of them (strace of the append bench:
 * msync 20.5 ms, the group's fdatasync beside it 14 ms, the acks of the
 * windows in flight 20 to 36 ms). Slice by slice, a group's sync waits
 * for one slice at most. Best effort: the msync after it is what the
 * stamp relies on. */
static void writeback_fd (int fd, off_t bytes)
{
#ifdef HAVE_SYNC_FILE_RANGE
    for (off_t off = 0; off < bytes; off += IDS_WRITEBACK_SLICE)
        if (sync_file_range (fd, off, IDS_WRITEBACK_SLICE,
                             SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE
                                 | SYNC_FILE_RANGE_WAIT_AFTER)
            < 0)
            break;
#else
    (void) fd;
    (void) bytes;
#endif
}

/* The table's, on a dup of its descriptor: a merge taken meanwhile may
 * close the daemon's (the old table is then written back for nothing).
 * Run once after a start that built the table from the whole ledger
 * (server.c's settle_thread): every page of it is dirty. */
void ledgerd_ids_writeback (struct ledgerd_ids *x)
{
    pthread_mutex_lock (&map_mu);
    int fd = dup (x->fd);
    off_t bytes = (off_t) (x->nslots * 2 * sizeof (uint64_t));
    pthread_mutex_unlock (&map_mu);
    if (fd < 0)
        return;
    writeback_fd (fd, bytes);
    close (fd);
}

/* The table and the job's chunks into a new one at x->tmp (doubled until
 * its load is at most 3/8), written back, synced and named: a table file is
 * never changed once it has the name (ledgerd_ids_restore maps it read
 * only). The serving thread reads the old table and the chunks meanwhile
 * and changes neither. 0, or -1 with job->err. */
static int merge (struct ledgerd_stamp_job *job)
{
    struct ledgerd_ids *x = job->x;
    size_t n = x->nslots, tc, want = x->tcount + job->mem;

    while (8 * want > 3 * n)
        n *= 2;
    if (table_copy (x, x->slot, x->nslots, n, &job->m_fd, &job->m_slot, &tc, job->err,
                    sizeof (job->err))
        < 0)
        return -1;
    job->m_n = n;
    for (const struct ids_chunk *c = job->from; c; c = c->next)
        for (size_t i = 0; i < c->nslots; i++)
            if (c->slot[2 * i] && put (job->m_slot, n, c->slot[2 * i], c->slot[2 * i + 1]))
                tc++;
    job->m_tcount = tc;
    writeback_fd (job->m_fd, (off_t) (n * 2 * sizeof (uint64_t)));
    if (msync (job->m_slot, n * 2 * sizeof (uint64_t), MS_SYNC) < 0) {
        snprintf (job->err, sizeof (job->err), "%s: msync: %s", x->tmp, strerror (errno));
        return -1;
    }
    if (take_name (x, job->err, sizeof (job->err)) < 0)
        return -1;
    job->merged = true;
    job->nslots = n;
    return 0;
}

int ledgerd_ids_stamp_write (struct ledgerd_stamp_job *job)
{
    char path[JT_LEDGER_PATH_MAX + 32], tmp[JT_LEDGER_PATH_MAX + 40];
    char *err = job->err;
    size_t len = sizeof (job->err);
    FILE *f;

    drop_prev (job->x);
    if (merge (job) < 0)
        return -1;
    snprintf (path, sizeof (path), "%s/ledgerd.ids.stamp", job->dir);
    snprintf (tmp, sizeof (tmp), "%s/ledgerd.ids.stamp.new", job->dir);
    if (!(f = fopen (tmp, "w"))) {
        snprintf (err, len, "%s: %s", tmp, strerror (errno));
        return -1;
    }
    fprintf (f, STAMP_MAGIC "\nseq %" PRIu64 " %s %" PRIu64 "\nslots %zu\nload %" PRIu64
             "\nsegments %zu\n%send\n", job->st.seq, job->st.hash, job->st.pos, job->nslots,
             job->st.load_pos, job->nsegs, job->segs);
    if (fflush (f) != 0 || fsync (fileno (f)) < 0) {
        snprintf (err, len, "%s: %s", tmp, strerror (errno));
        fclose (f);
        unlink (tmp);
        return -1;
    }
    if (fclose (f) != 0 || rename (tmp, path) < 0) {
        snprintf (err, len, "%s: %s", path, strerror (errno));
        unlink (tmp);
        return -1;
    }
    return 0;
}

/* Parse the stamp at path: 1 with *st, nslots and the segments' count
 * (their names checked against segs), 0 with why. */
static int stamp_read (const char *path, char *const *segs, size_t nsegs,
                       struct ledgerd_stamp *st, size_t *nslots, size_t *nstamped,
                       char *why, size_t whylen)
{
    FILE *f = fopen (path, "r");
    char line[JT_LEDGER_PATH_MAX + 64];
    unsigned long long seq, pos, slots, load, n;
    int rc = 0;

    if (!f) {
        snprintf (why, whylen, "no stamp (%s)", strerror (errno));
        return 0;
    }
    if (!fgets (line, sizeof (line), f) || strcmp (line, STAMP_MAGIC "\n")
        || !fgets (line, sizeof (line), f)
        || sscanf (line, "seq %llu %64s %llu", &seq, st->hash, &pos) != 3
        || strlen (st->hash) != 64
        || !fgets (line, sizeof (line), f) || sscanf (line, "slots %llu", &slots) != 1
        || !fgets (line, sizeof (line), f) || sscanf (line, "load %llu", &load) != 1
        || !fgets (line, sizeof (line), f) || sscanf (line, "segments %llu", &n) != 1) {
        snprintf (why, whylen, "the stamp is not one");
        goto out;
    }
    if (seq < 1 || slots < IDS_MIN_SLOTS || slots > (UINT64_C (1) << 36)
        || (slots & (slots - 1)) || n < 1 || n > nsegs) {
        snprintf (why, whylen, "the stamp's numbers are out of range or do not fit the "
                  "%zu segments", nsegs);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (!fgets (line, sizeof (line), f)) {
            snprintf (why, whylen, "the stamp ends early");
            goto out;
        }
        line[strcspn (line, "\n")] = '\0';
        if (strcmp (line, base_of (segs[i]))) {
            snprintf (why, whylen, "segment %zu is %s, the stamp says %.100s", i,
                      base_of (segs[i]), line);
            goto out;
        }
    }
    if (!fgets (line, sizeof (line), f) || strcmp (line, "end\n")) {
        snprintf (why, whylen, "the stamp is not whole");
        goto out;
    }
    st->seq = seq;
    st->pos = pos;
    st->load_pos = load;
    *nslots = (size_t) slots;
    *nstamped = (size_t) n;
    rc = 1;
out:
    fclose (f);
    return rc;
}

int ledgerd_ids_restore (struct ledgerd_ids *x, const char *dir, char *const *segs,
                         size_t nsegs, struct ledgerd_stamp *st, char *why, size_t whylen,
                         char *err, size_t len)
{
    char spath[JT_LEDGER_PATH_MAX + 32];
    size_t nslots = 0, nstamped = 0;
    struct stat sb;
    int fd;

    memset (x, 0, sizeof (*x));
    x->fd = -1;
    snprintf (x->path, sizeof (x->path), "%s/ledgerd.ids", dir);
    snprintf (x->tmp, sizeof (x->tmp), "%s/ledgerd.ids.new", dir);
    snprintf (spath, sizeof (spath), "%s/ledgerd.ids.stamp", dir);
    if (!stamp_read (spath, segs, nsegs, st, &nslots, &nstamped, why, whylen))
        return 0;
    if ((fd = open (x->path, O_RDONLY | O_CLOEXEC)) < 0 || fstat (fd, &sb) < 0
        || (uint64_t) sb.st_size != (uint64_t) nslots * 2 * sizeof (uint64_t)) {
        snprintf (why, whylen, "%s is not the stamp's %zu slots", x->path, nslots);
        if (fd >= 0)
            close (fd);
        return 0;
    }
    /* mapped as it is, read only: serving never writes a table, and a stamp
     * merges into a new file; a previous daemon that may still run (stalled,
     * then fenced at its next commit) reads the same pages, which no one
     * changes. Nothing to write back either (a copy was: 16 MiB of dirty
     * pages after a start in bench_ledger's paced run, whose writeback put
     * its p99 at 10 to 21 ms against 3.4 to 5.1 ms without). */
    x->slot = mmap (NULL, nslots * 2 * sizeof (uint64_t), PROT_READ, MAP_SHARED, fd, 0);
    if (x->slot == MAP_FAILED) {
        snprintf (err, len, "%s: mmap: %s", x->path, strerror (errno));
        x->slot = NULL;
        close (fd);
        goto fail;
    }
    x->fd = fd;
    x->nslots = nslots;
    for (size_t i = 0; i < nslots; i++)
        x->tcount += x->slot[2 * i] != 0;
    if (2 * x->tcount > nslots) {
        snprintf (why, whylen, "%s holds %zu ids in %zu slots: not an index", x->path,
                  x->tcount, nslots);
        ledgerd_ids_close (x);
        return 0;
    }
    for (size_t i = 0; i < nstamped; i++)
        if (ledgerd_ids_segment (x, segs[i], err, len) < 0)
            goto fail;
    /* the record the stamp names: there, of its seq, with its hash */
    jt_record_t rec;
    char *buf;
    int rr = read_record (x, st->pos, &rec, &buf, err, len);
    if (rr < 0) {
        free (buf);
        goto fail;
    }
    if (rr == 0 || rec.seq != st->seq || strcmp (rec.hash, st->hash)) {
        snprintf (why, whylen, "the stamp's record %" PRIu64 " is not in the ledger as "
                  "stamped", st->seq);
        free (buf);
        ledgerd_ids_close (x);
        return 0;
    }
    free (buf);
    return 1;
fail:
    ledgerd_ids_close (x);
    return -1;
}

/* Look key (hash h) up in a table of n slots: 1 with *seq, 0 when not
 * there, -1 with err. */
static int probe (const struct ledgerd_ids *x, const uint64_t *slot, size_t n,
                  const char *key, uint64_t h, uint64_t *seq, char *err, size_t len)
{
    uint64_t s;
    for (size_t i = (size_t) h & (n - 1); (s = __atomic_load_n (&slot[2 * i], __ATOMIC_ACQUIRE));
         i = (i + 1) & (n - 1)) {
        if (s != h)
            continue;
        int rc = confirm (x, __atomic_load_n (&slot[2 * i + 1], __ATOMIC_RELAXED), key, seq,
                          err, len);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int ledgerd_ids_find (const struct ledgerd_ids *x, const char *key, uint64_t *seq,
                      char *err, size_t len)
{
    uint64_t h = jt_str_hash64 (key);
    for (const struct ids_chunk *c = x->chunks; c; c = c->next) {
        int rc = probe (x, c->slot, c->nslots, key, h, seq, err, len);
        if (rc != 0)
            return rc;
    }
    return probe (x, x->slot, x->nslots, key, h, seq, err, len);
}
