/*
 * pack_views.c - Pack's warm views (jobtree/pack.h, jt_pack_views_t): a
 * plan on a kept view, brought up to date by jt_pack_views_sync, decides
 * exactly what a plan on a fresh view decides, step after step of nodes
 * filling, freeing, going down and coming back, for every kind of run
 * (constraints, group-by, spread off, spares, malleable); and the views are
 * in fact reused, dropped when a new snapshot comes, a view that comes
 * back dirty is never reused, and the flavor facts follow the nodes.
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

#include "jobtree/pack.h"
#include "jobtree/plan.h"
#include "jobtree/schedule.h"
#include "fixtures.h"
#include "tap.h"

/* Runs beyond fx_random_run's: labels, constraints, spares, malleable. */
static jt_run_t *some_run (int k)
{
    char doc[768];
    const char *loc[] = {
        "\"groupGPUs\": 16, \"allowCrossGroupSpread\": false",
        "\"groupGPUs\": 16, \"groupBy\": \"rack\"",
        "\"groupGPUs\": 8, \"groupBy\": \"region\", \"allowCrossGroupSpread\": false",
        "\"groupGPUs\": 16",
        "\"groupGPUs\": 24",
    };

    if (k % 7 == 5)
        return fx_random_run ();
    if (k % 7 == 6) {
        snprintf (doc, sizeof (doc),
                  "{ \"owner\": \"org\", \"resources\": { \"gpuType\": \"h100\","
                  " \"totalGPUs\": 8 }, \"malleable\": { \"minTotalGPUs\": 8,"
                  " \"maxTotalGPUs\": %d, \"stepGPUs\": 8 },"
                  " \"locality\": { \"groupGPUs\": 8 } }", 16 + 8 * fx_pick (8));
        return fx_run (doc);
    }
    snprintf (doc, sizeof (doc),
              "{ \"owner\": \"%s\", \"resources\": { \"gpuType\": \"h100\","
              " \"totalGPUs\": %d }, \"locality\": { %s }%s%s }",
              fx_pick (2) ? "org" : "alpha", 16 * (1 + fx_pick (3)), loc[k % 5],
              k % 5 == 3 ? ", \"sparesPerGroup\": 1" : "",
              fx_pick (3) == 0 ? ", \"nodeConstraints\": [\"gpu.mem GE 80\"]" : "");
    return fx_run (doc);
}

/* A cluster of 3-6 domains of 2-9 nodes, racks, two memory sizes, a few
 * nodes of 4 GPUs; some busy, some down. */
static jt_snapshot_t *cluster (bool conformance)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    int nd = 3 + fx_pick (4);
    jt_error_t err;

    for (int d = 0; d < nd; d++) {
        int n = 2 + fx_pick (8);
        for (int i = 0; i < n; i++) {
            jt_labels_t l = JT_LABELS_INIT;
            char name[32], v[32];
            int g = fx_pick (8) == 0 ? 4 : 8;
            snprintf (v, sizeof (v), "D%d", d);
            jt_labels_set (&l, "fabric.domain", v);
            jt_labels_set (&l, "region", d % 2 ? "east" : "west");
            snprintf (v, sizeof (v), "r%d", i / 3);
            jt_labels_set (&l, "rack", v);
            jt_labels_set (&l, "gpu.mem", fx_pick (2) ? "80" : "40");
            if (conformance && fx_pick (2)) {
                snprintf (v, sizeof (v), "fp%d", fx_pick (2));
                jt_labels_set (&l, "conformance", v);
            }
            snprintf (name, sizeof (name), "n%d-%02d", d, i);
            if (jt_snapshot_add_node (s, name, &l, "h100", g,
                                      fx_pick (3) == 0 ? g : 0,
                                      fx_pick (10) == 0 ? JT_NODE_DOWN : JT_NODE_UP,
                                      &err) < 0)
                bail_out ("node %s: %s", name, err.text);
            jt_labels_free (&l);
        }
    }
    return fx_finalize (s);
}

