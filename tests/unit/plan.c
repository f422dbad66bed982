/*
 * plan.c - unit tests of Plan (Cover then Pack, to a decision): a group is
 * placed only on nodes matching its payer's selector, cross-group spread,
 * policies, spares, borrowing, the Reject/Plan-Later split, the outputs;
 * and property tests over random budgets and clusters (fixed seeds).
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

#include <json-c/json.h>

#include "jobtree/labels.h"
#include "jobtree/plan.h"
#include "jobtree/record.h"
#include "fixtures.h"
#include "tap.h"

#define RUN(owner, total, extra) \
    "{ \"owner\": \"" owner "\", \"resources\": { \"gpuType\": \"h100\"," \
    " \"totalGPUs\": " #total " }" extra " }"
#define GROUP(g) ", \"locality\": { \"groupGPUs\": " #g " }"
#define RAI(envs) "{ \"owner\": \"rai\", \"envelopes\": [" envs "] }"
#define WEST FX_ENV ("west-h100", "\"region\": \"west\"", 256, "")

/* Two domains of region west: A with na free nodes, B with nb. */
static jt_snapshot_t *two_domains (int na, int nb)
{
    char spec[128];

    snprintf (spec, sizeof (spec), "a01-a%02d region=west,fabric.domain=A;"
              " b01-b%02d region=west,fabric.domain=B", na, nb);
    return fx_cluster (spec);
}

/* Plan r at FX_NOW (pack-to-empty) and check its dump and its detail,
 * each under its own name. */
static void plan_detail_is (const jt_budgets_t *b, const jt_snapshot_t *s,
                            const jt_run_t *r, const char *want, const char *name,
                            const char *detail, const char *detail_name)
{
    jt_plan_t p;

    is (fx_plan (b, s, NULL, r, JT_PACK_TO_EMPTY, &p), want, "%s", name);
    is (p.detail, detail, "%s", detail_name);
    jt_plan_free (&p);
}

static void test_payer_selector (void)
{
    jt_budgets_t *b = fx_budgets (
        "{ \"owner\": \"research\", \"envelopes\": ["
        FX_ENV ("east-h100", "\"region\": \"east\"", 128, "") "] }",
        "{ \"owner\": \"rai\", \"parent\": \"research\", \"envelopes\": ["
        FX_ENV ("west-h100", "\"region\": \"west\"", 128, "") "] }", FX_END);
    jt_snapshot_t *s = fx_cluster ("w01-w04 region=west,fabric.domain=W;"
                                   " e01-e08 region=east,fabric.domain=E");
    jt_run_t *r = fx_run (RUN ("rai", 64, GROUP (32)));
    jt_plan_t p;

    is (fx_plan (b, s, NULL, r, JT_PACK_TO_EMPTY, &p),
        "BindNow total=64"
        " | g0 32 west/W[w01:8 w02:8 w03:8 w04:8] west-h100"
        " | g1 32 east/E[e01:8 e02:8 e03:8 e04:8] east-h100",
        "a group goes only to nodes matching its payer's selector (W before"
        " the emptier E); the next payer's location takes the next group");
    is_int (p.nsegs, 2, "two cover segments");
    is_int (p.segs[1].source, JT_SRC_PARENT, "second segment paid by the parent");
    is_int (p.residual[0], 32, "residual east/E");
    is_int (p.residual[1], 0, "residual west/W");
    is_int (p.groups[0].role, JT_ROLE_ACTIVE, "owned group is Active");

    char *json = jt_plan_to_json (&p, s);
    json_object *o = json ? json_tokener_parse (json) : NULL;
    is (o ? json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN
                                               | JSON_C_TO_STRING_NOSLASHESCAPE)
          : "(invalid)",
        "{\"decision\":\"BindNow\",\"reason\":\"OK\",\"detail\":\"\","
        "\"requestedGPUs\":64,\"totalGPUs\":64,\"cover\":["
        "{\"envelope\":\"west-h100\",\"owner\":\"rai\",\"source\":\"owner\","
        "\"firstGroup\":0,\"groups\":1,\"gpus\":32},"
        "{\"envelope\":\"east-h100\",\"owner\":\"research\",\"source\":\"parent\","
        "\"firstGroup\":1,\"groups\":1,\"gpus\":32}],\"groups\":["
        "{\"index\":0,\"gpus\":32,\"domain\":\"west/W\",\"envelope\":\"west-h100\","
        "\"owner\":\"rai\",\"source\":\"owner\",\"role\":\"Active\",\"nodes\":["
        "{\"name\":\"w01\",\"gpus\":8},{\"name\":\"w02\",\"gpus\":8},"
        "{\"name\":\"w03\",\"gpus\":8},{\"name\":\"w04\",\"gpus\":8}],\"spares\":[]},"
        "{\"index\":1,\"gpus\":32,\"domain\":\"east/E\",\"envelope\":\"east-h100\","
        "\"owner\":\"research\",\"source\":\"parent\",\"role\":\"Active\",\"nodes\":["
        "{\"name\":\"e01\",\"gpus\":8},{\"name\":\"e02\",\"gpus\":8},"
        "{\"name\":\"e03\",\"gpus\":8},{\"name\":\"e04\",\"gpus\":8}],\"spares\":[]}],"
        "\"residual\":[{\"domain\":\"east/E\",\"freeGPUs\":32},"
        "{\"domain\":\"west/W\",\"freeGPUs\":0}]}",
        "JSON: decision, cover, groups with nodes and payers, residual");
    json_object_put (o);
    free (json);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    ok (jt_plan_print (&p, s, f) == 0, "print");
    fclose (f);
    is (buf,
        "decision:   BindNow\n"
        "reason:     -\n"
        "requested:  64 GPUs\n"
        "bound:      64 GPUs\n"
        "\n"
        "cover:\n"
        "  ENVELOPE   OWNER     SOURCE   GROUPS   GPUS\n"
        "  west-h100  rai       owner    0        32\n"
        "  east-h100  research  parent   1        32\n"
        "\n"
        "groups:\n"
        "  GROUP  GPUS   DOMAIN  PAYER      ROLE      NODES\n"
        "  0      32     west/W  west-h100  Active    w[01-04]:8\n"
        "  1      32     east/E  east-h100  Active    e[01-04]:8\n"
        "\n"
        "residual free GPUs:\n"
        "  DOMAIN  FREE\n"
        "  east/E  32\n"
        "  west/W  0\n", "human table");
    free (buf);
    jt_plan_free (&p);
    jt_plan_free (&p);
    jt_run_destroy (r);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

