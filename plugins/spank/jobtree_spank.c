/*
 * jobtree_spank.c - SPANK plugin "jobtree": the dispatcher.
 *
 * Adds the Jobtree options to sbatch, salloc and srun (see args.c) and, in
 * the submitting command (allocator and local contexts), passes the values
 * given to slurmctld through the job's SPANK environment. On the compute
 * nodes (remote context) it only tells a run its layout (layout.c); the
 * decisions are slurmctld's (job_submit and select plugins). Loaded from
 * plugstack.conf.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <slurm/spank.h>

#include "args.h"
#include "layout.h"

SPANK_PLUGIN (jobtree, 1);

int slurm_spank_init (spank_t sp, int ac, char **av)
{
    /* Registering in every context keeps the option known wherever srun
     * forwards it (slurmstepd checks forwarded options by name). */
    return jtspank_args_register (sp);
}

int slurm_spank_init_post_opt (spank_t sp, int ac, char **av)
{
    switch (spank_context ()) {
    case S_CTX_LOCAL:
    case S_CTX_ALLOCATOR:
        return jtspank_args_export (sp);
    case S_CTX_REMOTE:
        return jtspank_layout_load (sp);
    default:
        return 0;
    }
}

int slurm_spank_user_init (spank_t sp, int ac, char **av)
{
    return spank_remote (sp) ? jtspank_layout_user_init (sp) : 0;
}

int slurm_spank_task_init (spank_t sp, int ac, char **av)
{
    return spank_remote (sp) ? jtspank_layout_task_init (sp) : 0;
}

int slurm_spank_exit (spank_t sp, int ac, char **av)
{
    jtspank_args_clear ();
    jtspank_layout_clear ();
    return 0;
}