/* Change a few nodes in place, as slurmctld's events do. */
static void churn (jt_snapshot_t *s)
{
    int n = 1 + fx_pick (4);

    for (int i = 0; i < n; i++) {
        jt_node_t *nd = &s->nodes[fx_pick ((int) s->nnodes)];
        switch (fx_pick (4)) {
        case 0: nd->used_gpus = nd->gpus; break;
        case 1: nd->used_gpus = 0; break;
        case 2: nd->used_gpus = nd->gpus / 2; break;
        default:
            nd->state = nd->state == JT_NODE_UP ? JT_NODE_DOWN : JT_NODE_UP;
        }
    }
}

/* The plan's dump and residuals as one string. */
static char *plan_text (const jt_budgets_t *b, const jt_snapshot_t *s,
                        const jt_run_t *r, jt_pack_views_t *views,
                        jt_pack_policy_t pol)
{
    jt_plan_opts_t o = { .policy = pol, .views = views };
    jt_plan_t p;
    jt_error_t err;
    char *d, *out;
    size_t len;

    if (jt_plan_run (b, s, NULL, r, fx_time (FX_NOW), &o, &p, &err) < 0)
        return strdup (err.text);
    d = jt_plan_dump (&p, s);
    len = strlen (d) + 16 * (p.ndomains + 1);
    out = malloc (len);
    size_t at = (size_t) snprintf (out, len, "%s |", d);
    for (size_t i = 0; i < p.ndomains; i++)
        at += (size_t) snprintf (out + at, len - at, " %lld",
                                 (long long) p.residual[i]);
    free (d);
    jt_plan_free (&p);
    return out;
}

/* Warm against fresh over many steps; returns the differences. */
static int walk (uint64_t seed, bool conformance, bool check,
                 jt_pack_views_stats_t *st)
{
    jt_budgets_t *b;
    jt_snapshot_t *s;
    jt_pack_views_t *v = jt_pack_views_create ();
    jt_run_t *runs[7];
    jt_error_t err;
    int bad = 0;

    fx_seed (seed);
    b = fx_random_budgets ();
    s = cluster (conformance);
    for (int k = 0; k < 7; k++)
        runs[k] = some_run (k);
    jt_pack_views_check (v, check);
    for (int step = 0; step < 40; step++) {
        jt_run_t *r = runs[fx_pick (7)];
        jt_pack_policy_t pol = fx_pick (2) ? JT_PACK_BEST_FIT : JT_PACK_TO_EMPTY;
        if (jt_pack_views_sync (v, s, &err) < 0)
            bail_out ("sync: %s", err.text);
        char *warm = plan_text (b, s, r, v, pol);
        char *fresh = plan_text (b, s, r, NULL, pol);
        if (strcmp (warm, fresh) != 0) {
            if (bad++ == 0)
                diag ("seed %llu step %d:\n  warm  %s\n  fresh %s",
                      (unsigned long long) seed, step, warm, fresh);
        }
        /* the flavor facts too */
        bool has;
        int g = jt_pack_views_gpus_per_node (v, s, "h100", &has);
        if (g != jt_snapshot_gpus_per_node (s, "h100") || !has) {
            if (bad++ == 0)
                diag ("seed %llu step %d: %d GPUs per node from the views, %d "
                      "from a pass", (unsigned long long) seed, step, g,
                      jt_snapshot_gpus_per_node (s, "h100"));
        }
        free (warm);
        free (fresh);
        churn (s);
    }
    jt_pack_views_stats (v, st);
    for (int k = 0; k < 7; k++)
        jt_run_destroy (runs[k]);
    jt_pack_views_destroy (v);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
    return bad;
}

