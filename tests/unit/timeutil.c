/*
 * timeutil.c - unit tests of RFC 3339 times and durations.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "jobtree/timeutil.h"
#include "tap.h"

static void time_ok (const char *s, int64_t want, const char *canon)
{
    int64_t t = -1;
    char buf[32];
    jt_error_t err = { "" };

    ok (jt_time_parse (s, &t, &err) == 0, "parse %s%s%s", s, *err.text ? ": " : "",
        err.text);
    is_int (t, want, "%s is %lld", s, (long long) want);
    jt_time_format (t, buf, sizeof (buf));
    is (buf, canon, "%s formats as %s", s, canon);
}

static void time_bad (const char *s, const char *msg)
{
    int64_t t = 42;
    jt_error_t err = { "" };

    ok (jt_time_parse (s, &t, &err) < 0, "reject time '%s'", s);
    is (err.text, msg, "message for '%s'", s);
    is_int (t, 42, "output untouched on failure");
}

static void dur_ok (const char *s, int64_t want, const char *canon)
{
    int64_t v = -1;
    char buf[32];
    jt_error_t err = { "" };

    ok (jt_duration_parse (s, &v, &err) == 0, "parse duration '%s'%s%s", s,
        *err.text ? ": " : "", err.text);
    is_int (v, want, "'%s' is %lld s", s, (long long) want);
    jt_duration_format (v, buf, sizeof (buf));
    is (buf, canon, "%lld s formats as %s", (long long) want, canon);
}

static void dur_bad (const char *s)
{
    int64_t v = 42;
    jt_error_t err = { "" };
    char want[256];

    ok (jt_duration_parse (s, &v, &err) < 0, "reject duration '%s'", s);
    snprintf (want, sizeof (want), "invalid duration '%s': use e.g. \"4h\", "
              "\"1h30m\", \"90s\", \"30\" (minutes) or \"1-12:00:00\"", s);
    is (err.text, want, "message for '%s' names examples", s);
    is_int (v, 42, "output untouched on failure");
}

int main (void)
{
    char buf[64];
    jt_error_t err;
    int64_t v;

    time_ok ("1970-01-01T00:00:00Z", 0, "1970-01-01T00:00:00Z");
    time_ok ("2026-01-01T00:00:00Z", 1767225600, "2026-01-01T00:00:00Z");
    time_ok ("2026-03-01T12:00:00Z", 1772366400, "2026-03-01T12:00:00Z");
    time_ok ("2024-02-29T23:59:59Z", 1709251199, "2024-02-29T23:59:59Z");
    time_ok ("2026-01-01T02:00:00+02:00", 1767225600, "2026-01-01T00:00:00Z");
    time_ok ("2025-12-31T19:00:00-05:00", 1767225600, "2026-01-01T00:00:00Z");
    time_ok ("2026-01-01t00:00:00.123456z", 1767225600, "2026-01-01T00:00:00Z");
    time_ok ("1969-12-31T23:59:59Z", -1, "1969-12-31T23:59:59Z");
    time_ok ("2100-03-01T00:00:00Z", 4107542400, "2100-03-01T00:00:00Z");

    time_bad ("2026-01-01", "invalid time '2026-01-01': expected RFC 3339 like "
              "2026-01-01T00:00:00Z");
    time_bad ("2026-01-01T00:00:00", "invalid time '2026-01-01T00:00:00': expected "
              "RFC 3339 like 2026-01-01T00:00:00Z");
    time_bad ("2026-01-01T00:00:00Zjunk", "invalid time '2026-01-01T00:00:00Zjunk': "
              "expected RFC 3339 like 2026-01-01T00:00:00Z");
    time_bad ("2026-02-29T00:00:00Z", "invalid date in '2026-02-29T00:00:00Z'");
    time_bad ("2026-13-01T00:00:00Z", "invalid date in '2026-13-01T00:00:00Z'");
    time_bad ("2026-01-01T24:00:00Z", "invalid time of day in '2026-01-01T24:00:00Z'");
    time_bad ("2026-01-01T00:00:00.Z", "invalid time '2026-01-01T00:00:00.Z': "
              "expected RFC 3339 like 2026-01-01T00:00:00Z");
    time_bad ("", "invalid time '': expected RFC 3339 like 2026-01-01T00:00:00Z");
    ok (jt_time_parse (NULL, &v, NULL) < 0, "NULL time is refused (NULL err ok)");
    is_int (jt_time_format (0, buf, 8), 20, "time format reports full length");

    dur_ok ("0", 0, "0s");
    dur_ok ("60", 3600, "1h");
    dur_ok ("30", 1800, "30m");
    dur_ok ("90s", 90, "1m30s");
    dur_ok ("30m", 1800, "30m");
    dur_ok ("2h", 7200, "2h");
    dur_ok ("1h30m", 5400, "1h30m");
    dur_ok ("1d", 86400, "1d");
    dur_ok ("1d2h3m4s", 93784, "1d2h3m4s");
    dur_ok ("05:30", 330, "5m30s");
    dur_ok ("01:02:03", 3723, "1h2m3s");
    dur_ok ("1-12", 129600, "1d12h");
    dur_ok ("1-12:30", 131400, "1d12h30m");
    dur_ok ("2-00:00:01", 172801, "2d1s");
    dur_ok ("90:00", 5400, "1h30m");
    dur_bad ("");
    dur_bad ("abc");
    dur_bad ("4x");
    dur_bad ("1m2h");
    dur_bad ("1h1h");
    dur_bad ("h");
    dur_bad ("-5");
    dur_bad ("1:2:3:4");
    dur_bad ("1-24");
    dur_bad ("01:60:00");
    dur_bad ("00:00:60");
    dur_bad ("1.5h");
    dur_bad ("4 h");
    ok (jt_duration_parse ("99999999999999999999", &v, &err) < 0, "huge duration");
    is (err.text, "duration '99999999999999999999' is too long", "huge duration message");
    ok (jt_duration_parse ("99999999999d", &v, &err) < 0, "huge unit duration");
    is (err.text, "duration '99999999999d' is too long", "huge unit message");
    jt_duration_format (-90, buf, sizeof (buf));
    is (buf, "-1m30s", "negative duration");
    is_int (jt_duration_format (93784, buf, 3), 8, "duration format reports length");
    return done_testing ();
}
