/*
 * schedule.c - the scheduler's answer for one run at one instant, in the
 * three tenses of Slurm's job_test (see jobtree/schedule.h). It owns what
 * each tense means: which usage counts, how the caller's node set is
 * viewed, which refusals are final, the node range a malleable run may
 * bind, which nodes a bound plan runs on, and where a start is estimated.
 * Funding and placement themselves are jt_plan_run's.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/conformance.h"
#include "jobtree/schedule.h"
#include "jobtree/constraint.h"
#include "jobtree/labels.h"
#include "jobtree/timeutil.h"
#include "util/strbuf.h"

const char *jt_tense_str (jt_tense_t t)
{
    switch (t) {
    case JT_TENSE_NOW:
        return "now";
    case JT_TENSE_EVER:
        return "ever";
    case JT_TENSE_ESTIMATE:
        return "estimate";
    }
    return "?";
}

const char *jt_answer_kind_str (jt_answer_kind_t k)
{
    switch (k) {
    case JT_ANSWER_BIND:
        return "bind";
    case JT_ANSWER_REFUSE:
        return "refuse";
    case JT_ANSWER_DEFER:
        return "defer";
    case JT_ANSWER_ESTIMATE:
        return "estimate";
    }
    return "?";
}

void jt_answer_free (jt_answer_t *a)
{
    if (!a)
        return;
    jt_plan_free (&a->plan);
    free (a->bind.nodes);
    for (size_t i = 0; i < a->ncands; i++)
        free (a->cands[i].nodes);
    free (a->cands);
    memset (a, 0, sizeof (*a));
}

static void say (jt_answer_t *a, jt_answer_kind_t kind, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
static void say (jt_answer_t *a, jt_answer_kind_t kind, const char *fmt, ...)
{
    va_list ap;

    a->kind = kind;
    va_start (ap, fmt);
    vsnprintf (a->reason, sizeof (a->reason), fmt, ap);
    va_end (ap);
}

/* Why the plan does not bind now, as users read it. */
static void say_plan (jt_answer_t *a, jt_answer_kind_t kind)
{
    const jt_plan_t *p = &a->plan;

    if (p->detail[0])
        say (a, kind, "jobtree: %s", p->detail);
    else
        say (a, kind, "jobtree: %s (%s)", jt_decision_str (p->decision),
             jt_reason_str (p->reason));
}

/* Placement, not funding, is what is missing: time can cure it. */
static bool is_pack_reason (jt_reason_t r)
{
    return r == JT_NO_DOMAIN_FITS || r == JT_SPREAD_NO_DOMAIN || r == JT_NO_NODES;
}

/* Funding, not placement, is what is missing, and time could cure it: a
 * lease ending or a window opening. */
static bool is_funding_reason (jt_reason_t r)
{
    switch (r) {
    case JT_WINDOW_CLOSED:
    case JT_INSUFFICIENT_CAPACITY:
    case JT_GPU_HOURS_EXHAUSTED:
    case JT_AGGREGATE_CAP:
    case JT_LENDING_CAP:
    case JT_BORROW_LIMIT:
        return true;
    default:
        return false;
    }
}

static bool no_bound (uint32_t max_nodes)
{
    return max_nodes == 0 || max_nodes >= JT_SCHED_NODES_ANY;
}

/* A malleable run binds a total between its bounds; keep that inside the
 * node range Slurm will accept for the job, so the plan and the job agree
 * (when the ranges do not meet, the run's own bounds stand). */
static void clamp_malleable (jt_run_t *run, const jt_snapshot_t *s,
                             uint32_t min_nodes, uint32_t max_nodes)
{
    int gpn;
    int64_t lo, hi;

    if (!run->malleable || (gpn = jt_snapshot_gpus_per_node (s, run->flavor)) <= 0)
        return;
    lo = run->min_gpus > (int64_t) min_nodes * gpn ? run->min_gpus
                                                   : (int64_t) min_nodes * gpn;
    hi = run->max_gpus;
    if (!no_bound (max_nodes) && (int64_t) max_nodes * gpn < hi)
        hi = (int64_t) max_nodes * gpn;
    if (lo <= hi) {
        run->min_gpus = lo;
        run->max_gpus = hi;
        /* The run asks for its maximum; keep the request inside the range. */
        if (run->total_gpus > hi)
            run->total_gpus = hi;
        if (run->total_gpus < lo)
            run->total_gpus = lo;
    }
}

/* The snapshot as the tense sees it: nodes outside the caller's set are
 * busy; in EVER, nodes inside it are free and up. `keep` receives the live
 * values so view_restore can put them back. */
typedef struct node_live {
    int used_gpus;
    jt_node_state_t state;
} node_live_t;

static void view_apply (jt_snapshot_t *s, const bool *eligible, bool idle,
                        node_live_t *keep)
{
    for (size_t k = 0; k < s->nnodes; k++) {
        jt_node_t *n = &s->nodes[k];

        keep[k] = (node_live_t){ n->used_gpus, n->state };
        if (!eligible[k])
            n->used_gpus = n->gpus;
        else if (idle) {
            n->used_gpus = 0;
            n->state = JT_NODE_UP;
        }
    }
}

static void view_restore (jt_snapshot_t *s, const node_live_t *keep)
{
    for (size_t k = 0; k < s->nnodes; k++) {
        s->nodes[k].used_gpus = keep[k].used_gpus;
        s->nodes[k].state = keep[k].state;
    }
}

/* Add node k to set once (seen marks members). */
static void set_add (jt_node_set_t *set, bool *seen, size_t k)
{
    if (!seen[k]) {
        seen[k] = true;
        set->nodes[set->nnodes++] = k;
    }
}

/* The nodes a bound plan runs on: every group's, then spares while the
 * count stays below the job's max_nodes. */
