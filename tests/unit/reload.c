/*
 * reload.c - unit tests of the set in force (jobtree/reload.h): a first
 * load, a broken budget file and a broken jobtree.conf keeping the last
 * good set with file:line:col lines, all-or-nothing, picking up a good
 * change, the generation, a first load that fails, and determinism; the
 * last good set kept on disk for a new process (jt_reload_keep_file), its
 * atomic write and its checks when read back.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobtree/reload.h"
#include "tap.h"

static char top[] = "/tmp/jt-reload-XXXXXX";
static char conf_path[256], bdir[256];

#define ENVELOPE(owner, name, conc) \
    "{\n  \"owner\": \"" owner "\",\n  \"envelopes\": [\n" \
    "    { \"name\": \"" name "\", \"flavor\": \"h100\", \"start\": " \
    "\"2026-01-01T00:00:00Z\", \"end\": \"2031-01-01T00:00:00Z\", " \
    "\"concurrency\": " #conc " }\n  ]\n}\n"

static void put (const char *path, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
static void put (const char *path, const char *fmt, ...)
{
    FILE *f = fopen (path, "w");
    va_list ap;

    if (!f)
        bail_out ("cannot write %s", path);
    va_start (ap, fmt);
    vfprintf (f, fmt, ap);
    va_end (ap);
    fclose (f);
}

static char *in (const char *dir, const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf (buf[k], sizeof (buf[k]), "%s/%s", dir, name);
    return buf[k];
}

/* All lines, "E: text" or "I: text", one per line (static buffer). */
static const char *lines (const jt_reload_result_t *r)
{
    static char buf[8192];
    size_t n = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < r->nlines && n < sizeof (buf); i++)
        n += (size_t) snprintf (buf + n, sizeof (buf) - n, "%s: %s\n",
                                r->lines[i].level == JT_RELOAD_ERROR ? "E" : "I",
                                r->lines[i].text);
    return buf;
}

static void test_first_load (jt_reload_t *rl)
{
    jt_reload_result_t r;
    char want[1024];

    ok (jt_reload_conf (rl) == NULL && jt_reload_budgets (rl) == NULL,
        "nothing in force before the first load");
    is_int (jt_reload_gen (rl), 0, "generation 0");
    is (jt_reload_budget_error (rl), "budgets not loaded yet", "why no budgets");

    is_int (jt_reload (rl, conf_path, &r), 0, "first load");
    is_int (r.changed, JT_RELOAD_CONFIG | JT_RELOAD_BUDGETS, "both parts loaded");
    is_int (r.kept, 0, "nothing kept");
    is_int (r.gen, 1, "generation 1");
    snprintf (want, sizeof (want), "I: loaded 2 budget file(s), 2 envelope(s) from %s\n",
              bdir);
    is (lines (&r), want, "one info line");
    is (jt_reload_conf (rl)->budget_dir, bdir, "BudgetDir from jobtree.conf");
    ok (jt_budgets_owner (jt_reload_budgets (rl), "team-a") != NULL, "team-a loaded");
    is (jt_reload_budget_error (rl), "", "no budget error");
    jt_reload_result_free (&r);
}

static void test_broken_budget (jt_reload_t *rl)
{
    jt_reload_result_t r;
    const jt_budgets_t *before = jt_reload_budgets (rl);
    const char *l;
    char want[1024];

    put (in (bdir, "team-a.json"), "{\n  \"owner\": \"team-a\",\n  \"envelopes\": [\n"
         "    { \"name\": \"a\", \"flavor\": \"h100\", \"concurrency\": oops }\n"
         "  ]\n}\n");
    put (in (bdir, "team-c.json"), ENVELOPE ("team-c", "c-east", 16));
    is_int (jt_reload (rl, conf_path, &r), -1, "a broken budget file: -1");
    is_int (r.kept, JT_RELOAD_BUDGETS, "the budgets are kept");
    is_int (r.changed, JT_RELOAD_CONFIG, "jobtree.conf reloaded");
    ok (jt_reload_budgets (rl) == before, "the last good budgets stay in force");
    ok (jt_budgets_owner (before, "team-a") && !jt_budgets_owner (before, "team-c"),
        "all or nothing: team-c's new file not applied");
    l = lines (&r);
    snprintf (want, sizeof (want), "E: %s/team-a.json:4:", bdir);
    ok (strncmp (l, want, strlen (want)) == 0, "first line names file:line: %s",
        r.nlines ? r.lines[0].text : "(none)");
    {
        const char *col = l + strlen (want), *end = col + strspn (col, "0123456789");
        ok (strncmp (l, want, strlen (want)) == 0 && end > col && *end == ':',
            "and a column");
    }
    snprintf (want, sizeof (want), "budget directory %s has errors: keeping the last "
              "good budgets (2 owner(s))", bdir);
    is (r.nlines ? r.lines[r.nlines - 1].text : "", want, "last line says what is kept");
    is_int (r.gen, 2, "generation 2 (jobtree.conf was reloaded)");
    is (jt_reload_budget_error (rl), "", "budgets still in force: no budget error");
    jt_reload_result_free (&r);
}

