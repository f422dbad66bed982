/*
 * ledger_read_par.c - the reader's parallel hash check (ledger_reader.c:
 * chunks of framed records hashed on a second thread) gives the outcome of
 * the sequential walk, field for field and callback for callback, on good
 * ledgers and on every kind of damage: byte changes, torn tails, whole
 * lines after the end, CRLF, deleted, repeated and swapped records, a head
 * anchor, a callback that fails, several segments. Chunk sizes of 1, 2, 3
 * and 64 records put every damage at and around chunk boundaries. With a
 * jt_ledger_pre_t of 1, 2, 3 and 5 threads too (jobtree verify -j): the
 * same outcome, every record's work done ahead taken by its own callback.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobtree/ledger.h"
#include "ledger/ledger_record.h"
#include "util/sha256.h"
#include "tap.h"

enum { N = 24 };

/* What a read saw: its result, return code, error, and a digest of the
 * records the callback got (seq, offset, length, payload). */
struct seen {
    int rc;
    jt_ledger_result_t res;
    char err[256];
    unsigned char md[32];
    uint64_t ncb;
};

struct cbstate {
    char *log;
    size_t len, cap;
    uint64_t ncb, fail_at; /* fail on the record with this seq (0: never) */
    uint64_t npre, badpre; /* records with work done ahead; not theirs */
};

static uint64_t npre; /* records given work done ahead, over every read */

/* The work done ahead: the record's seq, to be found by its callback. */
static void *pre_parse (const jt_record_t *rec, void *arg)
{
    uint64_t *p = malloc (sizeof (*p));
    (void) arg;
    if (p)
        *p = rec->seq;
    return p;
}

static int cb (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    struct cbstate *s = arg;
    char line[1024];
    if (s->fail_at && rec->seq == s->fail_at)
        return jt_errprintf (err, "callback refuses seq %" PRIu64, rec->seq);
    if (rec->pre) {
        s->npre++;
        s->badpre += *(const uint64_t *) rec->pre != rec->seq;
    }
    int n = snprintf (line, sizeof (line), "%" PRIu64 " %" PRIu64 " %zu %s %s|",
                      rec->seq, rec->offset, rec->len, rec->file, rec->hash);
    if (s->len + (size_t) n + rec->len + 1 > s->cap) {
        s->cap = (s->len + (size_t) n + rec->len + 1) * 2;
        if (!(s->log = realloc (s->log, s->cap)))
            bail_out ("out of memory");
    }
    if (n < 0 || (size_t) n >= sizeof (line))
        bail_out ("callback line too long");
    memcpy (s->log + s->len, line, (size_t) n);
    s->len += (size_t) n;
    memcpy (s->log + s->len, rec->payload, rec->len);
    s->len += rec->len;
    s->ncb++;
    return 0;
}

/* threads 0: jt_ledger_read; else jt_ledger_read_pre on that many. */
static struct seen read_with (const char *path, const char *head, uint64_t fail_at,
                              size_t chunk, unsigned threads)
{
    jt_ledger_pre_t pre = { .parse = pre_parse, .release = free, .threads = threads };
    struct seen o;
    struct cbstate s = { .fail_at = fail_at };
    jt_error_t err = { "" };

    memset (&o, 0, sizeof (o));
    jt_ledger_read_chunk = chunk;
    jt_ledger_read_parallel_min = chunk ? 0 : SIZE_MAX;
    o.rc = threads ? jt_ledger_read_pre (&path, 1, head, &pre, cb, &s, &o.res, &err)
                   : jt_ledger_read (&path, 1, head, cb, &s, &o.res, &err);
    if (s.badpre)
        snprintf (o.err, sizeof (o.err), "%" PRIu64 " records got another's pre",
                  s.badpre);
    npre += s.npre;
    if (!s.badpre)
        snprintf (o.err, sizeof (o.err), "%s", o.rc < 0 ? err.text : "");
    if (jt_sha256_bin (s.log ? s.log : "", s.len, o.md) < 0)
        bail_out ("sha256");
    o.ncb = s.ncb;
    free (s.log);
    jt_ledger_read_chunk = 4096;
    jt_ledger_read_parallel_min = 4u << 20;
    return o;
}

static bool same (const struct seen *a, const struct seen *b)
{
    const jt_ledger_result_t *x = &a->res, *y = &b->res;
    return a->rc == b->rc && !strcmp (a->err, b->err) && !memcmp (a->md, b->md, 32)
           && a->ncb == b->ncb && x->status == y->status && x->nrecords == y->nrecords
           && x->nsegments == y->nsegments && x->last_seq == y->last_seq
           && !strcmp (x->last_hash, y->last_hash) && x->bad_seq == y->bad_seq
           && x->bad_offset == y->bad_offset && !strcmp (x->bad_file, y->bad_file)
           && !strcmp (x->msg, y->msg) && !strcmp (x->last_file, y->last_file)
           && x->last_good_size == y->last_good_size && x->tail_damage == y->tail_damage;
}

