/*
 * ledger_writer.c - appending to the ledger: recovery at open, group commit,
 * segment rotation, fail closed.
 *
 * DESIGN (after redis's AOF with fsync=always): a batch of records is
 * formatted into one buffer, written with one write() loop and made durable
 * with one fdatasync() before anyone is told its sequence numbers. If any
 * step fails the segment is ftruncate()d back to the size it had before the
 * batch and the writer is poisoned: the caller cannot know which bytes
 * reached the disk, so it must stop acknowledging (the daemon exits and
 * recovery re-reads the tail at the next start). Rotation happens between
 * batches: once a segment reaches segment_max, the next batch opens
 * "ledger-<seq>.jtl" named for its first record, and the directory is
 * fsync'd so the new name is durable too.
 *
 * Recovery never cuts what may have been acknowledged. A torn write leaves
 * at most a prefix of one record (the reader's TRUNCATED): that is cut,
 * kept in torn-<seq>.bin. A damaged tail (a complete record failing its
 * hash or terminator, whole lines after the last good record: CORRUPT in
 * the last segment) is refused unless the operator allows cutting it
 * (truncate_damaged_tail; kept in damaged-<seq>.bin). And the durable head
 * (seq and hash of the last record known durable) is kept in
 * JT_LEDGER_HEAD_FILE, replaced atomically (write, fsync, rename, fsync of
 * the directory) by jt_ledger_writer_save_head and at close: at open the
 * ledger must still hold that record with that hash, so a cut at a record
 * boundary or a damaged last record that reads like a torn one is refused
 * too. The file trails the ledger (the caller saves it when it likes: the
 * daemon about once a second, never on a commit's path), so it is a lower
 * bound of what was acknowledged and never wrong about it.
 *
 * Fencing (opts.fence, the daemon's): one writer per directory is the
 * caller's lock; the epoch makes it hold for a writer that lost its lock
 * without knowing (an NFS client whose lease expired while it was stalled).
 * At open, before the recovery reads anything, the writer takes the next
 * epoch of JT_LEDGER_EPOCH_FILE and marks it "writing"; every append reads
 * the file again (a fresh open: NFS's close-to-open check) before its write
 * and after its fdatasync, and every save of the durable head before it
 * renames. Another epoch there: the writer is fenced. Before the write
 * nothing reaches the disk; after it the batch is cut back as a failed one
 * is; either way it is never acknowledged and the writer refuses all later
 * appends. A clean close marks the epoch "stopped". A writer that finds it
 * "writing" took over from one that may still be alive: it never appends to
 * a file that writer has open, but to a new segment (or, when the last one
 * is empty, a new file of the same name), and it refuses to start if the
 * old last segment grew while it read the ledger. What is left: a stale
 * writer stalled between its fence check and its write, on a lock it lost,
 * puts records after the end the new writer read; its check after the
 * fdatasync cuts them again, and jobtree verify names any it could not.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobtree/ledger.h"
#include "ledger_record.h"

#define DEFAULT_SEGMENT_MAX (64ULL * 1024 * 1024)

struct jt_ledger_writer {
    char *dir;
    int dirfd;
    int fd;
    char path[JT_LEDGER_PATH_MAX]; /* the open segment */
    uint64_t size; /* good size of the open segment */
    uint64_t segment_max;
    uint64_t last_seq;
    char last_hash[65];
    uint64_t saved_seq; /* in JT_LEDGER_HEAD_FILE */
    bool failed;
    uint64_t epoch;  /* fencing: ours in JT_LEDGER_EPOCH_FILE (0: off) */
    bool took_over;  /* the epoch was left "writing" */
    bool fenced;     /* another epoch took the ledger */
    char *buf;
    size_t bufcap;
};

/* fsync of directory dir open at fd. */
static int fsync_dirfd (int fd, const char *dir, jt_error_t *err)
{
    if (fsync (fd) < 0)
        return jt_errprintf (err, "%s: fsync: %s", dir, strerror (errno));
    return 0;
}

static int fsync_dir (jt_ledger_writer_t *w, jt_error_t *err)
{
    return fsync_dirfd (w->dirfd, w->dir, err);
}

/* ---- the epoch file (fencing) ---- */

#define EPOCH_DIGITS 20
#define EPOCH_LINE_LEN (EPOCH_DIGITS + 1 + 7 + 1) /* "<digits> writing\n" */

