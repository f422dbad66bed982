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
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

static const char *base (const char *path)
{
    const char *s = strrchr (path, '/');
    return s ? s + 1 : path;
}

static int cmp_file (const void *a, const void *b)
{
    const jt_ev_file_t *x = *(const jt_ev_file_t *const *) a;
    const jt_ev_file_t *y = *(const jt_ev_file_t *const *) b;
    int c = strcmp (base (x->path), base (y->path));
    return c ? c : strcmp (x->sha256, y->sha256);
}

/* The files of v (n of them) as pointers sorted by base name. NULL on
 * ENOMEM. */
static const jt_ev_file_t **files_sorted (const jt_ev_file_t *v, size_t n)
{
    const jt_ev_file_t **p = malloc ((n ? n : 1) * sizeof (*p));
    if (!p)
        return NULL;
    for (size_t i = 0; i < n; i++)
        p[i] = &v[i];
    qsort (p, n, sizeof (*p), cmp_file);
    return p;
}

/* verify --budgets: the auditor's budgets (caps) must be the budgets the
 * ledger recorded last: the same budgetsSha256 (canonical content); for a
 * BudgetLoaded of the previous format, the same files (base name and
 * SHA-256). A mismatch is a budget-hash violation at that BudgetLoaded's
 * seq, kept in *v when it is the smallest. 0, or -1 on ENOMEM. */
static int check_budget_hash (const jt_ledger_fold_t *f, const jt_event_t *caps,
                              jt_violation_t *v)
{
    jt_fold_budgets_t b;
    jt_violation_t h = { .kind = JT_VIOL_NONE };

    jt_ledger_fold_budgets (f, &b);
    if (!b.loads)
        return 0;
    if (b.last_sha256[0]) {
        if (strcmp (b.last_sha256, caps->budgets_sha256))
            snprintf (h.msg, sizeof (h.msg),
                      "the budget files given (content sha256 %.16s...) are not the "
                      "budgets loaded at seq %" PRIu64 " (content sha256 %.16s...)",
                      caps->budgets_sha256, b.last_seq, b.last_sha256);
    } else {
        const jt_ev_file_t **x = files_sorted (b.last_files, b.last_nfiles);
        const jt_ev_file_t **y = files_sorted (caps->files, caps->nfiles);
        if (!x || !y) {
            free (x);
            free (y);
            return -1;
        }
        size_t i = 0;
        while (i < b.last_nfiles && i < caps->nfiles && !cmp_file (&x[i], &y[i]))
            i++;
        if (i < b.last_nfiles)
            snprintf (h.msg, sizeof (h.msg),
                      "file %s (sha256 %.16s...) loaded at seq %" PRIu64 " is not among "
                      "the budget files given, with that content",
                      base (x[i]->path), x[i]->sha256, b.last_seq);
        else if (i < caps->nfiles)
            snprintf (h.msg, sizeof (h.msg),
                      "budget file %s given was not loaded at seq %" PRIu64
                      " (which has no budget content: compared by files)",
                      base (y[i]->path), b.last_seq);
        free (x);
        free (y);
    }
    if (h.msg[0] && (v->kind == JT_VIOL_NONE || b.last_seq < v->seq)) {
        h.kind = JT_VIOL_BUDGET_HASH;
        h.seq = b.last_seq;
        *v = h;
    }
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
     * GPU-hours and window at every instant, against the caps in force;
     * Cover's rules against the budget content in force */
    bool read_all = v->kind == JT_VIOL_NONE && res->status == JT_LEDGER_OK;
    if (v->kind == JT_VIOL_NONE && res->status == JT_LEDGER_OK
        && jt_ledger_fold_check_time (c.fold, res->last_seq, v) < 0) {
        jt_ledger_fold_destroy (c.fold);
        return jt_errprintf (err, "out of memory");
    }
    /* --budgets: are they the budgets the ledger loaded last? */
    if (caps && read_all && check_budget_hash (c.fold, caps, v) < 0) {
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
