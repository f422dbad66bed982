/*
 * conformance.c - conformance fingerprints of node sets and the label a
 * run's groups are classed by (see jobtree/conformance.h).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <string.h>

#include "jobtree/conformance.h"

jt_conformance_kind_t jt_conformance_of (const jt_snapshot_t *s,
                                         const size_t *idx, size_t n,
                                         const char **value)
{
    const char *first = NULL;
    bool without = false, differ = false;

    if (value)
        *value = NULL;
    for (size_t i = 0; s && i < n; i++) {
        const char *v;
        if (idx[i] >= s->nnodes)
            continue;
        v = jt_labels_get (&s->nodes[idx[i]].labels, JT_CONFORMANCE_LABEL);
        if (!v)
            without = true;
        else if (!first)
            first = v;
        else if (strcmp (first, v) != 0)
            differ = true;
    }
    if (!first)
        return JT_CONF_NONE;
    if (without || differ)
        return JT_CONF_MIXED;
    if (value)
        *value = first;
    return JT_CONF_ONE;
}

const char *jt_run_class_label (const jt_run_t *r)
{
    if (!r)
        return NULL;
    if (r->group_by)
        return r->group_by;
    return r->conformance_strict ? JT_CONFORMANCE_LABEL : NULL;
}
