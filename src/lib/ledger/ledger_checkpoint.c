/*
 * ledger_checkpoint.c - the fold's state as its canonical text, written
 * from a fold (jt_ckpt_state_text, jt_ckpt_payloads: the Checkpoint events'
 * payloads). Read back into a fresh fold by ledger_checkpoint_restore.c;
 * the Checkpoint event's body is ledger_event_checkpoint.c's, below the
 * fold.
 *
 * DESIGN: the state is what ledger_fold.c keeps for a live fold: counters,
 * envelopes (figures and caps), the last BudgetLoaded's hash and files,
 * open leases (with the cut an Activation gave them) and open reservations.
 * Event ids, history and lease time are not state: verify reads from
 * genesis for those. Arrays are in name order, so a state has one text.
 * GPU-seconds are integral (gpus x seconds) and written as integers: a
 * double converts to int64 and back exactly when it is integral and below
 * 2^63, so the state reads back bit for bit. The text is cut into parts
 * after the lease or reservation entry that reaches the part size; part 1
 * holds counters, envelopes and budgets too. stateSha256 is the SHA-256 of
 * the parts' state texts concatenated: a checkpoint counts only whole.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "jobtree/ledger.h"
#include "jobtree/ledger_checkpoint.h"
#include "jobtree/run.h"
#include "ledger_checkpoint_int.h"
#include "ledger_fold.h"
#include "util/grow.h"
#include "util/jsonutil.h"
#include "util/sha256.h"
#include "util/strbuf.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
#define GPU_MAX JT_RUN_GPUS_MAX
/* active, borrowed and peak GPUs of an envelope: a sum of open leases */
#define ACTIVE_MAX (INT64_C (1) << 50)
/* ---- the state's text ---- */

/* A GPU-second figure (integral) as an integer. */
static int gpu_s (double x, const char *what, const char *name, int64_t *out,
                  jt_error_t *err)
{
    if (!(x == floor (x)) || !(fabs (x) < 9.2e18))
        return jt_errprintf (err,
                             "%s: %s %g is not an integer below 2^63: no "
                             "checkpoint of this state",
                             name, what, x);
    *out = (int64_t) x;
    return 0;
}

static int add_bool (json_object *o, const char *k, bool b)
{
    return jt_json_add (o, k, json_object_new_boolean (b));
}

