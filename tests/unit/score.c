/*
 * score.c - unit tests of the composite ordering score (jobtree/score.h):
 * each factor against hand-computed values (a table, one row per case),
 * the built-in profiles (the seed's table, each summing to 1), the Score*
 * keys of jobtree.conf with their refusals, the inputs a run takes from a
 * snapshot (domains needed and available, the largest fingerprint class,
 * the owner's share), and whole scores with their canonical dump.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/conf.h"
#include "jobtree/score.h"
#include "fixtures.h"
#include "tap.h"

static const char *f6 (double v)
{
    static char buf[8][32];
    static int k;

    k = (k + 1) % 8;
    snprintf (buf[k], sizeof (buf[k]), "%.6f", v);
    return buf[k];
}

static void test_factors (void)
{
    static const struct {
        const char *name;
        double got;
        const char *want;
    } rows[] = {
        { "priority is neutral", 0, "0.500000" },
        { "wait 0", 0, "0.000000" },
        { "wait 1h / 1h = ln 2", 0, "0.693147" },
        { "wait 2h / 1h = ln 3", 0, "1.098612" },
        { "wait negative counts as 0", 0, "0.000000" },
        { "wait 30 min / 1h = ln 1.5", 0, "0.405465" },
        { "fair share 16 of 64 used", 0, "0.750000" },
        { "fair share all used", 0, "0.000000" },
        { "fair share over the share", 0, "0.000000" },
        { "fair share without a share", 0, "0.000000" },
        { "topology 1 of 4 domains", 0, "0.750000" },
        { "topology 2 of 4 domains", 0, "0.500000" },
        { "topology fits nowhere", 0, "0.000000" },
        { "topology no domain", 0, "0.000000" },
        { "backlog 10 / 20", 0, "0.500000" },
        { "backlog capped at 1", 0, "1.000000" },
        { "backlog empty queue", 0, "0.000000" },
        { "backlog nothing running", 0, "1.000000" },
        { "energy price 0.2", 0, "0.800000" },
        { "checkpoint none", 0, "0.000000" },
        { "checkpoint 1 min", 0, "0.500000" },
        { "checkpoint 30 s", 0, "0.666667" },
        { "checkpoint 30 min = 1/31", 0, "0.032258" },
        { "conformance 3 of 4 nodes", 0, "0.750000" },
        { "conformance more than needed", 0, "1.000000" },
        { "conformance no class", 0, "0.000000" },
        { "conformance nothing requested", 0, "1.000000" },
    };
    double got[] = {
        jt_score_f_priority (),
        jt_score_f_wait (0, 3600),
        jt_score_f_wait (3600, 3600),
        jt_score_f_wait (7200, 3600),
        jt_score_f_wait (-5, 3600),
        jt_score_f_wait (1800, 3600),
        jt_score_f_fair_share (64, 16),
        jt_score_f_fair_share (64, 64),
        jt_score_f_fair_share (64, 100),
        jt_score_f_fair_share (0, 0),
        jt_score_f_topology (1, 4),
        jt_score_f_topology (2, 4),
        jt_score_f_topology (5, 4),
        jt_score_f_topology (1, 0),
        jt_score_f_backlog (10, 20),
        jt_score_f_backlog (30, 20),
        jt_score_f_backlog (0, 20),
        jt_score_f_backlog (5, 0),
        jt_score_f_energy (0.2),
        jt_score_f_checkpoint (0),
        jt_score_f_checkpoint (60),
        jt_score_f_checkpoint (30),
        jt_score_f_checkpoint (1800),
        jt_score_f_conformance (3, 4),
        jt_score_f_conformance (5, 4),
        jt_score_f_conformance (0, 4),
        jt_score_f_conformance (7, 0),
    };

    if (sizeof (got) / sizeof (got[0]) != sizeof (rows) / sizeof (rows[0]))
        bail_out ("factor table and values differ in length");
    for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++)
        is (f6 (got[i]), rows[i].want, "%s", rows[i].name);
    is (f6 (jt_score_f_wait (INT64_MAX, 1)),
        f6 (log1p ((double) JT_SCORE_WAIT_MAX)), "wait capped at 10 years");
}

static void test_builtin (void)
{
    static const char *const names[] = { "hpc-batch", "ml-training", "service",
                                         "sensitive", "interactive", "balanced" };
    jt_score_conf_t c;

    jt_score_conf_init (&c);
    for (size_t i = 0; i < 6; i++) {
        const jt_score_profile_t *p = jt_score_profile (&c, names[i]);
        double sum = 0;
        ok (p != NULL, "built-in profile %s", names[i]);
        for (size_t f = 0; p && f < JT_SCORE_NFACTORS; f++)
            sum += p->w[f];
        is (f6 (sum), "1.000000", "%s sums to 1", names[i]);
    }
    /* spot checks against the seed's table */
    is (f6 (jt_score_profile (&c, "ml-training")->w[JT_SCORE_TOPOLOGY]), "0.250000",
        "ml-training w4 = 0.25");
    is (f6 (jt_score_profile (&c, "service")->w[JT_SCORE_CONFORMANCE]), "0.300000",
        "service w9 = 0.30");
    is (f6 (jt_score_profile (&c, "sensitive")->w[JT_SCORE_PRIORITY]), "0.900000",
        "sensitive w1 = 0.90");
    is (f6 (jt_score_profile (&c, "interactive")->w[JT_SCORE_WAIT]), "0.300000",
        "interactive w2 = 0.30");
    is (jt_score_profile_for (&c, "anything")->name, "balanced",
        "default profile is balanced");
    ok (jt_score_profile (&c, "nope") == NULL, "unknown profile");
    jt_score_conf_free (&c);
}

