/*
 * bench_plan.c - latency of the pack view build and of Pack (and of Cover)
 * on generated clusters of 1k, 16k and 64k nodes, against a baseline of
 * one linear pass over all nodes. Built and run by `make bench`; never part
 * of `make check`. See contrib/bench/README.md for the results.
 *
 * Clusters: 8-GPU h100 nodes, 32 per fast-fabric domain, half of them busy
 * (chosen with a fixed splitmix64 seed). Runs: 8 GPUs (one 8-GPU group),
 * 256 and 4,096 GPUs (groups of 64). Cover uses one budget whose single
 * envelope (selector region=west, every node) has concurrency to spare, no
 * usage; Plan is the whole admission decision (view build + Cover + Pack).
 *
 * The snapshot itself (issue 12): a rebuild from Slurm-like node values
 * (features text parsed into labels, GRES text, finalize: what the select
 * plugin did after every job start or end) against the refresh in place
 * that replaced it (jt_nodemap_refresh of every node's state and GPUs
 * allocated: what it does now when a node's state may have changed).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobtree/budget.h"
#include "jobtree/cover.h"
#include "jobtree/nodemap.h"
#include "jobtree/pack.h"
#include "jobtree/plan.h"
#include "jobtree/run.h"
#include "prng.h"           /* tests/tap: the tests' splitmix64 */

static uint64_t rng_state;

