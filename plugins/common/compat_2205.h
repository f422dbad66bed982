/*
 * compat_2205.h - Slurm 22.05 (Debian 12's slurm-wlm 22.05.8) for the
 * Jobtree plugins: the names compat.h promises, as this release has them.
 * Included by compat.h only (JTC_SERIES_H); docs/slurm-versions.md has
 * the table of every release's differences.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_PLUGIN_COMPAT_2205_H
#define JT_PLUGIN_COMPAT_2205_H

/* The interfaces are still under src/common in 22.05. */
#include "src/common/gres.h"
#include "src/common/select.h"
#include "src/common/slurm_topology.h"
#include "src/common/node_conf.h"
#include "src/slurmctld/slurmctld.h"
#include "src/slurmctld/preempt.h"

#define JTC_ADAPTER "22.05"

/* hostlist_t is a pointer type in 22.05 (src/common/hostlist.h). */
typedef hostlist_t jtc_hostlist_t;

/* job_test's last parameters: the cores a reservation excludes, handed to
 * cons_tres unchanged (src/common/select.h, select_p_job_test). */
#define JTC_JOB_TEST_EXC bitstr_t *exc_core_bitmap
#define JTC_JOB_TEST_EXC_ARGS exc_core_bitmap
/* The latest start a WILL_RUN asks about: none in 22.05. */
#define JTC_WILL_RUN_END ((int64_t) 0)

/* --exclusive: details->whole_node == WHOLE_NODE_REQUIRED (WHOLE_NODE_MCS
 * is 0x3, so the value is compared whole; src/slurmctld/slurmctld.h). */
#define JTC_WHOLE_NODE(d) ((d)->whole_node == WHOLE_NODE_REQUIRED)

/* The reason a Jobtree refusal is kept under: select_nodes() leaves
 * WAIT_BLOCK_MAX_ERR and its text alone ("state_reason was already
 * setup", src/slurmctld/node_scheduler.c). */
#define JTC_REASON WAIT_BLOCK_MAX_ERR

/* job_submit's job_modify has no err_msg in 22.05
 * (src/common/job_submit.c). */
#define JTC_JOB_MODIFY_ERR_MSG
/* Tell the updater why (job_modify's err_msg): 22.05 has none, so only
 * slurmctld's log says it. */
#define JTC_JOB_MODIFY_SET_ERR(text) ((void) (text))

/* A job_desc_msg_t's job id (slurm/slurm.h). */
#define JTC_JOB_DESC_ID(d) ((d)->job_id)

/* slurmctld's switch table is global in 22.05 (src/common/node_conf.h):
 * its level-0 records are the leaves. Returns 0 (compat.h). */
static inline int jtc_leaf_switches (jtc_leaves_t *l)
{
    l->leaf = xcalloc (node_record_count > 0 ? node_record_count : 1,
                       sizeof (*l->leaf));
    l->names = NULL;
    l->nnames = 0;
    memset (l->up, 0, sizeof (l->up));
    l->nblock = 0;              /* no topology/block before 23.02 */
    for (int s = 0; s < switch_record_cnt; s++) {
        switch_record_t *sw = &switch_record_table[s];
        jtc_leaves_mark_level (l, sw->level, sw->node_bitmap, sw->name);
    }
    return 0;
}

#endif /* JT_PLUGIN_COMPAT_2205_H */
