/*
 * cover.c - unit tests of Cover (who pays): one test per rule of the
 * calculus's section 4 as settled by DESIGN decision 3, each asserting the
 * exact outcome so that breaking the rule fails it; plus live usage from a
 * snapshot and the "could it ever be funded" admission test.
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

#include "jobtree/cover.h"
#include "fixtures.h"
#include "tap.h"

/* "env/source env/source ..." in candidate order. */
static const char *order (const jt_budgets_t *b, const jt_run_t *r)
{
    static char buf[1024];
    jt_coverer_t *c = jt_coverer_create (b, NULL, r, fx_time (FX_NOW), NULL);
    size_t len = 0;

    buf[0] = '\0';
    if (!c)
        return "(null)";
    for (size_t i = 0; i < jt_coverer_count (c); i++) {
        const jt_cover_cand_t *cd = jt_coverer_cand (c, i);
        len += (size_t) snprintf (buf + len, sizeof (buf) - len, "%s%s/%s",
                                  i ? " " : "", cd->env->name,
                                  jt_source_str (cd->source));
    }
    jt_coverer_destroy (c);
    return buf;
}

/* Cover run r (its totalGPUs) at `at`: "env:first+n=gpus ..." when funded,
 * else "Reason: detail". Checks sum of cover == demand on success. */
static const char *cov_at (const jt_budgets_t *b, const jt_usage_t *u,
                           const jt_run_t *r, const char *at)
{
    static char buf[1024];
    jt_groups_t g;
    jt_cover_t cv;
    jt_error_t err;
    size_t len = 0;

    if (jt_run_compile (r, r->total_gpus, &g, &err) < 0)
        bail_out ("compile: %s", err.text);
    int rc = jt_cover (b, u, r, &g, fx_time (at), &cv, &err);
    if (rc < 0)
        snprintf (buf, sizeof (buf), "error: %s", err.text);
    else if (rc == 1)
        snprintf (buf, sizeof (buf), "%s: %s", jt_reason_str (cv.reason),
                  cv.detail);
    else {
        int64_t sum = 0, borrowed = 0;
        size_t next = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < cv.nsegs; i++) {
            const jt_cover_seg_t *s = &cv.segs[i];
            int64_t gs = 0;
            for (size_t k = s->first_group; k < s->first_group + s->ngroups; k++)
                gs += g.gpus[k];
            /* a soft group split owner-first: its segments share it */
            bool more = i > 0 && jt_cover_soft_splits (r, &g)
                        && s->first_group + 1 == next;
            if (jt_cover_soft_splits (r, &g))
                gs = s->gpus;   /* its one group: the sum is checked below */
            if ((s->first_group != next && !more) || gs != s->gpus)
                bail_out ("segment %zu does not partition the groups", i);
            next = s->first_group + s->ngroups;
            sum += s->gpus;
            if (s->source == JT_SRC_SPONSOR)
                borrowed += s->gpus;
            len += (size_t) snprintf (buf + len, sizeof (buf) - len,
                                      "%s%s:g%zu+%zu=%lld", i ? " " : "",
                                      s->env->name, s->first_group,
                                      s->ngroups, (long long) s->gpus);
        }
        if (sum != r->total_gpus || cv.funded_gpus != sum || next != g.n
            || cv.borrowed_gpus != borrowed)
            snprintf (buf, sizeof (buf), "cover sum %lld != demand %lld",
                      (long long) sum, (long long) r->total_gpus);
    }
    jt_cover_free (&cv);
    jt_groups_free (&g);
    return buf;
}

static const char *cov (const jt_budgets_t *b, const jt_usage_t *u,
                        const jt_run_t *r)
{
    return cov_at (b, u, r, FX_NOW);
}

#define RUN(owner, total, extra) \
    "{ \"owner\": \"" owner "\", \"resources\": { \"gpuType\": \"h100\"," \
    " \"totalGPUs\": " #total " }" extra " }"

static void test_names (void)
{
    is (jt_reason_str (JT_INSUFFICIENT_CAPACITY), "InsufficientCapacity",
        "reason name InsufficientCapacity");
    is (jt_reason_str (JT_SPREAD_NO_DOMAIN), "SingleDomainFull",
        "reason name SingleDomainFull");
    is (jt_reason_str (JT_NO_NODES), "NoNodes", "reason name NoNodes");
    is (jt_reason_str ((jt_reason_t) 999), "Unknown", "unknown reason");
    is (jt_source_str (JT_SRC_SPONSOR), "sponsor", "source name sponsor");
}

