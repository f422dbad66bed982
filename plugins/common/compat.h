/*
 * compat.h - the Slurm API differences the Jobtree plugins meet between
 * Slurm 22.05 (Debian 12) and 24.11 (Debian 13), in one place, keyed on
 * SLURM_VERSION_NUMBER. Each difference and the 24.11 source line that
 * forced it is in docs/slurm-24.11.md. Only these two series are known:
 * any other version stops the build here rather than miscompile.
 *
 * Include after "config.h" and "src/common/slurm_xlator.h"; it brings the
 * headers that moved (src/common -> src/interfaces in 24.11).
 */
#ifndef JT_PLUGIN_COMPAT_H
#define JT_PLUGIN_COMPAT_H

#include "slurm/slurm.h"

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0) \
    && SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 12, 0)
#define JTC_SLURM_2411 1
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 5, 0) \
    && SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 6, 0)
#define JTC_SLURM_2411 0
#else
#error "Jobtree's plugins know Slurm 22.05 and 24.11 only (plugins/common/compat.h, docs/slurm-24.11.md)"
#endif

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/hostlist.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#if JTC_SLURM_2411
#include "src/interfaces/gres.h"
#include "src/interfaces/select.h"
#include "src/interfaces/topology.h"
#else
#include "src/common/gres.h"
#include "src/common/select.h"
#include "src/common/slurm_topology.h"
#endif
#include "src/common/node_conf.h"
#include "src/slurmctld/slurmctld.h"

#if JTC_SLURM_2411
/* 24.11 dropped the pointer typedefs List and ListIterator for list_t and
 * list_itr_t (src/common/list.h:52,61); the plugins keep the old names. */
typedef list_t *List;
typedef list_itr_t *ListIterator;
/* hostlist_t is the struct in 24.11, a pointer in 22.05. */
typedef hostlist_t *jtc_hostlist_t;
#else
typedef hostlist_t jtc_hostlist_t;
#endif

#if JTC_SLURM_2411
/*
 * The select plugin's operations. 22.05 declares slurm_select_ops_t in
 * src/common/select.h; 24.11 keeps it private to src/interfaces/select.c
 * (lines 51-122, without job_signal, jobinfo_sprint, jobinfo_xstrdup,
 * update_node_config and resv_test), so the wrapper declares the same
 * layout here; select_jobtree.c's syms[] lists the same members in order
 * (a _Static_assert checks the count).
 */
typedef struct {
    uint32_t *plugin_id;
    int (*state_save) (char *dir_name);
    int (*state_restore) (char *dir_name);
    int (*job_init) (list_t *job_list);
    int (*node_init) (void);
    int (*job_test) (job_record_t *job_ptr, bitstr_t *bitmap,
                     uint32_t min_nodes, uint32_t max_nodes,
                     uint32_t req_nodes, uint16_t mode,
                     list_t *preeemptee_candidates,
                     list_t **preemptee_job_list, resv_exc_t *resv_exc_ptr,
                     will_run_data_t *will_run_ptr);
    int (*job_begin) (job_record_t *job_ptr);
    int (*job_ready) (job_record_t *job_ptr);
    int (*job_expand) (job_record_t *from_job_ptr, job_record_t *to_job_ptr);
    int (*job_resized) (job_record_t *job_ptr, node_record_t *node_ptr);
    int (*job_fini) (job_record_t *job_ptr);
    int (*job_suspend) (job_record_t *job_ptr, bool indf_susp);
    int (*job_resume) (job_record_t *job_ptr, bool indf_susp);
    bitstr_t *(*step_pick_nodes) (job_record_t *job_ptr,
                                  select_jobinfo_t *step_jobinfo,
                                  uint32_t node_count, bitstr_t **avail_nodes);
    int (*step_start) (step_record_t *step_ptr);
    int (*step_finish) (step_record_t *step_ptr, bool killing_step);
    int (*nodeinfo_pack) (select_nodeinfo_t *nodeinfo, buf_t *buffer,
                          uint16_t protocol_version);
    int (*nodeinfo_unpack) (select_nodeinfo_t **nodeinfo, buf_t *buffer,
                            uint16_t protocol_version);
    select_nodeinfo_t *(*nodeinfo_alloc) (void);
    int (*nodeinfo_free) (select_nodeinfo_t *nodeinfo);
    int (*nodeinfo_set_all) (void);
    int (*nodeinfo_set) (job_record_t *job_ptr);
    int (*nodeinfo_get) (select_nodeinfo_t *nodeinfo,
                         enum select_nodedata_type dinfo,
                         enum node_states state, void *data);
    select_jobinfo_t *(*jobinfo_alloc) (void);
    int (*jobinfo_free) (select_jobinfo_t *jobinfo);
    int (*jobinfo_set) (select_jobinfo_t *jobinfo,
                        enum select_jobdata_type data_type, void *data);
    int (*jobinfo_get) (select_jobinfo_t *jobinfo,
                        enum select_jobdata_type data_type, void *data);
    select_jobinfo_t *(*jobinfo_copy) (select_jobinfo_t *jobinfo);
    int (*jobinfo_pack) (select_jobinfo_t *jobinfo, buf_t *buffer,
                         uint16_t protocol_version);
    int (*jobinfo_unpack) (select_jobinfo_t **jobinfo_pptr, buf_t *buffer,
                           uint16_t protocol_version);
    int (*get_info_from_plugin) (enum select_plugindata_info dinfo,
                                 job_record_t *job_ptr, void *data);
    int (*reconfigure) (void);
} slurm_select_ops_t;
#endif

