/*
 * jobtree_job_test.c - job_test for a Jobtree run: Cover against live usage
 * and Pack over whole free nodes of the flavor (jt_plan_run), then narrow
 * slurmctld's node bitmap to the plan and let cons_tres do the per-node
 * accounting (cores, memory, GRES) on exactly those nodes.
 *
 * The three modes answer the same question in three tenses, so the main
 * scheduler and backfill agree:
 *   RUN_NOW    plan against live usage; nodes outside the caller's bitmap
 *              count as busy. BindNow: cons_tres on the planned nodes, and
 *              on success the funding is written into the job's record.
 *   TEST_ONLY  "could it ever run": every node of the bitmap free and up,
 *              no usage. Only a run no envelope could ever fund, or a group
 *              that fits no domain even on an idle cluster, is refused
 *              (slurmctld then marks the job never runnable).
 *   WILL_RUN   as RUN_NOW when the plan binds now (cons_tres confirms on
 *              the planned nodes); when only placement is missing, cons_tres
 *              estimates the start on each domain that could hold the run
 *              and the earliest wins, so backfill's reservation stays inside
 *              one domain. A run its envelopes cannot fund gets no estimate.
 * A refused run keeps a Jobtree reason in state_desc ("jobtree: ..."),
 * shown by squeue and scontrol. The reason code WAIT_BLOCK_MAX_ERR is the
 * one select_nodes() leaves alone ("state_reason was already setup"), so the
 * text survives its generic WAIT_RESOURCES reset.
 */
#include "config.h"

/* Slurm's own plugins include this first: it renames libslurm calls to
 * their exported slurm_* aliases, so the plugin also loads in clients
 * linked with libslurm.so. */
#include "src/common/slurm_xlator.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "select_jobtree.h"

#define JT_SEL_REASON WAIT_BLOCK_MAX_ERR

