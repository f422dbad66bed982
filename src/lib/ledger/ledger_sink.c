/*
 * ledger_sink.c - the emitting side of the ledger (jobtree/ledger_sink.h):
 * owns the ledger client and the fold of what this process emitted, the
 * on/off state, the one read of LedgerDir at reconciliation, and the
 * closed GPU-hours lookup that Cover adds to live usage.
 *
 * DESIGN: a sequencer only. Ids, derivation and reconciliation are
 * jobtree/ledger_lease.h's; the fold's arithmetic is ledger_fold.c's;
 * queueing and the spool are ledger_client.c's. Every event goes through
 * emit_one (submit, then apply), so the fold is what was sent.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobtree/ledger_checkpoint.h"
#include "jobtree/ledger_client.h"
#include "jobtree/ledger_sink.h"
#include "jobtree/map.h"

struct jt_ledger_sink {
    jt_ledger_sink_log_f log;
    void *log_arg;
    jt_ledger_client_t *client; /* NULL: off */
    jt_ledger_fold_t *fold;     /* created when first on; kept while off */
    char *cluster, *socket, *spool, *ledger_dir;
    bool off_logged, reconciled;
    jt_map_t *estimates;        /* run -> int64_t *: its latest estimate */
};

/* Latest estimates kept at most (the oldest forgotten first: its hold then
 * counts from its reservation's earliest start, the ledger's). */
#define SINK_ESTIMATES_MAX 4096

static void say (const jt_ledger_sink_t *s, jt_ledger_sink_level_t level,
                 const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));
static void say (const jt_ledger_sink_t *s, jt_ledger_sink_level_t level,
                 const char *fmt, ...)
{
    char buf[512], *msg = buf;
    va_list ap, ap2;
    int n;

    if (!s->log)
        return;
    va_start (ap, fmt);
    va_copy (ap2, ap);
    n = vsnprintf (buf, sizeof (buf), fmt, ap);
    /* a long path is logged whole when memory allows, cut otherwise */
    if (n >= (int) sizeof (buf) && (msg = malloc ((size_t) n + 1)))
        vsnprintf (msg, (size_t) n + 1, fmt, ap2);
    va_end (ap2);
    va_end (ap);
    s->log (level, msg ? msg : buf, s->log_arg);
    if (msg != buf)
        free (msg);
}

/* Replace *field with a copy of v (NULL clears). 0, or -1 on ENOMEM. */
static int set_str (char **field, const char *v)
{
    char *c = v ? strdup (v) : NULL;
    if (v && !c)
        return -1;
    free (*field);
    *field = c;
    return 0;
}

static bool same (const char *a, const char *b)
{
    return a && b ? !strcmp (a, b) : a == b;
}

jt_ledger_sink_t *jt_ledger_sink_create (jt_ledger_sink_log_f log, void *arg)
{
    jt_ledger_sink_t *s = calloc (1, sizeof (*s));
    if (!s)
        return NULL;
    s->log = log;
    s->log_arg = arg;
    return s;
}

static void client_stop (jt_ledger_sink_t *s)
{
    jt_ledger_client_stats_t st;

    if (!s->client)
        return;
    jt_ledger_client_stats (s->client, &st);
    say (s, JT_LEDGER_SINK_INFO,
         "ledger client: %" PRIu64 " submitted, %" PRIu64 " acked, %" PRIu64
         " spooled, %" PRIu64 " rejected, %" PRIu64 " queue-full (spooled)",
         st.submitted, st.acked, st.spooled, st.rejected, st.full);
    jt_ledger_client_destroy (s->client);    /* queued -> spool */
    s->client = NULL;
}

void jt_ledger_sink_destroy (jt_ledger_sink_t *s)
{
    if (!s)
        return;
    client_stop (s);
    jt_ledger_fold_destroy (s->fold);
    jt_map_destroy (s->estimates, free);
    free (s->cluster);
    free (s->socket);
    free (s->spool);
    free (s->ledger_dir);
    free (s);
}

