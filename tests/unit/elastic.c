/*
 * elastic.c - unit tests of a running malleable run's growth
 * (jobtree/elastic.h): it grows only with a checkpoint, only just after
 * one (else it waits for the next), by whole groups that Cover funds on
 * top of what it holds and Pack places on free nodes, up to its maximum
 * and its node range; never from a short group, never out of its domain
 * with cross-group spread off.
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

#include "jobtree/elastic.h"
#include "fixtures.h"
#include "tap.h"

#define RUNM(extra) \
    "{ \"owner\": \"rai\", \"resources\": { \"gpuType\": \"h100\", \"totalGPUs\": 48 }," \
    " \"locality\": { \"groupGPUs\": 16 }," \
    " \"malleable\": { \"minTotalGPUs\": 16, \"maxTotalGPUs\": 48, \"stepGPUs\": 16 }" \
    extra " }"
#define CKPT ", \"runtime\": { \"checkpoint\": \"10m\" }"

static int64_t now0;

/* Domain A with na nodes, B with nb (8 GPUs each); the run "c:7" holds
 * a01-a02 (16 GPUs, one group, paid by west-h100) and `busy` more nodes
 * of A are used by another run. */
static jt_snapshot_t *cluster (int na, int nb, int busy)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err = { "" };
    char *nodes[] = { "a01", "a02" };
    jt_lease_t l = { .run = "c:7", .group = 0, .owner = "rai", .envelope = "west-h100",
                     .nodes = nodes, .nnodes = 2, .gpus = 16, .role = JT_ROLE_ACTIVE,
                     .start = now0 - 3600, .end = 0 };

    fx_nodes (s, "a", 1, na, "region=west,fabric.domain=A", 8, 2 + busy);
    if (nb)
        fx_nodes (s, "b", 1, nb, "region=west,fabric.domain=B", 8, 0);
    if (jt_snapshot_add_lease (s, &l, &err) < 0)
        bail_out ("lease: %s", err.text);
    return fx_finalize (s);
}

/* rai's budget: one envelope, west-h100 (region west), of concurrency conc. */
static jt_budgets_t *west (int conc)
{
    char env[400];

    snprintf (env, sizeof (env), "{ \"owner\": \"rai\", \"envelopes\": ["
              FX_ENV ("west-h100", "\"region\": \"west\"", %d, "") "] }", conc);
    return fx_budgets (env, FX_END);
}

typedef struct row {
    const char *name;
    const char *run;            /* RUNM's extra fields */
    int conc;                   /* west-h100's concurrency */
    int na, nb, busy;
    int64_t current, cap;
    int64_t since_start;        /* now - start */
    int64_t slack;
    int domain;
    const char *want;           /* "verdict target at-now | detail" */
    int64_t bound;              /* what it started with (0: current) */
} row_t;

