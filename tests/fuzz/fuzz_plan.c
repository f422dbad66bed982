/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_plan.c - the whole decision on small structured inputs: a budget
 * file, a snapshot and a run, separated by lines "----", planned at a
 * fixed time under both pack policies (what job_test does per call). */
#include "config.h"

#include "jobtree/budget.h"
#include "jobtree/error.h"
#include "jobtree/plan.h"
#include "jobtree/run.h"
#include "jobtree/snapshot.h"
#include "fuzz.h"

#define SEP "\n----\n"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr (data, size), *part[3];
    if (!text)
        return 0;
    part[0] = text;
    for (int i = 1; i < 3; i++) {
        char *sep = part[i - 1] ? strstr (part[i - 1], SEP) : NULL;
        if (sep) {
            *sep = '\0';
            part[i] = sep + strlen (SEP);
        } else
            part[i] = NULL;
    }
    if (!part[2]) {
        free (text);
        return 0;
    }
    jt_diags_t d;
    jt_error_t err;
    jt_diags_init (&d);
    jt_budgets_t *b = jt_budgets_create ();
    jt_snapshot_t *s = NULL;
    jt_run_t *r = NULL;
    if (b && jt_budgets_add_json (b, "b.json", part[0], strlen (part[0]), &d) == 0
        && jt_budgets_finalize (b, &d) == 0
        && (s = jt_snapshot_parse_json ("s.json", part[1], strlen (part[1]), &d))
        && (r = jt_run_parse_json ("r.json", part[2], strlen (part[2]), &d))
        && jt_run_validate (r, 0, &err) == 0) {
        int64_t now = 1772366400; /* 2026-03-01T12:00:00Z */
        for (int p = 0; p < 2; p++) {
            jt_plan_opts_t o = { .policy = p ? JT_PACK_BEST_FIT : JT_PACK_TO_EMPTY };
            jt_plan_t plan;
            if (jt_plan_run (b, s, NULL, r, now, &o, &plan, &err) == 0) {
                free (jt_plan_to_json (&plan, s));
                jt_plan_free (&plan);
            }
        }
    }
    jt_run_destroy (r);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
    jt_diags_free (&d);
    free (text);
    return 0;
}
