/*
 * lottery.c - the published lottery's seed and draws (jobtree/lottery.h):
 * SHA-256 for the seed (OpenSSL, through sha256.c), SplitMix64 for the
 * stream, rejection for unbiased draws. Nothing else in libjobtree makes a
 * random choice.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/lottery.h"
#include "jobtree/timeutil.h"
#include "util/sha256.h"

int jt_lottery_seed (const char *scope, const char *resv_id, int64_t time,
                     uint64_t *rho, jt_error_t *err)
{
    char t[40], hex[65], *buf;
    size_t len;
    int rc;

    *rho = 0;
    if (!scope || !resv_id || jt_time_format (time, t, sizeof (t)) < 0)
        return jt_errprintf (err, "lottery seed: no scope, reservation or time");
    len = strlen (scope) + strlen (resv_id) + strlen (t) + 3;
    if (!(buf = malloc (len)))
        return jt_errprintf (err, "lottery seed: out of memory");
    snprintf (buf, len, "%s|%s|%s", scope, resv_id, t);
    rc = jt_sha256_hex (buf, strlen (buf), hex);
    free (buf);
    if (rc < 0)
        return jt_errprintf (err, "lottery seed: SHA-256 failed");
    hex[16] = '\0';
    *rho = (uint64_t) strtoull (hex, NULL, 16);
    return 0;
}

void jt_lottery_init (jt_lottery_t *l, uint64_t rho)
{
    l->seed = l->state = rho;
}

uint64_t jt_lottery_next (jt_lottery_t *l)
{
    uint64_t z = (l->state += UINT64_C (0x9E3779B97F4A7C15));

    z = (z ^ (z >> 30)) * UINT64_C (0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C (0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t jt_lottery_below (jt_lottery_t *l, uint64_t n)
{
    uint64_t threshold, r;

    if (n <= 1)
        return 0;
    threshold = (UINT64_C (0) - n) % n;     /* 2^64 mod n */
    do
        r = jt_lottery_next (l);
    while (r < threshold);
    return r % n;
}
