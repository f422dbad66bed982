/*
 * spares.c - unit tests of jobtree/spares.h: a run's spares on node
 * failure (which spare replaces which node, several at once, requeue when
 * a group has no spare left), the record after a swap, the layout the job
 * is told, the lease events of a swap (jobtree/ledger_lease.h), and a
 * swap's text when the spare came from another domain of the block.
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

#include "jobtree/ledger.h"
#include "jobtree/ledger_lease.h"
#include "jobtree/spares.h"

#include "fixtures.h"
#include "tap.h"

#define RUN "{\"owner\":\"rai\",\"resources\":{\"gpuType\":\"h100\"," \
            "\"totalGPUs\":32},\"locality\":{\"groupGPUs\":16}," \
            "\"sparesPerGroup\":2}"
/* Group 0 on a01,a02 with spares s01,s02 (its domain); group 1 on b01,b02
 * with spare t01 (another domain). Bound 2026-03-01T12:00:00Z. */
#define REC "jobtree/1 {\"run\":" RUN ",\"funding\":[],\"fundedGPUs\":32," \
    "\"borrowedGPUs\":0,\"reason\":\"OK\",\"bound\":{\"time\":" \
    "\"2026-03-01T12:00:00Z\",\"leases\":[{\"group\":0,\"envelope\":" \
    "\"west-h100\",\"role\":\"Active\",\"gpus\":16,\"nodes\":[\"a01\",\"a02\"]," \
    "\"spares\":[\"s01\",\"s02\"]},{\"group\":1,\"envelope\":\"west-h100\"," \
    "\"role\":\"Active\",\"gpus\":16,\"nodes\":[\"b01\",\"b02\"]," \
    "\"spares\":[\"t01\"]}]}}"
/* The same run without spares. */
#define REC_NONE "jobtree/1 {\"run\":{\"owner\":\"rai\",\"resources\":{\"gpuType\":" \
    "\"h100\",\"totalGPUs\":16}},\"funding\":[],\"fundedGPUs\":16," \
    "\"borrowedGPUs\":0,\"reason\":\"OK\",\"bound\":{\"time\":" \
    "\"2026-03-01T12:00:00Z\",\"leases\":[{\"group\":0,\"envelope\":" \
    "\"west-h100\",\"role\":\"Active\",\"gpus\":16,\"nodes\":[\"a01\",\"a02\"]}]}}"
#define T0 1772366400
#define NOW (T0 + 600)
#define START 1772366395

/* "verdict: g:failed>spare ..." or "requeue: detail" / "none". */
static const char *decide (const char *rec, const char *held_csv)
{
    static char out[1024];
    const char *held[32];
    char buf[256], *save = NULL;
    size_t n = 0;
    jt_spares_decision_t d;
    jt_error_t err = { "" };

    snprintf (buf, sizeof (buf), "%s", held_csv);
    for (char *t = strtok_r (buf, ",", &save); t && n < 32; t = strtok_r (NULL, ",", &save))
        held[n++] = t;
    if (jt_spares_on_fail (rec, held, n, NOW, &d, &err) < 0) {
        snprintf (out, sizeof (out), "error: %s", err.text);
        return out;
    }
    snprintf (out, sizeof (out), "%s:", jt_spares_verdict_str (d.verdict));
    for (size_t i = 0; i < d.nswaps; i++)
        snprintf (out + strlen (out), sizeof (out) - strlen (out), " %d:%s>%s",
                  d.swaps[i].group, d.swaps[i].failed, d.swaps[i].spare);
    if (d.verdict == JT_SPARES_REQUEUE)
        snprintf (out + strlen (out), sizeof (out) - strlen (out), " %s", d.detail);
    jt_spares_decision_free (&d);
    return out;
}

/* The layout of a record text, as the job is told. */
static const char *layout (const char *text)
{
    static char out[2048];
    jt_jobrec_t rec;
    jt_error_t err = { "" };
    char *j;

    if (jt_jobrec_parse (text, &rec, &err) < 0)
        bail_out ("record: %s", err.text);
    if (!(j = jt_spares_layout_json (&rec, 42, &err)))
        bail_out ("layout: %s", err.text);
    snprintf (out, sizeof (out), "%s", j);
    free (j);
    jt_jobrec_free (&rec);
    return out;
}

