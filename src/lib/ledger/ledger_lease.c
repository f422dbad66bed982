/*
 * ledger_lease.c - the lease events of Slurm jobs (jobtree/ledger_lease.h):
 * lease and event ids, derivation of a job's leases from its record and
 * the nodes it holds, the events of start, resize and end, a waiting run's
 * reservation, reconciliation after a restart, and the BudgetLoaded id.
 *
 * DESIGN: every function appends to a jt_lease_events_t and, on failure,
 * cuts it back to what it held on entry (no side effects). The held nodes
 * are indexed once per derivation (a map), so deriving is linear in the
 * bound nodes. Open leases come from the fold as jt_fold_lease_t; an End is
 * built from its Start's fields, so the fold accepts it, and carries the
 * reason an Activation that cut the lease gave it (the fold's mark), so it
 * holds across a restart too.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/ledger_lease.h"
#include "jobtree/map.h"
#include "jobtree/nodemap.h"

/* Ids are short; anything that does not fit is refused, never cut. */
#define ID_MAX 512

void jt_lease_events_clear (jt_lease_events_t *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->n; i++)
        jt_event_destroy (e->v[i]);
    free (e->v);
    e->v = NULL;
    e->n = e->cap = 0;
}

/* Destroy the events appended after n0. */
static int cut_back (jt_lease_events_t *e, size_t n0)
{
    while (e->n > n0)
        jt_event_destroy (e->v[--e->n]);
    return -1;
}

/* Take ev into out. 0, or -1 (ev destroyed) on ENOMEM. */
static int push (jt_lease_events_t *out, jt_event_t *ev)
{
    if (out->n == out->cap) {
        size_t cap = out->cap ? 2 * out->cap : 16;
        jt_event_t **v = realloc (out->v, cap * sizeof (*v));
        if (!v) {
            jt_event_destroy (ev);
            return -1;
        }
        out->v = v;
        out->cap = cap;
    }
    out->v[out->n++] = ev;
    return 0;
}

/* Cut out back to n0 and say why (errno: ERANGE for an id too long,
 * otherwise out of memory). */
static int nomem (jt_lease_events_t *out, size_t n0, jt_error_t *err)
{
    int e = errno == ERANGE ? ERANGE : ENOMEM;

    cut_back (out, n0);
    errno = e;
    return jt_errprintf (err, "%s", e == ERANGE ? "lease id too long" : "out of memory");
}

static int fits (int w, size_t len)
{
    if (w < 0 || (size_t) w >= len) {
        errno = ERANGE;
        return -1;
    }
    return 0;
}

int jt_lease_run_id (const char *cluster, uint32_t job_id, char *buf, size_t len)
{
    return fits (snprintf (buf, len, "%s:%" PRIu32, cluster, job_id), len);
}

static bool is_run_of (const char *run, const jt_job_facts_t *job)
{
    char want[ID_MAX];

    return run && jt_lease_run_id (job->cluster, job->job_id, want, sizeof (want)) == 0
           && !strcmp (run, want);
}

/* ---- derivation ---- */

static void *held_mark = &held_mark;

/* The lease of bound group b (or its spares) as the job holds it now, or
 * *ev NULL when it holds none of its nodes. chunk: how many bound leases
 * of the same group come before b (a soft group, one without groupGPUs,
 * is placed in one chunk per domain, each its own lease: ":c<chunk>"
 * keeps their ids apart). 0, or -1 (errno). */
