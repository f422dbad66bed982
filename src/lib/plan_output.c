/*
 * plan_output.c - the three renderings of a plan (see jobtree/plan.h): the
 * compact canonical dump the tests compare, the human table of
 * `jobtree plan`, and its JSON form (json-c).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "jobtree/conformance.h"
#include "jobtree/plan.h"
#include "jobtree/timeutil.h"
#include "util/jsonutil.h"
#include "util/strbuf.h"

static const char *node_name (const jt_snapshot_t *s, size_t i)
{
    return s && i < s->nnodes ? s->nodes[i].name : "?";
}

static const char *domain_name (const jt_snapshot_t *s, size_t d)
{
    return s && d < s->ndomains ? s->domains[d].name : "?";
}

/* ---- canonical dump ---- */

char *jt_plan_dump (const jt_plan_t *p, const jt_snapshot_t *s)
{
    jt_strbuf_t b = JT_STRBUF_INIT;

    if (!p)
        return NULL;
    jt_strbuf_printf (&b, "%s", jt_decision_str (p->decision));
    if (p->reason != JT_OK)
        jt_strbuf_printf (&b, " %s", jt_reason_str (p->reason));
    jt_strbuf_printf (&b, " total=%lld", (long long) p->total_gpus);
    if (p->requested_gpus != p->total_gpus)
        jt_strbuf_printf (&b, " want=%lld", (long long) p->requested_gpus);
    if (p->decision == JT_BIND_NOW) {
        for (size_t i = 0; i < p->ngroups; i++) {
            const jt_plan_group_t *g = &p->groups[i];
            jt_strbuf_printf (&b, " | g%zu %lld %s[", g->index, (long long) g->gpus,
                       domain_name (s, g->domain));
            for (size_t j = 0; j < g->nnodes; j++)
                jt_strbuf_printf (&b, "%s%s:%d", j ? " " : "",
                           node_name (s, g->nodes[j]), g->node_gpus[j]);
            jt_strbuf_printf (&b, "]");
            if (g->nspares) {
                jt_strbuf_printf (&b, " s[");
                for (size_t j = 0; j < g->nspares; j++)
                    jt_strbuf_printf (&b, "%s%s", j ? " " : "",
                               node_name (s, g->spares[j]));
                jt_strbuf_printf (&b, "]");
            }
            jt_strbuf_printf (&b, " %s%s", g->env ? g->env->name : "?",
                       g->source == JT_SRC_SPONSOR ? " borrowed" : "");
        }
    } else {
        for (size_t i = 0; i < p->nsegs; i++) {
            const jt_cover_seg_t *sg = &p->segs[i];
            jt_strbuf_printf (&b, " | pay %s g%zu", sg->env ? sg->env->name : "?",
                       sg->first_group);
            if (sg->ngroups > 1)
                jt_strbuf_printf (&b, "-g%zu", sg->first_group + sg->ngroups - 1);
            jt_strbuf_printf (&b, " %lld%s", (long long) sg->gpus,
                       sg->source == JT_SRC_SPONSOR ? " borrowed" : "");
        }
    }
    return jt_strbuf_take (&b);
}

/* ---- hostlist-like node lists ---- */

/* Split "a017" into prefix length 1 and number 17 (width 3); false when
 * the name does not end in digits. */
static bool name_split (const char *name, size_t *plen, long *num, int *width)
{
    size_t n = strlen (name), i = n;

    while (i > 0 && isdigit ((unsigned char) name[i - 1]))
        i--;
    if (i == n || n - i > 9)
        return false;
    *plen = i;
    *width = (int) (n - i);
    *num = strtol (name + i, NULL, 10);
    return true;
}

/* "a[01-08]:8,b03:4": consecutive nodes with the same prefix, digit width
 * and GPUs collapse into a range. gpus may be NULL (spares). */
