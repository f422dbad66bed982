/*
 * ledger.c - the select plugin's side of the ledger: lease events sent to
 * jobtree-ledgerd, reconciliation after a slurmctld restart, and the
 * GPU-hours already used per envelope (closed leases) for Cover.
 *
 * Leases are derived from the job alone, so every id is deterministic and a
 * resend (after a restart, or from the spool) is idempotent:
 *   lease  "<cluster>:<jobid>:<start_time>:g<group>"   (group's nodes)
 *          "<cluster>:<jobid>:<start_time>:s<group>"   (its spares, Spare)
 *          with ":n<count>" appended once the lease holds fewer nodes than
 *          bound (after a shrink or a node failure);
 *   events "<lease>:start" and "<lease>:end".
 * The nodes of a lease are the bound nodes ("bound" in admin_comment) that
 * the job still holds; GPUs are the bound GPUs per node times that count.
 *
 * The plugin keeps the leases it believes open (g_open). Submitting never
 * blocks: the client only queues (jobtree/ledger_client.h). A full queue is
 * logged and counted, and the event is kept in a backlog retried at the
 * next emission (written to LedgerSpoolDir/select.overflow at fini and read
 * back at the next start), so nothing is dropped silently.
 *
 * Reconciliation runs once, from select_p_job_init (slurmctld has restored
 * its jobs): the ledger in LedgerDir is read (bounded: one pass over the
 * files, at start-up only, never from a scheduling path), its open leases of
 * this cluster are compared with the leases derived from Slurm's jobs, and
 * the difference is emitted (End JobGone for a gone job, End/Fail for a job
 * that ended while slurmctld was down, Start for a running run without one).
 * The same pass folds the GPU-hours of closed leases per envelope; later
 * Ends emitted here add to that sum, so Cover's per-call cost is one lookup
 * per envelope.
 */
#include "config.h"

/* Slurm's own plugins include this first: it renames libslurm calls to
 * their exported slurm_* aliases, so the plugin also loads in clients
 * linked with libslurm.so. */
#include "src/common/slurm_xlator.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/common/hostlist.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include <jobtree/ledger.h>
#include <jobtree/ledger_client.h>

#include "select_jobtree.h"

#define WHO "select/cons_tres_jobtree"

typedef struct closed_hours {
    char *envelope;
    double hours;               /* all closed leases paid by it */
    double borrowed;            /* of which role Borrowed */
} closed_hours_t;

static pthread_mutex_t l_lock = PTHREAD_MUTEX_INITIALIZER;
static jt_ledger_client_t *g_client;
static char *g_socket, *g_spool_dir;
static bool g_off_logged, g_reconciled;
static jt_event_t **g_open;             /* Start events of open leases */
static size_t g_nopen, g_capopen;
static char **g_backlog;                /* JSON refused by a full queue */
static size_t g_nbacklog;
static uint64_t g_full;
static closed_hours_t *g_closed;
static size_t g_nclosed;

static const char *cluster (void)
{
    return slurm_conf.cluster_name ? slurm_conf.cluster_name : "cluster";
}

/* ---- closed GPU-hours ---- */

static closed_hours_t *closed_slot (const char *env)
{
    for (size_t i = 0; i < g_nclosed; i++)
        if (!strcmp (g_closed[i].envelope, env))
            return &g_closed[i];
    xrecalloc (g_closed, g_nclosed + 1, sizeof (*g_closed));
    g_closed[g_nclosed].envelope = xstrdup (env);
    return &g_closed[g_nclosed++];
}

static void closed_add (const char *env, jt_lease_role_t role, double hours)
{
    closed_hours_t *c;

    if (!env || hours <= 0.)
        return;
    c = closed_slot (env);
    c->hours += hours;
    if (role == JT_ROLE_BORROWED)
        c->borrowed += hours;
}

void jt_sel_ledger_add_closed (jt_usage_t *u, const jt_budgets_t *b)
{
    slurm_mutex_lock (&l_lock);
    for (size_t i = 0; i < g_nclosed; i++) {
        const jt_envelope_t *e = jt_budgets_envelope (b, g_closed[i].envelope);
        if (!e)
            continue;
        /* Owned part charged as the owner's, borrowed as someone else's
         * (jt_usage_add counts it as lent). */
        jt_usage_add (u, e, e->owner, 0, g_closed[i].hours - g_closed[i].borrowed);
        if (g_closed[i].borrowed > 0.)
            jt_usage_add (u, e, "", 0, g_closed[i].borrowed);
    }
    slurm_mutex_unlock (&l_lock);
}

