/*
 * select_jobtree.c - select/cons_tres_jobtree: the plugin symbols, the
 * wrapped select/cons_tres context, and the forwarding of every select_p_*
 * call to it.
 *
 * Only job_test of a Jobtree run (a job whose admin_comment carries the
 * job_submit plugin's record) takes another path (jobtree_job_test.c); every
 * other call, and job_test of every other job, is exactly cons_tres's. The
 * commit, end and resize calls also feed the per-cycle cache and the lease
 * event hook. The pattern is Slurm's own select/cray_aries wrapper
 * (src/plugins/select/other/other_select.c).
 *
 * The type must contain "cons_tres": slurmctld enables the cons_tres-only
 * code paths (GRES, --gpus*, node_mgr) by xstrstr(SelectType, "cons_tres").
 * plugin_id must be unique among all select_*.so in PluginDir, because
 * slurmctld loads every one of them and clients unpack job and node info by
 * it; 142 is unused by Slurm 22.05 (101-110).
 */
#include "config.h"

/* Slurm's own plugins include this first: it renames libslurm calls to
 * their exported slurm_* aliases, so the plugin also loads in clients
 * linked with libslurm.so. */
#include "src/common/slurm_xlator.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "src/common/plugin.h"

#include "select_jobtree.h"

/*
 * Data symbols of slurmctld that this plugin reads. They are defined here
 * (as Slurm's cons_common.c does) so the plugin also loads in slurmd,
 * slurmstepd and clients, which lack some of them; inside slurmctld the
 * daemon's own definitions take precedence (they are exported dynamically
 * and found first), so these copies stay unused there.
 */
slurm_conf_t slurm_conf;
node_record_t **node_record_table_ptr;
List job_list;
int node_record_count;
time_t last_node_update;
time_t last_job_update;
#if !JTC_SLURM_2411
/* 24.11 keeps the switch table inside topology/tree (compat.h). */
switch_record_t *switch_record_table;
int switch_record_cnt;
#endif

const char plugin_name[] = "Jobtree: budgets and pack-to-empty over cons_tres";
const char plugin_type[] = "select/cons_tres_jobtree";
const uint32_t plugin_id = 142;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* Must list slurm_select_ops_t's members in order (src/common/select.c;
 * 24.11: src/interfaces/select.c:122, without job_signal, jobinfo_sprint,
 * jobinfo_xstrdup, update_node_config and resv_test). */
static const char *syms[] = {
    "plugin_id",
    "select_p_state_save",
    "select_p_state_restore",
    "select_p_job_init",
    "select_p_node_init",
    "select_p_job_test",
    "select_p_job_begin",
    "select_p_job_ready",
    "select_p_job_expand",
    "select_p_job_resized",
#if !JTC_SLURM_2411
    "select_p_job_signal",
#endif
    "select_p_job_fini",
    "select_p_job_suspend",
    "select_p_job_resume",
    "select_p_step_pick_nodes",
    "select_p_step_start",
    "select_p_step_finish",
    "select_p_select_nodeinfo_pack",
    "select_p_select_nodeinfo_unpack",
    "select_p_select_nodeinfo_alloc",
    "select_p_select_nodeinfo_free",
    "select_p_select_nodeinfo_set_all",
    "select_p_select_nodeinfo_set",
    "select_p_select_nodeinfo_get",
    "select_p_select_jobinfo_alloc",
    "select_p_select_jobinfo_free",
    "select_p_select_jobinfo_set",
    "select_p_select_jobinfo_get",
    "select_p_select_jobinfo_copy",
    "select_p_select_jobinfo_pack",
    "select_p_select_jobinfo_unpack",
#if !JTC_SLURM_2411
    "select_p_select_jobinfo_sprint",
    "select_p_select_jobinfo_xstrdup",
#endif
    "select_p_get_info_from_plugin",
#if !JTC_SLURM_2411
    "select_p_update_node_config",
#endif
    "select_p_reconfigure",
#if !JTC_SLURM_2411
    "select_p_resv_test",
#endif
};

slurm_select_ops_t jtsel_ops;
/* 24.11's libslurm.so no longer exports plugin_context_create (clients such
 * as `jobtree snapshot` load this plugin too); plugin_load_and_link, which
 * plugin_context_create tries first (src/common/plugin.c:363), still is
 * (slurm_xlator.h:461). */
#if JTC_SLURM_2411
static plugin_handle_t g_context;
#else
static plugin_context_t *g_context;
#endif
static pthread_mutex_t g_context_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_ready;

/* Create the cons_tres context once. Lazy, because init() may run before
 * slurmctld has read its configuration. Returns 0 or -1 (logged). */