/*
 * job_test's last parameters: 22.05 passes the cores a reservation
 * excludes as a bitmap; 24.11 a resv_exc_t (src/slurmctld/slurmctld.h:400)
 * and a will_run_data_t (src/interfaces/select.h:65). Both are handed to
 * cons_tres unchanged: JTC_JOB_TEST_EXC declares them, JTC_JOB_TEST_EXC_ARGS
 * passes them on.
 */
#if JTC_SLURM_2411
#define JTC_JOB_TEST_EXC resv_exc_t *exc_core_bitmap, will_run_data_t *will_run_ptr
#define JTC_JOB_TEST_EXC_ARGS exc_core_bitmap, will_run_ptr
#else
#define JTC_JOB_TEST_EXC bitstr_t *exc_core_bitmap
#define JTC_JOB_TEST_EXC_ARGS exc_core_bitmap
#endif

/*
 * Whether a job holds its nodes alone: --exclusive (22.05 and 24.11:
 * details->whole_node WHOLE_NODE_REQUIRED; 22.05's WHOLE_NODE_MCS is 0x3,
 * so it is compared whole there, 24.11's are single bits,
 * src/common/job_record.h:58) or a partition with OverSubscribe=EXCLUSIVE
 * (max_share 0: cons_tres's NODE_CR_RESERVED). And the latest start
 * backfill asks a WILL_RUN about: 24.11's will_run_data_t end (0: none;
 * cons_tres stops replaying job ends after it), none on 22.05.
 */
#if JTC_SLURM_2411
#define JTC_WHOLE_NODE(d) (((d)->whole_node & WHOLE_NODE_REQUIRED) != 0)
#define JTC_WILL_RUN_END ((will_run_ptr) ? (int64_t) (will_run_ptr)->end : 0)
#else
#define JTC_WHOLE_NODE(d) ((d)->whole_node == WHOLE_NODE_REQUIRED)
#define JTC_WILL_RUN_END ((int64_t) 0)
#endif
#define JTC_JOB_ALONE(j)                                                    \
    (((j)->details && JTC_WHOLE_NODE ((j)->details))                        \
     || ((j)->part_ptr && (j)->part_ptr->max_share == 0))

/*
 * The reason code a Jobtree refusal is kept under. 22.05's select_nodes()
 * leaves WAIT_BLOCK_MAX_ERR and its text alone ("state_reason was already
 * setup"); 24.11 has no such code and resets every other reason to
 * WAIT_RESOURCES with no text (src/slurmctld/node_scheduler.c:2912), so
 * there a line set by the main scheduler's job_test is lost; the one the
 * backfill pass sets stays until the next main pass (t2000 sees it).
 */
#if JTC_SLURM_2411
#define JTC_REASON WAIT_RESOURCES
#else
#define JTC_REASON WAIT_BLOCK_MAX_ERR
#endif

/*
 * The leaf (level 0) switch of every node, by node index: the first leaf
 * listing it, NULL for none; node_record_count entries, xmalloc'd, freed
 * with jtc_leaf_switches_free. 22.05 has slurmctld's switch_record_table;
 * 24.11 keeps it inside topology/tree (src/plugins/topology/tree/
 * switch_record.h:66), so it asks the topology interface for the switch
 * records (topology_g_get TOPO_DATA_TOPOLOGY_PTR: names and levels, the
 * tree plugin's topoinfo_tree_t, src/plugins/topology/tree/topology_tree.c
 * :104) and each leaf's node bitmap (topology_g_get_bitmap); with
 * topology/block the base blocks are the leaves (topology_block.c:275-301).
 * Other topology plugins: no leaves (domains come from node features).
 * One pass over each leaf's bitmap range.
 */
