/*
 * topoconf_yaml.c - Slurm's topology.yaml (25.05 and later; see
 * jobtree/topoconf.h): the cluster default topology's switches or blocks
 * and block_sizes, read with libyaml into the records of topoconf_int.h,
 * which topoconf_build.c makes leaves and levels of by the same rules as
 * topology.conf's. The select plugin asks slurmctld's topology plugin
 * instead (plugins/common/compat_topo_records.h); this is for clients.
 *
 * The document is walked once: a node used twice (an alias) is refused,
 * so the work is bounded by the text's size. Without libyaml at configure
 * time jt_topoyaml_read says so.
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

#ifdef HAVE_LIBYAML
#include <yaml.h>

bool jt_topoyaml_available (void)
{
    return true;
}

struct walk {
    yaml_document_t *doc;
    unsigned char *used;        /* by node id - 1 */
    size_t nnodes;
    jt_topo_parse_t *p;
};

static int line_of (const yaml_node_t *n)
{
    return (int) n->start_mark.line + 1;
}

static int col_of (const yaml_node_t *n)
{
    return (int) n->start_mark.column + 1;
}

/* The node of id, once: NULL (said at path) when an alias uses it again. */
static yaml_node_t *use (struct walk *w, int id, const char *path)
{
    yaml_node_t *n = yaml_document_get_node (w->doc, id);

    if (!n)
        return NULL;
    if (w->used[id - 1]) {
        jt_diags_add (w->p->diags, w->p->file, line_of (n), col_of (n), path,
                      "a node used twice (an alias) is not read here");
        w->p->errors++;
        return NULL;
    }
    w->used[id - 1] = 1;
    return n;
}

static bool is_scalar (const yaml_node_t *n, const char *s)
{
    return n && n->type == YAML_SCALAR_NODE
           && n->data.scalar.length == strlen (s)
           && memcmp (n->data.scalar.value, s, n->data.scalar.length) == 0;
}

/* The value of key in map (not yet used), its id; 0 when none. */
static int map_get (struct walk *w, const yaml_node_t *map, const char *key)
{
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start;
         pr < map->data.mapping.pairs.top; pr++)
        if (is_scalar (yaml_document_get_node (w->doc, pr->key), key))
            return pr->value;
    return 0;
}

/* A scalar, or a sequence of scalars joined by commas, into *s (malloc'd,
 * *len bytes); 0, or -1 (said at path; out of memory counted too). */
static int text_of (struct walk *w, yaml_node_t *n, const char *path, char **s,
                    size_t *len)
{
    size_t l = 0;

    *s = NULL;
    *len = 0;
    if (n->type == YAML_SCALAR_NODE)
        l = n->data.scalar.length;
    else if (n->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++) {
            yaml_node_t *x = use (w, *it, path);
            if (!x)
                return -1;
            if (x->type != YAML_SCALAR_NODE) {
                jt_diags_add (w->p->diags, w->p->file, line_of (x), col_of (x), path,
                              "a name or host list, not a %s",
                              x->type == YAML_MAPPING_NODE ? "mapping" : "sequence");
                w->p->errors++;
                return -1;
            }
            l += x->data.scalar.length + 1;
        }
    } else {
        jt_diags_add (w->p->diags, w->p->file, line_of (n), col_of (n), path,
                      "a host list or a sequence of them, not a mapping");
        w->p->errors++;
        return -1;
    }
    if (l > JT_TOPOCONF_VALUE_MAX) {
        jt_diags_add (w->p->diags, w->p->file, line_of (n), col_of (n), path,
                      "a value of %zu bytes, more than %d", l, JT_TOPOCONF_VALUE_MAX);
        w->p->errors++;
        return -1;
    }
    if (!(*s = malloc (l + 1))) {
        w->p->errors++;
        jt_diags_add (w->p->diags, w->p->file, 0, 0, NULL, "out of memory");
        return -1;
    }
    if (n->type == YAML_SCALAR_NODE) {
        memcpy (*s, n->data.scalar.value, l);
        *len = l;
    } else {
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++) {
            yaml_node_t *x = yaml_document_get_node (w->doc, *it);
            if (*len)
                (*s)[(*len)++] = ',';
            memcpy (*s + *len, x->data.scalar.value, x->data.scalar.length);
            *len += x->data.scalar.length;
        }
    }
    (*s)[*len] = '\0';
    return 0;
}