int jtsel_ops_ready (void)
{
    int rc = 0;

    if (g_ready)
        return 0;
    slurm_mutex_lock (&g_context_lock);
    if (!g_context) {
#if JTC_SLURM_2411
        g_context = plugin_load_and_link ("select/cons_tres",
                                          sizeof (syms) / sizeof (syms[0]),
                                          syms, (void **) &jtsel_ops);
#else
        g_context = plugin_context_create ("select", "select/cons_tres",
                                           (void **) &jtsel_ops, syms,
                                           sizeof (syms));
#endif
        if (!g_context) {
            error ("%s: cannot load select/cons_tres to wrap", plugin_type);
            rc = -1;
        } else
            g_ready = true;
    }
    slurm_mutex_unlock (&g_context_lock);
    return rc;
}

#define READY_OR(ret) \
    do { \
        if (jtsel_ops_ready () < 0) \
            return (ret); \
    } while (0)

extern int init (void)
{
    _Static_assert (sizeof (syms) == sizeof (slurm_select_ops_t),
                    "syms[] must match slurm_select_ops_t");
    verbose ("%s loaded", plugin_type);
    return SLURM_SUCCESS;
}

extern int fini (void)
{
    int rc = SLURM_SUCCESS;

    jtsel_elastic_fini ();
    jtsel_reshape_fini ();
    jtsel_restart_fini_all ();
    jtsel_ledger_fini ();
    jtsel_cache_fini ();
    slurm_mutex_lock (&g_context_lock);
#if JTC_SLURM_2411
    if (g_context)
        plugin_unload (g_context);
#else
    if (g_context)
        rc = plugin_context_destroy (g_context);
#endif
    g_context = NULL;
    g_ready = false;
    slurm_mutex_unlock (&g_context_lock);
    return rc;
}

extern int select_p_job_init (List jobs)
{
    READY_OR (SLURM_ERROR);
    jtsel_cache_invalidate ();
    /* slurmctld has restored its jobs: reconcile them with the ledger
     * (once per slurmctld start; it reads LedgerDir, nothing else). */
    {
        jt_error_t err;
        if (jtsel_cache_conf () || jtsel_cache_get (&err))
            jtsel_ledger_reconcile (jobs);
    }
    return jtsel_ops.job_init (jobs);
}

extern int select_p_node_init (void)
{
    READY_OR (SLURM_ERROR);
    jtsel_cache_invalidate ();
    jtsel_cache_reconfigure ();
    jtsel_elastic_start ();
    return jtsel_ops.node_init ();
}

extern int select_p_job_test (job_record_t *job_ptr, bitstr_t *bitmap,
                              uint32_t min_nodes, uint32_t max_nodes,
                              uint32_t req_nodes, uint16_t mode,
                              List preemptee_candidates,
                              List *preemptee_job_list,
                              JTC_JOB_TEST_EXC)
{
    READY_OR (SLURM_ERROR);
    /* the slices held for requeued runs' restarts (restart.c) */
    jtsel_restart_narrow (job_ptr, bitmap, mode);
    if (jtsel_is_jobtree (job_ptr)) {
        struct timespec t0, t1;
        int rc;

        clock_gettime (CLOCK_MONOTONIC, &t0);
        rc = jtsel_job_test (job_ptr, bitmap, min_nodes, max_nodes, req_nodes,
                              mode, preemptee_candidates, preemptee_job_list,
                              JTC_JOB_TEST_EXC_ARGS);
        clock_gettime (CLOCK_MONOTONIC, &t1);
        debug2 ("select/cons_tres_jobtree: %pJ job_test mode=0x%x rc=%d %ld us",
                job_ptr, mode, rc,
                (long) ((t1.tv_sec - t0.tv_sec) * 1000000
                        + (t1.tv_nsec - t0.tv_nsec) / 1000));
        return rc;
    }
    return jtsel_ops.job_test (job_ptr, bitmap, min_nodes, max_nodes,
                                req_nodes, mode, preemptee_candidates,
                                preemptee_job_list, JTC_JOB_TEST_EXC_ARGS);
}

extern int select_p_job_expand (job_record_t *from_job_ptr,
                                job_record_t *to_job_ptr)
{
    int rc;

    READY_OR (SLURM_ERROR);
    rc = jtsel_ops.job_expand (from_job_ptr, to_job_ptr);
    jtsel_cache_job_changed (from_job_ptr);
    jtsel_cache_job_changed (to_job_ptr);
    if (rc == SLURM_SUCCESS && jtsel_is_jobtree (to_job_ptr))
        jtsel_lease_event ("expand", to_job_ptr, NULL);
    return rc;
}

