/*
 * ledger_canon.c - jt_event_from_json_canon's canonical flag is exactly
 * "jt_event_to_json of the parsed event prints the input back", the check
 * verify and jobtree-ledgerd made before (issue 9: the flag is decided on
 * the parsed tree for a Start or End, without a second tree).
 *
 * Canonical Starts and Ends of every shape (note, conformance, the seed,
 * escapes, raw UTF-8, control characters) give true; each way a text can
 * parse and still not be canonical (keys reordered, a duplicate key,
 * spacing, an escaped "/", "\u0041", a \u0000 in a string or a node) gives
 * false; and 20,000 random edits of canonical texts that still parse give
 * the flag the old check gives.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/ledger.h"
#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next (void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The old check: 1 canonical, 0 not, -1 does not parse. */
static int old_check (const char *t, size_t len)
{
    jt_error_t err = { "" };
    jt_event_t *ev = jt_event_from_json (t, len, &err);
    if (!ev)
        return -1;
    char *c = jt_event_to_json (ev, &err);
    int r = c && strlen (c) == len && !memcmp (c, t, len);
    free (c);
    jt_event_destroy (ev);
    return r;
}

/* The new flag: 1, 0, -1 as above. */
static int new_check (const char *t, size_t len)
{
    jt_error_t err = { "" };
    bool canon = false;
    jt_event_t *ev = jt_event_from_json_canon (t, len, &canon, &err);
    if (!ev)
        return -1;
    jt_event_destroy (ev);
    return canon;
}

static const char *const STRS[] = { "a01", "west-h100", "x\"y", "p/q", "tab\there",
                                    "caf\xc3\xa9", "back\\slash", "c\x1f" "d", "rai" };
#define NSTRS (sizeof (STRS) / sizeof (STRS[0]))

static char *random_event (int i)
{
    jt_error_t err = { "" };
    jt_event_t *ev = jt_event_create (i % 2 ? JT_EV_END : JT_EV_START);
    char b[64];
    snprintf (b, sizeof (b), "ctld:%d:%s", i, STRS[next () % NSTRS]);
    jt_event_set (&ev->id, b);
    ev->time = (int64_t) (next () % 2000000000);
    jt_event_set (&ev->lease, STRS[next () % NSTRS]);
    jt_event_set (&ev->run, STRS[next () % NSTRS]);
    jt_event_set (&ev->group, "0");
    for (int n = 1 + (int) (next () % 3); n > 0; n--)
        jt_event_add_node (ev, STRS[next () % NSTRS]);
    ev->gpus = 1 + (int64_t) (next () % 64);
    ev->role = (jt_role_t) (next () % 3 == 0 ? JT_ROLE_BORROWED
                                             : next () % 2 ? JT_ROLE_SPARE : JT_ROLE_ACTIVE);
    jt_event_set (&ev->envelope, STRS[next () % NSTRS]);
    jt_event_set (&ev->owner, STRS[next () % NSTRS]);
    ev->start = (int64_t) (next () % 1000000);
    if (ev->type == JT_EV_START && next () % 3 == 0)
        jt_event_set (&ev->conformance, "h100");
    if (ev->type == JT_EV_END) {
        ev->end = ev->start + (int64_t) (next () % 1000);
        ev->reason = next () % 3 ? JT_REASON_END : JT_REASON_RANDOM_PREEMPT;
        if (ev->reason == JT_REASON_RANDOM_PREEMPT)
            ev->seed = next ();
    }
    if (next () % 4 == 0)
        jt_event_set (&ev->note, STRS[next () % NSTRS]);
    char *s = jt_event_to_json (ev, &err);
    if (!s)
        diag ("random_event %d: %s", i, err.text);
    jt_event_destroy (ev);
    return s;
}

static void same (const char *t, int want, const char *name)
{
    int o = old_check (t, strlen (t)), n = new_check (t, strlen (t));
    ok (o == want && n == want, "%s: flag %d, old check %d, want %d", name, n, o, want);
}

#define START_HEAD "{\"v\":1,\"type\":\"Start\",\"id\":\"ctld:1:1\",\"time\":5,"
#define LEASE_BODY                                                                   \
    "\"lease\":\"c1:42:0\",\"run\":\"c1:42\",\"group\":\"0\",\"nodes\":[\"a01\"]," \
    "\"gpus\":16,\"role\":\"Active\",\"envelope\":\"west\",\"owner\":\"rai\",\"start\":5"

