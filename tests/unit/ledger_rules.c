/*
 * ledger_rules.c - who pays is provable from the ledger (issue 9): the
 * budget content a BudgetLoaded records (canonical, hashed, bounded) and
 * verify's checks of Cover's rules on it: payer (family, lending ACL),
 * role, lending caps and aggregate caps, each on a forged ledger that
 * verified OK while BudgetLoaded carried only caps; what a ledger of the
 * previous format leaves unchecked; verify --budgets against the recorded
 * hash; and, over random budgets and runs, that what Cover decides is what
 * verify accepts.
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

#include "jobtree/budget.h"
#include "jobtree/cover.h"
#include "jobtree/ledger.h"
#include "fixtures.h"
#include "tap.h"

#define T0 1767225600 /* 2026-01-01T00:00:00Z */
#define WIN "\"start\":\"2026-01-01T00:00:00Z\",\"end\":\"2027-01-01T00:00:00Z\""

/* research (parent of rai and nlp) with an aggregate cap over rai's and its
 * own h100 envelopes; rai lends west-h100 to vision only, within 8 GPUs and
 * 10 GPU-hours; vision and cv are not family. */
static const char *const RESEARCH =
    "{\"owner\":\"research\",\"envelopes\":[{\"name\":\"res-h100\",\"flavor\":\"h100\","
    "\"selector\":{\"region\":\"east\"}," WIN ",\"concurrency\":64}],"
    "\"aggregateCaps\":[{\"name\":\"h100-total\",\"flavor\":\"h100\","
    "\"envelopes\":[\"west-h100\",\"res-h100\"],\"maxConcurrency\":80,"
    "\"maxGPUHours\":1000}]}";
static const char *const RAI =
    "{\"owner\":\"rai\",\"parent\":\"research\",\"envelopes\":[{\"name\":\"west-h100\","
    "\"flavor\":\"h100\",\"selector\":{\"region\":\"west\"}," WIN ",\"concurrency\":64,"
    "\"maxGPUHours\":100000,\"lending\":{\"allow\":true,\"to\":[\"vision\"],"
    "\"maxConcurrency\":8,\"maxGPUHours\":10}}]}";
static const char *const RAI_NOLEND =
    "{\"owner\":\"rai\",\"parent\":\"research\",\"envelopes\":[{\"name\":\"west-h100\","
    "\"flavor\":\"h100\",\"selector\":{\"region\":\"west\"}," WIN ",\"concurrency\":64,"
    "\"maxGPUHours\":100000}]}";
static const char *const NLP =
    "{\"owner\":\"nlp\",\"parent\":\"research\",\"envelopes\":[{\"name\":\"nlp-h100\","
    "\"flavor\":\"h100\",\"selector\":{}," WIN ",\"concurrency\":16}]}";
static const char *const VISION =
    "{\"owner\":\"vision\",\"envelopes\":[{\"name\":\"vis-a100\",\"flavor\":\"a100\","
    "\"selector\":{}," WIN ",\"concurrency\":16}]}";
static const char *const CV =
    "{\"owner\":\"cv\",\"envelopes\":[{\"name\":\"cv-a100\",\"flavor\":\"a100\","
    "\"selector\":{}," WIN ",\"concurrency\":16}]}";

/* The canonical BudgetLoaded payload of a budget set (malloc'd); with
 * content false, as the previous format wrote it (caps and files only). */
static char *loaded (const jt_budgets_t *b, const char *id, int64_t time, bool content)
{
    jt_error_t err = { "" };
    jt_event_t *ev = jt_event_budget_loaded (b, id, time, &err);
    char *s;

    if (!ev)
        bail_out ("BudgetLoaded: %s", err.text);
    if (!content) {
        jt_budgets_destroy (ev->budgets);
        ev->budgets = NULL;
        ev->budgets_sha256[0] = '\0';
    }
    if (!(s = jt_event_to_json (ev, &err)))
        bail_out ("BudgetLoaded JSON: %s", err.text);
    jt_event_destroy (ev);
    return s;
}

