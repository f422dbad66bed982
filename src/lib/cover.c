/*
 * cover.c - Cover: who pays (calculus section 4, DESIGN decision 3; see
 * jobtree/cover.h and docs/cover.md).
 *
 * DESIGN: a coverer is built once per (run, time): it lists the candidate
 * envelopes in Cover's order and keeps the GPUs tentatively charged to each
 * in this session, so that Plan can fund one group, place it, and fund the
 * next. The headroom of a candidate is the minimum over every bound that
 * applies to it; when it is too small, the bound that gave the minimum is
 * the reason reported. Sponsors that would lend but cannot because the run
 * does not allow borrowing are kept in a shadow list: they are never paid,
 * only used to say "BorrowLimit" instead of a vaguer reason. Reasons and
 * the "ever fundable" test are in cover_why.c.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/cover.h"
#include "cover_int.h"

static const char *reason_names[] = {
    [JT_OK] = "OK",
    [JT_INVALID_RUN] = "InvalidRun",
    [JT_NO_BUDGET] = "NoBudget",
    [JT_UNKNOWN_FLAVOR] = "UnknownFlavor",
    [JT_NO_MATCHING_ENVELOPE] = "NoMatchingEnvelope",
    [JT_WINDOW_CLOSED] = "WindowClosed",
    [JT_INSUFFICIENT_CAPACITY] = "InsufficientCapacity",
    [JT_GPU_HOURS_EXHAUSTED] = "GPUHoursExhausted",
    [JT_AGGREGATE_CAP] = "AggregateCap",
    [JT_LENDING_CAP] = "LendingCap",
    [JT_BORROW_LIMIT] = "BorrowLimit",
    [JT_NEVER_FUNDABLE] = "NeverFundable",
    [JT_NO_DOMAIN_FITS] = "NoDomainFits",
    [JT_SPREAD_NO_DOMAIN] = "SingleDomainFull",
    [JT_NO_NODES] = "NoNodes",
};

const char *jt_reason_str (jt_reason_t r)
{
    if ((size_t) r < sizeof (reason_names) / sizeof (reason_names[0])
        && reason_names[r])
        return reason_names[r];
    return "Unknown";
}

const char *jt_source_str (jt_source_t s)
{
    switch (s) {
    case JT_SRC_OWNER:
        return "owner";
    case JT_SRC_SIBLING:
        return "sibling";
    case JT_SRC_PARENT:
        return "parent";
    case JT_SRC_SPONSOR:
        return "sponsor";
    }
    return "unknown";
}

/* ---- usage accessors (u may be NULL or smaller than the budget set) ---- */

static int64_t u_active (const jt_coverer_t *c, size_t id)
{
    return c->u && id < c->u->nenv ? c->u->active[id] : 0;
}

/* What a sponsor has lent (Borrowed leases): its lending caps bound it. */
static int64_t u_borrowed_active (const jt_coverer_t *c, size_t id)
{
    return c->u && id < c->u->nenv ? c->u->borrowed_active[id] : 0;
}

static double u_hours (const jt_coverer_t *c, size_t id)
{
    return c->u && id < c->u->nenv ? c->u->used_hours[id] : 0.;
}

static double u_borrowed_hours (const jt_coverer_t *c, size_t id)
{
    return c->u && id < c->u->nenv ? c->u->borrowed_hours[id] : 0.;
}

/* Whole GPUs that `hours` GPU-hours can still fund, for the run's time limit.
 * A tiny epsilon keeps exact fits (e.g. 64 x 4h = 256.0) from being lost to
 * floating-point rounding. */
static int64_t hours_to_gpus (const jt_coverer_t *c, double hours)
{
    if (c->hpg <= 0.)
        return ROOM_INF;
    if (hours <= 0.)
        return 0;
    double g = floor (hours / c->hpg + 1e-9);
    if (g >= 9.0e18)
        return ROOM_INF;
    return (int64_t) g;
}

/* ---- candidate list ---- */

