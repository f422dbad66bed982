/*
 * sim.c - unit tests of the simulator (jobtree/sim.h): the trace reader's
 * diagnostics (file:line:col: field), the cluster spec and policy words,
 * tiny traces whose waits, utilization, splits and borrowing are computed
 * by hand in the comments, and determinism (the same inputs give the same
 * bytes in every writer).
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

#include "fixtures.h"
#include "jobtree/sim.h"
#include "sim/sim_int.h"
#include "tap.h"

#define HDR "id,submit_s,duration_s,time_limit_s,gpus,nodes,owner,flavor,options\n"

static jt_sim_trace_t trace_of (const char *text)
{
    jt_sim_trace_t t;
    jt_diags_t d;

    jt_diags_init (&d);
    if (jt_sim_trace_parse ("t.csv", text, strlen (text), &t, &d) < 0) {
        printf ("Bail out! trace fixture refused: %s", fx_diags_text (&d));
        exit (255);
    }
    jt_diags_free (&d);
    return t;
}

/* ---- the reader ---- */

static void test_reader (void)
{
    static const struct {
        const char *name;
        const char *text;
        const char *diag;       /* expected first diagnostic line */
    } bad[] = {
        { "unknown header", "a,b,c\n1,2,3\n",
          "t.csv:1:1: unknown header; a trace starts with" },
        { "misspelt column", "id,submit_s,duration_s,time_limit_s,gpus,nodes,owner,"
          "flavor,opts\n", "t.csv:1:61: header column 9 is 'opts', expected 'options'" },
        { "negative submit", HDR "j,-5,10,0,8,,a,,\n",
          "t.csv:2:3: submit_s: '-5' is not a whole number from 0 to" },
        { "zero duration", HDR "j,0,0,0,8,,a,,\n",
          "t.csv:2:5: duration_s: '0' is not a whole number from 1 to" },
        { "huge gpus", HDR "j,0,10,0,99999999999,,a,,\n",
          "t.csv:2:10: gpus: '99999999999' is not a whole number from 1 to 1048576" },
        { "gpus overflowing int64", HDR "j,0,10,0,99999999999999999999,,a,,\n",
          "t.csv:2:10: gpus: '99999999999999999999' is not a whole number" },
        { "text limit", HDR "j,0,10,1h,8,,a,,\n",
          "t.csv:2:8: time_limit_s: '1h' is not a whole number from 0 to" },
        { "too many nodes", HDR "j,0,10,0,8,100001,a,,\n",
          "t.csv:2:12: nodes: '100001' is not a whole number from 0 to 100000" },
        { "no owner", HDR "j,0,10,0,8,,,,\n",
          "t.csv:2:13: owner: is empty; every job needs an owner" },
        { "empty id", HDR ",0,10,0,8,,a,,\n", "t.csv:2:1: id: is empty" },
        { "short line", HDR "j,0,10\n", "t.csv:2:1: 3 fields where the header has 9" },
        { "bad option", HDR "j,0,10,0,8,,a,,--group-gpus=x\n",
          "t.csv:2:16: options: --group-gpus=x" },
        { "unknown option", HDR "j,0,10,0,8,,a,,--colour=red\n",
          "t.csv:2:16: options: unknown option --colour" },
        { "not an option", HDR "j,0,10,0,8,,a,,borrow\n",
          "t.csv:2:16: options: 'borrow' is not an option" },
        { "quotes", HDR "\"j\",0,10,0,8,,a,,\n", "t.csv:2:1: id: quotes are not read" },
        { "philly bad gpus", "job_id,submit_s,duration_s,gpus,nodes,team,gpu_type\n"
          "p1,0,10,0,,vc,\n", "t.csv:2:9: gpus: '0' is not a whole number from 1" },
        { "empty", "", "t.csv:1:1: no header line: the trace is empty" },
        { "an id twice", HDR "j,0,10,0,8,,a,,\nk,0,10,0,8,,a,,\nj,5,10,0,8,,a,,\n",
          "t.csv:4:1: id: 'j' is also the id of line 2; every job needs its own" },
    };
    jt_sim_trace_t t;
    jt_diags_t d;

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        jt_diags_init (&d);
        int rc = jt_sim_trace_parse ("t.csv", bad[i].text, strlen (bad[i].text), &t, &d);
        const char *got = fx_diags_text (&d);
        ok (rc == -1 && t.n == 0 && !strncmp (got, bad[i].diag, strlen (bad[i].diag)),
            "reader refuses %s", bad[i].name);
        if (rc != -1 || strncmp (got, bad[i].diag, strlen (bad[i].diag)))
            diag ("got: %s", got);
        jt_diags_free (&d);
    }

    /* every problem at once, each with its line */
    jt_diags_init (&d);
    const char *two = HDR "a,x,10,0,8,,o,,\nb,0,10,0,0,,o,,\n";
    jt_sim_trace_parse ("t.csv", two, strlen (two), &t, &d);
    is_int ((int) d.n, 2, "two bad lines give two diagnostics");
    ok (d.n == 2 && d.v[0].line == 2 && d.v[1].line == 3, "on their own lines");
    jt_diags_free (&d);

    /* priority order: submit, then line; comments and CRLF read */
    t = trace_of (HDR "# a comment\r\nb,5,10,0,8,,o,,\r\na,5,10,0,8,,o,,--borrow\n"
                      "c,1,10,60,1,2,o,h100,\n");
    ok (t.n == 3 && !strcmp (t.jobs[0].id, "c") && !strcmp (t.jobs[1].id, "b")
        && !strcmp (t.jobs[2].id, "a"), "jobs in submit order, ties by line");
    ok (t.jobs[0].limit == 60 && t.jobs[0].nodes == 2 && !strcmp (t.jobs[0].flavor, "h100")
        && t.jobs[1].flavor == NULL && !strcmp (t.jobs[2].options, "--borrow")
        && t.jobs[0].line == 5, "fields read (limit, nodes, flavor, options, line)");
    jt_sim_trace_free (&t);

    t = trace_of ("job_id,submit_s,duration_s,gpus,nodes,team,gpu_type\n"
                  "philly-1,0,2240194,8,,vc_7f04ca,\n");
    ok (t.format == JT_SIM_PHILLY && t.n == 1 && t.jobs[0].gpus == 8
        && !strcmp (t.jobs[0].owner, "vc_7f04ca") && t.jobs[0].limit == 0,
        "the Philly CSV reads as is");
    jt_sim_trace_free (&t);
}

