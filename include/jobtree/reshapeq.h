/*
 * jobtree/reshapeq.h - the queue of changes to running jobs that the
 * select plugin sends to slurmctld after the job lock is released
 * (plugins/select/reshape.c's worker): shrink a job to a node list, signal
 * it (its layout changed), requeue it (a gang that lost a group with no
 * spare left, a lottery's victim, a run growing at its checkpoint).
 *
 * Never half a gang (seed 003): a requeue is never refused for lack of
 * room. Shrinks and signals share a ring of `cap` slots and are refused
 * when it is full (the activation that wanted them is not made and is
 * tried again on a later pass; a signal only repeats what the layout file
 * already says). Requeues are a set apart, one per job (a second request
 * for the same job merges into the first: "or cancel" if either asked),
 * so they are bounded by the number of jobs, not by the ring; they are
 * sent before anything in the ring, and pushing one drops the ring's
 * shrinks and signals of that job (a shrink sent to a requeued, pending
 * job would pin its next placement to those nodes).
 *
 * Not thread-safe: the caller holds its lock around every call.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_RESHAPEQ_H
#define JOBTREE_RESHAPEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jt_rq_kind {
    JT_RQ_SHRINK = 0,           /* keep only the nodes in `keep` */
    JT_RQ_SIGNAL,               /* send signal `sig` */
    JT_RQ_REQUEUE,              /* requeue the whole job */
} jt_rq_kind_t;

typedef struct jt_rq_item {
    uint32_t job_id;
    jt_rq_kind_t kind;
    char *keep;                 /* SHRINK: node list (owned by the queue
                                 * while queued, by the caller after pop) */
    int sig;                    /* SIGNAL */
    bool or_cancel;             /* REQUEUE: cancel it if the requeue is
                                 * refused (--no-requeue), never half a gang */
} jt_rq_item_t;

typedef struct jt_rq jt_rq_t;

/* A queue whose ring holds cap (1..65536) shrinks and signals; NULL on
 * ENOMEM or a cap out of range. */
jt_rq_t *jt_rq_create (size_t cap);
void jt_rq_destroy (jt_rq_t *q);    /* frees what is still queued */

/* Queue a copy of *it (keep is copied). Returns 0 (queued), 1 (a requeue
 * merged into the job's queued one), or -1: a shrink or signal with the
 * ring full, a requeue only on ENOMEM, or an invalid kind. */
int jt_rq_push (jt_rq_t *q, const jt_rq_item_t *it);

/* Take the next item into *out (requeues first, in the order first
 * pushed; then the ring in order). False when empty. The caller frees
 * out->keep with free(). */
bool jt_rq_pop (jt_rq_t *q, jt_rq_item_t *out);

size_t jt_rq_room (const jt_rq_t *q);       /* free ring slots */
size_t jt_rq_requeues (const jt_rq_t *q);   /* requeues waiting */

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_RESHAPEQ_H */
