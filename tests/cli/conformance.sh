#!/bin/sh
# tests/cli/conformance.sh - contrib/conformance/jobtree-conformance on
# fabricated /sys and /proc trees (--root): the lines it hashes (every
# input, absent ones named), the hash of exactly those lines, equal trees
# equal fingerprints, a firmware or kernel-parameter change a new one, and
# the words naming a node's own disks left out.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/../tap/jobtree.sh"

tool=$srcdir/contrib/conformance/jobtree-conformance

# mknode DIR IBFW BIOSVER ROOTUUID: a node's files.
mknode () {
    mkdir -p "$1/sys/class/infiniband/mlx5_0" "$1/sys/class/dmi/id" \
             "$1/sys/class/net/ib0/device" "$1/sys/class/net/lo" "$1/proc/driver/nvidia"
    echo "$2" > "$1/sys/class/infiniband/mlx5_0/fw_ver"
    echo "Dell Inc." > "$1/sys/class/dmi/id/bios_vendor"
    echo "$3" > "$1/sys/class/dmi/id/bios_version"
    echo "01/02/2025" > "$1/sys/class/dmi/id/bios_date"
    echo "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 2024" \
        > "$1/proc/driver/nvidia/version"
    echo "BOOT_IMAGE=/vmlinuz-6.1.0 root=UUID=$4 ro iommu=pt quiet" > "$1/proc/cmdline"
}

mknode "$tmp/a" 28.39.1002 2.19.1 1111-aaaa
mknode "$tmp/b" 28.39.1002 2.19.1 2222-bbbb
mknode "$tmp/c" 28.40.1000 2.19.1 1111-aaaa
mkdir -p "$tmp/empty"

want='bios.date=01/02/2025
bios.vendor=Dell Inc.
bios.version=2.19.1
bmc.fw=absent
gpu.driver=NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 2024
kernel.cmdline=iommu=pt quiet ro
nic.fw.ib0=absent
nic.fw.mlx5_0=28.39.1002'
fa=$("$tool" --root "$tmp/a" --explain 2>"$tmp/a.lines")
is "$(cat "$tmp/a.lines")" "$want" "--explain: every input, sorted, absent ones named, disk words dropped"
is "$fa" "conformance=$(printf '%s\n' "$want" | sha256sum | cut -c1-16)" \
    "the fingerprint is SHA-256 of those lines, 16 hex digits"
is "$("$tool" --root "$tmp/b")" "$fa" "another root disk (root=UUID=...): the same fingerprint"
fc=$("$tool" --root "$tmp/c")
[ "$fc" != "$fa" ]; ok $? "other NIC firmware: another fingerprint ($fc)"
echo "BOOT_IMAGE=/vmlinuz-6.1.0 root=UUID=1111-aaaa ro iommu=off quiet" > "$tmp/b/proc/cmdline"
[ "$("$tool" --root "$tmp/b")" != "$fa" ]; ok $? "another kernel parameter: another fingerprint"
is "$("$tool" --root "$tmp/empty" --explain 2>&1 >/dev/null | paste -sd' ' -)" \
    "bios.date=absent bios.vendor=absent bios.version=absent bmc.fw=absent gpu.driver=absent kernel.cmdline=absent nic.fw=absent" \
    "a node exposing nothing: every input named absent"
"$tool" --root "$tmp/nowhere" >/dev/null 2>"$tmp/err"
is "$?:$(cat "$tmp/err")" "2:jobtree-conformance: --root $tmp/nowhere: no such directory" \
    "a missing --root is a usage error naming it"
like "$("$tool")" "^conformance=[0-9a-f]{16}$" "on this machine: a feature word"

done_testing
