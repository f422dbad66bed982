/*
 * constraint.c - typed constraints over node labels (jobtree/constraint.h):
 * the expression parser, the number syntax, evaluation on a node, and the
 * submission checks (type errors, never satisfiable) over a snapshot.
 *
 * DESIGN: numbers are fixed point (millionths in an int64), so comparisons
 * are exact and the same on every host; a constraint set is bounded
 * (JT_CONS_MAX, JT_CONS_EXPR_MAX), so checking a node costs at most
 * JT_CONS_MAX label look-ups whatever the user wrote.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/constraint.h"

static const char *const op_names[] = {
    [JT_CONS_EQ] = "EQ", [JT_CONS_NE] = "NE", [JT_CONS_EXISTS] = "EXISTS",
    [JT_CONS_NOT_EXISTS] = "NOT_EXISTS", [JT_CONS_GT] = "GT",
    [JT_CONS_GE] = "GE", [JT_CONS_LT] = "LT", [JT_CONS_LE] = "LE",
};

#define NOPS (sizeof (op_names) / sizeof (op_names[0]))

const char *jt_cons_op_str (jt_cons_op_t op)
{
    return (size_t) op < NOPS ? op_names[op] : "?";
}

int jt_cons_op_parse (const char *s, jt_cons_op_t *out)
{
    for (size_t i = 0; s && i < NOPS; i++)
        if (strcmp (s, op_names[i]) == 0) {
            *out = (jt_cons_op_t) i;
            return 0;
        }
    return -1;
}

bool jt_cons_op_numeric (jt_cons_op_t op)
{
    return op == JT_CONS_GT || op == JT_CONS_GE || op == JT_CONS_LT
           || op == JT_CONS_LE;
}

int jt_cons_number (const char *s, int64_t *out)
{
    int64_t ip = 0, fp = 0;
    int ni = 0, nf = 0;
    bool neg = false;

    if (!s)
        return -1;
    if (*s == '-') {
        neg = true;
        s++;
    }
    for (; *s >= '0' && *s <= '9'; s++) {
        if (++ni > JT_CONS_NUM_INT_DIGITS)
            return -1;
        ip = ip * 10 + (*s - '0');
    }
    if (ni == 0)
        return -1;
    if (*s == '.') {
        for (s++; *s >= '0' && *s <= '9'; s++) {
            if (++nf > JT_CONS_NUM_FRAC_DIGITS)
                return -1;
            fp = fp * 10 + (*s - '0');
        }
        if (nf == 0)
            return -1;
    }
    if (*s)
        return -1;
    for (; nf < JT_CONS_NUM_FRAC_DIGITS; nf++)
        fp *= 10;
    /* |ip| < 10^12, fp < 10^6: the result is below 10^18 < 2^63 */
    *out = (neg ? -1 : 1) * (ip * 1000000 + fp);
    return 0;
}

static void cons_clear (jt_constraint_t *c)
{
    free (c->key);
    free (c->value);
    memset (c, 0, sizeof (*c));
}

void jt_constraints_free (jt_constraints_t *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++)
        cons_clear (&set->v[i]);
    free (set->v);
    set->v = NULL;
    set->n = 0;
}

int jt_constraint_format (const jt_constraint_t *c, char *buf, size_t len)
{
    if (c->value)
        return snprintf (buf, len, "%s %s %s", c->key, jt_cons_op_str (c->op),
                         c->value);
    return snprintf (buf, len, "%s %s", c->key, jt_cons_op_str (c->op));
}

int jt_constraints_format (const jt_constraints_t *set, char *buf, size_t len)
{
    size_t used = 0;
    int total = 0;

    if (len > 0)
        buf[0] = '\0';
    for (size_t i = 0; set && i < set->n; i++) {
        int n;
        if (i) {
            n = snprintf (used < len ? buf + used : NULL,
                          used < len ? len - used : 0, ";");
            total += n;
            used += (size_t) n;
        }
        n = jt_constraint_format (&set->v[i], used < len ? buf + used : NULL,
                                  used < len ? len - used : 0);
        if (n < 0)
            return n;
        total += n;
        used += (size_t) n;
    }
    return total;
}

static bool blank (char c)
{
    return c == ' ' || c == '\t';
}

/* Parse one expression (exactly len bytes at text, no ';') into c.
 * Returns 0, or -1 with err set and c empty. */
