/*
 * reshape.c - changes an activation makes to running jobs, off the
 * scheduling path: shrink a job to a node list (a malleable run giving up
 * whole groups) or requeue it (a gang the lottery took, when the same
 * activation also shrinks, so the preemptee list cannot carry it); and,
 * for a run with spares (jobtree/spares.h), requeue it when a group has no
 * spare left, or signal it when a spare was swapped in.
 *
 * Why a thread: job_test runs under slurmctld's job write lock, and
 * changing another job goes through the same update path as `scontrol
 * update JobId=X NodeList=...` (job_mgr.c's _update_job: req_nodes on a
 * running job, a subset of its nodes, never without its batch host) and
 * `scontrol requeue`, which take that lock. So job_test only queues the
 * request; one worker sends each as an RPC to slurmctld itself (as
 * SlurmUser, like scontrol run by an admin), after the lock is released.
 * Shrinks and signals wait in a bounded ring (full: refused, the
 * activation is not made and is tried again on a later pass); requeues
 * are never refused for room and go first (jobtree/reshapeq.h: never half
 * a gang, whatever the ring holds); each request is idempotent (the
 * node list is the one to keep; a requeued job is pending). The run the
 * activation was for binds on a later pass, once the nodes are free.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "slurm/slurm.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "jobtree/reshapeq.h"

#include "select_jobtree.h"

#define WHO "select/cons_tres_jobtree"
#define QMAX 256                /* shrinks and signals waiting at once;
                                 * requeues are never refused for room
                                 * (jobtree/reshapeq.h: never half a gang) */

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;
static jt_rq_t *q;
static bool q_started, q_stop;
static pthread_t q_thread;

static void send_one (const jt_rq_item_t *it)
{
    int rc;

    if (it->kind == JT_RQ_SIGNAL) {
        if (slurm_kill_job (it->job_id, (uint16_t) it->sig, KILL_FULL_JOB) != SLURM_SUCCESS)
            error ("%s: JobId=%u: signal %d (layout changed) failed: %s", WHO,
                   it->job_id, it->sig, slurm_strerror (errno));
        else
            debug ("%s: JobId=%u: signalled %d (layout changed)", WHO, it->job_id,
                   it->sig);
        return;
    }
    if (it->kind == JT_RQ_SHRINK) {
        job_desc_msg_t msg;

        slurm_init_job_desc_msg (&msg);
        JTC_JOB_DESC_ID (&msg) = it->job_id;
        msg.req_nodes = it->keep;
        rc = slurm_update_job (&msg);
    } else
        rc = slurm_requeue (it->job_id, 0);
    if (rc != SLURM_SUCCESS && !it->keep && it->or_cancel) {
        error ("%s: JobId=%u: requeue refused (%s): cancelling it, its group "
               "has no spare left", WHO, it->job_id, slurm_strerror (errno));
        if ((rc = slurm_kill_job (it->job_id, SIGKILL, 0)) == SLURM_SUCCESS)
            return;
    }
    if (rc != SLURM_SUCCESS)
        error ("%s: JobId=%u: %s %s failed: %s", WHO, it->job_id,
               it->keep ? "shrink to" : "requeue", it->keep ? it->keep : "",
               slurm_strerror (errno));
    else
        info ("%s: JobId=%u: %s%s", WHO, it->job_id,
              it->keep ? "shrunk to " : "requeued", it->keep ? it->keep : "");
}

static void *worker (void *arg)
{
    (void) arg;
    slurm_mutex_lock (&q_lock);
    for (;;) {
        jt_rq_item_t it;
        while (!q_stop && !jt_rq_pop (q, &it))
            slurm_cond_wait (&q_cond, &q_lock);
        if (q_stop)
            break;
        slurm_mutex_unlock (&q_lock);
        send_one (&it);
        free (it.keep);
        slurm_mutex_lock (&q_lock);
    }
    slurm_mutex_unlock (&q_lock);
    return NULL;
}

static int enqueue (uint32_t job_id, const char *keep, int sig, bool or_cancel);

int jtsel_reshape_queue (uint32_t job_id, const char *keep)
{
    return enqueue (job_id, keep, 0, false);
}

int jtsel_reshape_signal (uint32_t job_id, int sig)
{
    return enqueue (job_id, NULL, sig, false);
}

int jtsel_reshape_requeue_or_cancel (uint32_t job_id)
{
    return enqueue (job_id, NULL, 0, true);
}

static int enqueue (uint32_t job_id, const char *keep, int sig, bool or_cancel)
{
    jt_rq_item_t it = { .job_id = job_id, .keep = (char *) keep, .sig = sig,
                        .or_cancel = or_cancel,
                        .kind = sig > 0 ? JT_RQ_SIGNAL : keep ? JT_RQ_SHRINK
                                : JT_RQ_REQUEUE };
    int rc = 0;

    slurm_mutex_lock (&q_lock);
    if (q_stop || (!q && !(q = jt_rq_create (QMAX))))
        rc = -1;
    else if (!q_started) {
        if (pthread_create (&q_thread, NULL, worker, NULL) != 0)
            rc = -1;
        else
            q_started = true;
    }
    if (rc == 0 && jt_rq_push (q, &it) < 0)
        rc = -1;
    if (rc == 0)
        slurm_cond_signal (&q_cond);
    slurm_mutex_unlock (&q_lock);
    return rc;
}

size_t jtsel_reshape_room (void)
{
    size_t n;

    slurm_mutex_lock (&q_lock);
    n = q_stop ? 0 : q ? jt_rq_room (q) : QMAX;
    slurm_mutex_unlock (&q_lock);
    return n;
}

void jtsel_reshape_fini (void)
{
    bool join;

    slurm_mutex_lock (&q_lock);
    q_stop = true;
    join = q_started;
    slurm_cond_signal (&q_cond);
    slurm_mutex_unlock (&q_lock);
    if (join)
        pthread_join (q_thread, NULL);
    /* requests never sent: the activation is recorded; the next
     * slurmctld finds the run still waiting and the jobs as they are */
    slurm_mutex_lock (&q_lock);
    jt_rq_destroy (q);
    q = NULL;
    q_started = false;
    q_stop = false;
    slurm_mutex_unlock (&q_lock);
}
