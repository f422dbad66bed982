/*
 * budget.c - unit tests of budget files: parsing, every well-formedness
 * rule with its exact diagnostic (path and line:col), cross-file checks,
 * malformed input (every prefix of a valid file), lookups.
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

#include "jobtree/budget.h"
#include "fixtures.h"
#include "tap.h"

#define VALID \
    "{\n" \
    "  \"owner\": \"rai\",\n" \
    "  \"parent\": \"research\",\n" \
    "  \"envelopes\": [\n" \
    "    { \"name\": \"west-h100\", \"flavor\": \"h100\",\n" \
    "      \"selector\": { \"region\": \"west\" },\n" \
    "      \"start\": \"2026-01-01T00:00:00Z\", \"end\": \"2027-01-01T00:00:00Z\",\n" \
    "      \"concurrency\": 128, \"maxGPUHours\": 500000,\n" \
    "      \"lending\": { \"allow\": true, \"to\": [\"vision\"],\n" \
    "                   \"maxConcurrency\": 32, \"maxGPUHours\": 1000 } },\n" \
    "    { \"name\": \"east-h100\", \"flavor\": \"h100\",\n" \
    "      \"selector\": { \"region\": \"east\" },\n" \
    "      \"start\": \"2026-01-01T00:00:00Z\", \"end\": \"2027-01-01T00:00:00Z\",\n" \
    "      \"concurrency\": 64 }\n" \
    "  ],\n" \
    "  \"aggregateCaps\": [\n" \
    "    { \"name\": \"h100-total\", \"flavor\": \"h100\",\n" \
    "      \"envelopes\": [\"west-h100\", \"east-h100\"],\n" \
    "      \"maxConcurrency\": 192, \"maxGPUHours\": 900000 } ]\n" \
    "}\n"

#define RESEARCH "{ \"owner\": \"research\" }"

/* Add one file and return its diagnostics as text (rc in *rc). */
static char *one (const char *text, int *rc)
{
    jt_budgets_t *b = jt_budgets_create ();
    jt_diags_t d;
    char *out;

    jt_diags_init (&d);
    *rc = jt_budgets_add_json (b, "t.json", text, strlen (text), &d);
    out = fx_diags_text (&d);
    jt_diags_free (&d);
    jt_budgets_destroy (b);
    return out;
}

static void check_valid (void)
{
    jt_budgets_t *b = jt_budgets_create ();
    jt_diags_t d;

    jt_diags_init (&d);
    ok (jt_budgets_add_json (b, "rai.json", VALID, strlen (VALID), &d) == 0,
        "valid file is added");
    ok (jt_budgets_add_json (b, "research.json", RESEARCH, strlen (RESEARCH), &d) == 0,
        "owner with no envelopes is added");
    ok (jt_budgets_finalize (b, &d) == 0, "finalize");
    is (fx_diags_text (&d), "", "no diagnostics");
    is_int (b->n, 2, "two owners");
    is (b->v[0].owner, "rai", "sorted by owner");
    is_int (b->nenv, 2, "two envelopes");
    is (b->env[0]->name, "east-h100", "envelopes sorted by name");
    is_int (b->env[1]->id, 1, "dense ids");
    const jt_envelope_t *e = jt_budgets_envelope (b, "west-h100");
    ok (e != NULL, "lookup envelope");
    is (e->owner, "rai", "envelope owner");
    is (jt_labels_get (&e->selector, "region"), "west", "selector");
    is_int (e->concurrency, 128, "concurrency");
    ok (jt_envelope_gpu_hours_cap (e) == 500000, "B from maxGPUHours");
    ok (jt_envelope_gpu_hours_cap (jt_budgets_envelope (b, "east-h100")) == 64 * 8760,
        "B defaults to C*|W|");
    ok (jt_envelope_lends_to (e, "vision"), "lends to vision");
    ok (!jt_envelope_lends_to (e, "rai"), "does not lend to others");
    ok (!jt_envelope_lends_to (jt_budgets_envelope (b, "east-h100"), "vision"),
        "no lending block: lends to nobody");
    ok (jt_envelope_open_at (e, 1767225600), "open at start");
    ok (!jt_envelope_open_at (e, 1798761600), "closed at end (half-open)");
    is_int (b->ncaps, 1, "one cap");
    is_int (b->caps[0]->env_ids[0], 1, "cap envelope resolved to id");
    is_int (b->caps[0]->env_ids[1], 0, "cap second envelope id");
    ok (jt_budgets_owner (b, "research") != NULL, "lookup owner");
    ok (jt_budgets_owner (b, "nobody") == NULL, "unknown owner");
    const jt_budget_t *kids[4];
    is_int (jt_budgets_children (b, "research", NULL, kids, 4), 1, "one child");
    is (kids[0]->owner, "rai", "child is rai");
    is_int (jt_budgets_children (b, "research", "rai", kids, 4), 0, "except");
    is_int (strlen (b->v[0].sha256), 64, "sha256 recorded");
    jt_diags_free (&d);
    jt_budgets_destroy (b);
}

