/*
 * jobtree/schedule.h - the scheduler's answer for one run at one instant.
 *
 * Slurm asks a select plugin the same question in three tenses (job_test's
 * modes); the answers must agree so the main scheduler and backfill do:
 *
 *   JT_TENSE_NOW       may it start now, on these nodes? (SELECT_MODE_RUN_NOW)
 *                      Plan against live usage; nodes outside the caller's
 *                      set count as busy.
 *   JT_TENSE_EVER      could it ever run on these nodes? (TEST_ONLY)
 *                      Every node of the set free and up, no usage. Only a
 *                      run no envelope could ever fund, or a group that fits
 *                      no domain even when idle, is refused.
 *   JT_TENSE_ESTIMATE  when could it start? (WILL_RUN, backfill)
 *                      As NOW when the plan binds now. Otherwise the node
 *                      sets on which a start should be estimated: one per
 *                      domain able to hold the run when the run must sit in
 *                      one domain (so backfill reserves inside one domain;
 *                      with --group-by one per class, domain and value;
 *                      only nodes the run's constraints allow count),
 *                      else one over every domain node of the flavor; and
 *                      when funding is what is missing, the instant it
 *                      frees (`not_before`): the first lease end or window
 *                      boundary after which the run's envelopes fund it,
 *                      counting the leases still running then. Funding
 *                      waits and placement waits are alike (DESIGN decision
 *                      9): both get an estimate, so backfill holds room for
 *                      a run waiting for its budget. A run no lease end or
 *                      window opening would fund gets no estimate; when it
 *                      would be funded once the leases of unknown end have
 *                      ended, its refusal says "start unknown: funded when
 *                      running leases end; their ends are not known".
 *
 * The adapter translates its node set into `eligible`, asks, and turns the
 * answer into node bitmaps for the per-node check (cons_tres: cores,
 * memory, GRES). Every rule about what each tense means is here, once.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_SCHEDULE_H
#define JOBTREE_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "cover.h"
#include "error.h"
#include "plan.h"
#include "run.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jt_tense {
    JT_TENSE_NOW = 0,
    JT_TENSE_EVER,
    JT_TENSE_ESTIMATE,
} jt_tense_t;

const char *jt_tense_str (jt_tense_t t);        /* "now", "ever", "estimate" */

typedef enum jt_answer_kind {
    JT_ANSWER_BIND = 0, /* run on exactly `bind` (groups, then spares) */
    JT_ANSWER_REFUSE,   /* no (NOW, ESTIMATE: not now; EVER: never): reason */
    JT_ANSWER_DEFER,    /* EVER: nothing of Jobtree's stops it; the per-node
                         * check over the whole set decides */
    JT_ANSWER_ESTIMATE, /* ESTIMATE, placement missing: estimate a start on
                         * each of `cands` (cand_nodes nodes), earliest wins,
                         * ties by order; reason says why not now */
} jt_answer_kind_t;

const char *jt_answer_kind_str (jt_answer_kind_t k);   /* "bind", ... */

typedef struct jt_node_set {
    size_t *nodes;              /* snapshot node indexes, ascending per group */
    size_t nnodes;
    int domain;                 /* an estimate set within one domain: its
                                 * index; -1 otherwise */
} jt_node_set_t;

/* A hold on funding: the reservation of a run that waits ahead of this
 * one (its payer, GPUs and estimated start). Backfill keeps other jobs off
 * a reserved run's nodes unless they end before its start; a hold does
 * the same for its envelope's concurrency: a run that would still be
 * running at `start` may not take those GPUs. Without it, small runs of
 * the same envelope take every GPU that frees and the reserved run's
 * funding never comes. */
typedef struct jt_hold {
    const char *envelope;       /* unknown names are ignored */
    int64_t gpus;
    int64_t start;
} jt_hold_t;

/* Adds the GPU-hours of closed leases (the ledger's) to u: Cover's integral
 * bound counts them; open leases come from the snapshot. */
typedef void (*jt_closed_hours_fn) (jt_usage_t *u, const jt_budgets_t *b,
                                    void *arg);

typedef struct jt_sched_request {
    const jt_budgets_t *budgets;
    jt_snapshot_t *snap;        /* live: used_gpus and state of every node,
                                 * leases of running runs. The call views it
                                 * through `eligible` and restores it. */
    const bool *eligible;       /* per snapshot node: in the caller's set */
    const jt_run_t *run;
    int64_t now;
    jt_tense_t tense;
    uint32_t min_nodes;         /* the job's node range (Slurm's) */
    uint32_t max_nodes;         /* 0 or >= JT_SCHED_NODES_ANY: no bound */
    jt_plan_opts_t opts;
    jt_closed_hours_fn closed_hours;    /* may be NULL */
    void *closed_hours_arg;
    /* NOW and ESTIMATE: the holds of runs waiting ahead of this one (the
     * caller leaves out its own and those of runs behind it). A hold binds
     * the run when the run, started now, would still run at its start (end
     * is now + the run's time limit; 0: no limit, every hold binds). A run
     * funded now starts only if, at the earliest start of the holds that
     * bind it, Cover funds it with those holds and the leases still running
     * then; otherwise the answer is a refusal (no estimate) that says so. */
    const jt_hold_t *holds;
    size_t nholds;
    int64_t end;
} jt_sched_request_t;

