/*
 * ledger_event_int.h - what the event model (ledger_event.c: construction,
 * validation, BudgetLoaded's budget content; ledger_event_json.c: canonical
 * JSON and parse) shares with itself and with the fold above it. Private
 * to libjobtree.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_LEDGER_EVENT_INT_H
#define JT_LEDGER_EVENT_INT_H

#include <json-c/json.h>

#include "jobtree/error.h"
#include "jobtree/ledger.h"

/* A copy of a finalized budget set, through its canonical text (the fold
 * keeps the budget content of a BudgetLoaded past the event). NULL with
 * err. */
jt_budgets_t *jt_ev_budgets_copy (const jt_budgets_t *b, jt_error_t *err);

/* A BudgetLoaded's budget content from its "budgets" array (the
 * canonical dump, budget_json.c), finalized. NULL with err. */
jt_budgets_t *jt_ev_budgets_from_array (json_object *a, jt_error_t *err);

/* A zeroed event of type t followed by a block of strs bytes for its
 * strings (ev->strs; jt_event_strdup copies into it), one allocation,
 * freed by jt_event_destroy. NULL on ENOMEM. */
jt_event_t *jt_event_create_strs (jt_ev_type_t t, size_t strs);

/* A copy of the C string s (up to its first NUL, as strdup) in ev's block,
 * or its own allocation when the block is full. NULL on ENOMEM. */
char *jt_event_strdup (jt_event_t *ev, const char *s);

/* Give each of ev's strings in its block an allocation of its own (then
 * jt_event_set may replace them), for an event handed to a caller. 0, or
 * -1 on ENOMEM (ev unchanged but for the strings already copied). */
int jt_event_strs_own (jt_event_t *ev);

#endif /* JT_LEDGER_EVENT_INT_H */
