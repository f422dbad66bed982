/*
 * fixtures.h - the helpers shared by the unit tests (one copy, linked into
 * every test that needs it): diagnostics as text, parsing with the
 * diagnostics returned, every single-byte corruption of a document; and for
 * the Cover and Plan tests budgets and runs from inline JSON, snapshots from
 * node ranges, times from RFC 3339. The fx_budgets/fx_run/fx_nodes family
 * bails out of the test (TAP "Bail out!") on bad input, so a typo in a
 * fixture is never mistaken for a rule failing.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_TEST_FIXTURES_H
#define JT_TEST_FIXTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobtree/budget.h"
#include "jobtree/run.h"
#include "jobtree/snapshot.h"
#include "jobtree/cover.h"
#include "jobtree/plan.h"
#include "jobtree/pack.h"

/* The instant most tests decide at, and a window around it. */
#define FX_NOW "2026-03-01T12:00:00Z"
#define FX_WINDOW "\"start\": \"2026-01-01T00:00:00Z\", \"end\": \"2027-01-01T00:00:00Z\""

/* One envelope object: name, flavor h100, selector body, concurrency, and
 * extra fields (",\"maxGPUHours\": 10" or ""). */
#define FX_ENV(name, sel, conc, extra) \
    "{ \"name\": \"" name "\", \"flavor\": \"h100\", \"selector\": { " sel \
    " }, " FX_WINDOW ", \"concurrency\": " #conc extra " }"

/* A budget file of an owner whose one envelope, <owner>-h100 (no
 * selector), lends (allow: true or false) to the owners listed in `to`
 * ("\"*\"", "\"rai\", \"nlp\""), with extra lending fields. */
#define FX_LENDER(owner, conc, allow, to, extra) \
    "{ \"owner\": \"" owner "\", \"envelopes\": [" \
    FX_ENV (owner "-h100", "", conc, ", \"lending\": { \"allow\": " #allow "," \
            " \"to\": [" to "]" extra " }") "] }"

/* All diagnostics of d as "file:line:col: path: msg" lines, each ending in
 * a newline ("" for none). Static buffer, overwritten by the next call. */
char *fx_diags_text (const jt_diags_t *d);

/* The kinds of JSON document the library both parses and writes. */
typedef enum { FX_RUN, FX_SNAPSHOT } fx_doc_t;

/* Parse text as file "r.json" / "s.json" and return the diagnostics as
 * fx_diags_text does ("" when it parsed; "NULL without a diagnostic" if it
 * failed silently; "a run AND diagnostics: ..." / "a snapshot AND ..." if
 * it parsed with diagnostics). The result is kept in *out when out is not
 * NULL (caller destroys), else destroyed. Static buffer, overwritten by the
 * next call. */
const char *fx_parse_run (const char *text, jt_run_t **out);
const char *fx_parse_snapshot (const char *text, jt_snapshot_t **out);

/* Every single-byte corruption of text: each byte replaced in turn by each
 * of the bytes "{}[],:0-9.xe\ and space and newline that differs from it.
 * check(buf, len, arg) gets each variant (NUL-terminated, len bytes) and
 * returns how many problems it found; the sum is returned and the number
 * of variants put in *total. */
typedef size_t (*fx_corrupt_f) (const char *buf, size_t len, void *arg);
size_t fx_corruptions (const char *text, fx_corrupt_f check, void *arg,
                       size_t *total);

/* How many prefixes of a document of kind k, text (all those shorter than
 * text less its final newline), parse or are refused without a diagnostic
 * (each should be refused with one). */
size_t fx_truncations (fx_doc_t k, const char *text);

/* A check for fx_corruptions, arg pointing to an fx_doc_t: the variant
 * either parses and its canonical JSON parses back to the same JSON, or is
 * refused with a diagnostic. Returns the number of problems found. */
size_t fx_round_trip (const char *buf, size_t len, void *arg);

/* The end of fx_budgets' list (a typed null pointer, as a variadic
 * function needs). */
#define FX_END ((const char *) NULL)

