/*
 * ledger_lease.c - unit tests of the lease events of jobs (ledger_lease.h):
 * exact lease and event ids, derivation (groups, spares, borrowed), shrink,
 * node failure under --no-kill, end, and every reconciliation case the
 * cluster tests t3000-t3030 reach (gone job, job ended while slurmctld was
 * down, node failure, missing Start, shrink while down), each compared as a
 * canonical dump of the events; the events are checked against the fold.
 * A waiting run's reservation: created once, activated when it starts,
 * released when it ends without starting or is gone, settled at
 * reconciliation.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/ledger_lease.h"
#include "tap.h"

#define RUN "{\"owner\":\"rai\",\"resources\":{\"gpuType\":\"h100\"," \
            "\"totalGPUs\":32},\"locality\":{\"groupGPUs\":16}}"
/* bound 2026-03-01T12:00:00Z = 1772366400 */
#define REC "jobtree/1 {\"run\":" RUN ",\"funding\":[],\"fundedGPUs\":32," \
    "\"borrowedGPUs\":16,\"reason\":\"OK\",\"bound\":{\"time\":" \
    "\"2026-03-01T12:00:00Z\",\"leases\":[{\"group\":0,\"envelope\":" \
    "\"west-h100\",\"role\":\"Active\",\"gpus\":16,\"nodes\":[\"a01\",\"a02\"]," \
    "\"spares\":[\"s01\"]},{\"group\":1,\"envelope\":\"vision-h100\",\"role\":" \
    "\"Borrowed\",\"gpus\":16,\"nodes\":[\"b01\",\"b02\"]}]}}"
#define T0 1772366400
#define START 1772366395 /* Slurm's start time: in the ids */

static jt_jobrec_t rec;

/* A record whose group 0 holds p01,p02 (prefix p), no spares. */
#define REC1 "jobtree/1 {\"run\":" RUN ",\"funding\":[],\"fundedGPUs\":16," \
    "\"borrowedGPUs\":0,\"reason\":\"OK\",\"bound\":{\"time\":" \
    "\"2026-03-01T12:00:00Z\",\"leases\":[{\"group\":0,\"envelope\":" \
    "\"west-h100\",\"role\":\"Active\",\"gpus\":16,\"nodes\":[\"%s01\",\"%s02\"]}]}}"
static jt_jobrec_t recs[16];
static char names[16][2][16];
static const char *held2[16][2];

/* Job id (7..15) with its own nodes "n<id>01", "n<id>02"; holds nheld. */
static jt_job_facts_t job1 (uint32_t id, jt_job_state_t state, size_t nheld)
{
    char p[16], text[1024];
    jt_error_t err = { "" };
    snprintf (p, sizeof (p), "n%u-", id);
    if (!recs[id].run) {
        snprintf (text, sizeof (text), REC1, p, p);
        if (jt_jobrec_parse (text, &recs[id], &err) < 0)
            bail_out ("record %u: %s", id, err.text);
        for (int k = 0; k < 2; k++) {
            snprintf (names[id][k], sizeof (names[id][k]), "n%u-%02d", id, k + 1);
            held2[id][k] = names[id][k];
        }
    }
    return (jt_job_facts_t){ .cluster = "jtc",
                             .job_id = id,
                             .start_time = START,
                             .state = state,
                             .rec = &recs[id],
                             .account = "acct",
                             .held = held2[id],
                             .nheld = nheld };
}

static jt_job_facts_t job (uint32_t id, jt_job_state_t state, const char *const *held,
                           size_t nheld)
{
    return (jt_job_facts_t){ .cluster = "jtc",
                             .job_id = id,
                             .start_time = START,
                             .state = state,
                             .rec = &rec,
                             .account = "acct",
                             .held = held,
                             .nheld = nheld };
}

/* One line per event:
 *   Start ID run=R group=G env=E owner=O role=R gpus=N nodes=a,b start=+S
 *   End ID reason=R end=+E       (times relative to T0)
 *   NodeFail ID nodes=a */
static const char *dump (const jt_lease_events_t *e)
{
    static char buf[8192];
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < e->n && k < sizeof (buf); i++) {
        const jt_event_t *ev = e->v[i];
        char nodes[256] = "";
        for (size_t j = 0; j < ev->nnodes; j++)
            snprintf (nodes + strlen (nodes), sizeof (nodes) - strlen (nodes), "%s%s",
                      j ? "," : "", ev->nodes[j]);
        if (ev->type == JT_EV_START)
            k += (size_t) snprintf (buf + k, sizeof (buf) - k,
                                    "Start %s run=%s group=%s env=%s owner=%s role=%s "
                                    "gpus=%" PRId64 " nodes=%s start=%+" PRId64 "\n",
                                    ev->id, ev->run, ev->group, ev->envelope, ev->owner,
                                    jt_role_str (ev->role), ev->gpus, nodes,
                                    ev->start - T0);
        else if (ev->type == JT_EV_END)
            k += (size_t) snprintf (buf + k, sizeof (buf) - k,
                                    "End %s reason=%s end=%+" PRId64 "\n", ev->id,
                                    jt_end_reason_str (ev->reason), ev->end - T0);
        else if (ev->type == JT_EV_RES_CREATE)
            k += (size_t) snprintf (buf + k, sizeof (buf) - k,
                                    "%s %s resv=%s run=%s env=%s owner=%s gpus=%" PRId64
                                    " nodes=%s start=%+" PRId64 " time=%+" PRId64 "\n",
                                    jt_ev_type_str (ev->type), ev->id, ev->reservation,
                                    ev->run, ev->envelope, ev->owner, ev->gpus, nodes,
                                    ev->start - T0, ev->time - T0);
        else if (ev->type == JT_EV_RES_ACTIVATE || ev->type == JT_EV_RES_RELEASED)
            k += (size_t) snprintf (buf + k, sizeof (buf) - k,
                                    "%s %s resv=%s run=%s time=%+" PRId64 "\n",
                                    jt_ev_type_str (ev->type), ev->id, ev->reservation,
                                    ev->run, ev->time - T0);
        else
            k += (size_t) snprintf (buf + k, sizeof (buf) - k, "%s %s nodes=%s\n",
                                    jt_ev_type_str (ev->type), ev->id, nodes);
    }
    return buf;
}

