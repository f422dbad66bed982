/*
 * libc_tune.c - the C library set for the record-parsing programs
 * (include/jobtree/libc_tune.h says why).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <locale.h>
#if defined(HAVE_MALLOPT) && defined(HAVE_MALLOC_H)
#include <malloc.h>
#endif

#include "jobtree/libc_tune.h"

void jt_malloc_tune (void)
{
#if defined(HAVE_MALLOPT) && defined(HAVE_MALLOC_H)
    (void) mallopt (M_MXFAST, 0); /* a hint: the programs work either way */
#endif
}

void jt_locale_c_thread (void)
{
#ifdef HAVE_USELOCALE
    /* glibc's C locale object: newlocale allocates nothing for it, and it
     * is never freed (freelocale of it is a no-op) */
    locale_t c = newlocale (LC_ALL_MASK, "C", (locale_t) 0);
    if (c)
        (void) uselocale (c);
#endif
}
