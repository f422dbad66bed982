/*
 * ledger_event_activation.c - the Activation ledger event (jobtree/ledger.h,
 * docs/ledger-format.md): who gave way when a reservation activated on a
 * slice that was not free. Its arrays (needs, holders, cuts), checks,
 * canonical JSON and parse, its constructor from a decision of jt_activate
 * (jobtree/activate.h), and its recomputation from the event alone, which
 * `jobtree verify` runs for every Activation.
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
#include "jobtree/run.h"
#include "ledger_event_int.h"

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
    return jt_ev_json_add (o, key, a) < 0 ? NULL : a;
}

int jt_ev_activation_build (json_object *o, const jt_event_t *ev)
{
    json_object *a, *x;
    char hex[17];

    snprintf (hex, sizeof (hex), "%016" PRIx64, ev->seed);
    if (jt_ev_json_add_str (o, "reservation", ev->reservation) < 0
        || jt_ev_json_add_str (o, "run", ev->run) < 0
        || jt_ev_json_add_str (o, "scope", ev->scope) < 0
        || jt_ev_json_add_str (o, "seed", hex) < 0 || !(a = add_array (o, "needs")))
        return -1;
    for (size_t i = 0; i < ev->nneeds; i++)
        if (!(x = push_object (a)) || jt_ev_json_add_str (x, "pool", ev->needs[i].pool) < 0
            || jt_ev_json_add_int (x, "deficit", ev->needs[i].deficit) < 0)
            return -1;
    if (!(a = add_array (o, "holders")))
        return -1;
    for (size_t i = 0; i < ev->nholders; i++) {
        const jt_ev_holder_t *h = &ev->holders[i];
        if (!(x = push_object (a)) || jt_ev_json_add_str (x, "run", h->run) < 0
            || jt_ev_json_add_str (x, "owner", h->owner) < 0
            || jt_ev_json_add_int (x, "group", h->group) < 0
            || jt_ev_json_add_str (x, "role", jt_role_str (h->role)) < 0
            || jt_ev_json_add_int (x, "gpus", h->gpus) < 0
            || jt_ev_json_add_str (x, "pool", h->pool) < 0
            || jt_ev_json_add_int (x, "runGPUs", h->run_gpus) < 0
            || jt_ev_json_add_int (x, "minGPUs", h->min_gpus) < 0)
            return -1;
    }
    if (!(a = add_array (o, "cuts")))
        return -1;
    for (size_t i = 0; i < ev->ncuts; i++) {
        const jt_ev_cut_t *c = &ev->cuts[i];
        if (!(x = push_object (a)) || jt_ev_json_add_str (x, "run", c->run) < 0
            || jt_ev_json_add_int (x, "group", c->group) < 0
            || jt_ev_json_add_str (x, "cut", jt_cut_kind_str (c->kind)) < 0)
            return -1;
    }
    return jt_ev_json_add (o, "resolved", json_object_new_boolean (ev->resolved));
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
    if (jt_ev_json_get_int (f, key, true, out, err) < 0)
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
        int rc = jt_ev_json_get_str (f, "pool", true, &n.pool, &e) < 0
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
    int rc = jt_ev_json_get_str (f, "run", true, &h.run, e) < 0
             || jt_ev_json_get_str (f, "owner", true, &h.owner, e) < 0
             || get_bounded (f, "group", 0, JT_RUN_GPUS_MAX, &group, e) < 0
             || jt_ev_json_get_str (f, "role", true, &role, e) < 0;

    if (!rc && jt_role_parse (role, &h.role) < 0)
        rc = jt_errprintf (e, "role: unknown value '%s'", role);
    h.group = (int) group;
    if (!rc)
        rc = get_bounded (f, "gpus", 1, JT_RUN_GPUS_MAX, &h.gpus, e) < 0
             || jt_ev_json_get_str (f, "pool", true, &h.pool, e) < 0
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
        int rc = jt_ev_json_get_str (f, "run", true, &c.run, &e) < 0
                 || get_bounded (f, "group", 0, JT_RUN_GPUS_MAX, &group, &e) < 0
                 || jt_ev_json_get_str (f, "cut", true, &kind, &e) < 0;
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

    if (jt_ev_json_get_str (o, "reservation", true, &ev->reservation, err) < 0
        || jt_ev_json_get_str (o, "run", true, &ev->run, err) < 0
        || jt_ev_json_get_str (o, "scope", true, &ev->scope, err) < 0
        || jt_ev_json_get_seed (o, true, &ev->seed, err) < 0 || parse_needs (o, ev, err) < 0
        || parse_holders (o, ev, err) < 0 || parse_cuts (o, ev, err) < 0)
        return -1;
    if (!json_object_object_get_ex (o, "resolved", &b))
        return jt_errprintf (err, "resolved: missing");
    if (!json_object_is_type (b, json_type_boolean))
        return jt_errprintf (err, "resolved: expected true or false");
    ev->resolved = json_object_get_boolean (b);
    return 0;
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
