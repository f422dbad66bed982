/*
 * ledger_event_activation.c - the Activation ledger event's body
 * (jobtree/ledger.h, docs/ledger-format.md): who gave way when a
 * reservation activated on a slice that was not free. Its arrays (needs,
 * holders, cuts), checks, canonical JSON and parse, called from the event
 * model's switches (ledger_event.c, ledger_event_json.c) through
 * ledger_codec.h. Its constructor from a decision of jt_activate and its
 * recomputation are ledger_activation.c's, a layer up.
 *
 * DESIGN: the event carries exactly the request of one alternative (the
 * chosen one) and the decision, with pools named instead of indexed; the
 * recomputation numbers the pools again in order of first appearance
 * (needs, then holders), which jt_activate does not see (it compares pool
 * indexes for equality only). Holders may tie in jt_activate's (run,
 * group, pool) order (a spare held as Active beside its group, by an
 * adapter that ends whole jobs): tied holders are of one gang and one
 * group, so whichever comes first the cuts recorded (run, group, kind) are
 * the same. The holders of a run must agree on its owner, runGPUs and
 * minGPUs (jt_activate takes them from one of them), and every number is
 * bounded before any sum (JT_EV_HOLDERS_MAX holders of at most
 * JT_RUN_GPUS_MAX GPUs), so the recomputation's cost is too.
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
#include "jobtree/run.h"
#include "ledger_codec.h"
#include "util/jsonutil.h"

#define DEFICIT_MAX ((int64_t) JT_EV_HOLDERS_MAX * JT_RUN_GPUS_MAX)

/* ---- arrays ---- */

static char *dup0 (const char *s)
{
    return strdup (s ? s : "");
}

int jt_event_add_need (jt_event_t *ev, const jt_ev_need_t *need)
{
    jt_ev_need_t *v = realloc (ev->needs, (ev->nneeds + 1) * sizeof (*v));
    if (!v)
        return -1;
    ev->needs = v;
    v[ev->nneeds] = *need;
    if (!(v[ev->nneeds].pool = dup0 (need->pool)))
        return -1;
    ev->nneeds++;
    return 0;
}

int jt_event_add_holder (jt_event_t *ev, const jt_ev_holder_t *holder)
{
    jt_ev_holder_t *v = realloc (ev->holders, (ev->nholders + 1) * sizeof (*v));
    if (!v)
        return -1;
    ev->holders = v;
    jt_ev_holder_t *h = &v[ev->nholders];
    *h = *holder;
    h->run = dup0 (holder->run);
    h->owner = dup0 (holder->owner);
    h->pool = dup0 (holder->pool);
    if (!h->run || !h->owner || !h->pool) {
        free (h->run);
        free (h->owner);
        free (h->pool);
        return -1;
    }
    ev->nholders++;
    return 0;
}

int jt_event_add_cut (jt_event_t *ev, const jt_ev_cut_t *cut)
{
    jt_ev_cut_t *v = realloc (ev->cuts, (ev->ncuts + 1) * sizeof (*v));
    if (!v)
        return -1;
    ev->cuts = v;
    v[ev->ncuts] = *cut;
    if (!(v[ev->ncuts].run = dup0 (cut->run)))
        return -1;
    ev->ncuts++;
    return 0;
}

void jt_ev_activation_free (jt_event_t *ev)
{
    free (ev->scope);
    for (size_t i = 0; i < ev->nneeds; i++)
        free (ev->needs[i].pool);
    free (ev->needs);
    for (size_t i = 0; i < ev->nholders; i++) {
        free (ev->holders[i].run);
        free (ev->holders[i].owner);
        free (ev->holders[i].pool);
    }
    free (ev->holders);
    for (size_t i = 0; i < ev->ncuts; i++)
        free (ev->cuts[i].run);
    free (ev->cuts);
}

/* ---- checks ---- */

static bool nonempty (const char *s)
{
    return s && *s;
}

static bool in_range (int64_t v, int64_t lo, int64_t hi)
{
    return v >= lo && v <= hi;
}

