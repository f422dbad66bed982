/*
 * record_parse.c - read the Jobtree record of a job's admin_comment,
 * without Slurm (shared by the select plugin and `jobtree snapshot`).
 * The format is described in record_parse.h.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "record_parse.h"

json_object *jt_rec_object (const char *admin_comment, jt_error_t *err)
{
    json_tokener *tok;
    json_object *o;
    const char *text;

    if (!admin_comment
        || strncmp (admin_comment, JT_REC_TAG, strlen (JT_REC_TAG))) {
        jt_errprintf (err, "no \"%s\" record", JT_REC_TAG);
        return NULL;
    }
    text = admin_comment + strlen (JT_REC_TAG);
    if (!(tok = json_tokener_new ())) {
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    o = json_tokener_parse_ex (tok, text, (int) strlen (text));
    if (!o || json_tokener_get_error (tok) != json_tokener_success
        || !json_object_is_type (o, json_type_object)) {
        jt_errprintf (err, "record is not a JSON object: %s",
                      json_tokener_error_desc (json_tokener_get_error (tok)));
        json_object_put (o);
        o = NULL;
    }
    json_tokener_free (tok);
    return o;
}

/* A JSON array of strings into a malloc'd array (*n set as filled, so a
 * partial one is freed by jt_rec_free). Not an array: left empty. 0 or -1. */
static int str_array (json_object *a, char ***out, size_t *n)
{
    size_t nn;

    if (!json_object_is_type (a, json_type_array))
        return 0;
    nn = json_object_array_length (a);
    if (!(*out = calloc (nn ? nn : 1, sizeof (char *))))
        return -1;
    for (size_t k = 0; k < nn; k++) {
        const char *name = json_object_get_string (json_object_array_get_idx (a, k));
        if (!((*out)[*n] = strdup (name ? name : "")))
            return -1;
        (*n)++;
    }
    return 0;
}

static int parse_leases (json_object *bound, jt_rec_t *rec, jt_error_t *err)
{
    json_object *leases, *v;
    size_t n;

    if (json_object_object_get_ex (bound, "time", &v)) {
        int64_t t;
        const char *ts = json_object_get_string (v);
        if (!ts || jt_time_parse (ts, &t, err) < 0)
            return -1;
        rec->bound_time = t;
    }
    if (!json_object_object_get_ex (bound, "leases", &leases)
        || !json_object_is_type (leases, json_type_array))
        return jt_errprintf (err, "bound.leases is not an array");
    n = json_object_array_length (leases);
    if (!(rec->bound = calloc (n ? n : 1, sizeof (*rec->bound))))
        return jt_errprintf (err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_object *l = json_object_array_get_idx (leases, i), *nodes;
        jt_rec_lease_t *sl = &rec->bound[rec->nbound++];

        if (!json_object_object_get_ex (l, "envelope", &v))
            return jt_errprintf (err, "bound.leases[%zu] has no envelope", i);
        const char *env = json_object_get_string (v);
        if (!env || !*env)
            return jt_errprintf (err, "bound.leases[%zu].envelope is empty", i);
        if (!(sl->envelope = strdup (env)))
            return jt_errprintf (err, "out of memory");
        if (json_object_object_get_ex (l, "group", &v))
            sl->group = json_object_get_int (v);
        if (json_object_object_get_ex (l, "gpus", &v))
            sl->gpus = json_object_get_int64 (v);
        sl->role = JT_ROLE_ACTIVE;
        if (json_object_object_get_ex (l, "role", &v)
            && (!json_object_get_string (v)
                || jt_role_parse (json_object_get_string (v), &sl->role) < 0))
            return jt_errprintf (err, "bound.leases[%zu].role: unknown role", i);
        if (json_object_object_get_ex (l, "nodes", &nodes)
            && str_array (nodes, &sl->nodes, &sl->nnodes) < 0)
            return jt_errprintf (err, "out of memory");
        if (json_object_object_get_ex (l, "spares", &nodes)
            && str_array (nodes, &sl->spares, &sl->nspares) < 0)
            return jt_errprintf (err, "out of memory");
    }
    return 0;
}

int jt_rec_parse (const char *admin_comment, jt_rec_t *rec, jt_error_t *err)
{
    json_object *o, *run, *bound;
    jt_diags_t diags;
    const char *text;
    int rc = -1;

    memset (rec, 0, sizeof (*rec));
    if (!(o = jt_rec_object (admin_comment, err)))
        return -1;
    if (json_object_object_get_ex (o, "bound", &bound)
        && parse_leases (bound, rec, err) < 0)
        goto out;
    if (json_object_object_get_ex (o, "run", &run))
        run = json_object_get (run);
    else {
        /* The whole object is the run, less what this plugin added. */
        run = json_object_new_object ();
        json_object_object_foreach (o, key, val) {
            if (strcmp (key, "bound"))
                json_object_object_add (run, key, json_object_get (val));
        }
    }
    text = json_object_to_json_string_ext (run, JSON_C_TO_STRING_PLAIN);
    jt_diags_init (&diags);
    rec->run = jt_run_parse_json ("admin_comment", text, strlen (text), &diags);
    if (!rec->run) {
        char line[JT_ERRMSG_MAX] = "invalid run";
        if (diags.n > 0)
            jt_diag_format (&diags.v[0], line, sizeof (line));
        jt_errprintf (err, "%s", line);
    } else
        rc = 0;
    jt_diags_free (&diags);
    json_object_put (run);
out:
    json_object_put (o);
    if (rc < 0)
        jt_rec_free (rec);
    return rc;
}

void jt_rec_free (jt_rec_t *rec)
{
    if (!rec)
        return;
    jt_run_destroy (rec->run);
    for (size_t i = 0; i < rec->nbound; i++) {
        free (rec->bound[i].envelope);
        for (size_t k = 0; k < rec->bound[i].nnodes; k++)
            free (rec->bound[i].nodes[k]);
        free (rec->bound[i].nodes);
        for (size_t k = 0; k < rec->bound[i].nspares; k++)
            free (rec->bound[i].spares[k]);
        free (rec->bound[i].spares);
    }
    free (rec->bound);
    memset (rec, 0, sizeof (*rec));
}

