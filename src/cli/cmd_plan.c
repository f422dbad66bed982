/*
 * cmd_plan.c - `jobtree plan`: decide BindNow / PlanLater / Reject for one
 * run against a budget directory and a cluster snapshot, offline, with the
 * same library code slurmctld runs (see jobtree-plan(1)).
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
#include "jobtree/activate.h"
#include "jobtree/budget.h"
#include "jobtree/cover.h"
#include "jobtree/schedule.h"
#include "jobtree/conf.h"
#include "jobtree/score.h"
#include "jobtree/plan.h"
#include "jobtree/run.h"
#include "jobtree/snapshot.h"
#include "jobtree/timeutil.h"

/* jt_yield_fn for a snapshot: every lease's run may give way, as
 * preempt/jobtree offers every running Jobtree run to a pending one; a
 * malleable run's minimum is the snapshot's (minGPUs, from the job's
 * record, as slurmctld's adapter reads it). */
static int yield_snapshot (const char *run, int64_t *min_gpus, void *arg)
{
    const jt_snapshot_t *s = arg;

    for (size_t l = 0; l < s->nleases; l++)
        if (!strcmp (s->leases[l].run, run)) {
            if (s->leases[l].min_gpus > 0)
                *min_gpus = s->leases[l].min_gpus;
            break;
        }
    return 1;
}

/* What activating reservation resv at now would cut, with slurmctld's
 * library and its choices (activation.c): whether an activation is due
 * (jt_activation_due, a what-if at now: room, or a reclaim of what the
 * owner lent, and who is paid back), its slice with structural cuts
 * (spares dropped, malleable runs shrunk to their minGPUs) before the
 * lottery, every lease of the snapshot may yield (jobtree-plan(1)). */
static int print_activation (const jt_budgets_t *b, jt_snapshot_t *s,
                             const jt_run_t *r, int64_t now,
                             const jt_plan_opts_t *popts, const char *resv)
{
    bool *el = calloc (s->nnodes + 1, sizeof (*el));
    jt_sched_request_t req = { .budgets = b, .snap = s, .eligible = el, .run = r,
                               .now = now, .tense = JT_TENSE_NOW,
                               .opts = *popts };
    const jt_resv_clock_t clk = { .created = now, .what_if = true };
    jt_activation_due_t due;
    jt_activation_slice_t sl = { 0 };
    jt_activation_t a = { 0 };
    jt_answer_t e;
    jt_error_t err;
    char *d = NULL;
    int rc = -1;

    if (!el) {
        fprintf (stderr, "jobtree plan: out of memory\n");
        return -1;
    }
    for (size_t k = 0; k < s->nnodes; k++)
        el[k] = true;
    switch (jt_activation_due (&req, &clk, &e, &due, &err)) {
    case -1:
        fprintf (stderr, "jobtree plan: %s\n", err.text);
        free (el);
        return -1;
    case JT_DUE_NONE:
        if (e.kind == JT_ANSWER_ESTIMATE)       /* a funding wait */
            printf ("\nactivation: none (a funding wait nothing lent would end)\n");
        else
            printf ("\nactivation: none (%s)\n", e.reason[0] ? e.reason
                    : jt_answer_kind_str (e.kind));
        rc = 0;
        goto out;
    default:                    /* room (a cap may hold its funding), a reclaim */
        break;
    }
    if (jt_activation_slice (s, e.cands, e.ncands, e.cand_nodes, e.cand_group_nodes, r->flavor, due.fund,
                             "", resv, due.at, true, yield_snapshot, s, &sl, &err) < 0
        || jt_activate (&sl.req, &a, &err) < 0)
        goto fail;
    if (!(d = jt_activation_dump (&a, &sl.req)))
        goto nomem;
    printf ("\nactivation of %s: scope %s\n  %s\n", resv, sl.scope, d);
    rc = 0;
    goto out;
nomem:
    fprintf (stderr, "jobtree plan: out of memory\n");
    goto out;
fail:
    fprintf (stderr, "jobtree plan: --activate: %s\n", err.text);
out:
    free (d);
    jt_activation_free (&a);
    jt_activation_slice_free (&sl);
    jt_answer_free (&e);
    free (el);
    return rc;
}

/* --score: the run's ordering score on the snapshot, factor by factor
 * (jobtree/score.h; what site_factor/jobtree gives it while it waits),
 * weighed by PROFILE, else by --conf's default profile. The backlog counts
 * this run as the queue. */
