/*
 * select_ops_pre2505.h - the select entry points 22.05 and 24.11 both call
 * and 25.05 removed (src/interfaces/select.c@24.11.7:124-157): job_init,
 * the state save, the step hooks, node and job info and
 * get_info_from_plugin. job_init reconciles the restored jobs with the
 * ledger; the rest only forward to cons_tres. Included once, by
 * select_ops_2205.c and select_ops_2411.c.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_PLUGIN_SELECT_OPS_PRE2505_H
#define JT_PLUGIN_SELECT_OPS_PRE2505_H

/* These releases restore jobs through job_init (below). */
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

#endif /* JT_PLUGIN_SELECT_OPS_PRE2505_H */
