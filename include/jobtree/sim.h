/*
 * jobtree/sim.h - the discrete-event simulator behind `jobtree sim`: a job
 * trace replayed through the same libjobtree code slurmctld runs (the
 * scheduler's answer of schedule.h: Cover, Pack, the estimate, funding
 * holds), under Slurm's queue semantics as the select plugin sees them.
 *
 * Traces (CSV with a header line; the header names the format):
 *
 *   Philly (read as is):  job_id,submit_s,duration_s,gpus,nodes,team,gpu_type
 *   Jobtree's own:        id,submit_s,duration_s,time_limit_s,gpus,nodes,owner,flavor,options
 *
 * submit_s is seconds from the trace's start; time_limit_s 0 or empty is
 * "none" (then --limit-factor x duration, rounded up to whole minutes, as
 * a user would set it); nodes empty is "any"; flavor empty is the cluster's
 * only flavor; options are the sbatch options of jobtree/options.h
 * separated by spaces ("--group-gpus=16 --borrow"). A job of at least one
 * node's GPUs is a Jobtree run (PlainGpuJobs=jobtree); a Philly job is one
 * group (groupGPUs = its GPUs rounded up to whole nodes: it must sit in one
 * fast-fabric domain). A job smaller than one node is a plain GPU job, left
 * to cons_tres (modelled: the node with the fewest free GPUs that holds it,
 * ties by node order).
 *
 * Cluster: a snapshot JSON file (jobtree-snapshot(5)), or the compact form
 * "DxNxG:FLAVOR[+DxNxG:FLAVOR...]": D fast-fabric domains of N nodes of G
 * GPUs each.
 *
 * Queue (jobtree-sim(1) states it for users): jobs are considered in
 * priority order = submit order (ties by trace line). At every instant an
 * event happens (arrivals, ends, envelope window boundaries) one pass walks
 * the queue as backfill does: each job (at most `depth` per pass) is asked
 * jt_sched_answer NOW on the nodes no earlier reservation holds before the
 * job would end, with the funding holds of the runs reserved ahead; BIND
 * starts it. Otherwise, with reservations on, ESTIMATE gives the node sets
 * and the instant funding frees; the sim computes the earliest start of
 * each set from the time limits of the jobs holding its nodes and of the
 * reservations made earlier in the pass, jt_answer_pick takes one, and the
 * run reserves those nodes and holds its payer's GPUs from then on.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_SIM_H
#define JOBTREE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "budget.h"
#include "error.h"
#include "pack.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bounds on every number a trace may give (checked before arithmetic). */
#define JT_SIM_TIME_MAX (INT64_C (100) * 366 * 86400)   /* 100 years, s */
#define JT_SIM_JOBS_MAX (10 * 1000 * 1000)
#define JT_SIM_NODES_MAX 100000                         /* cluster spec */
#define JT_SIM_GPUS_PER_NODE_MAX 64
#define JT_SIM_SAMPLES_MAX 100000                       /* timeline, per policy */

typedef enum jt_sim_format {
    JT_SIM_PHILLY = 0,
    JT_SIM_JOBTREE,
} jt_sim_format_t;

typedef struct jt_sim_job {
    char *id;
    int64_t submit;             /* s from the trace's start */
    int64_t duration;           /* s, >= 1 */
    int64_t limit;              /* s; 0: none given */
    int64_t gpus;               /* [1, JT_RUN_GPUS_MAX] */
    int64_t nodes;              /* 0: any */
    char *owner;
    char *flavor;               /* NULL: the cluster's only flavor */
    char *options;              /* Jobtree options, NULL when none */
    int line;                   /* in the trace file */
} jt_sim_job_t;

typedef struct jt_sim_trace {
    char *file;
    jt_sim_format_t format;
    jt_sim_job_t *jobs;         /* in priority order: submit, then line */
    size_t n;
} jt_sim_trace_t;

/* Parse a trace (text of len bytes, named file in diagnostics). Every bad
 * field is reported as file:line:col: field: what is wrong. Returns 0, or
 * -1 with out empty and every problem in diags. */
int jt_sim_trace_parse (const char *file, const char *text, size_t len,
                        jt_sim_trace_t *out, jt_diags_t *diags);
int jt_sim_trace_load (const char *path, jt_sim_trace_t *out, jt_diags_t *diags);
void jt_sim_trace_free (jt_sim_trace_t *t);

/* The cluster: a snapshot file, or the compact form (see above). Nodes are
 * named FLAVOR-dDD-nNNN with labels cluster=sim, fabric.domain=FLAVOR-dDD.
 * Returns a finalized snapshot without leases, or NULL (err names the
 * part of the spec that is wrong). */
jt_snapshot_t *jt_sim_cluster (const char *spec, jt_error_t *err);

