/*
 * config.c - jobtree.conf parsing (see jobtree/conf.h).
 *
 * Parsing works on a scratch copy and swaps it in only when every line was
 * good, so a bad edit never half-applies: the plugins keep the last good
 * configuration and log the file:line findings.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobtree/conf.h"
#include "jobtree/snapshot.h"
#include "jobtree/timeutil.h"
#include "jobtree/readfile.h"

jt_config_t *jt_config_create (void)
{
    jt_config_t *c = calloc (1, sizeof (*c));

    if (!c)
        return NULL;
    c->unfunded_policy = JT_UNFUNDED_REFUSE;
    c->pack_policy = JT_PACK_DEFAULT;
    jt_score_conf_init (&c->score);
    if (!(c->budget_dir = strdup (JT_CONFIG_DEFAULT_BUDGET_DIR))
        || !(c->domain_feature = strdup ("fabric.domain"))) {
        jt_config_destroy (c);
        return NULL;
    }
    return c;
}

static void gpn_free (jt_flavor_gpn_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free (v[i].flavor);
    free (v);
}

void jt_config_destroy (jt_config_t *c)
{
    if (!c)
        return;
    int saved = errno;
    free (c->file);
    free (c->budget_dir);
    free (c->domain_feature);
    free (c->fabric_levels);
    free (c->group_level);
    free (c->ledger_socket);
    free (c->ledger_spool_dir);
    free (c->ledger_dir);
    gpn_free (c->gpn, c->ngpn);
    jt_score_conf_free (&c->score);
    free (c);
    errno = saved;
}

const char *jt_unfunded_policy_str (jt_unfunded_policy_t p)
{
    return p == JT_UNFUNDED_PASSTHROUGH ? "passthrough" : "refuse";
}

int64_t jt_config_gpus_per_node (const jt_config_t *c, const char *flavor)
{
    if (!c || !flavor)
        return 0;
    for (size_t i = 0; i < c->ngpn; i++)
        if (strcmp (c->gpn[i].flavor, flavor) == 0)
            return c->gpn[i].gpus;
    return 0;
}

static int parse_bool (const char *v, bool *out)
{
    if (!strcasecmp (v, "yes") || !strcasecmp (v, "true") || !strcmp (v, "1"))
        *out = true;
    else if (!strcasecmp (v, "no") || !strcasecmp (v, "false") || !strcmp (v, "0"))
        *out = false;
    else
        return -1;
    return 0;
}

/* Which of two words val is (any case): 0 for a, 1 for b; else -1 with
 * "KEY must be A or B" in why. */
static int one_of (const char *key, const char *val, const char *a, const char *b,
                   char *why, size_t len)
{
    if (!strcasecmp (val, a))
        return 0;
    if (!strcasecmp (val, b))
        return 1;
    snprintf (why, len, "%s must be %s or %s", key, a, b);
    return -1;
}

/* "h100:8,a100:4" -> list. Returns 0 or -1 (message in why). */
static int parse_gpn (const char *v, jt_flavor_gpn_t **out, size_t *nout,
                      char *why, size_t len)
{
    jt_flavor_gpn_t *list = NULL;
    size_t n = 0;
    const char *p = v;

    while (*p) {
        const char *end = strchr (p, ',');
        size_t l = end ? (size_t)(end - p) : strlen (p);
        const char *colon = memchr (p, ':', l);
        char *num_end;
        long long g;
        jt_flavor_gpn_t *nl;

        if (!colon || colon == p) {
            snprintf (why, len, "expected FLAVOR:GPUS[,FLAVOR:GPUS...], e.g. h100:8");
            goto fail;
        }
        errno = 0;
        g = strtoll (colon + 1, &num_end, 10);
        if (errno || num_end != p + l || num_end == colon + 1 || g < 1 || g > 1024) {
            snprintf (why, len,
                      "GPUs per node must be a whole number 1..1024, e.g. h100:8");
            goto fail;
        }
        if (!(nl = realloc (list, (n + 1) * sizeof (*list))))
            goto nomem;
        list = nl;
        if (!(list[n].flavor = strndup (p, (size_t)(colon - p))))
            goto nomem;
        list[n++].gpus = g;
        for (size_t i = 0; i + 1 < n; i++)
            if (strcmp (list[i].flavor, list[n - 1].flavor) == 0) {
                snprintf (why, len, "flavor %s listed twice", list[i].flavor);
                goto fail;
            }
        if (!end)
            break;
        p = end + 1;
    }
    *out = list;
    *nout = n;
    return 0;
nomem:
    snprintf (why, len, "out of memory");
fail:
    gpn_free (list, n);
    return -1;
}

