#!/bin/bash
# test.sh - the whole test suite: unit tests under ASan+UBSan, the fuzz
# smoke, the plugin build and `make distcheck` in it (so the tarball builds
# the plugins too), and the cluster tests against a real local Slurm with
# the plugins loaded, then the Debian packages built, installed and tested
# once. The cluster tests run three times, side by side: on the host's
# Slurm 22.05, on Debian 13's Slurm 24.11 in a trixie chroot (issue 15;
# JT_TEST_2411=0 skips it) and on upstream Slurm 26.05 built from source
# in a sid root (issue 36; JT_TEST_2605=0 skips it; without the 26.05
# tarball it says how to give one and is skipped, except under CI=true,
# where it is required). contrib/chroot/ci.sh runs the other two. Run as
# root on Debian bookworm; installs what it needs.
# Ends with one line "N passed, N failed".
#
#   contrib/test.sh             the suite
#   contrib/test.sh --dry-run   say which parts would run here (the 24.11
#                               and 26.05 halves by JT_TEST_2411,
#                               JT_TEST_2605, CI and the 26.05 tarball) and
#                               check the scripts they call, changing
#                               nothing (the doc-test runs it)
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ $# -le 1 ] || { echo "test.sh: one argument at most" >&2; exit 2; }
case "${1:-}" in
'') ;;
--dry-run)
    for f in contrib/install-deps.sh contrib/build.sh contrib/fuzz.sh contrib/build-debs.sh \
             contrib/chroot/ci.sh contrib/sid/make-root.sh tests/cluster/run.sh; do
        [ -x "$f" ] || { echo "test.sh: $f is missing or not executable" >&2; exit 1; }
    done
    half () {   # half NAME ENV-VALUE: would it run
        if [ "$2" = 0 ]; then echo "test.sh: dry run: $1: skipped (set to 0)"
        else echo "test.sh: dry run: $1: would run"; fi
    }
    echo "test.sh: dry run: would run the unit tests (ASan + UBSan), the fuzz smoke," \
         "the plugin build, make distcheck, the cluster tests on the host's Slurm and the" \
         "Debian packages (contrib/build-debs.sh, installed and tested)"
    half "Slurm 24.11 (trixie chroot)" "${JT_TEST_2411:-1}"
    t2605=${JT_TEST_2605:-1}
    if [ "$t2605" != 0 ] && [ "${CI:-}" != true ] && [ "$(id -u)" = 0 ] \
        && ! contrib/sid/make-root.sh --check 2>/dev/null; then
        t2605=0
        echo "test.sh: dry run: Slurm 26.05 (sid root): skipped, no source tarball (contrib/sid/make-root.sh --check)"
    else
        half "Slurm 26.05 (sid root)" "$t2605"
    fi
    exit 0 ;;
*) echo "test.sh: unknown argument $1 (--dry-run or none)" >&2; exit 2 ;;
esac
passed=0
failed=0
failures=()

# Add the counts of an automake test-suite.log (TAP results) to the totals.
count_suite () {
    local log=$1 p f e
    p=$(sed -n 's/^# PASS: *//p' "$log" | head -n1)
    f=$(sed -n 's/^# FAIL: *//p' "$log" | head -n1)
    e=$(sed -n 's/^# ERROR: *//p' "$log" | head -n1)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0} + ${e:-0}))
}

step () {
    echo "=== $*"
}

step "install dependencies"
contrib/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }

# The roots of the other releases are made in the background while the
# unit tests run: trixie's is network- and disk-bound (debootstrap,
# Debian's packages); sid's also builds Slurm 26.05 (about 7 min of 2
# cores, niced). Their stamps are the cache: a machine that has them skips
# this in seconds.
t2411=${JT_TEST_2411:-1}
if [ "$t2411" != 0 ]; then
    step "Slurm 24.11: making the trixie chroot in the background (log: build-2411/chroot.out)"
    mkdir -p build-2411 && rm -f build-2411/chroot.rc
    (contrib/chroot/ci.sh trixie root >build-2411/chroot.out 2>&1; echo $? >build-2411/chroot.rc) &
