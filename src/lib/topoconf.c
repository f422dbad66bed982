/*
 * topoconf.c - Slurm's topology.conf (see jobtree/topoconf.h): a tokenizer
 * of Slurm's key=value records into the records of topoconf_int.h
 * (switches, blocks, BlockSizes), which topoconf_build.c makes leaves and
 * levels of by Slurm's rules. The CLI expands the host lists with
 * libslurm; nothing here knows Slurm.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "topoconf_int.h"

void jt_topo_leaves_free (jt_topo_leaves_t *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        free (l->v[i].name);
        free (l->v[i].nodes);
    }
    free (l->v);
    for (size_t i = 0; i < l->nup; i++)
        free (l->up[i].name);
    free (l->up);
    memset (l, 0, sizeof (*l));
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

/* BlockSizes=n0,n1,... (jt_topo_size_add each). col is the value's
 * column. */
static void block_sizes (jt_topo_parse_t *p, const char *val, size_t vlen,
                         int line, int col)
{
    const char *q = val, *end = val + vlen;

    if (jt_topo_sizes_start (p, line, col) < 0)
        return;
    for (;;) {
        const char *c = memchr (q, ',', (size_t) (end - q));
        size_t l = (size_t) ((c ? c : end) - q);

        jt_topo_size_add (p, q, l, line, col + (int) (q - val));
        if (!c)
            break;
        q = c + 1;
    }
}

/* The records of the file: names, nodes, switches, BlockSizes. 0, -1 out
 * of memory (problems counted in p->errors). */
static int read_records (jt_topo_parse_t *p, const char *text, size_t len,
                         jt_topo_kind_t kind)
{
    struct cursor c = { text, text + len, 1 };
    size_t bcap = 0;
    char *buf = NULL;
    int first = 1, rc;

    while ((rc = next_line (&c, &buf, &bcap, &first)) == 0) {
        const char *name = NULL, *nodes = NULL, *sw = NULL;
        size_t nlen = 0, ndlen = 0, swlen = 0;
        int ncol = 0, swcol = 0;
        char *p0 = buf;
        while (*p0) {
            char *tok, *eq;
            size_t tlen;
            while (*p0 == ' ')
                p0++;
            if (!*p0)
                break;
            tok = p0;
            while (*p0 && *p0 != ' ')
                p0++;
            tlen = (size_t) (p0 - tok);
            if (!(eq = memchr (tok, '=', tlen)))
                continue;       /* not ours to judge: Slurm's parser does */
            const char *val = eq + 1;
            size_t klen = (size_t) (eq - tok), vlen = tlen - klen - 1;
            int col = (int) (tok - buf) + 1;
            if (vlen > JT_TOPOCONF_VALUE_MAX) {
                jt_diags_add (p->diags, p->file, first, col, NULL,
                              "a value of %zu bytes, more than %d", vlen,
                              JT_TOPOCONF_VALUE_MAX);
                p->errors++;
                continue;
            }
            if (klen == strlen (p->k_name) && strncasecmp (tok, p->k_name, klen) == 0
                && !name) {
                name = val, nlen = vlen, ncol = col;
            } else if (klen == 5 && strncasecmp (tok, "Nodes", 5) == 0 && !nodes) {
                nodes = val, ndlen = vlen;
            } else if (kind == JT_TOPO_TREE && klen == 8
                       && strncasecmp (tok, "Switches", 8) == 0 && !sw) {
                sw = val, swlen = vlen, swcol = col;
            } else if (kind == JT_TOPO_BLOCK && klen == 10
                       && strncasecmp (tok, "BlockSizes", 10) == 0) {
                block_sizes (p, val, vlen, first, col + 11);
            }
        }
        if (!name)
            continue;
        if (nlen == 0) {
            jt_diags_add (p->diags, p->file, first, ncol, NULL, "%s= without a name",
                          p->k_name);
            p->errors++;
            continue;
        }
        if (p->n >= JT_TOPOCONF_LEAVES_MAX) {
            jt_diags_add (p->diags, p->file, first, ncol, NULL, "more than %d records",
                          JT_TOPOCONF_LEAVES_MAX);
            p->errors++;
            break;
        }
        if (jt_topo_add_rec (p, name, nlen, nodes, ndlen, sw, swlen, first, ncol, swcol) < 0) {
            rc = -1;
            break;
        }
    }
    free (buf);
    return rc < 0 ? -1 : 0;
}

int jt_topoconf_read (const char *file, const char *text, size_t len,
                      jt_topo_kind_t kind, const jt_topo_hosts_t *hosts,
                      jt_topo_leaves_t *out, jt_diags_t *diags)
{
    jt_topo_parse_t p = {
        .file = file, .diags = diags, .hosts = hosts,
        .k_name = kind == JT_TOPO_BLOCK ? "BlockName" : "SwitchName",
        .k_children = "Switches", .k_nodes = "Nodes", .k_sizes = "BlockSizes",
    };

    memset (out, 0, sizeof (*out));
    if (len > JT_TOPOCONF_MAX) {
        jt_diags_add (diags, file, 0, 0, NULL, "%zu bytes, more than the %d a "
                      "topology.conf may have here", len, JT_TOPOCONF_MAX);
        return -1;
    }
    if (read_records (&p, text, len, kind) < 0) {
        jt_diags_add (diags, file, 0, 0, NULL, "out of memory");
        p.errors++;
    }
    return jt_topo_finish (&p, kind, out);
}

int jt_topoconf_leaves (const char *file, const char *text, size_t len,
                        jt_topo_kind_t kind, jt_topo_leaves_t *out,
                        jt_diags_t *diags)
{
    return jt_topoconf_read (file, text, len, kind, NULL, out, diags);
}
