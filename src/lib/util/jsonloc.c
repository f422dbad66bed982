/*
 * jsonloc.c - positions in raw JSON text (see jsonutil.h): line:col of a
 * byte offset, the JSON-path locator, element positions of an array, and
 * the duplicate-key check that json-c does not do.
 *
 * json-c has no source positions, so these re-scan the raw text. The
 * scanner only understands strings, brackets, commas and colons: json-c
 * stays the parser, and these run only on text json-c already accepted
 * (so nesting is bounded by json-c's depth limit).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"

void jt_json_linecol (const char *text, size_t len, size_t off, int *line,
                      int *col)
{
    int l = 1, c = 1;

    if (off > len)
        off = len;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else
            c++;
    }
    *line = l;
    *col = c;
}

struct scan {
    const char *t;
    size_t n;
    size_t i;
};

static void skip_ws (struct scan *s)
{
    while (s->i < s->n && isspace ((unsigned char) s->t[s->i]))
        s->i++;
}

/* At '"': decode the string into buf (when not NULL) and move past it.
 * Returns the decoded length, or -1 (unterminated, or too long for buf). */
static long read_string (struct scan *s, char *buf, size_t cap)
{
    size_t k = 0;
    bool fits = true;

    s->i++;
    while (s->i < s->n && s->t[s->i] != '"') {
        char c = s->t[s->i++];
        if (c == '\\' && s->i < s->n) {
            char e = s->t[s->i++];
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned v = 0;
                for (int j = 0; j < 4 && s->i < s->n; j++) {
                    char h = s->t[s->i++];
                    v = v * 16 + (unsigned) (isdigit ((unsigned char) h)
                                             ? h - '0'
                                             : (tolower ((unsigned char) h) - 'a' + 10));
                }
                /* Keys outside ASCII never match a path exactly; mark them. */
                c = v < 0x80 ? (char) v : '\x01';
                break;
            }
            default: c = e; break;
            }
        }
        if (buf) {
            if (k + 1 < cap)
                buf[k] = c;
            else
                fits = false;
        }
        k++;
    }
    if (s->i >= s->n)
        return -1;
    s->i++;
    if (buf) {
        buf[k < cap ? k : cap - 1] = '\0';
        if (!fits)
            return -1;
    }
    return (long) k;
}

/* Skip one value of any kind. Returns 0 or -1. */
static int skip_value (struct scan *s)
{
    int depth = 0;

    skip_ws (s);
    while (s->i < s->n) {
        char c = s->t[s->i];
        if (c == '"') {
            if (read_string (s, NULL, 0) < 0)
                return -1;
            if (depth == 0)
                return 0;
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']') {
            if (depth == 0)
                return 0;   /* a scalar ended at its container's end */
            s->i++;
            if (--depth == 0)
                return 0;
            continue;
        } else if (depth == 0 && (c == ',' || isspace ((unsigned char) c)))
            return 0;
        s->i++;
    }
    return depth == 0 ? 0 : -1;
}

/* In an object at s->i ('{'), find the member whose key is the longest
 * prefix of p ending at '.', '[' or the end. On success s->i is at its
 * value, *keypos at the key's quote, and the matched length is returned. */
static long find_member (struct scan *s, const char *p, size_t *keypos)
{
    char key[JT_JSON_PATH_MAX];
    long best = -1;
    size_t bestval = 0, bestkey = 0;

    s->i++;
    for (;;) {
        skip_ws (s);
        if (s->i >= s->n || s->t[s->i] == '}')
            break;
        if (s->t[s->i] != '"')
            return -1;
        size_t kpos = s->i;
        long klen = read_string (s, key, sizeof (key));
        skip_ws (s);
        if (s->i >= s->n || s->t[s->i] != ':')
            return -1;
        s->i++;
        skip_ws (s);
        size_t vpos = s->i;
        if (klen >= 0 && klen >= best && strncmp (p, key, (size_t) klen) == 0
            && strlen (key) == (size_t) klen
            && (p[klen] == '\0' || p[klen] == '.' || p[klen] == '[')) {
            best = klen;
            bestval = vpos;
            bestkey = kpos;
        }
        if (skip_value (s) < 0)
            return -1;
        skip_ws (s);
        if (s->i < s->n && s->t[s->i] == ',')
            s->i++;
        else
            break;
    }
    if (best < 0)
        return -1;
    s->i = bestval;
    *keypos = bestkey;
    return best;
}

/* Walk path from the document's start. On success (0) s->i is at the
 * value; *pos is where the field starts (its key, or the element). On
 * failure (-1) *pos is the deepest field found. */
