/*
 * admit.c - unit tests of the admission step (jobtree/admit.h): every
 * refusal of tests/cluster/t1000-admission.sh with its exact line and kind,
 * plain jobs passing untouched, the record and its summary, UnfundedPolicy
 * both ways, PlainGpuJobs, the order of the rules, and hostile counts.
 *
 * The budgets are the test cluster's (etc/slurm/test-cluster/budgets),
 * inline; the cluster is the test cluster too: 16 h100 nodes of 8 GPUs
 * (node_gpus), 4 fabric domains of 4 (A, B west; C, D east).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/admit.h"
#include "jobtree/nodemap.h"
#include "jobtree/timeutil.h"
#include "tap.h"

#define WINDOW "\"start\": \"2026-01-01T00:00:00Z\", \"end\": \"2031-01-01T00:00:00Z\""
#define ENV1(owner, name, flavor, region, conc, extra) \
    "{ \"owner\": \"" owner "\", \"envelopes\": [ { \"name\": \"" name "\", " \
    "\"flavor\": \"" flavor "\", \"selector\": { \"region\": \"" region "\" }, " \
    extra ", \"concurrency\": " #conc " } ] }"

static const char *budget_docs[] = {
    ENV1 ("ampere", "ampere-a100", "a100", "west", 64, WINDOW),
    ENV1 ("expired", "expired-h100", "h100", "west", 64,
          "\"start\": \"2020-01-01T00:00:00Z\", \"end\": \"2021-01-01T00:00:00Z\""),
    ENV1 ("small", "small-h100", "h100", "west", 8, WINDOW),
    ENV1 ("team-a", "a-west-h100", "h100", "west", 64, WINDOW),
    "{ \"owner\": \"team-b\", \"envelopes\": [ { \"name\": \"b-east-h100\", "
    "\"flavor\": \"h100\", \"selector\": { \"region\": \"east\" }, " WINDOW ", "
    "\"concurrency\": 64, \"lending\": { \"allow\": true, \"to\": [\"team-a\"], "
    "\"maxConcurrency\": 32 } } ] }",
};

static jt_budgets_t *budgets;
static jt_config_t *conf;
static int64_t now;

/* The cluster: h100 nodes of node_gpus GPUs. Counts how often it was asked. */
static int asked;
static int node_gpus = 8;

static int64_t cl_gpn (void *arg, const char *flavor)
{
    (void) arg;
    asked++;
    return strcmp (flavor, "h100") == 0 ? node_gpus : 0;
}

static int cl_only (void *arg, char *buf, size_t len)
{
    (void) arg;
    asked++;
    snprintf (buf, len, "h100");
    return 0;
}

static int cl_account (void *arg, char *buf, size_t len)
{
    (void) arg;
    asked++;
    snprintf (buf, len, "alice");
    return 0;
}

static int nodes_asked;

static int cl_nodes (void *arg, jt_snapshot_t *s, const char *domain_key,
                     jt_error_t *err)
{
    (void) arg;
    nodes_asked++;
    for (int i = 0; i < 16; i++) {
        char name[16], features[96], gres[32];
        jt_nodemap_node_t n = { .name = name, .features = features, .gres = gres };

        snprintf (name, sizeof (name), "gpu%02d", i + 1);
        snprintf (features, sizeof (features), "fabric.domain=%c,region=%s",
                  'A' + i / 4, i < 8 ? "west" : "east");
        snprintf (gres, sizeof (gres), "gpu:h100:%d", node_gpus);
        if (jt_nodemap_add (s, &n, domain_key, err) < 0)
            return -1;
    }
    return 0;
}

static const jt_admit_cluster_t cluster = { cl_gpn, cl_only, cl_account, NULL,
                                            cl_nodes };

/* A job from sbatch-like words: "A=acct N=nodes G=tres_per_node J=tres_per_job
 * S=tres_per_socket K=sockets T=minutes", then SPANK variables "NAME=V". */
typedef struct job {
    jt_admit_req_t req;
    char *env[16];
} job_t;

