/*
 * record.c - unit tests of the admin_comment record (plugins/common/record.h):
 * the exact text job_submit writes and that it parses back to the same run.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jobtree/budget.h"
#include "jobtree/cover.h"
#include "jobtree/options.h"
#include "jobtree/run.h"
#include "record.h"
#include "tap.h"

int main (void)
{
    jt_run_t *r = jt_run_create ();
    jt_envelope_t env;
    jt_cover_seg_t seg;
    jt_cover_t cov;
    jt_acrec_t rec;
    jt_error_t err;
    char *text, *again, *run_json;
    char *envv[] = { "JOBTREE_GROUP_GPUS=16", "JOBTREE_SPONSORS=vision" };

    ok (r != NULL, "run");
    ok (jt_opts_from_env (r, envv, 2, &err) == 2, "options");
    r->owner = strdup ("rai");
    r->flavor = strdup ("h100");
    r->total_gpus = 32;

    memset (&env, 0, sizeof (env));
    env.name = "west-h100";
    env.owner = "rai";
    memset (&seg, 0, sizeof (seg));
    seg.env = &env;
    seg.source = JT_SRC_OWNER;
    seg.first_group = 0;
    seg.ngroups = 2;
    seg.gpus = 32;
    memset (&cov, 0, sizeof (cov));
    cov.segs = &seg;
    cov.nsegs = 1;
    cov.funded_gpus = 32;
    cov.reason = JT_OK;

    text = jt_acrec_format (r, &cov);
    run_json = jt_run_to_json (r);
    ok (text != NULL && run_json != NULL, "formatted");
    {
        const char *tail = ",\"funding\":[{\"envelope\":\"west-h100\","
            "\"owner\":\"rai\",\"source\":\"owner\",\"firstGroup\":0,"
            "\"groups\":2,\"gpus\":32}],"
            "\"fundedGPUs\":32,\"borrowedGPUs\":0,\"reason\":\"OK\"}";
        size_t want_len = strlen ("jobtree/1 {\"run\":") + strlen (run_json)
                          + strlen (tail);
        char *want = malloc (want_len + 1);
        strcpy (want, "jobtree/1 {\"run\":");
        strcat (want, run_json);
        strcat (want, tail);
        is (text, want, "record text");
        free (want);
    }
    ok (jt_acrec_is (text), "tagged");
    ok (!jt_acrec_is ("user comment"), "other text is not a record");
    ok (!jt_acrec_is (NULL), "NULL is not a record");

    ok (jt_acrec_parse (text, &rec, &err) == 0, "parses back");
    ok (rec.run && rec.run->total_gpus == 32 && rec.run->group_gpus == 16,
        "run fields");
    ok (rec.run && strcmp (rec.run->owner, "rai") == 0 && rec.run->allow_borrow
        && rec.run->nsponsors == 1, "owner and funding options");
    is_int (rec.nsegs, 1, "one segment");
    if (rec.nsegs == 1) {
        is (rec.segs[0].envelope, "west-h100", "envelope");
        is (rec.segs[0].source, "owner", "source");
        is_int (rec.segs[0].groups, 2, "groups");
    }
    is (rec.reason, "OK", "reason");
    again = jt_acrec_format (rec.run, &cov);
    is (again, text, "format(parse(x)) == x");
    free (again);
    jt_acrec_free (&rec);

    ok (jt_acrec_parse ("jobtree/1 {\"run\":{}}", &rec, &err) == -1,
        "incomplete refused");
    is (err.text, "Jobtree record: missing run, funding, fundedGPUs, borrowedGPUs or "
        "reason", "message");
    ok (jt_acrec_parse ("jobtree/1 [", &rec, &err) == -1, "bad JSON refused");
    ok (jt_acrec_parse ("other", &rec, &err) == -1, "untagged refused");

    free (text);
    text = jt_acrec_format (r, NULL);
    ok (text && strstr (text, "\"funding\":[],\"fundedGPUs\":0"),
        "no cover: empty funding");
    free (text);
    free (run_json);
    jt_run_destroy (r);
    return done_testing ();
}