static void sb_nodes (jt_strbuf_t *b, const jt_snapshot_t *s, const size_t *nodes,
                      const int *gpus, size_t n)
{
    size_t i = 0;

    while (i < n) {
        const char *a = node_name (s, nodes[i]);
        size_t pa, pj;
        long na, nj;
        int wa, wj;
        size_t j = i + 1;
        if (name_split (a, &pa, &na, &wa)) {
            while (j < n) {
                const char *c = node_name (s, nodes[j]);
                if (!name_split (c, &pj, &nj, &wj) || pj != pa || wj != wa
                    || strncmp (a, c, pa) != 0 || nj != na + (long) (j - i)
                    || (gpus && gpus[j] != gpus[i]))
                    break;
                j++;
            }
        }
        jt_strbuf_printf (b, "%s", i ? "," : "");
        if (j - i > 1)
            jt_strbuf_printf (b, "%.*s[%0*ld-%0*ld]", (int) pa, a, wa, na, wa,
                       na + (long) (j - i - 1));
        else
            jt_strbuf_printf (b, "%s", a);
        if (gpus)
            jt_strbuf_printf (b, ":%d", gpus[i]);
        i = j;
    }
}

/* ---- human table ---- */

static int width_max (int w, const char *s)
{
    int l = s ? (int) strlen (s) : 1;
    return l > w ? l : w;
}

int jt_plan_print (const jt_plan_t *p, const jt_snapshot_t *s, FILE *f)
{
    int we = 8, wo = 5, wd = 6;

    if (!p || !f)
        return -1;
    fprintf (f, "decision:   %s\n", jt_decision_str (p->decision));
    fprintf (f, "reason:     %s\n", p->reason == JT_OK ? "-"
                                                       : jt_reason_str (p->reason));
    if (p->detail[0])
        fprintf (f, "detail:     %s\n", p->detail);
    if (p->decision == JT_PLAN_LATER) {
        char when[40];
        if (p->earliest_start > 0)
            jt_time_format (p->earliest_start, when, sizeof (when));
        fprintf (f, "earliest:   %s\n", p->earliest_start > 0 ? when
                 : "unknown (it waits on leases or nodes without a known end)");
    }
    fprintf (f, "requested:  %lld GPUs\n", (long long) p->requested_gpus);
    fprintf (f, "bound:      %lld GPUs\n", (long long) p->total_gpus);

    for (size_t i = 0; i < p->nsegs; i++) {
        we = width_max (we, p->segs[i].env->name);
        wo = width_max (wo, p->segs[i].env->owner);
    }
    for (size_t i = 0; i < p->ngroups; i++) {
        we = width_max (we, p->groups[i].env->name);
        wd = width_max (wd, domain_name (s, p->groups[i].domain));
    }
    for (size_t d = 0; d < p->ndomains; d++)
        wd = width_max (wd, domain_name (s, d));

    if (p->nsegs) {
        fprintf (f, "\ncover:\n  %-*s  %-*s  %-7s  %-7s  %s\n", we, "ENVELOPE",
                 wo, "OWNER", "SOURCE", "GROUPS", "GPUS");
        for (size_t i = 0; i < p->nsegs; i++) {
            const jt_cover_seg_t *sg = &p->segs[i];
            char grp[48];
            if (sg->ngroups > 1)
                snprintf (grp, sizeof (grp), "%zu-%zu", sg->first_group,
                          sg->first_group + sg->ngroups - 1);
            else
                snprintf (grp, sizeof (grp), "%zu", sg->first_group);
            fprintf (f, "  %-*s  %-*s  %-7s  %-7s  %lld\n", we, sg->env->name,
                     wo, sg->env->owner ? sg->env->owner : "-",
                     jt_source_str (sg->source), grp, (long long) sg->gpus);
        }
    }
    if (p->ngroups) {
        fprintf (f, "\ngroups:\n  %-5s  %-5s  %-*s  %-*s  %-8s  %s\n", "GROUP",
                 "GPUS", wd, "DOMAIN", we, "PAYER", "ROLE", "NODES");
        for (size_t i = 0; i < p->ngroups; i++) {
            const jt_plan_group_t *g = &p->groups[i];
            jt_strbuf_t b = JT_STRBUF_INIT;
            sb_nodes (&b, s, g->nodes, g->node_gpus, g->nnodes);
            if (g->nspares) {
                jt_strbuf_printf (&b, " spares=");
                sb_nodes (&b, s, g->spares, NULL, g->nspares);
            }
            {   /* the fingerprint the group's nodes share, when they have one */
                const char *fp;
                jt_conformance_kind_t k = jt_conformance_of (s, g->nodes,
                                                             g->nnodes, &fp);
                if (k != JT_CONF_NONE)
                    jt_strbuf_printf (&b, " conformance=%s",
                                      k == JT_CONF_ONE ? fp : JT_CONFORMANCE_MIXED);
            }
            char *nodes = jt_strbuf_take (&b);
            fprintf (f, "  %-5zu  %-5lld  %-*s  %-*s  %-8s  %s\n", g->index,
                     (long long) g->gpus, wd, domain_name (s, g->domain), we,
                     g->env->name, jt_role_str (g->role), nodes ? nodes : "?");
            free (nodes);
        }
        /* the fabric levels the groups span (docs/packing.md, "Levels") */
        for (size_t l = 0; l < s->nlevels; l++) {
            jt_strbuf_t b = JT_STRBUF_INIT;
            size_t n = 0;
            for (size_t i = 0; i < p->ngroups; i++) {
                const jt_domain_t *d = &s->domains[p->groups[i].domain];
                const char *u = d->up[l] >= 0 ? s->units[l][d->up[l]].name
                                              : d->name;
                bool seen = false;
                for (size_t j = 0; j < i && !seen; j++) {
                    const jt_domain_t *e = &s->domains[p->groups[j].domain];
                    seen = strcmp (u, e->up[l] >= 0 ? s->units[l][e->up[l]].name
                                                    : e->name) == 0;
                }
                if (!seen)
                    jt_strbuf_printf (&b, "%s%s", n++ ? " " : "", u);
            }
            char *units = jt_strbuf_take (&b);
            if (l == 0)
                fprintf (f, "\nlevels (the units the groups are in):\n  %-8s  %-5s  "
                         "%s\n", "LEVEL", "UNITS", "NAMES");
            fprintf (f, "  %-8s  %-5zu  %s\n", jt_level_name (s, l), n,
                     units ? units : "?");
            free (units);
        }
    }
    if (p->ndomains) {
        fprintf (f, "\nresidual free GPUs:\n  %-*s  %s\n", wd, "DOMAIN", "FREE");
        for (size_t d = 0; d < p->ndomains; d++)
            fprintf (f, "  %-*s  %lld\n", wd, domain_name (s, d),
                     (long long) p->residual[d]);
    }
    return ferror (f) ? -1 : 0;
}

