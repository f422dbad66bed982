/*
 * prng.h - the one pseudo-random generator of the tests and benchmarks:
 * splitmix64 (Steele, Lea, Flood 2014) on a caller's 64-bit state, so a
 * fixed seed gives the same cases on every machine. Not for the library:
 * the lottery has its own, specified PRNG.
 *
 *   uint64_t st = seed;
 *   int k = prng_below (&st, 10);       (0..9)
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_TEST_PRNG_H
#define JT_TEST_PRNG_H

#include <stdint.h>

/* The next 64 random bits; advances *state. */
static inline uint64_t prng_next (uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) for n >= 1 (modulo bias is negligible for test sizes). */
static inline int prng_below (uint64_t *state, int n)
{
    return (int) (prng_next (state) % (uint64_t) n);
}

#endif /* JT_TEST_PRNG_H */
