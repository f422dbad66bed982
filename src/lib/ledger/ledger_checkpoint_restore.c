/*
 * ledger_checkpoint_restore.c - the fold's state read back from the
 * canonical text ledger_checkpoint.c writes: into a fresh fold
 * (jt_ckpt_restore) with every number range-checked and the state checked
 * against itself, and such a fold made to keep history (jobtree report).
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
#include "util/jsonutil.h"
#include "util/sha256.h"
#include "util/strbuf.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
#define GPU_MAX JT_RUN_GPUS_MAX
/* active, borrowed and peak GPUs of an envelope: a sum of open leases */
#define ACTIVE_MAX (INT64_C (1) << 50)
/* ---- reading it back ---- */

static const char *const k_state1[] = { "counters", "envelopes",    "budgets", "usage",
                                        "leases",   "reservations", NULL };
static const char *const k_staten[] = { "leases", "reservations", NULL };
static const char *const k_counters[] = { "events", "starts", "ends", "lotteries",
                                          "lastTime", "closedUntil", NULL };
static const char *const k_env[] = { "name", "owner", "capped", "concurrency", "maxGpuHours",
                                     "windowStart", "windowEnd", "active", "borrowed",
                                     "peak", "closedGpuS", "closedBorrowedGpuS",
                                     "openStartSum", "openBorrowedStartSum", NULL };
static const char *const k_budgets[] = { "loads", "loadsNoContent", "firstNoContent",
                                         "lastSeq", "lastSha256", "files", NULL };
static const char *const k_file[] = { "path", "sha256", NULL };
static const char *const k_lease[] = { "lease", "run", "group", "nodes", "gpus", "role",
                                       "envelope", "owner", "start", "seq", "cut",
                                       "cutSeed", NULL };
static const char *const k_resv[] = { "reservation", "run", "envelope", "owner", "gpus",
                                      "earliest", "created", "drawn", NULL };

static int rd_counters (struct jt_ckpt_rd *r, jt_ledger_fold_t *f, json_object *st,
                        uint64_t up_to)
{
    json_object *c;
    int64_t ev, s, e, l, t, cu;
    int64_t max = up_to > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) up_to;

    size_t base = strlen (r->where);
    snprintf (r->where + base, sizeof (r->where) - base, "counters");
    if (!json_object_object_get_ex (st, "counters", &c))
        return jt_ckpt_bad (r, NULL, "missing");
    if (jt_ckpt_rd_keys (r, c, k_counters) < 0
        || jt_ckpt_rd_int (r, c, "events", 0, max, &ev) < 0
        || jt_ckpt_rd_int (r, c, "starts", 0, ev, &s) < 0
        || jt_ckpt_rd_int (r, c, "ends", 0, s, &e) < 0
        || jt_ckpt_rd_int (r, c, "lotteries", 0, ev, &l) < 0
        || jt_ckpt_rd_int (r, c, "lastTime", 0, JT_EV_TIME_MAX, &t) < 0
        || jt_ckpt_rd_int (r, c, "closedUntil", 0, JT_EV_TIME_MAX, &cu) < 0)
        return -1;
    r->where[base] = 0;
    f->events = (uint64_t) ev;
    f->starts = (uint64_t) s;
    f->ends = (uint64_t) e;
    f->lotteries = (uint64_t) l;
    f->last_time = t;
    f->closed_until = cu;
    return 0;
}

