/*
 * cmd_report.c - `jobtree report leases|runs|usage|reservations`: the sacct
 * of Jobtree, computed from the ledger alone (see jobtree-report(1)).
 *
 * DESIGN: one pass over the ledger (the shared reader) feeds the ledger's
 * one fold (jobtree/ledger.h), kept with its history: its lease and
 * reservation rows are the report's rows; nothing is folded here. Each
 * report is a list of rows with named fields, printed by one formatter with
 * sacct's habits (-o FIELD[%WIDTH], -p/-P, -n, --json), except that in
 * the table an identifier (lease, run, group, owner, envelope, reservation,
 * reasons) widens to its longest value unless -o gives its width: ids of
 * one run differ only at their end, and a cut would make them look alike
 * (sacct's '+' stays for the other columns and for given widths). Intervals are
 * clipped to [-S, -E); open leases run until --now, by default the current
 * time (never before the ledger's last instant): a live ledger's running
 * leases count up to now, and --now pins the instant for a reproducible
 * report. Hours are owned when the lease's owner owns the paying envelope,
 * else borrowed (a sponsor's loan, or family sharing: a sibling's or an
 * ancestor's envelope). Rows are sorted by total orders.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include <json-c/json.h>

#include "cli.h"
#include "report.h"
#include "jobtree/ledger.h"
#include "jobtree/ledger_checkpoint.h"
#include "jobtree/timeutil.h"
#include "jobtree/map.h"

static int oom (void)
{
    fprintf (stderr, "jobtree report: out of memory\n");
    return JT_EXIT_FAIL;
}

/* ---- reading ---- */

/* Each event goes to the fold (its history makes the rows); an event that
 * does not parse stops the report. */
static int read_cb (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    struct ctx *c = arg;
    jt_error_t perr = { "" };
    jt_violation_t v;
    jt_event_t *ev = jt_record_event (rec, NULL, &perr); /* parsed ahead, or now */
    if (!ev)
        return jt_errprintf (err, "seq %" PRIu64 ": %s", rec->seq, perr.text);
    int rc = jt_ledger_fold_apply (c->fold, rec->seq, ev, &v, err);
    jt_event_destroy (ev);
    return rc < 0 ? -1 : 0;
}

/* Open leases run until --now, by default now: the current time, or the
 * last instant of the ledger (its latest event time, lease start or lease
 * end) when the clock is behind it. */
static int64_t now_base (const struct ctx *c)
{
    int64_t t = jt_ledger_fold_last_time (c->fold), wall = (int64_t) time (NULL);
    if (wall > t)
        t = wall;
    if (jt_ledger_fold_closed_until (c->fold) > t) /* a checkpoint's closed leases */
        t = jt_ledger_fold_closed_until (c->fold);
    return t;
}

static int64_t default_now (const struct ctx *c, const struct lrow *ls, size_t n)
{
    int64_t t = now_base (c);
    for (size_t i = 0; i < n; i++) {
        if (ls[i].l.start > t)
            t = ls[i].l.start;
        if (ls[i].l.end > t)
            t = ls[i].l.end;
    }
    return t;
}

/* ---- filters ---- */

/* Split s at commas in place into *out (malloc'd). Out of memory ends the
 * process: this is a command-line option, parsed once at startup. */
static size_t split (char *s, char ***out)
{
    size_t n = 0;
    char **v = NULL, *save = NULL;
    for (char *t = strtok_r (s, ",", &save); t; t = strtok_r (NULL, ",", &save)) {
        char **nv = realloc (v, (n + 1) * sizeof (*v));
        if (!nv) {
            fprintf (stderr, "jobtree report: out of memory\n");
            exit (JT_EXIT_USAGE);
        }
        v = nv;
        v[n++] = t;
    }
    *out = v;
    return n;
}

static bool in_list (char **v, size_t n, const char *s)
{
    if (n == 0)
        return true;
    for (size_t i = 0; i < n; i++)
        if (!strcmp (v[i], s))
            return true;
    return false;
}

static bool job_match (const struct ctx *c, const char *run)
{
    if (c->njobs == 0)
        return true;
    const char *colon = strrchr (run, ':');
    for (size_t i = 0; i < c->njobs; i++)
        if (!strcmp (c->jobs[i], run) || (colon && !strcmp (c->jobs[i], colon + 1)))
            return true;
    return false;
}

