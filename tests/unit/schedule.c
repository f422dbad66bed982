/*
 * schedule.c - unit tests of the scheduler's answer in each tense
 * (jobtree/schedule.h): which nodes a bound run runs on (spares within
 * max_nodes), the job's node range, the caller's node set, the usage each
 * tense counts, which refusals are final (EVER), where a start is estimated
 * (ESTIMATE: one set per domain able to hold a one-domain run, else one set
 * over the flavor), and that the snapshot is left as it was.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/schedule.h"
#include "jobtree/timeutil.h"
#include "fixtures.h"
#include "tap.h"

#define RUN(owner, total, extra) \
    "{ \"owner\": \"" owner "\", \"resources\": { \"gpuType\": \"h100\"," \
    " \"totalGPUs\": " #total " }" extra " }"
#define GROUP(g) ", \"locality\": { \"groupGPUs\": " #g " }"
#define NOSPREAD(g) \
    ", \"locality\": { \"groupGPUs\": " #g ", \"allowCrossGroupSpread\": false }"
#define RAI(envs) "{ \"owner\": \"rai\", \"envelopes\": [" envs "] }"
#define WEST(conc, extra) FX_ENV ("west-h100", "\"region\": \"west\"", conc, extra)

static int closed_calls;

/* The ledger's closed hours, as the adapter's hook adds them: 100 GPU-hours
 * to west-h100. */
static void closed_100 (jt_usage_t *u, const jt_budgets_t *b, void *arg)
{
    const jt_envelope_t *e = jt_budgets_envelope (b, "west-h100");

    (void) arg;
    closed_calls++;
    if (e)
        jt_usage_add (u, e, "rai", JT_ROLE_ACTIVE, 0, 100.0);
}

/* Domains A (a01..) and B (b01..) of region west, 8 GPUs a node; the first
 * used_a / used_b nodes fully used. */
static jt_snapshot_t *cluster (int na, int used_a, int nb, int used_b)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    fx_nodes (s, "a", 1, na, "region=west,fabric.domain=A", 8, used_a);
    fx_nodes (s, "b", 1, nb, "region=west,fabric.domain=B", 8, used_b);
    return fx_finalize (s);
}

/* Every node eligible except those named in `out` (space separated). */
static bool *eligible (const jt_snapshot_t *s, const char *out)
{
    bool *e = calloc (s->nnodes, sizeof (*e));

    for (size_t k = 0; k < s->nnodes; k++) {
        const char *p = out ? strstr (out, s->nodes[k].name) : NULL;
        e[k] = !p;
    }
    return e;
}

/* Ask; the answer is kept in *keep (caller frees) when keep is not NULL.
 * Returns jt_answer_dump's text (static buffer). */
/* Holds and the run's end for the next ask (cleared by it). */
static const jt_hold_t *next_holds;
static size_t next_nholds;
static int64_t next_end;

static const char *ask_keep (const jt_budgets_t *b, jt_snapshot_t *s,
                             const char *run_json, jt_tense_t tense,
                             const char *not_eligible, uint32_t min_nodes,
                             uint32_t max_nodes, jt_answer_t *keep)
{
    static char buf[2048];
    jt_run_t *r = fx_run (run_json);
    bool *el = eligible (s, not_eligible);
    jt_sched_request_t req = {
        .budgets = b, .snap = s, .eligible = el, .run = r,
        .now = fx_time (FX_NOW), .tense = tense, .min_nodes = min_nodes,
        .max_nodes = max_nodes, .opts = { .policy = JT_PACK_TO_EMPTY },
        .closed_hours = closed_100, .holds = next_holds, .nholds = next_nholds,
        .end = next_end,
    };
    jt_answer_t a;
    jt_error_t err;
    char *d;

    if (jt_sched_answer (&req, &a, &err) < 0)
        snprintf (buf, sizeof (buf), "error: %s", err.text);
    else {
        d = jt_answer_dump (&a, s);
        snprintf (buf, sizeof (buf), "%s", d ? d : "(ENOMEM)");
        free (d);
        if (keep)
            *keep = a;
        else
            jt_answer_free (&a);
    }
    free (el);
    jt_run_destroy (r);
    next_holds = NULL;
    next_nholds = 0;
    next_end = 0;
    return buf;
}

static const char *ask (const jt_budgets_t *b, jt_snapshot_t *s,
                        const char *run_json, jt_tense_t tense,
                        const char *not_eligible, uint32_t min_nodes,
                        uint32_t max_nodes)
{
    return ask_keep (b, s, run_json, tense, not_eligible, min_nodes, max_nodes,
                     NULL);
}

static void test_now (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST (256, "")), FX_END);
    jt_snapshot_t *s = cluster (4, 1, 4, 0);

    is (ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_NOW, NULL, 1, 8),
        "bind[b01 b02] record",
        "now: binds on free nodes of the emptiest domain; funding is recorded");
    is (ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_NOW, "b01 b02 b03", 1, 8),
        "bind[a02 a03] record",
        "now: nodes outside the caller's set count as busy");
    is (ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_ESTIMATE, NULL, 1, 8),
        "bind[b01 b02]",
        "estimate: a run that binds now is estimated on its nodes, not recorded");
    is (ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_NOW, NULL, 3, 8),
        "refuse: jobtree: plan of 2 nodes is below the job's minimum of 3",
        "now: a plan below the job's minimum node count is refused");
    is (ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_EVER, NULL, 3, 8),
        "bind[a01 a02]",
        "ever: the set viewed idle (A first again); the job's minimum is left"
        " to the per-node check");
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

static void test_spares (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST (256, "")), FX_END);
    jt_snapshot_t *s = cluster (4, 0, 0, 0);
    const char *run = RUN ("rai", 16, GROUP (16) ", \"sparesPerGroup\": 1");

    is (ask (b, s, run, JT_TENSE_NOW, NULL, 2, 3), "bind[a01 a02 a03] record",
        "spares run with the group while max_nodes allows");
    is (ask (b, s, run, JT_TENSE_NOW, NULL, 2, 2), "bind[a01 a02] record",
        "spares beyond max_nodes are left out");
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

