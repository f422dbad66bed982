/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_sim.c - a trace for `jobtree sim` (jobtree-sim(1)): parsed as the
 * CLI parses it and, when it reads and is small, replayed on a small
 * cluster under two policies with every writer run, as the CLI does. */
#include "config.h"

#include <stdio.h>

#include "jobtree/budget.h"
#include "jobtree/error.h"
#include "jobtree/sim.h"
#include "fuzz.h"

static const char budget[] =
    "{ \"owner\": \"a\", \"envelopes\": [ { \"name\": \"a-h100\", \"flavor\": \"h100\","
    " \"selector\": {}, \"start\": \"2026-01-01T00:00:00Z\","
    " \"end\": \"2027-01-01T00:00:00Z\", \"concurrency\": 16,"
    " \"lending\": { \"allow\": true, \"to\": [\"*\"] } } ] }";

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static jt_budgets_t *b;
    static jt_snapshot_t *s;
    static const char *const pol[] = { "pack-to-empty", "split=1,borrow,maxwait=60" };
    jt_sim_trace_t t;
    jt_diags_t d;
    jt_error_t e;

    if (!b) {
        jt_diags_init (&d);
        b = jt_budgets_create ();
        if (!b || jt_budgets_add_json (b, "a.json", budget, sizeof (budget) - 1, &d) < 0
            || jt_budgets_finalize (b, &d) < 0 || !(s = jt_sim_cluster ("2x2x8:h100", &e)))
            abort ();
        jt_diags_free (&d);
    }
    jt_diags_init (&d);
    if (jt_sim_trace_parse ("t.csv", (const char *) data, size, &t, &d) == 0
        && t.n <= 32) {
        jt_sim_result_t *r[2] = { NULL, NULL };
        jt_sim_opts_t o;
        FILE *f = fopen ("/dev/null", "w");

        jt_sim_opts_init (&o);
        o.sample = 86400;
        for (size_t i = 0; i < 2; i++) {
            jt_sim_policy_t p;
            if (jt_sim_policy_parse (pol[i], &p, &e) < 0
                || !(r[i] = jt_sim_run (&t, b, s, &p, &o, &e)))
                abort ();
        }
        if (f) {
            jt_sim_print_table (f, r, 2);
            jt_sim_write_summary_csv (f, r, 2);
            jt_sim_write_owners_csv (f, r, 2);
            jt_sim_write_jobs_csv (f, r, 2);
            jt_sim_write_timeline_csv (f, r, 2);
            jt_sim_write_json (f, r, 2);
            fclose (f);
        }
        jt_sim_result_destroy (r[0]);
        jt_sim_result_destroy (r[1]);
    }
    jt_sim_trace_free (&t);
    jt_diags_free (&d);
    return 0;
}
