/*
 * jobtree/reason.h - why a run cannot be funded or placed: the one list of
 * reasons Cover, Pack and Plan give, with their stable names.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_REASON_H
#define JOBTREE_REASON_H

#ifdef __cplusplus
extern "C" {
#endif

/* Why a run cannot be funded or placed. Stable names (jt_reason_str) are
 * what users see in squeue and what the ledger and tests compare. */
typedef enum jt_reason {
    JT_OK = 0,
    JT_INVALID_RUN,             /* "InvalidRun": not well formed */
    JT_NO_BUDGET,               /* "NoBudget": owner has no budget file */
    JT_UNKNOWN_FLAVOR,          /* "UnknownFlavor": no envelope or node has it */
    JT_NO_MATCHING_ENVELOPE,    /* "NoMatchingEnvelope": no candidate of the flavor */
    JT_WINDOW_CLOSED,           /* "WindowClosed": candidates exist, none open now */
    JT_INSUFFICIENT_CAPACITY,   /* "InsufficientCapacity": concurrency exhausted */
    JT_GPU_HOURS_EXHAUSTED,     /* "GPUHoursExhausted": integral bound */
    JT_AGGREGATE_CAP,           /* "AggregateCap" */
    JT_LENDING_CAP,             /* "LendingCap": sponsor's lending caps */
    JT_BORROW_LIMIT,            /* "BorrowLimit": maxBorrowGPUs / borrowing off */
    JT_NEVER_FUNDABLE,          /* "NeverFundable": too big even when idle */
    JT_NO_DOMAIN_FITS,          /* "NoDomainFits": a group fits no domain now */
    JT_SPREAD_NO_DOMAIN,        /* "SingleDomainFull": spread off, no domain holds all */
    JT_NO_NODES,                /* "NoNodes": no labelled node of the flavor */
} jt_reason_t;

const char *jt_reason_str (jt_reason_t r);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_REASON_H */
