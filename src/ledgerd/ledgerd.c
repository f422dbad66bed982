/*
 * ledgerd.c - jobtree-ledgerd: main. The sidecar that owns the ledger files
 * next to slurmctld (see jobtree-ledgerd(8)).
 *
 * main is a checklist (munged style): log to stderr, parse options,
 * validate the configuration, daemonize unless -F (the parent waits on a
 * pipe and exits with the child's startup error, so a bad configuration
 * fails where it was launched), open the log, install signals (handlers
 * only set flags), then serve; the lock (lock.c), the recovery and the
 * socket are in server.c, torn down in reverse order there. The exit status
 * says why it stopped: 0, 1 (fatal), 2 (usage), LEDGERD_EXIT_LOCKED (3:
 * another daemon holds the ledger) or LEDGERD_EXIT_FENCED (4: another took
 * it over while this one wrote).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobtree/libc_tune.h"

#include "ledgerd.h"

volatile sig_atomic_t ledgerd_exit_flag;
volatile sig_atomic_t ledgerd_hup_flag;

static FILE *log_fp;
static const char *log_path;

bool ledgerd_thread_start (pthread_t *th, void *(*fn) (void *), void *arg)
{
    sigset_t all, old;
    sigfillset (&all);
    pthread_sigmask (SIG_SETMASK, &all, &old);
    bool started = pthread_create (th, NULL, fn, arg) == 0;
    pthread_sigmask (SIG_SETMASK, &old, NULL);
    return started;
}

void log_open (const char *file)
{
    log_path = file;
    if (!file) {
        log_fp = stderr;
        return;
    }
    FILE *f = fopen (file, "a");
    if (f) {
        if (log_fp && log_fp != stderr)
            fclose (log_fp);
        log_fp = f;
        setvbuf (log_fp, NULL, _IOLBF, 0);
    }
}

void log_msg (const char *fmt, ...)
{
    char ts[32];
    struct tm tm;
    time_t now = time (NULL);
    va_list ap;

    if (!log_fp)
        log_fp = stderr;
    gmtime_r (&now, &tm);
    strftime (ts, sizeof (ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf (log_fp, "%s jobtree-ledgerd[%d]: ", ts, (int) getpid ());
    va_start (ap, fmt);
    vfprintf (log_fp, fmt, ap);
    va_end (ap);
    fputc ('\n', log_fp);
    fflush (log_fp);
}

static void on_signal (int sig)
{
    if (sig == SIGHUP)
        ledgerd_hup_flag = 1;
    else
        ledgerd_exit_flag = 1;
}

static int install_signals (void)
{
    struct sigaction sa;
    memset (&sa, 0, sizeof (sa));
    sa.sa_handler = on_signal; /* no SA_RESTART: poll() must wake up */
    sigemptyset (&sa.sa_mask);
    if (sigaction (SIGTERM, &sa, NULL) < 0 || sigaction (SIGINT, &sa, NULL) < 0
        || sigaction (SIGHUP, &sa, NULL) < 0)
        return -1;
    sa.sa_handler = SIG_IGN;
    return sigaction (SIGPIPE, &sa, NULL);
}

static void usage (FILE *f)
{
    fprintf (
        f,
        "Usage: jobtree-ledgerd [OPTIONS]\n"
        "  -d, --dir DIR            ledger directory (default "
        "/var/lib/jobtree/ledger)\n"
        "  -S, --socket PATH        socket (default /run/jobtree/ledgerd.sock)\n"
        "  -u, --slurm-user USER    SlurmUser name or uid allowed to append "
        "(default slurm)\n"
        "  -F, --foreground         do not daemonize\n"
        "  -L, --log FILE           log file (default stderr)\n"
        "  -P, --pidfile FILE       write the pid there\n"
        "      --segment-size BYTES rotate segments at this size (default 64 MiB)\n"
        "      --index-size N       event ids kept for idempotency (default 1048576)\n"
        "      --batch-max N        request lines per group commit (default 4096)\n"
        "      --checkpoint-every N  write a checkpoint of the fold after N records\n"
        "                           (default 50000, 0: never; at most 100000000)\n"
        "      --checkpoint-interval SECONDS  and once records wait that long\n"
        "                           (default 3600, 0: never; at most 31536000)\n"
        "      --wait-lock          while another jobtree-ledgerd holds DIR, wait\n"
        "                           for it (default: refuse, exit status 3)\n"
        "      --lock-poll MS       how often a waiting daemon tries the lock\n"
        "                           (default 1000, 10 to 60000)\n"
        "      --socket-mode OCTAL  socket mode (default 0660)\n"
        "      --force              accept a group/world-writable ledger dir\n"
        "      --truncate-damaged-tail  cut a damaged last segment's tail (and accept\n"
        "                           a ledger ending before its durable head),\n"
        "                           losing records that may have been acknowledged\n"
        "  -h, --help, -V, --version\n");
}

