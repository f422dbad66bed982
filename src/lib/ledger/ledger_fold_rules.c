/*
 * ledger_fold_rules.c - who pays, proven from the ledger: Cover's rules on
 * every lease interval of `jobtree verify` (docs/ledger-format.md, section
 * 5), against the budget content each BudgetLoaded records.
 *
 * DESIGN: the rules are the library's own, never a second copy: which
 * envelopes may pay for an owner and in which role is jt_cover_source_of
 * (cover.c: the owner's family in Cover's order, else a sponsor whose
 * lending ACL admits the owner, jt_envelope_lends_to); the caps are the
 * budget set's (jt_budgets_t), parsed by the budget reader. Two kinds of
 * rule:
 *
 *  - who may pay, decided when a lease starts: against the content of the
 *    epoch in force at its start (the last BudgetLoaded by (time, seq) at or
 *    before it, else the first), the lease's envelope is in the budgets
 *    (`payer`), Cover lists it for the lease's owner (`payer`: family or
 *    lending ACL), and the role is the one Cover gives it (`role`: Borrowed
 *    exactly when the payer is a sponsor; Spare either way). Blame: the
 *    lease's Start, or the BudgetLoaded if later. Per (content, owner,
 *    envelope) the answer is computed once. jobtree-ledgerd asks the same
 *    rule of a Start as it is appended (jt_ledger_check_payer), when the
 *    latest BudgetLoaded it holds is the one in force at the lease's start.
 *  - caps that hold at every instant, like an envelope's C and B: each
 *    aggregate cap (its members' GPUs active and GPU-hours used) and each
 *    lending cap (an envelope's Borrowed GPUs and GPU-hours). They are
 *    turned into "pools", each an envelope-like counter with its own
 *    intervals (copies of its members' lease intervals) and caps per epoch,
 *    and checked by ledger_fold_time.c's sweep. A pool is an aggregate cap's
 *    name with its exact member list (a reload that changes the members
 *    makes another pool, so usage is always summed over the members in
 *    force), or an envelope's lending. An epoch with no content caps no
 *    pool: nothing is checked while it is in force.
 *
 * Leases that start under an epoch with no content (a BudgetLoaded of the
 * previous format, or over JT_EV_BUDGETS_MAX) are counted, not checked.
 *
 * Cost: O(leases) map lookups for the payers (Cover's answer computed once
 * per content, owner and envelope), and for the caps O(c log c) where c is
 * the number of (lease, pool containing its envelope) pairs: a lease is
 * copied into every pool its envelope was ever a member of, which a real
 * ledger keeps to a handful; a forged one with many distinct member lists
 * around one envelope costs verify time in proportion (verify only; the
 * plugin's fold never checks rules).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/cover.h"
#include "jobtree/ledger.h"
#include "jobtree/map.h"
#include "ledger_fold_times.h"
#include "util/grow.h"

static uint64_t max64 (uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* The epoch in force at x among sorted epochs: the last with time <= x,
 * else the first. */
static size_t epoch_at (const jt_fold_epoch_t *ep, size_t nep, int64_t x)
{
    return jt_fold_last_at (ep, sizeof (*ep), offsetof (jt_fold_epoch_t, time), 0, nep, x);
}

/* ---- who may pay, at each lease's start ---- */

enum { ANS_NOENV = 1, ANS_NOOWNER, ANS_NOTLISTED, ANS_SOURCE /* + jt_source_t */ };

/* Cover's answer for owner and envelope under content b: ANS_*, or 0 on
 * ENOMEM. */
static uintptr_t cover_answer (const jt_budgets_t *b, const char *owner, const char *env)
{
    const jt_envelope_t *e = jt_budgets_envelope (b, env);
    jt_source_t src;
    int rc = e ? jt_cover_source_of (b, owner, e, &src) : 0;

    if (rc < 0)
        return 0;
    if (!e)
        return ANS_NOENV;
    if (!jt_budgets_owner (b, owner))
        return ANS_NOOWNER;
    if (rc == 0)
        return ANS_NOTLISTED;
    return ANS_SOURCE + (uintptr_t) src;
}

/* The rule on answer a for a lease of owner in role on env: JT_VIOL_NONE,
 * or JT_VIOL_PAYER or JT_VIOL_ROLE with why (the lease not named). */
