/*
 * ledger_event_int.h - what the event model (ledger_event.c) shares with
 * the Activation event's part of it (ledger_event_activation.c): the json-c
 * helpers of the canonical form and of the parser, and the Activation's
 * body. Private to libjobtree.
 */
#ifndef JT_LEDGER_EVENT_INT_H
#define JT_LEDGER_EVENT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "jobtree/error.h"
#include "jobtree/ledger.h"

/* Add v (taken) under key; -1 on ENOMEM (v released). */
int jt_ev_json_add (json_object *o, const char *key, json_object *v);
int jt_ev_json_add_str (json_object *o, const char *key, const char *s);
int jt_ev_json_add_int (json_object *o, const char *key, int64_t i);

/* A string or an integer (never INT64_MIN or INT64_MAX, which json-c uses
 * for saturation) under key into *out. Missing: -1 with "KEY: missing" when
 * req, else 0 with *out untouched. -1 with err "KEY: ..." otherwise. */
int jt_ev_json_get_str (json_object *o, const char *key, bool req, char **out,
                        jt_error_t *err);
int jt_ev_json_get_int (json_object *o, const char *key, bool req, int64_t *out,
                        jt_error_t *err);
/* "seed": 16 lowercase hex digits into *out. 1 when present, 0 when
 * missing and not req, -1 with err otherwise. */
int jt_ev_json_get_seed (json_object *o, bool req, uint64_t *out, jt_error_t *err);

/* The Activation's body: its checks, its keys after "time" in canonical
 * order, its parse (top-level unknown keys are refused by the caller), and
 * freeing its arrays. */
int jt_ev_activation_validate (const jt_event_t *ev, jt_error_t *err);
int jt_ev_activation_build (json_object *o, const jt_event_t *ev);
int jt_ev_activation_parse (json_object *o, jt_event_t *ev, jt_error_t *err);
void jt_ev_activation_free (jt_event_t *ev);

/* The Checkpoint's body (ledger_checkpoint.c): the same four, its keys
 * after "time" (NULL-terminated). */
extern const char *const jt_ev_checkpoint_keys[];
int jt_ev_checkpoint_validate (const jt_event_t *ev, jt_error_t *err);
int jt_ev_checkpoint_build (json_object *o, const jt_event_t *ev);
int jt_ev_checkpoint_parse (json_object *o, jt_event_t *ev, jt_error_t *err);

/* A copy of a finalized budget set, through its canonical text (the fold
 * keeps the budget content of a BudgetLoaded past the event). NULL with
 * err. */
jt_budgets_t *jt_ev_budgets_copy (const jt_budgets_t *b, jt_error_t *err);

#endif /* JT_LEDGER_EVENT_INT_H */
