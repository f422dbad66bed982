/*
 * ledger_checkpoint_int.h - what the checkpoint (ledger_checkpoint.c,
 * ledger_checkpoint_restore.c) offers the replay above it
 * (ledger_fold_replay.c) besides jobtree/ledger_checkpoint.h; not public
 * API.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_LEDGER_CHECKPOINT_INT_H
#define JT_LEDGER_CHECKPOINT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "jobtree/error.h"
#include "jobtree/ledger.h"

struct lease;

/* Reading a state's text (ledger_checkpoint_read.c): where a problem is
 * ("checkpoint part K: SECTION[I]"), and the readers that name it. Each
 * returns 0, or -1 (NULL) with err "WHERE.KEY: what". */
struct jt_ckpt_rd {
    jt_error_t *err;
    char where[96];
};
int jt_ckpt_bad (struct jt_ckpt_rd *r, const char *key, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
/* An integer in [lo, hi]. */
int jt_ckpt_rd_int (struct jt_ckpt_rd *r, json_object *o, const char *key, int64_t lo,
                    int64_t hi, int64_t *out);
/* A string (malloc'd; required or not, non-empty or not). */
int jt_ckpt_rd_str (struct jt_ckpt_rd *r, json_object *o, const char *key, bool req,
                    bool nonempty, char **out);
/* An object with no key outside keys (NULL-terminated). */
int jt_ckpt_rd_keys (struct jt_ckpt_rd *r, json_object *o, const char *const *keys);
json_object *jt_ckpt_rd_array (struct jt_ckpt_rd *r, json_object *o, const char *key);
/* Part 1's usage section into f (none: f does not know usage). */
int jt_ckpt_rd_usage (struct jt_ckpt_rd *r, jt_ledger_fold_t *f, json_object *st);
/* f's usage against the rest of its state, its n open leases given. */
int jt_ckpt_usage_check (struct jt_ckpt_rd *r, jt_ledger_fold_t *f,
                         const struct lease *const *open, size_t n);

/* Keep history from now on in a fold restored from a checkpoint
 * (ledger_checkpoint_restore.c): its open leases become history rows. 0,
 * or -1 with err (ENOMEM). */
int jt_ckpt_keep_history (jt_ledger_fold_t *f, jt_error_t *err);

/* stateSha256: the SHA-256 of the n parts' state texts concatenated, in
 * lowercase hex (ledger_checkpoint.c). 0, or -1 on ENOMEM. */
int jt_ckpt_parts_sha (const char *const *texts, size_t n, char hex[65]);

/* The block a reader from a checkpoint scans a segment by, from its end
 * back, for the last checkpoint's bytes (ledger_fold_replay.c; 1 MiB).
 * Tests set it small to cross blocks; nothing else changes it. */
extern size_t jt_ckpt_scan_block;

#endif /* JT_LEDGER_CHECKPOINT_INT_H */
