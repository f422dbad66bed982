/*
 * nodemap.c - unit tests of the Slurm node -> snapshot mapping shared by
 * the select plugin and `jobtree snapshot` (jobtree/nodemap.h): features
 * to labels, the domain key and the leaf-switch fallback, typed, untyped
 * and hostile GRES, GPUs in use, node states, skipped and unlabelled
 * nodes, and bound groups as leases.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "jobtree/nodemap.h"
#include "tap.h"

/* A node with a typical GRES, idle, no leaf switch. */
static jt_nodemap_node_t node (const char *name, const char *features,
                               const char *gres)
{
    jt_nodemap_node_t n = {
        .name = name, .features = features, .gres = gres,
    };
    return n;
}

/* "flavor gpus/used state labels" of the node named name, or "-". */
static const char *dump (const jt_snapshot_t *s, const char *name)
{
    static char buf[512];
    char labels[256];

    for (size_t i = 0; i < s->nnodes; i++) {
        const jt_node_t *n = &s->nodes[i];
        if (strcmp (n->name, name) != 0)
            continue;
        jt_labels_format (&n->labels, labels, sizeof (labels));
        snprintf (buf, sizeof (buf), "%s %d/%d %s %s", n->flavor ? n->flavor : "-",
                  n->gpus, n->used_gpus, jt_node_state_str (n->state), labels);
        return buf;
    }
    return "-";
}

/* Map one node into a fresh snapshot and dump it ("rc=N" on failure). */
static const char *map1 (const jt_nodemap_node_t *n, const char *domain_key)
{
    static char buf[512];
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err = { "" };
    int rc = jt_nodemap_add (s, n, domain_key, &err);

    if (rc != 1)
        snprintf (buf, sizeof (buf), "rc=%d %s", rc, err.text);
    else
        snprintf (buf, sizeof (buf), "%s", dump (s, n->name));
    jt_snapshot_destroy (s);
    return buf;
}

static void test_labels (void)
{
    jt_nodemap_node_t n = node ("a01", "fabric.domain=A,region=west,cluster=c1,"
                                "rack=r1,ib,=x,y=", "gpu:h100:8(S:0-1)");

    is (map1 (&n, NULL), "h100 8/0 up cluster=c1,fabric.domain=A,rack=r1,region=west",
        "key=value features are the labels, plain and broken ones skipped");
    is (map1 (&n, JT_LABEL_FABRIC),
        "h100 8/0 up cluster=c1,fabric.domain=A,rack=r1,region=west",
        "fabric.domain is the default key");
    is (map1 (&n, "rack"), "h100 8/0 up cluster=c1,fabric.domain=r1,rack=r1,region=west",
        "the domain key is copied to fabric.domain");
    n.features = "fabric.domain=A,region=west";
    n.leaf_switch = "domA";
    is (map1 (&n, "rack"), "h100 8/0 up fabric.domain=A,region=west",
        "domain key absent: a fabric.domain feature still names the domain");
    n.features = "region=west,cluster=c1,ib";
    is (map1 (&n, NULL), "h100 8/0 up cluster=c1,fabric.domain=domA,region=west",
        "no fabric.domain feature: the leaf switch is the domain");
    is (map1 (&n, "rack"), "h100 8/0 up cluster=c1,fabric.domain=domA,region=west",
        "no domain-key feature: the leaf switch is the domain");
    n.features = "fabric.domain=B";
    is (map1 (&n, NULL), "h100 8/0 up fabric.domain=B",
        "a fabric.domain feature wins over the leaf switch");
    n.features = "rack=r7";
    is (map1 (&n, "rack"), "h100 8/0 up fabric.domain=r7,rack=r7",
        "a domain-key feature wins over the leaf switch");
    n.features = NULL;
    n.leaf_switch = NULL;
    is (map1 (&n, NULL), "h100 8/0 up ", "no features, no switch: no labels");
    n.leaf_switch = "";
    is (map1 (&n, NULL), "h100 8/0 up ", "an empty switch name is no domain");
}