static const row_t rows[] = {
    { "just after a checkpoint, room for two more groups: grows now to the maximum",
      CKPT, 256, 6, 0, 0, 16, 0, 610, 30, -1,
      "now 48 +0 | grows from 16 to 48 GPUs: requeued 10 s after its checkpoint", 0 },
    { "exactly at a checkpoint (slack 0): grows now",
      CKPT, 256, 6, 0, 0, 16, 0, 1200, 0, -1,
      "now 48 +0 | grows from 16 to 48 GPUs: requeued 0 s after its checkpoint", 0 },
    { "too long after its checkpoint: waits for the next",
      CKPT, 256, 6, 0, 0, 16, 0, 700, 30, -1,
      "wait 48 +500 | would grow from 16 to 48 GPUs at its next checkpoint, in 500 s", 0 },
    { "one second past the slack after its checkpoint: waits for the next",
      CKPT, 256, 6, 0, 0, 16, 0, 631, 30, -1,
      "wait 48 +569 | would grow from 16 to 48 GPUs at its next checkpoint, in 569 s", 0 },
    { "before its first checkpoint: waits for it (start is no checkpoint)",
      CKPT, 256, 6, 0, 0, 16, 0, 5, 30, -1,
      "wait 48 +595 | would grow from 16 to 48 GPUs at its next checkpoint, in 595 s", 0 },
    { "no --checkpoint: never grows",
      "", 256, 6, 0, 0, 16, 0, 610, 0, -1,
      "no 0 | no --checkpoint: a requeue to grow would lose all its work (16 of 48 GPUs)", 0 },
    { "at its maximum: does not grow",
      CKPT, 256, 8, 0, 0, 48, 0, 610, 30, -1,
      "no 0 | at its maximum (48 of 48 GPUs)", 0 },
    { "room for one group only: grows by that one",
      CKPT, 256, 5, 0, 0, 16, 0, 610, 30, -1,
      "now 32 +0 | grows from 16 to 32 GPUs: requeued 10 s after its checkpoint", 0 },
    { "room for less than a group (one free node): does not grow",
      CKPT, 256, 3, 0, 0, 16, 0, 610, 30, -1,
      "no 0 | no room: not even 16 more GPUs are funded and placed now (it stays at 16)", 0 },
    { "free nodes but Cover counts its own 16: an envelope of 32 funds one more group",
      CKPT, 32, 6, 0, 0, 16, 0, 610, 30, -1,
      "now 32 +0 | grows from 16 to 32 GPUs: requeued 10 s after its checkpoint", 0 },
    { "its envelope is full with its own 16: does not grow",
      CKPT, 16, 6, 0, 0, 16, 0, 610, 30, -1,
      "no 0 | no room: not even 16 more GPUs are funded and placed now (it stays at 16)", 0 },
    { "its node range caps it at 32 GPUs",
      CKPT, 256, 6, 0, 0, 16, 32, 610, 30, -1,
      "now 32 +0 | grows from 16 to 32 GPUs: requeued 10 s after its checkpoint", 0 },
    { "a short last group (24 in groups of 16, step 8): does not grow",
      ", \"runtime\": { \"checkpoint\": \"10m\" }, \"_step\": 8", 256, 6, 0, 0, 24, 0,
      610, 30, -1,
      "no 0 | its last group is short (24 GPUs in groups of 16): it grows only from "
      "whole groups", 0 },
    { "spread off, room only in B while it runs in A: does not grow",
      CKPT ", \"_nospread\": 1", 256, 3, 4, 0, 16, 0, 610, 30, 0,
      "no 0 | no room in its domain (cross-group spread off; it stays at 16)", 0 },
    { "spread on, room only in B: grows into B",
      CKPT, 256, 3, 4, 0, 16, 0, 610, 30, 0,
      "now 48 +0 | grows from 16 to 48 GPUs: requeued 10 s after its checkpoint", 0 },
    { "spread off, room in its own domain A: grows",
      CKPT ", \"_nospread\": 1", 256, 6, 4, 0, 16, 0, 610, 30, 0,
      "now 48 +0 | grows from 16 to 48 GPUs: requeued 10 s after its checkpoint", 0 },
    { "shrunk since it started (32 bound, 16 held): keeps its size",
      CKPT, 256, 6, 0, 0, 16, 0, 610, 30, -1,
      "no 0 | shrunk since it started (16 of the 32 GPUs it started with): it keeps "
      "that size until it restarts", 32 },
    { "bound as it holds (32 of 32): grows",
      CKPT, 256, 8, 0, 0, 32, 0, 610, 30, -1,
      "now 48 +0 | grows from 32 to 48 GPUs: requeued 10 s after its checkpoint", 32 },
    { "another run holds A's free nodes: does not grow",
      CKPT, 256, 6, 0, 4, 16, 0, 610, 30, -1,
      "no 0 | no room: not even 16 more GPUs are funded and placed now (it stays at 16)", 0 },
};

/* The run of a row: RUNM with the row's fields, the test-only "_step" and
 * "_nospread" markers applied by hand (they are not run fields). */
