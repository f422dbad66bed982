/*
 * ledger_fold.h - the fold's state (ledger_fold.c, its queries
 * ledger_fold_query.c) and what the fold offers the layers above it: the
 * checkpoint's text and restore (ledger_checkpoint.c,
 * ledger_checkpoint_restore.c) and the reading of a ledger through it
 * (ledger_fold_replay.c); not public API. Lease time, below the fold, is
 * ledger_fold_times.h.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_LEDGER_FOLD_H
#define JT_LEDGER_FOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "jobtree/error.h"
#include "jobtree/ledger.h"
#include "jobtree/map.h"
#include "ledger_fold_times.h"

/* The fold's state (ledger_fold.c; read and rebuilt by ledger_checkpoint.c). */
struct lease {
    char *id, *run, *group, *envelope, *owner;
    char **nodes;
    size_t nnodes;
    int64_t gpus;
    jt_lease_role_t role;
    int64_t start;
    uint64_t seq;
    int64_t end;                /* history: -1 while open */
    jt_end_reason_t reason;
    uint64_t seed;
    jt_end_reason_t cut;        /* open: what the latest Activation cutting it
                                 * gives its End (JT_REASON_NONE: none) */
    uint64_t cut_seed;
    size_t ivl;                 /* lease time: its interval */
    char *strs;                 /* jt_fold_lease_new's: its nodes array and
                                 * strings in one block after the struct,
                                 * freed with it (jt_fold_lease_free frees
                                 * only what lies outside); NULL: each its
                                 * own allocation */
    size_t strs_size;
    char *ckpt;                 /* open: its entry in a checkpoint's state
                                 * (ledger_checkpoint.c's put_lease), made
                                 * by the first checkpoint the daemon writes
                                 * with it; NULL: not yet, or dropped when
                                 * the lease changed (jt_fold_mark_cuts) */
    size_t ckpt_len;
};

struct resv {
    char *id, *run, *owner, *envelope;
    int64_t gpus, earliest, created, activated, released;
    int64_t drawn;              /* live: the time of the latest Activation
                                 * (who gave way to it) of this open
                                 * reservation; -1: none */
    int64_t closed;             /* history: when the live fold closed it (its
                                 * Activate or Released while open, or a newer
                                 * Create of its run); -1 while open */
};

/* What the reports sum, per owner and envelope (ledger_fold_report.c):
 * closed leases (count, GPU-seconds, those of role Borrowed) and the peak
 * of GPUs in lease time over all its leases, kept while the group's Starts
 * and Ends come in time order (ordered). */
struct usage {
    char *owner, *envelope;
    int64_t leases;             /* closed leases */
    double gpu_s, borrowed_gpu_s; /* their GPU-seconds; of role Borrowed */
    int64_t last;               /* the latest instant of a Start or End (-1: none) */
    int64_t cur;                /* GPUs of its open leases */
    int64_t peak;               /* most GPUs over an interval before last */
    bool ordered;               /* no Start or End before last so far */
};

struct env {
    char *name;
    uint32_t id;                /* its number: envs in order of appearance */
    char *owner;
    bool capped;
    int64_t concurrency;
    double max_gpu_hours;
    int64_t wstart, wend;
    int64_t active, borrowed, peak;
    double closed_s, closed_borrowed_s; /* GPU-seconds */
    double open_start_sum, open_borrowed_start_sum;
};