/* A sequence of mappings at id (path), or NULL (said). */
static yaml_node_t *seq_of_maps (struct walk *w, int id, const char *path)
{
    yaml_node_t *n = id ? use (w, id, path) : NULL;

    if (!id || !n)
        return NULL;
    if (n->type != YAML_SEQUENCE_NODE) {
        jt_diags_add (w->p->diags, w->p->file, line_of (n), col_of (n), path,
                      "a sequence, not a %s", n->type == YAML_MAPPING_NODE
                      ? "mapping" : "scalar");
        w->p->errors++;
        return NULL;
    }
    return n;
}

/* The records of a tree's switches or a block's blocks (key "switch" or
 * "block", children only for a tree). */
static int read_units (struct walk *w, yaml_node_t *seq, const char *list,
                       const char *key, bool tree)
{
    size_t i = 0;

    for (yaml_node_item_t *it = seq->data.sequence.items.start;
         it < seq->data.sequence.items.top; it++, i++) {
        char path[96], *name = NULL, *nodes = NULL, *ch = NULL;
        size_t nlen = 0, ndlen = 0, chlen = 0;
        yaml_node_t *m, *x;
        int id, chcol = 0, rc = 0;

        snprintf (path, sizeof (path), "%s[%zu]", list, i);
        if (!(m = use (w, *it, path)))
            continue;
        if (m->type != YAML_MAPPING_NODE) {
            jt_diags_add (w->p->diags, w->p->file, line_of (m), col_of (m), path,
                          "a mapping with %s, not a %s", key,
                          m->type == YAML_SCALAR_NODE ? "scalar" : "sequence");
            w->p->errors++;
            continue;
        }
        snprintf (path, sizeof (path), "%s[%zu].%s", list, i, key);
        if (!(id = map_get (w, m, key)) || !(x = use (w, id, path))
            || x->type != YAML_SCALAR_NODE || x->data.scalar.length == 0) {
            jt_diags_add (w->p->diags, w->p->file, line_of (m), col_of (m), path,
                          "a %s without a name", key);
            w->p->errors++;
            continue;
        }
        if (text_of (w, x, path, &name, &nlen) < 0)
            continue;
        snprintf (path, sizeof (path), "%s[%zu].nodes", list, i);
        if ((id = map_get (w, m, "nodes")) && (x = use (w, id, path)))
            rc = text_of (w, x, path, &nodes, &ndlen);
        snprintf (path, sizeof (path), "%s[%zu].children", list, i);
        if (rc == 0 && tree && (id = map_get (w, m, "children")) && (x = use (w, id, path))) {
            chcol = col_of (x);
            rc = text_of (w, x, path, &ch, &chlen);
        }
        if (rc == 0 && w->p->n >= JT_TOPOCONF_LEAVES_MAX) {
            jt_diags_add (w->p->diags, w->p->file, line_of (m), col_of (m), NULL,
                          "more than %d records", JT_TOPOCONF_LEAVES_MAX);
            w->p->errors++;
            rc = -1;
        }
        if (rc == 0 && jt_topo_add_rec (w->p, name, nlen, nodes, ndlen, ch, chlen,
                                        line_of (m), col_of (m), chcol) < 0) {
            jt_diags_add (w->p->diags, w->p->file, 0, 0, NULL, "out of memory");
            w->p->errors++;
        }
        free (name);
        free (nodes);
        free (ch);
        if (rc < 0 && !w->p->errors)
            w->p->errors++;
    }
    return 0;
}

