/*
 * ledger_event.c - unit tests of the ledger event model: canonical JSON of
 * every event type (exact strings), parse/serialize round trips, refusals.
 * The Activation: made from a decision of jt_activate, canonical, read back,
 * recomputed from the event alone; forgeries that change the decision are
 * found, with the first mismatch named; every bound and unknown key refused.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/ledger.h"
#include "jobtree/lottery.h"
#include "tap.h"

static void roundtrip (const char *json, const char *name)
{
    jt_error_t err = { "" };
    jt_event_t *ev = jt_event_from_json (json, strlen (json), &err);
    ok (ev != NULL, "%s parses%s%s", name, ev ? "" : ": ", ev ? "" : err.text);
    char *out = ev ? jt_event_to_json (ev, &err) : NULL;
    is (out ? out : "(null)", json, "%s is canonical after a round trip", name);
    free (out);
    jt_event_destroy (ev);
}

static void refuse (const char *json, const char *want, const char *name)
{
    jt_error_t err = { "" };
    jt_event_t *ev = jt_event_from_json (json, strlen (json), &err);
    ok (ev == NULL, "%s is refused", name);
    is (err.text, want, "%s: message", name);
    jt_event_destroy (ev);
}

/* ---- Activation ---- */

/* holder: run, owner, group, role, gpus, pool, run GPUs, run minimum */
#define H(run, owner, group, role, gpus, pool, rg, rmin) \
    { run, owner, group, JT_ROLE_##role, gpus, pool, rg, rmin }

static const char *const POOLS[] = { "west/A", "west/B", "envelope:west-h100" };

/* Every step runs: the spare (8 of 32 short on west/A), c:3's group 1 (a
 * malleable shrink), then the lottery over c:3, c:5, c:7 and c:9 (three
 * owners) for the 16 still short. */
static const jt_holder_t HOLDERS[] = {
    H ("c:7", "vision", 0, ACTIVE, 8, 0, 8, 8),
    H ("c:3", "rai", 0, ACTIVE, 8, 0, 16, 8),
    H ("c:3", "rai", 1, ACTIVE, 8, 0, 16, 8),
    H ("c:3", "rai", 0, SPARE, 8, 0, 16, 8),
    H ("c:9", "speech", 0, BORROWED, 16, 0, 24, 24),
    H ("c:9", "speech", 1, BORROWED, 8, 1, 24, 24),
    H ("c:5", "rai", 0, ACTIVE, 8, 0, 8, 8),
};
#define NHOLDERS (sizeof (HOLDERS) / sizeof (HOLDERS[0]))
#define RESV "c:11:resv:1772366400"
#define WHEN 1772367000

/* The Activation event of jt_activate over holders with needs as the one
 * alternative (a second, uncoverable alternative first when `first_short`),
 * or NULL (err). The decision goes to *a when not NULL. */
static jt_event_t *decide (const jt_holder_t *h, size_t nh, const jt_need_t *needs,
                           size_t nneeds, bool first_short, jt_activation_t *keep,
                           jt_error_t *err)
{
    const jt_need_t huge[] = { { 1, 1000 } };
    jt_slice_alt_t alts[] = { { huge, 1 }, { needs, nneeds } };
    jt_activation_req_t req = { .scope = "west/A", .resv_id = RESV, .time = WHEN,
                                .alts = first_short ? alts : alts + 1,
                                .nalts = first_short ? 2 : 1, .holders = h,
                                .nholders = nh };
    jt_activation_t a;
    jt_event_t *ev;

    if (jt_activate (&req, &a, err) < 0)
        return NULL;
    ev = jt_event_activation (RESV ":activation:1772367000", RESV, "c:11", &req, a.alt,
                              POOLS, 3, &a, err);
    if (keep)
        *keep = a;
    else
        jt_activation_free (&a);
    return ev;
}

/* Replace the first `from` in s by `to` (static result). */
static const char *edit (const char *s, const char *from, const char *to)
{
    static char buf[8192];
    const char *p = strstr (s, from);

    if (!p)
        bail_out ("edit: '%s' not found", from);
    snprintf (buf, sizeof (buf), "%.*s%s%s", (int) (p - s), s, to, p + strlen (from));
    return buf;
}

/* Parse json and recompute it: "rc: why". */
static const char *recompute (const char *json)
{
    static char out[512];
    char why[256] = "";
    jt_error_t err = { "" };
    jt_event_t *ev = jt_event_from_json (json, strlen (json), &err);
    int rc;

    if (!ev) {
        snprintf (out, sizeof (out), "parse: %s", err.text);
        return out;
    }
    rc = jt_event_activation_replay (ev, NULL, why, sizeof (why));
    snprintf (out, sizeof (out), "%d: %s", rc, why);
    jt_event_destroy (ev);
    return out;
}

#define C7                                                                            \
    "{\"run\":\"c:7\",\"owner\":\"vision\",\"group\":0,\"role\":\"Active\","          \
    "\"gpus\":8,\"pool\":\"west/A\",\"runGPUs\":8,\"minGPUs\":8}"

static void test_activation (void)
{
    const jt_need_t needs[] = { { 0, 32 }, { 2, 0 } };
    jt_activation_t a, back;
    jt_error_t err = { "" };
    jt_event_t *ev = decide (HOLDERS, NHOLDERS, needs, 2, true, &a, &err);
    char *js = ev ? jt_event_to_json (ev, &err) : NULL, hex[17], why[256] = "";
    uint64_t rho = 0;

    ok (ev != NULL && js != NULL, "an Activation from a decision%s%s", ev ? "" : ": ",
        ev ? "" : err.text);
    if (!js)
        bail_out ("no Activation: %s", err.text);
    jt_lottery_seed ("west/A", RESV, WHEN, &rho, &err);
    snprintf (hex, sizeof (hex), "%016" PRIx64, rho);
    is (js,
        "{\"v\":1,\"type\":\"Activation\","
        "\"id\":\"c:11:resv:1772366400:activation:1772367000\",\"time\":1772367000,"
        "\"reservation\":\"c:11:resv:1772366400\",\"run\":\"c:11\","
        "\"scope\":\"west/A\",\"seed\":\"c49fde7a45e88f08\","
        "\"needs\":[{\"pool\":\"west/A\",\"deficit\":32},"
        "{\"pool\":\"envelope:west-h100\",\"deficit\":0}],"
        "\"holders\":[{\"run\":\"c:7\",\"owner\":\"vision\",\"group\":0,"
        "\"role\":\"Active\",\"gpus\":8,\"pool\":\"west/A\",\"runGPUs\":8,"
        "\"minGPUs\":8},{\"run\":\"c:3\",\"owner\":\"rai\",\"group\":0,"
        "\"role\":\"Active\",\"gpus\":8,\"pool\":\"west/A\",\"runGPUs\":16,"
        "\"minGPUs\":8},{\"run\":\"c:3\",\"owner\":\"rai\",\"group\":1,"
        "\"role\":\"Active\",\"gpus\":8,\"pool\":\"west/A\",\"runGPUs\":16,"
        "\"minGPUs\":8},{\"run\":\"c:3\",\"owner\":\"rai\",\"group\":0,"
        "\"role\":\"Spare\",\"gpus\":8,\"pool\":\"west/A\",\"runGPUs\":16,"
        "\"minGPUs\":8},{\"run\":\"c:9\",\"owner\":\"speech\",\"group\":0,"
        "\"role\":\"Borrowed\",\"gpus\":16,\"pool\":\"west/A\",\"runGPUs\":24,"
        "\"minGPUs\":24},{\"run\":\"c:9\",\"owner\":\"speech\",\"group\":1,"
        "\"role\":\"Borrowed\",\"gpus\":8,\"pool\":\"west/B\",\"runGPUs\":24,"
        "\"minGPUs\":24},{\"run\":\"c:5\",\"owner\":\"rai\",\"group\":0,"
        "\"role\":\"Active\",\"gpus\":8,\"pool\":\"west/A\",\"runGPUs\":8,"
        "\"minGPUs\":8}],\"cuts\":[{\"run\":\"c:3\",\"group\":0,"
        "\"cut\":\"DropSpare\"},{\"run\":\"c:3\",\"group\":1,\"cut\":\"Shrink\"},"
        "{\"run\":\"c:3\",\"group\":0,\"cut\":\"RandomPreempt\"},{\"run\":\"c:9\","
        "\"group\":0,\"cut\":\"RandomPreempt\"},{\"run\":\"c:9\",\"group\":1,"
        "\"cut\":\"RandomPreempt\"}],\"resolved\":true}",
        "Activation: canonical JSON in fixed key order");
    roundtrip (js, "Activation");
    ok (strstr (js, hex) && ev->seed == rho && a.rho == rho,
        "its seed is the lottery seed of scope, reservation and time");
    is_int (jt_event_activation_replay (ev, &back, why, sizeof (why)), 0,
            "it recomputes from the event alone%s%s", why[0] ? ": " : "", why);
    {
        jt_activation_req_t req = { .holders = HOLDERS, .nholders = NHOLDERS };
        char *d1 = jt_activation_dump (&a, &req), *d2 = jt_activation_dump (&back, &req);
        /* the event records the one alternative taken: alt 1 is its alt 0 */
        is (d2 ? strstr (d2, "deficit=") : "", d1 ? strstr (d1, "deficit=") : "(null)",
            "to the same decision, draw for draw");
        free (d1);
        free (d2);
    }
    jt_activation_free (&back);
    jt_activation_free (&a);

    /* forgeries: what the recomputation says of each */
    static const struct {
        const char *name, *from, *to, *want;
    } forged[] = {
        { "nothing changed", "\"scope\"", "\"scope\"", "0: " },
        { "seed changed", "c49fde7a45e88f08", "0123456789abcdef",
          "1: seed 0123456789abcdef is not the lottery seed c49fde7a45e88f08 of "
          "scope west/A, reservation c:11:resv:1772366400, time 1772367000" },
        { "time changed", "\"time\":1772367000", "\"time\":1772367001",
          "1: seed c49fde7a45e88f08 is not the lottery seed fea866e0078d4afc of "
          "scope west/A, reservation c:11:resv:1772366400, time 1772367001" },
        { "a victim changed", "{\"run\":\"c:9\",\"group\":0,",
          "{\"run\":\"c:7\",\"group\":0,",
          "1: cut 3: recorded RandomPreempt c:7/0, recomputed RandomPreempt c:9/0" },
        { "a cut's kind changed", "\"group\":1,\"cut\":\"Shrink\"",
          "\"group\":1,\"cut\":\"DropSpare\"",
          "1: cut 1: recorded DropSpare c:3/1, recomputed Shrink c:3/1" },
        { "a cut left out", ",{\"run\":\"c:9\",\"group\":1,\"cut\":\"RandomPreempt\"}", "",
          "1: 4 cuts recorded, 5 recomputed; cut 4 not recorded: RandomPreempt c:9/1" },
        { "resolved flipped", "\"resolved\":true", "\"resolved\":false",
          "1: recorded resolved false, recomputed true" },
        { "a smaller deficit", "\"deficit\":32", "\"deficit\":16",
          "1: 5 cuts recorded, 2 recomputed; cut 2 not recomputed: RandomPreempt c:3/0" },
        { "a holder's owner changed", "\"owner\":\"vision\"", "\"owner\":\"rai\"",
          "1: cut 3: recorded RandomPreempt c:9/0, recomputed RandomPreempt c:5/0" },
        { "a holder left out", C7 ",", "",
          "1: cut 3: recorded RandomPreempt c:9/0, recomputed RandomPreempt c:5/0" },
    };
    for (size_t i = 0; i < sizeof (forged) / sizeof (forged[0]); i++)
        is (recompute (edit (js, forged[i].from, forged[i].to)), forged[i].want, "%s",
            forged[i].name);
    {
        /* jt_activate sorts the holders: the order they are recorded in does
         * not change the decision (c:7 moved from first to last) */
        char *f = strdup (edit (js, C7 ",", ""));
        is (recompute (edit (f, "}],\"cuts\"", "}," C7 "],\"cuts\"")), "0: ",
            "holders in another order: the same decision");
        free (f);
    }
    free (js);
    jt_event_destroy (ev);
}

/* An Activation with one holder, its pieces replaceable for refusals. */
#define ACT_HEAD                                                                   \
    "{\"v\":1,\"type\":\"Activation\",\"id\":\"a\",\"time\":5,\"reservation\":\"r\","    \
    "\"run\":\"c:2\",\"scope\":\"west/A\",\"seed\":\"0123456789abcdef\","
#define ACT_NEEDS "\"needs\":[{\"pool\":\"west/A\",\"deficit\":8}],"
#define ACT_HOLDER                                                                 \
    "{\"run\":\"c:1\",\"owner\":\"rai\",\"group\":0,\"role\":\"Active\",\"gpus\":8,"   \
    "\"pool\":\"west/A\",\"runGPUs\":8,\"minGPUs\":8}"
#define ACT_HOLDERS "\"holders\":[" ACT_HOLDER "],"
#define ACT_CUTS "\"cuts\":[{\"run\":\"c:1\",\"group\":0,\"cut\":\"RandomPreempt\"}],"
#define ACT_TAIL "\"resolved\":true}"
#define ACT ACT_HEAD ACT_NEEDS ACT_HOLDERS ACT_CUTS ACT_TAIL

/* The JSON of an Activation whose "holders" (or "needs") array has n copies
 * of one element (malloc'd). */
static char *act_many (const char *key, size_t n)
{
    const char *elem = !strcmp (key, "holders")
                           ? ACT_HOLDER
                           : "{\"pool\":\"west/A\",\"deficit\":8}";
    size_t len = strlen (ACT) + n * (strlen (elem) + 1) + 64;
    char *s = malloc (len), *p;

    if (!s)
        bail_out ("out of memory");
    p = s + sprintf (s, "%s", ACT_HEAD);
    if (strcmp (key, "needs"))
        p += sprintf (p, "%s", ACT_NEEDS);
    p += sprintf (p, "\"%s\":[", key);
    for (size_t i = 0; i < n; i++)
        p += sprintf (p, "%s%s", i ? "," : "", elem);
    p += sprintf (p, "],");
    if (strcmp (key, "holders"))
        p += sprintf (p, "%s", ACT_HOLDERS);
    sprintf (p, "%s%s", ACT_CUTS, ACT_TAIL);
    return s;
}

static void test_activation_refusals (void)
{
    static const struct {
        const char *name, *from, *to, *want;
    } bad[] = {
        { "unknown key", "\"resolved\"", "\"verdict\":1,\"resolved\"",
          "verdict: unknown key" },
        { "unknown holder key", "\"minGPUs\":8", "\"minGPUs\":8,\"prio\":1",
          "holders[0].prio: unknown key" },
        { "unknown need key", "\"deficit\":8", "\"deficit\":8,\"x\":1",
          "needs[0].x: unknown key" },
        { "unknown cut key", "\"cut\":\"RandomPreempt\"",
          "\"cut\":\"RandomPreempt\",\"draw\":0", "cuts[0].draw: unknown key" },
        { "no scope", "\"scope\":\"west/A\",", "", "scope: missing" },
        { "no seed", "\"seed\":\"0123456789abcdef\",", "", "seed: missing" },
        { "a short seed", "0123456789abcdef", "0123", "seed: expected 16 hex digits" },
        { "an uppercase seed", "0123456789abcdef", "0123456789ABCDEF",
          "seed: expected 16 hex digits" },
        { "a seed with a sign", "0123456789abcdef", "+123456789abcdef",
          "seed: expected 16 hex digits" },
        { "no resolved", ",\"resolved\":true", "", "resolved: missing" },
        { "resolved not a boolean", "\"resolved\":true", "\"resolved\":1",
          "resolved: expected true or false" },
        { "needs not an array", "\"needs\":[{\"pool\":\"west/A\",\"deficit\":8}]",
          "\"needs\":{}", "needs: expected an array" },
        { "a holder not an object", "\"holders\":[{", "\"holders\":[1,{",
          "holders[0]: expected an object" },
        { "zero GPUs", "\"gpus\":8", "\"gpus\":0",
          "holders[0].gpus: 0 is not in [1, 1048576]" },
        { "GPUs beyond a run's", "\"gpus\":8", "\"gpus\":1048577",
          "holders[0].gpus: 1048577 is not in [1, 1048576]" },
        { "GPUs saturating json-c", "\"gpus\":8", "\"gpus\":99999999999999999999",
          "holders[0].gpus: integer out of range" },
        { "GPUs not an integer", "\"gpus\":8", "\"gpus\":8.5",
          "holders[0].gpus: expected an integer" },
        { "a negative group", "\"group\":0,\"role\"", "\"group\":-1,\"role\"",
          "holders[0].group: -1 is not in [0, 1048576]" },
        { "a huge group", "\"group\":0,\"role\"", "\"group\":4294967296,\"role\"",
          "holders[0].group: 4294967296 is not in [0, 1048576]" },
        { "a negative cut group", "\"group\":0,\"cut\"", "\"group\":-2,\"cut\"",
          "cuts[0].group: -2 is not in [0, 1048576]" },
        { "a deficit beyond any holders'", "\"deficit\":8",
          "\"deficit\":68719476737",
          "needs[0].deficit: 68719476737 is not in [-68719476736, 68719476736]" },
        { "a negative deficit beyond", "\"deficit\":8", "\"deficit\":-68719476737",
          "needs[0].deficit: -68719476737 is not in [-68719476736, 68719476736]" },
        { "minGPUs above runGPUs", "\"minGPUs\":8", "\"minGPUs\":9",
          "holders[0].minGPUs: 9 is not in [0, runGPUs 8]" },
        { "runGPUs negative", "\"runGPUs\":8", "\"runGPUs\":-1",
          "holders[0].runGPUs: -1 is not in [0, 1048576]" },
        { "an unknown role", "\"role\":\"Active\"", "\"role\":\"Lent\"",
          "holders[0].role: unknown value 'Lent'" },
        { "an unknown cut", "\"cut\":\"RandomPreempt\"", "\"cut\":\"Evict\"",
          "cuts[0].cut: unknown value 'Evict'" },
        { "an empty pool", "\"pool\":\"west/A\",\"deficit\"", "\"pool\":\"\",\"deficit\"",
          "needs[0].pool: missing or empty" },
        { "a pool needed twice", "\"deficit\":8}", "\"deficit\":8},{\"pool\":\"west/A\",\"deficit\":1}",
          "needs: pool west/A named twice" },
        { "a holder without a run", "{\"run\":\"c:1\",\"owner\"", "{\"run\":\"\",\"owner\"",
          "holders[0]: needs run, owner and pool" },
        { "a run's holders disagree", ACT_HOLDER "]",
          ACT_HOLDER ",{\"run\":\"c:1\",\"owner\":\"vision\",\"group\":1,\"role\":"
          "\"Active\",\"gpus\":8,\"pool\":\"west/A\",\"runGPUs\":8,\"minGPUs\":8}]",
          "holders[1]: owner, runGPUs or minGPUs of run c:1 differ from holders[0]" },
        { "more cuts than holders", "\"cut\":\"RandomPreempt\"}",
          "\"cut\":\"RandomPreempt\"},{\"run\":\"c:1\",\"group\":0,\"cut\":\"Shrink\"}",
          "cuts: 2 cuts of 1 holders" },
    };
    char name[128];

    roundtrip (ACT, "Activation (one holder)");
    /* an adapter that ends whole jobs holds a spare as Active beside its
     * group: one gang, one group, the same record whichever comes first */
    {
        const jt_holder_t h[] = { H ("c:1", "rai", 0, ACTIVE, 8, 0, 16, 16),
                                  H ("c:2", "vision", 0, ACTIVE, 16, 0, 16, 16),
                                  H ("c:1", "rai", 0, ACTIVE, 8, 0, 16, 16) };
        const jt_need_t need[] = { { 0, 16 } };
        jt_error_t err = { "" };
        jt_event_t *ev = decide (h, 3, need, 1, false, NULL, &err);
        char *js = ev ? jt_event_to_json (ev, &err) : NULL;
        ok (js != NULL, "an Activation with a holder twice%s%s", js ? "" : ": ",
            js ? "" : err.text);
        if (js) {
            roundtrip (js, "Activation (a holder twice)");
            is (recompute (js), "0: ", "  it recomputes");
        }
        free (js);
        jt_event_destroy (ev);
    }
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        snprintf (name, sizeof (name), "Activation: %s", bad[i].name);
        refuse (edit (ACT, bad[i].from, bad[i].to), bad[i].want, name);
    }
    {
        char *s = act_many ("holders", JT_EV_HOLDERS_MAX + 1);
        refuse (s, "holders: more than 65536", "Activation: 65537 holders");
        free (s);
        s = act_many ("needs", JT_EV_NEEDS_MAX + 1);
        refuse (s, "needs: more than 1024", "Activation: 1025 needs");
        free (s);
    }
}

