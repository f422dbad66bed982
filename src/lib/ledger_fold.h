/*
 * ledger_fold.h - what the fold (ledger_fold.c) offers the reading of a
 * ledger through it (ledger_fold_replay.c); not public API.
 */
#ifndef JT_LEDGER_FOLD_H
#define JT_LEDGER_FOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "jobtree/error.h"
#include "jobtree/ledger.h"
#include "jobtree/map.h"

/* Apply one record's payload (jt_ledger_fold_apply with the record's seq).
 * A payload that is not a valid event, or with canonical not in canonical
 * form, is a violation (JT_VIOL_BAD_EVENT) and is not applied. *v is reset
 * first. 0, 1 with *v filled, or -1 on ENOMEM (err). */
int jt_ledger_fold_apply_record (jt_ledger_fold_t *f, const jt_record_t *rec,
                                 bool canonical, jt_violation_t *v, jt_error_t *err);

/* ---- lease time (ledger_fold_time.c) ---- */

/* A lease interval as its Start and End made it. */
typedef struct jt_fold_ivl {
    char *lease;
    int64_t start, end;         /* end -1: open (runs to the last instant) */
    int64_t gpus;
    uint32_t env;               /* envelope number (the fold's) */
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
} jt_fold_epoch_t;

typedef struct jt_fold_times {
    jt_fold_ivl_t *ivl;
    size_t nivl, ivlcap;
    uint32_t *nodes;            /* node numbers of every interval */
    size_t nnodes, nodecap;
    char **names;               /* node number -> name */
    size_t nnames, namecap;
    jt_map_t *node_ids;         /* name -> 1 + node number */
    jt_fold_epoch_t *ep;
    size_t nep, epcap;
    jt_fold_cap_t *caps;
    size_t ncaps, capcap;
} jt_fold_times_t;

void jt_fold_times_free (jt_fold_times_t *t);

/* The invariants at every instant on the leases' intervals (see the file):
 * 0, 1 with the violation of smallest seq in *v (unless *v holds one
 * already), or -1 with errno ENOMEM. names[e] names envelope e; horizon is
 * the ledger's last instant (raised to every lease start and end); last_seq
 * is blamed for what only the last instant shows. */
int jt_fold_times_check (const jt_fold_times_t *t, const char *const *names,
                         size_t nenv, int64_t horizon, uint64_t last_seq,
                         jt_violation_t *v);

/* Check lease time in f instead of event order: node overlap, concurrency,
 * GPU-hours and window are no longer checked as events are applied but by
 * jt_ledger_fold_check_time at the end. Before the first event. 0, or -1
 * with err (EINVAL, ENOMEM). */
int jt_ledger_fold_time_checks (jt_ledger_fold_t *f, jt_error_t *err);

/* jt_fold_times_check over everything applied to f (which must check lease
 * time). 0, 1 with *v, or -1 on ENOMEM. */
int jt_ledger_fold_check_time (const jt_ledger_fold_t *f, uint64_t last_seq,
                               jt_violation_t *v);

#endif /* JT_LEDGER_FOLD_H */
