/*
 * options.c - unit tests of the SPANK option parser (jobtree/options.h):
 * every option's good values, each refusal's exact message, and the
 * SPANK-environment round trip used by job_submit.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/budget.h"
#include "jobtree/options.h"
#include "tap.h"

/* Expect a refusal with exactly msg, and the run left as it was. */
static void refused (const char *name, const char *value, const char *msg)
{
    jt_run_t r;
    jt_error_t err = { "" };

    jt_run_init (&r);
    ok (jt_opt_apply (&r, name, value, &err) == -1, "--%s=%s refused", name,
        value ? value : "(none)");
    is (err.text, msg, "message for --%s=%s", name, value ? value : "(none)");
    ok (r.group_gpus == 0 && !r.malleable && r.nsponsors == 0 && !r.allow_borrow
        && r.cross_group_spread && r.checkpoint_s == 0,
        "run unchanged after refusing --%s", name);
    jt_run_clear (&r);
}

static void test_table (void)
{
    const jt_opt_info_t *tab;
    size_t n = jt_opt_table (&tab);

    is_int (n, 10, "ten options");
    is (tab[0].name, "group-gpus", "first is group-gpus");
    is (jt_opt_find ("malleable")->env, "JOBTREE_MALLEABLE", "env name");
    ok (jt_opt_find ("borrow")->arg == JT_OPT_ARG_OPTIONAL, "--borrow value optional");
    ok (jt_opt_find ("nope") == NULL, "unknown option not found");
    for (size_t i = 0; i < n; i++) {
        jt_run_t r;
        jt_error_t err;
        char ex[256];
        /* as a shell passes it: without the quotes around a blank */
        snprintf (ex, sizeof (ex), "%s", strchr (tab[i].example, '=') + 1);
        if (ex[0] == '\'' && strlen (ex) > 1 && ex[strlen (ex) - 1] == '\'') {
            memmove (ex, ex + 1, strlen (ex));
            ex[strlen (ex) - 1] = '\0';
        }
        jt_run_init (&r);
        ok (jt_opt_apply (&r, tab[i].name, ex, &err) == 0,
            "the example %s is accepted", tab[i].example);
        jt_run_clear (&r);
    }
}

static void test_good (void)
{
    jt_run_t r;
    jt_error_t err;

    jt_run_init (&r);
    ok (jt_opt_apply (&r, "group-gpus", "32", &err) == 0, "group-gpus=32");
    is_int (r.group_gpus, 32, "group_gpus set");
    ok (jt_opt_apply (&r, "cross-group-spread", "no", &err) == 0, "spread=no");
    ok (!r.cross_group_spread, "spread off");
    ok (jt_opt_apply (&r, "cross-group-spread", "yes", &err) == 0, "spread=yes");
    ok (r.cross_group_spread, "spread on");
    ok (jt_opt_apply (&r, "malleable", "64:128", &err) == 0, "malleable=64:128");
    ok (r.malleable && r.min_gpus == 64 && r.max_gpus == 128 && !r.step_given,
        "no STEP given");
    jt_opts_finish (&r);
    is_int (r.step_gpus, 32, "STEP defaults to groupGPUs");
    ok (jt_opt_apply (&r, "malleable", "8:8:8", &err) == 0, "malleable=8:8:8");
    is_int (r.step_gpus, 8, "explicit STEP");
    ok (r.step_given, "step_given");
    ok (jt_opt_apply (&r, "spares", "0", &err) == 0, "spares=0");
    ok (jt_opt_apply (&r, "spares", "2", &err) == 0, "spares=2");
    is_int (r.spares_per_group, 2, "spares set");
    ok (jt_opt_apply (&r, "checkpoint", "1h30m", &err) == 0, "checkpoint=1h30m");
    is_int (r.checkpoint_s, 5400, "checkpoint in seconds");
    ok (jt_opt_apply (&r, "checkpoint", "1-00:00:00", &err) == 0, "Slurm time format");
    is_int (r.checkpoint_s, 86400, "one day");
    ok (jt_opt_apply (&r, "checkpoint", "30", &err) == 0, "bare number");
    is_int (r.checkpoint_s, 1800, "a bare number is minutes, as in sbatch --time");
    ok (jt_opt_apply (&r, "borrow", NULL, &err) == 0, "--borrow without value");
    ok (r.allow_borrow && r.max_borrow_gpus == JT_UNSET, "borrow, no cap");
    ok (jt_opt_apply (&r, "borrow", "16", &err) == 0, "--borrow=16");
    is_int (r.max_borrow_gpus, 16, "borrow cap");
    ok (jt_opt_apply (&r, "sponsors", "vision,speech-2,a.b_c", &err) == 0, "sponsors");
    is_int (r.nsponsors, 3, "three sponsors");
    is (r.sponsors[1], "speech-2", "sponsor order kept");
    ok (jt_opt_apply (&r, "sponsors", "x", &err) == 0, "sponsors replaced");
    is_int (r.nsponsors, 1, "one sponsor");
    jt_run_clear (&r);

    jt_run_init (&r);
    ok (jt_opt_apply (&r, "sponsors", "vision", &err) == 0, "sponsors alone");
    ok (r.allow_borrow && r.max_borrow_gpus == JT_UNSET, "--sponsors implies --borrow");
    ok (jt_opt_apply (&r, "malleable", "8:64", &err) == 0, "malleable w/o groups");
    jt_opts_finish (&r);
    is_int (r.step_gpus, 1, "STEP defaults to 1 without groups");
    jt_run_clear (&r);
}