static int parse (jt_config_t *c, const char *text, jt_diags_t *d)
{
    return jt_config_parse (c, "jobtree.conf", text, strlen (text), d);
}

static void test_conf (void)
{
    static const struct {
        const char *line;
        const char *want;
    } bad[] = {
        { "ScoreProfile=x:wait=0.5,topology=0.4",
          "jobtree.conf:1: ScoreProfile x: weights sum to 0.9000; they must "
          "sum to 1 (as every seed profile does)" },
        { "ScoreProfile=x:speed=1",
          "jobtree.conf:1: ScoreProfile x: 'speed=1' is not FACTOR=WEIGHT with "
          "FACTOR one of priority, wait, fair_share, topology, data_ready, "
          "backlog, energy, checkpoint, conformance" },
        { "ScoreProfile=x:wait=1.5",
          "jobtree.conf:1: ScoreProfile x: wait's weight must be a number 0..1, "
          "e.g. wait=0.25" },
        { "ScoreProfile=x:wait=-0.5,topology=1.5",
          "jobtree.conf:1: ScoreProfile x: wait's weight must be a number 0..1, "
          "e.g. wait=0.25" },
        { "ScoreProfile=x:wait=0.5,wait=0.5",
          "jobtree.conf:1: ScoreProfile x: wait given twice" },
        { "ScoreProfile=balanced:wait=1",
          "jobtree.conf:1: ScoreProfile: profile balanced is already defined "
          "(built-in or earlier line); choose another name" },
        { "ScoreProfile=wait=1",
          "jobtree.conf:1: ScoreProfile must be NAME:FACTOR=WEIGHT[,...] with NAME "
          "of letters, digits, '.', '_', '-' (at most 63), e.g. "
          "ScoreProfile=site:wait=0.5,topology=0.5" },
        { "ScoreDefaultProfile=later",
          "jobtree.conf:1: ScoreDefaultProfile: no profile named later (known: "
          "hpc-batch, ml-training, service, sensitive, interactive, balanced; a "
          "ScoreProfile line must come before its use)" },
        { "ScorePartitionProfile=gpu",
          "jobtree.conf:1: ScorePartitionProfile must be PARTITION:PROFILE[,...], "
          "e.g. ScorePartitionProfile=gpu:ml-training" },
        { "ScorePartitionProfile=gpu:service,gpu:balanced",
          "jobtree.conf:1: ScorePartitionProfile: partition gpu listed twice" },
        { "ScoreScale=0",
          "jobtree.conf:1: ScoreScale must be a whole number 1..1000000, e.g. "
          "ScoreScale=10000" },
        { "ScoreScale=1000001",
          "jobtree.conf:1: ScoreScale must be a whole number 1..1000000, e.g. "
          "ScoreScale=10000" },
        { "ScoreReferenceWait=0",
          "jobtree.conf:1: ScoreReferenceWait must be a duration of 1 second to "
          "365 days, e.g. ScoreReferenceWait=1h" },
        { "ScoreReferenceWait=400-00:00:00",
          "jobtree.conf:1: ScoreReferenceWait must be a duration of 1 second to "
          "365 days, e.g. ScoreReferenceWait=1h" },
        { "ScoreDataReadiness=2",
          "jobtree.conf:1: ScoreDataReadiness must be a number 0..1, e.g. "
          "ScoreDataReadiness=0.5" },
        { "ScoreEnergyPrice=cheap",
          "jobtree.conf:1: ScoreEnergyPrice must be a number 0..1, e.g. "
          "ScoreEnergyPrice=0.5" },
    };
    jt_config_t *c = jt_config_create (), *d2;
    jt_diags_t d;
    char buf[1024];

    jt_diags_init (&d);
    is_int (c->score.scale, JT_SCORE_SCALE_DEFAULT, "default ScoreScale");
    is_int (c->score.reference_wait_s, 3600, "default reference wait 1h");
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        jt_diags_free (&d);
        jt_diags_init (&d);
        is_int (parse (c, bad[i].line, &d), -1, "refused: %s", bad[i].line);
        buf[0] = '\0';
        if (d.n)
            jt_diag_format (&d.v[0], buf, sizeof (buf));
        is (buf, bad[i].want, "line names the key and the fix: %s", bad[i].line);
    }
    jt_diags_free (&d);
    jt_diags_init (&d);
    is_int (parse (c, "ScoreProfile=ckpt:checkpoint=1\n"
                      "ScoreProfile=topo:topology=0.75,wait=0.25\n"
                      "scoredefaultprofile=topo\n"
                      "ScorePartitionProfile=p1:ckpt,p2:ml-training\n"
                      "ScoreScale=1000\nScoreReferenceWait=30m\n"
                      "ScoreDataReadiness=0.25\nScoreEnergyPrice=0.1\n", &d),
            0, "good Score* keys parse");
    is_int (d.n, 0, "no diagnostics");
    is (jt_score_profile_for (&c->score, "p1")->name, "ckpt", "p1 -> ckpt");
    is (jt_score_profile_for (&c->score, "p2")->name, "ml-training", "p2 -> built-in");
    is (jt_score_profile_for (&c->score, "p3")->name, "topo", "others -> default");
    is (jt_score_profile_for (&c->score, NULL)->name, "topo", "no partition -> default");
    is (f6 (jt_score_profile (&c->score, "topo")->w[JT_SCORE_WAIT]), "0.250000",
        "site weight kept");
    is_int (c->score.scale, 1000, "ScoreScale");
    is_int (c->score.reference_wait_s, 1800, "ScoreReferenceWait");
    is (f6 (c->score.data_ready), "0.250000", "ScoreDataReadiness");
    is (f6 (c->score.energy_price), "0.100000", "ScoreEnergyPrice");

    /* all or nothing: a bad line keeps every Score* setting */
    is_int (parse (c, "ScoreScale=5\nScoreProfile=z:wait=0.5\n", &d), -1,
            "a bad Score line refuses the file");
    is_int (c->score.scale, 1000, "ScoreScale kept");
    ok (jt_score_profile (&c->score, "z") == NULL, "profile z not added");

    /* a later file's copy carries the profiles (config_copy) */
    jt_diags_free (&d);
    jt_diags_init (&d);
    is_int (parse (c, "Debug=yes\n", &d), 0, "another key on top");
    is (jt_score_profile_for (&c->score, "p1")->name, "ckpt", "profiles survive");
    d2 = jt_config_create ();
    jt_score_conf_free (&d2->score);
    ok (jt_score_conf_copy (&d2->score, &c->score) == 0, "copy");
    is (jt_score_profile_for (&d2->score, "p1")->name, "ckpt", "copy has p1");
    jt_config_destroy (d2);
    jt_diags_free (&d);
    jt_config_destroy (c);
}

