/*
 * select_jobtree.h - internals of select/cons_tres_jobtree, the select
 * plugin that wraps select/cons_tres and places Jobtree runs with libjobtree.
 *
 * select_jobtree.c  plugin symbols, the cons_tres context, forwarding
 * answer.c  job_test for a Jobtree run (jobtree/schedule.h)
 * topology.c       a jt_snapshot_t from slurmctld's node/switch tables
 * cache.c          per-cycle state: snapshot, budgets, live usage, config
 * record.c         the admin_comment record of a job (libjobtree's record.h)
 *
 * Everything here runs inside slurmctld with the job write lock and node
 * read/write locks held by the caller: it never blocks, never exits, and a
 * bad configuration only refuses Jobtree runs (other jobs are untouched).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_SELECT_JOBTREE_H
#define JT_SELECT_JOBTREE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "compat.h"               /* what differs between Slurm releases */

#include <jobtree/jobtree.h>
#include <jobtree/conf.h>
#include <jobtree/activate.h>
#include <jobtree/spares.h>
#include <jobtree/elastic.h>

/* Select modes (src/common/select.h SELECT_MODE_*); flags are masked off. */
#define JT_SEL_MODE(m) ((m) & SELECT_MODE_BASE)

/* ---- plugins/common/select_ops_<release>.c: the wrapped cons_tres ---- */

/* The wrapped cons_tres: every select_p_* of ours calls one of these. */
extern slurm_select_ops_t jtsel_ops;
/* Load cons_tres once (lazily: init() may run before slurmctld has read
 * its configuration). Returns 0 or -1 (logged). */
int jtsel_ops_ready (void);
/* Unload it (fini). Returns a Slurm return code. */
int jtsel_ops_unload (void);
/* After cons_tres's node_init: what this release does there (26.05 has no
 * job_init, so the restored jobs are reconciled here). */
void jtsel_ops_node_init_done (void);

/* ---- select_jobtree.c ---- */

/* slurmctld has restored its jobs: reconcile them with the ledger. */
void jtsel_jobs_restored (List jobs);

#define READY_OR(ret)                                                       \
    do {                                                                    \
        if (jtsel_ops_ready () < 0)                                         \
            return (ret);                                                   \
    } while (0)

/* select_p_NAME (PARAMS) returning jtsel_ops.MEMBER (ARGS), or FAIL when
 * cons_tres cannot be loaded. Slurm finds them by name (syms[]). */
#define FORWARD(type, fail, name, member, params, args) \
    extern type select_p_##name params                  \
    {                                                   \
        READY_OR (fail);                                \
        return jtsel_ops.member args;                   \
    }

/* ---- record.c: the run record in admin_comment (jobtree/record.h) ---- */

/* True iff admin_comment carries a Jobtree record. */
bool jtsel_is_jobtree (const job_record_t *job_ptr);

/* A node of a Jobtree run failed (job_resized with a down node): ask
 * jt_spares_on_fail with the nodes it still holds. SWAP: the record in its
 * admin_comment now names the spare in the failed node's place. REQUEUE:
 * the caller ends its leases (Fail) and requeues it. Never blocks. */
jt_spares_verdict_t jtsel_record_node_failed (job_record_t *job_ptr,
                                              const node_record_t *node_ptr);


/* Rewrite job_ptr->admin_comment with `plan`'s funding as its "bound"
 * member (keeping everything job_submit wrote). Returns 0 or -1. */
int jtsel_record_bind (job_record_t *job_ptr, const jt_plan_t *plan,
                        const jt_snapshot_t *s, int64_t now, jt_error_t *err);

/* ---- topology.c ---- */

/* Per-slurm-node facts kept with the snapshot. */
typedef struct jtsel_topo {
    jt_snapshot_t *snap;        /* finalized, live usage and states */
    int nslurm;                 /* node_record_count when built */
    ssize_t *slurm2snap;        /* slurm node index -> snapshot index, -1 */
    int *snap2slurm;            /* snapshot index -> slurm node index */
    size_t nlabelled;           /* jt_nodemap_labelled nodes */
    char **feat;                /* per slurm node: the features read */
    uint64_t *gavail;           /* per slurm node: gpu GRES count read
                                 * (UINT64_MAX: none) */
    unsigned *flags;            /* per slurm node: state flags read */
    time_t checked;             /* every node's features and GPUs last read */
    int64_t *free_at;           /* per snapshot node: jtsel_topo_free_at */
    uint8_t *holders;           /* per snapshot node, with free_at: running
                                 * jobs on it (2: two or more), a job that
                                 * is no Jobtree run counting 2 */
    bool free_ok;               /* free_at and holders are up to date */
} jtsel_topo_t;

