/*
 * jobtree/reload.h - the jobtree.conf and budget set in force, and reloading
 * them without ever losing a good one.
 *
 * Both plugins in slurmctld (job_submit and select) hold one jt_reload_t.
 * jt_reload reads jobtree.conf, then the BudgetDir it names (all or nothing,
 * jt_budgets_load_dir). A part that fails to load keeps its last good
 * version in force (jobtree.conf: the defaults when there never was one),
 * and every problem comes back as a line to log, "file:line:col: ...".
 * The caller decides when to reload (a Slurm reconfigure) and where the
 * lines go (Slurm's log); nothing here prints, blocks beyond reading the
 * files, or exits.
 *
 * The last good set can be kept on disk too (jt_reload_keep_file), so a
 * new process starts from it: Slurm 24.11's `scontrol reconfigure` execs
 * a new slurmctld, which would otherwise start with nothing when a file is
 * broken at that moment (22.05 keeps the process and its memory).
 *
 * Not thread-safe: the caller serialises jt_reload against readers of the
 * set. Pointers returned by jt_reload_conf and jt_reload_budgets stay valid
 * until the next jt_reload that replaces that part (or destroy).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_RELOAD_H
#define JOBTREE_RELOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "conf.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jt_reload jt_reload_t;

/* The parts of the set, as bits of jt_reload_result_t.changed and .kept. */
typedef enum jt_reload_part {
    JT_RELOAD_CONFIG = 1 << 0,
    JT_RELOAD_BUDGETS = 1 << 1,
} jt_reload_part_t;

typedef enum jt_reload_level {
    JT_RELOAD_INFO = 0,
    JT_RELOAD_ERROR,
} jt_reload_level_t;

/* One line to log, without a prefix (the caller adds its own). */
typedef struct jt_reload_line {
    jt_reload_level_t level;
    char *text;
} jt_reload_line_t;

typedef struct jt_reload_result {
    unsigned changed;           /* parts replaced by a newly loaded version */
    unsigned kept;              /* parts whose new version was bad (or ENOMEM):
                                 * the last good one stays in force */
    uint64_t gen;               /* generation in force after the call */
    jt_reload_line_t *lines;    /* what to log, in order */
    size_t nlines;
} jt_reload_result_t;

/* An empty holder: nothing loaded, generation 0. NULL on ENOMEM. */
jt_reload_t *jt_reload_create (void);
void jt_reload_destroy (jt_reload_t *rl);

/* Read conf_path (a missing file means the defaults) and the budget
 * directory of the configuration then in force. Fills *res (free it with
 * jt_reload_result_free). The generation goes up by one when any part was
 * replaced. Returns 0 when both parts loaded, -1 when a part was kept
 * (res->kept says which, res->lines why). */
int jt_reload (jt_reload_t *rl, const char *conf_path, jt_reload_result_t *res);
void jt_reload_result_free (jt_reload_result_t *res);

/* Bounds of the kept copy: its size in bytes (larger: not written, not
 * read), its number of budget files, the length of its path. */
#define JT_RELOAD_KEEP_MAX (64 * 1024 * 1024)
#define JT_RELOAD_KEEP_FILES_MAX 65536
#define JT_RELOAD_KEEP_PATH_MAX 4000

/* Keep the good set on disk at path too (NULL: memory only, the default).
 * After every jt_reload that replaced a part, the text of each file of the
 * good parts in force (jobtree.conf, each budget file with its path and
 * SHA-256) is written there atomically (path.tmp, fsync, rename, fsync of
 * the directory); a failure to write is a line of that jt_reload, never a
 * failed reload. A jt_reload that finds a part bad while this holder has
 * no version of it in force (a new process) puts the kept version in force
 * instead of the defaults or nothing, after the same checks as the files
 * themselves (and the SHA-256); a kept copy that is missing, too large or
 * malformed is not used (a line says why). One holder per path: two
 * holders writing one path race on path.tmp. Returns 0, or -1 with err
 * (empty or too long path, ENOMEM). */
int jt_reload_keep_file (jt_reload_t *rl, const char *path, jt_error_t *err);

/* The path given to jt_reload_keep_file, or NULL. */
const char *jt_reload_keep_path (const jt_reload_t *rl);

/* The configuration in force: NULL only before the first jt_reload (or
 * when even the defaults could not be allocated). */
const jt_config_t *jt_reload_conf (const jt_reload_t *rl);

/* The budgets in force: NULL until a budget directory loaded. */
const jt_budgets_t *jt_reload_budgets (const jt_reload_t *rl);

/* Why jt_reload_budgets is NULL ("no valid budgets in DIR (first problem)",
 * "budgets not loaded yet"); "" when budgets are in force. */
const char *jt_reload_budget_error (const jt_reload_t *rl);

/* The generation of the set in force: 0 before the first load, then one
 * more for every jt_reload that replaced a part. */
uint64_t jt_reload_gen (const jt_reload_t *rl);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_RELOAD_H */