/* The record after the decision for held (must be a swap); caller frees. */
static char *swapped (const char *rec, const char *const *held, size_t n)
{
    jt_spares_decision_t d;
    jt_error_t err = { "" };
    char *r;

    if (jt_spares_on_fail (rec, held, n, NOW, &d, &err) < 0 || d.verdict != JT_SPARES_SWAP)
        bail_out ("expected a swap: %s %s", err.text, d.detail);
    r = d.record;
    d.record = NULL;
    jt_spares_decision_free (&d);
    return r;
}

static void test_decisions (void)
{
    static const struct {
        const char *name, *rec, *held, *want;
    } t[] = {
        { "a failed node is replaced by its own group's first spare (same domain), "
          "never by another group's", REC, "a01,s01,s02,b01,b02,t01",
          "swap: 0:a02>s01" },
        { "a dead spare is skipped: the next held spare of the group", REC,
          "a01,s02,b01,b02,t01", "swap: 0:a02>s02" },
        { "several nodes at once, in two groups: all swapped in one decision", REC,
          "a02,s01,s02,b01,t01", "swap: 0:a01>s01 1:b02>t01" },
        { "two nodes of one group, two spares: both, in node order", REC,
          "s01,s02,b01,b02,t01", "swap: 0:a01>s01 0:a02>s02" },
        { "a group with fewer spares than lost nodes: the whole run requeued", REC,
          "a01,a02,s01,s02,t01", "requeue: group 1 lost 2 node(s) and holds 1 "
          "spare(s): the run is requeued (b01,b02)" },
        { "its spare dead too: requeue", REC, "a01,a02,s01,s02,b02",
          "requeue: group 1 lost 1 node(s) and holds 0 spare(s): the run is "
          "requeued (b01)" },
        { "one group short, another able: still the whole run (never half a gang)",
          REC, "a01,s01,s02,t01", "requeue: group 1 lost 2 node(s) and holds 1 "
          "spare(s): the run is requeued (b01,b02)" },
        { "only a spare failed: nothing to swap", REC, "a01,a02,s02,b01,b02,t01",
          "none:" },
        { "nothing missing", REC, "a01,a02,s01,s02,b01,b02,t01", "none:" },
        { "a run without spares: none (it shrinks as before)", REC_NONE, "a01",
          "none:" },
        { "held order does not matter", REC, "t01,b01,s02,s01,a02", "swap: 0:a01>s01 "
          "1:b02>t01" },
    };

    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++)
        is (decide (t[i].rec, t[i].held), t[i].want, "%s", t[i].name);
    ok (!strncmp (decide ("jobtree/1 {", "a01"), "error: ", 7),
        "an unreadable record is an error, not a decision");
}

