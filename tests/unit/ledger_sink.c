/*
 * ledger_sink.c - unit tests of the ledger sink (jobtree/ledger_sink.h):
 * every emitted event is applied to its fold (the next events are derived
 * against it) and reaches the client's spool in order; closed GPU-hours
 * are added per envelope, owned and Borrowed apart; the off state emits
 * nothing and says so once; reconciliation emits what jt_lease_reconcile
 * decides, once, after reading a ledger written before the "restart".
 * A waiting run's reservation: created once, activated just before its
 * leases start, released when it ends unstarted or when the host's lookup
 * says it is gone. An Activation: emitted and applied, so that the lottery
 * victim's Ends carry RandomPreempt and the seed when it is requeued, also
 * when that is found by the reconciliation after a restart.
 * No daemon: the socket does not exist, so the client spools everything.
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
#include <sys/stat.h>
#include <unistd.h>

#include "jobtree/ledger_checkpoint.h"
#include "jobtree/ledger_sink.h"
#include "fixtures.h"
#include "tap.h"

#define T0 1772366400 /* the bound time, 2026-03-01T12:00:00Z */
#define START 1772366395

/* Group 0: two west-h100 nodes (16 GPUs) and a spare; group 1: one node of
 * vision-h100 paid as Borrowed (8 GPUs). Job ids pick the node prefix. */
#define REC_FMT                                                                    \
    "jobtree/1 {\"run\":{\"owner\":\"rai\",\"resources\":{\"gpuType\":\"h100\","   \
    "\"totalGPUs\":24},\"locality\":{\"groupGPUs\":16}},\"funding\":[],"           \
    "\"fundedGPUs\":24,\"borrowedGPUs\":8,\"reason\":\"OK\",\"bound\":{\"time\":"  \
    "\"2026-03-01T12:00:00Z\",\"leases\":[{\"group\":0,\"envelope\":\"west-h100\"," \
    "\"role\":\"Active\",\"gpus\":16,\"nodes\":[\"%sa1\",\"%sa2\"],\"spares\":"     \
    "[\"%ss1\"]},{\"group\":1,\"envelope\":\"vision-h100\",\"role\":\"Borrowed\"," \
    "\"gpus\":8,\"nodes\":[\"%sb1\"]}]}}"

static char tmp[256];
static char logbuf[16384];

/* Log lines as "E msg", "I msg" (debug lines are left out). */
static void logcb (jt_ledger_sink_level_t level, const char *msg, void *arg)
{
    size_t k = strlen (logbuf);
    (void) arg;
    if (level != JT_LEDGER_SINK_DEBUG)
        snprintf (logbuf + k, sizeof (logbuf) - k, "%c %s\n",
                  level == JT_LEDGER_SINK_ERROR ? 'E' : 'I', msg);
}

/* ok() that the log holds line (it is shown when not). */
static void logged (const char *line, const char *what)
{
    if (!ok (strstr (logbuf, line) != NULL, "%s", what))
        diag ("log:\n%s", logbuf);
}

static int count (const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr (p, needle)); p++)
        n++;
    return n;
}

/* A job's facts: its record (parsed once per id), the nodes it holds of
 * "<p>a1 <p>a2 <p>s1 <p>b1" (holds: a bit per node, in that order). */
struct job {
    jt_jobrec_t rec;
    char names[4][32];
    const char *held[4];
};
static struct job jobs[16];

static jt_job_facts_t facts (uint32_t id, jt_job_state_t state, unsigned holds)
{
    struct job *j = &jobs[id];
    jt_job_facts_t x = { .cluster = "jtc", .job_id = id, .start_time = START,
                         .state = state, .rec = &j->rec, .account = "acct",
                         .held = j->held };
    static const char *const suffix[] = { "a1", "a2", "s1", "b1" };
    char p[16], text[2048];
    jt_error_t err = { "" };

    snprintf (p, sizeof (p), "j%u", id);
    if (!j->rec.run) {
        snprintf (text, sizeof (text), REC_FMT, p, p, p, p);
        if (jt_jobrec_parse (text, &j->rec, &err) < 0)
            bail_out ("record %u: %s", id, err.text);
    }
    for (int k = 0; k < 4; k++) {
        snprintf (j->names[k], sizeof (j->names[k]), "%s%s", p, suffix[k]);
        if (holds & (1u << k))
            j->held[x.nheld++] = j->names[k];
    }
    return x;
}
#define ALL 0xfu

static jt_budgets_t *budgets (void)
{
    return fx_budgets ("{ \"owner\": \"rai\", \"envelopes\": ["
                       FX_ENV ("west-h100", "", 64, "") "] }",
                       "{ \"owner\": \"vision\", \"envelopes\": ["
                       FX_ENV ("vision-h100", "", 64, "") "] }",
                       FX_END);
}