static int derive_one (const jt_job_facts_t *job, const jt_jobrec_lease_t *b,
                       size_t chunk, bool spare, const jt_map_t *held,
                       jt_event_t **ev)
{
    const jt_jobrec_t *rec = job->rec;
    int64_t gpn = b->nnodes > 0 ? b->gpus / (int64_t) b->nnodes : b->gpus;
    char *const *nodes = spare ? b->spares : b->nodes;
    size_t full = spare ? b->nspares : b->nnodes, nheld = 0;
    const char *owner = rec->run && rec->run->owner ? rec->run->owner : job->account;
    char run[ID_MAX], lease[ID_MAX], id[ID_MAX], group[32];
    jt_event_t *e;

    *ev = NULL;
    for (size_t k = 0; k < full; k++)
        if (jt_map_get (held, nodes[k]))
            nheld++;
    if (nheld == 0 || gpn < 1)
        return 0;
    if (jt_lease_run_id (job->cluster, job->job_id, run, sizeof (run)) < 0
        || fits (snprintf (lease, sizeof (lease), "%s:%" PRId64 ":%c%d", run,
                           job->start_time, spare ? 's' : 'g', b->group),
                 sizeof (lease))
               < 0)
        return -1;
    if (chunk > 0) {
        size_t l = strlen (lease);
        if (fits (snprintf (lease + l, sizeof (lease) - l, ":c%zu", chunk),
                  sizeof (lease) - l)
            < 0)
            return -1;
    }
    if (b->nswaps) {
        /* spares swapped in since the start (jobtree/spares.h): a new
         * lease per swap, from the last swap's time */
        size_t l = strlen (lease);
        if (fits (snprintf (lease + l, sizeof (lease) - l, ":w%zu", b->nswaps),
                  sizeof (lease) - l)
            < 0)
            return -1;
    }
    if (nheld < full) {
        size_t l = strlen (lease);
        if (fits (snprintf (lease + l, sizeof (lease) - l, ":n%zu", nheld),
                  sizeof (lease) - l)
            < 0)
            return -1;
    }
    if (fits (snprintf (id, sizeof (id), "%s:start", lease), sizeof (id)) < 0)
        return -1;
    snprintf (group, sizeof (group), spare ? "spare/%d" : "%d", b->group);
    if (!(e = jt_event_create (JT_EV_START)))
        return -1;
    if (jt_event_set (&e->id, id) < 0 || jt_event_set (&e->lease, lease) < 0
        || jt_event_set (&e->run, run) < 0 || jt_event_set (&e->group, group) < 0
        || jt_event_set (&e->envelope, b->envelope) < 0
        || jt_event_set (&e->owner, owner && *owner ? owner : "unknown") < 0
        || (!spare && b->conformance && jt_event_set (&e->conformance, b->conformance) < 0))
        goto nomem;
    for (size_t k = 0; k < full; k++)
        if (jt_map_get (held, nodes[k]) && jt_event_add_node (e, nodes[k]) < 0)
            goto nomem;
    e->gpus = gpn * (int64_t) nheld;
    e->role = spare ? JT_ROLE_SPARE : b->role;
    e->start = jt_lease_start_time (job->start_time, rec->bound_time);
    if (b->nswaps && b->swaps[b->nswaps - 1].time > e->start)
        e->start = b->swaps[b->nswaps - 1].time;
    e->time = e->start;
    *ev = e;
    return 0;
nomem:
    jt_event_destroy (e);
    errno = ENOMEM;
    return -1;
}

int jt_lease_derive (const jt_job_facts_t *job, jt_lease_events_t *out,
                     jt_error_t *err)
{
    size_t n0 = out->n;
    jt_map_t *held;

    if (!job->rec)
        return 0;
    if (!(held = jt_map_create (0))) {
        errno = ENOMEM;
        return nomem (out, n0, err);
    }
    for (size_t i = 0; i < job->nheld; i++)
        if (jt_map_put (held, job->held[i], held_mark, NULL) < 0)
            goto fail;
    size_t chunk = 0;
    for (size_t i = 0; i < job->rec->nbound; i++) {
        const jt_jobrec_lease_t *b = &job->rec->bound[i];
        jt_event_t *ev;
        /* a group's chunks are consecutive in the record (Plan appends a
         * group's placement whole; a rebind keeps the order) */
        chunk = i > 0 && job->rec->bound[i - 1].group == b->group ? chunk + 1 : 0;
        if (derive_one (job, b, chunk, false, held, &ev) < 0
            || (ev && push (out, ev) < 0))
            goto fail;
        if (b->nspares
            && (derive_one (job, b, chunk, true, held, &ev) < 0
                || (ev && push (out, ev) < 0)))
            goto fail;
    }
    jt_map_destroy (held, NULL);
    return 0;
fail:
    jt_map_destroy (held, NULL);
    return nomem (out, n0, err);
}

/* ---- events from open leases ---- */

/* The End of open lease l at t (never before its start) with reason, or
 * with the reason of the Activation that cut it (RandomPreempt and its
 * seed, Shrink, DropSpare) unless a node failed under it. */