static int parse_u64 (const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull (s, &end, 0);
    if (errno || end == s || *end || *s == '-')
        return -1;
    *out = v;
    return 0;
}

static int resolve_user (struct ledgerd_conf *c, char *err, size_t len)
{
    uint64_t uid;
    if (parse_u64 (c->slurm_user, &uid) == 0) {
        c->slurm_uid = (uid_t) uid;
        return 0;
    }
    struct passwd *pw = getpwnam (c->slurm_user);
    if (!pw) {
        snprintf (err, len, "SlurmUser '%s' is not a known user", c->slurm_user);
        return -1;
    }
    c->slurm_uid = pw->pw_uid;
    return 0;
}

static int validate (struct ledgerd_conf *c, char *err, size_t len)
{
    struct stat sb;
    if (resolve_user (c, err, len) < 0)
        return -1;
    if (stat (c->dir, &sb) < 0 || !S_ISDIR (sb.st_mode)) {
        snprintf (err, len, "ledger dir %s: %s", c->dir,
                  errno ? strerror (errno) : "not a directory");
        return -1;
    }
    if ((sb.st_mode & 022) && !c->force) {
        snprintf (err, len,
                  "ledger dir %s is group or world writable (mode %04o); "
                  "fix it or use --force",
                  c->dir, (unsigned) (sb.st_mode & 07777));
        return -1;
    }
    if (c->socket[0] != '/') {
        snprintf (err, len, "socket path must be absolute: %s", c->socket);
        return -1;
    }
    return 0;
}

static int ready_fd = -1;

static void ready (void *arg)
{
    (void) arg;
    if (ready_fd >= 0) {
        char ok = 0;
        if (write (ready_fd, &ok, 1) < 0)
            log_msg ("cannot signal readiness: %s", strerror (errno));
        close (ready_fd);
        ready_fd = -1;
    }
}

/* Fork; the parent waits for the child's status on a pipe: a 0 byte when it
 * serves, else its exit status as one byte and the error text (the
 * parent exits with that status). Returns in the child only. */
static void daemonize (void)
{
    int p[2];
    if (pipe (p) < 0) {
        log_msg ("pipe: %s", strerror (errno));
        exit (1);
    }
    pid_t pid = fork ();
    if (pid < 0) {
        log_msg ("fork: %s", strerror (errno));
        exit (1);
    }
    if (pid > 0) {
        char buf[512];
        close (p[1]);
        ssize_t n = read (p[0], buf, sizeof (buf) - 1);
        if (n == 1 && buf[0] == 0)
            exit (0);
        buf[n > 0 ? n : 0] = '\0';
        int status = n > 0 && buf[0] > 0 && buf[0] < 16 ? buf[0] : 1;
        fprintf (stderr, "jobtree-ledgerd: %s\n", n > 1 ? buf + 1 : "failed to start");
        exit (status);
    }
    close (p[0]);
    ready_fd = p[1];
    if (setsid () < 0)
        exit (1);
    int fd = open ("/dev/null", O_RDWR);
    if (fd >= 0) {
        dup2 (fd, STDIN_FILENO);
        dup2 (fd, STDOUT_FILENO);
        if (fd > 2)
            close (fd);
    }
}

