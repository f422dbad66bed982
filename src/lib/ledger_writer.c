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
    uint64_t size; /* good size of the open segment */
    uint64_t segment_max;
    uint64_t last_seq;
    char last_hash[65];
    bool failed;
    char *buf;
    size_t bufcap;
};

static int fsync_dir (jt_ledger_writer_t *w, jt_error_t *err)
{
    if (fsync (w->dirfd) < 0)
        return jt_errprintf (err, "%s: fsync: %s", w->dir, strerror (errno));
    return 0;
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

/* Before cutting a torn tail, keep its bytes in "torn-<seq>.bin" next to the
 * segments: a crash leaves only unacknowledged bytes there, but a damaged or
 * tampered last record reads the same way, and nothing may vanish unseen. */
static int save_tail (jt_ledger_writer_t *w, jt_ledger_result_t *res, jt_error_t *err)
{
    char path[JT_LEDGER_PATH_MAX];
    int in = -1, out = -1, rc = -1;
    char buf[65536];
    off_t off = (off_t) res->last_good_size;

    snprintf (path, sizeof (path), "%s/torn-%020llu.bin", w->dir,
              (unsigned long long) res->bad_seq);
    if ((in = open (res->last_file, O_RDONLY | O_CLOEXEC)) < 0
        || (out = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640)) < 0) {
        jt_errprintf (err, "saving the torn tail to %s: %s", path, strerror (errno));
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

void jt_ledger_writer_close (jt_ledger_writer_t *w)
{
    if (!w)
        return;
    int saved = errno;
    if (w->fd >= 0)
        close (w->fd);
    if (w->dirfd >= 0)
        close (w->dirfd);
    free (w->dir);
    free (w->buf);
    free (w);
    errno = saved;
}

jt_ledger_writer_t *jt_ledger_writer_open (const char *dir, uint64_t segment_max,
                                           jt_ledger_record_f cb, void *arg,
                                           jt_ledger_result_t *res, jt_error_t *err)
{
    jt_ledger_writer_t *w = calloc (1, sizeof (*w));
    const char *paths[1] = { dir };

    if (!w) {
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    w->fd = -1;
    w->segment_max = segment_max ? segment_max : DEFAULT_SEGMENT_MAX;
    if (!(w->dir = strdup (dir))) {
        jt_errprintf (err, "out of memory");
        goto error;
    }
    if ((w->dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        jt_errprintf (err, "%s: %s", dir, strerror (errno));
        goto error;
    }
    if (jt_ledger_read (paths, 1, NULL, cb, arg, res, err) < 0)
        goto error;
    switch (res->status) {
    case JT_LEDGER_EMPTY:
    case JT_LEDGER_OK:
    case JT_LEDGER_TRUNCATED: break;
    default:
        jt_errprintf (err,
                      "%s at seq %" PRIu64 ", %s offset %" PRIu64 ": %s; refusing "
                      "to append (run `jobtree verify %s`)",
                      jt_ledger_status_str (res->status), res->bad_seq, res->bad_file,
                      res->bad_offset, res->msg, dir);
        goto error;
    }
    w->last_seq = res->last_seq;
    memcpy (w->last_hash, res->last_hash, 65);
    if (res->nsegments == 0) {
        if (new_segment (w, 1, err) < 0)
            goto error;
        return w;
    }
    if (open_segment (w, res->last_file, false, err) < 0)
        goto error;
    if (res->status == JT_LEDGER_TRUNCATED) {
        if (save_tail (w, res, err) < 0)
            goto error;
        if (ftruncate (w->fd, (off_t) res->last_good_size) < 0
            || fdatasync (w->fd) < 0) {
            jt_errprintf (err, "%s: truncating the torn tail: %s", res->last_file,
                          strerror (errno));
            goto error;
        }
    }
    w->size = res->last_good_size;
    if (lseek (w->fd, (off_t) w->size, SEEK_SET) < 0) {
        jt_errprintf (err, "%s: %s", res->last_file, strerror (errno));
        goto error;
    }
    return w;
error:
    jt_ledger_writer_close (w);
    return NULL;
}

static int buf_append (jt_ledger_writer_t *w, size_t *used, const char *s, size_t n)
{
    if (*used + n > w->bufcap) {
        size_t cap = w->bufcap ? w->bufcap : 65536;
        while (cap < *used + n)
            cap *= 2;
        char *nb = realloc (w->buf, cap);
        if (!nb)
            return -1;
        w->buf = nb;
        w->bufcap = cap;
    }
    memcpy (w->buf + *used, s, n);
    *used += n;
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
    size_t used = 0;
    uint64_t seq = w->last_seq;
    char hash[65];

    if (w->failed)
        return jt_errprintf (err, "ledger %s: writer failed earlier", w->dir);
    if (n == 0)
        return 0;
    memcpy (hash, w->last_hash, 65);
    for (size_t i = 0; i < n; i++) {
        char *line;
        size_t linelen;
        if (jt_record_format (++seq, hash, payloads[i], lens[i], &line, &linelen, hash,
                              err)
            < 0)
            return -1;
        int rc = buf_append (w, &used, line, linelen);
        free (line);
        if (rc < 0)
            return jt_errprintf (err, "out of memory");
    }
    if (w->size >= w->segment_max && new_segment (w, w->last_seq + 1, err) < 0) {
        w->failed = true;
        return -1;
    }
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
