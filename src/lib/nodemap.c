/*
 * nodemap.c - a Slurm node (plain values) as a snapshot node, and a running
 * Jobtree job's bound groups as leases (see jobtree/nodemap.h). The one
 * place that decides labels, domain fallback, flavor, GPUs, used GPUs,
 * state and lease fields for both the select plugin (plugins/select/
 * topology.c) and `jobtree snapshot` (src/cli/cmd_snapshot.c).
 *
 * DESIGN: every count comes from jt_gres_gpu_req (bounded by
 * JT_GRES_COUNT_MAX, so it fits an int); the used count is clamped to the
 * node's GPUs before it is narrowed. Nothing is added to the snapshot
 * unless the whole node (or lease) could be.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "jobtree/gres.h"
#include "jobtree/labels.h"
#include "jobtree/nodemap.h"

jt_node_state_t jt_nodemap_state (unsigned flags)
{
    if (flags & (JT_NODEMAP_DOWN | JT_NODEMAP_UNKNOWN | JT_NODEMAP_FUTURE
                 | JT_NODEMAP_FAIL | JT_NODEMAP_NO_RESPOND
                 | JT_NODEMAP_POWERED_DOWN))
        return JT_NODE_DOWN;
    if (flags & JT_NODEMAP_DRAIN)
        return JT_NODE_DRAIN;
    return JT_NODE_UP;
}

/* The domain key copied to fabric.domain, else the leaf switch. */
static int domain_labels (jt_labels_t *l, const jt_nodemap_node_t *node,
                          const char *domain_key)
{
    const char *d;

    if (strcmp (domain_key, JT_LABEL_FABRIC) != 0
        && (d = jt_labels_get (l, domain_key))
        && jt_labels_set (l, JT_LABEL_FABRIC, d) < 0)
        return -1;
    if (!jt_labels_get (l, JT_LABEL_FABRIC) && node->leaf_switch
        && node->leaf_switch[0]
        && jt_labels_set (l, JT_LABEL_FABRIC, node->leaf_switch) < 0)
        return -1;
    return 0;
}

/* Labels of the node: its key=value features, the domain key copied to
 * fabric.domain, else the leaf switch; the snapshot's levels, where no
 * feature names them, from the switches above the leaf (only when the
 * domain is the group's level: a switch tree's levels count from the
 * leaf). 0 or -1 (out of memory). */
static int node_labels (const jt_snapshot_t *s, jt_labels_t *l,
                        const jt_nodemap_node_t *node, const char *domain_key)
{
    if (jt_labels_parse_features (l, node->features) < 0)
        return -1;
    if (strcmp (domain_key, JT_LABEL_FABRIC) == 0)
        for (size_t k = 0; k < s->nlevels; k++)
            if (node->up_switch[k] && node->up_switch[k][0]
                && !jt_labels_get (l, s->levels[k])
                && jt_labels_set (l, s->levels[k], node->up_switch[k]) < 0)
                return -1;
    return domain_labels (l, node, domain_key);
}

/* The GPUs counted as used on a node of n GPUs with `alloc` allocated:
 * all of them when it is allocated, mixed or completing (Jobtree gives
 * groups whole nodes only), else alloc clamped to [0, n]. */
static int64_t used_of (unsigned flags, int64_t alloc, int64_t n)
{
    if (flags & (JT_NODEMAP_ALLOCATED | JT_NODEMAP_MIXED | JT_NODEMAP_COMPLETING))
        return n;
    return alloc < 0 ? 0 : alloc > n ? n : alloc;
}

/* Flavor (into type) and GPUs of the node's GRES, and the GPUs in use.
 * A GRES that is not one typed gpu entry with a positive count in range
 * gives no flavor and no GPUs. */
static void node_gpus (const jt_nodemap_node_t *node, char *type, size_t len,
                       int *gpus, int *used)
{
    char utype[128];
    int64_t n = 0, u = 0;

    *gpus = *used = 0;
    if (jt_gres_gpu_req (node->gres, type, len, &n) != 1 || !type[0] || n <= 0) {
        type[0] = '\0';
        return;
    }
    if (node->gres_used) {
        /* a malformed GRES in use counts nothing (jt_gres_gpu_req leaves
         * u at 0); its type is not checked against the node's */
        if (jt_gres_gpu_req (node->gres_used, utype, sizeof (utype), &u) < 0)
            u = 0;
    } else
        u = node->used_gpus < (uint64_t) n ? (int64_t) node->used_gpus : n;
    u = used_of (node->flags, u, n);
    /* n is at most JT_GRES_COUNT_MAX (2^20): both fit an int */
    *gpus = (int) n;
    *used = (int) u;
}

