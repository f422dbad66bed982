/*
 * cmd_check.c - `jobtree check BUDGET_DIR [--snapshot FILE] [--quiet]`:
 * validate a budget directory and, optionally, a cluster snapshot against
 * it. Every problem is printed to stderr as "file:line:col: path: message";
 * warnings (things that are legal but probably not meant) are printed the
 * same way with "warning: " before the message and do not fail the check.
 * Exit 0 when clean, 1 on any error, 2 on a usage error.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/budget.h"
#include "jobtree/labels.h"
#include "jobtree/snapshot.h"
#include "cli.h"
#include <json-c/json.h>

#include "jobtree/jsonloc.h"
#include "jobtree/readfile.h"

static const char usage_text[] =
    "Usage: jobtree check BUDGET_DIR [--snapshot FILE] [--quiet]\n"
    "\n"
    "Validate the budget files (*.json) in BUDGET_DIR: syntax, field types and\n"
    "ranges, B <= C*|W|, lending caps, unique owners and envelope names, known\n"
    "parents without cycles, aggregate caps. With --snapshot, also validate a\n"
    "cluster snapshot and check it against the budgets: leases must name known\n"
    "nodes, owners and envelopes; nodes without a fabric.domain label or a GPU\n"
    "flavor are reported (they are never packed).\n"
    "\n"
    "Options:\n"
    "  -s, --snapshot FILE  also check this snapshot (see jobtree-snapshot(5))\n"
    "  -q, --quiet          print errors only: no warnings, no summary\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status: 0 clean, 1 errors found, 2 usage error.\n";

struct ctx {
    bool quiet;
    int errors;
    int warnings;
};

static void print_diags (struct ctx *c, jt_diags_t *d, bool warning)
{
    char buf[1024];

    for (size_t i = 0; i < d->n; i++) {
        jt_diag_t g = d->v[i];
        char msg[600];
        if (warning) {
            /* "file:line:col: warning: path: message", as compilers do */
            snprintf (msg, sizeof (msg), "warning: %s%s%s", g.path ? g.path : "",
                      g.path && *g.path ? ": " : "", g.msg);
            g.msg = msg;
            g.path = NULL;
            c->warnings++;
        } else
            c->errors++;
        if (warning && c->quiet)
            continue;
        jt_diag_format (&g, buf, sizeof (buf));
        fprintf (stderr, "%s\n", buf);
    }
    jt_diags_free (d);
}

/* Where each node of the snapshot is in its text, so findings about the
 * (sorted) model can point at the file. Built once: a snapshot may have
 * 64k nodes, and a linear search per warning would be quadratic. */
struct nodepos {
    const char *name;
    size_t idx;                 /* index in the JSON "nodes" array */
};

struct where {
    const char *file;
    char *text;
    size_t len;
    json_object *root;
    bool ready;                 /* built on first use: clean runs skip it */
    struct nodepos *byname;     /* sorted by name */
    size_t n;
    int *lines, *cols;          /* by JSON index */
};

static int nodepos_cmp (const void *a, const void *b)
{
    return strcmp (((const struct nodepos *) a)->name,
                   ((const struct nodepos *) b)->name);
}

static void where_init (struct where *w)
{
    json_object *arr;

    w->ready = true;
    if (!(w->root = json_tokener_parse (w->text))
        || !json_object_object_get_ex (w->root, "nodes", &arr))
        return;
    size_t n = json_object_array_length (arr);
    w->byname = calloc (n + 1, sizeof (*w->byname));
    w->lines = calloc (n + 1, sizeof (int));
    w->cols = calloc (n + 1, sizeof (int));
    if (!w->byname || !w->lines || !w->cols)
        return;
    for (size_t i = 0; i < n; i++) {
        json_object *v;
        if (json_object_object_get_ex (json_object_array_get_idx (arr, i), "name", &v))
            w->byname[w->n++] = (struct nodepos){ json_object_get_string (v), i };
    }
    qsort (w->byname, w->n, sizeof (*w->byname), nodepos_cmp);
    jt_json_locate_elements (w->text, w->len, "nodes", w->lines, w->cols, n);
}

static void where_free (struct where *w)
{
    json_object_put (w->root);
    free (w->byname);
    free (w->lines);
    free (w->cols);
    free (w->text);
}

