/*
 * spares.c - a run's spares on node failure (swap or requeue) and the
 * layout the job is told (jobtree/spares.h).
 *
 * DESIGN: the decision reads the record once and indexes the held nodes in
 * a map, so it is linear in the bound nodes; the new record is written
 * through jt_jobrec_rebind from leases that borrow the parsed record's
 * strings (nothing is copied twice, nothing is freed twice).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "jobtree/map.h"
#include "jobtree/spares.h"
#include "jobtree/timeutil.h"

const char *jt_spares_verdict_str (jt_spares_verdict_t v)
{
    switch (v) {
    case JT_SPARES_NONE:
        return "none";
    case JT_SPARES_SWAP:
        return "swap";
    case JT_SPARES_REQUEUE:
        return "requeue";
    }
    return "?";
}

void jt_spares_decision_free (jt_spares_decision_t *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nswaps; i++) {
        free (d->swaps[i].failed);
        free (d->swaps[i].spare);
    }
    free (d->swaps);
    free (d->record);
    memset (d, 0, sizeof (*d));
}

static void *mark = &mark;

static size_t count_held (char *const *v, size_t n, const jt_map_t *held)
{
    size_t c = 0;

    for (size_t k = 0; k < n; k++)
        c += jt_map_get (held, v[k]) != NULL;
    return c;
}

/* Does the run have spares at all (asked for, or bound)? */
static bool has_spares (const jt_jobrec_t *rec)
{
    if (rec->run && rec->run->spares_per_group > 0)
        return true;
    for (size_t i = 0; i < rec->nbound; i++)
        if (rec->bound[i].nspares)
            return true;
    return false;
}

/* The new leases: each group's missing nodes replaced by its held spares
 * in order, used and dead spares dropped, a swap entry each. The leases
 * borrow rec's strings; only their arrays are allocated (freed by
 * free_leases). Swaps are appended to d. 0, or -1 (ENOMEM). */
static int swap_all (const jt_jobrec_t *rec, const jt_map_t *held, int64_t now,
                     jt_jobrec_lease_t *nl, jt_spares_decision_t *d)
{
    for (size_t i = 0; i < rec->nbound; i++) {
        const jt_jobrec_lease_t *b = &rec->bound[i];
        size_t miss = b->nnodes - count_held (b->nodes, b->nnodes, held), next = 0;
        jt_jobrec_lease_t *x = &nl[i];

        *x = *b;
        x->nodes = calloc (b->nnodes ? b->nnodes : 1, sizeof (char *));
        x->spares = calloc (b->nspares ? b->nspares : 1, sizeof (char *));
        x->swaps = calloc (b->nswaps + miss + 1, sizeof (*x->swaps));
        x->nspares = 0;
        if (!x->nodes || !x->spares || !x->swaps)
            return -1;
        if (b->nswaps)
            memcpy (x->swaps, b->swaps, b->nswaps * sizeof (*b->swaps));
        for (size_t k = 0; k < b->nnodes; k++) {
            x->nodes[k] = b->nodes[k];
            if (jt_map_get (held, b->nodes[k]))
                continue;
            while (next < b->nspares && !jt_map_get (held, b->spares[next]))
                next++;     /* a dead spare: skipped (caller checked enough) */
            jt_spares_swap_t *sw = &d->swaps[d->nswaps];
            if (!(sw->failed = strdup (b->nodes[k]))
                || !(sw->spare = strdup (b->spares[next]))) {
                free (sw->failed);
                sw->failed = NULL;
                return -1;
            }
            sw->group = b->group;
            d->nswaps++;
            x->swaps[x->nswaps++] = (jt_jobrec_swap_t){ b->nodes[k], b->spares[next], now };
            x->nodes[k] = b->spares[next++];
        }
        for (; next < b->nspares; next++)
            if (jt_map_get (held, b->spares[next]))
                x->spares[x->nspares++] = b->spares[next];
    }
    return 0;
}

static void free_leases (jt_jobrec_lease_t *nl, size_t n)
{
    for (size_t i = 0; nl && i < n; i++) {
        free (nl[i].nodes);
        free (nl[i].spares);
        free (nl[i].swaps);
    }
    free (nl);
}

