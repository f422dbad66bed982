/*
 * constraint.c - unit tests of typed node constraints
 * (jobtree/constraint.h): the number syntax, the parser and its refusals,
 * every operator on labelled and unlabelled nodes (type errors included),
 * the set (dedup, bound, all-or-nothing) and the submission checks. Each
 * table row keeps its name.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/constraint.h"
#include "tap.h"

static void test_numbers (void)
{
    static const struct {
        const char *name, *text;
        int rc;
        int64_t micro;
    } t[] = {
        { "integer", "80", 0, 80000000 },
        { "zero", "0", 0, 0 },
        { "negative", "-4", 0, -4000000 },
        { "fraction", "1.5", 0, 1500000 },
        { "six decimals", "0.000001", 0, 1 },
        { "leading zeros", "007", 0, 7000000 },
        { "twelve digits", "999999999999", 0, INT64_C (999999999999000000) },
        { "largest", "-999999999999.999999", 0, -INT64_C (999999999999999999) },
        { "thirteen digits", "1000000000000", -1, 0 },
        { "seven decimals", "0.0000001", -1, 0 },
        { "empty", "", -1, 0 },
        { "sign only", "-", -1, 0 },
        { "plus sign", "+4", -1, 0 },
        { "point without digits", "4.", -1, 0 },
        { "leading point", ".5", -1, 0 },
        { "exponent", "1e3", -1, 0 },
        { "hex", "0x10", -1, 0 },
        { "unit", "80GB", -1, 0 },
        { "blank", "8 0", -1, 0 },
        { "two points", "1.2.3", -1, 0 },
    };

    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        int64_t v = -42;
        int rc = jt_cons_number (t[i].text, &v);
        if (t[i].rc == 0)
            ok (rc == 0 && v == t[i].micro, "number %s: '%s' = %lld millionths",
                t[i].name, t[i].text, (long long) v);
        else
            ok (rc == -1 && v == -42, "number %s: '%s' refused", t[i].name,
                t[i].text);
    }
}

static void test_parse (void)
{
    static const struct {
        const char *name, *text, *canon;    /* canon NULL: refused */
        const char *err;                    /* substring of the refusal */
    } t[] = {
        { "GE", "gpu.mem GE 80", "gpu.mem GE 80", NULL },
        { "blanks squeezed", "  rack.row\tLT   4 ", "rack.row LT 4", NULL },
        { "EXISTS", "nvlink EXISTS", "nvlink EXISTS", NULL },
        { "NOT_EXISTS", "taint:maint NOT_EXISTS", "taint:maint NOT_EXISTS", NULL },
        { "EQ text", "tpu-name EQ v4-a", "tpu-name EQ v4-a", NULL },
        { "NE number", "rack.row NE 3", "rack.row NE 3", NULL },
        { "two at once", "a EXISTS;b LE 2.5", "a EXISTS;b LE 2.5", NULL },
        { "lower-case operator", "gpu.mem ge 80", NULL, "unknown operator 'ge'" },
        { "symbol operator", "gpu.mem >= 80", NULL, "unknown operator '>='" },
        { "no operator", "gpu.mem", NULL, "no operator" },
        { "empty", "", NULL, "empty constraint" },
        { "empty between ;", "a EXISTS;;b EXISTS", NULL, "empty constraint" },
        { "GE without value", "gpu.mem GE", NULL, "GE needs a value" },
        { "EXISTS with value", "nvlink EXISTS yes", NULL, "EXISTS takes no value" },
        { "two values", "a EQ b c", NULL, "one value only" },
        { "GT on text", "gpu.mem GT big", NULL,
          "GT compares numbers and 'big' is not one" },
        { "GE with unit", "gpu.mem GE 80GB", NULL, "'80GB' is not one" },
        { "bad label name", "-x EXISTS", NULL, "'-x' is not a label name" },
        { "label with =", "a=b EXISTS", NULL, "'a=b' is not a label name" },
        { "value with comma", "a EQ b,c", NULL, "'b,c' is not a label value" },
        { "too long", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
          " EXISTS", NULL, "longer than 256 bytes" },
        { "label too long", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
          " EXISTS", NULL, "is not a label name" },
    };

    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        jt_constraints_t set = JT_CONSTRAINTS_INIT;
        jt_error_t err = { "" };
        char buf[1024];
        int rc = jt_constraints_add (&set, t[i].text, &err);

        if (t[i].canon) {
            jt_constraints_format (&set, buf, sizeof (buf));
            ok (rc == 0 && !strcmp (buf, t[i].canon), "parse %s: '%s'", t[i].name,
                buf);
        } else
            ok (rc < 0 && set.n == 0 && strstr (err.text, t[i].err),
                "parse %s refused: %s", t[i].name, err.text);
        jt_constraints_free (&set);
    }
}