static void job (job_t *j, const char *spec)
{
    char *copy = strdup (spec), *save = NULL;

    memset (j, 0, sizeof (*j));
    j->req.now = now;
    j->req.env = j->env;
    for (char *w = strtok_r (copy, " ", &save); w; w = strtok_r (NULL, " ", &save)) {
        char *v = w + 2;
        if (strncmp (w, "A=", 2) == 0)
            j->req.account = strdup (v);
        else if (strncmp (w, "G=", 2) == 0)
            j->req.tres_per_node = strdup (v);
        else if (strncmp (w, "J=", 2) == 0)
            j->req.tres_per_job = strdup (v);
        else if (strncmp (w, "S=", 2) == 0)
            j->req.tres_per_socket = strdup (v);
        else if (strncmp (w, "N=", 2) == 0)
            j->req.min_nodes = strtoll (v, NULL, 10);
        else if (strncmp (w, "K=", 2) == 0)
            j->req.sockets_per_node = strtoll (v, NULL, 10);
        else if (strncmp (w, "T=", 2) == 0)
            j->req.time_limit_min = strtoll (v, NULL, 10);
        else if (j->req.nenv < 16)
            j->env[j->req.nenv++] = strdup (w);
    }
    free (copy);
}

static void job_free (job_t *j)
{
    free ((char *) j->req.account);
    free ((char *) j->req.tres_per_node);
    free ((char *) j->req.tres_per_job);
    free ((char *) j->req.tres_per_socket);
    for (size_t i = 0; i < j->req.nenv; i++)
        free (j->env[i]);
}

/* Admit spec under the current conf and budgets; *out kept for checks. */
static jt_admit_verdict_t admit (const char *spec, jt_admit_t *out)
{
    job_t j;
    jt_admit_verdict_t v;

    job (&j, spec);
    v = jt_admit (&j.req, conf, budgets, &cluster, out);
    job_free (&j);
    return v;
}

static void refused (const char *spec, jt_admit_refusal_t kind, const char *line)
{
    jt_admit_t a;

    is (jt_admit_verdict_str (admit (spec, &a)), "refuse", "%s: refused", spec);
    is (a.line, line, "%s: the line", spec);
    is_int (a.refusal, kind, "%s: refusal kind %d", spec, (int) kind);
    ok (a.record == NULL, "%s: no record", spec);
    jt_admit_free (&a);
}

/* A job and how it must be refused: the kind and the line. */
struct refusal {
    const char *spec;
    jt_admit_refusal_t kind;
    const char *line;
};

static void each_refused (const struct refusal *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        refused (c[i].spec, c[i].kind, c[i].line);
}

#define G8 "G=gres:gpu:h100:8"