static void test_order (void)
{
    jt_budgets_t *b = fx_budgets (
        "{ \"owner\": \"lab\", \"envelopes\": ["
        FX_ENV ("lab-west", "\"region\": \"west\"", 8, "") "] }",
        "{ \"owner\": \"research\", \"parent\": \"lab\", \"envelopes\": ["
        FX_ENV ("res-north", "\"region\": \"north\"", 8, "") ","
        FX_ENV ("res-west", "\"region\": \"west\"", 8, "") "] }",
        "{ \"owner\": \"rai\", \"parent\": \"research\", \"envelopes\": ["
        FX_ENV ("west-h100", "\"region\": \"west\"", 8, "") ","
        "{ \"name\": \"rai-a100\", \"flavor\": \"a100\", \"selector\": {}, "
        FX_WINDOW ", \"concurrency\": 8 },"
        FX_ENV ("east-h100", "\"region\": \"east\"", 8, "") "] }",
        "{ \"owner\": \"nlp\", \"parent\": \"research\", \"envelopes\": ["
        FX_ENV ("nlp-east", "\"region\": \"east\"", 8, "") ","
        FX_ENV ("nlp-west", "\"region\": \"west\"", 8, "") "] }",
        "{ \"owner\": \"art\", \"parent\": \"research\", \"envelopes\": ["
        FX_ENV ("art-east", "\"region\": \"east\"", 8, "") "] }",
        FX_LENDER ("vision", 8, true, "\"*\"", ""),
        FX_LENDER ("beta", 8, true, "\"rai\"", ""),
        FX_LENDER ("zeta", 8, true, "\"rai\"", ""),
        FX_LENDER ("gamma", 8, false, "\"rai\"", ""),
        FX_LENDER ("delta", 8, true, "\"nlp\"", ""),
        FX_END);
    jt_run_t *r = fx_run (RUN ("rai", 8, ", \"funding\": { \"allowBorrow\": true,"
                               " \"sponsors\": [\"zeta\", \"rai\", \"nlp\"] }"));
    jt_run_t *nob = fx_run (RUN ("rai", 8, ""));
    is (order (b, r),
        "west-h100/owner nlp-west/sibling res-west/parent lab-west/parent"
        " east-h100/owner art-east/sibling nlp-east/sibling res-north/parent"
        " zeta-h100/sponsor beta-h100/sponsor vision-h100/sponsor",
        "candidate order: owner, siblings by name, parent, grandparent per"
        " location; locations by first appearance; listed sponsors, then"
        " lenders by name");
    is (order (b, nob),
        "west-h100/owner nlp-west/sibling res-west/parent lab-west/parent"
        " east-h100/owner art-east/sibling nlp-east/sibling res-north/parent",
        "no sponsors when the run does not allow borrowing");
    jt_run_destroy (r);
    jt_run_destroy (nob);

    /* The owner pays first; in its own location a sibling before the
     * parent; the owner's other location after both. */
    jt_usage_t u;
    jt_usage_init (&u, b);
    r = fx_run (RUN ("rai", 8, ""));
    is (cov (b, &u, r), "west-h100:g0+1=8", "owner's envelope pays first");
    fx_use (&u, b, "west-h100:rai:8");
    is (cov (b, &u, r), "nlp-west:g0+1=8",
        "then a sibling in the same location (no lending ACL needed)");
    fx_use (&u, b, "nlp-west:nlp:8");
    is (cov (b, &u, r), "res-west:g0+1=8", "then the parent in that location");
    fx_use (&u, b, "res-west:research:8");
    is (cov (b, &u, r), "lab-west:g0+1=8", "then the grandparent");
    fx_use (&u, b, "lab-west:lab:8");
    is (cov (b, &u, r), "east-h100:g0+1=8", "then the owner's other location");
    jt_usage_free (&u);
    jt_run_destroy (r);
    jt_budgets_destroy (b);
}

#define RAI(envs) "{ \"owner\": \"rai\", \"envelopes\": [" envs "] }"

static void test_window (void)
{
    jt_budgets_t *b = fx_budgets (RAI (
        "{ \"name\": \"old\", \"flavor\": \"h100\", \"selector\": {},"
        " \"start\": \"2025-01-01T00:00:00Z\", \"end\": \"2026-01-01T00:00:00Z\","
        " \"concurrency\": 64 },"
        "{ \"name\": \"later\", \"flavor\": \"h100\", \"selector\": {},"
        " \"start\": \"2026-06-01T00:00:00Z\", \"end\": \"2026-07-01T00:00:00Z\","
        " \"concurrency\": 64 }"), FX_END);
    jt_run_t *r = fx_run (RUN ("rai", 16, ""));
    char d[256];

    is (cov (b, NULL, r), "WindowClosed: envelope old: window"
        " [2025-01-01T00:00:00Z, 2026-01-01T00:00:00Z) is not open at"
        " 2026-03-01T12:00:00Z", "no candidate open now: WindowClosed");
    is (cov_at (b, NULL, r, "2026-06-01T00:00:00Z"), "later:g0+1=16",
        "window start is inside [start, end)");
    is (cov_at (b, NULL, r, "2026-07-01T00:00:00Z"), "WindowClosed: envelope"
        " old: window [2025-01-01T00:00:00Z, 2026-01-01T00:00:00Z) is not open"
        " at 2026-07-01T00:00:00Z", "window end is outside [start, end)");
    is_int (jt_cover_ever (b, r, fx_time (FX_NOW), d, sizeof (d)), JT_OK,
            "ever: a later window can fund it");
    is_int (jt_cover_ever (b, r, fx_time ("2026-08-01T00:00:00Z"), d,
                           sizeof (d)), JT_WINDOW_CLOSED,
            "ever: every window is over");
    is (d, "every candidate envelope's window has ended (latest: later ended"
        " 2026-07-01T00:00:00Z)", "ever: WindowClosed detail");
    jt_run_destroy (r);
    jt_budgets_destroy (b);
}

#define VISION(to, extra) FX_LENDER ("vision", 128, true, to, extra)
#define BORROW(extra) ", \"funding\": { \"allowBorrow\": true" extra " }"