/* Apply the events to f; count violations (the fold must accept them). */
static int apply (jt_ledger_fold_t *f, const jt_lease_events_t *e)
{
    int bad = 0;
    jt_error_t err = { "" };
    for (size_t i = 0; i < e->n; i++) {
        jt_violation_t v;
        if (jt_event_validate (e->v[i], &err) < 0) {
            diag ("invalid event %s: %s", e->v[i]->id, err.text);
            bad++;
        }
        if (jt_ledger_fold_apply (f, 0, e->v[i], &v, &err) != 0) {
            diag ("%s: %s", e->v[i]->id, v.msg);
            bad++;
        }
    }
    return bad;
}

/* The open leases of f (all runs); free *open. */
static size_t open_of (jt_ledger_fold_t *f, jt_fold_lease_t **open)
{
    size_t n;
    jt_error_t err = { "" };
    if (jt_ledger_fold_open_list (f, NULL, open, &n, &err) < 0)
        bail_out ("open list: %s", err.text);
    return n;
}

static const char *const all[] = { "a01", "a02", "s01", "b01", "b02", "x99" };

#define G0 "Start jtc:42:1772366395:g0:start run=jtc:42 group=0 env=west-h100 " \
           "owner=rai role=Active gpus=16 nodes=a01,a02 start=-5\n"
#define S0 "Start jtc:42:1772366395:s0:start run=jtc:42 group=spare/0 " \
           "env=west-h100 owner=rai role=Spare gpus=8 nodes=s01 start=-5\n"
#define G1 "Start jtc:42:1772366395:g1:start run=jtc:42 group=1 env=vision-h100 " \
           "owner=rai role=Borrowed gpus=16 nodes=b01,b02 start=-5\n"

