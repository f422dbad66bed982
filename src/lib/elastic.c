/*
 * elastic.c - a running malleable run's growth: when, to what size, into
 * which groups (jobtree/elastic.h).
 *
 * DESIGN: the new groups are planned as a run of their own (the same
 * owner, flavor, groupGPUs, spares, funding and constraints; malleable
 * from one step to the room left below the run's maximum) by jt_plan_run
 * on the live snapshot, whose usage already holds the run's leases: Cover
 * then funds the new groups on top of what the run is paid for, and Pack
 * places them on nodes nobody holds. The cost is one plan, bounded like
 * any plan by the cluster and the budgets, never by the range asked for.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "jobtree/elastic.h"
#include "util/strbuf.h"

/* Instants and durations beyond this are refused (year 36812): the
 * arithmetic below then never overflows. */
#define T_MAX (INT64_C (1) << 40)

const char *jt_grow_verdict_str (jt_grow_verdict_t v)
{
    switch (v) {
    case JT_GROW_NO:
        return "no";
    case JT_GROW_WAIT:
        return "wait";
    case JT_GROW_NOW:
        return "now";
    }
    return "?";
}

void jt_grow_free (jt_grow_t *g)
{
    if (!g)
        return;
    jt_plan_free (&g->extra);
    memset (g, 0, sizeof (*g));
}

int64_t jt_elastic_next_checkpoint (int64_t start, int64_t c, int64_t now)
{
    if (c <= 0 || c > T_MAX || start < 0 || start > T_MAX || now < 0 || now > T_MAX)
        return 0;
    if (now < start + c)
        return start + c;
    return start + ((now - start) / c + 1) * c;
}

bool jt_elastic_due (const jt_run_t *r, int64_t start, int64_t now, int64_t slack)
{
    int64_t c = r->checkpoint_s;

    if (!r->malleable || c <= 0 || c > T_MAX || start < 0 || start > T_MAX || now < start
        || now > T_MAX || slack < 0)
        return false;
    return now - start >= c && (now - start) % c <= slack;
}

