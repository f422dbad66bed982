/*
 * preempt_ops_2605.c - preempt/jobtree's data hooks on Slurm 26.05: the
 * three getters that replaced preempt_p_get_data in 25.05
 * (src/interfaces/preempt.c@26.05.3:60-79). Whether preemption is enabled
 * is no longer asked: slurmctld reads PreemptMode itself
 * (preempt.c@26.05.3:384-390).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include "compat.h"
#include "preempt_jobtree.h"

extern uint16_t preempt_p_get_mode (job_record_t *job_ptr)
{
    return jtpre_mode (job_ptr);
}

extern uint32_t preempt_p_get_prio (job_record_t *job_ptr)
{
    (void) job_ptr;
    return 0;
}

extern uint32_t preempt_p_get_grace_time (job_record_t *job_ptr)
{
    (void) job_ptr;
    return 0;
}
