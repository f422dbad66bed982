/*
 * cmd_score.c - `jobtree score`: the composite ordering score of one or
 * more waiting runs on a snapshot, factor by factor, and the queue order it
 * gives, with the same library code the site_factor/jobtree plugin runs in
 * slurmctld (jobtree/score.h, jobtree-score(1)).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "jobtree/budget.h"
#include "jobtree/conf.h"
#include "jobtree/cover.h"
#include "jobtree/run.h"
#include "jobtree/score.h"
#include "jobtree/snapshot.h"
#include "jobtree/timeutil.h"

#define MAX_RUNS 256

static void score_usage (FILE *f)
{
    fprintf (f,
             "Usage: jobtree score --snapshot FILE --run FILE [--run FILE...]\n"
             "                     [--budgets DIR] [--conf FILE]"
             " [--profile NAME | --partition PART]\n"
             "                     [--at TIME] [--waited DURATION]\n"
             "\n"
             "Show each run's ordering score: every factor, its weight and the"
             "\nweighted sum (the site factor slurmctld adds to the job's"
             " priority),\nthen the queue order the scores give. The score"
             " orders the queue;\nit never decides who is preempted.\n"
             "\n"
             "  -s, --snapshot FILE  cluster snapshot (nodes, labels, leases)\n"
             "  -r, --run FILE       a waiting run (repeatable, up to 256)\n"
             "  -b, --budgets DIR    budget directory: the fair-share factor"
             " (else 0)\n"
             "  -c, --conf FILE      jobtree.conf: its Score* keys and profiles\n"
             "  -p, --profile NAME   weigh with this profile\n"
             "  -P, --partition PART weigh with PART's profile"
             " (ScorePartitionProfile)\n"
             "  -t, --at TIME        score at this RFC 3339 time (default: the\n"
             "                       snapshot's time, else now)\n"
             "  -w, --waited DUR     how long every run has waited (default 0)\n"
             "  -h, --help           show this help\n"
             "\nExit status: 0 when scores were printed, 1 when an input is"
             " invalid,\n2 on usage or system errors.\n");
}

static void print_diags (const jt_diags_t *d)
{
    char buf[1024];

    for (size_t i = 0; i < d->n; i++) {
        jt_diag_format (&d->v[i], buf, sizeof (buf));
        fprintf (stderr, "jobtree score: %s\n", buf);
    }
}

typedef struct scored {
    const char *name;           /* the run's id, else its file */
    jt_score_t sc;
} scored_t;

/* Highest sum first; then name (a total order). */
static int cmp_scored (const void *a, const void *b)
{
    const scored_t *x = a, *y = b;

    if (x->sc.site_factor != y->sc.site_factor)
        return x->sc.site_factor > y->sc.site_factor ? -1 : 1;
    if (x->sc.sum != y->sc.sum)
        return x->sc.sum > y->sc.sum ? -1 : 1;
    return strcmp (x->name, y->name);
}

