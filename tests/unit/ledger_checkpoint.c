/*
 * ledger_checkpoint.c - unit tests of the Checkpoint (issue 9): the state's
 * text round-trips byte for byte through its records; a replay from the
 * last checkpoint folds to the state a full fold gives (random ledgers,
 * several segments); verify checks every checkpoint against its own fold
 * (a forged state with a valid chain is `checkpoint-mismatch` at its seq);
 * parts missing, a wrong stateSha256 or a state that disagrees with itself
 * make the replay refuse it and fold from genesis, saying why.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobtree/ledger.h"
#include "jobtree/ledger_checkpoint.h"
#include "prng.h"
#include "ledger/ledger_checkpoint_int.h"
#include "util/sha256.h"
#include "tap.h"

struct led {
    char **p;
    size_t n, cap;
    uint64_t last_ckpt; /* seq of the last checkpoint's first part */
    int64_t ckpt_closed; /* its closedUntil */
};

static void led_add (struct led *l, char *s)
{
    if (!s)
        bail_out ("out of memory");
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        if (!(l->p = realloc (l->p, l->cap * sizeof (*l->p))))
            bail_out ("out of memory");
    }
    l->p[l->n++] = s;
}

static void led_free (struct led *l)
{
    for (size_t i = 0; i < l->n; i++)
        free (l->p[i]);
    free (l->p);
    memset (l, 0, sizeof (*l));
}

/* Canonical form of an event text (bails out when invalid). */
static char *canon (const char *s)
{
    jt_error_t err = { "" };
    jt_event_t *ev = jt_event_from_json (s, strlen (s), &err);
    char *out = ev ? jt_event_to_json (ev, &err) : NULL;
    if (!out)
        bail_out ("event %s: %s", s, err.text);
    jt_event_destroy (ev);
    return out;
}

static void apply (jt_ledger_fold_t *f, uint64_t seq, const char *s)
{
    jt_error_t err = { "" };
    jt_violation_t v;
    jt_event_t *ev = jt_event_from_json (s, strlen (s), &err);
    if (!ev || jt_ledger_fold_apply (f, seq, ev, &v, &err) < 0)
        bail_out ("apply %s: %s", s, err.text);
    jt_event_destroy (ev);
}

static void add_ckpt (struct led *l, jt_ledger_fold_t *f, size_t part_bytes)
{
    char **p;
    size_t *lens, n;
    jt_error_t err = { "" };
    if (jt_ckpt_payloads (f, l->n, 1000 + (int64_t) l->n, part_bytes, &p, &lens, &n, &err) < 0)
        bail_out ("checkpoint: %s", err.text);
    l->last_ckpt = l->n + 1;
    l->ckpt_closed = jt_ledger_fold_closed_until (f);
    for (size_t i = 0; i < n; i++)
        led_add (l, p[i]);
    free (p);
    free (lens);
}

/* A random ledger of about n events (budgets, leases on 12 nodes, some
 * borrowed, reservations), a checkpoint every ~every events. The fold of
 * the events (checkpoints not applied: they are no events) in *live. */
