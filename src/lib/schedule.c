/*
 * schedule.c - the scheduler's answer for one run at one instant, in the
 * three tenses of Slurm's job_test (see jobtree/schedule.h). It owns what
 * each tense means: which usage counts, how the caller's node set is
 * viewed, which refusals are final, the node range a malleable run may
 * bind, which nodes a bound plan runs on, and where a start is estimated.
 * Funding and placement themselves are jt_plan_run's. When funding frees
 * and the funding holds of runs reserved ahead are schedule_funding.c's,
 * the decision over time schedule_decide.c's, a requeued run's restart
 * schedule_restart.c's, the estimate to take schedule_rank.c's (shared
 * helpers: schedule_base.c, schedule_int.h).
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

#include "jobtree/conformance.h"
#include "jobtree/schedule.h"
#include "jobtree/constraint.h"
#include "jobtree/labels.h"
#include "jobtree/timeutil.h"
#include "schedule_int.h"
#include "util/strbuf.h"

const char *jt_tense_str (jt_tense_t t)
{
    switch (t) {
    case JT_TENSE_NOW:
        return "now";
    case JT_TENSE_EVER:
        return "ever";
    case JT_TENSE_ESTIMATE:
        return "estimate";
    }
    return "?";
}

const char *jt_answer_kind_str (jt_answer_kind_t k)
{
    switch (k) {
    case JT_ANSWER_BIND:
        return "bind";
    case JT_ANSWER_REFUSE:
        return "refuse";
    case JT_ANSWER_DEFER:
        return "defer";
    case JT_ANSWER_ESTIMATE:
        return "estimate";
    }
    return "?";
}

void jt_answer_free (jt_answer_t *a)
{
    if (!a)
        return;
    jt_plan_free (&a->plan);
    free (a->bind.nodes);
    for (size_t i = 0; i < a->ncands; i++)
        free (a->cands[i].nodes);
    free (a->cands);
    memset (a, 0, sizeof (*a));
}

/* Why the plan does not bind now, as users read it. */
static void say_plan (jt_answer_t *a, jt_answer_kind_t kind)
{
    const jt_plan_t *p = &a->plan;

    if (p->detail[0])
        jt_sched_say (a, kind, "jobtree: %s", p->detail);
    else
        jt_sched_say (a, kind, "jobtree: %s (%s)", jt_decision_str (p->decision),
             jt_reason_str (p->reason));
}

/* The snapshot as the tense sees it: nodes outside the caller's set are
 * busy; in EVER, nodes inside it are free and up. `keep` receives the live
 * values so view_restore can put them back. */
static void view_apply (jt_snapshot_t *s, const bool *eligible, bool idle,
                        node_live_t *keep)
{
    for (size_t k = 0; k < s->nnodes; k++) {
        jt_node_t *n = &s->nodes[k];

        keep[k] = (node_live_t){ n->used_gpus, n->state };
        if (!eligible[k])
            n->used_gpus = n->gpus;
        else if (idle) {
            n->used_gpus = 0;
            n->state = JT_NODE_UP;
        }
    }
}

static int cmp_size (const void *a, const void *b)
{
    size_t x = *(const size_t *) a, y = *(const size_t *) b;
    return (x > y) - (x < y);
}

static int cand_push (jt_answer_t *a, jt_node_set_t set, jt_error_t *err)
{
    jt_node_set_t *c = realloc (a->cands, (a->ncands + 1) * sizeof (*c));

    if (!c) {
        free (set.nodes);
        return jt_errprintf (err, "out of memory");
    }
    a->cands = c;
    a->cands[a->ncands++] = set;
    return 0;
}

static bool of_flavor (const jt_node_t *n, const char *flavor)
{
    return n->flavor && !strcmp (n->flavor, flavor);
}

/* May one of the plan's payers place a group on n (its selector matches
 * n's labels)? A plan without payers restricts nothing. */