static int bind_nodes (jt_answer_t *a, size_t nnodes, uint32_t max_nodes,
                       bool *seen, jt_error_t *err)
{
    const jt_plan_t *p = &a->plan;
    size_t cap = 0;

    for (size_t g = 0; g < p->ngroups; g++)
        cap += p->groups[g].nnodes + p->groups[g].nspares;
    if (cap > nnodes)
        cap = nnodes;
    if (!(a->bind.nodes = calloc (cap ? cap : 1, sizeof (size_t))))
        return jt_errprintf (err, "out of memory");
    a->bind.domain = -1;
    memset (seen, 0, nnodes * sizeof (*seen));
    for (size_t g = 0; g < p->ngroups; g++)
        for (size_t k = 0; k < p->groups[g].nnodes; k++)
            set_add (&a->bind, seen, p->groups[g].nodes[k]);
    for (size_t g = 0; g < p->ngroups; g++)
        for (size_t k = 0; k < p->groups[g].nspares; k++) {
            if (a->bind.nnodes >= max_nodes)
                break;
            set_add (&a->bind, seen, p->groups[g].spares[k]);
        }
    return 0;
}

static int cmp_size (const void *a, const void *b)
{
    size_t x = *(const size_t *) a, y = *(const size_t *) b;
    return (x > y) - (x < y);
}

static int cand_push (jt_answer_t *a, jt_node_set_t set, jt_error_t *err)
{
    jt_node_set_t *c = realloc (a->cands, (a->ncands + 1) * sizeof (*c));

    if (!c) {
        free (set.nodes);
        return jt_errprintf (err, "out of memory");
    }
    a->cands = c;
    a->cands[a->ncands++] = set;
    return 0;
}

static bool of_flavor (const jt_node_t *n, const char *flavor)
{
    return n->flavor && !strcmp (n->flavor, flavor);
}

/* May one of the plan's payers place a group on n (its selector matches
 * n's labels)? A plan without payers restricts nothing. */
static bool payable (const jt_plan_t *payers, const jt_node_t *n)
{
    for (size_t i = 0; i < payers->nsegs; i++)
        if (jt_labels_match (&payers->segs[i].env->selector, &n->labels))
            return true;
    return payers->nsegs == 0;
}

/* May the run use node n at all: its node constraints hold there, and it
 * has the group-by label (jobtree/pack.h: the nodes its pack view holds). */
static bool run_may_use (const jt_run_t *run, const jt_node_t *n)
{
    const char *by = jt_run_class_label (run);  /* group-by, or strict conformance */

    return jt_constraints_match (&run->constraints, &n->labels)
           && (!by || jt_labels_get (&n->labels, by));
}

/* The group-by value of node k (NULL without group-by). */
static const char *class_of (const jt_snapshot_t *s, const jt_run_t *run, size_t k)
{
    const char *by = jt_run_class_label (run);

    return by ? jt_labels_get (&s->nodes[k].labels, by) : NULL;
}

enum { LC_UNKNOWN = 0xff };

/* Of the run's flavor, payable by one of its payers and usable by the run
 * (its constraints and class label): by node n's label class, decided at
 * the first node of the class (lc[class]: LC_UNKNOWN, 0 or 1; NULL, or a
 * node without a class: decided for n). */
static bool class_may (unsigned char *lc, const jt_snapshot_t *s,
                       const jt_run_t *run, const jt_plan_t *payers,
                       const jt_node_t *n)
{
    bool may;

    if (lc && n->lclass < s->nlclasses && lc[n->lclass] != LC_UNKNOWN)
        return lc[n->lclass];
    may = of_flavor (n, run->flavor) && payable (payers, n) && run_may_use (run, n);
    if (lc && n->lclass < s->nlclasses)
        lc[n->lclass] = may;
    return may;
}

typedef struct class_ctx {
    const jt_snapshot_t *s;
    const jt_run_t *run;
} class_ctx_t;

static int by_class (const void *a, const void *b, void *arg)
{
    const class_ctx_t *x = arg;
    size_t i = *(const size_t *) a, j = *(const size_t *) b;
    int c = strcmp (class_of (x->s, x->run, i), class_of (x->s, x->run, j));

    return c ? c : (i > j) - (i < j);
}

/* ESTIMATE when Cover funds the run (now, or once funding frees: `payers`
 * is that plan) but Pack has no room now. Only nodes one of its payers
 * may use, and the run may use (its constraints, its group-by label),
 * count; with group-by a one-domain run gets one set per class (domain and
 * label value), in domain then value order. A run that must sit in one domain (one group, or
 * cross-group spread off) gets one node set per domain able to hold it
 * (its eligible up nodes of the flavor, enough GPUs and nodes), in domain
 * order. A run whose groups may spread gets one set over every eligible
 * domain node of its flavor (an estimate only; the start itself is always
 * Pack's, in NOW). */
