/*
 * preempt_jobtree.c - preempt/jobtree: which jobs slurmctld may offer the
 * select plugin as preemptees. It decides nothing else: the victims are
 * chosen by libjobtree's activation (jobtree/activate.h) inside
 * select/cons_tres_jobtree's job_test, which returns them only when the
 * waiting run's reservation is due (jobtree.conf MaxWait) and otherwise
 * lets nobody be preempted.
 *
 * The rules, and why:
 * - Only a pending Jobtree run may preempt, and only running Jobtree runs
 *   may be preempted: they are leases in the ledger, so the lottery that
 *   ends them is recorded and replayable; plain jobs never give way.
 * - No pending job outranks another (job_preempt_check is false): the
 *   queue keeps the scheduler's priority order. slurmctld sorts its queue
 *   with this check, so a relation true both ways would make the sort
 *   inconsistent.
 * - No numeric priority: PREEMPT_DATA_PRIO is 0 for every job (the order
 *   of candidates is irrelevant; the select plugin draws by the seed).
 * - Mode: slurm.conf's PreemptMode (REQUEUE is the one Jobtree documents:
 *   a preempted run is requeued whole and keeps its place), OFF for jobs
 *   that are not Jobtree runs. Grace time 0: the slice must clear at the
 *   activation instant the ledger records.
 * Runs inside slurmctld with the job lock held: no I/O, no allocation.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <stdbool.h>
#include <stdint.h>

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/plugin.h"
#include "compat.h"               /* what differs between Slurm releases */
#include "preempt_jobtree.h"

#include <jobtree/record.h>

const char plugin_name[] = "Jobtree preemption (victims chosen by the select plugin)";
const char plugin_type[] = "preempt/jobtree";
const uint32_t plugin_version = JTC_PLUGIN_VERSION;

static bool is_run (const job_record_t *job_ptr)
{
    return job_ptr && jt_jobrec_is (job_ptr->admin_comment);
}

extern int init (void)
{
    verbose ("%s loaded", plugin_type);
    return SLURM_SUCCESS;
}

extern void fini (void)
{
}

extern bool preempt_p_job_preempt_check (job_queue_rec_t *preemptor,
                                         job_queue_rec_t *preemptee)
{
    (void) preemptor;
    (void) preemptee;
    return false;
}

extern bool preempt_p_preemptable (job_record_t *preemptee,
                                   job_record_t *preemptor)
{
    return preemptee != preemptor && is_run (preemptor) && is_run (preemptee)
           && IS_JOB_PENDING (preemptor) && IS_JOB_RUNNING (preemptee);
}

uint16_t jtpre_mode (const job_record_t *job_ptr)
{
    uint16_t mode = slurm_conf.preempt_mode;

    if (job_ptr && !is_run (job_ptr))
        return PREEMPT_MODE_OFF;
    mode &= (uint16_t) ~PREEMPT_MODE_GANG;
    mode &= (uint16_t) ~PREEMPT_MODE_WITHIN;
    return mode;
}
