#!/usr/bin/env python3
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
"""summarize.py - one result line of the scale harness, or the table.

    summarize.py --size N --variant V --submitted K --cpu S --sdiag FILE
                 --jobs FILE --load L        one result line (run.sh)
    summarize.py --table RESULTS             the Markdown table of a results file

--jobs is `squeue -h -t all -o '%i|%T|%D|%N'` at the end of the window
(every job that is not PENDING started in it: the partition was down before).
Nodes are n00001.. in 32-node domains: a multi-node job of n nodes crosses a
domain when its nodes lie in more than ceil(n/32) domains. From sdiag: the
main scheduler's "Mean cycle" and "Mean depth cycle" (jobs examined per
cycle), the backfill's "Mean cycle" and "Depth Mean"; per job examined =
mean cycle / mean depth.
"""
import argparse
import re
import sys

DOMAIN = 32


def expand(nodelist):
    """n[00001-00003,00007],n00009 -> the node numbers."""
    out = []
    for m in re.finditer(r"n(?:\[([^\]]*)\]|(\d+))", nodelist):
        if m.group(2):
            out.append(int(m.group(2)))
            continue
        for part in m.group(1).split(","):
            lo, _, hi = part.partition("-")
            out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def sdiag_stats(path):
    text = open(path).read()
    main, _, rest = text.partition("Backfilling stats")
    def num(section, label):
        m = re.search(r"^\s*" + re.escape(label) + r":\s*(\d+)", section, re.M)
        return int(m.group(1)) if m else 0
    return (num(main, "Total cycles"), num(main, "Mean cycle"), num(main, "Mean depth cycle"),
            num(rest, "Total cycles"), num(rest, "Mean cycle"), num(rest, "Depth Mean"))


def result_line(a):
    started = multi = crossing = 0
    for line in open(a.jobs):
        f = line.rstrip("\n").split("|")
        if len(f) < 4 or not f[0].strip().isdigit():
            continue
        if f[1] == "PENDING":
            continue
        started += 1
        n = int(f[2])
        if n > 1:
            multi += 1
            nodes = expand(f[3])
            doms = {(x - 1) // DOMAIN for x in nodes}
            if len(doms) > (n + DOMAIN - 1) // DOMAIN:
                crossing += 1
    mc, mm, md, bc, bm, bd = sdiag_stats(a.sdiag)
    main_per = mm / md if md else 0
    bf_per = bm / bd if bd else 0
    print(a.size, a.variant, started, a.submitted, mc, mm, md, "%.0f" % main_per,
          bc, bm, bd, "%.0f" % bf_per, a.cpu, multi, crossing, a.load)


def table(path):
    print("| nodes | variant | jobs started | main cycle mean | main µs per job examined "
          "| backfill µs per job examined | slurmctld CPU | multi-node jobs crossing a domain |")
    print("|---|---|---|---|---|---|---|---|")
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        (size, var, started, sub, mc, mm, md, mper, bc, bm, bd, bper, cpu, multi, cross,
         load) = f
        print("| %s | %s | %s | %.2f s | %s | %s | %s s | %s of %s |"
              % ("{:,}".format(int(size)), var, "{:,}".format(int(started)), int(mm) / 1e6,
                 "{:,}".format(int(mper)), "{:,}".format(int(bper)), cpu, cross, multi))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table")
    ap.add_argument("--size", type=int)
    ap.add_argument("--variant")
    ap.add_argument("--submitted", type=int)
    ap.add_argument("--cpu")
    ap.add_argument("--sdiag")
    ap.add_argument("--jobs")
    ap.add_argument("--load")
    a = ap.parse_args()
    if a.table:
        table(a.table)
    elif a.jobs and a.sdiag:
        result_line(a)
    else:
        ap.error("give --table RESULTS or the result line's options")


if __name__ == "__main__":
    sys.exit(main())