/* t1000's "Malformed or never fundable: refused by job_submit". */
static void test_t1000_refusals (void)
{
    static const struct refusal cases[] = {
        { "A=small N=2 " G8 " JOBTREE_GROUP_GPUS=16", JT_ADMIT_NEVER_FUNDABLE,
          "jobtree: no envelope could ever fund this run (NeverFundable): largest "
          "group 16 GPUs > concurrency 8 of every candidate" },
        { "A=expired N=1 " G8 " JOBTREE_GROUP_GPUS=8", JT_ADMIT_NEVER_FUNDABLE,
          "jobtree: no envelope could ever fund this run (WindowClosed): every "
          "candidate envelope's window has ended (latest: expired-h100 ended "
          "2021-01-01T00:00:00Z)" },
        { "A=ampere N=1 " G8 " JOBTREE_GROUP_GPUS=8", JT_ADMIT_NEVER_FUNDABLE,
          "jobtree: no envelope could ever fund this run (NoMatchingEnvelope): no "
          "envelope of flavor h100 for ampere, its family or a sponsor lending to it" },
        { "A=nobody N=1 " G8 " JOBTREE_GROUP_GPUS=8", JT_ADMIT_NO_BUDGET,
          "jobtree: account nobody has no budget (no budget file names owner "
          "nobody); use --account=ACCOUNT" },
        { "N=1 " G8 " JOBTREE_GROUP_GPUS=8", JT_ADMIT_NO_BUDGET,
          "jobtree: account alice has no budget (no budget file names owner "
          "alice); use --account=ACCOUNT" },
        { "A=team-a N=2 " G8 " JOBTREE_GROUP_GPUS=12", JT_ADMIT_BAD_GRES,
          "jobtree: --group-gpus=12 is not a multiple of the 8 GPUs per h100 node, "
          "e.g. --group-gpus=16" },
        { "A=team-a N=4 G=gres:gpu:h100:4 JOBTREE_GROUP_GPUS=16", JT_ADMIT_BAD_GRES,
          "jobtree: --group-gpus needs whole nodes: ask for all 8 GPUs of each "
          "node, e.g. --gres=gpu:h100:8 (got 4 per node)" },
        { "A=team-a N=2 " G8 " JOBTREE_MALLEABLE=32:64", JT_ADMIT_BAD_NODE_COUNT,
          "jobtree: --malleable=32:64: the job asks for 16 GPUs, outside MIN..MAX; "
          "ask for 32 to 64 GPUs, e.g. -N 4 --gres=gpu:h100:8" },
        { "A=team-a N=1 G=gres:gpu:v100:8 JOBTREE_GROUP_GPUS=8",
          JT_ADMIT_BAD_GRES_TYPE, "jobtree: unknown GPU flavor v100: no node has "
          "gres gpu:v100" },
        { "A=team-a JOBTREE_GROUP_GPUS=8", JT_ADMIT_BAD_GRES,
          "jobtree: Jobtree options need a GPU request, e.g. --gres=gpu:h100:8 -N 4" },
        { "A=team-a N=1 J=gres:gpu:h100:2000000 JOBTREE_GROUP_GPUS=8",
          JT_ADMIT_BAD_GRES, "jobtree: cannot read the GPU request "
          "(gres:gpu:h100:2000000): one GPU type and a count of at most 1048576, "
          "e.g. --gres=gpu:h100:8" },
        { "A=team-a N=200000 " G8 " JOBTREE_GROUP_GPUS=8", JT_ADMIT_BAD_GRES,
          "jobtree: the job asks for more than 1048576 GPUs (8 GPUs x 200000 "
          "nodes); ask for what the run needs, e.g. -N 4 --gres=gpu:h100:8" },
    };

    each_refused (cases, sizeof (cases) / sizeof (cases[0]));
}

/* Refusals t1000 does not reach, and the order of the rules. */
static void test_more_refusals (void)
{
    static const struct refusal cases[] = {
        { "A=team-a N=1 " G8 " SPANK_JOBTREE_SPARES=-1", JT_ADMIT_BAD_GRES,
          "jobtree: --spares=-1: not a whole number, e.g. --spares=1" },
        { "A=team-a N=2 S=gres:gpu:h100:4 JOBTREE_GROUP_GPUS=16", JT_ADMIT_BAD_GRES,
          "jobtree: --gpus-per-socket needs --sockets-per-node; ask per node "
          "instead, e.g. --gres=gpu:h100:8" },
        { "A=team-a N=1 G=gres:gpu:h100:8,gres:gpu:a100:8 JOBTREE_GROUP_GPUS=8",
          JT_ADMIT_BAD_GRES, "jobtree: cannot read the GPU request "
          "(gres:gpu:h100:8,gres:gpu:a100:8): one GPU type and a count of at most "
          "1048576, e.g. --gres=gpu:h100:8" },
        { "A=team-a N=1 G=gres:gpu:h100:0 JOBTREE_GROUP_GPUS=8", JT_ADMIT_BAD_GRES,
          "jobtree: Jobtree options need a GPU request, e.g. --gres=gpu:h100:8 -N 4" },
        /* products: per socket x sockets x nodes past 2^20 */
        { "A=team-a N=1024 K=1024 S=gres:gpu:h100:2 JOBTREE_GROUP_GPUS=8",
          JT_ADMIT_BAD_GRES, "jobtree: the job asks for more than 1048576 GPUs "
          "(2 GPUs x 1024 nodes); ask for what the run needs, e.g. -N 4 "
          "--gres=gpu:h100:8" },
        /* the run's other rules keep the run file's words */
        { "A=team-a J=gres:gpu:h100:12 JOBTREE_GROUP_GPUS=8", JT_ADMIT_BAD_GRES,
          "jobtree: resources.totalGPUs: totalGPUs=12 is not a multiple of the 8 "
          "GPUs per h100 node, so the last group would not be whole nodes; use 8 "
          "or 16" },
        { "A=team-a N=2 " G8 " JOBTREE_MALLEABLE=16:64:12", JT_ADMIT_BAD_GRES,
          "jobtree: malleable.stepGPUs: stepGPUs=12 is not a multiple of the 8 GPUs "
          "per h100 node (a run grows and shrinks by whole nodes); use 8 or 16" },
        /* --group-gpus itself first, then whole nodes, then the rest */
        { "A=team-a N=3 G=gres:gpu:h100:4 JOBTREE_GROUP_GPUS=12", JT_ADMIT_BAD_GRES,
          "jobtree: --group-gpus=12 is not a multiple of the 8 GPUs per h100 node, "
          "e.g. --group-gpus=16" },
        { "A=team-a N=3 G=gres:gpu:h100:4 JOBTREE_GROUP_GPUS=8", JT_ADMIT_BAD_GRES,
          "jobtree: --group-gpus needs whole nodes: ask for all 8 GPUs of each "
          "node, e.g. --gres=gpu:h100:8 (got 4 per node)" },
        { "A=team-a N=4 G=gres:gpu:h100:4 JOBTREE_GROUP_GPUS=16 "
          "JOBTREE_MALLEABLE=32:64", JT_ADMIT_BAD_GRES,
          "jobtree: --group-gpus needs whole nodes: ask for all 8 GPUs of each "
          "node, e.g. --gres=gpu:h100:8 (got 4 per node)" },
        { "A=team-a N=1 " G8 " T=4294967296 JOBTREE_GROUP_GPUS=8", JT_ADMIT_BAD_GRES,
          "jobtree: the time limit of 4294967296 minutes is out of range" },
    };

    each_refused (cases, sizeof (cases) / sizeof (cases[0]));
}

