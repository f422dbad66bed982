/*
 * schedule_rank.c - which of an estimate's candidate sets to ask the
 * per-node check about first (jobtree/schedule.h, jt_answer_rank), and,
 * for a run that holds its nodes alone, the estimate itself
 * (jt_answer_from_free).
 *
 * Backfill asks a WILL_RUN of a run that fits no domain now. The answer
 * lists one node set per domain able to hold it; asking the per-node check
 * (cons_tres's will_run, which copies the whole cluster's per-node state
 * and replays every running job's end) once per set made one WILL_RUN
 * cost O(domains x nodes). Here each set gets the instant its
 * cand_nodes-th node frees, from one free time per node that the caller
 * keeps (the end of the jobs on it), so ordering the sets costs the nodes
 * of the sets, and the caller asks the per-node check about the first
 * set or two only.
 *
 * DESIGN: a set's time is exact for whole-node runs on nodes that free
 * when their jobs end (the per-node check finds the same instant); it is
 * a ranking, not the answer, for a run that shares its nodes: the start
 * backfill plans with is the per-node check's for the set it takes. For a
 * run that holds its nodes alone the ranking's first set and time are the
 * answer (jt_answer_from_free): the per-node check's replay would find the
 * same instant at the cost of the cluster's per-node state copied and
 * every running job replayed, once per waiting run per backfill pass. A
 * run whose groups may spread has one set over every domain; its answer
 * takes whole groups, each in one domain (from_free_groups), as Pack
 * would place them.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/pack.h"
#include "jobtree/schedule.h"

static int cmp_i64 (const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return x < y ? -1 : x > y;
}

#define SELECT_ELEM_MAX 32      /* the largest element select_first moves */

static void swap_elem (char *b, size_t size, size_t i, size_t j)
{
    char tmp[SELECT_ELEM_MAX];

    if (i == j)
        return;
    memcpy (tmp, b + i * size, size);
    memcpy (b + i * size, b + j * size, size);
    memcpy (b + j * size, tmp, size);
}

/* Put the k (1..n) smallest of base[0..n) first, by cmp, with the k-th
 * smallest at base[k - 1] (what a sort would leave there): a quickselect
 * with a median-of-three pivot and a three-way partition (equal free
 * times are common: every node free now, jobs ending together), O(n) on
 * average where the sort it replaces was O(n log n) for each candidate set
 * of every estimate (at 16,384 nodes a run whose groups may spread has one
 * set of every node). Free times come from time limits users choose, so
 * after 2 log2(n) + 8 rounds the rest is sorted: never worse than
 * n log n. */
static void select_first (void *base, size_t n, size_t size, size_t k,
                          int (*cmp) (const void *, const void *))
{
    char *b = base, pv[SELECT_ELEM_MAX];
    size_t lo = 0, hi = n;      /* base[k - 1] is decided within [lo, hi) */
    int rounds = 8;

    if (k == 0 || k > n || size > SELECT_ELEM_MAX)
        return;
    for (size_t m = n; m > 1; m >>= 1)
        rounds += 2;
    while (hi - lo > 16 && rounds-- > 0) {
        size_t mid = lo + (hi - lo) / 2, lt = lo, i = lo, gt = hi;

        if (cmp (b + mid * size, b + lo * size) < 0)
            swap_elem (b, size, mid, lo);
        if (cmp (b + (hi - 1) * size, b + lo * size) < 0)
            swap_elem (b, size, hi - 1, lo);
        if (cmp (b + (hi - 1) * size, b + mid * size) < 0)
            swap_elem (b, size, hi - 1, mid);
        memcpy (pv, b + mid * size, size);
        while (i < gt) {        /* [lo,lt) < pv, [lt,i) == pv, [gt,hi) > pv */
            int c = cmp (b + i * size, pv);
            if (c < 0)
                swap_elem (b, size, lt++, i++);
            else if (c > 0)
                swap_elem (b, size, i, --gt);
            else
                i++;
        }
        if (k - 1 < lt)
            hi = lt;
        else if (k - 1 >= gt)
            lo = gt;
        else
            return;             /* the k-th equals the pivot */
    }
    qsort (b + lo * size, hi - lo, size, cmp);
}

/* A time and an index, ordered by time, ties by index: a candidate set
 * and when it frees (jt_answer_rank), a node and when it frees
 * (jt_answer_from_free). */
typedef struct ranked {
    int64_t when;
    size_t i;
} ranked_t;