static jt_event_t *end_of (const jt_fold_lease_t *l, int64_t t, jt_end_reason_t reason)
{
    jt_event_t *ev = jt_event_create (JT_EV_END);
    char id[ID_MAX];

    if (!ev)
        return NULL;
    if (fits (snprintf (id, sizeof (id), "%s:end", l->lease), sizeof (id)) < 0
        || jt_event_set (&ev->id, id) < 0 || jt_event_set (&ev->lease, l->lease) < 0
        || jt_event_set (&ev->run, l->run) < 0 || jt_event_set (&ev->group, l->group) < 0
        || jt_event_set (&ev->envelope, l->envelope) < 0
        || jt_event_set (&ev->owner, l->owner) < 0)
        goto fail;
    for (size_t k = 0; k < l->nnodes; k++)
        if (jt_event_add_node (ev, l->nodes[k]) < 0)
            goto fail;
    ev->gpus = l->gpus;
    ev->role = l->role;
    ev->start = l->start;
    ev->end = t < l->start ? l->start : t;
    ev->reason = reason;
    if (l->cut != JT_REASON_NONE && reason != JT_REASON_FAIL) {
        ev->reason = l->cut;
        ev->seed = l->cut == JT_REASON_RANDOM_PREEMPT ? l->cut_seed : 0;
    }
    ev->time = ev->end;
    return ev;
fail:
    jt_event_destroy (ev);
    return NULL;
}

static int push_end (jt_lease_events_t *out, const jt_fold_lease_t *l, int64_t t,
                     jt_end_reason_t reason)
{
    jt_event_t *ev = end_of (l, t, reason);
    return ev ? push (out, ev) : -1;
}

/* Was open spare lease l swapped in: is one of its nodes now in a group's
 * (non-spare) derived lease? */
static bool swapped_in (const jt_fold_lease_t *l, const jt_lease_events_t *d)
{
    if (l->role != JT_ROLE_SPARE)
        return false;
    for (size_t k = 0; k < d->n; k++)
        if (d->v[k]->role != JT_ROLE_SPARE)
            for (size_t a = 0; a < d->v[k]->nnodes; a++)
                for (size_t b = 0; b < l->nnodes; b++)
                    if (!strcmp (d->v[k]->nodes[a], l->nodes[b]))
                        return true;
    return false;
}

/* When open lease l, no longer derived, ends: now, or earlier when a new
 * lease (fresh[k]: d's k-th is not open yet) takes one of its nodes from
 * an earlier start. A spare swap is recorded at the failure (spares.h) and
 * its ":w<count>" lease starts then; the lease it replaces, and the
 * spare's own, end at that same instant, not when the event is written:
 * else the node is held twice over the seconds between (verify:
 * node-overlap). */
static int64_t handed_over (const jt_fold_lease_t *l, const jt_lease_events_t *d,
                            const bool *fresh, int64_t now)
{
    int64_t t = now;
    for (size_t k = 0; k < d->n; k++) {
        const jt_event_t *ev = d->v[k];
        bool shares = false;
        if (!fresh[k] || ev->start >= t)
            continue;
        for (size_t a = 0; !shares && a < ev->nnodes; a++)
            for (size_t b = 0; !shares && b < l->nnodes; b++)
                shares = !strcmp (ev->nodes[a], l->nodes[b]);
        if (shares)
            t = ev->start;
    }
    return t;
}

/* An open lease no longer derived ends with reason gone, except a spare
 * lease a group took a node of (a spare swapped in): Swap, and a lease of
 * an earlier start of the job (it started before the job's current start,
 * which every lease of this start is at or after: a requeued run started
 * again while its End was never written, e.g. slurmctld killed between a
 * launch and its state save): End, at the current start at the latest. */