static void test_broken_conf (jt_reload_t *rl)
{
    jt_reload_result_t r;
    const jt_config_t *before = jt_reload_conf (rl);
    char want[2048];

    put (conf_path, "BudgetDir=%s\nUnfundedPolicy=passthrough\nBudgetDirectory=/x\n",
         bdir);
    is_int (jt_reload (rl, conf_path, &r), -1, "a broken jobtree.conf: -1");
    is_int (r.kept, JT_RELOAD_CONFIG | JT_RELOAD_BUDGETS, "both kept (budgets still bad)");
    is_int (r.changed, 0, "nothing replaced");
    is_int (r.gen, 2, "generation unchanged");
    ok (jt_reload_conf (rl) == before, "the previous configuration stays in force");
    ok (before->unfunded_policy == JT_UNFUNDED_REFUSE, "UnfundedPolicy of line 2 not applied");
    ok (r.nlines >= 2, "lines");
    snprintf (want, sizeof (want), "%s:3: unknown key BudgetDirectory (known: BudgetDir, "
              "UnfundedPolicy, PlainGpuJobs, GpusPerNode, DomainFeature, FabricLevels, "
              "GroupLevel, Debug, "
              "PackPolicy, MaxWait, LedgerSocket, LedgerSpoolDir, LedgerDir, Score*, DebugCrossCheck)", conf_path);
    is (r.nlines ? r.lines[0].text : "", want, "file:line of the bad key");
    snprintf (want, sizeof (want), "%s has errors: keeping the previous configuration",
              conf_path);
    is (r.nlines > 1 ? r.lines[1].text : "", want, "what is kept");
    jt_reload_result_free (&r);
}

static void test_fixed (jt_reload_t *rl)
{
    jt_reload_result_t r;
    const jt_budgets_t *before = jt_reload_budgets (rl);
    char want[1024];

    put (conf_path, "BudgetDir=%s\nUnfundedPolicy=passthrough\n", bdir);
    put (in (bdir, "team-a.json"), ENVELOPE ("team-a", "a-west", 64));
    is_int (jt_reload (rl, conf_path, &r), 0, "fixed: 0");
    is_int (r.changed, JT_RELOAD_CONFIG | JT_RELOAD_BUDGETS, "both replaced");
    is_int (r.gen, 3, "generation 3");
    ok (jt_reload_budgets (rl) != before, "a new budget set");
    ok (jt_budgets_owner (jt_reload_budgets (rl), "team-c") != NULL, "team-c applies");
    ok (jt_reload_conf (rl)->unfunded_policy == JT_UNFUNDED_PASSTHROUGH,
        "the new UnfundedPolicy applies");
    snprintf (want, sizeof (want), "I: loaded 3 budget file(s), 3 envelope(s) from %s\n",
              bdir);
    is (lines (&r), want, "one info line");
    jt_reload_result_free (&r);
}

