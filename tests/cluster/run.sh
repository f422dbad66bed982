#!/bin/bash
# tests/cluster/run.sh BUILDDIR [TEST...] - run the cluster tests.
#
# Each tests/cluster/t*.sh brings up its own local Slurm cluster (lib.sh),
# prints TAP and tears the cluster down, even on failure. This runs them in
# name order (or only the ones named), each under a time limit, prints their
# TAP and a summary, and exits non-zero when any failed. Needs root (the
# daemons run as SlurmUser=root) and a build configured with
# --with-slurm-source (see contrib/slurm-source.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run.sh BUILDDIR [TEST...]}
shift
build=$(cd "$build" && pwd) || exit 2
limit=${JT_CLUSTER_TEST_TIMEOUT:-600}

if [ $# -gt 0 ]; then tests=("$@"); else tests=("$here"/t[0-9]*.sh); fi
pass=0 fail=0 failed=""
start=$(date +%s)
for t in "${tests[@]}"; do
    [ -f "$t" ] || t=$here/$t
    name=$(basename "$t")
    echo "=== $name"
    t0=$(date +%s)
    out=$(timeout --kill-after=10 "$limit" bash "$t" "$build" 2>&1)
    rc=$?
    echo "$out"
    plan=$(grep -m1 -E '^1\.\.[0-9]+' <<< "$out" | cut -c4-)
    nok=$(grep -cE '^ok ' <<< "$out")
    nnot=$(grep -cE '^not ok ' <<< "$out")
    if [ $rc -eq 0 ] && [ "$nnot" -eq 0 ] && [ -n "$plan" ] && [ "$nok" -eq "$plan" ]; then
        pass=$((pass + 1)); verdict=PASS
    else
        fail=$((fail + 1)); failed="$failed $name"; verdict=FAIL
        [ $rc -eq 124 ] && echo "# $name: timed out after ${limit}s"
    fi
    echo "=== $name: $verdict ($nok/${plan:-?} ok, exit $rc, $(( $(date +%s) - t0 ))s)"
done
echo "=== cluster tests: $pass passed, $fail failed in $(( $(date +%s) - start ))s${failed:+ (failed:$failed)}"
[ $fail -eq 0 ]
