/*
 * fixtures.c - helpers shared by the Cover and Plan unit tests (see
 * fixtures.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/labels.h"
#include "jobtree/timeutil.h"
#include "fixtures.h"
#include "tap.h"

static void bail_diags (const char *what, const jt_diags_t *d)
{
    char buf[512];

    for (size_t i = 0; i < d->n; i++) {
        jt_diag_format (&d->v[i], buf, sizeof (buf));
        diag ("%s: %s", what, buf);
    }
    bail_out ("fixture %s is invalid", what);
}

jt_budgets_t *fx_budgets (const char *doc, ...)
{
    jt_budgets_t *b = jt_budgets_create ();
    jt_diags_t d;
    va_list ap;
    int i = 0;

    if (!b)
        bail_out ("out of memory");
    jt_diags_init (&d);
    va_start (ap, doc);
    for (const char *t = doc; t; t = va_arg (ap, const char *)) {
        char file[32];
        snprintf (file, sizeof (file), "budget%d.json", i++);
        if (jt_budgets_add_json (b, file, t, strlen (t), &d) < 0)
            bail_diags (file, &d);
    }
    va_end (ap);
    if (jt_budgets_finalize (b, &d) < 0)
        bail_diags ("budgets", &d);
    jt_diags_free (&d);
    return b;
}

jt_run_t *fx_run (const char *json)
{
    jt_diags_t d;
    jt_run_t *r;

    jt_diags_init (&d);
    if (!(r = jt_run_parse_json ("run.json", json, strlen (json), &d)))
        bail_diags ("run", &d);
    jt_diags_free (&d);
    return r;
}

int64_t fx_time (const char *s)
{
    jt_error_t err;
    int64_t t;

    if (jt_time_parse (s, &t, &err) < 0)
        bail_out ("time %s: %s", s, err.text);
    return t;
}

void fx_nodes (jt_snapshot_t *s, const char *prefix, int first, int count,
               const char *labels, int gpus, int used)
{
    jt_labels_t l = JT_LABELS_INIT;
    char *copy = strdup (labels), *save = NULL;
    jt_error_t err;

    if (!copy)
        bail_out ("out of memory");
    for (char *kv = strtok_r (copy, ",", &save); kv;
         kv = strtok_r (NULL, ",", &save)) {
        char *eq = strchr (kv, '=');
        if (!eq)
            bail_out ("label %s has no '='", kv);
        *eq = '\0';
        if (jt_labels_set (&l, kv, eq + 1) < 0)
            bail_out ("out of memory");
    }
    for (int i = 0; i < count; i++) {
        char name[64];
        snprintf (name, sizeof (name), "%s%02d", prefix, first + i);
        if (jt_snapshot_add_node (s, name, &l, "h100", gpus,
                                  i < used ? gpus : 0, JT_NODE_UP, &err) < 0)
            bail_out ("node %s: %s", name, err.text);
    }
    jt_labels_free (&l);
    free (copy);
}

jt_snapshot_t *fx_finalize (jt_snapshot_t *s)
{
    jt_error_t err;

    if (jt_snapshot_finalize (s, &err) < 0)
        bail_out ("snapshot: %s", err.text);
    return s;
}

const char *fx_plan (const jt_budgets_t *b, const jt_snapshot_t *s,
                     const jt_usage_t *u, const jt_run_t *r,
                     jt_pack_policy_t policy, jt_plan_t *out)
{
    static char buf[8192];
    jt_plan_opts_t opts = { policy };
    jt_plan_t p;
    jt_error_t err;

    if (jt_plan_run (b, s, u, r, fx_time (FX_NOW), &opts, &p, &err) < 0) {
        snprintf (buf, sizeof (buf), "error: %s", err.text);
        return buf;
    }
    char *d = jt_plan_dump (&p, s);
    snprintf (buf, sizeof (buf), "%s", d ? d : "(null)");
    free (d);
    if (out)
        *out = p;
    else
        jt_plan_free (&p);
    return buf;
}