/* One envelope with the given members after name/flavor (compact). */
#define ENV(m) "{\"owner\":\"a\",\"envelopes\":[{\"name\":\"e\",\"flavor\":\"h100\"," m "}]}"
#define WIN "\"start\":\"2026-01-01T00:00:00Z\",\"end\":\"2026-01-02T00:00:00Z\""

/* Add several files t0.json, t1.json, ... and finalize; diagnostics text. */
static char *many (const char *const *texts, int *rc)
{
    jt_budgets_t *b = jt_budgets_create ();
    jt_diags_t d;
    char name[32];
    char *out;

    jt_diags_init (&d);
    *rc = 0;
    for (int i = 0; texts[i]; i++) {
        snprintf (name, sizeof (name), "t%d.json", i);
        if (jt_budgets_add_json (b, name, texts[i], strlen (texts[i]), &d) < 0)
            *rc = -1;
    }
    if (*rc == 0)
        *rc = jt_budgets_finalize (b, &d);
    out = fx_diags_text (&d);
    jt_diags_free (&d);
    jt_budgets_destroy (b);
    return out;
}

static void one_is (const char *text, const char *want, const char *name)
{
    int rc;
    is (one (text, &rc), want, "%s", name);
    is_int (rc, *want ? -1 : 0, "%s: rc", name);
}

/* A single file, the diagnostics it must give ("" if it is added) and the
 * test's name; each_one_is runs one_is on every case of a table. */
struct one_case {
    const char *text, *want, *name;
};

static void each_one_is (const struct one_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        one_is (c[i].text, c[i].want, c[i].name);
}

static void many_is (const char *const *texts, const char *want, const char *name)
{
    int rc;
    is (many (texts, &rc), want, "%s", name);
    is_int (rc, *want ? -1 : 0, "%s: rc", name);
}