/* ---- cluster and policy ---- */

static void test_inputs (void)
{
    static const char *const bad[] = {
        "", "16x32x8", "0x2x8:h100", "2x0x8:h100", "2x2x65:h100", "2x2x8:",
        "2x2x8:h 100", "2x2x8:h100+", "99999999999999999999x1x8:h100",
        "10000x11x8:h100", "1x2x3x4x5x8:h100", "2000x1x1x8:h100",
    };
    jt_sim_policy_t p;
    jt_snapshot_t *s;
    jt_error_t e;

    s = jt_sim_cluster ("2x3x8:h100+1x1x4:a100", &e);
    ok (s && s->nnodes == 7 && s->ndomains == 3
        && !strcmp (s->domains[0].name, "sim/a100-d000")
        && !strcmp (s->domains[1].name, "sim/h100-d000") && s->domains[1].nnodes == 3
        && !strcmp (s->nodes[1].name, "h100-d000-n00000") && s->nodes[1].gpus == 8,
        "compact cluster: domains x nodes x GPUs per flavor");
    jt_snapshot_destroy (s);
    /* levels above the domain: spines x blocks x domains x nodes x GPUs */
    s = jt_sim_cluster ("2x3x4x4x8:h100", &e);
    ok (s && s->nnodes == 96 && s->ndomains == 24 && s->nlevels == 2
        && !strcmp (s->levels[0], "fabric.block") && s->nunits[0] == 6
        && !strcmp (s->levels[1], "fabric.spine") && s->nunits[1] == 2
        && s->domains[0].up[0] == 0 && s->domains[4].up[0] == 1
        && s->domains[11].up[1] == 0 && s->domains[12].up[1] == 1,
        "2x3x4x4x8: 24 leaves of 4 nodes, 6 blocks of 4 leaves, 2 spines of 3");
    jt_snapshot_destroy (s);
    s = jt_sim_cluster ("4x6x4x8:h100", &e);
    ok (s && s->ndomains == 24 && s->nlevels == 1 && s->nunits[0] == 4
        && !strcmp (s->levels[0], "fabric.spine"), "4x6x4x8: 4 spines of 6 leaves");
    jt_snapshot_destroy (s);
    ok (jt_sim_policy_parse ("best-fit,flat", &p, &e) == 0 && p.flat, "policy ,flat");
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        e.text[0] = '\0';
        s = jt_sim_cluster (bad[i], &e);
        ok (!s && e.text[0], "cluster spec '%s' refused: %s", bad[i], e.text);
        jt_snapshot_destroy (s);
    }

    ok (jt_sim_policy_parse ("best-fit,noborrow,noresv", &p, &e) == 0
        && p.pack == JT_PACK_BEST_FIT && p.borrow == 0 && !p.reservations && p.placement,
        "policy best-fit,noborrow,noresv");
    ok (jt_sim_policy_parse ("split=3,borrow", &p, &e) == 0 && p.split_nodes == 3
        && p.borrow == 1 && p.reservations, "policy split=3,borrow");
    ok (jt_sim_policy_parse ("none", &p, &e) == 0 && !p.placement, "policy none");
    ok (jt_sim_policy_parse ("worst-fit", &p, &e) < 0 && strstr (e.text, "'worst-fit'"),
        "unknown policy named: %s", e.text);
    ok (jt_sim_policy_parse ("best-fit,fast", &p, &e) < 0 && strstr (e.text, "'fast'"),
        "unknown option named: %s", e.text);
    ok (jt_sim_policy_parse ("split=0", &p, &e) < 0, "split=0 refused");
    ok (jt_sim_policy_parse ("best-fit,maxwait=3600", &p, &e) == 0 && p.preempt
        && p.max_wait == 3600, "maxwait=3600 implies preempt");
    ok (jt_sim_policy_parse ("split,checkpoint=1800", &p, &e) == 0
        && p.checkpoint == 1800 && !p.preempt, "checkpoint=1800");
    ok (jt_sim_policy_parse ("best-fit,maxwait=0", &p, &e) < 0
        && strstr (e.text, "maxwait=SECONDS"), "maxwait=0 refused: %s", e.text);
}

