/*
 * reshapeq.c - the select plugin's queue of changes to running jobs:
 * shrinks and signals in a bounded ring, requeues in a set apart that is
 * never full (jobtree/reshapeq.h).
 *
 * DESIGN: the ring is a fixed array; a slot whose job was requeued is
 * marked dead (job_id 0 is never a Slurm job) and skipped by pop, so a
 * push costs at most one pass over the ring. Requeues are an array in
 * push order, grown by doubling; a push looks for the job first (linear
 * in the requeues waiting, which the worker drains first).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jobtree/reshapeq.h"

#define CAP_MAX 65536

struct jt_rq {
    jt_rq_item_t *ring;
    size_t cap, head, len;      /* len counts dead slots too */
    size_t live;                /* live slots in the ring */
    jt_rq_item_t *req;          /* requeues, in push order */
    size_t nreq, req_alloc;
};

jt_rq_t *jt_rq_create (size_t cap)
{
    jt_rq_t *q;

    if (cap < 1 || cap > CAP_MAX || !(q = calloc (1, sizeof (*q))))
        return NULL;
    if (!(q->ring = calloc (cap, sizeof (*q->ring)))) {
        free (q);
        return NULL;
    }
    q->cap = cap;
    return q;
}

void jt_rq_destroy (jt_rq_t *q)
{
    if (!q)
        return;
    for (size_t i = 0; i < q->len; i++)
        free (q->ring[(q->head + i) % q->cap].keep);
    free (q->ring);
    free (q->req);
    free (q);
}

static int push_requeue (jt_rq_t *q, const jt_rq_item_t *it)
{
    for (size_t i = 0; i < q->nreq; i++)
        if (q->req[i].job_id == it->job_id) {
            q->req[i].or_cancel |= it->or_cancel;
            return 1;
        }
    if (q->nreq == q->req_alloc) {
        size_t n = q->req_alloc ? 2 * q->req_alloc : 16;
        jt_rq_item_t *v = n > SIZE_MAX / sizeof (*v) ? NULL
                          : realloc (q->req, n * sizeof (*v));
        if (!v)
            return -1;
        q->req = v;
        q->req_alloc = n;
    }
    q->req[q->nreq++] = (jt_rq_item_t){ .job_id = it->job_id, .kind = JT_RQ_REQUEUE,
                                        .or_cancel = it->or_cancel };
    /* the job's shrinks and signals still queued are void now */
    for (size_t i = 0; i < q->len; i++) {
        jt_rq_item_t *x = &q->ring[(q->head + i) % q->cap];
        if (x->job_id == it->job_id) {
            free (x->keep);
            x->keep = NULL;
            x->job_id = 0;
            q->live--;
        }
    }
    return 0;
}

int jt_rq_push (jt_rq_t *q, const jt_rq_item_t *it)
{
    char *keep = NULL;

    if (!q || !it || it->job_id == 0)
        return -1;
    if (it->kind == JT_RQ_REQUEUE)
        return push_requeue (q, it);
    if ((it->kind != JT_RQ_SHRINK && it->kind != JT_RQ_SIGNAL)
        || (it->kind == JT_RQ_SHRINK && !it->keep))
        return -1;
    /* drop dead slots at the head so the ring's room is its live count's */
    while (q->len && q->ring[q->head].job_id == 0) {
        q->head = (q->head + 1) % q->cap;
        q->len--;
    }
    if (q->len == q->cap) {     /* dead slots inside: compact in place
                                 * (slot w <= i was read already) */
        size_t w = 0;
        for (size_t i = 0; i < q->len; i++) {
            jt_rq_item_t *x = &q->ring[(q->head + i) % q->cap];
            if (x->job_id)
                q->ring[(q->head + w++) % q->cap] = *x;
        }
        q->len = w;
        if (q->len == q->cap)
            return -1;
    }
    if (it->kind == JT_RQ_SHRINK && !(keep = strdup (it->keep)))
        return -1;
    q->ring[(q->head + q->len) % q->cap] = (jt_rq_item_t){ .job_id = it->job_id,
        .kind = it->kind, .keep = keep, .sig = it->sig };
    q->len++;
    q->live++;
    return 0;
}

bool jt_rq_pop (jt_rq_t *q, jt_rq_item_t *out)
{
    if (!q)
        return false;
    if (q->nreq) {
        *out = q->req[0];
        memmove (q->req, q->req + 1, (q->nreq - 1) * sizeof (*q->req));
        q->nreq--;
        return true;
    }
    while (q->len) {
        jt_rq_item_t x = q->ring[q->head];
        q->head = (q->head + 1) % q->cap;
        q->len--;
        if (!x.job_id)
            continue;
        q->live--;
        *out = x;
        return true;
    }
    return false;
}

size_t jt_rq_room (const jt_rq_t *q)
{
    return q ? q->cap - q->live : 0;
}

size_t jt_rq_requeues (const jt_rq_t *q)
{
    return q ? q->nreq : 0;
}
