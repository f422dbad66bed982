/*
 * cmd_sim.c - `jobtree sim`: replay a job trace through libjobtree's
 * scheduler under one or more policies side by side (jobtree-sim(1)). The
 * decisions and the metrics are the library's (jobtree/sim.h); this file
 * reads options, loads the inputs, and writes the table and the files.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "jobtree/budget.h"
#include "jobtree/sim.h"
#include "jobtree/snapshot.h"
#include "jobtree/timeutil.h"

#define SIM_POLICIES_MAX 16

static void usage (FILE *f)
{
    fprintf (f,
             "Usage: jobtree sim --trace FILE --budgets DIR --cluster SPEC\n"
             "                   [--policy P]... [--out DIR] [--seed N] [--epoch TIME]\n"
             "                   [--limit-factor PCT] [--depth N] [--sample SECONDS]\n"
             "                   [--philly-groups GPUS] [--progress]\n"
             "Replay a job trace through libjobtree's scheduler and compare policies.\n"
             "  --cluster SPEC     DxNxG:FLAVOR (e.g. 16x32x8:h100), with levels\n"
             "                     above the domain SxDxNxG or SxBxDxNxG (spines,\n"
             "                     blocks: e.g. 2x3x4x4x8:h100), or a snapshot file\n"
             "  --policy P         pack-to-empty | best-fit | split[=NODES] | none,\n"
             "                     then ,borrow ,noborrow ,noresv ,preempt\n"
             "                     ,maxwait=SECONDS ,checkpoint=SECONDS ,flat\n"
             "                     (Pack ignores the fabric levels) (repeatable;\n"
             "                     default:\n"
             "                     pack-to-empty and best-fit)\n"
             "  --out DIR          write summary.csv, owners.csv, jobs.csv, timeline.csv\n"
             "                     and summary.json there\n"
             "  --seed N           accepted for reproducibility records; the modelled\n"
             "                     decisions draw no random numbers (0..2^63-1)\n"
             "  --epoch TIME       the trace's instant 0 (default 2026-01-01T00:00:00Z)\n"
             "  --limit-factor PCT time limit of jobs without one: PCT %% of the\n"
             "                     duration in whole minutes (100..10000, default 150)\n"
             "  --depth N          jobs tested per pass, like bf_max_job_test\n"
             "                     (1..1000000, default 100)\n"
             "  --sample SECONDS   timeline interval (60..604800, default 3600)\n"
             "  --philly-groups GPUS  a Philly job of more GPUs is a run of groups of\n"
             "                     GPUS (a multiple of the GPUs per node), which may\n"
             "                     spread over domains\n"
             "  --progress         progress line on stderr (default: when a tty)\n");
}

/* A whole number in [lo, hi] for option opt; false with a message. */
static bool num_arg (const char *opt, const char *s, long long lo, long long hi,
                     long long *out)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll (s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) {
        fprintf (stderr, "jobtree sim: %s=%s: give a whole number from %lld to "
                 "%lld\n", opt, s, lo, hi);
        return false;
    }
    *out = v;
    return true;
}

static void progress (void *arg, const char *policy, size_t done, size_t total)
{
    (void) arg;
    fprintf (stderr, "\rjobtree sim: %-24s %3zu%% (%zu of %zu jobs ended)",
             policy, total ? done * 100 / total : 100, done, total);
    if (done >= total)
        fputc ('\n', stderr);
    fflush (stderr);
}

typedef int (*writer_fn) (FILE *, jt_sim_result_t *const *, size_t);

static int write_file (const char *dir, const char *name, writer_fn w,
                       jt_sim_result_t *const *r, size_t n)
{
    char path[4096];
    FILE *f;
    int rc;

    snprintf (path, sizeof (path), "%s/%s", dir, name);
    if (!(f = fopen (path, "w"))) {
        fprintf (stderr, "jobtree sim: %s: cannot write: %s\n", path, strerror (errno));
        return -1;
    }
    rc = w (f, r, n);
    if (fclose (f) != 0 || rc < 0) {
        fprintf (stderr, "jobtree sim: %s: write error\n", path);
        return -1;
    }
    return 0;
}