static jt_ledger_sink_t *sink_on (const char *name, const char *ledger_dir)
{
    char sock[300], spool[300];
    jt_ledger_sink_t *s = jt_ledger_sink_create (logcb, NULL);
    jt_ledger_sink_conf_t c = { .cluster = "jtc", .socket = sock, .spool_dir = spool,
                                .spool_name = "select.spool", .ledger_dir = ledger_dir };

    snprintf (sock, sizeof (sock), "%s/no-daemon.sock", tmp);
    snprintf (spool, sizeof (spool), "%s/%s", tmp, name);
    if (!s || jt_ledger_sink_configure (s, &c) < 0 || !jt_ledger_sink_on (s))
        bail_out ("sink %s: %s", name, logbuf);
    return s;
}

/* The event ids in a spool file, one a line ("" if none). */
static const char *spool_ids (const char *name)
{
    static char out[8192];
    char path[400], line[8192];
    FILE *f;

    snprintf (path, sizeof (path), "%s/%s/select.spool", tmp, name);
    out[0] = '\0';
    if (!(f = fopen (path, "r")))
        return strerror (errno);
    while (fgets (line, sizeof (line), f)) {
        const char *p = strstr (line, "\"id\":\"");
        const char *e = p ? strchr (p + 6, '"') : NULL;
        if (e)
            snprintf (out + strlen (out), sizeof (out) - strlen (out), "%.*s\n",
                      (int) (e - p - 6), p + 6);
    }
    fclose (f);
    return out;
}

/* The open leases of the sink's fold: "id gpus role" a line. */
static const char *open_dump (const jt_ledger_fold_t *f)
{
    static char out[4096];
    jt_fold_lease_t *o;
    size_t n;
    jt_error_t err = { "" };

    out[0] = '\0';
    if (!f || jt_ledger_fold_open_list (f, NULL, &o, &n, &err) < 0)
        return "no fold";
    for (size_t i = 0; i < n; i++)
        snprintf (out + strlen (out), sizeof (out) - strlen (out), "%s %" PRId64 " %s\n",
                  o[i].lease, o[i].gpus, jt_role_str (o[i].role));
    free (o);
    return out;
}

/* Closed GPU-hours added to fresh usage: "west used/lent vision used/lent". */
static const char *closed (const jt_ledger_sink_t *s, const jt_budgets_t *b)
{
    static char out[128];
    jt_usage_t u;
    size_t w = jt_budgets_envelope (b, "west-h100")->id;
    size_t v = jt_budgets_envelope (b, "vision-h100")->id;

    if (jt_usage_init (&u, b) < 0)
        bail_out ("usage: out of memory");
    jt_ledger_sink_add_closed (s, &u, b);
    snprintf (out, sizeof (out), "west %.1f/%.1f vision %.1f/%.1f active %" PRId64,
              u.used_hours[w], u.lent_hours[w], u.used_hours[v], u.lent_hours[v],
              u.active[w] + u.active[v]);
    jt_usage_free (&u);
    return out;
}

static void test_off (void)
{
    jt_budgets_t *b = budgets ();
    jt_ledger_sink_t *s = jt_ledger_sink_create (logcb, NULL);
    jt_ledger_sink_conf_t c = { .cluster = "jtc", .spool_dir = tmp,
                                .spool_name = "select.spool" };
    jt_job_facts_t x = facts (1, JT_JOB_RUNNING, ALL);
    jt_error_t err = { "" };
    char bad[300];

    logbuf[0] = '\0';
    ok (!jt_ledger_sink_on (NULL) && !jt_ledger_sink_on (s), "a new sink is off");
    ok (jt_ledger_sink_configure (s, &c) == 0 && !jt_ledger_sink_on (s),
        "no socket: off, as asked");
    ok (jt_ledger_sink_configure (s, &c) == 0, "off again");
    is_int (count (logbuf, "LedgerSocket not set in jobtree.conf: the ledger is off "
                           "(no lease events)"), 1, "off is said once");
    is_int (jt_ledger_sink_job_sync (s, &x, T0, &err), 0, "off: a start emits nothing");
    is_int (jt_ledger_sink_job_ended (s, &x, T0, &err), 0, "off: an end emits nothing");
    is_int (jt_ledger_sink_budgets (s, b, T0), 0, "off: no BudgetLoaded");
    ok (!jt_ledger_sink_reconcile_due (s) && jt_ledger_sink_reconcile (s, &x, 1, T0) == 0,
        "off: no reconciliation");
    ok (jt_ledger_sink_fold (s) == NULL, "off from the start: no fold");
    is (closed (s, b), "west 0.0/0.0 vision 0.0/0.0 active 0", "off: no closed hours");

    /* a spool that cannot be made: the client does not start, still off */
    snprintf (bad, sizeof (bad), "%s/a-file", tmp);
    fclose (fopen (bad, "w"));
    c.socket = "/nonexistent/ledgerd.sock";
    c.spool_dir = bad;
    logbuf[0] = '\0';
    ok (jt_ledger_sink_configure (s, &c) < 0 && !jt_ledger_sink_on (s),
        "client cannot start: -1 and off");
    logged ("E ledger client for /nonexistent/ledgerd.sock: spool ", "and it says why");
    is_int (jt_ledger_sink_job_sync (s, &x, T0, &err), 0, "nothing emitted");
    jt_ledger_sink_destroy (s);
    jt_ledger_sink_destroy (NULL);
    jt_budgets_destroy (b);
}

