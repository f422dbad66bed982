/*
 * jobtree/cover.h - Cover: who pays (calculus section 4).
 *
 * Candidate order (DESIGN decision 3), location-first, no numeric priorities:
 *   for each location L (an envelope's selector, canonical text), in order:
 *     the owner's envelopes in L (file order),
 *     siblings' envelopes in L (siblings = other children of the owner's
 *       parent, by owner name; family sharing needs no lending ACL),
 *     the parent's (then grandparent's ...) envelopes in L;
 *   locations are ordered by first appearance among the owner's envelopes,
 *   then among the family's (same order as above);
 *   then, when the run allows borrowing, sponsors: envelopes whose lending
 *   ACL admits the owner -- the run's listed sponsors first in their order,
 *   then other lenders by owner name -- capped by maxBorrowGPUs.
 * Only envelopes of the run's flavor take part.
 *
 * Feasibility of a candidate e at time t:
 *   window    t in [start, end)
 *   pointwise active(e) + dk <= C_e   (and lending.maxConcurrency for sponsors)
 *   integral  used_hours(e) + dk * E[duration] <= B_e   (lending.maxGPUHours)
 *   aggregate every cap containing e stays within maxConcurrency/maxGPUHours
 * The output partitions the demand by whole groups: each group is paid by
 * exactly one envelope (first candidate, in order, with room for it); a
 * soft group (no groupGPUs) by whole nodes, owner first (docs/cover.md).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_COVER_H
#define JOBTREE_COVER_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "error.h"
#include "reason.h"
#include "budget.h"
#include "run.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif


/* Where a candidate envelope comes from, relative to the run's owner. */
typedef enum jt_source {
    JT_SRC_OWNER = 0,
    JT_SRC_SIBLING,
    JT_SRC_PARENT,              /* parent or further ancestor */
    JT_SRC_SPONSOR,             /* borrowed: lease role Borrowed */
} jt_source_t;

const char *jt_source_str (jt_source_t s);

/* Live usage per envelope (indexed by jt_envelope_t.id). Until the ledger
 * fold provides it, it is derived from a snapshot's active leases. */
typedef struct jt_usage {
    size_t nenv;
    int64_t *active;            /* GPUs active now */
    int64_t *lent_active;       /* of which funding other owners' runs
                                   (family or sponsored): what an owner
                                   reclaims (jt_reclaim_need) */
    int64_t *borrowed_active;   /* of which Borrowed (paid as a sponsor):
                                   what lending.maxConcurrency bounds */
    double *used_hours;         /* GPU-hours consumed (and committed) */
    double *lent_hours;         /* of which other owners' */
    double *borrowed_hours;     /* of which Borrowed: lending.maxGPUHours */
} jt_usage_t;

int jt_usage_init (jt_usage_t *u, const jt_budgets_t *b);
void jt_usage_free (jt_usage_t *u);

/* Charge gpus active and hours to envelope e on behalf of run_owner, in
 * role (JT_ROLE_BORROWED: e pays as a sponsor, which its lending caps
 * bound; the same rule jobtree verify checks, ledger_fold_rules.c). */
void jt_usage_add (jt_usage_t *u, const jt_envelope_t *e,
                   const char *run_owner, jt_role_t role, int64_t gpus,
                   double hours);

/* Fill u from the snapshot's leases: active GPUs, and GPU-hours consumed
 * so far (gpus x (now - start)). Leases naming an unknown envelope are
 * reported in err and skipped (return 1); 0 when all matched; -1 on ENOMEM.
 * u is initialized here (do not jt_usage_init it first); jt_usage_free it
 * after any return but -1. */
int jt_usage_from_snapshot (jt_usage_t *u, const jt_budgets_t *b,
                            const jt_snapshot_t *s, int64_t now,
                            jt_error_t *err);

/* The same, as it will be at instant `at` (>= now) if nothing else starts:
 * a lease whose expected end (jt_lease_t.end, when known) is at or before
 * `at` holds no GPUs, and every lease has consumed GPU-hours up to `at` or
 * its end. jt_usage_from_snapshot is this with no horizon (every lease
 * holds, hours up to now). */
int jt_usage_from_snapshot_at (jt_usage_t *u, const jt_budgets_t *b,
                               const jt_snapshot_t *s, int64_t now,
                               int64_t at, jt_error_t *err);