static void test_pass (void)
{
    jt_admit_t a;

    asked = 0;
    is (jt_admit_verdict_str (admit ("", &a)), "pass", "plain CPU job passes");
    ok (a.record == NULL && a.line[0] == '\0', "no record, no line");
    is (jt_admit_verdict_str (admit ("A=nobody N=1 " G8, &a)), "pass",
        "plain GPU job passes (PlainGpuJobs=passthrough)");
    is (jt_admit_verdict_str (admit ("N=1 " G8 " OTHER_VAR=1 SPANK_X=2", &a)), "pass",
        "other SPANK variables are not Jobtree options");
    is_int (asked, 0, "a plain job never asks the cluster (no node table, no account)");
    is (jt_admit_verdict_str (admit ("A=team-a N=1 " G8 " JOBTREE_GROUP_GPUS=8", &a)),
        "run", "the same job with an option is a run");
    ok (asked == 1, "asked once: GPUs per node (account given)");
    jt_admit_free (&a);
    jt_admit_free (&a);
    jt_admit_free (NULL);
    ok (1, "jt_admit_free twice and NULL");
}

static void test_record (void)
{
    jt_admit_t a;

    is (jt_admit_verdict_str (admit ("A=team-a N=4 " G8 " T=10 JOBTREE_GROUP_GPUS=16 "
                                     "JOBTREE_MALLEABLE=16:64:16 JOBTREE_SPARES=0 "
                                     "JOBTREE_CHECKPOINT=30m "
                                     "JOBTREE_CROSS_GROUP_SPREAD=no", &a)),
        "run", "t1000's Jobtree job is a run");
    is (a.record, "jobtree/1 {\"run\":{\"owner\":\"team-a\",\"resources\":{\"gpuType\":"
        "\"h100\",\"totalGPUs\":32},\"locality\":{\"groupGPUs\":16,"
        "\"allowCrossGroupSpread\":false},\"malleable\":{\"minTotalGPUs\":16,"
        "\"maxTotalGPUs\":64,\"stepGPUs\":16},\"runtime\":{\"checkpoint\":1800,"
        "\"timeLimit\":600}},\"funding\":[{\"envelope\":\"a-west-h100\",\"owner\":"
        "\"team-a\",\"source\":\"owner\",\"firstGroup\":0,\"groups\":2,\"gpus\":32}],"
        "\"fundedGPUs\":32,\"borrowedGPUs\":0,\"reason\":\"OK\"}",
        "the record t1000 expects");
    is (a.summary, "account team-a: 32 h100 GPUs in 2 group(s), 32 funded at "
        "submission (OK)", "the summary for the log");
    jt_admit_free (&a);

    is (jt_admit_verdict_str (admit ("A=team-a J=gres:gpu:h100:16 "
                                     "SPANK_JOBTREE_GROUP_GPUS=8 "
                                     "SPANK_JOBTREE_SPONSORS=team-b "
                                     "SPANK_JOBTREE_BORROW=16", &a)), "run",
        "--gpus=h100:16 with borrowing");
    ok (a.record && strstr (a.record, "\"resources\":{\"gpuType\":\"h100\","
                            "\"totalGPUs\":16}")
        && strstr (a.record, "\"funding\":{\"allowBorrow\":true,\"maxBorrowGPUs\":16,"
                   "\"sponsors\":[\"team-b\"]}"), "per-job GPUs and borrowing recorded");
    jt_admit_free (&a);

    is (jt_admit_verdict_str (admit ("A=team-a N=2 G=gpu:8 JOBTREE_SPARES=1", &a)),
        "run", "an untyped request takes the cluster's only flavor");
    ok (a.record && strstr (a.record, "\"gpuType\":\"h100\",\"totalGPUs\":16}")
        && strstr (a.record, "\"sparesPerGroup\":1"), "gpus-per-node x nodes");
    jt_admit_free (&a);

    is (jt_admit_verdict_str (admit ("A=team-a N=1 K=2 S=gres:gpu:h100:4", &a)),
        "pass", "per-socket plain GPU job passes");
    is (jt_admit_verdict_str (admit ("A=team-a N=1 K=2 S=gres:gpu:h100:4 "
                                     "JOBTREE_SPARES=0", &a)), "run",
        "per socket x sockets x nodes");
    ok (a.record && strstr (a.record, "\"totalGPUs\":8}"), "4 x 2 x 1 = 8 GPUs");
    jt_admit_free (&a);
}

