/*
 * mkckpt.c - a random ledger with checkpoints, written as jobtree-ledgerd
 * writes it (group commits; the fold of every event; its Checkpoint records
 * every so many records), for tests/ledger/report-checkpoint.sh: owners
 * on their own and on others' envelopes (roles Active and Borrowed), an
 * uncapped envelope with no owner, leases of no length, leases still open
 * at the end, reservations activated, released and replaced, and with
 * -u Starts out of time order (a group's peak then needs the history).
 *
 *   mkckpt [-u] DIR SEED EVENTS CKPT_EVERY SEGMENT_BYTES
 *
 * Prints "FIRST LAST CHECKPOINTS": the earliest and latest instant of the
 * ledger and how many checkpoints it holds. Exits 1 when the fold counts a
 * violation (the ledger must be one a report reads from a checkpoint).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobtree/ledger.h"
#include "jobtree/ledger_checkpoint.h"

#define NODES 24
#define BATCH 64

static uint64_t rng;

static uint64_t rnd (uint64_t n) /* SplitMix64, in [0, n) */
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (z ^ (z >> 31)) % n;
}

static void die (const char *what, const char *msg)
{
    fprintf (stderr, "mkckpt: %s: %s\n", what, msg);
    exit (2);
}

struct lease {
    bool open;
    int node, gpus;
    char text[400]; /* its Start's fields after "time" */
    int64_t start;
};

static jt_ledger_writer_t *w;
static jt_ledger_fold_t *fold;
static char batch[BATCH][1024];
static size_t nbatch;
static uint64_t since_ckpt, every, nckpt, nviol;
static int64_t t_min = -1, t_max;

static void note_time (int64_t t)
{
    if (t_min < 0 || t < t_min)
        t_min = t;
    if (t > t_max)
        t_max = t;
}

static void flush (void)
{
    const char *p[BATCH];
    size_t lens[BATCH];
    uint64_t first;
    jt_error_t err = { "" };

    if (!nbatch)
        return;
    for (size_t i = 0; i < nbatch; i++) {
        p[i] = batch[i];
        lens[i] = strlen (batch[i]);
    }
    if (jt_ledger_writer_append (w, p, lens, nbatch, &first, &err) < 0)
        die ("append", err.text);
    for (size_t i = 0; i < nbatch; i++) {
        jt_violation_t v;
        jt_event_t *ev = jt_event_from_json (p[i], lens[i], &err);
        int rc = ev ? jt_ledger_fold_apply (fold, first + i, ev, &v, &err) : -1;
        if (rc < 0)
            die (p[i], err.text);
        if (rc > 0) {
            fprintf (stderr, "mkckpt: seq %" PRIu64 ": %s\n", first + i, v.msg);
            nviol++;
        }
        jt_event_destroy (ev);
    }
    since_ckpt += nbatch;
    nbatch = 0;
    if (every && since_ckpt >= every) { /* the daemon's checkpoint */
        char **cp;
        size_t *cl, cn;
        since_ckpt = 0;
        if (jt_ckpt_payloads (fold, jt_ledger_writer_last_seq (w), t_max, 0, &cp, &cl,
                              &cn, &err)
                < 0
            || jt_ledger_writer_append (w, (const char *const *) cp, cl, cn, &first, &err)
                   < 0)
            die ("checkpoint", err.text);
        jt_ckpt_payloads_free (cp, cl, cn);
        nckpt++;
    }
}

static char *slot (void)
{
    if (nbatch == BATCH || (every && since_ckpt + nbatch >= every))
        flush ();
    return batch[nbatch++];
}

