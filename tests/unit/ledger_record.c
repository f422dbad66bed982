/*
 * ledger_record.c - unit tests of the record format, the hash chain, the
 * reader's named outcomes and the writer's recovery: known-answer vectors,
 * every-byte tamper loop, deletions, swaps, torn tails, rotation.
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
#include <time.h>
#include <unistd.h>

#include "jobtree/ledger.h"
#include "ledger/ledger_record.h"
#include "tap.h"

static const char *const kat_payloads[] = {
    "{\"v\":1,\"type\":\"Start\",\"id\":\"kat:1\",\"time\":1767225600,\"lease\":"
    "\"c1:42:0\",\"run\":\"c1:42\",\"group\":\"0\",\"nodes\":[\"a01\",\"a02\"],"
    "\"gpus\":16,\"role\":\"Active\",\"envelope\":\"west-h100\",\"owner\":\"rai\","
    "\"start\":1767225600}",
    "{\"v\":1,\"type\":\"NodeFail\",\"id\":\"kat:2\",\"time\":1767229200,"
    "\"nodes\":[\"a02\"],\"run\":\"c1:42\"}",
    "{\"v\":1,\"type\":\"End\",\"id\":\"kat:3\",\"time\":1767229200,\"lease\":"
    "\"c1:42:0\",\"run\":\"c1:42\",\"group\":\"0\",\"nodes\":[\"a01\",\"a02\"],"
    "\"gpus\":16,\"role\":\"Active\",\"envelope\":\"west-h100\",\"owner\":\"rai\","
    "\"start\":1767225600,\"end\":1767229200,\"reason\":\"Fail\"}",
};
/* Produced by this code and checked independently with sha256sum(1) (see
 * docs/ledger-format.md, "Worked example"). */
static const char *const kat_hashes[] = {
    "3062bd489b64f17f20672e38c910b3c16d9ade8ba5b54e102aa7ee9dbea7e1cb",
    "200b787b48b8e4de77b0d876f731c8d2fb34f9d1ee4964f4ada657b4a68205b2",
    "8ff1f737fbcabeaa5796103461a573ce20f19a7fb879eb5eec97cd6d91b2c3b9",
};

static char *slurp (const char *path, size_t *len)
{
    FILE *f = fopen (path, "rb");
    char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    fseek (f, 0, SEEK_END);
    n = ftell (f);
    fseek (f, 0, SEEK_SET);
    buf = malloc ((size_t) n + 1);
    if (buf && fread (buf, 1, (size_t) n, f) != (size_t) n) {
        free (buf);
        buf = NULL;
    }
    fclose (f);
    if (buf) {
        buf[n] = '\0';
        *len = (size_t) n;
    }
    return buf;
}

static void spit (const char *path, const char *buf, size_t len)
{
    FILE *f = fopen (path, "wb");
    if (!f || fwrite (buf, 1, len, f) != len)
        bail_out ("cannot write %s", path);
    fclose (f);
}

static jt_ledger_result_t readone (const char *path, const char *head)
{
    jt_ledger_result_t res;
    jt_error_t err = { "" };
    if (jt_ledger_read (&path, 1, head, NULL, NULL, &res, &err) < 0)
        bail_out ("read: %s", err.text);
    return res;
}

