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
 * answer. The file is derived data, grown by doubling into ledgerd.ids.new
 * (made on a thread of its own ahead of need: grow_thread), given its name
 * (take_name: not renamed over it, which on ext4 writes the new table back
 * at once, in front of the ledger's syncs). After a checkpoint when one is
 * due (server.c's stamp_due) and at a clean stop the daemon syncs it (msync)
 * and stamps it (ledgerd.ids.stamp: the last record it holds by seq, hash
 * and position, its slots, its segments, where the BudgetLoaded kept is); a
 * start copies a stamped table that fits into a new file and indexes only
 * the records after the stamp (issue 37), else it removes the stamp and
 * rebuilds the table from the whole ledger. Entries after the stamp that
 * survived a crash are harmless: a record is confirmed by reading it, and
 * its id indexed twice answers alike.
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

/* The table's mapping changes only in grow(), on the serving thread; a
 * stamp's msync, maybe on another thread, holds this around it. */
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

/* A slot's pos is stored before its h (release): the thread building
 * the doubled table, reading h (acquire), sees a slot whole or empty.
 * An entry already there ({h, pos} both) is not put twice: false. Twice
 * happened when a doubling's late adds were put into a copy that already
 * had them, and when a start indexed again the records after the stamp
 * that the table already held; the copies filled slots the count did not
 * know of, until the table's load passed 1/2 and the next start refused
 * its stamp ("holds N ids in M slots: not an index") and indexed the whole
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

static void grow_abandon (struct ledgerd_ids *x);
static void drop_prev (struct ledgerd_ids *x);

void ledgerd_ids_close (struct ledgerd_ids *x)
{
    grow_abandon (x);
    drop_prev (x);
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

/* DESIGN: the table is doubled (into the .new file, then given the old one's
 * name: take_name) ahead of need, on a thread of its own: from a load of 3/8
 * the thread maps the doubled table and copies the slots it sees, while the
 * serving thread goes on adding to the old one and notes each add (late);
 * the add that finds the copy done puts the late ones in, renames and swaps.
 * A copy taking longer than the old table's room (load 1/2) is waited for.
 * Copying 2^20 slots costs tens of milliseconds (the new pages' faults):
 * never on the serving thread, which acknowledges. */
/* The table the last doubling replaced: unmapped and closed here, off the
 * serving thread (the last close of a file unlinked frees its blocks:
 * milliseconds for a large one). */
static void drop_prev (struct ledgerd_ids *x)
{
    if (!x->g_prev)
        return;
    munmap (x->g_prev, x->g_prevn * 2 * sizeof (uint64_t));
    close (x->g_prevfd);
    x->g_prev = NULL;
}

static void *grow_thread (void *arg)
{
    struct ledgerd_ids *x = arg;
    const uint64_t *old = x->g_old;
    size_t on = x->g_oldn, n = x->g_n;

    drop_prev (x);
    x->g_rc = map_new (x->tmp, n, &x->g_fd, &x->g_slot, x->g_err, sizeof (x->g_err));
    for (size_t i = 0; x->g_rc == 0 && i < on; i++) {
        uint64_t h = __atomic_load_n (&old[2 * i], __ATOMIC_ACQUIRE);
        if (h)
            (void) put (x->g_slot, n, h, __atomic_load_n (&old[2 * i + 1], __ATOMIC_RELAXED));
    }
    __atomic_store_n (&x->g_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void grow_start (struct ledgerd_ids *x)
{
    x->g_old = x->slot;
    x->g_oldn = x->nslots;
    x->g_n = x->nslots * 2;
    x->g_done = 0;
    x->g_fd = -1;
    x->g_slot = NULL;
    x->nlate = 0;
    x->growing = ledgerd_thread_start (&x->grower, grow_thread, x);
}

/* Free the copy made (the thread joined or never run). */
static void grow_drop (struct ledgerd_ids *x)
{
    if (x->g_slot)
        munmap (x->g_slot, x->g_n * 2 * sizeof (uint64_t));
    if (x->g_fd >= 0)
        close (x->g_fd);
    x->g_slot = NULL;
    x->g_fd = -1;
    free (x->late);
    x->late = NULL;
    x->nlate = x->latecap = 0;
}

/* A copy being made is dropped (closing). */
static void grow_abandon (struct ledgerd_ids *x)
{
    if (!x->growing)
        return;
    pthread_join (x->grower, NULL);
    x->growing = false;
    grow_drop (x);
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

/* Take the doubled table made (the thread joined): the late adds put in,
 * given the old one's name, swapped in. 0, or -1 with err. */
static int grow_take (struct ledgerd_ids *x, char *err, size_t len)
{
    if (x->g_rc < 0 || x->nlate == SIZE_MAX) {
        snprintf (err, len, "%s", x->g_rc < 0 ? x->g_err : "id index: out of memory");
        grow_drop (x);
        return -1;
    }
    for (size_t i = 0; i < x->nlate; i++) /* those the copy saw: not twice */
        (void) put (x->g_slot, x->g_n, x->late[2 * i], x->late[2 * i + 1]);
    if (take_name (x, err, len) < 0) {
        grow_drop (x);
        return -1;
    }
    pthread_mutex_lock (&map_mu);
    drop_prev (x); /* if the thread did not (a doubling in place) */
    x->g_prev = x->slot; /* the next doubling's thread drops it */
    x->g_prevn = x->nslots;
    x->g_prevfd = x->fd;
    x->slot = x->g_slot;
    x->fd = x->g_fd;
    x->nslots = x->g_n;
    pthread_mutex_unlock (&map_mu);
    x->g_slot = NULL;
    x->g_fd = -1;
    grow_drop (x);
    return 0;
}

/* Wait for the copy being made and take it. */
static int grow_finish (struct ledgerd_ids *x, char *err, size_t len)
{
    pthread_join (x->grower, NULL);
    x->growing = false;
    return grow_take (x, err, len);
}

/* Double the table here and now (no thread could be made). */
static int grow (struct ledgerd_ids *x, char *err, size_t len)
{
    x->nlate = 0;
    x->g_old = x->slot;
    x->g_oldn = x->nslots;
    x->g_n = x->nslots * 2;
    x->g_fd = -1;
    x->g_slot = NULL;
    grow_thread (x);
    return grow_take (x, err, len);
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
    if (x->growing && (__atomic_load_n (&x->g_done, __ATOMIC_ACQUIRE)
                       || 2 * (x->count + 1) > x->nslots)
        && grow_finish (x, err, len) < 0)
        return -1;
    if (!x->growing && 8 * (x->count + 1) > 3 * x->nslots)
        grow_start (x);
    if (!x->growing && 2 * (x->count + 1) > x->nslots && grow (x, err, len) < 0)
        return -1;
    uint64_t h = jt_str_hash64 (key);
    uint64_t pos = (uint64_t) (x->nsegs - 1) << POS_OFFSET_BITS | offset;
    if (!put (x->slot, x->nslots, h, pos))
        return 0; /* there already (indexed again after a restart) */
    x->count++;
    if (x->growing && x->nlate != SIZE_MAX) { /* the copy may not have it */
        if (x->nlate == x->latecap) {
            size_t nc = x->latecap ? 2 * x->latecap : 1024;
            uint64_t *v = realloc (x->late, nc * 2 * sizeof (*v));
            if (!v) {
                x->nlate = SIZE_MAX; /* the copy is dropped when taken */
                return 0;
            }
            x->late = v;
            x->latecap = nc;
        }
        x->late[2 * x->nlate] = h;
        x->late[2 * x->nlate + 1] = pos;
        x->nlate++;
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
    snprintf (job->dir, sizeof (job->dir), "%s", dir);
    for (size_t i = 0; i < x->nsegs; i++)
        n += strlen (base_of (x->segs[i])) + 1;
    if (!(job->segs = malloc (n + 1)))
        return -1;
    job->segs[0] = '\0';
    for (size_t i = 0, off = 0; i < x->nsegs; i++)
        off += (size_t) sprintf (job->segs + off, "%s\n", base_of (x->segs[i]));
    job->nsegs = x->nsegs;
    job->count = x->count;
    return 0;
}

void ledgerd_ids_stamp_free (struct ledgerd_stamp_job *job)
{
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
    ledgerd_ids_stamp_free (&job);
    return rc;
}

/* Write the table's dirty pages back a slice at a time, each waited for,
 * before the msync that makes it durable. After 50,000 inserts at random
 * places every page of the table is dirty, and one msync of it queued
 * them all on the disk at once: the ledger's fdatasync on the commit
 * thread waited behind megabytes of them (strace of the append bench:
 * msync 20.5 ms, the group's fdatasync beside it 14 ms, the acks of the
 * windows in flight 20 to 36 ms). Slice by slice, a group's sync waits
 * for one slice at most. On a dup of the descriptor: a doubling taken
 * meanwhile may close the daemon's (the old table is then written back
 * for nothing; the msync covers the new one). Best effort: the msync
 * after it is what the stamp relies on. Also run once after a start
 * (server.c's settle_thread): the table it copied or built is all dirty. */
void ledgerd_ids_writeback (struct ledgerd_ids *x)
{
#ifdef HAVE_SYNC_FILE_RANGE
    pthread_mutex_lock (&map_mu);
    int fd = dup (x->fd);
    off_t bytes = (off_t) (x->nslots * 2 * sizeof (uint64_t));
    pthread_mutex_unlock (&map_mu);
    if (fd < 0)
        return;
    for (off_t off = 0; off < bytes; off += IDS_WRITEBACK_SLICE)
        if (sync_file_range (fd, off, IDS_WRITEBACK_SLICE,
                             SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE
                                 | SYNC_FILE_RANGE_WAIT_AFTER)
            < 0)
            break;
    close (fd);
#else
    (void) x;
#endif
}

int ledgerd_ids_stamp_write (struct ledgerd_stamp_job *job)
{
    char path[JT_LEDGER_PATH_MAX + 32], tmp[JT_LEDGER_PATH_MAX + 40];
    struct ledgerd_ids *x = job->x;
    char *err = job->err;
    size_t len = sizeof (job->err), nslots;
    FILE *f;
    int rc;

    ledgerd_ids_writeback (x);
    pthread_mutex_lock (&map_mu);
    nslots = job->nslots = x->nslots;
    rc = msync (x->slot, nslots * 2 * sizeof (uint64_t), MS_SYNC);
    pthread_mutex_unlock (&map_mu);
    if (rc < 0) {
        snprintf (err, len, "%s: msync: %s", x->path, strerror (errno));
        return -1;
    }
    snprintf (path, sizeof (path), "%s/ledgerd.ids.stamp", job->dir);
    snprintf (tmp, sizeof (tmp), "%s/ledgerd.ids.stamp.new", job->dir);
    if (!(f = fopen (tmp, "w"))) {
        snprintf (err, len, "%s: %s", tmp, strerror (errno));
        return -1;
    }
    fprintf (f, STAMP_MAGIC "\nseq %" PRIu64 " %s %" PRIu64 "\nslots %zu\nload %" PRIu64
             "\nsegments %zu\n%send\n", job->st.seq, job->st.hash, job->st.pos, nslots,
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
    if (map_new (x->tmp, nslots, &x->fd, &x->slot, err, len) < 0) {
        close (fd);
        return -1;
    }
    x->nslots = nslots;
    size_t bytes = nslots * 2 * sizeof (uint64_t), done = 0;
    while (done < bytes) {
        ssize_t k = pread (fd, (char *) x->slot + done, bytes - done, (off_t) done);
        if (k <= 0) {
            snprintf (err, len, "%s: %s", x->path, k < 0 ? strerror (errno) : "short read");
            close (fd);
            goto fail;
        }
        done += (size_t) k;
    }
    close (fd);
    for (size_t i = 0; i < nslots; i++)
        x->count += x->slot[2 * i] != 0;
    if (2 * x->count > nslots) {
        snprintf (why, whylen, "%s holds %zu ids in %zu slots: not an index", x->path,
                  x->count, nslots);
        unlink (x->tmp);
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
        unlink (x->tmp);
        ledgerd_ids_close (x);
        return 0;
    }
    free (buf);
    if (take_name (x, err, len) < 0)
        goto fail;
    return 1;
fail:
    unlink (x->tmp);
    ledgerd_ids_close (x);
    return -1;
}

int ledgerd_ids_find (const struct ledgerd_ids *x, const char *key, uint64_t *seq,
                      char *err, size_t len)
{
    uint64_t h = jt_str_hash64 (key);
    size_t i = (size_t) h & (x->nslots - 1);

    for (; x->slot[2 * i]; i = (i + 1) & (x->nslots - 1)) {
        if (x->slot[2 * i] != h)
            continue;
        int rc = confirm (x, x->slot[2 * i + 1], key, seq, err, len);
        if (rc != 0)
            return rc;
    }
    return 0;
}
