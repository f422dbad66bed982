/*
 * incremental.c - unit tests of a snapshot kept up to date instead of
 * rebuilt (issue 12): jt_snapshot_remove_run, jt_nodemap_refresh and
 * jt_snapshot_diff, and a seeded property test that patches a snapshot
 * through random job starts, ends, node failures and time-limit changes
 * and compares it with a rebuild after every step (what the select
 * plugin's DebugCrossCheck=yes does inside slurmctld).
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

#include "jobtree/nodemap.h"
#include "jobtree/schedule.h"
#include "jobtree/snapshot.h"
#include "fixtures.h"
#include "tap.h"

static jt_lease_t lease (const char *run, int group, char **nodes, size_t n)
{
    jt_lease_t l = {
        .run = (char *) run, .group = group, .owner = "o", .envelope = "e",
        .nodes = nodes, .nnodes = n, .gpus = 8 * (int64_t) n,
        .role = JT_ROLE_ACTIVE, .start = 100, .end = 200,
    };
    return l;
}

static const char *runs (const jt_snapshot_t *s)
{
    static char buf[256];
    size_t at = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < s->nleases && at < sizeof (buf); i++)
        at += (size_t) snprintf (buf + at, sizeof (buf) - at, "%s%s/%d",
                                 i ? " " : "", s->leases[i].run,
                                 s->leases[i].group);
    return buf;
}

static void test_remove_run (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    char *a[] = { "a01" }, *b[] = { "a02" };
    jt_error_t err;

    fx_nodes (s, "a", 1, 4, "fabric.domain=A", 8, 0);
    const char *order[] = { "1", "2", "1", "3", "4", "1", "5", "6", "7", "8", "9" };
    for (size_t i = 0; i < sizeof (order) / sizeof (order[0]); i++) {
        jt_lease_t l = lease (order[i], (int) i, i % 2 ? a : b, 1);
        if (jt_snapshot_add_lease (s, &l, &err) < 0)
            bail_out ("add_lease: %s", err.text);
    }
    fx_finalize (s);
    is_int ((int) jt_snapshot_remove_run (s, "1"), 3, "three leases of run 1 removed");
    is (runs (s), "2/1 3/3 4/4 5/6 6/7 7/8 8/9 9/10", "the others keep their order");
    is_int ((int) jt_snapshot_remove_run (s, "1"), 0, "none left to remove");
    is_int ((int) jt_snapshot_remove_run (s, "10"), 0, "a run without leases");
    /* the array still grows correctly after shrinking */
    for (int i = 0; i < 20; i++) {
        jt_lease_t l = lease ("11", i, a, 1);
        if (jt_snapshot_add_lease (s, &l, &err) < 0)
            bail_out ("add_lease: %s", err.text);
    }
    is_int ((int) s->nleases, 28, "20 more after the removal");
    is_int ((int) jt_snapshot_remove_run (s, "11"), 20, "and removed again");
    is (runs (s), "2/1 3/3 4/4 5/6 6/7 7/8 8/9 9/10", "the rest unchanged");
    jt_snapshot_destroy (s);
}

/* A node of 8 h100 with flags and used GPUs, as jt_nodemap_add makes it:
 * "state used". */
static const char *added (unsigned flags, uint64_t used, const char *gres)
{
    static char buf[64];
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_nodemap_node_t n = { .name = "n1", .features = "fabric.domain=A",
                            .gres = gres, .used_gpus = used, .flags = flags };
    jt_error_t err;

    if (jt_nodemap_add (s, &n, NULL, &err) != 1)
        bail_out ("nodemap_add: %s", err.text);
    snprintf (buf, sizeof (buf), "%s %d", jt_node_state_str (s->nodes[0].state),
              s->nodes[0].used_gpus);
    jt_snapshot_destroy (s);
    return buf;
}

