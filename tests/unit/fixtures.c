/*
 * fixtures.c - owns the helpers shared by the unit tests (see fixtures.h).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/labels.h"
#include "jobtree/timeutil.h"
#include "fixtures.h"
#include "prng.h"
#include "tap.h"

static void bail_diags (const char *what, const jt_diags_t *d)
{
    char buf[512];

    for (size_t i = 0; i < d->n; i++) {
        jt_diag_format (&d->v[i], buf, sizeof (buf));
        diag ("%s: %s", what, buf);
    }
    bail_out ("fixture %s is invalid", what);
}

char *fx_diags_text (const jt_diags_t *d)
{
    static char out[8192];
    size_t len = 0;

    out[0] = '\0';
    for (size_t i = 0; i < d->n && len + 2 < sizeof (out); i++) {
        len += (size_t) jt_diag_format (&d->v[i], out + len, sizeof (out) - len - 1);
        if (len + 1 < sizeof (out))
            out[len++] = '\n', out[len] = '\0';
    }
    return out;
}

/* The file name a kind of document is parsed as, and the library's parser,
 * writer and destructor of each kind, each called through its own type. */
static const char *doc_file (fx_doc_t k)
{
    return k == FX_RUN ? "r.json" : "s.json";
}

static void *doc_parse (fx_doc_t k, const char *file, const char *text, size_t n,
                        jt_diags_t *d)
{
    if (k == FX_RUN)
        return jt_run_parse_json (file, text, n, d);
    return jt_snapshot_parse_json (file, text, n, d);
}

static char *doc_to_json (fx_doc_t k, const void *p)
{
    return k == FX_RUN ? jt_run_to_json (p) : jt_snapshot_to_json (p);
}

static void doc_destroy (fx_doc_t k, void *p)
{
    if (k == FX_RUN)
        jt_run_destroy (p);
    else
        jt_snapshot_destroy (p);
}

/* fx_parse_run and fx_parse_snapshot: the document is kept in *out (a
 * void * the typed wrappers copy out) or destroyed. */
static const char *parse_doc (fx_doc_t k, const char *text, void **out)
{
    static char buf[4096];
    const char *what = k == FX_RUN ? "a run" : "a snapshot";
    jt_diags_t d;

    jt_diags_init (&d);
    void *p = doc_parse (k, doc_file (k), text, strlen (text), &d);
    snprintf (buf, sizeof (buf), "%s", fx_diags_text (&d));
    if (!p && d.n == 0)
        snprintf (buf, sizeof (buf), "NULL without a diagnostic");
    if (p && d.n)
        snprintf (buf, sizeof (buf), "%s AND diagnostics: %s", what, fx_diags_text (&d));
    jt_diags_free (&d);
    if (out)
        *out = p;
    else
        doc_destroy (k, p);
    return buf;
}

#define FX_PARSE_TYPED(name, type, kind)                                 \
    const char *name (const char *text, type **out)                      \
    {                                                                    \
        void *p;                                                         \
        const char *why = parse_doc (kind, text, out ? &p : NULL);       \
        if (out)                                                         \
            *out = p;                                                    \
        return why;                                                      \
    }

FX_PARSE_TYPED (fx_parse_run, jt_run_t, FX_RUN)
FX_PARSE_TYPED (fx_parse_snapshot, jt_snapshot_t, FX_SNAPSHOT)

size_t fx_truncations (fx_doc_t k, const char *text)
{
    size_t n = strlen (text), fails = 0;

    for (size_t i = 0; i + 1 < n; i++) {
        jt_diags_t d;
        jt_diags_init (&d);
        void *p = doc_parse (k, doc_file (k), text, i, &d);
        if (p || d.n == 0)
            fails++;
        doc_destroy (k, p);
        jt_diags_free (&d);
    }
    return fails;
}

