/*
 * admit.c - admission of a job as a Jobtree run (see jobtree/admit.h): owns
 * the order of the rules, the refusal lines job_submit returns to sbatch,
 * UnfundedPolicy, and the record a run carries. The rules themselves live
 * with their concept: option values in options.c, GPU requests in gres.c,
 * well-formedness in run.c (jt_run_check, asked for the options' words),
 * fundability in cover.c, the record in record.c.
 *
 * DESIGN: the only rules written here are the ones about the request's
 * shape that a run cannot see: a Jobtree run takes whole nodes (DESIGN
 * decision 2; a sub-node job is cons_tres's: refused with Jobtree options,
 * passed as plain Slurm under PlainGpuJobs=jobtree). It is reported after
 * a problem of --group-gpus itself (the group size is the user's first
 * mistake to fix) and before every other problem of the run. And, last, a
 * run no placement could ever hold on the configured nodes is refused in
 * the scheduler's own words (jt_sched_answer's EVER tense, the question
 * slurmctld asks next), so the refusal says why at submission.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/admit.h"
#include "jobtree/conformance.h"
#include "jobtree/cover.h"
#include "jobtree/gres.h"
#include "jobtree/options.h"
#include "jobtree/record.h"
#include "jobtree/run.h"
#include "jobtree/schedule.h"
#include "run_int.h"

const char *jt_admit_verdict_str (jt_admit_verdict_t v)
{
    switch (v) {
    case JT_ADMIT_PASS:
        return "pass";
    case JT_ADMIT_RUN:
        return "run";
    case JT_ADMIT_UNFUNDED:
        return "unfunded";
    case JT_ADMIT_REFUSE:
        return "refuse";
    }
    return "?";
}

void jt_admit_free (jt_admit_t *out)
{
    if (!out)
        return;
    free (out->record);
    out->record = NULL;
}

/* Set out to a refusal with the line "jobtree: ..." and return REFUSE. */
static jt_admit_verdict_t refuse (jt_admit_t *out, jt_admit_refusal_t kind,
                                  const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
static jt_admit_verdict_t refuse (jt_admit_t *out, jt_admit_refusal_t kind,
                                  const char *fmt, ...)
{
    va_list ap;
    int n = snprintf (out->line, sizeof (out->line), "jobtree: ");

    va_start (ap, fmt);
    vsnprintf (out->line + n, sizeof (out->line) - (size_t) n, fmt, ap);
    va_end (ap);
    out->verdict = JT_ADMIT_REFUSE;
    out->refusal = kind;
    return out->verdict;
}

/* A run no envelope can fund: refused, or a plain Slurm job under
 * UnfundedPolicy=passthrough (gradual rollout). out->line is set. */
static jt_admit_verdict_t unfunded (jt_admit_t *out, const jt_config_t *conf,
                                    jt_admit_refusal_t kind)
{
    out->refusal = kind;
    out->verdict = conf && conf->unfunded_policy == JT_UNFUNDED_PASSTHROUGH
                   ? JT_ADMIT_UNFUNDED : JT_ADMIT_REFUSE;
    return out->verdict;
}

/* The GPU request: the first of the job's strings that has a GPU entry.
 * Returns 1 found (type, count, scope and the string set), 0 none, -1
 * malformed or out of range (*str is the offending string). */
static int gpu_request (const jt_admit_req_t *req, char *type, size_t len,
                        int64_t *count, jt_gres_scope_t *scope, const char **str)
{
    struct { const char *s; jt_gres_scope_t scope; } v[] = {
        { req->tres_per_job, JT_GRES_PER_JOB },
        { req->tres_per_node, JT_GRES_PER_NODE },
        { req->tres_per_socket, JT_GRES_PER_SOCKET },
    };

    for (size_t i = 0; i < sizeof (v) / sizeof (v[0]); i++) {
        int rc = jt_gres_gpu_req (v[i].s, type, len, count);
        if (rc != 0) {
            *scope = v[i].scope;
            *str = v[i].s;
            return rc;
        }
    }
    return 0;
}

/* GPUs per node of flavor: jobtree.conf's GpusPerNode, else the node table
 * (cluster). 0 when unknown or out of range. */
static int64_t gpus_per_node (const jt_config_t *conf,
                              const jt_admit_cluster_t *cl, const char *flavor)
{
    int64_t gpn = conf ? jt_config_gpus_per_node (conf, flavor) : 0;

    if (gpn <= 0 && cl && cl->gpus_per_node)
        gpn = cl->gpus_per_node (cl->arg, flavor);
    return gpn > 0 && gpn <= JT_GRES_COUNT_MAX ? gpn : 0;
}

/* The problems jt_run_check finds, for the choice of the one reported. */
struct problems {
    char group[512];            /* a problem of --group-gpus itself */
    char first_path[64];        /* the first problem of any other kind */
    char first[512];
};

static void collect (void *arg, const char *path, const char *msg)
{
    struct problems *p = arg;

    if (strcmp (path, "--group-gpus") == 0) {
        if (!p->group[0])
            snprintf (p->group, sizeof (p->group), "%s", msg);
    } else if (!p->first[0]) {
        snprintf (p->first_path, sizeof (p->first_path), "%s", path);
        snprintf (p->first, sizeof (p->first), "%s", msg);
    }
}

/* Owner, flavor, total and time limit of r from the request. 0 or -1 (ENOMEM). */
static int fill_run (jt_run_t *r, const jt_admit_req_t *req,
                     const jt_admit_cluster_t *cl, const char *flavor,
                     int64_t total)
{
    char acct[256] = "";

    if (req->account && req->account[0])
        snprintf (acct, sizeof (acct), "%s", req->account);
    else if (!cl || !cl->default_account
             || cl->default_account (cl->arg, acct, sizeof (acct)) < 0)
        acct[0] = '\0';
    free (r->owner);
    free (r->flavor);
    r->owner = strdup (acct);
    r->flavor = strdup (flavor);
    r->total_gpus = total;
    if (req->time_limit_min > 0)
        r->time_limit_s = req->time_limit_min * 60;   /* <= 2^32 * 60 */
    return r->owner && r->flavor ? 0 : -1;
}

/* The GPU request as asked: its scope, the count in that scope, and the
 * GPUs per node it gives (per-node and per-socket requests). */
struct request {
    jt_gres_scope_t scope;
    int64_t count;
    int64_t per_node;           /* 0 for a per-job request */
};

/* Whether the request takes whole nodes of gpn GPUs (see admit.h). */
static bool whole_nodes (const struct request *q, int64_t total, int64_t gpn)
{
    return q->scope == JT_GRES_PER_JOB ? total % gpn == 0 : q->per_node == gpn;
}

/* The run is well formed and on whole nodes: RUN's precondition. Returns
 * REFUSE (out set) or PASS when all is well. */
static jt_admit_verdict_t check_run (const jt_run_t *r, int64_t gpn,
                                     const struct request *q, jt_admit_t *out)
{
    struct problems p = { "", "", "" };
    bool whole = whole_nodes (q, r->total_gpus, gpn);

    jt_run_check (r, gpn, JT_RUN_WORDS_OPTIONS, collect, &p);
    if (p.group[0])
        return refuse (out, JT_ADMIT_BAD_GRES, "%s", p.group);
    if (!whole && r->group_gpus > 0 && q->scope != JT_GRES_PER_JOB)
        return refuse (out, JT_ADMIT_BAD_GRES, "--group-gpus needs whole nodes: ask "
                       "for all %" PRId64 " GPUs of each node, e.g. --gres=gpu:%s:%"
                       PRId64 " (got %" PRId64 " per node)", gpn, r->flavor, gpn,
                       q->per_node);
    if (!whole && q->scope != JT_GRES_PER_JOB)
        return refuse (out, JT_ADMIT_BAD_GRES, "a Jobtree run takes whole nodes: "
                       "ask for all %" PRId64 " GPUs of each node, e.g. "
                       "--gres=gpu:%s:%" PRId64 " (got %" PRId64 " per node), or "
                       "drop the Jobtree options to run on part of a node as a "
                       "plain Slurm job", gpn, r->flavor, gpn, q->per_node);
    if (!whole && r->group_gpus <= 0)   /* with groups: the run's own words */
        return refuse (out, JT_ADMIT_BAD_GRES, "a Jobtree run takes whole nodes: "
                       "ask for a multiple of the %" PRId64 " GPUs per %s node, "
                       "e.g. --gpus=%s:%" PRId64 " (got %" PRId64 "), or drop the "
                       "Jobtree options to run on part of a node as a plain Slurm "
                       "job", gpn, r->flavor, r->flavor,
                       (r->total_gpus / gpn + 1) * gpn, r->total_gpus);
    if (p.first[0] && strcmp (p.first_path, "--malleable") == 0)
        return refuse (out, JT_ADMIT_BAD_NODE_COUNT, "%s", p.first);
    if (p.first[0])
        return refuse (out, JT_ADMIT_BAD_GRES, "%s: %s", p.first_path, p.first);
    return JT_ADMIT_PASS;
}

/* Funding: a budget for the owner, some envelope some day, then the record
 * with the funding Cover intends on an idle cluster. */
static jt_admit_verdict_t fund (const jt_run_t *r, const jt_config_t *conf,
                                const jt_budgets_t *b, int64_t gpn, int64_t now,
                                jt_admit_t *out)
{
    char detail[JT_ERRMSG_MAX] = "";
    jt_groups_t groups = { NULL, 0, false, 0 };
    jt_usage_t usage;
    jt_cover_t cover;
    jt_error_t e;
    jt_reason_t reason;
    bool cover_ok = false;

    if (!b) {
        snprintf (out->line, sizeof (out->line), "jobtree: no budgets are loaded "
                  "(BudgetDir %s; see the slurmctld log)", conf ? conf->budget_dir : "?");
        return unfunded (out, conf, JT_ADMIT_NO_BUDGET);
    }
    if (!jt_budgets_owner (b, r->owner)) {
        snprintf (out->line, sizeof (out->line), "jobtree: account %s has no budget "
                  "(no budget file names owner %s); use --account=ACCOUNT", r->owner,
                  r->owner);
        return unfunded (out, conf, JT_ADMIT_NO_BUDGET);
    }
    reason = jt_cover_ever_gpn (b, r, now, gpn, detail, sizeof (detail));
    if (reason != JT_OK) {
        snprintf (out->line, sizeof (out->line), "jobtree: no envelope could ever "
                  "fund this run (%s): %s", jt_reason_str (reason), detail);
        return unfunded (out, conf, reason == JT_UNKNOWN_FLAVOR
                         ? JT_ADMIT_BAD_GRES_TYPE : JT_ADMIT_NEVER_FUNDABLE);
    }
    if (jt_run_compile (r, r->total_gpus, &groups, &e) < 0)
        return refuse (out, JT_ADMIT_BAD_GRES, "%s", e.text);
    groups.unit = gpn;          /* a soft group is paid by whole nodes */
    memset (&cover, 0, sizeof (cover));
    if (jt_usage_init (&usage, b) == 0) {
        if (jt_cover (b, &usage, r, &groups, now, &cover, &e) >= 0)
            cover_ok = true;
        jt_usage_free (&usage);
    }
    out->record = jt_jobrec_format (r, cover_ok ? &cover : NULL);
    snprintf (out->summary, sizeof (out->summary), "account %s: %" PRId64 " %s GPUs "
              "in %zu group(s), %" PRId64 " funded at submission (%s)", r->owner,
              r->total_gpus, r->flavor, groups.n, cover_ok ? cover.funded_gpus : 0,
              jt_reason_str (cover_ok ? cover.reason : JT_OK));
    if (cover_ok)
        jt_cover_free (&cover);
    jt_groups_free (&groups);
    if (!out->record)
        return refuse (out, JT_ADMIT_NO_MEMORY, "out of memory");
    out->verdict = JT_ADMIT_RUN;
    return out->verdict;
}

/* A run that passed every other rule and that no placement could ever hold
 * on the configured nodes, idle: refused (out set, the record dropped) in
 * the scheduler's words. Returns out->verdict. A problem of the node table
 * or the planner is not the job's: the run stays admitted and slurmctld's
 * own test decides. */
static jt_admit_verdict_t placeable (const jt_run_t *r, const jt_admit_req_t *req,
                                     int64_t nodes, const jt_config_t *conf,
                                     const jt_budgets_t *b,
                                     const jt_admit_cluster_t *cl, jt_admit_t *out)
{
    jt_snapshot_t *s;
    jt_sched_request_t q;
    jt_answer_t a;
    jt_error_t e;
    bool *el = NULL;

    if (!cl || !cl->nodes || !b || !(s = jt_snapshot_create ()))
        return out->verdict;
    s->time = req->now;
    if ((conf && jt_config_set_levels (conf, s, &e) < 0)
        || cl->nodes (cl->arg, s, conf ? jt_config_domain_key (conf) : NULL, &e) < 0
        || jt_snapshot_finalize (s, &e) < 0
        || !(el = malloc (s->nnodes ? s->nnodes : 1)))
        goto done;
    for (size_t i = 0; i < s->nnodes; i++)
        el[i] = true;
    /* The run's node labels first (--node-constraint, --group-by): a type
     * error or a label no node of the flavor has, in constraint.c's words,
     * naming the label, the values and the nodes. */
    char why[JT_ADMIT_LINE_MAX - 16];
    if (jt_constraints_vet (&r->constraints, jt_run_class_label (r), s, r->flavor, why,
                            sizeof (why)) != JT_VET_OK) {
        free (out->record);
        out->record = NULL;
        out->summary[0] = '\0';
        refuse (out, JT_ADMIT_NEVER_PLACEABLE, "%s", why);
        goto done;
    }
    q = (jt_sched_request_t){
        .budgets = b, .snap = s, .eligible = el, .run = r, .now = req->now,
        .tense = JT_TENSE_EVER, .min_nodes = (uint32_t) nodes,
        .max_nodes = JT_SCHED_NODES_ANY,
        .opts = { .policy = conf ? conf->pack_policy : JT_PACK_DEFAULT },
    };
    if (jt_sched_answer (&q, &a, &e) < 0)
        goto done;
    if (a.kind == JT_ANSWER_REFUSE) {
        free (out->record);
        out->record = NULL;
        out->summary[0] = '\0';
        if (a.plan.reason == JT_INSUFFICIENT_CAPACITY) {
            /* its own GPUs are fundable (jt_cover_ever above), not with
             * the spare nodes its payers pay too */
            snprintf (out->line, sizeof (out->line), "jobtree: no envelope "
                      "could ever fund this run with its spare nodes (%s): %s",
                      jt_reason_str (a.plan.reason), a.plan.detail);
            (void) unfunded (out, conf, JT_ADMIT_NEVER_FUNDABLE);
        } else
            refuse (out, JT_ADMIT_NEVER_PLACEABLE, "this cluster can never place "
                    "the run: %s", a.plan.detail[0] ? a.plan.detail : a.reason);
    }
    jt_answer_free (&a);
done:
    free (el);
    jt_snapshot_destroy (s);
    return out->verdict;
}

/* A run with spares: its node range with every group's spares added, and
 * no kill on node failure (jt_admit_t). Returns out->verdict. */
static jt_admit_verdict_t with_spares (const jt_run_t *r, int64_t gpn, jt_admit_t *out)
{
    int64_t hi = r->malleable ? r->max_gpus : r->total_gpus;
    jt_groups_t ghi;
    jt_error_t e;
    int64_t nodes;

    /* total <= JT_RUN_GPUS_MAX (check_run), spares <= JT_RUN_SPARES_MAX
     * (jt_run_check): no product below overflows */
    if (jt_run_compile (r, hi, &ghi, &e) < 0)
        return refuse (out, JT_ADMIT_BAD_GRES, "%s", e.text);
    out->spare_nodes = (int64_t) ghi.n * r->spares_per_group;
    nodes = (hi + gpn - 1) / gpn + out->spare_nodes;
    out->max_nodes = nodes;
    out->min_nodes = r->malleable ? 0 : nodes;
    out->no_kill = true;
    jt_groups_free (&ghi);
    if (nodes > JT_JOBREC_MAX_NODES) {
        free (out->record);
        out->record = NULL;
        out->summary[0] = '\0';
        return refuse (out, JT_ADMIT_BAD_NODE_COUNT, "the run with its spare nodes "
                       "needs %" PRId64 " nodes (at most %d); ask for fewer --spares",
                       nodes, JT_JOBREC_MAX_NODES);
    }
    snprintf (out->summary + strlen (out->summary),
              sizeof (out->summary) - strlen (out->summary),
              ", %" PRId64 " spare node(s): %" PRId64 " node(s), no kill on node failure",
              out->spare_nodes, nodes);
    return out->verdict;
}

jt_admit_verdict_t jt_admit (const jt_admit_req_t *req, const jt_config_t *conf,
                             const jt_budgets_t *budgets,
                             const jt_admit_cluster_t *cl, jt_admit_t *out)
{
    char type[128] = "";
    const char *gres = NULL;
    jt_gres_scope_t scope = JT_GRES_PER_NODE;
    int64_t count = 0, total = 0, gpn;
    int64_t nodes = req->min_nodes > 0 ? req->min_nodes : 1;
    struct request q;
    int nopts, gpu;
    jt_run_t *r;
    jt_error_t e;
    jt_admit_verdict_t v;

    memset (out, 0, sizeof (*out));
    if (!(r = jt_run_create ()))
        return refuse (out, JT_ADMIT_NO_MEMORY, "out of memory");
    nopts = jt_opts_from_env (r, req->env, req->nenv, &e);
    if (nopts < 0) {
        v = refuse (out, JT_ADMIT_BAD_GRES, "%s", e.text);
        goto done;
    }
    gpu = gpu_request (req, type, sizeof (type), &count, &scope, &gres);
    if (nopts == 0 && (gpu <= 0 || !conf || !conf->plain_gpu_jobs)) {
        v = out->verdict = JT_ADMIT_PASS;       /* not a Jobtree run */
        goto done;
    }
    if (gpu < 0) {
        v = refuse (out, JT_ADMIT_BAD_GRES, "cannot read the GPU request (%s): one "
                    "GPU type and a count of at most %" PRId64 ", e.g. "
                    "--gres=gpu:h100:8", gres ? gres : "?", (int64_t) JT_GRES_COUNT_MAX);
        goto done;
    }
    if (gpu == 0 || count <= 0) {
        v = refuse (out, JT_ADMIT_BAD_GRES, "Jobtree options need a GPU request, "
                    "e.g. --gres=gpu:h100:8 -N 4");
        goto done;
    }
    if (type[0] == '\0' && (!cl || !cl->only_flavor
                            || cl->only_flavor (cl->arg, type, sizeof (type)) < 0
                            || !memchr (type, '\0', sizeof (type)) || !type[0])) {
        v = refuse (out, JT_ADMIT_BAD_GRES_TYPE, "name the GPU type (the flavor), "
                    "e.g. --gres=gpu:h100:8");
        goto done;
    }
    if ((gpn = gpus_per_node (conf, cl, type)) <= 0) {
        v = refuse (out, JT_ADMIT_BAD_GRES_TYPE, "unknown GPU flavor %s: no node has "
                    "gres gpu:%s", type, type);
        goto done;
    }
    if (scope == JT_GRES_PER_SOCKET && req->sockets_per_node <= 0) {
        v = refuse (out, JT_ADMIT_BAD_GRES, "--gpus-per-socket needs "
                    "--sockets-per-node; ask per node instead, e.g. --gres=gpu:%s:%"
                    PRId64, type, gpn);
        goto done;
    }
    if (jt_gres_total (count, scope, nodes, scope == JT_GRES_PER_SOCKET
                       ? req->sockets_per_node : 0, &total) < 0) {
        v = refuse (out, JT_ADMIT_BAD_GRES, "the job asks for more than %" PRId64
                    " GPUs (%" PRId64 " GPUs x %" PRId64 " nodes); ask for what the "
                    "run needs, e.g. -N 4 --gres=gpu:%s:%" PRId64,
                    (int64_t) JT_RUN_GPUS_MAX, count, nodes, type, gpn);
        goto done;
    }
    if (req->time_limit_min > JT_ADMIT_TIME_LIMIT_MAX_MIN) {
        v = refuse (out, JT_ADMIT_BAD_GRES, "the time limit of %" PRId64 " minutes "
                    "is out of range", req->time_limit_min);
        goto done;
    }
    q.scope = scope;
    q.count = count;
    q.per_node = scope == JT_GRES_PER_NODE ? count
                 : scope == JT_GRES_PER_SOCKET ? count * req->sockets_per_node : 0;
    if (nopts == 0 && !whole_nodes (&q, total, gpn)) {
        v = out->verdict = JT_ADMIT_PASS;       /* sub-node: cons_tres's */
        goto done;
    }
    if (fill_run (r, req, cl, type, total) < 0) {
        v = refuse (out, JT_ADMIT_NO_MEMORY, "out of memory");
        goto done;
    }
    if ((v = check_run (r, gpn, &q, out)) != JT_ADMIT_PASS)
        goto done;
    if ((v = fund (r, conf, budgets, gpn, req->now, out)) == JT_ADMIT_RUN)
        v = placeable (r, req, nodes, conf, budgets, cl, out);
    if (v == JT_ADMIT_RUN && r->spares_per_group > 0)
        v = with_spares (r, gpn, out);
done:
    jt_run_destroy (r);
    return v;
}