/* ---- JSON ---- */

/* An RFC 3339 time, or null when t is 0 (not known). */
static int add_time (json_object *o, const char *k, int64_t t)
{
    char buf[40];

    if (t <= 0)
        return json_object_object_add (o, k, NULL) < 0 ? -1 : 0;
    jt_time_format (t, buf, sizeof (buf));
    return jt_json_add (o, k, json_object_new_string (buf));
}

/* A new object appended to array a, or NULL (out of memory). */
static json_object *push_object (json_object *a)
{
    json_object *v = json_object_new_object ();

    if (v && json_object_array_add (a, v) < 0) {
        json_object_put (v);
        v = NULL;
    }
    return v;
}

static json_object *nodes_json (const jt_snapshot_t *s, const size_t *nodes,
                                const int *gpus, size_t n)
{
    json_object *a = json_object_new_array ();

    for (size_t i = 0; a && i < n; i++) {
        json_object *v;
        if (gpus) {
            v = json_object_new_object ();
            if (!v || jt_json_add (v, "name", json_object_new_string (
                                          node_name (s, nodes[i]))) < 0
                || jt_json_add (v, "gpus", json_object_new_int (gpus[i])) < 0) {
                json_object_put (v);
                json_object_put (a);
                return NULL;
            }
        } else
            v = json_object_new_string (node_name (s, nodes[i]));
        if (!v || json_object_array_add (a, v) < 0) {
            json_object_put (v);
            json_object_put (a);
            return NULL;
        }
    }
    return a;
}

