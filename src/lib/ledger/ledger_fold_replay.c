/*
 * ledger_fold_replay.c - a ledger on disk read through one fold: `jobtree
 * verify` (jt_ledger_verify: every payload valid and canonical, stop at the
 * first record problem or violation of the event pass, then the invariants
 * of lease time over every interval: ledger_fold_time.c) and the replay that rebuilds live state after a restart
 * (jt_ledger_fold_replay, _dir: count violations and go on). The fold and
 * its invariants are ledger_fold.c's; the records come from the one reader
 * (ledger_reader.c).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobtree/ledger.h"
#include "jobtree/ledger_checkpoint.h"
#include "ledger_record.h"
#include "ledger_checkpoint_int.h"
#include "ledger_fold.h"
#include "util/grow.h"

/* A checkpoint being read: its parts so far (consecutive records). */
struct acc {
    jt_event_t **parts;
    size_t n, cap;
    uint64_t first_seq;         /* of part 1 */
};

static void acc_reset (struct acc *a)
{
    for (size_t i = 0; i < a->n; i++)
        jt_event_destroy (a->parts[i]);
    a->n = 0;
    a->first_seq = 0;
}

/* A ledger read through c->fold: verify wants canonical payloads and stops
 * at the first violation; replay goes on and counts them. The first goes
 * to *first (if not NULL). Checkpoints: verify compares each complete one
 * with its fold; a read from a checkpoint (tail) starts with no fold,
 * skips records until a complete checkpoint restores one, then folds. */
struct read_ctx {
    jt_ledger_fold_t *fold;
    bool verify;
    bool tail;                  /* reading from a checkpoint */
    const jt_event_t *caps;     /* verify --budgets: pinned caps */
    uint64_t n;
    jt_violation_t *first;
    struct acc acc;
    uint64_t ckpt_seq, up_to, folded, read;
    uint64_t target;            /* tail: start from the checkpoint of this upTo
                                 * (history: that one only) */
    bool history;               /* keep history from the checkpoint on, when */
    int64_t since;              /* every lease it closed ended before since */
    bool resv;                  /* ... and every reservation it closed */
    bool refused;               /* a checkpoint did not restore (why) */
    char why[320];              /* tail: why the last checkpoint was refused */
    uint64_t dangling_seq, dangling_up_to; /* read_end: parts the ledger ends in */
    int64_t dangling_part, dangling_parts;
    char dangling_sha[65];
};

static bool is_checkpoint (const jt_record_t *rec)
{
    static const char pfx[] = "{\"v\":1,\"type\":\"Checkpoint\",";
    return rec->len > sizeof (pfx) - 1 && !memcmp (rec->payload, pfx, sizeof (pfx) - 1);
}

/* A violation of the checkpoint starting at seq: verify stops there. */
static int ckpt_viol (struct read_ctx *c, uint64_t seq, jt_error_t *err, const char *fmt,
                      ...) __attribute__ ((format (printf, 4, 5)));
static int ckpt_viol (struct read_ctx *c, uint64_t seq, jt_error_t *err, const char *fmt,
                      ...)
{
    va_list ap;

    if (!c->verify)
        return 0;
    if (c->n++ == 0 && c->first) {
        c->first->kind = JT_VIOL_CHECKPOINT;
        c->first->seq = seq;
        va_start (ap, fmt);
        vsnprintf (c->first->msg, sizeof (c->first->msg), fmt, ap);
        va_end (ap);
    }
    return jt_errprintf (err, "violation");
}

/* Where two state texts first differ, as a short excerpt of each. */
static void first_diff (const char *a, const char *b, char *out, size_t len)
{
    size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    size_t from = i > 40 ? i - 40 : 0;
    snprintf (out, len, "at byte %zu: recorded ...%.60s... vs folded ...%.60s...", i,
              a + from, b + from);
}

/* A complete checkpoint: verify compares it with its fold; a tail read
 * without a fold restores one from it. 0, or -1 (violation, ENOMEM). */