static void test_malleable_range (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST (256, "")), FX_END);
    jt_snapshot_t *s = cluster (8, 0, 0, 0);
    const char *run = RUN ("rai", 64, ", \"malleable\": { \"minTotalGPUs\": 8,"
                           " \"maxTotalGPUs\": 64, \"stepGPUs\": 8 }");

    is (ask (b, s, run, JT_TENSE_NOW, NULL, 1, 3), "bind[a01 a02 a03] record",
        "a malleable run binds no more than max_nodes allows");
    is (ask (b, s, run, JT_TENSE_NOW, NULL, 1, JT_SCHED_NODES_ANY),
        "bind[a01 a02 a03 a04 a05 a06 a07 a08] record",
        "no node bound: its own maximum");
    is (ask (b, s, run, JT_TENSE_NOW, "a04 a05 a06 a07 a08", 4, JT_SCHED_NODES_ANY),
        "refuse: jobtree: group 0: soft demand of 32 GPUs: only 24 placeable",
        "the job's minimum raises the run's: 32 GPUs do not fit 3 free nodes");
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

static void test_usage_by_tense (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST (256, ", \"maxGPUHours\": 120")), FX_END);
    jt_snapshot_t *s = cluster (4, 0, 0, 0);
    const char *run = RUN ("rai", 16, GROUP (16) ", \"runtime\": { \"timeLimit\": \"2:00:00\" }");
    const char *got;

    closed_calls = 0;
    got = ask (b, s, run, JT_TENSE_NOW, NULL, 1, 8);
    ok (strstr (got, "refuse: jobtree: ") && strstr (got, "GPU"),
        "now: the ledger's closed hours count (100 + 32 > 120): %s", got);
    is_int (closed_calls, 1, "now asks the ledger once");
    got = ask (b, s, run, JT_TENSE_ESTIMATE, NULL, 1, 8);
    ok (!strncmp (got, "refuse: ", 8),
        "estimate: a run its envelopes cannot fund gets no estimate: %s", got);
    closed_calls = 0;
    is (ask (b, s, run, JT_TENSE_EVER, NULL, 1, 8), "bind[a01 a02]",
        "ever: no usage counts, closed hours included");
    is_int (closed_calls, 0, "ever does not ask the ledger");
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

static void test_ever (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST (32, "")), FX_END);
    jt_budgets_t *later = fx_budgets (RAI (
        "{ \"name\": \"west-h100\", \"flavor\": \"h100\", \"selector\": {"
        " \"region\": \"west\" }, \"start\": \"2026-06-01T00:00:00Z\","
        " \"end\": \"2027-01-01T00:00:00Z\", \"concurrency\": 64 }"), FX_END);
    jt_snapshot_t *s = cluster (4, 4, 2, 2);
    const char *got;

    got = ask (b, s, RUN ("rai", 64, GROUP (32)), JT_TENSE_EVER, NULL, 1, 8);
    ok (!strncmp (got, "refuse: jobtree: never fundable: ", 33),
        "ever: more than any envelope could ever fund is final: %s", got);
    is (ask (b, s, RUN ("rai", 32, GROUP (32)), JT_TENSE_EVER, NULL, 1, 8),
        "bind[a01 a02 a03 a04]",
        "ever: a full cluster is viewed idle");
    is (ask (b, s, RUN ("rai", 24, GROUP (24)), JT_TENSE_EVER, "a01 a02", 1, 8),
        "refuse: jobtree: group 0 (24 GPUs) fits no domain: most free is west/A with 16",
        "ever: a group that fits no domain of the set even when idle is final");
    is (ask (later, s, RUN ("rai", 32, GROUP (32)), JT_TENSE_EVER, NULL, 1, 8),
        "defer",
        "ever: a window that opens later is not Jobtree's refusal to make");
    jt_snapshot_destroy (s);
    jt_budgets_destroy (later);
    jt_budgets_destroy (b);
}

