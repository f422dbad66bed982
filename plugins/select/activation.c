/*
 * activation.c - a reservation's activation inside job_test (RUN_NOW).
 *
 * A funded run that Pack cannot place waits under a reservation (the
 * ledger's ReservationCreate, created at its first estimate). jobtree.conf
 * MaxWait bounds that wait: from created + MaxWait on, when slurmctld asks
 * whether the run may start now and offers preemptees (preempt/jobtree
 * offers running Jobtree runs only), libjobtree decides who gives way
 * (jt_activation_slice + jt_activate: the run's single-domain estimate sets
 * in Pack's order, a multi-domain run's fabric units fewest first (one
 * block cleared before pieces of several; the nodes asked of cons_tres
 * are the alternative's, jt_activation_alt_set), of the first K the
 * holders can cover the one that frees
 * the deficit at the least global cost, whole gangs by the published
 * lottery). This file only translates: Slurm's jobs to the
 * snapshot's runs and back, cons_tres's per-node check that the run fits
 * once the victims are gone, the victims to *preemptee_job_list (slurmctld
 * requeues them, PreemptMode=REQUEUE, and starts the run when their nodes
 * are free), and the decision to the ledger (an Activation event, whose
 * seed and conflict set `jobtree verify` replays).
 *
 * The activation instant is created + MaxWait, not the wall clock of the
 * pass that sees it: the seed depends only on what the ledger records.
 * One activation per reservation (the plugin remembers the recent ones;
 * the ledger's event id is deterministic, so a resend after a restart is
 * the same event). Cost: one plan in ESTIMATE plus one pass over the
 * snapshot's leases; only for a run whose reservation is due.
 *
 * Only RUN_NOW activates, and backfill, which creates the reservations
 * (WILL_RUN), never asks it: slurmctld's main scheduler does, on events
 * and every sched_interval (60 s by default). So a reservation that may be
 * due (jt_activation_may_be_due: a reclaim from its creation, room from
 * created + MaxWait) asks for a main pass when backfill sees it
 * (jtsel_activation_nudge), once per reservation and kind: a reclaim "at
 * once" otherwise waited for whichever event or minute came next.
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
#include <time.h>

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"

#include <jobtree/activate.h>
#include <jobtree/ledger_lease.h>
#include <jobtree/record.h>
#include <jobtree/timeutil.h>

#include "select_jobtree.h"

#define WHO "select/cons_tres_jobtree"
#define JT_RESV_ID_MAX 256             /* event ids are at most 256 bytes */

/* A ring of the last RECENT keys (reservation ids, with a suffix for the
 * kind): what was done once for a reservation is not done again. Guarded
 * by slurmctld's job write lock, held around job_test. */
#define RECENT 64
typedef struct ring {
    char v[RECENT][JT_RESV_ID_MAX + 16];
    size_t n;
} ring_t;

static bool ring_has (const ring_t *r, const char *key)
{
    for (size_t i = 0; i < RECENT && i < r->n; i++)
        if (!strcmp (r->v[i], key))
            return true;
    return false;
}

static void ring_put (ring_t *r, const char *key)
{
    snprintf (r->v[r->n % RECENT], sizeof (r->v[0]), "%s", key);
    r->n++;
}

/* Reservations activated recently: one activation each ("id" room,
 * "id#reclaim" a reclaim). */
static ring_t recent;

static bool activated (const char *resv)
{
    return ring_has (&recent, resv);
}

bool jtsel_activation_had (const char *resv)
{
    return activated (resv);
}

static void remember (const char *resv)
{
    ring_put (&recent, resv);
}

static int by_id (const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    return (x > y) - (x < y);
}

typedef struct offered {
    const char *cluster;
    uint32_t *ids;              /* job ids slurmctld offered, sorted */
    size_t n;
} offered_t;

/* jt_yield_fn: a run (the snapshot names it by job id) may give way iff
 * slurmctld offered its job; a malleable run's minimum comes from its
 * record (its whole groups above it may be cut without ending it). */
