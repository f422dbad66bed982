/*
 * plan.c - admission: Cover then Pack, group by group, to a decision
 * (calculus section 6 "Admission"; see jobtree/plan.h).
 *
 * DESIGN: one pack view per call holds the free whole nodes of the run's
 * flavor. An attempt funds and places the groups of one total in order: for
 * each group, the candidates that can pay it are tried in Cover's order and
 * the group is packed on nodes matching that candidate's selector; the first
 * candidate for which Pack succeeds pays (and is charged). A failed attempt
 * gives its nodes back to the view, and each attempt has its own coverer, so
 * attempts never see each other's charges. With cross-group spread off an
 * attempt is repeated per domain (packing order) with Pack restricted to it.
 * A soft group (no groupGPUs) is paid owner first by whole nodes, several
 * payers each placing their share on their own nodes; with spread off or a
 * group-by label it must lie in one domain or class, so that is tried
 * domain by domain (class by class) the same way, each payer's share
 * placed in the one being tried.
 * A malleable run tries totals from max down to min by step.
 *
 * When nothing binds, Cover alone (no placement) decides between Plan-Later
 * (the money is there, the nodes are not) and Reject (Cover's reason). A
 * group that its payers' nodes cannot hold while a candidate that cannot
 * pay has room for it is reported funding first (funding_first): the
 * bound that keeps it off the free nodes, then the placement.
 *
 * One attempt (its groups funded and placed, undone when it fails) is
 * plan_attempt.c's; this file holds the totals, the domain and class
 * order, and the decision (plan_int.h between them).
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

static const char *decision_names[] = {
    [JT_BIND_NOW] = "BindNow",
    [JT_PLAN_LATER] = "PlanLater",
    [JT_REJECT] = "Reject",
};

const char *jt_decision_str (jt_decision_t d)
{
    if ((size_t) d < sizeof (decision_names) / sizeof (decision_names[0]))
        return decision_names[d];
    return "Unknown";
}

typedef struct dom_order {
    size_t d;
    int64_t free;
} dom_order_t;

static int cmp_pack_to_empty (const void *pa, const void *pb)
{
    const dom_order_t *a = pa, *b = pb;
    if (a->free != b->free)
        return a->free > b->free ? -1 : 1;
    return a->d < b->d ? -1 : a->d > b->d;
}

static int cmp_best_fit (const void *pa, const void *pb)
{
    const dom_order_t *a = pa, *b = pb;
    if (a->free != b->free)
        return a->free < b->free ? -1 : 1;
    return a->d < b->d ? -1 : a->d > b->d;
}

/* The name of domain or class i of attempt_single_domain's candidates. */
static void place_name (const ctx_t *x, bool by_class, size_t i, char *buf,
                        size_t len)
{
    if (by_class)
        jt_packv_class_name (x->view, i, buf, len);
    else
        snprintf (buf, len, "%s", x->s->domains[i].name);
}

/* A soft group that no domain (class) holds on its payers' nodes: which one
 * came closest (most placed, the first in order on a tie) and why its
 * payers fell short there. */
static void soft_nowhere (const ctx_t *x, bool by_class, int64_t want,
                          const attempt_t *most, size_t most_d, bool tried,
                          const dom_order_t *ord, size_t nd, attempt_t *a)
{
    const char *label = jt_run_class_label (x->r);
    char what[96], where[128] = "none", text[3 * JT_ERRMSG_MAX];
    size_t l;

    if (by_class)
        snprintf (what, sizeof (what), "class of %.60s", label ? label : "?");
    else
        snprintf (what, sizeof (what), "domain");
    if (tried) {
        place_name (x, by_class, most_d, where, sizeof (where));
        snprintf (text, sizeof (text), "no %s holds group 0 (soft, %" PRId64
                  " GPUs) on nodes its payers may use; most placed: %" PRId64
                  " in %s (%s)", what, want, most->placed, where,
                  most->detail);
    } else {
        /* none had room for it: the most free (the first on a tie) */
        const dom_order_t *big = NULL;
        for (size_t i = 0; i < nd; i++)
            if (!big || ord[i].free > big->free
                || (ord[i].free == big->free && ord[i].d < big->d))
                big = &ord[i];
        if (big)
            place_name (x, by_class, big->d, where, sizeof (where));
        snprintf (text, sizeof (text), "no %s holds group 0 (soft, %" PRId64
                  " GPUs) on nodes its payers may use; most free is %s with %"
                  PRId64, what, want, where, big ? big->free : 0);
    }
    /* the detail's length, cut like every other */
    l = strlen (text);
    if (l >= sizeof (a->detail))
        l = sizeof (a->detail) - 1;
    memcpy (a->detail, text, l);
    a->detail[l] = '\0';
}