static bool cand_push (jt_cover_cand_t **v, size_t *n, size_t *cap,
                       const jt_envelope_t *e, jt_source_t src)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        jt_cover_cand_t *nv = realloc (*v, ncap * sizeof (*nv));
        if (!nv)
            return false;
        *v = nv;
        *cap = ncap;
    }
    (*v)[*n].env = e;
    (*v)[*n].source = src;
    (*n)++;
    return true;
}

static char *selector_text (const jt_envelope_t *e)
{
    int len = jt_labels_format (&e->selector, NULL, 0);
    char *s = malloc (len > 0 ? (size_t) len + 1 : 1);

    if (!s)
        return NULL;
    s[0] = '\0';
    if (len > 0)
        jt_labels_format (&e->selector, s, (size_t) len + 1);
    return s;
}

static bool in_list (const jt_budget_t *const *v, size_t n, const jt_budget_t *o)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == o)
            return true;
    return false;
}

bool jt_cover_flavor_is (const jt_envelope_t *e, const char *flavor)
{
    return e->flavor && flavor && strcmp (e->flavor, flavor) == 0;
}

/* Family in Cover's order: owner, siblings by name, parent, grandparent... */
static int family_build (const jt_coverer_t *c, const jt_budget_t *o,
                         const jt_budget_t ***out, jt_source_t **src,
                         size_t *n)
{
    const jt_budgets_t *b = c->b;
    size_t cap = b->n + 1;
    const jt_budget_t **fam = calloc (cap, sizeof (*fam));
    jt_source_t *fs = calloc (cap, sizeof (*fs));
    size_t nf = 0;

    if (!fam || !fs) {
        free (fam);
        free (fs);
        return -1;
    }
    fam[nf] = o;
    fs[nf++] = JT_SRC_OWNER;
    if (o->parent) {
        size_t ns = jt_budgets_children (b, o->parent, o->owner, fam + nf,
                                         cap - nf);
        if (ns > cap - nf)
            ns = cap - nf;
        for (size_t i = 0; i < ns; i++)
            fs[nf + i] = JT_SRC_SIBLING;
        nf += ns;
    }
    /* Ancestors; finalize rejects cycles, the membership test guards anyway. */
    for (const char *p = o->parent; p && nf < cap;) {
        const jt_budget_t *pb = jt_budgets_owner (b, p);
        if (!pb || in_list (fam, nf, pb))
            break;
        fam[nf] = pb;
        fs[nf++] = JT_SRC_PARENT;
        p = pb->parent;
    }
    *out = fam;
    *src = fs;
    *n = nf;
    return 0;
}

/* Returns 1 with *src, 0 when Cover never lists e for owner, -1 on ENOMEM. */
int jt_cover_source_of (const jt_budgets_t *b, const char *owner,
                        const jt_envelope_t *e, jt_source_t *src)
{
    const jt_budget_t *o = b && owner ? jt_budgets_owner (b, owner) : NULL;
    const jt_budget_t **fam = NULL;
    jt_source_t *fsrc = NULL;
    size_t nfam = 0;
    jt_coverer_t c = { .b = b };
    int rc = 0;

    if (!o || !e || !e->owner)
        return 0;
    if (family_build (&c, o, &fam, &fsrc, &nfam) < 0)
        return -1;
    for (size_t f = 0; f < nfam && !rc; f++)
        if (!strcmp (fam[f]->owner, e->owner)) {
            *src = fsrc[f];
            rc = 1;
        }
    if (!rc && jt_envelope_lends_to (e, owner)) {
        *src = JT_SRC_SPONSOR;
        rc = 1;
    }
    free (fam);
    free (fsrc);
    return rc;
}

