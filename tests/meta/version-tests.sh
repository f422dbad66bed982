#!/bin/sh
# version-tests.sh - no source under plugins/ or src/ tests Slurm's version
# outside the per-release adapters (issue 36; plugins/common/compat.h and
# docs/slurm-versions.md): JTC_SLURM_*, SLURM_VERSION_NUMBER and
# SLURM_VERSION_NUM( appear only in plugins/common/compat*.h,
# select_ops_*, preempt_ops_* and select_ops_load.h. A client that must
# know what its Slurm does asks configure for a feature instead (e.g.
# HAVE_SLURM_TOPOLOGY_YAML, m4/x_ac_libslurm.m4).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.

srcdir=${JT_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/tap/tap.sh"

plan 1
found=$(cd "$srcdir" && grep -rnE 'JTC_SLURM_|SLURM_VERSION_NUMBER|SLURM_VERSION_NUM *\(' \
            --include='*.c' --include='*.h' plugins src |
        grep -vE '^plugins/common/(compat[^/]*\.h|select_ops_[^/]*|preempt_ops_[^/]*):')
if [ -z "$found" ]; then
    ok 0 "no Slurm-version test outside plugins/common's adapters"
else
    ok 1 "no Slurm-version test outside plugins/common's adapters"
    echo "$found" | sed 's/^/# /'
fi
done_testing
