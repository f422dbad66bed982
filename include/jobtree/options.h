/*
 * jobtree/options.h - the sbatch/salloc/srun options of the SPANK plugin,
 * parsed without Slurm.
 *
 *   --group-gpus=N                 locality.groupGPUs
 *   --cross-group-spread=yes|no    locality.allowCrossGroupSpread
 *   --malleable=MIN:MAX[:STEP]     malleable.{min,max,step}TotalGPUs
 *   --spares=N                     sparesPerGroup (whole nodes, same domain)
 *   --checkpoint=DURATION          runtime.checkpoint
 *   --borrow[=MAXGPUS]             funding.allowBorrow (+ maxBorrowGPUs)
 *   --sponsors=OWNER[,OWNER...]    funding.sponsors (implies --borrow)
 *   --group-by=LABEL               locality.groupBy
 *   --conformance=prefer|strict    locality.conformance
 *   --node-constraint=EXPR         nodeConstraints (repeatable; each EXPR
 *                                  may hold several, separated by ';')
 *
 * The SPANK plugin checks each value in sbatch (so a bad one is refused
 * before submission) and forwards it unchanged in the job's SPANK
 * environment as JOBTREE_<OPTION> (e.g. JOBTREE_GROUP_GPUS=32); slurmctld's
 * job_submit plugin reads those back with jt_opts_from_env. Both use this one
 * parser, so they cannot disagree. A repeatable option's values travel in
 * one variable joined by ';' (JOBTREE_NODE_CONSTRAINT=a GE 1;b EXISTS), and
 * applying it adds to what the run has rather than replacing it.
 *
 * Messages name the option as typed and give a valid example:
 *   "--malleable=64:32: MIN must be <= MAX, e.g. --malleable=32:64:8"
 * (the plugins prefix them with "jobtree: ").
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_OPTIONS_H
#define JOBTREE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Prefix of the SPANK job environment variables carrying option values. */
#define JT_OPT_ENV_PREFIX "JOBTREE_"

typedef enum jt_opt_arg {
    JT_OPT_ARG_REQUIRED = 1,    /* --opt=VALUE */
    JT_OPT_ARG_OPTIONAL = 2,    /* --opt or --opt=VALUE */
} jt_opt_arg_t;

typedef struct jt_opt_info {
    const char *name;           /* "group-gpus" (no leading dashes) */
    const char *env;            /* "JOBTREE_GROUP_GPUS" */
    const char *arginfo;        /* "N" */
    const char *help;           /* one line, without the "[jobtree]" prefix */
    const char *example;        /* "--group-gpus=32" */
    jt_opt_arg_t arg;
    bool repeatable;            /* values add up; joined by ';' in env */
} jt_opt_info_t;

/* The option table, in documentation order. Returns the number of options
 * and sets *tab (static storage). */
size_t jt_opt_table (const jt_opt_info_t **tab);

/* The entry for an option name ("group-gpus"), or NULL. */
const jt_opt_info_t *jt_opt_find (const char *name);

/* Apply one option value to r. value is NULL for an option given without
 * "=VALUE" (only --borrow allows that). Returns 0, or -1 with err holding
 * "--NAME=VALUE: what is wrong, e.g. EXAMPLE" and r unchanged. */
int jt_opt_apply (jt_run_t *r, const char *name, const char *value,
                  jt_error_t *err);

/* Defaults that depend on several options, applied once all are in:
 * a malleable run without STEP (step_given false) steps by groupGPUs, 1
 * without groups, as jt_run_parse_json reads it. */
void jt_opts_finish (jt_run_t *r);

/* Read the job's SPANK environment (n strings "NAME=VALUE"; entries may
 * also carry Slurm's "SPANK_" prefix) into r, then jt_opts_finish. Other
 * variables are ignored. An entry without "=VALUE", with an empty value or
 * with "(null)" is an option given without value. Returns the number of Jobtree
 * options found (0: not a Jobtree job), or -1 with err naming the option. */
int jt_opts_from_env (jt_run_t *r, char *const *env, size_t n,
                      jt_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_OPTIONS_H */
