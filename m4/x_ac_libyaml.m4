##*****************************************************************************
#  SYNOPSIS
#    X_AC_LIBYAML
#
#  DESCRIPTION
#    libyaml (Debian's libyaml-dev, pkg-config yaml-0.1) for reading
#    Slurm's topology.yaml in `jobtree snapshot` (src/lib/topoconf_yaml.c).
#    --with-libyaml=auto (default) uses it when found, yes requires it, no
#    leaves it out (topology.yaml is then not read). Sets YAML_CFLAGS,
#    YAML_LIBS and HAVE_LIBYAML.
##*****************************************************************************
##
## Copyright (C) 2026 The Jobtree authors.
## SPDX-License-Identifier: GPL-2.0-or-later
## Licensed under the GNU General Public License, version 2 or later,
## with the OpenSSL linking exception of LICENSE.OpenSSL.
AC_DEFUN([X_AC_LIBYAML], [
  AC_REQUIRE([PKG_PROG_PKG_CONFIG])
  AC_ARG_WITH([libyaml],
    AS_HELP_STRING([--with-libyaml@<:@=auto|yes|no@:>@],
      [read topology.yaml with libyaml @<:@auto@:>@]),
    [], [with_libyaml=auto])
  x_ac_yaml=no
  AS_IF([test "x$with_libyaml" != xno], [
    PKG_CHECK_MODULES([YAML], [yaml-0.1], [x_ac_yaml=yes], [
      AS_IF([test "x$with_libyaml" = xyes],
        [AC_MSG_ERROR([--with-libyaml: libyaml not found (install libyaml-dev)])])
      YAML_CFLAGS=""
      YAML_LIBS=""])])
  AS_IF([test "x$x_ac_yaml" = xyes],
    [AC_DEFINE([HAVE_LIBYAML], [1], [Define to 1 to read topology.yaml with libyaml.])])
  AC_SUBST([YAML_CFLAGS])
  AC_SUBST([YAML_LIBS])
])
