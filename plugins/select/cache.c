/*
 * cache.c - the select plugin's state across job_test calls.
 *
 * job_test runs many times per scheduling pass and again for every job
 * backfill examines, so the snapshot of the cluster (labels, domains, GPUs,
 * live leases) is built once and reused until something that changes it
 * happens. It is built once and then kept up to date (issue 12): a job
 * that starts, ends, is resized, suspended or resumed is noted by our
 * hooks (jtsel_cache_job_changed) and only its leases are derived again;
 * a change of slurmctld's last_node_update (or a hook's) re-reads each
 * node's state in place, and the GPUs allocated of the nodes those jobs
 * hold (jtsel_topo_refresh). Only a
 * reconfigure, a new node table or a node whose features or GPU count
 * changed rebuilds it. DebugCrossCheck=yes in jobtree.conf compares every
 * update with a rebuild and logs the first difference. last_job_update is
 * deliberately not watched: it moves whenever a pending job's reason
 * changes. Per call, only the node bitmap of that call is applied
 * (jobtree_job_test.c).
 *
 * jobtree.conf (next to slurm.conf) and its BudgetDir are
 * read at the first use and on `scontrol reconfigure` through jt_reload
 * (jobtree/reload.h, shared with job_submit): a bad file keeps the last
 * good configuration and budgets in force and is logged file:line:col.
 * With no good budgets at all, Jobtree runs are refused (with the reason in
 * squeue) and every other job is scheduled as by cons_tres.
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

#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "select_jobtree.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static jt_reload_t *g_set;              /* jobtree.conf + budgets in force */
static bool g_loaded;
static uint64_t g_gen = 1;
static jt_plan_opts_t g_plan_opts = { .policy = JT_PACK_DEFAULT };
/* Pack's warm views (jobtree/pack.h): kept across job_test calls and
 * synced with the snapshot by jt_sched_answer, which every job_test
 * reaches under slurmctld's job write lock (one at a time). */
static jt_pack_views_t *g_views;
static uint64_t g_views_logged;        /* mismatches already logged */

static struct {
    uint64_t gen;
    time_t node_update;
} g_key;
static jtsel_cache_t g_cache;

/* Jobs whose leases changed since the last update; past JTSEL_DIRTY_MAX
 * of them a rebuild is cheaper than the look-ups (and memory stays
 * bounded). */
#define JTSEL_DIRTY_MAX 4096
static uint32_t *g_dirty;
static size_t g_ndirty;
static bool g_nodes_dirty;
/* The nodes of those jobs (the only nodes whose GPUs allocated may have
 * changed), and whether every node's features and GPUs must be read again
 * (a node's configuration changed). */
static bitstr_t *g_touched;
static bool g_nodes_all;

/* Reload through the library (it keeps the last good set and says why),
 * log its lines, then what only the select plugin does with a new set:
 * the pack policy, the ledger client, a BudgetLoaded event. */
static void reconfigure_locked (void)
{
    char *path = get_extra_conf_path (JT_CONFIG_FILE);
    jt_reload_result_t res;
    const jt_config_t *conf;

    g_loaded = true;
    if (!g_set && !(g_set = jt_reload_create ())) {
        error ("select/cons_tres_jobtree: out of memory: no configuration");
        xfree (path);
        return;
    }
    /* The last good set on disk too, so a new slurmctld starts from it
     * (24.11's reconfigure execs one: docs/slurm-24.11.md). */
    if (!jt_reload_keep_path (g_set) && slurm_conf.state_save_location
        && *slurm_conf.state_save_location) {
        char *kp = xstrdup_printf ("%s/jobtree-select.last-good.json",
                                   slurm_conf.state_save_location);
        jt_error_t err;
        if (jt_reload_keep_file (g_set, kp, &err) < 0)
            error ("select/cons_tres_jobtree: %s", err.text);
        xfree (kp);
    }
    (void) jt_reload (g_set, path, &res);
    xfree (path);
    for (size_t i = 0; i < res.nlines; i++) {
        if (res.lines[i].level == JT_RELOAD_ERROR)
            error ("select/cons_tres_jobtree: %s", res.lines[i].text);
        else
            info ("select/cons_tres_jobtree: %s", res.lines[i].text);
    }
    if (!(conf = jt_reload_conf (g_set))) {
        jt_reload_result_free (&res);
        return;
    }
    /* PackPolicy in jobtree.conf is the documented setting; the older
     * JOBTREE_PACK_POLICY environment variable of slurmctld still works when
     * the file does not set it. */
    g_plan_opts.policy = conf->pack_policy;
    if (!conf->pack_policy_set) {
        const char *pol = getenv ("JOBTREE_PACK_POLICY");
        jt_pack_policy_t p = JT_PACK_DEFAULT;
        if (pol && jt_pack_policy_parse (pol, &p) < 0)
            error ("select/cons_tres_jobtree: JOBTREE_PACK_POLICY=%s unknown", pol);
        g_plan_opts.policy = p;
    }
    jtsel_ledger_configure (conf);
    if (res.changed & JT_RELOAD_BUDGETS)
        jtsel_ledger_budgets (jt_reload_budgets (g_set));
    jt_reload_result_free (&res);
}