extern int select_p_job_resized (job_record_t *job_ptr,
                                 node_record_t *node_ptr)
{
    int rc;

    READY_OR (SLURM_ERROR);
    rc = jtsel_ops.job_resized (job_ptr, node_ptr);
    jtsel_cache_job_changed (job_ptr);
    jtsel_cache_node_touched (node_ptr);
    if (jtsel_is_jobtree (job_ptr)) {
        /* A node failed under a run with spares (job_submit made it
         * --no-kill): swap a spare in, or requeue the whole run when a
         * group has none left (jobtree/spares.h); the lease events follow
         * the record. Changes to the job go through reshape.c's worker,
         * after the job lock is released. */
        jt_spares_verdict_t v = JT_SPARES_NONE;
        if (node_ptr && (IS_NODE_DOWN (node_ptr) || IS_NODE_FAIL (node_ptr)
                         || IS_NODE_NO_RESPOND (node_ptr)))
            v = jtsel_record_node_failed (job_ptr, node_ptr);
        if (v == JT_SPARES_REQUEUE) {
            jtsel_lease_event ("abort", job_ptr, node_ptr);
            if (jtsel_reshape_requeue_or_cancel (job_ptr->job_id) < 0)
                error ("select/cons_tres_jobtree: %pJ: requeue not queued (out of memory)", job_ptr);
            else
                jtsel_restart_plan (job_ptr, node_ptr, NULL, NULL);
        } else {
            jtsel_lease_event ("resized", job_ptr, node_ptr);
            if (v == JT_SPARES_SWAP
                && jtsel_reshape_signal (job_ptr->job_id, JTSEL_LAYOUT_SIGNAL) < 0)
                error ("select/cons_tres_jobtree: %pJ: signal queue full", job_ptr);
        }
    }
    return rc;
}

extern int select_p_job_fini (job_record_t *job_ptr)
{
    int rc;

    READY_OR (SLURM_ERROR);
    rc = jtsel_ops.job_fini (job_ptr);
    jtsel_cache_job_changed (job_ptr);
    if (jtsel_is_jobtree (job_ptr))
        jtsel_lease_event ("fini", job_ptr, NULL);
    jtsel_ledger_settle (true);
    if (jtsel_is_jobtree (job_ptr))
        jtsel_restart_fini (job_ptr);
    return rc;
}

extern int select_p_job_suspend (job_record_t *job_ptr, bool indf_susp)
{
    READY_OR (SLURM_ERROR);
    jtsel_cache_job_changed (job_ptr);
    return jtsel_ops.job_suspend (job_ptr, indf_susp);
}

extern int select_p_job_resume (job_record_t *job_ptr, bool indf_susp)
{
    READY_OR (SLURM_ERROR);
    jtsel_cache_job_changed (job_ptr);
    return jtsel_ops.job_resume (job_ptr, indf_susp);
}

/* slurmctld's commit point of an allocation (node_scheduler.c). */
extern int select_p_select_nodeinfo_set (job_record_t *job_ptr)
{
    int rc;

    READY_OR (SLURM_ERROR);
    rc = jtsel_ops.nodeinfo_set (job_ptr);
    jtsel_cache_job_changed (job_ptr);
    if (rc == SLURM_SUCCESS && jtsel_is_jobtree (job_ptr)) {
        jtsel_job_started (job_ptr);
        jtsel_restart_started (job_ptr);
        jtsel_lease_event ("begin", job_ptr, NULL);
    }
    return rc;
}

#if !JTC_SLURM_2411
extern int select_p_update_node_config (int index)
{
    READY_OR (SLURM_ERROR);
    jtsel_cache_node_changed ();
    return jtsel_ops.update_node_config (index);
}
#endif

/* `scontrol reconfigure`: cons_tres re-reads its parameters; we re-read
 * jobtree.conf and the budget directory (keeping the last good budgets). */
extern int select_p_reconfigure (void)
{
    READY_OR (SLURM_ERROR);
    jtsel_cache_invalidate ();
    jtsel_cache_reconfigure ();
    return jtsel_ops.reconfigure ();
}

/*
 * Every other select_p_* only forwards to cons_tres: FORWARD defines
 * select_p_NAME (PARAMS) returning jtsel_ops.MEMBER (ARGS), or FAIL when
 * cons_tres cannot be loaded. Slurm finds them by name (syms[] above).
 */
#define FORWARD(type, fail, name, member, params, args) \
    extern type select_p_##name params                  \
    {                                                   \
        READY_OR (fail);                                \
        return jtsel_ops.member args;                   \
    }

FORWARD (int, SLURM_ERROR, state_save, state_save, (char *dir_name), (dir_name))
FORWARD (int, SLURM_ERROR, state_restore, state_restore,
         (char *dir_name), (dir_name))
