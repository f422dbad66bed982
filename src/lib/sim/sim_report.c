/*
 * sim_report.c - the simulator's results (jobtree/sim.h): the per-job and
 * per-owner record the engine fills, the metrics (utilization, waits,
 * bounded slowdown, fairness against entitlement, splits, borrowing) and
 * their writers: a human table, CSV and JSON. Every number is printed with
 * a fixed format, so the same result is the same bytes.
 *
 * Percentiles are nearest-rank: p of n sorted values is the
 * ceil(p/100 x n)-th. Bounded slowdown uses a 10 s bound.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "sim_int.h"

#define BSLD_BOUND 10.0

jt_sim_result_t *jt_simx_result_create (const jt_sim_trace_t *t, const char *policy)
{
    jt_sim_result_t *r = calloc (1, sizeof (*r));
    size_t n = t->n + 1;

    if (!r)
        return NULL;
    snprintf (r->policy, sizeof (r->policy), "%s", policy);
    r->trace = t;
    r->njobs = t->n;
    r->start = calloc (n, sizeof (*r->start));
    r->end = calloc (n, sizeof (*r->end));
    r->gpus = calloc (n, sizeof (*r->gpus));
    r->state = calloc (n, sizeof (*r->state));
    r->is_run = calloc (n, sizeof (*r->is_run));
    r->split = calloc (n, sizeof (*r->split));
    r->domains = calloc (n, sizeof (*r->domains));
    r->units = calloc (n, sizeof (*r->units));
    r->units_top = calloc (n, sizeof (*r->units_top));
    r->owner = calloc (n, sizeof (*r->owner));
    r->why = calloc (n, sizeof (*r->why));
    r->preempted = calloc (n, sizeof (*r->preempted));
    r->shrunk = calloc (n, sizeof (*r->shrunk));
    r->dom = calloc (n, sizeof (*r->dom));
    if (!r->start || !r->end || !r->gpus || !r->state || !r->is_run || !r->split
        || !r->domains || !r->units || !r->units_top || !r->owner || !r->why || !r->preempted || !r->shrunk
        || !r->dom) {
        jt_sim_result_destroy (r);
        return NULL;
    }
    for (size_t j = 0; j < t->n; j++)
        r->dom[j] = -1;
    return r;
}

void jt_sim_result_destroy (jt_sim_result_t *r)
{
    if (!r)
        return;
    if (r->why)
        for (size_t j = 0; j < r->njobs; j++)
            free (r->why[j]);
    free (r->why);
    free (r->preempted);
    free (r->shrunk);
    free (r->dom);
    for (size_t d = 0; r->dom_names && d < r->ndom_names; d++)
        free (r->dom_names[d]);
    free (r->dom_names);
    free (r->start);
    free (r->end);
    free (r->gpus);
    free (r->state);
    free (r->is_run);
    free (r->split);
    free (r->domains);
    free (r->units);
    free (r->units_top);
    free (r->owner);
    free (r->owners);
    free (r->samples);
    free (r);
}

int jt_simx_sample_push (jt_sim_result_t *r, const sim_sample_t *s)
{
    if (r->nsamples == r->samples_cap) {
        size_t nc = r->samples_cap ? r->samples_cap * 2 : 256;
        sim_sample_t *v = realloc (r->samples, nc * sizeof (*v));
        if (!v)
            return -1;
        r->samples = v;
        r->samples_cap = nc;
    }
    r->samples[r->nsamples++] = *s;
    return 0;
}

const char *jt_sim_result_policy (const jt_sim_result_t *r)
{
    return r->policy;
}

static int cmp_i64 (const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

typedef struct waits {
    size_t n;
    double mean, p50, p95, max;
} waits_t;

/* Wait statistics of the started jobs of owner o (SIZE_MAX: all). */
static void waits_of (const jt_sim_result_t *r, size_t o, int64_t *buf, waits_t *w)
{
    double sum = 0;

    memset (w, 0, sizeof (*w));
    for (size_t j = 0; j < r->njobs; j++)
        if (r->start[j] >= 0 && (o == SIZE_MAX || r->owner[j] == o))
            buf[w->n++] = r->start[j] - r->trace->jobs[j].submit;
    if (!w->n)
        return;
    qsort (buf, w->n, sizeof (*buf), cmp_i64);
    for (size_t i = 0; i < w->n; i++)
        sum += (double) buf[i];
    w->mean = sum / (double) w->n;
    w->p50 = (double) buf[(w->n * 50 + 99) / 100 - 1];
    w->p95 = (double) buf[(w->n * 95 + 99) / 100 - 1];
    w->max = (double) buf[w->n - 1];
}

