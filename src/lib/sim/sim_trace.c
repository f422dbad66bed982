/*
 * sim_trace.c - the simulator's trace reader (jobtree/sim.h): the Philly
 * 2017 CSV read as is and Jobtree's own CSV, every field range-checked
 * before any arithmetic, every problem reported as file:line:col: field.
 * Jobs come out in priority order (submit, then line).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/options.h"
#include "jobtree/readfile.h"
#include "jobtree/run.h"
#include "jobtree/sim.h"

static const char *const philly_cols[] = {
    "job_id", "submit_s", "duration_s", "gpus", "nodes", "team", "gpu_type", NULL
};
static const char *const jobtree_cols[] = {
    "id", "submit_s", "duration_s", "time_limit_s", "gpus", "nodes", "owner",
    "flavor", "options", NULL
};

#define MAX_COLS 9

typedef struct field {
    const char *p;
    size_t len;
    int col;
} field_t;

/* Split one line (without its end) at commas. Returns the field count, or
 * MAX_COLS + 1 when there are more. */
static size_t split (const char *line, size_t len, field_t *f)
{
    size_t n = 0, start = 0;

    for (size_t i = 0; i <= len; i++) {
        if (i < len && line[i] != ',')
            continue;
        if (n == MAX_COLS)
            return MAX_COLS + 1;
        f[n++] = (field_t){ line + start, i - start, (int) start + 1 };
        start = i + 1;
    }
    return n;
}

static bool field_is (const field_t *f, const char *s)
{
    return f->len == strlen (s) && !memcmp (f->p, s, f->len);
}

static char *field_dup (const field_t *f)
{
    char *s = malloc (f->len + 1);
    if (s) {
        memcpy (s, f->p, f->len);
        s[f->len] = '\0';
    }
    return s;
}

/* A whole number in [lo, hi]; empty gives *out = dflt when allow_empty.
 * Returns true, or false with why filled. */
static bool num (const field_t *f, int64_t lo, int64_t hi, bool allow_empty,
                 int64_t dflt, int64_t *out, char *why, size_t len)
{
    char buf[32];
    char *end;
    long long v;

    if (f->len == 0) {
        if (allow_empty) {
            *out = dflt;
            return true;
        }
        snprintf (why, len, "is empty; give a whole number from %" PRId64
                  " to %" PRId64, lo, hi);
        return false;
    }
    if (f->len >= sizeof (buf) || !isdigit ((unsigned char) f->p[0])) {
        snprintf (why, len, "'%.*s' is not a whole number from %" PRId64
                  " to %" PRId64, (int) (f->len > 24 ? 24 : f->len), f->p, lo, hi);
        return false;
    }
    memcpy (buf, f->p, f->len);
    buf[f->len] = '\0';
    errno = 0;
    v = strtoll (buf, &end, 10);
    if (*end || errno || v < lo || v > hi) {
        snprintf (why, len, "'%s' is not a whole number from %" PRId64 " to %"
                  PRId64, buf, lo, hi);
        return false;
    }
    *out = v;
    return true;
}

/* The options field applied to a scratch run: 0, or -1 with why. */
static int check_options (const char *opts, char *why, size_t len)
{
    jt_run_t r;
    jt_error_t e;
    char *copy = strdup (opts), *save = NULL, *tok;
    int rc = 0;

    if (!copy) {
        snprintf (why, len, "out of memory");
        return -1;
    }
    jt_run_init (&r);
    for (tok = strtok_r (copy, " ", &save); tok && rc == 0;
         tok = strtok_r (NULL, " ", &save)) {
        char *eq = strchr (tok, '=');
        if (strncmp (tok, "--", 2) || !tok[2]) {
            snprintf (why, len, "'%s' is not an option; write them as in sbatch, "
                      "e.g. --group-gpus=16 --borrow", tok);
            rc = -1;
            break;
        }
        if (eq)
            *eq = '\0';
        if (!jt_opt_find (tok + 2)) {
            snprintf (why, len, "unknown option --%s (see jobtree_spank(8))", tok + 2);
            rc = -1;
        } else if (jt_opt_apply (&r, tok + 2, eq ? eq + 1 : NULL, &e) < 0) {
            snprintf (why, len, "%s", e.text);
            rc = -1;
        }
    }
    jt_run_clear (&r);
    free (copy);
    return rc;
}

static void job_clear (jt_sim_job_t *j)
{
    free (j->id);
    free (j->owner);
    free (j->flavor);
    free (j->options);
    memset (j, 0, sizeof (*j));
}