static void test_gres (void)
{
    static const struct {
        const char *gres, *want, *what;
    } v[] = {
        { "gpu:h100:8", "h100 8/0", "typed GRES: flavor and GPUs" },
        { "gpu:h100:8(S:0-1),nic:1", "h100 8/0", "socket suffix, other GRES" },
        { "nic:1(IDX:0),gpu:a100:4(S:0)", "a100 4/0", "gpu entry after another" },
        { "gres:gpu:h100:4;gres:gpu:h100:4", "h100 8/0", "entries of one type add up" },
        { "gpu:8", "- 0/0", "untyped GRES: no flavor, no GPUs" },
        { "gpu", "- 0/0", "bare gpu: no flavor" },
        { "gpu:h100:0", "- 0/0", "typed but no GPUs: no flavor" },
        { "gpu:h100:4,gpu:a100:4", "- 0/0", "two GPU types: no flavor" },
        { "nic:2", "- 0/0", "no gpu GRES" },
        { "", "- 0/0", "empty GRES" },
        { NULL, "- 0/0", "no GRES" },
        { "gpu:h100:x:8", "- 0/0", "malformed GRES" },
        { "gpu:h100:1048576", "h100 1048576/0", "JT_GRES_COUNT_MAX is taken" },
        { "gpu:h100:1048577", "- 0/0", "one more is refused" },
        { "gpu:h100:2147483648", "- 0/0", "INT_MAX + 1 is refused, not wrapped" },
        { "gpu:h100:99999999999999999999999", "- 0/0", "a count past int64 is refused" },
        { "gpu:h100:1048576,gpu:h100:1", "- 0/0", "a sum past the bound is refused" },
        { "gpu:h100:-8", "- 0/0", "a negative count is refused" },
    };

    for (size_t i = 0; i < sizeof (v) / sizeof (v[0]); i++) {
        jt_nodemap_node_t n = node ("g01", NULL, v[i].gres);
        char want[64];
        snprintf (want, sizeof (want), "%s up ", v[i].want);
        is (map1 (&n, NULL), want, "%s: '%s'", v[i].what,
            v[i].gres ? v[i].gres : "(null)");
    }
}

static void test_used (void)
{
    static const struct {
        const char *gres_used;
        uint64_t used;
        const char *want, *what;
    } v[] = {
        { "gpu:h100:2(IDX:0-1)", 0, "h100 8/2", "GRES in use" },
        { "gpu:h100:0(IDX:N/A)", 5, "h100 8/0", "the string wins over the count" },
        { "gpu:h100:16", 0, "h100 8/8", "more in use than the node has: clamped" },
        { "gpu:h100:x:2", 0, "h100 8/0", "malformed GRES in use counts nothing" },
        { "gpu:h100:99999999999999999999", 0, "h100 8/0",
          "an overflowing count in use counts nothing" },
        { "nic:1(IDX:0)", 0, "h100 8/0", "no gpu in use" },
        { NULL, 3, "h100 8/3", "a count (select plugin's gres_cnt_alloc)" },
        { NULL, 8, "h100 8/8", "all GPUs allocated" },
        { NULL, 9, "h100 8/8", "a count above the node's GPUs is clamped" },
        { NULL, UINT64_MAX, "h100 8/8", "UINT64_MAX is clamped, not wrapped" },
        { NULL, (uint64_t) 1 << 32, "h100 8/8", "2^32 is clamped, not truncated to 0" },
    };

    for (size_t i = 0; i < sizeof (v) / sizeof (v[0]); i++) {
        jt_nodemap_node_t n = node ("g01", NULL, "gpu:h100:8");
        char want[64];
        n.gres_used = v[i].gres_used;
        n.used_gpus = v[i].used;
        snprintf (want, sizeof (want), "%s up ", v[i].want);
        is (map1 (&n, NULL), want, "%s", v[i].what);
    }
    {
        jt_nodemap_node_t n = node ("g01", NULL, "gpu:8");
        n.used_gpus = 4;
        is (map1 (&n, NULL), "- 0/0 up ", "a node without a flavor uses nothing");
    }
}