/* One 8-GPU h100 node with features "k=v,...". */

/* A: a1..a4 (fingerprints x x x y), B: b1 b2 (x x, gpu.mem 40),
 * C: c1 c2 (no fingerprint). */
static jt_snapshot_t *cluster (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();

    fx_node (s, "a1", "fabric.domain=A,conformance=x,gpu.mem=80");
    fx_node (s, "a2", "fabric.domain=A,conformance=x,gpu.mem=80");
    fx_node (s, "a3", "fabric.domain=A,conformance=x,gpu.mem=80");
    fx_node (s, "a4", "fabric.domain=A,conformance=y,gpu.mem=80");
    fx_node (s, "b1", "fabric.domain=B,conformance=x,gpu.mem=40");
    fx_node (s, "b2", "fabric.domain=B,conformance=x,gpu.mem=40");
    fx_node (s, "c1", "fabric.domain=C,gpu.mem=80");
    fx_node (s, "c2", "fabric.domain=C,gpu.mem=80");
    return fx_finalize (s);
}

#define RUNJ(total, loc, extra) \
    "{ \"owner\": \"rai\", \"resources\": { \"gpuType\": \"h100\"," \
    " \"totalGPUs\": " #total " }" loc extra " }"

static void test_inputs (void)
{
    static const struct {
        const char *name;
        const char *run;
        const char *want;       /* needed/available largest/requested */
    } rows[] = {
        { "2 groups of 2 nodes fit A", RUNJ (32, ", \"locality\": { \"groupGPUs\": 16 }", ""),
          "1/3 5/4" },
        { "3 groups: A holds 2, B 1", RUNJ (48, ", \"locality\": { \"groupGPUs\": 16 }", ""),
          "2/3 5/6" },
        { "4 groups need every domain", RUNJ (64, ", \"locality\": { \"groupGPUs\": 16 }", ""),
          "3/3 5/8" },
        { "5 groups fit nowhere", RUNJ (80, ", \"locality\": { \"groupGPUs\": 16 }", ""),
          "4/3 5/10" },
        { "short last group in A's room", RUNJ (32, ", \"locality\": { \"groupGPUs\": 24 }", ""),
          "1/3 5/4" },
        { "short last group to B", RUNJ (40, ", \"locality\": { \"groupGPUs\": 24 }", ""),
          "2/3 5/5" },
        { "soft run: the largest domains", RUNJ (40, "", ""), "2/3 5/5" },
        { "spread off: one domain or none",
          RUNJ (48, ", \"locality\": { \"groupGPUs\": 16,"
                    " \"allowCrossGroupSpread\": false }", ""), "4/3 5/6" },
        { "spares count as nodes", RUNJ (16, ", \"locality\": { \"groupGPUs\": 16 }",
                                         ", \"sparesPerGroup\": 2"), "1/3 5/4" },
        { "constraint leaves B out",
          RUNJ (32, "", ", \"nodeConstraints\": [ \"gpu.mem GE 80\" ]"), "1/2 3/4" },
        { "only unfingerprinted nodes",
          RUNJ (16, "", ", \"nodeConstraints\": [ \"conformance NOT_EXISTS\" ]"),
          "1/1 1/2" },
    };
    jt_snapshot_t *s = cluster ();
    jt_error_t err;
    char got[64];

    for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++) {
        jt_run_t *r = fx_run (rows[i].run);
        jt_score_input_t in = { 0 };
        if (jt_score_inputs (s, NULL, NULL, r, fx_time (FX_NOW), &in, &err) < 0)
            bail_out ("%s: %s", rows[i].name, err.text);
        snprintf (got, sizeof (got), "%lld/%lld %lld/%lld",
                  (long long) in.domains_needed, (long long) in.domains_available,
                  (long long) in.conformance_largest, (long long) in.nodes_requested);
        is (got, rows[i].want, "%s", rows[i].name);
        {
            jt_score_cluster_t *c = jt_score_cluster_create (s, &err);
            jt_score_input_t in2 = { 0 };
            if (!c || jt_score_inputs_cached (c, NULL, NULL, r, fx_time (FX_NOW),
                                              &in2, &err) < 0)
                bail_out ("%s: cached: %s", rows[i].name, err.text);
            ok (!memcmp (&in, &in2, sizeof (in)), "%s: the summary answers the same",
                rows[i].name);
            jt_score_cluster_destroy (c);
        }
        jt_run_destroy (r);
    }
    jt_snapshot_destroy (s);
}

