/*
 * restart.c - unit tests of a requeued run's restart, reserved at the
 * requeue (jobtree/schedule.h: jt_sched_restart, jt_sched_nominated;
 * jobtree/elastic.h: jt_elastic_slice): the slice is planned on the live
 * snapshot without the run's own leases (its nodes free at the requeue,
 * its GPUs unpaid) and without its failed nodes, whole groups with their
 * spares in one domain; the start is now + the requeue delay when the
 * slice is free, else when its holders end (the first end that frees
 * enough, not the last); none without --checkpoint or when nodes of
 * unknown end stand in the way; a grow's restart is held on the run's
 * nodes and its new groups'; another job keeps off a held slice unless it
 * ends by the start; the run waits for its slice and binds nowhere else
 * while the slice holds (jt_restart_where); the snapshot is left as it was.
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

#include "jobtree/elastic.h"
#include "jobtree/schedule.h"
#include "jobtree/timeutil.h"
#include "fixtures.h"
#include "tap.h"

/* 16 GPUs in one group of two nodes, one spare per group. */
#define RUN(extra) \
    "{ \"owner\": \"rai\", \"resources\": { \"gpuType\": \"h100\", \"totalGPUs\": 16 }," \
    " \"locality\": { \"groupGPUs\": 16 }, \"sparesPerGroup\": 1" extra " }"
#define CKPT ", \"runtime\": { \"checkpoint\": \"10m\" }"
#define RAI(conc) \
    "{ \"owner\": \"rai\", \"envelopes\": [" \
    FX_ENV ("west-h100", "\"region\": \"west\"", conc, "") "] }"
#define DELAY 11

static int64_t now0;

/* A lease of `run` on nodes (space separated), 8 GPUs a node, role r,
 * ending end_s seconds after now (0: unknown). */
static void lease (jt_snapshot_t *s, const char *run, const char *nodes, jt_role_t r,
                   int64_t end_s)
{
    char buf[256], *names[16], *save = NULL;
    size_t n = 0;
    jt_error_t err;

    snprintf (buf, sizeof (buf), "%s", nodes);
    for (char *t = strtok_r (buf, " ", &save); t && n < 16; t = strtok_r (NULL, " ", &save))
        names[n++] = t;
    jt_lease_t l = { .run = (char *) run, .owner = "rai", .envelope = "west-h100",
                     .nodes = names, .nnodes = n, .gpus = 8 * (int64_t) n, .role = r,
                     .start = now0 - 3600, .end = end_s ? now0 + end_s : 0 };
    if (jt_snapshot_add_lease (s, &l, &err) < 0)
        bail_out ("lease: %s", err.text);
}

/* A (a01-a04) and B (b01-b04), west, 8 GPUs a node. Run "7" held a01 a02
 * (its group) and a03 (its spare), all in use; `down` (space separated)
 * are down (failed); b01 and b02 are held by run "9" until +1 h and +2 h
 * when busy_b. */
static jt_snapshot_t *cluster (const char *down, bool busy_b)
{
    jt_snapshot_t *s = jt_snapshot_create ();

    fx_nodes (s, "a", 1, 4, "region=west,fabric.domain=A", 8, 3);
    fx_nodes (s, "b", 1, 4, "region=west,fabric.domain=B", 8, busy_b ? 2 : 0);
    lease (s, "7", "a01 a02", JT_ROLE_ACTIVE, 3 * 3600);
    lease (s, "7", "a03", JT_ROLE_SPARE, 3 * 3600);
    if (busy_b) {
        lease (s, "9", "b01", JT_ROLE_ACTIVE, 3600);
        lease (s, "9", "b02", JT_ROLE_ACTIVE, 2 * 3600);
    }
    fx_finalize (s);
    for (size_t k = 0; down && k < s->nnodes; k++)
        if (strstr (down, s->nodes[k].name))
            s->nodes[k].state = JT_NODE_DOWN;
    return s;
}

/* "nodes @+seconds | line" or "none | detail" (static buffer). eligible
 * NULL: every node. */
