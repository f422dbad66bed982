/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_run.c - a run document (jobtree-run(5)), validated, compiled and
 * serialised as job_submit and the select plugin do. */
#include "config.h"

#include "jobtree/error.h"
#include "jobtree/run.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    jt_diags_t d;
    jt_error_t err;
    jt_diags_init (&d);
    jt_run_t *r = jt_run_parse_json ("r.json", (const char *) data, size, &d);
    if (r && jt_run_validate (r, 8, &err) == 0) {
        jt_groups_t g;
        if (jt_run_compile (r, r->total_gpus, &g, &err) == 0)
            jt_groups_free (&g);
        (void) jt_run_gpu_hours (r, r->total_gpus);
        free (jt_run_to_json (r));
    }
    jt_run_destroy (r);
    jt_diags_free (&d);
    return 0;
}