/* Cross-group spread off: every group in one domain, domains in packing
 * order (snapshot domains are sorted by name, so index breaks ties). With
 * --group-by the run must share one value too, so the candidates are the
 * view's classes (domain x value, in domain then value order): the run is
 * tried whole in each, so best-fit takes the smallest class that holds
 * every group, not the smallest that holds the first. A soft group with
 * spread off or a class label (group-by, strict conformance) is tried the
 * same way, its payers owner first (attempt_soft), in each domain or class
 * with room for it. */
static int attempt_single_domain (ctx_t *x, const jt_groups_t *g,
                                  attempt_t *a, jt_error_t *err)
{
    bool by_class = jt_pack_view_one_class (x->view)
                    || (g->soft && jt_run_class_label (x->r));
    size_t nd = by_class ? jt_pack_view_nclasses (x->view) : x->s->ndomains;
    dom_order_t *ord = calloc (nd + 1, sizeof (*ord));
    int64_t want = 0;
    bool unplaced = false, tried = false;
    attempt_t first, most;
    size_t most_d = 0;
    int rc = 1;

    memset (&first, 0, sizeof (first));
    memset (&most, 0, sizeof (most));
    if (!ord)
        return jt_errprintf (err, "plan: out of memory");
    for (size_t k = 0; k < g->n; k++)
        want += g->gpus[k];
    for (size_t d = 0; d < nd; d++) {
        ord[d].d = d;
        ord[d].free = by_class ? jt_pack_view_class_free (x->view, d)
                               : jt_pack_view_free (x->view, d);
    }
    qsort (ord, nd, sizeof (*ord),
           x->policy == JT_PACK_BEST_FIT ? cmp_best_fit : cmp_pack_to_empty);
    for (size_t i = 0; i < nd; i++) {
        size_t dom = by_class ? jt_pack_view_class_domain (x->view, ord[i].d)
                              : ord[i].d;
        if (g->soft && ord[i].free < want) {
            /* its payers' nodes there are fewer still */
            unplaced = true;
            continue;
        }
        if (by_class)
            jt_pack_view_fix_class (x->view, (ssize_t) ord[i].d);
        rc = jt_plan_attempt_run (x, g, (ssize_t) dom, a, err);
        if (by_class)
            jt_pack_view_fix_class (x->view, -1);
        if (rc <= 0)
            break;
        if (a->unplaced)
            unplaced = true;
        if (!tried)
            first = *a;
        if (a->unplaced && (!most.unplaced || a->placed > most.placed)) {
            most = *a;
            most_d = ord[i].d;
        }
        tried = true;
    }
    if (rc == 1 && g->soft && (!tried || most.unplaced)) {
        /* nowhere its payers' nodes hold it all */
        memset (a, 0, sizeof (*a));
        a->reason = JT_SPREAD_NO_DOMAIN;
        a->unplaced = true;
        soft_nowhere (x, by_class, want, &most, most_d, tried, ord, nd, a);
    } else if (rc == 1 && g->soft) {
        /* its payers cannot fund it (Cover's reason, or its spare nodes) */
        memset (a, 0, sizeof (*a));
        a->reason = first.reason;
        a->spare_short = first.spare_short;
        memcpy (a->detail, first.detail, sizeof (a->detail));
    } else if (rc == 1) {
        memset (a, 0, sizeof (*a));
        if (unplaced || nd == 0) {
            a->reason = JT_SPREAD_NO_DOMAIN;
            a->unplaced = true;
            snprintf (a->detail, sizeof (a->detail), "no domain holds all %zu"
                      " groups (%lld GPUs) on nodes its payers may use; most"
                      " free is %s with %lld", g->n, (long long) want,
                      nd ? x->s->domains[by_class ? jt_pack_view_class_domain
                                          (x->view, ord[0].d) : ord[0].d].name
                         : "none",
                      (long long) (nd ? ord[0].free : 0));
        } else {
            a->reason = first.reason;
            a->spare_short = first.spare_short;
            memcpy (a->detail, first.detail, sizeof (a->detail));
        }
    }
    free (ord);
    return rc;
}

