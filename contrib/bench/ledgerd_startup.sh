#!/bin/bash
# ledgerd_startup.sh - how long jobtree-ledgerd takes from exec to
# "listening" on a copy of a ledger directory: started (no id index stamp
# yet: it indexes the whole ledger), stopped with SIGTERM (a clean stop
# stamps the index), started again, killed with SIGKILL, started again (the
# stamp of the clean stop). Each start's recovery and fold lines are shown.
#
#   contrib/bench/ledgerd_startup.sh BUILDDIR LEDGERDIR
#
# e.g. after `JT_BENCH_REUSE=1 JT_BENCH_DIR=$PWD/bench-1m JT_BENCH_ONLY=reports
# ./contrib/bench/bench_ledger` in BUILDDIR: LEDGERDIR=bench-1m/reports.
# The copy is made beside LEDGERDIR and removed at the end.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -euo pipefail

build=$(cd "${1:?usage: ledgerd_startup.sh BUILDDIR LEDGERDIR}" && pwd)
src=$(cd "${2:?usage: ledgerd_startup.sh BUILDDIR LEDGERDIR}" && pwd)
d=$src.startup.$$
rm -rf "$d"
mkdir -p "$d"
cp -a "$src" "$d/l"
chmod 700 "$d/l"
trap 'rm -rf "$d"' EXIT

run() { # run NAME [kill option]
    local t0 t1 pid
    : >"$d/log"
    t0=$(date +%s.%N)
    "$build/src/ledgerd/jobtree-ledgerd" -F -d "$d/l" -S "$d/sock" -u "$(id -u)" \
        -L "$d/log" &
    pid=$!
    until grep -q listening "$d/log" 2>/dev/null; do
        kill -0 "$pid" 2>/dev/null || { cat "$d/log" >&2; exit 1; }
        sleep 0.02
    done
    t1=$(date +%s.%N)
    echo "$1: $(echo "$t1 - $t0" | bc) s to listening"
    grep -E "records read|checkpoints:|id index" "$d/log" | cut -d' ' -f3- | cut -c1-160
    kill ${2:-} "$pid"
    wait "$pid" 2>/dev/null || true
}
run "first start"
run "after a clean stop" -9
run "after kill -9"
