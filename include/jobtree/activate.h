/*
 * jobtree/activate.h - activation of a reservation whose slice is not free:
 * who gives way, decided structurally first and by the published lottery
 * last (seed 000 section 6, seed 002, DESIGN decisions 4 and 5). No numeric
 * priority is an input.
 *
 * A slice needs GPUs in pools: a pool is a fast-fabric domain (room) or an
 * envelope (funding: a lender reclaiming what it lent). Each need has a
 * deficit. Holders are the leases in scope: one group of a running run, on
 * whole nodes, counted in one pool.
 *
 * The slice's alternatives (candidate domains) are taken in preference
 * order; of the first JT_ACTIVATE_TOP_K whose deficits the holders can
 * cover, each is decided alone by the rules below (the same seed), and
 * the one that frees its deficit at the least global cost wins (seed
 * 002's return on investment: its deficit over the GPUs its cuts take
 * anywhere, a gang the lottery takes counted whole), ties to the earlier
 * (a slice lists alternatives in fewer fabric units first, so one block
 * cleared beats pieces of three at equal return); nothing is cut for the
 * others. Within an alternative, in this order,
 * each step only while some need of the slice is still short:
 *   1. spares: Spare leases in a short pool, by run then group;
 *   2. shrink: a malleable run gives up whole groups in a short pool,
 *      highest group first, never below its minimum (runs by id);
 *   3. lottery: the conflict set is the runs (whole gangs: one token per
 *      run, never part of one) holding GPUs in a short pool. When runs that
 *      free at least as much in the short pools as they lose elsewhere
 *      ("local": gain >= global cost - gain) can cover what is short, the
 *      others are left out; when several pools are short and the runs
 *      holding GPUs in every short pool can cover all of them, the others
 *      are left out too (a run that frees funding where the slice cannot
 *      go is not taken). Draw an owner uniformly among the set's owners
 *      (sorted by name), then one of its runs uniformly (sorted by id); all
 *      of that run's holders end with RandomPreempt(rho); recompute the set
 *      from what is still short; repeat.
 * With one short pool, the GPUs freed there never exceed the deficit plus
 * what the last unit taken (a spare, a group, a gang) held there. With
 * several, a gang taken for one pool also frees what it holds in the others
 * (gangs are never split).
 *
 * Cost: sorting the holders plus one pass per cut; independent of any
 * number a user chose.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_ACTIVATE_H
#define JOBTREE_ACTIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "cover.h"
#include "error.h"
#include "schedule.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How many coverable alternatives an activation compares (seed 002: the
 * top-K domains; the cost of a decision stays bounded by K resolutions). */
#define JT_ACTIVATE_TOP_K 16

typedef struct jt_holder {
    const char *run;            /* the gang: evicted as a whole */
    const char *owner;
    int group;                  /* group index in its run */
    jt_role_t role;             /* Spare leases are the first cut */
    int64_t gpus;               /* held in `pool` */
    size_t pool;
    int64_t run_gpus;           /* the run's GPUs in every pool (its global
                                 * cost), spares excluded */
    int64_t run_min_gpus;       /* malleable minimum; run_gpus when the run
                                 * is not malleable */
} jt_holder_t;

typedef struct jt_need {
    size_t pool;
    int64_t deficit;            /* GPUs missing in pool (<= 0: none) */
} jt_need_t;

typedef struct jt_slice_alt {
    const jt_need_t *needs;
    size_t nneeds;
} jt_slice_alt_t;

typedef struct jt_activation_req {
    const char *scope;          /* published with the seed, e.g. "west/A,west/B" */
    const char *resv_id;
    int64_t time;               /* the activation instant */
    const jt_slice_alt_t *alts; /* preference order */
    size_t nalts;
    const jt_holder_t *holders;
    size_t nholders;
} jt_activation_req_t;

typedef enum jt_cut_kind {
    JT_CUT_SPARE = 0,           /* End reason DropSpare */
    JT_CUT_SHRINK,              /* End reason Shrink */
    JT_CUT_LOTTERY,             /* End reason RandomPreempt(rho) */
} jt_cut_kind_t;