static bool payable (const jt_plan_t *payers, const jt_node_t *n)
{
    for (size_t i = 0; i < payers->nsegs; i++)
        if (jt_labels_match (&payers->segs[i].env->selector, &n->labels))
            return true;
    return payers->nsegs == 0;
}

/* May the run use node n at all: its node constraints hold there, and it
 * has the group-by label (jobtree/pack.h: the nodes its pack view holds). */
static bool run_may_use (const jt_run_t *run, const jt_node_t *n)
{
    const char *by = jt_run_class_label (run);  /* group-by, or strict conformance */

    return jt_constraints_match (&run->constraints, &n->labels)
           && (!by || jt_labels_get (&n->labels, by));
}

/* The group-by value of node k (NULL without group-by). */
static const char *class_of (const jt_snapshot_t *s, const jt_run_t *run, size_t k)
{
    const char *by = jt_run_class_label (run);

    return by ? jt_labels_get (&s->nodes[k].labels, by) : NULL;
}

enum { LC_UNKNOWN = 0xff };

/* Of the run's flavor, payable by one of its payers and usable by the run
 * (its constraints and class label): by node n's label class, decided at
 * the first node of the class (lc[class]: LC_UNKNOWN, 0 or 1; NULL, or a
 * node without a class: decided for n). */
static bool class_may (unsigned char *lc, const jt_snapshot_t *s,
                       const jt_run_t *run, const jt_plan_t *payers,
                       const jt_node_t *n)
{
    bool may;

    if (lc && n->lclass < s->nlclasses && lc[n->lclass] != LC_UNKNOWN)
        return lc[n->lclass];
    may = of_flavor (n, run->flavor) && payable (payers, n) && run_may_use (run, n);
    if (lc && n->lclass < s->nlclasses)
        lc[n->lclass] = may;
    return may;
}

typedef struct class_ctx {
    const jt_snapshot_t *s;
    const jt_run_t *run;
} class_ctx_t;

static int by_class (const void *a, const void *b, void *arg)
{
    const class_ctx_t *x = arg;
    size_t i = *(const size_t *) a, j = *(const size_t *) b;
    int c = strcmp (class_of (x->s, x->run, i), class_of (x->s, x->run, j));

    return c ? c : (i > j) - (i < j);
}

/* ESTIMATE when Cover funds the run (now, or once funding frees: `payers`
 * is that plan) but Pack has no room now. Only nodes one of its payers
 * may use, and the run may use (its constraints, its group-by label),
 * count; with group-by a one-domain run gets one set per class (domain and
 * label value), in domain then value order. A run that must sit in one domain (one group, or
 * cross-group spread off) gets one node set per domain able to hold it
 * (its eligible up nodes of the flavor, enough GPUs and nodes), in domain
 * order. A run whose groups may spread gets one set over every eligible
 * domain node of its flavor (an estimate only; the start itself is always
 * Pack's, in NOW). */