fi
t2605=${JT_TEST_2605:-1}
# Without the 26.05 source tarball (a user's clone) the 26.05 half is
# skipped, saying how to give one, and its scripts run on 22.05; under CI
# (CI=true) it is required.
if [ "$t2605" != 0 ] && [ "${CI:-}" != true ] && ! contrib/sid/make-root.sh --check; then
    step "Slurm 26.05: skipped (no source tarball; see the lines above)"
    t2605=0
fi
if [ "$t2605" != 0 ]; then
    step "Slurm 26.05: making the sid root and building Slurm in the background (log: build-2605/root.out)"
    mkdir -p build-2605 && rm -f build-2605/root.rc
    (contrib/chroot/ci.sh sid root >build-2605/root.out 2>&1; echo $? >build-2605/root.rc) &
fi

# A failed step's own lines are kept in $why and printed again at the
# end: CI shows the end of this output, and that part says why.
why=$(mktemp /tmp/jobtree-test-why.XXXXXX)
trap 'rm -f "$why"' EXIT

step "unit tests (ASan + UBSan)"
if contrib/build.sh --sanitizers build-asan; then
    (cd build-asan && make -j"$(nproc)" check >check.out 2>&1)
    rc=$?
    grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP)' build-asan/check.out | grep -v '^PASS' || true
    count_suite build-asan/test-suite.log
    if [ $rc -ne 0 ]; then
        failures+=("unit tests")
        { echo "--- unit tests: the failures"
          grep -B2 -A20 '^not ok\|ERROR:' build-asan/test-suite.log | head -n 80; } | tee -a "$why"
    fi
else
    failed=$((failed + 1)); failures+=("sanitizer build")
fi

step "fuzz smoke (every parser's libFuzzer target: regressions, then 10 s each)"
contrib/fuzz.sh --smoke 10 | tee "$why.fuzz"
if [ "${PIPESTATUS[0]}" -eq 0 ]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1)); failures+=("fuzz smoke")
    { echo "--- fuzz smoke: the targets that failed (inputs in build-fuzz/crashes/)"
      grep -v '^fuzz: [a-z_]* *ok: ' "$why.fuzz"; } >>"$why"
fi
rm -f "$why.fuzz"

step "build with the Slurm plugins"
plugins=no
contrib/build.sh build && plugins=yes
[ "$plugins" = yes ] || { failed=$((failed + 1)); failures+=("plugin build"); }

# In the plugin build: configured with the Slurm source, so the tarball's
# build compiles, installs and uninstalls the plugins as well (Makefile.am
# passes --with-slurm-source on). The sanitizer build never builds plugins.
step "make distcheck (with the plugins)"
dcdir=build
[ "$plugins" = yes ] || dcdir=build-asan
if (cd "$dcdir" && make distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror >distcheck.out 2>&1); then
    passed=$((passed + 1))
else
    failed=$((failed + 1)); failures+=("distcheck")
    { echo "--- make distcheck: the end of its output"; tail -n 40 "$dcdir/distcheck.out"; } | tee -a "$why"
fi

# Which cluster scripts run on which release (three suites share 2
# cores, so each takes a share of the long scripts): t2910-sim-live (the
# simulator against the live cluster: it does not depend on Slurm's
# version) runs on 24.11, t2052-select-shrink on 26.05, t2900-compare
# (stock against Jobtree under topology/tree; its topology/block
# counterparts are tables in docs/slurm-24.11.md and slurm-26.05.md) on
# 22.05; every other script on all three. Without a half, its scripts run
# on 22.05.
host_skip=" "
skip2411="t2900-compare.sh t2052-select-shrink.sh"
skip2605="t2900-compare.sh t2910-sim-live.sh"
[ "$t2411" != 0 ] && host_skip+="t2910-sim-live.sh "
[ "$t2605" != 0 ] && host_skip+="t2052-select-shrink.sh "

