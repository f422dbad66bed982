##*****************************************************************************
#  SYNOPSIS
#    X_AC_SYSTEMD
#
#  DESCRIPTION
#    Where `make install` puts jobtree-ledgerd.service.
#    --with-systemdsystemunitdir=DIR names the directory; --without-... (or
#    =no) installs no unit. By default it follows --prefix: with
#    --prefix=/usr it is systemd's own directory (pkg-config's
#    systemdsystemunitdir of systemd, /lib/systemd/system on Debian
#    bookworm), else PREFIX/lib/systemd/system (systemd reads
#    /usr/local/lib/systemd/system, so the default prefix works as is).
#    Sets systemdsystemunitdir and the conditional HAVE_SYSTEMDUNITDIR.
##*****************************************************************************
##
## Copyright (C) 2026 The Jobtree authors.
## SPDX-License-Identifier: GPL-2.0-or-later
## Licensed under the GNU General Public License, version 2 or later,
## with the OpenSSL linking exception of LICENSE.OpenSSL.
AC_DEFUN([X_AC_SYSTEMD], [
  AC_REQUIRE([PKG_PROG_PKG_CONFIG])
  AC_ARG_WITH([systemdsystemunitdir],
    AS_HELP_STRING([--with-systemdsystemunitdir=DIR],
      [install jobtree-ledgerd.service here (no: not at all)
       @<:@PREFIX/lib/systemd/system; systemd's own with --prefix=/usr@:>@]),
    [], [with_systemdsystemunitdir=auto])
  AC_MSG_CHECKING([where to install the systemd unit])
  AS_CASE([$with_systemdsystemunitdir],
    [auto|yes], [
      x_ac_unitdir='${prefix}/lib/systemd/system'
      AS_IF([test "x$prefix" = x/usr], [
        x_ac_d=`$PKG_CONFIG --variable=systemdsystemunitdir systemd 2>/dev/null`
        AS_IF([test -n "$x_ac_d"], [x_ac_unitdir=$x_ac_d])])
      systemdsystemunitdir=$x_ac_unitdir],
    [no], [systemdsystemunitdir=""],
    [systemdsystemunitdir=$with_systemdsystemunitdir])
  AC_MSG_RESULT([${systemdsystemunitdir:-nowhere}])
  AC_SUBST([systemdsystemunitdir])
  AM_CONDITIONAL([HAVE_SYSTEMDUNITDIR], [test -n "$systemdsystemunitdir"])
])
