/*
 * ledger.c - the select plugin's adapter to the ledger: it reads Slurm's
 * job records into plain facts, asks libjobtree for the lease events
 * (jobtree/ledger_lease.h: ids, derivation, reconciliation) and submits
 * them to jobtree-ledgerd through the client (jobtree/ledger_client.h).
 *
 * State is one fold of the ledger (jobtree/ledger.h): the ledger in
 * LedgerDir as read once at job_init, plus every event emitted since. Its
 * open leases are what the next events are derived against; its closed
 * GPU-hours per envelope (owned and Borrowed) are what Cover adds to live
 * usage, one lookup per envelope. It forgets event ids, so it holds open
 * leases and envelopes only.
 *
 * Submitting never blocks: the client only queues, and a full queue sends
 * the event to the client's spool (overflow_to_spool) — the one durable
 * path; nothing is dropped. Reconciliation runs once, from
 * select_p_job_init, and reads LedgerDir there only.
 */
#include "config.h"

/* Slurm's own plugins include this first: it renames libslurm calls to
 * their exported slurm_* aliases, so the plugin also loads in clients
 * linked with libslurm.so. */
#include "src/common/slurm_xlator.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "src/common/hostlist.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include <jobtree/ledger.h>
#include <jobtree/ledger_client.h>
#include <jobtree/ledger_lease.h>

#include "select_jobtree.h"

#define WHO "select/cons_tres_jobtree"

static pthread_mutex_t l_lock = PTHREAD_MUTEX_INITIALIZER;
static jt_ledger_client_t *g_client;
static char *g_socket, *g_spool_dir;
static bool g_off_logged, g_reconciled;
static jt_ledger_fold_t *g_fold;

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
    hostlist_t hl = NULL;
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

/* ---- emission ---- */

/* Submit one event and apply it to the fold. */
static void emit_one (const jt_event_t *e)
{
    jt_error_t err;
    jt_violation_t v;

    debug ("%s: ledger %s %s", WHO, jt_ev_type_name (e->type), e->id);
    if (jt_ledger_client_submit_event (g_client, e, &err) < 0)
        error ("%s: ledger event %s refused: %s", WHO, e->id, err.text);
    if (g_fold && jt_ledger_fold_apply (g_fold, 0, e, &v, &err) < 0)
        error ("%s: ledger fold: %s", WHO, err.text);
}

/* Emit the events in order; empties ev. */
static void emit (jt_lease_events_t *ev)
{
    for (size_t i = 0; i < ev->n; i++)
        emit_one (ev->v[i]);
    jt_lease_events_clear (ev);
}

void jtsel_lease_event (const char *what, job_record_t *job_ptr,
                         node_record_t *node_ptr)
{
    int64_t now = (int64_t) time (NULL);
    jt_lease_events_t ev = { 0 };
    jt_fold_lease_t *open = NULL;
    size_t nopen = 0;
    char run[256];
    jt_error_t err = { "" };
    jt_job_facts_t x;
    int rc;

    slurm_mutex_lock (&l_lock);
    if (!g_client || !g_fold) {
        slurm_mutex_unlock (&l_lock);
        return;
    }
    debug ("%s: lease %s %pJ nodes=%s", WHO, what, job_ptr,
           job_ptr->nodes ? job_ptr->nodes : "");
    facts_of (job_ptr, !strcmp (what, "fini"), strcmp (what, "fini") != 0, &x);
    if (jt_lease_run_id (cluster (), job_ptr->job_id, run, sizeof (run)) < 0)
        rc = jt_errprintf (&err, "run id too long");
    else if (jt_ledger_fold_open_list (g_fold, run, &open, &nopen, &err) < 0)
        rc = -1;
    else if (!strcmp (what, "fini"))
        rc = jt_lease_fini (&x, open, nopen, now, &ev, &err);
    else if (!strcmp (what, "resized")) {
        bool failed = node_ptr && (IS_NODE_DOWN (node_ptr) || IS_NODE_FAIL (node_ptr)
                                   || IS_NODE_NO_RESPOND (node_ptr));
        rc = jt_lease_resized (&x, failed ? node_ptr->name : NULL, open, nopen, now,
                               &ev, &err);
    } else /* begin, expand */
        rc = jt_lease_sync (&x, open, nopen, now, JT_REASON_SHRINK, &ev, &err);
    if (rc < 0)
        error ("%s: lease events of %pJ: %s", WHO, job_ptr, err.text);
    free (open);
    emit (&ev);
    facts_free (&x);
    slurm_mutex_unlock (&l_lock);
}