static int estimate_sets (jt_answer_t *a, const jt_sched_request_t *req,
                          const jt_run_t *run, const jt_plan_t *payers,
                          jt_error_t *err)
{
    const jt_snapshot_t *s = req->snap;
    int gpn = jt_snapshot_gpus_per_node (s, run->flavor);
    int64_t need = run->malleable ? run->min_gpus : run->total_gpus;
    int64_t group = run->group_gpus > 0 && run->group_gpus < need
                        ? run->group_gpus : need;
    unsigned char *lc = NULL;
    bool whole;

    if (gpn <= 0 || need <= 0)
        return 0;
    /* --cross-group-spread=no:LEVEL: a set per unit of that level, its
     * groups each in one domain of it */
    ssize_t lv = run->spread_level && !run->cross_group_spread
                 && strcmp (run->spread_level, "domain") != 0
                 ? jt_level_index (s, run->spread_level) : -1;
    ssize_t in = lv >= 0 ? lv : !run->cross_group_spread || group >= need
                                ? JT_CONFINE_DOMAIN : JT_CONFINE_NONE;
    /* narrowed by topology/block's rule, on the run's nodes as Plan counts
     * them (its groups' nodes and their spares) */
    in = jt_confine_narrower (in, jt_pack_block_confine (s, jt_run_nodes (run, need, gpn)));
    lv = in >= 0 ? in : -1;
    whole = in == JT_CONFINE_DOMAIN;
    a->cand_nodes = (uint32_t) ((need + gpn - 1) / gpn);
    /* groups of whole nodes, all of one size: the free times can place
     * them a domain each (jt_answer_from_free) */
    if (!whole && group % gpn == 0 && need % group == 0)
        a->cand_group_nodes = (uint32_t) (group / gpn);
    a->cand_gpus = need;
    /* flavor, payers' selectors and the run's constraints depend on a
     * node's labels and flavor only: decided once per label class, not
     * once per node (string compares on every node of the cluster were
     * most of an estimate's cost at 16,384 nodes) */
    if (s->nlclasses && !(lc = malloc (s->nlclasses)))
        return jt_errprintf (err, "out of memory");
    if (lc)
        memset (lc, LC_UNKNOWN, s->nlclasses);
    for (size_t d = 0; whole && d < s->ndomains; d++) {
        const jt_domain_t *dom = &s->domains[d];
        jt_node_set_t set = { calloc (dom->nnodes ? dom->nnodes : 1,
                                      sizeof (size_t)), 0, (int) d };
        int64_t cap = 0;

        if (!set.nodes) {
            free (lc);
            return jt_errprintf (err, "out of memory");
        }
        for (size_t k = 0; k < dom->nnodes; k++) {
            const jt_node_t *n = &s->nodes[dom->nodes[k]];
            if (!req->eligible[dom->nodes[k]] || n->state != JT_NODE_UP
                || !class_may (lc, s, run, payers, n))
                continue;
            set.nodes[set.nnodes++] = dom->nodes[k];
        }
        if (jt_run_class_label (run) && set.nnodes) {
            class_ctx_t cx = { s, run };
            qsort_r (set.nodes, set.nnodes, sizeof (size_t), by_class, &cx);
        }
        /* split into classes (one without group-by), each a candidate */
        for (size_t i = 0, j; i < set.nnodes; i = j) {
            const char *v = class_of (s, run, set.nodes[i]);
            jt_node_set_t one = { NULL, 0, (int) d };
            for (j = i, cap = 0; j < set.nnodes
                 && (!v || !strcmp (v, class_of (s, run, set.nodes[j]))); j++)
                cap += s->nodes[set.nodes[j]].gpus;
            if (cap < need || j - i < a->cand_nodes)
                continue;
            if (!(one.nodes = malloc ((j - i) * sizeof (size_t)))) {
                free (set.nodes);
                free (lc);
                return jt_errprintf (err, "out of memory");
            }
            memcpy (one.nodes, set.nodes + i, (j - i) * sizeof (size_t));
            one.nnodes = j - i;
            if (jt_run_class_label (run))   /* ascending per set, as documented */
                qsort (one.nodes, one.nnodes, sizeof (size_t), cmp_size);
            if (cand_push (a, one, err) < 0) {
                free (set.nodes);
                free (lc);
                return -1;
            }
        }
        free (set.nodes);
    }
    for (size_t u = 0; lv >= 0 && u < jt_pack_level_nunits (s, (size_t) lv); u++) {
        jt_node_set_t set = { NULL, 0, -1 };
        size_t n = 0, one, nd;
        const size_t *ud = jt_pack_level_domains (s, (size_t) lv, u, &one, &nd);
        int64_t cap = 0;
        for (size_t i = 0; i < nd; i++)
            n += s->domains[ud[i]].nnodes;
        if (n < a->cand_nodes)
            continue;
        if (!(set.nodes = malloc (n * sizeof (size_t)))) {
            free (lc);
            return jt_errprintf (err, "out of memory");
        }
        for (size_t j = 0; j < nd; j++) {
            size_t d = ud[j];
            for (size_t k = 0; k < s->domains[d].nnodes; k++) {
                size_t i = s->domains[d].nodes[k];
                if (req->eligible[i] && s->nodes[i].state == JT_NODE_UP
                    && class_may (lc, s, run, payers, &s->nodes[i])) {
                    set.nodes[set.nnodes++] = i;
                    cap += s->nodes[i].gpus;
                }
            }
        }
        /* ascending, as every set's nodes are */
        qsort (set.nodes, set.nnodes, sizeof (size_t), cmp_size);
        if (cap < need || set.nnodes < a->cand_nodes) {
            free (set.nodes);
            continue;
        }
        if (cand_push (a, set, err) < 0) {
            free (lc);
            return -1;
        }
    }
    if (!whole && lv < 0) {
        jt_node_set_t set = { calloc (s->nnodes ? s->nnodes : 1,
                                      sizeof (size_t)), 0, -1 };
        if (!set.nodes) {
            free (lc);
            return jt_errprintf (err, "out of memory");
        }
        for (size_t k = 0; k < s->nnodes; k++)
            if (s->nodes[k].domain >= 0 && req->eligible[k]
                && class_may (lc, s, run, payers, &s->nodes[k]))
                set.nodes[set.nnodes++] = k;
        if (cand_push (a, set, err) < 0) {
            free (lc);
            return -1;
        }
    }
    free (lc);
    return 0;
}

