/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_event.c - one ledger event line as jobtree-ledgerd receives it,
 * its canonical form read back, an Activation replayed (what every fold,
 * slurmctld's at a restart included, does with it), and a BudgetLoaded's
 * budget content as verify checks Cover's rules on it (a lease of every
 * owner on every envelope, Active and Borrowed). The canonical flag of
 * jt_event_from_json_canon must be "jt_event_to_json prints the input". */
#include "config.h"

#include <stdio.h>

#include "jobtree/error.h"
#include "jobtree/ledger.h"
#include "ledger/ledger_fold.h"
#include "fuzz.h"

/* Cover's rules of ev's content on leases of each owner on each envelope
 * (bounded: the content is at most JT_EV_BUDGETS_MAX bytes; at most 64
 * envelopes and 16 owners taken). */
static void rules (const jt_event_t *ev)
{
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    const jt_budgets_t *b = ev->budgets;
    jt_violation_t v;
    jt_error_t err;
    uint64_t seq = 1;

    if (!f || jt_ledger_fold_time_checks (f, &err) < 0
        || jt_ledger_fold_apply (f, seq++, ev, &v, &err) < 0) {
        jt_ledger_fold_destroy (f);
        return;
    }
    for (size_t e = 0; e < b->nenv && e < 64; e++)
        for (size_t o = 0; o < b->n && o < 16; o++)
            for (int borrowed = 0; borrowed < 2; borrowed++) {
                jt_event_t *s = jt_event_create (JT_EV_START);
                char id[64];
                snprintf (id, sizeof (id), "%zu:%zu:%d", e, o, borrowed);
                if (!s || jt_event_set (&s->id, id) < 0 || jt_event_set (&s->lease, id) < 0
                    || jt_event_set (&s->run, "c:1") < 0 || jt_event_set (&s->group, "0") < 0
                    || jt_event_add_node (s, id) < 0
                    || jt_event_set (&s->envelope, b->env[e]->name) < 0
                    || jt_event_set (&s->owner, b->v[o].owner) < 0) {
                    jt_event_destroy (s);
                    continue;
                }
                s->gpus = 8;
                s->role = borrowed ? JT_ROLE_BORROWED : JT_ROLE_ACTIVE;
                s->time = s->start = ev->time + (int64_t) e;
                (void) jt_ledger_fold_apply (f, seq++, s, &v, &err);
                jt_event_destroy (s);
            }
    memset (&v, 0, sizeof (v));
    (void) jt_ledger_fold_check_time (f, seq, &v);
    jt_ledger_fold_destroy (f);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    jt_error_t err;
    bool canonical = false;
    jt_event_t *ev = jt_event_from_json_canon ((const char *) data, size, &canonical, &err);
    if (ev) {
        char *js = jt_event_to_json (ev, &err);
        /* the flag decided on the parsed tree is the byte comparison's */
        if (js && canonical != (strlen (js) == size && !memcmp (js, data, size)))
            abort ();
        if (js) {
            jt_event_t *back = jt_event_from_json (js, strlen (js), &err);
            if (!back)
                abort ();       /* the canonical form must read back */
            jt_event_destroy (back);
            free (js);
        }
        if (ev->type == JT_EV_BUDGET_LOADED && ev->budgets)
            rules (ev);
        if (ev->type == JT_EV_ACTIVATION) {
            jt_activation_t a;
            char why[256];
            if (jt_event_activation_replay (ev, &a, why, sizeof (why)) >= 0)
                jt_activation_free (&a);
        }
    }
    jt_event_destroy (ev);
    return 0;
}
