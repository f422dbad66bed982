/*
 * options.c - the SPANK plugin's option values, parsed into jt_run_t fields
 * (see jobtree/options.h). Slurm-free so that sbatch (SPANK) and slurmctld
 * (job_submit) share one parser and it can be unit-tested.
 *
 * Every parser checks the whole value before touching the run, so a refused
 * value leaves the run unchanged.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/budget.h"
#include "jobtree/constraint.h"
#include "jobtree/labels.h"
#include "jobtree/options.h"
#include "jobtree/timeutil.h"

/* Far above any cluster, low enough that products of two stay in int64. */
#define OPT_INT_MAX 100000000

static const jt_opt_info_t opt_table[] = {
    { "group-gpus", "JOBTREE_GROUP_GPUS", "N",
      "GPUs per group: each group is whole nodes in one fabric domain",
      "--group-gpus=32", JT_OPT_ARG_REQUIRED, false },
    { "cross-group-spread", "JOBTREE_CROSS_GROUP_SPREAD", "yes|no[:LEVEL]",
      "may different groups land in different domains (default yes); "
      "no:LEVEL keeps the whole run inside one unit of a fabric level",
      "--cross-group-spread=no", JT_OPT_ARG_REQUIRED, false },
    { "malleable", "JOBTREE_MALLEABLE", "MIN:MAX[:STEP]",
      "run may shrink/grow between MIN and MAX GPUs by STEP",
      "--malleable=32:64:8", JT_OPT_ARG_REQUIRED, false },
    { "spares", "JOBTREE_SPARES", "N",
      "spare whole nodes per group, in the group's domain",
      "--spares=1", JT_OPT_ARG_REQUIRED, false },
    { "checkpoint", "JOBTREE_CHECKPOINT", "DURATION",
      "how often the run checkpoints (e.g. 30m, 2h, 1-00:00:00)",
      "--checkpoint=30m", JT_OPT_ARG_REQUIRED, false },
    { "borrow", "JOBTREE_BORROW", "MAXGPUS",
      "may borrow from sponsors' envelopes, at most MAXGPUS GPUs",
      "--borrow=32", JT_OPT_ARG_OPTIONAL, false },
    { "sponsors", "JOBTREE_SPONSORS", "OWNER[,OWNER...]",
      "owners to borrow from first, in order (implies --borrow)",
      "--sponsors=vision,speech", JT_OPT_ARG_REQUIRED, false },
    { "group-by", "JOBTREE_GROUP_BY", "LABEL",
      "each group (the whole run with --cross-group-spread=no) on nodes "
      "sharing one value of node label LABEL", "--group-by=rack",
      JT_OPT_ARG_REQUIRED, false },
    { "node-constraint", "JOBTREE_NODE_CONSTRAINT", "'LABEL OP [VALUE]'",
      "only nodes whose labels satisfy it (OP: EQ NE EXISTS NOT_EXISTS GT GE "
      "LT LE); repeatable, all must hold", "--node-constraint='gpu.mem GE 80'",
      JT_OPT_ARG_REQUIRED, true },
    { "conformance", "JOBTREE_CONFORMANCE", "prefer|strict",
      "nodes of one conformance fingerprint for each group: preferred "
      "(default) or required", "--conformance=strict", JT_OPT_ARG_REQUIRED, false },
};

#define OPT_COUNT (sizeof (opt_table) / sizeof (opt_table[0]))

size_t jt_opt_table (const jt_opt_info_t **tab)
{
    *tab = opt_table;
    return OPT_COUNT;
}

const jt_opt_info_t *jt_opt_find (const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < OPT_COUNT; i++)
        if (strcmp (opt_table[i].name, name) == 0)
            return &opt_table[i];
    return NULL;
}

/* "--name=value: " prefix shared by every message. */
static int opt_fail (jt_error_t *err, const jt_opt_info_t *o, const char *value,
                     const char *why)
{
    if (value)
        return jt_errprintf (err, "--%s=%s: %s, e.g. %s", o->name, value, why,
                             o->example);
    return jt_errprintf (err, "--%s: %s, e.g. %s", o->name, why, o->example);
}

/* Strict decimal: digits only, no sign, no spaces, within [lo, OPT_INT_MAX].
 * Returns 0, or -1 (not a number), -2 (too large) or -3 (below lo). */
