/*
 * worked_example.c - the calculus's section 8 worked example as a test
 * vector, as corrected by DESIGN decision 1 (the last group is short).
 *
 * Owner RAI, envelope west-h100 with headroom for the run; domain A has 72
 * free GPUs (9 free 8-GPU nodes), domain B 48 (6 nodes).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/plan.h"
#include "fixtures.h"
#include "tap.h"

#define RAI \
    "{ \"owner\": \"rai\", \"envelopes\": [" \
    FX_ENV ("west-h100", "\"region\": \"west\"", 128, "") "] }"

#define RUN(total, extra) \
    "{ \"id\": \"c1:4242\", \"owner\": \"rai\", \"resources\": {" \
    " \"gpuType\": \"h100\", \"totalGPUs\": " #total " }, \"locality\": {" \
    " \"groupGPUs\": 64, \"allowCrossGroupSpread\": true }" extra " }"

int main (void)
{
    jt_budgets_t *b = fx_budgets (RAI, FX_END);
    jt_snapshot_t *s = jt_snapshot_create ();
    jt_plan_t p;

    fx_nodes (s, "a", 1, 9, "region=west,cluster=c1,fabric.domain=A", 8, 0);
    fx_nodes (s, "b", 1, 6, "region=west,cluster=c1,fabric.domain=B", 8, 0);
    fx_finalize (s);

    /* As corrected: 96 = [64, 32]. */
    jt_run_t *r = fx_run (RUN (96, ""));
    is (fx_plan (b, s, NULL, r, JT_PACK_TO_EMPTY, &p),
        "BindNow total=96"
        " | g0 64 west/c1/A[a01:8 a02:8 a03:8 a04:8 a05:8 a06:8 a07:8 a08:8]"
        " west-h100"
        " | g1 32 west/c1/B[b01:8 b02:8 b03:8 b04:8] west-h100",
        "96 = [64, 32]: g0 on A, g1 on B (A has only 8 left): BindNow");
    is_int (p.nsegs, 1, "one cover segment");
    ok (p.nsegs == 1 && p.segs[0].gpus == 96 && p.segs[0].ngroups == 2
        && strcmp (p.segs[0].env->name, "west-h100") == 0,
        "west-h100 pays all 96");
    ok (p.ndomains == 2 && p.residual[0] == 8 && p.residual[1] == 16,
        "residual: A 8, B 16");
    jt_plan_free (&p);
    jt_run_destroy (r);

    /* The uncorrected shape: 128 = [64, 64]; the second group fits no
     * domain, Cover would fund it: Plan-Later. */
    r = fx_run (RUN (128, ""));
    is (fx_plan (b, s, NULL, r, JT_PACK_TO_EMPTY, &p),
        "PlanLater NoDomainFits total=0 want=128 | pay west-h100 g0-g1 128",
        "128 = [64, 64]: PlanLater NoDomainFits, payer west-h100");
    is (p.detail, "group 1 (64 GPUs) fits no domain: most free is west/c1/B"
        " with 48", "detail names group 1 and the most free domain");
    ok (p.residual[0] == 72 && p.residual[1] == 48,
        "nothing is taken when nothing binds");
    jt_plan_free (&p);
    jt_run_destroy (r);

    /* Growth variant INCR(min 64, max 128, step 16): the largest total that
     * binds now is 112 = [64, 48]: g0 on A, g1 takes all of B. */
    r = fx_run (RUN (128, ", \"malleable\": { \"minTotalGPUs\": 64,"
                     " \"maxTotalGPUs\": 128, \"stepGPUs\": 16 }"));
    is (fx_plan (b, s, NULL, r, JT_PACK_TO_EMPTY, &p),
        "BindNow total=112 want=128"
        " | g0 64 west/c1/A[a01:8 a02:8 a03:8 a04:8 a05:8 a06:8 a07:8 a08:8]"
        " west-h100"
        " | g1 48 west/c1/B[b01:8 b02:8 b03:8 b04:8 b05:8 b06:8] west-h100",
        "INCR(64, 128, 16): 112 binds now (128 does not)");
    jt_plan_free (&p);
    jt_run_destroy (r);

    /* The same growth variant when B is busy: only the minimum binds. */
    jt_snapshot_t *busy = jt_snapshot_create ();
    fx_nodes (busy, "a", 1, 9, "region=west,cluster=c1,fabric.domain=A", 8, 0);
    fx_nodes (busy, "b", 1, 6, "region=west,cluster=c1,fabric.domain=B", 8, 6);
    fx_finalize (busy);
    r = fx_run (RUN (128, ", \"malleable\": { \"minTotalGPUs\": 64,"
                     " \"maxTotalGPUs\": 128, \"stepGPUs\": 16 }"));
    is (fx_plan (b, busy, NULL, r, JT_PACK_TO_EMPTY, NULL),
        "BindNow total=64 want=128"
        " | g0 64 west/c1/A[a01:8 a02:8 a03:8 a04:8 a05:8 a06:8 a07:8 a08:8]"
        " west-h100",
        "INCR(64, 128, 16) with B busy: only the minimum binds");
    jt_run_destroy (r);
    jt_snapshot_destroy (busy);

    jt_snapshot_destroy (s);
    jt_budgets_destroy (b);
    return done_testing ();
}
