/*
 * run.c - unit tests of runs: parsing (with exact diagnostics), every
 * validation rule, compilation (DESIGN decision 1), GPU-hours and the
 * canonical JSON round trip.
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
#include "jobtree/run.h"
#include "fixtures.h"
#include "tap.h"

static const char full[] =
    "{ \"id\": \"c1:4242\", \"owner\": \"rai\",\n"
    "  \"resources\": { \"gpuType\": \"h100\", \"totalGPUs\": 96 },\n"
    "  \"locality\": { \"groupGPUs\": 64, \"allowCrossGroupSpread\": true },\n"
    "  \"malleable\": { \"minTotalGPUs\": 64, \"maxTotalGPUs\": 128, \"stepGPUs\": 32 },\n"
    "  \"sparesPerGroup\": 1,\n"
    "  \"runtime\": { \"checkpoint\": \"30m\", \"timeLimit\": \"4h\" },\n"
    "  \"funding\": { \"allowBorrow\": true, \"maxBorrowGPUs\": 32,\n"
    "               \"sponsors\": [\"vision\"] } }\n";

/* The text of a run of owner rai: with the given resources object, or with
 * 64 h100 GPUs and extra top-level members after them. */
#define BAD_RESOURCES(res) "{\"owner\":\"rai\",\"resources\":" res "}"
#define BAD(extra) BAD_RESOURCES ("{\"gpuType\":\"h100\",\"totalGPUs\":64}" extra)

static void groups_are (const jt_run_t *r, int64_t total, const char *want)
{
    jt_groups_t g;
    char buf[256] = "";
    size_t len = 0;

    ok (jt_run_compile (r, total, &g, NULL) == 0, "compile %lld", (long long) total);
    for (size_t i = 0; i < g.n; i++)
        len += (size_t) snprintf (buf + len, sizeof (buf) - len, "%s%lld", i ? "," : "",
                                  (long long) g.gpus[i]);
    snprintf (buf + len, sizeof (buf) - len, "%s", g.soft ? " soft" : "");
    is (buf, want, "groups of %lld", (long long) total);
    jt_groups_free (&g);
}

static void validate_is (jt_run_t *r, int64_t gpn, const char *want)
{
    jt_error_t err = { "" };
    int rc = jt_run_validate (r, gpn, &err);
    is_int (rc, *want ? -1 : 0, "validate rc (%s)", *want ? want : "ok");
    is (rc ? err.text : "", want, "validate message");
}

/* One field of a run set to a value, and what validating it at 8 GPUs per
 * node must say ("" for valid). validate_each goes through a list ending in
 * { NULL }: a case with a want is checked and its field put back after;
 * one with want NULL only sets the field, for the cases after it. */
struct vcase {
    int64_t *field;
    int64_t value;
    const char *want;
};

static void validate_each (jt_run_t *r, const struct vcase *c)
{
    for (; c->field; c++) {
        int64_t old = *c->field;
        *c->field = c->value;
        if (c->want) {
            validate_is (r, 8, c->want);
            *c->field = old;
        }
    }
}