/* Budgets from JSON documents ending with FX_END (added then finalized). */
jt_budgets_t *fx_budgets (const char *doc, ...);

/* A run from its JSON text. */
jt_run_t *fx_run (const char *json);

/* Seconds since the epoch of an RFC 3339 time. */
int64_t fx_time (const char *s);

/* Add count nodes named prefix01.. (width 2) with labels "k=v,k=v", flavor
 * h100 and gpus GPUs each, of which the first `used` nodes are fully used. */
void fx_nodes (jt_snapshot_t *s, const char *prefix, int first, int count,
               const char *labels, int gpus, int used);

/* A finalized snapshot of 8-GPU h100 nodes from a spec: ';'-separated
 * entries "FIRST-LAST [busy=N] LABELS", e.g. "w01-w08 busy=2
 * region=west,fabric.domain=W; e01-e04 region=east,fabric.domain=E"
 * (nodes FIRST to LAST, the first N of them fully used, fx_nodes' labels).
 * Bails out on a bad spec. */
jt_snapshot_t *fx_cluster (const char *spec);

/* Add to u (jt_usage_init'ed over b) each ' '-separated entry
 * "ENVELOPE:OWNER:GPUS[:ROLE[:GPU-HOURS]]" (role as jt_role_parse reads
 * it, default Active; hours default 0): the GPUs OWNER's leases of that
 * role use in ENVELOPE. Bails out on a bad entry or unknown envelope. */
void fx_use (jt_usage_t *u, const jt_budgets_t *b, const char *spec);

/* Add one free, up h100 node with 8 GPUs and the labels of the Slurm
 * feature string `features` ("fabric.domain=A,conformance=x"). */
void fx_node (jt_snapshot_t *s, const char *name, const char *features);

/* Pack r on v and return the placement's dump, or "None(Reason): detail",
 * or "error: ..." (static buffer, overwritten by the next call); with
 * values, each group's --group-by value follows as " {v}" ("-" for none).
 * The placement is kept in *keep when keep is not NULL (caller frees). */
const char *fx_pack_text (jt_pack_view_t *v, const jt_snapshot_t *s,
                          const jt_pack_request_t *r, jt_placement_t *keep,
                          bool values);

/* Finalize s (bails out on error) and return it. */
jt_snapshot_t *fx_finalize (jt_snapshot_t *s);

/* Plan r at FX_NOW (usage from s) and return jt_plan_dump's text (static
 * buffer, overwritten by the next call); the plan is kept in *out when
 * out is not NULL (caller frees), else freed. */
const char *fx_plan (const jt_budgets_t *b, const jt_snapshot_t *s,
                     const jt_usage_t *u, const jt_run_t *r,
                     jt_pack_policy_t policy, jt_plan_t *out);

/* Random cases for property tests, from the tests' PRNG (splitmix64,
 * tests/tap/prng.h) so a seed gives the same cases on every machine. */
void fx_seed (uint64_t seed);
uint64_t fx_rand (void);
int fx_pick (int n);                    /* uniform in [0, n) */

/* Five owners (org; alpha, beta, gamma under org; delta under gamma) with
 * 0-2 h100 envelopes each (selector region west/east/none, random C, some
 * maxGPUHours, some lending to "*"), sometimes an aggregate cap. */
jt_budgets_t *fx_random_budgets (void);

/* 2-5 domains alternating regions west/east, 1-8 8-GPU nodes each, some
 * fully used. */
jt_snapshot_t *fx_random_cluster (void);

/* A run of a random owner: 8-96 GPUs, grouped or soft, spread on/off,
 * 1-8 h time limit, sometimes borrowing (with maxBorrowGPUs 16). */
jt_run_t *fx_random_run (void);

/* True iff, after adding the segments' charges to u, no charged envelope
 * is over C, B or a lending cap, and no cap containing one is over. */
bool fx_within_bounds (const jt_budgets_t *b, const jt_usage_t *u,
                       const jt_run_t *r, const jt_cover_seg_t *segs,
                       size_t nsegs);

#endif /* JT_TEST_FIXTURES_H */