static void test_set (void)
{
    jt_constraints_t set = JT_CONSTRAINTS_INIT;
    jt_error_t err;
    char buf[4096];

    ok (jt_constraints_add (&set, "a GE 1", &err) == 0
        && jt_constraints_add (&set, "b EXISTS;a  GE 1", &err) == 0 && set.n == 2,
        "set: a repeated constraint is kept once");
    ok (jt_constraints_add (&set, "c EXISTS;d GT x", &err) < 0 && set.n == 2,
        "set: all or nothing (c not added when d is refused)");
    for (int i = 0; i < JT_CONS_MAX - 2; i++) {
        char e[32];
        snprintf (e, sizeof (e), "k%d EXISTS", i);
        if (jt_constraints_add (&set, e, &err) < 0)
            break;
    }
    is_int ((int) set.n, JT_CONS_MAX, "set: %d constraints fit", JT_CONS_MAX);
    ok (jt_constraints_add (&set, "one EXISTS", &err) < 0
        && strstr (err.text, "more than 16"), "set: the 17th is refused: %s",
        err.text);
    ok (jt_constraints_add (&set, "k0 EXISTS", &err) == 0 && set.n == JT_CONS_MAX,
        "set: a repeat at the bound is not a new one");
    jt_constraints_t copy;
    ok (jt_constraints_copy (&copy, &set) == 0 && copy.n == set.n,
        "set: copied");
    jt_constraints_format (&copy, buf, sizeof (buf));
    ok (!strncmp (buf, "a GE 1;b EXISTS;k0 EXISTS", 25), "set: order kept: %.40s",
        buf);
    jt_constraints_free (&copy);
    jt_constraints_free (&set);
    ok (set.n == 0 && set.v == NULL, "set: freed empty");
}

/* Each operator on a node with labels gpu.mem=80, rack=r1, row=3.0,
 * kind=80GB, and on one without them. */
