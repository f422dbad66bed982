/*
 * jobtree/jsonloc.h - where a field is in a JSON text, for messages that
 * name file:line:col (`jobtree check`, every input parser), and the "did
 * you mean" suggestion for a misspelt name. Code in src/lib/util/jsonloc.c.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_JSONLOC_H
#define JOBTREE_JSONLOC_H

#include <stddef.h>

/* JSON paths longer than this are truncated in diagnostics. */
#define JT_JSON_PATH_MAX 256

/* A document reports at most this many errors (then a count of the rest):
 * a systematically broken 64k-node snapshot must not take minutes. */
#define JT_JSON_MAX_ERRORS 100

/* Map a JSON path ("envelopes[2].concurrency", "labels.fabric.domain") to
 * the 1-based line:col of that field in text: the opening quote of the key
 * for an object member, the first character of the value for an array
 * element. Keys may contain dots. Returns 0, or -1 when the path is not
 * found (line/col then point at the deepest container found). */
int jt_json_locate (const char *text, size_t len, const char *path, int *line,
                    int *col);

/* Positions of the first n elements of the array at path, in one pass.
 * Returns how many were found, or -1 if path is not an array. */
int jt_json_locate_elements (const char *text, size_t len, const char *path,
                             int *lines, int *cols, size_t n);

/* Closest candidate to word within a small edit distance, or NULL. */
const char *jt_json_suggest (const char *word, const char *const *candidates);

#endif /* JOBTREE_JSONLOC_H */
