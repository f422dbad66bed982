/*
 * select_ops_2205.c - select/cons_tres_jobtree on Slurm 22.05: the ops
 * table (slurm_select_ops_t, src/common/select.h) and its syms[], the
 * plugin_id, cons_tres loaded as a plugin context, and the entry points
 * only this release calls (state save, job_init, job_signal, steps, node
 * and job info, update_node_config, resv_test), which forward to
 * cons_tres. docs/slurm-versions.md has the table of what differs.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <pthread.h>

#include "src/common/plugin.h"

#include "select_jobtree.h"

/* 22.05 keeps the switch table in slurmctld (compat_2205.h's leaves);
 * defined here for the daemons and clients that lack it. */
switch_record_t *switch_record_table;
int switch_record_cnt;

/* slurmctld loads every select_*.so in PluginDir and clients unpack job and
 * node info by plugin_id, so it must be unique among them: 142 is unused
 * by 22.05 (101-110, src/common/select.c). */
const uint32_t plugin_id = 142;

/* slurm_select_ops_t's members in order (src/common/select.c). */
static const char *syms[] = {
    "plugin_id",
    "select_p_state_save",
    "select_p_state_restore",
    "select_p_job_init",
    "select_p_node_init",
    "select_p_job_test",
    "select_p_job_begin",
    "select_p_job_ready",
    "select_p_job_expand",
    "select_p_job_resized",
    "select_p_job_signal",
    "select_p_job_fini",
    "select_p_job_suspend",
    "select_p_job_resume",
    "select_p_step_pick_nodes",
    "select_p_step_start",
    "select_p_step_finish",
    "select_p_select_nodeinfo_pack",
    "select_p_select_nodeinfo_unpack",
    "select_p_select_nodeinfo_alloc",
    "select_p_select_nodeinfo_free",
    "select_p_select_nodeinfo_set_all",
    "select_p_select_nodeinfo_set",
    "select_p_select_nodeinfo_get",
    "select_p_select_jobinfo_alloc",
    "select_p_select_jobinfo_free",
    "select_p_select_jobinfo_set",
    "select_p_select_jobinfo_get",
    "select_p_select_jobinfo_copy",
    "select_p_select_jobinfo_pack",
    "select_p_select_jobinfo_unpack",
    "select_p_select_jobinfo_sprint",
    "select_p_select_jobinfo_xstrdup",
    "select_p_get_info_from_plugin",
    "select_p_update_node_config",
    "select_p_reconfigure",
    "select_p_resv_test",
};
_Static_assert (sizeof (syms) == sizeof (slurm_select_ops_t),
                "syms[] must match slurm_select_ops_t");

slurm_select_ops_t jtsel_ops;
static plugin_context_t *g_context;
static pthread_mutex_t g_context_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_ready;

int jtsel_ops_ready (void)
{
    int rc = 0;

    if (g_ready)
        return 0;
    slurm_mutex_lock (&g_context_lock);
    if (!g_context) {
        g_context = plugin_context_create ("select", "select/cons_tres",
                                           (void **) &jtsel_ops, syms,
                                           sizeof (syms));
        if (!g_context) {
            error ("%s: cannot load select/cons_tres to wrap", plugin_type);
            rc = -1;
        } else
            g_ready = true;
    }
    slurm_mutex_unlock (&g_context_lock);
    return rc;
}

int jtsel_ops_unload (void)
{
    int rc = SLURM_SUCCESS;

    slurm_mutex_lock (&g_context_lock);
    if (g_context)
        rc = plugin_context_destroy (g_context);
    g_context = NULL;
    g_ready = false;
    slurm_mutex_unlock (&g_context_lock);
    return rc;
}

/* 22.05 restores jobs through job_init (below). */
void jtsel_ops_node_init_done (void)
{
}

extern int select_p_job_init (List jobs)
{
    READY_OR (SLURM_ERROR);
    jtsel_jobs_restored (jobs);
    return jtsel_ops.job_init (jobs);
}

extern int select_p_update_node_config (int index)
{
    READY_OR (SLURM_ERROR);
    jtsel_cache_node_changed ();
    return jtsel_ops.update_node_config (index);
}

FORWARD (int, SLURM_ERROR, state_save, state_save, (char *dir_name), (dir_name))
FORWARD (int, SLURM_ERROR, state_restore, state_restore,
         (char *dir_name), (dir_name))