static double gpu_s_total (const jt_sim_result_t *r)
{
    double s = 0;
    for (size_t o = 0; o < r->nowners; o++)
        s += r->owners[o].gpu_s;
    return s;
}

static int64_t entitled_total (const jt_sim_result_t *r)
{
    int64_t s = 0;
    for (size_t o = 0; o < r->nowners; o++)
        s += r->owners[o].entitled;
    return s;
}

void jt_sim_summarize (const jt_sim_result_t *r, jt_sim_summary_t *out)
{
    int64_t first = INT64_MAX, last = INT64_MIN;
    double work = 0, bsld = 0, used = gpu_s_total (r);
    int64_t ent = entitled_total (r);
    double jx = 0, jx2 = 0;
    size_t jn = 0;
    int64_t *buf = calloc (r->njobs + 1, sizeof (*buf));
    waits_t w;

    memset (out, 0, sizeof (*out));
    out->jobs = r->njobs;
    out->passes = r->passes;
    out->answers = r->answers;
    out->preemptions = r->preemptions;
    out->gpus_evicted = r->gpus_evicted;
    out->runs_shrunk = r->runs_shrunk;
    out->spares_dropped = r->spares_dropped;
    out->gpus_cut = r->gpus_cut;
    /* attempts that gave way ran too, and what cuts took ran until then */
    work = r->evicted_gpu_s + r->cut_gpu_s;
    for (size_t j = 0; j < r->njobs; j++) {
        const jt_sim_job_t *job = &r->trace->jobs[j];
        if (job->submit < first)
            first = job->submit;
        out->runs += r->is_run[j];
        out->groups_split += r->split[j];
        if (r->start[j] < 0) {
            out->never_started++;
            continue;
        }
        int64_t rt = r->end[j] - r->start[j], wt = r->start[j] - job->submit;
        out->started++;
        if (r->domains[j] > 1) {
            out->multi_domain++;
            out->over_units += r->units[j] > 1;
            out->over_top += r->units_top[j] > 1;
            out->wait_multi += (double) wt;
        }
        if (r->end[j] > last)
            last = r->end[j];
        work += (double) r->gpus[j] * (double) rt;
        double s = ((double) wt + (double) rt)
                   / ((double) rt > BSLD_BOUND ? (double) rt : BSLD_BOUND);
        bsld += s > 1 ? s : 1;
    }
    if (out->multi_domain)
        out->wait_multi /= (double) out->multi_domain;
    if (out->started && last > first) {
        out->span = last - first;
        out->utilization = work / ((double) r->cluster_gpus * (double) out->span);
        out->bounded_slowdown = bsld / (double) out->started;
    }
    if (buf) {
        waits_of (r, SIZE_MAX, buf, &w);
        out->wait_mean = w.mean;
        out->wait_p50 = w.p50;
        out->wait_p95 = w.p95;
        out->wait_max = w.max;
        free (buf);
    }
    for (size_t o = 0; o < r->nowners; o++) {
        out->borrowed_gpu_hours += r->owners[o].borrowed_gpu_s / 3600.;
        out->lent_gpu_hours += r->owners[o].lent_gpu_s / 3600.;
        if (r->owners[o].entitled > 0 && used > 0 && ent > 0) {
            double x = (r->owners[o].gpu_s / used)
                       / ((double) r->owners[o].entitled / (double) ent);
            jx += x;
            jx2 += x * x;
            jn++;
        }
    }
    out->jain = jn && jx2 > 0 ? jx * jx / ((double) jn * jx2) : 0;
}

