/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_text.c - the small text parsers: times and durations (budgets, run
 * files, --checkpoint, jobtree report -S/-E), Slurm node features
 * (key=value labels) and GPU GRES strings (sbatch's requests, node GRES). */
#include "config.h"

#include "jobtree/error.h"
#include "jobtree/gres.h"
#include "jobtree/labels.h"
#include "jobtree/timeutil.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr (data, size), type[128];
    int64_t v, t;
    jt_error_t err;
    jt_labels_t l = JT_LABELS_INIT;
    if (!s)
        return 0;
    (void) jt_time_parse (s, &v, &err);
    (void) jt_duration_parse (s, &v, &err);
    (void) jt_labels_parse_features (&l, s);
    jt_labels_free (&l);
    if (jt_gres_gpu_req (s, type, sizeof (type), &v) == 1) {
        (void) jt_gres_total (v, JT_GRES_PER_NODE, 1 + (int64_t) (size % 4096), 0, &t);
        (void) jt_gres_total (v, JT_GRES_PER_SOCKET, 1 + (int64_t) size, 2, &t);
    }
    free (s);
    return 0;
}
