#!/usr/bin/env python3
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
"""mkworkload.py - derive a compare.sh workload from the Philly 2017 trace.

    tests/cluster/mkworkload.py TRACE [--from S] [--multi N] [--single N]
        [--rate JOBS_PER_S] [--base S] [--div D] [--cap S] [--team NAME]

Takes, from submit_s >= S in submit order (ties by job id), the first N
jobs of 16-32 GPUs (2-4 whole nodes of 8) and the first N of 8 GPUs (one
node), merged in submit order. Arrivals are compressed to RATE jobs per
second (offset = index // RATE), durations to min(CAP, BASE + duration_s //
D) seconds. --team puts every job under one account (so one envelope's
concurrency is the cluster's, and funding binds whenever the cluster is
full); otherwise each job keeps its Philly virtual cluster as its account.
Prints "job offset_s duration_s gpus team" lines with a header saying how
they were made, so a committed workload documents itself.
"""
import argparse
import csv
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--from", dest="start", type=int, default=1596762)
    ap.add_argument("--multi", type=int, default=51)
    ap.add_argument("--single", type=int, default=99)
    ap.add_argument("--rate", type=int, default=2)
    ap.add_argument("--base", type=int, default=8)
    ap.add_argument("--div", type=int, default=20000)
    ap.add_argument("--cap", type=int, default=40)
    ap.add_argument("--team")
    a = ap.parse_args()
    for name in ("multi", "single", "rate", "div", "cap"):
        if getattr(a, name) < 1:
            ap.error("--%s must be at least 1" % name)

    with open(a.trace, newline="") as f:
        rows = [r for r in csv.DictReader(f) if int(r["submit_s"]) >= a.start]
    rows.sort(key=lambda r: (int(r["submit_s"]), r["job_id"]))
    multi = [r for r in rows if int(r["gpus"]) in (16, 24, 32)][: a.multi]
    single = [r for r in rows if int(r["gpus"]) == 8][: a.single]
    if len(multi) < a.multi or len(single) < a.single:
        sys.exit("mkworkload: the trace has too few jobs after --from %d" % a.start)
    jobs = sorted(multi + single, key=lambda r: (int(r["submit_s"]), r["job_id"]))

    print("# Derived from the Philly 2017 trace (philly_2017_pollux.csv, Jeon et al."
          " ATC'19, CC-BY-4.0)")
    print("# by tests/cluster/mkworkload.py %s" % " ".join(sys.argv[2:]))
    print("# first %d jobs of 16-32 GPUs and first %d of 8 GPUs from submit_s >= %d;"
          % (a.multi, a.single, a.start))
    print("# %d jobs per second; duration min(%d, %d + duration_s / %d) s%s"
          % (a.rate, a.cap, a.base, a.div,
             "; every job under account %s" % a.team if a.team else ""))
    print("# Columns: job offset_s duration_s gpus team")
    for i, r in enumerate(jobs):
        dur = min(a.cap, a.base + int(r["duration_s"]) // a.div)
        print(r["job_id"], i // a.rate, dur, r["gpus"], a.team or r["team"])


if __name__ == "__main__":
    main()