static void test_refresh (void)
{
    static const struct {
        unsigned flags;
        uint64_t used;
    } cases[] = {
        { 0, 0 }, { 0, 3 }, { 0, 9 }, { 0, UINT64_MAX },
        { JT_NODEMAP_ALLOCATED, 0 }, { JT_NODEMAP_MIXED, 2 },
        { JT_NODEMAP_COMPLETING, 0 }, { JT_NODEMAP_DOWN, 0 },
        { JT_NODEMAP_DRAIN, 0 }, { JT_NODEMAP_DRAIN | JT_NODEMAP_ALLOCATED, 8 },
        { JT_NODEMAP_NO_RESPOND | JT_NODEMAP_MIXED, 4 },
        { JT_NODEMAP_POWERED_DOWN, 0 }, { JT_NODEMAP_FUTURE, 0 },
        { JT_NODEMAP_UNKNOWN, 0 }, { JT_NODEMAP_FAIL | JT_NODEMAP_ALLOCATED, 8 },
    };
    const char *gres[] = { "gpu:h100:8", "gpu:8", NULL };
    jt_error_t err;

    /* every (from, to) pair: refreshing gives what adding gives */
    for (size_t g = 0; g < 3; g++)
        for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
            for (size_t j = 0; j < sizeof (cases) / sizeof (cases[0]); j++) {
                jt_snapshot_t *s = jt_snapshot_create ();
                jt_nodemap_node_t n = { .name = "n1", .features = "fabric.domain=A",
                                        .gres = gres[g], .used_gpus = cases[i].used,
                                        .flags = cases[i].flags };
                char want[64], got[64];
                if (jt_nodemap_add (s, &n, NULL, &err) != 1)
                    bail_out ("nodemap_add: %s", err.text);
                snprintf (want, sizeof (want), "%s", added (cases[j].flags,
                                                            cases[j].used, gres[g]));
                int rc = jt_nodemap_refresh (&s->nodes[0], cases[j].flags,
                                             cases[j].used, &err);
                snprintf (got, sizeof (got), "%s %d",
                          jt_node_state_str (s->nodes[0].state), s->nodes[0].used_gpus);
                if (strcmp (got, want) || rc < 0)
                    ok (0, "gres %s: 0x%x/%ju -> 0x%x/%ju: refresh %s, add %s",
                          gres[g] ? gres[g] : "none", cases[i].flags,
                          (uintmax_t) cases[i].used, cases[j].flags,
                          (uintmax_t) cases[j].used, got, want);
                jt_snapshot_destroy (s);
            }
    ok (1, "refresh equals add for every pair of %zu states, 3 GRES",
          sizeof (cases) / sizeof (cases[0]));

    jt_snapshot_t *s = jt_snapshot_create ();
    jt_nodemap_node_t n = { .name = "n1", .features = "fabric.domain=A",
                            .gres = "gpu:h100:8" };
    if (jt_nodemap_add (s, &n, NULL, &err) != 1)
        bail_out ("nodemap_add: %s", err.text);
    is_int (jt_nodemap_refresh (&s->nodes[0], 0, 0, &err), 0, "no change: 0");
    is_int (jt_nodemap_refresh (&s->nodes[0], JT_NODEMAP_ALLOCATED, 0, &err), 1,
            "allocated: 1");
    is_int (jt_nodemap_refresh (&s->nodes[0], 1u << 12, 0, &err), -1,
            "unknown flags refused");
    is (err.text, "node n1: unknown state flags 0x1000", "naming the node");
    is_int (s->nodes[0].used_gpus, 8, "and the node is unchanged");
    is_int (jt_nodemap_refresh (NULL, 0, 0, &err), -1, "no node");
    jt_snapshot_destroy (s);
}

/* ---- the property: patched equals rebuilt ---- */

#define NNODES 24
#define NJOBS 12

typedef struct model {
    unsigned flags[NNODES];
    uint64_t used[NNODES];
    struct {
        bool running;
        int first, n;           /* nodes first..first+n-1 */
        int64_t end;
    } job[NJOBS];
} model_t;

static char g_names[NNODES][8];
static char *g_ptrs[NNODES];

static void add_job_leases (jt_snapshot_t *s, const model_t *m, int j)
{
    char run[16];
    jt_error_t err;

    if (!m->job[j].running)
        return;
    snprintf (run, sizeof (run), "%d", 1000 + j);
    /* two groups, as a run of two groups binds */
    for (int g = 0; g < 2; g++) {
        int half = m->job[j].n / 2, at = g ? half : 0, n = g ? m->job[j].n - half : half;
        jt_lease_t l = lease (run, g, g_ptrs + m->job[j].first + at, (size_t) n);
        l.end = m->job[j].end;
        if (n > 0 && jt_snapshot_add_lease (s, &l, &err) < 0)
            bail_out ("add_lease: %s", err.text);
    }
}

