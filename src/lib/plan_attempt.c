/*
 * plan_attempt.c - one attempt of admission (plan.c): the groups of one
 * total funded and placed in order on the pack view, one domain or class
 * at a time when the run may not spread, each group paid by the first
 * candidate in Cover's order whose nodes Pack can place it on (a soft
 * group owner first, by whole nodes, several payers each on its own
 * nodes); what it placed undone when it fails; and "funding first", the
 * detail of a group its payers' nodes cannot hold while another
 * candidate's could.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/conformance.h"
#include "jobtree/plan.h"
#include "pack_view.h"
#include "plan_int.h"

void jt_plan_group_clear (jt_plan_group_t *g)
{
    free (g->nodes);
    free (g->node_gpus);
    free (g->spares);
}

void jt_plan_attempt_clear (attempt_t *a)
{
    for (size_t i = 0; i < a->ngroups; i++)
        jt_plan_group_clear (&a->groups[i]);
    free (a->groups);
    free (a->segs);
    for (size_t i = 0; i < a->npl; i++)
        jt_placement_free (&a->pl[i]);
    free (a->pl);
    memset (a, 0, sizeof (*a));
}

/* Give an attempt's nodes back to the view and forget it. */
static void attempt_undo (ctx_t *x, attempt_t *a)
{
    for (size_t i = a->npl; i > 0; i--)
        jt_pack_unplace (x->view, &a->pl[i - 1]);
    jt_reason_t why = a->reason;
    bool unplaced = a->unplaced, spare_short = a->spare_short;
    int64_t placed = a->placed;
    char detail[JT_ERRMSG_MAX];
    memcpy (detail, a->detail, sizeof (detail));
    jt_plan_attempt_clear (a);
    a->reason = why;
    a->unplaced = unplaced;
    a->spare_short = spare_short;
    a->placed = placed;
    memcpy (a->detail, detail, sizeof (detail));
}

static void *dup_array (const void *src, size_t n, size_t size)
{
    if (n == 0)
        return NULL;
    void *d = malloc (n * size);
    if (d)
        memcpy (d, src, n * size);
    return d;
}

/* Record the placement of group k, paid by cd, in the attempt. */
static int attempt_add (attempt_t *a, const jt_cover_cand_t *cd, size_t k,
                        int64_t gpus, jt_placement_t *pl)
{
    jt_placement_t *npl = realloc (a->pl, (a->npl + 1) * sizeof (*npl));
    if (!npl)
        return -1;
    a->pl = npl;
    a->pl[a->npl++] = *pl;
    memset (pl, 0, sizeof (*pl));
    pl = &a->pl[a->npl - 1];

    if (jt_cover_seg_append (&a->segs, &a->nsegs, cd, k, gpus) < 0)
        return -1;
    jt_plan_group_t *ng = realloc (a->groups, (a->ngroups + pl->ngroups)
                                   * sizeof (*ng));
    if (!ng)
        return -1;
    a->groups = ng;
    for (size_t j = 0; j < pl->ngroups; j++) {
        const jt_pack_group_t *pg = &pl->groups[j];
        jt_plan_group_t *g = &a->groups[a->ngroups];
        memset (g, 0, sizeof (*g));
        g->index = k;
        g->gpus = pg->gpus;
        g->domain = pg->domain;
        g->env = cd->env;
        g->source = cd->source;
        g->role = cd->source == JT_SRC_SPONSOR ? JT_ROLE_BORROWED
                                               : JT_ROLE_ACTIVE;
        g->nnodes = pg->nnodes;
        g->nodes = dup_array (pg->nodes, pg->nnodes, sizeof (*pg->nodes));
        g->node_gpus = dup_array (pg->node_gpus, pg->nnodes,
                                  sizeof (*pg->node_gpus));
        g->nspares = pg->nspares;
        g->spares = dup_array (pg->spares, pg->nspares, sizeof (*pg->spares));
        a->ngroups++;
        if ((pg->nnodes && (!g->nodes || !g->node_gpus))
            || (pg->nspares && !g->spares))
            return -1;
    }
    return 0;
}

/* Pack's detail numbers the single group it was given as group 0; say which
 * group of the run it is. */
static void group_detail (char *buf, size_t len, size_t k, const char *pd)
{
    if (strncmp (pd, "group 0 ", 8) == 0)
        snprintf (buf, len, "group %zu %.200s", k, pd + 8);
    else if (pd[0])
        snprintf (buf, len, "group %zu: %.200s", k, pd);
    else
        snprintf (buf, len, "group %zu fits no domain", k);
}

