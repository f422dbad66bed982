/*
 * cover_why.c - why Cover cannot fund a run: the most specific reason and a
 * one-line detail (jt_coverer_why), and whether it could ever be funded
 * (jt_cover_ever, the job_submit admission test). See docs/cover.md.
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

#include "jobtree/timeutil.h"
#include "cover_int.h"

/* The run's whole demand in this session: at least what was charged plus
 * the group that failed. */
static int64_t demand (const jt_coverer_t *c, int64_t need)
{
    int64_t t = c->funded + need;
    return c->demand > t ? c->demand : t;
}

/* GPUs this session charged inside bound rm of candidate cd: its used
 * figure counts them, and the run needs them of it. */
static int64_t charged_inside (const jt_coverer_t *c, const jt_cover_cand_t *cd,
                               const room_t *rm)
{
    int64_t in = 0;

    switch (rm->kind) {
    case B_CAP_CONC:
    case B_CAP_HOURS:
        for (size_t j = 0; j < rm->cap->nenvelopes; j++)
            if (rm->cap->env_ids && rm->cap->env_ids[j] < c->b->nenv)
                in += c->charged[rm->cap->env_ids[j]];
        break;
    case B_BORROW:
        in = c->borrowed;
        break;
    default:
        in = c->charged[cd->env->id];
        break;
    }
    return in;
}

/* One line naming the envelope or cap and the numbers: its usage without
 * this session's charges, and what the run needs of it (its demand less
 * what is paid elsewhere), whichever of its groups failed. */
static void room_detail (const jt_coverer_t *c, const jt_cover_cand_t *cd,
                         const room_t *rm, int64_t need, char *buf, size_t len)
{
    const char *en = cd->env->name;
    int64_t in = charged_inside (c, cd, rm), total = demand (c, need);
    int64_t elsewhere = c->funded - in, n = total - elsewhere;
    double gpus_used = rm->used - (double) in;
    double hours_used = rm->used - (double) in * c->hpg;
    double nh = (double) n * c->hpg;
    char s[32] = "", e[32] = "", t[32] = "";

    if (!buf || len == 0)
        return;
    switch (rm->kind) {
    case B_WINDOW:
        jt_time_format (cd->env->start, s, sizeof (s));
        jt_time_format (cd->env->end, e, sizeof (e));
        jt_time_format (c->now, t, sizeof (t));
        snprintf (buf, len, "envelope %s: window [%s, %s) is not open at %s",
                  en, s, e, t);
        return;
    case B_CONC:
        snprintf (buf, len, "envelope %s: %.0f of %.0f GPUs active, run needs"
                  " %lld", en, gpus_used, rm->limit, (long long) n);
        break;
    case B_HOURS:
        snprintf (buf, len, "envelope %s: %.1f of %.1f GPU-hours used, %lld"
                  " GPUs for the time limit need %.1f", en, hours_used,
                  rm->limit, (long long) n, nh);
        break;
    case B_CAP_CONC:
        snprintf (buf, len, "aggregate cap %s: %.0f of %.0f GPUs active, run"
                  " needs %lld", rm->cap->name, gpus_used, rm->limit,
                  (long long) n);
        break;
    case B_CAP_HOURS:
        snprintf (buf, len, "aggregate cap %s: %.1f of %.1f GPU-hours used,"
                  " run needs %.1f", rm->cap->name, hours_used, rm->limit, nh);
        break;
    case B_LEND_CONC:
        snprintf (buf, len, "envelope %s lends at most %.0f GPUs: %.0f lent,"
                  " run needs %lld", en, rm->limit, gpus_used, (long long) n);
        break;
    case B_LEND_HOURS:
        snprintf (buf, len, "envelope %s lends at most %.1f GPU-hours: %.1f"
                  " lent, run needs %.1f", en, rm->limit, hours_used, nh);
        break;
    case B_BORROW:
        snprintf (buf, len, "maxBorrowGPUs %.0f: run needs to borrow %lld"
                  " (envelope %s)", rm->limit, (long long) n, en);
        break;
    case B_NONE:
        snprintf (buf, len, "envelope %s: no bound", en);
        return;
    }
    if (elsewhere > 0) {
        size_t l = strlen (buf);
        snprintf (buf + l, len - l, "; of its %lld GPUs, %lld are paid"
                  " elsewhere", (long long) total, (long long) elsewhere);
    }
}