static void test_estimate (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST (256, "")), FX_END);
    jt_snapshot_t *s = jt_snapshot_create ();
    const char *got;

    fx_nodes (s, "a", 1, 4, "region=west,fabric.domain=A", 8, 4);
    fx_nodes (s, "b", 1, 3, "region=west,fabric.domain=B", 8, 3);
    fx_nodes (s, "c", 1, 4, "region=west,fabric.domain=C", 8, 2);
    fx_finalize (s);
    s->nodes[9].state = JT_NODE_DOWN;   /* c03 */
    is (ask (b, s, RUN ("rai", 32, GROUP (32)), JT_TENSE_ESTIMATE, NULL, 1, 8),
        "estimate 4 nodes {a01 a02 a03 a04}: jobtree: group 0 (32 GPUs) fits"
        " no domain: most free is west/C with 8",
        "estimate: one set per domain able to hold the group (B is too small,"
        " C has a down node)");
    is (ask (b, s, RUN ("rai", 24, NOSPREAD (8)), JT_TENSE_ESTIMATE, NULL, 1, 8),
        "estimate 3 nodes {a01 a02 a03 a04} {b01 b02 b03} {c01 c02 c04}: jobtree:"
        " no domain holds all 3 groups (24 GPUs) on nodes its payers may use;"
        " most free is west/C with 8",
        "estimate: spread off, every group in one domain: sets in domain order"
        " (C without its down node)");
    is (ask (b, s, RUN ("rai", 48, GROUP (8)), JT_TENSE_ESTIMATE, "b02", 1, 8),
        "estimate 6 nodes {a01 a02 a03 a04 b01 b03 c01 c02 c03 c04}: jobtree:"
        " group 1 (8 GPUs) fits no domain: no domain has a free node",
        "estimate: groups that may spread get one set over the flavor's"
        " eligible domain nodes");
    {
        jt_answer_t a;
        char line[512];

        (void) ask_keep (b, s, RUN ("rai", 32, GROUP (32)), JT_TENSE_ESTIMATE,
                         NULL, 1, 8, &a);
        jt_answer_reserved (&a, s, 0, fx_time ("2026-03-01T14:00:00Z"), 0, line,
                            sizeof (line));
        is_int (a.waits, 0, "an estimate is not a refusal");
        is (a.payer ? a.payer->name : "(none)", "west-h100",
            "a placement wait names who is to pay (the reservation's envelope)");
        is_int (a.cand_gpus, 32, "and the GPUs it is to start with");
        is (line, "jobtree: reserved 4 nodes in west/A from 2026-03-01T14:00:00Z"
            " (group 0 (32 GPUs) fits no domain: most free is west/C with 8)",
            "the reason once backfill holds a domain's nodes for the run");
        {
            char brief[160];
            jt_answer_reserved (&a, s, 0, fx_time ("2026-03-01T12:20:00Z"),
                                fx_time ("2026-03-01T14:00:00Z"), line, sizeof (line));
            is (line, "jobtree: reserved 4 nodes in west/A from 2026-03-01T12:20:00Z"
                " (group 0 (32 GPUs) fits no domain: most free is west/C with 8; by its"
                " activation at MaxWait, the runs there giving way (else from"
                " 2026-03-01T14:00:00Z))",
                "a start by the activation says so, and when it would start without it");
            jt_reason_brief (line, brief, sizeof (brief));
            is (brief, "jobtree: group 0 (32 GPUs) fits no domain: most free is west/C"
                " with 8; reserved west/A from 2026-03-01T12:20Z",
                "its brief: the blocker, and the start it is told");
        }
        jt_answer_free (&a);
        (void) ask_keep (b, s, RUN ("rai", 32, GROUP (32)), JT_TENSE_NOW, NULL,
                         1, 8, &a);
        ok (a.kind == JT_ANSWER_REFUSE && a.waits,
            "now: a placement wait is a refusal that waits (the reservation"
            " line may stand)");
        jt_answer_free (&a);
    }
    got = ask (b, s, RUN ("rai", 32, GROUP (32)), JT_TENSE_NOW, NULL, 1, 8);
    is (got, "refuse: jobtree: group 0 (32 GPUs) fits no domain: most free is west/C with 8",
        "now: the same run is refused with the reason users see");
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

/* A lease of run `run` (owner rai, west-h100) on `node`, 8 GPUs, started an
 * hour before FX_NOW, ending `end_h` hours after FX_NOW (0: unknown). */
static void lease (jt_snapshot_t *s, const char *run, const char *env,
                   char *node, int end_h)
{
    char *nodes[] = { node };
    jt_lease_t l = { .run = (char *) run, .owner = "rai", .envelope = (char *) env,
                     .nodes = nodes, .nnodes = 1, .gpus = 8,
                     .start = fx_time (FX_NOW) - 3600,
                     .end = end_h ? fx_time (FX_NOW) + 3600 * end_h : 0 };
    jt_error_t err;

    if (jt_snapshot_add_lease (s, &l, &err) < 0)
        bail_out ("lease: %s", err.text);
}

static void test_funding_time (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST (32, "")), FX_END);
    jt_snapshot_t *s = jt_snapshot_create ();

    fx_nodes (s, "a", 1, 8, "region=west,fabric.domain=A", 8, 4);
    lease (s, "1", "west-h100", "a01", 1);
    lease (s, "2", "west-h100", "a02", 3);
    lease (s, "3", "west-h100", "a03", 2);
    lease (s, "4", "west-h100", "a04", 5);
    fx_finalize (s);
    is (ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_ESTIMATE, NULL, 1, 8),
        "estimate 2 nodes from 2026-03-01T14:00:00Z {a01 a02 a03 a04 a05 a06 a07 a08}:"
        " jobtree: envelope west-h100: 32 of 32 GPUs active, run needs 16;"
        " funded from 2026-03-01T14:00:00Z",
        "a run waiting for its envelope is estimated from the second lease end"
        " (32 - 16 free at 14:00)");
    is (ask (b, s, RUN ("rai", 32, GROUP (32)), JT_TENSE_ESTIMATE, NULL, 1, 8),
        "estimate 4 nodes from 2026-03-01T17:00:00Z {a01 a02 a03 a04 a05 a06 a07 a08}:"
        " jobtree: envelope west-h100: 32 of 32 GPUs active, run needs 32;"
        " funded from 2026-03-01T17:00:00Z",
        "the whole envelope frees when its last lease ends");
    is (ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_NOW, NULL, 1, 8),
        "refuse: jobtree: envelope west-h100: 32 of 32 GPUs active, run needs 16",
        "now: the same run is refused, no funding time in the reason");
    {
        jt_answer_t a;
        (void) ask_keep (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_ESTIMATE, NULL,
                         1, 8, &a);
        ok (a.payer && !strcmp (a.payer->name, "west-h100") && a.cand_gpus == 16,
            "a funding wait names who pays once it is funded (%s, %" PRId64 " GPUs)",
            a.payer ? a.payer->name : "none", a.cand_gpus);
        jt_answer_free (&a);
    }
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

/* Only nodes a payer may use are estimated on: an idle east domain is no
 * place for a run its west envelope pays, whether it waits for room or
 * for funding. */
