##*****************************************************************************
#  SYNOPSIS
#    X_AC_SANITIZERS
#
#  DESCRIPTION
#    --enable-sanitizers builds libjobtree, the CLI and the unit tests with
#    AddressSanitizer and UndefinedBehaviorSanitizer (not the plugins: those
#    are loaded into an uninstrumented slurmctld).
##*****************************************************************************
##
## Copyright (C) 2026 The Jobtree authors.
## SPDX-License-Identifier: GPL-2.0-or-later
## Licensed under the GNU General Public License, version 2 or later,
## with the OpenSSL linking exception of LICENSE.OpenSSL.
AC_DEFUN([X_AC_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    AS_HELP_STRING([--enable-sanitizers], [build with ASan and UBSan]),
    [], [enable_sanitizers=no])
  SAN_CFLAGS=""
  AS_IF([test "x$enable_sanitizers" = xyes],
    [SAN_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"])
  AC_SUBST([SAN_CFLAGS])
  AM_CONDITIONAL([WITH_SANITIZERS], [test "x$enable_sanitizers" = xyes])
])