static void random_ledger (uint64_t seed, int n, int every, size_t part_bytes, struct led *l,
                           jt_ledger_fold_t **live)
{
    uint64_t st = seed;
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    bool open[40] = { false };
    int lgpus[40], lstart[40], lnode[40], lrole[40], lenv[40], gen[40] = { 0 };
    int t = 10, nres = 0;
    char *s;

    memset (l, 0, sizeof (*l));
    for (int i = 0; i < n; i++) {
        int k = prng_below (&st, 40), r = prng_below (&st, 10);
        t += prng_below (&st, 30);
        if (i == 0 || r == 0) {
            if (asprintf (&s,
                          "{\"v\":1,\"type\":\"BudgetLoaded\",\"id\":\"b%d\",\"time\":%d,"
                          "\"files\":[{\"path\":\"/etc/b%d.json\",\"sha256\":\"%064d\"}],"
                          "\"caps\":[{\"envelope\":\"e1\",\"owner\":\"rai\","
                          "\"concurrency\":%d,\"maxGPUHours\":%d.25,\"start\":0,"
                          "\"end\":999999999},{\"envelope\":\"e2\",\"owner\":\"kim\","
                          "\"concurrency\":400,\"maxGPUHours\":100000,\"start\":0,"
                          "\"end\":999999999}]}",
                          i, t, i, i, 400 + prng_below (&st, 64),
                          100000 + prng_below (&st, 900))
                < 0)
                bail_out ("oom");
        } else if (r == 1) {
            if (asprintf (&s,
                          "{\"v\":1,\"type\":\"%s\",\"id\":\"r%d\",\"time\":%d,"
                          "\"reservation\":\"res%d\",\"run\":\"c:%d\"%s}",
                          prng_below (&st, 2) ? "ReservationReleased" : "ReservationCreate",
                          i, t, nres % 5, nres % 5,
                          ",\"envelope\":\"e1\",\"owner\":\"rai\",\"gpus\":8,\"start\":5")
                < 0)
                bail_out ("oom");
            nres++;
            /* Released takes no envelope: rebuild it as one when needed */
            if (strstr (s, "Released")) {
                free (s);
                if (asprintf (&s,
                              "{\"v\":1,\"type\":\"ReservationReleased\",\"id\":\"r%d\","
                              "\"time\":%d,\"reservation\":\"res%d\",\"run\":\"c:%d\"}",
                              i, t, (nres - 1) % 5, (nres - 1) % 5)
                    < 0)
                    bail_out ("oom");
            }
        } else if (!open[k]) {
            lgpus[k] = 1 + prng_below (&st, 8);
            lstart[k] = t;
            lnode[k] = k; /* a node per slot: no overlap */
            lrole[k] = prng_below (&st, 4) == 0;
            lenv[k] = 1 + prng_below (&st, 2);
            gen[k]++;
            if (asprintf (&s,
                          "{\"v\":1,\"type\":\"Start\",\"id\":\"s%d\",\"time\":%d,"
                          "\"lease\":\"L%02d.%d\",\"run\":\"c:%d\",\"group\":\"0\","
                          "\"nodes\":[\"n%02d\"],\"gpus\":%d,\"role\":\"%s\","
                          "\"envelope\":\"e%d\",\"owner\":\"rai\",\"start\":%d}",
                          i, t, k, gen[k], k, lnode[k], lgpus[k],
                          lrole[k] ? "Borrowed" : "Active", lenv[k], lstart[k])
                < 0)
                bail_out ("oom");
            open[k] = true;
        } else {
            if (asprintf (&s,
                          "{\"v\":1,\"type\":\"End\",\"id\":\"e%d\",\"time\":%d,"
                          "\"lease\":\"L%02d.%d\",\"run\":\"c:%d\",\"group\":\"0\","
                          "\"nodes\":[\"n%02d\"],\"gpus\":%d,\"role\":\"%s\","
                          "\"envelope\":\"e%d\",\"owner\":\"rai\",\"start\":%d,"
                          "\"end\":%d,\"reason\":\"%s\"}",
                          i, t, k, gen[k], k, lnode[k], lgpus[k],
                          lrole[k] ? "Borrowed" : "Active", lenv[k], lstart[k], t,
                          prng_below (&st, 2) ? "End" : "JobGone")
                < 0)
                bail_out ("oom");
            open[k] = false;
        }
        char *c = canon (s);
        free (s);
        led_add (l, c);
        apply (f, l->n, c);
        if (every && prng_below (&st, every) == 0)
            add_ckpt (l, f, part_bytes);
    }
    *live = f;
}

static char *write_ledger (const struct led *l, uint64_t segment_max)
{
    static char tmpl[64];
    jt_ledger_result_t res;
    jt_error_t err = { "" };
    jt_ledger_writer_t *w;
    uint64_t first;

    snprintf (tmpl, sizeof (tmpl), "/tmp/jt-ckpt.XXXXXX");
    char *dir = mkdtemp (tmpl);
    if (!dir || !(w = jt_ledger_writer_open (dir, segment_max, NULL, NULL, &res, &err)))
        bail_out ("ledger: %s", dir ? err.text : "mkdtemp");
    for (size_t i = 0; i < l->n; i += 7) { /* batches of 7: several segments */
        size_t k = l->n - i < 7 ? l->n - i : 7, lens[7];
        for (size_t j = 0; j < k; j++)
            lens[j] = strlen (l->p[i + j]);
        if (jt_ledger_writer_append (w, (const char *const *) l->p + i, lens, k, &first,
                                     &err)
            < 0)
            bail_out ("append: %s", err.text);
    }
    jt_ledger_writer_close (w);
    return dir;
}

