/*
 * jsonutil.h - internal helpers shared by the JSON readers of budgets, runs
 * and snapshots (not part of the public API).
 *
 * json-c parses; these helpers add what it lacks for good diagnostics:
 * syntax errors with line:col, a locator that maps a JSON path back to the
 * line:col of the field in the raw text, typed field getters that report
 * "expected an integer, got a string", range limits (json-c saturates huge
 * integers to INT64_MAX silently) and unknown-key checks with "did you mean"
 * suggestions. Every problem goes into a jt_diags_t and the reader carries
 * on, so one pass reports all of them.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_JSONUTIL_H
#define JT_JSONUTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include <json-c/json.h>

#include "jobtree/jsonloc.h"

#include "jobtree/error.h"

/* Integers above this are refused outright (counts of GPUs, nodes, ...). */
#define JT_JSON_INT_MAX (INT64_C (2147483648))
/* Numbers (GPU-hours) above this are refused. */
#define JT_JSON_NUM_MAX (1e12)

/* One document being read: where diagnostics go and how many were added. */
typedef struct jt_jdoc {
    const char *file;
    const char *text;
    size_t len;
    jt_diags_t *diags;
    int errors;
    int suppressed;             /* errors beyond JT_JSON_MAX_ERRORS */
} jt_jdoc_t;


void jt_jdoc_init (jt_jdoc_t *d, const char *file, const char *text, size_t len,
                   jt_diags_t *diags);

/* json-c 0.16 (Debian 12) saturates an integer literal beyond 64 bits to
 * UINT64_MAX or INT64_MIN, and the range checks here rely on it; 0.17+
 * (Debian 13's 0.18) refuses it in strict mode ("number expected"). A
 * malloc'd copy of text with each such literal replaced by the saturated
 * value, padded with blanks so every offset stays, or NULL when there is
 * none (or on ENOMEM: then the text is parsed as it is). Parse the copy;
 * locate fields in either. */
char *jt_json_saturate_ints (const char *text, size_t len);

/* Parse d->text with json-c (strict). On a syntax error adds
 * "file:line:col: message" (truncated input: "unexpected end of input")
 * and returns NULL. Duplicate keys are reported as errors but the object
 * is still returned (the reader carries on to find more problems; it
 * fails because d->errors > 0). The caller owns the returned object
 * (json_object_put). */
json_object *jt_jdoc_parse (jt_jdoc_t *d);

/* Stable-sort the diagnostics appended since index `from` by line:col, so
 * that a file's problems read top to bottom; then add the count of the
 * errors not shown, if any. Call once, when done with the document. */
void jt_jdoc_sort (jt_jdoc_t *d, size_t from);