static int print_score (const jt_budgets_t *b, const jt_snapshot_t *s,
                        const jt_run_t *r, int64_t now, const char *cfile,
                        const char *pname)
{
    jt_diags_t diags;
    jt_config_t *conf;
    const jt_score_profile_t *prof;
    jt_score_input_t in = { .queued_gpu_hours = jt_score_queued_gpu_hours (r),
                            .running_gpu_hours = jt_score_running_gpu_hours (s) };
    jt_usage_t u;
    jt_error_t err;
    jt_score_t sc;
    char *t = NULL;
    int rc = -1, urc;

    jt_diags_init (&diags);
    conf = cfile ? jt_config_load (cfile, false, &diags) : jt_config_create ();
    if (!conf) {
        char buf[1024];
        for (size_t i = 0; i < diags.n; i++) {
            jt_diag_format (&diags.v[i], buf, sizeof (buf));
            fprintf (stderr, "jobtree plan: %s\n", buf);
        }
        fprintf (stderr, "jobtree plan: --conf %s: not loaded\n", cfile ? cfile : "");
        jt_diags_free (&diags);
        return -1;
    }
    jt_diags_free (&diags);
    prof = pname && *pname ? jt_score_profile (&conf->score, pname)
                           : jt_score_profile_for (&conf->score, NULL);
    if (!prof) {
        fprintf (stderr, "jobtree plan: --score=%s: no such profile (see"
                 " jobtree.conf(5))\n", pname);
        jt_config_destroy (conf);
        return -1;
    }
    if ((urc = jt_usage_from_snapshot (&u, b, s, now, &err)) < 0) {
        fprintf (stderr, "jobtree plan: out of memory\n");
        jt_config_destroy (conf);
        return -1;
    }
    if (jt_score_inputs (s, b, &u, r, now, &in, &err) < 0)
        fprintf (stderr, "jobtree plan: --score: %s\n", err.text);
    else {
        jt_score_compute (&conf->score, prof, &in, &sc);
        if ((t = jt_score_format (&sc))) {
            printf ("\nscore (orders the queue; never decides who is preempted):\n%s", t);
            rc = 0;
        }
    }
    free (t);
    jt_usage_free (&u);
    jt_config_destroy (conf);
    return rc;
}

/* The calculus's decision over time, every node of the snapshot the
 * cluster (jt_sched_decide: Reject only when never). */
static int decide (const jt_budgets_t *b, jt_snapshot_t *s, const jt_run_t *r,
                   int64_t now, const jt_plan_opts_t *popts, jt_plan_t *plan,
                   jt_error_t *err)
{
    bool *el = calloc (s->nnodes + 1, sizeof (*el));
    jt_sched_request_t req = { .budgets = b, .snap = s, .eligible = el, .run = r,
                               .now = now, .opts = *popts };
    int rc;

    if (!el)
        return jt_errprintf (err, "out of memory");
    for (size_t k = 0; k < s->nnodes; k++)
        el[k] = true;
    rc = jt_sched_decide (&req, plan, err);
    free (el);
    return rc;
}

static void plan_usage (FILE *f)
{
    fprintf (f,
             "Usage: jobtree plan --budgets DIR --snapshot FILE --run FILE\n"
             "                    [--at TIME] [--json]"
             " [--policy pack-to-empty|best-fit]\n"
             "                    [--activate RESERVATION]"
             " [--score[=PROFILE]] [--conf FILE]\n"
             "\n"
             "Decide whether RUN binds now, is planned for later, or is"
             " rejected,\nand show who pays, where each group lands and what"
             " is left per domain.\n"
             "\n"
             "  -b, --budgets DIR    budget directory (one *.json per owner)\n"
             "  -s, --snapshot FILE  cluster snapshot (nodes, labels, leases)\n"
             "  -r, --run FILE       the run document\n"
             "  -t, --at TIME        decide at this RFC 3339 time (default:"
             " the\n"
             "                       snapshot's time, else now)\n"
             "  -j, --json           print the plan as JSON\n"
             "  -p, --policy NAME    best-fit (default) or pack-to-empty\n"
             "  -a, --activate RESV  also show who would give way if reservation\n"
             "                       RESV activated at --at (slurmctld's lottery\n"
             "                       over whole runs, no spare drops or shrinks;\n"
             "                       every lease of the snapshot may yield)\n"
             "  -S, --score[=PROFILE] also show the run's ordering score, factor"
             " by\n"
             "                       factor (PROFILE, else --conf's default;"
             " jobtree-score(1))\n"
             "  -c, --conf FILE      jobtree.conf for --score's profiles\n"
             "  -h, --help           show this help\n"
             "\nExit status: 0 when a decision was printed (any decision), 1"
             " when an\ninput is invalid, 2 on usage or system errors.\n");
}

static void print_diags (const jt_diags_t *d)
{
    char buf[1024];

    for (size_t i = 0; i < d->n; i++) {
        jt_diag_format (&d->v[i], buf, sizeof (buf));
        fprintf (stderr, "jobtree plan: %s\n", buf);
    }
}