static void test_estimate_payable (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST (32, "")), FX_END);
    jt_snapshot_t *s = jt_snapshot_create ();

    fx_nodes (s, "a", 1, 4, "region=west,fabric.domain=A", 8, 4);
    fx_nodes (s, "e", 1, 4, "region=east,fabric.domain=E", 8, 4);
    lease (s, "1", "west-h100", "a01", 1);
    fx_finalize (s);
    s->nodes[4].used_gpus = s->nodes[5].used_gpus = 0;      /* e01, e02 */
    is (ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_ESTIMATE, NULL, 1, 8),
        "estimate 2 nodes {a01 a02 a03 a04}: jobtree: group 0 (16 GPUs) fits no"
        " domain: no domain has a free node",
        "a placement wait is estimated on the payer's domains only");
    is (ask (b, s, RUN ("rai", 32, GROUP (32)), JT_TENSE_ESTIMATE, NULL, 1, 8),
        "estimate 4 nodes from 2026-03-01T13:00:00Z {a01 a02 a03 a04}: jobtree:"
        " envelope west-h100: 8 of 32 GPUs active, run needs 32; funded from"
        " 2026-03-01T13:00:00Z",
        "so is a funding wait (the idle east nodes are not the payer's)");
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

/* A run may take GPUs a waiting run's reservation holds on the envelope
 * only when it ends before that reservation starts. */
/* A run may take GPUs a waiting run's reservation holds on the envelope
 * only if, at the reservation's start, both fit with the leases still
 * running then, or if it ends before that start. */
static void test_holds (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST (32, "")), FX_END);
    jt_snapshot_t *s = jt_snapshot_create ();
    int64_t now = fx_time (FX_NOW);
    jt_hold_t holds[] = { { "west-h100", 16, now + 3600 },
                          { "nowhere-h100", 64, now } };
    const char *got;

    fx_nodes (s, "a", 1, 8, "region=west,fabric.domain=A", 8, 4);
    lease (s, "1", "west-h100", "a01", 5);
    fx_finalize (s);
    next_holds = holds, next_nholds = 2, next_end = now + 1800;
    got = ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_NOW, NULL, 1, 8);
    ok (!strncmp (got, "bind[", 5),
        "a run that ends before the hold starts may use its GPUs: %s", got);
    next_holds = holds, next_nholds = 2, next_end = now + 7200;
    is (ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_NOW, NULL, 1, 8),
        "refuse: jobtree: 16 GPUs held for runs reserved ahead at 2026-03-01T13:00:00Z"
        " (envelope west-h100: 24 of 32 GPUs active, run needs 16)",
        "one still running then may not: the lease (8) runs on, 8 + 16 held + 16"
        " > 32; the reason says when and how much is held");
    next_holds = holds, next_nholds = 2, next_end = 0;
    ok (strstr (ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_NOW, NULL, 1, 8),
                "jobtree: 16 GPUs held for runs reserved ahead") != NULL,
        "nor one without a time limit");
    next_holds = holds, next_nholds = 2, next_end = now + 7200;
    got = ask (b, s, RUN ("rai", 8, GROUP (8)), JT_TENSE_NOW, NULL, 1, 8);
    ok (!strncmp (got, "bind[", 5), "what the hold leaves is free: %s", got);
    next_holds = holds, next_nholds = 2, next_end = now + 7200;
    got = ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_ESTIMATE, NULL, 1, 8);
    ok (strstr (got, "refuse: jobtree: 16 GPUs held for runs reserved ahead at ") == got,
        "backfill is told the same: no start now (%s)", got);
    got = ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_NOW, NULL, 1, 8);
    ok (!strncmp (got, "bind[", 5), "without holds it binds: %s", got);
    jt_snapshot_destroy (s);

    /* The reservation starts when the lease ends (that is why it waits):
     * then the run and the hold fit together, whatever the run's end. */
    s = jt_snapshot_create ();
    fx_nodes (s, "a", 1, 8, "region=west,fabric.domain=A", 8, 4);
    lease (s, "1", "west-h100", "a01", 1);
    lease (s, "2", "west-h100", "a02", 1);
    fx_finalize (s);
    next_holds = holds, next_nholds = 1, next_end = 0;
    got = ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_NOW, NULL, 1, 8);
    ok (!strncmp (got, "bind[", 5),
        "a hold that starts when the leases end leaves room for both: %s", got);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

/* The holds are checked at each of their starts, each counted from its
 * own start on with the leases still running then: a hold reserved for
 * later is not counted with leases that end before it starts. Past
 * HOLD_TIMES_MAX (16) instants every later hold is counted at the 16th. */
static void test_holds_each_start (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST (32, "")), FX_END);
    jt_snapshot_t *s = jt_snapshot_create ();
    int64_t now = fx_time (FX_NOW), h = 3600;
    jt_hold_t two[] = { { "west-h100", 8, now + 3 * h },
                        { "west-h100", 16, now + h } };
    jt_hold_t many[17];
    const char *got;

    fx_nodes (s, "a", 1, 8, "region=west,fabric.domain=A", 8, 3);
    lease (s, "1", "west-h100", "a01", 1);
    lease (s, "2", "west-h100", "a02", 1);
    lease (s, "3", "west-h100", "a03", 3);
    fx_finalize (s);
    next_holds = two, next_nholds = 2, next_end = 0;
    got = ask (b, s, RUN ("rai", 8, GROUP (8)), JT_TENSE_NOW, NULL, 1, 8);
    ok (!strncmp (got, "bind[", 5),
        "at 13:00 the lease on a03 (8) + run (8) + the first hold (16) fit 32;"
        " at 15:00 the run + both holds (8 + 16 + 8) do: it binds (%s)", got);
    two[0].gpus = 16;
    next_holds = two, next_nholds = 2, next_end = 0;
    is (ask (b, s, RUN ("rai", 8, GROUP (8)), JT_TENSE_NOW, NULL, 1, 8),
        "refuse: jobtree: 32 GPUs held for runs reserved ahead at 2026-03-01T15:00:00Z"
        " (envelope west-h100: 32 of 32 GPUs active, run needs 8)",
        "a later hold that does not fit with the run is still seen, at its start");
    next_holds = two, next_nholds = 1, next_end = now + 2 * h;
    got = ask (b, s, RUN ("rai", 8, GROUP (8)), JT_TENSE_NOW, NULL, 1, 8);
    ok (!strncmp (got, "bind[", 5),
        "the later hold does not bind a run that ends before it (%s)", got);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);

    /* 16 holds of 1 GPU at 13:00 .. 04:00 the next day, one of 9 at 06:00;
     * two leases (16) end at 05:00; envelope 48. Exactly: at 04:00 16 + 8 +
     * 16 = 40, at 06:00 8 + 16 + 9 = 33: it would fit. Counted at the 16th
     * instant: 16 + 8 + 16 + 9 = 49 > 48: refused, never less strict. */
    b = fx_budgets (RAI (WEST (48, "")), FX_END);
    s = jt_snapshot_create ();
    fx_nodes (s, "a", 1, 8, "region=west,fabric.domain=A", 8, 2);
    lease (s, "1", "west-h100", "a01", 17);
    lease (s, "2", "west-h100", "a02", 17);
    fx_finalize (s);
    for (int i = 0; i < 16; i++)   /* given latest first: the order is theirs */
        many[i] = (jt_hold_t){ "west-h100", 1, now + (16 - i) * h };
    many[16] = (jt_hold_t){ "west-h100", 9, now + 18 * h };
    next_holds = many, next_nholds = 17, next_end = 0;
    is (ask (b, s, RUN ("rai", 8, GROUP (8)), JT_TENSE_NOW, NULL, 1, 8),
        "refuse: jobtree: 25 GPUs held for runs reserved ahead at 2026-03-02T04:00:00Z"
        " (envelope west-h100: 41 of 48 GPUs active, run needs 8)",
        "past 16 instants the later holds are counted at the 16th");
    many[16].gpus = 8;
    next_holds = many, next_nholds = 17, next_end = 0;
    got = ask (b, s, RUN ("rai", 8, GROUP (8)), JT_TENSE_NOW, NULL, 1, 8);
    ok (!strncmp (got, "bind[", 5), "and fit there when they fit (%s)", got);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

