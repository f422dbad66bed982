/*
 * sim_cluster.c - the simulator's inputs other than the trace: the cluster
 * (a snapshot file or the compact "DxNxG:FLAVOR" form), the policy words
 * of `jobtree sim --policy`, and the options' defaults.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobtree/sim.h"
#include "jobtree/timeutil.h"

void jt_sim_opts_init (jt_sim_opts_t *o)
{
    memset (o, 0, sizeof (*o));
    o->epoch = INT64_C (1767225600);    /* 2026-01-01T00:00:00Z */
    o->limit_factor_pct = 150;
    o->depth = 100;
    o->sample = 3600;
}

/* A whole number in [lo, hi] at *p, advancing it. */
static bool part (const char **p, long lo, long hi, long *out)
{
    char *end;
    long v;

    if (!isdigit ((unsigned char) **p))
        return false;
    errno = 0;
    v = strtol (*p, &end, 10);
    if (errno || v < lo || v > hi)
        return false;
    *p = end;
    *out = v;
    return true;
}

/* A term's numbers: 3 to 5 whole numbers joined by 'x', then ':'. *k
 * gets how many. false when malformed. */
static bool numbers (const char **p, long v[5], int *k)
{
    for (*k = 0; *k < 5; (*k)++) {
        if (!part (p, 1, JT_SIM_NODES_MAX, &v[*k]))
            return false;
        if (**p == ':') {
            (*k)++;
            break;
        }
        if (*(*p)++ != 'x')
            return false;
    }
    return *k >= 3 && *(*p)++ == ':';
}

/* One "[SPINESx[BLOCKSx]]DxNxG:FLAVOR" term (len bytes at t) into s; *total
 * counts nodes, *depth the deepest term's levels above the domain (0, 1:
 * spine, 2: block and spine). Domains, blocks and spines are numbered
 * within the term, as domains always were. */
static int add_term (jt_snapshot_t *s, const char *t, size_t len, long *total,
                     int *depth, jt_error_t *err)
{
    char term[128], flavor[64], name[192], dom[128], blk[96], spn[96];
    const char *p = term;
    long v[5], d, n, g, sp = 1, bl = 1;
    int k;

    if (len >= sizeof (term))
        return jt_errprintf (err, "cluster spec term '%.40s...' is too long", t);
    memcpy (term, t, len);
    term[len] = '\0';
    if (!numbers (&p, v, &k) || !*p || strlen (p) >= sizeof (flavor)
        || v[k - 3] > 10000 || v[k - 1] > JT_SIM_GPUS_PER_NODE_MAX
        || (k >= 4 && v[0] > 1000) || (k == 5 && v[1] > 1000))
        return jt_errprintf (err, "cluster spec '%s': write DOMAINSxNODESxGPUS:FLAVOR "
                             "with 1-10000 domains, 1-%d nodes each, 1-%d GPUs per "
                             "node, e.g. 16x32x8:h100, or with levels above the "
                             "domain SPINESx[BLOCKSx]DOMAINSxNODESxGPUS:FLAVOR "
                             "(1-1000 each), e.g. 4x4x8x8:h100", term,
                             JT_SIM_NODES_MAX, JT_SIM_GPUS_PER_NODE_MAX);
    if (k == 5)
        sp = v[0], bl = v[1];
    else if (k == 4)
        sp = v[0];
    d = v[k - 3] * bl * sp;
    n = v[k - 2];
    g = v[k - 1];
    if (k - 3 > *depth)
        *depth = k - 3;
    for (const char *c = p; *c; c++)
        if (!isalnum ((unsigned char) *c) && *c != '_' && *c != '.' && *c != '-')
            return jt_errprintf (err, "cluster spec '%s': flavor '%s' may hold "
                                 "letters, digits, '_', '.', '-' only", term, p);
    snprintf (flavor, sizeof (flavor), "%s", p);
    if (d > 10000 || d * n > JT_SIM_NODES_MAX - *total)
        return jt_errprintf (err, "cluster spec '%s': more than %d nodes in all",
                             term, JT_SIM_NODES_MAX);
    *total += d * n;
    for (long i = 0; i < d; i++) {
        long per_spine = d / sp, per_block = per_spine / bl;
        snprintf (dom, sizeof (dom), "%s-d%03ld", flavor, i);
        snprintf (spn, sizeof (spn), "%s-s%02ld", flavor, i / per_spine);
        snprintf (blk, sizeof (blk), "%s-b%03ld", flavor, i / per_block);
        for (long j = 0; j < n; j++) {
            jt_labels_t l = JT_LABELS_INIT;
            snprintf (name, sizeof (name), "%s-n%05ld", dom, j);
            if (jt_labels_set (&l, JT_LABEL_CLUSTER, "sim") < 0
                || jt_labels_set (&l, JT_LABEL_FABRIC, dom) < 0
                || (k >= 4 && jt_labels_set (&l, "fabric.spine", spn) < 0)
                || (k == 5 && jt_labels_set (&l, "fabric.block", blk) < 0)) {
                jt_labels_free (&l);
                return jt_errprintf (err, "out of memory");
            }
            int rc = jt_snapshot_add_node (s, name, &l, flavor, (int) g, 0,
                                           JT_NODE_UP, err);
            jt_labels_free (&l);
            if (rc < 0)
                return -1;
        }
    }
    return 0;
}

