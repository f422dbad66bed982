/*
 * restart.c - a requeued run's restart, held for it from the requeue
 * (docs/select-plugin.md, "Spares" and "Elasticity"; the decision is
 * libjobtree's: jt_sched_restart, jt_elastic_slice, jt_sched_nominated).
 *
 * When a --checkpoint run is requeued while it runs (a group out of
 * spares, select_p_job_resized; grown at a checkpoint, elastic.c; taken
 * by an activation's lottery, activation.c, never onto the nodes the
 * activated run is to start on), its
 * restart is planned at once on the cache's snapshot (the run's own leases
 * left out, its failed node down; a grow only on its nodes and its new
 * groups') and kept here: the slice's nodes, payer, GPUs and earliest
 * start (now + cred_expire + 1 s, Slurm's hold on a requeued batch job,
 * or when the slice's holders end by their time limits). From then on:
 *
 *   - every other job's job_test (RUN_NOW, WILL_RUN) loses the slice's
 *     nodes unless it ends by the start (jtsel_restart_narrow): the slice
 *     is held as backfill holds a Plan-Later reservation's nodes, also
 *     while Slurm keeps the requeued job out of scheduling (BeginTime);
 *   - the run itself is planned on its slice (jtsel_restart_slice); refused
 *     there it waits for the slice and binds nowhere else while the slice
 *     holds (jtsel_restart_waits: libjobtree's jt_restart_where), and its
 *     reservation never activates (jtsel_restart_held: no cascade);
 *   - the slice is planned only on nodes the job may use (its partition,
 *     its Slurm features);
 *   - at the requeue's job_fini the ledger gets its ReservationCreate
 *     (jtsel_ledger_restart), which activates when the run starts or is
 *     released when it ends without starting, as any reservation.
 *
 * The same hold keeps a domain an activation cleared for the run it
 * activated (jtsel_restart_nominate, seed 002's nomination): from the
 * activation until the run starts there, every other job's job_test loses
 * its nodes, so a third job cannot take what the victims freed; it lapses
 * after Slurm's hold on the victims' requeue plus NOMINATE_SLACK.
 *
 * An entry ends when the run starts (select_p_select_nodeinfo_set), when
 * its job_fini is no requeue (cancelled instead), or when its job is gone
 * or no longer pending. Entries are few (runs requeued and not yet
 * restarted); each job_test pays one pass over them, nothing when there
 * are none. Guarded by r_lock; callers hold slurmctld's job lock.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/node_conf.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include <jobtree/elastic.h>
#include <jobtree/record.h>
#include <jobtree/timeutil.h>

#include "select_jobtree.h"

#define WHO "select/cons_tres_jobtree"
#define CRED_EXPIRE_DEFAULT 1200        /* Slurm's DEFAULT_EXPIRATION_WINDOW */
#define CRED_EXPIRE_MAX (1 << 29)
/* A nomination outlives Slurm's hold on the victims' requeue by this
 * much (their epilogs, the nodes' cleanup), then lapses: a run that did
 * not start on its cleared domain by then holds nothing. */
#define NOMINATE_SLACK 300

typedef struct entry {
    uint32_t job_id;
    char self[16];              /* the run's name in the snapshot */
    char **nodes;               /* the slice */
    size_t nnodes;
    int64_t start;
    char *envelope;
    int64_t gpus;
    char *line;                 /* the reason line while it waits */
    bool requeued;              /* its requeue's job_fini was seen */
    int64_t expires;            /* a nomination: held until then at most
                                 * (0: a restart, held until it starts) */
} entry_t;

static pthread_mutex_t r_lock = PTHREAD_MUTEX_INITIALIZER;
static entry_t *g_v;            /* guarded by r_lock */
static size_t g_n;

static void entry_free (entry_t *e)
{
    for (size_t k = 0; k < e->nnodes; k++)
        xfree (e->nodes[k]);
    xfree (e->nodes);
    xfree (e->envelope);
    xfree (e->line);
}

/* The entry of job_id, or NULL. r_lock held. */
static entry_t *find (uint32_t job_id)
{
    for (size_t i = 0; i < g_n; i++)
        if (g_v[i].job_id == job_id)
            return &g_v[i];
    return NULL;
}

static void drop_at (size_t i)
{
    entry_free (&g_v[i]);
    g_v[i] = g_v[--g_n];
}

static void drop (uint32_t job_id)
{
    for (size_t i = 0; i < g_n; i++)
        if (g_v[i].job_id == job_id) {
            drop_at (i);
            return;
        }
}