static void test_property (void)
{
    jt_pack_views_stats_t st, sum = { 0 };
    int bad = 0, badc = 0, badf = 0;

    for (uint64_t seed = 1; seed <= 150; seed++) {
        bad += walk (seed, false, false, &st);
        sum.hits += st.hits;
        sum.builds += st.builds;
        sum.synced_nodes += st.synced_nodes;
        badf += walk (seed, true, false, &st);
        badc += walk (seed, seed % 2, true, &st);
        sum.mismatches += st.mismatches;
    }
    ok (bad == 0, "150 clusters x 40 steps: a plan on a synced warm view "
        "decides what a plan on a fresh view decides (%d differ)", bad);
    ok (badf == 0, "... also with conformance fingerprints (views not kept)"
        " (%d differ)", badf);
    ok (badc == 0 && sum.mismatches == 0, "... and the check finds every kept"
        " view equal to a fresh build (%d differ, %llu mismatches)", badc,
        (unsigned long long) sum.mismatches);
    ok (sum.hits > 2 * sum.builds && sum.synced_nodes > 0,
        "views are reused (%llu hits, %llu builds) and follow the nodes "
        "(%llu node changes)", (unsigned long long) sum.hits,
        (unsigned long long) sum.builds, (unsigned long long) sum.synced_nodes);
}

/* A warm view handed out twice in a row is the same (kept) one; a new
 * snapshot drops it; without a sync the plan builds its own. */
static void test_lifecycle (void)
{
    jt_budgets_t *b;
    jt_snapshot_t *s, *s2;
    jt_pack_views_t *v = jt_pack_views_create ();
    jt_pack_views_stats_t st;
    jt_run_t *r;
    jt_error_t err;
    jt_pack_view_t *a, *a2;
    bool owned;

    fx_seed (7);
    b = fx_random_budgets ();
    s = cluster (false);
    r = some_run (4);
    a = jt_pack_views_get (v, s, r, &owned, &err);
    ok (a && owned, "before any sync: a fresh view, the caller's");
    jt_pack_view_destroy (a);
    jt_pack_views_sync (v, s, &err);
    a = jt_pack_views_get (v, s, r, &owned, &err);
    ok (a && !owned, "after a sync: a kept view");
    a2 = jt_pack_views_get (v, s, r, &owned, &err);
    ok (a2 && a2 != a && !owned, "a kept view already out is not handed "
        "out twice: another is built (and kept)");
    jt_pack_views_put (v, a2);
    jt_pack_views_put (v, a);
    a2 = jt_pack_views_get (v, s, r, &owned, &err);
    ok (a2 == a && !owned, "put back clean, it is handed out again");
    /* a placement not given back: the view is dropped, not reused */
    {
        int64_t g = 8;
        jt_pack_request_t req = { .groups = &g, .ngroups = 1, .only_domain = -1 };
        jt_placement_t p;
        int rc = jt_pack (a2, &req, &p, &err);
        jt_pack_views_put (v, a2);
        jt_placement_free (&p);
        jt_pack_views_stats (v, &st);
        ok (rc == 0 && st.dropped == 1, "a view put back with a node still "
            "placed is dropped (dropped %llu)", (unsigned long long) st.dropped);
    }
    a = jt_pack_views_get (v, s, r, &owned, &err);
    jt_pack_views_stats (v, &st);
    ok (a && !owned && st.builds == 2 && st.hits == 2, "... the other kept "
        "one is handed out instead (%llu builds)",
        (unsigned long long) st.builds);
    jt_pack_views_put (v, a);
    /* the same node count, another snapshot: everything dropped */
    fx_seed (7);
    jt_budgets_destroy (fx_random_budgets ());
    s2 = cluster (false);
    ok (s2->nnodes == s->nnodes && s2->serial != s->serial,
        "a second snapshot of the same nodes has its own serial");
    a = jt_pack_views_get (v, s2, r, &owned, &err);
    ok (a && owned, "views synced with another snapshot are not used");
    jt_pack_view_destroy (a);
    ok (jt_pack_views_gpus_per_node (v, s2, "h100", NULL) == -1,
        "nor are its flavor facts");
    jt_pack_views_sync (v, s2, &err);
    a = jt_pack_views_get (v, s2, r, &owned, &err);
    jt_pack_views_stats (v, &st);
    ok (a && !owned && st.builds == 3, "synced with it: a view of it, built"
        " (%llu builds)", (unsigned long long) st.builds);
    jt_pack_views_put (v, a);
    /* every node of 8 GPUs down: 4 per node from the counts */
    for (size_t k = 0; k < s2->nnodes; k++)
        if (s2->nodes[k].gpus == 8)
            s2->nodes[k].state = JT_NODE_DOWN;
    jt_pack_views_sync (v, s2, &err);
    ok (jt_pack_views_gpus_per_node (v, s2, "h100", NULL)
        == jt_snapshot_gpus_per_node (s2, "h100"),
        "GPUs per node follow nodes going down (%d)",
        jt_snapshot_gpus_per_node (s2, "h100"));
    bool has = true;
    ok (jt_pack_views_gpus_per_node (v, s2, "a100", &has) == 0 && !has,
        "a flavor with no node: 0 GPUs per node, no nodes");
    jt_run_destroy (r);
    jt_pack_views_destroy (v);
    jt_snapshot_destroy (s);
    jt_snapshot_destroy (s2);
    jt_budgets_destroy (b);
}

