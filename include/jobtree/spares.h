/*
 * jobtree/spares.h - what a run with spares does when nodes fail, and the
 * layout the job is told (groups, their nodes, their spares, the swaps).
 *
 * A run given --spares=N holds N whole spare nodes per group in the
 * group's own domain (Pack places them; the record's "bound" lease of the
 * group lists them as "spares", jobtree/record.h). When nodes of the run
 * fail, slurmctld takes them out of the job (--no-kill semantics, which
 * job_submit sets for runs with spares) and the select plugin asks
 * jt_spares_on_fail with the record and the nodes the job still holds:
 *
 *   JT_SPARES_NONE     no node of a group is missing (a spare itself
 *                      failed, or the run has no spares): nothing to swap;
 *                      the lease events are the usual ones (jt_lease_resized);
 *   JT_SPARES_SWAP     every group that lost nodes has as many spares still
 *                      held: each missing node is replaced, in the group's
 *                      node order, by the group's next held spare in its
 *                      spare order; `record` is the record with the spares
 *                      in the failed nodes' places (jt_jobrec_rebind, a
 *                      "swaps" entry each) and `swaps` lists them;
 *   JT_SPARES_REQUEUE  some group lost more nodes than it has spares held:
 *                      the whole run is requeued (never half a gang); its
 *                      leases end Fail now and it holds none until it runs
 *                      again.
 *
 * Several nodes failing at once are one decision over all of them (all
 * swapped, or the run requeued). A failed node is one of a group's nodes
 * the job no longer holds. The decision is pure: the same record and held
 * nodes give the same answer, whatever order the nodes come in.
 *
 * Only a group's own spares replace its nodes; spares are never taken
 * from another group. Pack puts them in the group's domain, or, with
 * fabric levels and no domain holding the group with them, in another
 * domain of the group's block (jobtree/pack.h, "Spares"): a swap then
 * leaves the group across two domains of one block, which costs its
 * collectives less than a restart of the whole run costs it
 * (docs/packing.md). The decision is the same either way; jt_spares_spans
 * says so in its text.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_SPARES_H
#define JOBTREE_SPARES_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "record.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jt_spares_verdict {
    JT_SPARES_NONE = 0,
    JT_SPARES_SWAP,
    JT_SPARES_REQUEUE,
} jt_spares_verdict_t;

typedef struct jt_spares_swap {
    int group;
    char *failed;               /* the node that failed */
    char *spare;                /* the spare that takes its place */
} jt_spares_swap_t;

typedef struct jt_spares_decision {
    jt_spares_verdict_t verdict;
    jt_spares_swap_t *swaps;    /* SWAP: by group, then node order */
    size_t nswaps;
    char *record;               /* SWAP: the new record text (malloc'd) */
    char detail[256];           /* one line: what was swapped, or why the
                                 * run is requeued */
} jt_spares_decision_t;

/* Decide for the record text rec_text (a job's admin_comment, bound) that
 * holds the nodes held[0..nheld) now, at time now (the swaps' time).
 * Returns 0 with *out filled (free with jt_spares_decision_free), or -1
 * with err (the record does not parse, ENOMEM; *out is then empty). */
int jt_spares_on_fail (const char *rec_text, const char *const *held,
                       size_t nheld, int64_t now, jt_spares_decision_t *out,
                       jt_error_t *err);

void jt_spares_decision_free (jt_spares_decision_t *d);

/* For a SWAP decision d on the nodes of snapshot s: append to d->detail,
 * for each group a swap put across two domains (its failed node's and its
 * spare's), "; group 0 now spans two domains of block B1 (A, B)" (or
 * "spans domains A and B" when they share no block). Nodes s does not know
 * are skipped. Returns how many groups it named (0 for another verdict, a
 * NULL d or s). O(swaps x log nodes). */
int jt_spares_spans (jt_spares_decision_t *d, const jt_snapshot_t *s);

const char *jt_spares_verdict_str (jt_spares_verdict_t v);

/* ---- the layout the job is told ----
 *
 * JSON (one object, keys in this order):
 *   {"version":1,"job":42,"groups":[{"group":0,"nodes":[...],
 *    "spares":[...],"swaps":[{"failed":"a03","spare":"a05",
 *    "time":"..."}]},...]}
 * groups in the record's order; "spares" are the group's spares not yet
 * swapped in; "swaps" is present only after a swap. */
char *jt_spares_layout_json (const jt_jobrec_t *rec, uint32_t job_id,
                             jt_error_t *err);

/* Where node is in the layout: its group (returned, >= 0) and whether it
 * is one of that group's spares (*spare), or -1 when the run does not use
 * the node (not bound, or failed and swapped out). */
int jt_spares_node_group (const jt_jobrec_t *rec, const char *node, bool *spare);

/* The names of a group's nodes (spare false) or spares, comma-separated,
 * into buf: 0, or -1 when they do not fit (buf then ""). */
int jt_spares_group_list (const jt_jobrec_lease_t *b, bool spare, char *buf,
                          size_t len);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_SPARES_H */
