/*
 * jsoncanon.c - building canonical JSON and reading it back strictly (see
 * jsonutil.h): the "add or free" writers every canonical form uses (the
 * ledger's events and their bodies, the budgets' canonical dump, the
 * plan's JSON) and the strict getters of the event parsers (a string, an
 * unsaturated integer, a 64-bit hex number), errors naming the key.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"

int jt_json_add (json_object *o, const char *key, json_object *v)
{
    if (!v)
        return -1;
    if (json_object_object_add (o, key, v) < 0) {
        json_object_put (v);
        return -1;
    }
    return 0;
}

int jt_json_add_str (json_object *o, const char *key, const char *s)
{
    return jt_json_add (o, key, json_object_new_string (s));
}

int jt_json_add_int (json_object *o, const char *key, int64_t i)
{
    return jt_json_add (o, key, json_object_new_int64 (i));
}

int jt_json_get_strref (json_object *o, const char *key, bool req, const char **out,
                        size_t *len, jt_error_t *err)
{
    json_object *v;

    if (!json_object_object_get_ex (o, key, &v))
        return req ? jt_errprintf (err, "%s: missing", key) : 0;
    if (!json_object_is_type (v, json_type_string))
        return jt_errprintf (err, "%s: expected a string", key);
    *out = json_object_get_string (v);
    *len = (size_t) json_object_get_string_len (v);
    return 0;
}

int jt_json_get_str_copy (json_object *o, const char *key, bool req, char **out,
                          char *(*copy) (const char *s, void *arg), void *arg,
                          jt_error_t *err)
{
    const char *s = NULL;
    size_t len;
    char *cp;

    if (jt_json_get_strref (o, key, req, &s, &len, err) < 0)
        return -1;
    if (!s) /* missing, not required */
        return 0;
    if (!(cp = copy (s, arg)))
        return jt_errprintf (err, "out of memory");
    *out = cp;
    return 0;
}

static char *dup_str (const char *s, void *arg)
{
    (void) arg;
    return strdup (s);
}

int jt_json_get_str (json_object *o, const char *key, bool req, char **out,
                     jt_error_t *err)
{
    char *old = *out;
    int rc = jt_json_get_str_copy (o, key, req, out, dup_str, NULL, err);
    if (rc == 0 && *out != old)
        free (old);
    return rc;
}

int jt_json_get_int (json_object *o, const char *key, bool req, int64_t *out,
                     jt_error_t *err)
{
    json_object *v;

    if (!json_object_object_get_ex (o, key, &v))
        return req ? jt_errprintf (err, "%s: missing", key) : 0;
    if (!json_object_is_type (v, json_type_int))
        return jt_errprintf (err, "%s: expected an integer", key);
    errno = 0;
    *out = json_object_get_int64 (v);
    if (errno == EINVAL || *out == INT64_MAX || *out == INT64_MIN)
        return jt_errprintf (err, "%s: integer out of range", key);
    return 0;
}

int jt_json_get_hex64 (json_object *o, const char *key, bool req, uint64_t *out,
                       jt_error_t *err)
{
    char *s = NULL;
    bool bad;

    if (jt_json_get_str (o, key, req, &s, err) < 0)
        return -1;
    if (!s)
        return 0;
    bad = strlen (s) != 16 || strspn (s, "0123456789abcdef") != 16;
    if (!bad)
        *out = strtoull (s, NULL, 16);
    free (s);
    return bad ? jt_errprintf (err, "%s: expected 16 hex digits", key) : 1;
}
