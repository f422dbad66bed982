/*
 * ledger_fold.c - unit tests of the fold (live state) and each invariant
 * class of `jobtree verify`, plus jt_ledger_verify over a written ledger.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobtree/ledger.h"
#include "tap.h"

#define CAPS                                                                           \
    "{\"v\":1,\"type\":\"BudgetLoaded\",\"id\":\"b\",\"time\":0,\"files\":[],"         \
    "\"caps\":[{\"envelope\":\"e1\",\"owner\":\"rai\",\"concurrency\":16,"             \
    "\"maxGPUHours\":36.0,\"start\":0,\"end\":100000}]}"

static char *lease_ev (const char *type, const char *id, const char *lease,
                       const char *nodes, int gpus, const char *role, int start,
                       int end, const char *reason)
{
    static char buf[1024];
    int n =
        snprintf (buf, sizeof (buf),
                  "{\"v\":1,\"type\":\"%s\",\"id\":\"%s\",\"time\":%d,\"lease\":\"%s\","
                  "\"run\":\"c:1\",\"group\":\"0\",\"nodes\":[%s],\"gpus\":%d,"
                  "\"role\":\"%s\",\"envelope\":\"e1\",\"owner\":\"rai\",\"start\":%d",
                  type, id, end >= 0 ? end : start, lease, nodes, gpus, role, start);
    if (end >= 0)
        snprintf (buf + n, sizeof (buf) - (size_t) n, ",\"end\":%d,\"reason\":\"%s\"}",
                  end, reason);
    else
        snprintf (buf + n, sizeof (buf) - (size_t) n, "}");
    return buf;
}

/* Apply events (NULL-terminated); return "kind@seq" of the first violation
 * or "none". */
static const char *run (const char *const *evs, jt_ledger_fold_t **keep)
{
    static char out[128];
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    jt_error_t err = { "" };
    snprintf (out, sizeof (out), "none");
    for (size_t i = 0; evs[i]; i++) {
        jt_event_t *ev = jt_event_from_json (evs[i], strlen (evs[i]), &err);
        if (!ev)
            bail_out ("event %zu: %s", i, err.text);
        jt_violation_t v;
        int rc = jt_ledger_fold_apply (f, i + 1, ev, &v, &err);
        jt_event_destroy (ev);
        if (rc > 0) {
            snprintf (out, sizeof (out), "%s@%zu", jt_violation_str (v.kind), i + 1);
            diag ("%s", v.msg);
            break;
        }
    }
    if (keep)
        *keep = f;
    else
        jt_ledger_fold_destroy (f);
    return out;
}

#define EV(...) strdup (lease_ev (__VA_ARGS__))