static int sync_leases (const jt_job_facts_t *job, const jt_fold_lease_t *open,
                        size_t nopen, int64_t now, jt_end_reason_t gone,
                        bool whole, jt_lease_events_t *out, jt_error_t *err)
{
    jt_lease_events_t d = { 0 };
    size_t n0 = out->n;
    bool *fresh = NULL;         /* per derived lease: not open yet */

    if (!job->rec)
        return 0;
    if (jt_lease_derive (job, &d, err) < 0)
        return -1;
    if (!(fresh = calloc (d.n + 1, sizeof (*fresh))))
        goto fail;
    /* The derived leases not open yet. A new shrunk remainder
     * (":n<count>") starts now; a new lease after a swap (":w<count>") at
     * the swap's recorded time (derive_one). */
    for (size_t k = 0; k < d.n; k++) {
        jt_event_t *ev = d.v[k];
        const char *last = strrchr (ev->lease, ':');
        fresh[k] = true;
        for (size_t i = 0; fresh[k] && i < nopen; i++)
            fresh[k] = strcmp (open[i].lease, ev->lease) != 0;
        if (fresh[k] && last && last[1] == 'n' && now > ev->start)
            ev->start = ev->time = now;
        /* a shrink gives a group up whole: Slurm excises its nodes one
         * by one, and the remainder between two of them is no lease */
        if (fresh[k] && last && last[1] == 'n' && whole)
            fresh[k] = false;
    }
    for (size_t i = 0; i < nopen; i++) {
        bool keep = !is_run_of (open[i].run, job), before;
        int64_t t;
        for (size_t k = 0; !keep && k < d.n; k++)
            keep = !strcmp (d.v[k]->lease, open[i].lease);
        if (keep)
            continue;
        t = handed_over (&open[i], &d, fresh, now);
        before = job->start_time > 0 && open[i].start < job->start_time;
        if (before && t > job->start_time)
            t = job->start_time;
        if (push_end (out, &open[i], t, swapped_in (&open[i], &d) ? JT_REASON_SWAP
                                        : before ? JT_REASON_END : gone) < 0)
            goto fail;
    }
    for (size_t k = 0; k < d.n; k++) {
        jt_event_t *ev = d.v[k];
        if (!fresh[k])
            continue;
        d.v[k] = NULL;
        if (push (out, ev) < 0)
            goto fail;
    }
    free (fresh);
    jt_lease_events_clear (&d);
    return 0;
fail:
    free (fresh);
    jt_lease_events_clear (&d);
    return nomem (out, n0, err);
}

int jt_lease_sync (const jt_job_facts_t *job, const jt_fold_lease_t *open,
                   size_t nopen, int64_t now, jt_end_reason_t gone,
                   jt_lease_events_t *out, jt_error_t *err)
{
    return sync_leases (job, open, nopen, now, gone, false, out, err);
}

static int node_fail_event (const jt_job_facts_t *job, const char *node, int64_t now,
                            jt_lease_events_t *out)
{
    char run[ID_MAX], id[ID_MAX];
    jt_event_t *ev;

    if (jt_lease_run_id (job->cluster, job->job_id, run, sizeof (run)) < 0
        || fits (snprintf (id, sizeof (id), "%s:%" PRId64 ":nodefail:%s", run,
                           job->start_time, node),
                 sizeof (id))
               < 0)
        return -1;
    if (!(ev = jt_event_create (JT_EV_NODE_FAIL)))
        return -1;
    if (jt_event_set (&ev->id, id) < 0 || jt_event_set (&ev->run, run) < 0
        || jt_event_add_node (ev, node) < 0) {
        jt_event_destroy (ev);
        return -1;
    }
    ev->time = now;
    return push (out, ev);
}

int jt_lease_resized (const jt_job_facts_t *job, const char *failed,
                      const jt_fold_lease_t *open, size_t nopen, int64_t now,
                      jt_lease_events_t *out, jt_error_t *err)
{
    size_t n0 = out->n;

    if (failed && node_fail_event (job, failed, now, out) < 0)
        return nomem (out, n0, err);
    if (sync_leases (job, open, nopen, now, failed ? JT_REASON_FAIL : JT_REASON_SHRINK,
                     !failed, out, err) < 0)
        return cut_back (out, n0);
    return 0;
}

static jt_end_reason_t end_reason (const jt_job_facts_t *job)
{
    return job->state == JT_JOB_NODE_FAILED ? JT_REASON_FAIL : JT_REASON_END;
}

/* When a job's open leases ended: its end time, when it has one that is
 * not in the future. A pending job has none of its own: a job Slurm
 * restored as pending after slurmctld was killed (launched after its last
 * state save) keeps the end its time limit planned (start + limit), and
 * its nodes went to other runs since; so do requeued ones. Such a lease,
 * or one whose end Slurm puts after now, ends now: before anything the
 * restarted controller allocates (t3020 once found End 59 s late and a
 * later lease on the node before it: node-overlap). */
