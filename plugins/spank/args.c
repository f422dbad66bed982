/*
 * args.c - owns the SPANK option table of the Jobtree plugin.
 *
 * Each option's value is checked in the submitting command with the same
 * parser slurmctld uses (jobtree/options.h), so a bad value is refused
 * before the job is submitted, with the option's name and an example. The
 * value is kept as typed and handed on unchanged through the job's SPANK
 * environment.
 *
 * Callbacks are idempotent: Slurm may call them more than once (sbatch
 * processes the command line, then #SBATCH lines, then the command line
 * again); the last value given wins, exactly as for Slurm's own options.
 * A repeatable option (--node-constraint) keeps every value instead,
 * joined by ';' as the library reads it, each once: a value that adds
 * nothing to the ones before (the command line seen again) is dropped, and
 * the values are checked together (so the 17th constraint is refused
 * here, not at submission).
 *
 * A refused value is reported once, by our line. After a failed callback
 * Slurm adds its own "Invalid --NAME argument: VALUE" and exits -1; so in
 * sbatch, salloc and srun a value from the command line or a #SBATCH line
 * ends the command here, with that same status, after our line. A value
 * from Slurm's SLURM_SPANK_ environment variable still fails the Slurm way
 * (its line names the variable our line cannot), and so does any other
 * command (scrontab lets the user edit the line again).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* program_invocation_short_name */
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/options.h"
#include "jobtree/budget.h"

#include "args.h"

/* Maximum number of options (the library's table has nine). */
#define ARGS_MAX 16

/* Values given so far, indexed like the library's option table. */
static struct {
    int set;
    char *value;                /* NULL: given without =VALUE */
} given[ARGS_MAX];

static struct spank_option opts[ARGS_MAX];
static char *usage[ARGS_MAX];

extern char **environ;

/* Does s point into the environment (a SLURM_SPANK_ variable's value)? */
static bool from_environment (const char *s)
{
    uintptr_t p = (uintptr_t)s;

    for (char **e = environ; s && e && *e; e++)
        if (p >= (uintptr_t)*e && p <= (uintptr_t)*e + strlen (*e))
            return true;
    return false;
}

/* Is this a command that exits -1 right after a refused option (Slurm
 * 22.05's slurm_process_option_or_exit)? */
static bool exits_on_refusal (void)
{
    static const char *const cmds[] = { "sbatch", "salloc", "srun" };
    const char *me = program_invocation_short_name;

    for (size_t i = 0; me && i < sizeof (cmds) / sizeof (cmds[0]); i++)
        if (!strcmp (me, cmds[i]))
            return true;
    return false;
}

/* A repeatable option given again: keep the values so far and this one,
 * checked together; this one is dropped when it adds nothing. Returns 0,
 * or -1 with err set (values so far kept). */
static int add_repeat (const jt_opt_info_t *o, int val, const char *optarg,
                       jt_error_t *err)
{
    char *before = NULL, *after = NULL, *joined = NULL;
    jt_run_t r;
    int rc = -1;

    jt_run_init (&r);
    if (jt_opt_apply (&r, o->name, given[val].value, err) < 0)
        goto out;
    if (!(before = jt_run_to_json (&r))) {
        jt_errprintf (err, "--%s: out of memory", o->name);
        goto out;
    }
    if (jt_opt_apply (&r, o->name, optarg, err) < 0)
        goto out;
    if (!(after = jt_run_to_json (&r))) {
        jt_errprintf (err, "--%s: out of memory", o->name);
        goto out;
    }
    rc = 0;
    if (!strcmp (before, after))
        goto out;                       /* nothing new */
    if (asprintf (&joined, "%s;%s", given[val].value, optarg) < 0) {
        rc = jt_errprintf (err, "--%s: out of memory", o->name);
        goto out;
    }
    free (given[val].value);
    given[val].value = joined;
out:
    free (before);
    free (after);
    jt_run_clear (&r);
    return rc;
}

static int option_cb (int val, const char *optarg, int remote)
{
    const jt_opt_info_t *tab;
    size_t n = jt_opt_table (&tab);
    jt_error_t err;
    jt_run_t r;
    bool env;
    int rc;

    if (val < 0 || (size_t)val >= n || val >= ARGS_MAX)
        return -1;
    /* On the compute node the value was checked at submission already;
     * only that it was given counts there (jtspank_args_any). */
    if (remote) {
        given[val].set = 1;
        return 0;
    }
    env = from_environment (optarg);
    if (optarg && (*optarg == '\0' || strcmp (optarg, "(null)") == 0))
        optarg = NULL;
    jt_run_init (&r);           /* checking one value in isolation */
    rc = jt_opt_apply (&r, tab[val].name, optarg, &err);
    jt_run_clear (&r);
    if (rc == 0 && tab[val].repeatable && given[val].set && given[val].value
        && optarg) {
        if ((rc = add_repeat (&tab[val], val, optarg, &err)) == 0)
            return 0;
    }
    if (rc < 0) {
        slurm_error ("jobtree: %s", err.text);
        if (exits_on_refusal () && !env)
            exit (-1);  /* what Slurm does next, without its second line */
        return -1;
    }
    free (given[val].value);
    given[val].value = optarg ? strdup (optarg) : NULL;
    if (optarg && !given[val].value) {
        slurm_error ("jobtree: --%s: out of memory", tab[val].name);
        return -1;
    }
    given[val].set = 1;
    return 0;
}

int jtspank_args_register (spank_t sp)
{
    const jt_opt_info_t *tab;
    size_t n = jt_opt_table (&tab);

    for (size_t i = 0; i < n && i < ARGS_MAX; i++) {
        size_t len = strlen (tab[i].help) + 16;

        if (!usage[i]) {
            if (!(usage[i] = malloc (len)))
                return -1;
            snprintf (usage[i], len, "[jobtree] %s", tab[i].help);
        }
        opts[i].name = (char *)tab[i].name;
        opts[i].arginfo = (char *)tab[i].arginfo;
        opts[i].usage = usage[i];
        opts[i].has_arg = tab[i].arg == JT_OPT_ARG_OPTIONAL ? 2 : 1;
        opts[i].val = (int)i;
        opts[i].cb = option_cb;
        if (spank_option_register (sp, &opts[i]) != ESPANK_SUCCESS) {
            slurm_error ("jobtree: cannot register option --%s", tab[i].name);
            return -1;
        }
    }
    return 0;
}

int jtspank_args_export (spank_t sp)
{
    const jt_opt_info_t *tab;
    size_t n = jt_opt_table (&tab);

    for (size_t i = 0; i < n && i < ARGS_MAX; i++) {
        spank_err_t e;

        if (!given[i].set)
            continue;
        e = spank_job_control_setenv (sp, tab[i].env,
                                      given[i].value ? given[i].value : "", 1);
        if (e != ESPANK_SUCCESS) {
            slurm_error ("jobtree: cannot pass --%s to slurmctld: %s", tab[i].name,
                         spank_strerror (e));
            return -1;
        }
    }
    return 0;
}

void jtspank_args_clear (void)
{
    for (size_t i = 0; i < ARGS_MAX; i++) {
        free (given[i].value);
        given[i].value = NULL;
        given[i].set = 0;
        free (usage[i]);
        usage[i] = NULL;
    }
}

bool jtspank_args_any (void)
{
    for (size_t i = 0; i < ARGS_MAX; i++)
        if (given[i].set)
            return true;
    return false;
}
