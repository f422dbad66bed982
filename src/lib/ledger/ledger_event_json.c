/*
 * ledger_event_json.c - the ledger events' canonical JSON and their parse
 * (see jobtree/ledger.h, docs/ledger-format.md), and the events parsed
 * ahead of the fold on the reader's hash thread (jt_ledger_pre_events).
 *
 * DESIGN: the canonical form is produced by building a fresh json-c tree in
 * a fixed key order per event type and printing it compact. Parsing goes
 * back to the C struct (refusing unknown keys), so serialize(parse(x)) is
 * the canonical form of x and the daemon stores only canonical payloads.
 * Times are integer epoch seconds; the RandomPreempt seed is 16 hex digits
 * because JSON integers are signed 64-bit in json-c. The Activation's and
 * the Checkpoint's bodies are their codecs' (ledger_codec.h).
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
#include "jobtree/map.h"
#include "jobtree/ledger.h"
#include "jobtree/run.h"
#include "util/jsonutil.h"
#include "ledger_codec.h"
#include "ledger_event_int.h"
#include "util/sha256.h"

#define NELEM(a) (sizeof (a) / sizeof ((a)[0]))

/* ---- serialization ---- */

static int add_nodes (json_object *o, const jt_event_t *ev)
{
    json_object *a = json_object_new_array ();
    if (jt_json_add (o, "nodes", a) < 0)
        return -1;
    for (size_t i = 0; i < ev->nnodes; i++) {
        json_object *s = json_object_new_string (ev->nodes[i]);
        if (!s || json_object_array_add (a, s) < 0) {
            json_object_put (s);
            return -1;
        }
    }
    return 0;
}

static int build_lease (json_object *o, const jt_event_t *ev)
{
    if (jt_json_add_str (o, "lease", ev->lease) < 0 || jt_json_add_str (o, "run", ev->run) < 0
        || jt_json_add_str (o, "group", ev->group) < 0 || add_nodes (o, ev) < 0
        || jt_json_add_int (o, "gpus", ev->gpus) < 0
        || jt_json_add_str (o, "role", jt_role_str (ev->role)) < 0
        || jt_json_add_str (o, "envelope", ev->envelope) < 0
        || jt_json_add_str (o, "owner", ev->owner) < 0 || jt_json_add_int (o, "start", ev->start) < 0)
        return -1;
    if (ev->type == JT_EV_START && ev->conformance
        && jt_json_add_str (o, "conformance", ev->conformance) < 0)
        return -1;
    if (ev->type == JT_EV_END) {
        if (jt_json_add_int (o, "end", ev->end) < 0
            || jt_json_add_str (o, "reason", jt_end_reason_str (ev->reason)) < 0)
            return -1;
        if (ev->reason == JT_REASON_RANDOM_PREEMPT) {
            char hex[17];
            snprintf (hex, sizeof (hex), "%016" PRIx64, ev->seed);
            if (jt_json_add_str (o, "seed", hex) < 0)
                return -1;
        }
    }
    return 0;
}

static int build_budget (json_object *o, const jt_event_t *ev)
{
    json_object *files = json_object_new_array ();
    if (jt_json_add (o, "files", files) < 0)
        return -1;
    for (size_t i = 0; i < ev->nfiles; i++) {
        json_object *f = json_object_new_object ();
        if (!f || json_object_array_add (files, f) < 0) {
            json_object_put (f);
            return -1;
        }
        if (jt_json_add_str (f, "path", ev->files[i].path) < 0
            || jt_json_add_str (f, "sha256", ev->files[i].sha256) < 0)
            return -1;
    }
    json_object *caps = json_object_new_array ();
    if (jt_json_add (o, "caps", caps) < 0)
        return -1;
    for (size_t i = 0; i < ev->ncaps; i++) {
        const jt_ev_cap_t *c = &ev->caps[i];
        json_object *f = json_object_new_object ();
        if (!f || json_object_array_add (caps, f) < 0) {
            json_object_put (f);
            return -1;
        }
        if (jt_json_add_str (f, "envelope", c->envelope) < 0
            || jt_json_add_str (f, "owner", c->owner) < 0
            || jt_json_add_int (f, "concurrency", c->concurrency) < 0
            || jt_json_add (f, "maxGPUHours", json_object_new_double (c->max_gpu_hours)) < 0
            || jt_json_add_int (f, "start", c->start) < 0 || jt_json_add_int (f, "end", c->end) < 0)
            return -1;
    }
    if (ev->budgets_sha256[0] && jt_json_add_str (o, "budgetsSha256", ev->budgets_sha256) < 0)
        return -1;
    if (ev->budgets) {
        /* the canonical text read back: json-c prints it as it was */
        char *text = jt_budgets_to_json (ev->budgets, NULL);
        json_object *a = text ? json_tokener_parse (text) : NULL;
        free (text);
        if (jt_json_add (o, "budgets", a) < 0)
            return -1;
    }
    return 0;
}

