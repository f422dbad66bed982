/*
 * gres.c - unit tests of the GPU request parser (jobtree/gres.h): the
 * strings sbatch makes of --gres, --gpus, --gpus-per-node, a node's GRES
 * and GRES in use, hostile counts, and the checked request arithmetic.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <string.h>

#include <stdint.h>

#include "jobtree/gres.h"
#include "tap.h"

static void check (const char *tres, int rc, const char *type, int64_t count)
{
    char t[64] = "?";
    int64_t c = -1;
    int got = jt_gres_gpu_req (tres, t, sizeof (t), &c);

    is_int (got, rc, "'%s' -> %d", tres ? tres : "(null)", rc);
    if (rc == 1) {
        is (t, type, "'%s' type %s", tres, type);
        is_int (c, count, "'%s' count", tres);
    }
}

int main (void)
{
    check ("gres:gpu:h100:8", 1, "h100", 8);
    check ("gpu:h100:8", 1, "h100", 8);
    check ("gres/gpu:h100=8", 1, "h100", 8);
    check ("gres:gpu:8", 1, "", 8);
    check ("gres:gpu", 1, "", 1);
    check ("gres:gpu:h100", 1, "h100", 1);
    check ("gres:nic:2,gres:gpu:a100:4", 1, "a100", 4);
    check ("gres:gpu:h100:4;gres:gpu:h100:4", 1, "h100", 8);
    check ("gres:nic:2", 0, "", 0);
    check ("", 0, "", 0);
    check (NULL, 0, "", 0);
    check ("gres:gpu:h100:8,gres:gpu:a100:8", -1, "", 0);
    check ("gres:gpu:h100:x:8", -1, "", 0);
    check ("gres:gpu:a:b:c:d", -1, "", 0);
    {
        char t[4];
        int64_t c;
        is_int (jt_gres_gpu_req ("gpu:h100:8", t, sizeof (t), &c), -1,
                "type longer than the buffer is an error");
    }
    /* a node's GRES and GRES in use (jobtree snapshot, select plugin) */
    check ("gpu:h100:8(S:0-1)", 1, "h100", 8);
    check ("gpu:h100:2(IDX:0,2),nic:1", 1, "h100", 2);
    check ("nic:1(IDX:0,1),gpu:a100:4(S:0)", 1, "a100", 4);
    check ("gpu:h100:0(IDX:N/A)", 1, "h100", 0);

    /* hostile counts from sbatch: refused, never wrapped or saturated */
    check ("gpu:h100:9223372036854775807;gpu:h100:2", -1, "", 0);
    check ("gpu:h100:9223372036854775808", -1, "", 0);
    check ("gpu:h100:99999999999999999999999", -1, "", 0);
    check ("gpu:h100:-1", -1, "", 0);
    check ("gpu:-8", -1, "", 0);
    check ("gpu:h100:1048576", 1, "h100", 1048576);
    check ("gpu:h100:1048577", -1, "", 0);
    check ("gpu:h100:1048576,gpu:h100:1", -1, "", 0);
    check ("gpu:h100:524288;gpu:h100:524288", 1, "h100", 1048576);

    /* request arithmetic: per job, per node, per socket; bounded */
    int64_t t = -1;
    ok (jt_gres_total (8, JT_GRES_PER_NODE, 4, 0, &t) == 0 && t == 32, "8/node x 4 = 32");
    ok (jt_gres_total (64, JT_GRES_PER_JOB, 8, 0, &t) == 0 && t == 64, "64/job");
    ok (jt_gres_total (4, JT_GRES_PER_SOCKET, 4, 2, &t) == 0 && t == 32,
        "4/socket x 2 sockets x 4 nodes = 32");
    t = -1;
    ok (jt_gres_total (8, JT_GRES_PER_NODE, 131073, 0, &t) < 0 && t == -1,
        "8 x 131073 nodes > 2^20 GPUs: refused, total untouched");
    ok (jt_gres_total (1048576, JT_GRES_PER_SOCKET, 1048576, 1048576, &t) < 0,
        "2^60 per-socket product: refused without overflow");
    ok (jt_gres_total (INT64_MAX, JT_GRES_PER_NODE, 2, 0, &t) < 0, "INT64_MAX count");
    ok (jt_gres_total (8, JT_GRES_PER_NODE, INT64_MAX, 0, &t) < 0, "INT64_MAX nodes");
    ok (jt_gres_total (8, JT_GRES_PER_SOCKET, 1, 0, &t) < 0, "per socket needs sockets");
    ok (jt_gres_total (0, JT_GRES_PER_NODE, 1, 0, &t) < 0, "zero GPUs");
    ok (jt_gres_total (8, JT_GRES_PER_NODE, -1, 0, &t) < 0, "negative nodes");
    ok (jt_gres_total (1048576, JT_GRES_PER_NODE, 1, 0, &t) == 0 && t == 1048576,
        "exactly 2^20 is allowed");
    return done_testing ();
}
