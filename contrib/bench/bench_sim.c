/*
 * bench_sim.c - `jobtree sim` on the full Philly 2017 trace (82,247 jobs),
 * one replay per policy on one core, each as a ratio to a baseline replay
 * with placement switched off (policy "none": the same event loop and
 * queue, first free nodes, no libjobtree call), with the process's peak
 * memory. See contrib/bench/README.md.
 *
 *   contrib/bench/bench_sim [TRACE [BUDGETDIR [CLUSTER]]]
 *
 * Defaults: data/philly_2017_pollux.csv,
 * contrib/sim/philly-budgets and 6x16x8:h100 (docs/sim.md). A trace that
 * is not there is reported and the benchmark passes without timing.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "jobtree/sim.h"

#ifndef JT_TOP_SRCDIR
#define JT_TOP_SRCDIR "."
#endif

static double cpu_now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static long peak_kib (void)
{
    struct rusage ru;
    getrusage (RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main (int argc, char **argv)
{
    static const char *const policies[] = {
        "none", "pack-to-empty", "best-fit", "split", "pack-to-empty,borrow",
        "best-fit,borrow", "best-fit,noresv",
    };
    const char *trace = argc > 1 ? argv[1] : JT_TOP_SRCDIR "/data/philly_2017_pollux.csv";
    const char *bdir = argc > 2 ? argv[2] : JT_TOP_SRCDIR "/contrib/sim/philly-budgets";
    const char *cluster = argc > 3 ? argv[3] : "6x16x8:h100";
    jt_sim_trace_t t;
    jt_budgets_t *b;
    jt_snapshot_t *s;
    jt_sim_opts_t o;
    jt_diags_t d;
    jt_error_t e;
    double t0, base = 0;
    char line[512];

    if (access (trace, R_OK) != 0) {
        printf ("bench_sim: no trace at %s (give its path as the first argument); "
                "nothing timed\n", trace);
        return 0;
    }
    jt_diags_init (&d);
    t0 = cpu_now ();
    if (jt_sim_trace_load (trace, &t, &d) < 0 || !(b = jt_budgets_load_dir (bdir, &d))) {
        for (size_t i = 0; i < d.n; i++) {
            jt_diag_format (&d.v[i], line, sizeof (line));
            fprintf (stderr, "bench_sim: %s\n", line);
        }
        return 1;
    }
    printf ("trace %s: %zu jobs read in %.2f s CPU\n", trace, t.n, cpu_now () - t0);
    if (!(s = jt_sim_cluster (cluster, &e))) {
        fprintf (stderr, "bench_sim: %s\n", e.text);
        return 1;
    }
    printf ("cluster %s: %zu nodes, %zu domains\n\n", cluster, s->nnodes, s->ndomains);
    printf ("%-22s %9s %8s %9s %9s %7s %6s %11s\n", "policy", "CPU s", "x none",
            "passes", "answers", "util", "p95 h", "peak MiB");
    jt_sim_opts_init (&o);
    for (size_t i = 0; i < sizeof (policies) / sizeof (policies[0]); i++) {
        jt_sim_policy_t p;
        jt_sim_summary_t sum;
        jt_sim_result_t *r;
        double cpu;

        jt_sim_policy_parse (policies[i], &p, NULL);
        t0 = cpu_now ();
        if (!(r = jt_sim_run (&t, b, s, &p, &o, &e))) {
            fprintf (stderr, "bench_sim: %s: %s\n", policies[i], e.text);
            return 1;
        }
        cpu = cpu_now () - t0;
        if (i == 0)
            base = cpu;
        jt_sim_summarize (r, &sum);
        printf ("%-22s %9.2f %8.1f %9zu %9zu %7.3f %6.2f %11.1f\n", policies[i], cpu,
                base > 0 ? cpu / base : 0., sum.passes, sum.answers, sum.utilization,
                sum.wait_p95 / 3600., (double) peak_kib () / 1024.);
        jt_sim_result_destroy (r);
    }
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
    jt_sim_trace_free (&t);
    jt_diags_free (&d);
    return 0;
}