static void rm_dir (const char *dir)
{
    char cmd[128];
    snprintf (cmd, sizeof (cmd), "rm -rf %s", dir);
    if (system (cmd) != 0)
        diag ("rm failed");
}

static char *text_of (const jt_ledger_fold_t *f)
{
    jt_error_t err = { "" };
    char *s = jt_ckpt_state_text (f, 0, &err);
    if (!s)
        bail_out ("state text: %s", err.text);
    return s;
}

/* verify: "kind@seq" */
static const char *verify_dir (const char *dir, bool from_ckpt)
{
    static char out[64];
    const char *paths[1] = { dir };
    jt_ledger_result_t res;
    jt_violation_t v;
    jt_replay_info_t info;
    jt_error_t err = { "" };
    int rc = from_ckpt ? jt_ledger_verify_from_checkpoint (paths, 1, NULL, &res, &v, NULL,
                                                           &info, &err)
                       : jt_ledger_verify (paths, 1, NULL, NULL, &res, &v, NULL, &err);
    if (rc < 0)
        bail_out ("verify: %s", err.text);
    if (res.status != JT_LEDGER_OK)
        snprintf (out, sizeof (out), "%s", jt_ledger_status_str (res.status));
    else
        snprintf (out, sizeof (out), "%s@%" PRIu64, jt_violation_str (v.kind), v.seq);
    if (v.kind != JT_VIOL_NONE)
        diag ("%s", v.msg);
    return out;
}

/* History rows in the window [since, ...): "lease start end gpus env reason". */
static char *rows_from (const jt_ledger_fold_t *f, int64_t since)
{
    jt_fold_lease_t *v;
    size_t n;
    jt_error_t err = { "" };
    char *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream (&out, &len);
    if (!m || jt_ledger_fold_leases (f, &v, &n, &err) < 0)
        bail_out ("rows: %s", err.text);
    for (size_t i = 0; i < n; i++)
        if (v[i].end < 0 || v[i].end >= since)
            fprintf (m, "%s %" PRId64 " %" PRId64 " %" PRId64 " %s %d\n", v[i].lease,
                     v[i].start, v[i].end, v[i].gpus, v[i].envelope, (int) v[i].reason);
    fclose (m);
    free (v);
    return out;
}

