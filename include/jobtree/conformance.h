/*
 * jobtree/conformance.h - conformance fingerprints (seed 004): a node label
 * conformance=<hash> computed on the node from its GPU driver, NIC
 * firmware, BIOS and kernel parameters (contrib/conformance/), so nodes
 * configured identically share a value. NCCL hangs come from mismatches.
 *
 * Pack prefers, for each group, the largest set of free nodes with one
 * fingerprint (jobtree/pack.h); a run with --conformance=strict only ever
 * gets nodes of one fingerprint per group (groups by this label, as
 * --group-by does). The plan and the ledger's Start event report the
 * fingerprint a group ran on.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_CONFORMANCE_H
#define JOBTREE_CONFORMANCE_H

#include <stddef.h>

#include "run.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JT_CONFORMANCE_LABEL "conformance"
#define JT_CONFORMANCE_MIXED "mixed"

typedef enum jt_conformance_kind {
    JT_CONF_NONE = 0,           /* no node has a fingerprint */
    JT_CONF_ONE,                /* every node has the same one */
    JT_CONF_MIXED,              /* two or more, or some nodes without */
} jt_conformance_kind_t;

/* The fingerprint nodes idx[0..n) of s (indexes into s->nodes) ran on:
 * with JT_CONF_ONE, *value points to it (into s's labels); otherwise NULL.
 * O(n). */
jt_conformance_kind_t jt_conformance_of (const jt_snapshot_t *s,
                                         const size_t *idx, size_t n,
                                         const char **value);

/* The label a run's groups are classed by in Pack: its group-by label,
 * else JT_CONFORMANCE_LABEL with --conformance=strict, else NULL. */
const char *jt_run_class_label (const jt_run_t *r);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_CONFORMANCE_H */