int cmd_sim (int argc, char **argv)
{
    static const struct option opts[] = {
        { "trace", required_argument, NULL, 't' },
        { "budgets", required_argument, NULL, 'b' },
        { "cluster", required_argument, NULL, 'c' },
        { "policy", required_argument, NULL, 'p' },
        { "out", required_argument, NULL, 'o' },
        { "seed", required_argument, NULL, 's' },
        { "epoch", required_argument, NULL, 'e' },
        { "limit-factor", required_argument, NULL, 'l' },
        { "depth", required_argument, NULL, 'd' },
        { "sample", required_argument, NULL, 'S' },
        { "progress", no_argument, NULL, 'P' },
        { "philly-groups", required_argument, NULL, 'G' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *trace_path = NULL, *budget_dir = NULL, *cluster = NULL, *out = NULL;
    jt_sim_policy_t pol[SIM_POLICIES_MAX];
    jt_sim_result_t *res[SIM_POLICIES_MAX];
    size_t npol = 0, nres = 0;
    jt_sim_opts_t so;
    jt_sim_trace_t trace;
    jt_budgets_t *b = NULL;
    jt_snapshot_t *s = NULL;
    jt_diags_t d;
    jt_error_t err;
    bool prog = isatty (2);
    long long v;
    int c, rc = JT_EXIT_USAGE;

    jt_sim_opts_init (&so);
    optind = 1;
    while ((c = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            trace_path = optarg;
            break;
        case 'b':
            budget_dir = optarg;
            break;
        case 'c':
            cluster = optarg;
            break;
        case 'o':
            out = optarg;
            break;
        case 'p':
            if (npol == SIM_POLICIES_MAX) {
                fprintf (stderr, "jobtree sim: --policy: at most %d policies\n",
                         SIM_POLICIES_MAX);
                return JT_EXIT_USAGE;
            }
            if (jt_sim_policy_parse (optarg, &pol[npol], &err) < 0) {
                fprintf (stderr, "jobtree sim: %s\n", err.text);
                return JT_EXIT_USAGE;
            }
            for (size_t i = 0; i < npol; i++)
                if (!strcmp (pol[i].name, pol[npol].name)) {
                    fprintf (stderr, "jobtree sim: --policy %s is given twice\n",
                             optarg);
                    return JT_EXIT_USAGE;
                }
            npol++;
            break;
        case 's':
            if (!num_arg ("--seed", optarg, 0, INT64_MAX, &v))
                return JT_EXIT_USAGE;
            break;
        case 'e':
            if (jt_time_parse (optarg, &so.epoch, &err) < 0) {
                fprintf (stderr, "jobtree sim: --epoch=%s: %s\n", optarg, err.text);
                return JT_EXIT_USAGE;
            }
            break;
        case 'l':
            if (!num_arg ("--limit-factor", optarg, 100, 10000, &v))
                return JT_EXIT_USAGE;
            so.limit_factor_pct = v;
            break;
        case 'd':
            if (!num_arg ("--depth", optarg, 1, 1000000, &v))
                return JT_EXIT_USAGE;
            so.depth = (size_t) v;
            break;
        case 'S':
            if (!num_arg ("--sample", optarg, 60, 604800, &v))
                return JT_EXIT_USAGE;
            so.sample = v;
            break;
        case 'P':
            prog = true;
            break;
        case 'G':
            if (!num_arg ("--philly-groups", optarg, 1, 1048576, &v))
                return JT_EXIT_USAGE;
            so.philly_group_gpus = v;
            break;
        case 'h':
            usage (stdout);
            return JT_EXIT_OK;
        default:
            usage (stderr);
            return JT_EXIT_USAGE;
        }
    }
    if (optind < argc || !trace_path || !budget_dir || !cluster) {
        if (optind < argc)
            fprintf (stderr, "jobtree sim: unexpected argument %s\n", argv[optind]);
        else
            fprintf (stderr, "jobtree sim: --trace, --budgets and --cluster are "
                     "required\n");
        usage (stderr);
        return JT_EXIT_USAGE;
    }
    if (npol == 0) {
        jt_sim_policy_parse ("pack-to-empty", &pol[npol++], NULL);
        jt_sim_policy_parse ("best-fit", &pol[npol++], NULL);
    }
    if (prog) {
        so.progress = progress;
        so.progress_arg = NULL;
    }
    if (out && mkdir (out, 0777) < 0 && errno != EEXIST) {
        fprintf (stderr, "jobtree sim: --out %s: %s\n", out, strerror (errno));
        return JT_EXIT_USAGE;
    }

    jt_diags_init (&d);
    memset (&trace, 0, sizeof (trace));
    if (!(b = jt_budgets_load_dir (budget_dir, &d))
        || jt_sim_trace_load (trace_path, &trace, &d) < 0) {
        for (size_t i = 0; i < d.n; i++) {
            char line[1024];
            jt_diag_format (&d.v[i], line, sizeof (line));
            fprintf (stderr, "jobtree sim: %s\n", line);
        }
        rc = JT_EXIT_FAIL;
        goto done;
    }
    if (!(s = jt_sim_cluster (cluster, &err))) {
        fprintf (stderr, "jobtree sim: --cluster: %s\n", err.text);
        rc = JT_EXIT_FAIL;
        goto done;
    }
    for (size_t i = 0; i < npol; i++) {
        if (!(res[nres] = jt_sim_run (&trace, b, s, &pol[i], &so, &err))) {
            fprintf (stderr, "jobtree sim: %s: %s\n", pol[i].name, err.text);
            rc = JT_EXIT_FAIL;
            goto done;
        }
        nres++;
    }
    rc = JT_EXIT_OK;
    if (jt_sim_print_table (stdout, res, nres) < 0)
        rc = JT_EXIT_USAGE;
    if (out && (write_file (out, "summary.csv", jt_sim_write_summary_csv, res, nres) < 0
                || write_file (out, "owners.csv", jt_sim_write_owners_csv, res, nres) < 0
                || write_file (out, "jobs.csv", jt_sim_write_jobs_csv, res, nres) < 0
                || write_file (out, "timeline.csv", jt_sim_write_timeline_csv, res,
                               nres) < 0
                || write_file (out, "summary.json", jt_sim_write_json, res, nres) < 0))
        rc = JT_EXIT_USAGE;
done:
    for (size_t i = 0; i < nres; i++)
        jt_sim_result_destroy (res[i]);
    jt_sim_trace_free (&trace);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
    jt_diags_free (&d);
    return rc;
}
