#!/bin/bash
# flake-hunt.sh - run tests again and again and count, per test, how often
# they pass. A test that ever fails is named, with its first failing output.
# Use it before resolving an issue and say the counts in the closing note.
#
#   contrib/flake-hunt.sh [--unit N] [--only TEST]... [--cluster M]
#                         [--cluster-test SCRIPT]... [BUILD-ASAN [BUILD]]
#
#   --unit N            the unit suite (`make check`, ASan+UBSan) N times
#                       (default 0)
#   --only TEST         with --unit: only this test (e.g.
#                       tests/unit/ledger_daemon.t); repeatable
#   --cluster M         the cluster start-up/teardown cycle
#                       (t0000-harness.sh) M times (default 0)
#   --cluster-test S    with --cluster: run cluster script S instead;
#                       repeatable
#   BUILD-ASAN          sanitizer build dir (default build-asan; built with
#                       contrib/build.sh --sanitizers if missing)
#   BUILD               plugin build dir for the cluster (default build)
#
# Examples:
#   contrib/flake-hunt.sh --unit 50
#   contrib/flake-hunt.sh --unit 200 --only tests/unit/ledger_daemon.t
#   contrib/flake-hunt.sh --cluster 50
# Exit status 0 when every run of every test passed. Failing outputs are
# kept in BUILD-ASAN/flake-hunt/ (unit) and BUILD/flake-hunt/ (cluster).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
unit=0 cluster=0 only=() ctests=()
while [ $# -gt 0 ]; do
    case "$1" in
    --unit) unit=${2:?--unit N}; shift 2 ;;
    --only) only+=("${2:?--only TEST}"); shift 2 ;;
    --cluster) cluster=${2:?--cluster M}; shift 2 ;;
    --cluster-test) t=${2:?--cluster-test SCRIPT}; ctests+=("${t#tests/cluster/}"); shift 2 ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "flake-hunt: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
    esac
done
case "$unit$cluster" in *[!0-9]*) echo "flake-hunt: counts are whole numbers" >&2; exit 2 ;; esac
asan=${1:-build-asan}
build=${2:-build}
[ ${#ctests[@]} -eq 0 ] && ctests=(t0000-harness.sh)
declare -A pass fail
bad=0

# record NAME OK LOGFILE-OR-TEXT-FILE KEEPDIR
record () {
    local name=$1 good=$2 out=$3 keep=$4 safe
    if [ "$good" = 1 ]; then
        pass[$name]=$(( ${pass[$name]:-0} + 1 ))
    else
        fail[$name]=$(( ${fail[$name]:-0} + 1 ))
        bad=1
        safe=$(tr '/' '_' <<< "$name")
        mkdir -p "$keep"
        if [ ! -f "$keep/$safe.first-failure" ]; then
            cp "$out" "$keep/$safe.first-failure"
            echo "flake-hunt: $name FAILED (kept in $keep); first failing output:"
            grep -E -B3 -A15 '^not ok|Bail out|ERROR' "$out" | head -n 60
        fi
    fi
}

if [ "$unit" -gt 0 ]; then
    cd "$top"
    [ -f "$asan/Makefile" ] || contrib/build.sh --sanitizers "$asan" || exit 1
    cd "$asan" || exit 1
    make -j"$(nproc)" >/dev/null 2>&1 || { echo "flake-hunt: build failed in $asan" >&2; exit 1; }
    targs=()
    [ ${#only[@]} -gt 0 ] && targs=(TESTS="${only[*]}")
    for i in $(seq 1 "$unit"); do
        touch .flake-hunt-stamp
        make -j"$(nproc)" check "${targs[@]}" >/dev/null 2>&1
        for trs in $(find tests -name '*.trs' -newer .flake-hunt-stamp); do
            t=${trs%.trs}
            [ ${#only[@]} -gt 0 ] && ! grep -qw -- "$t" <<< "${only[*]}" && continue
            if grep -qE '^:test-result: (FAIL|ERROR|XPASS)' "$trs"; then
                record "$t" 0 "$t.log" "$PWD/flake-hunt"
            else
                record "$t" 1 "$t.log" "$PWD/flake-hunt"
            fi
        done
        printf 'flake-hunt: unit run %d/%d done\r' "$i" "$unit" >&2
    done
    echo >&2
    cd "$top"
fi

if [ "$cluster" -gt 0 ]; then
    cd "$top"
    [ -f "$build/Makefile" ] || contrib/build.sh "$build" || exit 1
    mkdir -p "$build/flake-hunt"
    for i in $(seq 1 "$cluster"); do
        for t in "${ctests[@]}"; do
            out=$build/flake-hunt/last.out
            timeout --kill-after=10 600 bash "tests/cluster/$t" "$build" >"$out" 2>&1
            rc=$?
            if [ $rc -eq 0 ] && ! grep -qE '^not ok|^Bail out' "$out"; then
                record "$t" 1 "$out" "$build/flake-hunt"
            else
                record "$t" 0 "$out" "$build/flake-hunt"
            fi
        done
        printf 'flake-hunt: cluster run %d/%d done\r' "$i" "$cluster" >&2
    done
    echo >&2
fi

for t in $(printf '%s\n' "${!pass[@]}" "${!fail[@]}" | sort -u); do
    printf '%-40s %4d passed %4d failed\n' "$t" "${pass[$t]:-0}" "${fail[$t]:-0}"
done
[ "$bad" -eq 0 ] && echo "flake-hunt: every run passed" || echo "flake-hunt: FLAKY (see above)"
exit "$bad"
