#!/bin/sh
# layout.sh - TAP test of `jobtree layout` without a cluster: the usage
# contract (exit 2 and one line saying what is wrong: no JOBID, a bad one,
# two of them, an unknown option) and --help. The layout itself is read from
# a live job: tests/cluster/t2080-spares.sh.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.

. "$(dirname "$0")/../tap/jobtree.sh"

[ -x "$jobtree" ] || bail_out "$jobtree not built"

# layout_rc WANT NAME ARGS...: exit status and the first stderr line.
layout_rc () {
    want=$1 name=$2
    shift 2
    env -u SLURM_JOB_ID "$jobtree" layout "$@" >"$tmp/out" 2>"$tmp/err"
    is "$?" "$want" "$name: exit $want"
}

layout_rc 2 "no JOBID, no SLURM_JOB_ID"
is "$(head -1 "$tmp/err")" "jobtree layout: no JOBID (and SLURM_JOB_ID is not set)" \
   "... says so"
for bad in x 0 4294967295 12x ""; do
    layout_rc 2 "JOBID '$bad'" "$bad"
done
is "$(head -1 "$tmp/err")" "jobtree layout: no JOBID (and SLURM_JOB_ID is not set)" \
   "an empty JOBID is none"
layout_rc 2 "JOBID x" x
is "$(head -1 "$tmp/err")" "jobtree layout: JOBID 'x': not a job id (1..4294967294)" \
   "a bad JOBID is named with the range"
layout_rc 2 "two JOBIDs" 1 2
is "$(head -1 "$tmp/err")" "jobtree layout: one JOBID at most" "... one at most"
layout_rc 2 "an unknown option" --bogus
layout_rc 0 "--help" --help
like "$(head -1 "$tmp/out")" "^usage: jobtree layout \[-o FILE\] \[JOBID\]" "... prints the usage"

done_testing