#define JT_SCHED_NODES_ANY 0xfffffffeu  /* Slurm's NO_VAL and above */

typedef struct jt_answer {
    jt_answer_kind_t kind;
    /* REFUSE and ESTIMATE: the line users see ("jobtree: ..."), empty for
     * BIND and DEFER. */
    char reason[JT_ERRMSG_MAX + 64];
    jt_plan_t plan;             /* the plan behind the answer */
    jt_node_set_t bind;         /* BIND: the nodes to run on */
    bool waits;                 /* REFUSE in NOW: time can cure it (room or
                                 * funding), so a reservation line backfill
                                 * set may stand */
    bool record;                /* BIND in NOW: once the per-node check
                                 * passes, the plan's funding is the run's */
    jt_node_set_t *cands;       /* ESTIMATE */
    size_t ncands;
    uint32_t cand_nodes;        /* ESTIMATE: nodes the run needs */
    uint32_t cand_group_nodes;  /* ESTIMATE, a set over several domains:
                                 * the nodes of each group (cand_nodes is
                                 * a multiple), each group in one domain;
                                 * 0 when groups are not whole nodes */
    int64_t not_before;         /* ESTIMATE: funding frees then (0: funded
                                 * now, only room is missing) */
    int64_t cand_gpus;          /* ESTIMATE: GPUs it is to start with */
    const jt_envelope_t *payer; /* ESTIMATE: who is to pay (the first cover
                                 * segment's envelope, now or, for a
                                 * funding wait, at not_before); points
                                 * into the request's budgets; may be NULL */
} jt_answer_t;

/* Answer req. Returns 0 with out filled (any kind; jt_answer_free it), or
 * -1 with err set and out empty (an internal error, not the run's). Work is
 * one plan plus a pass over the snapshot's nodes; an estimate for a run
 * waiting for funding adds one plan per step of a binary search over the
 * lease ends within each window interval (windows x log leases). */
int jt_sched_answer (const jt_sched_request_t *req, jt_answer_t *out,
                     jt_error_t *err);
void jt_answer_free (jt_answer_t *a);

/* The calculus's decision for req->run at req->now, offline (jobtree plan,
 * the simulator), on req's snapshot with the eligible nodes as the cluster
 * (req->tense is ignored; holds count as in NOW):
 *
 *   BindNow    NOW binds it (out is that plan, earliest_start = now).
 *   Reject     it can never start: EVER refuses it (no envelope could ever
 *              fund it; a group fits no domain even with every node idle),
 *              or no amount of waiting would fund it: no lease end or
 *              window opening does, not even once every lease of unknown
 *              end has ended (the GPU-hours are spent, the windows closed).
 *   PlanLater  otherwise, with earliest_start: the first instant t, among
 *              now, the snapshot's lease ends and the window boundaries of
 *              the run's flavor, at which jt_plan_run binds it on the nodes
 *              free by t (a node frees at the last end of the leases on it;
 *              a node held by something of unknown end, or down, never
 *              does) with the usage still running at t. Found as
 *              jt_sched_answer's funding estimate is (binary search within
 *              each window interval). When only nodes of unknown end stand
 *              in the way, earliest_start is 0 (not known). The reason and
 *              detail say why it cannot start now; the cover segments are
 *              the payers at earliest_start. A running lease always ends,
 *              so a run funded only once leases of unknown end have ended
 *              is PlanLater too, earliest_start 0, its detail adding
 *              "start unknown: funded when running leases end; their ends
 *              are not known"; one funded at a known instant T on nodes of
 *              unknown free time adds "start unknown: funded from T; nodes
 *              it needs have no known free time".
 *
 * Returns 0 with out filled (jt_plan_free it), -1 with err set. */
int jt_sched_decide (const jt_sched_request_t *req, jt_plan_t *out,
                     jt_error_t *err);

/* The estimate to take: starts[i] is the start the per-node check gave
 * candidate set i (< 0: it refused the set). The earliest wins, ties by
 * order, and never before not_before (*start). Returns its index, or
 * a->ncands when every set was refused. */
size_t jt_answer_pick (const jt_answer_t *a, const int64_t *starts, int64_t *start);

