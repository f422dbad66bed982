/*
 * ledger_event.c - the ledger's event model: names, construction,
 * BudgetLoaded's budget content, validation (see jobtree/ledger.h,
 * docs/ledger-format.md). The canonical JSON and the parse are
 * ledger_event_json.c's; the Activation's and the Checkpoint's bodies are
 * their codecs' (ledger_codec.h), below this file.
 *
 * DESIGN: the canonical form is produced by building a fresh json-c tree in
 * a fixed key order per event type and printing it compact. Parsing goes
 * back to the C struct (refusing unknown keys), so serialize(parse(x)) is
 * the canonical form of x and the daemon stores only canonical payloads.
 * Times are integer epoch seconds; the RandomPreempt seed is 16 hex digits
 * because JSON integers are signed 64-bit in json-c. The Activation event's
 * body (its arrays, checks, constructor and recomputation) is
 * ledger_event_activation.c's.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "jobtree/labels.h"
#include "jobtree/ledger.h"
#include "jobtree/run.h"
#include "util/jsonutil.h"
#include "ledger_codec.h"
#include "ledger_event_int.h"
#include "util/sha256.h"

#define ID_MAX 256

static const char *const type_names[] = {
    [JT_EV_START] = "Start",
    [JT_EV_END] = "End",
    [JT_EV_RES_CREATE] = "ReservationCreate",
    [JT_EV_RES_ACTIVATE] = "ReservationActivate",
    [JT_EV_RES_RELEASED] = "ReservationReleased",
    [JT_EV_BUDGET_LOADED] = "BudgetLoaded",
    [JT_EV_NODE_FAIL] = "NodeFail",
    [JT_EV_ACTIVATION] = "Activation",
    [JT_EV_CHECKPOINT] = "Checkpoint",
};
static const char *const reason_names[] = {
    [JT_REASON_END] = "End",
    [JT_REASON_SWAP] = "Swap",
    [JT_REASON_SHRINK] = "Shrink",
    [JT_REASON_RANDOM_PREEMPT] = "RandomPreempt",
    [JT_REASON_RECLAIMED_BY_SPARE] = "ReclaimedBySpare",
    [JT_REASON_FAIL] = "Fail",
    [JT_REASON_JOB_GONE] = "JobGone",
    [JT_REASON_DROP_SPARE] = "DropSpare",
};

#define NELEM(a) (sizeof (a) / sizeof ((a)[0]))

static const char *name_of (const char *const *names, size_t n, int v)
{
    return (v > 0 && (size_t) v < n && names[v]) ? names[v] : "None";
}

static int parse_name (const char *const *names, size_t n, const char *s)
{
    for (size_t i = 1; s && i < n; i++)
        if (names[i] && !strcmp (names[i], s))
            return (int) i;
    return 0;
}

const char *jt_ev_type_str (jt_ev_type_t t)
{
    return name_of (type_names, NELEM (type_names), t);
}
const char *jt_end_reason_str (jt_end_reason_t r)
{
    return name_of (reason_names, NELEM (reason_names), r);
}
jt_ev_type_t jt_ev_type_parse (const char *s)
{
    return parse_name (type_names, NELEM (type_names), s);
}
jt_end_reason_t jt_end_reason_parse (const char *s)
{
    return parse_name (reason_names, NELEM (reason_names), s);
}

jt_event_t *jt_event_create (jt_ev_type_t type)
{
    jt_event_t *ev = calloc (1, sizeof (*ev));
    if (ev)
        ev->type = type;
    return ev;
}

jt_event_t *jt_event_create_strs (jt_ev_type_t type, size_t strs)
{
    if (strs > SIZE_MAX - sizeof (jt_event_t))
        return NULL;
    jt_event_t *ev = malloc (sizeof (*ev) + strs);
    if (!ev)
        return NULL;
    memset (ev, 0, sizeof (*ev));
    ev->type = type;
    ev->strs = strs ? (char *) (ev + 1) : NULL;
    ev->strs_size = strs;
    return ev;
}

char *jt_event_strdup (jt_event_t *ev, const char *s)
{
    size_t n = strlen (s) + 1;
    if (n > ev->strs_size - ev->strs_used)
        return strdup (s);
    char *p = ev->strs + ev->strs_used;
    memcpy (p, s, n);
    ev->strs_used += n;
    return p;
}

/* Free one of ev's strings unless it lives in ev's block. */
static void free_str (const jt_event_t *ev, char *p)
{
    uintptr_t a = (uintptr_t) p, b = (uintptr_t) ev->strs;
    if (!ev->strs || a < b || a - b >= ev->strs_size)
        free (p);
}