/* A Start (end < 0) or End of lease id on one node (malloc'd). */
static char *lease (const char *id, const char *node, int gpus, const char *role,
                    const char *env, const char *owner, int64_t start, int64_t end)
{
    char *s;
    int rc;

    if (end < 0)
        rc = asprintf (&s,
                       "{\"v\":1,\"type\":\"Start\",\"id\":\"%s:s\",\"time\":%lld,"
                       "\"lease\":\"%s\",\"run\":\"c:%s\",\"group\":\"0\",\"nodes\":"
                       "[\"%s\"],\"gpus\":%d,\"role\":\"%s\",\"envelope\":\"%s\","
                       "\"owner\":\"%s\",\"start\":%lld}",
                       id, (long long) start, id, id, node, gpus, role, env, owner,
                       (long long) start);
    else
        rc = asprintf (&s,
                       "{\"v\":1,\"type\":\"End\",\"id\":\"%s:e\",\"time\":%lld,"
                       "\"lease\":\"%s\",\"run\":\"c:%s\",\"group\":\"0\",\"nodes\":"
                       "[\"%s\"],\"gpus\":%d,\"role\":\"%s\",\"envelope\":\"%s\","
                       "\"owner\":\"%s\",\"start\":%lld,\"end\":%lld,\"reason\":\"End\"}",
                       id, (long long) end, id, id, node, gpus, role, env, owner,
                       (long long) start, (long long) end);
    if (rc < 0)
        bail_out ("out of memory");
    return s;
}

static jt_fold_budgets_t last_budgets;
static bool quiet; /* verify: no diagnostic per violation */

/* Write payloads (NULL-terminated) as a ledger and verify it, with pinned
 * budgets (may be NULL): "kind@seq" ("none@0"). The fold's budget figures
 * go to last_budgets. */
static const char *verify (char *const *p, const jt_event_t *pin)
{
    static char out[256];
    char tmpl[] = "/tmp/jt-ledger-rules.XXXXXX", cmd[128];
    char *dir = mkdtemp (tmpl);
    size_t n = 0, lens[32];
    jt_ledger_result_t res;
    jt_violation_t v;
    jt_ledger_fold_t *f = NULL;
    jt_error_t err = { "" };
    jt_ledger_writer_t *w;
    uint64_t first;
    const char *paths[1] = { dir };

    if (!dir)
        bail_out ("mkdtemp");
    for (; p[n]; n++)
        lens[n] = strlen (p[n]);
    if (!(w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err))
        || jt_ledger_writer_append (w, (const char *const *) p, lens, n, &first, &err) < 0)
        bail_out ("ledger: %s", err.text);
    jt_ledger_writer_close (w);
    if (jt_ledger_verify (paths, 1, NULL, pin, &res, &v, &f, &err) < 0)
        bail_out ("verify: %s", err.text);
    snprintf (out, sizeof (out), "%s@%llu", jt_violation_str (v.kind),
              (unsigned long long) v.seq);
    if (v.kind != JT_VIOL_NONE && !quiet)
        diag ("%s", v.msg);
    memset (&last_budgets, 0, sizeof (last_budgets));
    if (f)
        jt_ledger_fold_budgets (f, &last_budgets);
    jt_ledger_fold_destroy (f);
    snprintf (cmd, sizeof (cmd), "rm -rf %s", dir);
    if (system (cmd) != 0)
        diag ("rm failed");
    return out;
}

#define H(x) ((int64_t) (x) * 3600)
#define S(id, node, g, role, env, owner, s) lease (id, node, g, role, env, owner, T0 + (s), -1)
#define E(id, node, g, role, env, owner, s, e) \
    lease (id, node, g, role, env, owner, T0 + (s), T0 + (e))

