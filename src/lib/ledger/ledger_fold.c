/*
 * ledger_fold.c - live state as a fold over ledger events, and the
 * calculus's invariants checked event by event: applying an event (or a
 * record's payload). The queries on the state (counts, envelopes, open
 * leases, the history's lease and reservation rows) are
 * ledger_fold_query.c's; reading a ledger on disk through a fold (`jobtree
 * verify`, the replay after a restart) is ledger_fold_replay.c's.
 *
 * DESIGN: events are applied in ledger order, which is emission order (the
 * client keeps it through its queue and spool). State: open leases by id,
 * the lease holding each node, and per envelope the active GPUs, GPU-seconds
 * of closed leases and, for open ones, sum(gpus) and sum(gpus * start) so
 * that usage at any instant t is closed + gpus*t - sum_start in O(1). Usage
 * only grows with t, so checking the integral bound at every event of the
 * envelope and at the last event time covers every instant in between.
 * Caps come from the latest BudgetLoaded event (docs/ledger-format.md):
 * envelopes without caps are tracked but not checked. Counts are added
 * with checked arithmetic (events bound gpus; one built in memory must not
 * wrap them either).
 *
 * Those checks follow event order: right for a live fold (the plugin's,
 * which sees events as they happen), not for an audit, since "at every
 * instant" means lease time. A fold asked for lease time
 * (jt_ledger_fold_time_checks: `jobtree verify`) records every lease
 * interval and every BudgetLoaded as a cap epoch instead, and checks node
 * overlap, concurrency, GPU-hours and window on them once the ledger is
 * read (ledger_fold_time.c, then Cover's rules: ledger_fold_rules.c). The structural checks (ids, Start/End
 * matching, lotteries) are the same in both.
 * An Activation is recomputed from the event alone
 * (jt_event_activation_replay) and marks the open leases it cut with the
 * reason their End is to carry (RandomPreempt and its seed for every lease
 * of a run the lottery took; Shrink or DropSpare for the group's lease);
 * the mark goes with the lease when it closes, and an End RandomPreempt
 * must carry the seed its lease was marked with.
 *
 * This is the one fold of the ledger: `jobtree verify` checks it, `jobtree
 * report` asks it for every lease and reservation (history, kept on
 * request), and the ledger sink (ledger_sink.c, the select plugin's) keeps
 * one for its open leases and the closed GPU-hours per envelope (it applies
 * the events it emits, and stops remembering event ids so that its memory
 * follows open leases only).
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
#include "jobtree/map.h"
#include "ledger_fold.h"
#include "util/grow.h"
#include "ledger_event_int.h"

static const char *const viol_names[] = {
    [JT_VIOL_NONE] = "none",
    [JT_VIOL_DUP_ID] = "duplicate-id",
    [JT_VIOL_DUP_START] = "duplicate-start",
    [JT_VIOL_UNMATCHED_END] = "unmatched-end",
    [JT_VIOL_BAD_INTERVAL] = "bad-interval",
    [JT_VIOL_NODE_OVERLAP] = "node-overlap",
    [JT_VIOL_CONCURRENCY] = "concurrency",
    [JT_VIOL_GPU_HOURS] = "gpu-hours",
    [JT_VIOL_WINDOW] = "window",
    [JT_VIOL_BAD_EVENT] = "bad-event",
    [JT_VIOL_LOTTERY] = "lottery",
    [JT_VIOL_PAYER] = "payer",
    [JT_VIOL_ROLE] = "role",
    [JT_VIOL_LENDING] = "lending-cap",
    [JT_VIOL_AGGREGATE] = "aggregate-cap",
    [JT_VIOL_BUDGET_HASH] = "budget-hash",
    [JT_VIOL_CHECKPOINT] = "checkpoint-mismatch",
};

const char *jt_violation_str (jt_violation_kind_t k)
{
    return (k >= 0 && (size_t) k < sizeof (viol_names) / sizeof (viol_names[0]))
               ? viol_names[k]
               : "?";
}

static void env_free (void *p)
{
    struct env *e = p;
    if (!e)
        return;
    free (e->name);
    free (e->owner);
    free (e);
}

static void times_free (jt_fold_times_t *t);

jt_ledger_fold_t *jt_ledger_fold_create (void)
{
    jt_ledger_fold_t *f = calloc (1, sizeof (*f));
    if (!f)
        return NULL;
    if (!(f->ids = jt_idset_create ()) || !(f->leases = jt_map_create (0))
        || !(f->nodes = jt_map_create (0)) || !(f->envs = jt_map_create (0))
        || !(f->oresv = jt_map_create (0)) || !(f->usage = jt_map_create (0))) {
        jt_ledger_fold_destroy (f);
        return NULL;
    }
    f->usage_known = true;
    f->first_start = -1;
    return f;
}

void jt_ledger_fold_destroy (jt_ledger_fold_t *f)
{
    if (!f)
        return;
    jt_idset_destroy (f->ids);
    jt_map_destroy (f->nodes, NULL);
    jt_map_destroy (f->leases, jt_fold_lease_free);
    jt_map_destroy (f->envs, env_free);
    jt_map_destroy (f->hist, jt_fold_lease_free);
    jt_map_destroy (f->resv, jt_fold_resv_free);
    jt_map_destroy (f->oresv, jt_fold_resv_free);
    jt_map_destroy (f->usage, jt_fold_usage_free);
    free (f->env_v);
    for (size_t i = 0; i < f->last_nfiles; i++)
        free (f->last_files[i].path);
    free (f->last_files);
    times_free (f->times);
    free (f->times);
    free (f);
}

static void times_free (jt_fold_times_t *t)
{
    if (!t)
        return;
    free (t->text);
    free (t->ivl);
    free (t->nodes);
    for (size_t i = 0; i < t->nnames; i++)
        free (t->names[i]);
    free (t->names);
    jt_map_destroy (t->node_ids, NULL);
    free (t->ep);
    free (t->caps);
    for (size_t i = 0; i < t->nrules; i++)
        jt_budgets_destroy (t->rules[i]);
    free (t->rules);
    jt_map_destroy (t->rules_ids, NULL);
    memset (t, 0, sizeof (*t));
}

int jt_ledger_fold_time_checks (jt_ledger_fold_t *f, jt_error_t *err)
{
    if (f->times)
        return 0;
    if (f->events) {
        errno = EINVAL;
        return jt_errprintf (err, "lease time must be asked for before the first event");
    }
    if (!(f->times = calloc (1, sizeof (*f->times)))
        || !(f->times->node_ids = jt_map_create (0))
        || !(f->times->rules_ids = jt_map_create (0))) {
        if (f->times)
            jt_map_destroy (f->times->node_ids, NULL);
        free (f->times);
        f->times = NULL;
        errno = ENOMEM;
        return jt_errprintf (err, "out of memory");
    }
    return 0;
}

/* The number of name (a node or an owner) in t->names, added when new:
 * 1 + it, or 0 on ENOMEM. */
