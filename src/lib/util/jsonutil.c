/*
 * jsonutil.c - JSON reading helpers with positioned diagnostics (see
 * jsonutil.h): the syntax-error position, the path locator over the raw
 * text, typed getters with limits, unknown-key suggestions, SHA-256.
 *
 * json-c has no source positions, so the locator re-scans the raw text. It
 * only understands strings, brackets, commas and colons: json-c stays the
 * parser, and the locator runs only on text json-c already accepted.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "jobtree/timeutil.h"
#include "jsonutil.h"
#include "jobtree/readfile.h"

void jt_jdoc_init (jt_jdoc_t *d, const char *file, const char *text, size_t len,
                   jt_diags_t *diags)
{
    d->file = file;
    d->text = text;
    d->len = len;
    d->diags = diags;
    d->errors = 0;
    d->suppressed = 0;
}

static void add_at (jt_jdoc_t *d, size_t off, const char *msg)
{
    int line, col;

    jt_json_linecol (d->text, d->len, off, &line, &col);
    jt_diags_add (d->diags, d->file, line, col, NULL, "%s", msg);
    d->errors++;
}

/* Does the digit run d[0..n) exceed max (digits, no sign)? */
static bool over (const char *d, size_t n, const char *max)
{
    size_t m = strlen (max);

    return n > m || (n == m && memcmp (d, max, n) > 0);
}

char *jt_json_saturate_ints (const char *text, size_t len)
{
    char *copy = NULL;
    bool in_str = false;

    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        size_t start = i, j, nd;
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = false;
            continue;
        }
        if (c == '"') {
            in_str = true;
            continue;
        }
        if (!(c == '-' || isdigit ((unsigned char) c))
            || (i > 0 && (isalnum ((unsigned char) text[i - 1])
                          || strchr (".+-", text[i - 1]))))
            continue;
        j = c == '-' ? i + 1 : i;
        for (nd = 0; j + nd < len && isdigit ((unsigned char) text[j + nd]); nd++)
            ;
        i = j + nd - (nd > 0);
        if (nd == 0 || text[j] == '0'
            || (j + nd < len && strchr (".eE", text[j + nd]))
            || !over (text + j, nd, c == '-' ? "9223372036854775808"
                                             : "18446744073709551615"))
            continue;
        if (!copy) {
            if (!(copy = malloc (len + 1)))
                return NULL;
            memcpy (copy, text, len);
            copy[len] = '\0';
        }
        const char *sat = c == '-' ? "-9223372036854775808" : "18446744073709551615";
        size_t n = j + nd - start;
        memset (copy + start, ' ', n);
        memcpy (copy + start, sat, strlen (sat));
    }
    return copy;
}

json_object *jt_jdoc_parse (jt_jdoc_t *d)
{
    char *sat;
    json_tokener *tok;
    json_object *o;
    enum json_tokener_error e;
    size_t end;
    char msg[128];

    if (d->len > (size_t) INT32_MAX) {
        add_at (d, 0, "file too large");
        return NULL;
    }
    if (!(tok = json_tokener_new ())) {
        add_at (d, 0, "out of memory");
        return NULL;
    }
    json_tokener_set_flags (tok, JSON_TOKENER_STRICT);
    sat = jt_json_saturate_ints (d->text, d->len);
    o = json_tokener_parse_ex (tok, sat ? sat : d->text, (int) d->len);
    free (sat);
    e = json_tokener_get_error (tok);
    end = json_tokener_get_parse_end (tok);
    if (e == json_tokener_continue && end == d->len) {
        /* A top-level scalar ("null", "12") only ends at a terminator. */
        o = json_tokener_parse_ex (tok, "", 1);
        e = json_tokener_get_error (tok);
        if (e != json_tokener_success)
            e = json_tokener_continue;
        end = d->len;
    }
    json_tokener_free (tok);
    if (e == json_tokener_continue) {
        json_object_put (o);
        add_at (d, d->len, "unexpected end of input");
        return NULL;
    }
    if (e != json_tokener_success) {
        json_object_put (o);
        snprintf (msg, sizeof (msg), "syntax error: %s", json_tokener_error_desc (e));
        add_at (d, end, msg);
        return NULL;
    }
    /* Strict mode rejects trailing garbage, but a second document after
     * whitespace ends parsing early without an error. */
    for (size_t i = end; i < d->len; i++) {
        if (!isspace ((unsigned char) d->text[i])) {
            json_object_put (o);
            add_at (d, i, "syntax error: unexpected text after the JSON document");
            return NULL;
        }
    }
    if (!o) {
        add_at (d, 0, "the document is null; expected an object");
        return NULL;
    }
    jt_jdoc_check_dup_keys (d);
    return o;
}