/* Each forged ledger verified OK while BudgetLoaded recorded caps only. */
static void test_rules (void)
{
    jt_budgets_t *b = fx_budgets (RESEARCH, RAI, NLP, VISION, CV, FX_END);
    jt_budgets_t *nolend = fx_budgets (RESEARCH, RAI_NOLEND, NLP, VISION, CV, FX_END);
    char *bl = loaded (b, "b1", T0, true);
    struct {
        const char *name, *want;
        char *p[10];
    } cases[] = {
        { "Cover's choices: own, sibling's, parent's Active; a sponsor's Borrowed "
          "and Spare",
          "none@0",
          { bl, S ("A", "a01", 8, "Active", "west-h100", "rai", 0),
            S ("B", "a02", 8, "Active", "west-h100", "nlp", 0),
            S ("C", "a03", 8, "Active", "res-h100", "rai", 0),
            S ("D", "a04", 8, "Borrowed", "west-h100", "vision", 0),
            E ("D", "a04", 8, "Borrowed", "west-h100", "vision", 0, H (1)),
            S ("F", "a05", 8, "Spare", "west-h100", "vision", 0) } },
        { "a Borrowed lease from an envelope that does not lend to its owner",
          "payer@2", { bl, S ("A", "a01", 8, "Borrowed", "west-h100", "cv", 0) } },
        { "a lease of an owner with no budget", "payer@2",
          { bl, S ("A", "a01", 8, "Active", "west-h100", "ghost", 0) } },
        { "a lease paid by an envelope the budgets do not hold", "payer@2",
          { bl, S ("A", "a01", 8, "Active", "nowhere", "rai", 0) } },
        { "a parent paid by its child's envelope (family pays upward only)",
          "payer@2", { bl, S ("A", "a01", 8, "Active", "west-h100", "research", 0) } },
        { "a sponsor paying an Active lease", "role@2",
          { bl, S ("A", "a01", 8, "Active", "west-h100", "vision", 0) } },
        { "a sibling's envelope paying a Borrowed lease", "role@2",
          { bl, S ("A", "a01", 8, "Borrowed", "west-h100", "nlp", 0) } },
        { "a Borrowed lease on its owner's own envelope", "role@2",
          { bl, S ("A", "a01", 8, "Borrowed", "west-h100", "rai", 0) } },
        { "a Borrowed lease on its owner's parent's envelope", "role@2",
          { bl, S ("A", "a01", 8, "Borrowed", "res-h100", "rai", 0) } },
        { "a Spare lease from an envelope that does not lend to its owner", "payer@2",
          { bl, S ("A", "a01", 8, "Spare", "west-h100", "cv", 0) } },
        { "a lending cap of 8 GPUs exceeded twice over", "lending-cap@3",
          { bl, S ("A", "a01", 8, "Borrowed", "west-h100", "vision", 0),
            S ("B", "a02", 8, "Borrowed", "west-h100", "vision", 100) } },
        { "a lending cap of 10 GPU-hours: 8 GPUs lent for 2 h", "lending-cap@3",
          { bl, S ("A", "a01", 8, "Borrowed", "west-h100", "vision", 0),
            E ("A", "a01", 8, "Borrowed", "west-h100", "vision", 0, H (2)) } },
        { "88 GPUs on an aggregate cap of 80", "aggregate-cap@3",
          { bl, S ("A", "a01", 48, "Active", "west-h100", "rai", 0),
            S ("B", "a02", 40, "Active", "res-h100", "research", 0) } },
        { "an aggregate cap of 1000 GPU-hours: 64 GPUs for 16 h", "aggregate-cap@3",
          { bl, S ("A", "a01", 64, "Active", "west-h100", "rai", 0),
            E ("A", "a01", 64, "Active", "west-h100", "rai", 0, H (16)) } },
        { "lending revoked by a reload while a Borrowed lease runs: decided at its "
          "start",
          "none@0",
          { bl, S ("A", "a01", 8, "Borrowed", "west-h100", "vision", 100),
            loaded (nolend, "b2", T0 + 1000, true),
            E ("A", "a01", 8, "Borrowed", "west-h100", "vision", 100, 2000) } },
        { "a Borrowed lease started after a reload revoked the lending", "payer@3",
          { bl, loaded (nolend, "b2", T0 + 1000, true),
            S ("A", "a01", 8, "Borrowed", "west-h100", "vision", 1500) } },
        { "a lease started before the first BudgetLoaded is checked against it",
          "role@2",
          { S ("A", "a01", 8, "Active", "west-h100", "vision", 0),
            loaded (b, "b0", T0 + 100, true) } },
    };

    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        is (verify (cases[i].p, NULL), cases[i].want, "%s", cases[i].name);
        for (size_t j = 0; cases[i].p[j]; j++)
            if (cases[i].p[j] != bl)
                free (cases[i].p[j]);
    }
    is_int (last_budgets.loads * 100 + last_budgets.leases_checked * 10
                + last_budgets.leases_unchecked,
            110, "one load, one lease checked, none unchecked");

    /* the previous format (no content): the same forgery verifies, and
     * verify says what it could not check */
    char *old = loaded (b, "b1", T0, false);
    char *la = S ("A", "a01", 8, "Borrowed", "west-h100", "cv", 0);
    char *lb = S ("B", "a02", 8, "Active", "west-h100", "vision", 0);
    char *p[] = { old, la, lb, NULL };
    is (verify (p, NULL), "none@0", "previous format: no content, the rules not checkable");
    is_int (last_budgets.leases_unchecked * 10 + last_budgets.leases_checked, 20,
            "  both leases counted unchecked");
    is_int (last_budgets.loads_no_content * 10 + last_budgets.first_no_content, 11,
            "  the load without content is seq 1");

    /* verify --budgets: the auditor's files, compared with the recorded hash */
    jt_error_t err = { "" };
    jt_event_t *pin = jt_event_budget_loaded (b, "verify:budgets", 0, &err);
    jt_event_t *pin2 = jt_event_budget_loaded (nolend, "verify:budgets", 0, &err);
    if (!pin || !pin2)
        bail_out ("pin: %s", err.text);
    p[0] = bl;
    is (verify (p, pin), "payer@2", "--budgets: the auditor's rules check the leases");
    p[1] = NULL;
    is (verify (p, pin), "none@0", "--budgets: the files are the budgets loaded last");
    is (verify (p, pin2), "budget-hash@1",
        "--budgets: other files than the budgets loaded last");
    p[0] = old;
    is (verify (p, pin), "none@0", "--budgets, previous format: same files, same hashes");
    jt_event_destroy (pin);
    jt_event_destroy (pin2);
    free (old);
    free (la);
    free (lb);
    free (bl);
    jt_budgets_destroy (b);
    jt_budgets_destroy (nolend);
}

