##*****************************************************************************
#  SYNOPSIS
#    X_AC_LIBSLURM
#
#  DESCRIPTION
#    libslurm (Debian: libslurm-dev) for `jobtree snapshot`, which reads a
#    live cluster through Slurm's public API. Optional: without it the
#    command says so. Sets LIBSLURM_LIBS, HAVE_LIBSLURM (config.h) and the
#    HAVE_LIBSLURM conditional, and HAVE_SLURM_TOPOLOGY_YAML when that
#    Slurm reads topology.yaml (25.05+). --without-libslurm turns it off.
##*****************************************************************************
##
## Copyright (C) 2026 The Jobtree authors.
## SPDX-License-Identifier: GPL-2.0-or-later
## Licensed under the GNU General Public License, version 2 or later,
## with the OpenSSL linking exception of LICENSE.OpenSSL.
AC_DEFUN([X_AC_LIBSLURM], [
  AC_ARG_WITH([libslurm],
    AS_HELP_STRING([--without-libslurm],
      [build `jobtree snapshot` without libslurm (it then refuses to run)]),
    [], [with_libslurm=check])
  LIBSLURM_LIBS=""
  x_ac_have_libslurm=no
  AS_IF([test "x$with_libslurm" != xno], [
    AC_CHECK_HEADER([slurm/slurm.h], [
      AC_CHECK_LIB([slurm], [slurm_load_node],
        [LIBSLURM_LIBS="-lslurm"; x_ac_have_libslurm=yes])])
    # The free of slurm_load_ctl_conf's answer: slurm_free_ctl_conf until
    # 25.05, slurm_free_conf since (slurm/slurm.h@26.05.3:4114).
    AS_IF([test "x$x_ac_have_libslurm" = xyes], [
      x_ac_save_LIBS=$LIBS
      LIBS="-lslurm $LIBS"
      AC_CHECK_FUNCS([slurm_free_conf])
      LIBS=$x_ac_save_LIBS])
    # Since 25.05 a topology.yaml beside slurm.conf replaces TopologyPlugin
    # and topology.conf (topology.yaml(5); docs/slurm-26.05.md): the
    # snapshot then reads it. Decided here, from the headers' version, so
    # that no source carries a version test (docs/slurm-versions.md).
    AS_IF([test "x$x_ac_have_libslurm" = xyes], [
      AC_MSG_CHECKING([whether this Slurm reads topology.yaml (25.05 and later)])
      AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <slurm/slurm.h>
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(25, 5, 0)
#error "before 25.05: topology.conf only"
#endif
]], [[]])],
        [AC_MSG_RESULT([yes])
         AC_DEFINE([HAVE_SLURM_TOPOLOGY_YAML], [1],
           [Slurm (25.05+) reads topology.yaml before topology.conf])],
        [AC_MSG_RESULT([no])])])
    AS_IF([test "x$with_libslurm" = xyes && test "x$x_ac_have_libslurm" = xno],
      [AC_MSG_ERROR([--with-libslurm: slurm/slurm.h or libslurm not found
(Debian: apt-get install libslurm-dev)])])
  ])
  AS_IF([test "x$x_ac_have_libslurm" = xyes],
    [AC_DEFINE([HAVE_LIBSLURM], [1], [libslurm is available for jobtree snapshot])])
  AC_SUBST([LIBSLURM_LIBS])
  AM_CONDITIONAL([HAVE_LIBSLURM], [test "x$x_ac_have_libslurm" = xyes])
])