static void test_emit (void)
{
    jt_budgets_t *b = budgets ();
    jt_ledger_sink_t *s;
    jt_job_facts_t x;
    jt_error_t err = { "" };
    jt_fold_envelope_t fe;

    logbuf[0] = '\0';
    s = sink_on ("emit", NULL);
    ok (strstr (logbuf, "I ledger events to ") && strstr (logbuf, "/emit/select.spool)"),
        "on: says where events go");
    x = facts (2, JT_JOB_RUNNING, ALL);
    is_int (jt_ledger_sink_job_sync (s, &x, T0 + 5, &err), 3,
            "a job starts: a lease per group and one for the spares");
    is (open_dump (jt_ledger_sink_fold (s)),
        "jtc:2:1772366395:g0 16 Active\n"
        "jtc:2:1772366395:g1 8 Borrowed\n"
        "jtc:2:1772366395:s0 8 Spare\n",
        "each emitted event is applied to the fold");
    is_int (jt_ledger_sink_job_sync (s, &x, T0 + 10, &err), 0,
            "synced again: nothing (derived against the fold's open leases)");

    /* b1 fails at +30 min; the job keeps a1, a2, s1 */
    x = facts (2, JT_JOB_RUNNING, 0x7u);
    is_int (jt_ledger_sink_job_resized (s, &x, "j2b1", T0 + 1800, &err), 2,
            "node failure: NodeFail and the group's End");
    x = facts (2, JT_JOB_ENDED, 0);
    x.end_time = T0 + 3600;
    is_int (jt_ledger_sink_job_ended (s, &x, T0 + 9999, &err), 2,
            "the job ends: its two open leases end");
    is (open_dump (jt_ledger_sink_fold (s)), "", "nothing open");

    /* west: g0 16 GPUs x 1 h + s0 8 x 1 h, owned; vision: 8 x 0.5 h Borrowed */
    is (closed (s, b), "west 24.0/0.0 vision 4.0/4.0 active 0",
        "closed GPU-hours per envelope: owned charged to the owner, Borrowed as lent");

    is_int (jt_ledger_sink_budgets (s, b, T0 + 4000), 1, "BudgetLoaded emitted");
    ok (jt_ledger_fold_envelope (jt_ledger_sink_fold (s), "west-h100", 0, &fe) == 0
            && fe.capped && fe.concurrency == 64,
        "and applied to the fold (caps known)");
    is_int (jt_ledger_sink_budgets (s, NULL, T0), 0, "no budgets: nothing");

    /* the same configuration keeps the client; no socket turns it off but
     * keeps the fold */
    logbuf[0] = '\0';
    {
        char sock[300], spool[300];
        jt_ledger_sink_conf_t c = { .cluster = "jtc", .socket = sock, .spool_dir = spool,
                                    .spool_name = "select.spool" };
        snprintf (sock, sizeof (sock), "%s/no-daemon.sock", tmp);
        snprintf (spool, sizeof (spool), "%s/emit", tmp);
        ok (jt_ledger_sink_configure (s, &c) == 0 && jt_ledger_sink_on (s)
                && !strstr (logbuf, "ledger events to"),
            "the same socket and spool: the client is kept");
        c.socket = NULL;
        ok (jt_ledger_sink_configure (s, &c) == 0 && !jt_ledger_sink_on (s),
            "then off");
    }
    logged ("I ledger client: 8 submitted, 0 acked,", "stopping the client logs its counts");
    is_int (jt_ledger_sink_job_sync (s, &x, T0, &err), 0, "off: nothing");
    is (closed (s, b), "west 24.0/0.0 vision 4.0/4.0 active 0",
        "off: the fold's closed hours still count");
    jt_ledger_sink_destroy (s);
    const char *want = "jtc:2:1772366395:g0:start\n"
                       "jtc:2:1772366395:s0:start\n"
                       "jtc:2:1772366395:g1:start\n"
                       "jtc:2:1772366395:nodefail:j2b1\n"
                       "jtc:2:1772366395:g1:end\n"
                       "jtc:2:1772366395:g0:end\n"
                       "jtc:2:1772366395:s0:end\n"
                       "jtc:budgets:";
    const char *got = spool_ids ("emit");
    ok (!strncmp (got, want, strlen (want)) && count (got, "\n") == 8,
        "every event reached the client's spool, in emission order");
    jt_budgets_destroy (b);
}

/* The ids of events, one a line. */
static const char *ids_of (const jt_lease_events_t *e)
{
    static char out[4096];
    out[0] = '\0';
    for (size_t i = 0; i < e->n; i++)
        snprintf (out + strlen (out), sizeof (out) - strlen (out), "%s\n", e->v[i]->id);
    return out;
}