void jt_jdoc_error (jt_jdoc_t *d, const char *path, const char *fmt, ...)
{
    char msg[512];
    int line = 0, col = 0;
    va_list ap;

    if (d->errors >= JT_JSON_MAX_ERRORS) {
        d->errors++;
        d->suppressed++;
        return;
    }
    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    if (d->text)
        jt_json_locate (d->text, d->len, path, &line, &col);
    jt_diags_add (d->diags, d->file, line, col, path, "%s", msg);
    d->errors++;
}

void jt_jdoc_sort (jt_jdoc_t *d, size_t from)
{
    jt_diags_t *g = d->diags;

    if (!g)
        return;
    /* insertion sort: few diagnostics, and it is stable */
    for (size_t i = from + 1; i < g->n; i++) {
        jt_diag_t x = g->v[i];
        size_t j = i;
        while (j > from && (g->v[j - 1].line > x.line
                            || (g->v[j - 1].line == x.line && g->v[j - 1].col > x.col))) {
            g->v[j] = g->v[j - 1];
            j--;
        }
        g->v[j] = x;
    }
    if (d->suppressed)
        jt_diags_add (g, d->file, 0, 0, NULL, "%d more errors not shown",
                      d->suppressed);
    d->suppressed = 0;
}

/* ---- paths, types, suggestions ---- */

char *jt_json_path_key (char *buf, size_t len, const char *path, const char *key)
{
    if (path && *path)
        snprintf (buf, len, "%s.%s", path, key);
    else
        snprintf (buf, len, "%s", key);
    return buf;
}

char *jt_json_path_idx (char *buf, size_t len, const char *path, size_t idx)
{
    snprintf (buf, len, "%s[%zu]", path ? path : "", idx);
    return buf;
}

const char *jt_json_type_phrase (const json_object *o)
{
    switch (json_object_get_type (o)) {
    case json_type_null: return "null";
    case json_type_boolean: return "a boolean";
    case json_type_double: return "a number";
    case json_type_int: return "an integer";
    case json_type_object: return "an object";
    case json_type_array: return "an array";
    case json_type_string: return "a string";
    }
    return "something else";
}

/* Case-insensitive edit distance (typos often differ only in case). */
static size_t edit_distance (const char *a, const char *b)
{
    size_t la = strlen (a), lb = strlen (b);
    size_t row[64];

    if (la >= 63 || lb >= 63)
        return (size_t) -1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = tolower ((unsigned char) a[i - 1])
                          != tolower ((unsigned char) b[j - 1]);
            size_t v = diag + cost;
            if (row[j] + 1 < v)
                v = row[j] + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            row[j] = v;
            diag = up;
        }
    }
    return row[lb];
}

const char *jt_json_suggest (const char *word, const char *const *candidates)
{
    const char *best = NULL;
    size_t bestd = (size_t) -1;

    for (size_t i = 0; candidates && candidates[i]; i++) {
        size_t d = edit_distance (word, candidates[i]);
        size_t limit = strlen (candidates[i]) < 6 ? 1 : 2;
        if (d <= limit && d < bestd) {
            best = candidates[i];
            bestd = d;
        }
    }
    return best;
}

int jt_jdoc_check_keys (jt_jdoc_t *d, json_object *obj, const char *path,
                        const char *const *allowed)
{
    int n = 0;
    char p[JT_JSON_PATH_MAX];

    if (!json_object_is_type (obj, json_type_object))
        return 0;
    json_object_object_foreach (obj, key, val) {
        bool known = false;
        (void) val;
        for (size_t i = 0; allowed[i]; i++)
            if (!strcmp (key, allowed[i]))
                known = true;
        if (known)
            continue;
        const char *s = jt_json_suggest (key, allowed);
        jt_json_path_key (p, sizeof (p), path, key);
        if (s)
            jt_jdoc_error (d, p, "unknown field '%s'; did you mean '%s'?", key, s);
        else
            jt_jdoc_error (d, p, "unknown field '%s'", key);
        n++;
    }
    return n;
}

int jt_jdoc_object_value (jt_jdoc_t *d, json_object *v, const char *path,
                          const char *const *allowed)
{
    if (!json_object_is_type (v, json_type_object)) {
        jt_jdoc_error (d, path, "expected an object, got %s", jt_json_type_phrase (v));
        return -1;
    }
    jt_jdoc_check_keys (d, v, path, allowed);
    return 1;
}

/* ---- typed getters ---- */

static int lookup (jt_jdoc_t *d, json_object *obj, const char *path,
                   const char *key, bool required, json_object **v)
{
    char p[JT_JSON_PATH_MAX];

    if (json_object_object_get_ex (obj, key, v))
        return 1;
    if (required)
        jt_jdoc_error (d, jt_json_path_key (p, sizeof (p), path, key),
                       "missing required field '%s'", key);
    return 0;
}

