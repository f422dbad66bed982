/*
 * compat_topo_records.h - the leaves from the topology plugin's own
 * records, for releases that keep the switch and block tables inside the
 * topology plugin (24.11 and 26.05). Included by compat_2411.h and
 * compat_2605.h after they define JTC_TOPO_GET_RECORDS and
 * JTC_TOPO_FREE_RECORDS. The record types below are the plugins' own,
 * kept in their .c files and the same in 24.11 and 26.05
 * (topology_tree.c@26.05.3:82-87, topology_block.c@26.05.3:75-86).
 *
 * Work: one pass over the records, then one over each leaf's bitmap range
 * (topology_g_get_bitmap), so O(leaves + nodes).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_PLUGIN_COMPAT_TOPO_RECORDS_H
#define JT_PLUGIN_COMPAT_TOPO_RECORDS_H

/* The tree plugin's private record list (topology_tree.c:104). */
typedef struct jtc_topoinfo_tree {
    uint32_t record_count;
    topo_info_t *topo_array;
} jtc_topoinfo_tree_t;
/* The block plugin's (src/plugins/topology/block/topology_block.c:94-105):
 * the base blocks (BlockName=, not aggregated) first, then the aggregated
 * ones. */
typedef struct jtc_bblock {
    bool aggregated;
    uint16_t block_index;
    char *name;
    char *nodes;
    uint32_t size;
} jtc_bblock_t;
typedef struct jtc_topoinfo_block {
    uint32_t record_count;
    jtc_bblock_t *topo_array;
} jtc_topoinfo_block_t;

/* Record one switch of a level (0: a leaf): a copy of its name, its
 * nodes marked. */
static inline void jtc_leaves_add (jtc_leaves_t *l, int level, const char *name)
{
    l->names[l->nnames] = xstrdup (name);
    jtc_leaves_mark_level (l, level,
                           topology_g_get_bitmap (l->names[l->nnames]),
                           l->names[l->nnames]);
    l->nnames++;
}

/* The aggregated blocks' sizes, smallest first, at most JT_LEVELS_MAX:
 * BlockSizes=4,8,16 gives the 8- and 16-node sizes, so an 8-node block is
 * level 1 and a 16-node one level 2 (jtc_block_level). One pass. */
static inline int jtc_block_sizes (const jtc_topoinfo_block_t *blk,
                                   uint32_t sizes[JT_LEVELS_MAX])
{
    int n = 0;

    for (uint32_t s = 0; s < blk->record_count; s++) {
        uint32_t z = blk->topo_array[s].size;
        int i = 0;
        if (!blk->topo_array[s].aggregated)
            continue;
        while (i < n && sizes[i] < z)
            i++;
        if ((i < n && sizes[i] == z) || i == JT_LEVELS_MAX)
            continue;
        if (n < JT_LEVELS_MAX)
            n++;
        memmove (sizes + i + 1, sizes + i, (size_t) (n - 1 - i) * sizeof (*sizes));
        sizes[i] = z;
    }
    return n;
}

/* The level of a block of `size` nodes: 0 for a base block, else 1 + its
 * size's rank; JT_LEVELS_MAX + 1 (ignored) past the sizes kept. */
static inline int jtc_block_level (const uint32_t *sizes, int n, bool aggregated,
                                   uint32_t size)
{
    if (!aggregated)
        return 0;
    for (int i = 0; i < n; i++)
        if (sizes[i] == size)
            return i + 1;
    return JT_LEVELS_MAX + 1;
}

/* The cluster-default topology's leaves: topology/tree's level-0 switches,
 * topology/block's base blocks (each a domain, as a leaf switch is under
 * topology/tree), and above them the tree's switches of levels 1, 2, ...
 * and the block plugin's aggregated blocks by size (BlockSizes); any other
 * plugin: none. Returns the plugin's id when it is one that has units but
 * gives no domains yet (ring, torus3d), else 0. */
static inline int jtc_leaf_switches (jtc_leaves_t *l)
{
    dynamic_plugin_data_t *dyn = NULL;
    int id = topology_get_plugin_id ();

    l->leaf = xcalloc (node_record_count > 0 ? node_record_count : 1,
                       sizeof (*l->leaf));
    l->names = NULL;
    l->nnames = 0;
    memset (l->up, 0, sizeof (l->up));
    l->nblock = 0;
    if (id != TOPOLOGY_PLUGIN_TREE && id != TOPOLOGY_PLUGIN_BLOCK)
        return jtc_topology_unsupported (id) ? id : 0;
    if (JTC_TOPO_GET_RECORDS (&dyn) != SLURM_SUCCESS || !dyn)
        return 0;
    if (dyn->data && dyn->plugin_id == TOPOLOGY_PLUGIN_TREE) {
        jtc_topoinfo_tree_t *tree = dyn->data;
        if (tree->record_count > 0 && tree->record_count < (1u << 20)) {
            l->names = xcalloc (tree->record_count, sizeof (*l->names));
            for (uint32_t s = 0; s < tree->record_count; s++)
                if (tree->topo_array[s].level <= JT_LEVELS_MAX
                    && tree->topo_array[s].name)
                    jtc_leaves_add (l, tree->topo_array[s].level,
                                    tree->topo_array[s].name);
        }
    } else if (dyn->data && dyn->plugin_id == TOPOLOGY_PLUGIN_BLOCK) {
        jtc_topoinfo_block_t *blk = dyn->data;
        if (blk->record_count > 0 && blk->record_count < (1u << 20)) {
            l->names = xcalloc (blk->record_count, sizeof (*l->names));
            uint32_t sizes[JT_LEVELS_MAX];
            int nsizes = jtc_block_sizes (blk, sizes);
            /* a base block's record size is the plugin's base node count
             * (topology_block.c@26.05.3:452-455): Slurm's rule counts in it */
            for (uint32_t s = 0; s < blk->record_count && !l->nblock; s++)
                if (!blk->topo_array[s].aggregated && blk->topo_array[s].size) {
                    l->block_nodes[l->nblock++] = blk->topo_array[s].size;
                    for (int k = 0; k < nsizes; k++)
                        l->block_nodes[l->nblock++] = sizes[k];
                }
            for (uint32_t s = 0; s < blk->record_count; s++) {
                int level = jtc_block_level (sizes, nsizes,
                                             blk->topo_array[s].aggregated,
                                             blk->topo_array[s].size);
                if (blk->topo_array[s].name && level <= JT_LEVELS_MAX)
                    jtc_leaves_add (l, level, blk->topo_array[s].name);
            }
        }
    }
    JTC_TOPO_FREE_RECORDS (dyn);
    return 0;
}

#endif /* JT_PLUGIN_COMPAT_TOPO_RECORDS_H */
