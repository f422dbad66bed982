/*
 * jobtree/pack.h - Pack: where to run (calculus section 5, packing doc).
 *
 * Rules (the packing doc's three, with whole nodes per DESIGN decision 2):
 *  1. Only up nodes of the run's flavor with a domain take part, and only
 *     whole free nodes (used_gpus == 0) are given to groups. When a selector
 *     is given (the paying envelope's), only nodes matching it.
 *  2. Domains are ordered by free GPUs (descending), ties by domain name;
 *     each group goes to the first domain in that order that still holds it
 *     (so one domain fills to empty before the next is used). A group never
 *     spans domains. Best-fit (smallest domain that holds the group first) is
 *     offered as an alternative policy for the simulator.
 *  3. Within a domain, nodes are taken by free GPUs (descending) then name.
 *  Spares: spares_per_group whole nodes in the group's own domain; when
 *  the snapshot has fabric levels and no domain holds a group with its
 *  spares, the group goes to a domain that holds it alone (in the policy's
 *  order) and all its spares to the sibling domain of its block (its unit
 *  of the lowest level) with the most free nodes, ties by index; never
 *  outside the block (docs/packing.md, "Spares"). Only groups that may
 *  spread: a run in one domain (cross-group spread off) and a soft demand
 *  keep their spares in their domain. The placement's detail then names
 *  each such group, its block and its spares' domain.
 *  Cross-group spread off: all groups of the request in one domain (the
 *  first in order that holds them all) or None at once.
 *  Soft groups (no groupGPUs): chunks by whole node, filling a domain to
 *  empty before spilling to the next; one output group per domain chunk.
 *  None when the full fixed bundle does not fit now; with partial_ok
 *  (malleable INCR) the longest prefix of groups that fits is placed.
 *
 * A run's labels (jt_pack_view_create_run):
 *  - node constraints (--node-constraint): only nodes where every
 *    constraint holds take part (jobtree/constraint.h);
 *  - group-by (--group-by=LABEL): only nodes with LABEL take part, and
 *    "domain" in the rules above reads "class": one domain and one value
 *    of LABEL. So each group lands on nodes sharing one value of LABEL,
 *    all or nothing, and with cross-group spread off the whole run does.
 *    The domain rule still holds: a class is inside one domain, because
 *    the domain is the fast fabric a group's collectives need, and every
 *    consumer of a placement (Plan's residuals, reservations, activation)
 *    is per domain. Grouping by region, cluster or fabric.domain is the
 *    domain rule itself. A soft group (no groupGPUs) is one group: with
 *    group-by its chunks share one class.
 *  The detail of a None then ends with "(nodes where gpu.mem GE 80,
 *  grouped by rack)", so a run waiting for such nodes says why.
 *
 * A pack view holds the free nodes of one flavor, per domain, in packing
 * order; it is built once per snapshot and consumed by successive requests
 * (so Plan can pack the segments of different envelopes without overlap).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_PACK_H
#define JOBTREE_PACK_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"
#include "labels.h"
#include "run.h"
#include "snapshot.h"
#include "reason.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jt_pack_policy {
    JT_PACK_TO_EMPTY = 0,       /* the seed's rule: most-free domain first */
    JT_PACK_BEST_FIT,           /* smallest domain that holds the group */
} jt_pack_policy_t;

/* The default where nothing chooses (jobtree.conf's PackPolicy, `jobtree
 * plan --policy`, a NULL jt_plan_opts_t): best-fit. The seed's rule is
 * pack-to-empty; the evidence chose best-fit (docs/packing.md, "Which
 * default"): on the whole Philly trace in `jobtree sim` it cut the mean
 * wait from 54.6 to 39.3 min (three cluster shapes of four, a tie on the
 * fourth), at 4,096 emulated nodes it started 0.96x stock's jobs against
 * 0.85x, and on the live 150-job window it halved whole-domain runs'
 * starvation. */
#define JT_PACK_DEFAULT JT_PACK_BEST_FIT

const char *jt_pack_policy_str (jt_pack_policy_t p);
int jt_pack_policy_parse (const char *s, jt_pack_policy_t *out);