static int ckpt_complete (struct read_ctx *c, jt_error_t *err)
{
    jt_error_t e = { "" };
    uint64_t seq = c->acc.first_seq, up_to = c->acc.parts[0]->up_to;
    jt_ledger_fold_t *r = NULL;
    int rc = 0;

    if (c->fold && !c->verify)
        goto done; /* replay: its fold holds that state already */
    if (!c->fold && (up_to < c->target || (c->history && up_to != c->target)))
        goto done; /* a tail read: not the checkpoint to start from */
    r = jt_ckpt_restore ((const jt_event_t *const *) c->acc.parts, c->acc.n, &e);
    if (!r) {
        if (errno == ENOMEM && !strcmp (e.text, "out of memory")) {
            rc = jt_errprintf (err, "out of memory");
            goto done;
        }
        if (!c->verify) { /* replay: refused; a later one may do */
            snprintf (c->why, sizeof (c->why), "checkpoint at seq %" PRIu64 " refused: %s",
                      seq, e.text);
            c->refused = true;
            jt_ledger_fold_destroy (c->fold);
            c->fold = NULL;
            goto done;
        }
        rc = ckpt_viol (c, seq, err, "checkpoint after seq %" PRIu64 ": %s", up_to, e.text);
        goto done;
    }
    if (!c->fold && c->history && r->closed_until >= c->since) {
        snprintf (c->why, sizeof (c->why),
                  "checkpoint at seq %" PRIu64 ": leases closed before it end as late as "
                  "%" PRId64 ", not before %" PRId64,
                  seq, r->closed_until, c->since);
        goto done;
    }
    if (!c->fold && c->history && c->resv && !r->usage_known) {
        snprintf (c->why, sizeof (c->why),
                  "checkpoint at seq %" PRIu64
                  ": it does not say when reservations closed "
                  "(no usage section)",
                  seq);
        goto done;
    }
    if (!c->fold && c->history && c->resv && r->resv_closed_until >= c->since) {
        snprintf (c->why, sizeof (c->why),
                  "checkpoint at seq %" PRIu64 ": reservations closed before it close as "
                  "late as %" PRId64 ", not before %" PRId64,
                  seq, r->resv_closed_until, c->since);
        goto done;
    }
    if (!c->fold && c->history && jt_ckpt_keep_history (r, err) < 0) {
        rc = -1;
        goto done;
    }
    if (!c->fold) { /* a tail read starts here */
        if (c->verify && !(r->ids = jt_idset_create ())) { /* ids of the tail */
            jt_ledger_fold_destroy (r);
            rc = jt_errprintf (err, "out of memory");
            goto done;
        }
        if (c->caps && jt_ledger_fold_pin_caps (r, c->caps, err) < 0) {
            jt_ledger_fold_destroy (r);
            rc = -1;
            goto done;
        }
        c->fold = r;
        r = NULL;
        c->ckpt_seq = seq;
        c->up_to = up_to;
        c->folded = 0;
        c->why[0] = 0;
        c->refused = false; /* an earlier one was; this one serves */
        goto done;
    }
    /* a checkpoint without the usage section (written before it, or by a
     * fold restored from such a checkpoint) is compared without it */
    unsigned flags =
        (c->caps ? JT_CKPT_NO_CAPS : 0) | (r->usage_known ? 0 : JT_CKPT_NO_USAGE);
    char *x = jt_ckpt_state_text (r, flags, &e), *y = x ? jt_ckpt_state_text (c->fold, flags, &e) : NULL;
    if (!x || !y)
        rc = ckpt_viol (c, seq, err, "checkpoint after seq %" PRIu64 ": %s", up_to, e.text);
    else if (strcmp (x, y)) {
        char d[200];
        first_diff (x, y, d, sizeof (d));
        rc = ckpt_viol (c, seq, err,
                        "checkpoint after seq %" PRIu64 " is not the fold of the records "
                        "before it: %s",
                        up_to, d);
    }
    free (x);
    free (y);
done:
    jt_ledger_fold_destroy (r);
    acc_reset (&c->acc);
    return rc;
}

/* A Checkpoint record: parts must be consecutive records, part 1 right
 * after record upTo. */
