/*
 * snapshot_patch.c - a live snapshot kept up to date instead of rebuilt
 * (issue 12): drop a run's leases when its job ends or changes, and the
 * canonical comparison that a debug cross-check runs between a patched
 * snapshot and a fresh rebuild (jobtree/snapshot.h).
 *
 * DESIGN: removal keeps the other leases in their order, so a patched
 * snapshot's lease order is the order runs (re)started in, while a rebuild
 * lists them in Slurm's job list order. Nothing decides on lease order
 * except sums (usage per envelope), so the comparison treats leases as a
 * multiset: each lease as one canonical line, both sides sorted.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/snapshot.h"
#include "util/strbuf.h"

size_t jt_snapshot_remove_run (jt_snapshot_t *s, const char *run)
{
    size_t kept = 0, gone = 0;

    if (!s || !run)
        return 0;
    for (size_t i = 0; i < s->nleases; i++) {
        jt_lease_t *l = &s->leases[i];
        if (l->run && !strcmp (l->run, run)) {
            free (l->run);
            free (l->owner);
            free (l->envelope);
            for (size_t k = 0; k < l->nnodes; k++)
                free (l->nodes[k]);
            free (l->nodes);
            gone++;
            continue;
        }
        if (kept != i)
            s->leases[kept] = *l;
        kept++;
    }
    s->nleases = kept;
    /* the array keeps its capacity, which is at least what
     * jt_snapshot_add_lease's growth rule implies for the smaller count */
    return gone;
}

static const char *nz (const char *s)
{
    return s ? s : "";
}

/* One lease as a canonical line (malloc'd; NULL on ENOMEM). */
static char *lease_line (const jt_lease_t *l)
{
    jt_strbuf_t b = JT_STRBUF_INIT;

    jt_strbuf_printf (&b, "run %s group %d role %s owner %s envelope %s gpus %"
                      PRId64 " start %" PRId64 " end %" PRId64 " nodes",
                      nz (l->run), l->group, jt_role_str (l->role), nz (l->owner),
                      nz (l->envelope), l->gpus, l->start, l->end);
    for (size_t k = 0; k < l->nnodes; k++)
        jt_strbuf_printf (&b, " %s", nz (l->nodes[k]));
    return jt_strbuf_take (&b);
}

static int cmp_str (const void *a, const void *b)
{
    return strcmp (*(char *const *) a, *(char *const *) b);
}

static void free_lines (char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free (v[i]);
    free (v);
}

/* The leases of s as sorted canonical lines; NULL on ENOMEM. */
static char **lease_lines (const jt_snapshot_t *s)
{
    char **v = calloc (s->nleases + 1, sizeof (*v));

    if (!v)
        return NULL;
    for (size_t i = 0; i < s->nleases; i++)
        if (!(v[i] = lease_line (&s->leases[i]))) {
            free_lines (v, i);
            return NULL;
        }
    qsort (v, s->nleases, sizeof (*v), cmp_str);
    return v;
}

static bool labels_equal (const jt_labels_t *a, const jt_labels_t *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp (a->v[i].key, b->v[i].key) || strcmp (a->v[i].value, b->v[i].value))
            return false;
    return true;
}

/* The first difference between nodes x (of a) and y (of b), or 0. */
static int node_diff (const jt_node_t *x, const jt_node_t *y, char *buf, size_t len)
{
    if (strcmp (x->name, y->name))
        snprintf (buf, len, "node name %s, rebuilt %s", x->name, y->name);
    else if (strcmp (nz (x->flavor), nz (y->flavor)) || x->gpus != y->gpus)
        snprintf (buf, len, "node %s: flavor %s gpus %d, rebuilt %s gpus %d",
                  x->name, nz (x->flavor), x->gpus, nz (y->flavor), y->gpus);
    else if (x->used_gpus != y->used_gpus)
        snprintf (buf, len, "node %s: usedGPUs %d, rebuilt %d", x->name,
                  x->used_gpus, y->used_gpus);
    else if (x->state != y->state)
        snprintf (buf, len, "node %s: state %s, rebuilt %s", x->name,
                  jt_node_state_str (x->state), jt_node_state_str (y->state));
    else if (x->domain != y->domain)
        snprintf (buf, len, "node %s: domain %d, rebuilt %d", x->name,
                  x->domain, y->domain);
    else if (!labels_equal (&x->labels, &y->labels)) {
        char lx[256], ly[256];
        jt_labels_format (&x->labels, lx, sizeof (lx));
        jt_labels_format (&y->labels, ly, sizeof (ly));
        snprintf (buf, len, "node %s: labels %s, rebuilt %s", x->name, lx, ly);
    } else
        return 0;
    return 1;
}

int jt_snapshot_diff (const jt_snapshot_t *a, const jt_snapshot_t *b,
                      char *buf, size_t len)
{
    char **la = NULL, **lb = NULL;
    size_t i = 0, j = 0;
    int rc = 0;

    if (len)
        buf[0] = '\0';
    if (!a || !b)
        return snprintf (buf, len, "no snapshot"), -1;
    if (a->nnodes != b->nnodes)
        return snprintf (buf, len, "%zu nodes, rebuilt %zu", a->nnodes,
                         b->nnodes), 1;
    for (size_t k = 0; k < a->nnodes; k++)
        if (node_diff (&a->nodes[k], &b->nodes[k], buf, len))
            return 1;
    if (a->ndomains != b->ndomains)
        return snprintf (buf, len, "%zu domains, rebuilt %zu", a->ndomains,
                         b->ndomains), 1;
    for (size_t d = 0; d < a->ndomains; d++)
        if (strcmp (a->domains[d].name, b->domains[d].name)
            || a->domains[d].nnodes != b->domains[d].nnodes)
            return snprintf (buf, len, "domain %zu: %s of %zu nodes, rebuilt "
                             "%s of %zu", d, a->domains[d].name,
                             a->domains[d].nnodes, b->domains[d].name,
                             b->domains[d].nnodes), 1;
    if (!(la = lease_lines (a)) || !(lb = lease_lines (b))) {
        snprintf (buf, len, "out of memory");
        rc = -1;
        goto out;
    }
    /* merge the two sorted lists: the first line on one side only */
    while (i < a->nleases || j < b->nleases) {
        int c = i == a->nleases ? 1 : j == b->nleases ? -1 : strcmp (la[i], lb[j]);
        if (c == 0) {
            i++, j++;
            continue;
        }
        snprintf (buf, len, "lease %s: %s", c < 0 ? la[i] : lb[j],
                  c < 0 ? "not in the rebuild" : "missing (in the rebuild)");
        rc = 1;
        break;
    }
out:
    free_lines (la, a->nleases);
    free_lines (lb, b->nleases);
    return rc;
}