/* The request jt_pack_levels_scope counts groups g of the run in. */
static jt_pack_levels_req_t levels_req (const ctx_t *x, const jt_groups_t *g,
                                        size_t from_level)
{
    return (jt_pack_levels_req_t) {
        .groups = g->gpus, .ngroups = g->n, .soft = g->soft,
        .spares = x->r->spares_per_group, .policy = x->policy,
        .from_level = from_level,
    };
}

/* Spread allowed under named levels: first inside the fewest units of
 * each level that hold the run now (pack_levels.c), then, when its payers
 * or selectors leave it short there, anywhere, so the level rule never
 * loses a placement the domain rule finds. One group is in one domain, so
 * in one unit of every level: nothing to narrow. */
static int attempt_spread (ctx_t *x, const jt_groups_t *g, attempt_t *a,
                           jt_error_t *err)
{
    const jt_snapshot_t *s = x->s;
    bool levels = s->nlevels && !x->flat && (g->n >= 2 || g->soft);
    unsigned char *scope;
    int rc, n;

    if (!levels && !x->prefer)
        return jt_plan_attempt_run (x, g, -1, a, err);
    if (!(scope = malloc (s->ndomains + 1)))
        return jt_errprintf (err, "plan: out of memory");
    /* the preferred domains first (a growing run's blocks), then all */
    for (int pass = x->prefer ? 0 : 1; pass < 2; pass++) {
        if (pass == 0)
            memcpy (scope, x->prefer, s->ndomains);
        else
            memset (scope, 1, s->ndomains);
        jt_pack_levels_req_t lr = levels_req (x, g, s->nlevels);
        if ((n = levels ? jt_pack_levels_scope (x->view, &lr, scope) : 0) < 0) {
            free (scope);
            return jt_errprintf (err, "plan: out of memory");
        }
        if (pass == 0 || n > 0) {
            jt_pack_view_scope (x->view, scope);
            rc = jt_plan_attempt_run (x, g, -1, a, err);
            jt_pack_view_scope (x->view, NULL);
            if (rc <= 0) {
                free (scope);
                return rc;
            }
        }
    }
    free (scope);
    return jt_plan_attempt_run (x, g, -1, a, err);
}

/* --cross-group-spread=no:LEVEL: the whole run inside one unit of level
 * lv, units by free GPUs in the policy's order (ties by index: names),
 * inside it the fewest units of the levels below. 0 placed, 1 not (the
 * reason names the level and its largest unit), -1 on error. */
static int attempt_in_unit (ctx_t *x, const jt_groups_t *g, size_t lv,
                            attempt_t *a, jt_error_t *err)
{
    const jt_snapshot_t *s = x->s;
    size_t nu = jt_pack_level_nunits (s, lv);
    dom_order_t *ord = calloc (nu + 1, sizeof (*ord));
    unsigned char *scope = malloc (s->ndomains + 1);
    int64_t want = 0;
    attempt_t first;
    bool tried = false;
    int rc = 1;

    memset (&first, 0, sizeof (first));
    if (!ord || !scope) {
        free (ord);
        free (scope);
        return jt_errprintf (err, "plan: out of memory");
    }
    for (size_t k = 0; k < g->n; k++)
        want += g->gpus[k];
    for (size_t u = 0; u < nu; u++)
        ord[u].d = u;
    for (size_t d = 0; d < s->ndomains; d++) {
        ssize_t u = s->domains[d].up[lv];
        ord[u >= 0 ? (size_t) u : s->nunits[lv] + d].free
            += jt_pack_view_free (x->view, d);
    }
    qsort (ord, nu, sizeof (*ord),
           x->policy == JT_PACK_BEST_FIT ? cmp_best_fit : cmp_pack_to_empty);
    for (size_t i = 0; i < nu && rc == 1; i++) {
        if (ord[i].free < want)
            continue;
        size_t one, nd;
        const size_t *ud = jt_pack_level_domains (s, lv, ord[i].d, &one, &nd);
        memset (scope, 0, s->ndomains + 1);
        for (size_t k = 0; k < nd; k++)
            scope[ud[k]] = 1;
        jt_pack_levels_req_t lr = levels_req (x, g, lv);
        if (jt_pack_levels_scope (x->view, &lr, scope) < 0) {
            rc = jt_errprintf (err, "plan: out of memory");
            break;
        }
        jt_pack_view_scope (x->view, scope);
        rc = jt_plan_attempt_run (x, g, -1, a, err);
        jt_pack_view_scope (x->view, NULL);
        if (rc == 1 && !tried) {
            first = *a;
            tried = true;
        }
    }
    if (rc == 1) {
        /* the most free unit (the first on a tie) */
        const dom_order_t *big = NULL;
        for (size_t i = 0; i < nu; i++)
            if (!big || ord[i].free > big->free
                || (ord[i].free == big->free && ord[i].d < big->d))
                big = &ord[i];
        memset (a, 0, sizeof (*a));
        if (tried && first.reason != JT_NO_DOMAIN_FITS
            && first.reason != JT_SPREAD_NO_DOMAIN) {
            /* a unit had room; its payers could not fund the run there */
            *a = first;
        } else {
            a->reason = JT_SPREAD_NO_DOMAIN;
            a->unplaced = true;
            snprintf (a->detail, sizeof (a->detail), "fits no %s: all %zu "
                      "groups (%lld GPUs) in one; the largest, %s, has %lld "
                      "free GPUs", jt_level_name (s, lv), g->n, (long long) want,
                      big ? jt_pack_level_unit_name (s, lv, big->d) : "none",
                      (long long) (big ? big->free : 0));
        }
    }
    free (ord);
    free (scope);
    return rc;
}

