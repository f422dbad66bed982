/*
 * record.c - the Jobtree record in a job's admin_comment: format, parse and
 * bind (the format is described in include/jobtree/record.h).
 *
 * The parser runs inside slurmctld on text an administrator (or this
 * project's job_submit plugin) wrote: every member is type-checked, every
 * count range-checked, and a failure leaves the output empty.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "jobtree/conformance.h"
#include "jobtree/record.h"
#include "jobtree/timeutil.h"

#define TAG_LEN (sizeof (JT_JOBREC_TAG) - 1)

bool jt_jobrec_is (const char *text)
{
    return text && strncmp (text, JT_JOBREC_TAG, TAG_LEN) == 0;
}

/* ---- format ---- */

static json_object *seg_json (const jt_cover_seg_t *s)
{
    json_object *o = json_object_new_object ();

    if (!o)
        return NULL;
    json_object_object_add (o, "envelope",
                            json_object_new_string (s->env ? s->env->name : ""));
    json_object_object_add (o, "owner", json_object_new_string (
                                s->env && s->env->owner ? s->env->owner : ""));
    json_object_object_add (o, "source",
                            json_object_new_string (jt_source_str (s->source)));
    json_object_object_add (o, "firstGroup",
                            json_object_new_int64 ((int64_t) s->first_group));
    json_object_object_add (o, "groups", json_object_new_int64 ((int64_t) s->ngroups));
    json_object_object_add (o, "gpus", json_object_new_int64 (s->gpus));
    return o;
}

/* TAG + the object's plain JSON text, malloc'd; NULL on ENOMEM. */
static char *tagged (json_object *o)
{
    const char *s = json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN
                                                    | JSON_C_TO_STRING_NOSLASHESCAPE);
    char *out;

    if (!s || !(out = malloc (TAG_LEN + strlen (s) + 1)))
        return NULL;
    memcpy (out, JT_JOBREC_TAG, TAG_LEN);
    strcpy (out + TAG_LEN, s);
    return out;
}

char *jt_jobrec_format (const jt_run_t *r, const jt_cover_t *c)
{
    char *run_text = jt_run_to_json (r);
    json_object *top = NULL, *run = NULL, *fund = NULL;
    char *out = NULL;

    if (!run_text)
        return NULL;
    if (!(run = json_tokener_parse (run_text)) || !(top = json_object_new_object ())
        || !(fund = json_object_new_array ()))
        goto done;
    json_object_object_add (top, "run", run);
    run = NULL;
    for (size_t i = 0; c && i < c->nsegs; i++)
        json_object_array_add (fund, seg_json (&c->segs[i]));
    json_object_object_add (top, "funding", fund);
    fund = NULL;
    json_object_object_add (top, "fundedGPUs",
                            json_object_new_int64 (c ? c->funded_gpus : 0));
    json_object_object_add (top, "borrowedGPUs",
                            json_object_new_int64 (c ? c->borrowed_gpus : 0));
    json_object_object_add (top, "reason", json_object_new_string (
                                jt_reason_str (c ? c->reason : JT_OK)));
    out = tagged (top);
done:
    json_object_put (run);
    json_object_put (fund);
    json_object_put (top);
    free (run_text);
    return out;
}

/* ---- parse ---- */