/* An envelope of the run's flavor a run that borrows might look to but
 * may not borrow from: one of a sponsor it lists (in its order), else one
 * that lends to other owners; never the family's. NULL when there is none
 * or the run does not borrow; *more counts the others. */
static const jt_envelope_t *non_lender (const jt_coverer_t *c, size_t *more)
{
    const jt_budgets_t *b = c->b;
    const jt_run_t *r = c->r;
    const jt_envelope_t *first = NULL;

    *more = 0;
    if (!r->allow_borrow)
        return NULL;
    for (size_t pass = 0; pass < 2; pass++) {
        size_t n = pass == 0 ? r->nsponsors : b->n;
        for (size_t i = 0; i < n; i++) {
            const jt_budget_t *sp = pass == 0
                                    ? jt_budgets_owner (b, r->sponsors[i])
                                    : &b->v[i];
            bool listed = false;
            if (!sp)
                continue;
            for (size_t j = 0; j < r->nsponsors && !listed; j++)
                listed = (pass == 0 ? j < i : true)
                         && !strcmp (r->sponsors[j], sp->owner);
            if (listed)
                continue;       /* met before */
            for (size_t k = 0; k < sp->nenv; k++) {
                const jt_envelope_t *e = &sp->env[k];
                jt_source_t src;
                if (!jt_cover_flavor_is (e, r->flavor)
                    || (pass == 1 && !e->lending.allow)
                    || jt_cover_source_of (b, r->owner, e, &src) != 0)
                    continue;   /* family, lends to the owner, or ENOMEM */
                if (!first)
                    first = e;
                else
                    (*more)++;
            }
        }
    }
    return first;
}

/* "sponsor E does not lend to O (lends to: P, Q)". */
static void non_lender_detail (const jt_coverer_t *c, const jt_envelope_t *e,
                               size_t more, char *buf, size_t len)
{
    const jt_lending_t *l = &e->lending;
    size_t n;

    snprintf (buf, len, "sponsor %s does not lend to %s (%s", e->name,
              c->r->owner, l->allow ? "lends to: " : "lending off");
    for (size_t i = 0; l->allow && i < l->nto; i++) {
        n = strlen (buf);
        snprintf (buf + n, len - n, "%s%s", i ? ", " : "", l->to[i]);
    }
    n = strlen (buf);
    snprintf (buf + n, len - n, ")");
    n = strlen (buf);
    if (more > 0)
        snprintf (buf + n, len - n, ", nor do %zu other envelopes of %s",
                  more, c->r->flavor);
}

jt_reason_t jt_coverer_why_cand (const jt_coverer_t *c, size_t i, int64_t gpus,
                                 char *detail, size_t len)
{
    if (detail && len)
        detail[0] = '\0';
    if (!c || i >= c->ncand)
        return JT_NO_MATCHING_ENVELOPE;
    room_t rm = jt_cover_room (c, &c->cand[i], true);
    if (rm.gpus >= gpus)
        return JT_OK;
    room_detail (c, &c->cand[i], &rm, gpus, detail, len);
    return jt_cover_kind_reason (rm.kind);
}

static bool any_envelope_of_flavor (const jt_budgets_t *b, const char *flavor)
{
    for (size_t i = 0; i < b->nenv; i++)
        if (jt_cover_flavor_is (b->env[i], flavor))
            return true;
    return false;
}