static void test_lifecycle (void)
{
    jt_lease_events_t e = { 0 };
    jt_error_t err = { "" };
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    jt_fold_lease_t *open;
    size_t n;

    /* begin: every bound group, its spares, the borrowed one */
    jt_job_facts_t j = job (42, JT_JOB_RUNNING, all, 6);
    ok (jt_lease_sync (&j, NULL, 0, T0 + 5, JT_REASON_SHRINK, &e, &err) == 0,
        "sync at begin");
    is (dump (&e), G0 S0 G1, "begin: a lease per group, spares (Spare), borrowed "
                             "(Borrowed); ids exact; start at the job's start "
                             "time, not the later bound time");
    is_int (apply (f, &e), 0, "the fold accepts them");
    jt_lease_events_clear (&e);
    {
        /* a recovered job without a start time: the record's bound time */
        jt_lease_events_t e0 = { 0 };
        jt_job_facts_t j0 = job (42, JT_JOB_RUNNING, all, 6);
        j0.start_time = 0;
        ok (jt_lease_sync (&j0, NULL, 0, T0 + 5, JT_REASON_SHRINK, &e0, &err) == 0
            && e0.n == 3, "no start time: synced (%zu events)", e0.n);
        ok (e0.n && e0.v[0]->start == T0, "no start time: the lease starts at the "
            "bound time (%+lld)", e0.n ? (long long) (e0.v[0]->start - T0) : 0LL);
        jt_lease_events_clear (&e0);
    }

    /* begin again (a restart, or expand): nothing new */
    n = open_of (f, &open);
    ok (jt_lease_sync (&j, open, n, T0 + 10, JT_REASON_SHRINK, &e, &err) == 0 && e.n == 0,
        "a second sync with the same nodes emits nothing (idempotent)");
    free (open);

    /* shrink by whole groups: Slurm excises group 0's nodes one by one;
     * after the first (a02) the group ends Shrink and no remainder starts */
    const char *const shrunk[] = { "a01", "s01", "b01", "b02" };
    j = job (42, JT_JOB_RUNNING, shrunk, 4);
    n = open_of (f, &open);
    ok (jt_lease_resized (&j, NULL, open, n, T0 + 3600, &e, &err) == 0, "resized");
    is (dump (&e),
        "End jtc:42:1772366395:g0:end reason=Shrink end=+3600\n",
        "shrink: the group ends Shrink whole, no remainder (\":n1\") starts");
    free (open);
    is_int (apply (f, &e), 0, "the fold accepts them");
    jt_lease_events_clear (&e);
    const char *const shrunk2[] = { "s01", "b01", "b02" };
    j = job (42, JT_JOB_RUNNING, shrunk2, 3);
    n = open_of (f, &open);
    ok (jt_lease_resized (&j, NULL, open, n, T0 + 3600, &e, &err) == 0 && e.n == 0,
        "the group's last node excised: nothing more");
    free (open);

    /* node failure under --no-kill: b02 goes down */
    const char *const nofail[] = { "s01", "b01" };
    j = job (42, JT_JOB_RUNNING, nofail, 2);
    n = open_of (f, &open);
    ok (jt_lease_resized (&j, "b02", open, n, T0 + 7200, &e, &err) == 0,
        "resized with a failed node");
    is (dump (&e),
        "NodeFail jtc:42:1772366395:nodefail:b02 nodes=b02\n"
        "End jtc:42:1772366395:g1:end reason=Fail end=+7200\n"
        "Start jtc:42:1772366395:g1:n1:start run=jtc:42 group=1 env=vision-h100 "
        "owner=rai role=Borrowed gpus=8 nodes=b01 start=+7200\n",
        "node failure: NodeFail, End Fail, the remainder starts");
    free (open);
    is_int (apply (f, &e), 0, "the fold accepts them");
    jt_lease_events_clear (&e);

    /* the job ends */
    j = job (42, JT_JOB_ENDED, NULL, 0);
    j.end_time = T0 + 10800;
    n = open_of (f, &open);
    ok (jt_lease_fini (&j, open, n, T0 + 99999, &e, &err) == 0, "fini");
    is (dump (&e),
        "End jtc:42:1772366395:g1:n1:end reason=End end=+10800\n"
        "End jtc:42:1772366395:s0:end reason=End end=+10800\n",
        "end: every open lease of the run ends at the job's end time");
    free (open);
    is_int (apply (f, &e), 0, "the fold accepts them");
    jt_lease_events_clear (&e);
    n = open_of (f, &open);
    is_int (n, 0, "nothing open");
    free (open);

    /* closed GPU-hours per envelope and role, from the fold */
    jt_fold_envelope_t w, v;
    ok (jt_ledger_fold_envelope (f, "west-h100", 0, &w) == 0
            && jt_ledger_fold_envelope (f, "vision-h100", 0, &v) == 0,
        "both envelopes known to the fold");
    char buf[128];
    snprintf (buf, sizeof (buf), "west %.1f/%.1f vision %.1f/%.1f", w.closed_gpu_hours,
              w.closed_borrowed_gpu_hours, v.closed_gpu_hours,
              v.closed_borrowed_gpu_hours);
    /* west: g0 16x1h + s0 8x3h = 40; vision: g1 16x2h + 8x1h = 40 */
    is (buf, "west 40.0/0.0 vision 40.0/40.0",
        "closed GPU-hours: owned and Borrowed per envelope");
    ok (jt_ledger_fold_envelope (f, "nope", 0, &w) < 0, "unknown envelope: -1");
    jt_ledger_fold_destroy (f);

    /* a job that ends by a node failure; a start before the end time */
    f = jt_ledger_fold_create ();
    j = job (42, JT_JOB_RUNNING, all, 6);
    jt_lease_sync (&j, NULL, 0, T0, JT_REASON_SHRINK, &e, &err);
    apply (f, &e);
    jt_lease_events_clear (&e);
    j = job (42, JT_JOB_NODE_FAILED, NULL, 0);
    j.end_time = T0 - 50;
    n = open_of (f, &open);
    jt_lease_fini (&j, open, n, T0 + 1, &e, &err);
    is (dump (&e),
        "End jtc:42:1772366395:g0:end reason=Fail end=-5\n"
        "End jtc:42:1772366395:g1:end reason=Fail end=-5\n"
        "End jtc:42:1772366395:s0:end reason=Fail end=-5\n",
        "ended by a node failure: Fail; never before the lease's start");
    free (open);
    jt_lease_events_clear (&e);
    jt_ledger_fold_destroy (f);

    /* no record: nothing derived, nothing synced */
    j = job (42, JT_JOB_RUNNING, all, 6);
    j.rec = NULL;
    ok (jt_lease_derive (&j, &e, &err) == 0 && e.n == 0, "no record: no leases");
    /* owner falls back to the account */
    jt_jobrec_t norun = rec;
    norun.run = NULL;
    j.rec = &norun;
    jt_lease_derive (&j, &e, &err);
    ok (e.n > 0 && !strcmp (e.v[0]->owner, "acct"), "no run owner: the account");
    jt_lease_events_clear (&e);
}

/* Leases an Activation cut (the fold's marks): their Ends carry the cut's
 * reason, whatever ends them, except a node failure. */