/* Which candidate sets of an ESTIMATE to ask the per-node check about,
 * best first (schedule_rank.c): free_at[k] is when snapshot node k (of
 * nnodes) is free for a new run (its jobs' last end; now or earlier: free;
 * INT64_MAX: never, e.g. down or held by a job without a time limit). A
 * set's time is when its cand_nodes-th node frees, never before now or
 * a->not_before. order[] (a->ncands entries) receives the sets that ever
 * free, earliest first, ties by index (jt_answer_pick's order), and
 * when[] (may be NULL) their times. Returns how many; 0 also on ENOMEM.
 * Work: the nodes of the sets (a selection, not a sort, per set; never
 * worse than n log n), no plan. */
size_t jt_answer_rank (const jt_answer_t *a, const int64_t *free_at,
                       size_t nnodes, int64_t now, int64_t *when, size_t *order);

/* The estimate free times give on their own (schedule_rank.c), for a run
 * that holds its nodes alone (Slurm: --exclusive, or a partition with
 * OverSubscribe=EXCLUSIVE): a node of such a run is free for it exactly
 * when the last job on it ends, so the per-node check's replay of the
 * running jobs' ends (cons_tres's will_run: a copy of the per-node state
 * and a pass over every running job) would only find the same instant, or
 * a later one (it groups ends into time windows). cand is the set
 * jt_answer_rank ranks first (the caller ranks once, and asks the
 * per-node check in that order when this does not answer); free_at[k] is
 * snapshot s's node k's. nodes[] (a->cand_nodes entries, the caller's)
 * receives its cand_nodes nodes that free first (ties by snapshot index,
 * ascending), *start when the last of them frees (never before
 * a->not_before). A set over several domains (a run whose groups may
 * spread) is taken whole groups at a time, each group's
 * a->cand_group_nodes nodes in one domain: per domain, its nodes freeing
 * first, then the next; the groups that free first, ties by domain order;
 * nodes[] group after group, each in (time, index) order; *start when the
 * last group frees. Held on the nodes freeing first wherever they are, it
 * would keep whole-domain groups out of every domain it touches. true when
 * answered; false (nodes[] and *start untouched) when the run shares its
 * nodes (alone false), the answer is no ESTIMATE, a set over several
 * domains has no group size (cand_group_nodes 0), too few of its nodes
 * (or groups) ever free, its nodes are free by now (what keeps the run
 * from binding is then not in the free times: the per-node check is
 * asked), or on ENOMEM. The caller still asks whether the nodes can hold
 * the run at all (cores, memory: cons_tres's TEST_ONLY, no usage). Work:
 * the set's nodes, and the domains for a set over several. */
bool jt_answer_from_free (const jt_answer_t *a, size_t cand,
                          const jt_snapshot_t *s, const int64_t *free_at,
                          int64_t now, bool alone, size_t *nodes, int64_t *start);

/* In NOW, whether a REFUSE leaves the job's current reason line standing
 * (current may be NULL): a wait (room or funding) keeps the reservation
 * line backfill announced, which it refreshes every pass; anything else
 * says why it is refused. */
bool jt_answer_keeps_line (const jt_answer_t *a, const char *current);

/* A reason line's short form, for squeue (about 100 characters at most):
 * the one blocker and, for a reservation line, where and from when, e.g.
 * "jobtree: envelope rai-east-h100: 32 of 32 GPUs active, run needs 16;
 * reserved west/A from 2026-03-01T14:00Z". The blocker is the first
 * clause of the explanation (up to its first "; " outside parentheses, or
 * an aside in parentheses that ends it): Cover and Pack word the bound
 * that stops the run first,
 * with its numbers, and the payers tried after it. The whole line stays
 * the explanation (the select plugin keeps it in the job's SystemComment:
 * `jobtree explain`). line may carry the "jobtree: " tag or not; the brief
 * always does. buf gets "" for an empty line. */
void jt_reason_brief (const char *line, char *buf, size_t len);

/* The line users see once an estimate is taken: candidate set `cand`
 * starts at `start` (never before a->not_before): "jobtree: reserved 4
 * nodes in west/A from 2026-03-01T14:00:00Z (why it waits)". When the
 * start is its room activation's (jt_told_start; `estimate` > 0: when it
 * would start without it), the why ends "; by its activation at MaxWait,
 * the runs there giving way (else from T)". */
void jt_answer_reserved (const jt_answer_t *a, const jt_snapshot_t *s,
                         size_t cand, int64_t start, int64_t estimate,
                         char *buf, size_t len);

