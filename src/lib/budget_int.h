/*
 * budget_int.h - hooks between the budget file reader (budget_json.c) and
 * the budget set (budget.c). Private to libjobtree.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_BUDGET_INT_H
#define JT_BUDGET_INT_H

#include <stddef.h>

#include "jobtree/budget.h"

/* Free the members of one budget (not the struct itself). */
void jt_budget_clear (struct jt_budget *bud);

/* Append bud (moved: on success b owns its members and *bud is zeroed)
 * and keep a copy of the file's text for finalize's diagnostics.
 * Returns 0 or -1 (ENOMEM; bud untouched). */
int jt_budgets_push (struct jt_budgets *b, struct jt_budget *bud, const char *text,
                     size_t len);

#endif /* JT_BUDGET_INT_H */