static void test_share (void)
{
    jt_budgets_t *b = fx_budgets (
        "{ \"owner\": \"rai\", \"envelopes\": ["
        FX_ENV ("rai-1", "", 48, "") "," FX_ENV ("rai-2", "", 16, "") ","
        "{ \"name\": \"rai-a100\", \"flavor\": \"a100\", \"selector\": {}, "
        FX_WINDOW ", \"concurrency\": 100 },"
        "{ \"name\": \"rai-old\", \"flavor\": \"h100\", \"selector\": {}, "
        "\"start\": \"2025-01-01T00:00:00Z\", \"end\": \"2026-01-01T00:00:00Z\", "
        "\"concurrency\": 100 } ] }",
        "{ \"owner\": \"nlp\", \"envelopes\": [" FX_ENV ("nlp-1", "", 64, "") "] }",
        FX_END);
    jt_snapshot_t *s = cluster ();
    jt_run_t *r = fx_run (RUNJ (16, "", ""));
    jt_usage_t u;
    jt_score_input_t in = { 0 };
    jt_error_t err;

    if (jt_usage_init (&u, b) < 0)
        bail_out ("usage");
    jt_usage_add (&u, jt_budgets_envelope (b, "rai-1"), "rai", JT_ROLE_ACTIVE, 8, 0);
    jt_usage_add (&u, jt_budgets_envelope (b, "rai-2"), "rai", JT_ROLE_ACTIVE, 8, 0);
    jt_usage_add (&u, jt_budgets_envelope (b, "nlp-1"), "nlp", JT_ROLE_ACTIVE, 64, 0);
    ok (jt_score_inputs (s, b, &u, r, fx_time (FX_NOW), &in, &err) == 0, "inputs");
    is_int (in.fs_target_gpus, 64, "target: open h100 envelopes of rai (48+16)");
    is_int (in.fs_used_gpus, 16, "used: their active GPUs");
    is (f6 (jt_score_f_fair_share (in.fs_target_gpus, in.fs_used_gpus)), "0.750000",
        "f3 = (64 - 16) / 64");
    ok (jt_score_inputs (s, b, NULL, r, fx_time (FX_NOW), &in, &err) == 0
        && in.fs_used_gpus == 0, "no usage: nothing used");
    jt_usage_free (&u);
    jt_run_destroy (r);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

static void test_sum (void)
{
    jt_score_conf_t c;
    jt_score_input_t in = {
        .wait_s = 3600, .fs_target_gpus = 64, .fs_used_gpus = 16,
        .domains_needed = 1, .domains_available = 4,
        .queued_gpu_hours = 10, .running_gpu_hours = 20, .checkpoint_s = 60,
        .conformance_largest = 3, .nodes_requested = 4,
    };
    jt_score_t sc;
    char *t;

    jt_score_conf_init (&c);
    /* ml-training: .10*.5 + .10*ln2 + .10*.75 + .25*.75 + .15*.5 + .05*.5
     * + .05*.5 + .10*.5 + .10*.75 = 0.6318147 */
    jt_score_compute (&c, jt_score_profile (&c, "ml-training"), &in, &sc);
    is (f6 (sc.sum), "0.631815", "ml-training sum by hand");
    is_int (sc.site_factor, 6318, "site factor = round(sum x 10000)");
    t = jt_score_format (&sc);
    is (t, "profile ml-training\n"
           "  priority     0.5000 x 0.10 = 0.0500\n"
           "  wait         0.6931 x 0.10 = 0.0693\n"
           "  fair_share   0.7500 x 0.10 = 0.0750\n"
           "  topology     0.7500 x 0.25 = 0.1875\n"
           "  data_ready   0.5000 x 0.15 = 0.0750\n"
           "  backlog      0.5000 x 0.05 = 0.0250\n"
           "  energy       0.5000 x 0.05 = 0.0250\n"
           "  checkpoint   0.5000 x 0.10 = 0.0500\n"
           "  conformance  0.7500 x 0.10 = 0.0750\n"
           "  sum          0.6318   site factor 6318\n", "canonical dump");
    free (t);
    /* interactive: .1*.5 + .3*ln2 + .1*.75 + .05*.5 + .15*.5 + .3*.75 */
    jt_score_compute (&c, jt_score_profile (&c, "interactive"), &in, &sc);
    is (f6 (sc.sum), "0.657944", "interactive sum by hand");
    /* sensitive: .9*.5 + .1*.75 */
    jt_score_compute (&c, jt_score_profile (&c, "sensitive"), &in, &sc);
    is (f6 (sc.sum), "0.525000", "sensitive sum by hand");
    /* hpc-batch: .15*.5+.2*ln2+.2*.75+.15*.75+.1*.5+.05*.5+.05*.5+.1*.75 */
    jt_score_compute (&c, jt_score_profile (&c, "hpc-batch"), &in, &sc);
    is (f6 (sc.sum), "0.651129", "hpc-batch sum by hand");
    /* service: .15*.5+.05*ln2+.1*.75+.05*.75+.1*.5+.05*.5+.1*.5+.1*.5+.3*.75 */
    jt_score_compute (&c, jt_score_profile (&c, "service"), &in, &sc);
    is (f6 (sc.sum), "0.622157", "service sum by hand");
    /* balanced: .2*.5+.2*ln2+.2*.75+.15*.75+.1*.5+.05*.5+.1*.75 */
    jt_score_compute (&c, jt_score_profile (&c, "balanced"), &in, &sc);
    is (f6 (sc.sum), "0.651129", "balanced sum by hand");

    /* admin inputs: data readiness and energy price move f5 and f7 */
    c.data_ready = 1.0;
    c.energy_price = 0.0;
    jt_score_compute (&c, jt_score_profile (&c, "ml-training"), &in, &sc);
    is (f6 (sc.sum), f6 (0.6318147 + 0.15 * 0.5 + 0.05 * 0.5), "f5, f7 from the admin");

    /* two profiles, two orders: a checkpointing run spanning domains
     * against a non-checkpointing one in a single domain */
    {
        jt_config_t *cf = jt_config_create ();
        jt_diags_t d;
        jt_score_input_t a = in, b = in;
        jt_score_t sa, sb;

        jt_diags_init (&d);
        if (parse (cf, "ScoreProfile=ckpt:checkpoint=1\n"
                       "ScoreProfile=topo:topology=1\n", &d) < 0)
            bail_out ("profiles");
        a.checkpoint_s = 60, a.domains_needed = 3;
        b.checkpoint_s = 0, b.domains_needed = 1;
        jt_score_compute (&cf->score, jt_score_profile (&cf->score, "ckpt"), &a, &sa);
        jt_score_compute (&cf->score, jt_score_profile (&cf->score, "ckpt"), &b, &sb);
        ok (sa.site_factor > sb.site_factor, "ckpt: checkpointing run first (%lld > %lld)",
            (long long) sa.site_factor, (long long) sb.site_factor);
        jt_score_compute (&cf->score, jt_score_profile (&cf->score, "topo"), &a, &sa);
        jt_score_compute (&cf->score, jt_score_profile (&cf->score, "topo"), &b, &sb);
        ok (sb.site_factor > sa.site_factor, "topo: single-domain run first (%lld > %lld)",
            (long long) sb.site_factor, (long long) sa.site_factor);
        jt_diags_free (&d);
        jt_config_destroy (cf);
    }

    /* the site factor is bounded whatever the wait */
    in.wait_s = INT64_MAX;
    c.scale = JT_SCORE_SCALE_MAX;
    jt_score_compute (&c, jt_score_profile (&c, "interactive"), &in, &sc);
    ok (sc.site_factor > 0 && sc.site_factor <= INT32_MAX, "site factor in range");
    jt_score_conf_free (&c);
}

static void test_backlog_totals (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    char *nodes[] = { (char *) "a1" };
    jt_lease_t l = { .run = (char *) "c1:1", .owner = (char *) "rai",
                     .envelope = (char *) "rai-1", .nodes = nodes, .nnodes = 1,
                     .gpus = 8, .role = JT_ROLE_ACTIVE, .start = 0, .end = 7200 };
    jt_run_t *r = fx_run ("{ \"owner\": \"rai\", \"resources\": { \"gpuType\":"
                          " \"h100\", \"totalGPUs\": 16 }, \"runtime\": {"
                          " \"timeLimit\": \"30:00\" } }");
    jt_error_t err;

    fx_node (s, "a1", "fabric.domain=A");
    if (jt_snapshot_add_lease (s, &l, &err) < 0)
        bail_out ("lease: %s", err.text);
    l.role = JT_ROLE_SPARE;
    if (jt_snapshot_add_lease (s, &l, &err) < 0)
        bail_out ("lease: %s", err.text);
    l.role = JT_ROLE_BORROWED, l.end = 0;
    if (jt_snapshot_add_lease (s, &l, &err) < 0)
        bail_out ("lease: %s", err.text);
    fx_finalize (s);
    is (f6 (jt_score_running_gpu_hours (s)), "24.000000",
        "running: 8 GPUs x 2 h + 8 x 1 h default, spares left out");
    is (f6 (jt_score_queued_gpu_hours (r)), "8.000000", "queued: 16 GPUs x 30 min");
    jt_run_destroy (r);
    jt_snapshot_destroy (s);
}

/* Random clusters, budgets and runs: the summary's answers equal the
 * full scan's (fixtures' seeded PRNG). */
static void test_cached_random (void)
{
    size_t bad = 0, n = 0;

    fx_seed (2070);
    for (int k = 0; k < 200; k++) {
        jt_budgets_t *b = fx_random_budgets ();
        jt_snapshot_t *s = fx_random_cluster ();
        jt_run_t *r = fx_random_run ();
        jt_score_cluster_t *c;
        jt_usage_t u;
        jt_error_t err;
        jt_score_input_t x, y;

        if (jt_usage_from_snapshot (&u, b, s, fx_time (FX_NOW), &err) < 0
            || !(c = jt_score_cluster_create (s, &err)))
            bail_out ("random case %d: %s", k, err.text);
        memset (&x, 0, sizeof (x));
        memset (&y, 0, sizeof (y));
        if (jt_score_inputs (s, b, &u, r, fx_time (FX_NOW), &x, &err) < 0
            || jt_score_inputs_cached (c, b, &u, r, fx_time (FX_NOW), &y, &err) < 0
            || memcmp (&x, &y, sizeof (x)) != 0)
            bad++;
        n++;
        jt_score_cluster_destroy (c);
        jt_usage_free (&u);
        jt_run_destroy (r);
        jt_snapshot_destroy (s);
        jt_budgets_destroy (b);
    }
    is_int ((int64_t) bad, 0, "%zu random cases: summary and full scan agree", n);
}

/* f4 over levels: 4 leaves of 4 nodes (A-D) under 2 blocks (B1: A B; B2:
 * C D) under one spine. A run's blocks count beside its domains; the one
 * spine does not (a single unit says nothing). */
static void test_topology_levels (void)
{
    static const char *const levels[] = { "fabric.block", "fabric.spine" };
    static const struct {
        const char *name, *run, *want;
        double f4, flat;
    } rows[] = {
        { "3 groups of 2 nodes: 2 leaves, 1 block",
          RUNJ (48, ", \"locality\": { \"groupGPUs\": 16 }", ""),
          "2/4 block 1/2 spine 1/1", 0.5, 0.5 },
        { "5 groups: 3 leaves, both blocks",
          RUNJ (80, ", \"locality\": { \"groupGPUs\": 16 }", ""),
          "3/4 block 2/2 spine 1/1", 0.125, 0.25 },
        { "no:block, 5 groups: no block holds them",
          RUNJ (80, ", \"locality\": { \"groupGPUs\": 16, \"allowCrossGroupSpread\":"
                    " false, \"spreadLevel\": \"block\" }", ""),
          "3/4 block 3/2 spine 2/1", 0.125, 0.25 },
        { "no:block, 4 groups: one block",
          RUNJ (64, ", \"locality\": { \"groupGPUs\": 16, \"allowCrossGroupSpread\":"
                    " false, \"spreadLevel\": \"block\" }", ""),
          "2/4 block 1/2 spine 1/1", 0.5, 0.5 },
        { "spread off, 2 groups: one leaf, one block",
          RUNJ (32, ", \"locality\": { \"groupGPUs\": 16, \"allowCrossGroupSpread\":"
                    " false }", ""), "1/4 block 1/2 spine 1/1", 0.625, 0.75 },
    };
    jt_error_t err;

    for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++) {
        jt_snapshot_t *s = jt_snapshot_create ();
        for (int k = 0; k < 4; k++) {
            char prefix[4], labels[128];
            snprintf (prefix, sizeof (prefix), "%c", 'a' + k);
            snprintf (labels, sizeof (labels), "fabric.domain=%c,fabric.block=B%d,"
                      "fabric.spine=S0", 'A' + k, k / 2 + 1);
            fx_nodes (s, prefix, 1, 4, labels, 8, 0);
        }
        if (jt_snapshot_set_levels (s, levels, 2, &err) < 0)
            bail_out ("levels: %s", err.text);
        fx_finalize (s);
        jt_run_t *r = fx_run (rows[i].run);
        jt_score_input_t in = { 0 }, in2 = { 0 };
        jt_score_cluster_t *c = jt_score_cluster_create (s, &err);
        if (!c || jt_score_inputs (s, NULL, NULL, r, fx_time (FX_NOW), &in, &err) < 0
            || jt_score_inputs_cached (c, NULL, NULL, r, fx_time (FX_NOW), &in2, &err) < 0)
            bail_out ("%s: %s", rows[i].name, err.text);
        char got[96];
        snprintf (got, sizeof (got), "%lld/%lld block %lld/%lld spine %lld/%lld",
                  (long long) in.domains_needed, (long long) in.domains_available,
                  (long long) in.units_needed[0], (long long) in.units_available[0],
                  (long long) in.units_needed[1], (long long) in.units_available[1]);
        is (got, rows[i].want, "%s", rows[i].name);
        ok (!memcmp (&in, &in2, sizeof (in)), "%s: the summary answers the same",
            rows[i].name);
        double f4 = jt_score_f_topology_levels (&in);
        ok (fabs (f4 - rows[i].f4) < 1e-9, "%s: f4 %.4f (the domain alone: %.4f)",
            rows[i].name, f4, jt_score_f_topology (in.domains_needed,
                                                   in.domains_available));
        in.nlevels = 0;
        ok (fabs (jt_score_f_topology_levels (&in) - rows[i].flat) < 1e-9,
            "%s: without levels f4 is the domain's, %.4f", rows[i].name, rows[i].flat);
        jt_score_cluster_destroy (c);
        jt_run_destroy (r);
        jt_snapshot_destroy (s);
    }
}

int main (void)
{
    test_factors ();
    test_builtin ();
    test_conf ();
    test_inputs ();
    test_share ();
    test_sum ();
    test_backlog_totals ();
    test_cached_random ();
    test_topology_levels ();
    return done_testing ();
}
