/*
 * cmd_verify.c - `jobtree verify LEDGER...`: check a ledger's records
 * (grammar, hash, sequence, chain, segment names) with the same reader the
 * daemon recovers with, then the calculus's invariants from the events
 * alone (jt_ledger_verify), every lottery recomputed from its Activation
 * event. Prints OK with counts, or the first problem with its sequence
 * number; the exit status names the class (see jobtree-verify(1)). -j N
 * spreads the hashes and the payloads' parse over N threads (default: the
 * online cores; jt_ledger_verify_threads), with the verdicts of one.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "jobtree/ledger.h"
#include "jobtree/ledger_checkpoint.h"

/* Exit statuses, one per class (documented in jobtree-verify(1)). */
enum {
    VX_TRUNCATED = 3,
    VX_CORRUPT = 4,
    VX_BADCHAIN = 5,
    VX_BADSEQ = 6,
    VX_BADHEAD = 7,
    VX_BADEVENT = 8,
    VX_DUPID = 9,
    VX_OVERLAP = 10,
    VX_CONCURRENCY = 11,
    VX_GPUHOURS = 12,
    VX_WINDOW = 13,
    VX_MATCHING = 14,
    VX_LOTTERY = 15,
    VX_PAYER = 16,
    VX_ROLE = 17,
    VX_LENDING = 18,
    VX_AGGREGATE = 19,
    VX_BUDGET_HASH = 20,
    VX_CHECKPOINT = 21,
};

static int status_exit (jt_ledger_status_t s)
{
    switch (s) {
    case JT_LEDGER_OK:
    case JT_LEDGER_EMPTY: return JT_EXIT_OK;
    case JT_LEDGER_TRUNCATED: return VX_TRUNCATED;
    case JT_LEDGER_CORRUPT: return VX_CORRUPT;
    case JT_LEDGER_BADCHAIN: return VX_BADCHAIN;
    case JT_LEDGER_BADSEQ: return VX_BADSEQ;
    case JT_LEDGER_BADHEAD: return VX_BADHEAD;
    default: return JT_EXIT_USAGE;
    }
}

static int violation_exit (jt_violation_kind_t k)
{
    switch (k) {
    case JT_VIOL_BAD_EVENT: return VX_BADEVENT;
    case JT_VIOL_DUP_ID: return VX_DUPID;
    case JT_VIOL_NODE_OVERLAP: return VX_OVERLAP;
    case JT_VIOL_CONCURRENCY: return VX_CONCURRENCY;
    case JT_VIOL_GPU_HOURS: return VX_GPUHOURS;
    case JT_VIOL_WINDOW: return VX_WINDOW;
    case JT_VIOL_LOTTERY: return VX_LOTTERY;
    case JT_VIOL_PAYER: return VX_PAYER;
    case JT_VIOL_ROLE: return VX_ROLE;
    case JT_VIOL_LENDING: return VX_LENDING;
    case JT_VIOL_AGGREGATE: return VX_AGGREGATE;
    case JT_VIOL_BUDGET_HASH: return VX_BUDGET_HASH;
    case JT_VIOL_CHECKPOINT: return VX_CHECKPOINT;
    default: return VX_MATCHING;
    }
}

/* The caps and content of a budget directory, as a BudgetLoaded event (the
 * content is kept however large: it is never written). */
static jt_event_t *load_caps (const char *dir)
{
    jt_diags_t diags;
    jt_error_t err = { "" };
    char line[1024];
    jt_diags_init (&diags);
    jt_budgets_t *b = jt_budgets_load_dir (dir, &diags);
    for (size_t i = 0; i < diags.n; i++) {
        jt_diag_format (&diags.v[i], line, sizeof (line));
        fprintf (stderr, "jobtree verify: %s\n", line);
    }
    jt_diags_free (&diags);
    if (!b)
        return NULL;
    jt_event_t *ev = jt_event_budget_loaded (b, "verify:budgets", 0, &err);
    if (!ev)
        fprintf (stderr, "jobtree verify: %s: %s\n", dir, err.text);
    else if (!ev->budgets) {
        ev->budgets = b;
        b = NULL;
    }
    jt_budgets_destroy (b);
    return ev;
}

/* What verify could check of Cover's rules (payer, role, lending and
 * aggregate caps), and what it could not. */