static uintptr_t times_name (jt_fold_times_t *t, const char *name)
{
    uintptr_t id = (uintptr_t) jt_map_get (t->node_ids, name);

    if (id)
        return id;
    if (jt_grow ((void **) &t->names, &t->namecap, t->nnames + 1, sizeof (*t->names)) < 0
        || !(t->names[t->nnames] = strdup (name)))
        return 0;
    id = ++t->nnames;
    if (jt_map_put (t->node_ids, name, (void *) id, NULL) < 0)
        return 0;
    return id;
}

/* Record a Start's interval (lease time); its index goes to l->ivl. */
static int times_start (jt_fold_times_t *t, struct lease *l, const struct env *e)
{
    if (jt_grow ((void **) &t->ivl, &t->ivlcap, t->nivl + 1, sizeof (*t->ivl)) < 0
        || jt_grow ((void **) &t->nodes, &t->nodecap, t->nnodes + l->nnodes,
                 sizeof (*t->nodes))
               < 0)
        return -1;
    jt_fold_ivl_t *iv = &t->ivl[t->nivl];
    *iv = (jt_fold_ivl_t){ .start = l->start, .end = -1, .gpus = l->gpus, .env = e->id,
                           .nnodes = (uint32_t) l->nnodes, .node0 = t->nnodes,
                           .sseq = l->seq };
    uintptr_t owner = times_name (t, l->owner);
    if (!owner)
        return -1;
    iv->owner = (uint32_t) (owner - 1);
    iv->role = l->role;
    for (size_t i = 0; i < l->nnodes; i++) {
        uintptr_t id = times_name (t, l->nodes[i]);
        if (!id)
            return -1;
        t->nodes[t->nnodes++] = (uint32_t) (id - 1);
    }
    size_t n = strlen (l->id) + 1;
    if (jt_grow ((void **) &t->text, &t->textcap, t->ntext + n, 1) < 0)
        return -1;
    memcpy (t->text + t->ntext, l->id, n);
    iv->lease = t->ntext;
    t->ntext += n;
    l->ivl = t->nivl++;
    return 0;
}

