/*
 * cmd_snapshot.c - `jobtree snapshot`: read a live cluster through libslurm
 * into the snapshot format of `jobtree plan`, so an admin can ask "what
 * would happen if" with the same library code slurmctld's select plugin
 * runs (see jobtree-snapshot(1)).
 *
 * It only reads Slurm's node, topology and job messages; what a node is
 * in the snapshot (labels, domain or leaf-switch fallback, flavor, GPUs,
 * used GPUs, state) and what a bound group is as a lease is decided by
 * libjobtree's nodemap (jobtree/nodemap.h), the same code the select
 * plugin (plugins/select/topology.c) calls inside slurmctld.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "jobtree/conf.h"
#include "jobtree/nodemap.h"
#include "jobtree/snapshot.h"

#ifdef HAVE_LIBSLURM
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "jobtree/readfile.h"
#include "jobtree/record.h"
#include "jobtree/topoconf.h"

/* The host list handle, a pointer on every release: hostlist_t is itself
 * a pointer in 22.05 and the struct since 23.02, so the type is taken from
 * what slurm_hostlist_create returns. errno is Slurm's errno on every
 * release (slurm_get_errno() returned it in 22.05 and is gone since). */
typedef __typeof__ (slurm_hostlist_create (NULL)) jt_hostlist_p;
/* The free of slurm_load_ctl_conf's answer was renamed in 25.05 (configure
 * looks for the new name). */
#ifndef HAVE_SLURM_FREE_CONF
#define slurm_free_conf slurm_free_ctl_conf
#endif
#endif

static void snapshot_usage (FILE *f)
{
    fprintf (f,
             "Usage: jobtree snapshot [-o FILE] [--domain-feature KEY]"
             " [--levels L1,L2]\n"
             "\n"
             "Read the cluster of $SLURM_CONF (nodes, features, GRES,"
             " allocations,\nrunning Jobtree runs and who pays for them) into"
             " a snapshot for\n`jobtree plan --snapshot`.\n"
             "\n"
             "  -o, --output FILE        write the snapshot here (default:"
             " stdout)\n"
             "  -d, --domain-feature KEY node feature naming the fast-fabric"
             " domain\n"
             "                           (default fabric.domain, as"
             " DomainFeature in\n"
             "                           jobtree.conf)\n"
             "  -l, --levels L1,L2       the fabric levels above the domain,"
             " lowest\n"
             "                           first (labels fabric.L1, ...; as"
             " FabricLevels\n"
             "                           in jobtree.conf; default none)\n"
             "  -h, --help               show this help\n"
             "\nExit status: 0 written, 1 Slurm could not be read, 2 usage or"
             " system error.\n");
}

#ifdef HAVE_LIBSLURM

/* A node name and its position in node_info_msg_t, sorted by name. */
struct named {
    const char *name;
    uint32_t i;
};

static int by_name (const void *a, const void *b)
{
    return strcmp (((const struct named *) a)->name, ((const struct named *) b)->name);
}

/* Where each node is: its leaf (level 0) switch or base block, the first
 * listing it, NULL for none; above it, at level 1, 2, ..., the first
 * record of that level (in Slurm's order: the index in conf->up) over any
 * leaf listing it, as the plugin marks each record's node bitmap in turn
 * (plugins/common/compat*.h). */
struct where {
    const char **leaf;          /* by node position */
    long *up;                   /* [node * JT_LEVELS_MAX + level - 1], -1 */
};

/* Mark each host of leaf t's host list. */
static void mark_leaf (struct where *w, const struct named *v, uint32_t nn,
                       const jt_topo_leaf_t *t)
{
    jt_hostlist_p hl;
    const struct named *hit;
    char *host;

    if (!t->nodes || !(hl = slurm_hostlist_create (t->nodes)))
        return;
    while ((host = slurm_hostlist_shift (hl))) {
        struct named key = { host, 0 };
        if ((hit = bsearch (&key, v, nn, sizeof (*v), by_name))) {
            long *up = &w->up[(size_t) hit->i * JT_LEVELS_MAX];
            if (!w->leaf[hit->i])
                w->leaf[hit->i] = t->name;
            for (int k = 0; k < JT_LEVELS_MAX; k++)
                if (t->up[k] >= 0 && (up[k] < 0 || t->up[k] < up[k]))
                    up[k] = t->up[k];
        }
        free (host);
    }
    slurm_hostlist_destroy (hl);
}

