/*
 * jobtree/score.h - the composite ordering score (seed 004, "Value"):
 * Score(j) = sum of w_i * f_i(j) over nine factors, with weights from a
 * named profile chosen per partition in jobtree.conf.
 *
 * The score orders the queue; it never decides who gives way. Who is
 * preempted is decided by structural cuts and the seeded lottery
 * (DESIGN decisions 4 and 11, jobtree/activate.h); nothing there reads
 * a score.
 *
 * The factors, each a pure function below (docs/score.md has the table):
 *
 *   f1 priority     0.5, always: Jobtree has no priority tiers (decision 4);
 *                   a site's tiers stay in Slurm's QOS/partition factors
 *   f2 wait         log(1 + wait / ScoreReferenceWait), wait = now - the
 *                   job's eligible time (seed's log form, not capped at 1)
 *   f3 fair_share   max(0, target - used) / target: target = GPUs of the
 *                   owner's open envelopes of the run's flavor (their
 *                   concurrency C), used = their live active GPUs; 0 when
 *                   the owner has no such envelope
 *   f4 topology     1 - needed / available: available = domains holding
 *                   nodes the run may use, needed = the fewest of them that
 *                   hold its groups whole (largest domains first); 0 when
 *                   the run fits no set of domains
 *   f5 data_ready   ScoreDataReadiness (default 0.5, the seed's neutral
 *                   value: Jobtree knows nothing of data placement)
 *   f6 backlog      min(1, queued GPU-hours / running GPU-hours); 1 when
 *                   nothing runs and something waits, 0 when nothing waits
 *   f7 energy       1 - ScoreEnergyPrice (a normalized price 0..1 the admin
 *                   gives; default 0.5: no price known)
 *   f8 checkpoint   1 / (1 + checkpoint minutes) with --checkpoint (its
 *                   interval bounds the work a preemption loses); 0 without
 *   f9 conformance  min(1, largest / requested): largest = nodes of the most
 *                   common conformance fingerprint among the nodes the run
 *                   may use (a node without one is its own class),
 *                   requested = the run's nodes
 *
 * jobtree.conf keys (parsed by jt_score_conf_apply, called by config.c):
 *
 *   ScoreProfile=NAME:FACTOR=W[,FACTOR=W...]  a site profile; W 0..1, the
 *                              weights must sum to 1; unnamed factors weigh 0
 *   ScoreDefaultProfile=NAME   the profile of partitions not listed
 *                              (default: balanced)
 *   ScorePartitionProfile=PART:NAME[,PART:NAME...]
 *   ScoreReferenceWait=1h      f2's reference wait (1s..365d)
 *   ScoreScale=10000           site factor = round(score x scale), 1..1000000
 *   ScoreDataReadiness=0.5     f5, 0..1
 *   ScoreEnergyPrice=0.5       f7's normalized price, 0..1
 *
 * Built-in profiles (the seed's table, and its "balanced" default):
 * hpc-batch, ml-training, service, sensitive, interactive, balanced.
 * A profile is used before it is named by ScoreDefaultProfile or
 * ScorePartitionProfile, so a ScoreProfile line comes first.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_SCORE_H
#define JOBTREE_SCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conformance.h"
#include "cover.h"
#include "error.h"
#include "run.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jt_score_factor {
    JT_SCORE_PRIORITY = 0,
    JT_SCORE_WAIT,
    JT_SCORE_FAIR_SHARE,
    JT_SCORE_TOPOLOGY,
    JT_SCORE_DATA_READY,
    JT_SCORE_BACKLOG,
    JT_SCORE_ENERGY,
    JT_SCORE_CHECKPOINT,
    JT_SCORE_CONFORMANCE,
    JT_SCORE_NFACTORS
} jt_score_factor_t;

#define JT_SCORE_NEUTRAL 0.5
#define JT_SCORE_NAME_MAX 64
#define JT_SCORE_PROFILES_MAX 64          /* site profiles in one file */
#define JT_SCORE_PARTS_MAX 1024           /* partitions mapped */
#define JT_SCORE_REF_WAIT_DEFAULT 3600
#define JT_SCORE_REF_WAIT_MAX (365 * 86400)
#define JT_SCORE_SCALE_DEFAULT 10000
#define JT_SCORE_SCALE_MAX 1000000
#define JT_SCORE_WAIT_MAX (INT64_C (10) * 365 * 86400)   /* f2's input cap */
#define JT_SCORE_DEFAULT_PROFILE "balanced"

typedef struct jt_score_profile {
    char name[JT_SCORE_NAME_MAX];
    double w[JT_SCORE_NFACTORS];
} jt_score_profile_t;

typedef struct jt_score_part {
    char *partition;
    char *profile;
} jt_score_part_t;

typedef struct jt_score_conf {
    jt_score_profile_t *profiles;      /* site profiles, in file order */
    size_t nprofiles;
    char *default_profile;             /* NULL: balanced */
    jt_score_part_t *parts;            /* ScorePartitionProfile, file order */
    size_t nparts;
    int64_t reference_wait_s;
    int64_t scale;
    double data_ready;
    double energy_price;
} jt_score_conf_t;

/* The factor's name in jobtree.conf and in outputs ("fair_share"). */
const char *jt_score_factor_str (jt_score_factor_t f);

/* The defaults; jt_score_conf_free releases and leaves it as init does. */
void jt_score_conf_init (jt_score_conf_t *c);
void jt_score_conf_free (jt_score_conf_t *c);
/* Deep copy into dst (initialized or freed before). 0, or -1 (ENOMEM, dst
 * left as init leaves it). */
