/*
 * timeutil.c - RFC 3339 instants and durations (see jobtree/timeutil.h).
 *
 * The calendar arithmetic is done here (days from civil date and back)
 * rather than with mktime/timegm so that the result never depends on the
 * process's TZ or locale.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "jobtree/timeutil.h"

/* Durations above this (about 31,700 years) are refused: no window is that
 * long and it keeps every product of GPUs x seconds far from overflow. */
#define DURATION_MAX INT64_C (1000000000000)

static int64_t days_from_civil (int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days (int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int) (doy - (153 * mp + 2) / 5 + 1);
    *m = (int) (mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static bool is_leap (int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days (int64_t y, int m)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    return m == 2 && is_leap (y) ? 29 : days[m - 1];
}

/* Read exactly n digits at *p. Returns the value or -1. */
static int digits (const char **p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit ((unsigned char) (*p)[i]))
            return -1;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    return v;
}

static int expect (const char **p, char c)
{
    if (**p != c)
        return -1;
    (*p)++;
    return 0;
}

/* Returns 0, or -1 with err set. */
int jt_time_parse (const char *s, int64_t *out, jt_error_t *err)
{
    const char *p = s;
    int y, mo, d, h, mi, se, off = 0;

    if (!s)
        return jt_errprintf (err, "missing time");
    if ((y = digits (&p, 4)) < 0 || expect (&p, '-') < 0
        || (mo = digits (&p, 2)) < 0 || expect (&p, '-') < 0
        || (d = digits (&p, 2)) < 0)
        goto bad;
    if (*p != 'T' && *p != 't' && *p != ' ')
        goto bad;
    p++;
    if ((h = digits (&p, 2)) < 0 || expect (&p, ':') < 0
        || (mi = digits (&p, 2)) < 0 || expect (&p, ':') < 0
        || (se = digits (&p, 2)) < 0)
        goto bad;
    if (*p == '.') {
        p++;
        if (!isdigit ((unsigned char) *p))
            goto bad;
        while (isdigit ((unsigned char) *p))
            p++;
    }
    if (*p == 'Z' || *p == 'z')
        p++;
    else if (*p == '+' || *p == '-') {
        int sign = *p == '-' ? -1 : 1, oh, om;
        p++;
        if ((oh = digits (&p, 2)) < 0 || expect (&p, ':') < 0
            || (om = digits (&p, 2)) < 0 || oh > 23 || om > 59)
            goto bad;
        off = sign * (oh * 3600 + om * 60);
    } else
        goto bad;
    if (*p != '\0')
        goto bad;
    if (mo < 1 || mo > 12 || d < 1 || d > month_days (y, mo))
        return jt_errprintf (err, "invalid date in '%s'", s);
    if (h > 23 || mi > 59 || se > 60)
        return jt_errprintf (err, "invalid time of day in '%s'", s);
    *out = days_from_civil (y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off;
    return 0;
bad:
    return jt_errprintf (err, "invalid time '%s': expected RFC 3339 like "
                         "2026-01-01T00:00:00Z", s);
}

/* Returns the length snprintf would have written. */
int jt_time_format (int64_t t, char *buf, size_t len)
{
    int64_t days = t / 86400, rem = t % 86400, y;
    int m, d;

    if (rem < 0) {
        rem += 86400;
        days--;
    }
    civil_from_days (days, &y, &m, &d);
    return snprintf (buf, len, "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long) y, m,
                     d, (int) (rem / 3600), (int) (rem / 60 % 60), (int) (rem % 60));
}

/* Read a decimal number at *p (at least one digit). -1 if none or too big. */
static int64_t number (const char **p)
{
    int64_t v = 0;

    if (!isdigit ((unsigned char) **p))
        return -1;
    while (isdigit ((unsigned char) **p)) {
        v = v * 10 + (**p - '0');
        if (v > DURATION_MAX)
            return -2;
        (*p)++;
    }
    return v;
}

/* Slurm's D-HH[:MM[:SS]], MM:SS and HH:MM:SS forms. */
static int64_t slurm_duration (const char *s)
{
    const char *p = s;
    bool has_days = strchr (s, '-') != NULL;
    int64_t days = 0, f[3], h = 0, m = 0, sec = 0;
    int nf = 0;

    if (has_days) {
        if ((days = number (&p)) < 0)
            return days;
        if (expect (&p, '-') < 0)
            return -1;
    }
    for (;;) {
        if (nf == 3)
            return -1;
        if ((f[nf] = number (&p)) < 0)
            return f[nf];
        nf++;
        if (*p == '\0')
            break;
        if (expect (&p, ':') < 0)
            return -1;
    }
    if (has_days) {
        h = f[0];
        m = nf > 1 ? f[1] : 0;
        sec = nf > 2 ? f[2] : 0;
        if (h > 23)
            return -1;
    } else if (nf == 2) {
        m = f[0];
        sec = f[1];
    } else if (nf == 3) {
        h = f[0];
        m = f[1];
        sec = f[2];
    } else
        return -1;
    if (sec > 59 || (m > 59 && (has_days || nf == 3)))
        return -1;
    int64_t total = ((days * 24 + h) * 60 + m) * 60 + sec;
    return total > DURATION_MAX ? -2 : total;
}

/* "1d2h3m4s": units in decreasing order, each at most once. */
static int64_t unit_duration (const char *s)
{
    static const char units[] = "dhms";
    static const int64_t mult[] = { 86400, 3600, 60, 1 };
    const char *p = s;
    int64_t total = 0;
    int next = 0;

    while (*p) {
        int64_t v = number (&p);
        if (v < 0)
            return v;
        const char *u = *p ? strchr (units + next, *p) : NULL;
        if (!u)
            return -1;
        next = (int) (u - units);
        total += v * mult[next];
        if (total > DURATION_MAX)
            return -2;
        next++;
        p++;
    }
    return total;
}

/* Returns 0, or -1 with err naming accepted examples. */
int jt_duration_parse (const char *s, int64_t *out, jt_error_t *err)
{
    int64_t v;
    const char *p = s;

    if (!s)
        s = "";
    if (!*s)
        v = -1;
    else if (strspn (s, "0123456789") == strlen (s)) {
        /* A bare number is minutes, as in Slurm's time format (sbatch
         * --time=30), so --checkpoint=30 means what a Slurm user expects.
         * JSON documents give plain seconds as integers instead. */
        v = number (&p);
        if (v >= 0)
            v = v > DURATION_MAX / 60 ? -2 : v * 60;
    }
    else if (strchr (s, ':') || strchr (s, '-'))
        v = slurm_duration (s);
    else
        v = unit_duration (s);
    if (v == -2)
        return jt_errprintf (err, "duration '%s' is too long", s);
    if (v < 0)
        return jt_errprintf (err, "invalid duration '%s': use e.g. \"4h\", "
                             "\"1h30m\", \"90s\", \"30\" (minutes) or "
                             "\"1-12:00:00\"", s);
    *out = v;
    return 0;
}

/* Returns the length snprintf would have written. */
int jt_duration_format (int64_t secs, char *buf, size_t len)
{
    static const char units[] = "dhms";
    static const uint64_t mult[] = { 86400, 3600, 60, 1 };
    char tmp[64];
    size_t k = 0;
    uint64_t v = secs < 0 ? (uint64_t) 0 - (uint64_t) secs : (uint64_t) secs;

    if (secs < 0)
        tmp[k++] = '-';
    if (v == 0)
        return snprintf (buf, len, "0s");
    for (int i = 0; i < 4; i++) {
        uint64_t q = v / mult[i];
        if (q) {
            k += (size_t) snprintf (tmp + k, sizeof (tmp) - k, "%llu%c",
                                    (unsigned long long) q, units[i]);
            v -= q * mult[i];
        }
    }
    return snprintf (buf, len, "%s", tmp);
}