void jtsel_ledger_budgets (const jt_budgets_t *b)
{
    jt_event_t *e;
    jt_error_t err;

    slurm_mutex_lock (&l_lock);
    if (g_client && b) {
        if (!(e = jt_lease_budget_event (b, cluster (), (int64_t) time (NULL), &err)))
            error ("%s: BudgetLoaded event: %s", WHO, err.text);
        else
            emit_one (e);
        jt_event_destroy (e);
    }
    slurm_mutex_unlock (&l_lock);
}

void jtsel_ledger_add_closed (jt_usage_t *u, const jt_budgets_t *b)
{
    jt_fold_envelope_t c;

    slurm_mutex_lock (&l_lock);
    for (size_t i = 0; g_fold && b && i < b->nenv; i++) {
        const jt_envelope_t *e = b->env[i];
        if (jt_ledger_fold_envelope (g_fold, e->name, 0, &c) < 0)
            continue;
        /* Owned part charged as the owner's, borrowed as someone else's
         * (jt_usage_add counts it as lent). */
        jt_usage_add (u, e, e->owner, 0,
                      c.closed_gpu_hours - c.closed_borrowed_gpu_hours);
        if (c.closed_borrowed_gpu_hours > 0.)
            jt_usage_add (u, e, "", 0, c.closed_borrowed_gpu_hours);
    }
    slurm_mutex_unlock (&l_lock);
}

/* ---- client lifetime ---- */

static void client_stop (void)
{
    jt_ledger_client_stats_t st;

    if (!g_client)
        return;
    jt_ledger_client_stats (g_client, &st);
    info ("%s: ledger client: %" PRIu64 " submitted, %" PRIu64 " acked, %" PRIu64
          " spooled, %" PRIu64 " rejected, %" PRIu64 " queue-full (spooled)",
          WHO, st.submitted, st.acked, st.spooled, st.rejected, st.full);
    jt_ledger_client_destroy (g_client);    /* queued -> spool */
    g_client = NULL;
}

void jtsel_ledger_configure (const jt_config_t *conf)
{
    const char *spool_dir;
    jt_ledger_client_opts_t o = { .overflow_to_spool = true };
    jt_error_t err;

    slurm_mutex_lock (&l_lock);
    if (!conf->ledger_socket) {
        client_stop ();
        if (!g_off_logged)
            info ("%s: LedgerSocket not set in jobtree.conf: the ledger is off "
                  "(no lease events)", WHO);
        g_off_logged = true;
        xfree (g_socket);
        goto out;
    }
    spool_dir = conf->ledger_spool_dir ? conf->ledger_spool_dir
                                       : slurm_conf.state_save_location;
    if (!spool_dir)
        spool_dir = "/var/spool/slurmctld";
    if (g_client && !xstrcmp (g_socket, conf->ledger_socket)
        && !xstrcmp (g_spool_dir, spool_dir))
        goto out;
    client_stop ();
    xfree (g_socket);
    xfree (g_spool_dir);
    g_socket = xstrdup (conf->ledger_socket);
    g_spool_dir = xstrdup (spool_dir);
    (void) mkdir (g_spool_dir, 0700);   /* exists already, or the client says */
    o.socket = g_socket;
    o.spool = xstrdup_printf ("%s/select.spool", g_spool_dir);
    if (!g_fold && (g_fold = jt_ledger_fold_create ()))
        jt_ledger_fold_forget_ids (g_fold);
    if (!g_fold)
        error ("%s: ledger fold: out of memory (no lease events)", WHO);
    else if (!(g_client = jt_ledger_client_create (&o, &err)))
        error ("%s: ledger client for %s: %s (no lease events)", WHO, g_socket,
               err.text);
    else
        info ("%s: ledger events to %s (spool %s)", WHO, g_socket, o.spool);
    xfree (o.spool);
out:
    slurm_mutex_unlock (&l_lock);
}

