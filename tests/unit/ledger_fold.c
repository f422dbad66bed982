/*
 * ledger_fold.c - unit tests of the fold (live state) and each invariant
 * class of `jobtree verify`, plus jt_ledger_verify over a written ledger.
 * Activations: the fold marks the open leases cut (RandomPreempt with the
 * seed, Shrink, DropSpare), the Ends of a requeued victim carry them, verify
 * recomputes every lottery, and forged Activations or RandomPreempt Ends
 * are the class `lottery`.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobtree/ledger.h"
#include "jobtree/ledger_checkpoint.h"
#include "jobtree/ledger_lease.h"
#include "prng.h"
#include "tap.h"

#define CAPS                                                                           \
    "{\"v\":1,\"type\":\"BudgetLoaded\",\"id\":\"b\",\"time\":0,\"files\":[],"         \
    "\"caps\":[{\"envelope\":\"e1\",\"owner\":\"rai\",\"concurrency\":16,"             \
    "\"maxGPUHours\":36.0,\"start\":0,\"end\":100000}]}"

static char *lease_ev (const char *type, const char *id, const char *lease,
                       const char *nodes, int gpus, const char *role, int start,
                       int end, const char *reason)
{
    static char buf[1024];
    int n =
        snprintf (buf, sizeof (buf),
                  "{\"v\":1,\"type\":\"%s\",\"id\":\"%s\",\"time\":%d,\"lease\":\"%s\","
                  "\"run\":\"c:1\",\"group\":\"0\",\"nodes\":[%s],\"gpus\":%d,"
                  "\"role\":\"%s\",\"envelope\":\"e1\",\"owner\":\"rai\",\"start\":%d",
                  type, id, end >= 0 ? end : start, lease, nodes, gpus, role, start);
    if (end >= 0)
        snprintf (buf + n, sizeof (buf) - (size_t) n, ",\"end\":%d,\"reason\":\"%s\"}",
                  end, reason);
    else
        snprintf (buf + n, sizeof (buf) - (size_t) n, "}");
    return buf;
}

/* Apply events (NULL-terminated); return "kind@seq" of the first violation
 * or "none". */
static const char *run (const char *const *evs, jt_ledger_fold_t **keep)
{
    static char out[128];
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    jt_error_t err = { "" };
    snprintf (out, sizeof (out), "none");
    for (size_t i = 0; evs[i]; i++) {
        jt_event_t *ev = jt_event_from_json (evs[i], strlen (evs[i]), &err);
        if (!ev)
            bail_out ("event %zu: %s", i, err.text);
        jt_violation_t v;
        int rc = jt_ledger_fold_apply (f, i + 1, ev, &v, &err);
        jt_event_destroy (ev);
        if (rc > 0) {
            snprintf (out, sizeof (out), "%s@%zu", jt_violation_str (v.kind), i + 1);
            diag ("%s", v.msg);
            break;
        }
    }
    if (keep)
        *keep = f;
    else
        jt_ledger_fold_destroy (f);
    return out;
}

#define EV(...) strdup (lease_ev (__VA_ARGS__))

/* ---- Activation ---- */

/* holder: run, owner, group, role, gpus, pool, run GPUs, run minimum */
#define H(run, owner, group, role, gpus, pool, rg, rmin) \
    { run, owner, group, JT_ROLE_##role, gpus, pool, rg, rmin }

/* West/A is short of 32: c:3's spare is dropped, its group 1 shrunk, then
 * the lottery takes c:3 and c:9 (tests/unit/ledger_event.c has the draws). */
static const jt_holder_t HOLDERS[] = {
    H ("c:7", "vision", 0, ACTIVE, 8, 0, 8, 8),
    H ("c:3", "rai", 0, ACTIVE, 8, 0, 16, 8),
    H ("c:3", "rai", 1, ACTIVE, 8, 0, 16, 8),
    H ("c:3", "rai", 0, SPARE, 8, 0, 16, 8),
    H ("c:9", "speech", 0, BORROWED, 16, 0, 24, 24),
    H ("c:9", "speech", 1, BORROWED, 8, 1, 24, 24),
    H ("c:5", "rai", 0, ACTIVE, 8, 0, 8, 8),
};
static const char *const POOLS[] = { "west/A", "west/B" };
#define RESV "c:11:resv:1772366400"
#define T1 1772367000

/* The Start of each holder's lease (lease "<run>:<group>", group "0", "1"
 * or "spare/0"), one node each, at T1 - 600. */
static char *holder_start (const jt_holder_t *h)
{
    char buf[1024], group[32];

    snprintf (group, sizeof (group), h->role == JT_ROLE_SPARE ? "spare/%d" : "%d",
              h->group);
    snprintf (buf, sizeof (buf),
              "{\"v\":1,\"type\":\"Start\",\"id\":\"%s:%s:start\",\"time\":%d,"
              "\"lease\":\"%s:%s\",\"run\":\"%s\",\"group\":\"%s\",\"nodes\":"
              "[\"n-%s-%s\"],\"gpus\":%lld,\"role\":\"%s\",\"envelope\":\"e1\","
              "\"owner\":\"%s\",\"start\":%d}",
              h->run, group, T1 - 600, h->run, group, h->run, group, h->run, group,
              (long long) h->gpus, jt_role_str (h->role), h->owner, T1 - 600);
    return strdup (buf);
}

/* The Activation of c:11's reservation over HOLDERS at T1, canonical. */
static char *activation_json (void)
{
    const jt_need_t need[] = { { 0, 32 } };
    jt_slice_alt_t alt = { need, 1 };
    jt_activation_req_t req = { "west/A", RESV, T1, &alt, 1, HOLDERS, 7 };
    jt_activation_t a;
    jt_error_t err = { "" };
    jt_event_t *ev;
    char *js;

    if (jt_activate (&req, &a, &err) < 0
        || !(ev = jt_event_activation (RESV ":activation:1772367000", RESV, "c:11", &req,
                                       a.alt, POOLS, 2, &a, &err))
        || !(js = jt_event_to_json (ev, &err)))
        bail_out ("Activation: %s", err.text);
    jt_event_destroy (ev);
    jt_activation_free (&a);
    return js;
}

/* Apply payloads to f; "kind@index" of the first violation (1-based), or
 * "none". */
static const char *apply_all (jt_ledger_fold_t *f, char *const *p, size_t n)
{
    static char out[128];
    jt_error_t err = { "" };

    snprintf (out, sizeof (out), "none");
    for (size_t i = 0; i < n; i++) {
        jt_event_t *ev = jt_event_from_json (p[i], strlen (p[i]), &err);
        jt_violation_t v;
        if (!ev)
            bail_out ("event %zu: %s", i, err.text);
        if (jt_ledger_fold_apply (f, i + 1, ev, &v, &err) > 0
            && !strcmp (out, "none")) {
            snprintf (out, sizeof (out), "%s@%zu", jt_violation_str (v.kind), i + 1);
            diag ("%s", v.msg);
        }
        jt_event_destroy (ev);
    }
    return out;
}

static bool verify_quiet; /* verify_all: no diagnostic per violation */
static char verify_msg[sizeof (((jt_violation_t *) 0)->msg)]; /* verify_all's last */

/* Write payloads as a ledger and verify it: "kind@seq lotteries=N". */
static const char *verify_all (char *const *p, size_t n)
{
    static char out[256];
    char tmpl[] = "/tmp/jt-ledger-lottery.XXXXXX", cmd[128];
    char *dir = mkdtemp (tmpl);
    size_t *lens = calloc (n, sizeof (*lens));
    jt_ledger_result_t res;
    jt_violation_t v;
    jt_ledger_fold_t *f = NULL;
    jt_error_t err = { "" };
    jt_ledger_writer_t *w;
    uint64_t first;
    const char *paths[1];

    if (!dir || !lens)
        bail_out ("verify_all: %s", dir ? "out of memory" : "mkdtemp");
    paths[0] = dir;
    for (size_t i = 0; i < n; i++)
        lens[i] = strlen (p[i]);
    if (!(w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err))
        || jt_ledger_writer_append (w, (const char *const *) p, lens, n, &first, &err) < 0)
        bail_out ("ledger: %s", err.text);
    jt_ledger_writer_close (w);
    if (jt_ledger_verify (paths, 1, NULL, NULL, &res, &v, &f, &err) < 0)
        bail_out ("verify: %s", err.text);
    snprintf (out, sizeof (out), "%s@%llu lotteries=%llu", jt_violation_str (v.kind),
              (unsigned long long) v.seq,
              (unsigned long long) (f ? jt_ledger_fold_lotteries (f) : 0));
    if (v.kind != JT_VIOL_NONE && !verify_quiet)
        diag ("%s", v.msg);
    snprintf (verify_msg, sizeof (verify_msg), "%s", v.msg);
    jt_ledger_fold_destroy (f);
    free (lens);
    snprintf (cmd, sizeof (cmd), "rm -rf %s", dir);
    if (system (cmd) != 0)
        diag ("rm failed");
    return out;
}