static void test_bad (void)
{
    refused ("group-gpus", "0",
             "--group-gpus=0: must be at least 1, e.g. --group-gpus=32");
    refused ("group-gpus", "x8",
             "--group-gpus=x8: not a whole number, e.g. --group-gpus=32");
    refused ("group-gpus", "-8",
             "--group-gpus=-8: not a whole number, e.g. --group-gpus=32");
    refused ("group-gpus", "99999999999", "--group-gpus=99999999999: too large, "
             "e.g. --group-gpus=32");
    refused ("group-gpus", NULL, "--group-gpus: needs a value, e.g. --group-gpus=32");
    refused ("group-gpus", "", "--group-gpus=: empty value, e.g. --group-gpus=32");
    refused ("cross-group-spread", "maybe",
             "--cross-group-spread=maybe: expected yes, no or no:LEVEL, "
             "e.g. --cross-group-spread=no");
    refused ("malleable", "64:32", "--malleable=64:32: MIN must be <= MAX, "
             "e.g. --malleable=32:64:8");
    refused ("malleable", "64", "--malleable=64: expected MIN:MAX or MIN:MAX:STEP, "
             "e.g. --malleable=32:64:8");
    refused ("malleable", "8:16:4:2", "--malleable=8:16:4:2: expected MIN:MAX or "
             "MIN:MAX:STEP, e.g. --malleable=32:64:8");
    refused ("malleable", "0:16", "--malleable=0:16: MIN must be at least 1, "
             "e.g. --malleable=32:64:8");
    refused ("malleable", "8:x", "--malleable=8:x: MAX is not a whole number, "
             "e.g. --malleable=32:64:8");
    refused ("malleable", "8:16:", "--malleable=8:16:: STEP is not a whole number, "
             "e.g. --malleable=32:64:8");
    refused ("malleable", "8:16:32", "--malleable=8:16:32: STEP must be <= MAX, "
             "e.g. --malleable=32:64:8");
    refused ("spares", "one", "--spares=one: not a whole number, e.g. --spares=1");
    refused ("checkpoint", "soon", "--checkpoint=soon: not a duration, "
             "e.g. --checkpoint=30m");
    refused ("checkpoint", "0", "--checkpoint=0: must be longer than 0, "
             "e.g. --checkpoint=30m");
    refused ("borrow", "0", "--borrow=0: must be at least 1, e.g. --borrow=32");
    refused ("borrow", "lots", "--borrow=lots: not a whole number, e.g. --borrow=32");
    refused ("sponsors", "a,,b", "--sponsors=a,,b: empty owner name, "
             "e.g. --sponsors=vision,speech");
    refused ("sponsors", "a,b,a", "--sponsors=a,b,a: an owner is listed twice, "
             "e.g. --sponsors=vision,speech");
    refused ("sponsors", "a b", "--sponsors=a b: owner names are Slurm accounts "
             "(letters, digits, _ - .), e.g. --sponsors=vision,speech");
    refused ("gpus", "8", "--gpus: not a Jobtree option");
}