static double now_us (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

static int dbl_cmp (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

struct stat {
    double med, p99;
};

static struct stat stats (double *v, int n)
{
    struct stat s;

    qsort (v, (size_t) n, sizeof (double), dbl_cmp);
    s.med = v[n / 2];
    s.p99 = v[(int) ((n - 1) * 0.99)];
    return s;
}

/* Print a row of the table: nodes, what, the median and p99 of the reps
 * times in t, and the median over *base (the linear pass's median; NULL
 * for the linear pass itself: 1). Returns the median. */
static double row (int nodes, const char *what, double *t, int reps,
                   const double *base)
{
    struct stat st = stats (t, reps);

    printf ("%-7d %-38s %10.2f %10.2f %9.2f\n", nodes, what, st.med, st.p99,
            base ? st.med / *base : 1.0);
    return st.med;
}

static jt_snapshot_t *make_cluster (int nnodes)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    unsigned char *busy = calloc ((size_t) nnodes, 1);
    int *perm = malloc ((size_t) nnodes * sizeof (int));
    jt_error_t err;
    char name[32], dom[32], rack[16];

    rng_state = 20260301;
    for (int i = 0; i < nnodes; i++)
        perm[i] = i;
    for (int i = nnodes - 1; i > 0; i--) {
        int j = prng_below (&rng_state, i + 1);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < nnodes / 2; i++)
        busy[perm[i]] = 1;
    for (int i = 0; i < nnodes; i++) {
        jt_labels_t l = JT_LABELS_INIT;
        snprintf (name, sizeof (name), "gpu%05d", i);
        snprintf (dom, sizeof (dom), "D%04d", i / 32);
        jt_labels_set (&l, JT_LABEL_REGION, "west");
        jt_labels_set (&l, JT_LABEL_CLUSTER, "c1");
        jt_labels_set (&l, JT_LABEL_FABRIC, dom);
        /* four racks of 8 per domain, gpu.mem 80 on every other node: what
         * the view build of a --group-by / --node-constraint run reads */
        snprintf (rack, sizeof (rack), "r%d", (i / 8) % 4);
        jt_labels_set (&l, JT_LABEL_RACK, rack);
        jt_labels_set (&l, "gpu.mem", i % 2 ? "80" : "40");
        if (jt_snapshot_add_node (s, name, &l, "h100", 8, busy[i] ? 8 : 0,
                                  JT_NODE_UP, &err) < 0) {
            fprintf (stderr, "add: %s\n", err.text);
            exit (1);
        }
        jt_labels_free (&l);
    }
    if (jt_snapshot_finalize (s, &err) < 0) {
        fprintf (stderr, "finalize: %s\n", err.text);
        exit (1);
    }
    free (perm);
    free (busy);
    return s;
}

/* The baseline: one pass over every node doing what any per-node scan must
 * (state, usage and flavor checks), summing the free GPUs. */
static volatile int64_t sink;

static void baseline_pass (const jt_snapshot_t *s)
{
    int64_t f = 0;

    for (size_t i = 0; i < s->nnodes; i++) {
        const jt_node_t *n = &s->nodes[i];
        if (n->state == JT_NODE_UP && n->used_gpus == 0 && n->flavor
            && strcmp (n->flavor, "h100") == 0)
            f += n->gpus;
    }
    sink = f;
}

/* The select plugin's two ways to bring the snapshot up to date after a
 * job started or ended, on nnodes Slurm-like nodes (half allocated): a
 * rebuild (jt_nodemap_add of every node + finalize) and a refresh in place
 * (jt_nodemap_refresh of every node). Rows printed; reps is cut for the
 * rebuild (it is the slow one). */
static void snapshot_update_rows (int nnodes, int reps, double *t,
                                  const double *base)
{
    char (*name)[16] = malloc ((size_t) nnodes * sizeof (*name));
    char (*feat)[64] = malloc ((size_t) nnodes * sizeof (*feat));
    unsigned *flags = malloc ((size_t) nnodes * sizeof (*flags));
    int rreps = reps / 10 < 10 ? 10 : reps / 10;
    jt_snapshot_t *live = NULL;
    jt_error_t err;

    for (int i = 0; i < nnodes; i++) {
        snprintf (name[i], sizeof (name[i]), "n%05d", i);
        snprintf (feat[i], sizeof (feat[i]), "region=west,cluster=c1,"
                  "fabric.domain=D%04d,rack=r%d", i / 32, (i / 8) % 4);
        flags[i] = i % 2 ? JT_NODEMAP_ALLOCATED : 0;
    }
    for (int r = 0; r < rreps; r++) {
        double t0 = now_us ();
        jt_snapshot_t *s = jt_snapshot_create ();
        for (int i = 0; i < nnodes; i++) {
            jt_nodemap_node_t n = { .name = name[i], .features = feat[i],
                                    .gres = "gpu:h100:8", .flags = flags[i] };
            if (jt_nodemap_add (s, &n, NULL, &err) < 0) {
                fprintf (stderr, "nodemap: %s\n", err.text);
                exit (1);
            }
        }
        if (jt_snapshot_finalize (s, &err) < 0) {
            fprintf (stderr, "finalize: %s\n", err.text);
            exit (1);
        }
        t[r] = now_us () - t0;
        if (live)
            jt_snapshot_destroy (s);
        else
            live = s;
    }
    row (nnodes, "snapshot rebuild (nodemap, finalize)", t, rreps, base);
    for (int r = 0; r < reps; r++) {
        double t0 = now_us ();
        for (size_t k = 0; k < live->nnodes; k++)
            jt_nodemap_refresh (&live->nodes[k], flags[k] ^ (r % 2 ? JT_NODEMAP_ALLOCATED : 0),
                                0, &err);
        t[r] = now_us () - t0;
    }
    row (nnodes, "snapshot refresh in place (all nodes)", t, reps, base);
    jt_snapshot_destroy (live);
    free (name);
    free (feat);
    free (flags);
}

/* 2026-03-01T12:00:00Z, inside the envelope's window */
#define BENCH_NOW 1772366400

static const char budget_json[] =
    "{ \"owner\": \"bench\", \"envelopes\": [ { \"name\": \"west-h100\", "
    "\"flavor\": \"h100\", \"selector\": { \"region\": \"west\" }, "
    "\"start\": \"2026-01-01T00:00:00Z\", \"end\": \"2027-01-01T00:00:00Z\", "
    "\"concurrency\": 100000 } ] }";

static jt_budgets_t *make_budgets (void)
{
    jt_budgets_t *b = jt_budgets_create ();
    jt_diags_t d;

    jt_diags_init (&d);
    if (!b || jt_budgets_add_json (b, "bench.json", budget_json,
                                   sizeof (budget_json) - 1, &d) < 0
        || jt_budgets_finalize (b, &d) < 0) {
        char buf[512];
        for (size_t i = 0; i < d.n; i++) {
            jt_diag_format (&d.v[i], buf, sizeof (buf));
            fprintf (stderr, "%s\n", buf);
        }
        exit (1);
    }
    jt_diags_free (&d);
    return b;
}

static jt_run_t *make_run (int64_t total, int64_t group)
{
    jt_run_t *r = jt_run_create ();

    r->id = strdup ("bench:1");
    r->owner = strdup ("bench");
    r->flavor = strdup ("h100");
    r->total_gpus = total;
    r->group_gpus = group;
    return r;
}

struct run {
    const char *name;
    int64_t total;
    int64_t group;
};

static const struct run runs[] = {
    { "8 GPUs (1x8)", 8, 8 },
    { "256 GPUs (4x64)", 256, 64 },
    { "4096 GPUs (64x64)", 4096, 64 },
};
#define NRUNS (sizeof (runs) / sizeof (runs[0]))

/* reps plans of run, each timed into t[]: with views (warm) or without
 * (the view built per call). *not_bound (may be NULL): the last one was
 * not BindNow. -1 (said on stderr) when a plan fails. */
static int time_plans (const jt_budgets_t *b, const jt_snapshot_t *s,
                       const jt_usage_t *u, const jt_run_t *run,
                       jt_pack_views_t *views, double *t, int reps,
                       int *not_bound)
{
    jt_plan_opts_t opts = { .policy = JT_PACK_TO_EMPTY, .views = views };
    jt_error_t err;

    for (int r = 0; r < reps; r++) {
        jt_plan_t pl;
        double t0 = now_us ();
        int rc = jt_plan_run (b, s, u, run, BENCH_NOW, &opts, &pl, &err);
        t[r] = now_us () - t0;
        if (rc < 0) {
            fprintf (stderr, "plan: %s\n", err.text);
            return -1;
        }
        if (not_bound)
            *not_bound = pl.decision != JT_BIND_NOW;
        jt_plan_free (&pl);
    }
    return 0;
}

int main (int argc, char **argv)
{
    static const int sizes[] = { 1024, 16384, 65536 };
    int reps = argc > 1 ? atoi (argv[1]) : 200;
    double base_med[3], pack_med[3][NRUNS], view_med[3];
    double cover_med[3][NRUNS], plan_med[3][NRUNS], warm_med[3][NRUNS];
    jt_budgets_t *budgets = make_budgets ();
    jt_usage_t usage;

    if (jt_usage_init (&usage, budgets) < 0) {
        fprintf (stderr, "usage: out of memory\n");
        return 1;
    }

    if (reps < 10)
        reps = 10;
    double *t = malloc ((size_t) reps * sizeof (double));
    printf ("bench_plan: %d repetitions per figure, times in microseconds "
            "(median / p99), x = ratio of the median to one linear pass "
            "over all nodes\n\n", reps);
    printf ("%-7s %-38s %10s %10s %9s\n", "nodes", "what", "median", "p99",
            "x pass");
    for (int si = 0; si < 3; si++) {
        jt_snapshot_t *s = make_cluster (sizes[si]);
        jt_error_t err;

        for (int r = 0; r < reps; r++) {
            double t0 = now_us ();
            baseline_pass (s);
            t[r] = now_us () - t0;
        }
        base_med[si] = row (sizes[si], "linear pass (baseline)", t, reps, NULL);
        snapshot_update_rows (sizes[si], reps, t, &base_med[si]);

        for (int r = 0; r < reps; r++) {
            double t0 = now_us ();
            jt_pack_view_t *v = jt_pack_view_create (s, "h100", &err);
            t[r] = now_us () - t0;
            if (!v) {
                fprintf (stderr, "view: %s\n", err.text);
                return 1;
            }
            jt_pack_view_destroy (v);
        }
        view_med[si] = row (sizes[si], "view build", t, reps, &base_med[si]);
        /* the view of a run with labels (issue 14) */
        for (int k = 0; k < 2; k++) {
            jt_run_t lr;
            jt_run_init (&lr);
            lr.flavor = strdup ("h100");
            if (k == 0)
                lr.group_by = strdup (JT_LABEL_RACK);
            else
                jt_constraints_add (&lr.constraints, "gpu.mem GE 80", &err);
            for (int r = 0; r < reps; r++) {
                double t0 = now_us ();
                jt_pack_view_t *lv = jt_pack_view_create_run (s, &lr, &err);
                t[r] = now_us () - t0;
                if (!lv) {
                    fprintf (stderr, "view: %s\n", err.text);
                    return 1;
                }
                jt_pack_view_destroy (lv);
            }
            row (sizes[si], k == 0 ? "view build, --group-by=rack"
                                   : "view build, gpu.mem GE 80", t, reps,
                 &base_med[si]);
            jt_run_clear (&lr);
        }

        jt_pack_views_t *views = jt_pack_views_create ();
        if (!views || jt_pack_views_sync (views, s, &err) < 0) {
            fprintf (stderr, "views: out of memory\n");
            return 1;
        }
        jt_pack_view_t *v = jt_pack_view_create (s, "h100", &err);
        for (size_t ri = 0; ri < NRUNS; ri++) {
            int64_t groups[128];
            size_t ng = 0;
            for (int64_t left = runs[ri].total; left > 0; left -= runs[ri].group)
                groups[ng++] = left < runs[ri].group ? left : runs[ri].group;
            jt_pack_request_t req = { .groups = groups, .ngroups = ng,
                                      .only_domain = -1,
                                      .policy = JT_PACK_TO_EMPTY };
            char what[64];
            int last = 0;
            for (int r = 0; r < reps; r++) {
                jt_placement_t p;
                double t0 = now_us ();
                int rc = jt_pack (v, &req, &p, &err);
                t[r] = now_us () - t0;
                if (rc < 0) {
                    fprintf (stderr, "pack %s on %d nodes: %s\n",
                             runs[ri].name, sizes[si], err.text);
                    return 1;
                }
                last = rc;
                jt_pack_unplace (v, &p);
                jt_placement_free (&p);
            }
            /* a run larger than the free domains can hold is a None:
             * timed all the same (it includes giving the groups back) */
            snprintf (what, sizeof (what), "Pack %s%s", runs[ri].name,
                      last ? " None" : "");
            pack_med[si][ri] = row (sizes[si], what, t, reps, &base_med[si]);
        }
        for (size_t ri = 0; ri < NRUNS; ri++) {
            jt_run_t *run = make_run (runs[ri].total, runs[ri].group);
            jt_groups_t g;
            char what[64];
            int last = 0;
            if (jt_run_compile (run, run->total_gpus, &g, &err) < 0) {
                fprintf (stderr, "compile: %s\n", err.text);
                return 1;
            }
            for (int r = 0; r < reps; r++) {
                jt_cover_t c;
                double t0 = now_us ();
                int rc = jt_cover (budgets, &usage, run, &g, BENCH_NOW, &c, &err);
                t[r] = now_us () - t0;
                if (rc != 0) {
                    fprintf (stderr, "cover %s: rc %d %s\n", runs[ri].name, rc,
                             rc < 0 ? err.text : c.detail);
                    return 1;
                }
                jt_cover_free (&c);
            }
            snprintf (what, sizeof (what), "Cover %s", runs[ri].name);
            cover_med[si][ri] = row (sizes[si], what, t, reps, &base_med[si]);
            if (time_plans (budgets, s, &usage, run, NULL, t, reps, &last) < 0)
                return 1;
            snprintf (what, sizeof (what), "Plan %s%s", runs[ri].name,
                      last ? " (not BindNow)" : "");
            plan_med[si][ri] = row (sizes[si], what, t, reps, &base_med[si]);
            /* the same decision on a warm view (jt_pack_views_t): what
             * slurmctld's job_test does once the view is kept; the sync
             * that keeps it current is timed on its own below */
            if (time_plans (budgets, s, &usage, run, views, t, reps, NULL) < 0)
                return 1;
            snprintf (what, sizeof (what), "Plan %s, warm view", runs[ri].name);
            warm_med[si][ri] = row (sizes[si], what, t, reps, &base_med[si]);
            jt_groups_free (&g);
            jt_run_destroy (run);
        }
        /* the way Plan asks: one request per group, order held */
        {
            int64_t groups[64];
            jt_placement_t p[64];
            int n = 0;
            for (int i = 0; i < 64; i++)
                groups[i] = 64;
            for (int r = 0; r < reps; r++) {
                double t0 = now_us ();
                jt_pack_view_hold_order (v, true);
                for (n = 0; n < 64; n++) {
                    jt_pack_request_t req = { .groups = &groups[n], .ngroups = 1,
                                              .only_domain = -1,
                                              .policy = JT_PACK_TO_EMPTY };
                    if (jt_pack (v, &req, &p[n], &err) != 0)
                        break;
                }
                jt_pack_view_hold_order (v, false);
                t[r] = now_us () - t0;
                for (int i = 0; i < n; i++) {
                    jt_pack_unplace (v, &p[i]);
                    jt_placement_free (&p[i]);
                }
                if (n < 64)
                    jt_placement_free (&p[n]);
            }
            row (sizes[si], n < 64 ? "Pack 64x64 one group per request None"
                                   : "Pack 64x64 one group per request",
                 t, reps, &base_med[si]);
        }
        /* what keeps the warm views current: a sync with nothing changed,
         * and one after a 32-node job started or ended (every other
         * repetition each) */
        for (int r = 0; r < reps; r++) {
            double t0 = now_us ();
            jt_pack_views_sync (views, s, &err);
            t[r] = now_us () - t0;
        }
        row (sizes[si], "views sync, nothing changed", t, reps, &base_med[si]);
        for (int r = 0; r < reps + (reps & 1); r++) {
            for (size_t k = 0; k < 32; k++)
                s->nodes[k].used_gpus = s->nodes[k].used_gpus ? 0 : s->nodes[k].gpus;
            double t0 = now_us ();
            jt_pack_views_sync (views, s, &err);
            if (r < reps)
                t[r] = now_us () - t0;
        }
        row (sizes[si], "views sync, 32 nodes changed", t, reps, &base_med[si]);
        jt_pack_views_destroy (views);
        jt_pack_view_destroy (v);
        jt_snapshot_destroy (s);
        printf ("\n");
    }
    printf ("scaling of the median, 1k -> 16k -> 64k nodes (x16 -> x64 nodes):\n");
    printf ("  %-24s 1 -> %.1f -> %.1f\n", "linear pass",
            base_med[1] / base_med[0], base_med[2] / base_med[0]);
    printf ("  %-24s 1 -> %.1f -> %.1f\n", "view build",
            view_med[1] / view_med[0], view_med[2] / view_med[0]);
    for (size_t ri = 0; ri < NRUNS; ri++)
        printf ("  Pack %-19s 1 -> %.1f -> %.1f\n", runs[ri].name,
                pack_med[1][ri] / pack_med[0][ri],
                pack_med[2][ri] / pack_med[0][ri]);
    for (size_t ri = 0; ri < NRUNS; ri++)
        printf ("  Cover %-18s 1 -> %.1f -> %.1f\n", runs[ri].name,
                cover_med[1][ri] / cover_med[0][ri],
                cover_med[2][ri] / cover_med[0][ri]);
    for (size_t ri = 0; ri < NRUNS; ri++)
        printf ("  Plan %-19s 1 -> %.1f -> %.1f\n", runs[ri].name,
                plan_med[1][ri] / plan_med[0][ri],
                plan_med[2][ri] / plan_med[0][ri]);
    for (size_t ri = 0; ri < NRUNS; ri++)
        printf ("  Plan %-19s warm 1 -> %.1f -> %.1f\n", runs[ri].name,
                warm_med[1][ri] / warm_med[0][ri],
                warm_med[2][ri] / warm_med[0][ri]);
    jt_usage_free (&usage);
    jt_budgets_destroy (budgets);
    free (t);
    return 0;
}
