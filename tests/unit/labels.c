/*
 * labels.c - unit tests of label sets and selector matching.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdlib.h>

#include "jobtree/labels.h"
#include "tap.h"

int main (void)
{
    jt_labels_t l = JT_LABELS_INIT, sel = JT_LABELS_INIT, cp;
    char buf[128];

    ok (jt_labels_set (&l, "region", "west") == 0, "set region");
    ok (jt_labels_set (&l, "fabric.domain", "A") == 0, "set fabric.domain");
    ok (jt_labels_set (&l, "cluster", "c1") == 0, "set cluster");
    ok (jt_labels_set (&l, "region", "east") == 0, "replace region");
    is_int (l.n, 3, "three distinct keys");
    jt_labels_format (&l, buf, sizeof (buf));
    is (buf, "cluster=c1,fabric.domain=A,region=east", "sorted canonical text");
    is (jt_labels_get (&l, "region"), "east", "get replaced value");
    ok (jt_labels_get (&l, "rack") == NULL, "absent key is NULL");

    ok (jt_labels_match (&sel, &l), "empty selector matches everything");
    jt_labels_set (&sel, "region", "east");
    ok (jt_labels_match (&sel, &l), "selector region=east matches");
    jt_labels_set (&sel, "rack", "r1");
    ok (!jt_labels_match (&sel, &l), "selector with a key the node lacks fails");
    jt_labels_set (&sel, "rack", "r1");
    jt_labels_set (&l, "rack", "r2");
    ok (!jt_labels_match (&sel, &l), "selector with another value fails");

    ok (jt_labels_copy (&cp, &l) == 0, "copy");
    jt_labels_format (&cp, buf, sizeof (buf));
    is (buf, "cluster=c1,fabric.domain=A,rack=r2,region=east", "copy is equal");
    is_int (jt_labels_format (&cp, buf, 4), 46, "format reports full length when truncated");
    is (buf, "clu", "truncated output is NUL-terminated");

    jt_labels_t f = JT_LABELS_INIT;
    ok (jt_labels_parse_features (&f, "fabric.domain=A,nvlink,region=west,=x,y=,rack=r1")
        == 0, "parse node features");
    jt_labels_format (&f, buf, sizeof (buf));
    is (buf, "fabric.domain=A,rack=r1,region=west",
        "key=value features become labels; plain and half-empty ones are skipped");
    ok (jt_labels_parse_features (&f, NULL) == 0, "no features is fine");
    jt_labels_free (&f);

    jt_labels_free (&cp);
    jt_labels_free (&sel);
    jt_labels_free (&l);
    return done_testing ();
}
