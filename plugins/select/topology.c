/*
 * topology.c - the cluster as libjobtree sees it, built from slurmctld's
 * node and switch tables (the leaf switches: compat.h) and its running jobs.
 *
 * This file only reads slurmctld's structures: each node's features, gpu
 * GRES (as GRES text) and GPUs allocated, state bits and topology.conf leaf
 * switch, and each running Jobtree job's record. What that makes in the
 * snapshot (labels, domain or leaf-switch fallback, flavor, GPUs, used
 * GPUs, state, which nodes are labelled, the leases of bound funding) is
 * libjobtree's nodemap (jobtree/nodemap.h), the same code `jobtree
 * snapshot` calls through libslurm, so its snapshots predict this plugin.
 *
 * Built once (jtsel_topo_build: features parsed into labels, GRES text,
 * leaf switches, domains), then kept up to date (jtsel_topo_refresh, issue
 * 12): each node's state and GPUs allocated read again in place (no
 * parsing, no allocation), and only the leases of the jobs that started,
 * ended or changed derived again. A node whose features or GPU count
 * changed, or a changed node table, asks the caller for a rebuild.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

/* Slurm's own plugins include this first: it renames libslurm calls to
 * their exported slurm_* aliases, so the plugin also loads in clients
 * linked with libslurm.so. */
#include "src/common/slurm_xlator.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


#include "nodes.h"
#include "select_jobtree.h"

/* Keep only the bound nodes the job still holds (a shrink, by scontrol or
 * by an activation's cut, or a node failure under --no-kill removes nodes
 * from the job but not from its record): each lease keeps its GPUs per
 * node times what is left, as the ledger's lease derivation does. */
static void still_held (jt_jobrec_t *rec, const job_record_t *job_ptr)
{
    for (size_t i = 0; i < rec->nbound && job_ptr->node_bitmap; i++) {
        jt_jobrec_lease_t *b = &rec->bound[i];
        size_t kept = 0, n = b->nnodes;
        int64_t per = n ? b->gpus / (int64_t) n : 0;

        for (size_t k = 0; k < n; k++) {
            node_record_t *node_ptr = find_node_record (b->nodes[k]);
            if (node_ptr && bit_test (job_ptr->node_bitmap, node_ptr->index))
                b->nodes[kept++] = b->nodes[k];
            else
                free (b->nodes[k]);
        }
        b->nnodes = kept;
        if (kept < n)
            b->gpus = per * (int64_t) kept;
        kept = 0;
        for (size_t k = 0; k < b->nspares; k++) {
            node_record_t *node_ptr = find_node_record (b->spares[k]);
            if (node_ptr && bit_test (job_ptr->node_bitmap, node_ptr->index))
                b->spares[kept++] = b->spares[k];
            else
                free (b->spares[k]);
        }
        b->nspares = kept;
    }
}

/* A running (or suspended) Jobtree job's bound funding as leases, on the
 * nodes it still holds; any other job adds none. A job with a bad record
 * is logged and skipped: it still holds its nodes (used GPUs), only its
 * envelope is not charged. */
static int add_job_leases (jt_snapshot_t *s, job_record_t *job_ptr,
                           jt_error_t *err)
{
    jt_jobrec_t rec;
    jt_error_t perr;
    int rc;

    if (!(IS_JOB_RUNNING (job_ptr) || IS_JOB_SUSPENDED (job_ptr))
        || !jtsel_is_jobtree (job_ptr))
        return 0;
    if (jt_jobrec_parse (job_ptr->admin_comment, &rec, &perr) < 0) {
        error ("select/cons_tres_jobtree: %pJ: bad Jobtree record: %s",
               job_ptr, perr.text);
        return 0;
    }
    still_held (&rec, job_ptr);
    rc = jt_nodemap_add_record (s, job_ptr->job_id, job_ptr->account,
                                (int64_t) job_ptr->start_time,
                                (int64_t) job_ptr->end_time, &rec, err);
    jt_jobrec_free (&rec);
    return rc;
}

/* Every running Jobtree job's leases. */
static int add_leases (jt_snapshot_t *s, jt_error_t *err)
{
    ListIterator it;
    job_record_t *job_ptr;
    int rc = 0;

    if (!job_list)
        return 0;
    it = list_iterator_create (job_list);
    while ((job_ptr = list_next (it)) && rc == 0)
        rc = add_job_leases (s, job_ptr, err);
    list_iterator_destroy (it);
    return rc;
}