static jt_snapshot_t *rebuild (const model_t *m)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err;

    /* nodes in reverse order: finalize sorts them */
    for (int k = NNODES - 1; k >= 0; k--) {
        char feat[64];
        snprintf (feat, sizeof (feat), "fabric.domain=d%d,rack=r%d", k / 8, k % 3);
        jt_nodemap_node_t n = { .name = g_names[k], .features = feat,
                                .gres = "gpu:h100:8", .used_gpus = m->used[k],
                                .flags = m->flags[k] };
        if (jt_nodemap_add (s, &n, NULL, &err) != 1)
            bail_out ("nodemap_add: %s", err.text);
    }
    for (int j = 0; j < NJOBS; j++)
        add_job_leases (s, m, j);
    if (jt_snapshot_finalize (s, &err) < 0)
        bail_out ("finalize: %s", err.text);
    return s;
}

/* What the select plugin does on an update: every node's state in place,
 * the changed job's leases again, every lease's end from its job. */
static void patch (jt_snapshot_t *s, const model_t *m, int changed)
{
    jt_error_t err;
    char run[16];

    for (int k = 0; k < NNODES; k++) {
        ssize_t i = jt_snapshot_node_index (s, g_names[k]);
        if (i < 0 || jt_nodemap_refresh (&s->nodes[i], m->flags[k], m->used[k], &err) < 0)
            bail_out ("refresh %s", g_names[k]);
    }
    if (changed >= 0) {
        snprintf (run, sizeof (run), "%d", 1000 + changed);
        jt_snapshot_remove_run (s, run);
        add_job_leases (s, m, changed);
    }
    for (size_t i = 0; i < s->nleases; i++)
        s->leases[i].end = m->job[atoi (s->leases[i].run) - 1000].end;
}

static bool nodes_free (const model_t *m, int first, int n)
{
    for (int k = first; k < first + n; k++)
        if (m->flags[k] & (JT_NODEMAP_ALLOCATED | JT_NODEMAP_DOWN))
            return false;
    return true;
}

/* One random event on m; returns the job it changed, or -1. */
static int step (model_t *m)
{
    int j = fx_pick (NJOBS), k = fx_pick (NNODES);

    switch (fx_pick (4)) {
    case 0:     /* a job starts on free nodes */
        if (!m->job[j].running) {
            int n = 1 + fx_pick (4), first = fx_pick (NNODES - n + 1);
            if (!nodes_free (m, first, n))
                return -1;
            m->job[j].running = true;
            m->job[j].first = first;
            m->job[j].n = n;
            m->job[j].end = 1000 + fx_pick (500);
            for (int i = first; i < first + n; i++) {
                m->flags[i] |= JT_NODEMAP_ALLOCATED;
                m->used[i] = 8;
            }
            return j;
        }
        /* it runs: it ends */
        __attribute__ ((fallthrough));
    case 1:     /* a job ends */
        if (!m->job[j].running)
            return -1;
        m->job[j].running = false;
        for (int i = m->job[j].first; i < m->job[j].first + m->job[j].n; i++) {
            m->flags[i] &= ~JT_NODEMAP_ALLOCATED;
            m->used[i] = 0;
        }
        return j;
    case 2:     /* a node fails or comes back, drains or resumes */
        m->flags[k] ^= fx_pick (2) ? JT_NODEMAP_DOWN : JT_NODEMAP_DRAIN;
        return -1;
    default:    /* a running job's time limit changes (no event of ours) */
        if (m->job[j].running)
            m->job[j].end += 60;
        return -1;
    }
}