FORWARD (int, SLURM_ERROR, job_signal, job_signal,
         (job_record_t *job_ptr, int signal), (job_ptr, signal))
FORWARD (bitstr_t *, NULL, step_pick_nodes, step_pick_nodes,
         (job_record_t *job_ptr, select_jobinfo_t *jobinfo,
          uint32_t node_count, bitstr_t **avail_nodes),
         (job_ptr, jobinfo, node_count, avail_nodes))
FORWARD (int, SLURM_ERROR, step_start, step_start,
         (step_record_t *step_ptr), (step_ptr))
FORWARD (int, SLURM_ERROR, step_finish, step_finish,
         (step_record_t *step_ptr, bool killing_step), (step_ptr, killing_step))
FORWARD (int, SLURM_ERROR, select_nodeinfo_pack, nodeinfo_pack,
         (select_nodeinfo_t *nodeinfo, buf_t *buffer, uint16_t protocol_version),
         (nodeinfo, buffer, protocol_version))
FORWARD (int, SLURM_ERROR, select_nodeinfo_unpack, nodeinfo_unpack,
         (select_nodeinfo_t **nodeinfo, buf_t *buffer, uint16_t protocol_version),
         (nodeinfo, buffer, protocol_version))
FORWARD (select_nodeinfo_t *, NULL, select_nodeinfo_alloc, nodeinfo_alloc,
         (void), ())
FORWARD (int, SLURM_ERROR, select_nodeinfo_free, nodeinfo_free,
         (select_nodeinfo_t *nodeinfo), (nodeinfo))
FORWARD (int, SLURM_ERROR, select_nodeinfo_get, nodeinfo_get,
         (select_nodeinfo_t *nodeinfo, enum select_nodedata_type dinfo,
          enum node_states state, void *data),
         (nodeinfo, dinfo, state, data))
FORWARD (select_jobinfo_t *, NULL, select_jobinfo_alloc, jobinfo_alloc,
         (void), ())
FORWARD (int, SLURM_ERROR, select_jobinfo_free, jobinfo_free,
         (select_jobinfo_t *jobinfo), (jobinfo))
FORWARD (int, SLURM_ERROR, select_jobinfo_set, jobinfo_set,
         (select_jobinfo_t *jobinfo, enum select_jobdata_type data_type, void *data),
         (jobinfo, data_type, data))
FORWARD (int, SLURM_ERROR, select_jobinfo_get, jobinfo_get,
         (select_jobinfo_t *jobinfo, enum select_jobdata_type data_type, void *data),
         (jobinfo, data_type, data))
FORWARD (select_jobinfo_t *, NULL, select_jobinfo_copy, jobinfo_copy,
         (select_jobinfo_t *jobinfo), (jobinfo))
FORWARD (int, SLURM_ERROR, select_jobinfo_pack, jobinfo_pack,
         (select_jobinfo_t *jobinfo, buf_t *buffer, uint16_t protocol_version),
         (jobinfo, buffer, protocol_version))
FORWARD (int, SLURM_ERROR, select_jobinfo_unpack, jobinfo_unpack,
         (select_jobinfo_t **jobinfo, buf_t *buffer, uint16_t protocol_version),
         (jobinfo, buffer, protocol_version))
FORWARD (char *, NULL, select_jobinfo_sprint, jobinfo_sprint,
         (select_jobinfo_t *jobinfo, char *buf, size_t size, int mode),
         (jobinfo, buf, size, mode))
FORWARD (char *, NULL, select_jobinfo_xstrdup, jobinfo_xstrdup,
         (select_jobinfo_t *jobinfo, int mode), (jobinfo, mode))
FORWARD (int, SLURM_ERROR, get_info_from_plugin, get_info_from_plugin,
         (enum select_plugindata_info dinfo, job_record_t *job_ptr, void *data),
         (dinfo, job_ptr, data))
FORWARD (bitstr_t *, NULL, resv_test, resv_test,
         (resv_desc_msg_t *resv_desc_ptr, uint32_t node_cnt,
          bitstr_t *avail_bitmap, bitstr_t **core_bitmap),
         (resv_desc_ptr, node_cnt, avail_bitmap, core_bitmap))
