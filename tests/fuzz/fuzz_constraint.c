/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_constraint.c - a --node-constraint value as sbatch and job_submit
 * get it ("EXPR[;EXPR...]"), then what Pack and admission do with the set:
 * canonical text (which must parse back to itself), evaluation on a node,
 * and the submission check over a small snapshot. */
#include "config.h"

#include "jobtree/constraint.h"
#include "fuzz.h"

static jt_snapshot_t *snap;

static void node (const char *name, const char *features)
{
    jt_labels_t l = JT_LABELS_INIT;
    jt_labels_parse_features (&l, features);
    jt_snapshot_add_node (snap, name, &l, "h100", 8, 0, JT_NODE_UP, NULL);
    jt_labels_free (&l);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr (data, size), line[512];
    jt_constraints_t set = JT_CONSTRAINTS_INIT, back = JT_CONSTRAINTS_INIT;
    jt_error_t err;

    if (!snap) {
        snap = jt_snapshot_create ();
        node ("a01", "fabric.domain=A,gpu.mem=80,rack=r1,rack.row=3");
        node ("a02", "fabric.domain=A,gpu.mem=80GB,rack=r2,taint:maint=1");
        node ("b01", "fabric.domain=B,gpu.mem=-0.5,tpu-name=v4-a");
        jt_snapshot_finalize (snap, NULL);
    }
    if (text && jt_constraints_add (&set, text, &err) == 0 && set.n > 0) {
        int n = jt_constraints_format (&set, NULL, 0);
        char *canon = malloc ((size_t) n + 1), *again;
        if (canon) {
            jt_constraints_format (&set, canon, (size_t) n + 1);
            if (jt_constraints_add (&back, canon, &err) != 0 || back.n != set.n)
                abort ();   /* the canonical text must read back */
            again = malloc ((size_t) n + 1);
            if (again) {
                jt_constraints_format (&back, again, (size_t) n + 1);
                if (strcmp (canon, again) != 0)
                    abort ();
                free (again);
            }
            free (canon);
        }
        for (size_t i = 0; i < snap->nnodes; i++)
            (void) jt_constraints_match (&set, &snap->nodes[i].labels);
        (void) jt_constraints_vet (&set, "rack", snap, "h100", line, sizeof (line));
    }
    jt_constraints_free (&set);
    jt_constraints_free (&back);
    free (text);
    return 0;
}
