/*
 * ledger_record.c - one ledger record on disk: formatting and parsing.
 *
 * DESIGN (normative text in docs/ledger-format.md): a record is one line
 *
 *   JT1 <seq> <prev> <len> <payload> <hash>\n
 *
 * seq and len are decimal without leading zeros, prev and hash are 64
 * lowercase hex digits, payload is len bytes of canonical event JSON
 * without '\n'. hash = SHA-256 of the bytes from 'J' to the last payload
 * byte. One digest is both the record's checksum and the chain link: the
 * next record's prev must equal it, so a record cannot be changed, moved
 * or dropped without breaking the record itself or its successor. len
 * makes a record self-delimiting even when damaged bytes contain '\n'.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/ledger.h"
#include "ledger_record.h"
#include "util/sha256.h"

size_t jt_record_format_to (uint64_t seq, const char *prev, const char *payload,
                           size_t len, char *out, char hash[65])
{
    int hl = snprintf (out, JT_RECORD_HEAD_MAX, "%s %" PRIu64 " %.64s %zu ",
                       JT_LEDGER_MAGIC, seq, prev, len);
    size_t body = (size_t) hl + len;

    memcpy (out + hl, payload, len);
    if (jt_sha256_hex (out, body, hash) < 0)
        return 0;
    out[body] = ' ';
    memcpy (out + body + 1, hash, 64);
    out[body + 65] = '\n';
    return body + 66;
}

int jt_record_check (uint64_t seq, const char *prev, const char *payload, size_t len,
                     jt_error_t *err)
{
    if (seq == 0)
        return jt_errprintf (err, "record: seq starts at 1");
    if (len == 0 || len > JT_LEDGER_MAX_PAYLOAD)
        return jt_errprintf (err, "record: payload of %zu bytes (1..%d allowed)", len,
                             JT_LEDGER_MAX_PAYLOAD);
    if (memchr (payload, '\n', len))
        return jt_errprintf (err, "record: payload contains a newline");
    if (!prev || strlen (prev) != 64)
        return jt_errprintf (err, "record: prev is not a 64-digit hash");
    return 0;
}

int jt_record_format (uint64_t seq, const char *prev, const char *payload, size_t len,
                      char **line, size_t *linelen, char hash[65], jt_error_t *err)
{
    if (jt_record_check (seq, prev, payload, len, err) < 0)
        return -1;
    char *buf = malloc (JT_RECORD_SIZE_MAX (len) + 1);
    if (!buf)
        return jt_errprintf (err, "out of memory");
    size_t n = jt_record_format_to (seq, prev, payload, len, buf, hash);
    if (n == 0) {
        free (buf);
        return jt_errprintf (err, "record: SHA-256 failed");
    }
    buf[n] = '\0';
    *line = buf;
    *linelen = n;
    return 0;
}

/* Decimal field ending in a space at buf[*pos]; no leading zeros, <= 20
 * digits. 1 ok, 0 incomplete, -1 malformed. */
static int parse_dec (const char *buf, size_t avail, size_t *pos, uint64_t *out)
{
    size_t i = *pos, start = i;
    uint64_t v = 0;
    while (i < avail && buf[i] >= '0' && buf[i] <= '9') {
        if (i - start >= 20)
            return -1;
        uint64_t d = (uint64_t) (buf[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
        i++;
    }
    if (i == avail)
        return 0;
    if (i == start || buf[i] != ' ' || (buf[start] == '0' && i - start > 1))
        return -1;
    *out = v;
    *pos = i + 1;
    return 1;
}

/* Lowercase hex digits: 1, anything else 0. */
static const unsigned char hexdigit[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
    ['7'] = 1, ['8'] = 1, ['9'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1,
    ['e'] = 1, ['f'] = 1,
};

/* 64 lowercase hex digits at buf[*pos]. Same results as parse_dec. With
 * the 64 bytes there (every good record), one pass with no branch per
 * byte (framing was a fifth of a verify, mostly here); else byte by byte,
 * to tell a bad digit (-1) from the end of the buffer (0). */
static int parse_hex (const char *buf, size_t avail, size_t *pos, char out[65])
{
    if (avail - *pos >= 64) {
        const unsigned char *p = (const unsigned char *) buf + *pos;
        unsigned ok = 1;
        for (size_t k = 0; k < 64; k++)
            ok &= hexdigit[p[k]];
        if (!ok)
            return -1;
        memcpy (out, p, 64);
        out[64] = '\0';
        *pos += 64;
        return 1;
    }
    for (size_t k = 0; k < 64; k++) {
        size_t i = *pos + k;
        if (i >= avail)
            return 0;
        char c = buf[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return -1;
        out[k] = c;
    }
    out[64] = '\0';
    *pos += 64;
    return 1;
}

jt_record_status_t jt_record_parse_frame (const char *buf, size_t avail, jt_record_t *rec)
{
    size_t pos = 0;
    uint64_t len = 0;
    int rc;

    for (size_t i = 0; i < 4; i++) {
        if (i >= avail)
            return JT_RECORD_INCOMPLETE;
        if (buf[i] != "JT1 "[i])
            return JT_RECORD_MALFORMED;
    }
    pos = 4;
    if ((rc = parse_dec (buf, avail, &pos, &rec->seq)) <= 0)
        return rc ? JT_RECORD_MALFORMED : JT_RECORD_INCOMPLETE;
    if ((rc = parse_hex (buf, avail, &pos, rec->prev)) <= 0)
        return rc ? JT_RECORD_MALFORMED : JT_RECORD_INCOMPLETE;
    if (pos >= avail)
        return JT_RECORD_INCOMPLETE;
    if (buf[pos++] != ' ')
        return JT_RECORD_MALFORMED;
    if ((rc = parse_dec (buf, avail, &pos, &len)) <= 0)
        return rc ? JT_RECORD_MALFORMED : JT_RECORD_INCOMPLETE;
    if (rec->seq == 0 || len == 0 || len > JT_LEDGER_MAX_PAYLOAD)
        return JT_RECORD_MALFORMED;
    if (avail - pos < len)
        return memchr (buf + pos, '\n', avail - pos) ? JT_RECORD_MALFORMED
                                                     : JT_RECORD_INCOMPLETE;
    if (memchr (buf + pos, '\n', len))
        return JT_RECORD_MALFORMED;
    rec->payload = buf + pos;
    rec->len = len;
    pos += len;
    if (pos >= avail)
        return JT_RECORD_INCOMPLETE;
    if (buf[pos++] != ' ')
        return JT_RECORD_MALFORMED;
    if ((rc = parse_hex (buf, avail, &pos, rec->hash)) <= 0)
        return rc ? JT_RECORD_MALFORMED : JT_RECORD_INCOMPLETE;
    if (pos >= avail)
        return JT_RECORD_INCOMPLETE;
    if (buf[pos++] != '\n')
        return JT_RECORD_BADTERM; /* complete, but not ended by LF (e.g. CRLF) */
    rec->size = pos;
    return JT_RECORD_OK;
}

bool jt_record_hash_ok (const char *buf, const jt_record_t *rec)
{
    char want[65];
    size_t body = (size_t) (rec->payload - buf) + rec->len;
    return jt_sha256_hex (buf, body, want) == 0 && memcmp (want, rec->hash, 64) == 0;
}

jt_record_status_t jt_record_parse (const char *buf, size_t avail, jt_record_t *rec)
{
    jt_record_status_t st = jt_record_parse_frame (buf, avail, rec);
    if (st == JT_RECORD_OK && !jt_record_hash_ok (buf, rec))
        return JT_RECORD_BADHASH;
    return st;
}