/* Each node's place (by position in nodes) from topology.conf (conf): one
 * pass over the host lists with a binary search per host. -1 on out of
 * memory. */
static int where_nodes (struct where *w, const jt_topo_leaves_t *conf,
                        node_info_msg_t *nodes)
{
    uint32_t n = nodes->record_count, nn = 0;
    struct named *v = calloc (n ? n : 1, sizeof (*v));

    w->leaf = calloc (n ? n : 1, sizeof (*w->leaf));
    w->up = malloc ((n ? n : 1) * JT_LEVELS_MAX * sizeof (*w->up));
    if (!w->leaf || !w->up || !v) {
        free (v);
        return -1;
    }
    for (size_t i = 0; i < (size_t) (n ? n : 1) * JT_LEVELS_MAX; i++)
        w->up[i] = -1;
    for (uint32_t i = 0; i < n; i++)
        if (nodes->node_array[i].name)
            v[nn++] = (struct named) { nodes->node_array[i].name, i };
    qsort (v, nn, sizeof (*v), by_name);
    for (size_t t = 0; conf && t < conf->n; t++)
        mark_leaf (w, v, nn, &conf->v[t]);
    free (v);
    return 0;
}

/* Host lists through libslurm for the library (jt_topo_hosts_t). */
static int hosts_expand (void *arg, const char *expr, char ***v, size_t *n)
{
    jt_hostlist_p hl;
    size_t cap, k = 0;
    char *h;
    int cnt;

    (void) arg;
    if (!(hl = slurm_hostlist_create (expr)))
        return -1;
    cnt = slurm_hostlist_count (hl);
    cap = cnt > 0 ? (size_t) cnt : 1;
    if (!(*v = calloc (cap, sizeof (**v)))) {
        slurm_hostlist_destroy (hl);
        return -1;
    }
    while (k < cap && (h = slurm_hostlist_shift (hl))) {
        (*v)[k] = strdup (h);
        free (h);
        if (!(*v)[k]) {
            for (size_t i = 0; i < k; i++)
                free ((*v)[i]);
            free (*v);
            *v = NULL;
            slurm_hostlist_destroy (hl);
            return -1;
        }
        k++;
    }
    *n = k;
    slurm_hostlist_destroy (hl);
    return 0;
}

/* The ranged form of list through slurm_hostlist_ranged_string (on every
 * release; the _malloc one is gone in 26.05). NULL keeps the list. */
static char *hosts_ranged (void *arg, const char *list)
{
    size_t cap = strlen (list) + 64;
    jt_hostlist_p hl;
    char *out;

    (void) arg;
    if (!(out = malloc (cap)))
        return NULL;
    if (!(hl = slurm_hostlist_create (list))
        || slurm_hostlist_ranged_string (hl, cap, out) < 0) {
        free (out);
        out = NULL;
    }
    if (hl)
        slurm_hostlist_destroy (hl);
    return out;
}

static void say_diags (const jt_diags_t *d)
{
    for (size_t i = 0; i < d->n; i++) {
        char line[1024];
        jt_diag_format (&d->v[i], line, sizeof (line));
        fprintf (stderr, "jobtree snapshot: %s\n", line);
    }
}

/* Since 23.02 Slurm hands clients the switch records only as the topology
 * plugin's data, which a libslurm client cannot unpack without loading
 * that plugin (docs/slurm-24.11.md), so on every release the topology is
 * read from the files beside slurm.conf ($SLURM_CONF, else the
 * controller's path): since 25.05 topology.yaml when there is one (its
 * cluster default topology, whose records the select plugin reads; Slurm
 * then ignores topology.conf), else topology.conf for the TopologyPlugin
 * slurmctld runs (tree: the switches with nodes, and the switches above
 * them by level; block: base blocks, the aggregated blocks above them and
 * the sizes, as the select plugin takes them). No such plugin, or no
 * file, or a topology.yaml without libyaml: nothing, features alone name
 * domains and levels. 0, or -1 with the problem said. */
