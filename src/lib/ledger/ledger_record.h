/*
 * ledger_record.h - internal helpers shared by the ledger reader, writer and
 * tests (not public API).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_LEDGER_RECORD_H
#define JT_LEDGER_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobtree/ledger.h"

/* True iff name is a segment file name ("ledger-<20 digits>.jtl"); its
 * number goes to *first. */
int jt_ledger_segment_name (const char *name, unsigned long long *first);

/* The longest head "JT1 <seq> <prev> <len> " (20-digit seq and len) and
 * the longest record around a payload of len bytes. */
#define JT_RECORD_HEAD_MAX (4 + 21 + 65 + 21 + 1)
#define JT_RECORD_SIZE_MAX(len) (JT_RECORD_HEAD_MAX + (len) + 1 + 64 + 1)

/* jt_record_format's checks of its arguments. 0, or -1 with err. */
int jt_record_check (uint64_t seq, const char *prev, const char *payload, size_t len,
                     jt_error_t *err);

/* Format a record whose arguments passed jt_record_check into out (room
 * for JT_RECORD_SIZE_MAX (len) bytes; no NUL written) and its hash into
 * hash: the record's length, or 0 when SHA-256 failed. */
size_t jt_record_format_to (uint64_t seq, const char *prev, const char *payload,
                           size_t len, char *out, char hash[65]);

/* jt_record_parse without the hash check: the grammar, the length and the
 * terminator only (every status but BADHASH). On OK fills rec, whose hash
 * is then still to be checked with jt_record_hash_ok. */
jt_record_status_t jt_record_parse_frame (const char *buf, size_t avail,
                                          jt_record_t *rec);

/* Whether the record that jt_record_parse_frame found at the start of buf
 * has the hash it states. */
bool jt_record_hash_ok (const char *buf, const jt_record_t *rec);

/* jt_ledger_read over segment files (not directories) from the middle of
 * a ledger: the first file's name gives its first seq and its first
 * record's prev is trusted (the chain is checked from there on).
 * ends_ledger: the last file is the ledger's last segment (a torn tail
 * there is TRUNCATED). No head anchor. 0 or -1 as jt_ledger_read. */
int jt_ledger_read_from (const char *const *files, size_t nfiles, bool ends_ledger,
                         jt_ledger_record_f cb, void *arg, jt_ledger_result_t *res,
                         jt_error_t *err);

/* jt_ledger_read_from with the first file read from byte off on (0: all
 * of it, as jt_ledger_read_from), where the record of seq must begin (a
 * record after the segment's first: seq > its name's). That record's prev
 * is trusted, its own hash checked, and every later record must chain
 * from it: the chain is anchored at that record, not at the segment's
 * start. A record of another seq there is BADSEQ, bytes that are not a
 * record there CORRUPT (the caller's offset was wrong: nothing of the
 * ledger is said by it). */
int jt_ledger_read_at (const char *const *files, size_t nfiles, uint64_t off, uint64_t seq,
                       bool ends_ledger, jt_ledger_record_f cb, void *arg,
                       jt_ledger_result_t *res, jt_error_t *err);

/* The reader's parallel hash check (ledger_reader.c): segments of at least
 * jt_ledger_read_parallel_min bytes (4 MiB) are framed in chunks of
 * jt_ledger_read_chunk records (4096) hashed on helper threads. Tests set
 * them to walk small ledgers both ways (from outside the library:
 * jt_ledger_read_test_chunks); nothing else changes them. */
extern size_t jt_ledger_read_chunk;
extern size_t jt_ledger_read_parallel_min;

#endif /* JT_LEDGER_RECORD_H */
