/*
 * jobtree/topoconf.h - the leaves of Slurm's topology.conf, for clients
 * that cannot ask the topology plugin (jobtree snapshot on Slurm 24.11:
 * docs/slurm-24.11.md).
 *
 * A leaf is what the select plugin takes as a node's domain when the node
 * has no domain feature: under topology/tree each switch with a Nodes=
 * list (Slurm's level 0), under topology/block each block with one (a base
 * block). Slurm's syntax: one record per line ("SwitchName=s1 Nodes=gpu[01-04]
 * LinkSpeed=1"), keys case-insensitive, '#' to the end of the line a
 * comment, a trailing '\' continues the line; keys other than the record's
 * name and Nodes are Slurm's to check and are skipped here.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_TOPOCONF_H
#define JOBTREE_TOPOCONF_H

#include <stddef.h>

#include "jobtree/error.h"

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
} jt_topo_leaf_t;

typedef struct jt_topo_leaves {
    jt_topo_leaf_t *v;          /* in file order */
    size_t n;
} jt_topo_leaves_t;

/* Bounds: the text, a name or host list, the number of leaves. */
#define JT_TOPOCONF_MAX (16 * 1024 * 1024)
#define JT_TOPOCONF_VALUE_MAX 65536
#define JT_TOPOCONF_LEAVES_MAX 1000000

/* The leaves of kind in text (file names it in diagnostics). Returns 0
 * with *out filled (free with jt_topo_leaves_free), or -1 with every
 * problem in diags as file:line:col (an empty name, a value or text past
 * its bound, a name twice) and *out empty. */
int jt_topoconf_leaves (const char *file, const char *text, size_t len,
                        jt_topo_kind_t kind, jt_topo_leaves_t *out,
                        jt_diags_t *diags);
void jt_topo_leaves_free (jt_topo_leaves_t *l);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_TOPOCONF_H */
