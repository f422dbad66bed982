/*
 * run_json.c - reading a run document (jt_run_parse_json, jt_run_load_file).
 *
 * Types and ranges are checked field by field; then the cross-field rules
 * of jt_run_check (with the GPUs per node unknown) run on the result, and
 * every problem is reported at its field's line:col.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jobtree/budget.h"
#include "jobtree/run.h"
#include "util/jsonutil.h"
#include "run_int.h"

static const char *const top_keys[] = {
    "id", "owner", "resources", "locality", "malleable", "sparesPerGroup",
    "runtime", "funding", "nodeConstraints", NULL
};
static const char *const resources_keys[] = { "gpuType", "totalGPUs", NULL };
static const char *const locality_keys[] = {
    "groupGPUs", "allowCrossGroupSpread", "spreadLevel", "groupBy",
    "conformance", NULL
};
static const char *const malleable_keys[] = {
    "minTotalGPUs", "maxTotalGPUs", "stepGPUs", NULL
};
static const char *const runtime_keys[] = { "checkpoint", "timeLimit", NULL };
static const char *const funding_keys[] = {
    "allowBorrow", "maxBorrowGPUs", "sponsors", NULL
};

static void read_funding (jt_jdoc_t *d, json_object *o, jt_run_t *r)
{
    json_object *arr;
    bool allow = false;
    int has_allow, has_max, has_sp;
    char p[JT_JSON_PATH_MAX];

    jt_jdoc_check_keys (d, o, "funding", funding_keys);
    has_allow = jt_jdoc_get_bool (d, o, "funding", "allowBorrow", false, &allow);
    has_max = jt_jdoc_get_int (d, o, "funding", "maxBorrowGPUs", false, 0,
                               JT_JSON_INT_MAX, &r->max_borrow_gpus);
    has_sp = jt_jdoc_get_container (d, o, "funding", "sponsors", false,
                                    json_type_array, &arr);
    if (has_sp > 0) {
        size_t n = json_object_array_length (arr);
        if (n && !(r->sponsors = calloc (n, sizeof (char *))))
            jt_jdoc_error (d, "funding.sponsors", "out of memory");
        for (size_t i = 0; r->sponsors && i < n; i++) {
            const char *s;
            jt_json_path_idx (p, sizeof (p), "funding.sponsors", i);
            if (jt_jdoc_name_value (d, json_object_array_get_idx (arr, i), p, &s) <= 0)
                continue;
            for (size_t k = 0; k < r->nsponsors; k++)
                if (!strcmp (r->sponsors[k], s))
                    jt_jdoc_error (d, p, "sponsor '%s' is listed twice", s);
            if (!(r->sponsors[r->nsponsors++] = strdup (s)))
                jt_jdoc_error (d, p, "out of memory");
        }
    }
    if (has_allow > 0) {
        r->allow_borrow = allow;
        /* An explicit "no" next to borrowing details is a contradiction the
         * user must resolve; jt_run_check reports it. */
    } else if (has_allow == 0 && (has_sp > 0 || has_max > 0))
        r->allow_borrow = true;     /* sponsors or a cap imply borrowing */
}

/* nodeConstraints: an array of expressions (jobtree/constraint.h), each
 * reported at its index. */
static void read_constraints (jt_jdoc_t *d, json_object *arr, jt_run_t *r)
{
    size_t n = json_object_array_length (arr);
    char p[JT_JSON_PATH_MAX];

    for (size_t i = 0; i < n; i++) {
        const char *s;
        jt_error_t err;
        jt_json_path_idx (p, sizeof (p), "nodeConstraints", i);
        if (jt_jdoc_string_value (d, json_object_array_get_idx (arr, i), p, &s) <= 0)
            continue;
        if (jt_constraints_add (&r->constraints, s, &err) < 0)
            jt_jdoc_error (d, p, "%s", err.text);
    }
}

static void report_at (void *arg, const char *path, const char *msg)
{
    jt_jdoc_error (arg, path, "%s", msg);
}

