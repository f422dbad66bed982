/*
 * cmd_report.c - `jobtree report leases|runs|usage|reservations`: the sacct
 * of Jobtree, computed from the ledger alone (see jobtree-report(1)).
 *
 * DESIGN: one pass over the ledger (the shared reader) builds lease and
 * reservation rows; each report is a list of rows with named fields, printed
 * by one formatter with sacct's habits (-o FIELD[%WIDTH], -p/-P, -n,
 * --json). Intervals are clipped to [-S, -E); open leases run until --now,
 * by default the last event time in the ledger, so that the same ledger
 * always gives the same report. Rows are sorted by total orders.
 */
#include "config.h"
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "cli.h"
#include "jobtree/ledger.h"
#include "jobtree/timeutil.h"
#include "ledger_map.h"

struct lrow {
    char *lease, *run, *group, *owner, *envelope, *nodes, *reason;
    int64_t gpus, start, end; /* end -1: running */
    jt_lease_role_t role;
    uint64_t seed;
    double hours; /* clipped to the range */
};

struct rrow {
    char *res, *run, *owner, *envelope;
    int64_t gpus, earliest, created, activated, released;
};

struct urow { /* usage, runs */
    char *key1, *key2;
    const char *sponsor; /* usage: the envelope's owner (from caps) */
    double owned, borrowed;
    int64_t peak, gpus, start, end, leases;
    char reasons[128];
};

struct ctx {
    jt_map_t *leases, *res;
    jt_map_t *sponsors; /* envelope -> owner, from BudgetLoaded caps */
    int64_t last_time;
    int64_t S, E;
    int64_t now; /* open leases run until min(now, E) */
    char **owners, **jobs, **envs;
    size_t nowners, njobs, nenvs;
};

/* ---- reading ---- */

static char *join_nodes (const jt_event_t *ev)
{
    size_t len = 1;
    for (size_t i = 0; i < ev->nnodes; i++)
        len += strlen (ev->nodes[i]) + 1;
    char *s = calloc (1, len);
    for (size_t i = 0; s && i < ev->nnodes; i++) {
        if (i)
            strcat (s, ",");
        strcat (s, ev->nodes[i]);
    }
    return s;
}

static char *dup0 (const char *s)
{
    return strdup (s ? s : "");
}

static int read_cb (const jt_record_t *rec, void *arg, jt_error_t *err)
{
    struct ctx *c = arg;
    jt_error_t perr = { "" };
    jt_event_t *ev = jt_event_from_json (rec->payload, rec->len, &perr);
    if (!ev)
        return jt_errprintf (err, "seq %" PRIu64 ": %s", rec->seq, perr.text);
    if (ev->time > c->last_time)
        c->last_time = ev->time;
    for (size_t i = 0; ev->type == JT_EV_BUDGET_LOADED && i < ev->ncaps; i++) {
        char *old = jt_map_get (c->sponsors, ev->caps[i].envelope);
        char *o = strdup (ev->caps[i].owner);
        if (o && jt_map_put (c->sponsors, ev->caps[i].envelope, o, NULL) == 0)
            free (old);
        else
            free (o);
    }
    if (ev->type == JT_EV_START && !jt_map_get (c->leases, ev->lease)) {
        struct lrow *l = calloc (1, sizeof (*l));
        l->lease = dup0 (ev->lease);
        l->run = dup0 (ev->run);
        l->group = dup0 (ev->group);
        l->owner = dup0 (ev->owner);
        l->envelope = dup0 (ev->envelope);
        l->nodes = join_nodes (ev);
        l->reason = dup0 ("");
        l->gpus = ev->gpus;
        l->start = ev->start;
        l->end = -1;
        l->role = ev->role;
        jt_map_put (c->leases, l->lease, l, NULL);
        if (ev->start > c->last_time)
            c->last_time = ev->start;
    } else if (ev->type == JT_EV_END) {
        struct lrow *l = jt_map_get (c->leases, ev->lease);
        if (l && l->end < 0) {
            l->end = ev->end;
            free (l->reason);
            l->reason = dup0 (jt_end_reason_name (ev->reason));
            l->seed = ev->seed;
            if (ev->end > c->last_time)
                c->last_time = ev->end;
        }
    } else if (ev->type == JT_EV_RES_CREATE || ev->type == JT_EV_RES_ACTIVATE
               || ev->type == JT_EV_RES_RELEASED) {
        struct rrow *r = jt_map_get (c->res, ev->reservation);
        if (!r && ev->type == JT_EV_RES_CREATE) {
            r = calloc (1, sizeof (*r));
            r->res = dup0 (ev->reservation);
            r->run = dup0 (ev->run);
            r->owner = dup0 (ev->owner);
            r->envelope = dup0 (ev->envelope);
            r->gpus = ev->gpus;
            r->earliest = ev->start;
            r->created = ev->time;
            r->activated = r->released = -1;
            jt_map_put (c->res, r->res, r, NULL);
        } else if (r && ev->type == JT_EV_RES_ACTIVATE)
            r->activated = ev->time;
        else if (r)
            r->released = ev->time;
    }
    jt_event_destroy (ev);
    return 0;
}

