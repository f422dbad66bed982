/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_config.c - jobtree.conf (jobtree.conf(5)). */
#include "config.h"

#include "jobtree/conf.h"
#include "jobtree/error.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    jt_diags_t d;
    jt_config_t *c = jt_config_create ();
    jt_diags_init (&d);
    if (c) {
        (void) jt_config_parse (c, "jobtree.conf", (const char *) data, size, &d);
        (void) jt_config_gpus_per_node (c, "h100");
    }
    jt_config_destroy (c);
    jt_diags_free (&d);
    return 0;
}