static int cut_kind_parse (const char *s, jt_cut_kind_t *out)
{
    static const jt_cut_kind_t kinds[] = { JT_CUT_SPARE, JT_CUT_SHRINK, JT_CUT_LOTTERY };

    for (size_t i = 0; i < sizeof (kinds) / sizeof (kinds[0]); i++)
        if (!strcmp (s, jt_cut_kind_str (kinds[i]))) {
            *out = kinds[i];
            return 0;
        }
    return -1;
}

static bool cut_kind_ok (jt_cut_kind_t k)
{
    return k == JT_CUT_SPARE || k == JT_CUT_SHRINK || k == JT_CUT_LOTTERY;
}

static int by_str (const void *a, const void *b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Holders by run, then index. */
static int by_run (const void *a, const void *b, void *arg)
{
    const jt_ev_holder_t *hs = arg;
    size_t i = *(const size_t *) a, j = *(const size_t *) b;
    int c = strcmp (hs[i].run, hs[j].run);

    return c ? c : (i > j) - (i < j);
}

static int check_needs (const jt_event_t *ev, jt_error_t *err)
{
    const char **pools;
    int rc = 0;

    if (ev->nneeds > JT_EV_NEEDS_MAX)
        return jt_errprintf (err, "needs: more than %d", JT_EV_NEEDS_MAX);
    for (size_t i = 0; i < ev->nneeds; i++) {
        if (!nonempty (ev->needs[i].pool))
            return jt_errprintf (err, "needs[%zu].pool: missing or empty", i);
        if (!in_range (ev->needs[i].deficit, -DEFICIT_MAX, DEFICIT_MAX))
            return jt_errprintf (err, "needs[%zu].deficit: %" PRId64 " is beyond +-%" PRId64,
                                 i, ev->needs[i].deficit, DEFICIT_MAX);
    }
    if (!(pools = malloc ((ev->nneeds + 1) * sizeof (*pools))))
        return jt_errprintf (err, "out of memory");
    for (size_t i = 0; i < ev->nneeds; i++)
        pools[i] = ev->needs[i].pool;
    qsort (pools, ev->nneeds, sizeof (*pools), by_str);
    for (size_t i = 1; i < ev->nneeds && !rc; i++)
        if (!strcmp (pools[i - 1], pools[i]))
            rc = jt_errprintf (err, "needs: pool %s named twice", pools[i]);
    free (pools);
    return rc;
}

static int check_holder (const jt_ev_holder_t *h, size_t i, jt_error_t *err)
{
    if (!nonempty (h->run) || !h->owner || !nonempty (h->pool))
        return jt_errprintf (err, "holders[%zu]: needs run, owner and pool", i);
    if (!in_range (h->group, 0, JT_RUN_GPUS_MAX))
        return jt_errprintf (err, "holders[%zu].group: %d is not in [0, %" PRId64 "]", i,
                             h->group, JT_RUN_GPUS_MAX);
    if (h->role != JT_ROLE_ACTIVE && h->role != JT_ROLE_SPARE
        && h->role != JT_ROLE_BORROWED)
        return jt_errprintf (err, "holders[%zu].role: must be Active, Spare or Borrowed",
                             i);
    if (!in_range (h->gpus, 1, JT_RUN_GPUS_MAX))
        return jt_errprintf (err, "holders[%zu].gpus: %" PRId64 " is not in [1, %" PRId64 "]",
                             i, h->gpus, JT_RUN_GPUS_MAX);
    if (!in_range (h->run_gpus, 0, JT_RUN_GPUS_MAX))
        return jt_errprintf (err,
                             "holders[%zu].runGPUs: %" PRId64 " is not in [0, %" PRId64 "]",
                             i, h->run_gpus, JT_RUN_GPUS_MAX);
    if (!in_range (h->min_gpus, 0, h->run_gpus))
        return jt_errprintf (err,
                             "holders[%zu].minGPUs: %" PRId64 " is not in [0, runGPUs %" PRId64
                             "]",
                             i, h->min_gpus, h->run_gpus);
    return 0;
}

/* The holders of one run agree on its owner, runGPUs and minGPUs. */
static int check_holders (const jt_event_t *ev, jt_error_t *err)
{
    size_t *order;
    int rc = 0;

    if (ev->nholders > JT_EV_HOLDERS_MAX)
        return jt_errprintf (err, "holders: more than %d", JT_EV_HOLDERS_MAX);
    for (size_t i = 0; i < ev->nholders; i++)
        if (check_holder (&ev->holders[i], i, err) < 0)
            return -1;
    if (!(order = malloc ((ev->nholders + 1) * sizeof (*order))))
        return jt_errprintf (err, "out of memory");
    for (size_t i = 0; i < ev->nholders; i++)
        order[i] = i;
    qsort_r (order, ev->nholders, sizeof (*order), by_run, ev->holders);
    for (size_t k = 1; k < ev->nholders && !rc; k++) {
        const jt_ev_holder_t *x = &ev->holders[order[k - 1]];
        const jt_ev_holder_t *y = &ev->holders[order[k]];
        if (!strcmp (x->run, y->run)
            && (strcmp (x->owner, y->owner) || x->run_gpus != y->run_gpus
                || x->min_gpus != y->min_gpus))
            rc = jt_errprintf (err,
                               "holders[%zu]: owner, runGPUs or minGPUs of run %s differ "
                               "from holders[%zu]",
                               order[k], y->run, order[k - 1]);
    }
    free (order);
    return rc;
}

int jt_ev_activation_validate (const jt_event_t *ev, jt_error_t *err)
{
    if (!nonempty (ev->reservation) || !nonempty (ev->run) || !nonempty (ev->scope))
        return jt_errprintf (err, "Activation needs reservation, run and scope");
    if (check_needs (ev, err) < 0 || check_holders (ev, err) < 0)
        return -1;
    if (ev->ncuts > ev->nholders)
        return jt_errprintf (err, "cuts: %zu cuts of %zu holders", ev->ncuts, ev->nholders);
    for (size_t i = 0; i < ev->ncuts; i++) {
        const jt_ev_cut_t *c = &ev->cuts[i];
        if (!nonempty (c->run))
            return jt_errprintf (err, "cuts[%zu].run: missing or empty", i);
        if (!in_range (c->group, 0, JT_RUN_GPUS_MAX))
            return jt_errprintf (err, "cuts[%zu].group: %d is not in [0, %" PRId64 "]", i,
                                 c->group, JT_RUN_GPUS_MAX);
        if (!cut_kind_ok (c->kind))
            return jt_errprintf (err, "cuts[%zu].cut: unknown kind", i);
    }
    return 0;
}

/* ---- canonical JSON ---- */

/* A new object appended to array a, or NULL on ENOMEM. */
static json_object *push_object (json_object *a)
{
    json_object *o = json_object_new_object ();
    if (o && json_object_array_add (a, o) < 0) {
        json_object_put (o);
        return NULL;
    }
    return o;
}

static json_object *add_array (json_object *o, const char *key)
{
    json_object *a = json_object_new_array ();
    return jt_json_add (o, key, a) < 0 ? NULL : a;
}

int jt_ev_activation_build (json_object *o, const jt_event_t *ev)
{
    json_object *a, *x;
    char hex[17];

    snprintf (hex, sizeof (hex), "%016" PRIx64, ev->seed);
    if (jt_json_add_str (o, "reservation", ev->reservation) < 0
        || jt_json_add_str (o, "run", ev->run) < 0
        || jt_json_add_str (o, "scope", ev->scope) < 0
        || jt_json_add_str (o, "seed", hex) < 0 || !(a = add_array (o, "needs")))
        return -1;
    for (size_t i = 0; i < ev->nneeds; i++)
        if (!(x = push_object (a)) || jt_json_add_str (x, "pool", ev->needs[i].pool) < 0
            || jt_json_add_int (x, "deficit", ev->needs[i].deficit) < 0)
            return -1;
    if (!(a = add_array (o, "holders")))
        return -1;
    for (size_t i = 0; i < ev->nholders; i++) {
        const jt_ev_holder_t *h = &ev->holders[i];
        if (!(x = push_object (a)) || jt_json_add_str (x, "run", h->run) < 0
            || jt_json_add_str (x, "owner", h->owner) < 0
            || jt_json_add_int (x, "group", h->group) < 0
            || jt_json_add_str (x, "role", jt_role_str (h->role)) < 0
            || jt_json_add_int (x, "gpus", h->gpus) < 0
            || jt_json_add_str (x, "pool", h->pool) < 0
            || jt_json_add_int (x, "runGPUs", h->run_gpus) < 0
            || jt_json_add_int (x, "minGPUs", h->min_gpus) < 0)
            return -1;
    }
    if (!(a = add_array (o, "cuts")))
        return -1;
    for (size_t i = 0; i < ev->ncuts; i++) {
        const jt_ev_cut_t *c = &ev->cuts[i];
        if (!(x = push_object (a)) || jt_json_add_str (x, "run", c->run) < 0
            || jt_json_add_int (x, "group", c->group) < 0
            || jt_json_add_str (x, "cut", jt_cut_kind_str (c->kind)) < 0)
            return -1;
    }
    return jt_json_add (o, "resolved", json_object_new_boolean (ev->resolved));
}

/* ---- parse ---- */

static const char *const keys_need[] = { "pool", "deficit", NULL };
static const char *const keys_holder[] = { "run",  "owner",   "group",   "role", "gpus",
                                           "pool", "runGPUs", "minGPUs", NULL };
static const char *const keys_cut[] = { "run", "group", "cut", NULL };

/* Prefix a nested field's message with where it is: "holders[3].gpus: ...". */
static int at (jt_error_t *err, const char *key, size_t i, const jt_error_t *inner)
{
    return jt_errprintf (err, "%s[%zu].%s", key, i, inner->text);
}

/* The array under key (required), at most max elements, each an object
 * with only the keys in `keys`. NULL with err. */
static json_object *get_array (json_object *o, const char *key, size_t max,
                               const char *const *keys, jt_error_t *err)
{
    json_object *a;

    if (!json_object_object_get_ex (o, key, &a)) {
        jt_errprintf (err, "%s: missing", key);
        return NULL;
    }
    if (!json_object_is_type (a, json_type_array)) {
        jt_errprintf (err, "%s: expected an array", key);
        return NULL;
    }
    if (json_object_array_length (a) > max) {
        jt_errprintf (err, "%s: more than %zu", key, max);
        return NULL;
    }
    for (size_t i = 0; i < json_object_array_length (a); i++) {
        json_object *f = json_object_array_get_idx (a, i);
        if (!json_object_is_type (f, json_type_object)) {
            jt_errprintf (err, "%s[%zu]: expected an object", key, i);
            return NULL;
        }
        json_object_object_foreach (f, k, v)
        {
            bool known = false;
            (void) v;
            for (const char *const *p = keys; *p && !known; p++)
                known = !strcmp (*p, k);
            if (!known) {
                jt_errprintf (err, "%s[%zu].%s: unknown key", key, i, k);
                return NULL;
            }
        }
    }
    return a;
}

/* An integer field in [lo, hi]. */
static int get_bounded (json_object *f, const char *key, int64_t lo, int64_t hi,
                        int64_t *out, jt_error_t *err)
{
    if (jt_json_get_int (f, key, true, out, err) < 0)
        return -1;
    if (*out < lo || *out > hi)
        return jt_errprintf (err, "%s: %" PRId64 " is not in [%" PRId64 ", %" PRId64 "]",
                             key, *out, lo, hi);
    return 0;
}

static int parse_needs (json_object *o, jt_event_t *ev, jt_error_t *err)
{
    json_object *a = get_array (o, "needs", JT_EV_NEEDS_MAX, keys_need, err);

    for (size_t i = 0; a && i < json_object_array_length (a); i++) {
        json_object *f = json_object_array_get_idx (a, i);
        jt_ev_need_t n = { 0 };
        jt_error_t e = { "" };
        int rc = jt_json_get_str (f, "pool", true, &n.pool, &e) < 0
                 || get_bounded (f, "deficit", -DEFICIT_MAX, DEFICIT_MAX, &n.deficit, &e)
                        < 0;
        if (!rc && jt_event_add_need (ev, &n) < 0)
            rc = jt_errprintf (&e, "out of memory");
        free (n.pool);
        if (rc)
            return at (err, "needs", i, &e);
    }
    return a ? 0 : -1;
}

static int parse_holder (json_object *f, jt_event_t *ev, jt_error_t *e)
{
    jt_ev_holder_t h = { 0 };
    int64_t group = 0;
    char *role = NULL;
    int rc = jt_json_get_str (f, "run", true, &h.run, e) < 0
             || jt_json_get_str (f, "owner", true, &h.owner, e) < 0
             || get_bounded (f, "group", 0, JT_RUN_GPUS_MAX, &group, e) < 0
             || jt_json_get_str (f, "role", true, &role, e) < 0;

    if (!rc && jt_role_parse (role, &h.role) < 0)
        rc = jt_errprintf (e, "role: unknown value '%s'", role);
    h.group = (int) group;
    if (!rc)
        rc = get_bounded (f, "gpus", 1, JT_RUN_GPUS_MAX, &h.gpus, e) < 0
             || jt_json_get_str (f, "pool", true, &h.pool, e) < 0
             || get_bounded (f, "runGPUs", 0, JT_RUN_GPUS_MAX, &h.run_gpus, e) < 0
             || get_bounded (f, "minGPUs", 0, JT_RUN_GPUS_MAX, &h.min_gpus, e) < 0;
    if (!rc && jt_event_add_holder (ev, &h) < 0)
        rc = jt_errprintf (e, "out of memory");
    free (h.run);
    free (h.owner);
    free (h.pool);
    free (role);
    return rc ? -1 : 0;
}

static int parse_holders (json_object *o, jt_event_t *ev, jt_error_t *err)
{
    json_object *a = get_array (o, "holders", JT_EV_HOLDERS_MAX, keys_holder, err);

    for (size_t i = 0; a && i < json_object_array_length (a); i++) {
        jt_error_t e = { "" };
        if (parse_holder (json_object_array_get_idx (a, i), ev, &e) < 0)
            return at (err, "holders", i, &e);
    }
    return a ? 0 : -1;
}

static int parse_cuts (json_object *o, jt_event_t *ev, jt_error_t *err)
{
    json_object *a = get_array (o, "cuts", JT_EV_HOLDERS_MAX, keys_cut, err);

    for (size_t i = 0; a && i < json_object_array_length (a); i++) {
        json_object *f = json_object_array_get_idx (a, i);
        jt_ev_cut_t c = { 0 };
        int64_t group = 0;
        char *kind = NULL;
        jt_error_t e = { "" };
        int rc = jt_json_get_str (f, "run", true, &c.run, &e) < 0
                 || get_bounded (f, "group", 0, JT_RUN_GPUS_MAX, &group, &e) < 0
                 || jt_json_get_str (f, "cut", true, &kind, &e) < 0;
        if (!rc && cut_kind_parse (kind, &c.kind) < 0)
            rc = jt_errprintf (&e, "cut: unknown value '%s'", kind);
        c.group = (int) group;
        if (!rc && jt_event_add_cut (ev, &c) < 0)
            rc = jt_errprintf (&e, "out of memory");
        free (c.run);
        free (kind);
        if (rc)
            return at (err, "cuts", i, &e);
    }
    return a ? 0 : -1;
}

int jt_ev_activation_parse (json_object *o, jt_event_t *ev, jt_error_t *err)
{
    json_object *b;

    if (jt_json_get_str (o, "reservation", true, &ev->reservation, err) < 0
        || jt_json_get_str (o, "run", true, &ev->run, err) < 0
        || jt_json_get_str (o, "scope", true, &ev->scope, err) < 0
        || jt_json_get_hex64 (o, "seed", true, &ev->seed, err) < 0 || parse_needs (o, ev, err) < 0
        || parse_holders (o, ev, err) < 0 || parse_cuts (o, ev, err) < 0)
        return -1;
    if (!json_object_object_get_ex (o, "resolved", &b))
        return jt_errprintf (err, "resolved: missing");
    if (!json_object_is_type (b, json_type_boolean))
        return jt_errprintf (err, "resolved: expected true or false");
    ev->resolved = json_object_get_boolean (b);
    return 0;
}