/* Record a BudgetLoaded's caps as an epoch (lease time). */
static int times_epoch (jt_ledger_fold_t *f, int64_t time, uint64_t seq,
                        const jt_event_t *ev)
{
    jt_fold_times_t *t = f->times;
    if (jt_grow ((void **) &t->ep, &t->epcap, t->nep + 1, sizeof (*t->ep)) < 0
        || jt_grow ((void **) &t->caps, &t->capcap, t->ncaps + ev->ncaps, sizeof (*t->caps))
               < 0)
        return -1;
    int rules = -1;
    if (ev->budgets) { /* one copy per distinct content */
        uintptr_t r = (uintptr_t) jt_map_get (t->rules_ids, ev->budgets_sha256);
        if (!r) {
            if (jt_grow ((void **) &t->rules, &t->rulescap, t->nrules + 1,
                      sizeof (*t->rules))
                    < 0
                || !(t->rules[t->nrules] = jt_ev_budgets_copy (ev->budgets, NULL)))
                return -1;
            r = ++t->nrules;
            if (jt_map_put (t->rules_ids, ev->budgets_sha256, (void *) r, NULL) < 0)
                return -1;
        }
        rules = (int) (r - 1);
    }
    t->ep[t->nep++] = (jt_fold_epoch_t){ time, seq, t->ncaps, ev->ncaps, rules };
    for (size_t i = 0; i < ev->ncaps; i++) {
        const jt_ev_cap_t *c = &ev->caps[i];
        struct env *e = jt_map_get (f->envs, c->envelope);
        if (!e)
            return -1; /* jt_fold_load_caps made it */
        t->caps[t->ncaps++] = (jt_fold_cap_t){ e->id, c->concurrency, c->max_gpu_hours,
                                               c->start, c->end };
    }
    return 0;
}

int jt_ledger_fold_keep_history (jt_ledger_fold_t *f, jt_error_t *err)
{
    if (f->hist)
        return 0;
    if (f->events) {
        errno = EINVAL;
        return jt_errprintf (err, "history must be asked for before the first event");
    }
    if (!(f->hist = jt_map_create (0)) || !(f->resv = jt_map_create (0))) {
        jt_map_destroy (f->hist, NULL);
        f->hist = NULL;
        errno = ENOMEM;
        return jt_errprintf (err, "out of memory");
    }
    return 0;
}

void jt_ledger_fold_forget_ids (jt_ledger_fold_t *f)
{
    if (!f)
        return;
    jt_idset_destroy (f->ids);
    f->ids = NULL;
}

static int viol (jt_violation_t *v, jt_violation_kind_t k, uint64_t seq,
                 const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));
static int viol (jt_violation_t *v, jt_violation_kind_t k, uint64_t seq,
                 const char *fmt, ...)
{
    if (v && v->kind == JT_VIOL_NONE) {
        va_list ap;
        v->kind = k;
        v->seq = seq;
        va_start (ap, fmt);
        vsnprintf (v->msg, sizeof (v->msg), fmt, ap);
        va_end (ap);
    }
    return 1;
}