int main (int argc, char **argv)
{
    struct ledgerd_conf c = {
        .dir = "/var/lib/jobtree/ledger",
        .socket = "/run/jobtree/ledgerd.sock",
        .slurm_user = "slurm",
        .index_max = 1048576,
        .batch_max = 4096,
        .socket_mode = 0660,
        .checkpoint_every = LEDGERD_CKPT_EVERY,
        .checkpoint_interval = LEDGERD_CKPT_INTERVAL,
        .lock_poll_ms = LEDGERD_LOCK_POLL_MS,
    };
    enum { OPT_SEG = 256, OPT_INDEX, OPT_BATCH, OPT_SMODE, OPT_FORCE, OPT_TRUNC,
           OPT_CKPT_EVERY, OPT_CKPT_INTERVAL, OPT_WAIT_LOCK, OPT_LOCK_POLL };
    static const struct option opts[] = {
        { "dir", required_argument, NULL, 'd' },
        { "socket", required_argument, NULL, 'S' },
        { "slurm-user", required_argument, NULL, 'u' },
        { "foreground", no_argument, NULL, 'F' },
        { "log", required_argument, NULL, 'L' },
        { "pidfile", required_argument, NULL, 'P' },
        { "segment-size", required_argument, NULL, OPT_SEG },
        { "index-size", required_argument, NULL, OPT_INDEX },
        { "batch-max", required_argument, NULL, OPT_BATCH },
        { "socket-mode", required_argument, NULL, OPT_SMODE },
        { "force", no_argument, NULL, OPT_FORCE },
        { "truncate-damaged-tail", no_argument, NULL, OPT_TRUNC },
        { "checkpoint-every", required_argument, NULL, OPT_CKPT_EVERY },
        { "checkpoint-interval", required_argument, NULL, OPT_CKPT_INTERVAL },
        { "wait-lock", no_argument, NULL, OPT_WAIT_LOCK },
        { "lock-poll", required_argument, NULL, OPT_LOCK_POLL },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    char err[512] = "";
    uint64_t v;
    int ch;

    log_open (NULL);
    jt_locale_c_thread (); /* the loop parses every event: see libc_tune.h */
    while ((ch = getopt_long (argc, argv, "d:S:u:FL:P:hV", opts, NULL)) != -1) {
        switch (ch) {
        case 'd': c.dir = optarg; break;
        case 'S': c.socket = optarg; break;
        case 'u': c.slurm_user = optarg; break;
        case 'F': c.foreground = true; break;
        case 'L': c.logfile = optarg; break;
        case 'P': c.pidfile = optarg; break;
        case OPT_FORCE: c.force = true; break;
        case OPT_TRUNC: c.truncate_damaged_tail = true; break;
        case OPT_WAIT_LOCK: c.wait_lock = true; break;
        case OPT_LOCK_POLL:
            if (parse_u64 (optarg, &v) < 0 || v < LEDGERD_LOCK_POLL_MIN
                || v > LEDGERD_LOCK_POLL_MAX) {
                fprintf (stderr, "jobtree-ledgerd: bad value '%s' for --lock-poll (%d to "
                         "%d milliseconds)\n", optarg, LEDGERD_LOCK_POLL_MIN,
                         LEDGERD_LOCK_POLL_MAX);
                return 2;
            }
            c.lock_poll_ms = (unsigned) v;
            break;
        case OPT_CKPT_EVERY:
        case OPT_CKPT_INTERVAL: {
            uint64_t max = ch == OPT_CKPT_EVERY ? LEDGERD_CKPT_EVERY_MAX
                                                : LEDGERD_CKPT_INTERVAL_MAX;
            const char *name = ch == OPT_CKPT_EVERY ? "checkpoint-every"
                                                    : "checkpoint-interval";
            if (parse_u64 (optarg, &v) < 0 || v > max) {
                fprintf (stderr, "jobtree-ledgerd: bad value '%s' for --%s (0 to %" PRIu64
                         "; 0 turns it off)\n", optarg, name, max);
                return 2;
            }
            if (ch == OPT_CKPT_EVERY)
                c.checkpoint_every = v;
            else
                c.checkpoint_interval = v;
            break;
        }
        case OPT_SEG:
        case OPT_INDEX:
        case OPT_BATCH:
        case OPT_SMODE:
            if (parse_u64 (optarg, &v) < 0 || v == 0
                || (ch == OPT_SMODE && (v & ~(uint64_t) 0777))) {
                fprintf (stderr, "jobtree-ledgerd: bad value '%s' for --%s\n", optarg,
                         opts[ch - OPT_SEG + 6].name);
                return 2;
            }
            if (ch == OPT_SEG)
                c.segment_max = v;
            else if (ch == OPT_INDEX)
                c.index_max = (size_t) v;
            else if (ch == OPT_BATCH)
                c.batch_max = (size_t) v;
            else
                c.socket_mode = (mode_t) v;
            break;
        case 'h': usage (stdout); return 0;
        case 'V': printf ("jobtree-ledgerd %s\n", PACKAGE_VERSION); return 0;
        default: usage (stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf (stderr, "jobtree-ledgerd: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (validate (&c, err, sizeof (err)) < 0) {
        fprintf (stderr, "jobtree-ledgerd: %s\n", err);
        return 1;
    }
    if (!c.foreground)
        daemonize ();
    log_open (c.logfile);
    if (install_signals () < 0) {
        log_msg ("sigaction: %s", strerror (errno));
        return 1;
    }
    int rc = ledgerd_serve (&c, ready, NULL, err, sizeof (err));
    if (rc != 0) {
        log_msg ("%s: %s",
                 rc == LEDGERD_EXIT_LOCKED   ? "refused"
                 : rc == LEDGERD_EXIT_FENCED ? "fenced, stopping"
                                             : "fatal",
                 err);
        char msg[sizeof (err) + 1]; /* one write: the status byte, the text */
        msg[0] = (char) (rc < 0 ? 1 : rc);
        memcpy (msg + 1, err, strlen (err));
        if (ready_fd >= 0 && write (ready_fd, msg, 1 + strlen (err)) < 0)
            log_msg ("cannot report to the launcher");
        return rc < 0 ? 1 : rc;
    }
    log_msg ("stopped");
    return 0;
}