static void check_envelope_rules (void)
{
    static const struct one_case cases[] = {
        { ENV (WIN ",\"concurrency\":8"), "", "minimal envelope" },
        { ENV ("\"start\":\"2026-01-02T00:00:00Z\",\"end\":\"2026-01-01T00:00:00Z\","
               "\"concurrency\":8"),
          "t.json:1:86: envelopes[0].end: the window is empty: end "
          "2026-01-01T00:00:00Z is not after start 2026-01-02T00:00:00Z\n",
          "start after end" },
        { ENV ("\"start\":\"2026-01-01T00:00:00Z\",\"end\":\"2026-01-01T00:00:00Z\","
               "\"concurrency\":8"),
          "t.json:1:86: envelopes[0].end: the window is empty: end "
          "2026-01-01T00:00:00Z is not after start 2026-01-01T00:00:00Z\n",
          "start equals end" },
        { ENV ("\"start\":\"2026-01-01\",\"end\":\"2026-01-02T00:00:00Z\","
               "\"concurrency\":8"),
          "t.json:1:55: envelopes[0].start: invalid time '2026-01-01': expected RFC "
          "3339 like 2026-01-01T00:00:00Z\n", "date without time" },
        { ENV (WIN ",\"concurrency\":0"),
          "t.json:1:115: envelopes[0].concurrency: must be at least 1, got 0\n",
          "concurrency 0" },
        { ENV (WIN ",\"concurrency\":\"8\""),
          "t.json:1:115: envelopes[0].concurrency: expected an integer, got a "
          "string\n", "concurrency as a string" },
        { ENV (WIN ",\"concurrency\":8.5"),
          "t.json:1:115: envelopes[0].concurrency: expected an integer, got a "
          "number\n", "fractional concurrency" },
        { ENV (WIN ",\"concurrency\":2147483649"),
          "t.json:1:115: envelopes[0].concurrency: 2147483649 is too large (the "
          "limit is 2147483648)\n", "concurrency above 2^31" },
        { ENV (WIN ",\"concurrency\":99999999999999999999999"),
          "t.json:1:115: envelopes[0].concurrency: number too large (the limit is "
          "2147483648)\n", "concurrency saturating int64" },
        { ENV (WIN ",\"concurrency\":-99999999999999999999999"),
          "t.json:1:115: envelopes[0].concurrency: number too large (the limit is "
          "1)\n", "concurrency saturating negative" },
        { ENV (WIN ",\"concurrency\":null"),
          "t.json:1:115: envelopes[0].concurrency: expected an integer, got null\n",
          "concurrency null" },
        { ENV (WIN ",\"concurrency\":8,\"maxGPUHours\":193"),
          "t.json:1:131: envelopes[0].maxGPUHours: maxGPUHours=193 exceeds "
          "concurrency x window = 8 x 24 h = 192 GPU-hours; lower maxGPUHours or "
          "raise concurrency\n", "B > C*|W|" },
        { ENV (WIN ",\"concurrency\":8,\"maxGPUHours\":192"), "", "B == C*|W|" },
        { ENV (WIN ",\"concurrency\":8,\"maxGPUHours\":-1"),
          "t.json:1:131: envelopes[0].maxGPUHours: must be at least 0, got -1\n",
          "negative B" },
        { ENV (WIN ",\"concurrency\":8,\"maxGPUHours\":1e400"),
          "t.json:1:131: envelopes[0].maxGPUHours: number too large (the limit is "
          "1e+12)\n", "infinite B" },
        { ENV (WIN ",\"concurrency\":8,\"maxGPUHours\":NaN"),
          "t.json:1:131: envelopes[0].maxGPUHours: must be a finite number\n",
          "NaN B" },
        { ENV (WIN ",\"concurrency\":8,\"maxGPUHours\":2e12"),
          "t.json:1:131: envelopes[0].maxGPUHours: 2e+12 is too large (the limit is "
          "1e+12)\n", "huge B" },
        { ENV (WIN ",\"concurrency\":8,\"maxGPUHours\":\"100\""),
          "t.json:1:131: envelopes[0].maxGPUHours: expected a number, got a string\n",
          "B as a string" },
        { ENV (WIN ",\"concurrency\":8,\"selector\":[\"region\"]"),
          "t.json:1:131: envelopes[0].selector: expected an object, got an array\n",
          "selector as an array" },
        { ENV (WIN ",\"concurrency\":8,\"selector\":{\"region\":1}"),
          "t.json:1:143: envelopes[0].selector.region: expected a string, got an "
          "integer\n", "selector value not a string" },
        { ENV (WIN ",\"concurrency\":8,\"selector\":{\"\":\"x\"}"),
          "t.json:1:143: envelopes[0].selector.: label key must not be empty\n",
          "empty selector key" },
        { "{\"owner\":\"a\",\"envelopes\":[{\"name\":\"\",\"flavor\":\"h 100\","
          WIN ",\"concurrency\":8}]}",
          "t.json:1:28: envelopes[0].name: must not be empty\n"
          "t.json:1:38: envelopes[0].flavor: 'h 100' must not contain spaces or "
          "control characters\n", "empty name, flavor with a space" },
        { "{\"owner\":\"a\",\"envelopes\":[{\"flavor\":\"h100\"}]}",
          "t.json:1:27: envelopes[0].name: missing required field 'name'\n"
          "t.json:1:27: envelopes[0].start: missing required field 'start'\n"
          "t.json:1:27: envelopes[0].end: missing required field 'end'\n"
          "t.json:1:27: envelopes[0].concurrency: missing required field "
          "'concurrency'\n",
          "missing fields, all reported" },
        { "{\"owner\":\"a\",\"envelopes\":[7]}",
          "t.json:1:27: envelopes[0]: expected an object, got an integer\n",
          "envelope not an object" },
        { "{\"owner\":\"a\",\"envelopes\":{}}",
          "t.json:1:14: envelopes: expected an array, got an object\n",
          "envelopes not an array" },
    };

    each_one_is (cases, sizeof (cases) / sizeof (cases[0]));
}