/* The event itself: content canonical and bounded, hash and caps bound to
 * it. */
static void test_event (void)
{
    jt_budgets_t *b = fx_budgets (RESEARCH, RAI, NLP, VISION, CV, FX_END);
    jt_error_t err = { "" };
    char *bl = loaded (b, "b1", T0, true), *dump = jt_budgets_to_json (b, &err);
    jt_event_t *ev = jt_event_from_json (bl, strlen (bl), &err);
    char *again = ev ? jt_event_to_json (ev, &err) : NULL;

    ok (dump && strstr (bl, dump), "the payload holds the canonical content");
    is (again ? again : err.text, bl, "parse and print give the payload back");
    ok (ev && ev->budgets && strlen (ev->budgets_sha256) == 64,
        "the parsed event holds the content and its hash");
    jt_event_destroy (ev);
    free (again);

    char nohash[100];
    snprintf (nohash, sizeof (nohash), ",\"budgetsSha256\":\"%s\"",
              strstr (bl, "\"budgetsSha256\":\"") ? strstr (bl, "\"budgetsSha256\":\"") + 17
                                                  : "?");
    nohash[2 + 13 + 3 + 64 + 1] = '\0';
    struct {
        const char *name, *from, *to, *want;
    } bad[] = {
        { "content not matching its hash", "\"concurrency\":16}]}",
          "\"concurrency\":15}]}", "budgetsSha256: not the SHA-256" },
        { "caps not the content's", "\"envelope\":\"west-h100\",\"owner\":\"rai\","
          "\"concurrency\":64", "\"envelope\":\"west-h100\",\"owner\":\"rai\","
          "\"concurrency\":63", "caps[" },
        { "content without its hash", nohash, "", "budgetsSha256: missing" },
        { "content that is no valid budget set", "\"parent\":\"research\"",
          "\"parent\":\"nobody\"", "budgets: " },
        { "a hash that is not 64 hex digits", "\"budgetsSha256\":\"",
          "\"budgetsSha256\":\"0", "budgetsSha256: expected 64" },
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        char *at = strstr (bl, bad[i].from);
        if (!at) {
            ok (0, "%s: '%s' not in the payload", bad[i].name, bad[i].from);
            continue;
        }
        size_t n = strlen (bl) + strlen (bad[i].to) + 1;
        char *s = malloc (n);
        snprintf (s, n, "%.*s%s%s", (int) (at - bl), bl, bad[i].to,
                  at + strlen (bad[i].from));
        err.text[0] = '\0';
        jt_event_t *e = jt_event_from_json (s, strlen (s), &err);
        ok (!e && strstr (err.text, bad[i].want), "refused: %s (%s)", bad[i].name,
            err.text);
        jt_event_destroy (e);
        free (s);
    }

    /* content that parses to the same budgets but is not canonical: the
     * event parses, prints differently, and verify calls it bad-event */
    char *at = strstr (bl, "{\"name\":\"nlp-h100\",\"flavor\":\"h100\"");
    char *s = strdup (bl);
    if (at) {
        size_t o = (size_t) (at - bl);
        memcpy (s + o, "{\"flavor\":\"h100\",\"name\":\"nlp-h100\"",
                strlen ("{\"flavor\":\"h100\",\"name\":\"nlp-h100\""));
    }
    char *p[] = { s, NULL };
    is (verify (p, NULL), "bad-event@1", "content with its keys out of order: bad-event");
    free (s);

    /* over the bound: recorded by its hash alone, the event still round-trips */
    size_t cap = 1 << 20, len = 0;
    char *big = malloc (cap);
    len += (size_t) snprintf (big + len, cap - len, "{\"owner\":\"huge\",\"envelopes\":[");
    for (int i = 0; i < 2000; i++)
        len += (size_t) snprintf (big + len, cap - len,
                                  "%s{\"name\":\"env-%04d-with-a-long-name\",\"flavor\":"
                                  "\"h100\",\"selector\":{\"region\":\"r%d\"}," WIN
                                  ",\"concurrency\":8}",
                                  i ? "," : "", i, i);
    snprintf (big + len, cap - len, "]}");
    jt_budgets_t *hb = fx_budgets (big, FX_END);
    char *hdump = jt_budgets_to_json (hb, &err);
    jt_event_t *hev = jt_event_budget_loaded (hb, "h", T0, &err);
    ok (hdump && strlen (hdump) > JT_EV_BUDGETS_MAX, "a budget set of %zu bytes",
        hdump ? strlen (hdump) : 0);
    ok (hev && !hev->budgets && strlen (hev->budgets_sha256) == 64,
        "over %d bytes: its hash recorded, not its content", JT_EV_BUDGETS_MAX);
    char *hj = hev ? jt_event_to_json (hev, &err) : NULL;
    jt_event_t *hback = hj ? jt_event_from_json (hj, strlen (hj), &err) : NULL;
    ok (hj && strlen (hj) < JT_LEDGER_MAX_PAYLOAD && hback && !hback->budgets
            && !strcmp (hback->budgets_sha256, hev->budgets_sha256),
        "that event fits a record and parses back");
    if (hev) { /* content over the bound is refused, however it came */
        hev->budgets = hb;
        char *x = jt_event_to_json (hev, &err);
        ok (!x && strstr (err.text, "more than"), "inline content over the bound refused (%s)",
            err.text);
        free (x);
        hev->budgets = NULL;
    }
    jt_event_destroy (hback);
    jt_event_destroy (hev);
    free (hj);
    free (hdump);
    free (big);
    jt_budgets_destroy (hb);
    free (dump);
    free (bl);
    jt_budgets_destroy (b);
}

