/*
 * answer.c - job_test for a Jobtree run: translate slurmctld's
 * question into libjobtree's (jobtree/schedule.h: the run from its record,
 * the mode as a tense, the caller's bitmap as the eligible nodes), and the
 * answer back: cons_tres does the per-node accounting (cores, memory, GRES)
 * on exactly the nodes of a bound plan, estimates a start on each node set
 * of an estimate (the earliest wins, ties by order, so backfill's
 * reservation stays inside one domain; never before the run's funding
 * frees), or judges the whole bitmap when Jobtree has nothing against the
 * run.
 *
 * A refused run keeps a Jobtree reason in state_desc ("jobtree: ..."),
 * shown by squeue and scontrol: the short form (jt_reason_brief: the one
 * blocker, the reservation), the whole explanation in the job's
 * SystemComment (`jobtree explain`). On 22.05 the reason code (JTC_REASON,
 * compat.h) is the one select_nodes() leaves alone ("state_reason was
 * already setup"), so the text survives its generic WAIT_RESOURCES reset;
 * 24.11 has no such code (docs/slurm-24.11.md).
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

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "select_jobtree.h"

#define JT_SEL_REASON JTC_REASON

/* The job's SystemComment is ours when empty or tagged "jobtree: "
 * (another plugin's, e.g. a burst buffer's, is left alone). */
static bool comment_ours (const job_record_t *job_ptr)
{
    return !job_ptr->system_comment
           || !strncmp (job_ptr->system_comment, "jobtree: ", 9);
}

void jtsel_set_reason (job_record_t *job_ptr, const char *fmt, ...)
{
    va_list ap;
    char full[JT_ERRMSG_MAX + 256], brief[160];

    va_start (ap, fmt);
    vsnprintf (full, sizeof (full), fmt, ap);
    va_end (ap);
    /* the whole explanation for `jobtree explain` (the main scheduler of
     * 24.11 and later resets state_desc, never the SystemComment) */
    if (comment_ours (job_ptr)
        && (!job_ptr->system_comment || strcmp (job_ptr->system_comment, full))) {
        xfree (job_ptr->system_comment);
        job_ptr->system_comment = xstrdup (full);
    }
    jt_reason_brief (full, brief, sizeof (brief));
    if (job_ptr->state_reason == JT_SEL_REASON && job_ptr->state_desc
        && !strcmp (job_ptr->state_desc, brief))
        return;
    xfree (job_ptr->state_desc);
    job_ptr->state_desc = xstrdup (brief);
    job_ptr->state_reason = JT_SEL_REASON;
    debug ("select/cons_tres_jobtree: %pJ: %s", job_ptr, full);
}

/* Drop our reason when the refusal is not ours any more (cons_tres decides),
 * and the explanation with it. */
static void clear_reason (job_record_t *job_ptr)
{
    if (job_ptr->state_reason == JT_SEL_REASON) {
        xfree (job_ptr->state_desc);
        job_ptr->state_reason = WAIT_NO_REASON;
    }
    if (job_ptr->system_comment && comment_ours (job_ptr))
        xfree (job_ptr->system_comment);
}

/* The caller's bitmap as the snapshot's eligible nodes (xmalloc'd). */
static bool *eligible_of (const jtsel_topo_t *t, bitstr_t *bitmap)
{
    int nbits = bitmap ? (int) bit_size (bitmap) : 0;
    bool *e = xcalloc (t->snap->nnodes + 1, sizeof (*e));

    for (size_t k = 0; k < t->snap->nnodes; k++) {
        int idx = t->snap2slurm[k];
        e[k] = idx >= 0 && idx < nbits && bit_test (bitmap, idx);
    }
    return e;
}

/* A node set of the answer as a bitmap of slurm node indexes. */
bitstr_t *jtsel_set_bitmap (const jtsel_topo_t *t, const jt_node_set_t *set,
                             int64_t nbits)
{
    bitstr_t *bm = bit_alloc (nbits);

    for (size_t k = 0; k < set->nnodes; k++) {
        int idx = t->snap2slurm[set->nodes[k]];
        if (idx >= 0 && idx < nbits)
            bit_set (bm, idx);
    }
    return bm;
}

