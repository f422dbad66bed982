/*
 * pack.c - Pack's placement rules (jobtree/pack.h): pack-to-empty and
 * best-fit, single domain, soft chunks, partial prefixes, spares (from the
 * group's block when no domain holds them with it), and the reasons and
 * details of None. The view itself is in pack_view.c, the
 * dump and policy names in pack_dump.c.
 *
 * DESIGN: a request costs O(domains + nodes taken), never a scan of all
 * nodes: domains are ordered once per request (counting sort), fit checks
 * are O(1) per uniform domain, and for equal-size groups the first-fit scan
 * resumes where the previous group went (a domain that could not hold a
 * group of size g cannot hold a later one of size >= g within the same
 * request, since free only shrinks).
 *
 * Selectors: one that only names region/cluster/fabric.domain is decided
 * per domain; any other key is matched per node through the view's cache.
 *
 * Group-by and constraints (a view made with jt_pack_view_create_run):
 * the view holds only the nodes the run may use and slices them by class
 * (domain x group-by value), so every rule below reads "domain" as
 * "class" at no extra cost per request: O(classes + nodes taken). Spread
 * off with group-by pins the view to the class of its first taken node
 * until everything is given back, so every group of the run (Plan asks
 * one group at a time) shares one value.
 *
 * Spares from the block (block_fit, block_spares): only for a group no
 * class holds with its spares, when the snapshot names levels; it costs
 * O(classes x classes of a block) for that group, a block's size being the
 * site's, never a number the user chose.
 *
 * A request is all-or-nothing: groups are taken one by one from the view
 * and, when one cannot be placed, everything taken so far is given back
 * (jt_pack_unplace), which restores counters, flags and heads exactly.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack_view.h"

enum selmode { SEL_ANY, SEL_DOMAIN, SEL_NODE };

struct req {
    jt_pack_view_t *v;
    const jt_pack_request_t *r;
    enum selmode mode;
    jt_placement_t *out;
    size_t cap;                 /* allocated out->groups */
    const struct dord *ord;     /* domains in request order (may include
                                   domains with nothing usable left) */
};

/* Whether class d takes part in this request (only_domain, the class a
 * spread-off group-by run is pinned to, selector). */
static bool dom_ok (const struct req *q, size_t d)
{
    if (q->r->only_domain >= 0 && (size_t) q->r->only_domain != q->v->cdom[d])
        return false;
    if (q->v->pin >= 0 && (size_t) q->v->pin != d)
        return false;
    if (q->v->fixed >= 0 && (size_t) q->v->fixed != d)
        return false;
    if (q->v->scope && !q->v->scope[q->v->cdom[d]])
        return false;
    return q->mode != SEL_DOMAIN || q->v->dsel_ok[d];
}

static size_t avail_nodes (const struct req *q, size_t d)
{
    if (!dom_ok (q, d))
        return 0;
    return q->mode == SEL_NODE ? q->v->sel_nodes[d] : q->v->free_nodes[d];
}

static int64_t avail_gpus (const struct req *q, size_t d)
{
    if (!dom_ok (q, d))
        return 0;
    return q->mode == SEL_NODE ? q->v->sel_gpus[d] : q->v->free_gpus[d];
}

static bool eligible (const struct req *q, size_t e)
{
    return !q->v->taken[e] && (q->mode != SEL_NODE || q->v->sel_match[e]);
}

/* Next eligible entry of domain d at or after e, or the slice end. */
static size_t next_ent (const struct req *q, size_t d, size_t e)
{
    size_t end = q->v->dstart[d + 1];

    while (e < end && !eligible (q, e))
        e++;
    return e;
}

/* How many of groups[0..n) (each + spares) domain d holds one after the
 * other, as jt_pack would take them. O(n) for a uniform domain. */