/* block_sizes: a sequence of numbers (or one scalar "4,8"). */
static void read_sizes (struct walk *w, int id)
{
    const char *path = "block.block_sizes";
    yaml_node_t *n = use (w, id, path);

    if (!n || jt_topo_sizes_start (w->p, line_of (n), col_of (n)) < 0)
        return;
    if (n->type == YAML_SCALAR_NODE) {
        const char *q = (const char *) n->data.scalar.value;
        const char *end = q + n->data.scalar.length;
        for (;;) {
            const char *c = memchr (q, ',', (size_t) (end - q));
            jt_topo_size_add (w->p, q, (size_t) ((c ? c : end) - q), line_of (n),
                              col_of (n));
            if (!c)
                break;
            q = c + 1;
        }
        return;
    }
    if (n->type != YAML_SEQUENCE_NODE) {
        jt_diags_add (w->p->diags, w->p->file, line_of (n), col_of (n), path,
                      "a sequence of numbers, not a mapping");
        w->p->errors++;
        return;
    }
    for (yaml_node_item_t *it = n->data.sequence.items.start;
         it < n->data.sequence.items.top; it++) {
        yaml_node_t *x = use (w, *it, path);
        if (!x)
            return;
        if (x->type != YAML_SCALAR_NODE) {
            jt_diags_add (w->p->diags, w->p->file, line_of (x), col_of (x), path,
                          "a number of nodes, not a %s", x->type == YAML_MAPPING_NODE
                          ? "mapping" : "sequence");
            w->p->errors++;
            continue;
        }
        jt_topo_size_add (w->p, (const char *) x->data.scalar.value,
                          x->data.scalar.length, line_of (x), col_of (x));
    }
}

static bool truthy (const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE
           && (is_scalar (n, "true") || is_scalar (n, "True") || is_scalar (n, "TRUE")
               || is_scalar (n, "yes") || is_scalar (n, "1"));
}

/* The cluster default's item (Slurm sorts it first: topology.c@26.05.3:
 * 220-241), else the first; every item must name its topology. NULL: no
 * item (or said). */
static yaml_node_t *default_item (struct walk *w, yaml_node_t *root)
{
    yaml_node_t *first = NULL, *def = NULL;
    size_t i = 0;

    for (yaml_node_item_t *it = root->data.sequence.items.start;
         it < root->data.sequence.items.top; it++, i++) {
        yaml_node_t *m = yaml_document_get_node (w->doc, *it);
        char path[32];
        int id;

        snprintf (path, sizeof (path), "[%zu].topology", i);
        if (!m || m->type != YAML_MAPPING_NODE || !(id = map_get (w, m, "topology"))
            || yaml_document_get_node (w->doc, id)->type != YAML_SCALAR_NODE) {
            jt_diags_add (w->p->diags, w->p->file, m ? line_of (m) : 0,
                          m ? col_of (m) : 0, path, "an item without its topology's "
                          "name");
            w->p->errors++;
            continue;
        }
        if (!first)
            first = m;
        if (!def && truthy (yaml_document_get_node (w->doc, map_get (w, m,
                                                                      "cluster_default"))))
            def = m;
    }
    return w->p->errors ? NULL : def ? def : first;
}