/* ---- submission ---- */

static void submit_json (char *json)
{
    jt_error_t err;

    if (!g_client) {
        xfree (json);
        return;
    }
    /* Keep order: the backlog goes first. */
    while (g_nbacklog > 0) {
        if (jt_ledger_client_submit (g_client, g_backlog[0], strlen (g_backlog[0]),
                                     &err) < 0 && errno == EAGAIN)
            break;
        xfree (g_backlog[0]);
        memmove (g_backlog, g_backlog + 1, (g_nbacklog - 1) * sizeof (char *));
        g_nbacklog--;
    }
    if (g_nbacklog == 0) {
        if (jt_ledger_client_submit (g_client, json, strlen (json), &err) == 0) {
            xfree (json);
            return;
        }
        if (errno != EAGAIN) {
            error ("%s: ledger event refused: %s", WHO, err.text);
            xfree (json);
            return;
        }
    }
    g_full++;
    error ("%s: ledger queue full (%" PRIu64 " times): event kept in the backlog",
           WHO, g_full);
    xrecalloc (g_backlog, g_nbacklog + 1, sizeof (char *));
    g_backlog[g_nbacklog++] = json;
}

static void submit (const jt_event_t *ev)
{
    jt_error_t err;
    char *json;

    if (!g_client)
        return;
    if (!(json = jt_event_to_json (ev, &err))) {
        error ("%s: invalid ledger event %s: %s", WHO, ev->id ? ev->id : "?",
               err.text);
        return;
    }
    debug ("%s: ledger %s %s", WHO, jt_ev_type_name (ev->type), ev->id);
    submit_json (xstrdup (json));
    free (json);
}

/* ---- open leases ---- */

static ssize_t open_find (const char *lease)
{
    for (size_t i = 0; i < g_nopen; i++)
        if (!strcmp (g_open[i]->lease, lease))
            return (ssize_t) i;
    return -1;
}

static void open_add (jt_event_t *start)
{
    if (g_nopen == g_capopen) {
        g_capopen = g_capopen ? 2 * g_capopen : 64;
        xrecalloc (g_open, g_capopen, sizeof (*g_open));
    }
    g_open[g_nopen++] = start;
}

static jt_event_t *open_take (size_t i)
{
    jt_event_t *ev = g_open[i];

    g_open[i] = g_open[--g_nopen];
    return ev;
}

/* Emit the Start of a derived lease unless it is already open. Takes ev. */
static void start_lease (jt_event_t *ev)
{
    if (open_find (ev->lease) >= 0) {
        jt_event_destroy (ev);
        return;
    }
    submit (ev);
    open_add (ev);
}

/* Close open lease i at time t with reason. */
static void end_lease (size_t i, int64_t t, jt_end_reason_t reason)
{
    jt_event_t *ev = open_take (i);
    char id[512];

    ev->type = JT_EV_END;
    ev->end = t < ev->start ? ev->start : t;
    ev->reason = reason;
    ev->time = ev->end;
    snprintf (id, sizeof (id), "%s:end", ev->lease);
    jt_event_set (&ev->id, id);
    submit (ev);
    closed_add (ev->envelope, ev->role,
                (double) ev->gpus * (double) (ev->end - ev->start) / 3600.);
    jt_event_destroy (ev);
}

/* ---- derivation from the job ---- */

/* Whether the job holds node now: its node bitmap, or (while slurmctld is
 * still restoring state and has not rebuilt the bitmaps: select_p_job_init
 * runs before them) its node list. */
static bool job_holds (const job_record_t *job_ptr, const char *node)
{
    node_record_t *node_ptr;
    hostlist_t hl;
    bool in;

    if (job_ptr->node_bitmap) {
        node_ptr = find_node_record ((char *) node);
        return node_ptr && node_ptr->index < bit_size (job_ptr->node_bitmap)
               && bit_test (job_ptr->node_bitmap, node_ptr->index);
    }
    if (!job_ptr->nodes || !(hl = hostlist_create (job_ptr->nodes)))
        return false;
    in = hostlist_find (hl, node) >= 0;
    hostlist_destroy (hl);
    return in;
}