static void set_reason (job_record_t *job_ptr, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void set_reason (job_record_t *job_ptr, const char *fmt, ...)
{
    va_list ap;
    char buf[512];

    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    if (job_ptr->state_reason == JT_SEL_REASON && job_ptr->state_desc
        && !strcmp (job_ptr->state_desc, buf))
        return;
    xfree (job_ptr->state_desc);
    job_ptr->state_desc = xstrdup (buf);
    job_ptr->state_reason = JT_SEL_REASON;
    debug ("select/cons_tres_jobtree: %pJ: %s", job_ptr, buf);
}

/* Drop our reason when the refusal is not ours any more (cons_tres decides). */
static void clear_reason (job_record_t *job_ptr)
{
    if (job_ptr->state_reason == JT_SEL_REASON) {
        xfree (job_ptr->state_desc);
        job_ptr->state_reason = WAIT_NO_REASON;
    }
}

static void plan_reason (job_record_t *job_ptr, const jt_plan_t *p)
{
    if (p->detail[0])
        set_reason (job_ptr, "jobtree: %s", p->detail);
    else
        set_reason (job_ptr, "jobtree: %s (%s)", jt_decision_str (p->decision),
                    jt_reason_str (p->reason));
}

static bool is_pack_reason (jt_reason_t r)
{
    return r == JT_NO_DOMAIN_FITS || r == JT_SPREAD_NO_DOMAIN || r == JT_NO_NODES;
}

/* Apply the caller's bitmap to the cached snapshot: nodes outside it are
 * busy; with `idle`, nodes inside it are free and up (TEST_ONLY). */
static void apply_bitmap (jtsel_topo_t *t, bitstr_t *bitmap, bool idle)
{
    int nbits = bitmap ? (int) bit_size (bitmap) : 0;

    for (size_t k = 0; k < t->snap->nnodes; k++) {
        jt_node_t *n = &t->snap->nodes[k];
        int idx = t->snap2slurm[k];
        bool in = idx >= 0 && idx < nbits && bit_test (bitmap, idx);

        if (!in) {
            n->used_gpus = n->gpus;
            n->state = t->base_state[k];
        } else if (idle) {
            n->used_gpus = 0;
            n->state = JT_NODE_UP;
        } else {
            n->used_gpus = t->base_used[k];
            n->state = t->base_state[k];
        }
    }
}

static void restore (jtsel_topo_t *t)
{
    for (size_t k = 0; k < t->snap->nnodes; k++) {
        t->snap->nodes[k].used_gpus = t->base_used[k];
        t->snap->nodes[k].state = t->base_state[k];
    }
}

/* The planned nodes (groups, then spares while max_nodes allows) as a
 * bitmap of slurm node indexes. Returns the node count. */
static uint32_t plan_bitmap (const jtsel_topo_t *t, const jt_plan_t *p,
                             bitstr_t *bitmap, uint32_t max_nodes)
{
    uint32_t n = 0;

    bit_clear_all (bitmap);
    for (size_t g = 0; g < p->ngroups; g++)
        for (size_t k = 0; k < p->groups[g].nnodes; k++) {
            int idx = t->snap2slurm[p->groups[g].nodes[k]];
            if (idx >= 0 && !bit_test (bitmap, idx)) {
                bit_set (bitmap, idx);
                n++;
            }
        }
    for (size_t g = 0; g < p->ngroups; g++)
        for (size_t k = 0; k < p->groups[g].nspares; k++) {
            int idx = t->snap2slurm[p->groups[g].spares[k]];
            if (n >= max_nodes)
                break;
            if (idx >= 0 && !bit_test (bitmap, idx)) {
                bit_set (bitmap, idx);
                n++;
            }
        }
    return n;
}

/* WILL_RUN when Cover funds the run but Pack has no room now. A run that
 * must sit in one domain (one group, or cross-group spread off) asks
 * cons_tres for the start within each domain able to hold it and keeps the
 * earliest (ties: domain order), so backfill reserves nodes of one domain.
 * A run whose groups may spread asks once over every domain node of its
 * flavor. The start itself is always decided by Pack in RUN_NOW. */
static int will_run_by_domain (job_record_t *job_ptr, bitstr_t *bitmap,
                               const jtsel_topo_t *t, const jt_run_t *run,
                               uint16_t mode, bitstr_t *exc_core_bitmap)
{
    const jt_snapshot_t *s = t->snap;
    int gpn = jt_snapshot_gpus_per_node (s, run->flavor);
    int64_t need = run->malleable ? run->min_gpus : run->total_gpus;
    int64_t group = run->group_gpus > 0 && run->group_gpus < need
                        ? run->group_gpus : need;
    bitstr_t *best = NULL, *tmp;
    time_t best_start = 0;
    uint32_t nodes;
    bool whole;

    if (gpn <= 0 || need <= 0)
        return SLURM_ERROR;
    whole = !run->cross_group_spread || group >= need;
    nodes = (uint32_t) ((need + gpn - 1) / gpn);
    for (size_t d = 0; whole && d < s->ndomains; d++) {
        const jt_domain_t *dom = &s->domains[d];
        int64_t cap = 0;
        uint32_t cnt;
        int rc;

        tmp = bit_alloc (bit_size (bitmap));
        for (size_t k = 0; k < dom->nnodes; k++) {
            const jt_node_t *n = &s->nodes[dom->nodes[k]];
            int idx = t->snap2slurm[dom->nodes[k]];
            if (!n->flavor || strcmp (n->flavor, run->flavor) || idx < 0
                || !bit_test (bitmap, idx)
                || t->base_state[dom->nodes[k]] != JT_NODE_UP)
                continue;
            bit_set (tmp, idx);
            cap += n->gpus;
        }
        cnt = (uint32_t) bit_set_count (tmp);
        if (cap < need || cnt < nodes) {
            FREE_NULL_BITMAP (tmp);
            continue;
        }
        rc = jtsel_ops.job_test (job_ptr, tmp, nodes, nodes, nodes, mode,
                                  NULL, NULL, exc_core_bitmap);
        if (rc == SLURM_SUCCESS && (!best || job_ptr->start_time < best_start)) {
            FREE_NULL_BITMAP (best);
            best = tmp;
            best_start = job_ptr->start_time;
        } else
            FREE_NULL_BITMAP (tmp);
    }
    if (!whole) {
        /* Groups may spread: one estimate over all domain nodes of the
         * flavor (an estimate only; the start itself is Pack's). */
        tmp = bit_alloc (bit_size (bitmap));
        for (size_t k = 0; k < s->nnodes; k++) {
            int idx = t->snap2slurm[k];
            if (s->nodes[k].flavor && !strcmp (s->nodes[k].flavor, run->flavor)
                && s->nodes[k].domain >= 0 && idx >= 0 && bit_test (bitmap, idx))
                bit_set (tmp, idx);
        }
        if (jtsel_ops.job_test (job_ptr, tmp, nodes, nodes, nodes, mode, NULL,
                                 NULL, exc_core_bitmap) == SLURM_SUCCESS) {
            best = tmp;
            best_start = job_ptr->start_time;
        } else
            FREE_NULL_BITMAP (tmp);
    }
    if (!best)
        return SLURM_ERROR;
    bit_copybits (bitmap, best);
    FREE_NULL_BITMAP (best);
    job_ptr->start_time = best_start;
    return SLURM_SUCCESS;
}

/* A malleable run binds a total between its bounds; keep that inside the
 * node range Slurm will accept for the job, so the plan and the job agree. */
static void clamp_malleable (jt_run_t *run, const jt_snapshot_t *s,
                             uint32_t min_nodes, uint32_t max_nodes)
{
    int gpn = jt_snapshot_gpus_per_node (s, run->flavor);
    int64_t lo, hi;

    if (!run->malleable || gpn <= 0)
        return;
    lo = run->min_gpus > (int64_t) min_nodes * gpn ? run->min_gpus
                                                   : (int64_t) min_nodes * gpn;
    hi = run->max_gpus;
    if (max_nodes > 0 && max_nodes < NO_VAL && (int64_t) max_nodes * gpn < hi)
        hi = (int64_t) max_nodes * gpn;
    if (lo <= hi) {
        run->min_gpus = lo;
        run->max_gpus = hi;
    }
}

int jtsel_job_test (job_record_t *job_ptr, bitstr_t *bitmap,
                     uint32_t min_nodes, uint32_t max_nodes,
                     uint32_t req_nodes, uint16_t mode,
                     List preemptee_candidates, List *preemptee_job_list,
                     bitstr_t *exc_core_bitmap)
{
    uint16_t base = JT_SEL_MODE (mode);
    bool test_only = SELECT_IS_MODE_TEST_ONLY (mode);
    bool will_run = SELECT_IS_MODE_WILL_RUN (mode);
    int64_t now = (int64_t) time (NULL);
    jt_jobrec_t rec;
    jtsel_cache_t *c;
    jt_plan_t plan;
    jt_error_t err;
    jt_usage_t zero;
    bool have_zero = false;
    int rc = SLURM_ERROR;

    (void) req_nodes;
    if (SELECT_IS_MODE_RESV (mode) || base > SELECT_MODE_WILL_RUN)
        return jtsel_ops.job_test (job_ptr, bitmap, min_nodes, max_nodes,
                                    req_nodes, mode, preemptee_candidates,
                                    preemptee_job_list, exc_core_bitmap);
    if (jt_jobrec_parse (job_ptr->admin_comment, &rec, &err) < 0) {
        set_reason (job_ptr, "jobtree: unreadable run record: %s", err.text);
        return SLURM_ERROR;
    }
    if (!rec.run || !rec.run->flavor) {
        set_reason (job_ptr, "jobtree: run record has no GPU flavor");
        jt_jobrec_free (&rec);
        return SLURM_ERROR;
    }
    if (!(c = jtsel_cache_get (&err)) || !c->budgets) {
        /* A configuration problem is not the job's: in TEST_ONLY say it
         * could run (so it stays pending, not "never runnable"). */
        const char *why = c ? c->budget_error : err.text;
        jt_jobrec_free (&rec);
        if (test_only)
            return jtsel_ops.job_test (job_ptr, bitmap, min_nodes, max_nodes,
                                        req_nodes, mode, preemptee_candidates,
                                        preemptee_job_list, exc_core_bitmap);
        set_reason (job_ptr, "jobtree: %s", why);
        return SLURM_ERROR;
    }

    clamp_malleable (rec.run, c->topo->snap, min_nodes, max_nodes);
    if (test_only) {
        char detail[JT_ERRMSG_MAX] = "";
        jt_reason_t r = jt_cover_ever (c->budgets, rec.run, now, detail,
                                       sizeof (detail));
        if (r != JT_OK) {
            set_reason (job_ptr, "jobtree: never fundable: %s",
                        detail[0] ? detail : jt_reason_str (r));
            jt_jobrec_free (&rec);
            return SLURM_ERROR;
        }
        if (jt_usage_init (&zero, c->budgets) < 0) {
            jt_jobrec_free (&rec);
            return SLURM_ERROR;
        }
        have_zero = true;
    }

    if (!test_only) {
        /* Live usage from the snapshot's leases (bound records), plus the
         * GPU-hours of closed leases folded from the ledger. */
        jt_error_t uerr;
        if (jt_usage_from_snapshot (&zero, c->budgets, c->topo->snap, now,
                                    &uerr) < 0) {
            jt_jobrec_free (&rec);
            return SLURM_ERROR;
        }
        have_zero = true;
        jtsel_ledger_add_closed (&zero, c->budgets);
    }
    apply_bitmap (c->topo, bitmap, test_only);
    memset (&plan, 0, sizeof (plan));
    if (jt_plan_run (c->budgets, c->topo->snap, have_zero ? &zero : NULL,
                     rec.run, now, &c->plan_opts, &plan, &err) < 0) {
        restore (c->topo);
        error ("select/cons_tres_jobtree: %pJ: plan failed: %s", job_ptr, err.text);
        set_reason (job_ptr, "jobtree: internal error: %s", err.text);
        goto out;
    }

    if (plan.decision == JT_BIND_NOW) {
        bitstr_t *narrow = bit_copy (bitmap);
        uint32_t n = plan_bitmap (c->topo, &plan, narrow, max_nodes);

        restore (c->topo);
        if (n < min_nodes && !test_only) {
            set_reason (job_ptr, "jobtree: plan of %u nodes is below the job's "
                        "minimum of %u", n, min_nodes);
            FREE_NULL_BITMAP (narrow);
            goto out;
        }
        rc = jtsel_ops.job_test (job_ptr, narrow, n, n, n, mode,
                                  preemptee_candidates, preemptee_job_list,
                                  exc_core_bitmap);
        if (rc == SLURM_SUCCESS) {
            bit_copybits (bitmap, narrow);
            if (base == SELECT_MODE_RUN_NOW && !test_only && !will_run) {
                char *dump = jt_plan_dump (&plan, c->topo->snap);
                if (jtsel_record_bind (job_ptr, &plan, c->topo->snap, now, &err) < 0)
                    error ("select/cons_tres_jobtree: %pJ: cannot record funding: %s",
                           job_ptr, err.text);
                info ("select/cons_tres_jobtree: %pJ: %s", job_ptr, dump ? dump : "");
                free (dump);
            }
        }
        /* TEST_ONLY answers "ever", not "now": a Jobtree reason set by
         * this pass's RUN_NOW stays. */
        if (!test_only)
            clear_reason (job_ptr);
        FREE_NULL_BITMAP (narrow);
        goto out;
    }
    restore (c->topo);

    if (test_only) {
        /* Idle cluster, no usage: only placement can make it never run. */
        if (is_pack_reason (plan.reason)) {
            plan_reason (job_ptr, &plan);
            goto out;
        }
        rc = jtsel_ops.job_test (job_ptr, bitmap, min_nodes, max_nodes,
                                  req_nodes, mode, preemptee_candidates,
                                  preemptee_job_list, exc_core_bitmap);
        goto out;
    }
    plan_reason (job_ptr, &plan);
    if (will_run && plan.decision == JT_PLAN_LATER && is_pack_reason (plan.reason))
        rc = will_run_by_domain (job_ptr, bitmap, c->topo, rec.run, mode,
                                 exc_core_bitmap);
out:
    jt_plan_free (&plan);
    if (have_zero)
        jt_usage_free (&zero);
    jt_jobrec_free (&rec);
    return rc;
}

void jtsel_job_started (job_record_t *job_ptr)
{
    verbose ("select/cons_tres_jobtree: %pJ started on %s", job_ptr,
             job_ptr->nodes ? job_ptr->nodes : "?");
}