static void test_funding_unknown_end (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST (16, "")), FX_END);
    jt_snapshot_t *s = jt_snapshot_create ();
    const char *got;

    fx_nodes (s, "a", 1, 4, "region=west,fabric.domain=A", 8, 2);
    lease (s, "1", "west-h100", "a01", 0);
    lease (s, "2", "west-h100", "a02", 2);
    fx_finalize (s);
    got = ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_ESTIMATE, NULL, 1, 8);
    ok (!strncmp (got, "refuse: jobtree: envelope west-h100", 35),
        "a lease without a known end: no estimate (start unknown): %s", got);
    is (ask (b, s, RUN ("rai", 8, ""), JT_TENSE_ESTIMATE, NULL, 1, 8),
        "estimate 1 nodes from 2026-03-01T14:00:00Z {a01 a02 a03 a04}:"
        " jobtree: envelope west-h100: 16 of 16 GPUs active, run needs 8;"
        " funded from 2026-03-01T14:00:00Z",
        "the lease with a known end frees 8");
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

static void test_funding_windows (void)
{
    /* Envelope now: 16 GPUs, full until 17:00. Envelope later: opens at
     * 15:00 with 32. Envelope shut: open only 13:00-14:00. */
    jt_budgets_t *b = fx_budgets (RAI (
        FX_ENV ("now-h100", "\"region\": \"west\"", 16, "") ","
        "{ \"name\": \"later-h100\", \"flavor\": \"h100\", \"selector\": {"
        " \"region\": \"west\" }, \"start\": \"2026-03-01T15:00:00Z\","
        " \"end\": \"2027-01-01T00:00:00Z\", \"concurrency\": 32 }"), FX_END);
    jt_budgets_t *shut = fx_budgets (RAI (
        "{ \"name\": \"shut-h100\", \"flavor\": \"h100\", \"selector\": {"
        " \"region\": \"west\" }, \"start\": \"2026-03-01T13:00:00Z\","
        " \"end\": \"2026-03-01T14:00:00Z\", \"concurrency\": 32 }"), FX_END);
    jt_snapshot_t *s = jt_snapshot_create ();
    const char *got;

    fx_nodes (s, "a", 1, 6, "region=west,fabric.domain=A", 8, 2);
    lease (s, "1", "now-h100", "a01", 5);
    lease (s, "2", "now-h100", "a02", 5);
    fx_finalize (s);
    got = ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_ESTIMATE, NULL, 1, 8);
    ok (strstr (got, "estimate 2 nodes from 2026-03-01T15:00:00Z ") == got,
        "a window opening before the leases end funds it first: %s", got);
    got = ask (b, s, RUN ("rai", 48, GROUP (16)), JT_TENSE_ESTIMATE, NULL, 1, 8);
    ok (strstr (got, "estimate 6 nodes from 2026-03-01T17:00:00Z ") == got,
        "both envelopes together once the leases end: %s", got);
    got = ask (shut, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_ESTIMATE, NULL, 1, 8);
    ok (strstr (got, "estimate 2 nodes from 2026-03-01T13:00:00Z ") == got,
        "a window that opens later and closes again is found at its opening: %s",
        got);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (shut);
    jt_budgets_destroy (b);
}

/* The calculus's decision over time (jt_sched_decide): the plan's dump and
 * its earliest start, "... @HH:MM" (or "@unknown"), static buffer. */
static const char *decide (const jt_budgets_t *b, jt_snapshot_t *s,
                           const char *run_json)
{
    static char buf[2048];
    jt_run_t *r = fx_run (run_json);
    bool *el = eligible (s, NULL);
    jt_sched_request_t req = {
        .budgets = b, .snap = s, .eligible = el, .run = r,
        .now = fx_time (FX_NOW), .opts = { .policy = JT_PACK_TO_EMPTY },
    };
    jt_plan_t p;
    jt_error_t err;

    if (jt_sched_decide (&req, &p, &err) < 0)
        snprintf (buf, sizeof (buf), "error: %s", err.text);
    else {
        char *d = jt_plan_dump (&p, s);
        char t[40] = "unknown";
        if (p.earliest_start > 0)
            jt_time_format (p.earliest_start, t, sizeof (t));
        snprintf (buf, sizeof (buf), "%s @%s | %s", d ? d : "(ENOMEM)", t,
                  p.detail);
        free (d);
        jt_plan_free (&p);
    }
    free (el);
    jt_run_destroy (r);
    return buf;
}