static int cmp_ranked (const void *a, const void *b)
{
    const ranked_t *x = a, *y = b;

    if (x->when != y->when)
        return x->when < y->when ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* When snapshot node n is free for a new run: never before now. */
static int64_t free_from (const int64_t *free_at, size_t n, int64_t now)
{
    return free_at[n] < now ? now : free_at[n];
}

size_t jt_answer_rank (const jt_answer_t *a, const int64_t *free_at,
                       size_t nnodes, int64_t now, int64_t *when, size_t *order)
{
    size_t big = 0, n = 0;
    int64_t *t;
    ranked_t *r;

    for (size_t i = 0; i < a->ncands; i++)
        if (a->cands[i].nnodes > big)
            big = a->cands[i].nnodes;
    t = malloc ((big + 1) * sizeof (*t));
    r = malloc ((a->ncands + 1) * sizeof (*r));
    if (!t || !r) {
        free (t);
        free (r);
        return 0;
    }
    for (size_t i = 0; i < a->ncands; i++) {
        const jt_node_set_t *set = &a->cands[i];
        size_t m = 0;

        if (a->cand_nodes == 0 || set->nnodes < a->cand_nodes)
            continue;
        for (size_t k = 0; k < set->nnodes; k++)
            if (set->nodes[k] < nnodes)
                t[m++] = free_from (free_at, set->nodes[k], now);
        if (m < a->cand_nodes)
            continue;
        select_first (t, m, sizeof (*t), a->cand_nodes, cmp_i64);
        if (t[a->cand_nodes - 1] == INT64_MAX)
            continue;   /* never: too few of its nodes ever free */
        r[n].when = t[a->cand_nodes - 1] < a->not_before ? a->not_before
                                                         : t[a->cand_nodes - 1];
        r[n++].i = i;
    }
    qsort (r, n, sizeof (*r), cmp_ranked);
    for (size_t k = 0; k < n; k++) {
        order[k] = r[k].i;
        if (when)
            when[k] = r[k].when;
    }
    free (t);
    free (r);
    return n;
}

/* The bucket of snapshot node n for from_free_groups: 0 for a set within
 * one domain (the whole set one bucket), else n's domain; nb (skipped)
 * for a node outside the snapshot or without a domain. */
static size_t bucket_of (const jt_node_set_t *set, const jt_snapshot_t *s, size_t n,
                         size_t nb)
{
    if (n >= s->nnodes)
        return nb;
    if (set->domain >= 0)
        return 0;
    return s->nodes[n].domain >= 0 && (size_t) s->nodes[n].domain < nb
           ? (size_t) s->nodes[n].domain : nb;
}

/* The answer on groups of g nodes, each within one bucket (a set within
 * one domain: one bucket and one group of cand_nodes; a set over several
 * domains, a run whose groups may spread: a bucket per domain): the
 * slots, a bucket's j-th g nodes freeing first and when the last of them
 * frees, and the G = cand_nodes / g slots freeing first, ties by bucket
 * then j (the order they are made in); the start when the last of them
 * frees. Held on the nodes freeing first wherever they are, a spread run
 * would keep whole-domain groups out of every domain it touches; held on
 * whole slots, it waits for what Pack would give it. Work: the set's
 * nodes and the buckets (a selection per slot). */
/* Under fabric levels (docs/packing.md, "Levels"): of the slots freeing by
 * t (the run's start), keep those in the fewest units of each level that
 * hold the run's ngroups, as Pack would place it then, and put the
 * ngroups earliest of them first in slot[]. The start stays t: the kept
 * units hold ngroups slots freeing by t. sdom: each slot's domain. false
 * when nothing was narrowed (slot[] unchanged) or on ENOMEM. */
static bool level_slots (const jt_snapshot_t *s, ranked_t *slot, size_t nslots,
                         const size_t *sdom, size_t ngroups, int64_t t)
{
    uint64_t *room = calloc (s->ndomains + 1, sizeof (*room));
    unsigned char *scope = malloc (s->ndomains + 1);
    ranked_t *tmp = malloc ((nslots + 1) * sizeof (*tmp));
    size_t n = 0, m;
    bool narrowed = false;

    if (!room || !scope || !tmp)
        goto out;
    memset (scope, 1, s->ndomains + 1);
    for (size_t k = 0; k < nslots; k++)
        if (slot[k].when <= t && sdom[slot[k].i] < s->ndomains)
            room[sdom[slot[k].i]]++;
    if (jt_levels_fewest (s, room, ngroups, s->nlevels, JT_PACK_DEFAULT, scope,
                          NULL) <= 0)
        goto out;
    /* the kept slots first, then the rest; the earliest kept ones first */
    for (size_t k = 0; k < nslots; k++)
        if (slot[k].when <= t && sdom[slot[k].i] < s->ndomains
            && scope[sdom[slot[k].i]])
            tmp[n++] = slot[k];
    m = n;
    for (size_t k = 0; k < nslots; k++)
        if (!(slot[k].when <= t && sdom[slot[k].i] < s->ndomains
              && scope[sdom[slot[k].i]]))
            tmp[m++] = slot[k];
    memcpy (slot, tmp, nslots * sizeof (*slot));
    if (n >= ngroups) {
        select_first (slot, n, sizeof (*slot), ngroups, cmp_ranked);
        narrowed = true;
    }
out:
    free (room);
    free (scope);
    free (tmp);
    return narrowed;
}

static bool from_free_groups (const jt_answer_t *a, const jt_node_set_t *set,
                              const jt_snapshot_t *s, const int64_t *free_at,
                              int64_t now, size_t g, size_t *nodes, int64_t *start)
{
    size_t nb = set->domain >= 0 ? 1 : s->ndomains, ngroups, nslots = 0;
    size_t *cnt = NULL, *at = NULL, *sbase = NULL, *sdom = NULL;
    ranked_t *f = NULL, *slot = NULL;
    bool answered = false;

    if (g == 0 || a->cand_nodes % g || nb == 0)
        return false;
    ngroups = a->cand_nodes / g;
    cnt = calloc (nb + 1, sizeof (*cnt));
    at = calloc (nb + 1, sizeof (*at));
    f = malloc ((set->nnodes + 1) * sizeof (*f));
    slot = malloc ((set->nnodes / g + 1) * sizeof (*slot));
    sbase = malloc ((set->nnodes / g + 1) * sizeof (*sbase));
    sdom = malloc ((set->nnodes / g + 1) * sizeof (*sdom));
    if (!cnt || !at || !f || !slot || !sbase || !sdom)
        goto out;
    /* the set's nodes by bucket (a counting sort: O(nodes + buckets)) */
    for (size_t k = 0; k < set->nnodes; k++)
        cnt[bucket_of (set, s, set->nodes[k], nb)]++;
    for (size_t d = 0, sum = 0; d < nb; d++) {
        at[d] = sum;
        sum += cnt[d];
    }
    for (size_t k = 0; k < set->nnodes; k++) {
        size_t n = set->nodes[k], d = bucket_of (set, s, n, nb);
        if (d < nb)
            f[at[d]++] = (ranked_t){ free_from (free_at, n, now), n };
    }
    /* each bucket's slots: its g nodes freeing first, then the next g */
    for (size_t d = 0, base = 0; d < nb; base += cnt[d++])
        for (size_t j = 0; (j + 1) * g <= cnt[d]; j++) {
            ranked_t *b = f + base + j * g;
            select_first (b, cnt[d] - j * g, sizeof (*f), g, cmp_ranked);
            if (b[g - 1].when == INT64_MAX)
                break;          /* never: too few of its nodes ever free */
            sbase[nslots] = base + j * g;
            sdom[nslots] = set->domain >= 0 ? (size_t) set->domain : d;
            slot[nslots] = (ranked_t){ b[g - 1].when, nslots };
            nslots++;
        }
    if (nslots < ngroups)
        goto out;
    select_first (slot, nslots, sizeof (*slot), ngroups, cmp_ranked);
    int64_t t = slot[ngroups - 1].when;
    /* free now, yet not bound: not the free times' to answer */
    if (t <= now)
        goto out;
    /* groups over several domains: the fewest blocks and spines that hold
     * them by t, as Pack would place them then */
    if (set->domain < 0 && ngroups > 1 && s->nlevels)
        (void) level_slots (s, slot, nslots, sdom, ngroups, t);
    /* groups in slot order, each's nodes in (time, index) order (the
     * nodes[] contract) */
    qsort (slot, ngroups, sizeof (*slot), cmp_ranked);
    for (size_t j = 0; j < ngroups; j++) {
        ranked_t *b = f + sbase[slot[j].i];
        qsort (b, g, sizeof (*b), cmp_ranked);
        for (size_t k = 0; k < g; k++)
            nodes[j * g + k] = b[k].i;
    }
    *start = t < a->not_before ? a->not_before : t;
    answered = true;
out:
    free (cnt);
    free (at);
    free (f);
    free (slot);
    free (sbase);
    free (sdom);
    return answered;
}

bool jt_answer_from_free (const jt_answer_t *a, size_t cand,
                          const jt_snapshot_t *s, const int64_t *free_at,
                          int64_t now, bool alone, size_t *nodes, int64_t *start)
{
    const jt_node_set_t *set;

    if (!alone || a->kind != JT_ANSWER_ESTIMATE || cand >= a->ncands
        || a->cand_nodes == 0)
        return false;
    set = &a->cands[cand];
    if (set->nnodes < a->cand_nodes)
        return false;
    /* a set within one domain: one group of the run's nodes; over several
     * domains: whole groups, each in one domain (a run whose group size
     * does not divide it is the per-node check's) */
    return from_free_groups (a, set, s, free_at, now,
                             set->domain >= 0 ? a->cand_nodes : a->cand_group_nodes,
                             nodes, start);
}