/* The constructor refuses what the event could not say. */
static void test_activation_constructor (void)
{
    const jt_holder_t h[] = { H ("c:1", "rai", 0, ACTIVE, 8, 0, 8, 8),
                              H ("c:2", "rai", 0, ACTIVE, 8, 3, 8, 8) };
    const jt_holder_t h2[] = { H ("c:1", "rai", 0, ACTIVE, 8, 2, 8, 8) };
    const jt_need_t need[] = { { 0, 8 } };
    const char *twice[] = { "west/A", "west/B", "west/A" };
    jt_slice_alt_t alt = { need, 1 };
    jt_activation_req_t req = { "west/A", RESV, WHEN, &alt, 1, h, 1 };
    jt_activation_t a;
    jt_error_t err = { "" };
    jt_event_t *ev;

    if (jt_activate (&req, &a, &err) < 0)
        bail_out ("activate: %s", err.text);
    ev = jt_event_activation ("x", "c:1:resv:1", "c:11", &req, a.alt, POOLS, 3, &a, &err);
    ok (!ev, "the reservation must be the request's");
    is (err.text, "Activation: reservation c:1:resv:1 is not the request's " RESV,
        "and it says so");
    jt_event_destroy (ev);
    req.nholders = 2;
    ev = jt_event_activation ("x", RESV, "c:11", &req, a.alt, POOLS, 3, &a, &err);
    ok (!ev, "a pool without a name is refused");
    is (err.text, "Activation: holder 1: pool 3 has no name", "and it says which");
    jt_event_destroy (ev);
    req.nholders = 1;
    ev = jt_event_activation ("x", RESV, "c:11", &req, a.alt, twice, 3, &a, &err);
    ok (ev != NULL, "a name given twice is no matter while one of them is unused");
    jt_event_destroy (ev);
    req.holders = h2;
    ev = jt_event_activation ("x", RESV, "c:11", &req, a.alt, twice, 3, &a, &err);
    ok (!ev, "two pools in use with one name are refused (the event could not tell them "
             "apart)");
    is (err.text, "Activation: two pools are named west/A", "and it says which");
    jt_event_destroy (ev);
    req.holders = h;
    jt_activation_free (&a);
    /* nothing the holders can cover: no cut, unresolved, recomputed */
    {
        const jt_need_t big[] = { { 0, 9 } };
        alt.needs = big;
        if (jt_activate (&req, &a, &err) < 0)
            bail_out ("activate: %s", err.text);
        ev = jt_event_activation ("x", RESV, "c:11", &req, a.alt, POOLS, 3, &a, &err);
        char why[256] = "";
        ok (ev && !ev->resolved && ev->ncuts == 0 && ev->nneeds == 1
                && ev->needs[0].deficit == 9,
            "an uncoverable slice: its needs, no cut, unresolved");
        is_int (ev ? jt_event_activation_replay (ev, NULL, why, sizeof (why)) : -2, 0,
                "and it recomputes%s%s", why[0] ? ": " : "", why);
        jt_event_destroy (ev);
        jt_activation_free (&a);
    }
}