static void test_decide (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST (256, "")), FX_END);
    jt_budgets_t *small = fx_budgets (RAI (WEST (16, "")), FX_END);
    jt_budgets_t *mid = fx_budgets (RAI (WEST (32, "")), FX_END);
    jt_budgets_t *later = fx_budgets (RAI (
        "{ \"name\": \"later-h100\", \"flavor\": \"h100\", \"selector\": {"
        " \"region\": \"west\" }, \"start\": \"2026-03-01T15:00:00Z\","
        " \"end\": \"2027-01-01T00:00:00Z\", \"concurrency\": 64 }"), FX_END);
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_snapshot_t *plain = cluster (3, 3, 2, 0);
    const char *got;

    /* A: four nodes whose leases end at 13, 14, 15 and 16:00; B: two idle. */
    fx_nodes (s, "a", 1, 4, "region=west,fabric.domain=A", 8, 4);
    fx_nodes (s, "b", 1, 2, "region=west,fabric.domain=B", 8, 0);
    lease (s, "1", "west-h100", "a01", 1);
    lease (s, "2", "west-h100", "a02", 2);
    lease (s, "3", "west-h100", "a03", 3);
    lease (s, "4", "west-h100", "a04", 4);
    fx_finalize (s);

    got = decide (b, s, RUN ("rai", 16, GROUP (16)));
    ok (strncmp (got, "BindNow ", 8) == 0
        && strstr (got, "@2026-03-01T12:00:00Z"),
        "decide: a run that binds now is BindNow, starting now: %s", got);
    got = decide (b, s, RUN ("rai", 24, GROUP (24)));
    ok (strncmp (got, "PlanLater NoDomainFits ", 23) == 0
        && strstr (got, "@2026-03-01T15:00:00Z"),
        "decide: a group that needs three of A's nodes starts when the third"
        " lease there ends, not the last: %s", got);
    got = decide (later, s, RUN ("rai", 16, GROUP (16)));
    ok (strncmp (got, "PlanLater WindowClosed ", 23) == 0
        && strstr (got, "@2026-03-01T15:00:00Z"),
        "decide: a run its envelope funds once its window opens is PlanLater"
        " from the opening, not Reject: %s", got);
    got = decide (mid, s, RUN ("rai", 16, GROUP (16)));
    ok (strncmp (got, "PlanLater InsufficientCapacity ", 31) == 0
        && strstr (got, "@2026-03-01T14:00:00Z"),
        "decide: B is idle but the 32-GPU envelope is full with four 8-GPU"
        " leases: the run waits for two of them to end (funding, not room):"
        " %s", got);
    got = decide (b, s, RUN ("rai", 48, NOSPREAD (16)));
    ok (strncmp (got, "Reject SingleDomainFull ", 24) == 0,
        "decide: spread off and every domain smaller than the run is Reject"
        " (never), not PlanLater: %s", got);
    got = decide (small, s, RUN ("rai", 32, GROUP (16)));
    ok (strncmp (got, "Reject ", 7) == 0,
        "decide: more than the envelope's concurrency is Reject: %s", got);
    got = decide (b, plain, RUN ("rai", 24, GROUP (24)));
    ok (strncmp (got, "PlanLater NoDomainFits ", 23) == 0
        && strstr (got, "@unknown"),
        "decide: nodes held by jobs outside Jobtree (no lease, no known end):"
        " PlanLater, start unknown: %s", got);
    jt_snapshot_destroy (plain);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (later);
    jt_budgets_destroy (mid);
    jt_budgets_destroy (small);
    jt_budgets_destroy (b);
}

/* A running lease always ends: a run waiting on leases whose ends are not
 * known is PlanLater with no estimate, never Reject (issue 34); Reject is
 * for a run no amount of waiting funds. ESTIMATE (slurmctld's backfill)
 * says the same, with no estimate. */
static void test_decide_unknown_ends (void)
{
    jt_budgets_t *mid = fx_budgets (RAI (WEST (32, "")), FX_END);
    jt_budgets_t *hours = fx_budgets (RAI (WEST (64, ", \"maxGPUHours\": 40")),
                                      FX_END);
    jt_budgets_t *w24 = fx_budgets (RAI (WEST (24, "")), FX_END);
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_snapshot_t *odd = jt_snapshot_create ();

    /* A: four nodes, each under a lease of unknown end (32 GPUs of
     * west-h100 active, 32 GPU-hours spent); B: two idle nodes. */
    fx_nodes (s, "a", 1, 4, "region=west,fabric.domain=A", 8, 4);
    fx_nodes (s, "b", 1, 2, "region=west,fabric.domain=B", 8, 0);
    lease (s, "1", "west-h100", "a01", 0);
    lease (s, "2", "west-h100", "a02", 0);
    lease (s, "3", "west-h100", "a03", 0);
    lease (s, "4", "west-h100", "a04", 0);
    fx_finalize (s);
    is (decide (mid, s, RUN ("rai", 16, GROUP (16))),
        "PlanLater InsufficientCapacity total=0 want=16 | pay west-h100 g0 16"
        " @unknown | envelope west-h100: 32 of 32 GPUs active, run needs 16;"
        " start unknown: funded when running leases end; their ends are not"
        " known",
        "decide: funded once leases of unknown end end: PlanLater, no"
        " estimate, not Reject");
    is (ask (mid, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_ESTIMATE, NULL, 1, 8),
        "refuse: jobtree: envelope west-h100: 32 of 32 GPUs active, run needs"
        " 16; start unknown: funded when running leases end; their ends are"
        " not known",
        "estimate: the same wait, no estimate, the same words");
    is (decide (hours, s, RUN ("rai", 16, GROUP (16))),
        "Reject GPUHoursExhausted total=0 want=16 @unknown | envelope"
        " west-h100: 32.0 of 40.0 GPU-hours used, 16 GPUs for the time limit"
        " need 16.0; no lease end or window opening funds it",
        "decide: GPU-hours spent stay spent when the leases end: Reject");
    is (ask (hours, s, RUN ("rai", 8, GROUP (8)), JT_TENSE_ESTIMATE, NULL, 1, 8),
        "refuse: jobtree: envelope west-h100: 132.0 of 40.0 GPU-hours used, 8"
        " GPUs for the time limit need 8.0",
        "estimate: no amount of waiting funds it: no start-unknown words");

    /* Funding frees at a known lease end, but the nodes it needs are held
     * by work of no known end (a03, a04: no lease) */
    fx_nodes (odd, "a", 1, 4, "region=west,fabric.domain=A", 8, 4);
    lease (odd, "1", "west-h100", "a01", 1);
    lease (odd, "2", "west-h100", "a02", 2);
    fx_finalize (odd);
    is (decide (w24, odd, RUN ("rai", 24, GROUP (24))),
        "PlanLater InsufficientCapacity total=0 want=24 | pay west-h100 g0 24"
        " @unknown | envelope west-h100: 16 of 24 GPUs active, run needs 24;"
        " start unknown: funded from 2026-03-01T14:00:00Z; nodes it needs have"
        " no known free time",
        "decide: funded at a lease end, on nodes of unknown free time:"
        " PlanLater, start unknown");
    jt_snapshot_destroy (odd);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (w24);
    jt_budgets_destroy (hours);
    jt_budgets_destroy (mid);
}