jt_reason_t jt_coverer_why_gpus (const jt_coverer_t *c, int64_t need,
                                 char *detail, size_t len)
{
    char dummy[1];

    if (!detail || len == 0) {
        detail = dummy;
        len = sizeof (dummy);
    }
    detail[0] = '\0';
    if (!c)
        return JT_INVALID_RUN;
    const char *owner = c->r->owner, *flavor = c->r->flavor;
    if (!c->has_budget) {
        snprintf (detail, len, "owner %s has no budget file", owner);
        return JT_NO_BUDGET;
    }
    if (c->ncand == 0 && c->nshadow == 0) {
        if (!any_envelope_of_flavor (c->b, flavor)) {
            snprintf (detail, len, "no envelope of any owner has flavor %s",
                      flavor);
            return JT_UNKNOWN_FLAVOR;
        }
        snprintf (detail, len, "no envelope of flavor %s for %s, its family"
                  " or a sponsor lending to it", flavor, owner);
        size_t more, l = strlen (detail);
        const jt_envelope_t *nl = non_lender (c, &more);
        if (nl && l + 2 < len) {
            snprintf (detail + l, len - l, ": ");
            non_lender_detail (c, nl, more, detail + l + 2, len - l - 2);
        }
        return JT_NO_MATCHING_ENVELOPE;
    }
    ssize_t best = -1;
    room_t brm = { 0, B_NONE, NULL, 0., 0. };
    for (size_t i = 0; i < c->ncand; i++) {
        room_t rm = jt_cover_room (c, &c->cand[i], true);
        if (rm.kind == B_WINDOW)
            continue;
        if (rm.gpus >= need)
            return JT_OK;
        /* Ties go to the later candidate: the furthest Cover got. */
        if (best < 0 || rm.gpus >= brm.gpus) {
            best = (ssize_t) i;
            brm = rm;
        }
    }
    /* A sponsor that could pay the rest of the run if it allowed borrowing. */
    int64_t rest = demand (c, need) - c->funded;
    ssize_t sponsor = -1;
    for (size_t i = 0; i < c->nshadow && sponsor < 0; i++) {
        room_t rm = jt_cover_room (c, &c->shadow[i], false);
        if (rm.kind != B_WINDOW && rm.gpus >= rest)
            sponsor = (ssize_t) i;
    }
    if (c->ncand == 0 && sponsor >= 0) {
        snprintf (detail, len, "borrowing is off: sponsor envelope %s (%s)"
                  " could pay %lld GPUs", c->shadow[sponsor].env->name,
                  c->shadow[sponsor].env->owner, (long long) rest);
        return JT_BORROW_LIMIT;
    }
    if (c->ncand == 0) {
        snprintf (detail, len, "only sponsors lend %s to %s (first %s) and the"
                  " run does not allow borrowing", flavor, owner,
                  c->shadow[0].env->name);
        return JT_BORROW_LIMIT;
    }
    /* The bound that stops the run is the owner's (or its family's) own;
     * a sponsor that could pay is a hint after it. */
    jt_reason_t why;
    if (best < 0) {
        room_t rm = jt_cover_room (c, &c->cand[0], true);
        room_detail (c, &c->cand[0], &rm, need, detail, len);
        why = JT_WINDOW_CLOSED;
    } else {
        room_detail (c, &c->cand[best], &brm, need, detail, len);
        why = jt_cover_kind_reason (brm.kind);
    }
    if (sponsor >= 0) {
        size_t l = strlen (detail);
        snprintf (detail + l, len - l, "; sponsor envelope %s (%s) could pay"
                  " %lld GPUs if the run allowed borrowing",
                  c->shadow[sponsor].env->name, c->shadow[sponsor].env->owner,
                  (long long) rest);
    }
    return why;
}

jt_reason_t jt_coverer_why (const jt_coverer_t *c, char *detail, size_t len)
{
    return jt_coverer_why_gpus (c, c && c->need > 0 ? c->need : 1, detail,
                                len);
}

/* ---- could it ever be funded ---- */

/* The bound of room rm of candidate envelope e, for a never-fundable
 * line: "concurrency", "aggregate cap C", "lending.maxConcurrency 16 of
 * sponsor E", "maxBorrowGPUs 16", ... */
static void bound_name (const room_t *rm, const jt_envelope_t *e, char *buf,
                        size_t len)
{
    switch (rm->kind) {
    case B_CONC:
        snprintf (buf, len, "concurrency");
        break;
    case B_HOURS:
        snprintf (buf, len, "GPU-hours for its time limit");
        break;
    case B_CAP_CONC:
    case B_CAP_HOURS:
        snprintf (buf, len, "aggregate cap %s", rm->cap->name);
        break;
    case B_LEND_CONC:
        snprintf (buf, len, "lending.maxConcurrency %.0f of sponsor %s",
                  rm->limit, e->name);
        break;
    case B_LEND_HOURS:
        snprintf (buf, len, "lending.maxGPUHours %.1f of sponsor %s",
                  rm->limit, e->name);
        break;
    case B_BORROW:
        snprintf (buf, len, "maxBorrowGPUs %.0f", rm->limit);
        break;
    default:
        snprintf (buf, len, "bounds");
        break;
    }
}

/* A bound shared by several envelopes or runs' borrowing, not the
 * envelope's own: an aggregate cap, a sponsor's lending caps, the run's
 * maxBorrowGPUs. */
static bool kind_shared (enum bound_kind k)
{
    return k == B_CAP_CONC || k == B_CAP_HOURS || k == B_LEND_CONC
           || k == B_LEND_HOURS || k == B_BORROW;
}

