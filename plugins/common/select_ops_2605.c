/*
 * select_ops_2605.c - select/cons_tres_jobtree on Slurm 26.05: the ops
 * table (compat_2605.h, private to src/interfaces/select.c:51-79) and its
 * syms[], the plugin_id, cons_tres loaded as a plugin context, and
 * job_mem_reduce, the one entry point only this release calls.
 *
 * What changed since 24.11 (source lines of the tag slurm-26-05-3-1):
 * - slurmctld loads only the configured SelectType (select.c:124-127) and
 *   no other daemon or client loads a select plugin (controller.c:930 is
 *   select_g_init's only caller), so this file is only ever in slurmctld;
 * - running_cons_tres() is `*ops.plugin_id == SELECT_PLUGIN_CONS_TRES`
 *   (select.c:102-109): GRES per job, per socket and per task, --gpus*,
 *   mem-per-GPU, shared GRES, node layout splits, CoreCnt reservations and
 *   the CPU/core/socket SelectTypeParameters (fatal otherwise,
 *   select.c:137-147) all ask it. So the wrapper takes cons_tres's own id,
 *   109: no other select plugin is loaded beside it to collide with;
 * - there is no job_init: jobs are restored (read_config.c:1726-1733)
 *   before select_g_node_init (read_config.c:1773), so the restored jobs
 *   are reconciled with the ledger after node_init;
 * - 19 hooks are gone (state save, job_init, steps, node and job info,
 *   get_info_from_plugin) and job_mem_reduce is new (job_mgr.c:15894).
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

const uint32_t plugin_id = SELECT_PLUGIN_CONS_TRES;

/* slurm_select_ops_t's members in order (src/interfaces/select.c:81-96). */
static const char *syms[] = {
    "plugin_id",
    "select_p_node_init",
    "select_p_job_test",
    "select_p_job_begin",
    "select_p_job_ready",
    "select_p_job_expand",
    "select_p_job_resized",
    "select_p_job_mem_reduce",
    "select_p_job_fini",
    "select_p_job_suspend",
    "select_p_job_resume",
    "select_p_select_nodeinfo_set_all",
    "select_p_select_nodeinfo_set",
    "select_p_reconfigure",
};

/* plugin_context_create is libslurmfull's, exported to plugins by
 * slurmctld (-export-dynamic; src/api/Makefile.am:197 exports every
 * symbol), and has no select-specific guard (src/common/plugin.c:339-405). */
#define JTC_CONS_CTX_T plugin_context_t *
#define JTC_CONS_LOAD()                                                     \
    plugin_context_create ("select", "select/cons_tres",                   \
                           (void **) &jtsel_ops, syms, sizeof (syms))
#define JTC_CONS_UNLOAD(ctx) (rc = plugin_context_destroy (ctx))
#include "select_ops_load.h"

/* No job_init in 26.05: slurmctld restored its jobs before node_init. */
void jtsel_ops_node_init_done (void)
{
    jtsel_jobs_restored (job_list);
}

extern void select_p_job_mem_reduce (job_record_t *job_ptr)
{
    if (jtsel_ops_ready () == 0)
        jtsel_ops.job_mem_reduce (job_ptr);
}