static int rd_envs (struct jt_ckpt_rd *r, jt_ledger_fold_t *f, json_object *st)
{
    json_object *a = jt_ckpt_rd_array (r, st, "envelopes");
    size_t base = strlen (r->where);
    const char *prev = NULL;

    if (!a)
        return -1;
    for (size_t i = 0; i < json_object_array_length (a); i++) {
        json_object *o = json_object_array_get_idx (a, i), *h;
        char *name = NULL, *owner = NULL;
        int64_t v[9];
        snprintf (r->where + base, sizeof (r->where) - base, "envelopes[%zu]", i);
        if (jt_ckpt_rd_keys (r, o, k_env) < 0
            || jt_ckpt_rd_str (r, o, "name", true, true, &name) < 0)
            return -1;
        if (prev && strcmp (prev, name) >= 0) {
            free (name);
            return jt_ckpt_bad (r, "name",
                                "not after the previous name (sorted, distinct)");
        }
        struct env *e = jt_map_get (f->envs, name) ? NULL : jt_fold_env_get (f, name);
        free (name);
        if (!e)
            return jt_ckpt_bad (r, NULL, "out of memory");
        prev = e->name;
        if (jt_ckpt_rd_str (r, o, "owner", false, true, &owner) < 0)
            return -1;
        e->owner = owner;
        if (!json_object_object_get_ex (o, "capped", &h)
            || !json_object_is_type (h, json_type_boolean))
            return jt_ckpt_bad (r, "capped", "expected true or false");
        e->capped = json_object_get_boolean (h);
        if (!json_object_object_get_ex (o, "maxGpuHours", &h)
            || !(json_object_is_type (h, json_type_double)
                 || json_object_is_type (h, json_type_int))
            || !isfinite (json_object_get_double (h)) || json_object_get_double (h) < 0)
            return jt_ckpt_bad (r, "maxGpuHours", "expected a finite number >= 0");
        e->max_gpu_hours = json_object_get_double (h);
        if (jt_ckpt_rd_int (r, o, "concurrency", 0, INT64_MAX - 1, &e->concurrency) < 0
            || jt_ckpt_rd_int (r, o, "windowStart", 0, JT_EV_TIME_MAX, &e->wstart) < 0
            || jt_ckpt_rd_int (r, o, "windowEnd", 0, JT_EV_TIME_MAX, &e->wend) < 0
            || jt_ckpt_rd_int (r, o, "active", 0, ACTIVE_MAX, &v[0]) < 0
            || jt_ckpt_rd_int (r, o, "borrowed", 0, v[0], &v[1]) < 0
            || jt_ckpt_rd_int (r, o, "peak", v[0], ACTIVE_MAX, &v[2]) < 0
            || jt_ckpt_rd_int (r, o, "closedGpuS", -INT64_MAX + 1, INT64_MAX - 1, &v[3])
                   < 0
            || jt_ckpt_rd_int (r, o, "closedBorrowedGpuS", -INT64_MAX + 1, INT64_MAX - 1,
                               &v[4])
                   < 0
            || jt_ckpt_rd_int (r, o, "openStartSum", -INT64_MAX + 1, INT64_MAX - 1, &v[5])
                   < 0
            || jt_ckpt_rd_int (r, o, "openBorrowedStartSum", -INT64_MAX + 1,
                               INT64_MAX - 1, &v[6])
                   < 0)
            return -1;
        e->active = v[0];
        e->borrowed = v[1];
        e->peak = v[2];
        e->closed_s = (double) v[3];
        e->closed_borrowed_s = (double) v[4];
        e->open_start_sum = (double) v[5];
        e->open_borrowed_start_sum = (double) v[6];
    }
    r->where[base] = 0;
    return 0;
}

static int rd_budgets (struct jt_ckpt_rd *r, jt_ledger_fold_t *f, json_object *st,
                       uint64_t up_to)
{
    json_object *b, *a;
    size_t base = strlen (r->where);
    int64_t loads, nc, fnc, last;
    char *sha = NULL;
    int64_t max = (int64_t) up_to;

    snprintf (r->where + base, sizeof (r->where) - base, "budgets");
    if (!json_object_object_get_ex (st, "budgets", &b))
        return jt_ckpt_bad (r, NULL, "missing");
    if (jt_ckpt_rd_keys (r, b, k_budgets) < 0
        || jt_ckpt_rd_int (r, b, "loads", 0, max, &loads) < 0
        || jt_ckpt_rd_int (r, b, "loadsNoContent", 0, loads, &nc) < 0
        || jt_ckpt_rd_int (r, b, "firstNoContent", 0, max, &fnc) < 0
        || jt_ckpt_rd_int (r, b, "lastSeq", 0, max, &last) < 0
        || jt_ckpt_rd_str (r, b, "lastSha256", true, false, &sha) < 0)
        return -1;
    if (sha[0] && !jt_sha256_hex_ok (sha)) {
        free (sha);
        return jt_ckpt_bad (r, "lastSha256", "expected \"\" or 64 lowercase hex digits");
    }
    memcpy (f->last_sha256, sha, strlen (sha) + 1);
    free (sha);
    f->loads = (uint64_t) loads;
    f->loads_no_content = (uint64_t) nc;
    f->first_no_content = (uint64_t) fnc;
    f->last_load_seq = (uint64_t) last;
    if (!(a = jt_ckpt_rd_array (r, b, "files")))
        return -1;
    size_t n = json_object_array_length (a);
    if (!(f->last_files = calloc (n ? n : 1, sizeof (*f->last_files))))
        return jt_ckpt_bad (r, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx (a, i);
        char *s = NULL;
        snprintf (r->where + base, sizeof (r->where) - base, "budgets.files[%zu]", i);
        if (jt_ckpt_rd_keys (r, o, k_file) < 0
            || jt_ckpt_rd_str (r, o, "path", true, true, &f->last_files[i].path) < 0)
            return -1;
        f->last_nfiles = i + 1;
        if (jt_ckpt_rd_str (r, o, "sha256", true, false, &s) < 0)
            return -1;
        bool ok = jt_sha256_hex_ok (s);
        if (ok)
            memcpy (f->last_files[i].sha256, s, 65);
        free (s);
        if (!ok)
            return jt_ckpt_bad (r, "sha256", "expected 64 lowercase hex digits");
    }
    r->where[base] = 0;
    return 0;
}

