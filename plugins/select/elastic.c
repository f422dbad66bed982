/*
 * elastic.c - grows running malleable runs at their checkpoints
 * (jobtree/elastic.h decides; docs/select-plugin.md, "Elasticity").
 *
 * One thread wakes every JTSEL_GROW_POLL_S seconds and takes slurmctld's
 * locks as the backfill thread does (config and partitions read, jobs and
 * nodes write: the cache job_test uses is patched under them). For each
 * running Jobtree run that jt_elastic_due says is just past a checkpoint
 * (a cheap test, so only those are planned) it asks jt_elastic_grow with
 * the cache's snapshot and budgets; on NOW it queues a requeue with
 * reshape.c's worker (sent after the locks are released). The requeue
 * ends the run's leases (job_fini: End); the run, pending again, is
 * planned by job_test at its largest total, so it restarts on more groups
 * and its new leases Start: squeue, the record (its "bound"), the layout
 * and the ledger all say the new size from then on. Cost per wake: one
 * pass over the job list, one record parse per running Jobtree run, one
 * plan per run at a checkpoint (records without a malleable run with a
 * checkpoint are skipped by two substring tests, not parsed).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "src/common/xmalloc.h"
#include "src/slurmctld/locks.h"

#include <jobtree/elastic.h>
#include <jobtree/record.h>

#include "select_jobtree.h"

#define WHO "select/cons_tres_jobtree"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static bool g_started, g_stop;
static pthread_t g_thread;

/* The GPUs the run holds now (its bound leases whose nodes it still
 * holds: a shrunk group is gone) and the domain of its first group. */
static int64_t current_gpus (const jt_jobrec_t *rec, const job_record_t *job_ptr,
                             const jt_snapshot_t *s, int *domain)
{
    int64_t g = 0;

    *domain = -1;
    for (size_t i = 0; i < rec->nbound; i++) {
        const jt_jobrec_lease_t *b = &rec->bound[i];
        bool held = b->nnodes > 0;
        for (size_t k = 0; k < b->nnodes && held; k++) {
            node_record_t *np = find_node_record (b->nodes[k]);
            held = np && job_ptr->node_bitmap && np->index < bit_size (job_ptr->node_bitmap)
                   && bit_test (job_ptr->node_bitmap, np->index);
        }
        if (!held)
            continue;
        g += b->gpus;
        if (*domain < 0) {
            ssize_t n = jt_snapshot_node_index (s, b->nodes[0]);
            *domain = n >= 0 ? s->nodes[n].domain : -1;
        }
    }
    return g;
}

/* The GPUs this incarnation was bound with. */
static int64_t bound_gpus (const jt_jobrec_t *rec)
{
    int64_t g = 0;

    for (size_t i = 0; i < rec->nbound; i++)
        g += rec->bound[i].gpus;
    return g;
}