static void test_round_trip (void)
{
    struct led l;
    jt_ledger_fold_t *f;
    jt_error_t err = { "" };
    char **p;
    size_t *lens, n;

    random_ledger (42, 400, 0, 0, &l, &f);
    char *whole = text_of (f);
    if (jt_ckpt_payloads (f, l.n, 777, 1024, &p, &lens, &n, &err) < 0)
        bail_out ("%s", err.text);
    ok (n > 1, "a small part size cuts the state into %zu parts", n);
    jt_event_t **ev = calloc (n, sizeof (*ev));
    bool exact = true;
    for (size_t i = 0; i < n; i++) {
        ev[i] = jt_event_from_json (p[i], lens[i], &err);
        char *again = ev[i] ? jt_event_to_json (ev[i], &err) : NULL;
        exact = exact && again && !strcmp (again, p[i]);
        free (again);
    }
    ok (exact, "every part parses and re-serializes byte for byte");
    jt_ledger_fold_t *r = jt_ckpt_restore ((const jt_event_t *const *) ev, n, &err);
    char *back = r ? text_of (r) : NULL;
    ok (back && !strcmp (back, whole), "restored state text == the fold's (%zu bytes)",
        strlen (whole));
    if (!r)
        diag ("%s", err.text);
    /* figures the queries give, too */
    jt_fold_envelope_t a[4], b[4];
    size_t na = jt_ledger_fold_envelopes (f, 5000, a, 4), nb = r ? jt_ledger_fold_envelopes (r, 5000, b, 4) : 0;
    bool same = na == nb;
    for (size_t i = 0; same && i < na && i < 4; i++)
        same = !strcmp (a[i].name, b[i].name) && a[i].gpu_hours == b[i].gpu_hours
               && a[i].borrowed_gpu_hours == b[i].borrowed_gpu_hours
               && a[i].active_gpus == b[i].active_gpus && a[i].max_gpu_hours == b[i].max_gpu_hours;
    ok (same, "envelope figures bit for bit (%zu envelopes)", na);
    /* one part missing, or parts out of order: refused */
    jt_ledger_fold_t *m = jt_ckpt_restore ((const jt_event_t *const *) ev, n - 1, &err);
    ok (!m && strstr (err.text, "is not part"), "parts missing: refused (%s)", err.text);
    jt_ledger_fold_destroy (m);
    jt_event_t *t0 = ev[0];
    ev[0] = ev[1];
    ev[1] = t0;
    m = jt_ckpt_restore ((const jt_event_t *const *) ev, n, &err);
    ok (!m, "parts out of order: refused (%s)", err.text);
    jt_ledger_fold_destroy (m);
    ev[1] = ev[0];
    ev[0] = t0;
    /* range checks name the field */
    char *bad = strstr (ev[n - 1]->state, "\"gpus\":");
    if (bad) {
        char *old = strdup (ev[n - 1]->state);
        size_t off = (size_t) (bad - ev[n - 1]->state);
        char *forged;
        if (asprintf (&forged, "%.*s\"gpus\":9999999%s", (int) off, old,
                      strchr (bad + 7, ',')) < 0)
            bail_out ("oom");
        free (ev[n - 1]->state);
        ev[n - 1]->state = forged;
        m = jt_ckpt_restore ((const jt_event_t *const *) ev, n, &err);
        ok (!m && strstr (err.text, "hashes to"), "a changed part fails stateSha256 (%s)",
            err.text);
        jt_ledger_fold_destroy (m);
        free (ev[n - 1]->state);
        ev[n - 1]->state = old;
    } else
        ok (0, "a lease in the last part");
    for (size_t i = 0; i < n; i++)
        jt_event_destroy (ev[i]);
    free (ev);
    jt_ckpt_payloads_free (p, lens, n);
    jt_ledger_fold_destroy (r);
    jt_ledger_fold_destroy (f);
    free (whole);
    free (back);
    led_free (&l);
}

/* Fold from the last checkpoint == full fold, on random ledgers spread
 * over segments; verify (full and from the checkpoint) passes. */
