/*
 * layout.c - the SPANK plugin in remote context (slurmstepd): tells a
 * Jobtree run its layout (jobtree/spares.h), once per step.
 *
 * slurm_spank_init_post_opt (remote: in slurmstepd, as root, before it
 * drops privileges) asks slurmctld for the job (slurm_load_job: one RPC
 * per step, never from slurmctld itself) and keeps its record: Slurm 24.11
 * holds its auth lock while privileges are dropped (privileges.c's
 * auth_setuid_lock), so an RPC from user_init there is fatal to the step
 * ("auth_g_create: pthread_rwlock_rdlock(): Resource deadlock avoided").
 * slurm_spank_user_init (once per step, before the tasks are forked, as
 * the user) writes the layout JSON to $TMPDIR (else
 * /tmp)/jobtree-layout-<jobid>.json, atomically (a temporary file
 * renamed), so the job owns it. slurm_spank_task_init (in each task, which
 * inherits what user_init kept) sets, from the record and SLURMD_NODENAME:
 *
 *   JOBTREE_GROUP        the group this node runs or spares (index)
 *   JOBTREE_NODE_ROLE    "run" or "spare"
 *   JOBTREE_GROUP_NODES  the group's nodes, comma-separated
 *   JOBTREE_SPARE_NODES  the group's spares not swapped in yet
 *   JOBTREE_LAYOUT       the JSON file's path
 *
 * A job that is not a Jobtree run, or whose record has no layout yet, gets
 * nothing; a failure is logged and never fails the step (the job runs, it
 * is only not told). After a swap the job gets SIGWINCH; the file is
 * written again at its next step, and `jobtree layout` prints the current
 * layout at any time (docs/user-guide.md, "Spares").
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "jobtree/record.h"
#include "jobtree/spares.h"

#include "args.h"
#include "layout.h"

static jt_jobrec_t rec;          /* this step's job's record (bound) */
static bool have_rec;
static char path[4096];

/* The job's record, from slurmctld. 0, or -1 (not a Jobtree run, none
 * bound, or slurmctld not reached). */
static int load_record (uint32_t job_id)
{
    job_info_msg_t *msg = NULL;
    jt_error_t err = { "" };
    int rc = -1;

    if (slurm_load_job (&msg, job_id, SHOW_ALL) != SLURM_SUCCESS || !msg) {
        slurm_info ("jobtree: job %u: cannot read the job for its layout: %s", job_id,
                    slurm_strerror (errno));
        return -1;
    }
    if (msg->record_count >= 1 && jt_jobrec_is (msg->job_array[0].admin_comment)) {
        if (jt_jobrec_parse (msg->job_array[0].admin_comment, &rec, &err) < 0)
            slurm_info ("jobtree: job %u: record: %s", job_id, err.text);
        else if (rec.nbound == 0)
            jt_jobrec_free (&rec);
        else
            rc = 0;
    }
    slurm_free_job_info_msg (msg);
    return rc;
}

static int write_file (uint32_t job_id, const char *dir)
{
    char tmp[sizeof (path) + 16];
    jt_error_t err = { "" };
    char *json = jt_spares_layout_json (&rec, job_id, &err);
    FILE *f;
    int rc = -1;

    if (!json)
        return -1;
    if (snprintf (path, sizeof (path), "%s/jobtree-layout-%" PRIu32 ".json", dir, job_id)
            >= (int) sizeof (path)
        || snprintf (tmp, sizeof (tmp), "%s.%ld", path, (long) getpid ())
               >= (int) sizeof (tmp)) {
        path[0] = '\0';
        free (json);
        return -1;
    }
    if ((f = fopen (tmp, "w"))) {
        bool good = fputs (json, f) >= 0 && fputc ('\n', f) != EOF;
        if (fclose (f) == 0 && good && rename (tmp, path) == 0)
            rc = 0;
        else
            (void) unlink (tmp);
    }
    if (rc < 0) {
        slurm_info ("jobtree: job %u: cannot write %s", job_id, path);
        path[0] = '\0';
    }
    free (json);
    return rc;
}

int jtspank_layout_load (spank_t sp)
{
    uint32_t job_id = 0, step_id = 0;

    if (spank_get_item (sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS || !job_id)
        return 0;
    if (have_rec) {
        jt_jobrec_free (&rec);
        have_rec = false;
    }
    path[0] = '\0';
    /* The extern step (PrologFlags=Contain) runs no tasks: no user_init. */
    if (spank_get_item (sp, S_JOB_STEPID, &step_id) == ESPANK_SUCCESS
        && step_id == SLURM_EXTERN_CONT)
        return 0;
    /* Only a job given a Jobtree option costs slurmctld an RPC. */
    if (!jtspank_args_any () || load_record (job_id) < 0)
        return 0;
    have_rec = true;
    return 0;
}

int jtspank_layout_user_init (spank_t sp)
{
    uint32_t job_id = 0;
    char dir[2048] = "";

    if (!have_rec || spank_get_item (sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS || !job_id)
        return 0;
    if (spank_getenv (sp, "TMPDIR", dir, sizeof (dir)) != ESPANK_SUCCESS || !dir[0])
        snprintf (dir, sizeof (dir), "/tmp");
    (void) write_file (job_id, dir);
    return 0;
}

int jtspank_layout_task_init (spank_t sp)
{
    char node[256], buf[8192], num[32];
    const jt_jobrec_lease_t *b = NULL;
    bool spare = false;
    int g;

    if (!have_rec
        || spank_getenv (sp, "SLURMD_NODENAME", node, sizeof (node)) != ESPANK_SUCCESS)
        return 0;
    if (path[0])
        spank_setenv (sp, "JOBTREE_LAYOUT", path, 1);
    if ((g = jt_spares_node_group (&rec, node, &spare)) < 0)
        return 0;
    for (size_t i = 0; !b && i < rec.nbound; i++)
        if (rec.bound[i].group == g)
            b = &rec.bound[i];
    snprintf (num, sizeof (num), "%d", g);
    spank_setenv (sp, "JOBTREE_GROUP", num, 1);
    spank_setenv (sp, "JOBTREE_NODE_ROLE", spare ? "spare" : "run", 1);
    if (jt_spares_group_list (b, false, buf, sizeof (buf)) == 0)
        spank_setenv (sp, "JOBTREE_GROUP_NODES", buf, 1);
    if (jt_spares_group_list (b, true, buf, sizeof (buf)) == 0)
        spank_setenv (sp, "JOBTREE_SPARE_NODES", buf, 1);
    return 0;
}

void jtspank_layout_clear (void)
{
    if (have_rec)
        jt_jobrec_free (&rec);
    have_rec = false;
    path[0] = '\0';
}
