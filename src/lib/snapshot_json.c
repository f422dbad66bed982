/*
 * snapshot_json.c - the JSON side of snapshots: jt_snapshot_parse_json,
 * jt_snapshot_load_file and jt_snapshot_to_json. The model itself (nodes,
 * domains, leases, finalize) is snapshot.c; this file only builds a
 * snapshot through its public functions.
 *
 * Node states accept jobtree's words (up, down, drain) and Slurm's
 * (idle, mixed, allocated, completing, down, fail, drained, ..., with
 * Slurm's flag suffixes such as "idle*" or "mixed+drain"), any case.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobtree/snapshot.h"
#include "jobtree/timeutil.h"
#include "util/jsonutil.h"

#define NODE_GPUS_MAX (1 << 20)

static const char *const top_keys[] = { "time", "levels", "blockNodes",
                                        "nodes", "leases", NULL };
static const char *const node_keys[] = {
    "name", "flavor", "gpus", "usedGPUs", "state", "labels", NULL
};
static const char *const lease_keys[] = {
    "run", "group", "owner", "envelope", "nodes", "gpus", "role", "start", "end",
    "minGPUs", NULL
};

/* Map one state word; -1 if unknown. */
static int state_word (const char *w, size_t len, jt_node_state_t *out)
{
    static const struct { const char *w; jt_node_state_t st; } words[] = {
        { "up", JT_NODE_UP }, { "idle", JT_NODE_UP }, { "mixed", JT_NODE_UP },
        { "mix", JT_NODE_UP }, { "allocated", JT_NODE_UP }, { "alloc", JT_NODE_UP },
        { "completing", JT_NODE_UP }, { "comp", JT_NODE_UP },
        { "down", JT_NODE_DOWN }, { "fail", JT_NODE_DOWN },
        { "failing", JT_NODE_DOWN }, { "unknown", JT_NODE_DOWN },
        { "unk", JT_NODE_DOWN }, { "not_responding", JT_NODE_DOWN },
        { "drain", JT_NODE_DRAIN }, { "draining", JT_NODE_DRAIN },
        { "drained", JT_NODE_DRAIN }, { "drng", JT_NODE_DRAIN },
    };
    for (size_t i = 0; i < sizeof (words) / sizeof (words[0]); i++)
        if (strlen (words[i].w) == len && !strncasecmp (w, words[i].w, len)) {
            *out = words[i].st;
            return 0;
        }
    return -1;
}

/* "IDLE+DRAIN", "mixed*", "down~": the base word, then flags after '+';
 * any drain flag drains the node. Returns 0 or -1. */
static int parse_state (const char *s, jt_node_state_t *out)
{
    jt_node_state_t st = JT_NODE_UP, f;
    const char *p = s;
    bool first = true;

    while (*p) {
        size_t len = strcspn (p, "+");
        size_t w = len;
        /* Slurm appends one-character flags: * ~ # ! % $ @ ^ - */
        while (w > 0 && strchr ("*~#!%$@^-", p[w - 1]))
            w--;
        if (w == 0 || state_word (p, w, &f) < 0)
            return -1;
        if (first)
            st = f;
        else if (f == JT_NODE_DRAIN || (f == JT_NODE_DOWN && st == JT_NODE_UP))
            st = f;
        first = false;
        p += len;
        if (*p == '+')
            p++;
    }
    if (first)
        return -1;
    *out = st;
    return 0;
}

struct nref {
    const char *name;
    size_t idx;
};

static int nref_cmp (const void *a, const void *b)
{
    const struct nref *x = a, *y = b;
    int c = strcmp (x->name, y->name);
    return c ? c : (x->idx < y->idx ? -1 : x->idx > y->idx);
}