/* Parse errors, each with its path and line:col. */
static const struct parse_case {
    const char *text, *want, *name;
} parse_errors[] = {
    { BAD_RESOURCES ("{\"gpuType\":\"h100\",\"totalGPUs\":\"64\"}"),
      "r.json:1:46: resources.totalGPUs: expected an integer, got a string\n",
      "totalGPUs as a string" },
    { BAD_RESOURCES ("{\"gpuType\":\"h100\",\"totalGPUs\":0}"),
      "r.json:1:46: resources.totalGPUs: must be at least 1, got 0\n", "totalGPUs=0" },
    { BAD_RESOURCES ("{\"gpuType\":\"h100\",\"totalGPUs\":99999999999999999999}"),
      "r.json:1:46: resources.totalGPUs: number too large (the limit is "
      "2147483648)\n", "saturated totalGPUs" },
    { BAD_RESOURCES ("{\"gpuType\":\"h100\",\"totalGPUs\":4294967296}"),
      "r.json:1:46: resources.totalGPUs: 4294967296 is too large (the limit is "
      "2147483648)\n", "huge totalGPUs" },
    { BAD_RESOURCES ("{\"gpuType\":\"h100\",\"totalGPUs\":8.5}"),
      "r.json:1:46: resources.totalGPUs: expected an integer, got a number\n",
      "fractional totalGPUs" },
    { BAD_RESOURCES ("{\"gpuType\":\"\",\"totalGPUs\":8}"),
      "r.json:1:29: resources.gpuType: must not be empty\n", "empty gpuType" },
    { BAD_RESOURCES ("{\"totalGPUs\":8}"),
      "r.json:1:16: resources.gpuType: missing required field 'gpuType'\n",
      "missing gpuType" },
    { "{\"resources\":{\"gpuType\":\"h100\",\"totalGPUs\":8}}",
      "r.json:1:1: owner: missing required field 'owner'\n", "missing owner" },
    { "[]", "r.json:1:1: a run must be a JSON object, got an array\n",
      "array document" },
    { BAD (",\"sparesPerGroup\":-1"),
      "r.json:1:62: sparesPerGroup: must be at least 0, got -1\n", "negative spares" },
    { BAD (",\"locality\":{\"groupGPUs\":0}"),
      "r.json:1:74: locality.groupGPUs: must be at least 1, got 0\n", "groupGPUs=0" },
    { BAD (",\"locality\":{\"allowCrossGroupSpread\":\"no\"}"),
      "r.json:1:74: locality.allowCrossGroupSpread: expected a boolean (true or "
      "false), got a string\n", "spread as a string" },
    { BAD (",\"locality\":{\"groupGPU\":8}"),
      "r.json:1:74: locality.groupGPU: unknown field 'groupGPU'; did you mean "
      "'groupGPUs'?\n", "typo in locality" },
    { BAD (",\"sparesPerGroups\":1"),
      "r.json:1:62: sparesPerGroups: unknown field 'sparesPerGroups'; did you mean "
      "'sparesPerGroup'?\n", "typo at top" },
    { BAD (",\"runtime\":{\"timeLimit\":\"4 hours\"}"),
      "r.json:1:73: runtime.timeLimit: invalid duration '4 hours': use e.g. \"4h\", "
      "\"1h30m\", \"90s\", \"30\" (minutes) or \"1-12:00:00\"\n", "bad duration" },
    { BAD (",\"runtime\":{\"checkpoint\":-1}"),
      "r.json:1:73: runtime.checkpoint: must be at least 0, got -1\n",
      "negative checkpoint" },
    { BAD (",\"runtime\":{\"checkpoint\":true}"),
      "r.json:1:73: runtime.checkpoint: expected a duration (a string like \"4h\" or "
      "integer seconds), got a boolean\n", "checkpoint as a boolean" },
    { BAD (",\"malleable\":{\"minTotalGPUs\":64}"),
      "r.json:1:62: malleable.maxTotalGPUs: missing required field 'maxTotalGPUs'\n",
      "malleable without max" },
    { BAD (",\"malleable\":{\"minTotalGPUs\":64,\"maxTotalGPUs\":32}"),
      "r.json:1:93: malleable.maxTotalGPUs: maxTotalGPUs=32 is below "
      "minTotalGPUs=64\n", "malleable max < min" },
    { BAD (",\"malleable\":{\"minTotalGPUs\":32,\"maxTotalGPUs\":128,\"stepGPUs\":0}"),
      "r.json:1:112: malleable.stepGPUs: must be at least 1, got 0\n",
      "malleable step 0" },
    { BAD (",\"funding\":{\"allowBorrow\":false,\"sponsors\":[\"vision\"]}"),
      "r.json:1:93: funding.sponsors: sponsors are given but allowBorrow is false; "
      "remove them or set allowBorrow to true\n", "sponsors with allowBorrow false" },
    { BAD (",\"funding\":{\"allowBorrow\":false,\"maxBorrowGPUs\":8}"),
      "r.json:1:93: funding.maxBorrowGPUs: maxBorrowGPUs is given but allowBorrow is "
      "false; remove it or set allowBorrow to true\n", "cap with allowBorrow false" },
    { BAD (",\"funding\":{\"sponsors\":[\"\"]}"),
      "r.json:1:85: funding.sponsors[0]: must not be empty\n", "empty sponsor" },
    { BAD (",\"funding\":{\"sponsors\":[\"a\",\"a\"]}"),
      "r.json:1:89: funding.sponsors[1]: sponsor 'a' is listed twice\n",
      "duplicate sponsor" },
    { BAD (",\"funding\":{\"maxBorrowGPUs\":-1}"),
      "r.json:1:73: funding.maxBorrowGPUs: must be at least 0, got -1\n",
      "negative borrow cap" },
    { BAD (",\"funding\":{\"sponsors\":[\"v\",\"a\\tb\"]}"),
      "r.json:1:89: funding.sponsors[1]: 'a\tb' must not contain spaces or control "
      "characters\n", "sponsor with a tab" },
    { BAD (",\"owner\":\"b\""), "r.json:1:62: owner: duplicate field 'owner': "
      "JSON keeps only the last value; remove the others\n", "duplicate key" },
    { "{\"owner\":\"a b\",\"resources\":{\"gpuType\":\"h100\",\"totalGPUs\":8}}",
      "r.json:1:2: owner: 'a b' must not contain spaces or control "
      "characters\n", "owner with a space" },
    { BAD (",\"resources\":1,\"x\":2"),
      "r.json:1:62: resources: duplicate field 'resources': JSON keeps only the "
      "last value; remove the others\n"
      "r.json:1:62: resources: expected an object, got an integer\n"
      "r.json:1:76: x: unknown field 'x'\n", "several problems at once, in order" },
};

