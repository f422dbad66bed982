/*
 * record.c - format and parse the admin_comment record (see record.h).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "record.h"

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
                            json_object_new_int64 ((int64_t)s->first_group));
    json_object_object_add (o, "groups", json_object_new_int64 ((int64_t)s->ngroups));
    json_object_object_add (o, "gpus", json_object_new_int64 (s->gpus));
    return o;
}

char *jt_acrec_format (const jt_run_t *r, const jt_cover_t *c)
{
    char *run_text = jt_run_to_json (r);
    json_object *top = NULL, *run = NULL, *fund = NULL;
    const char *s;
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
    s = json_object_to_json_string_ext (top, JSON_C_TO_STRING_PLAIN
                                        | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (s && (out = malloc (strlen (JT_ACREC_TAG) + strlen (s) + 1))) {
        strcpy (out, JT_ACREC_TAG);
        strcat (out, s);
    }
done:
    json_object_put (run);
    json_object_put (fund);
    json_object_put (top);
    free (run_text);
    return out;
}

int jt_acrec_is (const char *text)
{
    return text && strncmp (text, JT_ACREC_TAG, strlen (JT_ACREC_TAG)) == 0;
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

static char *get_str (json_object *o, const char *key)
{
    json_object *x;

    if (!json_object_object_get_ex (o, key, &x)
        || !json_object_is_type (x, json_type_string))
        return NULL;
    return strdup (json_object_get_string (x));
}

void jt_acrec_free (jt_acrec_t *rec)
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
    memset (rec, 0, sizeof (*rec));
}

int jt_acrec_parse (const char *text, jt_acrec_t *out, jt_error_t *err)
{
    json_object *top = NULL, *run, *fund, *reason;
    jt_diags_t diags;
    const char *rs;
    size_t n;

    memset (out, 0, sizeof (*out));
    if (!jt_acrec_is (text))
        return jt_errprintf (err, "not a Jobtree record (no \"%s\" tag)", "jobtree/1");
    if (!(top = json_tokener_parse (text + strlen (JT_ACREC_TAG)))
        || !json_object_is_type (top, json_type_object)) {
        jt_errprintf (err, "Jobtree record: not a JSON object");
        goto fail;
    }
    if (!json_object_object_get_ex (top, "run", &run)
        || !json_object_object_get_ex (top, "funding", &fund)
        || !json_object_is_type (fund, json_type_array)
        || get_int (top, "fundedGPUs", &out->funded_gpus) < 0
        || get_int (top, "borrowedGPUs", &out->borrowed_gpus) < 0
        || !json_object_object_get_ex (top, "reason", &reason)) {
        jt_errprintf (err, "Jobtree record: missing run, funding, fundedGPUs, "
                      "borrowedGPUs or reason");
        goto fail;
    }
    snprintf (out->reason, sizeof (out->reason), "%s", json_object_get_string (reason));
    rs = json_object_to_json_string_ext (run, JSON_C_TO_STRING_PLAIN);
    jt_diags_init (&diags);
    out->run = jt_run_parse_json ("admin_comment", rs, strlen (rs), &diags);
    if (!out->run) {
        char line[JT_ERRMSG_MAX] = "";
        if (diags.n)
            jt_diag_format (&diags.v[0], line, sizeof (line));
        jt_diags_free (&diags);
        jt_errprintf (err, "Jobtree record: bad run: %s", line);
        goto fail;
    }
    jt_diags_free (&diags);
    n = json_object_array_length (fund);
    if (n && !(out->segs = calloc (n, sizeof (*out->segs)))) {
        jt_errprintf (err, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *s = json_object_array_get_idx (fund, i);
        jt_acrec_seg_t *g = &out->segs[i];
        out->nsegs++;
        if (!(g->envelope = get_str (s, "envelope"))
            || !(g->owner = get_str (s, "owner"))
            || !(g->source = get_str (s, "source"))
            || get_int (s, "firstGroup", &g->first_group) < 0
            || get_int (s, "groups", &g->groups) < 0
            || get_int (s, "gpus", &g->gpus) < 0) {
            jt_errprintf (err, "Jobtree record: funding[%zu] incomplete", i);
            goto fail;
        }
    }
    json_object_put (top);
    return 0;
fail:
    json_object_put (top);
    jt_acrec_free (out);
    return -1;
}