/* The nodes of v not in held, comma-separated, appended to buf. */
static void list_missing (char *const *v, size_t n, const jt_map_t *held, char *buf,
                          size_t len)
{
    size_t l = strlen (buf);

    for (size_t k = 0; k < n && l < len; k++)
        if (!jt_map_get (held, v[k])) {
            int w = snprintf (buf + l, len - l, "%s%s", l && buf[l - 1] != '(' ? "," : "",
                              v[k]);
            l = w < 0 || (size_t) w >= len - l ? len : l + (size_t) w;
        }
}

int jt_spares_on_fail (const char *rec_text, const char *const *held_nodes,
                       size_t nheld, int64_t now, jt_spares_decision_t *out,
                       jt_error_t *err)
{
    jt_jobrec_t rec;
    jt_map_t *held = NULL;
    jt_jobrec_lease_t *nl = NULL;
    size_t missing = 0;
    int rc = -1;

    memset (out, 0, sizeof (*out));
    if (jt_jobrec_parse (rec_text, &rec, err) < 0)
        return -1;
    if (!(held = jt_map_create (0)))
        goto nomem;
    for (size_t i = 0; i < nheld; i++)
        if (jt_map_put (held, held_nodes[i], mark, NULL) < 0)
            goto nomem;
    for (size_t i = 0; i < rec.nbound; i++) {
        const jt_jobrec_lease_t *b = &rec.bound[i];
        size_t miss = b->nnodes - count_held (b->nodes, b->nnodes, held);
        size_t avail = count_held (b->spares, b->nspares, held);
        missing += miss;
        if (miss > avail && out->verdict != JT_SPARES_REQUEUE && has_spares (&rec)) {
            out->verdict = JT_SPARES_REQUEUE;
            snprintf (out->detail, sizeof (out->detail), "group %d lost %zu node(s) "
                      "and holds %zu spare(s): the run is requeued (", b->group,
                      miss, avail);
            list_missing (b->nodes, b->nnodes, held, out->detail, sizeof (out->detail) - 1);
            strcat (out->detail, ")");
        }
    }
    if (out->verdict == JT_SPARES_REQUEUE) {
        rc = 0;
        goto done;
    }
    if (missing == 0 || !has_spares (&rec)) {
        snprintf (out->detail, sizeof (out->detail), missing ? "the run has no spares"
                  : "no node of a group is missing");
        rc = 0;
        goto done;
    }
    if (!(nl = calloc (rec.nbound, sizeof (*nl)))
        || !(out->swaps = calloc (missing, sizeof (*out->swaps))))
        goto nomem;
    if (swap_all (&rec, held, now, nl, out) < 0)
        goto nomem;
    if (!(out->record = jt_jobrec_rebind (rec_text, nl, rec.nbound, err)))
        goto fail;
    out->verdict = JT_SPARES_SWAP;
    {
        size_t l = 0;
        for (size_t i = 0; i < out->nswaps && l < sizeof (out->detail); i++) {
            int w = snprintf (out->detail + l, sizeof (out->detail) - l, "%sgroup %d: %s "
                              "replaced by spare %s", i ? "; " : "", out->swaps[i].group,
                              out->swaps[i].failed, out->swaps[i].spare);
            l = w < 0 ? sizeof (out->detail) : l + (size_t) w;
        }
    }
    rc = 0;
    goto done;
nomem:
    jt_errprintf (err, "out of memory");
fail:
    jt_spares_decision_free (out);
done:
    free_leases (nl, rec.nbound);
    jt_map_destroy (held, NULL);
    jt_jobrec_free (&rec);
    return rc;
}

