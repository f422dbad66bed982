/*
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
/* fuzz_lastgood.c - the last good set kept on disk (jt_reload_keep_file),
 * as a new slurmctld reads it back when jobtree.conf is broken: the input
 * is the kept file's content. Whatever it holds, the reload ends with a
 * configuration in force, and budgets only if they finalized. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "jobtree/reload.h"
#include "fuzz.h"

static char dir[] = "/tmp/jt-fuzz-lastgood-XXXXXX";
static char conf[128], keep[128];

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    jt_reload_result_t r;
    jt_reload_t *rl;
    FILE *f;

    if (!conf[0]) {
        if (!mkdtemp (dir))
            abort ();
        snprintf (conf, sizeof (conf), "%s/jobtree.conf", dir);
        snprintf (keep, sizeof (keep), "%s/last-good.json", dir);
        if (!(f = fopen (conf, "w")))
            abort ();
        fputs ("Nope=1\n", f);      /* broken: the kept copy is read */
        fclose (f);
    }
    if (!(f = fopen (keep, "w")))
        abort ();
    if (size)
        fwrite (data, 1, size, f);
    fclose (f);
    if (!(rl = jt_reload_create ()) || jt_reload_keep_file (rl, keep, NULL) < 0)
        abort ();
    (void) jt_reload (rl, conf, &r);
    if (!jt_reload_conf (rl) || (jt_reload_budgets (rl) && !jt_reload_budgets (rl)->finalized))
        abort ();
    jt_reload_result_free (&r);
    jt_reload_destroy (rl);
    return 0;
}