static int candidates_build (jt_coverer_t *c, const jt_budget_t *o)
{
    const jt_budgets_t *b = c->b;
    const char *flavor = c->r->flavor;
    const jt_budget_t **fam = NULL;
    jt_source_t *fsrc = NULL;
    size_t nfam = 0, ccap = 0, scap = 0, nloc = 0;
    char **loc = NULL;
    bool *seen = calloc (b->nenv + 1, sizeof (*seen));
    int rc = -1;

    if (!seen || family_build (c, o, &fam, &fsrc, &nfam) < 0)
        goto done;

    /* Locations by first appearance among the owner's, then the family's,
     * envelopes of the flavor. */
    loc = calloc (b->nenv + 1, sizeof (*loc));
    if (!loc)
        goto done;
    for (size_t f = 0; f < nfam; f++) {
        for (size_t k = 0; k < fam[f]->nenv; k++) {
            const jt_envelope_t *e = &fam[f]->env[k];
            if (!jt_cover_flavor_is (e, flavor))
                continue;
            char *t = selector_text (e);
            if (!t)
                goto done;
            size_t j;
            for (j = 0; j < nloc && strcmp (loc[j], t) != 0; j++)
                ;
            if (j < nloc)
                free (t);
            else
                loc[nloc++] = t;
        }
    }
    for (size_t l = 0; l < nloc; l++) {
        for (size_t f = 0; f < nfam; f++) {
            for (size_t k = 0; k < fam[f]->nenv; k++) {
                const jt_envelope_t *e = &fam[f]->env[k];
                if (!jt_cover_flavor_is (e, flavor) || seen[e->id])
                    continue;
                char *t = selector_text (e);
                if (!t)
                    goto done;
                bool here = strcmp (t, loc[l]) == 0;
                free (t);
                if (!here)
                    continue;
                if (!cand_push (&c->cand, &c->ncand, &ccap, e, fsrc[f]))
                    goto done;
                seen[e->id] = true;
            }
        }
    }

    /* Sponsors: the run's listed ones in order, then other lenders by name.
     * They go to the shadow list when the run may not borrow. */
    jt_cover_cand_t **sv = c->r->allow_borrow ? &c->cand : &c->shadow;
    size_t *sn = c->r->allow_borrow ? &c->ncand : &c->nshadow;
    size_t *scp = c->r->allow_borrow ? &ccap : &scap;
    const jt_budget_t **listed = calloc (c->r->nsponsors + 1, sizeof (*listed));
    size_t nlisted = 0;
    if (!listed)
        goto done;
    for (size_t pass = 0; pass < 2; pass++) {
        size_t n = pass == 0 ? c->r->nsponsors : b->n;
        for (size_t i = 0; i < n; i++) {
            const jt_budget_t *sp = pass == 0
                                    ? jt_budgets_owner (b, c->r->sponsors[i])
                                    : &b->v[i];
            if (!sp || in_list (fam, nfam, sp))
                continue;
            if (pass == 0) {
                if (in_list (listed, nlisted, sp))
                    continue;
                listed[nlisted++] = sp;
            } else if (in_list (listed, nlisted, sp))
                continue;
            for (size_t k = 0; k < sp->nenv; k++) {
                const jt_envelope_t *e = &sp->env[k];
                if (!jt_cover_flavor_is (e, flavor) || seen[e->id]
                    || !jt_envelope_lends_to (e, c->r->owner))
                    continue;
                if (!cand_push (sv, sn, scp, e, JT_SRC_SPONSOR)) {
                    free (listed);
                    goto done;
                }
                seen[e->id] = true;
            }
        }
    }
    free (listed);
    rc = 0;
done:
    for (size_t l = 0; loc && l < nloc; l++)
        free (loc[l]);
    free (loc);
    free (fam);
    free (fsrc);
    free (seen);
    return rc;
}

jt_coverer_t *jt_coverer_create (const jt_budgets_t *b, const jt_usage_t *u,
                                 const jt_run_t *r, int64_t now,
                                 jt_error_t *err)
{
    jt_coverer_t *c;

    if (!b || !r || !r->owner || !r->flavor) {
        errno = EINVAL;
        jt_errprintf (err, "cover: budgets and a run with owner and flavor"
                      " are required");
        return NULL;
    }
    if (!(c = calloc (1, sizeof (*c))))
        goto nomem;
    c->b = b;
    c->u = u;
    c->r = r;
    c->now = now;
    c->hpg = jt_run_gpu_hours (r, 1);
    if (!(c->charged = calloc (b->nenv + 1, sizeof (*c->charged))))
        goto nomem;
    const jt_budget_t *o = jt_budgets_owner (b, r->owner);
    c->has_budget = o != NULL;
    if (o && candidates_build (c, o) < 0)
        goto nomem;
    return c;
nomem:
    jt_coverer_destroy (c);
    errno = ENOMEM;
    jt_errprintf (err, "cover: out of memory");
    return NULL;
}

