/*
 * ledger_pre.c - events parsed ahead on the reader's hash thread
 * (jt_ledger_read_pre, jt_ledger_pre_events, jt_record_event: issue 9)
 * change no verdict. Ledgers of Starts and Ends with one defect each (a
 * payload that does not parse, one not in canonical form, an End of no
 * lease, a lease started twice, a \u0000 in a node) are verified and
 * replayed with the parallel read at chunk sizes 1, 2, 3 and 64 and with the
 * sequential one (no parse ahead): the same result, first violation (kind,
 * seq, message), violation count and fold counts every time. A report-like
 * reader that takes each record's event through jt_record_event sees every
 * event once, the same as a parse of its payload, and may change its strings
 * (jt_event_set: an event parsed ahead keeps its strings in one block with
 * it, which jt_record_event gives copies of their own before handing it
 * over).
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
#include <unistd.h>

#include "jobtree/ledger.h"
#include "ledger/ledger_record.h"
#include "tap.h"

enum { N = 40 };

static char *lease_ev (int i, bool end)
{
    char *s = NULL;
    int lease = i / 2;
    if (asprintf (&s,
                  "{\"v\":1,\"type\":\"%s\",\"id\":\"e:%d\",\"time\":%d,"
                  "\"lease\":\"c:%d:0\",\"run\":\"c:%d\",\"group\":\"0\","
                  "\"nodes\":[\"n%d\"],\"gpus\":8,\"role\":\"Active\","
                  "\"envelope\":\"west\",\"owner\":\"rai\",\"start\":%d%s}",
                  end ? "End" : "Start", i, 1000 + i, lease, lease, lease, 1000 + 2 * lease,
                  end ? ",\"end\":5000,\"reason\":\"End\"" : "")
        < 0)
        bail_out ("out of memory");
    return s;
}

/* A ledger in dir: Start, End, Start, End, ... with payload `bad` at
 * index at (at < 0: none). */
static void gen (const char *dir, int at, const char *bad)
{
    jt_error_t err = { "" };
    jt_ledger_result_t res;
    jt_ledger_writer_t *w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err);
    if (!w)
        bail_out ("open: %s", err.text);
    for (int i = 0; i < N; i++) {
        char *p = i == at ? strdup (bad) : lease_ev (i, i % 2);
        const char *pp = p;
        size_t l = strlen (p);
        uint64_t first;
        if (jt_ledger_writer_append (w, &pp, &l, 1, &first, &err) < 0)
            bail_out ("append: %s", err.text);
        free (p);
    }
    jt_ledger_writer_close (w);
}

struct outcome {
    jt_ledger_result_t res;
    jt_violation_t v, rv;
    uint64_t nviol, events, starts, ends, open;
    int rc;
};

static struct outcome run (const char *dir, size_t chunk)
{
    struct outcome o;
    jt_error_t err = { "" };
    const char *p = dir;
    jt_ledger_result_t rres;

    memset (&o, 0, sizeof (o));
    jt_ledger_read_chunk = chunk ? chunk : 4096;
    jt_ledger_read_parallel_min = chunk ? 0 : SIZE_MAX;
    o.rc = jt_ledger_verify (&p, 1, NULL, NULL, &o.res, &o.v, NULL, &err);
    jt_ledger_fold_t *f = jt_ledger_fold_replay (&p, 1, &rres, &o.nviol, &o.rv, &err);
    if (f)
        jt_ledger_fold_counts (f, &o.events, &o.starts, &o.ends, &o.open);
    else
        o.rc = -2;
    jt_ledger_fold_destroy (f);
    jt_ledger_read_chunk = 4096;
    jt_ledger_read_parallel_min = 4u << 20;
    return o;
}

static bool same (const struct outcome *a, const struct outcome *b)
{
    return a->rc == b->rc && a->res.status == b->res.status
           && a->res.nrecords == b->res.nrecords && a->v.kind == b->v.kind
           && a->v.seq == b->v.seq && !strcmp (a->v.msg, b->v.msg)
           && a->rv.kind == b->rv.kind && a->rv.seq == b->rv.seq
           && !strcmp (a->rv.msg, b->rv.msg) && a->nviol == b->nviol
           && a->events == b->events && a->starts == b->starts && a->ends == b->ends
           && a->open == b->open;
}

static void rmdir_all (const char *dir)
{
    char cmd[700];
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", dir);
    if (system (cmd) != 0)
        diag ("could not remove %s", dir);
}

static int ngood;

