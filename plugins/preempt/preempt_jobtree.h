/*
 * preempt_jobtree.h - what preempt_jobtree.c tells the release's preempt
 * ops (plugins/common/preempt_ops_<release>.c), which translate it into
 * the entry points that release calls.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_PREEMPT_JOBTREE_H
#define JT_PREEMPT_JOBTREE_H

#include <stdint.h>

extern const char plugin_type[];

/* The preempt mode of a job: slurm.conf's PreemptMode without GANG and
 * WITHIN for a Jobtree run, PREEMPT_MODE_OFF for any other job. Every job
 * has priority 0 and grace time 0 (preempt_jobtree.c says why). */
uint16_t jtpre_mode (const job_record_t *job_ptr);

#endif /* JT_PREEMPT_JOBTREE_H */