/* A soft run (no groupGPUs) paid by two envelopes, whole nodes each
 * (owner first): etc/'s shape, rai-west 64 + rai-east 32, west W has 8
 * nodes, east E 4. Before, the 96 GPUs were one group no envelope could
 * hold: Reject. */
static void test_soft_owner_first (void)
{
    jt_budgets_t *b = fx_budgets (RAI (
        FX_ENV ("rai-west", "\"region\": \"west\"", 64, "") ","
        FX_ENV ("rai-east", "\"region\": \"east\"", 32, "")), FX_END);
    /* west W has 8 nodes, east E 4; busy: two of west's nodes used */
    jt_snapshot_t *s = fx_cluster ("w01-w08 region=west,fabric.domain=W;"
                                   " e01-e04 region=east,fabric.domain=E");
    jt_snapshot_t *busy = fx_cluster ("w01-w08 busy=2 region=west,fabric.domain=W;"
                                      " e01-e04 region=east,fabric.domain=E");
    jt_run_t *r96 = fx_run (RUN ("rai", 96, ""));
    jt_run_t *r128 = fx_run (RUN ("rai", 128, ""));
    jt_run_t *g96 = fx_run (RUN ("rai", 96, GROUP (96)));
    jt_plan_t p;

    is (fx_plan (b, s, NULL, r96, JT_PACK_TO_EMPTY, &p),
        "BindNow total=96"
        " | g0 64 west/W[w01:8 w02:8 w03:8 w04:8 w05:8 w06:8 w07:8 w08:8] rai-west"
        " | g0 32 east/E[e01:8 e02:8 e03:8 e04:8] rai-east",
        "96 soft GPUs: the owner's west envelope pays 8 nodes, east 4");
    is_int (p.nsegs, 2, "two cover segments of group 0");
    ok (p.nsegs == 2 && p.segs[0].gpus == 64 && p.segs[1].gpus == 32
        && p.segs[0].first_group == 0 && p.segs[1].first_group == 0,
        "segments: 64 + 32, both group 0");
    jt_plan_free (&p);
    is (fx_plan (b, s, NULL, r96, JT_PACK_BEST_FIT, NULL),
        "BindNow total=96"
        " | g0 64 west/W[w01:8 w02:8 w03:8 w04:8 w05:8 w06:8 w07:8 w08:8] rai-west"
        " | g0 32 east/E[e01:8 e02:8 e03:8 e04:8] rai-east",
        "best-fit: the same partition");
    is (fx_plan (b, s, NULL, r128, JT_PACK_TO_EMPTY, NULL),
        "Reject InsufficientCapacity total=0 want=128",
        "128 soft GPUs: over 64 + 32, refused");
    is (fx_plan (b, s, NULL, g96, JT_PACK_TO_EMPTY, NULL),
        "Reject InsufficientCapacity total=0 want=96",
        "one 96-GPU group is never split between envelopes");

    /* two of west's nodes busy: west's nodes hold 48 of its 64 */
    plan_detail_is (b, busy, r96, "PlanLater NoDomainFits total=0 want=96"
                    " | pay rai-west g0 64 | pay rai-east g0 32",
                    "west's nodes hold 48: Plan-Later, paid 64 + 32 when room frees",
                    "group 0 (soft, 96 GPUs): 80 placed on nodes its payers may use;"
                    " envelope rai-west pays 64 GPUs: soft demand of 64 GPUs: only 48"
                    " placeable", "the detail: how much was placed, whose nodes fell short");
    jt_run_destroy (r96);
    jt_run_destroy (r128);
    jt_run_destroy (g96);
    jt_snapshot_destroy (s);
    jt_snapshot_destroy (busy);
    jt_budgets_destroy (b);
}

/* A soft group that must lie in one domain (spread off) or one class
 * (--group-by) is paid owner first by whole nodes too, each payer's share
 * placed in the domain (class) being tried; the first in Pack's order where
 * the payers together place it wins (issue 8). rai has 32 GPUs of headroom
 * left (32 of 64 in use), its sibling vision 32, the parent research 64: a
 * 48-GPU run was paid whole by research before. */
#define FAMILY_WEST(vsel, rsel) \
    "{ \"owner\": \"research\", \"envelopes\": [" \
    FX_ENV ("research-west", rsel, 64, "") "] }", \
    "{ \"owner\": \"vision\", \"parent\": \"research\", \"envelopes\": [" \
    FX_ENV ("vision-west", vsel, 32, "") "] }", \
    "{ \"owner\": \"rai\", \"parent\": \"research\", \"envelopes\": [" \
    FX_ENV ("rai-west", "\"region\": \"west\"", 64, "") "] }"
#define SOFT_OFF(total) RUN ("rai", total, ", \"locality\": {" \
                             " \"allowCrossGroupSpread\": false }")

