/*
 * grow.h - growing an array by doubling (grow.c), for the arrays that are
 * appended to one element at a time (the fold's envelopes and lease time,
 * the checkpoint's parts). Private to libjobtree.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_GROW_H
#define JT_GROW_H

#include <stddef.h>

/* Grow *v (of *cap elements of size sz, doubling from 16) to hold n.
 * 0, or -1 (ENOMEM; *v and *cap unchanged). */
int jt_grow (void **v, size_t *cap, size_t n, size_t sz);

#endif /* JT_GROW_H */