static void print_budgets (const jt_ledger_fold_t *fold, const char *dir)
{
    jt_fold_budgets_t b;

    jt_ledger_fold_budgets (fold, &b);
    printf ("budgets %" PRIu64 " loaded; payer, role, lending and aggregate caps "
            "checked on %" PRIu64 " leases\n",
            b.loads, b.leases_checked);
    if (dir && b.loads)
        printf ("budgets %s are the budgets loaded at seq %" PRIu64 " (%s)\n", dir,
                b.last_seq, b.last_sha256[0] ? "same content" : "same files");
    else if (dir)
        printf ("budgets %s: the ledger loaded none to compare them with\n", dir);
    if (!b.leases_unchecked)
        return;
    if (!b.loads && !dir)
        printf ("unchecked: %" PRIu64 " leases: no BudgetLoaded records who may pay "
                "(give --budgets DIR)\n",
                b.leases_unchecked);
    else
        printf ("unchecked: %" PRIu64 " leases started under budgets whose content is "
                "not recorded (first: BudgetLoaded seq %" PRIu64 ", previous format or "
                "over %d bytes): payer, role, lending and aggregate caps not checked "
                "for them (give --budgets DIR with those files)\n",
                b.leases_unchecked, b.first_no_content, JT_EV_BUDGETS_MAX);
}

#define THREADS_MAX 256
#define CHUNK_MAX 65536

/* A count from 1 to max in decimal, nothing else (-j's argument). 0, or
 * -1. */
static int parse_count (const char *s, unsigned max, unsigned *out)
{
    unsigned v = 0;
    if (!*s || *s == '0')
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || (v = v * 10 + (unsigned) (*s - '0')) > max)
            return -1;
    }
    *out = v;
    return 0;
}