/* How many candidate sets, best first by jt_answer_rank, cons_tres is
 * asked about before the estimate is given up: a constant, so a WILL_RUN
 * of a run that fits no domain costs a pass over the candidate sets'
 * nodes plus at most this many cons_tres will_run calls, whatever the
 * number of domains (issue 12; each call copies the cluster's per-node
 * state). */
#define JTSEL_WILL_RUN_TRIES 2

/* A run that holds its nodes alone (--exclusive, OverSubscribe=EXCLUSIVE)
 * is estimated from the nodes' free times (jt_answer_from_free): its
 * nodes are free exactly when their jobs end, which is what cons_tres's
 * will_run would replay (a copy of the partitions' and the nodes' usage,
 * a pass over every running job, a node selection per batch of ends).
 * cons_tres is asked only whether those nodes can hold the job at all
 * (TEST_ONLY: no usage, the set's nodes only). Not for backfill's
 * start-now-only tests (TEST_NOW_ONLY), nor past the latest start it asks
 * about (24.11), nor when the nodes cannot hold it, nor where
 * jt_answer_from_free does not answer (a set over several domains whose
 * groups are not whole nodes, one free now): cons_tres's will_run then
 * answers as before. A run whose groups may spread is held a domain per
 * group. cand is the set ranked first. true with *setp (the nodes) and
 * *start when answered. */
static bool estimate_alone (job_record_t *job_ptr, bitstr_t *bitmap,
                            jtsel_topo_t *t, const jt_answer_t *a, size_t cand,
                            int64_t now, bool cross_check, bitstr_t **setp,
                            int64_t *start, JTC_JOB_TEST_EXC)
{
    uint32_t n = a->cand_nodes;
    int64_t last = JTC_WILL_RUN_END;
    jt_node_set_t nodes;
    bitstr_t *set;
    size_t *take;

    if (!JTC_JOB_ALONE (job_ptr) || (job_ptr->bit_flags & TEST_NOW_ONLY))
        return false;
    take = xcalloc (n + 1, sizeof (*take));
    if (!jt_answer_from_free (a, cand, t->snap, jtsel_topo_free_at (t),
                              now, true, take, start)
        || (last > 0 && *start > last)) {
        xfree (take);
        return false;
    }
    nodes = (jt_node_set_t){ take, n, a->cands[cand].domain };
    set = jtsel_set_bitmap (t, &nodes, bit_size (bitmap));
    xfree (take);
    if ((uint32_t) bit_set_count (set) != n
        || jtsel_ops.job_test (job_ptr, set, n, n, n, SELECT_MODE_TEST_ONLY,
                               NULL, NULL, JTC_JOB_TEST_EXC_ARGS) != SLURM_SUCCESS) {
        debug ("select/cons_tres_jobtree: %pJ: the %u nodes freeing first "
               "cannot hold it: cons_tres estimates", job_ptr, n);
        FREE_NULL_BITMAP (set);
        return false;
    }
    if (cross_check) {
        /* DebugCrossCheck: cons_tres's will_run on the same nodes must
         * accept them, and never earlier (it groups ends into windows) */
        bitstr_t *again = bit_copy (set);
        int rc = jtsel_ops.job_test (job_ptr, again, n, n, n,
                                     SELECT_MODE_WILL_RUN, NULL, NULL,
                                     JTC_JOB_TEST_EXC_ARGS);
        int64_t cons = rc == SLURM_SUCCESS ? (int64_t) job_ptr->start_time : -1;

        if (cons < 0 || (cons > a->not_before ? cons : a->not_before) < *start)
            error ("select/cons_tres_jobtree: DebugCrossCheck: %pJ: free times "
                   "start it at %" PRId64 ", cons_tres's will_run %s %" PRId64,
                   job_ptr, *start, cons < 0 ? "refuses the nodes" : "at",
                   cons);
        else
            info ("select/cons_tres_jobtree: DebugCrossCheck: %pJ: free times "
                  "start it at %" PRId64 ", cons_tres's will_run at %" PRId64,
                  job_ptr, *start, cons);
        FREE_NULL_BITMAP (again);
    }
    *setp = set;
    return true;
}

/* What the run is told (jt_told_start): the earlier of the estimate and
 * its room activation at its reservation's creation (now for the first
 * estimate, which creates it) + MaxWait, when it is funded now and one of
 * its candidate sets, in Pack's order as the activation tries them, could
 * be cleared (jtsel_topo_clearable); *cand is then that set. Work: the
 * sets' nodes. */
