/*
 * cover_int.h - what cover.c shares with cover_why.c (not installed): the
 * coverer session and the bounds of one candidate.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_COVER_INT_H
#define JT_COVER_INT_H

#include "jobtree/cover.h"

#define ROOM_INF INT64_MAX

struct jt_coverer {
    const jt_budgets_t *b;
    const jt_usage_t *u;        /* may be NULL: no usage */
    const jt_run_t *r;
    int64_t now;
    double hpg;                 /* GPU-hours charged per GPU */
    bool has_budget;
    jt_cover_cand_t *cand;      /* the candidates, in Cover's order */
    size_t ncand;
    jt_cover_cand_t *shadow;    /* lenders, when the run may not borrow */
    size_t nshadow;
    int64_t *charged;           /* per envelope id, this session */
    int64_t borrowed;           /* GPUs charged to sponsors */
    int64_t funded;             /* GPUs charged, every envelope */
    int64_t need;               /* last demand that could not be funded */
    int64_t demand;             /* the run's total (0: funded + need) */
};

/* Which bound gives a candidate's headroom. */
enum bound_kind {
    B_NONE = 0, B_WINDOW, B_CONC, B_HOURS, B_CAP_CONC, B_CAP_HOURS,
    B_LEND_CONC, B_LEND_HOURS, B_BORROW,
};

typedef struct room {
    int64_t gpus;               /* headroom, >= 0 */
    enum bound_kind kind;       /* the bound giving the minimum */
    const jt_aggcap_t *cap;     /* for B_CAP_* */
    double used, limit;         /* numbers for the detail line */
} room_t;

/* Every bound of candidate cd given usage and the session's charges; the
 * borrow limit applies only when `borrowing` (not to the shadow list). */
room_t jt_cover_room (const jt_coverer_t *c, const jt_cover_cand_t *cd,
                      bool borrowing);

/* Only candidate cd's own bounds (window, concurrency, GPU-hours): what
 * it could fund were no aggregate cap, lending cap or borrow limit in the
 * way. */
room_t jt_cover_room_own (const jt_coverer_t *c, const jt_cover_cand_t *cd);

/* The reason name of a bound. */
jt_reason_t jt_cover_kind_reason (enum bound_kind k);

bool jt_cover_flavor_is (const jt_envelope_t *e, const char *flavor);

#endif /* JT_COVER_INT_H */
