/*
 * jobtree/admit.h - admission: what job_submit does with a new job, over
 * plain values and without Slurm.
 *
 * The job_submit plugin reads job_desc_msg_t into a jt_admit_req_t (account,
 * GPU request strings, node count, SPANK environment, time limit) and calls
 * jt_admit with the jobtree.conf and budgets in force. The answer is one of:
 *
 *   JT_ADMIT_PASS      not a Jobtree run: leave the job untouched;
 *   JT_ADMIT_RUN       a Jobtree run: write `record` into admin_comment;
 *   JT_ADMIT_UNFUNDED  no envelope could ever fund it, and
 *                      UnfundedPolicy=passthrough: the job runs as plain
 *                      Slurm (`line` says why, for the log);
 *   JT_ADMIT_REFUSE    refuse the job with the one line `line`
 *                      ("jobtree: ..."); `refusal` says which kind, so the
 *                      plugin can pick the error code.
 *
 * The rules, in the order a job meets them (admin guide, "What job_submit
 * refuses"): the Jobtree options are read (jt_opts_from_env); a job with
 * none, and no GPU request under PlainGpuJobs=jobtree, passes; the GPU
 * request must be readable (jt_gres_gpu_req), name a known flavor and give
 * at most JT_RUN_GPUS_MAX GPUs (jt_gres_total); the run must be well formed
 * (jt_run_check, worded as sbatch options), with groups on whole nodes; the
 * account must have a budget and some envelope must be able to fund the run
 * some day (jt_cover_ever), else UnfundedPolicy decides; the run must be
 * placeable on the configured nodes when idle (cluster->nodes; a run that
 * can never be placed is refused whatever UnfundedPolicy says); the record
 * (jt_jobrec_format) carries the funding Cover intends on an idle cluster.
 * Each rule is checked here, once.
 *
 * Sub-node jobs: a Jobtree run takes whole nodes of its flavor (DESIGN
 * decision 2: smaller jobs are cons_tres's). A GPU request that is not
 * whole nodes (a per-node count other than the flavor's GPUs per node, or
 * a per-job total that is not a multiple of it) is never a run: with a
 * Jobtree option it is refused with the line saying how to ask for whole
 * nodes or to drop the options; without one, under PlainGpuJobs=jobtree,
 * it passes as a plain Slurm job (not charged to a budget).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_ADMIT_H
#define JOBTREE_ADMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "conf.h"
#include "error.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest time limit a job may give, in minutes (Slurm's is 32 bits). */
#define JT_ADMIT_TIME_LIMIT_MAX_MIN INT64_C (0xffffffff)

/* What only the caller (slurmctld) knows, asked for only when a job is a
 * Jobtree run. Each function may be NULL (then: "not known"). */
typedef struct jt_admit_cluster {
    /* The largest GPU count per node of flavor among the nodes, 0 when no
     * node has it (asked when jobtree.conf's GpusPerNode does not name it). */
    int64_t (*gpus_per_node) (void *arg, const char *flavor);
    /* The only GPU flavor configured on any node, into buf (len bytes):
     * 0, or -1 when there are none or several. */
    int (*only_flavor) (void *arg, char *buf, size_t len);
    /* The account charged when the job names none (the user's default
     * account, else the user's name), into buf: 0, or -1 when unknown. */
    int (*default_account) (void *arg, char *buf, size_t len);
    void *arg;
    /* Every configured node added to s (jt_nodemap_add: name, features,
     * GRES, leaf switch; state and usage do not matter), s not finalized;
     * domain_key as jt_nodemap_add's. 0, or -1 with err set. Asked once
     * for a run that passed every other rule, to refuse at submission a run
     * that could never be placed even on the idle cluster (the EVER tense
     * of jobtree/schedule.h, over every node), which slurmctld would
     * otherwise refuse with its own words only. NULL, or a failure: that
     * check is left to slurmctld. */
    int (*nodes) (void *arg, jt_snapshot_t *s, const char *domain_key,
                  jt_error_t *err);
} jt_admit_cluster_t;