/* Path and line:col of node `name` ("nodes[i]"). */
static void node_at (struct where *w, const char *name, char *path, size_t len,
                     int *line, int *col)
{
    struct nodepos key = { name, 0 }, *p;

    if (!w->ready)
        where_init (w);
    *line = *col = 0;
    snprintf (path, len, "nodes");
    p = w->byname ? bsearch (&key, w->byname, w->n, sizeof (key), nodepos_cmp) : NULL;
    if (p) {
        snprintf (path, len, "nodes[%zu]", p->idx);
        *line = w->lines[p->idx];
        *col = w->cols[p->idx];
    }
}

/* Add an error about the field at path. Locating costs a scan of the
 * text, so only the first JT_JSON_MAX_ERRORS are located. */
static void located (jt_diags_t *d, const struct where *w, const char *path,
                     const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));

static void located (jt_diags_t *d, const struct where *w, const char *path,
                     const char *fmt, ...)
{
    char msg[512];
    int line = 0, col = 0;
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    if (d->n < JT_JSON_MAX_ERRORS)
        jt_json_locate (w->text, w->len, path, &line, &col);
    jt_diags_add (d, w->file, line, col, path, "%s", msg);
}

/* True if flavor was met before; else remember it (flavors are few). */
static bool flavor_seen (const char ***seen, size_t *n, const char *flavor)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp ((*seen)[i], flavor))
            return true;
    const char **v = realloc (*seen, (*n + 1) * sizeof (char *));
    if (v) {
        v[(*n)++] = flavor;
        *seen = v;
    }
    return false;
}

/* Leases against budgets and nodes; nodes without domain or flavor;
 * flavors nobody budgets for. */
static void check_snapshot (struct ctx *c, const jt_budgets_t *b,
                            const jt_snapshot_t *s, struct where *w)
{
    jt_diags_t err, warn;
    char path[JT_JSON_PATH_MAX];
    int line, col;
    const char **seen = NULL;
    size_t nseen = 0;

    jt_diags_init (&err);
    jt_diags_init (&warn);
    for (size_t i = 0; i < s->nnodes; i++) {
        const jt_node_t *n = &s->nodes[i];
        if (n->gpus == 0)
            continue;
        node_at (w, n->name, path, sizeof (path), &line, &col);
        if (!n->flavor) {
            jt_diags_add (&warn, w->file, line, col, path, "node %s has %d GPUs but "
                          "no flavor (\"flavor\" or label %s); it will not be packed",
                          n->name, n->gpus, JT_LABEL_FLAVOR);
        }
        if (n->domain < 0) {
            jt_diags_add (&warn, w->file, line, col, path, "node %s has no %s "
                          "label; it belongs to no domain and will not be packed",
                          n->name, JT_LABEL_FABRIC);
        }
        if (n->flavor && !flavor_seen (&seen, &nseen, n->flavor)) {
            bool budgeted = false;
            for (size_t e = 0; e < b->nenv && !budgeted; e++)
                budgeted = !strcmp (b->env[e]->flavor, n->flavor);
            if (!budgeted)
                jt_diags_add (&warn, w->file, line, col, path, "no envelope has "
                              "flavor '%s' (offered by node %s and maybe others); "
                              "such GPUs can never be funded", n->flavor, n->name);
        }
    }
    free (seen);
    for (size_t i = 0; i < s->nleases; i++) {
        const jt_lease_t *l = &s->leases[i];
        const jt_envelope_t *e = l->envelope ? jt_budgets_envelope (b, l->envelope)
                                             : NULL;
        if (!e) {
            const char **names = calloc (b->nenv + 1, sizeof (char *));
            for (size_t k = 0; names && k < b->nenv; k++)
                names[k] = b->env[k]->name;
            const char *sug = names ? jt_json_suggest (l->envelope, names) : NULL;
            snprintf (path, sizeof (path), "leases[%zu].envelope", i);
            located (&err, w, path, "lease of run %s names unknown envelope '%s'%s%s%s",
                     l->run, l->envelope, sug ? "; did you mean '" : "",
                     sug ? sug : "", sug ? "'?" : "");
            free (names);
        }
        if (l->owner && !jt_budgets_owner (b, l->owner)) {
            snprintf (path, sizeof (path), "leases[%zu].owner", i);
            located (&err, w, path, "lease of run %s names unknown owner '%s'", l->run,
                     l->owner);
        }
        for (size_t k = 0; e && k < l->nnodes; k++) {
            ssize_t ni = jt_snapshot_node_index (s, l->nodes[k]);
            if (ni < 0)
                continue;   /* the parser reports unknown nodes */
            const jt_node_t *n = &s->nodes[ni];
            snprintf (path, sizeof (path), "leases[%zu].nodes[%zu]", i, k);
            if (!n->flavor || strcmp (n->flavor, e->flavor))
                located (&err, w, path, "node %s has flavor '%s' but envelope %s pays "
                         "for '%s'", n->name, n->flavor ? n->flavor : "(none)", e->name,
                         e->flavor);
            else if (!jt_labels_match (&e->selector, &n->labels)) {
                char sel[256];
                jt_labels_format (&e->selector, sel, sizeof (sel));
                located (&err, w, path, "node %s does not match envelope %s's "
                         "selector %s", n->name, e->name, sel);
            }
        }
    }
    print_diags (c, &err, false);
    print_diags (c, &warn, true);
}

