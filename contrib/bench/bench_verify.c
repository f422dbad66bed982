/*
 * bench_verify.c - `make bench`: `jobtree verify` of a 1M-record ledger on
 * one thread and on every core, against the floor of its work that no
 * fold can avoid: every record framed, hashed and its payload parsed
 * (with the canonical check) on one thread, nothing folded.
 *
 * The ledger is written as jobtree-ledgerd writes it (64 MiB segments, a
 * Checkpoint of the fold every 50,000 records): Start and End events of
 * 8-GPU leases in 20 envelopes, the End an hour's slot after its Start.
 * Each row is timed JT_BENCH_VERIFY_REPS times (default 3), alternated,
 * and the best and the median wall times are printed with the CPU time of
 * the best: on a shared machine the wall time measures the load too.
 * The target (issue 35) is -j N within 1.3x the floor divided by N.
 * Every row is also given per record and as a ratio to json-c's parse
 * alone (each payload made into a tree and freed, a tokener reused, timed
 * around the parse: the part of the floor json-c owns), best of the reps.
 *
 * JT_BENCH_VERIFY_EVENTS (1000000), JT_BENCH_DIR (./bench-verify.tmp;
 * kept with JT_BENCH_REUSE, a ledger of the same length reused),
 * JT_BENCH_VERIFY_JOBS (the -j of the parallel rows: the online cores and
 * 2). Run from the top build directory.
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "jobtree/ledger.h"
#include "jobtree/libc_tune.h"
#include "bench_gen.h"

#define CKPT_EVERY 50000
#define REPS_MAX 15

static double now_s (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* CPU seconds of this process and its waited-for children. */
static double cpu_s (void)
{
    struct rusage a, b;
    getrusage (RUSAGE_SELF, &a);
    getrusage (RUSAGE_CHILDREN, &b);
    return (double) (a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec
                     + b.ru_stime.tv_sec)
           + (double) (a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec
                       + b.ru_stime.tv_usec)
                 / 1e6;
}

static void die (const char *what, const char *why)
{
    fprintf (stderr, "bench_verify: %s: %s\n", what, why);
    exit (1);
}

static void build (uint64_t n, const char *ldir)
{
    jt_error_t err = { "" };
    if (bench_build_ledger (ldir, n, "v", CKPT_EVERY, false, &err) < 0)
        die ("ledger", err.text);
}

/* The floor: frame, hash and parse (canonical check) every record on this
 * thread; no fold. */
static int floor_cb (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    bool canon = false, owned = false;
    jt_event_t *ev = jt_record_event_ref (rec, &canon, &owned, err); /* as the fold's */
    if (!ev || !canon) {
        if (ev && owned)
            jt_event_destroy (ev);
        return jt_errprintf (err, "seq %" PRIu64 ": not a canonical event", rec->seq);
    }
    if (owned)
        jt_event_destroy (ev);
    ++*(uint64_t *) arg;
    return 0;
}

static double cpu_last;

/* json-c's parse alone: each payload made into a tree and freed (one
 * tokener reused, as the read path's), timed around the parse only. */
struct parse_only {
    json_tokener *tok;
    double secs;
    uint64_t n;
};

static int parse_cb (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    struct parse_only *p = arg;
    double t0 = now_s ();
    json_tokener_reset (p->tok);
    json_object *o = json_tokener_parse_ex (p->tok, rec->payload, (int) rec->len);
    json_object_put (o);
    p->secs += now_s () - t0;
    p->n++;
    return o ? 0 : jt_errprintf (err, "seq %" PRIu64 ": json-c refused it", rec->seq);
}

/* Seconds per record of json-c's parse, over the whole ledger. */
static double run_parse_only (const char *ldir)
{
    struct parse_only p = { .tok = json_tokener_new () };
    jt_ledger_result_t res;
    jt_error_t err = { "" };
    const char *paths[] = { ldir };

    if (!p.tok)
        die ("json-c", "out of memory");
    json_tokener_set_flags (p.tok, JSON_TOKENER_STRICT);
    if (jt_ledger_read (paths, 1, NULL, parse_cb, &p, &res, &err) < 0
        || res.status != JT_LEDGER_OK)
        die ("parse only", err.text[0] ? err.text : res.msg);
    json_tokener_free (p.tok);
    return p.n ? p.secs / (double) p.n : 0;
}

static double run_floor (const char *ldir, uint64_t *n)
{
    jt_ledger_pre_t pre;
    jt_ledger_result_t res;
    jt_error_t err = { "" };
    const char *paths[] = { ldir };

    jt_ledger_pre_events (&pre, true);
    pre.threads = 1; /* the sequential walk: everything on this thread */
    *n = 0;
    double c0 = cpu_s (), t0 = now_s ();
    if (jt_ledger_read_pre (paths, 1, NULL, &pre, floor_cb, n, &res, &err) < 0
        || res.status != JT_LEDGER_OK)
        die ("floor", err.text[0] ? err.text : res.msg);
    cpu_last = cpu_s () - c0;
    return now_s () - t0;
}

static double run_verify (const char *ldir, unsigned jobs)
{
    char cmd[1200];
    snprintf (cmd, sizeof (cmd), "src/cli/jobtree verify -q -j %u %s", jobs, ldir);
    double c0 = cpu_s (), t0 = now_s ();
    if (system (cmd) != 0)
        die (cmd, "failed");
    cpu_last = cpu_s () - c0;
    return now_s () - t0;
}

struct row {
    const char *name;
    unsigned jobs;         /* 0: the floor */
    double wall[REPS_MAX], cpu[REPS_MAX];
    int n;
};

