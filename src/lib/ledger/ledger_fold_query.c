/*
 * ledger_fold_query.c - the queries on a fold's state (ledger_fold.c):
 * counts, envelopes (active GPUs, GPU-hours used, caps), open leases (all,
 * or a run's), the history's lease and reservation rows, open
 * reservations. Rows are copied out in a total order (lease or
 * reservation id), never in the maps' order.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/ledger.h"
#include "jobtree/map.h"
#include "ledger_fold.h"

void jt_ledger_fold_counts (const jt_ledger_fold_t *f, uint64_t *events,
                            uint64_t *starts, uint64_t *ends, uint64_t *open)
{
    if (events)
        *events = f->events;
    if (starts)
        *starts = f->starts;
    if (ends)
        *ends = f->ends;
    if (open)
        *open = jt_map_count (f->leases);
}

static void env_fill (const struct env *e, int64_t now, jt_fold_envelope_t *o)
{
    o->name = e->name;
    o->owner = e->owner;
    o->active_gpus = e->active;
    o->borrowed_gpus = e->borrowed;
    o->peak_gpus = e->peak;
    o->gpu_hours = jt_fold_env_used_s (e, now) / 3600.0;
    o->borrowed_gpu_hours = (e->closed_borrowed_s + (double) e->borrowed * (double) now
                             - e->open_borrowed_start_sum)
                            / 3600.0;
    o->closed_gpu_hours = e->closed_s / 3600.0;
    o->closed_borrowed_gpu_hours = e->closed_borrowed_s / 3600.0;
    o->capped = e->capped;
    o->concurrency = e->concurrency;
    o->max_gpu_hours = e->max_gpu_hours;
}

size_t jt_ledger_fold_envelopes (const jt_ledger_fold_t *f, int64_t now,
                                 jt_fold_envelope_t *out, size_t max)
{
    size_t n;
    const char **keys = jt_map_sorted_keys (f->envs, &n);
    for (size_t i = 0; i < n && i < max; i++)
        env_fill (jt_map_get (f->envs, keys[i]), now, &out[i]);
    free (keys);
    return n;
}

int jt_ledger_fold_envelope (const jt_ledger_fold_t *f, const char *name, int64_t now,
                             jt_fold_envelope_t *out)
{
    const struct env *e = name ? jt_map_get (f->envs, name) : NULL;
    if (!e) {
        errno = ENOENT;
        return -1;
    }
    env_fill (e, now, out);
    return 0;
}

uint64_t jt_ledger_fold_lotteries (const jt_ledger_fold_t *f)
{
    return f->lotteries;
}

int64_t jt_ledger_fold_last_time (const jt_ledger_fold_t *f)
{
    return f->last_time;
}

int64_t jt_ledger_fold_closed_until (const jt_ledger_fold_t *f)
{
    return f->closed_until;
}

int64_t jt_ledger_fold_first_start (const jt_ledger_fold_t *f)
{
    return f->first_start;
}

int64_t jt_ledger_fold_resv_closed_until (const jt_ledger_fold_t *f)
{
    return f->resv_closed_until;
}

int jt_ledger_fold_usage (const jt_ledger_fold_t *f, jt_fold_usage_t **out, size_t *n,
                          jt_error_t *err)
{
    size_t k;
    const char **keys;

    *out = NULL;
    *n = 0;
    if (!f->usage_known) {
        errno = EINVAL;
        return jt_errprintf (err, "the fold started from a checkpoint without usage");
    }
    keys = jt_map_sorted_keys (f->usage, &k);
    if ((!keys && k) || !(*out = calloc (k ? k : 1, sizeof (**out)))) {
        free (keys);
        errno = ENOMEM;
        return jt_errprintf (err, "out of memory");
    }
    for (size_t i = 0; i < k; i++) {
        const struct usage *u = jt_map_get (f->usage, keys[i]);
        (*out)[i] = (jt_fold_usage_t){ .owner = u->owner,
                                       .envelope = u->envelope,
                                       .leases = u->leases,
                                       .gpu_s = u->gpu_s,
                                       .borrowed_gpu_s = u->borrowed_gpu_s,
                                       .peak = u->cur > u->peak ? u->cur : u->peak,
                                       .last = u->last,
                                       .ordered = u->ordered };
    }
    free (keys);
    *n = k;
    return 0;
}

static void lease_fill (const struct lease *l, jt_fold_lease_t *o)
{
    *o = (jt_fold_lease_t){ .lease = l->id,
                            .run = l->run,
                            .group = l->group,
                            .envelope = l->envelope,
                            .owner = l->owner,
                            .nodes = (const char *const *) l->nodes,
                            .nnodes = l->nnodes,
                            .gpus = l->gpus,
                            .role = l->role,
                            .start = l->start,
                            .seq = l->seq,
                            .end = l->end,
                            .reason = l->reason,
                            .seed = l->seed,
                            .cut = l->cut,
                            .cut_seed = l->cut_seed };
}

struct collect {
    const char *run; /* NULL: all */
    const struct lease **v;
    size_t n;
};