void jtsel_cache_reconfigure (void)
{
    slurm_mutex_lock (&g_lock);
    reconfigure_locked ();
    g_gen++;
    slurm_mutex_unlock (&g_lock);
}

void jtsel_cache_invalidate (void)
{
    slurm_mutex_lock (&g_lock);
    g_gen++;
    slurm_mutex_unlock (&g_lock);
}

/* Mark node index i touched (g_lock held). */
static void touch_locked (int i)
{
    if (!g_touched || bit_size (g_touched) != node_record_count) {
        FREE_NULL_BITMAP (g_touched);
        g_touched = bit_alloc (node_record_count > 0 ? node_record_count : 1);
        g_nodes_all = true;     /* what was touched before is not known */
    }
    if (i >= 0 && i < bit_size (g_touched))
        bit_set (g_touched, i);
}

void jtsel_cache_node_touched (const node_record_t *node_ptr)
{
    slurm_mutex_lock (&g_lock);
    g_nodes_dirty = true;
    if (node_ptr)
        touch_locked ((int) node_ptr->index);
    slurm_mutex_unlock (&g_lock);
}

void jtsel_cache_job_changed (const job_record_t *job_ptr)
{
    slurm_mutex_lock (&g_lock);
    g_nodes_dirty = true;
    if (job_ptr && job_ptr->node_bitmap) {
        touch_locked (-1);
        if (bit_size (job_ptr->node_bitmap) == bit_size (g_touched))
            bit_or (g_touched, job_ptr->node_bitmap);
        else
            g_nodes_all = true;
    }
    if (!job_ptr)
        ;
    else if (g_ndirty >= JTSEL_DIRTY_MAX) {
        g_gen++;                /* rebuild; forget the list */
        g_ndirty = 0;
    } else {
        if (!g_dirty)
            g_dirty = xcalloc (JTSEL_DIRTY_MAX, sizeof (*g_dirty));
        g_dirty[g_ndirty++] = job_ptr->job_id;
    }
    slurm_mutex_unlock (&g_lock);
}

void jtsel_cache_node_changed (void)
{
    slurm_mutex_lock (&g_lock);
    g_nodes_dirty = true;
    g_nodes_all = true;
    slurm_mutex_unlock (&g_lock);
}

/* DebugCrossCheck: the patched snapshot against a rebuild; on a
 * difference, log the first one and keep the rebuild. */
static void cross_check (const jt_config_t *conf, size_t njobs)
{
    jt_error_t err;
    jtsel_topo_t *full = jtsel_topo_build (conf, &err);
    char diff[512];
    int rc;

    if (!full) {
        error ("select/cons_tres_jobtree: DebugCrossCheck: rebuild failed: %s",
               err.text);
        return;
    }
    if (g_views) {
        jt_pack_views_stats_t st;
        jt_pack_views_stats (g_views, &st);
        info ("select/cons_tres_jobtree: DebugCrossCheck: warm pack views: "
              "%" PRIu64 " handed out, each checked against a fresh build; "
              "%" PRIu64 " built; %" PRIu64 " differed", st.hits, st.builds,
              st.mismatches);
    }
    rc = jt_snapshot_diff (g_cache.topo->snap, full->snap, diff, sizeof (diff));
    if (rc == 0) {
        info ("select/cons_tres_jobtree: DebugCrossCheck: patched snapshot "
              "equals a rebuild (%zu nodes, %zu leases, %zu jobs patched)",
              full->snap->nnodes, full->snap->nleases, njobs);
        jtsel_topo_destroy (full);
        return;
    }
    error ("select/cons_tres_jobtree: DebugCrossCheck: patched snapshot "
           "differs from a rebuild: %s (keeping the rebuild)", diff);
    jtsel_topo_destroy (g_cache.topo);
    g_cache.topo = full;
}