static void test_property (void)
{
    char diff[512];
    int bad = 0, steps = 0;

    for (int k = 0; k < NNODES; k++) {
        snprintf (g_names[k], sizeof (g_names[k]), "n%02d", k);
        g_ptrs[k] = g_names[k];
    }
    for (uint64_t seed = 1; seed <= 40; seed++) {
        model_t m;
        memset (&m, 0, sizeof (m));
        fx_seed (seed);
        jt_snapshot_t *live = rebuild (&m);
        for (int i = 0; i < 60 && !bad; i++, steps++) {
            int changed = step (&m);
            patch (live, &m, changed);
            jt_snapshot_t *full = rebuild (&m);
            if (jt_snapshot_diff (live, full, diff, sizeof (diff)) != 0) {
                ok (0, "seed %ju step %d: %s", (uintmax_t) seed, i, diff);
                bad++;
            }
            jt_snapshot_destroy (full);
        }
        jt_snapshot_destroy (live);
    }
    if (!bad)
        ok (1, "patched equals rebuilt after each of %d random events (40 seeds)", steps);

    /* The comparison sees what a missed update leaves behind. */
    model_t m;
    memset (&m, 0, sizeof (m));
    jt_snapshot_t *live = rebuild (&m), *full;
    m.flags[3] = JT_NODEMAP_ALLOCATED;
    m.used[3] = 8;
    full = rebuild (&m);
    is_int (jt_snapshot_diff (live, full, diff, sizeof (diff)), 1, "a missed node update");
    is (diff, "node n03: usedGPUs 0, rebuilt 8", "names the node and field");
    jt_snapshot_destroy (full);
    m.flags[3] = 0;
    m.used[3] = 0;
    m.job[2] = (typeof (m.job[2])){ true, 4, 2, 1500 };
    full = rebuild (&m);
    is_int (jt_snapshot_diff (live, full, diff, sizeof (diff)), 1, "a missed job start");
    is (diff, "lease run 1002 group 0 role Active owner o envelope e gpus 8 start 100 "
        "end 1500 nodes n04: missing (in the rebuild)", "names the lease");
    jt_snapshot_destroy (live);
    live = rebuild (&m);
    live->leases[1].end = 1;
    is_int (jt_snapshot_diff (live, full, diff, sizeof (diff)), 1, "a missed end change");
    is (diff, "lease run 1002 group 1 role Active owner o envelope e gpus 8 "
        "start 100 end 1 nodes n05: not in the rebuild",
        "the patched side's lease first");
    jt_snapshot_destroy (full);
    m.flags[0] = JT_NODEMAP_DRAIN;
    full = rebuild (&m);
    live->leases[1].end = 1500;
    is_int (jt_snapshot_diff (live, full, diff, sizeof (diff)), 1, "a missed drain");
    is (diff, "node n00: state up, rebuilt drain", "state");
    jt_snapshot_destroy (full);
    m.flags[0] = 0;
    full = rebuild (&m);
    is_int (jt_snapshot_diff (live, full, diff, sizeof (diff)), 0, "equal again");
    jt_snapshot_destroy (full);
    jt_snapshot_destroy (live);
}

/* jt_answer_rank: sets by when their cand_nodes-th node frees. */
static void test_rank (void)
{
    size_t s0[] = { 0, 1, 2 }, s1[] = { 3, 4 }, s2[] = { 5, 6, 7 }, s3[] = { 8 },
           s4[] = { 9, 10 };
    jt_node_set_t sets[] = { { s0, 3, 0 }, { s1, 2, 1 }, { s2, 3, 2 },
                             { s3, 1, 3 }, { s4, 2, 4 } };
    /* node:     0    1    2    3    4    5  6  7    8    9        10 */
    int64_t fa[] = { 500, 300, 900, 300, 300, 0, 0, 400, 0, INT64_MAX, 0 };
    jt_answer_t a = { .kind = JT_ANSWER_ESTIMATE, .cands = sets, .ncands = 5,
                      .cand_nodes = 2 };
    size_t order[5];
    int64_t when[5];
    char buf[128];
    size_t n, at = 0;

    n = jt_answer_rank (&a, fa, 11, 100, when, order);
    for (size_t i = 0; i < n; i++)
        at += (size_t) snprintf (buf + at, sizeof (buf) - at, "%s%zu@%lld",
                                 i ? " " : "", order[i], (long long) when[i]);
    /* set 2: two of its nodes free now (100); sets 0 and 1 both at 300,
     * 0 first; set 3 is too small, set 4 never has two nodes free */
    is (buf, "2@100 1@300 0@500", "ranked");
    is_int ((int) n, 3, "three sets ever free");
    is_int ((int) order[0], 2, "the free set first");
    is_int ((int) order[1], 1, "then the one freeing at 300 (set 1: 300, 300)");
    is_int ((int) order[2], 0, "then set 0 (its second node frees at 500)");
    is_int ((int) when[0], 100, "now, not the past");
    is_int ((int) when[2], 500, "the second node's time");
    fa[3] = 500;
    jt_answer_rank (&a, fa, 11, 100, when, order);
    is_int ((int) order[1], 0, "equal times: by index (0 before 1)");
    a.not_before = 450;
    jt_answer_rank (&a, fa, 11, 100, when, order);
    is_int ((int) when[0], 450, "never before not_before");
    is_int ((int) order[0], 2, "set 2 still first (ties by index)");
    a.cand_nodes = 0;
    is_int ((int) jt_answer_rank (&a, fa, 11, 100, when, order), 0,
            "no nodes wanted: nothing ranked");
}