struct env *jt_fold_env_get (jt_ledger_fold_t *f, const char *name)
{
    struct env *e = jt_map_get (f->envs, name);
    if (e)
        return e;
    if (f->nenv >= UINT32_MAX
        || jt_grow ((void **) &f->env_v, &f->envcap, f->nenv + 1, sizeof (*f->env_v)) < 0)
        return NULL;
    if (!(e = calloc (1, sizeof (*e))) || !(e->name = strdup (name))
        || jt_map_put (f->envs, name, e, NULL) < 0) {
        env_free (e);
        return NULL;
    }
    e->id = (uint32_t) f->nenv;
    f->env_v[f->nenv++] = e;
    return e;
}

double jt_fold_env_used_s (const struct env *e, int64_t t)
{
    return e->closed_s + (double) e->active * (double) t - e->open_start_sum;
}

static int check_hours (const struct env *e, uint64_t seq, int64_t t, jt_violation_t *v)
{
    if (!e->capped)
        return 0;
    double used = jt_fold_env_used_s (e, t) / 3600.0;
    if (used > e->max_gpu_hours + 1e-9)
        return viol (v, JT_VIOL_GPU_HOURS, seq,
                     "envelope %s: %.3f GPU-hours used by t=%" PRId64 " > cap %.3f",
                     e->name, used, t, e->max_gpu_hours);
    return 0;
}

int jt_ledger_fold_check_time (const jt_ledger_fold_t *f, uint64_t last_seq,
                               jt_violation_t *v)
{
    const char **names = malloc ((f->nenv ? f->nenv : 1) * sizeof (*names));
    int rc;

    if (!f->times) {
        errno = EINVAL;
        free (names);
        return -1;
    }
    if (!names) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < f->nenv; i++)
        names[i] = f->env_v[i]->name;
    rc = jt_fold_times_check (f->times, names, f->nenv, f->last_time, last_seq, v);
    free (names);
    return rc;
}

int jt_fold_load_caps (jt_ledger_fold_t *f, const jt_event_t *ev)
{
    size_t n;
    const char **keys = jt_map_sorted_keys (f->envs, &n);
    for (size_t i = 0; i < n; i++)
        ((struct env *) jt_map_get (f->envs, keys[i]))->capped = false;
    free (keys);
    for (size_t i = 0; i < ev->ncaps; i++) {
        const jt_ev_cap_t *c = &ev->caps[i];
        struct env *e = jt_fold_env_get (f, c->envelope);
        if (!e)
            return -1;
        char *o = strdup (c->owner);
        if (!o)
            return -1;
        free (e->owner);
        e->owner = o;
        e->capped = true;
        e->concurrency = c->concurrency;
        e->max_gpu_hours = c->max_gpu_hours;
        e->wstart = c->start;
        e->wend = c->end;
    }
    return 0;
}

