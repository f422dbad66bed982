/*
 * ledger_checkpoint_read.c - reading a checkpoint's state text
 * (ledger_checkpoint_restore.c reads it section by section): the readers
 * that name where a problem is ("checkpoint part K: SECTION[I].field":
 * known keys, strings, range-checked integers, arrays) and the section the
 * reports need (usage per owner and envelope, ledger_fold_report.c's: read,
 * and checked against the rest of the state).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "jobtree/ledger.h"
#include "ledger_checkpoint_int.h"
#include "ledger_fold.h"
#include "util/jsonutil.h"

/* active, borrowed and peak GPUs of an envelope: a sum of open leases */
#define ACTIVE_MAX (INT64_C (1) << 50)

int jt_ckpt_bad (struct jt_ckpt_rd *r, const char *key, const char *fmt, ...)
{
    char m[200];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (m, sizeof (m), fmt, ap);
    va_end (ap);
    return jt_errprintf (r->err, "%s%s%s: %s", r->where, key ? "." : "", key ? key : "",
                         m);
}

int jt_ckpt_rd_int (struct jt_ckpt_rd *r, json_object *o, const char *key, int64_t lo,
                    int64_t hi, int64_t *out)
{
    jt_error_t e = { "" };
    if (jt_json_get_int (o, key, true, out, &e) < 0)
        return jt_ckpt_bad (r, NULL, "%s", e.text);
    if (*out < lo || *out > hi)
        return jt_ckpt_bad (r, key, "%" PRId64 " out of range [%" PRId64 ", %" PRId64 "]",
                            *out, lo, hi);
    return 0;
}

int jt_ckpt_rd_str (struct jt_ckpt_rd *r, json_object *o, const char *key, bool req,
                    bool nonempty, char **out)
{
    jt_error_t e = { "" };
    if (jt_json_get_str (o, key, req, out, &e) < 0)
        return jt_ckpt_bad (r, NULL, "%s", e.text);
    if (nonempty && *out && !**out)
        return jt_ckpt_bad (r, key, "empty");
    return 0;
}

int jt_ckpt_rd_keys (struct jt_ckpt_rd *r, json_object *o, const char *const *keys)
{
    if (!json_object_is_type (o, json_type_object))
        return jt_ckpt_bad (r, NULL, "expected an object");
    json_object_object_foreach (o, k, v)
    {
        (void) v;
        const char *const *p = keys;
        while (*p && strcmp (*p, k))
            p++;
        if (!*p)
            return jt_ckpt_bad (r, k, "unknown key");
    }
    return 0;
}

json_object *jt_ckpt_rd_array (struct jt_ckpt_rd *r, json_object *o, const char *key)
{
    json_object *a;
    if (!json_object_object_get_ex (o, key, &a)
        || !json_object_is_type (a, json_type_array)) {
        jt_ckpt_bad (r, key, "expected an array");
        return NULL;
    }
    return a;
}

static const char *const k_usage[] = { "resvClosedUntil", "firstStart", "groups", NULL };
static const char *const k_group[] = { "owner",        "envelope", "leases", "gpuS",
                                       "borrowedGpuS", "last",     "open",   "peak",
                                       "ordered",      NULL };
/* The usage section (optional: a checkpoint written by a fold that did
 * not know it has none, and the fold restored does not know it either). */
int jt_ckpt_rd_usage (struct jt_ckpt_rd *r, jt_ledger_fold_t *f, json_object *st)
{
    json_object *u, *a, *h;
    size_t base = strlen (r->where);
    char *prev = NULL;
    int64_t rcu, fs;

    if (!json_object_object_get_ex (st, "usage", &u)) {
        f->usage_known = false;
        return 0;
    }
    snprintf (r->where + base, sizeof (r->where) - base, "usage");
    if (jt_ckpt_rd_keys (r, u, k_usage) < 0
        || jt_ckpt_rd_int (r, u, "resvClosedUntil", 0, JT_EV_TIME_MAX, &rcu) < 0
        || jt_ckpt_rd_int (r, u, "firstStart", -1, JT_EV_TIME_MAX, &fs) < 0
        || !(a = jt_ckpt_rd_array (r, u, "groups")))
        return -1;
    f->resv_closed_until = rcu;
    f->first_start = fs;
    for (size_t i = 0; i < json_object_array_length (a); i++) {
        json_object *o = json_object_array_get_idx (a, i);
        char *owner = NULL, *env = NULL;
        int64_t v[6];
        snprintf (r->where + base, sizeof (r->where) - base, "usage.groups[%zu]", i);
        if (jt_ckpt_rd_keys (r, o, k_group) < 0
            || jt_ckpt_rd_str (r, o, "owner", true, true, &owner) < 0)
            return -1;
        if (jt_ckpt_rd_str (r, o, "envelope", true, true, &env) < 0) {
            free (owner);
            return -1;
        }
        /* in the order of the fold's keys: owner, 0x1f, envelope (strcmp) */
        char *key = NULL;
        if (asprintf (&key, "%s\x1f%s", owner, env) < 0) {
            free (owner);
            free (env);
            return jt_ckpt_bad (r, NULL, "out of memory");
        }
        bool sorted = !prev || strcmp (prev, key) < 0;
        free (prev);
        prev = key;
        struct usage *g = NULL;
        int rc = 0;
        if (!sorted)
            rc = jt_ckpt_bad (r, "envelope",
                              "not after the previous owner and envelope (sorted, "
                              "distinct)");
        else if (!jt_map_get (f->envs, env))
            rc = jt_ckpt_bad (r, "envelope", "%s is not among the envelopes", env);
        else if (!(g = jt_fold_usage_get (f, owner, env)))
            rc = jt_ckpt_bad (r, NULL, "out of memory");
        free (owner);
        free (env);
        if (rc < 0) {
            free (prev);
            return -1;
        }
        if (jt_ckpt_rd_int (r, o, "leases", 0, (int64_t) f->ends, &v[0]) < 0
            || jt_ckpt_rd_int (r, o, "gpuS", 0, INT64_MAX - 1, &v[1]) < 0
            || jt_ckpt_rd_int (r, o, "borrowedGpuS", 0, v[1], &v[2]) < 0
            || jt_ckpt_rd_int (r, o, "last", -1, JT_EV_TIME_MAX, &v[3]) < 0
            || jt_ckpt_rd_int (r, o, "open", 0, ACTIVE_MAX, &v[4]) < 0
            || jt_ckpt_rd_int (r, o, "peak", 0, ACTIVE_MAX, &v[5]) < 0) {
            free (prev);
            return -1;
        }
        if (!json_object_object_get_ex (o, "ordered", &h)
            || !json_object_is_type (h, json_type_boolean)) {
            free (prev);
            return jt_ckpt_bad (r, "ordered", "expected true or false");
        }
        g->leases = v[0];
        g->gpu_s = (double) v[1];
        g->borrowed_gpu_s = (double) v[2];
        g->last = v[3];
        g->cur = v[4];
        g->peak = v[5];
        g->ordered = json_object_get_boolean (h);
    }
    free (prev);
    r->where[base] = 0;
    return 0;
}

