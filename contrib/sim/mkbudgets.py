#!/usr/bin/env python3
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
"""mkbudgets.py - budgets for replaying a trace with `jobtree sim`.

    contrib/sim/mkbudgets.py TRACE GPUS FLAVOR OUTDIR

One owner per trace owner (Philly's team column, or the owner column of
Jobtree's CSV), each with one envelope FLAVOR of concurrency proportional to
the owner's share of the trace's GPU-hours (at least 8, the sum about GPUS),
open all of 2026, lending to anyone ("*"), so borrowing can be switched on
and off per policy. contrib/sim/philly-budgets/ was made by
    contrib/sim/mkbudgets.py data/philly_2017_pollux.csv 1024 h100 contrib/sim/philly-budgets
"""
import csv
import json
import os
import sys


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__.strip().split("\n")[2])
    trace, gpus, flavor, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    use = {}
    with open(trace, newline="") as f:
        for r in csv.DictReader(f):
            owner = r.get("team") or r.get("owner")
            use[owner] = use.get(owner, 0) + int(r["gpus"]) * int(r["duration_s"])
    total = sum(use.values())
    os.makedirs(out, exist_ok=True)
    for owner in sorted(use):
        conc = max(8, round(gpus * use[owner] / total))
        doc = {"owner": owner,
               "envelopes": [{"name": "%s-%s" % (owner, flavor), "flavor": flavor,
                              "selector": {"cluster": "sim"},
                              "start": "2026-01-01T00:00:00Z",
                              "end": "2027-01-01T00:00:00Z",
                              "concurrency": conc,
                              "lending": {"allow": True, "to": ["*"]}}]}
        with open(os.path.join(out, owner + ".json"), "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
