/*
 * ledger_fold_replay.c - a ledger on disk read through one fold: `jobtree
 * verify` (jt_ledger_verify: every payload valid and canonical, stop at the
 * first record problem or violation of the event pass, then the invariants
 * of lease time over every interval: ledger_fold_time.c) and the replay that rebuilds live state after a restart
 * (jt_ledger_fold_replay, _dir: count violations and go on). The fold and
 * its invariants are ledger_fold.c's; the records come from the one reader
 * (ledger_reader.c).
 */
#include "config.h"
#include <stdbool.h>
#include <string.h>

#include "jobtree/ledger.h"
#include "ledger_fold.h"

/* A ledger read through c->fold: verify wants canonical payloads and stops
 * at the first violation; replay goes on and counts them. The first goes
 * to *first (if not NULL). */
struct read_ctx {
    jt_ledger_fold_t *fold;
    bool verify;
    uint64_t n;
    jt_violation_t *first;
};

static int read_cb (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    struct read_ctx *c = arg;
    jt_violation_t v;
    int rc = jt_ledger_fold_apply_record (c->fold, rec, c->verify, &v, err);

    if (rc < 0)
        return -1;
    if (rc > 0 && c->n++ == 0 && c->first)
        *c->first = v;
    if (rc > 0 && c->verify)
        return jt_errprintf (err, "violation");
    return 0;
}

int jt_ledger_verify (const char *const *paths, size_t npaths, const char *head,
                      const jt_event_t *caps, jt_ledger_result_t *res,
                      jt_violation_t *v, jt_ledger_fold_t **fold, jt_error_t *err)
{
    struct read_ctx c = { .verify = true, .first = v };
    memset (v, 0, sizeof (*v));
    if (fold)
        *fold = NULL;
    if (!(c.fold = jt_ledger_fold_create ()))
        return jt_errprintf (err, "out of memory");
    if (jt_ledger_fold_time_checks (c.fold, err) < 0
        || (caps && jt_ledger_fold_pin_caps (c.fold, caps, err) < 0)) {
        jt_ledger_fold_destroy (c.fold);
        return -1;
    }
    if (jt_ledger_read (paths, npaths, head, read_cb, &c, res, err) < 0
        && v->kind == JT_VIOL_NONE) {
        jt_ledger_fold_destroy (c.fold);
        return -1;
    }
    /* lease time, once every interval is known: overlap, concurrency,
     * GPU-hours and window at every instant, against the caps in force */
    if (v->kind == JT_VIOL_NONE && res->status == JT_LEDGER_OK
        && jt_ledger_fold_check_time (c.fold, res->last_seq, v) < 0) {
        jt_ledger_fold_destroy (c.fold);
        return jt_errprintf (err, "out of memory");
    }
    if (fold)
        *fold = c.fold;
    else
        jt_ledger_fold_destroy (c.fold);
    return 0;
}

jt_ledger_fold_t *jt_ledger_fold_replay (const char *const *paths, size_t npaths,
                                         jt_ledger_result_t *res,
                                         uint64_t *nviolations, jt_violation_t *first,
                                         jt_error_t *err)
{
    struct read_ctx c = { .first = first };
    if (first)
        memset (first, 0, sizeof (*first));
    if (!(c.fold = jt_ledger_fold_create ())) {
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    if (jt_ledger_read (paths, npaths, NULL, read_cb, &c, res, err) < 0) {
        jt_ledger_fold_destroy (c.fold);
        return NULL;
    }
    if (nviolations)
        *nviolations = c.n;
    return c.fold;
}

jt_ledger_fold_t *jt_ledger_fold_replay_dir (const char *dir, jt_ledger_result_t *res,
                                             uint64_t *nviolations,
                                             jt_violation_t *first, jt_error_t *err)
{
    char **paths = NULL;
    size_t n = 0;
    jt_ledger_fold_t *f;

    if (jt_ledger_segments (dir, &paths, &n, err) < 0)
        return NULL;
    f = jt_ledger_fold_replay ((const char *const *) paths, n, res, nviolations, first,
                               err);
    jt_ledger_segments_free (paths, n);
    return f;
}