static int parse_one (const char *text, size_t len, jt_constraint_t *c,
                      jt_error_t *err)
{
    char buf[JT_CONS_EXPR_MAX + 1], *w[4];
    size_t nw = 0;

    memset (c, 0, sizeof (*c));
    if (len > JT_CONS_EXPR_MAX)
        return jt_errprintf (err, "'%.40s...': longer than %d bytes", text,
                             JT_CONS_EXPR_MAX);
    memcpy (buf, text, len);
    buf[len] = '\0';
    for (char *p = buf; *p;) {
        while (blank (*p))
            *p++ = '\0';
        if (!*p)
            break;
        if (nw == 4)
            break;
        w[nw++] = p;
        while (*p && !blank (*p))
            p++;
    }
    /* the expression as written, for messages: blanks squeezed */
    char shown[JT_CONS_EXPR_MAX + 1] = "";
    for (size_t i = 0, at = 0; i < nw && at < sizeof (shown); i++)
        at += (size_t) snprintf (shown + at, sizeof (shown) - at, "%s%s",
                                 i ? " " : "", w[i]);
    if (nw == 0)
        return jt_errprintf (err, "empty constraint; write LABEL OP [VALUE]");
    if (nw < 2)
        return jt_errprintf (err, "'%s': no operator; write LABEL OP [VALUE]",
                             shown);
    if (!jt_label_key_ok (w[0]))
        return jt_errprintf (err, "'%s': '%s' is not a label name (1 to %d "
                             "letters, digits or . _ - : /, starting with a "
                             "letter or digit)", shown, w[0], JT_LABEL_KEY_MAX);
    if (jt_cons_op_parse (w[1], &c->op) < 0)
        return jt_errprintf (err, "'%s': unknown operator '%s' (EQ NE EXISTS "
                             "NOT_EXISTS GT GE LT LE)", shown, w[1]);
    bool unary = c->op == JT_CONS_EXISTS || c->op == JT_CONS_NOT_EXISTS;
    if (unary && nw > 2)
        return jt_errprintf (err, "'%s': %s takes no value", shown, w[1]);
    if (!unary && nw < 3)
        return jt_errprintf (err, "'%s': %s needs a value", shown, w[1]);
    if (nw > 3)
        return jt_errprintf (err, "'%s': one value only; write LABEL OP VALUE",
                             shown);
    if (!unary) {
        if (!jt_label_value_ok (w[2]))
            return jt_errprintf (err, "'%s': '%s' is not a label value (1 to %d"
                                 " letters, digits or . _ - : / +)", shown,
                                 w[2], JT_LABEL_VALUE_MAX);
        c->numeric = jt_cons_number (w[2], &c->num) == 0;
        if (jt_cons_op_numeric (c->op) && !c->numeric)
            return jt_errprintf (err, "'%s': %s compares numbers and '%s' is "
                                 "not one (an optional -, at most %d digits, "
                                 "optionally . and at most %d more)", shown,
                                 w[1], w[2], JT_CONS_NUM_INT_DIGITS,
                                 JT_CONS_NUM_FRAC_DIGITS);
    }
    c->key = strdup (w[0]);
    c->value = unary ? NULL : strdup (w[2]);
    if (!c->key || (!unary && !c->value)) {
        cons_clear (c);
        errno = ENOMEM;
        return jt_errprintf (err, "out of memory");
    }
    return 0;
}

static bool cons_same (const jt_constraint_t *a, const jt_constraint_t *b)
{
    return a->op == b->op && strcmp (a->key, b->key) == 0
           && (a->value ? b->value && strcmp (a->value, b->value) == 0
                        : !b->value);
}

int jt_constraints_add (jt_constraints_t *set, const char *text,
                        jt_error_t *err)
{
    jt_constraint_t add[JT_CONS_MAX];
    size_t nadd = 0, orig = set->n;
    const char *p = text;

    if (!text)
        return jt_errprintf (err, "empty constraint; write LABEL OP [VALUE]");
    for (;;) {
        const char *semi = strchr (p, ';');
        size_t len = semi ? (size_t) (semi - p) : strlen (p);
        jt_constraint_t c;
        bool dup = false;

        if (parse_one (p, len, &c, err) < 0)
            goto fail;
        for (size_t i = 0; i < orig && !dup; i++)
            dup = cons_same (&set->v[i], &c);
        for (size_t i = 0; i < nadd && !dup; i++)
            dup = cons_same (&add[i], &c);
        if (dup)
            cons_clear (&c);
        else if (orig + nadd >= JT_CONS_MAX) {
            cons_clear (&c);
            jt_errprintf (err, "more than %d constraints", JT_CONS_MAX);
            goto fail;
        } else
            add[nadd++] = c;
        if (!semi)
            break;
        p = semi + 1;
    }
    if (nadd) {
        jt_constraint_t *nv = realloc (set->v, (orig + nadd) * sizeof (*nv));
        if (!nv) {
            jt_errprintf (err, "out of memory");
            goto fail;
        }
        set->v = nv;
        memcpy (set->v + orig, add, nadd * sizeof (*add));
        set->n = orig + nadd;
    }
    return 0;
fail:
    for (size_t i = 0; i < nadd; i++)
        cons_clear (&add[i]);
    return -1;
}

