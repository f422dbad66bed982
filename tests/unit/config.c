/*
 * config.c - unit tests of jobtree.conf parsing (jobtree/conf.h): defaults,
 * every key, file:line diagnostics, and all-or-nothing application.
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
#include <unistd.h>

#include "jobtree/conf.h"
#include "jobtree/snapshot.h"
#include "tap.h"

static int parse (jt_config_t *c, const char *text, jt_diags_t *d)
{
    return jt_config_parse (c, "jobtree.conf", text, strlen (text), d);
}

/* First diagnostic rendered, or "". */
static const char *first_diag (const jt_diags_t *d, char *buf, size_t len)
{
    buf[0] = '\0';
    if (d->n)
        jt_diag_format (&d->v[0], buf, len);
    return buf;
}

int main (void)
{
    jt_config_t *c = jt_config_create ();
    jt_diags_t d;
    char buf[512];

    jt_diags_init (&d);
    ok (c != NULL, "create");
    is (c->budget_dir, JT_CONFIG_DEFAULT_BUDGET_DIR, "default BudgetDir");
    ok (c->unfunded_policy == JT_UNFUNDED_REFUSE, "default refuse");
    ok (!c->plain_gpu_jobs, "plain GPU jobs pass through by default");
    is (c->domain_feature, "fabric.domain", "default domain feature");
    is_int (jt_config_gpus_per_node (c, "h100"), 0, "no GpusPerNode");

    is_int (parse (c, "# comment\n\n  BudgetDir = /srv/budgets  # trailing\n"
                   "unfundedpolicy=passthrough\nPlainGpuJobs=jobtree\n"
                   "GpusPerNode=h100:8,a100:4\nDomainFeature=rack\nDebug=yes", &d),
            0, "good file parses");
    is_int (d.n, 0, "no diagnostics");
    is (c->budget_dir, "/srv/budgets", "BudgetDir trimmed");
    ok (c->unfunded_policy == JT_UNFUNDED_PASSTHROUGH, "keys case-insensitive");
    is (jt_unfunded_policy_str (c->unfunded_policy), "passthrough", "policy name");
    ok (c->plain_gpu_jobs, "PlainGpuJobs=jobtree");
    is_int (jt_config_gpus_per_node (c, "h100"), 8, "h100:8");
    is_int (jt_config_gpus_per_node (c, "a100"), 4, "a100:4");
    is_int (jt_config_gpus_per_node (c, "v100"), 0, "unknown flavor 0");
    is (c->domain_feature, "rack", "DomainFeature");
    ok (c->debug, "Debug=yes");

    is_int (parse (c, "BudgetDir=/other\nFooBar=1\nUnfundedPolicy=maybe\nnoequals\n"
                   "GpusPerNode=h100:0\nBudgetDir=relative\n", &d),
            -1, "bad file refused");
    is_int (d.n, 5, "five findings");
    is (first_diag (&d, buf, sizeof (buf)),
        "jobtree.conf:2: unknown key FooBar (known: BudgetDir, UnfundedPolicy, "
        "PlainGpuJobs, GpusPerNode, DomainFeature, FabricLevels, GroupLevel, "
        "Debug, PackPolicy, MaxWait, LedgerSocket, LedgerSpoolDir, LedgerDir, Score*, DebugCrossCheck)",
        "unknown key with file:line");
    jt_diag_format (&d.v[1], buf, sizeof (buf));
    is (buf, "jobtree.conf:3: UnfundedPolicy must be refuse or passthrough",
        "bad policy");
    jt_diag_format (&d.v[2], buf, sizeof (buf));
    is (buf, "jobtree.conf:4: expected Key=Value, e.g. UnfundedPolicy=refuse",
        "no '='");
    jt_diag_format (&d.v[3], buf, sizeof (buf));
    is (buf, "jobtree.conf:5: GPUs per node must be a whole number 1..1024, "
        "e.g. h100:8", "bad GpusPerNode");
    jt_diag_format (&d.v[4], buf, sizeof (buf));
    is (buf, "jobtree.conf:6: BudgetDir must be an absolute path, e.g. "
        "BudgetDir=/etc/slurm/jobtree/budgets", "relative BudgetDir");
    is (c->budget_dir, "/srv/budgets", "nothing applied from a bad file");
    jt_diags_free (&d);

    jt_diags_init (&d);
    is_int (parse (c, "PlainGpuJobs=Passthrough\nUnfundedPolicy=REFUSE\n", &d), 0,
            "the other words of PlainGpuJobs and UnfundedPolicy");
    ok (!c->plain_gpu_jobs && c->unfunded_policy == JT_UNFUNDED_REFUSE,
        "PlainGpuJobs=passthrough, UnfundedPolicy=refuse (any case)");
    is_int (parse (c, "PlainGpuJobs=yes\n", &d), -1, "bad PlainGpuJobs refused");
    is (first_diag (&d, buf, sizeof (buf)),
        "jobtree.conf:1: PlainGpuJobs must be passthrough or jobtree", "bad PlainGpuJobs");
    jt_diags_free (&d);

    jt_diags_init (&d);
    is_int (parse (c, "GpusPerNode=h100:8,h100:4", &d), -1, "duplicate flavor");
    is (first_diag (&d, buf, sizeof (buf)), "jobtree.conf:1: flavor h100 listed twice",
        "duplicate named");
    jt_diags_free (&d);

    /* Ledger and Pack keys. */
    jt_diags_init (&d);
    ok (c->ledger_socket == NULL && c->ledger_spool_dir == NULL
        && c->ledger_dir == NULL, "ledger off by default");
    ok (c->pack_policy == JT_PACK_BEST_FIT && !c->pack_policy_set,
        "best-fit by default");
    is_int (parse (c, "LedgerSocket=/run/jt/l.sock\nLedgerSpoolDir=/var/spool/jt\n"
                   "LedgerDir=/var/lib/jt\nPackPolicy=best-fit\n", &d),
            0, "ledger keys parse");
    is (c->ledger_socket, "/run/jt/l.sock", "LedgerSocket");
    is (c->ledger_spool_dir, "/var/spool/jt", "LedgerSpoolDir");
    is (c->ledger_dir, "/var/lib/jt", "LedgerDir");
    ok (c->pack_policy == JT_PACK_BEST_FIT && c->pack_policy_set, "PackPolicy");
    is_int (parse (c, "PackPolicy=widest\nLedgerSocket=rel.sock\n", &d), -1,
            "bad ledger keys");
    is (first_diag (&d, buf, sizeof (buf)),
        "jobtree.conf:1: PackPolicy must be pack-to-empty or best-fit", "bad policy");
    jt_diag_format (&d.v[1], buf, sizeof (buf));
    is (buf, "jobtree.conf:2: LedgerSocket must be an absolute path", "relative socket");
    is (c->ledger_socket, "/run/jt/l.sock", "kept after a bad file");
    is_int (parse (c, "Debug=no\n", &d), 0, "copy keeps ledger keys");
    is (c->ledger_dir, "/var/lib/jt", "LedgerDir survives a later parse");
    jt_diags_free (&d);

    /* MaxWait: a duration, none, or refused with the fix. */
    jt_diags_init (&d);
    ok (c->max_wait == 0, "MaxWait none by default");
    is_int (parse (c, "MaxWait=4h\n", &d), 0, "MaxWait=4h");
    is_int ((int) c->max_wait, 4 * 3600, "MaxWait in seconds");
    is_int (parse (c, "Debug=no\n", &d), 0, "later parse");
    is_int ((int) c->max_wait, 4 * 3600, "MaxWait survives a later parse");
    is_int (parse (c, "MaxWait=none\n", &d), 0, "MaxWait=none");
    ok (c->max_wait == 0, "none is off");
    {
        static const char *const bad[] = { "MaxWait=soon\n", "MaxWait=-5\n",
                                           "MaxWait=400d\n", "MaxWait=4 h\n" };
        for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
            jt_diags_free (&d);
            jt_diags_init (&d);
            is_int (parse (c, bad[i], &d), -1, "bad MaxWait %zu refused", i);
            is (first_diag (&d, buf, sizeof (buf)),
                "jobtree.conf:1: MaxWait must be a duration up to 365 days "
                "(e.g. MaxWait=4h) or none", "bad MaxWait %zu names the fix", i);
        }
    }
    jt_diags_free (&d);
    jt_config_destroy (c);
    jt_config_destroy (NULL);

    /* Files. */
    {
        char path[] = "/tmp/jt-config-XXXXXX";
        int fd = mkstemp (path);
        FILE *f = fdopen (fd, "w");
        fputs ("BudgetDir=/b\n", f);
        fclose (f);
        jt_diags_init (&d);
        c = jt_config_load (path, false, &d);
        ok (c && strcmp (c->budget_dir, "/b") == 0, "load file");
        ok (c && c->file && strcmp (c->file, path) == 0, "file recorded");
        jt_config_destroy (c);
        unlink (path);
        c = jt_config_load (path, true, &d);
        ok (c && c->file == NULL && d.n == 0, "missing file ok: defaults");
        jt_config_destroy (c);
        ok (jt_config_load (path, false, &d) == NULL && d.n == 1, "missing file error");
        jt_diags_free (&d);
    }
    {
        /* FabricLevels and GroupLevel (config_levels.c) */
        jt_config_t *f = jt_config_create ();
        jt_snapshot_t *s = jt_snapshot_create ();
        jt_error_t e;
        jt_diags_free (&d);
        is_int (parse (f, "FabricLevels=block,fabric.spine\n", &d), 0,
                "FabricLevels with and without the prefix");
        is (f->fabric_levels, "fabric.block,fabric.spine", "kept as label keys");
        ok (jt_config_set_levels (f, s, &e) == 0 && s->nlevels == 2
            && strcmp (s->levels[1], "fabric.spine") == 0, "the snapshot's levels");
        is (jt_config_domain_key (f), "fabric.domain", "GroupLevel=domain: "
            "DomainFeature names the domain");
        jt_diags_free (&d);
        is_int (parse (f, "GroupLevel=block\n", &d), 0, "GroupLevel=block");
        ok (jt_config_set_levels (f, s, &e) == 0 && s->nlevels == 1
            && strcmp (s->levels[0], "fabric.spine") == 0,
            "GroupLevel=block: only the spine is above it");
        is (jt_config_domain_key (f), "fabric.block", "and the block is the domain");
        jt_diags_free (&d);
        is_int (parse (f, "GroupLevel=rack\n", &d), -1, "GroupLevel not a level");
        is (first_diag (&d, buf, sizeof (buf)), "jobtree.conf: GroupLevel=rack names"
            " no level of FabricLevels (fabric.block,fabric.spine)",
            "its diagnostic names the levels");
        jt_diags_free (&d);
        is_int (parse (f, "FabricLevels=block,block\n", &d), -1, "a level twice");
        is (first_diag (&d, buf, sizeof (buf)),
            "jobtree.conf:1: FabricLevels names fabric.block twice", "says which");
        jt_diags_free (&d);
        is_int (parse (f, "FabricLevels=domain\n", &d), -1, "domain is no level above");
        jt_diags_free (&d);
        is_int (parse (f, "FabricLevels=a,b,c,d,e\n", &d), -1, "at most 4 levels");
        jt_snapshot_destroy (s);
        jt_config_destroy (f);
        jt_diags_free (&d);
    }
    return done_testing ();
}
