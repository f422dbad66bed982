/*
 * usage.c - live usage per envelope (see jobtree/cover.h): what Cover's
 * pointwise, integral and lending bounds are checked against.
 *
 * Until the ledger fold provides it, usage is derived from a snapshot's
 * leases. Every lease role holds its nodes (a spare node is held too, so it
 * counts toward its payer's active GPUs); GPUs funding a run of another
 * owner are also counted as lent (what an owner reclaims), and a Borrowed
 * lease's as borrowed: lending caps bound those, the rule jobtree verify
 * checks (ledger_fold_rules.c), so a sibling's family use never eats the
 * envelope's lending allowance.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/cover.h"

int jt_usage_init (jt_usage_t *u, const jt_budgets_t *b)
{
    size_t n;

    if (!u || !b) {
        errno = EINVAL;
        return -1;
    }
    memset (u, 0, sizeof (*u));
    n = b->nenv ? b->nenv : 1;
    u->active = calloc (n, sizeof (*u->active));
    u->lent_active = calloc (n, sizeof (*u->lent_active));
    u->used_hours = calloc (n, sizeof (*u->used_hours));
    u->lent_hours = calloc (n, sizeof (*u->lent_hours));
    u->borrowed_active = calloc (n, sizeof (*u->borrowed_active));
    u->borrowed_hours = calloc (n, sizeof (*u->borrowed_hours));
    if (!u->active || !u->lent_active || !u->used_hours || !u->lent_hours
        || !u->borrowed_active || !u->borrowed_hours) {
        jt_usage_free (u);
        errno = ENOMEM;
        return -1;
    }
    u->nenv = b->nenv;
    return 0;
}

void jt_usage_free (jt_usage_t *u)
{
    if (!u)
        return;
    int saved = errno;
    free (u->active);
    free (u->lent_active);
    free (u->used_hours);
    free (u->lent_hours);
    free (u->borrowed_active);
    free (u->borrowed_hours);
    memset (u, 0, sizeof (*u));
    errno = saved;
}

void jt_usage_add (jt_usage_t *u, const jt_envelope_t *e,
                   const char *run_owner, jt_role_t role, int64_t gpus,
                   double hours)
{
    if (!u || !e || e->id >= u->nenv)
        return;
    u->active[e->id] += gpus;
    u->used_hours[e->id] += hours;
    if (run_owner && e->owner && strcmp (run_owner, e->owner) != 0) {
        u->lent_active[e->id] += gpus;
        u->lent_hours[e->id] += hours;
    }
    if (role == JT_ROLE_BORROWED) {
        u->borrowed_active[e->id] += gpus;
        u->borrowed_hours[e->id] += hours;
    }
}

int jt_usage_from_snapshot (jt_usage_t *u, const jt_budgets_t *b,
                            const jt_snapshot_t *s, int64_t now,
                            jt_error_t *err)
{
    return jt_usage_from_snapshot_at (u, b, s, now, 0, err);
}

int jt_usage_from_snapshot_at (jt_usage_t *u, const jt_budgets_t *b,
                               const jt_snapshot_t *s, int64_t now,
                               int64_t at, jt_error_t *err)
{
    size_t unknown = 0;
    const char *first = NULL;

    if (jt_usage_init (u, b) < 0)
        return jt_errprintf (err, "usage: out of memory");
    for (size_t i = 0; s && i < s->nleases; i++) {
        const jt_lease_t *l = &s->leases[i];
        const jt_envelope_t *e = l->envelope
                                 ? jt_budgets_envelope (b, l->envelope) : NULL;
        if (!e) {
            if (unknown++ == 0)
                first = l->envelope ? l->envelope : "(none)";
            continue;
        }
        bool ended = at > 0 && l->end > 0 && l->end <= at;
        int64_t until = at <= 0 ? now : ended ? l->end : at;
        double hours = 0.;
        if (l->start < until)
            hours = (double) l->gpus * (double) (until - l->start) / 3600.;
        jt_usage_add (u, e, l->owner, l->role, ended ? 0 : l->gpus, hours);
    }
    if (unknown) {
        jt_errprintf (err, "%zu lease(s) name an unknown envelope (first: %s);"
                      " they were not counted", unknown, first);
        return 1;
    }
    return 0;
}