static void test_kat (const char *dir)
{
    jt_error_t err = { "" };
    jt_ledger_result_t res;
    jt_ledger_writer_t *w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err);
    ok (w != NULL, "writer opens an empty directory%s", err.text);
    is (jt_ledger_status_str (res.status), "EMPTY", "a new ledger is EMPTY");
    size_t lens[3];
    for (int i = 0; i < 3; i++)
        lens[i] = strlen (kat_payloads[i]);
    uint64_t first = 0;
    ok (jt_ledger_writer_append (w, kat_payloads, lens, 3, &first, &err) == 0,
        "group commit of three records");
    is_int (first, 1, "first seq is 1");
    is_int (jt_ledger_writer_last_seq (w), 3, "last seq 3");
    jt_ledger_writer_close (w);

    char path[1024];
    snprintf (path, sizeof (path), "%s/ledger-00000000000000000001.jtl", dir);
    res = readone (path, NULL);
    is (jt_ledger_status_str (res.status), "OK", "reads back OK");
    is_int (res.nrecords, 3, "three records");
    size_t len;
    char *text = slurp (path, &len);
    char *line = text;
    const char *prev = JT_LEDGER_GENESIS;
    for (int i = 0; i < 3 && line; i++) {
        char want[4096], *nl = strchr (line, '\n');
        snprintf (want, sizeof (want), "JT1 %d %s %zu %s %s", i + 1, prev,
                  strlen (kat_payloads[i]), kat_payloads[i], kat_hashes[i]);
        if (nl)
            *nl = '\0';
        is (line, want, "known-answer record %d (hash %.12s...)", i + 1, kat_hashes[i]);
        prev = kat_hashes[i];
        line = nl ? nl + 1 : NULL;
    }
    is (res.last_hash, kat_hashes[2], "last hash is the third KAT hash");
    free (text);
}

/* Append to w a NodeFail event (id, time, node); bail out on failure. */
static void append_nodefail (jt_ledger_writer_t *w, const char *id, int time,
                             const char *node)
{
    char p[256];
    const char *pp = p;
    uint64_t first;
    jt_error_t err = { "" };
    size_t l = (size_t) snprintf (p, sizeof (p),
                                  "{\"v\":1,\"type\":\"NodeFail\",\"id\":\"%s\","
                                  "\"time\":%d,\"nodes\":[\"%s\"]}",
                                  id, time, node);
    if (jt_ledger_writer_append (w, &pp, &l, 1, &first, &err) < 0)
        bail_out ("append: %s", err.text);
}

/* Generate a ledger of n records; return its text. */
static char *gen (const char *dir, int n, size_t *len)
{
    jt_error_t err = { "" };
    jt_ledger_result_t res;
    jt_ledger_writer_t *w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err);
    if (!w)
        bail_out ("open: %s", err.text);
    for (int i = 0; i < n; i++) {
        char id[32], node[32];
        snprintf (id, sizeof (id), "t:%d", i);
        snprintf (node, sizeof (node), "n%d", i);
        append_nodefail (w, id, 1000 + i, node);
    }
    jt_ledger_writer_close (w);
    char path[1024];
    snprintf (path, sizeof (path), "%s/ledger-00000000000000000001.jtl", dir);
    return slurp (path, len);
}

/* Byte offsets where each record starts (n+1 entries, last = len). */
static void offsets (const char *text, size_t len, size_t *off, int n)
{
    int k = 0;
    off[k++] = 0;
    for (size_t i = 0; i < len && k <= n; i++)
        if (text[i] == '\n')
            off[k++] = i + 1;
}

