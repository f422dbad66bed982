/*
 * jobtree/labels.h - key=value labels on nodes and selectors on envelopes.
 *
 * A label set is kept sorted by key with unique keys so that matching and
 * printing are deterministic. A selector is a label set read as a conjunction:
 * it matches a node iff every selector pair is present on the node.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_LABELS_H
#define JOBTREE_LABELS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Well-known label keys (the runs-and-packing doc's vocabulary). */
#define JT_LABEL_REGION "region"
#define JT_LABEL_CLUSTER "cluster"
#define JT_LABEL_FABRIC "fabric.domain"
#define JT_LABEL_RACK "rack"
#define JT_LABEL_FLAVOR "gpu.flavor"

typedef struct jt_label {
    char *key;
    char *value;
} jt_label_t;

typedef struct jt_labels {
    jt_label_t *v;
    size_t n;
} jt_labels_t;

#define JT_LABELS_INIT { NULL, 0 }

/* What a user may write as a label name (--group-by, --node-constraint):
 * 1 to JT_LABEL_KEY_MAX bytes of letters, digits and . _ - : /, starting
 * with a letter or digit; a value: 1 to JT_LABEL_VALUE_MAX bytes of the
 * same characters and '+'. Node features carry nothing else that could
 * be a label (Slurm splits them at ',' and gives '&|[]*' meanings). */
#define JT_LABEL_KEY_MAX 64
#define JT_LABEL_VALUE_MAX 128
bool jt_label_key_ok (const char *s);
bool jt_label_value_ok (const char *s);

/* Set key=value (replacing an existing value). Returns 0, or -1 on ENOMEM. */
int jt_labels_set (jt_labels_t *l, const char *key, const char *value);

/* Value of key, or NULL. */
const char *jt_labels_get (const jt_labels_t *l, const char *key);

/* True iff every pair of sel is present in l. An empty selector matches all. */
bool jt_labels_match (const jt_labels_t *sel, const jt_labels_t *l);

/* Deep copy. Returns 0 or -1 on ENOMEM (dst left empty). */
int jt_labels_copy (jt_labels_t *dst, const jt_labels_t *src);

void jt_labels_free (jt_labels_t *l);

/* Add the key=value items of a Slurm node feature string
 * ("fabric.domain=A,region=west,nvlink") to l; items without '=' (plain
 * features) are skipped. Returns 0, or -1 on ENOMEM (l keeps what was set). */
int jt_labels_parse_features (jt_labels_t *l, const char *features);

/* Canonical text "k1=v1,k2=v2" into buf; returns snprintf-style length. */
int jt_labels_format (const jt_labels_t *l, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_LABELS_H */
