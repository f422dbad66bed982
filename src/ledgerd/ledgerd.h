/*
 * ledgerd.h - jobtree-ledgerd internals shared by its files: configuration,
 * logging and the server loop.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_LEDGERD_H
#define JT_LEDGERD_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "jobtree/ledger.h"

struct ledgerd_conf {
    const char *dir;        /* ledger directory (segments) */
    const char *socket;     /* Unix socket path */
    const char *slurm_user; /* name or numeric uid allowed to append */
    uid_t slurm_uid;
    const char *logfile; /* NULL: stderr */
    const char *pidfile; /* NULL: none */
    bool foreground;
    bool force; /* accept insecure directory modes */
    bool truncate_damaged_tail; /* an operator's: cut a damaged tail */
    bool wait_lock;       /* another daemon holds the ledger: wait, not refuse */
    unsigned lock_poll_ms; /* how often a waiting daemon tries the lock */
    uint64_t segment_max;
    size_t index_max; /* event ids remembered for idempotency */
    size_t batch_max; /* events per group commit */
    mode_t socket_mode;
    /* a checkpoint of the fold (jobtree/ledger_checkpoint.h) after this many
     * records, or once records have waited this many seconds (0: never) */
    uint64_t checkpoint_every;
    uint64_t checkpoint_interval;
};

#define LEDGERD_CKPT_EVERY 50000
#define LEDGERD_CKPT_EVERY_MAX 100000000
#define LEDGERD_CKPT_INTERVAL 3600
#define LEDGERD_CKPT_INTERVAL_MAX 31536000

#define LEDGERD_LOCK_POLL_MS 1000
#define LEDGERD_LOCK_POLL_MIN 10
#define LEDGERD_LOCK_POLL_MAX 60000

/* Exit statuses besides 0 (stopped), 1 (fatal) and 2 (usage): another
 * daemon holds the ledger directory (refused without --wait-lock), and
 * another daemon took the ledger over while this one was writing (fenced:
 * nothing after the takeover was acknowledged). */
#define LEDGERD_EXIT_LOCKED 3
#define LEDGERD_EXIT_FENCED 4

extern volatile sig_atomic_t ledgerd_exit_flag;
extern volatile sig_atomic_t ledgerd_hup_flag;