int main (void)
{
    char *s1 = EV ("Start", "1", "L1", "\"a\",\"b\"", 8, "Active", 0, -1, NULL);
    char *s2 = EV ("Start", "2", "L2", "\"c\"", 8, "Borrowed", 3600, -1, NULL);
    char *e1 = EV ("End", "3", "L1", "\"a\",\"b\"", 8, "Active", 0, 7200, "End");
    char *s3 = EV ("Start", "4", "L3", "\"b\"", 8, "Active", 7200, -1, NULL);
    char *ov = EV ("Start", "5", "L4", "\"b\"", 4, "Active", 3600, -1, NULL);
    char *big = EV ("Start", "6", "L5", "\"d\"", 4, "Active", 3600, -1, NULL);
    char *e9 = EV ("End", "7", "L9", "\"d\"", 4, "Active", 0, 10, "Shrink");
    char *dupid = EV ("Start", "1", "L6", "\"z\"", 1, "Active", 3600, -1, NULL);
    char *dups = EV ("Start", "8", "L2", "\"y\"", 1, "Active", 3600, -1, NULL);
    char *e2bad = EV ("End", "9", "L2", "\"c\"", 4, "Borrowed", 3600, 7200, "End");
    char *e2 = EV ("End", "10", "L2", "\"c\"", 8, "Borrowed", 3600, 7200, "Swap");
    char *late =
        EV ("End", "11", "L3", "\"b\"", 8, "Active", 7200, 7200 + 3600 * 3, "End");
    char *win = EV ("Start", "12", "L7", "\"q\"", 1, "Active", 100000, -1, NULL);

    jt_ledger_fold_t *f;
    const char *ok_seq[] = { CAPS, s1, s2, e1, s3, e2, NULL };
    is (run (ok_seq, &f), "none", "a valid history keeps every invariant");
    uint64_t ev, st, en, op;
    jt_ledger_fold_counts (f, &ev, &st, &en, &op);
    is_int (ev * 1000 + st * 100 + en * 10 + op, 6321,
            "6 events, 3 starts, 2 ends, 1 open");
    jt_fold_envelope_t env[4];
    size_t n = jt_ledger_fold_envelopes (f, 10800, env, 4);
    is_int (n, 1, "one envelope");
    char buf[256];
    snprintf (buf, sizeof (buf), "%s owner=%s active=%lld peak=%lld h=%.1f bh=%.1f",
              env[0].name, env[0].owner, (long long) env[0].active_gpus,
              (long long) env[0].peak_gpus, env[0].gpu_hours,
              env[0].borrowed_gpu_hours);
    is (buf, "e1 owner=rai active=8 peak=16 h=32.0 bh=8.0",
        "live figures: L1 16h + L2 8h + L3 8h at t=3h");
    jt_fold_lease_t open[2];
    is_int (jt_ledger_fold_open (f, open, 2), 1, "one open lease");
    is (open[0].lease, "L3", "it is L3");
    jt_ledger_fold_destroy (f);

    const char *c1[] = { CAPS, s1, ov, NULL };
    is (run (c1, NULL), "node-overlap@3", "node in two active leases");
    const char *c2[] = { CAPS, s1, s2, big, NULL };
    is (run (c2, NULL), "concurrency@4", "envelope over its concurrency");
    const char *c3[] = { CAPS, s1, e9, NULL };
    is (run (c3, NULL), "unmatched-end@3", "End without Start");
    const char *c4[] = { CAPS, s1, dupid, NULL };
    is (run (c4, NULL), "duplicate-id@3", "event id repeated");
    const char *c5[] = { CAPS, s2, dups, NULL };
    is (run (c5, NULL), "duplicate-start@3", "Start of an open lease");
    const char *c6[] = { CAPS, s2, e2bad, NULL };
    is (run (c6, NULL), "bad-interval@3", "End disagreeing with its Start");
    const char *c7[] = { CAPS, s1, e1, s3, late, NULL };
    is (run (c7, NULL), "gpu-hours@5", "envelope over its GPU-hours");
    const char *c8[] = { CAPS, win, NULL };
    is (run (c8, NULL), "window@2", "lease outside the window");
    const char *c9[] = { s1, big, s2, NULL };
    is (run (c9, NULL), "none", "without caps only structural invariants apply");
    const char *c10[] = { CAPS, s1, e1, e1, NULL };
    is (run (c10, NULL), "duplicate-id@4", "an End resent twice is a duplicate id");

    /* jt_ledger_verify over a real ledger */
    char tmpl[] = "/tmp/jt-ledger-fold.XXXXXX";
    char *dir = mkdtemp (tmpl);
    jt_error_t err = { "" };
    jt_ledger_result_t res;
    jt_ledger_writer_t *w = jt_ledger_writer_open (dir, 0, NULL, NULL, &res, &err);
    const char *p[] = { CAPS, s1, s2, ov, e1 };
    size_t lens[5];
    uint64_t first;
    for (int i = 0; i < 5; i++)
        lens[i] = strlen (p[i]);
    ok (w && jt_ledger_writer_append (w, p, lens, 5, &first, &err) == 0, "write 5");
    jt_ledger_writer_close (w);
    jt_violation_t v;
    const char *paths[] = { dir };
    ok (jt_ledger_verify (paths, 1, NULL, NULL, &res, &v, NULL, &err) == 0, "verify runs");
    snprintf (buf, sizeof (buf), "%s %s@%llu", jt_ledger_status_str (res.status),
              jt_violation_str (v.kind), (unsigned long long) v.seq);
    is (buf, "OK node-overlap@4", "verify finds the overlap at seq 4");
    uint64_t nv = 0;
    jt_violation_t firstv;
    jt_ledger_fold_t *rf = jt_ledger_fold_replay (paths, 1, &res, &nv, &firstv, &err);
    ok (rf != NULL, "replay rebuilds live state");
    is_int (nv, 1, "replay goes on past the one violation");
    is_int (firstv.seq, 4, "and reports the first at seq 4");
    jt_fold_lease_t open2[4];
    is_int (rf ? jt_ledger_fold_open (rf, open2, 4) : 0, 2, "two leases open at the end");
    jt_ledger_fold_destroy (rf);

    /* pinned caps win over recorded ones */
    jt_event_t *pin = jt_event_create (JT_EV_BUDGET_LOADED);
    jt_ev_cap_t cap = { .envelope = "e1", .owner = "rai", .concurrency = 8,
                        .max_gpu_hours = 1000, .start = 0, .end = 100000 };
    jt_event_set (&pin->id, "pin");
    jt_event_add_cap (pin, &cap);
    ok (jt_ledger_verify (paths, 1, NULL, pin, &res, &v, NULL, &err) == 0, "verify, pinned");
    snprintf (buf, sizeof (buf), "%s@%llu", jt_violation_str (v.kind),
              (unsigned long long) v.seq);
    is (buf, "concurrency@3", "pinned concurrency 8 is broken by the second Start");
    jt_event_destroy (pin);

    /* history (report), closed hours, forgotten ids (the plugin) */
    {
        const char *hs[] = {
            CAPS, s1, s2, e1, s3, e2,
            "{\"v\":1,\"type\":\"ReservationCreate\",\"id\":\"r1\",\"time\":50,"
            "\"run\":\"c:2\",\"gpus\":8,\"envelope\":\"e1\",\"owner\":\"rai\","
            "\"start\":9000,\"reservation\":\"R1\"}",
            "{\"v\":1,\"type\":\"ReservationActivate\",\"id\":\"r2\",\"time\":60,\"run\":\"c:2\","
            "\"reservation\":\"R1\"}",
            s1, /* a Start again: not a second row */
            NULL };
        jt_ledger_fold_t *h = jt_ledger_fold_create ();
        ok (jt_ledger_fold_keep_history (h, &err) == 0, "history kept");
        for (size_t i = 0; hs[i]; i++) {
            jt_event_t *e = jt_event_from_json (hs[i], strlen (hs[i]), &err);
            if (!e)
                bail_out ("history event %zu: %s", i, err.text);
            jt_ledger_fold_apply (h, i + 1, e, &v, &err);
            jt_event_destroy (e);
        }
        ok (jt_ledger_fold_keep_history (h, &err) == 0, "asking again is harmless");
        jt_fold_lease_t *rows;
        size_t nr;
        ok (jt_ledger_fold_leases (h, &rows, &nr, &err) == 0, "history rows");
        buf[0] = '\0';
        for (size_t i = 0; i < nr; i++)
            snprintf (buf + strlen (buf), sizeof (buf) - strlen (buf),
                      "%s:%lld-%lld:%s ", rows[i].lease, (long long) rows[i].start,
                      (long long) rows[i].end, jt_end_reason_str (rows[i].reason));
        is (buf, "L1:0-7200:End L2:3600-7200:Swap L3:7200--1:None ",
            "every lease once, sorted, closed by its End");
        free (rows);
        jt_fold_reservation_t *rv;
        ok (jt_ledger_fold_reservations (h, &rv, &nr, &err) == 0 && nr == 1, "one reservation");
        if (nr == 1) {
            snprintf (buf, sizeof (buf), "%s %s %lld %lld %lld", rv[0].reservation,
                      rv[0].run, (long long) rv[0].created, (long long) rv[0].activated,
                      (long long) rv[0].released);
            is (buf, "R1 c:2 50 60 -1", "created, activated, not released");
        }
        free (rv);
        jt_fold_envelope_t e1f;
        ok (jt_ledger_fold_envelope (h, "e1", 10800, &e1f) == 0, "envelope by name");
        snprintf (buf, sizeof (buf), "closed=%.1f borrowed=%.1f live=%.1f",
                  e1f.closed_gpu_hours, e1f.closed_borrowed_gpu_hours, e1f.gpu_hours);
        is (buf, "closed=24.0 borrowed=8.0 live=56.0",
            "closed GPU-hours (L1 16, L2 8 Borrowed) apart from open ones (L1 again, L3)");
        is_int (jt_ledger_fold_last_time (h), 7200, "last event time");
        jt_fold_lease_t *ol;
        ok (jt_ledger_fold_open_list (h, "c:1", &ol, &nr, &err) == 0 && nr == 2
                && !strcmp (ol[0].lease, "L1") && !strcmp (ol[1].lease, "L3")
                && ol[0].end == -1,
            "open leases of a run, sorted (L1 started again, L3)");
        free (ol);
        ok (jt_ledger_fold_open_list (h, "c:9", &ol, &nr, &err) == 0 && nr == 0,
            "none for another run");
        free (ol);
        jt_ledger_fold_destroy (h);

        h = jt_ledger_fold_create ();
        jt_ledger_fold_forget_ids (h);
        const char *twice[] = { s1, e1, e1, NULL };
        int viols = 0;
        for (size_t i = 0; twice[i]; i++) {
            jt_event_t *e = jt_event_from_json (twice[i], strlen (twice[i]), &err);
            if (jt_ledger_fold_apply (h, i + 1, e, &v, &err) > 0
                && v.kind == JT_VIOL_DUP_ID)
                viols++;
            jt_event_destroy (e);
        }
        is_int (viols, 0, "ids forgotten: a repeated id is not remembered");
        jt_fold_lease_t *none;
        ok (jt_ledger_fold_leases (h, &none, &nr, &err) == 0 && nr == 0,
            "no history unless asked for");
        free (none);
        ok (jt_ledger_fold_keep_history (h, &err) < 0, "history refused after events");
        jt_ledger_fold_destroy (h);
    }

    char cmd[256];
    snprintf (cmd, sizeof (cmd), "rm -rf %s", dir);
    if (system (cmd) != 0)
        diag ("rm failed");
    free (s1);
    free (s2);
    free (e1);
    free (s3);
    free (ov);
    free (big);
    free (e9);
    free (dupid);
    free (dups);
    free (e2bad);
    free (e2);
    free (late);
    free (win);
    return done_testing ();
}