static int apply_start (jt_ledger_fold_t *f, uint64_t seq, const jt_event_t *ev,
                        jt_violation_t *v)
{
    int rc = 0;
    struct lease *old = jt_map_get (f->leases, ev->lease);
    if (old)
        return viol (v, JT_VIOL_DUP_START, seq,
                     "lease %s started again (already open since seq %" PRIu64 ")",
                     ev->lease, old->seq);
    struct env *e = jt_fold_env_get (f, ev->envelope);
    if (!e)
        return -1;
    /* checked: unreachable with validated events (gpus <= 2^20 each), but an
     * event built in memory must not wrap a count either: not applied */
    int64_t active, borrowed = e->borrowed;
    if (__builtin_add_overflow (e->active, ev->gpus, &active)
        || (ev->role == JT_ROLE_BORROWED
            && __builtin_add_overflow (e->borrowed, ev->gpus, &borrowed)))
        return viol (v, JT_VIOL_CONCURRENCY, seq,
                     "envelope %s: %" PRId64 " + %" PRId64 " active GPUs overflow; "
                     "lease %s not applied",
                     e->name, e->active, ev->gpus, ev->lease);
    struct lease *l = jt_fold_lease_new (ev, seq);
    if (!l || jt_map_put (f->leases, l->id, l, NULL) < 0) {
        jt_fold_lease_free (l);
        return -1;
    }
    if ((f->times && times_start (f->times, l, e) < 0) || jt_fold_usage_start (f, l) < 0)
        return -1;
    bool live = !f->times; /* else lease time is checked at the end, and
                            * the node owners (only the live check reads
                            * them) are not kept: two map entries per node
                            * of every Start, a fifth of a verify's fold */
    for (size_t i = 0; live && i < l->nnodes; i++) {
        struct lease *h = jt_map_get (f->nodes, l->nodes[i]);
        if (h && h != l)
            rc = viol (v, JT_VIOL_NODE_OVERLAP, seq,
                       "node %s in lease %s while lease %s (seq %" PRIu64 ") holds it",
                       l->nodes[i], l->id, h->id, h->seq);
        if (jt_map_put (f->nodes, l->nodes[i], l, NULL) < 0)
            return -1;
    }
    if (live && e->capped && active > e->concurrency)
        rc = viol (v, JT_VIOL_CONCURRENCY, seq,
                   "envelope %s: %" PRId64 " + %" PRId64 " GPUs > concurrency %" PRId64,
                   e->name, e->active, l->gpus, e->concurrency);
    if (live && e->capped && (l->start < e->wstart || l->start >= e->wend))
        rc = viol (v, JT_VIOL_WINDOW, seq,
                   "lease %s starts at %" PRId64 " outside envelope %s's window", l->id,
                   l->start, e->name);
    e->active = active;
    e->borrowed = borrowed;
    e->open_start_sum += (double) l->gpus * (double) l->start;
    if (l->role == JT_ROLE_BORROWED)
        e->open_borrowed_start_sum += (double) l->gpus * (double) l->start;
    if (e->active > e->peak)
        e->peak = e->active;
    f->starts++;
    if (live && check_hours (e, seq, ev->time > l->start ? ev->time : l->start, v))
        rc = 1;
    return rc;
}

/* The first field in which an End differs from its lease's Start (it
 * repeats them all: run, group, nodes in order, gpus, role, envelope, owner,
 * start), or NULL. */
static const char *end_differs (const struct lease *l, const jt_event_t *ev)
{
    if (strcmp (l->run, ev->run))
        return "run";
    if (strcmp (l->group, ev->group))
        return "group";
    if (l->nnodes != ev->nnodes)
        return "nodes";
    for (size_t i = 0; i < l->nnodes; i++)
        if (strcmp (l->nodes[i], ev->nodes[i]))
            return "nodes";
    if (l->gpus != ev->gpus)
        return "gpus";
    if (l->role != ev->role)
        return "role";
    if (strcmp (l->envelope, ev->envelope))
        return "envelope";
    if (strcmp (l->owner, ev->owner))
        return "owner";
    if (l->start != ev->start)
        return "start";
    return NULL;
}

static int apply_end (jt_ledger_fold_t *f, uint64_t seq, const jt_event_t *ev,
                      jt_violation_t *v)
{
    int rc = 0;
    struct lease *l = jt_map_get (f->leases, ev->lease);
    if (!l)
        return viol (v, JT_VIOL_UNMATCHED_END, seq,
                     "End of lease %s without an open Start", ev->lease);
    const char *differs = end_differs (l, ev);
    if (differs)
        rc = viol (v, JT_VIOL_BAD_INTERVAL, seq,
                   "End of lease %s disagrees with its Start (seq %" PRIu64 "): %s",
                   l->id, l->seq, differs);
    if (ev->reason == JT_REASON_RANDOM_PREEMPT
        && (l->cut != JT_REASON_RANDOM_PREEMPT || l->cut_seed != ev->seed))
        rc = viol (v, JT_VIOL_LOTTERY, seq,
                   "End of lease %s: RandomPreempt seed %016" PRIx64 " matches no "
                   "Activation that cut run %s while the lease was open",
                   l->id, ev->seed, l->run);
    struct env *e = jt_fold_env_get (f, l->envelope);
    if (!e)
        return -1;
    double s = (double) l->gpus * (double) (ev->end - l->start);
    if (jt_fold_usage_end (f, l, ev->end) < 0)
        return -1;
    e->active -= l->gpus;
    e->open_start_sum -= (double) l->gpus * (double) l->start;
    e->closed_s += s;
    if (ev->end > f->closed_until)
        f->closed_until = ev->end;
    if (l->role == JT_ROLE_BORROWED) {
        e->borrowed -= l->gpus;
        e->open_borrowed_start_sum -= (double) l->gpus * (double) l->start;
        e->closed_borrowed_s += s;
    }
    if (f->times) { /* lease time: checked at the end */
        f->times->ivl[l->ivl].end = ev->end;
        f->times->ivl[l->ivl].eseq = seq;
    } else {
        if (e->capped && ev->end > e->wend)
            rc = viol (v, JT_VIOL_WINDOW, seq,
                       "lease %s ends at %" PRId64 " after envelope %s's window", l->id,
                       ev->end, e->name);
        if (check_hours (e, seq, ev->end, v))
            rc = 1;
    }
    for (size_t i = 0; !f->times && i < l->nnodes; i++)
        if (jt_map_get (f->nodes, l->nodes[i]) == l)
            jt_map_remove (f->nodes, l->nodes[i]);
    jt_map_remove (f->leases, l->id);
    jt_fold_lease_free (l);
    f->ends++;
    return rc;
}

