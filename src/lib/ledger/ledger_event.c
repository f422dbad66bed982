/*
 * ledger_event.c - the ledger's event model: construction, validation,
 * canonical JSON and parsing (see jobtree/ledger.h, docs/ledger-format.md).
 *
 * DESIGN: the canonical form is produced by building a fresh json-c tree in
 * a fixed key order per event type and printing it compact. Parsing goes
 * back to the C struct (refusing unknown keys), so serialize(parse(x)) is
 * the canonical form of x and the daemon stores only canonical payloads.
 * Times are integer epoch seconds; the RandomPreempt seed is 16 hex digits
 * because JSON integers are signed 64-bit in json-c. The Activation event's
 * body (its arrays, checks, constructor and recomputation) is
 * ledger_event_activation.c's.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "jobtree/labels.h"
#include "jobtree/ledger.h"
#include "jobtree/run.h"
#include "util/jsonutil.h"
#include "ledger_event_int.h"
#include "util/sha256.h"

#define ID_MAX 256

static const char *const type_names[] = {
    [JT_EV_START] = "Start",
    [JT_EV_END] = "End",
    [JT_EV_RES_CREATE] = "ReservationCreate",
    [JT_EV_RES_ACTIVATE] = "ReservationActivate",
    [JT_EV_RES_RELEASED] = "ReservationReleased",
    [JT_EV_BUDGET_LOADED] = "BudgetLoaded",
    [JT_EV_NODE_FAIL] = "NodeFail",
    [JT_EV_ACTIVATION] = "Activation",
    [JT_EV_CHECKPOINT] = "Checkpoint",
};
static const char *const reason_names[] = {
    [JT_REASON_END] = "End",
    [JT_REASON_SWAP] = "Swap",
    [JT_REASON_SHRINK] = "Shrink",
    [JT_REASON_RANDOM_PREEMPT] = "RandomPreempt",
    [JT_REASON_RECLAIMED_BY_SPARE] = "ReclaimedBySpare",
    [JT_REASON_FAIL] = "Fail",
    [JT_REASON_JOB_GONE] = "JobGone",
    [JT_REASON_DROP_SPARE] = "DropSpare",
};

#define NELEM(a) (sizeof (a) / sizeof ((a)[0]))

static const char *name_of (const char *const *names, size_t n, int v)
{
    return (v > 0 && (size_t) v < n && names[v]) ? names[v] : "None";
}

static int parse_name (const char *const *names, size_t n, const char *s)
{
    for (size_t i = 1; s && i < n; i++)
        if (names[i] && !strcmp (names[i], s))
            return (int) i;
    return 0;
}

const char *jt_ev_type_str (jt_ev_type_t t)
{
    return name_of (type_names, NELEM (type_names), t);
}
const char *jt_end_reason_str (jt_end_reason_t r)
{
    return name_of (reason_names, NELEM (reason_names), r);
}
jt_ev_type_t jt_ev_type_parse (const char *s)
{
    return parse_name (type_names, NELEM (type_names), s);
}
jt_end_reason_t jt_end_reason_parse (const char *s)
{
    return parse_name (reason_names, NELEM (reason_names), s);
}

jt_event_t *jt_event_create (jt_ev_type_t type)
{
    jt_event_t *ev = calloc (1, sizeof (*ev));
    if (ev)
        ev->type = type;
    return ev;
}

void jt_event_destroy (jt_event_t *ev)
{
    if (!ev)
        return;
    int saved = errno;
    free (ev->id);
    free (ev->lease);
    free (ev->run);
    free (ev->group);
    for (size_t i = 0; i < ev->nnodes; i++)
        free (ev->nodes[i]);
    free (ev->nodes);
    free (ev->envelope);
    free (ev->owner);
    free (ev->reservation);
    for (size_t i = 0; i < ev->nfiles; i++)
        free (ev->files[i].path);
    free (ev->files);
    for (size_t i = 0; i < ev->ncaps; i++) {
        free (ev->caps[i].envelope);
        free (ev->caps[i].owner);
    }
    free (ev->caps);
    jt_budgets_destroy (ev->budgets);
    jt_ev_activation_free (ev);
    free (ev->state);
    free (ev->note);
    free (ev->conformance);
    free (ev);
    errno = saved;
}

int jt_event_set (char **field, const char *s)
{
    char *cp = NULL;
    if (s && !(cp = strdup (s)))
        return -1;
    free (*field);
    *field = cp;
    return 0;
}

int jt_event_add_node (jt_event_t *ev, const char *node)
{
    char **v = realloc (ev->nodes, (ev->nnodes + 1) * sizeof (*v));
    if (!v)
        return -1;
    ev->nodes = v;
    if (!(v[ev->nnodes] = strdup (node)))
        return -1;
    ev->nnodes++;
    return 0;
}

int jt_event_add_file (jt_event_t *ev, const char *path, const char *sha256)
{
    jt_ev_file_t *v = realloc (ev->files, (ev->nfiles + 1) * sizeof (*v));
    if (!v)
        return -1;
    ev->files = v;
    memset (&v[ev->nfiles], 0, sizeof (v[0]));
    if (!(v[ev->nfiles].path = strdup (path)))
        return -1;
    snprintf (v[ev->nfiles].sha256, sizeof (v[0].sha256), "%s", sha256);
    ev->nfiles++;
    return 0;
}

int jt_event_add_cap (jt_event_t *ev, const jt_ev_cap_t *cap)
{
    jt_ev_cap_t *v = realloc (ev->caps, (ev->ncaps + 1) * sizeof (*v));
    if (!v)
        return -1;
    ev->caps = v;
    jt_ev_cap_t *c = &v[ev->ncaps];
    *c = *cap;
    c->envelope = strdup (cap->envelope ? cap->envelope : "");
    c->owner = strdup (cap->owner ? cap->owner : "");
    if (!c->envelope || !c->owner) {
        free (c->envelope);
        free (c->owner);
        return -1;
    }
    ev->ncaps++;
    return 0;
}

/* ---- BudgetLoaded's budget content ---- */

