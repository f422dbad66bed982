/*
 * record.c - unit tests of the admin_comment record (include/jobtree/record.h):
 * the exact text job_submit writes and that it parses back to the same run;
 * the select plugin's reading (job_submit form, bare run, "bound" leases,
 * refusals, bounds on what a record may claim); bind.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jobtree/budget.h"
#include "jobtree/cover.h"
#include "jobtree/options.h"
#include "jobtree/run.h"
#include "jobtree/plan.h"
#include "jobtree/record.h"
#include "fixtures.h"
#include "tap.h"

static void test_format (void)
{
    jt_run_t *r = jt_run_create ();
    jt_envelope_t env;
    jt_cover_seg_t seg;
    jt_cover_t cov;
    jt_jobrec_t rec;
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

    text = jt_jobrec_format (r, &cov);
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
    ok (jt_jobrec_is (text), "tagged");
    ok (!jt_jobrec_is ("user comment"), "other text is not a record");
    ok (!jt_jobrec_is (NULL), "NULL is not a record");

    ok (jt_jobrec_parse (text, &rec, &err) == 0, "parses back");
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
    again = jt_jobrec_format (rec.run, &cov);
    is (again, text, "format(parse(x)) == x");
    free (again);
    jt_jobrec_free (&rec);

    ok (jt_jobrec_parse ("jobtree/1 {\"run\":{}}", &rec, &err) == -1,
        "incomplete refused");
    is (err.text, "Jobtree record: missing run, funding, fundedGPUs, borrowedGPUs or "
        "reason", "message");
    ok (jt_jobrec_parse ("jobtree/1 [", &rec, &err) == -1, "bad JSON refused");
    ok (jt_jobrec_parse ("other", &rec, &err) == -1, "untagged refused");

    free (text);
    text = jt_jobrec_format (r, NULL);
    ok (text && strstr (text, "\"funding\":[],\"fundedGPUs\":0"),
        "no cover: empty funding");
    free (text);
    free (run_json);
    jt_run_destroy (r);
}

#define RUN "{\"owner\":\"rai\",\"resources\":{\"gpuType\":\"h100\"," \
            "\"totalGPUs\":96},\"locality\":{\"groupGPUs\":64}}"
#define FUND ",\"funding\":[],\"fundedGPUs\":0,\"borrowedGPUs\":0,\"reason\":\"OK\""

/* What the select plugin and `jobtree snapshot` read back. */
static void test_parse (void)
{
    jt_jobrec_t rec;
    jt_error_t err = { "" };

    /* job_submit's form with the bound funding */
    const char *full = "jobtree/1 {\"run\":" RUN ",\"funding\":[{\"envelope\":"
        "\"west-h100\",\"owner\":\"rai\",\"source\":\"owner\",\"firstGroup\":0,"
        "\"groups\":2,\"gpus\":96}],\"fundedGPUs\":96,\"borrowedGPUs\":0,"
        "\"reason\":\"OK\",\"bound\":{\"time\":\"2026-03-01T12:00:00Z\","
        "\"leases\":[{\"group\":0,\"envelope\":\"west-h100\",\"role\":\"Active\","
        "\"gpus\":64,\"nodes\":[\"a01\",\"a02\"]},{\"group\":1,\"envelope\":"
        "\"vision-h100\",\"role\":\"Borrowed\",\"gpus\":32,\"nodes\":[\"b01\"]}]}}";
    ok (jt_jobrec_parse (full, &rec, &err) == 0, "full record parses: %s", err.text);
    is (rec.run ? rec.run->owner : "", "rai", "owner");
    is (rec.run ? rec.run->flavor : "", "h100", "flavor");
    is_int (rec.run ? rec.run->total_gpus : 0, 96, "totalGPUs");
    is_int (rec.run ? rec.run->group_gpus : 0, 64, "groupGPUs");
    is_int ((int64_t) rec.nsegs, 1, "funding read too");
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
    jt_jobrec_free (&rec);

    /* bare run (the older form) */
    ok (jt_jobrec_parse ("jobtree/1 " RUN, &rec, &err) == 0, "bare run parses");
    is_int ((int64_t) rec.nbound, 0, "no bound yet");
    is_int ((int64_t) rec.nsegs, 0, "no funding");
    jt_jobrec_free (&rec);

    /* refusals */
    ok (jt_jobrec_parse ("hello", &rec, &err) < 0, "no tag refused");
    ok (strstr (err.text, "jobtree/1") != NULL, "message names the tag: %s", err.text);
    ok (jt_jobrec_parse ("jobtree/1 {\"run\":", &rec, &err) < 0, "truncated JSON refused");
    ok (jt_jobrec_parse ("jobtree/1 [1]", &rec, &err) < 0, "non-object refused");
    ok (jt_jobrec_parse ("jobtree/1 {\"run\":" RUN
                         ",\"bound\":{\"leases\":[{\"gpus\":8}]}}",
                         &rec, &err) < 0, "lease without envelope refused");
    ok (strstr (err.text, "envelope") != NULL, "names the field: %s", err.text);
    ok (rec.run == NULL && rec.nbound == 0, "rec left empty on error");
    ok (jt_jobrec_parse ("jobtree/1 {\"run\":{\"owner\":\"rai\"}}", &rec, &err) < 0,
        "invalid run refused: %s", err.text);

    /* what a record may claim is bounded and typed */
    ok (jt_jobrec_parse ("jobtree/1 {\"run\":" RUN FUND ",\"bound\":{\"leases\":"
                         "[{\"envelope\":\"e\",\"gpus\":9223372036854775807}]}}",
                         &rec, &err) < 0, "huge lease GPUs refused");
    is (err.text, "bound.leases[0].gpus: not a GPU count (0..1048576)", "message");
    ok (jt_jobrec_parse ("jobtree/1 {\"run\":" RUN FUND ",\"bound\":{\"leases\":"
                         "[{\"envelope\":\"e\",\"group\":-1}]}}", &rec, &err) < 0,
        "negative group refused: %s", err.text);
    ok (jt_jobrec_parse ("jobtree/1 {\"run\":" RUN FUND ",\"bound\":{\"leases\":"
                         "[{\"envelope\":\"e\",\"group\":4294967296}]}}", &rec, &err) < 0,
        "group beyond int refused: %s", err.text);
    ok (jt_jobrec_parse ("jobtree/1 {\"run\":" RUN FUND ",\"bound\":{\"leases\":"
                         "[{\"envelope\":\"e\",\"nodes\":[\"a01\",7]}]}}", &rec, &err) < 0,
        "a node that is not a name refused");
    is (err.text, "bound.leases[0].nodes[1] is not a node name", "message");
    ok (jt_jobrec_parse ("jobtree/1 {\"run\":" RUN FUND ",\"bound\":{\"leases\":"
                         "[{\"envelope\":7}]}}", &rec, &err) < 0,
        "an envelope that is not a string refused");
    ok (jt_jobrec_parse ("jobtree/1 {\"run\":" RUN FUND ",\"bound\":{\"time\":3,"
                         "\"leases\":[]}}", &rec, &err) < 0, "a time that is not a time refused");
    ok (jt_jobrec_parse ("jobtree/1 {\"run\":" RUN FUND ",\"bound\":{\"leases\":"
                         "[{\"envelope\":\"e\",\"role\":\"Boss\"}]}}", &rec, &err) < 0,
        "unknown role refused");
    {
        /* more leases than a record may hold */
        size_t n = JT_JOBREC_MAX_LEASES + 1, len = 0;
        char *big = malloc (n * 20 + 256);
        len += (size_t) sprintf (big, "jobtree/1 {\"run\":%s%s,\"bound\":{\"leases\":[",
                                 RUN, FUND);
        for (size_t i = 0; i < n; i++)
            len += (size_t) sprintf (big + len, "%s{\"envelope\":\"e\"}", i ? "," : "");
        strcpy (big + len, "]}}");
        ok (jt_jobrec_parse (big, &rec, &err) < 0, "too many leases refused");
        is (err.text, "bound.leases: 4097 leases (at most 4096)", "message");
        free (big);
    }
    jt_jobrec_free (NULL);
}