static void test_cases (void)
{
    same (START_HEAD LEASE_BODY "}", 1, "a Start");
    same (START_HEAD LEASE_BODY ",\"conformance\":\"h100\",\"note\":\"n\"}", 1,
          "a Start with conformance and note");
    same ("{\"v\":1,\"type\":\"End\",\"id\":\"e\",\"time\":5," LEASE_BODY
          ",\"end\":9,\"reason\":\"RandomPreempt\",\"seed\":\"00000000000000ff\"}",
          1, "an End with its seed");
    same (START_HEAD LEASE_BODY ",\"note\":\"n\",\"conformance\":\"h100\"}", 0,
          "note before conformance");
    same ("{\"type\":\"Start\",\"v\":1,\"id\":\"ctld:1:1\",\"time\":5," LEASE_BODY "}",
          0, "type before v");
    same (START_HEAD "\"run\":\"c1:42\",\"lease\":\"c1:42:0\",\"group\":\"0\","
                     "\"nodes\":[\"a01\"],\"gpus\":16,\"role\":\"Active\","
                     "\"envelope\":\"west\",\"owner\":\"rai\",\"start\":5}",
          0, "run before lease");
    same (START_HEAD LEASE_BODY ",\"note\":\"a\",\"note\":\"a\"}", 0, "a duplicate key");
    same (START_HEAD LEASE_BODY " }", 0, "a space");
    same (START_HEAD LEASE_BODY ",\"note\":\"a\\/b\"}", 0, "an escaped slash");
    same (START_HEAD LEASE_BODY ",\"note\":\"\\u0041\"}", 0, "\\u0041");
    same (START_HEAD LEASE_BODY ",\"note\":\"a\\u0000b\"}", 0, "a NUL in the note");
    same ("{\"v\":1,\"type\":\"Start\",\"id\":\"ctld:1:1\",\"time\":5,"
          "\"lease\":\"c1:42:0\",\"run\":\"c1:42\",\"group\":\"0\","
          "\"nodes\":[\"a01\\u0000x\"],\"gpus\":16,\"role\":\"Active\","
          "\"envelope\":\"west\",\"owner\":\"rai\",\"start\":5}",
          0, "a NUL in a node");
    same (START_HEAD LEASE_BODY ",\"note\":\"\\u00e9\"}", 0, "an escaped e-acute");
    same ("{\"v\":1,\"type\":\"Start\",\"id\":\"ctld:1:1\",\"time\":5," LEASE_BODY
          ",\"note\":\"caf\xc3\xa9\"}",
          1, "a raw e-acute");
}

static void test_random (void)
{
    static const char alpha[] = "{}[]\",:\\ 0123456789aeuvAS/";
    int parsed = 0, canon = 0, differ = 0, n = 0;

    for (int i = 0; i < 400; i++) {
        char *s = random_event (i);
        if (!s)
            continue;
        size_t len = strlen (s);
        if (old_check (s, len) != 1 || new_check (s, len) != 1)
            differ++;
        n++;
        for (int m = 0; m < 50; m++) {
            char t[1024];
            size_t tl = len < sizeof (t) - 8 ? len : sizeof (t) - 8;
            memcpy (t, s, tl);
            int edits = 1 + (int) (next () % 2);
            for (int e = 0; e < edits && tl > 2; e++) {
                size_t at = next () % tl;
                char c = alpha[next () % (sizeof (alpha) - 1)];
                int op = (int) (next () % 4);
                if (op == 3) /* a space: between tokens it parses */
                    c = ' ';
                switch (op) {
                case 0: t[at] = c; break;
                case 1:
                case 3: memmove (t + at + 1, t + at, tl - at); t[at] = c; tl++; break;
                default: memmove (t + at, t + at + 1, tl - at - 1); tl--; break;
                }
            }
            int o = old_check (t, tl), nw = new_check (t, tl);
            n++;
            if (o != nw) {
                differ++;
                diag ("differ (old %d, new %d): %.*s", o, nw, (int) tl, t);
            }
            parsed += o >= 0;
            canon += o == 1;
        }
        free (s);
    }
    ok (differ == 0, "%d texts (400 canonical Starts and Ends, 20000 edits): the flag "
                     "equals the old check on every one (%d differ)",
        n, differ);
    ok (parsed > 2000 && parsed - canon > 500,
        "the edits reach both sides: %d parse, %d of them canonical", parsed, canon);
}

int main (void)
{
    test_cases ();
    test_random ();
    return done_testing ();
}