struct jt_ledger_fold {
    jt_idset_t *ids;  /* every event id seen; NULL once ids are forgotten */
    jt_map_t *leases; /* lease id -> struct lease */
    jt_map_t *nodes;  /* node -> struct lease; not kept with times (the live check's) */
    jt_map_t *envs;   /* name -> struct env */
    jt_map_t *hist;   /* history (NULL: not kept): lease id -> struct lease */
    jt_map_t *resv;   /* history: reservation id -> struct resv */
    jt_map_t *oresv;  /* live: run -> its open reservation (struct resv) */
    uint64_t events, starts, ends, lotteries;
    int64_t closed_until;       /* the latest end of a lease closed (0: none) */
    /* for the reports (ledger_fold_report.c): known from genesis, or not
     * (a fold restored from a checkpoint that did not carry them) */
    bool usage_known;
    jt_map_t *usage;            /* "owner\x1fenvelope" -> struct usage */
    int64_t resv_closed_until;  /* the latest close of a reservation (0: none) */
    int64_t first_start;        /* the earliest start of a lease (-1: none) */
    int64_t last_time;
    bool caps_pinned;
    struct env **env_v;         /* by number */
    size_t nenv, envcap;
    jt_fold_times_t *times;     /* lease time (verify), or NULL */
    /* the BudgetLoaded events applied (jt_ledger_fold_budgets) */
    uint64_t loads, loads_no_content, first_no_content, last_load_seq;
    char last_sha256[65];
    jt_ev_file_t *last_files;
    size_t last_nfiles;
};

/* A lease as Start ev at seq makes it (open: end -1). NULL on ENOMEM. */
struct lease *jt_fold_lease_new (const jt_event_t *ev, uint64_t seq);
void jt_fold_lease_free (void *p);
void jt_fold_resv_free (void *p);
/* GPU-seconds envelope e has used by instant t (closed leases, and open
 * ones from their starts). */
double jt_fold_env_used_s (const struct env *e, int64_t t);
/* The envelope of that name, made (numbered next) when new. NULL on ENOMEM. */
struct env *jt_fold_env_get (jt_ledger_fold_t *f, const char *name);
/* A BudgetLoaded's caps in force from now on (every other envelope
 * uncapped). 0, or -1 on ENOMEM. */
int jt_fold_load_caps (jt_ledger_fold_t *f, const jt_event_t *ev);

/* The reports' side of the fold (ledger_fold_report.c): history rows
 * (kept on request), live reservations, usage per owner and envelope. */
int jt_fold_history_apply (jt_ledger_fold_t *f, uint64_t seq, const jt_event_t *ev);
int jt_fold_resv_apply (jt_ledger_fold_t *f, const jt_event_t *ev);
/* A lease opened (l) or closed at end: its group's usage. 0, or -1 on ENOMEM. */
int jt_fold_usage_start (jt_ledger_fold_t *f, const struct lease *l);
int jt_fold_usage_end (jt_ledger_fold_t *f, const struct lease *l, int64_t end);
/* The group of owner and envelope, made when new. NULL on ENOMEM. */
struct usage *jt_fold_usage_get (jt_ledger_fold_t *f, const char *owner,
                                 const char *envelope);
/* ... or NULL when it has none (or on ENOMEM). */
struct usage *jt_fold_usage_find (const jt_ledger_fold_t *f, const char *owner,
                                  const char *envelope);
void jt_fold_usage_free (void *p);

/* Mark the open leases Activation ev cut (ledger_fold_activation.c; one
 * pass over the open leases). 0, or -1 on ENOMEM. */
int jt_fold_mark_cuts (jt_ledger_fold_t *f, const jt_event_t *ev);

/* Apply one record's payload (jt_ledger_fold_apply with the record's seq).
 * A payload that is not a valid event, or with canonical not in canonical
 * form, is a violation (JT_VIOL_BAD_EVENT) and is not applied. *v is reset
 * first. 0, 1 with *v filled, or -1 on ENOMEM (err). */
int jt_ledger_fold_apply_record (jt_ledger_fold_t *f, const jt_record_t *rec,
                                 bool canonical, jt_violation_t *v, jt_error_t *err);
/* A hint that rec, parsed ahead, is among the next records to be applied:
 * what its apply will look up first is fetched into the cache now (the id
 * set's slot of its id). Changes nothing; a no-op when rec was not parsed
 * ahead. */
void jt_ledger_fold_ahead (const jt_ledger_fold_t *f, const jt_record_t *rec);

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