/* NULL on error, with every problem in diags. */
jt_run_t *jt_run_parse_json (const char *file, const char *text, size_t len,
                             jt_diags_t *diags)
{
    jt_jdoc_t d;
    json_object *root, *o;
    jt_run_t *r;
    size_t first = diags ? diags->n : 0;

    jt_jdoc_init (&d, file, text, len, diags);
    if (!(root = jt_jdoc_parse (&d)))
        return NULL;
    if (!(r = jt_run_create ())) {
        jt_jdoc_error (&d, "", "out of memory");
        goto done;
    }
    if (!json_object_is_type (root, json_type_object)) {
        jt_jdoc_error (&d, "", "a run must be a JSON object, got %s",
                       jt_json_type_phrase (root));
        goto done;
    }
    jt_jdoc_check_keys (&d, root, "", top_keys);
    r->id = jt_jdoc_dup_string (&d, root, "", "id", false, false);
    r->owner = jt_jdoc_dup_string (&d, root, "", "owner", true, true);
    if (jt_jdoc_get_container (&d, root, "", "resources", true, json_type_object,
                               &o) > 0) {
        jt_jdoc_check_keys (&d, o, "resources", resources_keys);
        r->flavor = jt_jdoc_dup_string (&d, o, "resources", "gpuType", true, true);
        jt_jdoc_get_int (&d, o, "resources", "totalGPUs", true, 1, JT_JSON_INT_MAX,
                         &r->total_gpus);
    }
    if (jt_jdoc_get_container (&d, root, "", "locality", false, json_type_object,
                               &o) > 0) {
        jt_jdoc_check_keys (&d, o, "locality", locality_keys);
        jt_jdoc_get_int (&d, o, "locality", "groupGPUs", false, 1, JT_JSON_INT_MAX,
                         &r->group_gpus);
        jt_jdoc_get_bool (&d, o, "locality", "allowCrossGroupSpread", false,
                          &r->cross_group_spread);
        r->spread_level = jt_jdoc_dup_string (&d, o, "locality", "spreadLevel",
                                              false, true);
        r->group_by = jt_jdoc_dup_string (&d, o, "locality", "groupBy", false, true);
        {
            char *cf = jt_jdoc_dup_string (&d, o, "locality", "conformance", false,
                                           true);
            if (cf && strcmp (cf, "strict") == 0)
                r->conformance_strict = true;
            else if (cf && strcmp (cf, "prefer") != 0)
                jt_jdoc_error (&d, "locality.conformance", "must be \"prefer\" or "
                               "\"strict\", got \"%s\"", cf);
            free (cf);
        }
    }
    if (jt_jdoc_get_container (&d, root, "", "nodeConstraints", false,
                               json_type_array, &o) > 0)
        read_constraints (&d, o, r);
    if (jt_jdoc_get_container (&d, root, "", "malleable", false, json_type_object,
                               &o) > 0) {
        int ok_min, ok_max;
        jt_jdoc_check_keys (&d, o, "malleable", malleable_keys);
        r->malleable = true;
        ok_min = jt_jdoc_get_int (&d, o, "malleable", "minTotalGPUs", true, 1,
                                  JT_JSON_INT_MAX, &r->min_gpus);
        ok_max = jt_jdoc_get_int (&d, o, "malleable", "maxTotalGPUs", true, 1,
                                  JT_JSON_INT_MAX, &r->max_gpus);
        r->step_given = jt_jdoc_get_int (&d, o, "malleable", "stepGPUs", false, 1,
                                         JT_JSON_INT_MAX, &r->step_gpus) > 0;
        if (ok_min <= 0 || ok_max <= 0)
            r->malleable = false;   /* already reported; skip the range checks */
    }
    if (!r->step_given)
        r->step_gpus = jt_run_step_gpus (r, 0);
    jt_jdoc_get_int (&d, root, "", "sparesPerGroup", false, 0, JT_JSON_INT_MAX,
                     &r->spares_per_group);
    if (jt_jdoc_get_container (&d, root, "", "runtime", false, json_type_object,
                               &o) > 0) {
        jt_jdoc_check_keys (&d, o, "runtime", runtime_keys);
        jt_jdoc_get_duration (&d, o, "runtime", "checkpoint", false, &r->checkpoint_s);
        jt_jdoc_get_duration (&d, o, "runtime", "timeLimit", false, &r->time_limit_s);
    }
    if (jt_jdoc_get_container (&d, root, "", "funding", false, json_type_object,
                               &o) > 0)
        read_funding (&d, o, r);
    if (d.errors == 0)
        jt_run_check (r, 0, JT_RUN_WORDS_JSON, report_at, &d);
done:
    jt_jdoc_sort (&d, first);
    json_object_put (root);
    if (d.errors) {
        jt_run_destroy (r);
        return NULL;
    }
    return r;
}

/* NULL on error, with every problem in diags. */
jt_run_t *jt_run_load_file (const char *path, jt_diags_t *diags)
{
    size_t len;
    char *buf = jt_json_read_file (path, &len, diags);
    jt_run_t *r;

    if (!buf)
        return NULL;
    r = jt_run_parse_json (path, buf, len, diags);
    free (buf);
    return r;
}