static void test_eval (void)
{
    static const struct {
        const char *name, *expr;
        int on_labelled, on_bare;
    } t[] = {
        { "EQ number", "gpu.mem EQ 80", 1, 0 },
        { "EQ number as number", "row EQ 3", 1, 0 },
        { "EQ number differs", "gpu.mem EQ 40", 0, 0 },
        { "EQ text", "rack EQ r1", 1, 0 },
        { "EQ text differs", "rack EQ r2", 0, 0 },
        { "EQ text vs number", "kind EQ 80", 0, 0 },
        { "NE number", "gpu.mem NE 40", 1, 0 },
        { "NE same number", "row NE 3.000", 0, 0 },
        { "NE text", "rack NE r2", 1, 0 },
        { "NE needs the label", "absent NE x", 0, 0 },
        { "EXISTS", "rack EXISTS", 1, 0 },
        { "EXISTS absent", "absent EXISTS", 0, 0 },
        { "NOT_EXISTS", "rack NOT_EXISTS", 0, 1 },
        { "NOT_EXISTS absent", "absent NOT_EXISTS", 1, 1 },
        { "GT", "gpu.mem GT 79.5", 1, 0 },
        { "GT equal", "gpu.mem GT 80", 0, 0 },
        { "GE equal", "gpu.mem GE 80", 1, 0 },
        { "GE above", "gpu.mem GE 81", 0, 0 },
        { "LT", "row LT 4", 1, 0 },
        { "LT equal", "row LT 3", 0, 0 },
        { "LE equal", "row LE 3", 1, 0 },
        { "LE negative", "row LE -1", 0, 0 },
        { "GT on text label: type error", "rack GT 1", -1, 0 },
        { "LE on unit label: type error", "kind LE 100", -1, 0 },
        { "GE on absent label: not a type error", "absent GE 1", 0, 0 },
    };
    jt_labels_t l = JT_LABELS_INIT, bare = JT_LABELS_INIT;

    jt_labels_set (&l, "gpu.mem", "80");
    jt_labels_set (&l, "rack", "r1");
    jt_labels_set (&l, "row", "3.0");
    jt_labels_set (&l, "kind", "80GB");
    jt_labels_set (&bare, "other", "1");
    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        jt_constraints_t set = JT_CONSTRAINTS_INIT;
        jt_error_t err;
        if (jt_constraints_add (&set, t[i].expr, &err) < 0) {
            ok (0, "eval %s: parse: %s", t[i].name, err.text);
            continue;
        }
        int a = jt_constraint_eval (&set.v[0], &l);
        int b = jt_constraint_eval (&set.v[0], &bare);
        ok (a == t[i].on_labelled && b == t[i].on_bare,
            "eval %s: '%s' gives %d on the labelled node, %d on the bare one",
            t[i].name, t[i].expr, a, b);
        is_int (jt_constraints_match (&set, &l), a == 1,
                "eval %s: match agrees (a type error does not hold)", t[i].name);
        jt_constraints_free (&set);
    }
    jt_constraints_t all = JT_CONSTRAINTS_INIT;
    jt_error_t err;
    jt_constraints_add (&all, "gpu.mem GE 80;rack EQ r1", &err);
    ok (jt_constraints_match (&all, &l), "match: all hold");
    jt_constraints_add (&all, "row GT 3", &err);
    ok (!jt_constraints_match (&all, &l), "match: one fails, the node is out");
    ok (jt_constraints_match (NULL, &bare), "match: no constraints hold anywhere");
    jt_constraints_free (&all);
    jt_labels_free (&l);
    jt_labels_free (&bare);
}

static void add (jt_snapshot_t *s, const char *name, const char *flavor,
                 int used, jt_node_state_t st, const char *features)
{
    jt_labels_t l = JT_LABELS_INIT;
    jt_error_t err;

    jt_labels_parse_features (&l, features);
    if (jt_snapshot_add_node (s, name, &l, flavor, 8, used, st, &err) < 0)
        bail_out ("add %s: %s", name, err.text);
    jt_labels_free (&l);
}

