/*
 * jobtree/jobtree.h - libjobtree, the RQΛ calculus for Slurm, without Slurm.
 *
 * One header per concept; this one includes them all. Every exported symbol
 * carries the jt_ prefix.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_JOBTREE_H
#define JOBTREE_JOBTREE_H

#include "error.h"
#include "labels.h"
#include "timeutil.h"
#include "reason.h"
#include "budget.h"
#include "run.h"
#include "snapshot.h"
#include "nodemap.h"
#include "cover.h"
#include "pack.h"
#include "plan.h"
#include "record.h"
#include "ledger.h"
#include "admit.h"
#include "schedule.h"
#include "reload.h"

#endif /* JOBTREE_JOBTREE_H */
