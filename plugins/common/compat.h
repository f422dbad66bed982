/*
 * compat.h - what the Jobtree plugins need from Slurm, the same on every
 * supported release. Each release's differences live in its own adapter:
 *
 *   compat_2205.h, select_ops_2205.c, preempt_ops_2205.c   Slurm 22.05 (Debian 12)
 *   compat_2411.h, select_ops_2411.c (preempt_ops_2205.c)   Slurm 24.11 (Debian 13)
 *   compat_2605.h, select_ops_2605.c, preempt_ops_2605.c   Slurm 26.05 (upstream)
 *
 * configure picks the release's files from the Slurm source tree's version
 * (m4/x_ac_slurm.m4: SLURM_SERIES) and names its header in JTC_SERIES_H;
 * an unknown release stops configure. The plugin bodies carry no version
 * test: they use the names below, which each adapter defines. The table of
 * what differs and the Slurm source line that forced each difference is in
 * docs/slurm-versions.md.
 *
 * Include after "config.h" and "src/common/slurm_xlator.h".
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_PLUGIN_COMPAT_H
#define JT_PLUGIN_COMPAT_H

#include "slurm/slurm.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/hostlist.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "jobtree/snapshot.h"     /* JT_LEVELS_MAX */

#ifndef JTC_SERIES_H
#error "JTC_SERIES_H is not defined: build the plugins through configure (--with-slurm-source)"
#endif

/*
 * The leaf (level 0) switch of every node, by node index: the first leaf
 * listing it, NULL for none; node_record_count entries, xmalloc'd, freed
 * with jtc_leaf_switches_free. Filled by the release's jtc_leaf_switches
 * (topology/tree's leaf switches, topology/block's base blocks, of the
 * cluster-default topology: topology.yaml's cluster_default since 25.05;
 * other topology plugins: none, the domains come from node features).
 */
typedef struct jtc_leaves {
    const char **leaf;  /* by node index */
    const char **up[JT_LEVELS_MAX];     /* by node index: the switch above
                                         * it at level 1, 2, ... (tree
                                         * only); NULL arrays until one */
    char **names;       /* owned copies (24.11 and later) */
    int nnames;
    /* topology/block: the nominal nodes of a base block, then of each
     * aggregated size (jt_snapshot_set_block_nodes); nblock 0 otherwise */
    uint32_t block_nodes[JT_LEVELS_MAX + 1];
    int nblock;
} jtc_leaves_t;

/* The topology plugins that have units but give Jobtree no domains yet,
 * by their stable plugin ids (slurm/slurm.h@26.05.3:1312-1316): 101
 * topology/torus3d (3d_torus before 25.05), 104 topology/ring (26.05).
 * Their nodes' domains come from fabric.domain features. NULL otherwise. */
static inline const char *jtc_topology_unsupported (int plugin_id)
{
    return plugin_id == 101 ? "topology/torus3d"
           : plugin_id == 104 ? "topology/ring" : NULL;
}

/* Mark every node of bm (a leaf's bitmap) as under leaf `name`, unless an
 * earlier leaf has it (defined below, once Slurm's headers are in). */
static inline void jtc_leaves_mark (jtc_leaves_t *l, bitstr_t *bm,
                                    const char *name);
/* The same for a switch of level `level` (0: the leaf; above
 * JT_LEVELS_MAX: ignored). */
static inline void jtc_leaves_mark_level (jtc_leaves_t *l, int level,
                                          bitstr_t *bm, const char *name);

#include JTC_SERIES_H

/* Every non-SPANK plugin must carry the exact release it was built
 * against: slurmctld compares major.minor.micro (src/common/plugin.c
 * @26.05.3:72,104-113; the same in 22.05 and 24.11). */
#define JTC_PLUGIN_VERSION SLURM_VERSION_NUMBER

/* Whether a job holds its nodes alone: --exclusive or a partition with
 * OverSubscribe=EXCLUSIVE (max_share 0: cons_tres's NODE_CR_RESERVED). */
#define JTC_JOB_ALONE(j)                                                    \
    (((j)->details && JTC_WHOLE_NODE ((j)->details))                        \
     || ((j)->part_ptr && (j)->part_ptr->max_share == 0))

/* One pass over the bitmap's range. */
static inline void jtc_leaves_mark_level (jtc_leaves_t *l, int level,
                                          bitstr_t *bm, const char *name)
{
    const char **v;
    int first, last;

    if (level < 0 || level > JT_LEVELS_MAX || !bm || (first = bit_ffs (bm)) < 0)
        return;
    if (level == 0)
        v = l->leaf;
    else {
        if (!l->up[level - 1])
            l->up[level - 1] = xcalloc (node_record_count > 0
                                        ? node_record_count : 1,
                                        sizeof (*l->leaf));
        v = l->up[level - 1];
    }
    last = bit_fls (bm);
    for (int i = first; i <= last && i < node_record_count; i++)
        if (!v[i] && bit_test (bm, i))
            v[i] = name;
}

static inline void jtc_leaves_mark (jtc_leaves_t *l, bitstr_t *bm,
                                    const char *name)
{
    jtc_leaves_mark_level (l, 0, bm, name);
}

static inline void jtc_leaf_switches_free (jtc_leaves_t *l)
{
    for (int i = 0; i < l->nnames; i++)
        xfree (l->names[i]);
    xfree (l->names);
    xfree (l->leaf);
    for (int k = 0; k < JT_LEVELS_MAX; k++)
        xfree (l->up[k]);
    l->nnames = 0;
}

#endif /* JT_PLUGIN_COMPAT_H */
