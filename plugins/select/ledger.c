/*
 * ledger.c - the select plugin's adapter to the ledger: it reads Slurm's
 * job records into plain facts (jt_job_facts_t) and Slurm's configuration
 * into the sink's, and hands them to its one jt_ledger_sink_t
 * (jobtree/ledger_sink.h), which owns the client, the fold, the on/off
 * state, reconciliation and the closed GPU-hours Cover adds to live usage.
 *
 * Locking: the sink is not thread-safe; l_lock guards g_sink and is held
 * around every call on it. No call blocks slurmctld on I/O except
 * configure, reconcile (which reads LedgerDir once, from select_p_job_init)
 * and fini, as before: submitting only queues, and a full queue spools.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

/* Slurm's own plugins include this first: it renames libslurm calls to
 * their exported slurm_* aliases, so the plugin also loads in clients
 * linked with libslurm.so. */
#include "src/common/slurm_xlator.h"

#include <string.h>

#include "src/common/hostlist.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"

#include <jobtree/ledger_sink.h>

#include "select_jobtree.h"

#define WHO "select/cons_tres_jobtree"

static pthread_mutex_t l_lock = PTHREAD_MUTEX_INITIALIZER;
static jt_ledger_sink_t *g_sink;        /* guarded by l_lock */

static const char *cluster (void)
{
    return slurm_conf.cluster_name ? slurm_conf.cluster_name : "cluster";
}

/* ---- a job as facts ---- */

/* The facts of a job: its record (parsed, xmalloc'd) and the bound nodes it
 * holds only when with_rec. The bound nodes it holds: by its node bitmap,
 * or (select_p_job_init runs before slurmctld rebuilds the bitmaps) by its
 * node list. An unreadable record is one with no leases (parse empties it). */
static void facts_of (const job_record_t *job_ptr, bool ending, bool with_rec,
                      jt_job_facts_t *x)
{
    bitstr_t *bm = job_ptr->node_bitmap;
    jtc_hostlist_t hl = NULL;
    jt_jobrec_t *rec;
    const char **held;
    jt_error_t err;
    size_t n = 0;

    *x = (jt_job_facts_t){ .cluster = cluster (), .job_id = job_ptr->job_id,
                           .start_time = (int64_t) job_ptr->start_time,
                           .end_time = (int64_t) job_ptr->end_time,
                           .account = job_ptr->account, .state = JT_JOB_ENDED };
    if (!ending && (IS_JOB_RUNNING (job_ptr) || IS_JOB_SUSPENDED (job_ptr)))
        x->state = JT_JOB_RUNNING;
    else if (!ending && IS_JOB_PENDING (job_ptr))
        x->state = JT_JOB_PENDING;
    else if (IS_JOB_NODE_FAILED (job_ptr) || job_ptr->state_reason == FAIL_DOWN_NODE)
        x->state = JT_JOB_NODE_FAILED;
    if (!with_rec || !jtsel_is_jobtree (job_ptr))
        return;
    x->rec = rec = xcalloc (1, sizeof (*rec));
    (void) jt_jobrec_parse (job_ptr->admin_comment, rec, &err);
    for (size_t i = 0; i < rec->nbound; i++)
        n += rec->bound[i].nnodes + rec->bound[i].nspares;
    x->held = held = xcalloc (n + 1, sizeof (*held));
    if (!bm && job_ptr->nodes)
        hl = hostlist_create (job_ptr->nodes);
    for (size_t i = 0; i < rec->nbound; i++) {
        const jt_jobrec_lease_t *b = &rec->bound[i];
        for (size_t k = 0; k < b->nnodes + b->nspares; k++) {
            char *node = k < b->nnodes ? b->nodes[k] : b->spares[k - b->nnodes];
            node_record_t *np = bm ? find_node_record (node) : NULL;
            if (bm ? np && np->index < bit_size (bm) && bit_test (bm, np->index)
                   : hl && hostlist_find (hl, node) >= 0)
                held[x->nheld++] = node;
        }
    }
    if (hl)
        hostlist_destroy (hl);
}