static void test_cut_marks (void)
{
    jt_lease_events_t e = { 0 };
    jt_error_t err = { "" };
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    jt_job_facts_t j = job (42, JT_JOB_RUNNING, all, 6);
    jt_fold_lease_t *open;
    size_t n;
    static const struct {
        const char *name;
        jt_job_state_t state;
        const char *want;
    } cases[] = {
        { "requeued (sync)", JT_JOB_PENDING,
          "End jtc:42:1772366395:g0:end reason=RandomPreempt end=+60\n"
          "End jtc:42:1772366395:g1:end reason=Shrink end=+60\n"
          "End jtc:42:1772366395:s0:end reason=DropSpare end=+60\n" },
        { "ended (fini)", JT_JOB_ENDED,
          "End jtc:42:1772366395:g0:end reason=RandomPreempt end=+60\n"
          "End jtc:42:1772366395:g1:end reason=End end=+60\n"
          "End jtc:42:1772366395:s0:end reason=DropSpare end=+60\n" },
        { "ended by a node failure", JT_JOB_NODE_FAILED,
          "End jtc:42:1772366395:g0:end reason=Fail end=+60\n"
          "End jtc:42:1772366395:g1:end reason=Fail end=+60\n"
          "End jtc:42:1772366395:s0:end reason=Fail end=+60\n" },
        { "gone at reconciliation", JT_JOB_GONE,
          "End jtc:42:1772366395:g0:end reason=RandomPreempt end=+60\n"
          "End jtc:42:1772366395:g1:end reason=JobGone end=+60\n"
          "End jtc:42:1772366395:s0:end reason=DropSpare end=+60\n" },
    };

    jt_lease_sync (&j, NULL, 0, T0, JT_REASON_SHRINK, &e, &err);
    apply (f, &e);
    jt_lease_events_clear (&e);
    n = open_of (f, &open);
    if (n != 3)
        bail_out ("cut marks: %zu open leases", n);
    open[0].cut = JT_REASON_RANDOM_PREEMPT;       /* g0: the lottery took the run */
    open[0].cut_seed = 0x0123456789abcdefULL;
    open[2].cut = JT_REASON_DROP_SPARE;           /* s0: the spare was dropped */
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        j = job (42, cases[i].state, NULL, 0);
        j.end_time = T0 + 60;
        if (cases[i].state == JT_JOB_PENDING)
            jt_lease_sync (&j, open, n, T0 + 60, JT_REASON_SHRINK, &e, &err);
        else if (cases[i].state == JT_JOB_GONE)
            jt_lease_reconcile ("jtc", open, n, &j, 1, T0 + 60, &e, &err);
        else
            jt_lease_fini (&j, open, n, T0 + 60, &e, &err);
        is (dump (&e), cases[i].want, "cut leases %s: the cut's reason%s", cases[i].name,
            cases[i].state == JT_JOB_NODE_FAILED ? " gives way to Fail" : "");
        if (cases[i].state != JT_JOB_NODE_FAILED)
            ok (e.n == 3 && e.v[0]->seed == 0x0123456789abcdefULL && !e.v[1]->seed
                    && !e.v[2]->seed,
                "  the RandomPreempt End carries the seed, no other does");
        jt_lease_events_clear (&e);
    }
    free (open);
    jt_ledger_fold_destroy (f);
}

/* Before the restart: jobs 7 (will be gone), 8 (ended while down), 9 (ended
 * by a node failure while down), 10 (running, shrank while down), 11
 * (running, unchanged) have open leases; 12 runs but its Start was lost;
 * another cluster's lease stays. */
