/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_topoconf.c - a topology.conf as `jobtree snapshot` reads it
 * (jobtree/topoconf.h), for both kinds: each leaf has a name and a host
 * list; each leaf's units above it are records of that level; the switch
 * tree's levels and topology/block's sizes stay in their bounds; and the
 * same text as topology.yaml (jt_topoyaml_read). */
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
            for (size_t i = 0; i < l.n; i++) {
                if (!l.v[i].name[0] || !l.v[i].nodes[0] || l.v[i].line < 1)
                    abort ();
                for (int j = 0; j < JT_LEVELS_MAX; j++)
                    if (l.v[i].up[j] >= (long) l.nup
                        || (l.v[i].up[j] >= 0 && l.up[l.v[i].up[j]].level != j + 1))
                        abort ();       /* a unit of another level */
            }
            for (size_t i = 0; i < l.nup; i++)
                if (!l.up[i].name || l.up[i].level < 1 || l.up[i].level > JT_LEVELS_MAX
                    || l.up[i].level > l.levels || (i && l.up[i].level < l.up[i - 1].level
                                                    && k))
                    abort ();
            if (l.nblock > JT_LEVELS_MAX + 1 || l.nblock > l.nsizes || (k == 0 && l.nsizes))
                abort ();
            for (size_t i = 0; i < l.nblock; i++)
                if (l.block_nodes[i] < 1 || l.block_nodes[i] > JT_TOPOCONF_BLOCK_NODES_MAX
                    || (i && l.block_nodes[i] <= l.block_nodes[i - 1]))
                    abort ();   /* as jt_snapshot_set_block_nodes takes them */
        } else if (l.n != 0 || l.nup != 0 || l.nblock != 0 || d.n == 0) {
            abort ();   /* a failure leaves nothing and says why */
        }
        jt_topo_leaves_free (&l);
        jt_diags_free (&d);
    }
    {
        /* the same text as topology.yaml */
        jt_topo_kind_t kind = JT_TOPO_TREE;
        jt_topo_leaves_t l;
        jt_diags_t d;
        int rc;
        jt_diags_init (&d);
        rc = jt_topoyaml_read ("topology.yaml", (const char *) data, size, NULL, &kind,
                               &l, &d);
        if ((rc != 0 && (l.n != 0 || l.nup != 0 || l.nblock != 0))
            || (rc < 0 && d.n == 0))
            abort ();   /* a failure leaves nothing and says why */
        for (size_t i = 0; rc == 0 && i < l.n; i++)
            for (int j = 0; j < JT_LEVELS_MAX; j++)
                if (l.v[i].up[j] >= (long) l.nup)
                    abort ();
        jt_topo_leaves_free (&l);
        jt_diags_free (&d);
    }
    return 0;
}