static size_t dom_prefix (const struct req *q, size_t d, const int64_t *groups,
                          size_t n, int64_t spares)
{
    const jt_pack_view_t *v = q->v;
    size_t left = avail_nodes (q, d);
    int ug = v->ugpus[d];

    if (left == 0)
        return 0;
    if (ug > 0) {
        for (size_t i = 0; i < n; i++) {
            uint64_t need = (uint64_t) ((groups[i] + ug - 1) / ug)
                            + (uint64_t) spares;
            if (need > left)
                return i;
            left -= need;
        }
        return n;
    }
    size_t e = v->head[d], end = v->dstart[d + 1];
    for (size_t i = 0; i < n; i++) {
        int64_t rem = groups[i];
        while (rem > 0) {
            e = next_ent (q, d, e);
            if (e >= end)
                return i;
            rem -= v->s->nodes[v->ent[e++]].gpus;
        }
        for (int64_t k = 0; k < spares; k++) {
            e = next_ent (q, d, e);
            if (e >= end)
                return i;
            e++;
        }
    }
    return n;
}

static bool dom_fits (const struct req *q, size_t d, int64_t g, int64_t spares)
{
    return dom_prefix (q, d, &g, 1, spares) == 1;
}

static jt_pack_group_t *new_group (struct req *q)
{
    if (q->out->ngroups == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 8;
        jt_pack_group_t *ng = realloc (q->out->groups, cap * sizeof (*ng));
        if (!ng)
            return NULL;
        q->out->groups = ng;
        q->cap = cap;
    }
    jt_pack_group_t *g = &q->out->groups[q->out->ngroups];
    memset (g, 0, sizeof (*g));
    return g;
}

/* Take up to g GPUs (at most maxnodes nodes) from domain d and then
 * `spares` spare nodes from domain sd (d itself, or a sibling of d's block:
 * block_spares) into a new output group. The caller has checked that they
 * are there. Returns 0 or -1 (ENOMEM, nothing taken). */
static int place_in (struct req *q, size_t d, int64_t g, size_t maxnodes,
                     int64_t spares, size_t sd)
{
    jt_pack_view_t *v = q->v;
    jt_pack_group_t *grp = new_group (q);
    size_t k = 0, end = v->dstart[d + 1], e;
    int64_t rem = g;

    if (!grp)
        return -1;
    /* count the nodes first so the arrays are allocated exactly */
    if (v->ugpus[d] > 0) {
        k = (size_t) ((g + v->ugpus[d] - 1) / v->ugpus[d]);
        if (k > maxnodes)
            k = maxnodes;
    } else {
        for (e = next_ent (q, d, v->head[d]); rem > 0 && e < end && k < maxnodes;
             e = next_ent (q, d, e + 1)) {
            rem -= v->s->nodes[v->ent[e]].gpus;
            k++;
        }
        rem = g;
    }
    grp->nodes = malloc ((k + 1) * sizeof (size_t));
    grp->node_gpus = malloc ((k + 1) * sizeof (int));
    grp->spares = malloc (((size_t) spares + 1) * sizeof (size_t));
    if (!grp->nodes || !grp->node_gpus || !grp->spares) {
        free (grp->nodes);
        free (grp->node_gpus);
        free (grp->spares);
        return -1;
    }
    grp->domain = v->cdom[d];
    grp->spare_domain = v->cdom[sd];
    grp->value = v->cval[d];
    q->out->ngroups++;
    e = v->head[d];
    while (grp->nnodes < k && rem > 0) {
        e = next_ent (q, d, e);
        if (e >= end)
            break;
        int ng = v->s->nodes[v->ent[e]].gpus;
        if (ng > rem)
            ng = (int) rem;
        grp->nodes[grp->nnodes] = v->ent[e];
        grp->node_gpus[grp->nnodes++] = ng;
        grp->gpus += ng;
        rem -= ng;
        jt_packv_take (v, e++);
    }
    if (sd != d) {
        e = v->head[sd];
        end = v->dstart[sd + 1];
    }
    while ((int64_t) grp->nspares < spares) {
        e = next_ent (q, sd, e);
        if (e >= end)
            break;
        grp->spares[grp->nspares++] = v->ent[e];
        jt_packv_take (v, e++);
    }
    q->out->total_gpus += grp->gpus;
    return 0;
}

/* Append to buf (which holds used bytes) the domain with the most GPUs
 * this request could use (ties by name). */