int jt_sched_answer (const jt_sched_request_t *req, jt_answer_t *out,
                     jt_error_t *err)
{
    jt_snapshot_t *s = req->snap;
    node_live_t *keep = NULL;
    bool *seen = NULL;
    jt_plan_opts_t opts;
    jt_usage_t usage;
    jt_run_t run;
    int rc;

    memset (out, 0, sizeof (*out));
    if (!req->budgets || !s || !req->run || !req->run->flavor || !req->eligible)
        return jt_errprintf (err, "scheduling request without budgets, "
                             "snapshot, run flavor or node set");
    run = *req->run;    /* shallow: only the malleable bounds change */
    jt_sched_clamp_malleable (&run, s, req->min_nodes, req->max_nodes);
    if (req->tense == JT_TENSE_EVER) {
        char detail[JT_ERRMSG_MAX] = "";
        jt_reason_t r = jt_cover_ever_gpn (req->budgets, &run, req->now,
                                           jt_snapshot_gpus_per_node (s, run.flavor),
                                           detail, sizeof (detail));
        if (r != JT_OK) {
            jt_sched_say (out, JT_ANSWER_REFUSE, "jobtree: never fundable: %s",
                 detail[0] ? detail : jt_reason_str (r));
            out->plan.decision = JT_REJECT;
            out->plan.reason = r;
            snprintf (out->plan.detail, sizeof (out->plan.detail), "%.*s",
                      (int) sizeof (out->plan.detail) - 1, out->reason + 9);
            return 0;
        }
    }
    if (jt_sched_tense_usage (req, 0, &usage, err) < 0)
        return -1;
    keep = calloc (s->nnodes ? s->nnodes : 1, sizeof (*keep));
    seen = calloc (s->nnodes ? s->nnodes : 1, sizeof (*seen));
    if (!keep || !seen) {
        rc = jt_errprintf (err, "out of memory");
        goto out;
    }
    view_apply (s, req->eligible, req->tense == JT_TENSE_EVER, keep);
    /* Warm views follow the snapshot as this tense sees it (the caller's
     * nodes): not in EVER, where every node is idle. */
    opts = req->opts;
    if (req->tense == JT_TENSE_EVER
        || (opts.views && jt_pack_views_sync (opts.views, s, err) < 0))
        opts.views = NULL;
    rc = jt_plan_run (req->budgets, s, &usage, &run, req->now, &opts,
                      &out->plan, err);
    jt_sched_view_restore (s, keep);
    if (rc < 0)
        goto out;

    /* Funded now: the holds of runs reserved ahead may still keep it back
     * (then out is the refusal). */
    if (out->plan.decision == JT_BIND_NOW && req->tense != JT_TENSE_EVER
        && req->nholds) {
        int held;

        view_apply (s, req->eligible, true, keep);
        held = jt_sched_held_back (req, &run, out, err);
        jt_sched_view_restore (s, keep);
        if (held != 0) {        /* refused (out says why), or an error */
            rc = held < 0 ? -1 : 0;
            goto out;
        }
    }
    if (out->plan.decision == JT_BIND_NOW) {
        out->kind = JT_ANSWER_BIND;
        if ((rc = jt_sched_bind_nodes (out, s->nnodes, req->max_nodes, seen, err)) < 0)
            goto out;
        if (req->tense != JT_TENSE_EVER && out->bind.nnodes < req->min_nodes)
            jt_sched_say (out, JT_ANSWER_REFUSE, "jobtree: plan of %zu nodes is below "
                 "the job's minimum of %" PRIu32, out->bind.nnodes,
                 req->min_nodes);
        out->record = out->kind == JT_ANSWER_BIND && req->tense == JT_TENSE_NOW;
    } else if (req->tense == JT_TENSE_EVER) {
        /* Idle set, no usage: placement can make it never run; so can
         * concurrency, which jt_cover_ever checks for the run's own GPUs,
         * once its spare nodes are paid too (no usage counts here, so a
         * capacity refusal is final). */
        if (jt_sched_is_pack_reason (out->plan.reason))
            say_plan (out, JT_ANSWER_REFUSE);
        else if (out->plan.reason == JT_INSUFFICIENT_CAPACITY
                 && run.spares_per_group > 0)
            jt_sched_say (out, JT_ANSWER_REFUSE, "jobtree: never fundable with its "
                 "spares: %.*s", (int) sizeof (out->plan.detail) - 1,
                 out->plan.detail);
        else
            out->kind = JT_ANSWER_DEFER;
    } else if (req->tense == JT_TENSE_ESTIMATE
               && out->plan.decision == JT_PLAN_LATER
               && jt_sched_is_pack_reason (out->plan.reason)) {
        say_plan (out, JT_ANSWER_ESTIMATE);
        out->payer = jt_sched_first_payer (&out->plan);
        rc = estimate_sets (out, req, &run, &out->plan, err);
    } else if (req->tense == JT_TENSE_ESTIMATE
               && jt_sched_is_funding_reason (out->plan.reason)) {
        jt_plan_t later;
        int64_t when;
        int ends = 0;

        memset (&later, 0, sizeof (later));
        view_apply (s, req->eligible, true, keep);
        rc = jt_sched_funding_time (req, &run, NULL, &when, err);
        if (rc == 0 && when)
            rc = jt_sched_funded_at (req, &run, when, NULL, &later, err) < 0 ? -1 : 0;
        else if (rc == 0) {
            int64_t then;
            /* held by leases of unknown end: a wait, no estimate */
            ends = jt_sched_funded_unknown (req, &run, NULL, &then, NULL, err);
            rc = ends < 0 ? -1 : 0;
        }
        jt_sched_view_restore (s, keep);
        if (rc == 0 && when) {
            char t[40];
            size_t len;

            say_plan (out, JT_ANSWER_ESTIMATE);
            jt_time_format (when, t, sizeof (t));
            len = strlen (out->reason);
            snprintf (out->reason + len, sizeof (out->reason) - len,
                      "; funded from %s", t);
            out->not_before = when;
            out->payer = jt_sched_first_payer (&later);
            rc = estimate_sets (out, req, &run, &later, err);
        } else if (rc == 0) {
            say_plan (out, JT_ANSWER_REFUSE);
            if (ends > 0) {
                size_t len = strlen (out->reason);
                snprintf (out->reason + len, sizeof (out->reason) - len,
                          "; %s", JT_SCHED_UNKNOWN_ENDS);
            }
        }
        jt_plan_free (&later);
    } else {
        say_plan (out, JT_ANSWER_REFUSE);
        out->waits = req->tense == JT_TENSE_NOW
                     && (jt_sched_is_pack_reason (out->plan.reason)
                         || jt_sched_is_funding_reason (out->plan.reason));
    }
out:
    free (keep);
    free (seen);
    jt_usage_free (&usage);
    if (rc < 0)
        jt_answer_free (out);
    return rc;
}

