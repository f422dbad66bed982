/*
 * conformance.c - unit tests of conformance fingerprints
 * (jobtree/conformance.h): --conformance and locality.conformance in the
 * run model, the fingerprint a node set shares, Pack preferring for each
 * group the largest set of free nodes of one fingerprint, strict mode
 * (never mixed: the run waits, naming why), and the plan reporting the
 * fingerprint a group runs on. Plans compared as canonical dumps.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/conformance.h"
#include "jobtree/ledger.h"
#include "jobtree/ledger_lease.h"
#include "jobtree/record.h"
#include "jobtree/options.h"
#include "jobtree/plan.h"
#include "fixtures.h"
#include "tap.h"

/* got matches the extended regular expression re. */
static void like (const char *got, const char *re, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
static void like (const char *got, const char *re, const char *fmt, ...)
{
    regex_t rx;
    char name[512];
    va_list ap;
    bool m;

    va_start (ap, fmt);
    vsnprintf (name, sizeof (name), fmt, ap);
    va_end (ap);
    if (regcomp (&rx, re, REG_EXTENDED | REG_NOSUB) != 0)
        bail_out ("bad regex %s", re);
    m = got && regexec (&rx, got, 0, NULL, 0) == 0;
    regfree (&rx);
    ok (m, "%s", name);
    if (!m)
        diag ("got: '%s'\nwant: /%s/", got ? got : "(null)", re);
}

/* One 8-GPU h100 node with features "k=v,...". */

#define RAI "{ \"owner\": \"rai\", \"envelopes\": [" FX_ENV ("rai-h100", "", 64, "") "] }"
#define RUN16(loc) \
    "{ \"owner\": \"rai\", \"resources\": { \"gpuType\": \"h100\", \"totalGPUs\": 16 }," \
    " \"locality\": { \"groupGPUs\": 16" loc " } }"

static void test_options (void)
{
    jt_run_t r;
    jt_error_t err;
    char *t;

    jt_run_init (&r);
    ok (jt_opt_apply (&r, "conformance", "strict", &err) == 0 && r.conformance_strict,
        "--conformance=strict");
    ok (jt_opt_apply (&r, "conformance", "prefer", &err) == 0 && !r.conformance_strict,
        "--conformance=prefer");
    ok (jt_opt_apply (&r, "conformance", "always", &err) < 0, "--conformance=always refused");
    is (err.text, "--conformance=always: expected prefer or strict, e.g. "
        "--conformance=strict", "with its line");
    jt_run_clear (&r);

    {
        jt_run_t *s = fx_run (RUN16 (", \"conformance\": \"strict\""));
        ok (s->conformance_strict, "locality.conformance strict read");
        t = jt_run_to_json (s);
        ok (t && strstr (t, "\"conformance\":\"strict\""), "written back: %s", t ? t : "");
        free (t);
        jt_run_destroy (s);
    }
    {
        jt_run_t *p = fx_run (RUN16 (", \"conformance\": \"prefer\""));
        ok (!p->conformance_strict, "prefer is the default");
        t = jt_run_to_json (p);
        ok (t && !strstr (t, "conformance"), "prefer is not written (old records unchanged)");
        free (t);
        jt_run_destroy (p);
    }
    like (fx_parse_run (RUN16 (", \"conformance\": \"always\""), NULL),
          "locality.conformance: must be \"prefer\" or \"strict\", got \"always\"",
          "a bad value named with its path");
    {
        like (fx_parse_run (RUN16 (", \"conformance\": \"strict\", \"groupBy\": \"rack\""),
                            NULL),
              "locality.conformance: strict conformance .* cannot be combined with a "
              "group-by label \\(rack\\) yet", "strict with group-by refused, naming the label");
        jt_run_t *g = NULL;
        jt_run_destroy (g);
    }
}

static void test_of (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    size_t all[] = { 0, 1, 2, 3 }, xx[] = { 0, 1 }, xy[] = { 1, 2 }, xn[] = { 0, 3 };
    size_t nn[] = { 3 };
    const char *v;

    fx_node (s, "n1", "fabric.domain=A,conformance=x");
    fx_node (s, "n2", "fabric.domain=A,conformance=x");
    fx_node (s, "n3", "fabric.domain=A,conformance=y");
    fx_node (s, "n4", "fabric.domain=A");
    fx_finalize (s);
    ok (jt_conformance_of (s, xx, 2, &v) == JT_CONF_ONE && !strcmp (v, "x"), "x x: one, x");
    ok (jt_conformance_of (s, xy, 2, &v) == JT_CONF_MIXED && !v, "x y: mixed");
    ok (jt_conformance_of (s, xn, 2, &v) == JT_CONF_MIXED, "x and none: mixed");
    ok (jt_conformance_of (s, nn, 1, &v) == JT_CONF_NONE, "none: none");
    ok (jt_conformance_of (s, all, 4, NULL) == JT_CONF_MIXED, "all: mixed");
    jt_snapshot_destroy (s);
}

/* A: a1 y, a2..a4 x (name order would take a1 first); B: b1 b2 z. */
static jt_snapshot_t *cluster_prefer (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();

    fx_node (s, "a1", "fabric.domain=A,conformance=y");
    fx_node (s, "a2", "fabric.domain=A,conformance=x");
    fx_node (s, "a3", "fabric.domain=A,conformance=x");
    fx_node (s, "a4", "fabric.domain=A,conformance=x");
    fx_node (s, "b1", "fabric.domain=B,conformance=z");
    fx_node (s, "b2", "fabric.domain=B,conformance=z");
    return fx_finalize (s);
}

/* A: four fingerprints (w x y v); B: b1 b2 x. */
static jt_snapshot_t *cluster_strict (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();

    fx_node (s, "a1", "fabric.domain=A,conformance=w");
    fx_node (s, "a2", "fabric.domain=A,conformance=x");
    fx_node (s, "a3", "fabric.domain=A,conformance=y");
    fx_node (s, "a4", "fabric.domain=A,conformance=v");
    fx_node (s, "b1", "fabric.domain=B,conformance=x");
    fx_node (s, "b2", "fabric.domain=B,conformance=x");
    return fx_finalize (s);
}

static void test_pack (void)
{
    jt_budgets_t *b = fx_budgets (RAI, FX_END);
    jt_snapshot_t *s = cluster_prefer ();
    jt_run_t *r = fx_run (RUN16 (""));
    jt_run_t *st = fx_run (RUN16 (", \"conformance\": \"strict\""));
    jt_plan_t p;
    char *txt = NULL;
    size_t len = 0;
    FILE *f;

    is (fx_plan (b, s, NULL, r, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=16 | g0 16 A[a2:8 a3:8] rai-h100",
        "prefer: the group takes two x nodes of A, not a1 (y) by name");
    jt_snapshot_destroy (s);

    /* a group larger than any one class: the largest first, then the next */
    s = cluster_prefer ();
    {
        jt_run_t *big = fx_run ("{ \"owner\": \"rai\", \"resources\": { \"gpuType\":"
                                " \"h100\", \"totalGPUs\": 32 }, \"locality\":"
                                " { \"groupGPUs\": 32 } }");
        is (fx_plan (b, s, NULL, big, JT_PACK_TO_EMPTY, NULL),
            "BindNow total=32 | g0 32 A[a2:8 a3:8 a4:8 a1:8] rai-h100",
            "prefer, no class holds it: the three x nodes, then a1");
        jt_run_destroy (big);
    }
    jt_snapshot_destroy (s);

    s = cluster_strict ();
    is (fx_plan (b, s, NULL, r, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=16 | g0 16 A[a4:8 a1:8] rai-h100",
        "prefer with four classes of one in A: A still comes first (mixed)");
    is (fx_plan (b, s, NULL, st, JT_PACK_TO_EMPTY, &p),
        "BindNow total=16 | g0 16 B[b1:8 b2:8] rai-h100",
        "strict: never mixed; the group goes to B's two x nodes");
    /* the plan reports the fingerprint the group runs on */
    if (!(f = open_memstream (&txt, &len)))
        bail_out ("open_memstream");
    jt_plan_print (&p, s, f);
    fclose (f);
    like (txt, "b\\[1-2\\]:8 conformance=x", "plan text: conformance=x");
    free (txt);
    txt = jt_plan_to_json (&p, s);
    like (txt, "\"conformance\": ?\"x\"", "plan JSON: \"conformance\": \"x\"");
    free (txt);
    jt_plan_free (&p);
    jt_snapshot_destroy (s);

    /* strict and no class of two nodes anywhere: it waits, saying why */
    s = jt_snapshot_create ();
    fx_node (s, "a1", "fabric.domain=A,conformance=x");
    fx_node (s, "a2", "fabric.domain=A,conformance=y");
    fx_node (s, "b1", "fabric.domain=B,conformance=x");
    fx_node (s, "b2", "fabric.domain=B,conformance=y");
    fx_finalize (s);
    like (fx_plan (b, s, NULL, st, JT_PACK_TO_EMPTY, &p), "^Reject|^PlanLater",
          "strict without two nodes of one fingerprint in a domain: no placement");
    like (p.detail, "grouped by conformance", "the detail names it: %s", p.detail);
    jt_plan_free (&p);
    is (fx_plan (b, s, NULL, r, JT_PACK_TO_EMPTY, &p),
        "BindNow total=16 | g0 16 A[a1:8 a2:8] rai-h100", "prefer mixes instead");
    jt_plan_free (&p);
    jt_snapshot_destroy (s);

    jt_run_destroy (r);
    jt_run_destroy (st);
    jt_budgets_destroy (b);
}

/* The fingerprint a group ran on, from the plan to the record's bound
 * lease to the ledger's Start; old Starts (without it) stay valid. */
static void test_ledger (void)
{
    jt_budgets_t *b = fx_budgets (RAI, FX_END);
    jt_snapshot_t *s = cluster_prefer ();
    jt_run_t *r = fx_run (RUN16 (""));
    jt_plan_t plan;
    jt_jobrec_t rec;
    jt_error_t err;
    jt_lease_events_t evs = { 0 };
    const char *held[] = { "a2", "a3" };
    char *text, *bound, *json;
    jt_event_t *back;

    fx_plan (b, s, NULL, r, JT_PACK_TO_EMPTY, &plan);
    text = jt_jobrec_format (r, NULL);
    bound = jt_jobrec_bind (text, &plan, s, fx_time (FX_NOW), &err);
    like (bound, "\"nodes\":\\[\"a2\",\"a3\"\\],\"conformance\":\"x\"",
          "the bound lease records the fingerprint: %s", bound ? bound : err.text);
    ok (jt_jobrec_parse (bound, &rec, &err) == 0 && rec.nbound == 1
        && rec.bound[0].conformance && !strcmp (rec.bound[0].conformance, "x"),
        "and reads it back");
    {
        jt_job_facts_t job = { .cluster = "c1", .job_id = 42,
                               .start_time = fx_time (FX_NOW), .state = JT_JOB_RUNNING,
                               .rec = &rec, .account = "rai", .held = held, .nheld = 2 };
        ok (jt_lease_derive (&job, &evs, &err) == 0 && evs.n == 1, "one Start derived");
        ok (evs.n == 1 && evs.v[0]->conformance
            && !strcmp (evs.v[0]->conformance, "x"), "the Start carries conformance x");
        json = evs.n ? jt_event_to_json (evs.v[0], &err) : NULL;
        like (json, "\"conformance\":\"x\"", "in its JSON: %s", json ? json : err.text);
        back = json ? jt_event_from_json (json, strlen (json), &err) : NULL;
        ok (back && back->conformance && !strcmp (back->conformance, "x"),
            "read back from the JSON");
        jt_event_destroy (back);
        free (json);
    }
    jt_lease_events_clear (&evs);
    jt_jobrec_free (&rec);

    /* an old Start without it is valid; conformance on an End is not */
    {
        static const char *old =
            "{\"v\":1,\"type\":\"Start\",\"id\":\"e1\",\"time\":1,\"lease\":\"l1\","
            "\"run\":\"c1:1\",\"group\":\"0\",\"nodes\":[\"a1\"],\"gpus\":8,"
            "\"role\":\"Active\",\"envelope\":\"e\",\"owner\":\"rai\",\"start\":1}";
        char end[600];
        back = jt_event_from_json (old, strlen (old), &err);
        ok (back && !back->conformance, "an old Start parses, no conformance: %s",
            back ? "" : err.text);
        jt_event_destroy (back);
        snprintf (end, sizeof (end),
                  "{\"v\":1,\"type\":\"End\",\"id\":\"e2\",\"time\":2,\"lease\":\"l1\","
                  "\"run\":\"c1:1\",\"group\":\"0\",\"nodes\":[\"a1\"],\"gpus\":8,"
                  "\"role\":\"Active\",\"envelope\":\"e\",\"owner\":\"rai\",\"start\":1,"
                  "\"end\":2,\"reason\":\"End\"%s}", "");
        back = jt_event_from_json (end, strlen (end), &err);
        ok (back != NULL, "the End itself is valid: %s", back ? "" : err.text);
        jt_event_destroy (back);
        snprintf (end, sizeof (end),
                  "{\"v\":1,\"type\":\"End\",\"id\":\"e2\",\"time\":2,\"lease\":\"l1\","
                  "\"run\":\"c1:1\",\"group\":\"0\",\"nodes\":[\"a1\"],\"gpus\":8,"
                  "\"role\":\"Active\",\"envelope\":\"e\",\"owner\":\"rai\",\"start\":1,"
                  "\"end\":2,\"reason\":\"End\"%s}", ",\"conformance\":\"x\"");
        back = jt_event_from_json (end, strlen (end), &err);
        ok (back == NULL, "an End with conformance is refused: %s", err.text);
        jt_event_destroy (back);
    }
    free (bound);
    free (text);
    jt_plan_free (&plan);
    jt_run_destroy (r);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

int main (void)
{
    test_options ();
    test_of ();
    test_pack ();
    test_ledger ();
    return done_testing ();
}