/* ---- replays computed by hand ---- */

static jt_sim_result_t *replay (const char *trace, const jt_budgets_t *b,
                                const char *cluster, const char *policy,
                                jt_sim_trace_t *t)
{
    jt_sim_policy_t p;
    jt_sim_opts_t o;
    jt_snapshot_t *s;
    jt_sim_result_t *r;
    jt_error_t e;

    *t = trace_of (trace);
    jt_sim_opts_init (&o);
    o.sample = 60;
    if (!(s = jt_sim_cluster (cluster, &e)) || jt_sim_policy_parse (policy, &p, &e) < 0) {
        printf ("Bail out! %s\n", e.text);
        exit (255);
    }
    r = jt_sim_run (t, b, s, &p, &o, &e);
    if (!r) {
        printf ("Bail out! jt_sim_run: %s\n", e.text);
        exit (255);
    }
    jt_snapshot_destroy (s);
    return r;
}

/* "id:start" for each job in trace order ("id:-" never started). */
static const char *starts (const jt_sim_result_t *r)
{
    static char buf[1024];

    buf[0] = '\0';
    for (size_t j = 0; j < r->njobs; j++) {
        size_t l = strlen (buf);
        if (r->start[j] >= 0)
            snprintf (buf + l, sizeof (buf) - l, "%s%s:%lld", l ? " " : "",
                      r->trace->jobs[j].id, (long long) r->start[j]);
        else
            snprintf (buf + l, sizeof (buf) - l, "%s%s:-", l ? " " : "",
                      r->trace->jobs[j].id);
    }
    return buf;
}

static void test_policies_by_hand (void)
{
    /* 2 domains x 2 nodes x 8 GPUs. j1 (8 GPUs, t=0, 100 s) goes to d000
     * (both domains equally free: name order). j2 (8 GPUs, t=1):
     * pack-to-empty takes the most free domain, d001; best-fit the
     * smallest that holds it, d000. j3 (16 GPUs, one group, t=2, 10 s)
     * then needs a whole domain: best-fit left d001 empty, so it starts at
     * 2; pack-to-empty left 8 GPUs in each, so it waits for j1's end at 100
     * (wait 98) and ends at 110.
     *   best-fit:      GPU-s 8*100 + 8*100 + 16*10 = 1760 over 32 GPUs x
     *                  span 101 (0 .. j2's end at 101): 1760/3232 = 0.544554
     *   pack-to-empty: the same 1760 over 32 x 110 = 0.500000; waits 0 0 98
     *                  (mean 32.7, p50 0, p95 98, max 98). */
    const char *trace = HDR "j1,0,100,100,8,,a,,\nj2,1,100,100,8,,a,,\n"
                            "j3,2,10,10,16,,a,,--group-gpus=16\n";
    jt_budgets_t *b = fx_budgets ("{ \"owner\": \"a\", \"envelopes\": ["
                                  FX_ENV ("a-h100", "", 32, "") "] }", FX_END);
    jt_sim_summary_t s;
    jt_sim_trace_t t;
    jt_sim_result_t *r;

    r = replay (trace, b, "2x2x8:h100", "best-fit", &t);
    jt_sim_summarize (r, &s);
    is (starts (r), "j1:0 j2:1 j3:2", "best-fit: j3 starts at once in the empty domain");
    ok (s.utilization > 0.544554 && s.utilization < 0.544555, "best-fit utilization "
        "1760/3232 (%f)", s.utilization);
    ok (s.wait_max == 0 && s.groups_split == 0 && s.never_started == 0 && s.runs == 3,
        "best-fit: no wait, no split, all started");
    /* at t=60 j1 and j2 share d000 and j3 is done: d001 is a free domain */
    ok (r->nsamples >= 2 && r->samples[1].t == 60 && r->samples[1].free_domains == 1
        && r->samples[0].free_domains == 2, "best-fit keeps a whole domain free");
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);

    r = replay (trace, b, "2x2x8:h100", "pack-to-empty", &t);
    jt_sim_summarize (r, &s);
    is (starts (r), "j1:0 j2:1 j3:100", "pack-to-empty: j3 waits for a whole domain");
    ok (s.utilization > 0.499999 && s.utilization < 0.500001,
        "pack-to-empty utilization 1760/3520 (%f)", s.utilization);
    ok (s.wait_max == 98 && s.wait_p95 == 98 && s.wait_p50 == 0
        && s.wait_mean > 32.66 && s.wait_mean < 32.67, "waits 0, 0, 98");
    /* bounded slowdown: j1 1, j2 1, j3 (98+10)/10 = 10.8: mean 4.2667 */
    ok (s.bounded_slowdown > 4.2666 && s.bounded_slowdown < 4.2667,
        "bounded slowdown (1 + 1 + 10.8) / 3 (%f)", s.bounded_slowdown);
    ok (s.groups_split == 0, "no group split");
    ok (r->nsamples >= 2 && r->samples[1].free_domains == 0 && r->samples[1].busy == 16
        && r->samples[1].queued == 1, "pack-to-empty at t=60: no free domain, j3 queued");
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);
    jt_budgets_destroy (b);
}