/* chunk sizes and threads (0: jt_ledger_read, no pre) */
static const struct way {
    size_t chunk;
    unsigned threads;
} ways[] = { { 1, 0 }, { 2, 0 }, { 3, 0 }, { 64, 0 }, { 1, 1 }, { 2, 2 }, { 1, 3 }, { 3, 5 } };
static int ncases, nbad;
static char statuses[16][16];
static size_t nstatuses;

/* Read path both ways; count a difference. */
static void compare (const char *what, const char *path, const char *head,
                     uint64_t fail_at)
{
    struct seen ref = read_with (path, head, fail_at, 0, 0);
    const char *st = jt_ledger_status_str (ref.res.status);
    size_t k = 0;
    while (k < nstatuses && strcmp (statuses[k], st))
        k++;
    if (k == nstatuses && nstatuses < 16)
        snprintf (statuses[nstatuses++], sizeof (statuses[0]), "%s", st);
    for (size_t w = 0; w < sizeof (ways) / sizeof (ways[0]); w++) {
        struct seen par = read_with (path, head, fail_at, ways[w].chunk, ways[w].threads);
        ncases++;
        if (!same (&ref, &par) && nbad++ < 5)
            diag ("%s, chunk %zu, %u threads: sequential %s seq %" PRIu64 " off %" PRIu64
                  " (%" PRIu64 " callbacks, rc %d), parallel %s seq %" PRIu64
                  " off %" PRIu64 " (%" PRIu64 " callbacks, rc %d)",
                  what, ways[w].chunk, ways[w].threads, st, ref.res.bad_seq, ref.res.bad_offset, ref.ncb,
                  ref.rc, jt_ledger_status_str (par.res.status), par.res.bad_seq,
                  par.res.bad_offset, par.ncb, par.rc);
    }
}

static void spit (const char *path, const char *buf, size_t len)
{
    FILE *f = fopen (path, "wb");
    if (!f || fwrite (buf, 1, len, f) != len || fclose (f) != 0)
        bail_out ("cannot write %s", path);
}

static char *slurp (const char *path, size_t *len)
{
    FILE *f = fopen (path, "rb");
    char *buf;
    long n;
    if (!f || fseek (f, 0, SEEK_END) < 0 || (n = ftell (f)) < 0)
        bail_out ("cannot read %s", path);
    rewind (f);
    if (!(buf = malloc ((size_t) n + 1)) || fread (buf, 1, (size_t) n, f) != (size_t) n)
        bail_out ("cannot read %s", path);
    fclose (f);
    *len = (size_t) n;
    return buf;
}

/* A ledger of n NodeFail records (names of varying length) in dir, rotated
 * at segmax bytes (0: one segment), ids PREFIX:i. */
static void gen (const char *dir, const char *prefix, int n, uint64_t segmax)
{
    jt_error_t err = { "" };
    jt_ledger_result_t res;
    jt_ledger_writer_t *w = jt_ledger_writer_open (dir, segmax, NULL, NULL, &res, &err);
    if (!w)
        bail_out ("open: %s", err.text);
    for (int i = 0; i < n; i++) {
        char p[256];
        const char *pp = p;
        uint64_t first;
        size_t l = (size_t) snprintf (p, sizeof (p),
                                      "{\"v\":1,\"type\":\"NodeFail\",\"id\":\"%s:%d\","
                                      "\"time\":%d,\"nodes\":[\"n%.*s\"]}",
                                      prefix, i, 1000 + i, i % 7 + 1, "1234567");
        if (jt_ledger_writer_append (w, &pp, &l, 1, &first, &err) < 0)
            bail_out ("append: %s", err.text);
    }
    jt_ledger_writer_close (w);
}