/* The record's JSON object (caller puts it), or NULL with err set. */
static json_object *record_object (const char *text, jt_error_t *err)
{
    json_tokener *tok;
    json_object *o;
    size_t len;

    if (!jt_jobrec_is (text)) {
        jt_errprintf (err, "not a Jobtree record (no \"jobtree/1\" tag)");
        return NULL;
    }
    text += TAG_LEN;
    if ((len = strlen (text)) > JT_JOBREC_MAX_LEN) {
        jt_errprintf (err, "Jobtree record: %zu bytes (at most %d)", len,
                      JT_JOBREC_MAX_LEN);
        return NULL;
    }
    if (!(tok = json_tokener_new ())) {
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    o = json_tokener_parse_ex (tok, text, (int) len);
    if (!o || json_tokener_get_error (tok) != json_tokener_success
        || !json_object_is_type (o, json_type_object)) {
        jt_errprintf (err, "Jobtree record: not a JSON object: %s",
                      json_tokener_error_desc (json_tokener_get_error (tok)));
        json_object_put (o);
        o = NULL;
    }
    json_tokener_free (tok);
    return o;
}

static int get_int (json_object *o, const char *key, int64_t *v)
{
    json_object *x;

    if (!json_object_object_get_ex (o, key, &x)
        || !json_object_is_type (x, json_type_int))
        return -1;
    *v = json_object_get_int64 (x);
    return 0;
}

/* A string member, strdup'd; NULL when absent, not a string or ENOMEM. */
static char *get_str (json_object *o, const char *key)
{
    json_object *x;

    if (!json_object_object_get_ex (o, key, &x)
        || !json_object_is_type (x, json_type_string))
        return NULL;
    return strdup (json_object_get_string (x));
}

/* A JSON array of strings into a malloc'd array (*n counts what was filled,
 * so a partial one is freed by jt_jobrec_free). 0 or -1 with err set. */
static int str_array (json_object *a, const char *what, size_t i,
                      char ***out, size_t *n, jt_error_t *err)
{
    size_t nn;

    if (!json_object_is_type (a, json_type_array))
        return jt_errprintf (err, "bound.leases[%zu].%s is not an array", i, what);
    if ((nn = json_object_array_length (a)) > JT_JOBREC_MAX_NODES)
        return jt_errprintf (err, "bound.leases[%zu].%s: %zu nodes (at most %d)",
                             i, what, nn, JT_JOBREC_MAX_NODES);
    if (!(*out = calloc (nn ? nn : 1, sizeof (char *))))
        return jt_errprintf (err, "out of memory");
    for (size_t k = 0; k < nn; k++) {
        json_object *s = json_object_array_get_idx (a, k);
        if (!json_object_is_type (s, json_type_string))
            return jt_errprintf (err, "bound.leases[%zu].%s[%zu] is not a node name",
                                 i, what, k);
        if (!((*out)[*n] = strdup (json_object_get_string (s))))
            return jt_errprintf (err, "out of memory");
        (*n)++;
    }
    return 0;
}

/* "swaps": [{"failed","spare","time"}] of lease i (*n counts what was
 * filled, so a partial one is freed by jt_jobrec_free). 0 or -1. */
static int parse_swaps (json_object *a, size_t i, jt_jobrec_lease_t *sl,
                        jt_error_t *err)
{
    size_t nn;

    if (!json_object_is_type (a, json_type_array))
        return jt_errprintf (err, "bound.leases[%zu].swaps is not an array", i);
    if ((nn = json_object_array_length (a)) > JT_JOBREC_MAX_NODES)
        return jt_errprintf (err, "bound.leases[%zu].swaps: %zu swaps (at most %d)",
                             i, nn, JT_JOBREC_MAX_NODES);
    if (!(sl->swaps = calloc (nn ? nn : 1, sizeof (*sl->swaps))))
        return jt_errprintf (err, "out of memory");
    for (size_t k = 0; k < nn; k++) {
        json_object *w = json_object_array_get_idx (a, k), *t;
        jt_jobrec_swap_t *sw = &sl->swaps[sl->nswaps];
        if (!json_object_is_type (w, json_type_object)
            || !(sw->failed = get_str (w, "failed"))
            || !(sw->spare = get_str (w, "spare"))
            || !json_object_object_get_ex (w, "time", &t)
            || !json_object_is_type (t, json_type_string)) {
            sl->nswaps++;
            return jt_errprintf (err, "bound.leases[%zu].swaps[%zu]: want {\"failed\": "
                                 "NODE, \"spare\": NODE, \"time\": RFC 3339}", i, k);
        }
        sl->nswaps++;
        if (jt_time_parse (json_object_get_string (t), &sw->time, err) < 0)
            return -1;
    }
    return 0;
}

static int parse_lease (json_object *l, size_t i, jt_jobrec_lease_t *sl,
                        jt_error_t *err)
{
    json_object *v;
    int64_t x;

    if (!json_object_is_type (l, json_type_object))
        return jt_errprintf (err, "bound.leases[%zu] is not an object", i);
    if (!json_object_object_get_ex (l, "envelope", &v))
        return jt_errprintf (err, "bound.leases[%zu] has no envelope", i);
    if (!json_object_is_type (v, json_type_string) || !*json_object_get_string (v))
        return jt_errprintf (err, "bound.leases[%zu].envelope is empty", i);
    if (!(sl->envelope = strdup (json_object_get_string (v))))
        return jt_errprintf (err, "out of memory");
    if (json_object_object_get_ex (l, "group", &v)) {
        if (get_int (l, "group", &x) < 0 || x < 0 || x >= JT_JOBREC_MAX_LEASES)
            return jt_errprintf (err, "bound.leases[%zu].group: not a group index "
                                 "(0..%d)", i, JT_JOBREC_MAX_LEASES - 1);
        sl->group = (int) x;
    }
    if (json_object_object_get_ex (l, "gpus", &v)) {
        if (get_int (l, "gpus", &x) < 0 || x < 0 || x > JT_RUN_GPUS_MAX)
            return jt_errprintf (err, "bound.leases[%zu].gpus: not a GPU count "
                                 "(0..%" PRId64 ")", i, JT_RUN_GPUS_MAX);
        sl->gpus = x;
    }
    sl->role = JT_ROLE_ACTIVE;
    if (json_object_object_get_ex (l, "role", &v)
        && (!json_object_is_type (v, json_type_string)
            || jt_role_parse (json_object_get_string (v), &sl->role) < 0))
        return jt_errprintf (err, "bound.leases[%zu].role: unknown role", i);
    if (json_object_object_get_ex (l, "nodes", &v)
        && str_array (v, "nodes", i, &sl->nodes, &sl->nnodes, err) < 0)
        return -1;
    if (json_object_object_get_ex (l, "spares", &v)
        && str_array (v, "spares", i, &sl->spares, &sl->nspares, err) < 0)
        return -1;
    if (json_object_object_get_ex (l, "swaps", &v)
        && parse_swaps (v, i, sl, err) < 0)
        return -1;
    if (json_object_object_get_ex (l, "conformance", &v)) {
        if (!json_object_is_type (v, json_type_string)
            || !jt_label_value_ok (json_object_get_string (v)))
            return jt_errprintf (err, "bound.leases[%zu].conformance: not a node "
                                 "label value", i);
        if (!(sl->conformance = strdup (json_object_get_string (v))))
            return jt_errprintf (err, "out of memory");
    }
    return 0;
}

static int parse_bound (json_object *bound, jt_jobrec_t *rec, jt_error_t *err)
{
    json_object *leases, *v;
    size_t n;

    if (!json_object_is_type (bound, json_type_object))
        return jt_errprintf (err, "bound is not an object");
    if (json_object_object_get_ex (bound, "time", &v)) {
        if (!json_object_is_type (v, json_type_string))
            return jt_errprintf (err, "bound.time is not a time");
        if (jt_time_parse (json_object_get_string (v), &rec->bound_time, err) < 0)
            return -1;
    }
    if (!json_object_object_get_ex (bound, "leases", &leases)
        || !json_object_is_type (leases, json_type_array))
        return jt_errprintf (err, "bound.leases is not an array");
    if ((n = json_object_array_length (leases)) > JT_JOBREC_MAX_LEASES)
        return jt_errprintf (err, "bound.leases: %zu leases (at most %d)", n,
                             JT_JOBREC_MAX_LEASES);
    if (!(rec->bound = calloc (n ? n : 1, sizeof (*rec->bound))))
        return jt_errprintf (err, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (parse_lease (json_object_array_get_idx (leases, i), i,
                         &rec->bound[rec->nbound++], err) < 0)
            return -1;
    return 0;
}

/* job_submit's members: funding, fundedGPUs, borrowedGPUs, reason. */
static int parse_funding (json_object *top, jt_jobrec_t *out, jt_error_t *err)
{
    json_object *fund, *reason;
    size_t n;

    if (!json_object_object_get_ex (top, "funding", &fund)
        || !json_object_is_type (fund, json_type_array)
        || get_int (top, "fundedGPUs", &out->funded_gpus) < 0
        || get_int (top, "borrowedGPUs", &out->borrowed_gpus) < 0
        || !json_object_object_get_ex (top, "reason", &reason)
        || !json_object_is_type (reason, json_type_string))
        return jt_errprintf (err, "Jobtree record: missing run, funding, "
                             "fundedGPUs, borrowedGPUs or reason");
    snprintf (out->reason, sizeof (out->reason), "%s", json_object_get_string (reason));
    if ((n = json_object_array_length (fund)) > JT_JOBREC_MAX_LEASES)
        return jt_errprintf (err, "Jobtree record: %zu funding segments (at most %d)",
                             n, JT_JOBREC_MAX_LEASES);
    if (n && !(out->segs = calloc (n, sizeof (*out->segs))))
        return jt_errprintf (err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_object *s = json_object_array_get_idx (fund, i);
        jt_jobrec_seg_t *g = &out->segs[i];
        out->nsegs++;
        if (!(g->envelope = get_str (s, "envelope"))
            || !(g->owner = get_str (s, "owner"))
            || !(g->source = get_str (s, "source"))
            || get_int (s, "firstGroup", &g->first_group) < 0
            || get_int (s, "groups", &g->groups) < 0
            || get_int (s, "gpus", &g->gpus) < 0)
            return jt_errprintf (err, "Jobtree record: funding[%zu] incomplete", i);
    }
    return 0;
}

static int parse_run (json_object *run, jt_jobrec_t *out, jt_error_t *err)
{
    const char *text = json_object_to_json_string_ext (run, JSON_C_TO_STRING_PLAIN);
    jt_diags_t diags;

    if (!text)
        return jt_errprintf (err, "out of memory");
    jt_diags_init (&diags);
    out->run = jt_run_parse_json ("admin_comment", text, strlen (text), &diags);
    if (!out->run) {
        char line[JT_ERRMSG_MAX] = "invalid run";
        if (diags.n > 0)
            jt_diag_format (&diags.v[0], line, sizeof (line));
        jt_diags_free (&diags);
        return jt_errprintf (err, "Jobtree record: bad run: %s", line);
    }
    jt_diags_free (&diags);
    return 0;
}

int jt_jobrec_parse (const char *text, jt_jobrec_t *out, jt_error_t *err)
{
    json_object *top, *run, *bound;
    int rc = -1;

    memset (out, 0, sizeof (*out));
    if (!(top = record_object (text, err)))
        return -1;
    if (json_object_object_get_ex (top, "bound", &bound)
        && parse_bound (bound, out, err) < 0)
        goto done;
    if (json_object_object_get_ex (top, "run", &run)) {
        if (parse_funding (top, out, err) < 0 || parse_run (run, out, err) < 0)
            goto done;
    } else {
        /* The older form: the whole object is the run, less "bound". */
        json_object *bare = json_object_new_object ();
        if (!bare) {
            jt_errprintf (err, "out of memory");
            goto done;
        }
        json_object_object_foreach (top, key, val) {
            if (strcmp (key, "bound"))
                json_object_object_add (bare, key, json_object_get (val));
        }
        rc = parse_run (bare, out, err);
        json_object_put (bare);
        if (rc < 0)
            goto done;
    }
    rc = 0;
done:
    json_object_put (top);
    if (rc < 0)
        jt_jobrec_free (out);
    return rc;
}

static void free_names (char **v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        free (v[k]);
    free (v);
}

void jt_jobrec_free (jt_jobrec_t *rec)
{
    if (!rec)
        return;
    jt_run_destroy (rec->run);
    for (size_t i = 0; i < rec->nsegs; i++) {
        free (rec->segs[i].envelope);
        free (rec->segs[i].owner);
        free (rec->segs[i].source);
    }
    free (rec->segs);
    for (size_t i = 0; i < rec->nbound; i++) {
        free (rec->bound[i].envelope);
        free_names (rec->bound[i].nodes, rec->bound[i].nnodes);
        free_names (rec->bound[i].spares, rec->bound[i].nspares);
        for (size_t k = 0; k < rec->bound[i].nswaps; k++) {
            free (rec->bound[i].swaps[k].failed);
            free (rec->bound[i].swaps[k].spare);
        }
        free (rec->bound[i].swaps);
        free (rec->bound[i].conformance);
    }
    free (rec->bound);
    memset (rec, 0, sizeof (*rec));
}

/* ---- bind ---- */

static json_object *node_names (const size_t *idx, size_t n, const jt_snapshot_t *s)
{
    json_object *a = json_object_new_array ();

    for (size_t k = 0; a && k < n; k++)
        json_object_array_add (a, json_object_new_string (s->nodes[idx[k]].name));
    return a;
}

static json_object *group_lease (const jt_plan_group_t *g, const jt_snapshot_t *s)
{
    json_object *l = json_object_new_object ();

    if (!l)
        return NULL;
    json_object_object_add (l, "group", json_object_new_int ((int) g->index));
    json_object_object_add (l, "envelope",
                            json_object_new_string (g->env ? g->env->name : ""));
    json_object_object_add (l, "role", json_object_new_string (jt_role_str (g->role)));
    json_object_object_add (l, "gpus", json_object_new_int64 (g->gpus));
    json_object_object_add (l, "nodes", node_names (g->nodes, g->nnodes, s));
    if (g->nspares)
        json_object_object_add (l, "spares", node_names (g->spares, g->nspares, s));
    {   /* the fingerprint the group runs on (jobtree/conformance.h) */
        const char *fp;
        jt_conformance_kind_t k = jt_conformance_of (s, g->nodes, g->nnodes, &fp);
        if (k != JT_CONF_NONE)
            json_object_object_add (l, "conformance", json_object_new_string (
                                        k == JT_CONF_ONE ? fp : JT_CONFORMANCE_MIXED));
    }
    return l;
}

char *jt_jobrec_bind (const char *text, const jt_plan_t *plan,
                      const jt_snapshot_t *s, int64_t now, jt_error_t *err)
{
    json_object *o, *bound, *leases;
    char ts[32], *out;

    if (!(o = record_object (text, err)))
        return NULL;
    if (!(bound = json_object_new_object ())) {
        json_object_put (o);
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    json_object_object_add (o, "bound", bound);
    leases = json_object_new_array ();
    jt_time_format (now, ts, sizeof (ts));
    json_object_object_add (bound, "time", json_object_new_string (ts));
    for (size_t i = 0; leases && i < plan->ngroups; i++)
        json_object_array_add (leases, group_lease (&plan->groups[i], s));
    json_object_object_add (bound, "leases", leases);
    if (!(out = tagged (o)))
        jt_errprintf (err, "out of memory");
    json_object_put (o);
    return out;
}

/* ---- rebind (a spare swapped in: jobtree/spares.h) ---- */

static json_object *name_array (char *const *v, size_t n)
{
    json_object *a = json_object_new_array ();

    for (size_t k = 0; a && k < n; k++)
        json_object_array_add (a, json_object_new_string (v[k]));
    return a;
}

static json_object *lease_json (const jt_jobrec_lease_t *b)
{
    json_object *l = json_object_new_object (), *sw;
    char ts[32];

    if (!l)
        return NULL;
    json_object_object_add (l, "group", json_object_new_int (b->group));
    json_object_object_add (l, "envelope", json_object_new_string (b->envelope));
    json_object_object_add (l, "role", json_object_new_string (jt_role_str (b->role)));
    json_object_object_add (l, "gpus", json_object_new_int64 (b->gpus));
    json_object_object_add (l, "nodes", name_array (b->nodes, b->nnodes));
    if (b->nspares)
        json_object_object_add (l, "spares", name_array (b->spares, b->nspares));
    if (b->conformance)     /* what the group started on, kept across swaps */
        json_object_object_add (l, "conformance", json_object_new_string (b->conformance));
    if (b->nswaps && (sw = json_object_new_array ())) {
        for (size_t k = 0; k < b->nswaps; k++) {
            json_object *w = json_object_new_object ();
            if (!w)
                break;
            jt_time_format (b->swaps[k].time, ts, sizeof (ts));
            json_object_object_add (w, "failed", json_object_new_string (b->swaps[k].failed));
            json_object_object_add (w, "spare", json_object_new_string (b->swaps[k].spare));
            json_object_object_add (w, "time", json_object_new_string (ts));
            json_object_array_add (sw, w);
        }
        json_object_object_add (l, "swaps", sw);
    }
    return l;
}

char *jt_jobrec_rebind (const char *text, const jt_jobrec_lease_t *leases,
                        size_t n, jt_error_t *err)
{
    json_object *o, *bound, *arr;
    char *out;

    if (!(o = record_object (text, err)))
        return NULL;
    if (!json_object_object_get_ex (o, "bound", &bound)
        || !json_object_is_type (bound, json_type_object)) {
        json_object_put (o);
        jt_errprintf (err, "Jobtree record: not bound (the run has not started)");
        return NULL;
    }
    if (!(arr = json_object_new_array ())) {
        json_object_put (o);
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        json_object_array_add (arr, lease_json (&leases[i]));
    json_object_object_add (bound, "leases", arr);
    if (!(out = tagged (o)))
        jt_errprintf (err, "out of memory");
    json_object_put (o);
    return out;
}