static int64_t end_time (const jt_job_facts_t *job, int64_t now)
{
    if (job->state == JT_JOB_PENDING || job->end_time <= 0 || job->end_time > now)
        return now;
    return job->end_time;
}

int jt_lease_fini (const jt_job_facts_t *job, const jt_fold_lease_t *open,
                   size_t nopen, int64_t now, jt_lease_events_t *out,
                   jt_error_t *err)
{
    size_t n0 = out->n;

    for (size_t i = 0; i < nopen; i++)
        if (is_run_of (open[i].run, job)
            && push_end (out, &open[i], end_time (job, now), end_reason (job)) < 0)
            return nomem (out, n0, err);
    return 0;
}

/* ---- reconciliation ---- */

int64_t jt_lease_run_job (const char *run, const char *cluster)
{
    size_t cl = strlen (cluster);
    const char *colon = strrchr (run, ':');
    char *end;
    unsigned long id;

    if (!colon || (size_t) (colon - run) != cl || strncmp (run, cluster, cl))
        return -1;
    errno = 0;
    id = strtoul (colon + 1, &end, 10);
    if (errno || end == colon + 1 || id > UINT32_MAX)
        return -1;
    return (int64_t) id;
}

/* The jobs by job id (decimal text), or NULL on ENOMEM. */
static jt_map_t *jobs_by_id (const jt_job_facts_t *jobs, size_t njobs)
{
    jt_map_t *byid = jt_map_create (0);

    for (size_t j = 0; byid && j < njobs; j++) {
        char key[16];
        snprintf (key, sizeof (key), "%" PRIu32, jobs[j].job_id);
        if (jt_map_put (byid, key, (void *) &jobs[j], NULL) < 0) {
            jt_map_destroy (byid, NULL);
            byid = NULL;
        }
    }
    return byid;
}

/* The job of run among byid's, NULL when missing (or not this cluster's). */
static const jt_job_facts_t *job_of_run (const jt_map_t *byid, const char *run,
                                         const char *cluster)
{
    int64_t id = jt_lease_run_job (run, cluster);
    char key[24];

    if (id < 0)
        return NULL;
    snprintf (key, sizeof (key), "%" PRId64, id);
    return jt_map_get (byid, key);
}

int jt_lease_reconcile (const char *cluster, const jt_fold_lease_t *open,
                        size_t nopen, const jt_job_facts_t *jobs, size_t njobs,
                        int64_t now, jt_lease_events_t *out, jt_error_t *err)
{
    size_t n0 = out->n;
    jt_map_t *byid = jobs_by_id (jobs, njobs);

    if (!byid)
        return nomem (out, n0, err);
    /* Open leases whose job is gone or ended. */
    for (size_t i = 0; i < nopen; i++) {
        const jt_job_facts_t *j;
        if (jt_lease_run_job (open[i].run, cluster) < 0)
            continue;
        j = job_of_run (byid, open[i].run, cluster);
        if ((!j || j->state == JT_JOB_GONE)
            && push_end (out, &open[i], now, JT_REASON_JOB_GONE) < 0)
            goto fail;
        if (j && j->state != JT_JOB_GONE && j->state != JT_JOB_RUNNING
            && push_end (out, &open[i], end_time (j, now), end_reason (j)) < 0)
            goto fail;
    }
    /* Running jobs: their leases as they hold them now. Their open leases
     * were not touched above. */
    for (size_t j = 0; j < njobs; j++)
        if (jobs[j].state == JT_JOB_RUNNING && jobs[j].rec
            && jt_lease_sync (&jobs[j], open, nopen, now, JT_REASON_SHRINK, out, err)
                   < 0) {
            jt_map_destroy (byid, NULL);
            return cut_back (out, n0);
        }
    jt_map_destroy (byid, NULL);
    return 0;
fail:
    jt_map_destroy (byid, NULL);
    return nomem (out, n0, err);
}

/* ---- reservations ---- */

/* A reservation event of type t for run (ids "<reservation>:<what>"). */
static jt_event_t *resv_event (jt_ev_type_t t, const char *resv, const char *run,
                               const char *what, int64_t now)
{
    jt_event_t *ev = jt_event_create (t);
    char id[ID_MAX];

    if (!ev)
        return NULL;
    if (fits (snprintf (id, sizeof (id), "%s:%s", resv, what), sizeof (id)) < 0
        || jt_event_set (&ev->id, id) < 0 || jt_event_set (&ev->reservation, resv) < 0
        || jt_event_set (&ev->run, run) < 0) {
        jt_event_destroy (ev);
        return NULL;
    }
    ev->time = now;
    return ev;
}