static jt_violation_kind_t verdict (const jt_budgets_t *b, uintptr_t a, const char *owner,
                                    const char *env, jt_lease_role_t role, char *why,
                                    size_t len)
{
    if (a == ANS_NOENV) {
        snprintf (why, len, "envelope %s is not in the budgets in force at its start", env);
        return JT_VIOL_PAYER;
    }
    if (a == ANS_NOOWNER) {
        snprintf (why, len, "owner %s has no budget in the budgets in force at its start",
                  owner);
        return JT_VIOL_PAYER;
    }
    if (a == ANS_NOTLISTED) {
        snprintf (why, len, "envelope %s (owner %s) is not in %s's family and does not "
                  "lend to %s", env, jt_budgets_envelope (b, env)->owner, owner, owner);
        return JT_VIOL_PAYER;
    }
    jt_source_t src = (jt_source_t) (a - ANS_SOURCE);
    if (role == JT_ROLE_BORROWED && src != JT_SRC_SPONSOR) {
        snprintf (why, len, "Borrowed, but envelope %s is in %s's family (%s): Cover pays "
                  "it Active", env, owner, jt_source_str (src));
        return JT_VIOL_ROLE;
    }
    if (role == JT_ROLE_ACTIVE && src == JT_SRC_SPONSOR) {
        snprintf (why, len, "Active, but envelope %s is a sponsor's (owner %s) lending to "
                  "%s: Cover pays it Borrowed", env, jt_budgets_envelope (b, env)->owner,
                  owner);
        return JT_VIOL_ROLE;
    }
    return JT_VIOL_NONE;
}

int jt_ledger_check_payer (const jt_event_t *load, const jt_event_t *start,
                           jt_violation_kind_t *kind, char *why, size_t len)
{
    *kind = JT_VIOL_NONE;
    if (!load || load->type != JT_EV_BUDGET_LOADED || !load->budgets || !start
        || start->type != JT_EV_START || start->start < load->time)
        return 0; /* not knowable from this load: verify decides */
    uintptr_t a = cover_answer (load->budgets, start->owner, start->envelope);
    if (!a) {
        errno = ENOMEM;
        return -1;
    }
    *kind = verdict (load->budgets, a, start->owner, start->envelope, start->role, why,
                     len);
    return *kind != JT_VIOL_NONE;
}

/* Cover's answer for (content r, owner, envelope), cached by their
 * numbers (content, owner in names, the fold's envelope). 0 on ENOMEM. */
static uintptr_t answer (jt_map_t *cache, const jt_budgets_t *b, int r,
                         const jt_fold_ivl_t *l, const char *owner, const char *env)
{
    char key[48];
    uintptr_t a;

    snprintf (key, sizeof (key), "%d:%" PRIu32 ":%" PRIu32, r, l->owner, l->env);
    if ((a = (uintptr_t) jt_map_get (cache, key)))
        return a;
    a = cover_answer (b, owner, env);
    if (a && jt_map_put (cache, key, (void *) a, NULL) < 0)
        a = 0;
    return a;
}

static int check_payers (jt_fold_times_t *t, const jt_fold_epoch_t *ep, size_t nep,
                         const char *const *envnames, jt_violation_t *best)
{
    jt_map_t *cache = jt_map_create (0);
    char why[200];

    if (!cache)
        return -1;
    t->leases_checked = t->leases_unchecked = 0;
    for (size_t i = 0; i < t->nivl; i++) {
        const jt_fold_ivl_t *l = &t->ivl[i];
        const jt_fold_epoch_t *k = nep ? &ep[epoch_at (ep, nep, l->start)] : NULL;
        if (!k || k->rules < 0) {
            t->leases_unchecked++;
            continue;
        }
        const jt_budgets_t *b = t->rules[k->rules];
        const char *owner = t->names[l->owner], *env = envnames[l->env];
        uintptr_t a = answer (cache, b, k->rules, l, owner, env);
        if (!a) {
            jt_map_destroy (cache, NULL);
            return -1;
        }
        t->leases_checked++;
        jt_violation_kind_t kind = verdict (b, a, owner, env, l->role, why, sizeof (why));
        if (kind != JT_VIOL_NONE)
            jt_fold_found (best, kind, max64 (l->sseq, k->seq),
                           "lease %s: %s (BudgetLoaded seq %" PRIu64 ")",
                           jt_fold_ivl_lease (t, l), why,
                           k->seq);
    }
    jt_map_destroy (cache, NULL);
    return 0;
}

/* ---- aggregate and lending caps, at every instant ---- */

struct pools {
    jt_fold_times_t s;          /* intervals (lease names borrowed), epochs, caps */
    char **names;               /* pool number -> name as messages say it */
    size_t n, cap;
    jt_map_t *ids;              /* key -> 1 + pool number */
    uint32_t **members;         /* pool -> the fold's envelope numbers */
    size_t *nmembers;
    jt_map_t *envs;             /* envelope name -> 1 + the fold's number */
};

static void pools_free (struct pools *p)
{
    free (p->s.ivl);
    free (p->s.ep);
    free (p->s.caps);
    for (size_t i = 0; i < p->n; i++) {
        free (p->names[i]);
        free (p->members[i]);
    }
    free (p->names);
    free (p->members);
    free (p->nmembers);
    jt_map_destroy (p->ids, NULL);
    jt_map_destroy (p->envs, NULL);
}