void jtsel_ledger_fini (void)
{
    slurm_mutex_lock (&l_lock);
    client_stop ();
    jt_ledger_fold_destroy (g_fold);
    g_fold = NULL;
    xfree (g_socket);
    xfree (g_spool_dir);
    g_reconciled = g_off_logged = false;
    slurm_mutex_unlock (&l_lock);
}

/* ---- reconciliation ---- */

/* Read the ledger once into a new fold (which replaces g_fold). */
static void read_ledger (const char *dir)
{
    jt_ledger_result_t res;
    jt_violation_t v;
    uint64_t nviol = 0, nopen;
    jt_error_t err;
    jt_ledger_fold_t *f = jt_ledger_fold_replay_dir (dir, &res, &nviol, &v, &err);

    if (!f) {
        error ("%s: ledger %s: %s (no reconciliation)", WHO, dir, err.text);
        return;
    }
    if (nviol)
        error ("%s: ledger %s: %" PRIu64 " invariant violations (first at seq %"
               PRIu64 ": %s)", WHO, dir, nviol, v.seq, v.msg);
    jt_ledger_fold_forget_ids (f);
    jt_ledger_fold_counts (f, NULL, NULL, NULL, &nopen);
    info ("%s: ledger %s: %" PRIu64 " records (%s), %" PRIu64 " open leases",
          WHO, dir, res.nrecords, jt_ledger_status_name (res.status), nopen);
    jt_ledger_fold_destroy (g_fold);
    g_fold = f;
}

void jtsel_ledger_reconcile (List jobs)
{
    const jt_config_t *conf = jtsel_cache_conf ();
    int64_t now = (int64_t) time (NULL);
    jt_lease_events_t ev = { 0 };
    jt_fold_lease_t *open = NULL;
    size_t nopen = 0, nj = 0, ended = 0, started = 0;
    jt_job_facts_t *x;
    ListIterator it;
    job_record_t *job_ptr;
    jt_error_t err = { "" };
    uint64_t after;

    slurm_mutex_lock (&l_lock);
    if (g_reconciled || !g_client || !g_fold || !jobs) {
        slurm_mutex_unlock (&l_lock);
        return;
    }
    g_reconciled = true;
    if (conf && conf->ledger_dir)
        read_ledger (conf->ledger_dir);
    else
        info ("%s: LedgerDir not set: no reconciliation with the ledger", WHO);
    x = xcalloc (list_count (jobs) + 1, sizeof (*x));
    it = list_iterator_create (jobs);
    while ((job_ptr = list_next (it)))
        facts_of (job_ptr, false, IS_JOB_RUNNING (job_ptr) || IS_JOB_SUSPENDED (job_ptr),
                  &x[nj++]);
    list_iterator_destroy (it);
    if (jt_ledger_fold_open_list (g_fold, NULL, &open, &nopen, &err) < 0
        || jt_lease_reconcile (cluster (), open, nopen, x, nj, now, &ev, &err) < 0)
        error ("%s: reconciliation with the ledger failed: %s", WHO, err.text);
    free (open);
    for (size_t i = 0; i < ev.n; i++) {
        ended += ev.v[i]->type == JT_EV_END;
        started += ev.v[i]->type == JT_EV_START;
    }
    emit (&ev);
    for (size_t i = 0; i < nj; i++)
        facts_free (&x[i]);
    xfree (x);
    jt_ledger_fold_counts (g_fold, NULL, NULL, NULL, &after);
    info ("%s: reconciled with the ledger: %zu leases closed, %" PRIu64 " open, %zu "
          "started", WHO, ended, after, started);
    slurm_mutex_unlock (&l_lock);
}