typedef struct jt_pack_view jt_pack_view_t;

/* Build the view of free whole nodes of `flavor` in s (s must be
 * finalized and outlive the view). O(nodes). NULL on ENOMEM. */
jt_pack_view_t *jt_pack_view_create (const jt_snapshot_t *s,
                                     const char *flavor, jt_error_t *err);
void jt_pack_view_destroy (jt_pack_view_t *v);

/* The view of run r: r's flavor, only nodes satisfying r's constraints
 * and having its group-by label, sliced by class (see above). O(nodes x
 * constraints + free nodes x log). NULL on ENOMEM or without a flavor. */
jt_pack_view_t *jt_pack_view_create_run (const jt_snapshot_t *s,
                                         const jt_run_t *r, jt_error_t *err);

/* Warm views (issue 12): the views of the runs asked about, kept across
 * calls and brought up to date with the snapshot instead of built again
 * (src/lib/pack_views.c). Whoever owns the snapshot owns the views, and
 * uses them from one thread at a time (slurmctld: under the job lock).
 *
 * jt_pack_views_sync brings every kept view to s as s is now: O(nodes),
 * one byte compared per node, an O(1) update per node that changed; a new
 * snapshot (another s->serial) drops them all. A caller syncs right before
 * the views are used (jt_plan_opts_t.views: jt_sched_answer does) and
 * changes s in between only through another sync.
 *
 * jt_pack_views_get hands out run r's view, clean (nothing placed): a kept
 * one when r's key (flavor, constraints, group-by, spread, strictness)
 * matches and the views are synced with s, else a fresh one (*owned true:
 * the caller destroys it). A kept one (*owned false) goes back with
 * jt_pack_views_put, everything placed on it given back first (a view that
 * does not come back clean is dropped). With check on, every kept view
 * handed out is first compared with a fresh build; a difference is counted
 * in the stats (first_mismatch says what) and the fresh view is handed out
 * instead.
 *
 * jt_pack_views_gpus_per_node: jt_snapshot_gpus_per_node for a synced s,
 * from the sync's counts (no pass over the nodes); has_nodes: a node of
 * the flavor is in a domain. -1 when not synced with s. */
typedef struct jt_pack_views jt_pack_views_t;

typedef struct jt_pack_views_stats {
    uint64_t hits;              /* a kept view handed out */
    uint64_t builds;            /* a view built (kept when it can be) */
    uint64_t cold;              /* built because not synced with s */
    uint64_t dropped;           /* kept views dropped (room, not clean,
                                   mismatch) */
    uint64_t synced_nodes;      /* node changes applied by syncs */
    uint64_t mismatches;        /* check: a kept view differed */
    char first_mismatch[JT_ERRMSG_MAX];
} jt_pack_views_stats_t;

jt_pack_views_t *jt_pack_views_create (void);
void jt_pack_views_destroy (jt_pack_views_t *c);
int jt_pack_views_sync (jt_pack_views_t *c, const jt_snapshot_t *s,
                        jt_error_t *err);
jt_pack_view_t *jt_pack_views_get (jt_pack_views_t *c, const jt_snapshot_t *s,
                                   const jt_run_t *r, bool *owned,
                                   jt_error_t *err);
void jt_pack_views_put (jt_pack_views_t *c, jt_pack_view_t *v);
int jt_pack_views_gpus_per_node (const jt_pack_views_t *c,
                                 const jt_snapshot_t *s, const char *flavor,
                                 bool *has_nodes);
void jt_pack_views_check (jt_pack_views_t *c, bool on);
void jt_pack_views_stats (const jt_pack_views_t *c, jt_pack_views_stats_t *out);

/* Free GPUs (whole free nodes the view's run may use) left in domain d. */
int64_t jt_pack_view_free (const jt_pack_view_t *v, size_t domain);

/* The view's slices ("classes"): one per domain, or, for a run grouped by
 * a label that is not a domain key, one per (domain, value). With spread
 * off and group-by (jt_pack_view_one_class) the whole run must land in one
 * class, so Plan tries the run class by class (jt_pack_view_fix_class)
 * instead of letting its first group choose one that cannot hold the rest.
 * fix_class(v, c) restricts every request to class c until called with
 * -1; class_free is the class's free GPUs the run may use. */
