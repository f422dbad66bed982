/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_topoconf.c - a topology.conf as `jobtree snapshot` reads it on
 * Slurm 24.11 (jobtree/topoconf.h), for both kinds of leaves: each leaf
 * has a name and a host list, and names are unique. */
#include "config.h"

#include "jobtree/topoconf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    for (int k = 0; k < 2; k++) {
        jt_topo_leaves_t l;
        jt_diags_t d;
        jt_diags_init (&d);
        if (jt_topoconf_leaves ("topology.conf", (const char *) data, size,
                                k ? JT_TOPO_BLOCK : JT_TOPO_TREE, &l, &d) == 0) {
            for (size_t i = 0; i < l.n; i++)
                if (!l.v[i].name[0] || !l.v[i].nodes[0] || l.v[i].line < 1)
                    abort ();
        } else if (l.n != 0 || d.n == 0) {
            abort ();   /* a failure leaves nothing and says why */
        }
        jt_topo_leaves_free (&l);
        jt_diags_free (&d);
    }
    return 0;
}
