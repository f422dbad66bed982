/*
 * schedule_int.h - what the scheduler's files share (schedule_base.c: the
 * steps below them all; schedule.c: the answer in three tenses; schedule_funding.c: when funding frees, funding
 * holds; schedule_decide.c: the decision over time; schedule_restart.c: a
 * requeued run's restart). Private to libjobtree.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_SCHEDULE_INT_H
#define JT_SCHEDULE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobtree/cover.h"
#include "jobtree/schedule.h"

/* A node's live values, kept while a tense's view replaces them. */
typedef struct node_live {
    int used_gpus;
    jt_node_state_t state;
} node_live_t;

/* Placement by time: when each node is free, and scratch for the view. */
typedef struct room {
    const int64_t *free_at;     /* per node: when it is free (INT64_MAX never) */
    node_live_t *keep;          /* scratch for the view, one per node */
} room_t;

/* ---- schedule_base.c ---- */

/* Set the answer's kind and reason (printf-style). */
void jt_sched_say (jt_answer_t *a, jt_answer_kind_t kind, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
/* Refusals of placement, of funding. */
bool jt_sched_is_pack_reason (jt_reason_t r);
bool jt_sched_is_funding_reason (jt_reason_t r);
/* max_nodes says no upper bound. */
bool jt_sched_no_bound (uint32_t max_nodes);
/* A malleable run's range clamped to the caller's node range. */
void jt_sched_clamp_malleable (jt_run_t *run, const jt_snapshot_t *s, uint32_t min_nodes, uint32_t max_nodes);
/* Put back the live values a tense's view replaced. */
void jt_sched_view_restore (jt_snapshot_t *s, const node_live_t *keep);
/* The bound plan's nodes into a->bind (at most max_nodes). 0, or -1. */
int jt_sched_bind_nodes (jt_answer_t *a, size_t nnodes, uint32_t max_nodes, bool *seen, jt_error_t *err);
/* The usage a tense counts at `at`. 0, or -1 with err. */
int jt_sched_tense_usage (const jt_sched_request_t *req, int64_t at, jt_usage_t *u, jt_error_t *err);

/* ---- schedule_funding.c ---- */

/* The first envelope paying plan p. */
const jt_envelope_t *jt_sched_first_payer (const jt_plan_t *p);
/* Whether the run is funded at t (see schedule_funding.c). 1, 0, -1. */
int jt_sched_funded_at (const jt_sched_request_t *req, const jt_run_t *run, int64_t t, const room_t *room, jt_plan_t *keep, jt_error_t *err);
/* The earliest instant the run is funded (*when). 0, or -1 with err. */
int jt_sched_funding_time (const jt_sched_request_t *req, const jt_run_t *run, const room_t *room, int64_t *when, jt_error_t *err);
/* Whether the run is funded once the leases of unknown end have ended
 * (*when; see schedule_funding.c). 1, 0 (never by waiting), -1. */
int jt_sched_funded_unknown (const jt_sched_request_t *req, const jt_run_t *run, const room_t *room, int64_t *when, jt_plan_t *keep, jt_error_t *err);
/* What a wait on leases of unknown end is told (jobtree plan's detail,
 * slurmctld's reason line): one text. */
#define JT_SCHED_UNKNOWN_ENDS \
    "start unknown: funded when running leases end; their ends are not known"
/* Whether funding holds of runs reserved ahead keep the run back now
 * (*out set). 1 held back, 0 not, -1 with err. */
int jt_sched_held_back (const jt_sched_request_t *req, const jt_run_t *run, jt_answer_t *out, jt_error_t *err);

/* ---- schedule_decide.c ---- */

/* Each node's free time from now (its leases' ends) into free_at. 0, or -1. */
int jt_sched_node_free_times (const jt_snapshot_t *s, int64_t now, int64_t *free_at, jt_error_t *err);

#endif /* JT_SCHEDULE_INT_H */
