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

/* Slurm's own plugins include this first: it renames libslurm calls to
 * their exported slurm_* aliases, so the plugin also loads in clients
 * linked with libslurm.so. */
#include "src/common/slurm_xlator.h"

#include <string.h>

#include <json-c/json.h>

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "select_jobtree.h"
#include "record_parse.h"

bool jt_sel_is_jobtree (const job_record_t *job_ptr)
{
    return job_ptr && job_ptr->admin_comment
           && !strncmp (job_ptr->admin_comment, JT_SEL_RECORD_TAG,
                        strlen (JT_SEL_RECORD_TAG));
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

    if (!(o = jt_rec_object (job_ptr->admin_comment, err)))
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