static void check (const char *name, int at, const char *bad, jt_violation_kind_t want)
{
    char tmpl[] = "/tmp/jt-ledger-pre.XXXXXX";
    char *dir = mkdtemp (tmpl);
    static const size_t chunks[] = { 1, 2, 3, 64 };
    int differ = 0;

    if (!dir)
        bail_out ("mkdtemp: %s", strerror (errno));
    gen (dir, at, bad);
    struct outcome ref = run (dir, 0);
    for (size_t c = 0; c < sizeof (chunks) / sizeof (chunks[0]); c++) {
        struct outcome par = run (dir, chunks[c]);
        if (!same (&ref, &par)) {
            differ++;
            diag ("%s, chunk %zu: sequential %s seq %" PRIu64 " '%s' (%" PRIu64
                  " in replay), parallel %s seq %" PRIu64 " '%s' (%" PRIu64 ")",
                  name, chunks[c], jt_violation_str (ref.v.kind), ref.v.seq, ref.v.msg,
                  ref.nviol, jt_violation_str (par.v.kind), par.v.seq, par.v.msg,
                  par.nviol);
        }
    }
    ok (ref.v.kind == want && differ == 0,
        "%s: verify says %s at seq %" PRIu64 " ('%s'), replay counts %" PRIu64
        "; the same at chunks 1, 2, 3, 64",
        name, jt_violation_str (ref.v.kind), ref.v.seq, ref.v.msg, ref.nviol);
    ngood += ref.v.kind == JT_VIOL_NONE;
    rmdir_all (dir);
}

static int taken;

static int take_cb (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    int *bad = arg;
    jt_error_t e1 = { "" }, e2 = { "" };
    jt_event_t *a = jt_record_event (rec, NULL, &e1);
    jt_event_t *b = jt_event_from_json (rec->payload, rec->len, &e2);
    char *sa = a ? jt_event_to_json (a, err) : NULL, *sb = b ? jt_event_to_json (b, err) : NULL;
    if (!sa || !sb || strcmp (sa, sb))
        (*bad)++;
    taken += rec->pre != NULL;
    /* the caller's event: its strings its own to replace (a string of the
     * parse's block freed here would abort, or fail under ASan) */
    if (a && (jt_event_set (&a->lease, "c:changed:0") < 0 || a->nnodes != 1
              || jt_event_set (&a->nodes[0], "n-changed") < 0
              || jt_event_set (&a->id, NULL) < 0 || strcmp (a->lease, "c:changed:0")))
        (*bad)++;
    free (sa);
    free (sb);
    jt_event_destroy (a);
    jt_event_destroy (b);
    return 0;
}

int main (void)
{
    char *start12 = lease_ev (12, false), *spaced = NULL;
    if (asprintf (&spaced, "{ %s", start12 + 1) < 0)
        bail_out ("out of memory");
    char *nul = lease_ev (12, false), *q = strstr (nul, "\"n6\"");
    char nulled[1024];
    if (!q)
        bail_out ("no node in %s", nul);
    snprintf (nulled, sizeof (nulled), "%.*s\"n\\u00006\"%s", (int) (q - nul), nul, q + 4);

    check ("a good ledger", -1, "", JT_VIOL_NONE);
    check ("a payload that does not parse at seq 14", 13, "{\"v\":1,", JT_VIOL_BAD_EVENT);
    check ("a payload with a space at seq 13", 12, spaced, JT_VIOL_BAD_EVENT);
    check ("a node with a \\u0000 at seq 13", 12, nulled, JT_VIOL_BAD_EVENT);
    check ("an End of no lease at seq 8", 7, "{\"v\":1,\"type\":\"End\",\"id\":\"x\",\"time\":1,"
           "\"lease\":\"zz\",\"run\":\"c:3\",\"group\":\"0\",\"nodes\":[\"n3\"],\"gpus\":8,"
           "\"role\":\"Active\",\"envelope\":\"west\",\"owner\":\"rai\",\"start\":1006,"
           "\"end\":5000,\"reason\":\"End\"}", JT_VIOL_UNMATCHED_END);
    check ("a Start repeated at seq 14", 13, start12, JT_VIOL_DUP_ID);

    /* the report's way: every record's event taken once */
    char tmpl[] = "/tmp/jt-ledger-pre.XXXXXX";
    char *dir = mkdtemp (tmpl);
    const char *p = dir;
    jt_ledger_result_t res;
    jt_error_t err = { "" };
    jt_ledger_pre_t pre;
    int bad = 0;
    if (!dir)
        bail_out ("mkdtemp: %s", strerror (errno));
    gen (dir, -1, "");
    /* both ways jt_record_event can go: every record parsed ahead (the
     * chunked walk: whichever thread runs a chunk parses all of it), and
     * none (one thread: parsed in the callback) */
    int ahead[2] = { 0, 0 }, rc = 0;
    for (int t = 0; t < 2; t++) {
        jt_ledger_pre_events (&pre, false);
        pre.threads = t == 0 ? 2 : 1;
        jt_ledger_read_chunk = 3;
        jt_ledger_read_parallel_min = 0;
        taken = 0;
        if (jt_ledger_read_pre (&p, 1, NULL, &pre, take_cb, &bad, &res, &err) < 0
            || res.status != JT_LEDGER_OK)
            rc = -1;
        jt_ledger_read_chunk = 4096;
        jt_ledger_read_parallel_min = 4u << 20;
        ahead[t] = taken;
    }
    ok (rc == 0 && bad == 0 && ahead[0] == N && ahead[1] == 0,
        "jt_record_event: %d events as parsed from their payloads and the caller's "
        "to change (%d differ), %d of them parsed ahead on 2 threads, %d on 1",
        N, bad, ahead[0], ahead[1]);
    rmdir_all (dir);
    free (start12);
    free (spaced);
    free (nul);
    return done_testing ();
}