static bool is_hex64 (const char *s);

/* A finalized budget set from the elements of a JSON array, each a budget
 * file's object, through the budget reader (its checks, its messages).
 * NULL with err naming the element, the field and the problem. */
static jt_budgets_t *budgets_from_array (json_object *a, jt_error_t *err)
{
    jt_budgets_t *b = jt_budgets_create ();
    jt_diags_t diags;
    int rc = 0;

    if (!b) {
        errno = ENOMEM;
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    jt_diags_init (&diags);
    for (size_t i = 0; i < json_object_array_length (a) && !rc; i++) {
        json_object *o = json_object_array_get_idx (a, i);
        char name[32];
        snprintf (name, sizeof (name), "budgets[%zu]", i);
        if (!json_object_is_type (o, json_type_object)) {
            rc = jt_errprintf (err, "%s: expected a budget object", name);
            break;
        }
        const char *t = json_object_to_json_string_ext (
            o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        if (!t) {
            rc = jt_errprintf (err, "out of memory");
            break;
        }
        rc = jt_budgets_add_json (b, name, t, strlen (t), &diags);
    }
    if (!rc)
        rc = jt_budgets_finalize (b, &diags);
    if (rc < 0 && diags.n) {
        char line[512];
        jt_diag_format (&diags.v[0], line, sizeof (line));
        jt_errprintf (err, "budgets: %s", line);
    }
    jt_diags_free (&diags);
    if (rc < 0) {
        jt_budgets_destroy (b);
        return NULL;
    }
    return b;
}

/* The budget set of canonical text (jt_budgets_to_json's): a copy. */
static jt_budgets_t *budgets_from_text (const char *text, jt_error_t *err)
{
    json_object *a = json_tokener_parse (text);
    jt_budgets_t *b = NULL;

    if (!a || !json_object_is_type (a, json_type_array))
        jt_errprintf (err, "budgets: cannot read back their canonical text");
    else
        b = budgets_from_array (a, err);
    json_object_put (a);
    return b;
}

jt_budgets_t *jt_ev_budgets_copy (const jt_budgets_t *b, jt_error_t *err)
{
    char *text = jt_budgets_to_json (b, err);
    jt_budgets_t *c = text ? budgets_from_text (text, err) : NULL;

    free (text);
    return c;
}

/* The caps a BudgetLoaded lists are exactly its content's: every envelope
 * once, with its owner, C, resolved B and window. */
static int caps_match (const jt_event_t *ev, jt_error_t *err)
{
    const jt_budgets_t *b = ev->budgets;

    if (ev->ncaps != b->nenv)
        return jt_errprintf (err, "caps: %zu listed, the budgets hold %zu envelopes",
                             ev->ncaps, b->nenv);
    for (size_t i = 0; i < ev->ncaps; i++) {
        const jt_ev_cap_t *c = &ev->caps[i];
        const jt_envelope_t *e = jt_budgets_envelope (b, c->envelope);
        if (!e)
            return jt_errprintf (err, "caps[%zu]: envelope %s is not in the budgets", i,
                                 c->envelope);
        if (strcmp (e->owner, c->owner) || e->concurrency != c->concurrency
            || jt_envelope_gpu_hours_cap (e) != c->max_gpu_hours
            || e->start != c->start || e->end != c->end)
            return jt_errprintf (err, "caps[%zu]: envelope %s's caps differ from the "
                                 "budgets' (owner, concurrency, maxGPUHours or window)",
                                 i, c->envelope);
    }
    return 0;
}

/* budgets and budgetsSha256 of a BudgetLoaded: the hash is 64 lowercase
 * hex digits, and with content it is the SHA-256 of the content's
 * canonical text, which is at most JT_EV_BUDGETS_MAX bytes and agrees with
 * the caps. */
static int validate_budgets (const jt_event_t *ev, jt_error_t *err)
{
    char hex[65];
    char *text;
    int rc = 0;

    if (ev->budgets_sha256[0] && !is_hex64 (ev->budgets_sha256))
        return jt_errprintf (err, "budgetsSha256: expected 64 lowercase hex digits");
    if (!ev->budgets)
        return 0;
    if (!ev->budgets_sha256[0])
        return jt_errprintf (err, "budgetsSha256: missing (required with budgets)");
    if (!(text = jt_budgets_to_json (ev->budgets, err)))
        return -1;
    if (strlen (text) > JT_EV_BUDGETS_MAX)
        rc = jt_errprintf (err, "budgets: %zu bytes of canonical text, more than %d",
                           strlen (text), JT_EV_BUDGETS_MAX);
    else if (jt_sha256_hex (text, strlen (text), hex) < 0
             || strcmp (hex, ev->budgets_sha256))
        rc = jt_errprintf (err, "budgetsSha256: not the SHA-256 of the budgets' "
                           "canonical text (%s)", hex);
    free (text);
    return rc < 0 ? rc : caps_match (ev, err);
}

jt_event_t *jt_event_budget_loaded (const jt_budgets_t *b, const char *id,
                                    int64_t time, jt_error_t *err)
{
    jt_event_t *ev = jt_event_create (JT_EV_BUDGET_LOADED);
    if (!ev || jt_event_set (&ev->id, id) < 0)
        goto nomem;
    ev->time = time;
    for (size_t i = 0; i < b->n; i++)
        if (b->v[i].file && b->v[i].sha256[0]
            && jt_event_add_file (ev, b->v[i].file, b->v[i].sha256) < 0)
            goto nomem;
    for (size_t i = 0; i < b->nenv; i++) {
        const jt_envelope_t *e = b->env[i];
        jt_ev_cap_t c = { .envelope = e->name,
                          .owner = (char *) e->owner,
                          .concurrency = e->concurrency,
                          .max_gpu_hours = jt_envelope_gpu_hours_cap (e),
                          .start = e->start,
                          .end = e->end };
        if (jt_event_add_cap (ev, &c) < 0)
            goto nomem;
    }
    char *text = jt_budgets_to_json (b, err);
    if (!text)
        goto fail;
    if (jt_sha256_hex (text, strlen (text), ev->budgets_sha256) < 0) {
        free (text);
        goto nomem;
    }
    if (strlen (text) <= JT_EV_BUDGETS_MAX && !(ev->budgets = budgets_from_text (text, err))) {
        free (text);
        goto fail;
    }
    free (text);
    if (jt_event_validate (ev, err) < 0) {
        jt_event_destroy (ev);
        return NULL;
    }
    return ev;
nomem:
    jt_errprintf (err, "out of memory");
fail:
    jt_event_destroy (ev);
    return NULL;
}

/* ---- validation ---- */

static bool nonempty (const char *s)
{
    return s && *s;
}

static bool is_hex64 (const char *s)
{
    if (strlen (s) != 64)
        return false;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return false;
    return true;
}

static int need_str (const char *s, const char *key, jt_error_t *err)
{
    if (!nonempty (s))
        return jt_errprintf (err, "%s: missing or empty", key);
    return 0;
}

/* A time in [0, JT_EV_TIME_MAX]. */
static int need_time (int64_t t, const char *key, jt_error_t *err)
{
    if (t < 0 || t > JT_EV_TIME_MAX)
        return jt_errprintf (err, "%s: %" PRId64 " is not a time in [0, %" PRId64 "]",
                             key, t, JT_EV_TIME_MAX);
    return 0;
}

/* A GPU count in [1, JT_RUN_GPUS_MAX]: a fold adds it, so it is bounded. */
static int need_gpus (int64_t g, jt_error_t *err)
{
    if (g < 1 || g > JT_RUN_GPUS_MAX)
        return jt_errprintf (err, "gpus: must be in [1, %" PRId64 "], got %" PRId64,
                             JT_RUN_GPUS_MAX, g);
    return 0;
}

static int validate_lease (const jt_event_t *ev, jt_error_t *err)
{
    if (need_str (ev->lease, "lease", err) < 0 || need_str (ev->run, "run", err) < 0
        || need_str (ev->group, "group", err) < 0
        || need_str (ev->envelope, "envelope", err) < 0
        || need_str (ev->owner, "owner", err) < 0)
        return -1;
    if (ev->nnodes == 0)
        return jt_errprintf (err, "nodes: a lease needs at least one node");
    if (need_gpus (ev->gpus, err) < 0)
        return -1;
    if (ev->role != JT_ROLE_ACTIVE && ev->role != JT_ROLE_SPARE
        && ev->role != JT_ROLE_BORROWED)
        return jt_errprintf (err, "role: must be Active, Spare or Borrowed");
    if (need_time (ev->start, "start", err) < 0)
        return -1;
    if (ev->conformance && (ev->type != JT_EV_START || !jt_label_value_ok (ev->conformance)))
        return jt_errprintf (err, "conformance: a Start's optional node label value");
    if (ev->type == JT_EV_END) {
        if (need_time (ev->end, "end", err) < 0)
            return -1;
        if (ev->end < ev->start)
            return jt_errprintf (err, "end: %" PRId64 " is before start %" PRId64,
                                 ev->end, ev->start);
        if (ev->reason == JT_REASON_NONE)
            return jt_errprintf (err, "reason: missing");
        if (ev->seed && ev->reason != JT_REASON_RANDOM_PREEMPT)
            return jt_errprintf (err, "seed: only with reason RandomPreempt");
    }
    return 0;
}

static int cmp_cap_name (const void *a, const void *b)
{
    return strcmp ((*(const jt_ev_cap_t *const *) a)->envelope,
                   (*(const jt_ev_cap_t *const *) b)->envelope);
}

/* Each envelope at most once in a caps list (its caps in force must be one
 * set). O(n log n). */
static int caps_distinct (const jt_event_t *ev, jt_error_t *err)
{
    const jt_ev_cap_t **v;
    int rc = 0;

    if (ev->ncaps < 2)
        return 0;
    if (!(v = malloc (ev->ncaps * sizeof (*v))))
        return jt_errprintf (err, "out of memory");
    for (size_t i = 0; i < ev->ncaps; i++)
        v[i] = &ev->caps[i];
    qsort (v, ev->ncaps, sizeof (*v), cmp_cap_name);
    for (size_t i = 1; i < ev->ncaps && !rc; i++)
        if (!strcmp (v[i - 1]->envelope, v[i]->envelope))
            rc = jt_errprintf (err, "caps: envelope %s appears twice", v[i]->envelope);
    free (v);
    return rc;
}

int jt_event_validate (const jt_event_t *ev, jt_error_t *err)
{
    if (!ev)
        return jt_errprintf (err, "no event");
    if (ev->type <= JT_EV_NONE || ev->type > JT_EV_CHECKPOINT)
        return jt_errprintf (err, "type: unknown event type");
    if (need_str (ev->id, "id", err) < 0)
        return -1;
    if (strlen (ev->id) > ID_MAX)
        return jt_errprintf (err, "id: longer than %d bytes", ID_MAX);
    if (need_time (ev->time, "time", err) < 0)
        return -1;
    for (size_t i = 0; i < ev->nnodes; i++)
        if (!nonempty (ev->nodes[i]))
            return jt_errprintf (err, "nodes[%zu]: empty", i);
    switch (ev->type) {
    case JT_EV_START:
    case JT_EV_END: return validate_lease (ev, err);
    case JT_EV_RES_CREATE:
        if (need_str (ev->envelope, "envelope", err) < 0
            || need_str (ev->owner, "owner", err) < 0
            || need_gpus (ev->gpus, err) < 0 || need_time (ev->start, "start", err) < 0)
            return -1;
        /* fall through */
    case JT_EV_RES_ACTIVATE:
    case JT_EV_RES_RELEASED:
        if (need_str (ev->reservation, "reservation", err) < 0
            || need_str (ev->run, "run", err) < 0)
            return -1;
        return 0;
    case JT_EV_BUDGET_LOADED:
        for (size_t i = 0; i < ev->nfiles; i++)
            if (!nonempty (ev->files[i].path) || !is_hex64 (ev->files[i].sha256))
                return jt_errprintf (err, "files[%zu]: needs path and a hex sha256", i);
        for (size_t i = 0; i < ev->ncaps; i++) {
            const jt_ev_cap_t *c = &ev->caps[i];
            if (!nonempty (c->envelope) || !nonempty (c->owner))
                return jt_errprintf (err, "caps[%zu]: needs envelope and owner", i);
            if (c->concurrency < 1 || !(c->max_gpu_hours >= 0)
                || !isfinite (c->max_gpu_hours) || c->start < 0 || c->start >= c->end
                || c->end > JT_EV_TIME_MAX)
                return jt_errprintf (err,
                                     "caps[%zu]: needs concurrency >= 1, a finite "
                                     "maxGPUHours >= 0 and 0 <= start < end <= %" PRId64,
                                     i, JT_EV_TIME_MAX);
        }
        return caps_distinct (ev, err) < 0 ? -1 : validate_budgets (ev, err);
    case JT_EV_NODE_FAIL:
        if (ev->nnodes == 0)
            return jt_errprintf (err, "nodes: NodeFail needs a node");
        return 0;
    case JT_EV_ACTIVATION: return jt_ev_activation_validate (ev, err);
    case JT_EV_CHECKPOINT: return jt_ev_checkpoint_validate (ev, err);
    default: return jt_errprintf (err, "type: unknown event type");
    }
}

/* ---- serialization ---- */

static int add (json_object *o, const char *key, json_object *v)
{
    if (!v)
        return -1;
    if (json_object_object_add (o, key, v) < 0) {
        json_object_put (v);
        return -1;
    }
    return 0;
}

static int add_str (json_object *o, const char *key, const char *s)
{
    return add (o, key, json_object_new_string (s));
}

static int add_int (json_object *o, const char *key, int64_t i)
{
    return add (o, key, json_object_new_int64 (i));
}

int jt_ev_json_add (json_object *o, const char *key, json_object *v)
{
    return add (o, key, v);
}
int jt_ev_json_add_str (json_object *o, const char *key, const char *s)
{
    return add_str (o, key, s);
}
int jt_ev_json_add_int (json_object *o, const char *key, int64_t i)
{
    return add_int (o, key, i);
}

static int add_nodes (json_object *o, const jt_event_t *ev)
{
    json_object *a = json_object_new_array ();
    if (add (o, "nodes", a) < 0)
        return -1;
    for (size_t i = 0; i < ev->nnodes; i++) {
        json_object *s = json_object_new_string (ev->nodes[i]);
        if (!s || json_object_array_add (a, s) < 0) {
            json_object_put (s);
            return -1;
        }
    }
    return 0;
}

static int build_lease (json_object *o, const jt_event_t *ev)
{
    if (add_str (o, "lease", ev->lease) < 0 || add_str (o, "run", ev->run) < 0
        || add_str (o, "group", ev->group) < 0 || add_nodes (o, ev) < 0
        || add_int (o, "gpus", ev->gpus) < 0
        || add_str (o, "role", jt_role_str (ev->role)) < 0
        || add_str (o, "envelope", ev->envelope) < 0
        || add_str (o, "owner", ev->owner) < 0 || add_int (o, "start", ev->start) < 0)
        return -1;
    if (ev->type == JT_EV_START && ev->conformance
        && add_str (o, "conformance", ev->conformance) < 0)
        return -1;
    if (ev->type == JT_EV_END) {
        if (add_int (o, "end", ev->end) < 0
            || add_str (o, "reason", jt_end_reason_str (ev->reason)) < 0)
            return -1;
        if (ev->reason == JT_REASON_RANDOM_PREEMPT) {
            char hex[17];
            snprintf (hex, sizeof (hex), "%016" PRIx64, ev->seed);
            if (add_str (o, "seed", hex) < 0)
                return -1;
        }
    }
    return 0;
}

static int build_budget (json_object *o, const jt_event_t *ev)
{
    json_object *files = json_object_new_array ();
    if (add (o, "files", files) < 0)
        return -1;
    for (size_t i = 0; i < ev->nfiles; i++) {
        json_object *f = json_object_new_object ();
        if (!f || json_object_array_add (files, f) < 0) {
            json_object_put (f);
            return -1;
        }
        if (add_str (f, "path", ev->files[i].path) < 0
            || add_str (f, "sha256", ev->files[i].sha256) < 0)
            return -1;
    }
    json_object *caps = json_object_new_array ();
    if (add (o, "caps", caps) < 0)
        return -1;
    for (size_t i = 0; i < ev->ncaps; i++) {
        const jt_ev_cap_t *c = &ev->caps[i];
        json_object *f = json_object_new_object ();
        if (!f || json_object_array_add (caps, f) < 0) {
            json_object_put (f);
            return -1;
        }
        if (add_str (f, "envelope", c->envelope) < 0
            || add_str (f, "owner", c->owner) < 0
            || add_int (f, "concurrency", c->concurrency) < 0
            || add (f, "maxGPUHours", json_object_new_double (c->max_gpu_hours)) < 0
            || add_int (f, "start", c->start) < 0 || add_int (f, "end", c->end) < 0)
            return -1;
    }
    if (ev->budgets_sha256[0] && add_str (o, "budgetsSha256", ev->budgets_sha256) < 0)
        return -1;
    if (ev->budgets) {
        /* the canonical text read back: json-c prints it as it was */
        char *text = jt_budgets_to_json (ev->budgets, NULL);
        json_object *a = text ? json_tokener_parse (text) : NULL;
        free (text);
        if (add (o, "budgets", a) < 0)
            return -1;
    }
    return 0;
}

static int build_body (json_object *o, const jt_event_t *ev)
{
    switch (ev->type) {
    case JT_EV_START:
    case JT_EV_END: return build_lease (o, ev);
    case JT_EV_RES_CREATE:
        if (add_str (o, "reservation", ev->reservation) < 0
            || add_str (o, "run", ev->run) < 0
            || add_str (o, "envelope", ev->envelope) < 0
            || add_str (o, "owner", ev->owner) < 0 || add_nodes (o, ev) < 0
            || add_int (o, "gpus", ev->gpus) < 0 || add_int (o, "start", ev->start) < 0)
            return -1;
        return 0;
    case JT_EV_RES_ACTIVATE:
    case JT_EV_RES_RELEASED:
        if (add_str (o, "reservation", ev->reservation) < 0
            || add_str (o, "run", ev->run) < 0)
            return -1;
        return 0;
    case JT_EV_BUDGET_LOADED: return build_budget (o, ev);
    case JT_EV_NODE_FAIL:
        if (add_nodes (o, ev) < 0)
            return -1;
        if (ev->run && add_str (o, "run", ev->run) < 0)
            return -1;
        return 0;
    case JT_EV_ACTIVATION: return jt_ev_activation_build (o, ev);
    case JT_EV_CHECKPOINT: return jt_ev_checkpoint_build (o, ev);
    default: return -1;
    }
}

char *jt_event_to_json (const jt_event_t *ev, jt_error_t *err)
{
    if (jt_event_validate (ev, err) < 0)
        return NULL;
    json_object *o = json_object_new_object ();
    char *out = NULL;
    if (!o || add_int (o, "v", 1) < 0
        || add_str (o, "type", jt_ev_type_str (ev->type)) < 0
        || add_str (o, "id", ev->id) < 0 || add_int (o, "time", ev->time) < 0
        || build_body (o, ev) < 0 || (ev->note && add_str (o, "note", ev->note) < 0))
        goto nomem;
    const char *s = json_object_to_json_string_ext (
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!s || !(out = strdup (s)))
        goto nomem;
    json_object_put (o);
    return out;
nomem:
    json_object_put (o);
    errno = ENOMEM;
    jt_errprintf (err, "out of memory");
    return NULL;
}

/* ---- parsing ---- */

static const char *const keys_common[] = { "v", "type", "id", "time", "note", NULL };
static const char *const keys_lease[] = { "lease", "run",      "group", "nodes", "gpus",
                                          "role",  "envelope", "owner", "start", NULL };
static const char *const keys_end[] = { "end", "reason", "seed", NULL };
static const char *const keys_start[] = { "conformance", NULL };
static const char *const keys_rc[] = { "reservation", "run",  "envelope", "owner",
                                       "nodes",       "gpus", "start",    NULL };
static const char *const keys_ra[] = { "reservation", "run", NULL };
static const char *const keys_budget[] = { "files", "caps", "budgetsSha256", "budgets",
                                           NULL };
static const char *const keys_nf[] = { "nodes", "run", NULL };
static const char *const keys_act[] = { "reservation", "run",  "scope",    "seed",
                                        "needs",       "holders", "cuts", "resolved",
                                        NULL };

static bool in_list (const char *const *l, const char *k)
{
    for (; l && *l; l++)
        if (!strcmp (*l, k))
            return true;
    return false;
}

static int get_str (json_object *o, const char *key, bool req, char **out,
                    jt_error_t *err)
{
    json_object *v;
    if (!json_object_object_get_ex (o, key, &v))
        return req ? jt_errprintf (err, "%s: missing", key) : 0;
    if (!json_object_is_type (v, json_type_string))
        return jt_errprintf (err, "%s: expected a string", key);
    return jt_event_set (out, json_object_get_string (v)) < 0
               ? jt_errprintf (err, "out of memory")
               : 0;
}

static int get_int (json_object *o, const char *key, bool req, int64_t *out,
                    jt_error_t *err)
{
    json_object *v;
    if (!json_object_object_get_ex (o, key, &v))
        return req ? jt_errprintf (err, "%s: missing", key) : 0;
    if (!json_object_is_type (v, json_type_int))
        return jt_errprintf (err, "%s: expected an integer", key);
    errno = 0;
    *out = json_object_get_int64 (v);
    if (errno == EINVAL || *out == INT64_MAX || *out == INT64_MIN)
        return jt_errprintf (err, "%s: integer out of range", key);
    return 0;
}

int jt_ev_json_get_str (json_object *o, const char *key, bool req, char **out,
                        jt_error_t *err)
{
    return get_str (o, key, req, out, err);
}
int jt_ev_json_get_int (json_object *o, const char *key, bool req, int64_t *out,
                        jt_error_t *err)
{
    return get_int (o, key, req, out, err);
}

int jt_ev_json_get_seed (json_object *o, bool req, uint64_t *out, jt_error_t *err)
{
    char *seed = NULL;
    bool bad;

    if (get_str (o, "seed", req, &seed, err) < 0)
        return -1;
    if (!seed)
        return 0;
    bad = strlen (seed) != 16 || strspn (seed, "0123456789abcdef") != 16;
    if (!bad)
        *out = strtoull (seed, NULL, 16);
    free (seed);
    return bad ? jt_errprintf (err, "seed: expected 16 hex digits") : 1;
}

static int get_nodes (json_object *o, bool req, jt_event_t *ev, jt_error_t *err)
{
    json_object *a;
    if (!json_object_object_get_ex (o, "nodes", &a))
        return req ? jt_errprintf (err, "nodes: missing") : 0;
    if (!json_object_is_type (a, json_type_array))
        return jt_errprintf (err, "nodes: expected an array");
    for (size_t i = 0; i < json_object_array_length (a); i++) {
        json_object *s = json_object_array_get_idx (a, i);
        if (!json_object_is_type (s, json_type_string))
            return jt_errprintf (err, "nodes[%zu]: expected a string", i);
        if (jt_event_add_node (ev, json_object_get_string (s)) < 0)
            return jt_errprintf (err, "out of memory");
    }
    return 0;
}

static int get_enum (json_object *o, const char *key, int *out,
                     int (*parse) (const char *), jt_error_t *err)
{
    char *s = NULL;
    if (get_str (o, key, true, &s, err) < 0)
        return -1;
    *out = parse (s);
    if (*out == 0) {
        jt_errprintf (err, "%s: unknown value '%s'", key, s);
        free (s);
        return -1;
    }
    free (s);
    return 0;
}

static int parse_role (const char *s)
{
    jt_role_t r;
    /* get_enum treats 0 as unknown: shift the role by one */
    return jt_role_parse (s, &r) < 0 ? 0 : (int) r + 1;
}
static int parse_reason (const char *s)
{
    return jt_end_reason_parse (s);
}

static int check_keys (json_object *o, const char *const *a, const char *const *b,
                       const char *const *c, jt_error_t *err)
{
    json_object_object_foreach (o, k, v)
    {
        (void) v;
        if (!in_list (keys_common, k) && !in_list (a, k) && !in_list (b, k)
            && !in_list (c, k))
            return jt_errprintf (err, "%s: unknown key", k);
    }
    return 0;
}

static int parse_budget (json_object *o, jt_event_t *ev, jt_error_t *err)
{
    json_object *a;
    if (json_object_object_get_ex (o, "files", &a)) {
        if (!json_object_is_type (a, json_type_array))
            return jt_errprintf (err, "files: expected an array");
        for (size_t i = 0; i < json_object_array_length (a); i++) {
            json_object *f = json_object_array_get_idx (a, i);
            char *path = NULL, *sha = NULL;
            if (!json_object_is_type (f, json_type_object))
                return jt_errprintf (err, "files[%zu]: expected an object", i);
            int rc = (get_str (f, "path", true, &path, err) < 0
                      || get_str (f, "sha256", true, &sha, err) < 0
                      || strlen (sha) != 64 || jt_event_add_file (ev, path, sha) < 0);
            if (rc && sha && strlen (sha) != 64)
                jt_errprintf (err, "files[%zu].sha256: expected 64 hex digits", i);
            free (path);
            free (sha);
            if (rc)
                return -1;
        }
    }
    if (json_object_object_get_ex (o, "caps", &a)) {
        if (!json_object_is_type (a, json_type_array))
            return jt_errprintf (err, "caps: expected an array");
        for (size_t i = 0; i < json_object_array_length (a); i++) {
            json_object *f = json_object_array_get_idx (a, i), *h;
            jt_ev_cap_t c = { 0 };
            if (!json_object_is_type (f, json_type_object))
                return jt_errprintf (err, "caps[%zu]: expected an object", i);
            int rc = (get_str (f, "envelope", true, &c.envelope, err) < 0
                      || get_str (f, "owner", true, &c.owner, err) < 0
                      || get_int (f, "concurrency", true, &c.concurrency, err) < 0
                      || get_int (f, "start", true, &c.start, err) < 0
                      || get_int (f, "end", true, &c.end, err) < 0);
            if (!rc) {
                if (!json_object_object_get_ex (f, "maxGPUHours", &h)
                    || !(json_object_is_type (h, json_type_double)
                         || json_object_is_type (h, json_type_int)))
                    rc = jt_errprintf (err, "caps[%zu].maxGPUHours: expected a number",
                                       i);
                else
                    c.max_gpu_hours = json_object_get_double (h);
            }
            if (!rc && jt_event_add_cap (ev, &c) < 0)
                rc = jt_errprintf (err, "out of memory");
            free (c.envelope);
            free (c.owner);
            if (rc)
                return -1;
        }
    }
    char *sha = NULL;
    if (get_str (o, "budgetsSha256", false, &sha, err) < 0)
        return -1;
    if (sha) {
        int bad = strlen (sha) != 64;
        if (!bad)
            memcpy (ev->budgets_sha256, sha, 65);
        free (sha);
        if (bad)
            return jt_errprintf (err, "budgetsSha256: expected 64 lowercase hex digits");
    }
    if (json_object_object_get_ex (o, "budgets", &a)) {
        if (!json_object_is_type (a, json_type_array))
            return jt_errprintf (err, "budgets: expected an array of budget objects");
        if (!(ev->budgets = budgets_from_array (a, err)))
            return -1;
    }
    return 0;
}

static int parse_body (json_object *o, jt_event_t *ev, jt_error_t *err)
{
    int role, reason;

    switch (ev->type) {
    case JT_EV_START:
    case JT_EV_END:
        if (check_keys (o, keys_lease, ev->type == JT_EV_END ? keys_end : keys_start, NULL,
                        err)
                < 0
            || get_str (o, "lease", true, &ev->lease, err) < 0
            || get_str (o, "run", true, &ev->run, err) < 0
            || get_str (o, "group", true, &ev->group, err) < 0
            || get_nodes (o, true, ev, err) < 0
            || get_int (o, "gpus", true, &ev->gpus, err) < 0
            || get_enum (o, "role", &role, parse_role, err) < 0
            || get_str (o, "envelope", true, &ev->envelope, err) < 0
            || get_str (o, "owner", true, &ev->owner, err) < 0
            || get_int (o, "start", true, &ev->start, err) < 0
            || (ev->type == JT_EV_START
                && get_str (o, "conformance", false, &ev->conformance, err) < 0))
            return -1;
        ev->role = (jt_lease_role_t) (role - 1);
        if (ev->type == JT_EV_END) {
            int has_seed;
            if (get_int (o, "end", true, &ev->end, err) < 0
                || get_enum (o, "reason", &reason, parse_reason, err) < 0)
                return -1;
            ev->reason = reason;
            if ((has_seed = jt_ev_json_get_seed (o, false, &ev->seed, err)) < 0)
                return -1;
            if (has_seed && ev->reason != JT_REASON_RANDOM_PREEMPT)
                return jt_errprintf (err, "seed: only with reason RandomPreempt");
            if (!has_seed && ev->reason == JT_REASON_RANDOM_PREEMPT)
                return jt_errprintf (err, "seed: RandomPreempt needs its seed");
        }
        return 0;
    case JT_EV_RES_CREATE:
        return (check_keys (o, keys_rc, NULL, NULL, err) < 0
                || get_str (o, "reservation", true, &ev->reservation, err) < 0
                || get_str (o, "run", true, &ev->run, err) < 0
                || get_str (o, "envelope", true, &ev->envelope, err) < 0
                || get_str (o, "owner", true, &ev->owner, err) < 0
                || get_nodes (o, false, ev, err) < 0
                || get_int (o, "gpus", true, &ev->gpus, err) < 0
                || get_int (o, "start", true, &ev->start, err) < 0)
                   ? -1
                   : 0;
    case JT_EV_RES_ACTIVATE:
    case JT_EV_RES_RELEASED:
        return (check_keys (o, keys_ra, NULL, NULL, err) < 0
                || get_str (o, "reservation", true, &ev->reservation, err) < 0
                || get_str (o, "run", true, &ev->run, err) < 0)
                   ? -1
                   : 0;
    case JT_EV_BUDGET_LOADED:
        return (check_keys (o, keys_budget, NULL, NULL, err) < 0
                || parse_budget (o, ev, err) < 0)
                   ? -1
                   : 0;
    case JT_EV_NODE_FAIL:
        return (check_keys (o, keys_nf, NULL, NULL, err) < 0
                || get_nodes (o, true, ev, err) < 0
                || get_str (o, "run", false, &ev->run, err) < 0)
                   ? -1
                   : 0;
    case JT_EV_ACTIVATION:
        return (check_keys (o, keys_act, NULL, NULL, err) < 0
                || jt_ev_activation_parse (o, ev, err) < 0)
                   ? -1
                   : 0;
    case JT_EV_CHECKPOINT:
        return (check_keys (o, jt_ev_checkpoint_keys, NULL, NULL, err) < 0
                || jt_ev_checkpoint_parse (o, ev, err) < 0)
                   ? -1
                   : 0;
    default: return jt_errprintf (err, "type: unknown event type");
    }
}

/* One tokener per thread, reused: allocating one per event dominated replay
 * time (malloc churn). Freed by the key's destructor when a thread exits. */
static pthread_key_t tok_key;
static pthread_once_t tok_once = PTHREAD_ONCE_INIT;

static void tok_free (void *p)
{
    json_tokener_free (p);
}

static void tok_key_init (void)
{
    (void) pthread_key_create (&tok_key, tok_free);
}

static json_tokener *tok_get (void)
{
    pthread_once (&tok_once, tok_key_init);
    json_tokener *tok = pthread_getspecific (tok_key);
    if (!tok) {
        if (!(tok = json_tokener_new ()))
            return NULL;
        if (pthread_setspecific (tok_key, tok) != 0) {
            json_tokener_free (tok);
            return NULL;
        }
    }
    json_tokener_reset (tok);
    return tok;
}

/* A string value without an embedded NUL (the event keeps C strings, so a
 * \u0000 would not survive into the canonical form). */
static bool str_whole (json_object *v)
{
    const char *s = json_object_get_string (v);
    return s && strlen (s) == (size_t) json_object_get_string_len (v);
}

/* Whether text, just parsed into the tree o and the valid Start or End ev,
 * is ev's canonical form, without building a second tree: the tree's keys
 * are exactly build_lease's, in its order, no string holds a NUL, and the
 * tree prints back to text byte for byte. Then the tree and the one
 * jt_event_to_json would build have the same keys in the same order and the
 * same values (strings copied verbatim, names parsed by exact match, the
 * seed's 16 lowercase digits printed back as read, integers as int64), so
 * they print the same. false only means "not shown here": the caller then
 * compares with jt_event_to_json (docs/ledger-format.md 2.3). */
static bool canonical_lease (json_object *o, const jt_event_t *ev, const char *text,
                             size_t len)
{
    const char *k[20];
    size_t n = 0, i = 0, slen = 0;

    if (ev->type != JT_EV_START && ev->type != JT_EV_END)
        return false;
    static const char *const head[] = { "v",     "type",  "id",   "time", "lease",
                                        "run",   "group", "nodes", "gpus", "role",
                                        "envelope", "owner", "start" };
    for (size_t j = 0; j < NELEM (head); j++)
        k[n++] = head[j];
    if (ev->type == JT_EV_START && ev->conformance)
        k[n++] = "conformance";
    if (ev->type == JT_EV_END) {
        k[n++] = "end";
        k[n++] = "reason";
        if (ev->reason == JT_REASON_RANDOM_PREEMPT)
            k[n++] = "seed";
    }
    if (ev->note)
        k[n++] = "note";
    json_object_object_foreach (o, key, val)
    {
        if (i >= n || strcmp (key, k[i++]))
            return false;
        if (json_object_is_type (val, json_type_string) && !str_whole (val))
            return false;
        if (json_object_is_type (val, json_type_array))
            for (size_t j = 0; j < json_object_array_length (val); j++)
                if (!str_whole (json_object_array_get_idx (val, j)))
                    return false;
    }
    if (i != n)
        return false;
    const char *s = json_object_to_json_string_length (
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &slen);
    return s && slen == len && !memcmp (s, text, len);
}

jt_event_t *jt_event_from_json (const char *text, size_t len, jt_error_t *err)
{
    return jt_event_from_json_canon (text, len, NULL, err);
}

jt_event_t *jt_event_from_json_canon (const char *text, size_t len, bool *canonical,
                                      jt_error_t *err)
{
    char *sat;
    json_tokener *tok = tok_get ();
    json_object *o = NULL;
    jt_event_t *ev = NULL;
    int64_t v = 0;
    char *type = NULL;

    if (!tok) {
        jt_errprintf (err, "out of memory");
        return NULL;
    }
    json_tokener_set_flags (tok, JSON_TOKENER_STRICT);
    sat = jt_json_saturate_ints (text, len);   /* json-c 0.17+: jsonutil.h */
    o = json_tokener_parse_ex (tok, sat ? sat : text, (int) len);
    free (sat);
    if (!o || json_tokener_get_error (tok) != json_tokener_success
        || tok->char_offset != (int) len) {
        jt_errprintf (err, "not a JSON object: %s",
                      o ? "trailing bytes"
                        : json_tokener_error_desc (json_tokener_get_error (tok)));
        goto error;
    }
    if (!json_object_is_type (o, json_type_object)) {
        jt_errprintf (err, "not a JSON object");
        goto error;
    }
    if (get_int (o, "v", true, &v, err) < 0)
        goto error;
    if (v != 1) {
        jt_errprintf (err, "v: unsupported event version %" PRId64, v);
        goto error;
    }
    if (get_str (o, "type", true, &type, err) < 0)
        goto error;
    if (!(ev = jt_event_create (jt_ev_type_parse (type)))) {
        jt_errprintf (err, "out of memory");
        goto error;
    }
    if (ev->type == JT_EV_NONE) {
        jt_errprintf (err, "type: unknown event type '%s'", type);
        goto error;
    }
    if (get_str (o, "id", true, &ev->id, err) < 0
        || get_int (o, "time", true, &ev->time, err) < 0
        || get_str (o, "note", false, &ev->note, err) < 0 || parse_body (o, ev, err) < 0
        || jt_event_validate (ev, err) < 0)
        goto error;
    if (canonical && !(*canonical = canonical_lease (o, ev, text, len))) {
        jt_error_t cerr = { "" };
        char *canon = jt_event_to_json (ev, &cerr); /* NULL: ENOMEM, "not shown" */
        *canonical = canon && strlen (canon) == len && !memcmp (canon, text, len);
        free (canon);
    }
    free (type);
    json_object_put (o);
    return ev;
error:
    free (type);
    jt_event_destroy (ev);
    json_object_put (o);
    return NULL;
}

/* ---- events parsed ahead of the fold (jt_ledger_read_pre) ---- */

struct ev_pre {
    jt_event_t *ev;      /* NULL: taken, or the parse failed (err) */
    bool with_flag;      /* canonical was decided */
    bool canonical;
    jt_error_t err;
};

static const bool want_flag = true, no_flag = false;

static void *pre_parse (const jt_record_t *rec, void *arg)
{
    struct ev_pre *p = calloc (1, sizeof (*p));
    if (!p)
        return NULL; /* the callback parses it */
    p->with_flag = *(const bool *) arg;
    p->ev = jt_event_from_json_canon (rec->payload, rec->len,
                                      p->with_flag ? &p->canonical : NULL, &p->err);
    if (!p->ev && errno == ENOMEM && !strcmp (p->err.text, "out of memory")) {
        free (p); /* the callback tries again and says so itself */
        return NULL;
    }
    return p;
}

static void pre_release (void *arg)
{
    struct ev_pre *p = arg;
    jt_event_destroy (p->ev);
    free (p);
}

void jt_ledger_pre_events (jt_ledger_pre_t *pre, bool canonical)
{
    pre->parse = pre_parse;
    pre->release = pre_release;
    pre->arg = (void *) (canonical ? &want_flag : &no_flag);
}

jt_event_t *jt_record_event (const jt_record_t *rec, bool *canonical, jt_error_t *err)
{
    struct ev_pre *p = rec->pre;
    if (!p || (canonical && !p->with_flag))
        return jt_event_from_json_canon (rec->payload, rec->len, canonical, err);
    if (!p->ev) {
        jt_errprintf (err, "%s", p->err.text);
        return NULL;
    }
    if (canonical)
        *canonical = p->canonical;
    jt_event_t *ev = p->ev;
    p->ev = NULL;
    return ev;
}
