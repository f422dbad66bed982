/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_options.c - a job's SPANK environment as job_submit reads it (one
 * "NAME=VALUE" per line), then the run validated and compiled. */
#include "config.h"

#include "jobtree/error.h"
#include "jobtree/options.h"
#include "jobtree/run.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr (data, size), *env[64], *save = NULL;
    size_t n = 0;
    jt_error_t err;
    if (!text)
        return 0;
    for (char *l = strtok_r (text, "\n", &save); l && n < 64;
         l = strtok_r (NULL, "\n", &save))
        env[n++] = l;
    jt_run_t *r = jt_run_create ();
    if (r && jt_opts_from_env (r, env, n, &err) > 0) {
        r->owner = strdup ("rai");
        r->flavor = strdup ("h100");
        if (r->total_gpus < 1)
            r->total_gpus = r->malleable ? r->min_gpus : 8;
        if (jt_run_validate (r, 8, &err) == 0) {
            jt_groups_t g;
            if (jt_run_compile (r, r->total_gpus, &g, &err) == 0)
                jt_groups_free (&g);
        }
    }
    jt_run_destroy (r);
    free (text);
    return 0;
}