static void test_record_and_layout (void)
{
    static const char *const held1[] = { "a01", "s01", "s02", "b01", "b02", "t01" };
    static const char *const held2[] = { "a01", "s02", "b01", "b02", "t01" };
    char *r1, *r2;

    is (layout (REC), "{\"version\":1,\"job\":42,\"groups\":[{\"group\":0,\"nodes\":"
        "[\"a01\",\"a02\"],\"spares\":[\"s01\",\"s02\"]},{\"group\":1,\"nodes\":[\"b01\","
        "\"b02\"],\"spares\":[\"t01\"]}]}", "layout at the start: groups, nodes, spares");
    r1 = swapped (REC, held1, 6);
    is (layout (r1), "{\"version\":1,\"job\":42,\"groups\":[{\"group\":0,\"nodes\":"
        "[\"a01\",\"s01\"],\"spares\":[\"s02\"],\"swaps\":[{\"failed\":\"a02\",\"spare\":"
        "\"s01\",\"time\":\"2026-03-01T12:10:00Z\"}]},{\"group\":1,\"nodes\":[\"b01\","
        "\"b02\"],\"spares\":[\"t01\"]}]}",
        "after a swap: the spare in the failed node's place, out of the spares, the "
        "swap named");
    /* s01 (swapped in) fails in turn: s02 replaces it; a second swap entry */
    r2 = swapped (r1, held2, 5);
    ok (strstr (layout (r2), "\"nodes\":[\"a01\",\"s02\"],\"spares\":[],\"swaps\":[{"
                "\"failed\":\"a02\",\"spare\":\"s01\"") != NULL
        && strstr (layout (r2), "{\"failed\":\"s01\",\"spare\":\"s02\"") != NULL,
        "a swapped-in spare that fails is replaced by the next spare; both swaps kept");
    is (decide (r2, "a01,b01,b02,t01"), "requeue: group 0 lost 1 node(s) and holds 0 "
        "spare(s): the run is requeued (s02)", "no spare left after two swaps: requeue");
    {
        jt_jobrec_t rec;
        jt_error_t err = { "" };
        bool spare = false;
        char buf[64];
        if (jt_jobrec_parse (r1, &rec, &err) < 0)
            bail_out ("%s", err.text);
        is_int (jt_spares_node_group (&rec, "s01", &spare), 0, "s01 now runs group 0");
        ok (!spare, "... as a node of the group, not a spare");
        is_int (jt_spares_node_group (&rec, "t01", &spare), 1, "t01 is group 1's");
        ok (spare, "... spare");
        is_int (jt_spares_node_group (&rec, "a02", &spare), -1,
                "the failed node is in no group");
        ok (jt_spares_group_list (&rec.bound[0], false, buf, sizeof (buf)) == 0
            && !strcmp (buf, "a01,s01"), "group 0's nodes as a list: %s", buf);
        ok (jt_spares_group_list (&rec.bound[0], false, buf, 4) < 0 && !buf[0],
            "a list that does not fit is refused, empty");
        jt_jobrec_free (&rec);
    }
    free (r1);
    free (r2);
}

/* The events, one line each. */
static const char *dump (const jt_lease_events_t *e)
{
    static char buf[4096];
    size_t k = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < e->n && k < sizeof (buf); i++) {
        const jt_event_t *ev = e->v[i];
        char nodes[128] = "";
        for (size_t j = 0; j < ev->nnodes; j++)
            snprintf (nodes + strlen (nodes), sizeof (nodes) - strlen (nodes), "%s%s",
                      j ? "," : "", ev->nodes[j]);
        k += (size_t) snprintf (buf + k, sizeof (buf) - k, "%s %s %s%s nodes=%s "
                                "t=%+" PRId64 "\n", jt_ev_type_str (ev->type), ev->id,
                                ev->type == JT_EV_START ? jt_role_str (ev->role) : "",
                                ev->type == JT_EV_END ? jt_end_reason_str (ev->reason) : "",
                                nodes,
                                (ev->type == JT_EV_START ? ev->start
                                 : ev->type == JT_EV_END ? ev->end : ev->time) - T0);
    }
    return buf;
}

static int apply (jt_ledger_fold_t *f, const jt_lease_events_t *e)
{
    int bad = 0;
    jt_error_t err = { "" };

    for (size_t i = 0; i < e->n; i++) {
        jt_violation_t v;
        if (jt_event_validate (e->v[i], &err) < 0 || jt_ledger_fold_apply (f, 0, e->v[i],
                                                                           &v, &err) != 0) {
            diag ("%s: %s %s", e->v[i]->id, err.text, v.msg);
            bad++;
        }
    }
    return bad;
}