static void test_tamper (const char *dir)
{
    enum { N = 6 };
    size_t len, off[N + 1] = { 0 };
    char *text = gen (dir, N, &len), path[1024];
    snprintf (path, sizeof (path), "%s/t.jtl", dir);
    offsets (text, len, off, N);
    jt_ledger_result_t res;
    int bad = 0, checked = 0;
    char *copy = malloc (len);

    spit (path, text, len);
    res = readone (path, NULL);
    is (jt_ledger_status_str (res.status), "OK", "generated ledger is OK");
    char head[128];
    snprintf (head, sizeof (head), "%" PRIu64 ":%s", res.last_seq, res.last_hash);

    /* every byte of every record, two different changes each */
    for (int r = 0; r < N; r++) {
        for (size_t i = off[r]; i < off[r + 1]; i++) {
            for (int flip = 0; flip < 2; flip++) {
                memcpy (copy, text, len);
                copy[i] = flip ? (char) (copy[i] ^ 0x01) : (copy[i] == 'x' ? 'y' : 'x');
                spit (path, copy, len);
                res = readone (path, NULL);
                checked++;
                if (res.status == JT_LEDGER_OK || res.bad_seq != (uint64_t) r + 1) {
                    if (bad++ < 5)
                        diag ("byte %zu of record %d: %s at seq %" PRIu64, i, r + 1,
                              jt_ledger_status_str (res.status), res.bad_seq);
                }
            }
        }
    }
    is_int (bad, 0, "each of %d single-byte changes fails at its record's seq",
            checked);

    /* deleting any record */
    bad = 0;
    for (int r = 0; r < N; r++) {
        size_t l = 0;
        memcpy (copy, text, off[r]);
        l = off[r];
        memcpy (copy + l, text + off[r + 1], len - off[r + 1]);
        l += len - off[r + 1];
        spit (path, copy, l);
        res = readone (path, head);
        if (res.status == JT_LEDGER_OK || res.bad_seq != (uint64_t) r + 1) {
            diag ("deleting record %d: %s at seq %" PRIu64, r + 1,
                  jt_ledger_status_str (res.status), res.bad_seq);
            bad++;
        }
    }
    is_int (bad, 0, "deleting any record fails at its seq (last one: with --head)");
    spit (path, text, off[N - 1]);
    res = readone (path, head);
    is (jt_ledger_status_str (res.status), "BADHEAD", "a cut tail is BADHEAD");
    res = readone (path, NULL);
    is (jt_ledger_status_str (res.status), "OK",
        "without an anchor a cut at a record boundary is undetectable (documented)");

    /* swapping any two records */
    bad = 0;
    for (int a = 0; a < N; a++)
        for (int b = a + 1; b < N; b++) {
            size_t l = 0;
            for (int r = 0; r < N; r++) {
                int src = r == a ? b : r == b ? a : r;
                memcpy (copy + l, text + off[src], off[src + 1] - off[src]);
                l += off[src + 1] - off[src];
            }
            spit (path, copy, l);
            res = readone (path, NULL);
            if (res.status != JT_LEDGER_BADSEQ || res.bad_seq != (uint64_t) a + 1) {
                diag ("swapping %d and %d: %s at seq %" PRIu64, a + 1, b + 1,
                      jt_ledger_status_str (res.status), res.bad_seq);
                bad++;
            }
        }
    is_int (bad, 0, "swapping any two records is BADSEQ at the first of them");

    /* torn tail vs garbage in the middle */
    memcpy (copy, text, len);
    spit (path, copy, off[N - 1] + 20);
    res = readone (path, NULL);
    is (jt_ledger_status_str (res.status), "TRUNCATED", "half a record at the end");
    is_int (res.bad_offset, off[N - 1], "offset of the torn record");
    is_int (res.last_good_size, off[N - 1], "good prefix ends before it");
    char *g = malloc (len + 64);
    memcpy (g, text, len);
    memcpy (g + len, "garbage\x01 more", 13);
    spit (path, g, len + 13);
    res = readone (path, NULL);
    is (jt_ledger_status_str (res.status), "TRUNCATED",
        "unusable bytes without a line end after the last record: a torn tail");
    is_int (res.bad_seq, N + 1, "at seq N+1");
    memcpy (g + len, "garbage\nmore garbage\n", 21);
    spit (path, g, len + 21);
    res = readone (path, NULL);
    is (jt_ledger_status_str (res.status), "CORRUPT",
        "whole lines after the last record: damage, which a torn write cannot leave");
    ok (res.tail_damage && res.bad_seq == N + 1 && res.bad_offset == len,
        "a damaged tail, at seq N+1, offset %zu", len);
    memcpy (g, text, off[3]);
    memcpy (g + off[3], "garbage\n", 8);
    memcpy (g + off[3] + 8, text + off[3], len - off[3]);
    spit (path, g, len + 8);
    res = readone (path, NULL);
    is (jt_ledger_status_str (res.status), "CORRUPT", "garbage in the middle");
    is_int (res.bad_offset, off[3], "offset of the garbage");
    is_int (res.bad_seq, 4, "at seq 4");
    unlink (path);
    free (g);
    free (copy);
    free (text);
}

/* Append half a record to the ledger in dir (a torn write). */
static void tear (const char *dir)
{
    char path[1024];
    snprintf (path, sizeof (path), "%s/ledger-00000000000000000001.jtl", dir);
    FILE *f = fopen (path, "a");
    if (!f || fputs ("JT1 9 00ab half a rec", f) < 0 || fclose (f) != 0)
        bail_out ("tear %s", path);
}