static void test_backfill_by_hand (void)
{
    /* 1 domain x 2 nodes x 8 GPUs. j1 (8, t=0, 100 s) holds one node; j2
     * (16, t=1, 10 s) needs both: reserved from 100 (j1's limit). j3 (8,
     * t=2, 50 s) ends at 52 <= 100: it backfills at 2. j4 (8, t=3, 200 s)
     * would end after 100, so the reservation keeps it off: j2 runs
     * 100..110, j4 starts at 110. Without reservations j4 takes the node
     * j3 frees at 52 and j2 waits for it until 252. */
    const char *trace = HDR "j1,0,100,100,8,,a,,\nj2,1,10,10,16,,a,,--group-gpus=16\n"
                            "j3,2,50,50,8,,a,,\nj4,3,200,200,8,,a,,\n";
    jt_budgets_t *b = fx_budgets ("{ \"owner\": \"a\", \"envelopes\": ["
                                  FX_ENV ("a-h100", "", 64, "") "] }", FX_END);
    jt_sim_trace_t t;
    jt_sim_result_t *r;

    r = replay (trace, b, "1x2x8:h100", "pack-to-empty", &t);
    is (starts (r), "j1:0 j2:100 j3:2 j4:110", "backfill behind a reservation");
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);
    r = replay (trace, b, "1x2x8:h100", "pack-to-empty,noresv", &t);
    is (starts (r), "j1:0 j2:252 j3:2 j4:52", "noresv: the big run is overtaken");
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);
    jt_budgets_destroy (b);
}

static void test_funding_by_hand (void)
{
    /* Owner b's envelope funds 8 GPUs; k2 waits for k1's end (30) unless it
     * may borrow from c, which lends to anyone: then it starts at 0 and
     * borrows 8 GPUs x 30 s = 0.0667 GPU-hours. A plain 1-GPU job (p) does
     * not touch budgets: it starts at 0 on a partly free node... there is
     * none left free at 0 with borrowing, so it takes the fullest node that
     * holds it. k3 asks for 64 GPUs: never fundable without borrowing (b's
     * envelope is 8), refused at once. */
    const char *trace = HDR "k1,0,30,30,8,,b,,\nk2,0,30,30,8,,b,,\np,0,30,30,1,,b,,\n"
                            "k3,0,30,30,64,,b,,\n";
    jt_budgets_t *b = fx_budgets ("{ \"owner\": \"b\", \"envelopes\": ["
                                  FX_ENV ("b-h100", "", 8, "") "] }",
                                  FX_LENDER ("c", 32, true, "\"*\"", ""), FX_END);
    jt_sim_summary_t s;
    jt_sim_trace_t t;
    jt_sim_result_t *r;

    r = replay (trace, b, "1x4x8:h100", "best-fit", &t);
    jt_sim_summarize (r, &s);
    is (starts (r), "k1:0 k2:30 p:0 k3:-", "funding wait; the unfundable run refused");
    ok (s.never_started == 1 && s.borrowed_gpu_hours == 0, "one never started, none borrowed");
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);

    r = replay (trace, b, "1x4x8:h100", "best-fit,borrow", &t);
    jt_sim_summarize (r, &s);
    is (starts (r), "k1:0 k2:0 p:0 k3:-", "borrowing: k2 starts at once");
    ok (s.borrowed_gpu_hours > 0.0666 && s.borrowed_gpu_hours < 0.0667
        && s.lent_gpu_hours == s.borrowed_gpu_hours,
        "8 GPUs x 30 s borrowed from c and lent by it (%f)", s.borrowed_gpu_hours);
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);
    jt_budgets_destroy (b);
}

