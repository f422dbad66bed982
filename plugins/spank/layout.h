/*
 * layout.h - the SPANK plugin in remote context: a Jobtree run's layout in
 * each task's environment and a JSON file (layout.c).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_SPANK_LAYOUT_H
#define JOBTREE_SPANK_LAYOUT_H

#include <slurm/spank.h>

/* Once per step, in remote init_post_opt (root, before privileges are
 * dropped): read the job's record from slurmctld. Always 0 (a failure is
 * logged; the step runs untold). */
int jtspank_layout_load (spank_t sp);

/* Once per step, before its tasks, as the user: write the JSON file from
 * the record read. Always 0. */
int jtspank_layout_user_init (spank_t sp);

/* In each task: JOBTREE_GROUP, JOBTREE_NODE_ROLE, JOBTREE_GROUP_NODES,
 * JOBTREE_SPARE_NODES, JOBTREE_LAYOUT. Always 0. */
int jtspank_layout_task_init (spank_t sp);

void jtspank_layout_clear (void);

#endif /* JOBTREE_SPANK_LAYOUT_H */
