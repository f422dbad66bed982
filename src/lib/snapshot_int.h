/*
 * snapshot_int.h - what snapshot.c asks of snapshot_levels.c (private to
 * libjobtree).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_SNAPSHOT_INT_H
#define JOBTREE_SNAPSHOT_INT_H

#include "jobtree/snapshot.h"

/* Free every level's units and set each domain's up[] to -1; the level
 * keys stay. */
void jt_snapshot_levels_free (jt_snapshot_t *s);

/* Build the units of every named level from the domains (after they are
 * built). 0, or -1 with err set and no units. */
int jt_snapshot_levels_build (jt_snapshot_t *s, jt_error_t *err);

#endif /* JOBTREE_SNAPSHOT_INT_H */
