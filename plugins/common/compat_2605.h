/*
 * compat_2605.h - Slurm 26.05 (upstream 26.05.x; Debian sid/forky ship
 * 26.05.5) for the Jobtree plugins: the names compat.h promises, as this
 * release has them. Included by compat.h only (JTC_SERIES_H);
 * docs/slurm-versions.md has the table of every release's differences.
 * Source lines below are from the tag slurm-26-05-3-1.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_PLUGIN_COMPAT_2605_H
#define JT_PLUGIN_COMPAT_2605_H

#include "src/interfaces/gres.h"
#include "src/interfaces/select.h"
#include "src/interfaces/topology.h"
#include "src/interfaces/preempt.h"
#include "src/common/node_conf.h"
#include "src/slurmctld/slurmctld.h"

#define JTC_ADAPTER "26.05"

/* list_t and list_itr_t only (src/common/list.h:52,61); the plugins keep
 * the old pointer names. hostlist_t is the struct (hostlist.h:81). */
typedef list_t *List;
typedef list_itr_t *ListIterator;
typedef hostlist_t *jtc_hostlist_t;

/*
 * The select plugin's operations (src/interfaces/select.c:51-79, private
 * there): 13 since 25.05, 14 with job_mem_reduce (new in 26.05.0); the
 * state-save, step, nodeinfo and jobinfo hooks are gone.
 * select_ops_2605.c's syms[] lists the same members in order (a
 * _Static_assert checks the count).
 */
typedef struct {
    uint32_t *plugin_id;
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
    void (*job_mem_reduce) (job_record_t *job_ptr);
    int (*job_fini) (job_record_t *job_ptr);
    int (*job_suspend) (job_record_t *job_ptr, bool indf_susp);
    int (*job_resume) (job_record_t *job_ptr, bool indf_susp);
    int (*nodeinfo_set_all) (void);
    int (*nodeinfo_set) (job_record_t *job_ptr);
    int (*reconfigure) (void);
} slurm_select_ops_t;

/* job_test's last parameters, as in 24.11 (select.c:53-62). */
#define JTC_JOB_TEST_EXC resv_exc_t *exc_core_bitmap, will_run_data_t *will_run_ptr
#define JTC_JOB_TEST_EXC_ARGS exc_core_bitmap, will_run_ptr
#define JTC_WILL_RUN_END ((will_run_ptr) ? (int64_t) (will_run_ptr)->end : 0)

/* --exclusive: WHOLE_NODE_REQUIRED is a bit (src/common/job_record.h:65). */
#define JTC_WHOLE_NODE(d) (((d)->whole_node & WHOLE_NODE_REQUIRED) != 0)

/* Every failure branch of select_nodes() frees state_desc and sets
 * WAIT_RESOURCES (src/slurmctld/node_scheduler.c:2795-2875), as in 24.11. */
#define JTC_REASON WAIT_RESOURCES

/* job_modify has err_msg (src/interfaces/job_submit.c:63-64). */
#define JTC_JOB_MODIFY_ERR_MSG , char **err_msg
/* Tell the updater why (job_modify's err_msg). */
#define JTC_JOB_MODIFY_SET_ERR(text) \
    do { if (err_msg) *err_msg = xstrdup (text); } while (0)

/* job_desc_msg_t lost job_id for step_id in 25.11 (slurm/slurm.h:1806). */
#define JTC_JOB_DESC_ID(d) ((d)->step_id.job_id)

/* Topology is per context since 25.05 (topology.yaml: several topologies,
 * a partition names its own): topology_g_get takes the topology's name,
 * NULL for the cluster default (src/interfaces/topology.c:648-686), and
 * the free was renamed topoinfo (topology.h:314). topology_g_get_bitmap
 * reads the cluster default too (topology.c:562-567). */
#define JTC_TOPO_GET_RECORDS(dyn) topology_g_get (TOPO_DATA_TOPOLOGY_PTR, NULL, (dyn))
#define JTC_TOPO_FREE_RECORDS(dyn) topology_g_topoinfo_free (dyn)
#include "compat_topo_records.h"

#endif /* JT_PLUGIN_COMPAT_2605_H */
