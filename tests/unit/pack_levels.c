/*
 * pack_levels.c - unit and property tests of Pack over fabric levels
 * (src/lib/pack_levels.c, snapshot_levels.c, Plan's use of them): units
 * from labels, the fewest blocks for a spreading run, the whole run in one
 * block with --cross-group-spread=no:block and its reason, spares from the
 * group's block when its domain has no room for them, and, over random
 * clusters, that no group crosses a domain, a run never spans more blocks
 * than the fewest that could hold it at that instant, and no spare leaves
 * its group's block.
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

#include "jobtree/options.h"
#include "jobtree/plan.h"
#include "jobtree/schedule.h"
#include "fixtures.h"
#include "tap.h"

#define RAI "{ \"owner\": \"rai\", \"envelopes\": [" \
    FX_ENV ("rai-h100", "", 4096, "") "] }"

static const char *const LEVELS[] = { "fabric.block", "fabric.spine" };

/* 4 leaves of 4 nodes (A-D, 8 GPUs each) under 2 blocks (B1: A B; B2: C D)
 * under one spine; busy[i] nodes of leaf i fully used. levels: how many of
 * block, spine to name (0: the one-level model of before). */
static jt_snapshot_t *leaves4 (const int busy[4], size_t levels)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    static const char *const leaf[] = { "A", "B", "C", "D" };
    jt_error_t err;

    for (int i = 0; i < 4; i++) {
        char prefix[4], labels[128];
        snprintf (prefix, sizeof (prefix), "%c", 'a' + i);
        snprintf (labels, sizeof (labels), "fabric.domain=%s,fabric.block=B%d,"
                  "fabric.spine=S0", leaf[i], i / 2 + 1);
        fx_nodes (s, prefix, 1, 4, labels, 8, busy[i]);
    }
    if (jt_snapshot_set_levels (s, LEVELS, levels, &err) < 0)
        bail_out ("set_levels: %s", err.text);
    return fx_finalize (s);
}

/* The blocks (bit per block index) and leaves of plan p's groups as
 * "A,C" text. */
static const char *leaves_of (const jt_plan_t *p, const jt_snapshot_t *s)
{
    static char buf[256];
    size_t l = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < p->ngroups && l < sizeof (buf); i++)
        l += (size_t) snprintf (buf + l, sizeof (buf) - l, "%s%s", i ? "," : "",
                                s->domains[p->groups[i].domain].name);
    return buf;
}

static jt_run_t *run_of (int64_t total, int64_t group, const char *spread)
{
    char json[512];

    snprintf (json, sizeof (json), "{ \"owner\": \"rai\", \"resources\": { "
              "\"gpuType\": \"h100\", \"totalGPUs\": %lld }, \"locality\": { "
              "\"groupGPUs\": %lld%s } }", (long long) total, (long long) group,
              spread ? spread : "");
    return fx_run (json);
}

static void test_units (void)
{
    const int busy[4] = { 0, 0, 0, 0 };
    jt_snapshot_t *s = leaves4 (busy, 2);

    ok (s->nlevels == 2 && s->nunits[0] == 2 && s->nunits[1] == 1,
        "two levels: 2 blocks, 1 spine");
    is (jt_level_name (s, 0), "block", "level 0 is block");
    ok (jt_level_index (s, "spine") == 1 && jt_level_index (s, "fabric.block") == 0
        && jt_level_index (s, "rack") == -1, "levels by short name and by key");
    ok (s->domains[0].up[0] == 0 && s->domains[1].up[0] == 0
        && s->domains[2].up[0] == 1 && s->domains[3].up[0] == 1,
        "A B in B1, C D in B2");
    char *json = jt_snapshot_to_json (s);
    ok (json && strstr (json, "\"levels\":[\"fabric.block\",\"fabric.spine\"]"),
        "the snapshot's JSON shows its levels");
    jt_snapshot_t *back = NULL;
    is (fx_parse_snapshot (json, &back), "", "and parses back");
    ok (back && back->nlevels == 2 && back->nunits[0] == 2, "with its units");
    jt_snapshot_destroy (back);
    free (json);

    jt_error_t err;
    const char *bad[] = { "rack" };
    ok (jt_snapshot_set_levels (s, bad, 1, &err) < 0
        && strstr (err.text, "fabric.<name>"), "a level must be fabric.<name>: %s",
        err.text);
    const char *twice[] = { "fabric.block", "fabric.block" };
    ok (jt_snapshot_set_levels (s, twice, 2, &err) < 0, "a level named twice is refused");
    jt_snapshot_destroy (s);

    /* a domain whose nodes disagree on a level is a unit of its own */
    s = jt_snapshot_create ();
    fx_nodes (s, "x", 1, 2, "fabric.domain=X,fabric.block=B1", 8, 0);
    fx_nodes (s, "x", 3, 1, "fabric.domain=X,fabric.block=B2", 8, 0);
    jt_snapshot_set_levels (s, LEVELS, 1, &err);
    fx_finalize (s);
    ok (s->nunits[0] == 0 && s->domains[0].up[0] == -1,
        "a domain split across blocks is a unit of its own");
    jt_snapshot_destroy (s);
}