static void test_states (void)
{
    static const struct {
        unsigned flags;
        const char *want, *what;
    } v[] = {
        { 0, "h100 8/1 up", "idle" },
        { JT_NODEMAP_ALLOCATED, "h100 8/8 up", "allocated: fully used" },
        { JT_NODEMAP_MIXED, "h100 8/8 up", "mixed (a CPU job on it): fully used" },
        { JT_NODEMAP_COMPLETING, "h100 8/8 up", "completing: fully used" },
        { JT_NODEMAP_DOWN, "h100 8/1 down", "down" },
        { JT_NODEMAP_UNKNOWN, "h100 8/1 down", "unknown (never registered): down" },
        { JT_NODEMAP_FUTURE, "h100 8/1 down", "future: down" },
        { JT_NODEMAP_FAIL, "h100 8/1 down", "fail: down" },
        { JT_NODEMAP_NO_RESPOND, "h100 8/1 down", "idle but not responding: down" },
        { JT_NODEMAP_POWERED_DOWN, "h100 8/1 down", "powered down: down" },
        { JT_NODEMAP_DRAIN, "h100 8/1 drain", "drained" },
        { JT_NODEMAP_MIXED | JT_NODEMAP_DRAIN, "h100 8/8 drain",
          "draining (mixed + drain): drain, fully used" },
        { JT_NODEMAP_DOWN | JT_NODEMAP_DRAIN, "h100 8/1 down", "down wins over drain" },
        { JT_NODEMAP_FAIL | JT_NODEMAP_DRAIN, "h100 8/1 down", "fail wins over drain" },
    };

    for (size_t i = 0; i < sizeof (v) / sizeof (v[0]); i++) {
        jt_nodemap_node_t n = node ("g01", NULL, "gpu:h100:8");
        char want[64];
        n.gres_used = "gpu:h100:1";
        n.flags = v[i].flags;
        snprintf (want, sizeof (want), "%s ", v[i].want);
        is (map1 (&n, NULL), want, "%s", v[i].what);
    }
    {
        jt_nodemap_node_t n = node ("g01", NULL, "gpu:h100:8");
        n.flags = JT_NODEMAP_FLAGS_ALL + 1;
        is (map1 (&n, NULL), "rc=-1 node g01: unknown state flags 0x400",
            "a flag the library does not define is refused");
    }
}

static void test_skip_and_labelled (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err = { "" };
    jt_nodemap_node_t v[] = {
        node ("c02", "region=west,fabric.domain=A", "gpu:h100:8"),
        node ("c01", "region=west,fabric.domain=A", "gpu:h100:8"),
        node ("c03", "region=west", "gpu:h100:8"),      /* no domain */
        node ("c04", "region=west,fabric.domain=A", "gpu:8"),  /* no flavor */
        node ("c05", "region=west", "gpu:h100:8"),      /* leaf switch */
        node (NULL, "fabric.domain=A", "gpu:h100:8"),   /* hole */
        node ("", "fabric.domain=A", "gpu:h100:8"),     /* hole */
    };
    size_t added = 0, labelled = 0;
    char names[256] = "";

    v[4].leaf_switch = "sw1";
    for (size_t i = 0; i < sizeof (v) / sizeof (v[0]); i++) {
        int rc = jt_nodemap_add (s, &v[i], NULL, &err);
        if (rc < 0)
            diag ("%s", err.text);
        added += rc == 1;
    }
    is_int (added, 5, "nodes without a name are skipped, the others added");
    is_int (s->nnodes, 5, "holes are not in the snapshot");
    ok (jt_snapshot_finalize (s, &err) == 0, "finalize");
    for (size_t i = 0; i < s->nnodes; i++)
        if (jt_nodemap_labelled (&s->nodes[i])) {
            labelled++;
            strncat (names, s->nodes[i].name, sizeof (names) - strlen (names) - 2);
            strcat (names, " ");
        }
    is_int (labelled, 3, "three nodes have a flavor and a domain");
    is (names, "c01 c02 c05 ", "unlabelled nodes (no domain, no flavor) left out");
    is_int (s->ndomains, 2, "domains: west/A and west/sw1");
    ok (s->ndomains == 2 && !strcmp (s->domains[1].name, "west/sw1"),
        "the leaf switch names a domain of its own");
    ok (!jt_nodemap_labelled (NULL), "NULL is not labelled");
    jt_snapshot_destroy (s);

    is_int (jt_nodemap_add (NULL, &v[0], NULL, &err), -1, "no snapshot: -1");
}