/* Fund all groups with no usage at time t. 1 funded, 0 not, -1 ENOMEM. */
static int fundable_at (const jt_budgets_t *b, const jt_run_t *r,
                        const jt_groups_t *g, int64_t t)
{
    jt_coverer_t *c = jt_coverer_create (b, NULL, r, t, NULL);

    if (!c)
        return -1;
    for (size_t k = 0; k < g->n; k++) {
        int rc = jt_coverer_fund_group (c, g, k, NULL, NULL);
        if (rc <= 0) {
            jt_coverer_destroy (c);
            return rc;
        }
    }
    jt_coverer_destroy (c);
    return 1;
}

/* ---- never: what keeps the candidates from funding the run together ---- */

/* Forget this session's charges. */
static void uncharge (jt_coverer_t *c)
{
    memset (c->charged, 0, (c->b->nenv + 1) * sizeof (*c->charged));
    c->funded = c->borrowed = c->need = 0;
}

/* Fund as much of `total` as the candidates can at c->now, as Cover pays
 * a run: a soft group that splits owner first, in whole pieces of `unit`
 * GPUs (jt_coverer_soft_share); else whole groups of `unit` GPUs, each by
 * the first candidate with room for it, then the short last group (total
 * % unit). The charges stay in c. Returns the GPUs funded. Work: the
 * candidates, twice. */
static int64_t fund_most (jt_coverer_t *c, int64_t total, int64_t unit,
                          bool split)
{
    int64_t left = total;

    uncharge (c);
    if (unit < 1)
        unit = 1;
    if (split) {
        for (size_t i = 0; i < c->ncand && left > 0; i++) {
            int64_t share = jt_coverer_soft_share (c, i, left, unit);
            if (share > 0 && jt_coverer_charge (c, i, share) == 0)
                left -= share;
        }
        return total - left;
    }
    int64_t groups = total / unit, last = total % unit;
    for (size_t i = 0; i < c->ncand && groups > 0; i++) {
        int64_t k = jt_coverer_headroom (c, i, NULL) / unit;
        if (k > groups)
            k = groups;
        if (k > 0 && jt_coverer_charge (c, i, k * unit) == 0)
            groups -= k;
    }
    for (size_t i = 0; i < c->ncand && last > 0; i++)
        if (jt_coverer_headroom (c, i, NULL) >= last
            && jt_coverer_charge (c, i, last) == 0)
            last = 0;
    return total - groups * unit - last;
}

/* fund_most at the instant, among now and the candidates' later window
 * openings, at which it funds the most (the earliest of those); c is left
 * at that instant with its charges. */
static int64_t fund_most_ever (jt_coverer_t *c, int64_t now, int64_t total,
                               int64_t unit, bool split)
{
    int64_t best = -1, best_t = now;

    for (size_t i = 0; i < c->ncand; i++) {
        const jt_envelope_t *e = c->cand[i].env;
        if (e->end <= now)
            continue;
        c->now = e->start > now ? e->start : now;
        int64_t f = fund_most (c, total, unit, split);
        if (f > best || (f == best && c->now < best_t)) {
            best = f;
            best_t = c->now;
        }
    }
    c->now = best_t;
    return fund_most (c, total, unit, split);
}

/* After fund_most: the first candidate, in Cover's order, that a shared
 * bound (kind_shared) keeps from paying the next piece of `piece` GPUs
 * although its own bounds have room for it; *rm is that bound. -1 when
 * none does: the envelopes themselves are too small. */
static ssize_t shared_blocker (const jt_coverer_t *c, int64_t piece,
                               room_t *rm)
{
    for (size_t i = 0; i < c->ncand; i++) {
        room_t r = jt_cover_room (c, &c->cand[i], true);
        if (!kind_shared (r.kind) || r.gpus >= piece
            || jt_cover_room_own (c, &c->cand[i]).gpus < piece)
            continue;
        *rm = r;
        return (ssize_t) i;
    }
    return -1;
}

/* "aggregate cap C allows 24 of the 40 GPUs": what the shared bound rm of
 * candidate i lets the run have of what the other candidates leave to it
 * (the charges of fund_most), and what those fund. */
