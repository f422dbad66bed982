/*
 * topoconf_build.c - what Slurm's topology plugins build from a topology
 * file's records (topoconf_int.h): the leaves, the switch tree's levels
 * (switch_record.c@26.05.3), topology/block's sizes and aggregated blocks
 * (block_record.c@26.05.3), each leaf's first unit of each level above it.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topoconf_int.h"
#include "util/grow.h"

static void rec_free (jt_topo_rec_t *r)
{
    free (r->name);
    free (r->nodes);
    free (r->switches);
    free (r->child);
}

static void names_free (char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free (v[i]);
    free (v);
}

/* hosts == NULL: names between commas, as written. */
static int split_commas (const char *expr, char ***v, size_t *n)
{
    size_t cap = 1, k = 0;
    const char *q = expr;

    for (const char *c = expr; *c; c++)
        cap += *c == ',';
    if (!(*v = calloc (cap, sizeof (**v))))
        return -1;
    for (;;) {
        const char *c = strchr (q, ',');
        size_t l = c ? (size_t) (c - q) : strlen (q);
        if (l > 0 && !((*v)[k++] = strndup (q, l))) {
            names_free (*v, k);
            return -1;
        }
        if (!c)
            break;
        q = c + 1;
    }
    *n = k;
    return 0;
}

/* The names of expr: 0, -1 when it is no host list (or out of memory). */
static int expand (const jt_topo_parse_t *p, const char *expr, char ***v, size_t *n)
{
    *v = NULL;
    *n = 0;
    if (p->hosts && p->hosts->expand)
        return p->hosts->expand (p->hosts->arg, expr, v, n);
    return split_commas (expr, v, n);
}

/* One value of BlockSizes (q, l bytes, at line:col): a number of nodes in
 * 1 .. 2^20, above the one before it, and the first times a power of two
 * up to 2^15 (Slurm's rule, block_record.c@26.05.3:105-143). */
void jt_topo_size_add (jt_topo_parse_t *p, const char *q, size_t l, int line, int at)
{
    uint64_t v = 0;
    bool digits = l > 0;

    for (size_t i = 0; i < l; i++) {
        if (!isdigit ((unsigned char) q[i]))
            digits = false;
        else if (v <= JT_TOPOCONF_BLOCK_NODES_MAX)
            v = v * 10 + (uint64_t) (q[i] - '0');
    }
    if (!digits) {
        jt_diags_add (p->diags, p->file, line, at, p->k_sizes, "'%.*s' is not a "
                      "number of nodes", (int) (l > 64 ? 64 : l), q);
        p->errors++;
    } else if (v < 1 || v > JT_TOPOCONF_BLOCK_NODES_MAX) {
        jt_diags_add (p->diags, p->file, line, at, p->k_sizes, "%.*s nodes: a "
                      "block holds 1 to %u", (int) (l > 64 ? 64 : l), q,
                      JT_TOPOCONF_BLOCK_NODES_MAX);
        p->errors++;
    } else if (p->nsizes && v <= p->sizes[p->nsizes - 1]) {
        jt_diags_add (p->diags, p->file, line, at, p->k_sizes, "%" PRIu64 " is not "
                      "above %" PRIu32 " before it", v, p->sizes[p->nsizes - 1]);
        p->errors++;
    } else if (p->nsizes && (v % p->sizes[0] || (v / p->sizes[0]) > (1u << 15)
                             || ((v / p->sizes[0]) & (v / p->sizes[0] - 1)))) {
        jt_diags_add (p->diags, p->file, line, at, p->k_sizes, "%" PRIu64 " is not "
                      "%" PRIu32 " (the base block) times a power of two up to "
                      "2^15", v, p->sizes[0]);
        p->errors++;
    } else if (p->nsizes < sizeof (p->sizes) / sizeof (p->sizes[0])) {
        /* increasing powers of two times n0 up to 2^15: at most 16 */
        p->sizes[p->nsizes++] = (uint32_t) v;
    }
}

