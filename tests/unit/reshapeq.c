/*
 * reshapeq.c - unit tests of the select plugin's queue of changes to
 * running jobs (jobtree/reshapeq.h): never half a gang, because a requeue
 * is never refused for lack of room, whatever the ring holds; requeues go
 * first, one per job, and void the job's queued shrinks and signals;
 * shrinks and signals are refused when the ring is full.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/reshapeq.h"
#include "tap.h"

static jt_rq_item_t shrink (uint32_t job, const char *keep)
{
    return (jt_rq_item_t){ .job_id = job, .kind = JT_RQ_SHRINK, .keep = (char *) keep };
}

static jt_rq_item_t sig (uint32_t job)
{
    return (jt_rq_item_t){ .job_id = job, .kind = JT_RQ_SIGNAL, .sig = 28 };
}

static jt_rq_item_t requeue (uint32_t job, bool or_cancel)
{
    return (jt_rq_item_t){ .job_id = job, .kind = JT_RQ_REQUEUE, .or_cancel = or_cancel };
}

/* Everything left, popped, as "R5c S6:a01 G7" (R requeue, c or cancel, S
 * shrink, G signal). */
static const char *drain (jt_rq_t *q)
{
    static char buf[4096];
    jt_rq_item_t it;
    size_t l = 0;

    buf[0] = '\0';
    while (jt_rq_pop (q, &it) && l < sizeof (buf)) {
        int w = snprintf (buf + l, sizeof (buf) - l, "%s%c%u%s%s%s", l ? " " : "",
                          it.kind == JT_RQ_REQUEUE ? 'R' : it.kind == JT_RQ_SHRINK ? 'S'
                          : 'G', it.job_id, it.or_cancel ? "c" : "", it.keep ? ":" : "",
                          it.keep ? it.keep : "");
        free (it.keep);
        l = w < 0 ? sizeof (buf) : l + (size_t) w;
    }
    return buf;
}

static void test_full_ring (void)
{
    jt_rq_t *q = jt_rq_create (4);
    jt_rq_item_t it;

    for (uint32_t j = 1; j <= 4; j++) {
        it = shrink (j, "a01");
        is_int (jt_rq_push (q, &it), 0, "shrink of job %u queued", j);
    }
    is_int (jt_rq_room (q), 0, "the ring is full");
    it = shrink (9, "a01");
    is_int (jt_rq_push (q, &it), -1, "a fifth shrink is refused");
    it = sig (9);
    is_int (jt_rq_push (q, &it), -1, "a signal is refused");
    it = requeue (10, true);
    is_int (jt_rq_push (q, &it), 0, "a requeue is queued although the ring is full");
    it = requeue (10, false);
    is_int (jt_rq_push (q, &it), 1, "a second requeue of job 10 merges");
    it = requeue (11, false);
    is_int (jt_rq_push (q, &it), 0, "a requeue of job 11 too");
    it = requeue (11, true);
    is_int (jt_rq_push (q, &it), 1, "job 11 asked again, with or-cancel: merged");
    is_int (jt_rq_requeues (q), 2, "two requeues waiting");
    is (drain (q), "R10c R11c S1:a01 S2:a01 S3:a01 S4:a01",
        "requeues first in push order, or-cancel kept; then the ring in order");
    jt_rq_destroy (q);
}

static void test_many_requeues (void)
{
    jt_rq_t *q = jt_rq_create (256);
    jt_rq_item_t it;
    size_t refused = 0, popped = 0;
    uint32_t prev = 0;
    bool ordered = true;

    for (uint32_t j = 1; j <= 256; j++) {
        it = sig (100000 + j);
        refused += jt_rq_push (q, &it) != 0;
    }
    for (uint32_t j = 1; j <= 5000; j++) {
        it = requeue (j, j % 2);
        refused += jt_rq_push (q, &it) != 0;
    }
    is_int (refused, 0, "256 signals fill the ring; 5000 requeues beside them: none "
            "refused");
    while (jt_rq_pop (q, &it) && it.kind == JT_RQ_REQUEUE) {
        ordered &= it.job_id == prev + 1 && it.or_cancel == (it.job_id % 2);
        prev = it.job_id;
        popped++;
    }
    is_int (popped, 5000, "all 5000 requeues come out before the ring");
    ok (ordered, "in push order, each with its or-cancel");
    jt_rq_destroy (q);
}

static void test_requeue_voids (void)
{
    jt_rq_t *q = jt_rq_create (3);
    jt_rq_item_t it;

    it = shrink (5, "a01,a02");
    jt_rq_push (q, &it);
    it = sig (5);
    jt_rq_push (q, &it);
    it = shrink (6, "b01");
    jt_rq_push (q, &it);
    is_int (jt_rq_room (q), 0, "ring full");
    it = requeue (5, false);
    is_int (jt_rq_push (q, &it), 0, "requeue of job 5");
    is_int (jt_rq_room (q), 2, "its shrink and signal are void: two slots free");
    it = shrink (7, "c01");
    is_int (jt_rq_push (q, &it), 0, "a shrink fits again (the dead slots are reused)");
    it = sig (8);
    is_int (jt_rq_push (q, &it), 0, "and a signal");
    it = sig (9);
    is_int (jt_rq_push (q, &it), -1, "then the ring is full again");
    is (drain (q), "R5 S6:b01 S7:c01 G8",
        "job 5 is requeued and never shrunk nor signalled after");
    is (drain (q), "", "empty");
    jt_rq_destroy (q);
}

static void test_invalid (void)
{
    jt_rq_t *q = jt_rq_create (2);
    jt_rq_item_t it = shrink (0, "a01");

    is_int (jt_rq_push (q, &it), -1, "job 0 refused");
    it = shrink (3, NULL);
    is_int (jt_rq_push (q, &it), -1, "a shrink without nodes refused");
    it = (jt_rq_item_t){ .job_id = 3, .kind = (jt_rq_kind_t) 7 };
    is_int (jt_rq_push (q, &it), -1, "an unknown kind refused");
    is_int (jt_rq_room (q), 2, "nothing was queued");
    ok (jt_rq_create (0) == NULL && jt_rq_create (65537) == NULL,
        "cap 0 and cap 65537 refused");
    it = shrink (4, "a01");
    jt_rq_push (q, &it);
    jt_rq_destroy (q);  /* frees the queued copy (ASan checks) */
    jt_rq_destroy (NULL);
    ok (1, "destroy frees what is queued; destroy (NULL) is a no-op");
}

int main (void)
{
    test_full_ring ();
    test_many_requeues ();
    test_requeue_voids ();
    test_invalid ();
    done_testing ();
}