static void test_recovery (const char *dir)
{
    jt_error_t err = { "" };
    jt_ledger_result_t res;
    size_t len;
    char *text = gen (dir, 2, &len), path[1024];
    snprintf (path, sizeof (path), "%s/ledger-00000000000000000001.jtl", dir);
    tear (dir);
    jt_ledger_writer_t *w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err);
    ok (w != NULL, "writer opens a ledger with a torn tail%s", err.text);
    is (jt_ledger_status_str (res.status), "TRUNCATED", "and reports TRUNCATED");
    is_int (res.bad_seq, 3, "at seq 3");
    char torn[1100];
    snprintf (torn, sizeof (torn), "%s/torn-00000000000000000003.bin", dir);
    size_t tlen = 0;
    char *tbytes = slurp (torn, &tlen);
    ok (tbytes && tlen == 21 && !memcmp (tbytes, "JT1 9 00ab half a rec", tlen),
        "the cut bytes are kept in torn-<seq>.bin (%zu bytes)", tlen);
    free (tbytes);
    const char *p =
        "{\"v\":1,\"type\":\"NodeFail\",\"id\":\"r\",\"time\":1,\"nodes\":[\"x\"]}";
    size_t l = strlen (p);
    uint64_t first = 0;
    ok (w && jt_ledger_writer_append (w, &p, &l, 1, &first, &err) == 0, "append after");
    is_int (first, 3, "continues at seq 3");
    jt_ledger_writer_close (w);
    res = readone (path, NULL);
    is (jt_ledger_status_str (res.status), "OK", "chain intact after recovery");

    /* garbage in the middle: refuse with the offset */
    free (text);
    text = slurp (path, &len);
    char *nl = strchr (text, '\n');
    nl[-3] ^= 1;
    spit (path, text, len);
    w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err);
    ok (w == NULL, "writer refuses a ledger corrupt in the middle");
    char want[4096];
    snprintf (want, sizeof (want),
              "CORRUPT at seq 1, %s offset 0: record hash mismatch followed by good "
              "records; refusing to append (run `jobtree verify %s`)",
              path, dir);
    is (err.text, want, "and names seq, file and offset");
    unlink (path);
    free (text);
}

/* The file of the durable head in dir ("" when none). */
static const char *head_file (const char *dir)
{
    static char buf[256];
    char path[1024];
    size_t n = 0;
    snprintf (path, sizeof (path), "%s/%s", dir, JT_LEDGER_HEAD_FILE);
    char *t = slurp (path, &n);
    snprintf (buf, sizeof (buf), "%s", t ? t : "");
    free (t);
    return buf;
}

/* Open dir's ledger (opts: may cut a damaged tail); "" or the refusal. */
static const char *reopen (const char *dir, bool cut, jt_ledger_result_t *res)
{
    static char out[8192];
    jt_error_t err = { "" };
    jt_ledger_writer_opts_t o = { .truncate_damaged_tail = cut };
    jt_ledger_writer_t *w = jt_ledger_writer_open_opts (dir, &o, res, &err);
    snprintf (out, sizeof (out), "%s", w ? "" : err.text);
    jt_ledger_writer_close (w);
    return out;
}

/* Never cut what may have been acknowledged (issue 9): the last record
 * damaged by one byte, a CRLF conversion, a record cut away at a record
 * boundary, another ledger in its place; the operator's way out. */
