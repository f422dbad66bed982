/*
 * lock.c - jobtree-ledgerd's writer lock: one daemon appends to a ledger
 * directory at a time, across hosts (two controller hosts on one shared
 * directory, docs/admin-guide.md "Two controller hosts (failover)").
 *
 * DESIGN: an exclusive fcntl lock on the whole of DIR/ledgerd.lock, an
 * open file description lock (F_OFD_SETLK: it belongs to this open of the
 * file, not to the process, so no other open or close in the daemon drops
 * it), or a classic POSIX lock (F_SETLK) on a kernel without OFD locks.
 * Both are what NFS carries to the server (NFSv4 LOCK, or NLM with lockd
 * on NFSv3), unlike flock(2). The holder writes "pid P host H since T" into
 * the file, for whoever waits or is refused (a lock's owner on another host
 * is not visible through F_GETLK). The lock is held until exit. It is half
 * of the rule: a writer that lost its lock without knowing is stopped by the
 * writer's epoch (ledger_writer.c, opts.fence).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ledgerd.h"

#define HOLDER_MAX 256
#define WAIT_LOG_S 600 /* while waiting, say so again this often */

/* 0 when taken, 1 when another holds it, -1 on error (errno). */
static int try_lock (int fd)
{
    static bool no_ofd;
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
    int rc = -1;

    if (!no_ofd) {
        rc = fcntl (fd, F_OFD_SETLK, &fl);
        if (rc < 0 && errno == EINVAL) {
            no_ofd = true; /* a kernel before 3.15 */
            log_msg ("no open file description locks (F_OFD_SETLK): using F_SETLK");
        }
    }
    if (no_ofd) {
        fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET };
        rc = fcntl (fd, F_SETLK, &fl);
    }
    if (rc == 0)
        return 0;
    return errno == EAGAIN || errno == EACCES ? 1 : -1;
}

/* The holder's line as the lock file holds it now (opened afresh: NFS's
 * close-to-open), one line, printable; "an unknown holder" when empty. */
static void read_holder (const char *path, char *buf, size_t len)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : pread (fd, buf, len - 1, 0);

    if (fd >= 0)
        close (fd);
    if (n < 0)
        n = 0;
    buf[n] = '\0';
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == '\n') {
            buf[i] = '\0';
            break;
        } else if (buf[i] < ' ' || buf[i] > '~')
            buf[i] = '?';
    if (!buf[0])
        snprintf (buf, len, "an unknown holder (no pid/host line)");
}

static int write_holder (int fd, const char *path, char *errbuf, size_t errlen)
{
    char host[128] = "", since[32], line[HOLDER_MAX];
    time_t now = time (NULL);
    struct tm tm;

    if (gethostname (host, sizeof (host) - 1) < 0)
        snprintf (host, sizeof (host), "?");
    gmtime_r (&now, &tm);
    strftime (since, sizeof (since), "%Y-%m-%dT%H:%M:%SZ", &tm);
    int n = snprintf (line, sizeof (line), "pid %d on host %s since %s\n", (int) getpid (),
                      host, since);
    if (n < 0 || (size_t) n >= sizeof (line))
        n = (int) sizeof (line) - 1;
    if (ftruncate (fd, 0) < 0 || pwrite (fd, line, (size_t) n, 0) != n || fsync (fd) < 0) {
        snprintf (errbuf, errlen, "%s: writing the holder: %s", path, strerror (errno));
        return -1;
    }
    return 0;
}

int ledgerd_lock (const struct ledgerd_conf *conf, int *lockfd, char *errbuf, size_t errlen)
{
    char path[JT_LEDGER_PATH_MAX], holder[HOLDER_MAX], said[HOLDER_MAX] = "";
    time_t said_at = 0;
    int fd, rc;

    *lockfd = -1;
    snprintf (path, sizeof (path), "%s/ledgerd.lock", conf->dir);
    if ((fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0640)) < 0) {
        snprintf (errbuf, errlen, "%s: %s", path, strerror (errno));
        return -1;
    }
    while ((rc = try_lock (fd)) == 1) {
        read_holder (path, holder, sizeof (holder));
        if (!conf->wait_lock) {
            snprintf (errbuf, errlen, "ledger %s held by %s; not waiting (--wait-lock)",
                      conf->dir, holder);
            close (fd);
            return LEDGERD_EXIT_LOCKED;
        }
        time_t now = time (NULL);
        if (strcmp (holder, said) || now - said_at >= WAIT_LOG_S) {
            log_msg ("ledger %s held by %s; waiting", conf->dir, holder);
            snprintf (said, sizeof (said), "%s", holder);
            said_at = now;
        }
        struct timespec ts = { conf->lock_poll_ms / 1000,
                               (long) (conf->lock_poll_ms % 1000) * 1000000L };
        nanosleep (&ts, NULL); /* a signal ends it early */
        if (ledgerd_exit_flag) {
            snprintf (errbuf, errlen, "stopped while waiting for the ledger %s", conf->dir);
            close (fd);
            return LEDGERD_EXIT_LOCKED;
        }
    }
    if (rc < 0) {
        snprintf (errbuf, errlen, "%s: locking: %s", path, strerror (errno));
        close (fd);
        return -1;
    }
    if (said[0])
        log_msg ("ledger %s: the lock is ours (after %s)", conf->dir, said);
    if (write_holder (fd, path, errbuf, errlen) < 0) {
        close (fd);
        return -1;
    }
    *lockfd = fd;
    return 0;
}