static void read_node (jt_jdoc_t *d, jt_snapshot_t *s, json_object *o,
                       const char *path)
{
    const char *name = NULL, *flavor = NULL, *state = "up";
    int64_t gpus = 0, used = 0;
    jt_labels_t labels = JT_LABELS_INIT;
    jt_node_state_t st = JT_NODE_UP;
    json_object *lo;
    char p[JT_JSON_PATH_MAX], lp[JT_JSON_PATH_MAX];
    int errors = d->errors;
    jt_error_t err;

    if (jt_jdoc_object_value (d, o, path, node_keys) < 0)
        return;
    jt_jdoc_get_name (d, o, path, "name", true, &name);
    jt_jdoc_get_string (d, o, path, "flavor", false, &flavor);
    int has_gpus = jt_jdoc_get_int (d, o, path, "gpus", false, 0, NODE_GPUS_MAX, &gpus);
    if (jt_jdoc_get_int (d, o, path, "usedGPUs", false, 0, NODE_GPUS_MAX, &used) > 0
        && has_gpus >= 0 && used > gpus)
        jt_jdoc_error (d, jt_json_path_key (p, sizeof (p), path, "usedGPUs"),
                       "usedGPUs=%lld exceeds gpus=%lld", (long long) used,
                       (long long) gpus);
    if (jt_jdoc_get_string (d, o, path, "state", false, &state) > 0
        && parse_state (state, &st) < 0)
        jt_jdoc_error (d, jt_json_path_key (p, sizeof (p), path, "state"),
                       "unknown node state '%s': use up, down or drain (or Slurm's "
                       "idle, mixed, allocated, drained, ...)", state);
    if (jt_jdoc_get_container (d, o, path, "labels", false, json_type_object,
                               &lo) > 0) {
        jt_json_path_key (lp, sizeof (lp), path, "labels");
        json_object_object_foreach (lo, key, val) {
            const char *v;
            jt_json_path_key (p, sizeof (p), lp, key);
            if (!*key)
                jt_jdoc_error (d, p, "label key must not be empty");
            else if (jt_jdoc_string_value (d, val, p, &v) > 0
                     && jt_labels_set (&labels, key, v) < 0)
                jt_jdoc_error (d, p, "out of memory");
        }
    }
    const char *lf = jt_labels_get (&labels, JT_LABEL_FLAVOR);
    if (flavor && lf && strcmp (flavor, lf))
        jt_jdoc_error (d, jt_json_path_key (p, sizeof (p), path, "flavor"),
                       "flavor '%s' contradicts label %s=%s", flavor,
                       JT_LABEL_FLAVOR, lf);
    if (!flavor)
        flavor = lf;
    if (d->errors == errors
        && jt_snapshot_add_node (s, name, &labels, flavor, (int) gpus, (int) used, st,
                                 &err) < 0)
        jt_jdoc_error (d, path, "%s", err.text);
    jt_labels_free (&labels);
}

