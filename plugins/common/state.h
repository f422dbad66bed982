/*
 * state.h - what a Jobtree plugin in slurmctld keeps loaded: jobtree.conf
 * and the budget set (a jt_reload_t, jobtree/reload.h), re-read after
 * `scontrol reconfigure`, and the node table's answers to admission.
 *
 * slurmctld has no reconfigure hook for job_submit plugins in 22.05, so a
 * reconfigure is noticed by slurm_conf.last_update changing (slurmctld sets
 * it on every read of slurm.conf). What a reload keeps and why is the
 * library's (a bad file keeps the last good set); this file only decides
 * when to reload and logs the lines ("file:line:col: ...") through Slurm.
 * Nothing here is ever fatal.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_PLUGINS_STATE_H
#define JOBTREE_PLUGINS_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "jobtree/budget.h"
#include "jobtree/conf.h"
#include "jobtree/reload.h"

typedef struct jtsub_state {
    const char *who;            /* log prefix, e.g. "job_submit/jobtree" */
    jt_reload_t *set;           /* the set in force; NULL before the first load */
    time_t seen_update;         /* slurm_conf.last_update at the last load */
    time_t loaded_at;           /* when that load happened */
    bool loaded;
} jtsub_state_t;

/* Load on first use and again whenever slurm.conf was re-read. */
void jtsub_state_refresh (jtsub_state_t *st);

/* Re-read jobtree.conf and the budget directory now, logging what the
 * reload says. Returns 0 when both loaded, -1 when something kept the
 * previous version. */
int jtsub_state_reload (jtsub_state_t *st);

void jtsub_state_fini (jtsub_state_t *st);

/* The configuration in force (NULL only when out of memory), the budgets
 * in force (NULL when none loaded). */
const jt_config_t *jtsub_state_conf (const jtsub_state_t *st);
const jt_budgets_t *jtsub_state_budgets (const jtsub_state_t *st);

/* For jt_admit_cluster_t (jobtree/admit.h), from the node table (the caller
 * holds at least the node read lock; arg is unused): the largest configured
 * GPU count among nodes of flavor, else 0; and the only GPU flavor
 * configured on any node into buf, 0, or -1 when none or several. */
int64_t jtsub_state_node_gpus (void *arg, const char *flavor);
int jtsub_state_only_flavor (void *arg, char *buf, size_t len);

#endif /* JOBTREE_PLUGINS_STATE_H */
