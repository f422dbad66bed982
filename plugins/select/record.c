/*
 * record.c - the Jobtree record in a job's admin_comment.
 *
 * The job_submit plugin writes "jobtree/1 " followed by one JSON object
 * (docs/admin-guide.md): either the run document itself or an object whose
 * "run" member is the run. admin_comment is settable only by admins, so
 * users cannot forge a record. When the job starts, this plugin adds the
 * funding it actually bound as the object's "bound" member:
 *
 *   "bound": { "time": "2026-03-01T12:00:00Z",
 *              "leases": [ { "group": 0, "envelope": "west-h100",
 *                            "role": "Active", "gpus": 64,
 *                            "nodes": ["a01", ...] } ] }
 *
 * so the funding shows in `scontrol show job`, survives a slurmctld restart
 * (job state is saved with it) and is what live usage is rebuilt from.
 */
#include "config.h"

#include <string.h>

#include <json-c/json.h>

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "select_jobtree.h"

bool jt_sel_is_jobtree (const job_record_t *job_ptr)
{
    return job_ptr && job_ptr->admin_comment
           && !strncmp (job_ptr->admin_comment, JT_SEL_RECORD_TAG,
                        strlen (JT_SEL_RECORD_TAG));
}

static json_object *record_object (const char *admin_comment, jt_error_t *err)
{
    json_tokener *tok;
    json_object *o;
    const char *text;

    if (!admin_comment
        || strncmp (admin_comment, JT_SEL_RECORD_TAG, strlen (JT_SEL_RECORD_TAG))) {
        jt_errprintf (err, "no \"%s\" record", JT_SEL_RECORD_TAG);
        return NULL;
    }
    text = admin_comment + strlen (JT_SEL_RECORD_TAG);
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

static int parse_leases (json_object *bound, jt_sel_record_t *rec,
                         jt_error_t *err)
{
    json_object *leases, *v;
    size_t n;

    if (json_object_object_get_ex (bound, "time", &v)) {
        int64_t t;
        if (jt_time_parse (json_object_get_string (v), &t, err) < 0)
            return -1;
        rec->bound_time = t;
    }
    if (!json_object_object_get_ex (bound, "leases", &leases)
        || !json_object_is_type (leases, json_type_array))
        return jt_errprintf (err, "bound.leases is not an array");
    n = json_object_array_length (leases);
    rec->bound = xcalloc (n ? n : 1, sizeof (*rec->bound));
    for (size_t i = 0; i < n; i++) {
        json_object *l = json_object_array_get_idx (leases, i), *nodes;
        jt_sel_lease_t *sl = &rec->bound[rec->nbound++];

        if (!json_object_object_get_ex (l, "envelope", &v))
            return jt_errprintf (err, "bound.leases[%zu] has no envelope", i);
        sl->envelope = xstrdup (json_object_get_string (v));
        if (json_object_object_get_ex (l, "group", &v))
            sl->group = json_object_get_int (v);
        if (json_object_object_get_ex (l, "gpus", &v))
            sl->gpus = json_object_get_int64 (v);
        sl->role = JT_ROLE_ACTIVE;
        if (json_object_object_get_ex (l, "role", &v)
            && jt_role_parse (json_object_get_string (v), &sl->role) < 0)
            return jt_errprintf (err, "bound.leases[%zu].role: unknown role", i);
        if (json_object_object_get_ex (l, "nodes", &nodes)
            && json_object_is_type (nodes, json_type_array)) {
            size_t nn = json_object_array_length (nodes);
            sl->nodes = xcalloc (nn ? nn : 1, sizeof (char *));
            for (size_t k = 0; k < nn; k++)
                sl->nodes[sl->nnodes++] = xstrdup (json_object_get_string (
                    json_object_array_get_idx (nodes, k)));
        }
    }
    return 0;
}

int jt_sel_record_parse (const char *admin_comment, jt_sel_record_t *rec,
                         jt_error_t *err)
{
    json_object *o, *run, *bound;
    jt_diags_t diags;
    const char *text;
    int rc = -1;

    memset (rec, 0, sizeof (*rec));
    if (!(o = record_object (admin_comment, err)))
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
        jt_sel_record_free (rec);
    return rc;
}

void jt_sel_record_free (jt_sel_record_t *rec)
{
    if (!rec)
        return;
    jt_run_destroy (rec->run);
    for (size_t i = 0; i < rec->nbound; i++) {
        xfree (rec->bound[i].envelope);
        for (size_t k = 0; k < rec->bound[i].nnodes; k++)
            xfree (rec->bound[i].nodes[k]);
        xfree (rec->bound[i].nodes);
    }
    xfree (rec->bound);
    memset (rec, 0, sizeof (*rec));
}

static json_object *group_lease (const jt_plan_group_t *g,
                                 const jt_snapshot_t *s)
{
    json_object *l = json_object_new_object ();
    json_object *nodes = json_object_new_array ();

    json_object_object_add (l, "group", json_object_new_int ((int) g->index));
    json_object_object_add (l, "envelope",
                            json_object_new_string (g->env ? g->env->name : ""));
    json_object_object_add (l, "role", json_object_new_string (jt_role_str (g->role)));
    json_object_object_add (l, "gpus", json_object_new_int64 (g->gpus));
    for (size_t k = 0; k < g->nnodes; k++)
        json_object_array_add (nodes,
            json_object_new_string (s->nodes[g->nodes[k]].name));
    json_object_object_add (l, "nodes", nodes);
    if (g->nspares) {
        json_object *sp = json_object_new_array ();
        for (size_t k = 0; k < g->nspares; k++)
            json_object_array_add (sp,
                json_object_new_string (s->nodes[g->spares[k]].name));
        json_object_object_add (l, "spares", sp);
    }
    return l;
}

int jt_sel_record_bind (job_record_t *job_ptr, const jt_plan_t *plan,
                        const jt_snapshot_t *s, int64_t now, jt_error_t *err)
{
    json_object *o, *bound, *leases;
    char ts[32];

    if (!(o = record_object (job_ptr->admin_comment, err)))
        return -1;
    bound = json_object_new_object ();
    leases = json_object_new_array ();
    jt_time_format (now, ts, sizeof (ts));
    json_object_object_add (bound, "time", json_object_new_string (ts));
    for (size_t i = 0; i < plan->ngroups; i++)
        json_object_array_add (leases, group_lease (&plan->groups[i], s));
    json_object_object_add (bound, "leases", leases);
    json_object_object_add (o, "bound", bound);
    xfree (job_ptr->admin_comment);
    job_ptr->admin_comment = xstrdup_printf ("%s%s", JT_SEL_RECORD_TAG,
        json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN));
    json_object_put (o);
    return 0;
}