const char *jt_cut_kind_str (jt_cut_kind_t k);  /* "DropSpare", "Shrink", "RandomPreempt" */

typedef struct jt_cut {
    size_t holder;              /* index into the request's holders */
    jt_cut_kind_t kind;
    size_t draw;                /* JT_CUT_LOTTERY: index into draws */
} jt_cut_t;

/* One lottery draw, as verify replays it. */
typedef struct jt_draw {
    size_t nowners, owner;      /* owner index among the set's owners */
    size_t nruns, run;          /* run index among that owner's runs */
    const char *run_id;         /* the run taken */
} jt_draw_t;

typedef struct jt_activation {
    bool resolved;              /* every need of `alt` covered */
    size_t alt;                 /* the alternative chosen (nalts when none) */
    uint64_t rho;               /* the seed (also when no draw was needed) */
    jt_cut_t *cuts;             /* in the order they were made */
    size_t ncuts;
    jt_draw_t *draws;
    size_t ndraws;
    int64_t deficit;            /* sum of the chosen alternative's deficits */
    int64_t freed;              /* GPUs freed in its short pools */
} jt_activation_t;

/* Decide. Returns 0 with out filled (resolved or not; jt_activation_free
 * it), -1 on error (err set, out empty). */
int jt_activate (const jt_activation_req_t *req, jt_activation_t *out,
                 jt_error_t *err);

/* jt_activate with the alternatives whose refused[a] is set passed over
 * (refused: nalts flags, or NULL for none): what the adapter asks again
 * when the domain chosen is refused by a check the slice does not model
 * (slurmctld's cons_tres on memory or CPUs), so the next domain is tried,
 * each at most once (seed 002: greedy over the ranked domains). The seed
 * and the scope are the request's, whatever is refused; out->alt is in
 * the request's numbering. */
int jt_activate_except (const jt_activation_req_t *req, const bool *refused,
                        jt_activation_t *out, jt_error_t *err);
void jt_activation_free (jt_activation_t *a);

/* Canonical dump for tests and `jobtree plan` (malloc'd; NULL on ENOMEM):
 *   "resolved alt=0 deficit=16 freed=16 rho=0123456789abcdef | DropSpare 7/0
 *    | Shrink 9/3 | RandomPreempt 12/1 draw 0 owner 1/2 run 0/1" ...
 *   or "unresolved deficit=..." */
char *jt_activation_dump (const jt_activation_t *a, const jt_activation_req_t *req);

/* ---- A reserved run's slice in a live snapshot ----
 *
 * What slurmctld's adapter asks when a reservation's activation instant has
 * come and Pack still cannot place the run: the alternatives are the
 * estimate sets of the run's answer that lie in one domain (jt_answer_t
 * cands with domain >= 0, in the answer's order: Pack's preference), each
 * one pool named by its domain; the deficit of a pool is the GPUs of the
 * cand_nodes whole nodes the run needs there minus the GPUs of its free
 * (up, unused) nodes. A set across domains (a run whose groups spread, or
 * one unit of --cross-group-spread=no:LEVEL) gives one alternative per
 * unit of the lowest level below the set's own whose units can hold the
 * run (its nodes there, counted whole, >= cand_nodes: one block), in unit
 * order, then the set itself when it spans several of those units (pieces
 * of several blocks; for a no:LEVEL set, a unit of LEVEL, never more):
 * the run's cand_nodes fill the alternative's domains most free first
 * (ties by domain order), a domain's whole nodes before the next, and each
 * domain it uses is a need (a pool per domain, deficit: the GPUs of the
 * nodes it uses there minus its free GPUs there, <= 0 when none is
 * short); an alternative none of whose domains is short is none (unless
 * reclaiming). Alternatives are then ordered by fewest units (alt_units:
 * the lowest level's units its domains lie in, a domain of its own there
 * counting alone; without levels, its domains; a single-domain one: 1),
 * the order above among equals, so a single-domain slice keeps its order
 * and jt_activate's tie to the earlier is a tie to fewer units. The
 * holders are the open leases of the snapshot that
 * may give way (yield() says which, and a malleable run's minimum), one
 * per lease and pool, holding the GPUs of the nodes of the set on which
 * that lease is the only user (a node shared with anything else frees
 * nothing). Only the alternatives the holders could clear are kept (a
 * domain nobody may leave is no candidate, however the caller's node set
 * showed it), and the scope published with the seed is their pools' names
 * joined by ",", the envelope's first when reclaiming. Without `structural` (an adapter that can only end whole jobs)
 * spare leases are held as Active (they go with their gang) and no run
 * is malleable, so every cut is a lottery draw. Room of a set across
 * domains is counted in the run's groups when group_nodes > 0 (the
 * answer's cand_group_nodes: its groups are that many whole nodes each):
 * a domain takes whole groups only, so the fill never counts on a piece
 * of a group; 0: in whole nodes.
 *
 * Cost: one pass over the snapshot's leases and their nodes (a node name
 * lookup each) plus the sets' nodes, and per set across domains one pass
 * per level over its domains; called only when an activation is due. */

