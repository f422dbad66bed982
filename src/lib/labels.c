/*
 * labels.c - sorted key=value label sets and selectors (see jobtree/labels.h).
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

#include "jobtree/labels.h"

/* Position of key, or of where it would be inserted (*found says which). */
static size_t labels_find (const jt_labels_t *l, const char *key, int *found)
{
    size_t lo = 0, hi = l->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp (l->v[mid].key, key);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = 0;
    return lo;
}

int jt_labels_set (jt_labels_t *l, const char *key, const char *value)
{
    int found;
    size_t i = labels_find (l, key, &found);
    char *v = strdup (value);

    if (!v)
        return -1;
    if (found) {
        free (l->v[i].value);
        l->v[i].value = v;
        return 0;
    }
    char *k = strdup (key);
    jt_label_t *nv = k ? realloc (l->v, (l->n + 1) * sizeof (*nv)) : NULL;
    if (!nv) {
        free (k);
        free (v);
        errno = ENOMEM;
        return -1;
    }
    l->v = nv;
    memmove (&l->v[i + 1], &l->v[i], (l->n - i) * sizeof (*nv));
    l->v[i].key = k;
    l->v[i].value = v;
    l->n++;
    return 0;
}

const char *jt_labels_get (const jt_labels_t *l, const char *key)
{
    int found;
    size_t i;

    if (!l || l->n == 0)
        return NULL;
    i = labels_find (l, key, &found);
    return found ? l->v[i].value : NULL;
}

bool jt_labels_match (const jt_labels_t *sel, const jt_labels_t *l)
{
    if (!sel)
        return true;
    for (size_t i = 0; i < sel->n; i++) {
        const char *v = jt_labels_get (l, sel->v[i].key);
        if (!v || strcmp (v, sel->v[i].value) != 0)
            return false;
    }
    return true;
}

void jt_labels_free (jt_labels_t *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        free (l->v[i].key);
        free (l->v[i].value);
    }
    free (l->v);
    l->v = NULL;
    l->n = 0;
}

int jt_labels_copy (jt_labels_t *dst, const jt_labels_t *src)
{
    dst->v = NULL;
    dst->n = 0;
    for (size_t i = 0; src && i < src->n; i++) {
        if (jt_labels_set (dst, src->v[i].key, src->v[i].value) < 0) {
            jt_labels_free (dst);
            return -1;
        }
    }
    return 0;
}

int jt_labels_parse_features (jt_labels_t *l, const char *features)
{
    char *copy, *tok, *save = NULL;
    int rc = 0;

    if (!features)
        return 0;
    if (!(copy = strdup (features)))
        return -1;
    for (tok = strtok_r (copy, ",", &save); tok; tok = strtok_r (NULL, ",", &save)) {
        char *eq = strchr (tok, '=');
        if (!eq || eq == tok || !eq[1])
            continue;
        *eq = '\0';
        if (jt_labels_set (l, tok, eq + 1) < 0)
            rc = -1;
    }
    free (copy);
    return rc;
}

int jt_labels_format (const jt_labels_t *l, char *buf, size_t len)
{
    size_t used = 0;
    int total = 0;

    if (len > 0)
        buf[0] = '\0';
    for (size_t i = 0; l && i < l->n; i++) {
        int n = snprintf (used < len ? buf + used : NULL,
                          used < len ? len - used : 0, "%s%s=%s",
                          i ? "," : "", l->v[i].key, l->v[i].value);
        if (n < 0)
            return n;
        total += n;
        used += (size_t) n;
    }
    return total;
}

static bool label_char (char c, bool value)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'
           || c == ':' || c == '/' || (value && c == '+');
}

static bool label_text_ok (const char *s, size_t max, bool value)
{
    size_t n = 0;

    if (!s || !*s)
        return false;
    if (!value && !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')
                    || (s[0] >= '0' && s[0] <= '9')))
        return false;
    for (; s[n]; n++)
        if (n >= max || !label_char (s[n], value))
            return false;
    return true;
}

bool jt_label_key_ok (const char *s)
{
    return label_text_ok (s, JT_LABEL_KEY_MAX, false);
}

bool jt_label_value_ok (const char *s)
{
    return label_text_ok (s, JT_LABEL_VALUE_MAX, true);
}