/* Before the restart, jobs 7, 8 and 9 started (written to a ledger). After
 * it: 7 is gone, 8 ended while slurmctld was down, 9 still runs and 10
 * runs but its Start never reached the ledger. */
static void test_restart (void)
{
    char dir[300], *json[16];
    size_t lens[16], n = 0;
    uint64_t first;
    jt_ledger_result_t res;
    jt_lease_events_t ev = { 0 };
    jt_error_t err = { "" };
    jt_ledger_writer_t *w;
    jt_ledger_sink_t *s;

    snprintf (dir, sizeof (dir), "%s/ledger", tmp);
    if (mkdir (dir, 0700) < 0)
        bail_out ("mkdir %s: %s", dir, strerror (errno));
    for (uint32_t id = 7; id <= 9; id++) {
        jt_job_facts_t x = facts (id, JT_JOB_RUNNING, ALL);
        if (jt_lease_sync (&x, NULL, 0, T0, JT_REASON_SHRINK, &ev, &err) < 0)
            bail_out ("sync: %s", err.text);
    }
    for (size_t i = 0; i < ev.n; i++) {
        if (!(json[n] = jt_event_to_json (ev.v[i], &err)))
            bail_out ("json: %s", err.text);
        lens[n] = strlen (json[n]);
        n++;
    }
    jt_lease_events_clear (&ev);
    if (!(w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err))
        || jt_ledger_writer_append (w, (const char *const *) json, lens, n, &first, &err) < 0)
        bail_out ("ledger: %s", err.text);
    jt_ledger_writer_close (w);
    for (size_t i = 0; i < n; i++)
        free (json[i]);

    jt_job_facts_t after[] = { facts (8, JT_JOB_ENDED, 0), facts (9, JT_JOB_RUNNING, ALL),
                               facts (10, JT_JOB_RUNNING, ALL) };
    after[0].end_time = T0 + 600;

    /* what ledger_lease decides for this ledger and these jobs */
    jt_ledger_fold_t *f = jt_ledger_fold_replay_dir (dir, &res, NULL, NULL, &err);
    jt_fold_lease_t *open;
    size_t nopen;
    if (!f || jt_ledger_fold_open_list (f, NULL, &open, &nopen, &err) < 0
        || jt_lease_reconcile ("jtc", open, nopen, after, 3, T0 + 1000, &ev, &err) < 0)
        bail_out ("reconcile: %s", err.text);
    free (open);
    jt_ledger_fold_destroy (f);
    char want[4096];
    snprintf (want, sizeof (want), "%s", ids_of (&ev));
    is (want,
        "jtc:7:1772366395:g0:end\njtc:7:1772366395:g1:end\njtc:7:1772366395:s0:end\n"
        "jtc:8:1772366395:g0:end\njtc:8:1772366395:g1:end\njtc:8:1772366395:s0:end\n"
        "jtc:10:1772366395:g0:start\njtc:10:1772366395:s0:start\n"
        "jtc:10:1772366395:g1:start\n",
        "ledger_lease: gone and ended jobs close, the missing Start starts");

    /* the sink, restarted with that ledger */
    logbuf[0] = '\0';
    s = sink_on ("restart", dir);
    jt_budgets_t *b = budgets ();
    jt_ledger_sink_budgets (s, b, T0 + 900);   /* replaced by the ledger's fold */
    ok (jt_ledger_sink_reconcile_due (s), "reconciliation is due");
    is_int (jt_ledger_sink_reconcile (s, after, 3, T0 + 1000), (int) ev.n,
            "it emits as many events");
    logged ("/ledger: 9 records (OK), 9 open leases\n", "it read LedgerDir: 9 records, 9 open");
    logged ("I reconciled with the ledger: 6 leases closed, 6 open, 3 started\n",
            "and says what it did");
    is (open_dump (jt_ledger_sink_fold (s)),
        "jtc:10:1772366395:g0 16 Active\njtc:10:1772366395:g1 8 Borrowed\n"
        "jtc:10:1772366395:s0 8 Spare\n"
        "jtc:9:1772366395:g0 16 Active\njtc:9:1772366395:g1 8 Borrowed\n"
        "jtc:9:1772366395:s0 8 Spare\n",
        "its fold: the ledger's, then the reconciliation");
    /* 8 ended at +600: 16 + 8 GPUs x 600 s west, 8 x 600 s vision (Borrowed);
     * 7 gone at +1000: 24 x 1000 s west, 8 x 1000 s vision */
    is (closed (s, b), "west 10.7/0.0 vision 3.6/3.6 active 0",
        "closed GPU-hours from the ledger's leases and the reconciliation");
    ok (!jt_ledger_sink_reconcile_due (s)
            && jt_ledger_sink_reconcile (s, after, 0, T0 + 2000) == 0,
        "only once: a second call emits nothing (every job would be gone)");
    jt_ledger_sink_destroy (s);
    /* the spool: the BudgetLoaded of before, then the reconciliation */
    const char *got = spool_ids ("restart");
    ok (!strncmp (got, "jtc:budgets:", 12) && strchr (got, '\n')
            && !strcmp (strchr (got, '\n') + 1, want),
        "the spool holds exactly ledger_lease's events, in its order");
    jt_lease_events_clear (&ev);

    /* no LedgerDir: reconciled against what this sink emitted */
    logbuf[0] = '\0';
    s = sink_on ("nodir", NULL);
    jt_job_facts_t x = facts (11, JT_JOB_RUNNING, ALL);
    jt_ledger_sink_job_sync (s, &x, T0, &err);
    is_int (jt_ledger_sink_reconcile (s, NULL, 0, T0 + 60), 3,
            "no LedgerDir: the sink's own open leases (its job gone) close");
    logged ("I LedgerDir not set: no reconciliation with the ledger\n",
            "and it says LedgerDir is not set");
    jt_ledger_sink_destroy (s);
    jt_budgets_destroy (b);
}

