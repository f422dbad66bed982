/*
 * activate_levels.c - unit and property tests of activation over fabric
 * levels (jt_activation_slice's alternatives for a run across domains,
 * jobtree/activate.h): one alternative per unit of the lowest level that
 * holds the run, a need per domain it uses; one block cleared beats
 * pieces of three at equal return, a block whose cuts take fewer GPUs
 * beats one taking more; a --cross-group-spread=no:LEVEL run's
 * alternatives stay in units of that level, fewest units first; and, over
 * random clusters (fixed seeds), that a resolved activation frees room for
 * the run's nodes in its alternative, inside one unit of LEVEL for a
 * no:LEVEL run, the same way every time.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/activate.h"
#include "jobtree/ledger.h"
#include "jobtree/pack.h"
#include "fixtures.h"
#include "tap.h"

/* A growable text, bailing out on ENOMEM (tests only). */
typedef struct text {
    char *s;
    size_t n, cap;
} text_t;

static void tx (text_t *t, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
static void tx (text_t *t, const char *fmt, ...)
{
    va_list ap;
    int k;

    for (;;) {
        va_start (ap, fmt);
        k = vsnprintf (t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
        va_end (ap);
        if (k < 0)
            bail_out ("vsnprintf");
        if (t->s && t->n + (size_t) k < t->cap) {
            t->n += (size_t) k;
            return;
        }
        t->cap = (t->cap + (size_t) k + 1) * 2;
        if (!(t->s = realloc (t->s, t->cap)))
            bail_out ("out of memory");
    }
}

/* One 8-GPU h100 node of domain dom under block and spine. */
static void node (text_t *t, const char *name, const char *dom, const char *block,
                  const char *spine, int used)
{
    tx (t, "%s{\"name\":\"%s\",\"flavor\":\"h100\",\"gpus\":8,\"usedGPUs\":%d,"
        "\"labels\":{\"region\":\"west\",\"fabric.domain\":\"%s\","
        "\"fabric.block\":\"%s\",\"fabric.spine\":\"%s\"}}",
        t->n && t->s[t->n - 1] != '[' ? "," : "", name, used, dom, block, spine);
}

/* One Active lease of run (owner bob unless given) on nodes "n1","n2". */
static void lease (text_t *t, const char *run, const char *owner, int group,
                   int gpus, const char *nodes)
{
    tx (t, "%s{\"run\":\"%s\",\"group\":%d,\"owner\":\"%s\",\"envelope\":\"e\","
        "\"nodes\":[%s],\"gpus\":%d,\"role\":\"Active\","
        "\"start\":\"2026-03-01T10:00:00Z\"}",
        t->s[t->n - 1] != '[' ? "," : "", run, group, owner, nodes, gpus);
}

static jt_snapshot_t *parse (text_t *t)
{
    jt_snapshot_t *s = NULL;
    const char *why = fx_parse_snapshot (t->s, &s);

    if (!s)
        bail_out ("snapshot: %s", why);
    free (t->s);
    memset (t, 0, sizeof (*t));
    return s;
}

static int yield_all (const char *run, int64_t *min, void *arg)
{
    (void) run;
    (void) min;
    (void) arg;
    return 1;
}

/* The set of every node of the units' domains whose name starts with one
 * of the letters in `doms` ("XY": domains X1.., Y1..), ascending. */
static jt_node_set_t set_of (const jt_snapshot_t *s, const char *doms)
{
    jt_node_set_t c = { calloc (s->nnodes + 1, sizeof (size_t)), 0, -1 };

    if (!c.nodes)
        bail_out ("out of memory");
    for (size_t k = 0; k < s->nnodes; k++) {
        const jt_node_t *n = &s->nodes[k];
        const char *f = n->domain >= 0 ? strrchr (s->domains[n->domain].name, '/') : NULL;
        if (f && strchr (doms, f[1]))
            c.nodes[c.nnodes++] = k;
    }
    return c;
}

/* The slice's alternatives: "WHERE units=N POOL:DEFICIT ..." joined by
 * " | " (static). */
static const char *alts_text (const jt_activation_slice_t *sl)
{
    static char buf[2048];
    size_t l = 0;

    buf[0] = '\0';
    for (size_t a = 0; a < sl->req.nalts && l < sizeof (buf); a++) {
        l += (size_t) snprintf (buf + l, sizeof (buf) - l, "%s%s units=%zu",
                                a ? " | " : "", sl->alt_where[a], sl->alt_units[a]);
        for (size_t i = 0; i < sl->alts[a].nneeds && l < sizeof (buf); i++)
            l += (size_t) snprintf (buf + l, sizeof (buf) - l, " %s:%lld",
                                    sl->pools[sl->alts[a].needs[i].pool],
                                    (long long) sl->alts[a].needs[i].deficit);
    }
    return buf;
}

/* The names of the nodes in set c (static). */
static const char *names (const jt_snapshot_t *s, const jt_node_set_t *c)
{
    static char buf[1024];
    size_t l = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < c->nnodes && l < sizeof (buf); i++)
        l += (size_t) snprintf (buf + l, sizeof (buf) - l, "%s%s", i ? " " : "",
                                s->nodes[c->nodes[i]].name);
    return buf;
}

/* Blocks X, Y, Z (spine S1: X, Y; S2: Z), three domains of two nodes
 * each (X1 X2 X3 ...). In every block, domain 1 has one node free and one
 * held by an 8-GPU run (c1:X1 ...); domains 2 and 3 are held whole by a
 * 16-GPU run each. A run of 6 nodes (3 groups of 2) cannot be placed: no
 * domain has two free nodes. spill: run c1:X2 also holds a node outside
 * the blocks (w01 of block V), so clearing X costs 16 GPUs more. */
static jt_snapshot_t *three_blocks (bool spill)
{
    static const char *const blocks[] = { "X", "Y", "Z" };
    text_t t = { 0 };

    tx (&t, "{\"time\":\"2026-03-01T12:00:00Z\","
        "\"levels\":[\"fabric.block\",\"fabric.spine\"],\"nodes\":[");
    for (int b = 0; b < 3; b++)
        for (int d = 1; d <= 3; d++) {
            char dom[8], n1[8], n2[8];
            snprintf (dom, sizeof (dom), "%s%d", blocks[b], d);
            snprintf (n1, sizeof (n1), "%c%da", 'x' + b, d);
            snprintf (n2, sizeof (n2), "%c%db", 'x' + b, d);
            node (&t, n1, dom, blocks[b], b < 2 ? "S1" : "S2", d == 1 ? 0 : 8);
            node (&t, n2, dom, blocks[b], b < 2 ? "S1" : "S2", 8);
        }
    node (&t, "w01", "W1", "V", "S2", spill ? 8 : 0);
    tx (&t, "],\"leases\":[");
    for (int b = 0; b < 3; b++)
        for (int d = 1; d <= 3; d++) {
            char run[16], nodes[32];
            snprintf (run, sizeof (run), "c1:%s%d", blocks[b], d);
            if (d == 1)
                snprintf (nodes, sizeof (nodes), "\"%c1b\"", 'x' + b);
            else
                snprintf (nodes, sizeof (nodes), "\"%c%da\",\"%c%db\"", 'x' + b, d,
                          'x' + b, d);
            lease (&t, run, "bob", 0, d == 1 ? 8 : 16, nodes);
        }
    if (spill)
        lease (&t, "c1:X2", "bob", 1, 8, "\"w01\"");
    tx (&t, "]}");
    return parse (&t);
}

/* Activate sl's request; the dump (static) and *alt. */
static const char *activate (const jt_activation_slice_t *sl, jt_activation_t *a)
{
    static char buf[2048];
    jt_error_t err;
    char *d;

    if (jt_activate (&sl->req, a, &err) < 0) {
        snprintf (buf, sizeof (buf), "error: %s", err.text);
        return buf;
    }
    d = jt_activation_dump (a, &sl->req);
    snprintf (buf, sizeof (buf), "%s", d ? d : "(ENOMEM)");
    free (d);
    return buf;
}

static void test_block_beats_pieces (void)
{
    jt_snapshot_t *s = three_blocks (false);
    jt_node_set_t all = set_of (s, "XYZ");
    jt_activation_slice_t sl;
    jt_activation_t a = { 0 };
    jt_node_set_t cl;
    jt_error_t err;
    const char *d;

    is_int (jt_activation_slice (s, &all, 1, 6, 0, "h100", NULL, "c1:9", "c1:9:resv:1",
                                 fx_time (FX_NOW), true, yield_all, NULL, &sl, &err),
            0, "slice of a run across domains");
    is (alts_text (&sl),
        "block X (west/X1,west/X2,west/X3) units=1 west/X1:8 west/X2:16 west/X3:16 | "
        "block Y (west/Y1,west/Y2,west/Y3) units=1 west/Y1:8 west/Y2:16 west/Y3:16 | "
        "block Z (west/Z1,west/Z2,west/Z3) units=1 west/Z1:8 west/Z2:16 west/Z3:16 | "
        "west/X1,west/Y1,west/Z1 units=3 west/X1:8 west/Y1:8 west/Z1:8",
        "one alternative per block that holds the run (a need per domain), then "
        "the pieces of three blocks (the most free domains), fewest units first");
    is (sl.scope, "west/X1,west/X2,west/X3,west/Y1,west/Y2,west/Y3,west/Z1,west/Z2,"
        "west/Z3", "scope: each domain once, in preference order");
    d = activate (&sl, &a);
    ok (a.resolved && a.alt == 0, "one block cleared (X, 40 short, 40 taken) beats "
        "three half-cleared blocks (24 short, 24 taken) at equal return: %s", d);
    ok (jt_activation_cleared (s, jt_activation_alt_set (&sl, &all, a.alt), &a,
                               &sl.req, &cl, &err) == 0, "cleared nodes");
    is (names (s, &cl), "x1a x1b x2a x2b x3a x3b",
        "the run starts on block X alone (its free node and its cleared ones)");
    free (cl.nodes);
    {   /* the Activation the ledger records carries the block's three
         * needs; verify's replay from the event alone decides the same */
        jt_event_t *ev = jt_event_activation ("a-1", "c1:9:resv:1", "c1:9", &sl.req,
                                              a.alt, (const char *const *) sl.pools,
                                              sl.npools, &a, &err);
        char why[256] = "";
        ok (ev && ev->nneeds == 3, "the Activation event has a need per domain of X");
        is_int (ev ? jt_event_activation_replay (ev, NULL, why, sizeof (why)) : -2, 0,
                "the ledger's replay agrees (%s)", why);
        jt_event_destroy (ev);
    }
    jt_activation_free (&a);
    jt_activation_slice_free (&sl);
    free (all.nodes);
    jt_snapshot_destroy (s);

    /* c1:X2 also holds w01 outside the blocks: clearing X takes 56 GPUs
     * for 40 short; Y takes 40 for 40 and wins, though X comes first. */
    s = three_blocks (true);
    all = set_of (s, "XYZ");
    is_int (jt_activation_slice (s, &all, 1, 6, 0, "h100", NULL, "c1:9", "c1:9:resv:1",
                                 fx_time (FX_NOW), true, yield_all, NULL, &sl, &err),
            0, "slice with a gang spilling out of block X");
    d = activate (&sl, &a);
    ok (a.resolved && a.alt == 1 && !strstr (d, "c1:X"),
        "the block whose cuts take fewer GPUs (Y) wins: %s", d);
    jt_activation_free (&a);
    jt_activation_slice_free (&sl);
    free (all.nodes);
    jt_snapshot_destroy (s);
}

static void test_no_level (void)
{
    jt_snapshot_t *s = three_blocks (false);
    /* --cross-group-spread=no:spine: the estimate's sets are the spines
     * S1 (X, Y) and S2 (Z, and V's w01) */
    jt_node_set_t sets[2] = { set_of (s, "XY"), set_of (s, "ZW") };
    jt_node_set_t blk[3] = { set_of (s, "X"), set_of (s, "Y"), set_of (s, "Z") };
    jt_activation_slice_t sl;
    jt_activation_t a = { 0 };
    jt_error_t err;

    is_int (jt_activation_slice (s, sets, 2, 6, 0, "h100", NULL, "c1:9", "c1:9:resv:1",
                                 fx_time (FX_NOW), true, yield_all, NULL, &sl, &err),
            0, "slice of a no:spine run");
    is (alts_text (&sl),
        "block X (west/X1,west/X2,west/X3) units=1 west/X1:8 west/X2:16 west/X3:16 | "
        "block Y (west/Y1,west/Y2,west/Y3) units=1 west/Y1:8 west/Y2:16 west/Y3:16 | "
        "block Z (west/Z1,west/Z2,west/Z3) units=1 west/Z1:8 west/Z2:16 west/Z3:16 | "
        "spine S1 (west/X1,west/X2,west/Y1) units=2 west/X1:8 west/X2:16 west/Y1:8 | "
        "spine S2 (west/W1,west/Z1,west/Z2,west/Z3) units=2 west/W1:0 west/Z1:8 "
        "west/Z2:16 west/Z3:8",
        "the blocks of each spine, then pieces of two blocks of one spine (never "
        "across spines); fewest units first, so S2's block Z comes before S1's "
        "pieces; W1, free, is used but not short");
    for (size_t i = 0; i < sl.req.nalts; i++) {
        const jt_node_set_t *c = jt_activation_alt_set (&sl, sets, i);
        bool in_one = true;
        for (size_t k = 0; c && k < c->nnodes; k++)
            in_one = in_one && s->domains[s->nodes[c->nodes[k]].domain].up[1]
                               == s->domains[s->nodes[c->nodes[0]].domain].up[1];
        ok (c && c->nnodes >= 6 && in_one, "alternative %zu's nodes lie in one spine", i);
    }
    jt_activation_slice_free (&sl);

    /* no:block: each set is a block; one alternative each, in the set's
     * order, nothing across blocks */
    is_int (jt_activation_slice (s, blk, 3, 6, 0, "h100", NULL, "c1:9", "c1:9:resv:1",
                                 fx_time (FX_NOW), true, yield_all, NULL, &sl, &err),
            0, "slice of a no:block run");
    is (alts_text (&sl),
        "block X (west/X1,west/X2,west/X3) units=1 west/X1:8 west/X2:16 west/X3:16 | "
        "block Y (west/Y1,west/Y2,west/Y3) units=1 west/Y1:8 west/Y2:16 west/Y3:16 | "
        "block Z (west/Z1,west/Z2,west/Z3) units=1 west/Z1:8 west/Z2:16 west/Z3:16",
        "a no:block run: only whole blocks");
    activate (&sl, &a);
    ok (a.resolved && a.alt == 0, "block X is cleared");
    jt_activation_free (&a);
    jt_activation_slice_free (&sl);

    /* a run of 4 nodes in one block: the two freest domains of it, X2 or
     * X3 not both; no second alternative with the same domains */
    is_int (jt_activation_slice (s, blk, 1, 4, 0, "h100", NULL, "c1:9", "c1:9:resv:1",
                                 fx_time (FX_NOW), true, yield_all, NULL, &sl, &err),
            0, "slice of 4 nodes in block X");
    is (alts_text (&sl), "block X (west/X1,west/X2) units=1 west/X1:8 west/X2:16",
        "the most free domain first (X1), then the first of the equals (X2)");
    jt_activation_slice_free (&sl);

    /* a run that has room already: no alternative */
    is_int (jt_activation_slice (s, sets + 1, 1, 1, 0, "h100", NULL, "c1:9", "r", 0, true,
                                 yield_all, NULL, &sl, &err), 0, "one node");
    is_int ((int) sl.req.nalts, 0, "a set with room for the run is no alternative");
    jt_activation_slice_free (&sl);
    for (int i = 0; i < 3; i++)
        free (blk[i].nodes);
    free (sets[0].nodes);
    free (sets[1].nodes);
    jt_snapshot_destroy (s);
}

/* Without levels: the run's set across domains is one alternative over
 * the most free domains (each domain a unit). */
static void test_no_levels (void)
{
    text_t t = { 0 };
    jt_snapshot_t *s;
    jt_node_set_t all;
    jt_activation_slice_t sl;
    jt_activation_t a = { 0 };
    jt_error_t err;
    const char *d;

    tx (&t, "{\"time\":\"2026-03-01T12:00:00Z\",\"nodes\":[");
    node (&t, "x1a", "X1", "X", "S1", 8);
    node (&t, "x1b", "X1", "X", "S1", 0);
    node (&t, "x2a", "X2", "X", "S1", 8);
    node (&t, "x2b", "X2", "X", "S1", 8);
    tx (&t, "],\"leases\":[");
    lease (&t, "c1:1", "bob", 0, 8, "\"x1a\"");
    lease (&t, "c1:2", "ann", 0, 16, "\"x2a\",\"x2b\"");
    tx (&t, "]}");
    s = parse (&t);
    all = set_of (s, "X");
    is_int (jt_activation_slice (s, &all, 1, 4, 0, "h100", NULL, "c1:9", "c1:9:resv:1",
                                 fx_time (FX_NOW), true, yield_all, NULL, &sl, &err),
            0, "slice without levels");
    is (alts_text (&sl), "west/X1,west/X2 units=2 west/X1:8 west/X2:16",
        "one alternative, a need per domain, each domain a unit");
    d = activate (&sl, &a);
    ok (a.resolved && a.ndraws == 2 && a.freed == 24, "both runs give way: %s", d);
    jt_activation_free (&a);
    jt_activation_slice_free (&sl);
    free (all.nodes);
    jt_snapshot_destroy (s);
}

/* ---- properties over random clusters ---- */

/* 2 spines x 2 blocks x 2 domains of 1-3 nodes; random runs of 1-3
 * leases (one node each, any block); some nodes used by no lease. */
static jt_snapshot_t *random_levels (void)
{
    text_t t = { 0 };
    char name[16], dom[8], blk[8], sp[8], nodes[64];
    int nnodes = 0, owner[64] = { 0 };

    tx (&t, "{\"time\":\"2026-03-01T12:00:00Z\","
        "\"levels\":[\"fabric.block\",\"fabric.spine\"],\"nodes\":[");
    for (int d = 0; d < 8; d++) {
        int n = 1 + fx_pick (3);
        snprintf (dom, sizeof (dom), "D%d", d);
        snprintf (blk, sizeof (blk), "B%d", d / 2);
        snprintf (sp, sizeof (sp), "S%d", d / 4);
        for (int k = 0; k < n; k++) {
            int r = fx_pick (4);                /* 0: free, 1: plain job, 2-3: a run */
            owner[nnodes] = r;
            snprintf (name, sizeof (name), "n%02d", nnodes++);
            node (&t, name, dom, blk, sp, r ? 8 : 0);
        }
    }
    tx (&t, "],\"leases\":[");
    for (int i = 0, run = 0; i < nnodes; run++) {
        int take = 1 + fx_pick (3), g = 0;
        char rid[16];
        snprintf (rid, sizeof (rid), "c1:%d", run);
        for (; i < nnodes && take > 0; i++) {
            if (owner[i] < 2)
                continue;
            snprintf (nodes, sizeof (nodes), "\"n%02d\"", i);
            lease (&t, rid, run % 3 ? "bob" : "ann", g++, 8, nodes);
            take--;
        }
    }
    tx (&t, "]}");
    return parse (&t);
}

/* The estimate's sets for a run at level lv (-1: across every domain):
 * one per unit of lv, as estimate_sets gives them. */
static size_t level_sets (const jt_snapshot_t *s, ssize_t lv, jt_node_set_t *out)
{
    size_t n = 0;

    if (lv < 0) {
        out[0] = (jt_node_set_t){ calloc (s->nnodes + 1, sizeof (size_t)), 0, -1 };
        for (size_t k = 0; k < s->nnodes; k++)
            out[0].nodes[out[0].nnodes++] = k;
        return 1;
    }
    for (size_t u = 0; u < jt_pack_level_nunits (s, (size_t) lv); u++) {
        size_t one, nd;
        const size_t *ud = jt_pack_level_domains (s, (size_t) lv, u, &one, &nd);
        jt_node_set_t c = { calloc (s->nnodes + 1, sizeof (size_t)), 0, -1 };
        for (size_t k = 0; k < s->nnodes; k++)
            for (size_t i = 0; i < nd; i++)
                if (s->nodes[k].domain == (int) ud[i])
                    c.nodes[c.nnodes++] = k;
        if (c.nnodes)
            out[n++] = c;
        else
            free (c.nodes);
    }
    return n;
}

static void test_properties (void)
{
    int resolved = 0, alts = 0, cases = 300;
    bool room = true, one_unit = true, same = true, in_unit = true;

    fx_seed (0x1e7e15);
    for (int k = 0; k < cases; k++) {
        jt_snapshot_t *s = random_levels ();
        ssize_t lv = (ssize_t) fx_pick (3) - 1;         /* spread, no:block, no:spine */
        uint32_t need = 1 + (uint32_t) fx_pick (6);
        jt_node_set_t sets[16];
        size_t nsets = level_sets (s, lv, sets);
        jt_activation_slice_t sl, again;
        jt_activation_t a = { 0 }, b = { 0 };
        jt_error_t err;

        if (jt_activation_slice (s, sets, nsets, need, 0, "h100", NULL, "c1:self",
                                 "r", 1000 + k, true, yield_all, NULL, &sl, &err) < 0
            || jt_activate (&sl.req, &a, &err) < 0)
            bail_out ("case %d: %s", k, err.text);
        alts += (int) sl.req.nalts;
        /* every alternative of a no:LEVEL run lies in one unit of LEVEL:
         * its nodes and the domains it needs room in */
        for (size_t i = 0; lv >= 0 && i < sl.req.nalts; i++) {
            const jt_node_set_t *c = jt_activation_alt_set (&sl, sets, i);
            ssize_t u = c->nnodes ? s->domains[s->nodes[c->nodes[0]].domain].up[lv] : -2;
            for (size_t j = 0; j < c->nnodes; j++)
                if (s->domains[s->nodes[c->nodes[j]].domain].up[lv] != u)
                    in_unit = false;
            for (size_t j = 0; j < sl.alts[i].nneeds; j++) {
                ssize_t d = jt_snapshot_domain_index (s, sl.pools[sl.alts[i].needs[j].pool]);
                if (d < 0 || s->domains[d].up[lv] != u)
                    in_unit = false;
            }
        }
        if (a.resolved) {
            const jt_node_set_t *c = jt_activation_alt_set (&sl, sets, a.alt);
            jt_node_set_t cl;
            resolved++;
            if (jt_activation_cleared (s, c, &a, &sl.req, &cl, &err) < 0)
                bail_out ("cleared: %s", err.text);
            /* the room freed holds the run's nodes */
            if (cl.nnodes < need) {
                diag ("case %d: %zu nodes cleared for %u: %s", k, cl.nnodes, need,
                      alts_text (&sl));
                room = false;
            }
            for (size_t j = 0; lv >= 0 && j < cl.nnodes; j++)
                if (s->domains[s->nodes[cl.nodes[j]].domain].up[lv]
                    != s->domains[s->nodes[cl.nodes[0]].domain].up[lv])
                    one_unit = false;
            free (cl.nodes);
        }
        /* the same input decides the same way */
        if (jt_activation_slice (s, sets, nsets, need, 0, "h100", NULL, "c1:self",
                                 "r", 1000 + k, true, yield_all, NULL, &again, &err) < 0
            || jt_activate (&again.req, &b, &err) < 0)
            bail_out ("case %d again: %s", k, err.text);
        {
            char *x = jt_activation_dump (&a, &sl.req), *y = jt_activation_dump (&b, &again.req);
            if (!x || !y || strcmp (x, y) || strcmp (sl.scope, again.scope))
                same = false;
            free (x);
            free (y);
        }
        jt_activation_free (&a);
        jt_activation_free (&b);
        jt_activation_slice_free (&sl);
        jt_activation_slice_free (&again);
        for (size_t i = 0; i < nsets; i++)
            free (sets[i].nodes);
        jt_snapshot_destroy (s);
    }
    ok (resolved > 20 && alts > resolved, "the cases exercise it: %d of %d resolved, "
        "%d alternatives", resolved, cases, alts);
    ok (in_unit, "a no:LEVEL run's alternatives (nodes, needs) lie in one unit of LEVEL each");
    ok (room, "a resolved activation clears at least the run's nodes in its alternative");
    ok (one_unit, "a no:LEVEL run's cleared nodes lie in one unit of LEVEL");
    ok (same, "the same input gives the same scope, seed and victims");
}

/* Room counted in the run's groups: every domain of three_blocks has 2
 * nodes. A run of one 4-node group fits no domain, so no alternative holds
 * it, though each block has 6 nodes; counted in whole nodes (group_nodes
 * 0) each block would be one. Groups of 2 nodes: a block holds 3. */
static void test_group_room (void)
{
    jt_snapshot_t *s = three_blocks (false);
    jt_node_set_t all = set_of (s, "XYZ");
    jt_activation_slice_t sl;
    jt_error_t err;

    is_int (jt_activation_slice (s, &all, 1, 4, 0, "h100", NULL, "c1:9", "c1:9:resv:1",
                                 fx_time (FX_NOW), true, yield_all, NULL, &sl, &err),
            0, "4 nodes counted whole");
    ok (sl.req.nalts > 0, "in whole nodes a block holds 4 (%zu alternatives)",
        sl.req.nalts);
    jt_activation_slice_free (&sl);
    is_int (jt_activation_slice (s, &all, 1, 4, 4, "h100", NULL, "c1:9", "c1:9:resv:1",
                                 fx_time (FX_NOW), true, yield_all, NULL, &sl, &err),
            0, "one 4-node group");
    is_int ((int64_t) sl.req.nalts, 0, "no domain holds a 4-node group: no "
            "alternative (nothing is evicted for a run it would not place)");
    jt_activation_slice_free (&sl);
    is_int (jt_activation_slice (s, &all, 1, 6, 2, "h100", NULL, "c1:9", "c1:9:resv:1",
                                 fx_time (FX_NOW), true, yield_all, NULL, &sl, &err),
            0, "three 2-node groups");
    ok (!strncmp (alts_text (&sl), "block X (west/X1,west/X2,west/X3) units=1 ", 42),
        "a block holds three 2-node groups, one per domain: %s", alts_text (&sl));
    jt_activation_slice_free (&sl);
    free (all.nodes);
    jt_snapshot_destroy (s);
}

int main (void)
{
    test_block_beats_pieces ();
    test_no_level ();
    test_no_levels ();
    test_properties ();
    test_group_room ();
    done_testing ();
}