static int64_t told_start (job_record_t *job_ptr, jtsel_topo_t *t,
                           const jt_answer_t *a, int64_t start, int64_t now,
                           size_t *cand)
{
    const jt_config_t *conf = jtsel_cache_conf ();
    jt_resv_clock_t clk = { .created = now };
    char resv[256];
    size_t i;
    bool by = false;
    int64_t told;

    if (!conf || conf->max_wait <= 0 || a->not_before != 0)
        return start;
    for (i = 0; i < a->ncands && !jtsel_topo_clearable (t, &a->cands[i]); i++)
        ;
    if (i == a->ncands)
        return start;
    clk.max_wait = conf->max_wait;
    if (jtsel_ledger_open_resv (job_ptr, resv, sizeof (resv), &clk.created, NULL) == 0)
        clk.room_done = jtsel_activation_had (resv);
    clk.restart = jtsel_restart_held (job_ptr->job_id);
    told = jt_told_start (start, &clk, true, true, now, &by);
    if (by)
        *cand = i;
    return told;
}

/* The start estimate on the candidate sets ranked by their nodes' free
 * times (jt_answer_rank, once): from the free times for a run that holds
 * its nodes alone (estimate_alone, the first set), else cons_tres's, the
 * first set it accepts taken (the start never before not_before:
 * jt_answer_pick); backfill holds its nodes for the run from then on, and
 * the run's reservation goes to the ledger. */
static int estimate (job_record_t *job_ptr, bitstr_t *bitmap,
                     jtsel_topo_t *t, const jt_answer_t *a, uint16_t mode,
                     bool cross_check, JTC_JOB_TEST_EXC)
{
    int64_t *starts = xcalloc (a->ncands + 1, sizeof (*starts));
    size_t *order = xcalloc (a->ncands + 1, sizeof (*order));
    uint32_t n = a->cand_nodes;
    char line[JT_ERRMSG_MAX + 128];
    bitstr_t *set = NULL;
    int64_t start, now = (int64_t) time (NULL);
    size_t best = a->ncands, nranked;

    for (size_t i = 0; i < a->ncands; i++)
        starts[i] = -1;
    nranked = jt_answer_rank (a, jtsel_topo_free_at (t), t->snap->nnodes, now,
                              NULL, order);
    if (nranked && estimate_alone (job_ptr, bitmap, t, a, order[0], now,
                                   cross_check, &set, &start,
                                   JTC_JOB_TEST_EXC_ARGS))
        starts[order[0]] = start;
    else {
        for (size_t r = 0; r < nranked && r < JTSEL_WILL_RUN_TRIES; r++) {
            set = jtsel_set_bitmap (t, &a->cands[order[r]], bit_size (bitmap));
            if (jtsel_ops.job_test (job_ptr, set, n, n, n, mode, NULL, NULL,
                                    JTC_JOB_TEST_EXC_ARGS) == SLURM_SUCCESS) {
                starts[order[r]] = (int64_t) job_ptr->start_time;
                break;
            }
            FREE_NULL_BITMAP (set);
        }
    }
    best = jt_answer_pick (a, starts, &start);
    if (best < a->ncands) {
        size_t at = best;
        int64_t told = told_start (job_ptr, t, a, start, now, &at);

        if (at != best) {               /* the domain its activation clears */
            FREE_NULL_BITMAP (set);
            set = jtsel_set_bitmap (t, &a->cands[at], bit_size (bitmap));
        }
        bit_copybits (bitmap, set);
        job_ptr->start_time = (time_t) told;
        jt_answer_reserved (a, t->snap, at, told, told < start ? start : 0, line,
                            sizeof (line));
        jtsel_set_reason (job_ptr, "%s", line);
        jtsel_ledger_reserved (job_ptr, a, t, &a->cands[at], bitmap, told);
    }
    FREE_NULL_BITMAP (set);
    xfree (order);
    xfree (starts);
    return best < a->ncands ? SLURM_SUCCESS : SLURM_ERROR;
}

static jt_tense_t tense_of (uint16_t mode)
{
    if (SELECT_IS_MODE_TEST_ONLY (mode))
        return JT_TENSE_EVER;
    if (SELECT_IS_MODE_WILL_RUN (mode))
        return JT_TENSE_ESTIMATE;
    return JT_TENSE_NOW;
}

