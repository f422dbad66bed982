/*
 * cli.h - the `jobtree` subcommands. Each lives in src/cli/cmd_<name>.c and
 * follows the same contract: parse its own options (getopt_long), print
 * results to stdout and problems to stderr prefixed "jobtree <cmd>: ",
 * return the process exit status (0 ok, 1 the input is bad / the check
 * failed, 2 usage or system error).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_CLI_H
#define JT_CLI_H

#define JT_EXIT_OK 0
#define JT_EXIT_FAIL 1
#define JT_EXIT_USAGE 2

#include <stdint.h>

/* JOBID text as a Slurm job id (1..4294967294) into *out: 0, or -1 after
 * "jobtree CMD: JOBID '...': not a job id" on stderr (jobid.c). */
int cli_job_id (const char *cmd, const char *text, uint32_t *out);

int cmd_check (int argc, char **argv);
int cmd_plan (int argc, char **argv);
int cmd_snapshot (int argc, char **argv);
int cmd_verify (int argc, char **argv);
int cmd_report (int argc, char **argv);
int cmd_score (int argc, char **argv);
int cmd_sim (int argc, char **argv);
int cmd_layout (int argc, char **argv);
int cmd_explain (int argc, char **argv);

#endif /* JT_CLI_H */
