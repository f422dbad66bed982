# shellcheck shell=sh
# contrib/progress.sh - progress for the long, otherwise silent steps of
# contrib/install-deps.sh, slurm-source.sh and build.sh (sourced; POSIX sh,
# since slurm-source.sh is /bin/sh).
#
#   . contrib/progress.sh
#   jt_progress LOG CMD [ARG...]
#
# Runs CMD with its stdout and stderr appended to LOG and, while it runs,
# prints every JT_PROGRESS_EVERY seconds (default 15; 0: never) one line to
# stderr: the seconds so far and the last line CMD wrote ("  [30 s] Setting
# up libpmix2 ..."), so a person sees what it is doing, with no invented
# percentage. At the end it prints "  done in N s: CMD". Returns CMD's status.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.

jt_progress () {
    _jp_log=$1
    shift
    _jp_every=${JT_PROGRESS_EVERY:-15}
    case "$_jp_every" in
    ''|*[!0-9]*|?????*)
        echo "progress: JT_PROGRESS_EVERY=$_jp_every is not a number of seconds from 0 to 9999" >&2
        return 2 ;;
    esac
    _jp_t0=$(date +%s)
    _jp_next=$((_jp_t0 + _jp_every))
    "$@" >>"$_jp_log" 2>&1 &
    _jp_pid=$!
    while kill -0 "$_jp_pid" 2>/dev/null; do
        sleep 1
        _jp_now=$(date +%s)
        if [ "$_jp_every" -gt 0 ] && [ "$_jp_now" -ge "$_jp_next" ] \
           && kill -0 "$_jp_pid" 2>/dev/null; then
            # dpkg and apt redraw with carriage returns: the last piece.
            _jp_last=$(tail -n 1 "$_jp_log" 2>/dev/null | tr '\r' '\n' |
                       grep -v '^ *$' | tail -n 1 | cut -c 1-100)
            echo "  [$((_jp_now - _jp_t0)) s] $_jp_last" >&2
            _jp_next=$((_jp_now + _jp_every))
        fi
    done
    _jp_rc=0
    wait "$_jp_pid" || _jp_rc=$?
    echo "  done in $(($(date +%s) - _jp_t0)) s: $(echo "$*" | cut -c 1-60)" >&2
    return "$_jp_rc"
}