static bool flavor_has_nodes (const jt_snapshot_t *s, const char *flavor)
{
    for (size_t i = 0; i < s->nnodes; i++)
        if (s->nodes[i].flavor && s->nodes[i].domain >= 0
            && strcmp (s->nodes[i].flavor, flavor) == 0)
            return true;
    return false;
}

/* An upper bound on the GPUs Cover can fund now: charging one candidate
 * never raises another's headroom. It keeps absurd totals (up to 2^31 GPUs)
 * and wide malleable ranges from compiling or trying totals that cannot be
 * funded. */
static int64_t fundable_bound (const jt_coverer_t *c)
{
    int64_t sum = 0;

    for (size_t i = 0; i < jt_coverer_count (c); i++) {
        int64_t h = jt_coverer_headroom (c, i, NULL);
        if (h > INT64_MAX - sum)
            return INT64_MAX;
        sum += h;
    }
    return sum;
}

/* Cover cannot fund `total` (it is over fundable_bound): find the group it
 * fails on, as jt_cover would, without compiling every group. */
static int reject_unfundable (ctx_t *x, int64_t total, jt_plan_t *out,
                              jt_error_t *err)
{
    jt_coverer_t *c = jt_coverer_create (x->b, x->u, x->r, x->now, err);
    int64_t g = x->r->group_gpus > 0 ? x->r->group_gpus : total;
    int64_t n = (total + g - 1) / g;

    if (!c)
        return -1;
    jt_coverer_set_demand (c, total);
    for (int64_t k = 0; k < n; k++) {
        int64_t gk = k < n - 1 ? g : total - (n - 1) * g;
        /* one group at a time, as jt_cover funds them (never compiled:
         * the total may be absurd) */
        jt_groups_t one = { &gk, 1, x->r->group_gpus <= 0, x->gpn };
        if (jt_coverer_fund_group (c, &one, 0, NULL, NULL) <= 0)
            break;
    }
    out->decision = JT_REJECT;
    out->reason = jt_coverer_why (c, out->detail, sizeof (out->detail));
    if (out->reason == JT_OK)   /* cannot happen: total is over the bound */
        out->reason = JT_INSUFFICIENT_CAPACITY;
    jt_coverer_destroy (c);
    return 0;
}

void jt_plan_free (jt_plan_t *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->ngroups; i++)
        jt_plan_group_clear (&p->groups[i]);
    free (p->groups);
    free (p->segs);
    free (p->residual);
    memset (p, 0, sizeof (*p));
}

static void plan_reject (jt_plan_t *out, jt_reason_t why, const char *detail)
{
    out->decision = JT_REJECT;
    out->reason = why;
    snprintf (out->detail, sizeof (out->detail), "%s", detail);
}

