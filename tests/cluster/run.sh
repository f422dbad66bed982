#!/bin/bash
# tests/cluster/run.sh BUILDDIR [TEST...] - run the cluster tests.
# tests/cluster/run.sh --installed [TEST...] - the same against the
#                      installed Jobtree instead of a build tree.
#
# Each tests/cluster/t*.sh brings up its own local Slurm cluster (lib.sh),
# prints TAP and tears the cluster down, even on failure. This runs them in
# name order (or only the ones named), each under a time limit, prints their
# TAP and a summary, and exits non-zero when any failed. Needs root (the
# daemons run as SlurmUser=root) and a build configured with
# --with-slurm-source (see contrib/slurm-source.sh).
#
# --installed takes the plugins from Slurm's plugin directory
# (JT_STOCK_PLUGINDIR, default /usr/lib/x86_64-linux-gnu/slurm-wlm) and
# jobtree, jobtree-ledgerd from JT_INSTALLED_PREFIX/bin and /sbin (default
# /usr: the Debian packages; /usr/local after a default make install): a
# scratch tree of links in a build tree's layout stands in for BUILDDIR, so
# every test runs unchanged on the installed files.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --installed ]; then
    shift
    prefix=${JT_INSTALLED_PREFIX:-/usr}
    plugindir=${JT_STOCK_PLUGINDIR:-/usr/lib/x86_64-linux-gnu/slurm-wlm}
    build=$(mktemp -d /tmp/jt-installed.XXXXXX) || exit 2
    trap 'rm -rf "$build"' EXIT
    link () {      # link INSTALLED-FILE PATH-IN-A-BUILD-TREE
        [ -f "$1" ] || { echo "run.sh --installed: $1 is not installed" >&2; exit 2; }
        mkdir -p "$build/$(dirname "$2")" && ln -s "$1" "$build/$2"
    }
    for p in spank/jobtree_spank job_submit/job_submit_jobtree \
             select/select_cons_tres_jobtree preempt/preempt_jobtree \
             site_factor/site_factor_jobtree; do
        link "$plugindir/${p#*/}.so" "plugins/${p%/*}/.libs/${p#*/}.so"
    done
    link "$prefix/bin/jobtree" src/cli/jobtree
    link "$prefix/sbin/jobtree-ledgerd" src/ledgerd/jobtree-ledgerd
    echo "# the installed Jobtree: $plugindir, $prefix/bin/jobtree, $prefix/sbin/jobtree-ledgerd"
else
    build=${1:?usage: run.sh BUILDDIR|--installed [TEST...]}
    shift
    build=$(cd "$build" && pwd) || exit 2
fi
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
