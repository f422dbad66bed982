/*
 * nodes.h - slurmctld's node table as snapshot nodes (jobtree/nodemap.h
 * decides what each becomes; this only reads Slurm's structures): each
 * node's features, gpu GRES as text and GPUs allocated, state bits and
 * topology.conf leaf switch. The one reader of the node table for every
 * plugin running inside slurmctld (select/cons_tres_jobtree's snapshot
 * and its in-place refresh, job_submit/jobtree's placement check,
 * site_factor/jobtree's view), called with at least the node read lock.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_PLUGINS_NODES_H
#define JOBTREE_PLUGINS_NODES_H

#include <stdbool.h>
#include <stdint.h>

#include "jobtree/error.h"
#include "jobtree/snapshot.h"

/* What to read: the node as it is now (state flags, GPUs allocated, the
 * GRES it has), or only as configured (slurm.conf's GRES; no state: an
 * admission check that asks whether a run could ever be placed). */
typedef enum {
    JTC_NODES_LIVE = 0,
    JTC_NODES_CONFIGURED,
} jtc_nodes_mode_t;

/* Add every node of slurmctld's table to s (not finalized), domain_key
 * naming the domain feature. 0, or -1 with err set. */
int jtc_nodes_add (jt_snapshot_t *s, const char *domain_key,
                   jtc_nodes_mode_t mode, jt_error_t *err);

/* One node (node_record_t, from Slurm's node_conf.h), for callers that
 * refresh a snapshot in place: the features the snapshot reads, its state
 * as the library's flags, the GPUs it has (UINT64_MAX: no gpu GRES) and
 * has allocated. */
struct node_record;
const char *jtc_node_features (struct node_record *node_ptr);
unsigned jtc_node_flags (struct node_record *node_ptr);
uint64_t jtc_node_gpus_avail (struct node_record *node_ptr);
uint64_t jtc_node_gpus_alloc (struct node_record *node_ptr);

#endif /* JOBTREE_PLUGINS_NODES_H */