static void test_reconcile (void)
{
    jt_lease_events_t e = { 0 };
    jt_error_t err = { "" };
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    uint32_t ids[] = { 7, 8, 9, 10, 11 };

    for (int i = 0; i < 5; i++) {
        jt_job_facts_t j = job1 (ids[i], JT_JOB_RUNNING, 2);
        jt_lease_sync (&j, NULL, 0, T0, JT_REASON_SHRINK, &e, &err);
    }
    jt_event_t *other = jt_event_create (JT_EV_START);
    jt_event_set (&other->id, "other:7:1:g0:start");
    jt_event_set (&other->lease, "other:7:1:g0");
    jt_event_set (&other->run, "other:7");
    jt_event_set (&other->group, "0");
    jt_event_set (&other->envelope, "west-h100");
    jt_event_set (&other->owner, "rai");
    jt_event_add_node (other, "z01");
    other->gpus = 8;
    other->role = JT_ROLE_ACTIVE;
    other->start = other->time = T0;
    e.v = realloc (e.v, (e.n + 1) * sizeof (*e.v));
    e.cap = e.n + 1;
    e.v[e.n++] = other;
    is_int (apply (f, &e), 0, "the ledger before the restart folds cleanly");
    jt_lease_events_clear (&e);

    jt_job_facts_t after[] = {
        job1 (8, JT_JOB_ENDED, 0),   job1 (9, JT_JOB_NODE_FAILED, 0),
        job1 (10, JT_JOB_RUNNING, 1), job1 (11, JT_JOB_RUNNING, 2),
        job1 (12, JT_JOB_RUNNING, 2), job1 (13, JT_JOB_GONE, 0),
    };
    after[0].end_time = T0 + 600;
    after[1].end_time = T0 + 700;
    jt_fold_lease_t *open;
    size_t n = open_of (f, &open);
    is_int (n, 6, "six leases open in the ledger");
    ok (jt_lease_reconcile ("jtc", open, n, after, 6, T0 + 1000, &e, &err) == 0,
        "reconcile");
    is (dump (&e),
        "End jtc:7:1772366395:g0:end reason=JobGone end=+1000\n"
        "End jtc:8:1772366395:g0:end reason=End end=+600\n"
        "End jtc:9:1772366395:g0:end reason=Fail end=+700\n"
        "End jtc:10:1772366395:g0:end reason=Shrink end=+1000\n"
        "Start jtc:10:1772366395:g0:n1:start run=jtc:10 group=0 env=west-h100 "
        "owner=rai role=Active gpus=8 nodes=n10-01 start=+1000\n"
        "Start jtc:12:1772366395:g0:start run=jtc:12 group=0 env=west-h100 "
        "owner=rai role=Active gpus=16 nodes=n12-01,n12-02 start=-5\n",
        "gone job: JobGone at now; ended while down: End at its end time; node "
        "failure: Fail; shrunk while down: Shrink and the remainder; missing "
        "Start: started; unchanged and other clusters' leases: nothing");
    free (open);
    is_int (apply (f, &e), 0, "the fold accepts them");
    jt_lease_events_clear (&e);

    /* restored pending (launched after slurmctld's last state save, then
     * killed): Slurm's end time is the planned one, start + time limit,
     * after now; and an end Slurm puts after now: both end now */
    {
        jt_ledger_fold_t *g = jt_ledger_fold_create ();
        jt_job_facts_t b[] = { job1 (14, JT_JOB_RUNNING, 2), job1 (15, JT_JOB_RUNNING, 2) };
        jt_fold_lease_t *o;
        for (int i = 0; i < 2; i++)
            jt_lease_sync (&b[i], NULL, 0, T0, JT_REASON_SHRINK, &e, &err);
        apply (g, &e);
        jt_lease_events_clear (&e);
        size_t no = open_of (g, &o);
        jt_job_facts_t r[] = { job1 (14, JT_JOB_PENDING, 0), job1 (15, JT_JOB_ENDED, 0) };
        r[0].end_time = T0 + 60;   /* the planned end: after now */
        r[1].end_time = T0 + 900;  /* an end after now */
        jt_lease_reconcile ("jtc", o, no, r, 2, T0 + 30, &e, &err);
        is (dump (&e),
            "End jtc:14:1772366395:g0:end reason=End end=+30\n"
            "End jtc:15:1772366395:g0:end reason=End end=+30\n",
            "restored pending with its planned end after now, or an end after now: "
            "End at now, never later");
        free (o);
        jt_lease_events_clear (&e);
        jt_ledger_fold_destroy (g);
    }

    /* reconciling again (the next restart) emits nothing */
    n = open_of (f, &open);
    jt_job_facts_t again[] = { job1 (10, JT_JOB_RUNNING, 1), job1 (11, JT_JOB_RUNNING, 2),
                               job1 (12, JT_JOB_RUNNING, 2) };
    ok (jt_lease_reconcile ("jtc", open, n, again, 3, T0 + 2000, &e, &err) == 0
            && e.n == 0,
        "a second reconciliation emits nothing (%zu events)", e.n);
    free (open);
    jt_lease_events_clear (&e);

    /* a job Slurm reports as gone; the other cluster's lease stays open */
    n = open_of (f, &open);
    jt_job_facts_t gone[] = { job1 (11, JT_JOB_GONE, 0) };
    jt_lease_reconcile ("jtc", open, n, gone, 1, T0 + 3000, &e, &err);
    is (dump (&e),
        "End jtc:10:1772366395:g0:n1:end reason=JobGone end=+3000\n"
        "End jtc:11:1772366395:g0:end reason=JobGone end=+3000\n"
        "End jtc:12:1772366395:g0:end reason=JobGone end=+3000\n",
        "every job gone: JobGone for each of this cluster's leases, none for "
        "another cluster's");
    free (open);
    jt_lease_events_clear (&e);

    /* A requeued run started again (new start time) while its earlier
     * start's End was never written (slurmctld killed between a launch
     * and its state save): that lease is the earlier attempt's, not a
     * shrink; it ends at the new start at the latest. */
    jt_job_facts_t first = job1 (14, JT_JOB_RUNNING, 2), again2;
    jt_ledger_fold_destroy (f);
    f = jt_ledger_fold_create ();
    jt_lease_sync (&first, NULL, 0, T0, JT_REASON_SHRINK, &e, &err);
    is_int (apply (f, &e), 0, "job 14's first start folds");
    jt_lease_events_clear (&e);
    again2 = first;
    again2.start_time = START + 500;
    n = open_of (f, &open);
    ok (jt_lease_reconcile ("jtc", open, n, &again2, 1, T0 + 4000, &e, &err) == 0,
        "reconcile job 14 started again");
    /* (the new start time: the new lease's start, the old one's end) */
    is (dump (&e),
        "End jtc:14:1772366395:g0:end reason=End end=+495\n"
        "Start jtc:14:1772366895:g0:start run=jtc:14 group=0 env=west-h100 "
        "owner=rai role=Active gpus=16 nodes=n14-01,n14-02 start=+495\n",
        "an earlier start's lease ends with End when the new one starts, not"
        " Shrink at now");
    free (open);
    is_int (apply (f, &e), 0, "the fold accepts them (no node held twice)");
    jt_lease_events_clear (&e);
    jt_ledger_fold_destroy (f);
    for (size_t i = 0; i < 16; i++)
        jt_jobrec_free (&recs[i]);
}

/* The fold's open reservation of run into *r (0), or -1. */
static int open_resv (jt_ledger_fold_t *f, const char *run, jt_fold_reservation_t *r)
{
    return jt_ledger_fold_open_resv (f, run, r);
}

