/*
 * jsonutil.c - unit tests of the JSON helpers: the path locator, syntax
 * error positions, typed getters and their limits, suggestions, SHA-256.
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

#include "util/jsonutil.h"
#include "util/sha256.h"
#include "tap.h"

static const char doc[] =
    "{\n"
    "  \"a\": 1,\n"
    "  \"list\": [ 10, { \"x\": \"y,}]\" }, [1, 2], \"s\" ],\n"
    "  \"labels\": { \"fabric\": \"no\", \"fabric.domain\": \"A\" },\n"
    "  \"esc\\\"aped\": true,\n"
    "  \"nested\": { \"deep\": { \"k\": [ { \"v\": 3 } ] } }\n"
    "}\n";

static void loc (const char *path, int rc, int line, int col)
{
    int l = 0, c = 0;
    is_int (jt_json_locate (doc, strlen (doc), path, &l, &c), rc, "locate '%s' rc", path);
    char got[32], want[32];
    snprintf (got, sizeof (got), "%d:%d", l, c);
    snprintf (want, sizeof (want), "%d:%d", line, col);
    is (got, want, "locate '%s' at %s", path, want);
}

/* Parse text and return the first diagnostic as text. */
static const char *syntax (const char *text)
{
    static char buf[256];
    jt_diags_t g;
    jt_jdoc_t d;

    jt_diags_init (&g);
    jt_jdoc_init (&d, "f.json", text, strlen (text), &g);
    json_object *o = jt_jdoc_parse (&d);
    buf[0] = '\0';
    if (g.n)
        jt_diag_format (&g.v[0], buf, sizeof (buf));
    else if (!o)
        snprintf (buf, sizeof (buf), "NULL without diagnostic");
    json_object_put (o);
    jt_diags_free (&g);
    return buf;
}

static const char *const keys[] = { "concurrency", "maxGPUHours", "owner", NULL };

/* All diagnostics of parsing text, one per line. */
static const char *all_diags (const char *text)
{
    static char buf[4096];
    size_t len = 0;
    jt_diags_t g;
    jt_jdoc_t d;

    jt_diags_init (&g);
    jt_jdoc_init (&d, "f.json", text, strlen (text), &g);
    json_object *o = jt_jdoc_parse (&d);
    jt_jdoc_sort (&d, 0);
    buf[0] = '\0';
    for (size_t i = 0; i < g.n && len + 2 < sizeof (buf); i++) {
        len += (size_t) jt_diag_format (&g.v[i], buf + len, sizeof (buf) - len - 1);
        buf[len++] = '\n';
        buf[len] = '\0';
    }
    json_object_put (o);
    jt_diags_free (&g);
    return buf;
}

