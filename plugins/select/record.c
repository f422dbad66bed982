/*
 * record.c - the Jobtree record in a job's admin_comment, on Slurm's side:
 * is this job a Jobtree run, and write the funding bound at its start.
 * Format and parsing are libjobtree's (include/jobtree/record.h).
 */
#include "config.h"

/* Slurm's own plugins include this first: it renames libslurm calls to
 * their exported slurm_* aliases, so the plugin also loads in clients
 * linked with libslurm.so. */
#include "src/common/slurm_xlator.h"

#include <stdlib.h>

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include <jobtree/record.h>

#include "select_jobtree.h"

bool jtsel_is_jobtree (const job_record_t *job_ptr)
{
    return job_ptr && jt_jobrec_is (job_ptr->admin_comment);
}

int jtsel_record_bind (job_record_t *job_ptr, const jt_plan_t *plan,
                        const jt_snapshot_t *s, int64_t now, jt_error_t *err)
{
    char *text = jt_jobrec_bind (job_ptr->admin_comment, plan, s, now, err);

    if (!text)
        return -1;
    xfree (job_ptr->admin_comment);
    job_ptr->admin_comment = xstrdup (text);
    free (text);
    return 0;
}