static int estimate_sets (jt_answer_t *a, const jt_sched_request_t *req,
                          const jt_run_t *run, const jt_plan_t *payers,
                          jt_error_t *err)
{
    const jt_snapshot_t *s = req->snap;
    int gpn = jt_snapshot_gpus_per_node (s, run->flavor);
    int64_t need = run->malleable ? run->min_gpus : run->total_gpus;
    int64_t group = run->group_gpus > 0 && run->group_gpus < need
                        ? run->group_gpus : need;
    unsigned char *lc = NULL;
    bool whole;

    if (gpn <= 0 || need <= 0)
        return 0;
    whole = !run->cross_group_spread || group >= need;
    a->cand_nodes = (uint32_t) ((need + gpn - 1) / gpn);
    /* groups of whole nodes, all of one size: the free times can place
     * them a domain each (jt_answer_from_free) */
    if (!whole && group % gpn == 0 && need % group == 0)
        a->cand_group_nodes = (uint32_t) (group / gpn);
    a->cand_gpus = need;
    /* flavor, payers' selectors and the run's constraints depend on a
     * node's labels and flavor only: decided once per label class, not
     * once per node (string compares on every node of the cluster were
     * most of an estimate's cost at 16,384 nodes) */
    if (s->nlclasses && !(lc = malloc (s->nlclasses)))
        return jt_errprintf (err, "out of memory");
    if (lc)
        memset (lc, LC_UNKNOWN, s->nlclasses);
    for (size_t d = 0; whole && d < s->ndomains; d++) {
        const jt_domain_t *dom = &s->domains[d];
        jt_node_set_t set = { calloc (dom->nnodes ? dom->nnodes : 1,
                                      sizeof (size_t)), 0, (int) d };
        int64_t cap = 0;

        if (!set.nodes) {
            free (lc);
            return jt_errprintf (err, "out of memory");
        }
        for (size_t k = 0; k < dom->nnodes; k++) {
            const jt_node_t *n = &s->nodes[dom->nodes[k]];
            if (!req->eligible[dom->nodes[k]] || n->state != JT_NODE_UP
                || !class_may (lc, s, run, payers, n))
                continue;
            set.nodes[set.nnodes++] = dom->nodes[k];
        }
        if (jt_run_class_label (run) && set.nnodes) {
            class_ctx_t cx = { s, run };
            qsort_r (set.nodes, set.nnodes, sizeof (size_t), by_class, &cx);
        }
        /* split into classes (one without group-by), each a candidate */
        for (size_t i = 0, j; i < set.nnodes; i = j) {
            const char *v = class_of (s, run, set.nodes[i]);
            jt_node_set_t one = { NULL, 0, (int) d };
            for (j = i, cap = 0; j < set.nnodes
                 && (!v || !strcmp (v, class_of (s, run, set.nodes[j]))); j++)
                cap += s->nodes[set.nodes[j]].gpus;
            if (cap < need || j - i < a->cand_nodes)
                continue;
            if (!(one.nodes = malloc ((j - i) * sizeof (size_t)))) {
                free (set.nodes);
                free (lc);
                return jt_errprintf (err, "out of memory");
            }
            memcpy (one.nodes, set.nodes + i, (j - i) * sizeof (size_t));
            one.nnodes = j - i;
            if (jt_run_class_label (run))   /* ascending per set, as documented */
                qsort (one.nodes, one.nnodes, sizeof (size_t), cmp_size);
            if (cand_push (a, one, err) < 0) {
                free (set.nodes);
                free (lc);
                return -1;
            }
        }
        free (set.nodes);
    }
    if (!whole) {
        jt_node_set_t set = { calloc (s->nnodes ? s->nnodes : 1,
                                      sizeof (size_t)), 0, -1 };
        if (!set.nodes) {
            free (lc);
            return jt_errprintf (err, "out of memory");
        }
        for (size_t k = 0; k < s->nnodes; k++)
            if (s->nodes[k].domain >= 0 && req->eligible[k]
                && class_may (lc, s, run, payers, &s->nodes[k]))
                set.nodes[set.nnodes++] = k;
        if (cand_push (a, set, err) < 0) {
            free (lc);
            return -1;
        }
    }
    free (lc);
    return 0;
}

/* The usage the tense counts: none in EVER; else the snapshot's leases and
 * the ledger's closed GPU-hours, as they are now (at 0) or will be at `at`
 * if nothing else starts. */
static int tense_usage (const jt_sched_request_t *req, int64_t at,
                        jt_usage_t *u, jt_error_t *err)
{
    if (req->tense == JT_TENSE_EVER) {
        if (jt_usage_init (u, req->budgets) < 0)
            return jt_errprintf (err, "out of memory");
        return 0;
    }
    if (jt_usage_from_snapshot_at (u, req->budgets, req->snap, req->now, at,
                                   err) < 0)
        return -1;
    if (req->closed_hours)
        req->closed_hours (u, req->budgets, req->closed_hours_arg);
    return 0;
}

/* ---- when funding frees ---- */

static int cmp_i64 (const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return x < y ? -1 : x > y;
}

/* Sort and drop duplicates; returns the new count. */
static size_t sort_unique (int64_t *v, size_t n)
{
    size_t m = 0;

    if (n)
        qsort (v, n, sizeof (*v), cmp_i64);
    for (size_t i = 0; i < n; i++)
        if (!m || v[m - 1] != v[i])
            v[m++] = v[i];
    return m;
}

/* The envelope of a plan's first cover segment, or NULL. */
static const jt_envelope_t *first_payer (const jt_plan_t *p)
{
    return p->nsegs ? p->segs[0].env : NULL;
}

/* The nodes as they will be at t, for an estimate of room: a node whose
 * free time (free_at, see node_free_times) is at or before t is idle and
 * up, any other is busy. `keep` receives the live values (view_restore). */
static void view_at (jt_snapshot_t *s, const int64_t *free_at, int64_t t,
                     node_live_t *keep)
{
    for (size_t k = 0; k < s->nnodes; k++) {
        jt_node_t *n = &s->nodes[k];

        keep[k] = (node_live_t){ n->used_gpus, n->state };
        if (free_at[k] <= t) {
            n->used_gpus = 0;
            n->state = JT_NODE_UP;
        } else
            n->used_gpus = n->gpus;
    }
}

/* Would the run be funded at t? Without `room` placement is assumed (the
 * caller has viewed its nodes idle); with it, only the nodes free by t
 * (room->free_at) count. 1 yes (the plan moved into *keep, if not NULL),
 * 0 no, -1 error. */
typedef struct room {
    const int64_t *free_at;     /* per node: when it is free (INT64_MAX never) */
    node_live_t *keep;          /* scratch for the view, one per node */
} room_t;

static int funded_at (const jt_sched_request_t *req, const jt_run_t *run,
                      int64_t t, const room_t *room, jt_plan_t *keep,
                      jt_error_t *err)
{
    jt_plan_opts_t cold = req->opts;    /* another instant: no warm view */
    jt_usage_t u;
    jt_plan_t p;
    int rc;

    cold.views = NULL;
    if (tense_usage (req, t, &u, err) < 0)
        return -1;
    memset (&p, 0, sizeof (p));
    if (room)
        view_at (req->snap, room->free_at, t, room->keep);
    rc = jt_plan_run (req->budgets, req->snap, &u, run, t, &cold, &p, err);
    if (room)
        view_restore (req->snap, room->keep);
    if (rc == 0)
        rc = p.decision == JT_BIND_NOW;
    if (rc == 1 && keep) {
        *keep = p;
        memset (&p, 0, sizeof (p));
    }
    jt_plan_free (&p);
    jt_usage_free (&u);
    return rc;
}

/* The first instant after now at which the run's envelopes fund it:
 * candidates are the snapshot's lease ends and the window boundaries of
 * envelopes of its flavor. Between two window boundaries usage only falls
 * as leases end, so the first funded lease end is found by binary search;
 * intervals are tried in time order. *when = 0 when none funds it. Without
 * `room` the snapshot must already be viewed idle on the caller's nodes;
 * with it, nodes free as their leases end too (and `first` = now is a
 * candidate: the caller knows only that the run does not start now with
 * holds or live nodes as they are). */