/* test_restart's ledger again, followed by a checkpoint of its fold (or a
 * forged one): slurmctld's start-up reads from it and says so. */
struct copy {
    char *p[32];
    size_t len[32], n;
};

static int copy_cb (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    struct copy *c = arg;
    (void) err;
    if (c->n < 32 && (c->p[c->n] = strndup (rec->payload, rec->len)))
        c->len[c->n++] = rec->len;
    return 0;
}

static void ledger_with_ckpt (const char *name, bool forge)
{
    char from[300], dir[300], **cp;
    const char *paths[1] = { from };
    struct copy c = { .n = 0 };
    jt_ledger_result_t res;
    jt_error_t err = { "" };
    size_t *cl, cn;
    uint64_t first;

    snprintf (from, sizeof (from), "%s/ledger", tmp);
    snprintf (dir, sizeof (dir), "%s/%s", tmp, name);
    jt_ledger_fold_t *f = jt_ledger_fold_replay_dir (from, &res, NULL, NULL, &err);
    if (!f || jt_ledger_read (paths, 1, NULL, copy_cb, &c, &res, &err) < 0 || mkdir (dir, 0700) < 0
        || jt_ckpt_payloads (f, c.n, T0, 0, &cp, &cl, &cn, &err) < 0)
        bail_out ("%s: %s", name, err.text);
    for (size_t i = 0; i < cn && c.n < 32; i++) {
        char *at = forge ? strstr (cp[i], "\"active\":") : NULL;
        if (at) /* a changed figure: its stateSha256 no longer holds */
            at[9] = at[9] == '9' ? '8' : (char) (at[9] + 1);
        c.p[c.n] = cp[i];
        c.len[c.n++] = cl[i];
    }
    free (cp);
    free (cl);
    jt_ledger_writer_t *w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err);
    if (!w || jt_ledger_writer_append (w, (const char *const *) c.p, c.len, c.n, &first, &err) < 0)
        bail_out ("%s: %s", name, err.text);
    jt_ledger_writer_close (w);
    for (size_t i = 0; i < c.n; i++)
        free (c.p[i]);
    jt_ledger_fold_destroy (f);
}

static void test_restart_ckpt (void)
{
    char dir[300];
    jt_ledger_sink_t *s;

    ledger_with_ckpt ("ledger-ckpt", false);
    snprintf (dir, sizeof (dir), "%s/ledger-ckpt", tmp);
    logbuf[0] = '\0';
    s = sink_on ("restart-ckpt", dir);
    jt_ledger_sink_reconcile (s, NULL, 0, T0 + 1000);
    /* 1 record read: the checkpoint's, not the 9 before it in its segment */
    logged ("/ledger-ckpt: from the checkpoint at seq 10 (state after seq 9): 1 records "
            "read, 0 folded\n",
            "a restart reads from the checkpoint (its record only) and says so");
    logged ("/ledger-ckpt: 10 records (OK), 9 open leases\n", "9 open leases, as without");
    jt_ledger_sink_destroy (s);

    ledger_with_ckpt ("ledger-forged", true);
    snprintf (dir, sizeof (dir), "%s/ledger-forged", tmp);
    logbuf[0] = '\0';
    s = sink_on ("restart-forged", dir);
    jt_ledger_sink_reconcile (s, NULL, 0, T0 + 1000);
    logged ("/ledger-forged: full fold from genesis, 10 records: checkpoint at seq 10 "
            "refused: checkpoint after seq 9: its parts' state hashes to ",
            "a damaged checkpoint is refused: full fold, and why");
    logged ("/ledger-forged: 10 records (OK), 9 open leases\n",
            "the full fold's 9 open leases");
    jt_ledger_sink_destroy (s);
}


/* The host's jobs for jt_ledger_sink_settle_resvs: 3 pending, 4 gone. */
static int lookup_calls, lookup_frees;
static int lookup (uint32_t job_id, jt_job_facts_t *x, void *arg)
{
    (void) arg;
    if (job_id == 0) {
        lookup_frees++;
        return 0;
    }
    lookup_calls++;
    if (job_id != 3)
        return -1;
    *x = facts (3, JT_JOB_PENDING, 0);
    return 0;
}