static jt_event_t *derive_one (const job_record_t *job_ptr, const jt_jobrec_t *rec,
                               const jt_jobrec_lease_t *b, bool spare, char **nodes,
                               size_t nnodes)
{
    int64_t gpn = b->nnodes > 0 ? b->gpus / (int64_t) b->nnodes : b->gpus;
    jt_event_t *ev;
    char lease[256], id[300], run[128], group[32];
    const char *owner = rec->run && rec->run->owner ? rec->run->owner
                                                     : job_ptr->account;
    size_t full = spare ? b->nspares : b->nnodes;
    size_t held = 0;

    for (size_t k = 0; k < nnodes; k++)
        if (job_holds (job_ptr, nodes[k]))
            held++;
    if (held == 0 || gpn < 1 || !(ev = jt_event_create (JT_EV_START)))
        return NULL;
    snprintf (run, sizeof (run), "%s:%u", cluster (), job_ptr->job_id);
    snprintf (lease, sizeof (lease), "%s:%" PRId64 ":%c%d", run,
              (int64_t) job_ptr->start_time, spare ? 's' : 'g', b->group);
    if (held < full) {
        size_t l = strlen (lease);
        snprintf (lease + l, sizeof (lease) - l, ":n%zu", held);
    }
    snprintf (id, sizeof (id), "%s:start", lease);
    snprintf (group, sizeof (group), spare ? "spare/%d" : "%d", b->group);
    jt_event_set (&ev->id, id);
    jt_event_set (&ev->lease, lease);
    jt_event_set (&ev->run, run);
    jt_event_set (&ev->group, group);
    jt_event_set (&ev->envelope, b->envelope);
    jt_event_set (&ev->owner, owner && *owner ? owner : "unknown");
    for (size_t k = 0; k < nnodes; k++)
        if (job_holds (job_ptr, nodes[k]))
            jt_event_add_node (ev, nodes[k]);
    ev->gpus = gpn * (int64_t) held;
    ev->role = spare ? JT_ROLE_SPARE : b->role;
    ev->start = rec->bound_time ? rec->bound_time : (int64_t) job_ptr->start_time;
    ev->time = ev->start;
    return ev;
}

/* The leases a running job holds now. Returns the count (*out malloc'd with
 * xmalloc; events owned by the caller). */
static size_t derive (const job_record_t *job_ptr, jt_event_t ***out)
{
    jt_jobrec_t rec;
    jt_error_t err;
    size_t n = 0;

    *out = NULL;
    if (!jt_sel_is_jobtree (job_ptr)
        || jt_jobrec_parse (job_ptr->admin_comment, &rec, &err) < 0)
        return 0;
    *out = xcalloc (2 * rec.nbound + 1, sizeof (**out));
    for (size_t i = 0; i < rec.nbound; i++) {
        jt_event_t *ev = derive_one (job_ptr, &rec, &rec.bound[i], false,
                                     rec.bound[i].nodes, rec.bound[i].nnodes);
        if (ev)
            (*out)[n++] = ev;
        if (rec.bound[i].nspares
            && (ev = derive_one (job_ptr, &rec, &rec.bound[i], true,
                                 rec.bound[i].spares, rec.bound[i].nspares)))
            (*out)[n++] = ev;
    }
    jt_jobrec_free (&rec);
    return n;
}

static bool is_run_of (const char *run, const job_record_t *job_ptr)
{
    char want[128];

    snprintf (want, sizeof (want), "%s:%u", cluster (), job_ptr->job_id);
    return run && !strcmp (run, want);
}

/* Bring the job's open leases in line with what it holds now: leases no
 * longer derived end with `gone` (Shrink, Fail), new ones start. */
static void sync_job (const job_record_t *job_ptr, int64_t now,
                      jt_end_reason_t gone)
{
    jt_event_t **d;
    size_t nd = derive (job_ptr, &d);

    for (size_t i = 0; i < g_nopen;) {
        bool keep = !is_run_of (g_open[i]->run, job_ptr);
        for (size_t k = 0; !keep && k < nd; k++)
            keep = !strcmp (d[k]->lease, g_open[i]->lease);
        if (keep)
            i++;
        else
            end_lease (i, now, gone);
    }
    for (size_t k = 0; k < nd; k++) {
        const char *last = strrchr (d[k]->lease, ':');
        /* A shrunk remainder (":n<count>") starts now. */
        if (last && last[1] == 'n' && now > d[k]->start)
            d[k]->start = d[k]->time = now;
        start_lease (d[k]);
    }
    xfree (d);
}