size_t fx_round_trip (const char *buf, size_t n, void *arg)
{
    fx_doc_t k = *(const fx_doc_t *) arg;
    jt_diags_t d;
    size_t bad = 0;

    jt_diags_init (&d);
    void *p = doc_parse (k, doc_file (k), buf, n, &d);
    if ((p == NULL) != (d.n > 0))
        bad++;
    if (p) {
        char *a = doc_to_json (k, p);
        void *q = a ? doc_parse (k, "c", a, strlen (a), NULL) : NULL;
        char *b = q ? doc_to_json (k, q) : NULL;
        if (!b || strcmp (a, b))
            bad++;      /* whatever parses must round-trip */
        free (a);
        free (b);
        doc_destroy (k, q);
    }
    doc_destroy (k, p);
    jt_diags_free (&d);
    return bad;
}

size_t fx_corruptions (const char *text, fx_corrupt_f check, void *arg,
                       size_t *total)
{
    static const char subst[] = "\"{}[],:0-9.xe\\ \n";
    size_t n = strlen (text), bad = 0;
    char *buf = malloc (n + 1);

    if (!buf)
        bail_out ("out of memory");
    *total = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < sizeof (subst) - 1; k++) {
            if (text[i] == subst[k])
                continue;
            memcpy (buf, text, n + 1);
            buf[i] = subst[k];
            bad += check (buf, n, arg);
            (*total)++;
        }
    }
    free (buf);
    return bad;
}

jt_budgets_t *fx_budgets (const char *doc, ...)
{
    jt_budgets_t *b = jt_budgets_create ();
    jt_diags_t d;
    va_list ap;
    int i = 0;

    if (!b)
        bail_out ("out of memory");
    jt_diags_init (&d);
    va_start (ap, doc);
    for (const char *t = doc; t; t = va_arg (ap, const char *)) {
        char file[32];
        snprintf (file, sizeof (file), "budget%d.json", i++);
        if (jt_budgets_add_json (b, file, t, strlen (t), &d) < 0)
            bail_diags (file, &d);
    }
    va_end (ap);
    if (jt_budgets_finalize (b, &d) < 0)
        bail_diags ("budgets", &d);
    jt_diags_free (&d);
    return b;
}

jt_run_t *fx_run (const char *json)
{
    jt_diags_t d;
    jt_run_t *r;

    jt_diags_init (&d);
    if (!(r = jt_run_parse_json ("run.json", json, strlen (json), &d)))
        bail_diags ("run", &d);
    jt_diags_free (&d);
    return r;
}

int64_t fx_time (const char *s)
{
    jt_error_t err;
    int64_t t;

    if (jt_time_parse (s, &t, &err) < 0)
        bail_out ("time %s: %s", s, err.text);
    return t;
}

void fx_nodes (jt_snapshot_t *s, const char *prefix, int first, int count,
               const char *labels, int gpus, int used)
{
    jt_labels_t l = JT_LABELS_INIT;
    char *copy = strdup (labels), *save = NULL;
    jt_error_t err;

    if (!copy)
        bail_out ("out of memory");
    for (char *kv = strtok_r (copy, ",", &save); kv;
         kv = strtok_r (NULL, ",", &save)) {
        char *eq = strchr (kv, '=');
        if (!eq)
            bail_out ("label %s has no '='", kv);
        *eq = '\0';
        if (jt_labels_set (&l, kv, eq + 1) < 0)
            bail_out ("out of memory");
    }
    for (int i = 0; i < count; i++) {
        char name[64];
        snprintf (name, sizeof (name), "%s%02d", prefix, first + i);
        if (jt_snapshot_add_node (s, name, &l, "h100", gpus,
                                  i < used ? gpus : 0, JT_NODE_UP, &err) < 0)
            bail_out ("node %s: %s", name, err.text);
    }
    jt_labels_free (&l);
    free (copy);
}

