/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_nodemap.c - Slurm nodes as the select plugin and `jobtree snapshot`
 * read them (jobtree/nodemap.h), then finalize, the labelled nodes and the
 * snapshot document `jobtree plan` reads back.
 *
 * Input: the domain key on the first line ("" for the default), then per
 * node seven lines: name, features, GRES, GRES in use ("-" for none: the
 * count is used), GPUs allocated, state flags (both decimal), leaf switch;
 * the last node may be short. Every added node also gets a lease of a job
 * numbered by its flags. */
#include "config.h"

#include <stdbool.h>

#include "jobtree/error.h"
#include "jobtree/gres.h"
#include "jobtree/nodemap.h"
#include "jobtree/snapshot.h"
#include "fuzz.h"

/* The next '\n'-terminated field of *p (NULL at the end). */
static char *field (char **p)
{
    char *f = *p, *nl;

    if (!f)
        return NULL;
    if ((nl = strchr (f, '\n'))) {
        *nl = '\0';
        *p = nl + 1;
    } else
        *p = NULL;
    return f;
}

static void check (const jt_snapshot_t *s)
{
    for (size_t i = 0; i < s->nnodes; i++) {
        const jt_node_t *n = &s->nodes[i];
        /* counts in range, a flavor iff GPUs, used never above GPUs */
        if (n->gpus < 0 || n->gpus > JT_GRES_COUNT_MAX || n->used_gpus < 0
            || n->used_gpus > n->gpus || (!n->flavor) != (n->gpus == 0))
            abort ();
        if (jt_nodemap_labelled (n) != (n->flavor && n->domain >= 0))
            abort ();
    }
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *in = fuzz_cstr (data, size), *p = in, *key;
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err;

    if (!in || !s)
        goto out;
    key = field (&p);
    while (p) {
        char *f[7] = { NULL };
        for (int i = 0; i < 7; i++)
            f[i] = field (&p);
        jt_nodemap_node_t n = {
            .name = f[0],
            .features = f[1],
            .gres = f[2],
            .gres_used = f[3] && strcmp (f[3], "-") ? f[3] : NULL,
            .used_gpus = f[4] ? strtoull (f[4], NULL, 10) : 0,
            .flags = f[5] ? (unsigned) strtoul (f[5], NULL, 10) : 0,
            .leaf_switch = f[6],
        };
        int rc = jt_nodemap_add (s, &n, key && *key ? key : NULL, &err);
        if (rc == 1) {
            char *nodes[] = { f[0] };
            jt_nodemap_job_t job = { .job_id = n.flags, .owner = f[1],
                                     .account = f[6], .start_time = 1,
                                     .bound_time = (int64_t) n.used_gpus };
            if (jt_nodemap_add_lease (s, &job, 0, f[6], nodes, 1, 8,
                                      JT_ROLE_ACTIVE, &err) < 0)
                abort ();       /* a lease on a mapped node is always taken */
        } else if (rc == 0 && n.name && *n.name)
            abort ();           /* only nameless nodes are skipped */
    }
    check (s);
    if (jt_snapshot_finalize (s, &err) == 0) {
        check (s);
        char *js = jt_snapshot_to_json (s);
        if (js) {
            jt_diags_t d;
            jt_diags_init (&d);
            jt_snapshot_t *t = jt_snapshot_parse_json ("s.json", js, strlen (js), &d);
            jt_snapshot_destroy (t);
            jt_diags_free (&d);
            free (js);
        }
    }
out:
    jt_snapshot_destroy (s);
    free (in);
    return 0;
}