void jt_coverer_destroy (jt_coverer_t *c)
{
    if (!c)
        return;
    int saved = errno;
    free (c->cand);
    free (c->shadow);
    free (c->charged);
    free (c);
    errno = saved;
}

size_t jt_coverer_count (const jt_coverer_t *c)
{
    return c ? c->ncand : 0;
}

const jt_cover_cand_t *jt_coverer_cand (const jt_coverer_t *c, size_t i)
{
    return c && i < c->ncand ? &c->cand[i] : NULL;
}

/* ---- bounds ---- */

static void room_min (room_t *rm, int64_t gpus, enum bound_kind kind,
                      const jt_aggcap_t *cap, double used, double limit)
{
    if (gpus < rm->gpus) {
        rm->gpus = gpus;
        rm->kind = kind;
        rm->cap = cap;
        rm->used = used;
        rm->limit = limit;
    }
}

/* The envelope's own bounds (window, concurrency, GPU-hours), not yet
 * clamped at 0. */
static room_t room_own (const jt_coverer_t *c, const jt_cover_cand_t *cd)
{
    const jt_envelope_t *e = cd->env;
    size_t id = e->id;
    int64_t ch = c->charged[id];
    room_t rm = { ROOM_INF, B_NONE, NULL, 0., 0. };

    if (!jt_envelope_open_at (e, c->now)) {
        rm.gpus = 0;
        rm.kind = B_WINDOW;
        return rm;
    }
    int64_t act = u_active (c, id) + ch;
    room_min (&rm, e->concurrency - act, B_CONC, NULL, (double) act,
              (double) e->concurrency);
    double used = u_hours (c, id) + (double) ch * c->hpg;
    double lim = jt_envelope_gpu_hours_cap (e);
    room_min (&rm, hours_to_gpus (c, lim - used), B_HOURS, NULL, used, lim);
    return rm;
}

room_t jt_cover_room_own (const jt_coverer_t *c, const jt_cover_cand_t *cd)
{
    room_t rm = room_own (c, cd);

    if (rm.gpus < 0)
        rm.gpus = 0;
    return rm;
}

/* Every bound of candidate cd given usage and this session's charges.
 * The borrow limit applies only to real sponsors (not the shadow list). */
room_t jt_cover_room (const jt_coverer_t *c, const jt_cover_cand_t *cd,
                      bool borrowing)
{
    const jt_envelope_t *e = cd->env;
    size_t id = e->id;
    int64_t ch = c->charged[id];
    room_t rm = room_own (c, cd);

    if (rm.kind == B_WINDOW)
        return rm;
    for (size_t k = 0; k < c->b->ncaps; k++) {
        const jt_aggcap_t *a = c->b->caps[k];
        bool member = false;
        for (size_t j = 0; j < a->nenvelopes && !member; j++)
            member = a->env_ids && a->env_ids[j] == id;
        if (!member)
            continue;
        int64_t sact = 0;
        double sused = 0.;
        for (size_t j = 0; j < a->nenvelopes; j++) {
            size_t x = a->env_ids[j];
            if (x >= c->b->nenv)
                continue;
            sact += u_active (c, x) + c->charged[x];
            sused += u_hours (c, x) + (double) c->charged[x] * c->hpg;
        }
        room_min (&rm, a->max_concurrency - sact, B_CAP_CONC, a,
                  (double) sact, (double) a->max_concurrency);
        if (a->max_gpu_hours >= 0.)
            room_min (&rm, hours_to_gpus (c, a->max_gpu_hours - sused),
                      B_CAP_HOURS, a, sused, a->max_gpu_hours);
    }

    if (cd->source == JT_SRC_SPONSOR) {
        const jt_lending_t *l = &e->lending;
        if (l->max_concurrency != JT_UNSET) {
            int64_t lent = u_borrowed_active (c, id) + ch;
            room_min (&rm, l->max_concurrency - lent, B_LEND_CONC, NULL,
                      (double) lent, (double) l->max_concurrency);
        }
        if (l->max_gpu_hours >= 0.) {
            double lh = u_borrowed_hours (c, id) + (double) ch * c->hpg;
            room_min (&rm, hours_to_gpus (c, l->max_gpu_hours - lh),
                      B_LEND_HOURS, NULL, lh, l->max_gpu_hours);
        }
        if (borrowing && c->r->max_borrow_gpus != JT_UNSET)
            room_min (&rm, c->r->max_borrow_gpus - c->borrowed, B_BORROW, NULL,
                      (double) c->borrowed, (double) c->r->max_borrow_gpus);
    }
    if (rm.gpus < 0)
        rm.gpus = 0;
    return rm;
}