jtsel_topo_t *jtsel_topo_build (const jt_config_t *conf, jt_error_t *err)
{
    static bool levels_said;
    jtsel_topo_t *t = xmalloc (sizeof (*t));

    t->snap = jt_snapshot_create ();
    if (!t->snap) {
        jt_errprintf (err, "out of memory");
        goto fail;
    }
    t->snap->time = (int64_t) time (NULL);
    /* the fabric levels first: nodemap names switch levels after them */
    if (jt_config_set_levels (conf, t->snap, err) < 0
        || jtc_nodes_add (t->snap, jt_config_domain_key (conf), JTC_NODES_LIVE,
                          err) < 0
        || add_leases (t->snap, err) < 0
        || jt_snapshot_finalize (t->snap, err) < 0)
        goto fail;
    if (t->snap->nlevels && !levels_said) {
        /* once per slurmctld: what the site's FabricLevels found */
        char buf[256] = "";
        size_t l = 0;
        for (size_t k = 0; k < t->snap->nlevels && l < sizeof (buf); k++)
            l += (size_t) snprintf (buf + l, sizeof (buf) - l, "%s%s (%zu unit%s)",
                                    k ? ", " : "", jt_level_name (t->snap, k),
                                    t->snap->nunits[k],
                                    t->snap->nunits[k] == 1 ? "" : "s");
        info ("select/cons_tres_jobtree: fabric levels above the %zu domains: %s",
              t->snap->ndomains, buf);
        levels_said = true;
    }
    t->nslurm = node_record_count;
    t->slurm2snap = xcalloc (node_record_count > 0 ? node_record_count : 1,
                             sizeof (ssize_t));
    t->snap2slurm = xcalloc (t->snap->nnodes ? t->snap->nnodes : 1, sizeof (int));
    t->feat = xcalloc (node_record_count > 0 ? node_record_count : 1,
                       sizeof (char *));
    t->gavail = xcalloc (node_record_count > 0 ? node_record_count : 1,
                         sizeof (uint64_t));
    t->flags = xcalloc (node_record_count > 0 ? node_record_count : 1,
                        sizeof (unsigned));
    t->checked = time (NULL);
    for (int i = 0; i < node_record_count; i++) {
        node_record_t *node_ptr = node_record_table_ptr[i];
        t->slurm2snap[i] = -1;
        if (node_ptr) {
            t->feat[i] = xstrdup (jtc_node_features (node_ptr));
            t->gavail[i] = jtc_node_gpus_avail (node_ptr);
            t->flags[i] = jtc_node_flags (node_ptr);
        }
    }
    for (size_t k = 0; k < t->snap->nnodes; k++) {
        jt_node_t *n = &t->snap->nodes[k];
        node_record_t *node_ptr = find_node_record (n->name);
        int idx = node_ptr ? (int) node_ptr->index : -1;

        t->snap2slurm[k] = idx;
        if (idx >= 0 && idx < node_record_count)
            t->slurm2snap[idx] = (ssize_t) k;
        if (jt_nodemap_labelled (n))
            t->nlabelled++;
    }
    return t;
fail:
    jtsel_topo_destroy (t);
    return NULL;
}

void jtsel_topo_destroy (jtsel_topo_t *t)
{
    if (!t)
        return;
    jt_snapshot_destroy (t->snap);
    for (int i = 0; t->feat && i < t->nslurm; i++)
        xfree (t->feat[i]);
    xfree (t->feat);
    xfree (t->gavail);
    xfree (t->flags);
    xfree (t->free_at);
    xfree (t->holders);
    xfree (t->slurm2snap);
    xfree (t->snap2slurm);
    xfree (t);
}

/* Each node's state and GPUs allocated, in place (see
 * jtsel_topo_refresh). 1 when a node's structure changed (a rebuild is
 * needed), 0, or -1 with err set. The pass over every node reads one
 * field; the GRES list (a lock per look-up) and the features (a string
 * compare) are read for the nodes that may have changed only: at 16k nodes
 * reading them all after every job start was a fifth of slurmctld's CPU
 * (contrib/scale, perf). */
static int refresh_nodes (jtsel_topo_t *t, bitstr_t *touched, bool all,
                          jt_error_t *err)
{
    time_t now = time (NULL);

    if (node_record_count != t->nslurm)
        return 1;
    if (touched && bit_size (touched) != t->nslurm)
        touched = NULL;
    if (!touched || now - t->checked >= JTSEL_TOPO_CHECK_S || now < t->checked)
        all = true;
    for (int i = 0; i < t->nslurm; i++) {
        node_record_t *node_ptr = node_record_table_ptr[i];
        ssize_t k = t->slurm2snap[i];
        unsigned flags;

        if (!node_ptr) {
            if (k >= 0 || t->feat[i])
                return 1;       /* a node left the table */
            continue;
        }
        flags = jtc_node_flags (node_ptr);
        if (!all && flags == t->flags[i] && !bit_test (touched, i))
            continue;
        t->flags[i] = flags;
        if (xstrcmp (jtc_node_features (node_ptr), t->feat[i])
            || jtc_node_gpus_avail (node_ptr) != t->gavail[i]
            || (k < 0 && node_ptr->name && node_ptr->name[0]))
            return 1;
        if (k < 0)
            continue;
        if (jt_nodemap_refresh (&t->snap->nodes[k], flags,
                                jtc_node_gpus_alloc (node_ptr), err) < 0)
            return -1;
    }
    if (all)
        t->checked = now;
    return 0;
}

