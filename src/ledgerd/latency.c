/*
 * latency.c - jobtree-ledgerd's latency histograms (latency.h).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "latency.h"

/* Bucket 0: under 1 us. Bucket 1 + 8e + s: [2^e (1 + s/8), 2^e (1 + (s+1)/8)) us. */
static size_t bucket_of (double us)
{
    int e;
    double m;

    if (!(us >= 1.0))                   /* NaN, negative, under 1 us */
        return 0;
    m = frexp (us, &e);                 /* us = m 2^e, m in [0.5, 1) */
    e -= 1;                             /* us = (2m) 2^e, 2m in [1, 2) */
    if (e >= LEDGERD_LAT_EXP)
        return LEDGERD_LAT_NB - 1;
    int s = (int) ((2.0 * m - 1.0) * LEDGERD_LAT_SUB);
    if (s >= LEDGERD_LAT_SUB)
        s = LEDGERD_LAT_SUB - 1;
    return 1 + (size_t) e * LEDGERD_LAT_SUB + (size_t) s;
}

static double upper_us (size_t i)
{
    if (i == 0)
        return 1.0;
    i--;
    return ldexp (1.0 + (double) (i % LEDGERD_LAT_SUB + 1) / LEDGERD_LAT_SUB,
                  (int) (i / LEDGERD_LAT_SUB));
}

void ledgerd_lat_add (struct ledgerd_lat *h, double seconds)
{
    if (!(seconds > 0))
        seconds = 0;
    h->b[bucket_of (seconds * 1e6)]++;
    h->n++;
    if (seconds > h->max)
        h->max = seconds;
}

double ledgerd_lat_quantile (const struct ledgerd_lat *h, double q)
{
    uint64_t want, seen = 0;

    if (!h->n || !(q > 0))
        return 0;
    if (q > 1)
        q = 1;
    want = (uint64_t) ceil (q * (double) h->n);
    if (want < 1)
        want = 1;
    for (size_t i = 0; i < LEDGERD_LAT_NB; i++) {
        seen += h->b[i];
        if (seen >= want) {
            if (i == LEDGERD_LAT_NB - 1)    /* the last: whatever is past it */
                return h->max;
            double up = upper_us (i) * 1e-6;
            return up < h->max ? up : h->max;
        }
    }
    return h->max;
}

void ledgerd_lat_format (const struct ledgerd_lat *h, char *buf, size_t len)
{
    snprintf (buf, len, "p50 %.2f p99 %.2f p99.9 %.2f max %.2f ms",
              ledgerd_lat_quantile (h, 0.50) * 1e3, ledgerd_lat_quantile (h, 0.99) * 1e3,
              ledgerd_lat_quantile (h, 0.999) * 1e3, h->max * 1e3);
}
