/*
 * sim_int.h - private to the simulator (sim_engine.c fills a result,
 * sim_report.c summarizes and writes it).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_SIM_INT_H
#define JT_SIM_INT_H

#include <stdint.h>

#include "jobtree/sim.h"

enum sim_state {
    SIM_PENDING = 0,
    SIM_RUNNING,
    SIM_DONE,
    SIM_REFUSED,            /* the library refused it for ever */
};

typedef struct sim_owner {
    const char *name;       /* points into the trace */
    int64_t entitled;       /* GPUs: concurrency of its envelopes */
    double gpu_s;           /* GPU-seconds run, every job of the owner */
    double borrowed_gpu_s;  /* its runs' groups paid by sponsors */
    double lent_gpu_s;      /* its envelopes paying other owners' groups */
} sim_owner_t;

typedef struct sim_sample {
    int64_t t;              /* s from the trace's start */
    int64_t busy;           /* GPUs allocated */
    int64_t queued;         /* jobs pending */
    int64_t running;        /* jobs running */
    int64_t free_domains;   /* domains none of whose nodes is in use */
} sim_sample_t;

struct jt_sim_result {
    char policy[64];
    const jt_sim_trace_t *trace;    /* must outlive the result */
    size_t njobs;
    int64_t *start;         /* s from the trace's start; -1 never */
    int64_t *end;
    int64_t *gpus;          /* GPUs allocated (whole nodes for runs) */
    uint8_t *state;
    uint8_t *is_run;
    uint16_t *split;        /* groups of the run whose nodes span domains */
    uint16_t *domains;      /* domains the job's nodes are in */
    uint16_t *units;        /* units of the cluster's lowest level above
                             * the domain its nodes are in (0: none) */
    uint16_t *units_top;    /* and of its highest level */
    size_t nlevels;         /* the cluster's levels above the domain */
    int32_t *dom;           /* the domain of its first node (index into
                             * dom_names), -1 when it never started */
    char **dom_names;       /* the cluster's domain names (copied) */
    size_t ndom_names;
    uint32_t *owner;        /* index into owners */
    char **why;             /* never started: the last refusal (or NULL) */
    sim_owner_t *owners;
    size_t nowners;
    int64_t cluster_gpus;
    sim_sample_t *samples;
    size_t nsamples, samples_cap;
    size_t passes, answers;
    uint16_t *preempted;    /* per job: times it gave way */
    size_t preemptions;     /* runs that gave way (each time) */
    int64_t gpus_evicted;   /* their GPUs */
    double evicted_gpu_s;   /* GPU-seconds run by attempts that gave way */
    /* structural cuts (activation before the lottery) */
    uint16_t *shrunk;       /* per job: activations that cut it (spares
                             * dropped or groups given up) */
    size_t runs_shrunk;     /* runs that gave up whole groups (each time) */
    size_t spares_dropped;  /* spare nodes dropped */
    int64_t gpus_cut;       /* GPUs given back by both */
    double cut_gpu_s;       /* GPU-seconds run by them before the cut */
};

jt_sim_result_t *jt_simx_result_create (const jt_sim_trace_t *t, const char *policy);
int jt_simx_sample_push (jt_sim_result_t *r, const sim_sample_t *s);

#endif /* JT_SIM_INT_H */
