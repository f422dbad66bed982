/*
 * report_rows.c - how `jobtree report` prints its rows: each report's
 * fields (sacct's names), its default columns and the getter that formats
 * a field of a row (table.c prints them; cmd_report.c makes the rows).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "jobtree/timeutil.h"

/* ---- output ---- */

static void fmt_time (int64_t t, char *buf, size_t len)
{
    if (t < 0)
        snprintf (buf, len, "%s", "Unknown");
    else if (jt_time_format (t, buf, len) < 0)
        snprintf (buf, len, "%" PRId64, t);
}

static const struct field lease_fields[] = {
    { "Lease", 16, K_ID },     { "Run", 14, K_ID },       { "Group", 6, K_ID },
    { "Owner", 10, K_ID },     { "Envelope", 14, K_ID },  { "Role", 8, K_STR },
    { "GPUs", 6, K_NUM },      { "Nodes", 20, K_STR },    { "Start", 20, K_STR },
    { "End", 20, K_STR },      { "Reason", 16, K_ID },    { "Seed", 16, K_STR },
    { "GPUHours", 10, K_NUM },
};

/* The nodes joined with commas, cut to the buffer like a "%s" would be. */
static void join_nodes (const jt_fold_lease_t *l, char *b, size_t n)
{
    size_t k = 0;
    b[0] = '\0';
    for (size_t i = 0; i < l->nnodes && k + 1 < n; i++) {
        int w = snprintf (b + k, n - k, "%s%s", i ? "," : "", l->nodes[i]);
        if (w < 0)
            break;
        k += (size_t) w;
    }
}

static void lease_get (const void *row, int f, char *b, size_t n)
{
    const jt_fold_lease_t *l = &((const struct lrow *) row)->l;
    switch (f) {
    case 0: snprintf (b, n, "%s", l->lease); break;
    case 1: snprintf (b, n, "%s", l->run); break;
    case 2: snprintf (b, n, "%s", l->group); break;
    case 3: snprintf (b, n, "%s", l->owner); break;
    case 4: snprintf (b, n, "%s", l->envelope); break;
    case 5: snprintf (b, n, "%s", jt_role_str (l->role)); break;
    case 6: snprintf (b, n, "%" PRId64, l->gpus); break;
    case 7: join_nodes (l, b, n); break;
    case 8: fmt_time (l->start, b, n); break;
    case 9:
        if (l->end < 0)
            snprintf (b, n, "Running");
        else
            fmt_time (l->end, b, n);
        break;
    case 10: snprintf (b, n, "%s", l->end < 0 ? "" : jt_end_reason_str (l->reason)); break;
    case 11:
        if (l->seed)
            snprintf (b, n, "%016" PRIx64, l->seed);
        else
            b[0] = '\0';
        break;
    default: snprintf (b, n, "%.2f", ((const struct lrow *) row)->hours); break;
    }
}

static const struct field run_fields[] = {
    { "Run", 14, K_ID },
    { "Owner", 10, K_ID },
    { "Leases", 6, K_NUM },
    { "GPUs", 6, K_NUM },
    { "Start", 20, K_STR },
    { "End", 20, K_STR },
    { "Reasons", 16, K_ID },
    { "OwnedGPUHours", 13, K_NUM },
    { "BorrowedGPUHours", 16, K_NUM },
    { "GPUHours", 10, K_NUM },
};

static void run_get (const void *row, int f, char *b, size_t n)
{
    const struct urow *u = row;
    switch (f) {
    case 0: snprintf (b, n, "%s", u->key1); break;
    case 1: snprintf (b, n, "%s", u->key2); break;
    case 2: snprintf (b, n, "%" PRId64, u->leases); break;
    case 3: snprintf (b, n, "%" PRId64, u->gpus); break;
    case 4: fmt_time (u->start, b, n); break;
    case 5:
        if (u->end < 0)
            snprintf (b, n, "Running");
        else
            fmt_time (u->end, b, n);
        break;
    case 6: snprintf (b, n, "%s", u->reasons); break;
    case 7: snprintf (b, n, "%.2f", u->owned / 3600.0); break;
    case 8: snprintf (b, n, "%.2f", u->borrowed / 3600.0); break;
    default: snprintf (b, n, "%.2f", (u->owned + u->borrowed) / 3600.0); break;
    }
}

static const struct field usage_fields[] = {
    { "Owner", 10, K_ID },
    { "Envelope", 14, K_ID },
    { "Sponsor", 10, K_ID },
    { "Leases", 6, K_NUM },
    { "PeakGPUs", 8, K_NUM },
    { "OwnedGPUHours", 13, K_NUM },
    { "BorrowedGPUHours", 16, K_NUM },
    { "GPUHours", 10, K_NUM },
};

static void usage_get (const void *row, int f, char *b, size_t n)
{
    const struct urow *u = row;
    switch (f) {
    case 0: snprintf (b, n, "%s", u->key1); break;
    case 1: snprintf (b, n, "%s", u->key2); break;
    case 2: snprintf (b, n, "%s", u->sponsor ? u->sponsor : ""); break;
    case 3: snprintf (b, n, "%" PRId64, u->leases); break;
    case 4: snprintf (b, n, "%" PRId64, u->peak); break;
    case 5: snprintf (b, n, "%.2f", u->owned / 3600.0); break;
    case 6: snprintf (b, n, "%.2f", u->borrowed / 3600.0); break;
    default: snprintf (b, n, "%.2f", (u->owned + u->borrowed) / 3600.0); break;
    }
}

static const struct field res_fields[] = {
    { "Reservation", 14, K_ID }, { "Run", 14, K_ID },
    { "Owner", 10, K_ID },       { "Envelope", 14, K_ID },
    { "GPUs", 6, K_NUM },         { "EarliestStart", 20, K_STR },
    { "Created", 20, K_STR },     { "Activated", 20, K_STR },
    { "Released", 20, K_STR },
};

static void res_get (const void *row, int f, char *b, size_t n)
{
    const jt_fold_reservation_t *r = row;
    switch (f) {
    case 0: snprintf (b, n, "%s", r->reservation); break;
    case 1: snprintf (b, n, "%s", r->run); break;
    case 2: snprintf (b, n, "%s", r->owner); break;
    case 3: snprintf (b, n, "%s", r->envelope); break;
    case 4: snprintf (b, n, "%" PRId64, r->gpus); break;
    case 5: fmt_time (r->earliest, b, n); break;
    case 6: fmt_time (r->created, b, n); break;
    case 7: fmt_time (r->activated, b, n); break;
    default: fmt_time (r->released, b, n); break;
    }
}

#define NF(a) (sizeof (a) / sizeof ((a)[0]))

const struct table report_tables[REPORT_KINDS] = {
    { lease_fields, NF (lease_fields),
      "Lease,Run,Group,Owner,Envelope,Role,GPUs,Start,End,Reason,GPUHours", lease_get },
    { run_fields, NF (run_fields),
      "Run,Owner,Leases,GPUs,Start,End,Reasons,OwnedGPUHours,BorrowedGPUHours",
      run_get },
    { usage_fields, NF (usage_fields),
      "Owner,Envelope,Sponsor,Leases,PeakGPUs,OwnedGPUHours,BorrowedGPUHours,GPUHours",
      usage_get },
    { res_fields, NF (res_fields),
      "Reservation,Run,Owner,Envelope,GPUs,EarliestStart,Created,Activated,Released",
      res_get },
};