static char *trim (char *s)
{
    char *e;

    while (isspace ((unsigned char)*s))
        s++;
    e = s + strlen (s);
    while (e > s && isspace ((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* Replace *slot with a copy of v. */
static int set_str (char **slot, const char *v)
{
    char *s = strdup (v);

    if (!s)
        return -1;
    free (*slot);
    *slot = s;
    return 0;
}

/* Apply one key=value to c. Returns 0, or -1 with why filled. */
static int apply_kv (jt_config_t *c, const char *key, const char *val,
                     char *why, size_t len)
{
    if (!strcasecmp (key, "BudgetDir")) {
        if (val[0] != '/') {
            snprintf (why, len, "BudgetDir must be an absolute path, e.g. "
                      "BudgetDir=%s", JT_CONFIG_DEFAULT_BUDGET_DIR);
            return -1;
        }
        return set_str (&c->budget_dir, val) < 0
            ? (snprintf (why, len, "out of memory"), -1) : 0;
    }
    if (!strcasecmp (key, "UnfundedPolicy")) {
        int w = one_of ("UnfundedPolicy", val, "refuse", "passthrough", why, len);
        if (w < 0)
            return -1;
        c->unfunded_policy = w ? JT_UNFUNDED_PASSTHROUGH : JT_UNFUNDED_REFUSE;
        return 0;
    }
    if (!strcasecmp (key, "PlainGpuJobs")) {
        int w = one_of ("PlainGpuJobs", val, "passthrough", "jobtree", why, len);
        if (w < 0)
            return -1;
        c->plain_gpu_jobs = w == 1;
        return 0;
    }
    if (!strcasecmp (key, "GpusPerNode")) {
        jt_flavor_gpn_t *list;
        size_t n;
        if (parse_gpn (val, &list, &n, why, len) < 0)
            return -1;
        gpn_free (c->gpn, c->ngpn);
        c->gpn = list;
        c->ngpn = n;
        return 0;
    }
    if (!strcasecmp (key, "DomainFeature")) {
        for (const char *p = val; *p; p++)
            if (!(isalnum ((unsigned char)*p) || strchr ("._-", *p))) {
                snprintf (why, len, "DomainFeature must be a feature key, "
                          "e.g. DomainFeature=fabric.domain");
                return -1;
            }
        return set_str (&c->domain_feature, val) < 0
            ? (snprintf (why, len, "out of memory"), -1) : 0;
    }
    if (!strcasecmp (key, "Debug")) {
        if (parse_bool (val, &c->debug) < 0) {
            snprintf (why, len, "Debug must be yes or no");
            return -1;
        }
        return 0;
    }
    if (!strcasecmp (key, "FabricLevels") || !strcasecmp (key, "GroupLevel"))
        return jt_config_levels_key (c, key, val, why, len);
    if (!strcasecmp (key, "DebugCrossCheck")) {
        if (parse_bool (val, &c->debug_cross_check) < 0) {
            snprintf (why, len, "DebugCrossCheck must be yes or no");
            return -1;
        }
        return 0;
    }
    if (!strcasecmp (key, "MaxWait")) {
        jt_error_t e;
        int64_t secs = 0;
        if (strcasecmp (val, "none") && strcmp (val, "0")
            && (jt_duration_parse (val, &secs, &e) < 0 || secs <= 0
                || secs > JT_CONFIG_MAX_WAIT_MAX)) {
            snprintf (why, len, "MaxWait must be a duration up to 365 days "
                      "(e.g. MaxWait=4h) or none");
            return -1;
        }
        c->max_wait = secs;
        return 0;
    }
    if (!strcasecmp (key, "PackPolicy")) {
        if (jt_pack_policy_parse (val, &c->pack_policy) < 0) {
            snprintf (why, len, "PackPolicy must be pack-to-empty or best-fit");
            return -1;
        }
        c->pack_policy_set = true;
        return 0;
    }
    {
        static const char *const paths[] = { "LedgerSocket", "LedgerSpoolDir",
                                             "LedgerDir" };
        char **slots[] = { &c->ledger_socket, &c->ledger_spool_dir, &c->ledger_dir };
        for (size_t i = 0; i < 3; i++) {
            if (strcasecmp (key, paths[i]))
                continue;
            if (val[0] != '/') {
                snprintf (why, len, "%s must be an absolute path", paths[i]);
                return -1;
            }
            return set_str (slots[i], val) < 0
                ? (snprintf (why, len, "out of memory"), -1) : 0;
        }
    }
    if (jt_score_conf_key (key))
        return jt_score_conf_apply (&c->score, key, val, why, len);
    snprintf (why, len, "unknown key %s (known: BudgetDir, UnfundedPolicy, "
              "PlainGpuJobs, GpusPerNode, DomainFeature, FabricLevels, "
              "GroupLevel, Debug, PackPolicy, "
              "MaxWait, LedgerSocket, LedgerSpoolDir, LedgerDir, Score*, "
              "DebugCrossCheck)", key);
    return -1;
}

/* Deep copy of the settable fields (file excluded). */
static jt_config_t *config_copy (const jt_config_t *c)
{
    jt_config_t *d = jt_config_create ();

    if (!d)
        return NULL;
    if (set_str (&d->budget_dir, c->budget_dir) < 0
        || set_str (&d->domain_feature, c->domain_feature) < 0
        || (c->fabric_levels && set_str (&d->fabric_levels, c->fabric_levels) < 0)
        || (c->group_level && set_str (&d->group_level, c->group_level) < 0))
        goto fail;
    d->unfunded_policy = c->unfunded_policy;
    d->plain_gpu_jobs = c->plain_gpu_jobs;
    d->debug = c->debug;
    d->debug_cross_check = c->debug_cross_check;
    d->pack_policy = c->pack_policy;
    d->pack_policy_set = c->pack_policy_set;
    d->max_wait = c->max_wait;
    jt_score_conf_free (&d->score);
    if (jt_score_conf_copy (&d->score, &c->score) < 0)
        goto fail;
    if ((c->ledger_socket && set_str (&d->ledger_socket, c->ledger_socket) < 0)
        || (c->ledger_spool_dir
            && set_str (&d->ledger_spool_dir, c->ledger_spool_dir) < 0)
        || (c->ledger_dir && set_str (&d->ledger_dir, c->ledger_dir) < 0))
        goto fail;
    if (c->ngpn) {
        if (!(d->gpn = calloc (c->ngpn, sizeof (*d->gpn))))
            goto fail;
        for (size_t i = 0; i < c->ngpn; i++) {
            if (!(d->gpn[i].flavor = strdup (c->gpn[i].flavor)))
                goto fail;
            d->gpn[i].gpus = c->gpn[i].gpus;
            d->ngpn++;
        }
    }
    return d;
fail:
    jt_config_destroy (d);
    return NULL;
}

/* Swap the settable fields of a and b. */
static void config_swap (jt_config_t *a, jt_config_t *b)
{
    char *file_a = a->file, *file_b = b->file;
    jt_config_t t = *a;

    *a = *b;
    *b = t;
    a->file = file_a;
    b->file = file_b;
}

int jt_config_parse (jt_config_t *c, const char *file, const char *text,
                     size_t len, jt_diags_t *diags)
{
    jt_config_t *tmp;
    size_t pos = 0;
    int line = 0, bad = 0;

    if (!c || (!text && len))
        return -1;
    if (!(tmp = config_copy (c))) {
        jt_diags_add (diags, file, 0, 0, NULL, "out of memory");
        return -1;
    }
    while (pos < len) {
        const char *nl = memchr (text + pos, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - (text + pos)) : len - pos;
        char *buf, *s, *eq, *hash;
        char why[512];

        line++;
        if (!(buf = strndup (text + pos, l))) {
            jt_diags_add (diags, file, line, 0, NULL, "out of memory");
            bad++;
            break;
        }
        pos += l + (nl ? 1 : 0);
        if ((hash = strchr (buf, '#')))
            *hash = '\0';
        s = trim (buf);
        if (*s == '\0') {
            free (buf);
            continue;
        }
        if (!(eq = strchr (s, '='))) {
            jt_diags_add (diags, file, line, 0, NULL,
                          "expected Key=Value, e.g. UnfundedPolicy=refuse");
            bad++;
        } else {
            char *key, *val;
            *eq = '\0';
            key = trim (s);
            val = trim (eq + 1);
            if (*key == '\0' || *val == '\0') {
                jt_diags_add (diags, file, line, 0, NULL,
                              "expected Key=Value, e.g. UnfundedPolicy=refuse");
                bad++;
            } else if (apply_kv (tmp, key, val, why, sizeof (why)) < 0) {
                jt_diags_add (diags, file, line, 0, NULL, "%s", why);
                bad++;
            }
        }
        free (buf);
    }
    if (!bad && tmp->group_level) {
        /* GroupLevel names a level of FabricLevels, whatever their order */
        jt_snapshot_t *probe = jt_snapshot_create ();
        jt_error_t e;
        if (!probe || jt_config_set_levels (tmp, probe, &e) < 0) {
            jt_diags_add (diags, file, 0, 0, NULL, "%s",
                          probe ? e.text : "out of memory");
            bad++;
        }
        jt_snapshot_destroy (probe);
    }
    if (!bad)
        config_swap (c, tmp);
    jt_config_destroy (tmp);
    return bad ? -1 : 0;
}

jt_config_t *jt_config_load (const char *path, bool missing_ok,
                             jt_diags_t *diags)
{
    jt_config_t *c = jt_config_create ();
    jt_error_t err;
    char *text = NULL;
    size_t len = 0;

    if (!c) {
        jt_diags_add (diags, path, 0, 0, NULL, "out of memory");
        return NULL;
    }
    if (!(text = jt_read_file (path, &len, &err))) {
        if (errno == ENOENT && missing_ok)
            return c;
        jt_diags_add (diags, path, 0, 0, NULL, "%s", err.text);
        goto fail;
    }
    if (jt_config_parse (c, path, text, len, diags) < 0)
        goto fail;
    if (!(c->file = strdup (path))) {
        jt_diags_add (diags, path, 0, 0, NULL, "out of memory");
        goto fail;
    }
    free (text);
    return c;
fail:
    free (text);
    jt_config_destroy (c);
    return NULL;
}