/* The sizes start at line:col: 0, or -1 (said) when they were given. */
int jt_topo_sizes_start (jt_topo_parse_t *p, int line, int col)
{
    if (p->sizes_line) {
        jt_diags_add (p->diags, p->file, line, col, p->k_sizes, "again (line %d "
                      "has it)", p->sizes_line);
        p->errors++;
        return -1;
    }
    p->sizes_line = line;
    return 0;
}

/* A record of the kind read, copied; -1 out of memory. */
int jt_topo_add_rec (jt_topo_parse_t *p, const char *name, size_t nlen, const char *nodes,
                     size_t ndlen, const char *sw, size_t swlen, int line, int col,
                     int swcol)
{
    jt_topo_rec_t *r;

    if (jt_grow ((void **) &p->r, &p->cap, p->n + 1, sizeof (*p->r)) < 0)
        return -1;
    r = &p->r[p->n];
    memset (r, 0, sizeof (*r));
    r->line = line;
    r->col = col;
    r->swcol = swcol;
    r->leaf = -1;
    r->name = strndup (name, nlen);
    r->nodes = ndlen ? strndup (nodes, ndlen) : NULL;
    r->switches = swlen ? strndup (sw, swlen) : NULL;
    if (!r->name || (ndlen && !r->nodes) || (swlen && !r->switches)) {
        rec_free (r);
        return -1;
    }
    p->n++;
    return 0;
}

/* Records sorted by name (then line), for lookups and names twice. */
static int by_name (const void *a, const void *b)
{
    const jt_topo_rec_t *x = *(const jt_topo_rec_t *const *) a;
    const jt_topo_rec_t *y = *(const jt_topo_rec_t *const *) b;
    int c = strcmp (x->name, y->name);
    return c ? c : x->line - y->line;
}

static int by_key (const void *key, const void *b)
{
    return strcmp (key, (*(const jt_topo_rec_t *const *) b)->name);
}

/* A name twice: Slurm refuses such a file; so do we (file:line). Fills
 * *sorted for lookups. 0, -1 out of memory. */
static int check_names (jt_topo_parse_t *p, jt_topo_rec_t ***sorted)
{
    jt_topo_rec_t **s = malloc ((p->n ? p->n : 1) * sizeof (*s));

    if (!(*sorted = s))
        return -1;
    for (size_t i = 0; i < p->n; i++)
        s[i] = &p->r[i];
    qsort (s, p->n, sizeof (*s), by_name);
    for (size_t i = 1; i < p->n; i++)
        if (strcmp (s[i]->name, s[i - 1]->name) == 0) {
            jt_diags_add (p->diags, p->file, s[i]->line, 1, NULL, "%s=%s again "
                          "(line %d has it)", p->k_name, s[i]->name, s[i - 1]->line);
            p->errors++;
        }
    return 0;
}

/* The leaves: records with nodes, in file order (copies: lookups go on
 * by the records' names). 0, -1 out of memory. */
static int add_leaves (jt_topo_parse_t *p, jt_topo_leaves_t *out)
{
    size_t n = 0;

    for (size_t i = 0; i < p->n; i++)
        n += p->r[i].nodes != NULL;
    if (n && !(out->v = calloc (n, sizeof (*out->v))))
        return -1;
    for (size_t i = 0; i < p->n; i++) {
        jt_topo_leaf_t *l;
        if (!p->r[i].nodes)
            continue;
        l = &out->v[out->n];
        l->line = p->r[i].line;
        for (int k = 0; k < JT_LEVELS_MAX; k++)
            l->up[k] = -1;
        p->r[i].leaf = (long) out->n++;
        if (!(l->name = strdup (p->r[i].name)) || !(l->nodes = strdup (p->r[i].nodes)))
            return -1;
    }
    return 0;
}

/* Each switch's children (Switches=, when it has no nodes: Slurm ignores
 * a leaf's), by index through sorted. 0, -1 out of memory. */