/* The pool of key (made with its name and members when new): its number,
 * or -1 on ENOMEM. */
static long pool_get (struct pools *p, const char *key, const char *name,
                      char *const *members, size_t nmembers)
{
    uintptr_t id = (uintptr_t) jt_map_get (p->ids, key);
    size_t cap = p->cap;

    if (id)
        return (long) id - 1;
    if (jt_grow ((void **) &p->names, &cap, p->n + 1, sizeof (*p->names)) < 0)
        return -1;
    cap = p->cap;
    if (jt_grow ((void **) &p->members, &cap, p->n + 1, sizeof (*p->members)) < 0)
        return -1;
    cap = p->cap;
    if (jt_grow ((void **) &p->nmembers, &cap, p->n + 1, sizeof (*p->nmembers)) < 0)
        return -1;
    p->cap = cap;
    p->names[p->n] = strdup (name);
    p->members[p->n] = malloc ((nmembers ? nmembers : 1) * sizeof (uint32_t));
    p->nmembers[p->n] = 0;
    if (!p->names[p->n] || !p->members[p->n]) {
        free (p->names[p->n]);
        free (p->members[p->n]);
        return -1;
    }
    for (size_t i = 0; i < nmembers; i++) {
        uintptr_t e = (uintptr_t) jt_map_get (p->envs, members[i]);
        if (e) /* an envelope no lease named holds nothing */
            p->members[p->n][p->nmembers[p->n]++] = (uint32_t) (e - 1);
    }
    id = ++p->n;
    if (jt_map_put (p->ids, key, (void *) id, NULL) < 0)
        return -1;
    return (long) id - 1;
}

static int cap_push (struct pools *p, long pool, int64_t conc, double hours)
{
    if (pool < 0
        || jt_grow ((void **) &p->s.caps, &p->s.capcap, p->s.ncaps + 1, sizeof (*p->s.caps))
               < 0)
        return -1;
    p->s.caps[p->s.ncaps++] = (jt_fold_cap_t){ (uint32_t) pool, conc, hours, 0,
                                               JT_EV_TIME_MAX };
    return 0;
}

/* One epoch's pools: aggregate caps (lending: false) or lending caps. */
static int epoch_pools (struct pools *p, const jt_budgets_t *b, bool lending)
{
    char *key = NULL;
    int rc = -1;

    if (!b)
        return 0;
    if (!lending) {
        for (size_t i = 0; i < b->ncaps; i++) {
            const jt_aggcap_t *a = b->caps[i];
            size_t n = strlen (a->name) + 2;
            for (size_t j = 0; j < a->nenvelopes; j++)
                n += strlen (a->envelopes[j]) + 1;
            char *nk = realloc (key, n);
            if (!nk)
                goto out;
            key = nk;
            size_t o = (size_t) snprintf (key, n, "%s", a->name);
            for (size_t j = 0; j < a->nenvelopes; j++)
                o += (size_t) snprintf (key + o, n - o, "\n%s", a->envelopes[j]);
            if (cap_push (p, pool_get (p, key, a->name, a->envelopes, a->nenvelopes),
                          a->max_concurrency,
                          a->max_gpu_hours >= 0 ? a->max_gpu_hours : HUGE_VAL)
                < 0)
                goto out;
        }
    } else {
        for (size_t i = 0; i < b->nenv; i++) {
            const jt_envelope_t *e = b->env[i];
            const jt_lending_t *l = &e->lending;
            if (l->max_concurrency == JT_UNSET && l->max_gpu_hours < 0)
                continue; /* bound by C and B alone */
            if (cap_push (p, pool_get (p, e->name, e->name, &e->name, 1),
                          l->max_concurrency != JT_UNSET ? l->max_concurrency
                                                         : INT64_MAX,
                          l->max_gpu_hours >= 0 ? l->max_gpu_hours : HUGE_VAL)
                < 0)
                goto out;
        }
    }
    rc = 0;
out:
    free (key);
    return rc;
}

