/*
 * ledger_fold.h - what the fold (ledger_fold.c) offers the reading of a
 * ledger through it (ledger_fold_replay.c); not public API.
 */
#ifndef JT_LEDGER_FOLD_H
#define JT_LEDGER_FOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "jobtree/error.h"
#include "jobtree/ledger.h"

/* Apply one record's payload (jt_ledger_fold_apply with the record's seq).
 * A payload that is not a valid event, or with canonical not in canonical
 * form, is a violation (JT_VIOL_BAD_EVENT) and is not applied. *v is reset
 * first. 0, 1 with *v filled, or -1 on ENOMEM (err). */
int jt_ledger_fold_apply_record (jt_ledger_fold_t *f, const jt_record_t *rec,
                                 bool canonical, jt_violation_t *v, jt_error_t *err);

/* The integral bound of every capped envelope at time t (open leases
 * accrue up to t), in name order: 0, or 1 with the first envelope over its
 * cap in *v (at seq, unless *v holds a violation already), or -1 on
 * ENOMEM. */
int jt_ledger_fold_check_hours (const jt_ledger_fold_t *f, uint64_t seq, int64_t t,
                                jt_violation_t *v);

#endif /* JT_LEDGER_FOLD_H */