static void check_lending_rules (void)
{
    static const struct one_case cases[] = {
        { ENV (WIN ",\"concurrency\":8,\"lending\":{\"allow\":true,\"to\":[\"*\"],"
               "\"maxConcurrency\":9}"),
          "t.json:1:166: envelopes[0].lending.maxConcurrency: maxConcurrency=9 "
          "exceeds the envelope's concurrency 8\n", "lending C > C" },
        { ENV (WIN ",\"concurrency\":8,\"maxGPUHours\":100,\"lending\":{\"allow\":"
               "true,\"to\":[\"*\"],\"maxGPUHours\":101}"),
          "t.json:1:184: envelopes[0].lending.maxGPUHours: maxGPUHours=101 exceeds "
          "the envelope's GPU-hour bound 100\n", "lending B > B" },
        { ENV (WIN ",\"concurrency\":8,\"lending\":{\"allow\":true,\"to\":[\"*\"],"
               "\"maxGPUHours\":193}"),
          "t.json:1:166: envelopes[0].lending.maxGPUHours: maxGPUHours=193 exceeds "
          "the envelope's GPU-hour bound 192\n", "lending B > C*|W| when B absent" },
        { ENV (WIN ",\"concurrency\":8,\"lending\":{\"allow\":true}"),
          "t.json:1:131: envelopes[0].lending.to: lending is allowed but 'to' is "
          "missing; list the borrowing owners, or \"*\" for anyone\n",
          "lending without to" },
        { ENV (WIN ",\"concurrency\":8,\"lending\":{\"allow\":true,\"to\":[]}"),
          "t.json:1:155: envelopes[0].lending.to: lending is allowed but 'to' is "
          "empty; list the borrowing owners, or \"*\" for anyone\n",
          "lending with empty to" },
        { ENV (WIN ",\"concurrency\":8,\"lending\":{\"allow\":false,\"to\":[]}"), "",
          "lending disabled with empty to" },
        { ENV (WIN ",\"concurrency\":8,\"lending\":{\"to\":[\"b\"]}"),
          "t.json:1:131: envelopes[0].lending.allow: missing required field "
          "'allow'\n", "lending without allow" },
        { ENV (WIN ",\"concurrency\":8,\"lending\":{\"allow\":\"yes\",\"to\":[1]}"),
          "t.json:1:142: envelopes[0].lending.allow: expected a boolean (true or "
          "false), got a string\n"
          "t.json:1:162: envelopes[0].lending.to[0]: expected a string, got an "
          "integer\n", "lending wrong types" },
        { ENV (WIN ",\"concurrency\":8,\"lending\":{\"allow\":true,\"to\":[\"b\"],"
               "\"maxConcurency\":1}"),
          "t.json:1:166: envelopes[0].lending.maxConcurency: unknown field "
          "'maxConcurency'; did you mean 'maxConcurrency'?\n", "lending typo" },
        { ENV (WIN ",\"concurrency\":8,\"lending\":{\"allow\":true,\"to\":[\"a b\"]}"),
          "t.json:1:161: envelopes[0].lending.to[0]: 'a b' must not contain spaces or "
          "control characters\n", "lending to a name with a space" },
    };

    each_one_is (cases, sizeof (cases) / sizeof (cases[0]));
}

static void check_top_rules (void)
{
    static const struct one_case cases[] = {
        { "{\"owner\":\"a\"}", "", "owner only" },
        { "{\"owner\":\"a\",\"envelopes\":[]}", "", "no envelopes" },
        { "{}", "t.json:1:1: owner: missing required field 'owner'\n", "no owner" },
        { "{\"owner\":7}", "t.json:1:2: owner: expected a string, got an integer\n",
          "owner not a string" },
        { "{\"owner\":\"a\",\"parent\":\"\"}",
          "t.json:1:14: parent: must not be empty\n", "empty parent" },
        { "[]", "t.json:1:1: a budget file must hold a JSON object, got an array\n",
          "array document" },
        { "{\"owner\":\"a\",\"Owner\":\"b\",\"envelope\":[]}",
          "t.json:1:14: Owner: unknown field 'Owner'; did you mean 'owner'?\n"
          "t.json:1:26: envelope: unknown field 'envelope'; did you mean "
          "'envelopes'?\n", "unknown top keys" },
        { "{\"owner\":\"a\",\"colour\":1}",
          "t.json:1:14: colour: unknown field 'colour'\n", "unknown key, no hint" },
        { "hello", "t.json:1:1: syntax error: unexpected character\n", "not JSON" },
        { "{\"owner\":\"a\",\n  \"envelopes\": [,]}",
          "t.json:2:17: syntax error: unexpected character\n", "syntax error on line 2" },
        { "{\"owner\":\"a\"", "t.json:1:13: unexpected end of input\n", "truncated" },
        { "", "t.json:1:1: unexpected end of input\n", "empty file" },
    };

    each_one_is (cases, sizeof (cases) / sizeof (cases[0]));
}