/* *p's own copy if it lives in ev's block. 0, or -1 on ENOMEM. */
static int own_str (const jt_event_t *ev, char **p)
{
    uintptr_t a = (uintptr_t) *p, b = (uintptr_t) ev->strs;
    if (!*p || a < b || a - b >= ev->strs_size)
        return 0;
    char *cp = strdup (*p);
    if (!cp)
        return -1;
    *p = cp;
    return 0;
}

int jt_event_strs_own (jt_event_t *ev)
{
    if (!ev->strs)
        return 0;
    for (size_t i = 0; i < ev->nnodes; i++)
        if (own_str (ev, &ev->nodes[i]) < 0)
            return -1;
    if (own_str (ev, &ev->id) < 0 || own_str (ev, &ev->lease) < 0
        || own_str (ev, &ev->run) < 0 || own_str (ev, &ev->group) < 0
        || own_str (ev, &ev->envelope) < 0 || own_str (ev, &ev->owner) < 0
        || own_str (ev, &ev->reservation) < 0 || own_str (ev, &ev->note) < 0
        || own_str (ev, &ev->conformance) < 0)
        return -1;
    ev->strs = NULL; /* the block stays, unused, in the event's allocation */
    ev->strs_size = ev->strs_used = 0;
    return 0;
}

void jt_event_destroy (jt_event_t *ev)
{
    if (!ev)
        return;
    int saved = errno;
    free_str (ev, ev->id);
    free_str (ev, ev->lease);
    free_str (ev, ev->run);
    free_str (ev, ev->group);
    for (size_t i = 0; i < ev->nnodes; i++)
        free_str (ev, ev->nodes[i]);
    free (ev->nodes);
    free_str (ev, ev->envelope);
    free_str (ev, ev->owner);
    free_str (ev, ev->reservation);
    for (size_t i = 0; i < ev->nfiles; i++)
        free (ev->files[i].path);
    free (ev->files);
    for (size_t i = 0; i < ev->ncaps; i++) {
        free (ev->caps[i].envelope);
        free (ev->caps[i].owner);
    }
    free (ev->caps);
    jt_budgets_destroy (ev->budgets);
    jt_ev_activation_free (ev);
    free (ev->state);
    free_str (ev, ev->note);
    free_str (ev, ev->conformance);
    free (ev);
    errno = saved;
}

int jt_event_set (char **field, const char *s)
{
    char *cp = NULL;
    if (s && !(cp = strdup (s)))
        return -1;
    free (*field);
    *field = cp;
    return 0;
}

int jt_event_add_node (jt_event_t *ev, const char *node)
{
    char **v = realloc (ev->nodes, (ev->nnodes + 1) * sizeof (*v));
    if (!v)
        return -1;
    ev->nodes = v;
    if (!(v[ev->nnodes] = strdup (node)))
        return -1;
    ev->nnodes++;
    return 0;
}

int jt_event_add_file (jt_event_t *ev, const char *path, const char *sha256)
{
    jt_ev_file_t *v = realloc (ev->files, (ev->nfiles + 1) * sizeof (*v));
    if (!v)
        return -1;
    ev->files = v;
    memset (&v[ev->nfiles], 0, sizeof (v[0]));
    if (!(v[ev->nfiles].path = strdup (path)))
        return -1;
    snprintf (v[ev->nfiles].sha256, sizeof (v[0].sha256), "%s", sha256);
    ev->nfiles++;
    return 0;
}

int jt_event_add_cap (jt_event_t *ev, const jt_ev_cap_t *cap)
{
    jt_ev_cap_t *v = realloc (ev->caps, (ev->ncaps + 1) * sizeof (*v));
    if (!v)
        return -1;
    ev->caps = v;
    jt_ev_cap_t *c = &v[ev->ncaps];
    *c = *cap;
    c->envelope = strdup (cap->envelope ? cap->envelope : "");
    c->owner = strdup (cap->owner ? cap->owner : "");
    if (!c->envelope || !c->owner) {
        free (c->envelope);
        free (c->owner);
        return -1;
    }
    ev->ncaps++;
    return 0;
}

/* ---- BudgetLoaded's budget content ---- */

/* A finalized budget set from the elements of a JSON array, each a budget
 * file's object, through the budget reader (its checks, its messages).
 * NULL with err naming the element, the field and the problem. */
