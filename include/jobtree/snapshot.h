/*
 * jobtree/snapshot.h - the cluster as Cover and Pack see it: nodes with
 * labels, fast-fabric domains, and the active leases.
 *
 *   { "time": "2026-03-01T12:00:00Z",
 *     "nodes": [ { "name": "a01", "flavor": "h100", "gpus": 8, "usedGPUs": 0,
 *                  "state": "up",
 *                  "labels": { "region": "west", "cluster": "c1",
 *                              "fabric.domain": "A", "rack": "r1" } } ],
 *     "leases": [ { "run": "c1:4242", "group": 0, "owner": "rai",
 *                   "envelope": "west-h100", "nodes": ["a01"], "gpus": 8,
 *                   "role": "Active", "start": "2026-03-01T10:00:00Z" } ] }
 *
 * A domain is (region, cluster, fabric.domain); its name is those values
 * joined by '/' leaving out absent region/cluster. A node without a
 * fabric.domain label belongs to no domain (domain == -1) and is never packed.
 *
 * Levels (docs/packing.md, "Levels"): the fabric above the domain, lowest
 * first, each named by a node label key ("levels": ["fabric.block",
 * "fabric.spine"]). A domain's unit at a level is the value of that label
 * its nodes share (units are sorted by name); a domain whose nodes lack the
 * label or disagree on it is a unit of its own at that level (up[l] == -1).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_SNAPSHOT_H
#define JOBTREE_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"
#include "labels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jt_node_state {
    JT_NODE_UP = 0,             /* schedulable */
    JT_NODE_DOWN,
    JT_NODE_DRAIN,
} jt_node_state_t;

typedef struct jt_node {
    char *name;
    jt_labels_t labels;
    char *flavor;               /* NULL for nodes without GPUs */
    int gpus;                   /* GPUs of its flavor */
    int used_gpus;              /* GPUs allocated now */
    jt_node_state_t state;
    int domain;                 /* index into domains, or -1 */
    uint32_t lclass;            /* label class (jt_snapshot_finalize): nodes
                                 * with the same labels and flavor share it,
                                 * so what depends on those only (a
                                 * selector, a run's constraints) is decided
                                 * once per class; JT_LCLASS_NONE before */
} jt_node_t;

#define JT_LCLASS_NONE UINT32_MAX

/* Levels above the domain a snapshot may name (a spine above a block above
 * a leaf is three; the fourth is room, not a guess). */
#define JT_LEVELS_MAX 4

typedef struct jt_domain {
    char *name;                 /* "region/cluster/fabric" */
    const char *region;         /* may be NULL */
    const char *cluster;        /* may be NULL */
    const char *fabric;
    size_t *nodes;              /* node indexes, sorted by node name */
    size_t nnodes;
    ssize_t up[JT_LEVELS_MAX];  /* its unit at each level,
                                 * -1: a unit of its own there */
} jt_domain_t;

/* One unit of a level: a block, a spine. */
typedef struct jt_unit {
    char *name;                 /* the label's value */
    size_t *domains;            /* domain indexes in it, ascending */
    size_t ndomains;
} jt_unit_t;

typedef enum jt_role {
    JT_ROLE_ACTIVE = 0,
    JT_ROLE_SPARE,
    JT_ROLE_BORROWED,
} jt_role_t;

typedef struct jt_lease {
    char *run;
    int group;                  /* component path: group index */
    char *owner;                /* owner of the run */
    char *envelope;             /* paying envelope name */
    char **nodes;
    size_t nnodes;
    int64_t gpus;
    jt_role_t role;
    int64_t start;              /* epoch seconds */
    int64_t end;                /* expected end (its job's end time: start +
                                 * time limit), epoch seconds; 0: unknown */
    int64_t min_gpus;           /* its run's malleable minimum (GPUs): an
                                 * activation may cut the run's groups above
                                 * it (a Shrink); 0: not malleable */
} jt_lease_t;

typedef struct jt_snapshot {
    int64_t time;               /* 0 when absent */
    jt_node_t *nodes;           /* sorted by name after finalize */
    size_t nnodes;
    jt_domain_t *domains;       /* sorted by name after finalize */
    size_t ndomains;
    jt_lease_t *leases;
    size_t nleases;
    bool finalized;
    /* Set by jt_snapshot_finalize, distinct for every finalize in the
     * process: the node table's identity (names, labels, flavors, GPUs,
     * domains), which only a new snapshot changes. What may change in
     * place (state, used GPUs, leases) does not change it. Pack's warm
     * views (jt_pack_views_t) are keyed on it. */
    uint64_t serial;
    size_t nlclasses;           /* label classes: every node's lclass is
                                 * below it after jt_snapshot_finalize */
    size_t nlevels;             /* levels above the domain, lowest first */
    char *levels[JT_LEVELS_MAX];/* each level's label key ("fabric.block") */
    jt_unit_t *units[JT_LEVELS_MAX];    /* each level's units, by name */
    size_t nunits[JT_LEVELS_MAX];
    /* Under topology/block, the nominal nodes of a base block (the domain,
     * [0]) and of a block of each level ([1 + l]), strictly increasing;
     * 0 from the first unknown one on (jt_snapshot_set_block_nodes). Slurm
     * takes a run only inside one block of the smallest size holding its
     * nodes: Pack confines a run the same way (jt_pack_block_confine). */
    uint32_t block_nodes[JT_LEVELS_MAX + 1];
} jt_snapshot_t;