/* Bring the snapshot up to date: rebuild it when the structure changed,
 * patch it when only jobs or node states did. true when it changed. */
static bool update_locked (const jt_config_t *conf, jt_error_t *err)
{
    size_t njobs = g_ndirty;
    int rc = 1;

    if (g_cache.topo && g_key.gen == g_gen
        && g_cache.topo->nslurm == node_record_count) {
        if (!g_ndirty && !g_nodes_dirty && g_key.node_update == last_node_update)
            return false;
        rc = jtsel_topo_refresh (g_cache.topo, g_touched, g_nodes_all,
                                 g_dirty, g_ndirty, err);
        if (rc < 0)
            error ("select/cons_tres_jobtree: snapshot update failed: %s; "
                   "rebuilding", err->text);
    }
    g_ndirty = 0;
    g_nodes_dirty = false;
    g_nodes_all = false;
    if (g_touched)
        bit_clear_all (g_touched);
    g_key.gen = g_gen;
    g_key.node_update = last_node_update;
    if (rc != 0) {
        jtsel_topo_destroy (g_cache.topo);
        g_cache.topo = jtsel_topo_build (conf, err);
    } else if (conf->debug_cross_check)
        cross_check (conf, njobs);
    return true;
}

jtsel_cache_t *jtsel_cache_get (jt_error_t *err)
{
    jtsel_cache_t *c = NULL;
    const jt_config_t *conf;
    bool rebuilt = false;
    jt_error_t uerr;

    slurm_mutex_lock (&g_lock);
    if (!g_loaded)
        reconfigure_locked ();
    if (!(conf = jt_reload_conf (g_set))) {
        jt_errprintf (err, "no configuration (out of memory)");
        goto out;
    }
    rebuilt = update_locked (conf, err ? err : &uerr);
    if (!g_cache.topo)
        goto out;
    g_cache.conf = conf;
    if (!g_views)
        g_views = jt_pack_views_create ();      /* NULL: views built per call */
    jt_pack_views_check (g_views, conf->debug_cross_check);
    if (g_views) {
        jt_pack_views_stats_t st;
        jt_pack_views_stats (g_views, &st);
        if (st.mismatches > g_views_logged) {
            error ("select/cons_tres_jobtree: DebugCrossCheck: a warm pack "
                   "view differed from a fresh build (%" PRIu64 " times so "
                   "far; the fresh one decided); first: %s", st.mismatches,
                   st.first_mismatch);
            g_views_logged = st.mismatches;
        }
    }
    g_plan_opts.views = g_views;
    g_cache.plan_opts = g_plan_opts;
    g_cache.budgets = jt_reload_budgets (g_set);
    snprintf (g_cache.budget_error, sizeof (g_cache.budget_error), "%s",
              jt_reload_budget_error (g_set));
    c = &g_cache;
out:
    slurm_mutex_unlock (&g_lock);
    /* Reservations of runs that stopped waiting: after allocations changed
     * (a run started or ended), else now and then (a cancelled pending run
     * changes no allocation). */
    if (c)
        jtsel_ledger_settle (rebuilt);
    return c;
}

const jt_config_t *jtsel_cache_conf (void)
{
    const jt_config_t *c;

    slurm_mutex_lock (&g_lock);
    c = jt_reload_conf (g_set);
    slurm_mutex_unlock (&g_lock);
    return c;
}

void jtsel_cache_fini (void)
{
    slurm_mutex_lock (&g_lock);
    jtsel_topo_destroy (g_cache.topo);
    memset (&g_cache, 0, sizeof (g_cache));
    jt_pack_views_destroy (g_views);
    g_views = NULL;
    g_plan_opts.views = NULL;
    g_views_logged = 0;
    xfree (g_dirty);
    g_ndirty = 0;
    FREE_NULL_BITMAP (g_touched);
    g_nodes_all = false;
    jt_reload_destroy (g_set);
    g_set = NULL;
    g_loaded = false;
    slurm_mutex_unlock (&g_lock);
}
