/*
 * pack_levels.c - Pack over fabric levels (jobtree/pack.h, "Levels"):
 * the domains of the fewest units at each level above the domain that can
 * hold a run now, and a level's units as scopes for a run that must stay
 * inside one of them (--cross-group-spread=no:LEVEL).
 *
 * DESIGN: a unit's room is counted in the run's own groups: each domain
 * (class) holds floor(free whole nodes / nodes per group) of them, the
 * group being the run's largest with its spare nodes, so a count is never
 * more than Pack could place there. Top level first: the fewest spines
 * that hold every group, then inside them the fewest blocks. The fewest
 * units are the largest ones (a prefix of the units by room); which units
 * among equals, and the last one, follow the policy (best-fit: the
 * smallest that completes the run; pack-to-empty: the largest), ties by
 * name. O(levels x (domains + units log units)) per call; nothing depends
 * on a number the user chose.
 *
 * The scope only narrows where Pack looks first: Plan tries the run inside
 * it, then (if payers, selectors or mixed node sizes leave it short there)
 * anywhere, so the level rule never loses a placement the domain rule
 * finds.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pack_view.h"

ssize_t jt_pack_block_confine (const jt_snapshot_t *s, int64_t nodes)
{
    if (!s || !s->block_nodes[0] || nodes <= 0)
        return JT_CONFINE_NONE;
    if (nodes <= (int64_t) s->block_nodes[0])
        return JT_CONFINE_DOMAIN;
    for (size_t l = 0; l < s->nlevels && l < JT_LEVELS_MAX && s->block_nodes[l + 1];
         l++)
        if (nodes <= (int64_t) s->block_nodes[l + 1])
            return (ssize_t) l;
    return JT_CONFINE_NONE;
}

void jt_pack_view_scope (jt_pack_view_t *v, const unsigned char *domains)
{
    if (v)
        v->scope = domains;
}

/* How many of the run's groups domain d holds now (summed over its
 * classes), within scope. */
static uint64_t dom_room (const jt_pack_view_t *v, size_t d, uint64_t per)
{
    uint64_t n = 0;

    for (size_t c = v->cfirst[d]; c < v->cfirst[d + 1]; c++)
        n += per ? v->free_nodes[c] / per : 0;
    return n;
}

struct cand {
    uint64_t room;
    size_t unit;                /* unit index, or nunits + domain for a
                                   domain that is a unit of its own */
};

static int cand_cmp (const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->room != y->room)
        return x->room > y->room ? -1 : 1;
    return x->unit < y->unit ? -1 : x->unit > y->unit;
}

size_t jt_pack_level_nunits (const jt_snapshot_t *s, size_t l)
{
    return l < s->nlevels ? s->nunits[l] + s->ndomains : 0;
}

const size_t *jt_pack_level_domains (const jt_snapshot_t *s, size_t l, size_t u,
                                     size_t *one, size_t *n)
{
    *n = 0;
    if (l >= s->nlevels)
        return NULL;
    if (u < s->nunits[l]) {
        *n = s->units[l][u].ndomains;
        return s->units[l][u].domains;
    }
    u -= s->nunits[l];
    if (u >= s->ndomains || s->domains[u].up[l] >= 0)
        return NULL;
    *one = u;
    *n = 1;
    return one;
}

const char *jt_pack_level_unit_name (const jt_snapshot_t *s, size_t l, size_t u)
{
    if (l >= s->nlevels)
        return "?";
    if (u < s->nunits[l])
        return s->units[l][u].name;
    return u - s->nunits[l] < s->ndomains ? s->domains[u - s->nunits[l]].name
                                          : "?";
}

