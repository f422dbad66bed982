/*
 * ledger_conn.c - one connection to jobtree-ledgerd (see ledger_conn.h).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "ledger_conn.h"

int jt_ledger_conn_open (jt_ledger_conn_t *c, const char *path, int timeout_ms)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct timeval tv = { .tv_sec = timeout_ms / 1000,
                          .tv_usec = (timeout_ms % 1000) * 1000 };
    if (c->fd >= 0)
        return 0;
    if (strlen (path) >= sizeof (sa.sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy (sa.sun_path, path, strlen (path) + 1);
    int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof (tv)) < 0
        || setsockopt (fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof (tv)) < 0
        || connect (fd, (struct sockaddr *) &sa, sizeof (sa)) < 0) {
        int e = errno;
        close (fd);
        errno = e;
        return -1;
    }
    c->fd = fd;
    c->rlen = 0;
    return 0;
}

int jt_ledger_conn_send (jt_ledger_conn_t *c, const char *buf, size_t len)
{
    size_t off = 0;
    if (c->fd < 0) {
        errno = ENOTCONN;
        return -1;
    }
    while (off < len) {
        ssize_t k = send (c->fd, buf + off, len - off, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0) {
            errno = EPIPE;
            return -1;
        }
        off += (size_t) k;
    }
    return 0;
}

int jt_ledger_conn_read_line (jt_ledger_conn_t *c, char *line, size_t len)
{
    if (c->fd < 0 && c->rlen == 0) {
        errno = ENOTCONN;
        return -1;
    }
    for (;;) {
        char *nl = c->rlen ? memchr (c->rbuf, '\n', c->rlen) : NULL;
        if (nl) {
            size_t n = (size_t) (nl - c->rbuf);
            snprintf (line, len, "%.*s", (int) n, c->rbuf);
            memmove (c->rbuf, nl + 1, c->rlen - n - 1);
            c->rlen -= n + 1;
            return 0;
        }
        if (c->fd < 0) {
            errno = ENOTCONN;
            return -1;
        }
        if (c->rcap - c->rlen < 4096) {
            size_t nc = c->rcap ? 2 * c->rcap : 8192;
            char *nb = realloc (c->rbuf, nc);
            if (!nb)
                return -1;
            c->rbuf = nb;
            c->rcap = nc;
        }
        ssize_t k = recv (c->fd, c->rbuf + c->rlen, c->rcap - c->rlen, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k == 0)
            errno = ECONNRESET;
        if (k <= 0)
            return -1;
        c->rlen += (size_t) k;
    }
}

void jt_ledger_conn_close (jt_ledger_conn_t *c)
{
    if (c->fd >= 0)
        close (c->fd);
    c->fd = -1;
    c->rlen = 0;
}

void jt_ledger_conn_free (jt_ledger_conn_t *c)
{
    jt_ledger_conn_close (c);
    free (c->rbuf);
    c->rbuf = NULL;
    c->rcap = 0;
}