static jt_end_reason_t fini_reason (const job_record_t *job_ptr)
{
    if (IS_JOB_NODE_FAILED (job_ptr) || job_ptr->state_reason == FAIL_DOWN_NODE)
        return JT_REASON_FAIL;
    return JT_REASON_END;
}

/* ---- hooks ---- */

void jt_sel_lease_event (const char *what, job_record_t *job_ptr,
                         node_record_t *node_ptr)
{
    int64_t now = (int64_t) time (NULL);

    slurm_mutex_lock (&l_lock);
    if (!g_client) {
        slurm_mutex_unlock (&l_lock);
        return;
    }
    debug ("%s: lease %s %pJ nodes=%s", WHO, what, job_ptr,
           job_ptr->nodes ? job_ptr->nodes : "");
    if (!strcmp (what, "begin") || !strcmp (what, "expand"))
        sync_job (job_ptr, now, JT_REASON_SHRINK);
    else if (!strcmp (what, "resized")) {
        bool failed = node_ptr && (IS_NODE_DOWN (node_ptr) || IS_NODE_FAIL (node_ptr)
                                   || IS_NODE_NO_RESPOND (node_ptr));
        if (failed) {
            jt_event_t *nf = jt_event_create (JT_EV_NODE_FAIL);
            char id[300], run[128];
            if (nf) {
                snprintf (run, sizeof (run), "%s:%u", cluster (), job_ptr->job_id);
                snprintf (id, sizeof (id), "%s:%" PRId64 ":nodefail:%s", run,
                          (int64_t) job_ptr->start_time, node_ptr->name);
                jt_event_set (&nf->id, id);
                jt_event_set (&nf->run, run);
                jt_event_add_node (nf, node_ptr->name);
                nf->time = now;
                submit (nf);
                jt_event_destroy (nf);
            }
        }
        sync_job (job_ptr, now, failed ? JT_REASON_FAIL : JT_REASON_SHRINK);
    } else if (!strcmp (what, "fini")) {
        jt_end_reason_t r = fini_reason (job_ptr);
        int64_t t = job_ptr->end_time > 0 ? (int64_t) job_ptr->end_time : now;
        for (size_t i = 0; i < g_nopen;) {
            if (is_run_of (g_open[i]->run, job_ptr))
                end_lease (i, t, r);
            else
                i++;
        }
    }
    slurm_mutex_unlock (&l_lock);
}

void jt_sel_ledger_budgets (const jt_budgets_t *b)
{
    jt_event_t *ev;
    jt_error_t err;
    char id[128];
    uint64_t h = 1469598103934665603ULL;    /* FNV-1a of the file hashes */

    slurm_mutex_lock (&l_lock);
    if (!g_client || !b) {
        slurm_mutex_unlock (&l_lock);
        return;
    }
    if (!(ev = jt_event_budget_loaded (b, "pending", (int64_t) time (NULL), &err))) {
        error ("%s: BudgetLoaded event: %s", WHO, err.text);
        slurm_mutex_unlock (&l_lock);
        return;
    }
    /* The same budget files loaded again (a reconfigure, a restart) give
     * the same id, so the ledger records each distinct set once. */
    for (size_t i = 0; i < ev->nfiles; i++)
        for (const char *p = ev->files[i].sha256; *p; p++) {
            h ^= (unsigned char) *p;
            h *= 1099511628211ULL;
        }
    snprintf (id, sizeof (id), "%s:budgets:%016" PRIx64, cluster (), h);
    jt_event_set (&ev->id, id);
    submit (ev);
    jt_event_destroy (ev);
    slurm_mutex_unlock (&l_lock);
}

/* ---- client lifetime ---- */

static char *overflow_path (void)
{
    return xstrdup_printf ("%s/select.overflow", g_spool_dir);
}

/* Events a full queue left in the backlog at the last fini. */
static void overflow_load (void)
{
    char *path = overflow_path (), *line = NULL;
    size_t cap = 0;
    ssize_t n;
    FILE *f = fopen (path, "r");

    if (f) {
        while ((n = getline (&line, &cap, f)) > 0) {
            if (line[n - 1] == '\n')
                line[--n] = '\0';
            if (n > 0)
                submit_json (xstrdup (line));
        }
        free (line);
        fclose (f);
        unlink (path);
    }
    xfree (path);
}