static const char *restart (const jt_budgets_t *b, jt_snapshot_t *s, const char *run,
                            const bool *eligible, const int64_t *free_at)
{
    static char buf[1024];
    jt_run_t *r = fx_run (run);
    bool *all = calloc (s->nnodes, sizeof (*all));
    jt_sched_request_t req = { .budgets = b, .snap = s, .run = r, .now = now0,
                               .eligible = eligible ? eligible : all,
                               .opts = { .policy = JT_PACK_BEST_FIT } };
    jt_restart_t x;
    jt_error_t err;

    for (size_t k = 0; k < s->nnodes; k++)
        all[k] = true;
    if (jt_sched_restart (&req, "7", DELAY, free_at, &x, &err) < 0)
        snprintf (buf, sizeof (buf), "error: %s", err.text);
    else if (!x.reserved)
        snprintf (buf, sizeof (buf), "none | %s", x.detail);
    else {
        size_t len = 0;
        for (size_t k = 0; k < x.slice.nnodes; k++)
            len += (size_t) snprintf (buf + len, sizeof (buf) - len, "%s%s", k ? " " : "",
                                      s->nodes[x.slice.nodes[k]].name);
        snprintf (buf + len, sizeof (buf) - len, " @+%" PRId64 " %s | %s",
                  x.start - now0, x.payer ? x.payer->name : "-", x.line);
    }
    jt_restart_free (&x);
    free (all);
    jt_run_destroy (r);
    return buf;
}

static void test_restart (void)
{
    jt_budgets_t *b = fx_budgets (RAI (256), FX_END);
    jt_budgets_t *full = fx_budgets (RAI (24), FX_END);
    jt_snapshot_t *s;
    const char *got;

    /* a01 failed: a02 and a03 were the run's, a04 is free: A holds the
     * group and its spare again at the requeue. */
    s = cluster ("a01", true);
    got = restart (b, s, RUN (CKPT), NULL, NULL);
    is (got, "a02 a03 a04 @+11 west-h100 | jobtree: reserved 3 nodes in west/A from "
        "2026-03-01T12:00:11Z for its restart (paid by west-h100)",
        "the run's own nodes are free at its requeue: the slice (group + spare in "
        "one domain, the failed node left out) starts after the requeue delay");
    jt_snapshot_destroy (s);
    s = cluster ("a01", false);
    {
        /* the caller's free times (slurmctld's: every running job until
         * its end) hold the run's own nodes until its end: they are free
         * at its requeue all the same */
        int64_t fa[8];
        for (size_t k = 0; k < s->nnodes; k++)
            fa[k] = s->nodes[k].used_gpus ? now0 + 3 * 3600 : now0;
        got = restart (b, s, RUN (CKPT), NULL, fa);
        ok (!strncmp (got, "a02 a03 a04 @+11 ", 17),
            "with the caller's free times too, the run's own nodes are free at its "
            "requeue: %s", got);
    }
    got = restart (full, s, RUN (CKPT), NULL, NULL);
    ok (!strncmp (got, "a02 a03 a04 @+11 ", 17),
        "the run's own leases are not counted: a 24-GPU envelope the run fills "
        "pays its restart at once: %s", got);
    jt_snapshot_destroy (s);

    /* a01 and a02 failed: A has two nodes up; B frees b01 at +1 h, b02 at
     * +2 h: the restart is held on B from the first end that frees room. */
    s = cluster ("a01 a02", true);
    got = restart (b, s, RUN (CKPT), NULL, NULL);
    is (got, "b01 b03 b04 @+3600 west-h100 | jobtree: reserved 3 nodes in west/B from "
        "2026-03-01T13:00:00Z for its restart (paid by west-h100)",
        "no room now: held where the holders' ends free it first (+1 h), not the last");
    {
        /* the caller's free times (every job's end by its time limit): b01
         * frees at +30 min in its view */
        int64_t fa[8];
        for (size_t k = 0; k < s->nnodes; k++)
            fa[k] = s->nodes[k].used_gpus ? now0 + 3 * 3600 : now0;
        fa[4] = now0 + 1800;
        got = restart (b, s, RUN (CKPT), NULL, fa);
        ok (!strncmp (got, "b01 b03 b04 @+1800 ", 19),
            "the caller's free times are used (a job outside Jobtree ends by its "
            "time limit): %s", got);
    }
    {
        bool el[8] = { true, true, true, true, false, true, true, true };
        got = restart (b, s, RUN (CKPT), el, NULL);
        ok (!strncmp (got, "b02 b03 b04 @+7200 ", 19),
            "only eligible nodes count (b01 left out: b02's end): %s", got);
    }
    got = restart (b, s, RUN (""), NULL, NULL);
    is (got, "none | no --checkpoint: its restart waits as any run does",
        "without --checkpoint no restart is reserved");
    jt_snapshot_destroy (s);

    /* Nodes of unknown end in the way: none. */
    s = cluster ("a01 a02 b03", true);
    s->leases[3].end = 0;       /* run 9's b02: no end */
    s->leases[2].end = 0;       /* and b01 */
    got = restart (b, s, RUN (CKPT), NULL, NULL);
    ok (!strncmp (got, "none | no instant from its requeue on funds and places", 54),
        "a slice only nodes of unknown end (down, no time limit) could make: "
        "none: %s", got);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (full);
    jt_budgets_destroy (b);
}

