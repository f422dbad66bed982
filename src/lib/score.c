/*
 * score.c - the composite ordering score (see jobtree/score.h): the nine
 * factors, the weight profiles and their jobtree.conf keys, the inputs a
 * run's factors take from a snapshot and the budgets (score_inputs.c), and
 * the weighted sum.
 *
 * The score only orders the queue (DESIGN decision 11); nothing in
 * activation reads it.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobtree/score.h"
#include "jobtree/timeutil.h"
#include "util/strbuf.h"

static const char *const factor_names[JT_SCORE_NFACTORS] = {
    "priority", "wait", "fair_share", "topology", "data_ready",
    "backlog", "energy", "checkpoint", "conformance",
};

/* Seed 004's table, and its CostWeights::default() as "balanced". */
static const jt_score_profile_t builtin[] = {
    { "hpc-batch",   { 0.15, 0.20, 0.20, 0.15, 0.10, 0.05, 0.00, 0.05, 0.10 } },
    { "ml-training", { 0.10, 0.10, 0.10, 0.25, 0.15, 0.05, 0.05, 0.10, 0.10 } },
    { "service",     { 0.15, 0.05, 0.10, 0.05, 0.10, 0.05, 0.10, 0.10, 0.30 } },
    { "sensitive",   { 0.90, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.10 } },
    { "interactive", { 0.10, 0.30, 0.10, 0.00, 0.05, 0.15, 0.00, 0.00, 0.30 } },
    { "balanced",    { 0.20, 0.20, 0.20, 0.15, 0.10, 0.05, 0.00, 0.00, 0.10 } },
};
#define NBUILTIN (sizeof (builtin) / sizeof (builtin[0]))

const char *jt_score_factor_str (jt_score_factor_t f)
{
    return (unsigned) f < JT_SCORE_NFACTORS ? factor_names[f] : "?";
}

void jt_score_conf_init (jt_score_conf_t *c)
{
    memset (c, 0, sizeof (*c));
    c->reference_wait_s = JT_SCORE_REF_WAIT_DEFAULT;
    c->scale = JT_SCORE_SCALE_DEFAULT;
    c->data_ready = JT_SCORE_NEUTRAL;
    c->energy_price = JT_SCORE_NEUTRAL;
}

static void parts_free (jt_score_part_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free (v[i].partition);
        free (v[i].profile);
    }
    free (v);
}

void jt_score_conf_free (jt_score_conf_t *c)
{
    if (!c)
        return;
    int saved = errno;
    free (c->profiles);
    free (c->default_profile);
    parts_free (c->parts, c->nparts);
    jt_score_conf_init (c);
    errno = saved;
}

int jt_score_conf_copy (jt_score_conf_t *dst, const jt_score_conf_t *src)
{
    jt_score_conf_init (dst);
    dst->reference_wait_s = src->reference_wait_s;
    dst->scale = src->scale;
    dst->data_ready = src->data_ready;
    dst->energy_price = src->energy_price;
    if (src->nprofiles) {
        if (!(dst->profiles = calloc (src->nprofiles, sizeof (*dst->profiles))))
            goto fail;
        memcpy (dst->profiles, src->profiles,
                src->nprofiles * sizeof (*dst->profiles));
        dst->nprofiles = src->nprofiles;
    }
    if (src->default_profile
        && !(dst->default_profile = strdup (src->default_profile)))
        goto fail;
    if (src->nparts) {
        if (!(dst->parts = calloc (src->nparts, sizeof (*dst->parts))))
            goto fail;
        for (size_t i = 0; i < src->nparts; i++) {
            if (!(dst->parts[i].partition = strdup (src->parts[i].partition))
                || !(dst->parts[i].profile = strdup (src->parts[i].profile))) {
                dst->nparts = i + 1;
                goto fail;
            }
        }
        dst->nparts = src->nparts;
    }
    return 0;
fail:
    jt_score_conf_free (dst);
    errno = ENOMEM;
    return -1;
}