static int tree_children (jt_topo_parse_t *p, jt_topo_rec_t *const *sorted)
{
    size_t total = 0;

    for (size_t i = 0; i < p->n; i++) {
        jt_topo_rec_t *r = &p->r[i];
        char **v;
        size_t nv;
        const char *name = r->name;

        r->level = 0;
        if (r->leaf >= 0 || !r->switches)
            continue;
        r->level = -1;
        if (expand (p, r->switches, &v, &nv) < 0) {
            jt_diags_add (p->diags, p->file, r->line, r->swcol, p->k_children,
                          "%s=%s: '%.64s' is not a list of switches", p->k_name, name,
                          r->switches);
            p->errors++;
            continue;
        }
        if (nv > JT_TOPOCONF_CHILDREN_MAX - total) {
            jt_diags_add (p->diags, p->file, r->line, r->swcol, p->k_children,
                          "more than %d children over all switches",
                          JT_TOPOCONF_CHILDREN_MAX);
            p->errors++;
            names_free (v, nv);
            return 0;
        }
        total += nv;
        if (nv && !(r->child = malloc (nv * sizeof (*r->child)))) {
            names_free (v, nv);
            return -1;
        }
        for (size_t k = 0; k < nv; k++) {
            jt_topo_rec_t *const *hit = bsearch (v[k], sorted, p->n, sizeof (*sorted),
                                              by_key);
            if (!hit) {
                jt_diags_add (p->diags, p->file, r->line, r->swcol, p->k_children,
                              "%s=%s: %s is no switch of this file", p->k_name, name,
                              v[k]);
                p->errors++;
            } else if (*hit == r) {
                jt_diags_add (p->diags, p->file, r->line, r->swcol, p->k_children,
                              "%s=%s: a switch is not its own child", p->k_name, name);
                p->errors++;
            } else
                r->child[r->nchild++] = (size_t) (*hit - p->r);
        }
        names_free (v, nv);
        if (!r->nchild)
            r->level = 0;       /* an empty switch, as one without nodes */
    }
    return 0;
}

/* Each switch's level: 1 + its highest child's, resolved in at most 21
 * passes over the file as Slurm does (switch_record.c@26.05.3:490-535). */
static void tree_levels (jt_topo_parse_t *p, jt_topo_leaves_t *out)
{
    for (int depth = 1;; depth++) {
        bool resolved = true;
        for (size_t i = 0; i < p->n; i++) {
            jt_topo_rec_t *r = &p->r[i];
            int lv = 0;
            if (r->level != -1)
                continue;
            for (size_t k = 0; k < r->nchild && lv >= 0; k++)
                lv = p->r[r->child[k]].level < 0 ? -1
                     : p->r[r->child[k]].level + 1 > lv ? p->r[r->child[k]].level + 1 : lv;
            if (lv < 0)
                resolved = false;
            else
                r->level = lv;
        }
        if (resolved)
            break;
        if (depth > 20) {
            for (size_t i = 0; i < p->n; i++)
                if (p->r[i].level == -1) {
                    jt_diags_add (p->diags, p->file, p->r[i].line, p->r[i].swcol,
                                  p->k_children, "%s=%s: the switches make no "
                                  "tree (a loop, or more than 20 levels)", p->k_name,
                                  p->r[i].name);
                    p->errors++;
                    break;
                }
            return;
        }
    }
    for (size_t i = 0; i < p->n; i++)
        if (p->r[i].level > out->levels)
            out->levels = p->r[i].level;
}

/* The switches of levels 1 .. JT_LEVELS_MAX in file order, and for each
 * leaf the first of each level over it: a walk down from each switch,
 * each record at most once per switch. 0, -1 out of memory. */