static void test_reservations (void)
{
    jt_ledger_sink_t *s;
    jt_error_t err = { "" };
    const char *slice[] = { "j5a1", "j5a2" };
    jt_resv_facts_t r = { .envelope = "west-h100", .nodes = slice, .nnodes = 2,
                          .gpus = 16, .start = T0 + 600 };
    jt_job_facts_t x;

    logbuf[0] = '\0';
    s = sink_on ("resv", NULL);
    ok (!jt_ledger_sink_reserving (s, 5), "a new run holds no reservation");
    x = facts (5, JT_JOB_PENDING, 0);
    is_int (jt_ledger_sink_job_reserved (s, &x, &r, T0, &err), 1,
            "its first estimate creates one");
    ok (jt_ledger_sink_reserving (s, 5), "it holds it now");
    is_int (jt_ledger_sink_job_reserved (s, &x, &r, T0 + 30, &err), 0,
            "a second estimate emits nothing");
    x = facts (5, JT_JOB_RUNNING, ALL);
    is_int (jt_ledger_sink_job_sync (s, &x, T0 + 600, &err), 4,
            "it starts: the reservation is activated, then three leases start");
    ok (!jt_ledger_sink_reserving (s, 5), "activated: not held any more");

    /* 6 is cancelled while it waits: Slurm's end of it releases it */
    x = facts (6, JT_JOB_PENDING, 0);
    jt_ledger_sink_job_reserved (s, &x, &r, T0, &err);
    x = facts (6, JT_JOB_ENDED, 0);
    is_int (jt_ledger_sink_job_ended (s, &x, T0 + 10, &err), 1,
            "a run that ends without starting: released (no lease to end)");

    /* 3 waits, 4 was cancelled (the plugin hears nothing): settling asks the
     * host for each open reservation and releases 4's only */
    x = facts (3, JT_JOB_PENDING, 0);
    jt_ledger_sink_job_reserved (s, &x, &r, T0, &err);
    x = facts (4, JT_JOB_PENDING, 0);
    jt_ledger_sink_job_reserved (s, &x, &r, T0, &err);
    is_int (jt_ledger_sink_settle_resvs (s, lookup, NULL, T0 + 20), 1,
            "settling: the vanished run's reservation is released");
    ok (lookup_calls == 2 && lookup_frees == 1,
        "one lookup per open reservation, the facts handed back (%d, %d)",
        lookup_calls, lookup_frees);
    ok (jt_ledger_sink_reserving (s, 3) && !jt_ledger_sink_reserving (s, 4),
        "the waiting run keeps its reservation");

    /* the funding hold counts from the run's latest estimate */
    jt_fold_reservation_t open;
    ok (jt_ledger_fold_open_resv (jt_ledger_sink_fold (s), "jtc:3", &open) == 0,
        "run 3's open reservation");
    is_int (jt_ledger_sink_hold_start (s, &open), T0 + 600,
            "its hold starts at the reservation's earliest start at first");
    ok (jt_ledger_sink_job_estimate (s, 3, T0 + 900),
        "an estimate of a reserved run is its reservation's (true)");
    is_int (jt_ledger_sink_hold_start (s, &open), T0 + 900,
            "backfill's next estimate moves the hold to it");
    jt_ledger_sink_job_estimate (s, 3, T0 + 700);
    is_int (jt_ledger_sink_hold_start (s, &open), T0 + 700,
            "and the next one again, earlier too");
    ok (!jt_ledger_sink_job_estimate (s, 4, T0 + 50)       /* released */
            && !jt_ledger_sink_job_estimate (s, 77, T0 + 50),  /* never reserved */
        "runs without an open reservation: false");
    jt_fold_reservation_t other = open;
    other.run = "jtc:4";
    is_int (jt_ledger_sink_hold_start (s, &other), T0 + 600,
            "an estimate of a run without an open reservation is not kept");
    is_int (jt_ledger_sink_hold_start (NULL, &open), T0 + 600,
            "no sink: the ledger's earliest start");
    x = facts (3, JT_JOB_ENDED, 0);
    jt_ledger_sink_job_ended (s, &x, T0 + 30, &err);        /* released */
    x = facts (3, JT_JOB_PENDING, 0);
    jt_ledger_sink_job_reserved (s, &x, &r, T0 + 40, &err);  /* reserved anew */
    ok (jt_ledger_fold_open_resv (jt_ledger_sink_fold (s), "jtc:3", &open) == 0
            && jt_ledger_sink_hold_start (s, &open) == T0 + 600,
        "a new reservation's hold starts at its own earliest start, not at the"
        " last estimate of the one before");
    jt_ledger_sink_destroy (s);
    is (spool_ids ("resv"),
        "jtc:5:resv:1772366400:create\n"
        "jtc:5:resv:1772366400:activate\n"
        "jtc:5:1772366395:g0:start\n"
        "jtc:5:1772366395:s0:start\n"
        "jtc:5:1772366395:g1:start\n"
        "jtc:6:resv:1772366400:create\n"
        "jtc:6:resv:1772366400:release\n"
        "jtc:3:resv:1772366400:create\n"
        "jtc:4:resv:1772366400:create\n"
        "jtc:4:resv:1772366400:release\n"
        "jtc:3:resv:1772366400:release\n"
        "jtc:3:resv:1772366440:create\n",
        "the spool holds the reservation events in emission order");
}