/* A job as submitted. Strings may be NULL. Counts are range-checked here:
 * a value out of range is refused, never trusted. */
typedef struct jt_admit_req {
    const char *account;            /* --account; NULL or "": default_account */
    const char *tres_per_job;       /* --gpus */
    const char *tres_per_node;      /* --gres, --gpus-per-node */
    const char *tres_per_socket;    /* --gpus-per-socket */
    int64_t min_nodes;              /* -N; <= 0 when not given (then 1) */
    int64_t sockets_per_node;       /* --sockets-per-node; <= 0 when not given */
    char *const *env;               /* the job's SPANK environment */
    size_t nenv;
    int64_t time_limit_min;         /* -t, minutes; <= 0 when none */
    int64_t now;                    /* seconds since the epoch */
} jt_admit_req_t;

typedef enum jt_admit_verdict {
    JT_ADMIT_PASS = 0,
    JT_ADMIT_RUN,
    JT_ADMIT_UNFUNDED,
    JT_ADMIT_REFUSE,
} jt_admit_verdict_t;

/* Which kind of refusal (REFUSE) or of unfunded run (UNFUNDED). */
typedef enum jt_admit_refusal {
    JT_ADMIT_BAD_GRES = 0,          /* options, GPU request, ill-formed run */
    JT_ADMIT_BAD_GRES_TYPE,         /* flavor missing or unknown */
    JT_ADMIT_BAD_NODE_COUNT,        /* the request is outside the malleable range */
    JT_ADMIT_NO_BUDGET,             /* no budgets, or none for the account */
    JT_ADMIT_NEVER_FUNDABLE,        /* jt_cover_ever said no (not UnknownFlavor) */
    JT_ADMIT_NEVER_PLACEABLE,       /* no placement on the configured nodes, ever */
    JT_ADMIT_NO_MEMORY,
} jt_admit_refusal_t;

#define JT_ADMIT_LINE_MAX 1024

typedef struct jt_admit {
    jt_admit_verdict_t verdict;
    jt_admit_refusal_t refusal;     /* REFUSE, UNFUNDED */
    char line[JT_ADMIT_LINE_MAX];   /* REFUSE, UNFUNDED: "jobtree: ..." */
    char *record;                   /* RUN: admin_comment text (malloc'd) */
    char summary[JT_ADMIT_LINE_MAX];/* RUN: "account A: 32 h100 GPUs in 2
                                     * group(s), 32 funded at submission (OK)" */
    /* RUN with --spares=N (N > 0): the job's node range with every group's
     * N spare nodes added (the spares are allocated to the job, whatever
     * -N said: docs/select-plugin.md, "Spares"), and the job must survive
     * a node failure (Slurm's --no-kill: kill_on_node_fail 0) so a spare
     * can take the failed node's place. min_nodes 0: leave the job's
     * minimum (a malleable run's minimum is its own). All 0 otherwise. */
    int64_t spare_nodes;            /* spare nodes at the run's largest size */
    int64_t min_nodes, max_nodes;
    bool no_kill;
} jt_admit_t;

/* Decide on job req under conf and budgets (either may be NULL: defaults,
 * no budgets loaded). Always fills *out (free it with jt_admit_free) and
 * returns out->verdict; out of memory is a refusal (JT_ADMIT_NO_MEMORY). */
jt_admit_verdict_t jt_admit (const jt_admit_req_t *req, const jt_config_t *conf,
                             const jt_budgets_t *budgets,
                             const jt_admit_cluster_t *cluster, jt_admit_t *out);

/* Free what jt_admit allocated (accepts NULL and an already freed out). */
void jt_admit_free (jt_admit_t *out);

const char *jt_admit_verdict_str (jt_admit_verdict_t v);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_ADMIT_H */