static int epoch_path (const char *dir, char *path, size_t len)
{
    int n = snprintf (path, len, "%s/%s", dir, JT_LEDGER_EPOCH_FILE);
    return n < 0 || (size_t) n >= len ? -1 : 0;
}

int jt_ledger_epoch_read (const char *dir, uint64_t *epoch, bool *writing,
                          jt_error_t *err)
{
    char path[JT_LEDGER_PATH_MAX], buf[EPOCH_LINE_LEN + 2];
    ssize_t n;
    int fd;

    *epoch = 0;
    *writing = false;
    if (epoch_path (dir, path, sizeof (path)) < 0)
        return jt_errprintf (err, "%s: path too long", dir);
    /* a fresh open each time: on NFS, open is when the client checks the
     * file against the server (close-to-open) */
    if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0) {
        if (errno == ENOENT)
            return 0;
        return jt_errprintf (err, "%s: %s", path, strerror (errno));
    }
    n = pread (fd, buf, sizeof (buf) - 1, 0);
    int e = errno;
    close (fd);
    if (n < 0)
        return jt_errprintf (err, "%s: %s", path, strerror (e));
    buf[n] = '\0';
    uint64_t v = 0;
    for (int i = 0; i < EPOCH_DIGITS; i++) {
        if (i >= n || buf[i] < '0' || buf[i] > '9')
            return jt_errprintf (err, "%s: field epoch: not %d decimal digits", path,
                                 EPOCH_DIGITS);
        unsigned d = (unsigned) (buf[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return jt_errprintf (err, "%s: field epoch: larger than %" PRIu64, path,
                                 UINT64_MAX);
        v = v * 10 + d;
    }
    if (v == 0 || v == UINT64_MAX)
        return jt_errprintf (err, "%s: field epoch: %" PRIu64 " is out of range (1 to %"
                             PRIu64 ")", path, v, UINT64_MAX - 1);
    const char *state = buf + EPOCH_DIGITS;
    if (!strcmp (state, " writing\n"))
        *writing = true;
    else if (strcmp (state, " stopped\n"))
        return jt_errprintf (err, "%s: field state: not 'writing' or 'stopped' after the "
                             "epoch, then a line end", path);
    *epoch = v;
    return 0;
}

/* Write our epoch and state in place (one short write, then fsync; the
 * file keeps its inode, so no reader's lookup cache can hold an old one). */
static int epoch_write (jt_ledger_writer_t *w, bool writing, jt_error_t *err)
{
    char path[JT_LEDGER_PATH_MAX], line[EPOCH_LINE_LEN + 1];
    struct stat sb;
    int n = snprintf (line, sizeof (line), "%020" PRIu64 " %s\n", w->epoch,
                      writing ? "writing" : "stopped");

    if (epoch_path (w->dir, path, sizeof (path)) < 0)
        return jt_errprintf (err, "%s: path too long", w->dir);
    bool created = stat (path, &sb) < 0;
    int fd = open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0)
        return jt_errprintf (err, "%s: %s", path, strerror (errno));
    if (pwrite (fd, line, (size_t) n, 0) != n || ftruncate (fd, n) < 0 || fsync (fd) < 0) {
        int e = errno;
        close (fd);
        return jt_errprintf (err, "%s: %s", path, strerror (e ? e : EIO));
    }
    close (fd);
    if (created && fsync_dir (w, err) < 0)
        return -1;
    return 0;
}

/* Whether the epoch file still holds ours (fencing on). 0, or -1 with
 * err, w->fenced set when another epoch holds it (a file that cannot be
 * read fails too: the writer cannot show it still owns the ledger). */
static int fence_check (jt_ledger_writer_t *w, const char *when, jt_error_t *err)
{
    uint64_t e;
    bool writing;
    jt_error_t rerr = { "" };

    if (!w->epoch)
        return 0;
    if (jt_ledger_epoch_read (w->dir, &e, &writing, &rerr) < 0)
        return jt_errprintf (err, "ledger %s: %s: cannot check this writer's epoch %"
                             PRIu64 ": %s", w->dir, when, w->epoch, rerr.text);
    if (e == w->epoch && writing)
        return 0;
    w->fenced = true;
    return jt_errprintf (err, "ledger %s: fenced %s: %s holds epoch %" PRIu64 " (%s), this "
                         "writer's is %" PRIu64 ": another writer has taken the ledger",
                         w->dir, when, JT_LEDGER_EPOCH_FILE, e,
                         e ? (writing ? "writing" : "stopped") : "no file", w->epoch);
}