int cmd_score (int argc, char **argv)
{
    static const struct option opts[] = {
        { "snapshot", required_argument, NULL, 's' },
        { "run", required_argument, NULL, 'r' },
        { "budgets", required_argument, NULL, 'b' },
        { "conf", required_argument, NULL, 'c' },
        { "profile", required_argument, NULL, 'p' },
        { "partition", required_argument, NULL, 'P' },
        { "at", required_argument, NULL, 't' },
        { "waited", required_argument, NULL, 'w' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *sfile = NULL, *bdir = NULL, *cfile = NULL, *at = NULL;
    const char *pname = NULL, *part = NULL, *rfiles[MAX_RUNS];
    size_t nruns = 0;
    int64_t waited = 0, now;
    jt_config_t *conf = NULL;
    jt_budgets_t *b = NULL;
    jt_snapshot_t *s = NULL;
    jt_run_t *runs[MAX_RUNS] = { NULL };
    scored_t out[MAX_RUNS];
    jt_usage_t u = { 0 };
    bool have_u = false;
    const jt_score_profile_t *prof;
    double queued = 0, running;
    jt_diags_t diags;
    jt_error_t err;
    int c, rc = JT_EXIT_FAIL;

    jt_diags_init (&diags);
    optind = 1;
    while ((c = getopt_long (argc, argv, "s:r:b:c:p:P:t:w:h", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            sfile = optarg;
            break;
        case 'r':
            if (nruns == MAX_RUNS) {
                fprintf (stderr, "jobtree score: --run: at most %d runs\n",
                         MAX_RUNS);
                return JT_EXIT_USAGE;
            }
            rfiles[nruns++] = optarg;
            break;
        case 'b':
            bdir = optarg;
            break;
        case 'c':
            cfile = optarg;
            break;
        case 'p':
            pname = optarg;
            break;
        case 'P':
            part = optarg;
            break;
        case 't':
            at = optarg;
            break;
        case 'w':
            if (jt_duration_parse (optarg, &waited, &err) < 0 || waited < 0
                || waited > JT_SCORE_WAIT_MAX) {
                fprintf (stderr, "jobtree score: --waited: '%s' is not a duration"
                         " up to 10 years (e.g. 2h, 1-00:00:00)\n", optarg);
                return JT_EXIT_USAGE;
            }
            break;
        case 'h':
            score_usage (stdout);
            return JT_EXIT_OK;
        default:
            score_usage (stderr);
            return JT_EXIT_USAGE;
        }
    }
    if (optind < argc || !sfile || !nruns || (pname && part)) {
        if (optind < argc)
            fprintf (stderr, "jobtree score: unexpected argument '%s'\n",
                     argv[optind]);
        else if (pname && part)
            fprintf (stderr, "jobtree score: give --profile or --partition,"
                     " not both\n");
        else
            fprintf (stderr, "jobtree score: --snapshot and --run are required\n");
        score_usage (stderr);
        return JT_EXIT_USAGE;
    }

    if (cfile) {
        if (!(conf = jt_config_load (cfile, false, &diags))) {
            print_diags (&diags);
            fprintf (stderr, "jobtree score: %s: configuration not loaded\n", cfile);
            goto done;
        }
    } else if (!(conf = jt_config_create ())) {
        fprintf (stderr, "jobtree score: out of memory\n");
        rc = JT_EXIT_USAGE;
        goto done;
    }
    prof = pname ? jt_score_profile (&conf->score, pname)
                 : jt_score_profile_for (&conf->score, part);
    if (!prof) {
        fprintf (stderr, "jobtree score: --profile: no profile named %s (built-in:"
                 " hpc-batch, ml-training, service, sensitive, interactive,"
                 " balanced; others from --conf's ScoreProfile)\n", pname);
        rc = JT_EXIT_USAGE;
        goto done;
    }
    if (!(s = jt_snapshot_load_file (sfile, &diags))) {
        print_diags (&diags);
        fprintf (stderr, "jobtree score: %s: snapshot not loaded\n", sfile);
        goto done;
    }
    if (bdir && !(b = jt_budgets_load_dir (bdir, &diags))) {
        print_diags (&diags);
        fprintf (stderr, "jobtree score: %s: budgets not loaded\n", bdir);
        goto done;
    }
    if (at) {
        if (jt_time_parse (at, &now, &err) < 0) {
            fprintf (stderr, "jobtree score: --at: %s\n", err.text);
            rc = JT_EXIT_USAGE;
            goto done;
        }
    } else
        now = s->time ? s->time : (int64_t) time (NULL);
    for (size_t i = 0; i < nruns; i++) {
        if (!(runs[i] = jt_run_load_file (rfiles[i], &diags))) {
            print_diags (&diags);
            fprintf (stderr, "jobtree score: %s: run not loaded\n", rfiles[i]);
            goto done;
        }
        if (jt_run_validate (runs[i], jt_snapshot_gpus_per_node (s, runs[i]->flavor),
                             &err) < 0) {
            fprintf (stderr, "jobtree score: %s: %s\n", rfiles[i], err.text);
            goto done;
        }
        queued += jt_score_queued_gpu_hours (runs[i]);
    }
    if (b) {
        int urc = jt_usage_from_snapshot (&u, b, s, now, &err);
        if (urc < 0) {
            fprintf (stderr, "jobtree score: out of memory\n");
            rc = JT_EXIT_USAGE;
            goto done;
        }
        have_u = true;
        if (urc == 1)
            fprintf (stderr, "jobtree score: %s: %s (not charged)\n", sfile, err.text);
    }
    running = jt_score_running_gpu_hours (s);
    for (size_t i = 0; i < nruns; i++) {
        jt_score_input_t in = { .wait_s = waited, .queued_gpu_hours = queued,
                                .running_gpu_hours = running };
        char *t;

        if (jt_score_inputs (s, b, have_u ? &u : NULL, runs[i], now, &in, &err) < 0) {
            fprintf (stderr, "jobtree score: %s: %s\n", rfiles[i], err.text);
            rc = JT_EXIT_USAGE;
            goto done;
        }
        out[i].name = runs[i]->id ? runs[i]->id : rfiles[i];
        jt_score_compute (&conf->score, prof, &in, &out[i].sc);
        if (!(t = jt_score_format (&out[i].sc))) {
            fprintf (stderr, "jobtree score: out of memory\n");
            rc = JT_EXIT_USAGE;
            goto done;
        }
        printf ("%srun %s: domains %lld of %lld", i ? "\n" : "", out[i].name,
                (long long) in.domains_needed, (long long) in.domains_available);
        for (size_t l = 0; l < in.nlevels && l < JT_LEVELS_MAX; l++)
            printf (", %s %lld of %lld", jt_level_name (s, l),
                    (long long) in.units_needed[l], (long long) in.units_available[l]);
        printf (", largest fingerprint %lld of %lld nodes, share %lld of %lld GPUs"
                " used\n%s", (long long) in.conformance_largest,
                (long long) in.nodes_requested, (long long) in.fs_used_gpus,
                (long long) in.fs_target_gpus, t);
        free (t);
    }
    qsort (out, nruns, sizeof (*out), cmp_scored);
    printf ("\norder:");
    for (size_t i = 0; i < nruns; i++)
        printf (" %s", out[i].name);
    printf ("\n");
    rc = JT_EXIT_OK;
done:
    if (have_u)
        jt_usage_free (&u);
    for (size_t i = 0; i < nruns; i++)
        jt_run_destroy (runs[i]);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
    jt_config_destroy (conf);
    jt_diags_free (&diags);
    return rc;
}