static int may_yield (const char *run, int64_t *min_gpus, void *arg)
{
    const offered_t *o = arg;
    char *end;
    unsigned long id = strtoul (run, &end, 10);
    job_record_t *job;
    jt_jobrec_t rec;
    jt_error_t err;
    uint32_t key;

    if (*end || id == 0 || id > UINT32_MAX)
        return 0;
    key = (uint32_t) id;
    if (!bsearch (&key, o->ids, o->n, sizeof (key), by_id))
        return 0;
    if ((job = find_job_record (key)) && job->admin_comment
        && jt_jobrec_parse (job->admin_comment, &rec, &err) == 0) {
        if (rec.run && rec.run->malleable && rec.run->min_gpus > 0)
            *min_gpus = rec.run->min_gpus;
        jt_jobrec_free (&rec);
    }
    return 1;
}

/* The nodes a structural cut takes from job, set in `gone` (a node
 * bitmap): a DropSpare cut its group's spare nodes; a Shrink cut the
 * group's bound nodes and its spares (a group given up takes its spares
 * along). 0, or -1 when the job or its group is gone. */
static int cut_nodes (job_record_t *job, int group, jt_cut_kind_t kind,
                      bitstr_t *gone)
{
    jt_jobrec_t rec;
    jt_error_t err;
    int found = -1;

    if (!job->admin_comment || jt_jobrec_parse (job->admin_comment, &rec, &err) < 0)
        return -1;
    for (size_t i = 0; i < rec.nbound; i++) {
        const jt_jobrec_lease_t *b = &rec.bound[i];
        if (b->group != group)
            continue;
        found = 0;
        for (size_t k = kind == JT_CUT_SPARE ? b->nnodes : 0;
             k < b->nnodes + b->nspares; k++) {
            const char *name = k < b->nnodes ? b->nodes[k] : b->spares[k - b->nnodes];
            node_record_t *node_ptr = find_node_record ((char *) name);
            if (node_ptr && node_ptr->index < bit_size (gone))
                bit_set (gone, node_ptr->index);
        }
    }
    jt_jobrec_free (&rec);
    return found;
}

typedef struct shrunk {
    job_record_t *job;
    bitstr_t *gone;
} shrunk_t;

/* An activation with structural cuts (spares dropped, a malleable run
 * giving up whole groups): each cut job is shrunk to the nodes it keeps, and the runs the
 * lottery took in the same activation are requeued, all by reshape.c's
 * worker once the lock is released; the run binds on a later pass, when
 * the nodes are free. 0 when queued, -1 when not (nothing was queued). */
static int apply_structural (const jt_activation_slice_t *sl,
                             const jt_activation_t *a, const char *clu,
                             const char **runs, size_t nruns,
                             size_t *nshrunk)
{
    shrunk_t *sh = xcalloc (a->ncuts + 1, sizeof (*sh));
    size_t nsh = 0, need;
    int rc = -1;

    for (size_t i = 0; i < a->ncuts; i++) {
        const jt_cut_t *cut = &a->cuts[i];
        const jt_holder_t *h = &sl->req.holders[cut->holder];
        int64_t id;
        job_record_t *job;
        size_t j;

        if (cut->kind == JT_CUT_LOTTERY)
            continue;
        id = jt_lease_run_job (h->run, clu);
        if (id <= 0 || !(job = find_job_record ((uint32_t) id)) || !job->node_bitmap)
            goto out;
        for (j = 0; j < nsh && sh[j].job != job; j++)
            ;
        if (j == nsh) {
            sh[nsh].job = job;
            sh[nsh++].gone = bit_alloc (bit_size (job->node_bitmap));
        }
        if (cut_nodes (job, h->group, cut->kind, sh[j].gone) < 0)
            goto out;
    }
    need = nsh + nruns;
    if (jtsel_reshape_room () < need) {
        debug ("%s: activation needs %zu job changes, the queue has room for %zu",
               WHO, need, jtsel_reshape_room ());
        goto out;
    }
    for (size_t j = 0; j < nsh; j++) {
        bitstr_t *keep = bit_copy (sh[j].job->node_bitmap);
        char *names;

        bit_and_not (keep, sh[j].gone);
        names = bit_set_count (keep) ? bitmap2node_name (keep) : NULL;
        (void) jtsel_reshape_queue (sh[j].job->job_id, names);
        xfree (names);
        FREE_NULL_BITMAP (keep);
    }
    for (size_t i = 0; i < nruns; i++) {
        int64_t id = jt_lease_run_job (runs[i], clu);
        if (id > 0)
            (void) jtsel_reshape_queue ((uint32_t) id, NULL);
    }
    *nshrunk = nsh;
    rc = 0;
out:
    for (size_t j = 0; j < nsh; j++)
        FREE_NULL_BITMAP (sh[j].gone);
    xfree (sh);
    return rc;
}

