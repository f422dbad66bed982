/*
 * pack_labels.c - unit tests of Pack with a run's labels
 * (jt_pack_view_create_run): group-by (each group on one value, all or
 * nothing, the whole run with spread off, soft groups, the domain rule
 * kept), node constraints (only satisfying nodes, busy ones make a wait
 * that names them, none at all is NoNodes with the submission line), and
 * both composed with an envelope's selector. Dumps compared exactly.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/pack.h"
#include "fixtures.h"
#include "tap.h"

/* One 8-GPU h100 node with features "k=v,..." (as Slurm gives them). */
static void nd (jt_snapshot_t *s, const char *name, int used, const char *features)
{
    jt_labels_t l = JT_LABELS_INIT;
    jt_error_t err;

    jt_labels_parse_features (&l, features);
    if (jt_snapshot_add_node (s, name, &l, "h100", 8, used, JT_NODE_UP, &err) < 0)
        bail_out ("add %s: %s", name, err.text);
    jt_labels_free (&l);
}

/* A: a01 a02 rack r1, a03 a04 a05 rack r2, a06 without a rack;
 * B: b01..b04 rack r3. gpu.mem: 80 on a01-a03 and b04, 40 elsewhere. */
static jt_snapshot_t *racks (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err;

    nd (s, "a01", 0, "fabric.domain=A,rack=r1,gpu.mem=80");
    nd (s, "a02", 0, "fabric.domain=A,rack=r1,gpu.mem=80");
    nd (s, "a03", 0, "fabric.domain=A,rack=r2,gpu.mem=80");
    nd (s, "a04", 0, "fabric.domain=A,rack=r2,gpu.mem=40");
    nd (s, "a05", 0, "fabric.domain=A,rack=r2,gpu.mem=40");
    nd (s, "a06", 0, "fabric.domain=A,gpu.mem=40");
    nd (s, "b01", 0, "fabric.domain=B,rack=r3,gpu.mem=40");
    nd (s, "b02", 0, "fabric.domain=B,rack=r3,gpu.mem=40");
    nd (s, "b03", 0, "fabric.domain=B,rack=r3,gpu.mem=40");
    nd (s, "b04", 0, "fabric.domain=B,rack=r3,gpu.mem=80");
    if (jt_snapshot_finalize (s, &err) < 0)
        bail_out ("finalize: %s", err.text);
    return s;
}

/* A view for a run with group-by gb (may be NULL), constraints cons (may
 * be NULL) and cross-group spread. */
static jt_pack_view_t *rview (const jt_snapshot_t *s, const char *gb,
                              const char *cons, bool spread)
{
    jt_run_t r;
    jt_error_t err;
    jt_pack_view_t *v;

    jt_run_init (&r);
    r.flavor = strdup ("h100");
    r.group_by = gb ? strdup (gb) : NULL;
    r.cross_group_spread = spread;
    if (cons && jt_constraints_add (&r.constraints, cons, &err) < 0)
        bail_out ("constraints: %s", err.text);
    if (!(v = jt_pack_view_create_run (s, &r, &err)))
        bail_out ("view: %s", err.text);
    jt_run_clear (&r);  /* the view keeps what it needs */
    return v;
}

static jt_pack_request_t req (const int64_t *groups, size_t n)
{
    jt_pack_request_t r = { .groups = groups, .ngroups = n, .only_domain = -1,
                            .policy = JT_PACK_TO_EMPTY };
    return r;
}


