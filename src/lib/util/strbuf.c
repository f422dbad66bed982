/*
 * strbuf.c - owns libjobtree's growable string (see strbuf.h).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* Room for len more bytes and the NUL; false (b->oom) when there is none. */
static bool reserve (jt_strbuf_t *b, size_t len)
{
    if (b->oom)
        return false;
    if (len > SIZE_MAX - b->n - 1) {
        b->oom = true;
        return false;
    }
    if (b->n + len + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 256;
        while (ncap < b->n + len + 1)
            ncap = ncap > SIZE_MAX / 2 ? b->n + len + 1 : ncap * 2;
        char *np = realloc (b->p, ncap);
        if (!np) {
            b->oom = true;
            return false;
        }
        b->p = np;
        b->cap = ncap;
    }
    return true;
}

void jt_strbuf_printf (jt_strbuf_t *b, const char *fmt, ...)
{
    va_list ap;
    int len;

    if (b->oom)
        return;
    va_start (ap, fmt);
    len = vsnprintf (NULL, 0, fmt, ap);
    va_end (ap);
    if (len < 0) {
        b->oom = true;
        return;
    }
    if (!reserve (b, (size_t) len))
        return;
    va_start (ap, fmt);
    vsnprintf (b->p + b->n, b->cap - b->n, fmt, ap);
    va_end (ap);
    b->n += (size_t) len;
}

void jt_strbuf_add (jt_strbuf_t *b, const char *s, size_t len)
{
    if (!reserve (b, len))
        return;
    memcpy (b->p + b->n, s, len);
    b->n += len;
    b->p[b->n] = '\0';
}

char *jt_strbuf_take (jt_strbuf_t *b)
{
    char *p = b->p;
    bool oom = b->oom;

    *b = (jt_strbuf_t) JT_STRBUF_INIT;
    if (oom) {
        free (p);
        errno = ENOMEM;
        return NULL;
    }
    return p ? p : strdup ("");
}
