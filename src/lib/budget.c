/*
 * budget.c - the budget set: owners, envelopes, aggregate caps, the family
 * DAG (see jobtree/budget.h). Owns create/destroy, the cross-file checks of
 * jt_budgets_finalize, jt_budgets_load_dir and the lookups. Reading one file
 * is budget_json.c.
 *
 * DESIGN: jt_budgets_t is the first member of a private struct that also
 * keeps each file's text until finalize, so cross-file errors (duplicate
 * names, unknown parents, cycles) can still point at the field's line:col.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/budget.h"
#include "util/jsonutil.h"
#include "budget_int.h"

struct src {
    char *text;
    size_t len;
};

struct budgets_priv {
    jt_budgets_t pub;           /* first: jt_budgets_t * casts to this */
    struct src *src;            /* parallel to pub.v until finalize */
    size_t cap;
};

jt_budgets_t *jt_budgets_create (void)
{
    struct budgets_priv *p = calloc (1, sizeof (*p));
    return p ? &p->pub : NULL;
}

static void free_strv (char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free (v[i]);
    free (v);
}

void jt_budget_clear (jt_budget_t *bud)
{
    if (!bud)
        return;
    for (size_t i = 0; i < bud->nenv; i++) {
        jt_envelope_t *e = &bud->env[i];
        free (e->name);
        free (e->flavor);
        jt_labels_free (&e->selector);
        free_strv (e->lending.to, e->lending.nto);
    }
    free (bud->env);
    for (size_t i = 0; i < bud->ncaps; i++) {
        jt_aggcap_t *c = &bud->caps[i];
        free (c->name);
        free (c->flavor);
        free_strv (c->envelopes, c->nenvelopes);
        free (c->env_ids);
    }
    free (bud->caps);
    free (bud->owner);
    free (bud->parent);
    free (bud->file);
    memset (bud, 0, sizeof (*bud));
}

static void free_sources (struct budgets_priv *p)
{
    for (size_t i = 0; p->src && i < p->pub.n; i++)
        free (p->src[i].text);
    free (p->src);
    p->src = NULL;
}

void jt_budgets_destroy (jt_budgets_t *b)
{
    struct budgets_priv *p = (struct budgets_priv *) b;
    int saved = errno;

    if (!b)
        return;
    free_sources (p);
    for (size_t i = 0; i < b->n; i++)
        jt_budget_clear (&b->v[i]);
    free (b->v);
    free (b->env);
    free (b->caps);
    free (p);
    errno = saved;
}

int jt_budgets_push (jt_budgets_t *b, jt_budget_t *bud, const char *text, size_t len)
{
    struct budgets_priv *p = (struct budgets_priv *) b;

    if (b->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 8;
        jt_budget_t *v = realloc (b->v, cap * sizeof (*v));
        if (!v)
            return -1;
        b->v = v;
        struct src *s = realloc (p->src, cap * sizeof (*s));
        if (!s)
            return -1;
        p->src = s;
        p->cap = cap;
    }
    char *copy = malloc (len + 1);
    if (!copy)
        return -1;
    memcpy (copy, text, len);
    copy[len] = '\0';
    p->src[b->n].text = copy;
    p->src[b->n].len = len;
    b->v[b->n] = *bud;
    for (size_t i = 0; i < bud->nenv; i++)
        b->v[b->n].env[i].owner = b->v[b->n].owner;
    memset (bud, 0, sizeof (*bud));
    b->n++;
    return 0;
}

/* ---- finalize ---- */

/* A diagnostic about budget i's field at path, located in its source. */
static void ferr (struct budgets_priv *p, jt_diags_t *diags, size_t i,
                  const char *path, const char *fmt, ...)
    __attribute__ ((format (printf, 5, 6)));

static void ferr (struct budgets_priv *p, jt_diags_t *diags, size_t i,
                  const char *path, const char *fmt, ...)
{
    jt_jdoc_t d;
    char msg[512];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    jt_jdoc_init (&d, p->pub.v[i].file, p->src[i].text, p->src[i].len, diags);
    jt_jdoc_error (&d, path, "%s", msg);
}