const jt_score_profile_t *jt_score_profile (const jt_score_conf_t *c,
                                            const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; c && i < c->nprofiles; i++)
        if (!strcmp (c->profiles[i].name, name))
            return &c->profiles[i];
    for (size_t i = 0; i < NBUILTIN; i++)
        if (!strcmp (builtin[i].name, name))
            return &builtin[i];
    return NULL;
}

const jt_score_profile_t *jt_score_profile_for (const jt_score_conf_t *c,
                                                const char *partition)
{
    const jt_score_profile_t *p = NULL;

    for (size_t i = 0; c && partition && i < c->nparts && !p; i++)
        if (!strcmp (c->parts[i].partition, partition))
            p = jt_score_profile (c, c->parts[i].profile);
    if (!p && c && c->default_profile)
        p = jt_score_profile (c, c->default_profile);
    if (!p)
        p = jt_score_profile (NULL, JT_SCORE_DEFAULT_PROFILE);
    return p;
}

/* ---- jobtree.conf keys ---- */

static const char *const keys[] = {
    "ScoreProfile", "ScoreDefaultProfile", "ScorePartitionProfile",
    "ScoreReferenceWait", "ScoreScale", "ScoreDataReadiness", "ScoreEnergyPrice",
};
#define NKEYS (sizeof (keys) / sizeof (keys[0]))

bool jt_score_conf_key (const char *key)
{
    for (size_t i = 0; key && i < NKEYS; i++)
        if (!strcasecmp (key, keys[i]))
            return true;
    return false;
}

static bool name_ok (const char *s, size_t l)
{
    if (l == 0 || l >= JT_SCORE_NAME_MAX)
        return false;
    for (size_t i = 0; i < l; i++)
        if (!(isalnum ((unsigned char) s[i]) || strchr ("._-", s[i])))
            return false;
    return true;
}

/* A number 0..1 from the whole of s[0..l). 0 or -1. */
static int unit_number (const char *s, size_t l, double *out)
{
    char buf[32], *end;
    double v;

    if (l == 0 || l >= sizeof (buf))
        return -1;
    memcpy (buf, s, l);
    buf[l] = '\0';
    for (size_t i = 0; i < l; i++)
        if (!(isdigit ((unsigned char) buf[i]) || buf[i] == '.'))
            return -1;
    errno = 0;
    v = strtod (buf, &end);
    if (errno || *end || !(v >= 0.0 && v <= 1.0))
        return -1;
    *out = v;
    return 0;
}

static int profile_names (const jt_score_conf_t *c, char *buf, size_t len)
{
    size_t off = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < NBUILTIN + c->nprofiles; i++) {
        const char *n = i < NBUILTIN ? builtin[i].name
                                     : c->profiles[i - NBUILTIN].name;
        int w = snprintf (buf + off, len - off, "%s%s", i ? ", " : "", n);
        if (w < 0 || (size_t) w >= len - off)
            break;
        off += (size_t) w;
    }
    return 0;
}

static int unknown_profile (const jt_score_conf_t *c, const char *key,
                            const char *name, size_t l, char *why, size_t len)
{
    char names[512];

    profile_names (c, names, sizeof (names));
    snprintf (why, len, "%s: no profile named %.*s (known: %s; a ScoreProfile "
              "line must come before its use)", key, (int) l, name, names);
    return -1;
}

