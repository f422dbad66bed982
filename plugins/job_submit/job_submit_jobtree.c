/*
 * job_submit_jobtree.c - job_submit/jobtree: admission of Jobtree runs.
 *
 * slurmctld calls job_submit() for every new job, holding the config, job,
 * node and partition read locks (so the node table may be read, never
 * locked). This file only reads job_desc_msg_t into plain values and writes
 * the answer back: the admission policy (which jobs are Jobtree runs, the
 * refusals, UnfundedPolicy, the admin_comment record) is jt_admit's
 * (include/jobtree/admit.h, src/lib/admit.c); the node table and the
 * accounting database are asked through its callbacks, only for runs.
 *
 * Refusals are one line each, "jobtree: ...", returned to sbatch through
 * err_msg with an ESLURM code. Nothing here may exit, abort or fatal():
 * a bad budget file keeps the last good budgets (jobtree/reload.h, through
 * plugins/common/state.c).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"             /* Slurm's: plugins have no -I to ours */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm_errno.h"
#include "src/common/slurm_xlator.h"
#include "src/common/assoc_mgr.h"
#include "src/common/uid.h"

#include "compat.h"               /* what differs between Slurm releases */

#include "jobtree/admit.h"
#include "jobtree/elastic.h"
#include "jobtree/nodemap.h"

#include "nodes.h"
#include "state.h"

const char plugin_name[] = "Jobtree admission (budgets, groups, options)";
const char plugin_type[] = "job_submit/jobtree";
const uint32_t plugin_version = JTC_PLUGIN_VERSION;

static jtsub_state_t state = { .who = "job_submit/jobtree" };

/* The job being admitted, for the callbacks that ask slurmctld. */
struct who {
    const job_desc_msg_t *jd;
    uint32_t uid;
};

extern int init (void)
{
    jtsub_state_refresh (&state);
    return SLURM_SUCCESS;
}

extern int fini (void)
{
    jtsub_state_fini (&state);
    return SLURM_SUCCESS;
}

/* The account charged when the job names none: the user's default account
 * (the accounting database's, as slurmctld fills it in after job_submit),
 * else (no accounting database) the user's name. For jt_admit_cluster_t;
 * arg is the job. 0, or -1 when unknown. */
static int default_account (void *arg, char *buf, size_t len)
{
    const job_desc_msg_t *jd = ((const struct who *)arg)->jd;
    uint32_t uid = ((const struct who *)arg)->uid;
    assoc_mgr_lock_t locks = { .user = READ_LOCK };
    slurmdb_user_rec_t user;
    char *name = NULL;
    int rc = -1;

    if (jd->user_id != NO_VAL)
        uid = jd->user_id;
    /* locked=true: with no user list loaded it answers "no default"
     * instead of querying the database under slurmctld's locks. */
    memset (&user, 0, sizeof (user));
    user.uid = uid;
    assoc_mgr_lock (&locks);
    if (assoc_mgr_fill_in_user (NULL, &user, 0, NULL, true) == SLURM_SUCCESS
        && user.default_acct && user.default_acct[0]) {
        snprintf (buf, len, "%s", user.default_acct);
        rc = 0;
    }
    assoc_mgr_unlock (&locks);
    if (rc < 0 && (name = uid_to_string_or_null ((uid_t)uid))) {
        snprintf (buf, len, "%s", name);
        rc = 0;
    }
    xfree (name);
    return rc;
}

/* Every configured node for jt_admit's placement check (jobtree/admit.h),
 * as the select plugin's view reads them (plugins/common/nodes.c), with
 * slurm.conf's GRES: state and usage do not matter there. The caller
 * holds the node read lock. 0, or -1 with err set. */
static int configured_nodes (void *arg, jt_snapshot_t *s, const char *domain_key,
                             jt_error_t *err)
{
    (void) arg;
    return jtc_nodes_add (s, domain_key, JTC_NODES_CONFIGURED, err);
}