/* Best-fit puts the two groups in A and C (the smallest domains that hold
 * each, by name) across both blocks; with the block level named they go to
 * C and D, inside B2, the one block that holds both. */
static void test_fewest_blocks (void)
{
    const int busy[4] = { 2, 4, 2, 2 };
    jt_budgets_t *b = fx_budgets (RAI, FX_END);
    jt_run_t *r = run_of (32, 16, NULL);
    jt_plan_t p;

    for (int pol = 0; pol < 2; pol++) {
        jt_pack_policy_t policy = pol ? JT_PACK_TO_EMPTY : JT_PACK_BEST_FIT;
        jt_snapshot_t *flat = leaves4 (busy, 0), *lev = leaves4 (busy, 1);
        fx_plan (b, flat, NULL, r, policy, &p);
        is (leaves_of (&p, flat), "A,C", "%s, one level: A and C, two blocks",
            jt_pack_policy_str (policy));
        jt_plan_free (&p);
        fx_plan (b, lev, NULL, r, policy, &p);
        is (leaves_of (&p, lev), "C,D", "%s, block level: C and D, inside B2",
            jt_pack_policy_str (policy));
        jt_plan_free (&p);
        jt_snapshot_destroy (flat);
        jt_snapshot_destroy (lev);
    }
    /* three groups: no block holds them; they still bind, spread */
    jt_run_t *r3 = run_of (48, 16, NULL);
    jt_snapshot_t *lev = leaves4 (busy, 1);
    fx_plan (b, lev, NULL, r3, JT_PACK_BEST_FIT, &p);
    ok (p.decision == JT_BIND_NOW && p.ngroups == 3,
        "a run no block holds binds across blocks (%s)", leaves_of (&p, lev));
    jt_plan_free (&p);
    jt_snapshot_destroy (lev);
    jt_run_destroy (r3);
    jt_run_destroy (r);
    jt_budgets_destroy (b);
}