/* ScoreProfile=NAME:FACTOR=W,... */
static int apply_profile (jt_score_conf_t *c, const char *val, char *why,
                          size_t len)
{
    const char *colon = strchr (val, ':'), *p;
    jt_score_profile_t prof;
    bool seen[JT_SCORE_NFACTORS] = { false };
    double sum = 0;
    jt_score_profile_t *nv;

    memset (&prof, 0, sizeof (prof));
    if (!colon || !name_ok (val, (size_t) (colon - val)) || !colon[1]) {
        snprintf (why, len, "ScoreProfile must be NAME:FACTOR=WEIGHT[,...] with "
                  "NAME of letters, digits, '.', '_', '-' (at most %d), e.g. "
                  "ScoreProfile=site:wait=0.5,topology=0.5",
                  JT_SCORE_NAME_MAX - 1);
        return -1;
    }
    memcpy (prof.name, val, (size_t) (colon - val));
    if (jt_score_profile (c, prof.name)) {
        snprintf (why, len, "ScoreProfile: profile %s is already defined "
                  "(built-in or earlier line); choose another name", prof.name);
        return -1;
    }
    if (c->nprofiles >= JT_SCORE_PROFILES_MAX) {
        snprintf (why, len, "ScoreProfile: at most %d site profiles",
                  JT_SCORE_PROFILES_MAX);
        return -1;
    }
    for (p = colon + 1; *p;) {
        const char *end = strchr (p, ',');
        size_t l = end ? (size_t) (end - p) : strlen (p);
        const char *eq = memchr (p, '=', l);
        size_t f;
        double w;

        for (f = 0; eq && f < JT_SCORE_NFACTORS; f++)
            if (strlen (factor_names[f]) == (size_t) (eq - p)
                && !strncmp (p, factor_names[f], (size_t) (eq - p)))
                break;
        if (!eq || f == JT_SCORE_NFACTORS) {
            snprintf (why, len, "ScoreProfile %s: '%.*s' is not FACTOR=WEIGHT "
                      "with FACTOR one of priority, wait, fair_share, topology, "
                      "data_ready, backlog, energy, checkpoint, conformance",
                      prof.name, (int) l, p);
            return -1;
        }
        if (seen[f]) {
            snprintf (why, len, "ScoreProfile %s: %s given twice", prof.name,
                      factor_names[f]);
            return -1;
        }
        if (unit_number (eq + 1, l - (size_t) (eq + 1 - p), &w) < 0) {
            snprintf (why, len, "ScoreProfile %s: %s's weight must be a number "
                      "0..1, e.g. %s=0.25", prof.name, factor_names[f],
                      factor_names[f]);
            return -1;
        }
        seen[f] = true;
        prof.w[f] = w;
        sum += w;
        if (!end)
            break;
        p = end + 1;
    }
    if (fabs (sum - 1.0) > 0.0005) {
        snprintf (why, len, "ScoreProfile %s: weights sum to %.4f; they must "
                  "sum to 1 (as every seed profile does)", prof.name, sum);
        return -1;
    }
    if (!(nv = realloc (c->profiles, (c->nprofiles + 1) * sizeof (*nv)))) {
        snprintf (why, len, "out of memory");
        return -1;
    }
    c->profiles = nv;
    c->profiles[c->nprofiles++] = prof;
    return 0;
}

/* ScorePartitionProfile=PART:NAME,... (replaces earlier lines). */
static int apply_parts (jt_score_conf_t *c, const char *val, char *why,
                        size_t len)
{
    jt_score_part_t *v = NULL;
    size_t n = 0;
    const char *p = val;

    while (*p) {
        const char *end = strchr (p, ',');
        size_t l = end ? (size_t) (end - p) : strlen (p);
        const char *colon = memchr (p, ':', l);
        size_t pl = colon ? (size_t) (colon - p) : 0;
        size_t nl = colon ? l - pl - 1 : 0;
        jt_score_part_t *nv;

        if (!colon || !name_ok (p, pl) || !name_ok (colon + 1, nl)) {
            snprintf (why, len, "ScorePartitionProfile must be PARTITION:PROFILE"
                      "[,...], e.g. ScorePartitionProfile=gpu:ml-training");
            goto fail;
        }
        {
            char name[JT_SCORE_NAME_MAX];
            memcpy (name, colon + 1, nl);
            name[nl] = '\0';
            if (!jt_score_profile (c, name)) {
                unknown_profile (c, "ScorePartitionProfile", name, nl, why, len);
                goto fail;
            }
        }
        for (size_t i = 0; i < n; i++)
            if (strlen (v[i].partition) == pl && !strncmp (v[i].partition, p, pl)) {
                snprintf (why, len, "ScorePartitionProfile: partition %.*s "
                          "listed twice", (int) pl, p);
                goto fail;
            }
        if (n >= JT_SCORE_PARTS_MAX) {
            snprintf (why, len, "ScorePartitionProfile: at most %d partitions",
                      JT_SCORE_PARTS_MAX);
            goto fail;
        }
        if (!(nv = realloc (v, (n + 1) * sizeof (*v))))
            goto nomem;
        v = nv;
        v[n].partition = strndup (p, pl);
        v[n].profile = strndup (colon + 1, nl);
        n++;
        if (!v[n - 1].partition || !v[n - 1].profile)
            goto nomem;
        if (!end)
            break;
        p = end + 1;
    }
    parts_free (c->parts, c->nparts);
    c->parts = v;
    c->nparts = n;
    return 0;
nomem:
    snprintf (why, len, "out of memory");
fail:
    parts_free (v, n);
    return -1;
}

