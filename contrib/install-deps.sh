#!/bin/bash
# install-deps.sh - install everything Jobtree needs to build and to run its
# tests and demo on Debian bookworm (run as root). Idempotent: installs only
# what is missing, so a second run takes a second.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -euo pipefail

pkgs=(
    # build
    build-essential autoconf automake libtool pkg-config
    libjson-c-dev libssl-dev libsqlite3-dev
    # topology.yaml in `jobtree snapshot` (Slurm 25.05+), its tests and fuzzing
    libyaml-dev
    # Slurm 22.05 (multiple-slurmd build), its dev files and the deps of
    # configuring its source tree for out-of-tree plugins
    slurmctld slurmd slurm-client munge libslurm-dev slurm-wlm-plugins-dev libmunge-dev
    libpmix-dev libpam0g-dev libhwloc-dev liblz4-dev dpkg-dev
    # tests: sanitizer runtimes, valgrind, process tools; debootstrap for
    # the 24.11 and 26.05 roots (contrib/trixie, contrib/sid), installed
    # here because both are made at once in the background, and two apt-get
    # installs at once fail on dpkg's lock
    valgrind procps util-linux iproute2 python3 debootstrap
    # fuzzing (contrib/fuzz.sh): clang and its libFuzzer runtime
    clang clang-14 libclang-rt-14-dev
    # plots of jobtree sim's results (contrib/sim-plot.py)
    python3-matplotlib
)

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
        || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    # apt's output goes to a log; a line every 15 s says where it is
    # (contrib/progress.sh).
    . "$(dirname "$0")/progress.sh"
    log=/var/tmp/jobtree-install-deps.log
    : >"$log"
    echo "=== installing ${#missing[@]} packages and their dependencies with apt (on a fresh" \
         "bookworm: about 270 packages, 290 MB, 2 to 5 min; log $log)"
    echo "  ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! jt_progress "$log" apt-get update -q ||
       ! jt_progress "$log" apt-get install -y -q --no-install-recommends "${missing[@]}"; then
        tail -n 20 "$log" >&2
        echo "install-deps: apt failed; the whole output is in $log" >&2
        exit 1
    fi
fi
# The Debian packages start the daemons with the system config; the tests and
# the demo run their own instances under a temp dir, so stop those if any.
for svc in slurmctld slurmd munge; do
    if command -v systemctl >/dev/null && systemctl is-active -q "$svc" 2>/dev/null; then
        systemctl stop "$svc" || true
    fi
done
echo "install-deps: ok"