static int parse_int (const char *s, size_t len, int64_t lo, int64_t *out)
{
    int64_t v = 0;

    if (len == 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit ((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
        if (v > OPT_INT_MAX)
            return -2;
    }
    if (v < lo)
        return -3;
    *out = v;
    return 0;
}

static int opt_int (const jt_opt_info_t *o, const char *value, int64_t lo,
                    int64_t *out, jt_error_t *err)
{
    int rc = parse_int (value, strlen (value), lo, out);

    if (rc == -1)
        return opt_fail (err, o, value, "not a whole number");
    if (rc == -2)
        return opt_fail (err, o, value, "too large");
    if (rc == -3)
        return opt_fail (err, o, value, "must be at least 1");
    return 0;
}

static int apply_malleable (jt_run_t *r, const jt_opt_info_t *o,
                            const char *value, jt_error_t *err)
{
    int64_t f[3] = { 0, 0, 0 };
    const char *p = value;
    size_t nf = 0;

    for (;;) {
        const char *colon = strchr (p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen (p);
        int rc;

        if (nf == 3)
            return opt_fail (err, o, value, "expected MIN:MAX or MIN:MAX:STEP");
        rc = parse_int (p, len, 1, &f[nf]);
        if (rc == -1)
            return opt_fail (err, o, value, nf == 0 ? "MIN is not a whole number"
                             : nf == 1 ? "MAX is not a whole number"
                             : "STEP is not a whole number");
        if (rc == -2)
            return opt_fail (err, o, value, "too large");
        if (rc == -3)
            return opt_fail (err, o, value, nf == 0 ? "MIN must be at least 1"
                             : nf == 1 ? "MAX must be at least 1"
                             : "STEP must be at least 1");
        nf++;
        if (!colon)
            break;
        p = colon + 1;
    }
    if (nf < 2)
        return opt_fail (err, o, value, "expected MIN:MAX or MIN:MAX:STEP");
    if (f[0] > f[1])
        return opt_fail (err, o, value, "MIN must be <= MAX");
    if (nf == 3 && f[2] > f[1])
        return opt_fail (err, o, value, "STEP must be <= MAX");
    r->malleable = true;
    r->min_gpus = f[0];
    r->max_gpus = f[1];
    r->step_given = nf == 3;
    r->step_gpus = nf == 3 ? f[2] : jt_run_step_gpus (r, 0);
    return 0;
}

static bool owner_char_ok (char c)
{
    return isalnum ((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

static int apply_sponsors (jt_run_t *r, const jt_opt_info_t *o,
                           const char *value, jt_error_t *err)
{
    char **v = NULL;
    size_t n = 0;
    const char *p = value;

    for (;;) {
        const char *comma = strchr (p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen (p);
        char **nv;

        if (len == 0) {
            opt_fail (err, o, value, "empty owner name");
            goto fail;
        }
        for (size_t i = 0; i < len; i++)
            if (!owner_char_ok (p[i])) {
                opt_fail (err, o, value,
                          "owner names are Slurm accounts (letters, digits, _ - .)");
                goto fail;
            }
        for (size_t i = 0; i < n; i++)
            if (strlen (v[i]) == len && strncmp (v[i], p, len) == 0) {
                opt_fail (err, o, value, "an owner is listed twice");
                goto fail;
            }
        if (!(nv = realloc (v, (n + 1) * sizeof (*v))))
            goto nomem;
        v = nv;
        if (!(v[n] = strndup (p, len)))
            goto nomem;
        n++;
        if (!comma)
            break;
        p = comma + 1;
    }
    for (size_t i = 0; i < r->nsponsors; i++)
        free (r->sponsors[i]);
    free (r->sponsors);
    r->sponsors = v;
    r->nsponsors = n;
    r->allow_borrow = true;
    return 0;
nomem:
    jt_errprintf (err, "--%s: out of memory", o->name);
fail:
    for (size_t i = 0; i < n; i++)
        free (v[i]);
    free (v);
    return -1;
}

int jt_opt_apply (jt_run_t *r, const char *name, const char *value,
                  jt_error_t *err)
{
    const jt_opt_info_t *o = jt_opt_find (name);
    int64_t v = 0;

    if (!r || !o)
        return jt_errprintf (err, "--%s: not a Jobtree option", name ? name : "");
    if (!value && o->arg == JT_OPT_ARG_REQUIRED)
        return opt_fail (err, o, NULL, "needs a value");
    if (value && *value == '\0')
        return opt_fail (err, o, value, "empty value");

    if (strcmp (o->name, "group-gpus") == 0) {
        if (opt_int (o, value, 1, &v, err) < 0)
            return -1;
        r->group_gpus = v;
    } else if (strcmp (o->name, "cross-group-spread") == 0) {
        free (r->spread_level);
        r->spread_level = NULL;
        if (strcmp (value, "yes") == 0)
            r->cross_group_spread = true;
        else if (strcmp (value, "no") == 0)
            r->cross_group_spread = false;
        else if (strncmp (value, "no:", 3) == 0 && value[3]) {
            if (!jt_label_key_ok (value + 3))
                return opt_fail (err, o, value, "expected no:LEVEL with a "
                                 "fabric level name (no:block)");
            if (!(r->spread_level = strdup (value + 3)))
                return opt_fail (err, o, value, "out of memory");
            r->cross_group_spread = false;
        } else
            return opt_fail (err, o, value, "expected yes, no or no:LEVEL");
    } else if (strcmp (o->name, "malleable") == 0) {
        return apply_malleable (r, o, value, err);
    } else if (strcmp (o->name, "spares") == 0) {
        if (opt_int (o, value, 0, &v, err) < 0)
            return -1;
        r->spares_per_group = v;
    } else if (strcmp (o->name, "checkpoint") == 0) {
        jt_error_t e;
        if (jt_duration_parse (value, &v, &e) < 0)
            return opt_fail (err, o, value, "not a duration");
        if (v <= 0)
            return opt_fail (err, o, value, "must be longer than 0");
        r->checkpoint_s = v;
    } else if (strcmp (o->name, "group-by") == 0) {
        char *dup;
        if (!jt_label_key_ok (value))
            return opt_fail (err, o, value, "not a label name (letters, digits "
                             "or . _ - : /, starting with a letter or digit)");
        if (!(dup = strdup (value)))
            return jt_errprintf (err, "--%s: out of memory", o->name);
        free (r->group_by);
        r->group_by = dup;
    } else if (strcmp (o->name, "conformance") == 0) {
        if (strcmp (value, "strict") == 0)
            r->conformance_strict = true;
        else if (strcmp (value, "prefer") == 0)
            r->conformance_strict = false;
        else
            return opt_fail (err, o, value, "expected prefer or strict");
    } else if (strcmp (o->name, "node-constraint") == 0) {
        jt_error_t e;
        if (jt_constraints_add (&r->constraints, value, &e) < 0)
            return jt_errprintf (err, "--%s: %s, e.g. %s", o->name, e.text,
                                 o->example);
    } else if (strcmp (o->name, "borrow") == 0) {
        if (value && opt_int (o, value, 1, &v, err) < 0)
            return -1;
        r->allow_borrow = true;
        r->max_borrow_gpus = value ? v : JT_UNSET;
    } else {
        return apply_sponsors (r, o, value, err);
    }
    return 0;
}

void jt_opts_finish (jt_run_t *r)
{
    /* As jt_run_parse_json does: without STEP, groupGPUs, else 1. */
    if (r && r->malleable && !r->step_given)
        r->step_gpus = jt_run_step_gpus (r, 0);
}

int jt_opts_from_env (jt_run_t *r, char *const *env, size_t n,
                      jt_error_t *err)
{
    int found = 0;

    /* Table order, not environment order: --sponsors after --borrow keeps
     * the result independent of how Slurm ordered the variables. */
    for (size_t k = 0; k < OPT_COUNT; k++) {
        const jt_opt_info_t *o = &opt_table[k];
        size_t elen = strlen (o->env);

        for (size_t i = 0; env && i < n; i++) {
            const char *s = env[i];
            const char *value;

            if (!s)
                continue;
            if (strncmp (s, "SPANK_", 6) == 0)
                s += 6;
            if (strncmp (s, o->env, elen) != 0
                || (s[elen] != '=' && s[elen] != '\0'))
                continue;
            value = s[elen] == '=' ? s + elen + 1 : NULL;
            if (value && (*value == '\0' || strcmp (value, "(null)") == 0))
                value = NULL;
            if (jt_opt_apply (r, o->name, value, err) < 0)
                return -1;
            found++;
            break;              /* first occurrence wins */
        }
    }
    jt_opts_finish (r);
    return found;
}
