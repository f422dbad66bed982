/*
 * sha256.h - the one SHA-256 of libjobtree (OpenSSL EVP): budget file
 * digests (BudgetLoaded) and the ledger's record checksum and chain link.
 * Private to libjobtree.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_SHA256_H
#define JT_SHA256_H

#include <stdbool.h>
#include <stddef.h>

/* Lowercase hex SHA-256 of data into hex[65]. 0, or -1 (hex is then ""). */
int jt_sha256_hex (const void *data, size_t len, char hex[65]);

/* The 32-byte digest of data into md. 0, or -1. */
int jt_sha256_bin (const void *data, size_t len, unsigned char md[32]);

/* md as 64 lowercase hex digits and a NUL. */
void jt_sha256_to_hex (const unsigned char md[32], char hex[65]);

/* Whether s is a SHA-256 in lowercase hex: 64 of [0-9a-f] (NULL: no). */
bool jt_sha256_hex_ok (const char *s);

#endif /* JT_SHA256_H */