typedef struct jt_cover_cand {
    const jt_envelope_t *env;
    jt_source_t source;
} jt_cover_cand_t;

/* Where envelope e stands for a run of `owner` in Cover's candidate order
 * (the rule candidates_build applies): JT_SRC_OWNER, _SIBLING or _PARENT
 * when e's owner is in owner's family (the owner, its parent's other
 * children, its ancestors), else JT_SRC_SPONSOR when e lends to owner
 * (jt_envelope_lends_to). Flavor, windows, usage and the run's borrowing
 * choices are not considered. Returns 1 with *src, 0 when Cover never
 * lists e for owner (owner has no budget, or e is neither family nor
 * lending to it), -1 on ENOMEM. `jobtree verify` checks lease payers and
 * roles with it. */
int jt_cover_source_of (const jt_budgets_t *b, const char *owner,
                        const jt_envelope_t *e, jt_source_t *src);

/* A cover session: the ordered candidates and tentative charges, so that
 * Plan can interleave funding with placement. */
typedef struct jt_coverer jt_coverer_t;

/* Build the candidate list for run r at time now. Returns NULL only on
 * ENOMEM or invalid arguments; an empty list is not an error (see
 * jt_coverer_why_empty). */
jt_coverer_t *jt_coverer_create (const jt_budgets_t *b, const jt_usage_t *u,
                                 const jt_run_t *r, int64_t now,
                                 jt_error_t *err);
void jt_coverer_destroy (jt_coverer_t *c);

size_t jt_coverer_count (const jt_coverer_t *c);
const jt_cover_cand_t *jt_coverer_cand (const jt_coverer_t *c, size_t i);

/* GPUs candidate i could still fund now, honouring every bound (pointwise,
 * integral for the run's time limit, aggregate caps, lending caps, the
 * run's maxBorrowGPUs) given the charges made so far in this session.
 * If it is 0, *why (if not NULL) says which bound binds. */
int64_t jt_coverer_headroom (const jt_coverer_t *c, size_t i, jt_reason_t *why);

/* The reason of the bound that gives candidate i's headroom now, whether
 * or not the headroom is 0 (JT_INSUFFICIENT_CAPACITY: the envelope's own
 * concurrency; JT_OK: nothing bounds it). Activation reclaims lent GPUs
 * only when that bound is the owner's concurrency (activate.h). */
jt_reason_t jt_coverer_bound (const jt_coverer_t *c, size_t i);

/* The aggregate cap whose concurrency gives candidate i's headroom now
 * (the bound that binds is JT_AGGREGATE_CAP on GPUs, not GPU-hours), or
 * NULL. Activation resolves a funding wait held by it (activate.h). */
const jt_aggcap_t *jt_coverer_cap_binding (const jt_coverer_t *c, size_t i);

/* Tentatively charge gpus to candidate i. Returns 0, or -1 if over headroom. */
int jt_coverer_charge (jt_coverer_t *c, size_t i, int64_t gpus);

/* The run's whole demand in this session (the sum of its groups at the
 * total being tried): why-not details say what the run needs of a bound
 * in whole-run terms, not the one group that failed. Unset (or gpus < 1),
 * the demand is what was charged plus the failed group. */
void jt_coverer_set_demand (jt_coverer_t *c, int64_t gpus);

/* When the run cannot be funded at all now: the most specific reason and a
 * one-line detail naming the envelope or cap involved, with its live usage
 * (this session's charges left out) and what the run needs of it: the
 * demand minus what other envelopes pay ("envelope E: 128 of 128 GPUs
 * active, run needs 32" for a 4 x 8-GPU run, whichever group failed). */
jt_reason_t jt_coverer_why (const jt_coverer_t *c, char *detail, size_t len);

/* First candidate (in order) with headroom >= gpus is charged them: returns
 * its index, or -1 when none can (jt_coverer_why then explains it). */
ssize_t jt_coverer_fund (jt_coverer_t *c, int64_t gpus);

/* jt_coverer_why for a demand of `gpus` (a group): JT_OK when some candidate
 * could fund it now. jt_coverer_why uses the last demand that failed. */