/* ---- determinism ---- */

static char *all_outputs (jt_sim_result_t *const *r, size_t n)
{
    char *buf;
    size_t len;
    FILE *f = open_memstream (&buf, &len);

    jt_sim_print_table (f, r, n);
    jt_sim_write_summary_csv (f, r, n);
    jt_sim_write_owners_csv (f, r, n);
    jt_sim_write_jobs_csv (f, r, n);
    jt_sim_write_timeline_csv (f, r, n);
    jt_sim_write_json (f, r, n);
    fclose (f);
    return buf;
}

static void test_determinism (void)
{
    static const char *const pol[] = { "pack-to-empty", "best-fit", "split=1,borrow" };
    char *text = NULL, *out[2];
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);
    jt_budgets_t *b = fx_budgets (FX_LENDER ("o1", 32, true, "\"*\"", ""),
                                  FX_LENDER ("o2", 16, true, "\"*\"", ""),
                                  FX_LENDER ("o3", 24, false, "\"*\"", ""), FX_END);
    jt_snapshot_t *s;
    jt_sim_opts_t o;
    jt_sim_trace_t t;
    jt_error_t e;

    fx_seed (13);
    fprintf (f, HDR);
    for (int i = 0; i < 150; i++) {
        static const int sizes[] = { 1, 1, 2, 4, 8, 8, 16, 24, 32 };
        int g = sizes[fx_pick (9)];
        fprintf (f, "r%03d,%d,%d,%d,%d,,o%d,,%s\n", i, i * 20 + fx_pick (20),
                 60 + fx_pick (900), fx_pick (2) ? 0 : 1200, g, 1 + fx_pick (3),
                 g >= 8 && fx_pick (2) ? "--group-gpus=8" : "");
    }
    fclose (f);
    t = trace_of (text);
    jt_sim_opts_init (&o);
    o.sample = 600;
    s = jt_sim_cluster ("3x4x8:h100", &e);
    for (int k = 0; k < 2; k++) {
        jt_sim_result_t *r[3];
        for (int i = 0; i < 3; i++) {
            jt_sim_policy_t p;
            jt_sim_policy_parse (pol[i], &p, &e);
            r[i] = jt_sim_run (&t, b, s, &p, &o, &e);
            if (!r[i]) {
                printf ("Bail out! %s\n", e.text);
                exit (255);
            }
        }
        out[k] = all_outputs (r, 3);
        if (k == 0) {
            jt_sim_summary_t x;
            jt_sim_summarize (r[0], &x);
            ok (x.started > 100 && x.groups_split == 0 && x.answers > 0,
                "random trace replayed (%zu of 150 started, %zu answers, 0 splits)",
                x.started, x.answers);
        }
        for (int i = 0; i < 3; i++)
            jt_sim_result_destroy (r[i]);
    }
    ok (!strcmp (out[0], out[1]), "same inputs, byte-identical outputs (%zu bytes)",
        strlen (out[0]));
    free (out[0]);
    free (out[1]);
    free (text);
    jt_sim_trace_free (&t);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

