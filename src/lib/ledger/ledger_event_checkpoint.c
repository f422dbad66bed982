/*
 * ledger_event_checkpoint.c - the Checkpoint ledger event's body
 * (jobtree/ledger.h, docs/ledger-format.md 4.2): upTo, part, parts,
 * stateSha256 and the state object, its checks, canonical JSON and parse,
 * called from the event model's switches (ledger_event.c,
 * ledger_event_json.c) through ledger_codec.h. What the state says (the
 * fold's canonical text) is ledger_checkpoint.c's and
 * ledger_checkpoint_restore.c's, above the fold.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "jobtree/ledger.h"
#include "jobtree/ledger_checkpoint.h"
#include "ledger_codec.h"
#include "util/jsonutil.h"
#include "util/sha256.h"

const char *const jt_ev_checkpoint_keys[] = { "upTo", "part", "parts", "stateSha256",
                                              "state", NULL };

int jt_ev_checkpoint_validate (const jt_event_t *ev, jt_error_t *err)
{
    char id[80];

    if (ev->up_to < 1 || ev->up_to >= (uint64_t) INT64_MAX)
        return jt_errprintf (err, "upTo: must be a record seq (1 or more)");
    if (ev->parts < 1 || ev->parts > JT_CKPT_PARTS_MAX)
        return jt_errprintf (err, "parts: must be 1 to %d", JT_CKPT_PARTS_MAX);
    if (ev->part < 1 || ev->part > ev->parts)
        return jt_errprintf (err, "part: must be 1 to parts (%" PRId64 ")", ev->parts);
    if (!jt_sha256_hex_ok (ev->state_sha256))
        return jt_errprintf (err, "stateSha256: expected 64 lowercase hex digits");
    if (!ev->state || ev->state[0] != '{')
        return jt_errprintf (err, "state: expected an object");
    snprintf (id, sizeof (id), "checkpoint:%" PRIu64 ":%" PRId64, ev->up_to, ev->part);
    if (strcmp (ev->id, id))
        return jt_errprintf (err, "id: a Checkpoint's id is \"%s\" (checkpoint:UPTO:PART)",
                             id);
    return 0;
}

int jt_ev_checkpoint_build (json_object *o, const jt_event_t *ev)
{
    json_object *st = json_tokener_parse (ev->state);

    if (!st)
        return -1;
    if (jt_json_add_int (o, "upTo", (int64_t) ev->up_to) < 0
        || jt_json_add_int (o, "part", ev->part) < 0
        || jt_json_add_int (o, "parts", ev->parts) < 0
        || jt_json_add_str (o, "stateSha256", ev->state_sha256) < 0) {
        json_object_put (st);
        return -1;
    }
    return jt_json_add (o, "state", st);
}

int jt_ev_checkpoint_parse (json_object *o, jt_event_t *ev, jt_error_t *err)
{
    int64_t up_to = 0;
    char *sha = NULL;
    json_object *st;
    const char *text;

    if (jt_json_get_int (o, "upTo", true, &up_to, err) < 0
        || jt_json_get_int (o, "part", true, &ev->part, err) < 0
        || jt_json_get_int (o, "parts", true, &ev->parts, err) < 0
        || jt_json_get_str (o, "stateSha256", true, &sha, err) < 0)
        return -1;
    if (up_to < 1) {
        free (sha);
        return jt_errprintf (err, "upTo: must be a record seq (1 or more)");
    }
    ev->up_to = (uint64_t) up_to;
    if (!jt_sha256_hex_ok (sha)) {
        free (sha);
        return jt_errprintf (err, "stateSha256: expected 64 lowercase hex digits");
    }
    memcpy (ev->state_sha256, sha, 65);
    free (sha);
    if (!json_object_object_get_ex (o, "state", &st)
        || !json_object_is_type (st, json_type_object))
        return jt_errprintf (err, "state: expected an object");
    if (!(text = json_object_to_json_string_ext (st, JT_JSON_CANON_FLAGS)))
        return jt_errprintf (err, "out of memory");
    free (ev->state);
    if (!(ev->state = strdup (text)))
        return jt_errprintf (err, "out of memory");
    return 0;
}