int jt_score_conf_apply (jt_score_conf_t *c, const char *key, const char *val,
                         char *why, size_t len)
{
    if (!strcasecmp (key, "ScoreProfile"))
        return apply_profile (c, val, why, len);
    if (!strcasecmp (key, "ScorePartitionProfile"))
        return apply_parts (c, val, why, len);
    if (!strcasecmp (key, "ScoreDefaultProfile")) {
        char *s;
        if (!jt_score_profile (c, val))
            return unknown_profile (c, "ScoreDefaultProfile", val, strlen (val),
                                    why, len);
        if (!(s = strdup (val))) {
            snprintf (why, len, "out of memory");
            return -1;
        }
        free (c->default_profile);
        c->default_profile = s;
        return 0;
    }
    if (!strcasecmp (key, "ScoreReferenceWait")) {
        jt_error_t e;
        int64_t secs = 0;
        if (jt_duration_parse (val, &secs, &e) < 0 || secs < 1
            || secs > JT_SCORE_REF_WAIT_MAX) {
            snprintf (why, len, "ScoreReferenceWait must be a duration of 1 "
                      "second to 365 days, e.g. ScoreReferenceWait=1h");
            return -1;
        }
        c->reference_wait_s = secs;
        return 0;
    }
    if (!strcasecmp (key, "ScoreScale")) {
        char *end;
        long long v;
        errno = 0;
        v = strtoll (val, &end, 10);
        if (errno || *end || end == val || v < 1 || v > JT_SCORE_SCALE_MAX) {
            snprintf (why, len, "ScoreScale must be a whole number 1..%d, e.g. "
                      "ScoreScale=10000", JT_SCORE_SCALE_MAX);
            return -1;
        }
        c->scale = v;
        return 0;
    }
    if (!strcasecmp (key, "ScoreDataReadiness")
        || !strcasecmp (key, "ScoreEnergyPrice")) {
        bool data = !strcasecmp (key, "ScoreDataReadiness");
        double v;
        if (unit_number (val, strlen (val), &v) < 0) {
            snprintf (why, len, "%s must be a number 0..1, e.g. %s=0.5",
                      data ? "ScoreDataReadiness" : "ScoreEnergyPrice",
                      data ? "ScoreDataReadiness" : "ScoreEnergyPrice");
            return -1;
        }
        *(data ? &c->data_ready : &c->energy_price) = v;
        return 0;
    }
    snprintf (why, len, "unknown key %s", key);
    return -1;
}

/* ---- the factors ---- */

double jt_score_f_priority (void)
{
    return JT_SCORE_NEUTRAL;
}

double jt_score_f_wait (int64_t wait_s, int64_t reference_wait_s)
{
    if (wait_s < 0)
        wait_s = 0;
    if (wait_s > JT_SCORE_WAIT_MAX)
        wait_s = JT_SCORE_WAIT_MAX;
    if (reference_wait_s < 1)
        reference_wait_s = JT_SCORE_REF_WAIT_DEFAULT;
    return log1p ((double) wait_s / (double) reference_wait_s);
}

double jt_score_f_fair_share (int64_t target_gpus, int64_t used_gpus)
{
    if (target_gpus <= 0)
        return 0.0;
    if (used_gpus < 0)
        used_gpus = 0;
    if (used_gpus >= target_gpus)
        return 0.0;
    return (double) (target_gpus - used_gpus) / (double) target_gpus;
}

double jt_score_f_topology (int64_t needed, int64_t available)
{
    if (available <= 0 || needed <= 0 || needed > available)
        return 0.0;
    return 1.0 - (double) needed / (double) available;
}