size_t jt_answer_pick (const jt_answer_t *a, const int64_t *starts, int64_t *start)
{
    size_t best = a->ncands;

    for (size_t i = 0; i < a->ncands; i++)
        if (starts[i] >= 0 && (best == a->ncands || starts[i] < starts[best]))
            best = i;
    *start = best < a->ncands ? starts[best] : 0;
    if (best < a->ncands && *start < a->not_before)
        *start = a->not_before;
    return best;
}

bool jt_answer_keeps_line (const jt_answer_t *a, const char *current)
{
    return a->kind == JT_ANSWER_REFUSE && a->waits && current
           && !strncmp (current, "jobtree: reserved ", 18);
}

void jt_answer_reserved (const jt_answer_t *a, const jt_snapshot_t *s,
                         size_t cand, int64_t start, int64_t estimate,
                         char *buf, size_t len)
{
    const jt_node_set_t *set = cand < a->ncands ? &a->cands[cand] : NULL;
    const char *why = strncmp (a->reason, "jobtree: ", 9) ? a->reason
                                                           : a->reason + 9;
    char t[40], by[128] = "";

    if (start < a->not_before)
        start = a->not_before;
    jt_time_format (start, t, sizeof (t));
    if (estimate > start) {
        char e[40];
        jt_time_format (estimate, e, sizeof (e));
        snprintf (by, sizeof (by), "; by its activation at MaxWait, the runs "
                  "there giving way (else from %s)", e);
    }
    if (set && set->domain >= 0 && (size_t) set->domain < s->ndomains)
        snprintf (buf, len, "jobtree: reserved %" PRIu32 " nodes in %s from %s"
                  " (%s%s)", a->cand_nodes, s->domains[set->domain].name, t, why, by);
    else
        snprintf (buf, len, "jobtree: reserved %" PRIu32 " nodes from %s (%s%s)",
                  a->cand_nodes, t, why, by);
}

