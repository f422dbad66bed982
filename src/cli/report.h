/*
 * report.h - what `jobtree report`'s files share (src/cli only): the rows
 * of its reports, the context a report is computed in, and the tables
 * that print them (report_rows.c).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_CLI_REPORT_H
#define JT_CLI_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "table.h"
#include "jobtree/ledger.h"

/* A lease row: the fold's history row and its hours clipped to the range
 * (and its GPU-seconds: integral, so sums of them are exact in any order). */
struct lrow {
    jt_fold_lease_t l;
    double hours, gpu_s;
};

struct urow { /* usage, runs */
    char *key1, *key2;
    const char *sponsor; /* usage: the envelope's owner (from caps) */
    double owned, borrowed; /* GPU-seconds */
    int64_t peak, gpus, start, end, leases;
    char reasons[128];
};

struct ctx {
    jt_ledger_fold_t *fold; /* the ledger's fold, with its history */
    int64_t S, E;
    int64_t now; /* open leases run until min(now, E) */
    char **owners, **jobs, **envs;
    size_t nowners, njobs, nenvs;
};

/* The four reports' tables, in the order of their kinds: leases, runs,
 * usage, reservations (report_rows.c: fields, default columns, getters). */
enum { REPORT_LEASES, REPORT_RUNS, REPORT_USAGE, REPORT_RESERVATIONS, REPORT_KINDS };
extern const struct table report_tables[REPORT_KINDS];

#endif /* JT_CLI_REPORT_H */
