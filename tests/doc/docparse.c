/*
 * tests/doc/docparse.c - reads a documented jobtree.conf or admin_comment
 * record with libjobtree's own parsers, for the doc-test
 * (tests/doc/examples.sh), since no jobtree command reads either:
 *
 *   docparse conf FILE     jt_config_load
 *   docparse record FILE   jt_jobrec_parse of the file's first line
 *
 * Exit 0 when it parses, 1 with the parser's diagnostics on stderr.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/conf.h"
#include "jobtree/error.h"
#include "jobtree/readfile.h"
#include "jobtree/record.h"

static int parse_conf (const char *path)
{
    jt_diags_t d;
    jt_config_t *c;
    char buf[1024];
    size_t i;

    jt_diags_init (&d);
    c = jt_config_load (path, false, &d);
    for (i = 0; i < d.n; i++) {
        jt_diag_format (&d.v[i], buf, sizeof (buf));
        fprintf (stderr, "%s\n", buf);
    }
    jt_diags_free (&d);
    if (!c)
        return 1;
    jt_config_destroy (c);
    return 0;
}

static int parse_record (const char *path)
{
    jt_error_t err = { .text = "" };
    jt_jobrec_t rec;
    char *text;
    size_t len;
    int rc;

    if (!(text = jt_read_file (path, &len, &err))) {
        fprintf (stderr, "%s\n", err.text);
        return 1;
    }
    text[strcspn (text, "\n")] = '\0';
    rc = jt_jobrec_parse (text, &rec, &err);
    if (rc < 0)
        fprintf (stderr, "%s: %s\n", path, err.text);
    else
        jt_jobrec_free (&rec);
    free (text);
    return rc < 0 ? 1 : 0;
}

int main (int argc, char **argv)
{
    if (argc == 3 && !strcmp (argv[1], "conf"))
        return parse_conf (argv[2]);
    if (argc == 3 && !strcmp (argv[1], "record"))
        return parse_record (argv[2]);
    fprintf (stderr, "usage: docparse conf|record FILE\n");
    return 2;
}