/* The canonical dump parses back to the same dump (random budget sets:
 * parents, lending to "*", aggregate caps, selectors). */
static void test_dump_round_trip (void)
{
    jt_error_t err = { "" };
    int bad = 0;

    fx_seed (9);
    for (int i = 0; i < 200; i++) {
        jt_budgets_t *b = fx_random_budgets ();
        char *d = jt_budgets_to_json (b, &err);
        jt_event_t *ev = d ? jt_event_budget_loaded (b, "x", T0, &err) : NULL;
        char *d2 = ev && ev->budgets ? jt_budgets_to_json (ev->budgets, &err) : NULL;
        if (!d2 || strcmp (d, d2)) {
            if (!bad++)
                diag ("case %d: %s\n  vs %s (%s)", i, d ? d : "-", d2 ? d2 : "-",
                      err.text);
        }
        free (d);
        free (d2);
        jt_event_destroy (ev);
        jt_budgets_destroy (b);
    }
    is_int (bad, 0, "200 random budget sets: dump, parse, dump is the same text");
}

/* What Cover decides is what verify accepts: random runs funded by jt_cover
 * on random budgets become leases (role Borrowed exactly for a sponsor's
 * segment), all verified against the recorded content with no payer or
 * role violation; the same leases with each role flipped are refused. */
