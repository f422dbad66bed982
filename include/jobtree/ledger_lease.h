/*
 * jobtree/ledger_lease.h - the lease events of Slurm jobs: lease and event
 * ids, the leases a job holds, what to emit when it starts, resizes or
 * ends, a waiting run's reservation, and reconciliation with the ledger
 * after a slurmctld restart.
 *
 * Pure functions over plain facts of a job (jt_job_facts_t: what the select
 * plugin reads from Slurm's job record) and the open leases of the ledger's
 * fold (jt_ledger_fold_open_list); they return the events to emit, in
 * order. The plugin submits them and applies them to its fold.
 *
 * A lease is derived from the job alone, so every id is deterministic and a
 * resend (after a restart, or from the spool) is idempotent:
 *   run    "<cluster>:<jobid>"
 *   lease  "<run>:<start_time>:g<group>"    (group's nodes)
 *          "<run>:<start_time>:s<group>"    (its spares, role Spare)
 *          with ":w<swaps>" appended once spares were swapped into the
 *          group (jobtree/spares.h: a new lease per swap, starting at the
 *          last swap's time), then ":n<count>" once the lease holds fewer
 *          nodes than bound (after a shrink or a node failure);
 *   events "<lease>:start" and "<lease>:end";
 *          "<run>:<start_time>:nodefail:<node>" (NodeFail);
 *          "<cluster>:budgets:<load time>:<budgetsSha256, first 16 hex>"
 *          (BudgetLoaded);
 *   reservation "<run>:resv:<created>" (epoch seconds of its first
 *          estimate), events "<reservation>:create", ":activate",
 *          ":release".
 * An End carries the reason given by the job (End, Shrink, Fail, JobGone
 * below; Swap for a spare lease whose node a group's new lease now holds)
 * unless the open lease was cut by an Activation (jt_fold_lease_t's
 * cut, kept by the fold across restarts): then, except for Fail, it carries
 * the cut's reason (RandomPreempt with the Activation's seed, Shrink,
 * DropSpare), e.g. when the lottery's victim is requeued.
 * start_time is Slurm's start time of the job (epoch seconds). A lease's
 * nodes are the bound nodes ("bound" in the record) the job still holds;
 * its GPUs are the bound GPUs per node times that count; it starts at the
 * bound time (a shrunk remainder: when it was derived). These ids are a
 * format: ledgers written since the first release must stay valid.
 * Nothing here knows about Slurm.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_LEDGER_LEASE_H
#define JOBTREE_LEDGER_LEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "error.h"
#include "ledger.h"
#include "record.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jt_job_state {
    JT_JOB_RUNNING = 0,         /* running or suspended: holds its nodes */
    JT_JOB_ENDED,               /* ended (completed, cancelled, timed out...) */
    JT_JOB_NODE_FAILED,         /* ended because a node failed */
    JT_JOB_GONE,                /* Slurm no longer knows it */
    JT_JOB_PENDING,             /* waiting to start (or requeued): holds no
                                 * nodes; its open leases end as for ENDED */
} jt_job_state_t;

/* What the plugin knows of a job (nothing is copied or freed). */
typedef struct jt_job_facts {
    const char *cluster;        /* ClusterName */
    uint32_t job_id;
    int64_t start_time;         /* Slurm's start time: part of the lease ids */
    int64_t end_time;           /* <= 0: unknown (now is used) */
    jt_job_state_t state;
    const jt_jobrec_t *rec;     /* its record ("bound" leases); NULL: not a
                                 * Jobtree job (its leases are left alone) */
    const char *account;        /* owner when the record's run names none */
    const char *const *held;    /* the nodes it holds now */
    size_t nheld;
} jt_job_facts_t;

/* Events to emit, in order (each owned by the list). */
typedef struct jt_lease_events {
    jt_event_t **v;
    size_t n, cap;
} jt_lease_events_t;

/* Destroy the events and empty the list (it may be reused). Accepts NULL. */
void jt_lease_events_clear (jt_lease_events_t *e);

/* The run id "<cluster>:<jobid>" into buf. 0, or -1 with errno ERANGE when
 * it does not fit. */
int jt_lease_run_id (const char *cluster, uint32_t job_id, char *buf, size_t len);

/* The job id of a run id of cluster's ("<cluster>:<jobid>"), or -1 when
 * the run is another cluster's or not a run id. */
int64_t jt_lease_run_job (const char *run, const char *cluster);

/* Append the Start events of the leases the job holds now (one per bound
 * group that still holds a node, one for its spares likewise; ids above).
 * Nothing for a job without a record. 0, or -1 with err (ENOMEM). */
int jt_lease_derive (const jt_job_facts_t *job, jt_lease_events_t *out,
                     jt_error_t *err);