static int open_segment (jt_ledger_writer_t *w, const char *path, bool create,
                         jt_error_t *err)
{
    int flags = O_WRONLY | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0);
    int fd = open (path, flags, 0640);
    if (fd < 0)
        return jt_errprintf (err, "%s: %s", path, strerror (errno));
    if (create) {
        /* the umask must not widen or narrow the documented mode */
        if (fchmod (fd, 0640) < 0 || fsync_dir (w, err) < 0) {
            jt_errprintf (err, "%s: %s", path, strerror (errno));
            close (fd);
            return -1;
        }
    }
    if (w->fd >= 0)
        close (w->fd);
    w->fd = fd;
    snprintf (w->path, sizeof (w->path), "%s", path);
    return 0;
}

static int new_segment (jt_ledger_writer_t *w, uint64_t first, jt_error_t *err)
{
    char name[64], path[JT_LEDGER_PATH_MAX];
    snprintf (name, sizeof (name), JT_LEDGER_SEGMENT_FMT, (unsigned long long) first);
    snprintf (path, sizeof (path), "%s/%s", w->dir, name);
    if (open_segment (w, path, true, err) < 0)
        return -1;
    w->size = 0;
    return 0;
}

/* Before cutting a tail, keep its bytes in "<kind>-<seq>.bin" next to the
 * segments (torn: a crash left them, never acknowledged; damaged: an
 * operator chose to cut them): nothing may vanish unseen. */
static int save_tail (jt_ledger_writer_t *w, jt_ledger_result_t *res, const char *kind,
                      jt_error_t *err)
{
    char path[JT_LEDGER_PATH_MAX];
    int in = -1, out = -1, rc = -1;
    char buf[65536];
    off_t off = (off_t) res->last_good_size;

    snprintf (path, sizeof (path), "%s/%s-%020llu.bin", w->dir, kind,
              (unsigned long long) res->bad_seq);
    if ((in = open (res->last_file, O_RDONLY | O_CLOEXEC)) < 0
        || (out = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640)) < 0) {
        jt_errprintf (err, "saving the cut tail to %s: %s", path, strerror (errno));
        goto done;
    }
    for (;;) {
        ssize_t n = pread (in, buf, sizeof (buf), off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            jt_errprintf (err, "%s: %s", res->last_file, strerror (errno));
            goto done;
        }
        if (n == 0)
            break;
        for (ssize_t k = 0; k < n;) {
            ssize_t m = write (out, buf + k, (size_t) (n - k));
            if (m < 0 && errno == EINTR)
                continue;
            if (m <= 0) {
                jt_errprintf (err, "%s: %s", path, strerror (m < 0 ? errno : ENOSPC));
                goto done;
            }
            k += m;
        }
        off += n;
    }
    if (fsync (out) < 0 || fsync_dir (w, err) < 0) {
        jt_errprintf (err, "%s: %s", path, strerror (errno));
        goto done;
    }
    rc = 0;
done:
    if (in >= 0)
        close (in);
    if (out >= 0)
        close (out);
    return rc;
}

/* The durable head file: absent (0, *seq 0), "SEQ:HASH\n" (0), or anything
 * else (-1 with err). */
static int read_head (jt_ledger_writer_t *w, uint64_t *seq, char hash[65],
                      jt_error_t *err)
{
    char path[JT_LEDGER_PATH_MAX], buf[128];
    int fd;
    ssize_t n;

    *seq = 0;
    snprintf (path, sizeof (path), "%s/%s", w->dir, JT_LEDGER_HEAD_FILE);
    if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0) {
        if (errno == ENOENT)
            return 0;
        return jt_errprintf (err, "%s: %s", path, strerror (errno));
    }
    n = read (fd, buf, sizeof (buf) - 1);
    close (fd);
    if (n < 0)
        return jt_errprintf (err, "%s: %s", path, strerror (errno));
    buf[n] = '\0';
    if (n > 0 && buf[n - 1] == '\n')
        buf[n - 1] = '\0';
    if (jt_ledger_head_parse (buf, seq, hash) < 0)
        return jt_errprintf (err,
                             "durable head %s is not SEQ:HASH; refusing to append "
                             "(check the ledger with jobtree verify, then remove the "
                             "file to accept it as it is)",
                             path);
    return 0;
}

