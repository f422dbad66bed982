/*
 * ledger_fold_times.h - lease time, below the fold: the leases' intervals
 * and the caps in force over time that the fold records for `jobtree
 * verify` (ledger_fold.c fills a jt_fold_times_t), the checks on them
 * (ledger_fold_time.c) and Cover's rules on them (ledger_fold_rules.c,
 * which uses ledger_fold_time.c's sweep); not public API.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_LEDGER_FOLD_TIMES_H
#define JT_LEDGER_FOLD_TIMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobtree/budget.h"
#include "jobtree/ledger.h"
#include "jobtree/map.h"

typedef struct jt_fold_times jt_fold_times_t;

/* A lease interval as its Start and End made it. */
typedef struct jt_fold_ivl {
    size_t lease;               /* its id: at this offset in the times' text
                                 * (jt_fold_ivl_lease) */
    int64_t start, end;         /* end -1: open (runs to the last instant) */
    int64_t gpus;
    uint32_t env;               /* envelope number (the fold's) */
    uint32_t owner;             /* the lease's owner: its number in names */
    jt_lease_role_t role;
    uint32_t nnodes;
    size_t node0;               /* its nodes: nodes[node0 .. node0 + nnodes) */
    uint64_t sseq, eseq;        /* of its Start, its End (0: open) */
} jt_fold_ivl_t;

typedef struct jt_fold_cap {
    uint32_t env;
    int64_t concurrency;
    double max_gpu_hours;
    int64_t wstart, wend;
} jt_fold_cap_t;

/* A BudgetLoaded (or the pinned caps: the only epoch): its caps are
 * caps[cap0 .. cap0 + ncaps). */
typedef struct jt_fold_epoch {
    int64_t time;
    uint64_t seq;
    size_t cap0, ncaps;
    int rules;                  /* its budget content: index in rules, -1 when
                                 * not recorded */
} jt_fold_epoch_t;

struct jt_fold_times {
    jt_fold_ivl_t *ivl;
    size_t nivl, ivlcap;
    uint32_t *nodes;            /* node numbers of every interval */
    size_t nnodes, nodecap;
    char **names;               /* node (or owner) number -> name */
    size_t nnames, namecap;
    jt_map_t *node_ids;         /* name -> 1 + node number */
    jt_fold_epoch_t *ep;
    size_t nep, epcap;
    jt_fold_cap_t *caps;
    size_t ncaps, capcap;
    jt_budgets_t **rules;       /* distinct budget contents of the epochs */
    size_t nrules, rulescap;
    jt_map_t *rules_ids;        /* budgetsSha256 -> 1 + index in rules */
    uint64_t leases_checked;    /* by the last check: payer and role checked */
    uint64_t leases_unchecked;  /* started under budgets with no content */
    char *text;                 /* the intervals' lease ids, each ended by a
                                 * NUL, back to back: one growing block, not
                                 * an allocation per lease */
    size_t ntext, textcap;
};

/* The lease id of interval iv of t. */
static inline const char *jt_fold_ivl_lease (const jt_fold_times_t *t,
                                             const jt_fold_ivl_t *iv)
{
    return t->text + iv->lease;
}

/* What a sweep over time checks and how it names it: envelopes (C and B),
 * aggregate caps, lending caps. */
typedef struct jt_fold_sweep {
    jt_violation_kind_t conc, hours;
    const char *noun;           /* "envelope", "aggregate cap", ... */
    const char *cword, *hword;  /* the limits' names in messages */
} jt_fold_sweep_t;

/* Keep the violation of smallest seq (ties: smallest kind) in *best. */
void jt_fold_found (jt_violation_t *best, jt_violation_kind_t k, uint64_t seq,
                    const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));

/* Epochs in force order: (time, seq). A qsort comparator. */
int jt_fold_epoch_cmp (const void *a, const void *b);

/* Concurrency and GPU-hours of t's intervals (their env numbers index
 * names, n of them) against the caps of t's epochs in force at each instant
 * (ledger_fold_time.c's sweep), into *best. 0, or -1 with errno ENOMEM. */
int jt_fold_times_sweep (const jt_fold_times_t *t, const char *const *names, size_t n,
                         int64_t horizon, uint64_t last_seq, const jt_fold_sweep_t *k,
                         jt_violation_t *best);

/* The index in [lo, hi) of the last element at or before x, else lo:
 * elements of sz bytes from v, sorted by the int64_t at byte offset off of
 * each (an epoch's or a cap change's time). The epoch or change in force
 * at x (the first one's caps hold before it). */
size_t jt_fold_last_at (const void *v, size_t sz, size_t off, size_t lo, size_t hi,
                        int64_t x);

/* Node overlap, then each envelope's concurrency, GPU-hours and window on
 * t's intervals against the caps of t's epochs in force at each instant
 * (ledger_fold_time.c), into *best. horizon: the last instant. 0, or -1
 * with errno ENOMEM. */
int jt_fold_time_check (const jt_fold_times_t *t, const char *const *names, size_t nenv,
                        int64_t horizon, uint64_t last_seq, jt_violation_t *best);

/* ---- above lease time: Cover's rules (ledger_fold_rules.c) ---- */

/* The invariants at every instant on the leases' intervals: those of
 * jt_fold_time_check, then Cover's rules (payer and role at each lease's
 * start against the budget content in force then, aggregate and lending
 * caps at every instant; counting the leases checked and those that
 * started under budgets with no recorded content in t). 0, 1 with the
 * violation of smallest seq in *v (unless *v holds one already), or -1
 * with errno ENOMEM. names[e] names envelope e; horizon is the ledger's
 * last instant (raised to every lease start and end); last_seq is blamed
 * for what only the last instant shows. */
int jt_fold_times_check (jt_fold_times_t *t, const char *const *names,
                         size_t nenv, int64_t horizon, uint64_t last_seq,
                         jt_violation_t *v);

#endif /* JT_LEDGER_FOLD_TIMES_H */