/* A snapshot of n nodes (n <= 600) for the free-time estimates: node k in
 * domain k / per (per 0: every node in domain 0), of ndom domains. Only
 * the node table's size and domains are read. */
static jt_snapshot_t *bare_snap (size_t n, size_t per, size_t ndom)
{
    static jt_node_t nd[600];
    static jt_snapshot_t s;

    memset (nd, 0, sizeof (nd));
    for (size_t k = 0; k < n; k++)
        nd[k].domain = per ? (int) (k / per) : 0;
    s = (jt_snapshot_t){ .nodes = nd, .nnodes = n, .ndomains = ndom };
    return &s;
}

/* As the select plugin asks: rank once, then the free times' answer on
 * the set ranked first. Its index, or a->ncands when not answered. */
static size_t from_free_first (const jt_answer_t *a, const int64_t *fa,
                               size_t nnodes, int64_t now, bool alone,
                               size_t *nodes, int64_t *start)
{
    size_t order[8];

    if (a->ncands > 8 || jt_answer_rank (a, fa, nnodes, now, NULL, order) == 0)
        return a->ncands;
    return jt_answer_from_free (a, order[0], bare_snap (nnodes, 0, 1), fa, now, alone,
                                nodes, start)
           ? order[0] : a->ncands;
}

/* jt_answer_from_free: a run that holds its nodes alone starts when the
 * first ranked set's cand_nodes-th node frees, on the nodes freeing first. */
static void test_from_free (void)
{
    size_t s0[] = { 2, 1, 0 }, s1[] = { 3, 4, 5 }, s2[] = { 6, 7 };
    jt_node_set_t sets[] = { { s0, 3, 0 }, { s1, 3, 1 }, { s2, 2, 2 } };
    /* node:        0    1    2    3    4    5    6  7 */
    int64_t fa[] = { 900, 300, 300, 700, 200, 250, 0, 0 };
    jt_answer_t a = { .kind = JT_ANSWER_ESTIMATE, .cands = sets, .ncands = 3,
                      .cand_nodes = 2 };
    size_t nodes[2] = { 99, 99 };
    int64_t start = -1;

    /* set 2 is free now: not the free times' answer */
    is_int ((int) from_free_first (&a, fa, 8, 100, true, nodes, &start), 3,
            "first ranked set free now: the per-node check is asked");
    is_int ((int) nodes[0], 99, "nodes untouched");
    fa[6] = INT64_MAX;  /* set 2 never has two nodes free */
    is_int ((int) from_free_first (&a, fa, 8, 100, true, nodes, &start), 1,
            "set 1: its second node frees at 250, set 0's at 300");
    is_int ((int) start, 250, "start: when the second node frees");
    is_int ((int) nodes[0], 4, "the first node to free (200)");
    is_int ((int) nodes[1], 5, "then 250, not node 3 (700)");
    fa[4] = 300;
    fa[5] = 300;
    is_int ((int) from_free_first (&a, fa, 8, 100, true, nodes, &start), 0,
            "equal times: set 0 by index");
    is_int ((int) start, 300, "at 300");
    is_int ((int) nodes[0], 1, "ties by node index: 1");
    is_int ((int) nodes[1], 2, "then 2 (the set lists 2 first)");
    a.not_before = 450;
    is_int ((int) from_free_first (&a, fa, 8, 100, true, nodes, &start), 0,
            "funding later: the same set");
    is_int ((int) start, 450, "never before not_before");
    is_int ((int) from_free_first (&a, fa, 8, 100, false, nodes, &start), 3,
            "a run that shares its nodes: not answered");
    sets[0].domain = -1;
    is_int ((int) from_free_first (&a, fa, 8, 100, true, nodes, &start), 3,
            "a set over several domains, groups not whole nodes: not answered");
    sets[0].domain = 0;
    a.kind = JT_ANSWER_REFUSE;
    is_int ((int) from_free_first (&a, fa, 8, 100, true, nodes, &start), 3,
            "no estimate: not answered");
    a.kind = JT_ANSWER_ESTIMATE;
    for (size_t k = 0; k < 8; k++)
        fa[k] = INT64_MAX;
    is_int ((int) from_free_first (&a, fa, 8, 100, true, nodes, &start), 3,
            "no set ever frees: not answered");
}