static int rd_lease (struct jt_ckpt_rd *r, jt_ledger_fold_t *f, json_object *o,
                     uint64_t up_to, char **prev)
{
    struct lease *l = calloc (1, sizeof (*l));
    json_object *a;
    char *role = NULL, *cut = NULL, *seed = NULL;
    int64_t seq;
    int rc = -1;

    if (!l)
        return jt_ckpt_bad (r, NULL, "out of memory");
    l->end = -1;
    if (jt_ckpt_rd_keys (r, o, k_lease) < 0
        || jt_ckpt_rd_str (r, o, "lease", true, true, &l->id) < 0)
        goto out;
    if (*prev && strcmp (*prev, l->id) >= 0) {
        jt_ckpt_bad (r, "lease", "not after the previous lease id (sorted, distinct)");
        goto out;
    }
    if (jt_ckpt_rd_str (r, o, "run", true, true, &l->run) < 0
        || jt_ckpt_rd_str (r, o, "group", true, true, &l->group) < 0
        || jt_ckpt_rd_str (r, o, "envelope", true, true, &l->envelope) < 0
        || jt_ckpt_rd_str (r, o, "owner", true, true, &l->owner) < 0
        || jt_ckpt_rd_str (r, o, "role", true, true, &role) < 0
        || jt_ckpt_rd_int (r, o, "gpus", 1, GPU_MAX, &l->gpus) < 0
        || jt_ckpt_rd_int (r, o, "start", 0, JT_EV_TIME_MAX, &l->start) < 0
        || jt_ckpt_rd_int (r, o, "seq", 1, (int64_t) up_to, &seq) < 0
        || jt_ckpt_rd_str (r, o, "cut", false, true, &cut) < 0
        || jt_ckpt_rd_str (r, o, "cutSeed", false, true, &seed) < 0
        || !(a = jt_ckpt_rd_array (r, o, "nodes")))
        goto out;
    l->seq = (uint64_t) seq;
    if (jt_role_parse (role, &l->role) < 0) {
        jt_ckpt_bad (r, "role", "unknown role '%s'", role);
        goto out;
    }
    if (!jt_map_get (f->envs, l->envelope)) {
        jt_ckpt_bad (r, "envelope", "%s is not among the envelopes", l->envelope);
        goto out;
    }
    if (!cut != !seed) {
        jt_ckpt_bad (r, "cut", "cut and cutSeed go together");
        goto out;
    }
    if (cut) {
        l->cut = jt_end_reason_parse (cut);
        if (l->cut != JT_REASON_RANDOM_PREEMPT && l->cut != JT_REASON_SHRINK
            && l->cut != JT_REASON_DROP_SPARE) {
            jt_ckpt_bad (r, "cut", "'%s' is not RandomPreempt, Shrink or DropSpare", cut);
            goto out;
        }
        if (strlen (seed) != 16 || strspn (seed, "0123456789abcdef") != 16) {
            jt_ckpt_bad (r, "cutSeed", "expected 16 lowercase hex digits");
            goto out;
        }
        l->cut_seed = strtoull (seed, NULL, 16);
    }
    size_t nn = json_object_array_length (a);
    if (!nn) {
        jt_ckpt_bad (r, "nodes", "a lease holds a node");
        goto out;
    }
    if (!(l->nodes = calloc (nn, sizeof (*l->nodes)))) {
        jt_ckpt_bad (r, NULL, "out of memory");
        goto out;
    }
    for (; l->nnodes < nn; l->nnodes++) {
        json_object *s = json_object_array_get_idx (a, l->nnodes);
        if (!json_object_is_type (s, json_type_string) || !json_object_get_string_len (s)) {
            jt_ckpt_bad (r, "nodes", "[%zu]: expected a node name", l->nnodes);
            goto out;
        }
        if (!(l->nodes[l->nnodes] = strdup (json_object_get_string (s)))) {
            jt_ckpt_bad (r, NULL, "out of memory");
            goto out;
        }
    }
    if (jt_map_put (f->leases, l->id, l, NULL) < 0) {
        jt_ckpt_bad (r, NULL, "out of memory");
        goto out;
    }
    *prev = l->id;
    l = NULL;
    rc = 0;
out:
    jt_fold_lease_free (l);
    free (role);
    free (cut);
    free (seed);
    return rc;
}