# A release's half: once its root is made, build against it and run its
# cluster suite in its own port lane while the 22.05 suite runs in lane 0.
# chroot_half NAME DIR LANE SKIP: in the background, TAP in DIR/cluster.tap.
chroot_half () {
    local name=$1 dir=$2 lane=$3 skip=$4
    (
        # A sibling's exit status cannot be waited for: the root job
        # leaves it in a file.
        while [ ! -s "$dir/$5" ]; do sleep 1; done
        rc=$(cat "$dir/$5")
        if [ "$rc" = 3 ] && [ "${CI:-}" != true ]; then
            echo "1..0 # SKIP no Slurm 26.05 source tarball (contrib/sid/make-root.sh says how to give one)"
            sed 's/^/# /' "$dir/${5%.rc}.out"
            exit 0
        elif [ "$rc" != 0 ]; then
            echo "not ok - the $name root could not be made"
            tail -n 30 "$dir/${5%.rc}.out" | sed 's/^/# /'
            exit 1
        fi
        JT_CLUSTER_PORT_LANES=3 JT_CLUSTER_PORT_LANE=$lane JT_CHROOT_SKIP=$skip \
            contrib/chroot/ci.sh "$name" cluster "$top/$dir"
        rc=$?
        # trixie's own .debs, built in the chroot, installed there with apt
        # and tested on the installed files (Debian ships no 26.05 source
        # to build sid's against: docs/slurm-26.05.md).
        if [ "$name" = trixie ] && [ "${JT_TEST_PACKAGES:-1}" != 0 ]; then
            JT_CLUSTER_PORT_LANES=3 JT_CLUSTER_PORT_LANE=$lane \
                contrib/chroot/ci.sh trixie packages "$top/$dir/debs" || rc=1
        fi
        exit $rc
    ) >"$dir/cluster.tap" 2>&1 &
}
if [ "$t2411" != 0 ]; then
    step "Slurm 24.11: build and cluster tests in the trixie chroot, in the background (log: build-2411/cluster.tap)"
    chroot_half trixie build-2411 1 "$skip2411" chroot.rc
    pid2411=$!
fi
if [ "$t2605" != 0 ]; then
    step "Slurm 26.05: build and cluster tests in the sid root, in the background (log: build-2605/cluster.tap)"
    chroot_half sid build-2605 2 "$skip2605" root.rc
    pid2605=$!
fi

# The Debian packages are built (a copy of the tree, niced) while the
# cluster suites run, which mostly wait on their daemons; installed and
# tested after them (below).
debs=(jobtree-slurm-plugins jobtree-ledgerd jobtree-tools)
if [ "$plugins" = yes ] && [ "${JT_TEST_PACKAGES:-1}" != 0 ]; then
    step "Debian packages: building in the background (log: build/debs/build-debs.out)"
    rm -rf build/debs && mkdir -p build/debs
    (nice -n 10 contrib/build-debs.sh --nocheck "$top/build/debs" >build/debs/build-debs.out 2>&1
     echo $? >build/debs/rc) &
fi

host_tests=()
for t in tests/cluster/t[0-9]*.sh; do
    case "$host_skip" in *" $(basename "$t") "*) continue ;; esac
    host_tests+=("$(basename "$t")")
done

if [ "$plugins" = yes ] && [ -x tests/cluster/run.sh ]; then
    step "cluster tests on Slurm 22.05 (real munged, slurmctld, 16 slurmd)"
    JT_CLUSTER_PORT_LANES=3 JT_CLUSTER_PORT_LANE=0 \
        tests/cluster/run.sh "$top/build" "${host_tests[@]}" | tee build/cluster.tap
    crc=${PIPESTATUS[0]}
    p=$(grep -c '^ok ' build/cluster.tap)
    f=$(grep -c '^not ok ' build/cluster.tap)
    passed=$((passed + p)); failed=$((failed + f))
    [ "$crc" -ne 0 ] && [ "$f" -eq 0 ] && { failed=$((failed + 1)); failures+=("cluster harness"); }
    [ "$f" -gt 0 ] && failures+=("cluster tests")
    [ "$crc" -ne 0 ] && { echo "--- cluster tests on 22.05: what failed"
                          grep -E '^not ok|^=== .*: FAIL|timed out' build/cluster.tap; } >>"$why"