static void blocker_detail (const jt_coverer_t *c, size_t i, const room_t *rm,
                            int64_t total, int64_t funded, char *buf,
                            size_t len)
{
    const jt_cover_cand_t *cd = &c->cand[i];
    long long a = (long long) charged_inside (c, cd, rm);
    long long others = (long long) funded - a;
    long long n = (long long) total - others;
    size_t l;

    switch (rm->kind) {
    case B_CAP_CONC:
        snprintf (buf, len, "aggregate cap %s allows %lld of the %lld GPUs",
                  rm->cap->name, a, n);
        l = strlen (buf);
        if (a != (long long) rm->limit)
            snprintf (buf + l, len - l, " (maxConcurrency %.0f)", rm->limit);
        break;
    case B_CAP_HOURS:
        snprintf (buf, len, "aggregate cap %s allows %lld of the %lld GPUs for"
                  " the run's time limit (maxGPUHours %.1f)", rm->cap->name,
                  a, n, rm->limit);
        break;
    case B_LEND_CONC:
        snprintf (buf, len, "lending.maxConcurrency %.0f of sponsor %s allows"
                  " %lld of the %lld GPUs", rm->limit, cd->env->name, a, n);
        break;
    case B_LEND_HOURS:
        snprintf (buf, len, "lending.maxGPUHours %.1f of sponsor %s allows"
                  " %lld of the %lld GPUs for the run's time limit", rm->limit,
                  cd->env->name, a, n);
        break;
    case B_BORROW:
        snprintf (buf, len, "maxBorrowGPUs %.0f of the run allows %lld of the"
                  " %lld GPUs", rm->limit, a, n);
        break;
    default:
        return;
    }
    l = strlen (buf);
    if (others > 0)
        snprintf (buf + l, len - l, "; the other candidates fund %lld of the"
                  " run's %lld", others, (long long) total);
}

/* Never, though no piece of the run is larger than what one candidate can
 * fund: the candidates together fall short. Name what stops them: a shared
 * bound, else a sponsor that does not lend to the owner, else the sum
 * (with borrowing off while a sponsor lends, that too). */
static void never_together (jt_coverer_t *c, int64_t now, int64_t total,
                            int64_t unit, bool split, size_t ngroups,
                            int64_t gpn, char *detail, size_t len)
{
    int64_t funded = fund_most_ever (c, now, total, unit, split);
    int64_t piece = total - funded < unit ? total - funded : unit;
    const jt_envelope_t *nl;
    room_t rm;
    ssize_t i = shared_blocker (c, piece > 0 ? piece : 1, &rm);
    size_t more, l;

    if (i >= 0) {
        blocker_detail (c, (size_t) i, &rm, total, funded, detail, len);
        return;
    }
    if ((nl = non_lender (c, &more))) {
        non_lender_detail (c, nl, more, detail, len);
        l = strlen (detail);
        snprintf (detail + l, len - l, "; the candidates fund %lld of the"
                  " run's %lld", (long long) funded, (long long) total);
        return;
    }
    if (split)
        snprintf (detail, len, "%lld GPUs exceed what the candidate envelopes"
                  " can fund together by whole nodes%s", (long long) total,
                  gpn > 0 ? "" : " (GPUs per node unknown)");
    else
        snprintf (detail, len, "%lld GPUs in %zu groups exceed what the"
                  " candidate envelopes can fund together", (long long) total,
                  ngroups);
    if (c->nshadow > 0) {
        l = strlen (detail);
        snprintf (detail + l, len - l, "; the run does not allow borrowing:"
                  " sponsor envelope %s (%s) lends to %s",
                  c->shadow[0].env->name, c->shadow[0].env->owner,
                  c->r->owner);
    }
}

jt_reason_t jt_cover_ever (const jt_budgets_t *b, const jt_run_t *r,
                           int64_t now, char *detail, size_t len)
{
    return jt_cover_ever_gpn (b, r, now, 0, detail, len);
}