static void test_lease_events (void)
{
    static const char *const all[] = { "a01", "a02", "s01", "s02", "b01", "b02", "t01" };
    static const char *const after[] = { "a01", "s01", "s02", "b01", "b02", "t01" };
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    jt_lease_events_t ev = { 0 };
    jt_fold_lease_t *open = NULL;
    jt_jobrec_t rec0, rec1;
    jt_error_t err = { "" };
    size_t nopen;
    char *r1;

    if (!f || jt_jobrec_parse (REC, &rec0, &err) < 0)
        bail_out ("setup: %s", err.text);
    jt_job_facts_t x = { .cluster = "jtc", .job_id = 42, .start_time = START,
                         .state = JT_JOB_RUNNING, .rec = &rec0, .account = "acct",
                         .held = all, .nheld = 7 };
    ok (jt_lease_derive (&x, &ev, &err) == 0 && apply (f, &ev) == 0,
        "the run's leases start (groups and spares)");
    jt_lease_events_clear (&ev);

    /* a02 fails: slurmctld takes it out, the plugin swaps s01 in */
    r1 = swapped (REC, after, 6);
    if (jt_jobrec_parse (r1, &rec1, &err) < 0)
        bail_out ("%s", err.text);
    x.rec = &rec1;
    x.held = after;
    x.nheld = 6;
    if (jt_ledger_fold_open_list (f, NULL, &open, &nopen, &err) < 0)
        bail_out ("%s", err.text);
    ok (jt_lease_resized (&x, "a02", open, nopen, NOW, &ev, &err) == 0,
        "the swap's events");
    is (dump (&ev),
        "NodeFail jtc:42:1772366395:nodefail:a02  nodes=a02 t=+600\n"
        "End jtc:42:1772366395:g0:end Fail nodes=a01,a02 t=+600\n"
        "End jtc:42:1772366395:s0:end Swap nodes=s01,s02 t=+600\n"
        "Start jtc:42:1772366395:g0:w1:start Active nodes=a01,s01 t=+600\n"
        "Start jtc:42:1772366395:s0:w1:start Spare nodes=s02 t=+600\n",
        "NodeFail; the failed node's lease ends Fail; the spare's ends Swap; the group "
        "runs on as a new Active lease with the spare from the swap; the spares left "
        "as a new Spare lease; group 1 untouched");
    is_int (apply (f, &ev), 0, "the fold accepts them");
    jt_lease_events_clear (&ev);
    free (open);
    if (jt_ledger_fold_open_list (f, NULL, &open, &nopen, &err) < 0)
        bail_out ("%s", err.text);
    ok (jt_lease_sync (&x, open, nopen, NOW + 60, JT_REASON_SHRINK, &ev, &err) == 0
        && ev.n == 0, "derived again later (a restart): nothing to emit (ids stable)");
    jt_lease_events_clear (&ev);

    /* requeue: the run holds no lease from then on, each ends Fail */
    x.nheld = 0;
    ok (jt_lease_resized (&x, "b01", open, nopen, NOW + 120, &ev, &err) == 0,
        "abort-and-requeue events");
    is (dump (&ev),
        "NodeFail jtc:42:1772366395:nodefail:b01  nodes=b01 t=+720\n"
        "End jtc:42:1772366395:g0:w1:end Fail nodes=a01,s01 t=+720\n"
        "End jtc:42:1772366395:g1:end Fail nodes=b01,b02 t=+720\n"
        "End jtc:42:1772366395:s0:w1:end Fail nodes=s02 t=+720\n"
        "End jtc:42:1772366395:s1:end Fail nodes=t01 t=+720\n",
        "every open lease of the run ends Fail, in lease id order (none Swap: no "
        "spare was swapped in)");
    is_int (apply (f, &ev), 0, "the fold accepts them");
    jt_lease_events_clear (&ev);
    free (open);
    jt_jobrec_free (&rec0);
    jt_jobrec_free (&rec1);
    free (r1);
    jt_ledger_fold_destroy (f);
}

/* A spare that fails while idle: nothing to swap; its lease ends Fail (not
 * Swap: no group took its node), the spares left start again. */
static void test_spare_fails (void)
{
    static const char *const all[] = { "a01", "a02", "s01", "s02", "b01", "b02", "t01" };
    static const char *const after[] = { "a01", "a02", "s01", "b01", "b02", "t01" };
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    jt_lease_events_t ev = { 0 };
    jt_fold_lease_t *open = NULL;
    jt_jobrec_t rec;
    jt_error_t err = { "" };
    size_t nopen;

    is (decide (REC, "a01,a02,s01,b01,b02,t01"), "none:", "an idle spare fails: no swap");
    if (!f || jt_jobrec_parse (REC, &rec, &err) < 0)
        bail_out ("setup: %s", err.text);
    jt_job_facts_t x = { .cluster = "jtc", .job_id = 42, .start_time = START,
                         .state = JT_JOB_RUNNING, .rec = &rec, .account = "acct",
                         .held = all, .nheld = 7 };
    if (jt_lease_derive (&x, &ev, &err) < 0 || apply (f, &ev) != 0)
        bail_out ("start");
    jt_lease_events_clear (&ev);
    x.held = after;
    x.nheld = 6;
    if (jt_ledger_fold_open_list (f, NULL, &open, &nopen, &err) < 0)
        bail_out ("%s", err.text);
    ok (jt_lease_resized (&x, "s02", open, nopen, NOW, &ev, &err) == 0, "its events");
    is (dump (&ev),
        "NodeFail jtc:42:1772366395:nodefail:s02  nodes=s02 t=+600\n"
        "End jtc:42:1772366395:s0:end Fail nodes=s01,s02 t=+600\n"
        "Start jtc:42:1772366395:s0:n1:start Spare nodes=s01 t=+600\n",
        "the spare lease ends Fail, the spare left starts as its remainder");
    is_int (apply (f, &ev), 0, "the fold accepts them");
    jt_lease_events_clear (&ev);
    free (open);
    jt_jobrec_free (&rec);
    jt_ledger_fold_destroy (f);
}