static void test_random (void)
{
    int agree = 0, from = 0, verified = 0, runs = 40, hist_ok = 0, hist_no = 0;
    for (int i = 0; i < runs; i++) {
        struct led l;
        jt_ledger_fold_t *live, *full, *tail;
        jt_ledger_result_t res;
        jt_replay_info_t info;
        uint64_t nv;
        jt_violation_t v;
        jt_error_t err = { "" };

        random_ledger (1000 + (uint64_t) i, 150 + 20 * i, 60, 1024 + 97 * (size_t) i, &l, &live);
        /* every other ledger: the scan for the last checkpoint in blocks of
         * 61 + i bytes from the end back, so that its pattern and its line
         * straddle blocks (1 MiB otherwise: one block for these) */
        jt_ckpt_scan_block = i % 2 ? 61 + (size_t) i : (size_t) 1 << 20;
        char *dir = write_ledger (&l, 4096 + 512 * (uint64_t) i);
        if (!(full = jt_ledger_fold_replay_dir (dir, &res, &nv, &v, &err))
            || !(tail = jt_ledger_fold_replay_dir_ckpt (dir, &res, &nv, &v, &info, &err)))
            bail_out ("replay: %s", err.text);
        char *a = text_of (full), *b = text_of (tail), *c = text_of (live);
        if (!strcmp (a, b) && !strcmp (a, c))
            agree++;
        else
            diag ("seed %d: states differ", 1000 + i);
        /* read from the checkpoint's record on (its offset, issue 35),
         * not from its segment's start */
        if (l.last_ckpt && info.ckpt_seq == l.last_ckpt && info.records_folded < l.n
            && info.records_read == l.n - l.last_ckpt + 1)
            from++;
        else if (l.last_ckpt)
            diag ("seed %d: from seq %" PRIu64 " (last checkpoint %" PRIu64 "): %s", 1000 + i,
                  info.ckpt_seq, l.last_ckpt, info.why);
        else
            from++;
        if (!strcmp (verify_dir (dir, false), "none@0") && !strcmp (verify_dir (dir, true), "none@0"))
            verified++;
        /* jobtree report's read: from the checkpoint when its closed leases
         * all end before the window, else not */
        if (l.last_ckpt) {
            jt_ledger_fold_t *h = NULL, *g = jt_ledger_fold_create ();
            int64_t since = l.ckpt_closed + 1;
            int r = jt_ledger_fold_history_dir_ckpt (dir, since, 0, &h, &res, &nv, &v, &info, &err);
            /* the full history: every event folded from genesis */
            if (!g || jt_ledger_fold_keep_history (g, &err) < 0)
                bail_out ("history: %s", err.text);
            for (size_t k = 0; k < l.n; k++)
                apply (g, k + 1, l.p[k]);
            char *x = h ? rows_from (h, since) : NULL, *y = rows_from (g, since);
            if (r == 1 && x && !strcmp (x, y))
                hist_ok++;
            else
                diag ("seed %d: history from the checkpoint: %d %s", 1000 + i, r, info.why);
            /* a window the last checkpoint's closed leases reach: an earlier
             * checkpoint serves it (the latest whose closedUntil is before
             * it: the same rows), or none does (read from genesis) */
            jt_ledger_fold_t *h2 = NULL;
            int r2 = l.ckpt_closed > 0
                         ? jt_ledger_fold_history_dir_ckpt (dir, l.ckpt_closed, 0, &h2, &res,
                                                            &nv, &v, &info, &err)
                         : 0;
            char *x2 = h2 ? rows_from (h2, l.ckpt_closed) : NULL;
            char *y2 = rows_from (g, l.ckpt_closed);
            if (l.ckpt_closed == 0 || (r2 == 0 && info.why[0])
                || (r2 == 1 && info.ckpt_seq < l.last_ckpt && x2 && !strcmp (x2, y2)))
                hist_no++;
            else
                diag ("seed %d: a window at closedUntil: %d %s", 1000 + i, r2, info.why);
            free (x2);
            free (y2);
            jt_ledger_fold_destroy (h2);
            free (x);
            free (y);
            jt_ledger_fold_destroy (h);
            jt_ledger_fold_destroy (g);
        } else {
            hist_ok++;
            hist_no++;
        }
        free (a);
        free (b);
        free (c);
        jt_ledger_fold_destroy (full);
        jt_ledger_fold_destroy (tail);
        jt_ledger_fold_destroy (live);
        rm_dir (dir);
        led_free (&l);
    }
    jt_ckpt_scan_block = (size_t) 1 << 20;
    is_int (agree, runs, "fold from the last checkpoint == full fold == live fold");
    is_int (from, runs, "the replay started from the last checkpoint's record, reading and "
                        "folding the tail only");
    is_int (verified, runs, "verify and verify --from-checkpoint pass");
    is_int (hist_ok, runs, "report's history from the checkpoint == the full history in "
                           "a window after its closed leases");
    is_int (hist_no, runs, "and a window its closed leases reach is served by an earlier "
                           "checkpoint (the same rows) or read from genesis");
}

/* Replace the first `key":N` in part's state by key":N+delta, and recompute
 * stateSha256 over all parts (a forger with the chain recomputed). */
