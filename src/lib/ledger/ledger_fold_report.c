/*
 * ledger_fold_report.c - the side of the fold (ledger_fold.c) that the
 * reports read (`jobtree report`, jobtree-report(1)): the history's rows
 * (every lease and reservation, kept on request), the live reservations,
 * and per owner and envelope what a usage report sums (closed leases, their
 * GPU-seconds, the peak of GPUs in lease time), so that a checkpoint
 * carries it (ledger_checkpoint.c) and a report need not read the history
 * before it.
 *
 * DESIGN: a group's peak is kept as lease time would count it (half-open
 * intervals [start, end), the GPUs over an interval after every Start and
 * End at its instant) as long as its Starts and Ends come in time order:
 * at each instant later than the last, the GPUs over [last, now) are a
 * candidate for the peak. An instant earlier than the last makes the
 * group unordered (the report then reads the history). A reservation is
 * closed by the live fold's rule (its Activate or Released while open, or a
 * newer Create of its run); the history row keeps the first close, and the
 * fold the latest close time of any (resv_closed_until): a report window
 * after it needs no reservation closed before.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/ledger.h"
#include "jobtree/map.h"
#include "ledger_fold.h"

static char *dup0 (const char *s)
{
    return strdup (s ? s : "");
}

/* ---- the rows: a lease, a reservation ---- */

/* Free q, one of l's strings or its nodes array, unless it lies in l's
 * block. */
static void free_out (const struct lease *l, void *q)
{
    uintptr_t a = (uintptr_t) q, b = (uintptr_t) l->strs;
    if (!l->strs || a < b || a - b >= l->strs_size)
        free (q);
}

void jt_fold_lease_free (void *p)
{
    struct lease *l = p;
    if (!l)
        return;
    free_out (l, l->id);
    free_out (l, l->run);
    free_out (l, l->group);
    free_out (l, l->envelope);
    free_out (l, l->owner);
    for (size_t i = 0; i < l->nnodes; i++)
        free_out (l, l->nodes[i]);
    free_out (l, l->nodes);
    free (l->ckpt);
    free (l);
}

void jt_fold_resv_free (void *p)
{
    struct resv *r = p;
    if (!r)
        return;
    free (r->id);
    free (r->run);
    free (r->owner);
    free (r->envelope);
    free (r);
}

/* s copied at *p, *p moved past its NUL. */
static char *put_str (char **p, const char *s)
{
    size_t n = strlen (s) + 1;
    char *d = memcpy (*p, s, n);
    *p += n;
    return d;
}

struct lease *jt_fold_lease_new (const jt_event_t *ev, uint64_t seq)
{
    /* one allocation: the struct, the nodes array, the strings (a Start
     * folded made eight of them, and its End freed them) */
    size_t arr = ev->nnodes * sizeof (char *), n = arr;
    const char *s[] = { ev->lease, ev->run, ev->group, ev->envelope, ev->owner };
    if (ev->nnodes > SIZE_MAX / sizeof (char *))
        return NULL;
    for (size_t i = 0; i < sizeof (s) / sizeof (s[0]); i++)
        n += strlen (s[i]) + 1;
    for (size_t i = 0; i < ev->nnodes; i++)
        n += strlen (ev->nodes[i]) + 1;
    if (n < arr || n > SIZE_MAX - sizeof (struct lease))
        return NULL;
    struct lease *l = malloc (sizeof (*l) + n);
    if (!l)
        return NULL;
    memset (l, 0, sizeof (*l));
    l->gpus = ev->gpus;
    l->role = ev->role;
    l->start = ev->start;
    l->seq = seq;
    l->end = -1;
    l->strs = (char *) (l + 1);
    l->strs_size = n;
    l->nodes = (char **) (void *) l->strs;
    char *p = l->strs + arr;
    l->id = put_str (&p, ev->lease);
    l->run = put_str (&p, ev->run);
    l->group = put_str (&p, ev->group);
    l->envelope = put_str (&p, ev->envelope);
    l->owner = put_str (&p, ev->owner);
    for (; l->nnodes < ev->nnodes; l->nnodes++)
        l->nodes[l->nnodes] = put_str (&p, ev->nodes[l->nnodes]);
    return l;
}

/* ---- usage per owner and envelope ---- */

void jt_fold_usage_free (void *p)
{
    struct usage *u = p;
    if (!u)
        return;
    free (u->owner);
    free (u->envelope);
    free (u);
}

/* The group's key (owner, 0x1f, envelope) in buf when it fits, else
 * malloc'd; NULL on ENOMEM. */
static char *usage_key (const char *owner, const char *envelope, char *buf, size_t len)
{
    size_t no = strlen (owner), ne = strlen (envelope);
    char *key = no + ne + 2 <= len ? buf : malloc (no + ne + 2);

    if (!key)
        return NULL;
    memcpy (key, owner, no);
    key[no] = '\x1f';
    memcpy (key + no + 1, envelope, ne + 1);
    return key;
}

struct usage *jt_fold_usage_find (const jt_ledger_fold_t *f, const char *owner,
                                  const char *envelope)
{
    char stack[256], *key = usage_key (owner, envelope, stack, sizeof (stack));
    struct usage *u = key ? jt_map_get (f->usage, key) : NULL;

    if (key != stack)
        free (key);
    return u;
}

