/*
 * gres.c - the GPU entries of a GRES/TRES string (see jobtree/gres.h).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/gres.h"

/* A count field: digits only, 0..JT_GRES_COUNT_MAX. 0 or -1. */
static int parse_count (const char *s, int64_t *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    long long v = strtoll (s, &end, 10);
    if (errno || *end || v > JT_GRES_COUNT_MAX)
        return -1;
    *out = v;
    return 0;
}

/* Parse one entry "[gres:|gres/]gpu[:type][:count]" (len bytes at s; a
 * "(...)" suffix ignored). Returns 1 for a GPU entry, 0 for another
 * resource, -1 when malformed. */
static int parse_entry (const char *s, size_t len, char *type, size_t tlen,
                        int64_t *count)
{
    char buf[256];
    char *f[4];
    size_t nf = 0;
    char *p, *save = NULL;

    if (len >= sizeof (buf))
        return -1;
    memcpy (buf, s, len);
    buf[len] = '\0';
    if ((p = strchr (buf, '(')))
        *p = '\0';
    /* "gres/gpu:h100=8" is the TRES form of the same thing. */
    for (p = buf; *p; p++)
        if (*p == '/' || *p == '=')
            *p = ':';
    for (p = strtok_r (buf, ":", &save); p; p = strtok_r (NULL, ":", &save)) {
        if (nf == 4)
            return -1;
        f[nf++] = p;
    }
    if (nf && strcmp (f[0], "gres") == 0) {
        memmove (f, f + 1, (nf - 1) * sizeof (*f));
        nf--;
    }
    if (nf == 0 || strcmp (f[0], "gpu") != 0)
        return 0;
    type[0] = '\0';
    *count = 1;
    for (size_t i = 1; i < nf; i++) {
        char *end;
        (void) strtoll (f[i], &end, 10);
        bool numeric = end != f[i] && *end == '\0';
        if (i == nf - 1 && numeric) {
            if (parse_count (f[i], count) < 0)  /* sign, range */
                return -1;
        } else if (i == 1 && strlen (f[i]) < tlen) {
            strcpy (type, f[i]);
        } else {
            return -1;
        }
    }
    return 1;
}

/* Length of the entry at p: up to the next ',' or ';' outside parentheses. */
static size_t entry_len (const char *p)
{
    size_t n = 0;
    int depth = 0;
    for (; p[n]; n++) {
        if (p[n] == '(')
            depth++;
        else if (p[n] == ')' && depth > 0)
            depth--;
        else if (depth == 0 && (p[n] == ',' || p[n] == ';'))
            break;
    }
    return n;
}

int jt_gres_gpu_req (const char *s, char *type, size_t len, int64_t *count)
{
    const char *p = s;
    int64_t sum = 0;
    int found = 0;

    if (len)
        type[0] = '\0';
    *count = 0;
    if (!s || len == 0)
        return 0;
    while (*p) {
        size_t l = entry_len (p);
        char t[128];
        int64_t c;
        int rc = parse_entry (p, l, t, sizeof (t), &c);

        /* both are at most JT_GRES_COUNT_MAX: the sum cannot overflow */
        if (rc < 0 || (rc == 1 && ((found && strcmp (t, type) != 0)
                                   || strlen (t) >= len
                                   || sum + c > JT_GRES_COUNT_MAX))) {
            type[0] = '\0';
            return -1;
        }
        if (rc == 1) {
            strcpy (type, t);
            sum += c;
            found = 1;
        }
        p += l;
        if (*p)
            p++;
    }
    *count = sum;
    return found;
}

int jt_gres_total (int64_t count, jt_gres_scope_t scope, int64_t nodes,
                   int64_t sockets, int64_t *total)
{
    int64_t t;
    if (count <= 0 || count > JT_GRES_COUNT_MAX || nodes <= 0
        || nodes > JT_RUN_GPUS_MAX)
        return -1;
    switch (scope) {
    case JT_GRES_PER_JOB:
        t = count;
        break;
    case JT_GRES_PER_NODE:
        /* each factor is at most 2^20: the product fits in int64_t */
        t = count * nodes;
        break;
    case JT_GRES_PER_SOCKET:
        if (sockets <= 0 || sockets > JT_RUN_GPUS_MAX)
            return -1;
        t = count * nodes;
        if (t > JT_RUN_GPUS_MAX)
            return -1;
        t *= sockets;
        break;
    default:
        return -1;
    }
    if (t > JT_RUN_GPUS_MAX)
        return -1;
    *total = t;
    return 0;
}
