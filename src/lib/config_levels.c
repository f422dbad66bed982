/*
 * config_levels.c - jobtree.conf's fabric levels (jobtree/conf.h):
 * FabricLevels (the levels above the domain, lowest first) and GroupLevel
 * (the level a group stays inside), and the snapshot's levels and domain
 * key from them, so the select plugin, job_submit, site_factor and
 * `jobtree snapshot` name the same levels.
 *
 * DESIGN: a level is a node label fabric.<name>; FabricLevels takes the
 * names with or without the prefix. GroupLevel=block makes fabric.block
 * the domain (the feature that names it) and leaves only the levels above
 * it to Pack's level rule; GroupLevel=domain (the default) keeps
 * DomainFeature. Both are checked when read, so a typo is a file:line
 * error, never a silently flat fabric.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/conf.h"
#include "jobtree/labels.h"
#include "jobtree/snapshot.h"

#define PREFIX "fabric."

/* Split FabricLevels' value into label keys; n keys into keys (each
 * malloc'd). 0, or -1 with why. */
static int split_levels (const char *val, char **keys, size_t *n, char *why,
                         size_t len)
{
    const char *p = val;

    *n = 0;
    while (*p) {
        const char *e = strchr (p, ',');
        size_t l = e ? (size_t) (e - p) : strlen (p);
        bool pre = l > strlen (PREFIX) && strncmp (p, PREFIX, strlen (PREFIX)) == 0;
        char name[JT_LABEL_KEY_MAX + 1];

        if (l == 0 || l + (pre ? 0 : strlen (PREFIX)) > JT_LABEL_KEY_MAX
            || *n == JT_LEVELS_MAX) {
            snprintf (why, len, "FabricLevels must list 1 to %d level names, "
                      "lowest first, e.g. FabricLevels=block,spine",
                      JT_LEVELS_MAX);
            goto fail;
        }
        snprintf (name, sizeof (name), "%s%.*s", pre ? "" : PREFIX, (int) l, p);
        if (!jt_label_key_ok (name) || strcmp (name, JT_LABEL_FABRIC) == 0) {
            snprintf (why, len, "FabricLevels: '%.*s' is not a level name "
                      "(letters, digits, . _ -; not domain), e.g. "
                      "FabricLevels=block,spine", (int) l, p);
            goto fail;
        }
        for (size_t i = 0; i < *n; i++)
            if (strcmp (keys[i], name) == 0) {
                snprintf (why, len, "FabricLevels names %s twice", name);
                goto fail;
            }
        if (!(keys[(*n)++] = strdup (name))) {
            snprintf (why, len, "out of memory");
            goto fail;
        }
        p += l;
        if (*p == ',')
            p++;
    }
    if (*n == 0) {
        snprintf (why, len, "FabricLevels must list 1 to %d level names",
                  JT_LEVELS_MAX);
        return -1;
    }
    return 0;
fail:
    for (size_t i = 0; i < *n; i++)
        free (keys[i]);
    *n = 0;
    return -1;
}

int jt_config_levels_key (jt_config_t *c, const char *key, const char *val,
                          char *why, size_t len)
{
    char *keys[JT_LEVELS_MAX], *joined, *gl;
    size_t n, total = 1;

    if (strcasecmp (key, "GroupLevel") == 0) {
        char name[JT_LABEL_KEY_MAX + 1];
        snprintf (name, sizeof (name), "%s%s", PREFIX, val);
        if (strlen (val) + strlen (PREFIX) > JT_LABEL_KEY_MAX
            || !jt_label_key_ok (name)) {
            snprintf (why, len, "GroupLevel must be domain or a level of "
                      "FabricLevels, e.g. GroupLevel=block");
            return -1;
        }
        if (!(gl = strdup (val))) {
            snprintf (why, len, "out of memory");
            return -1;
        }
        free (c->group_level);
        c->group_level = strcmp (val, "domain") == 0 ? (free (gl), NULL) : gl;
        return 0;
    }
    if (strcasecmp (val, "none") == 0) {
        free (c->fabric_levels);
        c->fabric_levels = NULL;
        return 0;
    }
    if (split_levels (val, keys, &n, why, len) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        total += strlen (keys[i]) + 1;
    if ((joined = malloc (total))) {
        joined[0] = '\0';
        for (size_t i = 0; i < n; i++) {
            if (i)
                strcat (joined, ",");
            strcat (joined, keys[i]);
        }
    }
    for (size_t i = 0; i < n; i++)
        free (keys[i]);
    if (!joined) {
        snprintf (why, len, "out of memory");
        return -1;
    }
    free (c->fabric_levels);
    c->fabric_levels = joined;
    return 0;
}

/* The index of GroupLevel in the levels, -1 for the domain; -2 when it
 * names no level. */
static ssize_t group_index (const jt_config_t *c, char **keys, size_t n)
{
    if (!c->group_level)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (strcmp (keys[i] + strlen (PREFIX), c->group_level) == 0)
            return (ssize_t) i;
    return -2;
}

const char *jt_config_domain_key (const jt_config_t *c)
{
    static __thread char key[JT_LABEL_KEY_MAX + 1];

    if (!c)
        return JT_LABEL_FABRIC;
    if (!c->group_level)
        return c->domain_feature;
    snprintf (key, sizeof (key), "%s%s", PREFIX, c->group_level);
    return key;
}

int jt_config_set_levels (const jt_config_t *c, jt_snapshot_t *s,
                          jt_error_t *err)
{
    char *keys[JT_LEVELS_MAX];
    size_t n = 0;
    ssize_t g;
    char why[JT_ERRMSG_MAX];
    int rc;

    if (!c || !c->fabric_levels) {
        if (c && c->group_level)
            return jt_errprintf (err, "GroupLevel=%s names no level of "
                                 "FabricLevels (none set)", c->group_level);
        return jt_snapshot_set_levels (s, NULL, 0, err);
    }
    if (split_levels (c->fabric_levels, keys, &n, why, sizeof (why)) < 0)
        return jt_errprintf (err, "%s", why);
    if ((g = group_index (c, keys, n)) == -2)
        rc = jt_errprintf (err, "GroupLevel=%s names no level of FabricLevels "
                           "(%s)", c->group_level, c->fabric_levels);
    else
        rc = jt_snapshot_set_levels (s, (const char *const *) keys + (g + 1),
                                     n - (size_t) (g + 1), err);
    for (size_t i = 0; i < n; i++)
        free (keys[i]);
    return rc;
}