static int rd_resv (struct jt_ckpt_rd *r, jt_ledger_fold_t *f, json_object *o,
                    char **prev)
{
    struct resv *v = calloc (1, sizeof (*v));
    int rc = -1;

    if (!v)
        return jt_ckpt_bad (r, NULL, "out of memory");
    v->activated = v->released = v->drawn = -1;
    if (jt_ckpt_rd_keys (r, o, k_resv) < 0
        || jt_ckpt_rd_str (r, o, "reservation", true, true, &v->id) < 0)
        goto out;
    if (*prev && strcmp (*prev, v->id) >= 0) {
        jt_ckpt_bad (r, "reservation",
                     "not after the previous reservation id (sorted, distinct)");
        goto out;
    }
    if (jt_ckpt_rd_str (r, o, "run", true, true, &v->run) < 0
        || jt_ckpt_rd_str (r, o, "envelope", true, true, &v->envelope) < 0
        || jt_ckpt_rd_str (r, o, "owner", true, true, &v->owner) < 0
        || jt_ckpt_rd_int (r, o, "gpus", 1, GPU_MAX, &v->gpus) < 0
        || jt_ckpt_rd_int (r, o, "earliest", 0, JT_EV_TIME_MAX, &v->earliest) < 0
        || jt_ckpt_rd_int (r, o, "created", 0, JT_EV_TIME_MAX, &v->created) < 0
        || (json_object_object_get_ex (o, "drawn", NULL)
            && jt_ckpt_rd_int (r, o, "drawn", 0, JT_EV_TIME_MAX, &v->drawn) < 0))
        goto out;
    if (jt_map_get (f->oresv, v->run)) {
        jt_ckpt_bad (r, "run", "%s holds two open reservations", v->run);
        goto out;
    }
    if (jt_map_put (f->oresv, v->run, v, NULL) < 0) {
        jt_ckpt_bad (r, NULL, "out of memory");
        goto out;
    }
    *prev = v->id;
    v = NULL;
    rc = 0;
out:
    jt_fold_resv_free (v);
    return rc;
}

/* Per envelope, what its open leases add up to. */
struct sums {
    jt_ledger_fold_t *f;
    int64_t *active, *borrowed;
    __int128 *ss, *bss;
    const struct lease **bynum; /* the leases, to order by seq */
    size_t n;
};

static void sums_cb (const char *key, void *val, void *arg)
{
    struct sums *s = arg;
    const struct lease *l = val;
    const struct env *e = jt_map_get (s->f->envs, l->envelope);
    (void) key;
    s->active[e->id] += l->gpus;
    s->ss[e->id] += (__int128) l->gpus * l->start;
    if (l->role == JT_ROLE_BORROWED) {
        s->borrowed[e->id] += l->gpus;
        s->bss[e->id] += (__int128) l->gpus * l->start;
    }
    s->bynum[s->n++] = l;
}

static int cmp_seq (const void *a, const void *b)
{
    const struct lease *x = *(const struct lease *const *) a;
    const struct lease *y = *(const struct lease *const *) b;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return strcmp (x->id, y->id);
}

/* The state agrees with itself; the node holders rebuilt (later Start
 * wins, as in the fold). */