int jt_resv_reserved (const jt_job_facts_t *job, const jt_resv_facts_t *r,
                      const jt_fold_reservation_t *open, int64_t now,
                      jt_lease_events_t *out, jt_error_t *err)
{
    const char *owner = r->owner && *r->owner ? r->owner : job->account;
    char run[ID_MAX], resv[ID_MAX];
    size_t n0 = out->n;
    jt_event_t *ev;

    if (open || !r->envelope || !*r->envelope || r->gpus < 1)
        return 0;
    if (jt_lease_run_id (job->cluster, job->job_id, run, sizeof (run)) < 0
        || fits (snprintf (resv, sizeof (resv), "%s:resv:%" PRId64, run, now),
                 sizeof (resv)) < 0
        || !(ev = resv_event (JT_EV_RES_CREATE, resv, run, "create", now)))
        return nomem (out, n0, err);
    if (jt_event_set (&ev->envelope, r->envelope) < 0
        || jt_event_set (&ev->owner, owner && *owner ? owner : "unknown") < 0) {
        jt_event_destroy (ev);
        return nomem (out, n0, err);
    }
    for (size_t k = 0; k < r->nnodes; k++)
        if (jt_event_add_node (ev, r->nodes[k]) < 0) {
            jt_event_destroy (ev);
            return nomem (out, n0, err);
        }
    ev->gpus = r->gpus;
    ev->start = r->start > now ? r->start : now;
    return push (out, ev) < 0 ? nomem (out, n0, err) : 0;
}

int jt_resv_settle (const jt_job_facts_t *job, const jt_fold_reservation_t *open,
                    int64_t now, jt_lease_events_t *out, jt_error_t *err)
{
    size_t n0 = out->n;
    jt_event_t *ev;

    if (!open || (job && job->state == JT_JOB_PENDING))
        return 0;
    if (job && job->state == JT_JOB_RUNNING)
        ev = resv_event (JT_EV_RES_ACTIVATE, open->reservation, open->run,
                         "activate", now);
    else
        ev = resv_event (JT_EV_RES_RELEASED, open->reservation, open->run,
                         "release", now);
    if (!ev || push (out, ev) < 0)
        return nomem (out, n0, err);
    return 0;
}

int jt_resv_reconcile (const char *cluster, const jt_fold_reservation_t *open,
                       size_t nopen, const jt_job_facts_t *jobs, size_t njobs,
                       int64_t now, jt_lease_events_t *out, jt_error_t *err)
{
    size_t n0 = out->n;
    jt_map_t *byid = jobs_by_id (jobs, njobs);

    if (!byid)
        return nomem (out, n0, err);
    for (size_t i = 0; i < nopen; i++) {
        const jt_job_facts_t *j = job_of_run (byid, open[i].run, cluster);
        if (jt_lease_run_job (open[i].run, cluster) >= 0
            && jt_resv_settle (j, &open[i], now, out, err) < 0) {
            jt_map_destroy (byid, NULL);
            return cut_back (out, n0);
        }
    }
    jt_map_destroy (byid, NULL);
    return 0;
}

/* ---- budgets ---- */

jt_event_t *jt_lease_budget_event (const jt_budgets_t *b, const char *cluster,
                                   int64_t now, jt_error_t *err)
{
    /* the load time and the content's hash: every load is recorded (a
     * revert to earlier budgets, the first load after an upgrade to
     * recorded content), a resend of one load keeps its id */
    char id[ID_MAX];
    jt_event_t *ev = jt_event_budget_loaded (b, "pending", now, err);

    if (!ev)
        return NULL;
    if (fits (snprintf (id, sizeof (id), "%s:budgets:%" PRId64 ":%.16s", cluster, now,
                        ev->budgets_sha256),
              sizeof (id))
            < 0
        || jt_event_set (&ev->id, id) < 0) {
        jt_errprintf (err, "BudgetLoaded id: %s", strerror (errno));
        jt_event_destroy (ev);
        return NULL;
    }
    return ev;
}
