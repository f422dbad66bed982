/*
 * activate.c - unit tests of activation (jobtree/activate.h): the worked
 * example's deficit on B resolved by cuts then the lottery, each rule as a
 * named test that fails when the rule is broken (spares first, shrink by
 * whole groups highest first and never below the minimum, whole gangs,
 * local gain over global cost, alternatives in preference order, nothing
 * cut when nothing can cover), and properties over random holders (fixed
 * seeds): victims are whole gangs, freed <= deficit + the last gang,
 * structural cuts before the lottery, the same input in any order gives the
 * same victims.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/activate.h"
#include "fixtures.h"
#include "tap.h"

#define A 0
#define B 1
#define C 2

/* holder: run, owner, group, role, gpus, pool, run GPUs, run minimum */
#define H(run, owner, group, role, gpus, pool, rg, rmin) \
    { run, owner, group, JT_ROLE_##role, gpus, pool, rg, rmin }

/* Activate with one alternative of the given needs; the dump (static). */
static const char *act (const jt_holder_t *h, size_t nh, const jt_need_t *needs,
                        size_t nneeds, jt_activation_t *keep)
{
    static char buf[4096];
    jt_slice_alt_t alt = { needs, nneeds };
    jt_activation_req_t req = { "west/B", "r-1", fx_time (FX_NOW), &alt, 1, h, nh };
    jt_activation_t a;
    jt_error_t err;
    char *d;

    if (jt_activate (&req, &a, &err) < 0) {
        snprintf (buf, sizeof (buf), "error: %s", err.text);
        return buf;
    }
    d = jt_activation_dump (&a, &req);
    snprintf (buf, sizeof (buf), "%s", d ? d : "(ENOMEM)");
    free (d);
    if (keep)
        *keep = a;
    else
        jt_activation_free (&a);
    return buf;
}

/* Everything after "rho=XXXXXXXXXXXXXXXX" (the seed is checked once). */
static const char *cuts (const char *dump)
{
    const char *p = strstr (dump, " | ");
    return p ? p + 3 : "";
}

/* The calculus's worked example (seed 000 section 8): group 1 (64) fits
 * A; group 2 (64) needs B, where 48 are free: deficit 16 at activation,
 * here 24 with a malleable neighbour and a spare so that every step runs:
 * the spare (8), one malleable group (8), then the lottery for 8 among the
 * local gangs (g2 spans B and C and would lose more than it frees). */
static void test_worked_example (void)
{
    const jt_holder_t h[] = {
        H ("s1", "vision", 0, SPARE, 8, B, 16, 16),
        H ("s1", "vision", 0, ACTIVE, 16, A, 16, 16),
        H ("m1", "vision", 0, ACTIVE, 8, B, 16, 8),
        H ("m1", "vision", 1, ACTIVE, 8, B, 16, 8),
        H ("g1", "research", 0, ACTIVE, 16, B, 16, 16),
        H ("g2", "rai", 0, ACTIVE, 24, B, 64, 64),
        H ("g2", "rai", 1, ACTIVE, 40, C, 64, 64),
    };
    const jt_need_t need[] = { { B, 24 } };
    jt_activation_t a;
    const char *d = act (h, 7, need, 1, &a);

    ok (a.resolved, "resolved: %s", d);
    is (cuts (d), "DropSpare s1/0 | Shrink m1/1 | RandomPreempt g1/0 draw 0 owner 0/2 run 0/1",
        "spare, then m1's highest group, then the lottery among the local gangs"
        " (research, vision): it drew research's g1");
    ok (a.freed - a.deficit <= 16, "freed %lld for a deficit of %lld: over by no more"
        " than the last gang", (long long) a.freed, (long long) a.deficit);
    is_int (a.ndraws, 1, "one draw");
    jt_activation_free (&a);

    const jt_need_t need16[] = { { B, 16 } };
    is (cuts (act (h, 7, need16, 1, NULL)), "DropSpare s1/0 | Shrink m1/1",
        "deficit 16 (the example's): the structural cuts suffice, no lottery");
}

static void test_no_deficit (void)
{
    const jt_holder_t h[] = { H ("g1", "rai", 0, ACTIVE, 16, B, 16, 16) };
    const jt_need_t need[] = { { B, 0 } };

    is (act (h, 1, need, 1, NULL),
        "resolved alt=0 deficit=0 freed=0 rho=85aa9c757fc1dbcd",
        "no deficit: nothing is cut; the seed is still published");
}

/* One rule each: holders, a deficit in B, the cuts expected. */
static const struct rule_case {
    const char *name;
    jt_holder_t h[6];
    size_t nh;
    int64_t deficit;
    const char *want;
} rules[] = {
    { "a spare in the short pool goes before any gang; a spare elsewhere stays",
      { H ("g1", "rai", 0, ACTIVE, 8, B, 8, 8), H ("z9", "vision", 2, SPARE, 8, B, 32, 32),
        H ("a1", "vision", 0, SPARE, 8, A, 8, 8) }, 3, 8, "DropSpare z9/2" },
#define SHRINKERS \
        H ("m1", "rai", 0, ACTIVE, 8, B, 32, 16), H ("m1", "rai", 1, ACTIVE, 8, B, 32, 16), \
        H ("m1", "rai", 2, ACTIVE, 8, B, 32, 16), H ("m1", "rai", 3, ACTIVE, 8, A, 32, 16), \
        H ("g1", "vision", 0, ACTIVE, 16, B, 16, 16)
    { "shrink by whole groups in the short pool, highest first (group 3 is on A)",
      { SHRINKERS }, 5, 16, "Shrink m1/2 | Shrink m1/1" },
    { "never below the minimum (16): the rest goes to the lottery, which drew"
      " rai's m1, taken whole (its group on A too)",
      { SHRINKERS }, 5, 24, "Shrink m1/2 | Shrink m1/1 | RandomPreempt m1/0 draw 0"
      " owner 0/2 run 0/1 | RandomPreempt m1/3 draw 0 owner 0/2 run 0/1" },
    { "a gang is taken whole, never part of it (even when 8 of 24 suffice)",
      { H ("g1", "rai", 0, ACTIVE, 8, B, 24, 24), H ("g1", "rai", 1, ACTIVE, 8, B, 24, 24),
        H ("g1", "rai", 2, ACTIVE, 8, B, 24, 24) }, 3, 8,
      "RandomPreempt g1/0 draw 0 owner 0/1 run 0/1 | RandomPreempt g1/1 draw 0"
      " owner 0/1 run 0/1 | RandomPreempt g1/2 draw 0 owner 0/1 run 0/1" },
#define WIDE_NEAR \
        H ("wide", "aaa", 0, ACTIVE, 8, B, 64, 64), H ("wide", "aaa", 1, ACTIVE, 56, C, 64, 64), \
        H ("near", "zzz", 0, ACTIVE, 16, B, 16, 16)
    { "a gang losing more elsewhere than it frees here is left out when a"
      " local one covers the deficit",
      { WIDE_NEAR }, 3, 8, "RandomPreempt near/0 draw 0 owner 0/1 run 0/1" },
    { "when the local gangs cannot cover it, every gang is in the set",
      { WIDE_NEAR }, 3, 24, "RandomPreempt wide/0 draw 0 owner 0/2 run 0/1"
      " | RandomPreempt wide/1 draw 0 owner 0/2 run 0/1 | RandomPreempt near/0"
      " draw 1 owner 0/1 run 0/1" },
};

static void test_rules (void)
{
    for (size_t i = 0; i < sizeof (rules) / sizeof (rules[0]); i++) {
        const jt_need_t need[] = { { B, rules[i].deficit } };
        is (cuts (act (rules[i].h, rules[i].nh, need, 1, NULL)), rules[i].want,
            "%s", rules[i].name);
    }
}

static void test_alternatives (void)
{
    const jt_holder_t h[] = {
        H ("g1", "rai", 0, ACTIVE, 8, A, 8, 8),
        H ("g2", "rai", 0, ACTIVE, 16, B, 16, 16),
    };
    const jt_need_t on_a[] = { { A, 16 } }, on_b[] = { { B, 16 } };
    const jt_slice_alt_t alts[] = { { on_a, 1 }, { on_b, 1 } };
    jt_activation_req_t req = { "west", "r-2", fx_time (FX_NOW), alts, 2, h, 2 };
    jt_activation_t a;
    jt_error_t err;

    ok (jt_activate (&req, &a, &err) == 0 && a.resolved && a.alt == 1
        && a.ncuts == 1 && !strcmp (h[a.cuts[0].holder].run, "g2"),
        "domains in preference order: A cannot be covered (8 < 16), nothing"
        " is cut there; B wins");
    jt_activation_free (&a);
    req.nalts = 1;
    ok (jt_activate (&req, &a, &err) == 0 && !a.resolved && a.alt == 1
        && a.ncuts == 0, "no alternative coverable: unresolved, nothing cut");
    jt_activation_free (&a);
}

static void test_multi_pool (void)
{
    /* funding: lender envelope pool 7 short by 16; borrowers hold it */
    const jt_holder_t h[] = {
        H ("b1", "vision", 0, ACTIVE, 8, 7, 8, 8),
        H ("b2", "vision", 0, ACTIVE, 8, 7, 8, 8),
        H ("b3", "research", 0, ACTIVE, 8, 7, 8, 8),
        H ("own", "rai", 0, ACTIVE, 8, 5, 8, 8),
    };
    const jt_need_t need[] = { { 7, 16 } };
    jt_activation_t a;
    const char *d = act (h, 4, need, 1, &a);

    ok (a.resolved && a.freed == 16 && a.ndraws == 2,
        "reclaim: borrowers of the lender's envelope are the set; two whole"
        " gangs free exactly 16: %s", d);
    ok (!strstr (d, "own/"), "the lender's own run is not in the set");
    jt_activation_free (&a);
}

/* ---- properties over random holders ---- */

typedef struct rcase {
    jt_holder_t h[40];
    char names[40][24], owners[5][8];
    size_t n;
    jt_need_t need[2];
    size_t nneeds;
} rcase_t;

static void random_case (rcase_t *c)
{
    size_t runs = 1 + (size_t) fx_pick (12);

    memset (c, 0, sizeof (*c));
    for (int o = 0; o < 5; o++)
        snprintf (c->owners[o], sizeof (c->owners[o]), "o%d", o);
    for (size_t r = 0; r < runs && c->n < 36; r++) {
        size_t groups = 1 + (size_t) fx_pick (3);
        int64_t gpus = 8 * (1 + fx_pick (2)), total = (int64_t) groups * gpus;
        bool malleable = fx_pick (3) == 0;
        const char *owner = c->owners[fx_pick (5)];
        snprintf (c->names[r], sizeof (c->names[r]), "r%02zu", r);
        for (size_t g = 0; g < groups; g++)
            c->h[c->n++] = (jt_holder_t){ c->names[r], owner, (int) g,
                                          JT_ROLE_ACTIVE, gpus, (size_t) fx_pick (3),
                                          total, malleable ? gpus : total };
        if (fx_pick (4) == 0)
            c->h[c->n++] = (jt_holder_t){ c->names[r], owner, 0, JT_ROLE_SPARE, 8,
                                          (size_t) fx_pick (3), total,
                                          malleable ? gpus : total };
    }
    c->nneeds = 1 + (size_t) fx_pick (2);
    for (size_t i = 0; i < c->nneeds; i++)
        c->need[i] = (jt_need_t){ i, 8 * (int64_t) fx_pick (6) };
}

/* The cut set as sorted "kind run/group" lines (order-free). */
static char *cut_set (const jt_activation_t *a, const jt_holder_t *h)
{
    char lines[80][64], *out = calloc (80 * 64 + 1, 1);
    size_t n = 0;

    for (size_t i = 0; i < a->ncuts && n < 80; i++)
        snprintf (lines[n++], 64, "%s %s/%d/%zu", jt_cut_kind_str (a->cuts[i].kind),
                  h[a->cuts[i].holder].run, h[a->cuts[i].holder].group,
                  (size_t) h[a->cuts[i].holder].role);
    qsort (lines, n, 64, (int (*) (const void *, const void *)) strcmp);
    for (size_t i = 0; i < n; i++) {
        strcat (out, lines[i]);
        strcat (out, "\n");
    }
    return out;
}

static void test_properties (void)
{
    int cases = 0, whole = 0, bounded = 0, ordered = 0, same = 0, lot = 0;
    int single = 0;

    fx_seed (20261124);
    for (int k = 0; k < 400; k++) {
        rcase_t c, sh;
        jt_slice_alt_t alt;
        jt_activation_req_t req;
        jt_activation_t a, b;
        jt_error_t err;
        bool ok_whole = true, ok_order = true;
        int last_kind = 0;
        int64_t last_gang = 0;
        char *s1, *s2;

        random_case (&c);
        alt = (jt_slice_alt_t){ c.need, c.nneeds };
        req = (jt_activation_req_t){ "p", "r", fx_time (FX_NOW) + k, &alt, 1, c.h, c.n };
        if (jt_activate (&req, &a, &err) < 0)
            bail_out ("activate: %s", err.text);
        cases++;
        lot += a.ndraws > 0;
        /* whole gangs: a run drawn has every holder cut */
        for (size_t i = 0; i < a.ndraws; i++)
            for (size_t h = 0; h < c.n; h++)
                if (!strcmp (c.h[h].run, a.draws[i].run_id)) {
                    bool found = false;
                    for (size_t j = 0; j < a.ncuts; j++)
                        found = found || a.cuts[j].holder == h;
                    ok_whole = ok_whole && found;
                }
        whole += ok_whole;
        /* cuts in order: spares, shrink, lottery; the last gang's GPUs in
         * the needs' pools */
        for (size_t j = 0; j < a.ncuts; j++) {
            ok_order = ok_order && (int) a.cuts[j].kind >= last_kind;
            last_kind = (int) a.cuts[j].kind;
        }
        ordered += ok_order;
        if (a.ndraws) {
            const char *r = a.draws[a.ndraws - 1].run_id;
            for (size_t h = 0; h < c.n; h++)
                if (!strcmp (c.h[h].run, r) && c.h[h].pool < c.nneeds)
                    last_gang += c.h[h].gpus;
        } else
            last_gang = 16;     /* a spare or a malleable group: at most 16 */
        /* one short pool: the bound exactly (several pools: a
         * gang taken for one also frees what it holds in the others) */
        if (c.nneeds == 1) {
            single++;
            bounded += !a.resolved || a.freed <= a.deficit + last_gang;
        }
        /* the same holders in another order: the same cuts */
        sh = c;
        for (size_t i = sh.n; i > 1; i--) {
            size_t j = (size_t) fx_pick ((int) i);
            jt_holder_t t = sh.h[i - 1];
            sh.h[i - 1] = sh.h[j];
            sh.h[j] = t;
        }
        req.holders = sh.h;
        if (jt_activate (&req, &b, &err) < 0)
            bail_out ("activate: %s", err.text);
        s1 = cut_set (&a, c.h);
        s2 = cut_set (&b, sh.h);
        same += !strcmp (s1, s2) && a.resolved == b.resolved;
        free (s1);
        free (s2);
        jt_activation_free (&a);
        jt_activation_free (&b);
    }
    ok (lot > 50, "the lottery ran in %d of %d cases", lot, cases);
    is_int (whole, cases, "victims of the lottery are whole gangs");
    is_int (ordered, cases, "structural cuts always come before the lottery");
    is_int (bounded, single, "one short pool: freed <= deficit + the GPUs of the"
            " last gang taken (%d cases)", single);
    is_int (same, cases, "the same holders in any order give the same victims");
}

/* The slice of a reserved run in a live snapshot (jt_activation_slice):
 * domains west/A (a01..a04) and west/B (b01..b04); rai's c1:1 on a01 a02,
 * bob's c1:2 on a03 and c1:3 on b01..b03 (with a spare on b04's
 * neighbour... none: b04 is free), a04 busy with a job that is no lease
 * (frees nothing), c1:7 may not give way. The run needs 2 nodes. */
static int yield_all_but_7 (const char *run, int64_t *min, void *arg)
{
    (void) arg;
    if (!strcmp (run, "c1:3"))
        *min = 8;                               /* malleable down to 8 */
    return strcmp (run, "c1:7") != 0;
}

#define SNODE(n, d, used) \
    "{\"name\":\"" n "\",\"flavor\":\"h100\",\"gpus\":8,\"usedGPUs\":" #used "," \
    "\"labels\":{\"region\":\"west\",\"fabric.domain\":\"" d "\"}}"
#define SLEASE(run, owner, g, role, gpus, nodes) \
    "{\"run\":\"" run "\",\"group\":" #g ",\"owner\":\"" owner "\"," \
    "\"envelope\":\"west-h100\",\"nodes\":[" nodes "],\"gpus\":" #gpus "," \
    "\"role\":\"" role "\",\"start\":\"2026-03-01T10:00:00Z\"}"

static void test_slice (void)
{
    const char *text =
        "{\"time\":\"2026-03-01T12:00:00Z\",\"nodes\":["
        SNODE ("a01", "A", 8) "," SNODE ("a02", "A", 8) "," SNODE ("a03", "A", 8) ","
        SNODE ("a04", "A", 8) "," SNODE ("b01", "B", 8) "," SNODE ("b02", "B", 8) ","
        SNODE ("b03", "B", 8) "," SNODE ("b04", "B", 0) "," SNODE ("c01", "C", 8)
        "],\"leases\":["
        SLEASE ("c1:1", "rai", 0, "Active", 16, "\"a01\",\"a02\"") ","
        SLEASE ("c1:2", "bob", 0, "Active", 8, "\"a03\"") ","
        SLEASE ("c1:3", "bob", 0, "Active", 16, "\"b01\",\"b02\"") ","
        SLEASE ("c1:3", "bob", 1, "Spare", 8, "\"b03\"") ","
        SLEASE ("c1:7", "eve", 0, "Active", 8, "\"c01\"") "]}";
    jt_snapshot_t *s = NULL;
    const char *why = fx_parse_snapshot (text, &s);
    jt_node_set_t sets[3];
    size_t na[4], nb[4], nall[9];
    jt_activation_slice_t sl;
    jt_activation_t a;
    jt_error_t err;
    char *d;

    is (why, "", "slice snapshot parses");
    if (!s)
        return;
    for (size_t k = 0; k < 4; k++) {
        na[k] = (size_t) jt_snapshot_node_index (s, (char[]){ 'a', '0', (char) ('1' + k), 0 });
        nb[k] = (size_t) jt_snapshot_node_index (s, (char[]){ 'b', '0', (char) ('1' + k), 0 });
        nall[k] = na[k];
        nall[4 + k] = nb[k];
    }
    nall[8] = (size_t) jt_snapshot_node_index (s, "c01");
    sets[0] = (jt_node_set_t){ na, 4, (int) jt_snapshot_domain_index (s, "west/A") };
    sets[1] = (jt_node_set_t){ nb, 4, (int) jt_snapshot_domain_index (s, "west/B") };
    sets[2] = (jt_node_set_t){ nall, 9, -1 };   /* across domains: no alternative */

    is_int (jt_activation_slice (s, sets, 3, 2, "h100", NULL, "c1:9", "c1:9:resv:100",
                                 fx_time (FX_NOW), true, yield_all_but_7, NULL,
                                 &sl, &err), 0, "slice built");
    is_int ((int) sl.req.nalts, 2, "one alternative per single-domain set");
    is (sl.scope, "west/A,west/B", "scope: the pools in preference order");
    ok (sl.needs[0].deficit == 16 && sl.needs[1].deficit == 8,
        "deficits: 2 nodes on A (none free), 2 on B (b04 free)");
    {
        char buf[512] = "";
        for (size_t h = 0; h < sl.req.nholders; h++) {
            const jt_holder_t *x = &sl.req.holders[h];
            snprintf (buf + strlen (buf), sizeof (buf) - strlen (buf),
                      "%s%s/%d %s %s %lld@%s cost %lld min %lld", h ? "; " : "",
                      x->run, x->group, x->owner, jt_role_str (x->role),
                      (long long) x->gpus, sl.pools[x->pool],
                      (long long) x->run_gpus, (long long) x->run_min_gpus);
        }
        is (buf, "c1:1/0 rai Active 16@west/A cost 16 min 16; "
            "c1:2/0 bob Active 8@west/A cost 8 min 8; "
            "c1:3/0 bob Active 16@west/B cost 16 min 8; "
            "c1:3/1 bob Spare 8@west/B cost 16 min 8",
            "holders: yielding leases on nodes only they use (a04 frees nothing, "
            "c1:7 may not give way, the run itself is no holder)");
    }
    is_int (jt_activate (&sl.req, &a, &err), 0, "activation over the slice");
    d = jt_activation_dump (&a, &sl.req);
    ok (d && a.resolved && a.alt == 0, "the first alternative (A) is coverable: %s", d);
    free (d);
    jt_activation_free (&a);
    jt_activation_slice_free (&sl);

    /* Two sets in one domain (group-by classes): one alternative, the
     * first, so no pool is named twice. */
    {
        jt_node_set_t two[2] = { { na, 2, sets[0].domain }, { na + 2, 2, sets[0].domain } };
        is_int (jt_activation_slice (s, two, 2, 2, "h100", NULL, "c1:9", "c1:9:resv:100",
                                     fx_time (FX_NOW), true, yield_all_but_7, NULL,
                                     &sl, &err), 0, "slice over two classes of A");
        ok (sl.req.nalts == 1 && sl.alt_cand[0] == 0 && !strcmp (sl.scope, "west/A"),
            "one alternative per domain: the first class (scope %s, %zu alternatives)",
            sl.scope, sl.req.nalts);
        jt_activation_slice_free (&sl);
    }

    /* Without structural cuts: the spare goes with its gang, no minimum. */
    is_int (jt_activation_slice (s, sets + 1, 1, 2, "h100", NULL, "c1:9", "c1:9:resv:100",
                                 fx_time (FX_NOW), false, yield_all_but_7, NULL,
                                 &sl, &err), 0, "slice without structural cuts");
    ok (sl.req.nholders == 2 && sl.req.holders[1].role == JT_ROLE_ACTIVE
        && sl.req.holders[0].run_gpus == 24 && sl.req.holders[0].run_min_gpus == 24,
        "spare held as Active, cost counts it, not malleable");
    is_int (jt_activate (&sl.req, &a, &err), 0, "activation of B alone");
    {
        size_t n = 0;
        const char **runs = jt_activation_runs (&a, &sl.req, &n, &err);
        ok (a.resolved && n == 1 && !strcmp (runs[0], "c1:3") && a.ncuts == 2,
            "the whole gang c1:3 is the one victim, both its leases cut");
        free (runs);
    }
    jt_activation_free (&a);
    jt_activation_slice_free (&sl);

    /* Room already there: no alternative, nothing to cut. */
    is_int (jt_activation_slice (s, sets + 1, 1, 1, "h100", NULL, "c1:9", "r", 0, true,
                                 yield_all_but_7, NULL, &sl, &err), 0, "one node");
    is_int ((int) sl.req.nalts, 0, "a set with room is no alternative");
    jt_activation_slice_free (&sl);
    jt_snapshot_destroy (s);
}

/* Reclaim: rai's envelope rai-h100 (C=32) lends to bob. With 16 of rai's
 * own and 16 of bob's active, a 16-GPU run of rai is short 16 there, which
 * bob's leases would return; with rai's own 32 active nothing is lent, so
 * nothing is reclaimed; with room, none is needed. Then the slice: only
 * the borrower's leases hold, in the envelope's pool and in the domain. */
static void test_reclaim (void)
{
    jt_budgets_t *b = fx_budgets (FX_LENDER ("rai", 32, true, "\"bob\"", ""),
                                  "{ \"owner\": \"bob\", \"envelopes\": [] }", FX_END);
    const jt_envelope_t *e = b ? jt_budgets_envelope (b, "rai-h100") : NULL;
    jt_run_t *r = fx_run ("{ \"owner\": \"rai\", \"resources\": { \"gpuType\":"
                          " \"h100\", \"totalGPUs\": 16 } }");
    jt_reclaim_t need;
    jt_usage_t u;
    jt_error_t err;

    ok (b && e && r, "reclaim fixtures");
    if (!b || !e || !r)
        return;
    jt_usage_init (&u, b);
    jt_usage_add (&u, e, "rai", JT_ROLE_ACTIVE, 16, 0.0);
    jt_usage_add (&u, e, "bob", JT_ROLE_ACTIVE, 16, 0.0);
    is_int (jt_reclaim_need (b, &u, r, 16, fx_time (FX_NOW), &need, &err), 1,
            "lent GPUs would fund the lender's run: reclaim");
    ok (need.deficit == 16 && !strcmp (need.envelope, "rai-h100")
        && !strcmp (need.owner, "rai"), "deficit 16 on rai-h100 for rai");
    is_int (jt_reclaim_need (b, &u, r, 8, fx_time (FX_NOW), &need, &err), 1,
            "a smaller run reclaims less");
    is_int ((int) need.deficit, 8, "deficit 8");
    jt_usage_free (&u);
    jt_usage_init (&u, b);
    jt_usage_add (&u, e, "rai", JT_ROLE_ACTIVE, 32, 0.0);
    is_int (jt_reclaim_need (b, &u, r, 16, fx_time (FX_NOW), &need, &err), 0,
            "nothing lent: nothing to reclaim");
    jt_usage_free (&u);
    jt_usage_init (&u, b);
    jt_usage_add (&u, e, "bob", JT_ROLE_ACTIVE, 8, 0.0);
    is_int (jt_reclaim_need (b, &u, r, 16, fx_time (FX_NOW), &need, &err), 0,
            "room in its own envelope: nothing to reclaim");
    jt_usage_free (&u);
    jt_budgets_destroy (b);

    /* Only the owner's own envelope's lending is reclaimed, and only when
     * its own concurrency is what is short: a parent's envelope lent away
     * is not rai's to reclaim; a cap that binds makes a cap wait (the
     * other walk of first_short), not a reclaim. */
    b = fx_budgets ("{ \"owner\": \"research\", \"envelopes\": ["
                    FX_ENV ("research-h100", "", 32, ", \"lending\": { \"allow\": true,"
                            " \"to\": [\"bob\"] }") "] }",
                    "{ \"owner\": \"rai\", \"parent\": \"research\", \"envelopes\": [] }",
                    "{ \"owner\": \"bob\", \"envelopes\": [] }", FX_END);
    e = b ? jt_budgets_envelope (b, "research-h100") : NULL;
    ok (b && e, "parent fixtures");
    if (b && e) {
        jt_usage_init (&u, b);
        jt_usage_add (&u, e, "bob", JT_ROLE_ACTIVE, 32, 0.0);
        is_int (jt_reclaim_need (b, &u, r, 16, fx_time (FX_NOW), &need, &err), 0,
                "its parent's envelope lent away: not the run's owner's to reclaim");
        jt_usage_free (&u);
    }
    jt_budgets_destroy (b);
    b = fx_budgets ("{ \"owner\": \"rai\", \"envelopes\": ["
                    FX_ENV ("rai-h100", "", 32, ", \"lending\": { \"allow\": true,"
                            " \"to\": [\"bob\"] }") "],"
                    " \"aggregateCaps\": [ { \"name\": \"rai-total\", \"flavor\": \"h100\","
                    " \"envelopes\": [\"rai-h100\"], \"maxConcurrency\": 16 } ] }",
                    "{ \"owner\": \"bob\", \"envelopes\": [] }", FX_END);
    e = b ? jt_budgets_envelope (b, "rai-h100") : NULL;
    ok (b && e, "cap fixtures");
    if (b && e) {
        jt_usage_init (&u, b);
        jt_usage_add (&u, e, "bob", JT_ROLE_ACTIVE, 16, 0.0);
        is_int (jt_reclaim_need (b, &u, r, 16, fx_time (FX_NOW), &need, &err), 0,
                "16 lent, but the cap (16) is what is short: no reclaim");
        is_int (jt_cap_need (b, &u, r, 16, fx_time (FX_NOW), &need, &err), 1,
                "a cap wait instead");
        ok (need.cap && need.deficit == 16 && !strcmp (need.envelope, "rai-h100"),
            "deficit 16 on rai-h100 under rai-total");
        jt_usage_free (&u);
    }
    jt_run_destroy (r);
    jt_budgets_destroy (b);

    {
        const char *text =
            "{\"time\":\"2026-03-01T12:00:00Z\",\"nodes\":["
            SNODE ("a01", "A", 8) "," SNODE ("a02", "A", 8) ","
            SNODE ("b01", "B", 8) "," SNODE ("b02", "B", 8) "],\"leases\":["
            "{\"run\":\"1\",\"group\":0,\"owner\":\"rai\",\"envelope\":\"rai-h100\","
            "\"nodes\":[\"a01\"],\"gpus\":8,\"role\":\"Active\",\"start\":\"2026-03-01T10:00:00Z\"},"
            "{\"run\":\"2\",\"group\":0,\"owner\":\"bob\",\"envelope\":\"rai-h100\","
            "\"nodes\":[\"a02\"],\"gpus\":8,\"role\":\"Borrowed\",\"start\":\"2026-03-01T10:00:00Z\"},"
            "{\"run\":\"3\",\"group\":0,\"owner\":\"bob\",\"envelope\":\"bob-h100\","
            "\"nodes\":[\"b01\"],\"gpus\":8,\"role\":\"Active\",\"start\":\"2026-03-01T10:00:00Z\"},"
            "{\"run\":\"4\",\"group\":0,\"owner\":\"eve\",\"envelope\":\"rai-h100\","
            "\"nodes\":[\"b02\"],\"gpus\":8,\"role\":\"Borrowed\",\"start\":\"2026-03-01T10:00:00Z\"}]}";
        jt_snapshot_t *s = NULL;
        jt_reclaim_t fund = { "rai-h100", "rai", 8, NULL };
        jt_node_set_t sets[2];
        size_t na[2], nb[2];
        jt_activation_slice_t sl;
        jt_activation_t a;
        char *d;

        is (fx_parse_snapshot (text, &s), "", "reclaim snapshot parses");
        if (!s)
            return;
        na[0] = (size_t) jt_snapshot_node_index (s, "a01");
        na[1] = (size_t) jt_snapshot_node_index (s, "a02");
        nb[0] = (size_t) jt_snapshot_node_index (s, "b01");
        nb[1] = (size_t) jt_snapshot_node_index (s, "b02");
        sets[0] = (jt_node_set_t){ na, 2, (int) jt_snapshot_domain_index (s, "west/A") };
        sets[1] = (jt_node_set_t){ nb, 2, (int) jt_snapshot_domain_index (s, "west/B") };
        is_int (jt_activation_slice (s, sets, 2, 1, "h100", &fund, "9", "r-9", 0,
                                     false, yield_all_but_7, NULL, &sl, &err), 0,
                "reclaim slice");
        is (sl.scope, "envelope:rai-h100,west/A,west/B", "scope: the envelope, then the domains");
        ok (sl.req.nalts == 2 && sl.alts[0].nneeds == 2 && sl.alts[0].needs[0].deficit == 8
            && sl.alts[0].needs[1].deficit == 8,
            "each domain an alternative: the funding deficit and its room deficit");
        {
            char buf[256] = "";
            for (size_t h = 0; h < sl.req.nholders; h++)
                snprintf (buf + strlen (buf), sizeof (buf) - strlen (buf), "%s%s@%s",
                          h ? " " : "", sl.req.holders[h].run,
                          sl.pools[sl.req.holders[h].pool]);
            is (buf, "2@envelope:rai-h100 2@west/A 4@envelope:rai-h100 4@west/B",
                "holders: only the leases rai-h100 pays for other owners "
                "(not rai's own, not bob's own envelope)");
        }
        is_int (jt_activate (&sl.req, &a, &err), 0, "reclaim decided");
        d = jt_activation_dump (&a, &sl.req);
        ok (a.resolved && a.alt == 0 && a.ndraws == 1 && !strcmp (a.draws[0].run_id, "2")
        && a.freed == 16,
        "resolved in A by the one borrower there (it frees funding and room; eve's "
        "frees only funding, so it is left out): %s", d);
        free (d);
        jt_activation_free (&a);
        jt_activation_slice_free (&sl);
        jt_snapshot_destroy (s);
    }
}

/* A funding wait held by an aggregate cap: rai's envelopes ra and rb (64
 * each) under cap rai-total (64). With 48 of ra and 16 of rb active, a
 * 32-GPU run of rai is refused by the cap (not by an envelope's own
 * concurrency, and nothing is lent: no reclaim); rb's own concurrency
 * holds it, the cap's 64 active GPUs could make up 32: activation resolves
 * it like an envelope deficit, every lease the cap's envelopes pay may
 * give way (an envelope outside the cap's never). Before, nothing
 * activated it. */
static void test_cap_wait (void)
{
    jt_budgets_t *b = fx_budgets (
        "{ \"owner\": \"rai\", \"envelopes\": ["
        FX_ENV ("ra", "", 64, "") "," FX_ENV ("rb", "", 64, "") "],"
        " \"aggregateCaps\": [ { \"name\": \"rai-total\", \"flavor\": \"h100\","
        " \"envelopes\": [\"ra\", \"rb\"], \"maxConcurrency\": 64 } ] }",
        "{ \"owner\": \"bob\", \"envelopes\": [" FX_ENV ("bob-h100", "", 64, "")
        "] }", FX_END);
    const jt_envelope_t *ra = b ? jt_budgets_envelope (b, "ra") : NULL;
    const jt_envelope_t *rb = b ? jt_budgets_envelope (b, "rb") : NULL;
    jt_run_t *r = fx_run ("{ \"owner\": \"rai\", \"resources\": { \"gpuType\":"
                          " \"h100\", \"totalGPUs\": 32 } }");
    jt_reclaim_t need;
    jt_usage_t u;
    jt_error_t err;

    ok (b && ra && rb && r, "cap fixtures");
    if (!b || !ra || !rb || !r)
        return;
    jt_usage_init (&u, b);
    jt_usage_add (&u, ra, "rai", JT_ROLE_ACTIVE, 48, 0.0);
    jt_usage_add (&u, rb, "rai", JT_ROLE_ACTIVE, 16, 0.0);
    is_int (jt_reclaim_need (b, &u, r, 32, fx_time (FX_NOW), &need, &err), 0,
            "a cap wait is no reclaim (nothing lent)");
    is_int (jt_cap_need (b, &u, r, 32, fx_time (FX_NOW), &need, &err), 1,
            "the cap holds the funding: an activation applies");
    ok (need.cap && !strcmp (need.cap->name, "rai-total") && need.deficit == 32
        && !strcmp (need.envelope, "rb"),
        "deficit 32 under rai-total, paid by rb (ra's own 16 free could not hold it)");
    is_int (jt_cap_need (b, &u, r, 8, fx_time (FX_NOW), &need, &err), 1,
            "a smaller run: a smaller deficit");
    ok (need.deficit == 8 && !strcmp (need.envelope, "ra"), "deficit 8, ra first");
    jt_usage_free (&u);
    jt_usage_init (&u, b);
    jt_usage_add (&u, ra, "rai", JT_ROLE_ACTIVE, 16, 0.0);
    is_int (jt_cap_need (b, &u, r, 32, fx_time (FX_NOW), &need, &err), 0,
            "room under the cap: nothing to activate");
    jt_usage_free (&u);
    jt_usage_init (&u, b);
    jt_usage_add (&u, ra, "rai", JT_ROLE_ACTIVE, 64, 0.0);
    is_int (jt_cap_need (b, &u, r, 32, fx_time (FX_NOW), &need, &err), 1,
            "ra full, the cap full: rb pays once the cap frees");
    jt_usage_free (&u);
    jt_run_destroy (r);

    {
        const char *text =
            "{\"time\":\"2026-03-01T12:00:00Z\",\"nodes\":["
            SNODE ("a01", "A", 8) "," SNODE ("a02", "A", 8) ","
            SNODE ("b01", "B", 8) "," SNODE ("b02", "B", 8) "],\"leases\":["
            "{\"run\":\"1\",\"group\":0,\"owner\":\"rai\",\"envelope\":\"ra\","
            "\"nodes\":[\"a01\"],\"gpus\":8,\"role\":\"Active\",\"start\":\"2026-03-01T10:00:00Z\"},"
            "{\"run\":\"2\",\"group\":0,\"owner\":\"rai\",\"envelope\":\"rb\","
            "\"nodes\":[\"a02\"],\"gpus\":8,\"role\":\"Active\",\"start\":\"2026-03-01T10:00:00Z\"},"
            "{\"run\":\"3\",\"group\":0,\"owner\":\"bob\",\"envelope\":\"bob-h100\","
            "\"nodes\":[\"b01\"],\"gpus\":8,\"role\":\"Active\",\"start\":\"2026-03-01T10:00:00Z\"},"
            "{\"run\":\"4\",\"group\":0,\"owner\":\"rai\",\"envelope\":\"ra\","
            "\"nodes\":[\"b02\"],\"gpus\":8,\"role\":\"Active\",\"start\":\"2026-03-01T10:00:00Z\"}]}";
        jt_snapshot_t *s = NULL;
        jt_reclaim_t fund = { "rb", "rai", 8, b->caps[0] };
        jt_node_set_t sets[2];
        size_t na[2], nb[2];
        jt_activation_slice_t sl;
        jt_activation_t a;
        char *d;

        is (fx_parse_snapshot (text, &s), "", "cap snapshot parses");
        if (!s) {
            jt_budgets_destroy (b);
            return;
        }
        na[0] = (size_t) jt_snapshot_node_index (s, "a01");
        na[1] = (size_t) jt_snapshot_node_index (s, "a02");
        nb[0] = (size_t) jt_snapshot_node_index (s, "b01");
        nb[1] = (size_t) jt_snapshot_node_index (s, "b02");
        sets[0] = (jt_node_set_t){ na, 2, (int) jt_snapshot_domain_index (s, "west/A") };
        sets[1] = (jt_node_set_t){ nb, 2, (int) jt_snapshot_domain_index (s, "west/B") };
        is_int (jt_activation_slice (s, sets, 2, 1, "h100", &fund, "9", "r-9", 0,
                                     false, yield_all_but_7, NULL, &sl, &err), 0,
                "cap slice");
        is (sl.scope, "cap:rai-total,west/A,west/B", "scope: the cap, then the domains");
        {
            char buf[256] = "";
            for (size_t h = 0; h < sl.req.nholders; h++)
                snprintf (buf + strlen (buf), sizeof (buf) - strlen (buf), "%s%s@%s",
                          h ? " " : "", sl.req.holders[h].run,
                          sl.pools[sl.req.holders[h].pool]);
            is (buf, "1@cap:rai-total 1@west/A 2@cap:rai-total 2@west/A"
                " 4@cap:rai-total 4@west/B",
                "holders: every lease ra or rb pays, whoever owns it (not bob's own)");
        }
        is_int (jt_activate (&sl.req, &a, &err), 0, "cap wait decided");
        d = jt_activation_dump (&a, &sl.req);
        ok (a.resolved && a.alt == 0 && a.ndraws == 1 && a.deficit == 16
            && a.freed == 16 && strcmp (a.draws[0].run_id, "4") != 0,
            "resolved in A by one gang of 8 there: its GPUs under the cap and its"
            " node (deficits 8 + 8, no over-eviction): %s", d);
        free (d);
        jt_activation_free (&a);
        jt_activation_slice_free (&sl);
        jt_snapshot_destroy (s);
    }
    jt_budgets_destroy (b);
}

int main (void)
{
    test_worked_example ();
    test_no_deficit ();
    test_rules ();
    test_alternatives ();
    test_multi_pool ();
    test_properties ();
    test_slice ();
    test_reclaim ();
    test_cap_wait ();
    done_testing ();
}
