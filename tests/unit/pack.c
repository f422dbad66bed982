/*
 * pack.c - unit tests of Pack: one named test per packing rule, comparing
 * jt_placement_dump strings exactly.
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
#include "fixtures.h"
#include "tap.h"

/* Add one node. fabric NULL = no fabric.domain label; rack may be NULL. */
static void node (jt_snapshot_t *s, const char *fabric, const char *name,
                  const char *flavor, int gpus, int used, jt_node_state_t st,
                  const char *region, const char *rack)
{
    jt_labels_t l = JT_LABELS_INIT;
    jt_error_t err;

    if (fabric)
        jt_labels_set (&l, JT_LABEL_FABRIC, fabric);
    if (region)
        jt_labels_set (&l, JT_LABEL_REGION, region);
    if (rack)
        jt_labels_set (&l, JT_LABEL_RACK, rack);
    if (jt_snapshot_add_node (s, name, &l, flavor, gpus, used, st, &err) < 0)
        bail_out ("add %s: %s", name, err.text);
    jt_labels_free (&l);
}

/* n free 8-GPU h100 nodes p01..pNN in domain fabric. */
static void range (jt_snapshot_t *s, const char *fabric, const char *prefix,
                   int n)
{
    char name[32];

    for (int i = 1; i <= n; i++) {
        snprintf (name, sizeof (name), "%s%02d", prefix, i);
        node (s, fabric, name, "h100", 8, 0, JT_NODE_UP, NULL, NULL);
    }
}

static jt_pack_view_t *view (jt_snapshot_t *s)
{
    jt_error_t err;
    jt_pack_view_t *v;

    if (jt_snapshot_finalize (s, &err) < 0)
        bail_out ("finalize: %s", err.text);
    if (!(v = jt_pack_view_create (s, "h100", &err)))
        bail_out ("view: %s", err.text);
    return v;
}

static jt_pack_request_t req (const int64_t *groups, size_t n)
{
    jt_pack_request_t r = { .groups = groups, .ngroups = n, .only_domain = -1,
                            .policy = JT_PACK_TO_EMPTY };
    return r;
}

/* Reason names as jt_reason_str spells them (kept local so this test
 * depends on Pack alone). */


static void free_str (const jt_pack_view_t *v, const jt_snapshot_t *s,
                      char *buf, size_t len)
{
    size_t u = 0;

    buf[0] = '\0';
    for (size_t d = 0; d < s->ndomains && u < len; d++)
        u += snprintf (buf + u, len - u, "%s%s=%lld", d ? " " : "",
                       s->domains[d].name,
                       (long long) jt_pack_view_free (v, d));
}

