#!/bin/sh
# install.sh - TAP test of `make install`: from this build tree, installed
# into a private DESTDIR, every file lands where an admin looks for it: the
# two programs under bindir and sbindir, every man page of docs/man under
# mandir, jobtree-ledgerd.service under the systemd unit directory with
# ExecStart at the installed daemon, the four plugins in Slurm's plugin
# directory (when built), the example configuration under docdir/examples
# (plugstack.conf naming the installed SPANK plugin); nothing lands anywhere
# else; the installed jobtree runs on the installed examples; `make
# uninstall` removes every file again. The directories come from the
# Makefile itself (make install-dirs-list), so the test holds for any
# --prefix, --with-slurm-plugindir and --with-systemdsystemunitdir.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.

. "$(dirname "$0")/../tap/jobtree.sh"

if [ ! -f "$builddir/Makefile" ]; then
    echo "1..0 # SKIP no configured build tree at $builddir"
    exit 0
fi
if ! command -v make >/dev/null; then
    echo "1..0 # SKIP no make"
    exit 0
fi

# make in the build tree, not as a child of the `make check` running us.
mk () {
    (unset MAKEFLAGS MFLAGS MAKELEVEL; make -C "$builddir" --no-print-directory "$@")
}

mk -s install-dirs-list >"$tmp/dirs" 2>"$tmp/dirs.err" \
    || bail_out "make install-dirs-list failed: $(cat "$tmp/dirs.err")"
val () { sed -n "s/^$1=//p" "$tmp/dirs"; }
bindir=$(val bindir)
sbindir=$(val sbindir)
mandir=$(val mandir)
examplesdir=$(val examplesdir)
unitdir=$(val systemdsystemunitdir)
plugindir=$(val slurmplugindir)
plugins=$(val plugins)
diag "bindir=$bindir sbindir=$sbindir mandir=$mandir"
diag "examples=$examplesdir unit=${unitdir:-none} plugins=$plugins in $plugindir"

d=$tmp/dest
mk install DESTDIR="$d" >"$tmp/install.out" 2>&1
rc=$?
ok $rc "make install DESTDIR exits 0"
[ $rc -eq 0 ] || { tail -n 20 "$tmp/install.out" | sed 's/^/# /'; }

# the programs
test -x "$d$bindir/jobtree"
ok $? "jobtree in bindir ($bindir)"
test -x "$d$sbindir/jobtree-ledgerd"
ok $? "jobtree-ledgerd in sbindir ($sbindir)"

# every man page of the source tree, in its section's directory
missing=
n=0
for m in "$srcdir"/docs/man/*.[0-9]; do
    base=${m##*/}
    n=$((n + 1))
    [ -f "$d$mandir/man${base##*.}/$base" ] || missing="$missing $base"
done
is "$missing" "" "all $n man pages of docs/man under mandir ($mandir/manN)"

# the systemd unit, pointing at the installed daemon
if [ -n "$unitdir" ]; then
    unit=$d$unitdir/jobtree-ledgerd.service
    test -f "$unit"
    ok $? "jobtree-ledgerd.service in the unit directory ($unitdir)"
    like "$(grep '^ExecStart=' "$unit" 2>/dev/null)" \
        "^ExecStart=$sbindir/jobtree-ledgerd -F " "the unit starts the installed jobtree-ledgerd"
else
    skip "configured --without-systemdsystemunitdir: no unit installed"
    skip "no unit to check"
fi

# the plugins, in Slurm's plugin directory
for so in jobtree_spank job_submit_jobtree select_cons_tres_jobtree preempt_jobtree \
          site_factor_jobtree; do
    if [ "$plugins" = yes ]; then
        test -f "$d$plugindir/$so.so"
        ok $? "$so.so in Slurm's plugin directory ($plugindir)"
    else
        skip "plugins not built (configure --with-slurm-source): $so.so"
    fi
done

# the examples
missing=
for f in slurm/jobtree.conf slurm/plugstack.conf slurm/slurm.conf.fragment \
         slurm/gres.conf slurm/topology.conf budgets/rai.json \
         budgets/platform.json budgets/research.json budgets/vision.json \
         runs/malleable.json snapshot.json; do
    [ -f "$d$examplesdir/$f" ] || missing="$missing $f"
done
is "$missing" "" "example configuration under $examplesdir"
like "$(grep -v '^#' "$d$examplesdir/slurm/plugstack.conf" 2>/dev/null)" \
    "^required $plugindir/jobtree_spank.so\$" \
    "the example plugstack.conf names the installed SPANK plugin"

# nothing outside those directories
stray=$(cd "$d" && find . -type f -o -type l | sed 's|^\.||' | while read -r f; do
    case $f in
    "$bindir"/*|"$sbindir"/*|"$mandir"/*|"$examplesdir"/*) ;;
    "$plugindir"/*) [ "$plugins" = yes ] || echo "$f" ;;
    *) if [ -n "$unitdir" ] && [ "${f#"$unitdir"/}" != "$f" ]; then :; else echo "$f"; fi ;;
    esac
done)
is "$stray" "" "no file installed outside those directories"

# the installed program on the installed examples
out=$("$d$bindir/jobtree" check "$d$examplesdir/budgets" \
      --snapshot "$d$examplesdir/snapshot.json" 2>&1)
is "$out" "4 owners, 5 envelopes, 1 aggregate caps; 16 nodes, 4 domains, 2 leases: OK" \
    "the installed jobtree checks the installed example budgets"

# and back out again
mk uninstall DESTDIR="$d" >"$tmp/uninstall.out" 2>&1
ok $? "make uninstall DESTDIR exits 0"
is "$(cd "$d" && find . -type f -o -type l)" "" "make uninstall leaves no file behind"

done_testing