static jt_run_t *row_run (const row_t *w)
{
    char json[512], extra[128];
    const char *st = strstr (w->run, ", \"_step\"");
    const char *ns = strstr (w->run, ", \"_nospread\"");
    size_t n = st ? (size_t) (st - w->run) : ns ? (size_t) (ns - w->run) : strlen (w->run);
    jt_run_t *r;

    snprintf (extra, sizeof (extra), "%.*s", (int) n, w->run);
    snprintf (json, sizeof (json), RUNM ("%s"), extra);
    r = fx_run (json);
    if (st) {
        r->step_gpus = 8;
        r->step_given = true;
    }
    if (ns)
        r->cross_group_spread = false;
    return r;
}

static void test_rows (void)
{
    for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++) {
        const row_t *w = &rows[i];
        char got[400];
        jt_budgets_t *b = west (w->conc);
        jt_snapshot_t *s = cluster (w->na, w->nb, w->busy);
        jt_run_t *r = row_run (w);
        ssize_t dom = jt_snapshot_domain_index (s, "west/A");
        jt_grow_in_t in = { .run = r, .current_gpus = w->current, .bound_gpus = w->bound,
                            .current_domain = w->domain >= 0 ? (int) dom : -1,
                            .cap_gpus = w->cap, .start = now0 - w->since_start,
                            .now = now0, .slack = w->slack, .policy = JT_PACK_TO_EMPTY };
        jt_grow_t g;
        jt_error_t err = { "" };

        if (jt_elastic_grow (b, s, &in, &g, &err) < 0)
            snprintf (got, sizeof (got), "error: %s", err.text);
        else if (g.verdict == JT_GROW_NO)
            snprintf (got, sizeof (got), "no %lld | %s", (long long) g.target, g.detail);
        else
            snprintf (got, sizeof (got), "%s %lld +%lld | %s",
                      jt_grow_verdict_str (g.verdict), (long long) g.target,
                      (long long) (g.at - now0), g.detail);
        is (got, w->want, "%s", w->name);
        if (g.verdict != JT_GROW_NO)
            ok (jt_elastic_due (r, in.start, in.now, in.slack) == (g.verdict == JT_GROW_NOW),
                "%s: jt_elastic_due agrees (%s)", w->name, jt_grow_verdict_str (g.verdict));
        if (g.verdict != JT_GROW_NO) {
            char *dump = jt_plan_dump (&g.extra, s);
            is_int (g.extra.total_gpus, g.target - w->current,
                    "%s: the new groups hold the difference", w->name);
            /* Which groups: whole groups on free nodes, never the run's own. */
            ok (dump && g.extra.total_gpus == 16 * (int64_t) g.extra.ngroups
                && !strstr (dump, "a01:") && !strstr (dump, "a02:"),
                "%s: whole groups of 16, none on its own a01-a02: %s", w->name, dump);
            if (i == 0)
                is (dump, "BindNow total=32 | g0 16 west/A[a03:8 a04:8] west-h100"
                    " | g1 16 west/A[a05:8 a06:8] west-h100",
                    "the new groups: two whole groups of 16 on the free nodes a03-a06");
            free (dump);
        }
        jt_grow_free (&g);
        jt_run_destroy (r);
        jt_snapshot_destroy (s);
        jt_budgets_destroy (b);
    }
}

