/*
 * jobtree/budget.h - owners, budget envelopes, lending and aggregate caps.
 *
 * A budget directory holds one JSON file per owner (a Slurm account):
 *
 *   { "owner": "rai", "parent": "research",
 *     "envelopes": [ { "name": "west-h100", "flavor": "h100",
 *                      "selector": { "region": "west" },
 *                      "start": "2026-01-01T00:00:00Z", "end": "2027-01-01T00:00:00Z",
 *                      "concurrency": 128, "maxGPUHours": 500000,
 *                      "lending": { "allow": true, "to": ["vision"],
 *                                   "maxConcurrency": 32, "maxGPUHours": 1000 } } ],
 *     "aggregateCaps": [ { "name": "h100-total", "flavor": "h100",
 *                          "envelopes": ["west-h100", "east-h100"],
 *                          "maxConcurrency": 192, "maxGPUHours": 900000 } ] }
 *
 * Well-formedness is the calculus's section 3: B <= C*|W|, start < end,
 * C >= 1, acyclic parent DAG, unique names, caps referring to known envelopes
 * of the cap's flavor, maxB <= maxC * sum|W_e|, lending caps within C and B.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_BUDGET_H
#define JOBTREE_BUDGET_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "error.h"
#include "labels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JT_UNSET (-1)

typedef struct jt_lending {
    bool allow;
    char **to;                  /* borrower owners; "*" means anyone */
    size_t nto;
    int64_t max_concurrency;    /* JT_UNSET: up to the envelope's C */
    double max_gpu_hours;       /* < 0: up to the envelope's B */
} jt_lending_t;

typedef struct jt_envelope {
    char *name;                 /* unique across the whole budget set */
    const char *owner;          /* points into the owning jt_budget_t */
    char *flavor;               /* GPU flavor == Slurm GRES type, e.g. "h100" */
    jt_labels_t selector;       /* all pairs must match a node's labels */
    int64_t start;              /* window [start, end), epoch seconds */
    int64_t end;
    int64_t concurrency;        /* C: GPUs active at once */
    double max_gpu_hours;       /* B; < 0 when absent (then B = C*|W|) */
    jt_lending_t lending;
    size_t index;               /* position in the budget's envelopes[] */
    size_t id;                  /* position in jt_budgets_t.env (dense id) */
} jt_envelope_t;

typedef struct jt_aggcap {
    char *name;
    char *flavor;
    char **envelopes;           /* envelope names */
    size_t nenvelopes;
    size_t *env_ids;            /* resolved dense ids (filled by finalize) */
    int64_t max_concurrency;
    double max_gpu_hours;       /* < 0 when absent */
} jt_aggcap_t;

typedef struct jt_budget {
    char *owner;
    char *parent;               /* NULL when absent */
    char *file;                 /* path it was read from (may be NULL) */
    char sha256[65];            /* hex SHA-256 of the file content ("" if none) */
    jt_envelope_t *env;
    size_t nenv;
    jt_aggcap_t *caps;
    size_t ncaps;
} jt_budget_t;

typedef struct jt_budgets {
    jt_budget_t *v;             /* sorted by owner after finalize */
    size_t n;
    jt_envelope_t **env;        /* every envelope, sorted by name; env[i]->id == i */
    size_t nenv;
    jt_aggcap_t **caps;         /* every aggregate cap, sorted by name */
    size_t ncaps;
    bool finalized;
} jt_budgets_t;

jt_budgets_t *jt_budgets_create (void);
void jt_budgets_destroy (jt_budgets_t *b);

/* Parse one budget file's text and add it. Syntax errors are reported with
 * the file's line:col; semantic errors with the JSON path and the line of
 * the offending field. Returns 0 if the file was added, -1 otherwise (all
 * problems found are appended to diags). */
int jt_budgets_add_json (jt_budgets_t *b, const char *file,
                         const char *text, size_t len, jt_diags_t *diags);

/* Read and add one file (uses jt_budgets_add_json). */
int jt_budgets_add_file (jt_budgets_t *b, const char *path, jt_diags_t *diags);

/* Cross-file checks and indexing: duplicate owners or envelope names,
 * unknown parents, parent cycles (the message names the cycle), aggregate
 * caps referring to unknown envelopes. Returns 0 or -1 (diags appended). */
int jt_budgets_finalize (jt_budgets_t *b, jt_diags_t *diags);

/* Load every "*.json" in dir, in name order, and finalize. Returns NULL if
 * any file had an error; every problem is in diags. Never partially loads. */
jt_budgets_t *jt_budgets_load_dir (const char *dir, jt_diags_t *diags);

const jt_budget_t *jt_budgets_owner (const jt_budgets_t *b, const char *owner);
const jt_envelope_t *jt_budgets_envelope (const jt_budgets_t *b, const char *name);

/* Owners whose parent is `parent` (sorted by owner), excluding `except`.
 * Fills up to max entries of out and returns the total count. */
size_t jt_budgets_children (const jt_budgets_t *b, const char *parent,
                            const char *except, const jt_budget_t **out,
                            size_t max);

/* The canonical JSON of a finalized budget set: an array of the owners'
 * budgets sorted by owner, each a valid budget file (keys in the order of
 * the file format, envelopes and aggregate caps in file order, selectors by
 * key, times in RFC 3339 UTC, absent optional fields left out, compact, as
 * json-c prints it). Parsing each element back (jt_budgets_add_json) and
 * finalizing gives a set with the same dump. The ledger's BudgetLoaded
 * records it and its SHA-256. Malloc'd text, or NULL with err. */
char *jt_budgets_to_json (const jt_budgets_t *b, jt_error_t *err);

/* The integral bound B_e: maxGPUHours if set, else C * |W| in hours. */
double jt_envelope_gpu_hours_cap (const jt_envelope_t *e);

/* True iff e lends to borrower (lending.allow and ACL match, "*" matches all). */
bool jt_envelope_lends_to (const jt_envelope_t *e, const char *borrower);

/* True iff t is inside the envelope's window. */
bool jt_envelope_open_at (const jt_envelope_t *e, int64_t t);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_BUDGET_H */