int jt_constraints_copy (jt_constraints_t *dst, const jt_constraints_t *src)
{
    dst->v = NULL;
    dst->n = 0;
    if (!src || src->n == 0)
        return 0;
    if (!(dst->v = calloc (src->n, sizeof (*dst->v))))
        return -1;
    for (size_t i = 0; i < src->n; i++) {
        const jt_constraint_t *s = &src->v[i];
        jt_constraint_t *d = &dst->v[i];
        *d = *s;
        d->key = strdup (s->key);
        d->value = s->value ? strdup (s->value) : NULL;
        dst->n = i + 1;
        if (!d->key || (s->value && !d->value)) {
            jt_constraints_free (dst);
            errno = ENOMEM;
            return -1;
        }
    }
    return 0;
}

int jt_constraint_eval (const jt_constraint_t *c, const jt_labels_t *l)
{
    const char *have = jt_labels_get (l, c->key);
    int64_t x;
    bool num;

    if (c->op == JT_CONS_NOT_EXISTS)
        return have == NULL;
    if (!have)
        return 0;
    if (c->op == JT_CONS_EXISTS)
        return 1;
    num = jt_cons_number (have, &x) == 0;
    if (jt_cons_op_numeric (c->op) && !num)
        return -1;
    switch (c->op) {
    case JT_CONS_EQ:
        return num && c->numeric ? x == c->num : strcmp (have, c->value) == 0;
    case JT_CONS_NE:
        return num && c->numeric ? x != c->num : strcmp (have, c->value) != 0;
    case JT_CONS_GT:
        return x > c->num;
    case JT_CONS_GE:
        return x >= c->num;
    case JT_CONS_LT:
        return x < c->num;
    case JT_CONS_LE:
        return x <= c->num;
    default:
        return 0;
    }
}

bool jt_constraints_match (const jt_constraints_t *set, const jt_labels_t *l)
{
    for (size_t i = 0; set && i < set->n; i++)
        if (jt_constraint_eval (&set->v[i], l) != 1)
            return false;
    return true;
}

/* ---- submission checks ---- */

/* How many values and nodes a line names before "and N more". */
#define VET_VALUES 3
#define VET_NODES 4

static bool vet_node (const jt_node_t *n, const char *flavor)
{
    return n->gpus > 0 && n->domain >= 0 && n->flavor
           && strcmp (n->flavor, flavor) == 0;
}

/* Append printf text to line at *at, never past len. */
static void put (char *line, size_t len, size_t *at, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static void put (char *line, size_t len, size_t *at, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*at >= len)
        return;
    va_start (ap, fmt);
    n = vsnprintf (line + *at, len - *at, fmt, ap);
    va_end (ap);
    if (n > 0)
        *at = *at + (size_t) n < len ? *at + (size_t) n : len;
}

/* The distinct values of key on the vetted nodes, in node order, first
 * VET_VALUES of them; *more counts the nodes with another value. Only
 * non-numbers when bad_only. Returns how many are in v. */
static size_t values_of (const jt_snapshot_t *s, const char *flavor,
                         const char *key, bool bad_only, const char **v,
                         size_t *more)
{
    size_t nv = 0;
    int64_t x;

    *more = 0;
    for (size_t i = 0; i < s->nnodes; i++) {
        const char *have;
        bool seen = false;
        if (!vet_node (&s->nodes[i], flavor)
            || !(have = jt_labels_get (&s->nodes[i].labels, key)))
            continue;
        if (bad_only && jt_cons_number (have, &x) == 0)
            continue;
        for (size_t k = 0; k < nv && !seen; k++)
            seen = strcmp (v[k], have) == 0;
        if (seen)
            continue;
        if (nv < VET_VALUES)
            v[nv++] = have;
        else
            (*more)++;
    }
    return nv;
}