/* locality.groupBy and nodeConstraints: read, checked at their paths,
 * written canonically and read back. */
static void test_labels (void)
{
    jt_run_t *r = NULL, *r2 = NULL;
    char *js, *js2;
    const char *d;

    is (fx_parse_run (BAD (",\"locality\":{\"groupGPUs\":16,\"groupBy\":\"rack\"},"
                           "\"nodeConstraints\":[\"gpu.mem  GE 80\",\"rack.row LT 4;"
                           "nvlink EXISTS\",\"gpu.mem GE 80\"]"), &r), "",
        "groupBy and nodeConstraints parse");
    js = r ? jt_run_to_json (r) : NULL;
    ok (js && strstr (js, "\"groupBy\":\"rack\"")
        && strstr (js, "\"nodeConstraints\":[\"gpu.mem GE 80\",\"rack.row LT 4\","
                   "\"nvlink EXISTS\"]"), "canonical: %s", js ? js : "(null)");
    is (js ? fx_parse_run (js, &r2) : "no json", "", "canonical JSON parses back");
    js2 = r2 ? jt_run_to_json (r2) : NULL;
    is (js2 ? js2 : "", js ? js : "-", "and is the same");
    free (js);
    free (js2);
    jt_run_destroy (r);
    jt_run_destroy (r2);

    d = fx_parse_run (BAD (",\"locality\":{\"groupBy\":\"a=b\"}"), NULL);
    ok (strstr (d, "locality.groupBy: 'a=b' is not a label name"),
        "groupBy a=b refused at its path: %s", d);
    d = fx_parse_run (BAD (",\"nodeConstraints\":[\"a EXISTS\",\"b GT x\"]"), NULL);
    ok (strstr (d, "nodeConstraints[1]: 'b GT x': GT compares numbers and 'x' is not one"),
        "a bad constraint reported at its index: %s", d);
    d = fx_parse_run (BAD (",\"nodeConstraints\":\"a EXISTS\""), NULL);
    ok (strstr (d, "nodeConstraints: expected an array"), "nodeConstraints must be an "
        "array: %s", d);
    d = fx_parse_run (BAD (",\"locality\":{\"groupBy\":\"-rack\"}"), NULL);
    ok (strstr (d, "locality.groupBy: '-rack' is not a label name"),
        "groupBy -rack refused by the run check: %s", d);
}

