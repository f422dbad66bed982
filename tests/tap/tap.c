/*
 * tap.c - see tap.h.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static int tap_count;
static int tap_failed;

static void tap_result (int pass, const char *fmt, va_list ap)
{
    printf ("%sok %d - ", pass ? "" : "not ", ++tap_count);
    vprintf (fmt, ap);
    printf ("\n");
    if (!pass)
        tap_failed++;
}

int tap_ok (int pass, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    tap_result (pass, fmt, ap);
    va_end (ap);
    if (!pass)
        diag ("  failed at %s:%d", file, line);
    return pass;
}

int tap_is (const char *got, const char *want, const char *file, int line,
            const char *fmt, ...)
{
    int pass = (got == NULL && want == NULL)
               || (got && want && strcmp (got, want) == 0);
    va_list ap;
    va_start (ap, fmt);
    tap_result (pass, fmt, ap);
    va_end (ap);
    if (!pass) {
        diag ("  failed at %s:%d", file, line);
        diag ("       got: %s", got ? got : "(null)");
        diag ("  expected: %s", want ? want : "(null)");
    }
    return pass;
}

int tap_is_int (int64_t got, int64_t want, const char *file, int line,
                const char *fmt, ...)
{
    int pass = got == want;
    va_list ap;
    va_start (ap, fmt);
    tap_result (pass, fmt, ap);
    va_end (ap);
    if (!pass) {
        diag ("  failed at %s:%d", file, line);
        diag ("       got: %lld", (long long) got);
        diag ("  expected: %lld", (long long) want);
    }
    return pass;
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