int jt_ledger_writer_head_due (jt_ledger_writer_t *w, uint64_t *seq, char *hash,
                               jt_error_t *err)
{
    if (w->failed)
        return jt_errprintf (err, "ledger %s: writer failed earlier", w->dir);
    if (w->last_seq == w->saved_seq)
        return 0;
    if (fence_check (w, "saving the durable head", err) < 0) {
        w->failed = true;
        return -1;
    }
    *seq = w->last_seq;
    memcpy (hash, w->last_hash, 65);
    return 1;
}

int jt_ledger_head_write (const char *dir, uint64_t seq, const char *hash, jt_error_t *err)
{
    char tmp[JT_LEDGER_PATH_MAX + 8], path[JT_LEDGER_PATH_MAX], line[128];
    int fd, n;

    snprintf (path, sizeof (path), "%s/%s", dir, JT_LEDGER_HEAD_FILE);
    snprintf (tmp, sizeof (tmp), "%s.tmp", path);
    n = snprintf (line, sizeof (line), "%" PRIu64 ":%s\n", seq, hash);
    if ((fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640)) < 0)
        return jt_errprintf (err, "%s: %s", tmp, strerror (errno));
    if (write (fd, line, (size_t) n) != n || fsync (fd) < 0) {
        int e = errno;
        close (fd);
        unlink (tmp);
        return jt_errprintf (err, "%s: %s", tmp, strerror (e ? e : EIO));
    }
    close (fd);
    if (rename (tmp, path) < 0) {
        int e = errno;
        unlink (tmp);
        return jt_errprintf (err, "%s: %s", path, strerror (e));
    }
    if ((fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return jt_errprintf (err, "%s: %s", dir, strerror (errno));
    int rc = fsync_dirfd (fd, dir, err);
    close (fd);
    return rc;
}

void jt_ledger_writer_head_saved (jt_ledger_writer_t *w, uint64_t seq)
{
    if (seq > w->saved_seq)
        w->saved_seq = seq;
}

int jt_ledger_writer_save_head (jt_ledger_writer_t *w, jt_error_t *err)
{
    uint64_t seq = 0;
    char hash[65];
    int r = jt_ledger_writer_head_due (w, &seq, hash, err);

    if (r <= 0)
        return r;
    if (jt_ledger_head_write (w->dir, seq, hash, err) < 0)
        return -1;
    jt_ledger_writer_head_saved (w, seq);
    return 0;
}

void jt_ledger_writer_close (jt_ledger_writer_t *w)
{
    if (!w)
        return;
    int saved = errno;
    if (!w->failed) {
        (void) jt_ledger_writer_save_head (w, NULL);
        if (w->epoch && !w->failed && fence_check (w, "closing", NULL) == 0)
            (void) epoch_write (w, false, NULL);
    }
    if (w->fd >= 0)
        close (w->fd);
    if (w->dirfd >= 0)
        close (w->dirfd);
    free (w->dir);
    free (w->buf);
    free (w);
    errno = saved;
}

/* The reader's callback during recovery: the caller's, and the hash of the
 * record at the durable head's seq. */
struct recover {
    jt_ledger_record_f cb;
    void *arg;
    uint64_t head_seq;
    char head_hash[65];
    bool seen;
};

static int recover_cb (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    struct recover *r = arg;
    if (rec->seq == r->head_seq) {
        r->seen = true;
        memcpy (r->head_hash, rec->hash, 65);
    }
    return r->cb ? r->cb (rec, r->arg, err) : 0;
}

/* The last writer did not stop (its epoch was left "writing") and may
 * still hold res->last_file open at its size: append to a file of our own.
 * A non-empty last segment is left as read, and we start the next one; an
 * empty one (named for the next seq, which we would write into at offset
 * 0 as it might) is replaced by a new file of the same name. Then the old
 * segment must still be as the recovery read it. */
static int take_over (jt_ledger_writer_t *w, const jt_ledger_result_t *res,
                      jt_error_t *err)
{
    struct stat sb;

    if (w->size == 0 && unlink (res->last_file) < 0)
        return jt_errprintf (err, "%s: %s", res->last_file, strerror (errno));
    if (new_segment (w, w->last_seq + 1, err) < 0)
        return -1;
    if (res->last_good_size == 0)
        return 0;
    if (stat (res->last_file, &sb) < 0)
        return jt_errprintf (err, "%s: %s", res->last_file, strerror (errno));
    if ((uint64_t) sb.st_size != res->last_good_size)
        return jt_errprintf (err,
                             "%s grew from %" PRIu64 " to %jd bytes while the ledger was "
                             "read for a takeover: the previous writer still appends; "
                             "refusing to start (start again once it has stopped)",
                             res->last_file, res->last_good_size, (intmax_t) sb.st_size);
    return 0;
}

/* The recovery's read: the whole ledger, or with from_seq and a durable
 * head from the segment holding the smaller of the two on. */
static int recover_read (const char *dir, const char *const *paths, uint64_t from_seq,
                         uint64_t from_off, uint64_t durable, struct recover *r,
                         jt_ledger_result_t *res, jt_error_t *err)
{
    char **segs = NULL;
    size_t n = 0, i;
    unsigned long long first = 0;
    uint64_t at = from_seq < durable ? from_seq : durable;

    if (!at)
        return jt_ledger_read (paths, 1, NULL, recover_cb, r, res, err);
    if (jt_ledger_segments (dir, &segs, &n, err) < 0)
        return -1;
    for (i = n; i > 0; i--) {
        const char *b = strrchr (segs[i - 1], '/');
        if (jt_ledger_segment_name (b ? b + 1 : segs[i - 1], &first) && first <= at)
            break;
    }
    int rc;
    if (i > 0 && from_off && from_seq <= durable && first < from_seq)
        rc = jt_ledger_read_at ((const char *const *) segs + i - 1, n - i + 1, from_off,
                                from_seq, true, recover_cb, r, res, err);
    else if (i > 1)
        rc = jt_ledger_read_from ((const char *const *) segs + i - 1, n - i + 1, true,
                                  recover_cb, r, res, err);
    else
        rc = jt_ledger_read (paths, 1, NULL, recover_cb, r, res, err);
    jt_ledger_segments_free (segs, n);
    return rc;
}

jt_ledger_writer_t *jt_ledger_writer_open (const char *dir, uint64_t segment_max,
                                           jt_ledger_record_f cb, void *arg,
                                           jt_ledger_result_t *res, jt_error_t *err)
{
    jt_ledger_writer_opts_t o = { .segment_max = segment_max, .cb = cb, .arg = arg };
    return jt_ledger_writer_open_opts (dir, &o, res, err);
}

jt_ledger_writer_t *jt_ledger_writer_open_opts (const char *dir,
                                                const jt_ledger_writer_opts_t *o,
                                                jt_ledger_result_t *res, jt_error_t *err)
{
    jt_ledger_writer_t *w = calloc (1, sizeof (*w));
    const char *paths[1] = { dir };
    struct recover r = { .cb = o->cb, .arg = o->arg };
    char durable_hash[65] = "";
    uint64_t durable = 0;

    if (!w) {
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    w->fd = -1;
    w->segment_max = o->segment_max ? o->segment_max : DEFAULT_SEGMENT_MAX;
    if (!(w->dir = strdup (dir))) {
        jt_errprintf (err, "out of memory");
        goto error;
    }
    if ((w->dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        jt_errprintf (err, "%s: %s", dir, strerror (errno));
        goto error;
    }
    if (o->fence) {
        /* the next epoch, taken before anything is read: a stale writer's
         * next check sees it whatever this recovery then finds */
        uint64_t prev;
        bool writing;
        if (jt_ledger_epoch_read (dir, &prev, &writing, err) < 0)
            goto error;
        if (prev >= UINT64_MAX - 1) {
            jt_errprintf (err, "%s/%s: field epoch: no epoch after %" PRIu64, dir,
                          JT_LEDGER_EPOCH_FILE, prev);
            goto error;
        }
        w->epoch = prev + 1;
        w->took_over = writing;
        if (epoch_write (w, true, err) < 0)
            goto error;
    }
    if (read_head (w, &durable, durable_hash, err) < 0)
        goto error;
    r.head_seq = durable;
    if (recover_read (dir, paths, o->from_seq, o->from_off, durable, &r, res, err) < 0)
        goto error;
    res->durable_seq = durable;
    /* decide everything before changing anything */
    bool cut = false;
    const char *kind = "torn";
    switch (res->status) {
    case JT_LEDGER_EMPTY:
    case JT_LEDGER_OK: break;
    case JT_LEDGER_TRUNCATED: cut = true; break;
    case JT_LEDGER_CORRUPT:
        if (res->tail_damage && o->truncate_damaged_tail) {
            cut = true;
            kind = "damaged";
            break;
        }
        /* fall through */
    default:
        if (res->tail_damage)
            jt_errprintf (err,
                          "%s at seq %" PRIu64 ", %s offset %" PRIu64 ": %s; refusing "
                          "to append (an operator may cut it: --truncate-damaged-tail)",
                          jt_ledger_status_str (res->status), res->bad_seq,
                          res->bad_file, res->bad_offset, res->msg);
        else
            jt_errprintf (err,
                          "%s at seq %" PRIu64 ", %s offset %" PRIu64 ": %s; refusing "
                          "to append (run `jobtree verify %s`)",
                          jt_ledger_status_str (res->status), res->bad_seq,
                          res->bad_file, res->bad_offset, res->msg, dir);
        goto error;
    }
    if (durable && r.seen && strcmp (r.head_hash, durable_hash)) {
        jt_errprintf (err,
                      "durable head %s/%s: seq %" PRIu64 " had hash %.16s..., the "
                      "ledger's is %.16s...: rewritten or replaced; refusing to append",
                      dir, JT_LEDGER_HEAD_FILE, durable, durable_hash, r.head_hash);
        goto error;
    }
    if (durable > res->last_seq && !o->truncate_damaged_tail) {
        char where[JT_LEDGER_PATH_MAX + 64];
        if (cut)
            snprintf (where, sizeof (where),
                      "seq %" PRIu64 " (%s offset %" PRIu64 ") reads as a torn tail",
                      res->bad_seq, res->bad_file, res->bad_offset);
        else
            snprintf (where, sizeof (where), "the ledger ends at seq %" PRIu64,
                      res->last_seq);
        jt_errprintf (err,
                      "durable head %s/%s: seq %" PRIu64 " was durable, maybe "
                      "acknowledged, but %s; refusing to append (restore it, or "
                      "accept the loss: --truncate-damaged-tail)",
                      dir, JT_LEDGER_HEAD_FILE, durable, where);
        goto error;
    }
    if (durable > res->last_seq || (cut && kind[0] == 'd'))
        res->cut_seq = res->last_seq + 1;
    w->last_seq = res->last_seq;
    memcpy (w->last_hash, res->last_hash, 65);
    w->saved_seq = durable;
    if (res->nsegments == 0) {
        if (new_segment (w, 1, err) < 0)
            goto error;
    } else {
        if (open_segment (w, res->last_file, false, err) < 0)
            goto error;
        if (cut) {
            if (save_tail (w, res, kind, err) < 0)
                goto error;
            if (ftruncate (w->fd, (off_t) res->last_good_size) < 0
                || fdatasync (w->fd) < 0) {
                jt_errprintf (err, "%s: cutting the %s tail: %s", res->last_file, kind,
                              strerror (errno));
                goto error;
            }
        }
        w->size = res->last_good_size;
        if (lseek (w->fd, (off_t) w->size, SEEK_SET) < 0) {
            jt_errprintf (err, "%s: %s", res->last_file, strerror (errno));
            goto error;
        }
        if (w->took_over && take_over (w, res, err) < 0)
            goto error;
    }
    /* the durable head is this ledger's from now on */
    if (w->last_seq && jt_ledger_writer_save_head (w, err) < 0)
        goto error;
    return w;
error:
    w->failed = true; /* no head saved on the way out */
    jt_ledger_writer_close (w);
    return NULL;
}

/* Room for n more bytes after used in the batch buffer. 0, or -1. */
static int buf_room (jt_ledger_writer_t *w, size_t used, size_t n)
{
    if (used + n > w->bufcap) {
        size_t cap = w->bufcap ? w->bufcap : 65536;
        while (cap < used + n)
            cap *= 2;
        char *nb = realloc (w->buf, cap);
        if (!nb)
            return -1;
        w->buf = nb;
        w->bufcap = cap;
    }
    return 0;
}

/* Undo a batch that may be partly on disk, and poison the writer. */
static int fail_batch (jt_ledger_writer_t *w, jt_error_t *err, const char *what, int e)
{
    w->failed = true;
    if (ftruncate (w->fd, (off_t) w->size) == 0)
        (void) lseek (w->fd, (off_t) w->size, SEEK_SET);
    errno = e;
    return jt_errprintf (err, "ledger %s: %s: %s; the writer is closed", w->dir, what,
                         strerror (e));
}

int jt_ledger_writer_append (jt_ledger_writer_t *w, const char *const *payloads,
                             const size_t *lens, size_t n, uint64_t *first_seq,
                             jt_error_t *err)
{
    return jt_ledger_writer_append_at (w, payloads, lens, n, first_seq, NULL, err);
}

int jt_ledger_writer_append_at (jt_ledger_writer_t *w, const char *const *payloads,
                                const size_t *lens, size_t n, uint64_t *first_seq,
                                uint64_t *offsets, jt_error_t *err)
{
    size_t used = 0;
    uint64_t seq = w->last_seq;
    char hash[65];

    if (w->failed)
        return jt_errprintf (err, "ledger %s: writer failed earlier", w->dir);
    if (n == 0)
        return 0;
    memcpy (hash, w->last_hash, 65);
    /* each record formatted straight into the batch buffer */
    for (size_t i = 0; i < n; i++) {
        if (offsets)
            offsets[i] = used;
        if (jt_record_check (++seq, hash, payloads[i], lens[i], err) < 0)
            return -1;
        if (buf_room (w, used, JT_RECORD_SIZE_MAX (lens[i])) < 0)
            return jt_errprintf (err, "out of memory");
        size_t k = jt_record_format_to (seq, hash, payloads[i], lens[i], w->buf + used,
                                        hash);
        if (k == 0)
            return jt_errprintf (err, "record: SHA-256 failed");
        used += k;
    }
    if (fence_check (w, "before a write", err) < 0) {
        w->failed = true; /* nothing written */
        return -1;
    }
    if (w->size >= w->segment_max && new_segment (w, w->last_seq + 1, err) < 0) {
        w->failed = true;
        return -1;
    }
    for (size_t i = 0; offsets && i < n; i++)
        offsets[i] += w->size; /* relative to the batch until now */
    size_t off = 0;
    while (off < used) {
        ssize_t k = write (w->fd, w->buf + off, used - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return fail_batch (w, err, "write", k < 0 ? errno : ENOSPC);
        off += (size_t) k;
    }
    if (fdatasync (w->fd) < 0)
        return fail_batch (w, err, "fdatasync", errno);
    jt_error_t ferr = { "" };
    if (fence_check (w, "after a write", &ferr) < 0) {
        /* durable, never to be acknowledged: cut back like a failed batch */
        w->failed = true;
        if (ftruncate (w->fd, (off_t) w->size) < 0 || fdatasync (w->fd) < 0)
            return jt_errprintf (err, "%s; %s: cutting back seq %" PRIu64 "..%" PRIu64
                                 " failed: %s", ferr.text, w->path, w->last_seq + 1, seq,
                                 strerror (errno));
        return jt_errprintf (err, "%s; seq %" PRIu64 "..%" PRIu64 " cut back from %s, "
                             "not acknowledged", ferr.text, w->last_seq + 1, seq, w->path);
    }
    w->size += used;
    *first_seq = w->last_seq + 1;
    w->last_seq = seq;
    memcpy (w->last_hash, hash, 65);
    return 0;
}

uint64_t jt_ledger_writer_last_seq (const jt_ledger_writer_t *w)
{
    return w->last_seq;
}

const char *jt_ledger_writer_last_hash (const jt_ledger_writer_t *w)
{
    return w->last_hash;
}

const char *jt_ledger_writer_segment (const jt_ledger_writer_t *w)
{
    return w->path;
}

uint64_t jt_ledger_writer_saved_seq (const jt_ledger_writer_t *w)
{
    return w->saved_seq;
}

uint64_t jt_ledger_writer_epoch (const jt_ledger_writer_t *w)
{
    return w->epoch;
}

bool jt_ledger_writer_took_over (const jt_ledger_writer_t *w)
{
    return w->took_over;
}

bool jt_ledger_writer_fenced (const jt_ledger_writer_t *w)
{
    return w->fenced;
}