static void read_lease (jt_jdoc_t *d, jt_snapshot_t *s, json_object *o,
                        const char *path, bool nodes_ok)
{
    jt_lease_t l;
    const char *role = "Active", *run = NULL, *owner = NULL, *env = NULL;
    int64_t group = 0, capacity = 0;
    json_object *arr;
    char p[JT_JSON_PATH_MAX], np[JT_JSON_PATH_MAX];
    int errors = d->errors;
    jt_error_t err;

    memset (&l, 0, sizeof (l));
    if (jt_jdoc_object_value (d, o, path, lease_keys) < 0)
        return;
    jt_jdoc_get_string (d, o, path, "run", true, &run);
    jt_jdoc_get_int (d, o, path, "group", false, 0, NODE_GPUS_MAX, &group);
    jt_jdoc_get_string (d, o, path, "owner", true, &owner);
    jt_jdoc_get_string (d, o, path, "envelope", true, &env);
    jt_jdoc_get_int (d, o, path, "gpus", true, 0, JT_JSON_INT_MAX, &l.gpus);
    if (jt_jdoc_get_string (d, o, path, "role", false, &role) > 0) {
        bool found = false;
        for (int i = JT_ROLE_ACTIVE; i <= JT_ROLE_BORROWED; i++)
            if (!strcasecmp (role, jt_role_str ((jt_role_t) i))) {
                found = true;
                l.role = (jt_role_t) i;
            }
        if (!found)
            jt_jdoc_error (d, jt_json_path_key (p, sizeof (p), path, "role"),
                           "unknown role '%s': use Active, Spare or Borrowed", role);
    }
    jt_jdoc_get_int (d, o, path, "minGPUs", false, 0, JT_JSON_INT_MAX, &l.min_gpus);
    jt_jdoc_get_time (d, o, path, "start", false, &l.start);
    if (jt_jdoc_get_time (d, o, path, "end", false, &l.end) > 0 && l.end < l.start)
        jt_jdoc_error (d, jt_json_path_key (p, sizeof (p), path, "end"),
                       "end is before start: a lease's expected end is its start"
                       " plus its time limit");
    if (jt_jdoc_get_container (d, o, path, "nodes", true, json_type_array, &arr) > 0) {
        size_t n = json_object_array_length (arr);
        jt_json_path_key (np, sizeof (np), path, "nodes");
        if (n == 0)
            jt_jdoc_error (d, np, "a lease needs at least one node");
        if (n && !(l.nodes = calloc (n, sizeof (char *))))
            jt_jdoc_error (d, np, "out of memory");
        for (size_t i = 0; l.nodes && i < n; i++) {
            const char *nm;
            jt_json_path_idx (p, sizeof (p), np, i);
            if (jt_jdoc_string_value (d, json_object_array_get_idx (arr, i), p, &nm) <= 0)
                continue;
            ssize_t ni = nodes_ok ? jt_snapshot_node_index (s, nm) : -1;
            if (nodes_ok && ni < 0)
                jt_jdoc_error (d, p, "unknown node '%s': no node of the snapshot has "
                               "that name", nm);
            for (size_t k = 0; k < l.nnodes; k++)
                if (!strcmp (l.nodes[k], nm))
                    jt_jdoc_error (d, p, "node '%s' is listed twice", nm);
            if (ni >= 0)
                capacity += s->nodes[ni].gpus;
            l.nodes[l.nnodes++] = (char *) nm;
        }
        if (nodes_ok && d->errors == errors && l.gpus > capacity)
            jt_jdoc_error (d, jt_json_path_key (p, sizeof (p), path, "gpus"),
                           "gpus=%lld exceeds the %lld GPUs of the lease's nodes",
                           (long long) l.gpus, (long long) capacity);
    }
    l.run = (char *) run;
    l.owner = (char *) owner;
    l.envelope = (char *) env;
    l.group = (int) group;
    if (d->errors == errors && jt_snapshot_add_lease (s, &l, &err) < 0)
        jt_jdoc_error (d, path, "%s", err.text);
    free (l.nodes);     /* the strings belong to the json-c tree */
}

