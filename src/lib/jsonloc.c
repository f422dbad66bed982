/*
 * jsonloc.c - positions in raw JSON text (see jsonutil.h): line:col of a
 * byte offset, the JSON-path locator, element positions of an array, and
 * the duplicate-key check that json-c does not do.
 *
 * json-c has no source positions, so these re-scan the raw text. The
 * scanner only understands strings, brackets, commas and colons: json-c
 * stays the parser, and these run only on text json-c already accepted
 * (so nesting is bounded by json-c's depth limit).
 */
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

struct dkey {
    char *key;
    size_t order;
};

static int dkey_cmp (const void *a, const void *b)
{
    const struct dkey *x = a, *y = b;
    int c = strcmp (x->key, y->key);
    return c ? c : (x->order < y->order ? -1 : x->order > y->order);
}

static int dkey_order_cmp (const void *a, const void *b)
{
    const struct dkey *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Report each key that occurs twice in one object, once, in text order. */
static void report_dups (jt_jdoc_t *d, struct dkey *keys, size_t nk, char *path,
                         size_t plen)
{
    size_t nd = 0;

    qsort (keys, nk, sizeof (*keys), dkey_cmp);
    for (size_t i = 1; i < nk; i++) {
        if (strcmp (keys[i].key, keys[i - 1].key))
            continue;
        if (i >= 2 && !strcmp (keys[i].key, keys[i - 2].key))
            continue;   /* a third occurrence: reported already */
        keys[nd].order = keys[i].order;     /* reuse the front as a list */
        char *k = keys[nd].key;
        keys[nd].key = keys[i].key;
        keys[i].key = k;
        nd++;
    }
    qsort (keys, nd, sizeof (*keys), dkey_order_cmp);
    for (size_t i = 0; i < nd; i++) {
        snprintf (path + plen, JT_JSON_PATH_MAX - plen, "%s%s", plen ? "." : "",
                  keys[i].key);
        jt_jdoc_error (d, path, "duplicate field '%s': JSON keeps only the last "
                       "value; remove the others", keys[i].key);
    }
    path[plen] = '\0';
}

static int walk_dups (jt_jdoc_t *d, struct scan *s, char *path, size_t plen)
{
    skip_ws (s);
    if (s->i >= s->n)
        return -1;
    char c = s->t[s->i];
    if (c == '{') {
        struct dkey *keys = NULL;
        size_t nk = 0, cap = 0;
        int rc = 0;
        char key[JT_JSON_PATH_MAX];
        s->i++;
        for (;;) {
            skip_ws (s);
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
            if (kl >= 0 && nk == cap) {
                cap = cap ? 2 * cap : 8;
                struct dkey *nkeys = realloc (keys, cap * sizeof (*keys));
                if (!nkeys) {
                    rc = -1;
                    break;
                }
                keys = nkeys;
            }
            if (kl >= 0 && (keys[nk].key = strdup (key)))
                keys[nk].order = nk, nk++;
            size_t nl = plen;
            if (kl >= 0 && plen + (size_t) kl + 2 < JT_JSON_PATH_MAX)
                nl += (size_t) snprintf (path + plen, JT_JSON_PATH_MAX - plen, "%s%s",
                                         plen ? "." : "", key);
            rc = walk_dups (d, s, path, nl);
            path[plen] = '\0';
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
        if (nk > 1)
            report_dups (d, keys, nk, path, plen);
        for (size_t i = 0; i < nk; i++)
            free (keys[i].key);
        free (keys);
        return rc;
    }
    if (c == '[') {
        size_t idx = 0;
        int rc = 0;
        s->i++;
        for (;;) {
            skip_ws (s);
            if (s->i >= s->n)
                return -1;
            if (s->t[s->i] == ']') {
                s->i++;
                break;
            }
            int w = snprintf (path + plen, JT_JSON_PATH_MAX - plen, "[%zu]", idx++);
            size_t nl = w > 0 && plen + (size_t) w < JT_JSON_PATH_MAX ? plen + (size_t) w
                                                                      : plen;
            rc = walk_dups (d, s, path, nl);
            path[plen] = '\0';
            skip_ws (s);
            if (rc < 0 || s->i >= s->n)
                return -1;
            if (s->t[s->i] == ',')
                s->i++;
            else if (s->t[s->i] == ']') {
                s->i++;
                break;
            } else
                return -1;
        }
        return rc;
    }
    return skip_value (s);
}

void jt_jdoc_check_dup_keys (jt_jdoc_t *d)
{
    struct scan s = { d->text, d->len, 0 };
    char path[JT_JSON_PATH_MAX] = "";

    walk_dups (d, &s, path, 0);
}