/* A holder whose first load fails keeps the defaults / no budgets. */
static void test_first_load_fails (void)
{
    jt_reload_t *rl = jt_reload_create ();
    jt_reload_result_t r;
    char want[2048], bad[512];

    snprintf (bad, sizeof (bad), "%s/bad", top);
    if (mkdir (bad, 0700) < 0)
        bail_out ("mkdir");
    put (in (bad, "x.json"), "{ \"owner\": ");
    put (in (top, "bad.conf"), "BudgetDir=%s\n", bad);
    is_int (jt_reload (rl, in (top, "bad.conf"), &r), -1, "first load, bad budgets");
    is_int (r.kept, JT_RELOAD_BUDGETS, "budgets kept (none)");
    ok (jt_reload_budgets (rl) == NULL, "no budgets in force");
    snprintf (want, sizeof (want), "budget directory %s has errors: no budgets loaded",
              bad);
    is (r.nlines ? r.lines[r.nlines - 1].text : "", want, "says none are loaded");
    snprintf (want, sizeof (want), "no valid budgets in %s (%s/x.json:1:", bad, bad);
    ok (strncmp (jt_reload_budget_error (rl), want, strlen (want)) == 0,
        "why: the first problem with file:line:col: %s", jt_reload_budget_error (rl));
    jt_reload_result_free (&r);
    jt_reload_destroy (rl);

    rl = jt_reload_create ();
    put (in (top, "bad.conf"), "BudgetDir=%s\nNope=1\n", bdir);
    is_int (jt_reload (rl, in (top, "bad.conf"), &r), -1, "first load, bad jobtree.conf");
    ok (jt_reload_conf (rl) != NULL, "the defaults are in force");
    is (jt_reload_conf (rl)->budget_dir, "/etc/slurm/jobtree/budgets", "default BudgetDir");
    ok (r.changed & JT_RELOAD_CONFIG, "the defaults count as a change");
    ok (r.kept & JT_RELOAD_CONFIG, "and as kept");
    snprintf (want, sizeof (want), "%s has errors: keeping the default configuration",
              in (top, "bad.conf"));
    is (r.nlines > 1 ? r.lines[1].text : "", want, "says so");
    jt_reload_result_free (&r);
    jt_reload_destroy (rl);

    is_int (jt_reload (NULL, conf_path, &r), -1, "no holder: -1");
    jt_reload_result_free (&r);
    jt_reload_result_free (NULL);
    jt_reload_destroy (NULL);
    ok (jt_reload_conf (NULL) == NULL && jt_reload_gen (NULL) == 0, "NULL holder");

    rl = jt_reload_create ();
    is_int (jt_reload (rl, in (top, "missing.conf"), &r), -1,
            "a missing jobtree.conf means the defaults (then the default BudgetDir)");
    ok (r.changed & JT_RELOAD_CONFIG && !(r.kept & JT_RELOAD_CONFIG),
        "the missing file is not an error");
    jt_reload_result_free (&r);
    jt_reload_destroy (rl);
}

/* The whole text of a file (static buffer), "" when unreadable. */
static const char *slurp (const char *path)
{
    static char buf[16384];
    FILE *f = fopen (path, "r");
    size_t n = f ? fread (buf, 1, sizeof (buf) - 1, f) : 0;

    if (f)
        fclose (f);
    buf[n] = '\0';
    return buf;
}

/* A new holder (a new process) keeping its set at kp: jt_reload's result. */
static jt_reload_t *fresh (const char *kp, const char *conf, jt_reload_result_t *r,
                           int *rc)
{
    jt_reload_t *rl = jt_reload_create ();
    jt_error_t err;

    if (!rl || jt_reload_keep_file (rl, kp, &err) < 0)
        bail_out ("keep_file: %s", err.text);
    *rc = jt_reload (rl, conf, r);
    return rl;
}

/* Does some line of r contain needle? */
static bool has_line (const jt_reload_result_t *r, const char *needle)
{
    return strstr (lines (r), needle) != NULL;
}

/* The last good set on disk: a new holder (Slurm 24.11's reconfigure execs
 * a new slurmctld) finds jobtree.conf and a budget file broken and starts
 * from the set an earlier holder kept, not from the defaults and nothing. */
