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

typedef struct jt_fold_times jt_fold_times_t;

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
};

struct resv {
    char *id, *run, *owner, *envelope;
    int64_t gpus, earliest, created, activated, released;
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
    jt_map_t *ids;    /* event id -> seq; NULL once ids are forgotten */
    jt_map_t *leases; /* lease id -> struct lease */
    jt_map_t *nodes;  /* node -> struct lease */
    jt_map_t *envs;   /* name -> struct env */
    jt_map_t *hist;   /* history (NULL: not kept): lease id -> struct lease */
    jt_map_t *resv;   /* history: reservation id -> struct resv */
    jt_map_t *oresv;  /* live: run -> its open reservation (struct resv) */
    uint64_t events, starts, ends, lotteries;
    int64_t closed_until;       /* the latest end of a lease closed (0: none) */
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

void jt_fold_lease_free (void *p);
void jt_fold_resv_free (void *p);
/* The envelope of that name, made (numbered next) when new. NULL on ENOMEM. */
struct env *jt_fold_env_get (jt_ledger_fold_t *f, const char *name);
/* A BudgetLoaded's caps in force from now on (every other envelope
 * uncapped). 0, or -1 on ENOMEM. */
int jt_fold_load_caps (jt_ledger_fold_t *f, const jt_event_t *ev);

/* Keep history from now on in a fold restored from a checkpoint
 * (ledger_checkpoint.c): its open leases become history rows. 0, or -1
 * with err (ENOMEM). */
int jt_ckpt_keep_history (jt_ledger_fold_t *f, jt_error_t *err);

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
};

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

/* Grow *v (of *cap elements of size sz, doubling from 16) to hold n.
 * 0, or -1 (ENOMEM; *v and *cap unchanged). */
int jt_fold_grow (void **v, size_t *cap, size_t n, size_t sz);

/* Concurrency and GPU-hours of t's intervals (their env numbers index
 * names, n of them) against the caps of t's epochs in force at each instant
 * (ledger_fold_time.c's sweep), into *best. 0, or -1 with errno ENOMEM. */
int jt_fold_times_sweep (const jt_fold_times_t *t, const char *const *names, size_t n,
                         int64_t horizon, uint64_t last_seq, const jt_fold_sweep_t *k,
                         jt_violation_t *best);

/* Cover's rules on t's leases (ledger_fold_rules.c): payer and role at each
 * lease's start against the budget content in force then, aggregate and
 * lending caps at every instant; into *best. Counts the leases checked and
 * those that started under budgets with no recorded content in t. 0, or -1
 * with errno ENOMEM. */
int jt_fold_rules_check (jt_fold_times_t *t, const char *const *envnames, size_t nenv,
                         int64_t horizon, uint64_t last_seq, jt_violation_t *best);

void jt_fold_times_free (jt_fold_times_t *t);

/* The invariants at every instant on the leases' intervals (see the file):
 * 0, 1 with the violation of smallest seq in *v (unless *v holds one
 * already), or -1 with errno ENOMEM. names[e] names envelope e; horizon is
 * the ledger's last instant (raised to every lease start and end); last_seq
 * is blamed for what only the last instant shows. */
int jt_fold_times_check (jt_fold_times_t *t, const char *const *names,
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