static void test_group_by (void)
{
    jt_snapshot_t *s = racks ();
    jt_pack_view_t *v = rview (s, "rack", NULL, true);
    int64_t g16[] = { 16 }, g24[] = { 24 }, g40[] = { 40 }, g3[] = { 16, 16, 16 };
    jt_pack_request_t r = req (g16, 1);

    is (fx_pack_text (v, s, &r, NULL, true), "g0 B[b01:8 b02:8] {r3}",
        "group-by: pack-to-empty over (domain, value): B/r3 is the most free");
    r = req (g40, 1);
    is (fx_pack_text (v, s, &r, NULL, true), "None(NoDomainFits): group 0 (40 GPUs) fits no "
        "domain: most free is A rack=r2 with 24 (grouped by rack)",
        "group-by: A has 5 racked nodes, but no rack has 5: never spans values");
    r = req (g24, 1);
    is (fx_pack_text (v, s, &r, NULL, true), "g0 A[a03:8 a04:8 a05:8] {r2}",
        "group-by: three nodes of one rack");
    r = req (g3, 3);
    is (fx_pack_text (v, s, &r, NULL, true), "None(NoDomainFits): group 2 (16 GPUs) fits no "
        "domain: no domain has a free node (grouped by rack)",
        "group-by: all or nothing (r1 and r3 hold two of three groups)");
    char before[256], after[256];
    snprintf (before, sizeof (before), "%lld %lld", (long long) jt_pack_view_free (v, 0),
              (long long) jt_pack_view_free (v, 1));
    is (before, "16 16", "group-by: the view's free GPUs per domain (a06 is not "
        "counted: it has no rack), unchanged by the refused request");
    int64_t g2[] = { 16, 16 };
    r = req (g2, 2);
    is (fx_pack_text (v, s, &r, NULL, true), "g0 A[a01:8 a02:8] | g1 B[b03:8 b04:8] {r1} {r3}",
        "group-by: spread on, each group on its own value");
    snprintf (after, sizeof (after), "%lld %lld", (long long) jt_pack_view_free (v, 0),
              (long long) jt_pack_view_free (v, 1));
    is (after, "0 0", "group-by: the racked nodes are all taken");
    jt_pack_view_destroy (v);

    /* group-by fabric.domain is the domain rule: same as no group-by */
    v = rview (s, "fabric.domain", NULL, true);
    r = req (g40, 1);
    is (fx_pack_text (v, s, &r, NULL, true), "g0 A[a01:8 a02:8 a03:8 a04:8 a05:8] {A}",
        "group-by fabric.domain: classes are the domains");
    jt_pack_view_destroy (v);
    v = rview (s, NULL, NULL, true);
    r = req (g40, 1);
    is (fx_pack_text (v, s, &r, NULL, true), "g0 A[a01:8 a02:8 a03:8 a04:8 a05:8] {-}",
        "no group-by: the same");
    jt_pack_view_destroy (v);

    /* a label nobody has */
    v = rview (s, "tpu-name", NULL, true);
    r = req (g16, 1);
    is (fx_pack_text (v, s, &r, NULL, true), "None(NoNodes): never runnable: no h100 node has "
        "the label tpu-name (--group-by=tpu-name)",
        "group-by a missing label: NoNodes, with the submission line");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_spread_off (void)
{
    jt_snapshot_t *s = racks ();
    jt_pack_view_t *v = rview (s, "rack", NULL, false);
    int64_t g16[] = { 16 }, g8[] = { 8 }, g2[] = { 16, 8 }, g3[] = { 16, 16, 16 };
    jt_pack_request_t r = req (g16, 1);
    jt_placement_t p0, p1;

    /* Plan asks one group at a time: the view keeps them in one class */
    is (fx_pack_text (v, s, &r, &p0, true), "g0 B[b01:8 b02:8] {r3}", "spread off: group 0 in B/r3");
    is (fx_pack_text (v, s, &r, &p1, true), "g0 B[b03:8 b04:8] {r3}",
        "spread off: group 1 in the same rack");
    r = req (g8, 1);
    is (fx_pack_text (v, s, &r, NULL, true), "None(NoDomainFits): group 0 (8 GPUs) fits no "
        "domain: no domain has a free node (grouped by rack)",
        "spread off: group 2 does not go to another rack, though A has room");
    r.only_domain = 0;
    is (fx_pack_text (v, s, &r, NULL, true), "None(NoDomainFits): group 0 (8 GPUs) fits no "
        "domain: no domain has a free node (grouped by rack)",
        "spread off: not even when Plan asks for domain A");
    jt_pack_unplace (v, &p1);
    jt_pack_unplace (v, &p0);
    jt_placement_free (&p0);
    jt_placement_free (&p1);
    r = req (g8, 1);
    r.only_domain = 0;
    is (fx_pack_text (v, s, &r, &p0, true), "g0 A[a03:8] {r2}",
        "spread off: all given back, the pin is gone (domain A, its most free rack)");
    jt_pack_unplace (v, &p0);
    jt_placement_free (&p0);
    /* one request of several groups (soft spread off, or a caller asking
     * for all at once) */
    r = req (g2, 2);
    r.single_domain = true;
    is (fx_pack_text (v, s, &r, NULL, true), "g0 B[b01:8 b02:8] | g1 B[b03:8] {r3} {r3}",
        "single class: both groups on one rack");
    jt_pack_view_destroy (v);
    v = rview (s, "rack", NULL, false);
    r = req (g3, 3);
    r.single_domain = true;
    is (fx_pack_text (v, s, &r, NULL, true), "None(SingleDomainFull): no single domain holds all "
        "3 groups (48 GPUs): most free is B rack=r3 with 32 (grouped by rack)",
        "single class: 6 nodes fit no rack");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_soft (void)
{
    jt_snapshot_t *s = racks ();
    jt_pack_view_t *v = rview (s, "rack", NULL, true);
    int64_t d40[] = { 40 }, d24[] = { 24 };
    jt_pack_request_t r = req (d40, 1);

    r.soft = true;
    is (fx_pack_text (v, s, &r, NULL, true), "None(SingleDomainFull): no single domain holds all 1 "
        "group (40 GPUs): most free is B rack=r3 with 32 (grouped by rack)",
        "soft group-by: one group, so its chunks share a rack (none has 5 nodes)");
    r = req (d24, 1);
    r.soft = true;
    is (fx_pack_text (v, s, &r, NULL, true), "g0 B[b01:8 b02:8 b03:8] {r3}", "soft group-by: 3 nodes "
        "of one rack");
    jt_pack_view_destroy (v);
    v = rview (s, NULL, NULL, true);
    r = req (d40, 1);
    r.soft = true;
    is (fx_pack_text (v, s, &r, NULL, true), "g0 A[a01:8 a02:8 a03:8 a04:8 a05:8] {-}",
        "soft without group-by: chunks by domain as before");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_constraints (void)
{
    jt_snapshot_t *s = racks ();
    jt_pack_view_t *v = rview (s, NULL, "gpu.mem GE 80", true);
    int64_t g8[] = { 8 }, g16[] = { 16 }, g24[] = { 24 };
    jt_pack_request_t r = req (g24, 1);

    is (fx_pack_text (v, s, &r, NULL, true), "g0 A[a01:8 a02:8 a03:8] {-}",
        "constraint: only gpu.mem >= 80 nodes (b04 is alone in B)");
    r = req (g16, 1);
    is (fx_pack_text (v, s, &r, NULL, true), "None(NoDomainFits): group 0 (16 GPUs) fits no "
        "domain: most free is B with 8 (nodes where gpu.mem GE 80)",
        "constraint: the wait names it");
    jt_pack_view_destroy (v);
    v = rview (s, NULL, "gpu.mem LT 80", true);
    r = req (g24, 1);
    is (fx_pack_text (v, s, &r, NULL, true), "g0 A[a04:8 a05:8 a06:8] {-}",
        "constraint LT: the 40 GB nodes (A and B tie at 24, A by name)");
    jt_pack_view_destroy (v);

    /* only busy nodes satisfy it: a wait that names the constraint */
    jt_snapshot_t *busy = jt_snapshot_create ();
    jt_error_t err;
    nd (busy, "a01", 8, "fabric.domain=A,gpu.mem=80");
    nd (busy, "a02", 0, "fabric.domain=A,gpu.mem=40");
    jt_snapshot_finalize (busy, &err);
    v = rview (busy, NULL, "gpu.mem GE 80", true);
    r = req (g8, 1);
    is (fx_pack_text (v, busy, &r, NULL, true), "None(NoDomainFits): group 0 (8 GPUs) fits no "
        "domain: no domain has a free node (nodes where gpu.mem GE 80)",
        "constraint only a busy node satisfies: NoDomainFits (a wait) naming it");
    jt_pack_view_destroy (v);
    v = rview (busy, NULL, "gpu.mem GE 100", true);
    is (fx_pack_text (v, busy, &r, NULL, true), "None(NoNodes): never runnable: no h100 node "
        "satisfies --node-constraint='gpu.mem GE 100' (gpu.mem on h100 nodes: "
        "80, 40)", "constraint nobody satisfies: NoNodes with the submission line");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (busy);

    /* composed with group-by and with an envelope's selector */
    v = rview (s, "rack", "gpu.mem EQ 40", true);
    r = req (g24, 1);
    is (fx_pack_text (v, s, &r, NULL, true), "g0 B[b01:8 b02:8 b03:8] {r3}",
        "constraint + group-by: three 40 GB nodes of one rack (a06 has no rack)");
    jt_pack_view_destroy (v);
    v = rview (s, NULL, "gpu.mem GE 80", true);
    jt_labels_t rack = JT_LABELS_INIT;
    jt_labels_set (&rack, JT_LABEL_RACK, "r1");
    r = req (g24, 1);
    r.selector = &rack;
    is (fx_pack_text (v, s, &r, NULL, true), "None(NoDomainFits): group 0 (24 GPUs) fits no "
        "domain: most free is A with 16 (nodes where gpu.mem GE 80)",
        "constraint + selector rack=r1: a node must match both (a03 is r2)");
    r = req (g16, 1);
    r.selector = &rack;
    is (fx_pack_text (v, s, &r, NULL, true), "g0 A[a01:8 a02:8] {-}", "constraint + selector: both hold");
    jt_labels_free (&rack);
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

/* Class order is by value (not by node name), with a few values bucketed
 * and with many (over 32 in a domain) sorted by comparison; nodes that
 * differ in GPUs keep packing order inside their class. */
static void test_class_order (void)
{
    int64_t g8[] = { 8 };
    for (int nvals = 10; nvals <= 40; nvals += 30) {
        jt_snapshot_t *s = jt_snapshot_create ();
        jt_error_t err;
        char name[16], f[64], want[64];
        for (int i = 0; i < nvals; i++) {
            snprintf (name, sizeof (name), "n%02d", i);
            snprintf (f, sizeof (f), "fabric.domain=A,slice=v%02d", nvals - 1 - i);
            nd (s, name, 0, f);
        }
        jt_snapshot_finalize (s, &err);
        jt_pack_view_t *v = rview (s, "slice", NULL, true);
        jt_pack_request_t r = req (g8, 1);
        snprintf (want, sizeof (want), "g0 A[n%02d:8] {v00}", nvals - 1);
        is (fx_pack_text (v, s, &r, NULL, true), want, "%d values in a domain: the first class by "
            "value (v00, on the last node by name)", nvals);
        jt_pack_view_destroy (v);
        jt_snapshot_destroy (s);
    }
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_labels_t l = JT_LABELS_INIT;
    jt_error_t err;
    jt_labels_parse_features (&l, "fabric.domain=A,slice=x");
    jt_snapshot_add_node (s, "m01", &l, "h100", 4, 0, JT_NODE_UP, &err);
    jt_snapshot_add_node (s, "m02", &l, "h100", 8, 0, JT_NODE_UP, &err);
    jt_labels_free (&l);
    jt_labels_parse_features (&l, "fabric.domain=A,slice=w");
    jt_snapshot_add_node (s, "m03", &l, "h100", 4, 0, JT_NODE_UP, &err);
    jt_labels_free (&l);
    jt_snapshot_finalize (s, &err);
    jt_pack_view_t *v = rview (s, "slice", NULL, true);
    int64_t g12[] = { 12 };
    jt_pack_request_t r = req (g12, 1);
    is (fx_pack_text (v, s, &r, NULL, true), "g0 A[m02:8 m01:4] {x}",
        "nodes of 8 and 4 GPUs: the class x (12 free) in packing order, 8 first");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

/* splitmix64, for the random clusters below (fixed seed: reproducible) */
static uint64_t rng = 0x9e3779b97f4a7c15u;
static unsigned rnd (unsigned n)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return (unsigned) ((z ^ (z >> 31)) % n);
}

/* Random clusters (1-4 domains, 1-12 nodes each, racks r0-r3 or none,
 * gpu.mem 40 or 80, some busy) and random one-group requests grouped by
 * rack under "gpu.mem GE 80" sometimes: a placed group has whole free
 * nodes that satisfy the filter, all of one rack and one domain; None
 * exactly when no (domain, rack) has enough such nodes (a model that
 * counts them); and a spread-off run's groups, asked one at a time,
 * share one rack. */
static void test_random (void)
{
    int bad_place = 0, bad_none = 0, bad_spread = 0, placed = 0, none = 0;

    for (int it = 0; it < 400; it++) {
        jt_snapshot_t *s = jt_snapshot_create ();
        jt_error_t err;
        int ndom = 1 + (int) rnd (4);
        bool cons = rnd (2);
        for (int d = 0; d < ndom; d++) {
            int nn = 1 + (int) rnd (12);
            for (int k = 0; k < nn; k++) {
                char name[16], f[96];
                int rack = (int) rnd (5);
                snprintf (name, sizeof (name), "%c%02d", 'a' + d, k);
                snprintf (f, sizeof (f), "fabric.domain=%c,gpu.mem=%d%s%d",
                          'A' + d, rnd (2) ? 80 : 40, rack < 4 ? ",rack=r" : ",x=",
                          rack);
                nd (s, name, rnd (4) == 0 ? 8 : 0, f);
            }
        }
        if (jt_snapshot_finalize (s, &err) < 0)
            bail_out ("finalize: %s", err.text);
        int64_t g[1] = { 8 * (1 + (int64_t) rnd (4)) };
        /* the model: usable nodes per (domain, rack) */
        int cnt[4][4] = { { 0 } }, best = 0;
        for (size_t i = 0; i < s->nnodes; i++) {
            const jt_node_t *n = &s->nodes[i];
            const char *rk = jt_labels_get (&n->labels, "rack");
            const char *mem = jt_labels_get (&n->labels, "gpu.mem");
            if (!rk || n->used_gpus || (cons && strcmp (mem, "80")))
                continue;
            if (++cnt[n->domain][rk[1] - '0'] > best)
                best = cnt[n->domain][rk[1] - '0'];
        }
        jt_pack_view_t *v = rview (s, "rack", cons ? "gpu.mem GE 80" : NULL, true);
        jt_pack_request_t r = req (g, 1);
        jt_placement_t p;
        int rc = jt_pack (v, &r, &p, &err);
        if (rc == 0) {
            placed++;
            const jt_pack_group_t *pg = &p.groups[0];
            const char *rk0 = jt_labels_get (&s->nodes[pg->nodes[0]].labels, "rack");
            for (size_t k = 0; k < pg->nnodes; k++) {
                const jt_node_t *n = &s->nodes[pg->nodes[k]];
                const char *rk = jt_labels_get (&n->labels, "rack");
                if (!rk || strcmp (rk, rk0) || n->used_gpus || (size_t) n->domain != pg->domain
                    || (cons && strcmp (jt_labels_get (&n->labels, "gpu.mem"), "80")))
                    bad_place++;
            }
            if ((int64_t) pg->nnodes * 8 != g[0] || best * 8 < g[0])
                bad_place++;
            jt_placement_free (&p);
        } else {
            none++;
            if (rc != 1 || best * 8 >= g[0])
                bad_none++;
        }
        jt_pack_view_destroy (v);

        /* spread off, one group at a time as Plan asks */
        v = rview (s, "rack", NULL, false);
        const char *first = NULL;
        size_t fdom = 0;
        for (int k = 0; k < 4; k++) {
            int64_t one[1] = { 8 };
            r = req (one, 1);
            if (jt_pack (v, &r, &p, &err) != 0)
                break;
            const jt_node_t *n = &s->nodes[p.groups[0].nodes[0]];
            const char *rk = jt_labels_get (&n->labels, "rack");
            if (!first) {
                first = rk;
                fdom = (size_t) n->domain;
            } else if (strcmp (first, rk) || fdom != (size_t) n->domain)
                bad_spread++;
            jt_placement_free (&p);
        }
        jt_pack_view_destroy (v);
        jt_snapshot_destroy (s);
    }
    ok (placed > 50 && none > 50, "random: %d placed, %d None", placed, none);
    is_int (bad_place, 0, "random: placed groups are free, filtered, one rack, "
            "one domain, and the model has room");
    is_int (bad_none, 0, "random: None only when no (domain, rack) has room");
    is_int (bad_spread, 0, "random: spread off, every group on the first one's rack");
}

int main (void)
{
    test_group_by ();
    test_spread_off ();
    test_soft ();
    test_constraints ();
    test_class_order ();
    test_random ();
    return done_testing ();
}