/* ESTIMATE honours the run's node labels (jobtree/pack.h): only nodes its
 * constraints allow, and with group-by one set per class (domain x value). */
static void test_estimate_labels (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST (256, "")), FX_END);
    jt_snapshot_t *s = jt_snapshot_create ();
    const char *got;

    fx_nodes (s, "a", 1, 2, "region=west,fabric.domain=A,rack=r1", 8, 2);
    fx_nodes (s, "a", 3, 2, "region=west,fabric.domain=A,rack=r2,gpu.mem=80", 8, 2);
    fx_finalize (s);
    got = ask (b, s, RUN ("rai", 16, ", \"locality\": { \"groupGPUs\": 16,"
                          " \"groupBy\": \"rack\" }"), JT_TENSE_ESTIMATE, NULL, 1, 8);
    ok (strncmp (got, "estimate 2 nodes {a01 a02} {a03 a04}:", 37) == 0,
        "estimate, group-by: one set per rack, not one over the domain: %s", got);
    got = ask (b, s, RUN ("rai", 16, GROUP (16) ", \"nodeConstraints\":"
                          " [\"gpu.mem GE 80\"]"), JT_TENSE_ESTIMATE, NULL, 1, 8);
    ok (strncmp (got, "estimate 2 nodes {a03 a04}:", 27) == 0,
        "estimate, constraint: only the nodes it allows: %s", got);
    got = ask (b, s, RUN ("rai", 24, ", \"locality\": { \"groupGPUs\": 24,"
                          " \"groupBy\": \"rack\" }"), JT_TENSE_ESTIMATE, NULL, 1, 8);
    ok (strncmp (got, "estimate 3 nodes: ", 18) == 0,
        "estimate, group-by: no rack holds 3 nodes, so no set to estimate on: %s",
        got);
    jt_snapshot_destroy (s);
    /* --conformance=strict classes by the fingerprint, as group-by does */
    s = jt_snapshot_create ();
    fx_nodes (s, "a", 1, 2, "region=west,fabric.domain=A,conformance=x", 8, 2);
    fx_nodes (s, "a", 3, 1, "region=west,fabric.domain=A,conformance=y", 8, 1);
    fx_nodes (s, "a", 4, 1, "region=west,fabric.domain=A,conformance=z", 8, 1);
    fx_finalize (s);
    got = ask (b, s, RUN ("rai", 16, ", \"locality\": { \"groupGPUs\": 16,"
                          " \"conformance\": \"strict\" }"), JT_TENSE_ESTIMATE, NULL, 1, 8);
    ok (strncmp (got, "estimate 2 nodes {a01 a02}:", 27) == 0,
        "estimate, strict conformance: only the two x nodes: %s", got);
    got = ask (b, s, RUN ("rai", 16, GROUP (16)), JT_TENSE_ESTIMATE, NULL, 1, 8);
    ok (strncmp (got, "estimate 2 nodes {a01 a02 a03 a04}:", 35) == 0,
        "estimate, conformance preferred: the whole domain: %s", got);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

static void test_snapshot_restored (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST (256, "")), FX_END);
    jt_snapshot_t *s = cluster (4, 2, 4, 0);
    int used[8];
    jt_node_state_t st[8];
    bool same = true;

    s->nodes[5].state = JT_NODE_DRAIN;
    for (size_t k = 0; k < 8; k++) {
        used[k] = s->nodes[k].used_gpus;
        st[k] = s->nodes[k].state;
    }
    for (int t = JT_TENSE_NOW; t <= JT_TENSE_ESTIMATE; t++)
        (void) ask (b, s, RUN ("rai", 64, GROUP (32)), (jt_tense_t) t,
                    "a03 b04", 1, 8);
    for (size_t k = 0; k < 8; k++)
        same = same && used[k] == s->nodes[k].used_gpus && st[k] == s->nodes[k].state;
    ok (same, "every tense leaves the snapshot's live usage and states as they were");
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

