/*
 * run.c - a Run: create/destroy, well-formedness (calculus section 3 and
 * DESIGN decision 2), compilation into groups (decision 1: the last group
 * is short), GPU-hours, and the canonical JSON text. Parsing is run_json.c.
 * It owns a run's defaults (jt_run_init) and the malleable step's default
 * (jt_run_step_gpus); the JSON and option parsers use those.
 *
 * DESIGN: the checks are written once (jt_run_check) and report each
 * problem as (JSON path, message); jt_run_validate keeps the first one,
 * jt_run_parse_json locates every one of them in the document, and the
 * admission step (admit.c) asks for the sbatch options' words.
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

#include "jobtree/run.h"
#include "util/jsonutil.h"
#include "run_int.h"

void jt_run_init (jt_run_t *r)
{
    memset (r, 0, sizeof (*r));
    r->cross_group_spread = true;
    r->max_borrow_gpus = -1;    /* JT_UNSET (budget.h) */
    r->step_gpus = 1;
}

void jt_run_clear (jt_run_t *r)
{
    int saved = errno;

    if (!r)
        return;
    free (r->id);
    free (r->owner);
    free (r->flavor);
    for (size_t i = 0; i < r->nsponsors; i++)
        free (r->sponsors[i]);
    free (r->sponsors);
    free (r->group_by);
    free (r->spread_level);
    jt_constraints_free (&r->constraints);
    jt_run_init (r);
    errno = saved;
}

jt_run_t *jt_run_create (void)
{
    jt_run_t *r = malloc (sizeof (*r));

    if (r)
        jt_run_init (r);
    return r;
}

void jt_run_destroy (jt_run_t *r)
{
    int saved = errno;

    if (!r)
        return;
    jt_run_clear (r);
    free (r);
    errno = saved;
}

int64_t jt_run_step_gpus (const jt_run_t *r, int64_t gpus_per_node)
{
    if (r->step_given)
        return r->step_gpus;
    if (r->group_gpus > 0)
        return r->group_gpus;
    return gpus_per_node > 0 ? gpus_per_node : 1;
}

/* "use 8 or 16": the multiples of m around x. */
static void nearest (char *buf, size_t len, int64_t x, int64_t m)
{
    int64_t lo = x / m * m, hi = lo + m;

    if (lo > 0)
        snprintf (buf, len, "use %lld or %lld", (long long) lo, (long long) hi);
    else
        snprintf (buf, len, "use %lld", (long long) hi);
}

/* Whether x, a count of GPUs a user chose, is in range: at least lo (1;
 * 0 where 0 means absent, the message naming 1 all the same; INT64_MIN
 * where another rule bounds it below) and at most JT_RUN_GPUS_MAX. When
 * it is not, says why in buf. */
static bool gpus_ok (int64_t x, int64_t lo, char *buf, size_t len)
{
    if (x < lo)
        snprintf (buf, len, "must be at least 1, got %lld", (long long) x);
    else if (x > JT_RUN_GPUS_MAX)
        snprintf (buf, len, "%lld GPUs is more than a run may ask for (%lld)",
                  (long long) x, (long long) JT_RUN_GPUS_MAX);
    else
        return true;
    return false;
}

#define REPORT(...) \
    do { \
        snprintf (msg, sizeof (msg), __VA_ARGS__); \
        report (arg, path, msg); \
        n++; \
    } while (0)