static int conf_leaves (jt_topo_leaves_t *out)
{
    slurm_conf_t *ctl = NULL;
    const char *env = getenv ("SLURM_CONF"), *base;
    char *path = NULL, *text = NULL, *slash, *file;
    jt_topo_hosts_t hosts = { hosts_expand, hosts_ranged, NULL };
    jt_topo_kind_t kind;
    jt_diags_t d;
    jt_error_t err;
    size_t len = 0;
    int rc = 0;

    memset (out, 0, sizeof (*out));
    jt_diags_init (&d);
    if (slurm_load_ctl_conf ((time_t) 0, &ctl) != 0 || !ctl)
        return 0;
    base = env && *env ? env : ctl->slurm_conf;
    if (!base)
        goto done;
    if (!(path = malloc (strlen (base) + sizeof ("topology.yaml")))) {
        rc = -1;
        fprintf (stderr, "jobtree snapshot: out of memory\n");
        goto done;
    }
    strcpy (path, base);
    slash = strrchr (path, '/');
    file = slash ? slash + 1 : path;
#ifdef HAVE_SLURM_TOPOLOGY_YAML     /* 25.05+: m4/x_ac_libslurm.m4 */
    strcpy (file, "topology.yaml");
    if (access (path, F_OK) == 0) {
        if (!jt_topoyaml_available ())
            fprintf (stderr, "jobtree snapshot: %s is not read (jobtree was built "
                     "without libyaml): domains and levels come from node features "
                     "only\n", path);
        else if (!(text = jt_read_file (path, &len, &err))) {
            fprintf (stderr, "jobtree snapshot: %s\n", err.text);
            rc = -1;
        } else if (jt_topoyaml_read (path, text, len, &hosts, &kind, out, &d) < 0) {
            say_diags (&d);
            rc = -1;
        }
        goto done;
    }
#endif
    if (ctl->topology_plugin && strstr (ctl->topology_plugin, "topology/tree"))
        kind = JT_TOPO_TREE;
    else if (ctl->topology_plugin && strstr (ctl->topology_plugin, "topology/block"))
        kind = JT_TOPO_BLOCK;
    else
        goto done;
    strcpy (file, "topology.conf");
    if (!(text = jt_read_file (path, &len, &err)))
        goto done;      /* none: features alone */
    if (jt_topoconf_read (path, text, len, kind, &hosts, out, &d) < 0) {
        say_diags (&d);
        rc = -1;
    }
done:
    jt_diags_free (&d);
    free (text);
    free (path);
    slurm_free_conf (ctl);
    return rc;
}

/* Slurm's node state word as the library's flags. */
static unsigned node_flags (uint32_t st)
{
    uint32_t base = st & NODE_STATE_BASE;

    return (base == NODE_STATE_DOWN ? JT_NODEMAP_DOWN : 0)
           | (base == NODE_STATE_UNKNOWN ? JT_NODEMAP_UNKNOWN : 0)
           | (base == NODE_STATE_FUTURE ? JT_NODEMAP_FUTURE : 0)
           | (base == NODE_STATE_ALLOCATED ? JT_NODEMAP_ALLOCATED : 0)
           | (base == NODE_STATE_MIXED ? JT_NODEMAP_MIXED : 0)
           | (st & NODE_STATE_FAIL ? JT_NODEMAP_FAIL : 0)
           | (st & NODE_STATE_NO_RESPOND ? JT_NODEMAP_NO_RESPOND : 0)
           | (st & NODE_STATE_POWERED_DOWN ? JT_NODEMAP_POWERED_DOWN : 0)
           | (st & NODE_STATE_DRAIN ? JT_NODEMAP_DRAIN : 0)
           | (st & NODE_STATE_COMPLETING ? JT_NODEMAP_COMPLETING : 0);
}

