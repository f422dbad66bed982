#!/usr/bin/env python3
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
"""failure-cost.py - GPU time lost per node failure, by failure strategy.

A model, not a measurement: runs of NODES nodes (8 GPUs each, groups of
GROUP nodes) train for HOURS with a checkpoint every CKPT; each node fails
at random (exponential, mean MTBF hours per node; seeded, so the same
arguments give the same figures); a failed node is repaired after REPAIR
hours. Every strategy redoes the work since the run's last checkpoint (the
failed node's processes died); they differ in how long the whole run then
stands still (all its GPUs idle):

  jobtree    --spares=1: the failed node's group swaps in its spare
             (SWAP s, measured in t2080: 28-155 ms, median 135 ms); a group
             whose spare is used up requeues the run (REQUEUE s, measured:
             11.1-11.6 s from nodes free to running again), which restarts
             with fresh spares; if no free node is there (probability
             1 - FREE) it waits for the repair.
  none       no spares: every failure requeues the run (REQUEUE s, or the
             repair when no node is free).
  one-by-one the Kubernetes peer: each failed node is replaced by a new one,
             one at a time (REPLACE s each, or the repair when no node is
             free); failures during a replacement queue behind it.
  n+1        one spare for the whole run (not per group, so possibly in
             another domain): the first failure swaps (SWAP s), a second
             before the run restarts requeues it.

Usage: contrib/failure-cost.py [--runs N] [--nodes N] [--group N]
       [--hours H] [--ckpt MIN] [--mtbf H] [--repair H] [--free P]
       [--replace S] [--seed N]
Prints, per strategy: failures, GPU-hours lost, GPU-hours lost per failure
and the share of the runs' GPU time lost.
"""
import argparse
import random

SWAP = 0.135        # s, t2080 median: node DOWN to the job told of its spare
REQUEUE = 11.4      # s, t2080: nodes free to the requeued run running again


def simulate(strategy, a, rng):
    """GPU-seconds lost and failures over a.runs runs of a.hours each."""
    gpus = 8 * a.nodes
    rate = 1.0 / (a.mtbf * 3600.0)          # per node per second
    lost = fails = 0.0
    for _ in range(a.runs):
        t, end = 0.0, a.hours * 3600.0
        since_start = 0.0                   # of the current incarnation
        spares = {g: 1 for g in range(a.nodes // a.group)}
        run_spare = 1
        while True:
            dt = rng.expovariate(rate * a.nodes)
            if t + dt >= end:
                break
            t += dt
            since_start += dt
            fails += 1
            group = rng.randrange(a.nodes // a.group)
            redo = since_start % (a.ckpt * 60.0)
            free = rng.random() < a.free
            wait = REQUEUE if free else a.repair * 3600.0
            if strategy == "jobtree":
                if spares[group] > 0:
                    spares[group] -= 1
                    down = SWAP
                else:
                    down = wait
                    spares = {g: 1 for g in spares}
                    since_start = 0.0
            elif strategy == "none":
                down = wait
                since_start = 0.0
            elif strategy == "one-by-one":
                down = a.replace if free else a.repair * 3600.0
            else:   # n+1
                if run_spare > 0:
                    run_spare -= 1
                    down = SWAP
                else:
                    down = wait
                    run_spare = 1
                    since_start = 0.0
            lost += gpus * (redo + down)
            end += down + redo              # the run still has its work to do
    return lost, fails


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--nodes", type=int, default=64)
    p.add_argument("--group", type=int, default=8)
    p.add_argument("--hours", type=float, default=168.0)
    p.add_argument("--ckpt", type=float, default=30.0, help="minutes")
    p.add_argument("--mtbf", type=float, default=24.0 * 365, help="hours per node")
    p.add_argument("--repair", type=float, default=4.0, help="hours")
    p.add_argument("--free", type=float, default=0.5,
                   help="probability a free node is there at a failure")
    p.add_argument("--replace", type=float, default=120.0,
                   help="seconds to replace one node (one-by-one)")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    for name, v, lo, hi in (("runs", a.runs, 1, 100000), ("nodes", a.nodes, 1, 65536),
                            ("group", a.group, 1, a.nodes), ("hours", a.hours, 0.01, 1e5),
                            ("ckpt", a.ckpt, 0.01, 1e6), ("mtbf", a.mtbf, 0.01, 1e9),
                            ("repair", a.repair, 0, 1e5), ("free", a.free, 0, 1),
                            ("replace", a.replace, 0, 1e6)):
        if not lo <= v <= hi:
            p.error("--%s=%s: must be %s..%s" % (name, v, lo, hi))
    if a.nodes % a.group:
        p.error("--nodes=%d is not a multiple of --group=%d" % (a.nodes, a.group))
    print("%d runs x %d nodes (%d GPUs, groups of %d) x %g h, checkpoint %g min, "
          "MTBF %g h/node, repair %g h, free node %.0f%%, seed %d"
          % (a.runs, a.nodes, 8 * a.nodes, a.group, a.hours, a.ckpt, a.mtbf, a.repair,
             100 * a.free, a.seed))
    print("%-11s %9s %12s %16s %8s" % ("strategy", "failures", "GPU-h lost",
                                       "GPU-h/failure", "lost %"))
    total = a.runs * a.hours * 8 * a.nodes
    for s in ("jobtree", "none", "one-by-one", "n+1"):
        lost, fails = simulate(s, a, random.Random(a.seed))
        print("%-11s %9d %12.1f %16.2f %7.2f%%" % (s, fails, lost / 3600.0,
              lost / 3600.0 / fails if fails else 0.0, 100.0 * lost / 3600.0 / total))


if __name__ == "__main__":
    main()
