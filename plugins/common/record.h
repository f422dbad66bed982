/*
 * record.h - the Jobtree record a job carries in its admin_comment.
 *
 * job_submit writes, and the select plugin reads back, one line:
 *
 *   jobtree/1 {"run":RUN,"funding":[SEG,...],"fundedGPUs":N,
 *              "borrowedGPUs":M,"reason":"OK"}
 *
 * RUN is jt_run_to_json's canonical run; each SEG is
 *   {"envelope":"west-h100","owner":"rai","source":"owner",
 *    "firstGroup":0,"groups":2,"gpus":64}
 * the funding Cover intends with no other usage (the select plugin decides
 * again against live usage when the job starts). reason is jt_reason_str of
 * the cover at submission ("OK" when every group was funded). The version
 * tag "jobtree/1" changes only with an incompatible format. admin_comment is
 * settable by administrators only, so users cannot forge the record.
 * Slurm-free; unit-tested in tests/unit/record.c.
 */
#ifndef JOBTREE_PLUGINS_RECORD_H
#define JOBTREE_PLUGINS_RECORD_H

#include <stdint.h>
#include <stddef.h>

#include "jobtree/cover.h"
#include "jobtree/error.h"
#include "jobtree/run.h"

#define JT_ACREC_TAG "jobtree/1 "

typedef struct jt_acrec_seg {
    char *envelope;
    char *owner;
    char *source;               /* jt_source_str */
    int64_t first_group;
    int64_t groups;
    int64_t gpus;
} jt_acrec_seg_t;

typedef struct jt_acrec {
    jt_run_t *run;
    jt_acrec_seg_t *segs;
    size_t nsegs;
    int64_t funded_gpus;
    int64_t borrowed_gpus;
    char reason[64];
} jt_acrec_t;

/* The record text for run r and cover c (c may be NULL: no funding yet,
 * reason "OK" unless given). Returns a malloc'd string or NULL on ENOMEM. */
char *jt_acrec_format (const jt_run_t *r, const jt_cover_t *c);

/* True iff text (an admin_comment, may be NULL) starts with the tag. */
int jt_acrec_is (const char *text);

/* Parse a record. Returns 0, or -1 with err saying what is wrong (out is
 * then empty). Free with jt_acrec_free. */
int jt_acrec_parse (const char *text, jt_acrec_t *out, jt_error_t *err);
void jt_acrec_free (jt_acrec_t *rec);

#endif /* JOBTREE_PLUGINS_RECORD_H */
