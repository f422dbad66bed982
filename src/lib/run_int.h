/*
 * run_int.h - the run checks shared by jt_run_validate (run.c) and the run
 * file reader (run_json.c), which reports each problem at its JSON path.
 * Private to libjobtree.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_RUN_INT_H
#define JT_RUN_INT_H

#include <stdint.h>

#include "jobtree/run.h"

/* How a run was written, which decides how a problem is worded: a run
 * file (JSON field names), or sbatch options and a GPU request (job_submit,
 * src/lib/admit.c). The rules are the same; under JT_RUN_WORDS_OPTIONS a
 * rule that has an option of its own is reported at that option ("path"
 * "--group-gpus" or "--malleable") in the option's words, e.g.
 * "--group-gpus=12 is not a multiple of the 8 GPUs per h100 node, e.g.
 * --group-gpus=16"; every other rule keeps its JSON path and message. */
typedef enum jt_run_words {
    JT_RUN_WORDS_JSON = 0,
    JT_RUN_WORDS_OPTIONS,
} jt_run_words_t;

/* The run checks of jt_run_validate, each problem reported as (path,
 * message) in the words of `words`. Returns the number of problems. */
typedef void (*jt_run_report_f) (void *arg, const char *path, const char *msg);
int jt_run_check (const struct jt_run *r, int64_t gpus_per_node,
                  jt_run_words_t words, jt_run_report_f report, void *arg);

#endif /* JT_RUN_INT_H */
