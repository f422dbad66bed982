/*
 * libc_tune.h - the C library set for a process that parses ledger records
 * by the million (jobtree's CLI, the benches, the reader's own threads):
 * glibc's allocator, and a thread's locale.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_LIBC_TUNE_H
#define JOBTREE_LIBC_TUNE_H

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

/* Make the calling thread's locale the C locale (uselocale), for a thread
 * whose process never changes its own (jobtree's CLI, a thread the library
 * starts to parse). Nothing prints differently: such a process is in the
 * C locale. A no-op where uselocale is missing.
 *
 * Why: json-c's parse keeps numbers in the C locale by copying the
 * thread's locale (duplocale) and making a C one from it (newlocale) for
 * every text it parses, and freeing both after. From the process's global
 * locale that is two allocations and glibc's process-wide locale lock,
 * taken for writing, per record, which threads parsing side by side
 * contend for; from the C locale itself glibc copies and frees nothing.
 * `jobtree verify -j 2` of 1M records: 4.75 s median against 4.57 s
 * (contrib/bench/bench_verify.md). */
void jt_locale_c_thread (void);

#endif /* JOBTREE_LIBC_TUNE_H */