/* Slurm's hold on a requeued batch job: cred_expire (AuthInfo, default
 * 1200 s, at least 5) + 1 s (job_mgr.c batch_requeue_fini). */
static int64_t requeue_delay (void)
{
    const char *tok = slurm_conf.authinfo ? strstr (slurm_conf.authinfo, "cred_expire=")
                                          : NULL;
    long v = CRED_EXPIRE_DEFAULT;

    if (tok) {
        char *end;
        v = strtol (tok + 12, &end, 10);
        if (end == tok + 12 || v < 5 || v > CRED_EXPIRE_MAX)
            v = v < 5 ? 5 : CRED_EXPIRE_DEFAULT;
    }
    return (int64_t) v + 1;
}

/* Leave out of el[] the snapshot's nodes job may never run on: outside
 * its partition or its Slurm features (--constraint; slurmctld's own
 * valid_feature_counts, the same in 22.05, 24.11 and 26.05). A slice there
 * would be held for a run that cannot start on it (jt_restart_where then
 * waits out its grace). The count of nodes left. Work: the node table. */
static size_t usable (job_record_t *job_ptr, const jt_snapshot_t *s, bool *el, size_t n)
{
    bitstr_t *bm = bit_alloc (node_record_count);
    bool has_xor = false;

    if (job_ptr->part_ptr && job_ptr->part_ptr->node_bitmap
        && bit_size (job_ptr->part_ptr->node_bitmap) == bit_size (bm))
        bit_copybits (bm, job_ptr->part_ptr->node_bitmap);
    else
        bit_set_all (bm);
    if (job_ptr->details
        && valid_feature_counts (job_ptr, true, bm, &has_xor) != SLURM_SUCCESS) {
        FREE_NULL_BITMAP (bm);          /* Slurm cannot tell: leave it to Pack */
        return n;
    }
    debug ("%s: %pJ: its restart may use %d of %d nodes (partition, features %s)",
           WHO, job_ptr, bit_set_count (bm), (int) bit_size (bm),
           job_ptr->details && job_ptr->details->features
           ? job_ptr->details->features : "-");
    for (size_t k = 0; k < s->nnodes; k++) {
        node_record_t *np;
        if (!el[k])
            continue;
        if (!(np = find_node_record (s->nodes[k].name)) || np->index >= bit_size (bm)
            || !bit_test (bm, np->index)) {
            el[k] = false;
            n--;
        }
    }
    FREE_NULL_BITMAP (bm);
    return n;
}