static int funding_time (const jt_sched_request_t *req, const jt_run_t *run,
                         const room_t *room, int64_t *when, jt_error_t *err)
{
    const jt_snapshot_t *s = req->snap;
    const jt_budgets_t *b = req->budgets;
    int64_t *ends, *walls;
    size_t ne = 0, nw = 0, i = 0;
    int rc = 0;

    *when = 0;
    ends = calloc (s->nleases + (room ? s->nnodes : 0) + 1, sizeof (*ends));
    walls = calloc (2 * b->nenv + 1, sizeof (*walls));
    if (!ends || !walls) {
        free (ends);
        free (walls);
        return jt_errprintf (err, "out of memory");
    }
    for (size_t k = 0; k < s->nleases; k++)
        if (s->leases[k].end > req->now)
            ends[ne++] = s->leases[k].end;
    /* nodes free as the caller says (jt_sched_restart's free_at: every
     * job's end, Jobtree's or not); from the leases these are lease ends */
    for (size_t k = 0; room && k < s->nnodes; k++)
        if (room->free_at[k] > req->now && room->free_at[k] != INT64_MAX)
            ends[ne++] = room->free_at[k];
    for (size_t k = 0; k < b->nenv; k++) {
        const jt_envelope_t *e = b->env[k];
        if (!e->flavor || strcmp (e->flavor, run->flavor))
            continue;
        if (e->start > req->now)
            walls[nw++] = e->start;
        if (e->end > req->now)
            walls[nw++] = e->end;
    }
    ne = sort_unique (ends, ne);
    nw = sort_unique (walls, nw);
    /* Interval w is [walls[w-1], walls[w]) (the first starts after now,
     * the last has no end); its candidates are its opening wall and the
     * lease ends inside it, ascending. */
    for (size_t w = 0; w <= nw && !*when && rc >= 0; w++) {
        int64_t open = w ? walls[w - 1] : req->now;
        int64_t close = w < nw ? walls[w] : INT64_MAX;
        size_t first = i, n;
        int64_t cand_lo = w ? open : -1;

        while (i < ne && ends[i] < close)
            i++;
        n = i - first;  /* lease ends in (open, close) are ends[first..i) */
        /* candidate j: j == 0 the opening wall (none in the first
         * interval: now was already tried), else ends[first + j - 1] */
        size_t lo = cand_lo >= 0 ? 0 : 1, hi = n, found = SIZE_MAX;
        if (lo > hi)
            continue;
        int64_t last = hi ? ends[first + hi - 1] : cand_lo;
        if ((rc = funded_at (req, run, last, room, NULL, err)) <= 0)
            continue;
        found = hi;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int64_t t = mid ? ends[first + mid - 1] : cand_lo;
            if ((rc = funded_at (req, run, t, room, NULL, err)) < 0)
                break;
            if (rc)
                found = hi = mid;
            else
                lo = mid + 1;
        }
        if (rc >= 0)
            *when = found ? ends[first + found - 1] : cand_lo;
    }
    free (ends);
    free (walls);
    return rc < 0 ? -1 : 0;
}

/* ---- funding holds ---- */

/* The envelope of hold h when it binds the run (a known envelope, GPUs in
 * range, starting before the run would end: always when its end is
 * unknown), else NULL. */
static const jt_envelope_t *binds (const jt_sched_request_t *req, const jt_hold_t *h)
{
    if (!h->envelope || h->gpus < 1 || h->gpus > JT_RUN_GPUS_MAX
        || (req->end > 0 && h->start >= req->end))
        return NULL;
    return jt_budgets_envelope (req->budgets, h->envelope);
}

/* At most this many instants are checked one by one for the holds
 * (bounded work per call: a plan each); past them, every binding hold is
 * counted at the last one (never less strict). */
#define HOLD_TIMES_MAX 16

/* The start of hold h as the check counts it: never before now. */
static int64_t hold_start (const jt_sched_request_t *req, const jt_hold_t *h)
{
    return h->start < req->now ? req->now : h->start;
}

/* The distinct starts of the holds that bind the run, ascending, in
 * times[] (at most HOLD_TIMES_MAX: the earliest ones); returns how many
 * (0: none binds). */
static size_t binding_times (const jt_sched_request_t *req, int64_t *times)
{
    size_t n = 0;

    for (size_t i = 0; i < req->nholds; i++) {
        const jt_hold_t *h = &req->holds[i];
        int64_t t = hold_start (req, h);
        size_t k;

        if (!binds (req, h))
            continue;
        for (k = 0; k < n && times[k] < t; k++)
            ;
        if (k < n && times[k] == t)
            continue;
        if (k == HOLD_TIMES_MAX)
            continue;           /* later than every kept one */
        if (n == HOLD_TIMES_MAX)
            n--;                /* the latest kept one makes room */
        memmove (&times[k + 1], &times[k], (n - k) * sizeof (*times));
        times[k] = t;
        n++;
    }
    return n;
}

/* A run Cover funds now, checked against the holds that bind it: at each
 * of their starts t, with the leases still running at t (by their time
 * limits), the run (still running) and every binding hold started by t
 * must be funded together. Between two starts usage only falls (leases
 * end; a hold is counted from its start on, whatever its end, since its
 * run may start later than the hold says), so these instants are the
 * only ones to check. Counting every hold at the earliest start instead
 * counts the GPUs of a run reserved for later together with the leases
 * that end before it starts, and keeps runs of the envelope off nodes
 * that nothing reserved wants (docs/select-plugin.md: 0.928 to 0.949
 * utilization in the simulator's replay of the 150-job window). Backfill
 * keeps a reserved run's nodes the same way (another job may use them
 * only if it ends before the reservation starts). Returns 1 when the holds
 * keep the run back (out becomes a refusal saying so), 0 when they do not,
 * -1 on error. The snapshot must be viewed idle on the caller's nodes. */