/* Duplicate node names, reported at the second one with the first's place. */
static void check_duplicates (jt_jdoc_t *d, json_object *nodes)
{
    size_t n = json_object_array_length (nodes), k = 0;
    struct nref *v = calloc (n + 1, sizeof (*v));
    char p[JT_JSON_PATH_MAX];

    if (!v) {
        jt_jdoc_error (d, "nodes", "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *nm;
        if (json_object_object_get_ex (json_object_array_get_idx (nodes, i), "name",
                                       &nm)
            && json_object_is_type (nm, json_type_string))
            v[k++] = (struct nref){ json_object_get_string (nm), i };
    }
    qsort (v, k, sizeof (*v), nref_cmp);
    for (size_t i = 1; i < k; i++) {
        if (strcmp (v[i].name, v[i - 1].name))
            continue;
        size_t f = i - 1;
        int line, col;
        while (f > 0 && !strcmp (v[f - 1].name, v[i].name))
            f--;
        snprintf (p, sizeof (p), "nodes[%zu].name", v[f].idx);
        jt_json_locate (d->text, d->len, p, &line, &col);
        snprintf (p, sizeof (p), "nodes[%zu].name", v[i].idx);
        jt_jdoc_error (d, p, "duplicate node name '%s' (first defined at line %d)",
                       v[i].name, line);
    }
    free (v);
}

/* "levels": the label keys of the fabric above the domain, lowest first. */
static void read_levels (jt_jdoc_t *d, jt_snapshot_t *s, json_object *root)
{
    json_object *arr = NULL;
    const char *keys[JT_LEVELS_MAX];
    size_t n;
    jt_error_t err;

    if (jt_jdoc_get_container (d, root, "", "levels", false, json_type_array,
                               &arr) <= 0)
        return;
    n = json_object_array_length (arr);
    if (n > JT_LEVELS_MAX) {
        jt_jdoc_error (d, "levels", "%zu levels: at most %d", n, JT_LEVELS_MAX);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *k = json_object_array_get_idx (arr, i);
        if (!json_object_is_type (k, json_type_string)) {
            char p[JT_JSON_PATH_MAX];
            jt_jdoc_error (d, jt_json_path_idx (p, sizeof (p), "levels", i),
                           "a level is a label key string, got %s",
                           jt_json_type_phrase (k));
            return;
        }
        keys[i] = json_object_get_string (k);
    }
    if (jt_snapshot_set_levels (s, keys, n, &err) < 0)
        jt_jdoc_error (d, "levels", "%s", err.text);
}

/* "blockNodes": topology/block's nominal sizes, in nodes: a base block
 * (the domain), then a block of each level (jt_snapshot_set_block_nodes). */
static void read_block_nodes (jt_jdoc_t *d, jt_snapshot_t *s, json_object *root)
{
    json_object *arr = NULL;
    uint32_t nodes[JT_LEVELS_MAX + 1];
    size_t n;
    jt_error_t err;

    if (jt_jdoc_get_container (d, root, "", "blockNodes", false, json_type_array,
                               &arr) <= 0)
        return;
    n = json_object_array_length (arr);
    if (n > JT_LEVELS_MAX + 1) {
        jt_jdoc_error (d, "blockNodes", "%zu sizes: at most %d", n,
                       JT_LEVELS_MAX + 1);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char p[JT_JSON_PATH_MAX];
        int64_t v;
        if (jt_jdoc_int_value (d, json_object_array_get_idx (arr, i),
                               jt_json_path_idx (p, sizeof (p), "blockNodes", i),
                               1, 1 << 20, &v) < 0)
            return;
        nodes[i] = (uint32_t) v;
    }
    if (jt_snapshot_set_block_nodes (s, nodes, n, &err) < 0)
        jt_jdoc_error (d, "blockNodes", "%s", err.text);
}

/* Finalized snapshot, or NULL with every problem in diags. */
jt_snapshot_t *jt_snapshot_parse_json (const char *file, const char *text,
                                       size_t len, jt_diags_t *diags)
{
    jt_jdoc_t d;
    json_object *root, *nodes = NULL, *leases = NULL;
    jt_snapshot_t *s = NULL;
    size_t first = diags ? diags->n : 0;
    char p[JT_JSON_PATH_MAX];
    jt_error_t err;

    jt_jdoc_init (&d, file, text, len, diags);
    if (!(root = jt_jdoc_parse (&d)))
        return NULL;
    if (!(s = jt_snapshot_create ())) {
        jt_jdoc_error (&d, "", "out of memory");
        goto done;
    }
    if (!json_object_is_type (root, json_type_object)) {
        jt_jdoc_error (&d, "", "a snapshot must be a JSON object, got %s",
                       jt_json_type_phrase (root));
        goto done;
    }
    jt_jdoc_check_keys (&d, root, "", top_keys);
    jt_jdoc_get_time (&d, root, "", "time", false, &s->time);
    read_levels (&d, s, root);
    read_block_nodes (&d, s, root);
    if (jt_jdoc_get_container (&d, root, "", "nodes", true, json_type_array,
                               &nodes) > 0) {
        for (size_t i = 0; i < json_object_array_length (nodes); i++)
            read_node (&d, s, json_object_array_get_idx (nodes, i),
                       jt_json_path_idx (p, sizeof (p), "nodes", i));
        check_duplicates (&d, nodes);
    }
    bool nodes_ok = d.errors == 0;
    if (nodes_ok && jt_snapshot_finalize (s, &err) < 0) {
        jt_jdoc_error (&d, "nodes", "%s", err.text);
        nodes_ok = false;
    }
    if (jt_jdoc_get_container (&d, root, "", "leases", false, json_type_array,
                               &leases) > 0)
        for (size_t i = 0; i < json_object_array_length (leases); i++)
            read_lease (&d, s, json_object_array_get_idx (leases, i),
                        jt_json_path_idx (p, sizeof (p), "leases", i), nodes_ok);
done:
    jt_jdoc_sort (&d, first);
    json_object_put (root);
    if (d.errors) {
        jt_snapshot_destroy (s);
        return NULL;
    }
    return s;
}

/* Finalized snapshot, or NULL with every problem in diags. */
jt_snapshot_t *jt_snapshot_load_file (const char *path, jt_diags_t *diags)
{
    size_t len;
    char *buf = jt_json_read_file (path, &len, diags);
    jt_snapshot_t *s;

    if (!buf)
        return NULL;
    s = jt_snapshot_parse_json (path, buf, len, diags);
    free (buf);
    return s;
}

static json_object *str_or_null (const char *s)
{
    return s ? json_object_new_string (s) : NULL;
}

/* Canonical text: nodes in the snapshot's order (sorted by name once
 * finalized), labels sorted by key, fixed key order, time as RFC 3339. */
char *jt_snapshot_to_json (const jt_snapshot_t *s)
{
    json_object *o = json_object_new_object (), *arr;
    char t[32];
    char *out;

    if (!o)
        return NULL;
    if (s->time) {
        jt_time_format (s->time, t, sizeof (t));
        json_object_object_add (o, "time", json_object_new_string (t));
    }
    if (s->nlevels) {
        arr = json_object_new_array ();
        for (size_t l = 0; l < s->nlevels; l++)
            json_object_array_add (arr, json_object_new_string (s->levels[l]));
        json_object_object_add (o, "levels", arr);
    }
    if (s->block_nodes[0]) {
        arr = json_object_new_array ();
        for (size_t l = 0; l <= JT_LEVELS_MAX && s->block_nodes[l]; l++)
            json_object_array_add (arr, json_object_new_int64 (s->block_nodes[l]));
        json_object_object_add (o, "blockNodes", arr);
    }
    arr = json_object_new_array ();
    for (size_t i = 0; i < s->nnodes; i++) {
        const jt_node_t *n = &s->nodes[i];
        json_object *x = json_object_new_object (), *l = json_object_new_object ();
        json_object_object_add (x, "name", json_object_new_string (n->name));
        if (n->flavor)
            json_object_object_add (x, "flavor", json_object_new_string (n->flavor));
        json_object_object_add (x, "gpus", json_object_new_int (n->gpus));
        json_object_object_add (x, "usedGPUs", json_object_new_int (n->used_gpus));
        json_object_object_add (x, "state",
                                json_object_new_string (jt_node_state_str (n->state)));
        for (size_t k = 0; k < n->labels.n; k++)
            json_object_object_add (l, n->labels.v[k].key,
                                    json_object_new_string (n->labels.v[k].value));
        json_object_object_add (x, "labels", l);
        json_object_array_add (arr, x);
    }
    json_object_object_add (o, "nodes", arr);
    if (s->nleases) {
        arr = json_object_new_array ();
        for (size_t i = 0; i < s->nleases; i++) {
            const jt_lease_t *l = &s->leases[i];
            json_object *x = json_object_new_object (), *nodes = json_object_new_array ();
            json_object_object_add (x, "run", json_object_new_string (l->run));
            json_object_object_add (x, "group", json_object_new_int (l->group));
            if (l->owner)
                json_object_object_add (x, "owner", str_or_null (l->owner));
            if (l->envelope)
                json_object_object_add (x, "envelope", str_or_null (l->envelope));
            for (size_t k = 0; k < l->nnodes; k++)
                json_object_array_add (nodes, json_object_new_string (l->nodes[k]));
            json_object_object_add (x, "nodes", nodes);
            json_object_object_add (x, "gpus", json_object_new_int64 (l->gpus));
            json_object_object_add (x, "role",
                                    json_object_new_string (jt_role_str (l->role)));
            if (l->min_gpus > 0)
                json_object_object_add (x, "minGPUs", json_object_new_int64 (l->min_gpus));
            jt_time_format (l->start, t, sizeof (t));
            json_object_object_add (x, "start", json_object_new_string (t));
            if (l->end) {
                jt_time_format (l->end, t, sizeof (t));
                json_object_object_add (x, "end", json_object_new_string (t));
            }
            json_object_array_add (arr, x);
        }
        json_object_object_add (o, "leases", arr);
    }
    out = jt_json_dump (o);
    json_object_put (o);
    return out;
}