/* Build the topology and live usage of slurmctld's nodes; running Jobtree
 * jobs' bound funding become leases. Returns NULL with err set. */
jtsel_topo_t *jtsel_topo_build (const jt_config_t *conf, jt_error_t *err);
void jtsel_topo_destroy (jtsel_topo_t *t);

/* Bring t up to date instead of rebuilding it: every node's state flags
 * (one field per node: no lock, no string), and, only for the nodes in
 * `touched` (the nodes of jobs that started, ended or changed: the only
 * way a node's GPUs allocated change) or whose flags changed, the GPUs
 * allocated and the node's features and GPU count (a change of those
 * asks for a rebuild); every node's features and GPU count when `all` or
 * once per JTSEL_TOPO_CHECK_S seconds (a feature update by scontrol
 * reaches no select hook). touched may be NULL (then all). The leases of
 * jobs[0..njobs) derived again (a job that no longer runs has none),
 * every lease's end from its job. Returns 0, 1 when the node table or a
 * node's features or GPU count changed (t is then stale: rebuild), or -1
 * with err set. */
#define JTSEL_TOPO_CHECK_S 30
int jtsel_topo_refresh (jtsel_topo_t *t, bitstr_t *touched, bool all,
                        const uint32_t *jobs, size_t njobs, jt_error_t *err);

/* Per snapshot node, when it is free for a new run (jt_answer_rank): 0
 * when up and no running job holds it, the last end of the running jobs
 * on it, INT64_MAX when down or drained or held by a suspended job or one
 * without an end. Computed once per update of t (O(running jobs + their
 * nodes)), then reused. */
const int64_t *jtsel_topo_free_at (jtsel_topo_t *t);
/* Whether an activation could clear set: every node up and free, or held
 * by one Jobtree run alone (preempt/jobtree offers every running Jobtree
 * run; a node shared, or held by a plain job, frees nothing). Work: the
 * set's nodes (after jtsel_topo_free_at's pass, once per change). */
bool jtsel_topo_clearable (jtsel_topo_t *t, const jt_node_set_t *set);

/* ---- cache.c ---- */

/* The state shared by job_test calls of one scheduling cycle. Valid until
 * the next jtsel_cache_get; do not keep pointers across calls. */
typedef struct jtsel_cache {
    jtsel_topo_t *topo;
    const jt_budgets_t *budgets;        /* NULL: no (good) budgets loaded */
    const jt_config_t *conf;            /* never NULL (defaults if unread) */
    char budget_error[JT_ERRMSG_MAX];   /* why budgets is NULL */
    jt_plan_opts_t plan_opts;           /* pack policy */
} jtsel_cache_t;

jtsel_cache_t *jtsel_cache_get (jt_error_t *err);

/* The node table or the configuration changed: the next jtsel_cache_get
 * rebuilds. */
void jtsel_cache_invalidate (void);

/* A job started, ended, was resized, suspended or resumed: the next
 * jtsel_cache_get patches its leases and the nodes' state (no rebuild). */
void jtsel_cache_job_changed (const job_record_t *job_ptr);

/* A node's state or configuration may have changed (slurmctld's
 * update_node_config): the next jtsel_cache_get refreshes the nodes. */
void jtsel_cache_node_changed (void);
/* A node left a job (job_resized): its GPUs allocated changed. */
void jtsel_cache_node_touched (const node_record_t *node_ptr);

/* (Re)read jobtree.conf and the budget directory; keep the last good
 * budgets when the new ones are bad (logged). */
void jtsel_cache_reconfigure (void);
void jtsel_cache_fini (void);

/* ---- answer.c ---- */

int jtsel_job_test (job_record_t *job_ptr, bitstr_t *bitmap,
                     uint32_t min_nodes, uint32_t max_nodes,
                     uint32_t req_nodes, uint16_t mode,
                     List preemptee_candidates, List *preemptee_job_list,
                     JTC_JOB_TEST_EXC);