struct usage *jt_fold_usage_get (jt_ledger_fold_t *f, const char *owner,
                                 const char *envelope)
{
    char stack[256], *key = usage_key (owner, envelope, stack, sizeof (stack));
    struct usage *u = NULL;

    if (!key)
        return NULL;
    if ((u = jt_map_get (f->usage, key)))
        goto out;
    if (!(u = calloc (1, sizeof (*u))) || !(u->owner = strdup (owner))
        || !(u->envelope = strdup (envelope))
        || jt_map_put (f->usage, key, u, NULL) < 0) {
        jt_fold_usage_free (u);
        u = NULL;
        goto out;
    }
    u->last = -1;
    u->ordered = true;
out:
    if (key != stack)
        free (key);
    return u;
}

/* gpus more (or fewer) from instant t on. */
static void usage_step (struct usage *u, int64_t t, int64_t gpus)
{
    if (t > u->last) {
        if (u->cur > u->peak)
            u->peak = u->cur;
        u->last = t;
    } else if (t < u->last)
        u->ordered = false;
    u->cur += gpus;
}

int jt_fold_usage_start (jt_ledger_fold_t *f, const struct lease *l)
{
    struct usage *u = jt_fold_usage_get (f, l->owner, l->envelope);

    if (!u)
        return -1;
    usage_step (u, l->start, l->gpus);
    if (f->first_start < 0 || l->start < f->first_start)
        f->first_start = l->start;
    return 0;
}

int jt_fold_usage_end (jt_ledger_fold_t *f, const struct lease *l, int64_t end)
{
    struct usage *u = jt_fold_usage_get (f, l->owner, l->envelope);
    double s = (double) l->gpus * (double) (end - l->start);

    if (!u)
        return -1;
    usage_step (u, end, -l->gpus);
    u->leases++;
    u->gpu_s += s;
    if (l->role == JT_ROLE_BORROWED)
        u->borrowed_gpu_s += s;
    return 0;
}

/* ---- history ---- */

/* History: every lease once (its first Start; an End closes it once) and
 * every reservation (created once; activation and release times). */
int jt_fold_history_apply (jt_ledger_fold_t *f, uint64_t seq, const jt_event_t *ev)
{
    struct lease *l;
    struct resv *r;

    switch (ev->type) {
    case JT_EV_START:
        if (jt_map_get (f->hist, ev->lease))
            return 0;
        if (!(l = jt_fold_lease_new (ev, seq))
            || jt_map_put (f->hist, l->id, l, NULL) < 0) {
            jt_fold_lease_free (l);
            return -1;
        }
        return 0;
    case JT_EV_END:
        if ((l = jt_map_get (f->hist, ev->lease)) && l->end < 0) {
            l->end = ev->end;
            l->reason = ev->reason;
            l->seed = ev->seed;
        }
        return 0;
    case JT_EV_RES_CREATE:
        if (jt_map_get (f->resv, ev->reservation))
            return 0;
        if (!(r = calloc (1, sizeof (*r))) || !(r->id = dup0 (ev->reservation))
            || !(r->run = dup0 (ev->run)) || !(r->owner = dup0 (ev->owner))
            || !(r->envelope = dup0 (ev->envelope))
            || jt_map_put (f->resv, r->id, r, NULL) < 0) {
            jt_fold_resv_free (r);
            return -1;
        }
        r->gpus = ev->gpus;
        r->earliest = ev->start;
        r->created = ev->time;
        r->activated = r->released = r->closed = r->drawn = -1;
        return 0;
    case JT_EV_RES_ACTIVATE:
    case JT_EV_RES_RELEASED:
        if ((r = jt_map_get (f->resv, ev->reservation))) {
            if (ev->type == JT_EV_RES_ACTIVATE)
                r->activated = ev->time;
            else
                r->released = ev->time;
        }
        return 0;
    default: return 0;
    }
}

/* The open reservation r is closed at t: its history row says when (the
 * first close), and the fold its latest close. */
static void resv_closed (jt_ledger_fold_t *f, const struct resv *r, int64_t t)
{
    struct resv *h = f->resv ? jt_map_get (f->resv, r->id) : NULL;

    if (h && h->closed < 0)
        h->closed = t;
    if (t > f->resv_closed_until)
        f->resv_closed_until = t;
}

/* Live reservations: a run holds at most one open reservation, from its
 * ReservationCreate to the ReservationActivate or ReservationReleased of
 * the same id (a newer Create replaces an open one). 0, or -1 on ENOMEM. */
int jt_fold_resv_apply (jt_ledger_fold_t *f, const jt_event_t *ev)
{
    struct resv *r = jt_map_get (f->oresv, ev->run), *old = NULL;

    if (ev->type != JT_EV_RES_CREATE) {
        if (r && !strcmp (r->id, ev->reservation)) {
            resv_closed (f, r, ev->time);
            jt_fold_resv_free (jt_map_remove (f->oresv, ev->run));
        }
        return 0;
    }
    if (r && !strcmp (r->id, ev->reservation))
        return 0;               /* a resend */
    if (!(r = calloc (1, sizeof (*r))) || !(r->id = dup0 (ev->reservation))
        || !(r->run = dup0 (ev->run)) || !(r->owner = dup0 (ev->owner))
        || !(r->envelope = dup0 (ev->envelope))
        || jt_map_put (f->oresv, r->run, r, (void **) &old) < 0) {
        jt_fold_resv_free (r);
        return -1;
    }
    if (old)                    /* the open one it replaced (map.h) */
        resv_closed (f, old, ev->time);
    jt_fold_resv_free (old);
    r->gpus = ev->gpus;
    r->earliest = ev->start;
    r->created = ev->time;
    r->activated = r->released = r->closed = r->drawn = -1;
    return 0;
}