static void test_cover_agrees (void)
{
    jt_error_t err = { "" };
    int funded = 0, bad = 0, flips = 0, caught = 0;

    fx_seed (99);
    for (int i = 0; i < 150; i++) {
        jt_budgets_t *b = fx_random_budgets ();
        jt_run_t *r = fx_random_run ();
        jt_groups_t g;
        jt_cover_t c;
        memset (&g, 0, sizeof (g));
        if (jt_run_compile (r, r->total_gpus, &g, &err) < 0) {
            jt_run_destroy (r);
            jt_budgets_destroy (b);
            continue;
        }
        int rc = jt_cover (b, NULL, r, &g, T0 + 3600, &c, &err);
        if (rc == 0 && c.nsegs) {
            char *p[12] = { loaded (b, "b", T0, true) };
            size_t n = 1;
            funded++;
            for (size_t k = 0; k < c.nsegs && n < 11; k++) {
                char id[32], node[16];
                snprintf (id, sizeof (id), "L%zu", k);
                snprintf (node, sizeof (node), "n%zu", k);
                p[n++] = S (id, node, (int) c.segs[k].gpus,
                            c.segs[k].source == JT_SRC_SPONSOR ? "Borrowed" : "Active",
                            c.segs[k].env->name, r->owner, 3600);
            }
            const char *got = verify (p, NULL);
            if (strncmp (got, "payer", 5) == 0 || strncmp (got, "role", 4) == 0) {
                if (!bad++)
                    diag ("case %d: %s", i, got);
            }
            /* flip the first lease's role: Active <-> Borrowed */
            char *f = p[1];
            char *at = strstr (f, "\"role\":\"Active\"");
            char *flip = NULL;
            if (at) {
                size_t o = (size_t) (at - f);
                if (asprintf (&flip, "%.*s\"role\":\"Borrowed\"%s", (int) o, f,
                              at + strlen ("\"role\":\"Active\"")) < 0)
                    bail_out ("out of memory");
            } else if ((at = strstr (f, "\"role\":\"Borrowed\""))) {
                size_t o = (size_t) (at - f);
                if (asprintf (&flip, "%.*s\"role\":\"Active\"%s", (int) o, f,
                              at + strlen ("\"role\":\"Borrowed\"")) < 0)
                    bail_out ("out of memory");
            }
            if (flip) {
                p[1] = flip;
                flips++;
                quiet = true;
                if (strncmp (verify (p, NULL), "role", 4) == 0)
                    caught++;
                quiet = false;
                p[1] = f;
                free (flip);
            }
            for (size_t k = 0; k < n; k++)
                free (p[k]);
        }
        if (rc >= 0)
            jt_cover_free (&c);
        jt_groups_free (&g);
        jt_run_destroy (r);
        jt_budgets_destroy (b);
    }
    ok (funded >= 20, "%d random runs funded by Cover", funded);
    is_int (bad, 0, "verify finds no payer or role violation in what Cover decided");
    is_int (caught, flips, "every flipped role (%d) is a role violation", flips);
}