static int descend (struct scan *s, const char *path, size_t *pos)
{
    const char *p = path ? path : "";
    int rc = 0;

    skip_ws (s);
    *pos = s->i;
    while (*p) {
        skip_ws (s);
        if (*p == '[') {
            char *end;
            errno = 0;
            unsigned long idx = strtoul (p + 1, &end, 10);
            if (errno || *end != ']' || s->i >= s->n || s->t[s->i] != '[')
                return -1;
            s->i++;
            for (unsigned long k = 0; k < idx && rc == 0; k++) {
                if (skip_value (s) < 0)
                    rc = -1;
                skip_ws (s);
                if (s->i >= s->n || s->t[s->i] != ',')
                    rc = -1;
                else
                    s->i++;
            }
            if (rc < 0)
                return -1;
            skip_ws (s);
            if (s->i >= s->n || s->t[s->i] == ']')
                return -1;
            *pos = s->i;
            p = end + 1;
        } else {
            if (*p == '.')
                p++;
            size_t keypos;
            if (s->i >= s->n || s->t[s->i] != '{')
                return -1;
            long m = find_member (s, p, &keypos);
            if (m < 0)
                return -1;
            *pos = keypos;
            p += m;
        }
    }
    return 0;
}

int jt_json_locate (const char *text, size_t len, const char *path, int *line,
                    int *col)
{
    struct scan s = { text, len, 0 };
    size_t pos;
    int rc = descend (&s, path, &pos);

    jt_json_linecol (text, len, pos, line, col);
    return rc;
}

int jt_json_locate_elements (const char *text, size_t len, const char *path,
                             int *lines, int *cols, size_t n)
{
    struct scan s = { text, len, 0 };
    size_t pos, k = 0, off = 0;
    int line = 1, col = 1;

    if (descend (&s, path, &pos) < 0)
        return -1;
    skip_ws (&s);
    if (s.i >= s.n || s.t[s.i] != '[')
        return -1;
    s.i++;
    while (k < n) {
        skip_ws (&s);
        if (s.i >= s.n || s.t[s.i] == ']')
            break;
        /* offsets only grow, so line:col advance incrementally */
        for (; off < s.i; off++) {
            if (text[off] == '\n') {
                line++;
                col = 1;
            } else
                col++;
        }
        lines[k] = line;
        cols[k] = col;
        k++;
        if (skip_value (&s) < 0)
            break;
        skip_ws (&s);
        if (s.i >= s.n || s.t[s.i] != ',')
            break;
        s.i++;
    }
    return (int) k;
}

/* ---- duplicate keys ---- */

/* The path to the current value, as a chain of frames on the C stack; it
 * is rendered only when a duplicate is reported, so that the walk over a
 * 64k-node snapshot does no formatting. */
struct frame {
    const struct frame *up;
    const char *key;            /* NULL: an array element */
    size_t idx;
};

static size_t render (const struct frame *f, char *buf, size_t len)
{
    size_t n = 0;

    if (!f)
        return 0;
    n = render (f->up, buf, len);
    if (n >= len)
        return n;
    if (f->key)
        n += (size_t) snprintf (buf + n, len - n, "%s%s", n ? "." : "", f->key);
    else
        n += (size_t) snprintf (buf + n, len - n, "[%zu]", f->idx);
    return n;
}

/* The keys of one object: offsets into a buffer of NUL-terminated keys. */
struct keys {
    char small[512];
    char *buf;
    size_t used, cap;
    size_t *off;
    size_t n, ncap;
    size_t small_off[16];
};

static int keys_add (struct keys *k, const char *key, size_t len)
{
    if (k->used + len + 1 > k->cap) {
        size_t cap = (k->cap + len + 1) * 2;
        char *nb = k->buf == k->small ? malloc (cap) : realloc (k->buf, cap);
        if (!nb)
            return -1;
        if (k->buf == k->small)
            memcpy (nb, k->small, k->used);
        k->buf = nb;
        k->cap = cap;
    }
    if (k->n == k->ncap) {
        size_t cap = k->ncap * 2;
        size_t *no = k->off == k->small_off ? malloc (cap * sizeof (size_t))
                                            : realloc (k->off, cap * sizeof (size_t));
        if (!no)
            return -1;
        if (k->off == k->small_off)
            memcpy (no, k->small_off, k->n * sizeof (size_t));
        k->off = no;
        k->ncap = cap;
    }
    memcpy (k->buf + k->used, key, len + 1);
    k->off[k->n++] = k->used;
    k->used += len + 1;
    return 0;
}

/* Keys by text, equal keys in text order (they sit in the buffer in text
 * order, so their addresses say which came first). */