static void check_caps (void)
{
    static const char *ok_caps[] = {
        "{\"owner\":\"a\",\"envelopes\":[{\"name\":\"e1\",\"flavor\":\"h100\"," WIN
        ",\"concurrency\":8},{\"name\":\"e2\",\"flavor\":\"a100\"," WIN
        ",\"concurrency\":8}],\"aggregateCaps\":[{\"name\":\"c\",\"flavor\":\"h100\","
        "\"envelopes\":[\"e1\",\"e3\"],\"maxConcurrency\":8,\"maxGPUHours\":384}]}",
        "{\"owner\":\"b\",\"envelopes\":[{\"name\":\"e3\",\"flavor\":\"h100\"," WIN
        ",\"concurrency\":8}]}",
        NULL
    };
    many_is (ok_caps, "", "cap over envelopes of two files, maxB == maxC*sum|W|");
    static const char *bad_caps[] = {
        "{\"owner\":\"a\",\"envelopes\":[{\"name\":\"e1\",\"flavor\":\"h100\"," WIN
        ",\"concurrency\":8},{\"name\":\"e2\",\"flavor\":\"a100\"," WIN
        ",\"concurrency\":8}],\n\"aggregateCaps\":[{\"name\":\"c\",\"flavor\":\"h100\","
        "\"envelopes\":[\"e1\",\"e2\",\"e1\",\"e4\"],\"maxConcurrency\":8,"
        "\"maxGPUHours\":1000}]}",
        NULL
    };
    many_is (bad_caps,
             "t0.json:2:64: aggregateCaps[0].envelopes[1]: envelope 'e2' has flavor "
             "'a100', not the cap's flavor 'h100'\n"
             "t0.json:2:69: aggregateCaps[0].envelopes[2]: envelope 'e1' is listed "
             "twice\n"
             "t0.json:2:74: aggregateCaps[0].envelopes[3]: unknown envelope 'e4'; did "
             "you mean 'e1'?\n", "cap: flavor, twice, unknown");
    static const char *big_cap[] = {
        "{\"owner\":\"a\",\"envelopes\":[{\"name\":\"e1\",\"flavor\":\"h100\"," WIN
        ",\"concurrency\":8}],\n\"aggregateCaps\":[{\"name\":\"c\",\"flavor\":\"h100\","
        "\"envelopes\":[\"e1\"],\"maxConcurrency\":4,\"maxGPUHours\":97}]}",
        NULL
    };
    many_is (big_cap,
             "t0.json:2:84: aggregateCaps[0].maxGPUHours: maxGPUHours=97 exceeds "
             "maxConcurrency x total window = 4 x 24 h = 96 GPU-hours\n",
             "cap maxB > maxC*sum|W|");
    one_is ("{\"owner\":\"a\",\"aggregateCaps\":[{\"name\":\"c\",\"flavor\":\"h100\","
            "\"envelopes\":[],\"maxConcurrency\":0}]}",
            "t.json:1:59: aggregateCaps[0].envelopes: an aggregate cap needs at least "
            "one envelope\n"
            "t.json:1:74: aggregateCaps[0].maxConcurrency: must be at least 1, got 0\n",
            "cap: empty envelopes, zero maxConcurrency");
}

