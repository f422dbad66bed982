/*
 * jobtree/nodemap.h - a Slurm node, given as plain values, as a snapshot
 * node; and a running Jobtree job's bound funding as snapshot leases.
 *
 * Both views of the cluster, slurmctld's select plugin (node_record_table,
 * switch_record_table, job_list) and `jobtree snapshot` (slurm_load_node,
 * slurm_load_topo, slurm_load_jobs), only read Slurm's structures and hand
 * the values to these functions, so `jobtree plan` on a `jobtree snapshot`
 * sees exactly the nodes slurmctld's plugin packs. The policy lives here:
 *
 *   labels   the key=value node features; the domain key (DomainFeature of
 *            jobtree.conf) is copied to fabric.domain; a node with neither
 *            falls back to its topology.conf leaf switch as its domain
 *   flavor   the type of the node's gpu GRES, GPUs its count; an untyped,
 *            malformed, multi-type or out-of-range GRES gives no flavor and
 *            no GPUs (the node is never packed)
 *   used     the GPUs allocated (GRES in use, or a count), clamped to the
 *            node's GPUs; a node ALLOCATED, MIXED or COMPLETING counts as
 *            fully used, since Jobtree gives groups whole nodes only
 *   state    DOWN, UNKNOWN, FUTURE, FAIL, NOT_RESPONDING, POWERED_DOWN: down;
 *            else DRAIN: drain; else up (as slurmctld's avail_node_bitmap)
 *   labelled a node with a flavor and a domain: the only nodes Pack uses
 *   leases   one per bound group of a running/suspended Jobtree job: run is
 *            the job id, owner the run's owner else the job's account, start
 *            the record's bound time else the job's start time
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_NODEMAP_H
#define JOBTREE_NODEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "record.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What Slurm says about a node's state (the adapters translate Slurm's
 * NODE_STATE_* base state and flags; no bit set means IDLE). */
typedef enum jt_nodemap_flag {
    JT_NODEMAP_DOWN = 1u << 0,          /* base state DOWN */
    JT_NODEMAP_UNKNOWN = 1u << 1,       /* base state UNKNOWN (not registered) */
    JT_NODEMAP_FUTURE = 1u << 2,        /* base state FUTURE */
    JT_NODEMAP_ALLOCATED = 1u << 3,     /* base state ALLOCATED */
    JT_NODEMAP_MIXED = 1u << 4,         /* base state MIXED */
    JT_NODEMAP_FAIL = 1u << 5,
    JT_NODEMAP_NO_RESPOND = 1u << 6,
    JT_NODEMAP_POWERED_DOWN = 1u << 7,
    JT_NODEMAP_DRAIN = 1u << 8,
    JT_NODEMAP_COMPLETING = 1u << 9,
} jt_nodemap_flag_t;

#define JT_NODEMAP_FLAGS_ALL 0x3ffu

/* One Slurm node as plain values. Strings may be NULL. */
typedef struct jt_nodemap_node {
    const char *name;           /* NULL or "": a hole in Slurm's node table */
    const char *features;       /* active features, else the configured ones */
    const char *gres;           /* GRES: "gpu:h100:8(S:0-1),nic:1" */
    const char *gres_used;      /* GRES in use: "gpu:h100:2(IDX:0-1)"; NULL:
                                 * used_gpus says it */
    uint64_t used_gpus;         /* GPUs allocated when gres_used is NULL */
    unsigned flags;             /* jt_nodemap_flag_t bits */
    const char *leaf_switch;    /* topology.conf level-0 switch, or NULL */
    const char *up_switch[JT_LEVELS_MAX];   /* the switch above it at level
                                 * 1, 2, ..., or NULL: with the domain as
                                 * the group's level, level k names the
                                 * snapshot's level k-1 unless a feature
                                 * does (jt_snapshot_set_levels first) */
} jt_nodemap_node_t;

/* The snapshot state of a node with these flags. */
jt_node_state_t jt_nodemap_state (unsigned flags);

/* Add node to s (not finalized yet) as the policy above says; domain_key is
 * the feature naming the domain (NULL: fabric.domain). Returns 1 when the
 * node was added, 0 when it was skipped (no name: a hole in Slurm's node
 * table), -1 with err set (out of memory, or flags outside
 * JT_NODEMAP_FLAGS_ALL); nothing is added on failure. Duplicate names are
 * refused later, by jt_snapshot_finalize. */
int jt_nodemap_add (jt_snapshot_t *s, const jt_nodemap_node_t *node,
                    const char *domain_key, jt_error_t *err);

/* True iff Pack may place a group on n: it has a flavor and, after
 * jt_snapshot_finalize, a domain. */
bool jt_nodemap_labelled (const jt_node_t *n);

/* A node's live part again, in place, without re-reading its features or
 * GRES (a snapshot kept up to date rather than rebuilt): state and used
 * GPUs as jt_nodemap_add derives them from flags and the GPUs allocated
 * (used_gpus; the node's flavor and GPUs stay). Returns 1 when either
 * changed, 0 when not, -1 with err set (flags outside JT_NODEMAP_FLAGS_ALL;
 * n unchanged). */
int jt_nodemap_refresh (jt_node_t *n, unsigned flags, uint64_t used_gpus,
                        jt_error_t *err);

/* When a job's lease starts: the job's start time as Slurm accounts it
 * (sacct's Start). slurmctld takes it before the select plugin binds, so
 * the record's bound time may be a second later (t3040 on 26.05); the
 * bound time only when a recovered job has no start time (0). The one
 * rule for the ledger's Start (jt_lease_derive) and the snapshot's lease
 * (jt_nodemap_add_lease). */
int64_t jt_lease_start_time (int64_t job_start, int64_t bound_time);

/* A running Jobtree job as plain values, for its bound leases. */
typedef struct jt_nodemap_job {
    uint32_t job_id;
    const char *owner;          /* the run's owner (record), or NULL */
    const char *account;        /* the job's Slurm account, or NULL */
    int64_t start_time;         /* the job's start time (epoch seconds) */
    int64_t bound_time;         /* the record's bound time, 0 when absent */
    int64_t end_time;           /* the job's expected end (start + time
                                 * limit), 0 when unknown */
    int64_t min_gpus;           /* the run's malleable minimum, 0: not
                                 * malleable (jt_lease_t.min_gpus) */
} jt_nodemap_job_t;

/* Add one bound group of job as a lease of s: run = job id, owner, start
 * and expected end as above; group, envelope, nodes, gpus and role as recorded.
 * Returns 0, or -1 with err set (nothing added). */
int jt_nodemap_add_lease (jt_snapshot_t *s, const jt_nodemap_job_t *job,
                          int group, const char *envelope, char *const *nodes,
                          size_t nnodes, int64_t gpus, jt_role_t role,
                          jt_error_t *err);

/* Add every bound lease of a running job's record (jobtree/record.h) to s,
 * as jt_nodemap_add_lease does, with the owner and bound time taken from
 * rec. Returns 0, or -1 with err set (leases added before it stay). */
int jt_nodemap_add_record (jt_snapshot_t *s, uint32_t job_id, const char *account,
                           int64_t start_time, int64_t end_time,
                           const jt_jobrec_t *rec, jt_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_NODEMAP_H */
