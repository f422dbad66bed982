/*
 * cmd_explain.c - `jobtree explain JOBID`: why a job waits, or who pays
 * for it, on the live cluster, in the words the select plugin decided
 * from. squeue's reason is the short form (the one blocker and the
 * reservation); the whole explanation (every payer tried and why not, the
 * domains, holds, the reservation) is what the plugin keeps in the job's
 * SystemComment, written by the same libjobtree answer (jobtree/schedule.h:
 * jt_answer_t's brief and reason). This command only reads the job through
 * libslurm and lays the text out, a clause per line; it decides nothing.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "jobtree/record.h"
#include "jobtree/snapshot.h"
#include "jobtree/timeutil.h"

#ifdef HAVE_LIBSLURM
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#endif

static void explain_usage (FILE *f)
{
    fprintf (f, "usage: jobtree explain JOBID\n"
                "  why a job waits (every payer tried and why not, the domains,"
                " the\n"
                "  reservation), or who pays for it once it runs, as slurmctld's"
                " select\n"
                "  plugin decided; squeue's reason is the short form\n"
                "  -h, --help  show this help\n"
                "\nExit status: 0 explained, 1 no such job or Slurm could not"
                " be read, 2 usage.\n");
}

/* The explanation, a clause per line: "X (Y; Z)" as X, then Y and Z
 * indented, splitting at "; " outside nested parentheses. Presentation
 * only: the text is the plugin's. */
static void print_clauses (const char *text, int indent)
{
    const char *p = text, *open = NULL;
    int depth = 0;

    /* a head with its whole explanation in one trailing parenthesis */
    size_t n = strlen (text);
    if (n > 2 && text[n - 1] == ')') {
        for (const char *q = text; *q; q++) {
            if (*q == '(') {
                if (depth++ == 0 && q > text && q[-1] == ' ')
                    open = q;
            } else if (*q == ')' && --depth == 0 && q[1] != '\0')
                open = NULL;
        }
    }
    if (open) {
        printf ("%*s%.*s\n", indent, "", (int) (open - 1 - text), text);
        char *inner = strndup (open + 1, (size_t) (text + n - 1 - (open + 1)));
        if (inner) {
            print_clauses (inner, indent + 2);
            free (inner);
        }
        return;
    }
    depth = 0;
    for (const char *q = text; ; q++) {
        if (*q == '(')
            depth++;
        else if (*q == ')' && depth > 0)
            depth--;
        if (*q == '\0' || (depth == 0 && q[0] == ';' && q[1] == ' ')) {
            printf ("%*s%.*s\n", indent, "", (int) (q - p), p);
            if (*q == '\0')
                break;
            p = q + 2;
            q++;
        }
    }
}

#ifdef HAVE_LIBSLURM
static const char *strip_tag (const char *s)
{
    return s && !strncmp (s, "jobtree: ", 9) ? s + 9 : s;
}

/* The base state's name as squeue's %T prints it (libslurm declares no
 * job_state_string; the enum is the same on every supported release). */
static const char *state_name (uint32_t state)
{
    switch (state & JOB_STATE_BASE) {
    case JOB_PENDING: return "PENDING";
    case JOB_RUNNING: return "RUNNING";
    case JOB_SUSPENDED: return "SUSPENDED";
    case JOB_COMPLETE: return "COMPLETED";
    case JOB_CANCELLED: return "CANCELLED";
    case JOB_FAILED: return "FAILED";
    case JOB_TIMEOUT: return "TIMEOUT";
    case JOB_NODE_FAIL: return "NODE_FAIL";
    case JOB_PREEMPTED: return "PREEMPTED";
    case JOB_BOOT_FAIL: return "BOOT_FAIL";
    case JOB_DEADLINE: return "DEADLINE";
    case JOB_OOM: return "OUT_OF_MEMORY";
    }
    return "UNKNOWN";
}

static void print_run (const jt_jobrec_t *rec)
{
    const jt_run_t *r = rec->run;

    if (!r)
        return;
    printf ("run: %s, %" PRId64 " GPUs of %s", r->owner ? r->owner : "?",
            r->malleable ? r->max_gpus : r->total_gpus,
            r->flavor ? r->flavor : "?");
    if (r->malleable)
        printf (" (malleable %" PRId64 "-%" PRId64 ")", r->min_gpus, r->max_gpus);
    if (r->group_gpus > 0)
        printf (" in groups of %" PRId64 "%s", r->group_gpus,
                r->cross_group_spread ? "" : ", all in one domain");
    if (r->spares_per_group > 0)
        printf (", %" PRId64 " spare node%s per group", r->spares_per_group,
                r->spares_per_group == 1 ? "" : "s");
    printf ("\n");
}