/* Bring the job's open leases in line with what it holds at now (it
 * started, grew, or shrank): each open lease of its run (others in open
 * are ignored) that is no longer derived ends at now with reason `gone`
 * (Shrink, or Fail after a node failure), then each derived lease that is
 * not open starts (a shrunk remainder, ":n<count>", at now). Nothing for a
 * job without a record. 0, or -1 with err (ENOMEM). */
int jt_lease_sync (const jt_job_facts_t *job, const jt_fold_lease_t *open,
                   size_t nopen, int64_t now, jt_end_reason_t gone,
                   jt_lease_events_t *out, jt_error_t *err);

/* The job lost a node (failed: its name; NULL for a plain shrink): a
 * NodeFail event for a failed node, then jt_lease_sync with reason Fail
 * (failed) or Shrink. A shrink gives groups up whole (Slurm excises a
 * shrink's nodes one by one: a group with some of its nodes gone ends
 * Shrink and no remainder starts); only a failure leaves a remainder
 * (":n<count>") running. 0, or -1 with err. */
int jt_lease_resized (const jt_job_facts_t *job, const char *failed,
                      const jt_fold_lease_t *open, size_t nopen, int64_t now,
                      jt_lease_events_t *out, jt_error_t *err);

/* The job ended: every open lease of its run ends at its end time (now if
 * unknown; never before the lease's start) with reason Fail when a node
 * failure ended it, End otherwise. 0, or -1 with err. */
int jt_lease_fini (const jt_job_facts_t *job, const jt_fold_lease_t *open,
                   size_t nopen, int64_t now, jt_lease_events_t *out,
                   jt_error_t *err);

/* Reconciliation after a restart. open: the open leases of the ledger's
 * fold; jobs: the jobs Slurm restored (any order, each id once). For each
 * open lease of this cluster's runs (in lease id order): its job missing
 * or gone ends it at now with JobGone; a job that ended while slurmctld was
 * down ends it at the job's end time (End, or Fail for a node failure).
 * Then each running job with a record is synced (jt_lease_sync, Shrink):
 * a lease with no Start gets one, a lease the job no longer holds ends.
 * Leases of other clusters are left alone. 0, or -1 with err. */
int jt_lease_reconcile (const char *cluster, const jt_fold_lease_t *open,
                        size_t nopen, const jt_job_facts_t *jobs, size_t njobs,
                        int64_t now, jt_lease_events_t *out, jt_error_t *err);

/* ---- reservations ----
 *
 * A Jobtree run that must wait and is given a start estimate (backfill's
 * WILL_RUN: jobtree/schedule.h) holds a reservation from that first
 * estimate until it starts (ReservationActivate, before its leases'
 * Starts) or ends without starting (ReservationReleased: cancelled,
 * failed, gone). Slurm re-plans a waiting job on every backfill pass and
 * may move it; the reservation keeps the slice, payer and earliest start
 * of the first estimate, and the leases' Starts say where and when it ran.
 * A run requeued after it started waits again under a new reservation. */

/* What the first estimate of a waiting run holds (nothing is copied). */
typedef struct jt_resv_facts {
    const char *envelope;       /* who is to pay (the plan's first payer) */
    const char *owner;          /* NULL: the record's run owner or account */
    const char *const *nodes;   /* the nodes backfill holds for it */
    size_t nnodes;
    int64_t gpus;               /* GPUs it is to start with */
    int64_t start;              /* the estimated start (never before now) */
} jt_resv_facts_t;

/* The run was given an estimate: a ReservationCreate (id from its run and
 * now) unless it holds one already (open: its open reservation, NULL for
 * none). Nothing either for facts without a payer or GPUs. 0, or -1 with
 * err. */
int jt_resv_reserved (const jt_job_facts_t *job, const jt_resv_facts_t *r,
                      const jt_fold_reservation_t *open, int64_t now,
                      jt_lease_events_t *out, jt_error_t *err);

/* Settle the open reservation of a job (NULL open: nothing) as the job now
 * is: running, ReservationActivate; pending, nothing; ended, failed or gone
 * (job NULL: Slurm does not know it), ReservationReleased. 0, or -1. */
int jt_resv_settle (const jt_job_facts_t *job, const jt_fold_reservation_t *open,
                    int64_t now, jt_lease_events_t *out, jt_error_t *err);

/* Reconciliation after a restart: jt_resv_settle for each of the ledger's
 * open reservations of this cluster's runs against the jobs Slurm restored
 * (any order, each id once). Other clusters' are left alone. 0, or -1. */
int jt_resv_reconcile (const char *cluster, const jt_fold_reservation_t *open,
                       size_t nopen, const jt_job_facts_t *jobs, size_t njobs,
                       int64_t now, jt_lease_events_t *out, jt_error_t *err);

/* The BudgetLoaded event of a finalized budget set loaded at now, with
 * its id (above): each load is recorded, even of budgets loaded before.
 * NULL with err. */
jt_event_t *jt_lease_budget_event (const jt_budgets_t *b, const char *cluster,
                                   int64_t now, jt_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_LEDGER_LEASE_H */