static void test_kept_on_disk (void)
{
    char dir[512], conf[600], bd[600], kp[600], tmp[700], want[2048];
    char text[16384], *p;
    jt_reload_t *a, *b;
    jt_reload_result_t r;
    jt_error_t err;
    int rc;
    FILE *f;

    snprintf (dir, sizeof (dir), "%s/keep", top);
    snprintf (conf, sizeof (conf), "%s/jobtree.conf", dir);
    snprintf (bd, sizeof (bd), "%s/budgets", dir);
    snprintf (kp, sizeof (kp), "%s/state/jobtree-x.last-good.json", dir);
    snprintf (tmp, sizeof (tmp), "%s.tmp", kp);
    if (mkdir (dir, 0700) < 0 || mkdir (bd, 0700) < 0)
        bail_out ("mkdir");
    put (conf, "BudgetDir=%s\nUnfundedPolicy=passthrough\n", bd);
    put (in (bd, "team-a.json"), ENVELOPE ("team-a", "a-west", 64));
    put (in (bd, "team-b.json"), ENVELOPE ("team-b", "b-east", 64));

    /* No state directory yet: the write fails, the reload does not. */
    a = fresh (kp, conf, &r, &rc);
    is_int (rc, 0, "keep: a failed write of the kept copy is no failed reload");
    snprintf (want, sizeof (want), "E: cannot keep the last good set in %s: %s: ", kp, tmp);
    ok (has_line (&r, want), "keep: and a line names the file: %s", lines (&r));
    jt_reload_result_free (&r);
    jt_reload_destroy (a);

    snprintf (text, sizeof (text), "%s/state", dir);
    if (mkdir (text, 0700) < 0)
        bail_out ("mkdir");
    a = fresh (kp, conf, &r, &rc);
    is_int (rc, 0, "keep: first holder loads");
    snprintf (want, sizeof (want), "I: loaded 2 budget file(s), 2 envelope(s) from %s\n",
              bd);
    is (lines (&r), want, "keep: no other line");
    jt_reload_result_free (&r);
    ok (access (kp, R_OK) == 0 && access (tmp, F_OK) < 0,
        "keep: the kept copy is written, no temporary file left");
    is (jt_reload_keep_path (a), kp, "keep: its path");
    ok (strstr (slurp (kp), "\"format\":\"jobtree-last-good/1\"") != NULL,
        "keep: its format");
    jt_reload_destroy (a);

    /* Break both: a new holder starts from the kept set. */
    put (conf, "BudgetDir=/nowhere\nUnfundedPolicy=oops\n");
    put (in (bd, "team-a.json"), "{ \"owner\": \"team-a\", \"envelopes\": oops }\n");
    put (in (bd, "team-c.json"), ENVELOPE ("team-c", "c-east", 8));
    b = fresh (kp, conf, &r, &rc);
    is_int (rc, -1, "keep: a new holder with broken files: -1");
    is_int (r.changed, JT_RELOAD_CONFIG | JT_RELOAD_BUDGETS,
            "keep: both parts put in force from the kept copy");
    is_int (r.kept, JT_RELOAD_CONFIG | JT_RELOAD_BUDGETS, "keep: both new ones bad");
    ok (jt_reload_conf (b) && strcmp (jt_reload_conf (b)->budget_dir, bd) == 0
        && jt_reload_conf (b)->unfunded_policy == JT_UNFUNDED_PASSTHROUGH,
        "keep: the last good jobtree.conf is in force (BudgetDir, UnfundedPolicy)");
    ok (jt_reload_budgets (b) && jt_reload_budgets (b)->n == 2
        && jt_budgets_owner (jt_reload_budgets (b), "team-a")
        && !jt_budgets_owner (jt_reload_budgets (b), "team-c"),
        "keep: the last good budgets are in force (team-a, not team-c)");
    snprintf (want, sizeof (want), "E: %s has errors: keeping the last good configuration "
              "(%s, kept in %s)\n", conf, conf, kp);
    ok (has_line (&r, want), "keep: says the configuration comes from the kept copy");
    snprintf (want, sizeof (want), "E: budget directory %s has errors: keeping the last "
              "good budgets (2 owner(s)), kept in %s\n", bd, kp);
    ok (has_line (&r, want), "keep: says the budgets come from it: %s", lines (&r));
    snprintf (want, sizeof (want), "E: %s/team-a.json:1:", bd);
    ok (has_line (&r, want), "keep: the broken file is still named");
    is_int (strcmp (jt_reload_budgets (b)->v[0].file, in (bd, "team-a.json")), 0,
            "keep: each budget keeps its file name");
    is (jt_reload_budget_error (b), "", "keep: no budget error");
    jt_reload_result_free (&r);

    /* Fixed: the new set replaces it, in memory and on disk. */
    put (conf, "BudgetDir=%s\n", bd);
    put (in (bd, "team-a.json"), ENVELOPE ("team-a", "a-west", 32));
    is_int (jt_reload (b, conf, &r), 0, "keep: fixed");
    jt_reload_result_free (&r);
    jt_reload_destroy (b);
    put (conf, "BudgetDir=/nowhere\nUnfundedPolicy=oops\n");
    put (in (bd, "team-a.json"), "{ \"owner\": ");
    b = fresh (kp, conf, &r, &rc);
    ok (jt_reload_budgets (b) && jt_budgets_owner (jt_reload_budgets (b), "team-c")
        && jt_reload_conf (b)->unfunded_policy == JT_UNFUNDED_REFUSE,
        "keep: the kept copy follows the set in force (team-c, UnfundedPolicy)");
    jt_reload_result_free (&r);
    jt_reload_destroy (b);

    /* The kept copy is checked when read back: none of these is used. */
    snprintf (text, sizeof (text), "%s", slurp (kp));
    {
        struct { const char *name, *needle; } bad[] = {
            { "truncated", "not a JSON document (truncated?)" },
            { "format", "format: not jobtree-last-good/1" },
            { "sha", "budgets[0]: its text does not match its sha256" },
            { "type", "budgets: expected an array or null" },
            { "huge", "more than the 67108864 a last good set may have" },
        };
        for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
            if (!(f = fopen (kp, "w")))
                bail_out ("write %s", kp);
            if (i == 0)
                fwrite (text, 1, strlen (text) / 2, f);
            else if (i == 1)
                fputs ("{\"format\":\"jobtree-last-good/2\",\"conf\":null,"
                       "\"budgets\":null}", f);
            else if (i == 2) {
                /* the 32 of the first budget's text, not the first 32 of
                 * the file: the temporary directory's random name, in the
                 * paths before it, may hold a 32 (one run in some 20) */
                char *t = strdup (text), *bt = NULL;
                if (!t || !(bt = strstr (t, "\"budgets\":"))
                    || !(bt = strstr (bt, "\"text\":")) || !(p = strstr (bt, "32")))
                    bail_out ("no 32 in the kept copy's first budget text");
                p[0] = '4';     /* the text no longer matches its hash */
                fputs (t, f);
                free (t);
            } else if (i == 3)
                fputs ("{\"format\":\"jobtree-last-good/1\",\"conf\":null,"
                       "\"budgets\":{}}", f);
            fclose (f);
            if (i == 4 && truncate (kp, JT_RELOAD_KEEP_MAX + 1L) < 0)
                bail_out ("truncate");
            b = fresh (kp, conf, &r, &rc);
            snprintf (want, sizeof (want), "E: %s: ", kp);
            ok (jt_reload_budgets (b) == NULL && has_line (&r, want)
                && has_line (&r, bad[i].needle),
                "keep: a kept copy %s: not used, a line says why", bad[i].name);
            if (!has_line (&r, bad[i].needle))
                diag ("%s", lines (&r));
            is (jt_reload_conf (b)->budget_dir, "/etc/slurm/jobtree/budgets",
                "keep: %s: the defaults, as without a copy", bad[i].name);
            jt_reload_result_free (&r);
            jt_reload_destroy (b);
        }
    }

    ok (jt_reload_keep_file (NULL, kp, &err) < 0, "keep: no holder");
    a = jt_reload_create ();
    ok (jt_reload_keep_file (a, "", &err) < 0, "keep: an empty path is refused: %s", err.text);
    ok (jt_reload_keep_file (a, NULL, &err) == 0 && jt_reload_keep_path (a) == NULL,
        "keep: NULL is memory only");
    jt_reload_destroy (a);
}