static void test_activation_by_hand (void)
{
    /* Room at MaxWait: 1 domain x 2 nodes; j1 and j2 (8 GPUs, 1000 s) hold
     * both nodes; j3 (16 GPUs, one group, t=10) is reserved at 10. With
     * maxwait=60 its activation is due at 70: both holders give way (the
     * lottery takes whole runs until 16 GPUs are free), j3 runs 70..170,
     * j1 and j2 start again at 170 (requeued whole). Without it j3 waits
     * for their end at 1000. GPU-seconds: 2 x 8 x 70 lost + 16 x 100 + 2 x
     * 8 x 1000 = 18720 = 16 GPUs x span 1170: utilization 1. */
    const char *room = HDR "j1,0,1000,1000,8,,a,,\nj2,0,1000,1000,8,,a,,\n"
                           "j3,10,100,100,16,,a,,--group-gpus=16\n";
    /* Reclaim: c's run k1 (two groups of 8) is paid by c's envelope and by
     * b's, which lends to anyone; b's own k2 (8 GPUs, t=10) is refused
     * funding only because b lent it away: with preempt the lender
     * reclaims at once, k1 gives way and starts again when k2 ends. */
    const char *reclaim = HDR "k1,0,1000,1000,16,,c,,--group-gpus=8 --borrow\n"
                              "k2,10,100,100,8,,b,,\n";
    jt_budgets_t *ba = fx_budgets ("{ \"owner\": \"a\", \"envelopes\": ["
                                   FX_ENV ("a-h100", "", 64, "") "] }", FX_END);
    jt_budgets_t *bb = fx_budgets (FX_LENDER ("b", 8, true, "\"*\"", ""),
                                   "{ \"owner\": \"c\", \"envelopes\": ["
                                   FX_ENV ("c-h100", "", 8, "") "] }", FX_END);
    jt_sim_summary_t s;
    jt_sim_trace_t t;
    jt_sim_result_t *r;

    r = replay (room, ba, "1x2x8:h100", "best-fit", &t);
    is (starts (r), "j1:0 j2:0 j3:1000", "no activation: the gang waits for the ends");
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);
    r = replay (room, ba, "1x2x8:h100", "best-fit,maxwait=60", &t);
    jt_sim_summarize (r, &s);
    is (starts (r), "j1:170 j2:170 j3:70", "maxwait=60: the gang starts at 10 + 60");
    ok (s.preemptions == 2 && s.gpus_evicted == 16 && r->preempted[0] == 1
        && r->preempted[1] == 1 && r->preempted[2] == 0,
        "two runs gave way, 16 GPUs evicted");
    ok (s.utilization > 0.999999 && s.utilization < 1.000001,
        "the evicted attempts count as work (%f)", s.utilization);
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);
    /* checkpointing every 50 s, j1 and j2 keep 50 of their 70 s: they run
     * 950 s more from 170, to 1120 */
    r = replay (room, ba, "1x2x8:h100", "best-fit,maxwait=60,checkpoint=50", &t);
    is (starts (r), "j1:170 j2:170 j3:70", "checkpoint=50: the same starts");
    ok (r->end[0] == 1120 && r->end[1] == 1120 && r->end[2] == 170,
        "they resume from their checkpoint at 50 s (end 1120, not 1170)");
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);

    r = replay (reclaim, bb, "1x4x8:h100", "best-fit", &t);
    is (starts (r), "k1:0 k2:1000", "no preemption: the lender waits for its GPUs");
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);
    r = replay (reclaim, bb, "1x4x8:h100", "best-fit,preempt", &t);
    jt_sim_summarize (r, &s);
    is (starts (r), "k1:110 k2:10", "preempt: the lender reclaims at once");
    /* borrowed: 8 GPUs x 10 s before the reclaim + 8 x 1000 after */
    ok (s.preemptions == 1 && s.gpus_evicted == 16
        && s.borrowed_gpu_hours > 2.2444 && s.borrowed_gpu_hours < 2.2445
        && s.lent_gpu_hours == s.borrowed_gpu_hours,
        "one run gave way; borrowed GPU-hours count what ran (%f)",
        s.borrowed_gpu_hours);
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);
    jt_budgets_destroy (ba);
    jt_budgets_destroy (bb);
}

static void test_spares_by_hand (void)
{
    /* A spare node is paid like the group's (a Spare lease on the same
     * envelope, as slurmctld's snapshot has it): s1 (8 GPUs, one spare)
     * holds 2 nodes and 16 GPUs of a's 16, so s2 (8 GPUs, t=1) waits for
     * funding until s1 ends at 100 although two nodes are free. */
    const char *trace = HDR "s1,0,100,100,8,,a,,--spares=1\ns2,1,100,100,8,,a,,\n";
    jt_budgets_t *b = fx_budgets ("{ \"owner\": \"a\", \"envelopes\": ["
                                  FX_ENV ("a-h100", "", 16, "") "] }", FX_END);
    jt_sim_trace_t t;
    jt_sim_result_t *r;

    r = replay (trace, b, "1x4x8:h100", "best-fit", &t);
    is (starts (r), "s1:0 s2:100", "a spare node is paid: s2 waits for funding");
    ok (r->gpus[0] == 16, "s1 holds its node and its spare (16 GPUs)");
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);
    jt_budgets_destroy (b);
}

/* "id:gpus" for each job in trace order (GPUs held at its end). */
static const char *held (const jt_sim_result_t *r)
{
    static char buf[1024];

    buf[0] = '\0';
    for (size_t j = 0; j < r->njobs; j++) {
        size_t l = strlen (buf);
        snprintf (buf + l, sizeof (buf) - l, "%s%s:%lld", l ? " " : "",
                  r->trace->jobs[j].id, (long long) r->gpus[j]);
    }
    return buf;
}