static void test_soft_one_domain (void)
{
    jt_budgets_t *b = fx_budgets (FAMILY_WEST ("\"region\": \"west\"",
                                               "\"region\": \"west\""), FX_END);
    jt_snapshot_t *s = two_domains (8, 4), *small = two_domains (5, 4);
    jt_snapshot_t *racks = fx_cluster (
        "a01-a04 region=west,fabric.domain=A,rack=r1;"
        " a05-a10 region=west,fabric.domain=A,rack=r2;"
        " b01-b05 region=west,fabric.domain=B,rack=r3");
    jt_run_t *off = fx_run (SOFT_OFF (48));
    jt_run_t *rack = fx_run (RUN ("rai", 48, ", \"locality\": { \"groupBy\": \"rack\" }"));
    jt_run_t *offrack = fx_run (RUN ("rai", 48, ", \"locality\": {"
                                     " \"allowCrossGroupSpread\": false,"
                                     " \"groupBy\": \"rack\" }"));
    jt_usage_t u;
    jt_plan_t p;
    char d1[1024];

    jt_usage_init (&u, b);
    fx_use (&u, b, "rai-west:rai:32");
    const char *in_a = "BindNow total=48"
                       " | g0 32 west/A[a01:8 a02:8 a03:8 a04:8] rai-west"
                       " | g0 16 west/A[a05:8 a06:8] vision-west";
    is (fx_plan (b, s, &u, off, JT_PACK_TO_EMPTY, &p), in_a,
        "spread off: rai pays its 32, the sibling vision 16, both in A");
    ok (p.nsegs == 2 && p.segs[0].gpus == 32 && p.segs[1].gpus == 16
        && p.segs[1].source == JT_SRC_SIBLING,
        "two segments of group 0: owner 32, sibling 16");
    /* the record: a bound lease per payer, each with its envelope */
    char *text = jt_jobrec_format (off, NULL);
    jt_error_t err = { "" };
    char *bound = text ? jt_jobrec_bind (text, &p, s, fx_time (FX_NOW), &err) : NULL;
    jt_jobrec_t rec;
    memset (&rec, 0, sizeof (rec));
    ok (bound && jt_jobrec_parse (bound, &rec, &err) == 0, "record bound: %s",
        err.text);
    ok (rec.nbound == 2 && rec.bound[0].group == 0 && rec.bound[1].group == 0
        && strcmp (rec.bound[0].envelope, "rai-west") == 0
        && strcmp (rec.bound[1].envelope, "vision-west") == 0
        && rec.bound[0].gpus == 32 && rec.bound[1].gpus == 16
        && rec.bound[0].role == JT_ROLE_ACTIVE && rec.bound[1].role == JT_ROLE_ACTIVE,
        "the record: two leases of group 0, rai-west 32 and vision-west 16");
    jt_jobrec_free (&rec);
    free (bound);
    free (text);
    /* jobtree plan's table: a row per payer */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    ok (jt_plan_print (&p, s, f) == 0, "print");
    fclose (f);
    ok (buf && strstr (buf,
        "  0      32     west/A  rai-west     Active    a[01-04]:8\n"
        "  0      16     west/A  vision-west  Active    a[05-06]:8\n"),
        "jobtree plan: group 0 twice, each with its payer:\n%s", buf);
    free (buf);
    jt_plan_free (&p);
    snprintf (d1, sizeof (d1), "%s", fx_plan (b, s, &u, off, JT_PACK_BEST_FIT, NULL));
    is (d1, in_a, "best-fit: B (32 free) cannot hold 48, so A again");
    is (fx_plan (b, s, &u, off, JT_PACK_BEST_FIT, NULL), d1, "the same again");

    /* group-by rack: one rack; r2 (48 free) before r3 (40) and r1 (32) */
    const char *in_r2 = "BindNow total=48"
                        " | g0 32 west/A[a05:8 a06:8 a07:8 a08:8] rai-west"
                        " | g0 16 west/A[a09:8 a10:8] vision-west";
    is (fx_plan (b, racks, &u, rack, JT_PACK_TO_EMPTY, NULL), in_r2,
        "--group-by rack: rai 32 and vision 16 in one rack (A r2)");
    is (fx_plan (b, racks, &u, offrack, JT_PACK_TO_EMPTY, NULL), in_r2,
        "--group-by rack, spread off: the same");
    is (fx_plan (b, racks, &u, rack, JT_PACK_BEST_FIT, NULL), in_r2,
        "--group-by rack, best-fit: the only rack that holds 48");

    /* no domain holds it: Plan-Later, funded owner first */
    is (fx_plan (b, small, &u, off, JT_PACK_TO_EMPTY, &p),
        "PlanLater SingleDomainFull total=0 want=48"
        " | pay rai-west g0 32 | pay vision-west g0 16",
        "A 40 free, B 32: no domain holds 48, Plan-Later");
    is (p.detail, "no domain holds group 0 (soft, 48 GPUs) on nodes its payers"
        " may use; most free is west/A with 40", "the detail: the most free domain");
    jt_plan_free (&p);
    jt_usage_free (&u);
    jt_run_destroy (off);
    jt_run_destroy (rack);
    jt_run_destroy (offrack);
    jt_snapshot_destroy (s);
    jt_snapshot_destroy (small);
    jt_snapshot_destroy (racks);
    jt_budgets_destroy (b);

    /* vision and research may use only the shared pool: A has one shared
     * node, B six. A (64 free) comes first: rai places 32 there, vision 8
     * of its 16, research nothing; B then holds all of it. */
    b = fx_budgets (FAMILY_WEST ("\"region\": \"west\", \"pool\": \"shared\"",
                                 "\"region\": \"west\", \"pool\": \"shared\""),
                    FX_END);
    jt_snapshot_t *pool = fx_cluster (
        "a01-a07 region=west,fabric.domain=A,pool=own;"
        " a08-a08 region=west,fabric.domain=A,pool=shared;"
        " b01-b06 region=west,fabric.domain=B,pool=shared");
    jt_snapshot_t *pool_a = fx_cluster (
        "a01-a07 region=west,fabric.domain=A,pool=own;"
        " a08-a08 region=west,fabric.domain=A,pool=shared;"
        " b01-b06 busy=6 region=west,fabric.domain=B,pool=shared");
    jt_usage_init (&u, b);
    fx_use (&u, b, "rai-west:rai:32");
    off = fx_run (SOFT_OFF (48));
    is (fx_plan (b, pool, &u, off, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=48 | g0 32 west/B[b01:8 b02:8 b03:8 b04:8] rai-west"
        " | g0 16 west/B[b05:8 b06:8] vision-west",
        "A's shared node holds 8 of vision's 16: the whole group goes to B");
    jt_plan_t q;
    is (fx_plan (b, pool_a, &u, off, JT_PACK_TO_EMPTY, &q),
        "PlanLater SingleDomainFull total=0 want=48"
        " | pay rai-west g0 32 | pay vision-west g0 16",
        "B busy: only A, where the payers' nodes hold 40");
    is (q.detail, "no domain holds group 0 (soft, 48 GPUs) on nodes its payers"
        " may use; most placed: 40 in west/A (envelope vision-west pays 16 GPUs:"
        " soft demand of 16 GPUs: only 8 placeable)",
        "the detail: where the payers came closest and whose nodes fell short");
    jt_plan_free (&q);
    jt_usage_free (&u);
    jt_run_destroy (off);
    jt_snapshot_destroy (pool);
    jt_snapshot_destroy (pool_a);
    jt_budgets_destroy (b);
}

/* Spread off with --group-by: the whole run shares one value, so Plan tries
 * it class by class. A: rack r1 has one free node (a01 busy), r2 three;
 * B: r3 four. Best-fit's smallest class that holds the first group (r1)
 * cannot hold the other two; the run must still bind on the smallest class
 * that holds all three (r2), not fall to B or wait. */
static void test_spread_off_group_by (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST), FX_END);
    jt_snapshot_t *s = fx_cluster ("a01-a02 busy=1 region=west,fabric.domain=A,rack=r1;"
                                   " a03-a05 region=west,fabric.domain=A,rack=r2;"
                                   " b01-b04 region=west,fabric.domain=B,rack=r3");
    jt_run_t *r = fx_run (RUN ("rai", 24, ", \"locality\": { \"groupGPUs\": 8,"
                               " \"allowCrossGroupSpread\": false, \"groupBy\": \"rack\" }"));

    is (fx_plan (b, s, NULL, r, JT_PACK_BEST_FIT, NULL),
        "BindNow total=24 | g0 8 west/A[a03:8] west-h100 | g1 8 west/A[a04:8] west-h100"
        " | g2 8 west/A[a05:8] west-h100",
        "best-fit, spread off, group-by: the smallest rack that holds all three (A r2)");
    is (fx_plan (b, s, NULL, r, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=24 | g0 8 west/B[b01:8] west-h100 | g1 8 west/B[b02:8] west-h100"
        " | g2 8 west/B[b03:8] west-h100",
        "pack-to-empty, spread off, group-by: the most free rack (B r3)");
    jt_run_destroy (r);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

static void test_spread (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST), FX_END);
    jt_snapshot_t *s1 = two_domains (6, 5), *s2 = two_domains (6, 8);
    jt_run_t *on = fx_run (RUN ("rai", 64, GROUP (32)));
    jt_run_t *off = fx_run (RUN ("rai", 64, ", \"locality\": { \"groupGPUs\": 32,"
                                 " \"allowCrossGroupSpread\": false }"));
    jt_plan_t p;

    is (fx_plan (b, s1, NULL, on, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=64 | g0 32 west/A[a01:8 a02:8 a03:8 a04:8] west-h100"
        " | g1 32 west/B[b01:8 b02:8 b03:8 b04:8] west-h100",
        "spread on: groups in different domains, each single-domain");
    plan_detail_is (b, s1, off,
                    "PlanLater SingleDomainFull total=0 want=64 | pay west-h100 g0-g1 64",
                    "spread off and no domain holds 64: PlanLater SingleDomainFull",
                    "no domain holds all 2 groups (64 GPUs) on nodes its payers"
                    " may use; most free is west/A with 48", "SingleDomainFull detail");
    is (fx_plan (b, s2, NULL, off, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=64 | g0 32 west/B[b01:8 b02:8 b03:8 b04:8] west-h100"
        " | g1 32 west/B[b05:8 b06:8 b07:8 b08:8] west-h100",
        "spread off: both groups in the first domain that holds them");
    jt_run_t *soft = fx_run (RUN ("rai", 64, ", \"locality\": {"
                                  " \"allowCrossGroupSpread\": false }"));
    is (fx_plan (b, s1, NULL, soft, JT_PACK_TO_EMPTY, &p),
        "PlanLater SingleDomainFull total=0 want=64 | pay west-h100 g0 64",
        "soft run, spread off: its chunks may not span domains");
    jt_plan_free (&p);
    is (fx_plan (b, s2, NULL, soft, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=64 | g0 64 west/B[b01:8 b02:8 b03:8 b04:8 b05:8 b06:8"
        " b07:8 b08:8] west-h100", "soft run, spread off: one domain that holds it");
    jt_run_destroy (soft);
    jt_run_destroy (on);
    jt_run_destroy (off);
    jt_snapshot_destroy (s1);
    jt_snapshot_destroy (s2);
    jt_budgets_destroy (b);
}

static void test_policy_spares_soft (void)
{
    jt_budgets_t *b = fx_budgets (RAI (WEST), FX_END);
    jt_snapshot_t *s = two_domains (9, 5);
    jt_run_t *r = fx_run (RUN ("rai", 32, GROUP (32)));
    jt_run_t *sp = fx_run (RUN ("rai", 32, GROUP (32) ", \"sparesPerGroup\": 1"));
    jt_run_t *soft = fx_run (RUN ("rai", 96, ""));

    is (fx_plan (b, s, NULL, r, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=32 | g0 32 west/A[a01:8 a02:8 a03:8 a04:8] west-h100",
        "pack-to-empty: the most free domain");
    jt_snapshot_t *s98 = two_domains (9, 8);
    jt_run_t *r96 = fx_run (RUN ("rai", 96, GROUP (32)));
    is (fx_plan (b, s98, NULL, r96, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=96 | g0 32 west/A[a01:8 a02:8 a03:8 a04:8] west-h100"
        " | g1 32 west/A[a05:8 a06:8 a07:8 a08:8] west-h100"
        " | g2 32 west/B[b01:8 b02:8 b03:8 b04:8] west-h100",
        "pack-to-empty across groups: A (72) fills before B (64) is used,"
        " though B has more free after g0");
    jt_run_destroy (r96);
    jt_snapshot_destroy (s98);
    is (fx_plan (b, s, NULL, r, JT_PACK_BEST_FIT, NULL),
        "BindNow total=32 | g0 32 west/B[b01:8 b02:8 b03:8 b04:8] west-h100",
        "best-fit: the smallest domain that holds the group");
    is (fx_plan (b, s, NULL, sp, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=32 | g0 32 west/A[a01:8 a02:8 a03:8 a04:8] s[a05] west-h100",
        "a spare node in the group's domain");
    is (fx_plan (b, s, NULL, soft, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=96 | g0 72 west/A[a01:8 a02:8 a03:8 a04:8 a05:8 a06:8"
        " a07:8 a08:8 a09:8] west-h100 | g0 24 west/B[b01:8 b02:8 b03:8] west-h100",
        "soft group: one payer, chunks fill a domain to empty first");

    /* Huge demands are decided without compiling or trying every total
     * (the largest a run may ask for is 2^20 GPUs: run.c). */
    jt_run_t *huge = fx_run (RUN ("rai", 1048576, GROUP (8)));
    jt_run_t *wide = fx_run (RUN ("rai", 8, GROUP (8) ", \"malleable\": {"
                                  " \"minTotalGPUs\": 8, \"maxTotalGPUs\": 1048576 }"));
    plan_detail_is (b, s, huge,
                    "Reject InsufficientCapacity total=0 want=1048576",
                    "2^20 GPUs: Reject at the first group Cover cannot fund",
                    "envelope west-h100: 0 of 256 GPUs active, run needs 1048576",
                    "Reject detail: the envelope's live usage and the whole run");
    ok (strncmp (fx_plan (b, s, NULL, wide, JT_PACK_TO_EMPTY, NULL),
                 "BindNow total=112 want=1048576 | g0 8 west/A[a01:8]", 49) == 0,
        "malleable up to 2^20: the largest total that binds (all 112 free GPUs)");
    /* Under a budget that could fund a million GPUs, the totals tried are
     * bounded by the 112 free GPUs of the flavor, not by the user's range
     * (before: 131072 totals compiled and tried, seconds per plan). */
    jt_budgets_t *big = fx_budgets (
        RAI (FX_ENV ("west-h100", "\"region\": \"west\"", 1048576, "")), FX_END);
    jt_run_t *vast = fx_run (RUN ("rai", 8, GROUP (8) ", \"malleable\": {"
                                  " \"minTotalGPUs\": 8, \"maxTotalGPUs\": 1048576 }"));
    ok (strncmp (fx_plan (big, s, NULL, vast, JT_PACK_TO_EMPTY, NULL),
                 "BindNow total=112 want=1048576 | g0 8 west/A[a01:8]", 49) == 0,
        "malleable up to 2^20 under a 2^20 envelope: the largest total that binds");
    jt_run_t *vast2 = fx_run (RUN ("rai", 128, GROUP (128) ", \"malleable\": {"
                                   " \"minTotalGPUs\": 128, \"maxTotalGPUs\": 1048576 }"));
    ok (strncmp (fx_plan (big, s, NULL, vast2, JT_PACK_TO_EMPTY, NULL),
                 "PlanLater NoDomainFits", 22) == 0,
        "min above the free GPUs: one total tried, the placement reason: %s",
        fx_plan (big, s, NULL, vast2, JT_PACK_TO_EMPTY, NULL));
    jt_run_destroy (vast);
    jt_run_destroy (vast2);
    jt_budgets_destroy (big);
    jt_run_destroy (huge);
    jt_run_destroy (wide);
    jt_run_destroy (r);
    jt_run_destroy (sp);
    jt_run_destroy (soft);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

/* A group's spare nodes are leases of role Spare paid by the group's payer
 * (calculus section 3; the ledger charges them, so Cover must fund them). */
static void test_spares_funded (void)
{
    jt_budgets_t *tight = fx_budgets (RAI (FX_ENV ("west-h100",
                                      "\"region\": \"west\"", 16, "")), FX_END);
    jt_budgets_t *room = fx_budgets (RAI (FX_ENV ("west-h100",
                                     "\"region\": \"west\"", 24, "")), FX_END);
    jt_budgets_t *two = fx_budgets (RAI (
        FX_ENV ("west-h100", "\"region\": \"west\"", 16, "") ","
        FX_ENV ("west2-h100", "\"region\": \"west\"", 24, "")), FX_END);
    jt_snapshot_t *s = two_domains (4, 4);
    jt_run_t *sp = fx_run (RUN ("rai", 16, GROUP (16) ", \"sparesPerGroup\": 1"));
    jt_run_t *plain = fx_run (RUN ("rai", 16, GROUP (16)));

    plan_detail_is (tight, s, sp, "Reject InsufficientCapacity total=0 want=16",
                    "spares funded: 16 GPUs of concurrency pay the group, not its spare",
                    "group 0 (16 GPUs) and its spare nodes (8 GPUs): envelope"
                    " west-h100 has room for 16",
                    "spares funded: the detail counts the spare's GPUs");
    is (fx_plan (tight, s, NULL, plain, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=16 | g0 16 west/A[a01:8 a02:8] west-h100",
        "spares funded: the same run without a spare binds");
    is (fx_plan (room, s, NULL, sp, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=16 | g0 16 west/A[a01:8 a02:8] s[a03] west-h100",
        "spares funded: 24 GPUs pay the group and its spare");
    is (fx_plan (two, s, NULL, sp, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=16 | g0 16 west/A[a01:8 a02:8] s[a03] west2-h100",
        "spares funded: the next payer in Cover's order that funds both pays");
    jt_run_destroy (plain);
    jt_run_destroy (sp);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (two);
    jt_budgets_destroy (room);
    jt_budgets_destroy (tight);
}

static void test_decisions (void)
{
    jt_budgets_t *b = fx_budgets (RAI (FX_ENV ("west-h100", "\"region\": \"west\"",
                                               64, "")),
                                  FX_LENDER ("vision", 64, true, "\"*\"", ""),
                                  FX_END);
    jt_snapshot_t *s = jt_snapshot_create ();
    char *n[] = { "a01", "a02", "a03", "a04", "a05", "a06" };
    jt_lease_t l = { "c1:1", 0, "rai", "west-h100", n, 6, 48, JT_ROLE_ACTIVE,
                     fx_time ("2026-03-01T11:00:00Z"), 0, 0 };
    jt_error_t err;
    jt_plan_t p;

    fx_nodes (s, "a", 1, 10, "region=west,fabric.domain=A", 8, 6);
    if (jt_snapshot_add_lease (s, &l, &err) < 0)
        bail_out ("lease: %s", err.text);
    fx_finalize (s);

    jt_run_t *r32 = fx_run (RUN ("rai", 32, GROUP (32) ", \"funding\": {"
                                 " \"allowBorrow\": true, \"maxBorrowGPUs\": 0 }"));
    plan_detail_is (b, s, r32,
                    "Reject InsufficientCapacity total=0 want=32",
                    "usage from the snapshot's leases: 48 + 32 > 64 -> Reject",
                    "envelope west-h100: 48 of 64 GPUs active, run needs 32",
                    "Reject detail names the envelope closest to paying");
    jt_run_t *nob = fx_run (RUN ("rai", 32, GROUP (32)));
    plan_detail_is (b, s, nob,
                    "Reject InsufficientCapacity total=0 want=32",
                    "without borrowing, the owner's own bound is what stops it",
                    "envelope west-h100: 48 of 64 GPUs active, run needs 32; sponsor"
                    " envelope vision-h100 (vision) could pay 32 GPUs if the run"
                    " allowed borrowing", "and the detail names a sponsor that could pay");
    jt_run_destroy (nob);

    jt_run_t *r16 = fx_run (RUN ("rai", 16, GROUP (16)));
    is (fx_plan (b, s, NULL, r16, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=16 | g0 16 west/A[a07:8 a08:8] west-h100",
        "only free whole nodes are placed");

    jt_run_t *r40 = fx_run (RUN ("rai", 40, GROUP (8) ", \"funding\": {"
                                 " \"allowBorrow\": true }"));
    is (fx_plan (b, s, NULL, r40, JT_PACK_TO_EMPTY, &p), "PlanLater NoDomainFits"
        " total=0 want=40 | pay west-h100 g0-g1 16 | pay vision-h100 g2-g4 24 borrowed",
        "funded (partly borrowed) but only 4 free nodes: PlanLater");
    ok (strncmp (p.detail, "group 4 (8 GPUs)", 16) == 0,
        "PlanLater detail names the group of the run: %s", p.detail);
    jt_plan_free (&p);

    jt_run_t *r24 = fx_run (RUN ("rai", 24, GROUP (8) ", \"funding\": {"
                                 " \"allowBorrow\": true }"));
    is (fx_plan (b, s, NULL, r24, JT_PACK_TO_EMPTY, &p),
        "BindNow total=24 | g0 8 west/A[a07:8] west-h100 | g1 8 west/A[a08:8]"
        " west-h100 | g2 8 west/A[a09:8] vision-h100 borrowed",
        "a sponsor pays the group the owner cannot");
    is_int (p.groups[2].role, JT_ROLE_BORROWED, "sponsor-paid group is Borrowed");
    is_int (p.residual[0], 8, "residual after the placement");
    jt_plan_free (&p);

    jt_run_t *bad = fx_run (RUN ("rai", 24, GROUP (12)));
    is (fx_plan (b, s, NULL, bad, JT_PACK_TO_EMPTY, NULL),
        "Reject InvalidRun total=0 want=24",
        "groupGPUs not a multiple of the GPUs per node: InvalidRun");
    jt_run_t *h200 = fx_run ("{ \"owner\": \"rai\", \"resources\": {"
                             " \"gpuType\": \"h200\", \"totalGPUs\": 8 } }");
    is (fx_plan (b, s, NULL, h200, JT_PACK_TO_EMPTY, NULL),
        "Reject UnknownFlavor total=0 want=8", "UnknownFlavor");

    jt_snapshot_t *nolabel = fx_cluster ("x01-x04 region=west");
    plan_detail_is (b, nolabel, r16, "Reject NoNodes total=0 want=16",
                    "no node of the flavor has a domain",
                    "no node of flavor h100 has a fabric.domain label", "NoNodes detail");

    jt_snapshot_destroy (nolabel);
    jt_run_destroy (r32);
    jt_run_destroy (r16);
    jt_run_destroy (r40);
    jt_run_destroy (r24);
    jt_run_destroy (bad);
    jt_run_destroy (h200);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

/* ---- property tests ---- */

/* With a single payer, placing the groups one request at a time (as Plan
 * does, to interleave funding) must give what one Pack request of all the
 * groups gives on the same nodes. */
static bool same_as_one_request (const jt_snapshot_t *s, const jt_run_t *r,
                                 const jt_plan_t *p)
{
    jt_pack_view_t *v = jt_pack_view_create (s, r->flavor, NULL);
    jt_groups_t g;
    jt_placement_t pl;
    bool same;

    if (!v || jt_run_compile (r, p->total_gpus, &g, NULL) < 0)
        bail_out ("view or compile failed");
    jt_pack_request_t req = {
        .groups = g.gpus, .ngroups = g.n, .soft = g.soft,
        .single_domain = !r->cross_group_spread,
        .spares_per_group = r->spares_per_group,
        .selector = &p->segs[0].env->selector, .only_domain = -1,
        .policy = JT_PACK_TO_EMPTY,
    };
    same = jt_pack (v, &req, &pl, NULL) == 0 && pl.ngroups == p->ngroups;
    for (size_t i = 0; same && i < pl.ngroups; i++) {
        const jt_pack_group_t *a = &pl.groups[i];
        const jt_plan_group_t *b = &p->groups[i];
        same = a->domain == b->domain && a->nnodes == b->nnodes
               && a->nspares == b->nspares
               && !memcmp (a->nodes, b->nodes, a->nnodes * sizeof (*a->nodes))
               && !memcmp (a->node_gpus, b->node_gpus,
                           a->nnodes * sizeof (*a->node_gpus));
    }
    jt_placement_free (&pl);
    jt_groups_free (&g);
    jt_pack_view_destroy (v);
    return same;
}

/* Pending reasons name the bound that stops the run (issue 11). A payer
 * with room whose nodes are all busy is not the whole story when a domain
 * is idle: if funding keeps the run off it, the detail leads with that
 * bound (here the family's aggregate cap), then says why the payer's nodes
 * will not do. Whole-run numbers: a 4 x 8-GPU run needs 32, not 8. */
static void test_reason_names_the_bound (void)
{
    jt_budgets_t *b = fx_budgets (
        "{ \"owner\": \"research\", \"envelopes\": ["
        FX_ENV ("research-west", "\"region\": \"west\"", 32, "") "] }",
        "{ \"owner\": \"vision\", \"parent\": \"research\", \"envelopes\": ["
        FX_ENV ("vision-west", "\"region\": \"west\"", 32, "") "] }",
        "{ \"owner\": \"rai\", \"parent\": \"research\", \"envelopes\": ["
        FX_ENV ("rai-west", "\"region\": \"west\"", 64, "") ","
        FX_ENV ("rai-east", "\"region\": \"east\"", 32, "")
        "], \"aggregateCaps\": [ { \"name\": \"rai-total\", \"flavor\": \"h100\","
        " \"envelopes\": [\"rai-west\", \"rai-east\"], \"maxConcurrency\": 80 } ] }",
        FX_END);
    /* west A busy, east E idle */
    jt_snapshot_t *s = fx_cluster ("a01-a04 busy=4 region=west,fabric.domain=A;"
                                   " e01-e04 region=east,fabric.domain=E");
    jt_run_t *r16 = fx_run (RUN ("rai", 16, GROUP (16)));
    jt_run_t *r32 = fx_run (RUN ("rai", 32, GROUP (8)));
    jt_usage_t u;
    jt_plan_t p;

    jt_usage_init (&u, b);
    fx_use (&u, b, "rai-west:rai:64 rai-east:rai:16 vision-west:vision:32");
    is (fx_plan (b, s, &u, r16, JT_PACK_TO_EMPTY, &p),
        "PlanLater NoDomainFits total=0 want=16 | pay research-west g0 16",
        "the parent funds it in west, where no node is free: PlanLater");
    is (p.detail, "aggregate cap rai-total: 80 of 80 GPUs active, run needs 16"
        " (envelope rai-east's nodes have room); research-west could pay, but"
        " group 0 (16 GPUs) fits no domain: no domain has a free node",
        "the idle east domain waits on the aggregate cap: the reason names it"
        " first, not 'fits no domain'");
    jt_plan_free (&p);

    /* Nothing can pay: a 4-node run (4 groups of 8) is refused for the
     * whole 32 GPUs it needs, whichever group failed. */
    fx_use (&u, b, "research-west:research:32");
    is (fx_plan (b, s, &u, r32, JT_PACK_TO_EMPTY, &p),
        "Reject AggregateCap total=0 want=32",
        "no candidate can pay: Reject");
    is (p.detail, "aggregate cap rai-total: 80 of 80 GPUs active, run needs 32",
        "the detail counts the whole run (32), not its first group (8)");
    jt_plan_free (&p);
    jt_usage_free (&u);

    /* Room for three of the four groups: still the whole 32 against the
     * envelope's live usage (not 128 of 128 and 8). */
    jt_budgets_t *one = fx_budgets (RAI (FX_ENV ("philly-h100", "", 128, "")), FX_END);
    jt_snapshot_t *s8 = fx_cluster ("a01-a08 fabric.domain=A");
    jt_usage_init (&u, one);
    fx_use (&u, one, "philly-h100:rai:104");
    is (fx_plan (one, s8, &u, r32, JT_PACK_TO_EMPTY, &p),
        "Reject InsufficientCapacity total=0 want=32", "24 free of 128: Reject");
    is (p.detail, "envelope philly-h100: 104 of 128 GPUs active, run needs 32",
        "the envelope's live usage and the run's 32 GPUs");
    jt_plan_free (&p);
    jt_usage_free (&u);
    jt_snapshot_destroy (s8);
    jt_budgets_destroy (one);
    jt_run_destroy (r16);
    jt_run_destroy (r32);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

static void test_properties (void)
{
    static const uint64_t seeds[] = { 1, 42, 4242, 20260301, 987654321 };
    int cases = 0, bound = 0, later = 0, rejected = 0, failures = 0;

    for (size_t si = 0; si < sizeof (seeds) / sizeof (seeds[0]); si++) {
        fx_seed (seeds[si]);
        for (int it = 0; it < 40; it++) {
            jt_budgets_t *b = fx_random_budgets ();
            jt_snapshot_t *s = fx_random_cluster ();
            jt_usage_t u;
            jt_usage_init (&u, b);
            for (size_t e = 0; e < b->nenv; e++)
                if (fx_pick (3) == 0)
                    jt_usage_add (&u, b->env[e], b->env[e]->owner, JT_ROLE_ACTIVE,
                                  8 * fx_pick ((int) (b->env[e]->concurrency / 8) + 1),
                                  (double) fx_pick (200));
            for (int k = 0; k < 5; k++) {
                jt_run_t *r = fx_random_run ();
                jt_plan_t p1, p2;
                char d1[4096];
                const char *why = NULL;
                snprintf (d1, sizeof (d1), "%s",
                          fx_plan (b, s, &u, r, JT_PACK_TO_EMPTY, &p1));
                const char *d2 = fx_plan (b, s, &u, r, JT_PACK_TO_EMPTY, &p2);
                cases++;
                if (strcmp (d1, d2) != 0)
                    why = "not deterministic";
                if (!why && p1.decision != JT_REJECT) {
                    /* cover partitions the demand of the decided total */
                    int64_t sum = 0;
                    size_t next = 0;
                    for (size_t i = 0; i < p1.nsegs; i++) {
                        /* a soft group is paid by whole nodes, owner
                         * first: several segments of group 0 */
                        bool more = i > 0 && jt_cover_soft_splits (r, &(jt_groups_t){
                                        NULL, 1, r->group_gpus <= 0, 0 })
                                    && p1.segs[i].first_group + 1 == next;
                        if (p1.segs[i].first_group != next && !more)
                            why = "segments are not consecutive";
                        next = p1.segs[i].first_group + p1.segs[i].ngroups;
                        sum += p1.segs[i].gpus;
                    }
                    int64_t want = p1.decision == JT_BIND_NOW ? p1.total_gpus
                                   : r->total_gpus;
                    if (sum != want)
                        why = "sum of cover != demand";
                    if (!fx_within_bounds (b, &u, r, p1.segs, p1.nsegs))
                        why = "an envelope is over a bound after charging";
                }
                if (!why && p1.decision == JT_BIND_NOW) {
                    int64_t placed = 0;
                    bool *used = calloc (s->nnodes + 1, sizeof (*used));
                    for (size_t gi = 0; gi < p1.ngroups && !why; gi++) {
                        const jt_plan_group_t *g = &p1.groups[gi];
                        int64_t gs = 0;
                        for (size_t j = 0; j < g->nnodes + g->nspares; j++) {
                            size_t ni = j < g->nnodes ? g->nodes[j]
                                                      : g->spares[j - g->nnodes];
                            const jt_node_t *nd = &s->nodes[ni];
                            if (nd->domain != (int) g->domain)
                                why = "a group spans domains";
                            if (!jt_labels_match (&g->env->selector, &nd->labels))
                                why = "a node does not match its payer's selector";
                            if (used[ni] || nd->used_gpus)
                                why = "a node is over-allocated";
                            used[ni] = true;
                            if (j < g->nnodes)
                                gs += g->node_gpus[j];
                        }
                        if (gs != g->gpus)
                            why = "group GPUs != sum of its nodes";
                        placed += g->gpus;
                        if (!r->cross_group_spread
                            && g->domain != p1.groups[0].domain)
                            why = "spread off but groups in two domains";
                    }
                    if (!why && placed != p1.total_gpus)
                        why = "placed GPUs != total";
                    free (used);
                    if (!why && p1.nsegs == 1 && !same_as_one_request (s, r, &p1))
                        why = "one payer, but not the placement of one Pack request";
                }
                if (p1.decision == JT_BIND_NOW)
                    bound++;
                else if (p1.decision == JT_PLAN_LATER)
                    later++;
                else
                    rejected++;
                if (why) {
                    if (failures++ < 5)
                        diag ("seed %llu case %d: %s: %s", (unsigned long long) seeds[si],
                              cases, why, d1);
                }
                jt_plan_free (&p1);
                jt_plan_free (&p2);
                jt_run_destroy (r);
            }
            jt_usage_free (&u);
            jt_snapshot_destroy (s);
            jt_budgets_destroy (b);
        }
    }
    is_int (failures, 0, "properties hold on %d random cases (%d BindNow, %d"
            " PlanLater, %d Reject)", cases, bound, later, rejected);
    ok (bound > 50 && later > 10 && rejected > 10,
        "the random cases exercise every decision");
}

/* The free whole nodes of domain d that envelope e's selector matches, in
 * GPUs. */
static int64_t free_for (const jt_snapshot_t *s, size_t d, const jt_envelope_t *e)
{
    int64_t sum = 0;

    for (size_t i = 0; i < s->nnodes; i++) {
        const jt_node_t *n = &s->nodes[i];
        if (n->domain == (int) d && n->used_gpus == 0 && n->state == JT_NODE_UP
            && jt_labels_match (&e->selector, &n->labels))
            sum += n->gpus;
    }
    return sum;
}

/* Random soft runs that must lie in one domain (spread off, or grouped by
 * region, a domain key): the same plan twice; bound, every chunk in one
 * domain on nodes of its payer's selector, the cover summing to the total
 * within every bound; and never worse than one payer: when a candidate
 * alone could pay it all and a domain has that many free GPUs on its
 * nodes, it binds. */
static void test_soft_one_domain_props (void)
{
    static const char *owners[] = { "org", "alpha", "beta", "gamma", "delta" };
    int cases = 0, bound = 0, multi = 0, failures = 0;

    fx_seed (2027);
    for (int it = 0; it < 150; it++) {
        jt_budgets_t *b = fx_random_budgets ();
        jt_snapshot_t *s = fx_random_cluster ();
        jt_usage_t u;
        jt_usage_init (&u, b);
        for (size_t e = 0; e < b->nenv; e++)
            if (fx_pick (3) == 0)
                jt_usage_add (&u, b->env[e], b->env[e]->owner, JT_ROLE_ACTIVE,
                              8 * fx_pick ((int) (b->env[e]->concurrency / 8) + 1),
                              0.0);
        for (int k = 0; k < 4; k++) {
            char doc[512];
            bool off = fx_pick (2);
            snprintf (doc, sizeof (doc), "{ \"owner\": \"%s\", \"resources\":"
                      " { \"gpuType\": \"h100\", \"totalGPUs\": %d },"
                      " \"locality\": { %s }%s }", owners[fx_pick (5)],
                      8 * (1 + fx_pick (10)),
                      off ? "\"allowCrossGroupSpread\": false"
                          : "\"groupBy\": \"region\"",
                      fx_pick (2) ? ", \"funding\": { \"allowBorrow\": true }" : "");
            jt_run_t *r = fx_run (doc);
            jt_plan_t p1, p2;
            char d1[4096];
            const char *why = NULL;

            snprintf (d1, sizeof (d1), "%s", fx_plan (b, s, &u, r, JT_PACK_TO_EMPTY, &p1));
            if (strcmp (d1, fx_plan (b, s, &u, r, JT_PACK_TO_EMPTY, &p2)) != 0)
                why = "not deterministic";
            cases++;
            if (!why && p1.decision != JT_REJECT) {
                int64_t sum = 0;
                for (size_t i = 0; i < p1.nsegs; i++) {
                    if (p1.segs[i].first_group != 0 || p1.segs[i].ngroups != 1)
                        why = "a segment not of group 0";
                    sum += p1.segs[i].gpus;
                }
                if (sum != r->total_gpus)
                    why = "sum of cover != demand";
                if (!fx_within_bounds (b, &u, r, p1.segs, p1.nsegs))
                    why = "an envelope is over a bound after charging";
            }
            if (!why && p1.decision == JT_BIND_NOW) {
                int64_t placed = 0;
                bool *used = calloc (s->nnodes + 1, sizeof (*used));
                bound++;
                if (p1.nsegs > 1)
                    multi++;
                for (size_t gi = 0; gi < p1.ngroups; gi++) {
                    const jt_plan_group_t *g = &p1.groups[gi];
                    if (g->domain != p1.groups[0].domain)
                        why = "chunks in two domains";
                    for (size_t j = 0; j < g->nnodes; j++) {
                        const jt_node_t *nd = &s->nodes[g->nodes[j]];
                        if (nd->domain != (int) g->domain
                            || !jt_labels_match (&g->env->selector, &nd->labels)
                            || used[g->nodes[j]] || nd->used_gpus)
                            why = "a node off its domain, its payer's selector,"
                                  " or taken twice";
                        used[g->nodes[j]] = true;
                        placed += g->node_gpus[j];
                    }
                }
                if (placed != r->total_gpus)
                    why = "placed GPUs != total";
                free (used);
            } else if (!why) {
                /* one payer that could do it alone: then it binds */
                jt_coverer_t *c = jt_coverer_create (b, &u, r, fx_time (FX_NOW), NULL);
                for (size_t i = 0; c && i < jt_coverer_count (c) && !why; i++) {
                    const jt_cover_cand_t *cd = jt_coverer_cand (c, i);
                    if (jt_coverer_headroom (c, i, NULL) < r->total_gpus)
                        continue;
                    for (size_t d = 0; d < s->ndomains && !why; d++)
                        if (free_for (s, d, cd->env) >= r->total_gpus)
                            why = "one payer could bind it in one domain, Plan did not";
                }
                jt_coverer_destroy (c);
            }
            if (why && failures++ < 5)
                diag ("case %d: %s: %s (%s)", cases, why, d1, doc);
            jt_plan_free (&p1);
            jt_plan_free (&p2);
            jt_run_destroy (r);
        }
        jt_usage_free (&u);
        jt_snapshot_destroy (s);
        jt_budgets_destroy (b);
    }
    is_int (failures, 0, "one-domain soft runs: properties hold on %d random"
            " cases (%d bound, %d of them by several payers)", cases, bound, multi);
    ok (bound > 50 && multi > 10, "the cases bind, several by more than one payer");
}

int main (void)
{
    test_soft_owner_first ();
    test_soft_one_domain ();
    test_soft_one_domain_props ();
    test_payer_selector ();
    test_spread ();
    test_spread_off_group_by ();
    test_policy_spares_soft ();
    test_spares_funded ();
    test_decisions ();
    test_reason_names_the_bound ();
    test_properties ();
    return done_testing ();
}
