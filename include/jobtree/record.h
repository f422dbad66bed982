/*
 * jobtree/record.h - the Jobtree record a job carries in its admin_comment.
 *
 * One line, written by the job_submit plugin at submission:
 *
 *   jobtree/1 {"run":RUN,"funding":[SEG,...],"fundedGPUs":N,
 *              "borrowedGPUs":M,"reason":"OK"}
 *
 * RUN is jt_run_to_json's canonical run; each SEG is
 *   {"envelope":"west-h100","owner":"rai","source":"owner",
 *    "firstGroup":0,"groups":2,"gpus":64}
 * the funding Cover intends with no other usage (the select plugin decides
 * again against live usage when the job starts). reason is jt_reason_str of
 * the cover at submission ("OK" when every group was funded).
 *
 * When the job starts, the select plugin adds the funding it actually bound
 * as the object's "bound" member (jt_jobrec_bind):
 *
 *   "bound": { "time": "2026-03-01T12:00:00Z",
 *              "leases": [ { "group": 0, "envelope": "west-h100",
 *                            "role": "Active", "gpus": 64,
 *                            "nodes": ["a01", ...], "spares": [...],
 *                            "conformance": "3f9a0c2e1b7d4a65" } ] }
 *
 * After a node failure the select plugin may swap a spare in
 * (jobtree/spares.h, jt_jobrec_rebind): the spare takes the failed node's
 * place in "nodes", leaves "spares", and the lease gains
 *   "swaps": [ { "failed": "a03", "spare": "a05", "time": "..." } ]
 * (at most JT_JOBREC_MAX_NODES).
 *
 * so the funding shows in `scontrol show job`, survives a slurmctld restart
 * (job state is saved with it) and live usage and lease events are derived
 * from it. A bare run object after the tag (an older form) is also read.
 *
 * The tag "jobtree/1 " changes only with an incompatible format.
 * admin_comment is settable by administrators only, so users cannot forge
 * the record. Format and parse live here once: job_submit, the select
 * plugin and `jobtree snapshot` all use this module.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_RECORD_H
#define JOBTREE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cover.h"
#include "error.h"
#include "plan.h"
#include "run.h"
#include "snapshot.h"

#define JT_JOBREC_TAG "jobtree/1 "

/* Bounds on what a record may claim (it is read inside slurmctld). */
#define JT_JOBREC_MAX_LEN     (1 << 20)    /* bytes of admin_comment */
#define JT_JOBREC_MAX_LEASES  4096
#define JT_JOBREC_MAX_NODES   65536        /* per lease */

/* One segment of the funding intended at submission. */
typedef struct jt_jobrec_seg {
    char *envelope;
    char *owner;
    char *source;               /* jt_source_str */
    int64_t first_group;
    int64_t groups;
    int64_t gpus;
} jt_jobrec_seg_t;

/* A spare that replaced a failed node of its group (jobtree/spares.h):
 * "swaps": [{"failed":"a03","spare":"a05","time":"..."}] in the lease. */
typedef struct jt_jobrec_swap {
    char *failed;
    char *spare;
    int64_t time;
} jt_jobrec_swap_t;

/* One lease bound when the job started: a group (or its spares). */
typedef struct jt_jobrec_lease {
    char *envelope;             /* who pays */
    int group;
    int64_t gpus;
    jt_role_t role;
    char **nodes;
    size_t nnodes;
    char **spares;              /* spare nodes of the group (may be none) */
    size_t nspares;
    jt_jobrec_swap_t *swaps;    /* spares swapped in since the start, in
                                 * order (nodes[] already names the spare) */
    size_t nswaps;
    char *conformance;          /* the conformance fingerprint its nodes
                                 * share, or "mixed"; NULL: none (optional
                                 * "conformance" member) */
} jt_jobrec_lease_t;

typedef struct jt_jobrec {
    jt_run_t *run;
    jt_jobrec_seg_t *segs;      /* funding at submission (may be none) */
    size_t nsegs;
    int64_t funded_gpus;
    int64_t borrowed_gpus;
    char reason[64];            /* "" when the record has none */
    jt_jobrec_lease_t *bound;   /* funding bound when the job started */
    size_t nbound;
    int64_t bound_time;         /* 0 when not bound */
} jt_jobrec_t;

/* The record text for run r and cover c (c may be NULL: no funding yet,
 * reason "OK"). Returns a malloc'd string or NULL on ENOMEM. */
char *jt_jobrec_format (const jt_run_t *r, const jt_cover_t *c);

/* True iff text (an admin_comment, may be NULL) starts with the tag. */
bool jt_jobrec_is (const char *text);

/* Parse a record. Returns 0, or -1 with err saying what is wrong (out is
 * then empty). Free with jt_jobrec_free (accepts an empty or NULL rec). */
int jt_jobrec_parse (const char *text, jt_jobrec_t *out, jt_error_t *err);
void jt_jobrec_free (jt_jobrec_t *rec);

/* The record text with `plan`'s groups as its "bound" member at time now
 * (node names from s), everything else kept as it was. Returns a malloc'd
 * string, or NULL with err set (text is not a record, or ENOMEM). */
char *jt_jobrec_bind (const char *text, const jt_plan_t *plan,
                      const jt_snapshot_t *s, int64_t now, jt_error_t *err);

/* The record text with its "bound" leases replaced by leases[0..n) (their
 * nodes, spares and swaps; "time" kept), everything else kept as it was.
 * Returns a malloc'd string, or NULL with err set. */
char *jt_jobrec_rebind (const char *text, const jt_jobrec_lease_t *leases,
                        size_t n, jt_error_t *err);

#endif /* JOBTREE_RECORD_H */