static int collect (void *x, void *arg)
{
    offered_t *o = arg;
    o->ids[o->n++] = ((job_record_t *) x)->job_id;
    return 0;
}

static size_t ncuts_structural (const jt_activation_t *a)
{
    size_t n = 0;

    for (size_t i = 0; i < a->ncuts; i++)
        n += a->cuts[i].kind != JT_CUT_LOTTERY;
    return n;
}

/* The runs the lottery took, in draw order (each once). */
static const char **lottery_runs (const jt_activation_t *a, size_t *n)
{
    const char **v = calloc (a->ndraws + 1, sizeof (*v));

    *n = 0;
    for (size_t i = 0; v && i < a->ndraws; i++)
        v[(*n)++] = a->draws[i].run_id;
    return v;
}

/* The lottery's runs are requeued: a --checkpoint run among them gets its
 * restart planned and held at once (restart.c), never on the nodes the
 * activated run starts on (jt_activation_cleared: the set's nodes its cuts
 * free; the rest of the set, which the runs left running hold, may be a
 * victim's slice) (seed 002: the victim requeued with its restart
 * planned). A run without --checkpoint plans nothing. */
static void plan_restarts (const char **runs, size_t nruns, const char *clu,
                           const jt_node_set_t *set, const jt_activation_t *a,
                           const jt_activation_slice_t *sl, const jt_snapshot_t *s)
{
    jt_activation_req_t req = sl->req;
    jt_holder_t *h;
    jt_node_set_t taken;
    jt_error_t err;
    size_t skip = strlen (clu) + 1;
    int rc;

    if (!nruns)
        return;
    /* the holders as the snapshot names their runs (without "cluster:") */
    h = xcalloc (req.nholders + 1, sizeof (*h));
    for (size_t i = 0; i < req.nholders; i++) {
        h[i] = req.holders[i];
        if (strlen (h[i].run) > skip && !strncmp (h[i].run, clu, skip - 1))
            h[i].run += skip;
    }
    req.holders = h;
    rc = jt_activation_cleared (s, set, a, &req, &taken, &err);
    xfree (h);
    if (rc < 0) {
        error ("%s: victims' restarts not reserved: %s", WHO, err.text);
        return;
    }
    for (size_t i = 0; i < nruns; i++) {
        int64_t id = jt_lease_run_job (runs[i], clu);
        job_record_t *v = id > 0 ? find_job_record ((uint32_t) id) : NULL;
        if (v)
            jtsel_restart_plan_victim (v, &taken, NULL);
    }
    free (taken.nodes);
}

/* What reservation resv of job_ptr has had (created, drawn: the ledger's;
 * the recent activations: this controller's), as libjobtree's clock. An
 * Activation in the ledger for this reservation counts too: a backup
 * controller that took over (issue 37, t3040) draws no second time. The
 * ledger does not say room or reclaim: what this controller drew itself
 * tells the other apart; knowing neither, both are done. */
