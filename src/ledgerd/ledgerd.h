/*
 * ledgerd.h - jobtree-ledgerd internals shared by its files: configuration,
 * logging and the server loop.
 */
#ifndef JT_LEDGERD_H
#define JT_LEDGERD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "jobtree/ledger.h"

struct ledgerd_conf {
    const char *dir;        /* ledger directory (segments) */
    const char *socket;     /* Unix socket path */
    const char *slurm_user; /* name or numeric uid allowed to append */
    uid_t slurm_uid;
    const char *logfile; /* NULL: stderr */
    const char *pidfile; /* NULL: none */
    bool foreground;
    bool force; /* accept insecure directory modes */
    bool truncate_damaged_tail; /* an operator's: cut a damaged tail */
    uint64_t segment_max;
    size_t index_max; /* event ids remembered for idempotency */
    size_t batch_max; /* events per group commit */
    mode_t socket_mode;
};

extern volatile sig_atomic_t ledgerd_exit_flag;
extern volatile sig_atomic_t ledgerd_hup_flag;

void log_open (const char *file);
void log_msg (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Recover the ledger, listen and serve until a signal sets the exit flag.
 * ready(arg) is called once the socket accepts (to release the launching
 * parent). Returns 0 on a clean stop, -1 (logged) on a fatal error. */
int ledgerd_serve (const struct ledgerd_conf *conf, void (*ready) (void *), void *arg,
                   char *errbuf, size_t errlen);

#endif /* JT_LEDGERD_H */