/* Nothing bound at the smallest total: Plan-Later when Cover alone funds it. */
static int plan_unbound (ctx_t *x, const attempt_t *last, int64_t total,
                         jt_plan_t *out, jt_error_t *err)
{
    jt_groups_t g;
    jt_cover_t cv;

    if (jt_run_compile (x->r, total, &g, err) < 0)
        return -1;
    g.unit = x->gpn;
    int rc = jt_cover (x->b, x->u, x->r, &g, x->now, &cv, err);
    jt_groups_free (&g);
    if (rc < 0)
        return -1;
    if (rc == 1) {
        plan_reject (out, cv.reason, cv.detail);
        jt_cover_free (&cv);
        return 0;
    }
    if (last->spare_short) {
        /* Cover funds the groups, but not their spare nodes as well */
        jt_cover_free (&cv);
        plan_reject (out, last->reason, last->detail);
        return 0;
    }
    out->decision = JT_PLAN_LATER;
    out->segs = cv.segs;
    out->nsegs = cv.nsegs;
    if (last->unplaced) {
        out->reason = last->reason;
        memcpy (out->detail, last->detail, sizeof (out->detail));
    } else {
        /* Paying elsewhere to place a group left a later group unfunded. */
        out->reason = JT_NO_DOMAIN_FITS;
        snprintf (out->detail, sizeof (out->detail), "funded, but no payer"
                  " order places every group now (%.180s)", last->detail);
    }
    return 0;
}

