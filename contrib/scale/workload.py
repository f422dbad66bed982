#!/usr/bin/env python3
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
"""workload.py - the scale harness's jobs: "nodes duration_s" lines.

    contrib/scale/workload.py [--jobs N] [--seed S]

N jobs (default 2000) whose sizes are drawn uniformly from 1, 4, 16 and 64
nodes and whose durations uniformly from 20..100 s, with Python's
random.Random(S) (default seed 12), so every run and every variant submits
the same sequence in the same order.
"""
import argparse
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=12)
    a = ap.parse_args()
    if not 1 <= a.jobs <= 100000:
        ap.error("--jobs must be in [1, 100000]")
    rng = random.Random(a.seed)
    for _ in range(a.jobs):
        print(rng.choice((1, 4, 16, 64)), rng.randint(20, 100))


if __name__ == "__main__":
    main()
