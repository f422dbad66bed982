/*
 * jobtree/error.h - error buffer and diagnostics list.
 *
 * Every libjobtree function that can fail takes a jt_error_t * (may be NULL),
 * returns -1 or NULL on failure with the human-readable reason in it, and
 * leaves no side effects behind (flux-core RFC 7 idiom).
 *
 * Input validation (budget files, run files, snapshots) can find many
 * problems at once; those go into a jt_diags_t list, each diagnostic naming
 * the file, the line and column, and the JSON path of the offending field.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_ERROR_H
#define JOBTREE_ERROR_H

#include <stddef.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JT_ERRMSG_MAX 256

typedef struct jt_error {
    char text[JT_ERRMSG_MAX];
} jt_error_t;

/* Format a message into err (if not NULL). Preserves errno. Returns -1 always,
 * so callers can write `return jt_errprintf (err, "...")`. */
int jt_errprintf (jt_error_t *err, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* One finding about an input file. line/col are 1-based; 0 means unknown.
 * path is a JSON path like "envelopes[2].concurrency" ("" for the document). */
typedef struct jt_diag {
    char *file;
    int line;
    int col;
    char *path;
    char *msg;
} jt_diag_t;

typedef struct jt_diags {
    jt_diag_t *v;
    size_t n;
    size_t cap;
} jt_diags_t;

void jt_diags_init (jt_diags_t *d);
void jt_diags_free (jt_diags_t *d);

/* Append a diagnostic. file/path may be NULL. Out of memory drops it silently
 * but bumps n_dropped so the caller can still tell that something was wrong. */
void jt_diags_add (jt_diags_t *d, const char *file, int line, int col,
                   const char *path, const char *fmt, ...)
    __attribute__ ((format (printf, 6, 7)));

/* Render "file:line:col: path: msg" (omitting unknown parts) into buf.
 * Returns the length snprintf would have written. */
int jt_diag_format (const jt_diag_t *diag, char *buf, size_t len);

/* Move all diagnostics of src to the end of dst (src is left empty). */
void jt_diags_move (jt_diags_t *dst, jt_diags_t *src);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_ERROR_H */
