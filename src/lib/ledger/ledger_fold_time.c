/*
 * ledger_fold_time.c - the invariants that hold "at every instant", checked
 * on the leases' own intervals, for `jobtree verify` (docs/ledger-format.md,
 * section 5): node overlap, per-envelope concurrency and GPU-hours, and the
 * envelope's window, each against the caps in force at that instant.
 *
 * DESIGN: the fold (ledger_fold.c), asked to (jt_fold_times_enable),
 * records every lease interval [start, end) (open ones run to the ledger's
 * last instant) and every BudgetLoaded as a cap epoch; nothing here depends
 * on the order events were emitted in. Epochs are ordered by (time, seq);
 * the caps of epoch k are in force from its time until the next epoch's,
 * and the first epoch's also before it (leases started before the first
 * BudgetLoaded are checked once caps are known). Then, in O(n log n):
 *
 *  - node overlap: per node, intervals sorted by start; one that starts
 *    before the latest end so far overlaps (blame: its Start);
 *  - concurrency and GPU-hours: per envelope, one sweep over time (ends
 *    before cap changes before starts at one instant): active GPUs against
 *    C after each start and at each cap change; usage, which only grows,
 *    against B at every point and at the last instant (blame: the record at
 *    which the sweep sees it: a Start, an End, the BudgetLoaded, or the
 *    ledger's last record);
 *  - window: per lease, every part of its interval inside each epoch where
 *    its envelope is capped lies inside that epoch's window, found in
 *    O(log epochs) with a prefix count of the epochs that are themselves
 *    outside their windows (blame: its End when the end is outside, else
 *    its Start).
 *
 * A lease with end = start holds nothing: only its start is checked against
 * the window. The violation reported is the one with the smallest seq.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/ledger.h"
#include "ledger_fold_times.h"

#define OPEN_END INT64_MAX
#define EPS_HOURS 1e-9

/* The best (smallest seq) violation so far. */
void jt_fold_found (jt_violation_t *best, jt_violation_kind_t k, uint64_t seq,
                    const char *fmt, ...)
{
    va_list ap;

    if (best->kind != JT_VIOL_NONE
        && (best->seq < seq || (best->seq == seq && best->kind <= k)))
        return;
    best->kind = k;
    best->seq = seq;
    va_start (ap, fmt);
    vsnprintf (best->msg, sizeof (best->msg), fmt, ap);
    va_end (ap);
}

static int64_t iend (const jt_fold_ivl_t *l)
{
    return l->end < 0 ? OPEN_END : l->end;
}

/* ---- node overlap ---- */

struct nodeuse {
    uint32_t node;
    uint32_t ivl;
};

static const jt_fold_times_t *sort_t; /* qsort has no argument */

static int cmp_nodeuse (const void *a, const void *b)
{
    const struct nodeuse *x = a, *y = b;
    const jt_fold_ivl_t *l = &sort_t->ivl[x->ivl], *m = &sort_t->ivl[y->ivl];
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (l->start != m->start)
        return l->start < m->start ? -1 : 1;
    return l->sseq < m->sseq ? -1 : l->sseq > m->sseq;
}

