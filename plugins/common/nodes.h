/*
 * nodes.h - slurmctld's node table as snapshot nodes (jobtree/nodemap.h
 * decides what each becomes; this only reads Slurm's structures): each
 * node's features, gpu GRES as text and GPUs allocated, state bits and
 * topology.conf leaf switch. For plugins running inside slurmctld with at
 * least the node read lock held. site_factor/jobtree uses it;
 * plugins/select/topology.c has the same loop (to be switched to this).
 */
#ifndef JOBTREE_PLUGINS_NODES_H
#define JOBTREE_PLUGINS_NODES_H

#include "jobtree/error.h"
#include "jobtree/snapshot.h"

/* Add every node of slurmctld's table to s (not finalized), domain_key
 * naming the domain feature. 0, or -1 with err set. */
int jtc_nodes_add (jt_snapshot_t *s, const char *domain_key, jt_error_t *err);

#endif /* JOBTREE_PLUGINS_NODES_H */