/* The job's reason line ("jobtree: ..."), kept by select_nodes(). */
void jtsel_set_reason (job_record_t *job_ptr, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* A node set of an answer as a bitmap of nbits slurm node indexes. */
bitstr_t *jtsel_set_bitmap (const jtsel_topo_t *t, const jt_node_set_t *set,
                            int64_t nbits);

/* ---- activation.c ---- */

/* RUN_NOW for a run refused now (now_req, a wait) whose reservation is due
 * (created + MaxWait): the lottery's victims in *preemptee_job_list and
 * the nodes it will run on in bitmap (SLURM_SUCCESS: slurmctld preempts
 * them and starts the run once they are gone), or SLURM_ERROR with
 * nothing changed. */
int jtsel_activate (job_record_t *job_ptr, bitstr_t *bitmap,
                    const jt_sched_request_t *now_req, const jtsel_cache_t *c,
                    uint16_t mode, List preemptee_candidates,
                    List *preemptee_job_list, JTC_JOB_TEST_EXC);

/* WILL_RUN for a run that waits: when its open reservation may be due an
 * activation now (jt_activation_may_be_due), ask slurmctld for a main
 * scheduling pass (schedule(), a queued request), whose RUN_NOW
 * activates; once per reservation and kind (reclaim from its creation,
 * room from created + MaxWait). O(1): one reservation look-up. */
void jtsel_activation_nudge (const job_record_t *job_ptr, const jtsel_cache_t *c);

/* Commit point of a Jobtree run (select_p_select_nodeinfo_set): write the
 * funding of its last RUN_NOW plan into its record. */
void jtsel_job_started (job_record_t *job_ptr);

/* reshape.c: changes to running jobs sent after the job lock is released.
 * Queue a shrink of job_id to the nodes `keep` (NULL: requeue it); -1 when
 * the ring of shrinks and signals is full (jtsel_reshape_room says how many
 * more fit). A requeue is never refused for room (jobtree/reshapeq.h),
 * only on ENOMEM. */
int jtsel_reshape_queue (uint32_t job_id, const char *keep);
/* Queue a signal to every step of the job, batch script included (the
 * layout changed: a spare was swapped in). 0, or -1 when the queue is full. */
int jtsel_reshape_signal (uint32_t job_id, int sig);
/* Queue a requeue of a run with spares whose group has none left; when
 * Slurm refuses it (--no-requeue, JobRequeue=0) the job is cancelled
 * instead. 0, or -1 only on ENOMEM (never for room: never half a gang). */
int jtsel_reshape_requeue_or_cancel (uint32_t job_id);
/* The signal a run gets when a spare was swapped in: SIGWINCH ("the
 * window changed"), ignored by default, so a job that does not watch for
 * it is not killed (docs/user-guide.md, "Spares"). */
#define JTSEL_LAYOUT_SIGNAL SIGWINCH
size_t jtsel_reshape_room (void);
void jtsel_reshape_fini (void);

/* ---- elastic.c: malleable runs grow at their checkpoints ---- */

/* How often the grow thread looks (seconds); a run is requeued to grow at
 * most 2 x this after one of its checkpoints (jobtree/elastic.h). */
#define JTSEL_GROW_POLL_S 5
void jtsel_elastic_start (void);    /* idempotent */
void jtsel_elastic_fini (void);

/* ---- restart.c: a requeued run's restart, held from the requeue ---- */

struct jt_grow;
/* A --checkpoint run is being requeued (a group out of spares: `failed`
 * is the node that failed; a grow: `grow` its decision): plan its restart
 * (jt_sched_restart) on c's snapshot (NULL: jtsel_cache_get) and hold the
 * slice from now on. Logs either way; never blocks. */
void jtsel_restart_plan (job_record_t *job_ptr, const node_record_t *failed,
                         const struct jt_grow *grow, jtsel_cache_t *c);
/* A --checkpoint run the lottery took (an activation requeues it): its
 * restart planned as above, never on `taken` (the snapshot's nodes the
 * activated run is to start on). */
void jtsel_restart_plan_victim (job_record_t *job_ptr, const jt_node_set_t *taken,
                                jtsel_cache_t *c);
/* An activation cleared `set` (nodes of s) for job_ptr: held for it, as a
 * restart's slice is, until it starts there or the nomination lapses. */
void jtsel_restart_nominate (const job_record_t *job_ptr, const jt_node_set_t *set,
                             const jt_snapshot_t *s);
/* job_fini: a requeue records the held restart in the ledger
 * (ReservationCreate) and the job's reason; anything else drops it. */
void jtsel_restart_fini (job_record_t *job_ptr);
/* The run started: its hold ends. */
void jtsel_restart_started (const job_record_t *job_ptr);
/* Another job's job_test (RUN_NOW, WILL_RUN): clear in bitmap the nodes
 * held for restarts it may not use (jt_sched_nominated). */
void jtsel_restart_narrow (job_record_t *job_ptr, bitstr_t *bitmap, uint16_t mode);
/* A requeued run's own slice within bitmap (a new bitmap, with its reason
 * line in line), or NULL when it has none. */
bitstr_t *jtsel_restart_slice (const job_record_t *job_ptr, bitstr_t *bitmap,
                               char *line, size_t len);
/* RUN_NOW/WILL_RUN of a run whose restart is held, refused on its slice
 * (on_slice its answer's kind there): true when it waits for the slice
 * (jt_restart_where: binds nowhere else); a lost slice ends the hold. */
bool jtsel_restart_waits (const job_record_t *job_ptr, const jt_snapshot_t *s,
                          jt_answer_kind_t on_slice);
/* Whether job_id waits on a held restart slice (its reservation never
 * activates: jt_resv_clock_t.restart). */
bool jtsel_restart_held (uint32_t job_id);
void jtsel_restart_fini_all (void);

/* ---- ledger.c ---- */

/* Lease event hook (never blocks): what is "begin", "fini", "resized" (with
 * the node removed) or "expand". */
void jtsel_lease_event (const char *what, job_record_t *job_ptr,
                         node_record_t *node_ptr);

/* Configure the ledger sink (jobtree/ledger_sink.h) from jobtree.conf and
 * slurm.conf (LedgerSocket off: no events). */
void jtsel_ledger_configure (const jt_config_t *conf);

/* A BudgetLoaded event for a (re)loaded budget set. */
void jtsel_ledger_budgets (const jt_budgets_t *b);

/* Once, after slurmctld restored its jobs: the sink reads LedgerDir and
 * reconciles the jobs' facts with it (jt_ledger_sink_reconcile). */
void jtsel_ledger_reconcile (List jobs);

/* A waiting run took an estimate: its reservation (a ReservationCreate
 * unless it holds one) of the nodes set in bitmap among cand's, from start,
 * paid by a->payer; a run that holds one has its funding hold moved to
 * start (jt_ledger_sink_job_estimate). */
void jtsel_ledger_reserved (job_record_t *job_ptr, const jt_answer_t *a,
                            const jtsel_topo_t *t, const jt_node_set_t *cand,
                            bitstr_t *bitmap, int64_t start);

/* A requeued run's restart held from start on nodes[0..nnodes), paid by
 * envelope: its ReservationCreate (unless it holds one). */
void jtsel_ledger_restart (job_record_t *job_ptr, const char *envelope,
                           const char *const *nodes, size_t nnodes, int64_t gpus,
                           int64_t start);

/* Settle the open reservations of runs that are no longer waiting (started,
 * cancelled, gone). At most once per JTSEL_SETTLE_S seconds unless forced.
 * Called on every job end and from every job_test (cache.c): a cancelled
 * pending run reaches no select hook of its own, so its reservation is
 * released at the next of those. Needs the job read lock. */
void jtsel_ledger_settle (bool force);
#define JTSEL_SETTLE_S 10

/* The funding holds of the open reservations of runs waiting ahead of
 * job_ptr (pending, higher priority, then older), in *out (free with
 * jtsel_ledger_holds_free); returns how many. None while the ledger is off.
 * One lookup per open reservation. */
size_t jtsel_ledger_holds (const job_record_t *job_ptr, jt_hold_t **out);
void jtsel_ledger_holds_free (jt_hold_t *h, size_t n);

/* The open reservation of job_ptr's run: 0 with its id in id (len bytes),
 * its creation time and (drawn, may be NULL) when an Activation was drawn
 * for it, -1: never (the ledger's, so a backup controller that took over
 * knows it too); -1 when it has none or the ledger is off. */
int jtsel_ledger_open_resv (const job_record_t *job_ptr, char *id, size_t len,
                            int64_t *created, int64_t *drawn);
/* Whether reservation resv had its room activation (activation.c's recent
 * ones). Callers hold slurmctld's job lock. */
bool jtsel_activation_had (const char *resv);

/* Record an activation (jt_ledger_sink_activation) of reservation resv of
 * run at its instant `at`. */
struct jt_activation_slice;
void jtsel_ledger_activation (const char *resv, const char *run,
                              const struct jt_activation_slice *sl,
                              const jt_activation_t *a, int64_t at);

/* Add the GPU-hours of closed leases per envelope to u (Cover's integral
 * bound; open leases come from the snapshot). */
void jtsel_ledger_add_closed (jt_usage_t *u, const jt_budgets_t *b);

/* Destroy the sink (pending events go to the spool). */
void jtsel_ledger_fini (void);

/* The configuration in force (NULL before the first load). */
const jt_config_t *jtsel_cache_conf (void);

#endif /* JT_SELECT_JOBTREE_H */