static void test_lending (void)
{
    jt_budgets_t *b1 = fx_budgets (RAI (""), VISION ("\"nlp\"", ""), FX_END);
    jt_budgets_t *b2 = fx_budgets (RAI (""), VISION ("\"*\"", ""), FX_END);
    jt_run_t *r = fx_run (RUN ("rai", 32, BORROW ("")));

    is (order (b1, r), "", "lending ACL: not listed -> not a candidate");
    is (cov (b1, NULL, r), "NoMatchingEnvelope: no envelope of flavor h100 for"
        " rai, its family or a sponsor lending to it: sponsor vision-h100 does"
        " not lend to rai (lends to: nlp)",
        "lending ACL: NoMatchingEnvelope, naming the lender that lends elsewhere");
    is (order (b2, r), "vision-h100/sponsor", "lending ACL: \"*\" -> candidate");
    is (cov (b2, NULL, r), "vision-h100:g0+1=32", "a sponsor pays a borrowing run");
    jt_run_destroy (r);
    jt_budgets_destroy (b1);
    jt_budgets_destroy (b2);

    /* Lending caps: concurrency and GPU-hours lent. */
    jt_budgets_t *b = fx_budgets (RAI (""), VISION ("\"*\"",
                                  ", \"maxConcurrency\": 32, \"maxGPUHours\": 100"),
                                  FX_END);
    jt_run_t *r32 = fx_run (RUN ("rai", 32, BORROW ("")));
    jt_run_t *r16 = fx_run (RUN ("rai", 16, BORROW ("")));
    jt_run_t *r64 = fx_run (RUN ("rai", 64, BORROW ("")));
    jt_run_t *r16l = fx_run (RUN ("rai", 16, BORROW ("")
                                  ", \"runtime\": { \"timeLimit\": \"8h\" }"));
    jt_usage_t u;

    is (cov (b, NULL, r64), "LendingCap: envelope vision-h100 lends at most 32"
        " GPUs: 0 lent, run needs 64", "lending cap: maxConcurrency");
    is (cov (b, NULL, r32), "vision-h100:g0+1=32", "lending cap: 32 <= 32 fits");
    jt_usage_init (&u, b);
    fx_use (&u, b, "vision-h100:vision:64");
    is (cov (b, &u, r32), "vision-h100:g0+1=32",
        "lending cap: the lender's own use is not lending");
    fx_use (&u, b, "vision-h100:ml:16");
    is (cov (b, &u, r32), "vision-h100:g0+1=32",
        "lending cap: another owner's Active (family) use is not lending");
    jt_usage_free (&u);
    jt_usage_init (&u, b);
    fx_use (&u, b, "vision-h100:vision:64 vision-h100:nlp:16:Borrowed");
    is (cov (b, &u, r32), "LendingCap: envelope vision-h100 lends at most 32"
        " GPUs: 16 lent, run needs 32", "lending cap: GPUs lent to others (Borrowed) count");
    is (cov (b, &u, r16), "vision-h100:g0+1=16", "lending cap: 16 + 16 fits");
    is (cov (b, &u, r16l), "LendingCap: envelope vision-h100 lends at most"
        " 100.0 GPU-hours: 0.0 lent, run needs 128.0", "lending cap: maxGPUHours");
    jt_usage_free (&u);
    jt_run_destroy (r32);
    jt_run_destroy (r16);
    jt_run_destroy (r64);
    jt_run_destroy (r16l);
    jt_budgets_destroy (b);
}

static void test_borrow_limits (void)
{
    jt_budgets_t *b = fx_budgets (RAI (FX_ENV ("west-h100", "", 16, "")),
                                  VISION ("\"rai\"", ""), FX_END);
    jt_run_t *r = fx_run (RUN ("rai", 48, ", \"locality\": { \"groupGPUs\": 16 }"
                               BORROW (", \"maxBorrowGPUs\": 16")));
    jt_run_t *r2 = fx_run (RUN ("rai", 32, ", \"locality\": { \"groupGPUs\": 16 }"
                                BORROW (", \"maxBorrowGPUs\": 16")));
    jt_run_t *off = fx_run (RUN ("rai", 32, ", \"locality\": { \"groupGPUs\": 16 }"));

    is (cov (b, NULL, r2), "west-h100:g0+1=16 vision-h100:g1+1=16",
        "maxBorrowGPUs: 16 borrowed within the limit");
    is (cov (b, NULL, r), "BorrowLimit: maxBorrowGPUs 16: run needs to borrow"
        " 32 (envelope vision-h100); of its 48 GPUs, 16 are paid elsewhere",
        "maxBorrowGPUs: the second borrowed group is refused; the run would"
        " borrow 32 of its 48");
    is (cov (b, NULL, off), "InsufficientCapacity: envelope west-h100: 0 of 16"
        " GPUs active, run needs 32; sponsor envelope vision-h100 (vision) could"
        " pay 16 GPUs if the run allowed borrowing",
        "allowBorrow off: the owner's own bound stops the run (all 32 GPUs of"
        " it); the sponsor that could pay the other 16 is a hint after it");
    jt_run_destroy (r);
    jt_run_destroy (r2);
    jt_run_destroy (off);
    jt_budgets_destroy (b);

    b = fx_budgets (RAI (""), VISION ("\"rai\"", ""), FX_END);
    off = fx_run (RUN ("rai", 16, ""));
    is (cov (b, NULL, off), "BorrowLimit: borrowing is off: sponsor envelope"
        " vision-h100 (vision) could pay 16 GPUs",
        "allowBorrow off and the owner has no envelope: BorrowLimit");
    is_int (jt_cover_ever (b, off, fx_time (FX_NOW), NULL, 0),
            JT_NO_MATCHING_ENVELOPE, "ever: only sponsors and no borrowing");
    jt_run_destroy (off);
    jt_budgets_destroy (b);
}

/* Cover a run (RUN's JSON) on budgets from one document, with the usage
 * "ENVELOPE:OWNER:GPUS[:ROLE[:HOURS]] ..." (fx_use): cov's text. */
static const char *cov_of (const char *budget, const char *run, const char *usage)
{
    jt_budgets_t *b = fx_budgets (budget, FX_END);
    jt_run_t *r = fx_run (run);
    jt_usage_t u;
    const char *got;

    jt_usage_init (&u, b);
    fx_use (&u, b, usage);
    got = cov (b, &u, r);
    jt_usage_free (&u);
    jt_run_destroy (r);
    jt_budgets_destroy (b);
    return got;
}

#define W128 RAI (FX_ENV ("west-h100", "", 128, ""))
#define W128H RAI (FX_ENV ("west-h100", "", 128, ", \"maxGPUHours\": 1000"))
#define CAP160 RAI (FX_ENV ("west-h100", "\"region\": \"west\"", 128, "") "," \
    FX_ENV ("east-h100", "\"region\": \"east\"", 128, "") \
    "], \"aggregateCaps\": [ { \"name\": \"h100-total\", \"flavor\": \"h100\"," \
    " \"envelopes\": [\"west-h100\", \"east-h100\"], \"maxConcurrency\": 160 }")
#define P128 RAI (FX_ENV ("philly-h100", "", 128, ""))
#define W48X2 RAI (FX_ENV ("w1", "", 48, "") "," FX_ENV ("w2", "", 48, ""))
#define LIMIT(h) ", \"runtime\": { \"timeLimit\": \"" h "\" }"
#define GROUPS(g) ", \"locality\": { \"groupGPUs\": " #g " }"