static void plan (job_record_t *job_ptr, const node_record_t *failed,
                  const jt_grow_t *grow, const jt_node_set_t *taken,
                  jtsel_cache_t *c)
{
    int64_t now = (int64_t) time (NULL);
    jt_jobrec_t rec;
    jt_error_t err = { "" };
    jt_restart_t r;
    entry_t e = { .job_id = job_ptr->job_id };
    bool *el;
    size_t n;

    if (jt_jobrec_parse (job_ptr->admin_comment, &rec, &err) < 0 || !rec.run
        || !rec.run->flavor) {
        jt_jobrec_free (&rec);
        return;
    }
    if (rec.run->checkpoint_s <= 0 || (!c && !(c = jtsel_cache_get (&err)))
        || !c->budgets || !c->topo) {
        if (rec.run->checkpoint_s > 0)
            debug ("%s: %pJ: restart not reserved: %s", WHO, job_ptr,
                   err.text[0] ? err.text : "no budgets");
        jt_jobrec_free (&rec);
        return;
    }
    const jt_snapshot_t *s = c->topo->snap;
    snprintf (e.self, sizeof (e.self), "%u", job_ptr->job_id);
    el = xcalloc (s->nnodes + 1, sizeof (*el));
    if (grow)
        n = jt_elastic_slice (grow, s, e.self, el);
    else
        for (n = 0; n < s->nnodes; n++)
            el[n] = !failed || strcmp (s->nodes[n].name, failed->name);
    n = usable (job_ptr, s, el, n);
    for (size_t k = 0; taken && k < taken->nnodes; k++)
        if (taken->nodes[k] < s->nnodes && el[taken->nodes[k]]) {
            el[taken->nodes[k]] = false;
            n--;
        }
    /* never onto another run's held restart (two victims of one
     * activation are planned one after the other on the same snapshot) */
    slurm_mutex_lock (&r_lock);
    for (size_t i = 0; i < g_n; i++)
        for (size_t k = 0; g_v[i].job_id != e.job_id && k < g_v[i].nnodes; k++) {
            ssize_t x = jt_snapshot_node_index (s, g_v[i].nodes[k]);
            if (x >= 0 && el[x]) {
                el[x] = false;
                n--;
            }
        }
    slurm_mutex_unlock (&r_lock);
    jt_sched_request_t req = {
        .budgets = c->budgets, .snap = c->topo->snap, .eligible = el, .run = rec.run,
        .now = now, .tense = JT_TENSE_NOW, .opts = c->plan_opts,
        .min_nodes = job_ptr->details ? job_ptr->details->min_nodes : 0,
        .max_nodes = job_ptr->details ? job_ptr->details->max_nodes : 0,
    };
    if (n == 0 || jt_sched_restart (&req, e.self, requeue_delay (),
                                    jtsel_topo_free_at (c->topo), &r, &err) < 0) {
        if (n)
            error ("%s: %pJ: restart not reserved: %s", WHO, job_ptr, err.text);
        xfree (el);
        jt_jobrec_free (&rec);
        return;
    }
    if (!r.reserved) {
        info ("%s: %pJ: restart not reserved: %s", WHO, job_ptr, r.detail);
    } else {
        e.nodes = xcalloc (r.slice.nnodes + 1, sizeof (*e.nodes));
        for (size_t k = 0; k < r.slice.nnodes; k++)
            e.nodes[e.nnodes++] = xstrdup (s->nodes[r.slice.nodes[k]].name);
        e.start = r.start;
        e.envelope = xstrdup (r.payer ? r.payer->name : "");
        e.gpus = r.plan.total_gpus;
        e.line = xstrdup (r.line);
        slurm_mutex_lock (&r_lock);
        drop (e.job_id);
        xrecalloc (g_v, g_n + 1, sizeof (*g_v));
        g_v[g_n++] = e;
        slurm_mutex_unlock (&r_lock);
        {
            char *names = NULL;
            for (size_t k = 0; k < e.nnodes; k++)
                xstrfmtcat (names, "%s%s", k ? "," : "", e.nodes[k]);
            info ("%s: %pJ: requeued: %s on %s", WHO, job_ptr, r.line + 9,
                  names ? names : "");
            xfree (names);
        }
    }
    jt_restart_free (&r);
    xfree (el);
    jt_jobrec_free (&rec);
}

void jtsel_restart_plan (job_record_t *job_ptr, const node_record_t *failed,
                         const jt_grow_t *grow, jtsel_cache_t *c)
{
    plan (job_ptr, failed, grow, NULL, c);
}

void jtsel_restart_plan_victim (job_record_t *job_ptr, const jt_node_set_t *taken,
                                jtsel_cache_t *c)
{
    plan (job_ptr, NULL, NULL, taken, c);
}

void jtsel_restart_nominate (const job_record_t *job_ptr, const jt_node_set_t *set,
                             const jt_snapshot_t *s)
{
    int64_t now = (int64_t) time (NULL);
    entry_t e = { .job_id = job_ptr->job_id, .start = now,
                  .expires = now + requeue_delay () + NOMINATE_SLACK };

    snprintf (e.self, sizeof (e.self), "%u", job_ptr->job_id);
    e.nodes = xcalloc (set->nnodes + 1, sizeof (*e.nodes));
    for (size_t k = 0; k < set->nnodes; k++)
        if (set->nodes[k] < s->nnodes)
            e.nodes[e.nnodes++] = xstrdup (s->nodes[set->nodes[k]].name);
    slurm_mutex_lock (&r_lock);
    drop (e.job_id);
    xrecalloc (g_v, g_n + 1, sizeof (*g_v));
    g_v[g_n++] = e;
    slurm_mutex_unlock (&r_lock);
}

void jtsel_restart_fini (job_record_t *job_ptr)
{
    entry_t *e;
    bool requeued = IS_JOB_PENDING (job_ptr);

    slurm_mutex_lock (&r_lock);
    if (!(e = find (job_ptr->job_id)) || e->requeued) {
        /* a restarted run's entry ended when it started */
        if (e)
            drop (job_ptr->job_id);
        slurm_mutex_unlock (&r_lock);
        return;
    }
    if (!requeued) {            /* cancelled instead (--no-requeue) */
        drop (job_ptr->job_id);
        slurm_mutex_unlock (&r_lock);
        return;
    }
    e->requeued = true;
    jtsel_ledger_restart (job_ptr, e->envelope, (const char *const *) e->nodes,
                          e->nnodes, e->gpus, e->start);
    jtsel_set_reason (job_ptr, "%s", e->line);
    slurm_mutex_unlock (&r_lock);
}