int main (void)
{
    loc ("", 0, 1, 1);
    loc ("a", 0, 2, 3);
    loc ("list", 0, 3, 3);
    loc ("list[0]", 0, 3, 13);
    loc ("list[1]", 0, 3, 17);
    loc ("list[1].x", 0, 3, 19);
    loc ("list[2]", 0, 3, 34);
    loc ("list[2][1]", 0, 3, 38);
    loc ("list[3]", 0, 3, 42);
    loc ("list[4]", -1, 3, 3);
    loc ("labels.fabric", 0, 4, 15);
    loc ("labels.fabric.domain", 0, 4, 31);
    loc ("esc\"aped", 0, 5, 3);
    loc ("nested.deep.k[0].v", 0, 6, 34);
    loc ("nested.deep.missing", -1, 6, 15);
    loc ("a.b", -1, 2, 3);

    is (syntax ("{\"a\":1"), "f.json:1:7: unexpected end of input", "truncated");
    is (syntax (""), "f.json:1:1: unexpected end of input", "empty");
    is (syntax ("{\"a\":1,}"), "f.json:1:8: syntax error: unexpected character",
        "trailing comma");
    is (syntax ("{\n  \"a\": tru }"), "f.json:2:11: syntax error: boolean expected",
        "bad literal on line 2");
    is (syntax ("{} {}"), "f.json:1:4: syntax error: unexpected character",
        "two documents");
    is (syntax ("null"), "f.json:1:1: the document is null; expected an object", "null");
    is (syntax ("{}\n\n"), "", "trailing whitespace is fine");

    is (all_diags ("{\"a\":1,\"b\":{\"x\":1,\"x\":2,\"x\":3},\n\"a\":2,"
                   "\"l\":[{\"k\":1},{\"k\":1,\"k\":1}]}"),
        "f.json:1:25: b.x: duplicate field 'x': JSON keeps only the last value; remove "
        "the others\n"
        "f.json:2:1: a: duplicate field 'a': JSON keeps only the last value; remove "
        "the others\n"
        "f.json:2:27: l[1].k: duplicate field 'k': JSON keeps only the last value; "
        "remove the others\n", "duplicate keys at every level, each once, in order");
    is (all_diags ("{\"a\":1,\n 'b':2}"), "f.json:2:2: syntax error: strings need "
        "double quotes, not single quotes\n", "single-quoted key");
    is (all_diags ("{\"a\":[1,'x']}"), "f.json:1:9: syntax error: unexpected "
        "character\n", "single-quoted value (json-c refuses those itself)");
    is (all_diags ("{\"a\":\"it's\"}"), "", "a quote inside a string is fine");
    is (all_diags ("{\"a\":{\"k\":1},\"b\":{\"k\":1}}"), "",
        "the same key in two objects is fine");

    int lines[4], cols[4];
    is_int (jt_json_locate_elements (doc, strlen (doc), "list", lines, cols, 4), 4,
            "four elements");
    is_int (cols[0] * 1000 + lines[0], 13003, "element 0 at 3:13");
    is_int (cols[3] * 1000 + lines[3], 42003, "element 3 at 3:42");
    is_int (jt_json_locate_elements (doc, strlen (doc), "list", lines, cols, 2), 2,
            "at most n");
    is_int (jt_json_locate_elements (doc, strlen (doc), "a", lines, cols, 2), -1,
            "not an array");

    /* error cap: 150 bad fields give 100 errors and a count */
    {
        char big[8192];
        size_t len = 0;
        jt_diags_t g;
        jt_jdoc_t d;
        len += (size_t) snprintf (big + len, sizeof (big) - len, "{");
        for (int i = 0; i < 150; i++)
            len += (size_t) snprintf (big + len, sizeof (big) - len, "%s\"k%d\":1",
                                      i ? "," : "", i);
        snprintf (big + len, sizeof (big) - len, "}");
        jt_diags_init (&g);
        jt_jdoc_init (&d, "f.json", big, strlen (big), &g);
        json_object *o = jt_jdoc_parse (&d);
        static const char *const none[] = { NULL };
        jt_jdoc_check_keys (&d, o, "", none);
        jt_jdoc_sort (&d, 0);
        is_int (d.errors, 150, "all 150 errors counted");
        is_int (g.n, 101, "100 shown plus a count");
        char buf[256];
        jt_diag_format (&g.v[100], buf, sizeof (buf));
        is (buf, "f.json: 50 more errors not shown", "the count");
        json_object_put (o);
        jt_diags_free (&g);
    }

    is (jt_json_suggest ("concurency", keys), "concurrency", "suggest one deletion");
    is (jt_json_suggest ("maxGpuHours", keys), "maxGPUHours", "suggest case");
    ok (jt_json_suggest ("colour", keys) == NULL, "no suggestion when far");
    is (jt_json_suggest ("ownr", keys), "owner", "short words: distance 1");
    ok (jt_json_suggest ("own", keys) == NULL, "short words: not distance 2");

    char hex[65];
    ok (jt_sha256_hex ("abc", 3, hex) == 0, "sha256");
    is (hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "sha256(abc) known answer");

    /* Integer literals beyond 64 bits saturated as json-c 0.16 does (0.17+
     * refuses them), same length, strings, fractions and exponents left. */
    static const struct { const char *in, *out; } sat[] = {
        { "{\"a\":99999999999999999999}", "{\"a\":18446744073709551615}" },
        { "[-99999999999999999999,1]", "[-9223372036854775808 ,1]" },
        { "[123456789012345678901234]", "[18446744073709551615    ]" },
        { "[18446744073709551615,-9223372036854775808]", NULL },
        { "[18446744073709551616]", "[18446744073709551615]" },
        { "[-9223372036854775809]", "[-9223372036854775808]" },
        { "{\"s\":\"99999999999999999999\\\"99999999999999999999\"}", NULL },
        { "[1.99999999999999999999,1e99999999999999999999]", NULL },
        { "[1e-99999999999999999999,1E+99999999999999999999]", NULL },
        { "[0099999999999999999999]", NULL },
        { "", NULL },
    };
    for (size_t i = 0; i < sizeof (sat) / sizeof (sat[0]); i++) {
        char *c = jt_json_saturate_ints (sat[i].in, strlen (sat[i].in));
        is (c ? c : "(unchanged)", sat[i].out ? sat[i].out : "(unchanged)",
            "saturate: %s", sat[i].in);
        free (c);
    }

    return done_testing ();
}
