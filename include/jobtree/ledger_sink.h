/*
 * jobtree/ledger_sink.h - where a scheduler's lease events go: one object
 * that holds the ledger client (jobtree/ledger_client.h) and the fold of
 * the ledger as this process knows it (jobtree/ledger.h), and sequences the
 * two. The select plugin keeps one; it only reads Slurm's jobs into facts
 * (jt_job_facts_t) and Slurm's configuration into jt_ledger_sink_conf_t.
 *
 * Emitting an event submits it to the client and applies it to the fold,
 * in that order. Which events a job's start, resize or end gives, and what
 * reconciliation after a restart closes or starts, is decided by
 * jobtree/ledger_lease.h alone; the sink asks it, against its fold's open
 * leases, and emits the answer. Its fold is the ledger in LedgerDir as read
 * once at reconciliation plus every event emitted since (event ids
 * forgotten: it holds open leases and envelopes only); Cover adds its
 * closed GPU-hours per envelope to live usage.
 *
 * The ledger is off while no socket is configured (or the client could not
 * start): nothing is emitted, and it says so once. The fold is kept across
 * off and on, so closed GPU-hours stay counted.
 *
 * Never blocks on I/O after configure: the client only queues, and a full
 * queue sends the event to the client's spool (overflow_to_spool), the one
 * durable path. Configure (which starts or stops the client), reconcile
 * (which reads LedgerDir) and destroy (which moves queued events to the
 * spool) do I/O.
 *
 * Messages go to the caller's log callback, without a prefix (the host adds
 * its own). Not thread-safe: the caller serializes every call on one sink
 * (the select plugin holds one mutex around each).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_LEDGER_SINK_H
#define JOBTREE_LEDGER_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "activate.h"
#include "budget.h"
#include "cover.h"
#include "error.h"
#include "ledger.h"
#include "ledger_lease.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jt_ledger_sink_level {
    JT_LEDGER_SINK_ERROR = 0,
    JT_LEDGER_SINK_INFO,
    JT_LEDGER_SINK_DEBUG,
} jt_ledger_sink_level_t;

/* One line to log (no prefix, no newline). */
typedef void (*jt_ledger_sink_log_f) (jt_ledger_sink_level_t level, const char *msg,
                                      void *arg);

/* What the sink needs of the configuration (strings are copied). */
typedef struct jt_ledger_sink_conf {
    const char *cluster;        /* ClusterName: run ids, the BudgetLoaded id */
    const char *socket;         /* jobtree-ledgerd's socket; NULL: ledger off */
    const char *spool_dir;      /* the spool's directory (created 0700) */
    const char *spool_name;     /* the client's spool file in spool_dir */
    const char *ledger_dir;     /* LedgerDir, read by reconcile; NULL: none */
} jt_ledger_sink_conf_t;

typedef struct jt_ledger_sink jt_ledger_sink_t;

/* An off sink (log may be NULL). NULL on ENOMEM. */
jt_ledger_sink_t *jt_ledger_sink_create (jt_ledger_sink_log_f log, void *arg);

/* Stop the client (its counts are logged, queued events go to the spool)
 * and free everything. Accepts NULL. */
void jt_ledger_sink_destroy (jt_ledger_sink_t *s);

/* Apply a configuration: no socket turns the ledger off (logged once per
 * sink); a socket or spool that differs from the running client's restarts
 * it; the same ones keep it. 0 when the ledger is on or off as asked, -1
 * when it could not start (logged; it stays off until the next call). */
int jt_ledger_sink_configure (jt_ledger_sink_t *s, const jt_ledger_sink_conf_t *conf);

/* True iff events are emitted (false for NULL). */
bool jt_ledger_sink_on (const jt_ledger_sink_t *s);

/* The events of a job that started, grew or stayed (jt_lease_sync with
 * Shrink), lost a node (jt_lease_resized; failed: its name if it failed,
 * else NULL) or ended (jt_lease_fini), against the fold's open leases of
 * its run, at now. Each returns the number of events emitted (0 when off),
 * or -1 with err when they could not be derived; what was derived before
 * the failure is still emitted. */
int jt_ledger_sink_job_sync (jt_ledger_sink_t *s, const jt_job_facts_t *job,
                             int64_t now, jt_error_t *err);
int jt_ledger_sink_job_resized (jt_ledger_sink_t *s, const jt_job_facts_t *job,
                                const char *failed, int64_t now, jt_error_t *err);
int jt_ledger_sink_job_ended (jt_ledger_sink_t *s, const jt_job_facts_t *job,
                              int64_t now, jt_error_t *err);

/* Reservations (jobtree/ledger_lease.h). A job that starts (job_sync)
 * activates its open reservation before its leases start; one that ends
 * (job_ended) releases it after its leases end if it never started. */

/* True iff the run of job_id (this cluster's) holds an open reservation:
 * the host gathers reservation facts only when it does not. O(1). */