void jtsel_restart_started (const job_record_t *job_ptr)
{
    slurm_mutex_lock (&r_lock);
    if (g_n)
        drop (job_ptr->job_id);
    slurm_mutex_unlock (&r_lock);
}

/* Is entry i over (its job gone, or neither pending nor still running
 * before its requeue)? r_lock held, job lock held by the caller. */
static bool over (const entry_t *e)
{
    job_record_t *j = find_job_record (e->job_id);

    if (!j || (e->expires && (int64_t) time (NULL) > e->expires))
        return true;
    return e->requeued ? !IS_JOB_PENDING (j) : !IS_JOB_RUNNING (j) && !IS_JOB_PENDING (j);
}

void jtsel_restart_narrow (job_record_t *job_ptr, bitstr_t *bitmap, uint16_t mode)
{
    char self[16];
    int64_t end = 0, now;

    if (!bitmap || SELECT_IS_MODE_TEST_ONLY (mode) || SELECT_IS_MODE_RESV (mode))
        return;
    slurm_mutex_lock (&r_lock);
    if (!g_n) {
        slurm_mutex_unlock (&r_lock);
        return;
    }
    now = (int64_t) time (NULL);
    snprintf (self, sizeof (self), "%u", job_ptr->job_id);
    if (job_ptr->time_limit != NO_VAL && job_ptr->time_limit != INFINITE)
        end = now + 60 * (int64_t) job_ptr->time_limit;
    for (size_t i = 0; i < g_n;) {
        entry_t *e = &g_v[i];
        if (over (e)) {
            drop_at (i);
            continue;
        }
        if (jt_sched_nominated (e->self, e->start, self, end))
            for (size_t k = 0; k < e->nnodes; k++) {
                node_record_t *np = find_node_record (e->nodes[k]);
                if (np && np->index < bit_size (bitmap))
                    bit_clear (bitmap, np->index);
            }
        i++;
    }
    slurm_mutex_unlock (&r_lock);
}

bitstr_t *jtsel_restart_slice (const job_record_t *job_ptr, bitstr_t *bitmap,
                               char *line, size_t len)
{
    bitstr_t *bm = NULL;
    entry_t *e;

    slurm_mutex_lock (&r_lock);
    if (g_n && (e = find (job_ptr->job_id)) && e->requeued) {
        bm = bit_alloc (bit_size (bitmap));
        for (size_t k = 0; k < e->nnodes; k++) {
            node_record_t *np = find_node_record (e->nodes[k]);
            if (np && np->index < bit_size (bitmap) && bit_test (bitmap, np->index))
                bit_set (bm, np->index);
        }
        snprintf (line, len, "%s", e->line);
    }
    slurm_mutex_unlock (&r_lock);
    return bm;
}

bool jtsel_restart_waits (const job_record_t *job_ptr, const jt_snapshot_t *s,
                          jt_answer_kind_t on_slice)
{
    jt_restart_where_t w = JT_RESTART_SLICE;
    entry_t *e;

    slurm_mutex_lock (&r_lock);
    if (g_n && (e = find (job_ptr->job_id)) && e->requeued) {
        w = jt_restart_where (s, (const char *const *) e->nodes, e->nnodes, e->start,
                              (int64_t) time (NULL), on_slice);
        if (w == JT_RESTART_LOST) {
            info ("%s: %pJ: its restart's slice is lost (a node down or gone, or "
                  "%d s past its start): planned as any waiting run", WHO, job_ptr,
                  JT_RESTART_GRACE);
            drop (job_ptr->job_id);
        }
    }
    slurm_mutex_unlock (&r_lock);
    return w == JT_RESTART_WAIT;
}

bool jtsel_restart_held (uint32_t job_id)
{
    entry_t *e;
    bool held;

    slurm_mutex_lock (&r_lock);
    held = g_n && (e = find (job_id)) && e->requeued && !e->expires;
    slurm_mutex_unlock (&r_lock);
    return held;
}

void jtsel_restart_fini_all (void)
{
    slurm_mutex_lock (&r_lock);
    for (size_t i = 0; i < g_n; i++)
        entry_free (&g_v[i]);
    xfree (g_v);
    g_n = 0;
    slurm_mutex_unlock (&r_lock);
}