static int add_nodes (jt_snapshot_t *s, node_info_msg_t *nodes,
                      const jt_topo_leaves_t *conf,
                      const char *domain_key, jt_error_t *err)
{
    struct where w = { NULL, NULL };
    int rc = 0;

    if (where_nodes (&w, conf, nodes) < 0) {
        free (w.leaf);
        free (w.up);
        return jt_errprintf (err, "out of memory");
    }
    for (uint32_t i = 0; i < nodes->record_count && rc == 0; i++) {
        node_info_t *n = &nodes->node_array[i];
        jt_nodemap_node_t nm = {
            .name = n->name,
            .features = n->features_act ? n->features_act : n->features,
            .gres = n->gres,
            .gres_used = n->gres_used,
            .flags = node_flags (n->node_state),
            .leaf_switch = w.leaf[i],
        };

        for (int k = 0; k < JT_LEVELS_MAX; k++) {
            long u = w.up[(size_t) i * JT_LEVELS_MAX + (size_t) k];
            nm.up_switch[k] = u >= 0 ? conf->up[u].name : NULL;
        }
        if (jt_nodemap_add (s, &nm, domain_key, err) < 0)
            rc = -1;
    }
    free (w.leaf);
    free (w.up);
    /* topology/block's own rule (jt_pack_block_confine), on the levels
     * named, when its base blocks are the domains: as the plugin does
     * (plugins/common/nodes.c) */
    if (rc == 0 && conf->nblock && strcmp (domain_key, JT_LABEL_FABRIC) == 0) {
        rc = jt_snapshot_set_block_nodes (s, conf->block_nodes,
                                          jt_snapshot_block_sizes_named (s, conf->nblock), err);
    }
    return rc;
}

