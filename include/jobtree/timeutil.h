/*
 * jobtree/timeutil.h - RFC 3339 instants and durations.
 *
 * Time in libjobtree is int64_t seconds since the Unix epoch, UTC. Windows are
 * half-open [start, end). Durations are int64_t seconds.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_TIMEUTIL_H
#define JOBTREE_TIMEUTIL_H

#include <stdint.h>
#include <stddef.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parse an RFC 3339 timestamp ("2026-01-01T00:00:00Z", "...+02:00",
 * fractional seconds ignored). Returns 0, or -1 with err set. */
int jt_time_parse (const char *s, int64_t *out, jt_error_t *err);

/* Format as "YYYY-MM-DDTHH:MM:SSZ" into buf (at least 21 bytes). */
int jt_time_format (int64_t t, char *buf, size_t len);

/* Parse a duration string. Accepted: unit strings ("90s", "30m", "2h",
 * "1h30m", "1d") and Slurm's time format ("MM", "MM:SS", "HH:MM:SS",
 * "D-HH", "D-HH:MM", "D-HH:MM:SS"): a bare number is minutes, as in
 * sbatch --time. (JSON documents may give integer seconds instead.)
 * Returns 0, or -1 with err naming an accepted example. */
int jt_duration_parse (const char *s, int64_t *out, jt_error_t *err);

/* Format seconds as a compact duration ("1h30m", "45s", "2d"). */
int jt_duration_format (int64_t secs, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_TIMEUTIL_H */