static void most_free (const struct req *q, char *buf, size_t len, int used)
{
    size_t best = NOPOS;

    if (used < 0 || (size_t) used >= len)
        return;
    buf += used;
    len -= (size_t) used;

    for (size_t d = 0; d < q->v->ndom; d++)
        if (avail_gpus (q, d) > 0
            && (best == NOPOS || avail_gpus (q, d) > avail_gpus (q, best)))
            best = d;
    if (best == NOPOS)
        snprintf (buf, len, "no domain has a free node");
    else {
        char name[256];
        jt_packv_class_name (q->v, best, name, sizeof (name));
        snprintf (buf, len, "most free is %.200s with %" PRId64, name,
                  avail_gpus (q, best));
    }
}

static void spares_text (int64_t spares, char *buf, size_t len)
{
    if (spares > 0)
        snprintf (buf, len, " + %" PRId64 " spare node%s", spares,
                  spares == 1 ? "" : "s");
    else
        buf[0] = '\0';
}

/* Record why group i could not be placed (in out->detail). */
static void group_detail (struct req *q, size_t i, int64_t g)
{
    char sp[48];
    int n;

    spares_text (q->r->spares_per_group, sp, sizeof (sp));
    n = snprintf (q->out->detail, sizeof (q->out->detail),
                  "group %zu (%" PRId64 " GPUs%s) fits no domain: ", i, g, sp);
    most_free (q, q->out->detail, sizeof (q->out->detail), n);
}

/* Point q->ord at the domains by free GPUs desc, then name (free as of
 * now, or as of jt_pack_view_hold_order). Returns how many. Every user of
 * the order skips domains that have nothing usable left. */
static size_t make_order (struct req *q)
{
    jt_pack_view_t *v = q->v;
    size_t n = 0;

    q->ord = v->order;

    if (q->r->only_domain >= 0) {
        size_t dd = (size_t) q->r->only_domain;
        for (size_t d = v->cfirst[dd]; d < v->cfirst[dd + 1]; d++) {
            if (avail_nodes (q, d) == 0)
                continue;
            v->order[n].key = avail_gpus (q, d);
            v->order[n++].d = d;
        }
        jt_packv_sort_domains (v, v->order, n);
        return n;
    }
    if (v->hold) {
        /* Held domains fill to empty in order, so the exhausted ones form a
         * prefix that is skipped once, not on every request of the run. */
        while (v->held_first < v->nheld
               && v->free_nodes[v->held[v->held_first].d] == 0)
            v->held_first++;
        q->ord = v->held + v->held_first;
        return v->nheld - v->held_first;
    }
    for (size_t d = 0; d < v->ndom; d++) {
        if (avail_nodes (q, d) == 0)
            continue;
        v->order[n].key = avail_gpus (q, d);
        v->order[n++].d = d;
    }
    jt_packv_sort_domains (v, v->order, n);
    return n;
}

/* Best-fit choice for one group: the usable domain with the fewest free
 * GPUs that holds it, ties by name. NOPOS if none. */
static size_t best_fit (const struct req *q, size_t nord, int64_t g)
{
    size_t best = NOPOS;

    for (size_t j = 0; j < nord; j++) {
        size_t d = q->ord[j].d;
        if (!dom_fits (q, d, g, q->r->spares_per_group))
            continue;
        if (best == NOPOS || avail_gpus (q, d) < avail_gpus (q, best)
            || (avail_gpus (q, d) == avail_gpus (q, best) && d < best))
            best = d;
    }
    return best;
}

/* Spares from the block (issue 33; docs/packing.md, "Spares"): the class
 * whose nodes are to be a group's `spares` spare nodes when the group goes
 * to class d but no class holds it with them. A usable class of another
 * domain in the same unit of the lowest level as d's domain (its block),
 * with d's group-by value, holding `spares` nodes this request may take:
 * the one with the most (they stay the least likely to be wanted whole),
 * ties by index. NOPOS when there is none, when the snapshot names no
 * level, or when d's domain is a unit of its own there (no block). O(the
 * block's classes). */