/* Lease clipped to the range; false if outside it or filtered. */
static bool lease_in (const struct ctx *c, const jt_fold_lease_t *l, int64_t *s,
                      int64_t *e)
{
    int64_t end = l->end >= 0 ? l->end : (c->now < c->E ? c->now : c->E);
    *s = l->start > c->S ? l->start : c->S;
    *e = end < c->E ? end : c->E;
    if (*e < *s)
        return false;
    /* An empty slice counts only for a lease that is itself empty, or still
     * open (it started at the ledger's last instant and is running now). */
    if (*e == *s && l->start != l->end && !(l->end < 0 && l->start < c->E))
        return false;
    return in_list (c->owners, c->nowners, l->owner) && job_match (c, l->run)
           && in_list (c->envs, c->nenvs, l->envelope);
}

/* ---- aggregation ---- */

static int cmp_lrow (const void *a, const void *b)
{
    const jt_fold_lease_t *x = &(*(struct lrow *const *) a)->l;
    const jt_fold_lease_t *y = &(*(struct lrow *const *) b)->l;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return strcmp (x->lease, y->lease);
}

static int cmp_urow (const void *a, const void *b)
{
    const struct urow *x = *(void *const *) a, *y = *(void *const *) b;
    int c = strcmp (x->key1, y->key1);
    return c ? c : strcmp (x->key2, y->key2);
}

struct edge {
    int64_t t;
    int64_t d;
};

static int cmp_edge (const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->d < y->d ? -1 : x->d > y->d; /* ends first: half-open */
}

/* Peak of the sum of GPUs of the given leases (clipped) over time; -1 on
 * ENOMEM. */
static int64_t peak (struct lrow *const *ls, size_t n, const struct ctx *c)
{
    struct edge *e = malloc ((2 * n + 1) * sizeof (*e));
    size_t k = 0;
    int64_t cur = 0, best = 0;
    if (!e)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int64_t s, en;
        lease_in (c, &ls[i]->l, &s, &en);
        /* An open lease clipped at now is running at now: the instant
         * counts (half-open, a lease started at now would vanish). */
        if (ls[i]->l.end < 0 && en == c->now && c->now < c->E)
            en++;
        if (en <= s)
            continue;
        e[k++] = (struct edge){ s, ls[i]->l.gpus };
        e[k++] = (struct edge){ en, -ls[i]->l.gpus };
    }
    qsort (e, k, sizeof (*e), cmp_edge);
    for (size_t i = 0; i < k; i++) {
        cur += e[i].d;
        if (cur > best)
            best = cur;
    }
    free (e);
    return best;
}

/* A row of runs/usage and the leases it sums. */
struct ugroup {
    struct urow u;
    struct lrow **members;
    size_t nmembers;
};

static void ugroup_free (void *p)
{
    struct ugroup *g = p;
    if (!g)
        return;
    free (g->u.key1);
    free (g->u.key2);
    free (g->members);
    free (g);
}

static struct ugroup *ugroup_new (struct ctx *c, const jt_fold_lease_t *l, bool by_run,
                                  size_t n)
{
    struct ugroup *g = calloc (1, sizeof (*g));
    jt_fold_envelope_t env;
    if (!g || !(g->u.key1 = strdup (by_run ? l->run : l->owner))
        || !(g->u.key2 = strdup (by_run ? l->owner : l->envelope))
        || !(g->members = calloc (n, sizeof (*g->members)))) {
        ugroup_free (g);
        return NULL;
    }
    if (!by_run && jt_ledger_fold_envelope (c->fold, l->envelope, 0, &env) == 0)
        g->u.sponsor = env.owner;
    g->u.start = l->start;
    g->u.end = l->end;
    return g;
}

/* Did the lease's owner borrow it: is it paid by an envelope another owner
 * owns (a sponsor's loan, role Borrowed; or family sharing, a sibling's or
 * an ancestor's envelope, role Active or Spare)? The envelope's owner is
 * the last BudgetLoaded's; without one, the role decides. */