int jt_ledger_sink_configure (jt_ledger_sink_t *s, const jt_ledger_sink_conf_t *conf)
{
    jt_ledger_client_opts_t o = { .overflow_to_spool = true };
    jt_error_t err = { "" };
    char *spool = NULL;

    if (set_str (&s->cluster, conf->cluster) < 0
        || set_str (&s->ledger_dir, conf->ledger_dir) < 0)
        goto nomem;
    if (!conf->socket) {
        client_stop (s);
        if (!s->off_logged)
            say (s, JT_LEDGER_SINK_INFO, "LedgerSocket not set in jobtree.conf: the "
                 "ledger is off (no lease events)");
        s->off_logged = true;
        return set_str (&s->socket, NULL);
    }
    if (asprintf (&spool, "%s/%s", conf->spool_dir, conf->spool_name) < 0) {
        spool = NULL;
        goto nomem;
    }
    if (s->client && same (s->socket, conf->socket) && same (s->spool, spool)) {
        free (spool);
        return 0;
    }
    client_stop (s);
    if (set_str (&s->socket, conf->socket) < 0)
        goto nomem;
    free (s->spool);
    s->spool = spool;
    (void) mkdir (conf->spool_dir, 0700);   /* exists already, or the client says */
    o.socket = s->socket;
    o.spool = s->spool;
    if (!s->fold && (s->fold = jt_ledger_fold_create ()))
        jt_ledger_fold_forget_ids (s->fold);
    if (!s->fold)
        goto nomem;
    if (!(s->client = jt_ledger_client_create (&o, &err))) {
        say (s, JT_LEDGER_SINK_ERROR, "ledger client for %s: %s (no lease events)",
             s->socket, err.text);
        return -1;
    }
    say (s, JT_LEDGER_SINK_INFO, "ledger events to %s (spool %s)", s->socket, s->spool);
    return 0;
nomem:
    free (spool);
    say (s, JT_LEDGER_SINK_ERROR, "ledger fold: out of memory (no lease events)");
    return -1;
}

bool jt_ledger_sink_on (const jt_ledger_sink_t *s)
{
    return s && s->client && s->fold;
}

const jt_ledger_fold_t *jt_ledger_sink_fold (const jt_ledger_sink_t *s)
{
    return s ? s->fold : NULL;
}

/* ---- emission ---- */

/* Submit one event and apply it to the fold. */
static void emit_one (jt_ledger_sink_t *s, const jt_event_t *e)
{
    jt_error_t err;
    jt_violation_t v;

    say (s, JT_LEDGER_SINK_DEBUG, "ledger %s %s", jt_ev_type_str (e->type), e->id);
    if (jt_ledger_client_submit_event (s->client, e, &err) < 0)
        say (s, JT_LEDGER_SINK_ERROR, "ledger event %s refused: %s", e->id, err.text);
    if (jt_ledger_fold_apply (s->fold, 0, e, &v, &err) < 0)
        say (s, JT_LEDGER_SINK_ERROR, "ledger fold: %s", err.text);
}

/* Emit the events in order and empty ev; returns how many. */
static int emit (jt_ledger_sink_t *s, jt_lease_events_t *ev)
{
    int n = (int) ev->n;

    for (size_t i = 0; i < ev->n; i++)
        emit_one (s, ev->v[i]);
    jt_lease_events_clear (ev);
    return n;
}

enum job_change { JOB_SYNC, JOB_RESIZED, JOB_ENDED };