static int key_cmp (const void *a, const void *b)
{
    const char *x = *(const char *const *) a, *y = *(const char *const *) b;
    int c = strcmp (x, y);
    return c ? c : (x < y ? -1 : x > y);
}

static int addr_cmp (const void *a, const void *b)
{
    const char *x = *(const char *const *) a, *y = *(const char *const *) b;
    return x < y ? -1 : x > y;
}

/* Report each key that occurs more than once in one object, once, in the
 * order of their first occurrence. */
static void report_dups (jt_jdoc_t *d, struct keys *k, const struct frame *f)
{
    const char **v = malloc (2 * k->n * sizeof (char *)), **dups;
    size_t nd = 0;
    char path[JT_JSON_PATH_MAX];

    if (!v)
        return;
    for (size_t i = 0; i < k->n; i++)
        v[i] = k->buf + k->off[i];
    qsort (v, k->n, sizeof (char *), key_cmp);
    dups = v + k->n;    /* the first occurrence of each duplicated key */
    for (size_t i = 1; i < k->n; i++)
        if (!strcmp (v[i], v[i - 1]) && (i < 2 || strcmp (v[i], v[i - 2])))
            dups[nd++] = v[i - 1];
    if (nd > 1)
        qsort (dups, nd, sizeof (char *), addr_cmp);
    for (size_t i = 0; i < nd; i++) {
        struct frame kf = { f, dups[i], 0 };
        render (&kf, path, sizeof (path));
        jt_jdoc_error (d, path, "duplicate field '%s': JSON keeps only the last "
                       "value; remove the others", dups[i]);
    }
    free (v);
}

/* json-c accepts 'single-quoted' strings even in strict mode; JSON does
 * not, and the locator would misread them, so they are an error. */
static int quote_error (jt_jdoc_t *d, size_t off)
{
    int line, col;

    jt_json_linecol (d->text, d->len, off, &line, &col);
    jt_diags_add (d->diags, d->file, line, col, NULL, "syntax error: strings need "
                  "double quotes, not single quotes");
    d->errors++;
    return -1;
}

static int walk_dups (jt_jdoc_t *d, struct scan *s, const struct frame *f)
{
    skip_ws (s);
    if (s->i >= s->n)
        return -1;
    char c = s->t[s->i];
    if (c == '\'')
        return quote_error (d, s->i);
    if (c == '{') {
        struct keys k;
        char key[JT_JSON_PATH_MAX];
        int rc = 0;
        k.buf = k.small;
        k.cap = sizeof (k.small);
        k.used = 0;
        k.off = k.small_off;
        k.ncap = sizeof (k.small_off) / sizeof (k.small_off[0]);
        k.n = 0;
        s->i++;
        for (;;) {
            skip_ws (s);
            if (s->i < s->n && s->t[s->i] == '\'') {
                rc = quote_error (d, s->i);
                break;
            }
            if (s->i >= s->n || s->t[s->i] != '"') {
                if (s->i < s->n && s->t[s->i] == '}')
                    s->i++;
                break;
            }
            long kl = read_string (s, key, sizeof (key));
            skip_ws (s);
            if (s->i >= s->n || s->t[s->i] != ':') {
                rc = -1;
                break;
            }
            s->i++;
            if (kl >= 0 && keys_add (&k, key, (size_t) kl) < 0)
                kl = -1;
            struct frame kf = { f, kl >= 0 ? key : "?", 0 };
            rc = walk_dups (d, s, &kf);
            skip_ws (s);
            if (rc < 0 || s->i >= s->n)
                break;
            if (s->t[s->i] == ',')
                s->i++;
            else {
                if (s->t[s->i] == '}')
                    s->i++;
                break;
            }
        }
        if (k.n > 1)
            report_dups (d, &k, f);
        if (k.buf != k.small)
            free (k.buf);
        if (k.off != k.small_off)
            free (k.off);
        return rc;
    }
    if (c == '[') {
        struct frame ef = { f, NULL, 0 };
        s->i++;
        for (;;) {
            skip_ws (s);
            if (s->i >= s->n)
                return -1;
            if (s->t[s->i] == ']') {
                s->i++;
                return 0;
            }
            if (walk_dups (d, s, &ef) < 0)
                return -1;
            ef.idx++;
            skip_ws (s);
            if (s->i >= s->n)
                return -1;
            if (s->t[s->i] == ',')
                s->i++;
            else if (s->t[s->i] == ']') {
                s->i++;
                return 0;
            } else
                return -1;
        }
    }
    return skip_value (s);
}

void jt_jdoc_check_dup_keys (jt_jdoc_t *d)
{
    struct scan s = { d->text, d->len, 0 };

    walk_dups (d, &s, NULL);
}