/* One bound each: budgets, a run of rai, usage, the outcome. */
static const struct cov_case {
    const char *name, *budget, *run, *usage, *want;
} cov_cases[] = {
    { "pointwise: 96 + 64 > 128 refused", W128, RUN ("rai", 64, ""), "west-h100:rai:96",
      "InsufficientCapacity: envelope west-h100: 96 of 128 GPUs active, run needs 64" },
    { "pointwise: 96 + 32 <= 128 fits", W128, RUN ("rai", 32, ""), "west-h100:rai:96",
      "west-h100:g0+1=32" },
    { "integral: 64 x 4h = 256 <= 1000", W128H, RUN ("rai", 64, LIMIT ("4h")), "",
      "west-h100:g0+1=64" },
    { "integral: the longer time limit (64 x 16h = 1024) is refused", W128H,
      RUN ("rai", 64, LIMIT ("16h")), "",
      "GPUHoursExhausted: envelope west-h100: 0.0 of 1000.0 GPU-hours used, 64 GPUs"
      " for the time limit need 1024.0" },
    { "integral: 744 + 256 = 1000 fits exactly", W128H, RUN ("rai", 64, LIMIT ("4h")),
      "west-h100:rai:0:Active:744", "west-h100:g0+1=64" },
    { "integral: used hours count", W128H, RUN ("rai", 64, LIMIT ("4h")),
      "west-h100:rai:0:Active:744 west-h100:rai:0:Active:1",
      "GPUHoursExhausted: envelope west-h100: 745.0 of 1000.0 GPU-hours used, 64 GPUs"
      " for the time limit need 256.0" },
    { "aggregate cap: usage of one envelope limits the other", CAP160,
      RUN ("rai", 64, ""), "west-h100:rai:100",
      "AggregateCap: aggregate cap h100-total: 100 of 160 GPUs active, run needs 64" },
    { "aggregate cap: 100 + 60 <= 160 fits (a soft group, owner first: west's 28"
      " left, then east)", CAP160, RUN ("rai", 60, ""), "west-h100:rai:100",
      "west-h100:g0+1=28 east-h100:g0+1=32" },
    /* Pending reasons count the whole run (issue 11): a 4 x 8-GPU run
     * blocked by its envelope needs 32, whichever group failed; the
     * envelope's figure is its live usage, not what this run was
     * tentatively charged. */
    { "full envelope: the run needs 32, not 8", P128, RUN ("rai", 32, GROUPS (8)),
      "philly-h100:nlp:128",
      "InsufficientCapacity: envelope philly-h100: 128 of 128 GPUs active, run needs 32" },
    { "room for three groups: 104 active (not 128 with this run's 24), needs 32", P128,
      RUN ("rai", 32, GROUPS (8)), "philly-h100:nlp:104",
      "InsufficientCapacity: envelope philly-h100: 104 of 128 GPUs active, run needs 32" },
    { "a soft group (no groupGPUs) is partitioned owner first (48 + 16)", W48X2,
      RUN ("rai", 64, ""), "", "w1:g0+1=48 w2:g0+1=16" },
    { "each group paid by exactly one envelope", W48X2, RUN ("rai", 96, GROUPS (48)), "",
      "w1:g0+1=48 w2:g1+1=48" },
    { "first fit in order: the short last group goes back to w1", W48X2,
      RUN ("rai", 80, GROUPS (32)), "", "w1:g0+1=32 w2:g1+1=32 w1:g2+1=16" },
};

static void test_bounds (void)
{
    for (size_t i = 0; i < sizeof (cov_cases) / sizeof (cov_cases[0]); i++) {
        const struct cov_case *c = &cov_cases[i];
        is (cov_of (c->budget, c->run, c->usage), c->want, "%s", c->name);
    }
}

/* Cover a soft run r with whole nodes of `unit` GPUs: "env:gpus ..." or
 * "Reason: detail". */
static const char *cov_unit (const jt_budgets_t *b, const jt_usage_t *u,
                             const jt_run_t *r, int64_t unit)
{
    static char buf[512];
    jt_groups_t g;
    jt_cover_t cv;
    jt_error_t err;
    size_t len = 0;

    if (jt_run_compile (r, r->total_gpus, &g, &err) < 0)
        bail_out ("compile: %s", err.text);
    g.unit = unit;
    int rc = jt_cover (b, u, r, &g, fx_time (FX_NOW), &cv, &err);
    buf[0] = '\0';
    if (rc < 0)
        snprintf (buf, sizeof (buf), "error: %s", err.text);
    else if (rc == 1)
        snprintf (buf, sizeof (buf), "%s: %s", jt_reason_str (cv.reason),
                  cv.detail);
    else
        for (size_t i = 0; i < cv.nsegs; i++)
            len += (size_t) snprintf (buf + len, sizeof (buf) - len, "%s%s:%lld",
                                      i ? " " : "", cv.segs[i].env->name,
                                      (long long) cv.segs[i].gpus);
    jt_cover_free (&cv);
    jt_groups_free (&g);
    return buf;
}

/* A soft group (no groupGPUs, spread on) is paid by whole nodes, owner
 * first (seed 000 section 4: a partition of the demand): each candidate in
 * order pays what is left, or its headroom rounded down to whole nodes. */