static int held_back (const jt_sched_request_t *req, const jt_run_t *run,
                      jt_answer_t *out, jt_error_t *err)
{
    int64_t times[HOLD_TIMES_MAX], counted = 0, at = 0;
    size_t n = binding_times (req, times);
    jt_plan_opts_t cold = req->opts;    /* the idle view: no warm view */
    jt_plan_t p;
    char t[40];
    int rc = 0;

    cold.views = NULL;
    memset (&p, 0, sizeof (p));
    for (size_t k = 0; k < n && rc == 0; k++) {
        bool last = k + 1 == n;
        jt_usage_t u;

        at = times[k];
        counted = 0;
        if (tense_usage (req, at, &u, err) < 0)
            return -1;
        for (size_t i = 0; i < req->nholds; i++) {
            const jt_envelope_t *e = binds (req, &req->holds[i]);
            if (e && (last || hold_start (req, &req->holds[i]) <= at)) {
                jt_usage_add (&u, e, e->owner, JT_ROLE_ACTIVE,
                              req->holds[i].gpus, 0.);
                counted += req->holds[i].gpus;
            }
        }
        jt_plan_free (&p);
        memset (&p, 0, sizeof (p));
        rc = jt_plan_run (req->budgets, req->snap, &u, run, at, &cold, &p, err);
        jt_usage_free (&u);
        if (rc < 0)
            break;
        rc = p.decision != JT_BIND_NOW && is_funding_reason (p.reason);
    }
    if (rc == 1) {
        jt_time_format (at, t, sizeof (t));
        say (out, JT_ANSWER_REFUSE, "jobtree: %s at %s, counting %" PRId64
             " GPUs held for runs reserved ahead",
             p.detail[0] ? p.detail : jt_reason_str (p.reason), t, counted);
        out->waits = req->tense == JT_TENSE_NOW;
    }
    jt_plan_free (&p);
    return rc;
}

int jt_sched_answer (const jt_sched_request_t *req, jt_answer_t *out,
                     jt_error_t *err)
{
    jt_snapshot_t *s = req->snap;
    node_live_t *keep = NULL;
    bool *seen = NULL;
    jt_plan_opts_t opts;
    jt_usage_t usage;
    jt_run_t run;
    int rc;

    memset (out, 0, sizeof (*out));
    if (!req->budgets || !s || !req->run || !req->run->flavor || !req->eligible)
        return jt_errprintf (err, "scheduling request without budgets, "
                             "snapshot, run flavor or node set");
    run = *req->run;    /* shallow: only the malleable bounds change */
    clamp_malleable (&run, s, req->min_nodes, req->max_nodes);
    if (req->tense == JT_TENSE_EVER) {
        char detail[JT_ERRMSG_MAX] = "";
        jt_reason_t r = jt_cover_ever_gpn (req->budgets, &run, req->now,
                                           jt_snapshot_gpus_per_node (s, run.flavor),
                                           detail, sizeof (detail));
        if (r != JT_OK) {
            say (out, JT_ANSWER_REFUSE, "jobtree: never fundable: %s",
                 detail[0] ? detail : jt_reason_str (r));
            out->plan.decision = JT_REJECT;
            out->plan.reason = r;
            snprintf (out->plan.detail, sizeof (out->plan.detail), "%.*s",
                      (int) sizeof (out->plan.detail) - 1, out->reason + 9);
            return 0;
        }
    }
    if (tense_usage (req, 0, &usage, err) < 0)
        return -1;
    keep = calloc (s->nnodes ? s->nnodes : 1, sizeof (*keep));
    seen = calloc (s->nnodes ? s->nnodes : 1, sizeof (*seen));
    if (!keep || !seen) {
        rc = jt_errprintf (err, "out of memory");
        goto out;
    }
    view_apply (s, req->eligible, req->tense == JT_TENSE_EVER, keep);
    /* Warm views follow the snapshot as this tense sees it (the caller's
     * nodes): not in EVER, where every node is idle. */
    opts = req->opts;
    if (req->tense == JT_TENSE_EVER
        || (opts.views && jt_pack_views_sync (opts.views, s, err) < 0))
        opts.views = NULL;
    rc = jt_plan_run (req->budgets, s, &usage, &run, req->now, &opts,
                      &out->plan, err);
    view_restore (s, keep);
    if (rc < 0)
        goto out;

    /* Funded now: the holds of runs reserved ahead may still keep it back
     * (then out is the refusal). */
    if (out->plan.decision == JT_BIND_NOW && req->tense != JT_TENSE_EVER
        && req->nholds) {
        int held;

        view_apply (s, req->eligible, true, keep);
        held = held_back (req, &run, out, err);
        view_restore (s, keep);
        if (held != 0) {        /* refused (out says why), or an error */
            rc = held < 0 ? -1 : 0;
            goto out;
        }
    }
    if (out->plan.decision == JT_BIND_NOW) {
        out->kind = JT_ANSWER_BIND;
        if ((rc = bind_nodes (out, s->nnodes, req->max_nodes, seen, err)) < 0)
            goto out;
        if (req->tense != JT_TENSE_EVER && out->bind.nnodes < req->min_nodes)
            say (out, JT_ANSWER_REFUSE, "jobtree: plan of %zu nodes is below "
                 "the job's minimum of %" PRIu32, out->bind.nnodes,
                 req->min_nodes);
        out->record = out->kind == JT_ANSWER_BIND && req->tense == JT_TENSE_NOW;
    } else if (req->tense == JT_TENSE_EVER) {
        /* Idle set, no usage: placement can make it never run; so can
         * concurrency, which jt_cover_ever checks for the run's own GPUs,
         * once its spare nodes are paid too (no usage counts here, so a
         * capacity refusal is final). */
        if (is_pack_reason (out->plan.reason))
            say_plan (out, JT_ANSWER_REFUSE);
        else if (out->plan.reason == JT_INSUFFICIENT_CAPACITY
                 && run.spares_per_group > 0)
            say (out, JT_ANSWER_REFUSE, "jobtree: never fundable with its "
                 "spares: %.*s", (int) sizeof (out->plan.detail) - 1,
                 out->plan.detail);
        else
            out->kind = JT_ANSWER_DEFER;
    } else if (req->tense == JT_TENSE_ESTIMATE
               && out->plan.decision == JT_PLAN_LATER
               && is_pack_reason (out->plan.reason)) {
        say_plan (out, JT_ANSWER_ESTIMATE);
        out->payer = first_payer (&out->plan);
        rc = estimate_sets (out, req, &run, &out->plan, err);
    } else if (req->tense == JT_TENSE_ESTIMATE
               && is_funding_reason (out->plan.reason)) {
        jt_plan_t later;
        int64_t when;

        memset (&later, 0, sizeof (later));
        view_apply (s, req->eligible, true, keep);
        rc = funding_time (req, &run, NULL, &when, err);
        if (rc == 0 && when)
            rc = funded_at (req, &run, when, NULL, &later, err) < 0 ? -1 : 0;
        view_restore (s, keep);
        if (rc == 0 && when) {
            char t[40];
            size_t len;

            say_plan (out, JT_ANSWER_ESTIMATE);
            jt_time_format (when, t, sizeof (t));
            len = strlen (out->reason);
            snprintf (out->reason + len, sizeof (out->reason) - len,
                      "; funded from %s", t);
            out->not_before = when;
            out->payer = first_payer (&later);
            rc = estimate_sets (out, req, &run, &later, err);
        } else if (rc == 0)
            say_plan (out, JT_ANSWER_REFUSE);
        jt_plan_free (&later);
    } else {
        say_plan (out, JT_ANSWER_REFUSE);
        out->waits = req->tense == JT_TENSE_NOW
                     && (is_pack_reason (out->plan.reason)
                         || is_funding_reason (out->plan.reason));
    }
out:
    free (keep);
    free (seen);
    jt_usage_free (&usage);
    if (rc < 0)
        jt_answer_free (out);
    return rc;
}

