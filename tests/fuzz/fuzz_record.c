/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_record.c - the Jobtree record in a job's admin_comment, as the
 * select plugin and jobtree snapshot read it back (src/lib/record.c), and
 * re-formatted from what was read (what job_submit writes); and what the
 * select plugin decides on it when nodes fail (jobtree/spares.h: every
 * other bound node held), the swapped record read back, and the layout. */
#include "config.h"

#include "jobtree/error.h"
#include "jobtree/record.h"
#include "jobtree/spares.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr (data, size);
    jt_error_t err;
    jt_jobrec_t r;

    if (!s)
        return 0;
    if (jt_jobrec_parse (s, &r, &err) == 0) {
        const char **held = NULL;
        size_t n = 0, k = 0;
        jt_spares_decision_t d;

        free (jt_jobrec_format (r.run, NULL));
        free (jt_spares_layout_json (&r, 42, &err));
        for (size_t i = 0; i < r.nbound; i++)
            n += r.bound[i].nnodes + r.bound[i].nspares;
        if ((held = calloc (n + 1, sizeof (*held)))) {
            for (size_t i = 0; i < r.nbound; i++)
                for (size_t j = 0; j < r.bound[i].nnodes + r.bound[i].nspares; j++)
                    if (((i + j) & 1) == 0)
                        held[k++] = j < r.bound[i].nnodes ? r.bound[i].nodes[j]
                                    : r.bound[i].spares[j - r.bound[i].nnodes];
            if (jt_spares_on_fail (s, held, k, 1767225600, &d, &err) == 0) {
                jt_jobrec_t again;
                if (d.record && jt_jobrec_parse (d.record, &again, &err) == 0)
                    jt_jobrec_free (&again);
                jt_spares_decision_free (&d);
            }
            free (held);
        }
        jt_jobrec_free (&r);
    }
    free (s);
    return 0;
}