static void test_structural_by_hand (void)
{
    /* Structural cuts come before the lottery, as in slurmctld
     * (activate.h's order; plugins/select/activation.c with structural
     * true). Every case is best-fit with maxwait=60: the waiting run is
     * reserved at 10 and activates at 70.
     *
     * Spare: 1 domain x 2 nodes. s1 (8 GPUs, one spare, 1000 s) holds
     * both nodes; j2 (8 GPUs, t=10, 100 s) needs one. Its deficit (8) is
     * covered by s1's spare: dropped at 70, s1 keeps running on its node
     * to 1000, j2 runs 70..170. Nobody is requeued. GPU-seconds: s1 8 x
     * 1000 + its spare 8 x 70 + j2 8 x 100 = 9360 over 16 GPUs x 1000 s:
     * utilization 0.585. */
    const char *spare = HDR "s1,0,1000,1000,8,,a,,--spares=1\n"
                            "j2,10,100,100,8,,a,,\n";
    /* Shrink: 1 domain x 4 nodes. m1 (malleable 16..32 GPUs in groups of
     * 8, 1000 s) starts with 32 on all 4 nodes; j2 (16 GPUs in one group,
     * t=10, 100 s) needs 2. At 70 m1 gives up its two highest groups (3,
     * then 2) and keeps 16 GPUs to 1000; j2 runs 70..170. GPU-seconds:
     * 16 x 1000 + 16 x 70 + 16 x 100 = 18720 over 32 x 1000: 0.585. */
    const char *shrink = HDR "m1,0,1000,1000,32,,a,,--group-gpus=8 --malleable=16:32\n"
                             "j2,10,100,100,16,,a,,--group-gpus=16\n";
    /* Both, then the lottery: 1 domain x 4 nodes. s1 (8 GPUs + a spare)
     * and m2 (malleable 8..16, groups of 8) hold 2 nodes each; j3 (24 GPUs
     * in one group, t=10) needs 3 nodes. At 70: s1's spare (8), then m2's
     * group 1 (8, down to its minimum), then 8 GPUs are still short: the
     * lottery takes one whole run of the two left (each holds 8 there). */
    const char *both = HDR "s1,0,1000,1000,8,,a,,--spares=1\n"
                           "m2,0,1000,1000,16,,a,,--group-gpus=8 --malleable=8:16\n"
                           "j3,10,100,100,24,,a,,--group-gpus=24\n";
    jt_budgets_t *b = fx_budgets ("{ \"owner\": \"a\", \"envelopes\": ["
                                  FX_ENV ("a-h100", "", 64, "") "] }", FX_END);
    jt_sim_summary_t s;
    jt_sim_trace_t t;
    jt_sim_result_t *r;

    r = replay (spare, b, "1x2x8:h100", "best-fit,maxwait=60", &t);
    jt_sim_summarize (r, &s);
    is (starts (r), "s1:0 j2:70", "spare: j2 starts at 70 on the dropped spare");
    is (held (r), "s1:8 j2:8", "spare: s1 keeps its node (16 GPUs -> 8)");
    ok (s.spares_dropped == 1 && s.runs_shrunk == 0 && s.preemptions == 0
        && s.gpus_cut == 8 && r->shrunk[0] == 1 && r->end[0] == 1000,
        "spare: one spare dropped, no shrink, nobody requeued, s1 ends at 1000");
    ok (s.utilization > 0.584999 && s.utilization < 0.585001,
        "spare: the spare's 70 s count as work (%f)", s.utilization);
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);

    r = replay (shrink, b, "1x4x8:h100", "best-fit,maxwait=60", &t);
    jt_sim_summarize (r, &s);
    is (starts (r), "m1:0 j2:70", "shrink: j2 starts at 70 on m1's two groups");
    is (held (r), "m1:16 j2:16", "shrink: m1 keeps its minimum, 16 GPUs");
    ok (s.runs_shrunk == 1 && s.spares_dropped == 0 && s.preemptions == 0
        && s.gpus_cut == 16 && r->end[0] == 1000,
        "shrink: one run shrunk by 16 GPUs, nobody requeued, m1 ends at 1000");
    ok (s.utilization > 0.584999 && s.utilization < 0.585001,
        "shrink: utilization %f (0.585)", s.utilization);
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);

    r = replay (both, b, "1x4x8:h100", "best-fit,maxwait=60", &t);
    jt_sim_summarize (r, &s);
    ok (s.spares_dropped == 1 && s.runs_shrunk == 1 && s.preemptions == 1
        && s.gpus_cut == 16 && s.gpus_evicted == 8,
        "spare, shrink, then one lottery draw (spares %zu, shrunk %zu, requeued %zu)",
        s.spares_dropped, s.runs_shrunk, s.preemptions);
    ok (r->start[2] == 70 && r->preempted[0] + r->preempted[1] == 1
        && r->shrunk[0] == 1 && r->shrunk[1] == 1,
        "j3 starts at 70; exactly one of s1 and m2 gave way, both were cut first");
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);

    /* Without activation the same traces wait for the ends at 1000. */
    r = replay (shrink, b, "1x4x8:h100", "best-fit", &t);
    is (starts (r), "m1:0 j2:1000", "no activation: j2 waits for m1's end");
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);
    jt_budgets_destroy (b);
}