/* 1: run may give way (*min_gpus: its malleable minimum, or its GPUs when
 * not malleable; left untouched means not malleable), 0: it may not. */
typedef int (*jt_yield_fn) (const char *run, int64_t *min_gpus, void *arg);

typedef struct jt_activation_slice {
    jt_activation_req_t req;    /* points into the members below */
    char **pools;               /* pool (domain) names */
    size_t npools;
    size_t *alt_cand;           /* alternative -> index into the cands */
    char *scope;
    jt_slice_alt_t *alts;
    jt_need_t *needs;           /* per alternative: the funding's first when
                                 * reclaiming, then one per domain it uses */
    jt_holder_t *holders;
    jt_node_set_t *alt_sets;    /* per alternative across domains: the nodes
                                 * of the domains it uses (domain -1); empty
                                 * for a single-domain one */
    char **alt_where;           /* per alternative: its domain's name, or
                                 * "block b1 (west/A,west/B)" */
    size_t *alt_units;          /* per alternative: the units it spans */
} jt_activation_slice_t;

/* The nodes alternative a of sl may start the run on: its own set
 * (alt_sets) when it spans domains, else cands[sl->alt_cand[a]] (the
 * caller's cands, those passed to jt_activation_slice). NULL when a is
 * out of range. O(1). */
const jt_node_set_t *jt_activation_alt_set (const jt_activation_slice_t *sl,
                                            const jt_node_set_t *cands, size_t a);

/* Reclaim of lent capacity: the run's owner's own envelope, whose
 * concurrency is held by leases it pays for other owners (borrowers, family
 * members). Those leases, and only those, give way: pool 0 is the envelope
 * ("envelope:NAME", deficit: the GPUs the run lacks there), and every
 * single-domain set is an alternative needing that deficit plus its room
 * deficit (when short) from the same borrowers: the lender is paid back
 * where it can run. */
typedef struct jt_reclaim {
    const char *envelope;       /* its name */
    const char *owner;          /* the lender (the run's owner) */
    int64_t deficit;            /* > 0 */
    /* Or a funding wait held by an aggregate cap (jt_cap_need): pool 0 is
     * the cap ("cap:NAME", deficit: the GPUs the run lacks under it), and
     * every lease paid by one of its envelopes may give way, whoever owns
     * it (the cap binds them all alike). NULL for a reclaim. */
    const jt_aggcap_t *cap;
} jt_reclaim_t;

/* Whether run r (gpus GPUs, now) is refused funding only because its
 * owner's own envelope lent concurrency away: the first of the owner's
 * envelopes in Cover's order that cannot fund it now because of its
 * concurrency, while its GPUs lent to other owners would. 1 with *out
 * (strings point into b and r), 0 when none (or an own envelope funds it),
 * -1 with err. */
int jt_reclaim_need (const jt_budgets_t *b, const jt_usage_t *u,
                     const jt_run_t *r, int64_t gpus, int64_t now,
                     jt_reclaim_t *out, jt_error_t *err);