int jt_run_check (const jt_run_t *r, int64_t gpn, jt_run_words_t words,
                  jt_run_report_f report, void *arg)
{
    char msg[512], hint[64], why[128];
    const char *path;
    const char *fl = r->flavor ? r->flavor : "?";
    int n = 0;

    path = "owner";
    if (!r->owner || !*r->owner)
        REPORT ("a run needs an owner (the Slurm account)");
    path = "resources.gpuType";
    if (!r->flavor || !*r->flavor)
        REPORT ("a run needs a GPU type (e.g. \"h100\")");
    path = "resources.totalGPUs";
    if (!gpus_ok (r->total_gpus, 1, why, sizeof (why)))
        REPORT ("%s", why);
    path = "locality.groupGPUs";
    if (!gpus_ok (r->group_gpus, 0, why, sizeof (why)))
        REPORT ("%s", why);
    else if (r->group_gpus > 0 && gpn > 0 && r->group_gpus % gpn) {
        if (words == JT_RUN_WORDS_OPTIONS) {
            path = "--group-gpus";
            REPORT ("--group-gpus=%lld is not a multiple of the %lld GPUs per %s "
                    "node, e.g. --group-gpus=%lld", (long long) r->group_gpus,
                    (long long) gpn, fl, (long long) ((r->group_gpus / gpn + 1) * gpn));
        } else {
            nearest (hint, sizeof (hint), r->group_gpus, gpn);
            REPORT ("groupGPUs=%lld is not a multiple of the %lld GPUs per %s node; %s",
                    (long long) r->group_gpus, (long long) gpn, fl, hint);
        }
    } else if (r->group_gpus > 0 && gpn > 0 && r->total_gpus > 0
               && r->total_gpus % gpn) {
        /* groups are whole nodes, the short last group included */
        path = "resources.totalGPUs";
        nearest (hint, sizeof (hint), r->total_gpus, gpn);
        REPORT ("totalGPUs=%lld is not a multiple of the %lld GPUs per %s node, so "
                "the last group would not be whole nodes; %s",
                (long long) r->total_gpus, (long long) gpn, fl, hint);
    }
    if (r->malleable) {
        int64_t step = jt_run_step_gpus (r, gpn);
        int bad = n;
        path = "malleable.minTotalGPUs";
        if (!gpus_ok (r->min_gpus, 1, why, sizeof (why)))
            REPORT ("%s", why);
        path = "malleable.maxTotalGPUs";
        if (!gpus_ok (r->max_gpus, INT64_MIN, why, sizeof (why)))
            REPORT ("%s", why);
        else if (r->max_gpus < r->min_gpus)
            REPORT ("maxTotalGPUs=%lld is below minTotalGPUs=%lld",
                    (long long) r->max_gpus, (long long) r->min_gpus);
        path = "malleable.stepGPUs";
        if (!gpus_ok (step, 1, why, sizeof (why)))
            REPORT ("%s", why);
        else if (r->step_given && gpn > 0 && step % gpn) {
            nearest (hint, sizeof (hint), step, gpn);
            REPORT ("stepGPUs=%lld is not a multiple of the %lld GPUs per %s node "
                    "(a run grows and shrinks by whole nodes); %s", (long long) step,
                    (long long) gpn, fl, hint);
        }
        if (n == bad && (r->max_gpus - r->min_gpus) % step) {
            path = "malleable.maxTotalGPUs";
            REPORT ("maxTotalGPUs - minTotalGPUs = %lld - %lld is not a multiple of "
                    "the step %lld", (long long) r->max_gpus, (long long) r->min_gpus,
                    (long long) step);
        }
        if (n == bad && r->total_gpus >= 1) {
            path = "resources.totalGPUs";
            if ((r->total_gpus < r->min_gpus || r->total_gpus > r->max_gpus)
                && words == JT_RUN_WORDS_OPTIONS) {
                /* min and gpn are at most 2^20 here: no overflow */
                path = "--malleable";
                if (gpn > 0)
                    snprintf (hint, sizeof (hint), "-N %lld --gres=gpu:",
                              (long long) ((r->min_gpus + gpn - 1) / gpn));
                else
                    snprintf (hint, sizeof (hint), "--gpus=");
                REPORT ("--malleable=%lld:%lld: the job asks for %lld GPUs, outside "
                        "MIN..MAX; ask for %lld to %lld GPUs, e.g. %s%s:%lld",
                        (long long) r->min_gpus, (long long) r->max_gpus,
                        (long long) r->total_gpus, (long long) r->min_gpus,
                        (long long) r->max_gpus, hint, fl,
                        (long long) (gpn > 0 ? gpn : r->min_gpus));
            } else if (r->total_gpus < r->min_gpus || r->total_gpus > r->max_gpus)
                REPORT ("totalGPUs=%lld is outside the malleable range [%lld, %lld]",
                        (long long) r->total_gpus, (long long) r->min_gpus,
                        (long long) r->max_gpus);
            else if ((r->total_gpus - r->min_gpus) % step)
                REPORT ("totalGPUs=%lld is not minTotalGPUs=%lld plus a multiple of "
                        "the step %lld", (long long) r->total_gpus,
                        (long long) r->min_gpus, (long long) step);
        }
    }
    path = "sparesPerGroup";
    if (r->spares_per_group < 0)
        REPORT ("must be at least 0, got %lld", (long long) r->spares_per_group);
    else if (r->spares_per_group > JT_RUN_SPARES_MAX)
        REPORT ("%lld spare nodes per group is more than %d",
                (long long) r->spares_per_group, JT_RUN_SPARES_MAX);
    path = "runtime.checkpoint";
    if (r->checkpoint_s < 0)
        REPORT ("must be at least 0, got %lld", (long long) r->checkpoint_s);
    path = "runtime.timeLimit";
    if (r->time_limit_s < 0)
        REPORT ("must be at least 0, got %lld", (long long) r->time_limit_s);
    path = "funding.maxBorrowGPUs";
    if (r->max_borrow_gpus < -1)
        REPORT ("must be at least 0, got %lld", (long long) r->max_borrow_gpus);
    else if (r->max_borrow_gpus >= 0 && !r->allow_borrow)
        REPORT ("maxBorrowGPUs is given but allowBorrow is false; remove it or set "
                "allowBorrow to true");
    path = "funding.sponsors";
    for (size_t i = 0; i < r->nsponsors; i++)
        if (!r->sponsors[i] || !*r->sponsors[i]) {
            REPORT ("sponsor names must not be empty");
            break;
        }
    if (r->nsponsors > 0 && !r->allow_borrow)
        REPORT ("sponsors are given but allowBorrow is false; remove them or set "
                "allowBorrow to true");
    path = words == JT_RUN_WORDS_OPTIONS ? "--group-by" : "locality.groupBy";
    if (r->group_by && !jt_label_key_ok (r->group_by))
        REPORT ("'%s' is not a label name (1 to %d letters, digits or . _ - : /,"
                " starting with a letter or digit), e.g. rack", r->group_by,
                JT_LABEL_KEY_MAX);
    path = words == JT_RUN_WORDS_OPTIONS ? "--cross-group-spread"
                                         : "locality.spreadLevel";
    if (r->spread_level && !jt_label_key_ok (r->spread_level))
        REPORT ("'%s' is not a fabric level name (letters, digits or . _ - : /),"
                " e.g. block", r->spread_level);
    else if (r->spread_level && r->cross_group_spread)
        REPORT ("a spread level (%s) keeps the whole run inside one %s; it goes"
                " with spread off: --cross-group-spread=no:%s", r->spread_level,
                r->spread_level, r->spread_level);
    path = words == JT_RUN_WORDS_OPTIONS ? "--conformance" : "locality.conformance";
    if (r->conformance_strict && r->group_by)
        REPORT ("strict conformance groups each group by its conformance "
                "fingerprint and cannot be combined with a group-by label (%s) "
                "yet; drop one of them", r->group_by);
    path = words == JT_RUN_WORDS_OPTIONS ? "--node-constraint" : "nodeConstraints";
    if (r->constraints.n > JT_CONS_MAX)
        REPORT ("%zu constraints is more than %d", r->constraints.n, JT_CONS_MAX);
    return n;
}