/* The fold's open leases: "lease cut[:seed]" a line. */
static const char *marks (const jt_ledger_fold_t *f)
{
    static char out[2048];
    jt_fold_lease_t *o;
    size_t n;
    jt_error_t err = { "" };

    out[0] = '\0';
    if (jt_ledger_fold_open_list (f, NULL, &o, &n, &err) < 0)
        return "ENOMEM";
    for (size_t i = 0; i < n; i++) {
        snprintf (out + strlen (out), sizeof (out) - strlen (out), "%s %s", o[i].lease,
                  jt_end_reason_str (o[i].cut));
        if (o[i].cut_seed)
            snprintf (out + strlen (out), sizeof (out) - strlen (out), ":%016llx",
                      (unsigned long long) o[i].cut_seed);
        snprintf (out + strlen (out), sizeof (out) - strlen (out), "\n");
    }
    free (o);
    return out;
}

/* Replace the first `from` in s by `to` (malloc'd). */
static char *edit (const char *s, const char *from, const char *to)
{
    const char *p = strstr (s, from);
    char *out;

    if (!p)
        bail_out ("edit: '%s' not found", from);
    if (asprintf (&out, "%.*s%s%s", (int) (p - s), s, to, p + strlen (from)) < 0)
        bail_out ("out of memory");
    return out;
}

/* The Ends jt_lease_fini makes for the job of run c:<id> requeued at t,
 * against f's open leases; appended to p (n grows). */
static void requeue (const jt_ledger_fold_t *f, uint32_t id, int64_t t, char **p,
                     size_t *n)
{
    jt_job_facts_t job = { .cluster = "c", .job_id = id, .state = JT_JOB_PENDING };
    jt_lease_events_t ev = { 0 };
    jt_fold_lease_t *o;
    size_t no;
    jt_error_t err = { "" };

    if (jt_ledger_fold_open_list (f, NULL, &o, &no, &err) < 0
        || jt_lease_fini (&job, o, no, t, &ev, &err) < 0)
        bail_out ("requeue: %s", err.text);
    for (size_t i = 0; i < ev.n; i++)
        if (!(p[(*n)++] = jt_event_to_json (ev.v[i], &err)))
            bail_out ("End: %s", err.text);
    jt_lease_events_clear (&ev);
    free (o);
}

/* The holders' Starts and c:11's reservation into p: how many. */
static size_t holders_and_resv (char **p)
{
    size_t n = 0;
    for (size_t i = 0; i < 7; i++)
        p[n++] = holder_start (&HOLDERS[i]);
    p[n++] = strdup ("{\"v\":1,\"type\":\"ReservationCreate\",\"id\":\"" RESV
                     ":create\",\"time\":1772366400,\"reservation\":\"" RESV
                     "\",\"run\":\"c:11\",\"envelope\":\"e1\",\"owner\":\"rai\","
                     "\"nodes\":[\"a\"],\"gpus\":8,\"start\":1772370000}");
    return n;
}

/* An open reservation remembers when an Activation was drawn for it, and
 * checkpoints carry it: a controller that takes over (issue 37) reads it
 * back and draws no second time. */
static void test_resv_drawn (void)
{
    char *p[32], *act = activation_json ();
    size_t n = 0;
    jt_ledger_fold_t *f = jt_ledger_fold_create (), *g = NULL;
    jt_fold_reservation_t r;
    jt_error_t err;

    if (!f)
        bail_out ("fold");
    n = holders_and_resv (p);
    is (apply_all (f, p, n), "none", "drawn: the holders' Starts and c:11's reservation");
    ok (jt_ledger_fold_open_resv (f, "c:11", &r) == 0 && r.drawn == -1,
        "drawn: none before its Activation");
    p[n++] = act;
    jt_ledger_fold_destroy (f);
    f = jt_ledger_fold_create ();
    is (apply_all (f, p, n), "none", "drawn: then its Activation");
    ok (jt_ledger_fold_open_resv (f, "c:11", &r) == 0 && r.drawn == T1,
        "drawn: the Activation's time on the open reservation");
    char *st = jt_ckpt_state_text (f, 0, &err);
    ok (st && strstr (st, "\"drawn\":1772367000"), "drawn: in the checkpoint's state");
    free (st);
    {
        char **pl = NULL;
        size_t *ln = NULL, np = 0;
        jt_event_t *ev[16];
        if (jt_ckpt_payloads (f, n, T1, 0, &pl, &ln, &np, &err) < 0 || np > 16)
            bail_out ("checkpoint: %s", err.text);
        for (size_t i = 0; i < np; i++)
            if (!(ev[i] = jt_event_from_json (pl[i], ln[i], &err)))
                bail_out ("checkpoint part: %s", err.text);
        g = jt_ckpt_restore ((const jt_event_t *const *) ev, np, &err);
        ok (g && jt_ledger_fold_open_resv (g, "c:11", &r) == 0 && r.drawn == T1,
            "drawn: read back from the checkpoint (%s)", g ? "restored" : err.text);
        for (size_t i = 0; i < np; i++)
            jt_event_destroy (ev[i]);
        jt_ckpt_payloads_free (pl, ln, np);
    }
    jt_ledger_fold_destroy (g);
    jt_ledger_fold_destroy (f);
    for (size_t i = 0; i < n; i++)
        free (p[i]);
}