/* "file:line:col" of budget i's field at path, for "also defined at". */
static void where (struct budgets_priv *p, size_t i, const char *path, char *buf,
                   size_t len)
{
    int line, col;

    jt_json_locate (p->src[i].text, p->src[i].len, path, &line, &col);
    snprintf (buf, len, "%s:%d:%d", p->pub.v[i].file ? p->pub.v[i].file : "<input>",
              line, col);
}

/* One named thing for duplicate detection: sorted by (name, order). */
struct ref {
    const char *name;
    size_t bud;                 /* budget index (insertion order) */
    size_t idx;                 /* envelope or cap index in that budget */
    size_t order;
};

static int ref_cmp (const void *a, const void *b)
{
    const struct ref *x = a, *y = b;
    int c = strcmp (x->name, y->name);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

static const struct ref *ref_find (const struct ref *v, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp (v[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && !strcmp (v[lo].name, name) ? &v[lo] : NULL;
}

/* Report the second and later occurrences of each name. what is "owner",
 * "envelope name", ...; pathfmt renders the field's path from the index;
 * rule says how to fix it. */
static int report_dups (struct budgets_priv *p, jt_diags_t *diags, struct ref *v,
                        size_t n, const char *what, const char *pathfmt,
                        const char *rule)
{
    int errors = 0;
    char path[JT_JSON_PATH_MAX], first[JT_JSON_PATH_MAX], loc[512];

    for (size_t i = 1; i < n; i++) {
        if (strcmp (v[i].name, v[i - 1].name))
            continue;
        size_t f = i - 1;
        while (f > 0 && !strcmp (v[f - 1].name, v[i].name))
            f--;
        snprintf (path, sizeof (path), pathfmt, v[i].idx);
        snprintf (first, sizeof (first), pathfmt, v[f].idx);
        where (p, v[f].bud, first, loc, sizeof (loc));
        ferr (p, diags, v[i].bud, path, "duplicate %s '%s' (first defined at %s); "
              "%s", what, v[i].name, loc, rule);
        errors++;
    }
    return errors;
}

static int check_parents (struct budgets_priv *p, jt_diags_t *diags,
                          const struct ref *owners, size_t n)
{
    jt_budgets_t *b = &p->pub;
    const char **names = calloc (n + 1, sizeof (char *));
    int *state = calloc (n ? n : 1, sizeof (int));
    size_t *stack = calloc (n ? n : 1, sizeof (size_t));
    int errors = 0;

    if (!names || !state || !stack) {
        jt_diags_add (diags, NULL, 0, 0, NULL, "out of memory");
        errors++;
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        names[i] = owners[i].name;
    /* parent -> budget index, -1 for none or unknown */
    for (size_t i = 0; i < b->n; i++) {
        const char *par = b->v[i].parent;
        if (par && !ref_find (owners, n, par)) {
            const char *s = jt_json_suggest (par, names);
            if (s)
                ferr (p, diags, i, "parent", "unknown parent '%s'; did you mean "
                      "'%s'?", par, s);
            else
                ferr (p, diags, i, "parent", "unknown parent '%s': no budget file "
                      "has that owner (add one; an owner may have no envelopes)", par);
            errors++;
        }
    }
    /* Walk from each owner (in name order) along parents; a node met again
     * on the current walk closes a cycle. state: 0 new, 1 on walk, 2 done. */
    for (size_t k = 0; k < n; k++) {
        size_t depth = 0, cur = owners[k].bud;
        bool closed = false;
        while (state[cur] == 0) {
            state[cur] = 1;
            stack[depth++] = cur;
            const struct ref *r = b->v[cur].parent
                                  ? ref_find (owners, n, b->v[cur].parent) : NULL;
            if (!r)
                break;
            cur = r->bud;
            closed = state[cur] == 1;
        }
        if (closed) {
            /* the cycle is stack[j..depth) where stack[j] == cur; name it
             * starting from its smallest owner so the text is stable */
            size_t j = 0, m;
            while (stack[j] != cur)
                j++;
            m = j;
            for (size_t q = j; q < depth; q++)
                if (strcmp (b->v[stack[q]].owner, b->v[stack[m]].owner) < 0)
                    m = q;
            char text[512];
            size_t len = 0, cyc = depth - j;
            for (size_t q = 0; q <= cyc && len < sizeof (text); q++) {
                size_t at = stack[j + (m - j + q) % cyc];
                len += (size_t) snprintf (text + len, sizeof (text) - len, "%s%s",
                                          q ? " -> " : "", b->v[at].owner);
            }
            ferr (p, diags, stack[m], "parent", "cycle in parents: %s", text);
            errors++;
        }
        for (size_t q = 0; q < depth; q++)
            state[stack[q]] = 2;
    }
done:
    free (names);
    free (state);
    free (stack);
    return errors;
}

static int check_caps (struct budgets_priv *p, jt_diags_t *diags,
                       const struct ref *envs, size_t nenv)
{
    jt_budgets_t *b = &p->pub;
    const char **names = calloc (nenv + 1, sizeof (char *));
    char path[JT_JSON_PATH_MAX];
    int errors = 0;

    if (!names) {
        jt_diags_add (diags, NULL, 0, 0, NULL, "out of memory");
        return 1;
    }
    for (size_t i = 0; i < nenv; i++)
        names[i] = envs[i].name;
    for (size_t i = 0; i < b->n; i++) {
        for (size_t c = 0; c < b->v[i].ncaps; c++) {
            jt_aggcap_t *cap = &b->v[i].caps[c];
            double hours = 0;
            bool all = true;
            for (size_t k = 0; k < cap->nenvelopes; k++) {
                const char *en = cap->envelopes[k];
                const struct ref *r = ref_find (envs, nenv, en);
                snprintf (path, sizeof (path), "aggregateCaps[%zu].envelopes[%zu]", c, k);
                for (size_t q = 0; q < k; q++)
                    if (!strcmp (cap->envelopes[q], en)) {
                        ferr (p, diags, i, path, "envelope '%s' is listed twice", en);
                        errors++;
                    }
                if (!r) {
                    const char *s = jt_json_suggest (en, names);
                    ferr (p, diags, i, path, "unknown envelope '%s'%s%s%s", en,
                          s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
                    errors++;
                    all = false;
                    continue;
                }
                const jt_envelope_t *e = &b->v[r->bud].env[r->idx];
                if (strcmp (e->flavor, cap->flavor)) {
                    ferr (p, diags, i, path, "envelope '%s' has flavor '%s', not the "
                          "cap's flavor '%s'", en, e->flavor, cap->flavor);
                    errors++;
                }
                hours += (double) (e->end - e->start) / 3600.0;
            }
            double bound = (double) cap->max_concurrency * hours;
            if (all && cap->max_gpu_hours > bound) {
                snprintf (path, sizeof (path), "aggregateCaps[%zu].maxGPUHours", c);
                ferr (p, diags, i, path, "maxGPUHours=%g exceeds maxConcurrency x "
                      "total window = %lld x %g h = %g GPU-hours", cap->max_gpu_hours,
                      (long long) cap->max_concurrency, hours, bound);
                errors++;
            }
        }
    }
    free (names);
    return errors;
}

static int budget_cmp (const void *a, const void *b)
{
    return strcmp (((const jt_budget_t *) a)->owner, ((const jt_budget_t *) b)->owner);
}

static int env_cmp (const void *a, const void *b)
{
    return strcmp ((*(jt_envelope_t *const *) a)->name,
                   (*(jt_envelope_t *const *) b)->name);
}

static int cap_cmp (const void *a, const void *b)
{
    return strcmp ((*(jt_aggcap_t *const *) a)->name,
                   (*(jt_aggcap_t *const *) b)->name);
}

/* Returns 0, or -1 with every problem appended to diags. */
int jt_budgets_finalize (jt_budgets_t *b, jt_diags_t *diags)
{
    struct budgets_priv *p = (struct budgets_priv *) b;
    struct ref *owners = NULL, *envs = NULL, *caps = NULL;
    size_t nenv = 0, ncaps = 0, k = 0;
    int errors = 0;

    if (b->finalized)
        return 0;
    for (size_t i = 0; i < b->n; i++) {
        nenv += b->v[i].nenv;
        ncaps += b->v[i].ncaps;
    }
    owners = calloc (b->n + 1, sizeof (*owners));
    envs = calloc (nenv + 1, sizeof (*envs));
    caps = calloc (ncaps + 1, sizeof (*caps));
    b->env = calloc (nenv + 1, sizeof (*b->env));
    b->caps = calloc (ncaps + 1, sizeof (*b->caps));
    if (!owners || !envs || !caps || !b->env || !b->caps) {
        jt_diags_add (diags, NULL, 0, 0, NULL, "out of memory");
        errors++;
        goto done;
    }
    for (size_t i = 0; i < b->n; i++)
        owners[i] = (struct ref){ b->v[i].owner, i, 0, i };
    for (size_t i = 0; i < b->n; i++)
        for (size_t e = 0; e < b->v[i].nenv; e++, k++)
            envs[k] = (struct ref){ b->v[i].env[e].name, i, e, k };
    k = 0;
    for (size_t i = 0; i < b->n; i++)
        for (size_t c = 0; c < b->v[i].ncaps; c++, k++)
            caps[k] = (struct ref){ b->v[i].caps[c].name, i, c, k };
    qsort (owners, b->n, sizeof (*owners), ref_cmp);
    qsort (envs, nenv, sizeof (*envs), ref_cmp);
    qsort (caps, ncaps, sizeof (*caps), ref_cmp);
    errors += report_dups (p, diags, owners, b->n, "owner", "owner",
                           "each owner has exactly one budget file");
    errors += report_dups (p, diags, envs, nenv, "envelope name", "envelopes[%zu].name",
                           "envelope names must be unique across all budget files");
    errors += report_dups (p, diags, caps, ncaps, "aggregate cap name",
                           "aggregateCaps[%zu].name",
                           "aggregate cap names must be unique across all budget "
                           "files");
    errors += check_parents (p, diags, owners, b->n);
    errors += check_caps (p, diags, envs, nenv);
    if (errors)
        goto done;

    /* All good: sort and index. Envelope pointers stay valid because each
     * budget's env array is its own allocation. */
    if (b->n > 1)   /* qsort (NULL, 0, ...) is undefined: an empty set has no array */
        qsort (b->v, b->n, sizeof (*b->v), budget_cmp);
    k = 0;
    for (size_t i = 0; i < b->n; i++) {
        for (size_t e = 0; e < b->v[i].nenv; e++) {
            b->v[i].env[e].owner = b->v[i].owner;
            b->env[k++] = &b->v[i].env[e];
        }
    }
    b->nenv = nenv;
    qsort (b->env, nenv, sizeof (*b->env), env_cmp);
    for (size_t i = 0; i < nenv; i++)
        b->env[i]->id = i;
    k = 0;
    for (size_t i = 0; i < b->n; i++)
        for (size_t c = 0; c < b->v[i].ncaps; c++)
            b->caps[k++] = &b->v[i].caps[c];
    b->ncaps = ncaps;
    qsort (b->caps, ncaps, sizeof (*b->caps), cap_cmp);
    for (size_t i = 0; i < ncaps; i++) {
        jt_aggcap_t *c = b->caps[i];
        if (!(c->env_ids = calloc (c->nenvelopes + 1, sizeof (size_t)))) {
            jt_diags_add (diags, NULL, 0, 0, NULL, "out of memory");
            errors++;
            goto done;
        }
        for (size_t q = 0; q < c->nenvelopes; q++)
            c->env_ids[q] = jt_budgets_envelope (b, c->envelopes[q])->id;
    }
    b->finalized = true;
    free_sources (p);
done:
    if (!b->finalized) {
        free (b->env);
        free (b->caps);
        b->env = NULL;
        b->caps = NULL;
        b->nenv = b->ncaps = 0;
    }
    free (owners);
    free (envs);
    free (caps);
    return errors ? -1 : 0;
}

static int name_cmp (const void *a, const void *b)
{
    return strcmp (*(char *const *) a, *(char *const *) b);
}

/* Returns the set, or NULL with every problem in diags. */
jt_budgets_t *jt_budgets_load_dir (const char *dir, jt_diags_t *diags)
{
    DIR *dp = opendir (dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int errors = 0;
    jt_budgets_t *b = NULL;

    if (!dp) {
        jt_diags_add (diags, dir, 0, 0, NULL, "cannot open budget directory: %s",
                      strerror (errno));
        return NULL;
    }
    while ((de = readdir (dp))) {
        size_t len = strlen (de->d_name);
        if (de->d_name[0] == '.' || len < 6 || strcmp (de->d_name + len - 5, ".json"))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **v = realloc (names, cap * sizeof (*v));
            if (!v)
                goto nomem;
            names = v;
        }
        if (!(names[n] = malloc (strlen (dir) + len + 2)))
            goto nomem;
        sprintf (names[n++], "%s/%s", dir, de->d_name);
    }
    closedir (dp);
    dp = NULL;
    if (n == 0) {
        jt_diags_add (diags, dir, 0, 0, NULL, "no budget files (*.json) in directory");
        goto done;
    }
    qsort (names, n, sizeof (*names), name_cmp);
    if (!(b = jt_budgets_create ()))
        goto nomem;
    for (size_t i = 0; i < n; i++)
        if (jt_budgets_add_file (b, names[i], diags) < 0)
            errors++;
    /* Cross-file checks only make sense when every file was read: an
     * unreadable parent file would otherwise show up as "unknown parent". */
    if (errors == 0 && jt_budgets_finalize (b, diags) < 0)
        errors++;
    goto done;
nomem:
    jt_diags_add (diags, dir, 0, 0, NULL, "out of memory");
    errors++;
done:
    if (dp)
        closedir (dp);
    for (size_t i = 0; i < n; i++)
        free (names[i]);
    free (names);
    if (errors || n == 0) {
        jt_budgets_destroy (b);
        return NULL;
    }
    return b;
}

/* ---- lookups ---- */

/* bsearch's comparisons of a name with a budget's owner and with an
 * envelope's name (the orders budget_cmp and env_cmp sort by). */
static int owner_key_cmp (const void *key, const void *elem)
{
    return strcmp (key, ((const jt_budget_t *) elem)->owner);
}

static int env_key_cmp (const void *key, const void *elem)
{
    return strcmp (key, (*(jt_envelope_t *const *) elem)->name);
}

const jt_budget_t *jt_budgets_owner (const jt_budgets_t *b, const char *owner)
{
    if (!b || !owner)
        return NULL;
    if (!b->finalized) {
        for (size_t i = 0; i < b->n; i++)
            if (!strcmp (b->v[i].owner, owner))
                return &b->v[i];
        return NULL;
    }
    if (b->n == 0)      /* bsearch over NULL is undefined, even of 0 elements */
        return NULL;
    return bsearch (owner, b->v, b->n, sizeof (*b->v), owner_key_cmp);
}

const jt_envelope_t *jt_budgets_envelope (const jt_budgets_t *b, const char *name)
{
    if (!b || !name)
        return NULL;
    if (!b->finalized) {
        for (size_t i = 0; i < b->n; i++)
            for (size_t e = 0; e < b->v[i].nenv; e++)
                if (!strcmp (b->v[i].env[e].name, name))
                    return &b->v[i].env[e];
        return NULL;
    }
    if (b->nenv == 0)
        return NULL;
    jt_envelope_t *const *e = bsearch (name, b->env, b->nenv, sizeof (*b->env),
                                       env_key_cmp);
    return e ? *e : NULL;
}

/* Fills up to max entries of out and returns the total count. */
size_t jt_budgets_children (const jt_budgets_t *b, const char *parent,
                            const char *except, const jt_budget_t **out, size_t max)
{
    size_t n = 0;

    if (!b || !parent)
        return 0;
    for (size_t i = 0; i < b->n; i++) {
        const jt_budget_t *c = &b->v[i];
        if (!c->parent || strcmp (c->parent, parent)
            || (except && !strcmp (c->owner, except)))
            continue;
        if (n < max && out)
            out[n] = c;
        n++;
    }
    return n;
}

double jt_envelope_gpu_hours_cap (const jt_envelope_t *e)
{
    if (e->max_gpu_hours >= 0)
        return e->max_gpu_hours;
    return (double) e->concurrency * (double) (e->end - e->start) / 3600.0;
}

bool jt_envelope_lends_to (const jt_envelope_t *e, const char *borrower)
{
    if (!e->lending.allow || !borrower)
        return false;
    for (size_t i = 0; i < e->lending.nto; i++)
        if (!strcmp (e->lending.to[i], "*") || !strcmp (e->lending.to[i], borrower))
            return true;
    return false;
}

bool jt_envelope_open_at (const jt_envelope_t *e, int64_t t)
{
    return e->start <= t && t < e->end;
}