/* The error code of each kind of refusal. */
static int refusal_code (jt_admit_refusal_t kind)
{
    switch (kind) {
    case JT_ADMIT_BAD_GRES:
        return ESLURM_INVALID_GRES;
    case JT_ADMIT_BAD_GRES_TYPE:
        return ESLURM_INVALID_GRES_TYPE;
    case JT_ADMIT_BAD_NODE_COUNT:
        return ESLURM_INVALID_NODE_COUNT;
    case JT_ADMIT_NO_BUDGET:
        return ESLURM_INVALID_ACCOUNT;
    case JT_ADMIT_NEVER_FUNDABLE:
        return ESLURM_ACCOUNTING_POLICY;
    case JT_ADMIT_NEVER_PLACEABLE:
        return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
    case JT_ADMIT_NO_MEMORY:
        return ENOMEM;
    }
    return ESLURM_INVALID_GRES;
}

/* A job's TRES request as 22.05 spells it: 24.11 writes the GPU entries of
 * --gpus and friends as "gres/gpu:..." where 22.05 wrote "gres:gpu:..."
 * (docs/slurm-24.11.md). libjobtree reads both; the refusal lines echo the
 * request, so they read the same on both versions. xfree the result. */
static char *tres_as_2205 (const char *tres)
{
    char *t = xstrdup (tres);

    for (char *p = t; p && (p = strstr (p, "gres/")); p += 5)
        if (p == t || p[-1] == ',')
            p[4] = ':';
    return t;
}

extern int job_submit (job_desc_msg_t *jd, uint32_t submit_uid, char **err_msg)
{
    char *per_job = tres_as_2205 (jd->tres_per_job);
    char *per_node = tres_as_2205 (jd->tres_per_node);
    char *per_socket = tres_as_2205 (jd->tres_per_socket);
    struct who who = { jd, submit_uid };
    jt_admit_cluster_t cluster = {
        .gpus_per_node = jtsub_state_node_gpus,
        .only_flavor = jtsub_state_only_flavor,
        .default_account = default_account,
        .arg = &who,
        .nodes = configured_nodes,
    };
    jt_admit_req_t req = {
        .account = jd->account,
        .tres_per_job = per_job,
        .tres_per_node = per_node,
        .tres_per_socket = per_socket,
        .min_nodes = jd->min_nodes != NO_VAL ? (int64_t)jd->min_nodes : 0,
        .sockets_per_node = jd->sockets_per_node != NO_VAL16
                            ? (int64_t)jd->sockets_per_node : 0,
        .env = jd->spank_job_env,
        .nenv = jd->spank_job_env_size,
        .time_limit_min = jd->time_limit != NO_VAL && jd->time_limit != INFINITE
                          ? (int64_t)jd->time_limit : 0,
        .now = (int64_t)time (NULL),
    };
    const jt_config_t *jconf;
    jt_admit_t a;
    int rc = SLURM_SUCCESS;

    jtsub_state_refresh (&state);
    jconf = jtsub_state_conf (&state);
    switch (jt_admit (&req, jconf, jtsub_state_budgets (&state), &cluster, &a)) {
    case JT_ADMIT_PASS:
        break;                  /* not a Jobtree run: untouched */
    case JT_ADMIT_UNFUNDED:
        info ("%s: UnfundedPolicy=passthrough: job of uid %u runs as plain "
              "Slurm: %s", plugin_type, submit_uid, a.line);
        break;
    case JT_ADMIT_REFUSE:
        info ("%s: refused job of uid %u: %s", plugin_type, submit_uid, a.line);
        if (err_msg)
            *err_msg = xstrdup (a.line);
        rc = refusal_code (a.refusal);
        break;
    case JT_ADMIT_RUN:
        xfree (jd->admin_comment);
        jd->admin_comment = xstrdup (a.record);
        if (a.spare_nodes > 0) {
            /* --spares: the spare nodes are allocated with the run, and the
             * job survives a node failure so a spare can take the failed
             * node's place (job_mgr.c kill_running_job_by_node_name keeps a
             * job with kill_on_node_fail 0 and more than one node running
             * and excises the node; docs/select-plugin.md, "Spares"). */
            if (a.min_nodes > 0)
                jd->min_nodes = (uint32_t) a.min_nodes;
            jd->max_nodes = (uint32_t) a.max_nodes;
            if (jd->min_nodes != NO_VAL && jd->min_nodes > jd->max_nodes)
                jd->min_nodes = jd->max_nodes;
            jd->kill_on_node_fail = 0;
        }
        info ("%s: uid %u %s", plugin_type, submit_uid, a.summary);
        if (jconf && jconf->debug)
            info ("%s: record: %s", plugin_type, a.record);
        break;
    }
    jt_admit_free (&a);
    xfree (per_job);
    xfree (per_node);
    xfree (per_socket);
    return rc;
}