static void lrow_free (void *p)
{
    struct lrow *l = p;
    free (l->lease);
    free (l->run);
    free (l->group);
    free (l->owner);
    free (l->envelope);
    free (l->nodes);
    free (l->reason);
    free (l);
}

static void rrow_free (void *p)
{
    struct rrow *r = p;
    free (r->res);
    free (r->run);
    free (r->owner);
    free (r->envelope);
    free (r);
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
static bool lease_in (const struct ctx *c, const struct lrow *l, int64_t *s, int64_t *e)
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

/* ---- output ---- */

enum kind { K_STR, K_NUM };
struct field {
    const char *name;
    int width;
    enum kind kind;
};

typedef void (*getter_f) (const void *row, int field, char *buf, size_t len);

struct table {
    const struct field *fields;
    size_t nfields;
    const char *deflt;
    getter_f get;
};

static void fmt_time (int64_t t, char *buf, size_t len)
{
    if (t < 0)
        snprintf (buf, len, "%s", "Unknown");
    else if (jt_time_format (t, buf, len) < 0)
        snprintf (buf, len, "%" PRId64, t);
}

static const struct field lease_fields[] = {
    { "Lease", 16, K_STR },    { "Run", 14, K_STR },      { "Group", 6, K_STR },
    { "Owner", 10, K_STR },    { "Envelope", 14, K_STR }, { "Role", 8, K_STR },
    { "GPUs", 6, K_NUM },      { "Nodes", 20, K_STR },    { "Start", 20, K_STR },
    { "End", 20, K_STR },      { "Reason", 16, K_STR },   { "Seed", 16, K_STR },
    { "GPUHours", 10, K_NUM },
};

static void lease_get (const void *row, int f, char *b, size_t n)
{
    const struct lrow *l = row;
    switch (f) {
    case 0: snprintf (b, n, "%s", l->lease); break;
    case 1: snprintf (b, n, "%s", l->run); break;
    case 2: snprintf (b, n, "%s", l->group); break;
    case 3: snprintf (b, n, "%s", l->owner); break;
    case 4: snprintf (b, n, "%s", l->envelope); break;
    case 5: snprintf (b, n, "%s", jt_lease_role_name (l->role)); break;
    case 6: snprintf (b, n, "%" PRId64, l->gpus); break;
    case 7: snprintf (b, n, "%s", l->nodes); break;
    case 8: fmt_time (l->start, b, n); break;
    case 9:
        if (l->end < 0)
            snprintf (b, n, "Running");
        else
            fmt_time (l->end, b, n);
        break;
    case 10: snprintf (b, n, "%s", l->end < 0 ? "" : l->reason); break;
    case 11:
        if (l->seed)
            snprintf (b, n, "%016" PRIx64, l->seed);
        else
            b[0] = '\0';
        break;
    default: snprintf (b, n, "%.2f", l->hours); break;
    }
}

static const struct field run_fields[] = {
    { "Run", 14, K_STR },
    { "Owner", 10, K_STR },
    { "Leases", 6, K_NUM },
    { "GPUs", 6, K_NUM },
    { "Start", 20, K_STR },
    { "End", 20, K_STR },
    { "Reasons", 16, K_STR },
    { "OwnedGPUHours", 13, K_NUM },
    { "BorrowedGPUHours", 16, K_NUM },
    { "GPUHours", 10, K_NUM },
};

static void run_get (const void *row, int f, char *b, size_t n)
{
    const struct urow *u = row;
    switch (f) {
    case 0: snprintf (b, n, "%s", u->key1); break;
    case 1: snprintf (b, n, "%s", u->key2); break;
    case 2: snprintf (b, n, "%" PRId64, u->leases); break;
    case 3: snprintf (b, n, "%" PRId64, u->gpus); break;
    case 4: fmt_time (u->start, b, n); break;
    case 5:
        if (u->end < 0)
            snprintf (b, n, "Running");
        else
            fmt_time (u->end, b, n);
        break;
    case 6: snprintf (b, n, "%s", u->reasons); break;
    case 7: snprintf (b, n, "%.2f", u->owned); break;
    case 8: snprintf (b, n, "%.2f", u->borrowed); break;
    default: snprintf (b, n, "%.2f", u->owned + u->borrowed); break;
    }
}

static const struct field usage_fields[] = {
    { "Owner", 10, K_STR },
    { "Envelope", 14, K_STR },
    { "Sponsor", 10, K_STR },
    { "Leases", 6, K_NUM },
    { "PeakGPUs", 8, K_NUM },
    { "OwnedGPUHours", 13, K_NUM },
    { "BorrowedGPUHours", 16, K_NUM },
    { "GPUHours", 10, K_NUM },
};

static void usage_get (const void *row, int f, char *b, size_t n)
{
    const struct urow *u = row;
    switch (f) {
    case 0: snprintf (b, n, "%s", u->key1); break;
    case 1: snprintf (b, n, "%s", u->key2); break;
    case 2: snprintf (b, n, "%s", u->sponsor ? u->sponsor : ""); break;
    case 3: snprintf (b, n, "%" PRId64, u->leases); break;
    case 4: snprintf (b, n, "%" PRId64, u->peak); break;
    case 5: snprintf (b, n, "%.2f", u->owned); break;
    case 6: snprintf (b, n, "%.2f", u->borrowed); break;
    default: snprintf (b, n, "%.2f", u->owned + u->borrowed); break;
    }
}

static const struct field res_fields[] = {
    { "Reservation", 14, K_STR }, { "Run", 14, K_STR },
    { "Owner", 10, K_STR },       { "Envelope", 14, K_STR },
    { "GPUs", 6, K_NUM },         { "EarliestStart", 20, K_STR },
    { "Created", 20, K_STR },     { "Activated", 20, K_STR },
    { "Released", 20, K_STR },
};

static void res_get (const void *row, int f, char *b, size_t n)
{
    const struct rrow *r = row;
    switch (f) {
    case 0: snprintf (b, n, "%s", r->res); break;
    case 1: snprintf (b, n, "%s", r->run); break;
    case 2: snprintf (b, n, "%s", r->owner); break;
    case 3: snprintf (b, n, "%s", r->envelope); break;
    case 4: snprintf (b, n, "%" PRId64, r->gpus); break;
    case 5: fmt_time (r->earliest, b, n); break;
    case 6: fmt_time (r->created, b, n); break;
    case 7: fmt_time (r->activated, b, n); break;
    default: fmt_time (r->released, b, n); break;
    }
}

#define NF(a) (sizeof (a) / sizeof ((a)[0]))

static const struct table tables[] = {
    { lease_fields, NF (lease_fields),
      "Lease,Run,Group,Owner,Envelope,Role,GPUs,Start,End,Reason,GPUHours", lease_get },
    { run_fields, NF (run_fields),
      "Run,Owner,Leases,GPUs,Start,End,Reasons,OwnedGPUHours,BorrowedGPUHours",
      run_get },
    { usage_fields, NF (usage_fields),
      "Owner,Envelope,Sponsor,Leases,PeakGPUs,OwnedGPUHours,BorrowedGPUHours,GPUHours",
      usage_get },
    { res_fields, NF (res_fields),
      "Reservation,Run,Owner,Envelope,GPUs,EarliestStart,Created,Activated,Released",
      res_get },
};

struct col {
    int field;
    int width;
};

static int parse_format (const struct table *t, const char *spec, struct col *cols,
                         size_t *ncols)
{
    char *s = strdup (spec), *save = NULL;
    *ncols = 0;
    for (char *tok = strtok_r (s, ",", &save); tok; tok = strtok_r (NULL, ",", &save)) {
        char *pct = strchr (tok, '%');
        int width = -1;
        if (pct) {
            *pct = '\0';
            char *end;
            long w = strtol (pct + 1, &end, 10);
            if (*end || w < 1 || w > 1000) {
                fprintf (stderr, "jobtree report: bad width in '%s%%%s'\n", tok,
                         pct + 1);
                free (s);
                return -1;
            }
            width = (int) w;
        }
        size_t f;
        for (f = 0; f < t->nfields; f++)
            if (!strcasecmp (t->fields[f].name, tok))
                break;
        if (f == t->nfields) {
            fprintf (stderr, "jobtree report: unknown field '%s'; fields:", tok);
            for (f = 0; f < t->nfields; f++)
                fprintf (stderr, " %s", t->fields[f].name);
            fprintf (stderr, "\n");
            free (s);
            return -1;
        }
        cols[*ncols].field = (int) f;
        cols[*ncols].width = width > 0 ? width : t->fields[f].width;
        (*ncols)++;
    }
    free (s);
    return *ncols ? 0 : -1;
}

enum mode { M_TABLE, M_PIPE, M_PIPE_NOEND, M_JSON };

static void print_cell (const char *s, int width, bool right)
{
    int len = (int) strlen (s);
    if (len > width)
        printf ("%.*s+", width - 1, s); /* sacct marks truncation with '+' */
    else
        printf (right ? "%*s" : "%-*s", width, s);
}

static void print_rows (const struct table *t, const struct col *cols, size_t ncols,
                        void *const *rows, size_t nrows, enum mode m, bool header)
{
    char buf[4096];
    if (m == M_JSON) {
        json_object *a = json_object_new_array ();
        for (size_t r = 0; r < nrows; r++) {
            json_object *o = json_object_new_object ();
            for (size_t c = 0; c < ncols; c++) {
                const struct field *f = &t->fields[cols[c].field];
                t->get (rows[r], cols[c].field, buf, sizeof (buf));
                json_object *v = f->kind == K_NUM
                                     ? (strchr (buf, '.')
                                            ? json_object_new_double_s (atof (buf), buf)
                                            : json_object_new_int64 (atoll (buf)))
                                     : json_object_new_string (buf);
                json_object_object_add (o, f->name, v);
            }
            json_object_array_add (a, o);
        }
        printf ("%s\n", json_object_to_json_string_ext (
                            a, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                                   | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put (a);
        return;
    }
    if (header) {
        for (size_t c = 0; c < ncols; c++) {
            const struct field *f = &t->fields[cols[c].field];
            if (m == M_TABLE) {
                print_cell (f->name, cols[c].width, f->kind == K_NUM);
                printf (c + 1 < ncols ? " " : "\n");
            } else
                printf ("%s%s", f->name, c + 1 < ncols || m == M_PIPE ? "|" : "");
        }
        if (m != M_TABLE)
            printf ("\n");
        else
            for (size_t c = 0; c < ncols; c++) {
                for (int i = 0; i < cols[c].width; i++)
                    putchar ('-');
                printf (c + 1 < ncols ? " " : "\n");
            }
    }
    for (size_t r = 0; r < nrows; r++) {
        for (size_t c = 0; c < ncols; c++) {
            const struct field *f = &t->fields[cols[c].field];
            t->get (rows[r], cols[c].field, buf, sizeof (buf));
            if (m == M_TABLE) {
                print_cell (buf, cols[c].width, f->kind == K_NUM);
                printf (c + 1 < ncols ? " " : "\n");
            } else
                printf ("%s%s", buf, c + 1 < ncols || m == M_PIPE ? "|" : "");
        }
        if (m != M_TABLE)
            printf ("\n");
    }
}

/* ---- aggregation ---- */

static int cmp_lrow (const void *a, const void *b)
{
    const struct lrow *x = *(void *const *) a, *y = *(void *const *) b;
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

static int cmp_rrow (const void *a, const void *b)
{
    return strcmp ((*(struct rrow *const *) a)->res, (*(struct rrow *const *) b)->res);
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

/* Peak of the sum of GPUs of the given leases (clipped) over time. */
static int64_t peak (struct lrow **ls, size_t n, const struct ctx *c)
{
    struct edge *e = malloc ((2 * n + 1) * sizeof (*e));
    size_t k = 0;
    int64_t cur = 0, best = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t s, en;
        lease_in (c, ls[i], &s, &en);
        if (en <= s)
            continue;
        e[k++] = (struct edge){ s, ls[i]->gpus };
        e[k++] = (struct edge){ en, -ls[i]->gpus };
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

/* Group leases by a key (run, or owner+envelope) into urows. */
static size_t group (struct ctx *c, struct lrow **ls, size_t n, bool by_run,
                     struct urow ***out)
{
    jt_map_t *m = jt_map_create (0);
    jt_map_t *members = jt_map_create (0);
    for (size_t i = 0; i < n; i++) {
        struct lrow *l = ls[i];
        char key[1024];
        snprintf (key, sizeof (key), "%s\x1f%s", by_run ? l->run : l->owner,
                  by_run ? "" : l->envelope);
        struct urow *u = jt_map_get (m, key);
        if (!u) {
            u = calloc (1, sizeof (*u));
            u->key1 = strdup (by_run ? l->run : l->owner);
            u->key2 = strdup (by_run ? l->owner : l->envelope);
            u->sponsor = by_run ? NULL : jt_map_get (c->sponsors, l->envelope);
            u->start = l->start;
            u->end = l->end;
            jt_map_put (m, key, u, NULL);
            jt_map_put (members, key, calloc (1, sizeof (size_t) + n * sizeof (void *)),
                        NULL);
        }
        size_t *mem = jt_map_get (members, key);
        ((struct lrow **) (mem + 1))[(*mem)++] = l;
        u->leases++;
        u->gpus += l->gpus;
        if (l->role == JT_ROLE_BORROWED)
            u->borrowed += l->hours;
        else
            u->owned += l->hours;
        if (l->start < u->start)
            u->start = l->start;
        if (u->end >= 0 && (l->end < 0 || l->end > u->end))
            u->end = l->end;
        if (l->end >= 0 && !strstr (u->reasons, l->reason)) {
            size_t len = strlen (u->reasons);
            snprintf (u->reasons + len, sizeof (u->reasons) - len, "%s%s",
                      len ? "+" : "", l->reason);
        }
    }
    size_t nk;
    const char **keys = jt_map_sorted_keys (m, &nk);
    struct urow **v = calloc (nk ? nk : 1, sizeof (*v));
    for (size_t i = 0; i < nk; i++) {
        v[i] = jt_map_get (m, keys[i]);
        size_t *mem = jt_map_get (members, keys[i]);
        v[i]->peak = peak ((struct lrow **) (mem + 1), *mem, c);
    }
    free (keys);
    jt_map_destroy (members, free);
    jt_map_destroy (m, NULL);
    qsort (v, nk, sizeof (*v), cmp_urow);
    *out = v;
    return nk;
}

static void usage (FILE *f)
{
    fprintf (
        f, "Usage: jobtree report leases|runs|usage|reservations [OPTIONS] LEDGER...\n"
           "  -S, --starttime TIME   from TIME (RFC 3339 or epoch seconds)\n"
           "  -E, --endtime TIME     until TIME (default: no limit)\n"
           "      --now TIME         open leases run until TIME (default: the last\n"
           "                         event time in the ledger)\n"
           "  -A, --accounts LIST    owners (comma-separated)\n"
           "  -j, --jobs LIST        runs: cluster:jobid or jobid\n"
           "      --envelope LIST    paying envelopes\n"
           "  -o, --format LIST      fields, each FIELD[%%WIDTH]\n"
           "  -p, --parsable         '|' after every field\n"
           "  -P, --parsable2        '|' between fields\n"
           "  -n, --noheader         no header\n"
           "      --json             JSON array of objects\n"
           "      --helpformat       list the fields of the report\n");
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
    enum { OPT_ENV = 256, OPT_JSON, OPT_HELPFMT, OPT_NOW };
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
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct ctx c = { .S = INT64_MIN, .E = INT64_MAX, .now = -1 };
    const char *format = NULL;
    enum mode m = M_TABLE;
    bool header = true, helpfmt = false;
    char *owners = NULL, *jobs = NULL, *envs = NULL;
    int ch, rc = JT_EXIT_USAGE;
    size_t kind;

    if (argc < 2 || !strcmp (argv[1], "-h") || !strcmp (argv[1], "--help")) {
        usage (argc < 2 ? stderr : stdout);
        return argc < 2 ? JT_EXIT_USAGE : JT_EXIT_OK;
    }
    for (kind = 0; kind < 4; kind++)
        if (!strcmp (argv[1], kinds[kind]))
            break;
    if (kind == 4) {
        fprintf (stderr, "jobtree report: unknown report '%s'\n", argv[1]);
        usage (stderr);
        return JT_EXIT_USAGE;
    }
    argc--;
    argv++;
    optind = 1;
    while ((ch = getopt_long (argc, argv, "S:E:A:j:o:pPnh", opts, NULL)) != -1) {
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
        case 'h': usage (stdout); return JT_EXIT_OK;
        default: usage (stderr); return JT_EXIT_USAGE;
        }
    }
    const struct table *t = &tables[kind];
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
    if (parse_format (t, format ? format : t->deflt, cols, &ncols) < 0)
        return JT_EXIT_USAGE;
    char *ob = owners ? strdup (owners) : NULL, *jb = jobs ? strdup (jobs) : NULL,
         *eb = envs ? strdup (envs) : NULL;
    c.nowners = ob ? split (ob, &c.owners) : 0;
    c.njobs = jb ? split (jb, &c.jobs) : 0;
    c.nenvs = eb ? split (eb, &c.envs) : 0;
    c.leases = jt_map_create (0);
    c.res = jt_map_create (0);
    c.sponsors = jt_map_create (0);

    jt_ledger_result_t res;
    jt_error_t err = { "" };
    if (jt_ledger_read ((const char *const *) argv + optind, (size_t) (argc - optind),
                        NULL, read_cb, &c, &res, &err)
        < 0) {
        fprintf (stderr, "jobtree report: %s\n", err.text);
        goto done;
    }
    if (res.status != JT_LEDGER_OK && res.status != JT_LEDGER_EMPTY) {
        fprintf (stderr,
                 "jobtree report: ledger is %s at seq %" PRIu64 " (%s offset %" PRIu64
                 "): %s; run `jobtree verify`\n",
                 jt_ledger_status_name (res.status), res.bad_seq, res.bad_file,
                 res.bad_offset, res.msg);
        rc = JT_EXIT_FAIL;
        goto done;
    }
    if (c.now < 0)
        c.now = c.last_time;

    size_t nl, n = 0;
    const char **keys = jt_map_sorted_keys (c.leases, &nl);
    struct lrow **ls = calloc (nl ? nl : 1, sizeof (*ls));
    for (size_t i = 0; i < nl; i++) {
        struct lrow *l = jt_map_get (c.leases, keys[i]);
        int64_t s, e;
        if (!lease_in (&c, l, &s, &e))
            continue;
        l->hours = (double) l->gpus * (double) (e - s) / 3600.0;
        ls[n++] = l;
    }
    free (keys);
    if (kind == 0) {
        qsort (ls, n, sizeof (*ls), cmp_lrow);
        print_rows (t, cols, ncols, (void *const *) ls, n, m, header);
    } else if (kind == 1 || kind == 2) {
        struct urow **u;
        size_t nu = group (&c, ls, n, kind == 1, &u);
        print_rows (t, cols, ncols, (void *const *) u, nu, m, header);
        for (size_t i = 0; i < nu; i++) {
            free (u[i]->key1);
            free (u[i]->key2);
            free (u[i]);
        }
        free (u);
    } else {
        size_t nr, k = 0;
        const char **rk = jt_map_sorted_keys (c.res, &nr);
        struct rrow **rs = calloc (nr ? nr : 1, sizeof (*rs));
        for (size_t i = 0; i < nr; i++) {
            struct rrow *r = jt_map_get (c.res, rk[i]);
            int64_t end = r->released >= 0 ? r->released : c.now;
            if (end < c.S || r->created > c.E
                || !in_list (c.owners, c.nowners, r->owner) || !job_match (&c, r->run)
                || !in_list (c.envs, c.nenvs, r->envelope))
                continue;
            rs[k++] = r;
        }
        qsort (rs, k, sizeof (*rs), cmp_rrow);
        print_rows (t, cols, ncols, (void *const *) rs, k, m, header);
        free (rk);
        free (rs);
    }
    free (ls);
    rc = JT_EXIT_OK;
done:
    jt_map_destroy (c.leases, lrow_free);
    jt_map_destroy (c.res, rrow_free);
    jt_map_destroy (c.sponsors, free);
    free (c.owners);
    free (c.jobs);
    free (c.envs);
    free (ob);
    free (jb);
    free (eb);
    return rc;
}