static void test_soft_owner_first (void)
{
    /* etc/'s shape: rai-west 64 + rai-east 32 */
    jt_budgets_t *b = fx_budgets (RAI (
        FX_ENV ("rai-west", "\"region\": \"west\"", 64, "") ","
        FX_ENV ("rai-east", "\"region\": \"east\"", 32, "")), FX_END);
    jt_run_t *soft = fx_run (RUN ("rai", 96, ""));
    jt_run_t *grouped = fx_run (RUN ("rai", 96, ", \"locality\": { \"groupGPUs\": 96 }"));
    jt_run_t *off = fx_run (RUN ("rai", 96, ", \"locality\": {"
                                 " \"allowCrossGroupSpread\": false }"));
    jt_run_t *r40 = fx_run (RUN ("rai", 40, ""));
    jt_usage_t u;
    char d[256];

    is (cov_unit (b, NULL, soft, 8), "rai-west:64 rai-east:32",
        "96 soft GPUs: the owner's west envelope pays 64, east the other 32");
    is_int (jt_cover_ever_gpn (b, soft, fx_time (FX_NOW), 8, d, sizeof (d)),
            JT_OK, "ever: a 96-GPU soft run is fundable by whole nodes (64 + 32)");
    is_int (jt_cover_ever (b, soft, fx_time (FX_NOW), d, sizeof (d)),
            JT_OK, "ever, GPUs per node unknown: fundable GPU by GPU");
    is_int (jt_cover_ever_gpn (b, grouped, fx_time (FX_NOW), 8, d, sizeof (d)),
            JT_NEVER_FUNDABLE, "ever: one 96-GPU group is never split");
    is (d, "largest group 96 GPUs > concurrency 64 of every candidate",
        "ever: the grouped run's detail");
    /* spread off or --group-by: owner first too, the one domain or class
     * is Plan's to find (both envelopes' nodes may share one) */
    is (cov_unit (b, NULL, off, 8), "rai-west:64 rai-east:32",
        "spread off: the soft group is paid owner first too (64 + 32)");
    is_int (jt_cover_ever_gpn (b, off, fx_time (FX_NOW), 8, d, sizeof (d)),
            JT_OK, "ever, spread off: fundable by whole nodes of two envelopes");
    jt_run_t *by = fx_run (RUN ("rai", 96, ", \"locality\": { \"groupBy\": \"rack\" }"));
    is (cov_unit (b, NULL, by, 8), "rai-west:64 rai-east:32",
        "--group-by rack: paid owner first too (64 + 32)");
    is_int (jt_cover_ever_gpn (b, by, fx_time (FX_NOW), 8, d, sizeof (d)),
            JT_OK, "ever, --group-by: not NeverFundable");
    jt_run_destroy (by);

    /* whole nodes: 4 GPUs used in west leave 60, of which 7 nodes */
    jt_usage_init (&u, b);
    fx_use (&u, b, "rai-west:rai:4");
    is (cov_unit (b, &u, r40, 8), "rai-west:40",
        "what is left fits the owner's headroom: all of it there");
    is (cov_unit (b, &u, soft, 8), "InsufficientCapacity: envelope rai-west:"
        " 4 of 64 GPUs active, run needs 64; of its 96 GPUs, 32 are paid elsewhere",
        "60 GPUs of room pay 7 whole 8-GPU nodes (56), east 32: 88 < 96, refused");
    is (cov_unit (b, &u, soft, 4), "InsufficientCapacity: envelope rai-east:"
        " 0 of 32 GPUs active, run needs 36; of its 96 GPUs, 60 are paid elsewhere",
        "4-GPU nodes: west pays all its 60, east 32: 92 < 96, refused");
    is (cov_unit (b, &u, r40, 4), "rai-west:40", "40 fit west's 60");
    jt_run_t *r88 = fx_run (RUN ("rai", 88, ""));
    is (cov_unit (b, &u, r88, 8), "rai-west:56 rai-east:32",
        "88 soft GPUs: 7 whole nodes in west (not 60), the rest in east");
    jt_run_destroy (r88);
    jt_usage_free (&u);

    /* a node larger than any envelope: never */
    jt_budgets_t *small = fx_budgets (RAI (
        FX_ENV ("w4", "\"region\": \"west\"", 4, "") ","
        FX_ENV ("e4", "\"region\": \"east\"", 4, "")), FX_END);
    jt_run_t *r16 = fx_run (RUN ("rai", 16, ""));
    is_int (jt_cover_ever_gpn (small, r16, fx_time (FX_NOW), 8, d, sizeof (d)),
            JT_NEVER_FUNDABLE, "ever: no envelope can pay one 8-GPU node");
    is (d, "one node of 8 GPUs > 4 GPUs any candidate can fund (concurrency)",
        "ever: the node is the piece that does not fit");
    is_int (jt_cover_ever_gpn (small, r16, fx_time (FX_NOW), 4, d, sizeof (d)),
            JT_NEVER_FUNDABLE, "ever: 4-GPU nodes, 16 > 4 + 4");
    is (d, "16 GPUs exceed what the candidate envelopes can fund together by"
        " whole nodes", "ever: the sum is short");
    jt_run_destroy (r16);
    jt_budgets_destroy (small);
    jt_run_destroy (soft);
    jt_run_destroy (grouped);
    jt_run_destroy (off);
    jt_run_destroy (r40);
    jt_budgets_destroy (b);
}

/* A never-fundable run whose pieces each fit some candidate: the detail
 * names what keeps the candidates from funding it together (issue 34),
 * for soft runs (whole 8-GPU nodes) and runs of 8-GPU groups alike:
 * (a) an aggregate cap smaller than the envelopes it caps, (b) a sponsor
 * whose lending list leaves the owner out, (c) maxBorrowGPUs or the
 * lender's lending.maxConcurrency capping what may be borrowed. */
static void test_never_blockers (void)
{
#define CAPPED RAI (FX_ENV ("rai-west", "\"region\": \"west\"", 24, "") "," \
    FX_ENV ("rai-east", "\"region\": \"east\"", 16, "") \
    "], \"aggregateCaps\": [ { \"name\": \"rai-h100-total\", \"flavor\":" \
    " \"h100\", \"envelopes\": [\"rai-west\", \"rai-east\"]," \
    " \"maxConcurrency\": 24 }")
