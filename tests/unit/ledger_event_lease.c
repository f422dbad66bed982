/*
 * ledger_event_lease.c - a Start or End read without json-c
 * (jt_ev_lease_read, ledger_event_lease.c) is the event json-c's parse
 * makes of the same text, and that text is canonical; anything else is
 * declined. Sample events of every shape (conformance, note, each reason,
 * the seed, zero integers, several nodes) and every one-byte
 * change of them (each byte replaced by each of 104 others, deleted, a
 * space or a digit inserted) are read both ways: whenever the reader
 * accepts, json-c's parse must give the same canonical text and the flag
 * canonical; the reader must accept the samples themselves and the changes
 * that keep them canonical (a letter or digit for another inside a
 * string).
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
#include "ledger/ledger_event_int.h"
#include "tap.h"

static const char *const samples[] = {
    "{\"v\":1,\"type\":\"Start\",\"id\":\"e1\",\"time\":1767225600,\"lease\":\"c1:100:0\","
    "\"run\":\"c1:100\",\"group\":\"0\",\"nodes\":[\"a01\",\"a02\"],\"gpus\":16,"
    "\"role\":\"Active\",\"envelope\":\"west-h100\",\"owner\":\"rai\",\"start\":1767225600}",
    "{\"v\":1,\"type\":\"Start\",\"id\":\"e2\",\"time\":0,\"lease\":\"c1:101:1\","
    "\"run\":\"c1:101\",\"group\":\"1/a\",\"nodes\":[\"n0001\"],\"gpus\":8,"
    "\"role\":\"Borrowed\",\"envelope\":\"env07\",\"owner\":\"o7\",\"start\":5,"
    "\"conformance\":\"h100/80g\",\"note\":\"p/q r~s\"}",
    "{\"v\":1,\"type\":\"Start\",\"id\":\"e3\",\"time\":12,\"lease\":\"x\",\"run\":\"c1:9\","
    "\"group\":\"0\",\"nodes\":[\"b1\"],\"gpus\":1,\"role\":\"Spare\",\"envelope\":\"e\","
    "\"owner\":\"o\",\"start\":12,\"note\":\"n\"}",
    "{\"v\":1,\"type\":\"End\",\"id\":\"e4\",\"time\":1767232800,\"lease\":\"c1:100:0\","
    "\"run\":\"c1:100\",\"group\":\"0\",\"nodes\":[\"a01\",\"a02\"],\"gpus\":16,"
    "\"role\":\"Active\",\"envelope\":\"west-h100\",\"owner\":\"rai\",\"start\":1767225600,"
    "\"end\":1767232800,\"reason\":\"End\"}",
    "{\"v\":1,\"type\":\"End\",\"id\":\"e5\",\"time\":1767243600,\"lease\":\"c1:103:0\","
    "\"run\":\"c1:103\",\"group\":\"0\",\"nodes\":[\"a05\"],\"gpus\":8,\"role\":\"Active\","
    "\"envelope\":\"west-h100\",\"owner\":\"rai\",\"start\":1767236400,\"end\":1767243600,"
    "\"reason\":\"RandomPreempt\",\"seed\":\"0123456789abcdef\",\"note\":\"lottery\"}",
    "{\"v\":1,\"type\":\"End\",\"id\":\"e6\",\"time\":99,\"lease\":\"l\",\"run\":\"c1:1\","
    "\"group\":\"0\",\"nodes\":[\"a\",\"b\",\"c\"],\"gpus\":24,\"role\":\"Borrowed\","
    "\"envelope\":\"e\",\"owner\":\"o\",\"start\":9,\"end\":99,\"reason\":\"Fail\"}",
};

static int nread, naccepted, nbad;

/* Read t both ways; a difference is a failure (the first few shown). */
static void compare (const char *t, size_t len, const char *what)
{
    jt_error_t err = { "" };
    bool canon = false;
    jt_event_t *fast = jt_ev_lease_read (t, len);
    jt_ev_lease_fast = false;
    jt_event_t *slow = jt_event_from_json_canon (t, len, &canon, &err);
    jt_ev_lease_fast = true;
    nread++;
    if (fast) {
        naccepted++;
        char *a = jt_event_to_json (fast, NULL), *b = slow ? jt_event_to_json (slow, NULL) : NULL;
        bool same = a && b && canon && !strcmp (a, b) && strlen (a) == len
                    && !memcmp (a, t, len);
        if (!same && nbad++ < 5)
            diag ("%s: read as %s, json-c: %s (canonical %d): %.*s", what, a ? a : "?",
                  b ? b : err.text, canon, (int) len, t);
        free (a);
        free (b);
    }
    jt_event_destroy (fast);
    jt_event_destroy (slow);
}

int main (void)
{
    size_t n = sizeof (samples) / sizeof (samples[0]);
    unsigned char bytes[128];
    size_t nb = 0;
    static const unsigned char odd[] = { 0x00, 0x01, 0x09, 0x0a, 0x1f, 0x7f, 0x80, 0xc3, 0xff };

    for (int b = 0x20; b <= 0x7e; b++)
        bytes[nb++] = (unsigned char) b;
    memcpy (bytes + nb, odd, sizeof (odd));
    nb += sizeof (odd);

    int own = 0;
    for (size_t s = 0; s < n; s++) {
        jt_event_t *ev = jt_ev_lease_read (samples[s], strlen (samples[s]));
        own += ev != NULL;
        if (!ev) {
            jt_error_t err = { "" };
            bool canon = false;
            ev = jt_event_from_json_canon (samples[s], strlen (samples[s]), &canon, &err);
            diag ("sample %zu declined; json-c: %s (canonical %d)", s,
                  ev ? "an event" : err.text, canon);
        }
        jt_event_destroy (ev);
    }
    is_int (own, (int) n, "the %zu samples are read without json-c", n);

    char buf[1024];
    int kept = 0;
    for (size_t s = 0; s < n; s++) {
        const char *t = samples[s];
        size_t len = strlen (t);
        compare (t, len, "sample");
        for (size_t i = 0; i < len; i++) {
            for (size_t k = 0; k < nb; k++) {
                memcpy (buf, t, len);
                buf[i] = (char) bytes[k];
                int before = naccepted;
                compare (buf, len, "replaced");
                kept += naccepted > before;
            }
            memcpy (buf, t, i);
            memcpy (buf + i, t + i + 1, len - i - 1);
            compare (buf, len - 1, "deleted");
            for (const char *ins = " 0"; *ins; ins++) {
                memcpy (buf, t, i);
                buf[i] = *ins;
                memcpy (buf + i + 1, t + i, len - i);
                compare (buf, len + 1, "inserted");
            }
        }
    }
    is_int (nbad, 0, "%d texts read both ways: every one read without json-c (%d) is "
            "json-c's event, canonical",
            nread, naccepted);
    ok (kept > 1000, "%d one-byte changes still canonical are read without json-c", kept);
    return done_testing ();
}
