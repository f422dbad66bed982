/*
 * run_int.h - the run checks shared by jt_run_validate (run.c) and the run
 * file reader (run_json.c), which reports each problem at its JSON path.
 * Private to libjobtree.
 */
#ifndef JT_RUN_INT_H
#define JT_RUN_INT_H

#include <stdint.h>

#include "jobtree/run.h"

/* The run checks of jt_run_validate, each problem reported as (JSON path,
 * message). Returns the number of problems. */
typedef void (*jt_run_report_f) (void *arg, const char *path, const char *msg);
int jt_run_check (const struct jt_run *r, int64_t gpus_per_node,
                  jt_run_report_f report, void *arg);

#endif /* JT_RUN_INT_H */
