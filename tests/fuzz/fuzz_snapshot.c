/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_snapshot.c - a snapshot document (jobtree-snapshot(5)), and its
 * canonical form read back. */
#include "config.h"

#include "jobtree/error.h"
#include "jobtree/snapshot.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    jt_diags_t d;
    jt_diags_init (&d);
    jt_snapshot_t *s = jt_snapshot_parse_json ("s.json", (const char *) data, size, &d);
    if (s) {
        char *js = jt_snapshot_to_json (s);
        if (js) {
            jt_snapshot_t *t = jt_snapshot_parse_json ("t.json", js, strlen (js), &d);
            if (!t)
                abort ();       /* the canonical form must read back */
            jt_snapshot_destroy (t);
            free (js);
        }
    }
    jt_snapshot_destroy (s);
    jt_diags_free (&d);
    return 0;
}