static void test_reservations (void)
{
    jt_lease_events_t e = { 0 };
    jt_error_t err = { "" };
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    const char *slice[] = { "a01", "a02" };
    jt_resv_facts_t rf = { .envelope = "west-h100", .nodes = slice, .nnodes = 2,
                           .gpus = 16, .start = T0 + 300 };
    jt_fold_reservation_t r;

    /* the plugin's fold (ledger_sink.c): it forgets ids, so that a resend
     * below is the reservation logic's to absorb; a fold that keeps them
     * (a ledger's reader) calls the same id twice a duplicate */
    if (!f)
        bail_out ("out of memory");
    jt_ledger_fold_forget_ids (f);
    jt_job_facts_t j = job1 (7, JT_JOB_PENDING, 0);

    ok (jt_resv_reserved (&j, &rf, NULL, T0, &e, &err) == 0, "reserve");
    is (dump (&e),
        "ReservationCreate jtc:7:resv:1772366400:create resv=jtc:7:resv:1772366400 "
        "run=jtc:7 env=west-h100 owner=acct gpus=16 nodes=a01,a02 start=+300 time=+0\n",
        "the first estimate creates the reservation: slice, payer, earliest start; "
        "owner from the facts when the reservation names none");
    is_int (apply (f, &e), 0, "the fold accepts it");
    jt_lease_events_clear (&e);
    ok (open_resv (f, "jtc:7", &r) == 0 && !strcmp (r.reservation, "jtc:7:resv:1772366400")
            && r.earliest == T0 + 300 && r.gpus == 16,
        "the fold holds it open for run jtc:7");
    ok (open_resv (f, "jtc:8", &r) < 0, "no open reservation for another run");

    rf.start = T0 + 100;
    ok (jt_resv_reserved (&j, &rf, open_resv (f, "jtc:7", &r) == 0 ? &r : NULL, T0 + 30,
                          &e, &err) == 0 && e.n == 0,
        "later estimates of a run that holds one emit nothing (%zu)", e.n);
    rf.start = T0 - 50;
    rf.envelope = NULL;
    ok (jt_resv_reserved (&j, &rf, NULL, T0, &e, &err) == 0 && e.n == 0,
        "no payer: no reservation");
    rf.envelope = "west-h100";
    jt_resv_facts_t past = rf;
    past.owner = "vision";
    jt_job_facts_t j8 = job1 (8, JT_JOB_PENDING, 0);
    jt_resv_reserved (&j8, &past, NULL, T0, &e, &err);
    is (dump (&e),
        "ReservationCreate jtc:8:resv:1772366400:create resv=jtc:8:resv:1772366400 "
        "run=jtc:8 env=west-h100 owner=vision gpus=16 nodes=a01,a02 start=+0 time=+0\n",
        "an estimate in the past starts now; the facts' owner wins");
    is_int (apply (f, &e), 0, "folded");
    jt_lease_events_clear (&e);

    /* settle: pending nothing, running Activate, ended / gone Released */
    ok (jt_resv_settle (&j, open_resv (f, "jtc:7", &r) == 0 ? &r : NULL, T0 + 60, &e,
                        &err) == 0 && e.n == 0,
        "a pending run keeps its reservation");
    j.state = JT_JOB_RUNNING;
    jt_resv_settle (&j, open_resv (f, "jtc:7", &r) == 0 ? &r : NULL, T0 + 300, &e, &err);
    is (dump (&e),
        "ReservationActivate jtc:7:resv:1772366400:activate resv=jtc:7:resv:1772366400 "
        "run=jtc:7 time=+300\n", "a run that starts activates its reservation");
    is_int (apply (f, &e), 0, "folded");
    ok (open_resv (f, "jtc:7", &r) < 0, "activated: no longer open");
    jt_lease_events_clear (&e);
    ok (jt_resv_settle (&j, NULL, T0 + 400, &e, &err) == 0 && e.n == 0,
        "no open reservation: nothing to settle");
    j8.state = JT_JOB_ENDED;
    jt_resv_settle (NULL, open_resv (f, "jtc:8", &r) == 0 ? &r : NULL, T0 + 90, &e, &err);
    is (dump (&e),
        "ReservationReleased jtc:8:resv:1772366400:release resv=jtc:8:resv:1772366400 "
        "run=jtc:8 time=+90\n", "a run Slurm does not know releases it");
    jt_lease_events_clear (&e);
    jt_resv_settle (&j8, open_resv (f, "jtc:8", &r) == 0 ? &r : NULL, T0 + 90, &e, &err);
    is (dump (&e),
        "ReservationReleased jtc:8:resv:1772366400:release resv=jtc:8:resv:1772366400 "
        "run=jtc:8 time=+90\n", "so does a run that ends without starting");
    is_int (apply (f, &e), 0, "folded");
    ok (open_resv (f, "jtc:8", &r) < 0, "released: no longer open");
    jt_lease_events_clear (&e);

    /* a requeued run reserves again under a new id; the newer Create
     * replaces nothing that is still open, and resends are idempotent */
    j.state = JT_JOB_PENDING;
    rf.start = T0 + 900;
    jt_resv_reserved (&j, &rf, NULL, T0 + 600, &e, &err);
    is_int (apply (f, &e), 0, "a requeued run's second reservation folds");
    is_int (apply (f, &e), 0, "and its resend too");
    int got = open_resv (f, "jtc:7", &r);
    ok (got == 0 && !strcmp (r.reservation, "jtc:7:resv:1772367000"),
        "the new reservation (id from when it was made) is open (%s)",
        got == 0 ? r.reservation : "none");
    jt_lease_events_clear (&e);

    /* reconciliation: 7 gone, 8 (released already) nothing, 9 pending keeps
     * its own, another cluster's stays */
    jt_job_facts_t j9 = job1 (9, JT_JOB_PENDING, 0);
    jt_resv_reserved (&j9, &rf, NULL, T0, &e, &err);
    jt_job_facts_t o = j9;
    o.cluster = "other";
    jt_resv_reserved (&o, &rf, NULL, T0, &e, &err);
    is_int (apply (f, &e), 0, "three open reservations");
    jt_lease_events_clear (&e);
    jt_fold_reservation_t *open;
    size_t n;
    ok (jt_ledger_fold_open_resvs (f, &open, &n, &err) == 0 && n == 3,
        "three listed");
    jt_job_facts_t jobs[] = { job1 (9, JT_JOB_PENDING, 0), job1 (10, JT_JOB_RUNNING, 2) };
    ok (jt_resv_reconcile ("jtc", open, n, jobs, 2, T0 + 1000, &e, &err) == 0, "reconcile");
    is (dump (&e),
        "ReservationReleased jtc:7:resv:1772367000:release resv=jtc:7:resv:1772367000 "
        "run=jtc:7 time=+1000\n",
        "reconciliation releases the reservation of a job Slurm lost, keeps a pending "
        "run's and another cluster's");
    free (open);
    jt_lease_events_clear (&e);
    jobs[0].state = JT_JOB_RUNNING;
    ok (jt_ledger_fold_open_resvs (f, &open, &n, &err) == 0, "listed");
    jt_resv_reconcile ("jtc", open, n, jobs, 2, T0 + 1000, &e, &err);
    is (dump (&e),
        "ReservationReleased jtc:7:resv:1772367000:release resv=jtc:7:resv:1772367000 "
        "run=jtc:7 time=+1000\n"
        "ReservationActivate jtc:9:resv:1772366400:activate resv=jtc:9:resv:1772366400 "
        "run=jtc:9 time=+1000\n",
        "a run that started while slurmctld was down activates it (in reservation "
        "id order)");
    free (open);
    jt_lease_events_clear (&e);
    jt_ledger_fold_destroy (f);
}