/* The spool's lines (static), one a line, each cut to "id reason[ seed]"
 * when it is an End and to "id type" otherwise. */
static const char *spool_ends (const char *name)
{
    static char out[8192];
    char path[400], line[8192];
    jt_error_t err = { "" };
    FILE *f;

    snprintf (path, sizeof (path), "%s/%s/select.spool", tmp, name);
    out[0] = '\0';
    if (!(f = fopen (path, "r")))
        return strerror (errno);
    while (fgets (line, sizeof (line), f)) {
        jt_event_t *ev = jt_event_from_json (line, strcspn (line, "\n"), &err);
        size_t k = strlen (out);
        if (!ev)
            snprintf (out + k, sizeof (out) - k, "? %s\n", err.text);
        else if (ev->type == JT_EV_END && ev->seed)
            snprintf (out + k, sizeof (out) - k, "%s %s %016" PRIx64 "\n", ev->id,
                      jt_end_reason_str (ev->reason), ev->seed);
        else
            snprintf (out + k, sizeof (out) - k, "%s %s\n", ev->id,
                      ev->type == JT_EV_END ? jt_end_reason_str (ev->reason)
                                            : jt_ev_type_str (ev->type));
        jt_event_destroy (ev);
    }
    fclose (f);
    return out;
}

/* The first n lines of a spool written as a ledger in tmp/<dir>. */
static void spool_to_ledger (const char *name, size_t n, const char *dir)
{
    char path[400], line[8192], *p[16];
    size_t lens[16], k = 0;
    jt_ledger_result_t res;
    jt_error_t err = { "" };
    jt_ledger_writer_t *w;
    uint64_t first;
    FILE *f;

    snprintf (path, sizeof (path), "%s/%s/select.spool", tmp, name);
    if (!(f = fopen (path, "r")) || mkdir (dir, 0700) < 0)
        bail_out ("%s: %s", path, strerror (errno));
    while (k < n && k < 16 && fgets (line, sizeof (line), f)) {
        line[strcspn (line, "\n")] = '\0';
        p[k] = strdup (line);
        lens[k] = strlen (line);
        k++;
    }
    fclose (f);
    if (!(w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err))
        || jt_ledger_writer_append (w, (const char *const *) p, lens, k, &first, &err) < 0)
        bail_out ("ledger: %s", err.text);
    jt_ledger_writer_close (w);
    for (size_t i = 0; i < k; i++)
        free (p[i]);
}

