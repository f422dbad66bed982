/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_checkpoint.c - Checkpoint records as a reader gets them (one payload
 * a line): each parsed as an event, the Checkpoint parts restored into a
 * fold (jt_ckpt_restore: what slurmctld's start-up and jobtree verify do
 * with them), and a restored state written again (text and records). The
 * parts' stateSha256 is made right first (half the inputs), so that the
 * state parser is reached, not only the hash check. */
#include "config.h"

#include "jobtree/error.h"
#include "jobtree/ledger.h"
#include "jobtree/ledger_checkpoint.h"
#include "util/sha256.h"
#include "fuzz.h"

#define PARTS_MAX 16

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    jt_event_t *parts[PARTS_MAX];
    size_t n = 0, from = 0;
    jt_error_t err;

    for (size_t i = 0; i <= size && n < PARTS_MAX; i++) {
        if (i < size && data[i] != '\n')
            continue;
        jt_event_t *ev = jt_event_from_json ((const char *) data + from, i - from, &err);
        from = i + 1;
        if (ev && ev->type == JT_EV_CHECKPOINT)
            parts[n++] = ev;
        else
            jt_event_destroy (ev);
    }
    if (n && size && (data[0] & 1)) {
        size_t len = 0;
        for (size_t i = 0; i < n; i++)
            len += strlen (parts[i]->state);
        char *all = malloc (len + 1), sha[65];
        if (all) {
            all[0] = 0;
            for (size_t i = 0; i < n; i++)
                strcat (all, parts[i]->state);
            if (jt_sha256_hex (all, len, sha) == 0)
                for (size_t i = 0; i < n; i++)
                    memcpy (parts[i]->state_sha256, sha, 65);
            free (all);
        }
    }
    jt_ledger_fold_t *f = n ? jt_ckpt_restore ((const jt_event_t *const *) parts, n, &err)
                            : NULL;
    if (f) {
        char **p;
        size_t *lens, np;
        free (jt_ckpt_state_text (f, 0, &err));
        free (jt_ckpt_state_text (f, JT_CKPT_NO_CAPS, &err));
        if (jt_ckpt_payloads (f, parts[0]->up_to, 0, 0, &p, &lens, &np, &err) == 0)
            jt_ckpt_payloads_free (p, lens, np);
        jt_ledger_fold_destroy (f);
    }
    for (size_t i = 0; i < n; i++)
        jt_event_destroy (parts[i]);
    return 0;
}
