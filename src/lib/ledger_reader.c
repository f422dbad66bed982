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
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobtree/ledger.h"
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

/* Walk one mapped segment. 0 to go on, 1 when a problem ended the walk,
 * -1 when the callback failed. */
static int walk_buf (struct walk *w, const char *file, const char *buf, size_t size,
                     bool is_last, jt_error_t *err)
{
    jt_ledger_result_t *res = w->res;
    size_t pos = 0;
    jt_record_t rec;
    char detail[128];

    while (pos < size) {
        jt_record_status_t st = jt_record_parse (buf + pos, size - pos, &rec);
        if (st != JT_RECORD_OK) {
            bad_record (res, file, buf, size, pos, st, is_last);
            return 1;
        }
        rec.file = file;
        rec.offset = pos;
        if (rec.seq != res->last_seq + 1) {
            snprintf (detail, sizeof (detail), "%" PRIu64, rec.seq);
            problem (res, JT_LEDGER_BADSEQ, file, pos, "found seq %s", detail);
            return 1;
        }
        if (strcmp (rec.prev, res->last_hash)) {
            problem (res, JT_LEDGER_BADCHAIN, file, pos,
                     "prev hash %.16s... does not match the previous record", rec.prev);
            return 1;
        }
        if (w->head_hash && rec.seq == w->head_seq) {
            w->head_seen = true;
            if (strcmp (rec.hash, w->head_hash)) {
                problem (res, JT_LEDGER_BADHEAD, file, pos,
                         "hash %.16s... differs from the head anchor", rec.hash);
                return 1;
            }
        }
        if (w->cb && w->cb (&rec, w->arg, err) < 0)
            return -1;
        res->last_seq = rec.seq;
        memcpy (res->last_hash, rec.hash, 65);
        res->nrecords++;
        pos += rec.size;
    }
    res->last_good_size = pos;
    return 0;
}

static int walk_file (struct walk *w, const char *path, bool is_last, jt_error_t *err)
{
    jt_ledger_result_t *res = w->res;
    const char *base = strrchr (path, '/');
    unsigned long long first;
    struct stat sb;
    int fd, rc;

    base = base ? base + 1 : path;
    snprintf (res->last_file, sizeof (res->last_file), "%s", path);
    res->last_good_size = 0;
    res->nsegments++;
    if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0 || fstat (fd, &sb) < 0) {
        problem (res, JT_LEDGER_IOERR, path, 0, "%s", strerror (errno));
        if (fd >= 0)
            close (fd);
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
    if (jt_ledger_segment_name (base, &first) && first != res->last_seq + 1) {
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
    rc = walk_buf (w, path, buf, (size_t) sb.st_size, is_last, err);
    munmap ((void *) buf, (size_t) sb.st_size);
    return rc;
}

int jt_ledger_read (const char *const *paths, size_t npaths, const char *head,
                    jt_ledger_record_f cb, void *arg, jt_ledger_result_t *res,
                    jt_error_t *err)
{
    struct walk w = { .cb = cb, .arg = arg, .res = res };
    char **files = NULL;
    size_t nfiles = 0, cap = 0;
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
    for (size_t i = 0; i < npaths; i++) {
        struct stat sb;
        char **seg = NULL;
        size_t nseg = 0;
        if (stat (paths[i], &sb) == 0 && S_ISDIR (sb.st_mode)) {
            if (jt_ledger_segments (paths[i], &seg, &nseg, err) < 0)
                goto error;
        } else {
            if (!(seg = malloc (sizeof (*seg))) || !(seg[0] = strdup (paths[i]))) {
                free (seg);
                jt_errprintf (err, "out of memory");
                goto error;
            }
            nseg = 1;
        }
        if (nfiles + nseg > cap) {
            cap = (nfiles + nseg) * 2;
            char **nv = realloc (files, cap * sizeof (*nv));
            if (!nv) {
                jt_ledger_segments_free (seg, nseg);
                jt_errprintf (err, "out of memory");
                goto error;
            }
            files = nv;
        }
        if (nseg)
            memcpy (files + nfiles, seg, nseg * sizeof (*seg));
        nfiles += nseg;
        free (seg);
    }
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