/* Whether the parenthesis opening at text[i] closes the clause: what
 * follows its match is the end, "; " or the enclosing ")" (an aside at
 * the clause's end, "run needs 16 (X's nodes have room); ..."), not more
 * of the clause ("group 0 (32 GPUs) fits no domain"). */
static bool aside_ends (const char *text, size_t i)
{
    int depth = 0;

    for (; text[i]; i++) {
        if (text[i] == '(')
            depth++;
        else if (text[i] == ')' && --depth == 0)
            return text[i + 1] == '\0' || text[i + 1] == ')'
                   || (text[i + 1] == ';' && text[i + 2] == ' ');
    }
    return true;
}

/* Length of text's first clause: up to the first "; " outside
 * parentheses, or an aside that ends it. */
static size_t first_clause (const char *text)
{
    int depth = 0;

    for (size_t i = 0; text[i]; i++) {
        if (depth == 0 && ((text[i] == ';' && text[i + 1] == ' ')
                           || (text[i] == ' ' && text[i + 1] == '('
                               && aside_ends (text, i + 1))))
            return i;
        if (text[i] == '(')
            depth++;
        else if (text[i] == ')' && depth > 0)
            depth--;
    }
    return strlen (text);
}

/* The brief's blocker is cut here (then "..."): with the reservation's
 * ~40 characters and the tag, the brief stays near 100. */