static int check_nodes (const jt_fold_times_t *t, jt_violation_t *best)
{
    size_t n = 0;
    struct nodeuse *u = malloc ((t->nnodes ? t->nnodes : 1) * sizeof (*u));

    if (!u)
        return -1;
    for (size_t i = 0; i < t->nivl; i++) {
        const jt_fold_ivl_t *l = &t->ivl[i];
        if (iend (l) == l->start)
            continue; /* holds nothing */
        for (uint32_t k = 0; k < l->nnodes; k++)
            u[n++] = (struct nodeuse){ t->nodes[l->node0 + k], (uint32_t) i };
    }
    sort_t = t;
    qsort (u, n, sizeof (*u), cmp_nodeuse);
    for (size_t i = 0; i < n;) {
        size_t h = i; /* the interval holding the node longest so far */
        for (size_t j = i + 1; j < n && u[j].node == u[i].node; j++) {
            const jt_fold_ivl_t *a = &t->ivl[u[h].ivl], *b = &t->ivl[u[j].ivl];
            if (b->start < iend (a)) {
                char end[32];
                if (a->end < 0)
                    snprintf (end, sizeof (end), "open");
                else
                    snprintf (end, sizeof (end), "%" PRId64, a->end);
                jt_fold_found (best, JT_VIOL_NODE_OVERLAP, a->sseq > b->sseq ? a->sseq : b->sseq,
                       "node %s: lease %s starts at %" PRId64 " while lease %s "
                       "(seq %" PRIu64 ", [%" PRId64 ", %s) holds it",
                       t->names[u[i].node], jt_fold_ivl_lease (t, b), b->start,
                       jt_fold_ivl_lease (t, a), a->sseq,
                       a->start, end);
            }
            if (iend (b) > iend (a))
                h = j;
        }
        while (++i < n && u[i].node == u[i - 1].node)
            ;
    }
    free (u);
    return 0;
}

/* ---- epochs ---- */

size_t jt_fold_last_at (const void *v, size_t sz, size_t off, size_t lo, size_t hi,
                        int64_t x)
{
    const unsigned char *p = v;
    size_t a = lo, b = hi; /* answer in [lo, hi) */

    while (b - a > 1) {
        size_t m = a + (b - a) / 2;
        int64_t t;
        memcpy (&t, p + m * sz + off, sizeof (t));
        if (t <= x)
            a = m;
        else
            b = m;
    }
    return a;
}