struct first {
    jt_error_t *err;
    bool set;
};

static void keep_first (void *arg, const char *path, const char *msg)
{
    struct first *f = arg;
    if (!f->set)
        jt_errprintf (f->err, "%s: %s", path, msg);
    f->set = true;
}

/* Returns 0, or -1 with err naming the field, the numbers and the fix. */
int jt_run_validate (const jt_run_t *r, int64_t gpus_per_node, jt_error_t *err)
{
    struct first f = { err, false };

    if (!r)
        return jt_errprintf (err, "no run");
    return jt_run_check (r, gpus_per_node, JT_RUN_WORDS_JSON, keep_first, &f) ? -1
                                                                           : 0;
}

/* Returns 0, or -1 (err set). */
int jt_run_compile (const jt_run_t *r, int64_t total, jt_groups_t *out,
                    jt_error_t *err)
{
    int64_t g = r->group_gpus;
    size_t n;

    memset (out, 0, sizeof (*out));
    if (total < 1 || total > JT_RUN_GPUS_MAX)
        return jt_errprintf (err, "cannot compile %lld GPUs: 1 to %lld",
                             (long long) total, (long long) JT_RUN_GPUS_MAX);
    if (g < 0)
        return jt_errprintf (err, "groupGPUs must be at least 1, got %lld",
                             (long long) g);
    n = g > 0 ? (size_t) ((total + g - 1) / g) : 1;
    if (!(out->gpus = calloc (n, sizeof (int64_t))))
        return jt_errprintf (err, "out of memory");
    out->n = n;
    out->soft = g == 0;
    for (size_t i = 0; i < n; i++)
        out->gpus[i] = g > 0 ? g : total;
    if (g > 0)
        out->gpus[n - 1] = total - (int64_t) (n - 1) * g;
    return 0;
}

void jt_groups_free (jt_groups_t *g)
{
    if (!g)
        return;
    free (g->gpus);
    g->gpus = NULL;
    g->n = 0;
}