static size_t block_spares (const struct req *q, size_t d, int64_t spares)
{
    const jt_pack_view_t *v = q->v;
    const jt_snapshot_t *s = v->s;
    size_t dd = v->cdom[d], best = NOPOS, bestn = 0;
    ssize_t u;

    if (s->nlevels == 0 || spares <= 0 || (u = s->domains[dd].up[0]) < 0
        || (size_t) u >= s->nunits[0])
        return NOPOS;
    const jt_unit_t *unit = &s->units[0][u];
    for (size_t i = 0; i < unit->ndomains; i++) {
        size_t od = unit->domains[i];
        if (od == dd || od >= s->ndomains)
            continue;
        for (size_t c = v->cfirst[od]; c < v->cfirst[od + 1]; c++) {
            size_t n = avail_nodes (q, c);
            if (n < (size_t) spares || n < bestn || (n == bestn && c > best))
                continue;
            if ((v->cval[c] == NULL) != (v->cval[d] == NULL)
                || (v->cval[c] && strcmp (v->cval[c], v->cval[d]) != 0))
                continue;
            best = c;
            bestn = n;
        }
    }
    return best;
}

/* The domain for group g when none holds it with its spares: the one the
 * policy picks among those that hold the group alone and have a sibling
 * in their block for its spares (*sd). NOPOS if none. Pack-to-empty looks
 * from ord[*from] on and leaves *from at the domain taken: one skipped for
 * a group of size g cannot hold one of size >= g later in the request
 * (free only shrinks, in the domain and in its block), as pack_groups'
 * cursor. */
static size_t block_fit (const struct req *q, size_t nord, int64_t g,
                         size_t *sd, size_t *from)
{
    size_t best = NOPOS;

    *sd = NOPOS;
    if (q->v->s->nlevels == 0 || q->r->spares_per_group <= 0)
        return NOPOS;
    for (size_t j = q->r->policy == JT_PACK_BEST_FIT ? 0 : *from; j < nord;
         j++) {
        *from = j;
        size_t d = q->ord[j].d, c;
        if (!dom_fits (q, d, g, 0))
            continue;
        if (best != NOPOS
            && (avail_gpus (q, d) > avail_gpus (q, best)
                || (avail_gpus (q, d) == avail_gpus (q, best) && d > best)))
            continue;
        if ((c = block_spares (q, d, q->r->spares_per_group)) == NOPOS)
            continue;
        best = d;
        *sd = c;
        if (q->r->policy != JT_PACK_BEST_FIT)
            return best;    /* pack-to-empty: the first in order */
    }
    if (q->r->policy != JT_PACK_BEST_FIT)
        *from = nord;
    return best;
}

/* Say in out->detail (appended) that group i's spares came from its block. */
static void block_detail (struct req *q, size_t i, int64_t g, size_t d,
                          size_t sd)
{
    const jt_snapshot_t *s = q->v->s;
    size_t l = strlen (q->out->detail);
    char sp[48], dn[256], sn[256];
    int64_t n = q->r->spares_per_group;

    spares_text (n, sp, sizeof (sp));
    jt_packv_class_name (q->v, d, dn, sizeof (dn));
    jt_packv_class_name (q->v, sd, sn, sizeof (sn));
    if (l >= sizeof (q->out->detail) - 1)
        return;
    /* cut at the detail's end, like every other */
    if (snprintf (q->out->detail + l, sizeof (q->out->detail) - l,
              "%sgroup %zu (%" PRId64 " GPUs%s) fits no domain with its spares:"
              " group in %.100s, spare node%s in %.40s's domain %.100s",
              l ? "; " : "", i, g, sp, dn, n == 1 ? "" : "s",
              s->units[0][s->domains[q->v->cdom[d]].up[0]].name, sn) < 0)
        q->out->detail[l] = '\0';
}

/* Groups each in their own first-fitting (or best-fitting) domain.
 * Returns 0 placed, 1 None, -1 ENOMEM. */
