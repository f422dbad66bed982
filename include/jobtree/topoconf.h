/*
 * jobtree/topoconf.h - Slurm's topology.conf as the topology plugins read
 * it, for clients that cannot ask the plugin (jobtree snapshot on Slurm
 * 24.11 and later: docs/slurm-24.11.md): the leaves, the switches or
 * aggregated blocks above them level by level, and topology/block's sizes.
 *
 * A leaf is what the select plugin takes as a node's domain when the node
 * has no domain feature: under topology/tree each switch with a Nodes=
 * list (Slurm's level 0), under topology/block each block with one (a base
 * block). Slurm's syntax: one record per line ("SwitchName=s1 Nodes=gpu[01-04]
 * LinkSpeed=1"), keys case-insensitive, '#' to the end of the line a
 * comment, a trailing '\' continues the line; keys other than the record's
 * name, Nodes, Switches and BlockSizes are Slurm's to check and are
 * skipped here.
 *
 * Above the leaves, as Slurm's plugins build their records (read from
 * src/plugins/topology/tree/switch_record.c and block/block_record.c
 * @26.05.3): a switch with Switches= and no Nodes= is of level 1 + the
 * highest level of its children, over the union of their nodes; under
 * topology/block, BlockSizes=n0,n1,... (in nodes; n0 the base block's,
 * each n0 times a power of two up to 2^15; without it the base block's
 * nodes are the first block's and the levels 1, 2, 4, 8, 16 base blocks)
 * makes aggregated blocks of 2^L consecutive base blocks, named by their
 * base blocks. The select plugin takes a node's unit at level L as the
 * first such record of level L (in Slurm's record order) holding it, and
 * so does jt_topo_leaf_t.up.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_TOPOCONF_H
#define JOBTREE_TOPOCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobtree/error.h"
#include "jobtree/snapshot.h"        /* JT_LEVELS_MAX */

#ifdef __cplusplus
extern "C" {
#endif

/* Which records are leaves. */
typedef enum jt_topo_kind {
    JT_TOPO_TREE = 0,           /* SwitchName=... Nodes=... */
    JT_TOPO_BLOCK,              /* BlockName=... Nodes=... */
} jt_topo_kind_t;

typedef struct jt_topo_leaf {
    char *name;
    char *nodes;                /* Slurm host list expression, as written */
    int line;                   /* where the record starts */
    long up[JT_LEVELS_MAX];     /* the record above it at level 1, 2, ...:
                                 * an index in jt_topo_leaves_t.up, -1 none */
} jt_topo_leaf_t;

/* A switch (tree) or an aggregated block (block) above the leaves. */
typedef struct jt_topo_upper {
    char *name;                 /* an aggregated block's: its base blocks,
                                 * comma-separated (Slurm writes them as a
                                 * ranged host list: jt_topo_hosts_t) */
    int level;                  /* 1 .. JT_LEVELS_MAX */
    int line;                   /* its record's (a block: its first base
                                 * block's) */
} jt_topo_upper_t;

typedef struct jt_topo_leaves {
    jt_topo_leaf_t *v;          /* in file order */
    size_t n;
    jt_topo_upper_t *up;        /* levels 1 .. JT_LEVELS_MAX, in Slurm's
                                 * record order (tree: the file's; block:
                                 * by level, then by first base block) */
    size_t nup;
    int levels;                 /* the highest level above the leaves
                                 * (may pass JT_LEVELS_MAX: those are not
                                 * kept), 0 for none */
    /* topology/block: the nodes of a base block, then of the aggregated
     * blocks of each level (jt_snapshot_set_block_nodes); nblock kept (at
     * most JT_LEVELS_MAX + 1), nsizes Slurm has; 0 under topology/tree */
    uint32_t block_nodes[JT_LEVELS_MAX + 1];
    size_t nblock, nsizes;
} jt_topo_leaves_t;

/* How host list expressions (Switches=, a base block's Nodes=) are read;
 * Slurm's syntax lives in libslurm, so the caller brings it. */
typedef struct jt_topo_hosts {
    /* The names of expr in order: 0 with *v (n strings, each and the
     * array malloc'd; the library frees them), or -1 when expr is not a
     * host list. */
    int (*expand) (void *arg, const char *expr, char ***v, size_t *n);
    /* A comma-separated list of names as one ranged host list ("b1,b2" ->
     * "b[1-2]"), malloc'd; NULL keeps the list. May be NULL. */
    char *(*ranged) (void *arg, const char *list);
    void *arg;
} jt_topo_hosts_t;

/* Bounds: the text, a name or host list, the number of leaves and of
 * records, children named by all switches, steps of the walk from each
 * switch down to its leaves, a block size in nodes (as
 * jt_snapshot_set_block_nodes). */
#define JT_TOPOCONF_MAX (16 * 1024 * 1024)
#define JT_TOPOCONF_VALUE_MAX 65536
#define JT_TOPOCONF_LEAVES_MAX 1000000
#define JT_TOPOCONF_CHILDREN_MAX 4000000
#define JT_TOPOCONF_WALK_MAX 64000000
#define JT_TOPOCONF_BLOCK_NODES_MAX (1u << 20)

/* The leaves of kind in text (file names it in diagnostics), the records
 * above them and topology/block's sizes; hosts reads host lists (NULL:
 * names separated by commas, brackets taken as written). Returns 0 with
 * *out filled (free with jt_topo_leaves_free), or -1 with every problem
 * in diags as file:line:col and the field (an empty name, a value or text
 * past its bound, a name twice, a child switch that is no switch, is the
 * switch itself or makes no tree, a BlockSizes value that is no number in
 * 1 .. 2^20, not above the one before it or not the first times a power
 * of two up to 2^15; a walk past its bound) and *out empty. */
int jt_topoconf_read (const char *file, const char *text, size_t len,
                      jt_topo_kind_t kind, const jt_topo_hosts_t *hosts,
                      jt_topo_leaves_t *out, jt_diags_t *diags);
/* jt_topoconf_read with hosts NULL. */
int jt_topoconf_leaves (const char *file, const char *text, size_t len,
                        jt_topo_kind_t kind, jt_topo_leaves_t *out,
                        jt_diags_t *diags);
void jt_topo_leaves_free (jt_topo_leaves_t *l);

/* topology.yaml (Slurm 25.05 and later, which then ignores topology.conf:
 * topology.yaml(5)): its cluster default topology (the first item with
 * cluster_default true, else the first, as slurmctld's context 0) read as
 * jt_topoconf_read reads topology.conf: a tree's switches (switch,
 * children, nodes: a host list or a sequence of names), a block
 * topology's blocks (block, nodes) and block_sizes. Returns 0 with *kind
 * the topology's and *out filled; 1 when the default is another plugin's
 * (flat, ring, torus3d) or the file has none: *out empty; -1 with every
 * problem in diags as file:line:col and its path (YAML syntax, an alias,
 * an item without its topology's name, a field of the wrong type, and
 * jt_topoconf_read's) and *out empty, also when jobtree was built without
 * libyaml (jt_topoyaml_available). These two live in libjobtree_yaml,
 * which the CLI links and the plugins do not (they need no libyaml). */
int jt_topoyaml_read (const char *file, const char *text, size_t len,
                      const jt_topo_hosts_t *hosts, jt_topo_kind_t *kind,
                      jt_topo_leaves_t *out, jt_diags_t *diags);
bool jt_topoyaml_available (void);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_TOPOCONF_H */
