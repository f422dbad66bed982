/*
 * jobtree/constraint.h - typed constraints over node labels
 * (--node-constraint, a run's "nodeConstraints"; TPU coscheduling seed).
 *
 * An expression is "LABEL OP [VALUE]", words separated by blanks:
 *
 *   gpu.mem GE 80      rack.row LT 4      tpu-name EQ v4-a
 *   taint:maint NOT_EXISTS                 nvlink EXISTS
 *
 *   EQ, NE             equal / not equal: as numbers when the value and the
 *                      node's label are both numbers (80 EQ 80.0), else as
 *                      text (exact bytes)
 *   EXISTS             the node has the label (any value)
 *   NOT_EXISTS         the node does not have it
 *   GT, GE, LT, LE     numeric comparison; VALUE must be a number, and a
 *                      node whose label is not a number is a type error
 *
 * Every operator but NOT_EXISTS needs the label on the node (NE too: a node
 * without the label is not "not equal", it is unlabelled, and unlabelled
 * nodes are not packed, DESIGN decision 7). A node is eligible when every
 * constraint holds.
 *
 * Numbers: an optional '-', 1 to 12 digits, optionally '.' and 1 to 6
 * digits (no '+', exponent, blank or hex). They are compared exactly, as
 * integers in millionths, so |x| < 10^12 and no rounding can decide.
 *
 * Bounds (a constraint set is checked against every node, so its size is
 * the user's to choose only within these): JT_CONS_MAX constraints per run,
 * JT_CONS_EXPR_MAX bytes per expression; label names and values as
 * jt_label_key_ok / jt_label_value_ok (jobtree/labels.h) accept them.
 *
 * Several expressions may be written in one value separated by ';' (the
 * SPANK environment carries a repeated --node-constraint that way).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_CONSTRAINT_H
#define JOBTREE_CONSTRAINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "labels.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JT_CONS_MAX 16              /* constraints per run */
#define JT_CONS_EXPR_MAX 256        /* bytes of one expression */
#define JT_CONS_NUM_INT_DIGITS 12   /* digits before the point */
#define JT_CONS_NUM_FRAC_DIGITS 6   /* digits after it */

typedef enum jt_cons_op {
    JT_CONS_EQ = 0,
    JT_CONS_NE,
    JT_CONS_EXISTS,
    JT_CONS_NOT_EXISTS,
    JT_CONS_GT,
    JT_CONS_GE,
    JT_CONS_LT,
    JT_CONS_LE,
} jt_cons_op_t;

typedef struct jt_constraint {
    char *key;
    jt_cons_op_t op;
    char *value;                /* NULL for EXISTS / NOT_EXISTS */
    bool numeric;               /* value is a number (num holds it) */
    int64_t num;                /* value in millionths */
} jt_constraint_t;

typedef struct jt_constraints {
    jt_constraint_t *v;         /* in the order given, no two alike */
    size_t n;
} jt_constraints_t;

#define JT_CONSTRAINTS_INIT { NULL, 0 }

/* "EQ" ... "LE"; parse is exact (upper case). */
const char *jt_cons_op_str (jt_cons_op_t op);
int jt_cons_op_parse (const char *s, jt_cons_op_t *out);
bool jt_cons_op_numeric (jt_cons_op_t op);      /* GT GE LT LE */

/* A number in the syntax above, the whole of s, into millionths.
 * Returns 0, or -1 (not one). */
int jt_cons_number (const char *s, int64_t *out);

/* Add the expressions of text ("EXPR[;EXPR...]") to set; one already in it
 * (same canonical text) is not added twice. All or nothing: returns 0, or
 * -1 with err saying what is wrong with which expression (no option name,
 * no "jobtree:"; e.g. "'gpu.mem GE big': GE compares numbers and 'big' is
 * not one") and set unchanged. */
int jt_constraints_add (jt_constraints_t *set, const char *text,
                        jt_error_t *err);

/* Deep copy (dst is overwritten). Returns 0, or -1 on ENOMEM (dst empty). */
int jt_constraints_copy (jt_constraints_t *dst, const jt_constraints_t *src);
void jt_constraints_free (jt_constraints_t *set);

/* Canonical text of one constraint ("gpu.mem GE 80") and of a set (joined
 * by ';'); snprintf-style length. */
int jt_constraint_format (const jt_constraint_t *c, char *buf, size_t len);
int jt_constraints_format (const jt_constraints_t *set, char *buf, size_t len);

/* Does c hold on a node with labels l? 1: yes, 0: no, -1: type error (a
 * numeric operator and a label value that is not a number). */
int jt_constraint_eval (const jt_constraint_t *c, const jt_labels_t *l);

/* Does every constraint hold on l (a type error does not hold)?
 * An empty or NULL set holds everywhere. */
bool jt_constraints_match (const jt_constraints_t *set, const jt_labels_t *l);

/* The submission checks of a run's labels against the nodes that could
 * ever run it: every node of `flavor` in s with GPUs and a fabric domain,
 * whatever its state or load.
 *
 *   JT_VET_OK          some node has the group-by label (when group_by is
 *                      not NULL) and satisfies every constraint
 *   JT_VET_TYPE_ERROR  a numeric constraint meets a label value that is
 *                      not a number; line names the label, the values
 *                      and the nodes:
 *     "--node-constraint='gpu.mem GE 80': gpu.mem is not a number on
 *      h100 nodes: gpu.mem=80GB on a01,a02; gpu.mem=big on b01"
 *   JT_VET_NEVER       no such node; line names the first constraint (in
 *                      the order given) that no node satisfies, with the
 *                      values found, or says that none satisfies them all:
 *     "never runnable: no h100 node satisfies --node-constraint='gpu.mem
 *      GE 100' (gpu.mem on h100 nodes: 40, 80)"
 *
 * Lines carry no "jobtree: " (the caller adds it). At most a few values
 * and nodes are named ("and N more"). O(nodes x constraints). */
typedef enum jt_vet {
    JT_VET_OK = 0,
    JT_VET_TYPE_ERROR,
    JT_VET_NEVER,
} jt_vet_t;

jt_vet_t jt_constraints_vet (const jt_constraints_t *set, const char *group_by,
                             const jt_snapshot_t *s, const char *flavor,
                             char *line, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_CONSTRAINT_H */