static bool borrowed (const struct ctx *c, const jt_fold_lease_t *l)
{
    jt_fold_envelope_t env;

    if (jt_ledger_fold_envelope (c->fold, l->envelope, 0, &env) == 0 && env.owner)
        return strcmp (env.owner, l->owner) != 0;
    return l->role == JT_ROLE_BORROWED;
}

static void ugroup_add (const struct ctx *c, struct ugroup *g, struct lrow *row)
{
    struct urow *u = &g->u;
    const jt_fold_lease_t *l = &row->l;
    const char *reason = jt_end_reason_str (l->reason);

    g->members[g->nmembers++] = row;
    u->leases++;
    u->gpus += l->gpus;
    if (borrowed (c, l))
        u->borrowed += row->gpu_s;
    else
        u->owned += row->gpu_s;
    if (l->start < u->start)
        u->start = l->start;
    if (u->end >= 0 && (l->end < 0 || l->end > u->end))
        u->end = l->end;
    if (l->end >= 0 && !strstr (u->reasons, reason)) {
        size_t len = strlen (u->reasons);
        snprintf (u->reasons + len, sizeof (u->reasons) - len, "%s%s", len ? "+" : "",
                  reason);
    }
}

/* Group leases by a key (run, or owner+envelope) into rows sorted by key
 * (*out malloc'd, pointing into *groups, which the caller destroys with
 * ugroup_free). Returns the count, or -1 on ENOMEM. */
static ssize_t group (struct ctx *c, struct lrow *const *ls, size_t n, bool by_run,
                      jt_map_t **groups, struct urow ***out)
{
    jt_map_t *m = jt_map_create (0);
    const char **keys = NULL;
    struct urow **v = NULL;
    size_t nk = 0;

    *groups = m;
    *out = NULL;
    if (!m)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const jt_fold_lease_t *l = &ls[i]->l;
        char key[1024];
        snprintf (key, sizeof (key), "%s\x1f%s", by_run ? l->run : l->owner,
                  by_run ? "" : l->envelope);
        struct ugroup *g = jt_map_get (m, key);
        if (!g) {
            if (!(g = ugroup_new (c, l, by_run, n)))
                return -1;
            if (jt_map_put (m, key, g, NULL) < 0) {
                ugroup_free (g);
                return -1;
            }
        }
        ugroup_add (c, g, ls[i]);
    }
    keys = jt_map_sorted_keys (m, &nk);
    if ((nk == 0 && jt_map_count (m) > 0) || !(v = calloc (nk ? nk : 1, sizeof (*v)))) {
        free (keys);
        return -1;
    }
    for (size_t i = 0; i < nk; i++) {
        struct ugroup *g = jt_map_get (m, keys[i]);
        if ((g->u.peak = peak (g->members, g->nmembers, c)) < 0) {
            free (keys);
            free (v);
            return -1;
        }
        v[i] = &g->u;
    }
    free (keys);
    qsort (v, nk, sizeof (*v), cmp_urow);
    *out = v;
    return (ssize_t) nk;
}

/* ---- an all-time usage report from the fold's totals ---- */

/* Open leases run until --now, by default now, for a fold without history:
 * default_now over its open leases (those closed end by closedUntil). */
static int64_t totals_now (const struct ctx *c, const jt_fold_lease_t *open, size_t n)
{
    int64_t t = now_base (c);
    for (size_t i = 0; i < n; i++)
        if (open[i].start > t)
            t = open[i].start;
    return t;
}

/* The usage rows of a window holding every lease of f (from before the
 * first start to after --now, which is after every lease's instants), from
 * f's totals per owner and envelope (closed leases, peak) and its open
 * leases: 1 with *out (ntot rows, keys owned by f), 0 when f cannot answer
 * (no totals, a group whose Starts and Ends were not in time order, a
 * window that cuts a lease), -1 on ENOMEM. Sets c->now when it answers. */