static jt_resv_clock_t clock_of (const job_record_t *job_ptr, const char *resv,
                                 int64_t created, int64_t drawn, int64_t max_wait)
{
    char key[JT_RESV_ID_MAX + 16];
    bool had_room = activated (resv), had_reclaim;

    snprintf (key, sizeof (key), "%s#reclaim", resv);
    had_reclaim = activated (key);
    return (jt_resv_clock_t){ .created = created, .max_wait = max_wait,
                              .room_done = had_room || (drawn >= 0 && !had_reclaim),
                              .reclaim_done = had_reclaim || (drawn >= 0 && !had_room),
                              .restart = jtsel_restart_held (job_ptr->job_id) };
}

/* Reservations whose activation a main pass was asked for: "id#0" when one
 * may be due from its creation (a reclaim), "id#1" once created + MaxWait
 * is reached (room). */
static ring_t nudged;

void jtsel_activation_nudge (const job_record_t *job_ptr, const jtsel_cache_t *c)
{
    char resv[JT_RESV_ID_MAX], key[JT_RESV_ID_MAX + 16];
    int64_t created, drawn = -1, now = (int64_t) time (NULL);
    jt_resv_clock_t clk;

    if (jtsel_ledger_open_resv (job_ptr, resv, sizeof (resv), &created, &drawn) < 0)
        return;
    clk = clock_of (job_ptr, resv, created, drawn, c->conf->max_wait);
    if (!jt_activation_may_be_due (&clk, now))
        return;
    snprintf (key, sizeof (key), "%s#%d", resv,
              clk.max_wait > 0 && now >= created + clk.max_wait);
    if (ring_has (&nudged, key))
        return;
    ring_put (&nudged, key);
    debug ("%s: %pJ: reservation %s may be due an activation: asking for a "
           "scheduling pass", WHO, job_ptr, resv);
    schedule (false);
}