jt_reason_t jt_coverer_why_gpus (const jt_coverer_t *c, int64_t gpus,
                                 char *detail, size_t len);

/* Why candidate i cannot fund a group of `gpus` now: the reason of the
 * bound that binds, with the detail line of jt_coverer_why for that
 * candidate; JT_OK (detail "") when it can. */
jt_reason_t jt_coverer_why_cand (const jt_coverer_t *c, size_t i, int64_t gpus,
                                 char *detail, size_t len);

/* Whether group k of g is a soft group Cover partitions owner-first (a
 * run without groupGPUs): whole nodes of it may be paid by different
 * envelopes, with spread off or a group-by label too, since several
 * envelopes' nodes can share one domain or class (where the chunks may lie
 * is Plan's: anywhere, or one domain or class that all the payers' shares
 * fit in). Otherwise a group is paid whole by one envelope. */
bool jt_cover_soft_splits (const jt_run_t *r, const jt_groups_t *g);

/* What candidate i pays of a soft group's `rem` GPUs not yet funded, owner
 * first by whole nodes: all of rem when its headroom holds it, else its
 * headroom rounded down to whole nodes of `unit` GPUs (unit < 1: 1).
 * 0 when it cannot pay one node. */
int64_t jt_coverer_soft_share (const jt_coverer_t *c, size_t i, int64_t rem,
                               int64_t unit);

/* A segment of the partition phi: consecutive groups paid by one envelope. */
typedef struct jt_cover_seg {
    const jt_envelope_t *env;
    jt_source_t source;
    size_t first_group;
    size_t ngroups;
    int64_t gpus;
} jt_cover_seg_t;

typedef struct jt_cover {
    jt_cover_seg_t *segs;
    size_t nsegs;
    int64_t funded_gpus;
    int64_t borrowed_gpus;
    jt_reason_t reason;         /* JT_OK when every group is funded */
    char detail[JT_ERRMSG_MAX];
} jt_cover_t;

/* Append group `group` (gpus GPUs) paid by candidate cd to a partition,
 * extending the last segment when cd pays it and the groups are consecutive.
 * Returns 0 or -1 on ENOMEM. */
int jt_cover_seg_append (jt_cover_seg_t **segs, size_t *nsegs,
                         const jt_cover_cand_t *cd, size_t group, int64_t gpus);

/* Fund group k of g as Cover does: whole by the first candidate with room
 * for it (jt_coverer_fund), or, for a soft group that splits
 * (jt_cover_soft_splits), owner-first by whole nodes of g->unit GPUs: each
 * candidate in order pays its jt_coverer_soft_share of what is left, until
 * nothing is. Each share is appended to *segs when segs is not NULL.
 * Returns 1 funded, 0 not (the charges made stay; jt_coverer_why says why
 * the rest is not funded), -1 on ENOMEM. */
int jt_coverer_fund_group (jt_coverer_t *c, const jt_groups_t *g, size_t k,
                           jt_cover_seg_t **segs, size_t *nsegs);

/* Cover alone (no placement): fund the groups in order, first-fit over the
 * candidates (a soft group that splits: owner-first by whole nodes). Returns 0 when all groups are funded, 1 when not (out->reason
 * and out->detail say why; out holds what could be funded), -1 on error. */
int jt_cover (const jt_budgets_t *b, const jt_usage_t *u, const jt_run_t *r,
              const jt_groups_t *g, int64_t now, jt_cover_t *out,
              jt_error_t *err);
void jt_cover_free (jt_cover_t *c);

/* Could run r ever be funded, with no usage at all, at now or later in some
 * envelope window (the job_submit admission test)? Returns JT_OK or the
 * reason it never could, with detail. */
jt_reason_t jt_cover_ever (const jt_budgets_t *b, const jt_run_t *r,
                           int64_t now, char *detail, size_t len);

/* jt_cover_ever knowing the flavor's GPUs per node (gpn; 0 unknown): a soft
 * group that splits is funded by whole nodes of gpn GPUs (jt_cover_ever
 * funds it GPU by GPU, never refusing what whole nodes could pay). */
jt_reason_t jt_cover_ever_gpn (const jt_budgets_t *b, const jt_run_t *r,
                               int64_t now, int64_t gpn, char *detail,
                               size_t len);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_COVER_H */
