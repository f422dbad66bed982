/*
 * snapshot.c - unit tests of the snapshot model: construction, finalize
 * (sorting, duplicates, domains), look-ups, gpus_per_node, names.
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

#include "jobtree/snapshot.h"
#include "tap.h"

static int add (jt_snapshot_t *s, const char *name, const char *region,
                const char *cluster, const char *fabric, const char *flavor,
                int gpus, int used, jt_node_state_t st, jt_error_t *err)
{
    jt_labels_t l = JT_LABELS_INIT;
    int rc;

    if (region)
        jt_labels_set (&l, JT_LABEL_REGION, region);
    if (cluster)
        jt_labels_set (&l, JT_LABEL_CLUSTER, cluster);
    if (fabric)
        jt_labels_set (&l, JT_LABEL_FABRIC, fabric);
    rc = jt_snapshot_add_node (s, name, &l, flavor, gpus, used, st, err);
    jt_labels_free (&l);
    return rc;
}

/* "name(domain) ..." in node order, for exact comparison. */
static void dump_nodes (const jt_snapshot_t *s, char *buf, size_t len)
{
    size_t u = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < s->nnodes && u < len; i++)
        u += snprintf (buf + u, len - u, "%s%s(%d)", i ? " " : "",
                       s->nodes[i].name, s->nodes[i].domain);
}

static void dump_domains (const jt_snapshot_t *s, char *buf, size_t len)
{
    size_t u = 0;

    buf[0] = '\0';
    for (size_t d = 0; d < s->ndomains && u < len; d++) {
        u += snprintf (buf + u, len - u, "%s%s[", d ? " | " : "",
                       s->domains[d].name);
        for (size_t k = 0; k < s->domains[d].nnodes && u < len; k++)
            u += snprintf (buf + u, len - u, "%s%s", k ? " " : "",
                           s->nodes[s->domains[d].nodes[k]].name);
        if (u < len)
            u += snprintf (buf + u, len - u, "]");
    }
}

static void test_construct (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err = { "" };
    char buf[512];

    ok (s != NULL, "create");
    ok (add (s, "b02", "west", "c1", "B", "h100", 8, 0, JT_NODE_UP, &err) == 0,
        "add b02");
    add (s, "a02", "west", "c1", "A", "h100", 8, 8, JT_NODE_UP, &err);
    add (s, "b01", "west", "c1", "B", "h100", 8, 0, JT_NODE_DOWN, &err);
    add (s, "a01", "west", "c1", "A", "h100", 8, 0, JT_NODE_UP, &err);
    add (s, "z01", NULL, NULL, "z", "a100", 4, 0, JT_NODE_UP, &err);
    add (s, "n01", "west", "c1", NULL, "h100", 8, 0, JT_NODE_UP, &err);
    add (s, "c01", NULL, "c2", "C", NULL, 0, 0, JT_NODE_UP, &err);
    add (s, "e01", "east", NULL, "A", "h100", 16, 0, JT_NODE_DRAIN, &err);
    is_int (s->nnodes, 8, "eight nodes added");
    ok (!s->finalized, "not finalized before finalize");
    ok (jt_snapshot_node_index (s, "a01") == -1, "node_index needs finalize");

    ok (jt_snapshot_finalize (s, &err) == 0, "finalize");
    ok (s->finalized, "finalized flag");
    dump_nodes (s, buf, sizeof (buf));
    is (buf, "a01(2) a02(2) b01(3) b02(3) c01(0) e01(1) n01(-1) z01(4)",
        "nodes sorted by name, domain indexes by domain name");
    dump_domains (s, buf, sizeof (buf));
    is (buf, "c2/C[c01] | east/A[e01] | west/c1/A[a01 a02] | "
        "west/c1/B[b01 b02] | z[z01]",
        "domains sorted by name; present parts joined by '/'");
    is (s->domains[2].region, "west", "domain region");
    is (s->domains[2].cluster, "c1", "domain cluster");
    is (s->domains[2].fabric, "A", "domain fabric");
    ok (s->domains[4].region == NULL && s->domains[4].cluster == NULL,
        "absent region/cluster are NULL");
    is (s->domains[0].cluster, "c2", "cluster without region");

    is_int (jt_snapshot_node_index (s, "a01"), 0, "node_index first");
    is_int (jt_snapshot_node_index (s, "z01"), 7, "node_index last");
    is_int (jt_snapshot_node_index (s, "e01"), 5, "node_index middle");
    is_int (jt_snapshot_node_index (s, "x99"), -1, "node_index absent");
    is_int (jt_snapshot_domain_index (s, "west/c1/B"), 3, "domain_index");
    is_int (jt_snapshot_domain_index (s, "B"), -1, "domain_index needs full name");
    is_int (jt_snapshot_domain_index (s, "z"), 4, "domain_index bare fabric");

    is_int (jt_snapshot_gpus_per_node (s, "h100"), 8,
            "gpus_per_node: max over up nodes (drained 16-GPU node ignored)");
    is_int (jt_snapshot_gpus_per_node (s, "a100"), 4, "gpus_per_node a100");
    is_int (jt_snapshot_gpus_per_node (s, "v100"), 0, "gpus_per_node unknown");
    is_int (jt_snapshot_gpus_per_node (s, NULL), 0, "gpus_per_node NULL");

    /* refinalize after adding: sorted again, domains rebuilt */
    add (s, "a00", "west", "c1", "A", "h100", 8, 0, JT_NODE_UP, &err);
    ok (!s->finalized, "adding a node clears finalized");
    ok (jt_snapshot_finalize (s, &err) == 0, "finalize again");
    dump_domains (s, buf, sizeof (buf));
    is (buf, "c2/C[c01] | east/A[e01] | west/c1/A[a00 a01 a02] | "
        "west/c1/B[b01 b02] | z[z01]", "domains rebuilt after refinalize");
    jt_snapshot_destroy (s);
}