/* ---- Activation ---- */

/* Recompute the Activation (a mismatch is a `lottery` violation), then mark
 * the open leases it cut. */
static int apply_activation (jt_ledger_fold_t *f, uint64_t seq, const jt_event_t *ev,
                             jt_violation_t *v)
{
    char why[200];
    int rc = jt_event_activation_replay (ev, NULL, why, sizeof (why));

    if (rc < 0 && errno == ENOMEM)
        return -1;
    f->lotteries++;
    if (rc != 0)
        rc = viol (v, JT_VIOL_LOTTERY, seq, "Activation %s: %s", ev->id, why);
    /* the open reservation it was for has been drawn: a controller that
     * takes over reads it back and draws no second time */
    struct resv *r = ev->run ? jt_map_get (f->oresv, ev->run) : NULL;
    if (r && ev->reservation && !strcmp (r->id, ev->reservation))
        r->drawn = ev->time;
    return jt_fold_mark_cuts (f, ev) < 0 ? -1 : rc;
}

/* Remember the last BudgetLoaded (its hash and files: verify --budgets
 * compares them with the auditor's files) and count those with no
 * content. 0, or -1 on ENOMEM. */
static int note_load (jt_ledger_fold_t *f, uint64_t seq, const jt_event_t *ev)
{
    jt_ev_file_t *files = calloc (ev->nfiles ? ev->nfiles : 1, sizeof (*files));

    if (!files)
        return -1;
    for (size_t i = 0; i < ev->nfiles; i++) {
        memcpy (files[i].sha256, ev->files[i].sha256, sizeof (files[i].sha256));
        if (!(files[i].path = strdup (ev->files[i].path))) {
            while (i-- > 0)
                free (files[i].path);
            free (files);
            return -1;
        }
    }
    for (size_t i = 0; i < f->last_nfiles; i++)
        free (f->last_files[i].path);
    free (f->last_files);
    f->last_files = files;
    f->last_nfiles = ev->nfiles;
    f->loads++;
    f->last_load_seq = seq;
    memcpy (f->last_sha256, ev->budgets_sha256, sizeof (f->last_sha256));
    if (!ev->budgets) {
        if (!f->loads_no_content)
            f->first_no_content = seq;
        f->loads_no_content++;
    }
    return 0;
}

void jt_ledger_fold_budgets (const jt_ledger_fold_t *f, jt_fold_budgets_t *out)
{
    *out = (jt_fold_budgets_t){ .loads = f->loads,
                                .loads_no_content = f->loads_no_content,
                                .first_no_content = f->first_no_content,
                                .last_seq = f->last_load_seq,
                                .last_sha256 = f->last_sha256,
                                .last_files = f->last_files,
                                .last_nfiles = f->last_nfiles };
    if (f->times) {
        out->leases_checked = f->times->leases_checked;
        out->leases_unchecked = f->times->leases_unchecked;
    }
}