/* Whether run r (gpus GPUs, now) is refused funding because an aggregate
 * cap's concurrency is in use: the first candidate in Cover's order (not
 * a sponsor) whose headroom that cap gives, whose own concurrency holds
 * the run, and whose cap's active GPUs could make up the deficit. 1 with
 * *out (envelope: that candidate; cap set; strings point into b and r), 0
 * when none (or a candidate funds it now), -1 with err. */
int jt_cap_need (const jt_budgets_t *b, const jt_usage_t *u,
                 const jt_run_t *r, int64_t gpus, int64_t now,
                 jt_reclaim_t *out, jt_error_t *err);

/* Whether a reserved run that may not start now has an activation, and
 * which: its answer in ESTIMATE (*e, jt_answer_free it whenever the return
 * is >= 0), then 1 when it is funded now and only room is missing, or when
 * it waits for funding an aggregate cap holds (jt_cap_need: *fund filled
 * with its cap; fund->deficit is 0 otherwise), both activations at its
 * MaxWait (a funded run never waits longer for room, nor for a cap), 2
 * when it waits for funding its owner lent away (a reclaim: *fund filled,
 * jt_reclaim_need over live usage plus the request's closed hours), 0 when
 * none (e says why), -1 with err. What jt_activation_due asks once an
 * activation may be due. */
int jt_activation_applies (const jt_sched_request_t *now_req, jt_answer_t *e,
                           jt_reclaim_t *fund, jt_error_t *err);

/* ---- when an activation is due: the one rule ----
 *
 * A reservation (created at its run's first estimate) has at most one
 * activation of each kind: room, due from created + MaxWait on (MaxWait=none:
 * never), and a reclaim of what its owner lent, due at once. Which applies
 * is jt_activation_applies's answer; the activation instant (it seeds the
 * lottery, so it depends only on what the ledger records) is created +
 * MaxWait for room, created for a reclaim. A reclaim pays the lender back
 * (fund: the reclaim); room pays nobody back unless an aggregate cap holds
 * the run's funding (fund: the cap's need, jt_cap_need), never for a
 * deficit without its cap. slurmctld's adapter (plugins/select/
 * activation.c), the simulator (sim/sim_activate.c) and `jobtree plan
 * --activate` (a what-if at the instant asked) call jt_activation_due and
 * decide nothing of this themselves. */

/* What a reservation has had: its creation, MaxWait, its activations. */
typedef struct jt_resv_clock {
    int64_t created;            /* the reservation's creation (ledger time) */
    int64_t max_wait;           /* jobtree.conf MaxWait, seconds; <= 0: none
                                 * (room is never due) */
    bool room_done;             /* its room activation happened */
    bool reclaim_done;          /* its reclaim happened */
    bool what_if;               /* `jobtree plan --activate`: whatever applies
                                 * is due, at the request's instant */
    bool restart;               /* a requeued run's restart, its slice held
                                 * (jt_sched_restart, jt_restart_where):
                                 * never due, neither room nor a reclaim. The
                                 * slice was planned free by its start and no
                                 * other job may take it; an activation would
                                 * only move the wait onto another running
                                 * run (a victim preempting in turn: a
                                 * cascade). Its start is its estimate. */
} jt_resv_clock_t;

typedef enum jt_due_kind {
    JT_DUE_NONE = 0,            /* nothing to activate now */
    JT_DUE_ROOM = 1,            /* room (or a funding wait a cap holds) */
    JT_DUE_RECLAIM = 2,         /* the owner's lent GPUs */
} jt_due_kind_t;

typedef struct jt_activation_due {
    jt_due_kind_t kind;
    int applies;                /* jt_activation_applies's answer (0, 1, 2),
                                 * -1 when not asked: nothing may be due, no
                                 * estimate was made */
    int64_t at;                 /* the activation instant (kind != NONE) */
    const jt_reclaim_t *fund;   /* who is paid back: &reclaim, or NULL (room
                                 * only) */
    jt_reclaim_t reclaim;       /* jt_activation_applies's *fund */
} jt_activation_due_t;

