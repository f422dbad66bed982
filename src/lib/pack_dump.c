/*
 * pack_dump.c - the pure parts of Pack: policy names, freeing a placement,
 * and the canonical placement dump used by tests and logs.
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

#include "jobtree/pack.h"
#include "util/strbuf.h"

const char *jt_pack_policy_str (jt_pack_policy_t p)
{
    switch (p) {
    case JT_PACK_TO_EMPTY:
        return "pack-to-empty";
    case JT_PACK_BEST_FIT:
        return "best-fit";
    }
    return "?";
}

int jt_pack_policy_parse (const char *s, jt_pack_policy_t *out)
{
    if (!s)
        return -1;
    if (strcmp (s, "pack-to-empty") == 0) {
        *out = JT_PACK_TO_EMPTY;
        return 0;
    }
    if (strcmp (s, "best-fit") == 0) {
        *out = JT_PACK_BEST_FIT;
        return 0;
    }
    return -1;
}

void jt_placement_free (jt_placement_t *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->ngroups; i++) {
        free (p->groups[i].nodes);
        free (p->groups[i].node_gpus);
        free (p->groups[i].spares);
    }
    free (p->groups);
    p->groups = NULL;
    p->ngroups = 0;
    p->total_gpus = 0;
}

char *jt_placement_dump (const jt_placement_t *p, const jt_snapshot_t *s)
{
    jt_strbuf_t b = JT_STRBUF_INIT;

    if (!p || !s || p->ngroups == 0)
        return strdup ("-");
    for (size_t i = 0; i < p->ngroups; i++) {
        const jt_pack_group_t *g = &p->groups[i];
        jt_strbuf_printf (&b, "%sg%zu %s[", i ? " | " : "", i,
                g->domain < s->ndomains ? s->domains[g->domain].name : "?");
        for (size_t k = 0; k < g->nnodes; k++)
            jt_strbuf_printf (&b, "%s%s:%d", k ? " " : "",
                    g->nodes[k] < s->nnodes ? s->nodes[g->nodes[k]].name : "?",
                    g->node_gpus[k]);
        jt_strbuf_printf (&b, "]");
        if (g->nspares > 0) {
            jt_strbuf_printf (&b, " s[");
            for (size_t k = 0; k < g->nspares; k++)
                jt_strbuf_printf (&b, "%s%s", k ? " " : "",
                        g->spares[k] < s->nnodes ? s->nodes[g->spares[k]].name
                                                 : "?");
            jt_strbuf_printf (&b, "]");
        }
    }
    return jt_strbuf_take (&b);
}