/* ---- writers ---- */

static void hms (double s, char *buf, size_t len)
{
    int64_t v = (int64_t) (s + 0.5);
    if (v >= 86400)
        snprintf (buf, len, "%.1fd", (double) v / 86400.);
    else if (v >= 3600)
        snprintf (buf, len, "%.1fh", (double) v / 3600.);
    else if (v >= 60)
        snprintf (buf, len, "%.1fm", (double) v / 60.);
    else
        snprintf (buf, len, "%" PRId64 "s", v);
}

int jt_sim_print_table (FILE *f, jt_sim_result_t *const *r, size_t n)
{
    char a[32], b[32], c[32], d[32];
    int64_t *buf;

    fprintf (f, "%-24s %6s %8s %8s %8s %8s %7s %6s %5s %10s %10s %7s %7s %6s %6s\n",
             "policy", "util", "wait", "p50", "p95", "max", "bsld", "jain", "split",
             "borrowGPUh", "lentGPUh", "never", "preempt", "shrunk", "spares");
    for (size_t i = 0; i < n; i++) {
        jt_sim_summary_t s;
        jt_sim_summarize (r[i], &s);
        hms (s.wait_mean, a, sizeof (a));
        hms (s.wait_p50, b, sizeof (b));
        hms (s.wait_p95, c, sizeof (c));
        hms (s.wait_max, d, sizeof (d));
        fprintf (f, "%-24s %6.3f %8s %8s %8s %8s %7.2f %6.3f %5zu %10.0f %10.0f %7zu "
                 "%7zu %6zu %6zu\n", r[i]->policy, s.utilization, a, b, c, d,
                 s.bounded_slowdown, s.jain, s.groups_split, s.borrowed_gpu_hours,
                 s.lent_gpu_hours, s.never_started, s.preemptions, s.runs_shrunk,
                 s.spares_dropped);
    }
    if (n && r[0]->nlevels) {
        /* runs over several domains: how many also cross the levels above */
        fprintf (f, "\n%-24s %12s %10s %10s %10s\n", "policy", "multi-domain",
                 "over-low", "over-top", "wait");
        for (size_t i = 0; i < n; i++) {
            jt_sim_summary_t s;
            jt_sim_summarize (r[i], &s);
            hms (s.wait_multi, a, sizeof (a));
            fprintf (f, "%-24s %12zu %10zu %10zu %10s\n", r[i]->policy,
                     s.multi_domain, s.over_units, s.over_top, a);
        }
    }
    if (!n || !(buf = calloc (r[0]->njobs + 1, sizeof (*buf))))
        return ferror (f) ? -1 : 0;
    fprintf (f, "\nmean wait / p95 wait per owner (share of GPU-hours / entitled share)\n");
    fprintf (f, "%-16s", "owner");
    for (size_t i = 0; i < n; i++)
        fprintf (f, " %26.26s", r[i]->policy);
    fprintf (f, "\n");
    for (size_t o = 0; o < r[0]->nowners; o++) {
        fprintf (f, "%-16.16s", r[0]->owners[o].name);
        for (size_t i = 0; i < n; i++) {
            waits_t w;
            double used = gpu_s_total (r[i]);
            int64_t ent = entitled_total (r[i]);
            char cell[160];
            waits_of (r[i], o, buf, &w);
            hms (w.mean, a, sizeof (a));
            hms (w.p95, b, sizeof (b));
            snprintf (cell, sizeof (cell), "%s/%s (%.2f/%.2f)", a, b,
                      used > 0 ? r[i]->owners[o].gpu_s / used : 0.,
                      ent > 0 ? (double) r[i]->owners[o].entitled / (double) ent : 0.);
            fprintf (f, " %26s", cell);
        }
        fprintf (f, "\n");
    }
    free (buf);
    return ferror (f) ? -1 : 0;
}