static int pack_groups (struct req *q, size_t nord)
{
    const jt_pack_request_t *r = q->r;
    size_t cursor = 0, bcursor = 0;
    int64_t cur_g = -1, bcur_g = -1;

    for (size_t i = 0; i < r->ngroups; i++) {
        int64_t g = r->groups[i];
        size_t d = NOPOS;
        if (r->policy == JT_PACK_BEST_FIT)
            d = best_fit (q, nord, g);
        else {
            /* Domains skipped for size cur_g cannot hold any g >= cur_g
             * either (free only shrinks within a request), so equal-size
             * groups resume where the last one was placed. */
            if (cur_g < 0 || g < cur_g)
                cursor = 0;
            cur_g = g;
            for (; cursor < nord; cursor++)
                if (dom_fits (q, q->ord[cursor].d, g, r->spares_per_group)) {
                    d = q->ord[cursor].d;
                    break;
                }
        }
        size_t sd = d;
        if (d == NOPOS) {
            if (bcur_g < 0 || g < bcur_g)
                bcursor = 0;
            bcur_g = g;
            if ((d = block_fit (q, nord, g, &sd, &bcursor)) != NOPOS)
                block_detail (q, i, g, d, sd);
        }
        if (d == NOPOS) {
            group_detail (q, i, g);
            if (r->partial_ok && i > 0)
                return 0;
            q->out->reason = JT_NO_DOMAIN_FITS;
            return 1;
        }
        if (place_in (q, d, g, SIZE_MAX, r->spares_per_group, sd) < 0)
            return -1;
    }
    return 0;
}

/* All groups (or, with partial_ok, the longest prefix) in one domain. */
static int pack_single (struct req *q, size_t nord, const int64_t *groups,
                        size_t n)
{
    const jt_pack_request_t *r = q->r;
    size_t best = NOPOS, bestn = 0;
    int64_t sum = 0;

    for (size_t j = 0; j < nord; j++) {
        size_t d = q->ord[j].d;
        size_t k = dom_prefix (q, d, groups, n, r->spares_per_group);
        if (k == 0 || k < bestn)
            continue;
        if (r->policy == JT_PACK_BEST_FIT && k == bestn
            && avail_gpus (q, d) >= avail_gpus (q, best))
            continue;
        if (r->policy == JT_PACK_TO_EMPTY && k == bestn)
            continue;
        best = d;
        bestn = k;
        if (k == n && r->policy == JT_PACK_TO_EMPTY)
            break;
    }
    for (size_t i = 0; i < n; i++)
        sum += groups[i];
    if (best == NOPOS || (bestn < n && !r->partial_ok)) {
        char sp[48];
        spares_text (r->spares_per_group, sp, sizeof (sp));
        int len = snprintf (q->out->detail, sizeof (q->out->detail),
                            "no single domain holds all %zu group%s (%" PRId64
                            " GPUs%s%s): ", n, n == 1 ? "" : "s", sum, sp,
                            *sp ? " per group" : "");
        most_free (q, q->out->detail, sizeof (q->out->detail), len);
        q->out->reason = JT_SPREAD_NO_DOMAIN;
        return 1;
    }
    for (size_t i = 0; i < bestn; i++)
        if (place_in (q, best, groups[i], SIZE_MAX, r->spares_per_group, best) < 0)
            return -1;
    return 0;
}

/* Soft demand: whole nodes, domain by domain in order, each filled to empty
 * (keeping room for its chunk's spares); one output group per chunk. */
static int pack_soft (struct req *q, size_t nord, int64_t demand)
{
    const jt_pack_request_t *r = q->r;
    int64_t rem = demand, sp = r->spares_per_group;

    if (r->policy == JT_PACK_BEST_FIT) {
        size_t d = best_fit (q, nord, demand);
        if (d != NOPOS)
            return place_in (q, d, demand, SIZE_MAX, sp, d) < 0 ? -1 : 0;
    }
    for (size_t j = 0; j < nord && rem > 0; j++) {
        size_t d = q->ord[j].d, n = avail_nodes (q, d);
        if (n <= (size_t) sp)
            continue;
        if (place_in (q, d, rem, n - (size_t) sp, sp, d) < 0)
            return -1;
        rem -= q->out->groups[q->out->ngroups - 1].gpus;
    }
    if (rem > 0) {
        char sps[48];
        spares_text (sp, sps, sizeof (sps));
        snprintf (q->out->detail, sizeof (q->out->detail),
                  "soft demand of %" PRId64 " GPUs%s%s: only %" PRId64
                  " placeable", demand, sps, *sps ? " per chunk" : "",
                  demand - rem);
        if (r->partial_ok && rem < demand)
            return 0;
        q->out->reason = JT_NO_DOMAIN_FITS;
        return 1;
    }
    return 0;
}