static void overflow_save (void)
{
    char *path;
    FILE *f;

    if (!g_nbacklog)
        return;
    path = overflow_path ();
    if ((f = fopen (path, "a"))) {
        for (size_t i = 0; i < g_nbacklog; i++)
            fprintf (f, "%s\n", g_backlog[i]);
        fflush (f);
        fsync (fileno (f));
        fclose (f);
    } else
        error ("%s: cannot save %zu ledger events to %s: %m", WHO, g_nbacklog, path);
    xfree (path);
    for (size_t i = 0; i < g_nbacklog; i++)
        xfree (g_backlog[i]);
    xfree (g_backlog);
    g_nbacklog = 0;
}

static void client_stop (void)
{
    if (g_client) {
        jt_ledger_client_stats_t st;
        jt_ledger_client_stats (g_client, &st);
        info ("%s: ledger client: %" PRIu64 " submitted, %" PRIu64 " acked, %"
              PRIu64 " spooled, %" PRIu64 " rejected, %" PRIu64 " queue-full",
              WHO, st.submitted, st.acked, st.spooled, st.rejected, g_full);
        jt_ledger_client_destroy (g_client);    /* pending -> spool */
        g_client = NULL;
    }
    if (g_spool_dir)
        overflow_save ();
}

void jt_sel_ledger_configure (const jt_config_t *conf)
{
    const char *spool_dir;
    jt_ledger_client_opts_t o;
    jt_error_t err;
    char *spool;

    slurm_mutex_lock (&l_lock);
    if (!conf->ledger_socket) {
        if (g_client)
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
    (void) mkdir (g_spool_dir, 0700);
    spool = xstrdup_printf ("%s/select.spool", g_spool_dir);
    memset (&o, 0, sizeof (o));
    o.socket = g_socket;
    o.spool = spool;
    if (!(g_client = jt_ledger_client_create (&o, &err)))
        error ("%s: ledger client for %s: %s (no lease events)", WHO, g_socket,
               err.text);
    else {
        info ("%s: ledger events to %s (spool %s)", WHO, g_socket, spool);
        overflow_load ();
    }
    xfree (spool);
out:
    slurm_mutex_unlock (&l_lock);
}

void jt_sel_ledger_fini (void)
{
    slurm_mutex_lock (&l_lock);
    client_stop ();
    for (size_t i = 0; i < g_nopen; i++)
        jt_event_destroy (g_open[i]);
    xfree (g_open);
    g_nopen = g_capopen = 0;
    for (size_t i = 0; i < g_nclosed; i++)
        xfree (g_closed[i].envelope);
    xfree (g_closed);
    g_nclosed = 0;
    xfree (g_socket);
    xfree (g_spool_dir);
    g_reconciled = g_off_logged = false;
    slurm_mutex_unlock (&l_lock);
}

/* ---- reconciliation ---- */

static job_record_t *find_job_of_run (List jobs, const char *run)
{
    const char *colon = strrchr (run, ':');
    size_t cl = strlen (cluster ());
    ListIterator it;
    job_record_t *job_ptr, *found = NULL;
    uint32_t id;

    if (!colon || (size_t) (colon - run) != cl || strncmp (run, cluster (), cl))
        return NULL;
    id = (uint32_t) strtoul (colon + 1, NULL, 10);
    it = list_iterator_create (jobs);
    while ((job_ptr = list_next (it)))
        if (job_ptr->job_id == id) {
            found = job_ptr;
            break;
        }
    list_iterator_destroy (it);
    return found;
}

/* Read the ledger once: its open leases of this cluster become g_open, the
 * GPU-hours of its closed leases g_closed. */
static void read_ledger (const char *dir, int64_t now)
{
    char **paths = NULL;
    size_t npaths = 0, nopen, nenv;
    jt_ledger_result_t res;
    jt_violation_t v;
    uint64_t nviol = 0;
    jt_ledger_fold_t *f;
    jt_fold_lease_t *open;
    jt_fold_envelope_t *envs;
    jt_error_t err;
    size_t cl = strlen (cluster ());

    if (jt_ledger_segments (dir, &paths, &npaths, &err) < 0) {
        error ("%s: ledger %s: %s (no reconciliation)", WHO, dir, err.text);
        return;
    }
    f = jt_ledger_fold_replay ((const char *const *) paths, npaths, &res, &nviol,
                               &v, &err);
    jt_ledger_segments_free (paths, npaths);
    if (!f) {
        error ("%s: ledger %s unreadable: %s (no reconciliation)", WHO, dir, err.text);
        return;
    }
    if (nviol)
        error ("%s: ledger %s: %" PRIu64 " invariant violations (first at seq %"
               PRIu64 ": %s)", WHO, dir, nviol, v.seq, v.msg);
    nenv = jt_ledger_fold_envelopes (f, now, NULL, 0);
    envs = xcalloc (nenv + 1, sizeof (*envs));
    jt_ledger_fold_envelopes (f, now, envs, nenv);
    for (size_t i = 0; i < nenv; i++) {
        closed_add (envs[i].name, JT_ROLE_ACTIVE,
                    envs[i].gpu_hours - envs[i].borrowed_gpu_hours);
        closed_add (envs[i].name, JT_ROLE_BORROWED, envs[i].borrowed_gpu_hours);
    }
    nopen = jt_ledger_fold_open (f, NULL, 0);
    open = xcalloc (nopen + 1, sizeof (*open));
    jt_ledger_fold_open (f, open, nopen);
    for (size_t i = 0; i < nopen; i++) {
        const jt_fold_lease_t *l = &open[i];
        double el = l->start < now ? (double) l->gpus * (double) (now - l->start)
                                         / 3600. : 0.;
        jt_event_t *ev;
        char id[300];

        /* gpu_hours above counted open leases up to now: take that back. */
        {
            closed_hours_t *c = closed_slot (l->envelope);
            c->hours -= el;
            if (l->role == JT_ROLE_BORROWED)
                c->borrowed -= el;
        }
        if (strncmp (l->run, cluster (), cl) || l->run[cl] != ':')
            continue;
        if (!(ev = jt_event_create (JT_EV_START)))
            continue;
        snprintf (id, sizeof (id), "%s:start", l->lease);
        jt_event_set (&ev->id, id);
        jt_event_set (&ev->lease, l->lease);
        jt_event_set (&ev->run, l->run);
        jt_event_set (&ev->group, l->group);
        jt_event_set (&ev->envelope, l->envelope);
        jt_event_set (&ev->owner, l->owner);
        for (size_t k = 0; k < l->nnodes; k++)
            jt_event_add_node (ev, l->nodes[k]);
        ev->gpus = l->gpus;
        ev->role = l->role;
        ev->start = ev->time = l->start;
        open_add (ev);
    }
    info ("%s: ledger %s: %" PRIu64 " records (%s), %zu open leases, %zu envelopes",
          WHO, dir, res.nrecords, jt_ledger_status_name (res.status), nopen, nenv);
    xfree (open);
    xfree (envs);
    jt_ledger_fold_destroy (f);
}

void jt_sel_ledger_reconcile (List jobs)
{
    const jt_config_t *conf = jt_sel_cache_conf ();
    int64_t now = (int64_t) time (NULL);
    ListIterator it;
    job_record_t *job_ptr;
    size_t ended = 0, before;

    slurm_mutex_lock (&l_lock);
    if (g_reconciled || !g_client || !jobs) {
        slurm_mutex_unlock (&l_lock);
        return;
    }
    g_reconciled = true;
    if (conf && conf->ledger_dir)
        read_ledger (conf->ledger_dir, now);
    else
        info ("%s: LedgerDir not set: no reconciliation with the ledger", WHO);
    /* Open leases whose job is gone, ended, or holds other nodes now. */
    for (size_t i = 0; i < g_nopen;) {
        job_record_t *j = find_job_of_run (jobs, g_open[i]->run);
        if (!j) {
            end_lease (i, now, JT_REASON_JOB_GONE);
            ended++;
        } else if (!(IS_JOB_RUNNING (j) || IS_JOB_SUSPENDED (j))) {
            end_lease (i, j->end_time > 0 ? (int64_t) j->end_time : now,
                       fini_reason (j));
            ended++;
        } else
            i++;
    }
    before = g_nopen;
    it = list_iterator_create (jobs);
    while ((job_ptr = list_next (it)))
        if ((IS_JOB_RUNNING (job_ptr) || IS_JOB_SUSPENDED (job_ptr))
            && jt_sel_is_jobtree (job_ptr))
            sync_job (job_ptr, now, JT_REASON_SHRINK);
    list_iterator_destroy (it);
    info ("%s: reconciled with the ledger: %zu leases closed, %zu open, %zd started",
          WHO, ended, g_nopen, (ssize_t) g_nopen - (ssize_t) before);
    slurm_mutex_unlock (&l_lock);
}