/* bind adds the plan's groups as "bound" and keeps the rest. */
static void test_bind (void)
{
    jt_budgets_t *b = fx_budgets (
        "{ \"owner\": \"rai\", \"envelopes\": ["
        FX_ENV ("west-h100", "\"region\": \"west\"", 256, "") "] }", (const char *) NULL);
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_run_t *r;
    jt_plan_t plan;
    jt_jobrec_t rec;
    jt_error_t err = { "" };
    char *text, *bound;

    fx_nodes (s, "a", 1, 2, "region=west,fabric.domain=A", 8, 0);
    fx_nodes (s, "b", 1, 2, "region=west,fabric.domain=B", 8, 0);
    fx_finalize (s);
    r = fx_run ("{ \"owner\": \"rai\", \"resources\": { \"gpuType\": \"h100\","
                " \"totalGPUs\": 24 }, \"locality\": { \"groupGPUs\": 16 } }");
    fx_plan (b, s, NULL, r, JT_PACK_TO_EMPTY, &plan);
    text = jt_jobrec_format (r, NULL);
    bound = jt_jobrec_bind (text, &plan, s, fx_time (FX_NOW), &err);
    ok (bound != NULL, "bound: %s", err.text);
    ok (bound && strncmp (bound, text, strlen (text) - 1) == 0,
        "what job_submit wrote is kept");
    ok (bound && strstr (bound, ",\"bound\":{\"time\":\"2026-03-01T12:00:00Z\",\"leases\":"
                         "[{\"group\":0,\"envelope\":\"west-h100\",\"role\":\"Active\","
                         "\"gpus\":16,\"nodes\":[\"a01\",\"a02\"]},{\"group\":1,"
                         "\"envelope\":\"west-h100\",\"role\":\"Active\",\"gpus\":8,"
                         "\"nodes\":[\"b01\"]}]}}") != NULL, "bound leases: %s", bound);
    ok (jt_jobrec_parse (bound, &rec, &err) == 0, "parses back: %s", err.text);
    is_int ((int64_t) rec.nbound, 2, "two leases read back");
    is_int (rec.bound_time, fx_time (FX_NOW), "bound time read back");
    jt_jobrec_free (&rec);
    ok (jt_jobrec_bind ("user text", &plan, s, 0, &err) == NULL, "bind needs a record");
    free (bound);
    free (text);
    jt_plan_free (&plan);
    jt_run_destroy (r);
    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
}

int main (void)
{
    test_format ();
    test_parse ();
    test_bind ();
    return done_testing ();
}