/* --spares: the job's node range gets every group's spare nodes, whatever
 * -N said, and no kill on node failure (issue 10); none without spares. */
static void test_spares (void)
{
    static const struct {
        const char *spec, *want;
    } t[] = {
        { "A=team-a N=4 " G8 " JOBTREE_GROUP_GPUS=16 JOBTREE_SPARES=1",
          "run spare=2 nodes=6-6 nokill=1" },
        { "A=team-a N=4 " G8 " JOBTREE_GROUP_GPUS=16 JOBTREE_SPARES=2",
          "run spare=4 nodes=8-8 nokill=1" },
        { "A=team-a N=2 " G8 " JOBTREE_SPARES=1", "run spare=1 nodes=3-3 nokill=1" },
        { "A=team-a N=2 " G8 " JOBTREE_GROUP_GPUS=16 JOBTREE_MALLEABLE=16:48:16 "
          "JOBTREE_SPARES=1", "run spare=3 nodes=0-9 nokill=1" },
        { "A=team-a N=4 " G8 " JOBTREE_GROUP_GPUS=16 JOBTREE_SPARES=0",
          "run spare=0 nodes=0-0 nokill=0" },
    };

    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        jt_admit_t a;
        char got[128];
        jt_admit_verdict_t v = admit (t[i].spec, &a);
        snprintf (got, sizeof (got), "%s spare=%" PRId64 " nodes=%" PRId64 "-%" PRId64
                  " nokill=%d", jt_admit_verdict_str (v), a.spare_nodes, a.min_nodes,
                  a.max_nodes, a.no_kill);
        is (got, t[i].want, "%s", t[i].spec);
        jt_admit_free (&a);
    }
}

/* Runs no placement could ever hold on the cluster, refused at submission
 * in the scheduler's words (slurmctld would say only "Requested node
 * configuration is not available"); their placeable neighbours admitted. */
