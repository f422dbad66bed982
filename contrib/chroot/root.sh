# root.sh - sourced by the scripts of contrib/chroot: what each Debian root
# that runs another Slurm release is, by name.
#
#   trixie  Debian 13, its own slurm-wlm 24.11 packages (contrib/trixie/make-chroot.sh)
#   sid     Debian unstable, upstream Slurm 26.05 built from a tarball (contrib/sid/make-root.sh)
#
# Sets jt_root (the root's path: JT_TRIXIE_ROOT / JT_SID_ROOT, default
# /var/tmp/jobtree-NAME), jt_maker (the script that makes it and prints the
# configured Slurm source tree inside it last) and jt_release (for messages).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.

jt_root_select () {
    local top=$1 name=$2
    case "$name" in
    trixie)
        jt_root=${JT_TRIXIE_ROOT:-/var/tmp/jobtree-trixie}
        jt_maker=$top/contrib/trixie/make-chroot.sh
        jt_release="Slurm 24.11 (trixie)" ;;
    sid)
        jt_root=${JT_SID_ROOT:-/var/tmp/jobtree-sid}
        jt_maker=$top/contrib/sid/make-root.sh
        jt_release="Slurm 26.05 (sid, from source)" ;;
    *)
        echo "unknown root '$name' (trixie or sid)" >&2
        return 2 ;;
    esac
}
