##*****************************************************************************
#  SYNOPSIS
#    X_AC_WARNINGS
#
#  DESCRIPTION
#    Set WARNING_CFLAGS to -Wall -Wextra (plus -Werror with --enable-werror,
#    which CI uses) and hardening flags.
##*****************************************************************************
##
## Copyright (C) 2026 The Jobtree authors.
## SPDX-License-Identifier: GPL-2.0-or-later
## Licensed under the GNU General Public License, version 2 or later,
## with the OpenSSL linking exception of LICENSE.OpenSSL.
AC_DEFUN([X_AC_WARNINGS], [
  AC_ARG_ENABLE([werror],
    AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors]),
    [], [enable_werror=no])
  WARNING_CFLAGS="-Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 -Wno-format-nonliteral -fstack-protector-strong"
  AS_IF([test "x$enable_werror" = xyes], [WARNING_CFLAGS="$WARNING_CFLAGS -Werror"])
  AC_SUBST([WARNING_CFLAGS])
])
