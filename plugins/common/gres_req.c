/*
 * gres_req.c - find the GPU request in a TRES string (see gres_req.h).
 */
#include <stdlib.h>
#include <string.h>

#include "gres_req.h"

/* Parse one entry "[gres:]gpu[:type][:count]" (len bytes at s). Returns 1
 * for a GPU entry, 0 for another resource, -1 when malformed. */
static int parse_entry (const char *s, size_t len, char *type, size_t tlen,
                        int64_t *count)
{
    char buf[256];
    char *f[4];
    size_t nf = 0;
    char *p, *save = NULL;

    if (len >= sizeof (buf))
        return -1;
    memcpy (buf, s, len);
    buf[len] = '\0';
    /* "gres/gpu:h100=8" is the TRES form of the same thing. */
    for (p = buf; *p; p++)
        if (*p == '/' || *p == '=')
            *p = ':';
    for (p = strtok_r (buf, ":", &save); p; p = strtok_r (NULL, ":", &save)) {
        if (nf == 4)
            return -1;
        f[nf++] = p;
    }
    if (nf && strcmp (f[0], "gres") == 0) {
        memmove (f, f + 1, (nf - 1) * sizeof (*f));
        nf--;
    }
    if (nf == 0 || strcmp (f[0], "gpu") != 0)
        return 0;
    type[0] = '\0';
    *count = 1;
    for (size_t i = 1; i < nf; i++) {
        char *end;
        long long v = strtoll (f[i], &end, 10);
        if (i == nf - 1 && *end == '\0' && end != f[i]) {
            if (v < 0)
                return -1;
            *count = v;
        } else if (i == 1 && strlen (f[i]) < tlen) {
            strcpy (type, f[i]);
        } else {
            return -1;
        }
    }
    return 1;
}

int jt_gres_gpu_req (const char *tres, char *type, size_t len, int64_t *count)
{
    const char *p = tres;
    int found = 0;

    if (!tres || len == 0)
        return 0;
    type[0] = '\0';
    *count = 0;
    while (*p) {
        size_t l = strcspn (p, ",;");
        char t[128];
        int64_t c;
        int rc = parse_entry (p, l, t, sizeof (t), &c);

        if (rc < 0)
            return -1;
        if (rc == 1) {
            if (found && strcmp (t, type) != 0)
                return -1;
            if (strlen (t) >= len)
                return -1;
            strcpy (type, t);
            *count += c;
            found = 1;
        }
        p += l;
        if (*p)
            p++;
    }
    return found;
}