static void collect_cb (const char *key, void *val, void *arg)
{
    struct collect *c = arg;
    const struct lease *l = val;
    (void) key;
    if (!c->run || !strcmp (c->run, l->run))
        c->v[c->n++] = l;
}

static int cmp_lease (const void *a, const void *b)
{
    return strcmp ((*(const struct lease *const *) a)->id,
                   (*(const struct lease *const *) b)->id);
}

/* Leases of m (of run, or all), sorted by id, into a malloc'd array. */
static int leases_of (const jt_map_t *m, const char *run, jt_fold_lease_t **out,
                      size_t *n, jt_error_t *err)
{
    size_t total = m ? jt_map_count (m) : 0;
    struct collect c = { .run = run };

    *out = NULL;
    *n = 0;
    if (!(c.v = malloc ((total ? total : 1) * sizeof (*c.v)))
        || !(*out = calloc (total ? total : 1, sizeof (**out)))) {
        free (c.v);
        errno = ENOMEM;
        return jt_errprintf (err, "out of memory");
    }
    if (m)
        jt_map_each (m, collect_cb, &c);
    qsort (c.v, c.n, sizeof (*c.v), cmp_lease);
    for (size_t i = 0; i < c.n; i++)
        lease_fill (c.v[i], &(*out)[i]);
    *n = c.n;
    free (c.v);
    return 0;
}

size_t jt_ledger_fold_open (const jt_ledger_fold_t *f, jt_fold_lease_t *out, size_t max)
{
    size_t n;
    const char **keys = jt_map_sorted_keys (f->leases, &n);
    for (size_t i = 0; i < n && i < max; i++)
        lease_fill (jt_map_get (f->leases, keys[i]), &out[i]);
    free (keys);
    return n;
}

int jt_ledger_fold_open_list (const jt_ledger_fold_t *f, const char *run,
                              jt_fold_lease_t **out, size_t *n, jt_error_t *err)
{
    return leases_of (f->leases, run, out, n, err);
}

int jt_ledger_fold_leases (const jt_ledger_fold_t *f, jt_fold_lease_t **out,
                           size_t *n, jt_error_t *err)
{
    return leases_of (f->hist, NULL, out, n, err);
}

static int cmp_resv (const void *a, const void *b)
{
    return strcmp (((const jt_fold_reservation_t *) a)->reservation,
                   ((const jt_fold_reservation_t *) b)->reservation);
}

struct resv_collect {
    jt_fold_reservation_t *v;
    size_t n;
};

static void resv_cb (const char *key, void *val, void *arg)
{
    struct resv_collect *c = arg;
    const struct resv *r = val;
    (void) key;
    c->v[c->n++] = (jt_fold_reservation_t){ .reservation = r->id,
                                            .run = r->run,
                                            .owner = r->owner,
                                            .envelope = r->envelope,
                                            .gpus = r->gpus,
                                            .earliest = r->earliest,
                                            .created = r->created,
                                            .activated = r->activated,
                                            .released = r->released,
                                            .closed = r->closed,
                                            .drawn = r->drawn };
}

static int resv_list (const jt_map_t *m, jt_fold_reservation_t **out, size_t *n,
                      jt_error_t *err)
{
    size_t total = m ? jt_map_count (m) : 0;
    struct resv_collect c = { NULL, 0 };

    *out = NULL;
    *n = 0;
    if (!(c.v = calloc (total ? total : 1, sizeof (*c.v)))) {
        errno = ENOMEM;
        return jt_errprintf (err, "out of memory");
    }
    if (m)
        jt_map_each (m, resv_cb, &c);
    qsort (c.v, c.n, sizeof (*c.v), cmp_resv);
    *out = c.v;
    *n = c.n;
    return 0;
}

int jt_ledger_fold_reservations (const jt_ledger_fold_t *f, jt_fold_reservation_t **out,
                                 size_t *n, jt_error_t *err)
{
    return resv_list (f->resv, out, n, err);
}

int jt_ledger_fold_open_resvs (const jt_ledger_fold_t *f, jt_fold_reservation_t **out,
                               size_t *n, jt_error_t *err)
{
    return resv_list (f->oresv, out, n, err);
}

int jt_ledger_fold_open_resv (const jt_ledger_fold_t *f, const char *run,
                              jt_fold_reservation_t *out)
{
    struct resv_collect c = { out, 0 };
    const struct resv *r = f && run ? jt_map_get (f->oresv, run) : NULL;

    if (!r) {
        errno = ENOENT;
        return -1;
    }
    resv_cb (r->run, (void *) r, &c);
    return 0;
}