static void print_bound (const jt_jobrec_t *rec)
{
    char t[40];

    jt_time_format (rec->bound_time, t, sizeof (t));
    printf ("funded at its start, %s:\n", t);
    for (size_t i = 0; i < rec->nbound; i++) {
        const jt_jobrec_lease_t *l = &rec->bound[i];
        printf ("  group %d: %" PRId64 " GPUs paid by envelope %s (%s) on",
                l->group, l->gpus, l->envelope ? l->envelope : "?",
                jt_role_str (l->role));
        for (size_t k = 0; k < l->nnodes; k++)
            printf (" %s", l->nodes[k]);
        printf ("\n");
    }
}

static int explain (uint32_t job_id)
{
    job_info_msg_t *msg = NULL;
    const slurm_job_info_t *j;
    jt_jobrec_t rec;
    jt_error_t err = { "" };
    const char *state, *why;

    slurm_init (NULL);
    if (slurm_load_job (&msg, job_id, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS
        || !msg || msg->record_count < 1) {
        fprintf (stderr, "jobtree explain: job %" PRIu32 ": %s\n", job_id,
                 slurm_strerror (errno));
        slurm_free_job_info_msg (msg);
        return JT_EXIT_FAIL;
    }
    j = &msg->job_array[0];
    state = state_name (j->job_state);
    why = j->state_desc;        /* Slurm's own codes: squeue %r names them */
    if (!jt_jobrec_is (j->admin_comment)) {
        printf ("job %" PRIu32 ": %s, a plain Slurm job (no envelope)\n",
                job_id, state);
        if ((j->job_state & JOB_STATE_BASE) == JOB_PENDING)
            printf ("squeue reason: %s\n", why ? why : "Slurm's own (squeue -o %r)");
        slurm_free_job_info_msg (msg);
        return JT_EXIT_OK;
    }
    if (jt_jobrec_parse (j->admin_comment, &rec, &err) < 0) {
        fprintf (stderr, "jobtree explain: job %" PRIu32 ": its record: %s\n",
                 job_id, err.text);
        slurm_free_job_info_msg (msg);
        return JT_EXIT_FAIL;
    }
    printf ("job %" PRIu32 ": %s, a Jobtree run (account %s)\n", job_id, state,
            j->account ? j->account : "?");
    print_run (&rec);
    if ((j->job_state & JOB_STATE_BASE) == JOB_PENDING) {
        printf ("squeue reason: %s\n", why ? why : "Slurm's own (squeue -o %r)");
        if (j->system_comment && !strncmp (j->system_comment, "jobtree: ", 9)) {
            printf ("why, as the select plugin last decided:\n");
            print_clauses (strip_tag (j->system_comment), 2);
        } else
            printf ("why: the select plugin has not answered for it yet "
                    "(Slurm's own reason above)\n");
    } else if (rec.nbound)
        print_bound (&rec);
    else if (rec.nsegs)
        printf ("funded at submission by envelope %s (%s)\n",
                rec.segs[0].envelope ? rec.segs[0].envelope : "?",
                rec.segs[0].source ? rec.segs[0].source : "?");
    jt_jobrec_free (&rec);
    slurm_free_job_info_msg (msg);
    return JT_EXIT_OK;
}
#endif

int cmd_explain (int argc, char **argv)
{
    static const struct option opts[] = {
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    uint32_t v;
    int c;

    optind = 1;
    while ((c = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            explain_usage (stdout);
            return JT_EXIT_OK;
        default:
            explain_usage (stderr);
            return JT_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        fprintf (stderr, "jobtree explain: %s\n", optind < argc ? "one JOBID at most"
                 : "no JOBID");
        explain_usage (stderr);
        return JT_EXIT_USAGE;
    }
    if (cli_job_id ("explain", argv[optind], &v) < 0)
        return JT_EXIT_USAGE;
#ifdef HAVE_LIBSLURM
    return explain (v);
#else
    (void) print_clauses;
    fprintf (stderr, "jobtree explain: built without libslurm (install "
                     "libslurm-dev and re-run configure)\n");
    return JT_EXIT_USAGE;
#endif
}