#define RAI16 RAI (FX_ENV ("rai-h100", "", 16, ""))
    static const struct {
        const char *name, *budget, *lender, *run, *want;
    } t[] = {
        { "(a) soft: the aggregate cap, not the sum", CAPPED, NULL,
          RUN ("rai", 40, ""),
          "aggregate cap rai-h100-total allows 24 of the 40 GPUs" },
        { "(a) groups of 8: the aggregate cap", CAPPED, NULL,
          RUN ("rai", 40, GROUPS (8)),
          "aggregate cap rai-h100-total allows 24 of the 40 GPUs" },
        { "(b) the listed sponsor lends to another owner only", RAI16,
          VISION ("\"nlp\"", ""),
          RUN ("rai", 32, GROUPS (8) ", \"funding\": { \"sponsors\":"
               " [\"vision\"] }"),
          "sponsor vision-h100 does not lend to rai (lends to: nlp); the"
          " candidates fund 16 of the run's 32" },
        { "(b) soft, borrowing with no sponsor listed: the lender that"
          " lends elsewhere", RAI16, VISION ("\"nlp\", \"art\"", ""),
          RUN ("rai", 32, BORROW ("")),
          "sponsor vision-h100 does not lend to rai (lends to: nlp, art); the"
          " candidates fund 16 of the run's 32" },
        { "(c) maxBorrowGPUs caps what may be borrowed", RAI16,
          VISION ("\"rai\"", ""),
          RUN ("rai", 48, GROUPS (8) BORROW (", \"maxBorrowGPUs\": 16")),
          "maxBorrowGPUs 16 of the run allows 16 of the 32 GPUs; the other"
          " candidates fund 16 of the run's 48" },
        { "(c) maxBorrowGPUs, the owner with no envelope", RAI (""),
          VISION ("\"rai\"", ""),
          RUN ("rai", 32, BORROW (", \"maxBorrowGPUs\": 16")),
          "maxBorrowGPUs 16 of the run allows 16 of the 32 GPUs" },
        { "(c) the lender's lending.maxConcurrency", RAI16,
          VISION ("\"rai\"", ", \"maxConcurrency\": 16"),
          RUN ("rai", 48, GROUPS (8) BORROW ("")),
          "lending.maxConcurrency 16 of sponsor vision-h100 allows 16 of the"
          " 32 GPUs; the other candidates fund 16 of the run's 48" },
        { "a cap allowing no whole node more: its maxConcurrency too",
          RAI (FX_ENV ("rai-west", "\"region\": \"west\"", 24, "") ","
               FX_ENV ("rai-east", "\"region\": \"east\"", 16, "")
               "], \"aggregateCaps\": [ { \"name\": \"rai-h100-total\","
               " \"flavor\": \"h100\", \"envelopes\": [\"rai-west\","
               " \"rai-east\"], \"maxConcurrency\": 28 }"), NULL,
          RUN ("rai", 40, ""),
          "aggregate cap rai-h100-total allows 24 of the 40 GPUs"
          " (maxConcurrency 28)" },
        { "envelopes too small, borrowing off while a sponsor lends", RAI16,
          VISION ("\"rai\"", ""), RUN ("rai", 32, GROUPS (8)),
          "32 GPUs in 4 groups exceed what the candidate envelopes can fund"
          " together; the run does not allow borrowing: sponsor envelope"
          " vision-h100 (vision) lends to rai" },
        { "one group over the lender's lending.maxConcurrency: named", RAI16,
          VISION ("\"rai\"", ", \"maxConcurrency\": 16"),
          RUN ("rai", 32, GROUPS (32) BORROW ("")),
          "largest group 32 GPUs > 16 GPUs any candidate can fund"
          " (lending.maxConcurrency 16 of sponsor vision-h100)" },
    };
    char d[256];

    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        jt_budgets_t *b = fx_budgets (t[i].budget, t[i].lender, FX_END);
        jt_run_t *r = fx_run (t[i].run);
        jt_reason_t why = jt_cover_ever_gpn (b, r, fx_time (FX_NOW), 8, d,
                                             sizeof (d));
        if (why != JT_NEVER_FUNDABLE)
            diag ("%s: %s", jt_reason_str (why), d);
        is (why == JT_NEVER_FUNDABLE ? d : jt_reason_str (why), t[i].want,
            "never: %s", t[i].name);
        jt_run_destroy (r);
        jt_budgets_destroy (b);
    }
#undef CAPPED
#undef RAI16
}