/* ---- the calculus's decision over time (offline) ---- */

/* Per node, when it is free for a new run: now when up and idle; else the
 * last end of the leases on it; INT64_MAX when it is down, or held by
 * something without a known end (a lease of unknown end, or GPUs that no
 * lease accounts for: a job outside Jobtree). A lease's GPUs are counted
 * on its nodes evenly. Work: the nodes plus the leases' node names. */
static int node_free_times (const jt_snapshot_t *s, int64_t now,
                            int64_t *free_at, jt_error_t *err)
{
    int64_t *covered = calloc (s->nnodes ? s->nnodes : 1, sizeof (*covered));

    if (!covered)
        return jt_errprintf (err, "out of memory");
    for (size_t k = 0; k < s->nnodes; k++)
        free_at[k] = s->nodes[k].state == JT_NODE_UP ? now : INT64_MAX;
    for (size_t i = 0; i < s->nleases; i++) {
        const jt_lease_t *l = &s->leases[i];
        int64_t share = l->nnodes ? (l->gpus + (int64_t) l->nnodes - 1)
                                        / (int64_t) l->nnodes : 0;
        for (size_t j = 0; j < l->nnodes; j++) {
            ssize_t k = jt_snapshot_node_index (s, l->nodes[j]);
            if (k < 0)
                continue;
            covered[k] += share;
            if (l->end <= 0)
                free_at[k] = INT64_MAX;
            else if (free_at[k] != INT64_MAX && l->end > free_at[k])
                free_at[k] = l->end;
        }
    }
    for (size_t k = 0; k < s->nnodes; k++)
        if (s->nodes[k].used_gpus > covered[k])
            free_at[k] = INT64_MAX;
    free (covered);
    return 0;
}

/* Move a's plan into out with decision d. */
static void take_plan (jt_answer_t *a, jt_plan_t *out, jt_decision_t d)
{
    *out = a->plan;
    memset (&a->plan, 0, sizeof (a->plan));
    out->decision = d;
}

int jt_sched_decide (const jt_sched_request_t *req, jt_plan_t *out,
                     jt_error_t *err)
{
    jt_sched_request_t q = *req;
    jt_snapshot_t *s = req->snap;
    jt_answer_t a;
    jt_plan_t later;
    int64_t *free_at = NULL, when = 0;
    node_live_t *keep = NULL;
    int rc;

    memset (out, 0, sizeof (*out));
    memset (&later, 0, sizeof (later));
    q.tense = JT_TENSE_NOW;
    if (jt_sched_answer (&q, &a, err) < 0)
        return -1;
    if (a.kind == JT_ANSWER_BIND) {
        take_plan (&a, out, JT_BIND_NOW);
        out->earliest_start = req->now;
        jt_answer_free (&a);
        return 0;
    }
    if (a.plan.decision == JT_REJECT && !is_funding_reason (a.plan.reason)
        && !is_pack_reason (a.plan.reason)) {
        take_plan (&a, out, JT_REJECT);     /* not well formed, no budget */
        jt_answer_free (&a);
        return 0;
    }
    /* Never: EVER refuses it. */
    jt_answer_t ever;
    q.tense = JT_TENSE_EVER;
    if (jt_sched_answer (&q, &ever, err) < 0) {
        jt_answer_free (&a);
        return -1;
    }
    if (ever.kind == JT_ANSWER_REFUSE) {
        /* Now's plan (what is free, what was asked), EVER's verdict. */
        const char *why = strncmp (ever.reason, "jobtree: ", 9) ? ever.reason
                                                                : ever.reason + 9;
        take_plan (&a, out, JT_REJECT);
        out->reason = ever.plan.reason;
        free (out->segs);
        out->segs = NULL;
        out->nsegs = 0;
        const char *pre = is_pack_reason (ever.plan.reason)
                          ? "never placeable, even with every node idle: " : "";
        size_t pl = strlen (pre);
        size_t wl = strnlen (why, sizeof (out->detail) - 1 - pl);
        memcpy (out->detail, pre, pl);
        memcpy (out->detail + pl, why, wl);
        out->detail[pl + wl] = '\0';
        jt_answer_free (&ever);
        jt_answer_free (&a);
        return 0;
    }
    jt_answer_free (&ever);

    /* Later: the first instant room and funding are both there, counting
     * the usage that runs on then (as ESTIMATE does). */
    q.tense = JT_TENSE_ESTIMATE;
    jt_run_t run = *req->run;
    clamp_malleable (&run, s, req->min_nodes, req->max_nodes);
    free_at = calloc (s->nnodes ? s->nnodes : 1, sizeof (*free_at));
    keep = calloc (s->nnodes ? s->nnodes : 1, sizeof (*keep));
    if (!free_at || !keep) {
        rc = jt_errprintf (err, "out of memory");
        goto out;
    }
    if ((rc = node_free_times (s, req->now, free_at, err)) < 0)
        goto out;
    for (size_t k = 0; k < s->nnodes; k++)
        if (!req->eligible[k])
            free_at[k] = INT64_MAX;
    room_t room = { free_at, keep };
    if ((rc = funding_time (&q, &run, &room, &when, err)) < 0)
        goto out;
    if (when && (rc = funded_at (&q, &run, when, &room, &later, err)) < 0)
        goto out;
    rc = 0;
    if (when || is_pack_reason (a.plan.reason)) {
        /* Why not now stays the reason; who pays is who pays then. */
        take_plan (&a, out, JT_PLAN_LATER);
        out->earliest_start = when;
        if (when) {
            free (out->segs);
            out->segs = later.segs;
            out->nsegs = later.nsegs;
            later.segs = NULL;
            later.nsegs = 0;
        }
    } else {
        /* Funding, and no lease end or window opening brings it back. */
        take_plan (&a, out, JT_REJECT);
        size_t len = strlen (out->detail);
        snprintf (out->detail + len, sizeof (out->detail) - len, "%s"
                  "no lease end or window opening funds it", len ? "; " : "");
    }
out:
    jt_plan_free (&later);
    jt_answer_free (&a);
    free (free_at);
    free (keep);
    return rc;
}

