/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_admit.c - the admission step as job_submit runs it (jt_admit): one
 * line per value, "@account=", "@job=", "@node=", "@socket=" (the GRES
 * strings), "@nodes=", "@sockets=", "@time=" (any integer text, as the
 * plugin could pass it), "@passthrough" and "@plain" (jobtree.conf), and
 * every other line a SPANK environment entry ("JOBTREE_GROUP_GPUS=16").
 * The budgets are fixed; a run's record must parse back, a refusal must be
 * one "jobtree: " line. */
#include "config.h"

#include <stdio.h>

#include "jobtree/admit.h"
#include "jobtree/record.h"
#include "fuzz.h"

#define WINDOW "\"start\": \"2026-01-01T00:00:00Z\", \"end\": \"2031-01-01T00:00:00Z\""

static const char *docs[] = {
    "{ \"owner\": \"rai\", \"envelopes\": [ { \"name\": \"west-h100\", \"flavor\": "
    "\"h100\", \"selector\": { \"region\": \"west\" }, " WINDOW ", \"concurrency\": "
    "64, \"lending\": { \"allow\": true, \"to\": [\"*\"] } } ] }",
    "{ \"owner\": \"vision\", \"parent\": \"rai\", \"envelopes\": [ { \"name\": "
    "\"east-h100\", \"flavor\": \"h100\", " WINDOW ", \"concurrency\": 8 } ] }",
};

static jt_budgets_t *budgets;

static int64_t gpn (void *arg, const char *flavor)
{
    (void) arg;
    return strcmp (flavor, "h100") == 0 ? 8 : strcmp (flavor, "a100") == 0 ? 4 : 0;
}

static int only (void *arg, char *buf, size_t len)
{
    (void) arg;
    return snprintf (buf, len, "h100") < (int) len ? 0 : -1;
}

static int account (void *arg, char *buf, size_t len)
{
    (void) arg;
    snprintf (buf, len, "rai");
    return 0;
}

static const jt_admit_cluster_t cluster = { gpn, only, account, NULL, NULL };

static void setup (void)
{
    jt_diags_t d;

    jt_diags_init (&d);
    budgets = jt_budgets_create ();
    for (size_t i = 0; budgets && i < sizeof (docs) / sizeof (docs[0]); i++)
        jt_budgets_add_json (budgets, "b.json", docs[i], strlen (docs[i]), &d);
    if (!budgets || jt_budgets_finalize (budgets, &d) < 0)
        abort ();
    jt_diags_free (&d);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr (data, size), *env[64], *save = NULL;
    jt_admit_req_t req;
    jt_config_t *conf;
    jt_admit_t a;

    if (!budgets)
        setup ();
    if (!text)
        return 0;
    if (!(conf = jt_config_create ())) {
        free (text);
        return 0;
    }
    memset (&req, 0, sizeof (req));
    req.env = env;
    req.now = 1772366400;       /* 2026-03-01T12:00:00Z */
    for (char *l = strtok_r (text, "\n", &save); l; l = strtok_r (NULL, "\n", &save)) {
        if (strncmp (l, "@account=", 9) == 0)
            req.account = l + 9;
        else if (strncmp (l, "@job=", 5) == 0)
            req.tres_per_job = l + 5;
        else if (strncmp (l, "@node=", 6) == 0)
            req.tres_per_node = l + 6;
        else if (strncmp (l, "@socket=", 8) == 0)
            req.tres_per_socket = l + 8;
        else if (strncmp (l, "@nodes=", 7) == 0)
            req.min_nodes = strtoll (l + 7, NULL, 0);
        else if (strncmp (l, "@sockets=", 9) == 0)
            req.sockets_per_node = strtoll (l + 9, NULL, 0);
        else if (strncmp (l, "@time=", 6) == 0)
            req.time_limit_min = strtoll (l + 6, NULL, 0);
        else if (strcmp (l, "@passthrough") == 0)
            conf->unfunded_policy = JT_UNFUNDED_PASSTHROUGH;
        else if (strcmp (l, "@plain") == 0)
            conf->plain_gpu_jobs = true;
        else if (req.nenv < 64)
            env[req.nenv++] = l;
    }
    switch (jt_admit (&req, conf, budgets, &cluster, &a)) {
    case JT_ADMIT_RUN: {
        jt_jobrec_t rec;
        jt_error_t err;
        if (!a.record || jt_jobrec_parse (a.record, &rec, &err) < 0)
            abort ();           /* a run's record must read back */
        jt_jobrec_free (&rec);
        break;
    }
    case JT_ADMIT_REFUSE:
    case JT_ADMIT_UNFUNDED:
        if (strncmp (a.line, "jobtree: ", 9) != 0 || strchr (a.line, '\n') || a.record)
            abort ();           /* one line, no record */
        break;
    case JT_ADMIT_PASS:
        if (a.record || a.line[0])
            abort ();
        break;
    }
    jt_admit_free (&a);
    jt_config_destroy (conf);
    free (text);
    return 0;
}
