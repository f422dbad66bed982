/*
 * grow.c - growing an array by doubling (see grow.h).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdlib.h>

#include "grow.h"

int jt_grow (void **v, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 16;
    while (nc < n)
        nc *= 2;
    void *nv = realloc (*v, nc * sz);
    if (!nv)
        return -1;
    *v = nv;
    *cap = nc;
    return 0;
}
