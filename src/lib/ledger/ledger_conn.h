/*
 * ledger_conn.h - one connection to jobtree-ledgerd's socket: the transport
 * under the ledger client (ledger_client.c). Private to libjobtree; the
 * daemon's own tests use it so that they speak to the daemon exactly as
 * the client does (one client, not two).
 *
 * The protocol is line based (see src/ledgerd/server.c): one request line,
 * one reply line, pipelined. The daemon may answer before it has read a
 * request -- it refuses a peer at accept ("ERR DENIED ...") and closes --
 * so a failed send does not mean there is nothing to read: callers read
 * the replies that are waiting after a failed send.
 *
 * Every call is bounded by the timeout given at open (SO_RCVTIMEO and
 * SO_SNDTIMEO), and send uses MSG_NOSIGNAL: a dead or stuck daemon costs at
 * most that long and never raises SIGPIPE in the host process.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_LEDGER_CONN_H
#define JT_LEDGER_CONN_H

#include <stddef.h>

typedef struct jt_ledger_conn {
    int fd;                     /* -1 when closed */
    char *rbuf;                 /* bytes received, not yet returned */
    size_t rlen, rcap;
} jt_ledger_conn_t;

#define JT_LEDGER_CONN_INIT { -1, NULL, 0, 0 }

/* Connect to the socket at path (a no-op when already open). 0, or -1 with
 * errno. */
int jt_ledger_conn_open (jt_ledger_conn_t *c, const char *path, int timeout_ms);

/* Send len bytes. 0 when all were sent, -1 with errno otherwise (EPIPE when
 * the daemon has closed: its reply may still be waiting, read it). */
int jt_ledger_conn_send (jt_ledger_conn_t *c, const char *buf, size_t len);

/* One reply line (without its newline) into line[len], truncated to fit.
 * 0, or -1 on timeout, end of stream, error or no memory. */
int jt_ledger_conn_read_line (jt_ledger_conn_t *c, char *line, size_t len);

/* Close the socket and drop unread bytes; the conn can be opened again. */
void jt_ledger_conn_close (jt_ledger_conn_t *c);

/* Close and free the buffer. */
void jt_ledger_conn_free (jt_ledger_conn_t *c);

#endif /* JT_LEDGER_CONN_H */
