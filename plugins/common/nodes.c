/*
 * nodes.c - slurmctld's node table as snapshot nodes (see nodes.h).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <inttypes.h>
#include <string.h>

#include "compat.h"
#include "nodes.h"

#include <jobtree/nodemap.h>

static int is_gpu (void *x, void *key)
{
    gres_state_t *gs = x;

    (void) key;
    return gs->gres_name && !strcmp (gs->gres_name, "gpu") && gs->gres_data;
}

/* The node's gpu GRES state, or NULL (no allocation: list_find_first). */
static gres_node_state_t *gpu_state (node_record_t *node_ptr)
{
    gres_state_t *gs;

    if (!node_ptr->gres_list)
        return NULL;
    gs = list_find_first_ro (node_ptr->gres_list, is_gpu, "gpu");
    return gs ? gs->gres_data : NULL;
}

uint64_t jtc_node_gpus_avail (node_record_t *node_ptr)
{
    gres_node_state_t *ns = gpu_state (node_ptr);

    return ns ? ns->gres_cnt_avail : UINT64_MAX;
}

uint64_t jtc_node_gpus_alloc (node_record_t *node_ptr)
{
    gres_node_state_t *ns = gpu_state (node_ptr);

    return ns ? ns->gres_cnt_alloc : 0;
}

/* The node's gpu GRES as GRES text ("gpu:h100:8", one entry per type;
 * xfree it). NULL when it has none. */
static char *node_gres (node_record_t *node_ptr)
{
    gres_node_state_t *ns = gpu_state (node_ptr);
    char *gres = NULL;

    if (!ns)
        return NULL;
    for (int i = 0; i < ns->type_cnt && ns->type_name; i++)
        if (ns->type_name[i])
            xstrfmtcat (gres, "%sgpu:%s:%" PRIu64, gres ? "," : "",
                        ns->type_name[i], ns->type_cnt_avail[i]);
    if (!gres)
        xstrfmtcat (gres, "gpu:%" PRIu64, ns->gres_cnt_avail);
    return gres;
}

/* Active features (a node_features plugin may change them), else the
 * configured ones. */
const char *jtc_node_features (node_record_t *node_ptr)
{
    return node_ptr->features_act ? node_ptr->features_act : node_ptr->features;
}

/* slurmctld's node state as the library's flags. */
unsigned jtc_node_flags (node_record_t *node_ptr)
{
    return (IS_NODE_DOWN (node_ptr) ? JT_NODEMAP_DOWN : 0)
           | (IS_NODE_UNKNOWN (node_ptr) ? JT_NODEMAP_UNKNOWN : 0)
           | (IS_NODE_FUTURE (node_ptr) ? JT_NODEMAP_FUTURE : 0)
           | (IS_NODE_ALLOCATED (node_ptr) ? JT_NODEMAP_ALLOCATED : 0)
           | (IS_NODE_MIXED (node_ptr) ? JT_NODEMAP_MIXED : 0)
           | (IS_NODE_FAIL (node_ptr) ? JT_NODEMAP_FAIL : 0)
           | (IS_NODE_NO_RESPOND (node_ptr) ? JT_NODEMAP_NO_RESPOND : 0)
           | (IS_NODE_POWERED_DOWN (node_ptr) ? JT_NODEMAP_POWERED_DOWN : 0)
           | (IS_NODE_DRAIN (node_ptr) ? JT_NODEMAP_DRAIN : 0)
           | (IS_NODE_COMPLETING (node_ptr) ? JT_NODEMAP_COMPLETING : 0);
}

int jtc_nodes_add (jt_snapshot_t *s, const char *domain_key,
                   jtc_nodes_mode_t mode, jt_error_t *err)
{
    static bool said, said_sizes;
    jtc_leaves_t leaves;
    node_record_t *node_ptr;
    int rc = 0, unsupported;

    if ((unsupported = jtc_leaf_switches (&leaves)) && !said) {
        said = true;
        info ("jobtree: the cluster's default topology is %s, which gives Jobtree no "
              "domains yet: each node's domain comes from its %s feature (nodes "
              "without one are in no domain); use topology/tree or topology/block "
              "for domains from the topology",
              jtc_topology_unsupported (unsupported),
              domain_key ? domain_key : "fabric.domain");
    }
    for (int i = 0; rc >= 0 && (node_ptr = next_node (&i)); i++) {
        jt_nodemap_node_t nm = {
            .name = node_ptr->name,
            .features = jtc_node_features (node_ptr),
            .leaf_switch = (int) node_ptr->index < node_record_count
                           ? leaves.leaf[node_ptr->index] : NULL,
        };
        for (int k = 0; k < JT_LEVELS_MAX; k++)
            if (leaves.up[k] && (int) node_ptr->index < node_record_count)
                nm.up_switch[k] = leaves.up[k][node_ptr->index];
        char *gres = NULL;

        if (mode == JTC_NODES_CONFIGURED) {
            /* slurm.conf's GRES: what the node could ever offer */
            nm.gres = node_ptr->config_ptr && node_ptr->config_ptr->gres
                      ? node_ptr->config_ptr->gres : node_ptr->gres;
        } else {
            nm.flags = jtc_node_flags (node_ptr);
            nm.used_gpus = jtc_node_gpus_alloc (node_ptr);
            nm.gres = gres = node_gres (node_ptr);
        }
        rc = jt_nodemap_add (s, &nm, domain_key, err);
        xfree (gres);
    }
    /* topology/block's own rule (jt_pack_block_confine), on the levels
     * named, when its base blocks are the domains */
    if (rc >= 0 && leaves.nblock
        && !strcmp (domain_key ? domain_key : JT_LABEL_FABRIC, JT_LABEL_FABRIC)) {
        size_t n = jt_snapshot_block_sizes_named (s, (size_t) leaves.nblock);
        rc = jt_snapshot_set_block_nodes (s, leaves.block_nodes, n, err);
        if (rc == 0 && (size_t) leaves.nblock > n && !said_sizes) {
            said_sizes = true;
            info ("jobtree: topology/block has %d block sizes above the base "
                  "block; FabricLevels names %zu: Slurm takes a run of more "
                  "than %" PRIu32 " nodes inside one block of a size Jobtree "
                  "does not place by (name every size in FabricLevels)",
                  leaves.nblock - 1, s->nlevels, leaves.block_nodes[n - 1]);
        }
    }
    jtc_leaf_switches_free (&leaves);
    return rc < 0 ? -1 : 0;
}