int jt_jdoc_string_value (jt_jdoc_t *d, json_object *v, const char *path,
                          const char **out)
{
    if (!json_object_is_type (v, json_type_string)) {
        jt_jdoc_error (d, path, "expected a string, got %s", jt_json_type_phrase (v));
        return -1;
    }
    const char *s = json_object_get_string (v);
    if (!*s) {
        jt_jdoc_error (d, path, "must not be empty");
        return -1;
    }
    if (strlen (s) != (size_t) json_object_get_string_len (v)) {
        jt_jdoc_error (d, path, "must not contain a NUL character");
        return -1;
    }
    *out = s;
    return 1;
}

int jt_jdoc_get_string (jt_jdoc_t *d, json_object *obj, const char *path,
                        const char *key, bool required, const char **out)
{
    json_object *v;
    char p[JT_JSON_PATH_MAX];
    int rc = lookup (d, obj, path, key, required, &v);

    if (rc <= 0)
        return rc;
    return jt_jdoc_string_value (d, v, jt_json_path_key (p, sizeof (p), path, key),
                                 out);
}

/* 1 if the string s at path is a name, else -1 (error added). */
static int name_check (jt_jdoc_t *d, const char *path, const char *s)
{
    if (jt_json_is_name (s))
        return 1;
    jt_jdoc_error (d, path, "'%s' must not contain spaces or control characters", s);
    return -1;
}

int jt_jdoc_name_value (jt_jdoc_t *d, json_object *v, const char *path,
                        const char **out)
{
    const char *s;

    if (jt_jdoc_string_value (d, v, path, &s) < 0 || name_check (d, path, s) < 0)
        return -1;
    *out = s;
    return 1;
}

int jt_jdoc_get_name (jt_jdoc_t *d, json_object *obj, const char *path,
                      const char *key, bool required, const char **out)
{
    const char *s;
    char p[JT_JSON_PATH_MAX];
    int rc = jt_jdoc_get_string (d, obj, path, key, required, &s);

    if (rc > 0 && (rc = name_check (d, jt_json_path_key (p, sizeof (p), path, key),
                                    s)) > 0)
        *out = s;
    return rc;
}

char *jt_jdoc_dup_string (jt_jdoc_t *d, json_object *obj, const char *path,
                          const char *key, bool required, bool name)
{
    const char *s;
    int rc = name ? jt_jdoc_get_name (d, obj, path, key, required, &s)
                  : jt_jdoc_get_string (d, obj, path, key, required, &s);

    if (rc <= 0)
        return NULL;
    char *r = strdup (s);
    if (!r)
        jt_jdoc_error (d, path, "out of memory");
    return r;
}

int jt_jdoc_int_value (jt_jdoc_t *d, json_object *v, const char *path,
                       int64_t min, int64_t max, int64_t *out)
{
    if (!json_object_is_type (v, json_type_int)) {
        jt_jdoc_error (d, path, "expected an integer, got %s",
                       jt_json_type_phrase (v));
        return -1;
    }
    errno = 0;
    int64_t x = json_object_get_int64 (v);
    /* json-c saturates at INT64_MAX/INT64_MIN without telling anyone. */
    if (x == INT64_MAX || x == INT64_MIN) {
        jt_jdoc_error (d, path, "number too large (the limit is %lld)",
                       (long long) (x > 0 ? max : min));
        return -1;
    }
    if (x > max) {
        jt_jdoc_error (d, path, "%lld is too large (the limit is %lld)",
                       (long long) x, (long long) max);
        return -1;
    }
    if (x < min) {
        jt_jdoc_error (d, path, "must be at least %lld, got %lld",
                       (long long) min, (long long) x);
        return -1;
    }
    *out = x;
    return 1;
}

int jt_jdoc_get_int (jt_jdoc_t *d, json_object *obj, const char *path,
                     const char *key, bool required, int64_t min, int64_t max,
                     int64_t *out)
{
    json_object *v;
    char p[JT_JSON_PATH_MAX];
    int rc = lookup (d, obj, path, key, required, &v);

    if (rc <= 0)
        return rc;
    return jt_jdoc_int_value (d, v, jt_json_path_key (p, sizeof (p), path, key),
                              min, max, out);
}

