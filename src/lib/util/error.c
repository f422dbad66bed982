/*
 * error.c - jt_error_t and the diagnostics list (see jobtree/error.h).
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

#include "jobtree/error.h"

int jt_errprintf (jt_error_t *err, const char *fmt, ...)
{
    int saved = errno;
    if (err) {
        va_list ap;
        va_start (ap, fmt);
        vsnprintf (err->text, sizeof (err->text), fmt, ap);
        va_end (ap);
    }
    errno = saved;
    return -1;
}

void jt_diags_init (jt_diags_t *d)
{
    d->v = NULL;
    d->n = 0;
    d->cap = 0;
}

static void diag_clear (jt_diag_t *g)
{
    free (g->file);
    free (g->path);
    free (g->msg);
}

void jt_diags_free (jt_diags_t *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++)
        diag_clear (&d->v[i]);
    free (d->v);
    jt_diags_init (d);
}

static int diags_grow (jt_diags_t *d, size_t need)
{
    if (need <= d->cap)
        return 0;
    size_t cap = d->cap ? d->cap * 2 : 8;
    while (cap < need)
        cap *= 2;
    jt_diag_t *v = realloc (d->v, cap * sizeof (*v));
    if (!v)
        return -1;
    d->v = v;
    d->cap = cap;
    return 0;
}

void jt_diags_add (jt_diags_t *d, const char *file, int line, int col,
                   const char *path, const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    if (!d)
        return;
    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    if (diags_grow (d, d->n + 1) < 0)
        return;
    jt_diag_t *g = &d->v[d->n];
    g->file = file ? strdup (file) : NULL;
    g->path = path ? strdup (path) : NULL;
    g->msg = strdup (buf);
    g->line = line;
    g->col = col;
    if ((file && !g->file) || (path && !g->path) || !g->msg) {
        diag_clear (g);
        return;
    }
    d->n++;
}

int jt_diag_format (const jt_diag_t *g, char *buf, size_t len)
{
    char where[64] = "";

    if (g->line > 0 && g->col > 0)
        snprintf (where, sizeof (where), ":%d:%d", g->line, g->col);
    else if (g->line > 0)
        snprintf (where, sizeof (where), ":%d", g->line);
    return snprintf (buf, len, "%s%s: %s%s%s",
                     g->file ? g->file : "<input>", where,
                     g->path && *g->path ? g->path : "",
                     g->path && *g->path ? ": " : "",
                     g->msg);
}

void jt_diags_move (jt_diags_t *dst, jt_diags_t *src)
{
    if (diags_grow (dst, dst->n + src->n) == 0) {
        memcpy (dst->v + dst->n, src->v, src->n * sizeof (jt_diag_t));
        dst->n += src->n;
        src->n = 0;
    }
    jt_diags_free (src);
}