static int build_body (json_object *o, const jt_event_t *ev)
{
    switch (ev->type) {
    case JT_EV_START:
    case JT_EV_END: return build_lease (o, ev);
    case JT_EV_RES_CREATE:
        if (jt_json_add_str (o, "reservation", ev->reservation) < 0
            || jt_json_add_str (o, "run", ev->run) < 0
            || jt_json_add_str (o, "envelope", ev->envelope) < 0
            || jt_json_add_str (o, "owner", ev->owner) < 0 || add_nodes (o, ev) < 0
            || jt_json_add_int (o, "gpus", ev->gpus) < 0 || jt_json_add_int (o, "start", ev->start) < 0)
            return -1;
        return 0;
    case JT_EV_RES_ACTIVATE:
    case JT_EV_RES_RELEASED:
        if (jt_json_add_str (o, "reservation", ev->reservation) < 0
            || jt_json_add_str (o, "run", ev->run) < 0)
            return -1;
        return 0;
    case JT_EV_BUDGET_LOADED: return build_budget (o, ev);
    case JT_EV_NODE_FAIL:
        if (add_nodes (o, ev) < 0)
            return -1;
        if (ev->run && jt_json_add_str (o, "run", ev->run) < 0)
            return -1;
        return 0;
    case JT_EV_ACTIVATION: return jt_ev_activation_build (o, ev);
    case JT_EV_CHECKPOINT: return jt_ev_checkpoint_build (o, ev);
    default: return -1;
    }
}

char *jt_event_to_json (const jt_event_t *ev, jt_error_t *err)
{
    if (jt_event_validate (ev, err) < 0)
        return NULL;
    json_object *o = json_object_new_object ();
    char *out = NULL;
    if (!o || jt_json_add_int (o, "v", 1) < 0
        || jt_json_add_str (o, "type", jt_ev_type_str (ev->type)) < 0
        || jt_json_add_str (o, "id", ev->id) < 0 || jt_json_add_int (o, "time", ev->time) < 0
        || build_body (o, ev) < 0 || (ev->note && jt_json_add_str (o, "note", ev->note) < 0))
        goto nomem;
    const char *s = json_object_to_json_string_ext (
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!s || !(out = strdup (s)))
        goto nomem;
    json_object_put (o);
    return out;
nomem:
    json_object_put (o);
    errno = ENOMEM;
    jt_errprintf (err, "out of memory");
    return NULL;
}

/* ---- parsing ---- */

static const char *const keys_common[] = { "v", "type", "id", "time", "note", NULL };
static const char *const keys_lease[] = { "lease", "run",      "group", "nodes", "gpus",
                                          "role",  "envelope", "owner", "start", NULL };
static const char *const keys_end[] = { "end", "reason", "seed", NULL };
static const char *const keys_start[] = { "conformance", NULL };
static const char *const keys_rc[] = { "reservation", "run",  "envelope", "owner",
                                       "nodes",       "gpus", "start",    NULL };
static const char *const keys_ra[] = { "reservation", "run", NULL };
static const char *const keys_budget[] = { "files", "caps", "budgetsSha256", "budgets",
                                           NULL };