static void test_never_placeable (void)
{
    static const struct refusal cases[] = {
        /* the user guide's example: 64 GPUs in one domain of 32 */
        { "A=team-a N=8 " G8 " JOBTREE_GROUP_GPUS=32 JOBTREE_CROSS_GROUP_SPREAD=no",
          JT_ADMIT_NEVER_PLACEABLE, "jobtree: this cluster can never place the run: "
          "no domain holds all 2 groups (64 GPUs) on nodes its payers may use; most free "
          "is east/C with 32" },
        { "A=team-a N=5 " G8 " JOBTREE_GROUP_GPUS=40", JT_ADMIT_NEVER_PLACEABLE,
          "jobtree: this cluster can never place the run: group 0 (40 GPUs) fits no "
          "domain: most free is west/A with 32" },
        /* a group and its spare: 5 nodes in domains of 4 */
        { "A=team-a N=4 " G8 " JOBTREE_GROUP_GPUS=32 JOBTREE_SPARES=1",
          JT_ADMIT_NEVER_PLACEABLE, "jobtree: this cluster can never place the run: "
          "group 0 (32 GPUs + 1 spare node) fits no domain: most free is west/A with 32" },
        /* team-a pays in the west only: 2 domains for 3 groups of 16 apart;
         * and its 64 GPUs fund the groups (48) but not with their spares (96) */
        { "A=team-a N=6 " G8 " JOBTREE_GROUP_GPUS=16 JOBTREE_SPARES=2",
          JT_ADMIT_NEVER_FUNDABLE, "jobtree: no envelope could ever fund this run "
          "with its spare nodes (InsufficientCapacity): envelope a-west-h100: 0 of 64"
          " GPUs active, run needs 80; sponsor envelope b-east-h100 (team-b) could pay"
          " 16 GPUs if the run allowed borrowing; 32 GPUs of it pay the spare nodes of"
          " groups 0-1" },
    };
    static const char *runs[] = {
        "A=team-a N=4 " G8 " JOBTREE_GROUP_GPUS=32 JOBTREE_CROSS_GROUP_SPREAD=no",
        "A=team-a N=8 " G8 " JOBTREE_GROUP_GPUS=32",
        "A=team-a N=3 " G8 " JOBTREE_GROUP_GPUS=24 JOBTREE_SPARES=1",
        "A=team-a N=8 " G8 " JOBTREE_CHECKPOINT=30m",
    };
    jt_admit_t a;

    nodes_asked = 0;
    each_refused (cases, sizeof (cases) / sizeof (cases[0]));
    is_int (nodes_asked, 4, "the node table is asked once per run");
    for (size_t i = 0; i < sizeof (runs) / sizeof (runs[0]); i++) {
        is (jt_admit_verdict_str (admit (runs[i], &a)), "run", "%s: placeable", runs[i]);
        jt_admit_free (&a);
    }
    {   /* without the node table, slurmctld decides (as before) */
        jt_admit_cluster_t blind = cluster;
        job_t j;

        blind.nodes = NULL;
        job (&j, cases[0].spec);
        is (jt_admit_verdict_str (jt_admit (&j.req, conf, budgets, &blind, &a)), "run",
            "no node table: not checked");
        jt_admit_free (&a);
        job_free (&j);
    }
    nodes_asked = 0;
    admit ("A=nobody N=8 " G8 " JOBTREE_GROUP_GPUS=64", &a);
    admit ("A=team-a N=1 " G8, &a);
    is_int (nodes_asked, 0, "not asked for a refused run or a plain job");
}

/* Sub-node jobs are cons_tres's (DESIGN decision 2): refused with Jobtree
 * options, plain Slurm jobs under PlainGpuJobs=jobtree (test_policy). */
