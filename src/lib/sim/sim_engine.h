/*
 * sim_engine.h - private to the simulator's engine: the state of one
 * replay (sim_engine.c: setup and the event loop; sim_jobs.c: jobs
 * arriving, starting and ending, node state; sim_backfill.c: the pass over
 * the queue and its reservations).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_SIM_ENGINE_H
#define JT_SIM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "jobtree/run.h"
#include "jobtree/schedule.h"
#include "sim_int.h"

#define NEVER INT64_MAX

typedef struct alloc {
    size_t node;
    int gpus;
} alloc_t;

typedef struct heap_ent {
    int64_t t;
    size_t job;
} heap_ent_t;

typedef struct sim {
    const jt_sim_trace_t *t;
    const jt_budgets_t *b;
    const jt_sim_policy_t *p;
    const jt_sim_opts_t *o;
    jt_sim_result_t *r;
    jt_snapshot_t *s;           /* our copy: used GPUs and leases change */
    jt_pack_views_t *views;     /* Pack's warm views of s (NULL: per call) */
    const char *only_flavor;    /* the cluster's flavor when it has one */
    int64_t *limit;             /* per job, s */
    jt_run_t **run;             /* per pending run */
    alloc_t **alloc;            /* per running job */
    size_t *nalloc;
    size_t *queue;              /* pending jobs, priority order */
    size_t nqueue;
    heap_ent_t *heap;           /* running jobs by end, then index (an
                                 * evicted job's entry stays until popped:
                                 * stale when the job's end differs) */
    size_t nheap, heap_cap;
    size_t nrunning;
    heap_ent_t *timers;         /* activations due (reservation + MaxWait,
                                 * or at once for a reclaim), by time */
    size_t ntimers, timers_cap;
    int64_t *created;           /* per job: its reservation's creation, -1 */
    int64_t *saved;             /* per job: work kept by checkpoints, s */
    int64_t *ckpt;              /* per job: its checkpoint interval, s */
    int64_t *min_gpus;          /* per running run: its malleable minimum
                                 * (-1: not malleable), as its record says */
    uint8_t *activated;         /* per job: 1 room, 2 reclaim done */
    size_t *requeued;           /* evicted in this pass, queued after it */
    size_t nrequeued;
    bool oom;                   /* a push failed: the replay fails */
    size_t *by_id;              /* job indexes sorted by id */
    size_t *qtmp;               /* scratch for merging the requeued */
    int64_t *walls;             /* envelope window boundaries, trace time */
    size_t nwalls;
    int64_t free_gpus;          /* GPUs free on up nodes */
    int64_t busy_gpus;
    uint32_t *dom_busy;         /* per domain: nodes in use */
    int64_t free_domains;       /* domains with no node in use */
    int64_t last_now;           /* the last instant with an event */
    int *flavor_id;             /* per node: index into flavors, -1 none */
    const char **flavors;
    int *gpn;                   /* per flavor: GPUs per node */
    size_t nflavors;
    int *job_flavor;            /* per job: index into flavors, -1 none */
    /* What may change a refused run's answer: room (a whole node frees),
     * funding (a lease ends, a window opens or closes); both when a run
     * ahead starts or leaves (its reservation and hold go). A run refused
     * since the last change is refused again, so it is not asked again:
     * its reservation is kept (DESIGN in sim.md). */
    uint32_t room_gen, fund_gen;
    uint32_t *seen_room, *seen_fund;    /* per job: gens at its refusal */
    uint8_t *kind;              /* per job: 1 room, 2 funding */
    size_t **rnodes;            /* per job: its reservation's nodes */
    uint32_t *rn;
    int64_t *rstart;
    const char **renv;          /* its hold: payer and GPUs of the */
    int64_t *rgpus;             /* reservation's first estimate; it starts
                                 * at the latest (rstart) */
    /* per pass */
    int64_t *resv_start;        /* earliest reservation on the node */
    int64_t *resv_end;          /* the node is taken by reservations until */
    int64_t *avail;             /* expected end of the jobs on the node */
    bool avail_ok;
    bool *eligible;
    bool *all;
    jt_hold_t *holds;
    size_t nholds;
    int64_t *starts;            /* per candidate set */
    size_t *order;              /* scratch: nodes of a set */
} sim_t;

/* Is node n free of reservations for a job ending at end? */
static inline bool jt_simx_resv_ok (const sim_t *m, size_t n, int64_t end)
{
    return end <= m->resv_start[n];
}

const char *jt_simx_job_flavor (const sim_t *m, const jt_sim_job_t *j);
void jt_simx_set_why (sim_t *m, size_t j, const char *why);
/* Run j leaves the queue for ever (the library refused it). */
void jt_simx_refuse (sim_t *m, size_t j, const char *why);
jt_run_t *jt_simx_make_run (sim_t *m, const jt_sim_job_t *j, int gpn,
                            char *why, size_t len);
bool jt_simx_place_plain (sim_t *m, size_t j, int64_t now);
bool jt_simx_place_first (sim_t *m, size_t j, int64_t now, int gpn);
int jt_simx_start_run (sim_t *m, size_t j, const jt_answer_t *a, int64_t now,
                       jt_error_t *err);
/* A min-heap of (time, job) that grows: 0 or -1 (ENOMEM). */
int jt_simx_heap_push (heap_ent_t **v, size_t *n, size_t *cap, int64_t t,
                       size_t job);
heap_ent_t jt_simx_heap_pop (heap_ent_t *v, size_t *n);
/* Is the heap entry of a running job current (not left by an eviction)? */
bool jt_simx_current (const sim_t *m, const heap_ent_t *e);
/* Run v gives way at now (requeued whole, as PreemptMode=REQUEUE): its
 * nodes and leases go back, the part it will not run is taken off its
 * owner's (and lenders') GPU-hours, and it waits again. 0 or -1. */
int jt_simx_evict (sim_t *m, size_t v, int64_t now, jt_error_t *err);
/* Structural cut of running run v at now (an activation's DropSpare or
 * Shrink of its group `group`): the group's spare nodes, or the group's
 * nodes and spares, go back with their leases, and the run keeps running
 * on the rest until its end (as `scontrol update NodeList=` leaves it).
 * Returns the nodes given back, -1 on error. */
int jt_simx_cut (sim_t *m, size_t v, int group, bool spares_only, int64_t now,
                 jt_error_t *err);
/* If run j's reservation is due (room at its MaxWait, or a reclaim of
 * what its owner lent), the activation as slurmctld decides it: who gives
 * way (jt_activation_applies, jt_activation_slice, jt_activate), whole
 * runs. Returns the runs evicted (0: none), -1 on error. */
int jt_simx_activate (sim_t *m, size_t j, const jt_sched_request_t *now_req,
                      int64_t now, jt_error_t *err);
void jt_simx_finish (sim_t *m, size_t j);
/* One pass over the queue at now, testing at most depth jobs. 0 or -1. */
int jt_simx_pass (sim_t *m, int64_t now, size_t depth, jt_error_t *err);

#endif /* JT_SIM_ENGINE_H */