static void facts_free (jt_job_facts_t *x)
{
    jt_jobrec_t *rec = (jt_jobrec_t *) x->rec;  /* ours, from facts_of */

    jt_jobrec_free (rec);
    xfree (rec);
    xfree (x->held);
}

/* ---- calls on the sink ---- */

static void sink_log (jt_ledger_sink_level_t level, const char *msg, void *arg)
{
    (void) arg;
    if (level == JT_LEDGER_SINK_ERROR)
        error ("%s: %s", WHO, msg);
    else if (level == JT_LEDGER_SINK_INFO)
        info ("%s: %s", WHO, msg);
    else
        debug ("%s: %s", WHO, msg);
}

void jtsel_lease_event (const char *what, job_record_t *job_ptr,
                         node_record_t *node_ptr)
{
    int64_t now = (int64_t) time (NULL);
    bool fini = !strcmp (what, "fini"), aborted = !strcmp (what, "abort");
    jt_error_t err = { "" };
    jt_job_facts_t x;
    int rc;

    slurm_mutex_lock (&l_lock);
    if (!jt_ledger_sink_on (g_sink)) {
        slurm_mutex_unlock (&l_lock);
        return;
    }
    debug ("%s: lease %s %pJ nodes=%s", WHO, what, job_ptr,
           job_ptr->nodes ? job_ptr->nodes : "");
    facts_of (job_ptr, fini, !fini, &x);
    if (fini)
        rc = jt_ledger_sink_job_ended (g_sink, &x, now, &err);
    else if (!strcmp (what, "resized") || aborted) {
        bool failed = node_ptr && (IS_NODE_DOWN (node_ptr) || IS_NODE_FAIL (node_ptr)
                                   || IS_NODE_NO_RESPOND (node_ptr));
        /* abort: a run with spares is requeued (jobtree/spares.h), it holds
         * no lease from now on: each ends Fail */
        if (aborted)
            x.nheld = 0;
        rc = jt_ledger_sink_job_resized (g_sink, &x, failed ? node_ptr->name : NULL,
                                         now, &err);
    } else /* begin, expand */
        rc = jt_ledger_sink_job_sync (g_sink, &x, now, &err);
    if (rc < 0)
        error ("%s: lease events of %pJ: %s", WHO, job_ptr, err.text);
    facts_free (&x);
    slurm_mutex_unlock (&l_lock);
}

void jtsel_ledger_reserved (job_record_t *job_ptr, const jt_answer_t *a,
                            const jtsel_topo_t *t, const jt_node_set_t *cand,
                            bitstr_t *bitmap, int64_t start)
{
    const char **nodes;
    jt_error_t err = { "" };
    jt_resv_facts_t r;
    jt_job_facts_t x;

    slurm_mutex_lock (&l_lock);
    if (jt_ledger_sink_job_estimate (g_sink, job_ptr->job_id, start)
        || !jt_ledger_sink_on (g_sink) || !a->payer) {
        slurm_mutex_unlock (&l_lock);
        return;
    }
    nodes = xcalloc (cand->nnodes + 1, sizeof (*nodes));
    r = (jt_resv_facts_t){ .envelope = a->payer->name, .owner = NULL, .nodes = nodes,
                           .gpus = a->cand_gpus, .start = start };
    for (size_t k = 0; k < cand->nnodes; k++) {
        int idx = t->snap2slurm[cand->nodes[k]];
        if (idx >= 0 && idx < bit_size (bitmap) && bit_test (bitmap, idx))
            nodes[r.nnodes++] = t->snap->nodes[cand->nodes[k]].name;
    }
    facts_of (job_ptr, false, false, &x);     /* a reservation needs no record */
    if (jt_ledger_sink_job_reserved (g_sink, &x, &r, (int64_t) time (NULL), &err) < 0)
        error ("%s: reservation of %pJ: %s", WHO, job_ptr, err.text);
    facts_free (&x);
    xfree (nodes);
    slurm_mutex_unlock (&l_lock);
}