static void test_sub_node (void)
{
    static const struct refusal cases[] = {
        { "A=team-a N=1 G=gres:gpu:h100:1 JOBTREE_CROSS_GROUP_SPREAD=no",
          JT_ADMIT_BAD_GRES, "jobtree: a Jobtree run takes whole nodes: ask for all "
          "8 GPUs of each node, e.g. --gres=gpu:h100:8 (got 1 per node), or drop the "
          "Jobtree options to run on part of a node as a plain Slurm job" },
        { "A=team-a N=2 G=gres:gpu:h100:4 JOBTREE_CHECKPOINT=30m", JT_ADMIT_BAD_GRES,
          "jobtree: a Jobtree run takes whole nodes: ask for all 8 GPUs of each "
          "node, e.g. --gres=gpu:h100:8 (got 4 per node), or drop the Jobtree "
          "options to run on part of a node as a plain Slurm job" },
        { "A=team-a N=1 K=2 S=gres:gpu:h100:2 JOBTREE_SPARES=0", JT_ADMIT_BAD_GRES,
          "jobtree: a Jobtree run takes whole nodes: ask for all 8 GPUs of each "
          "node, e.g. --gres=gpu:h100:8 (got 4 per node), or drop the Jobtree "
          "options to run on part of a node as a plain Slurm job" },
        { "A=team-a J=gres:gpu:h100:1 JOBTREE_MALLEABLE=1:8", JT_ADMIT_BAD_GRES,
          "jobtree: a Jobtree run takes whole nodes: ask for a multiple of the 8 "
          "GPUs per h100 node, e.g. --gpus=h100:8 (got 1), or drop the Jobtree "
          "options to run on part of a node as a plain Slurm job" },
        { "A=team-a J=gres:gpu:h100:12 JOBTREE_BORROW=8", JT_ADMIT_BAD_GRES,
          "jobtree: a Jobtree run takes whole nodes: ask for a multiple of the 8 "
          "GPUs per h100 node, e.g. --gpus=h100:16 (got 12), or drop the Jobtree "
          "options to run on part of a node as a plain Slurm job" },
        /* more than a node has is not whole nodes either */
        { "A=team-a N=1 G=gres:gpu:h100:16 JOBTREE_SPARES=0", JT_ADMIT_BAD_GRES,
          "jobtree: a Jobtree run takes whole nodes: ask for all 8 GPUs of each "
          "node, e.g. --gres=gpu:h100:8 (got 16 per node), or drop the Jobtree "
          "options to run on part of a node as a plain Slurm job" },
    };
    jt_admit_t a;

    each_refused (cases, sizeof (cases) / sizeof (cases[0]));
    is (jt_admit_verdict_str (admit ("A=team-a N=1 G=gres:gpu:h100:1", &a)), "pass",
        "a 1-GPU job without options passes (PlainGpuJobs=passthrough)");
}

