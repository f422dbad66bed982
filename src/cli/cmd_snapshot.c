/*
 * cmd_snapshot.c - `jobtree snapshot`: read a live cluster through libslurm
 * into the snapshot format of `jobtree plan`, so an admin can ask "what
 * would happen if" with the same library code slurmctld's select plugin
 * runs (see jobtree-snapshot(1)).
 *
 * It reads the nodes the way the select plugin does (plugins/select/
 * topology.c): labels from key=value node features, the topology.conf leaf
 * switch as the domain of a node without a domain feature, flavor and GPUs
 * from the gpu GRES, a node holding any allocation as fully used (Jobtree
 * gives groups whole nodes), and running Jobtree jobs' bound funding (their
 * admin_comment record) as leases.
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
#include "jobtree/gres.h"
#include "jobtree/labels.h"
#include "jobtree/snapshot.h"

#ifdef HAVE_LIBSLURM
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "jobtree/record.h"
#endif

static void snapshot_usage (FILE *f)
{
    fprintf (f,
             "Usage: jobtree snapshot [-o FILE] [--domain-feature KEY]\n"
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
             "  -h, --help               show this help\n"
             "\nExit status: 0 written, 1 Slurm could not be read, 2 usage or"
             " system error.\n");
}

#ifdef HAVE_LIBSLURM

/* The leaf (level 0) switch listing node, or NULL. */
static const char *leaf_switch (topo_info_response_msg_t *topo, const char *node)
{
    if (!topo)
        return NULL;
    for (uint32_t i = 0; i < topo->record_count; i++) {
        topo_info_t *t = &topo->topo_array[i];
        hostlist_t hl;
        int found;

        if (t->level != 0 || !t->nodes)
            continue;
        if (!(hl = slurm_hostlist_create (t->nodes)))
            continue;
        found = slurm_hostlist_find (hl, node) >= 0;
        slurm_hostlist_destroy (hl);
        if (found)
            return t->name;
    }
    return NULL;
}

static jt_node_state_t node_state (uint32_t st)
{
    uint32_t base = st & NODE_STATE_BASE;

    if (base == NODE_STATE_DOWN || base == NODE_STATE_FUTURE
        || base == NODE_STATE_UNKNOWN
        || (st & (NODE_STATE_FAIL | NODE_STATE_NO_RESPOND | NODE_STATE_POWERED_DOWN)))
        return JT_NODE_DOWN;
    if (st & NODE_STATE_DRAIN)
        return JT_NODE_DRAIN;
    return JT_NODE_UP;
}

static int add_nodes (jt_snapshot_t *s, node_info_msg_t *nodes,
                      topo_info_response_msg_t *topo, const char *domain_key,
                      jt_error_t *err)
{
    for (uint32_t i = 0; i < nodes->record_count; i++) {
        node_info_t *n = &nodes->node_array[i];
        jt_labels_t labels = JT_LABELS_INIT;
        char type[128], utype[128];
        int64_t gpus = 0, used = 0;
        const char *leaf, *d;
        uint32_t base;
        int rc;

        if (!n->name)
            continue;
        if (jt_labels_parse_features (&labels, n->features_act ? n->features_act
                                                              : n->features) < 0)
            goto nomem;
        if (strcmp (domain_key, JT_LABEL_FABRIC)
            && (d = jt_labels_get (&labels, domain_key))
            && jt_labels_set (&labels, JT_LABEL_FABRIC, d) < 0)
            goto nomem;
        if (!jt_labels_get (&labels, JT_LABEL_FABRIC)
            && (leaf = leaf_switch (topo, n->name))
            && jt_labels_set (&labels, JT_LABEL_FABRIC, leaf) < 0)
            goto nomem;
        if (jt_gres_gpu_req (n->gres, type, sizeof (type), &gpus) != 1 || !type[0])
            gpus = 0;
        if (gpus > 0)
            (void) jt_gres_gpu_req (n->gres_used, utype, sizeof (utype), &used);
        base = n->node_state & NODE_STATE_BASE;
        if (base == NODE_STATE_ALLOCATED || base == NODE_STATE_MIXED
            || (n->node_state & NODE_STATE_COMPLETING))
            used = gpus;
        if (used > gpus)
            used = gpus;
        rc = jt_snapshot_add_node (s, n->name, &labels, gpus > 0 ? type : NULL,
                                   (int) gpus, (int) used,
                                   node_state (n->node_state), err);
        jt_labels_free (&labels);
        if (rc < 0)
            return -1;
        continue;
nomem:
        jt_labels_free (&labels);
        return jt_errprintf (err, "out of memory");
    }
    return 0;
}

