/*
 * pack_dump.c - the pure parts of Pack: policy names, freeing a placement,
 * and the canonical placement dump used by tests and logs.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/pack.h"

const char *jt_pack_policy_str (jt_pack_policy_t p)
{
    switch (p) {
    case JT_PACK_TO_EMPTY:
        return "pack-to-empty";
    case JT_PACK_BEST_FIT:
        return "best-fit";
    }
    return "?";
}

int jt_pack_policy_parse (const char *s, jt_pack_policy_t *out)
{
    if (!s)
        return -1;
    if (strcmp (s, "pack-to-empty") == 0) {
        *out = JT_PACK_TO_EMPTY;
        return 0;
    }
    if (strcmp (s, "best-fit") == 0) {
        *out = JT_PACK_BEST_FIT;
        return 0;
    }
    return -1;
}

void jt_placement_free (jt_placement_t *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->ngroups; i++) {
        free (p->groups[i].nodes);
        free (p->groups[i].node_gpus);
        free (p->groups[i].spares);
    }
    free (p->groups);
    p->groups = NULL;
    p->ngroups = 0;
    p->total_gpus = 0;
}

struct sbuf {
    char *s;
    size_t len, cap;
    bool oom;
};

static void sb_add (struct sbuf *b, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void sb_add (struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->oom)
        return;
    va_start (ap, fmt);
    n = vsnprintf (b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0,
                   fmt, ap);
    va_end (ap);
    if (n < 0) {
        b->oom = true;
        return;
    }
    if (!b->s || b->len + (size_t) n >= b->cap) {
        size_t cap = b->cap ? b->cap : 128;
        while (cap <= b->len + (size_t) n)
            cap *= 2;
        char *ns = realloc (b->s, cap);
        if (!ns) {
            b->oom = true;
            return;
        }
        b->s = ns;
        b->cap = cap;
        va_start (ap, fmt);
        vsnprintf (b->s + b->len, b->cap - b->len, fmt, ap);
        va_end (ap);
    }
    b->len += (size_t) n;
}

char *jt_placement_dump (const jt_placement_t *p, const jt_snapshot_t *s)
{
    struct sbuf b = { NULL, 0, 0, false };

    if (!p || !s || p->ngroups == 0)
        return strdup ("-");
    for (size_t i = 0; i < p->ngroups; i++) {
        const jt_pack_group_t *g = &p->groups[i];
        sb_add (&b, "%sg%zu %s[", i ? " | " : "", i,
                g->domain < s->ndomains ? s->domains[g->domain].name : "?");
        for (size_t k = 0; k < g->nnodes; k++)
            sb_add (&b, "%s%s:%d", k ? " " : "",
                    g->nodes[k] < s->nnodes ? s->nodes[g->nodes[k]].name : "?",
                    g->node_gpus[k]);
        sb_add (&b, "]");
        if (g->nspares > 0) {
            sb_add (&b, " s[");
            for (size_t k = 0; k < g->nspares; k++)
                sb_add (&b, "%s%s", k ? " " : "",
                        g->spares[k] < s->nnodes ? s->nodes[g->spares[k]].name
                                                 : "?");
            sb_add (&b, "]");
        }
    }
    if (b.oom) {
        free (b.s);
        errno = ENOMEM;
        return NULL;
    }
    return b.s;
}
