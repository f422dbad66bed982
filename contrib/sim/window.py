#!/usr/bin/env python3
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
"""window.py - the cluster tests' compare.sh windows in `jobtree sim`.

    contrib/sim/window.py trace WORKLOAD > trace.csv
    contrib/sim/window.py summary JOBS_CSV NODES

`trace` turns a compare.sh workload ("job offset_s duration_s gpus team"
lines, tests/cluster/mkworkload.py) into jobtree sim's CSV: each job a run
of one group (--group-gpus=GPUS, as compare.sh submits it to Jobtree), no
time limit of its own (give --limit-factor as JT_COMPARE_LIMIT, x100).

`summary` prints, per policy of a `jobtree sim --out` jobs.csv, compare.sh's
columns for a cluster of NODES 8-GPU nodes: split/multi-node, makespan,
mean and p95 wait (p95 as compare.sh takes it: the int(0.95 n)-th), the
mean wait of the jobs of the most nodes, how many later jobs start before
each of those, and node-seconds run over NODES x makespan.
"""
import csv
import sys


def trace(path):
    print("id,submit_s,duration_s,time_limit_s,gpus,nodes,owner,flavor,options")
    for line in open(path):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        job, off, dur, gpus, team = f[:5]
        print("%s,%s,%s,0,%s,,%s,,--group-gpus=%s" % (job, off, dur, gpus, team, gpus))


def summary(path, nodes):
    by = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            by.setdefault(r["policy"], []).append(r)
    print("# policy  split/multi-node  makespan_s  mean_wait_s  p95_wait_s  "
          "big_wait_s  overtaken  util")
    for policy, rows in by.items():
        jobs = [(int(r["submit_s"]), int(r["start_s"]), int(r["end_s"]),
                 -(-int(r["gpus"]) // 8), int(r["split"])) for r in rows
                if r["start_s"] != ""]
        first = min(j[0] for j in jobs)
        span = max(max(j[2] for j in jobs) - first, 1)
        waits = sorted(j[1] - j[0] for j in jobs)
        p95 = waits[min(len(waits) - 1, int(0.95 * len(waits)))]
        most = max(j[3] for j in jobs)
        big = [j for j in jobs if j[3] == most]
        over = [sum(1 for o in jobs if o[0] > b[0] and o[1] < b[1]) for b in big]
        util = sum((j[2] - j[1]) * j[3] for j in jobs) / (nodes * span)
        multi = sum(1 for j in jobs if j[3] > 1)
        split = sum(1 for j in jobs if j[3] > 1 and j[4] > 0)
        print("%s  %d/%d  %d  %.1f  %d  %.1f  %.1f  %.3f" % (
            policy, split, multi, span, sum(waits) / len(waits), p95,
            sum(b[1] - b[0] for b in big) / len(big), sum(over) / len(over), util))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "trace":
        trace(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "summary":
        summary(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__.strip().split("\n\n")[1])