/* ---- a requeued run's restart, reserved at the requeue ----
 *
 * A run with --checkpoint that is requeued while it runs (a group out of
 * spares: jobtree/spares.h; grown at a checkpoint: jobtree/elastic.h)
 * restarts no earlier than now + delay (Slurm holds a requeued batch job
 * for cred_expire + 1 s). Its restart is planned at the requeue and held
 * as a reservation (seed 000 section 6, "abort-and-requeue from the last
 * checkpoint, optionally create a reservation to restart"):
 *
 *   req->snap is viewed without the run's own leases (named `self` in
 *   them: its nodes are free, its GPUs unpaid); only req->eligible nodes
 *   count (the caller leaves out the failed nodes; a grow passes the run's
 *   nodes and its new groups', jt_elastic_slice). The start is the first
 *   instant t >= now + delay, among that instant, the later lease ends and
 *   the window boundaries of the run's flavor, at which jt_plan_run binds
 *   the run on the nodes free by t (free_at[k]: when node k frees, the
 *   caller's, e.g. every running job's end by its time limit; NULL: from
 *   the snapshot's leases, as jt_sched_decide; a down node, or one held
 *   without a known end, never frees), with the usage still running at t.
 *   The plan at t is the reservation: its slice (groups -> domains ->
 *   nodes, spares as the run asked), its payer (the first cover segment's
 *   envelope) and its start. req->holds are not counted.
 *
 * Not reserved (detail says why): a run without --checkpoint (its restart
 * is any waiting run's), or no such instant (nodes of unknown end). */
typedef struct jt_restart {
    bool reserved;
    int64_t start;              /* the earliest start */
    jt_plan_t plan;             /* BindNow at start */
    jt_node_set_t slice;        /* the nodes held: groups', then spares */
    const jt_envelope_t *payer; /* points into the request's budgets */
    char line[JT_ERRMSG_MAX + 64];      /* reserved: the reason line users
                                         * see while it waits ("jobtree:
                                         * reserved 3 nodes in west/B from
                                         * T for its restart (paid by E)") */
    char detail[256];           /* not reserved: why */
} jt_restart_t;

/* Plan the restart (above). Returns 0 with out filled (jt_restart_free
 * it), -1 with err (invalid request, delay outside 0..2^30 s, ENOMEM).
 * Work: one plan per step of jt_sched_decide's search. */
int jt_sched_restart (const jt_sched_request_t *req, const char *self,
                      int64_t delay, const int64_t *free_at,
                      jt_restart_t *out, jt_error_t *err);
void jt_restart_free (jt_restart_t *r);

/* Where a requeued run whose restart is held is planned, once its answer
 * on the slice alone (the slice's nodes Slurm offers now) is `on_slice`
 * (the rule of docs/select-plugin.md, "A restart's slice"):
 *
 *   JT_RESTART_SLICE  bind or estimate on the slice (on_slice BIND or
 *                     ESTIMATE): the answer on the slice is the answer;
 *   JT_RESTART_WAIT   refused on the slice but the slice still holds: every
 *                     node of it (names[0..n)) in the snapshot and up, and
 *                     now before start + JT_RESTART_GRACE. The run waits for
 *                     its slice (nodes still completing, holders past their
 *                     ends: nobody else may take them, jt_sched_nominated)
 *                     and binds nowhere else; its reason is the restart's
 *                     line. It never activates (jt_resv_clock_t.restart);
 *   JT_RESTART_LOST   the slice is lost (a node down, drained or gone, or
 *                     the grace past: a slice the run can never have, e.g.
 *                     off its Slurm features, holds nothing for long): the
 *                     hold ends and the run is planned on all its nodes as
 *                     any waiting run.
 *
 * Pure; O(n) name lookups. */
#define JT_RESTART_GRACE 300            /* seconds past the slice's start */
typedef enum jt_restart_where {
    JT_RESTART_SLICE = 0,
    JT_RESTART_WAIT,
    JT_RESTART_LOST,
} jt_restart_where_t;

jt_restart_where_t jt_restart_where (const jt_snapshot_t *s, const char *const *names,
                                     size_t n, int64_t start, int64_t now,
                                     jt_answer_kind_t on_slice);
const char *jt_restart_where_str (jt_restart_where_t w);  /* "slice", "wait", "lost" */

/* Whether a job must keep off the nodes of a reservation held for run
 * `holder` from `start` (a restart's slice, nominated for it): a job of
 * another run (self, NULL for a job that is no run) may start there only
 * if it ends by start (end: now + its time limit; 0, unknown: never). The
 * holder's own job may always. */
bool jt_sched_nominated (const char *holder, int64_t start, const char *self,
                         int64_t end);

/* Compact canonical dump for tests (malloc'd; NULL on ENOMEM):
 *   "bind[a01 a02] record" | "refuse: jobtree: ..." | "defer"
 *   | "estimate 2 nodes {a01 a02 a03} {b01 b02}: jobtree: ..."
 *   | "estimate 2 nodes from 2026-03-01T13:00:00Z {a01 a02}: jobtree: ..." */
char *jt_answer_dump (const jt_answer_t *a, const jt_snapshot_t *s);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_SCHEDULE_H */