static int no (jt_grow_t *out, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* JT_GROW_NO with its detail; returns 0. */
static int no (jt_grow_t *out, const char *fmt, ...)
{
    va_list ap;

    out->verdict = JT_GROW_NO;
    va_start (ap, fmt);
    vsnprintf (out->detail, sizeof (out->detail), fmt, ap);
    va_end (ap);
    return 0;
}

int jt_elastic_grow (const jt_budgets_t *b, const jt_snapshot_t *s,
                     const jt_grow_in_t *in, jt_grow_t *out, jt_error_t *err)
{
    const jt_run_t *r = in->run;
    jt_run_t x;
    jt_plan_opts_t opts = { .policy = in->policy };
    int64_t gpn, step, top, lo, hi;

    memset (out, 0, sizeof (*out));
    if (!r->malleable)
        return no (out, "not malleable (%" PRId64 " GPUs, fixed)", r->total_gpus);
    if (in->current_gpus < r->min_gpus || in->current_gpus > r->max_gpus)
        return jt_errprintf (err, "current total %" PRId64 " GPUs is outside the "
                             "run's bounds %" PRId64 "-%" PRId64, in->current_gpus,
                             r->min_gpus, r->max_gpus);
    if (in->cap_gpus < 0 || in->start < 0 || in->start > T_MAX || in->now < in->start
        || in->now > T_MAX)
        return jt_errprintf (err, "cap %" PRId64 ", start %" PRId64 " or now %" PRId64
                             " out of range (0 <= start <= now <= 2^40)", in->cap_gpus,
                             in->start, in->now);
    if (r->checkpoint_s <= 0)
        return no (out, "no --checkpoint: a requeue to grow would lose all its "
                   "work (%" PRId64 " of %" PRId64 " GPUs)", in->current_gpus,
                   r->max_gpus);
    if (r->checkpoint_s > T_MAX || in->slack < 0 || in->slack > r->checkpoint_s)
        return jt_errprintf (err, "slack %" PRId64 " s must be 0..the run's checkpoint "
                             "interval %" PRId64 " s", in->slack, r->checkpoint_s);
    if (in->bound_gpus > in->current_gpus)
        return no (out, "shrunk since it started (%" PRId64 " of the %" PRId64 " GPUs it "
                   "started with): it keeps that size until it restarts",
                   in->current_gpus, in->bound_gpus);
    gpn = jt_snapshot_gpus_per_node (s, r->flavor);
    step = jt_run_step_gpus (r, gpn);
    if (step < 1)
        step = 1;
    if (r->group_gpus > 0 && in->current_gpus % r->group_gpus)
        return no (out, "its last group is short (%" PRId64 " GPUs in groups of %"
                   PRId64 "): it grows only from whole groups", in->current_gpus,
                   r->group_gpus);
    top = r->max_gpus;
    if (in->cap_gpus > 0 && in->cap_gpus < top)
        top = in->cap_gpus;
    lo = step;
    hi = top > in->current_gpus ? (top - in->current_gpus) / step * step : 0;
    if (hi < lo)
        return no (out, "at its maximum (%" PRId64 " of %" PRId64 " GPUs)",
                   in->current_gpus, top);

    x = *r;                     /* shallow: only the sizes change */
    x.malleable = true;
    x.min_gpus = lo;
    x.max_gpus = hi;
    x.total_gpus = hi;
    x.step_gpus = step;
    x.step_given = true;
    /* under levels: the run's own blocks first (the lowest level's units
     * its leases' domains are in) */
    unsigned char *prefer = NULL;
    if (s->nlevels && in->lease_run && r->cross_group_spread
        && (prefer = calloc (s->ndomains + 1, 1))) {
        bool any = false;
        for (size_t i = 0; i < s->nleases; i++) {
            const jt_lease_t *l = &s->leases[i];
            if (strcmp (l->run, in->lease_run) != 0)
                continue;
            for (size_t k = 0; k < l->nnodes; k++) {
                ssize_t n = jt_snapshot_node_index (s, l->nodes[k]);
                int d = n >= 0 ? s->nodes[n].domain : -1;
                if (d < 0)
                    continue;
                ssize_t u = s->domains[d].up[0];
                size_t one, nd;
                const size_t *ud = jt_pack_level_domains (
                    s, 0, u >= 0 ? (size_t) u : s->nunits[0] + (size_t) d, &one, &nd);
                for (size_t j = 0; j < nd; j++)
                    prefer[ud[j]] = 1;
                any = true;
            }
        }
        opts.prefer = any ? prefer : NULL;
    }
    int prc = jt_plan_run (b, s, NULL, &x, in->now, &opts, &out->extra, err);
    free (prefer);
    if (prc < 0)
        return -1;
    if (out->extra.decision != JT_BIND_NOW) {
        int64_t cur = in->current_gpus;
        jt_grow_free (out);
        return no (out, "no room: not even %" PRId64 " more GPUs are funded and "
                   "placed now (it stays at %" PRId64 ")", lo, cur);
    }
    if (!r->cross_group_spread && in->current_domain >= 0)
        for (size_t i = 0; i < out->extra.ngroups; i++)
            if ((int) out->extra.groups[i].domain != in->current_domain) {
                int64_t cur = in->current_gpus;
                jt_grow_free (out);
                return no (out, "no room in its domain (cross-group spread off; it "
                           "stays at %" PRId64 ")", cur);
            }
    out->target = in->current_gpus + out->extra.total_gpus;

    int64_t c = r->checkpoint_s, last = 0;
    if (in->now - in->start >= c)
        last = in->start + (in->now - in->start) / c * c;
    if (last && in->now - last <= in->slack) {
        out->verdict = JT_GROW_NOW;
        out->at = in->now;
        snprintf (out->detail, sizeof (out->detail), "grows from %" PRId64 " to %"
                  PRId64 " GPUs: requeued %" PRId64 " s after its checkpoint",
                  in->current_gpus, out->target, in->now - last);
    } else {
        out->verdict = JT_GROW_WAIT;
        out->at = jt_elastic_next_checkpoint (in->start, c, in->now);
        snprintf (out->detail, sizeof (out->detail), "would grow from %" PRId64 " to %"
                  PRId64 " GPUs at its next checkpoint, in %" PRId64 " s",
                  in->current_gpus, out->target, out->at - in->now);
    }
    return 0;
}

size_t jt_elastic_slice (const jt_grow_t *g, const jt_snapshot_t *s,
                         const char *self, bool *eligible)
{
    size_t n = 0;

    memset (eligible, 0, s->nnodes * sizeof (*eligible));
    if (g->verdict == JT_GROW_NO)
        return 0;
    for (size_t i = 0; self && i < s->nleases; i++) {
        const jt_lease_t *l = &s->leases[i];
        if (!l->run || strcmp (l->run, self))
            continue;
        for (size_t j = 0; j < l->nnodes; j++) {
            ssize_t k = jt_snapshot_node_index (s, l->nodes[j]);
            if (k >= 0 && !eligible[k]) {
                eligible[k] = true;
                n++;
            }
        }
    }
    for (size_t i = 0; i < g->extra.ngroups; i++) {
        const jt_plan_group_t *pg = &g->extra.groups[i];
        for (size_t j = 0; j < pg->nnodes + pg->nspares; j++) {
            size_t k = j < pg->nnodes ? pg->nodes[j] : pg->spares[j - pg->nnodes];
            if (k < s->nnodes && !eligible[k]) {
                eligible[k] = true;
                n++;
            }
        }
    }
    return n;
}

/* ---- shrink on request ---- */

static bool holds (const jt_jobrec_lease_t *b, const char *node)
{
    for (size_t k = 0; node && k < b->nnodes; k++)
        if (!strcmp (b->nodes[k], node))
            return true;
    return false;
}

/* The batch host's group first (kept whatever its index), then by group. */
static int by_group (const void *a, const void *b, void *arg)
{
    const jt_jobrec_lease_t *x = *(const jt_jobrec_lease_t *const *) a;
    const jt_jobrec_lease_t *y = *(const jt_jobrec_lease_t *const *) b;
    bool hx = holds (x, arg), hy = holds (y, arg);

    if (hx != hy)
        return hx ? -1 : 1;
    return (x->group > y->group) - (x->group < y->group);
}

/* The node counts that keep whole groups 0..k-1 at or above min, as
 * "2 (16 GPUs) or 4 (32 GPUs)" into b; how many. */
static size_t valid_counts (const jt_jobrec_lease_t *const *g, size_t n,
                            int64_t min, uint32_t below, jt_strbuf_t *b)
{
    uint64_t nodes = 0;
    int64_t gpus = 0;
    size_t m = 0;

    for (size_t k = 0; k < n; k++) {
        nodes += g[k]->nnodes + g[k]->nspares;
        gpus += g[k]->gpus;
        if (gpus >= min && nodes < below) {
            jt_strbuf_printf (b, "%s%" PRIu64 " (%" PRId64 " GPUs)", m ? ", " : "",
                              nodes, gpus);
            m++;
        }
    }
    return m;
}

int jt_elastic_shrink (const jt_jobrec_t *rec, uint32_t want_nodes,
                       const char *batch_host, char **keep, int64_t *kept_gpus,
                       char *why, size_t len)
{
    const jt_jobrec_lease_t **g = NULL;
    jt_strbuf_t b = JT_STRBUF_INIT, ok = JT_STRBUF_INIT;
    uint64_t held = 0, nodes = 0;
    int64_t total = 0, gpus = 0, min;
    size_t n = 0, k;
    int rc = -1;

    *keep = NULL;
    *kept_gpus = 0;
    if (!rec || !rec->run) {
        snprintf (why, len, "jobtree: the job's run record is missing");
        return -1;
    }
    if (!(g = calloc (rec->nbound + 1, sizeof (*g)))) {
        snprintf (why, len, "jobtree: out of memory");
        return -1;
    }
    for (size_t i = 0; i < rec->nbound; i++)
        if (rec->bound[i].nnodes > 0) {         /* a group shrunk away holds none */
            g[n++] = &rec->bound[i];
            held += rec->bound[i].nnodes + rec->bound[i].nspares;
            total += rec->bound[i].gpus;
        }
    if (want_nodes >= held) {
        rc = 0;                                 /* no shrink: Slurm's */
        goto out;
    }
    qsort_r (g, n, sizeof (*g), by_group, (void *) batch_host);
    min = rec->run->malleable ? rec->run->min_gpus : total;
    if (!rec->run->malleable) {
        snprintf (why, len, "jobtree: NumNodes=%" PRIu32 " would shrink a run that is "
                  "not malleable (its %" PRId64 " GPUs are its size); submit it with "
                  "--malleable=MIN:MAX to let it shrink by whole groups",
                  want_nodes, total);
        goto out;
    }
    for (k = 0; k < n && nodes < want_nodes; k++) {
        nodes += g[k]->nnodes + g[k]->nspares;
        gpus += g[k]->gpus;
    }
    if (nodes != want_nodes || gpus < min) {
        size_t m = valid_counts (g, n, min, (uint32_t) (held > UINT32_MAX ? UINT32_MAX : held), &ok);
        const char *counts = ok.p;
        if (nodes != want_nodes)
            snprintf (why, len, "jobtree: NumNodes=%" PRIu32 " would split a group: a "
                      "run shrinks by whole groups, the highest first, never below its "
                      "minimum of %" PRId64 " GPUs; %s%s", want_nodes, min,
                      m ? "NumNodes may be " : "it holds its minimum already",
                      m ? (counts ? counts : "") : "");
        else
            snprintf (why, len, "jobtree: NumNodes=%" PRIu32 " would leave %" PRId64
                      " GPUs, below the run's malleable minimum of %" PRId64 " GPUs; %s%s",
                      want_nodes, gpus, min, m ? "NumNodes may be " : "it holds its "
                      "minimum already", m ? (counts ? counts : "") : "");
        goto out;
    }
    for (size_t i = 0; i < k; i++) {
        for (size_t j = 0; j < g[i]->nnodes; j++)
            jt_strbuf_printf (&b, "%s%s", b.n ? "," : "", g[i]->nodes[j]);
        for (size_t j = 0; j < g[i]->nspares; j++)
            jt_strbuf_printf (&b, "%s%s", b.n ? "," : "", g[i]->spares[j]);
    }
    if (!(*keep = jt_strbuf_take (&b))) {
        snprintf (why, len, "jobtree: out of memory");
        goto out;
    }
    *kept_gpus = gpus;
    rc = 1;
out:
    free (b.p);
    free (ok.p);
    free (g);
    return rc;
}

static bool listed (const char *node, const char *const *kept, size_t nkept)
{
    for (size_t i = 0; i < nkept; i++)
        if (kept[i] && !strcmp (kept[i], node))
            return true;
    return false;
}

int jt_elastic_split (const jt_jobrec_t *rec, const char *const *kept, size_t nkept,
                      char *why, size_t len)
{
    if (!rec)
        return 0;
    for (size_t i = 0; i < rec->nbound; i++) {
        const jt_jobrec_lease_t *b = &rec->bound[i];
        size_t in = 0;
        for (size_t k = 0; k < b->nnodes; k++)
            in += listed (b->nodes[k], kept, nkept);
        if (in > 0 && in < b->nnodes) {
            snprintf (why, len, "jobtree: the NodeList keeps %zu of group %d's %zu "
                      "nodes: a run shrinks by whole groups; keep all of %s%s or "
                      "none (NumNodes=N picks whole groups, the highest first)",
                      in, b->group, b->nnodes, b->nodes[0], b->nnodes > 1 ? "..." : "");
            return -1;
        }
    }
    return 0;
}