int jt_topoyaml_read (const char *file, const char *text, size_t len,
                      const jt_topo_hosts_t *hosts, jt_topo_kind_t *kind,
                      jt_topo_leaves_t *out, jt_diags_t *diags)
{
    jt_topo_parse_t p = { .file = file, .diags = diags, .hosts = hosts,
                          .k_nodes = "nodes", .k_sizes = "block.block_sizes" };
    struct walk w = { NULL, NULL, 0, &p };
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_node_t *root, *item, *body = NULL;
    int id, rc = 1;

    memset (out, 0, sizeof (*out));
    if (len > JT_TOPOCONF_MAX) {
        jt_diags_add (diags, file, 0, 0, NULL, "%zu bytes, more than the %d a "
                      "topology.yaml may have here", len, JT_TOPOCONF_MAX);
        return -1;
    }
    if (!yaml_parser_initialize (&parser)) {
        jt_diags_add (diags, file, 0, 0, NULL, "out of memory");
        return -1;
    }
    yaml_parser_set_input_string (&parser, (const unsigned char *) text, len);
    if (!yaml_parser_load (&parser, &doc)) {
        jt_diags_add (diags, file, (int) parser.problem_mark.line + 1,
                      (int) parser.problem_mark.column + 1, NULL, "YAML: %s%s%s",
                      parser.problem ? parser.problem : "not YAML",
                      parser.context ? " " : "", parser.context ? parser.context : "");
        yaml_parser_delete (&parser);
        return -1;
    }
    yaml_parser_delete (&parser);
    w.doc = &doc;
    w.nnodes = (size_t) (doc.nodes.top - doc.nodes.start);
    if (!(w.used = calloc (w.nnodes ? w.nnodes : 1, 1))) {
        jt_diags_add (diags, file, 0, 0, NULL, "out of memory");
        yaml_document_delete (&doc);
        return -1;
    }
    if (!(root = yaml_document_get_root_node (&doc)))
        goto done;              /* an empty file: no topology */
    if (root->type != YAML_SEQUENCE_NODE) {
        jt_diags_add (diags, file, line_of (root), col_of (root), NULL,
                      "a sequence of topologies (topology.yaml(5))");
        p.errors++;
        goto done;
    }
    if (!(item = default_item (&w, root)))
        goto done;
    if ((id = map_get (&w, item, "tree"))) {
        *kind = JT_TOPO_TREE;
        p.k_name = "switch";
        p.k_children = "tree.switches.children";
        rc = 0;
        if ((body = use (&w, id, "tree")) && body->type != YAML_MAPPING_NODE) {
            jt_diags_add (diags, file, line_of (body), col_of (body), "tree",
                          "a mapping with switches");
            p.errors++;
        } else if (body && (body = seq_of_maps (&w, map_get (&w, body, "switches"),
                                                "tree.switches")))
            read_units (&w, body, "tree.switches", "switch", true);
    } else if ((id = map_get (&w, item, "block"))) {
        *kind = JT_TOPO_BLOCK;
        p.k_name = "block";
        p.k_children = "block.blocks";
        rc = 0;
        if ((body = use (&w, id, "block")) && body->type != YAML_MAPPING_NODE) {
            jt_diags_add (diags, file, line_of (body), col_of (body), "block",
                          "a mapping with blocks and block_sizes");
            p.errors++;
        } else if (body) {
            int sz = map_get (&w, body, "block_sizes");
            yaml_node_t *blocks = seq_of_maps (&w, map_get (&w, body, "blocks"),
                                               "block.blocks");
            if (sz)
                read_sizes (&w, sz);
            if (blocks)
                read_units (&w, blocks, "block.blocks", "block", false);
        }
    }
done:
    free (w.used);
    yaml_document_delete (&doc);
    if (rc == 0)
        return jt_topo_finish (&p, *kind, out);
    if (p.errors) {
        for (size_t i = 0; i < p.n; i++)
            free (p.r[i].name), free (p.r[i].nodes), free (p.r[i].switches);
        free (p.r);
        return -1;
    }
    return 1;
}

#else /* !HAVE_LIBYAML */

bool jt_topoyaml_available (void)
{
    return false;
}

int jt_topoyaml_read (const char *file, const char *text, size_t len,
                      const jt_topo_hosts_t *hosts, jt_topo_kind_t *kind,
                      jt_topo_leaves_t *out, jt_diags_t *diags)
{
    (void) text;
    (void) len;
    (void) hosts;
    (void) kind;
    memset (out, 0, sizeof (*out));
    jt_diags_add (diags, file, 0, 0, NULL, "jobtree was built without libyaml: "
                  "topology.yaml is not read");
    return -1;
}

#endif /* HAVE_LIBYAML */