int jt_jdoc_get_number (jt_jdoc_t *d, json_object *obj, const char *path,
                        const char *key, bool required, double min, double max,
                        double *out)
{
    json_object *v;
    char p[JT_JSON_PATH_MAX];
    int rc = lookup (d, obj, path, key, required, &v);

    if (rc <= 0)
        return rc;
    jt_json_path_key (p, sizeof (p), path, key);
    if (!json_object_is_type (v, json_type_int)
        && !json_object_is_type (v, json_type_double)) {
        jt_jdoc_error (d, p, "expected a number, got %s", jt_json_type_phrase (v));
        return -1;
    }
    double x = json_object_get_double (v);
    if (json_object_is_type (v, json_type_int)) {
        int64_t i = json_object_get_int64 (v);
        if (i == INT64_MAX || i == INT64_MIN)
            x = i > 0 ? INFINITY : -INFINITY;
    }
    if (isnan (x) || (isinf (x) && x < 0 && min > -INFINITY)) {
        jt_jdoc_error (d, p, "must be a finite number");
        return -1;
    }
    if (x > max) {
        if (isinf (x))
            jt_jdoc_error (d, p, "number too large (the limit is %g)", max);
        else
            jt_jdoc_error (d, p, "%g is too large (the limit is %g)", x, max);
        return -1;
    }
    if (x < min) {
        jt_jdoc_error (d, p, "must be at least %g, got %g", min, x);
        return -1;
    }
    *out = x;
    return 1;
}

int jt_jdoc_get_bool (jt_jdoc_t *d, json_object *obj, const char *path,
                      const char *key, bool required, bool *out)
{
    json_object *v;
    char p[JT_JSON_PATH_MAX];
    int rc = lookup (d, obj, path, key, required, &v);

    if (rc <= 0)
        return rc;
    if (!json_object_is_type (v, json_type_boolean)) {
        jt_jdoc_error (d, jt_json_path_key (p, sizeof (p), path, key),
                       "expected a boolean (true or false), got %s",
                       jt_json_type_phrase (v));
        return -1;
    }
    *out = json_object_get_boolean (v);
    return 1;
}

int jt_jdoc_get_container (jt_jdoc_t *d, json_object *obj, const char *path,
                           const char *key, bool required, json_type type,
                           json_object **out)
{
    json_object *v;
    char p[JT_JSON_PATH_MAX];
    int rc = lookup (d, obj, path, key, required, &v);

    if (rc <= 0)
        return rc;
    if (!json_object_is_type (v, type)) {
        jt_jdoc_error (d, jt_json_path_key (p, sizeof (p), path, key),
                       "expected %s, got %s",
                       type == json_type_array ? "an array" : "an object",
                       jt_json_type_phrase (v));
        return -1;
    }
    *out = v;
    return 1;
}

int jt_jdoc_get_time (jt_jdoc_t *d, json_object *obj, const char *path,
                      const char *key, bool required, int64_t *out)
{
    const char *s;
    char p[JT_JSON_PATH_MAX];
    jt_error_t err;
    int rc = jt_jdoc_get_string (d, obj, path, key, required, &s);

    if (rc <= 0)
        return rc;
    if (jt_time_parse (s, out, &err) < 0) {
        jt_jdoc_error (d, jt_json_path_key (p, sizeof (p), path, key), "%s", err.text);
        return -1;
    }
    return 1;
}

int jt_jdoc_get_duration (jt_jdoc_t *d, json_object *obj, const char *path,
                          const char *key, bool required, int64_t *out)
{
    json_object *v;
    char p[JT_JSON_PATH_MAX];
    jt_error_t err;
    int rc = lookup (d, obj, path, key, required, &v);

    if (rc <= 0)
        return rc;
    jt_json_path_key (p, sizeof (p), path, key);
    if (json_object_is_type (v, json_type_int))
        return jt_jdoc_int_value (d, v, p, 0, INT64_C (1000000000000), out);
    if (!json_object_is_type (v, json_type_string)) {
        jt_jdoc_error (d, p, "expected a duration (a string like \"4h\" or integer "
                       "seconds), got %s", jt_json_type_phrase (v));
        return -1;
    }
    if (jt_duration_parse (json_object_get_string (v), out, &err) < 0) {
        jt_jdoc_error (d, p, "%s", err.text);
        return -1;
    }
    return 1;
}

/* ---- output ---- */

char *jt_json_dump (json_object *o)
{
    const char *s = json_object_to_json_string_ext (o, JT_JSON_CANON_FLAGS);
    return s ? strdup (s) : NULL;
}

bool jt_json_is_name (const char *s)
{
    for (; *s; s++)
        if (isspace ((unsigned char) *s) || iscntrl ((unsigned char) *s))
            return false;
    return true;
}

char *jt_json_read_file (const char *path, size_t *len, jt_diags_t *diags)
{
    jt_error_t err;
    char *buf = jt_read_file (path, len, &err);

    if (!buf)
        jt_diags_add (diags, path, 0, 0, NULL, "%s", err.text);
    return buf;
}
