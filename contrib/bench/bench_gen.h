/*
 * bench_gen.h - the synthetic lease ledger the ledger benchmarks share
 * (bench_ledger, bench_verify): its events and a ledger of them written as
 * jobtree-ledgerd writes it.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef BENCH_GEN_H
#define BENCH_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobtree/error.h"

/* The first slot's start (2026-01-01T00:00:00Z). */
#define BENCH_T0 ((int64_t) 1767225600)

/* Event i of the workload, its id PREFIX<i>: slot i / 2000 holds 1000
 * Starts, then their 1000 Ends (lease k = slot * 1000 + i % 1000, on node
 * k % 1000, 8 GPUs, an hour's slot, ended after 3000 s); 10 owners with two
 * envelopes each; every 10th lease Borrowed. Written to buf (len bytes, 512
 * is enough); returns its length. */
int bench_lease_event (uint64_t i, const char *prefix, char *buf, size_t len);

/* A ledger of events 0 .. n - 1 (bench_lease_event with prefix) in the
 * new directory ldir, written as jobtree-ledgerd writes it: 64 MiB
 * segments, a Checkpoint of the fold after every ckpt_every events (0:
 * none). forget_ids: the fold that makes the checkpoints keeps no event
 * ids (jt_ledger_fold_forget_ids, as the daemon's). 0, or -1 with err. */
int bench_build_ledger (const char *ldir, uint64_t n, const char *prefix,
                        uint64_t ckpt_every, bool forget_ids, jt_error_t *err);

#endif /* BENCH_GEN_H */
