/*
 * activate.c - unit tests of activation (jobtree/activate.h): the worked
 * example's deficit on B resolved by cuts then the lottery, each rule as a
 * named test that fails when the rule is broken (spares first, shrink by
 * whole groups highest first and never below the minimum, whole gangs,
 * local gain over global cost, alternatives in preference order, nothing
 * cut when nothing can cover), and properties over random holders (fixed
 * seeds): victims are whole gangs, freed <= deficit + the last gang,
 * structural cuts before the lottery, the same input in any order gives the
 * same victims; and when an activation is due (jt_activation_due: room at
 * created + MaxWait once, a reclaim at once once, who is paid back), a
 * table with one row per condition of the rule.
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

#include "jobtree/activate.h"
#include "fixtures.h"
#include "tap.h"

#define A 0
#define B 1
#define C 2

/* holder: run, owner, group, role, gpus, pool, run GPUs, run minimum */
#define H(run, owner, group, role, gpus, pool, rg, rmin) \
    { run, owner, group, JT_ROLE_##role, gpus, pool, rg, rmin }

/* Activate with one alternative of the given needs; the dump (static). */
static const char *act (const jt_holder_t *h, size_t nh, const jt_need_t *needs,
                        size_t nneeds, jt_activation_t *keep)
{
    static char buf[4096];
    jt_slice_alt_t alt = { needs, nneeds };
    jt_activation_req_t req = { "west/B", "r-1", fx_time (FX_NOW), &alt, 1, h, nh };
    jt_activation_t a;
    jt_error_t err;
    char *d;

    if (jt_activate (&req, &a, &err) < 0) {
        snprintf (buf, sizeof (buf), "error: %s", err.text);
        return buf;
    }
    d = jt_activation_dump (&a, &req);
    snprintf (buf, sizeof (buf), "%s", d ? d : "(ENOMEM)");
    free (d);
    if (keep)
        *keep = a;
    else
        jt_activation_free (&a);
    return buf;
}

/* Everything after "rho=XXXXXXXXXXXXXXXX" (the seed is checked once). */
static const char *cuts (const char *dump)
{
    const char *p = strstr (dump, " | ");
    return p ? p + 3 : "";
}

/* The calculus's worked example (seed 000 section 8): group 1 (64) fits
 * A; group 2 (64) needs B, where 48 are free: deficit 16 at activation,
 * here 24 with a malleable neighbour and a spare so that every step runs:
 * the spare (8), one malleable group (8), then the lottery for 8 among the
 * local gangs (g2 spans B and C and would lose more than it frees). */
static void test_worked_example (void)
{
    const jt_holder_t h[] = {
        H ("s1", "vision", 0, SPARE, 8, B, 16, 16),
        H ("s1", "vision", 0, ACTIVE, 16, A, 16, 16),
        H ("m1", "vision", 0, ACTIVE, 8, B, 16, 8),
        H ("m1", "vision", 1, ACTIVE, 8, B, 16, 8),
        H ("g1", "research", 0, ACTIVE, 16, B, 16, 16),
        H ("g2", "rai", 0, ACTIVE, 24, B, 64, 64),
        H ("g2", "rai", 1, ACTIVE, 40, C, 64, 64),
    };
    const jt_need_t need[] = { { B, 24 } };
    jt_activation_t a;
    const char *d = act (h, 7, need, 1, &a);

    ok (a.resolved, "resolved: %s", d);
    is (cuts (d), "DropSpare s1/0 | Shrink m1/1 | RandomPreempt g1/0 draw 0 owner 0/2 run 0/1",
        "spare, then m1's highest group, then the lottery among the local gangs"
        " (research, vision): it drew research's g1");
    ok (a.freed - a.deficit <= 16, "freed %lld for a deficit of %lld: over by no more"
        " than the last gang", (long long) a.freed, (long long) a.deficit);
    is_int (a.ndraws, 1, "one draw");
    jt_activation_free (&a);

    const jt_need_t need16[] = { { B, 16 } };
    is (cuts (act (h, 7, need16, 1, NULL)), "DropSpare s1/0 | Shrink m1/1",
        "deficit 16 (the example's): the structural cuts suffice, no lottery");
}

static void test_no_deficit (void)
{
    const jt_holder_t h[] = { H ("g1", "rai", 0, ACTIVE, 16, B, 16, 16) };
    const jt_need_t need[] = { { B, 0 } };

    is (act (h, 1, need, 1, NULL),
        "resolved alt=0 deficit=0 freed=0 rho=85aa9c757fc1dbcd",
        "no deficit: nothing is cut; the seed is still published");
}

/* One rule each: holders, a deficit in B, the cuts expected. */
static const struct rule_case {
    const char *name;
    jt_holder_t h[6];
    size_t nh;
    int64_t deficit;
    const char *want;
} rules[] = {
    { "a spare in the short pool goes before any gang; a spare elsewhere stays",
      { H ("g1", "rai", 0, ACTIVE, 8, B, 8, 8), H ("z9", "vision", 2, SPARE, 8, B, 32, 32),
        H ("a1", "vision", 0, SPARE, 8, A, 8, 8) }, 3, 8, "DropSpare z9/2" },
#define SHRINKERS \
        H ("m1", "rai", 0, ACTIVE, 8, B, 32, 16), H ("m1", "rai", 1, ACTIVE, 8, B, 32, 16), \
        H ("m1", "rai", 2, ACTIVE, 8, B, 32, 16), H ("m1", "rai", 3, ACTIVE, 8, A, 32, 16), \
        H ("g1", "vision", 0, ACTIVE, 16, B, 16, 16)
    { "shrink by whole groups in the short pool, highest first (group 3 is on A)",
      { SHRINKERS }, 5, 16, "Shrink m1/2 | Shrink m1/1" },
    { "never below the minimum (16): the rest goes to the lottery, which drew"
      " rai's m1, taken whole (its group on A too)",
      { SHRINKERS }, 5, 24, "Shrink m1/2 | Shrink m1/1 | RandomPreempt m1/0 draw 0"
      " owner 0/2 run 0/1 | RandomPreempt m1/3 draw 0 owner 0/2 run 0/1" },
    { "a gang is taken whole, never part of it (even when 8 of 24 suffice)",
      { H ("g1", "rai", 0, ACTIVE, 8, B, 24, 24), H ("g1", "rai", 1, ACTIVE, 8, B, 24, 24),
        H ("g1", "rai", 2, ACTIVE, 8, B, 24, 24) }, 3, 8,
      "RandomPreempt g1/0 draw 0 owner 0/1 run 0/1 | RandomPreempt g1/1 draw 0"
      " owner 0/1 run 0/1 | RandomPreempt g1/2 draw 0 owner 0/1 run 0/1" },
#define WIDE_NEAR \
        H ("wide", "aaa", 0, ACTIVE, 8, B, 64, 64), H ("wide", "aaa", 1, ACTIVE, 56, C, 64, 64), \
        H ("near", "zzz", 0, ACTIVE, 16, B, 16, 16)
    { "a gang losing more elsewhere than it frees here is left out when a"
      " local one covers the deficit",
      { WIDE_NEAR }, 3, 8, "RandomPreempt near/0 draw 0 owner 0/1 run 0/1" },
    { "when the local gangs cannot cover it, every gang is in the set",
      { WIDE_NEAR }, 3, 24, "RandomPreempt wide/0 draw 0 owner 0/2 run 0/1"
      " | RandomPreempt wide/1 draw 0 owner 0/2 run 0/1 | RandomPreempt near/0"
      " draw 1 owner 0/1 run 0/1" },
};

static void test_rules (void)
{
    for (size_t i = 0; i < sizeof (rules) / sizeof (rules[0]); i++) {
        const jt_need_t need[] = { { B, rules[i].deficit } };
        is (cuts (act (rules[i].h, rules[i].nh, need, 1, NULL)), rules[i].want,
            "%s", rules[i].name);
    }
}

static void test_alternatives (void)
{
    const jt_holder_t h[] = {
        H ("g1", "rai", 0, ACTIVE, 8, A, 8, 8),
        H ("g2", "rai", 0, ACTIVE, 16, B, 16, 16),
    };
    const jt_need_t on_a[] = { { A, 16 } }, on_b[] = { { B, 16 } };
    const jt_slice_alt_t alts[] = { { on_a, 1 }, { on_b, 1 } };
    jt_activation_req_t req = { "west", "r-2", fx_time (FX_NOW), alts, 2, h, 2 };
    jt_activation_t a;
    jt_error_t err;

    ok (jt_activate (&req, &a, &err) == 0 && a.resolved && a.alt == 1
        && a.ncuts == 1 && !strcmp (h[a.cuts[0].holder].run, "g2"),
        "domains in preference order: A cannot be covered (8 < 16), nothing"
        " is cut there; B wins");
    jt_activation_free (&a);
    req.nalts = 1;
    ok (jt_activate (&req, &a, &err) == 0 && !a.resolved && a.alt == 1
        && a.ncuts == 0, "no alternative coverable: unresolved, nothing cut");
    jt_activation_free (&a);
}

/* Of the domains the holders could clear, the one that frees its deficit
 * at the least global cost: A is cleared only by taking the wide gang
 * whole (64 GPUs for 16 there), B by a local gang of 16; B wins though A
 * comes first. With equal returns, the earlier wins. */
static void test_roi (void)
{
    const jt_holder_t h[] = {
        H ("wide", "aaa", 0, ACTIVE, 16, A, 64, 64), H ("wide", "aaa", 1, ACTIVE, 48, C, 64, 64),
        H ("near", "zzz", 0, ACTIVE, 16, B, 16, 16),
        H ("pair", "zzz", 0, ACTIVE, 16, C, 16, 16),
    };
    const jt_need_t on_a[] = { { A, 16 } }, on_b[] = { { B, 16 } }, on_c[] = { { C, 16 } };
    const jt_slice_alt_t alts[] = { { on_a, 1 }, { on_b, 1 } };
    const jt_slice_alt_t ties[] = { { on_b, 1 }, { on_c, 1 } };
    jt_activation_req_t req = { "west", "r-4", fx_time (FX_NOW), alts, 2, h, 4 };
    jt_activation_t a;
    jt_error_t err;

    ok (jt_activate (&req, &a, &err) == 0 && a.resolved && a.alt == 1 && a.ncuts == 1
        && !strcmp (h[a.cuts[0].holder].run, "near"),
        "A first in order needs the wide gang (64 GPUs taken for 16): B, where a "
        "local gang of 16 frees it, wins");
    jt_activation_free (&a);
    req.alts = ties;
    ok (jt_activate (&req, &a, &err) == 0 && a.resolved && a.alt == 0
        && !strcmp (h[a.cuts[0].holder].run, "near"),
        "B and C cost the same (16 for 16): the earlier, B");
    jt_activation_free (&a);
}

/* What a reserved run is told: the earlier of its estimate and its room
 * activation at created + MaxWait, only when that activation would clear
 * room for it. */
static void test_told (void)
{
    const jt_resv_clock_t clk = { .created = 1000, .max_wait = 600 };
    jt_resv_clock_t done = clk, none = clk, restart = clk;
    bool by = false;

    done.room_done = true;
    none.max_wait = 0;
    restart.restart = true;
    ok (jt_told_start (5000, &restart, true, true, 1100, &by) == 5000 && !by,
        "a restart's reservation never activates: told its estimate");
    ok (jt_told_start (5000, &clk, true, true, 1100, &by) == 1600 && by,
        "estimate 5000, activation at 1000 + 600: told 1600, by the activation");
    ok (jt_told_start (1500, &clk, true, true, 1100, &by) == 1500 && !by,
        "an estimate before the activation is told as is");
    ok (jt_told_start (5000, &clk, true, false, 1100, &by) == 5000 && !by,
        "no domain the runs that may give way could clear: the estimate");
    ok (jt_told_start (5000, &clk, false, true, 1100, &by) == 5000 && !by,
        "a funding wait is no room activation: the estimate");
    ok (jt_told_start (5000, &done, true, true, 1100, &by) == 5000 && !by,
        "the room activation had already: the estimate");
    ok (jt_told_start (5000, &none, true, true, 1100, &by) == 5000 && !by,
        "no MaxWait: the estimate");
    ok (jt_told_start (5000, &clk, true, true, 1700, &by) == 5000 && !by,
        "the activation instant passed (it was tried): the estimate");
    ok (jt_told_start (5000, NULL, true, true, 1100, &by) == 5000 && !by,
        "no clock: the estimate");
}

/* A domain the adapter's own check refused (cons_tres) is passed over: the
 * next coverable one wins, with the seed of the whole slice; none left:
 * unresolved, nothing cut. */
static void test_refused (void)
{
    const jt_holder_t h[] = {
        H ("g1", "rai", 0, ACTIVE, 16, A, 16, 16),
        H ("g2", "rai", 0, ACTIVE, 16, B, 16, 16),
        H ("g3", "zed", 0, ACTIVE, 16, C, 16, 16),
    };
    const jt_need_t on_a[] = { { A, 16 } }, on_b[] = { { B, 16 } }, on_c[] = { { C, 16 } };
    const jt_slice_alt_t alts[] = { { on_a, 1 }, { on_b, 1 }, { on_c, 1 } };
    const jt_activation_req_t req = { "west", "r-3", fx_time (FX_NOW), alts, 3, h, 3 };
    bool refused[3] = { false, false, false };
    jt_activation_t a, all;
    jt_error_t err;
    uint64_t rho = 0;

    ok (jt_activate_except (&req, refused, &a, &err) == 0 && a.resolved && a.alt == 0
        && a.ncuts == 1 && !strcmp (h[a.cuts[0].holder].run, "g1"),
        "nothing refused: the first domain, as jt_activate");
    rho = a.rho;
    jt_activation_free (&a);
    refused[0] = true;
    ok (jt_activate_except (&req, refused, &a, &err) == 0 && a.resolved && a.alt == 1
        && a.ncuts == 1 && !strcmp (h[a.cuts[0].holder].run, "g2") && a.rho == rho,
        "A refused: B, numbered in the request, the same seed");
    jt_activation_free (&a);
    refused[1] = true;
    ok (jt_activate_except (&req, refused, &a, &err) == 0 && a.resolved && a.alt == 2
        && !strcmp (h[a.cuts[0].holder].run, "g3"), "A and B refused: C");
    jt_activation_free (&a);
    refused[2] = true;
    ok (jt_activate_except (&req, refused, &a, &err) == 0 && !a.resolved && a.alt == 3
        && a.ncuts == 0, "every domain refused: unresolved, nothing cut");
    jt_activation_free (&a);
    ok (jt_activate_except (&req, NULL, &all, &err) == 0 && all.alt == 0,
        "no refusals (NULL): as jt_activate");
    jt_activation_free (&all);
}

static void test_multi_pool (void)
{
    /* funding: lender envelope pool 7 short by 16; borrowers hold it */
    const jt_holder_t h[] = {
        H ("b1", "vision", 0, ACTIVE, 8, 7, 8, 8),
        H ("b2", "vision", 0, ACTIVE, 8, 7, 8, 8),
        H ("b3", "research", 0, ACTIVE, 8, 7, 8, 8),
        H ("own", "rai", 0, ACTIVE, 8, 5, 8, 8),
    };
    const jt_need_t need[] = { { 7, 16 } };
    jt_activation_t a;
    const char *d = act (h, 4, need, 1, &a);

    ok (a.resolved && a.freed == 16 && a.ndraws == 2,
        "reclaim: borrowers of the lender's envelope are the set; two whole"
        " gangs free exactly 16: %s", d);
    ok (!strstr (d, "own/"), "the lender's own run is not in the set");
    jt_activation_free (&a);
}

/* ---- properties over random holders ---- */

typedef struct rcase {
    jt_holder_t h[40];
    char names[40][24], owners[5][8];
    size_t n;
    jt_need_t need[2];
    size_t nneeds;
} rcase_t;

static void random_case (rcase_t *c)
{
    size_t runs = 1 + (size_t) fx_pick (12);

    memset (c, 0, sizeof (*c));
    for (int o = 0; o < 5; o++)
        snprintf (c->owners[o], sizeof (c->owners[o]), "o%d", o);
    for (size_t r = 0; r < runs && c->n < 36; r++) {
        size_t groups = 1 + (size_t) fx_pick (3);
        int64_t gpus = 8 * (1 + fx_pick (2)), total = (int64_t) groups * gpus;
        bool malleable = fx_pick (3) == 0;
        const char *owner = c->owners[fx_pick (5)];
        snprintf (c->names[r], sizeof (c->names[r]), "r%02zu", r);
        for (size_t g = 0; g < groups; g++)
            c->h[c->n++] = (jt_holder_t){ c->names[r], owner, (int) g,
                                          JT_ROLE_ACTIVE, gpus, (size_t) fx_pick (3),
                                          total, malleable ? gpus : total };
        if (fx_pick (4) == 0)
            c->h[c->n++] = (jt_holder_t){ c->names[r], owner, 0, JT_ROLE_SPARE, 8,
                                          (size_t) fx_pick (3), total,
                                          malleable ? gpus : total };
    }
    c->nneeds = 1 + (size_t) fx_pick (2);
    for (size_t i = 0; i < c->nneeds; i++)
        c->need[i] = (jt_need_t){ i, 8 * (int64_t) fx_pick (6) };
}

/* The cut set as sorted "kind run/group" lines (order-free). */
static char *cut_set (const jt_activation_t *a, const jt_holder_t *h)
{
    char lines[80][64], *out = calloc (80 * 64 + 1, 1);
    size_t n = 0;

    for (size_t i = 0; i < a->ncuts && n < 80; i++)
        snprintf (lines[n++], 64, "%s %s/%d/%zu", jt_cut_kind_str (a->cuts[i].kind),
                  h[a->cuts[i].holder].run, h[a->cuts[i].holder].group,
                  (size_t) h[a->cuts[i].holder].role);
    qsort (lines, n, 64, (int (*) (const void *, const void *)) strcmp);
    for (size_t i = 0; i < n; i++) {
        strcat (out, lines[i]);
        strcat (out, "\n");
    }
    return out;
}

static void test_properties (void)
{
    int cases = 0, whole = 0, bounded = 0, ordered = 0, same = 0, lot = 0;
    int single = 0;

    fx_seed (20261124);
    for (int k = 0; k < 400; k++) {
        rcase_t c, sh;
        jt_slice_alt_t alt;
        jt_activation_req_t req;
        jt_activation_t a, b;
        jt_error_t err;
        bool ok_whole = true, ok_order = true;
        int last_kind = 0;
        int64_t last_gang = 0;
        char *s1, *s2;

        random_case (&c);
        alt = (jt_slice_alt_t){ c.need, c.nneeds };
        req = (jt_activation_req_t){ "p", "r", fx_time (FX_NOW) + k, &alt, 1, c.h, c.n };
        if (jt_activate (&req, &a, &err) < 0)
            bail_out ("activate: %s", err.text);
        cases++;
        lot += a.ndraws > 0;
        /* whole gangs: a run drawn has every holder cut */
        for (size_t i = 0; i < a.ndraws; i++)
            for (size_t h = 0; h < c.n; h++)
                if (!strcmp (c.h[h].run, a.draws[i].run_id)) {
                    bool found = false;
                    for (size_t j = 0; j < a.ncuts; j++)
                        found = found || a.cuts[j].holder == h;
                    ok_whole = ok_whole && found;
                }
        whole += ok_whole;
        /* cuts in order: spares, shrink, lottery; the last gang's GPUs in
         * the needs' pools */
        for (size_t j = 0; j < a.ncuts; j++) {
            ok_order = ok_order && (int) a.cuts[j].kind >= last_kind;
            last_kind = (int) a.cuts[j].kind;
        }
        ordered += ok_order;
        if (a.ndraws) {
            const char *r = a.draws[a.ndraws - 1].run_id;
            for (size_t h = 0; h < c.n; h++)
                if (!strcmp (c.h[h].run, r) && c.h[h].pool < c.nneeds)
                    last_gang += c.h[h].gpus;
        } else
            last_gang = 16;     /* a spare or a malleable group: at most 16 */
        /* one short pool: the issue's bound exactly (several pools: a
         * gang taken for one also frees what it holds in the others) */
        if (c.nneeds == 1) {
            single++;
            bounded += !a.resolved || a.freed <= a.deficit + last_gang;
        }
        /* the same holders in another order: the same cuts */
        sh = c;
        for (size_t i = sh.n; i > 1; i--) {
            size_t j = (size_t) fx_pick ((int) i);
            jt_holder_t t = sh.h[i - 1];
            sh.h[i - 1] = sh.h[j];
            sh.h[j] = t;
        }
        req.holders = sh.h;
        if (jt_activate (&req, &b, &err) < 0)
            bail_out ("activate: %s", err.text);
        s1 = cut_set (&a, c.h);
        s2 = cut_set (&b, sh.h);
        same += !strcmp (s1, s2) && a.resolved == b.resolved;
        free (s1);
        free (s2);
        jt_activation_free (&a);
        jt_activation_free (&b);
    }
    ok (lot > 50, "the lottery ran in %d of %d cases", lot, cases);
    is_int (whole, cases, "victims of the lottery are whole gangs");
    is_int (ordered, cases, "structural cuts always come before the lottery");
    is_int (bounded, single, "one short pool: freed <= deficit + the GPUs of the"
            " last gang taken (%d cases)", single);
    is_int (same, cases, "the same holders in any order give the same victims");
}

/* Nomination over the same random activations (seed 002, 3.1.1): what a
 * resolved activation clears in each short pool goes to the preemptor.
 * After each activation a stream of other jobs (random run names, some no
 * run at all, random ends, some unknown, the preemptor's own job among
 * them) asks for the cleared GPUs; each job_test takes them only when
 * jt_sched_nominated lets it (the hold starts at the activation, or at a
 * restart's later start). Property: at the hold's start every cleared GPU
 * is free again, so the preemptor finds at least its deficit in every
 * short pool; and no job of unknown end ever got in. */
static void test_nominated_property (void)
{
    int cases = 0, resolved = 0, kept = 0, intruders = 0, let_in = 0, own_in = 0;

    fx_seed (20261129);
    for (int k = 0; k < 400; k++) {
        rcase_t c;
        jt_slice_alt_t alt;
        jt_activation_req_t req;
        jt_activation_t a;
        jt_error_t err;
        int64_t now = fx_time (FX_NOW) + k, start = now + 11 * fx_pick (3);
        int64_t cleared[2] = { 0, 0 }, busy[2] = { 0, 0 };
        bool ok_case = true;

        random_case (&c);
        alt = (jt_slice_alt_t){ c.need, c.nneeds };
        req = (jt_activation_req_t){ "p", "r", now, &alt, 1, c.h, c.n };
        if (jt_activate (&req, &a, &err) < 0)
            bail_out ("activate: %s", err.text);
        cases++;
        if (!a.resolved) {
            jt_activation_free (&a);
            continue;
        }
        resolved++;
        for (size_t j = 0; j < a.ncuts; j++) {
            const jt_holder_t *h = &c.h[a.cuts[j].holder];
            if (h->pool < c.nneeds)
                cleared[h->pool] += h->gpus;
        }
        /* 20 other jobs, each wanting 8 GPUs of one pool's cleared room */
        for (int q = 0; q < 20; q++) {
            char self[16];
            int who = fx_pick (5);
            size_t pool = (size_t) fx_pick ((int) c.nneeds);
            int64_t end = fx_pick (4) == 0 ? 0 : now + fx_pick (120);
            const char *name = who == 0 ? NULL : who == 1 ? "p" : self;

            snprintf (self, sizeof (self), "j%d", q);
            if (jt_sched_nominated ("p", start, name, end)
                || cleared[pool] - busy[pool] < 8)
                continue;
            if (name && !strcmp (name, "p")) {
                own_in++;                       /* the preemptor binds there */
                continue;
            }
            let_in++;
            busy[pool] += 8;
            if (end <= 0 || end > start) {      /* still there at the start */
                intruders++;
                ok_case = false;
            }
        }
        for (size_t i = 0; i < c.nneeds; i++)
            ok_case = ok_case && (c.need[i].deficit <= 0 || cleared[i] >= c.need[i].deficit);
        kept += ok_case;
        jt_activation_free (&a);
    }
    ok (resolved > 100, "nomination: %d of %d random activations resolved", resolved, cases);
    is_int (kept, resolved, "nomination: in every resolved case the cleared GPUs are the "
            "preemptor's at its start, at least its deficit in every short pool");
    is_int (intruders, 0, "nomination: no other job holds cleared GPUs past the start "
            "(%d let in, each ending by it)", let_in);
    ok (own_in > 0, "nomination: the preemptor's own job may always use them (%d)", own_in);
}

/* The slice of a reserved run in a live snapshot (jt_activation_slice):
 * domains west/A (a01..a04) and west/B (b01..b04); rai's c1:1 on a01 a02,
 * bob's c1:2 on a03 and c1:3 on b01..b03 (with a spare on b04's
 * neighbour... none: b04 is free), a04 busy with a job that is no lease
 * (frees nothing), c1:7 may not give way. The run needs 2 nodes. */
static int yield_all_but_7 (const char *run, int64_t *min, void *arg)
{
    (void) arg;
    if (!strcmp (run, "c1:3"))
        *min = 8;                               /* malleable down to 8 */
    return strcmp (run, "c1:7") != 0;
}

#define SNODE(n, d, used) \
    "{\"name\":\"" n "\",\"flavor\":\"h100\",\"gpus\":8,\"usedGPUs\":" #used "," \
    "\"labels\":{\"region\":\"west\",\"fabric.domain\":\"" d "\"}}"
#define SLEASE(run, owner, g, role, gpus, nodes) \
    "{\"run\":\"" run "\",\"group\":" #g ",\"owner\":\"" owner "\"," \
    "\"envelope\":\"west-h100\",\"nodes\":[" nodes "],\"gpus\":" #gpus "," \
    "\"role\":\"" role "\",\"start\":\"2026-03-01T10:00:00Z\"}"

static void test_slice (void)
{
    const char *text =
        "{\"time\":\"2026-03-01T12:00:00Z\",\"nodes\":["
        SNODE ("a01", "A", 8) "," SNODE ("a02", "A", 8) "," SNODE ("a03", "A", 8) ","
        SNODE ("a04", "A", 8) "," SNODE ("b01", "B", 8) "," SNODE ("b02", "B", 8) ","
        SNODE ("b03", "B", 8) "," SNODE ("b04", "B", 0) "," SNODE ("c01", "C", 8)
        "],\"leases\":["
        SLEASE ("c1:1", "rai", 0, "Active", 16, "\"a01\",\"a02\"") ","
        SLEASE ("c1:2", "bob", 0, "Active", 8, "\"a03\"") ","
        SLEASE ("c1:3", "bob", 0, "Active", 16, "\"b01\",\"b02\"") ","
        SLEASE ("c1:3", "bob", 1, "Spare", 8, "\"b03\"") ","
        SLEASE ("c1:7", "eve", 0, "Active", 8, "\"c01\"") "]}";
    jt_snapshot_t *s = NULL;
    const char *why = fx_parse_snapshot (text, &s);
    jt_node_set_t sets[3];
    size_t na[4], nb[4], nall[9];
    jt_activation_slice_t sl;
    jt_activation_t a;
    jt_error_t err;
    char *d;

    is (why, "", "slice snapshot parses");
    if (!s)
        return;
    for (size_t k = 0; k < 4; k++) {
        na[k] = (size_t) jt_snapshot_node_index (s, (char[]){ 'a', '0', (char) ('1' + k), 0 });
        nb[k] = (size_t) jt_snapshot_node_index (s, (char[]){ 'b', '0', (char) ('1' + k), 0 });
        nall[k] = na[k];
        nall[4 + k] = nb[k];
    }
    nall[8] = (size_t) jt_snapshot_node_index (s, "c01");
    sets[0] = (jt_node_set_t){ na, 4, (int) jt_snapshot_domain_index (s, "west/A") };
    sets[1] = (jt_node_set_t){ nb, 4, (int) jt_snapshot_domain_index (s, "west/B") };
    sets[2] = (jt_node_set_t){ nall, 9, -1 };   /* across domains: no alternative */

    is_int (jt_activation_slice (s, sets, 3, 2, 0, "h100", NULL, "c1:9", "c1:9:resv:100",
                                 fx_time (FX_NOW), true, yield_all_but_7, NULL,
                                 &sl, &err), 0, "slice built");
    is_int ((int) sl.req.nalts, 2, "one alternative per single-domain set");
    is (sl.scope, "west/A,west/B", "scope: the pools in preference order");
    ok (sl.needs[0].deficit == 16 && sl.needs[1].deficit == 8,
        "deficits: 2 nodes on A (none free), 2 on B (b04 free)");
    {
        char buf[512] = "";
        for (size_t h = 0; h < sl.req.nholders; h++) {
            const jt_holder_t *x = &sl.req.holders[h];
            snprintf (buf + strlen (buf), sizeof (buf) - strlen (buf),
                      "%s%s/%d %s %s %lld@%s cost %lld min %lld", h ? "; " : "",
                      x->run, x->group, x->owner, jt_role_str (x->role),
                      (long long) x->gpus, sl.pools[x->pool],
                      (long long) x->run_gpus, (long long) x->run_min_gpus);
        }
        is (buf, "c1:1/0 rai Active 16@west/A cost 16 min 16; "
            "c1:2/0 bob Active 8@west/A cost 8 min 8; "
            "c1:3/0 bob Active 16@west/B cost 16 min 8; "
            "c1:3/1 bob Spare 8@west/B cost 16 min 8",
            "holders: yielding leases on nodes only they use (a04 frees nothing, "
            "c1:7 may not give way, the run itself is no holder)");
    }
    is_int (jt_activate (&sl.req, &a, &err), 0, "activation over the slice");
    d = jt_activation_dump (&a, &sl.req);
    ok (d && a.resolved && a.alt == 0, "the first alternative (A) is coverable: %s", d);
    free (d);
    {   /* what the run may start on: the cut run's nodes, not the nodes of
         * the runs left running nor a node a job outside the leases uses;
         * a victim's restart may be planned on those (jt_activation_cleared) */
        jt_node_set_t cl;
        char buf[128] = "";
        is_int (jt_activation_cleared (s, &sets[0], &a, &sl.req, &cl, &err), 0,
                "cleared nodes of A");
        for (size_t i = 0; i < cl.nnodes; i++)
            snprintf (buf + strlen (buf), sizeof (buf) - strlen (buf), "%s%s",
                      i ? " " : "", s->nodes[cl.nodes[i]].name);
        is (buf, "a01 a02", "cleared: c1:1's a01 a02; a03 (c1:2 runs on) and a04 (a job "
            "that is no lease) stay their holders'");
        free (cl.nodes);
    }
    jt_activation_free (&a);
    jt_activation_slice_free (&sl);

    /* Two sets in one domain (group-by classes): one alternative, the
     * first, so no pool is named twice. */
    {
        jt_node_set_t two[2] = { { na, 2, sets[0].domain }, { na + 2, 2, sets[0].domain } };
        is_int (jt_activation_slice (s, two, 2, 2, 0, "h100", NULL, "c1:9", "c1:9:resv:100",
                                     fx_time (FX_NOW), true, yield_all_but_7, NULL,
                                     &sl, &err), 0, "slice over two classes of A");
        ok (sl.req.nalts == 1 && sl.alt_cand[0] == 0 && !strcmp (sl.scope, "west/A"),
            "one alternative per domain: the first class (scope %s, %zu alternatives)",
            sl.scope, sl.req.nalts);
        jt_activation_slice_free (&sl);
    }

    /* Without structural cuts: the spare goes with its gang, no minimum. */
    is_int (jt_activation_slice (s, sets + 1, 1, 2, 0, "h100", NULL, "c1:9", "c1:9:resv:100",
                                 fx_time (FX_NOW), false, yield_all_but_7, NULL,
                                 &sl, &err), 0, "slice without structural cuts");
    ok (sl.req.nholders == 2 && sl.req.holders[1].role == JT_ROLE_ACTIVE
        && sl.req.holders[0].run_gpus == 24 && sl.req.holders[0].run_min_gpus == 24,
        "spare held as Active, cost counts it, not malleable");
    is_int (jt_activate (&sl.req, &a, &err), 0, "activation of B alone");
    {
        size_t n = 0;
        const char **runs = jt_activation_runs (&a, &sl.req, &n, &err);
        ok (a.resolved && n == 1 && !strcmp (runs[0], "c1:3") && a.ncuts == 2,
            "the whole gang c1:3 is the one victim, both its leases cut");
        free (runs);
    }
    jt_activation_free (&a);
    jt_activation_slice_free (&sl);

    /* Room already there: no alternative, nothing to cut. */
    is_int (jt_activation_slice (s, sets + 1, 1, 1, 0, "h100", NULL, "c1:9", "r", 0, true,
                                 yield_all_but_7, NULL, &sl, &err), 0, "one node");
    is_int ((int) sl.req.nalts, 0, "a set with room is no alternative");
    jt_activation_slice_free (&sl);
    jt_snapshot_destroy (s);
}

/* The budgets the reclaim and cap-wait cases are decided on: rai's
 * rai-h100 (C=32) lends to bob; research's research-h100 (C=32), rai's
 * parent's, lends to bob; rai-h100 lending to bob under a cap rai-total
 * (16); rai's ra and rb (64 each) under cap rai-total (64), bob's own
 * bob-h100. */
static const char *const need_budgets[][3] = {
    { FX_LENDER ("rai", 32, true, "\"bob\"", ""),
      "{ \"owner\": \"bob\", \"envelopes\": [] }" },
    { "{ \"owner\": \"research\", \"envelopes\": ["
      FX_ENV ("research-h100", "", 32, ", \"lending\": { \"allow\": true, \"to\": [\"bob\"] }")
      "] }",
      "{ \"owner\": \"rai\", \"parent\": \"research\", \"envelopes\": [] }",
      "{ \"owner\": \"bob\", \"envelopes\": [] }" },
    { "{ \"owner\": \"rai\", \"envelopes\": ["
      FX_ENV ("rai-h100", "", 32, ", \"lending\": { \"allow\": true, \"to\": [\"bob\"] }") "],"
      " \"aggregateCaps\": [ { \"name\": \"rai-total\", \"flavor\": \"h100\","
      " \"envelopes\": [\"rai-h100\"], \"maxConcurrency\": 16 } ] }",
      "{ \"owner\": \"bob\", \"envelopes\": [] }" },
    { "{ \"owner\": \"rai\", \"envelopes\": ["
      FX_ENV ("ra", "", 64, "") "," FX_ENV ("rb", "", 64, "") "],"
      " \"aggregateCaps\": [ { \"name\": \"rai-total\", \"flavor\": \"h100\","
      " \"envelopes\": [\"ra\", \"rb\"], \"maxConcurrency\": 64 } ] }",
      "{ \"owner\": \"bob\", \"envelopes\": [" FX_ENV ("bob-h100", "", 64, "") "] }" },
};

/* jt_cap_need (cap) or jt_reclaim_need for a gpus-GPU run of rai on
 * need_budgets[set], with the usage "ENVELOPE:OWNER:GPUS ..." (fx_use):
 * "none", or "ENVELOPE DEFICIT for OWNER" and " under CAP" (static). */
static const char *need_of (size_t set, bool cap, int64_t gpus, const char *usage)
{
    static char buf[256];
    const char *const *d = need_budgets[set];
    jt_budgets_t *b = fx_budgets (d[0], d[1], d[2], FX_END);
    char json[128];
    jt_run_t *r;
    jt_reclaim_t need;
    jt_usage_t u;
    jt_error_t err;
    int rc;

    snprintf (json, sizeof (json), "{ \"owner\": \"rai\", \"resources\": { \"gpuType\":"
              " \"h100\", \"totalGPUs\": %lld } }", (long long) gpus);
    r = fx_run (json);
    jt_usage_init (&u, b);
    fx_use (&u, b, usage);
    rc = cap ? jt_cap_need (b, &u, r, gpus, fx_time (FX_NOW), &need, &err)
             : jt_reclaim_need (b, &u, r, gpus, fx_time (FX_NOW), &need, &err);
    if (rc == 1)
        snprintf (buf, sizeof (buf), "%s %lld for %s%s%s", need.envelope,
                  (long long) need.deficit, need.owner, need.cap ? " under " : "",
                  need.cap ? need.cap->name : "");
    else
        snprintf (buf, sizeof (buf), rc ? "error: %s" : "none", err.text);
    jt_usage_free (&u);
    jt_run_destroy (r);
    jt_budgets_destroy (b);
    return buf;
}

/* Whether a waiting run of rai is a reclaim (its own envelope's lending
 * would fund it) or a cap wait (an aggregate cap's active GPUs would), and
 * its deficit. */
static const struct need_case {
    const char *name;
    size_t set;
    bool cap;
    int64_t gpus;
    const char *usage, *want;
} need_cases[] = {
    { "lent GPUs would fund the lender's run: reclaim, deficit 16 on rai-h100",
      0, false, 16, "rai-h100:rai:16 rai-h100:bob:16", "rai-h100 16 for rai" },
    { "a smaller run reclaims less", 0, false, 8, "rai-h100:rai:16 rai-h100:bob:16",
      "rai-h100 8 for rai" },
    { "nothing lent: nothing to reclaim", 0, false, 16, "rai-h100:rai:32", "none" },
    { "8 free and 16 lent: a 16-GPU run reclaims the 8 it lacks (its envelope "
      "need not be full)", 0, false, 16, "rai-h100:rai:8 rai-h100:bob:16",
      "rai-h100 8 for rai" },
    { "room in its own envelope: nothing to reclaim", 0, false, 16, "rai-h100:bob:8", "none" },
    /* Only the owner's own envelope's lending is reclaimed, and only when
     * its own concurrency is what is short (first_short's two walks). */
    { "its parent's envelope lent away: not the run's owner's to reclaim",
      1, false, 16, "research-h100:bob:32", "none" },
    { "16 lent, but the cap (16) is what is short: no reclaim",
      2, false, 16, "rai-h100:bob:16", "none" },
    { "a cap wait instead, deficit 16 on rai-h100 under rai-total",
      2, true, 16, "rai-h100:bob:16", "rai-h100 16 for rai under rai-total" },
    /* 48 of ra and 16 of rb active: a 32-GPU run is refused by the cap, not
     * by an envelope's own concurrency, and nothing is lent. */
    { "a cap wait is no reclaim (nothing lent)", 3, false, 32, "ra:rai:48 rb:rai:16", "none" },
    { "the cap holds the funding: deficit 32 under rai-total, paid by rb (ra's own"
      " 16 free could not hold it)", 3, true, 32, "ra:rai:48 rb:rai:16",
      "rb 32 for rai under rai-total" },
    { "a smaller run: a smaller deficit, ra first", 3, true, 8, "ra:rai:48 rb:rai:16",
      "ra 8 for rai under rai-total" },
    { "room under the cap: nothing to activate", 3, true, 32, "ra:rai:16", "none" },
    { "ra full, the cap full: rb pays once the cap frees", 3, true, 32, "ra:rai:64",
      "rb 32 for rai under rai-total" },
};

static void test_needs (void)
{
    for (size_t i = 0; i < sizeof (need_cases) / sizeof (need_cases[0]); i++) {
        const struct need_case *c = &need_cases[i];
        is (need_of (c->set, c->cap, c->gpus, c->usage), c->want, "%s", c->name);
    }
}

/* An 8-GPU lease of group 0 on one node, in a fund slice's snapshot. */
#define FLEASE(run, owner, env, node, role) \
    "{\"run\":\"" run "\",\"group\":0,\"owner\":\"" owner "\",\"envelope\":\"" env "\"," \
    "\"nodes\":[\"" node "\"],\"gpus\":8,\"role\":\"" role "\",\"start\":\"2026-03-01T10:00:00Z\"}"

/* The slice of run 9 (1 node) waiting for fund, over west/A (a01 a02) and
 * west/B (b01 b02), all busy with the given leases (FLEASE, on a01, a02,
 * b01, b02): "SCOPE | RUN@POOL ... | needs F+R" (its holders, and the
 * first alternative's funding and room deficits; static); *sl and the
 * snapshot *s it points into kept, or "error: ..." with nothing kept. */
static const char *fund_slice (const char *leases, const jt_reclaim_t *fund,
                               jt_activation_slice_t *sl, jt_snapshot_t **keep)
{
    static char buf[512];
    char text[2048];
    jt_snapshot_t *s = NULL;
    jt_node_set_t sets[2];
    size_t na[2], nb[2];
    jt_error_t err;
    const char *why;

    snprintf (text, sizeof (text), "{\"time\":\"2026-03-01T12:00:00Z\",\"nodes\":["
              SNODE ("a01", "A", 8) "," SNODE ("a02", "A", 8) ","
              SNODE ("b01", "B", 8) "," SNODE ("b02", "B", 8) "],\"leases\":[%s]}", leases);
    if (*(why = fx_parse_snapshot (text, &s))) {
        snprintf (buf, sizeof (buf), "error: %s", why);
        return buf;
    }
    for (size_t k = 0; k < 2; k++) {
        na[k] = (size_t) jt_snapshot_node_index (s, k ? "a02" : "a01");
        nb[k] = (size_t) jt_snapshot_node_index (s, k ? "b02" : "b01");
    }
    sets[0] = (jt_node_set_t){ na, 2, (int) jt_snapshot_domain_index (s, "west/A") };
    sets[1] = (jt_node_set_t){ nb, 2, (int) jt_snapshot_domain_index (s, "west/B") };
    if (jt_activation_slice (s, sets, 2, 1, 0, "h100", fund, "9", "r-9", 0, false,
                             yield_all_but_7, NULL, sl, &err) < 0) {
        snprintf (buf, sizeof (buf), "error: %s", err.text);
        jt_snapshot_destroy (s);
        return buf;
    }
    snprintf (buf, sizeof (buf), "%s |", sl->scope);
    for (size_t h = 0; h < sl->req.nholders; h++)
        snprintf (buf + strlen (buf), sizeof (buf) - strlen (buf), " %s@%s",
                  sl->req.holders[h].run, sl->pools[sl->req.holders[h].pool]);
    snprintf (buf + strlen (buf), sizeof (buf) - strlen (buf), " | %zu alternatives, needs",
              sl->req.nalts);
    for (size_t k = 0; sl->req.nalts && k < sl->alts[0].nneeds; k++)
        snprintf (buf + strlen (buf), sizeof (buf) - strlen (buf), "%s%lld", k ? "+" : " ",
                  (long long) sl->alts[0].needs[k].deficit);
    *keep = s;
    return buf;
}

/* A waiting run funded once others give way: a reclaim (rai-h100 lent to
 * bob and eve) or a cap wait (need_budgets[3]: ra and rb under rai-total).
 * The slice's scope is the envelope or the cap, then the domains; its
 * holders, the leases that could give way; then who does. */
static const struct fund_case {
    const char *name;
    bool cap;                   /* fund: rb under rai-total, else rai-h100 */
    const char *leases, *slice, *decision;
} fund_cases[] = {
    { "reclaim: only the leases rai-h100 pays for other owners hold (not rai's own,"
      " not bob's own envelope); resolved in A by the one borrower there (it frees"
      " funding and room; eve's frees only funding, so it is left out)",
      false,
      FLEASE ("1", "rai", "rai-h100", "a01", "Active") ","
      FLEASE ("2", "bob", "rai-h100", "a02", "Borrowed") ","
      FLEASE ("3", "bob", "bob-h100", "b01", "Active") ","
      FLEASE ("4", "eve", "rai-h100", "b02", "Borrowed"),
      "envelope:rai-h100,west/A,west/B | 2@envelope:rai-h100 2@west/A"
      " 4@envelope:rai-h100 4@west/B | 2 alternatives, needs 8+8",
      "resolved alt=0 deficit=16 freed=16 rho=35f0b4c09c076cde | RandomPreempt 2/0 draw 0"
      " owner 0/1 run 0/1 | RandomPreempt 2/0 draw 0 owner 0/1 run 0/1" },
    { "cap wait: every lease ra or rb pays holds, whoever owns it (not bob's own);"
      " resolved in A by one gang of 8 there, its GPUs under the cap and its node"
      " (deficits 8 + 8, no over-eviction). Before, nothing activated it",
      true,
      FLEASE ("1", "rai", "ra", "a01", "Active") ","
      FLEASE ("2", "rai", "rb", "a02", "Active") ","
      FLEASE ("3", "bob", "bob-h100", "b01", "Active") ","
      FLEASE ("4", "rai", "ra", "b02", "Active"),
      "cap:rai-total,west/A,west/B | 1@cap:rai-total 1@west/A 2@cap:rai-total 2@west/A"
      " 4@cap:rai-total 4@west/B | 2 alternatives, needs 8+8",
      "resolved alt=0 deficit=16 freed=16 rho=b976a48edabb750e | RandomPreempt 1/0 draw 0"
      " owner 0/1 run 0/2 | RandomPreempt 1/0 draw 0 owner 0/1 run 0/2" },
};

static void test_fund_slices (void)
{
    jt_budgets_t *b = fx_budgets (need_budgets[3][0], need_budgets[3][1], FX_END);

    for (size_t i = 0; i < sizeof (fund_cases) / sizeof (fund_cases[0]); i++) {
        const struct fund_case *c = &fund_cases[i];
        jt_reclaim_t fund = { c->cap ? "rb" : "rai-h100", "rai", 8,
                              c->cap ? b->caps[0] : NULL };
        jt_snapshot_t *s = NULL;
        jt_activation_slice_t sl;
        jt_activation_t a;
        jt_error_t err;

        is (fund_slice (c->leases, &fund, &sl, &s), c->slice, "%s: the slice", c->name);
        if (!s)
            continue;
        if (jt_activate (&sl.req, &a, &err) < 0)
            bail_out ("activate: %s", err.text);
        {
            char *d = jt_activation_dump (&a, &sl.req);
            is (d ? d : "(ENOMEM)", c->decision, "%s: who gives way", c->name);
            free (d);
        }
        jt_activation_free (&a);
        jt_activation_slice_free (&sl);
        jt_snapshot_destroy (s);
    }
    jt_budgets_destroy (b);
}

/* ---- when an activation is due ---- */

static const jt_aggcap_t some_cap;

/* The rule's answer as text: "none", or "room|reclaim at=T fund=F" (F:
 * none, or the reclaim's deficit and whether a cap holds it). */
static const char *due_text (const jt_activation_due_t *d)
{
    static char buf[96];

    if (d->kind == JT_DUE_NONE)
        return "none";
    snprintf (buf, sizeof (buf), "%s at=%lld fund=%s%s",
              d->kind == JT_DUE_ROOM ? "room" : "reclaim", (long long) d->at,
              !d->fund ? "none" : d->fund == &d->reclaim ? "reclaim" : "elsewhere",
              d->fund && d->fund->cap ? "+cap" : "");
    return buf;
}

static const struct due_case {
    const char *name;
    jt_resv_clock_t clk;        /* created, max_wait, room_done, reclaim_done, what_if,
                                 * restart */
    int64_t now;
    int applies;                /* jt_activation_applies's answer */
    int64_t deficit;            /* its *fund */
    bool cap;
    bool gate;                  /* jt_activation_may_be_due */
    const char *want;
} due_cases[] = {
    { "room is due at created + MaxWait", { 1000, 100, false, false, false, false }, 1100, 1, 0,
      false, true, "room at=1100 fund=none" },
    { "room is not due before created + MaxWait", { 1000, 100, false, true, false, false }, 1099,
      1, 0, false, false, "none" },
    { "room is never due without MaxWait", { 1000, 0, false, true, false, false }, 9000, 1, 0,
      false, false, "none" },
    { "room is due once", { 1000, 100, true, true, false, false }, 1200, 1, 0, false, false,
      "none" },
    { "room seen late activates at created + MaxWait, not at now",
      { 1000, 100, false, false, false, false }, 5000, 1, 0, false, true,
      "room at=1100 fund=none" },
    { "a room wait an aggregate cap holds pays the cap back",
      { 1000, 100, false, false, false, false }, 1100, 1, 8, true, true,
      "room at=1100 fund=reclaim+cap" },
    { "a room deficit without its cap pays nobody back",
      { 1000, 100, false, false, false, false }, 1100, 1, 8, false, true,
      "room at=1100 fund=none" },
    { "a cap named with nothing short pays nobody back",
      { 1000, 100, false, false, false, false }, 1100, 1, 0, true, true,
      "room at=1100 fund=none" },
    { "a reclaim is due at once, at the creation", { 1000, 100, false, false, false, false }, 1001,
      2, 8, false, true, "reclaim at=1000 fund=reclaim" },
    { "a reclaim needs no MaxWait", { 1000, 0, false, false, false, false }, 9000, 2, 8, false,
      true, "reclaim at=1000 fund=reclaim" },
    { "a reclaim is due once", { 1000, 100, false, true, false, false }, 1050, 2, 8, false, false,
      "none" },
    { "a reclaim done leaves room due", { 1000, 100, false, true, false, false }, 1100, 1, 0,
      false, true, "room at=1100 fund=none" },
    { "room done leaves a reclaim due", { 1000, 100, true, false, false, false }, 1200, 2, 8,
      false, true, "reclaim at=1000 fund=reclaim" },
    { "a reclaim is not room: not due once room is done and a reclaim too",
      { 1000, 100, true, true, false, false }, 1200, 2, 8, false, false, "none" },
    { "room is not a reclaim: a reclaim's answer before MaxWait is not room",
      { 1000, 100, false, false, false, false }, 1050, 1, 0, false, true, "none" },
    { "nothing applies: none", { 1000, 100, false, false, false, false }, 1100, 0, 0, false, true,
      "none" },
    { "a restart's reservation: room is never due (no cascade)",
      { 1000, 100, false, false, false, true }, 1100, 1, 0, false, false, "none" },
    { "a restart's reservation: room seen late is not due either",
      { 1000, 100, false, false, false, true }, 5000, 1, 8, true, false, "none" },
    { "a restart's reservation: no reclaim either",
      { 1000, 100, false, false, false, true }, 1001, 2, 8, false, false, "none" },
    { "what-if (jobtree plan --activate): room at the instant asked",
      { 0, 0, true, true, true, false }, 1234, 1, 0, false, true, "room at=1234 fund=none" },
    { "what-if: a reclaim at the instant asked", { 0, 0, true, true, true, false }, 1234, 2, 8,
      false, true, "reclaim at=1234 fund=reclaim" },
    { "what-if: a cap's wait pays the cap back", { 0, 0, false, false, true, false }, 1234, 1, 8,
      true, true, "room at=1234 fund=reclaim+cap" },
};

static void test_due (void)
{
    for (size_t i = 0; i < sizeof (due_cases) / sizeof (due_cases[0]); i++) {
        const struct due_case *c = &due_cases[i];
        jt_activation_due_t d;

        memset (&d, 0, sizeof (d));
        d.reclaim = (jt_reclaim_t){ "rai-h100", "rai", c->deficit, c->cap ? &some_cap : NULL };
        ok (jt_activation_may_be_due (&c->clk, c->now) == c->gate, "%s: %s", c->name,
            c->gate ? "may be due" : "nothing may be due (no estimate)");
        is (due_text (&d) && jt_activation_when (&c->clk, c->now, c->applies, &d) >= 0
                ? due_text (&d) : "", c->want, "%s", c->name);
        is_int (d.applies, c->applies, "%s: applies kept", c->name);
    }
    {   /* the gate closed: no estimate is asked (the request is not even
         * valid), the answer is zeroed for jt_answer_free */
        const jt_resv_clock_t clk = { 1000, 100, true, true, false, false };
        const jt_sched_request_t req = { .now = 5000 };
        jt_activation_due_t d;
        jt_answer_t e;
        jt_error_t err;
        int rc = jt_activation_due (&req, &clk, &e, &d, &err);

        ok (rc == JT_DUE_NONE && d.applies == -1 && !d.fund && e.ncands == 0 && !e.cands,
            "jt_activation_due: both done, nothing asked (rc %d, applies %d)", rc,
            d.applies);
        jt_answer_free (&e);
    }
}

int main (void)
{
    test_worked_example ();
    test_no_deficit ();
    test_rules ();
    test_alternatives ();
    test_refused ();
    test_told ();
    test_roi ();
    test_multi_pool ();
    test_properties ();
    test_nominated_property ();
    test_slice ();
    test_needs ();
    test_fund_slices ();
    test_due ();
    done_testing ();
}