FORWARD (int, SLURM_ERROR, job_begin, job_begin,
         (job_record_t *job_ptr), (job_ptr))
FORWARD (int, SLURM_ERROR, job_ready, job_ready,
         (job_record_t *job_ptr), (job_ptr))
#if !JTC_SLURM_2411
FORWARD (int, SLURM_ERROR, job_signal, job_signal,
         (job_record_t *job_ptr, int signal), (job_ptr, signal))
#endif
FORWARD (bitstr_t *, NULL, step_pick_nodes, step_pick_nodes,
         (job_record_t *job_ptr, select_jobinfo_t *jobinfo,
          uint32_t node_count, bitstr_t **avail_nodes),
         (job_ptr, jobinfo, node_count, avail_nodes))
FORWARD (int, SLURM_ERROR, step_start, step_start,
         (step_record_t *step_ptr), (step_ptr))
FORWARD (int, SLURM_ERROR, step_finish, step_finish,
         (step_record_t *step_ptr, bool killing_step), (step_ptr, killing_step))
FORWARD (int, SLURM_ERROR, select_nodeinfo_pack, nodeinfo_pack,
         (select_nodeinfo_t *nodeinfo, buf_t *buffer, uint16_t protocol_version),
         (nodeinfo, buffer, protocol_version))
FORWARD (int, SLURM_ERROR, select_nodeinfo_unpack, nodeinfo_unpack,
         (select_nodeinfo_t **nodeinfo, buf_t *buffer, uint16_t protocol_version),
         (nodeinfo, buffer, protocol_version))
FORWARD (select_nodeinfo_t *, NULL, select_nodeinfo_alloc, nodeinfo_alloc,
         (void), ())
FORWARD (int, SLURM_ERROR, select_nodeinfo_free, nodeinfo_free,
         (select_nodeinfo_t *nodeinfo), (nodeinfo))
FORWARD (int, SLURM_ERROR, select_nodeinfo_set_all, nodeinfo_set_all,
         (void), ())
FORWARD (int, SLURM_ERROR, select_nodeinfo_get, nodeinfo_get,
         (select_nodeinfo_t *nodeinfo, enum select_nodedata_type dinfo,
          enum node_states state, void *data),
         (nodeinfo, dinfo, state, data))
FORWARD (select_jobinfo_t *, NULL, select_jobinfo_alloc, jobinfo_alloc,
         (void), ())
FORWARD (int, SLURM_ERROR, select_jobinfo_free, jobinfo_free,
         (select_jobinfo_t *jobinfo), (jobinfo))
FORWARD (int, SLURM_ERROR, select_jobinfo_set, jobinfo_set,
         (select_jobinfo_t *jobinfo, enum select_jobdata_type data_type, void *data),
         (jobinfo, data_type, data))
FORWARD (int, SLURM_ERROR, select_jobinfo_get, jobinfo_get,
         (select_jobinfo_t *jobinfo, enum select_jobdata_type data_type, void *data),
         (jobinfo, data_type, data))
FORWARD (select_jobinfo_t *, NULL, select_jobinfo_copy, jobinfo_copy,
         (select_jobinfo_t *jobinfo), (jobinfo))
FORWARD (int, SLURM_ERROR, select_jobinfo_pack, jobinfo_pack,
         (select_jobinfo_t *jobinfo, buf_t *buffer, uint16_t protocol_version),
         (jobinfo, buffer, protocol_version))
FORWARD (int, SLURM_ERROR, select_jobinfo_unpack, jobinfo_unpack,
         (select_jobinfo_t **jobinfo, buf_t *buffer, uint16_t protocol_version),
         (jobinfo, buffer, protocol_version))
#if !JTC_SLURM_2411
FORWARD (char *, NULL, select_jobinfo_sprint, jobinfo_sprint,
         (select_jobinfo_t *jobinfo, char *buf, size_t size, int mode),
         (jobinfo, buf, size, mode))
FORWARD (char *, NULL, select_jobinfo_xstrdup, jobinfo_xstrdup,
         (select_jobinfo_t *jobinfo, int mode), (jobinfo, mode))
#endif
FORWARD (int, SLURM_ERROR, get_info_from_plugin, get_info_from_plugin,
         (enum select_plugindata_info dinfo, job_record_t *job_ptr, void *data),
         (dinfo, job_ptr, data))
#if !JTC_SLURM_2411
FORWARD (bitstr_t *, NULL, resv_test, resv_test,
         (resv_desc_msg_t *resv_desc_ptr, uint32_t node_cnt,
          bitstr_t *avail_bitmap, bitstr_t **core_bitmap),
         (resv_desc_ptr, node_cnt, avail_bitmap, core_bitmap))
#endif