jt_snapshot_t *fx_cluster (const char *spec)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    char *copy = strdup (spec), *save = NULL;

    if (!s || !copy)
        bail_out ("out of memory");
    for (char *e = strtok_r (copy, ";", &save); e; e = strtok_r (NULL, ";", &save)) {
        char prefix[16], prefix2[16], labels[256] = "";
        int first, last, busy = 0, n = 0;
        if (sscanf (e, " %15[a-z]%d-%15[a-z]%d %n", prefix, &first, prefix2, &last, &n) != 4
            || strcmp (prefix, prefix2) || first < 0 || last < first)
            bail_out ("fx_cluster: bad nodes in '%s' (want FIRST-LAST, e.g. a01-a04)", e);
        e += n;
        if (sscanf (e, "busy=%d %n", &busy, &n) == 1)
            e += n;
        if (sscanf (e, "%255s", labels) != 1)
            bail_out ("fx_cluster: no labels in '%s'", e);
        fx_nodes (s, prefix, first, last - first + 1, labels, 8, busy);
    }
    free (copy);
    return fx_finalize (s);
}

void fx_use (jt_usage_t *u, const jt_budgets_t *b, const char *spec)
{
    char env[64], owner[64], role[32];
    long long gpus;
    double hours;
    int n, at = 0;

    while (sscanf (spec + at, " %63[^: ]:%63[^: ]:%lld%n", env, owner, &gpus, &n) == 3) {
        const jt_envelope_t *e = jt_budgets_envelope (b, env);
        jt_role_t r = JT_ROLE_ACTIVE;
        at += n;
        hours = 0.0;
        if (sscanf (spec + at, ":%31[^: ]%n", role, &n) == 1) {
            at += n;
            if (jt_role_parse (role, &r) < 0)
                bail_out ("fx_use: unknown role %s", role);
            if (sscanf (spec + at, ":%lf%n", &hours, &n) == 1)
                at += n;
        }
        if (!e)
            bail_out ("fx_use: no envelope %s", env);
        jt_usage_add (u, e, owner, r, gpus, hours);
    }
    if (spec[at + strspn (spec + at, " ")])
        bail_out ("fx_use: bad entry at '%s' (want ENVELOPE:OWNER:GPUS[:ROLE[:HOURS]])",
                  spec + at);
}

void fx_node (jt_snapshot_t *s, const char *name, const char *features)
{
    jt_labels_t l = JT_LABELS_INIT;
    jt_error_t err;

    jt_labels_parse_features (&l, features);
    if (jt_snapshot_add_node (s, name, &l, "h100", 8, 0, JT_NODE_UP, &err) < 0)
        bail_out ("add %s: %s", name, err.text);
    jt_labels_free (&l);
}

static const char *pack_reason (jt_reason_t r)
{
    switch (r) {
    case JT_NO_DOMAIN_FITS:
        return "NoDomainFits";
    case JT_SPREAD_NO_DOMAIN:
        return "SingleDomainFull";
    case JT_NO_NODES:
        return "NoNodes";
    default:
        return "other";
    }
}

const char *fx_pack_text (jt_pack_view_t *v, const jt_snapshot_t *s,
                          const jt_pack_request_t *r, jt_placement_t *keep,
                          bool values)
{
    static char buf[1024];
    jt_placement_t p;
    jt_error_t err = { "" };
    int rc = jt_pack (v, r, &p, &err);

    if (rc < 0)
        snprintf (buf, sizeof (buf), "error: %s", err.text);
    else if (rc == 1)
        snprintf (buf, sizeof (buf), "None(%s): %s", pack_reason (p.reason),
                  p.detail);
    else {
        char *d = jt_placement_dump (&p, s);
        size_t at = (size_t) snprintf (buf, sizeof (buf), "%s", d);

        free (d);
        for (size_t i = 0; values && i < p.ngroups && at < sizeof (buf); i++)
            at += (size_t) snprintf (buf + at, sizeof (buf) - at, " {%s}",
                                     p.groups[i].value ? p.groups[i].value : "-");
    }
    if (keep)
        *keep = p;
    else
        jt_placement_free (&p);
    return buf;
}