fi

# collect_half NAME PID DIR: wait for a release's half, show its TAP and
# add it to the totals; a failed build or harness with no failed test
# counts as one failure.
collect_half () {
    local name=$1 pid=$2 dir=$3 rc p f
    wait "$pid"
    rc=$?
    cat "$dir/cluster.tap"
    p=$(grep -c '^ok ' "$dir/cluster.tap")
    f=$(grep -c '^not ok ' "$dir/cluster.tap")
    passed=$((passed + p)); failed=$((failed + f))
    [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && { failed=$((failed + 1)); failures+=("$name build or harness"); }
    [ "$f" -gt 0 ] && failures+=("cluster tests on $name")
    [ "$rc" -ne 0 ] && { echo "--- cluster tests on $name: what failed"
                         grep -E '^not ok|^=== .*: FAIL|timed out|root could not' "$dir/cluster.tap"; } >>"$why"
}
if [ "$t2411" != 0 ]; then
    step "cluster tests on Slurm 24.11 (the trixie chroot; ran beside the 22.05 ones)"
    collect_half 24.11 "$pid2411" build-2411
fi
if [ "$t2605" != 0 ]; then
    step "cluster tests on Slurm 26.05 (the sid root; ran beside the others)"
    collect_half 26.05 "$pid2605" build-2605
fi

# The Debian packages, once (issue 11): build them from this checkout,
# install them with apt beside Debian's Slurm, run the demo's workload and
# the admission and ledger tests on the installed files (run.sh
# --installed: the plugins from Slurm's plugin directory, the programs from
# /usr), then purge them so the host is left as it was. JT_TEST_PACKAGES=0
# skips it (a developer's quick run); CI always runs it.
if [ "$plugins" = yes ] && [ "${JT_TEST_PACKAGES:-1}" != 0 ]; then
    step "Debian packages: built (lintian), apt install, cluster tests on the installed files"
    pk=$top/build/debs
    while [ ! -s "$pk/rc" ]; do sleep 1; done     # the background build's status
    if [ "$(cat "$pk/rc")" = 0 ]; then
        passed=$((passed + 1))
        grep -E '^build-debs: (built|lintian)|^  /' "$pk/build-debs.out" || true
        if DEBIAN_FRONTEND=noninteractive flock /var/tmp/jobtree-apt.lock \
                apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$pk"/jobtree-{slurm-plugins,ledgerd,tools}_*.deb \
                >"$pk/apt.out" 2>&1; then
            passed=$((passed + 1))
            tests/cluster/run.sh --installed t1000-admission.sh t1005-demo.sh \
                t3000-ledger.sh | tee build/installed.tap
            irc=${PIPESTATUS[0]}
            p=$(grep -c '^ok ' build/installed.tap)
            f=$(grep -c '^not ok ' build/installed.tap)
            passed=$((passed + p)); failed=$((failed + f))
            [ "$irc" -ne 0 ] && [ "$f" -eq 0 ] && { failed=$((failed + 1)); failures+=("installed harness"); }
            [ "$f" -gt 0 ] && failures+=("cluster tests on the installed packages")
        else
            failed=$((failed + 1)); failures+=("apt install of the packages")
            tail -n 20 "$pk/apt.out"
        fi
        DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${debs[@]}" >/dev/null 2>&1 || true
    else
        failed=$((failed + 1)); failures+=("package build")
        tail -n 30 "$pk/build-debs.out"
    fi
    rm -rf "$pk"
fi

[ -s "$why" ] && cat "$why"
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
