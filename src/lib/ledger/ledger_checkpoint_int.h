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

#include <stddef.h>

#include "jobtree/error.h"
#include "jobtree/ledger.h"

/* Keep history from now on in a fold restored from a checkpoint
 * (ledger_checkpoint_restore.c): its open leases become history rows. 0,
 * or -1 with err (ENOMEM). */
int jt_ckpt_keep_history (jt_ledger_fold_t *f, jt_error_t *err);

/* stateSha256: the SHA-256 of the n parts' state texts concatenated, in
 * lowercase hex (ledger_checkpoint.c). 0, or -1 on ENOMEM. */
int jt_ckpt_parts_sha (const char *const *texts, size_t n, char hex[65]);

#endif /* JT_LEDGER_CHECKPOINT_INT_H */
