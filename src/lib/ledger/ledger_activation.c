/*
 * ledger_activation.c - the Activation event from a decision of jt_activate
 * (jobtree/activate.h) and the decision again from the event alone, which
 * `jobtree verify` runs for every Activation (jt_event_activation,
 * jt_event_activation_replay in jobtree/ledger.h). Above the event model
 * (ledger_event.c, the body's codec ledger_event_activation.c), below the
 * fold that replays each Activation it applies.
 *
 * DESIGN: the event carries exactly the request of one alternative (the
 * chosen one) and the decision, with pools named instead of indexed; the
 * recomputation numbers the pools again in order of first appearance
 * (needs, then holders), which jt_activate does not see (it compares pool
 * indexes for equality only).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/activate.h"
#include "jobtree/ledger.h"
#include "jobtree/lottery.h"
#include "jobtree/map.h"

static bool nonempty (const char *s)
{
    return s && *s;
}

static int by_str (const void *a, const void *b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* ---- constructor ---- */

/* Pool p's name, or NULL when out of range or unnamed. */
static const char *pool_name (const char *const *names, size_t npools, size_t p)
{
    return p < npools && nonempty (names[p]) ? names[p] : NULL;
}

/* The pools used by req's holders and alt's needs have distinct names. */
static int pools_distinct (const jt_activation_req_t *req, const jt_slice_alt_t *alt,
                           const char *const *names, size_t npools, jt_error_t *err)
{
    bool *used = calloc (npools + 1, sizeof (*used));
    const char **v = calloc (npools + 1, sizeof (*v));
    size_t n = 0;
    int rc = 0;

    if (!used || !v) {
        rc = jt_errprintf (err, "out of memory");
        goto out;
    }
    for (size_t i = 0; alt && i < alt->nneeds; i++)
        used[alt->needs[i].pool] = true;
    for (size_t h = 0; h < req->nholders; h++)
        used[req->holders[h].pool] = true;
    for (size_t p = 0; p < npools; p++)
        if (used[p])
            v[n++] = names[p];
    qsort (v, n, sizeof (*v), by_str);
    for (size_t i = 1; i < n && !rc; i++)
        if (!strcmp (v[i - 1], v[i]))
            rc = jt_errprintf (err, "Activation: two pools are named %s", v[i]);
out:
    free (used);
    free (v);
    return rc;
}