static void test_ids (void)
{
    char buf[16];
    jt_error_t err = { "" };
    ok (jt_lease_run_id ("jtc", 4294967295u, buf, sizeof (buf)) == 0
            && !strcmp (buf, "jtc:4294967295"),
        "run id %s", buf);
    ok (jt_lease_run_id ("a-long-cluster", 1, buf, sizeof (buf)) < 0,
        "a run id that does not fit is refused, never cut");
    /* sha256 = ab27a1e3...2a89fc; the id hashes its hex with FNV-1a 64 from
     * the basis 1469598103934665603 (not the standard 14695981039346656037:
     * a digit short since the first release, and kept so that existing
     * ledgers keep their ids): 5109cdf7d984cd11 */
    const char *text = "{ \"owner\": \"rai\", \"envelopes\": [ { \"name\": "
                       "\"west-h100\", \"flavor\": \"h100\", \"start\": "
                       "\"2026-01-01T00:00:00Z\", \"end\": \"2027-01-01T00:00:00Z\", "
                       "\"concurrency\": 128 } ] }";
    jt_budgets_t *b = jt_budgets_create ();
    jt_diags_t d;
    jt_diags_init (&d);
    if (jt_budgets_add_json (b, "rai.json", text, strlen (text), &d) < 0
        || jt_budgets_finalize (b, &d) < 0)
        bail_out ("budget file refused");
    jt_event_t *ev = jt_lease_budget_event (b, "jtc", T0, &err);
    char want[128];
    snprintf (want, sizeof (want), "jtc:budgets:%lld:%.16s", (long long) T0,
              ev ? ev->budgets_sha256 : "");
    is (ev ? ev->id : err.text, want, "BudgetLoaded id: load time and content hash");
    jt_event_t *again = jt_lease_budget_event (b, "jtc", T0 + 60, &err);
    ok (ev && again && strcmp (ev->id, again->id)
            && !strcmp (ev->budgets_sha256, again->budgets_sha256),
        "the same budgets loaded again are a new event (a revert is recorded)");
    jt_event_destroy (again);
    jt_event_destroy (ev);
    jt_budgets_destroy (b);
    jt_diags_free (&d);
}


/* A soft group (no groupGPUs) placed in two domains: two bound leases of
 * group 0, each its own lease (":c1" on the second), both in the fold. */
#define SOFT "jobtree/1 {\"run\":{\"owner\":\"rai\",\"resources\":{\"gpuType\":" \
    "\"h100\",\"totalGPUs\":24}},\"funding\":[],\"fundedGPUs\":24,\"borrowedGPUs\":0," \
    "\"reason\":\"OK\",\"bound\":{\"time\":\"2026-03-01T12:00:00Z\",\"leases\":[" \
    "{\"group\":0,\"envelope\":\"west-h100\",\"role\":\"Active\",\"gpus\":16," \
    "\"nodes\":[\"a01\",\"a02\"]},{\"group\":0,\"envelope\":\"west-h100\",\"role\":" \
    "\"Active\",\"gpus\":8,\"nodes\":[\"b01\"]}]}}"