/* jt_ledger_fold_apply with idh = jt_str_hash64 (ev->id) (0: not known). */
static int fold_apply (jt_ledger_fold_t *f, uint64_t seq, const jt_event_t *ev, uint64_t idh,
                       jt_violation_t *v, jt_error_t *err)
{
    int rc = 0;
    if (v)
        memset (v, 0, sizeof (*v));
    if (ev->type == JT_EV_CHECKPOINT)
        return 0; /* a record of the state, not an event of it: readers
                   * check and use it (ledger_fold_replay.c) */
    f->events++;
    if (ev->time > f->last_time)
        f->last_time = ev->time;
    int fresh = 1; /* one lookup of the id (a verify's largest structure) */
    if (f->ids
        && (fresh = jt_idset_add_hashed (f->ids, ev->id, idh ? idh : jt_str_hash64 (ev->id)))
               < 0)
        goto nomem;
    if (!fresh)
        rc = viol (v, JT_VIOL_DUP_ID, seq, "event id %s appears twice", ev->id);
    if (f->hist && jt_fold_history_apply (f, seq, ev) < 0)
        goto nomem;
    int r = 0;
    switch (ev->type) {
    case JT_EV_START: r = apply_start (f, seq, ev, v); break;
    case JT_EV_END: r = apply_end (f, seq, ev, v); break;
    case JT_EV_BUDGET_LOADED:
        if (note_load (f, seq, ev) < 0)
            goto nomem;
        if (!f->caps_pinned && (r = jt_fold_load_caps (f, ev)) == 0 && f->times)
            r = times_epoch (f, ev->time, seq, ev);
        break;
    case JT_EV_RES_CREATE:
    case JT_EV_RES_ACTIVATE:
    case JT_EV_RES_RELEASED: r = jt_fold_resv_apply (f, ev); break;
    case JT_EV_ACTIVATION: r = apply_activation (f, seq, ev, v); break;
    default: break;
    }
    if (r < 0)
        goto nomem;
    return r ? r : rc;
nomem:
    errno = ENOMEM;
    return jt_errprintf (err, "out of memory");
}

int jt_ledger_fold_apply (jt_ledger_fold_t *f, uint64_t seq, const jt_event_t *ev,
                          jt_violation_t *v, jt_error_t *err)
{
    return fold_apply (f, seq, ev, 0, v, err);
}

void jt_ledger_fold_ahead (const jt_ledger_fold_t *f, const jt_record_t *rec)
{
    uint64_t h;
    if (f->ids && jt_record_event_id_hash (rec, &h))
        jt_idset_prefetch (f->ids, h);
}

int jt_ledger_fold_apply_record (jt_ledger_fold_t *f, const jt_record_t *rec,
                                 bool canonical, jt_violation_t *v, jt_error_t *err)
{
    jt_error_t perr = { "" };
    bool canon = true;
    bool owned = true;
    uint64_t idh = 0;
    jt_event_t *ev = jt_record_event_ref (rec, canonical ? &canon : NULL, &owned, &perr);
    int rc;

    memset (v, 0, sizeof (*v));
    if (!ev)
        return viol (v, JT_VIOL_BAD_EVENT, rec->seq, "payload: %s", perr.text);
    if (!canon)
        rc = viol (v, JT_VIOL_BAD_EVENT, rec->seq, "payload is not in canonical form");
    else { /* the id's hash, when the event was parsed ahead: computed there */
        if (owned || !jt_record_event_id_hash (rec, &idh))
            idh = 0;
        rc = fold_apply (f, rec->seq, ev, idh, v, err);
    }
    if (owned) /* else the reader's release frees it where it was parsed */
        jt_event_destroy (ev);
    return rc;
}

int jt_ledger_fold_pin_caps (jt_ledger_fold_t *f, const jt_event_t *budget,
                             jt_error_t *err)
{
    f->caps_pinned = false;
    if (f->times) /* the pinned caps are the only epoch, in force always */
        f->times->nep = f->times->ncaps = 0;
    if (jt_fold_load_caps (f, budget) < 0 || (f->times && times_epoch (f, INT64_MIN, 0, budget) < 0))
        return jt_errprintf (err, "out of memory");
    f->caps_pinned = true;
    return 0;
}