static void check_cross_file (void)
{
    static const char *dup_env[] = {
        "{\"owner\":\"a\",\"envelopes\":[{\"name\":\"e\",\"flavor\":\"h100\"," WIN
        ",\"concurrency\":8}]}",
        "{\"owner\":\"b\",\n\"envelopes\":[{\"name\":\"e\",\"flavor\":\"h100\"," WIN
        ",\"concurrency\":8}]}",
        NULL
    };
    many_is (dup_env, "t1.json:2:15: envelopes[0].name: duplicate envelope name 'e' "
             "(first defined at t0.json:1:28); envelope names must be unique across "
             "all budget files\n", "duplicate envelope across files");
    static const char *dup_env_same[] = {
        "{\"owner\":\"a\",\"envelopes\":[{\"name\":\"e\",\"flavor\":\"h100\"," WIN
        ",\"concurrency\":8},\n{\"name\":\"e\",\"flavor\":\"h100\"," WIN
        ",\"concurrency\":8}]}",
        NULL
    };
    many_is (dup_env_same, "t0.json:2:2: envelopes[1].name: duplicate envelope name "
             "'e' (first defined at t0.json:1:28); envelope names must be unique across "
             "all budget files\n", "duplicate envelope in one file");
    static const char *dup_owner[] = {
        "{\"owner\":\"a\"}", "{\"owner\":\"b\"}", "{ \"owner\":\"a\"}", NULL
    };
    many_is (dup_owner, "t2.json:1:3: owner: duplicate owner 'a' (first defined at "
             "t0.json:1:2); each owner has exactly one budget file\n",
             "duplicate owner");
    static const char *unknown_parent[] = {
        "{\"owner\":\"research\"}", "{\"owner\":\"rai\",\"parent\":\"reserch\"}",
        "{\"owner\":\"x\",\"parent\":\"zzz\"}", NULL
    };
    many_is (unknown_parent,
             "t1.json:1:16: parent: unknown parent 'reserch'; did you mean "
             "'research'?\n"
             "t2.json:1:14: parent: unknown parent 'zzz': no budget file has that owner "
             "(add one; an owner may have no envelopes)\n", "unknown parents");
    static const char *self[] = { "{\"owner\":\"a\",\"parent\":\"a\"}", NULL };
    many_is (self, "t0.json:1:14: parent: cycle in parents: a -> a\n", "self-parent");
    static const char *cycle3[] = {
        "{\"owner\":\"c\",\"parent\":\"a\"}", "{\"owner\":\"b\",\"parent\":\"c\"}",
        "{\"owner\":\"a\",\"parent\":\"b\"}", "{\"owner\":\"d\",\"parent\":\"a\"}",
        "{\"owner\":\"e\"}", NULL
    };
    many_is (cycle3, "t2.json:1:14: parent: cycle in parents: a -> b -> c -> a\n",
             "3-cycle with a tail, named once from its smallest owner");
    static const char *two_cycles[] = {
        "{\"owner\":\"x\",\"parent\":\"y\"}", "{\"owner\":\"y\",\"parent\":\"x\"}",
        "{\"owner\":\"p\",\"parent\":\"q\"}", "{\"owner\":\"q\",\"parent\":\"p\"}", NULL
    };
    many_is (two_cycles, "t2.json:1:14: parent: cycle in parents: p -> q -> p\n"
             "t0.json:1:14: parent: cycle in parents: x -> y -> x\n", "two cycles");
    static const char *family[] = {
        "{\"owner\":\"root\"}", "{\"owner\":\"mid\",\"parent\":\"root\"}",
        "{\"owner\":\"l1\",\"parent\":\"mid\"}", "{\"owner\":\"l2\",\"parent\":\"mid\"}",
        NULL
    };
    many_is (family, "", "a DAG of four owners");
}

/* Every prefix of a valid file is refused with a diagnostic, never a crash. */
static void check_truncations (void)
{
    size_t n = strlen (VALID), fails = 0;

    for (size_t i = 0; i < n; i++) {
        jt_budgets_t *b = jt_budgets_create ();
        jt_diags_t d;
        jt_diags_init (&d);
        int rc = jt_budgets_add_json (b, "t.json", VALID, i, &d);
        /* the final newline is optional: only the last prefix may pass */
        if (i + 1 < n && (rc == 0 || d.n == 0))
            fails++;
        jt_diags_free (&d);
        jt_budgets_destroy (b);
    }
    is_int (fails, 0, "all %zu truncations of a budget file are refused", n - 1);
}

/* Every single-byte corruption of a valid file either loads cleanly or is
 * refused with at least one diagnostic; never a crash (ASan/UBSan run
 * these) and never "refused without saying why". */
/* One corrupted budget file: loads cleanly or says why (refusals counted
 * in *arg). */