static void test_vet (void)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_error_t err;

    add (s, "a01", "h100", 0, JT_NODE_UP, "fabric.domain=A,gpu.mem=80,rack=r1");
    add (s, "a02", "h100", 8, JT_NODE_UP, "fabric.domain=A,gpu.mem=80,rack=r1");
    add (s, "a03", "h100", 0, JT_NODE_DOWN, "fabric.domain=A,gpu.mem=40,rack=r2");
    add (s, "b01", "h100", 0, JT_NODE_UP, "fabric.domain=B,gpu.mem=80GB,rack=r3");
    add (s, "b02", "h100", 0, JT_NODE_UP, "fabric.domain=B,gpu.mem=big,rack=r3");
    add (s, "b03", "h100", 0, JT_NODE_UP, "fabric.domain=B,gpu.mem=80GB");
    add (s, "c01", "a100", 0, JT_NODE_UP, "fabric.domain=C,gpu.mem=huge,tpu=x");
    add (s, "n01", "h100", 0, JT_NODE_UP, "gpu.mem=999,rack=r9");  /* no domain */
    if (jt_snapshot_finalize (s, &err) < 0)
        bail_out ("finalize: %s", err.text);

    static const struct {
        const char *name, *cons, *group_by;
        jt_vet_t want;
        const char *line;
    } t[] = {
        { "satisfied (a busy node counts)", "gpu.mem EQ 80;rack EQ r1", NULL,
          JT_VET_OK, "" },
        { "satisfied by a down node", "gpu.mem EQ 40", NULL, JT_VET_OK, "" },
        { "no constraints", NULL, NULL, JT_VET_OK, "" },
        { "type error names label, values, nodes", "gpu.mem GE 80", NULL,
          JT_VET_TYPE_ERROR,
          "--node-constraint='gpu.mem GE 80': gpu.mem is not a number on h100 "
          "nodes: gpu.mem=80GB on b01,b03; gpu.mem=big on b02" },
        { "type error before never", "rack EQ r7;gpu.mem LT 1", NULL,
          JT_VET_TYPE_ERROR,
          "--node-constraint='gpu.mem LT 1': gpu.mem is not a number on h100 "
          "nodes: gpu.mem=80GB on b01,b03; gpu.mem=big on b02" },
        { "other flavors are not looked at", "tpu NOT_EXISTS", NULL, JT_VET_OK, "" },
        { "never: a value nobody has", "rack EQ r7", NULL, JT_VET_NEVER,
          "never runnable: no h100 node satisfies --node-constraint='rack EQ r7' "
          "(rack on h100 nodes: r1, r2, r3)" },
        { "never: a label nobody has", "tpu EXISTS", NULL, JT_VET_NEVER,
          "never runnable: no h100 node satisfies --node-constraint='tpu EXISTS' "
          "(no h100 node has the label tpu)" },
        { "never: unlabelled domain-less node does not count", "rack EQ r9", NULL,
          JT_VET_NEVER, "never runnable: no h100 node satisfies "
          "--node-constraint='rack EQ r9' (rack on h100 nodes: r1, r2, r3)" },
        { "never: each alone, not together", "rack EQ r2;gpu.mem EQ 80", NULL,
          JT_VET_NEVER, "never runnable: no h100 node satisfies every "
          "--node-constraint together" },
        { "group-by label present", NULL, "rack", JT_VET_OK, "" },
        { "group-by label absent", NULL, "tpu", JT_VET_NEVER,
          "never runnable: no h100 node has the label tpu (--group-by=tpu)" },
        { "group-by with constraints", "gpu.mem EQ 80GB", "rack.row", JT_VET_NEVER,
          "never runnable: no h100 node has the label rack.row (--group-by="
          "rack.row) and satisfies every --node-constraint" },
    };
    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        jt_constraints_t set = JT_CONSTRAINTS_INIT;
        char line[1024];
        if (t[i].cons && jt_constraints_add (&set, t[i].cons, &err) < 0)
            bail_out ("%s: %s", t[i].name, err.text);
        jt_vet_t v = jt_constraints_vet (&set, t[i].group_by, s, "h100", line,
                                         sizeof (line));
        ok (v == t[i].want && !strcmp (line, t[i].line), "vet %s: %d '%s'",
            t[i].name, (int) v, line);
        jt_constraints_free (&set);
    }
    /* many bad values and nodes: the line stays bounded and says how many more */
    jt_snapshot_t *m = jt_snapshot_create ();
    for (int i = 0; i < 40; i++) {
        char name[16], f[64];
        snprintf (name, sizeof (name), "m%02d", i);
        snprintf (f, sizeof (f), "fabric.domain=M,gpu.mem=v%d", i % 5);
        add (m, name, "h100", 0, JT_NODE_UP, f);
    }
    jt_snapshot_finalize (m, &err);
    jt_constraints_t set = JT_CONSTRAINTS_INIT;
    char line[512];
    jt_constraints_add (&set, "gpu.mem GT 1", &err);
    jt_constraints_vet (&set, NULL, m, "h100", line, sizeof (line));
    is (line, "--node-constraint='gpu.mem GT 1': gpu.mem is not a number on h100 "
        "nodes: gpu.mem=v0 on m00,m05,m10,m15 and 4 more; gpu.mem=v1 on "
        "m01,m06,m11,m16 and 4 more; gpu.mem=v2 on m02,m07,m12,m17 and 4 more; "
        "other values on 16 more nodes", "vet: a long type error is cut to 3 values x 4 nodes");
    char tiny[40];
    jt_constraints_vet (&set, NULL, m, "h100", tiny, sizeof (tiny));
    is_int ((int) strlen (tiny), 39, "vet: a short buffer is filled, never overrun");
    jt_constraints_free (&set);
    jt_snapshot_destroy (m);
    jt_snapshot_destroy (s);
}

int main (void)
{
    test_numbers ();
    test_parse ();
    test_set ();
    test_eval ();
    test_vet ();
    done_testing ();
}