static const char *const keys_nf[] = { "nodes", "run", NULL };
static const char *const keys_act[] = { "reservation", "run",  "scope",    "seed",
                                        "needs",       "holders", "cuts", "resolved",
                                        NULL };

static bool in_list (const char *const *l, const char *k)
{
    for (; l && *l; l++) /* the first byte first: most keys differ there */
        if (**l == *k && !strcmp (*l, k))
            return true;
    return false;
}

static char *ev_copy (const char *s, void *ev)
{
    return jt_event_strdup (ev, s);
}

/* jt_json_get_str into one of ev's strings, copied into ev's block
 * (jt_event_strdup: no allocation of its own for a parsed event). */
static int get_str (json_object *o, const char *key, bool req, char **out, jt_event_t *ev,
                    jt_error_t *err)
{
    return jt_json_get_str_copy (o, key, req, out, ev_copy, ev, err);
}

static int get_nodes (json_object *o, bool req, jt_event_t *ev, jt_error_t *err)
{
    json_object *a;
    if (!json_object_object_get_ex (o, "nodes", &a))
        return req ? jt_errprintf (err, "nodes: missing") : 0;
    if (!json_object_is_type (a, json_type_array))
        return jt_errprintf (err, "nodes: expected an array");
    size_t n = json_object_array_length (a);
    if (n) { /* the array grown once, not per node */
        char **v = realloc (ev->nodes, (ev->nnodes + n) * sizeof (*v));
        if (!v)
            return jt_errprintf (err, "out of memory");
        ev->nodes = v;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *s = json_object_array_get_idx (a, i);
        if (!json_object_is_type (s, json_type_string))
            return jt_errprintf (err, "nodes[%zu]: expected a string", i);
        char *cp = jt_event_strdup (ev, json_object_get_string (s));
        if (!cp)
            return jt_errprintf (err, "out of memory");
        ev->nodes[ev->nnodes++] = cp;
    }
    return 0;
}

static int get_enum (json_object *o, const char *key, int *out,
                     int (*parse) (const char *), jt_error_t *err)
{
    const char *s = NULL; /* borrowed from the tree */
    size_t len;
    if (jt_json_get_strref (o, key, true, &s, &len, err) < 0)
        return -1;
    *out = parse (s);
    if (*out == 0)
        return jt_errprintf (err, "%s: unknown value '%s'", key, s);
    return 0;
}

static int parse_role (const char *s)
{
    jt_role_t r;
    /* get_enum treats 0 as unknown: shift the role by one */
    return jt_role_parse (s, &r) < 0 ? 0 : (int) r + 1;
}
static int parse_reason (const char *s)
{
    return jt_end_reason_parse (s);
}

static int check_keys (json_object *o, const char *const *a, const char *const *b,
                       const char *const *c, jt_error_t *err)
{
    json_object_object_foreach (o, k, v)
    {
        (void) v;
        if (!in_list (keys_common, k) && !in_list (a, k) && !in_list (b, k)
            && !in_list (c, k))
            return jt_errprintf (err, "%s: unknown key", k);
    }
    return 0;
}