/* The estimate backfill takes, and which refusals keep the line it set. */
static void test_pick (void)
{
    jt_node_set_t sets[3] = { { NULL, 0, 0 }, { NULL, 0, 1 }, { NULL, 0, 2 } };
    jt_answer_t a = { .kind = JT_ANSWER_ESTIMATE, .cands = sets, .ncands = 3 };
    int64_t start;

    is_int ((int64_t) jt_answer_pick (&a, (int64_t[]){ 500, 300, 300 }, &start), 1,
            "the earliest start wins, ties by order");
    is_int (start, 300, "at its start");
    a.not_before = 400;
    is_int ((int64_t) jt_answer_pick (&a, (int64_t[]){ 500, 300, 300 }, &start), 1,
            "funding later does not change which set");
    is_int (start, 400, "but the start is never before funding frees");
    is_int ((int64_t) jt_answer_pick (&a, (int64_t[]){ -1, 700, -1 }, &start), 1,
            "refused sets are skipped");
    is_int ((int64_t) jt_answer_pick (&a, (int64_t[]){ -1, -1, -1 }, &start), 3,
            "every set refused: none (ncands)");
    a.ncands = 0;
    is_int ((int64_t) jt_answer_pick (&a, NULL, &start), 0, "no sets: none");

    jt_answer_t r = { .kind = JT_ANSWER_REFUSE, .waits = true };
    ok (jt_answer_keeps_line (&r, "jobtree: reserved 4 nodes in west/A from X (why)"),
        "a wait keeps the reservation line backfill set");
    ok (!jt_answer_keeps_line (&r, "jobtree: envelope west-h100: 32 of 32 GPUs active"),
        "but not another line");
    ok (!jt_answer_keeps_line (&r, NULL), "nor none");
    r.waits = false;
    ok (!jt_answer_keeps_line (&r, "jobtree: reserved 4 nodes in west/A from X (why)"),
        "a refusal that time cannot cure says why");
}

static void test_bad_request (void)
{
    jt_sched_request_t req = { 0 };
    jt_answer_t a;
    jt_error_t err;

    ok (jt_sched_answer (&req, &a, &err) < 0 && a.kind == 0 && !a.bind.nodes,
        "a request without budgets is an error, answer left empty");
    is (jt_tense_str (JT_TENSE_ESTIMATE), "estimate", "tense names");
    is (jt_answer_kind_str (JT_ANSWER_DEFER), "defer", "answer names");
}

/* jt_reason_brief: squeue's short form of each kind of line, exactly. */
static void test_brief (void)
{
    static const struct {
        const char *line, *brief, *name;
    } cases[] = {
        { "jobtree: reserved 4 nodes in west/A from 2026-03-01T14:00:00Z"
          " (group 0 (32 GPUs) fits no domain: most free is west/C with 8)",
          "jobtree: group 0 (32 GPUs) fits no domain: most free is west/C with 8;"
          " reserved west/A from 2026-03-01T14:00Z",
          "a reservation for room: the blocker (its inner parenthesis kept),"
          " where and from when" },
        { "jobtree: reserved 2 nodes in west/c1/A from 2026-11-29T01:39:00Z"
          " (envelope rai-east-h100: 32 of 32 GPUs active, run needs 16"
          " (envelope rai-east-h100's nodes have room); vision-west-h100 could"
          " pay, but group 0 (16 GPUs) fits no domain: most free is west/c1/B"
          " with 8; funded from 2026-11-29T01:39:00Z)",
          "jobtree: envelope rai-east-h100: 32 of 32 GPUs active, run needs 16;"
          " reserved west/c1/A from 2026-11-29T01:39Z",
          "a reservation waiting for funding: the first payer's bound, not"
          " the payers tried after it (the demo's 250-character line)" },
        { "jobtree: reserved 8 nodes from 2026-03-01T14:00:00Z (group 1 (8"
          " GPUs) fits no domain: no domain has a free node)",
          "jobtree: group 1 (8 GPUs) fits no domain: no domain has a free node;"
          " reserved from 2026-03-01T14:00Z",
          "a reservation over several domains names none" },
        { "jobtree: envelope west-h100: 48 of 64 GPUs active, run needs 32;"
          " sponsor envelope b-east (team-b) could pay 32 GPUs if the run"
          " allowed borrowing",
          "jobtree: envelope west-h100: 48 of 64 GPUs active, run needs 32",
          "a funding wait without a reservation: its own bound, the hint"
          " left to the explanation" },
        { "envelope west-h100: 48 of 64 GPUs active, run needs 32",
          "jobtree: envelope west-h100: 48 of 64 GPUs active, run needs 32",
          "a line without the tag gets it" },
        { "jobtree: reserved 4 nodes in west/A from 2026-03-01T14:00:00Z for"
          " its restart (paid by west-h100)",
          "jobtree: reserved 4 nodes in west/A from 2026-03-01T14:00:00Z for"
          " its restart",
          "a restart's line is read as any line" },
        { "jobtree: never fundable: 40 GPUs exceed what the candidate envelopes"
          " can fund together by whole nodes (aggregate cap rai-total allows 24)",
          "jobtree: never fundable: 40 GPUs exceed what the candidate envelopes"
          " can fund...",
          "a long blocker is cut at a word, and says so" },
        { "", "", "an empty line has no brief" },
    };
    char buf[160];

    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        jt_reason_brief (cases[i].line, buf, sizeof (buf));
        is (buf, cases[i].brief, "brief: %s", cases[i].name);
        ok (strlen (buf) <= 110, "brief: %s: %zu characters", cases[i].name,
            strlen (buf));
    }
    jt_reason_brief ("jobtree: a b c", buf, 8);
    is (buf, "jobtree", "brief: cut to the buffer");
}

int main (void)
{
    test_brief ();
    test_now ();
    test_spares ();
    test_malleable_range ();
    test_usage_by_tense ();
    test_ever ();
    test_estimate ();
    test_pick ();
    test_estimate_payable ();
    test_holds ();
    test_holds_each_start ();
    test_funding_time ();
    test_funding_unknown_end ();
    test_funding_windows ();
    test_decide ();
    test_decide_unknown_ends ();
    test_estimate_labels ();
    test_snapshot_restored ();
    test_bad_request ();
    done_testing ();
}