int64_t jt_run_nodes (const jt_run_t *r, int64_t total, int64_t gpus_per_node)
{
    int64_t g, n, last, spares, gpn = gpus_per_node;

    if (!r || total < 1 || total > JT_RUN_GPUS_MAX || gpn < 1)
        return 0;
    g = r->group_gpus > 0 && r->group_gpus < total ? r->group_gpus : total;
    n = (total + g - 1) / g;
    last = total - (n - 1) * g;
    spares = r->spares_per_group > 0 && r->spares_per_group < (1 << 20)
             ? r->spares_per_group : 0;
    return (n - 1) * ((g + gpn - 1) / gpn) + (last + gpn - 1) / gpn + n * spares;
}

double jt_run_gpu_hours (const jt_run_t *r, int64_t gpus)
{
    int64_t t = r->time_limit_s > 0 ? r->time_limit_s : JT_RUN_DEFAULT_TIME_LIMIT_S;
    return (double) gpus * (double) t / 3600.0;
}

/* Canonical text: fixed key order, defaults left out, durations in
 * seconds, so that equal runs give equal bytes. */
char *jt_run_to_json (const jt_run_t *r)
{
    json_object *o = json_object_new_object (), *x;
    char *s = NULL;

    if (!o)
        return NULL;
    if (r->id)
        json_object_object_add (o, "id", json_object_new_string (r->id));
    json_object_object_add (o, "owner", json_object_new_string (r->owner ? r->owner
                                                                          : ""));
    x = json_object_new_object ();
    json_object_object_add (x, "gpuType", json_object_new_string (r->flavor ? r->flavor
                                                                            : ""));
    json_object_object_add (x, "totalGPUs", json_object_new_int64 (r->total_gpus));
    json_object_object_add (o, "resources", x);
    if (r->group_gpus > 0 || !r->cross_group_spread || r->group_by
        || r->conformance_strict) {
        x = json_object_new_object ();
        if (r->group_gpus > 0)
            json_object_object_add (x, "groupGPUs", json_object_new_int64 (r->group_gpus));
        json_object_object_add (x, "allowCrossGroupSpread",
                                json_object_new_boolean (r->cross_group_spread));
        if (r->spread_level)
            json_object_object_add (x, "spreadLevel",
                                    json_object_new_string (r->spread_level));
        if (r->group_by)
            json_object_object_add (x, "groupBy", json_object_new_string (r->group_by));
        if (r->conformance_strict)
            json_object_object_add (x, "conformance", json_object_new_string ("strict"));
        json_object_object_add (o, "locality", x);
    }
    if (r->constraints.n > 0) {
        x = json_object_new_array ();
        for (size_t i = 0; i < r->constraints.n; i++) {
            char c[JT_CONS_EXPR_MAX + 8];
            jt_constraint_format (&r->constraints.v[i], c, sizeof (c));
            json_object_array_add (x, json_object_new_string (c));
        }
        json_object_object_add (o, "nodeConstraints", x);
    }
    if (r->malleable) {
        x = json_object_new_object ();
        json_object_object_add (x, "minTotalGPUs", json_object_new_int64 (r->min_gpus));
        json_object_object_add (x, "maxTotalGPUs", json_object_new_int64 (r->max_gpus));
        if (r->step_given)
            json_object_object_add (x, "stepGPUs", json_object_new_int64 (r->step_gpus));
        json_object_object_add (o, "malleable", x);
    }
    if (r->spares_per_group > 0)
        json_object_object_add (o, "sparesPerGroup",
                                json_object_new_int64 (r->spares_per_group));
    if (r->checkpoint_s > 0 || r->time_limit_s > 0) {
        x = json_object_new_object ();
        if (r->checkpoint_s > 0)
            json_object_object_add (x, "checkpoint",
                                    json_object_new_int64 (r->checkpoint_s));
        if (r->time_limit_s > 0)
            json_object_object_add (x, "timeLimit",
                                    json_object_new_int64 (r->time_limit_s));
        json_object_object_add (o, "runtime", x);
    }
    if (r->allow_borrow || r->max_borrow_gpus >= 0 || r->nsponsors > 0) {
        x = json_object_new_object ();
        json_object_object_add (x, "allowBorrow",
                                json_object_new_boolean (r->allow_borrow));
        if (r->max_borrow_gpus >= 0)
            json_object_object_add (x, "maxBorrowGPUs",
                                    json_object_new_int64 (r->max_borrow_gpus));
        if (r->nsponsors > 0) {
            json_object *a = json_object_new_array ();
            for (size_t i = 0; i < r->nsponsors; i++)
                json_object_array_add (a, json_object_new_string (r->sponsors[i]
                                                                  ? r->sponsors[i]
                                                                  : ""));
            json_object_object_add (x, "sponsors", a);
        }
        json_object_object_add (o, "funding", x);
    }
    s = jt_json_dump (o);
    json_object_put (o);
    return s;
}