int jt_levels_fewest (const jt_snapshot_t *s, uint64_t *room, uint64_t need,
                      size_t from_level, jt_pack_policy_t policy,
                      unsigned char *scope, size_t *spans)
{
    struct cand *c = NULL;
    unsigned char *pick = NULL;
    size_t maxu = 0, top = from_level < s->nlevels ? from_level : s->nlevels;
    int narrowed = 0;

    if (need == 0)
        return 0;
    for (size_t l = 0; l < s->nlevels; l++)
        if (s->nunits[l] > maxu)
            maxu = s->nunits[l];
    if (!(c = calloc (s->ndomains + maxu + 1, sizeof (*c)))
        || !(pick = calloc (s->ndomains + maxu + 1, 1))) {
        free (c);
        return -1;
    }
    for (size_t d = 0; d < s->ndomains; d++)
        if (!scope[d])
            room[d] = 0;
    for (size_t l = top; l-- > 0;) {
        size_t nu = s->nunits[l], nc = 0, k = 0;
        uint64_t total = 0, got = 0;
        /* a unit's room: the sum of its domains' (units of their own last) */
        for (size_t u = 0; u < nu; u++) {
            uint64_t r = 0;
            for (size_t i = 0; i < s->units[l][u].ndomains; i++)
                r += room[s->units[l][u].domains[i]];
            if (r > 0)
                c[nc++] = (struct cand) { .room = r, .unit = u };
        }
        for (size_t d = 0; d < s->ndomains; d++)
            if (s->domains[d].up[l] < 0 && room[d] > 0)
                c[nc++] = (struct cand) { .room = room[d], .unit = nu + d };
        for (size_t i = 0; i < nc; i++)
            total += c[i].room;
        if (total < need)
            break;              /* short here, and so on every level below */
        qsort (c, nc, sizeof (*c), cand_cmp);
        while (got < need)
            got += c[k++].room;
        if (policy == JT_PACK_BEST_FIT) {
            /* the last unit: the smallest that completes the run; sorted by
             * room desc, the first of the smallest rooms that complete is
             * the one of lowest name among equals */
            uint64_t left = need - (got - c[k - 1].room);
            size_t best = k - 1;
            for (size_t i = k; i < nc; i++)
                if (c[i].room >= left && c[i].room < c[best].room)
                    best = i;
            if (best != k - 1) {
                struct cand t = c[k - 1];
                c[k - 1] = c[best];
                c[best] = t;
            }
        }
        memset (pick, 0, nu + s->ndomains);
        for (size_t i = 0; i < k; i++)
            pick[c[i].unit] = 1;
        for (size_t d = 0; d < s->ndomains; d++) {
            ssize_t u = s->domains[d].up[l];
            if (!pick[u >= 0 ? (size_t) u : nu + d]) {
                scope[d] = 0;
                room[d] = 0;
            }
        }
        if (spans)
            spans[l] = k;
        narrowed++;
    }
    free (c);
    free (pick);
    return narrowed;
}

int jt_pack_levels_scope (const jt_pack_view_t *v,
                          const jt_pack_levels_req_t *req, unsigned char *scope)
{
    const jt_snapshot_t *s = v->s;
    int64_t gmax = 0, gpn = jt_snapshot_gpus_per_node (s, v->flavor);
    uint64_t need, per, *room;
    int rc;

    if (gpn <= 0 || req->ngroups == 0)
        return 0;
    for (size_t i = 0; i < req->ngroups; i++)
        if (req->groups[i] > gmax)
            gmax = req->groups[i];
    if (req->soft) {
        /* a soft demand is chunked by whole node: count nodes */
        need = (uint64_t) ((gmax + gpn - 1) / gpn);
        per = 1;
    } else {
        need = req->ngroups;
        per = (uint64_t) ((gmax + gpn - 1) / gpn) + (uint64_t) req->spares;
    }
    if (!(room = calloc (s->ndomains + 1, sizeof (*room))))
        return -1;
    for (size_t d = 0; d < s->ndomains; d++)
        room[d] = scope[d] ? dom_room (v, d, per) : 0;
    rc = jt_levels_fewest (s, room, need, req->from_level, req->policy, scope,
                           req->spans);
    free (room);
    return rc;
}
