# tests/tap/tap.sh - the one TAP producer of the shell tests (POSIX sh;
# source it). The C tests have tests/tap/tap.[ch].
#
#   plan N                 print the plan first (else done_testing prints it)
#   ok STATUS MSG          pass when STATUS is 0 (ok $? "msg")
#   is GOT WANT MSG        exact string comparison; diag of both on failure
#   like GOT REGEX MSG     extended regex match
#   same_file WANT GOT MSG byte comparison of two files; unified diff on failure
#   skip REASON            a check that does not apply here (ok N # SKIP REASON)
#   diag TEXT...           "# " before every line
#   bail_out MSG           "Bail out! MSG", exit 255
#   done_testing           the plan if none yet, a summary; status 0 iff all
#                          passed (make it the script's last command)
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.

_tap_n=0
_tap_fail=0
_tap_planned=

plan () { echo "1..$1"; _tap_planned=$1; }
diag () { printf '%s\n' "$*" | sed 's/^/# /'; }
_tap_result () {
    _tap_n=$((_tap_n + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $_tap_n - $2"
    else
        echo "not ok $_tap_n - $2"
        _tap_fail=$((_tap_fail + 1))
    fi
}
ok () { _tap_result "$1" "$2"; }
is () {
    if [ "$1" = "$2" ]; then
        _tap_result 0 "$3"
    else
        _tap_result 1 "$3"
        diag "got:  '$1'"
        diag "want: '$2'"
    fi
}
like () {
    if printf '%s' "$1" | grep -Eq -- "$2"; then
        _tap_result 0 "$3"
    else
        _tap_result 1 "$3"
        diag "got:  '$1'"
        diag "want match: /$2/"
    fi
}
same_file () {
    if cmp -s "$1" "$2"; then
        _tap_result 0 "$3"
    else
        _tap_result 1 "$3"
        diff -u "$1" "$2" | sed 's/^/# /'
    fi
}
skip () {
    _tap_n=$((_tap_n + 1))
    echo "ok $_tap_n # SKIP $*"
}
bail_out () {
    echo "Bail out! $*"
    exit 255
}
done_testing () {
    [ -n "$_tap_planned" ] || echo "1..$_tap_n"
    echo "# $_tap_n tests, $_tap_fail failed"
    [ "$_tap_fail" -eq 0 ]
}
