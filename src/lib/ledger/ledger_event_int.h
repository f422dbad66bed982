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

#endif /* JT_LEDGER_EVENT_INT_H */
