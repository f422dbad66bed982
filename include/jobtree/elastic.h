/*
 * jobtree/elastic.h - when a running malleable run grows, to what size,
 * and into which groups (seed 000 section 6, "Elasticity (INCR)": Grow).
 *
 * How a run grows (docs/select-plugin.md, "Elasticity"): stock Slurm
 * cannot add nodes to a running job's step (22.05 job_mgr.c:12942-12949
 * and 24.11 job_mgr.c:13098-13106 refuse a larger NumNodes; the only way,
 * SchedulerParameters=permit_job_expansion with a second job submitted
 * with --dependency=expand and merged by NumNodes=0, needs a site-wide
 * switch and a second job, and still leaves the running step at its old
 * size), so a run grows by being requeued at a checkpoint and restarting
 * at the larger size. That costs the work since its last checkpoint, so:
 *
 *   - only a run with --checkpoint=C grows (without it a requeue loses
 *     everything it did);
 *   - it is requeued only within `slack` seconds after one of its
 *     checkpoints, start + k*C (k >= 1): the work lost is at most slack;
 *   - it grows only when Cover funds and Pack places at least one more
 *     step of whole groups now, on top of what the run holds (its own
 *     leases are in the usage and its nodes are not free), so the larger
 *     run fits where the run is plus where the new groups go;
 *   - the target is the largest total up to maxTotalGPUs (and the cap the
 *     job's node range allows) in stepGPUs above the current total that
 *     binds; the new groups are the extra groups that plan places.
 *
 * A run shrunk since this incarnation started (current below the total it
 * was bound with: `scontrol update NumNodes`, or a cut for a reservation)
 * keeps that size until it restarts: a shrink asked for stands, and the
 * nodes a cut freed are the reserved run's.
 *
 * A run whose current total is not a whole number of groups (the last
 * group short) does not grow: its groups would change, not be added to.
 * A run with cross-group spread off grows only when every new group is in
 * the domain its groups are in.
 *
 * The decision is pure: the same inputs give the same answer.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_ELASTIC_H
#define JOBTREE_ELASTIC_H

#include <stdbool.h>
#include <stdint.h>

#include "budget.h"
#include "error.h"
#include "plan.h"
#include "record.h"
#include "run.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jt_grow_verdict {
    JT_GROW_NO = 0,             /* it does not grow (detail says why) */
    JT_GROW_WAIT,               /* it would grow, at its next checkpoint
                                 * (`at`): ask again then */
    JT_GROW_NOW,                /* requeue it now; it restarts at `target` */
} jt_grow_verdict_t;

typedef struct jt_grow_in {
    const jt_run_t *run;        /* the run (its malleable bounds, step,
                                 * groupGPUs, spares, checkpoint) */
    int64_t current_gpus;       /* what it runs with now (squeue's size) */
    int64_t bound_gpus;         /* what this incarnation started with (its
                                 * record's bound leases); 0: current */
    int current_domain;         /* the snapshot domain its groups are in,
                                 * when cross-group spread is off; -1 else */
    int64_t cap_gpus;           /* the most its job's node range allows;
                                 * 0: no cap beyond maxTotalGPUs */
    int64_t start;              /* when this incarnation started (its
                                 * checkpoints are start + k * checkpoint) */
    int64_t now;
    int64_t slack;              /* how late after a checkpoint a requeue
                                 * may still be sent (the caller's poll
                                 * period), 0..checkpoint */
    jt_pack_policy_t policy;
    const char *lease_run;      /* the run's leases in the snapshot (their
                                 * run: the job id), or NULL: under fabric
                                 * levels, new groups go into the blocks of
                                 * its groups first (docs/packing.md) */
} jt_grow_in_t;

typedef struct jt_grow {
    jt_grow_verdict_t verdict;
    int64_t target;             /* WAIT/NOW: the total it restarts with */
    int64_t at;                 /* WAIT: its next checkpoint; NOW: now */
    jt_plan_t extra;            /* WAIT/NOW: the plan of the new groups
                                 * (BindNow, extra.total_gpus = target -
                                 * current); empty otherwise */
    char detail[256];           /* one line: why, or what it grows into */
} jt_grow_t;

/* Decide for a running run in snapshot s (which holds the run's own
 * leases and nodes as used) under budgets b. Returns 0 with *out filled
 * (free with jt_grow_free), or -1 with err (invalid input: a current
 * total outside the run's bounds, slack out of range; ENOMEM). */
int jt_elastic_grow (const jt_budgets_t *b, const jt_snapshot_t *s,
                     const jt_grow_in_t *in, jt_grow_t *out, jt_error_t *err);

void jt_grow_free (jt_grow_t *g);

const char *jt_grow_verdict_str (jt_grow_verdict_t v);  /* "no", "wait", "now" */

/* The instant of the run's next checkpoint strictly after now (start +
 * k * checkpoint_s, k >= 1), or 0 when it has none or it overflows. */
int64_t jt_elastic_next_checkpoint (int64_t start, int64_t checkpoint_s,
                                    int64_t now);

/* Whether run r, started at start, may be asked jt_elastic_grow at now:
 * malleable, with a checkpoint, and now within slack after one of its
 * checkpoints. A cheap filter (no plan) so that a caller polling every
 * running run plans only the few at a checkpoint; jt_elastic_grow makes
 * the same timing decision. */
bool jt_elastic_due (const jt_run_t *r, int64_t start, int64_t now, int64_t slack);

/* The nodes a grow's restart is held on (the eligible set of
 * jt_sched_restart, jobtree/schedule.h): the run's own (the nodes of its
 * leases in s, run named self) and the new groups' of g's plan (nodes and
 * spares), so the restart is planned where the grow was, and the nodes the
 * requeue frees and the new groups' are held for it until it restarts.
 * eligible has s->nnodes entries, all set anew. Returns how many are set;
 * 0 when g does not grow (NO). */
size_t jt_elastic_slice (const jt_grow_t *g, const jt_snapshot_t *s,
                         const char *self, bool *eligible);

/* ---- Shrink on request ----
 *
 * A running run asked to hold want_nodes nodes (`scontrol update
 * NumNodes=N`; rec is its record, its bound groups and their spares)
 * shrinks by whole groups, the highest first, never below its malleable
 * minimum (seed 000, "Elasticity": Shrink); a run that is not malleable
 * keeps its size. The group on batch_host (the node that runs the batch
 * script; NULL: none) is kept whatever its index: Slurm cannot take it
 * from a running job. 1 with *keep (malloc'd: the kept groups' nodes and
 * spares, comma-separated, in group order: the NodeList Slurm is to keep)
 * and *kept_gpus; 0 when want_nodes is no shrink (at least the nodes the
 * run holds: Slurm decides that alone); -1 with why set ("jobtree: ...",
 * the counts that would do). Work: one pass over the record's groups. */
int jt_elastic_shrink (const jt_jobrec_t *rec, uint32_t want_nodes,
                       const char *batch_host, char **keep, int64_t *kept_gpus,
                       char *why, size_t len);

/* Whether a NodeList a running run is to keep (`scontrol update
 * NodeList=`; kept: the record's nodes that list names) splits one of its
 * groups (keeps some of its nodes, not all; spares may go alone): -1 with
 * why naming the group and the lists that would do, 0 when every group is
 * kept whole or given up whole. Work: the run's nodes times kept. */
int jt_elastic_split (const jt_jobrec_t *rec, const char *const *kept, size_t nkept,
                      char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_ELASTIC_H */