int jt_fold_epoch_cmp (const void *a, const void *b)
{
    const jt_fold_epoch_t *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* One envelope's caps from one epoch on (capped or not). */
struct change {
    uint32_t env;
    int64_t time;      /* INT64_MIN: the first epoch's, in force from -inf */
    uint64_t seq;      /* of its BudgetLoaded */
    const jt_fold_cap_t *cap; /* NULL: not capped */
    bool outside;      /* capped, and [time, next change) is not inside the
                        * window (the next change's time is filled later) */
};

static int cmp_change (const void *a, const void *b)
{
    const struct change *x = a, *y = b;
    if (x->env != y->env)
        return x->env < y->env ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Every envelope's cap changes, sorted by (envelope, time): the first
 * epoch's caps at INT64_MIN, then one entry where an envelope's caps differ
 * from the epoch before (linear in the caps listed). *first[e] indexes the
 * envelope's first change (nchanges when none). */
static int changes (const jt_fold_times_t *t, size_t nenv, struct change **out,
                    size_t *nout, size_t **first)
{
    jt_fold_epoch_t *ep = NULL;
    const jt_fold_cap_t **cur = calloc (nenv ? nenv : 1, sizeof (*cur));
    struct change *c = NULL;
    size_t n = 0, cap = 0;
    int rc = -1;

    *first = NULL;
    if (!cur || (t->nep && !(ep = malloc (t->nep * sizeof (*ep)))))
        goto out;
    if (t->nep) {
        memcpy (ep, t->ep, t->nep * sizeof (*ep));
        qsort (ep, t->nep, sizeof (*ep), jt_fold_epoch_cmp);
    }
    for (size_t k = 0; k < t->nep; k++) {
        const jt_fold_cap_t *caps = t->caps + ep[k].cap0;
        int64_t when = k ? ep[k].time : INT64_MIN;
        /* at most one change per envelope named now or before */
        size_t need = n + ep[k].ncaps + (k ? ep[k - 1].ncaps : 0);
        if (need > cap) {
            size_t nc = cap ? 2 * cap : 64;
            while (nc < need)
                nc *= 2;
            struct change *v = realloc (c, nc * sizeof (*v));
            if (!v)
                goto out;
            c = v;
            cap = nc;
        }
        /* dropped: capped in the epoch before, absent now */
        if (k)
            for (size_t i = 0; i < ep[k - 1].ncaps; i++) {
                uint32_t e = t->caps[ep[k - 1].cap0 + i].env;
                if (cur[e] == &t->caps[ep[k - 1].cap0 + i]) {
                    cur[e] = NULL;
                    c[n++] = (struct change){ e, when, ep[k].seq, NULL, false };
                }
            }
        for (size_t i = 0; i < ep[k].ncaps; i++) {
            const jt_fold_cap_t *p = &caps[i];
            /* a dropped entry just made for p's envelope is replaced */
            if (n && c[n - 1].env == p->env && c[n - 1].time == when && !c[n - 1].cap
                && c[n - 1].seq == ep[k].seq)
                n--;
            cur[p->env] = p;
            c[n++] = (struct change){ p->env, when, ep[k].seq, p, false };
        }
    }
    if (n)
        qsort (c, n, sizeof (*c), cmp_change);
    if (!(*first = malloc ((nenv ? nenv : 1) * sizeof (**first))))
        goto out;
    for (size_t e = 0; e < nenv; e++)
        (*first)[e] = n;
    for (size_t i = n; i-- > 0;)
        (*first)[c[i].env] = i;
    /* an epoch outside its own window (prefix counts go with it) */
    for (size_t i = 0; i < n; i++) {
        int64_t next = i + 1 < n && c[i + 1].env == c[i].env ? c[i + 1].time : OPEN_END;
        c[i].outside = c[i].cap && c[i].time != INT64_MIN && next > c[i].time
                       && (c[i].time < c[i].cap->wstart || next > c[i].cap->wend);
    }
    *out = c;
    *nout = n;
    c = NULL;
    rc = 0;
out:
    if (rc < 0) {
        free (*first);
        *first = NULL;
    }
    free (c);
    free (ep);
    free (cur);
    return rc;
}

/* ---- concurrency and GPU-hours ---- */

enum { P_END = 0, P_CAP = 1, P_START = 2 };

struct point {
    uint32_t env;
    uint8_t kind;
    int64_t time;
    uint64_t seq;
    int64_t gpus;             /* START, END */
    size_t ivl;               /* START, END */
    const struct change *ch;  /* CAP */
};

/* The Start seqs of the leases active in a sweep, largest on top; an
 * interval that ended is dropped when it reaches the top. */
struct heap {
    uint64_t *seq;
    size_t *ivl;
    size_t n;
};

static void heap_push (struct heap *h, uint64_t seq, size_t ivl)
{
    size_t i = h->n++;
    while (i && h->seq[(i - 1) / 2] < seq) {
        h->seq[i] = h->seq[(i - 1) / 2];
        h->ivl[i] = h->ivl[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->seq[i] = seq;
    h->ivl[i] = ivl;
}

static void heap_pop (struct heap *h)
{
    uint64_t s = h->seq[--h->n];
    size_t v = h->ivl[h->n], i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->seq[c + 1] > h->seq[c])
            c++;
        if (h->seq[c] <= s)
            break;
        h->seq[i] = h->seq[c];
        h->ivl[i] = h->ivl[c];
        i = c;
    }
    h->seq[i] = s;
    h->ivl[i] = v;
}

/* The largest Start seq of the active leases (0: none). */
static uint64_t heap_top (struct heap *h, const bool *ended)
{
    while (h->n && ended[h->ivl[0]])
        heap_pop (h);
    return h->n ? h->seq[0] : 0;
}

static uint64_t max64 (uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static int cmp_point (const void *a, const void *b)
{
    const struct point *x = a, *y = b;
    if (x->env != y->env)
        return x->env < y->env ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *since (const struct change *ch, char *buf, size_t len)
{
    if (ch->time == INT64_MIN)
        snprintf (buf, len, "the first caps, seq %" PRIu64, ch->seq);
    else
        snprintf (buf, len, "caps of seq %" PRIu64, ch->seq);
    return buf;
}

/* One envelope's sweep. A violation is blamed on the record that completes
 * it: for concurrency the latest Start (in the ledger) of the leases active
 * then, or the BudgetLoaded of the caps in force if later; for GPU-hours the
 * latest record of the envelope the sweep has passed (or of those caps), or
 * the ledger's last record for what only its last instant shows. */
static void sweep_env (const char *name, const struct point *p, size_t np,
                       const struct change *init, int64_t horizon, uint64_t last_seq,
                       struct heap *h, bool *ended, const jt_fold_sweep_t *k,
                       jt_violation_t *best)
{
    const struct change *ch = init;
    int64_t active = 0, tprev = np ? p[0].time : 0;
    uint64_t passed = 0; /* the largest seq of the points passed */
    double used = 0;     /* GPU-seconds */
    bool hours_done = false;
    char b[64];

    h->n = 0;
    for (size_t i = 0; i <= np; i++) {
        int64_t now = i < np ? p[i].time : horizon;
        if (i == np && (!active || now <= tprev))
            break;
        if (now > tprev && active > 0) {
            used += (double) active * (double) (now - tprev);
            if (ch && ch->cap && !hours_done
                && used / 3600.0 > ch->cap->max_gpu_hours + EPS_HOURS) {
                uint64_t seq = i < np ? max64 (max64 (passed, p[i].seq), ch->seq)
                                      : last_seq;
                jt_fold_found (best, k->hours, seq,
                       "%s %s: %.3f GPU-hours used by t=%" PRId64 " > %s %.3f (%s)",
                       k->noun, name, used / 3600.0, now, k->hword,
                       ch->cap->max_gpu_hours, since (ch, b, sizeof (b)));
                hours_done = true;
            }
        }
        tprev = now;
        if (i == np)
            break;
        passed = max64 (passed, p[i].seq);
        switch (p[i].kind) {
        case P_END:
            active -= p[i].gpus;
            ended[p[i].ivl] = true;
            break;
        case P_CAP:
            ch = p[i].ch;
            hours_done = false; /* each epoch's B is checked */
            break;
        case P_START:
            /* gpus <= 2^20 per lease: no count of leases reaches overflow,
             * but the sum is checked all the same */
            if (__builtin_add_overflow (active, p[i].gpus, &active))
                active = INT64_MAX;
            heap_push (h, p[i].seq, p[i].ivl);
            break;
        }
        /* after the last point of this instant (caps loaded at one instant
         * in force there for no time but the last): active GPUs against C,
         * usage against the B that now takes force */
        if (ch && ch->cap && (i + 1 == np || p[i + 1].time != now)) {
            if (active > ch->cap->concurrency)
                jt_fold_found (best, k->conc, max64 (heap_top (h, ended), ch->seq),
                       "%s %s: %" PRId64 " GPUs active at t=%" PRId64 " > %s %" PRId64
                       " (%s)",
                       k->noun, name, active, now, k->cword, ch->cap->concurrency,
                       since (ch, b, sizeof (b)));
            if (!hours_done && used / 3600.0 > ch->cap->max_gpu_hours + EPS_HOURS) {
                jt_fold_found (best, k->hours, max64 (passed, ch->seq),
                       "%s %s: %.3f GPU-hours used by t=%" PRId64 " > %s %.3f (%s)",
                       k->noun, name, used / 3600.0, now, k->hword,
                       ch->cap->max_gpu_hours, since (ch, b, sizeof (b)));
                hours_done = true;
            }
        }
    }
}

static int check_envelopes (const jt_fold_times_t *t, const char *const *names,
                            size_t nenv, const struct change *c, size_t nc,
                            const size_t *first, int64_t horizon, uint64_t last_seq,
                            const jt_fold_sweep_t *k, jt_violation_t *best)
{
    size_t np = 0;
    struct point *p = malloc ((2 * t->nivl + nc + 1) * sizeof (*p));
    struct heap h = { malloc ((t->nivl + 1) * sizeof (uint64_t)),
                      malloc ((t->nivl + 1) * sizeof (size_t)), 0 };
    bool *ended = calloc (t->nivl + 1, sizeof (bool));

    if (!p || !h.seq || !h.ivl || !ended) {
        free (p);
        free (h.seq);
        free (h.ivl);
        free (ended);
        return -1;
    }
    for (size_t i = 0; i < t->nivl; i++) {
        const jt_fold_ivl_t *l = &t->ivl[i];
        if (iend (l) == l->start || first[l->env] == nc)
            continue; /* holds nothing, or never capped */
        p[np++] = (struct point){ l->env, P_START, l->start, l->sseq, l->gpus, i, NULL };
        if (l->end >= 0)
            p[np++] = (struct point){ l->env, P_END, l->end, l->eseq, l->gpus, i, NULL };
    }
    for (size_t i = 0; i < nc; i++)
        if (c[i].time != INT64_MIN)
            p[np++] = (struct point){ c[i].env, P_CAP, c[i].time, c[i].seq, 0, 0, &c[i] };
    qsort (p, np, sizeof (*p), cmp_point);
    for (size_t i = 0; i < np;) {
        size_t j = i;
        while (j < np && p[j].env == p[i].env)
            j++;
        const struct change *init = &c[first[p[i].env]];
        if (init->time != INT64_MIN)
            init = NULL; /* not capped before its first change */
        sweep_env (names[p[i].env], p + i, j - i, init, horizon, last_seq, &h, ended, k,
                   best);
        i = j;
    }
    free (p);
    free (h.seq);
    free (h.ivl);
    free (ended);
    return 0;
}

/* ---- window ---- */

/* The change of envelope env in force at time x: the last with time <= x,
 * else its first (the first epoch's caps hold before it). */
static size_t change_at (const struct change *c, size_t lo, size_t hi, int64_t x)
{
    return jt_fold_last_at (c, sizeof (*c), offsetof (struct change, time), lo, hi, x);
}

/* One part [ps, pe) of lease l inside the span of change k: inside k's
 * window when k caps the envelope. first: the part begins at the lease's
 * start; last: it ends at the lease's end (or the last instant). */
static void window_part (const jt_fold_ivl_t *l, const char *lease, const char *name,
                         const struct change *k,
                         int64_t ps, int64_t pe, bool first, bool last, int64_t horizon,
                         jt_violation_t *best)
{
    const jt_fold_cap_t *cap = k->cap;
    char b[64];

    if (!cap || (!first && pe <= ps))
        return; /* not capped, or caps in force there for no time */
    uint64_t sseq = max64 (l->sseq, k->seq), eseq = max64 (l->eseq, k->seq);
    if (ps < cap->wstart || ps >= cap->wend) {
        if (first)
            jt_fold_found (best, JT_VIOL_WINDOW, sseq,
                   "lease %s starts at %" PRId64 " outside envelope %s's window "
                   "[%" PRId64 ", %" PRId64 ") (%s)",
                   lease, ps, name, cap->wstart, cap->wend, since (k, b, sizeof (b)));
        else
            jt_fold_found (best, JT_VIOL_WINDOW, sseq,
                   "lease %s runs at %" PRId64 " outside envelope %s's window "
                   "[%" PRId64 ", %" PRId64 ") (%s)",
                   lease, ps, name, cap->wstart, cap->wend, since (k, b, sizeof (b)));
    } else if (pe > cap->wend) {
        if (last && l->end >= 0)
            jt_fold_found (best, JT_VIOL_WINDOW, eseq,
                   "lease %s ends at %" PRId64 " after envelope %s's window end "
                   "%" PRId64 " (%s)",
                   lease, pe, name, cap->wend, since (k, b, sizeof (b)));
        else if (last)
            jt_fold_found (best, JT_VIOL_WINDOW, sseq,
                   "lease %s is still open at %" PRId64 ", after envelope %s's window "
                   "end %" PRId64 " (%s)",
                   lease, horizon, name, cap->wend, since (k, b, sizeof (b)));
        else
            jt_fold_found (best, JT_VIOL_WINDOW, sseq,
                   "lease %s runs past envelope %s's window end %" PRId64 " (%s)",
                   lease, name, cap->wend, since (k, b, sizeof (b)));
    }
}

static int check_windows (const jt_fold_times_t *t, const char *const *names,
                          const struct change *c, size_t nc, const size_t *first,
                          int64_t horizon, jt_violation_t *best)
{
    /* pre[i]: changes before i (of any envelope) whose whole span lies
     * outside their window */
    size_t *pre = malloc ((nc + 1) * sizeof (*pre));
    size_t *end = malloc ((nc + 1) * sizeof (*end));

    if (!pre || !end) {
        free (pre);
        free (end);
        return -1;
    }
    pre[0] = 0;
    for (size_t i = 0; i < nc; i++)
        pre[i + 1] = pre[i] + c[i].outside;
    /* end[i]: one past the last change of c[i]'s envelope */
    for (size_t i = nc; i-- > 0;)
        end[i] = i + 1 < nc && c[i + 1].env == c[i].env ? end[i + 1] : i + 1;
    for (size_t i = 0; i < t->nivl; i++) {
        const jt_fold_ivl_t *l = &t->ivl[i];
        const char *name = names[l->env];
        size_t lo = first[l->env], k0, z;
        int64_t s = l->start, e = l->end < 0 ? horizon : l->end, ps;
        bool from_start;

        if (lo == nc)
            continue; /* never capped */
        if (e < s)
            e = s;
        if (c[lo].time > s) { /* uncapped when it started */
            if (c[lo].time >= e)
                continue;
            k0 = lo;
            ps = c[lo].time;
            from_start = false;
        } else {
            k0 = change_at (c, lo, end[lo], s);
            ps = s;
            from_start = true;
        }
        z = e > s ? change_at (c, lo, end[lo], e - 1) : k0;
        if (z < k0)
            z = k0;
        window_part (l, jt_fold_ivl_lease (t, l), name, &c[k0], ps, z > k0 ? c[k0 + 1].time : e, from_start,
                     z == k0, horizon, best);
        if (z > k0 + 1 && pre[z] - pre[k0 + 1] > 0) {
            /* the first change in (k0, z) outside its window */
            size_t a = k0 + 1, b = z - 1;
            while (a < b) {
                size_t m = a + (b - a) / 2;
                if (pre[m + 1] > pre[k0 + 1])
                    b = m;
                else
                    a = m + 1;
            }
            jt_fold_found (best, JT_VIOL_WINDOW, max64 (l->sseq, c[a].seq),
                   "lease %s [%" PRId64 ", %" PRId64 ") runs outside envelope %s's "
                   "window of the caps of seq %" PRIu64 " while they are in force",
                   jt_fold_ivl_lease (t, l), s, e, name, c[a].seq);
        }
        if (z > k0)
            window_part (l, jt_fold_ivl_lease (t, l), name, &c[z], c[z].time, e, false, true, horizon, best);
    }
    free (pre);
    free (end);
    return 0;
}

static const jt_fold_sweep_t envelope_sweep = {
    JT_VIOL_CONCURRENCY, JT_VIOL_GPU_HOURS, "envelope", "concurrency", "cap"
};

int jt_fold_times_sweep (const jt_fold_times_t *t, const char *const *names, size_t n,
                         int64_t horizon, uint64_t last_seq, const jt_fold_sweep_t *k,
                         jt_violation_t *best)
{
    struct change *c = NULL;
    size_t nc = 0, *first = NULL;
    int rc = -1;

    if (changes (t, n, &c, &nc, &first) == 0
        && check_envelopes (t, names, n, c, nc, first, horizon, last_seq, k, best) == 0)
        rc = 0;
    free (c);
    free (first);
    if (rc < 0)
        errno = ENOMEM;
    return rc;
}

int jt_fold_time_check (const jt_fold_times_t *t, const char *const *names, size_t nenv,
                        int64_t horizon, uint64_t last_seq, jt_violation_t *best)
{
    struct change *c = NULL;
    size_t nc = 0, *first = NULL;
    int rc = -1;

    if (check_nodes (t, best) < 0 || changes (t, nenv, &c, &nc, &first) < 0
        || check_envelopes (t, names, nenv, c, nc, first, horizon, last_seq,
                            &envelope_sweep, best)
               < 0
        || check_windows (t, names, c, nc, first, horizon, best) < 0)
        goto out;
    rc = 0;
out:
    free (c);
    free (first);
    if (rc < 0)
        errno = ENOMEM;
    return rc;
}