jt_reason_t jt_cover_kind_reason (enum bound_kind k)
{
    switch (k) {
    case B_WINDOW:
        return JT_WINDOW_CLOSED;
    case B_CONC:
        return JT_INSUFFICIENT_CAPACITY;
    case B_HOURS:
        return JT_GPU_HOURS_EXHAUSTED;
    case B_CAP_CONC:
    case B_CAP_HOURS:
        return JT_AGGREGATE_CAP;
    case B_LEND_CONC:
    case B_LEND_HOURS:
        return JT_LENDING_CAP;
    case B_BORROW:
        return JT_BORROW_LIMIT;
    case B_NONE:
        break;
    }
    return JT_OK;
}

int64_t jt_coverer_headroom (const jt_coverer_t *c, size_t i, jt_reason_t *why)
{
    if (!c || i >= c->ncand) {
        if (why)
            *why = JT_NO_MATCHING_ENVELOPE;
        return 0;
    }
    room_t rm = jt_cover_room (c, &c->cand[i], true);
    if (why)
        *why = rm.gpus > 0 ? JT_OK : jt_cover_kind_reason (rm.kind);
    return rm.gpus;
}

jt_reason_t jt_coverer_bound (const jt_coverer_t *c, size_t i)
{
    if (!c || i >= c->ncand)
        return JT_NO_MATCHING_ENVELOPE;
    return jt_cover_kind_reason (jt_cover_room (c, &c->cand[i], true).kind);
}

const jt_aggcap_t *jt_coverer_cap_binding (const jt_coverer_t *c, size_t i)
{
    if (!c || i >= c->ncand)
        return NULL;
    room_t rm = jt_cover_room (c, &c->cand[i], true);
    return rm.kind == B_CAP_CONC ? rm.cap : NULL;
}

int jt_coverer_charge (jt_coverer_t *c, size_t i, int64_t gpus)
{
    if (!c || i >= c->ncand || gpus < 0)
        return -1;
    if (jt_coverer_headroom (c, i, NULL) < gpus) {
        c->need = gpus;
        return -1;
    }
    c->charged[c->cand[i].env->id] += gpus;
    c->funded += gpus;
    if (c->cand[i].source == JT_SRC_SPONSOR)
        c->borrowed += gpus;
    return 0;
}

void jt_coverer_set_demand (jt_coverer_t *c, int64_t gpus)
{
    if (c && gpus > 0)
        c->demand = gpus;
}

ssize_t jt_coverer_fund (jt_coverer_t *c, int64_t gpus)
{
    if (!c)
        return -1;
    for (size_t i = 0; i < c->ncand; i++) {
        if (jt_coverer_headroom (c, i, NULL) >= gpus) {
            jt_coverer_charge (c, i, gpus);
            return (ssize_t) i;
        }
    }
    c->need = gpus;
    return -1;
}

bool jt_cover_soft_splits (const jt_run_t *r, const jt_groups_t *g)
{
    /* where its chunks may lie (anywhere, one domain, one class) is Plan's
     * question; who pays is owner first by whole nodes in every case */
    return r && g && g->soft;
}