void jt_sim_trace_free (jt_sim_trace_t *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        job_clear (&t->jobs[i]);
    free (t->jobs);
    free (t->file);
    memset (t, 0, sizeof (*t));
}

static int cmp_job (const void *a, const void *b)
{
    const jt_sim_job_t *x = a, *y = b;

    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

static int cmp_id (const void *a, const void *b)
{
    const jt_sim_job_t *x = *(const jt_sim_job_t *const *) a;
    const jt_sim_job_t *y = *(const jt_sim_job_t *const *) b;
    int c = strcmp (x->id, y->id);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Job ids name runs and their leases: each id once. Returns the number of
 * repeats reported (-1 on ENOMEM, reported too). */
static int dup_ids (const jt_sim_trace_t *t, jt_diags_t *diags)
{
    const jt_sim_job_t **v = calloc (t->n, sizeof (*v));
    int bad = 0;

    if (!v) {
        jt_diags_add (diags, t->file, 0, 0, "", "out of memory");
        return -1;
    }
    for (size_t i = 0; i < t->n; i++)
        v[i] = &t->jobs[i];
    qsort (v, t->n, sizeof (*v), cmp_id);
    for (size_t i = 1; i < t->n && bad < 100; i++)
        if (!strcmp (v[i]->id, v[i - 1]->id)) {
            jt_diags_add (diags, t->file, v[i]->line, 1, "id", "'%s' is also the "
                          "id of line %d; every job needs its own", v[i]->id,
                          v[i - 1]->line);
            bad++;
        }
    free (v);
    return bad;
}

#define BAD(col, field, ...) \
    do { \
        jt_diags_add (diags, file, lineno, (col), (field), __VA_ARGS__); \
        bad++; \
    } while (0)

/* One data line into j. Returns the number of problems reported. */
static size_t parse_line (const char *file, int lineno, const field_t *f,
                          size_t nf, jt_sim_format_t fmt, jt_sim_job_t *j,
                          jt_diags_t *diags)
{
    const char *const *cols = fmt == JT_SIM_PHILLY ? philly_cols : jobtree_cols;
    size_t want = fmt == JT_SIM_PHILLY ? 7 : 9, bad = 0;
    char why[JT_ERRMSG_MAX];
    int64_t v;

    if (nf != want) {
        BAD (1, "", "%zu fields where the header has %zu (%s%s)",
             nf > MAX_COLS ? (size_t) MAX_COLS + 1 : nf, want, cols[0],
             ",...; commas inside a field are not allowed");
        return bad;
    }
    for (size_t k = 0; k < nf; k++)
        if (memchr (f[k].p, '"', f[k].len))
            BAD (f[k].col, cols[k], "quotes are not read; write the field "
                 "without them and without commas");
    if (bad)
        return bad;
    j->line = lineno;
    if (f[0].len == 0)
        BAD (f[0].col, cols[0], "is empty; every job needs an id");
    else if (!(j->id = field_dup (&f[0])))
        BAD (f[0].col, cols[0], "out of memory");
    if (num (&f[1], 0, JT_SIM_TIME_MAX, false, 0, &v, why, sizeof (why)))
        j->submit = v;
    else
        BAD (f[1].col, cols[1], "%s", why);
    if (num (&f[2], 1, JT_SIM_TIME_MAX, false, 0, &v, why, sizeof (why)))
        j->duration = v;
    else
        BAD (f[2].col, cols[2], "%s", why);
    size_t k = 3;
    if (fmt == JT_SIM_JOBTREE) {
        if (num (&f[k], 0, JT_SIM_TIME_MAX, true, 0, &v, why, sizeof (why)))
            j->limit = v;
        else
            BAD (f[k].col, cols[k], "%s (0 or empty: none)", why);
        k++;
    }
    if (num (&f[k], 1, JT_RUN_GPUS_MAX, false, 0, &v, why, sizeof (why)))
        j->gpus = v;
    else
        BAD (f[k].col, cols[k], "%s", why);
    k++;
    if (num (&f[k], 0, JT_SIM_NODES_MAX, true, 0, &v, why, sizeof (why)))
        j->nodes = v;
    else
        BAD (f[k].col, cols[k], "%s (empty: any)", why);
    k++;
    if (f[k].len == 0)
        BAD (f[k].col, cols[k], "is empty; every job needs an owner (account)");
    else if (!(j->owner = field_dup (&f[k])))
        BAD (f[k].col, cols[k], "out of memory");
    k++;
    if (f[k].len && !(j->flavor = field_dup (&f[k])))
        BAD (f[k].col, cols[k], "out of memory");
    k++;
    if (fmt == JT_SIM_JOBTREE && f[k].len) {
        if (!(j->options = field_dup (&f[k])))
            BAD (f[k].col, cols[k], "out of memory");
        else if (check_options (j->options, why, sizeof (why)) < 0)
            BAD (f[k].col, cols[k], "%s", why);
    }
    return bad;
}

int jt_sim_trace_parse (const char *file, const char *text, size_t len,
                        jt_sim_trace_t *out, jt_diags_t *diags)
{
    field_t f[MAX_COLS + 1];
    size_t pos = 0, bad = 0, cap = 0;
    int lineno = 0;
    bool header = false;

    memset (out, 0, sizeof (*out));
    file = file ? file : "<trace>";
    while (pos < len) {
        const char *line = text + pos;
        const char *nl = memchr (line, '\n', len - pos);
        size_t ll = nl ? (size_t) (nl - line) : len - pos;
        size_t nf;

        pos += ll + (nl ? 1 : 0);
        lineno++;
        if (ll && line[ll - 1] == '\r')
            ll--;
        if (ll == 0 || line[0] == '#')
            continue;
        if (memchr (line, '\0', ll)) {
            jt_diags_add (diags, file, lineno, 1, "", "a NUL byte: not a text CSV");
            bad++;
            break;
        }
        nf = split (line, ll, f);
        if (!header) {
            const char *const *cols = NULL;
            if (nf == 7 && field_is (&f[0], philly_cols[0]))
                cols = philly_cols, out->format = JT_SIM_PHILLY;
            else if (nf == 9 && field_is (&f[0], jobtree_cols[0]))
                cols = jobtree_cols, out->format = JT_SIM_JOBTREE;
            for (size_t k = 0; cols && cols[k]; k++)
                if (!field_is (&f[k], cols[k])) {
                    jt_diags_add (diags, file, lineno, f[k].col, "",
                                  "header column %zu is '%.*s', expected '%s'",
                                  k + 1, (int) (f[k].len > 40 ? 40 : f[k].len),
                                  f[k].p, cols[k]);
                    bad++;
                }
            if (!cols) {
                jt_diags_add (diags, file, lineno, 1, "", "unknown header; a "
                              "trace starts with 'id,submit_s,duration_s,"
                              "time_limit_s,gpus,nodes,owner,flavor,options' or "
                              "Philly's 'job_id,submit_s,duration_s,gpus,nodes,"
                              "team,gpu_type'");
                bad++;
            }
            if (bad)
                break;
            header = true;
            continue;
        }
        if (out->n >= JT_SIM_JOBS_MAX) {
            jt_diags_add (diags, file, lineno, 1, "", "more than %d jobs",
                          JT_SIM_JOBS_MAX);
            bad++;
            break;
        }
        if (out->n == cap) {
            size_t nc = cap ? cap * 2 : 1024;
            jt_sim_job_t *v = realloc (out->jobs, nc * sizeof (*v));
            if (!v) {
                jt_diags_add (diags, file, lineno, 1, "", "out of memory");
                bad++;
                break;
            }
            out->jobs = v;
            cap = nc;
        }
        jt_sim_job_t *j = &out->jobs[out->n++];
        memset (j, 0, sizeof (*j));
        bad += parse_line (file, lineno, f, nf, out->format, j, diags);
        if (diags && diags->n >= 100)
            break;          /* enough to fix first */
    }
    if (!header && !bad) {
        jt_diags_add (diags, file, lineno ? lineno : 1, 1, "",
                      "no header line: the trace is empty");
        bad++;
    }
    if (!bad && !(out->file = strdup (file)))
        bad++;
    if (bad) {
        jt_sim_trace_free (out);
        return -1;
    }
    if (out->n && dup_ids (out, diags) > 0) {
        jt_sim_trace_free (out);
        return -1;
    }
    if (out->n)
        qsort (out->jobs, out->n, sizeof (*out->jobs), cmp_job);
    return 0;
}

int jt_sim_trace_load (const char *path, jt_sim_trace_t *out, jt_diags_t *diags)
{
    jt_error_t e;
    size_t len;
    char *text = jt_read_file (path, &len, &e);
    int rc;

    memset (out, 0, sizeof (*out));
    if (!text) {
        jt_diags_add (diags, path, 0, 0, "", "%s", e.text);
        return -1;
    }
    rc = jt_sim_trace_parse (path, text, len, out, diags);
    free (text);
    return rc;
}
