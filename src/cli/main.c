/*
 * main.c - `jobtree`: the offline front end of libjobtree.
 *
 * Dispatches to one subcommand per file (see cli.h). The same library runs
 * inside slurmctld, so what `jobtree plan` predicts is what the plugins do.
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

#include "cli.h"
#include "jobtree/libc_tune.h"

struct command {
    const char *name;
    int (*fn) (int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    { "check", cmd_check, "validate a budget directory (and a snapshot)" },
    { "plan", cmd_plan, "decide BindNow/PlanLater/Reject for a run" },
    { "snapshot", cmd_snapshot, "read a live Slurm cluster into a snapshot" },
    { "verify", cmd_verify, "check a ledger: checksums, chain, invariants" },
    { "report", cmd_report, "sacct-style reports from the ledger" },
    { "sim", cmd_sim, "replay a job trace and compare policies" },
    { "layout", cmd_layout, "a running run's groups, nodes, spares and swaps (JSON)" },
    { "explain", cmd_explain, "why a job waits, or who pays for it (live cluster)" },
    { "score", cmd_score, "the ordering score of waiting runs, factor by factor" },
    { NULL, NULL, NULL },
};

static void usage (FILE *f)
{
    fprintf (f, "Usage: jobtree COMMAND [OPTIONS]\n\nCommands:\n");
    for (const struct command *c = commands; c->name; c++)
        fprintf (f, "  %-10s %s\n", c->name, c->summary);
    fprintf (f, "\nRun `jobtree COMMAND --help` for a command's options;"
                " see jobtree(1).\n");
}

int main (int argc, char **argv)
{
    jt_malloc_tune (); /* verify and report parse records by the million */
    jt_locale_c_thread ();
    if (argc < 2) {
        usage (stderr);
        return JT_EXIT_USAGE;
    }
    if (!strcmp (argv[1], "-h") || !strcmp (argv[1], "--help")
        || !strcmp (argv[1], "help")) {
        usage (stdout);
        return JT_EXIT_OK;
    }
    if (!strcmp (argv[1], "-V") || !strcmp (argv[1], "--version")) {
        printf ("jobtree %s\n", PACKAGE_VERSION);
        return JT_EXIT_OK;
    }
    for (const struct command *c = commands; c->name; c++)
        if (!strcmp (argv[1], c->name))
            return c->fn (argc - 1, argv + 1);
    fprintf (stderr, "jobtree: unknown command '%s'\n", argv[1]);
    usage (stderr);
    return JT_EXIT_USAGE;
}