/* The daemon's checkpoints keep each open lease's text and reuse it
 * (ledger_checkpoint.c's put_lease): an Activation that cuts a lease after
 * one checkpoint must change its entry in the next, as a state made afresh
 * has it (else verify finds the checkpoint-mismatch). */
static void test_ckpt_kept_text (void)
{
    char *p[32];
    size_t n = 0;
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    jt_error_t err = { "" };
    char *st[2] = { NULL, NULL };

    if (!f)
        bail_out ("fold");
    n = holders_and_resv (p);
    is (apply_all (f, p, n), "none", "kept text: the holders' Starts");
    for (int k = 0; k < 2; k++) {
        char **pl = NULL;
        size_t *ln = NULL, np = 0;
        jt_event_t *ev = NULL;
        if (k == 1) { /* the Activation between the two checkpoints */
            p[n] = activation_json ();
            is (apply_all (f, p + n, 1), "none", "kept text: then the Activation");
            n++;
        }
        if (jt_ckpt_payloads (f, n, T1, 0, &pl, &ln, &np, &err) < 0 || np != 1
            || !(ev = jt_event_from_json (pl[0], ln[0], &err)))
            bail_out ("checkpoint: %s", err.text);
        st[k] = strdup (ev->state);
        char *fresh = jt_ckpt_state_text (f, 0, &err);
        is (st[k], fresh ? fresh : err.text,
            "kept text: checkpoint %d's state is the state made afresh", k + 1);
        free (fresh);
        jt_event_destroy (ev);
        jt_ckpt_payloads_free (pl, ln, np);
    }
    ok (!strstr (st[0], "RandomPreempt") && strstr (st[1], "\"cut\":\"RandomPreempt\"")
            && strstr (st[1], "\"cut\":\"Shrink\""),
        "kept text: the second carries the cuts the Activation marked");
    free (st[0]);
    free (st[1]);
    jt_ledger_fold_destroy (f);
    for (size_t i = 0; i < n; i++)
        free (p[i]);
}

static void test_activation (void)
{
    char *p[32], *act = activation_json (), seed[17], want[1024];
    size_t n = 0, nstart;
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    jt_event_t *ev = jt_event_from_json (act, strlen (act), NULL);

    if (!f || !ev)
        bail_out ("fold or Activation");
    snprintf (seed, sizeof (seed), "%016llx", (unsigned long long) ev->seed);
    jt_event_destroy (ev);
    for (size_t i = 0; i < 7; i++)
        p[n++] = holder_start (&HOLDERS[i]);
    nstart = n;
    p[n++] = strdup (act);
    is (apply_all (f, p, n), "none", "Starts, then the Activation recomputed: no violation");
    is_int (jt_ledger_fold_lotteries (f), 1, "one lottery recomputed");
    snprintf (want, sizeof (want),
              "c:3:0 RandomPreempt:%s\nc:3:1 Shrink\nc:3:spare/0 DropSpare\n"
              "c:5:0 None\nc:7:0 None\nc:9:0 RandomPreempt:%s\nc:9:1 RandomPreempt:%s\n",
              seed, seed, seed);
    is (marks (f), want,
        "the fold marks what each lease cut is to end with: the lottery's victims "
        "(whole runs) with its seed, the shrunk group, the dropped spare");

    /* c:3 and c:9 are requeued, c:5 ends on its own */
    size_t nend = n;
    requeue (f, 3, T1 + 60, p, &n);
    requeue (f, 9, T1 + 60, p, &n);
    requeue (f, 5, T1 + 90, p, &n);
    {
        char got[2048] = "";
        for (size_t i = nend; i < n; i++) {
            jt_event_t *e = jt_event_from_json (p[i], strlen (p[i]), NULL);
            snprintf (got + strlen (got), sizeof (got) - strlen (got), "%s %s%s%s\n",
                      e ? e->lease : "?", e ? jt_end_reason_str (e->reason) : "?",
                      e && e->seed ? " " : "", e && e->seed ? seed : "");
            jt_event_destroy (e);
        }
        snprintf (want, sizeof (want),
                  "c:3:0 RandomPreempt %s\nc:3:1 Shrink\nc:3:spare/0 DropSpare\n"
                  "c:9:0 RandomPreempt %s\nc:9:1 RandomPreempt %s\nc:5:0 End\n",
                  seed, seed, seed);
        is (got, want,
            "the requeued victims' Ends carry RandomPreempt and the seed (Shrink, "
            "DropSpare for the cut group and spare); c:5, not cut, ends End");
    }
    is (apply_all (f, p + nend, n - nend), "none", "the fold accepts them");
    is (marks (f), "c:7:0 None\n", "the marks went with the leases");
    is (verify_all (p, n), "none@0 lotteries=1", "verify: the ledger holds, one lottery");

    /* forgeries */
    static const struct {
        const char *name, *from, *to;
    } forged[] = {
        { "an Activation whose cut is changed", "\"group\":1,\"cut\":\"Shrink\"",
          "\"group\":1,\"cut\":\"RandomPreempt\"" },
        { "an Activation whose holders are changed (an owner)", "\"owner\":\"vision\"",
          "\"owner\":\"rai\"" },
        { "an Activation that says it did not resolve", "\"resolved\":true",
          "\"resolved\":false" },
    };
    for (size_t i = 0; i <= sizeof (forged) / sizeof (forged[0]); i++) {
        char *keep = p[nstart];
        bool last = i == sizeof (forged) / sizeof (forged[0]);
        p[nstart] = last ? edit (keep, seed, "0123456789abcdef")
                         : edit (keep, forged[i].from, forged[i].to);
        snprintf (want, sizeof (want), "lottery@%zu lotteries=1", nstart + 1);
        is (verify_all (p, n), want, "%s: lottery",
            last ? "an Activation whose seed is changed" : forged[i].name);
        free (p[nstart]);
        p[nstart] = keep;
    }
    {
        /* the holders in another order: the same decision, verify holds */
        char *keep = p[nstart];
        const char *c7 = strstr (keep, "{\"run\":\"c:7\"");
        const char *c3 = strstr (keep, "{\"run\":\"c:3\"");
        char *s;
        if (asprintf (&s, "%.*s%.*s,%.*s%s", (int) (c7 - keep), keep,
                      (int) (strstr (keep, "],\"cuts\"") - c3), c3, (int) (c3 - c7 - 1),
                      c7, strstr (keep, "],\"cuts\"")) < 0)
            bail_out ("out of memory");
        p[nstart] = s;
        is (verify_all (p, n), "none@0 lotteries=1",
            "an Activation with its holders in another order recomputes alike");
        p[nstart] = keep;
        free (s);
    }
    {
        /* an End RandomPreempt that no Activation made */
        size_t k = n - 1;   /* c:5:0's End */
        char *keep = p[k], *s, *t;
        snprintf (want, sizeof (want), "\"reason\":\"RandomPreempt\",\"seed\":\"%s\"",
                  seed);
        s = edit (keep, "\"reason\":\"End\"", want);
        p[k] = s;
        snprintf (want, sizeof (want), "lottery@%zu lotteries=1", k + 1);
        is (verify_all (p, n), want,
            "a RandomPreempt End of a run the lottery did not take: lottery");
        t = edit (p[nend], seed, "0123456789abcdef");   /* c:3:0's End */
        p[k] = keep;
        keep = p[nend];
        p[nend] = t;
        snprintf (want, sizeof (want), "lottery@%zu lotteries=1", nend + 1);
        is (verify_all (p, n), want,
            "a RandomPreempt End with a seed of no Activation: lottery");
        p[nend] = keep;
        free (s);
        free (t);
        /* c:3 starts again (a new lease): the old lottery did not cut it */
        s = edit (lease_ev ("Start", "c3-again", "c:3:again", "\"m1\"", 8, "Active",
                            T1 + 100, -1, NULL),
                  "\"run\":\"c:1\"", "\"run\":\"c:3\"");
        p[n] = s;
        snprintf (want, sizeof (want), "\"run\":\"c:3\"");
        t = edit (lease_ev ("End", "c3-again-end", "c:3:again", "\"m1\"", 8, "Active",
                            T1 + 100, T1 + 200, "RandomPreempt"),
                  "\"run\":\"c:1\"", want);
        snprintf (want, sizeof (want), "\"reason\":\"RandomPreempt\",\"seed\":\"%s\"}",
                  seed);
        p[n + 1] = edit (t, "\"reason\":\"RandomPreempt\"}", want);
        free (t);
        snprintf (want, sizeof (want), "lottery@%zu lotteries=1", n + 2);
        is (verify_all (p, n + 2), want,
            "a lease started after the lottery cannot end by it: lottery");
        free (p[n]);
        free (p[n + 1]);
    }
    for (size_t i = 0; i < n; i++)
        free (p[i]);
    free (act);
    jt_ledger_fold_destroy (f);
}

