/*
 * ledger_event_lease.c - a lease Start or End read straight from its
 * canonical text, without json-c: most of a ledger, and most of a verify's
 * time was json-c's tree (about 40 allocations per record), its print for
 * the canonical check and the tree's frees (issue 35).
 *
 * DESIGN: the reader accepts only bytes that jt_event_to_json would write
 * for the event they make: the keys of build_lease in its order, no
 * whitespace, strings of printable ASCII with nothing escaped (json-c
 * prints those bytes as they are), integers without a sign other than a
 * leading '-', no leading zero and at most 18 digits (within int64, and
 * never the saturated bounds), the role's and the reason's own names, a
 * seed of 16 lowercase hex digits exactly with RandomPreempt, a non-empty
 * nodes array; then jt_event_validate. Anything else is declined (NULL),
 * and the caller parses with json-c as before, which gives the same event
 * or the error it always gave: so an event read here is the one
 * jt_event_from_json_canon makes of the text, and canonical.
 * tests/unit/ledger_event_lease.c compares the two on every byte change of
 * sample events.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/ledger.h"
#include "jobtree/snapshot.h"
#include "ledger_event_int.h"

bool jt_ev_lease_fast = true;

struct cur {
    const char *p, *end;
};

/* The literal lit next: consume it. */
static bool lit (struct cur *c, const char *lit, size_t n)
{
    if ((size_t) (c->end - c->p) < n || memcmp (c->p, lit, n))
        return false;
    c->p += n;
    return true;
}
#define LIT(c, s) lit ((c), (s), sizeof (s) - 1)

/* A string of printable ASCII without '"' or '\\': [*s, *s + *n). */
static bool str (struct cur *c, const char **s, size_t *n)
{
    if (c->p >= c->end || *c->p != '"')
        return false;
    const char *q = ++c->p;
    while (q < c->end && *q != '"') {
        unsigned char b = (unsigned char) *q;
        if (b < 0x20 || b > 0x7e || b == '\\')
            return false;
        q++;
    }
    if (q >= c->end)
        return false;
    *s = c->p;
    *n = (size_t) (q - c->p);
    c->p = q + 1;
    return true;
}

/* A string into a malloc'd copy at *out. */
static bool str_dup (struct cur *c, char **out)
{
    const char *s;
    size_t n;
    if (!str (c, &s, &n) || !(*out = malloc (n + 1)))
        return false;
    memcpy (*out, s, n);
    (*out)[n] = '\0';
    return true;
}

/* An integer as json-c prints an int64: -?(0|[1-9][0-9]*), here at most
 * 18 digits (never out of range, never saturated). */
static bool num (struct cur *c, int64_t *out)
{
    bool neg = c->p < c->end && *c->p == '-';
    const char *q = c->p + neg;
    int64_t v = 0;
    int d = 0;

    if (q >= c->end || *q < '0' || *q > '9' || (neg && *q == '0'))
        return false;
    if (*q == '0') {
        q++;
    } else {
        while (q < c->end && *q >= '0' && *q <= '9' && d < 18) {
            v = v * 10 + (*q++ - '0');
            d++;
        }
        if (q < c->end && *q >= '0' && *q <= '9')
            return false; /* 19 digits or more: json-c's way */
    }
    c->p = q;
    *out = neg ? -v : v;
    return true;
}

/* A seed: 16 lowercase hex digits. */
static bool seed (struct cur *c, uint64_t *out)
{
    const char *s;
    size_t n;
    uint64_t v = 0;
    if (!str (c, &s, &n) || n != 16)
        return false;
    for (size_t i = 0; i < 16; i++) {
        int h = s[i] >= '0' && s[i] <= '9' ? s[i] - '0'
                : s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10
                                             : -1;
        if (h < 0)
            return false;
        v = v << 4 | (uint64_t) h;
    }
    *out = v;
    return true;
}

static bool nodes (struct cur *c, jt_event_t *ev)
{
    if (!LIT (c, "["))
        return false;
    do {
        const char *s;
        size_t n;
        char buf[256];
        if (!str (c, &s, &n) || n >= sizeof (buf))
            return false;
        memcpy (buf, s, n);
        buf[n] = '\0';
        if (jt_event_add_node (ev, buf) < 0)
            return false;
    } while (LIT (c, ","));
    return LIT (c, "]");
}

/* A name that must be exactly canon (the enum's own spelling). */
static bool name_is (const char *s, size_t n, const char *canon)
{
    return canon && strlen (canon) == n && !memcmp (s, canon, n);
}

jt_event_t *jt_ev_lease_read (const char *text, size_t len)
{
    struct cur c = { text, text + len };
    jt_event_t *ev = NULL;
    const char *s;
    size_t n;
    jt_role_t role;
    char buf[32];

    if (LIT (&c, "{\"v\":1,\"type\":\"Start\",\"id\":"))
        ev = jt_event_create (JT_EV_START);
    else if (LIT (&c, "{\"v\":1,\"type\":\"End\",\"id\":"))
        ev = jt_event_create (JT_EV_END);
    if (!ev)
        return NULL;
    if (!str_dup (&c, &ev->id) || !LIT (&c, ",\"time\":") || !num (&c, &ev->time)
        || !LIT (&c, ",\"lease\":") || !str_dup (&c, &ev->lease) || !LIT (&c, ",\"run\":")
        || !str_dup (&c, &ev->run) || !LIT (&c, ",\"group\":") || !str_dup (&c, &ev->group)
        || !LIT (&c, ",\"nodes\":") || !nodes (&c, ev) || !LIT (&c, ",\"gpus\":")
        || !num (&c, &ev->gpus) || !LIT (&c, ",\"role\":") || !str (&c, &s, &n)
        || n >= sizeof (buf))
        goto decline;
    memcpy (buf, s, n);
    buf[n] = '\0';
    if (jt_role_parse (buf, &role) < 0 || !name_is (s, n, jt_role_str (role)))
        goto decline;
    ev->role = (jt_lease_role_t) role;
    if (!LIT (&c, ",\"envelope\":") || !str_dup (&c, &ev->envelope)
        || !LIT (&c, ",\"owner\":") || !str_dup (&c, &ev->owner) || !LIT (&c, ",\"start\":")
        || !num (&c, &ev->start))
        goto decline;
    if (ev->type == JT_EV_START && LIT (&c, ",\"conformance\":")
        && !str_dup (&c, &ev->conformance))
        goto decline;
    if (ev->type == JT_EV_END) {
        if (!LIT (&c, ",\"end\":") || !num (&c, &ev->end) || !LIT (&c, ",\"reason\":")
            || !str (&c, &s, &n) || n >= sizeof (buf))
            goto decline;
        memcpy (buf, s, n);
        buf[n] = '\0';
        jt_end_reason_t r = jt_end_reason_parse (buf);
        if (!r || !name_is (s, n, jt_end_reason_str (r)))
            goto decline;
        ev->reason = r;
        bool has_seed = LIT (&c, ",\"seed\":");
        if (has_seed != (r == JT_REASON_RANDOM_PREEMPT) || (has_seed && !seed (&c, &ev->seed)))
            goto decline;
    }
    if (LIT (&c, ",\"note\":") && !str_dup (&c, &ev->note))
        goto decline;
    if (!LIT (&c, "}") || c.p != c.end || jt_event_validate (ev, NULL) < 0)
        goto decline;
    return ev;
decline:
    jt_event_destroy (ev);
    return NULL;
}
