#!/usr/bin/python3
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
"""sim-plot.py - plots of `jobtree sim --out DIR`'s CSV files (matplotlib).

    contrib/sim-plot.py DIR [--to OUTDIR] [--format png,svg] [--smooth HOURS]

Reads DIR/timeline.csv, DIR/jobs.csv and DIR/owners.csv and writes, for
every format, into OUTDIR (default DIR):

    utilization.FMT   GPU utilization over time, one line per policy
    queue.FMT         jobs waiting over time, one line per policy
    free-domains.FMT  fast-fabric domains with no node in use over time (room
                      for a whole-domain gang), one line per policy
    wait-cdf.FMT      the CDF of waits of started jobs per policy (log x)
    owners.FMT        each owner's share of GPU-hours per policy against its
                      entitled share (the sum of its envelopes' concurrency)
    runs-by-size.csv  per policy and run size (GPUs): runs, mean, p95 and max
                      wait (also printed as a Markdown table)

--smooth averages the time series over a window of HOURS (default 24) so a
109-day trace stays readable. Needs Debian's python3-matplotlib
(contrib/install-deps.sh installs it; hence /usr/bin/python3,
Debian's interpreter, not whichever python3 is first on PATH).
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def by_policy(rows):
    out = {}
    for r in rows:
        out.setdefault(r["policy"], []).append(r)
    return out


def smooth(xs, ys, window_s):
    """Mean of ys over a trailing window of window_s seconds."""
    out, acc, lo = [], 0.0, 0
    for i, x in enumerate(xs):
        acc += ys[i]
        while xs[lo] <= x - window_s:
            acc -= ys[lo]
            lo += 1
        out.append(acc / (i - lo + 1))
    return out


def save(fig, outdir, name, formats):
    for fmt in formats:
        path = os.path.join(outdir, "%s.%s" % (name, fmt))
        # no timestamps in SVG/PNG metadata: the same data gives the same file
        meta = {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(path, dpi=110, bbox_inches="tight", metadata=meta)
        print(path)
    plt.close(fig)


def series(timeline, field, ylabel, title, window_s, outdir, name, formats):
    fig, ax = plt.subplots(figsize=(9, 3.6))
    for policy, rows in by_policy(timeline).items():
        xs = [int(r["t_s"]) for r in rows]
        ys = [float(r[field]) for r in rows]
        if window_s > 0 and xs:
            ys = smooth(xs, ys, window_s)
        ax.plot([x / 86400 for x in xs], ys, label=policy, linewidth=1)
    ax.set_xlabel("days from the trace's start")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, outdir, name, formats)


def wait_cdf(jobs, outdir, formats):
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for policy, rows in by_policy(jobs).items():
        waits = sorted(max(1, int(r["wait_s"])) for r in rows if r["wait_s"] != "")
        if not waits:
            continue
        n = len(waits)
        ax.step(waits, [(i + 1) / n for i in range(n)], where="post", label=policy,
                linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel("wait (s, 0 drawn as 1)")
    ax.set_ylabel("fraction of started jobs")
    ax.set_title("Wait CDF per policy")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="lower right")
    save(fig, outdir, "wait-cdf", formats)


def owners(rows, outdir, formats):
    pol = by_policy(rows)
    names = [r["owner"] for r in next(iter(pol.values()))]
    fig, ax = plt.subplots(figsize=(9, 4))
    width = 0.8 / (len(pol) + 1)
    xs = range(len(names))
    ent = {r["owner"]: float(r["entitled_share"]) for r in next(iter(pol.values()))}
    ax.bar([x - 0.4 + width / 2 for x in xs], [ent[n] for n in names], width,
           label="entitled share", color="lightgray", edgecolor="gray")
    for k, (policy, prow) in enumerate(pol.items()):
        share = {r["owner"]: float(r["share"]) for r in prow}
        ax.bar([x - 0.4 + width * (k + 1.5) for x in xs], [share[n] for n in names],
               width, label=policy)
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("share")
    ax.set_title("Share of GPU-hours per owner against its entitlement")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    save(fig, outdir, "owners", formats)


def size_class(gpus):
    for hi, name in ((8, "8"), (16, "16"), (32, "17-32"), (1 << 30, "33+")):
        if gpus <= hi:
            return name
    return "?"


def runs_by_size(jobs, outdir):
    """Waits of runs (not plain jobs) per size class and policy."""
    table = {}
    for r in jobs:
        if r["run"] != "1" or r["wait_s"] == "":
            continue
        table.setdefault((r["policy"], size_class(int(r["gpus"]))), []).append(
            int(r["wait_s"]))
    path = os.path.join(outdir, "runs-by-size.csv")
    classes = ["8", "16", "17-32", "33+"]
    with open(path, "w") as f:
        f.write("policy,gpus,runs,wait_mean_s,wait_p95_s,wait_max_s\n")
        policies = list(dict.fromkeys(p for p, _ in table))
        print("| policy | " + " | ".join("%s GPUs mean / p95 (h)" % c for c in classes) + " |")
        print("|---" * (len(classes) + 1) + "|")
        for p in policies:
            cells = []
            for c in classes:
                w = sorted(table.get((p, c), []))
                if not w:
                    cells.append("-")
                    continue
                mean = sum(w) / len(w)
                p95 = w[max(0, -(-len(w) * 95 // 100) - 1)]
                f.write('"%s",%s,%d,%.1f,%d,%d\n' % (p, c, len(w), mean, p95, w[-1]))
                cells.append("%.2f / %.2f" % (mean / 3600, p95 / 3600))
            print("| %s | %s |" % (p, " | ".join(cells)))
    print(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--to")
    ap.add_argument("--format", default="png,svg")
    ap.add_argument("--smooth", type=float, default=24.0)
    a = ap.parse_args()
    formats = [f for f in a.format.split(",") if f]
    for f in formats:
        if f not in ("png", "svg", "pdf"):
            ap.error("--format: %s is not one of png, svg, pdf" % f)
    if not 0 <= a.smooth <= 24 * 365:
        ap.error("--smooth: give 0 to 8760 hours")
    outdir = a.to or a.dir
    os.makedirs(outdir, exist_ok=True)
    try:
        timeline = read(os.path.join(a.dir, "timeline.csv"))
        jobs = read(os.path.join(a.dir, "jobs.csv"))
        own = read(os.path.join(a.dir, "owners.csv"))
    except (OSError, KeyError) as e:
        sys.exit("sim-plot: %s (give the --out directory of jobtree sim)" % e)
    plt.rcParams["svg.hashsalt"] = "jobtree-sim"
    window = a.smooth * 3600
    series(timeline, "utilization", "GPU utilization", "Utilization over time "
           "(%g h mean)" % a.smooth, window, outdir, "utilization", formats)
    series(timeline, "queued", "jobs waiting", "Queue length over time "
           "(%g h mean)" % a.smooth, window, outdir, "queue", formats)
    if timeline and "free_domains" in timeline[0]:
        series(timeline, "free_domains", "domains with no node in use",
               "Whole free domains over time (%g h mean)" % a.smooth, window,
               outdir, "free-domains", formats)
    wait_cdf(jobs, outdir, formats)
    owners(own, outdir, formats)
    runs_by_size(jobs, outdir)


if __name__ == "__main__":
    main()