void jtsel_ledger_restart (job_record_t *job_ptr, const char *envelope,
                           const char *const *nodes, size_t nnodes, int64_t gpus,
                           int64_t start)
{
    jt_error_t err = { "" };
    jt_resv_facts_t r = { .envelope = envelope, .nodes = nodes, .nnodes = nnodes,
                          .gpus = gpus, .start = start };
    jt_job_facts_t x;

    slurm_mutex_lock (&l_lock);
    if (jt_ledger_sink_on (g_sink) && envelope && envelope[0]) {
        facts_of (job_ptr, false, false, &x);     /* pending: requeued */
        if (jt_ledger_sink_job_reserved (g_sink, &x, &r, (int64_t) time (NULL), &err) < 0)
            error ("%s: restart reservation of %pJ: %s", WHO, job_ptr, err.text);
        facts_free (&x);
    }
    slurm_mutex_unlock (&l_lock);
}

/* Is a ahead of b in the queue (higher priority, then the older job)? */
static bool ahead (const job_record_t *a, const job_record_t *b)
{
    return a->priority > b->priority
           || (a->priority == b->priority && a->job_id < b->job_id);
}

size_t jtsel_ledger_holds (const job_record_t *job_ptr, jt_hold_t **out)
{
    jt_fold_reservation_t *open = NULL;
    jt_error_t err = { "" };
    size_t nopen = 0, n = 0;

    *out = NULL;
    slurm_mutex_lock (&l_lock);
    if (!jt_ledger_sink_on (g_sink)
        || jt_ledger_fold_open_resvs (jt_ledger_sink_fold (g_sink), &open, &nopen,
                                      &err) < 0
        || nopen == 0) {
        slurm_mutex_unlock (&l_lock);
        free (open);
        return 0;
    }
    *out = xcalloc (nopen, sizeof (**out));
    for (size_t i = 0; i < nopen; i++) {
        int64_t id = jt_lease_run_job (open[i].run, cluster ());
        job_record_t *other = id > 0 ? find_job_record ((uint32_t) id) : NULL;
        if (!other || other == job_ptr || !IS_JOB_PENDING (other)
            || !ahead (other, job_ptr))
            continue;
        (*out)[n++] = (jt_hold_t){ .envelope = xstrdup (open[i].envelope),
                                   .gpus = open[i].gpus,
                                   .start = jt_ledger_sink_hold_start (g_sink, &open[i]) };
    }
    slurm_mutex_unlock (&l_lock);
    free (open);
    return n;
}

void jtsel_ledger_holds_free (jt_hold_t *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *e = (char *) h[i].envelope;     /* ours: xstrdup'd above */
        xfree (e);
    }
    xfree (h);
}

/* The sink's job lookup (jt_ledger_sink_job_f): slurmctld's job record. */
static int job_facts (uint32_t job_id, jt_job_facts_t *x, void *arg)
{
    job_record_t *job_ptr;

    (void) arg;
    if (job_id == 0) {
        facts_free (x);
        return 0;
    }
    if (!(job_ptr = find_job_record (job_id)))
        return -1;
    facts_of (job_ptr, false, false, x);
    return 0;
}

void jtsel_ledger_settle (bool force)
{
    static time_t last;
    time_t now = time (NULL);

    slurm_mutex_lock (&l_lock);
    if (force || now - last >= JTSEL_SETTLE_S) {
        last = now;
        (void) jt_ledger_sink_settle_resvs (g_sink, job_facts, NULL, (int64_t) now);
    }
    slurm_mutex_unlock (&l_lock);
}