static int parse_budget (json_object *o, jt_event_t *ev, jt_error_t *err)
{
    json_object *a;
    if (json_object_object_get_ex (o, "files", &a)) {
        if (!json_object_is_type (a, json_type_array))
            return jt_errprintf (err, "files: expected an array");
        for (size_t i = 0; i < json_object_array_length (a); i++) {
            json_object *f = json_object_array_get_idx (a, i);
            char *path = NULL, *sha = NULL;
            if (!json_object_is_type (f, json_type_object))
                return jt_errprintf (err, "files[%zu]: expected an object", i);
            int rc = (jt_json_get_str (f, "path", true, &path, err) < 0
                      || jt_json_get_str (f, "sha256", true, &sha, err) < 0
                      || strlen (sha) != 64 || jt_event_add_file (ev, path, sha) < 0);
            if (rc && sha && strlen (sha) != 64)
                jt_errprintf (err, "files[%zu].sha256: expected 64 hex digits", i);
            free (path);
            free (sha);
            if (rc)
                return -1;
        }
    }
    if (json_object_object_get_ex (o, "caps", &a)) {
        if (!json_object_is_type (a, json_type_array))
            return jt_errprintf (err, "caps: expected an array");
        for (size_t i = 0; i < json_object_array_length (a); i++) {
            json_object *f = json_object_array_get_idx (a, i), *h;
            jt_ev_cap_t c = { 0 };
            if (!json_object_is_type (f, json_type_object))
                return jt_errprintf (err, "caps[%zu]: expected an object", i);
            int rc = (jt_json_get_str (f, "envelope", true, &c.envelope, err) < 0
                      || jt_json_get_str (f, "owner", true, &c.owner, err) < 0
                      || jt_json_get_int (f, "concurrency", true, &c.concurrency, err) < 0
                      || jt_json_get_int (f, "start", true, &c.start, err) < 0
                      || jt_json_get_int (f, "end", true, &c.end, err) < 0);
            if (!rc) {
                if (!json_object_object_get_ex (f, "maxGPUHours", &h)
                    || !(json_object_is_type (h, json_type_double)
                         || json_object_is_type (h, json_type_int)))
                    rc = jt_errprintf (err, "caps[%zu].maxGPUHours: expected a number",
                                       i);
                else
                    c.max_gpu_hours = json_object_get_double (h);
            }
            if (!rc && jt_event_add_cap (ev, &c) < 0)
                rc = jt_errprintf (err, "out of memory");
            free (c.envelope);
            free (c.owner);
            if (rc)
                return -1;
        }
    }
    char *sha = NULL;
    if (jt_json_get_str (o, "budgetsSha256", false, &sha, err) < 0)
        return -1;
    if (sha) {
        int bad = strlen (sha) != 64;
        if (!bad)
            memcpy (ev->budgets_sha256, sha, 65);
        free (sha);
        if (bad)
            return jt_errprintf (err, "budgetsSha256: expected 64 lowercase hex digits");
    }
    if (json_object_object_get_ex (o, "budgets", &a)) {
        if (!json_object_is_type (a, json_type_array))
            return jt_errprintf (err, "budgets: expected an array of budget objects");
        if (!(ev->budgets = jt_ev_budgets_from_array (a, err)))
            return -1;
    }
    return 0;
}