size_t jt_pack_view_nclasses (const jt_pack_view_t *v);
size_t jt_pack_view_class_domain (const jt_pack_view_t *v, size_t c);
int64_t jt_pack_view_class_free (const jt_pack_view_t *v, size_t c);
bool jt_pack_view_one_class (const jt_pack_view_t *v);
void jt_pack_view_fix_class (jt_pack_view_t *v, ssize_t c);

/* hold = true: freeze the pack-to-empty domain order at the view's free
 * GPUs now, for every request until called again with hold = false. A
 * caller that places a run's groups one request at a time (Plan, which
 * interleaves funding) then gets the domains one request of all the groups
 * would get (the order is fixed at the start of the run, so a domain fills
 * to empty before the next is used) instead of a fresh order per group.
 * Also makes those requests cheaper (no sort). Returns 0, -1 on ENOMEM. */
int jt_pack_view_hold_order (jt_pack_view_t *v, bool hold);

/* Levels (docs/packing.md, "Levels"): the fabric above the domain
 * (jobtree/snapshot.h). A run whose groups may spread goes first into the
 * fewest units of each level that can hold it now, top level first; a run
 * with --cross-group-spread=no:LEVEL goes whole into one unit of LEVEL.
 *
 * jt_pack_view_scope: requests on v use only the snapshot domains d with
 * domains[d] nonzero (the array stays the caller's and must outlive its
 * use); NULL: every domain. Set it before jt_pack_view_hold_order.
 *
 * jt_pack_levels_scope: in scope (one byte per snapshot domain, set by the
 * caller to the domains allowed so far), clear every domain outside the
 * fewest units, level by level from level from_level - 1 down to 0, that
 * hold the request's groups now (counted in its largest group with its
 * spare nodes; a soft demand in whole nodes); spans[l], when given, gets
 * how many units of level l were kept. A level whose units cannot hold the
 * run narrows nothing, nor do the levels below it. Returns how many levels
 * narrowed, -1 on ENOMEM.
 *
 * A level's units, for a run that must stay inside one: indexes 0 ..
 * jt_pack_level_nunits(s, l) - 1, the named units first (by name), then
 * one per domain for the domains that are a unit of their own there
 * (a domain of a named unit is not one: jt_pack_level_domains gives it
 * none). */
void jt_pack_view_scope (jt_pack_view_t *v, const unsigned char *domains);

typedef struct jt_pack_levels_req {
    const int64_t *groups;      /* the run's groups (GPUs) */
    size_t ngroups;
    bool soft;                  /* groups[0] is a soft demand */
    int64_t spares;             /* spare nodes per group */
    jt_pack_policy_t policy;
    size_t from_level;          /* narrow levels below this one (nlevels:
                                   all) */
    size_t *spans;              /* per level: units kept, or NULL */
} jt_pack_levels_req_t;

/* The rule itself, on rooms counted by the caller: room[d] is how many of
 * the run's units of need (groups, or nodes) domain d holds; in scope, the
 * domains outside the fewest units of each level, from level from_level -
 * 1 down to 0, that hold need are cleared (and their room zeroed). The
 * estimate (schedule_rank.c) counts rooms in groups freeing by the run's
 * start; jt_pack_levels_scope in groups free now. Returns how many levels
 * narrowed, -1 on ENOMEM. */
int jt_levels_fewest (const jt_snapshot_t *s, uint64_t *room, uint64_t need,
                      size_t from_level, jt_pack_policy_t policy,
                      unsigned char *scope, size_t *spans);
int jt_pack_levels_scope (const jt_pack_view_t *v,
                          const jt_pack_levels_req_t *req, unsigned char *scope);
size_t jt_pack_level_nunits (const jt_snapshot_t *s, size_t l);
const char *jt_pack_level_unit_name (const jt_snapshot_t *s, size_t l,
                                     size_t u);
/* The domains of unit u of level l (*n of them; a unit of its own: its one
 * domain, written to *one); NULL with *n 0 when u is a domain that is in a
 * named unit there. O(1). */