int jt_score_conf_copy (jt_score_conf_t *dst, const jt_score_conf_t *src);

/* True iff key (any case) is one of the Score* keys above. */
bool jt_score_conf_key (const char *key);
/* Apply one Score* key to c. Returns 0, or -1 with a one-line reason in why
 * naming the key and the fix (c unchanged). */
int jt_score_conf_apply (jt_score_conf_t *c, const char *key, const char *val,
                         char *why, size_t len);

/* The profile named name (site profiles first, then built-in), or NULL. */
const jt_score_profile_t *jt_score_profile (const jt_score_conf_t *c,
                                            const char *name);
/* The profile for partition (NULL: the default): ScorePartitionProfile,
 * else ScoreDefaultProfile, else balanced. Never NULL. */
const jt_score_profile_t *jt_score_profile_for (const jt_score_conf_t *c,
                                                const char *partition);

/* The factors, pure functions of their inputs (see above). Inputs out of
 * range are clamped: negative counts as 0, wait above JT_SCORE_WAIT_MAX
 * as that. */
double jt_score_f_priority (void);
double jt_score_f_wait (int64_t wait_s, int64_t reference_wait_s);
double jt_score_f_fair_share (int64_t target_gpus, int64_t used_gpus);
double jt_score_f_topology (int64_t needed, int64_t available);
double jt_score_f_backlog (double queued_gpu_hours, double running_gpu_hours);
double jt_score_f_energy (double normalized_price);
double jt_score_f_checkpoint (int64_t checkpoint_s);
double jt_score_f_conformance (int64_t largest, int64_t requested);

/* Everything the factors need about one run. */
typedef struct jt_score_input {
    int64_t wait_s;             /* now - eligible time */
    int64_t fs_target_gpus;     /* f3 */
    int64_t fs_used_gpus;
    int64_t domains_needed;     /* f4; needed > available: fits nowhere */
    int64_t domains_available;
    /* f4 over the snapshot's levels above the domain (jobtree/snapshot.h):
     * per level, the fewest units (blocks, spines) holding the run's
     * groups and the units with candidate nodes; nlevels 0: none */
    size_t nlevels;
    int64_t units_needed[JT_LEVELS_MAX];
    int64_t units_available[JT_LEVELS_MAX];
    double queued_gpu_hours;    /* f6 (cluster-wide) */
    double running_gpu_hours;
    int64_t checkpoint_s;       /* f8 */
    int64_t conformance_largest;    /* f9 */
    int64_t nodes_requested;
} jt_score_input_t;

/* f4 of a run: the mean of jt_score_f_topology over the domain and each
 * level with more than one unit available (one spine for the whole
 * cluster says nothing about a run). Without levels: the domain's alone. */
double jt_score_f_topology_levels (const jt_score_input_t *in);

/* Fill in's f3, f4, f8 and f9 inputs for run r on snapshot s (finalized)
 * with budgets b and live usage u (either may be NULL: no share) at now.
 * The candidates are the nodes of r's flavor in a domain, not down, that
 * satisfy r's constraints. Leaves wait and backlog alone. Work is
 * O(nodes log nodes + domains log domains + envelopes). 0, or -1 with err. */
int jt_score_inputs (const jt_snapshot_t *s, const jt_budgets_t *b,
                     const jt_usage_t *u, const jt_run_t *r, int64_t now,
                     jt_score_input_t *in, jt_error_t *err);

/* The same inputs, in O(domains + envelopes + groups) per run: a summary
 * built once per snapshot (per flavor: the nodes not down of each domain,
 * largest first, and the largest fingerprint class; O(nodes log nodes))
 * answers every run without node constraints; a run with constraints is
 * answered by jt_score_inputs. The answers equal jt_score_inputs'. The
 * summary keeps pointers into s, which must outlive it. */
typedef struct jt_score_cluster jt_score_cluster_t;
jt_score_cluster_t *jt_score_cluster_create (const jt_snapshot_t *s,
                                             jt_error_t *err);
void jt_score_cluster_destroy (jt_score_cluster_t *c);
int jt_score_inputs_cached (const jt_score_cluster_t *c, const jt_budgets_t *b,
                            const jt_usage_t *u, const jt_run_t *r, int64_t now,
                            jt_score_input_t *in, jt_error_t *err);

/* f6's totals: the GPU-hours of s's leases that hold GPUs (Active and
 * Borrowed; gpus x (end - start), or x JT_RUN_DEFAULT_TIME_LIMIT_S when
 * the end is unknown), and of a waiting run (jt_run_gpu_hours of its
 * total). */
double jt_score_running_gpu_hours (const jt_snapshot_t *s);
double jt_score_queued_gpu_hours (const jt_run_t *r);

/* One run's score under a profile. */
typedef struct jt_score {
    char profile[JT_SCORE_NAME_MAX];
    double f[JT_SCORE_NFACTORS];
    double w[JT_SCORE_NFACTORS];
    double sum;                 /* sum of w[i] * f[i] */
    int64_t site_factor;        /* round(sum x scale), 0..INT32_MAX */
} jt_score_t;

void jt_score_compute (const jt_score_conf_t *c, const jt_score_profile_t *p,
                       const jt_score_input_t *in, jt_score_t *out);

/* Canonical text: "profile NAME\n" then one line per factor
 * "  wait          0.6931 x 0.20 = 0.1386\n", then "  sum ... site
 * factor N\n". Malloc'd, NULL on ENOMEM. */
char *jt_score_format (const jt_score_t *sc);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_SCORE_H */