jt_snapshot_t *fx_finalize (jt_snapshot_t *s)
{
    jt_error_t err;

    if (jt_snapshot_finalize (s, &err) < 0)
        bail_out ("snapshot: %s", err.text);
    return s;
}

const char *fx_plan (const jt_budgets_t *b, const jt_snapshot_t *s,
                     const jt_usage_t *u, const jt_run_t *r,
                     jt_pack_policy_t policy, jt_plan_t *out)
{
    static char buf[8192];
    jt_plan_opts_t opts = { .policy = policy };
    jt_plan_t p;
    jt_error_t err;

    if (jt_plan_run (b, s, u, r, fx_time (FX_NOW), &opts, &p, &err) < 0) {
        snprintf (buf, sizeof (buf), "error: %s", err.text);
        return buf;
    }
    char *d = jt_plan_dump (&p, s);
    snprintf (buf, sizeof (buf), "%s", d ? d : "(null)");
    free (d);
    if (out)
        *out = p;
    else
        jt_plan_free (&p);
    return buf;
}

/* ---- random cases for property tests ---- */

static uint64_t rng_state = 1;

void fx_seed (uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
}

uint64_t fx_rand (void)
{
    return prng_next (&rng_state);
}

int fx_pick (int n)
{
    return prng_below (&rng_state, n);
}

static const char *regions[] = { "west", "east" };
static const char *owners[] = { "org", "alpha", "beta", "gamma", "delta" };

jt_budgets_t *fx_random_budgets (void)
{
    jt_budgets_t *b = jt_budgets_create ();
    jt_diags_t d;
    char doc[4096];

    jt_diags_init (&d);
    for (int o = 0; o < 5; o++) {
        size_t len = 0;
        len += (size_t) snprintf (doc + len, sizeof (doc) - len,
                                  "{ \"owner\": \"%s\"%s%s%s, \"envelopes\": [",
                                  owners[o], o ? ", \"parent\": \"" : "",
                                  o == 0 ? "" : o == 4 ? "gamma" : "org",
                                  o ? "\"" : "");
        int ne = fx_pick (3);
        for (int e = 0; e < ne; e++) {
            int c = 8 * (1 + fx_pick (16)), sel = fx_pick (3);
            char lend[128] = "";
            if (fx_pick (3) == 0)
                snprintf (lend, sizeof (lend), ", \"lending\": { \"allow\": true,"
                          " \"to\": [\"*\"], \"maxConcurrency\": %d }",
                          8 * (1 + fx_pick (c / 8)));
            len += (size_t) snprintf (
                doc + len, sizeof (doc) - len,
                "%s{ \"name\": \"%s-%d\", \"flavor\": \"h100\", \"selector\": {"
                " %s%s%s }, " FX_WINDOW ", \"concurrency\": %d%s%s }",
                e ? ", " : "", owners[o], e, sel < 2 ? "\"region\": \"" : "",
                sel < 2 ? regions[sel] : "", sel < 2 ? "\"" : "", c,
                fx_pick (4) == 0 ? ", \"maxGPUHours\": 600" : "", lend);
        }
        len += (size_t) snprintf (doc + len, sizeof (doc) - len, "]");
        if (ne == 2 && fx_pick (2) == 0)
            len += (size_t) snprintf (doc + len, sizeof (doc) - len,
                                      ", \"aggregateCaps\": [ { \"name\": \"%s-cap\","
                                      " \"flavor\": \"h100\", \"envelopes\": ["
                                      "\"%s-0\", \"%s-1\"], \"maxConcurrency\": %d } ]",
                                      owners[o], owners[o], owners[o],
                                      8 * (1 + fx_pick (20)));
        snprintf (doc + len, sizeof (doc) - len, " }");
        if (jt_budgets_add_json (b, owners[o], doc, strlen (doc), &d) < 0) {
            diag ("%s", doc);
            bail_out ("random budget %s is invalid", owners[o]);
        }
    }
    if (jt_budgets_finalize (b, &d) < 0)
        bail_out ("random budgets do not finalize");
    jt_diags_free (&d);
    return b;
}

