/*
 * select_ops_2411.c - select/cons_tres_jobtree on Slurm 24.11: the ops
 * table (compat_2411.h, private to src/interfaces/select.c:51-122) and its
 * syms[], the plugin_id, cons_tres loaded by plugin_load_and_link, and the
 * entry points only 22.05 and 24.11 call (state save, job_init, steps, node
 * and job info), which forward to cons_tres. docs/slurm-versions.md has the table of what differs.
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

/* slurmctld loads every select_*.so in PluginDir and clients unpack job and
 * node info by plugin_id, so it must be unique among them: 142 is unused
 * by 24.11 (101-110; a duplicate is fatal, src/interfaces/select.c:271-289). */
const uint32_t plugin_id = 142;

/* slurm_select_ops_t's members in order (src/interfaces/select.c:124-157,
 * without 22.05's job_signal, jobinfo_sprint, jobinfo_xstrdup,
 * update_node_config and resv_test). */
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
    "select_p_get_info_from_plugin",
    "select_p_reconfigure",
};
_Static_assert (sizeof (syms) == sizeof (slurm_select_ops_t),
                "syms[] must match slurm_select_ops_t");

slurm_select_ops_t jtsel_ops;
/* 24.11's libslurm.so no longer exports plugin_context_create (clients
 * such as `jobtree snapshot` load this plugin too); plugin_load_and_link,
 * which plugin_context_create tries first (src/common/plugin.c:363), still
 * is (slurm_xlator.h:461). */
static plugin_handle_t g_context;
static pthread_mutex_t g_context_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_ready;

int jtsel_ops_ready (void)
{
    int rc = 0;

    if (g_ready)
        return 0;
    slurm_mutex_lock (&g_context_lock);
    if (!g_context) {
        g_context = plugin_load_and_link ("select/cons_tres",
                                          sizeof (syms) / sizeof (syms[0]),
                                          syms, (void **) &jtsel_ops);
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
    slurm_mutex_lock (&g_context_lock);
    if (g_context)
        plugin_unload (g_context);
    g_context = NULL;
    g_ready = false;
    slurm_mutex_unlock (&g_context_lock);
    return SLURM_SUCCESS;
}

/* 24.11 restores jobs through job_init (below). */
void jtsel_ops_node_init_done (void)
{
}

extern int select_p_job_init (List jobs)
{
    READY_OR (SLURM_ERROR);
    jtsel_jobs_restored (jobs);
    return jtsel_ops.job_init (jobs);
}

FORWARD (int, SLURM_ERROR, state_save, state_save, (char *dir_name), (dir_name))
FORWARD (int, SLURM_ERROR, state_restore, state_restore,
         (char *dir_name), (dir_name))
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
FORWARD (int, SLURM_ERROR, get_info_from_plugin, get_info_from_plugin,
         (enum select_plugindata_info dinfo, job_record_t *job_ptr, void *data),
         (dinfo, job_ptr, data))