static void test_reasons (void)
{
    jt_budgets_t *b = fx_budgets (RAI (FX_ENV ("west-h100", "", 128, "")),
                                  "{ \"owner\": \"nlp\", \"envelopes\": ["
                                  "{ \"name\": \"nlp-a100\", \"flavor\": \"a100\","
                                  " \"selector\": {}, " FX_WINDOW ","
                                  " \"concurrency\": 8 }] }", FX_END);
    jt_run_t *nobudget = fx_run (RUN ("ghost", 8, ""));
    jt_run_t *h200 = fx_run ("{ \"owner\": \"rai\", \"resources\": {"
                             " \"gpuType\": \"h200\", \"totalGPUs\": 8 } }");
    jt_run_t *nlp = fx_run (RUN ("nlp", 8, ""));
    jt_run_t *big = fx_run (RUN ("rai", 256, ", \"locality\": { \"groupGPUs\": 256 }"));
    jt_run_t *wide = fx_run (RUN ("rai", 256, ", \"locality\": { \"groupGPUs\": 128 }"));
    char d[256];

    is (cov (b, NULL, nobudget), "NoBudget: owner ghost has no budget file",
        "NoBudget");
    is (cov (b, NULL, h200), "UnknownFlavor: no envelope of any owner has"
        " flavor h200", "UnknownFlavor");
    is (cov (b, NULL, nlp), "NoMatchingEnvelope: no envelope of flavor h100 for"
        " nlp, its family or a sponsor lending to it", "NoMatchingEnvelope");
    is_int (jt_cover_ever (b, big, fx_time (FX_NOW), d, sizeof (d)),
            JT_NEVER_FUNDABLE, "ever: a group larger than every concurrency");
    is (d, "largest group 256 GPUs > concurrency 128 of every candidate",
        "ever: NeverFundable detail");
    is_int (jt_cover_ever (b, wide, fx_time (FX_NOW), d, sizeof (d)),
            JT_NEVER_FUNDABLE, "ever: two groups that each fit but not together");
    jt_run_t *huge = fx_run (RUN ("rai", 1048576, ", \"locality\": {"
                                  " \"groupGPUs\": 8 }"));
    is_int (jt_cover_ever (b, huge, fx_time (FX_NOW), d, sizeof (d)),
            JT_NEVER_FUNDABLE, "ever: 2^20 GPUs (the most a run may ask), decided "
            "without compiling");
    is (d, "1048576 GPUs in 131072 groups exceed what the candidate"
        " envelopes can fund together", "ever: the total is over every bound");
    jt_run_destroy (huge);
    is_int (jt_cover_ever (b, nobudget, fx_time (FX_NOW), d, sizeof (d)),
            JT_NO_BUDGET, "ever: NoBudget");
    is_int (jt_cover_ever (b, h200, fx_time (FX_NOW), d, sizeof (d)),
            JT_UNKNOWN_FLAVOR, "ever: UnknownFlavor");
    is_int (jt_cover_ever (b, nlp, fx_time (FX_NOW), d, sizeof (d)),
            JT_NO_MATCHING_ENVELOPE, "ever: NoMatchingEnvelope");

    /* Busy now but fundable when idle: Cover says no, cover_ever says yes. */
    jt_run_t *r = fx_run (RUN ("rai", 128, ""));
    jt_usage_t u;
    jt_usage_init (&u, b);
    fx_use (&u, b, "west-h100:rai:8");
    is (cov (b, &u, r), "InsufficientCapacity: envelope west-h100: 8 of 128"
        " GPUs active, run needs 128", "busy now");
    is_int (jt_cover_ever (b, r, fx_time (FX_NOW), d, sizeof (d)), JT_OK,
            "ever: fundable when idle");
    jt_usage_free (&u);
    jt_run_destroy (r);
    jt_run_destroy (nobudget);
    jt_run_destroy (h200);
    jt_run_destroy (nlp);
    jt_run_destroy (big);
    jt_run_destroy (wide);
    jt_budgets_destroy (b);
}

static void test_coverer_api (void)
{
    jt_budgets_t *b = fx_budgets (RAI (FX_ENV ("west-h100", "", 64, "")), FX_END);
    jt_run_t *r = fx_run (RUN ("rai", 64, ""));
    jt_coverer_t *c = jt_coverer_create (b, NULL, r, fx_time (FX_NOW), NULL);
    jt_reason_t why;
    char d[256];

    is_int (jt_coverer_headroom (c, 0, &why), 64, "headroom of an idle envelope");
    ok (jt_coverer_charge (c, 0, 48) == 0, "charge 48");
    is_int (jt_coverer_headroom (c, 0, &why), 16, "charges reduce headroom");
    ok (jt_coverer_charge (c, 0, 32) < 0, "charge over headroom refused");
    is_int (jt_coverer_why (c, d, sizeof (d)), JT_INSUFFICIENT_CAPACITY,
            "why after a refused charge");
    is (d, "envelope west-h100: 0 of 64 GPUs active, run needs 80",
        "why detail counts this session's charges as the run's, not as usage");
    jt_coverer_set_demand (c, 96);
    is_int (jt_coverer_why_cand (c, 0, 32, d, sizeof (d)), JT_INSUFFICIENT_CAPACITY,
            "why of one candidate");
    is (d, "envelope west-h100: 0 of 64 GPUs active, run needs 96",
        "with the run's demand set, the detail says all of it");
    is_int (jt_coverer_why_cand (c, 0, 16, d, sizeof (d)), JT_OK,
            "a candidate with room: OK");
    ok (jt_coverer_fund (c, 16) == 0, "fund the last 16");
    is_int (jt_coverer_headroom (c, 0, &why), 0, "no headroom left");
    is_int (why, JT_INSUFFICIENT_CAPACITY, "headroom 0 says which bound");
    is_int (jt_coverer_headroom (c, 7, &why), 0, "out-of-range candidate");
    ok (jt_coverer_cand (c, 1) == NULL, "out-of-range cand is NULL");
    jt_coverer_destroy (c);
    jt_coverer_destroy (NULL);
    jt_run_destroy (r);
    jt_budgets_destroy (b);
}