jt_budgets_t *jt_ev_budgets_from_array (json_object *a, jt_error_t *err)
{
    jt_budgets_t *b = jt_budgets_create ();
    jt_diags_t diags;
    int rc = 0;

    if (!b) {
        errno = ENOMEM;
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    jt_diags_init (&diags);
    for (size_t i = 0; i < json_object_array_length (a) && !rc; i++) {
        json_object *o = json_object_array_get_idx (a, i);
        char name[32];
        snprintf (name, sizeof (name), "budgets[%zu]", i);
        if (!json_object_is_type (o, json_type_object)) {
            rc = jt_errprintf (err, "%s: expected a budget object", name);
            break;
        }
        const char *t = json_object_to_json_string_ext (
            o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        if (!t) {
            rc = jt_errprintf (err, "out of memory");
            break;
        }
        rc = jt_budgets_add_json (b, name, t, strlen (t), &diags);
    }
    if (!rc)
        rc = jt_budgets_finalize (b, &diags);
    if (rc < 0 && diags.n) {
        char line[512];
        jt_diag_format (&diags.v[0], line, sizeof (line));
        jt_errprintf (err, "budgets: %s", line);
    }
    jt_diags_free (&diags);
    if (rc < 0) {
        jt_budgets_destroy (b);
        return NULL;
    }
    return b;
}

/* The budget set of canonical text (jt_budgets_to_json's): a copy. */
static jt_budgets_t *budgets_from_text (const char *text, jt_error_t *err)
{
    json_object *a = json_tokener_parse (text);
    jt_budgets_t *b = NULL;

    if (!a || !json_object_is_type (a, json_type_array))
        jt_errprintf (err, "budgets: cannot read back their canonical text");
    else
        b = jt_ev_budgets_from_array (a, err);
    json_object_put (a);
    return b;
}

jt_budgets_t *jt_ev_budgets_copy (const jt_budgets_t *b, jt_error_t *err)
{
    char *text = jt_budgets_to_json (b, err);
    jt_budgets_t *c = text ? budgets_from_text (text, err) : NULL;

    free (text);
    return c;
}

/* The caps a BudgetLoaded lists are exactly its content's: every envelope
 * once, with its owner, C, resolved B and window. */
static int caps_match (const jt_event_t *ev, jt_error_t *err)
{
    const jt_budgets_t *b = ev->budgets;

    if (ev->ncaps != b->nenv)
        return jt_errprintf (err, "caps: %zu listed, the budgets hold %zu envelopes",
                             ev->ncaps, b->nenv);
    for (size_t i = 0; i < ev->ncaps; i++) {
        const jt_ev_cap_t *c = &ev->caps[i];
        const jt_envelope_t *e = jt_budgets_envelope (b, c->envelope);
        if (!e)
            return jt_errprintf (err, "caps[%zu]: envelope %s is not in the budgets", i,
                                 c->envelope);
        if (strcmp (e->owner, c->owner) || e->concurrency != c->concurrency
            || jt_envelope_gpu_hours_cap (e) != c->max_gpu_hours
            || e->start != c->start || e->end != c->end)
            return jt_errprintf (err, "caps[%zu]: envelope %s's caps differ from the "
                                 "budgets' (owner, concurrency, maxGPUHours or window)",
                                 i, c->envelope);
    }
    return 0;
}

/* budgets and budgetsSha256 of a BudgetLoaded: the hash is 64 lowercase
 * hex digits, and with content it is the SHA-256 of the content's
 * canonical text, which is at most JT_EV_BUDGETS_MAX bytes and agrees with
 * the caps. */
static int validate_budgets (const jt_event_t *ev, jt_error_t *err)
{
    char hex[65];
    char *text;
    int rc = 0;

    if (ev->budgets_sha256[0] && !jt_sha256_hex_ok (ev->budgets_sha256))
        return jt_errprintf (err, "budgetsSha256: expected 64 lowercase hex digits");
    if (!ev->budgets)
        return 0;
    if (!ev->budgets_sha256[0])
        return jt_errprintf (err, "budgetsSha256: missing (required with budgets)");
    if (!(text = jt_budgets_to_json (ev->budgets, err)))
        return -1;
    if (strlen (text) > JT_EV_BUDGETS_MAX)
        rc = jt_errprintf (err, "budgets: %zu bytes of canonical text, more than %d",
                           strlen (text), JT_EV_BUDGETS_MAX);
    else if (jt_sha256_hex (text, strlen (text), hex) < 0
             || strcmp (hex, ev->budgets_sha256))
        rc = jt_errprintf (err, "budgetsSha256: not the SHA-256 of the budgets' "
                           "canonical text (%s)", hex);
    free (text);
    return rc < 0 ? rc : caps_match (ev, err);
}

jt_event_t *jt_event_budget_loaded (const jt_budgets_t *b, const char *id,
                                    int64_t time, jt_error_t *err)
{
    jt_event_t *ev = jt_event_create (JT_EV_BUDGET_LOADED);
    if (!ev || jt_event_set (&ev->id, id) < 0)
        goto nomem;
    ev->time = time;
    for (size_t i = 0; i < b->n; i++)
        if (b->v[i].file && b->v[i].sha256[0]
            && jt_event_add_file (ev, b->v[i].file, b->v[i].sha256) < 0)
            goto nomem;
    for (size_t i = 0; i < b->nenv; i++) {
        const jt_envelope_t *e = b->env[i];
        jt_ev_cap_t c = { .envelope = e->name,
                          .owner = (char *) e->owner,
                          .concurrency = e->concurrency,
                          .max_gpu_hours = jt_envelope_gpu_hours_cap (e),
                          .start = e->start,
                          .end = e->end };
        if (jt_event_add_cap (ev, &c) < 0)
            goto nomem;
    }
    char *text = jt_budgets_to_json (b, err);
    if (!text)
        goto fail;
    if (jt_sha256_hex (text, strlen (text), ev->budgets_sha256) < 0) {
        free (text);
        goto nomem;
    }
    if (strlen (text) <= JT_EV_BUDGETS_MAX && !(ev->budgets = budgets_from_text (text, err))) {
        free (text);
        goto fail;
    }
    free (text);
    if (jt_event_validate (ev, err) < 0) {
        jt_event_destroy (ev);
        return NULL;
    }
    return ev;
nomem:
    jt_errprintf (err, "out of memory");
fail:
    jt_event_destroy (ev);
    return NULL;
}

/* ---- validation ---- */

static bool nonempty (const char *s)
{
    return s && *s;
}

static int need_str (const char *s, const char *key, jt_error_t *err)
{
    if (!nonempty (s))
        return jt_errprintf (err, "%s: missing or empty", key);
    return 0;
}

/* A time in [0, JT_EV_TIME_MAX]. */
static int need_time (int64_t t, const char *key, jt_error_t *err)
{
    if (t < 0 || t > JT_EV_TIME_MAX)
        return jt_errprintf (err, "%s: %" PRId64 " is not a time in [0, %" PRId64 "]",
                             key, t, JT_EV_TIME_MAX);
    return 0;
}

/* A GPU count in [1, JT_RUN_GPUS_MAX]: a fold adds it, so it is bounded. */
static int need_gpus (int64_t g, jt_error_t *err)
{
    if (g < 1 || g > JT_RUN_GPUS_MAX)
        return jt_errprintf (err, "gpus: must be in [1, %" PRId64 "], got %" PRId64,
                             JT_RUN_GPUS_MAX, g);
    return 0;
}

static int validate_lease (const jt_event_t *ev, jt_error_t *err)
{
    if (need_str (ev->lease, "lease", err) < 0 || need_str (ev->run, "run", err) < 0
        || need_str (ev->group, "group", err) < 0
        || need_str (ev->envelope, "envelope", err) < 0
        || need_str (ev->owner, "owner", err) < 0)
        return -1;
    if (ev->nnodes == 0)
        return jt_errprintf (err, "nodes: a lease needs at least one node");
    if (need_gpus (ev->gpus, err) < 0)
        return -1;
    if (ev->role != JT_ROLE_ACTIVE && ev->role != JT_ROLE_SPARE
        && ev->role != JT_ROLE_BORROWED)
        return jt_errprintf (err, "role: must be Active, Spare or Borrowed");
    if (need_time (ev->start, "start", err) < 0)
        return -1;
    if (ev->conformance && (ev->type != JT_EV_START || !jt_label_value_ok (ev->conformance)))
        return jt_errprintf (err, "conformance: a Start's optional node label value");
    if (ev->type == JT_EV_END) {
        if (need_time (ev->end, "end", err) < 0)
            return -1;
        if (ev->end < ev->start)
            return jt_errprintf (err, "end: %" PRId64 " is before start %" PRId64,
                                 ev->end, ev->start);
        if (ev->reason == JT_REASON_NONE)
            return jt_errprintf (err, "reason: missing");
        if (ev->seed && ev->reason != JT_REASON_RANDOM_PREEMPT)
            return jt_errprintf (err, "seed: only with reason RandomPreempt");
    }
    return 0;
}

static int cmp_cap_name (const void *a, const void *b)
{
    return strcmp ((*(const jt_ev_cap_t *const *) a)->envelope,
                   (*(const jt_ev_cap_t *const *) b)->envelope);
}

/* Each envelope at most once in a caps list (its caps in force must be one
 * set). O(n log n). */
static int caps_distinct (const jt_event_t *ev, jt_error_t *err)
{
    const jt_ev_cap_t **v;
    int rc = 0;

    if (ev->ncaps < 2)
        return 0;
    if (!(v = malloc (ev->ncaps * sizeof (*v))))
        return jt_errprintf (err, "out of memory");
    for (size_t i = 0; i < ev->ncaps; i++)
        v[i] = &ev->caps[i];
    qsort (v, ev->ncaps, sizeof (*v), cmp_cap_name);
    for (size_t i = 1; i < ev->ncaps && !rc; i++)
        if (!strcmp (v[i - 1]->envelope, v[i]->envelope))
            rc = jt_errprintf (err, "caps: envelope %s appears twice", v[i]->envelope);
    free (v);
    return rc;
}

int jt_event_validate (const jt_event_t *ev, jt_error_t *err)
{
    if (!ev)
        return jt_errprintf (err, "no event");
    if (ev->type <= JT_EV_NONE || ev->type > JT_EV_CHECKPOINT)
        return jt_errprintf (err, "type: unknown event type");
    if (need_str (ev->id, "id", err) < 0)
        return -1;
    if (strlen (ev->id) > ID_MAX)
        return jt_errprintf (err, "id: longer than %d bytes", ID_MAX);
    if (need_time (ev->time, "time", err) < 0)
        return -1;
    for (size_t i = 0; i < ev->nnodes; i++)
        if (!nonempty (ev->nodes[i]))
            return jt_errprintf (err, "nodes[%zu]: empty", i);
    switch (ev->type) {
    case JT_EV_START:
    case JT_EV_END: return validate_lease (ev, err);
    case JT_EV_RES_CREATE:
        if (need_str (ev->envelope, "envelope", err) < 0
            || need_str (ev->owner, "owner", err) < 0
            || need_gpus (ev->gpus, err) < 0 || need_time (ev->start, "start", err) < 0)
            return -1;
        /* fall through */
    case JT_EV_RES_ACTIVATE:
    case JT_EV_RES_RELEASED:
        if (need_str (ev->reservation, "reservation", err) < 0
            || need_str (ev->run, "run", err) < 0)
            return -1;
        return 0;
    case JT_EV_BUDGET_LOADED:
        for (size_t i = 0; i < ev->nfiles; i++)
            if (!nonempty (ev->files[i].path) || !jt_sha256_hex_ok (ev->files[i].sha256))
                return jt_errprintf (err, "files[%zu]: needs path and a hex sha256", i);
        for (size_t i = 0; i < ev->ncaps; i++) {
            const jt_ev_cap_t *c = &ev->caps[i];
            if (!nonempty (c->envelope) || !nonempty (c->owner))
                return jt_errprintf (err, "caps[%zu]: needs envelope and owner", i);
            if (c->concurrency < 1 || !(c->max_gpu_hours >= 0)
                || !isfinite (c->max_gpu_hours) || c->start < 0 || c->start >= c->end
                || c->end > JT_EV_TIME_MAX)
                return jt_errprintf (err,
                                     "caps[%zu]: needs concurrency >= 1, a finite "
                                     "maxGPUHours >= 0 and 0 <= start < end <= %" PRId64,
                                     i, JT_EV_TIME_MAX);
        }
        return caps_distinct (ev, err) < 0 ? -1 : validate_budgets (ev, err);
    case JT_EV_NODE_FAIL:
        if (ev->nnodes == 0)
            return jt_errprintf (err, "nodes: NodeFail needs a node");
        return 0;
    case JT_EV_ACTIVATION: return jt_ev_activation_validate (ev, err);
    case JT_EV_CHECKPOINT: return jt_ev_checkpoint_validate (ev, err);
    default: return jt_errprintf (err, "type: unknown event type");
    }
}
