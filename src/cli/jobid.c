/*
 * jobid.c - a JOBID argument of the commands that ask slurmctld about one
 * job (`jobtree layout`, `jobtree explain`): range-checked before use.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

int cli_job_id (const char *cmd, const char *text, uint32_t *out)
{
    char *end = NULL;
    unsigned long long v;

    errno = 0;
    v = strtoull (text, &end, 10);
    if (errno || *end || end == text || v == 0 || v > 0xfffffffeULL) {
        fprintf (stderr, "jobtree %s: JOBID '%s': not a job id (1..4294967294)\n",
                 cmd, text);
        return -1;
    }
    *out = (uint32_t) v;
    return 0;
}
