/*
 * topology.c - the cluster as libjobtree sees it, built from slurmctld's
 * node and switch tables (the leaf switches: compat.h) and its running jobs.
 *
 * This file only reads slurmctld's structures: each node's features, gpu
 * GRES (as GRES text) and GPUs allocated, state bits and topology.conf leaf
 * switch, and each running Jobtree job's record. What that makes in the
 * snapshot (labels, domain or leaf-switch fallback, flavor, GPUs, used
 * GPUs, state, which nodes are labelled, the leases of bound funding) is
 * libjobtree's nodemap (jobtree/nodemap.h), the same code `jobtree
 * snapshot` calls through libslurm, so its snapshots predict this plugin.
 */
#include "config.h"

/* Slurm's own plugins include this first: it renames libslurm calls to
 * their exported slurm_* aliases, so the plugin also loads in clients
 * linked with libslurm.so. */
#include "src/common/slurm_xlator.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


#include "select_jobtree.h"

/* The node's gpu GRES as GRES text ("gpu:h100:8", one entry per type;
 * xfree it) and its GPUs allocated. NULL when it has none. */
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

/* slurmctld's node state as the library's flags. */
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

static int add_nodes (jt_snapshot_t *s, const char *domain_key, jt_error_t *err)
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

/* Keep only the bound nodes the job still holds (a shrink, by scontrol or
 * by an activation's cut, or a node failure under --no-kill removes nodes
 * from the job but not from its record): each lease keeps its GPUs per
 * node times what is left, as the ledger's lease derivation does. */
static void still_held (jt_jobrec_t *rec, const job_record_t *job_ptr)
{
    for (size_t i = 0; i < rec->nbound && job_ptr->node_bitmap; i++) {
        jt_jobrec_lease_t *b = &rec->bound[i];
        size_t kept = 0, n = b->nnodes;
        int64_t per = n ? b->gpus / (int64_t) n : 0;

        for (size_t k = 0; k < n; k++) {
            node_record_t *node_ptr = find_node_record (b->nodes[k]);
            if (node_ptr && bit_test (job_ptr->node_bitmap, node_ptr->index))
                b->nodes[kept++] = b->nodes[k];
            else
                free (b->nodes[k]);
        }
        b->nnodes = kept;
        if (kept < n)
            b->gpus = per * (int64_t) kept;
        kept = 0;
        for (size_t k = 0; k < b->nspares; k++) {
            node_record_t *node_ptr = find_node_record (b->spares[k]);
            if (node_ptr && bit_test (job_ptr->node_bitmap, node_ptr->index))
                b->spares[kept++] = b->spares[k];
            else
                free (b->spares[k]);
        }
        b->nspares = kept;
    }
}

/* Running Jobtree jobs' bound funding as leases, on the nodes they still
 * hold. A job with a bad record is logged and skipped: it still holds its
 * nodes (used GPUs), only its envelope is not charged. */
static int add_leases (jt_snapshot_t *s, jt_error_t *err)
{
    ListIterator it;
    job_record_t *job_ptr;
    int rc = 0;

    if (!job_list)
        return 0;
    it = list_iterator_create (job_list);
    while ((job_ptr = list_next (it)) && rc == 0) {
        jt_jobrec_t rec;
        jt_error_t perr;

        if (!(IS_JOB_RUNNING (job_ptr) || IS_JOB_SUSPENDED (job_ptr))
            || !jtsel_is_jobtree (job_ptr))
            continue;
        if (jt_jobrec_parse (job_ptr->admin_comment, &rec, &perr) < 0) {
            error ("select/cons_tres_jobtree: %pJ: bad Jobtree record: %s",
                   job_ptr, perr.text);
            continue;
        }
        still_held (&rec, job_ptr);
        rc = jt_nodemap_add_record (s, job_ptr->job_id, job_ptr->account,
                                    (int64_t) job_ptr->start_time,
                                    (int64_t) job_ptr->end_time, &rec, err);
        jt_jobrec_free (&rec);
    }
    list_iterator_destroy (it);
    return rc;
}

jtsel_topo_t *jtsel_topo_build (const char *domain_key, jt_error_t *err)
{
    jtsel_topo_t *t = xmalloc (sizeof (*t));

    t->snap = jt_snapshot_create ();
    if (!t->snap) {
        jt_errprintf (err, "out of memory");
        goto fail;
    }
    t->snap->time = (int64_t) time (NULL);
    if (add_nodes (t->snap, domain_key, err) < 0
        || add_leases (t->snap, err) < 0
        || jt_snapshot_finalize (t->snap, err) < 0)
        goto fail;
    t->nslurm = node_record_count;
    t->slurm2snap = xcalloc (node_record_count > 0 ? node_record_count : 1,
                             sizeof (ssize_t));
    t->snap2slurm = xcalloc (t->snap->nnodes ? t->snap->nnodes : 1, sizeof (int));
    for (int i = 0; i < node_record_count; i++)
        t->slurm2snap[i] = -1;
    for (size_t k = 0; k < t->snap->nnodes; k++) {
        jt_node_t *n = &t->snap->nodes[k];
        node_record_t *node_ptr = find_node_record (n->name);
        int idx = node_ptr ? (int) node_ptr->index : -1;

        t->snap2slurm[k] = idx;
        if (idx >= 0 && idx < node_record_count)
            t->slurm2snap[idx] = (ssize_t) k;
        if (jt_nodemap_labelled (n))
            t->nlabelled++;
    }
    return t;
fail:
    jtsel_topo_destroy (t);
    return NULL;
}

void jtsel_topo_destroy (jtsel_topo_t *t)
{
    if (!t)
        return;
    jt_snapshot_destroy (t->snap);
    xfree (t->slurm2snap);
    xfree (t->snap2slurm);
    xfree (t);
}