static int rd_check (struct jt_ckpt_rd *r, jt_ledger_fold_t *f)
{
    size_t ne = f->nenv ? f->nenv : 1, nl = jt_map_count (f->leases);
    struct sums s = { .f = f,
                      .active = calloc (ne, sizeof (int64_t)),
                      .borrowed = calloc (ne, sizeof (int64_t)),
                      .ss = calloc (ne, sizeof (__int128)),
                      .bss = calloc (ne, sizeof (__int128)),
                      .bynum = calloc (nl ? nl : 1, sizeof (*s.bynum)) };
    int rc = -1;
    const __int128 exact = (__int128) 1 << 53;

    snprintf (r->where, sizeof (r->where), "checkpoint");
    if (!s.active || !s.borrowed || !s.ss || !s.bss || !s.bynum) {
        jt_ckpt_bad (r, NULL, "out of memory");
        goto out;
    }
    if (f->starts - f->ends != nl) {
        jt_ckpt_bad (r, NULL, "%zu open leases, but starts - ends = %" PRIu64, nl,
                     f->starts - f->ends);
        goto out;
    }
    jt_map_each (f->leases, sums_cb, &s);
    for (size_t i = 0; i < f->nenv; i++) {
        const struct env *e = f->env_v[i];
        const char *what = NULL;
        if (s.active[i] != e->active)
            what = "active";
        else if (s.borrowed[i] != e->borrowed)
            what = "borrowed";
        else if (s.ss[i] < exact && s.ss[i] > -exact && (double) s.ss[i] != e->open_start_sum)
            what = "openStartSum";
        else if (s.bss[i] < exact && s.bss[i] > -exact
                 && (double) s.bss[i] != e->open_borrowed_start_sum)
            what = "openBorrowedStartSum";
        if (what) {
            jt_ckpt_bad (r, NULL, "envelope %s: %s is not what its open leases add up to",
                         e->name, what);
            goto out;
        }
    }
    if (f->usage_known && jt_ckpt_usage_check (r, f, s.bynum, s.n) < 0)
        goto out;
    qsort (s.bynum, s.n, sizeof (*s.bynum), cmp_seq);
    for (size_t i = 0; i < s.n; i++)
        for (size_t k = 0; k < s.bynum[i]->nnodes; k++)
            if (jt_map_put (f->nodes, s.bynum[i]->nodes[k], (void *) s.bynum[i], NULL) < 0) {
                jt_ckpt_bad (r, NULL, "out of memory");
                goto out;
            }
    rc = 0;
out:
    free (s.active);
    free (s.borrowed);
    free (s.ss);
    free (s.bss);
    free (s.bynum);
    return rc;
}

