/*
 * pack_view.h - internal to Pack: the pack view's layout, shared by
 * pack_view.c (building and consuming it) and pack.c (the placement rules).
 * Not installed; nothing outside src/lib/pack*.c may use it.
 *
 * The view keeps all free nodes of the flavor in one array (ent), domain by
 * domain, each domain's slice in packing order (GPUs desc, then name), with
 * a taken flag per entry and a head cursor per domain (first entry that may
 * still be free). Per-domain counters make "does domain d hold g GPUs + s
 * spares" O(1) when a domain's free nodes all have the same GPU count.
 *
 * A view made for a run (jt_pack_view_create_run) slices by class rather
 * than by domain: a class is one snapshot domain and one value of the
 * run's group-by label, so "a group never spans a slice" is both the
 * domain rule and the group-by rule; without group-by the classes are the
 * snapshot domains, index for index. Nodes failing the run's constraints
 * or lacking its group-by label are not in the view at all. Everything
 * below indexed "per domain" is per class (ndom classes); cdom maps a
 * class to its snapshot domain.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_PACK_VIEW_H
#define JOBTREE_PACK_VIEW_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "jobtree/pack.h"

#define NOPOS SIZE_MAX

struct jt_pack_view {
    const jt_snapshot_t *s;
    size_t ndom;                /* classes (slices) */
    size_t *cdom;               /* per class: its snapshot domain */
    const char **cval;          /* per class: the group-by value, or NULL */
    size_t *cfirst;             /* per snapshot domain + 1: its first class */
    size_t *ecls;               /* per entry: its class */
    int64_t *dom_free;          /* per snapshot domain: free GPUs */
    char *group_by;             /* the run's group-by label, or NULL */
    jt_constraints_t cons;      /* the run's constraints (a copy) */
    bool one_class;             /* spread off with group-by: everything
                                   taken from the view is in one class */
    ssize_t pin;                /* one_class: that class, -1 when none */
    ssize_t fixed;              /* jt_pack_view_fix_class: the only class
                                   requests may use, -1 when none */
    const unsigned char *scope; /* jt_pack_view_scope: per snapshot domain,
                                   whether requests may use it; NULL: all */
    size_t ntaken;              /* entries taken now */
    size_t nsatisfy;            /* nlabelled nodes that pass the filter */
    char *filter;               /* "nodes where gpu.mem GE 80, grouped by
                                   rack", or NULL */
    size_t *ent;                /* snapshot node indexes, per domain slices */
    unsigned char *taken;       /* per entry */
    size_t *dstart;             /* ndom + 1 slice offsets into ent */
    size_t *head;               /* per domain: first entry possibly free */
    size_t *free_nodes;         /* per domain */
    int64_t *free_gpus;         /* per domain */
    int *ugpus;                 /* per domain: GPUs of every free node, or 0
                                   when they differ */
    size_t *pos;                /* per snapshot node: entry or NOPOS */
    size_t nlabelled;           /* flavor nodes with GPUs and a domain */
    char *flavor;

    /* warm (pack_views.c): every node the run may use has an entry, the
     * busy ones taken (nbusy of them), so the view follows the snapshot
     * across calls; each call gives back what it placed */
    bool warm;
    size_t nbusy;

    /* cache for the last node-level selector */
    char *sel_key;
    unsigned char *sel_match;   /* per entry */
    size_t *sel_nodes;          /* per domain: free matching nodes */
    int64_t *sel_gpus;

    /* cache for the last domain-level selector (region/cluster/fabric) */
    char *dsel_key;
    unsigned char *dsel_ok;     /* per domain */

    /* domain order frozen by jt_pack_view_hold_order */
    bool hold;
    struct dord *held;          /* domains with free nodes, in order */
    size_t nheld;
    size_t held_first;          /* held[0..held_first) have no free node */

    /* per-request scratch */
    struct dord *order;         /* usable domains in request order */
    struct dord *order_tmp;
    size_t *bucket;             /* counting sort by free GPUs, or NULL */
    int64_t nbucket;            /* max free GPUs of a domain + 1 */
};

/* A domain and its sort key; keys travel with the index so qsort needs no
 * global context (the view may be used from several threads, one view
 * per thread). */
struct dord {
    int64_t key;
    size_t d;
};

/* Key desc, then index asc (for packing order and domain order). */
int jt_packv_dord_cmp (const void *a, const void *b);

/* Sort n domains (keys: free GPUs, never above what the domain had when
 * the view was built; indexes: ascending) by key desc, then index, using
 * the view's counting-sort buckets when it has them. a must not be
 * v->order_tmp. */
void jt_packv_sort_domains (jt_pack_view_t *v, struct dord *a, size_t n);

/* Mark entry e taken / free again, keeping every counter and the domain's
 * head cursor exact. untake of a free entry does nothing. */
void jt_packv_take (jt_pack_view_t *v, size_t e);
void jt_packv_untake (jt_pack_view_t *v, size_t e);

/* Make the node-level selector cache hold sel. Returns 0 or -1 (ENOMEM). */
int jt_packv_sel_cache (jt_pack_view_t *v, const jt_labels_t *sel);

/* Whether label key k is one every node of a domain shares (region,
 * cluster, fabric.domain): grouping by it is the domain rule. */
bool jt_packv_domain_key (const char *k);

/* True iff sel only names region, cluster and fabric.domain (so it is
 * decided per domain). */
bool jt_packv_sel_domain_level (const jt_labels_t *sel);

/* Make the domain-level selector cache (dsel_ok) hold sel. Returns 0 or
 * -1 (ENOMEM). */
int jt_packv_dsel_cache (jt_pack_view_t *v, const jt_labels_t *sel);

/* The name of class c in messages: the domain's name, then " LABEL=VALUE"
 * when grouping by a label that is not a domain key. */
void jt_packv_class_name (const jt_pack_view_t *v, size_t c, char *buf,
                          size_t len);

/* The view of run r (jt_pack_view_create_run); warm: built to be kept
 * across calls if it can be (v->warm says whether it is; view_build in
 * pack_view.c says when it cannot). */
jt_pack_view_t *jt_packv_create (const jt_snapshot_t *s, const jt_run_t *r,
                                 bool warm, jt_error_t *err);

/* A warm view: snapshot node `node` is now free (up, nothing allocated)
 * or not; its entry, if it has one, follows. Only between calls (nothing
 * placed). */
void jt_packv_node_free (jt_pack_view_t *v, size_t node, bool now_free);

#endif /* JOBTREE_PACK_VIEW_H */