static void test_hold_by_hand (void)
{
    /* A funding hold counts from its run's latest estimate, as slurmctld's
     * does (jtsel_ledger_holds, jt_ledger_sink_hold_start): backfill
     * re-plans the run every pass and the hold follows. 2 domains x 2
     * nodes; a has 16 GPUs, b 32. x1 (a, 8, ends at 5, limit 300) and x2
     * (a, 8, 200 s) fill d000, p (b) one node of d001. A (a, one group of
     * 16, t=1) waits: d000 frees by the limits at 300, funding at 200: its
     * first estimate is 300. At 5 x1 ends and the re-plan says 200, so a's
     * 16 GPUs are held from 200. B (a, 8 GPUs, t=10, 240 s: to 250) fits on
     * d001's free node and in a's envelope now, but would still run at 200
     * (8 + 16 > 16): it waits, A starts at 200 and B when A is done (300).
     * A hold kept at the first estimate (300, the rule before) let B start
     * at 10 and A only at 250, overtaken. */
    const char *trace = HDR "x1,0,5,300,8,,a,,\nx2,0,200,200,8,,a,,\n"
                            "p,0,1000,1000,8,,b,,\n"
                            "A,1,100,100,16,,a,,--group-gpus=16\n"
                            "B,10,240,240,8,,a,,\n";
    jt_budgets_t *b = fx_budgets ("{ \"owner\": \"a\", \"envelopes\": ["
                                  FX_ENV ("a-h100", "", 16, "") "] }",
                                  "{ \"owner\": \"b\", \"envelopes\": ["
                                  FX_ENV ("b-h100", "", 32, "") "] }", FX_END);
    jt_sim_trace_t t;
    jt_sim_result_t *r;

    r = replay (trace, b, "2x2x8:h100", "best-fit", &t);
    is (starts (r), "x1:0 x2:0 p:0 A:200 B:300",
        "the hold follows the re-plan (200): B waits, A starts at 200, B at 300");
    jt_sim_result_destroy (r);
    jt_sim_trace_free (&t);
    jt_budgets_destroy (b);
}

static void test_timeline_bound (void)
{
    /* One job of 100 years sampled every minute would be 52.6 M samples:
     * the timeline keeps at most JT_SIM_SAMPLES_MAX by doubling the
     * interval (60 s x 2^10 = 61440 s: 51,470 samples), on one grid. */
    jt_budgets_t *b = fx_budgets ("{ \"owner\": \"a\", \"envelopes\": ["
                                  FX_ENV ("a-h100", "", 8, "") "] }", FX_END);
    jt_sim_trace_t t = trace_of (HDR "long,0,3162240000,0,1,,a,,\n");
    jt_snapshot_t *s = NULL;
    jt_sim_result_t *r;
    jt_sim_policy_t p;
    jt_sim_opts_t o;
    jt_error_t e;
    bool grid = true;

    jt_sim_opts_init (&o);
    o.sample = 60;
    jt_sim_policy_parse ("best-fit", &p, &e);
    if (!(s = jt_sim_cluster ("1x1x8:h100", &e)) || !(r = jt_sim_run (&t, b, s, &p, &o, &e))) {
        printf ("Bail out! %s\n", e.text);
        exit (255);
    }
    for (size_t i = 1; i < r->nsamples; i++)
        grid = grid && r->samples[i].t - r->samples[i - 1].t == 61440;
    ok (r->nsamples <= JT_SIM_SAMPLES_MAX && r->nsamples > JT_SIM_SAMPLES_MAX / 2
        && grid && r->samples[r->nsamples - 1].t >= 3162240000,
        "a 100-year trace keeps %zu samples 61440 s apart", r->nsamples);
    ok (r->samples[1].busy == 1 && r->samples[r->nsamples - 1].busy == 0,
        "the job is seen running, then gone");
    jt_sim_result_destroy (r);
    jt_snapshot_destroy (s);
    jt_sim_trace_free (&t);
    jt_budgets_destroy (b);
}

int main (void)
{
    test_reader ();
    test_inputs ();
    test_policies_by_hand ();
    test_backfill_by_hand ();
    test_funding_by_hand ();
    test_determinism ();
    test_activation_by_hand ();
    test_spares_by_hand ();
    test_structural_by_hand ();
    test_hold_by_hand ();
    test_timeline_bound ();
    done_testing ();
}
