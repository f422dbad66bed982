/*
 * lottery.c - unit tests of the published lottery (jobtree/lottery.h): the
 * seed from (scope, reservation, time), SplitMix64's reference outputs, and
 * unbiased draws; the vectors are the ones docs/lottery.md publishes
 * (computed independently from the algorithm's definition).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "jobtree/lottery.h"
#include "fixtures.h"
#include "tap.h"

int main (void)
{
    jt_lottery_t l;
    uint64_t rho = 1;
    jt_error_t err;
    char buf[256];
    static const uint64_t ns[] = { 3, 2, 5, 7, 1000000007 };
    size_t len = 0;

    jt_lottery_init (&l, 0);
    is_int (jt_lottery_next (&l) == UINT64_C (0xe220a8397b1dcdaf), 1,
            "SplitMix64 from 0: first output");
    is_int (jt_lottery_next (&l) == UINT64_C (0x6e789e6aa1b965f4), 1, "second");
    is_int (jt_lottery_next (&l) == UINT64_C (0x06c45d188009454f), 1, "third");
    is_int (jt_lottery_next (&l) == UINT64_C (0xf88bb8a8724c81ec), 1, "fourth");

    ok (jt_lottery_seed ("west/A,west/B", "r-42", fx_time (FX_NOW), &rho, &err) == 0,
        "seed computed");
    snprintf (buf, sizeof (buf), "%016" PRIx64, rho);
    is (buf, "78eed114d2849c14",
        "rho = first 8 bytes of SHA-256(\"west/A,west/B|r-42|2026-03-01T12:00:00Z\")");
    jt_lottery_init (&l, rho);
    snprintf (buf, sizeof (buf), "%016" PRIx64, jt_lottery_next (&l));
    is (buf, "db3913c73bfb93c8", "first output from rho");

    jt_lottery_init (&l, rho);
    for (size_t i = 0; i < sizeof (ns) / sizeof (ns[0]); i++)
        len += (size_t) snprintf (buf + len, sizeof (buf) - len, "%s%" PRIu64,
                                  i ? " " : "", jt_lottery_below (&l, ns[i]));
    is (buf, "2 1 0 6 45836446", "draws below 3, 2, 5, 7, 1000000007 from rho");

    jt_lottery_init (&l, rho);
    is_int ((int) jt_lottery_below (&l, 1), 0, "a choice among one is 0");
    is_int (l.state == rho, 1, "and draws nothing");
    is_int ((int) jt_lottery_below (&l, 0), 0, "among none: 0, nothing drawn");

    jt_lottery_init (&l, UINT64_C (0x8000000000000000));
    {
        /* n = 2^63 + 1: threshold = 2^63 - 1, about half the values are
         * rejected; every answer must still be below n. */
        uint64_t n = UINT64_C (0x8000000000000001), bad = 0;
        for (int i = 0; i < 1000; i++)
            bad += jt_lottery_below (&l, n) >= n;
        is_int ((int) bad, 0, "rejection keeps huge draws in range");
    }
    ok (jt_lottery_seed (NULL, "r", 0, &rho, &err) < 0 && rho == 0,
        "no scope: an error, rho 0: %s", err.text);
    done_testing ();
}
