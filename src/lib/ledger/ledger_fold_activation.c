/*
 * ledger_fold_activation.c - an Activation applied to the fold's open
 * leases (ledger_fold.c recomputes the event first): each lease of a run
 * it cut is marked with the reason its End is to carry, RandomPreempt and
 * the seed for every lease of a run the lottery took, Shrink or DropSpare
 * for the group's lease a structural cut names. The mark goes with the
 * lease when it closes (ledger_fold.c's End).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/ledger.h"
#include "jobtree/map.h"
#include "ledger_fold.h"

static jt_end_reason_t cut_reason (jt_cut_kind_t k)
{
    switch (k) {
    case JT_CUT_SPARE: return JT_REASON_DROP_SPARE;
    case JT_CUT_SHRINK: return JT_REASON_SHRINK;
    case JT_CUT_LOTTERY: return JT_REASON_RANDOM_PREEMPT;
    }
    return JT_REASON_NONE;
}

/* A lease group after its run, as a key "<run>\n<group>" (malloc'd; NULL
 * on ENOMEM). */
static char *group_key (const char *run, const char *group)
{
    size_t n = strlen (run) + strlen (group) + 2;
    char *k = malloc (n);

    if (k)
        snprintf (k, n, "%s\n%s", run, group);
    return k;
}

static void *const lottery_mark = (void *) &lottery_mark;
static void *const cut_mark = (void *) &cut_mark;

struct marks {
    const jt_event_t *ev;
    jt_map_t *runs;             /* run -> lottery_mark (the lottery took it) or
                                 * cut_mark (only a group or spares cut) */
    jt_map_t *groups;           /* "<run>\n<group>" of the lease a Shrink or
                                 * DropSpare cut names -> 1 + the cut's index */
    bool oom;
};

/* An open lease of a run the Activation cut: the group's own cut (Shrink,
 * DropSpare) first, else the lottery's that took the whole run. */
static void mark_cb (const char *key, void *val, void *arg)
{
    struct marks *m = arg;
    struct lease *l = val;
    void *run = jt_map_get (m->runs, l->run), *g;
    char *k;

    (void) key;
    if (!run)
        return;
    if (!(k = group_key (l->run, l->group))) {
        m->oom = true;
        return;
    }
    g = jt_map_get (m->groups, k);
    free (k);
    if (g) {
        l->cut = cut_reason (m->ev->cuts[(uintptr_t) g - 1].kind);
        l->cut_seed = 0;
    } else if (run == lottery_mark) {
        l->cut = JT_REASON_RANDOM_PREEMPT;
        l->cut_seed = m->ev->seed;
    } else
        return;
    free (l->ckpt); /* its checkpoint entry says the cut: made again */
    l->ckpt = NULL;
}

int jt_fold_mark_cuts (jt_ledger_fold_t *f, const jt_event_t *ev)
{
    struct marks m = { .ev = ev, .runs = jt_map_create (0), .groups = jt_map_create (0) };
    int rc = -1;

    if (!m.runs || !m.groups)
        goto out;
    for (size_t i = 0; i < ev->ncuts; i++) {
        const jt_ev_cut_t *c = &ev->cuts[i];
        char group[32], *k;
        bool lot = c->kind == JT_CUT_LOTTERY;
        int put;
        if ((lot || !jt_map_get (m.runs, c->run))
            && jt_map_put (m.runs, c->run, lot ? lottery_mark : cut_mark, NULL) < 0)
            goto out;
        if (lot)
            continue;
        snprintf (group, sizeof (group), c->kind == JT_CUT_SPARE ? "spare/%d" : "%d",
                  c->group);
        if (!(k = group_key (c->run, group)))
            goto out;
        put = jt_map_put (m.groups, k, (void *) (uintptr_t) (i + 1), NULL);
        free (k);
        if (put < 0)
            goto out;
    }
    if (ev->ncuts)
        jt_map_each (f->leases, mark_cb, &m);
    rc = m.oom ? -1 : 0;
out:
    jt_map_destroy (m.runs, NULL);
    jt_map_destroy (m.groups, NULL);
    return rc;
}