static int parse_body (json_object *o, jt_event_t *ev, jt_error_t *err)
{
    int role, reason;

    switch (ev->type) {
    case JT_EV_START:
    case JT_EV_END:
        if (check_keys (o, keys_lease, ev->type == JT_EV_END ? keys_end : keys_start, NULL,
                        err)
                < 0
            || get_str (o, "lease", true, &ev->lease, ev, err) < 0
            || get_str (o, "run", true, &ev->run, ev, err) < 0
            || get_str (o, "group", true, &ev->group, ev, err) < 0
            || get_nodes (o, true, ev, err) < 0
            || jt_json_get_int (o, "gpus", true, &ev->gpus, err) < 0
            || get_enum (o, "role", &role, parse_role, err) < 0
            || get_str (o, "envelope", true, &ev->envelope, ev, err) < 0
            || get_str (o, "owner", true, &ev->owner, ev, err) < 0
            || jt_json_get_int (o, "start", true, &ev->start, err) < 0
            || (ev->type == JT_EV_START
                && get_str (o, "conformance", false, &ev->conformance, ev, err) < 0))
            return -1;
        ev->role = (jt_lease_role_t) (role - 1);
        if (ev->type == JT_EV_END) {
            int has_seed;
            if (jt_json_get_int (o, "end", true, &ev->end, err) < 0
                || get_enum (o, "reason", &reason, parse_reason, err) < 0)
                return -1;
            ev->reason = reason;
            if ((has_seed = jt_json_get_hex64 (o, "seed", false, &ev->seed, err)) < 0)
                return -1;
            if (has_seed && ev->reason != JT_REASON_RANDOM_PREEMPT)
                return jt_errprintf (err, "seed: only with reason RandomPreempt");
            if (!has_seed && ev->reason == JT_REASON_RANDOM_PREEMPT)
                return jt_errprintf (err, "seed: RandomPreempt needs its seed");
        }
        return 0;
    case JT_EV_RES_CREATE:
        return (check_keys (o, keys_rc, NULL, NULL, err) < 0
                || get_str (o, "reservation", true, &ev->reservation, ev, err) < 0
                || get_str (o, "run", true, &ev->run, ev, err) < 0
                || get_str (o, "envelope", true, &ev->envelope, ev, err) < 0
                || get_str (o, "owner", true, &ev->owner, ev, err) < 0
                || get_nodes (o, false, ev, err) < 0
                || jt_json_get_int (o, "gpus", true, &ev->gpus, err) < 0
                || jt_json_get_int (o, "start", true, &ev->start, err) < 0)
                   ? -1
                   : 0;
    case JT_EV_RES_ACTIVATE:
    case JT_EV_RES_RELEASED:
        return (check_keys (o, keys_ra, NULL, NULL, err) < 0
                || get_str (o, "reservation", true, &ev->reservation, ev, err) < 0
                || get_str (o, "run", true, &ev->run, ev, err) < 0)
                   ? -1
                   : 0;
    case JT_EV_BUDGET_LOADED:
        return (check_keys (o, keys_budget, NULL, NULL, err) < 0
                || parse_budget (o, ev, err) < 0)
                   ? -1
                   : 0;
    case JT_EV_NODE_FAIL:
        return (check_keys (o, keys_nf, NULL, NULL, err) < 0
                || get_nodes (o, true, ev, err) < 0
                || get_str (o, "run", false, &ev->run, ev, err) < 0)
                   ? -1
                   : 0;
    case JT_EV_ACTIVATION:
        return (check_keys (o, keys_act, NULL, NULL, err) < 0
                || jt_ev_activation_parse (o, ev, err) < 0)
                   ? -1
                   : 0;
    case JT_EV_CHECKPOINT:
        return (check_keys (o, jt_ev_checkpoint_keys, NULL, NULL, err) < 0
                || jt_ev_checkpoint_parse (o, ev, err) < 0)
                   ? -1
                   : 0;
    default: return jt_errprintf (err, "type: unknown event type");
    }
}

/* One tokener per thread, reused: allocating one per event dominated replay
 * time (malloc churn). Freed by the key's destructor when a thread exits. */
static pthread_key_t tok_key;
static pthread_once_t tok_once = PTHREAD_ONCE_INIT;

static void tok_free (void *p)
{
    json_tokener_free (p);
}

static void tok_key_init (void)
{
    (void) pthread_key_create (&tok_key, tok_free);
}

static json_tokener *tok_get (void)
{
    pthread_once (&tok_once, tok_key_init);
    json_tokener *tok = pthread_getspecific (tok_key);
    if (!tok) {
        if (!(tok = json_tokener_new ()))
            return NULL;
        if (pthread_setspecific (tok_key, tok) != 0) {
            json_tokener_free (tok);
            return NULL;
        }
    }
    json_tokener_reset (tok);
    return tok;
}

/* A string value without an embedded NUL (the event keeps C strings, so a
 * \u0000 would not survive into the canonical form). */
static bool str_whole (json_object *v)
{
    const char *s = json_object_get_string (v);
    return s && strlen (s) == (size_t) json_object_get_string_len (v);
}

/* Whether text, just parsed into the tree o and the valid Start or End ev,
 * is ev's canonical form, without building a second tree: the tree's keys
 * are exactly build_lease's, in its order, no string holds a NUL, and the
 * tree prints back to text byte for byte. Then the tree and the one
 * jt_event_to_json would build have the same keys in the same order and the
 * same values (strings copied verbatim, names parsed by exact match, the
 * seed's 16 lowercase digits printed back as read, integers as int64), so
 * they print the same. false only means "not shown here": the caller then
 * compares with jt_event_to_json (docs/ledger-format.md 2.3). */