static int tree_ups (jt_topo_parse_t *p, jt_topo_leaves_t *out)
{
    size_t nup = 0, *stamp, *stack, work = 0;
    int rc = 0;

    for (size_t i = 0; i < p->n; i++)
        nup += p->r[i].level >= 1 && p->r[i].level <= JT_LEVELS_MAX;
    if (!nup)
        return 0;
    out->up = calloc (nup, sizeof (*out->up));
    stamp = malloc (p->n * sizeof (*stamp));
    stack = malloc (p->n * sizeof (*stack));
    if (!out->up || !stamp || !stack) {
        free (stamp);
        free (stack);
        return -1;
    }
    for (size_t i = 0; i < p->n; i++)
        stamp[i] = SIZE_MAX;
    for (size_t i = 0; i < p->n && rc == 0; i++) {
        jt_topo_rec_t *r = &p->r[i];
        size_t u = out->nup, top = 0;
        if (r->level < 1 || r->level > JT_LEVELS_MAX)
            continue;
        if (!(out->up[u].name = strdup (r->name))) {
            rc = -1;
            break;
        }
        out->up[u].level = r->level;
        out->up[u].line = r->line;
        out->nup++;
        stack[top++] = i;
        stamp[i] = u;
        while (top > 0) {
            const jt_topo_rec_t *x = &p->r[stack[--top]];
            if (x->leaf >= 0) {
                long *up = &out->v[x->leaf].up[r->level - 1];
                if (*up < 0)
                    *up = (long) u;
                continue;
            }
            for (size_t k = 0; k < x->nchild; k++)
                if (stamp[x->child[k]] != u) {
                    stamp[x->child[k]] = u;
                    stack[top++] = x->child[k];
                }
            work += x->nchild + 1;
        }
        if (work > JT_TOPOCONF_WALK_MAX) {
            jt_diags_add (p->diags, p->file, r->line, r->swcol, p->k_children, "the "
                          "switches above the leaves take more than %d steps to walk",
                          JT_TOPOCONF_WALK_MAX);
            p->errors++;
            break;
        }
    }
    free (stamp);
    free (stack);
    return rc;
}

/* The aggregated blocks of levels 1 .. JT_LEVELS_MAX (of the cnt sizes
 * bs, in base blocks), by level then first base block, as Slurm orders
 * its records (block_record.c@26.05.3:370-411), each named by its base
 * blocks; each leaf's up. 0, -1 out of memory. */
static int block_aggregate (jt_topo_parse_t *p, jt_topo_leaves_t *out,
                            const uint32_t *bs, size_t cnt)
{
    size_t nb = p->n, nup = 0;
    size_t *from = NULL, *to = NULL;
    int rc = 0;

    for (size_t j = 1; j < cnt && j <= JT_LEVELS_MAX; j++)
        nup += (nb + bs[j] - 1) / bs[j];
    if (!nup)
        return 0;
    out->up = calloc (nup, sizeof (*out->up));
    from = calloc (nup, sizeof (*from));
    to = calloc (nup, sizeof (*to));
    if (!out->up || !from || !to) {
        free (from);
        free (to);
        return -1;
    }
    for (size_t j = 1; j < cnt && j <= JT_LEVELS_MAX; j++) {
        long cur = -1;
        for (size_t i = 0; i < nb; i++) {
            if (i % bs[j] == 0) {
                size_t left = nb - i;
                cur = -1;
                if (bs[j] > left && bs[j - 1] >= left)
                    continue;   /* the tail: the level below holds it */
                cur = (long) out->nup++;
                from[cur] = i;
                out->up[cur].level = (int) j;
                out->up[cur].line = p->r[i].line;
            }
            if (cur < 0)
                continue;
            to[cur] = i + 1;
            if (p->r[i].leaf >= 0 && out->v[p->r[i].leaf].up[j - 1] < 0)
                out->v[p->r[i].leaf].up[j - 1] = cur;
        }
    }
    for (size_t u = 0; u < out->nup && rc == 0; u++) {
        size_t len = 1;
        char *name, *q;
        for (size_t i = from[u]; i < to[u]; i++)
            len += strlen (p->r[i].name) + 1;
        if (!(name = malloc (len))) {
            rc = -1;
            break;
        }
        q = name;
        for (size_t i = from[u]; i < to[u]; i++) {
            size_t l = strlen (p->r[i].name);
            if (q != name)
                *q++ = ',';
            memcpy (q, p->r[i].name, l);
            q += l;
        }
        *q = '\0';
        if (p->hosts && p->hosts->ranged) {
            char *r = p->hosts->ranged (p->hosts->arg, name);
            if (r) {
                free (name);
                name = r;
            }
        }
        out->up[u].name = name;
    }
    free (from);
    free (to);
    return rc;
}