jt_event_t *jt_event_activation (const char *id, const char *reservation,
                                 const char *run, const jt_activation_req_t *req,
                                 size_t alt, const char *const *pool_names,
                                 size_t npools, const jt_activation_t *a,
                                 jt_error_t *err)
{
    const jt_slice_alt_t *sa = NULL;
    jt_event_t *ev;

    if (!req || !a || !reservation || (npools && !pool_names)) {
        jt_errprintf (err, "Activation: no request, decision or reservation");
        return NULL;
    }
    if (req->resv_id && strcmp (req->resv_id, reservation)) {
        jt_errprintf (err, "Activation: reservation %s is not the request's %s",
                      reservation, req->resv_id);
        return NULL;
    }
    if (alt < req->nalts)
        sa = &req->alts[alt];
    else if (req->nalts)
        sa = &req->alts[0];
    for (size_t i = 0; sa && i < sa->nneeds; i++)
        if (!pool_name (pool_names, npools, sa->needs[i].pool)) {
            jt_errprintf (err, "Activation: need %zu: pool %zu has no name", i,
                          sa->needs[i].pool);
            return NULL;
        }
    for (size_t h = 0; h < req->nholders; h++)
        if (!pool_name (pool_names, npools, req->holders[h].pool)) {
            jt_errprintf (err, "Activation: holder %zu: pool %zu has no name", h,
                          req->holders[h].pool);
            return NULL;
        }
    for (size_t i = 0; i < a->ncuts; i++)
        if (a->cuts[i].holder >= req->nholders) {
            jt_errprintf (err, "Activation: cut %zu names no holder", i);
            return NULL;
        }
    if (pools_distinct (req, sa, pool_names, npools, err) < 0)
        return NULL;
    if (!(ev = jt_event_create (JT_EV_ACTIVATION)) || jt_event_set (&ev->id, id) < 0
        || jt_event_set (&ev->reservation, reservation) < 0
        || jt_event_set (&ev->run, run) < 0 || jt_event_set (&ev->scope, req->scope) < 0)
        goto nomem;
    ev->time = req->time;
    ev->seed = a->rho;
    ev->resolved = a->resolved;
    for (size_t i = 0; sa && i < sa->nneeds; i++) {
        jt_ev_need_t n = { .pool = (char *) pool_names[sa->needs[i].pool],
                           .deficit = sa->needs[i].deficit };
        if (jt_event_add_need (ev, &n) < 0)
            goto nomem;
    }
    for (size_t k = 0; k < req->nholders; k++) {
        const jt_holder_t *x = &req->holders[k];
        jt_ev_holder_t h = { .run = (char *) x->run,
                             .owner = (char *) x->owner,
                             .group = x->group,
                             .role = x->role,
                             .gpus = x->gpus,
                             .pool = (char *) pool_names[x->pool],
                             .run_gpus = x->run_gpus,
                             .min_gpus = x->run_min_gpus };
        if (jt_event_add_holder (ev, &h) < 0)
            goto nomem;
    }
    for (size_t i = 0; i < a->ncuts; i++) {
        const jt_holder_t *x = &req->holders[a->cuts[i].holder];
        jt_ev_cut_t c = { .run = (char *) x->run, .group = x->group,
                          .kind = a->cuts[i].kind };
        if (jt_event_add_cut (ev, &c) < 0)
            goto nomem;
    }
    if (jt_event_validate (ev, err) < 0) {
        jt_event_destroy (ev);
        return NULL;
    }
    return ev;
nomem:
    jt_event_destroy (ev);
    errno = ENOMEM;
    jt_errprintf (err, "out of memory");
    return NULL;
}

/* ---- recomputation ---- */

static int say (char *why, size_t len, int rc, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));
static int say (char *why, size_t len, int rc, const char *fmt, ...)
{
    va_list ap;

    if (why && len) {
        va_start (ap, fmt);
        vsnprintf (why, len, fmt, ap);
        va_end (ap);
    }
    return rc;
}

/* The index of pool name s in m (numbered in order of first appearance). */
static int pool_index (jt_map_t *m, const char *s, size_t *out)
{
    void *v = jt_map_get (m, s);

    if (!v) {
        v = (void *) (uintptr_t) (jt_map_count (m) + 1);
        if (jt_map_put (m, s, v, NULL) < 0)
            return -1;
    }
    *out = (size_t) (uintptr_t) v - 1;
    return 0;
}

/* The event's request: one alternative, pools numbered by name. */
static int request_of (const jt_event_t *ev, jt_need_t *needs, jt_holder_t *holders)
{
    jt_map_t *pools = jt_map_create (0);
    int rc = 0;

    if (!pools)
        return -1;
    for (size_t i = 0; i < ev->nneeds && !rc; i++) {
        needs[i].deficit = ev->needs[i].deficit;
        rc = pool_index (pools, ev->needs[i].pool, &needs[i].pool);
    }
    for (size_t k = 0; k < ev->nholders && !rc; k++) {
        const jt_ev_holder_t *h = &ev->holders[k];
        holders[k] = (jt_holder_t){ .run = h->run,
                                    .owner = h->owner,
                                    .group = h->group,
                                    .role = h->role,
                                    .gpus = h->gpus,
                                    .run_gpus = h->run_gpus,
                                    .run_min_gpus = h->min_gpus };
        rc = pool_index (pools, h->pool, &holders[k].pool);
    }
    jt_map_destroy (pools, NULL);
    return rc;
}