int main (void)
{
    jt_run_t *r;
    char *js;

    is (fx_parse_run (full, &r), "", "full example parses");
    is (r->id, "c1:4242", "id");
    is (r->owner, "rai", "owner");
    is (r->flavor, "h100", "flavor");
    is_int (r->total_gpus, 96, "totalGPUs");
    is_int (r->group_gpus, 64, "groupGPUs");
    ok (r->cross_group_spread, "spread");
    ok (r->malleable, "malleable");
    is_int (r->min_gpus, 64, "min");
    is_int (r->max_gpus, 128, "max");
    is_int (r->step_gpus, 32, "step");
    is_int (r->spares_per_group, 1, "spares");
    is_int (r->checkpoint_s, 1800, "checkpoint");
    is_int (r->time_limit_s, 14400, "timeLimit");
    ok (r->allow_borrow, "allowBorrow");
    is_int (r->max_borrow_gpus, 32, "maxBorrowGPUs");
    is_int (r->nsponsors, 1, "one sponsor");
    is (r->sponsors[0], "vision", "sponsor");
    validate_is (r, 8, "");
    groups_are (r, 96, "64,32");
    groups_are (r, 128, "64,64");
    groups_are (r, 64, "64");
    groups_are (r, 1, "1");
    /* the nodes those groups fill (8 GPUs a node), 1 spare each: what
     * topology/block's rule counts, in Plan and the estimate alike */
    is_int (jt_run_nodes (r, 96, 8), 8 + 4 + 2, "96 GPUs: 64+32 on 8+4 nodes, a spare each");
    is_int (jt_run_nodes (r, 100, 8), 8 + 5 + 2, "100 GPUs: the 36-GPU remainder on 5 nodes");
    is_int (jt_run_nodes (r, 64, 6), 11 + 1, "nodes rounded up per group (64 on 6-GPU nodes)");
    is_int (jt_run_nodes (r, 0, 8), 0, "no GPUs: 0");
    is_int (jt_run_nodes (r, JT_RUN_GPUS_MAX + 1, 8), 0, "past JT_RUN_GPUS_MAX: 0");
    is_int (jt_run_nodes (r, 96, 0), 0, "no GPUs per node: 0");
    ok (jt_run_gpu_hours (r, 96) == 384.0, "96 GPUs x 4 h = 384 GPU-hours");
    js = jt_run_to_json (r);
    is (js, "{\"id\":\"c1:4242\",\"owner\":\"rai\",\"resources\":{\"gpuType\":\"h100\","
        "\"totalGPUs\":96},\"locality\":{\"groupGPUs\":64,\"allowCrossGroupSpread\":"
        "true},\"malleable\":{\"minTotalGPUs\":64,\"maxTotalGPUs\":128,\"stepGPUs\":32},"
        "\"sparesPerGroup\":1,\"runtime\":{\"checkpoint\":1800,\"timeLimit\":14400},"
        "\"funding\":{\"allowBorrow\":true,\"maxBorrowGPUs\":32,\"sponsors\":"
        "[\"vision\"]}}", "canonical JSON");
    jt_run_t *r2;
    is (fx_parse_run (js, &r2), "", "canonical JSON parses back");
    char *js2 = jt_run_to_json (r2);
    is (js2, js, "round trip is byte-identical");
    free (js2);
    jt_run_destroy (r2);
    free (js);
    jt_run_destroy (r);

    /* minimal run: defaults */
    is (fx_parse_run ("{\"owner\":\"a\",\"resources\":{\"gpuType\":\"h100\",\"totalGPUs\":8}}",
               &r), "", "minimal run");
    ok (r->cross_group_spread, "spread defaults to true");
    ok (!r->allow_borrow, "no borrowing by default");
    is_int (r->max_borrow_gpus, JT_UNSET, "no borrow cap");
    is_int (r->group_gpus, 0, "no groupGPUs");
    groups_are (r, 20, "20 soft");
    ok (jt_run_gpu_hours (r, 8) == 8.0, "default time limit is 1 h");
    js = jt_run_to_json (r);
    is (js, "{\"owner\":\"a\",\"resources\":{\"gpuType\":\"h100\",\"totalGPUs\":8}}",
        "minimal canonical JSON");
    free (js);
    ok (jt_run_compile (r, 0, &(jt_groups_t){ 0 }, NULL) < 0, "compile 0 fails");
    jt_run_destroy (r);

    /* groupGPUs vs GPUs per node (DESIGN decision 2) */
    is (fx_parse_run ("{\"owner\":\"a\",\"resources\":{\"gpuType\":\"h100\",\"totalGPUs\":24},"
               "\"locality\":{\"groupGPUs\":12}}", &r), "", "groupGPUs=12 parses");
    validate_is (r, 8, "locality.groupGPUs: groupGPUs=12 is not a multiple of the 8 GPUs "
                 "per h100 node; use 8 or 16");
    validate_is (r, 4, "");
    validate_is (r, 0, "");
    validate_each (r, (const struct vcase[]) {
        { &r->group_gpus, 4,
          "locality.groupGPUs: groupGPUs=4 is not a multiple of the 8 GPUs per h100 "
          "node; use 8" },
        { &r->group_gpus, 16, NULL },
        { &r->total_gpus, 20,
          "resources.totalGPUs: totalGPUs=20 is not a multiple of the 8 GPUs per h100 "
          "node, so the last group would not be whole nodes; use 16 or 24" },
        { &r->total_gpus, 0, "resources.totalGPUs: must be at least 1, got 0" },
        { &r->total_gpus, 16, NULL },
        { &r->spares_per_group, -1, "sparesPerGroup: must be at least 0, got -1" },
        { &r->time_limit_s, -5, "runtime.timeLimit: must be at least 0, got -5" },
        { &r->checkpoint_s, -5, "runtime.checkpoint: must be at least 0, got -5" },
        { NULL } });
    free (r->owner);
    r->owner = NULL;
    validate_is (r, 8, "owner: a run needs an owner (the Slurm account)");
    r->owner = strdup ("a");
    free (r->flavor);
    r->flavor = NULL;
    validate_is (r, 8, "resources.gpuType: a run needs a GPU type (e.g. \"h100\")");
    r->flavor = strdup ("h100");
    validate_each (r, (const struct vcase[]) {
        { &r->max_borrow_gpus, 8,
          "funding.maxBorrowGPUs: maxBorrowGPUs is given but allowBorrow is false; "
          "remove it or set allowBorrow to true" },
        { &r->max_borrow_gpus, -2, "funding.maxBorrowGPUs: must be at least 0, got -2" },
        { &r->max_borrow_gpus, JT_UNSET, "" },
        { NULL } });

    /* malleable rules */
    r->malleable = true;
    r->total_gpus = 64;
    r->group_gpus = 0;
    r->min_gpus = 32;
    r->max_gpus = 128;
    r->step_given = false;
    is_int (jt_run_step_gpus (r, 8), 8, "default step: GPUs per node");
    is_int (jt_run_step_gpus (r, 0), 1, "default step: 1 when unknown");
    validate_is (r, 8, "");
    r->group_gpus = 32;
    is_int (jt_run_step_gpus (r, 8), 32, "default step: groupGPUs");
    validate_is (r, 8, "");
    r->group_gpus = 0;
    r->step_given = true;
    validate_each (r, (const struct vcase[]) {
        { &r->step_gpus, 32, NULL },
        { &r->step_gpus, 12,
          "malleable.stepGPUs: stepGPUs=12 is not a multiple of the 8 GPUs per h100 "
          "node (a run grows and shrinks by whole nodes); use 8 or 16" },
        { &r->step_gpus, 0, "malleable.stepGPUs: must be at least 1, got 0" },
        { &r->step_gpus, 32, "" },
        { &r->step_gpus, 40,
          "malleable.maxTotalGPUs: maxTotalGPUs - minTotalGPUs = 128 - 32 is not a "
          "multiple of the step 40" },
        { &r->total_gpus, 48,
          "resources.totalGPUs: totalGPUs=48 is not minTotalGPUs=32 plus a multiple "
          "of the step 32" },
        { &r->total_gpus, 160,
          "resources.totalGPUs: totalGPUs=160 is outside the malleable range [32, 128]" },
        { &r->total_gpus, 16,
          "resources.totalGPUs: totalGPUs=16 is outside the malleable range [32, 128]" },
        { &r->max_gpus, 16,
          "malleable.maxTotalGPUs: maxTotalGPUs=16 is below minTotalGPUs=32" },
        { &r->min_gpus, 0, "malleable.minTotalGPUs: must be at least 1, got 0" },
        /* sizes a user picks are bounded by what a cluster can hold (2^20
         * GPUs): compile allocates per group, and plan works per step */
        { &r->max_gpus, INT64_C (1) << 31,
          "malleable.maxTotalGPUs: 2147483648 GPUs is more than a run may ask for "
          "(1048576)" },
        { NULL } });
    r->malleable = false;
    validate_each (r, (const struct vcase[]) {
        { &r->total_gpus, INT64_MAX,
          "resources.totalGPUs: 9223372036854775807 GPUs is more than a run may ask "
          "for (1048576)" },
        { &r->total_gpus, (INT64_C (1) << 20) + 8,
          "resources.totalGPUs: 1048584 GPUs is more than a run may ask for "
          "(1048576)" },
        { &r->total_gpus, INT64_C (1) << 20, "" },
        { &r->group_gpus, INT64_MAX - 7,
          "locality.groupGPUs: 9223372036854775800 GPUs is more than a run may ask "
          "for (1048576)" },
        { &r->total_gpus, INT64_C (1) << 20, NULL },
        { &r->group_gpus, 64, NULL },
        { &r->spares_per_group, 65,
          "sparesPerGroup: 65 spare nodes per group is more than 64" },
        { &r->spares_per_group, 1, NULL },
        { NULL } });
    {
        jt_groups_t g;
        jt_error_t e = { "" };
        ok (jt_run_compile (r, INT64_C (1) << 31, &g, &e) < 0 && g.n == 0,
            "compile refuses 2^31 GPUs (no 2^25-entry allocation): %s", e.text);
        ok (jt_run_compile (r, INT64_C (1) << 20, &g, &e) == 0 && g.n == 16384,
            "compile of 2^20 GPUs in groups of 64: 16384 groups");
        jt_groups_free (&g);
    }
    r->total_gpus = 64;
    jt_run_destroy (r);
    ok (jt_run_validate (NULL, 8, NULL) < 0, "NULL run");
    jt_run_destroy (NULL);

    /* parse errors, each with its path and line:col */
    for (size_t i = 0; i < sizeof (parse_errors) / sizeof (parse_errors[0]); i++)
        is (fx_parse_run (parse_errors[i].text, NULL), parse_errors[i].want, "%s",
            parse_errors[i].name);
    is (fx_parse_run ("{\"owner\":\"a\",\"resources\":{\"gpuType\":\"h100\",\"totalGPUs\":8},"
               "\"funding\":{\"sponsors\":[\"v\"]}}", &r), "", "sponsors alone parse");
    ok (r->allow_borrow, "sponsors imply allowBorrow");
    jt_run_destroy (r);

    /* every prefix of a valid run is an error, never a crash */
    is_int (fx_truncations (FX_RUN, full), 0,
            "all %zu truncations of a run are refused with a diagnostic",
            strlen (full) - 1);

    /* every single-byte corruption: parsed cleanly or refused with a reason */
    size_t total;
    fx_doc_t kind = FX_RUN;
    size_t bad_n = fx_corruptions (full, fx_round_trip, &kind, &total);
    is_int (bad_n, 0, "%zu corruptions: parsed and round-trips, or refused with a "
            "reason", total);

    /* the examples shipped in etc/runs are valid on 8-GPU h100 nodes */
    static const char *const examples[] = { "grouped", "malleable", "small", NULL };
    for (size_t i = 0; examples[i]; i++) {
        char path[4096];
        const char *src = getenv ("JT_SRCDIR");
        jt_diags_t d;
        jt_error_t err = { "" };
        snprintf (path, sizeof (path), "%s/etc/runs/%s.json", src ? src : "..",
                  examples[i]);
        jt_diags_init (&d);
        jt_run_t *x = jt_run_load_file (path, &d);
        ok (x && d.n == 0, "etc/runs/%s.json loads", examples[i]);
        ok (x && jt_run_validate (x, 8, &err) == 0, "etc/runs/%s.json is valid%s%s",
            examples[i], *err.text ? ": " : "", err.text);
        jt_run_destroy (x);
        jt_diags_free (&d);
    }
    jt_diags_t d;
    jt_diags_init (&d);
    ok (jt_run_load_file ("/nonexistent/run.json", &d) == NULL, "missing file");
    is (d.n ? d.v[0].msg : "", "cannot open: No such file or directory",
        "missing file message");
    jt_diags_free (&d);
    test_labels ();
    return done_testing ();
}