int jt_nodemap_add (jt_snapshot_t *s, const jt_nodemap_node_t *node,
                    const char *domain_key, jt_error_t *err)
{
    jt_labels_t labels = JT_LABELS_INIT;
    char type[128];
    int gpus, used, rc;

    if (!s || !node)
        return jt_errprintf (err, "nodemap: no snapshot or node");
    if (!node->name || !node->name[0])
        return 0;
    if (node->flags & ~JT_NODEMAP_FLAGS_ALL)
        return jt_errprintf (err, "node %s: unknown state flags 0x%x",
                             node->name, node->flags & ~JT_NODEMAP_FLAGS_ALL);
    if (node_labels (s, &labels, node, domain_key ? domain_key : JT_LABEL_FABRIC) < 0) {
        jt_labels_free (&labels);
        return jt_errprintf (err, "node %s: out of memory", node->name);
    }
    node_gpus (node, type, sizeof (type), &gpus, &used);
    rc = jt_snapshot_add_node (s, node->name, &labels, gpus > 0 ? type : NULL,
                               gpus, used, jt_nodemap_state (node->flags), err);
    jt_labels_free (&labels);
    return rc < 0 ? -1 : 1;
}

bool jt_nodemap_labelled (const jt_node_t *n)
{
    return n && n->flavor && n->domain >= 0;
}

int64_t jt_lease_start_time (int64_t job_start, int64_t bound_time)
{
    return job_start > 0 ? job_start : bound_time;
}

int jt_nodemap_add_lease (jt_snapshot_t *s, const jt_nodemap_job_t *job,
                          int group, const char *envelope, char *const *nodes,
                          size_t nnodes, int64_t gpus, jt_role_t role,
                          jt_error_t *err)
{
    char id[16];

    if (!job)
        return jt_errprintf (err, "nodemap: lease without a job");
    if (nnodes > 0 && !nodes)
        return jt_errprintf (err, "job %u: lease without its nodes", job->job_id);
    snprintf (id, sizeof (id), "%u", job->job_id);
    jt_lease_t l = {
        .run = id,
        .group = group,
        .owner = (char *) (job->owner ? job->owner
                           : job->account ? job->account : ""),
        .envelope = (char *) envelope,
        /* jt_snapshot_add_lease only reads (and copies) them */
        .nodes = (char **) nodes,
        .nnodes = nnodes,
        .gpus = gpus,
        .role = role,
        .start = jt_lease_start_time (job->start_time, job->bound_time),
        .end = job->end_time,
        .min_gpus = job->min_gpus,
    };
    return jt_snapshot_add_lease (s, &l, err);
}

int jt_nodemap_add_record (jt_snapshot_t *s, uint32_t job_id, const char *account,
                           int64_t start_time, int64_t end_time,
                           const jt_jobrec_t *rec, jt_error_t *err)
{
    jt_nodemap_job_t job = {
        .job_id = job_id,
        .owner = rec->run ? rec->run->owner : NULL,
        .account = account,
        .start_time = start_time,
        .bound_time = rec->bound_time,
        .end_time = end_time,
        .min_gpus = rec->run && rec->run->malleable && rec->run->min_gpus > 0
                    ? rec->run->min_gpus : 0,
    };

    for (size_t i = 0; i < rec->nbound; i++) {
        const jt_jobrec_lease_t *b = &rec->bound[i];
        int64_t gpn = b->nnodes > 0 ? b->gpus / (int64_t) b->nnodes : 0;
        /* a group the job no longer holds (shrunk away) is no lease */
        if (b->nnodes > 0
            && jt_nodemap_add_lease (s, &job, b->group, b->envelope, b->nodes,
                                     b->nnodes, b->gpus, b->role, err) < 0)
            return -1;
        /* its spare nodes: a lease of role Spare paid by the same envelope
         * (the ledger's "s<group>" lease, jt_lease_derive) */
        if (b->nspares && gpn > 0
            && jt_nodemap_add_lease (s, &job, b->group, b->envelope, b->spares,
                                     b->nspares, gpn * (int64_t) b->nspares,
                                     JT_ROLE_SPARE, err) < 0)
            return -1;
    }
    return 0;
}

int jt_nodemap_refresh (jt_node_t *n, unsigned flags, uint64_t used_gpus,
                        jt_error_t *err)
{
    int64_t u;
    int used;
    jt_node_state_t st;

    if (!n)
        return jt_errprintf (err, "nodemap: no node");
    if (flags & ~JT_NODEMAP_FLAGS_ALL)
        return jt_errprintf (err, "node %s: unknown state flags 0x%x", n->name,
                             flags & ~JT_NODEMAP_FLAGS_ALL);
    /* as jt_nodemap_add: a node without GPUs uses none; n->gpus is at most
     * JT_GRES_COUNT_MAX, so the clamped count fits an int */
    u = n->gpus > 0 ? used_of (flags, used_gpus > (uint64_t) n->gpus
                                          ? n->gpus : (int64_t) used_gpus,
                               n->gpus)
                    : 0;
    used = (int) u;
    st = jt_nodemap_state (flags);
    if (n->used_gpus == used && n->state == st)
        return 0;
    n->used_gpus = used;
    n->state = st;
    return 1;
}