/* The events of one change of a job against the open leases of its run. */
static int job_events (jt_ledger_sink_t *s, enum job_change what,
                       const jt_job_facts_t *job, const char *failed, int64_t now,
                       jt_error_t *err)
{
    jt_lease_events_t ev = { 0 };
    jt_fold_lease_t *open = NULL;
    jt_fold_reservation_t resv;
    size_t nopen = 0;
    char run[256];
    int rc, n;

    if (!jt_ledger_sink_on (s))
        return 0;
    if (jt_lease_run_id (job->cluster, job->job_id, run, sizeof (run)) < 0)
        rc = jt_errprintf (err, "run id too long");
    else if (jt_ledger_fold_open_list (s->fold, run, &open, &nopen, err) < 0)
        rc = -1;
    else {
        /* A reservation is settled before the leases start (activated) and
         * after they end (released, if it never started). */
        const jt_fold_reservation_t *r =
            jt_ledger_fold_open_resv (s->fold, run, &resv) == 0 ? &resv : NULL;

        if (what == JOB_ENDED)
            rc = jt_lease_fini (job, open, nopen, now, &ev, err) < 0
                 || jt_resv_settle (job, r, now, &ev, err) < 0 ? -1 : 0;
        else if (what == JOB_RESIZED)
            rc = jt_lease_resized (job, failed, open, nopen, now, &ev, err);
        else
            rc = jt_resv_settle (job, r, now, &ev, err) < 0
                 || jt_lease_sync (job, open, nopen, now, JT_REASON_SHRINK, &ev, err) < 0
                 ? -1 : 0;
    }
    free (open);
    n = emit (s, &ev);
    return rc < 0 ? -1 : n;
}

int jt_ledger_sink_job_sync (jt_ledger_sink_t *s, const jt_job_facts_t *job,
                             int64_t now, jt_error_t *err)
{
    return job_events (s, JOB_SYNC, job, NULL, now, err);
}

int jt_ledger_sink_job_resized (jt_ledger_sink_t *s, const jt_job_facts_t *job,
                                const char *failed, int64_t now, jt_error_t *err)
{
    return job_events (s, JOB_RESIZED, job, failed, now, err);
}

int jt_ledger_sink_job_ended (jt_ledger_sink_t *s, const jt_job_facts_t *job,
                              int64_t now, jt_error_t *err)
{
    return job_events (s, JOB_ENDED, job, NULL, now, err);
}

bool jt_ledger_sink_reserving (const jt_ledger_sink_t *s, uint32_t job_id)
{
    jt_fold_reservation_t r;
    char run[256];

    return jt_ledger_sink_on (s)
           && jt_lease_run_id (s->cluster, job_id, run, sizeof (run)) == 0
           && jt_ledger_fold_open_resv (s->fold, run, &r) == 0;
}

int jt_ledger_sink_job_reserved (jt_ledger_sink_t *s, const jt_job_facts_t *job,
                                 const jt_resv_facts_t *r, int64_t now, jt_error_t *err)
{
    jt_lease_events_t ev = { 0 };
    jt_fold_reservation_t open;
    char run[256];
    int rc;

    if (!jt_ledger_sink_on (s))
        return 0;
    if (jt_lease_run_id (job->cluster, job->job_id, run, sizeof (run)) < 0)
        return jt_errprintf (err, "run id too long");
    bool had = jt_ledger_fold_open_resv (s->fold, run, &open) == 0;
    rc = jt_resv_reserved (job, r, had ? &open : NULL, now, &ev, err);
    if (rc < 0)
        return -1;
    if (!had && s->estimates)
        free (jt_map_remove (s->estimates, run));   /* a new reservation */
    return emit (s, &ev);
}

bool jt_ledger_sink_job_estimate (jt_ledger_sink_t *s, uint32_t job_id, int64_t start)
{
    jt_fold_reservation_t open;
    char run[256];
    int64_t *v;
    void *old = NULL;

    if (!jt_ledger_sink_on (s)
        || jt_lease_run_id (s->cluster, job_id, run, sizeof (run)) < 0
        || jt_ledger_fold_open_resv (s->fold, run, &open) != 0)
        return false;
    if (!s->estimates && !(s->estimates = jt_map_create (SINK_ESTIMATES_MAX)))
        return true;            /* ENOMEM: the hold keeps the ledger's start */
    if ((v = jt_map_get (s->estimates, run))) {
        *v = start;
        return true;
    }
    if (!(v = malloc (sizeof (*v))))
        return true;
    *v = start;
    if (jt_map_put (s->estimates, run, v, &old) < 0)
        free (v);
    free (old);
    return true;
}

int64_t jt_ledger_sink_hold_start (const jt_ledger_sink_t *s,
                                   const jt_fold_reservation_t *r)
{
    const int64_t *v = s && s->estimates && r->run ? jt_map_get (s->estimates, r->run)
                                                   : NULL;
    return v ? *v : r->earliest;
}