static int totals (struct ctx *c, jt_ledger_fold_t *f, struct urow **out, size_t *ntot)
{
    jt_ledger_fold_t *keep = c->fold;
    jt_fold_usage_t *us = NULL;
    jt_fold_lease_t *open = NULL;
    jt_map_t *idx = NULL;
    size_t nu = 0, no = 0;
    int rc = 0;

    *out = NULL;
    *ntot = 0;
    c->fold = f; /* borrowed () and the envelopes ask it */
    if (jt_ledger_fold_usage (f, &us, &nu, NULL) < 0) {
        rc = errno == ENOMEM ? -1 : 0;
        goto out;
    }
    if (jt_ledger_fold_open_list (f, NULL, &open, &no, NULL) < 0) {
        rc = -1;
        goto out;
    }
    int64_t now = c->now >= 0 ? c->now : totals_now (c, open, no);
    int64_t first = jt_ledger_fold_first_start (f);
    if ((first >= 0 && c->S > first) || c->E <= now)
        goto out;
    for (size_t i = 0; i < nu; i++)
        if (!us[i].ordered || us[i].last > now)
            goto out;
    if (!(idx = jt_map_create (0)) || !(*out = calloc (nu ? nu : 1, sizeof (**out)))) {
        rc = -1;
        goto out;
    }
    for (size_t i = 0; i < nu; i++) {
        struct urow *r = &(*out)[*ntot];
        jt_fold_envelope_t env;
        char key[1024];
        if (!in_list (c->owners, c->nowners, us[i].owner)
            || !in_list (c->envs, c->nenvs, us[i].envelope))
            continue;
        *r = (struct urow){ .key1 = (char *) us[i].owner, .key2 = (char *) us[i].envelope,
                            .leases = us[i].leases, .peak = us[i].peak };
        bool has_owner = jt_ledger_fold_envelope (f, us[i].envelope, 0, &env) == 0;
        if (has_owner)
            r->sponsor = env.owner;
        if (has_owner && env.owner) { /* as borrowed (): the envelope's owner decides */
            if (strcmp (env.owner, us[i].owner))
                r->borrowed = us[i].gpu_s;
            else
                r->owned = us[i].gpu_s;
        } else {
            r->borrowed = us[i].borrowed_gpu_s;
            r->owned = us[i].gpu_s - us[i].borrowed_gpu_s;
        }
        snprintf (key, sizeof (key), "%s\x1f%s", us[i].owner, us[i].envelope);
        if (jt_map_put (idx, key, r, NULL) < 0) {
            rc = -1;
            goto out;
        }
        (*ntot)++;
    }
    for (size_t i = 0; i < no; i++) {
        char key[1024];
        snprintf (key, sizeof (key), "%s\x1f%s", open[i].owner, open[i].envelope);
        struct urow *r = jt_map_get (idx, key);
        if (!r)
            continue; /* filtered out */
        double s = (double) open[i].gpus * (double) (now - open[i].start);
        r->leases++;
        if (borrowed (c, &open[i]))
            r->borrowed += s;
        else
            r->owned += s;
    }
    c->now = now;
    rc = 1;
out:
    if (rc <= 0) {
        free (*out);
        *out = NULL;
        *ntot = 0;
    }
    c->fold = keep;
    jt_map_destroy (idx, NULL);
    free (us);
    free (open);
    return rc;
}

static void usage (FILE *f)
{
    fprintf (
        f, "Usage: jobtree report leases|runs|usage|reservations [OPTIONS] LEDGER...\n"
           "  -S, --starttime TIME   from TIME (RFC 3339 or epoch seconds)\n"
           "  -E, --endtime TIME     until TIME (default: no limit)\n"
           "      --now TIME         open leases run until TIME (default: now, or\n"
           "                         the ledger's last event if that is later)\n"
           "  -A, --accounts LIST    owners (comma-separated)\n"
           "  -j, --jobs LIST        runs: cluster:jobid or jobid\n"
           "      --envelope LIST    paying envelopes\n"
           "  -o, --format LIST      fields, each FIELD[%%WIDTH]\n"
           "  -p, --parsable         '|' after every field\n"
           "  -P, --parsable2        '|' between fields\n"
           "  -n, --noheader         no header\n"
           "      --json             JSON array of objects\n"
           "      --helpformat       list the fields of the report\n"
           "      --full-replay      read the whole ledger, not from a checkpoint\n"
           "  -v, --verbose          say on stderr where the report read from\n");
}

static int parse_time (const char *s, int64_t *out)
{
    jt_error_t err = { "" };
    char *end;
    long long v = strtoll (s, &end, 10);
    if (*s && !*end) {
        *out = v;
        return 0;
    }
    if (jt_time_parse (s, out, &err) < 0) {
        fprintf (stderr, "jobtree report: %s\n", err.text);
        return -1;
    }
    return 0;
}