/* A BudgetLoaded of envelope e1 (owner rai) at time, with C, B (hours)
 * and the window [ws, we) (malloc'd). */
static char *caps_ev (const char *id, int time, int c, double b, int ws, int we)
{
    char *out;
    if (asprintf (&out,
                  "{\"v\":1,\"type\":\"BudgetLoaded\",\"id\":\"%s\",\"time\":%d,"
                  "\"files\":[],\"caps\":[{\"envelope\":\"e1\",\"owner\":\"rai\","
                  "\"concurrency\":%d,\"maxGPUHours\":%.1f,\"start\":%d,\"end\":%d}]}",
                  id, time, c, b, ws, we)
        < 0)
        bail_out ("out of memory");
    return out;
}

/* "At every instant" is lease time (issue 9): each forged ledger below
 * verified OK when the invariants were checked in event order, with the
 * caps of the latest BudgetLoaded in seq order. */
static void test_lease_time (void)
{
#define S(id, lease, nodes, gpus, start) EV ("Start", id, lease, nodes, gpus, "Active", start, -1, NULL)
#define E(id, lease, nodes, gpus, start, end) EV ("End", id, lease, nodes, gpus, "Active", start, end, "End")
    char *caps = caps_ev ("b", 0, 32, 1000, 0, 100000);
    char *nf = strdup ("{\"v\":1,\"type\":\"NodeFail\",\"id\":\"nf\",\"time\":20000,"
                       "\"nodes\":[\"z\"]}");
    static const char *const want_none = "none@0 lotteries=0";
    struct {
        const char *name, *want;
        char *p[12];
    } cases[] = {
        { "a Start backdated into a closed lease's interval on its node",
          "node-overlap@4",
          { caps, S ("1", "A", "\"a\"", 8, 0), E ("2", "A", "\"a\"", 8, 0, 7200),
            S ("3", "B", "\"a\"", 8, 3600) } },
        { "a Start re-emitted after a restart over the lease closed JobGone",
          "node-overlap@4",
          { caps, S ("1", "c:1:0", "\"a\"", 8, 100),
            EV ("End", "2", "c:1:0", "\"a\"", 8, "Active", 100, 5000, "JobGone"),
            S ("3", "c:1:0b", "\"a\"", 8, 100) } },
        { "five 8-GPU leases at once on C=32, their events ordered to hide it",
          "concurrency@7",
          { caps, S ("1", "A", "\"a\"", 8, 0), S ("2", "B", "\"b\"", 8, 0),
            S ("3", "C", "\"c\"", 8, 0), S ("4", "D", "\"d\"", 8, 0),
            E ("5", "A", "\"a\"", 8, 0, 100), S ("6", "E", "\"e\"", 8, 50) } },
        { "usage over B while B was in force, B raised later in seq but not in time",
          "gpu-hours@4",
          { caps_ev ("b1", 0, 32, 10, 0, 100000), S ("1", "A", "\"a\"", 8, 0),
            caps_ev ("b2", 7200, 32, 100, 0, 100000), E ("2", "A", "\"a\"", 8, 0, 7200) } },
        { "concurrency over C while C was in force, the envelope dropped later",
          "concurrency@3",
          { caps_ev ("b1", 0, 8, 1000, 0, 100000), S ("1", "A", "\"a\"", 8, 0),
            S ("2", "B", "\"b\"", 8, 0),
            strdup ("{\"v\":1,\"type\":\"BudgetLoaded\",\"id\":\"b2\",\"time\":10,"
                    "\"files\":[],\"caps\":[]}") } },
        { "leases started before the first BudgetLoaded, over its C (blamed on it)",
          "concurrency@3",
          { S ("1", "A", "\"a\"", 24, 0), S ("2", "B", "\"b\"", 16, 0),
            caps_ev ("b1", 100, 32, 1000, 0, 100000) } },
        { "a lowered C takes force while leases run",
          "concurrency@4",
          { caps, S ("1", "A", "\"a\"", 16, 0), S ("2", "B", "\"b\"", 16, 0),
            caps_ev ("b2", 100, 16, 1000, 0, 100000) } },
        { "a lease still open past its window's end",
          "window@2",
          { caps_ev ("b1", 0, 32, 1000, 0, 10000), S ("1", "A", "\"a\"", 8, 0), nf } },
        { "a lease running into a window that a reload ended earlier",
          "window@3",
          { caps_ev ("b1", 0, 32, 1000, 0, 100000), S ("1", "A", "\"a\"", 8, 0),
            caps_ev ("b2", 5000, 32, 1000, 0, 4000), E ("2", "A", "\"a\"", 8, 0, 6000) } },
        { "an End whose nodes differ from its Start", "bad-interval@3",
          { caps, S ("1", "A", "\"a\"", 8, 0), E ("2", "A", "\"b\"", 8, 0, 10) } },
        { "an End whose group differs", "bad-interval@3",
          { caps, S ("1", "A", "\"a\"", 8, 0),
            edit (lease_ev ("End", "2", "A", "\"a\"", 8, "Active", 0, 10, "End"),
                  "\"group\":\"0\"", "\"group\":\"1\"") } },
        { "an End whose owner differs", "bad-interval@3",
          { caps, S ("1", "A", "\"a\"", 8, 0),
            edit (lease_ev ("End", "2", "A", "\"a\"", 8, "Active", 0, 10, "End"),
                  "\"owner\":\"rai\"", "\"owner\":\"vision\"") } },
        /* what event order got wrong the other way */
        { "an End emitted after the next Start on its node, ending before it",
          want_none,
          { caps, S ("1", "A", "\"a\"", 8, 0), S ("2", "B", "\"a\"", 8, 100),
            E ("3", "A", "\"a\"", 8, 0, 100) } },
        { "C=32 full, an End at t and a Start at t (half-open intervals)", want_none,
          { caps, S ("1", "A", "\"a\"", 32, 0), S ("2", "B", "\"b\"", 32, 100),
            E ("3", "A", "\"a\"", 32, 0, 100) } },
        { "a lease ending at its window's end", want_none,
          { caps_ev ("b1", 0, 32, 1000, 0, 10000), S ("1", "A", "\"a\"", 8, 0),
            E ("2", "A", "\"a\"", 8, 0, 10000) } },
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        size_t n = 0;
        while (n < 12 && cases[i].p[n])
            n++;
        char want[64];
        snprintf (want, sizeof (want), "%s%s", cases[i].want,
                  strchr (cases[i].want, ' ') ? "" : " lotteries=0");
        is (verify_all (cases[i].p, n), want, "%s: %s", cases[i].name, cases[i].want);
        for (size_t k = 0; k < n; k++)
            if (cases[i].p[k] != caps && cases[i].p[k] != nf)
                free (cases[i].p[k]);
    }
    /* the messages name the lease of the interval at fault, not the first
     * (the intervals' ids share one block of text) */
    char *ov[] = { caps,
                   S ("1", "A", "\"a\"", 8, 0),
                   E ("2", "A", "\"a\"", 8, 0, 100),
                   S ("3", "B", "\"b\"", 8, 0),
                   S ("4", "C", "\"b\"", 8, 50) };
    is (verify_all (ov, 5), "node-overlap@5 lotteries=0", "an overlap on node b");
    ok (strstr (verify_msg, "lease C starts at 50 while lease B (seq 4"),
        "its message names leases C and B (%s)", verify_msg);
    char *win[] = { caps_ev ("b1", 0, 32, 1000, 0, 10000),
                    S ("1", "A", "\"a\"", 8, 0),
                    E ("2", "A", "\"a\"", 8, 0, 100),
                    S ("3", "B", "\"b\"", 8, 20000) };
    is (verify_all (win, 4), "window@4 lotteries=0", "a lease started after its window");
    ok (strstr (verify_msg, "lease B starts at 20000 outside envelope e1's window"),
        "its message names lease B (%s)", verify_msg);
    for (size_t k = 1; k < 5; k++)
        free (ov[k]);
    for (size_t k = 0; k < 4; k++)
        free (win[k]);
    free (caps);
    free (nf);
#undef S
#undef E
}