void jtsel_ledger_budgets (const jt_budgets_t *b)
{
    slurm_mutex_lock (&l_lock);
    (void) jt_ledger_sink_budgets (g_sink, b, (int64_t) time (NULL));
    slurm_mutex_unlock (&l_lock);
}

void jtsel_ledger_add_closed (jt_usage_t *u, const jt_budgets_t *b)
{
    slurm_mutex_lock (&l_lock);
    jt_ledger_sink_add_closed (g_sink, u, b);
    slurm_mutex_unlock (&l_lock);
}

void jtsel_ledger_configure (const jt_config_t *conf)
{
    jt_ledger_sink_conf_t c = { .cluster = cluster (), .socket = conf->ledger_socket,
                                .spool_dir = conf->ledger_spool_dir,
                                .spool_name = "select.spool",
                                .ledger_dir = conf->ledger_dir };

    if (!c.spool_dir)
        c.spool_dir = slurm_conf.state_save_location;
    if (!c.spool_dir)
        c.spool_dir = "/var/spool/slurmctld";
    slurm_mutex_lock (&l_lock);
    if (!g_sink && !(g_sink = jt_ledger_sink_create (sink_log, NULL)))
        error ("%s: ledger: out of memory (no lease events)", WHO);
    else
        (void) jt_ledger_sink_configure (g_sink, &c);
    slurm_mutex_unlock (&l_lock);
}

void jtsel_ledger_fini (void)
{
    slurm_mutex_lock (&l_lock);
    jt_ledger_sink_destroy (g_sink);
    g_sink = NULL;
    slurm_mutex_unlock (&l_lock);
}

void jtsel_ledger_reconcile (List jobs)
{
    size_t nj = 0;
    jt_job_facts_t *x;
    ListIterator it;
    job_record_t *job_ptr;

    slurm_mutex_lock (&l_lock);
    if (!jobs || !jt_ledger_sink_reconcile_due (g_sink)) {
        slurm_mutex_unlock (&l_lock);
        return;
    }
    x = xcalloc (list_count (jobs) + 1, sizeof (*x));
    it = list_iterator_create (jobs);
    while ((job_ptr = list_next (it)))
        facts_of (job_ptr, false, IS_JOB_RUNNING (job_ptr) || IS_JOB_SUSPENDED (job_ptr),
                  &x[nj++]);
    list_iterator_destroy (it);
    (void) jt_ledger_sink_reconcile (g_sink, x, nj, (int64_t) time (NULL));
    for (size_t i = 0; i < nj; i++)
        facts_free (&x[i]);
    xfree (x);
    slurm_mutex_unlock (&l_lock);
}

int jtsel_ledger_open_resv (const job_record_t *job_ptr, char *id, size_t len,
                            int64_t *created, int64_t *drawn)
{
    jt_fold_reservation_t r;
    char run[128];
    int rc = -1;

    if (jt_lease_run_id (cluster (), job_ptr->job_id, run, sizeof (run)) < 0)
        return -1;
    slurm_mutex_lock (&l_lock);
    if (jt_ledger_sink_on (g_sink)
        && jt_ledger_fold_open_resv (jt_ledger_sink_fold (g_sink), run, &r) == 0
        && strlen (r.reservation) < len) {
        strcpy (id, r.reservation);
        *created = r.created;
        if (drawn)
            *drawn = r.drawn;
        rc = 0;
    }
    slurm_mutex_unlock (&l_lock);
    return rc;
}

void jtsel_ledger_activation (const char *resv, const char *run,
                              const struct jt_activation_slice *sl,
                              const jt_activation_t *a, int64_t at)
{
    jt_error_t err;

    slurm_mutex_lock (&l_lock);
    if (jt_ledger_sink_activation (g_sink, resv, run, &sl->req,
                                   (const char *const *) sl->pools, sl->npools,
                                   a, at, &err) < 0)
        error ("%s: activation of %s not recorded: %s", WHO, resv, err.text);
    slurm_mutex_unlock (&l_lock);
}
