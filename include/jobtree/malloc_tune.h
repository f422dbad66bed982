/*
 * malloc_tune.h - glibc's allocator set for a process that parses ledger
 * records by the million (jobtree's CLI, jobtree-ledgerd, the benches).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_MALLOC_TUNE_H
#define JOBTREE_MALLOC_TUNE_H

/* Turn glibc's fastbins off (mallopt M_MXFAST 0) for this process. Call it
 * first in main, before any thread starts. Never from a plugin: slurmctld's
 * and slurmd's allocator is theirs. A no-op where mallopt is missing.
 *
 * Why: json-c gives every parsed object a hash table of 16 slots and
 * resizes it at the 11th key; a lease event has 13 to 15, so every record
 * asks for a 1,280-byte table, a "large" request for glibc, and each large
 * request first consolidates every fastbin chunk the record's small
 * allocations left. With fastbins off, small chunks go back to the tcache
 * and the unsorted bin and nothing is consolidated per record: `jobtree
 * verify -j 1` of 1M records went from 14.1 s to 10.9 s of CPU
 * (contrib/bench/bench_verify.md), the same allocations and frees. */
void jt_malloc_tune (void);

#endif /* JOBTREE_MALLOC_TUNE_H */