/* Compare the recomputed decision a with the event's record. */
static int compare (const jt_event_t *ev, const jt_activation_t *a, char *why, size_t len)
{
    size_t n = a->ncuts < ev->ncuts ? a->ncuts : ev->ncuts;

    for (size_t i = 0; i < n; i++) {
        const jt_ev_holder_t *h = &ev->holders[a->cuts[i].holder];
        const jt_ev_cut_t *c = &ev->cuts[i];
        if (strcmp (h->run, c->run) || h->group != c->group || a->cuts[i].kind != c->kind)
            return say (why, len, 1, "cut %zu: recorded %s %s/%d, recomputed %s %s/%d", i,
                        jt_cut_kind_str (c->kind), c->run, c->group,
                        jt_cut_kind_str (a->cuts[i].kind), h->run, h->group);
    }
    if (a->ncuts > ev->ncuts) {
        const jt_ev_holder_t *h = &ev->holders[a->cuts[n].holder];
        return say (why, len, 1,
                    "%zu cuts recorded, %zu recomputed; cut %zu not recorded: %s %s/%d",
                    ev->ncuts, a->ncuts, n, jt_cut_kind_str (a->cuts[n].kind), h->run,
                    h->group);
    }
    if (a->ncuts < ev->ncuts)
        return say (why, len, 1,
                    "%zu cuts recorded, %zu recomputed; cut %zu not recomputed: %s %s/%d",
                    ev->ncuts, a->ncuts, n, jt_cut_kind_str (ev->cuts[n].kind),
                    ev->cuts[n].run, ev->cuts[n].group);
    if (a->resolved != ev->resolved)
        return say (why, len, 1, "recorded resolved %s, recomputed %s",
                    ev->resolved ? "true" : "false", a->resolved ? "true" : "false");
    return 0;
}

int jt_event_activation_replay (const jt_event_t *ev, jt_activation_t *out,
                                char *why, size_t len)
{
    jt_activation_t mine, *a = out ? out : &mine;
    jt_error_t err = { "" };
    jt_need_t *needs = NULL;
    jt_holder_t *holders = NULL;
    uint64_t rho;
    int rc = -1;

    memset (a, 0, sizeof (*a));
    if (!ev || ev->type != JT_EV_ACTIVATION || jt_event_validate (ev, &err) < 0) {
        errno = EINVAL;
        return say (why, len, -1, "not a valid Activation%s%s", err.text[0] ? ": " : "",
                    err.text);
    }
    if (jt_lottery_seed (ev->scope, ev->reservation, ev->time, &rho, &err) < 0)
        return say (why, len, 1, "no lottery seed: %s", err.text);
    if (rho != ev->seed)
        return say (why, len, 1,
                    "seed %016" PRIx64 " is not the lottery seed %016" PRIx64
                    " of scope %s, reservation %s, time %" PRId64,
                    ev->seed, rho, ev->scope, ev->reservation, ev->time);
    needs = calloc (ev->nneeds + 1, sizeof (*needs));
    holders = calloc (ev->nholders + 1, sizeof (*holders));
    if (!needs || !holders || request_of (ev, needs, holders) < 0) {
        errno = ENOMEM;
        say (why, len, -1, "out of memory");
        goto out;
    }
    {
        jt_slice_alt_t alt = { .needs = needs, .nneeds = ev->nneeds };
        jt_activation_req_t req = { .scope = ev->scope,
                                    .resv_id = ev->reservation,
                                    .time = ev->time,
                                    .alts = &alt,
                                    .nalts = 1,
                                    .holders = holders,
                                    .nholders = ev->nholders };
        if (jt_activate (&req, a, &err) < 0) {   /* checked: only ENOMEM is left */
            errno = ENOMEM;
            say (why, len, -1, "%s", err.text);
            goto out;
        }
    }
    rc = compare (ev, a, why, len);
out:
    free (needs);
    free (holders);
    if (a == &mine || rc < 0)
        jt_activation_free (a);
    return rc;
}