/* The Pack request for group k paid by candidate cd. */
static jt_pack_request_t group_request (const ctx_t *x, const jt_groups_t *g,
                                        size_t k, const jt_cover_cand_t *cd,
                                        ssize_t only_domain)
{
    return (jt_pack_request_t){
        .groups = &g->gpus[k], .ngroups = 1, .soft = g->soft,
        /* a soft group is one group: spread off keeps its chunks in one
         * domain */
        /* no:LEVEL: a soft demand's chunks may be in several domains of
         * the unit Plan scoped the view to */
        .single_domain = g->soft && !x->r->cross_group_spread
                         && !(x->r->spread_level
                              && strcmp (x->r->spread_level, "domain") != 0),
        .partial_ok = false,
        .spares_per_group = x->r->spares_per_group,
        .selector = &cd->env->selector, .only_domain = only_domain,
        .policy = x->policy,
    };
}

/* Group k fits no domain that a candidate able to pay it (`payer`, the
 * first) may use. When a candidate that cannot pay it has nodes with room
 * for it, funding, not placement, keeps the run off those free nodes: the
 * detail leads with that candidate's bound (the first in Cover's order),
 * then says why the payer's nodes will not do. 0, or -1 on error. */
static int funding_first (ctx_t *x, const jt_coverer_t *c, const jt_groups_t *g,
                          size_t k, ssize_t only_domain,
                          const jt_cover_cand_t *payer, attempt_t *a,
                          jt_error_t *err)
{
    int64_t need = g->gpus[k];

    for (size_t i = 0; i < jt_coverer_count (c); i++) {
        const jt_cover_cand_t *cd = jt_coverer_cand (c, i);
        char fund[JT_ERRMSG_MAX], place[JT_ERRMSG_MAX];
        jt_pack_request_t req;
        jt_placement_t pl;
        int rc;

        jt_reason_t why = jt_coverer_why_cand (c, i, need, fund, sizeof (fund));
        if (why == JT_OK || why == JT_WINDOW_CLOSED)
            continue;
        req = group_request (x, g, k, cd, only_domain);
        memset (&pl, 0, sizeof (pl));
        if ((rc = jt_pack (x->view, &req, &pl, err)) < 0)
            return -1;
        if (rc == 0)
            jt_pack_unplace (x->view, &pl);
        jt_placement_free (&pl);
        if (rc != 0)
            continue;
        /* The funding bound first: a cut only shortens what follows. */
        memcpy (place, a->detail, sizeof (place));
        memcpy (a->detail, fund, sizeof (a->detail));
        size_t l = strlen (a->detail);
        snprintf (a->detail + l, sizeof (a->detail) - l, " (envelope %s's nodes"
                  " have room); %s could pay, but ", cd->env->name,
                  payer->env->name);
        l = strlen (a->detail);
        snprintf (a->detail + l, sizeof (a->detail) - l, "%s", place);
        return 0;
    }
    return 0;
}

/* The GPUs of the spare nodes a placement holds (whole nodes). */
static int64_t spare_gpus (const jt_snapshot_t *s, const jt_placement_t *pl)
{
    int64_t sum = 0;

    for (size_t j = 0; j < pl->ngroups; j++)
        for (size_t k = 0; k < pl->groups[j].nspares; k++)
            sum += s->nodes[pl->groups[j].spares[k]].gpus;
    return sum;
}

/* Whether a placement uses part of a node's GPUs. */
static bool part_node (const jt_snapshot_t *s, const jt_placement_t *pl)
{
    for (size_t j = 0; j < pl->ngroups; j++)
        for (size_t n = 0; n < pl->groups[j].nnodes; n++)
            if (pl->groups[j].node_gpus[n] < s->nodes[pl->groups[j].nodes[n]].gpus)
                return true;
    return false;
}

/* Fund and place soft group k owner-first (jt_cover_soft_splits): each
 * candidate in Cover's order pays its share (jt_coverer_soft_share: what is
 * left, or its headroom in whole nodes), placed on nodes matching its
 * selector as far as they hold it (partial: whole nodes), charged for what
 * was placed and its chunks' spare nodes; the next candidate pays the
 * rest. With only_domain (and the view's fixed class) every share goes to
 * that one domain (class): attempt_single_domain's try of it. 0 placed, 1
 * not (a->reason, a->detail and a->placed set; confined, a->detail is the
 * first short payer's line, for attempt_single_domain to frame), -1 on
 * error. */