/* The usage section agrees with the rest: each group's open GPUs are its
 * open leases' (which start no earlier than firstStart, nor after the
 * group's last instant while it is ordered), its closed leases add up to
 * the ends counted, and per envelope its groups' GPU-seconds to the
 * envelope's closed ones. */
int jt_ckpt_usage_check (struct jt_ckpt_rd *r, jt_ledger_fold_t *f,
                         const struct lease *const *open, size_t nopen)
{
    const __int128 exact = (__int128) 1 << 53;
    __int128 *gs = calloc (f->nenv ? f->nenv : 1, sizeof (*gs));
    __int128 *bgs = calloc (f->nenv ? f->nenv : 1, sizeof (*bgs));
    const char **keys = NULL;
    size_t n = 0, i;
    int64_t leases = 0;
    int rc = -1;

    if (!gs || !bgs) {
        jt_ckpt_bad (r, NULL, "out of memory");
        goto out;
    }
    for (i = 0; i < nopen; i++) { /* take each open lease from its group */
        const struct lease *l = open[i];
        struct usage *g = jt_fold_usage_find (f, l->owner, l->envelope);
        if (!g) {
            jt_ckpt_bad (r, NULL,
                         "usage: open lease %s has no group of its owner and envelope",
                         l->id);
            break;
        }
        if (l->start < f->first_start || (g->ordered && l->start > g->last)) {
            jt_ckpt_bad (r, NULL,
                         "usage: open lease %s starts before firstStart or after its "
                         "group's last instant",
                         l->id);
            break;
        }
        g->cur -= l->gpus;
    }
    size_t taken = i;
    if (taken == nopen) {
        keys = jt_map_sorted_keys (f->usage, &n);
        bool listed = keys || !n;
        if (!listed)
            jt_ckpt_bad (r, NULL, "out of memory");
        for (i = 0; listed && i < n; i++) {
            const struct usage *g = jt_map_get (f->usage, keys[i]);
            const struct env *e = jt_map_get (f->envs, g->envelope);
            if (g->cur) {
                jt_ckpt_bad (
                    r, NULL,
                    "usage: %s on %s: open is not what its open leases add up to",
                    g->owner, g->envelope);
                break;
            }
            leases += g->leases;
            gs[e->id] += (__int128) g->gpu_s;
            bgs[e->id] += (__int128) g->borrowed_gpu_s;
        }
        if (listed && i == n && (uint64_t) leases != f->ends)
            jt_ckpt_bad (r, NULL,
                         "usage: %" PRId64 " closed leases in its groups, but %" PRIu64
                         " ends",
                         leases, f->ends);
        else if (listed && i == n) {
            for (i = 0; i < f->nenv; i++) {
                const struct env *e = f->env_v[i];
                if ((gs[i] < exact && (double) gs[i] != e->closed_s)
                    || (bgs[i] < exact && (double) bgs[i] != e->closed_borrowed_s)) {
                    jt_ckpt_bad (
                        r, NULL,
                        "usage: envelope %s: its groups' GPU-seconds are not its "
                        "closed ones",
                        e->name);
                    break;
                }
            }
            rc = i == f->nenv ? 0 : -1;
        }
    }
    for (i = 0; i < taken; i++) { /* and give them back */
        const struct lease *l = open[i];
        jt_fold_usage_find (f, l->owner, l->envelope)->cur += l->gpus;
    }
out:
    free (keys);
    free (gs);
    free (bgs);
    return rc;
}
