/*
 * jobtree/lottery.h - the published lottery of contention (DESIGN decision
 * 5): its seed and its draws, reproducible by anyone from the ledger.
 *
 * Seed:  rho = the first 8 bytes, big-endian, of
 *        SHA-256(scope "|" reservation id "|" time), time in RFC 3339 UTC
 *        ("2026-03-01T12:00:00Z"). rho is written into every event the
 *        lottery causes.
 * PRNG:  SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom
 *        number generators", OOPSLA 2014; Java's SplittableRandom), state
 *        starting at rho:
 *          state += 0x9E3779B97F4A7C15
 *          z = state
 *          z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
 *          z = (z ^ (z >> 27)) * 0x94D049BB133111EB
 *          return z ^ (z >> 31)
 * Draw:  uniform in [0, n): take the next value r, reject while
 *        r < (2^64 - n) mod n (no modulo bias), answer r mod n; n <= 1
 *        answers 0 without drawing.
 * docs/lottery.md has test vectors; tests/unit/lottery.c checks them.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_LOTTERY_H
#define JOBTREE_LOTTERY_H

#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jt_lottery {
    uint64_t seed;              /* rho, as published */
    uint64_t state;
} jt_lottery_t;

/* rho for a scope, a reservation id and an instant. 0 with err set only
 * when hashing fails. */
int jt_lottery_seed (const char *scope, const char *resv_id, int64_t time,
                     uint64_t *rho, jt_error_t *err);

void jt_lottery_init (jt_lottery_t *l, uint64_t rho);
uint64_t jt_lottery_next (jt_lottery_t *l);

/* Uniform in [0, n). n <= 1 answers 0 and draws nothing (a choice among
 * one is no draw), so verify replays exactly the draws that mattered. */
uint64_t jt_lottery_below (jt_lottery_t *l, uint64_t n);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_LOTTERY_H */