static void test_damaged_tail (const char *dir)
{
    enum { N = 4 };
    jt_error_t err = { "" };
    size_t len, off[N + 1] = { 0 };
    char *text = gen (dir, N, &len), path[1024], want[8192], *copy = malloc (2 * len);
    jt_ledger_result_t res;
    const char *got;

    snprintf (path, sizeof (path), "%s/ledger-00000000000000000001.jtl", dir);
    offsets (text, len, off, N);
    {
        char h[128];
        jt_ledger_result_t r0 = readone (path, NULL);
        snprintf (h, sizeof (h), "%d:%s\n", N, r0.last_hash);
        is (head_file (dir), h, "closing the writer saved the durable head SEQ:HASH");
    }

    /* every single-byte change in the last record: never cut as torn */
    int cut = 0, checked = 0;
    for (size_t i = off[N - 1]; i < len; i++) {
        memcpy (copy, text, len);
        copy[i] ^= (char) (copy[i] == '\n' ? 0x03 : 0x01);
        spit (path, copy, len);
        got = reopen (dir, false, &res);
        checked++;
        if (!got[0] || res.bad_seq != N) {
            if (cut++ < 3)
                diag ("byte %zu: %s at seq %" PRIu64 ": '%.120s'", i,
                      jt_ledger_status_str (res.status), res.bad_seq, got);
            spit (path, text, len); /* reopen may have cut it: restore */
        }
    }
    is_int (cut, 0, "each of %d one-byte changes of the last record: the writer refuses",
            checked);
    {
        char h[128];
        spit (path, text, len);
        jt_ledger_result_t r0 = readone (path, NULL);
        snprintf (h, sizeof (h), "%d:%s\n", N, r0.last_hash);
        is (head_file (dir), h, "the refusals left the durable head alone");
    }
    memcpy (copy, text, len);
    copy[off[N - 1] + 100] ^= 1;
    spit (path, copy, len);
    got = reopen (dir, false, &res);
    snprintf (want, sizeof (want),
              "CORRUPT at seq %d, %s offset %zu: record hash mismatch (a complete "
              "record) at the end of the last segment: damage, not a torn write; "
              "refusing to append (an operator may cut it: --truncate-damaged-tail)",
              N, path, off[N - 1]);
    want[JT_ERRMSG_MAX - 1] = '\0';
    is (got, want, "a flipped payload byte in the last record: refused, named");

    /* CRLF: every record complete but ended by CR LF */
    size_t cl = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n')
            copy[cl++] = '\r';
        copy[cl++] = text[i];
    }
    spit (path, copy, cl);
    got = reopen (dir, false, &res);
    snprintf (want, sizeof (want), "CORRUPT at seq 1, %s offset 0: record not ended by LF "
              "(a complete record) at the end of the last segment: damage", path);
    ok (!strncmp (got, want, strlen (want)), "a CRLF-converted segment: refused: %s", got);
    struct stat sb;
    ok (stat (path, &sb) == 0 && (size_t) sb.st_size == cl, "and not cut");

    /* the last record cut away at a record boundary: the head file knows */
    spit (path, text, off[N - 1]);
    got = reopen (dir, false, &res);
    snprintf (want, sizeof (want),
              "durable head %s/%s: seq %d was durable, maybe acknowledged, but the "
              "ledger ends at seq %d; refusing to append",
              dir, JT_LEDGER_HEAD_FILE, N, N - 1);
    ok (!strncmp (got, want, strlen (want)), "a record cut at a boundary: refused: %s",
        got);
    /* ... or its end replaced by a torn-looking tail */
    memcpy (copy, text, off[N - 1] + 30);
    spit (path, copy, off[N - 1] + 30);
    got = reopen (dir, false, &res);
    ok (strstr (got, "seq 4 was durable") && strstr (got, "reads as a torn tail"),
        "a durable record that now reads as a torn tail: refused: %.90s", got);
    ok (stat (path, &sb) == 0 && (size_t) sb.st_size == off[N - 1] + 30, "and not cut");

    /* another ledger in its place */
    {
        char other[1100];
        size_t olen;
        snprintf (other, sizeof (other), "%s/other", dir);
        mkdir (other, 0700);
        jt_ledger_writer_t *ow = jt_ledger_writer_open (other, 0, NULL, NULL, &res, &err);
        for (int i = 0; ow && i < N + 1; i++) {
            char id[32];
            snprintf (id, sizeof (id), "other:%d", i);
            append_nodefail (ow, id, 5000 + i, "m");
        }
        jt_ledger_writer_close (ow);
        snprintf (other, sizeof (other), "%s/other/ledger-00000000000000000001.jtl", dir);
        char *t2 = slurp (other, &olen);
        spit (path, t2, olen);
        got = reopen (dir, false, &res);
        ok (strstr (got, "rewritten or replaced; refusing to append") != NULL,
            "a ledger that is not the one the head was saved for: refused: %.80s", got);
        free (t2);
    }

    /* the operator's decision: cut the damaged tail, accept the loss */
    memcpy (copy, text, len);
    copy[off[N - 1] + 100] ^= 1;
    spit (path, copy, len);
    got = reopen (dir, true, &res);
    is (got, "", "--truncate-damaged-tail: the writer opens");
    ok (res.status == JT_LEDGER_CORRUPT && res.cut_seq == N && res.durable_seq == N,
        "reporting the cut from seq %d, durable up to %d", N, N);
    char kept[1100];
    size_t klen = 0;
    snprintf (kept, sizeof (kept), "%s/damaged-%020d.bin", dir, N);
    char *k = slurp (kept, &klen);
    ok (k && klen == len - off[N - 1] && !memcmp (k, copy + off[N - 1], klen),
        "the cut bytes are kept in damaged-<seq>.bin");
    free (k);
    res = readone (path, NULL);
    char h[128];
    snprintf (h, sizeof (h), "%d:%s\n", N - 1, res.last_hash);
    is (head_file (dir), h, "and the durable head is the ledger's as recovered");
    is (reopen (dir, false, &res), "", "which opens again without the operator");

    /* a head file that is not SEQ:HASH */
    snprintf (want, sizeof (want), "%s/%s", dir, JT_LEDGER_HEAD_FILE);
    spit (want, "3:abc\n", 6);
    got = reopen (dir, false, &res);
    ok (strstr (got, "is not SEQ:HASH") != NULL, "an unreadable durable head: refused");
    unlink (want);
    free (copy);
    free (text);
}