static int ckpt_record (struct read_ctx *c, const jt_record_t *rec, jt_error_t *err)
{
    jt_error_t e = { "" };
    jt_event_t *ev = jt_event_from_json (rec->payload, rec->len, &e);
    struct acc *a = &c->acc;
    int rc = 0;

    if (!ev)
        return 0; /* a bad event: the fold said so (verify) */
    if (a->n && (ev->part != (int64_t) a->n + 1 || ev->up_to != a->parts[0]->up_to
                 || ev->parts != a->parts[0]->parts
                 || strcmp (ev->state_sha256, a->parts[0]->state_sha256))) {
        rc = ckpt_viol (c, a->first_seq, err,
                        "checkpoint after seq %" PRIu64 ": part %zu of %" PRId64
                        " is followed by another record at seq %" PRIu64,
                        a->parts[0]->up_to, a->n, a->parts[0]->parts, rec->seq);
        acc_reset (a);
        if (rc < 0)
            goto out;
    }
    if (!a->n && ev->part != 1 && c->tail && !c->fold)
        goto out; /* a tail read began inside a checkpoint: not the one */
    if (!a->n && ev->part != 1) {
        rc = ckpt_viol (c, rec->seq, err,
                        "checkpoint part %" PRId64 " of %" PRId64 " without the parts "
                        "before it",
                        ev->part, ev->parts);
        goto out;
    }
    if (!a->n && ev->up_to != rec->seq - 1) {
        rc = ckpt_viol (c, rec->seq, err,
                        "checkpoint at seq %" PRIu64 " says upTo %" PRIu64 ": it must be "
                        "the record right before it",
                        rec->seq, ev->up_to);
        goto out;
    }
    if (jt_grow ((void **) &a->parts, &a->cap, a->n + 1, sizeof (*a->parts)) < 0) {
        rc = jt_errprintf (err, "out of memory");
        goto out;
    }
    if (!a->n)
        a->first_seq = rec->seq;
    a->parts[a->n++] = ev;
    ev = NULL;
    if ((int64_t) a->n == a->parts[0]->parts)
        rc = ckpt_complete (c, err);
out:
    jt_event_destroy (ev);
    return rc;
}

static int read_cb (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    struct read_ctx *c = arg;
    jt_violation_t v;
    int rc = 0;

    c->read++;
    if (c->acc.n && !is_checkpoint (rec)) {
        struct acc *a = &c->acc;
        rc = ckpt_viol (c, a->first_seq, err,
                        "checkpoint after seq %" PRIu64 ": part %zu of %" PRId64
                        " is followed by another record at seq %" PRIu64,
                        a->parts[0]->up_to, a->n, a->parts[0]->parts, rec->seq);
        acc_reset (a);
        if (rc < 0)
            return -1;
    }
    if (c->fold) {
        rc = jt_ledger_fold_apply_record (c->fold, rec, c->verify, &v, err);
        if (rc < 0)
            return -1;
        c->folded++;
        if (rc > 0 && c->n++ == 0 && c->first)
            *c->first = v;
        if (rc > 0 && c->verify)
            return jt_errprintf (err, "violation");
    }
    if (is_checkpoint (rec))
        return ckpt_record (c, rec, err);
    return 0;
}