static void test_soft_chunks (void)
{
    jt_jobrec_t soft;
    jt_lease_events_t e = { 0 };
    jt_error_t err = { "" };
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    jt_fold_lease_t *open;
    size_t n;

    if (jt_jobrec_parse (SOFT, &soft, &err) < 0)
        bail_out ("soft record: %s", err.text);
    jt_job_facts_t j = job (43, JT_JOB_RUNNING, all, 6);
    j.rec = &soft;
    ok (jt_lease_sync (&j, NULL, 0, T0 + 5, JT_REASON_SHRINK, &e, &err) == 0,
        "soft: sync at begin");
    is (dump (&e),
        "Start jtc:43:1772366395:g0:start run=jtc:43 group=0 env=west-h100 "
        "owner=rai role=Active gpus=16 nodes=a01,a02 start=-5\n"
        "Start jtc:43:1772366395:g0:c1:start run=jtc:43 group=0 env=west-h100 "
        "owner=rai role=Active gpus=8 nodes=b01 start=-5\n",
        "soft group in two domains: a lease per chunk, the second's id ends :c1");
    is_int (apply (f, &e), 0, "the fold accepts both");
    n = open_of (f, &open);
    is_int ((long long) n, 2, "both chunks are open leases (24 GPUs, not 16)");
    free (open);
    jt_lease_events_clear (&e);
    jt_ledger_fold_destroy (f);
    jt_jobrec_free (&soft);
}

/* A spare swapped in (spares.h): group 0 loses a02 at +100 and takes s01;
 * the event is written a second later. The group's lease and the spare's
 * end at the swap's recorded time, when ":w1" starts, not when written:
 * else a01 and s01 are held twice for that second (verify: node-overlap,
 * seen in t2080 when failure and write straddled a second). */
#define SWAPPED "jobtree/1 {\"run\":" RUN ",\"funding\":[],\"fundedGPUs\":32," \
    "\"borrowedGPUs\":16,\"reason\":\"OK\",\"bound\":{\"time\":" \
    "\"2026-03-01T12:00:00Z\",\"leases\":[{\"group\":0,\"envelope\":" \
    "\"west-h100\",\"role\":\"Active\",\"gpus\":16,\"nodes\":[\"a01\",\"s01\"]," \
    "\"spares\":[],\"swaps\":[{\"failed\":\"a02\",\"spare\":\"s01\",\"time\":" \
    "\"2026-03-01T12:01:40Z\"}]},{\"group\":1,\"envelope\":\"vision-h100\"," \
    "\"role\":\"Borrowed\",\"gpus\":16,\"nodes\":[\"b01\",\"b02\"]}]}}"

static void test_swap (void)
{
    jt_lease_events_t e = { 0 };
    jt_error_t err = { "" };
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    jt_jobrec_t swapped;
    jt_fold_lease_t *open;
    size_t n;

    if (jt_jobrec_parse (SWAPPED, &swapped, &err) < 0)
        bail_out ("swapped record: %s", err.text);
    jt_job_facts_t j = job (42, JT_JOB_RUNNING, all, 6);
    jt_lease_sync (&j, NULL, 0, T0, JT_REASON_SHRINK, &e, &err);
    apply (f, &e);
    jt_lease_events_clear (&e);

    const char *const after[] = { "a01", "s01", "b01", "b02" };
    j = job (42, JT_JOB_RUNNING, after, 4);
    j.rec = &swapped;
    n = open_of (f, &open);
    ok (jt_lease_resized (&j, "a02", open, n, T0 + 101, &e, &err) == 0,
        "resized: a02 failed, s01 swapped in at +100, written at +101");
    is (dump (&e),
        "NodeFail jtc:42:1772366395:nodefail:a02 nodes=a02\n"
        "End jtc:42:1772366395:g0:end reason=Fail end=+100\n"
        "End jtc:42:1772366395:s0:end reason=Swap end=+100\n"
        "Start jtc:42:1772366395:g0:w1:start run=jtc:42 group=0 env=west-h100 "
        "owner=rai role=Active gpus=16 nodes=a01,s01 start=+100\n",
        "swap: the group's and the spare's leases end when \":w1\" starts (+100)");
    int64_t endmax = 0, start = 0;
    for (size_t i = 0; i < e.n; i++) {
        if (e.v[i]->type == JT_EV_END && e.v[i]->end > endmax)
            endmax = e.v[i]->end;
        if (e.v[i]->type == JT_EV_START)
            start = e.v[i]->start;
    }
    ok (start > 0 && endmax <= start, "no node held by two leases at once");
    free (open);
    is_int (apply (f, &e), 0, "the fold accepts them");
    jt_lease_events_clear (&e);

    /* the same state synced again later: nothing new, nothing ended */
    n = open_of (f, &open);
    ok (jt_lease_sync (&j, open, n, T0 + 200, JT_REASON_SHRINK, &e, &err) == 0 && e.n == 0,
        "a later sync of the swapped run emits nothing");
    free (open);
    jt_lease_events_clear (&e);
    jt_ledger_fold_destroy (f);
    jt_jobrec_free (&swapped);
}

int main (void)
{
    jt_error_t err = { "" };
    if (jt_jobrec_parse (REC, &rec, &err) < 0)
        bail_out ("record: %s", err.text);
    test_lifecycle ();
    test_reservations ();
    test_reconcile ();
    test_cut_marks ();
    test_ids ();
    test_soft_chunks ();
    test_swap ();
    jt_jobrec_free (&rec);
    return done_testing ();
}
