/*
 * select_record.c - the select plugin's reading of admin_comment records
 * (plugins/select/record_parse.c): the job_submit form with a "run" member,
 * the bare run form, the "bound" funding written at start, and refusals.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "record_parse.h"

#define RUN "{\"owner\":\"rai\",\"resources\":{\"gpuType\":\"h100\"," \
            "\"totalGPUs\":96},\"locality\":{\"groupGPUs\":64}}"

int main (void)
{
    jt_rec_t rec;
    jt_error_t err = { "" };

    /* job_submit's form, funding intent ignored, bound read back */
    const char *full = "jobtree/1 {\"run\":" RUN ",\"funding\":[{\"envelope\":"
        "\"west-h100\",\"owner\":\"rai\",\"source\":\"owner\",\"firstGroup\":0,"
        "\"groups\":2,\"gpus\":96}],\"fundedGPUs\":96,\"borrowedGPUs\":0,"
        "\"reason\":\"OK\",\"bound\":{\"time\":\"2026-03-01T12:00:00Z\","
        "\"leases\":[{\"group\":0,\"envelope\":\"west-h100\",\"role\":\"Active\","
        "\"gpus\":64,\"nodes\":[\"a01\",\"a02\"]},{\"group\":1,\"envelope\":"
        "\"vision-h100\",\"role\":\"Borrowed\",\"gpus\":32,\"nodes\":[\"b01\"]}]}}";
    ok (jt_rec_parse (full, &rec, &err) == 0, "full record parses: %s", err.text);
    is (rec.run ? rec.run->owner : "", "rai", "owner");
    is (rec.run ? rec.run->flavor : "", "h100", "flavor");
    is_int (rec.run ? rec.run->total_gpus : 0, 96, "totalGPUs");
    is_int (rec.run ? rec.run->group_gpus : 0, 64, "groupGPUs");
    is_int ((int64_t) rec.nbound, 2, "two bound leases");
    is_int (rec.bound_time, 1772366400, "bound time");
    if (rec.nbound == 2) {
        is (rec.bound[1].envelope, "vision-h100", "lease 1 envelope");
        is_int (rec.bound[1].role, JT_ROLE_BORROWED, "lease 1 borrowed");
        is_int (rec.bound[0].gpus, 64, "lease 0 gpus");
        is_int ((int64_t) rec.bound[0].nnodes, 2, "lease 0 nodes");
        is (rec.bound[0].nodes[1], "a02", "lease 0 second node");
    } else
        skip (5, "no leases");
    jt_rec_free (&rec);

    /* bare run */
    ok (jt_rec_parse ("jobtree/1 " RUN, &rec, &err) == 0, "bare run parses");
    is_int ((int64_t) rec.nbound, 0, "no bound yet");
    jt_rec_free (&rec);

    /* refusals */
    ok (jt_rec_parse ("hello", &rec, &err) < 0, "no tag refused");
    ok (strstr (err.text, "jobtree/1") != NULL, "message names the tag: %s", err.text);
    ok (jt_rec_parse ("jobtree/1 {\"run\":", &rec, &err) < 0, "truncated JSON refused");
    ok (jt_rec_parse ("jobtree/1 [1]", &rec, &err) < 0, "non-object refused");
    ok (jt_rec_parse ("jobtree/1 {\"run\":" RUN
                      ",\"bound\":{\"leases\":[{\"gpus\":8}]}}",
                      &rec, &err) < 0, "lease without envelope refused");
    ok (strstr (err.text, "envelope") != NULL, "names the field: %s", err.text);
    ok (rec.run == NULL && rec.nbound == 0, "rec left empty on error");
    ok (jt_rec_parse ("jobtree/1 {\"run\":{\"owner\":\"rai\"}}", &rec, &err) < 0,
        "invalid run refused: %s", err.text);
    jt_rec_free (NULL);
    return done_testing ();
}