static void test_leases (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err = { "" };
    char *nodes[] = { "a01", "a02" };
    jt_nodemap_job_t job = {
        .job_id = 4242, .owner = "rai", .account = "team-a",
        .start_time = 1000, .bound_time = 2000,
    };

    ok (jt_nodemap_add_lease (s, &job, 1, "west-h100", nodes, 2, 16,
                              JT_ROLE_BORROWED, &err) == 0, "a bound group");
    job.owner = NULL;
    job.start_time = 0;         /* a recovered job with no start time */
    job.job_id = UINT32_MAX;
    ok (jt_nodemap_add_lease (s, &job, 0, "west-h100", nodes, 1, 8,
                              JT_ROLE_ACTIVE, &err) == 0, "no owner, no start time");
    job.account = NULL;
    ok (jt_nodemap_add_lease (s, &job, 0, NULL, NULL, 0, 0, JT_ROLE_SPARE, &err) == 0,
        "no account either");
    is_int (jt_nodemap_add_lease (s, &job, 0, "e", NULL, 2, 8, JT_ROLE_ACTIVE, &err), -1,
            "nodes counted but missing: refused");
    is_int (jt_nodemap_add_lease (s, NULL, 0, "e", nodes, 2, 8, JT_ROLE_ACTIVE, &err), -1,
            "no job: refused");
    is_int (s->nleases, 3, "three leases, nothing added on refusal");
    if (s->nleases == 3) {
        const jt_lease_t *l = s->leases;
        char buf[256];
        snprintf (buf, sizeof (buf), "%s %d %s %s %s,%s %lld %s %lld", l[0].run,
                  l[0].group, l[0].owner, l[0].envelope, l[0].nodes[0],
                  l[0].nodes[1], (long long) l[0].gpus, jt_role_str (l[0].role),
                  (long long) l[0].start);
        is (buf, "4242 1 rai west-h100 a01,a02 16 Borrowed 1000",
            "run is the job id, owner the run's, start the job's (as the ledger's Start)");
        snprintf (buf, sizeof (buf), "%s %s %lld %zu", l[1].run, l[1].owner,
                  (long long) l[1].start, l[1].nnodes);
        is (buf, "4294967295 team-a 2000 1",
            "owner falls back to the account, start to the bound time without a job start");
        is (l[2].owner, "", "no owner and no account: empty owner");
    } else
        skip (3, "leases missing");
    jt_snapshot_destroy (s);
}

/* A running job's record: every bound lease, owner and time from it. */
static void test_record (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err = { "" };
    jt_jobrec_t rec;
    const char *text = "jobtree/1 {\"run\":{\"owner\":\"rai\",\"resources\":"
        "{\"gpuType\":\"h100\",\"totalGPUs\":24},\"locality\":{\"groupGPUs\":16}},"
        "\"funding\":[],\"fundedGPUs\":0,\"borrowedGPUs\":0,\"reason\":\"OK\","
        "\"bound\":{\"time\":\"1970-01-01T00:33:20Z\",\"leases\":["
        "{\"group\":0,\"envelope\":\"west-h100\",\"gpus\":16,\"nodes\":[\"a01\",\"a02\"]},"
        "{\"group\":1,\"envelope\":\"vision-h100\",\"role\":\"Borrowed\",\"gpus\":8,"
        "\"nodes\":[\"b01\"]}]}}";

    ok (jt_jobrec_parse (text, &rec, &err) == 0, "record: %s", err.text);
    ok (jt_nodemap_add_record (s, 77, "team-a", 1000, 4600, &rec, &err) == 0,
        "its leases added: %s", err.text);
    is_int (s->nleases, 2, "one lease per bound group");
    if (s->nleases == 2) {
        char buf[256];
        snprintf (buf, sizeof (buf), "%s/%d %s %s %zu %lld %s %lld-%lld | %s/%d %s %s",
                  s->leases[0].run, s->leases[0].group, s->leases[0].owner,
                  s->leases[0].envelope, s->leases[0].nnodes,
                  (long long) s->leases[0].gpus, jt_role_str (s->leases[0].role),
                  (long long) s->leases[0].start, (long long) s->leases[0].end,
                  s->leases[1].run,
                  s->leases[1].group, s->leases[1].envelope,
                  jt_role_str (s->leases[1].role));
        ok (s->leases[0].min_gpus == 0 && s->leases[1].min_gpus == 0,
            "a run that is not malleable: no minimum on its leases");
        is (buf, "77/0 rai west-h100 2 16 Active 1000-4600 | 77/1 vision-h100 Borrowed",
            "run, owner, the job's start (not the bound time), expected end, roles");
    } else
        skip (2, "leases missing");
    jt_jobrec_free (&rec);
    jt_snapshot_destroy (s);
}

/* A malleable run's minimum is on each of its leases (what an activation
 * may shrink it to: jobtree plan --activate reads it from the snapshot);
 * a run that is not malleable has none. */