static void closed_hours (jt_usage_t *u, const jt_budgets_t *b, void *arg)
{
    (void) arg;
    jtsel_ledger_add_closed (u, b);
}

int jtsel_job_test (job_record_t *job_ptr, bitstr_t *bitmap,
                     uint32_t min_nodes, uint32_t max_nodes,
                     uint32_t req_nodes, uint16_t mode,
                     List preemptee_candidates, List *preemptee_job_list,
                     JTC_JOB_TEST_EXC)
{
    jt_tense_t tense = tense_of (mode);
    int64_t now = (int64_t) time (NULL);
    jt_sched_request_t req;
    jt_hold_t *holds = NULL;
    size_t nholds = 0;
    bitstr_t *own = NULL;
    char own_line[JT_ERRMSG_MAX + 64] = "";
    bool on_slice = false, waits = false;
    jt_jobrec_t rec;
    jtsel_cache_t *c;
    jt_answer_t a;
    jt_error_t err;
    bool *el;
    int rc = SLURM_ERROR;

    if (SELECT_IS_MODE_RESV (mode) || JT_SEL_MODE (mode) > SELECT_MODE_WILL_RUN)
        return jtsel_ops.job_test (job_ptr, bitmap, min_nodes, max_nodes,
                                    req_nodes, mode, preemptee_candidates,
                                    preemptee_job_list, JTC_JOB_TEST_EXC_ARGS);
    if (jt_jobrec_parse (job_ptr->admin_comment, &rec, &err) < 0) {
        jtsel_set_reason (job_ptr, "jobtree: unreadable run record: %s", err.text);
        return SLURM_ERROR;
    }
    if (!rec.run || !rec.run->flavor) {
        jtsel_set_reason (job_ptr, "jobtree: run record has no GPU flavor");
        jt_jobrec_free (&rec);
        return SLURM_ERROR;
    }
    if (!(c = jtsel_cache_get (&err)) || !c->budgets) {
        /* A configuration problem is not the job's: in TEST_ONLY say it
         * could run (so it stays pending, not "never runnable"). */
        const char *why = c ? c->budget_error : err.text;
        jt_jobrec_free (&rec);
        if (tense == JT_TENSE_EVER)
            return jtsel_ops.job_test (job_ptr, bitmap, min_nodes, max_nodes,
                                        req_nodes, mode, preemptee_candidates,
                                        preemptee_job_list, JTC_JOB_TEST_EXC_ARGS);
        jtsel_set_reason (job_ptr, "jobtree: %s", why);
        return SLURM_ERROR;
    }

    el = eligible_of (c->topo, bitmap);
    if (tense != JT_TENSE_EVER)
        nholds = jtsel_ledger_holds (job_ptr, &holds);
    req = (jt_sched_request_t){
        .budgets = c->budgets, .snap = c->topo->snap, .eligible = el,
        .run = rec.run, .now = now, .tense = tense, .min_nodes = min_nodes,
        .max_nodes = max_nodes, .opts = c->plan_opts,
        .closed_hours = closed_hours, .holds = holds, .nholds = nholds,
        .end = job_ptr->time_limit != NO_VAL && job_ptr->time_limit != INFINITE
               ? now + 60 * (int64_t) job_ptr->time_limit : 0,
    };
    /* A requeued run whose restart is held (restart.c) is planned on its
     * slice; refused there, it waits for it while the slice holds
     * (jt_restart_where), else on the whole set. */
    if (tense != JT_TENSE_EVER
        && (own = jtsel_restart_slice (job_ptr, bitmap, own_line, sizeof (own_line)))) {
        bool *sel = eligible_of (c->topo, own);
        req.eligible = sel;
        if (jt_sched_answer (&req, &a, &err) == 0) {
            if (a.kind == JT_ANSWER_BIND || a.kind == JT_ANSWER_ESTIMATE) {
                xfree (el);
                el = sel;
                sel = NULL;
                on_slice = true;
            } else {
                waits = jtsel_restart_waits (job_ptr, c->topo->snap, a.kind);
                jt_answer_free (&a);
            }
        }
        xfree (sel);
        FREE_NULL_BITMAP (own);
        req.eligible = el;
    }
    if (waits) {
        jtsel_set_reason (job_ptr, "%s", own_line);     /* its restart's */
        jtsel_ledger_holds_free (holds, nholds);
        xfree (el);
        jt_jobrec_free (&rec);
        return SLURM_ERROR;
    }
    if (!on_slice && jt_sched_answer (&req, &a, &err) < 0) {
        error ("select/cons_tres_jobtree: %pJ: plan failed: %s", job_ptr, err.text);
        jtsel_set_reason (job_ptr, "jobtree: internal error: %s", err.text);
        jtsel_ledger_holds_free (holds, nholds);
        xfree (el);
        jt_jobrec_free (&rec);
        return SLURM_ERROR;
    }
    switch (a.kind) {
    case JT_ANSWER_BIND: {
        bitstr_t *narrow = jtsel_set_bitmap (c->topo, &a.bind, bit_size (bitmap));
        uint32_t n = (uint32_t) a.bind.nnodes;

        /* A run Pack binds needs nobody to give way: preemptees are
         * only ever the activation's (jtsel_activate). */
        rc = jtsel_ops.job_test (job_ptr, narrow, n, n, n, mode, NULL,
                                  preemptee_job_list, JTC_JOB_TEST_EXC_ARGS);
        if (rc == SLURM_SUCCESS) {
            bit_copybits (bitmap, narrow);
            if (a.record) {
                char *dump = jt_plan_dump (&a.plan, c->topo->snap);
                if (jtsel_record_bind (job_ptr, &a.plan, c->topo->snap, now,
                                       &err) < 0)
                    error ("select/cons_tres_jobtree: %pJ: cannot record "
                           "funding: %s", job_ptr, err.text);
                info ("select/cons_tres_jobtree: %pJ: %s", job_ptr,
                      dump ? dump : "");
                free (dump);
            }
        }
        /* EVER answers "ever", not "now": a reason set by this pass's
         * RUN_NOW stays. */
        if (tense != JT_TENSE_EVER)
            clear_reason (job_ptr);
        FREE_NULL_BITMAP (narrow);
        break;
    }
    case JT_ANSWER_DEFER:
        rc = jtsel_ops.job_test (job_ptr, bitmap, min_nodes, max_nodes,
                                  req_nodes, mode, preemptee_candidates,
                                  preemptee_job_list, JTC_JOB_TEST_EXC_ARGS);
        break;
    case JT_ANSWER_ESTIMATE:
        jtsel_set_reason (job_ptr, "%s", a.reason);   /* until an estimate is taken */
        rc = estimate (job_ptr, bitmap, c->topo, &a, mode,
                       c->conf->debug_cross_check, JTC_JOB_TEST_EXC_ARGS);
        if (rc == SLURM_SUCCESS && on_slice)
            jtsel_set_reason (job_ptr, "%s", own_line);     /* its restart's */
        break;
    case JT_ANSWER_REFUSE:
        if (tense == JT_TENSE_NOW && a.waits
            && jtsel_activate (job_ptr, bitmap, &req, c, mode,
                               preemptee_candidates, preemptee_job_list,
                               JTC_JOB_TEST_EXC_ARGS) == SLURM_SUCCESS) {
            rc = SLURM_SUCCESS;
            break;
        }
        if (tense == JT_TENSE_NOW && a.waits && own_line[0])
            jtsel_set_reason (job_ptr, "%s", own_line);     /* its restart's */
        else if (!jt_answer_keeps_line (&a, job_ptr->state_reason == JT_SEL_REASON
                                                && comment_ours (job_ptr)
                                                ? job_ptr->system_comment : NULL))
            jtsel_set_reason (job_ptr, "%s", a.reason);
        break;
    }
    /* Backfill made or kept the run's reservation: a main pass activates
     * it if it may be due (activation.c). */
    if (tense == JT_TENSE_ESTIMATE
        && (a.kind == JT_ANSWER_ESTIMATE || (a.kind == JT_ANSWER_REFUSE && a.waits)))
        jtsel_activation_nudge (job_ptr, c);
    jt_answer_free (&a);
    jtsel_ledger_holds_free (holds, nholds);
    xfree (el);
    jt_jobrec_free (&rec);
    return rc;
}

void jtsel_job_started (job_record_t *job_ptr)
{
    verbose ("select/cons_tres_jobtree: %pJ started on %s", job_ptr,
             job_ptr->nodes ? job_ptr->nodes : "?");
}

