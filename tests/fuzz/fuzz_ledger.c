/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_ledger.c - a ledger segment file as the daemon's recovery and
 * jobtree verify read it (records, hashes, chain), then folded as jobtree
 * verify and slurmctld's replay after a restart fold it (every event, the
 * lease-time checks, Cover's rules on recorded budget content).
 *
 * Two kinds of input: a segment as it is on disk, or, when the input starts
 * with '{', event payloads one per line that the target first chains into
 * a segment (seq, prev, hash), so that mutations of the events reach the
 * fold instead of stopping at the first broken hash. The seeds (contrib/
 * fuzz.sh) are sequences a fold keeps state across: reservations created,
 * created again for the same run under another id (the newer replaces the
 * open one), released and activated; leases started, ended and cut.
 *
 * Every read is chunked as a large segment's is (two records a chunk,
 * jt_ledger_read_test_chunks), so the parallel walk runs on every input:
 * helpers, events parsed ahead, the fold's ahead hint. And verify runs
 * twice, on two threads and on one (the sequential walk): a different
 * outcome (status, where the read stopped, the first violation and its
 * message) aborts, since `jobtree verify -j` promises the serial verdict. */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "jobtree/error.h"
#include "jobtree/ledger.h"
#include "ledger/ledger_record.h"
#include "fuzz.h"

static char dir[64], path[256];

static int count (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    (void) rec;
    (void) err;
    (*(size_t *) arg)++;
    return 0;
}

/* Write the payloads of data (one a line; empty lines skipped) as records
 * chained from genesis: 0, or -1 when one cannot be a record (then the
 * records before it are the segment). */
static int chain (FILE *f, const uint8_t *data, size_t size)
{
    char prev[65], hash[65];
    uint64_t seq = 1;
    size_t from = 0;

    memset (prev, '0', 64);
    prev[64] = '\0';
    for (size_t i = 0; i <= size; i++) {
        if (i < size && data[i] != '\n')
            continue;
        const char *p = (const char *) data + from;
        size_t len = i - from;
        from = i + 1;
        if (!len)
            continue;
        if (jt_record_check (seq, prev, p, len, NULL) < 0)
            return -1;
        char *out = malloc (JT_RECORD_SIZE_MAX (len));
        size_t n = out ? jt_record_format_to (seq, prev, p, len, out, hash) : 0;
        if (!n || fwrite (out, 1, n, f) != n) {
            free (out);
            return -1;
        }
        free (out);
        memcpy (prev, hash, sizeof (prev));
        seq++;
    }
    return 0;
}

/* Abort when the serial verify's outcome differs from the parallel one's. */
static void same_verdict (const char *const *paths, int rc, const jt_ledger_result_t *res,
                          const jt_violation_t *v)
{
    jt_ledger_result_t r1;
    jt_error_t e1;
    jt_violation_t v1;
    int rc1 = jt_ledger_verify_threads (paths, 1, NULL, NULL, 1, &r1, &v1, NULL, &e1);
    if (rc1 != rc || (rc == 0 && (r1.status != res->status || r1.last_seq != res->last_seq
                                  || r1.bad_seq != res->bad_seq
                                  || r1.bad_offset != res->bad_offset
                                  || strcmp (r1.msg, res->msg) || v1.kind != v->kind
                                  || v1.seq != v->seq || strcmp (v1.msg, v->msg)))) {
        fprintf (stderr,
                 "ERROR: fuzz_ledger: verify -j 2 and -j 1 differ: rc %d/%d, status %d/%d, "
                 "last %llu/%llu, bad %llu/%llu at %llu/%llu (%s / %s), violation %d/%d "
                 "at %llu/%llu (%s / %s)\n",
                 rc, rc1, (int) res->status, (int) r1.status,
                 (unsigned long long) res->last_seq, (unsigned long long) r1.last_seq,
                 (unsigned long long) res->bad_seq, (unsigned long long) r1.bad_seq,
                 (unsigned long long) res->bad_offset, (unsigned long long) r1.bad_offset,
                 res->msg, r1.msg, (int) v->kind, (int) v1.kind,
                 (unsigned long long) v->seq, (unsigned long long) v1.seq, v->msg, v1.msg);
        abort ();
    }
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        if (jt_ledger_read_test_chunks (2) < 0)
            abort ();
        char tmpl[] = "/tmp/jt-fuzz-ledger.XXXXXX";
        if (!mkdtemp (tmpl))
            abort ();
        snprintf (dir, sizeof (dir), "%s", tmpl);
        snprintf (path, sizeof (path), "%s/ledger-00000000000000000001.jtl", dir);
    }
    FILE *f = fopen (path, "w");
    if (!f)
        abort ();
    if (size && data[0] == '{')
        (void) chain (f, data, size);
    else if (fwrite (data, 1, size, f) != size)
        abort ();
    if (fclose (f) != 0)
        abort ();
    const char *paths[] = { path };
    jt_ledger_result_t res;
    jt_error_t err;
    jt_violation_t v;
    jt_ledger_fold_t *fold = NULL;
    uint64_t nv = 0;
    size_t n = 0;
    (void) jt_ledger_read (paths, 1, NULL, count, &n, &res, &err);
    int rc = jt_ledger_verify_threads (paths, 1, NULL, NULL, 2, &res, &v, &fold, &err);
    same_verdict (paths, rc, &res, &v);
    if (rc == 0 && fold) {
        jt_fold_reservation_t *r = NULL;
        size_t nr = 0;
        if (jt_ledger_fold_open_resvs (fold, &r, &nr, &err) == 0)
            free (r);
    }
    jt_ledger_fold_destroy (fold);
    jt_ledger_fold_destroy (jt_ledger_fold_replay (paths, 1, &res, &nv, &v, &err));
    return 0;
}
