/*
 * reload.c - the jobtree.conf and budget set in force, and reloading it
 * (see jobtree/reload.h): owns "keep the last good set when the new one is
 * bad" and the lines that say so. Parsing is config.c and budget*.c.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/reload.h"

struct jt_reload {
    jt_config_t *conf;
    jt_budgets_t *budgets;
    char budget_error[JT_ERRMSG_MAX];
    uint64_t gen;
};

jt_reload_t *jt_reload_create (void)
{
    jt_reload_t *rl = calloc (1, sizeof (*rl));

    if (rl)
        snprintf (rl->budget_error, sizeof (rl->budget_error),
                  "budgets not loaded yet");
    return rl;
}

void jt_reload_destroy (jt_reload_t *rl)
{
    int saved = errno;

    if (!rl)
        return;
    jt_config_destroy (rl->conf);
    jt_budgets_destroy (rl->budgets);
    free (rl);
    errno = saved;
}

const jt_config_t *jt_reload_conf (const jt_reload_t *rl)
{
    return rl ? rl->conf : NULL;
}

const jt_budgets_t *jt_reload_budgets (const jt_reload_t *rl)
{
    return rl ? rl->budgets : NULL;
}

const char *jt_reload_budget_error (const jt_reload_t *rl)
{
    return rl ? rl->budget_error : "no configuration holder";
}

uint64_t jt_reload_gen (const jt_reload_t *rl)
{
    return rl ? rl->gen : 0;
}

void jt_reload_result_free (jt_reload_result_t *res)
{
    if (!res)
        return;
    for (size_t i = 0; i < res->nlines; i++)
        free (res->lines[i].text);
    free (res->lines);
    res->lines = NULL;
    res->nlines = 0;
}

/* Append a line (dropped silently on ENOMEM: losing a log line must not
 * lose the reload). */
static void say (jt_reload_result_t *res, jt_reload_level_t level,
                 const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));
static void say (jt_reload_result_t *res, jt_reload_level_t level,
                 const char *fmt, ...)
{
    jt_reload_line_t *v;
    va_list ap;
    char *text = NULL;
    int n;

    va_start (ap, fmt);
    n = vsnprintf (NULL, 0, fmt, ap);
    va_end (ap);
    if (n < 0 || !(text = malloc ((size_t) n + 1)))
        return;
    va_start (ap, fmt);
    vsnprintf (text, (size_t) n + 1, fmt, ap);
    va_end (ap);
    if (!(v = realloc (res->lines, (res->nlines + 1) * sizeof (*v)))) {
        free (text);
        return;
    }
    res->lines = v;
    res->lines[res->nlines].level = level;
    res->lines[res->nlines++].text = text;
}

static void say_diags (jt_reload_result_t *res, const jt_diags_t *d)
{
    for (size_t i = 0; i < d->n; i++) {
        char line[1024];
        jt_diag_format (&d->v[i], line, sizeof (line));
        say (res, JT_RELOAD_ERROR, "%s", line);
    }
}

/* jobtree.conf: the new one, else the last good one, else the defaults.
 * Returns 0 loaded, -1 kept (or no configuration at all: ENOMEM). */
static int reload_conf (jt_reload_t *rl, const char *path, jt_reload_result_t *res)
{
    jt_diags_t d;
    jt_config_t *conf;

    jt_diags_init (&d);
    conf = jt_config_load (path, true, &d);
    if (conf) {
        jt_config_destroy (rl->conf);
        rl->conf = conf;
        res->changed |= JT_RELOAD_CONFIG;
    } else {
        say_diags (res, &d);
        say (res, JT_RELOAD_ERROR, "%s has errors: keeping the %s configuration",
             path ? path : "(no path)", rl->conf ? "previous" : "default");
        res->kept |= JT_RELOAD_CONFIG;
        if (!rl->conf && (rl->conf = jt_config_create ()))
            res->changed |= JT_RELOAD_CONFIG;
    }
    jt_diags_free (&d);
    if (!rl->conf) {
        say (res, JT_RELOAD_ERROR, "out of memory: no configuration");
        snprintf (rl->budget_error, sizeof (rl->budget_error), "out of memory");
        return -1;
    }
    return conf ? 0 : -1;
}

/* The budget directory of the configuration in force, all or nothing.
 * Returns 0 loaded, -1 kept. */
static int reload_budgets (jt_reload_t *rl, jt_reload_result_t *res)
{
    const char *dir = rl->conf->budget_dir;
    jt_diags_t d;
    jt_budgets_t *b;
    int rc = 0;

    jt_diags_init (&d);
    b = jt_budgets_load_dir (dir, &d);
    if (b) {
        jt_budgets_destroy (rl->budgets);
        rl->budgets = b;
        rl->budget_error[0] = '\0';
        res->changed |= JT_RELOAD_BUDGETS;
        say (res, JT_RELOAD_INFO, "loaded %zu budget file(s), %zu envelope(s) from %s",
             b->n, b->nenv, dir);
    } else {
        say_diags (res, &d);
        if (rl->budgets) {
            say (res, JT_RELOAD_ERROR, "budget directory %s has errors: keeping the "
                 "last good budgets (%zu owner(s))", dir, rl->budgets->n);
        } else {
            char first[200] = "";
            if (d.n > 0)
                jt_diag_format (&d.v[0], first, sizeof (first));
            say (res, JT_RELOAD_ERROR, "budget directory %s has errors: no budgets "
                 "loaded", dir);
            snprintf (rl->budget_error, sizeof (rl->budget_error),
                      "no valid budgets in %s (%s)", dir, first[0] ? first : "unreadable");
        }
        res->kept |= JT_RELOAD_BUDGETS;
        rc = -1;
    }
    jt_diags_free (&d);
    return rc;
}

int jt_reload (jt_reload_t *rl, const char *conf_path, jt_reload_result_t *res)
{
    int rc;

    memset (res, 0, sizeof (*res));
    if (!rl) {
        res->kept = JT_RELOAD_CONFIG | JT_RELOAD_BUDGETS;
        say (res, JT_RELOAD_ERROR, "no configuration holder");
        return -1;
    }
    rc = reload_conf (rl, conf_path, res);
    if (rl->conf && reload_budgets (rl, res) < 0)
        rc = -1;
    else if (!rl->conf)
        res->kept |= JT_RELOAD_BUDGETS;
    if (res->changed)
        rl->gen++;
    res->gen = rl->gen;
    return rc;
}
