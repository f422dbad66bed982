/*
 * cache.c - the select plugin's state across job_test calls.
 *
 * job_test runs many times per scheduling pass and again for every job
 * backfill examines, so the snapshot of the cluster (labels, domains, GPUs,
 * live leases) is built once and reused until something that changes it
 * happens: a job starts, ends, is resized or suspended, a node changes
 * (our own hooks bump a generation; slurmctld's last_node_update catches
 * node state changes). last_job_update is deliberately not watched: it
 * moves whenever a pending job's reason changes, which would rebuild the
 * snapshot on every call. Per call, only the node bitmap of that
 * call is applied (jobtree_job_test.c).
 *
 * jobtree.conf (next to slurm.conf) and its BudgetDir are
 * read at the first use and on `scontrol reconfigure`; a bad file keeps the
 * last good configuration and budgets in force and is logged file:line.
 * With no good budgets at all, Jobtree runs are refused (with the reason in
 * squeue) and every other job is scheduled as by cons_tres.
 */
#include "config.h"

/* Slurm's own plugins include this first: it renames libslurm calls to
 * their exported slurm_* aliases, so the plugin also loads in clients
 * linked with libslurm.so. */
#include "src/common/slurm_xlator.h"

#include <stdlib.h>
#include <string.h>

#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "select_jobtree.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static jt_config_t *g_conf;
static jt_budgets_t *g_budgets;
static char g_budget_error[JT_ERRMSG_MAX] = "budgets not loaded yet";
static bool g_loaded;
static uint64_t g_gen = 1;
static jt_plan_opts_t g_plan_opts = { .policy = JT_PACK_TO_EMPTY };

static struct {
    uint64_t gen;
    time_t node_update;
} g_key;
static jt_sel_cache_t g_cache;

static void log_diags (const char *what, jt_diags_t *d)
{
    for (size_t i = 0; i < d->n; i++) {
        char line[512];
        jt_diag_format (&d->v[i], line, sizeof (line));
        error ("select/cons_tres_jobtree: %s: %s", what, line);
    }
}

/* jobtree.conf next to slurm.conf, as for every other Slurm config file. */
static char *conf_path (void)
{
    return get_extra_conf_path (JT_CONFIG_FILE);
}

static void reconfigure_locked (void)
{
    jt_diags_t diags;
    jt_config_t *conf;
    jt_budgets_t *b;
    char *path = conf_path ();

    g_loaded = true;
    jt_diags_init (&diags);
    conf = jt_config_load (path, true, &diags);
    if (!conf) {
        log_diags (path, &diags);
        error ("select/cons_tres_jobtree: %s is bad; keeping the %s configuration",
               path, g_conf ? "last good" : "default");
        if (!g_conf)
            g_conf = jt_config_create ();
    } else {
        jt_config_destroy (g_conf);
        g_conf = conf;
    }
    jt_diags_free (&diags);
    xfree (path);
    if (!g_conf) {
        snprintf (g_budget_error, sizeof (g_budget_error), "out of memory");
        return;
    }
    /* PackPolicy in jobtree.conf is the documented setting; the older
     * JOBTREE_PACK_POLICY environment variable of slurmctld still works when
     * the file does not set it. */
    g_plan_opts.policy = g_conf->pack_policy;
    if (!g_conf->pack_policy_set) {
        const char *pol = getenv ("JOBTREE_PACK_POLICY");
        jt_pack_policy_t p = JT_PACK_TO_EMPTY;
        if (pol && jt_pack_policy_parse (pol, &p) < 0)
            error ("select/cons_tres_jobtree: JOBTREE_PACK_POLICY=%s unknown", pol);
        g_plan_opts.policy = p;
    }

    jt_sel_ledger_configure (g_conf);
    jt_diags_init (&diags);
    b = jt_budgets_load_dir (g_conf->budget_dir, &diags);
    if (!b) {
        log_diags (g_conf->budget_dir, &diags);
        if (g_budgets)
            error ("select/cons_tres_jobtree: budgets in %s are bad; "
                   "keeping the last good ones", g_conf->budget_dir);
        else {
            char first[200] = "";
            if (diags.n > 0)
                jt_diag_format (&diags.v[0], first, sizeof (first));
            snprintf (g_budget_error, sizeof (g_budget_error),
                      "no valid budgets in %s (%s)", g_conf->budget_dir,
                      first[0] ? first : "unreadable");
        }
    } else {
        jt_budgets_destroy (g_budgets);
        g_budgets = b;
        g_budget_error[0] = '\0';
        info ("select/cons_tres_jobtree: %zu owners, %zu envelopes from %s",
              b->n, b->nenv, g_conf->budget_dir);
        jt_sel_ledger_budgets (b);
    }
    jt_diags_free (&diags);
}

void jt_sel_cache_reconfigure (void)
{
    slurm_mutex_lock (&g_lock);
    reconfigure_locked ();
    g_gen++;
    slurm_mutex_unlock (&g_lock);
}

void jt_sel_cache_invalidate (void)
{
    slurm_mutex_lock (&g_lock);
    g_gen++;
    slurm_mutex_unlock (&g_lock);
}

jt_sel_cache_t *jt_sel_cache_get (jt_error_t *err)
{
    jt_sel_cache_t *c = NULL;

    slurm_mutex_lock (&g_lock);
    if (!g_loaded)
        reconfigure_locked ();
    if (!g_conf) {
        jt_errprintf (err, "no configuration (out of memory)");
        goto out;
    }
    if (!g_cache.topo || g_key.gen != g_gen
        || g_key.node_update != last_node_update
        || g_cache.topo->nslurm != node_record_count) {
        jt_sel_topo_destroy (g_cache.topo);
        g_cache.topo = jt_sel_topo_build (g_conf->domain_feature, err);
        if (!g_cache.topo)
            goto out;
        g_key.gen = g_gen;
        g_key.node_update = last_node_update;
    }
    g_cache.conf = g_conf;
    g_cache.plan_opts = g_plan_opts;
    g_cache.budgets = g_budgets;
    snprintf (g_cache.budget_error, sizeof (g_cache.budget_error), "%s",
              g_budget_error);
    c = &g_cache;
out:
    slurm_mutex_unlock (&g_lock);
    return c;
}

const jt_config_t *jt_sel_cache_conf (void)
{
    const jt_config_t *c;

    slurm_mutex_lock (&g_lock);
    c = g_conf;
    slurm_mutex_unlock (&g_lock);
    return c;
}

void jt_sel_cache_fini (void)
{
    slurm_mutex_lock (&g_lock);
    jt_sel_topo_destroy (g_cache.topo);
    memset (&g_cache, 0, sizeof (g_cache));
    jt_budgets_destroy (g_budgets);
    g_budgets = NULL;
    jt_config_destroy (g_conf);
    g_conf = NULL;
    g_loaded = false;
    slurm_mutex_unlock (&g_lock);
}
