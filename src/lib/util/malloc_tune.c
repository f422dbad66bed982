/*
 * malloc_tune.c - glibc's allocator set for the record-parsing programs
 * (include/jobtree/malloc_tune.h says why).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#if defined(HAVE_MALLOPT) && defined(HAVE_MALLOC_H)
#include <malloc.h>
#endif

#include "jobtree/malloc_tune.h"

void jt_malloc_tune (void)
{
#if defined(HAVE_MALLOPT) && defined(HAVE_MALLOC_H)
    (void) mallopt (M_MXFAST, 0); /* a hint: the programs work either way */
#endif
}
