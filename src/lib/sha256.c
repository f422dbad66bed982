/*
 * sha256.c - SHA-256 in lowercase hex (see sha256.h).
 */
#include "config.h"

#include <openssl/evp.h>

#include "sha256.h"

int jt_sha256_hex (const void *data, size_t len, char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;

    hex[0] = '\0';
    if (EVP_Digest (data, len, md, &mdlen, EVP_sha256 (), NULL) != 1 || mdlen != 32)
        return -1;
    for (unsigned int i = 0; i < 32; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[64] = '\0';
    return 0;
}
