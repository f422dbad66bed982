/*
 * site_factor_jobtree.c - site_factor/jobtree: a Jobtree run's composite
 * ordering score (seed 004) as its job's site factor, which
 * priority/multifactor adds to the job's priority. It decides nothing: the
 * factors, the profiles and the sum are libjobtree's (jobtree/score.h);
 * this file reads slurmctld's job and node records into their inputs and
 * writes the answer back (docs/score.md says why a site_factor plugin).
 *
 * The score orders the queue; it never decides who gives way (DESIGN
 * decisions 4 and 11): preempt/jobtree offers no priority, and the select
 * plugin's activation reads no score.
 *
 * When it runs (slurmctld, with the job write lock and the node read lock
 * held; priority/multifactor calls it):
 * - site_factor_p_set: a job's priority is set (submission, release,
 *   update): that job only, against the cluster view of the last pass
 *   (built here first when there is none or the node table changed);
 * - site_factor_p_update: every PriorityCalcPeriod, before multifactor
 *   recomputes priorities: the cluster view is rebuilt (nodes, the leases
 *   of running runs, running and queued GPU-hours) and every pending run
 *   rescored.
 * A job that is not a Jobtree run keeps the site factor Slurm gave it.
 * The view is built once per pass (nodes log nodes + jobs); then a run's
 * inputs cost O(domains + envelopes + its groups) from the view's per-flavor
 * summary (jt_score_inputs_cached), O(nodes log nodes) only for a run with
 * --node-constraint (its candidates are its own). No I/O here but the configuration reload
 * after `scontrol reconfigure` (plugins/common/state.c); nothing is fatal.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/plugin.h"
#include "compat.h"
#include "nodes.h"
#include "state.h"

#include <jobtree/cover.h>
#include <jobtree/nodemap.h>
#include <jobtree/record.h>
#include <jobtree/score.h>
#include <jobtree/snapshot.h>

const char plugin_name[] = "Jobtree ordering score (seed 004) as the site factor";
const char plugin_type[] = "site_factor/jobtree";
const uint32_t plugin_version = JTC_PLUGIN_VERSION;

static jtsub_state_t state = { .who = "site_factor/jobtree" };

/* The cluster view the scores of one pass share. */
static struct {
    jt_snapshot_t *snap;
    jt_score_cluster_t *sum;        /* per flavor: domains, largest class */
    jt_usage_t usage;
    bool have_usage;
    const jt_budgets_t *budgets;    /* the set the usage was built for */
    double running_gh, queued_gh;
} view;

static void view_free (void)
{
    jt_score_cluster_destroy (view.sum);
    jt_snapshot_destroy (view.snap);
    if (view.have_usage)
        jt_usage_free (&view.usage);
    memset (&view, 0, sizeof (view));
}

static bool is_run (const job_record_t *job_ptr)
{
    return job_ptr && jt_jobrec_is (job_ptr->admin_comment);
}

/* Nodes (as nodemap maps them), the leases of running runs, and the
 * running and queued GPU-hours of Jobtree runs. */
static int view_build (const jt_config_t *conf, const jt_budgets_t *b)
{
    ListIterator it;
    job_record_t *job_ptr;
    jt_error_t err;
    int rc = 0;

    view_free ();
    if (!(view.snap = jt_snapshot_create ())) {
        error ("%s: out of memory", plugin_type);
        return -1;
    }
    view.snap->time = (int64_t) time (NULL);
    rc = jt_config_set_levels (conf, view.snap, &err);
    if (rc == 0)
        rc = jtc_nodes_add (view.snap, jt_config_domain_key (conf),
                            JTC_NODES_LIVE, &err);
    if (rc < 0)
        goto fail;
    it = list_iterator_create (job_list);
    while ((job_ptr = list_next (it))) {
        jt_jobrec_t rec;
        bool running = IS_JOB_RUNNING (job_ptr) || IS_JOB_SUSPENDED (job_ptr);

        if (!(running || IS_JOB_PENDING (job_ptr)) || !is_run (job_ptr))
            continue;
        if (jt_jobrec_parse (job_ptr->admin_comment, &rec, &err) < 0)
            continue;       /* the select plugin logs bad records */
        if (running)
            rc = jt_nodemap_add_record (view.snap, job_ptr->job_id,
                                        job_ptr->account,
                                        (int64_t) job_ptr->start_time,
                                        (int64_t) job_ptr->end_time, &rec, &err);
        else
            view.queued_gh += jt_score_queued_gpu_hours (rec.run);
        jt_jobrec_free (&rec);
        if (rc < 0)
            break;
    }
    list_iterator_destroy (it);
    if (rc < 0 || jt_snapshot_finalize (view.snap, &err) < 0
        || !(view.sum = jt_score_cluster_create (view.snap, &err)))
        goto fail;
    view.running_gh = jt_score_running_gpu_hours (view.snap);
    view.budgets = b;
    if (b) {
        int u = jt_usage_from_snapshot (&view.usage, b, view.snap,
                                        view.snap->time, &err);
        if (u < 0)
            goto fail;
        view.have_usage = true;
    }
    return 0;
fail:
    error ("%s: cluster view: %s", plugin_type, err.text);
    view_free ();
    return -1;
}