typedef struct jt_sim_policy {
    char name[64];              /* as given on the command line */
    jt_pack_policy_t pack;
    int64_t split_nodes;        /* > 0: runs of at most this many nodes are
                                 * placed best-fit, larger ones pack-to-empty
                                 * ("small runs into domains in use") */
    int borrow;                 /* -1: as the trace says; 0 off; 1 on */
    bool reservations;          /* backfill reservations and funding holds */
    bool placement;             /* false: the baseline, no libjobtree call
                                 * (first free nodes in node order) */
    bool preempt;               /* activation: runs give way (requeued
                                 * whole) to a lender's reclaim at once */
    int64_t max_wait;           /* > 0: and to a reservation due at its
                                 * creation + max_wait s (jobtree.conf
                                 * MaxWait) */
    int64_t checkpoint;         /* > 0: every run checkpoints every so many
                                 * s (--checkpoint): one that gives way
                                 * resumes from its last checkpoint */
    bool flat;                  /* Pack ignores the cluster's fabric levels
                                 * (the one-level baseline) */
} jt_sim_policy_t;

/* "POLICY[,OPTION...]": POLICY is pack-to-empty, best-fit, split[=NODES]
 * (default 2) or none (placement off, the benchmark's baseline); OPTIONS
 * borrow, noborrow, noresv, preempt (reclaims), maxwait=SECONDS (and
 * activation at MaxWait; implies preempt), checkpoint=SECONDS (every run's
 * --checkpoint), flat (Pack ignores the cluster's fabric levels). Returns
 * 0 or -1 (err names the word). */
int jt_sim_policy_parse (const char *text, jt_sim_policy_t *out, jt_error_t *err);

typedef void (*jt_sim_progress_fn) (void *arg, const char *policy,
                                    size_t done, size_t total);

typedef struct jt_sim_opts {
    int64_t epoch;              /* the trace's instant 0 (envelope windows
                                 * are read against epoch + submit_s) */
    int64_t limit_factor_pct;   /* a job without a time limit gets
                                 * duration x pct / 100, in whole minutes */
    size_t depth;               /* jobs tested per pass (bf_max_job_test) */
    int64_t sample;             /* timeline interval, s (0: 3600); doubled
                                 * as often as needed to keep at most
                                 * JT_SIM_SAMPLES_MAX samples */
    int64_t philly_group_gpus;  /* > 0: a Philly job of more GPUs is a run
                                 * of groups of this many (rounded up to
                                 * whole groups), whose groups may spread;
                                 * 0: one group (it must sit in one domain) */
    jt_sim_progress_fn progress;
    void *progress_arg;
} jt_sim_opts_t;

void jt_sim_opts_init (jt_sim_opts_t *o);   /* 2026-01-01, 150 %, 100, 3600 */

typedef struct jt_sim_result jt_sim_result_t;

/* Replay trace t on cluster c (not modified) with budgets b under policy p.
 * Deterministic: the same inputs give the same result, byte for byte in
 * every writer below. t and b must outlive the result (it points into
 * them). Returns NULL on an internal error (err set); a run
 * the library refuses is a result (never started), not an error. */
jt_sim_result_t *jt_sim_run (const jt_sim_trace_t *t, const jt_budgets_t *b,
                             const jt_snapshot_t *c, const jt_sim_policy_t *p,
                             const jt_sim_opts_t *o, jt_error_t *err);
void jt_sim_result_destroy (jt_sim_result_t *r);

/* Headline numbers of one result (the others are in the writers). */
typedef struct jt_sim_summary {
    size_t jobs, runs, started, never_started;
    double utilization;         /* GPU-seconds run / (GPUs x span) */
    double wait_mean, wait_p50, wait_p95, wait_max;     /* s, started jobs */
    double bounded_slowdown;    /* mean of max(1, (wait+run)/max(run, 10 s)) */
    double jain;                /* over owners with an entitlement */
    size_t groups_split;        /* groups whose nodes span domains */
    size_t multi_domain;        /* started runs over 2+ domains ... */
    size_t over_units;          /* ... those over 2+ units of the cluster's
                                 * lowest level above the domain */
    size_t over_top;            /* ... and of its highest level */
    double wait_multi;          /* mean wait of the runs over 2+ domains, s */
    double borrowed_gpu_hours, lent_gpu_hours;
    size_t preemptions;         /* runs that gave way (requeued) */
    int64_t gpus_evicted;       /* their GPUs */
    size_t runs_shrunk;         /* runs that gave up whole groups to an
                                 * activation (each time; malleable runs,
                                 * never below their minimum) */
    size_t spares_dropped;      /* spare nodes dropped by activations */
    int64_t gpus_cut;           /* GPUs both gave back (runs kept going) */
    int64_t span;               /* s, first submit to last end */
    size_t passes, answers;     /* scheduling passes, jt_sched_answer calls */
} jt_sim_summary_t;

void jt_sim_summarize (const jt_sim_result_t *r, jt_sim_summary_t *out);
const char *jt_sim_result_policy (const jt_sim_result_t *r);

/* Writers, each over n results side by side (one row set per policy, in
 * the order given). Return 0 or -1 (a write error). */
int jt_sim_print_table (FILE *f, jt_sim_result_t *const *r, size_t n);
int jt_sim_write_summary_csv (FILE *f, jt_sim_result_t *const *r, size_t n);
int jt_sim_write_owners_csv (FILE *f, jt_sim_result_t *const *r, size_t n);
int jt_sim_write_jobs_csv (FILE *f, jt_sim_result_t *const *r, size_t n);
int jt_sim_write_timeline_csv (FILE *f, jt_sim_result_t *const *r, size_t n);
int jt_sim_write_json (FILE *f, jt_sim_result_t *const *r, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_SIM_H */
