/*
 * fuzz.h - shared by the libFuzzer targets (tests/fuzz/fuzz_*.c, built by
 * `configure --enable-fuzzing`; see docs/fuzzing.md).
 *
 * Each target feeds bytes to one parser exactly as slurmctld, the daemon or
 * the CLI would get them, then exercises what a caller does next with the
 * result (validate, compile, serialise), so a crash, a leak (LeakSanitizer),
 * undefined behaviour (UBSan) or a stall (libFuzzer's -timeout) anywhere on
 * that path is found.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_FUZZ_H
#define JT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input (parsers of C strings). */
static inline char *fuzz_cstr (const uint8_t *data, size_t size)
{
    char *s = malloc (size + 1);
    if (s) {
        memcpy (s, data, size);
        s[size] = '\0';
    }
    return s;
}

#endif /* JT_FUZZ_H */
