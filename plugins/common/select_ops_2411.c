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

/* 24.11's libslurm.so no longer exports plugin_context_create (clients
 * such as `jobtree snapshot` load this plugin too); plugin_load_and_link,
 * which plugin_context_create tries first (src/common/plugin.c:363), still
 * is (slurm_xlator.h:461). */
#define JTC_CONS_CTX_T plugin_handle_t
#define JTC_CONS_LOAD()                                                     \
    plugin_load_and_link ("select/cons_tres", sizeof (syms) / sizeof (syms[0]), \
                          syms, (void **) &jtsel_ops)
#define JTC_CONS_UNLOAD(ctx) plugin_unload (ctx)
#include "select_ops_load.h"
#include "select_ops_pre2505.h"