/* err_msg since 24.11 (compat_*.h: JTC_JOB_MODIFY_ERR_MSG).
 *
 * `scontrol update JobId=X NumNodes=N` on a running Jobtree run: it
 * shrinks by whole groups, the highest first, never below its malleable
 * minimum (jt_elastic_shrink decides); the count becomes the NodeList of
 * the groups kept, so Slurm ends exactly the others (and the select
 * plugin's lease events end their leases: Shrink). Any other count is
 * refused with the counts that would do. A NodeList update (an admin's,
 * or the select plugin's own for an activation) and anything else are
 * Slurm's. */
extern int job_modify (job_desc_msg_t *jd, job_record_t *job_ptr,
                       uint32_t submit_uid JTC_JOB_MODIFY_ERR_MSG)
{
    char why[512] = "", *keep = NULL;
    int64_t kept = 0;
    jt_jobrec_t rec;
    jt_error_t err;
    int rc;

    (void) submit_uid;
    if (!jd || !job_ptr || !IS_JOB_RUNNING (job_ptr)
        || (!jd->req_nodes && (jd->min_nodes == NO_VAL || jd->min_nodes == 0))
        || !job_ptr->admin_comment || !jt_jobrec_is (job_ptr->admin_comment))
        return SLURM_SUCCESS;
    if (jt_jobrec_parse (job_ptr->admin_comment, &rec, &err) < 0) {
        error ("job_submit/jobtree: %pJ: size update: unreadable run record: %s",
               job_ptr, err.text);
        return SLURM_SUCCESS;           /* not ours to judge without it */
    }
    if (jd->req_nodes) {                /* a NodeList: whole groups only */
        jtc_hostlist_t hl = hostlist_create (jd->req_nodes);
        const char **in;
        size_t n = 0, nin = 0;

        for (size_t i = 0; i < rec.nbound; i++)
            n += rec.bound[i].nnodes;
        in = xcalloc (n + 1, sizeof (*in));
        for (size_t i = 0; hl && i < rec.nbound; i++)
            for (size_t k = 0; k < rec.bound[i].nnodes; k++)
                if (hostlist_find (hl, rec.bound[i].nodes[k]) >= 0)
                    in[nin++] = rec.bound[i].nodes[k];
        rc = hl ? jt_elastic_split (&rec, in, nin, why, sizeof (why)) : 0;
        if (hl)
            hostlist_destroy (hl);
        xfree (in);
    } else
        rc = jt_elastic_shrink (&rec, jd->min_nodes, job_ptr->batch_host, &keep,
                                &kept, why, sizeof (why));
    jt_jobrec_free (&rec);
    if (rc < 0) {
        info ("job_submit/jobtree: %pJ: update refused: %s", job_ptr, why);
        JTC_JOB_MODIFY_SET_ERR (why);
        return ESLURM_INVALID_NODE_COUNT;
    }
    if (rc == 1) {
        info ("job_submit/jobtree: %pJ: NumNodes=%u: whole groups kept on %s "
              "(%" PRId64 " GPUs)", job_ptr, jd->min_nodes, keep, kept);
        jd->req_nodes = xstrdup (keep);
        jd->min_nodes = NO_VAL;         /* the NodeList says it all */
        jd->max_nodes = NO_VAL;
    }
    free (keep);
    return SLURM_SUCCESS;
}
