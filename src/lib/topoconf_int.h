/*
 * topoconf_int.h - the records of a topology file, as read from
 * topology.conf (topoconf.c) or topology.yaml (topoconf_yaml.c), and what
 * Slurm's topology plugins build from them (topoconf_build.c: leaves,
 * levels, BlockSizes). Private to libjobtree and its unit tests.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_TOPOCONF_INT_H
#define JOBTREE_TOPOCONF_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "jobtree/topoconf.h"

/* One record of the kind read (a switch, or a base block), as written. */
typedef struct jt_topo_rec {
    char *name;
    char *nodes;                /* NULL: none, or empty */
    char *switches;             /* tree: Switches=, NULL: none or empty */
    int line, col, swcol;
    int level;                  /* tree: -1 until resolved */
    long leaf;                  /* its index in out->v, -1: not a leaf */
    size_t *child;              /* tree: its children, by index */
    size_t nchild;
} jt_topo_rec_t;

typedef struct jt_topo_parse {
    const char *file;
    jt_diags_t *diags;
    size_t errors;
    const jt_topo_hosts_t *hosts;
    jt_topo_rec_t *r;
    size_t n, cap;
    /* BlockSizes= as written: values, where */
    uint32_t sizes[16];
    size_t nsizes;
    int sizes_line;             /* 0: none */
    /* the keys' names in diagnostics: SwitchName or BlockName, Switches,
     * Nodes, BlockSizes in topology.conf; topology.yaml's own */
    const char *k_name, *k_children, *k_nodes, *k_sizes;
} jt_topo_parse_t;

/* A record, copied (lengths 0: none); -1 out of memory. */
int jt_topo_add_rec (jt_topo_parse_t *p, const char *name, size_t nlen, const char *nodes,
                     size_t ndlen, const char *sw, size_t swlen, int line, int col,
                     int swcol);
/* BlockSizes begin at line:col: 0, or -1 (said) when they were given. */
int jt_topo_sizes_start (jt_topo_parse_t *p, int line, int col);
/* One BlockSizes value as written (q, l bytes), checked and kept. */
void jt_topo_size_add (jt_topo_parse_t *p, const char *q, size_t l, int line, int col);
/* Check the records (names twice, children, the tree) and build *out
 * (zeroed by the caller) from them; the records are freed. 0, or -1 with
 * every problem said (p->errors counted before too) and *out empty. */
int jt_topo_finish (jt_topo_parse_t *p, jt_topo_kind_t kind, jt_topo_leaves_t *out);

#endif /* JOBTREE_TOPOCONF_INT_H */