int jt_ledger_sink_settle_resvs (jt_ledger_sink_t *s, jt_ledger_sink_job_f job,
                                 void *arg, int64_t now)
{
    jt_lease_events_t ev = { 0 };
    jt_fold_reservation_t *open = NULL;
    size_t nopen = 0;
    jt_error_t err = { "" };

    if (!jt_ledger_sink_on (s))
        return 0;
    if (jt_ledger_fold_open_resvs (s->fold, &open, &nopen, &err) < 0) {
        say (s, JT_LEDGER_SINK_ERROR, "reservations: %s", err.text);
        return 0;
    }
    for (size_t i = 0; i < nopen; i++) {
        int64_t id = jt_lease_run_job (open[i].run, s->cluster);
        jt_job_facts_t x;
        if (id < 0)
            continue;
        if (job ((uint32_t) id, &x, arg) == 0) {
            if (jt_resv_settle (&x, &open[i], now, &ev, &err) < 0)
                say (s, JT_LEDGER_SINK_ERROR, "reservation %s: %s",
                     open[i].reservation, err.text);
            job (0, &x, arg);   /* done with the facts */
        } else if (jt_resv_settle (NULL, &open[i], now, &ev, &err) < 0)
            say (s, JT_LEDGER_SINK_ERROR, "reservation %s: %s", open[i].reservation,
                 err.text);
    }
    free (open);
    return emit (s, &ev);
}

int jt_ledger_sink_budgets (jt_ledger_sink_t *s, const jt_budgets_t *b, int64_t now)
{
    jt_error_t err;
    jt_event_t *e;

    if (!jt_ledger_sink_on (s) || !b)
        return 0;
    if (!(e = jt_lease_budget_event (b, s->cluster, now, &err))) {
        say (s, JT_LEDGER_SINK_ERROR, "BudgetLoaded event: %s", err.text);
        return 0;
    }
    emit_one (s, e);
    jt_event_destroy (e);
    return 1;
}

int jt_ledger_sink_activation (jt_ledger_sink_t *s, const char *reservation,
                               const char *run, const jt_activation_req_t *req,
                               const char *const *pool_names, size_t npools,
                               const jt_activation_t *a, int64_t now, jt_error_t *err)
{
    char id[600];
    jt_event_t *e;
    int w;

    if (!jt_ledger_sink_on (s))
        return 0;
    if (req->time != now)
        return jt_errprintf (err, "Activation of %s: at %" PRId64 ", not now (%" PRId64
                             ")", reservation, req->time, now);
    w = snprintf (id, sizeof (id), "%s:activation:%" PRId64, reservation, now);
    if (w < 0 || (size_t) w >= sizeof (id))
        return jt_errprintf (err, "Activation of %s: id too long", reservation);
    if (!(e = jt_event_activation (id, reservation, run, req, a->alt, pool_names, npools,
                                   a, err)))
        return -1;
    emit_one (s, e);
    jt_event_destroy (e);
    return 1;
}

void jt_ledger_sink_add_closed (const jt_ledger_sink_t *s, jt_usage_t *u,
                                const jt_budgets_t *b)
{
    jt_fold_envelope_t c;

    for (size_t i = 0; s && s->fold && b && i < b->nenv; i++) {
        const jt_envelope_t *e = b->env[i];
        if (jt_ledger_fold_envelope (s->fold, e->name, 0, &c) < 0)
            continue;
        /* Owned part charged as the owner's, borrowed as someone else's
         * Borrowed (jt_usage_add counts it as lent and borrowed). */
        jt_usage_add (u, e, e->owner, JT_ROLE_ACTIVE, 0,
                      c.closed_gpu_hours - c.closed_borrowed_gpu_hours);
        if (c.closed_borrowed_gpu_hours > 0.)
            jt_usage_add (u, e, "", JT_ROLE_BORROWED, 0, c.closed_borrowed_gpu_hours);
    }
}

/* ---- reconciliation ---- */

