/*
 * select_jobtree.c - select/cons_tres_jobtree: the plugin's symbols and the
 * select_p_* entry points every supported Slurm release has, forwarding to
 * the wrapped select/cons_tres (jtsel_ops).
 *
 * Only job_test of a Jobtree run (a job whose admin_comment carries the
 * job_submit plugin's record) takes another path (answer.c); every
 * other call, and job_test of every other job, is exactly cons_tres's. The
 * commit, end and resize calls also feed the per-cycle cache and the lease
 * event hook. The pattern is Slurm's own select/cray_aries wrapper
 * (src/plugins/select/other/other_select.c in 22.05).
 *
 * What differs between releases -- the ops table and its syms[], the
 * plugin_id, how cons_tres is loaded, the entry points only some releases
 * call -- is in the release's plugins/common/select_ops_<release>.c.
 *
 * The type must contain "cons_tres": slurmctld enables the cons_tres-only
 * code paths (default SelectTypeParameters, MaxNodeCount, dynamic nodes) by
 * xstrstr(SelectType, "cons_tres") (src/common/read_config.c@26.05.3:5045-
 * 5066; 22.05 and 24.11 gate GRES and --gpus* the same way).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

/* Slurm's own plugins include this first: it renames libslurm calls to
 * their exported slurm_* aliases, so the plugin also loads in clients
 * linked with libslurm.so. */
#include "src/common/slurm_xlator.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "src/common/plugin.h"

#include "select_jobtree.h"

/*
 * Data symbols of slurmctld that this plugin reads. They are defined here
 * (as Slurm's cons_common.c does) so the plugin also loads where a release
 * loads select plugins outside slurmctld (22.05 and 24.11: slurmd,
 * slurmstepd and clients), which lack some of them; inside slurmctld the
 * daemon's own definitions take precedence (they are exported dynamically
 * and found first), so these copies stay unused there.
 */
slurm_conf_t slurm_conf;
node_record_t **node_record_table_ptr;
List job_list;
int node_record_count;
time_t last_node_update;
time_t last_job_update;

const char plugin_name[] = "Jobtree: budgets, gang packing by fabric domain and reservations over cons_tres";
const char plugin_type[] = "select/cons_tres_jobtree";
const uint32_t plugin_version = JTC_PLUGIN_VERSION;

extern int init (void)
{
    verbose ("%s loaded (Slurm %s adapter)", plugin_type, JTC_ADAPTER);
    return SLURM_SUCCESS;
}

extern int fini (void)
{
    jtsel_elastic_fini ();
    jtsel_reshape_fini ();
    jtsel_restart_fini_all ();
    jtsel_ledger_fini ();
    jtsel_cache_fini ();
    return jtsel_ops_unload ();
}

/* slurmctld has restored its jobs: reconcile them with the ledger (once
 * per slurmctld start; it reads LedgerDir, nothing else). Called by the
 * release's adapter where that release says so (select_ops_*.c). */
void jtsel_jobs_restored (List jobs)
{
    jt_error_t err;

    jtsel_cache_invalidate ();
    if (jtsel_cache_conf () || jtsel_cache_get (&err))
        jtsel_ledger_reconcile (jobs);
}

extern int select_p_node_init (void)
{
    int rc;

    READY_OR (SLURM_ERROR);
    jtsel_cache_invalidate ();
    jtsel_cache_reconfigure ();
    jtsel_elastic_start ();
    rc = jtsel_ops.node_init ();
    jtsel_ops_node_init_done ();
    return rc;
}

extern int select_p_job_test (job_record_t *job_ptr, bitstr_t *bitmap,
                              uint32_t min_nodes, uint32_t max_nodes,
                              uint32_t req_nodes, uint16_t mode,
                              List preemptee_candidates,
                              List *preemptee_job_list,
                              JTC_JOB_TEST_EXC)
{
    READY_OR (SLURM_ERROR);
    /* the slices held for requeued runs' restarts (restart.c) */
    jtsel_restart_narrow (job_ptr, bitmap, mode);
    if (jtsel_is_jobtree (job_ptr)) {
        struct timespec t0, t1;
        int rc;

        clock_gettime (CLOCK_MONOTONIC, &t0);
        rc = jtsel_job_test (job_ptr, bitmap, min_nodes, max_nodes, req_nodes,
                              mode, preemptee_candidates, preemptee_job_list,
                              JTC_JOB_TEST_EXC_ARGS);
        clock_gettime (CLOCK_MONOTONIC, &t1);
        debug2 ("select/cons_tres_jobtree: %pJ job_test mode=0x%x rc=%d %ld us",
                job_ptr, mode, rc,
                (long) ((t1.tv_sec - t0.tv_sec) * 1000000
                        + (t1.tv_nsec - t0.tv_nsec) / 1000));
        return rc;
    }
    return jtsel_ops.job_test (job_ptr, bitmap, min_nodes, max_nodes,
                                req_nodes, mode, preemptee_candidates,
                                preemptee_job_list, JTC_JOB_TEST_EXC_ARGS);
}