static void test_policy (void)
{
    jt_admit_t a;
    jt_diags_t d;
    const char *pass = "UnfundedPolicy=passthrough\n";
    const char *plain = "PlainGpuJobs=jobtree\nGpusPerNode=h100:4\n";

    jt_diags_init (&d);
    ok (jt_config_parse (conf, "test", pass, strlen (pass), &d) == 0,
        "UnfundedPolicy=passthrough");
    is (jt_admit_verdict_str (admit ("A=nobody N=1 " G8 " JOBTREE_GROUP_GPUS=8", &a)),
        "unfunded", "passthrough: an account without budget runs as plain Slurm");
    is (a.line, "jobtree: account nobody has no budget (no budget file names owner "
        "nobody); use --account=ACCOUNT", "with the line to log");
    ok (a.record == NULL && a.refusal == JT_ADMIT_NO_BUDGET, "no record");
    is (jt_admit_verdict_str (admit ("A=small N=2 " G8 " JOBTREE_GROUP_GPUS=16", &a)),
        "unfunded", "passthrough: a never fundable run too");
    is_int (a.refusal, JT_ADMIT_NEVER_FUNDABLE, "its kind");
    refused ("A=team-a N=2 " G8 " JOBTREE_GROUP_GPUS=12", JT_ADMIT_BAD_GRES,
             "jobtree: --group-gpus=12 is not a multiple of the 8 GPUs per h100 node, "
             "e.g. --group-gpus=16");
    {
        jt_budgets_t *keep = budgets;
        budgets = NULL;
        is (jt_admit_verdict_str (admit ("A=team-a N=1 " G8 " JOBTREE_SPARES=0", &a)),
            "unfunded", "passthrough: no budgets at all");
        budgets = keep;
    }
    conf->unfunded_policy = JT_UNFUNDED_REFUSE;
    {
        jt_budgets_t *keep = budgets;
        budgets = NULL;
        refused ("A=team-a N=1 " G8 " JOBTREE_SPARES=0", JT_ADMIT_NO_BUDGET,
                 "jobtree: no budgets are loaded (BudgetDir /etc/slurm/jobtree/budgets; "
                 "see the slurmctld log)");
        budgets = keep;
    }

    ok (jt_config_parse (conf, "test", plain, strlen (plain), &d) == 0,
        "PlainGpuJobs=jobtree, GpusPerNode=h100:4");
    node_gpus = 4;
    is (jt_admit_verdict_str (admit ("A=team-a N=1 G=gres:gpu:h100:4", &a)), "run",
        "PlainGpuJobs=jobtree: a plain GPU job is a run");
    {
        const char *want = "jobtree/1 {\"run\":{\"owner\":\"team-a\",\"resources\":"
                           "{\"gpuType\":\"h100\",\"totalGPUs\":4}},\"funding\":[";
        ok (a.record && strncmp (a.record, want, strlen (want)) == 0, "its record: %s",
            a.record ? a.record : "(none)");
    }
    jt_admit_free (&a);
    is (jt_admit_verdict_str (admit ("A=team-a", &a)), "pass",
        "PlainGpuJobs=jobtree: CPU jobs pass");
    is (jt_admit_verdict_str (admit ("A=team-a N=1 G=gres:gpu:h100:1", &a)), "pass",
        "PlainGpuJobs=jobtree: a sub-node job is plain Slurm (cons_tres's)");
    ok (a.record == NULL && a.line[0] == '\0', "no record, no line");
    is (jt_admit_verdict_str (admit ("A=team-a J=gres:gpu:h100:6", &a)), "pass",
        "PlainGpuJobs=jobtree: --gpus=h100:6 on 4-GPU nodes too");
    is (jt_admit_verdict_str (admit ("A=team-a N=2 G=gres:gpu:h100:4", &a)), "run",
        "PlainGpuJobs=jobtree: whole nodes are a run");
    jt_admit_free (&a);
    refused ("A=team-a N=1 G=gres:gpu:h100:1 JOBTREE_SPARES=0", JT_ADMIT_BAD_GRES,
             "jobtree: a Jobtree run takes whole nodes: ask for all 4 GPUs of each "
             "node, e.g. --gres=gpu:h100:4 (got 1 per node), or drop the Jobtree "
             "options to run on part of a node as a plain Slurm job");
    refused ("A=team-a N=2 G=gres:gpu:h100:4 JOBTREE_GROUP_GPUS=10", JT_ADMIT_BAD_GRES,
             "jobtree: --group-gpus=10 is not a multiple of the 4 GPUs per h100 node, "
             "e.g. --group-gpus=12");
    refused ("A=team-a N=2 " G8 " JOBTREE_GROUP_GPUS=8", JT_ADMIT_BAD_GRES,
             "jobtree: --group-gpus needs whole nodes: ask for all 4 GPUs of each "
             "node, e.g. --gres=gpu:h100:4 (got 8 per node)");
    jt_diags_free (&d);
}

int main (void)
{
    jt_diags_t d;

    if (jt_time_parse ("2026-03-01T12:00:00Z", &now, NULL) < 0)
        bail_out ("time");
    jt_diags_init (&d);
    budgets = jt_budgets_create ();
    for (size_t i = 0; i < sizeof (budget_docs) / sizeof (budget_docs[0]); i++)
        if (jt_budgets_add_json (budgets, "inline", budget_docs[i],
                                 strlen (budget_docs[i]), &d) < 0)
            bail_out ("budget %zu", i);
    if (jt_budgets_finalize (budgets, &d) < 0 || !(conf = jt_config_create ()))
        bail_out ("budgets");

    test_t1000_refusals ();
    test_more_refusals ();
    test_pass ();
    test_record ();
    test_spares ();
    test_never_placeable ();
    test_sub_node ();
    test_policy ();

    jt_config_destroy (conf);
    jt_budgets_destroy (budgets);
    jt_diags_free (&d);
    return done_testing ();
}