/* The end of a read: a checkpoint still missing parts. */
static int read_end (struct read_ctx *c, const jt_ledger_result_t *res, jt_error_t *err)
{
    struct acc *a = &c->acc;
    int rc = 0;

    if (a->n) {
        c->dangling_seq = a->first_seq;
        c->dangling_up_to = a->parts[0]->up_to;
        c->dangling_part = (int64_t) a->n;
        c->dangling_parts = a->parts[0]->parts;
        memcpy (c->dangling_sha, a->parts[0]->state_sha256, 65);
    }
    if (a->n && res->status == JT_LEDGER_OK)
        rc = ckpt_viol (c, a->first_seq, err,
                        "checkpoint after seq %" PRIu64 ": the ledger ends after part %zu "
                        "of %" PRId64,
                        a->parts[0]->up_to, a->n, a->parts[0]->parts);
    acc_reset (a);
    free (a->parts);
    a->parts = NULL;
    a->cap = 0;
    return rc;
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

/* The reader's hint (jt_ledger_pre_t's ahead): a record soon to be read. */
static void verify_ahead (const jt_record_t *rec, void *arg)
{
    const struct read_ctx *c = arg;
    if (c->fold)
        jt_ledger_fold_ahead (c->fold, rec);
}

int jt_ledger_verify (const char *const *paths, size_t npaths, const char *head,
                      const jt_event_t *caps, jt_ledger_result_t *res,
                      jt_violation_t *v, jt_ledger_fold_t **fold, jt_error_t *err)
{
    return jt_ledger_verify_threads (paths, npaths, head, caps, 0, res, v, fold, err);
}

int jt_ledger_verify_threads (const char *const *paths, size_t npaths, const char *head,
                              const jt_event_t *caps, unsigned threads,
                              jt_ledger_result_t *res, jt_violation_t *v,
                              jt_ledger_fold_t **fold, jt_error_t *err)
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
    c.caps = caps;
    jt_ledger_pre_t pre; /* payloads parsed on the hash thread too */
    jt_ledger_pre_events (&pre, true);
    pre.threads = threads;
    pre.ahead = verify_ahead;
    int rrc = jt_ledger_read_pre (paths, npaths, head, &pre, read_cb, &c, res, err);
    if (rrc == 0 && read_end (&c, res, err) < 0 && v->kind == JT_VIOL_NONE)
        rrc = -1;
    if (rrc < 0) {
        acc_reset (&c.acc);
        free (c.acc.parts);
    }
    if (rrc < 0 && v->kind == JT_VIOL_NONE) {
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

static jt_ledger_fold_t *replay (const char *const *paths, size_t npaths,
                                  jt_ledger_result_t *res, uint64_t *nviolations,
                                  jt_violation_t *first, struct read_ctx *cp, jt_error_t *err)
{
    struct read_ctx c0 = { .first = first }, *cc = cp ? cp : &c0;
    *cc = (struct read_ctx){ .first = first };
#define c (*cc)
    if (first)
        memset (first, 0, sizeof (*first));
    if (!(c.fold = jt_ledger_fold_create ())) {
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    jt_ledger_pre_t pre;
    jt_ledger_pre_events (&pre, false);
    int rrc = jt_ledger_read_pre (paths, npaths, NULL, &pre, read_cb, &c, res, err);
    (void) read_end (&c, res, err);
    if (rrc < 0) {
        jt_ledger_fold_destroy (c.fold);
        return NULL;
    }
    if (nviolations)
        *nviolations = c.n;
    return c.fold;
#undef c
}

jt_ledger_fold_t *jt_ledger_fold_replay (const char *const *paths, size_t npaths,
                                         jt_ledger_result_t *res,
                                         uint64_t *nviolations, jt_violation_t *first,
                                         jt_error_t *err)
{
    return replay (paths, npaths, res, nviolations, first, NULL, err);
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

/* ---- from the last checkpoint ---- */

/* The integer after key in [p, end) (a hint: -1 when absent). */
static int64_t hint_int (const char *p, const char *end, const char *key)
{
    size_t k = strlen (key);
    const char *q = memmem (p, (size_t) (end - p), key, k);
    int64_t v = 0;
    int digits = 0;

    if (!q)
        return -1;
    for (q += k; q < end && *q >= '0' && *q <= '9' && digits < 18; q++, digits++)
        v = v * 10 + (*q - '0');
    return digits ? v : -1;
}

size_t jt_ckpt_scan_block = (size_t) 1 << 20;
static const char ckpt_pat[] = "\"type\":\"Checkpoint\",\"id\":\"checkpoint:";

/* The largest upTo of a Checkpoint's first part whose pattern starts in
 * [lo, hi) of the mapped segment m (size bytes) and that serves (since,
 * resv: as last_checkpoint), above *best; *off where its line begins. */
static void scan_block (const char *m, size_t size, size_t lo, size_t hi, int64_t since,
                        bool resv, uint64_t *best, uint64_t *off)
{
    size_t k = sizeof (ckpt_pat) - 1;
    const char *end = m + size, *p = m + lo;
    const char *rend = m + (hi + k - 1 < size ? hi + k - 1 : size);

    while (p < rend && (p = memmem (p, (size_t) (rend - p), ckpt_pat, k))) {
        uint64_t v = 0;
        int digits = 0;
        const char *at = p;
        p += k;
        while (p < end && *p >= '0' && *p <= '9' && digits < 19) {
            v = v * 10 + (uint64_t) (*p++ - '0');
            digits++;
        }
        if (!(end - p >= 3 && !memcmp (p, ":1\"", 3)) || v <= *best)
            continue;
        if (since != INT64_MIN) {
            const char *eol = memchr (p, '\n', (size_t) (end - p));
            eol = eol ? eol : end;
            int64_t cu = hint_int (p, eol, "\"closedUntil\":");
            int64_t rcu = resv ? hint_int (p, eol, "\"resvClosedUntil\":") : 0;
            if (cu < 0 || cu >= since || rcu < 0 || rcu >= since)
                continue;
        }
        *best = v;
        const char *nl = memrchr (m, '\n', (size_t) (at - m));
        *off = nl ? (uint64_t) (nl + 1 - m) : 0;
    }
}

/* The upTo of the last Checkpoint's first part in segment path (a scan of
 * its bytes for `"id":"checkpoint:N:1"`, no parse: only a hint of where
 * to start; the read that follows checks everything), 0 when none; *off
 * is where the line holding it begins (a record's only LF is its last
 * byte). With since (not INT64_MIN), only a checkpoint whose closedUntil
 * (and with resv its usage's resvClosedUntil) is before since counts. The
 * scan goes from the end back a block at a time until a block holds one
 * that serves: checkpoints are in seq order, so the bytes before the last
 * one's block (the segment before the tail) are not scanned. */
static uint64_t last_checkpoint (const char *path, int64_t since, bool resv, uint64_t *off)
{
    struct stat sb;
    uint64_t best = 0;
    int fd = open (path, O_RDONLY | O_CLOEXEC);

    *off = 0;
    if (fd < 0)
        return 0;
    if (fstat (fd, &sb) == 0 && sb.st_size > 0) {
        size_t size = (size_t) sb.st_size, hi = size;
        const char *m = mmap (NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            while (!best && hi > 0) {
                size_t b = jt_ckpt_scan_block ? jt_ckpt_scan_block : 1;
                size_t lo = hi > b ? hi - b : 0;
                scan_block (m, size, lo, hi, since, resv, &best, off);
                hi = lo;
            }
            munmap ((void *) m, size);
        }
    }
    close (fd);
    return best;
}

/* Read files from the last checkpoint's first record on (its byte offset
 * in the last segment holding one), through c (no fold yet: the first
 * complete checkpoint restores it). The records before it are not read:
 * the chain is anchored at that record (jt_ledger_read_at). 1 when
 * c->fold came from a checkpoint, 0 when none was found or usable
 * (c->why), -1 with err. */
static int tail_read (char **files, size_t n, struct read_ctx *c, jt_ledger_result_t *res,
                      jt_replay_info_t *info, jt_error_t *err)
{
    size_t i = n;
    uint64_t off = 0;

    while (i > 0
           && !(c->target = last_checkpoint (files[i - 1],
                                             c->history ? c->since : INT64_MIN, c->resv,
                                             &off)))
        i--;
    if (i == 0) {
        if (c->history)
            snprintf (c->why, sizeof (c->why),
                      "no checkpoint closed its leases%s before %" PRId64,
                      c->resv ? " and reservations" : "", c->since);
        return 0;
    }
    i--;
    c->tail = true;
    int rc = jt_ledger_read_at ((const char *const *) files + i, n - i, off, c->target + 1,
                                true, read_cb, c, res, err);
    if (rc == 0)
        rc = read_end (c, res, err);
    if (info) {
        info->segments_read = res->nsegments;
        info->records_read = c->read;
    }
    if (rc < 0) {
        acc_reset (&c->acc);
        free (c->acc.parts);
        c->acc.parts = NULL;
        return c->first && c->first->kind != JT_VIOL_NONE && c->fold ? 1 : -1;
    }
    if (!c->fold && !c->why[0])
        snprintf (c->why, sizeof (c->why), "no complete checkpoint in %s and after",
                  files[i]);
    return c->fold ? 1 : 0;
}

static void info_set (jt_replay_info_t *info, const struct read_ctx *c)
{
    if (!info)
        return;
    info->ckpt_seq = c->ckpt_seq;
    info->up_to = c->up_to;
    info->records_folded = c->folded;
    snprintf (info->why, sizeof (info->why), "%s", c->why);
    info->refused = c->refused;
    info->dangling_seq = c->dangling_seq;
    info->dangling_up_to = c->dangling_up_to;
    info->dangling_part = c->dangling_part;
    info->dangling_parts = c->dangling_parts;
    memcpy (info->dangling_sha256, c->dangling_sha, 65);
}

jt_ledger_fold_t *jt_ledger_fold_replay_dir_ckpt (const char *dir, jt_ledger_result_t *res,
                                                  uint64_t *nviolations,
                                                  jt_violation_t *first,
                                                  jt_replay_info_t *info, jt_error_t *err)
{
    struct read_ctx c = { .first = first };
    char **paths = NULL;
    size_t n = 0;
    jt_ledger_fold_t *f = NULL;

    if (info)
        memset (info, 0, sizeof (*info));
    if (first)
        memset (first, 0, sizeof (*first));
    if (jt_ledger_segments (dir, &paths, &n, err) < 0)
        return NULL;
    int rc = tail_read (paths, n, &c, res, info, err);
    if (rc < 0) {
        jt_ledger_fold_destroy (c.fold);
        jt_ledger_segments_free (paths, n);
        return NULL;
    }
    if (rc > 0) {
        f = c.fold;
        if (nviolations)
            *nviolations = c.n;
        info_set (info, &c);
    } else {
        char why[320];
        snprintf (why, sizeof (why), "%s", c.why);
        struct read_ctx c2;
        f = replay ((const char *const *) paths, n, res, nviolations, first, &c2, err);
        if (info) {
            info_set (info, &c2);
            info->ckpt_seq = info->up_to = 0;
            info->segments_read += res->nsegments;
            info->records_read += res->nrecords;
            info->records_folded = res->nrecords;
            snprintf (info->why, sizeof (info->why), "%s", why);
            info->refused = c.refused;
        }
    }
    jt_ledger_segments_free (paths, n);
    return f;
}

int jt_ledger_verify_from_checkpoint (const char *const *paths, size_t npaths,
                                      const jt_event_t *caps, jt_ledger_result_t *res,
                                      jt_violation_t *v, jt_ledger_fold_t **fold,
                                      jt_replay_info_t *info, jt_error_t *err)
{
    struct read_ctx c = { .verify = true, .first = v, .caps = caps };
    char **files = NULL;
    size_t n = 0;

    memset (v, 0, sizeof (*v));
    if (info)
        memset (info, 0, sizeof (*info));
    if (fold)
        *fold = NULL;
    if (jt_ledger_expand_paths (paths, npaths, &files, &n, err) < 0)
        return -1;
    int rc = tail_read (files, n, &c, res, info, err);
    if (rc < 0 && v->kind == JT_VIOL_NONE) {
        jt_ledger_fold_destroy (c.fold);
        jt_ledger_segments_free (files, n);
        return -1;
    }
    if (rc == 0 && v->kind == JT_VIOL_NONE) { /* none usable: verify it all */
        char why[320];
        snprintf (why, sizeof (why), "%s", c.why);
        jt_ledger_fold_destroy (c.fold);
        jt_ledger_segments_free (files, n);
        if (jt_ledger_verify (paths, npaths, NULL, caps, res, v, fold, err) < 0)
            return -1;
        if (info) {
            info->records_read = info->records_folded = res->nrecords;
            info->segments_read = res->nsegments;
            snprintf (info->why, sizeof (info->why), "%s", why);
        }
        return 0;
    }
    info_set (info, &c);
    jt_ledger_segments_free (files, n);
    if (fold)
        *fold = c.fold;
    else
        jt_ledger_fold_destroy (c.fold);
    return 0;
}

int jt_ledger_fold_history_dir_ckpt (const char *dir, int64_t since, unsigned flags,
                                     jt_ledger_fold_t **out, jt_ledger_result_t *res,
                                     uint64_t *nviolations, jt_violation_t *first,
                                     jt_replay_info_t *info, jt_error_t *err)
{
    struct read_ctx c = { .first = first,
                          .history = true,
                          .since = since,
                          .resv = (flags & JT_CKPT_HIST_RESV) != 0 };
    char **paths = NULL;
    size_t n = 0;

    *out = NULL;
    if (info)
        memset (info, 0, sizeof (*info));
    if (first)
        memset (first, 0, sizeof (*first));
    if (jt_ledger_segments (dir, &paths, &n, err) < 0)
        return -1;
    int rc = tail_read (paths, n, &c, res, info, err);
    jt_ledger_segments_free (paths, n);
    if (rc <= 0) {
        jt_ledger_fold_destroy (c.fold);
        if (info && rc == 0) {
            snprintf (info->why, sizeof (info->why), "%s", c.why);
            info->refused = c.refused;
        }
        return rc;
    }
    info_set (info, &c);
    if (nviolations)
        *nviolations = c.n;
    *out = c.fold;
    return 1;
}