jt_reason_t jt_cover_ever_gpn (const jt_budgets_t *b, const jt_run_t *r,
                               int64_t now, int64_t gpn, char *detail,
                               size_t len)
{
    char dummy[1];
    jt_error_t err;
    jt_groups_t g = { NULL, 0, false, 0 };
    jt_coverer_t *c = NULL;
    jt_reason_t why = JT_OK;

    if (!detail || len == 0) {
        detail = dummy;
        len = sizeof (dummy);
    }
    detail[0] = '\0';
    if (!(c = jt_coverer_create (b, NULL, r, now, &err))) {
        snprintf (detail, len, "%s", err.text);
        return JT_INVALID_RUN;
    }
    if (!c->has_budget || c->ncand == 0) {
        why = jt_coverer_why_gpus (c, 1, detail, len);
        if (why == JT_BORROW_LIMIT) {
            why = JT_NO_MATCHING_ENVELOPE;
            snprintf (detail, len, "only sponsors lend %s to %s and the run"
                      " does not allow borrowing", r->flavor, r->owner);
        }
        goto done;
    }
    int64_t total = r->malleable ? r->min_gpus : r->total_gpus;
    int64_t gg = r->group_gpus > 0 && r->group_gpus < total ? r->group_gpus
                                                            : total;
    size_t ngroups = gg > 0 ? (size_t) ((total + gg - 1) / gg) : 1;
    /* A soft group that splits is paid by whole nodes: a node is the
     * largest piece one envelope must hold (gpn unknown: a GPU). */
    jt_groups_t shape = { NULL, 1, r->group_gpus <= 0, 0 };
    bool split = jt_cover_soft_splits (r, &shape);
    if (gpn < 1 || gpn > JT_RUN_GPUS_MAX)
        gpn = 0;
    if (split)
        gg = gpn > 0 ? (gpn < total ? gpn : total) : 1;

    /* Idle, each candidate funds at most its room at its earliest open
     * time; when the total is over their sum, it never fits (and need not
     * be compiled: a 2^31-GPU run would take gigabytes). */
    room_t best = { -1, B_NONE, NULL, 0., 0. };
    const jt_envelope_t *best_env = NULL;
    int64_t sum = 0;
    bool any_future = false;
    for (size_t i = 0; i < c->ncand; i++) {
        const jt_envelope_t *e = c->cand[i].env;
        if (e->end <= now)
            continue;
        any_future = true;
        c->now = e->start > now ? e->start : now;
        room_t rm = jt_cover_room (c, &c->cand[i], true);
        /* on a tie a shared bound is the one to name: the envelope's own
         * concurrency is not what stops it */
        if (rm.gpus > best.gpus
            || (rm.gpus == best.gpus && !kind_shared (best.kind)
                && kind_shared (rm.kind))) {
            best = rm;
            best_env = e;
        }
        sum = rm.gpus > INT64_MAX - sum ? INT64_MAX : sum + rm.gpus;
    }
    c->now = now;
    if (any_future && total > sum)
        goto never;
    if (any_future && jt_run_compile (r, total, &g, &err) < 0) {
        snprintf (detail, len, "%s", err.text);
        why = JT_INVALID_RUN;
        goto done;
    }
    g.unit = gpn;
    /* Funding only changes when a window opens: try now and each later start. */
    for (size_t i = 0; i < c->ncand; i++) {
        const jt_envelope_t *e = c->cand[i].env;
        if (e->end <= now)
            continue;
        int rc = fundable_at (b, r, &g, e->start > now ? e->start : now);
        if (rc != 0) {
            why = rc > 0 ? JT_OK : JT_INVALID_RUN;
            if (rc < 0)
                snprintf (detail, len, "out of memory");
            goto done;
        }
    }
    if (!any_future) {
        const jt_envelope_t *last = c->cand[0].env;
        for (size_t i = 1; i < c->ncand; i++)
            if (c->cand[i].env->end > last->end)
                last = c->cand[i].env;
        char t[32] = "";
        jt_time_format (last->end, t, sizeof (t));
        snprintf (detail, len, "every candidate envelope's window has ended"
                  " (latest: %s ended %s)", last->name, t);
        why = JT_WINDOW_CLOSED;
        goto done;
    }
never:
    /* Never: say which bound is too small for the largest group (the first:
     * the short last group is never the largest), or what keeps the
     * candidates from funding the run together. */
    why = JT_NEVER_FUNDABLE;
    int64_t largest = gg;
    char bn[128] = "";
    if (best_env)
        bound_name (&best, best_env, bn, sizeof (bn));
    if (split && largest > best.gpus)
        snprintf (detail, len, "one node of %lld GPUs > %lld GPUs any"
                  " candidate can fund (%s)", (long long) largest,
                  (long long) best.gpus, bn);
    else if (largest > best.gpus && best.kind == B_CONC)
        snprintf (detail, len, "largest group %lld GPUs > concurrency %lld of"
                  " every candidate", (long long) largest, (long long) best.gpus);
    else if (largest > best.gpus)
        snprintf (detail, len, "largest group %lld GPUs > %lld GPUs any"
                  " candidate can fund (%s)", (long long) largest,
                  (long long) best.gpus, bn);
    else
        never_together (c, now, total, gg, split, ngroups, gpn, detail, len);
done:
    jt_groups_free (&g);
    jt_coverer_destroy (c);
    return why;
}