/* One running job: grow it if jobtree/elastic.h says so now. */
static void consider (job_record_t *job_ptr, jtsel_cache_t **cp, int64_t now)
{
    const jtsel_cache_t *c;
    jt_jobrec_t rec;
    jt_error_t err = { "" };
    jt_grow_t g;
    int64_t start = (int64_t) job_ptr->start_time, slack = 2 * JTSEL_GROW_POLL_S;

    /* the record's run is canonical JSON (jt_run_to_json): a run without
     * both members is never due, and is not parsed every pass */
    if (!IS_JOB_RUNNING (job_ptr) || !jtsel_is_jobtree (job_ptr)
        || !strstr (job_ptr->admin_comment, "\"malleable\":")
        || !strstr (job_ptr->admin_comment, "\"checkpoint\":")
        || jt_jobrec_parse (job_ptr->admin_comment, &rec, &err) < 0)
        return;
    if (rec.run && rec.run->checkpoint_s > 0 && rec.run->checkpoint_s < slack)
        slack = rec.run->checkpoint_s;
    if (!rec.run || !rec.nbound || !jt_elastic_due (rec.run, start, now, slack)) {
        jt_jobrec_free (&rec);
        return;
    }
    if (!*cp && !(*cp = jtsel_cache_get (&err))) {
        debug ("%s: grow: no snapshot: %s", WHO, err.text);
        jt_jobrec_free (&rec);
        return;
    }
    c = *cp;
    if (!c->budgets || !c->topo) {
        jt_jobrec_free (&rec);
        return;
    }
    int domain;
    const jt_snapshot_t *s = c->topo->snap;
    int gpn = jt_snapshot_gpus_per_node (s, rec.run->flavor);
    uint32_t maxn = job_ptr->details ? job_ptr->details->max_nodes : 0;
    jt_grow_in_t in = {
        .run = rec.run, .current_gpus = current_gpus (&rec, job_ptr, s, &domain),
        .bound_gpus = bound_gpus (&rec),
        .cap_gpus = (maxn && gpn > 0) ? (int64_t) maxn * gpn : 0,
        .start = start, .now = now, .slack = slack, .policy = c->plan_opts.policy,
    };
    in.current_domain = rec.run->cross_group_spread ? -1 : domain;
    char lease_run[16];        /* its leases' run in the snapshot (nodemap) */
    snprintf (lease_run, sizeof (lease_run), "%u", job_ptr->job_id);
    in.lease_run = lease_run;
    /* spares ride along in the node range: only run nodes count */
    if (in.cap_gpus && rec.run->spares_per_group > 0)
        in.cap_gpus = 0;
    if (jt_elastic_grow (c->budgets, s, &in, &g, &err) < 0)
        debug ("%s: %pJ: grow: %s", WHO, job_ptr, err.text);
    else if (g.verdict == JT_GROW_NOW) {
        if (jtsel_reshape_queue (job_ptr->job_id, NULL) < 0)
            error ("%s: %pJ: %s, but the requeue could not be queued", WHO, job_ptr,
                   g.detail);
        else {
            info ("%s: %pJ: %s", WHO, job_ptr, g.detail);
            /* its restart held on its nodes and the new groups' (restart.c) */
            jtsel_restart_plan (job_ptr, NULL, &g, *cp);
        }
    } else
        debug ("%s: %pJ: grow: %s", WHO, job_ptr, g.detail);
    jt_grow_free (&g);
    jt_jobrec_free (&rec);
}

static void pass (void)
{
    slurmctld_lock_t locks = { .conf = READ_LOCK, .job = WRITE_LOCK,
                               .node = WRITE_LOCK, .part = READ_LOCK };
    jtsel_cache_t *c = NULL;   /* fetched for the first run due, if any */
    ListIterator it;
    job_record_t *job_ptr;
    int64_t now = (int64_t) time (NULL);

    lock_slurmctld (locks);
    if (job_list) {
        it = list_iterator_create (job_list);
        while ((job_ptr = list_next (it)))
            consider (job_ptr, &c, now);
        list_iterator_destroy (it);
    }
    unlock_slurmctld (locks);
}

static void *loop (void *arg)
{
    (void) arg;
    slurm_mutex_lock (&g_lock);
    while (!g_stop) {
        struct timespec ts;
        clock_gettime (CLOCK_REALTIME, &ts);
        ts.tv_sec += JTSEL_GROW_POLL_S;
        (void) pthread_cond_timedwait (&g_cond, &g_lock, &ts);
        if (g_stop)
            break;
        slurm_mutex_unlock (&g_lock);
        pass ();
        slurm_mutex_lock (&g_lock);
    }
    slurm_mutex_unlock (&g_lock);
    return NULL;
}

void jtsel_elastic_start (void)
{
    slurm_mutex_lock (&g_lock);
    if (!g_started && !g_stop) {
        if (pthread_create (&g_thread, NULL, loop, NULL) == 0)
            g_started = true;
        else
            error ("%s: no grow thread: malleable runs will not grow", WHO);
    }
    slurm_mutex_unlock (&g_lock);
}

void jtsel_elastic_fini (void)
{
    bool join;

    slurm_mutex_lock (&g_lock);
    g_stop = true;
    join = g_started;
    slurm_cond_signal (&g_cond);
    slurm_mutex_unlock (&g_lock);
    if (join)
        pthread_join (g_thread, NULL);
    slurm_mutex_lock (&g_lock);
    g_started = g_stop = false;
    slurm_mutex_unlock (&g_lock);
}