/* Budget-only warnings: owners that can never match a Slurm account
 * (Slurm stores account names in lower case), lending to owners that have
 * no budget file. */
static void check_lending (struct ctx *c, const jt_budgets_t *b)
{
    jt_diags_t warn;

    jt_diags_init (&warn);
    for (size_t i = 0; i < b->n; i++) {
        const char *o = b->v[i].owner;
        for (const char *p = o; *p; p++)
            if (isupper ((unsigned char) *p)) {
                jt_diags_add (&warn, b->v[i].file, 0, 0, "owner", "owner '%s' has "
                              "upper-case letters, but Slurm stores account names in "
                              "lower case, so no job will ever match it", o);
                break;
            }
    }
    for (size_t i = 0; i < b->nenv; i++) {
        const jt_envelope_t *e = b->env[i];
        for (size_t k = 0; k < e->lending.nto; k++) {
            const char *to = e->lending.to[k];
            if (strcmp (to, "*") && !jt_budgets_owner (b, to)) {
                const jt_budget_t *o = jt_budgets_owner (b, e->owner);
                char path[JT_JSON_PATH_MAX];
                snprintf (path, sizeof (path), "envelopes[%zu].lending.to[%zu]",
                          e->index, k);
                jt_diags_add (&warn, o ? o->file : NULL, 0, 0, path, "envelope %s "
                              "lends to '%s', which has no budget file", e->name, to);
            }
        }
    }
    print_diags (c, &warn, true);
}

int cmd_check (int argc, char **argv)
{
    static const struct option opts[] = {
        { "snapshot", required_argument, NULL, 's' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct ctx c = { false, 0, 0 };
    const char *snapfile = NULL;
    jt_budgets_t *b;
    jt_snapshot_t *s = NULL;
    jt_diags_t d;
    struct where w;
    int opt;

    memset (&w, 0, sizeof (w));
    optind = 1;
    while ((opt = getopt_long (argc, argv, "s:qh", opts, NULL)) != -1) {
        switch (opt) {
        case 's': snapfile = optarg; break;
        case 'q': c.quiet = true; break;
        case 'h': fputs (usage_text, stdout); return JT_EXIT_OK;
        default: fputs (usage_text, stderr); return JT_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        fprintf (stderr, "jobtree check: expected one BUDGET_DIR\n");
        fputs (usage_text, stderr);
        return JT_EXIT_USAGE;
    }
    jt_diags_init (&d);
    b = jt_budgets_load_dir (argv[optind], &d);
    print_diags (&c, &d, false);
    if (b)
        check_lending (&c, b);
    if (snapfile) {
        w.file = snapfile;
        if (!(w.text = jt_read_file (snapfile, &w.len, NULL))) {
            fprintf (stderr, "%s: cannot read: %s\n", snapfile, strerror (errno));
            c.errors++;
        } else {
            jt_diags_init (&d);
            s = jt_snapshot_parse_json (snapfile, w.text, w.len, &d);
            print_diags (&c, &d, false);
            if (s && b)
                check_snapshot (&c, b, s, &w);
        }
    }
    if (c.errors == 0 && !c.quiet) {
        printf ("%zu owners, %zu envelopes, %zu aggregate caps", b->n, b->nenv, b->ncaps);
        if (s)
            printf ("; %zu nodes, %zu domains, %zu leases", s->nnodes, s->ndomains,
                    s->nleases);
        printf (": OK%s\n", c.warnings ? " (with warnings)" : "");
    }
    where_free (&w);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
    return c.errors ? JT_EXIT_FAIL : JT_EXIT_OK;
}
