/*
 * compat_2411.h - Slurm 24.11 (Debian 13's slurm-wlm 24.11) for the
 * Jobtree plugins: the names compat.h promises, as this release has them.
 * Included by compat.h only (JTC_SERIES_H); docs/slurm-versions.md has
 * the table of every release's differences.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_PLUGIN_COMPAT_2411_H
#define JT_PLUGIN_COMPAT_2411_H

/* The plugin interfaces moved to src/interfaces in 23.02. */
#include "src/interfaces/gres.h"
#include "src/interfaces/select.h"
#include "src/interfaces/topology.h"
#include "src/interfaces/preempt.h"
#include "src/common/node_conf.h"
#include "src/slurmctld/slurmctld.h"

#define JTC_ADAPTER "24.11"

/* 24.11 dropped the pointer typedefs List and ListIterator for list_t and
 * list_itr_t (src/common/list.h:52,61); the plugins keep the old names. */
typedef list_t *List;
typedef list_itr_t *ListIterator;
/* hostlist_t is the struct in 24.11. */
typedef hostlist_t *jtc_hostlist_t;

/*
 * The select plugin's operations. 24.11 keeps slurm_select_ops_t private
 * to src/interfaces/select.c (lines 51-122), so the wrapper declares the
 * same layout; select_ops_2411.c's syms[] lists the same members in order
 * (a _Static_assert checks the count).
 */
typedef struct {
    uint32_t *plugin_id;
    int (*state_save) (char *dir_name);
    int (*state_restore) (char *dir_name);
    int (*job_init) (list_t *job_list);
    int (*node_init) (void);
    int (*job_test) (job_record_t *job_ptr, bitstr_t *bitmap,
                     uint32_t min_nodes, uint32_t max_nodes,
                     uint32_t req_nodes, uint16_t mode,
                     list_t *preeemptee_candidates,
                     list_t **preemptee_job_list, resv_exc_t *resv_exc_ptr,
                     will_run_data_t *will_run_ptr);
    int (*job_begin) (job_record_t *job_ptr);
    int (*job_ready) (job_record_t *job_ptr);
    int (*job_expand) (job_record_t *from_job_ptr, job_record_t *to_job_ptr);
    int (*job_resized) (job_record_t *job_ptr, node_record_t *node_ptr);
    int (*job_fini) (job_record_t *job_ptr);
    int (*job_suspend) (job_record_t *job_ptr, bool indf_susp);
    int (*job_resume) (job_record_t *job_ptr, bool indf_susp);
    bitstr_t *(*step_pick_nodes) (job_record_t *job_ptr,
                                  select_jobinfo_t *step_jobinfo,
                                  uint32_t node_count, bitstr_t **avail_nodes);
    int (*step_start) (step_record_t *step_ptr);
    int (*step_finish) (step_record_t *step_ptr, bool killing_step);
    int (*nodeinfo_pack) (select_nodeinfo_t *nodeinfo, buf_t *buffer,
                          uint16_t protocol_version);
    int (*nodeinfo_unpack) (select_nodeinfo_t **nodeinfo, buf_t *buffer,
                            uint16_t protocol_version);
    select_nodeinfo_t *(*nodeinfo_alloc) (void);
    int (*nodeinfo_free) (select_nodeinfo_t *nodeinfo);
    int (*nodeinfo_set_all) (void);
    int (*nodeinfo_set) (job_record_t *job_ptr);
    int (*nodeinfo_get) (select_nodeinfo_t *nodeinfo,
                         enum select_nodedata_type dinfo,
                         enum node_states state, void *data);
    select_jobinfo_t *(*jobinfo_alloc) (void);
    int (*jobinfo_free) (select_jobinfo_t *jobinfo);
    int (*jobinfo_set) (select_jobinfo_t *jobinfo,
                        enum select_jobdata_type data_type, void *data);
    int (*jobinfo_get) (select_jobinfo_t *jobinfo,
                        enum select_jobdata_type data_type, void *data);
    select_jobinfo_t *(*jobinfo_copy) (select_jobinfo_t *jobinfo);
    int (*jobinfo_pack) (select_jobinfo_t *jobinfo, buf_t *buffer,
                         uint16_t protocol_version);
    int (*jobinfo_unpack) (select_jobinfo_t **jobinfo_pptr, buf_t *buffer,
                           uint16_t protocol_version);
    int (*get_info_from_plugin) (enum select_plugindata_info dinfo,
                                 job_record_t *job_ptr, void *data);
    int (*reconfigure) (void);
} slurm_select_ops_t;

/* job_test's last parameters: a resv_exc_t (src/slurmctld/slurmctld.h:400)
 * and a will_run_data_t (src/interfaces/select.h:65), handed to cons_tres
 * unchanged; the latest start backfill asks a WILL_RUN about is the
 * latter's end (0: none; cons_tres stops replaying job ends after it). */
#define JTC_JOB_TEST_EXC resv_exc_t *exc_core_bitmap, will_run_data_t *will_run_ptr
#define JTC_JOB_TEST_EXC_ARGS exc_core_bitmap, will_run_ptr
#define JTC_WILL_RUN_END ((will_run_ptr) ? (int64_t) (will_run_ptr)->end : 0)

/* --exclusive: the WHOLE_NODE_* values are single bits in 24.11
 * (src/common/job_record.h:58). */
#define JTC_WHOLE_NODE(d) (((d)->whole_node & WHOLE_NODE_REQUIRED) != 0)

/* select_nodes() resets every reason but a few to WAIT_RESOURCES with no
 * text (src/slurmctld/node_scheduler.c:2912): WAIT_BLOCK_MAX_ERR is gone,
 * so a refusal is kept under WAIT_RESOURCES, and the line the main
 * scheduler's job_test sets is lost until the next backfill pass. */
#define JTC_REASON WAIT_RESOURCES

/* 24.11 added err_msg to job_modify (src/interfaces/job_submit.c:63). */
#define JTC_JOB_MODIFY_ERR_MSG , char **err_msg
/* Tell the updater why (job_modify's err_msg). */
#define JTC_JOB_MODIFY_SET_ERR(text) \
    do { if (err_msg) *err_msg = xstrdup (text); } while (0)

/* A job_desc_msg_t's job id (slurm/slurm.h). */
#define JTC_JOB_DESC_ID(d) ((d)->job_id)

/* The topology records come from the topology interface and are freed by
 * it: 24.11 keeps the switch table inside topology/tree
 * (src/plugins/topology/tree/switch_record.h:66). */
#define JTC_TOPO_GET_RECORDS(dyn) topology_g_get (TOPO_DATA_TOPOLOGY_PTR, (dyn))
#define JTC_TOPO_FREE_RECORDS(dyn) topology_g_topology_free (dyn)
#include "compat_topo_records.h"

#endif /* JT_PLUGIN_COMPAT_2411_H */
