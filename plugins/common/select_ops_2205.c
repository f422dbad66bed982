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

/* cons_tres as a plugin context (src/common/plugin.c). */
#define JTC_CONS_CTX_T plugin_context_t *
#define JTC_CONS_LOAD()                                                     \
    plugin_context_create ("select", "select/cons_tres",                   \
                           (void **) &jtsel_ops, syms, sizeof (syms))
#define JTC_CONS_UNLOAD(ctx) (rc = plugin_context_destroy (ctx))
#include "select_ops_load.h"
#include "select_ops_pre2505.h"

/* The entry points only 22.05 has. */
extern int select_p_update_node_config (int index)
{
    READY_OR (SLURM_ERROR);
    jtsel_cache_node_changed ();
    return jtsel_ops.update_node_config (index);
}

FORWARD (int, SLURM_ERROR, job_signal, job_signal,
         (job_record_t *job_ptr, int signal), (job_ptr, signal))
FORWARD (char *, NULL, select_jobinfo_sprint, jobinfo_sprint,
         (select_jobinfo_t *jobinfo, char *buf, size_t size, int mode),
         (jobinfo, buf, size, mode))
FORWARD (char *, NULL, select_jobinfo_xstrdup, jobinfo_xstrdup,
         (select_jobinfo_t *jobinfo, int mode), (jobinfo, mode))
FORWARD (bitstr_t *, NULL, resv_test, resv_test,
         (resv_desc_msg_t *resv_desc_ptr, uint32_t node_cnt,
          bitstr_t *avail_bitmap, bitstr_t **core_bitmap),
         (resv_desc_ptr, node_cnt, avail_bitmap, core_bitmap))
