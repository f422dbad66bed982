/*
 * ledger_latency.c - unit tests of jobtree-ledgerd's latency histograms
 * (src/ledgerd/latency.c): every quantile within one bucket (12.5 %) of
 * the true one and never below it, never above the largest sample, and
 * what no duration can be (negative, NaN, huge) kept in range.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"
#include "tap.h"
#include "prng.h"

/* The true q-quantile of the n sorted values v (the ceil(q n)-th). */
static double true_q (const double *v, size_t n, double q)
{
    size_t k = (size_t) ceil (q * (double) n);
    return v[(k ? k : 1) - 1];
}

static int cmp (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static void test_empty_and_one (void)
{
    struct ledgerd_lat h = { 0 };
    char buf[128];

    ok (ledgerd_lat_quantile (&h, 0.99) == 0, "an empty histogram's p99 is 0");
    ledgerd_lat_add (&h, 3e-3);
    ok (ledgerd_lat_quantile (&h, 0.5) == 3e-3 && ledgerd_lat_quantile (&h, 0.999) == 3e-3,
        "one sample of 3 ms: every quantile is 3 ms (the bucket's bound, capped by the max)");
    ledgerd_lat_format (&h, buf, sizeof (buf));
    is (buf, "p50 3.00 p99 3.00 p99.9 3.00 max 3.00 ms", "the log's text");
}

static void test_odd_values (void)
{
    struct ledgerd_lat h = { 0 };

    ledgerd_lat_add (&h, -1.0);
    ledgerd_lat_add (&h, NAN);
    ledgerd_lat_add (&h, 0.0);
    ok (h.n == 3 && h.b[0] == 3 && h.max == 0, "negative, NaN and 0 count as under 1 us");
    ledgerd_lat_add (&h, 1e12);
    ok (h.b[LEDGERD_LAT_NB - 1] == 1 && h.max == 1e12,
        "a duration past 2^41 us goes to the last bucket; the max stays exact");
    ok (ledgerd_lat_quantile (&h, 1.0) == 1e12, "the 1-quantile is the max");
    ok (ledgerd_lat_quantile (&h, 0.5) <= 1e-6, "the median is under 1 us");
    ok (ledgerd_lat_quantile (&h, 7.0) == 1e12 && ledgerd_lat_quantile (&h, NAN) == 0,
        "q above 1 reads as 1; a NaN q reads 0");
}

/* Random durations over six decades: each quantile asked is at or above
 * the true one and within 12.5 % of it. */
static void test_bounds (void)
{
    static double v[20000];
    const double qs[] = { 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0 };
    struct ledgerd_lat h = { 0 };
    uint64_t r = 35;
    size_t n = sizeof (v) / sizeof (v[0]);
    int bad = 0;

    for (size_t i = 0; i < n; i++) {
        v[i] = 1e-6 * pow (10.0, 6.0 * (double) (prng_next (&r) >> 11) / 9007199254740992.0);     /* 1 us to 1 s */
        ledgerd_lat_add (&h, v[i]);
    }
    qsort (v, n, sizeof (v[0]), cmp);
    for (size_t k = 0; k < sizeof (qs) / sizeof (qs[0]); k++) {
        double t = true_q (v, n, qs[k]), got = ledgerd_lat_quantile (&h, qs[k]);
        if (!(got >= t && got <= t * 1.125)) {
            diag ("q %.3f: true %.9f s, read %.9f s", qs[k], t, got);
            bad++;
        }
    }
    ok (!bad, "7 quantiles of 20,000 durations from 1 us to 1 s: each at or above the "
              "true one, within 12.5 %%");
}

int main (void)
{
    test_empty_and_one ();
    test_odd_values ();
    test_bounds ();
    return done_testing ();
}