int main (int argc, char **argv)
{
    bool unordered = argc > 1 && !strcmp (argv[1], "-u");
    jt_ledger_result_t res;
    jt_error_t err = { "" };

    if (unordered) {
        argc--;
        argv++;
    }
    if (argc != 6) {
        fprintf (stderr, "usage: mkckpt [-u] DIR SEED EVENTS CKPT_EVERY SEGMENT_BYTES\n");
        return 2;
    }
    rng = strtoull (argv[2], NULL, 10);
    uint64_t n = strtoull (argv[3], NULL, 10);
    every = strtoull (argv[4], NULL, 10);
    mkdir (argv[1], 0700);
    if (!(w = jt_ledger_writer_open (argv[1], strtoull (argv[5], NULL, 10), NULL, NULL,
                                     &res, &err)))
        die (argv[1], err.text);
    if (!(fold = jt_ledger_fold_create ()))
        die ("fold", "out of memory");
    jt_ledger_fold_forget_ids (fold);

    static const char *const owner[] = { "o0", "o1", "o2", "o3" };
    static const char *const env[] = { "e0", "e1", "e2", "free" }; /* free: no owner */
    struct lease *ls = calloc (n + 1, sizeof (*ls));
    int holder[NODES];
    uint64_t nl = 0, id = 0, nres = 0;
    int64_t t = 1767225600;
    if (!ls)
        die ("leases", "out of memory");
    for (int i = 0; i < NODES; i++)
        holder[i] = -1;
    /* budgets: e0..e2 owned by o0..o2 (caps never reached); e2's owner
     * changes to o3 halfway (the report asks the last BudgetLoaded) */
    const char *caps =
        "{\"v\":1,\"type\":\"BudgetLoaded\",\"id\":\"b%" PRIu64 "\",\"time\":%" PRId64
        ",\"files\":[{\"path\":\"/etc/jobtree/budgets/b.json\","
        "\"sha256\":\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}"
        "],"
        "\"caps\":[{\"envelope\":\"e0\",\"owner\":\"o0\",\"concurrency\":100000,"
        "\"maxGPUHours\":1000000000.0,\"start\":0,\"end\":4102444800},"
        "{\"envelope\":\"e1\",\"owner\":\"o1\",\"concurrency\":100000,"
        "\"maxGPUHours\":1000000000.0,\"start\":0,\"end\":4102444800},"
        "{\"envelope\":\"e2\",\"owner\":\"%s\",\"concurrency\":100000,"
        "\"maxGPUHours\":1000000000.0,\"start\":0,\"end\":4102444800}]}";
    snprintf (slot (), 1024, caps, id++, t, "o2");
    note_time (t);
    bool reloaded = false;
    while (id < n) {
        uint64_t r = rnd (100);
        t += (int64_t) rnd (400);
        if (!reloaded && id >= n / 2) {
            snprintf (slot (), 1024, caps, id++, t, "o3");
            note_time (t);
            reloaded = true;
            continue;
        }
        if (r < 45) { /* a Start on a free node */
            int node = (int) rnd (NODES);
            if (holder[node] >= 0)
                continue;
            struct lease *l = &ls[nl];
            int o = (int) rnd (4), e = (int) rnd (4);
            bool borrowed = e < 3 && o != e && rnd (2);
            l->open = true;
            l->node = node;
            l->gpus = 1 + (int) rnd (8);
            l->start = t;
            if (unordered && rnd (10) == 0) /* reconciled late: started earlier */
                l->start = t - (int64_t) rnd (3000);
            if (l->start < 1767225600)
                l->start = 1767225600;
            snprintf (
                l->text, sizeof (l->text),
                "\"lease\":\"c1:%" PRIu64 ":0\",\"run\":\"c1:%" PRIu64 "\",\"group\":"
                "\"0\",\"nodes\":[\"n%02d\"],\"gpus\":%d,\"role\":\"%s\",\"envelope\":"
                "\"%s\",\"owner\":\"%s\",\"start\":%" PRId64,
                nl, nl, node, l->gpus, borrowed ? "Borrowed" : "Active", env[e], owner[o],
                l->start);
            snprintf (slot (), 1024,
                      "{\"v\":1,\"type\":\"Start\",\"id\":\"s%" PRIu64
                      "\",\"time\":%" PRId64 ",%s}",
                      id++, t, l->text);
            note_time (l->start);
            note_time (t);
            holder[node] = (int) nl++;
            if (rnd (20) == 0) { /* a lease of no length */
                snprintf (slot (), 1024,
                          "{\"v\":1,\"type\":\"End\",\"id\":\"e%" PRIu64
                          "\",\"time\":%" PRId64 ",%s,\"end\":%" PRId64
                          ",\"reason\":\"End\"}",
                          id++, t, l->text, l->start);
                l->open = false;
                holder[node] = -1;
            }
        } else if (r < 85) { /* an End of an open lease */
            int node = (int) rnd (NODES);
            if (holder[node] < 0)
                continue;
            struct lease *l = &ls[holder[node]];
            static const char *const why[] = { "End", "Fail", "JobGone" };
            snprintf (slot (), 1024,
                      "{\"v\":1,\"type\":\"End\",\"id\":\"e%" PRIu64
                      "\",\"time\":%" PRId64 ",%s,\"end\":%" PRId64 ",\"reason\":\"%s\"}",
                      id++, t, l->text, t, why[rnd (3)]);
            note_time (t);
            l->open = false;
            holder[node] = -1;
        } else { /* reservations: create (maybe replacing), activate, release */
            uint64_t run = rnd (8), k = rnd (3);
            const char *type = k == 0   ? "ReservationCreate"
                               : k == 1 ? "ReservationActivate"
                                        : "ReservationReleased";
            if (k == 0) {
                nres++;
                snprintf (slot (), 1024,
                          "{\"v\":1,\"type\":\"%s\",\"id\":\"r%" PRIu64
                          "\",\"time\":%" PRId64 ",\"reservation\":\"res-%" PRIu64
                          "-%" PRIu64 "\",\"run\":\"c2:%" PRIu64
                          "\",\"envelope\":\"%s\",\"owner\":"
                          "\"%s\",\"nodes\":[\"n00\"],\"gpus\":%d,\"start\":%" PRId64 "}",
                          type, id++, t, run, nres, run, env[rnd (4)], owner[rnd (4)],
                          1 + (int) rnd (16), t + (int64_t) rnd (7200));
            } else {
                /* mostly the run's open reservation, else an older one
                 * (which the fold ignores) */
                jt_fold_reservation_t open;
                char rid[64], run_id[32];
                snprintf (rid, sizeof (rid), "res-%" PRIu64 "-%" PRIu64, run,
                          nres ? 1 + rnd (nres) : 0);
                snprintf (run_id, sizeof (run_id), "c2:%" PRIu64, run);
                flush (); /* the fold knows every event before this one */
                if (jt_ledger_fold_open_resv (fold, run_id, &open) == 0 && rnd (4))
                    snprintf (rid, sizeof (rid), "%s", open.reservation);
                snprintf (slot (), 1024,
                          "{\"v\":1,\"type\":\"%s\",\"id\":\"r%" PRIu64
                          "\",\"time\":%" PRId64 ",\"reservation\":\"%s\",\"run\":"
                          "\"c2:%" PRIu64 "\"}",
                          type, id++, t, rid, run);
            }
            note_time (t);
        }
    }
    flush ();
    jt_ledger_writer_close (w);
    jt_ledger_fold_destroy (fold);
    free (ls);
    printf ("%" PRId64 " %" PRId64 " %" PRIu64 "\n", t_min, t_max, nckpt);
    return nviol ? 1 : 0;
}