static bool canonical_lease (json_object *o, const jt_event_t *ev, const char *text,
                             size_t len)
{
    const char *k[20];
    size_t n = 0, i = 0, slen = 0;

    if (ev->type != JT_EV_START && ev->type != JT_EV_END)
        return false;
    static const char *const head[] = { "v",     "type",  "id",   "time", "lease",
                                        "run",   "group", "nodes", "gpus", "role",
                                        "envelope", "owner", "start" };
    for (size_t j = 0; j < NELEM (head); j++)
        k[n++] = head[j];
    if (ev->type == JT_EV_START && ev->conformance)
        k[n++] = "conformance";
    if (ev->type == JT_EV_END) {
        k[n++] = "end";
        k[n++] = "reason";
        if (ev->reason == JT_REASON_RANDOM_PREEMPT)
            k[n++] = "seed";
    }
    if (ev->note)
        k[n++] = "note";
    json_object_object_foreach (o, key, val)
    {
        if (i >= n || strcmp (key, k[i++]))
            return false;
        if (json_object_is_type (val, json_type_string) && !str_whole (val))
            return false;
        if (json_object_is_type (val, json_type_array))
            for (size_t j = 0; j < json_object_array_length (val); j++)
                if (!str_whole (json_object_array_get_idx (val, j)))
                    return false;
    }
    if (i != n)
        return false;
    const char *s = json_object_to_json_string_length (
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &slen);
    return s && slen == len && !memcmp (s, text, len);
}

/* jt_event_from_json_canon; with block, a lease's or a reservation's
 * strings are copied into one block with the event (jt_event_create_strs:
 * one allocation instead of one per string), for the read path, where the
 * event goes to the fold and is destroyed, never changed (jt_event_set
 * would free a string of the block). */