static void forge (struct led *l, size_t first, size_t nparts, size_t part, const char *key,
                   long delta, bool fix_sha)
{
    jt_error_t err = { "" };
    jt_event_t **ev = calloc (nparts, sizeof (*ev));
    char pat[64];
    snprintf (pat, sizeof (pat), "\"%s\":", key);
    for (size_t i = 0; i < nparts; i++)
        if (!(ev[i] = jt_event_from_json (l->p[first + i], strlen (l->p[first + i]), &err)))
            bail_out ("%s", err.text);
    char *s = ev[part]->state, *at = strstr (s, pat), *forged;
    if (!at)
        bail_out ("no %s in the part", key);
    long v = strtol (at + strlen (pat), NULL, 10);
    if (asprintf (&forged, "%.*s%s%ld%s", (int) (at - s), s, pat, v + delta,
                  at + strlen (pat) + strspn (at + strlen (pat), "-0123456789"))
        < 0)
        bail_out ("oom");
    free (ev[part]->state);
    ev[part]->state = forged;
    if (fix_sha) {
        size_t len = 0;
        for (size_t i = 0; i < nparts; i++)
            len += strlen (ev[i]->state);
        char *all = calloc (1, len + 1);
        for (size_t i = 0; i < nparts; i++)
            strcat (all, ev[i]->state);
        /* the SHA-256 as the library makes it: through a one-part payload */
        char sha[65];
        jt_sha256_hex (all, len, sha);
        free (all);
        for (size_t i = 0; i < nparts; i++)
            memcpy (ev[i]->state_sha256, sha, 65);
    }
    for (size_t i = 0; i < nparts; i++) {
        free (l->p[first + i]);
        if (!(l->p[first + i] = jt_event_to_json (ev[i], &err)))
            bail_out ("%s", err.text);
        jt_event_destroy (ev[i]);
    }
    free (ev);
}

static size_t parts_at (const struct led *l, size_t first)
{
    jt_error_t err = { "" };
    jt_event_t *ev = jt_event_from_json (l->p[first], strlen (l->p[first]), &err);
    size_t n = ev ? (size_t) ev->parts : 0;
    jt_event_destroy (ev);
    return n;
}