/* jt_sched_answer with warm views in opts answers as without, whatever
 * the caller's node set (it changes from call to call in backfill). */
static void test_answer (void)
{
    int bad = 0;
    jt_pack_views_stats_t st = { 0 };

    for (uint64_t seed = 1; seed <= 60; seed++) {
        jt_budgets_t *b;
        jt_snapshot_t *s;
        jt_pack_views_t *v = jt_pack_views_create ();
        jt_error_t err;

        fx_seed (1000 + seed);
        b = fx_random_budgets ();
        s = cluster (false);
        bool *el = calloc (s->nnodes, sizeof (*el));
        for (int step = 0; step < 30; step++) {
            jt_run_t *r = some_run (fx_pick (7));
            jt_sched_request_t q = {
                .budgets = b, .snap = s, .eligible = el, .run = r,
                .now = fx_time (FX_NOW),
                .tense = fx_pick (3) == 0 ? JT_TENSE_ESTIMATE : JT_TENSE_NOW,
                .max_nodes = JT_SCHED_NODES_ANY,
                .opts = { JT_PACK_BEST_FIT, NULL },
            };
            jt_answer_t a1, a2;
            for (size_t k = 0; k < s->nnodes; k++)
                el[k] = fx_pick (5) != 0;
            int rc1 = jt_sched_answer (&q, &a1, &err);
            q.opts.views = v;
            int rc2 = jt_sched_answer (&q, &a2, &err);
            char *d1 = rc1 == 0 ? jt_plan_dump (&a1.plan, s) : strdup ("error");
            char *d2 = rc2 == 0 ? jt_plan_dump (&a2.plan, s) : strdup ("error");
            if (rc1 != rc2 || strcmp (d1, d2) != 0
                || (rc1 == 0 && (a1.kind != a2.kind || strcmp (a1.reason, a2.reason)))) {
                if (bad++ == 0)
                    diag ("seed %llu step %d:\n  fresh %s\n  warm  %s",
                          (unsigned long long) seed, step, d1, d2);
            }
            free (d1);
            free (d2);
            if (rc1 == 0)
                jt_answer_free (&a1);
            if (rc2 == 0)
                jt_answer_free (&a2);
            jt_run_destroy (r);
            churn (s);
        }
        jt_pack_views_stats_t one;
        jt_pack_views_stats (v, &one);
        st.hits += one.hits;
        free (el);
        jt_pack_views_destroy (v);
        jt_snapshot_destroy (s);
        jt_budgets_destroy (b);
    }
    ok (bad == 0 && st.hits > 0, "jt_sched_answer (NOW, ESTIMATE) with warm "
        "views answers as without, the caller's node set changing every call "
        "(%d differ, %llu hits)", bad, (unsigned long long) st.hits);
}

int main (void)
{
    test_property ();
    test_lifecycle ();
    test_answer ();
    return done_testing ();
}