static json_object *env_json (const struct env *e, unsigned flags, jt_error_t *err)
{
    json_object *o = json_object_new_object ();
    int64_t cs = 0, cbs = 0, oss = 0, obss = 0;

    char what[300];
    snprintf (what, sizeof (what), "envelope %s", e->name);
    if (gpu_s (e->closed_s, "closedGpuS", what, &cs, err) < 0
        || gpu_s (e->closed_borrowed_s, "closedBorrowedGpuS", what, &cbs, err) < 0
        || gpu_s (e->open_start_sum, "openStartSum", what, &oss, err) < 0
        || gpu_s (e->open_borrowed_start_sum, "openBorrowedStartSum", what, &obss, err)
               < 0) {
        json_object_put (o);
        return NULL;
    }
    bool caps = !(flags & JT_CKPT_NO_CAPS);
    if (!o || jt_json_add_str (o, "name", e->name) < 0
        || (caps && e->owner && jt_json_add_str (o, "owner", e->owner) < 0)
        || (caps && add_bool (o, "capped", e->capped) < 0)
        || (caps && jt_json_add_int (o, "concurrency", e->concurrency) < 0)
        || (caps
            && jt_json_add (o, "maxGpuHours", json_object_new_double (e->max_gpu_hours))
                   < 0)
        || (caps && jt_json_add_int (o, "windowStart", e->wstart) < 0)
        || (caps && jt_json_add_int (o, "windowEnd", e->wend) < 0)
        || jt_json_add_int (o, "active", e->active) < 0
        || jt_json_add_int (o, "borrowed", e->borrowed) < 0
        || jt_json_add_int (o, "peak", e->peak) < 0
        || jt_json_add_int (o, "closedGpuS", cs) < 0
        || jt_json_add_int (o, "closedBorrowedGpuS", cbs) < 0
        || jt_json_add_int (o, "openStartSum", oss) < 0
        || jt_json_add_int (o, "openBorrowedStartSum", obss) < 0) {
        json_object_put (o);
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    return o;
}

static json_object *lease_json (const struct lease *l)
{
    json_object *o = json_object_new_object (), *a = json_object_new_array ();
    char seed[17];

    if (!o || !a)
        goto nomem;
    for (size_t i = 0; i < l->nnodes; i++)
        if (json_object_array_add (a, json_object_new_string (l->nodes[i])) < 0)
            goto nomem;
    snprintf (seed, sizeof (seed), "%016" PRIx64, l->cut_seed);
    if (jt_json_add_str (o, "lease", l->id) < 0 || jt_json_add_str (o, "run", l->run) < 0
        || jt_json_add_str (o, "group", l->group) < 0)
        goto nomem;
    if (jt_json_add (o, "nodes", a) < 0) {
        a = NULL;
        goto nomem;
    }
    a = NULL;
    if (jt_json_add_int (o, "gpus", l->gpus) < 0
        || jt_json_add_str (o, "role", jt_role_str (l->role)) < 0
        || jt_json_add_str (o, "envelope", l->envelope) < 0
        || jt_json_add_str (o, "owner", l->owner) < 0
        || jt_json_add_int (o, "start", l->start) < 0
        || jt_json_add_int (o, "seq", (int64_t) l->seq) < 0
        || (l->cut != JT_REASON_NONE
            && (jt_json_add_str (o, "cut", jt_end_reason_str (l->cut)) < 0
                || jt_json_add_str (o, "cutSeed", seed) < 0)))
        goto nomem;
    return o;
nomem:
    json_object_put (a);
    json_object_put (o);
    return NULL;
}

static json_object *resv_json (const struct resv *r)
{
    json_object *o = json_object_new_object ();

    if (!o || jt_json_add_str (o, "reservation", r->id) < 0
        || jt_json_add_str (o, "run", r->run) < 0
        || jt_json_add_str (o, "envelope", r->envelope) < 0
        || jt_json_add_str (o, "owner", r->owner) < 0
        || jt_json_add_int (o, "gpus", r->gpus) < 0
        || jt_json_add_int (o, "earliest", r->earliest) < 0
        || jt_json_add_int (o, "created", r->created) < 0
        || (r->drawn >= 0 && jt_json_add_int (o, "drawn", r->drawn) < 0)) {
        json_object_put (o);
        return NULL;
    }
    return o;
}

/* A group of the usage section (ledger_fold_report.c). */
static json_object *usage_json (const struct usage *u, jt_error_t *err)
{
    json_object *o = json_object_new_object ();
    int64_t gs = 0, bgs = 0;
    char what[300];

    snprintf (what, sizeof (what), "usage of %s on %s", u->owner, u->envelope);
    if (gpu_s (u->gpu_s, "gpuS", what, &gs, err) < 0
        || gpu_s (u->borrowed_gpu_s, "borrowedGpuS", what, &bgs, err) < 0) {
        json_object_put (o);
        return NULL;
    }
    if (!o || jt_json_add_str (o, "owner", u->owner) < 0
        || jt_json_add_str (o, "envelope", u->envelope) < 0
        || jt_json_add_int (o, "leases", u->leases) < 0
        || jt_json_add_int (o, "gpuS", gs) < 0
        || jt_json_add_int (o, "borrowedGpuS", bgs) < 0
        || jt_json_add_int (o, "last", u->last) < 0
        || jt_json_add_int (o, "open", u->cur) < 0
        || jt_json_add_int (o, "peak", u->peak) < 0
        || add_bool (o, "ordered", u->ordered) < 0) {
        json_object_put (o);
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    return o;
}

/* Append o's text to b and release o; false on ENOMEM (o NULL included). */
static bool put (jt_strbuf_t *b, json_object *o)
{
    size_t len = 0;
    const char *s = o ? json_object_to_json_string_length (o, JSON_FLAGS, &len) : NULL;
    if (s)
        jt_strbuf_add (b, s, len);
    json_object_put (o);
    return s != NULL;
}

/* Append open lease l's entry to b. With keep (the daemon's checkpoints,
 * jt_ckpt_payloads) the text is kept in l and reused by every later
 * checkpoint while the lease stays open and unchanged: an open lease's
 * entry is most of a state, and made each time (a json-c tree built,
 * printed and freed) it was half of a checkpoint's making, on the thread
 * that answers the daemon's clients. jt_ckpt_state_text (verify's
 * comparison) always makes it afresh. false on ENOMEM. */
static bool put_lease (jt_strbuf_t *b, struct lease *l, bool keep)
{
    size_t at = b->n, len;

    if (keep && l->ckpt) {
        jt_strbuf_add (b, l->ckpt, l->ckpt_len);
        return true;
    }
    if (!put (b, lease_json (l)))
        return false;
    len = b->n - at;                    /* what put appended */
    if (keep && !b->oom && (l->ckpt = malloc (len + 1))) { /* not kept: made again next time */
        memcpy (l->ckpt, b->p + at, len);
        l->ckpt[len] = '\0';
        l->ckpt_len = len;
    }
    return true;
}

static bool env_zero (const struct env *e)
{
    return !e->active && !e->borrowed && !e->peak && !e->closed_s && !e->closed_borrowed_s
           && !e->open_start_sum && !e->open_borrowed_start_sum;
}

/* Part 1's fixed sections, up to and including `"leases":[`. */
static int head_text (const jt_ledger_fold_t *f, unsigned flags, jt_strbuf_t *b,
                      jt_error_t *err)
{
    size_t n;
    const char **keys = jt_map_sorted_keys (f->envs, &n);
    bool first = true;

    if (!keys && n)
        return jt_errprintf (err, "out of memory");
    jt_strbuf_printf (b,
                      "{\"counters\":{\"events\":%" PRIu64 ",\"starts\":%" PRIu64
                      ",\"ends\":%" PRIu64 ",\"lotteries\":%" PRIu64
                      ",\"lastTime\":%" PRId64 ",\"closedUntil\":%" PRId64
                      "},\"envelopes\":[",
                      f->events, f->starts, f->ends, f->lotteries, f->last_time,
                      f->closed_until);
    for (size_t i = 0; i < n; i++) {
        const struct env *e = jt_map_get (f->envs, keys[i]);
        if ((flags & JT_CKPT_NO_CAPS) && env_zero (e))
            continue;
        json_object *o = env_json (e, flags, err);
        if (!o) {
            free (keys);
            return -1;
        }
        jt_strbuf_printf (b, "%s", first ? "" : ",");
        first = false;
        if (!put (b, o)) {
            free (keys);
            return jt_errprintf (err, "out of memory");
        }
    }
    free (keys);
    json_object *bo = json_object_new_object (), *fa = json_object_new_array ();
    bool ok = bo && fa;
    for (size_t i = 0; ok && i < f->last_nfiles; i++) {
        json_object *fo = json_object_new_object ();
        ok = fo && jt_json_add_str (fo, "path", f->last_files[i].path) == 0
             && jt_json_add_str (fo, "sha256", f->last_files[i].sha256) == 0
             && json_object_array_add (fa, fo) == 0;
        if (!ok)
            json_object_put (fo);
    }
    ok = ok && jt_json_add_int (bo, "loads", (int64_t) f->loads) == 0
         && jt_json_add_int (bo, "loadsNoContent", (int64_t) f->loads_no_content) == 0
         && jt_json_add_int (bo, "firstNoContent", (int64_t) f->first_no_content) == 0
         && jt_json_add_int (bo, "lastSeq", (int64_t) f->last_load_seq) == 0
         && jt_json_add_str (bo, "lastSha256", f->last_sha256) == 0;
    if (ok) {
        ok = jt_json_add (bo, "files", fa) == 0;
        fa = NULL;
    }
    json_object_put (fa);
    jt_strbuf_printf (b, "],\"budgets\":");
    if (!ok || !put (b, bo)) {
        if (!ok)
            json_object_put (bo);
        return jt_errprintf (err, "out of memory");
    }
    if (f->usage_known && !(flags & JT_CKPT_NO_USAGE)) {
        const char **uk = jt_map_sorted_keys (f->usage, &n);
        if (!uk && n)
            return jt_errprintf (err, "out of memory");
        jt_strbuf_printf (b,
                          ",\"usage\":{\"resvClosedUntil\":%" PRId64
                          ",\"firstStart\":%" PRId64 ",\"groups\":[",
                          f->resv_closed_until, f->first_start);
        for (size_t i = 0; i < n; i++) {
            json_object *o = usage_json (jt_map_get (f->usage, uk[i]), err);
            if (!o) {
                free (uk);
                return -1;
            }
            jt_strbuf_printf (b, "%s", i ? "," : "");
            if (!put (b, o)) {
                free (uk);
                return jt_errprintf (err, "out of memory");
            }
        }
        free (uk);
        jt_strbuf_printf (b, "]}");
    }
    jt_strbuf_printf (b, ",\"leases\":[");
    return 0;
}

struct parts {
    char **v;
    size_t n, cap;
};

static int parts_add (struct parts *p, char *s)
{
    if (!s)
        return -1;
    if (jt_grow ((void **) &p->v, &p->cap, p->n + 1, sizeof (*p->v)) < 0) {
        free (s);
        return -1;
    }
    p->v[p->n++] = s;
    return 0;
}

static void parts_free (struct parts *p)
{
    for (size_t i = 0; i < p->n; i++)
        free (p->v[i]);
    free (p->v);
    memset (p, 0, sizeof (*p));
}

/* The state texts of f cut after the entry reaching part_bytes; keep:
 * put_lease's. */
static int state_parts (const jt_ledger_fold_t *f, unsigned flags, size_t part_bytes,
                        bool keep, struct parts *out, jt_error_t *err)
{
    size_t nl, nr;
    const char **lk = jt_map_sorted_keys (f->leases, &nl);
    const char **rk = NULL;
    jt_strbuf_t b = JT_STRBUF_INIT;
    bool in_resv = false, empty = true;
    int rc = -1;

    memset (out, 0, sizeof (*out));
    if ((!lk && nl) || (!(rk = (const char **) jt_map_sorted_keys (f->oresv, &nr)) && nr)) {
        jt_errprintf (err, "out of memory");
        goto out;
    }
    /* open reservations are keyed by run: order them by id */
    const struct resv **rv = malloc ((nr ? nr : 1) * sizeof (*rv));
    if (!rv) {
        jt_errprintf (err, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nr; i++)
        rv[i] = jt_map_get (f->oresv, rk[i]);
    for (size_t i = 1; i < nr; i++) /* insertion sort by id: nr is small */
        for (size_t j = i; j > 0 && strcmp (rv[j - 1]->id, rv[j]->id) > 0; j--) {
            const struct resv *t = rv[j];
            rv[j] = rv[j - 1];
            rv[j - 1] = t;
        }
    if (head_text (f, flags, &b, err) < 0) {
        free (rv);
        goto out;
    }
    for (size_t i = 0; i < nl + nr; i++) {
        if (!empty && b.n >= part_bytes) {
            jt_strbuf_printf (&b, "%s]}", in_resv ? "" : "],\"reservations\":[");
            if (parts_add (out, jt_strbuf_take (&b)) < 0) {
                free (rv);
                jt_errprintf (err, "out of memory");
                goto out;
            }
            jt_strbuf_printf (&b, "{\"leases\":[");
            in_resv = false;
            empty = true;
        }
        if (i >= nl && !in_resv) {
            jt_strbuf_printf (&b, "],\"reservations\":[");
            in_resv = true;
            empty = true;
        }
        if (!empty)
            jt_strbuf_add (&b, ",", 1);
        if (!(i < nl ? put_lease (&b, jt_map_get (f->leases, lk[i]), keep)
                     : put (&b, resv_json (rv[i - nl])))) {
            free (rv);
            jt_errprintf (err, "out of memory");
            goto out;
        }
        empty = false;
    }
    free (rv);
    jt_strbuf_printf (&b, "%s]}", in_resv ? "" : "],\"reservations\":[");
    if (parts_add (out, jt_strbuf_take (&b)) < 0) {
        jt_errprintf (err, "out of memory");
        goto out;
    }
    rc = 0;
out:
    if (rc < 0) {
        free (jt_strbuf_take (&b));
        parts_free (out);
    }
    free (lk);
    free (rk);
    return rc;
}

char *jt_ckpt_state_text (const jt_ledger_fold_t *f, unsigned flags, jt_error_t *err)
{
    struct parts p;

    if (state_parts (f, flags, SIZE_MAX, false, &p, err) < 0)
        return NULL;
    char *s = p.v[0];
    p.v[0] = NULL;
    parts_free (&p);
    return s;
}

/* SHA-256 (hex) of texts concatenated. 0, or -1 on ENOMEM. */
int jt_ckpt_parts_sha (const char *const *texts, size_t n, char hex[65])
{
    size_t len = 0, off = 0;
    for (size_t i = 0; i < n; i++)
        len += strlen (texts[i]);
    char *all = malloc (len ? len : 1);
    if (!all)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen (texts[i]);
        memcpy (all + off, texts[i], k);
        off += k;
    }
    int rc = jt_sha256_hex (all, len, hex);
    free (all);
    return rc;
}

void jt_ckpt_payloads_free (char **payloads, size_t *lens, size_t n)
{
    for (size_t i = 0; payloads && i < n; i++)
        free (payloads[i]);
    free (payloads);
    free (lens);
}

/* Part i's record payload: the event printed with an empty state, the
 * part's text put in its place. The state is the last key a Checkpoint
 * prints (it has no note) and its text is already json-c's canonical
 * print (put, and the fixed sections written the same way), so this is
 * the canonical line jt_event_to_json would print, without parsing the
 * part into a tree and printing it again: that was 58 % of a checkpoint's
 * time in jobtree-ledgerd, which makes it on its serving thread
 * (ledger_checkpoint.t compares the two for every part of its folds).
 * Any other shape goes the long way. */
static char *part_payload (jt_event_t *ev, const char *state, jt_error_t *err)
{
    static const char tail[] = "\"state\":{}}";
    const size_t tl = sizeof (tail) - 1;
    ev->state = (char *) "{}";
    char *shell = ev->note ? NULL : jt_event_to_json (ev, err);
    size_t sl = shell ? strlen (shell) : 0, n = strlen (state);
    ev->state = (char *) state;
    if (!shell || sl < tl || memcmp (shell + sl - tl, tail, tl)) {
        free (shell);
        return jt_event_to_json (ev, err);
    }
    char *out = malloc (sl - 3 + n + 2);
    if (!out) {
        free (shell);
        errno = ENOMEM;
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    memcpy (out, shell, sl - 3); /* up to "state": */
    memcpy (out + sl - 3, state, n);
    memcpy (out + sl - 3 + n, "}", 2);
    free (shell);
    return out;
}

int jt_ckpt_payloads (const jt_ledger_fold_t *f, uint64_t up_to, int64_t time,
                      size_t part_bytes, char ***payloads, size_t **lens, size_t *n,
                      jt_error_t *err)
{
    struct parts p;
    char sha[65], id[80];
    jt_event_t ev = { .type = JT_EV_CHECKPOINT, .id = id, .time = time, .up_to = up_to };

    *payloads = NULL;
    *lens = NULL;
    *n = 0;
    if (!part_bytes)
        part_bytes = JT_CKPT_PART_BYTES;
    if (part_bytes < JT_CKPT_PART_BYTES_MIN || part_bytes > JT_CKPT_PART_BYTES_MAX) {
        errno = EINVAL;
        return jt_errprintf (err, "checkpoint part size %zu: must be %d to %d bytes",
                             part_bytes, JT_CKPT_PART_BYTES_MIN, JT_CKPT_PART_BYTES_MAX);
    }
    if (state_parts (f, 0, part_bytes, true, &p, err) < 0)
        return -1;
    if (p.n > JT_CKPT_PARTS_MAX) {
        parts_free (&p);
        errno = E2BIG;
        return jt_errprintf (err, "the state needs %zu checkpoint parts (at most %d)", p.n,
                             JT_CKPT_PARTS_MAX);
    }
    if (jt_ckpt_parts_sha ((const char *const *) p.v, p.n, sha) < 0
        || !(*payloads = calloc (p.n, sizeof (**payloads)))
        || !(*lens = calloc (p.n, sizeof (**lens)))) {
        parts_free (&p);
        jt_ckpt_payloads_free (*payloads, *lens, 0);
        *payloads = NULL;
        *lens = NULL;
        errno = ENOMEM;
        return jt_errprintf (err, "out of memory");
    }
    memcpy (ev.state_sha256, sha, 65);
    ev.parts = (int64_t) p.n;
    for (size_t i = 0; i < p.n; i++) {
        ev.part = (int64_t) i + 1;
        snprintf (id, sizeof (id), "checkpoint:%" PRIu64 ":%zu", up_to, i + 1);
        if (!((*payloads)[i] = part_payload (&ev, p.v[i], err))) {
            jt_ckpt_payloads_free (*payloads, *lens, i);
            *payloads = NULL;
            *lens = NULL;
            parts_free (&p);
            return -1;
        }
        (*lens)[i] = strlen ((*payloads)[i]);
        if ((*lens)[i] > JT_LEDGER_MAX_PAYLOAD) {
            jt_ckpt_payloads_free (*payloads, *lens, i + 1);
            *payloads = NULL;
            *lens = NULL;
            parts_free (&p);
            errno = E2BIG;
            return jt_errprintf (err, "checkpoint part %zu is %zu bytes, over the record "
                                 "payload limit",
                                 i + 1, (*lens)[i]);
        }
    }
    *n = p.n;
    parts_free (&p);
    return 0;
}