static void test_errors (void)
{
    jt_budgets_t *b = west (256);
    jt_snapshot_t *s = cluster (6, 0, 0);
    jt_run_t *r = fx_run (RUNM (CKPT));
    jt_run_t *fixed = fx_run ("{ \"owner\": \"rai\", \"resources\": { \"gpuType\": "
                              "\"h100\", \"totalGPUs\": 16 }, \"runtime\": "
                              "{ \"checkpoint\": \"10m\" } }");
    struct { const char *name; int64_t cur, slack, start, now; const char *want; } e[] = {
        { "current above the maximum", 64, 0, 0, 600,
          "current total 64 GPUs is outside the run's bounds 16-48" },
        { "current below the minimum", 8, 0, 0, 600,
          "current total 8 GPUs is outside the run's bounds 16-48" },
        { "slack longer than the checkpoint interval", 16, 601, 0, 600,
          "slack 601 s must be 0..the run's checkpoint interval 600 s" },
        { "negative slack", 16, -1, 0, 600,
          "slack -1 s must be 0..the run's checkpoint interval 600 s" },
        { "now before start", 16, 0, 600, 0,
          "cap 0, start 600 or now 0 out of range (0 <= start <= now <= 2^40)" },
        { "now past 2^40", 16, 0, 0, INT64_MAX,
          "cap 0, start 0 or now 9223372036854775807 out of range (0 <= start <= now "
          "<= 2^40)" },
    };

    for (size_t i = 0; i < sizeof (e) / sizeof (e[0]); i++) {
        jt_grow_in_t in = { .run = r, .current_gpus = e[i].cur, .current_domain = -1,
                            .start = e[i].start, .now = e[i].now, .slack = e[i].slack };
        jt_grow_t g;
        jt_error_t err = { "" };
        int rc = jt_elastic_grow (b, s, &in, &g, &err);
        ok (rc < 0 && g.verdict == JT_GROW_NO && g.extra.ngroups == 0, "%s: refused, "
            "out empty", e[i].name);
        is (err.text, e[i].want, "%s: says so", e[i].name);
    }
    {
        jt_grow_in_t in = { .run = fixed, .current_gpus = 16, .current_domain = -1,
                            .start = now0 - 600, .now = now0 };
        jt_grow_t g;
        ok (jt_elastic_grow (b, s, &in, &g, NULL) == 0 && g.verdict == JT_GROW_NO,
            "a run that is not malleable never grows");
        is (g.detail, "not malleable (16 GPUs, fixed)", "and says why");
    }
    jt_run_destroy (r);
    jt_run_destroy (fixed);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

/* Under fabric levels a growing run's new group goes into its own block
 * first: the run holds a01-a02 (domain A, block B1); C (block B2) has
 * fewer free nodes than B (block B1) and best-fit would take it; with the
 * run's leases named, B. */
static void test_grow_levels (void)
{
    static const char *const lv[] = { "fabric.block" };
    jt_budgets_t *b = west (256);
    jt_run_t *r = fx_run (RUNM (CKPT));
    jt_error_t err = { "" };

    for (int named = 0; named < 2; named++) {
        jt_snapshot_t *s = jt_snapshot_create ();
        char *nodes[] = { "a01", "a02" };
        jt_lease_t l = { .run = "c:7", .group = 0, .owner = "rai",
                         .envelope = "west-h100", .nodes = nodes, .nnodes = 2,
                         .gpus = 16, .role = JT_ROLE_ACTIVE, .start = now0 - 3600 };
        fx_nodes (s, "a", 1, 2, "region=west,fabric.domain=A,fabric.block=B1", 8, 2);
        fx_nodes (s, "b", 1, 4, "region=west,fabric.domain=B,fabric.block=B1", 8, 0);
        fx_nodes (s, "c", 1, 2, "region=west,fabric.domain=C,fabric.block=B2", 8, 0);
        jt_snapshot_set_levels (s, lv, 1, &err);
        if (jt_snapshot_add_lease (s, &l, &err) < 0)
            bail_out ("lease: %s", err.text);
        fx_finalize (s);
        jt_grow_in_t in = { .run = r, .current_gpus = 16, .current_domain = -1,
                            .start = now0 - 600, .now = now0, .slack = 60,
                            .policy = JT_PACK_BEST_FIT,
                            .lease_run = named ? "c:7" : NULL };
        jt_grow_t g;
        r->max_gpus = 32;
        ok (jt_elastic_grow (b, s, &in, &g, &err) == 0 && g.extra.ngroups == 1,
            "%s: grows by one group", named ? "its blocks first" : "no preference");
        is (g.extra.ngroups ? s->domains[g.extra.groups[0].domain].name : "-",
            named ? "west/B" : "west/C", named ? "into B, in its own block B1"
            : "best-fit alone: into C, the smaller domain, in block B2");
        jt_grow_free (&g);
        jt_snapshot_destroy (s);
    }
    jt_run_destroy (r);
    jt_budgets_destroy (b);
}

static void test_due (void)
{
    jt_run_t *r = fx_run (RUNM (CKPT)), *nock = fx_run (RUNM (""));
    struct { const jt_run_t *r; int64_t since, slack; bool want; const char *name; } v[] = {
        { r, 0, 30, false, "at its start (no checkpoint yet)" },
        { r, 599, 30, false, "just before its first checkpoint" },
        { r, 600, 0, true, "at its first checkpoint" },
        { r, 630, 30, true, "30 s after, slack 30" },
        { r, 631, 30, false, "31 s after, slack 30" },
        { r, 1805, 5, true, "5 s after its third" },
        { r, 600, -1, false, "negative slack" },
        { nock, 600, 30, false, "no checkpoint" },
    };
    for (size_t i = 0; i < sizeof (v) / sizeof (v[0]); i++)
        ok (jt_elastic_due (v[i].r, now0 - v[i].since, now0, v[i].slack) == v[i].want,
            "due: %s", v[i].name);
    r->malleable = false;
    ok (!jt_elastic_due (r, now0 - 600, now0, 30), "due: never for a fixed run");
    jt_run_destroy (r);
    jt_run_destroy (nock);
}

static void test_next_checkpoint (void)
{
    struct { int64_t start, c, now, want; } v[] = {
        { 1000, 600, 1000, 1600 }, { 1000, 600, 1599, 1600 }, { 1000, 600, 1600, 2200 },
        { 1000, 600, 2199, 2200 }, { 0, 1, 0, 1 }, { 1000, 0, 2000, 0 },
        { 1000, -5, 2000, 0 }, { 0, INT64_MAX, 0, 0 }, { -1, 600, 0, 0 },
        { 0, INT64_C (1) << 40, (INT64_C (1) << 40), INT64_C (1) << 41 },
    };
    for (size_t i = 0; i < sizeof (v) / sizeof (v[0]); i++)
        is_int (jt_elastic_next_checkpoint (v[i].start, v[i].c, v[i].now), v[i].want,
                "next checkpoint of start %lld every %lld after %lld",
                (long long) v[i].start, (long long) v[i].c, (long long) v[i].now);
}

/* A bound record of three 2-node groups (16 GPUs each; group 1 with a
 * spare node), malleable as given (or not, with an empty string). */
#define SHRINK_REC(mall) \
    "jobtree/1 {\"run\":{\"owner\":\"rai\",\"resources\":{\"gpuType\":\"h100\"," \
    "\"totalGPUs\":48},\"locality\":{\"groupGPUs\":16}" mall "}," \
    "\"funding\":[],\"fundedGPUs\":0,\"borrowedGPUs\":0,\"reason\":\"OK\"," \
    "\"bound\":{\"time\":\"1970-01-01T00:33:20Z\",\"leases\":[" \
    "{\"group\":2,\"envelope\":\"w\",\"gpus\":16,\"nodes\":[\"a05\",\"a06\"]}," \
    "{\"group\":0,\"envelope\":\"w\",\"gpus\":16,\"nodes\":[\"a01\",\"a02\"]}," \
    "{\"group\":1,\"envelope\":\"w\",\"gpus\":16,\"nodes\":[\"a03\",\"a04\"]," \
    "\"spares\":[\"a07\"]}]}}"
#define MALL(min) ",\"malleable\":{\"minTotalGPUs\":" #min ",\"maxTotalGPUs\":48," \
    "\"stepGPUs\":16}"

static const char *batch;       /* the batch host shrink() passes */

static const char *shrink (const char *text, uint32_t want, int *rc, int64_t *kept)
{
    static char out[600];
    char why[512] = "", *keep = NULL;
    jt_jobrec_t rec;
    jt_error_t err;

    if (jt_jobrec_parse (text, &rec, &err) < 0) {
        snprintf (out, sizeof (out), "parse: %s", err.text);
        *rc = -2;
        return out;
    }
    *rc = jt_elastic_shrink (&rec, want, batch, &keep, kept, why, sizeof (why));
    snprintf (out, sizeof (out), "%s", *rc == 1 ? keep : why);
    free (keep);
    jt_jobrec_free (&rec);
    return out;
}

/* Shrink on request: whole groups, the highest first, never below the
 * malleable minimum; a run that is not malleable keeps its size. */
static void test_shrink (void)
{
    int rc;
    int64_t kept = 0;
    const char *r;

    r = shrink (SHRINK_REC (MALL (16)), 5, &rc, &kept);
    ok (rc == 1 && !strcmp (r, "a01,a02,a03,a04,a07") && kept == 32,
        "NumNodes=5 ends group 2, the highest, and keeps group 1's spare: %s", r);
    r = shrink (SHRINK_REC (MALL (16)), 2, &rc, &kept);
    ok (rc == 1 && !strcmp (r, "a01,a02") && kept == 16,
        "NumNodes=2 keeps group 0 alone (16 GPUs, the minimum): %s", r);
    r = shrink (SHRINK_REC (MALL (16)), 3, &rc, &kept);
    is (rc == -1 ? r : "accepted", "jobtree: NumNodes=3 would split a group: a run "
        "shrinks by whole groups, the highest first, never below its minimum of 16 "
        "GPUs; NumNodes may be 2 (16 GPUs), 5 (32 GPUs)",
        "NumNodes=3 would split group 1: refused with the counts that would do");
    r = shrink (SHRINK_REC (MALL (32)), 2, &rc, &kept);
    is (rc == -1 ? r : "accepted", "jobtree: NumNodes=2 would leave 16 GPUs, below "
        "the run's malleable minimum of 32 GPUs; NumNodes may be 5 (32 GPUs)",
        "below the malleable minimum: refused");
    r = shrink (SHRINK_REC (MALL (48)), 5, &rc, &kept);
    ok (rc == -1 && strstr (r, "it holds its minimum already"),
        "at its minimum already: every shrink refused: %s", r);
    r = shrink (SHRINK_REC (""), 5, &rc, &kept);
    ok (rc == -1 && strstr (r, "not malleable") && strstr (r, "--malleable=MIN:MAX"),
        "a run that is not malleable keeps its size, the fix named: %s", r);
    r = shrink (SHRINK_REC (MALL (16)), 7, &rc, &kept);
    ok (rc == 0, "NumNodes at the nodes held is no shrink: Slurm's");
    r = shrink (SHRINK_REC (MALL (16)), 9, &rc, &kept);
    ok (rc == 0, "a larger NumNodes is no shrink either (Slurm refuses growth)");
    batch = "a06";              /* the batch script runs in group 2 */
    r = shrink (SHRINK_REC (MALL (16)), 2, &rc, &kept);
    ok (rc == 1 && !strcmp (r, "a05,a06") && kept == 16,
        "the batch host's group (2) is kept whatever its index: %s", r);
    r = shrink (SHRINK_REC (MALL (16)), 4, &rc, &kept);
    ok (rc == 1 && !strcmp (r, "a05,a06,a01,a02") && kept == 32,
        "then the lowest groups: group 1 ends: %s", r);
    batch = NULL;

    /* a NodeList: whole groups, spares may go alone */
    {
        jt_jobrec_t rec;
        jt_error_t err;
        char why[512] = "";
        const char *whole[] = { "a01", "a02", "a03", "a04" };
        const char *nospare[] = { "a01", "a02", "a03", "a04", "a05", "a06" };
        const char *split[] = { "a01", "a02", "a03" };

        ok (jt_jobrec_parse (SHRINK_REC (MALL (16)), &rec, &err) == 0, "record");
        ok (jt_elastic_split (&rec, whole, 4, why, sizeof (why)) == 0,
            "NodeList of groups 0 and 1: whole groups kept");
        ok (jt_elastic_split (&rec, nospare, 6, why, sizeof (why)) == 0,
            "group 1's spare dropped alone: no group split");
        ok (jt_elastic_split (&rec, split, 3, why, sizeof (why)) == -1
            && strstr (why, "keeps 1 of group 1's 2 nodes"),
            "a NodeList keeping one of group 1's nodes is refused: %s", why);
        jt_jobrec_free (&rec);
    }
}

int main (void)
{
    now0 = fx_time (FX_NOW);
    test_shrink ();
    test_grow_levels ();
    test_rows ();
    test_errors ();
    test_due ();
    test_next_checkpoint ();
    done_testing ();
}