static void test_forged (void)
{
    struct led l;
    jt_ledger_fold_t *live, *f;
    jt_ledger_result_t res;
    jt_replay_info_t info;
    jt_violation_t v;
    jt_error_t err = { "" };
    uint64_t nv;
    char exp[64], *dir;

    /* the last records: a checkpoint of several parts, then a short tail */
    random_ledger (7, 300, 0, 0, &l, &live);
    add_ckpt (&l, live, 1024);
    size_t first = l.last_ckpt - 1, np = parts_at (&l, first);
    ok (np >= 2, "checkpoint of %zu parts at seq %zu", np, first + 1);

    /* 1. a state changed where only the full fold can tell (an envelope's
     * peak), stateSha256 and chain recomputed */
    struct led g = { 0 };
    for (size_t i = 0; i < l.n; i++)
        led_add (&g, strdup (l.p[i]));
    forge (&g, first, np, 0, "peak", 5, true);
    dir = write_ledger (&g, 0);
    snprintf (exp, sizeof (exp), "checkpoint-mismatch@%zu", first + 1);
    is (verify_dir (dir, false), exp, "forged state, valid chain: verify fails at its seq");
    if (!(f = jt_ledger_fold_replay_dir_ckpt (dir, &res, &nv, &v, &info, &err)))
        bail_out ("%s", err.text);
    ok (info.ckpt_seq == first + 1, "start-up cannot tell (it trusts the checkpoint)");
    jt_ledger_fold_destroy (f);
    rm_dir (dir);
    led_free (&g);

    /* 2. active GPUs that are not its open leases': the state disagrees with
     * itself, refused by the replay, which folds from genesis */
    for (size_t i = 0; i < l.n; i++)
        led_add (&g, strdup (l.p[i]));
    forge (&g, first, np, 0, "active", 1, true);
    dir = write_ledger (&g, 0);
    if (!(f = jt_ledger_fold_replay_dir_ckpt (dir, &res, &nv, &v, &info, &err)))
        bail_out ("%s", err.text);
    char *a = text_of (f), *b = text_of (live);
    ok (info.ckpt_seq == 0 && strstr (info.why, "refused") && strstr (info.why, "active"),
        "inconsistent state refused, full fold (%s)", info.why);
    ok (!strcmp (a, b), "the full fold gives the true state");
    free (a);
    free (b);
    is (verify_dir (dir, false), exp, "verify fails it too");
    jt_ledger_fold_destroy (f);
    rm_dir (dir);
    led_free (&g);

    /* 2b. the usage section (what reports start from) against the rest:
     * closed GPU-seconds that are not its groups', a group's open GPUs that
     * are not its open leases', a group's closed leases that are not the
     * ends counted: each refused at start-up, folded from genesis */
    static const struct {
        const char *key, *why;
        long delta;
    } uforge[] = {
        { "closedGpuS", "GPU-seconds are not its closed ones", 3600 },
        { "open", "open is not what its open leases add up to", 1 },
        { "leases", "closed leases in its groups", 1 },
    };
    for (size_t u = 0; u < sizeof (uforge) / sizeof (uforge[0]); u++) {
        for (size_t i = 0; i < l.n; i++)
            led_add (&g, strdup (l.p[i]));
        forge (&g, first, np, 0, uforge[u].key, uforge[u].delta, true);
        dir = write_ledger (&g, 0);
        if (!(f = jt_ledger_fold_replay_dir_ckpt (dir, &res, &nv, &v, &info, &err)))
            bail_out ("%s", err.text);
        ok (info.ckpt_seq == 0 && info.refused && strstr (info.why, uforge[u].why),
            "usage: forged %s refused at start-up (%s)", uforge[u].key, info.why);
        jt_ledger_fold_destroy (f);
        rm_dir (dir);
        led_free (&g);
    }

    /* 3. stateSha256 not recomputed */
    for (size_t i = 0; i < l.n; i++)
        led_add (&g, strdup (l.p[i]));
    forge (&g, first, np, np - 1, "gpus", 1, false);
    dir = write_ledger (&g, 0);
    if (!(f = jt_ledger_fold_replay_dir_ckpt (dir, &res, &nv, &v, &info, &err)))
        bail_out ("%s", err.text);
    ok (info.ckpt_seq == 0 && strstr (info.why, "hashes to"), "wrong stateSha256: %s",
        info.why);
    jt_ledger_fold_destroy (f);
    is (verify_dir (dir, false), exp, "verify: checkpoint-mismatch");
    rm_dir (dir);
    led_free (&g);

    /* 4. the last part missing (records after it renumbered: the chain is
     * valid) */
    for (size_t i = 0; i < l.n; i++)
        if (i != first + np - 1)
            led_add (&g, strdup (l.p[i]));
    led_add (&g, canon ("{\"v\":1,\"type\":\"NodeFail\",\"id\":\"nf\",\"time\":9,"
                        "\"nodes\":[\"n01\"]}"));
    dir = write_ledger (&g, 0);
    if (!(f = jt_ledger_fold_replay_dir_ckpt (dir, &res, &nv, &v, &info, &err)))
        bail_out ("%s", err.text);
    ok (info.ckpt_seq == 0 && info.why[0], "part missing: full fold (%s)", info.why);
    a = text_of (f);
    jt_ledger_fold_destroy (f);
    /* the NodeFail changes counters only */
    ok (strstr (a, "\"events\":301") != NULL, "the full fold folded every event");
    free (a);
    is (verify_dir (dir, false), exp, "verify: checkpoint-mismatch (part missing)");
    rm_dir (dir);
    led_free (&g);

    /* 5. an honest one: every reader agrees */
    dir = write_ledger (&l, 0);
    is (verify_dir (dir, false), "none@0", "the honest ledger verifies");
    is (verify_dir (dir, true), "none@0", "and from its checkpoint");
    rm_dir (dir);
    led_free (&l);
    jt_ledger_fold_destroy (live);
}

/* A checkpoint of f after record up_to without the usage section (as
 * written before issue 35): its one payload. */