static int attempt_soft (ctx_t *x, jt_coverer_t *c, const jt_groups_t *g,
                         size_t k, ssize_t only_domain, attempt_t *a,
                         jt_error_t *err)
{
    int64_t need = g->gpus[k], rem = need, unit = g->unit > 0 ? g->unit : 1;
    bool short_nodes = false;   /* a payer's nodes held less than its share */
    char place[JT_ERRMSG_MAX] = "", first[JT_ERRMSG_MAX] = "";
    size_t npay = 0;            /* candidates that had a share */

    for (size_t i = 0; i < jt_coverer_count (c) && rem > 0; i++) {
        int64_t share = jt_coverer_soft_share (c, i, rem, unit);
        if (share <= 0)
            continue;
        const jt_cover_cand_t *cd = jt_coverer_cand (c, i);
        jt_pack_request_t req = group_request (x, g, k, cd, only_domain);
        jt_placement_t pl;
        npay++;
        req.groups = &share;
        req.partial_ok = true;
        memset (&pl, 0, sizeof (pl));
        int rc = jt_pack (x->view, &req, &pl, err);
        if (rc < 0)
            return -1;
        int64_t placed = rc == 0 ? pl.total_gpus : 0;
        int64_t spare = rc == 0 ? spare_gpus (x->s, &pl) : 0;
        if (rc == 0 && placed < rem && part_node (x->s, &pl)) {
            /* cannot happen (a share short of the rest is whole nodes, and
             * a partial placement stops at a node); never pay part of one */
            rc = 1;
            jt_pack_unplace (x->view, &pl);
        }
        if (rc == 0 && jt_coverer_headroom (c, i, NULL) < placed + spare) {
            /* it cannot pay its chunks' spare nodes too: it pays none of
             * the group (the next candidate may) */
            rc = 1;
            jt_pack_unplace (x->view, &pl);
            snprintf (pl.detail, sizeof (pl.detail), "its %" PRId64 " GPUs"
                      " and their spare nodes (%" PRId64 " GPUs): envelope %s"
                      " has room for %" PRId64, placed, spare, cd->env->name,
                      jt_coverer_headroom (c, i, NULL));
        }
        if (rc != 0 || placed < share) {
            short_nodes = true;
            if (!place[0])
                group_detail (first, sizeof (first), k, pl.detail);
            if (!place[0])
                snprintf (place, sizeof (place), "envelope %s pays %" PRId64
                          " GPUs: %.150s", cd->env->name, share,
                          pl.detail[0] ? pl.detail : "its nodes hold fewer");
        }
        if (rc != 0) {
            jt_placement_free (&pl);
            continue;
        }
        if (jt_coverer_charge (c, i, placed + spare) < 0
            || attempt_add (a, cd, k, placed, &pl) < 0) {
            jt_placement_free (&pl);
            return jt_errprintf (err, "plan: out of memory");
        }
        rem -= placed;
    }
    if (rem == 0)
        return 0;
    a->placed = need - rem;
    if (short_nodes && only_domain >= 0) {
        a->unplaced = true;
        a->reason = JT_NO_DOMAIN_FITS;
        memcpy (a->detail, place, sizeof (a->detail));
    } else if (short_nodes && npay <= 1) {
        /* one payer's nodes: Pack's own line, as for any group */
        a->unplaced = true;
        a->reason = JT_NO_DOMAIN_FITS;
        memcpy (a->detail, first, sizeof (a->detail));
    } else if (short_nodes) {
        a->unplaced = true;
        a->reason = JT_NO_DOMAIN_FITS;
        snprintf (a->detail, sizeof (a->detail), "group %zu (soft, %" PRId64
                  " GPUs): %" PRId64 " placed on nodes its payers may use;"
                  " %.120s", k, need, need - rem, place);
    } else {
        a->reason = jt_coverer_why_gpus (c, rem, a->detail, sizeof (a->detail));
        if (a->reason == JT_OK)         /* cannot happen; keep it a failure */
            a->reason = JT_INSUFFICIENT_CAPACITY;
    }
    return 1;
}

/* Fund and place every group. 0 placed, 1 not (a->reason says why; the view
 * is left as it was), -1 on error. */
