/*
 * args.h - the Jobtree sbatch/salloc/srun options of the SPANK plugin.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_SPANK_ARGS_H
#define JOBTREE_SPANK_ARGS_H

#include <stdbool.h>

#include <slurm/spank.h>

/* Register every option with spank_option_register (the static table is
 * ignored in allocator context). Returns 0 or -1. */
int jtspank_args_register (spank_t sp);

/* Put every option that was given into the job's SPANK environment as
 * JOBTREE_<OPTION>=<value> (what slurmctld's job_submit plugin reads).
 * Returns 0 or -1. */
int jtspank_args_export (spank_t sp);

/* Was any Jobtree option given? In remote context (slurmstepd) too:
 * Slurm runs the callbacks there with the options the job was given. */
bool jtspank_args_any (void);

/* Forget every value (plugin exit). */
void jtspank_args_clear (void);

#endif /* JOBTREE_SPANK_ARGS_H */