/* A CSV field per RFC 4180: quoted (quotes doubled) when it holds a
 * comma, a quote or a line end ("best-fit,borrow"). */
static void csv_str (FILE *f, const char *s)
{
    if (!strpbrk (s, ",\"\r\n")) {
        fputs (s, f);
        return;
    }
    fputc ('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc ('"', f);
        fputc (*s, f);
    }
    fputc ('"', f);
}

int jt_sim_write_summary_csv (FILE *f, jt_sim_result_t *const *r, size_t n)
{
    fprintf (f, "policy,jobs,runs,started,never_started,utilization,wait_mean_s,"
             "wait_p50_s,wait_p95_s,wait_max_s,bounded_slowdown,jain,groups_split,"
             "borrowed_gpu_h,lent_gpu_h,preemptions,gpus_evicted,span_s,passes,"
             "answers,runs_shrunk,spares_dropped,gpus_cut\n");
    for (size_t i = 0; i < n; i++) {
        jt_sim_summary_t s;
        jt_sim_summarize (r[i], &s);
        csv_str (f, r[i]->policy);
        fprintf (f, ",%zu,%zu,%zu,%zu,%.6f,%.1f,%.0f,%.0f,%.0f,%.4f,%.6f,%zu,"
                 "%.3f,%.3f,%zu,%" PRId64 ",%" PRId64 ",%zu,%zu,%zu,%zu,%" PRId64 "\n",
                 s.jobs, s.runs,
                 s.started, s.never_started, s.utilization, s.wait_mean, s.wait_p50,
                 s.wait_p95, s.wait_max, s.bounded_slowdown, s.jain, s.groups_split,
                 s.borrowed_gpu_hours, s.lent_gpu_hours, s.preemptions, s.gpus_evicted,
                 s.span, s.passes, s.answers, s.runs_shrunk, s.spares_dropped,
                 s.gpus_cut);
    }
    return ferror (f) ? -1 : 0;
}

typedef struct owner_row {
    size_t jobs, started;
    double share, ent_share;
    waits_t w;
} owner_row_t;

static void owner_row (const jt_sim_result_t *r, size_t o, int64_t *buf,
                       owner_row_t *row)
{
    double used = gpu_s_total (r);
    int64_t ent = entitled_total (r);

    memset (row, 0, sizeof (*row));
    for (size_t j = 0; j < r->njobs; j++)
        if (r->owner[j] == o) {
            row->jobs++;
            row->started += r->start[j] >= 0;
        }
    row->share = used > 0 ? r->owners[o].gpu_s / used : 0;
    row->ent_share = ent > 0 ? (double) r->owners[o].entitled / (double) ent : 0;
    waits_of (r, o, buf, &row->w);
}

int jt_sim_write_owners_csv (FILE *f, jt_sim_result_t *const *r, size_t n)
{
    fprintf (f, "policy,owner,jobs,started,never_started,gpu_h,share,entitled_gpus,"
             "entitled_share,wait_mean_s,wait_p50_s,wait_p95_s,wait_max_s,"
             "borrowed_gpu_h,lent_gpu_h\n");
    for (size_t i = 0; i < n; i++) {
        int64_t *buf = calloc (r[i]->njobs + 1, sizeof (*buf));
        if (!buf)
            return -1;
        for (size_t o = 0; o < r[i]->nowners; o++) {
            const sim_owner_t *ow = &r[i]->owners[o];
            owner_row_t row;
            owner_row (r[i], o, buf, &row);
            csv_str (f, r[i]->policy);
            fputc (',', f);
            csv_str (f, ow->name);
            fprintf (f, ",%zu,%zu,%zu,%.3f,%.6f,%" PRId64 ",%.6f,%.1f,%.0f,"
                     "%.0f,%.0f,%.3f,%.3f\n", row.jobs,
                     row.started, row.jobs - row.started, ow->gpu_s / 3600.,
                     row.share, ow->entitled, row.ent_share, row.w.mean, row.w.p50,
                     row.w.p95, row.w.max, ow->borrowed_gpu_s / 3600.,
                     ow->lent_gpu_s / 3600.);
        }
        free (buf);
    }
    return ferror (f) ? -1 : 0;
}