static void test_restored (void)
{
    jt_budgets_t *b = fx_budgets (RAI (256), FX_END);
    jt_snapshot_t *s = cluster ("a01 a02", true);
    char *before = jt_snapshot_to_json (s), *after;
    int used[8];
    bool same = true;

    for (size_t k = 0; k < 8; k++)
        used[k] = s->nodes[k].used_gpus;
    (void) restart (b, s, RUN (CKPT), NULL, NULL);
    after = jt_snapshot_to_json (s);
    for (size_t k = 0; k < 8; k++)
        same = same && used[k] == s->nodes[k].used_gpus;
    ok (same && before && after && !strcmp (before, after),
        "the snapshot (leases in order, usage) is left as it was");
    free (before);
    free (after);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

static void test_bad (void)
{
    jt_budgets_t *b = fx_budgets (RAI (256), FX_END);
    jt_snapshot_t *s = cluster (NULL, false);
    jt_run_t *r = fx_run (RUN (CKPT));
    bool el[8] = { true, true, true, true, true, true, true, true };
    jt_sched_request_t req = { .budgets = b, .snap = s, .run = r, .now = now0,
                               .eligible = el };
    jt_restart_t x;
    jt_error_t err;

    ok (jt_sched_restart (&req, "7", -1, NULL, &x, &err) < 0 && !x.reserved
        && strstr (err.text, "out of range"), "a negative delay is refused: %s", err.text);
    ok (jt_sched_restart (&req, "7", INT64_C (1) << 31, NULL, &x, &err) < 0,
        "a delay past 2^30 s is refused (no overflow)");
    ok (jt_sched_restart (&req, NULL, 0, NULL, &x, &err) < 0, "a run without a name is refused");
    jt_run_destroy (r);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

static void test_nominated (void)
{
    static const struct {
        const char *name, *self;
        int64_t end;
        bool want;
    } rows[] = {
        { "a job ending after the start keeps off", "8", 2000, true },
        { "a job ending exactly at the start may use it", "8", 1000, false },
        { "a job ending before the start may use it", "8", 999, false },
        { "a job of unknown end keeps off", "8", 0, true },
        { "a job that is no run, ending after: keeps off", NULL, 1001, true },
        { "a job that is no run, ending before: may use it", NULL, 10, false },
        { "the run the slice is held for may always", "7", 0, false },
    };
    for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++)
        ok (jt_sched_nominated ("7", 1000, rows[i].self, rows[i].end) == rows[i].want,
            "nominated: %s", rows[i].name);
}

/* Where a run waiting on its held restart slice is planned
 * (jt_restart_where): on the slice when it binds or estimates there;
 * refused there, it waits for the slice while every node of it is up and
 * the grace after its start has not passed, and is planned anywhere only
 * once the slice is lost. */
static void test_where (void)
{
    jt_snapshot_t *s = fx_cluster ("w01-w04 region=west,fabric.domain=A");
    const char *slice[] = { "w01", "w02" }, *gone[] = { "w01", "x99" };
    const int64_t start = 1000;
    static const struct {
        const char *name;
        int down;                       /* index of a node set down, or -1 */
        int drain;
        bool gone;
        int64_t now;
        jt_answer_kind_t on_slice;
        jt_restart_where_t want;
    } rows[] = {
        { "binds on its slice", -1, -1, false, 1000, JT_ANSWER_BIND, JT_RESTART_SLICE },
        { "an estimate on its slice is the answer", -1, -1, false, 900,
          JT_ANSWER_ESTIMATE, JT_RESTART_SLICE },
        { "refused on its slice (completing): waits for it, binds nowhere else", -1, -1,
          false, 1000, JT_ANSWER_REFUSE, JT_RESTART_WAIT },
        { "refused before its start: waits", -1, -1, false, 10, JT_ANSWER_REFUSE,
          JT_RESTART_WAIT },
        { "still waits just inside the grace", -1, -1, false,
          1000 + JT_RESTART_GRACE - 1, JT_ANSWER_REFUSE, JT_RESTART_WAIT },
        { "the grace past: the slice is lost", -1, -1, false, 1000 + JT_RESTART_GRACE,
          JT_ANSWER_REFUSE, JT_RESTART_LOST },
        { "a node of the slice down: lost", 1, -1, false, 1000, JT_ANSWER_REFUSE,
          JT_RESTART_LOST },
        { "a node of the slice drained: lost", -1, 0, false, 1000, JT_ANSWER_REFUSE,
          JT_RESTART_LOST },
        { "a node off the slice down: still waits", 3, -1, false, 1000, JT_ANSWER_REFUSE,
          JT_RESTART_WAIT },
        { "a node of the slice gone from the snapshot: lost", -1, -1, true, 1000,
          JT_ANSWER_REFUSE, JT_RESTART_LOST },
        { "deferred on its slice is no answer there: waits", -1, -1, false, 1000,
          JT_ANSWER_DEFER, JT_RESTART_WAIT },
    };
    for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++) {
        for (size_t k = 0; k < s->nnodes; k++)
            s->nodes[k].state = (int) k == rows[i].down ? JT_NODE_DOWN
                                : (int) k == rows[i].drain ? JT_NODE_DRAIN : JT_NODE_UP;
        is (jt_restart_where_str (jt_restart_where (s, rows[i].gone ? gone : slice, 2,
                                                    start, rows[i].now, rows[i].on_slice)),
            jt_restart_where_str (rows[i].want), "where: %s", rows[i].name);
    }
    is (jt_restart_where_str (jt_restart_where (s, slice, 0, start, 0, JT_ANSWER_REFUSE)),
        "lost", "where: an empty slice holds nothing");
    is (jt_restart_where_str (jt_restart_where (s, slice, 2, INT64_MAX, 0, JT_ANSWER_REFUSE)),
        "lost", "where: a start past the range holds nothing (no overflow)");
    jt_snapshot_destroy (s);
}