/* Score one pending run and set its site factor. */
static void score_job (job_record_t *job_ptr, const jt_config_t *conf,
                       time_t now)
{
    jt_jobrec_t rec;
    jt_error_t err;
    jt_score_input_t in = { .queued_gpu_hours = view.queued_gh,
                            .running_gpu_hours = view.running_gh };
    jt_score_t sc;
    time_t eligible = job_ptr->details && job_ptr->details->begin_time
                      ? job_ptr->details->begin_time
                      : (job_ptr->details ? job_ptr->details->submit_time : now);

    if (jt_jobrec_parse (job_ptr->admin_comment, &rec, &err) < 0)
        return;
    in.wait_s = now > eligible ? (int64_t) (now - eligible) : 0;
    if (jt_score_inputs_cached (view.sum, view.budgets,
                                view.have_usage ? &view.usage : NULL, rec.run,
                                (int64_t) now, &in, &err) < 0) {
        error ("%s: %pJ: %s", plugin_type, job_ptr, err.text);
        jt_jobrec_free (&rec);
        return;
    }
    jt_score_compute (&conf->score,
                      jt_score_profile_for (&conf->score, job_ptr->part_ptr
                                            ? job_ptr->part_ptr->name : NULL),
                      &in, &sc);
    job_ptr->site_factor = (uint32_t) (NICE_OFFSET + (uint32_t) sc.site_factor);
    if (conf->debug)
        info ("%s: %pJ: profile %s score %.4f site factor %" PRId64
              " (wait %.3f share %.3f topology %.3f backlog %.3f checkpoint %.3f"
              " conformance %.3f)", plugin_type, job_ptr, sc.profile, sc.sum,
              sc.site_factor, sc.f[JT_SCORE_WAIT], sc.f[JT_SCORE_FAIR_SHARE],
              sc.f[JT_SCORE_TOPOLOGY], sc.f[JT_SCORE_BACKLOG],
              sc.f[JT_SCORE_CHECKPOINT], sc.f[JT_SCORE_CONFORMANCE]);
    jt_jobrec_free (&rec);
}

extern int init (void)
{
    verbose ("%s loaded", plugin_type);
    return SLURM_SUCCESS;
}

extern void fini (void)
{
    view_free ();
    jtsub_state_fini (&state);
}

extern void site_factor_p_reconfig (void)
{
    jtsub_state_reload (&state);
    view_free ();
}

extern void site_factor_p_set (job_record_t *job_ptr)
{
    const jt_config_t *conf;

    if (!is_run (job_ptr) || !IS_JOB_PENDING (job_ptr))
        return;
    jtsub_state_refresh (&state);
    if (!(conf = jtsub_state_conf (&state)))
        return;
    /* A submission scores against the view of the last update (at most
     * PriorityCalcPeriod old), never rebuilding it: the rebuild is O(nodes
     * + jobs), and submissions come as fast as users send them. Only the
     * first run after start-up or a budget reload builds it here. */
    if ((!view.snap || view.budgets != jtsub_state_budgets (&state))
        && view_build (conf, jtsub_state_budgets (&state)) < 0)
        return;
    score_job (job_ptr, conf, time (NULL));
}

extern void site_factor_p_update (void)
{
    const jt_config_t *conf;
    ListIterator it;
    job_record_t *job_ptr;
    time_t now = time (NULL);

    jtsub_state_refresh (&state);
    if (!(conf = jtsub_state_conf (&state))
        || view_build (conf, jtsub_state_budgets (&state)) < 0)
        return;
    it = list_iterator_create (job_list);
    while ((job_ptr = list_next (it)))
        if (IS_JOB_PENDING (job_ptr) && is_run (job_ptr))
            score_job (job_ptr, conf, now);
    list_iterator_destroy (it);
}