void log_open (const char *file);
void log_msg (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Start a thread of the daemon's with every signal blocked in it, so that
 * SIGTERM and SIGHUP reach the serving loop (its poll returns EINTR), never
 * a helper. true when it started. */
bool ledgerd_thread_start (pthread_t *th, void *(*fn) (void *), void *arg);

/* The event id as it appears in a canonical payload (escaped form), which
 * is the key of both id indexes. NULL if absent or on ENOMEM. */
char *ledgerd_id_key (const char *p, size_t len);

/* The ids added while serving, in memory until a stamp merges them into
 * the table (ids.c's DESIGN): an open-addressing table like the file's. */
struct ids_chunk {
    struct ids_chunk *next; /* the older one */
    uint64_t *slot;         /* nslots pairs {hash, position} */
    size_t nslots, count;
};

/* Every event id of the ledger, on disk (ids.c): hash -> where its record
 * is, confirmed by reading it. */
struct ledgerd_ids {
    char path[JT_LEDGER_PATH_MAX + 16], tmp[JT_LEDGER_PATH_MAX + 16];
    int fd;
    uint64_t *slot; /* the table: nslots pairs {hash, position} */
    size_t nslots, tcount; /* tcount: the ids in the table */
    char **segs; /* segment ordinal -> path */
    size_t nsegs, segcap;
    bool serving; /* ledgerd_ids_serve: adds go to the chunks */
    size_t chunk_max; /* slots of the largest chunk */
    struct ids_chunk *chunks;  /* newest first */
    size_t nmem;               /* the ids in the chunks */
    struct ids_chunk *done;    /* merged: freed by the next stamp's thread */
    uint64_t *g_prev; /* the table the last merge replaced (g_prevn slots,
                       * g_prevfd; NULL: none): dropped by the next stamp's
                       * thread */
    size_t g_prevn;
    int g_prevfd;
};

/* Create (emptied) DIR/ledgerd.ids, removing its stamp first. 0, or -1
 * with err. */
int ledgerd_ids_open (struct ledgerd_ids *x, const char *dir, char *err, size_t len);

/* What DIR/ledgerd.ids.stamp says: every id of the records 1..seq (whose
 * hash is hash) is in the index file of nslots slots, whose first segments
 * are the stamp's; the BudgetLoaded kept for the payer check is at
 * load_pos - 1 (0: none kept). */
struct ledgerd_stamp {
    uint64_t seq;
    char hash[65];
    uint64_t pos;      /* where record seq is (ledgerd_ids_pos) */
    uint64_t load_pos; /* 1 + where the BudgetLoaded kept is (0: none) */
};

/* Stamp the index as holding every id up to seq (hash): the table synced
 * (msync), then the stamp written, synced and renamed into place. 0, or
 * -1 with err (the old stamp, if any, still holds: it covers less). */
int ledgerd_ids_stamp (struct ledgerd_ids *x, const char *dir,
                       const struct ledgerd_stamp *st, char *err, size_t len);

/* ledgerd_ids_stamp in three steps, so that the second (the merge and
 * the msync: up to a second for a large table) may run on another thread
 * while the serving thread goes on adding ids: _prepare (serving thread)
 * starts a new chunk and hands the older ones to the job, and copies what
 * the stamp says (the segments' names), -1 on ENOMEM; _write copies the
 * table and the job's chunks into a new file (doubled while the load
 * would pass 3/8), syncs it, names it and writes the stamp, 0 or -1 with
 * job->err; _done (serving thread, after _write) takes the table made and
 * lets the merged chunks go, and releases the job. */
struct ledgerd_stamp_job {
    struct ledgerd_ids *x;
    char dir[JT_LEDGER_PATH_MAX];
    struct ledgerd_stamp st;
    char *segs; /* the segments' names, one a line */
    size_t nsegs;
    size_t count;  /* the ids indexed at _prepare */
    size_t nslots; /* the slots _write synced */
    struct ids_chunk *from; /* the chunks to merge (NULL: none) */
    size_t mem;             /* the ids in them */
    bool merged;            /* they are in the table _done keeps */
    uint64_t *m_slot;       /* the table _write made (m_n slots, m_fd) */
    size_t m_n, m_tcount;   /* m_tcount: the ids the table holds after */
    int m_fd;
    char err[JT_LEDGER_PATH_MAX + 256];
};
int ledgerd_ids_stamp_prepare (struct ledgerd_ids *x, const char *dir,
                               const struct ledgerd_stamp *st,
                               struct ledgerd_stamp_job *job);
int ledgerd_ids_stamp_write (struct ledgerd_stamp_job *job);
void ledgerd_ids_stamp_done (struct ledgerd_stamp_job *job);
/* From now on (the start's indexing done) ids are added in memory, and
 * the table changes only when a stamp merges them. chunk: the slots of
 * every chunk (a power of two, for tests), 0 for ids.c's sizes. 0, or -1
 * on ENOMEM. */
int ledgerd_ids_serve (struct ledgerd_ids *x, size_t chunk);
/* The ids in memory are many: a stamp is due whatever its age. */
bool ledgerd_ids_pressing (const struct ledgerd_ids *x);
/* Every id indexed: the table's and the chunks' (tcount + nmem, so that
 * it cannot drift from them: a merge counts what it put). */
size_t ledgerd_ids_count (const struct ledgerd_ids *x);
/* Write the table's dirty pages back a slice at a time, each waited for
 * (any thread; best effort: nothing is synced). */
void ledgerd_ids_writeback (struct ledgerd_ids *x);

/* Open the index of DIR from its stamp: the record at the stamp's pos is
 * read and must be its seq with its hash, the table is mapped read only
 * (no named table is ever changed: a previous daemon that may still run
 * reads the same), its segments those of the stamp. 1 with *st when it
 * serves (then only the records after st->seq need indexing, and into
 * memory: ledgerd_ids_serve first), 0 when there is none or it does not
 * fit the directory (why; nothing was changed), -1 with err. segs: the
 * directory's segments. */
int ledgerd_ids_restore (struct ledgerd_ids *x, const char *dir, char *const *segs,
                         size_t nsegs, struct ledgerd_stamp *st, char *why, size_t whylen,
                         char *err, size_t len);

/* The position ledgerd_ids_add would give a record at offset of the
 * current segment. */
uint64_t ledgerd_ids_pos (const struct ledgerd_ids *x, uint64_t offset);
/* The byte offset in its segment of a position. */
uint64_t ledgerd_ids_offset (uint64_t pos);

/* The payload of the record at pos (malloc'd, *plen), or NULL (err). */
char *ledgerd_ids_payload (const struct ledgerd_ids *x, uint64_t pos, size_t *plen,
                           char *err, size_t len);
void ledgerd_ids_close (struct ledgerd_ids *x);
/* The segment the next records are in (once per segment or batch: its
 * path is compared, then remembered). 0, or -1 with err. */
int ledgerd_ids_segment (struct ledgerd_ids *x, const char *path, char *err,
                         size_t len);
/* Index key as the record at offset of that segment. 0, or -1 with err. */
int ledgerd_ids_add (struct ledgerd_ids *x, const char *key, uint64_t offset, char *err,
                     size_t len);
/* 1 with *seq when key is in the ledger, 0 when not, -1 with err (a read
 * failed). */
int ledgerd_ids_find (const struct ledgerd_ids *x, const char *key, uint64_t *seq,
                      char *err, size_t len);

/* Take the writer lock of conf->dir (lock.c): 0 with *lockfd (held until
 * it is closed), LEDGERD_EXIT_LOCKED when another holds it and
 * conf->wait_lock is off (errbuf names the holder) or the exit flag was set
 * while waiting, -1 with errbuf on an error. */
int ledgerd_lock (const struct ledgerd_conf *conf, int *lockfd, char *errbuf, size_t errlen);

/* Take the lock, recover the ledger, listen and serve until a signal sets
 * the exit flag. ready(arg) is called once the socket accepts (to release
 * the launching parent). Returns 0 on a clean stop (a signal while waiting
 * for the lock included), LEDGERD_EXIT_LOCKED or LEDGERD_EXIT_FENCED, or
 * -1 on any other fatal error; errbuf says why. */
int ledgerd_serve (const struct ledgerd_conf *conf, void (*ready) (void *), void *arg,
                   char *errbuf, size_t errlen);

#endif /* JT_LEDGERD_H */