static int check_pools (const jt_fold_times_t *t, const char *const *envnames,
                        size_t nenv, int64_t horizon, uint64_t last_seq, bool lending,
                        jt_violation_t *best)
{
    static const jt_fold_sweep_t agg = { JT_VIOL_AGGREGATE, JT_VIOL_AGGREGATE,
                                         "aggregate cap", "maxConcurrency",
                                         "maxGPUHours" };
    static const jt_fold_sweep_t lend = { JT_VIOL_LENDING, JT_VIOL_LENDING,
                                          "lending of envelope", "maxConcurrency",
                                          "maxGPUHours" };
    struct pools p = { .s = { 0 } };
    size_t *cnt = NULL, *at = NULL, *list = NULL;
    int rc = -1;

    if (!(p.ids = jt_map_create (0)) || !(p.envs = jt_map_create (0)))
        goto out;
    for (size_t e = 0; e < nenv; e++)
        if (jt_map_put (p.envs, envnames[e], (void *) (uintptr_t) (e + 1), NULL) < 0)
            goto out;
    if (t->nep && !(p.s.ep = malloc (t->nep * sizeof (*p.s.ep))))
        goto out;
    for (size_t k = 0; k < t->nep; k++) {
        size_t cap0 = p.s.ncaps;
        if (epoch_pools (&p, t->ep[k].rules >= 0 ? t->rules[t->ep[k].rules] : NULL,
                         lending)
            < 0)
            goto out;
        p.s.ep[p.s.nep++] = (jt_fold_epoch_t){ t->ep[k].time, t->ep[k].seq, cap0,
                                               p.s.ncaps - cap0, -1 };
    }
    if (!p.n) {
        rc = 0;
        goto out;
    }
    /* envelope -> its pools (counting sort) */
    if (!(cnt = calloc (nenv + 1, sizeof (*cnt))) || !(at = calloc (nenv + 1, sizeof (*at))))
        goto out;
    size_t total = 0;
    for (size_t q = 0; q < p.n; q++)
        for (size_t j = 0; j < p.nmembers[q]; j++, total++)
            cnt[p.members[q][j] + 1]++;
    for (size_t e = 0; e < nenv; e++)
        cnt[e + 1] += cnt[e];
    if (!(list = malloc ((total ? total : 1) * sizeof (*list))))
        goto out;
    memcpy (at, cnt, (nenv + 1) * sizeof (*at));
    for (size_t q = 0; q < p.n; q++)
        for (size_t j = 0; j < p.nmembers[q]; j++)
            list[at[p.members[q][j]]++] = q;
    for (size_t i = 0; i < t->nivl; i++) {
        const jt_fold_ivl_t *l = &t->ivl[i];
        if (lending && l->role != JT_ROLE_BORROWED)
            continue;
        for (size_t j = cnt[l->env]; j < cnt[l->env + 1]; j++) {
            if (jt_grow ((void **) &p.s.ivl, &p.s.ivlcap, p.s.nivl + 1, sizeof (*p.s.ivl)) < 0)
                goto out;
            jt_fold_ivl_t *c = &p.s.ivl[p.s.nivl++];
            *c = *l;
            c->env = (uint32_t) list[j];
            c->nnodes = 0;
        }
    }
    rc = jt_fold_times_sweep (&p.s, (const char *const *) p.names, p.n, horizon, last_seq,
                              lending ? &lend : &agg, best);
out:
    free (cnt);
    free (at);
    free (list);
    pools_free (&p);
    if (rc < 0)
        errno = ENOMEM;
    return rc;
}

static int rules_check (jt_fold_times_t *t, const char *const *envnames, size_t nenv,
                        int64_t horizon, uint64_t last_seq, jt_violation_t *best)
{
    jt_fold_epoch_t *ep = NULL;
    int rc = -1;

    if (t->nep) {
        if (!(ep = malloc (t->nep * sizeof (*ep))))
            goto out;
        memcpy (ep, t->ep, t->nep * sizeof (*ep));
        qsort (ep, t->nep, sizeof (*ep), jt_fold_epoch_cmp);
    }
    if (check_payers (t, ep, t->nep, envnames, best) < 0
        || check_pools (t, envnames, nenv, horizon, last_seq, false, best) < 0
        || check_pools (t, envnames, nenv, horizon, last_seq, true, best) < 0)
        goto out;
    rc = 0;
out:
    free (ep);
    if (rc < 0)
        errno = ENOMEM;
    return rc;
}

int jt_fold_times_check (jt_fold_times_t *t, const char *const *names,
                         size_t nenv, int64_t horizon, uint64_t last_seq,
                         jt_violation_t *v)
{
    jt_violation_t best = { .kind = JT_VIOL_NONE };

    for (size_t i = 0; i < t->nivl; i++) {
        if (t->ivl[i].start > horizon)
            horizon = t->ivl[i].start;
        if (t->ivl[i].end > horizon)
            horizon = t->ivl[i].end;
    }
    if (jt_fold_time_check (t, names, nenv, horizon, last_seq, &best) < 0
        || rules_check (t, names, nenv, horizon, last_seq, &best) < 0)
        return -1;
    if (best.kind == JT_VIOL_NONE)
        return 0;
    if (v && v->kind == JT_VIOL_NONE)
        *v = best;
    return 1;
}