static void test_spread_level (void)
{
    const int busy[4] = { 2, 4, 2, 2 };
    jt_budgets_t *b = fx_budgets (RAI, FX_END);
    jt_snapshot_t *s = leaves4 (busy, 2);
    jt_plan_t p;

    jt_run_t *r = run_of (32, 16, ", \"allowCrossGroupSpread\": false, "
                          "\"spreadLevel\": \"block\"");
    fx_plan (b, s, NULL, r, JT_PACK_BEST_FIT, &p);
    ok (p.decision == JT_BIND_NOW, "no:block, 2 groups: binds");
    is (leaves_of (&p, s), "C,D", "inside B2, in two leaves");
    jt_plan_free (&p);
    jt_run_destroy (r);

    r = run_of (48, 16, ", \"allowCrossGroupSpread\": false, "
                "\"spreadLevel\": \"block\"");
    fx_plan (b, s, NULL, r, JT_PACK_BEST_FIT, &p);
    ok (p.decision != JT_BIND_NOW && p.reason == JT_SPREAD_NO_DOMAIN,
        "no:block, 3 groups: no block holds them now");
    is (p.detail, "fits no block: all 3 groups (48 GPUs) in one; the largest, "
        "B2, has 32 free GPUs", "the reason names the level and its largest");
    jt_plan_free (&p);
    jt_run_destroy (r);

    /* the whole spine holds them */
    r = run_of (48, 16, ", \"allowCrossGroupSpread\": false, "
                "\"spreadLevel\": \"spine\"");
    fx_plan (b, s, NULL, r, JT_PACK_BEST_FIT, &p);
    ok (p.decision == JT_BIND_NOW, "no:spine, 3 groups: binds (%s)", leaves_of (&p, s));
    jt_plan_free (&p);
    jt_run_destroy (r);

    r = run_of (32, 16, ", \"allowCrossGroupSpread\": false, "
                "\"spreadLevel\": \"rack\"");
    fx_plan (b, s, NULL, r, JT_PACK_BEST_FIT, &p);
    ok (p.decision == JT_REJECT && strstr (p.detail, "no fabric level 'rack'")
        && strstr (p.detail, "block, spine"), "an unknown level is refused, "
        "naming the levels: %s", p.detail);
    jt_plan_free (&p);
    jt_run_destroy (r);

    /* the option: no:block, and its mistakes */
    jt_run_t *o = jt_run_create ();
    jt_error_t err;
    ok (jt_opt_apply (o, "cross-group-spread", "no:block", &err) == 0
        && !o->cross_group_spread && o->spread_level
        && strcmp (o->spread_level, "block") == 0, "--cross-group-spread=no:block");
    ok (jt_opt_apply (o, "cross-group-spread", "yes", &err) == 0
        && o->cross_group_spread && !o->spread_level, "yes clears the level");
    ok (jt_opt_apply (o, "cross-group-spread", "no:", &err) < 0
        && strstr (err.text, "no:LEVEL"), "no: without a level: %s", err.text);
    jt_run_destroy (o);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

/* A waiting run's estimate (jt_answer_from_free): the groups freeing by
 * its start, in the fewest blocks. A's first two nodes free at 200, C's
 * and D's at 300, the rest at 900: the two earliest pairs are A's and C's
 * (start 300, two blocks); with blocks named, C's and D's (start 300, B2
 * alone). */
static void test_estimate (void)
{
    const int busy[4] = { 4, 4, 4, 4 };
    size_t all[16];
    int64_t fa[16];
    jt_node_set_t set = { all, 16, -1 };
    jt_answer_t a = { .kind = JT_ANSWER_ESTIMATE, .cands = &set, .ncands = 1,
                      .cand_nodes = 4, .cand_group_nodes = 2 };
    size_t nodes[4];
    int64_t start = 0;

    for (size_t i = 0; i < 16; i++) {
        all[i] = i;
        fa[i] = (i == 0 || i == 1) ? 200 : (i == 8 || i == 9 || i == 12 || i == 13)
                ? 300 : 900;
    }
    for (size_t lv = 0; lv < 2; lv++) {
        jt_snapshot_t *s = leaves4 (busy, lv);
        ok (jt_answer_from_free (&a, 0, s, fa, 100, true, nodes, &start),
            "%s: answered", lv ? "block level" : "one level");
        is_int (start, 300, "%s: starts at 300", lv ? "block level" : "one level");
        char got[64];
        snprintf (got, sizeof (got), "%s %s %s %s", s->nodes[nodes[0]].name,
                  s->nodes[nodes[1]].name, s->nodes[nodes[2]].name,
                  s->nodes[nodes[3]].name);
        is (got, lv ? "c01 c02 d01 d02" : "a01 a02 c01 c02",
            lv ? "block level: held on C and D, inside B2"
               : "one level: held on A and C, two blocks");
        jt_snapshot_destroy (s);
    }
}

/* topology/block's own rule (jt_pack_block_confine): Slurm takes a run of
 * N nodes only inside one block of the smallest size holding N. Base
 * blocks of 4 nodes (the leaves), 8-node blocks (B1, B2). */
static void test_block_rule (void)
{
    const int busy_ab[4] = { 2, 2, 4, 4 }, busy_half[4] = { 2, 2, 2, 2 };
    const uint32_t sizes[] = { 4, 8, 16 };
    jt_budgets_t *b = fx_budgets (RAI, FX_END);
    jt_snapshot_t *s = leaves4 (busy_ab, 2);
    jt_error_t err;
    jt_plan_t p;

    is_int (jt_pack_block_confine (s, 4), JT_CONFINE_NONE, "no block sizes: no rule");
    ok (jt_snapshot_set_block_nodes (s, sizes, 3, &err) == 0, "sizes 4, 8, 16");
    is_int (jt_pack_block_confine (s, 0), JT_CONFINE_NONE, "0 nodes: none");
    is_int (jt_pack_block_confine (s, 1), JT_CONFINE_DOMAIN, "1 node: one base block");
    is_int (jt_pack_block_confine (s, 4), JT_CONFINE_DOMAIN, "4 nodes: one base block");
    is_int (jt_pack_block_confine (s, 5), 0, "5 nodes: one 8-node block (level 0)");
    is_int (jt_pack_block_confine (s, 8), 0, "8 nodes: level 0");
    is_int (jt_pack_block_confine (s, 9), 1, "9 nodes: one 16-node block (level 1)");
    is_int (jt_pack_block_confine (s, 17), JT_CONFINE_NONE, "17 nodes: no size holds it");
    const uint32_t flat[] = { 4, 4 }, zero[] = { 0 }, many[] = { 1, 2, 3, 4 };
    ok (jt_snapshot_set_block_nodes (s, flat, 2, &err) < 0
        && strstr (err.text, "each larger"), "sizes must grow: %s", err.text);
    ok (jt_snapshot_set_block_nodes (s, zero, 1, &err) < 0, "a size of 0 is refused");
    ok (jt_snapshot_set_block_nodes (s, many, 4, &err) < 0
        && strstr (err.text, "2 fabric levels"), "a size per level at most: %s", err.text);
    is_int (jt_pack_block_confine (s, 9), 1, "a refused call changed nothing");
    is_int ((int) jt_snapshot_block_sizes_named (s, 4), 3,
            "of Slurm's 4 sizes, the 2 levels named place by 3");
    is_int ((int) jt_snapshot_block_sizes_named (s, 2), 2, "2 sizes: both");
    is_int ((int) jt_snapshot_block_sizes_named (NULL, 2), 0, "no snapshot: none");

    /* 2 groups of 2 nodes (4 nodes): A and B have 2 free each, C and D none */
    jt_run_t *r = run_of (32, 16, NULL);
    ok (jt_snapshot_set_block_nodes (s, NULL, 0, &err) == 0, "cleared");
    fx_plan (b, s, NULL, r, JT_PACK_BEST_FIT, &p);
    is (leaves_of (&p, s), "A,B", "without the rule: split over two base blocks");
    jt_plan_free (&p);
    ok (jt_snapshot_set_block_nodes (s, sizes, 3, &err) == 0, "sizes again");
    fx_plan (b, s, NULL, r, JT_PACK_BEST_FIT, &p);
    ok (p.decision != JT_BIND_NOW, "under topology/block: 4 nodes wait for one "
        "base block (%s)", p.detail);
    jt_plan_free (&p);
    jt_run_destroy (r);
    jt_snapshot_destroy (s);

    /* 3 groups of 2 nodes (6): every leaf has 2 free, 4 per block */
    s = leaves4 (busy_half, 2);
    r = run_of (48, 16, NULL);
    fx_plan (b, s, NULL, r, JT_PACK_BEST_FIT, &p);
    ok (p.decision == JT_BIND_NOW, "without the rule: binds over two blocks (%s)",
        leaves_of (&p, s));
    jt_plan_free (&p);
    ok (jt_snapshot_set_block_nodes (s, sizes, 2, &err) == 0, "sizes 4, 8");
    fx_plan (b, s, NULL, r, JT_PACK_BEST_FIT, &p);
    ok (p.decision != JT_BIND_NOW && p.reason == JT_SPREAD_NO_DOMAIN
        && strstr (p.detail, "fits no block"), "6 nodes wait for one 8-node block: %s",
        p.detail);
    jt_plan_free (&p);
    ok (jt_snapshot_set_block_nodes (s, sizes, 1, &err) == 0, "base size only");
    fx_plan (b, s, NULL, r, JT_PACK_BEST_FIT, &p);
    ok (p.decision == JT_BIND_NOW, "no block size holds 6 nodes: no rule, binds");
    jt_plan_free (&p);
    jt_run_destroy (r);

    /* the snapshot document carries the sizes */
    ok (jt_snapshot_set_block_nodes (s, sizes, 2, &err) == 0, "sizes 4, 8");
    char *json = jt_snapshot_to_json (s);
    ok (json && strstr (json, "\"blockNodes\":[4,8]"), "written as blockNodes");
    jt_diags_t d;
    jt_diags_init (&d);
    jt_snapshot_t *t = json ? jt_snapshot_parse_json ("s.json", json, strlen (json), &d)
                            : NULL;
    ok (t && t->block_nodes[0] == 4 && t->block_nodes[1] == 8 && !t->block_nodes[2],
        "read back");
    jt_snapshot_destroy (t);
    free (json);
    jt_diags_free (&d);
    const char *bad = "{ \"levels\": [\"fabric.block\"], \"blockNodes\": [8, 4], "
                      "\"nodes\": [] }";
    char text[512] = "";
    jt_diags_init (&d);
    t = jt_snapshot_parse_json ("bad.json", bad, strlen (bad), &d);
    if (d.n)
        jt_diag_format (&d.v[0], text, sizeof (text));
    ok (!t && strstr (text, "blockNodes") && strstr (text, "each larger"),
        "sizes that shrink are an error naming the field: %s", text);
    jt_snapshot_destroy (t);
    jt_diags_free (&d);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

/* Pack run groups (GPUs) with `spares` spare nodes each on a fresh view of
 * s; the dump, or "None(...)" with the detail; *detail gets a placed
 * request's detail. */
static const char *pack_spares (jt_snapshot_t *s, const int64_t *groups,
                                size_t n, int64_t spares,
                                jt_pack_policy_t policy, char *detail,
                                size_t len)
{
    static char buf[512];
    jt_error_t err;
    jt_pack_view_t *v = jt_pack_view_create (s, "h100", &err);
    jt_pack_request_t r = { .groups = groups, .ngroups = n, .only_domain = -1,
                            .spares_per_group = spares, .policy = policy };
    jt_placement_t p;

    if (!v)
        bail_out ("view: %s", err.text);
    int rc = jt_pack (v, &r, &p, &err);
    if (rc < 0)
        snprintf (buf, sizeof (buf), "error: %s", err.text);
    else if (rc == 1)
        snprintf (buf, sizeof (buf), "None: %s", p.detail);
    else {
        char *d = jt_placement_dump (&p, s);
        snprintf (buf, sizeof (buf), "%s", d);
        free (d);
    }
    if (detail)
        snprintf (detail, len, "%s", p.detail);
    jt_placement_free (&p);
    jt_pack_view_destroy (v);
    return buf;
}

#define A4 "A[a01:8 a02:8 a03:8 a04:8]"
#define C4 "C[c01:8 c02:8 c03:8 c04:8]"

/* Spares from the block (issue 33): a group no domain holds with its
 * spares goes to a domain that holds it alone, its spares to a sibling
 * domain of its block; never outside the block; in-domain spares first;
 * without levels nothing changes. */
static void test_block_spares (void)
{
    const int idle[4] = { 0, 0, 0, 0 };
    int64_t g32[] = { 32 }, g24[] = { 24 }, two32[] = { 32, 32 };
    char detail[JT_ERRMSG_MAX];

    for (int pol = 0; pol < 2; pol++) {
        jt_pack_policy_t policy = pol ? JT_PACK_TO_EMPTY : JT_PACK_BEST_FIT;
        const char *pn = jt_pack_policy_str (policy);
        jt_snapshot_t *flat = leaves4 (idle, 0), *lev = leaves4 (idle, 1);

        is (pack_spares (flat, g32, 1, 1, policy, NULL, 0),
            "None: group 0 (32 GPUs + 1 spare node) fits no domain: most free "
            "is A with 32", "%s, no levels: 4 nodes + a spare fit no leaf", pn);
        is (pack_spares (lev, g32, 1, 1, policy, detail, sizeof (detail)),
            "g0 " A4 " s[b01]", "%s, block level: the group in A, its spare "
            "from B, A's sibling in B1", pn);
        is (detail, "group 0 (32 GPUs + 1 spare node) fits no domain with its "
            "spares: group in A, spare node in B1's domain B",
            "%s: the detail says the spare comes from the block", pn);
        is (pack_spares (lev, two32, 2, 1, policy, NULL, 0),
            "g0 " A4 " s[b01] | g1 " C4 " s[d01]", "%s: the second group in "
            "C (B has 3 free left), its spare from D", pn);
        is (pack_spares (lev, g24, 1, 1, policy, detail, sizeof (detail)),
            "g0 A[a01:8 a02:8 a03:8] s[a04]", "%s: a domain that holds the "
            "group with its spare is taken as before", pn);
        is (detail, "", "%s: and says nothing of the block", pn);
        jt_snapshot_destroy (flat);
        jt_snapshot_destroy (lev);
    }

    /* best-fit would take A (the smallest that holds 24 GPUs alone); B
     * holds them with the spare: in-domain spares are preferred */
    const int a1[4] = { 1, 0, 0, 0 };
    jt_snapshot_t *s = leaves4 (a1, 1);
    is (pack_spares (s, g24, 1, 1, JT_PACK_BEST_FIT, NULL, 0),
        "g0 B[b01:8 b02:8 b03:8] s[b04]", "best-fit: B with its spare before "
        "A with a spare from B");
    jt_snapshot_destroy (s);

    /* never outside the block: B busy, so A's spare cannot come from B1;
     * the group goes to C and its spare to D */
    const int b4[4] = { 0, 4, 0, 0 };
    s = leaves4 (b4, 1);
    is (pack_spares (s, g32, 1, 1, JT_PACK_BEST_FIT, NULL, 0),
        "g0 " C4 " s[d01]", "B busy: the group in C, its spare from D");
    jt_snapshot_destroy (s);
    const int bd4[4] = { 0, 4, 0, 4 };
    s = leaves4 (bd4, 1);
    is (pack_spares (s, g32, 1, 1, JT_PACK_BEST_FIT, NULL, 0),
        "None: group 0 (32 GPUs + 1 spare node) fits no domain: most free is "
        "A with 32", "B and D busy: no spare from the other block, None");
    is (pack_spares (s, g32, 1, 0, JT_PACK_BEST_FIT, NULL, 0), "g0 " A4,
        "and without spares the group binds");
    jt_snapshot_destroy (s);

    /* the sibling with the most free nodes, ties by name; and spread off
     * (one domain for the run) keeps its spares in the domain */
    s = jt_snapshot_create ();
    jt_error_t err;
    fx_nodes (s, "x", 1, 4, "fabric.domain=X1,fabric.block=K", 8, 0);
    fx_nodes (s, "y", 1, 3, "fabric.domain=X2,fabric.block=K", 8, 1);
    fx_nodes (s, "z", 1, 3, "fabric.domain=X3,fabric.block=K", 8, 0);
    if (jt_snapshot_set_levels (s, LEVELS, 1, &err) < 0)
        bail_out ("set_levels: %s", err.text);
    fx_finalize (s);
    is (pack_spares (s, g32, 1, 2, JT_PACK_BEST_FIT, NULL, 0),
        "g0 X1[x01:8 x02:8 x03:8 x04:8] s[z01 z02]",
        "two spares from X3, the sibling with the most free nodes");
    jt_snapshot_destroy (s);
    s = jt_snapshot_create ();
    fx_nodes (s, "x", 1, 4, "fabric.domain=X1,fabric.block=K", 8, 0);
    fx_nodes (s, "y", 1, 3, "fabric.domain=X2,fabric.block=K", 8, 0);
    fx_nodes (s, "z", 1, 3, "fabric.domain=X3,fabric.block=K", 8, 0);
    jt_snapshot_set_levels (s, LEVELS, 1, &err);
    fx_finalize (s);
    is (pack_spares (s, g32, 1, 1, JT_PACK_BEST_FIT, NULL, 0),
        "g0 X1[x01:8 x02:8 x03:8 x04:8] s[y01]", "a tie: X2 before X3");
    jt_pack_view_t *v = jt_pack_view_create (s, "h100", &err);
    jt_pack_request_t r = { .groups = g32, .ngroups = 1, .only_domain = -1,
                            .spares_per_group = 1, .single_domain = true,
                            .policy = JT_PACK_BEST_FIT };
    jt_placement_t p;
    ok (jt_pack (v, &r, &p, &err) == 1 && p.reason == JT_SPREAD_NO_DOMAIN,
        "spread off: the run's one domain holds its spares or it waits");
    jt_placement_free (&p);
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);

    /* a node-level selector (the payer's rack=r1): the spare is a node
     * the selector takes, y02, not the sibling's first node y01 */
    s = jt_snapshot_create ();
    fx_nodes (s, "x", 1, 4, "fabric.domain=X1,fabric.block=K,rack=r1", 8, 0);
    fx_nodes (s, "y", 1, 1, "fabric.domain=X2,fabric.block=K,rack=r2", 8, 0);
    fx_nodes (s, "y", 2, 2, "fabric.domain=X2,fabric.block=K,rack=r1", 8, 0);
    jt_snapshot_set_levels (s, LEVELS, 1, &err);
    fx_finalize (s);
    jt_labels_t rack = JT_LABELS_INIT;
    jt_labels_set (&rack, JT_LABEL_RACK, "r1");
    v = jt_pack_view_create (s, "h100", &err);
    r = (jt_pack_request_t) { .groups = g32, .ngroups = 1, .only_domain = -1,
                              .spares_per_group = 1, .selector = &rack,
                              .policy = JT_PACK_BEST_FIT };
    is (fx_pack_text (v, s, &r, NULL, false),
        "g0 X1[x01:8 x02:8 x03:8 x04:8] s[y02]",
        "with a node selector: the block's spare is a node it takes");
    jt_labels_free (&rack);
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);

    /* --group-by=rack: the spares share the group's rack, so y04 (X2's
     * one r1 node), not X2's r2 class with more free nodes */
    s = jt_snapshot_create ();
    fx_nodes (s, "x", 1, 4, "fabric.domain=X1,fabric.block=K,rack=r1", 8, 0);
    fx_nodes (s, "y", 1, 3, "fabric.domain=X2,fabric.block=K,rack=r2", 8, 0);
    fx_nodes (s, "y", 4, 1, "fabric.domain=X2,fabric.block=K,rack=r1", 8, 0);
    jt_snapshot_set_levels (s, LEVELS, 1, &err);
    fx_finalize (s);
    jt_run_t run;
    jt_run_init (&run);
    run.flavor = strdup ("h100");
    run.group_by = strdup ("rack");
    run.cross_group_spread = true;
    if (!(v = jt_pack_view_create_run (s, &run, &err)))
        bail_out ("view: %s", err.text);
    jt_run_clear (&run);
    r = (jt_pack_request_t) { .groups = g32, .ngroups = 1, .only_domain = -1,
                              .spares_per_group = 1, .policy = JT_PACK_BEST_FIT };
    is (fx_pack_text (v, s, &r, NULL, true),
        "g0 X1[x01:8 x02:8 x03:8 x04:8] s[y04] {r1}",
        "group-by rack: the block's spare is of the group's rack");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

/* Plan binds such a run (its spares in the plan, from the block). */
static void test_block_spares_plan (void)
{
    const int idle[4] = { 0, 0, 0, 0 };
    jt_budgets_t *b = fx_budgets (RAI, FX_END);
    jt_snapshot_t *s = leaves4 (idle, 1);
    jt_run_t *r = fx_run ("{ \"owner\": \"rai\", \"sparesPerGroup\": 1, "
                          "\"resources\": { \"gpuType\": \"h100\", \"totalGPUs\": "
                          "64 }, \"locality\": { \"groupGPUs\": 32 } }");
    jt_plan_t p;
    bool inblock = true;

    fx_plan (b, s, NULL, r, JT_PACK_BEST_FIT, &p);
    ok (p.decision == JT_BIND_NOW && p.ngroups == 2, "plan: 2 groups of 4 "
        "nodes + a spare each bind on leaves of 4 (%s)", p.detail);
    for (size_t g = 0; g < p.ngroups; g++) {
        ssize_t blk = s->domains[p.groups[g].domain].up[0];
        inblock = inblock && p.groups[g].nspares == 1;
        for (size_t k = 0; k < p.groups[g].nspares; k++) {
            int d = s->nodes[p.groups[g].spares[k]].domain;
            inblock = inblock && d >= 0 && (size_t) d != p.groups[g].domain
                      && s->domains[d].up[0] == blk;
        }
    }
    ok (inblock, "plan: each group's spare in another leaf of its block");
    jt_plan_free (&p);
    jt_run_destroy (r);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

/* Random clusters (8 leaves of 1-5 nodes under 4 blocks), random busy
 * nodes, random requests of 1-3 groups of 1-4 nodes with 0-2 spares each,
 * several per view: every spare in its group's leaf or, only when the
 * snapshot names the block level, in another leaf of the group's block;
 * and a group's spares outside its leaf only when, at that request, no
 * leaf held the group with them. */
static void test_spares_property (void)
{
    int bad_block = 0, bad_pref = 0, placed = 0, fromblock = 0;

    fx_seed (20261130);
    for (int t = 0; t < 400; t++) {
        int levels = t % 4 != 0;
        jt_snapshot_t *s = jt_snapshot_create ();
        jt_error_t err;
        for (int i = 0; i < 8; i++) {
            char prefix[4], labels[96];
            int n = 1 + fx_pick (5);
            snprintf (prefix, sizeof (prefix), "%c", 'a' + i);
            snprintf (labels, sizeof (labels), "fabric.domain=L%d,fabric.block=K%d",
                      i, i / 2);
            fx_nodes (s, prefix, 1, n, labels, 8, fx_pick (n + 1));
        }
        jt_snapshot_set_levels (s, LEVELS, (size_t) levels, &err);
        fx_finalize (s);
        jt_pack_view_t *v = jt_pack_view_create (s, "h100", &err);
        if (!v)
            bail_out ("view: %s", err.text);
        for (int q = 0; q < 3; q++) {
            int64_t groups[3];
            size_t ng = 1 + (size_t) fx_pick (3);
            int64_t sp = fx_pick (3), maxk = 0;
            for (size_t i = 0; i < ng; i++) {
                groups[i] = 8 * (1 + fx_pick (4));
                if (groups[i] / 8 > maxk)
                    maxk = groups[i] / 8;
            }
            /* which leaves hold the largest group with its spares now */
            bool held_whole = false;
            for (size_t d = 0; d < s->ndomains; d++)
                if (jt_pack_view_free (v, d) / 8 >= maxk + sp)
                    held_whole = true;
            jt_pack_request_t r = { .groups = groups, .ngroups = ng,
                                    .only_domain = -1, .spares_per_group = sp,
                                    .policy = fx_pick (2) ? JT_PACK_BEST_FIT
                                                          : JT_PACK_TO_EMPTY };
            jt_placement_t p;
            if (jt_pack (v, &r, &p, &err) != 0) {
                jt_placement_free (&p);
                continue;
            }
            placed++;
            for (size_t g = 0; g < p.ngroups; g++) {
                const jt_pack_group_t *pg = &p.groups[g];
                for (size_t k = 0; k < pg->nspares; k++) {
                    int d = s->nodes[pg->spares[k]].domain;
                    if ((size_t) d == pg->domain)
                        continue;
                    fromblock++;
                    if (!levels || s->domains[d].up[0] < 0
                        || s->domains[d].up[0] != s->domains[pg->domain].up[0]
                        || (size_t) d != pg->spare_domain)
                        bad_block++;
                    if (g == 0 && k == 0 && ng == 1 && held_whole)
                        bad_pref++;
                }
            }
            jt_placement_free (&p);
        }
        jt_pack_view_destroy (v);
        jt_snapshot_destroy (s);
    }
    ok (placed > 200 && fromblock > 20, "property: %d requests placed, %d "
        "spares from the block", placed, fromblock);
    ok (bad_block == 0, "property: no spare outside its group's block, none "
        "outside its leaf without levels (%d)", bad_block);
    ok (bad_pref == 0, "property: a spare from the block only when no leaf "
        "held the group with it (%d)", bad_pref);
}

/* The fewest blocks that could hold n groups of k nodes, each group in one
 * leaf, counted from the leaves' free nodes (an exhaustive check over the
 * 2^blocks subsets, independent of pack_levels.c's greedy). */
static int fewest_blocks (const int *free, int nleaf, int per_block, int k, int n)
{
    int nb = nleaf / per_block, best = -1;

    for (int m = 1; m < (1 << nb); m++) {
        int room = 0, cnt = 0;
        for (int bl = 0; bl < nb; bl++)
            if (m & (1 << bl)) {
                cnt++;
                for (int i = 0; i < per_block; i++)
                    room += free[bl * per_block + i] / k;
            }
        if (room >= n && (best < 0 || cnt < best))
            best = cnt;
    }
    return best;
}

/* Random clusters of 8 leaves of 4 nodes under 4 blocks, random busy
 * nodes, random runs of groups of 1-4 nodes: every group inside one leaf,
 * and the blocks used never more than the fewest that hold the run. */
static void test_property (void)
{
    jt_budgets_t *b = fx_budgets (RAI, FX_END);
    int bad_leaf = 0, bad_span = 0, cases = 0, bound = 0;

    fx_seed (20261129);
    for (int t = 0; t < 400; t++) {
        int free[8], k = 1 + fx_pick (4), n = 2 + fx_pick (6);
        jt_snapshot_t *s = jt_snapshot_create ();
        jt_error_t err;
        for (int i = 0; i < 8; i++) {
            char prefix[4], labels[96];
            int busy = fx_pick (5);
            free[i] = 4 - busy;
            snprintf (prefix, sizeof (prefix), "%c", 'a' + i);
            snprintf (labels, sizeof (labels), "fabric.domain=L%d,fabric.block=K%d",
                      i, i / 2);
            fx_nodes (s, prefix, 1, 4, labels, 8, busy);
        }
        jt_snapshot_set_levels (s, LEVELS, 1, &err);
        fx_finalize (s);
        jt_run_t *r = run_of ((int64_t) n * k * 8, (int64_t) k * 8, NULL);
        jt_plan_t p;
        fx_plan (b, s, NULL, r, fx_pick (2) ? JT_PACK_BEST_FIT : JT_PACK_TO_EMPTY, &p);
        cases++;
        if (p.decision == JT_BIND_NOW) {
            unsigned blocks = 0;
            bound++;
            for (size_t g = 0; g < p.ngroups; g++) {
                for (size_t i = 0; i < p.groups[g].nnodes; i++)
                    if ((size_t) s->nodes[p.groups[g].nodes[i]].domain
                        != p.groups[g].domain)
                        bad_leaf++;
                blocks |= 1u << s->domains[p.groups[g].domain].up[0];
            }
            int used = __builtin_popcount (blocks);
            int want = fewest_blocks (free, 8, 2, k, n);
            if (used != want) {
                if (bad_span++ < 3)
                    diag ("case %d: %d groups of %d nodes, free %d %d %d %d %d %d"
                          " %d %d: %d blocks, fewest %d", t, n, k, free[0],
                          free[1], free[2], free[3], free[4], free[5], free[6],
                          free[7], used, want);
            }
        }
        jt_plan_free (&p);
        jt_run_destroy (r);
        jt_snapshot_destroy (s);
    }
    ok (bound > 50, "property: %d of %d random runs bound", bound, cases);
    ok (bad_leaf == 0, "property: no group crosses its leaf");
    ok (bad_span == 0, "property: no run spans more blocks than the fewest "
        "that hold it (%d did)", bad_span);
    jt_budgets_destroy (b);
}

int main (void)
{
    test_units ();
    test_fewest_blocks ();
    test_spread_level ();
    test_estimate ();
    test_block_rule ();
    test_property ();
    test_block_spares ();
    test_block_spares_plan ();
    test_spares_property ();
    return done_testing ();
}