jt_snapshot_t *jt_sim_cluster (const char *spec, jt_error_t *err)
{
    struct stat st;
    jt_snapshot_t *s;
    long total = 0;
    int depth = 0;

    if (!spec || !*spec) {
        jt_errprintf (err, "no cluster given; e.g. --cluster 16x32x8:h100 or a "
                      "snapshot file");
        return NULL;
    }
    if (strchr (spec, '/') || strstr (spec, ".json") || stat (spec, &st) == 0) {
        jt_diags_t d;
        char line[JT_ERRMSG_MAX];

        jt_diags_init (&d);
        s = jt_snapshot_load_file (spec, &d);
        if (!s) {
            if (d.n)
                jt_diag_format (&d.v[0], line, sizeof (line));
            else
                snprintf (line, sizeof (line), "%s: cannot read", spec);
            jt_errprintf (err, "%s%s", line, d.n > 1 ? " (and more)" : "");
        }
        jt_diags_free (&d);
        return s;
    }
    if (!(s = jt_snapshot_create ())) {
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    for (const char *t = spec;;) {
        const char *plus = strchr (t, '+');
        size_t len = plus ? (size_t) (plus - t) : strlen (t);
        if (add_term (s, t, len, &total, &depth, err) < 0) {
            jt_snapshot_destroy (s);
            return NULL;
        }
        if (!plus)
            break;
        t = plus + 1;
    }
    static const char *const lv[] = { "fabric.block", "fabric.spine" };
    if (jt_snapshot_set_levels (s, depth == 2 ? lv : lv + 1,
                                (size_t) depth, err) < 0
        || jt_snapshot_finalize (s, err) < 0) {
        jt_snapshot_destroy (s);
        return NULL;
    }
    return s;
}

int jt_sim_policy_parse (const char *text, jt_sim_policy_t *out, jt_error_t *err)
{
    char buf[64], *save = NULL, *w;
    bool first = true;

    memset (out, 0, sizeof (*out));
    out->borrow = -1;
    out->reservations = true;
    out->placement = true;
    if (!text || strlen (text) >= sizeof (buf) || !*text)
        return jt_errprintf (err, "--policy '%s': write POLICY[,OPTION...], e.g. "
                             "best-fit,noborrow", text ? text : "");
    snprintf (out->name, sizeof (out->name), "%s", text);
    snprintf (buf, sizeof (buf), "%s", text);
    for (w = strtok_r (buf, ",", &save); w; w = strtok_r (NULL, ",", &save)) {
        if (first) {
            first = false;
            if (jt_pack_policy_parse (w, &out->pack) == 0)
                continue;
            if (!strncmp (w, "split", 5) && (w[5] == '\0' || w[5] == '=')) {
                const char *p = w + 6;
                long v = 2;
                if (w[5] == '=' && (!part (&p, 1, JT_SIM_NODES_MAX, &v) || *p))
                    return jt_errprintf (err, "--policy '%s': split=NODES takes "
                                         "1 to %d nodes, e.g. split=2", text,
                                         JT_SIM_NODES_MAX);
                out->split_nodes = v;
                out->pack = JT_PACK_TO_EMPTY;
                continue;
            }
            if (!strcmp (w, "none")) {
                out->placement = false;
                continue;
            }
            return jt_errprintf (err, "--policy '%s': unknown policy '%s'; use "
                                 "pack-to-empty, best-fit, split[=NODES] or none",
                                 text, w);
        }
        if (!strcmp (w, "borrow"))
            out->borrow = 1;
        else if (!strcmp (w, "noborrow"))
            out->borrow = 0;
        else if (!strcmp (w, "noresv"))
            out->reservations = false;
        else if (!strcmp (w, "preempt"))
            out->preempt = true;
        else if (!strcmp (w, "flat"))
            out->flat = true;
        else if (!strncmp (w, "checkpoint=", 11)) {
            const char *p = w + 11;
            long v;
            if (!part (&p, 1, 100L * 366 * 86400, &v) || *p)
                return jt_errprintf (err, "--policy '%s': checkpoint=SECONDS takes 1 "
                                     "to 3162240000 seconds, e.g. checkpoint=1800", text);
            out->checkpoint = v;
        }
        else if (!strncmp (w, "maxwait=", 8)) {
            const char *p = w + 8;
            long v;
            if (!part (&p, 1, 100L * 366 * 86400, &v) || *p)
                return jt_errprintf (err, "--policy '%s': maxwait=SECONDS takes 1 "
                                     "to 3162240000 seconds, e.g. maxwait=3600", text);
            out->max_wait = v;
            out->preempt = true;
        }
        else
            return jt_errprintf (err, "--policy '%s': unknown option '%s'; use "
                                 "borrow, noborrow, noresv, preempt, flat, "
                                 "maxwait=SECONDS or checkpoint=SECONDS", text, w);
    }
    if (first)
        return jt_errprintf (err, "--policy '%s': no policy named", text);
    return 0;
}