static const char *state_str (uint8_t s)
{
    switch (s) {
    case SIM_PENDING:
        return "pending";
    case SIM_RUNNING:
        return "running";
    case SIM_DONE:
        return "done";
    default:
        return "refused";
    }
}

int jt_sim_write_jobs_csv (FILE *f, jt_sim_result_t *const *r, size_t n)
{
    fprintf (f, "policy,job,owner,submit_s,start_s,end_s,wait_s,gpus,run,domains,"
             "split,preempted,state,why,domain,shrunk\n");
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < r[i]->njobs; j++) {
            const jt_sim_job_t *job = &r[i]->trace->jobs[j];
            csv_str (f, r[i]->policy);
            fputc (',', f);
            csv_str (f, job->id);
            fputc (',', f);
            csv_str (f, job->owner);
            fprintf (f, ",%" PRId64 ",", job->submit);
            if (r[i]->start[j] >= 0)
                fprintf (f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",", r[i]->start[j],
                         r[i]->end[j], r[i]->start[j] - job->submit);
            else
                fprintf (f, ",,,");
            fprintf (f, "%" PRId64 ",%d,%u,%u,%u,%s,", r[i]->gpus[j], r[i]->is_run[j],
                     r[i]->domains[j], r[i]->split[j], r[i]->preempted[j],
                     state_str (r[i]->state[j]));
            if (r[i]->start[j] < 0 && r[i]->why[j])
                csv_str (f, r[i]->why[j]);
            fputc (',', f);
            if (r[i]->dom[j] >= 0 && (size_t) r[i]->dom[j] < r[i]->ndom_names)
                csv_str (f, r[i]->dom_names[r[i]->dom[j]]);
            fprintf (f, ",%u\n", r[i]->shrunk[j]);
        }
    return ferror (f) ? -1 : 0;
}

int jt_sim_write_timeline_csv (FILE *f, jt_sim_result_t *const *r, size_t n)
{
    fprintf (f, "policy,t_s,busy_gpus,utilization,queued,running,free_domains\n");
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < r[i]->nsamples; k++) {
            const sim_sample_t *s = &r[i]->samples[k];
            csv_str (f, r[i]->policy);
            fprintf (f, ",%" PRId64 ",%" PRId64 ",%.4f,%" PRId64 ",%" PRId64 ",%" PRId64
                     "\n", s->t, s->busy,
                     r[i]->cluster_gpus ? (double) s->busy / (double) r[i]->cluster_gpus
                                        : 0., s->queued, s->running, s->free_domains);
        }
    return ferror (f) ? -1 : 0;
}

/* A double rounded to `digits` decimals, as JSON (json-c keeps the text). */
static json_object *num (double v, int digits)
{
    char buf[64];
    snprintf (buf, sizeof (buf), "%.*f", digits, v);
    return json_object_new_double_s (v, buf);
}

static json_object *waits_json (const waits_t *w)
{
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "mean", num (w->mean, 1));
    json_object_object_add (o, "p50", num (w->p50, 0));
    json_object_object_add (o, "p95", num (w->p95, 0));
    json_object_object_add (o, "max", num (w->max, 0));
    return o;
}