static void test_errors (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err = { "" };

    add (s, "a01", NULL, NULL, "A", "h100", 8, 0, JT_NODE_UP, &err);
    add (s, "b01", NULL, NULL, "B", "h100", 8, 0, JT_NODE_UP, &err);
    add (s, "a01", NULL, NULL, "B", "h100", 8, 0, JT_NODE_UP, &err);
    ok (jt_snapshot_finalize (s, &err) == -1, "duplicate node name fails");
    is (err.text, "duplicate node name a01", "error names the node");
    jt_snapshot_destroy (s);

    s = jt_snapshot_create ();
    ok (add (s, "x", NULL, NULL, "A", "h100", 8, 9, JT_NODE_UP, &err) == -1,
        "used > gpus rejected");
    is (err.text, "node x: bad GPU counts (gpus 8, used 9)", "message");
    ok (add (s, "", NULL, NULL, "A", "h100", 8, 0, JT_NODE_UP, &err) == -1,
        "empty name rejected");
    ok (add (s, "x", NULL, NULL, "A", "h100", -1, 0, JT_NODE_UP, &err) == -1,
        "negative gpus rejected");
    is_int (s->nnodes, 0, "rejected nodes not added");

    add (s, "p1", "west", NULL, "A", "h100", 8, 0, JT_NODE_UP, &err);
    add (s, "p2", NULL, "west", "A", "h100", 8, 0, JT_NODE_UP, &err);
    ok (jt_snapshot_finalize (s, &err) == -1,
        "two label tuples spelling one domain name fail");
    is (err.text, "nodes p1 and p2: different labels spell the same domain "
        "name west/A", "ambiguity message names both nodes");
    is_int (s->ndomains, 0, "no domains left after a failed finalize");
    jt_snapshot_destroy (s);
    jt_snapshot_destroy (NULL);
    ok (1, "destroy(NULL) is harmless");
}

static void test_leases (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err = { "" };
    char n1[] = "a01", n2[] = "a02";
    char *nodes[] = { n1, n2 };
    char run[] = "c1:4242";
    jt_lease_t l = { .run = run, .group = 1, .owner = (char *) "rai",
                     .envelope = (char *) "west-h100", .nodes = nodes,
                     .nnodes = 2, .gpus = 16, .role = JT_ROLE_SPARE,
                     .start = 1772359200 };

    ok (jt_snapshot_add_lease (s, &l, &err) == 0, "add lease");
    /* the snapshot must own copies */
    n1[0] = 'X';
    run[0] = 'X';
    is_int (s->nleases, 1, "one lease");
    is (s->leases[0].run, "c1:4242", "run copied");
    is (s->leases[0].nodes[0], "a01", "node names copied");
    is (s->leases[0].nodes[1], "a02", "second node");
    is (s->leases[0].owner, "rai", "owner");
    is (s->leases[0].envelope, "west-h100", "envelope");
    is_int (s->leases[0].gpus, 16, "gpus");
    is_int (s->leases[0].group, 1, "group");
    is_int (s->leases[0].start, 1772359200, "start");
    ok (s->leases[0].role == JT_ROLE_SPARE, "role");
    for (int i = 0; i < 40; i++)
        if (jt_snapshot_add_lease (s, &l, &err) < 0)
            break;
    is_int (s->nleases, 41, "many leases (array growth)");
    l.run = NULL;
    ok (jt_snapshot_add_lease (s, &l, &err) == -1, "lease without run rejected");
    jt_snapshot_destroy (s);
}

