/*
 * tap.h - a minimal TAP producer for the unit tests.
 *
 * Output follows TAP version 13 and is consumed by automake's tap-driver.sh
 * (make check). Each test program prints "ok N - name" lines and ends with
 * done_testing(), which prints the plan and returns the exit status.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_TAP_H
#define JT_TAP_H

#include <stdint.h>

int tap_ok (int pass, const char *file, int line, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));
int tap_is (const char *got, const char *want, const char *file, int line,
            const char *fmt, ...) __attribute__ ((format (printf, 5, 6)));
int tap_is_int (int64_t got, int64_t want, const char *file, int line,
                const char *fmt, ...) __attribute__ ((format (printf, 5, 6)));
void diag (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
void skip (int n, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
void bail_out (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2), noreturn));
int done_testing (void);

#define ok(cond, ...) tap_ok (!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is(got, want, ...) tap_is ((got), (want), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) \
    tap_is_int ((int64_t) (got), (int64_t) (want), __FILE__, __LINE__, __VA_ARGS__)

#endif /* JT_TAP_H */