jt_snapshot_t *jt_snapshot_create (void);
void jt_snapshot_destroy (jt_snapshot_t *s);

/* Free what lease l owns (its strings and nodes) and zero it; the lease
 * itself is the caller's (an element of a snapshot's leases). */
void jt_lease_clear (jt_lease_t *l);

/* Programmatic construction (used by the plugins, the benchmarks and the
 * tests). Strings are copied. Returns 0 or -1 (err set). */
int jt_snapshot_add_node (jt_snapshot_t *s, const char *name,
                          const jt_labels_t *labels, const char *flavor,
                          int gpus, int used_gpus, jt_node_state_t state,
                          jt_error_t *err);
int jt_snapshot_add_lease (jt_snapshot_t *s, const jt_lease_t *lease,
                           jt_error_t *err);

/* Name the levels above the domain: n label keys (each "fabric.<name>",
 * lowest level first, distinct, not fabric.domain), at most JT_LEVELS_MAX.
 * Before jt_snapshot_finalize, which builds the units. Returns 0 or -1
 * (err says which key is wrong; nothing changed). */
int jt_snapshot_set_levels (jt_snapshot_t *s, const char *const *keys,
                            size_t n, jt_error_t *err);

/* The fabric is topology/block's: nodes[0] the nodes of a base block (a
 * domain), nodes[1 + l] of a block of level l, for n <= nlevels + 1 sizes,
 * each in [1, 2^20] and larger than the one before (n == 0 clears). After
 * jt_snapshot_set_levels. Returns 0 or -1 (err says which size is wrong;
 * nothing changed). */
int jt_snapshot_set_block_nodes (jt_snapshot_t *s, const uint32_t *nodes,
                                 size_t n, jt_error_t *err);

/* How many of topology/block's n block sizes (base block first) the levels
 * named place by: n, at most nlevels + 1. Slurm's sizes above them are not
 * Jobtree's (a run that big is held to a block of a size Pack does not
 * know: the plugin says so once). The count both the select plugin and
 * `jobtree snapshot` give jt_snapshot_set_block_nodes. */
size_t jt_snapshot_block_sizes_named (const jt_snapshot_t *s, size_t n);

/* The short name of level l ("block" for "fabric.block"). */
const char *jt_level_name (const jt_snapshot_t *s, size_t l);

/* The index of the level whose short name or key is name, or -1. */
ssize_t jt_level_index (const jt_snapshot_t *s, const char *name);

/* Sort nodes by name, reject duplicate node names, build domains.
 * Must be called once after construction. Returns 0 or -1. */
int jt_snapshot_finalize (jt_snapshot_t *s, jt_error_t *err);

/* Parse a snapshot document (finalized on success). NULL on error. */
jt_snapshot_t *jt_snapshot_parse_json (const char *file, const char *text,
                                       size_t len, jt_diags_t *diags);
jt_snapshot_t *jt_snapshot_load_file (const char *path, jt_diags_t *diags);

/* Canonical JSON text (malloc'd). Inverse of jt_snapshot_parse_json. */
char *jt_snapshot_to_json (const jt_snapshot_t *s);

/* Index of the node named name, or -1 (binary search; needs finalize). */
ssize_t jt_snapshot_node_index (const jt_snapshot_t *s, const char *name);

/* Index of the domain named name, or -1. */
ssize_t jt_snapshot_domain_index (const jt_snapshot_t *s, const char *name);

/* GPUs per node of flavor (the largest among up nodes of that flavor), or
 * 0 if no node has it. */
int jt_snapshot_gpus_per_node (const jt_snapshot_t *s, const char *flavor);

/* Keeping a live snapshot instead of rebuilding it (snapshot_patch.c).
 * Remove every lease of run (the other leases keep their order); returns
 * how many were removed. */
size_t jt_snapshot_remove_run (jt_snapshot_t *s, const char *run);

/* Compare a patched snapshot a with a rebuild b (both finalized): nodes
 * field by field in order, domains, and the leases as a multiset (their
 * order is not compared). Returns 0 when equal, 1 with the first
 * difference written to buf ("node n0003: usedGPUs 8, rebuilt 0"), -1 on
 * ENOMEM. Time is not compared. */
int jt_snapshot_diff (const jt_snapshot_t *a, const jt_snapshot_t *b,
                      char *buf, size_t len);

const char *jt_role_str (jt_role_t role);
int jt_role_parse (const char *s, jt_role_t *out);
const char *jt_node_state_str (jt_node_state_t st);
int jt_node_state_parse (const char *s, jt_node_state_t *out);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_SNAPSHOT_H */
