##*****************************************************************************
#  SYNOPSIS
#    X_AC_SLURM
#
#  DESCRIPTION
#    --with-slurm-source=DIR points at a configured Slurm source tree (the
#    plugins include its private headers and config.h; contrib/slurm-source.sh
#    makes one). Without it the plugins are not built. The tree's version must
#    equal the installed Slurm's major.minor.micro exactly, because slurmctld
#    refuses (or worse, misreads) plugins built against other headers.
#    --with-slurm-plugindir=DIR is where `make install` puts the plugins.
#    By default it is the installed Slurm's own plugin directory, the first
#    of these that holds select_cons_tres.so: pkg-config's libdir of slurm
#    (upstream installs) and the directory of the libslurm.so the compiler
#    links, each followed by /slurm-wlm (Debian) or /slurm (upstream), then
#    /usr/lib64/slurm, /usr/lib/slurm, /usr/local/lib/slurm. Slurm loads its
#    plugins from PluginDir, not from our prefix, so this is absolute: only
#    DESTDIR moves it. Found nowhere, it is ${libdir}/slurm (configure says
#    so; with the plugins enabled it is an error unless given).
#
#    Sets SLURM_SRC, SLURM_VERSION, SLURM_SERIES (the release adapter:
#    2205, 2411, 2605), SLURM_PLUGINDIR and the conditional
#    BUILD_PLUGINS (source tree given and not a sanitizer build: the plugins
#    are loaded by uninstrumented daemons). HAVE_SLURM_SRC is kept for parts
#    that only need the tree.
##*****************************************************************************
##
## Copyright (C) 2026 The Jobtree authors.
## SPDX-License-Identifier: GPL-2.0-or-later
## Licensed under the GNU General Public License, version 2 or later,
## with the OpenSSL linking exception of LICENSE.OpenSSL.
AC_DEFUN([X_AC_SLURM], [
  AC_REQUIRE([X_AC_SANITIZERS])
  AC_ARG_WITH([slurm-source],
    AS_HELP_STRING([--with-slurm-source=DIR],
      [configured Slurm source tree (22.05, 24.11 or 26.05) matching the installed Slurm
       (see contrib/slurm-source.sh); enables the plugins]),
    [SLURM_SRC="$withval"], [SLURM_SRC=""])
  AC_ARG_WITH([slurm-plugindir],
    AS_HELP_STRING([--with-slurm-plugindir=DIR],
      [install the plugins here @<:@the installed Slurm's plugin directory,
       e.g. /usr/lib/x86_64-linux-gnu/slurm-wlm@:>@]),
    [SLURM_PLUGINDIR="$withval"], [SLURM_PLUGINDIR=""])
  AS_IF([test "x$SLURM_PLUGINDIR" = xyes || test "x$SLURM_PLUGINDIR" = xno],
    [AC_MSG_ERROR([--with-slurm-plugindir needs a directory])])
  x_ac_slurm_plugindir_found=given
  AS_IF([test -z "$SLURM_PLUGINDIR"], [
    AC_MSG_CHECKING([for the installed Slurm's plugin directory])
    x_ac_slurm_libdirs=""
    x_ac_d=`$PKG_CONFIG --variable=libdir slurm 2>/dev/null`
    AS_IF([test -n "$x_ac_d"], [x_ac_slurm_libdirs="$x_ac_d"])
    x_ac_d=`$CC -print-file-name=libslurm.so 2>/dev/null`
    AS_CASE([$x_ac_d], [/*], [
      x_ac_d=`dirname "$x_ac_d"`
      x_ac_d=`cd "$x_ac_d" 2>/dev/null && pwd`
      AS_IF([test -n "$x_ac_d"],
        [x_ac_slurm_libdirs="$x_ac_slurm_libdirs $x_ac_d"])])
    x_ac_slurm_plugindir_found=no
    for x_ac_d in `for x_ac_l in $x_ac_slurm_libdirs; do
                     echo "$x_ac_l/slurm-wlm $x_ac_l/slurm"; done` \
                  /usr/lib64/slurm /usr/lib/slurm /usr/local/lib/slurm; do
      AS_IF([test -f "$x_ac_d/select_cons_tres.so"],
        [SLURM_PLUGINDIR=$x_ac_d; x_ac_slurm_plugindir_found=yes; break])
    done
    AS_IF([test "$x_ac_slurm_plugindir_found" = yes],
      [AC_MSG_RESULT([$SLURM_PLUGINDIR])],
      [SLURM_PLUGINDIR='${libdir}/slurm'
       AC_MSG_RESULT([not found (no select_cons_tres.so); using $SLURM_PLUGINDIR])])
  ])
  SLURM_VERSION=""
  SLURM_SERIES=""
  SLURM_PREEMPT_OPS=""
  AS_IF([test "x$SLURM_SRC" = xno], [SLURM_SRC=""])
  AS_IF([test -n "$SLURM_SRC"], [
    AC_MSG_CHECKING([for a configured Slurm source tree in $SLURM_SRC])
    SLURM_SRC=`cd "$SLURM_SRC" 2>/dev/null && pwd`
    AS_IF([test -z "$SLURM_SRC" || test ! -f "$SLURM_SRC/config.h" ||
           test ! -f "$SLURM_SRC/slurm/slurm.h" ||
           test ! -f "$SLURM_SRC/src/common/xmalloc.h"],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([--with-slurm-source=$with_slurm_source is not a configured Slurm
source tree (need config.h, slurm/slurm.h and src/common/).
Run contrib/slurm-source.sh to fetch and configure the matching one.])])
    SLURM_VERSION=`sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"$/\1/p' \
      "$SLURM_SRC/config.h"`
    AS_IF([test -z "$SLURM_VERSION"],
      [SLURM_VERSION=`awk '$[]1 == "Version:" { print $[]2 }' "$SLURM_SRC/META"`])
    AC_MSG_RESULT([yes, $SLURM_VERSION])

    # The release's adapter (plugins/common/compat.h): its header, select
    # ops and preempt ops. A release without one stops here rather than
    # miscompile against interfaces the plugins do not know.
    AC_MSG_CHECKING([for the plugins' adapter to Slurm $SLURM_VERSION])
    AS_CASE([$SLURM_VERSION],
      [22.05.*], [SLURM_SERIES=2205; SLURM_PREEMPT_OPS=2205],
      [24.11.*], [SLURM_SERIES=2411; SLURM_PREEMPT_OPS=2205],
      [26.05.*], [SLURM_SERIES=2605; SLURM_PREEMPT_OPS=2605],
      [AC_MSG_RESULT([none])
       AC_MSG_ERROR([Slurm $SLURM_VERSION is not supported: the plugins have adapters for
Slurm 22.05, 24.11 and 26.05 (plugins/common/compat_*.h, docs/slurm-versions.md).])])
    AC_MSG_RESULT([compat_$SLURM_SERIES])

    AC_MSG_CHECKING([the installed Slurm version])
    # slurmctld, else the package of Debian's plugin directory (every Slurm
    # host has it; a package build needs only slurm-wlm-basic-plugins-dev).
    x_ac_slurm_installed=""
    for x_ac_p in slurmctld slurm-wlm-basic-plugins; do
      x_ac_slurm_installed=`dpkg-query -W -f='${db:Status-Abbrev} ${Version}' \
        $x_ac_p 2>/dev/null | awk '$[]1 == "ii" { sub(/-.*/, "", $[]2); print $[]2 }'`
      AS_IF([test -n "$x_ac_slurm_installed"], [break])
    done
    AS_IF([test -z "$x_ac_slurm_installed"],
      [x_ac_slurm_installed=`slurmctld -V 2>/dev/null | awk '{ print $[]2 }'`])
    AS_IF([test -z "$x_ac_slurm_installed"],
      [x_ac_slurm_installed=`$PKG_CONFIG --modversion slurm 2>/dev/null`])
    AS_IF([test -z "$x_ac_slurm_installed"],
      [AC_MSG_RESULT([none])
       AC_MSG_ERROR([no installed Slurm found (dpkg-query -W slurmctld or
slurm-wlm-basic-plugins, slurmctld -V, pkg-config slurm): the plugins must
match the installed daemons exactly. Install slurmctld (or
slurm-wlm-basic-plugins-dev) or configure without --with-slurm-source.])])
    AC_MSG_RESULT([$x_ac_slurm_installed])
    # Compare major.minor.micro only (Debian revisions do not change the ABI).
    x_ac_slurm_mmm () { echo "$[]1" | sed 's/^\([[0-9]]*\.[[0-9]]*\.[[0-9]]*\).*/\1/'; }
    AS_IF([test "`x_ac_slurm_mmm $SLURM_VERSION`" != \
                "`x_ac_slurm_mmm $x_ac_slurm_installed`"],
      [AC_MSG_ERROR([Slurm source tree $SLURM_SRC is version $SLURM_VERSION but the
installed Slurm is $x_ac_slurm_installed: plugins must be built against the same
major.minor.micro as the daemons that load them. Run contrib/slurm-source.sh
to get the matching source.])])
  ])
  AS_IF([test -n "$SLURM_SRC" && test "x$enable_sanitizers" != xyes &&
         test "$x_ac_slurm_plugindir_found" = no],
    [AC_MSG_ERROR([the installed Slurm's plugin directory was not found (no
select_cons_tres.so in the usual places): give it with
--with-slurm-plugindir=DIR (the directory slurm.conf's PluginDir names).])])
  AS_IF([test -n "$SLURM_SRC" && test "x$enable_sanitizers" = xyes],
    [AC_MSG_WARN([--enable-sanitizers: the Slurm plugins are not built
(slurmctld is not instrumented)])])
  AC_SUBST([SLURM_SRC])
  AC_SUBST([SLURM_VERSION])
  AC_SUBST([SLURM_SERIES])
  AC_SUBST([SLURM_PREEMPT_OPS])
  AM_CONDITIONAL([SLURM_2205], [test "x$SLURM_SERIES" = x2205])
  AM_CONDITIONAL([SLURM_2411], [test "x$SLURM_SERIES" = x2411])
  AM_CONDITIONAL([SLURM_2605], [test "x$SLURM_SERIES" = x2605])
  AC_SUBST([SLURM_PLUGINDIR])
  AM_CONDITIONAL([HAVE_SLURM_SRC], [test -n "$SLURM_SRC"])
  AM_CONDITIONAL([BUILD_PLUGINS],
    [test -n "$SLURM_SRC" && test "x$enable_sanitizers" != xyes])
])