static jt_event_t *event_parse (const char *text, size_t len, bool *canonical, bool block,
                                jt_error_t *err)
{
    char *sat;
    json_tokener *tok = tok_get ();
    json_object *o = NULL;
    jt_event_t *ev = NULL;
    int64_t v = 0;
    const char *type = NULL; /* borrowed from the tree */
    size_t tlen;

    if (!tok) {
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    json_tokener_set_flags (tok, JSON_TOKENER_STRICT);
    sat = jt_json_saturate_ints (text, len);   /* json-c 0.17+: jsonutil.h */
    o = json_tokener_parse_ex (tok, sat ? sat : text, (int) len);
    free (sat);
    if (!o || json_tokener_get_error (tok) != json_tokener_success
        || tok->char_offset != (int) len) {
        jt_errprintf (err, "not a JSON object: %s",
                      o ? "trailing bytes"
                        : json_tokener_error_desc (json_tokener_get_error (tok)));
        goto error;
    }
    if (!json_object_is_type (o, json_type_object)) {
        jt_errprintf (err, "not a JSON object");
        goto error;
    }
    if (jt_json_get_int (o, "v", true, &v, err) < 0)
        goto error;
    if (v != 1) {
        jt_errprintf (err, "v: unsupported event version %" PRId64, v);
        goto error;
    }
    if (jt_json_get_strref (o, "type", true, &type, &tlen, err) < 0)
        goto error;
    jt_ev_type_t t = jt_ev_type_parse (type);
    /* a lease's or a reservation's strings in one block with the event
     * (each string's text takes at least its bytes and a NUL: the quotes) */
    if (!(ev = jt_event_create_strs (t, block
                                                && (t == JT_EV_START || t == JT_EV_END
                                                    || t == JT_EV_RES_CREATE
                                                    || t == JT_EV_RES_ACTIVATE
                                                    || t == JT_EV_RES_RELEASED
                                                    || t == JT_EV_NODE_FAIL)
                                            ? len + 1
                                            : 0))) {
        jt_errprintf (err, "out of memory");
        goto error;
    }
    if (ev->type == JT_EV_NONE) {
        jt_errprintf (err, "type: unknown event type '%s'", type);
        goto error;
    }
    if (get_str (o, "id", true, &ev->id, ev, err) < 0
        || jt_json_get_int (o, "time", true, &ev->time, err) < 0
        || get_str (o, "note", false, &ev->note, ev, err) < 0 || parse_body (o, ev, err) < 0
        || jt_event_validate (ev, err) < 0)
        goto error;
    if (canonical && !(*canonical = canonical_lease (o, ev, text, len))) {
        jt_error_t cerr = { "" };
        char *canon = jt_event_to_json (ev, &cerr); /* NULL: ENOMEM, "not shown" */
        *canonical = canon && strlen (canon) == len && !memcmp (canon, text, len);
        free (canon);
    }
    json_object_put (o);
    return ev;
error:
    jt_event_destroy (ev);
    json_object_put (o);
    return NULL;
}

jt_event_t *jt_event_from_json (const char *text, size_t len, jt_error_t *err)
{
    return event_parse (text, len, NULL, false, err);
}

jt_event_t *jt_event_from_json_canon (const char *text, size_t len, bool *canonical,
                                      jt_error_t *err)
{
    return event_parse (text, len, canonical, false, err);
}

/* ---- events parsed ahead of the fold (jt_ledger_read_pre) ---- */

struct ev_pre {
    jt_event_t *ev;      /* NULL: taken, or the parse failed (err) */
    bool with_flag;      /* canonical was decided */
    bool canonical;
    uint64_t idh;        /* jt_str_hash64 (ev->id), with ev */
    jt_error_t err;
};

static const bool want_flag = true, no_flag = false;

static void *pre_parse (const jt_record_t *rec, void *arg)
{
    struct ev_pre *p = calloc (1, sizeof (*p));
    if (!p)
        return NULL; /* the callback parses it */
    p->with_flag = *(const bool *) arg;
    p->ev = event_parse (rec->payload, rec->len, p->with_flag ? &p->canonical : NULL, true,
                         &p->err);
    if (!p->ev && errno == ENOMEM && !strcmp (p->err.text, "out of memory")) {
        free (p); /* the callback tries again and says so itself */
        return NULL;
    }
    if (p->ev) /* here, on a parsing thread, not on the fold's */
        p->idh = jt_str_hash64 (p->ev->id);
    return p;
}

static void pre_release (void *arg)
{
    struct ev_pre *p = arg;
    jt_event_destroy (p->ev);
    free (p);
}

void jt_ledger_pre_events (jt_ledger_pre_t *pre, bool canonical)
{
    pre->parse = pre_parse;
    pre->release = pre_release;
    pre->arg = (void *) (canonical ? &want_flag : &no_flag);
    pre->threads = 0;
    pre->ahead = NULL;
}

jt_event_t *jt_record_event_ref (const jt_record_t *rec, bool *canonical, bool *owned,
                                 jt_error_t *err)
{
    struct ev_pre *p = rec->pre;
    *owned = !p || (canonical && !p->with_flag);
    if (*owned) /* the caller destroys it right after the fold: one block */
        return event_parse (rec->payload, rec->len, canonical, true, err);
    if (!p->ev) {
        jt_errprintf (err, "%s", p->err.text);
        return NULL;
    }
    if (canonical)
        *canonical = p->canonical;
    return p->ev;
}

bool jt_record_event_id_hash (const jt_record_t *rec, uint64_t *h)
{
    const struct ev_pre *p = rec->pre;
    if (!p || !p->ev)
        return false;
    *h = p->idh;
    return true;
}

jt_event_t *jt_record_event (const jt_record_t *rec, bool *canonical, jt_error_t *err)
{
    struct ev_pre *p = rec->pre;
    if (!p || (canonical && !p->with_flag))
        return jt_event_from_json_canon (rec->payload, rec->len, canonical, err);
    if (!p->ev) {
        jt_errprintf (err, "%s", p->err.text);
        return NULL;
    }
    if (canonical)
        *canonical = p->canonical;
    jt_event_t *ev = p->ev;
    if (jt_event_strs_own (ev) < 0) { /* the caller's: strings of its own */
        jt_errprintf (err, "out of memory");
        return NULL; /* p->ev stays, for the release */
    }
    p->ev = NULL;
    return ev;
}
