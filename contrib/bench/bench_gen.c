/*
 * bench_gen.c - the synthetic lease ledger the ledger benchmarks share
 * (bench_gen.h).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>

#include "jobtree/ledger.h"
#include "jobtree/ledger_checkpoint.h"
#include "bench_gen.h"

int bench_lease_event (uint64_t i, const char *prefix, char *buf, size_t len)
{
    uint64_t slot = i / 2000, r = i % 2000, k = slot * 1000 + r % 1000;
    bool end = r >= 1000;
    int64_t start = BENCH_T0 + (int64_t) slot * 3600, stop = start + 3000;
    unsigned owner = (unsigned) (k % 10), env = (unsigned) (k % 20);
    const char *role = k % 10 == 0 ? "Borrowed" : "Active";
    int n =
        snprintf (buf, len,
                  "{\"v\":1,\"type\":\"%s\",\"id\":\"%s%" PRIu64 "\",\"time\":%" PRId64
                  ",\"lease\":\"c1:%" PRIu64 ":0\",\"run\":\"c1:%" PRIu64 "\","
                  "\"group\":\"0\",\"nodes\":[\"n%04u\"],\"gpus\":8,\"role\":\"%s\","
                  "\"envelope\":\"env%02u\",\"owner\":\"o%u\",\"start\":%" PRId64,
                  end ? "End" : "Start", prefix, i, end ? stop : start, k, k,
                  (unsigned) (k % 1000), role, env, owner, start);
    if (end)
        n += snprintf (buf + n, len - (size_t) n,
                       ",\"end\":%" PRId64 ",\"reason\":\"End\"}", stop);
    else
        n += snprintf (buf + n, len - (size_t) n, "}");
    return n;
}

int bench_build_ledger (const char *ldir, uint64_t n, const char *prefix,
                        uint64_t ckpt_every, bool forget_ids, jt_error_t *err)
{
    enum { B = 4096 };
    static char bufs[B][512];
    const char *p[B];
    size_t lens[B];
    uint64_t since = 0, first;
    jt_ledger_result_t res;
    jt_violation_t v;
    int rc = -1;

    mkdir (ldir, 0700);
    jt_ledger_writer_t *w = jt_ledger_writer_open (ldir, 0, NULL, NULL, &res, err);
    jt_ledger_fold_t *f = jt_ledger_fold_create ();
    if (!w || !f) {
        if (!f)
            jt_errprintf (err, "out of memory");
        goto out;
    }
    if (forget_ids)
        jt_ledger_fold_forget_ids (f);
    for (uint64_t i = 0; i < n;) {
        size_t k = 0;
        for (; k < B && i < n && (!ckpt_every || since + k < ckpt_every); k++, i++) {
            lens[k] = (size_t) bench_lease_event (i, prefix, bufs[k], sizeof (bufs[k]));
            p[k] = bufs[k];
        }
        if (jt_ledger_writer_append (w, p, lens, k, &first, err) < 0)
            goto out;
        for (size_t j = 0; j < k; j++) {
            jt_event_t *ev = jt_event_from_json (p[j], lens[j], err);
            int frc = ev ? jt_ledger_fold_apply (f, first + j, ev, &v, err) : -1;
            jt_event_destroy (ev);
            if (frc < 0)
                goto out;
        }
        if (ckpt_every && (since += k) >= ckpt_every) {
            char **cp;
            size_t *cl, cn;
            since = 0;
            if (jt_ckpt_payloads (f, jt_ledger_writer_last_seq (w), BENCH_T0, 0, &cp, &cl,
                                  &cn, err)
                < 0)
                goto out;
            int arc = jt_ledger_writer_append (w, (const char *const *) cp, cl, cn, &first,
                                               err);
            jt_ckpt_payloads_free (cp, cl, cn);
            if (arc < 0)
                goto out;
        }
    }
    rc = 0;
out:
    jt_ledger_fold_destroy (f);
    jt_ledger_writer_close (w);
    return rc;
}