int jt_pack (jt_pack_view_t *v, const jt_pack_request_t *req,
             jt_placement_t *out, jt_error_t *err)
{
    struct req q = { .v = v, .r = req, .mode = SEL_ANY, .out = out };
    int64_t demand = 0;
    size_t nord;
    int rc;

    if (!out)
        return jt_errprintf (err, "pack: no output placement");
    memset (out, 0, sizeof (*out));
    if (!v || !req || !req->groups || req->ngroups == 0)
        return jt_errprintf (err, "pack: empty request");
    if (req->spares_per_group < 0 || req->spares_per_group > ((int64_t) 1 << 40))
        return jt_errprintf (err, "pack: bad spares_per_group %" PRId64,
                             req->spares_per_group);
    if (req->only_domain >= 0 && (size_t) req->only_domain >= v->s->ndomains)
        return jt_errprintf (err, "pack: no domain %zd", req->only_domain);
    for (size_t i = 0; i < req->ngroups; i++) {
        /* the bound keeps node counts and sums far from overflow */
        if (req->groups[i] <= 0 || req->groups[i] > ((int64_t) 1 << 40))
            return jt_errprintf (err, "pack: group %zu has %" PRId64 " GPUs",
                                 i, req->groups[i]);
        demand += req->groups[i];
    }
    if (v->nlabelled == 0) {
        out->reason = JT_NO_NODES;
        snprintf (out->detail, sizeof (out->detail),
                  "no node of flavor %s has GPUs and a %s label", v->flavor,
                  JT_LABEL_FABRIC);
        return 1;
    }
    if (v->nsatisfy == 0) {
        out->reason = JT_NO_NODES;
        /* the submission check's line: the constraint or label at fault */
        if (jt_constraints_vet (&v->cons, v->group_by, v->s, v->flavor,
                                out->detail, sizeof (out->detail)) == JT_VET_OK)
            snprintf (out->detail, sizeof (out->detail), "no %s node is one of "
                      "the %s", v->flavor, v->filter ? v->filter : "run's nodes");
        return 1;
    }
    if (req->selector && req->selector->n > 0) {
        q.mode = jt_packv_sel_domain_level (req->selector) ? SEL_DOMAIN
                                                           : SEL_NODE;
        if ((q.mode == SEL_DOMAIN ? jt_packv_dsel_cache (v, req->selector)
                                  : jt_packv_sel_cache (v, req->selector)) < 0)
            return jt_errprintf (err, "pack: out of memory");
    }
    nord = make_order (&q);
    /* a soft group is one group: with group-by its chunks share a value.
     * A request confined to one class (Plan paying a spread-off or grouped
     * soft group owner first, class by class) chunks it there: with
     * partial_ok, what the class holds of it */
    bool confined = v->fixed >= 0 || v->pin >= 0
                    || (req->only_domain >= 0
                        && v->cfirst[req->only_domain + 1]
                           - v->cfirst[req->only_domain] <= 1);
    if (req->soft && (req->single_domain || v->group_by)
        && !(req->partial_ok && confined))
        rc = pack_single (&q, nord, &demand, 1);
    else if (req->soft)
        rc = pack_soft (&q, nord, demand);
    else if (req->single_domain)
        rc = pack_single (&q, nord, req->groups, req->ngroups);
    else
        rc = pack_groups (&q, nord);
    if (rc != 0) {
        jt_reason_t why = out->reason;
        char detail[sizeof (out->detail)];
        memcpy (detail, out->detail, sizeof (detail));
        jt_pack_unplace (v, out);
        jt_placement_free (out);
        out->reason = why;
        memcpy (out->detail, detail, sizeof (detail));
        if (v->filter) {
            size_t l = strlen (out->detail);
            snprintf (out->detail + l, sizeof (out->detail) - l, " (%s)",
                      v->filter);
        }
        if (rc < 0)
            return jt_errprintf (err, "pack: out of memory");
        return 1;
    }
    out->reason = JT_OK;
    return 0;
}
