/*
 * topoconf.c - the leaves of Slurm's topology.conf (see jobtree/topoconf.h):
 * a tokenizer of Slurm's key=value records and which records are leaves.
 * The CLI expands the host lists with libslurm; nothing here knows Slurm.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobtree/topoconf.h"

void jt_topo_leaves_free (jt_topo_leaves_t *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        free (l->v[i].name);
        free (l->v[i].nodes);
    }
    free (l->v);
    l->v = NULL;
    l->n = 0;
}

/* One logical line: physical lines joined at a trailing '\', comments
 * dropped (a comment ends a logical line). */
struct cursor {
    const char *p, *end;
    int line;
};

/* The next logical line into buf (malloc'd, grown); its first physical
 * line in *first. 0, 1 at the end, -1 ENOMEM. */
static int next_line (struct cursor *c, char **buf, size_t *cap, int *first)
{
    size_t n = 0;
    bool comment = false;

    if (c->p >= c->end)
        return 1;
    *first = c->line;
    while (c->p < c->end) {
        char ch = *c->p++;
        if (ch == '\n') {
            c->line++;
            if (!comment && n > 0 && (*buf)[n - 1] == '\\') {
                (*buf)[n - 1] = ' ';
                continue;
            }
            break;
        }
        if (ch == '#')
            comment = true;
        if (comment)
            continue;
        if (n + 2 > *cap) {
            size_t nc = *cap ? *cap * 2 : 256;
            char *nb = realloc (*buf, nc);
            if (!nb)
                return -1;
            *buf = nb;
            *cap = nc;
        }
        (*buf)[n++] = ch == '\0' || ch == '\t' || ch == '\r' ? ' ' : ch;
    }
    if (*cap == 0 && !(*buf = malloc (*cap = 1)))
        return -1;
    (*buf)[n] = '\0';
    return 0;
}

static int add_leaf (jt_topo_leaves_t *out, size_t *cap, const char *name,
                     size_t nlen, const char *nodes, size_t ndlen, int line)
{
    jt_topo_leaf_t *l;

    if (out->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        jt_topo_leaf_t *nv = realloc (out->v, nc * sizeof (*nv));
        if (!nv)
            return -1;
        out->v = nv;
        *cap = nc;
    }
    l = &out->v[out->n];
    l->name = strndup (name, nlen);
    l->nodes = strndup (nodes, ndlen);
    l->line = line;
    if (!l->name || !l->nodes) {
        free (l->name);
        free (l->nodes);
        return -1;
    }
    out->n++;
    return 0;
}

static int by_name (const void *a, const void *b)
{
    const jt_topo_leaf_t *x = *(jt_topo_leaf_t *const *) a, *y = *(jt_topo_leaf_t *const *) b;
    int c = strcmp (x->name, y->name);
    return c ? c : x->line - y->line;
}

int jt_topoconf_leaves (const char *file, const char *text, size_t len,
                        jt_topo_kind_t kind, jt_topo_leaves_t *out,
                        jt_diags_t *diags)
{
    const char *want = kind == JT_TOPO_BLOCK ? "BlockName" : "SwitchName";
    struct cursor c = { text, text + len, 1 };
    size_t errors = 0, cap = 0, bcap = 0;
    char *buf = NULL;
    int first = 1, rc;

    memset (out, 0, sizeof (*out));
    if (len > JT_TOPOCONF_MAX) {
        jt_diags_add (diags, file, 0, 0, NULL, "%zu bytes, more than the %d a "
                      "topology.conf may have here", len, JT_TOPOCONF_MAX);
        return -1;
    }
    while ((rc = next_line (&c, &buf, &bcap, &first)) == 0) {
        const char *name = NULL, *nodes = NULL;
        size_t nlen = 0, ndlen = 0;
        int ncol = 0;
        char *p = buf;
        while (*p) {
            char *tok, *eq;
            size_t tlen;
            while (*p == ' ')
                p++;
            if (!*p)
                break;
            tok = p;
            while (*p && *p != ' ')
                p++;
            tlen = (size_t) (p - tok);
            if (!(eq = memchr (tok, '=', tlen)))
                continue;       /* not ours to judge: Slurm's parser does */
            const char *val = eq + 1;
            size_t klen = (size_t) (eq - tok), vlen = tlen - klen - 1;
            if (vlen > JT_TOPOCONF_VALUE_MAX) {
                jt_diags_add (diags, file, first, (int) (tok - buf) + 1, NULL,
                              "a value of %zu bytes, more than %d", vlen,
                              JT_TOPOCONF_VALUE_MAX);
                errors++;
                continue;
            }
            if (klen == strlen (want) && strncasecmp (tok, want, klen) == 0 && !name) {
                name = val, nlen = vlen, ncol = (int) (tok - buf) + 1;
            } else if (klen == 5 && strncasecmp (tok, "Nodes", 5) == 0 && !nodes) {
                nodes = val, ndlen = vlen;
            }
        }
        if (!name)
            continue;
        if (nlen == 0) {
            jt_diags_add (diags, file, first, ncol, NULL, "%s= without a name", want);
            errors++;
            continue;
        }
        if (!nodes || ndlen == 0)
            continue;           /* a switch of switches, or an empty block */
        if (out->n >= JT_TOPOCONF_LEAVES_MAX) {
            jt_diags_add (diags, file, first, ncol, NULL, "more than %d leaves",
                          JT_TOPOCONF_LEAVES_MAX);
            errors++;
            break;
        }
        if (add_leaf (out, &cap, name, nlen, nodes, ndlen, first) < 0) {
            rc = -1;
            break;
        }
    }
    free (buf);
    if (rc < 0) {
        jt_diags_add (diags, file, 0, 0, NULL, "out of memory");
        errors++;
    }
    if (!errors && out->n > 1) {
        /* A name twice: Slurm refuses such a file; so do we (file:line). */
        jt_topo_leaf_t **s = malloc (out->n * sizeof (*s));
        if (!s) {
            jt_diags_add (diags, file, 0, 0, NULL, "out of memory");
            errors++;
        } else {
            for (size_t i = 0; i < out->n; i++)
                s[i] = &out->v[i];
            qsort (s, out->n, sizeof (*s), by_name);
            for (size_t i = 1; i < out->n; i++)
                if (strcmp (s[i]->name, s[i - 1]->name) == 0) {
                    jt_diags_add (diags, file, s[i]->line, 1, NULL, "%s=%s again (line "
                                  "%d has it)", want, s[i]->name, s[i - 1]->line);
                    errors++;
                }
            free (s);
        }
    }
    if (errors) {
        jt_topo_leaves_free (out);
        return -1;
    }
    return 0;
}
