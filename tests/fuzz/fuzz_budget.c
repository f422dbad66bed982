/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_budget.c - one budget file (jobtree-budgets(5)), then finalize. */
#include "config.h"

#include "jobtree/budget.h"
#include "jobtree/error.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    jt_diags_t d;
    jt_budgets_t *b = jt_budgets_create ();
    jt_diags_init (&d);
    if (b && jt_budgets_add_json (b, "f.json", (const char *) data, size, &d) == 0)
        (void) jt_budgets_finalize (b, &d);
    jt_budgets_destroy (b);
    jt_diags_free (&d);
    return 0;
}