/* topology/block's levels (block_record.c@26.05.3:105-143, 319-407): the
 * base block's nodes (BlockSizes' first, else the first block's with
 * nodes), the levels (BlockSizes', else 0-4), kept while the size before
 * holds fewer blocks than the file has; the aggregated blocks of level j
 * are each 2^j consecutive base blocks from a multiple of 2^j, a short
 * tail only when the level below could not hold it. 0, -1 out of memory. */
static int block_ups (jt_topo_parse_t *p, jt_topo_leaves_t *out)
{
    uint32_t bs[16], bblock = 0, levels = 0;
    size_t cnt = 0, nb = p->n;

    if (!nb)
        return 0;
    if (p->nsizes) {
        bblock = p->sizes[0];
        for (size_t k = 0; k < p->nsizes; k++) {
            uint32_t q = p->sizes[k] / bblock;
            int l = 0;
            while (q > 1)
                q >>= 1, l++;
            levels |= 1u << l;
        }
    } else {
        for (size_t i = 0; i < nb && !bblock; i++) {
            char **v;
            size_t nv;
            if (!p->r[i].nodes)
                continue;
            if (expand (p, p->r[i].nodes, &v, &nv) < 0) {
                jt_diags_add (p->diags, p->file, p->r[i].line, p->r[i].col, p->k_nodes,
                              "%s=%s: '%.64s' is not a host list", p->k_name,
                              p->r[i].name, p->r[i].nodes);
                p->errors++;
                return 0;
            }
            names_free (v, nv);
            if (nv > JT_TOPOCONF_BLOCK_NODES_MAX) {
                jt_diags_add (p->diags, p->file, p->r[i].line, p->r[i].col, p->k_nodes,
                              "%s=%s: %zu nodes, more than a block may hold "
                              "(%u)", p->k_name, p->r[i].name, nv, JT_TOPOCONF_BLOCK_NODES_MAX);
                p->errors++;
                return 0;
            }
            bblock = (uint32_t) nv;
        }
        levels = 0x1f;
    }
    if (!bblock)
        return 0;               /* no nodes in any block: no levels */
    for (int l = 0; l < 16; l++)
        if (levels & (1u << l)) {
            bs[cnt++] = 1u << l;
            if (bs[cnt - 1] >= nb)
                break;
        }
    out->nsizes = cnt;
    out->levels = (int) cnt - 1;
    for (size_t k = 0; k < cnt && k <= JT_LEVELS_MAX; k++) {
        uint64_t z = (uint64_t) bblock * bs[k];
        if (z > JT_TOPOCONF_BLOCK_NODES_MAX)
            break;
        out->block_nodes[out->nblock++] = (uint32_t) z;
    }
    return block_aggregate (p, out, bs, cnt);
}


/* Every check and level of the records read (see topoconf_int.h). */
int jt_topo_finish (jt_topo_parse_t *p, jt_topo_kind_t kind, jt_topo_leaves_t *out)
{
    jt_topo_rec_t **sorted = NULL;
    int rc = 0;

    if (!p->errors)
        rc = check_names (p, &sorted);
    if (rc == 0 && !p->errors)
        rc = add_leaves (p, out);
    if (rc == 0 && !p->errors && kind == JT_TOPO_TREE) {
        rc = tree_children (p, sorted);
        if (rc == 0 && !p->errors)
            tree_levels (p, out);
        if (rc == 0 && !p->errors)
            rc = tree_ups (p, out);
    } else if (rc == 0 && !p->errors)
        rc = block_ups (p, out);
    if (rc < 0) {
        jt_diags_add (p->diags, p->file, 0, 0, NULL, "out of memory");
        p->errors++;
    }
    free (sorted);
    for (size_t i = 0; i < p->n; i++)
        rec_free (&p->r[i]);
    free (p->r);
    p->r = NULL;
    p->n = p->cap = 0;
    if (p->errors) {
        jt_topo_leaves_free (out);
        return -1;
    }
    return 0;
}
