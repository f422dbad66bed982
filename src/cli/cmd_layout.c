/*
 * cmd_layout.c - `jobtree layout [JOBID]`: a running Jobtree run's layout
 * (its groups, their nodes, their spares, the spares swapped in after a
 * node failure) as one line of JSON, read from the job's record through
 * libslurm (jobtree/spares.h owns the format). Inside a job, JOBID defaults
 * to $SLURM_JOB_ID; -o FILE writes the file atomically instead (so a job
 * can refresh its $JOBTREE_LAYOUT when it gets SIGWINCH).
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
#include <unistd.h>

#include "cli.h"
#include "jobtree/record.h"
#include "jobtree/spares.h"

#ifdef HAVE_LIBSLURM
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#endif

static void layout_usage (FILE *f)
{
    fprintf (f, "usage: jobtree layout [-o FILE] [JOBID]\n"
                "  print a running Jobtree run's groups, nodes, spares and swaps as\n"
                "  JSON (JOBID defaults to $SLURM_JOB_ID)\n"
                "  -o, --output FILE  write it to FILE (atomically) instead\n");
}

#ifdef HAVE_LIBSLURM
static int write_out (const char *out, const char *json)
{
    char tmp[4096];
    FILE *f;

    if (!out) {
        printf ("%s\n", json);
        return JT_EXIT_OK;
    }
    if (snprintf (tmp, sizeof (tmp), "%s.%ld", out, (long) getpid ()) >= (int) sizeof (tmp)) {
        fprintf (stderr, "jobtree layout: %s: path too long\n", out);
        return JT_EXIT_FAIL;
    }
    if (!(f = fopen (tmp, "w"))) {
        fprintf (stderr, "jobtree layout: %s: %s\n", tmp, strerror (errno));
        return JT_EXIT_FAIL;
    }
    if ((fprintf (f, "%s\n", json) < 0) | (fclose (f) != 0) || rename (tmp, out) < 0) {
        fprintf (stderr, "jobtree layout: %s: %s\n", out, strerror (errno));
        (void) unlink (tmp);
        return JT_EXIT_FAIL;
    }
    return JT_EXIT_OK;
}

static int show (uint32_t job_id, const char *out)
{
    job_info_msg_t *msg = NULL;
    jt_jobrec_t rec;
    jt_error_t err = { "" };
    char *json = NULL;
    int rc = JT_EXIT_FAIL;

    slurm_init (NULL);
    if (slurm_load_job (&msg, job_id, SHOW_ALL) != SLURM_SUCCESS || !msg
        || msg->record_count < 1) {
        fprintf (stderr, "jobtree layout: job %" PRIu32 ": %s\n", job_id,
                 slurm_strerror (errno));
        goto done;
    }
    if (!jt_jobrec_is (msg->job_array[0].admin_comment)) {
        fprintf (stderr, "jobtree layout: job %" PRIu32 " is not a Jobtree run\n", job_id);
        goto done;
    }
    if (jt_jobrec_parse (msg->job_array[0].admin_comment, &rec, &err) < 0) {
        fprintf (stderr, "jobtree layout: job %" PRIu32 ": record: %s\n", job_id, err.text);
        goto done;
    }
    if (rec.nbound == 0)
        fprintf (stderr, "jobtree layout: job %" PRIu32 " has not started: no layout "
                 "yet\n", job_id);
    else if (!(json = jt_spares_layout_json (&rec, job_id, &err)))
        fprintf (stderr, "jobtree layout: %s\n", err.text);
    else
        rc = write_out (out, json);
    jt_jobrec_free (&rec);
done:
    free (json);
    slurm_free_job_info_msg (msg);
    return rc;
}
#endif

int cmd_layout (int argc, char **argv)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *out = NULL, *id = getenv ("SLURM_JOB_ID");
    uint32_t v;
    int c;

    optind = 1;
    while ((c = getopt_long (argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'h':
            layout_usage (stdout);
            return JT_EXIT_OK;
        default:
            layout_usage (stderr);
            return JT_EXIT_USAGE;
        }
    }
    if (optind < argc)
        id = argv[optind++];
    if (optind < argc || !id || !*id) {
        fprintf (stderr, "jobtree layout: %s\n", optind < argc ? "one JOBID at most"
                 : "no JOBID (and SLURM_JOB_ID is not set)");
        layout_usage (stderr);
        return JT_EXIT_USAGE;
    }
    if (cli_job_id ("layout", id, &v) < 0)
        return JT_EXIT_USAGE;
#ifdef HAVE_LIBSLURM
    return show (v, out);
#else
    (void) out;
    fprintf (stderr, "jobtree layout: built without libslurm (install libslurm-dev and "
                     "re-run configure)\n");
    return JT_EXIT_USAGE;
#endif
}
