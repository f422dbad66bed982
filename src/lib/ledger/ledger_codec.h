/*
 * ledger_codec.h - the bodies of the two ledger events whose body is its
 * own file: the Activation (ledger_event_activation.c) and the Checkpoint
 * (ledger_event_checkpoint.c). The event model calls them from its
 * switches (validation and freeing in ledger_event.c, canonical JSON and
 * parse in ledger_event_json.c); they use only the JSON helpers of
 * util/jsonutil.h, never the model above them. Private to libjobtree.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_LEDGER_CODEC_H
#define JT_LEDGER_CODEC_H

#include <json-c/json.h>

#include "jobtree/error.h"
#include "jobtree/ledger.h"

/* The Activation's body: its checks, its keys after "time" in canonical
 * order, its parse (top-level unknown keys are refused by the caller), and
 * freeing its arrays. */
int jt_ev_activation_validate (const jt_event_t *ev, jt_error_t *err);
int jt_ev_activation_build (json_object *o, const jt_event_t *ev);
int jt_ev_activation_parse (json_object *o, jt_event_t *ev, jt_error_t *err);
void jt_ev_activation_free (jt_event_t *ev);

/* The Checkpoint's body: the same, its keys after "time" (NULL-terminated). */
extern const char *const jt_ev_checkpoint_keys[];
int jt_ev_checkpoint_validate (const jt_event_t *ev, jt_error_t *err);
int jt_ev_checkpoint_build (json_object *o, const jt_event_t *ev);
int jt_ev_checkpoint_parse (json_object *o, jt_event_t *ev, jt_error_t *err);

#endif /* JT_LEDGER_CODEC_H */