int jt_sim_write_json (FILE *f, jt_sim_result_t *const *r, size_t n)
{
    json_object *top = json_object_new_object ();
    json_object *arr = json_object_new_array ();
    int rc = 0;

    json_object_object_add (top, "policies", arr);
    for (size_t i = 0; i < n; i++) {
        json_object *p = json_object_new_object (), *owners = json_object_new_array ();
        int64_t *buf = calloc (r[i]->njobs + 1, sizeof (*buf));
        jt_sim_summary_t s;
        waits_t w;

        if (!buf) {
            json_object_put (p);
            json_object_put (owners);
            rc = -1;
            break;
        }
        jt_sim_summarize (r[i], &s);
        waits_of (r[i], SIZE_MAX, buf, &w);
        json_object_object_add (p, "policy", json_object_new_string (r[i]->policy));
        json_object_object_add (p, "jobs", json_object_new_int64 ((int64_t) s.jobs));
        json_object_object_add (p, "runs", json_object_new_int64 ((int64_t) s.runs));
        json_object_object_add (p, "started", json_object_new_int64 ((int64_t) s.started));
        json_object_object_add (p, "neverStarted",
                                json_object_new_int64 ((int64_t) s.never_started));
        json_object_object_add (p, "utilization", num (s.utilization, 6));
        json_object_object_add (p, "waitSeconds", waits_json (&w));
        json_object_object_add (p, "boundedSlowdown", num (s.bounded_slowdown, 4));
        json_object_object_add (p, "jain", num (s.jain, 6));
        json_object_object_add (p, "groupsSplit",
                                json_object_new_int64 ((int64_t) s.groups_split));
        json_object_object_add (p, "borrowedGPUHours", num (s.borrowed_gpu_hours, 3));
        json_object_object_add (p, "lentGPUHours", num (s.lent_gpu_hours, 3));
        json_object_object_add (p, "preemptions",
                                json_object_new_int64 ((int64_t) s.preemptions));
        json_object_object_add (p, "gpusEvicted", json_object_new_int64 (s.gpus_evicted));
        json_object_object_add (p, "runsShrunk",
                                json_object_new_int64 ((int64_t) s.runs_shrunk));
        json_object_object_add (p, "sparesDropped",
                                json_object_new_int64 ((int64_t) s.spares_dropped));
        json_object_object_add (p, "gpusCut", json_object_new_int64 (s.gpus_cut));
        json_object_object_add (p, "spanSeconds", json_object_new_int64 (s.span));
        if (r[i]->nlevels) {
        json_object_object_add (p, "runsMultiDomain",
                                json_object_new_int64 ((int64_t) s.multi_domain));
        json_object_object_add (p, "runsOverLowLevel",
                                json_object_new_int64 ((int64_t) s.over_units));
        json_object_object_add (p, "runsOverTopLevel",
                                json_object_new_int64 ((int64_t) s.over_top));
        json_object_object_add (p, "waitMultiDomainMean",
                                json_object_new_double (s.wait_multi));
        }
        json_object_object_add (p, "clusterGPUs",
                                json_object_new_int64 (r[i]->cluster_gpus));
        for (size_t o = 0; o < r[i]->nowners; o++) {
            const sim_owner_t *ow = &r[i]->owners[o];
            json_object *x = json_object_new_object ();
            owner_row_t row;
            owner_row (r[i], o, buf, &row);
            json_object_object_add (x, "owner", json_object_new_string (ow->name));
            json_object_object_add (x, "jobs", json_object_new_int64 ((int64_t) row.jobs));
            json_object_object_add (x, "started",
                                    json_object_new_int64 ((int64_t) row.started));
            json_object_object_add (x, "gpuHours", num (ow->gpu_s / 3600., 3));
            json_object_object_add (x, "share", num (row.share, 6));
            json_object_object_add (x, "entitledGPUs", json_object_new_int64 (ow->entitled));
            json_object_object_add (x, "entitledShare", num (row.ent_share, 6));
            json_object_object_add (x, "waitSeconds", waits_json (&row.w));
            json_object_object_add (x, "borrowedGPUHours", num (ow->borrowed_gpu_s / 3600., 3));
            json_object_object_add (x, "lentGPUHours", num (ow->lent_gpu_s / 3600., 3));
            json_object_array_add (owners, x);
        }
        json_object_object_add (p, "owners", owners);
        json_object_array_add (arr, p);
        free (buf);
    }
    if (rc == 0) {
        fputs (json_object_to_json_string_ext (top, JSON_C_TO_STRING_PRETTY
                                               | JSON_C_TO_STRING_SPACED), f);
        fputc ('\n', f);
    }
    json_object_put (top);
    return rc < 0 || ferror (f) ? -1 : 0;
}
