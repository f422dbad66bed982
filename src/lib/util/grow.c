/*
 * grow.c - growing an array by doubling (see grow.h).
 */
#include "config.h"

#include <stdlib.h>

#include "grow.h"

int jt_grow (void **v, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 16;
    while (nc < n)
        nc *= 2;
    void *nv = realloc (*v, nc * sz);
    if (!nv)
        return -1;
    *v = nv;
    *cap = nc;
    return 0;
}
