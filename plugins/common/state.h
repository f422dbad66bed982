/*
 * state.h - what a Jobtree plugin in slurmctld keeps loaded: jobtree.conf
 * and the budget set, re-read after `scontrol reconfigure`.
 *
 * slurmctld has no reconfigure hook for job_submit plugins in 22.05, so a
 * reconfigure is noticed by slurm_conf.last_update changing (slurmctld sets
 * it on every read of slurm.conf); the select plugin may also call
 * jt_pstate_reload from select_p_reconfigure. A bad jobtree.conf or budget
 * file keeps the last good one in force and logs every problem as
 * "file:line:col: path: message"; nothing here is ever fatal.
 */
#ifndef JOBTREE_PLUGINS_STATE_H
#define JOBTREE_PLUGINS_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "jobtree/budget.h"
#include "jobtree/config.h"

typedef struct jt_pstate {
    const char *who;            /* log prefix, e.g. "job_submit/jobtree" */
    jt_config_t *conf;          /* never NULL after the first refresh */
    jt_budgets_t *budgets;      /* NULL until a budget directory loads */
    time_t seen_update;         /* slurm_conf.last_update at the last load */
    time_t loaded_at;           /* when that load happened */
    bool loaded;
} jt_pstate_t;

/* Load on first use and again whenever slurm.conf was re-read. */
void jt_pstate_refresh (jt_pstate_t *st);

/* Re-read jobtree.conf and the budget directory now. Returns 0 when both
 * loaded, -1 when something kept the previous version (logged). */
int jt_pstate_reload (jt_pstate_t *st);

void jt_pstate_fini (jt_pstate_t *st);

/* GPUs per node of flavor: jobtree.conf GpusPerNode, else the largest
 * configured count among nodes of that flavor (node table; caller holds
 * at least the node read lock), else 0. */
int64_t jt_pstate_gpus_per_node (const jt_pstate_t *st, const char *flavor);

/* The only GPU flavor configured on any node, copied into buf; 0 when there
 * is exactly one, -1 when none or several. */
int jt_pstate_only_flavor (const jt_pstate_t *st, char *buf, size_t len);

#endif /* JOBTREE_PLUGINS_STATE_H */