/* Spares from the block (issue 33): the decision swaps a group's spare in
 * wherever Pack put it; jt_spares_spans says when the group now spans two
 * domains of its block. REC's group 0 (a01,a02) has its spares s01,s02 in
 * its leaf A; group 1 (b01,b02) its spare t01 in leaf T, beside B in
 * block K2. */
static void test_block_spans (void)
{
    static const char *const levels[] = { "fabric.block" };
    static const char *const held[] = { "a02", "s01", "s02", "b01", "t01" };
    jt_snapshot_t *s[2];
    jt_spares_decision_t d;
    jt_error_t err = { "" };

    for (int k = 0; k < 2; k++) {
        s[k] = jt_snapshot_create ();
        fx_node (s[k], "a01", "fabric.domain=A,fabric.block=K1");
        fx_node (s[k], "a02", "fabric.domain=A,fabric.block=K1");
        fx_node (s[k], "s01", "fabric.domain=A,fabric.block=K1");
        fx_node (s[k], "s02", "fabric.domain=A,fabric.block=K1");
        fx_node (s[k], "b01", "fabric.domain=B,fabric.block=K2");
        fx_node (s[k], "b02", "fabric.domain=B,fabric.block=K2");
        fx_node (s[k], "t01", "fabric.domain=T,fabric.block=K2");
        if (jt_snapshot_set_levels (s[k], levels, (size_t) k, &err) < 0)
            bail_out ("levels: %s", err.text);
        fx_finalize (s[k]);
    }
    if (jt_spares_on_fail (REC, held, 5, NOW, &d, &err) < 0)
        bail_out ("decide: %s", err.text);
    ok (d.verdict == JT_SPARES_SWAP && d.nswaps == 2, "a01 and b02 lost: both "
        "swapped, t01 from another leaf of the block too");
    ok (jt_spares_spans (&d, s[1]) == 1, "one group now spans two leaves");
    is (d.detail, "group 0: a01 replaced by spare s01; group 1: b02 replaced by "
        "spare t01; group 1 now spans two domains of block K2 (B, T)",
        "the swap's text says group 1 spans two domains of its block");
    jt_spares_decision_free (&d);
    jt_spares_on_fail (REC, held, 5, NOW, &d, &err);
    ok (jt_spares_spans (&d, s[0]) == 1 && strstr (d.detail, "; group 1 now "
        "spans domains B and T"), "without levels: the two domains: %s",
        d.detail);
    jt_spares_decision_free (&d);
    static const char *const held0[] = { "a02", "s01", "s02", "b01", "b02", "t01" };
    jt_spares_on_fail (REC, held0, 6, NOW, &d, &err);
    ok (jt_spares_spans (&d, s[1]) == 0 && !strstr (d.detail, "spans"),
        "a swap inside the group's leaf says nothing of spans: %s", d.detail);
    jt_spares_decision_free (&d);
    ok (jt_spares_spans (NULL, s[1]) == 0, "no decision: 0");
    for (int k = 0; k < 2; k++)
        jt_snapshot_destroy (s[k]);
}

int main (void)
{
    test_decisions ();
    test_record_and_layout ();
    test_lease_events ();
    test_spare_fails ();
    test_block_spans ();
    return done_testing ();
}
