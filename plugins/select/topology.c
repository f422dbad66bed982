/*
 * topology.c - the cluster as libjobtree sees it, built from slurmctld's
 * node and switch tables and its running jobs.
 *
 * Labels are node features of the form key=value (fabric.domain=A,
 * region=west, cluster=c1, rack=r1; DomainFeature in jobtree.conf renames
 * the domain key). A node without a domain feature falls back to its
 * topology.conf leaf switch (level 0) as its domain. Flavor and GPU count
 * come from the node's gpu GRES type (Gres=gpu:h100:8); used GPUs are the
 * GRES allocated, and a node holding any allocation (CPUs of a CPU job,
 * completing jobs) counts as fully used, because Jobtree gives groups whole
 * nodes only. Running Jobtree jobs become leases from the funding bound in
 * their admin_comment, so Cover sees live usage per envelope.
 */
#include "config.h"

/* Slurm's own plugins include this first: it renames libslurm calls to
 * their exported slurm_* aliases, so the plugin also loads in clients
 * linked with libslurm.so. */
#include "src/common/slurm_xlator.h"

#include <string.h>

#include "src/common/gres.h"
#include "src/common/node_conf.h"
#include "src/common/slurm_topology.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "select_jobtree.h"

static const char *leaf_switch (int node_index)
{
    for (int s = 0; s < switch_record_cnt; s++) {
        switch_record_t *sw = &switch_record_table[s];
        if (sw->level == 0 && sw->node_bitmap
            && node_index < (int) bit_size (sw->node_bitmap)
            && bit_test (sw->node_bitmap, node_index))
            return sw->name;
    }
    return NULL;
}

/* The node's gpu GRES: flavor (first type), configured and allocated. */
static void node_gpus (node_record_t *node_ptr, const char **flavor,
                       int *gpus, int *used)
{
    ListIterator it;
    gres_state_t *gs;

    *flavor = NULL;
    *gpus = *used = 0;
    if (!node_ptr->gres_list)
        return;
    it = list_iterator_create (node_ptr->gres_list);
    while ((gs = list_next (it))) {
        gres_node_state_t *ns = gs->gres_data;
        if (!gs->gres_name || strcmp (gs->gres_name, "gpu") || !ns)
            continue;
        *gpus = (int) ns->gres_cnt_avail;
        *used = (int) ns->gres_cnt_alloc;
        if (ns->type_cnt > 0 && ns->type_name && ns->type_name[0])
            *flavor = ns->type_name[0];
        break;
    }
    list_iterator_destroy (it);
}

static jt_node_state_t node_state (node_record_t *node_ptr)
{
    if (IS_NODE_DOWN (node_ptr) || IS_NODE_FAIL (node_ptr)
        || IS_NODE_NO_RESPOND (node_ptr) || IS_NODE_FUTURE (node_ptr)
        || IS_NODE_POWERED_DOWN (node_ptr))
        return JT_NODE_DOWN;
    if (IS_NODE_DRAIN (node_ptr))
        return JT_NODE_DRAIN;
    return JT_NODE_UP;
}