static char *old_ckpt (const jt_ledger_fold_t *f, uint64_t up_to)
{
    char **p, sha[65];
    size_t *lens, n;
    jt_error_t err = { "" };
    if (jt_ckpt_payloads (f, up_to, 1000, JT_CKPT_PART_BYTES_MAX, &p, &lens, &n, &err) < 0
        || n != 1)
        bail_out ("checkpoint: %s", err.text);
    jt_event_t *ev = jt_event_from_json (p[0], lens[0], &err);
    char *u = ev ? strstr (ev->state, ",\"usage\":") : NULL, *l = u ? strstr (u, ",\"leases\":[") : NULL;
    if (!l)
        bail_out ("no usage section in %s", p[0]);
    memmove (u, l, strlen (l) + 1);
    jt_sha256_hex (ev->state, strlen (ev->state), sha);
    memcpy (ev->state_sha256, sha, 65);
    char *out = jt_event_to_json (ev, &err);
    if (!out)
        bail_out ("%s", err.text);
    jt_event_destroy (ev);
    jt_ckpt_payloads_free (p, lens, n);
    return out;
}

/* Checkpoints written before the usage section: one restores (its fold
 * knows no usage, so the checkpoints it writes have none), verify passes
 * over both, a report reads leases from it but not reservations nor the
 * usage totals (those need the section). */
static void test_old_format (void)
{
    struct led l, m = { 0 };
    jt_ledger_fold_t *live, *f = jt_ledger_fold_create ();
    jt_error_t err = { "" };
    jt_ledger_result_t res;
    jt_replay_info_t info;
    jt_violation_t v;
    uint64_t nv;

    random_ledger (21, 300, 0, 0, &l, &live);
    for (size_t i = 0; i < 200; i++) { /* 200 events, the old checkpoint */
        led_add (&m, strdup (l.p[i]));
        apply (f, i + 1, l.p[i]);
    }
    char *old = old_ckpt (f, 200);
    jt_event_t *ev = jt_event_from_json (old, strlen (old), &err);
    jt_ledger_fold_t *r = ev ? jt_ckpt_restore ((const jt_event_t *const *) &ev, 1, &err) : NULL;
    jt_fold_usage_t *us = NULL;
    size_t nu;
    ok (r != NULL, "a checkpoint without usage restores (%s)", err.text);
    if (!r)
        bail_out ("restore");
    ok (jt_ledger_fold_usage (r, &us, &nu, NULL) < 0 && errno == EINVAL,
        "its fold knows no usage");
    free (us);
    led_add (&m, old);
    for (size_t i = 200; i < l.n; i++) { /* the rest, then r's checkpoint */
        led_add (&m, strdup (l.p[i]));
        apply (r, m.n, l.p[i]);
    }
    char *t = text_of (r);
    ok (!strstr (t, "\"usage\""), "and writes none");
    free (t);
    add_ckpt (&m, r, 0);
    char *dir = write_ledger (&m, 0);
    is (verify_dir (dir, false), "none@0", "verify passes over checkpoints without usage");
    is (verify_dir (dir, true), "none@0", "and verify --from-checkpoint");
    jt_ledger_fold_t *h = NULL;
    int64_t since = jt_ledger_fold_last_time (r) + 1;
    ok (jt_ledger_fold_history_dir_ckpt (dir, since, 0, &h, &res, &nv, &v, &info, &err) == 1,
        "report's leases read from it");
    jt_ledger_fold_destroy (h);
    h = NULL;
    ok (jt_ledger_fold_history_dir_ckpt (dir, since, JT_CKPT_HIST_RESV, &h, &res, &nv, &v,
                                         &info, &err)
            == 0,
        "its reservations not (%s)", info.why);
    jt_ledger_fold_destroy (h);
    jt_ledger_fold_t *g = jt_ledger_fold_replay_dir_ckpt (dir, &res, &nv, &v, &info, &err);
    ok (g && info.ckpt_seq && jt_ledger_fold_usage (g, &us, &nu, NULL) < 0,
        "nor the usage totals (the start-up from it knows none)");
    free (us);
    jt_ledger_fold_destroy (g);
    rm_dir (dir);
    jt_event_destroy (ev);
    jt_ledger_fold_destroy (r);
    jt_ledger_fold_destroy (f);
    jt_ledger_fold_destroy (live);
    led_free (&l);
    led_free (&m);
}

int main (void)
{
    test_old_format ();
    test_round_trip ();
    test_random ();
    test_forged ();
    done_testing ();
}