jt_snapshot_t *fx_random_cluster (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    int nd = 2 + fx_pick (4);

    for (int d = 0; d < nd; d++) {
        char labels[128], prefix[8];
        snprintf (labels, sizeof (labels), "region=%s,fabric.domain=D%d",
                  regions[d % 2], d);
        snprintf (prefix, sizeof (prefix), "n%d", d);
        int n = 1 + fx_pick (8);
        fx_nodes (s, prefix, 1, n, labels, 8, fx_pick (n + 1));
    }
    return fx_finalize (s);
}

jt_run_t *fx_random_run (void)
{
    char doc[512];
    int total = 8 * (1 + fx_pick (12)), g = fx_pick (3) ? 8 * (1 + fx_pick (4)) : 0;
    bool borrow = fx_pick (2);

    snprintf (doc, sizeof (doc),
              "{ \"owner\": \"%s\", \"resources\": { \"gpuType\": \"h100\","
              " \"totalGPUs\": %d }, \"locality\": { \"groupGPUs\": %d,"
              " \"allowCrossGroupSpread\": %s }, \"runtime\": { \"timeLimit\":"
              " \"%dh\" }%s%s }",
              owners[fx_pick (5)], total, g ? g : 8, fx_pick (3) ? "true" : "false",
              1 + fx_pick (8), borrow ? ", \"funding\": { \"allowBorrow\": true" : "",
              borrow ? (fx_pick (2) ? ", \"maxBorrowGPUs\": 16 }" : " }") : "");
    if (!g) {   /* soft group: drop locality */
        snprintf (doc, sizeof (doc),
                  "{ \"owner\": \"%s\", \"resources\": { \"gpuType\": \"h100\","
                  " \"totalGPUs\": %d }%s }", owners[fx_pick (5)], total,
                  borrow ? ", \"funding\": { \"allowBorrow\": true }" : "");
    }
    return fx_run (doc);
}

/* See fixtures.h. */
bool fx_within_bounds (const jt_budgets_t *b, const jt_usage_t *u,
                           const jt_run_t *r, const jt_cover_seg_t *segs,
                           size_t nsegs)
{
    int64_t *ch = calloc (b->nenv + 1, sizeof (*ch));
    int64_t *lent = calloc (b->nenv + 1, sizeof (*lent));
    double hpg = jt_run_gpu_hours (r, 1);
    bool okb = true;

    for (size_t i = 0; i < nsegs; i++) {
        ch[segs[i].env->id] += segs[i].gpus;
        if (segs[i].source == JT_SRC_SPONSOR)
            lent[segs[i].env->id] += segs[i].gpus;
    }
    for (size_t e = 0; e < b->nenv; e++) {
        const jt_envelope_t *env = b->env[e];
        if (!ch[e])
            continue;
        if (u->active[e] + ch[e] > env->concurrency
            || u->used_hours[e] + (double) ch[e] * hpg
               > jt_envelope_gpu_hours_cap (env) + 1e-6)
            okb = false;
        if (lent[e] && (!jt_envelope_lends_to (env, r->owner)
                        || (env->lending.max_concurrency >= 0
                            && u->borrowed_active[e] + lent[e]
                               > env->lending.max_concurrency)))
            okb = false;
    }
    for (size_t k = 0; k < b->ncaps; k++) {
        const jt_aggcap_t *a = b->caps[k];
        int64_t sum = 0, add = 0;
        for (size_t j = 0; j < a->nenvelopes; j++) {
            sum += u->active[a->env_ids[j]] + ch[a->env_ids[j]];
            add += ch[a->env_ids[j]];
        }
        if (add && sum > a->max_concurrency)
            okb = false;
    }
    free (ch);
    free (lent);
    return okb;
}