/* --group-by and the repeatable --node-constraint. */
static void test_labels (void)
{
    jt_run_t r;
    jt_error_t err = { "" };
    char buf[512];
    static const struct {
        const char *name, *value, *msg;
    } bad[] = {
        { "group-by", "a=b", "--group-by=a=b: not a label name (letters, digits or"
          " . _ - : /, starting with a letter or digit), e.g. --group-by=rack" },
        { "group-by", "-rack", "--group-by=-rack: not a label name (letters, "
          "digits or . _ - : /, starting with a letter or digit), e.g. "
          "--group-by=rack" },
        { "node-constraint", "gpu.mem GE big", "--node-constraint: 'gpu.mem GE "
          "big': GE compares numbers and 'big' is not one (an optional -, at most"
          " 12 digits, optionally . and at most 6 more), e.g. "
          "--node-constraint='gpu.mem GE 80'" },
        { "node-constraint", "gpu.mem >= 80", "--node-constraint: 'gpu.mem >= 80'"
          ": unknown operator '>=' (EQ NE EXISTS NOT_EXISTS GT GE LT LE), e.g. "
          "--node-constraint='gpu.mem GE 80'" },
        { "node-constraint", "rack", "--node-constraint: 'rack': no operator; "
          "write LABEL OP [VALUE], e.g. --node-constraint='gpu.mem GE 80'" },
    };

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        jt_run_init (&r);
        ok (jt_opt_apply (&r, bad[i].name, bad[i].value, &err) < 0
            && !strcmp (err.text, bad[i].msg) && !r.group_by
            && r.constraints.n == 0, "--%s=%s refused: %s", bad[i].name,
            bad[i].value, err.text);
        jt_run_clear (&r);
    }
    jt_run_init (&r);
    ok (jt_opt_apply (&r, "group-by", "rack", &err) == 0
        && jt_opt_apply (&r, "group-by", "tpu-name", &err) == 0
        && !strcmp (r.group_by, "tpu-name"), "--group-by: the last one wins");
    ok (jt_opt_apply (&r, "node-constraint", "gpu.mem GE 80", &err) == 0
        && jt_opt_apply (&r, "node-constraint", "rack.row LT 4;gpu.mem GE 80", &err) == 0
        && jt_opt_apply (&r, "node-constraint", "gpu.mem GE 80", &err) == 0,
        "--node-constraint repeated");
    jt_constraints_format (&r.constraints, buf, sizeof (buf));
    is (buf, "gpu.mem GE 80;rack.row LT 4", "--node-constraint: they add up, "
        "each once, in order");
    ok (jt_opt_apply (&r, "node-constraint", "x EXISTS;y GT z", &err) < 0
        && r.constraints.n == 2, "--node-constraint: a refused value adds nothing");
    ok (jt_opt_find ("node-constraint")->repeatable
        && !jt_opt_find ("group-by")->repeatable, "only --node-constraint repeats");
    jt_run_clear (&r);

    char *env[] = { "JOBTREE_GROUP_BY=rack",
                    "SPANK_JOBTREE_NODE_CONSTRAINT=gpu.mem GE 80;taint:maint NOT_EXISTS" };
    jt_run_init (&r);
    is_int (jt_opts_from_env (&r, env, 2, &err), 2, "env: both found");
    jt_constraints_format (&r.constraints, buf, sizeof (buf));
    ok (r.group_by && !strcmp (r.group_by, "rack")
        && !strcmp (buf, "gpu.mem GE 80;taint:maint NOT_EXISTS"),
        "env: group-by %s, constraints %s", r.group_by, buf);
    jt_run_clear (&r);
}

static void test_env (void)
{
    jt_run_t r;
    jt_error_t err;
    char *env1[] = {
        "SLURM_FOO=1",
        "JOBTREE_SPONSORS=vision",
        "SPANK_JOBTREE_GROUP_GPUS=16",
        "JOBTREE_MALLEABLE=16:64",
        "JOBTREE_BORROW=(null)",
        "_SLURM_SPANK_OPTION_jobtree_spares=3",
        "JOBTREE_GROUP_GPUS_X=1",
        "JOBTREE_CROSS_GROUP_SPREAD=no",
    };
    char *env2[] = { "JOBTREE_SPARES=-1" };
    char *env3[] = { "PATH=/bin", "HOME=/" };
    char *env4[] = { "JOBTREE_BORROW=", "JOBTREE_SPARES=" };

    jt_run_init (&r);
    is_int (jt_opts_from_env (&r, env1, 8, &err), 5, "five Jobtree options found");
    is_int (r.group_gpus, 16, "SPANK_ prefix accepted");
    ok (r.malleable && r.min_gpus == 16 && r.max_gpus == 64, "malleable");
    is_int (r.step_gpus, 16, "STEP defaulted after all options");
    ok (r.allow_borrow && r.max_borrow_gpus == JT_UNSET, "(null) is a flag");
    is_int (r.nsponsors, 1, "sponsors");
    ok (!r.cross_group_spread, "spread off");
    is_int (r.spares_per_group, 0, "automatic _SLURM_SPANK_OPTION_ ignored");
    jt_run_clear (&r);

    jt_run_init (&r);
    is_int (jt_opts_from_env (&r, env2, 1, &err), -1, "bad env value refused");
    is (err.text, "--spares=-1: not a whole number, e.g. --spares=1", "names option");
    jt_run_clear (&r);

    jt_run_init (&r);
    is_int (jt_opts_from_env (&r, env4, 1, &err), 1, "empty value is a flag");
    ok (r.allow_borrow && r.max_borrow_gpus == JT_UNSET, "JOBTREE_BORROW= is --borrow");
    is_int (jt_opts_from_env (&r, env4, 2, &err), -1, "empty required value refused");
    is (err.text, "--spares: needs a value, e.g. --spares=1", "needs a value");
    jt_run_clear (&r);

    jt_run_init (&r);
    is_int (jt_opts_from_env (&r, env3, 2, &err), 0, "no Jobtree option: 0");
    is_int (jt_opts_from_env (&r, NULL, 0, &err), 0, "empty env: 0");
    jt_run_clear (&r);
}

int main (void)
{
    test_table ();
    test_good ();
    test_bad ();
    test_env ();
    test_labels ();
    return done_testing ();
}