enum { BRIEF_BLOCKER_MAX = 72 };

void jt_reason_brief (const char *line, char *buf, size_t len)
{
    static const char tag[] = "jobtree: ", resv[] = "reserved ";
    const char *why = line, *where = NULL, *from = NULL;
    size_t n, where_len = 0;
    char when[24] = "";

    if (!buf || len == 0)
        return;
    buf[0] = '\0';
    if (!line || !*line)
        return;
    if (!strncmp (why, tag, sizeof (tag) - 1))
        why += sizeof (tag) - 1;
    /* jt_answer_reserved's form: "reserved N nodes [in D] from T (WHY)" */
    if (!strncmp (why, resv, sizeof (resv) - 1)) {
        const char *in = strstr (why, " nodes in "), *f = strstr (why, " from ");
        const char *open = f ? strstr (f, " (") : NULL;

        /* the time (RFC 3339, jt_time_format) right before the why; other
         * lines that start so (a restart's) are read as any line */
        if (f && open && open - (f + 6) == 20 && f[6 + 19] == 'Z') {
            if (in && in < f) {
                where = in + 10;
                where_len = (size_t) (f - where);
            }
            from = f + 6;
            snprintf (when, sizeof (when), "%.16sZ", from);  /* to the minute */
            why = open + 2;
        }
    }
    n = first_clause (why);
    if (from && n > 0 && why[n - 1] == ')' && why[n] == '\0')
        n--;            /* the reservation's closing parenthesis */
    if (n > BRIEF_BLOCKER_MAX) {
        size_t cut = BRIEF_BLOCKER_MAX - 3;     /* at a word, then "..." */
        while (cut > 0 && why[cut] != ' ')
            cut--;
        snprintf (buf, len, "%s%.*s...", tag,
                  (int) (cut ? cut : BRIEF_BLOCKER_MAX - 3), why);
    } else
        snprintf (buf, len, "%s%.*s", tag, (int) n, why);
    if (from) {
        size_t l = strlen (buf);
        if (where)
            snprintf (buf + l, len - l, "; reserved %.*s from %s",
                      (int) where_len, where, when);
        else
            snprintf (buf + l, len - l, "; reserved from %s", when);
    }
}

static void dump_set (jt_strbuf_t *b, const jt_node_set_t *set,
                      const jt_snapshot_t *s)
{
    for (size_t k = 0; k < set->nnodes; k++)
        jt_strbuf_printf (b, "%s%s", k ? " " : "", s->nodes[set->nodes[k]].name);
}

char *jt_answer_dump (const jt_answer_t *a, const jt_snapshot_t *s)
{
    jt_strbuf_t b = JT_STRBUF_INIT;

    switch (a->kind) {
    case JT_ANSWER_BIND:
        jt_strbuf_printf (&b, "bind[");
        dump_set (&b, &a->bind, s);
        jt_strbuf_printf (&b, "]%s", a->record ? " record" : "");
        break;
    case JT_ANSWER_REFUSE:
        jt_strbuf_printf (&b, "refuse: %s", a->reason);
        break;
    case JT_ANSWER_DEFER:
        jt_strbuf_printf (&b, "defer");
        break;
    case JT_ANSWER_ESTIMATE:
        jt_strbuf_printf (&b, "estimate %" PRIu32 " nodes", a->cand_nodes);
        if (a->not_before) {
            char t[40];
            jt_time_format (a->not_before, t, sizeof (t));
            jt_strbuf_printf (&b, " from %s", t);
        }
        for (size_t i = 0; i < a->ncands; i++) {
            jt_strbuf_printf (&b, " {");
            dump_set (&b, &a->cands[i], s);
            jt_strbuf_printf (&b, "}");
        }
        jt_strbuf_printf (&b, ": %s", a->reason);
        break;
    }
    return jt_strbuf_take (&b);
}
