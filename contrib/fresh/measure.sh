#!/bin/bash
# measure.sh - how long the README's first command, contrib/demo.sh, takes
# on a truly fresh Debian bookworm machine (issue 11): apt installs, the
# Slurm source, the build, the cluster and the workload, phase by phase.
#
#   contrib/fresh/measure.sh [ROOT]     (as root; ROOT defaults to
#                                        /var/tmp/jobtree-fresh-bookworm)
#
# 1. ROOT/base: a bookworm root file system made once with `debootstrap
#    bookworm` (the default variant: required and important packages) and
#    cached (the stamp ROOT/base.done; remove both to make it anew). About
#    3 minutes the first time.
# 2. ROOT/run: a fresh copy of it for each measurement, made ready as a
#    freshly installed machine: apt's sources as the Debian installer writes
#    them (bookworm, bookworm-updates, bookworm-security), the host's
#    /etc/resolv.conf and /etc/hosts, and a policy-rc.d that keeps package
#    installs from starting daemons (there is no systemd in a chroot; on a
#    real machine systemd starts them and install-deps.sh stops them).
#    The committed HEAD of this checkout is cloned to ROOT/run/root/jobtree
#    (uncommitted changes are not measured).
# 3. `time contrib/demo.sh`, then `contrib/demo.sh --stop`, in the chroot
#    through contrib/chroot/in-chroot.sh --cgroup: proc, dev, dev/pts, sys
#    and the host's /sys/fs/cgroup (as a booted machine has it; slurmd 22.05
#    does not start without one) are mounted in a private mount namespace
#    that vanishes with the command, so nothing stays mounted under ROOT
#    whatever happens. /run is the chroot's own directory. The demo's
#    cluster runs on loopback ports lib.sh picks free (the chroot shares
#    the host's network), beside anything else running here.
# 4. Every line of the demo's output is stamped with the seconds since it
#    started (ROOT/demo.log); each `=== ` line starts a phase, and the
#    phases' durations and the total are printed at the end, with the
#    machine's cores and load average (the numbers depend on both).
#    Here (2 shared cores, 2026-11-27): 238 s at load average 4, 341 s at
#    5 to 11, apt being most of it (README.md).
#
# On any failure or interrupt the demo cluster is stopped and any process
# left inside ROOT/run is reported and ended, by its pid. Not part of CI: it
# downloads about 400 MB from deb.debian.org. The host's packages are not
# touched (only debootstrap is installed if missing).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
root=${1:-/var/tmp/jobtree-fresh-bookworm}
mirror=${JT_FRESH_MIRROR:-http://deb.debian.org/debian}
base=$root/base
run=$root/run
log=$root/demo.log

say () { echo "measure: $*" >&2; }
die () { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (debootstrap and chroot need it)"
case "$root" in
/*) ;;
*) die "ROOT must be an absolute path, not $root" ;;
esac
in_run () { "$top/contrib/chroot/in-chroot.sh" "$run" --cgroup "$@"; }

# Processes whose root directory is ROOT/run (the demo's daemons, or an
# earlier measurement's left-overs).
procs_in_run () {
    local p
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$run" ] && echo "${p#/proc/}"
    done
    return 0
}
cleanup () {
    local left
    trap - EXIT INT TERM
    if [ -f "$run/run/jobtree-demo.env" ]; then
        say "stopping the demo cluster"
        in_run bash -c 'cd /root/jobtree && contrib/demo.sh --stop' >>"$log" 2>&1 || true
    fi
    left=$(procs_in_run | tr '\n' ' ')
    if [ -n "$left" ]; then
        say "processes left in $run, ended: $left"
        # shellcheck disable=SC2086  # pids
        kill -KILL $left 2>/dev/null || true
    fi
    if grep -q "$root" /proc/mounts; then
        say "mounts left under $root (remove them with umount):"
        grep "$root" /proc/mounts >&2
        exit 1
    fi
}

busy=$(procs_in_run | tr '\n' ' ')
if [ -n "$busy" ]; then
    die "processes are running in $run (pids $busy); stop them first"
fi
if ! command -v debootstrap >/dev/null; then
    say "installing debootstrap on the host"
    apt-get install -y -q debootstrap >/dev/null || die "cannot install debootstrap"
fi

# 1. The cached base system.
mkdir -p "$root"
if [ ! -f "$root/base.done" ]; then
    say "debootstrap bookworm into $base (once; about 3 min; log $root/debootstrap.log)"
    rm -rf "$base.tmp" "$base"
    debootstrap bookworm "$base.tmp" "$mirror" >"$root/debootstrap.log" 2>&1 ||
        die "debootstrap failed; see $root/debootstrap.log"
    mv "$base.tmp" "$base"
    touch "$root/base.done"
fi

# 2. A fresh machine from it.
say "copying $base to $run"
rm -rf "$run"
cp -a "$base" "$run"
cat >"$run/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://security.debian.org/debian-security bookworm-security main
EOF
cp -L /etc/resolv.conf "$run/etc/resolv.conf"
cp -L /etc/hosts "$run/etc/hosts"
printf '#!/bin/sh\nexit 101\n' >"$run/usr/sbin/policy-rc.d"
chmod 755 "$run/usr/sbin/policy-rc.d"
branch=$(git -C "$top" rev-parse --abbrev-ref HEAD)
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] ||
    say "uncommitted changes in $top are not measured (the clone has $branch's last commit)"
git clone -q --branch "$branch" "$top" "$run/root/jobtree"
commit=$(git -C "$run/root/jobtree" log -1 --format='%h %s' | cut -c 1-72)

trap cleanup EXIT
trap 'exit 130' INT TERM

# 3. The demo, every line stamped with the seconds since it started.
load0=$(cut -d' ' -f1-3 /proc/loadavg)
say "contrib/demo.sh in $run ($commit); output in $log"
tenths () { local now=${EPOCHREALTIME/./}; echo $(( (now - t0) / 100000 )); }
t0=${EPOCHREALTIME/./}          # microseconds
set +e
in_run bash -c 'cd /root/jobtree && time contrib/demo.sh' 2>&1 |
    while IFS= read -r line; do
        t=$(tenths)
        printf '%5d.%d %s\n' $((t / 10)) $((t % 10)) "$line"
    done | tee "$log"
rc=${PIPESTATUS[0]}
set -e
total=$(( $(tenths) / 10 ))
load1=$(cut -d' ' -f1-3 /proc/loadavg)
in_run bash -c 'cd /root/jobtree && contrib/demo.sh --stop' >>"$log" 2>&1 ||
    say "contrib/demo.sh --stop failed (see $log)"
cleanup

# 4. The phases.
echo
echo "contrib/demo.sh on a fresh Debian bookworm ($(date -u +%Y-%m-%d), $commit)"
echo "machine: $(nproc) cores, shared; load average $load0 at the start, $load1 at the end"
# A phase is named by its line up to the first " (".
awk -v total="$total" '
    function out(t) { if (name != "") printf "%7d s  %s\n", int(t - start + 0.5), name }
    / === / { out($1); start = $1; name = substr($0, index($0, "===") + 4)
              if (index(name, " (") > 0) name = substr(name, 1, index(name, " (") - 1) }
    END     { out(total); printf "%7d s  total (wall)\n", total }' "$log"
grep -E '^ *[0-9.]+ (real|user|sys)' "$log" | sed 's/^ *[0-9.]* /  /' || true
[ "$rc" = 0 ] || die "contrib/demo.sh failed (exit $rc); see $log"