/* jt_ledger_check_payer, the daemon's question at append: the same rule
 * and reason as verify for a Start under a BudgetLoaded's content, when the
 * lease starts at or after it; otherwise not knowable (0). */
static void test_check_payer (void)
{
    jt_budgets_t *b = fx_budgets (RESEARCH, RAI, NLP, VISION, CV, FX_END);
    jt_error_t err = { "" };
    jt_event_t *load = jt_event_budget_loaded (b, "b1", T0, &err);
    jt_event_t *bare = jt_event_budget_loaded (b, "b0", T0, &err);
    struct {
        const char *role, *env, *owner;
        int64_t start;
        bool content;
        const char *want;
    } cases[] = {
        { "Borrowed", "west-h100", "vision", 0, true, "none" },
        { "Active", "west-h100", "rai", 0, true, "none" },
        { "Spare", "west-h100", "vision", 0, true, "none" },
        { "Borrowed", "west-h100", "rai", 0, true,
          "role: Borrowed, but envelope west-h100 is in rai's family (owner): Cover pays "
          "it Active" },
        { "Borrowed", "west-h100", "cv", 0, true,
          "payer: envelope west-h100 (owner rai) is not in cv's family and does not lend "
          "to cv" },
        { "Active", "west-h100", "vision", 0, true,
          "role: Active, but envelope west-h100 is a sponsor's (owner rai) lending to "
          "vision: Cover pays it Borrowed" },
        { "Active", "west-h100", "ghost", 0, true,
          "payer: owner ghost has no budget in the budgets in force at its start" },
        { "Active", "nowhere", "rai", 0, true,
          "payer: envelope nowhere is not in the budgets in force at its start" },
        { "Borrowed", "west-h100", "rai", -1, true, "none" },
        { "Borrowed", "west-h100", "rai", 0, false, "none" },
    };
    const char *name[] = { "a sponsor's Borrowed lease",
                           "the owner's Active lease",
                           "a borrower's Spare lease",
                           "Borrowed on its owner's own envelope",
                           "Borrowed from an envelope not lending to its owner",
                           "Active on a sponsor's envelope",
                           "an owner with no budget",
                           "an envelope not in the budgets",
                           "a lease starting before the load: not knowable",
                           "a load without content: not knowable" };

    if (!load || !bare)
        bail_out ("BudgetLoaded: %s", err.text);
    jt_budgets_destroy (bare->budgets);
    bare->budgets = NULL;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char *js = lease ("L", "a01", 8, cases[i].role, cases[i].env, cases[i].owner,
                          T0 + cases[i].start, -1);
        jt_event_t *st = jt_event_from_json (js, strlen (js), &err);
        jt_violation_kind_t kind;
        char why[200], got[300];
        if (!st)
            bail_out ("Start: %s", err.text);
        int rc = jt_ledger_check_payer (cases[i].content ? load : bare, st, &kind, why,
                                        sizeof (why));
        if (rc == 1)
            snprintf (got, sizeof (got), "%s: %s", jt_violation_str (kind), why);
        else
            snprintf (got, sizeof (got), "%s", rc == 0 && kind == JT_VIOL_NONE ? "none" : "?");
        is (got, cases[i].want, "check_payer: %s", name[i]);
        jt_event_destroy (st);
        free (js);
    }
    jt_event_destroy (load);
    jt_event_destroy (bare);
    jt_budgets_destroy (b);
}

int main (void)
{
    test_rules ();
    test_event ();
    test_dump_round_trip ();
    test_cover_agrees ();
    test_check_payer ();
    return done_testing ();
}