/* Read the ledger once into a new fold (which replaces the sink's): from
 * its last checkpoint when it has a usable one (only the tail is folded),
 * else from genesis; the log says which and why. */
static void read_ledger (jt_ledger_sink_t *s, const char *dir)
{
    jt_ledger_result_t res;
    jt_violation_t v;
    jt_replay_info_t info;
    uint64_t nviol = 0, nopen;
    jt_error_t err;
    jt_ledger_fold_t *f =
        jt_ledger_fold_replay_dir_ckpt (dir, &res, &nviol, &v, &info, &err);

    if (!f) {
        say (s, JT_LEDGER_SINK_ERROR, "ledger %s: %s (no reconciliation)", dir, err.text);
        return;
    }
    if (nviol)
        say (s, JT_LEDGER_SINK_ERROR, "ledger %s: %" PRIu64 " invariant violations "
             "(first at seq %" PRIu64 ": %s)", dir, nviol, v.seq, v.msg);
    if (info.ckpt_seq)
        say (s, JT_LEDGER_SINK_INFO, "ledger %s: from the checkpoint at seq %" PRIu64
             " (state after seq %" PRIu64 "): %" PRIu64 " records read, %" PRIu64
             " folded", dir, info.ckpt_seq, info.up_to, info.records_read,
             info.records_folded);
    else if (info.why[0])
        say (s, JT_LEDGER_SINK_ERROR, "ledger %s: full "
             "fold from genesis, %" PRIu64 " records: %s", dir, info.records_folded,
             info.why);
    jt_ledger_fold_forget_ids (f);
    jt_ledger_fold_counts (f, NULL, NULL, NULL, &nopen);
    /* the ledger's records: its last seq (a read from a checkpoint reads
     * only the records from it on: res.nrecords) */
    say (s, JT_LEDGER_SINK_INFO, "ledger %s: %" PRIu64 " records (%s), %" PRIu64
         " open leases", dir, res.last_seq, jt_ledger_status_str (res.status), nopen);
    jt_ledger_fold_destroy (s->fold);
    s->fold = f;
}

bool jt_ledger_sink_reconcile_due (const jt_ledger_sink_t *s)
{
    return jt_ledger_sink_on (s) && !s->reconciled;
}

int jt_ledger_sink_reconcile (jt_ledger_sink_t *s, const jt_job_facts_t *jobs,
                              size_t njobs, int64_t now)
{
    jt_lease_events_t ev = { 0 };
    jt_fold_lease_t *open = NULL;
    jt_fold_reservation_t *resv = NULL;
    size_t nopen = 0, ended = 0, started = 0, nresv = 0;
    jt_error_t err = { "" };
    uint64_t after;
    int n;

    if (!jt_ledger_sink_reconcile_due (s))
        return 0;
    s->reconciled = true;
    if (s->ledger_dir)
        read_ledger (s, s->ledger_dir);
    else
        say (s, JT_LEDGER_SINK_INFO, "LedgerDir not set: no reconciliation with the "
             "ledger");
    if (jt_ledger_fold_open_list (s->fold, NULL, &open, &nopen, &err) < 0
        || jt_lease_reconcile (s->cluster, open, nopen, jobs, njobs, now, &ev, &err) < 0
        || jt_ledger_fold_open_resvs (s->fold, &resv, &nresv, &err) < 0
        || jt_resv_reconcile (s->cluster, resv, nresv, jobs, njobs, now, &ev, &err) < 0)
        say (s, JT_LEDGER_SINK_ERROR, "reconciliation with the ledger failed: %s",
             err.text);
    free (open);
    free (resv);
    for (size_t i = 0; i < ev.n; i++) {
        ended += ev.v[i]->type == JT_EV_END;
        started += ev.v[i]->type == JT_EV_START;
    }
    n = emit (s, &ev);
    jt_ledger_fold_counts (s->fold, NULL, NULL, NULL, &after);
    say (s, JT_LEDGER_SINK_INFO, "reconciled with the ledger: %zu leases closed, %"
         PRIu64 " open, %zu started", ended, after, started);
    return n;
}