static int cmp_dbl (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double best (const struct row *r, double *cpu)
{
    int b = 0;
    for (int i = 1; i < r->n; i++)
        if (r->wall[i] < r->wall[b])
            b = i;
    *cpu = r->cpu[b];
    return r->wall[b];
}

static double median (const struct row *r)
{
    double v[REPS_MAX];
    memcpy (v, r->wall, (size_t) r->n * sizeof (*v));
    qsort (v, (size_t) r->n, sizeof (*v), cmp_dbl);
    return r->n % 2 ? v[r->n / 2] : (v[r->n / 2 - 1] + v[r->n / 2]) / 2;
}

int main (void)
{
    const char *e;
    jt_malloc_tune (); /* the floor under jobtree's own C library settings */
    jt_locale_c_thread ();
    uint64_t n = (e = getenv ("JT_BENCH_VERIFY_EVENTS")) ? strtoull (e, NULL, 10) : 1000000;
    int reps = (e = getenv ("JT_BENCH_VERIFY_REPS")) ? atoi (e) : 3;
    long cores = sysconf (_SC_NPROCESSORS_ONLN);
    unsigned jobs = (e = getenv ("JT_BENCH_VERIFY_JOBS")) ? (unsigned) atoi (e)
                    : cores > 2                        ? (unsigned) cores
                                                       : 2;
    char dir[512], ldir[600], mark[700], cmd[1400];

    if (n < 1 || n > 100000000 || reps < 1 || reps > REPS_MAX || jobs < 2 || jobs > 256) {
        fprintf (stderr, "bench_verify: JT_BENCH_VERIFY_EVENTS in [1, 1e8], "
                         "JT_BENCH_VERIFY_REPS in [1, %d], JT_BENCH_VERIFY_JOBS in "
                         "[2, 256]\n",
                 REPS_MAX);
        return 2;
    }
    if (access ("src/cli/jobtree", X_OK) < 0)
        die ("src/cli/jobtree", "run from the top build directory");
    snprintf (dir, sizeof (dir), "%s", (e = getenv ("JT_BENCH_DIR")) ? e : "./bench-verify.tmp");
    snprintf (ldir, sizeof (ldir), "%s/verify", dir);
    snprintf (mark, sizeof (mark), "%s.built-%" PRIu64, ldir, n);
    double t0 = now_s ();
    if (getenv ("JT_BENCH_REUSE") && access (mark, F_OK) == 0)
        printf ("reusing %s (JT_BENCH_REUSE)\n", ldir);
    else {
        snprintf (cmd, sizeof (cmd), "rm -rf %s && mkdir -p %s", dir, dir);
        if (system (cmd) != 0)
            die (cmd, "failed");
        build (n, ldir);
        FILE *mf = fopen (mark, "w");
        if (mf)
            fclose (mf);
        printf ("built %" PRIu64 " events (a checkpoint every %d records) in %.1f s\n", n,
                CKPT_EVERY, now_s () - t0);
    }
    fflush (stdout);

    struct row rows[3] = { { .name = "floor: frame, hash, parse (1 thread, no fold)" },
                           { .name = "jobtree verify -j 1", .jobs = 1 },
                           { .name = "jobtree verify -j N", .jobs = jobs } };
    uint64_t nrec = 0;
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < 3; k++) {
            struct row *w = &rows[k];
            w->wall[w->n] = w->jobs ? run_verify (ldir, w->jobs) : run_floor (ldir, &nrec);
            w->cpu[w->n++] = cpu_last;
        }
    double parse = run_parse_only (ldir); /* per record */
    for (int r = 1; r < reps; r++) {
        double x = run_parse_only (ldir);
        parse = x < parse ? x : parse;
    }
    double fc, f = best (&rows[0], &fc);
    printf ("verify of %" PRIu64 " records, %d runs each (best / median wall; cpu of the "
            "best); load average at the end:",
            nrec, reps);
    double load[3];
    if (getloadavg (load, 3) == 3)
        printf (" %.2f %.2f %.2f", load[0], load[1], load[2]);
    printf ("\n");
    for (int k = 0; k < 3; k++) {
        double c, b = best (&rows[k], &c);
        char name[64];
        snprintf (name, sizeof (name), "%s", rows[k].name);
        if (rows[k].jobs > 1)
            snprintf (name, sizeof (name), "jobtree verify -j %u", rows[k].jobs);
        printf ("  %-48s %7.2f / %7.2f s  cpu %7.2f s  %5.2f us/rec  (%.2fx the floor, "
                "%.2fx json-c's parse)\n",
                name, b, median (&rows[k]), c, nrec ? 1e6 * b / (double) nrec : 0, b / f,
                parse > 0 && nrec ? b / (parse * (double) nrec) : 0);
    }
    printf ("  %-48s %7.2f s (best of %d)        %5.2f us/rec\n",
            "json-c's parse alone (tree made and freed)", parse * (double) nrec, reps,
            1e6 * parse);
    double jc, jb = best (&rows[2], &jc);
    printf ("  target (issue 35): -j %u <= 1.3 x floor / %u = %.2f s: %s (%.2f s; the "
            "floor's cpu / %u = %.2f s)\n",
            jobs, jobs, 1.3 * f / jobs, jb <= 1.3 * f / jobs ? "met" : "NOT met", jb, jobs,
            fc / jobs);
    if (!getenv ("JT_BENCH_KEEP") && !getenv ("JT_BENCH_REUSE")) {
        snprintf (cmd, sizeof (cmd), "rm -rf %s", dir);
        if (system (cmd) != 0)
            die (cmd, "failed");
    }
    return 0;
}