static size_t corrupt_budget (const char *buf, size_t n, void *arg)
{
    size_t *refused = arg;
    jt_budgets_t *b = jt_budgets_create ();
    jt_diags_t d;

    jt_diags_init (&d);
    int rc = jt_budgets_add_json (b, "t.json", buf, n, &d);
    size_t bad = (rc < 0) != (d.n > 0);
    *refused += rc < 0;
    jt_diags_free (&d);
    jt_budgets_destroy (b);
    return bad;
}

static void check_corruptions (void)
{
    size_t refused = 0, total;
    size_t bad = fx_corruptions (VALID, corrupt_budget, &refused, &total);

    is_int (bad, 0, "%zu corruptions: each loads cleanly or says why", total);
    ok (refused > total / 2, "most corruptions are refused (%zu of %zu)", refused,
        total);
}

static char *fixture (const char *name)
{
    static char path[4096];
    const char *src = getenv ("JT_SRCDIR");
    snprintf (path, sizeof (path), "%s/tests/data/inputs/%s", src ? src : "..", name);
    return path;
}

static char *load_dir_text (const char *name, bool *loaded)
{
    jt_diags_t d;
    char *out;
    char prefix[4096];

    jt_diags_init (&d);
    jt_budgets_t *b = jt_budgets_load_dir (fixture (name), &d);
    *loaded = b != NULL;
    jt_budgets_destroy (b);
    out = fx_diags_text (&d);
    /* make file names relative to the fixture directory */
    snprintf (prefix, sizeof (prefix), "%s", fixture (""));
    for (char *p; (p = strstr (out, prefix));)
        memmove (p, p + strlen (prefix), strlen (p + strlen (prefix)) + 1);
    jt_diags_free (&d);
    return out;
}

static void check_dirs (void)
{
    bool loaded;
    jt_diags_t d;

    is (load_dir_text ("good", &loaded), "", "good directory");
    ok (loaded, "good directory loads");
    jt_diags_init (&d);
    jt_budgets_t *b = jt_budgets_load_dir (fixture ("good"), &d);
    ok (b && b->n == 2 && b->nenv == 1, "two owners, one envelope");
    ok (b && !strcmp (b->v[0].sha256, "632054b5859a5d9743ed0caecac172a5a4c918a36e5f85d5"
                      "f351c12cdebe9db7"), "sha256 of the file");
    ok (b && b->v[0].file && strstr (b->v[0].file, "good/a.json"), "file recorded");
    jt_budgets_destroy (b);
    jt_diags_free (&d);
    is (load_dir_text ("empty", &loaded), "empty: no budget files (*.json) in "
        "directory\n", "empty directory");
    ok (!loaded, "empty directory is an error");
    is (load_dir_text ("nonexistent", &loaded), "nonexistent: cannot open budget "
        "directory: No such file or directory\n", "missing directory");
    is (load_dir_text ("mixed", &loaded),
        "mixed/b.json:1:1: syntax error: unexpected character\n"
        "mixed/c.json:3:3: envelopes: expected an array, got an object\n",
        "every bad file is reported");
    ok (!loaded, "never partially loaded");
    is (load_dir_text ("dup", &loaded),
        "dup/c.json:5:7: envelopes[0].name: duplicate envelope name 'west' (first "
        "defined at dup/a.json:5:7); envelope names must be unique across all "
        "budget files\n", "duplicate envelope names across files");
    ok (!loaded, "duplicates are not loaded");
}

int main (void)

{
    int rc;

    check_valid ();
    is (one ("{ \"owner\": \"a\", \"envelopes\": [ { \"name\": \"e\", \"flavor\": "
             "\"h100\", \"start\": \"2026-01-01T00:00:00Z\", \"end\": "
             "\"2026-01-02T00:00:00Z\", \"concurency\": 1 } ] }", &rc),
        "t.json:1:32: envelopes[0].concurrency: missing required field 'concurrency'\n"
        "t.json:1:129: envelopes[0].concurency: unknown field 'concurency'; "
        "did you mean 'concurrency'?\n", "typo");
    check_envelope_rules ();
    check_lending_rules ();
    check_top_rules ();
    check_caps ();
    check_cross_file ();
    check_truncations ();
    check_corruptions ();
    check_dirs ();
    jt_budgets_destroy (NULL);
    return done_testing ();
}