/* Hostile numbers are refused before any fold adds them (issue 9): GPUs
 * beyond JT_RUN_GPUS_MAX (two Starts near 2^62 wrapped an envelope's active
 * count), times beyond 9999-12-31T23:59:59Z, an envelope twice in caps. */
static void test_bounds (void)
{
#define LEASE(gpus, start)                                                            \
    "{\"v\":1,\"type\":\"Start\",\"id\":\"x\",\"time\":5,\"lease\":\"L\","          \
    "\"run\":\"c:1\",\"group\":\"0\",\"nodes\":[\"n1\"],\"gpus\":" gpus ","           \
    "\"role\":\"Active\",\"envelope\":\"e\",\"owner\":\"o\",\"start\":" start "}"
#define CAP(env, start, end)                                                          \
    "{\"envelope\":\"" env "\",\"owner\":\"o\",\"concurrency\":8,\"maxGPUHours\":1.0,"  \
    "\"start\":" start ",\"end\":" end "}"
#define CAPS(list) "{\"v\":1,\"type\":\"BudgetLoaded\",\"id\":\"b\",\"time\":0," \
    "\"files\":[],\"caps\":[" list "]}"
    static const struct {
        const char *name, *json, *want;
    } bad[] = {
        { "gpus 2^20 + 1", LEASE ("1048577", "5"),
          "gpus: must be in [1, 1048576], got 1048577" },
        { "gpus near 2^62", LEASE ("4611686018427387904", "5"),
          "gpus: must be in [1, 1048576], got 4611686018427387904" },
        { "negative gpus", LEASE ("-8", "5"), "gpus: must be in [1, 1048576], got -8" },
        { "start after 9999", LEASE ("8", "253402300800"),
          "start: 253402300800 is not a time in [0, 253402300799]" },
        { "ReservationCreate gpus 2^40",
          "{\"v\":1,\"type\":\"ReservationCreate\",\"id\":\"r1\",\"time\":7,"
          "\"reservation\":\"res-1\",\"run\":\"c:9\",\"envelope\":\"e\","
          "\"owner\":\"o\",\"nodes\":[],\"gpus\":1099511627776,\"start\":100}",
          "gpus: must be in [1, 1048576], got 1099511627776" },
        { "ReservationCreate negative start",
          "{\"v\":1,\"type\":\"ReservationCreate\",\"id\":\"r1\",\"time\":7,"
          "\"reservation\":\"res-1\",\"run\":\"c:9\",\"envelope\":\"e\","
          "\"owner\":\"o\",\"nodes\":[],\"gpus\":8,\"start\":-1}",
          "start: -1 is not a time in [0, 253402300799]" },
        { "event time after 9999",
          "{\"v\":1,\"type\":\"NodeFail\",\"id\":\"f\",\"time\":9000000000000,"
          "\"nodes\":[\"a\"]}",
          "time: 9000000000000 is not a time in [0, 253402300799]" },
        { "an envelope twice in caps",
          CAPS (CAP ("e", "0", "10") "," CAP ("f", "0", "10") "," CAP ("e", "0", "20")),
          "caps: envelope e appears twice" },
        { "a window ending after 9999", CAPS (CAP ("e", "0", "253402300800")),
          "caps[0]: needs concurrency >= 1, a finite maxGPUHours >= 0 and "
          "0 <= start < end <= 253402300799" },
        { "a window starting before 1970", CAPS (CAP ("e", "-5", "10")),
          "caps[0]: needs concurrency >= 1, a finite maxGPUHours >= 0 and "
          "0 <= start < end <= 253402300799" },
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++)
        refuse (bad[i].json, bad[i].want, bad[i].name);
    roundtrip (LEASE ("1048576", "253402300799"), "the largest GPUs and start");

    /* and an event built in memory, beyond validation, cannot wrap a fold's
     * count: two Starts near 2^62 each */
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    jt_error_t err = { "" };
    jt_violation_t v;
    int rc[2];
    for (int i = 0; i < 2; i++) {
        jt_event_t *ev = jt_event_from_json (LEASE ("8", "5"), strlen (LEASE ("8", "5")),
                                             &err);
        if (!ev)
            bail_out ("Start: %s", err.text);
        ev->gpus = INT64_MAX / 2 + 1;
        jt_event_set (&ev->lease, i ? "L2" : "L1");
        jt_event_set (&ev->id, i ? "x2" : "x1");
        jt_event_set (&ev->nodes[0], i ? "n2" : "n1");
        rc[i] = jt_ledger_fold_apply (f, (uint64_t) i + 1, ev, &v, &err);
        jt_event_destroy (ev);
    }
    jt_fold_envelope_t e;
    ok (jt_ledger_fold_envelope (f, "e", 5, &e) == 0 && e.active_gpus > 0
            && e.active_gpus == INT64_MAX / 2 + 1,
        "a fold never wraps an envelope's active GPUs (%" PRId64 ")", e.active_gpus);
    ok (rc[0] == 0 && rc[1] == 1 && v.kind == JT_VIOL_CONCURRENCY,
        "the Start that would wrap it is a violation, not applied: %s", v.msg);
    jt_ledger_fold_destroy (f);
#undef LEASE
#undef CAP
#undef CAPS
}