#define H(run, owner, group, role, gpus, pool, rg, rmin) \
    { run, owner, group, JT_ROLE_##role, gpus, pool, rg, rmin }

/* Jobs 12 and 13 run (group 0 of 16 GPUs on west/A, a spare there, group 1
 * elsewhere); run 14's reservation activates short of 24 GPUs on west/A:
 * 12's spare is dropped, then the lottery takes one of 12 and 13 (12). */
static void test_activation (void)
{
    static const jt_holder_t holders[] = {
        H ("jtc:12", "rai", 0, ACTIVE, 16, 0, 24, 24),
        H ("jtc:12", "rai", 0, SPARE, 8, 0, 24, 24),
        H ("jtc:13", "rai", 0, ACTIVE, 16, 0, 24, 24),
    };
    const char *pools[] = { "west/A" };
    const jt_need_t need[] = { { 0, 24 } };
    jt_slice_alt_t alt = { need, 1 };
    jt_activation_req_t req = { "west/A", "jtc:14:resv:1772366400", T0 + 100, &alt, 1,
                                holders, 3 };
    jt_activation_t a;
    jt_error_t err = { "" };
    jt_ledger_sink_t *s;
    jt_job_facts_t x;
    char dir[300], want[4096], rho[17];

    if (jt_activate (&req, &a, &err) < 0)
        bail_out ("activate: %s", err.text);
    snprintf (rho, sizeof (rho), "%016" PRIx64, a.rho);
    logbuf[0] = '\0';
    s = jt_ledger_sink_create (logcb, NULL);
    is_int (jt_ledger_sink_activation (s, "jtc:14:resv:1772366400", "jtc:14", &req, pools,
                                       1, &a, T0 + 100, &err),
            0, "off: no Activation");
    jt_ledger_sink_destroy (s);
    s = sink_on ("act", NULL);
    x = facts (12, JT_JOB_RUNNING, ALL);
    jt_ledger_sink_job_sync (s, &x, T0, &err);
    x = facts (13, JT_JOB_RUNNING, ALL);
    jt_ledger_sink_job_sync (s, &x, T0, &err);
    is_int (jt_ledger_sink_activation (s, "jtc:14:resv:1772366400", "jtc:14", &req, pools,
                                       1, &a, T0 + 101, &err),
            -1, "an Activation at another instant than now is refused");
    is (err.text, "Activation of jtc:14:resv:1772366400: at 1772366500, not now (1772366501)",
        "and it says so");
    is_int (jt_ledger_sink_activation (s, "jtc:14:resv:1772366400", "jtc:14", &req, pools,
                                       1, &a, T0 + 100, &err),
            1, "one Activation emitted");
    is_int (jt_ledger_fold_lotteries (jt_ledger_sink_fold (s)), 1,
            "and applied to the fold (recomputed there)");
    /* 12 is requeued (Slurm's preemption); 13 ends on its own */
    x = facts (12, JT_JOB_PENDING, 0);
    is_int (jt_ledger_sink_job_sync (s, &x, T0 + 130, &err), 3,
            "the victim requeued: its three leases end");
    x = facts (13, JT_JOB_ENDED, 0);
    is_int (jt_ledger_sink_job_ended (s, &x, T0 + 140, &err), 3, "the other run ends");
    jt_ledger_sink_destroy (s);
    snprintf (want, sizeof (want),
              "jtc:12:1772366395:g0:start Start\n"
              "jtc:12:1772366395:s0:start Start\n"
              "jtc:12:1772366395:g1:start Start\n"
              "jtc:13:1772366395:g0:start Start\n"
              "jtc:13:1772366395:s0:start Start\n"
              "jtc:13:1772366395:g1:start Start\n"
              "jtc:14:resv:1772366400:activation:1772366500 Activation\n"
              "jtc:12:1772366395:g0:end RandomPreempt %s\n"
              "jtc:12:1772366395:g1:end RandomPreempt %s\n"
              "jtc:12:1772366395:s0:end DropSpare\n"
              "jtc:13:1772366395:g0:end End\n"
              "jtc:13:1772366395:g1:end End\n"
              "jtc:13:1772366395:s0:end End\n",
              rho, rho);
    is (spool_ends ("act"), want,
        "the victim's Ends carry RandomPreempt and the Activation's seed (every lease "
        "of its run, in scope or not), its dropped spare's DropSpare; the other's End");

    {
        /* what the sink emitted is a ledger jobtree verify accepts */
        jt_ledger_result_t res;
        jt_violation_t v;
        jt_ledger_fold_t *f = NULL;
        const char *paths[1] = { dir };
        snprintf (dir, sizeof (dir), "%s/actall", tmp);
        spool_to_ledger ("act", 13, dir);
        memset (&v, 0, sizeof (v));
        int rc = jt_ledger_verify (paths, 1, NULL, NULL, &res, &v, &f, &err);
        ok (rc == 0 && res.status == JT_LEDGER_OK && res.nrecords == 13
                && v.kind == JT_VIOL_NONE && jt_ledger_fold_lotteries (f) == 1,
            "the emitted events verify, the lottery recomputed%s%s",
            v.kind ? ": " : "", v.kind ? v.msg : "");
        jt_ledger_fold_destroy (f);
    }
    /* the same after a restart: the ledger holds the Starts and the
     * Activation; Slurm restored 12 requeued and 13 running */
    snprintf (dir, sizeof (dir), "%s/actledger", tmp);
    spool_to_ledger ("act", 7, dir);
    {
        jt_job_facts_t after[] = { facts (12, JT_JOB_PENDING, 0),
                                   facts (13, JT_JOB_RUNNING, ALL) };
        s = sink_on ("act2", dir);
        is_int (jt_ledger_sink_reconcile (s, after, 2, T0 + 1000), 3,
                "restart: the reconciliation ends the requeued victim's leases");
        jt_ledger_sink_destroy (s);
    }
    snprintf (want, sizeof (want),
              "jtc:12:1772366395:g0:end RandomPreempt %s\n"
              "jtc:12:1772366395:g1:end RandomPreempt %s\n"
              "jtc:12:1772366395:s0:end DropSpare\n",
              rho, rho);
    is (spool_ends ("act2"), want,
        "with the reasons of the Activation read back from the ledger");
    jt_activation_free (&a);
}

int main (void)
{
    char cmd[300];

    snprintf (tmp, sizeof (tmp), "/tmp/jt-sink.XXXXXX");
    if (!mkdtemp (tmp))
        bail_out ("mkdtemp: %s", strerror (errno));
    test_off ();
    test_emit ();
    test_restart ();
    test_restart_ckpt ();
    test_reservations ();
    test_activation ();
    for (size_t i = 0; i < sizeof (jobs) / sizeof (jobs[0]); i++)
        jt_jobrec_free (&jobs[i].rec);
    snprintf (cmd, sizeof (cmd), "rm -rf %s", tmp);
    if (system (cmd) != 0)
        diag ("could not remove %s", tmp);
    return done_testing ();
}