int jtsel_activate (job_record_t *job_ptr, bitstr_t *bitmap,
                    const jt_sched_request_t *now_req, const jtsel_cache_t *c,
                    uint16_t mode, List preemptee_candidates,
                    List *preemptee_job_list, JTC_JOB_TEST_EXC)
{
    const char *clu = slurm_conf.cluster_name ? slurm_conf.cluster_name : "cluster";
    char resv[JT_RESV_ID_MAX], self[128], when[32];
    offered_t o = { .cluster = clu };
    jt_activation_slice_t sl = { 0 };
    jt_activation_t a = { 0 };
    const char **runs = NULL;
    char **names = NULL;
    size_t nruns = 0;
    List victims = NULL, tmp = NULL;
    bitstr_t *bm = NULL;
    jt_answer_t e;
    jt_error_t err;
    int64_t created, drawn = -1, at;
    jt_resv_clock_t clk;
    jt_activation_due_t due;
    const char *dom;
    const jt_reclaim_t *fund;
    char key[JT_RESV_ID_MAX + 16], kind[JT_RESV_ID_MAX + 64];
    bool *refused = NULL;               /* domains cons_tres refused */
    int rc = SLURM_ERROR;

    if (!preemptee_candidates || !list_count (preemptee_candidates)
        || !preemptee_job_list)
        return SLURM_ERROR;
    if (jtsel_ledger_open_resv (job_ptr, resv, sizeof (resv), &created, &drawn) < 0)
        return SLURM_ERROR;
    /* When an activation is due, and which, is libjobtree's one rule
     * (jt_activation_due: room at created + MaxWait, a reclaim at once but
     * once, who is paid back); the plugin only says what the reservation
     * has had. */
    snprintf (key, sizeof (key), "%s#reclaim", resv);
    clk = clock_of (job_ptr, resv, created, drawn, c->conf->max_wait);
    switch (jt_activation_due (now_req, &clk, &e, &due, &err)) {
    case -1:
        error ("%s: %pJ: activation: %s", WHO, job_ptr, err.text);
        return SLURM_ERROR;
    case JT_DUE_NONE:
        if (due.applies < 0)            /* nothing may be due: no estimate made */
            return SLURM_ERROR;
        if (due.applies == 0)
            debug ("%s: %pJ: reservation %s: nothing to activate (%s)", WHO,
                   job_ptr, resv, e.reason[0] ? e.reason : jt_answer_kind_str (e.kind));
        goto out;
    case JT_DUE_RECLAIM:
        snprintf (kind, sizeof (kind), "reclaims %" PRId64 " GPUs of %s lent",
                  due.reclaim.deficit, due.reclaim.envelope);
        break;
    default:                            /* JT_DUE_ROOM, at MaxWait */
        snprintf (key, sizeof (key), "%s", resv);
        snprintf (kind, sizeof (kind), "activates (MaxWait)");
        if (due.fund)                   /* a cap holds its funding */
            snprintf (kind, sizeof (kind), "activates (MaxWait) for %" PRId64
                      " GPUs of aggregate cap %s", due.reclaim.deficit,
                      due.reclaim.cap->name);
    }
    at = due.at;
    fund = due.fund;
    o.ids = xcalloc (list_count (preemptee_candidates) + 1, sizeof (*o.ids));
    list_for_each (preemptee_candidates, collect, &o);
    qsort (o.ids, o.n, sizeof (*o.ids), by_id);
    snprintf (self, sizeof (self), "%u", job_ptr->job_id);
    if (jt_activation_slice (c->topo->snap, e.cands, e.ncands, e.cand_nodes, e.cand_group_nodes,
                             now_req->run->flavor, fund, self, resv, at, true, may_yield,
                             &o, &sl, &err) < 0) {
        error ("%s: %pJ: activation: %s", WHO, job_ptr, err.text);
        goto out;
    }
    /* The ledger's run ids ("cluster:jobid") from here on: the lottery
     * orders runs by id, and a common prefix keeps that order. */
    names = xcalloc (sl.req.nholders + 1, sizeof (*names));
    for (size_t h = 0; h < sl.req.nholders; h++) {
        names[h] = xstrdup_printf ("%s:%s", clu, sl.holders[h].run);
        sl.holders[h].run = names[h];
    }
    jt_lease_run_id (clu, job_ptr->job_id, self, sizeof (self));
    /* The domains in Pack's order, the first the runs that may give way
     * can clear; when cons_tres then refuses its nodes (what the snapshot
     * does not show: memory, CPUs), the next domain is tried, at most once
     * each (seed 002: greedy over the ranked domains). The seed and the
     * scope stay those of the whole slice. */
    refused = xcalloc (sl.req.nalts + 1, sizeof (*refused));
    jt_time_format (at, when, sizeof (when));
    for (size_t tries = 0; tries <= sl.req.nalts; tries++) {
        jt_activation_free (&a);
        free (runs);
        runs = NULL;
        FREE_NULL_LIST (victims);
        FREE_NULL_LIST (tmp);
        FREE_NULL_BITMAP (bm);
        if (jt_activate_except (&sl.req, refused, &a, &err) < 0) {
            error ("%s: %pJ: activation: %s", WHO, job_ptr, err.text);
            goto out;
        }
        if (!sl.req.nalts || !a.resolved) {
            debug ("%s: %pJ: reservation %s due since %s: the runs that may give "
                   "way cannot clear any of its %zu domains%s", WHO, job_ptr, resv,
                   when, sl.req.nalts, tries ? " that cons_tres did not refuse" : "");
            goto out;
        }
        /* the alternative's domain, or its unit and domains */
        dom = sl.alt_where[a.alt];
        /* the lottery's runs: the draws (the structural cuts come first) */
        runs = lottery_runs (&a, &nruns);
        if (ncuts_structural (&a)) {
            size_t nshrunk = 0;

            if (apply_structural (&sl, &a, clu, runs, nruns, &nshrunk) < 0) {
                debug ("%s: %pJ: reservation %s: structural cuts not applied now",
                       WHO, job_ptr, resv);
                goto out;
            }
            remember (key);
            jtsel_ledger_activation (resv, self, &sl, &a, at);
            plan_restarts (runs, nruns, clu, jt_activation_alt_set (&sl, e.cands, a.alt), &a, &sl,
                           c->topo->snap);
            jtsel_restart_nominate (job_ptr, jt_activation_alt_set (&sl, e.cands, a.alt), c->topo->snap);
            {
                char *d = jt_activation_dump (&a, &sl.req);
                info ("%s: %pJ: reservation %s %s at %s in %s: %" PRId64 " GPUs short, "
                      "%zu run(s) shrunk, %zu requeued: %s", WHO, job_ptr, resv, kind,
                      when, dom, a.deficit, nshrunk, nruns, d ? d : "");
                free (d);
            }
            jtsel_set_reason (job_ptr, "jobtree: reservation activated at %s on %s: "
                              "%zu run(s) shrunk (spares dropped, whole groups given up), %zu preempted by the "
                              "lottery (seed %016" PRIx64 "); starts when the nodes are "
                              "free", when, dom, nshrunk, nruns, a.rho);
            goto out;           /* not now: the nodes free after the changes */
        }
        victims = list_create (NULL);
        for (size_t i = 0; i < nruns; i++) {
            int64_t id = jt_lease_run_job (runs[i], clu);
            job_record_t *v = id > 0 ? find_job_record ((uint32_t) id) : NULL;
            if (v)
                list_append (victims, v);
        }
        if ((size_t) list_count (victims) != nruns || !nruns) {
            debug ("%s: %pJ: reservation %s: %zu victim(s) chosen, %d found",
                   WHO, job_ptr, resv, nruns, list_count (victims));
            goto out;
        }
        /* cons_tres's per-node check on the chosen domain's nodes, the victims
         * gone; the victims are the lottery's, whatever subset it reports. */
        bm = jtsel_set_bitmap (c->topo, jt_activation_alt_set (&sl, e.cands, a.alt), bit_size (bitmap));
        if (jtsel_ops.job_test (job_ptr, bm, e.cand_nodes, e.cand_nodes, e.cand_nodes,
                                mode, victims, &tmp, JTC_JOB_TEST_EXC_ARGS)
            == SLURM_SUCCESS)
            break;
        info ("%s: %pJ: reservation %s: cons_tres refuses %s even without the "
              "lottery's victims; nothing preempted there, the next domain "
              "tried", WHO, job_ptr, resv, dom);
        refused[a.alt] = true;
        FREE_NULL_BITMAP (bm);          /* nothing of a refused domain is kept */
        FREE_NULL_LIST (victims);
        FREE_NULL_LIST (tmp);
    }
    if (!bm || !victims)
        goto out;
    bit_copybits (bitmap, bm);
    FREE_NULL_LIST (*preemptee_job_list);
    *preemptee_job_list = victims;
    victims = NULL;
    remember (key);
    jtsel_ledger_activation (resv, self, &sl, &a, at);
    plan_restarts (runs, nruns, clu, jt_activation_alt_set (&sl, e.cands, a.alt), &a, &sl,
                   c->topo->snap);
    jtsel_restart_nominate (job_ptr, jt_activation_alt_set (&sl, e.cands, a.alt), c->topo->snap);
    {
        char *d = jt_activation_dump (&a, &sl.req);
        info ("%s: %pJ: reservation %s %s at %s in %s: %" PRId64
              " GPUs short, %zu run(s) give way: %s", WHO, job_ptr, resv, kind,
              when, dom, a.deficit,
              nruns, d ? d : "");
        free (d);
    }
    jtsel_set_reason (job_ptr, "jobtree: reservation activated at %s on %s: "
                      "%zu run(s) preempted by the lottery (seed %016" PRIx64 ")",
                      when, dom, nruns, a.rho);
    rc = SLURM_SUCCESS;
out:
    xfree (refused);
    FREE_NULL_LIST (tmp);
    FREE_NULL_LIST (victims);
    FREE_NULL_BITMAP (bm);
    free (runs);
    jt_activation_free (&a);
    for (size_t h = 0; names && h < sl.req.nholders; h++)
        xfree (names[h]);
    xfree (names);
    jt_activation_slice_free (&sl);
    jt_answer_free (&e);
    xfree (o.ids);
    return rc;
}