static void test_flavor (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    node (s, "A", "a03", "a100", 8, 0, JT_NODE_UP, NULL, NULL);
    range (s, "A", "a", 2);
    jt_pack_view_t *v = view (s);
    int64_t g16[] = { 16 }, g24[] = { 24 };
    jt_pack_request_t r = req (g16, 1);

    is (fx_pack_text (v, s, &r, NULL, false), "g0 A[a01:8 a02:8]", "flavor filter: h100 nodes");
    jt_pack_view_destroy (v);
    v = view (s);
    r = req (g24, 1);
    is (fx_pack_text (v, s, &r, NULL, false),
        "None(NoDomainFits): group 0 (24 GPUs) fits no domain: most free is A with 16",
        "flavor filter: the a100 node is not taken");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_unusable (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    node (s, "A", "a01", "h100", 8, 0, JT_NODE_DOWN, NULL, NULL);
    node (s, "A", "a02", "h100", 8, 0, JT_NODE_DRAIN, NULL, NULL);
    node (s, "A", "a03", "h100", 8, 4, JT_NODE_UP, NULL, NULL);
    node (s, "A", "a04", "h100", 8, 0, JT_NODE_UP, NULL, NULL);
    node (s, "A", "a05", "h100", 8, 8, JT_NODE_UP, NULL, NULL);
    node (s, NULL, "n01", "h100", 8, 0, JT_NODE_UP, NULL, NULL);
    node (s, NULL, "n02", "h100", 8, 0, JT_NODE_UP, NULL, NULL);
    jt_pack_view_t *v = view (s);
    int64_t g8[] = { 8 }, g16[] = { 16 };
    jt_pack_request_t r = req (g16, 1);
    char buf[256];

    free_str (v, s, buf, sizeof (buf));
    is (buf, "A=8", "only a04 counts as free");
    is (fx_pack_text (v, s, &r, NULL, false),
        "None(NoDomainFits): group 0 (16 GPUs) fits no domain: most free is A with 8",
        "down, drained, partially used and unlabelled nodes are not taken");
    r = req (g8, 1);
    is (fx_pack_text (v, s, &r, NULL, false), "g0 A[a04:8]", "the one whole free node is taken");
    is (fx_pack_text (v, s, &r, NULL, false),
        "None(NoDomainFits): group 0 (8 GPUs) fits no domain: no domain has a free node",
        "nodes without fabric.domain never packed");
    jt_pack_view_destroy (v);

    v = jt_pack_view_create (s, "b200", NULL);
    is (fx_pack_text (v, s, &r, NULL, false),
        "None(NoNodes): no node of flavor b200 has GPUs and a fabric.domain label",
        "no node of the flavor: NoNodes");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_domain_order (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 2);
    range (s, "C", "c", 3);
    range (s, "B", "b", 3);
    jt_pack_view_t *v = view (s);
    int64_t g8[] = { 8 };
    jt_pack_request_t r = req (g8, 1);

    is (fx_pack_text (v, s, &r, NULL, false), "g0 B[b01:8]",
        "domains by free desc, tie (B=C=24) broken by name");
    is (fx_pack_text (v, s, &r, NULL, false), "g0 C[c01:8]",
        "next request: C now has the most free");
    /* Across runs the order is taken afresh: one-node runs go round-robin
     * over the domains, most free first (README, docs/packing.md). */
    is (fx_pack_text (v, s, &r, NULL, false), "g0 A[a01:8]",
        "then A (A=B=C=16, A by name): runs spread, they do not fill B");
    is (fx_pack_text (v, s, &r, NULL, false), "g0 B[b02:8]", "then B again (B=C=16 > A=8)");
    is (fx_pack_text (v, s, &r, NULL, false), "g0 C[c02:8]", "then C: round-robin, most free first");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_fill_to_empty (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 3);
    range (s, "B", "b", 2);
    jt_pack_view_t *v = view (s);
    int64_t g[] = { 8, 8, 8, 8, 8 };
    jt_pack_request_t r = req (g, 5);

    is (fx_pack_text (v, s, &r, NULL, false),
        "g0 A[a01:8] | g1 A[a02:8] | g2 A[a03:8] | g3 B[b01:8] | g4 B[b02:8]",
        "one domain filled to empty before the next");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_no_span (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 2);
    range (s, "B", "b", 2);
    jt_pack_view_t *v = view (s);
    int64_t g[] = { 24 };
    jt_pack_request_t r = req (g, 1);

    is (fx_pack_text (v, s, &r, NULL, false),
        "None(NoDomainFits): group 0 (24 GPUs) fits no domain: most free is A with 16",
        "a group never spans domains: None rather than a split");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_short_last (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 5);
    range (s, "B", "b", 4);
    jt_pack_view_t *v = view (s);
    int64_t g[] = { 32, 32, 8 };
    jt_pack_request_t r = req (g, 3);

    is (fx_pack_text (v, s, &r, NULL, false),
        "g0 A[a01:8 a02:8 a03:8 a04:8] | g1 B[b01:8 b02:8 b03:8 b04:8] | "
        "g2 A[a05:8]", "short last group fills an earlier domain's remainder");
    jt_pack_view_destroy (v);

    /* a group that is not a multiple of the node size: last node partial */
    v = view (s);
    int64_t g2[] = { 20 };
    r = req (g2, 1);
    is (fx_pack_text (v, s, &r, NULL, false), "g0 A[a01:8 a02:8 a03:4]",
        "20 GPUs take ceil(20/8) whole nodes, the last with 4");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_node_order (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    node (s, "A", "a03", "h100", 8, 0, JT_NODE_UP, NULL, NULL);
    node (s, "A", "a01", "h100", 4, 0, JT_NODE_UP, NULL, NULL);
    node (s, "A", "a04", "h100", 4, 0, JT_NODE_UP, NULL, NULL);
    node (s, "A", "a02", "h100", 8, 0, JT_NODE_UP, NULL, NULL);
    jt_pack_view_t *v = view (s);
    int64_t g[] = { 20 }, g4[] = { 4 };
    jt_pack_request_t r = req (g, 1);

    is (fx_pack_text (v, s, &r, NULL, false), "g0 A[a02:8 a03:8 a01:4]",
        "nodes within a domain by free GPUs desc, then name");
    r = req (g4, 1);
    is (fx_pack_text (v, s, &r, NULL, false), "g0 A[a04:4]", "the remaining node");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_spares (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 3);
    range (s, "B", "b", 2);
    jt_pack_view_t *v = view (s);
    int64_t g1[] = { 16 }, g2[] = { 16, 16 };
    jt_pack_request_t r = req (g1, 1);

    r.spares_per_group = 1;
    is (fx_pack_text (v, s, &r, NULL, false), "g0 A[a01:8 a02:8] s[a03]",
        "spare node in the group's own domain");
    jt_pack_view_destroy (v);
    v = view (s);
    r = req (g2, 2);
    r.spares_per_group = 1;
    is (fx_pack_text (v, s, &r, NULL, false),
        "None(NoDomainFits): group 1 (16 GPUs + 1 spare node) fits no domain: "
        "most free is B with 16", "B cannot hold 16 GPUs plus a spare");
    jt_pack_view_destroy (v);
    range (s, "B", "bb", 1);
    v = view (s);
    is (fx_pack_text (v, s, &r, NULL, false), "g0 A[a01:8 a02:8] s[a03] | g1 B[b01:8 b02:8] s[bb01]",
        "each group's spare in its own domain");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_single_domain (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 3);
    range (s, "B", "b", 4);
    jt_pack_view_t *v = view (s);
    int64_t g1[] = { 8, 8, 8 }, g2[] = { 16, 16, 8 };
    jt_pack_request_t r = req (g1, 3);

    r.single_domain = true;
    is (fx_pack_text (v, s, &r, NULL, false), "g0 B[b01:8] | g1 B[b02:8] | g2 B[b03:8]",
        "single_domain: all groups in the first domain that holds them");
    jt_pack_view_destroy (v);
    v = view (s);
    r = req (g2, 3);
    r.single_domain = true;
    is (fx_pack_text (v, s, &r, NULL, false),
        "None(SingleDomainFull): no single domain holds all 3 groups (40 GPUs): "
        "most free is B with 32", "single_domain fails fast");
    r.single_domain = false;
    is (fx_pack_text (v, s, &r, NULL, false), "g0 B[b01:8 b02:8] | g1 B[b03:8 b04:8] | g2 A[a01:8]",
        "the same groups spread when allowed (and the failed try left no trace)");
    jt_pack_view_destroy (v);
    v = view (s);
    r.single_domain = true;
    r.partial_ok = true;
    is (fx_pack_text (v, s, &r, NULL, false), "g0 B[b01:8 b02:8] | g1 B[b03:8 b04:8]",
        "single_domain + partial_ok: the domain holding the longest prefix");
    r.partial_ok = false;
    r.soft = true;
    int64_t soft24[] = { 24 };
    r.groups = soft24;
    r.ngroups = 1;
    is (fx_pack_text (v, s, &r, NULL, false), "g0 A[a01:8 a02:8 a03:8]",
        "soft + single_domain: one chunk in one domain");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_only_domain (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 4);
    range (s, "B", "b", 2);
    jt_pack_view_t *v = view (s);
    int64_t g[] = { 8 }, g3[] = { 24 };
    jt_pack_request_t r = req (g, 1);

    r.only_domain = jt_snapshot_domain_index (s, "B");
    is (fx_pack_text (v, s, &r, NULL, false), "g0 B[b01:8]", "only_domain restricts to B");
    r = req (g3, 1);
    r.only_domain = jt_snapshot_domain_index (s, "B");
    is (fx_pack_text (v, s, &r, NULL, false),
        "None(NoDomainFits): group 0 (24 GPUs) fits no domain: most free is B with 8",
        "only_domain: A is not considered");
    /* a soft demand confined to one domain: with partial_ok, what that
     * domain holds of it (Plan's payers, owner first, in the one domain
     * a spread-off soft group must use); without, all or nothing */
    int64_t soft40[] = { 40 };
    r = req (soft40, 1);
    r.soft = r.single_domain = true;
    r.only_domain = jt_snapshot_domain_index (s, "A");
    is (fx_pack_text (v, s, &r, NULL, false),
        "None(SingleDomainFull): no single domain holds all 1 group (40 GPUs):"
        " most free is A with 32", "soft, single domain, only A: all or nothing");
    r.partial_ok = true;
    is (fx_pack_text (v, s, &r, NULL, false), "g0 A[a01:8 a02:8 a03:8 a04:8]",
        "soft, single domain, only A, partial_ok: the 32 A holds");
    r.only_domain = 7;
    is (fx_pack_text (v, s, &r, NULL, false), "error: pack: no domain 7", "bad only_domain");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_soft (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 3);
    range (s, "B", "b", 2);
    range (s, "C", "c", 1);
    jt_pack_view_t *v = view (s);
    int64_t g[] = { 36 }, big[] = { 64 };
    jt_pack_request_t r = req (g, 1);

    r.soft = true;
    is (fx_pack_text (v, s, &r, NULL, false), "g0 A[a01:8 a02:8 a03:8] | g1 B[b01:8 b02:4]",
        "soft: chunks by whole node, filling each domain to empty in order");
    jt_pack_view_destroy (v);
    v = view (s);
    r = req (big, 1);
    r.soft = true;
    is (fx_pack_text (v, s, &r, NULL, false),
        "None(NoDomainFits): soft demand of 64 GPUs: only 48 placeable",
        "soft: None when the demand exceeds what is free");
    r.partial_ok = true;
    is (fx_pack_text (v, s, &r, NULL, false), "g0 A[a01:8 a02:8 a03:8] | g1 B[b01:8 b02:8] | g2 C[c01:8]",
        "soft + partial_ok: as much as fits");
    jt_pack_view_destroy (v);
    v = view (s);
    r = req (g, 1);
    r.soft = true;
    r.spares_per_group = 1;
    is (fx_pack_text (v, s, &r, NULL, false),
        "None(NoDomainFits): soft demand of 36 GPUs + 1 spare node per chunk: "
        "only 24 placeable", "soft with spares: one spare per chunk");
    int64_t g24[] = { 24 };
    r.groups = g24;
    is (fx_pack_text (v, s, &r, NULL, false), "g0 A[a01:8 a02:8] s[a03] | g1 B[b01:8] s[b02]",
        "soft chunks each keep their spare");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_partial (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 2);
    range (s, "B", "b", 1);
    jt_pack_view_t *v = view (s);
    int64_t g[] = { 16, 16, 8 };
    jt_pack_request_t r = req (g, 3);
    jt_placement_t p;

    is (fx_pack_text (v, s, &r, NULL, false),
        "None(NoDomainFits): group 1 (16 GPUs) fits no domain: most free is B with 8",
        "without partial_ok: None");
    r.partial_ok = true;
    is (fx_pack_text (v, s, &r, &p, false), "g0 A[a01:8 a02:8]",
        "partial_ok: the longest prefix (group 2 would fit but is not a prefix)");
    is_int (p.ngroups, 1, "one group placed");
    is_int (p.total_gpus, 16, "total 16");
    ok (p.reason == JT_OK, "reason OK");
    jt_placement_free (&p);
    int64_t g2[] = { 16 };
    r = req (g2, 1);
    r.partial_ok = true;
    is (fx_pack_text (v, s, &r, NULL, false),
        "None(NoDomainFits): group 0 (16 GPUs) fits no domain: most free is B with 8",
        "partial_ok with 0 groups placed is None");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_selector (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    node (s, "A", "a01", "h100", 8, 0, JT_NODE_UP, "west", "r2");
    node (s, "A", "a02", "h100", 8, 0, JT_NODE_UP, "west", "r1");
    node (s, "A", "a03", "h100", 8, 0, JT_NODE_UP, "west", "r1");
    node (s, "A", "a04", "h100", 8, 0, JT_NODE_UP, "west", "r2");
    node (s, "B", "b01", "h100", 8, 0, JT_NODE_UP, "east", "r1");
    jt_pack_view_t *v = view (s);
    jt_labels_t rack = JT_LABELS_INIT, east = JT_LABELS_INIT;
    int64_t g16[] = { 16 }, g8[] = { 8 };
    jt_pack_request_t r = req (g16, 1);

    jt_labels_set (&rack, JT_LABEL_RACK, "r1");
    jt_labels_set (&east, JT_LABEL_REGION, "east");
    r.selector = &rack;
    is (fx_pack_text (v, s, &r, NULL, false), "g0 west/A[a02:8 a03:8]",
        "node-level selector: only rack r1 nodes");
    is (fx_pack_text (v, s, &r, NULL, false),
        "None(NoDomainFits): group 0 (16 GPUs) fits no domain: most free is east/B with 8",
        "node-level selector: the r2 nodes do not count");
    r.selector = NULL;
    is (fx_pack_text (v, s, &r, NULL, false), "g0 west/A[a01:8 a04:8]", "no selector: the r2 nodes");
    r = req (g8, 1);
    r.selector = &east;
    is (fx_pack_text (v, s, &r, NULL, false), "g0 east/B[b01:8]", "domain-level selector region=east");
    jt_labels_free (&rack);
    jt_labels_free (&east);
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_best_fit (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 4);
    range (s, "B", "b", 2);
    range (s, "C", "c", 3);
    range (s, "D", "d", 2);
    jt_pack_view_t *v = view (s);
    int64_t g[] = { 16 }, g3[] = { 24 };
    jt_pack_request_t r = req (g, 1);

    r.policy = JT_PACK_BEST_FIT;
    is (fx_pack_text (v, s, &r, NULL, false), "g0 B[b01:8 b02:8]",
        "best-fit: smallest domain that holds the group (B=D tie by name)");
    r.groups = g3;
    is (fx_pack_text (v, s, &r, NULL, false), "g0 C[c01:8 c02:8 c03:8]", "best-fit: C for 24");
    is (jt_pack_policy_str (JT_PACK_BEST_FIT), "best-fit", "policy name");
    jt_pack_policy_t pol;
    ok (jt_pack_policy_parse ("pack-to-empty", &pol) == 0
        && pol == JT_PACK_TO_EMPTY, "policy parse");
    ok (jt_pack_policy_parse ("worst-fit", &pol) == -1, "bad policy");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_none_unchanged (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 5);
    range (s, "B", "b", 3);
    jt_pack_view_t *v = view (s);
    int64_t g[] = { 32, 16, 32 }, g8[] = { 8, 8 };
    jt_pack_request_t r = req (g, 3);
    char before[256], after[256];

    free_str (v, s, before, sizeof (before));
    ok (strncmp (fx_pack_text (v, s, &r, NULL, false), "None", 4) == 0,
        "request fails on its third group");
    free_str (v, s, after, sizeof (after));
    is (after, before, "None leaves free per domain unchanged");
    is (before, "A=40 B=24", "free per domain");
    r = req (g8, 2);
    is (fx_pack_text (v, s, &r, NULL, false), "g0 A[a01:8] | g1 A[a02:8]",
        "the nodes the failed request had taken are given back in order");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_unplace (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 4);
    range (s, "B", "b", 3);
    jt_pack_view_t *v = view (s);
    int64_t g[] = { 16, 16 };
    jt_pack_request_t r = req (g, 2);
    jt_placement_t p;
    char before[256], after[256], first[256];

    r.spares_per_group = 1;
    free_str (v, s, before, sizeof (before));
    snprintf (first, sizeof (first), "%s", fx_pack_text (v, s, &r, &p, false));
    is (first, "g0 A[a01:8 a02:8] s[a03] | g1 B[b01:8 b02:8] s[b03]", "placed");
    free_str (v, s, after, sizeof (after));
    is (after, "A=8 B=0", "nodes consumed");
    is_int (jt_pack_unplace (v, &p), 0, "unplace");
    jt_placement_free (&p);
    free_str (v, s, after, sizeof (after));
    is (after, before, "unplace restores free per domain");
    is (fx_pack_text (v, s, &r, NULL, false), first, "the same request places identically again");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_seed_example (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 9);
    range (s, "B", "b", 6);
    jt_pack_view_t *v = view (s);
    int64_t g1[] = { 64, 32 }, g2[] = { 64, 64 };
    jt_pack_request_t r = req (g1, 2);
    jt_placement_t p;

    is (fx_pack_text (v, s, &r, &p, false),
        "g0 A[a01:8 a02:8 a03:8 a04:8 a05:8 a06:8 a07:8 a08:8] | "
        "g1 B[b01:8 b02:8 b03:8 b04:8]", "seed example: [64,32] -> g0 A, g1 B");
    is_int (p.total_gpus, 96, "96 GPUs placed");
    jt_pack_unplace (v, &p);
    jt_placement_free (&p);
    r = req (g2, 2);
    is (fx_pack_text (v, s, &r, NULL, false),
        "None(NoDomainFits): group 1 (64 GPUs) fits no domain: most free is B with 48",
        "seed example: [64,64] -> None");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_hold_order (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 5);
    range (s, "B", "b", 4);
    jt_pack_view_t *v = view (s);
    int64_t g[] = { 16, 16, 16 };
    jt_pack_request_t r = req (g, 3);
    jt_placement_t p[3];
    char got[512];

    is (fx_pack_text (v, s, &r, &p[0], false),
        "g0 A[a01:8 a02:8] | g1 A[a03:8 a04:8] | g2 B[b01:8 b02:8]",
        "one request: A fills to empty before B");
    jt_pack_unplace (v, &p[0]);
    jt_placement_free (&p[0]);

    /* one group per request, order recomputed each time: g1 goes to B */
    got[0] = '\0';
    for (int i = 0; i < 3; i++) {
        r = req (&g[i], 1);
        strcat (got, fx_pack_text (v, s, &r, &p[i], false));
        strcat (got, i < 2 ? " ; " : "");
    }
    is (got, "g0 A[a01:8 a02:8] ; g0 B[b01:8 b02:8] ; g0 A[a03:8 a04:8]",
        "one group per request without hold: order is recomputed per group");
    for (int i = 0; i < 3; i++) {
        jt_pack_unplace (v, &p[i]);
        jt_placement_free (&p[i]);
    }

    ok (jt_pack_view_hold_order (v, true) == 0, "hold the order");
    got[0] = '\0';
    for (int i = 0; i < 3; i++) {
        r = req (&g[i], 1);
        strcat (got, fx_pack_text (v, s, &r, NULL, false));
        strcat (got, i < 2 ? " ; " : "");
    }
    is (got, "g0 A[a01:8 a02:8] ; g0 A[a03:8 a04:8] ; g0 B[b01:8 b02:8]",
        "one group per request with hold: the same domains as one request");
    jt_pack_view_hold_order (v, false);
    r = req (&g[0], 1);
    is (fx_pack_text (v, s, &r, NULL, false), "g0 B[b03:8 b04:8]",
        "released: order by current free again (B 16 > A 8)");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

static void test_misc (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    range (s, "A", "a", 1);
    jt_pack_view_t *v = view (s);
    jt_placement_t p = { 0 };
    int64_t g0[] = { 0 };
    jt_pack_request_t r = req (g0, 1);
    char *d = jt_placement_dump (&p, s);

    is (d, "-", "empty placement dumps as -");
    free (d);
    is (fx_pack_text (v, s, &r, NULL, false), "error: pack: group 0 has 0 GPUs", "zero group");
    int64_t huge[] = { (int64_t) 1 << 41 };
    r = req (huge, 1);
    is (fx_pack_text (v, s, &r, NULL, false), "error: pack: group 0 has 2199023255552 GPUs",
        "absurd group size is an error, not an overflow");
    int64_t g8[] = { 8 };
    r = req (g8, 1);
    r.spares_per_group = -1;
    is (fx_pack_text (v, s, &r, NULL, false), "error: pack: bad spares_per_group -1",
        "negative spares");
    r.ngroups = 0;
    is (fx_pack_text (v, s, &r, NULL, false), "error: pack: empty request", "empty request");
    is_int (jt_pack_view_free (v, 5), 0, "free of a bad domain is 0");
    jt_placement_free (NULL);
    jt_pack_view_destroy (NULL);
    ok (1, "NULL frees are harmless");
    jt_pack_view_destroy (v);
    jt_snapshot_destroy (s);
}

int main (void)
{
    test_flavor ();
    test_unusable ();
    test_domain_order ();
    test_fill_to_empty ();
    test_no_span ();
    test_short_last ();
    test_node_order ();
    test_spares ();
    test_single_domain ();
    test_only_domain ();
    test_soft ();
    test_partial ();
    test_selector ();
    test_best_fit ();
    test_none_unchanged ();
    test_unplace ();
    test_seed_example ();
    test_hold_order ();
    test_misc ();
    return done_testing ();
}
