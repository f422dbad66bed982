/*
 * latency.h - jobtree-ledgerd's latency histograms (latency.c): how long
 * its group commits' write + fdatasync and its acknowledgements took, for
 * the log line an admin reads to tell a slow disk from a slow daemon.
 *
 * Fixed size and no allocation: log-linear buckets, 8 per power of two of
 * microseconds (as HdrHistogram does with a precision of one significant
 * binary digit plus three), so a quantile is read within 12.5 % of the
 * true value, from 1 us to 2^41 us. Adding is O(1). Not thread-safe: one
 * writer, and a reader that the writer has handed it to.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_LEDGERD_LATENCY_H
#define JT_LEDGERD_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#define LEDGERD_LAT_SUB 8                          /* buckets per doubling */
#define LEDGERD_LAT_EXP 41                         /* doublings: 1 us to 2^41 us */
#define LEDGERD_LAT_NB (1 + LEDGERD_LAT_EXP * LEDGERD_LAT_SUB)

struct ledgerd_lat {
    uint64_t n;                     /* samples */
    uint64_t b[LEDGERD_LAT_NB];     /* b[0]: under 1 us */
    double max;                     /* seconds, exact */
};

/* Count one duration (seconds; a negative or NaN one counts as 0). */
void ledgerd_lat_add (struct ledgerd_lat *h, double seconds);

/* The q-quantile (0 < q <= 1) in seconds: the upper bound of the bucket
 * that holds it, never above the largest sample; 0 when empty. */
double ledgerd_lat_quantile (const struct ledgerd_lat *h, double q);

/* "p50 A p99 B p99.9 C max D ms" into buf (len bytes). */
void ledgerd_lat_format (const struct ledgerd_lat *h, char *buf, size_t len);

#endif /* JT_LEDGERD_LATENCY_H */