double jt_score_f_topology_levels (const jt_score_input_t *in)
{
    double sum = jt_score_f_topology (in->domains_needed, in->domains_available);
    int terms = 1;

    for (size_t l = 0; l < in->nlevels && l < JT_LEVELS_MAX; l++)
        if (in->units_available[l] > 1) {
            sum += jt_score_f_topology (in->units_needed[l], in->units_available[l]);
            terms++;
        }
    return sum / terms;
}

double jt_score_f_backlog (double queued_gpu_hours, double running_gpu_hours)
{
    if (!(queued_gpu_hours > 0))
        return 0.0;
    if (!(running_gpu_hours > 0))
        return 1.0;
    return fmin (1.0, queued_gpu_hours / running_gpu_hours);
}

double jt_score_f_energy (double normalized_price)
{
    if (!(normalized_price >= 0))
        normalized_price = 0;
    if (normalized_price > 1)
        normalized_price = 1;
    return 1.0 - normalized_price;
}

double jt_score_f_checkpoint (int64_t checkpoint_s)
{
    if (checkpoint_s <= 0)
        return 0.0;
    return 1.0 / (1.0 + (double) checkpoint_s / 60.0);
}

double jt_score_f_conformance (int64_t largest, int64_t requested)
{
    if (requested <= 0)
        return 1.0;
    if (largest <= 0)
        return 0.0;
    return largest >= requested ? 1.0 : (double) largest / (double) requested;
}

/* ---- the sum ---- */

void jt_score_compute (const jt_score_conf_t *c, const jt_score_profile_t *p,
                       const jt_score_input_t *in, jt_score_t *out)
{
    jt_score_conf_t def;
    double sum = 0, scaled;

    if (!c) {
        jt_score_conf_init (&def);
        c = &def;
    }
    if (!p)
        p = jt_score_profile_for (c, NULL);
    memset (out, 0, sizeof (*out));
    snprintf (out->profile, sizeof (out->profile), "%s", p->name);
    out->f[JT_SCORE_PRIORITY] = jt_score_f_priority ();
    out->f[JT_SCORE_WAIT] = jt_score_f_wait (in->wait_s, c->reference_wait_s);
    out->f[JT_SCORE_FAIR_SHARE] = jt_score_f_fair_share (in->fs_target_gpus,
                                                         in->fs_used_gpus);
    out->f[JT_SCORE_TOPOLOGY] = jt_score_f_topology_levels (in);
    out->f[JT_SCORE_DATA_READY] = c->data_ready;
    out->f[JT_SCORE_BACKLOG] = jt_score_f_backlog (in->queued_gpu_hours,
                                                   in->running_gpu_hours);
    out->f[JT_SCORE_ENERGY] = jt_score_f_energy (c->energy_price);
    out->f[JT_SCORE_CHECKPOINT] = jt_score_f_checkpoint (in->checkpoint_s);
    out->f[JT_SCORE_CONFORMANCE] = jt_score_f_conformance (in->conformance_largest,
                                                           in->nodes_requested);
    for (size_t i = 0; i < JT_SCORE_NFACTORS; i++) {
        out->w[i] = p->w[i];
        sum += p->w[i] * out->f[i];
    }
    out->sum = sum;
    scaled = nearbyint (sum * (double) c->scale);
    if (!(scaled >= 0))
        scaled = 0;
    if (scaled > (double) INT32_MAX)
        scaled = (double) INT32_MAX;
    out->site_factor = (int64_t) scaled;
}

char *jt_score_format (const jt_score_t *sc)
{
    jt_strbuf_t sb = JT_STRBUF_INIT;

    jt_strbuf_printf (&sb, "profile %s\n", sc->profile);
    for (size_t i = 0; i < JT_SCORE_NFACTORS; i++)
        jt_strbuf_printf (&sb, "  %-12s %.4f x %.2f = %.4f\n", factor_names[i],
                          sc->f[i], sc->w[i], sc->f[i] * sc->w[i]);
    jt_strbuf_printf (&sb, "  %-12s %.4f   site factor %lld\n", "sum", sc->sum,
                      (long long) sc->site_factor);
    return jt_strbuf_take (&sb);
}