/* Add an error about the field at `path`, locating it in the raw text. */
void jt_jdoc_error (jt_jdoc_t *d, const char *path, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Report every key that appears twice in one object (json-c silently keeps
 * the last value). Called by jt_jdoc_parse. */
void jt_jdoc_check_dup_keys (jt_jdoc_t *d);

/* 1-based line:col of byte offset off in text. */
void jt_json_linecol (const char *text, size_t len, size_t off, int *line,
                      int *col);

/* "a string", "an integer", ... for messages. */
const char *jt_json_type_phrase (const json_object *o);

/* Join a path and a key or index into buf: "a" + "b" -> "a.b", "" + "b" ->
 * "b", "a" + [2] -> "a[2]". Returns buf. */
char *jt_json_path_key (char *buf, size_t len, const char *path, const char *key);
char *jt_json_path_idx (char *buf, size_t len, const char *path, size_t idx);

/* Report every key of obj not in allowed (NULL-terminated), with a
 * suggestion when one is close. Returns the number reported. */
int jt_jdoc_check_keys (jt_jdoc_t *d, json_object *obj, const char *path,
                        const char *const *allowed);

/* Check that v (at path) is an object, and report its keys not in allowed
 * as jt_jdoc_check_keys does. Returns 1 for an object, else -1 (error
 * added). */
int jt_jdoc_object_value (jt_jdoc_t *d, json_object *v, const char *path,
                          const char *const *allowed);

/* Typed getters. Each looks up key in obj (path is obj's path). They return
 * 1 when the field is present and valid (out set), 0 when absent (an error
 * too if required), -1 when present but invalid (error added). A JSON null
 * counts as present and of the wrong type. */
int jt_jdoc_get_string (jt_jdoc_t *d, json_object *obj, const char *path,
                        const char *key, bool required, const char **out);
int jt_jdoc_get_int (jt_jdoc_t *d, json_object *obj, const char *path,
                     const char *key, bool required, int64_t min, int64_t max,
                     int64_t *out);
int jt_jdoc_get_number (jt_jdoc_t *d, json_object *obj, const char *path,
                        const char *key, bool required, double min, double max,
                        double *out);
int jt_jdoc_get_bool (jt_jdoc_t *d, json_object *obj, const char *path,
                      const char *key, bool required, bool *out);
/* type is json_type_object or json_type_array. */
int jt_jdoc_get_container (jt_jdoc_t *d, json_object *obj, const char *path,
                           const char *key, bool required, json_type type,
                           json_object **out);
/* RFC 3339 string field. */
int jt_jdoc_get_time (jt_jdoc_t *d, json_object *obj, const char *path,
                      const char *key, bool required, int64_t *out);
/* Duration: a jt_duration_parse string or integer seconds (>= 0). */
int jt_jdoc_get_duration (jt_jdoc_t *d, json_object *obj, const char *path,
                          const char *key, bool required, int64_t *out);

/* Check that v (at path) is an integer in [min, max]. Same contract. */
int jt_jdoc_int_value (jt_jdoc_t *d, json_object *v, const char *path,
                       int64_t min, int64_t max, int64_t *out);
/* Check that v (at path) is a non-empty string. */
int jt_jdoc_string_value (jt_jdoc_t *d, json_object *v, const char *path,
                          const char **out);

/* Names (owners, envelopes, flavors, nodes, sponsors): non-empty strings
 * without spaces or control characters (jt_json_is_name). The value and
 * the field getter have the contracts above. */
int jt_jdoc_name_value (jt_jdoc_t *d, json_object *v, const char *path,
                        const char **out);
int jt_jdoc_get_name (jt_jdoc_t *d, json_object *obj, const char *path,
                      const char *key, bool required, const char **out);

/* A copy of a string field, a name when name is true: the strdup'd value,
 * or NULL (absent, invalid or out of memory; errors reported). */
char *jt_jdoc_dup_string (jt_jdoc_t *d, json_object *obj, const char *path,
                          const char *key, bool required, bool name);

/* Canonical compact serialisation helpers: a json_object tree is built in
 * the required key order and printed with these flags. */
#define JT_JSON_CANON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* strdup of json_object_to_json_string_ext(o, JT_JSON_CANON_FLAGS); NULL on
 * ENOMEM. Does not consume o. */
char *jt_json_dump (json_object *o);

/* Building canonical JSON (jsoncanon.c): add v (taken, even on failure)
 * under key; a NULL v (its constructor out of memory) fails too. 0, or -1
 * on ENOMEM (v released). */
int jt_json_add (json_object *o, const char *key, json_object *v);
int jt_json_add_str (json_object *o, const char *key, const char *s);
int jt_json_add_int (json_object *o, const char *key, int64_t i);

/* Reading canonical JSON back strictly (jsoncanon.c; the ledger's events):
 * a string (strdup'd into *out, its old value freed) or an integer (never
 * INT64_MIN or INT64_MAX, which json-c uses for saturation) under key.
 * Missing: -1 with "KEY: missing" when req, else 0 with *out untouched. -1
 * with err "KEY: ..." otherwise. */
int jt_json_get_str (json_object *o, const char *key, bool req, char **out,
                     jt_error_t *err);
/* jt_json_get_str with the copy made by copy (s, arg) (NULL: out of
 * memory) instead of strdup, and *out's old value left alone: the
 * ledger's events copy into their own block (jt_event_strdup). */
int jt_json_get_str_copy (json_object *o, const char *key, bool req, char **out,
                          char *(*copy) (const char *s, void *arg), void *arg,
                          jt_error_t *err);
/* jt_json_get_str's checks and messages, the value borrowed: *out points
 * into o's string (valid while o lives) and *len is its length; nothing is
 * allocated. Missing and not req: 0 with *out untouched. */
int jt_json_get_strref (json_object *o, const char *key, bool req, const char **out,
                        size_t *len, jt_error_t *err);
int jt_json_get_int (json_object *o, const char *key, bool req, int64_t *out,
                     jt_error_t *err);
/* 16 lowercase hex digits under key into *out (a 64-bit seed, which a JSON
 * integer cannot carry in json-c). 1 when present, 0 when missing and not
 * req, -1 with err otherwise. */
int jt_json_get_hex64 (json_object *o, const char *key, bool req, uint64_t *out,
                       jt_error_t *err);

/* jt_read_file (readfile.h), its failure as a diagnostic naming the file. */
char *jt_json_read_file (const char *path, size_t *len, jt_diags_t *diags);

/* True when s has no whitespace or control characters. */
bool jt_json_is_name (const char *s);

#endif /* JT_JSONUTIL_H */