/* ---- a requeued run's restart (jobtree/schedule.h) ---- */

#define RESTART_DELAY_MAX (INT64_C (1) << 30)

void jt_restart_free (jt_restart_t *r)
{
    if (!r)
        return;
    jt_plan_free (&r->plan);
    free (r->slice.nodes);
    memset (r, 0, sizeof (*r));
}

bool jt_sched_nominated (const char *holder, int64_t start, const char *self,
                         int64_t end)
{
    if (holder && self && !strcmp (holder, self))
        return false;
    return end <= 0 || end > start;
}

/* The snapshot without run self's leases: they are compacted out (the
 * others keep their order) and the GPUs they held on their nodes are free.
 * *saved and *used receive what view_unhide puts back. Marks self's nodes
 * in own[]. */
static int view_hide_run (jt_snapshot_t *s, const char *self, jt_lease_t **saved,
                          size_t *nsaved, int **used, bool *own, jt_error_t *err)
{
    size_t m = 0;

    *saved = malloc ((s->nleases ? s->nleases : 1) * sizeof (**saved));
    *used = malloc ((s->nnodes ? s->nnodes : 1) * sizeof (**used));
    if (!*saved || !*used) {
        free (*saved);
        free (*used);
        *saved = NULL;
        *used = NULL;
        return jt_errprintf (err, "out of memory");
    }
    if (s->nleases)
        memcpy (*saved, s->leases, s->nleases * sizeof (**saved));
    *nsaved = s->nleases;
    for (size_t k = 0; k < s->nnodes; k++)
        (*used)[k] = s->nodes[k].used_gpus;
    for (size_t i = 0; i < s->nleases; i++) {
        const jt_lease_t *l = &(*saved)[i];
        int64_t share;

        if (!l->run || strcmp (l->run, self)) {
            s->leases[m++] = *l;
            continue;
        }
        share = l->nnodes ? (l->gpus + (int64_t) l->nnodes - 1) / (int64_t) l->nnodes : 0;
        for (size_t j = 0; j < l->nnodes; j++) {
            ssize_t k = jt_snapshot_node_index (s, l->nodes[j]);
            if (k < 0)
                continue;
            own[k] = true;
            s->nodes[k].used_gpus = s->nodes[k].used_gpus > share
                                    ? s->nodes[k].used_gpus - (int) share : 0;
        }
    }
    s->nleases = m;
    return 0;
}

static void view_unhide (jt_snapshot_t *s, jt_lease_t *saved, size_t nsaved,
                         int *used)
{
    if (nsaved)
        memcpy (s->leases, saved, nsaved * sizeof (*saved));
    s->nleases = nsaved;
    for (size_t k = 0; k < s->nnodes; k++)
        s->nodes[k].used_gpus = used[k];
    free (saved);
    free (used);
}

/* The reason line of a reserved restart: its slice's domains, in order. */
static void restart_line (jt_restart_t *r, const jt_snapshot_t *s)
{
    jt_strbuf_t b = JT_STRBUF_INIT;
    char t[40], *doms;
    size_t nd = 0;

    for (size_t g = 0; g < r->plan.ngroups; g++) {
        size_t d = r->plan.groups[g].domain;
        bool seen = false;
        for (size_t h = 0; h < g && !seen; h++)
            seen = r->plan.groups[h].domain == d;
        if (!seen && d < s->ndomains)
            jt_strbuf_printf (&b, "%s%s", nd++ ? "," : "", s->domains[d].name);
    }
    doms = jt_strbuf_take (&b);
    jt_time_format (r->start, t, sizeof (t));
    snprintf (r->line, sizeof (r->line), "jobtree: reserved %zu nodes in %s from %s "
              "for its restart (paid by %s)", r->slice.nnodes, doms ? doms : "?", t,
              r->payer ? r->payer->name : "?");
    free (doms);
}

