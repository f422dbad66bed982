/*
 * sha256.c - SHA-256 in lowercase hex (see sha256.h).
 *
 * DESIGN: OpenSSL 3's EVP_Digest (EVP_sha256 ()) fetches the algorithm
 * from the provider store and allocates a context on every call; on the
 * ledger's read path (one digest per record, about 330 bytes each) that
 * cost as much as the hashing. The algorithm is fetched once per process
 * and each thread keeps one context, reset per digest (EVP_DigestInit_ex2).
 * Freed by the thread key's destructor when a thread exits; the fetched
 * algorithm lives as long as the process.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include <openssl/evp.h>

#include "sha256.h"

static pthread_once_t md_once = PTHREAD_ONCE_INIT;
static pthread_key_t ctx_key;
static bool ctx_key_ok;
static EVP_MD *md_sha256;

static void ctx_free (void *p)
{
    EVP_MD_CTX_free (p);
}

static void md_init (void)
{
    md_sha256 = EVP_MD_fetch (NULL, "SHA256", NULL);
    ctx_key_ok = pthread_key_create (&ctx_key, ctx_free) == 0;
}

/* This thread's context, NULL when none can be had (then the caller uses
 * the one-shot path). */
static EVP_MD_CTX *ctx_get (void)
{
    pthread_once (&md_once, md_init);
    if (!md_sha256 || !ctx_key_ok)
        return NULL;
    EVP_MD_CTX *ctx = pthread_getspecific (ctx_key);
    if (!ctx && (ctx = EVP_MD_CTX_new ()) && pthread_setspecific (ctx_key, ctx) != 0) {
        EVP_MD_CTX_free (ctx);
        ctx = NULL;
    }
    return ctx;
}

int jt_sha256_bin (const void *data, size_t len, unsigned char md[32])
{
    EVP_MD_CTX *ctx = ctx_get ();
    unsigned int mdlen = 0;

    if (!ctx)
        return EVP_Digest (data, len, md, &mdlen, EVP_sha256 (), NULL) == 1 && mdlen == 32
                   ? 0
                   : -1;
    if (EVP_DigestInit_ex2 (ctx, md_sha256, NULL) != 1
        || EVP_DigestUpdate (ctx, data, len) != 1
        || EVP_DigestFinal_ex (ctx, md, &mdlen) != 1 || mdlen != 32)
        return -1;
    return 0;
}

void jt_sha256_to_hex (const unsigned char md[32], char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    for (unsigned int i = 0; i < 32; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[64] = '\0';
}

int jt_sha256_hex (const void *data, size_t len, char hex[65])
{
    unsigned char md[32];

    hex[0] = '\0';
    if (jt_sha256_bin (data, len, md) < 0)
        return -1;
    jt_sha256_to_hex (md, hex);
    return 0;
}

bool jt_sha256_hex_ok (const char *s)
{
    return s && strlen (s) == 64 && strspn (s, "0123456789abcdef") == 64;
}