int cmd_plan (int argc, char **argv)
{
    static const struct option opts[] = {
        { "budgets", required_argument, NULL, 'b' },
        { "snapshot", required_argument, NULL, 's' },
        { "run", required_argument, NULL, 'r' },
        { "at", required_argument, NULL, 't' },
        { "json", no_argument, NULL, 'j' },
        { "policy", required_argument, NULL, 'p' },
        { "activate", required_argument, NULL, 'a' },
        { "score", optional_argument, NULL, 'S' },
        { "conf", required_argument, NULL, 'c' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *bdir = NULL, *sfile = NULL, *rfile = NULL, *at = NULL;
    const char *resv = NULL, *score_profile = NULL, *cfile = NULL;
    bool json = false, score = false;
    jt_plan_opts_t popts = { .policy = JT_PACK_DEFAULT };
    jt_budgets_t *b = NULL;
    jt_snapshot_t *s = NULL;
    jt_run_t *r = NULL;
    jt_diags_t diags;
    jt_error_t err;
    jt_plan_t plan;
    int64_t now;
    int c, rc = JT_EXIT_FAIL;

    memset (&plan, 0, sizeof (plan));
    jt_diags_init (&diags);
    optind = 1;
    while ((c = getopt_long (argc, argv, "b:s:r:t:jp:a:S::c:h", opts, NULL)) != -1) {
        switch (c) {
        case 'b':
            bdir = optarg;
            break;
        case 's':
            sfile = optarg;
            break;
        case 'r':
            rfile = optarg;
            break;
        case 't':
            at = optarg;
            break;
        case 'j':
            json = true;
            break;
        case 'p':
            if (jt_pack_policy_parse (optarg, &popts.policy) < 0) {
                fprintf (stderr, "jobtree plan: --policy: unknown policy '%s'"
                         " (use pack-to-empty or best-fit)\n", optarg);
                return JT_EXIT_USAGE;
            }
            break;
        case 'a':
            resv = optarg;
            break;
        case 'S':
            score = true;
            score_profile = optarg;
            break;
        case 'c':
            cfile = optarg;
            break;
        case 'h':
            plan_usage (stdout);
            return JT_EXIT_OK;
        default:
            plan_usage (stderr);
            return JT_EXIT_USAGE;
        }
    }
    if (optind < argc || !bdir || !sfile || !rfile) {
        if (optind < argc)
            fprintf (stderr, "jobtree plan: unexpected argument '%s'\n",
                     argv[optind]);
        else
            fprintf (stderr, "jobtree plan: --budgets, --snapshot and --run"
                     " are required\n");
        plan_usage (stderr);
        return JT_EXIT_USAGE;
    }

    if (!(b = jt_budgets_load_dir (bdir, &diags))) {
        print_diags (&diags);
        fprintf (stderr, "jobtree plan: %s: budgets not loaded\n", bdir);
        goto done;
    }
    if (!(s = jt_snapshot_load_file (sfile, &diags))) {
        print_diags (&diags);
        fprintf (stderr, "jobtree plan: %s: snapshot not loaded\n", sfile);
        goto done;
    }
    if (!(r = jt_run_load_file (rfile, &diags))) {
        print_diags (&diags);
        fprintf (stderr, "jobtree plan: %s: run not loaded\n", rfile);
        goto done;
    }
    if (jt_run_validate (r, jt_snapshot_gpus_per_node (s, r->flavor),
                         &err) < 0) {
        fprintf (stderr, "jobtree plan: %s: %s\n", rfile, err.text);
        goto done;
    }
    if (at) {
        if (jt_time_parse (at, &now, &err) < 0) {
            fprintf (stderr, "jobtree plan: --at: %s\n", err.text);
            rc = JT_EXIT_USAGE;
            goto done;
        }
    } else
        now = s->time ? s->time : (int64_t) time (NULL);

    if (decide (b, s, r, now, &popts, &plan, &err) < 0) {
        fprintf (stderr, "jobtree plan: %s\n", err.text);
        rc = JT_EXIT_USAGE;
        goto done;
    }
    if (json) {
        char *t = jt_plan_to_json (&plan, s);
        if (!t) {
            fprintf (stderr, "jobtree plan: out of memory\n");
            rc = JT_EXIT_USAGE;
            goto done;
        }
        printf ("%s\n", t);
        free (t);
    } else if (jt_plan_print (&plan, s, stdout) < 0) {
        fprintf (stderr, "jobtree plan: cannot write the plan\n");
        rc = JT_EXIT_USAGE;
        goto done;
    }
    if (resv && plan.decision != JT_BIND_NOW
        && print_activation (b, s, r, now, &popts, resv) < 0) {
        rc = JT_EXIT_USAGE;
        goto done;
    }
    if (score && !json && print_score (b, s, r, now, cfile, score_profile) < 0) {
        rc = JT_EXIT_USAGE;
        goto done;
    }
    rc = JT_EXIT_OK;
done:
    jt_plan_free (&plan);
    jt_run_destroy (r);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
    jt_diags_free (&diags);
    return rc;
}