int jt_plan_run (const jt_budgets_t *b, const jt_snapshot_t *s,
                 const jt_usage_t *u, const jt_run_t *r, int64_t now,
                 const jt_plan_opts_t *opts, jt_plan_t *out, jt_error_t *err)
{
    jt_usage_t own;
    ctx_t x = { b, s, u, r, now, opts ? opts->policy : JT_PACK_DEFAULT, NULL,
                0, opts && opts->flat, opts ? opts->prefer : NULL };
    jt_error_t verr;
    attempt_t a;
    char why[JT_ERRMSG_MAX];
    jt_pack_views_t *views = opts ? opts->views : NULL;
    bool owned = true, has_nodes;
    int64_t gpn;
    int rc = -1;

    memset (&own, 0, sizeof (own));
    memset (&a, 0, sizeof (a));
    if (!b || !s || !r || !out)
        return jt_errprintf (err, "plan: budgets, snapshot, run and output"
                             " are required");
    memset (out, 0, sizeof (*out));
    if (!r->owner || !r->flavor) {
        plan_reject (out, JT_INVALID_RUN, "the run needs an owner and a"
                     " resources.gpuType");
        return 0;
    }
    out->requested_gpus = r->malleable ? r->max_gpus : r->total_gpus;
    out->ndomains = s->ndomains;
    if (!(out->residual = calloc (s->ndomains + 1, sizeof (*out->residual)))) {
        jt_errprintf (err, "plan: out of memory");
        goto done;
    }
    if (!u) {
        if (jt_usage_from_snapshot (&own, b, s, now, NULL) < 0) {
            jt_errprintf (err, "plan: out of memory");
            goto done;
        }
        x.u = &own;
    }
    if (!(x.view = jt_pack_views_get (views, s, r, &owned, err)))
        goto done;
    for (size_t d = 0; d < s->ndomains; d++)
        out->residual[d] = jt_pack_view_free (x.view, d);

    /* the flavor's facts: from the synced views, else a pass */
    if ((gpn = jt_pack_views_gpus_per_node (views, s, r->flavor, &has_nodes)) < 0) {
        gpn = jt_snapshot_gpus_per_node (s, r->flavor);
        has_nodes = flavor_has_nodes (s, r->flavor);
    }
    x.gpn = gpn > 0 ? gpn : 0;
    if (jt_run_validate (r, gpn, &verr) < 0) {
        plan_reject (out, JT_INVALID_RUN, verr.text);
        rc = 0;
        goto done;
    }
    /* Funding reasons that no placement could change come first. */
    jt_coverer_t *probe = jt_coverer_create (b, x.u, r, now, err);
    if (!probe)
        goto done;
    jt_reason_t pw = jt_coverer_why_gpus (probe, 1, why, sizeof (why));
    int64_t fundable = fundable_bound (probe);
    jt_coverer_destroy (probe);
    if (pw == JT_NO_BUDGET || pw == JT_UNKNOWN_FLAVOR
        || pw == JT_NO_MATCHING_ENVELOPE) {
        plan_reject (out, pw, why);
        rc = 0;
        goto done;
    }
    if (!has_nodes) {
        snprintf (why, sizeof (why), "no node of flavor %s has a %s label",
                  r->flavor, JT_LABEL_FABRIC);
        plan_reject (out, JT_NO_NODES, why);
        rc = 0;
        goto done;
    }

    /* --cross-group-spread=no:LEVEL: a level this cluster names */
    ssize_t level = -1;
    if (r->spread_level && !r->cross_group_spread
        && strcmp (r->spread_level, "domain") != 0) {
        if ((level = jt_level_index (s, r->spread_level)) < 0) {
            size_t l = (size_t) snprintf (why, sizeof (why), "no fabric level "
                                          "'%s' in this cluster; its levels: ",
                                          r->spread_level);
            for (size_t i = 0; i < s->nlevels && l < sizeof (why); i++)
                l += (size_t) snprintf (why + l, sizeof (why) - l, "%s%s",
                                        i ? ", " : "", jt_level_name (s, i));
            if (s->nlevels == 0 && l < sizeof (why))
                snprintf (why + l, sizeof (why) - l, "none (FabricLevels in "
                          "jobtree.conf)");
            /* a placement reason: admission refuses it (never placeable) */
            plan_reject (out, JT_SPREAD_NO_DOMAIN, why);
            rc = 0;
            goto done;
        }
    }

    int64_t hi = r->malleable ? r->max_gpus : r->total_gpus;
    int64_t lo = r->malleable ? r->min_gpus : r->total_gpus;
    int64_t step = jt_run_step_gpus (r, gpn);
    int64_t last_total = 0;
    if (lo < 1)
        lo = 1;
    if (step < 1)
        step = 1;
    if (lo > fundable) {
        rc = reject_unfundable (&x, lo, out, err);
        goto done;
    }
    if (hi > fundable)          /* the largest total Cover could fund */
        hi = lo + (fundable - lo) / step * step;
    /* ... and Pack could place: no more than the flavor's free whole nodes
     * hold. With both bounds the totals tried depend on the cluster and
     * the budgets, never on how wide a range the user asked for. Totals
     * above either bound fail anyway, so the decision is the same; when
     * even lo cannot be placed, lo alone is tried, for the reason. */
    int64_t placeable = 0;
    for (size_t d = 0; d < s->ndomains; d++)
        placeable += jt_pack_view_free (x.view, d);
    if (hi > placeable)
        hi = placeable >= lo ? lo + (placeable - lo) / step * step : lo;
    for (int64_t t = hi; t >= lo; t -= (r->malleable ? step : hi + 1)) {
        jt_groups_t g;
        if (jt_run_compile (r, t, &g, err) < 0)
            goto done;
        g.unit = x.gpn;
        /* one domain (class) for all: spread off with several groups, or
         * a soft group with spread off or a class label */
        bool one = g.soft ? !r->cross_group_spread || jt_run_class_label (r)
                          : !r->cross_group_spread && g.n > 1;
        /* the run's own scope, narrowed by topology/block's rule */
        ssize_t in = level >= 0 ? level : one ? JT_CONFINE_DOMAIN : JT_CONFINE_NONE;
        in = jt_confine_narrower (in, jt_pack_block_confine (s, jt_run_nodes (r, t, x.gpn)));
        int arc = in >= 0 ? attempt_in_unit (&x, &g, (size_t) in, &a, err)
                  : in == JT_CONFINE_DOMAIN ? attempt_single_domain (&x, &g, &a, err)
                                            : attempt_spread (&x, &g, &a, err);
        jt_groups_free (&g);
        if (arc < 0)
            goto done;
        last_total = t;
        if (arc == 0) {
            out->decision = JT_BIND_NOW;
            out->reason = JT_OK;
            out->total_gpus = t;
            out->segs = a.segs;
            out->nsegs = a.nsegs;
            out->groups = a.groups;
            out->ngroups = a.ngroups;
            a.segs = NULL;
            a.groups = NULL;
            a.nsegs = a.ngroups = 0;
            for (size_t d = 0; d < s->ndomains; d++)
                out->residual[d] = jt_pack_view_free (x.view, d);
            rc = 0;
            goto done;
        }
    }
    if (last_total == 0) {
        plan_reject (out, JT_INVALID_RUN, "no total between minTotalGPUs and"
                     " maxTotalGPUs is at least 1 GPU");
        rc = 0;
        goto done;
    }
    rc = plan_unbound (&x, &a, last_total, out, err);
done:
    if (owned) {
        jt_plan_attempt_clear (&a);
        jt_pack_view_destroy (x.view);
    } else {
        /* a kept view goes back clean: the bound attempt's nodes too */
        for (size_t i = a.npl; i > 0; i--)
            jt_pack_unplace (x.view, &a.pl[i - 1]);
        jt_plan_attempt_clear (&a);
        jt_pack_views_put (views, x.view);
    }
    jt_usage_free (&own);
    if (rc < 0)
        jt_plan_free (out);
    return rc;
}