/* The default of -j: the online cores, within 1 .. THREADS_MAX. */
static unsigned online_cores (void)
{
    long n = sysconf (_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > THREADS_MAX ? THREADS_MAX : (unsigned) n;
}

static void usage (FILE *f)
{
    fprintf (f, "Usage: jobtree verify [--head SEQ:HASH] [--budgets DIR] [--from-checkpoint]\n"
                "                      [-j N] [-q] LEDGER...\n"
                "  LEDGER is a segment file or a directory of segments.\n"
                "  --budgets DIR    check against these budget files (caps and Cover's\n"
                "                   rules) instead of those recorded by BudgetLoaded\n"
                "                   events, and require them to be the budgets loaded last\n"
                "  --head SEQ:HASH  also require record SEQ to have HASH (an anchor\n"
                "                   kept from an earlier run: detects a cut tail)\n"
                "  --from-checkpoint  trust the last checkpoint: load its state and check\n"
                "                   only the records after it, in event order (every\n"
                "                   checkpoint is checked against the full fold without)\n"
                "  -j, --jobs N     check hashes and parse payloads on N threads (1 to\n"
                "                   256; default: the online cores; 1: this one alone)\n"
                "  -q, --quiet      print nothing when OK\n");
}

int cmd_verify (int argc, char **argv)
{
    static const struct option opts[] = {
        { "head", required_argument, NULL, 'H' },
        { "budgets", required_argument, NULL, 'b' },
        { "quiet", no_argument, NULL, 'q' },
        { "from-checkpoint", no_argument, NULL, 'C' },
        { "jobs", required_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *head = NULL, *budgets = NULL;
    bool quiet = false, from_ckpt = false;
    unsigned threads = online_cores ();
    int ch;

    optind = 1;
    while ((ch = getopt_long (argc, argv, "H:b:j:qh", opts, NULL)) != -1) {
        switch (ch) {
        case 'H': head = optarg; break;
        case 'b': budgets = optarg; break;
        case 'q': quiet = true; break;
        case 'C': from_ckpt = true; break;
        case 'j':
            if (parse_count (optarg, THREADS_MAX, &threads) < 0) {
                fprintf (stderr, "jobtree verify: -j '%.32s': a number of threads from 1 "
                                 "to %d\n",
                         optarg, THREADS_MAX);
                return JT_EXIT_USAGE;
            }
            break;
        case 'h': usage (stdout); return JT_EXIT_OK;
        default: usage (stderr); return JT_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        usage (stderr);
        return JT_EXIT_USAGE;
    }
    /* tests: every segment read in chunks of this many records, as a large
     * one is (jobtree-verify(1), ENVIRONMENT) */
    const char *chunk = getenv ("JOBTREE_VERIFY_CHUNK");
    unsigned nchunk = 0;
    if (chunk && (parse_count (chunk, CHUNK_MAX, &nchunk) < 0
                  || jt_ledger_read_test_chunks (nchunk) < 0)) {
        fprintf (stderr, "jobtree verify: JOBTREE_VERIFY_CHUNK '%.32s': records from 1 "
                         "to %d\n",
                 chunk, CHUNK_MAX);
        return JT_EXIT_USAGE;
    }
    if (from_ckpt && head) {
        fprintf (stderr, "jobtree verify: --head needs the whole ledger: drop "
                         "--from-checkpoint, or --head\n");
        return JT_EXIT_USAGE;
    }
    jt_ledger_result_t res;
    jt_violation_t v;
    jt_ledger_fold_t *fold = NULL;
    jt_error_t err = { "" };
    jt_event_t *caps = NULL;
    if (budgets && !(caps = load_caps (budgets)))
        return JT_EXIT_USAGE;
    jt_replay_info_t info = { 0 };
    int vrc = from_ckpt
                  ? jt_ledger_verify_from_checkpoint ((const char *const *) argv + optind,
                                                      (size_t) (argc - optind), caps, &res,
                                                      &v, &fold, &info, &err)
                  : jt_ledger_verify_threads ((const char *const *) argv + optind,
                                              (size_t) (argc - optind), head, caps,
                                              threads, &res, &v, &fold, &err);
    jt_event_destroy (caps);
    if (vrc < 0) {
        fprintf (stderr, "jobtree verify: %s\n", err.text);
        return JT_EXIT_USAGE;
    }
    int rc = JT_EXIT_OK;
    if (v.kind != JT_VIOL_NONE) {
        printf ("FAIL %s at seq %" PRIu64 ": %s\n", jt_violation_str (v.kind), v.seq,
                v.msg);
        rc = violation_exit (v.kind);
    } else if (res.status == JT_LEDGER_IOERR) {
        fprintf (stderr, "jobtree verify: %s: %s\n", res.bad_file, res.msg);
        rc = JT_EXIT_USAGE;
    } else if (res.status != JT_LEDGER_OK && res.status != JT_LEDGER_EMPTY) {
        printf ("FAIL %s at seq %" PRIu64 " (%s offset %" PRIu64 "): %s\n",
                jt_ledger_status_str (res.status), res.bad_seq, res.bad_file,
                res.bad_offset, res.msg);
        rc = status_exit (res.status);
    } else if (!quiet) {
        uint64_t events, starts, ends, open;
        jt_ledger_fold_counts (fold, &events, &starts, &ends, &open);
        size_t nenv = jt_ledger_fold_envelopes (fold, 0, NULL, 0);
        jt_fold_envelope_t *env = calloc (nenv ? nenv : 1, sizeof (*env));
        size_t capped = 0;
        if (env) {
            jt_ledger_fold_envelopes (fold, 0, env, nenv);
            for (size_t i = 0; i < nenv; i++)
                capped += env[i].capped;
        }
        printf ("OK %" PRIu64 " records in %" PRIu64 " segments; %" PRIu64 " leases "
                "started, %" PRIu64 " ended, %" PRIu64 " open; %zu envelopes (%zu with "
                "caps checked)\n",
                res.nrecords, res.nsegments, starts, ends, open, nenv, capped);
        printf ("lotteries %" PRIu64 " recomputed, as recorded\n",
                jt_ledger_fold_lotteries (fold));
        if (!from_ckpt) /* payer and role need lease time from genesis */
            print_budgets (fold, budgets);
        if (from_ckpt && info.ckpt_seq)
            printf ("from the checkpoint at seq %" PRIu64 " (trusted: the state after seq "
                    "%" PRIu64 "); %" PRIu64 " records after it checked in event order\n",
                    info.ckpt_seq, info.up_to, info.records_folded);
        else if (from_ckpt)
            printf ("no usable checkpoint (%s): verified from genesis\n",
                    info.why[0] ? info.why : "none in the ledger");
        printf ("head %" PRIu64 ":%s\n", res.last_seq, res.last_hash);
        free (env);
    }
    jt_ledger_fold_destroy (fold);
    return rc;
}
