/*
 * budget_json.c - reading one budget file (jt_budgets_add_json/add_file).
 *
 * Checks everything that one file can tell on its own (types, ranges,
 * start < end, B <= C*|W|, lending caps within C and B); jt_budgets_finalize
 * in budget.c does the cross-file checks. Every problem is reported, each
 * with the JSON path and line:col of the field, and the file is added only
 * when it had none.
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

#include "jobtree/budget.h"
#include "jobtree/timeutil.h"
#include "util/jsonutil.h"
#include "budget_int.h"
#include "util/sha256.h"

static const char *const top_keys[] = {
    "owner", "parent", "envelopes", "aggregateCaps", NULL
};
static const char *const env_keys[] = {
    "name", "flavor", "selector", "start", "end", "concurrency", "maxGPUHours",
    "lending", NULL
};
static const char *const lending_keys[] = {
    "allow", "to", "maxConcurrency", "maxGPUHours", NULL
};
static const char *const cap_keys[] = {
    "name", "flavor", "envelopes", "maxConcurrency", "maxGPUHours", NULL
};

#define P(buf, path, key) jt_json_path_key ((buf), sizeof (buf), (path), (key))

/* Read an array of names into out and n. Returns 0 or -1 (errors reported). */
static int get_names (jt_jdoc_t *d, json_object *arr, const char *path,
                      char ***out, size_t *n)
{
    size_t len = json_object_array_length (arr);
    char p[JT_JSON_PATH_MAX];
    int errors = d->errors;

    *out = calloc (len ? len : 1, sizeof (char *));
    *n = 0;
    if (!*out) {
        jt_jdoc_error (d, path, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        const char *s;
        jt_json_path_idx (p, sizeof (p), path, i);
        if (jt_jdoc_name_value (d, json_object_array_get_idx (arr, i), p, &s) <= 0)
            continue;
        if (!((*out)[(*n)++] = strdup (s)))
            jt_jdoc_error (d, p, "out of memory");
    }
    return d->errors > errors ? -1 : 0;
}

static int read_selector (jt_jdoc_t *d, json_object *env, const char *path,
                          jt_labels_t *sel)
{
    json_object *o;
    char sp[JT_JSON_PATH_MAX], p[JT_JSON_PATH_MAX];
    int rc = jt_jdoc_get_container (d, env, path, "selector", false,
                                    json_type_object, &o);

    if (rc <= 0)
        return rc;
    P (sp, path, "selector");
    json_object_object_foreach (o, key, val) {
        const char *s;
        P (p, sp, key);
        if (!*key) {
            jt_jdoc_error (d, p, "label key must not be empty");
            continue;
        }
        if (jt_jdoc_string_value (d, val, p, &s) <= 0)
            continue;
        if (jt_labels_set (sel, key, s) < 0)
            jt_jdoc_error (d, p, "out of memory");
    }
    return 1;
}

static void read_lending (jt_jdoc_t *d, json_object *env, const char *path,
                          jt_envelope_t *e, bool c_ok, double b_cap)
{
    json_object *o, *to;
    char lp[JT_JSON_PATH_MAX], p[JT_JSON_PATH_MAX];

    e->lending.max_concurrency = JT_UNSET;
    e->lending.max_gpu_hours = -1;
    if (jt_jdoc_get_container (d, env, path, "lending", false, json_type_object,
                               &o) <= 0)
        return;
    P (lp, path, "lending");
    jt_jdoc_check_keys (d, o, lp, lending_keys);
    jt_jdoc_get_bool (d, o, lp, "allow", true, &e->lending.allow);
    int has_to = jt_jdoc_get_container (d, o, lp, "to", false, json_type_array, &to);
    if (has_to > 0)
        get_names (d, to, P (p, lp, "to"), &e->lending.to, &e->lending.nto);
    if (e->lending.allow && has_to == 0)
        jt_jdoc_error (d, P (p, lp, "to"), "lending is allowed but 'to' is missing; "
                       "list the borrowing owners, or \"*\" for anyone");
    else if (e->lending.allow && has_to > 0 && json_object_array_length (to) == 0)
        jt_jdoc_error (d, P (p, lp, "to"), "lending is allowed but 'to' is empty; "
                       "list the borrowing owners, or \"*\" for anyone");
    if (jt_jdoc_get_int (d, o, lp, "maxConcurrency", false, 0, JT_JSON_INT_MAX,
                         &e->lending.max_concurrency) > 0
        && c_ok && e->lending.max_concurrency > e->concurrency)
        jt_jdoc_error (d, P (p, lp, "maxConcurrency"),
                       "maxConcurrency=%lld exceeds the envelope's concurrency %lld",
                       (long long) e->lending.max_concurrency,
                       (long long) e->concurrency);
    if (jt_jdoc_get_number (d, o, lp, "maxGPUHours", false, 0, JT_JSON_NUM_MAX,
                            &e->lending.max_gpu_hours) > 0
        && b_cap >= 0 && e->lending.max_gpu_hours > b_cap)
        jt_jdoc_error (d, P (p, lp, "maxGPUHours"),
                       "maxGPUHours=%g exceeds the envelope's GPU-hour bound %g",
                       e->lending.max_gpu_hours, b_cap);
}

static void read_envelope (jt_jdoc_t *d, json_object *o, const char *path,
                           jt_envelope_t *e)
{
    char p[JT_JSON_PATH_MAX];
    int has_start, has_end, has_c;

    e->max_gpu_hours = -1;
    e->lending.max_concurrency = JT_UNSET;
    e->lending.max_gpu_hours = -1;
    if (jt_jdoc_object_value (d, o, path, env_keys) < 0)
        return;
    e->name = jt_jdoc_dup_string (d, o, path, "name", true, true);
    e->flavor = jt_jdoc_dup_string (d, o, path, "flavor", true, true);
    read_selector (d, o, path, &e->selector);
    has_start = jt_jdoc_get_time (d, o, path, "start", true, &e->start);
    has_end = jt_jdoc_get_time (d, o, path, "end", true, &e->end);
    if (has_start > 0 && has_end > 0 && e->start >= e->end) {
        char s1[32], s2[32];
        jt_time_format (e->start, s1, sizeof (s1));
        jt_time_format (e->end, s2, sizeof (s2));
        jt_jdoc_error (d, P (p, path, "end"),
                       "the window is empty: end %s is not after start %s", s2, s1);
        has_end = -1;
    }
    has_c = jt_jdoc_get_int (d, o, path, "concurrency", true, 1, JT_JSON_INT_MAX,
                             &e->concurrency);
    double b_cap = -1;
    if (jt_jdoc_get_number (d, o, path, "maxGPUHours", false, 0, JT_JSON_NUM_MAX,
                            &e->max_gpu_hours) > 0) {
        b_cap = e->max_gpu_hours;
        if (has_c > 0 && has_start > 0 && has_end > 0) {
            double hours = (double) (e->end - e->start) / 3600.0;
            double cw = (double) e->concurrency * hours;
            if (e->max_gpu_hours > cw)
                jt_jdoc_error (d, P (p, path, "maxGPUHours"),
                               "maxGPUHours=%g exceeds concurrency x window = "
                               "%lld x %g h = %g GPU-hours; lower maxGPUHours or "
                               "raise concurrency", e->max_gpu_hours,
                               (long long) e->concurrency, hours, cw);
        }
    } else if (has_c > 0 && has_start > 0 && has_end > 0)
        b_cap = (double) e->concurrency * (double) (e->end - e->start) / 3600.0;
    read_lending (d, o, path, e, has_c > 0, b_cap);
}

static void read_cap (jt_jdoc_t *d, json_object *o, const char *path,
                      jt_aggcap_t *c)
{
    json_object *arr;
    char p[JT_JSON_PATH_MAX];

    c->max_gpu_hours = -1;
    if (jt_jdoc_object_value (d, o, path, cap_keys) < 0)
        return;
    c->name = jt_jdoc_dup_string (d, o, path, "name", true, true);
    c->flavor = jt_jdoc_dup_string (d, o, path, "flavor", true, true);
    if (jt_jdoc_get_container (d, o, path, "envelopes", true, json_type_array,
                               &arr) > 0) {
        P (p, path, "envelopes");
        if (json_object_array_length (arr) == 0)
            jt_jdoc_error (d, p, "an aggregate cap needs at least one envelope");
        else
            get_names (d, arr, p, &c->envelopes, &c->nenvelopes);
    }
    jt_jdoc_get_int (d, o, path, "maxConcurrency", true, 1, JT_JSON_INT_MAX,
                     &c->max_concurrency);
    jt_jdoc_get_number (d, o, path, "maxGPUHours", false, 0, JT_JSON_NUM_MAX,
                        &c->max_gpu_hours);
}

/* The optional array at key of the top-level object root, in *arr, and
 * zeroed room for its elements of size bytes: returned, their number in
 * *n. NULL and 0 when it is absent or empty, or out of memory (reported). */
static void *array_room (jt_jdoc_t *d, json_object *root, const char *key,
                         size_t size, json_object **arr, size_t *n)
{
    void *v;

    *n = 0;
    if (jt_jdoc_get_container (d, root, "", key, false, json_type_array, arr) <= 0
        || json_object_array_length (*arr) == 0)
        return NULL;
    if (!(v = calloc (json_object_array_length (*arr), size))) {
        jt_jdoc_error (d, key, "out of memory");
        return NULL;
    }
    *n = json_object_array_length (*arr);
    return v;
}

/* Returns 0 if the file was added, -1 otherwise (problems in diags). */
int jt_budgets_add_json (jt_budgets_t *b, const char *file, const char *text,
                         size_t len, jt_diags_t *diags)
{
    jt_jdoc_t d;
    jt_budget_t bud;
    json_object *root, *arr;

    size_t first = diags ? diags->n : 0;

    memset (&bud, 0, sizeof (bud));
    jt_jdoc_init (&d, file, text, len, diags);
    if (!b || b->finalized) {
        jt_diags_add (diags, file, 0, 0, NULL, "the budget set is already finalized");
        return -1;
    }
    if (!(root = jt_jdoc_parse (&d)))
        return -1;
    if (!json_object_is_type (root, json_type_object)) {
        jt_jdoc_error (&d, "", "a budget file must hold a JSON object, got %s",
                       jt_json_type_phrase (root));
        goto done;
    }
    jt_jdoc_check_keys (&d, root, "", top_keys);
    bud.owner = jt_jdoc_dup_string (&d, root, "", "owner", true, true);
    bud.parent = jt_jdoc_dup_string (&d, root, "", "parent", false, true);
    bud.env = array_room (&d, root, "envelopes", sizeof (*bud.env), &arr, &bud.nenv);
    for (size_t i = 0; i < bud.nenv; i++) {
        char p[JT_JSON_PATH_MAX];
        jt_json_path_idx (p, sizeof (p), "envelopes", i);
        read_envelope (&d, json_object_array_get_idx (arr, i), p, &bud.env[i]);
        bud.env[i].index = i;
    }
    bud.caps = array_room (&d, root, "aggregateCaps", sizeof (*bud.caps), &arr,
                           &bud.ncaps);
    for (size_t i = 0; i < bud.ncaps; i++) {
        char p[JT_JSON_PATH_MAX];
        jt_json_path_idx (p, sizeof (p), "aggregateCaps", i);
        read_cap (&d, json_object_array_get_idx (arr, i), p, &bud.caps[i]);
    }
    if (d.errors == 0) {
        if (file && !(bud.file = strdup (file)))
            jt_jdoc_error (&d, "", "out of memory");
        else if (jt_sha256_hex (text, len, bud.sha256) < 0)
            jt_jdoc_error (&d, "", "cannot compute the SHA-256 of the file");
        else if (jt_budgets_push (b, &bud, text, len) < 0)
            jt_jdoc_error (&d, "", "out of memory");
    }
done:
    jt_jdoc_sort (&d, first);
    json_object_put (root);
    jt_budget_clear (&bud);
    return d.errors ? -1 : 0;
}

/* Returns 0 if the file was added, -1 otherwise (problems in diags). */
int jt_budgets_add_file (jt_budgets_t *b, const char *path, jt_diags_t *diags)
{
    size_t len;
    char *buf = jt_json_read_file (path, &len, diags);
    int rc;

    if (!buf)
        return -1;
    rc = jt_budgets_add_json (b, path, buf, len, diags);
    free (buf);
    return rc;
}

/* ---- canonical dump (the ledger's BudgetLoaded records it) ---- */

static int dump_push (json_object *a, json_object *v)
{
    if (!v)
        return -1;
    if (json_object_array_add (a, v) < 0) {
        json_object_put (v);
        return -1;
    }
    return 0;
}

static json_object *dump_names (char *const *v, size_t n)
{
    json_object *a = json_object_new_array ();
    for (size_t i = 0; a && i < n; i++)
        if (dump_push (a, json_object_new_string (v[i])) < 0) {
            json_object_put (a);
            return NULL;
        }
    return a;
}

static json_object *dump_time (int64_t t)
{
    char buf[40];
    return jt_time_format (t, buf, sizeof (buf)) < 0 ? NULL : json_object_new_string (buf);
}

static int dump_envelope (json_object *a, const jt_envelope_t *e)
{
    json_object *o = json_object_new_object (), *sel;
    const jt_lending_t *l = &e->lending;

    if (dump_push (a, o) < 0 || jt_json_add (o, "name", json_object_new_string (e->name)) < 0
        || jt_json_add (o, "flavor", json_object_new_string (e->flavor)) < 0
        || jt_json_add (o, "selector", sel = json_object_new_object ()) < 0)
        return -1;
    for (size_t i = 0; i < e->selector.n; i++) /* sorted by key */
        if (jt_json_add (sel, e->selector.v[i].key,
                      json_object_new_string (e->selector.v[i].value)) < 0)
            return -1;
    if (jt_json_add (o, "start", dump_time (e->start)) < 0
        || jt_json_add (o, "end", dump_time (e->end)) < 0
        || jt_json_add (o, "concurrency", json_object_new_int64 (e->concurrency)) < 0
        || (e->max_gpu_hours >= 0
            && jt_json_add (o, "maxGPUHours", json_object_new_double (e->max_gpu_hours)) < 0))
        return -1;
    if (!l->allow && !l->nto && l->max_concurrency == JT_UNSET && l->max_gpu_hours < 0)
        return 0; /* no lending: as if the key were absent */
    json_object *lo = json_object_new_object ();
    if (jt_json_add (o, "lending", lo) < 0
        || jt_json_add (lo, "allow", json_object_new_boolean (l->allow)) < 0
        || (l->nto && jt_json_add (lo, "to", dump_names (l->to, l->nto)) < 0)
        || (l->max_concurrency != JT_UNSET
            && jt_json_add (lo, "maxConcurrency", json_object_new_int64 (l->max_concurrency))
                   < 0)
        || (l->max_gpu_hours >= 0
            && jt_json_add (lo, "maxGPUHours", json_object_new_double (l->max_gpu_hours)) < 0))
        return -1;
    return 0;
}

static int dump_cap (json_object *a, const jt_aggcap_t *c)
{
    json_object *o = json_object_new_object ();

    if (dump_push (a, o) < 0 || jt_json_add (o, "name", json_object_new_string (c->name)) < 0
        || jt_json_add (o, "flavor", json_object_new_string (c->flavor)) < 0
        || jt_json_add (o, "envelopes", dump_names (c->envelopes, c->nenvelopes)) < 0
        || jt_json_add (o, "maxConcurrency", json_object_new_int64 (c->max_concurrency)) < 0
        || (c->max_gpu_hours >= 0
            && jt_json_add (o, "maxGPUHours", json_object_new_double (c->max_gpu_hours)) < 0))
        return -1;
    return 0;
}

static int dump_owner (json_object *a, const jt_budget_t *bud)
{
    json_object *o = json_object_new_object (), *env, *caps;

    if (dump_push (a, o) < 0 || jt_json_add (o, "owner", json_object_new_string (bud->owner)) < 0
        || (bud->parent && jt_json_add (o, "parent", json_object_new_string (bud->parent)) < 0)
        || jt_json_add (o, "envelopes", env = json_object_new_array ()) < 0)
        return -1;
    for (size_t i = 0; i < bud->nenv; i++) /* file order: Cover's order */
        if (dump_envelope (env, &bud->env[i]) < 0)
            return -1;
    if (bud->ncaps == 0)
        return 0;
    if (jt_json_add (o, "aggregateCaps", caps = json_object_new_array ()) < 0)
        return -1;
    for (size_t i = 0; i < bud->ncaps; i++)
        if (dump_cap (caps, &bud->caps[i]) < 0)
            return -1;
    return 0;
}

/* Returns the malloc'd canonical text, or NULL with err. */
char *jt_budgets_to_json (const jt_budgets_t *b, jt_error_t *err)
{
    json_object *a;
    char *out = NULL;

    if (!b || !b->finalized) {
        jt_errprintf (err, "budgets: a finalized budget set is required");
        return NULL;
    }
    if (!(a = json_object_new_array ()))
        goto nomem;
    for (size_t i = 0; i < b->n; i++) /* sorted by owner */
        if (dump_owner (a, &b->v[i]) < 0)
            goto nomem;
    const char *s = json_object_to_json_string_ext (a, JSON_C_TO_STRING_PLAIN
                                                           | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!s || !(out = strdup (s)))
        goto nomem;
    json_object_put (a);
    return out;
nomem:
    json_object_put (a);
    jt_errprintf (err, "budgets: out of memory");
    return NULL;
}
