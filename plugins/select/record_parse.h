/*
 * record_parse.h - the Jobtree record in a job's admin_comment, read
 * without Slurm (the select plugin and `jobtree snapshot` share it).
 *
 * The job_submit plugin writes "jobtree/1 " and one JSON object whose "run"
 * member is the run (plugins/common/record.h; a bare run object is also
 * accepted). When the job starts, the select plugin adds the funding it
 * actually bound as the object's "bound" member:
 *
 *   "bound": { "time": "2026-03-01T12:00:00Z",
 *              "leases": [ { "group": 0, "envelope": "west-h100",
 *                            "role": "Active", "gpus": 64,
 *                            "nodes": ["a01", ...], "spares": [...] } ] }
 *
 * so the funding shows in `scontrol show job`, survives a slurmctld restart
 * (job state is saved with it) and live usage is rebuilt from it.
 */
#ifndef JT_SELECT_RECORD_PARSE_H
#define JT_SELECT_RECORD_PARSE_H

#include <stdint.h>
#include <stddef.h>

#include <json-c/json.h>

#include <jobtree/jobtree.h>

#define JT_REC_TAG "jobtree/1 "

typedef struct jt_rec_lease {
    char *envelope;             /* who pays */
    int group;
    int64_t gpus;
    jt_role_t role;
    char **nodes;
    size_t nnodes;
    char **spares;              /* spare nodes of the group (may be none) */
    size_t nspares;
} jt_rec_lease_t;

typedef struct jt_rec {
    jt_run_t *run;              /* the run */
    jt_rec_lease_t *bound;      /* funding bound when the job started */
    size_t nbound;
    int64_t bound_time;         /* 0 when absent */
} jt_rec_t;

/* The record's JSON object (caller puts it), or NULL with err set. */
json_object *jt_rec_object (const char *admin_comment, jt_error_t *err);

/* Parse a record. Returns 0, or -1 with err set (rec left empty). */
int jt_rec_parse (const char *admin_comment, jt_rec_t *rec, jt_error_t *err);
void jt_rec_free (jt_rec_t *rec);

#endif /* JT_SELECT_RECORD_PARSE_H */