/* A grow's restart is held on the run's nodes and its new groups'. */
static void test_grow_slice (void)
{
    jt_budgets_t *b = fx_budgets (RAI (256), FX_END);
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_run_t *r = fx_run ("{ \"owner\": \"rai\", \"resources\": { \"gpuType\": \"h100\","
                          " \"totalGPUs\": 32 }, \"locality\": { \"groupGPUs\": 16 },"
                          " \"malleable\": { \"minTotalGPUs\": 16, \"maxTotalGPUs\": 32,"
                          " \"stepGPUs\": 16 }" CKPT " }");
    jt_grow_in_t in = { .run = r, .current_gpus = 16, .current_domain = -1,
                        .start = now0 - 600, .now = now0, .slack = 10,
                        .policy = JT_PACK_BEST_FIT };
    jt_grow_t g;
    jt_error_t err;
    bool el[8];
    char names[128] = "";

    fx_nodes (s, "a", 1, 4, "region=west,fabric.domain=A", 8, 2);
    fx_nodes (s, "b", 1, 4, "region=west,fabric.domain=B", 8, 0);
    lease (s, "7", "a01 a02", JT_ROLE_ACTIVE, 3600);
    fx_finalize (s);
    if (jt_elastic_grow (b, s, &in, &g, &err) < 0)
        bail_out ("grow: %s", err.text);
    is_int ((int64_t) jt_elastic_slice (&g, s, "7", el), 4,
            "a grow's slice: the run's two nodes and its new group's two");
    for (size_t k = 0; k < 8; k++)
        if (el[k])
            snprintf (names + strlen (names), sizeof (names) - strlen (names), "%s%s",
                      names[0] ? " " : "", s->nodes[k].name);
    is (names, "a01 a02 a03 a04", "best-fit grew it into A: its nodes and a03 a04");
    {
        jt_run_t *x = r;
        jt_sched_request_t req = { .budgets = b, .snap = s, .run = x, .now = now0,
                                   .eligible = el, .opts = { .policy = JT_PACK_BEST_FIT } };
        jt_restart_t rs;
        if (jt_sched_restart (&req, "7", DELAY, NULL, &rs, &err) < 0)
            bail_out ("restart: %s", err.text);
        ok (rs.reserved && rs.start == now0 + DELAY && rs.slice.nnodes == 4
            && rs.plan.total_gpus == 32,
            "the restart is reserved there at its full 32 GPUs after the delay: %s",
            rs.reserved ? rs.line : rs.detail);
        jt_restart_free (&rs);
    }
    g.verdict = JT_GROW_NO;
    is_int ((int64_t) jt_elastic_slice (&g, s, "7", el), 0, "no grow, no slice");
    jt_grow_free (&g);
    jt_run_destroy (r);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

int main (void)
{
    now0 = fx_time (FX_NOW);
    test_restart ();
    test_restored ();
    test_bad ();
    test_nominated ();
    test_where ();
    test_grow_slice ();
    done_testing ();
}