int jt_plan_attempt_run (ctx_t *x, const jt_groups_t *g, ssize_t only_domain,
                        attempt_t *a, jt_error_t *err)
{
    jt_coverer_t *c = jt_coverer_create (x->b, x->u, x->r, x->now, err);
    int64_t total = 0;

    memset (a, 0, sizeof (*a));
    if (!c)
        return -1;
    for (size_t k = 0; k < g->n; k++)
        total += g->gpus[k];
    jt_coverer_set_demand (c, total);
    /* One request per group must still fill a domain to empty before the
     * next: freeze the order one request of all the groups would use. */
    bool hold = only_domain < 0 && x->policy == JT_PACK_TO_EMPTY;
    if (hold && jt_pack_view_hold_order (x->view, true) < 0) {
        jt_coverer_destroy (c);
        return jt_errprintf (err, "plan: out of memory");
    }
    int64_t spares_paid = 0;    /* GPUs charged for earlier groups' spares */
    for (size_t k = 0; k < g->n; k++) {
        int64_t need = g->gpus[k];
        if (jt_cover_soft_splits (x->r, g)) {
            int src = attempt_soft (x, c, g, k, only_domain, a, err);
            if (src < 0)
                goto error;
            if (src == 0)
                continue;
            attempt_undo (x, a);
            jt_coverer_destroy (c);
            if (hold)
                jt_pack_view_hold_order (x->view, false);
            return 1;
        }
        bool placed = false, spare_short = false;
        const jt_cover_cand_t *payer = NULL;     /* first that could pay */
        for (size_t i = 0; i < jt_coverer_count (c) && !placed; i++) {
            if (jt_coverer_headroom (c, i, NULL) < need)
                continue;
            const jt_cover_cand_t *cd = jt_coverer_cand (c, i);
            jt_pack_request_t req = group_request (x, g, k, cd, only_domain);
            jt_placement_t pl;
            memset (&pl, 0, sizeof (pl));
            int rc = jt_pack (x->view, &req, &pl, err);
            if (rc < 0)
                goto error;
            /* The group's spare nodes are leases its payer pays (role
             * Spare, calculus section 3): the payer must fund them too. */
            int64_t spare = rc == 0 ? spare_gpus (x->s, &pl) : 0;
            if (rc == 0 && spare > 0
                && jt_coverer_headroom (c, i, NULL) < need + spare) {
                jt_pack_unplace (x->view, &pl);
                jt_placement_free (&pl);
                if (!payer) {
                    snprintf (a->detail, sizeof (a->detail), "group %zu (%"
                              PRId64 " GPUs) and its spare nodes (%" PRId64
                              " GPUs): envelope %s has room for %" PRId64,
                              k, need, spare, cd->env->name,
                              jt_coverer_headroom (c, i, NULL));
                    a->reason = JT_INSUFFICIENT_CAPACITY;
                    spare_short = true;
                }
                continue;
            }
            if (rc == 0) {
                spares_paid += spare;
                if (jt_coverer_charge (c, i, need + spare) < 0
                    || attempt_add (a, cd, k, need, &pl) < 0) {
                    jt_placement_free (&pl);
                    jt_errprintf (err, "plan: out of memory");
                    goto error;
                }
                placed = true;
            } else {
                if (!payer) {
                    group_detail (a->detail, sizeof (a->detail), k, pl.detail);
                    a->reason = pl.reason == JT_SPREAD_NO_DOMAIN
                                ? JT_SPREAD_NO_DOMAIN : JT_NO_DOMAIN_FITS;
                }
                jt_placement_free (&pl);
            }
            if (!payer)
                payer = cd;
        }
        if (!placed) {
            if (!payer && spare_short) {
                /* funded for the group, not for its spares: funding */
                a->spare_short = true;
            } else if (payer) {
                a->unplaced = true;     /* a->reason set from Pack above */
                if (funding_first (x, c, g, k, only_domain, payer, a, err) < 0)
                    goto error;
            } else {
                a->reason = jt_coverer_why_gpus (c, need, a->detail,
                                                 sizeof (a->detail));
                if (spares_paid > 0) {
                    /* the groups alone would be funded: the spare nodes
                     * paid for earlier groups took the headroom */
                    size_t l = strlen (a->detail);
                    snprintf (a->detail + l, sizeof (a->detail) - l, "%s%"
                              PRId64 " GPUs of it pay the spare nodes of"
                              " groups 0-%zu", l ? "; " : "", spares_paid,
                              k - 1);
                    a->spare_short = true;
                }
            }
            attempt_undo (x, a);
            jt_coverer_destroy (c);
            if (hold)
                jt_pack_view_hold_order (x->view, false);
            return 1;
        }
    }
    jt_coverer_destroy (c);
    if (hold)
        jt_pack_view_hold_order (x->view, false);
    a->reason = JT_OK;
    return 0;
error:
    attempt_undo (x, a);
    jt_coverer_destroy (c);
    if (hold)
        jt_pack_view_hold_order (x->view, false);
    return -1;
}
