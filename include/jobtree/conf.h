/*
 * jobtree/conf.h - jobtree.conf, the plugins' configuration file.
 *
 * Read by the job_submit and select plugins from the directory of
 * slurm.conf (like cgroup.conf). One "Key=Value" per line, keys
 * case-insensitive, '#' starts a comment, blank lines ignored. Unknown keys
 * and bad values are errors naming file:line, so a typo never silently
 * changes policy:
 *
 *   BudgetDir=/etc/slurm/jobtree/budgets   budget files (*.json), required
 *   UnfundedPolicy=refuse                  refuse|passthrough: what job_submit
 *                                          does with a run no envelope could
 *                                          ever fund (passthrough: gradual
 *                                          rollout, the job runs as plain Slurm)
 *   PlainGpuJobs=passthrough               passthrough|jobtree: GPU jobs
 *                                          without any Jobtree option
 *   GpusPerNode=h100:8,a100:4              GPUs per node of each flavor, when
 *                                          the node table should not decide
 *   DomainFeature=fabric.domain            node feature key naming the domain
 *   FabricLevels=block,spine               the fabric above the domain, lowest
 *                                          first: node labels fabric.<level>
 *                                          (features, else the switch tree's
 *                                          level 1, 2, ...); default none
 *   GroupLevel=domain                      the level a group stays inside:
 *                                          domain, or one of FabricLevels
 *                                          (its label becomes the domain)
 *   Debug=no                               yes|no: verbose plugin logging
 *   PackPolicy=best-fit                    best-fit|pack-to-empty: Pack's
 *                                          node choice (select plugin)
 *   MaxWait=none                           the longest a funded run waits for
 *                                          room (duration, e.g. 4h): at its
 *                                          reservation's creation + MaxWait
 *                                          the reservation activates and
 *                                          holders give way (jobtree/activate.h);
 *                                          none: it waits for room
 *   LedgerSocket=/run/jobtree/ledgerd.sock jobtree-ledgerd's socket; absent:
 *                                          no ledger events (logged once)
 *   LedgerSpoolDir=/var/spool/slurm/jobtree  local spool while the sidecar
 *                                          is down (default: StateSaveLocation)
 *   LedgerDir=/var/lib/jobtree/ledger      the ledger's segments, read once
 *                                          at slurmctld start to reconcile
 *                                          and to fold used GPU-hours
 *   Score*=...                             the ordering score's profiles and
 *                                          inputs (jobtree/score.h)
 *   DebugCrossCheck=no                     yes|no: the select plugin checks
 *                                          its incrementally kept snapshot
 *                                          against a full rebuild after each
 *                                          update and logs the first
 *                                          difference (O(nodes) per update:
 *                                          tests and debugging only)
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_CONF_H
#define JOBTREE_CONF_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "error.h"
#include "pack.h"
#include "score.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JT_CONFIG_FILE "jobtree.conf"
#define JT_CONFIG_MAX_WAIT_MAX (365 * 86400)
#define JT_CONFIG_DEFAULT_BUDGET_DIR "/etc/slurm/jobtree/budgets"

typedef enum jt_unfunded_policy {
    JT_UNFUNDED_REFUSE = 0,
    JT_UNFUNDED_PASSTHROUGH,
} jt_unfunded_policy_t;

typedef struct jt_flavor_gpn {
    char *flavor;
    int64_t gpus;
} jt_flavor_gpn_t;

typedef struct jt_config {
    char *file;                         /* where it was read from, or NULL */
    char *budget_dir;
    jt_unfunded_policy_t unfunded_policy;
    bool plain_gpu_jobs;                /* true: GPU jobs without options are runs */
    jt_flavor_gpn_t *gpn;               /* GpusPerNode, in file order */
    size_t ngpn;
    char *domain_feature;               /* default "fabric.domain" */
    char *fabric_levels;                /* FabricLevels as label keys,
                                         * "fabric.block,fabric.spine";
                                         * NULL: none */
    char *group_level;                  /* GroupLevel; NULL: domain */
    bool debug;
    jt_pack_policy_t pack_policy;       /* PackPolicy, default JT_PACK_DEFAULT */
    bool pack_policy_set;               /* PackPolicy given in the file */
    int64_t max_wait;                   /* MaxWait in seconds; 0: none */
    char *ledger_socket;                /* NULL: ledger off */
    char *ledger_spool_dir;             /* NULL: the plugin's default */
    char *ledger_dir;                   /* NULL: no reconciliation read */
    jt_score_conf_t score;              /* Score* keys (jobtree/score.h) */
    bool debug_cross_check;             /* DebugCrossCheck, default no */
} jt_config_t;

/* A configuration holding the defaults. NULL on ENOMEM. */
jt_config_t *jt_config_create (void);
void jt_config_destroy (jt_config_t *c);

/* Parse jobtree.conf text into c (on top of what c holds). Every problem
 * is appended to diags as file:line. Returns 0, or -1 if any line was bad
 * (c is then left unchanged). */
int jt_config_parse (jt_config_t *c, const char *file, const char *text,
                     size_t len, jt_diags_t *diags);

/* Read path into a new configuration with the defaults underneath. A
 * missing file is not an error when missing_ok (defaults are used, file
 * stays NULL). NULL on error (diags say why). */
jt_config_t *jt_config_load (const char *path, bool missing_ok,
                             jt_diags_t *diags);

/* The snapshot's levels from FabricLevels and GroupLevel
 * (config_levels.c): the levels above the group's. Call before adding
 * nodes. 0, or -1 with err set. The feature naming the domain is
 * jt_config_domain_key's. */
struct jt_snapshot;
int jt_config_set_levels (const jt_config_t *c, struct jt_snapshot *s,
                          jt_error_t *err);
const char *jt_config_domain_key (const jt_config_t *c);

/* Parse one FabricLevels / GroupLevel value into c; 0, or -1 with why. */
int jt_config_levels_key (jt_config_t *c, const char *key, const char *val,
                          char *why, size_t len);

/* GPUs per node configured for flavor, or 0 when not configured. */
int64_t jt_config_gpus_per_node (const jt_config_t *c, const char *flavor);

const char *jt_unfunded_policy_str (jt_unfunded_policy_t p);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_CONF_H */