/* A stray empty segment after the last (one `touch`): verify and the
 * writer name it; a rightly named one (a crash after rotation) is fine. */
static void test_empty_segment (const char *dir)
{
    size_t len;
    char *text = gen (dir, 3, &len), stray[1100], want[4096];
    jt_ledger_result_t res;

    free (text);
    snprintf (stray, sizeof (stray), "%s/ledger-00000000000000000009.jtl", dir);
    spit (stray, "", 0);
    res = readone (dir, NULL);
    snprintf (want, sizeof (want),
              "BADSEQ %s: empty last segment named for seq 9, the next record is seq 4 "
              "(remove it)", stray);
    char got[8192];
    snprintf (got, sizeof (got), "%s %s: %s", jt_ledger_status_str (res.status),
              res.bad_file, res.msg);
    is (got, want, "a misnamed empty last segment is BADSEQ, named");
    const char *r = reopen (dir, false, &res);
    ok (strstr (r, "empty last segment named for seq 9") != NULL,
        "the writer refuses to append into it: %.60s", r);
    unlink (stray);
    snprintf (stray, sizeof (stray), "%s/ledger-00000000000000000004.jtl", dir);
    spit (stray, "", 0);
    res = readone (dir, NULL);
    is (jt_ledger_status_str (res.status), "OK", "an empty last segment named for the next seq is fine");
    jt_error_t err = { "" };
    jt_ledger_writer_t *w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err);
    append_nodefail (w, "after", 9, "n");
    jt_ledger_writer_close (w);
    res = readone (dir, NULL);
    ok (res.status == JT_LEDGER_OK && res.nrecords == 4 && res.nsegments == 2,
        "and the writer appends into it");
}

