/*
 * record.c - the Jobtree record in a job's admin_comment, on Slurm's side:
 * is this job a Jobtree run, write the funding bound at its start, and swap
 * a spare in when a node of a run with spares fails (jobtree/spares.h).
 * Format and parsing are libjobtree's (include/jobtree/record.h).
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

#include <stdlib.h>
#include <time.h>

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include <jobtree/record.h>
#include <jobtree/spares.h>

#include "select_jobtree.h"

bool jtsel_is_jobtree (const job_record_t *job_ptr)
{
    return job_ptr && jt_jobrec_is (job_ptr->admin_comment);
}

int jtsel_record_bind (job_record_t *job_ptr, const jt_plan_t *plan,
                        const jt_snapshot_t *s, int64_t now, jt_error_t *err)
{
    char *text = jt_jobrec_bind (job_ptr->admin_comment, plan, s, now, err);

    if (!text)
        return -1;
    xfree (job_ptr->admin_comment);
    job_ptr->admin_comment = xstrdup (text);
    free (text);
    return 0;
}

/* ---- a node failed under a run with spares (jobtree/spares.h) ---- */

jt_spares_verdict_t jtsel_record_node_failed (job_record_t *job_ptr,
                                              const node_record_t *node_ptr)
{
    jt_spares_decision_t d;
    jt_jobrec_t rec;
    jt_error_t err = { "" };
    const char **held;
    size_t n = 0, nheld = 0;
    bitstr_t *bm = job_ptr->node_bitmap;

    if (!bm || jt_jobrec_parse (job_ptr->admin_comment, &rec, &err) < 0)
        return JT_SPARES_NONE;
    for (size_t i = 0; i < rec.nbound; i++)
        n += rec.bound[i].nnodes + rec.bound[i].nspares;
    held = xcalloc (n + 1, sizeof (*held));
    /* The bound nodes the job still holds (slurmctld excised the failed
     * node from its bitmap before calling job_resized). */
    for (size_t i = 0; i < rec.nbound; i++) {
        const jt_jobrec_lease_t *b = &rec.bound[i];
        for (size_t k = 0; k < b->nnodes + b->nspares; k++) {
            char *node = k < b->nnodes ? b->nodes[k] : b->spares[k - b->nnodes];
            node_record_t *np = find_node_record (node);
            if (np && np->index < bit_size (bm) && bit_test (bm, np->index))
                held[nheld++] = node;
        }
    }
    if (jt_spares_on_fail (job_ptr->admin_comment, held, nheld, (int64_t) time (NULL),
                           &d, &err) < 0) {
        error ("select/cons_tres_jobtree: %pJ: node %s failed: %s", job_ptr,
               node_ptr->name, err.text);
        d.verdict = JT_SPARES_NONE;
    } else if (d.verdict == JT_SPARES_SWAP) {
        jt_error_t cerr = { "" };
        jtsel_cache_t *c = jtsel_cache_get (&cerr);
        /* the log says when a spare from the group's block put the group
         * across two domains (jobtree/spares.h) */
        if (c && c->topo && c->topo->snap)
            jt_spares_spans (&d, c->topo->snap);
        xfree (job_ptr->admin_comment);
        job_ptr->admin_comment = xstrdup (d.record);
        info ("select/cons_tres_jobtree: %pJ: node %s failed: %s", job_ptr,
              node_ptr->name, d.detail);
    } else if (d.verdict == JT_SPARES_REQUEUE)
        info ("select/cons_tres_jobtree: %pJ: node %s failed: %s", job_ptr,
              node_ptr->name, d.detail);
    jt_spares_verdict_t v = d.verdict;
    jt_spares_decision_free (&d);
    xfree (held);
    jt_jobrec_free (&rec);
    return v;
}
