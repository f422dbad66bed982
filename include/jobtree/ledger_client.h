/*
 * jobtree/ledger_client.h - sending ledger events to jobtree-ledgerd without
 * ever blocking the caller (slurmctld's select plugin).
 *
 * Submitting an event only validates it and puts it on a bounded in-memory
 * queue. A background thread sends queued events to the daemon's socket
 * (pipelined) and, while the daemon is down, slow or failing, appends them
 * to a local spool file (fsync'd) instead; the spool is drained, in order
 * and with the same event ids, when the daemon answers again. The daemon
 * treats a resent event id as already done, so nothing is lost (once
 * spooled or acknowledged) and nothing is duplicated. Events that were
 * still in the in-memory queue when the process died are lost: after a
 * restart the plugin reconciles live state with the ledger.
 *
 * The spool is the one durable path: with overflow_to_spool, an event that
 * finds the queue full is still accepted (submit does no I/O either way)
 * and the background thread writes it to the spool (fsync'd) at its next
 * turn instead of sending it, so the caller needs no backlog or file of
 * its own. Without it, a full queue refuses (EAGAIN).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_LEDGER_CLIENT_H
#define JOBTREE_LEDGER_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "ledger.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jt_ledger_client_opts {
    const char *socket;         /* jobtree-ledgerd's socket (required) */
    const char *spool;          /* spool file path (required); created 0600 */
    size_t queue_max;           /* 0: 65536 events */
    int timeout_ms;             /* connect/reply timeout; 0: 5000 */
    int retry_ms;               /* how often to retry a down daemon; 0: 1000 */
    bool overflow_to_spool;     /* a full queue spools the event instead of
                                 * refusing it (EAGAIN) */
} jt_ledger_client_opts_t;

/* Room for the daemon's longest reply line kept in the stats. */
#define JT_LEDGER_REFUSAL_MAX 256

typedef struct jt_ledger_client_stats {
    uint64_t submitted;         /* accepted by submit */
    uint64_t acked;             /* acknowledged durable by the daemon */
    uint64_t spooled;           /* written to the spool (may be acked later) */
    uint64_t rejected;          /* refused by the daemon as invalid (dropped) */
    uint64_t refused;           /* other refusals (DENIED, FAIL): kept, spooled */
    uint64_t full;              /* submits that found the queue full (refused,
                                 * or spooled with overflow_to_spool) */
    uint64_t pending;           /* in the queue or the spool */
    uint64_t last_seq;          /* seq of the last acknowledgement */
    char last_refusal[JT_LEDGER_REFUSAL_MAX]; /* the daemon's last "ERR ..."
                                 * line, verbatim ("" if none): for the
                                 * host's log, e.g. "ERR DENIED uid 65534
                                 * may not append (root or SlurmUser)" */
} jt_ledger_client_stats_t;

typedef struct jt_ledger_client jt_ledger_client_t;

/* Start the background thread (which first drains a spool left by an earlier
 * process). NULL with err. */
jt_ledger_client_t *jt_ledger_client_create (const jt_ledger_client_opts_t *opts,
                                             jt_error_t *err);

/* Stop the thread; events still queued are moved to the spool (fsync'd) so
 * the next process sends them. Accepts NULL. */
void jt_ledger_client_destroy (jt_ledger_client_t *c);

/* Queue one event (JSON text or struct). Never blocks on I/O. 0 when
 * queued (or, the queue full, put behind it for the spool with
 * overflow_to_spool); -1 with errno EINVAL (invalid event, err says why),
 * ENOMEM, or EAGAIN (queue full without overflow_to_spool: the caller must
 * log it; the event is not recorded). */
int jt_ledger_client_submit (jt_ledger_client_t *c, const char *json, size_t len,
                             jt_error_t *err);
int jt_ledger_client_submit_event (jt_ledger_client_t *c, const jt_event_t *ev,
                                   jt_error_t *err);

/* Wait up to timeout_ms for every submitted event to be acknowledged (or
 * rejected). 0 when done, -1 with ETIMEDOUT. For tests and orderly
 * shutdown; never call it from a slurmctld hot path. */
int jt_ledger_client_flush (jt_ledger_client_t *c, int timeout_ms);

void jt_ledger_client_stats (jt_ledger_client_t *c, jt_ledger_client_stats_t *st);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_LEDGER_CLIENT_H */
