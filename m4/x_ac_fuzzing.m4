##*****************************************************************************
#  SYNOPSIS
#    X_AC_FUZZING
#
#  DESCRIPTION
#    --enable-fuzzing builds libFuzzer targets of every parser that runs in
#    slurmctld, jobtree-ledgerd or the CLI (tests/fuzz/, `make fuzz`).
#    Needs clang with libFuzzer (Debian: clang-14, libclang-rt-14-dev):
#      ./configure CC=clang --enable-fuzzing --enable-sanitizers
#    The library is built with coverage instrumentation (fuzzer-no-link);
#    the targets link libFuzzer's main. See docs/fuzzing.md.
##*****************************************************************************
##
## Copyright (C) 2026 The Jobtree authors.
## SPDX-License-Identifier: GPL-2.0-or-later
## Licensed under the GNU General Public License, version 2 or later,
## with the OpenSSL linking exception of LICENSE.OpenSSL.
AC_DEFUN([X_AC_FUZZING], [
  AC_ARG_ENABLE([fuzzing],
    AS_HELP_STRING([--enable-fuzzing], [build the libFuzzer targets (clang)]),
    [], [enable_fuzzing=no])
  FUZZ_CFLAGS=""
  FUZZ_LDFLAGS=""
  AS_IF([test "x$enable_fuzzing" = xyes], [
    AS_IF([test "x$enable_sanitizers" != xyes],
      [AC_MSG_ERROR([--enable-fuzzing needs --enable-sanitizers (libFuzzer runs with ASan and UBSan)])])
    AC_MSG_CHECKING([whether $CC links libFuzzer targets])
    save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS -fsanitize=fuzzer,address"
    AC_LINK_IFELSE([AC_LANG_SOURCE([[
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput (const uint8_t *d, size_t n) { (void) d; (void) n; return 0; }
]])], [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([--enable-fuzzing: $CC cannot link -fsanitize=fuzzer; use CC=clang with libFuzzer (Debian: apt-get install clang-14 libclang-rt-14-dev)])])
    CFLAGS=$save_CFLAGS
    FUZZ_CFLAGS="-fsanitize=fuzzer-no-link"
    FUZZ_LDFLAGS="-fsanitize=fuzzer"
  ])
  AC_SUBST([FUZZ_CFLAGS])
  AC_SUBST([FUZZ_LDFLAGS])
  AM_CONDITIONAL([WITH_FUZZING], [test "x$enable_fuzzing" = xyes])
])
