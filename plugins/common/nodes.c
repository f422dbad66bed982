/*
 * nodes.c - slurmctld's node table as snapshot nodes (see nodes.h).
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <inttypes.h>
#include <string.h>

#include "compat.h"
#include "nodes.h"

#include <jobtree/nodemap.h>

/* The node's gpu GRES as GRES text (xfree it) and its GPUs allocated. */
static char *node_gres (node_record_t *node_ptr, uint64_t *alloc)
{
    ListIterator it;
    gres_state_t *gs;
    char *gres = NULL;

    *alloc = 0;
    if (!node_ptr->gres_list)
        return NULL;
    it = list_iterator_create (node_ptr->gres_list);
    while ((gs = list_next (it))) {
        gres_node_state_t *ns = gs->gres_data;
        if (!gs->gres_name || strcmp (gs->gres_name, "gpu") || !ns)
            continue;
        for (int i = 0; i < ns->type_cnt && ns->type_name; i++)
            if (ns->type_name[i])
                xstrfmtcat (gres, "%sgpu:%s:%" PRIu64, gres ? "," : "",
                            ns->type_name[i], ns->type_cnt_avail[i]);
        if (!gres)
            xstrfmtcat (gres, "gpu:%" PRIu64, ns->gres_cnt_avail);
        *alloc = ns->gres_cnt_alloc;
        break;
    }
    list_iterator_destroy (it);
    return gres;
}

static unsigned node_flags (node_record_t *node_ptr)
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

int jtc_nodes_add (jt_snapshot_t *s, const char *domain_key, jt_error_t *err)
{
    jtc_leaves_t leaves;
    node_record_t *node_ptr;
    int rc = 0;

    jtc_leaf_switches (&leaves);
    for (int i = 0; rc >= 0 && (node_ptr = next_node (&i)); i++) {
        jt_nodemap_node_t nm = {
            .name = node_ptr->name,
            /* active features (a node_features plugin may change them),
             * else the configured ones */
            .features = node_ptr->features_act ? node_ptr->features_act
                                               : node_ptr->features,
            .flags = node_flags (node_ptr),
            .leaf_switch = leaves.leaf[node_ptr->index],
        };
        char *gres = node_gres (node_ptr, &nm.used_gpus);

        nm.gres = gres;
        rc = jt_nodemap_add (s, &nm, domain_key, err);
        xfree (gres);
    }
    jtc_leaf_switches_free (&leaves);
    return rc < 0 ? -1 : 0;
}