/* ---- lease time against brute force ---- */

enum { R_LEASES = 6, R_EPOCHS = 3, R_T = 40 };

struct rl {
    int start, end; /* end -1: open */
    int gpus, node, env;
};

struct rcap {
    int c, ws, we;
    double b;
    bool capped;
};

struct rep {
    int time;
    int seq; /* its place in the ledger */
    struct rcap cap[2]; /* envelopes e0, e1 */
};

static bool r_before (const struct rep *a, const struct rep *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

/* The epoch in force at instant t: the latest by (time, seq) with time <=
 * t, else the first. -1: none. */
static int r_epoch (const struct rep *ep, int nep, int t)
{
    int best = -1, first = -1;
    for (int k = 0; k < nep; k++) {
        if (first < 0 || r_before (&ep[k], &ep[first]))
            first = k;
        if (ep[k].time <= t && (best < 0 || r_before (&ep[best], &ep[k])))
            best = k;
    }
    return best >= 0 ? best : first;
}

/* The classes an exhaustive check over every integer instant finds (bit
 * per jt_violation_kind_t). */
static unsigned brute (const struct rl *l, int n, const struct rep *ep, int nep, int horizon)
{
    unsigned found = 0;
    for (int t = 0; t <= horizon; t++) {
        int active[2] = { 0, 0 };
        int holder[4] = { -1, -1, -1, -1 };
        int k = r_epoch (ep, nep, t);
        for (int i = 0; i < n; i++) {
            int e = l[i].end < 0 ? horizon + 1 : l[i].end;
            if (l[i].start == l[i].end || t < l[i].start || t >= e)
                continue;
            active[l[i].env] += l[i].gpus;
            if (holder[l[i].node] >= 0)
                found |= 1u << JT_VIOL_NODE_OVERLAP;
            holder[l[i].node] = i;
            /* the window: an instant it runs (open ones: up to the last) */
            const struct rcap *c = k >= 0 ? &ep[k].cap[l[i].env] : NULL;
            if (c && c->capped && (l[i].end >= 0 || t < horizon)
                && (t < c->ws || t >= c->we))
                found |= 1u << JT_VIOL_WINDOW;
        }
        for (int e = 0; e < 2; e++) {
            const struct rcap *c = k >= 0 ? &ep[k].cap[e] : NULL;
            if (c && c->capped && active[e] > c->c)
                found |= 1u << JT_VIOL_CONCURRENCY;
            /* usage by t against the caps in force just before t and at t */
            double used = 0;
            for (int i = 0; i < n; i++) {
                int end = l[i].end < 0 ? horizon : l[i].end;
                int upto = end < t ? end : t;
                if (l[i].env == e && upto > l[i].start)
                    used += (double) l[i].gpus * (upto - l[i].start);
            }
            int kb = t > 0 ? r_epoch (ep, nep, t - 1) : k;
            for (int j = 0; j < 2; j++) {
                const struct rcap *cb = (j ? k : kb) >= 0 ? &ep[j ? k : kb].cap[e] : NULL;
                if (cb && cb->capped && t > 0 && used / 3600.0 > cb->b + 1e-9)
                    found |= 1u << JT_VIOL_GPU_HOURS;
            }
        }
    }
    /* a lease that holds nothing (ending where it starts, or open from the
     * last instant): its start against the window */
    for (int i = 0; i < n; i++) {
        int k = r_epoch (ep, nep, l[i].start);
        const struct rcap *c = k >= 0 ? &ep[k].cap[l[i].env] : NULL;
        if ((l[i].end < 0 ? horizon : l[i].end) == l[i].start && c && c->capped
            && (l[i].start < c->ws || l[i].start >= c->we))
            found |= 1u << JT_VIOL_WINDOW;
    }
    return found;
}

/* Random small ledgers (6 leases on 4 nodes, 2 envelopes, up to 3 budget
 * loads, times in [0, 40), events in a random order that keeps each End
 * after its Start): verify finds a violation exactly when an exhaustive
 * check of every instant does, and one of the classes it finds. Times are
 * seconds: B is in GPU-hours, so it is scaled to be reachable. */
static void test_lease_time_random (void)
{
    uint64_t st = 20260301;
    int mismatch = 0, nviol = 0, cases = 300;
    for (int c = 0; c < cases; c++) {
        struct rl l[R_LEASES];
        struct rep ep[R_EPOCHS];
        int n = 2 + prng_below (&st, R_LEASES - 1), nep = prng_below (&st, R_EPOCHS + 1);
        int horizon = 0;
        for (int i = 0; i < n; i++) {
            l[i].start = prng_below (&st, R_T);
            l[i].end = prng_below (&st, 4) ? l[i].start + prng_below (&st, R_T / 2) : -1;
            l[i].gpus = 1 + prng_below (&st, 8);
            l[i].node = prng_below (&st, 4);
            l[i].env = prng_below (&st, 2);
        }
        for (int k = 0; k < nep; k++) {
            ep[k].time = prng_below (&st, R_T);
            for (int e = 0; e < 2; e++) {
                struct rcap *cp = &ep[k].cap[e];
                cp->capped = prng_below (&st, 4) != 0;
                cp->c = 4 + prng_below (&st, 12);
                cp->b = (double) (prng_below (&st, 300)) / 3600.0;
                cp->ws = prng_below (&st, 4) ? 0 : prng_below (&st, R_T / 2);
                cp->we = prng_below (&st, 3) ? 100 : cp->ws + 1 + prng_below (&st, R_T);
            }
        }
        /* the payloads: budget loads and Starts, then each End somewhere
         * after its Start */
        char *p[R_LEASES * 2 + R_EPOCHS + 1];
        int np = 0, order[R_LEASES * 2 + R_EPOCHS];
        int no = 0;
        for (int k = 0; k < nep; k++)
            order[no++] = 100 + k;
        for (int i = 0; i < n; i++)
            order[no++] = i;
        for (int i = no - 1; i > 0; i--) {
            int j = prng_below (&st, i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < n; i++)
            if (l[i].end >= 0) {
                int at = 0; /* after the Start of i */
                while (order[at] != i)
                    at++;
                int pos = at + 1 + prng_below (&st, no - at);
                memmove (order + pos + 1, order + pos, (size_t) (no - pos) * sizeof (int));
                order[pos] = 200 + i;
                no++;
            }
        for (int o = 0; o < no; o++) {
            char buf[1024], id[32], lease[16], node[8], env[8];
            int w = order[o];
            snprintf (id, sizeof (id), "r%d", o);
            if (w >= 100 && w < 200) {
                struct rep *k = &ep[w - 100];
                k->seq = o;
                int m = snprintf (buf, sizeof (buf),
                                  "{\"v\":1,\"type\":\"BudgetLoaded\",\"id\":\"%s\","
                                  "\"time\":%d,\"files\":[],\"caps\":[",
                                  id, k->time);
                bool any = false;
                for (int e = 0; e < 2; e++)
                    if (k->cap[e].capped) {
                        char b[64];
                        snprintf (b, sizeof (b), "%.17g", k->cap[e].b);
                        if (!strchr (b, '.') && !strchr (b, 'e'))
                            strcat (b, ".0");
                        m += snprintf (buf + m, sizeof (buf) - (size_t) m,
                                       "%s{\"envelope\":\"e%d\",\"owner\":\"o\","
                                       "\"concurrency\":%d,\"maxGPUHours\":%s,"
                                       "\"start\":%d,\"end\":%d}",
                                       any ? "," : "", e, k->cap[e].c, b, k->cap[e].ws,
                                       k->cap[e].we);
                        any = true;
                    }
                snprintf (buf + m, sizeof (buf) - (size_t) m, "]}");
                p[np++] = strdup (buf);
                continue;
            }
            int i = w % 100;
            snprintf (lease, sizeof (lease), "L%d", i);
            snprintf (node, sizeof (node), "\"n%d\"", l[i].node);
            snprintf (env, sizeof (env), "e%d", l[i].env);
            char *js = edit (lease_ev (w < 100 ? "Start" : "End", id, lease, node, l[i].gpus,
                                       "Active", l[i].start, w < 100 ? -1 : l[i].end, "End"),
                             "\"envelope\":\"e1\"", "\"envelope\":\"X\"");
            char *js2 = edit (js, "\"envelope\":\"X\"", env[1] == '0'
                                                            ? "\"envelope\":\"e0\""
                                                            : "\"envelope\":\"e1\"");
            free (js);
            p[np++] = js2;
        }
        for (int o = 0; o < no; o++) {
            int w = order[o], t = w >= 100 && w < 200 ? ep[w - 100].time
                                  : w < 100            ? l[w].start
                                                       : l[w - 200].end;
            if (t > horizon)
                horizon = t;
        }
        unsigned want = brute (l, n, ep, nep, horizon);
        verify_quiet = true;
        const char *got = verify_all (p, (size_t) np);
        verify_quiet = false;
        jt_violation_kind_t kind = JT_VIOL_NONE;
        for (int k = JT_VIOL_NONE; k <= JT_VIOL_LOTTERY; k++)
            if (!strncmp (got, jt_violation_str (k), strlen (jt_violation_str (k)))
                && got[strlen (jt_violation_str (k))] == '@')
                kind = k;
        bool agree = kind == JT_VIOL_NONE ? want == 0 : (want >> kind) & 1;
        nviol += want != 0;
        if (!agree && mismatch++ < 5) {
            diag ("case %d: verify says %s, every instant says %#x; the ledger:", c, got,
                  want);
            for (int o = 0; o < np; o++)
                diag ("  %s", p[o]);
        }
        for (int o = 0; o < np; o++)
            free (p[o]);
    }
    is_int (mismatch, 0,
            "%d random ledgers (%d with a violation): verify agrees with every instant",
            cases, nviol);
}

#define RESV_EV(type, id, time, resv, extra)                                         \
    "{\"v\":1,\"type\":\"" type "\",\"id\":\"" id "\",\"time\":" #time             \
    ",\"reservation\":\"" resv "\",\"run\":\"c:5\"" extra "}"
#define RESV_CREATE(id, time, resv)                                                    \
    RESV_EV ("ReservationCreate", id, time, resv,                                      \
             ",\"envelope\":\"e1\",\"owner\":\"rai\",\"nodes\":[\"a\"],\"gpus\":8," \
             "\"start\":9000")

/* A run's second ReservationCreate, with another id, replaces its open
 * reservation (docs/ledger-format.md, section 4): the fold frees the one it
 * replaced (it leaked while jt_map_put did not hand replaced values back;
 * LeakSanitizer sees it in the sanitizer build), keeps the newer one, and a
 * Release of the replaced id leaves the newer open. */
static void test_resv_replaced (void)
{
    const char *p[] = { CAPS, RESV_CREATE ("r1", 50, "R1"), RESV_CREATE ("r2", 60, "R2") };
    char tmpl[] = "/tmp/jt-ledger-resv.XXXXXX", cmd[128], buf[128];
    char *dir = mkdtemp (tmpl);
    const char *paths[] = { dir };
    size_t lens[3];
    uint64_t first, nv = 0;
    jt_ledger_result_t res;
    jt_violation_t v;
    jt_error_t err = { "" };
    jt_fold_reservation_t r;

    if (!dir)
        bail_out ("mkdtemp");
    for (size_t i = 0; i < 3; i++)
        lens[i] = strlen (p[i]);
    jt_ledger_writer_t *w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err);
    if (!w || jt_ledger_writer_append (w, p, lens, 3, &first, &err) < 0)
        bail_out ("ledger: %s", err.text);
    jt_ledger_writer_close (w);
    jt_ledger_fold_t *f = jt_ledger_fold_replay (paths, 1, &res, &nv, &v, &err);
    if (!f)
        bail_out ("replay: %s", err.text);
    is_int (nv, 0, "BudgetLoaded, Create R1, Create R2 of one run: no violation");
    snprintf (buf, sizeof (buf), "%s", "none");
    if (jt_ledger_fold_open_resv (f, "c:5", &r) == 0)
        snprintf (buf, sizeof (buf), "%s %lld", r.reservation, (long long) r.created);
    is (buf, "R2 60", "the run's open reservation is the second Create's");
    jt_fold_reservation_t *all;
    size_t n = 0;
    ok (jt_ledger_fold_open_resvs (f, &all, &n, &err) == 0 && n == 1,
        "one open reservation: the first was replaced, not kept beside it");
    free (all);
    const char *more[] = { RESV_EV ("ReservationReleased", "r3", 70, "R1", ""),
                           RESV_EV ("ReservationActivate", "r4", 80, "R2", "") };
    const char *want[] = { "R2", "none" };
    const char *why[] = { "a Release of the replaced id leaves the newer one open",
                          "its Activate closes it" };
    for (size_t i = 0; i < 2; i++) {
        jt_event_t *e = jt_event_from_json (more[i], strlen (more[i]), &err);
        if (!e || jt_ledger_fold_apply (f, 4 + i, e, &v, &err) != 0)
            bail_out ("event %zu: %s", i, err.text);
        jt_event_destroy (e);
        is (jt_ledger_fold_open_resv (f, "c:5", &r) == 0 ? r.reservation : "none", want[i],
            "%s", why[i]);
    }
    jt_ledger_fold_destroy (f);
    snprintf (cmd, sizeof (cmd), "rm -rf %s", dir);
    if (system (cmd) != 0)
        diag ("rm failed");
}

int main (void)
{
    char *s1 = EV ("Start", "1", "L1", "\"a\",\"b\"", 8, "Active", 0, -1, NULL);
    char *s2 = EV ("Start", "2", "L2", "\"c\"", 8, "Borrowed", 3600, -1, NULL);
    char *e1 = EV ("End", "3", "L1", "\"a\",\"b\"", 8, "Active", 0, 7200, "End");
    char *s3 = EV ("Start", "4", "L3", "\"b\"", 8, "Active", 7200, -1, NULL);
    char *ov = EV ("Start", "5", "L4", "\"b\"", 4, "Active", 3600, -1, NULL);
    char *big = EV ("Start", "6", "L5", "\"d\"", 4, "Active", 3600, -1, NULL);
    char *e9 = EV ("End", "7", "L9", "\"d\"", 4, "Active", 0, 10, "Shrink");
    char *dupid = EV ("Start", "1", "L6", "\"z\"", 1, "Active", 3600, -1, NULL);
    char *dups = EV ("Start", "8", "L2", "\"y\"", 1, "Active", 3600, -1, NULL);
    char *e2bad = EV ("End", "9", "L2", "\"c\"", 4, "Borrowed", 3600, 7200, "End");
    char *e2 = EV ("End", "10", "L2", "\"c\"", 8, "Borrowed", 3600, 7200, "Swap");
    char *late =
        EV ("End", "11", "L3", "\"b\"", 8, "Active", 7200, 7200 + 3600 * 3, "End");
    char *win = EV ("Start", "12", "L7", "\"q\"", 1, "Active", 100000, -1, NULL);

    jt_ledger_fold_t *f;
    const char *ok_seq[] = { CAPS, s1, s2, e1, s3, e2, NULL };
    is (run (ok_seq, &f), "none", "a valid history keeps every invariant");
    uint64_t ev, st, en, op;
    jt_ledger_fold_counts (f, &ev, &st, &en, &op);
    is_int (ev * 1000 + st * 100 + en * 10 + op, 6321,
            "6 events, 3 starts, 2 ends, 1 open");
    jt_fold_envelope_t env[4];
    size_t n = jt_ledger_fold_envelopes (f, 10800, env, 4);
    is_int (n, 1, "one envelope");
    char buf[256];
    snprintf (buf, sizeof (buf), "%s owner=%s active=%lld peak=%lld h=%.1f bh=%.1f",
              env[0].name, env[0].owner, (long long) env[0].active_gpus,
              (long long) env[0].peak_gpus, env[0].gpu_hours,
              env[0].borrowed_gpu_hours);
    is (buf, "e1 owner=rai active=8 peak=16 h=32.0 bh=8.0",
        "live figures: L1 16h + L2 8h + L3 8h at t=3h");
    jt_fold_lease_t open[2];
    is_int (jt_ledger_fold_open (f, open, 2), 1, "one open lease");
    is (open[0].lease, "L3", "it is L3");
    jt_ledger_fold_destroy (f);

    const char *c1[] = { CAPS, s1, ov, NULL };
    is (run (c1, NULL), "node-overlap@3", "node in two active leases");
    const char *c2[] = { CAPS, s1, s2, big, NULL };
    is (run (c2, NULL), "concurrency@4", "envelope over its concurrency");
    const char *c3[] = { CAPS, s1, e9, NULL };
    is (run (c3, NULL), "unmatched-end@3", "End without Start");
    const char *c4[] = { CAPS, s1, dupid, NULL };
    is (run (c4, NULL), "duplicate-id@3", "event id repeated");
    const char *c5[] = { CAPS, s2, dups, NULL };
    is (run (c5, NULL), "duplicate-start@3", "Start of an open lease");
    const char *c6[] = { CAPS, s2, e2bad, NULL };
    is (run (c6, NULL), "bad-interval@3", "End disagreeing with its Start");
    const char *c7[] = { CAPS, s1, e1, s3, late, NULL };
    is (run (c7, NULL), "gpu-hours@5", "envelope over its GPU-hours");
    const char *c8[] = { CAPS, win, NULL };
    is (run (c8, NULL), "window@2", "lease outside the window");
    const char *c9[] = { s1, big, s2, NULL };
    is (run (c9, NULL), "none", "without caps only structural invariants apply");
    const char *c10[] = { CAPS, s1, e1, e1, NULL };
    is (run (c10, NULL), "duplicate-id@4", "an End resent twice is a duplicate id");

    /* jt_ledger_verify over a real ledger */
    char tmpl[] = "/tmp/jt-ledger-fold.XXXXXX";
    char *dir = mkdtemp (tmpl);
    jt_error_t err = { "" };
    jt_ledger_result_t res;
    jt_ledger_writer_t *w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err);
    const char *p[] = { CAPS, s1, s2, ov, e1 };
    size_t lens[5];
    uint64_t first;
    for (int i = 0; i < 5; i++)
        lens[i] = strlen (p[i]);
    ok (w && jt_ledger_writer_append (w, p, lens, 5, &first, &err) == 0, "write 5");
    jt_ledger_writer_close (w);
    jt_violation_t v;
    const char *paths[] = { dir };
    ok (jt_ledger_verify (paths, 1, NULL, NULL, &res, &v, NULL, &err) == 0, "verify runs");
    snprintf (buf, sizeof (buf), "%s %s@%llu", jt_ledger_status_str (res.status),
              jt_violation_str (v.kind), (unsigned long long) v.seq);
    is (buf, "OK node-overlap@4", "verify finds the overlap at seq 4");
    uint64_t nv = 0;
    jt_violation_t firstv;
    jt_ledger_fold_t *rf = jt_ledger_fold_replay (paths, 1, &res, &nv, &firstv, &err);
    ok (rf != NULL, "replay rebuilds live state");
    is_int (nv, 1, "replay goes on past the one violation");
    is_int (firstv.seq, 4, "and reports the first at seq 4");
    jt_fold_lease_t open2[4];
    is_int (rf ? jt_ledger_fold_open (rf, open2, 4) : 0, 2, "two leases open at the end");
    jt_ledger_fold_destroy (rf);

    /* pinned caps win over recorded ones */
    jt_event_t *pin = jt_event_create (JT_EV_BUDGET_LOADED);
    jt_ev_cap_t cap = { .envelope = "e1", .owner = "rai", .concurrency = 4,
                        .max_gpu_hours = 1000, .start = 0, .end = 100000 };
    jt_event_set (&pin->id, "pin");
    jt_event_add_cap (pin, &cap);
    ok (jt_ledger_verify (paths, 1, NULL, pin, &res, &v, NULL, &err) == 0, "verify, pinned");
    snprintf (buf, sizeof (buf), "%s@%llu", jt_violation_str (v.kind),
              (unsigned long long) v.seq);
    is (buf, "concurrency@2", "pinned concurrency 4 is broken by the first Start");
    jt_event_destroy (pin);

    /* history (report), closed hours, forgotten ids (the plugin) */
    {
        const char *hs[] = {
            CAPS, s1, s2, e1, s3, e2,
            "{\"v\":1,\"type\":\"ReservationCreate\",\"id\":\"r1\",\"time\":50,"
            "\"run\":\"c:2\",\"gpus\":8,\"envelope\":\"e1\",\"owner\":\"rai\","
            "\"start\":9000,\"reservation\":\"R1\"}",
            "{\"v\":1,\"type\":\"ReservationActivate\",\"id\":\"r2\",\"time\":60,\"run\":\"c:2\","
            "\"reservation\":\"R1\"}",
            s1, /* a Start again: not a second row */
            NULL };
        jt_ledger_fold_t *h = jt_ledger_fold_create ();
        ok (jt_ledger_fold_keep_history (h, &err) == 0, "history kept");
        for (size_t i = 0; hs[i]; i++) {
            jt_event_t *e = jt_event_from_json (hs[i], strlen (hs[i]), &err);
            if (!e)
                bail_out ("history event %zu: %s", i, err.text);
            jt_ledger_fold_apply (h, i + 1, e, &v, &err);
            jt_event_destroy (e);
        }
        ok (jt_ledger_fold_keep_history (h, &err) == 0, "asking again is harmless");
        jt_fold_lease_t *rows;
        size_t nr;
        ok (jt_ledger_fold_leases (h, &rows, &nr, &err) == 0, "history rows");
        buf[0] = '\0';
        for (size_t i = 0; i < nr; i++)
            snprintf (buf + strlen (buf), sizeof (buf) - strlen (buf),
                      "%s:%lld-%lld:%s ", rows[i].lease, (long long) rows[i].start,
                      (long long) rows[i].end, jt_end_reason_str (rows[i].reason));
        is (buf, "L1:0-7200:End L2:3600-7200:Swap L3:7200--1:None ",
            "every lease once, sorted, closed by its End");
        free (rows);
        jt_fold_reservation_t *rv;
        ok (jt_ledger_fold_reservations (h, &rv, &nr, &err) == 0 && nr == 1, "one reservation");
        if (nr == 1) {
            snprintf (buf, sizeof (buf), "%s %s %lld %lld %lld", rv[0].reservation,
                      rv[0].run, (long long) rv[0].created, (long long) rv[0].activated,
                      (long long) rv[0].released);
            is (buf, "R1 c:2 50 60 -1", "created, activated, not released");
        }
        free (rv);
        jt_fold_envelope_t e1f;
        ok (jt_ledger_fold_envelope (h, "e1", 10800, &e1f) == 0, "envelope by name");
        snprintf (buf, sizeof (buf), "closed=%.1f borrowed=%.1f live=%.1f",
                  e1f.closed_gpu_hours, e1f.closed_borrowed_gpu_hours, e1f.gpu_hours);
        is (buf, "closed=24.0 borrowed=8.0 live=56.0",
            "closed GPU-hours (L1 16, L2 8 Borrowed) apart from open ones (L1 again, L3)");
        is_int (jt_ledger_fold_last_time (h), 7200, "last event time");
        jt_fold_lease_t *ol;
        ok (jt_ledger_fold_open_list (h, "c:1", &ol, &nr, &err) == 0 && nr == 2
                && !strcmp (ol[0].lease, "L1") && !strcmp (ol[1].lease, "L3")
                && ol[0].end == -1,
            "open leases of a run, sorted (L1 started again, L3)");
        free (ol);
        ok (jt_ledger_fold_open_list (h, "c:9", &ol, &nr, &err) == 0 && nr == 0,
            "none for another run");
        free (ol);
        jt_ledger_fold_destroy (h);

        h = jt_ledger_fold_create ();
        jt_ledger_fold_forget_ids (h);
        const char *twice[] = { s1, e1, e1, NULL };
        int viols = 0;
        for (size_t i = 0; twice[i]; i++) {
            jt_event_t *e = jt_event_from_json (twice[i], strlen (twice[i]), &err);
            if (jt_ledger_fold_apply (h, i + 1, e, &v, &err) > 0
                && v.kind == JT_VIOL_DUP_ID)
                viols++;
            jt_event_destroy (e);
        }
        is_int (viols, 0, "ids forgotten: a repeated id is not remembered");
        jt_fold_lease_t *none;
        ok (jt_ledger_fold_leases (h, &none, &nr, &err) == 0 && nr == 0,
            "no history unless asked for");
        free (none);
        ok (jt_ledger_fold_keep_history (h, &err) < 0, "history refused after events");
        jt_ledger_fold_destroy (h);
    }

    char cmd[256];
    snprintf (cmd, sizeof (cmd), "rm -rf %s", dir);
    if (system (cmd) != 0)
        diag ("rm failed");
    free (s1);
    free (s2);
    free (e1);
    free (s3);
    free (ov);
    free (big);
    free (e9);
    free (dupid);
    free (dups);
    free (e2bad);
    free (e2);
    free (late);
    free (win);
    test_activation ();
    test_resv_drawn ();
    test_ckpt_kept_text ();
    test_lease_time ();
    test_lease_time_random ();
    test_resv_replaced ();
    return done_testing ();
}