static void type_error_line (const jt_constraint_t *c, const jt_snapshot_t *s,
                             const char *flavor, char *line, size_t len)
{
    const char *v[VET_VALUES];
    size_t more, nv = values_of (s, flavor, c->key, true, v, &more), at = 0;
    char ex[JT_CONS_EXPR_MAX + 8];

    jt_constraint_format (c, ex, sizeof (ex));
    put (line, len, &at, "--node-constraint='%s': %s is not a number on %s "
         "nodes: ", ex, c->key, flavor);
    for (size_t k = 0; k < nv; k++) {
        size_t shown = 0, extra = 0;
        put (line, len, &at, "%s%s=%s on ", k ? "; " : "", c->key, v[k]);
        for (size_t i = 0; i < s->nnodes; i++) {
            const char *have;
            if (!vet_node (&s->nodes[i], flavor)
                || !(have = jt_labels_get (&s->nodes[i].labels, c->key))
                || strcmp (have, v[k]) != 0)
                continue;
            if (shown < VET_NODES)
                put (line, len, &at, "%s%s", shown++ ? "," : "",
                     s->nodes[i].name);
            else
                extra++;
        }
        if (extra)
            put (line, len, &at, " and %zu more", extra);
    }
    if (more)
        put (line, len, &at, "; other values on %zu more node%s", more,
             more == 1 ? "" : "s");
}

static void never_line (const jt_constraint_t *c, const jt_snapshot_t *s,
                        const char *flavor, char *line, size_t len)
{
    const char *v[VET_VALUES];
    size_t more, nv = values_of (s, flavor, c->key, false, v, &more), at = 0;
    char ex[JT_CONS_EXPR_MAX + 8];

    jt_constraint_format (c, ex, sizeof (ex));
    put (line, len, &at, "never runnable: no %s node satisfies "
         "--node-constraint='%s' (", flavor, ex);
    if (nv == 0)
        put (line, len, &at, "no %s node has the label %s)", flavor, c->key);
    else {
        put (line, len, &at, "%s on %s nodes: ", c->key, flavor);
        for (size_t k = 0; k < nv; k++)
            put (line, len, &at, "%s%s", k ? ", " : "", v[k]);
        if (more)
            put (line, len, &at, "; other values on %zu more node%s", more,
                 more == 1 ? "" : "s");
        put (line, len, &at, ")");
    }
}

jt_vet_t jt_constraints_vet (const jt_constraints_t *set, const char *group_by,
                             const jt_snapshot_t *s, const char *flavor,
                             char *line, size_t len)
{
    size_t nset = set ? set->n : 0;
    bool any = false;

    if (len)
        line[0] = '\0';
    if (!s || !flavor)
        return JT_VET_OK;
    /* type errors first: they are the user's to fix whatever the rest says */
    for (size_t k = 0; k < nset; k++) {
        const jt_constraint_t *c = &set->v[k];
        if (!jt_cons_op_numeric (c->op))
            continue;
        for (size_t i = 0; i < s->nnodes; i++)
            if (vet_node (&s->nodes[i], flavor)
                && jt_constraint_eval (c, &s->nodes[i].labels) < 0) {
                type_error_line (c, s, flavor, line, len);
                return JT_VET_TYPE_ERROR;
            }
    }
    for (size_t k = 0; k < nset; k++) {
        bool some = false;
        for (size_t i = 0; i < s->nnodes && !some; i++)
            some = vet_node (&s->nodes[i], flavor)
                   && jt_constraint_eval (&set->v[k], &s->nodes[i].labels) == 1;
        if (!some) {
            never_line (&set->v[k], s, flavor, line, len);
            return JT_VET_NEVER;
        }
    }
    for (size_t i = 0; i < s->nnodes && !any; i++)
        any = vet_node (&s->nodes[i], flavor)
              && (!group_by || jt_labels_get (&s->nodes[i].labels, group_by))
              && jt_constraints_match (set, &s->nodes[i].labels);
    if (any)
        return JT_VET_OK;
    if (group_by && nset == 0)
        snprintf (line, len, "never runnable: no %s node has the label %s "
                  "(--group-by=%s)", flavor, group_by, group_by);
    else if (group_by)
        snprintf (line, len, "never runnable: no %s node has the label %s "
                  "(--group-by=%s) and satisfies every --node-constraint",
                  flavor, group_by, group_by);
    else
        snprintf (line, len, "never runnable: no %s node satisfies every "
                  "--node-constraint together", flavor);
    return JT_VET_NEVER;
}