int64_t jt_coverer_soft_share (const jt_coverer_t *c, size_t i, int64_t rem,
                               int64_t unit)
{
    int64_t h = jt_coverer_headroom (c, i, NULL);

    if (rem <= 0)
        return 0;
    if (h >= rem)
        return rem;
    if (unit < 1)
        unit = 1;
    return h / unit * unit;
}

int jt_coverer_fund_group (jt_coverer_t *c, const jt_groups_t *g, size_t k,
                           jt_cover_seg_t **segs, size_t *nsegs)
{
    if (!c || !g || k >= g->n)
        return 0;
    int64_t need = g->gpus[k];
    if (!jt_cover_soft_splits (c->r, g)) {
        ssize_t i = jt_coverer_fund (c, need);
        if (i < 0)
            return 0;
        if (segs && jt_cover_seg_append (segs, nsegs, &c->cand[i], k, need) < 0)
            return -1;
        return 1;
    }
    int64_t rem = need;
    for (size_t i = 0; i < c->ncand && rem > 0; i++) {
        int64_t share = jt_coverer_soft_share (c, i, rem, g->unit);
        if (share <= 0)
            continue;
        if (jt_coverer_charge (c, i, share) < 0)
            continue;           /* cannot happen: share <= headroom */
        if (segs && jt_cover_seg_append (segs, nsegs, &c->cand[i], k, share) < 0)
            return -1;
        rem -= share;
    }
    if (rem > 0) {
        c->need = rem;
        return 0;
    }
    return 1;
}

/* ---- Cover alone ---- */

void jt_cover_free (jt_cover_t *c)
{
    if (!c)
        return;
    free (c->segs);
    c->segs = NULL;
    c->nsegs = 0;
}

int jt_cover_seg_append (jt_cover_seg_t **segs, size_t *nsegs,
                         const jt_cover_cand_t *cd, size_t group, int64_t gpus)
{
    if (*nsegs > 0) {
        jt_cover_seg_t *last = &(*segs)[*nsegs - 1];
        if (last->env == cd->env && last->first_group + last->ngroups == group) {
            last->ngroups++;
            last->gpus += gpus;
            return 0;
        }
    }
    jt_cover_seg_t *nv = realloc (*segs, (*nsegs + 1) * sizeof (*nv));
    if (!nv)
        return -1;
    *segs = nv;
    nv[*nsegs] = (jt_cover_seg_t){ .env = cd->env, .source = cd->source,
                                   .first_group = group, .ngroups = 1,
                                   .gpus = gpus };
    (*nsegs)++;
    return 0;
}

int jt_cover (const jt_budgets_t *b, const jt_usage_t *u, const jt_run_t *r,
              const jt_groups_t *g, int64_t now, jt_cover_t *out,
              jt_error_t *err)
{
    jt_coverer_t *c;

    if (!out || !g)
        return jt_errprintf (err, "cover: groups and output are required");
    memset (out, 0, sizeof (*out));
    if (!(c = jt_coverer_create (b, u, r, now, err)))
        return -1;
    int64_t total = 0;
    for (size_t k = 0; k < g->n; k++)
        total += g->gpus[k];
    jt_coverer_set_demand (c, total);
    for (size_t k = 0; k < g->n; k++) {
        int rc = jt_coverer_fund_group (c, g, k, &out->segs, &out->nsegs);
        out->funded_gpus = c->funded;
        out->borrowed_gpus = c->borrowed;
        if (rc < 0) {
            jt_coverer_destroy (c);
            jt_cover_free (out);
            return jt_errprintf (err, "cover: out of memory");
        }
        if (rc == 0) {
            out->reason = jt_coverer_why (c, out->detail, sizeof (out->detail));
            if (out->reason == JT_OK)   /* cannot happen; keep it a failure */
                out->reason = JT_INSUFFICIENT_CAPACITY;
            jt_coverer_destroy (c);
            return 1;
        }
    }
    out->reason = JT_OK;
    jt_coverer_destroy (c);
    return 0;
}