/* What a reserved run is told (its reason, the ReservationCreate's
 * EarliestStart): the earlier of its estimate and its room activation,
 * created + MaxWait, when that activation would clear room for it: MaxWait
 * set, the room activation not had yet and still ahead of now, the run
 * funded now (only room is missing) and a candidate domain the runs that
 * may give way could clear (`clearable`: the caller's check that every
 * node of one of its sets is free or held by Jobtree runs alone). Sets
 * *by_activation when the activation is the earlier. Pure; O(1). */
int64_t jt_told_start (int64_t estimate, const jt_resv_clock_t *clk,
                       bool funded_now, bool clearable, int64_t now,
                       bool *by_activation);

/* Whether an activation of either kind may be due at now (the cheap gate,
 * before any estimate): room once created + MaxWait is reached and not
 * done, a reclaim while not done; both under what_if. */
bool jt_activation_may_be_due (const jt_resv_clock_t *clk, int64_t now);

/* The rule once jt_activation_applies answered `applies` (0, 1, 2; its
 * *fund already in out->reclaim), at now: out->kind, ->at and ->fund
 * (out->applies set to applies). Returns out->kind. */
jt_due_kind_t jt_activation_when (const jt_resv_clock_t *clk, int64_t now, int applies,
                                  jt_activation_due_t *out);

/* Whether reserved run now_req->run (a request in tense NOW) is due an
 * activation at now_req->now, and which: the gate, then (only when it is
 * open) jt_activation_applies into *e, then jt_activation_when. Returns
 * out->kind (out filled; out->fund points into out), or -1 with err. *e is
 * the ESTIMATE answer when out->applies >= 0 and zeroed otherwise: always
 * jt_answer_free it. */
int jt_activation_due (const jt_sched_request_t *now_req, const jt_resv_clock_t *clk,
                       jt_answer_t *e, jt_activation_due_t *out, jt_error_t *err);

/* Build the request for run `self` (its leases are never holders) needing
 * cand_nodes nodes of `flavor` on one of cands (ncands sets); fund (NULL:
 * room only) makes it a reclaim. resv_id and time seed the lottery.
 * Returns 0 with out filled (req.nalts may be 0: no set able to hold the
 * run, or none short; jt_activation_slice_free it), -1 with err (out
 * empty). */
int jt_activation_slice (const jt_snapshot_t *s, const jt_node_set_t *cands,
                         size_t ncands, uint32_t cand_nodes, uint32_t group_nodes,
                         const char *flavor,
                         const jt_reclaim_t *fund, const char *self,
                         const char *resv_id, int64_t time, bool structural,
                         jt_yield_fn yield, void *arg,
                         jt_activation_slice_t *out, jt_error_t *err);
void jt_activation_slice_free (jt_activation_slice_t *sl);

/* The nodes of `set` (the activated run's candidate set) it may start on
 * once activation a over req is applied: those no lease holds but a lease
 * of a run a cuts, and no job outside the leases uses (a node in use with
 * no lease of a cut run on it stays its holder's). A victim's restart is
 * never planned there (its slice would be the activated run's), and is
 * free to be planned on the rest of the set, which the runs left running
 * hold. out->nodes is malloc'd (free it); 0, or -1 with err (ENOMEM, out
 * empty). Work: the snapshot's leases and the set. */
int jt_activation_cleared (const jt_snapshot_t *s, const jt_node_set_t *set,
                           const jt_activation_t *a, const jt_activation_req_t *req,
                           jt_node_set_t *out, jt_error_t *err);

/* The runs an activation takes whole (lottery draws, in order), and the
 * runs it shrinks or whose spares it drops (in cut order, each once):
 * what the adapter ends. Pointers into req's holders. *n set; NULL with n
 * 0 when none or on ENOMEM (err set then). */
const char **jt_activation_runs (const jt_activation_t *a,
                                 const jt_activation_req_t *req, size_t *n,
                                 jt_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_ACTIVATE_H */