int jt_spares_spans (jt_spares_decision_t *d, const jt_snapshot_t *s)
{
    size_t l, len = sizeof (d->detail);
    bool noted = false;
    int n = 0, last = 0;

    if (!d || !s || d->verdict != JT_SPARES_SWAP)
        return 0;
    l = strlen (d->detail);
    /* swaps come by group: the first of a group's swaps that crosses
     * domains speaks for the group */
    for (size_t i = 0; i < d->nswaps; i++) {
        const jt_spares_swap_t *w = &d->swaps[i];
        ssize_t f = jt_snapshot_node_index (s, w->failed);
        ssize_t p = jt_snapshot_node_index (s, w->spare);
        if (noted && w->group == last)
            continue;
        if (f < 0 || p < 0)
            continue;
        int fd = s->nodes[f].domain, pd = s->nodes[p].domain;
        if (fd < 0 || pd < 0 || fd == pd || (size_t) fd >= s->ndomains
            || (size_t) pd >= s->ndomains)
            continue;
        ssize_t uf = s->nlevels ? s->domains[fd].up[0] : -1;
        ssize_t up = s->nlevels ? s->domains[pd].up[0] : -1;
        int k;
        if (uf >= 0 && uf == up && (size_t) uf < s->nunits[0])
            k = snprintf (d->detail + l, len - l, "; group %d now spans two "
                          "domains of block %s (%s, %s)", w->group,
                          s->units[0][uf].name, s->domains[fd].name,
                          s->domains[pd].name);
        else
            k = snprintf (d->detail + l, len - l, "; group %d now spans "
                          "domains %s and %s", w->group, s->domains[fd].name,
                          s->domains[pd].name);
        l = k < 0 || (size_t) k >= len - l ? len - 1 : l + (size_t) k;
        noted = true;
        last = w->group;
        n++;
    }
    return n;
}

/* ---- layout ---- */

static json_object *names (char *const *v, size_t n)
{
    json_object *a = json_object_new_array ();

    for (size_t k = 0; a && k < n; k++)
        json_object_array_add (a, json_object_new_string (v[k]));
    return a;
}

char *jt_spares_layout_json (const jt_jobrec_t *rec, uint32_t job_id, jt_error_t *err)
{
    json_object *o = json_object_new_object (), *groups = json_object_new_array ();
    char ts[32], *out = NULL;

    if (!o || !groups)
        goto nomem;
    json_object_object_add (o, "version", json_object_new_int (1));
    json_object_object_add (o, "job", json_object_new_int64 ((int64_t) job_id));
    json_object_object_add (o, "groups", groups);
    for (size_t i = 0; i < rec->nbound; i++) {
        const jt_jobrec_lease_t *b = &rec->bound[i];
        json_object *g = json_object_new_object (), *sw;
        if (!g)
            goto nomem;
        json_object_array_add (groups, g);
        json_object_object_add (g, "group", json_object_new_int (b->group));
        json_object_object_add (g, "nodes", names (b->nodes, b->nnodes));
        json_object_object_add (g, "spares", names (b->spares, b->nspares));
        if (!b->nswaps)
            continue;
        if (!(sw = json_object_new_array ()))
            goto nomem;
        json_object_object_add (g, "swaps", sw);
        for (size_t k = 0; k < b->nswaps; k++) {
            json_object *w = json_object_new_object ();
            if (!w)
                goto nomem;
            json_object_array_add (sw, w);
            jt_time_format (b->swaps[k].time, ts, sizeof (ts));
            json_object_object_add (w, "failed", json_object_new_string (b->swaps[k].failed));
            json_object_object_add (w, "spare", json_object_new_string (b->swaps[k].spare));
            json_object_object_add (w, "time", json_object_new_string (ts));
        }
    }
    {
        const char *s = json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN);
        if (!s || !(out = strdup (s)))
            goto nomem;
    }
    json_object_put (o);
    return out;
nomem:
    if (!o)
        json_object_put (groups);
    json_object_put (o);
    jt_errprintf (err, "out of memory");
    return NULL;
}

int jt_spares_node_group (const jt_jobrec_t *rec, const char *node, bool *spare)
{
    for (size_t i = 0; i < rec->nbound; i++) {
        const jt_jobrec_lease_t *b = &rec->bound[i];
        for (size_t k = 0; k < b->nnodes; k++)
            if (!strcmp (b->nodes[k], node)) {
                *spare = false;
                return b->group;
            }
        for (size_t k = 0; k < b->nspares; k++)
            if (!strcmp (b->spares[k], node)) {
                *spare = true;
                return b->group;
            }
    }
    return -1;
}

int jt_spares_group_list (const jt_jobrec_lease_t *b, bool spare, char *buf, size_t len)
{
    char *const *v = spare ? b->spares : b->nodes;
    size_t n = spare ? b->nspares : b->nnodes, l = 0;

    if (len)
        buf[0] = '\0';
    for (size_t k = 0; k < n; k++) {
        int w = snprintf (buf + l, len - l, "%s%s", k ? "," : "", v[k]);
        if (w < 0 || (size_t) w >= len - l) {
            if (len)
                buf[0] = '\0';
            return -1;
        }
        l += (size_t) w;
    }
    return 0;
}