static int add_leases (jt_snapshot_t *s, job_info_msg_t *jobs, jt_error_t *err)
{
    for (uint32_t i = 0; i < jobs->record_count; i++) {
        slurm_job_info_t *j = &jobs->job_array[i];
        uint32_t st = j->job_state & JOB_STATE_BASE;
        jt_error_t perr;
        jt_jobrec_t rec;
        int rc;

        if ((st != JOB_RUNNING && st != JOB_SUSPENDED) || !j->admin_comment
            || !jt_jobrec_is (j->admin_comment))
            continue;
        if (jt_jobrec_parse (j->admin_comment, &rec, &perr) < 0) {
            fprintf (stderr, "jobtree snapshot: job %u: bad Jobtree record: %s\n",
                     j->job_id, perr.text);
            continue;
        }
        rc = jt_nodemap_add_record (s, j->job_id, j->account,
                                    (int64_t) j->start_time,
                                    (int64_t) j->end_time, &rec, err);
        jt_jobrec_free (&rec);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int take_snapshot (const char *out, const char *domain_key,
                          const jt_config_t *lv)
{
    node_info_msg_t *nodes = NULL;
    job_info_msg_t *jobs = NULL;
    jt_topo_leaves_t leaves;
    jt_snapshot_t *s = NULL;
    jt_error_t err = { "" };
    char *json = NULL;
    int rc = JT_EXIT_FAIL;
    FILE *f;

    /* libslurm retries a missing slurm.conf for a minute, then exits: say
     * it at once when SLURM_CONF names a file that is not there. */
    const char *conf = getenv ("SLURM_CONF");
    if (conf && *conf && access (conf, R_OK) < 0) {
        fprintf (stderr, "jobtree snapshot: SLURM_CONF=%s: %s\n", conf,
                 strerror (errno));
        return JT_EXIT_FAIL;
    }
    memset (&leaves, 0, sizeof (leaves));
    slurm_init (NULL);
    if (slurm_load_node ((time_t) 0, &nodes, SHOW_ALL | SHOW_DETAIL) != 0) {
        fprintf (stderr, "jobtree snapshot: cannot read nodes: %s\n",
                 slurm_strerror (errno));
        goto out;
    }
    if (slurm_load_jobs ((time_t) 0, &jobs, SHOW_ALL | SHOW_DETAIL) != 0) {
        fprintf (stderr, "jobtree snapshot: cannot read jobs: %s\n",
                 slurm_strerror (errno));
        goto out;
    }
    if (conf_leaves (&leaves) < 0)      /* not slurm_load_topo: see conf_leaves */
        goto out;
    if (!(s = jt_snapshot_create ())) {
        fprintf (stderr, "jobtree snapshot: out of memory\n");
        rc = JT_EXIT_USAGE;
        goto out;
    }
    s->time = (int64_t) time (NULL);
    if (jt_config_set_levels (lv, s, &err) < 0
        || add_nodes (s, nodes, &leaves, domain_key, &err) < 0
        || add_leases (s, jobs, &err) < 0 || jt_snapshot_finalize (s, &err) < 0) {
        fprintf (stderr, "jobtree snapshot: %s\n", err.text);
        goto out;
    }
    if (!(json = jt_snapshot_to_json (s))) {
        fprintf (stderr, "jobtree snapshot: out of memory\n");
        rc = JT_EXIT_USAGE;
        goto out;
    }
    f = out ? fopen (out, "w") : stdout;
    if (!f) {
        fprintf (stderr, "jobtree snapshot: %s: %s\n", out, strerror (errno));
        rc = JT_EXIT_USAGE;
        goto out;
    }
    fputs (json, f);
    if (json[0] && json[strlen (json) - 1] != '\n')
        fputc ('\n', f);
    if ((out ? fclose (f) : fflush (f)) != 0) {
        fprintf (stderr, "jobtree snapshot: %s: %s\n", out ? out : "stdout",
                 strerror (errno));
        rc = JT_EXIT_USAGE;
        goto out;
    }
    rc = JT_EXIT_OK;
out:
    free (json);
    jt_snapshot_destroy (s);
    jt_topo_leaves_free (&leaves);
    if (jobs)
        slurm_free_job_info_msg (jobs);
    if (nodes)
        slurm_free_node_info_msg (nodes);
    return rc;
}
#endif /* HAVE_LIBSLURM */

int cmd_snapshot (int argc, char **argv)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "domain-feature", required_argument, NULL, 'd' },
        { "levels", required_argument, NULL, 'l' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *out = NULL, *domain_key = JT_LABEL_FABRIC;
    int c;

    optind = 1;
    jt_config_t *lv = jt_config_create ();
    char why[JT_ERRMSG_MAX];
    int rc;

    if (!lv) {
        fprintf (stderr, "jobtree snapshot: out of memory\n");
        return JT_EXIT_USAGE;
    }
    while ((c = getopt_long (argc, argv, "o:d:l:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'd':
            domain_key = optarg;
            break;
        case 'l':
            if (jt_config_levels_key (lv, "FabricLevels", optarg, why,
                                      sizeof (why)) < 0) {
                fprintf (stderr, "jobtree snapshot: --levels=%s: %s\n", optarg,
                         why);
                jt_config_destroy (lv);
                return JT_EXIT_USAGE;
            }
            break;
        case 'h':
            snapshot_usage (stdout);
            jt_config_destroy (lv);
            return JT_EXIT_OK;
        default:
            snapshot_usage (stderr);
            jt_config_destroy (lv);
            return JT_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf (stderr, "jobtree snapshot: unexpected argument '%s'\n", argv[optind]);
        snapshot_usage (stderr);
        jt_config_destroy (lv);
        return JT_EXIT_USAGE;
    }
#ifdef HAVE_LIBSLURM
    rc = take_snapshot (out, domain_key, lv);
#else
    (void) out;
    (void) domain_key;
    fprintf (stderr, "jobtree snapshot: built without libslurm (install"
                     " libslurm-dev and re-run configure)\n");
    rc = JT_EXIT_USAGE;
#endif
    jt_config_destroy (lv);
    return rc;
}
