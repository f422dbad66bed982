/*
 * readfile.c - owns reading a whole file into memory (see readfile.h).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/readfile.h"

char *jt_read_file (const char *path, size_t *len, jt_error_t *err)
{
    FILE *f = fopen (path, "rb");
    char *buf = NULL, *nb;
    size_t n = 0, cap = 0;
    int saved;

    if (!f) {
        jt_errprintf (err, "cannot open: %s", strerror (errno));
        return NULL;
    }
    for (;;) {
        if (cap - n < 4096) {
            cap = cap ? cap * 2 : 8192;
            if (!(nb = realloc (buf, cap))) {
                free (buf);
                fclose (f);
                errno = ENOMEM;
                jt_errprintf (err, "out of memory");
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread (buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror (f)) {
        saved = errno ? errno : EIO;
        free (buf);
        fclose (f);
        errno = saved;
        jt_errprintf (err, "cannot read: %s", strerror (saved));
        return NULL;
    }
    fclose (f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}