/* A run whose groups may spread (one set over every domain), groups of 2
 * nodes: held a domain per group, on the groups freeing first, not on the
 * nodes freeing first wherever they are. Domains of 3 nodes: 0 {0,1,2},
 * 1 {3,4,5}, 2 {6,7,8}, 3 {9,10,11}. */
static void test_from_free_groups (void)
{
    size_t all[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
    jt_node_set_t set = { all, 12, -1 };
    /* node:          0    1    2    3    4    5    6    7    8    9   10   11 */
    int64_t fa[] = { 200, 900, 900, 300, 300, 900, 150, 950, 960, 400, 500, 910 };
    jt_answer_t a = { .kind = JT_ANSWER_ESTIMATE, .cands = &set, .ncands = 1,
                      .cand_nodes = 4, .cand_group_nodes = 2 };
    jt_snapshot_t *s = bare_snap (12, 3, 4);
    size_t nodes[4] = { 99, 99, 99, 99 };
    int64_t start = -1;

    /* the 4 nodes freeing first (6, 0, 3, 4) lie in 3 domains; by group:
     * domain 1's first pair frees at 300, domain 3's at 500, domain 0's at
     * 900, domain 2's at 950 */
    ok (jt_answer_from_free (&a, 0, s, fa, 100, true, nodes, &start),
        "groups may spread: answered a group per domain");
    is_int ((int) start, 500, "start: when the second group's pair frees (500), not "
            "when the fourth node anywhere does (300)");
    ok (nodes[0] == 3 && nodes[1] == 4 && nodes[2] == 9 && nodes[3] == 10,
        "nodes: domain 1's pair (3, 4), then domain 3's (9, 10)");
    /* two domains of 6: domain 0's pairs (0, 3) at 300 and (4, 1) at 350
     * before domain 1's first, (6, 9) at 400 */
    s = bare_snap (12, 6, 2);
    fa[1] = fa[2] = 350;
    ok (jt_answer_from_free (&a, 0, s, fa, 100, true, nodes, &start)
            && start == 350 && nodes[0] == 0 && nodes[1] == 3 && nodes[2] == 4
            && nodes[3] == 1,
        "both groups in one domain of 6: (0, 3) at 300, (4, 1) at 350");
    fa[1] = fa[2] = 900;
    s = bare_snap (12, 3, 4);
    a.not_before = 700;
    ok (jt_answer_from_free (&a, 0, s, fa, 100, true, nodes, &start) && start == 700,
        "never before not_before");
    a.not_before = 0;
    a.cand_group_nodes = 3;
    ok (!jt_answer_from_free (&a, 0, s, fa, 100, true, nodes, &start),
        "group size not dividing the run's nodes: not answered");
    a.cand_group_nodes = 0;
    ok (!jt_answer_from_free (&a, 0, s, fa, 100, true, nodes, &start),
        "no group size: not answered");
    a.cand_group_nodes = 2;
    a.cand_nodes = 10;
    ok (!jt_answer_from_free (&a, 0, s, fa, 100, true, nodes, &start),
        "five groups of 2 in four domains of 3: never, not answered");
    a.cand_nodes = 4;
    for (size_t k = 0; k < 12; k++)
        fa[k] = k == 5 ? 300 : 50;
    ok (!jt_answer_from_free (&a, 0, s, fa, 100, true, nodes, &start),
        "two groups free now: not the free times' to answer");
    for (size_t k = 0; k < 12; k++)
        fa[k] = k % 3 ? INT64_MAX : 200;
    ok (!jt_answer_from_free (&a, 0, s, fa, 100, true, nodes, &start),
        "one node per domain ever frees: no pair, not answered");
}

/* The group slots against full sorts: random free times (ties, some
 * never), domains of random size, groups of 1..5 nodes, 300 cases. The
 * naive answer sorts each domain's nodes by (time, index), cuts them into
 * groups, sorts the groups by (time, domain, j) and takes the first. */
static int cmp_i64_t (const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return x < y ? -1 : x > y;
}

typedef struct gslot {
    int64_t when;
    size_t d, j;
} gslot_t;

static int cmp_gslot (const void *a, const void *b)
{
    const gslot_t *x = a, *y = b;
    if (x->when != y->when)
        return x->when < y->when ? -1 : 1;
    if (x->d != y->d)
        return x->d < y->d ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

static void test_groups_select (void)
{
    enum { N = 600, D = 40 };
    static int64_t fa[N], key[D][N];
    static size_t all[N], nodes[N], cnt[D];
    static gslot_t sl[N];
    int bad = 0, answered = 0;

    fx_seed (1211);
    for (size_t k = 0; k < N; k++)
        all[k] = k;
    for (int iter = 0; iter < 300 && !bad; iter++) {
        size_t ndom = (size_t) fx_pick (D - 1) + 1, per = N / ndom;
        size_t g = (size_t) fx_pick (5) + 1, ngr = (size_t) fx_pick (6) + 1, nsl = 0;
        int spread = 1 + fx_pick (iter % 2 ? 4 : 2000);
        jt_snapshot_t *s = bare_snap (N, per, ndom + 1);
        jt_node_set_t set = { all, per * ndom, -1 };
        jt_answer_t a = { .kind = JT_ANSWER_ESTIMATE, .cands = &set, .ncands = 1,
                          .cand_nodes = (uint32_t) (g * ngr),
                          .cand_group_nodes = (uint32_t) g };
        int64_t start = -1, want = -1;

        for (size_t k = 0; k < N; k++)
            fa[k] = fx_pick (15) == 0 ? INT64_MAX : 90 + fx_pick (spread);
        memset (cnt, 0, sizeof (cnt));
        for (size_t k = 0; k < set.nnodes; k++) {
            size_t d = k / per;
            int64_t at = fa[k] < 100 ? 100 : fa[k];
            key[d][cnt[d]++] = at == INT64_MAX ? INT64_MAX : (at << 10) | (int64_t) k;
        }
        for (size_t d = 0; d < ndom; d++) {
            qsort (key[d], cnt[d], sizeof (int64_t), cmp_i64_t);
            for (size_t j = 0; (j + 1) * g <= cnt[d]; j++) {
                if (key[d][(j + 1) * g - 1] == INT64_MAX)
                    break;
                sl[nsl++] = (gslot_t){ key[d][(j + 1) * g - 1] >> 10, d, j };
            }
        }
        qsort (sl, nsl, sizeof (*sl), cmp_gslot);
        if (nsl >= ngr && sl[ngr - 1].when > 100)
            want = sl[ngr - 1].when;
        bool got = jt_answer_from_free (&a, 0, s, fa, 100, true, nodes, &start);
        if (got != (want >= 0) || (got && start != want)) {
            diag ("iter %d: answered %d at %lld, expected %lld", iter, got,
                  (long long) start, (long long) want);
            bad = 1;
        }
        for (size_t j = 0; got && !bad && j < ngr; j++)
            for (size_t k = 0; k < g; k++)
                if ((size_t) (key[sl[j].d][sl[j].j * g + k] & 1023) != nodes[j * g + k]) {
                    diag ("iter %d: group %zu node %zu differs", iter, j, k);
                    bad = 1;
                    break;
                }
        answered += got;
    }
    ok (!bad, "groups held a domain each equal a full sort's (300 random cases, "
        "%d answered)", answered);
}

/* jt_answer_rank and jt_answer_from_free select the cand_nodes-th free
 * time of each set instead of sorting it: on random sets (free times from
 * a few values, so ties everywhere, some never; up to 300 nodes, so the
 * selection's partitioning runs) both agree with a full sort. */
static void test_rank_select (void)
{
    enum { N = 600, SETS = 4 };
    int64_t fa[N], when[SETS], t[N];
    size_t order[SETS], nodes[N], pool[SETS][N];
    jt_node_set_t sets[SETS];
    int bad = 0, answered = 0;

    fx_seed (1207);
    for (int iter = 0; iter < 400 && !bad; iter++) {
        int spread = 1 + fx_pick (iter % 2 ? 4 : 2000);
        for (int k = 0; k < N; k++)
            fa[k] = fx_pick (20) == 0 ? INT64_MAX : 90 + fx_pick (spread);
        jt_answer_t a = { .kind = JT_ANSWER_ESTIMATE, .cands = sets,
                          .ncands = SETS };
        size_t big = 0;
        for (int i = 0; i < SETS; i++) {
            size_t n = (size_t) fx_pick (300) + 1;
            for (size_t k = 0; k < n; k++)
                pool[i][k] = (size_t) fx_pick (N);
            sets[i] = (jt_node_set_t){ pool[i], n, i };
            big = n > big ? n : big;
        }
        a.cand_nodes = (uint32_t) fx_pick ((int) big + 2) + 1;
        size_t nr = jt_answer_rank (&a, fa, N, 100, when, order);
        /* the naive ranking: each set sorted whole */
        int64_t expect[SETS];
        size_t ne = 0;
        for (int i = 0; i < SETS; i++) {
            size_t m = sets[i].nnodes;
            for (size_t k = 0; k < m; k++)
                t[k] = fa[sets[i].nodes[k]] < 100 ? 100 : fa[sets[i].nodes[k]];
            qsort (t, m, sizeof (*t), cmp_i64_t);
            expect[i] = m >= a.cand_nodes && t[a.cand_nodes - 1] != INT64_MAX
                        ? t[a.cand_nodes - 1] : -1;
            ne += expect[i] >= 0;
        }
        if (nr != ne) {
            diag ("iter %d: %zu ranked, %zu expected", iter, nr, ne);
            bad = 1;
        }
        for (size_t r = 0; r < nr && !bad; r++)
            if (expect[order[r]] != when[r]
                || (r && (when[r - 1] > when[r]
                          || (when[r - 1] == when[r] && order[r - 1] > order[r])))) {
                diag ("iter %d: rank %zu: set %zu at %lld, expected %lld", iter,
                      r, order[r], (long long) when[r],
                      (long long) expect[order[r]]);
                bad = 1;
            }
        /* from_free: the first set's cand_nodes nodes freeing first, in
         * (time, index) order, against a full sort */
        int64_t start = -1;
        size_t got = nr && jt_answer_from_free (&a, order[0], bare_snap (N, 0, 1), fa,
                                                100, true, nodes, &start)
                     ? order[0] : SETS;
        if (nr && !bad && when[0] > 100) {
            const jt_node_set_t *set = &sets[order[0]];
            int64_t key[N];
            answered++;
            for (size_t k = 0; k < set->nnodes; k++) {
                size_t nd = set->nodes[k];
                int64_t at = fa[nd] < 100 ? 100 : fa[nd];
                /* (time, node) as one key: times < 2^40, nodes < 2^10 */
                key[k] = at == INT64_MAX ? INT64_MAX : (at << 10) | (int64_t) nd;
            }
            qsort (key, set->nnodes, sizeof (*key), cmp_i64_t);
            if (got != order[0] || start != when[0])
                bad = 1;
            for (uint32_t k = 0; k < a.cand_nodes && !bad; k++)
                if ((size_t) (key[k] & 1023) != nodes[k])
                    bad = 1;
            if (bad)
                diag ("iter %d: from_free differs from a full sort", iter);
        }
    }
    ok (!bad, "ranking and free-time estimates equal a full sort's "
        "(400 random cases, %d answered from free times)", answered);
}

int main (void)
{
    test_rank ();
    test_from_free ();
    test_from_free_groups ();
    test_rank_select ();
    test_groups_select ();
    test_remove_run ();
    test_refresh ();
    test_property ();
    done_testing ();
}
