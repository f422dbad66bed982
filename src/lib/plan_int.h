/*
 * plan_int.h - what admission's two files share (plan.c: the totals, the
 * domains, the decision; plan_attempt.c: one attempt). Private to
 * libjobtree.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_PLAN_INT_H
#define JT_PLAN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "jobtree/plan.h"
#include "pack_view.h"

/* What one attempt (one total, one domain restriction) produced. */
typedef struct attempt {
    jt_plan_group_t *groups;
    size_t ngroups;
    jt_cover_seg_t *segs;
    size_t nsegs;
    jt_placement_t *pl;         /* placements made on the view, for undo */
    size_t npl;
    bool unplaced;              /* failed on placement (funding was there) */
    bool spare_short;           /* its payers fund a group, not its spares */
    int64_t placed;             /* a soft group that failed: GPUs its payers
                                   placed (in the domain or class tried) */
    jt_reason_t reason;
    char detail[JT_ERRMSG_MAX];
} attempt_t;

typedef struct ctx {
    const jt_budgets_t *b;
    const jt_snapshot_t *s;
    const jt_usage_t *u;
    const jt_run_t *r;
    int64_t now;
    jt_pack_policy_t policy;
    jt_pack_view_t *view;
    int64_t gpn;                /* the flavor's GPUs per node (0 unknown) */
    bool flat;                  /* jt_plan_opts_t.flat */
    const unsigned char *prefer;    /* jt_plan_opts_t.prefer */
} ctx_t;

/* plan_attempt.c: a plan group's arrays freed; an attempt emptied; one
 * attempt at total g (only_domain >= 0: Pack restricted to it). */
void jt_plan_group_clear (jt_plan_group_t *g);
void jt_plan_attempt_clear (attempt_t *a);
int jt_plan_attempt_run (ctx_t *x, const jt_groups_t *g, ssize_t only_domain, attempt_t *a, jt_error_t *err);

#endif /* JT_PLAN_INT_H */