/* docs/ledger-format.md, section 4: the strings that must not be empty,
 * each refused empty (and the ones that may be, accepted). */
static void test_nonempty (void)
{
#define ST "{\"v\":1,\"type\":\"Start\",\"id\":\"%s\",\"time\":5,\"lease\":\"%s\"," \
           "\"run\":\"%s\",\"group\":\"%s\",\"nodes\":[\"%s\"],\"gpus\":8,"            \
           "\"role\":\"Active\",\"envelope\":\"%s\",\"owner\":\"%s\",\"start\":5}"
    static const struct {
        const char *name, *id, *lease, *run, *group, *node, *env, *owner, *want;
    } lease[] = {
        { "an empty id", "", "L", "c:1", "0", "n", "e", "o", "id: missing or empty" },
        { "an empty lease", "x", "", "c:1", "0", "n", "e", "o", "lease: missing or empty" },
        { "an empty run", "x", "L", "", "0", "n", "e", "o", "run: missing or empty" },
        { "an empty group", "x", "L", "c:1", "", "n", "e", "o", "group: missing or empty" },
        { "an empty node name", "x", "L", "c:1", "0", "", "e", "o", "nodes[0]: empty" },
        { "an empty envelope", "x", "L", "c:1", "0", "n", "", "o",
          "envelope: missing or empty" },
        { "an empty owner", "x", "L", "c:1", "0", "n", "e", "", "owner: missing or empty" },
    };
    char buf[512];
    for (size_t i = 0; i < sizeof (lease) / sizeof (lease[0]); i++) {
        snprintf (buf, sizeof (buf), ST, lease[i].id, lease[i].lease, lease[i].run,
                  lease[i].group, lease[i].node, lease[i].env, lease[i].owner);
        refuse (buf, lease[i].want, lease[i].name);
    }
    static const struct {
        const char *name, *json, *want;
    } other[] = {
        { "a lease with no node",
          "{\"v\":1,\"type\":\"Start\",\"id\":\"x\",\"time\":5,\"lease\":\"L\","
          "\"run\":\"c:1\",\"group\":\"0\",\"nodes\":[],\"gpus\":8,\"role\":\"Active\","
          "\"envelope\":\"e\",\"owner\":\"o\",\"start\":5}",
          "nodes: a lease needs at least one node" },
        { "an empty reservation id",
          "{\"v\":1,\"type\":\"ReservationActivate\",\"id\":\"x\",\"time\":5,"
          "\"reservation\":\"\",\"run\":\"c:1\"}",
          "reservation: missing or empty" },
        { "a ReservationCreate with an empty owner",
          "{\"v\":1,\"type\":\"ReservationCreate\",\"id\":\"x\",\"time\":5,"
          "\"reservation\":\"r\",\"run\":\"c:1\",\"envelope\":\"e\",\"owner\":\"\","
          "\"nodes\":[],\"gpus\":8,\"start\":5}",
          "owner: missing or empty" },
        { "a NodeFail with no node",
          "{\"v\":1,\"type\":\"NodeFail\",\"id\":\"x\",\"time\":5,\"nodes\":[]}",
          "nodes: NodeFail needs a node" },
        { "a NodeFail with an empty node name",
          "{\"v\":1,\"type\":\"NodeFail\",\"id\":\"x\",\"time\":5,\"nodes\":[\"\"]}",
          "nodes[0]: empty" },
        { "a file with an empty path",
          "{\"v\":1,\"type\":\"BudgetLoaded\",\"id\":\"b\",\"time\":0,\"files\":"
          "[{\"path\":\"\",\"sha256\":\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca4"
          "95991b7852b855\"}],\"caps\":[]}",
          "files[0]: needs path and a hex sha256" },
        { "a cap with an empty owner",
          "{\"v\":1,\"type\":\"BudgetLoaded\",\"id\":\"b\",\"time\":0,\"files\":[],"
          "\"caps\":[{\"envelope\":\"e\",\"owner\":\"\",\"concurrency\":8,"
          "\"maxGPUHours\":1.0,\"start\":0,\"end\":10}]}",
          "caps[0]: needs envelope and owner" },
    };
    for (size_t i = 0; i < sizeof (other) / sizeof (other[0]); i++)
        refuse (other[i].json, other[i].want, other[i].name);
    roundtrip ("{\"v\":1,\"type\":\"NodeFail\",\"id\":\"x\",\"time\":5,\"nodes\":"
               "[\"a\"],\"run\":\"\",\"note\":\"\"}",
               "a NodeFail's run and a note may be empty");
#undef ST
}