jt_ledger_fold_t *jt_ckpt_restore (const jt_event_t *const *parts, size_t n, jt_error_t *err)
{
    struct jt_ckpt_rd r = { .err = err };
    jt_ledger_fold_t *f = NULL;
    const char **texts = NULL;
    char sha[65], *prevl = NULL, *prevr = NULL;
    json_object *st = NULL;

    if (!n || n > JT_CKPT_PARTS_MAX) {
        jt_errprintf (err, "checkpoint: %zu parts", n);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const jt_event_t *p = parts[i];
        if (p->type != JT_EV_CHECKPOINT || p->part != (int64_t) i + 1
            || p->parts != (int64_t) n || p->up_to != parts[0]->up_to
            || strcmp (p->state_sha256, parts[0]->state_sha256)) {
            jt_errprintf (err, "checkpoint after seq %" PRIu64 ": part %zu of %zu is not "
                          "part %zu of the same checkpoint",
                          parts[0]->up_to, i + 1, n, i + 1);
            return NULL;
        }
    }
    if (!(texts = malloc (n * sizeof (*texts)))) {
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        texts[i] = parts[i]->state;
    int shr = jt_ckpt_parts_sha (texts, n, sha);
    free (texts);
    if (shr < 0) {
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    if (strcmp (sha, parts[0]->state_sha256)) {
        jt_errprintf (err, "checkpoint after seq %" PRIu64 ": its parts' state hashes to "
                      "%.16s..., not its stateSha256 %.16s...",
                      parts[0]->up_to, sha, parts[0]->state_sha256);
        return NULL;
    }
    if (!(f = jt_ledger_fold_create ())) {
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    jt_ledger_fold_forget_ids (f);
    for (size_t i = 0; i < n; i++) {
        uint64_t up_to = parts[i]->up_to;
        snprintf (r.where, sizeof (r.where), "checkpoint part %zu: ", i + 1);
        size_t base = strlen (r.where);
        if (!(st = json_tokener_parse (parts[i]->state))) {
            jt_ckpt_bad (&r, NULL, "state: not JSON");
            goto error;
        }
        if (jt_ckpt_rd_keys (&r, st, i ? k_staten : k_state1) < 0)
            goto error;
        if (!i
            && (rd_counters (&r, f, st, up_to) < 0 || rd_envs (&r, f, st) < 0
                || rd_budgets (&r, f, st, up_to) < 0 || jt_ckpt_rd_usage (&r, f, st) < 0))
            goto error;
        json_object *a = jt_ckpt_rd_array (&r, st, "leases"),
                    *b = a ? jt_ckpt_rd_array (&r, st, "reservations") : NULL;
        if (!b)
            goto error;
        for (size_t k = 0; k < json_object_array_length (a); k++) {
            snprintf (r.where + base, sizeof (r.where) - base, "leases[%zu]", k);
            if (rd_lease (&r, f, json_object_array_get_idx (a, k), up_to, &prevl) < 0)
                goto error;
        }
        for (size_t k = 0; k < json_object_array_length (b); k++) {
            snprintf (r.where + base, sizeof (r.where) - base, "reservations[%zu]", k);
            if (rd_resv (&r, f, json_object_array_get_idx (b, k), &prevr) < 0)
                goto error;
        }
        json_object_put (st);
        st = NULL;
    }
    if (rd_check (&r, f) < 0)
        goto error;
    return f;
error:
    json_object_put (st);
    jt_ledger_fold_destroy (f);
    return NULL;
}

/* ---- a restored fold that keeps history (jobtree report): its open
 * leases and reservations are the history's first rows ---- */

static void hist_cb (const char *key, void *val, void *arg)
{
    jt_ledger_fold_t *f = arg;
    const struct lease *o = val;
    struct lease *l;
    (void) key;
    if (!f->hist || !(l = calloc (1, sizeof (*l)))) {
        jt_map_destroy (f->hist, jt_fold_lease_free);
        f->hist = NULL;
        return;
    }
    *l = *o;
    l->ckpt = NULL; /* o's */
    l->id = strdup (o->id);
    l->run = strdup (o->run);
    l->group = strdup (o->group);
    l->envelope = strdup (o->envelope);
    l->owner = strdup (o->owner);
    l->nodes = calloc (o->nnodes ? o->nnodes : 1, sizeof (*l->nodes));
    l->nnodes = 0;
    bool ok = l->id && l->run && l->group && l->envelope && l->owner && l->nodes;
    for (; ok && l->nnodes < o->nnodes; l->nnodes++)
        ok = (l->nodes[l->nnodes] = strdup (o->nodes[l->nnodes])) != NULL;
    l->end = -1;
    l->reason = JT_REASON_NONE;
    l->seed = 0;
    if (!ok || jt_map_put (f->hist, l->id, l, NULL) < 0) {
        jt_fold_lease_free (l);
        jt_map_destroy (f->hist, jt_fold_lease_free);
        f->hist = NULL;
    }
}

/* An open reservation as a row of the history (still open: closed -1). */
static void resv_hist_cb (const char *key, void *val, void *arg)
{
    jt_ledger_fold_t *f = arg;
    const struct resv *o = val;
    struct resv *v;
    (void) key;
    if (!f->resv)
        return;
    if (!(v = calloc (1, sizeof (*v))) || !(v->id = strdup (o->id))
        || !(v->run = strdup (o->run)) || !(v->owner = strdup (o->owner))
        || !(v->envelope = strdup (o->envelope))
        || jt_map_put (f->resv, v->id, v, NULL) < 0) {
        jt_fold_resv_free (v);
        jt_map_destroy (f->resv, jt_fold_resv_free);
        f->resv = NULL;
        return;
    }
    v->gpus = o->gpus;
    v->earliest = o->earliest;
    v->created = o->created;
    v->activated = v->released = v->closed = v->drawn = -1;
}

int jt_ckpt_keep_history (jt_ledger_fold_t *f, jt_error_t *err)
{
    if (f->hist)
        return 0;
    if (!(f->hist = jt_map_create (0)) || !(f->resv = jt_map_create (0))) {
        jt_map_destroy (f->hist, NULL);
        f->hist = NULL;
        errno = ENOMEM;
        return jt_errprintf (err, "out of memory");
    }
    jt_map_each (f->leases, hist_cb, f);
    if (f->hist)
        jt_map_each (f->oresv, resv_hist_cb, f);
    if (!f->hist || !f->resv) {
        jt_map_destroy (f->resv, jt_fold_resv_free);
        f->resv = NULL;
        jt_map_destroy (f->hist, jt_fold_lease_free);
        f->hist = NULL;
        errno = ENOMEM;
        return jt_errprintf (err, "out of memory");
    }
    return 0;
}
