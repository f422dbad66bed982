/*
 * tap.c - see tap.h.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static int tap_count;
static int tap_failed;

/* Print one result; a failure with where it was checked and, for is and
 * is_int, what was got and expected (got NULL: nothing to show). Returns
 * pass. */
static int tap_result (int pass, const char *file, int line, const char *got,
                       const char *want, const char *fmt, va_list ap)
{
    printf ("%sok %d - ", pass ? "" : "not ", ++tap_count);
    vprintf (fmt, ap);
    printf ("\n");
    if (pass)
        return pass;
    tap_failed++;
    diag ("  failed at %s:%d", file, line);
    if (got) {
        diag ("       got: %s", got);
        diag ("  expected: %s", want);
    }
    return pass;
}

int tap_ok (int pass, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    tap_result (pass, file, line, NULL, NULL, fmt, ap);
    va_end (ap);
    return pass;
}

int tap_is (const char *got, const char *want, const char *file, int line,
            const char *fmt, ...)
{
    int pass = (got == NULL && want == NULL)
               || (got && want && strcmp (got, want) == 0);
    va_list ap;
    va_start (ap, fmt);
    tap_result (pass, file, line, got ? got : "(null)", want ? want : "(null)", fmt,
                ap);
    va_end (ap);
    return pass;
}

int tap_is_int (int64_t got, int64_t want, const char *file, int line,
                const char *fmt, ...)
{
    char g[32], w[32];
    va_list ap;
    snprintf (g, sizeof (g), "%lld", (long long) got);
    snprintf (w, sizeof (w), "%lld", (long long) want);
    va_start (ap, fmt);
    tap_result (got == want, file, line, g, w, fmt, ap);
    va_end (ap);
    return got == want;
}

void diag (const char *fmt, ...)
{
    va_list ap;
    fflush (stdout);
    printf ("# ");
    va_start (ap, fmt);
    vprintf (fmt, ap);
    va_end (ap);
    printf ("\n");
    fflush (stdout);
}

void skip (int n, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (why, sizeof (why), fmt, ap);
    va_end (ap);
    for (int i = 0; i < n; i++)
        printf ("ok %d # SKIP %s\n", ++tap_count, why);
}

void bail_out (const char *fmt, ...)
{
    va_list ap;
    printf ("Bail out! ");
    va_start (ap, fmt);
    vprintf (fmt, ap);
    va_end (ap);
    printf ("\n");
    fflush (stdout);
    exit (1);
}

int done_testing (void)
{
    printf ("1..%d\n", tap_count);
    fflush (stdout);
    return tap_failed ? 1 : 0;
}