int main (void)
{
    jt_error_t err = { "" };
    jt_event_t *ev = jt_event_create (JT_EV_START);
    jt_event_set (&ev->id, "ctld:1:1");
    ev->time = 1767225600;
    jt_event_set (&ev->lease, "c1:42:0");
    jt_event_set (&ev->run, "c1:42");
    jt_event_set (&ev->group, "0");
    jt_event_add_node (ev, "a01");
    jt_event_add_node (ev, "a02");
    ev->gpus = 16;
    ev->role = JT_ROLE_ACTIVE;
    jt_event_set (&ev->envelope, "west-h100");
    jt_event_set (&ev->owner, "rai");
    ev->start = 1767225600;
    char *s = jt_event_to_json (ev, &err);
    is (s,
        "{\"v\":1,\"type\":\"Start\",\"id\":\"ctld:1:1\",\"time\":1767225600,"
        "\"lease\":\"c1:42:0\",\"run\":\"c1:42\",\"group\":\"0\","
        "\"nodes\":[\"a01\",\"a02\"],\"gpus\":16,\"role\":\"Active\","
        "\"envelope\":\"west-h100\",\"owner\":\"rai\",\"start\":1767225600}",
        "Start: canonical JSON in fixed key order");
    free (s);
    ev->type = JT_EV_END;
    ev->end = 1767229200;
    ev->reason = JT_REASON_RANDOM_PREEMPT;
    ev->seed = 0x0123456789abcdefULL;
    s = jt_event_to_json (ev, &err);
    is (s,
        "{\"v\":1,\"type\":\"End\",\"id\":\"ctld:1:1\",\"time\":1767225600,"
        "\"lease\":\"c1:42:0\",\"run\":\"c1:42\",\"group\":\"0\","
        "\"nodes\":[\"a01\",\"a02\"],\"gpus\":16,\"role\":\"Active\","
        "\"envelope\":\"west-h100\",\"owner\":\"rai\",\"start\":1767225600,"
        "\"end\":1767229200,\"reason\":\"RandomPreempt\",\"seed\":"
        "\"0123456789abcdef\"}",
        "End with RandomPreempt publishes the seed");
    if (s)
        roundtrip (s, "End");
    free (s);
    ev->end = 1;
    ok (jt_event_to_json (ev, &err) == NULL, "End before start refused");
    is (err.text, "end: 1 is before start 1767225600", "message names both");
    jt_event_destroy (ev);

    roundtrip ("{\"v\":1,\"type\":\"Start\",\"id\":\"x\",\"time\":5,\"lease\":\"L\","
               "\"run\":\"c:1\",\"group\":\"spare/0\",\"nodes\":[\"n1\"],\"gpus\":8,"
               "\"role\":\"Spare\",\"envelope\":\"e\",\"owner\":\"o\",\"start\":5,"
               "\"note\":\"a \\\"quoted\\\" /note\"}",
               "Start (Spare, note)");
    roundtrip ("{\"v\":1,\"type\":\"ReservationCreate\",\"id\":\"r1\",\"time\":7,"
               "\"reservation\":\"res-1\",\"run\":\"c:9\",\"envelope\":\"e\","
               "\"owner\":\"o\",\"nodes\":[],\"gpus\":64,\"start\":100}",
               "ReservationCreate");
    roundtrip ("{\"v\":1,\"type\":\"ReservationActivate\",\"id\":\"r2\",\"time\":100,"
               "\"reservation\":\"res-1\",\"run\":\"c:9\"}",
               "ReservationActivate");
    roundtrip ("{\"v\":1,\"type\":\"ReservationReleased\",\"id\":\"r3\",\"time\":101,"
               "\"reservation\":\"res-1\",\"run\":\"c:9\"}",
               "ReservationReleased");
    roundtrip ("{\"v\":1,\"type\":\"BudgetLoaded\",\"id\":\"b1\",\"time\":0,"
               "\"files\":[{\"path\":\"/etc/jobtree/budgets/rai.json\",\"sha256\":"
               "\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}],"
               "\"caps\":[{\"envelope\":\"west-h100\",\"owner\":\"rai\","
               "\"concurrency\":128,\"maxGPUHours\":500000.0,\"start\":0,"
               "\"end\":2000000000},{\"envelope\":\"x\",\"owner\":\"y\","
               "\"concurrency\":1,\"maxGPUHours\":0.5,\"start\":0,\"end\":10}]}",
               "BudgetLoaded");
    roundtrip ("{\"v\":1,\"type\":\"NodeFail\",\"id\":\"f1\",\"time\":9,"
               "\"nodes\":[\"a01\"],\"run\":\"c:1\"}",
               "NodeFail");

    refuse ("{\"v\":1,\"type\":\"NodeFail\",\"id\":\"f1\",\"time\":9,\"nodes\":[\"a\"],"
            "\"colour\":1}",
            "colour: unknown key", "unknown key");
    refuse ("{\"v\":2,\"type\":\"NodeFail\"}", "v: unsupported event version 2",
            "future version");
    refuse ("{\"v\":1,\"type\":\"Begin\",\"id\":\"a\",\"time\":1}",
            "type: unknown event type 'Begin'", "unknown type");
    refuse (
        "{\"v\":1,\"type\":\"NodeFail\",\"id\":\"f1\",\"time\":9,\"nodes\":[\"a\"]} x",
        "not a JSON object: unexpected character", "trailing bytes");
    refuse ("{\"v\":1,\"type\":\"End\",\"id\":\"x\",\"time\":5,\"lease\":\"L\","
            "\"run\":\"c:1\",\"group\":\"0\",\"nodes\":[\"n1\"],\"gpus\":8,"
            "\"role\":\"Active\",\"envelope\":\"e\",\"owner\":\"o\",\"start\":5,"
            "\"end\":6,\"reason\":\"RandomPreempt\"}",
            "seed: RandomPreempt needs its seed", "RandomPreempt without seed");
    refuse ("{\"v\":1,\"type\":\"Start\",\"id\":\"x\",\"time\":5,\"lease\":\"L\","
            "\"run\":\"c:1\",\"group\":\"0\",\"nodes\":[\"n1\"],\"gpus\":0,"
            "\"role\":\"Active\",\"envelope\":\"e\",\"owner\":\"o\",\"start\":5}",
            "gpus: must be in [1, 1048576], got 0", "zero GPUs");
    test_bounds ();
    test_nonempty ();
    refuse ("{\"v\":1,\"type\":\"Start\",\"id\":\"x\",\"time\":5,\"lease\":\"L\","
            "\"run\":\"c:1\",\"group\":\"0\",\"nodes\":[\"n1\"],\"gpus\":1,"
            "\"role\":\"Lent\",\"envelope\":\"e\",\"owner\":\"o\",\"start\":5}",
            "role: unknown value 'Lent'", "unknown role");
    is (jt_end_reason_str (jt_end_reason_parse ("ReclaimedBySpare")),
        "ReclaimedBySpare", "reason names round trip");
    is (jt_role_str (JT_ROLE_BORROWED), "Borrowed", "role name");
    is (jt_end_reason_str (jt_end_reason_parse ("DropSpare")), "DropSpare",
        "DropSpare is an End reason");
    test_activation ();
    test_activation_refusals ();
    test_activation_constructor ();
    return done_testing ();
}
