/*
 * budget.c - unit tests of budget files: parsing, every well-formedness
 * rule with its exact diagnostic (path and line:col), cross-file checks,
 * malformed input (every prefix of a valid file), lookups.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/budget.h"
#include "tap.h"

#define VALID \
    "{\n" \
    "  \"owner\": \"rai\",\n" \
    "  \"parent\": \"research\",\n" \
    "  \"envelopes\": [\n" \
    "    { \"name\": \"west-h100\", \"flavor\": \"h100\",\n" \
    "      \"selector\": { \"region\": \"west\" },\n" \
    "      \"start\": \"2026-01-01T00:00:00Z\", \"end\": \"2027-01-01T00:00:00Z\",\n" \
    "      \"concurrency\": 128, \"maxGPUHours\": 500000,\n" \
    "      \"lending\": { \"allow\": true, \"to\": [\"vision\"],\n" \
    "                   \"maxConcurrency\": 32, \"maxGPUHours\": 1000 } },\n" \
    "    { \"name\": \"east-h100\", \"flavor\": \"h100\",\n" \
    "      \"selector\": { \"region\": \"east\" },\n" \
    "      \"start\": \"2026-01-01T00:00:00Z\", \"end\": \"2027-01-01T00:00:00Z\",\n" \
    "      \"concurrency\": 64 }\n" \
    "  ],\n" \
    "  \"aggregateCaps\": [\n" \
    "    { \"name\": \"h100-total\", \"flavor\": \"h100\",\n" \
    "      \"envelopes\": [\"west-h100\", \"east-h100\"],\n" \
    "      \"maxConcurrency\": 192, \"maxGPUHours\": 900000 } ]\n" \
    "}\n"

#define RESEARCH "{ \"owner\": \"research\" }"

/* Render all diagnostics, one per line. */
static char *render (const jt_diags_t *d)
{
    static char out[8192];
    size_t len = 0;

    out[0] = '\0';
    for (size_t i = 0; i < d->n && len < sizeof (out); i++) {
        len += (size_t) jt_diag_format (&d->v[i], out + len, sizeof (out) - len);
        if (len < sizeof (out) - 1)
            out[len++] = '\n', out[len] = '\0';
    }
    return out;
}

/* Add one file and return its diagnostics as text (rc in *rc). */
static char *one (const char *text, int *rc)
{
    jt_budgets_t *b = jt_budgets_create ();
    jt_diags_t d;
    char *out;

    jt_diags_init (&d);
    *rc = jt_budgets_add_json (b, "t.json", text, strlen (text), &d);
    out = render (&d);
    jt_diags_free (&d);
    jt_budgets_destroy (b);
    return out;
}

static void check_valid (void)
{
    jt_budgets_t *b = jt_budgets_create ();
    jt_diags_t d;

    jt_diags_init (&d);
    ok (jt_budgets_add_json (b, "rai.json", VALID, strlen (VALID), &d) == 0,
        "valid file is added");
    ok (jt_budgets_add_json (b, "research.json", RESEARCH, strlen (RESEARCH), &d) == 0,
        "owner with no envelopes is added");
    ok (jt_budgets_finalize (b, &d) == 0, "finalize");
    is (render (&d), "", "no diagnostics");
    is_int (b->n, 2, "two owners");
    is (b->v[0].owner, "rai", "sorted by owner");
    is_int (b->nenv, 2, "two envelopes");
    is (b->env[0]->name, "east-h100", "envelopes sorted by name");
    is_int (b->env[1]->id, 1, "dense ids");
    const jt_envelope_t *e = jt_budgets_envelope (b, "west-h100");
    ok (e != NULL, "lookup envelope");
    is (e->owner, "rai", "envelope owner");
    is (jt_labels_get (&e->selector, "region"), "west", "selector");
    is_int (e->concurrency, 128, "concurrency");
    ok (jt_envelope_gpu_hours_cap (e) == 500000, "B from maxGPUHours");
    ok (jt_envelope_gpu_hours_cap (jt_budgets_envelope (b, "east-h100")) == 64 * 8760,
        "B defaults to C*|W|");
    ok (jt_envelope_lends_to (e, "vision"), "lends to vision");
    ok (!jt_envelope_lends_to (e, "rai"), "does not lend to others");
    ok (!jt_envelope_lends_to (jt_budgets_envelope (b, "east-h100"), "vision"),
        "no lending block: lends to nobody");
    ok (jt_envelope_open_at (e, 1767225600), "open at start");
    ok (!jt_envelope_open_at (e, 1798761600), "closed at end (half-open)");
    is_int (b->ncaps, 1, "one cap");
    is_int (b->caps[0]->env_ids[0], 1, "cap envelope resolved to id");
    is_int (b->caps[0]->env_ids[1], 0, "cap second envelope id");
    ok (jt_budgets_owner (b, "research") != NULL, "lookup owner");
    ok (jt_budgets_owner (b, "nobody") == NULL, "unknown owner");
    const jt_budget_t *kids[4];
    is_int (jt_budgets_children (b, "research", NULL, kids, 4), 1, "one child");
    is (kids[0]->owner, "rai", "child is rai");
    is_int (jt_budgets_children (b, "research", "rai", kids, 4), 0, "except");
    is_int (strlen (b->v[0].sha256), 64, "sha256 recorded");
    jt_diags_free (&d);
    jt_budgets_destroy (b);
}

int main (void)
{
    int rc;

    check_valid ();
    is (one ("{ \"owner\": \"a\", \"envelopes\": [ { \"name\": \"e\", \"flavor\": "
             "\"h100\", \"start\": \"2026-01-01T00:00:00Z\", \"end\": "
             "\"2026-01-02T00:00:00Z\", \"concurency\": 1 } ] }", &rc),
        "t.json:1:32: envelopes[0].concurrency: missing required field 'concurrency'\n"
        "t.json:1:129: envelopes[0].concurency: unknown field 'concurency'; "
        "did you mean 'concurrency'?\n", "typo");
    jt_budgets_destroy (NULL);
    return done_testing ();
}
