##*****************************************************************************
#  SYNOPSIS
#    X_AC_SLURM
#
#  DESCRIPTION
#    --with-slurm-source=DIR points at a configured Slurm source tree (the
#    plugins include its private headers). Without it the plugins are not
#    built. Refined by the Slurm plugins work (version check).
##*****************************************************************************
AC_DEFUN([X_AC_SLURM], [
  AC_ARG_WITH([slurm-source],
    AS_HELP_STRING([--with-slurm-source=DIR], [configured Slurm 22.05 source tree]),
    [SLURM_SRC="$withval"], [SLURM_SRC=""])
  AC_SUBST([SLURM_SRC])
  AM_CONDITIONAL([HAVE_SLURM_SRC], [test -n "$SLURM_SRC"])
])
