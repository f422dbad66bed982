/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_ledger.c - a ledger segment file as the daemon's recovery and
 * jobtree verify read it (records, hashes, chain). */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "jobtree/error.h"
#include "jobtree/ledger.h"
#include "fuzz.h"

static char path[256];

static int count (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    (void) rec;
    (void) err;
    (*(size_t *) arg)++;
    return 0;
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    if (!path[0]) {
        char dir[] = "/tmp/jt-fuzz-ledger.XXXXXX";
        if (!mkdtemp (dir))
            abort ();
        snprintf (path, sizeof (path), "%s/ledger-00000000000000000001.jtl", dir);
    }
    FILE *f = fopen (path, "w");
    if (!f || fwrite (data, 1, size, f) != size || fclose (f) != 0)
        abort ();
    const char *paths[] = { path };
    jt_ledger_result_t res;
    jt_error_t err;
    size_t n = 0;
    (void) jt_ledger_read (paths, 1, NULL, count, &n, &res, &err);
    return 0;
}
