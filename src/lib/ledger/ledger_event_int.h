/*
 * ledger_event_int.h - what the event model (ledger_event.c: construction,
 * validation, BudgetLoaded's budget content; ledger_event_json.c: canonical
 * JSON and parse; ledger_event_lease.c: a lease event's canonical text read
 * without a tree) shares with itself and with the fold above it. Private
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

/* A Start or End from text when text is exactly its canonical form
 * (ledger_event_lease.c): the event jt_event_from_json_canon makes of it,
 * canonical. NULL when not shown so (or ENOMEM): parse it with json-c. */
jt_event_t *jt_ev_lease_read (const char *text, size_t len);

/* Whether jt_event_from_json_canon tries jt_ev_lease_read first (true;
 * tests clear it to compare the two). */
extern bool jt_ev_lease_fast;

#endif /* JT_LEDGER_EVENT_INT_H */