int jt_sched_restart (const jt_sched_request_t *req, const char *self,
                      int64_t delay, const int64_t *free_in, jt_restart_t *out,
                      jt_error_t *err)
{
    jt_sched_request_t q = *req;
    jt_snapshot_t *s = req->snap;
    jt_lease_t *saved = NULL;
    size_t nsaved = 0;
    int *used = NULL;
    int64_t *free_at = NULL, when = 0;
    node_live_t *keep = NULL;
    bool *own = NULL, *seen = NULL;
    jt_run_t run;
    jt_answer_t a;
    int rc;

    memset (out, 0, sizeof (*out));
    memset (&a, 0, sizeof (a));
    if (!req->budgets || !s || !req->run || !req->run->flavor || !req->eligible || !self)
        return jt_errprintf (err, "restart request without budgets, snapshot, run "
                             "flavor, node set or run name");
    if (delay < 0 || delay > RESTART_DELAY_MAX || req->now < 0
        || req->now > INT64_MAX - RESTART_DELAY_MAX)
        return jt_errprintf (err, "restart delay %" PRId64 " s or now %" PRId64
                             " out of range (delay 0..2^30 s)", delay, req->now);
    if (req->run->checkpoint_s <= 0) {
        snprintf (out->detail, sizeof (out->detail), "no --checkpoint: its restart "
                  "waits as any run does");
        return 0;
    }
    run = *req->run;
    clamp_malleable (&run, s, req->min_nodes, req->max_nodes);
    q.now = req->now + delay;
    q.tense = JT_TENSE_ESTIMATE;        /* live usage, at instants */
    q.holds = NULL;
    q.nholds = 0;
    free_at = calloc (s->nnodes ? s->nnodes : 1, sizeof (*free_at));
    keep = calloc (s->nnodes ? s->nnodes : 1, sizeof (*keep));
    own = calloc (s->nnodes ? s->nnodes : 1, sizeof (*own));
    seen = calloc (s->nnodes ? s->nnodes : 1, sizeof (*seen));
    if (!free_at || !keep || !own || !seen) {
        rc = jt_errprintf (err, "out of memory");
        goto out;
    }
    if ((rc = view_hide_run (s, self, &saved, &nsaved, &used, own, err)) < 0)
        goto out;
    if (free_in)
        memcpy (free_at, free_in, s->nnodes * sizeof (*free_at));
    else
        rc = node_free_times (s, q.now, free_at, err);
    for (size_t k = 0; rc == 0 && k < s->nnodes; k++) {
        if (own[k] && s->nodes[k].state == JT_NODE_UP && s->nodes[k].used_gpus == 0)
            free_at[k] = q.now;         /* the run's own: free at its requeue */
        if (!req->eligible[k] || s->nodes[k].state != JT_NODE_UP)
            free_at[k] = INT64_MAX;
    }
    if (rc == 0) {
        room_t room = { free_at, keep };
        rc = funded_at (&q, &run, q.now, &room, &a.plan, err);
        if (rc == 1)
            when = q.now;
        else if (rc == 0 && (rc = funding_time (&q, &run, &room, &when, err)) == 0
                 && when)
            rc = funded_at (&q, &run, when, &room, &a.plan, err);
        rc = rc < 0 ? -1 : 0;
        if (rc == 0 && when && a.plan.decision != JT_BIND_NOW)
            when = 0;
    }
    view_unhide (s, saved, nsaved, used);
    if (rc < 0)
        goto out;
    if (!when) {
        snprintf (out->detail, sizeof (out->detail), "no instant from its requeue on "
                  "funds and places its restart on the nodes it may use (down, or "
                  "held without a known end)");
        goto out;
    }
    if ((rc = bind_nodes (&a, s->nnodes, no_bound (req->max_nodes) ? UINT32_MAX
                          : req->max_nodes, seen, err)) < 0)
        goto out;
    out->reserved = true;
    out->start = when;
    out->plan = a.plan;
    out->slice = a.bind;
    memset (&a, 0, sizeof (a));
    out->payer = first_payer (&out->plan);
    restart_line (out, s);
out:
    jt_answer_free (&a);
    free (free_at);
    free (keep);
    free (own);
    free (seen);
    if (rc < 0)
        jt_restart_free (out);
    return rc;
}

size_t jt_answer_pick (const jt_answer_t *a, const int64_t *starts, int64_t *start)
{
    size_t best = a->ncands;

    for (size_t i = 0; i < a->ncands; i++)
        if (starts[i] >= 0 && (best == a->ncands || starts[i] < starts[best]))
            best = i;
    *start = best < a->ncands ? starts[best] : 0;
    if (best < a->ncands && *start < a->not_before)
        *start = a->not_before;
    return best;
}

bool jt_answer_keeps_line (const jt_answer_t *a, const char *current)
{
    return a->kind == JT_ANSWER_REFUSE && a->waits && current
           && !strncmp (current, "jobtree: reserved ", 18);
}

void jt_answer_reserved (const jt_answer_t *a, const jt_snapshot_t *s,
                         size_t cand, int64_t start, char *buf, size_t len)
{
    const jt_node_set_t *set = cand < a->ncands ? &a->cands[cand] : NULL;
    const char *why = strncmp (a->reason, "jobtree: ", 9) ? a->reason
                                                           : a->reason + 9;
    char t[40];

    if (start < a->not_before)
        start = a->not_before;
    jt_time_format (start, t, sizeof (t));
    if (set && set->domain >= 0 && (size_t) set->domain < s->ndomains)
        snprintf (buf, len, "jobtree: reserved %" PRIu32 " nodes in %s from %s"
                  " (%s)", a->cand_nodes, s->domains[set->domain].name, t, why);
    else
        snprintf (buf, len, "jobtree: reserved %" PRIu32 " nodes from %s (%s)",
                  a->cand_nodes, t, why);
}

static void dump_set (jt_strbuf_t *b, const jt_node_set_t *set,
                      const jt_snapshot_t *s)
{
    for (size_t k = 0; k < set->nnodes; k++)
        jt_strbuf_printf (b, "%s%s", k ? " " : "", s->nodes[set->nodes[k]].name);
}

char *jt_answer_dump (const jt_answer_t *a, const jt_snapshot_t *s)
{
    jt_strbuf_t b = JT_STRBUF_INIT;

    switch (a->kind) {
    case JT_ANSWER_BIND:
        jt_strbuf_printf (&b, "bind[");
        dump_set (&b, &a->bind, s);
        jt_strbuf_printf (&b, "]%s", a->record ? " record" : "");
        break;
    case JT_ANSWER_REFUSE:
        jt_strbuf_printf (&b, "refuse: %s", a->reason);
        break;
    case JT_ANSWER_DEFER:
        jt_strbuf_printf (&b, "defer");
        break;
    case JT_ANSWER_ESTIMATE:
        jt_strbuf_printf (&b, "estimate %" PRIu32 " nodes", a->cand_nodes);
        if (a->not_before) {
            char t[40];
            jt_time_format (a->not_before, t, sizeof (t));
            jt_strbuf_printf (&b, " from %s", t);
        }
        for (size_t i = 0; i < a->ncands; i++) {
            jt_strbuf_printf (&b, " {");
            dump_set (&b, &a->cands[i], s);
            jt_strbuf_printf (&b, "}");
        }
        jt_strbuf_printf (&b, ": %s", a->reason);
        break;
    }
    return jt_strbuf_take (&b);
}