extern int select_p_job_expand (job_record_t *from_job_ptr,
                                job_record_t *to_job_ptr)
{
    int rc;

    READY_OR (SLURM_ERROR);
    rc = jtsel_ops.job_expand (from_job_ptr, to_job_ptr);
    jtsel_cache_job_changed (from_job_ptr);
    jtsel_cache_job_changed (to_job_ptr);
    if (rc == SLURM_SUCCESS && jtsel_is_jobtree (to_job_ptr))
        jtsel_lease_event ("expand", to_job_ptr, NULL);
    return rc;
}

extern int select_p_job_resized (job_record_t *job_ptr,
                                 node_record_t *node_ptr)
{
    int rc;

    READY_OR (SLURM_ERROR);
    rc = jtsel_ops.job_resized (job_ptr, node_ptr);
    jtsel_cache_job_changed (job_ptr);
    jtsel_cache_node_touched (node_ptr);
    if (jtsel_is_jobtree (job_ptr)) {
        /* A node failed under a run with spares (job_submit made it
         * --no-kill): swap a spare in, or requeue the whole run when a
         * group has none left (jobtree/spares.h); the lease events follow
         * the record. Changes to the job go through reshape.c's worker,
         * after the job lock is released. */
        jt_spares_verdict_t v = JT_SPARES_NONE;
        if (node_ptr && (IS_NODE_DOWN (node_ptr) || IS_NODE_FAIL (node_ptr)
                         || IS_NODE_NO_RESPOND (node_ptr)))
            v = jtsel_record_node_failed (job_ptr, node_ptr);
        if (v == JT_SPARES_REQUEUE) {
            jtsel_lease_event ("abort", job_ptr, node_ptr);
            if (jtsel_reshape_requeue_or_cancel (job_ptr->job_id) < 0)
                error ("select/cons_tres_jobtree: %pJ: requeue not queued (out of memory)", job_ptr);
            else
                jtsel_restart_plan (job_ptr, node_ptr, NULL, NULL);
        } else {
            jtsel_lease_event ("resized", job_ptr, node_ptr);
            if (v == JT_SPARES_SWAP
                && jtsel_reshape_signal (job_ptr->job_id, JTSEL_LAYOUT_SIGNAL) < 0)
                error ("select/cons_tres_jobtree: %pJ: signal queue full", job_ptr);
        }
    }
    return rc;
}

extern int select_p_job_fini (job_record_t *job_ptr)
{
    int rc;

    READY_OR (SLURM_ERROR);
    rc = jtsel_ops.job_fini (job_ptr);
    jtsel_cache_job_changed (job_ptr);
    if (jtsel_is_jobtree (job_ptr))
        jtsel_lease_event ("fini", job_ptr, NULL);
    jtsel_ledger_settle (true);
    if (jtsel_is_jobtree (job_ptr))
        jtsel_restart_fini (job_ptr);
    return rc;
}

extern int select_p_job_suspend (job_record_t *job_ptr, bool indf_susp)
{
    READY_OR (SLURM_ERROR);
    jtsel_cache_job_changed (job_ptr);
    return jtsel_ops.job_suspend (job_ptr, indf_susp);
}

extern int select_p_job_resume (job_record_t *job_ptr, bool indf_susp)
{
    READY_OR (SLURM_ERROR);
    jtsel_cache_job_changed (job_ptr);
    return jtsel_ops.job_resume (job_ptr, indf_susp);
}

/* slurmctld's commit point of an allocation (node_scheduler.c: the job is
 * RUNNING by then). A starting slurmctld (a restart, a backup taking over:
 * read_config.c) calls it for every job it recovered, pending ones too: a
 * run requeued while its nodes still complete has a node bitmap but no
 * lease (its leases ended at the requeue), and its recovered start_time may
 * be 0 already, so leases derived from it would be a second start that
 * never was (t3040, the victims of a lottery just drawn at the takeover). */
extern int select_p_select_nodeinfo_set (job_record_t *job_ptr)
{
    int rc;

    READY_OR (SLURM_ERROR);
    rc = jtsel_ops.nodeinfo_set (job_ptr);
    jtsel_cache_job_changed (job_ptr);
    if (rc == SLURM_SUCCESS && jtsel_is_jobtree (job_ptr)
        && (IS_JOB_RUNNING (job_ptr) || IS_JOB_SUSPENDED (job_ptr))) {
        jtsel_job_started (job_ptr);
        jtsel_restart_started (job_ptr);
        jtsel_lease_event ("begin", job_ptr, NULL);
    }
    return rc;
}

/* `scontrol reconfigure`: cons_tres re-reads its parameters; we re-read
 * jobtree.conf and the budget directory (keeping the last good budgets). */
extern int select_p_reconfigure (void)
{
    READY_OR (SLURM_ERROR);
    jtsel_cache_invalidate ();
    jtsel_cache_reconfigure ();
    return jtsel_ops.reconfigure ();
}

/* The rest only forward to cons_tres (READY_OR, FORWARD: select_jobtree.h);
 * the hooks only some releases have are in their select_ops_*.c. */
FORWARD (int, SLURM_ERROR, job_begin, job_begin,
         (job_record_t *job_ptr), (job_ptr))
FORWARD (int, SLURM_ERROR, job_ready, job_ready,
         (job_record_t *job_ptr), (job_ptr))
FORWARD (int, SLURM_ERROR, select_nodeinfo_set_all, nodeinfo_set_all,
         (void), ())