int main (void)
{
    char tmpl[] = "/tmp/jt-ledger-par.XXXXXX";
    char *dir = mkdtemp (tmpl), seg[600], path[600], multi[600], head[128];
    size_t len, off[N + 1];
    if (!dir)
        bail_out ("mkdtemp: %s", strerror (errno));
    gen (dir, "p", N, 0);
    snprintf (seg, sizeof (seg), "%s/ledger-00000000000000000001.jtl", dir);
    snprintf (path, sizeof (path), "%s/t.jtl", dir);
    char *text = slurp (seg, &len), *copy = malloc (2 * len + 64);
    int k = 0;
    off[k++] = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n')
            off[k++] = i + 1;
    if (k != N + 1 || !copy)
        bail_out ("generated ledger has %d lines", k - 1);

    /* the good ledger, with and without anchors, and a failing callback */
    spit (path, text, len);
    struct seen ref = read_with (path, NULL, 0, 0, 0);
    struct seen par = read_with (path, NULL, 0, 3, 0);
    ok (ref.res.status == JT_LEDGER_OK && ref.ncb == N && same (&ref, &par),
        "a good ledger of %d records: OK, the same records, both ways", N);
    snprintf (head, sizeof (head), "%" PRIu64 ":%s", ref.res.last_seq, ref.res.last_hash);
    compare ("good", path, head, 0);
    compare ("anchor beyond the end", path,
             "25:0000000000000000000000000000000000000000000000000000000000000000", 0);
    compare ("anchor with another hash", path,
             "7:0000000000000000000000000000000000000000000000000000000000000000", 0);
    for (uint64_t f = 1; f <= N; f++)
        compare ("callback fails", path, NULL, f);

    /* every third byte changed (two ways) */
    for (size_t i = 0; i < len; i += 3)
        for (int flip = 0; flip < 2; flip++) {
            memcpy (copy, text, len);
            copy[i] = flip ? (char) (copy[i] ^ 0x01) : (copy[i] == 'x' ? 'y' : 'x');
            spit (path, copy, len);
            compare ("byte change", path, NULL, 0);
        }
    /* torn at every length */
    for (size_t l = 1; l < len; l += 2) {
        spit (path, text, l);
        compare ("torn", path, head, 0);
    }
    /* whole lines or garbage after the end, after each record */
    for (int r = 1; r <= N; r++) {
        memcpy (copy, text, off[r]);
        memcpy (copy + off[r], "garbage\nmore\n", 13);
        memcpy (copy + off[r] + 13, text + off[r], len - off[r]);
        spit (path, copy, len + 13);
        compare ("lines inserted", path, NULL, 0);
        spit (path, copy, off[r] + 10);
        compare ("lines after the end", path, NULL, 0);
    }
    /* CRLF on the last line; on every line */
    memcpy (copy, text, len - 1);
    memcpy (copy + len - 1, "\r\n", 2);
    spit (path, copy, len + 1);
    compare ("CRLF last", path, NULL, 0);
    size_t l = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n')
            copy[l++] = '\r';
        copy[l++] = text[i];
    }
    spit (path, copy, l);
    compare ("CRLF", path, NULL, 0);
    /* a record deleted, repeated, two swapped */
    for (int r = 0; r < N; r++) {
        memcpy (copy, text, off[r]);
        memcpy (copy + off[r], text + off[r + 1], len - off[r + 1]);
        spit (path, copy, len - (off[r + 1] - off[r]));
        compare ("deleted", path, head, 0);
        memcpy (copy, text, off[r + 1]);
        memcpy (copy + off[r + 1], text + off[r], len - off[r]);
        spit (path, copy, len + off[r + 1] - off[r]);
        compare ("repeated", path, NULL, 0);
        if (r + 1 < N) {
            size_t a = off[r + 1] - off[r], b = off[r + 2] - off[r + 1];
            memcpy (copy, text, len);
            memcpy (copy + off[r], text + off[r + 1], b);
            memcpy (copy + off[r] + b, text + off[r], a);
            spit (path, copy, len);
            compare ("swapped", path, NULL, 0);
        }
    }
    /* a record of another ledger at its seq: good hash, broken chain */
    char other[600], oseg[700];
    snprintf (other, sizeof (other), "%s/other", dir);
    mkdir (other, 0700);
    gen (other, "q", N, 0);
    snprintf (oseg, sizeof (oseg), "%s/ledger-00000000000000000001.jtl", other);
    size_t olen, ooff[N + 1];
    char *otext = slurp (oseg, &olen);
    k = 0;
    ooff[k++] = 0;
    for (size_t i = 0; i < olen && k <= N; i++)
        if (otext[i] == '\n')
            ooff[k++] = i + 1;
    for (int r = 1; r < N; r++) {
        size_t ol = ooff[r + 1] - ooff[r];
        memcpy (copy, text, off[r]);
        memcpy (copy + off[r], otext + ooff[r], ol);
        memcpy (copy + off[r] + ol, text + off[r + 1], len - off[r + 1]);
        spit (path, copy, off[r] + ol + len - off[r + 1]);
        compare ("spliced", path, NULL, 0);
    }
    free (otext);

    /* several segments (each walked on its own): good, and damaged in the
     * middle segment */
    snprintf (multi, sizeof (multi), "%s/multi", dir);
    mkdir (multi, 0700);
    gen (multi, "p", N, 1000);
    compare ("segments", multi, NULL, 0);
    char **segs = NULL;
    size_t nseg = 0;
    jt_error_t err = { "" };
    if (jt_ledger_segments (multi, &segs, &nseg, &err) < 0 || nseg < 3)
        bail_out ("segments: %s (%zu)", err.text, nseg);
    size_t ml;
    char *mt = slurp (segs[1], &ml);
    mt[ml / 2] ^= 0x01;
    spit (segs[1], mt, ml);
    compare ("damage in a middle segment", multi, NULL, 0);
    free (mt);
    jt_ledger_segments_free (segs, nseg);

    is_int (nbad, 0, "%d reads: the parallel hash check's outcome is the sequential one",
            ncases);
    char list[16 * 17 + 1] = "";
    for (size_t i = 0; i < nstatuses; i++) {
        if (i)
            strcat (list, " ");
        strcat (list, statuses[i]);
    }
    ok (nstatuses >= 6, "outcomes covered: %s", list);
    ok (npre > 0, "%" PRIu64 " records had their work done ahead, each its own", npre);

    free (text);
    free (copy);
    char cmd[700];
    snprintf (cmd, sizeof (cmd), "rm -rf %s", dir);
    if (system (cmd) != 0)
        diag ("could not remove %s", dir);
    return done_testing ();
}