bool jt_ledger_sink_reserving (const jt_ledger_sink_t *s, uint32_t job_id);

/* A waiting run was given an estimate (jt_resv_reserved). The number of
 * events emitted (0 when off or already reserved), or -1 with err. */
int jt_ledger_sink_job_reserved (jt_ledger_sink_t *s, const jt_job_facts_t *job,
                                 const jt_resv_facts_t *r, int64_t now, jt_error_t *err);

/* The run of job_id was estimated to start at start (backfill re-plans
 * every pass). When it holds an open reservation (jt_ledger_sink_reserving)
 * its funding hold counts from there: jt_ledger_sink_hold_start. Kept in
 * memory only, for at most 4096 runs (the oldest forgotten first); the
 * ledger keeps the reservation's first estimate (ReservationCreate's
 * start), and a new reservation of the run starts from its own. True iff
 * the run holds an open reservation (the estimate is then its own; the
 * host emits no ReservationCreate), with one look-up. O(1). */
bool jt_ledger_sink_job_estimate (jt_ledger_sink_t *s, uint32_t job_id, int64_t start);

/* Where the funding hold of open reservation r starts (jt_hold_t.start): its
 * run's latest estimate when one was given since the reservation was
 * created, else its earliest start. A hold that kept its first estimate
 * would keep runs of the envelope off nodes nobody wants any more while its
 * run's start moves (docs/select-plugin.md, "Funding holds"). O(1). */
int64_t jt_ledger_sink_hold_start (const jt_ledger_sink_t *s,
                                   const jt_fold_reservation_t *r);

/* The host's facts of a job: 0 with *x filled, -1 when it does not know the
 * job. Called again with job_id 0 and the same x when the sink is done
 * with them (to free what the host allocated). */
typedef int (*jt_ledger_sink_job_f) (uint32_t job_id, jt_job_facts_t *x, void *arg);

/* Settle every open reservation of this cluster against its job as the
 * host knows it now (jt_resv_settle): one lookup per open reservation (as
 * many as runs waiting with an estimate). Pending runs that were cancelled
 * are released here, since Slurm tells the select plugin nothing of them.
 * Returns the number of events emitted (0 when off). */
int jt_ledger_sink_settle_resvs (jt_ledger_sink_t *s, jt_ledger_sink_job_f job,
                                 void *arg, int64_t now);

/* A BudgetLoaded event for a (re)loaded budget set (jt_lease_budget_event).
 * The number of events emitted: 1, or 0 when off, for NULL b, or when it
 * could not be made (logged). */
int jt_ledger_sink_budgets (jt_ledger_sink_t *s, const jt_budgets_t *b, int64_t now);

/* A reservation activated on a slice that was not free and jt_activate
 * decided who gives way (req as it was asked, a its decision; pool_names[i]
 * names pool i, a domain "west/A" or "envelope:NAME", distinct for the
 * pools in use): one Activation event (jt_event_activation: the
 * alternative taken, every holder, the cuts) with id
 * "<reservation>:activation:<now>", at the activation instant req->time,
 * which must be now. The fold then marks the leases cut, so their Ends
 * carry RandomPreempt and the seed (or Shrink, DropSpare) when the host
 * later ends, requeues or shrinks the runs, across restarts too. Returns
 * the number of events emitted: 1, or 0 when off; -1 with err when the
 * event could not be made (nothing emitted). Never blocks. */
int jt_ledger_sink_activation (jt_ledger_sink_t *s, const char *reservation,
                               const char *run, const jt_activation_req_t *req,
                               const char *const *pool_names, size_t npools,
                               const jt_activation_t *a, int64_t now, jt_error_t *err);

/* True while the ledger is on and reconcile has not run yet: the host
 * gathers the facts of its jobs only then. */
bool jt_ledger_sink_reconcile_due (const jt_ledger_sink_t *s);

/* Once per sink, while on, after the host restored its jobs: read
 * LedgerDir (if configured) into a new fold that replaces the sink's, then
 * emit what jt_lease_reconcile decides for jobs (njobs facts) at now.
 * Failures are logged and the rest goes on. Returns the number of events
 * emitted (0 when not due). */
int jt_ledger_sink_reconcile (jt_ledger_sink_t *s, const jt_job_facts_t *jobs,
                              size_t njobs, int64_t now);

/* Add the GPU-hours of the fold's closed leases to u, per envelope of b:
 * the owned part charged to the envelope's owner, the Borrowed part as lent
 * (Cover's integral bound; open leases come from the snapshot). Also while
 * off. Accepts NULL s or b. */
void jt_ledger_sink_add_closed (const jt_ledger_sink_t *s, jt_usage_t *u,
                                const jt_budgets_t *b);

/* The sink's fold (NULL before the ledger was first on); valid until the
 * next call on s. */
const jt_ledger_fold_t *jt_ledger_sink_fold (const jt_ledger_sink_t *s);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_LEDGER_SINK_H */