static int add_leases (jt_snapshot_t *s, job_info_msg_t *jobs, jt_error_t *err)
{
    for (uint32_t i = 0; i < jobs->record_count; i++) {
        slurm_job_info_t *j = &jobs->job_array[i];
        uint32_t st = j->job_state & JOB_STATE_BASE;
        jt_error_t perr;
        jt_jobrec_t rec;
        char id[32];

        if ((st != JOB_RUNNING && st != JOB_SUSPENDED) || !j->admin_comment
            || !jt_jobrec_is (j->admin_comment))
            continue;
        if (jt_jobrec_parse (j->admin_comment, &rec, &perr) < 0) {
            fprintf (stderr, "jobtree snapshot: job %u: bad Jobtree record: %s\n",
                     j->job_id, perr.text);
            continue;
        }
        snprintf (id, sizeof (id), "%u", j->job_id);
        for (size_t k = 0; k < rec.nbound; k++) {
            jt_lease_t l = {
                .run = id,
                .group = rec.bound[k].group,
                .owner = rec.run && rec.run->owner ? rec.run->owner
                         : j->account ? j->account : "",
                .envelope = rec.bound[k].envelope,
                .nodes = rec.bound[k].nodes,
                .nnodes = rec.bound[k].nnodes,
                .gpus = rec.bound[k].gpus,
                .role = rec.bound[k].role,
                .start = rec.bound_time ? rec.bound_time : (int64_t) j->start_time,
            };
            if (jt_snapshot_add_lease (s, &l, err) < 0) {
                jt_jobrec_free (&rec);
                return -1;
            }
        }
        jt_jobrec_free (&rec);
    }
    return 0;
}

static int take_snapshot (const char *out, const char *domain_key)
{
    node_info_msg_t *nodes = NULL;
    job_info_msg_t *jobs = NULL;
    topo_info_response_msg_t *topo = NULL;
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
    slurm_init (NULL);
    if (slurm_load_node ((time_t) 0, &nodes, SHOW_ALL | SHOW_DETAIL) != 0) {
        fprintf (stderr, "jobtree snapshot: cannot read nodes: %s\n",
                 slurm_strerror (slurm_get_errno ()));
        goto out;
    }
    if (slurm_load_jobs ((time_t) 0, &jobs, SHOW_ALL | SHOW_DETAIL) != 0) {
        fprintf (stderr, "jobtree snapshot: cannot read jobs: %s\n",
                 slurm_strerror (slurm_get_errno ()));
        goto out;
    }
    if (slurm_load_topo (&topo) != 0)
        topo = NULL;    /* no topology plugin: features alone name domains */
    if (!(s = jt_snapshot_create ())) {
        fprintf (stderr, "jobtree snapshot: out of memory\n");
        rc = JT_EXIT_USAGE;
        goto out;
    }
    s->time = (int64_t) time (NULL);
    if (add_nodes (s, nodes, topo, domain_key, &err) < 0
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
    if (topo)
        slurm_free_topo_info_msg (topo);
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
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *out = NULL, *domain_key = JT_LABEL_FABRIC;
    int c;

    optind = 1;
    while ((c = getopt_long (argc, argv, "o:d:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'd':
            domain_key = optarg;
            break;
        case 'h':
            snapshot_usage (stdout);
            return JT_EXIT_OK;
        default:
            snapshot_usage (stderr);
            return JT_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf (stderr, "jobtree snapshot: unexpected argument '%s'\n", argv[optind]);
        snapshot_usage (stderr);
        return JT_EXIT_USAGE;
    }
#ifdef HAVE_LIBSLURM
    return take_snapshot (out, domain_key);
#else
    (void) out;
    (void) domain_key;
    fprintf (stderr, "jobtree snapshot: built without libslurm (install"
                     " libslurm-dev and re-run configure)\n");
    return JT_EXIT_USAGE;
#endif
}