static void test_record_malleable (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err = { "" };
    jt_jobrec_t rec;
    const char *text = "jobtree/1 {\"run\":{\"owner\":\"rai\",\"resources\":"
        "{\"gpuType\":\"h100\",\"totalGPUs\":16},\"locality\":{\"groupGPUs\":8},"
        "\"malleable\":{\"minTotalGPUs\":8,\"maxTotalGPUs\":16,\"stepGPUs\":8}},"
        "\"funding\":[],\"fundedGPUs\":0,\"borrowedGPUs\":0,\"reason\":\"OK\","
        "\"bound\":{\"time\":\"1970-01-01T00:33:20Z\",\"leases\":["
        "{\"group\":0,\"envelope\":\"west-h100\",\"gpus\":8,\"nodes\":[\"a01\"]},"
        "{\"group\":1,\"envelope\":\"west-h100\",\"gpus\":8,\"nodes\":[\"a02\"]}]}}";

    ok (jt_jobrec_parse (text, &rec, &err) == 0, "malleable: record: %s", err.text);
    ok (jt_nodemap_add_record (s, 9, "rai", 1000, 0, &rec, &err) == 0,
        "malleable: leases added: %s", err.text);
    ok (s->nleases == 2 && s->leases[0].min_gpus == 8 && s->leases[1].min_gpus == 8,
        "malleable: each lease carries the run's minimum (8)");
    jt_jobrec_free (&rec);
    jt_snapshot_destroy (s);
}

/* A group's spare nodes are a lease of role Spare, paid by the group's
 * envelope, the GPUs of its nodes (as the ledger's "s<group>" lease). */
static void test_record_spares (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err = { "" };
    jt_jobrec_t rec;
    const char *text = "jobtree/1 {\"run\":{\"owner\":\"rai\",\"resources\":"
        "{\"gpuType\":\"h100\",\"totalGPUs\":16},\"locality\":{\"groupGPUs\":16},"
        "\"sparesPerGroup\":1},\"funding\":[],\"fundedGPUs\":0,\"borrowedGPUs\":0,"
        "\"reason\":\"OK\",\"bound\":{\"time\":\"1970-01-01T00:33:20Z\",\"leases\":["
        "{\"group\":0,\"envelope\":\"west-h100\",\"gpus\":16,\"nodes\":[\"a01\",\"a02\"],"
        "\"spares\":[\"a03\"]}]}}";

    ok (jt_jobrec_parse (text, &rec, &err) == 0, "spares: record: %s", err.text);
    ok (jt_nodemap_add_record (s, 78, "rai", 1000, 4600, &rec, &err) == 0,
        "spares: leases added: %s", err.text);
    is_int (s->nleases, 2, "spares: the group's lease and its spares' lease");
    if (s->nleases == 2) {
        char buf[256];
        snprintf (buf, sizeof (buf), "%d %s %zu %lld %s", s->leases[1].group,
                  s->leases[1].envelope, s->leases[1].nnodes,
                  (long long) s->leases[1].gpus, jt_role_str (s->leases[1].role));
        is (buf, "0 west-h100 1 8 Spare",
            "spares: a Spare lease of group 0 on one node, 8 GPUs, same payer");
    } else
        skip (1, "leases missing");
    jt_jobrec_free (&rec);
    jt_snapshot_destroy (s);
}

/* The switches above the leaf name the snapshot's levels, unless a
 * feature does, and only when the domain is the group's level. */
static void test_levels (void)
{
    static const char *const keys[] = { "fabric.block", "fabric.spine" };
    jt_nodemap_node_t n = node ("a01", "region=west", "gpu:h100:8");
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err;

    n.leaf_switch = "leaf1";
    n.up_switch[0] = "block1";
    n.up_switch[1] = "spine0";
    jt_snapshot_set_levels (s, keys, 2, &err);
    ok (jt_nodemap_add (s, &n, NULL, &err) == 1, "a node under three switches");
    is (dump (s, "a01"), "h100 8/0 up fabric.block=block1,fabric.domain=leaf1,"
        "fabric.spine=spine0,region=west", "levels 1 and 2 name the block and spine");
    n.name = "a02";
    n.features = "fabric.block=B9";
    jt_nodemap_add (s, &n, NULL, &err);
    is (dump (s, "a02"), "h100 8/0 up fabric.block=B9,fabric.domain=leaf1,"
        "fabric.spine=spine0", "a feature wins over the switch");
    n.name = "a03";
    n.features = "rack=r1";
    jt_nodemap_add (s, &n, "rack", &err);
    is (dump (s, "a03"), "h100 8/0 up fabric.domain=r1,rack=r1",
        "another group level: the switch levels are not counted from it");
    jt_snapshot_destroy (s);
}

int main (void)
{
    test_labels ();
    test_levels ();
    test_gres ();
    test_used ();
    test_states ();
    test_skip_and_labelled ();
    test_leases ();
    test_record ();
    test_record_spares ();
    test_record_malleable ();
    return done_testing ();
}
