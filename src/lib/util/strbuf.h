/*
 * strbuf.h - the growable string of libjobtree's text dumps (placements,
 * plans): printf-append, then take the result (internal, not public API).
 *
 *   jt_strbuf_t b = JT_STRBUF_INIT;
 *   jt_strbuf_printf (&b, "g%zu %s[", i, name);
 *   return jt_strbuf_take (&b);         (NULL with errno ENOMEM on failure)
 *
 * An allocation failure is remembered: later appends do nothing and
 * jt_strbuf_take returns NULL, so callers check once, at the end.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_STRBUF_H
#define JT_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct jt_strbuf {
    char *p;                    /* NUL-terminated once anything was added */
    size_t n, cap;
    bool oom;                   /* an append failed: the text is incomplete */
} jt_strbuf_t;

#define JT_STRBUF_INIT { NULL, 0, 0, false }

/* Append printf-formatted text. */
void jt_strbuf_printf (jt_strbuf_t *b, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Append the len bytes at s (no format: a copy). */
void jt_strbuf_add (jt_strbuf_t *b, const char *s, size_t len);

/* The text (malloc'd, caller frees; "" when nothing was added), or NULL
 * with errno ENOMEM when an append failed. b is left empty either way. */
char *jt_strbuf_take (jt_strbuf_t *b);

#endif /* JT_STRBUF_H */