/* The leases of job id again: gone when it no longer runs. */
static int repatch_job (jtsel_topo_t *t, uint32_t id, jt_error_t *err)
{
    job_record_t *job_ptr = find_job_record (id);
    char run[16];

    snprintf (run, sizeof (run), "%u", id);
    jt_snapshot_remove_run (t->snap, run);
    return job_ptr ? add_job_leases (t->snap, job_ptr, err) : 0;
}

int jtsel_topo_refresh (jtsel_topo_t *t, bitstr_t *touched, bool all,
                        const uint32_t *jobs, size_t njobs, jt_error_t *err)
{
    int rc = refresh_nodes (t, touched, all, err);

    if (rc != 0)
        return rc;
    for (size_t i = 0; i < njobs; i++)
        if (repatch_job (t, jobs[i], err) < 0)
            return -1;
    /* Jobs whose lease facts moved without an event of ours (a time limit
     * changed, a job that vanished): one look-up per lease. */
    for (size_t i = 0; i < t->snap->nleases;) {
        jt_lease_t *l = &t->snap->leases[i];
        char *end = NULL;
        unsigned long id = strtoul (l->run, &end, 10);
        job_record_t *job_ptr = end && !*end && id > 0 && id <= UINT32_MAX
                                    ? find_job_record ((uint32_t) id) : NULL;

        if (!job_ptr || !(IS_JOB_RUNNING (job_ptr) || IS_JOB_SUSPENDED (job_ptr))) {
            char run[64];
            snprintf (run, sizeof (run), "%s", l->run);
            jt_snapshot_remove_run (t->snap, run);
            continue;   /* l and its run's other leases are gone */
        }
        if (l->end != (int64_t) job_ptr->end_time)
            l->end = (int64_t) job_ptr->end_time;
        i++;
    }
    t->snap->time = (int64_t) time (NULL);
    t->free_ok = false;
    return 0;
}

/* A job's end as a free time: never when it has none. */
static int64_t job_end (const job_record_t *job_ptr)
{
    if (IS_JOB_SUSPENDED (job_ptr) || job_ptr->end_time <= 0)
        return INT64_MAX;
    return (int64_t) job_ptr->end_time;
}

const int64_t *jtsel_topo_free_at (jtsel_topo_t *t)
{
    ListIterator it;
    job_record_t *job_ptr;
    size_t n = t->snap->nnodes;

    if (t->free_ok)
        return t->free_at;
    if (!t->free_at)
        t->free_at = xcalloc (n ? n : 1, sizeof (int64_t));
    if (!t->holders)
        t->holders = xcalloc (n ? n : 1, sizeof (uint8_t));
    /* up: free now (0), unless a job holds it (below); else never */
    for (size_t k = 0; k < n; k++) {
        t->free_at[k] = t->snap->nodes[k].state == JT_NODE_UP ? 0 : INT64_MAX;
        t->holders[k] = 0;
    }
    if (job_list) {
        it = list_iterator_create (job_list);
        while ((job_ptr = list_next (it))) {
            int64_t end;
            int first, last;

            if (!(IS_JOB_RUNNING (job_ptr) || IS_JOB_SUSPENDED (job_ptr))
                || !job_ptr->node_bitmap
                || (first = bit_ffs (job_ptr->node_bitmap)) < 0)
                continue;
            last = bit_fls (job_ptr->node_bitmap);
            end = job_end (job_ptr);
            bool run = jtsel_is_jobtree (job_ptr);
            for (int i = first; i <= last && i < t->nslurm; i++) {
                ssize_t k;
                if (!bit_test (job_ptr->node_bitmap, i) || (k = t->slurm2snap[i]) < 0)
                    continue;
                if (end > t->free_at[k])
                    t->free_at[k] = end;
                t->holders[k] = run && t->holders[k] == 0 ? 1 : 2;
            }
        }
        list_iterator_destroy (it);
    }
    t->free_ok = true;
    return t->free_at;
}

bool jtsel_topo_clearable (jtsel_topo_t *t, const jt_node_set_t *set)
{
    (void) jtsel_topo_free_at (t);
    for (size_t j = 0; j < set->nnodes; j++) {
        size_t k = set->nodes[j];
        if (k >= t->snap->nnodes || t->snap->nodes[k].state != JT_NODE_UP
            || t->holders[k] > 1)
            return false;
    }
    return set->nnodes > 0;
}