typedef struct jtc_leaves {
    const char **leaf;  /* by node index */
    char **names;       /* owned copies (24.11) */
    int nnames;
} jtc_leaves_t;

static inline void jtc_leaves_mark (jtc_leaves_t *l, bitstr_t *bm,
                                    const char *name)
{
    int first, last;

    if (!bm || (first = bit_ffs (bm)) < 0)
        return;
    last = bit_fls (bm);
    for (int i = first; i <= last && i < node_record_count; i++)
        if (!l->leaf[i] && bit_test (bm, i))
            l->leaf[i] = name;
}

#if JTC_SLURM_2411
/* The tree plugin's private record list (topology_tree.c:104). */
typedef struct jtc_topoinfo_tree {
    uint32_t record_count;
    topo_info_t *topo_array;
} jtc_topoinfo_tree_t;
/* The block plugin's (src/plugins/topology/block/topology_block.c:94-105):
 * the base blocks (BlockName=, not aggregated) first, then the aggregated
 * ones. */
typedef struct jtc_bblock {
    bool aggregated;
    uint16_t block_index;
    char *name;
    char *nodes;
    uint32_t size;
} jtc_bblock_t;
typedef struct jtc_topoinfo_block {
    uint32_t record_count;
    jtc_bblock_t *topo_array;
} jtc_topoinfo_block_t;

/* Record one leaf: a copy of its name, its nodes marked. */
static inline void jtc_leaves_add (jtc_leaves_t *l, const char *name)
{
    l->names[l->nnames] = xstrdup (name);
    jtc_leaves_mark (l, topology_g_get_bitmap (l->names[l->nnames]),
                     l->names[l->nnames]);
    l->nnames++;
}
#endif

static inline void jtc_leaf_switches (jtc_leaves_t *l)
{
    l->leaf = xcalloc (node_record_count > 0 ? node_record_count : 1,
                       sizeof (*l->leaf));
    l->names = NULL;
    l->nnames = 0;
#if JTC_SLURM_2411
    dynamic_plugin_data_t *dyn = NULL;
    int id = topology_get_plugin_id ();

    if ((id != TOPOLOGY_PLUGIN_TREE && id != TOPOLOGY_PLUGIN_BLOCK)
        || topology_g_get (TOPO_DATA_TOPOLOGY_PTR, &dyn) != SLURM_SUCCESS
        || !dyn)
        return;
    if (dyn->data && dyn->plugin_id == TOPOLOGY_PLUGIN_TREE) {
        jtc_topoinfo_tree_t *tree = dyn->data;
        if (tree->record_count > 0 && tree->record_count < (1u << 20)) {
            l->names = xcalloc (tree->record_count, sizeof (*l->names));
            for (uint32_t s = 0; s < tree->record_count; s++)
                if (tree->topo_array[s].level == 0 && tree->topo_array[s].name)
                    jtc_leaves_add (l, tree->topo_array[s].name);
        }
    } else if (dyn->data && dyn->plugin_id == TOPOLOGY_PLUGIN_BLOCK) {
        /* topology/block: each base block is a domain, as a leaf switch
         * is under topology/tree. */
        jtc_topoinfo_block_t *blk = dyn->data;
        if (blk->record_count > 0 && blk->record_count < (1u << 20)) {
            l->names = xcalloc (blk->record_count, sizeof (*l->names));
            for (uint32_t s = 0; s < blk->record_count; s++)
                if (!blk->topo_array[s].aggregated && blk->topo_array[s].name)
                    jtc_leaves_add (l, blk->topo_array[s].name);
        }
    }
    topology_g_topology_free (dyn);
#else
    for (int s = 0; s < switch_record_cnt; s++) {
        switch_record_t *sw = &switch_record_table[s];
        if (sw->level == 0)
            jtc_leaves_mark (l, sw->node_bitmap, sw->name);
    }
#endif
}

static inline void jtc_leaf_switches_free (jtc_leaves_t *l)
{
    for (int i = 0; i < l->nnames; i++)
        xfree (l->names[i]);
    xfree (l->names);
    xfree (l->leaf);
    l->nnames = 0;
}

#endif /* JT_PLUGIN_COMPAT_H */