static json_object *plan_json (const jt_plan_t *p, const jt_snapshot_t *s)
{
    json_object *o = json_object_new_object ();
    json_object *cover = json_object_new_array ();
    json_object *groups = json_object_new_array ();
    json_object *res = json_object_new_array ();

    if (!o || !cover || !groups || !res)
        goto error;
    if (jt_json_add (o, "decision", json_object_new_string (
                                jt_decision_str (p->decision))) < 0
        || jt_json_add (o, "reason", json_object_new_string (jt_reason_str (p->reason))) < 0
        || jt_json_add (o, "detail", json_object_new_string (p->detail)) < 0
        || (p->decision == JT_PLAN_LATER
            && add_time (o, "earliestStart", p->earliest_start) < 0)
        || jt_json_add (o, "requestedGPUs", json_object_new_int64 (p->requested_gpus)) < 0
        || jt_json_add (o, "totalGPUs", json_object_new_int64 (p->total_gpus)) < 0)
        goto error;
    for (size_t i = 0; i < p->nsegs; i++) {
        const jt_cover_seg_t *sg = &p->segs[i];
        json_object *v = push_object (cover);
        if (!v || jt_json_add (v, "envelope", json_object_new_string (sg->env->name)) < 0
            || jt_json_add (v, "owner", json_object_new_string (
                                    sg->env->owner ? sg->env->owner : "")) < 0
            || jt_json_add (v, "source", json_object_new_string (
                                     jt_source_str (sg->source))) < 0
            || jt_json_add (v, "firstGroup", json_object_new_int64 (
                                         (int64_t) sg->first_group)) < 0
            || jt_json_add (v, "groups", json_object_new_int64 ((int64_t) sg->ngroups)) < 0
            || jt_json_add (v, "gpus", json_object_new_int64 (sg->gpus)) < 0)
            goto error;
    }
    for (size_t i = 0; i < p->ngroups; i++) {
        const jt_plan_group_t *g = &p->groups[i];
        json_object *v = push_object (groups);
        if (!v || jt_json_add (v, "index", json_object_new_int64 ((int64_t) g->index)) < 0
            || jt_json_add (v, "gpus", json_object_new_int64 (g->gpus)) < 0
            || jt_json_add (v, "domain", json_object_new_string (
                                     domain_name (s, g->domain))) < 0
            || jt_json_add (v, "envelope", json_object_new_string (g->env->name)) < 0
            || jt_json_add (v, "owner", json_object_new_string (
                                    g->env->owner ? g->env->owner : "")) < 0
            || jt_json_add (v, "source", json_object_new_string (
                                     jt_source_str (g->source))) < 0
            || jt_json_add (v, "role", json_object_new_string (jt_role_str (g->role))) < 0
            || jt_json_add (v, "nodes", nodes_json (s, g->nodes, g->node_gpus,
                                            g->nnodes)) < 0
            || jt_json_add (v, "spares", nodes_json (s, g->spares, NULL,
                                             g->nspares)) < 0)
            goto error;
        {   /* the fingerprint the group's nodes share (absent: none has one) */
            const char *fp;
            jt_conformance_kind_t k = jt_conformance_of (s, g->nodes, g->nnodes, &fp);
            if (k != JT_CONF_NONE
                && jt_json_add (v, "conformance", json_object_new_string (
                            k == JT_CONF_ONE ? fp : JT_CONFORMANCE_MIXED)) < 0)
                goto error;
        }
    }
    for (size_t d = 0; d < p->ndomains; d++) {
        json_object *v = push_object (res);
        if (!v || jt_json_add (v, "domain", json_object_new_string (domain_name (s, d))) < 0
            || jt_json_add (v, "freeGPUs", json_object_new_int64 (p->residual[d])) < 0)
            goto error;
    }
    {   /* jt_json_add takes each array, added or not */
        int rc = jt_json_add (o, "cover", cover);
        cover = NULL;
        if (rc < 0)
            goto error;
        rc = jt_json_add (o, "groups", groups);
        groups = NULL;
        if (rc < 0)
            goto error;
        rc = jt_json_add (o, "residual", res);
        res = NULL;
        if (rc < 0)
            goto error;
    }
    return o;
error:
    json_object_put (cover);
    json_object_put (groups);
    json_object_put (res);
    json_object_put (o);
    return NULL;
}

char *jt_plan_to_json (const jt_plan_t *p, const jt_snapshot_t *s)
{
    json_object *o;
    char *out = NULL;

    if (!p || !(o = plan_json (p, s)))
        return NULL;
    const char *t = json_object_to_json_string_ext (
        o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
               | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (t)
        out = strdup (t);
    json_object_put (o);
    return out;
}