static void test_names (void)
{
    jt_role_t r;
    jt_node_state_t st;

    is (jt_role_str (JT_ROLE_ACTIVE), "Active", "role Active");
    is (jt_role_str (JT_ROLE_SPARE), "Spare", "role Spare");
    is (jt_role_str (JT_ROLE_BORROWED), "Borrowed", "role Borrowed");
    ok (jt_role_parse ("Borrowed", &r) == 0 && r == JT_ROLE_BORROWED,
        "parse Borrowed");
    ok (jt_role_parse ("active", &r) == -1, "role names are case-sensitive");
    ok (jt_role_parse (NULL, &r) == -1, "parse NULL role");
    is (jt_node_state_str (JT_NODE_UP), "up", "state up");
    is (jt_node_state_str (JT_NODE_DOWN), "down", "state down");
    is (jt_node_state_str (JT_NODE_DRAIN), "drain", "state drain");
    ok (jt_node_state_parse ("drain", &st) == 0 && st == JT_NODE_DRAIN,
        "parse drain");
    ok (jt_node_state_parse ("bogus", &st) == -1, "parse bogus state");
}

static void test_many (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err = { "" };
    char name[32], fab[32];
    int bad = 0;

    /* added in reverse so finalize has to sort */
    for (int i = 999; i >= 0; i--) {
        snprintf (name, sizeof (name), "n%04d", i);
        snprintf (fab, sizeof (fab), "D%02d", i % 32);
        if (add (s, name, NULL, NULL, fab, "h100", 8, 0, JT_NODE_UP, &err) < 0)
            bad++;
    }
    is_int (bad, 0, "1000 nodes added");
    ok (jt_snapshot_finalize (s, &err) == 0, "finalize 1000");
    is_int (s->ndomains, 32, "32 domains");
    for (size_t i = 0; i < s->nnodes; i++) {
        snprintf (name, sizeof (name), "n%04zu", i);
        if (strcmp (s->nodes[i].name, name) != 0
            || jt_snapshot_node_index (s, name) != (ssize_t) i)
            bad++;
    }
    is_int (bad, 0, "every node sorted and found by node_index");
    is_int (s->domains[5].nnodes, 32, "domain D05 has 32 nodes (0..999 step 32 + 8)");
    is (s->nodes[s->domains[5].nodes[0]].name, "n0005", "D05 first node");
    is (s->nodes[s->domains[5].nodes[31]].name, "n0997", "D05 last node");
    jt_snapshot_destroy (s);
}

/* Label classes: nodes with the same labels and flavor share one; another
 * flavor, another value, one more label, or strings that would spell the
 * same when joined do not. Nodes added after finalize have none until the
 * next finalize. */
static void test_label_classes (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_labels_t l[6] = { JT_LABELS_INIT, JT_LABELS_INIT, JT_LABELS_INIT,
                         JT_LABELS_INIT, JT_LABELS_INIT, JT_LABELS_INIT };
    const char *names[] = { "n0", "n1", "n2", "n3", "n4", "n5", "n6" };
    jt_error_t err;

    for (int i = 0; i < 6; i++)
        jt_labels_set (&l[i], "fabric.domain", "A");
    jt_labels_set (&l[2], "fabric.domain", "B");     /* another value */
    jt_labels_set (&l[3], "rack", "r1");             /* one more label */
    jt_labels_set (&l[4], "x", "1:y");               /* joined: x=1:y ... */
    jt_labels_set (&l[5], "x", "1");                 /* ... or x=1, y= */
    jt_labels_set (&l[5], "y", "");
    for (int i = 0; i < 6; i++)
        jt_snapshot_add_node (s, names[i], &l[i], "h100", 8, 0, JT_NODE_UP, &err);
    jt_snapshot_add_node (s, names[6], &l[0], "a100", 8, 0, JT_NODE_UP, &err);
    is_int (jt_snapshot_finalize (s, &err), 0, "finalized");
    /* sorted by name: n0..n6 keep their indexes */
    is_int (s->nodes[0].lclass == s->nodes[1].lclass, 1,
            "same labels, same flavor: one class");
    int distinct = 0;
    for (int i = 0; i < 7; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= s->nodes[j].lclass == s->nodes[i].lclass;
        distinct += !seen;
    }
    is_int (distinct, 6, "value, extra label, spelling, flavor: each its own class");
    is_int ((int) s->nlclasses, 6, "six classes");
    jt_snapshot_add_node (s, "n7", &l[0], "h100", 8, 0, JT_NODE_UP, &err);
    is_int (s->nodes[7].lclass == JT_LCLASS_NONE, 1, "added after finalize: no class");
    is_int (jt_snapshot_finalize (s, &err), 0, "finalized again");
    is_int (s->nodes[7].lclass == s->nodes[0].lclass, 1, "then n0's");
    for (int i = 0; i < 6; i++)
        jt_labels_free (&l[i]);
    jt_snapshot_destroy (s);
}

int main (void)
{
    test_construct ();
    test_errors ();
    test_leases ();
    test_names ();
    test_many ();
    test_label_classes ();
    return done_testing ();
}