static int add_nodes (jt_snapshot_t *s, const char *domain_key, jt_error_t *err)
{
    node_record_t *node_ptr;

    for (int i = 0; (node_ptr = next_node (&i)); i++) {
        jt_labels_t labels = JT_LABELS_INIT;
        const char *flavor, *leaf;
        int gpus, used, rc;

        /* Active features (a node_features plugin may change them), else
         * the configured ones. */
        if (jt_labels_parse_features (&labels, node_ptr->features_act
                                                   ? node_ptr->features_act
                                                   : node_ptr->features) < 0) {
            jt_labels_free (&labels);
            return jt_errprintf (err, "out of memory");
        }
        /* The domain key of jobtree.conf is what libjobtree calls
         * fabric.domain. */
        if (strcmp (domain_key, JT_LABEL_FABRIC)) {
            const char *d = jt_labels_get (&labels, domain_key);
            if (d && jt_labels_set (&labels, JT_LABEL_FABRIC, d) < 0) {
                jt_labels_free (&labels);
                return jt_errprintf (err, "out of memory");
            }
        }
        if (!jt_labels_get (&labels, JT_LABEL_FABRIC)
            && (leaf = leaf_switch ((int) node_ptr->index))
            && jt_labels_set (&labels, JT_LABEL_FABRIC, leaf) < 0) {
            jt_labels_free (&labels);
            return jt_errprintf (err, "out of memory");
        }
        node_gpus (node_ptr, &flavor, &gpus, &used);
        if (IS_NODE_ALLOCATED (node_ptr) || IS_NODE_MIXED (node_ptr)
            || IS_NODE_COMPLETING (node_ptr))
            used = gpus > used ? gpus : used;
        if (used < 0)
            used = 0;
        rc = jt_snapshot_add_node (s, node_ptr->name, &labels,
                                   flavor && gpus > 0 ? flavor : NULL,
                                   flavor ? gpus : 0, flavor ? used : 0,
                                   node_state (node_ptr), err);
        jt_labels_free (&labels);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Running Jobtree jobs' bound funding as leases. A job with a bad record is
 * logged and skipped: it still holds its nodes (used GPUs), only its
 * envelope is not charged. */
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
        char id[64];

        if (!(IS_JOB_RUNNING (job_ptr) || IS_JOB_SUSPENDED (job_ptr))
            || !jt_sel_is_jobtree (job_ptr))
            continue;
        if (jt_jobrec_parse (job_ptr->admin_comment, &rec, &perr) < 0) {
            error ("select/cons_tres_jobtree: %pJ: bad Jobtree record: %s",
                   job_ptr, perr.text);
            continue;
        }
        snprintf (id, sizeof (id), "%u", job_ptr->job_id);
        for (size_t i = 0; i < rec.nbound && rc == 0; i++) {
            jt_lease_t l = {
                .run = id,
                .group = rec.bound[i].group,
                .owner = rec.run && rec.run->owner ? rec.run->owner
                                                   : job_ptr->account,
                .envelope = rec.bound[i].envelope,
                .nodes = rec.bound[i].nodes,
                .nnodes = rec.bound[i].nnodes,
                .gpus = rec.bound[i].gpus,
                .role = rec.bound[i].role,
                .start = rec.bound_time ? rec.bound_time
                                        : (int64_t) job_ptr->start_time,
            };
            if (!l.owner)
                l.owner = "";
            rc = jt_snapshot_add_lease (s, &l, err);
        }
        jt_jobrec_free (&rec);
    }
    list_iterator_destroy (it);
    return rc;
}

jt_sel_topo_t *jt_sel_topo_build (const char *domain_key, jt_error_t *err)
{
    jt_sel_topo_t *t = xmalloc (sizeof (*t));

    t->snap = jt_snapshot_create ();
    if (!t->snap) {
        jt_errprintf (err, "out of memory");
        goto fail;
    }
    t->snap->time = (int64_t) time (NULL);
    if (add_nodes (t->snap, domain_key ? domain_key : JT_LABEL_FABRIC, err) < 0
        || add_leases (t->snap, err) < 0
        || jt_snapshot_finalize (t->snap, err) < 0)
        goto fail;
    t->nslurm = node_record_count;
    t->slurm2snap = xcalloc (node_record_count > 0 ? node_record_count : 1,
                             sizeof (ssize_t));
    t->snap2slurm = xcalloc (t->snap->nnodes ? t->snap->nnodes : 1, sizeof (int));
    t->base_used = xcalloc (t->snap->nnodes ? t->snap->nnodes : 1, sizeof (int));
    t->base_state = xcalloc (t->snap->nnodes ? t->snap->nnodes : 1,
                             sizeof (jt_node_state_t));
    for (int i = 0; i < node_record_count; i++)
        t->slurm2snap[i] = -1;
    for (size_t k = 0; k < t->snap->nnodes; k++) {
        jt_node_t *n = &t->snap->nodes[k];
        node_record_t *node_ptr = find_node_record (n->name);
        int idx = node_ptr ? (int) node_ptr->index : -1;

        t->snap2slurm[k] = idx;
        if (idx >= 0 && idx < node_record_count)
            t->slurm2snap[idx] = (ssize_t) k;
        t->base_used[k] = n->used_gpus;
        t->base_state[k] = n->state;
        if (n->flavor && n->domain >= 0)
            t->nlabelled++;
    }
    return t;
fail:
    jt_sel_topo_destroy (t);
    return NULL;
}

void jt_sel_topo_destroy (jt_sel_topo_t *t)
{
    if (!t)
        return;
    jt_snapshot_destroy (t->snap);
    xfree (t->slurm2snap);
    xfree (t->snap2slurm);
    xfree (t->base_used);
    xfree (t->base_state);
    xfree (t);
}
