/*
 * preempt_ops_2205.c - preempt/jobtree's data hook on Slurm 22.05 and
 * 24.11: one preempt_p_get_data for enabled, mode, priority and grace time
 * (src/slurmctld/preempt.h in 22.05, src/interfaces/preempt.h:47-52 in
 * 24.11). 25.05 replaced it with three getters (preempt_ops_2605.c).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "compat.h"
#include "preempt_jobtree.h"

extern int preempt_p_get_data (job_record_t *job_ptr,
                               slurm_preempt_data_type_t data_type, void *data)
{
    switch (data_type) {
    case PREEMPT_DATA_ENABLED:
        *(bool *) data = slurm_conf.preempt_mode != PREEMPT_MODE_OFF;
        return SLURM_SUCCESS;
    case PREEMPT_DATA_MODE:
        *(uint16_t *) data = jtpre_mode (job_ptr);
        return SLURM_SUCCESS;
    case PREEMPT_DATA_PRIO:
        *(uint32_t *) data = 0;
        return SLURM_SUCCESS;
    case PREEMPT_DATA_GRACE_TIME:
        *(uint32_t *) data = 0;
        return SLURM_SUCCESS;
    }
    error ("%s: unknown data type %d", plugin_type, (int) data_type);
    return SLURM_ERROR;
}