int cmd_report (int argc, char **argv)
{
    static const char *const kinds[] = { "leases", "runs", "usage", "reservations" };
    enum { OPT_ENV = 256, OPT_JSON, OPT_HELPFMT, OPT_NOW, OPT_FULL };
    static const struct option opts[] = {
        { "starttime", required_argument, NULL, 'S' },
        { "endtime", required_argument, NULL, 'E' },
        { "accounts", required_argument, NULL, 'A' },
        { "jobs", required_argument, NULL, 'j' },
        { "envelope", required_argument, NULL, OPT_ENV },
        { "format", required_argument, NULL, 'o' },
        { "parsable", no_argument, NULL, 'p' },
        { "parsable2", no_argument, NULL, 'P' },
        { "noheader", no_argument, NULL, 'n' },
        { "json", no_argument, NULL, OPT_JSON },
        { "helpformat", no_argument, NULL, OPT_HELPFMT },
        { "now", required_argument, NULL, OPT_NOW },
        { "full-replay", no_argument, NULL, OPT_FULL },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct ctx c = { .S = INT64_MIN, .E = INT64_MAX, .now = -1 };
    const char *format = NULL;
    enum mode m = M_TABLE;
    bool header = true, helpfmt = false, full = false, verbose = false;
    char *owners = NULL, *jobs = NULL, *envs = NULL;
    int ch, rc = JT_EXIT_USAGE;
    size_t kind;

    if (argc < 2 || !strcmp (argv[1], "-h") || !strcmp (argv[1], "--help")) {
        usage (argc < 2 ? stderr : stdout);
        return argc < 2 ? JT_EXIT_USAGE : JT_EXIT_OK;
    }
    for (kind = 0; kind < REPORT_KINDS; kind++)
        if (!strcmp (argv[1], kinds[kind]))
            break;
    if (kind == REPORT_KINDS) {
        fprintf (stderr, "jobtree report: unknown report '%s'\n", argv[1]);
        usage (stderr);
        return JT_EXIT_USAGE;
    }
    argc--;
    argv++;
    optind = 1;
    while ((ch = getopt_long (argc, argv, "S:E:A:j:o:pPnvh", opts, NULL)) != -1) {
        switch (ch) {
        case 'S':
            if (parse_time (optarg, &c.S) < 0)
                return JT_EXIT_USAGE;
            break;
        case 'E':
            if (parse_time (optarg, &c.E) < 0)
                return JT_EXIT_USAGE;
            break;
        case 'A': owners = optarg; break;
        case 'j': jobs = optarg; break;
        case OPT_ENV: envs = optarg; break;
        case 'o': format = optarg; break;
        case 'p': m = M_PIPE; break;
        case 'P': m = M_PIPE_NOEND; break;
        case 'n': header = false; break;
        case OPT_JSON: m = M_JSON; break;
        case OPT_HELPFMT: helpfmt = true; break;
        case OPT_NOW:
            if (parse_time (optarg, &c.now) < 0)
                return JT_EXIT_USAGE;
            break;
        case OPT_FULL: full = true; break;
        case 'v': verbose = true; break;
        case 'h': usage (stdout); return JT_EXIT_OK;
        default: usage (stderr); return JT_EXIT_USAGE;
        }
    }
    const struct table *t = &report_tables[kind];
    if (helpfmt) {
        for (size_t f = 0; f < t->nfields; f++)
            printf ("%s%s", t->fields[f].name, f + 1 < t->nfields ? " " : "\n");
        return JT_EXIT_OK;
    }
    if (optind >= argc) {
        fprintf (stderr, "jobtree report: no ledger given\n");
        return JT_EXIT_USAGE;
    }
    struct col cols[64];
    size_t ncols;
    if (table_parse_format (t, format ? format : t->deflt, cols, &ncols) < 0)
        return JT_EXIT_USAGE;
    char *ob = owners ? strdup (owners) : NULL, *jb = jobs ? strdup (jobs) : NULL,
         *eb = envs ? strdup (envs) : NULL;
    jt_fold_lease_t *hist = NULL;
    jt_fold_reservation_t *rv = NULL;
    struct lrow *rows = NULL, **ls = NULL;
    jt_map_t *groups = NULL;
    struct urow **u = NULL;
    const void **rs = NULL;
    size_t nl = 0, n = 0, nr = 0, k = 0, ntot = 0;
    struct urow *tot = NULL;
    jt_ledger_result_t res;
    jt_error_t err = { "" };

    if ((owners && !ob) || (jobs && !jb) || (envs && !eb)
        || !(c.fold = jt_ledger_fold_create ())
        || jt_ledger_fold_keep_history (c.fold, &err) < 0) {
        rc = oom ();
        goto done;
    }
    c.nowners = ob ? split (ob, &c.owners) : 0;
    c.njobs = jb ? split (jb, &c.jobs) : 0;
    c.nenvs = eb ? split (eb, &c.envs) : 0;
    /* Where to read from: the checkpoint at or before the window (-S after
     * every lease, and for reservations every reservation, it closed), or
     * for an all-time usage report the last checkpoint's totals, else the
     * whole ledger. */
    enum { SRC_GENESIS, SRC_WINDOW, SRC_TOTALS } src = SRC_GENESIS;
    struct stat sb;
    bool one_dir = !full && argc - optind == 1 && stat (argv[optind], &sb) == 0
                   && S_ISDIR (sb.st_mode);
    jt_replay_info_t info;
    jt_violation_t v;
    uint64_t nv = 0;
    bool warned = false;
    memset (&info, 0, sizeof (info));
    if (one_dir && c.S != INT64_MIN) {
        jt_ledger_fold_t *f = NULL;
        int r = jt_ledger_fold_history_dir_ckpt (argv[optind], c.S,
                                                 kind == REPORT_RESERVATIONS ? JT_CKPT_HIST_RESV : 0, &f, &res,
                                                 &nv, &v, &info, &err);
        if (r > 0 && res.status == JT_LEDGER_OK && !nv) {
            jt_ledger_fold_destroy (c.fold);
            c.fold = f;
            f = NULL;
            src = SRC_WINDOW;
        } else if (r == 0 && info.refused) {
            fprintf (stderr, "jobtree report: warning: %s; reading the whole ledger\n",
                     info.why);
            warned = true;
        }
        jt_ledger_fold_destroy (f);
        err.text[0] = '\0';
    }
    if (src == SRC_GENESIS && one_dir && kind == REPORT_USAGE && c.njobs == 0) {
        jt_ledger_fold_t *f = jt_ledger_fold_replay_dir_ckpt (argv[optind], &res, &nv, &v,
                                                              &info, &err);
        if (f && res.status == JT_LEDGER_OK && !nv) {
            int r = totals (&c, f, &tot, &ntot);
            if (r < 0) {
                jt_ledger_fold_destroy (f);
                rc = oom ();
                goto done;
            }
            if (r > 0) {
                jt_ledger_fold_destroy (c.fold);
                c.fold = f;
                f = NULL;
                src = SRC_TOTALS;
            }
        }
        if (info.refused && !warned) /* the fold is not from a checkpoint */
            fprintf (stderr, "jobtree report: warning: %s; reading the whole ledger\n",
                     info.why);
        jt_ledger_fold_destroy (f);
        err.text[0] = '\0';
    }
    if (verbose && src == SRC_TOTALS && !info.ckpt_seq)
        fprintf (stderr, "jobtree report: the whole ledger's totals (%s)\n",
                 info.why[0] ? info.why : "no checkpoint");
    else if (verbose && src != SRC_GENESIS)
        fprintf (stderr,
                 "jobtree report: from the checkpoint at seq %" PRIu64 " (upTo %" PRIu64
                 ")%s: %" PRIu64 " records read, %" PRIu64 " folded\n",
                 info.ckpt_seq, info.up_to,
                 src == SRC_TOTALS ? " and its totals" : "", info.records_read,
                 info.records_folded);
    else if (verbose)
        fprintf (stderr, "jobtree report: the whole ledger (%s)\n",
                 full ? "--full-replay" : info.why[0] ? info.why : "no checkpoint serves");
    jt_ledger_pre_t pre; /* payloads parsed on the hash thread too */
    jt_ledger_pre_events (&pre, false);
    if (src == SRC_GENESIS
        && jt_ledger_read_pre ((const char *const *) argv + optind,
                               (size_t) (argc - optind), NULL, &pre, read_cb, &c, &res,
                               &err)
               < 0) {
        fprintf (stderr, "jobtree report: %s\n", err.text);
        goto done;
    }
    if (res.status != JT_LEDGER_OK && res.status != JT_LEDGER_EMPTY) {
        fprintf (stderr,
                 "jobtree report: ledger is %s at seq %" PRIu64 " (%s offset %" PRIu64
                 "): %s; run `jobtree verify`\n",
                 jt_ledger_status_str (res.status), res.bad_seq, res.bad_file,
                 res.bad_offset, res.msg);
        rc = JT_EXIT_FAIL;
        goto done;
    }
    if (src == SRC_TOTALS) {
        struct urow **tv = calloc (ntot ? ntot : 1, sizeof (*tv));
        if (!tv) {
            rc = oom ();
            goto done;
        }
        for (size_t i = 0; i < ntot; i++)
            tv[i] = &tot[i];
        qsort (tv, ntot, sizeof (*tv), cmp_urow);
        int pr = table_print_rows (t, cols, ncols, (const void *const *) tv, ntot, m, header);
        free (tv);
        rc = pr < 0 ? oom () : JT_EXIT_OK;
        goto done;
    }
    if (jt_ledger_fold_leases (c.fold, &hist, &nl, &err) < 0
        || !(rows = calloc (nl ? nl : 1, sizeof (*rows)))
        || !(ls = calloc (nl ? nl : 1, sizeof (*ls)))) {
        rc = oom ();
        goto done;
    }
    for (size_t i = 0; i < nl; i++)
        rows[i].l = hist[i];
    if (c.now < 0)
        c.now = default_now (&c, rows, nl);
    for (size_t i = 0; i < nl; i++) {
        int64_t s, e;
        if (!lease_in (&c, &rows[i].l, &s, &e))
            continue;
        rows[i].gpu_s = (double) rows[i].l.gpus * (double) (e - s);
        rows[i].hours = rows[i].gpu_s / 3600.0;
        ls[n++] = &rows[i];
    }
    if (kind == REPORT_LEASES) {
        qsort (ls, n, sizeof (*ls), cmp_lrow);
        if (table_print_rows (t, cols, ncols, (const void *const *) ls, n, m, header) < 0) {
            rc = oom ();
            goto done;
        }
    } else if (kind == REPORT_RUNS || kind == REPORT_USAGE) {
        ssize_t nu = group (&c, ls, n, kind == REPORT_RUNS, &groups, &u);
        if (nu < 0
            || table_print_rows (t, cols, ncols, (const void *const *) u, (size_t) nu, m,
                           header)
                   < 0) {
            rc = oom ();
            goto done;
        }
    } else {
        /* sorted by id by the fold */
        if (jt_ledger_fold_reservations (c.fold, &rv, &nr, &err) < 0
            || !(rs = calloc (nr ? nr : 1, sizeof (*rs)))) {
            rc = oom ();
            goto done;
        }
        for (size_t i = 0; i < nr; i++) {
            const jt_fold_reservation_t *r = &rv[i];
            /* in the window from its creation until it closed (activated,
             * released, or replaced by a newer one of its run), or now */
            int64_t end = r->closed >= 0 ? r->closed : c.now;
            if (end < c.S || r->created > c.E
                || !in_list (c.owners, c.nowners, r->owner) || !job_match (&c, r->run)
                || !in_list (c.envs, c.nenvs, r->envelope))
                continue;
            rs[k++] = r;
        }
        if (table_print_rows (t, cols, ncols, rs, k, m, header) < 0) {
            rc = oom ();
            goto done;
        }
    }
    rc = JT_EXIT_OK;
done:
    free (tot);
    free (u);
    jt_map_destroy (groups, ugroup_free);
    free (rs);
    free (rv);
    free (ls);
    free (rows);
    free (hist);
    jt_ledger_fold_destroy (c.fold);
    free (c.owners);
    free (c.jobs);
    free (c.envs);
    free (ob);
    free (jb);
    free (eb);
    return rc;
}