const size_t *jt_pack_level_domains (const jt_snapshot_t *s, size_t l, size_t u,
                                     size_t *one, size_t *n);

/* topology/block's own rule (docs/packing.md, "Levels"): Slurm takes a
 * run of `nodes` nodes only inside one block of the smallest size that
 * holds them (topology/block/eval_nodes_block.c@26.05.3:226-244). The scope
 * a run must stay in under it: JT_CONFINE_DOMAIN when a base block holds
 * it, else the level (>= 0) of the smallest block size that does, else
 * JT_CONFINE_NONE (no block size is that large, or the fabric is not
 * topology/block's: s->block_nodes[0] == 0). O(levels). */
#define JT_CONFINE_NONE ((ssize_t) -2)
#define JT_CONFINE_DOMAIN ((ssize_t) -1)
ssize_t jt_pack_block_confine (const jt_snapshot_t *s, int64_t nodes);

/* The narrower of two scopes (JT_CONFINE_DOMAIN < level 0 < level 1 <
 * ... < JT_CONFINE_NONE). */
static inline ssize_t jt_confine_narrower (ssize_t a, ssize_t b)
{
    if (a == JT_CONFINE_NONE)
        return b;
    if (b == JT_CONFINE_NONE)
        return a;
    return a < b ? a : b;
}

typedef struct jt_pack_request {
    const int64_t *groups;      /* group sizes in GPUs */
    size_t ngroups;
    bool soft;                  /* no groupGPUs: chunk by node */
    bool single_domain;         /* allowCrossGroupSpread == false */
    bool partial_ok;            /* place the longest prefix that fits; a
                                 * soft demand confined to one class
                                 * (only_domain of one class, a fixed
                                 * class): what that class holds of it */
    int64_t spares_per_group;   /* whole nodes, same domain (else, with
                                   levels, the group's block) */
    const jt_labels_t *selector;/* paying envelope's selector; NULL = any */
    ssize_t only_domain;        /* restrict to this domain index; -1 = any */
    jt_pack_policy_t policy;
} jt_pack_request_t;

typedef struct jt_pack_group {
    int64_t gpus;
    size_t domain;              /* index into snapshot domains */
    size_t spare_domain;        /* its spares' domain: domain, or another
                                 * domain of its block (see Spares above) */
    size_t nnodes;
    size_t *nodes;              /* snapshot node indexes, in take order */
    int *node_gpus;             /* GPUs taken on each node */
    size_t nspares;
    size_t *spares;             /* spare node indexes */
    const char *value;          /* the group-by value its nodes share, or
                                 * NULL (points into the snapshot) */
} jt_pack_group_t;

typedef struct jt_placement {
    jt_pack_group_t *groups;
    size_t ngroups;
    int64_t total_gpus;         /* GPUs placed (spares not counted) */
    jt_reason_t reason;         /* JT_OK, or why None */
    char detail[JT_ERRMSG_MAX]; /* e.g. "group 1 (64 GPUs) fits no domain: most free is B with 48" */
} jt_placement_t;

/* Place req on v. Returns 0 when placed (nodes are consumed from v),
 * 1 for None (v unchanged; out->reason/detail say which group fits no
 * domain), -1 on error. Placed, out->detail says which group did not fit
 * (partial_ok) and names each group whose spares came from its block
 * ("group 0 (16 GPUs + 1 spare node) fits no domain with its spares: group
 * in A, spare node in B1's domain B"); otherwise it is empty. */
int jt_pack (jt_pack_view_t *v, const jt_pack_request_t *req,
             jt_placement_t *out, jt_error_t *err);
void jt_placement_free (jt_placement_t *p);

/* Give the nodes of a placement made on v back to v (undo a jt_pack that
 * succeeded, e.g. when Plan tries a smaller malleable total). Returns 0. */
int jt_pack_unplace (jt_pack_view_t *v, const jt_placement_t *p);

/* Compact canonical dump for tests and logs:
 *   "g0 A[a01:8 a02:8] s[a03] | g1 B[b01:8]"  (domain name, node:gpus). */
char *jt_placement_dump (const jt_placement_t *p, const jt_snapshot_t *s);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_PACK_H */