/* The same files give the same answer, in a new holder or the same one. */
static void test_deterministic (void)
{
    jt_reload_t *a = jt_reload_create (), *b = jt_reload_create ();
    jt_reload_result_t r;
    char first[8192];

    put (in (bdir, "team-b.json"), "{ \"owner\": \"team-b\", \"envelopes\": [ 1, 2 ] }");
    jt_reload (a, conf_path, &r);
    jt_reload_result_free (&r);
    jt_reload (a, conf_path, &r);
    snprintf (first, sizeof (first), "%s", lines (&r));
    jt_reload_result_free (&r);
    jt_reload (b, conf_path, &r);
    jt_reload_result_free (&r);
    jt_reload (b, conf_path, &r);
    is (lines (&r), first, "same lines in another holder");
    is_int (r.gen, jt_reload_gen (a), "same generation after as many reloads");
    ok (r.nlines >= 3, "every problem of the broken file is a line (%zu)", r.nlines);
    jt_reload_result_free (&r);
    jt_reload (a, conf_path, &r);
    is (lines (&r), first, "same lines again");
    is_int (r.gen, jt_reload_gen (b) + 1, "one more generation (jobtree.conf reloaded)");
    jt_reload_result_free (&r);
    jt_reload_destroy (a);
    jt_reload_destroy (b);
}

int main (void)
{
    jt_reload_t *rl;
    char cmd[600];

    if (!mkdtemp (top))
        bail_out ("mkdtemp");
    snprintf (conf_path, sizeof (conf_path), "%s/jobtree.conf", top);
    snprintf (bdir, sizeof (bdir), "%s/budgets", top);
    if (mkdir (bdir, 0700) < 0)
        bail_out ("mkdir");
    put (conf_path, "BudgetDir=%s\n", bdir);
    put (in (bdir, "team-a.json"), ENVELOPE ("team-a", "a-west", 64));
    put (in (bdir, "team-b.json"), ENVELOPE ("team-b", "b-east", 64));
    if (!(rl = jt_reload_create ()))
        bail_out ("create");

    test_first_load (rl);
    test_broken_budget (rl);
    test_broken_conf (rl);
    test_fixed (rl);
    jt_reload_destroy (rl);
    test_first_load_fails ();
    test_deterministic ();
    test_kept_on_disk ();

    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", top);
    if (system (cmd) != 0)
        diag ("could not remove %s", top);
    return done_testing ();
}
