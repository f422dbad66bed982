/*
 * jobtree/ledger_checkpoint.h - the fold's state as Checkpoint records
 * (docs/ledger-format.md, "Checkpoint"): written by jobtree-ledgerd every
 * so many records, anchored in the chain like any record, so that a reader
 * (slurmctld's start-up replay, `jobtree verify --from-checkpoint`) loads
 * the state and folds only the records after it. `jobtree verify` checks
 * every checkpoint against its own fold from genesis.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_LEDGER_CHECKPOINT_H
#define JOBTREE_LEDGER_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "ledger.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A part's state text is cut after the entry that reaches this many bytes
 * (jt_ckpt_payloads' part_bytes: 0 takes this default); parts per
 * checkpoint are at most JT_CKPT_PARTS_MAX. */
#define JT_CKPT_PART_BYTES (256 * 1024)
#define JT_CKPT_PART_BYTES_MIN 1024
#define JT_CKPT_PART_BYTES_MAX (512 * 1024)
#define JT_CKPT_PARTS_MAX 4096

/* jt_ckpt_state_text flags: leave out what --budgets replaces (the caps
 * and owner of every envelope, and envelopes whose figures are all zero). */
#define JT_CKPT_NO_CAPS 1u
/* ... and the usage section (what the reports sum: a checkpoint written
 * by a fold that did not know it has none; verify compares it so). */
#define JT_CKPT_NO_USAGE 2u

/* The canonical text of f's whole state (one object: counters, envelopes,
 * budgets, usage when f knows it, open leases, open reservations; arrays
 * in name order), as one
 * part would hold it. Two folds with the same text hold the same state
 * (the node holder map aside: it is rebuilt from the open leases). NULL
 * with err (a GPU-second figure that is not an integer below 2^63 in
 * magnitude, ENOMEM). */
char *jt_ckpt_state_text (const jt_ledger_fold_t *f, unsigned flags, jt_error_t *err);

/* The Checkpoint records of f's state after record up_to, written at time:
 * *n canonical payloads (each at most JT_LEDGER_MAX_PAYLOAD bytes) in part
 * order, in malloc'd arrays (jt_ckpt_payloads_free). 0, or -1 with err. */
int jt_ckpt_payloads (const jt_ledger_fold_t *f, uint64_t up_to, int64_t time,
                      size_t part_bytes, char ***payloads, size_t **lens, size_t *n,
                      jt_error_t *err);
void jt_ckpt_payloads_free (char **payloads, size_t *lens, size_t n);

/* A fold holding the state of a checkpoint's parts (n events, part 1..n in
 * order, all of one checkpoint: the same upTo, parts and stateSha256, and
 * that hash over their state texts). Every number is range-checked and the
 * state must agree with itself (each envelope's active and borrowed GPUs
 * and start sums are its open leases'; names sorted and distinct). The
 * fold remembers no event ids (jt_ledger_fold_forget_ids). NULL with err
 * naming the part and field. */
jt_ledger_fold_t *jt_ckpt_restore (const jt_event_t *const *parts, size_t n,
                                   jt_error_t *err);

/* How a replay started (jt_ledger_fold_replay_dir_ckpt). */
typedef struct jt_replay_info {
    uint64_t ckpt_seq;          /* first record of the checkpoint used; 0: a
                                 * full fold from genesis */
    uint64_t up_to;             /* its upTo */
    uint64_t segments_read;     /* segments read (framed and hashed) */
    uint64_t records_read;      /* records read */
    uint64_t records_folded;    /* records folded (the tail) */
    char why[320];              /* a full fold: why no checkpoint was used
                                 * ("" when the ledger has none) */
    int refused;                /* ... because one did not restore (hash,
                                 * range or consistency: damaged or forged) */
    /* The ledger ends inside a checkpoint: its part 1's seq, its upTo and
     * the parts present of how many (a write cut short; 0: none). */
    uint64_t dangling_seq, dangling_up_to;
    int64_t dangling_part, dangling_parts;
    char dangling_sha256[65];   /* its stateSha256 */
} jt_replay_info_t;

/* jt_ledger_fold_replay_dir starting from the last complete checkpoint:
 * segments are scanned from the last one back until one holds a complete
 * checkpoint; from that segment on, the records are read (grammar, hash,
 * sequence and chain, the first record's prev trusted), the last complete
 * checkpoint is restored and the records after it folded. A checkpoint
 * that does not restore (hash, range or consistency) is refused: *info->why
 * says why and the ledger is folded from genesis. Violations are counted in
 * the records folded only. info may be NULL. */
jt_ledger_fold_t *jt_ledger_fold_replay_dir_ckpt (const char *dir,
                                                  jt_ledger_result_t *res,
                                                  uint64_t *nviolations,
                                                  jt_violation_t *first,
                                                  jt_replay_info_t *info,
                                                  jt_error_t *err);

/* jt_ledger_fold_history_dir_ckpt flags: reservations too (the window's
 * reservations: none it closed may close at or after since). */
#define JT_CKPT_HIST_RESV 1u

/* `jobtree report` over a window starting at since: from the latest
 * checkpoint that closed no lease ending at or after since (its
 * closedUntil < since; with JT_CKPT_HIST_RESV also no reservation closed
 * at or after since: its usage's resvClosedUntil < since), a fold that
 * keeps history from there on (its open leases and reservations are
 * history rows; those closed before it fall outside the window). 1 with
 * *out, 0 when no checkpoint can serve (none, unusable: info->why, and
 * info->refused when one did not restore; read from genesis then), -1
 * with err. Violations are counted as by a replay. */
int jt_ledger_fold_history_dir_ckpt (const char *dir, int64_t since, unsigned flags,
                                     jt_ledger_fold_t **out, jt_ledger_result_t *res,
                                     uint64_t *nviolations, jt_violation_t *first,
                                     jt_replay_info_t *info, jt_error_t *err);

/* `jobtree verify --from-checkpoint`: jt_ledger_verify from the last
 * complete checkpoint (trusted: its state is loaded, not checked against
 * the records before it), the records after it folded with the checks of
 * event order (a live fold's: no lease time, no Cover's rules, which need
 * the whole history) and every later checkpoint compared with the fold.
 * A ledger with no usable checkpoint is verified in full (info->why says
 * why). Returns as jt_ledger_verify. */
int jt_ledger_verify_from_checkpoint (const char *const *paths, size_t npaths,
                                      const jt_event_t *caps, jt_ledger_result_t *res,
                                      jt_violation_t *v, jt_ledger_fold_t **fold,
                                      jt_replay_info_t *info, jt_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_LEDGER_CHECKPOINT_H */