static void test_usage (void)
{
    jt_budgets_t *b = fx_budgets (RAI (FX_ENV ("west-h100", "", 128, "")),
                                  VISION ("\"*\"", ""), FX_END);
    jt_snapshot_t *s = jt_snapshot_create ();
    char *n1[] = { "a01" }, *n2[] = { "a02" }, *n3[] = { "a03" }, *n4[] = { "a04" };
    jt_lease_t l[] = {
        { "c1:1", 0, "rai", "west-h100", n1, 1, 8, JT_ROLE_ACTIVE,
          fx_time ("2026-03-01T10:00:00Z"), fx_time ("2026-03-01T13:00:00Z"), 0 },
        { "c1:1", 0, "rai", "west-h100", n2, 1, 8, JT_ROLE_SPARE,
          fx_time ("2026-03-01T11:00:00Z"), 0, 0 },
        { "c1:2", 0, "rai", "vision-h100", n3, 1, 8, JT_ROLE_BORROWED,
          fx_time ("2026-03-01T11:30:00Z"), 0, 0 },
        { "c1:3", 0, "rai", "nowhere", n4, 1, 8, JT_ROLE_ACTIVE,
          fx_time ("2026-03-01T11:30:00Z"), 0, 0 },
        { "c1:4", 0, "vision", "vision-h100", n4, 1, 8, JT_ROLE_ACTIVE,
          fx_time ("2026-03-01T13:00:00Z"), 0, 0 },
    };
    jt_error_t err;
    jt_usage_t u;

    fx_nodes (s, "a", 1, 4, "fabric.domain=A", 8, 4);
    for (size_t i = 0; i < sizeof (l) / sizeof (l[0]); i++)
        if (jt_snapshot_add_lease (s, &l[i], &err) < 0)
            bail_out ("lease: %s", err.text);
    fx_finalize (s);
    is_int (jt_usage_from_snapshot (&u, b, s, fx_time (FX_NOW), &err), 1,
            "a lease naming an unknown envelope is reported (1)");
    is (err.text, "1 lease(s) name an unknown envelope (first: nowhere); they"
        " were not counted", "unknown envelope message");
    size_t w = jt_budgets_envelope (b, "west-h100")->id;
    size_t v = jt_budgets_envelope (b, "vision-h100")->id;
    is_int (u.active[w], 16, "Active and Spare leases count as active");
    is_int (u.lent_active[w], 0, "the owner's own leases are not lent");
    ok (u.used_hours[w] == 8 * 2. + 8 * 1., "used hours = gpus x elapsed");
    is_int (u.active[v], 16, "Borrowed lease counts on the lender");
    is_int (u.lent_active[v], 8, "lent GPUs: lease owner != envelope owner");
    ok (u.lent_hours[v] == 4. && u.used_hours[v] == 4.,
        "a lease starting after now adds no hours");
    jt_usage_free (&u);
    is_int (jt_usage_from_snapshot_at (&u, b, s, fx_time (FX_NOW),
                                       fx_time ("2026-03-01T14:00:00Z"), &err), 1,
            "usage at a later instant");
    is_int (u.active[w], 8, "at 14:00 the lease that ends at 13:00 holds nothing");
    ok (u.used_hours[w] == 8 * 3. + 8 * 3.,
        "hours run to a lease's end, or to the instant (%.1f)", u.used_hours[w]);
    ok (u.used_hours[v] == 8 * 2.5 + 8 * 1.,
        "a lease without a known end runs to the instant (%.1f)", u.used_hours[v]);
    jt_usage_free (&u);
    jt_usage_free (&u);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

/* Random budgets, usage and runs (fixed seeds): whenever Cover funds a run,
 * its segments partition the groups and sum to the demand, every group is
 * paid by one candidate, no bound is exceeded after charging, and the run
 * passes the admission test (funded now implies ever fundable); whenever it
 * does not, the reason is a funding reason with a detail. */
static void test_properties (void)
{
    static const uint64_t seeds[] = { 7, 99, 31337, 20261121 };
    int cases = 0, funded = 0, failures = 0;

    for (size_t si = 0; si < sizeof (seeds) / sizeof (seeds[0]); si++) {
        fx_seed (seeds[si]);
        for (int it = 0; it < 50; it++) {
            jt_budgets_t *b = fx_random_budgets ();
            jt_usage_t u;
            jt_usage_init (&u, b);
            for (size_t e = 0; e < b->nenv; e++)
                if (fx_pick (2) == 0) {
                    bool own = fx_pick (2);
                    jt_usage_add (&u, b->env[e], own ? b->env[e]->owner : "someone",
                                  own ? JT_ROLE_ACTIVE : JT_ROLE_BORROWED,
                                  8 * fx_pick ((int) (b->env[e]->concurrency / 8) + 1),
                                  (double) fx_pick (300));
                }
            for (int k = 0; k < 5; k++) {
                jt_run_t *r = fx_random_run ();
                jt_groups_t g;
                jt_cover_t cv;
                jt_error_t err;
                const char *why = NULL;
                int64_t now = fx_time (FX_NOW);

                if (jt_run_compile (r, r->total_gpus, &g, &err) < 0)
                    bail_out ("compile: %s", err.text);
                int rc = jt_cover (b, &u, r, &g, now, &cv, &err);
                cases++;
                if (rc < 0)
                    why = err.text;
                else if (rc == 0) {
                    int64_t sum = 0;
                    size_t next = 0;
                    funded++;
                    for (size_t i = 0; i < cv.nsegs && !why; i++) {
                        const jt_cover_seg_t *sg = &cv.segs[i];
                        int64_t gs = 0;
                        for (size_t j = 0; j < sg->ngroups; j++)
                            gs += g.gpus[sg->first_group + j];
                        bool more = i > 0 && jt_cover_soft_splits (r, &g)
                                    && sg->first_group + 1 == next;
                        if (jt_cover_soft_splits (r, &g))
                            gs = sg->gpus;      /* the sum is checked below */
                        if ((sg->first_group != next && !more) || gs != sg->gpus)
                            why = "segments do not partition the groups";
                        if (sg->source == JT_SRC_SPONSOR && !r->allow_borrow)
                            why = "a sponsor paid a run that may not borrow";
                        next = sg->first_group + sg->ngroups;
                        sum += sg->gpus;
                    }
                    if (!why && (sum != r->total_gpus || next != g.n))
                        why = "sum of cover != demand";
                    if (!why && !fx_within_bounds (b, &u, r, cv.segs, cv.nsegs))
                        why = "an envelope is over a bound after charging";
                    if (!why && jt_cover_ever (b, r, now, NULL, 0) != JT_OK)
                        why = "funded now but not ever fundable";
                } else if (cv.reason == JT_OK || cv.reason >= JT_NEVER_FUNDABLE
                           || !cv.detail[0])
                    why = "unfunded without a funding reason and detail";
                if (why && failures++ < 5)
                    diag ("seed %llu case %d: %s", (unsigned long long) seeds[si],
                          cases, why);
                jt_cover_free (&cv);
                jt_groups_free (&g);
                jt_run_destroy (r);
            }
            jt_usage_free (&u);
            jt_budgets_destroy (b);
        }
    }
    is_int (failures, 0, "Cover properties hold on %d random cases (%d funded)",
            cases, funded);
    ok (funded > 100 && cases - funded > 100, "both outcomes are exercised");
}

int main (void)
{
    test_names ();
    test_order ();
    test_window ();
    test_bounds ();
    test_lending ();
    test_borrow_limits ();
    test_soft_owner_first ();
    test_reasons ();
    test_never_blockers ();
    test_coverer_api ();
    test_usage ();
    test_properties ();
    return done_testing ();
}