static double cpu_s (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* Recovery is linear in the segment: a full 64 MiB segment of
 * header-looking strings with 1 MiB lengths after a bad record (each made
 * the old reader scan up to 1 MiB again: about 10 s of CPU without
 * sanitizers; one pass here, 0.03 s). Speed is a benchmark's business,
 * never a unit test's bound (it would fail on a slow or loaded machine):
 * the CPU time is reported as a diagnostic only; what is asserted is the
 * verdict on each shape. */
static void test_linear (const char *dir)
{
    enum { SIZE = 64 << 20 };
    static const char fake[] =
        "JT1 7 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef "
        "1048576 ";
    char *buf = malloc (SIZE), path[1024];
    size_t k = sizeof (fake) - 1;
    jt_ledger_result_t res;

    for (size_t i = 0; i + k <= SIZE; i += k)
        memcpy (buf + i, fake, k);
    memset (buf + SIZE - SIZE % k, ' ', SIZE % k);
    snprintf (path, sizeof (path), "%s/ledger-00000000000000000001.jtl", dir);
    spit (path, buf, SIZE);
    double t0 = cpu_s ();
    res = readone (path, NULL);
    double t = cpu_s () - t0;
    is (jt_ledger_status_str (res.status), "TRUNCATED",
        "64 MiB of header-looking bytes without a line end: a torn tail");
    diag ("read in %.2f s of CPU", t);
    buf[SIZE - 1] = '\n';
    spit (path, buf, SIZE);
    t0 = cpu_s ();
    res = readone (path, NULL);
    t = cpu_s () - t0;
    is (jt_ledger_status_str (res.status), "CORRUPT", "with a line end: damage");
    diag ("read in %.2f s of CPU", t);
    unlink (path);
    free (buf);
}

static void test_rotation (const char *dir)
{
    jt_error_t err = { "" };
    jt_ledger_result_t res;
    jt_ledger_writer_t *w = jt_ledger_writer_open (dir, 300, NULL, NULL, &res, &err);
    for (int i = 0; w && i < 10; i++) {
        char id[32];
        snprintf (id, sizeof (id), "s%d", i);
        append_nodefail (w, id, 1, "n");
    }
    jt_ledger_writer_close (w);
    char **segs;
    size_t n;
    jt_ledger_segments (dir, &segs, &n, &err);
    ok (n > 2, "segments rotate by size (%zu segments)", n);
    struct stat sb;
    ok (n && stat (segs[0], &sb) == 0 && (sb.st_mode & 0777) == 0640, "mode 0640");
    res = readone (dir, NULL);
    is (jt_ledger_status_str (res.status), "OK", "chain continues across segments");
    is_int (res.nrecords, 10, "all ten records");
    w = jt_ledger_writer_open (dir, 300, NULL, NULL, &res, &err);
    ok (w != NULL, "reopen a rotated ledger");
    jt_ledger_writer_close (w);
    if (n > 2) {
        unlink (segs[1]);
        res = readone (dir, NULL);
        is (jt_ledger_status_str (res.status), "BADSEQ",
            "a missing segment is BADSEQ");
    }
    for (size_t i = 0; i < n; i++)
        unlink (segs[i]);
    jt_ledger_segments_free (segs, n);
}

/* jt_ledger_read_at of one segment from the record of seq k at off[k-1]:
 * "STATUS nrecords" */
static const char *read_at (const char *path, uint64_t off, uint64_t seq)
{
    static char out[64];
    jt_ledger_result_t res;
    jt_error_t err = { "" };
    if (jt_ledger_read_at (&path, 1, off, seq, true, NULL, NULL, &res, &err) < 0)
        bail_out ("read_at: %s", err.text);
    snprintf (out, sizeof (out), "%s %" PRIu64, jt_ledger_status_str (res.status),
              res.nrecords);
    return out;
}

/* A read from a record's offset (a checkpoint's, issue 35): the records
 * before it are not read, the chain is anchored at it and checked on. */
static void test_read_at (const char *dir)
{
    enum { N = 8, K = 5 };
    size_t len, off[N + 1] = { 0 };
    char *text = gen (dir, N, &len), path[1024];
    snprintf (path, sizeof (path), "%s/ledger-00000000000000000001.jtl", dir);
    offsets (text, len, off, N);
    is (read_at (path, off[K - 1], K), "OK 4", "from record 5's offset: records 5 to 8");
    is (read_at (path, off[K - 1], K + 1), "BADSEQ 0",
        "record 5's offset said to be seq 6: BADSEQ");
    is (read_at (path, off[K - 1] + 3, K), "CORRUPT 0",
        "an offset inside a record: not a record (CORRUPT)");
    is (read_at (path, len, N + 1), "BADSEQ 0", "an offset at the segment's end: BADSEQ");
    /* a damaged record before the start is not read */
    char *t = malloc (len);
    if (!t)
        bail_out ("out of memory");
    memcpy (t, text, len);
    t[off[1] + 10] ^= 1;
    spit (path, t, len);
    is (read_at (path, off[K - 1], K), "OK 4", "record 2 damaged: not read from record 5");
    is (jt_ledger_status_str (readone (path, NULL).status), "CORRUPT",
        "(a read from the start finds it)");
    /* record 5 replaced by one with a good hash of its own (another payload
     * of the same length): record 6 does not chain from it */
    memcpy (t, text, len);
    jt_record_t rec;
    if (jt_record_parse (t + off[K - 1], len - off[K - 1], &rec) != JT_RECORD_OK)
        bail_out ("record 5 does not parse");
    char *pl = strndup (rec.payload, rec.len), *line, hash[65];
    size_t ll;
    jt_error_t err = { "" };
    char *n = strstr (pl, "\"n4\""); /* record 5 is gen's 5th: node n4 */
    if (!pl || !n)
        bail_out ("record 5's payload: %s", pl ? pl : "out of memory");
    n[2] = '9';
    if (jt_record_format (K, rec.prev, pl, rec.len, &line, &ll, hash, &err) < 0
        || ll != off[K] - off[K - 1])
        bail_out ("format: %s", err.text);
    memcpy (t + off[K - 1], line, ll);
    spit (path, t, len);
    is (read_at (path, off[K - 1], K), "BADCHAIN 1",
        "record 5 replaced, its own hash good: record 6 does not chain from it");
    free (line);
    free (pl);
    free (t);
    free (text);
    unlink (path);
}

/* The prev and hash fields: every byte of them replaced by each of the
 * 256 values frames as MALFORMED unless it is a lowercase hex digit (then
 * OK: the hash is not checked here), and the record cut inside them is
 * INCOMPLETE (jt_record_parse_frame's 64-digit fields). */
static void test_frame_hex (const char *dir)
{
    size_t len;
    char *text = gen (dir, 1, &len), *copy = malloc (len);
    jt_record_t rec;
    int bad = 0, n = 0;
    if (!copy || jt_record_parse (text, len, &rec) != JT_RECORD_OK)
        bail_out ("frame_hex: no record");
    size_t fields[2] = { (size_t) (strchr (text + 4, ' ') - text) + 1,
                         (size_t) (rec.payload - text) + rec.len + 1 };
    for (int f = 0; f < 2; f++)
        for (size_t i = fields[f]; i < fields[f] + 64; i++) {
            for (int b = 0; b < 256; b++) {
                memcpy (copy, text, len);
                copy[i] = (char) b;
                bool hex = (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f');
                jt_record_status_t st = jt_record_parse_frame (copy, len, &rec);
                n++;
                if (st != (hex ? JT_RECORD_OK : JT_RECORD_MALFORMED) && bad++ < 5)
                    diag ("byte %zu = 0x%02x: status %d", i, b, (int) st);
            }
            n++;
            if (jt_record_parse_frame (text, i, &rec) != JT_RECORD_INCOMPLETE && bad++ < 5)
                diag ("cut at byte %zu: not incomplete", i);
        }
    is_int (bad, 0, "%d changes and cuts of the prev and hash fields frame as they must",
            n);
    free (copy);
    free (text);
}

int main (void)
{
    char tmpl[] = "/tmp/jt-ledger-rec.XXXXXX";
    char *dir = mkdtemp (tmpl);
    char sub[512];
    if (!dir)
        bail_out ("mkdtemp: %s", strerror (errno));
    static const struct {
        const char *name;
        void (*fn) (const char *dir);
    } tests[] = {
        { "kat", test_kat },
        { "tamper", test_tamper },
        { "recovery", test_recovery },
        { "damaged", test_damaged_tail },
        { "empty", test_empty_segment },
        { "linear", test_linear },
        { "rotation", test_rotation },
        { "read_at", test_read_at },
        { "frame_hex", test_frame_hex },
    };
    for (size_t i = 0; i < sizeof (tests) / sizeof (tests[0]); i++) {
        snprintf (sub, sizeof (sub), "%s/%s", dir, tests[i].name);
        mkdir (sub, 0700);
        tests[i].fn (sub);
    }
    char cmd[600];
    snprintf (cmd, sizeof (cmd), "rm -rf %s", dir);
    if (system (cmd) != 0)
        diag ("could not remove %s", dir);
    return done_testing ();
}
