/*
 * topoconf.c - unit tests of topology.conf's leaves (jobtree/topoconf.h):
 * switches with nodes under topology/tree, blocks with nodes under
 * topology/block, Slurm's syntax (case, comments, continuation lines),
 * records that are not leaves, and the errors with file:line:col.
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

#include "jobtree/topoconf.h"
#include "tap.h"

/* "name=nodes@line ..." of the leaves, or "ERR first-diagnostic". */
static const char *leaves (const char *text, jt_topo_kind_t kind)
{
    static char buf[4096];
    jt_topo_leaves_t l;
    jt_diags_t d;
    size_t n = 0;

    jt_diags_init (&d);
    buf[0] = '\0';
    if (jt_topoconf_leaves ("topology.conf", text, strlen (text), kind, &l, &d) < 0) {
        n = (size_t) snprintf (buf, sizeof (buf), "ERR ");
        if (d.n)
            jt_diag_format (&d.v[0], buf + n, sizeof (buf) - n);
        if (l.n != 0 || l.v != NULL)
            snprintf (buf, sizeof (buf), "ERR but leaves left");
    } else {
        for (size_t i = 0; i < l.n && n < sizeof (buf); i++)
            n += (size_t) snprintf (buf + n, sizeof (buf) - n, "%s%s=%s@%d", i ? " " : "",
                                    l.v[i].name, l.v[i].nodes, l.v[i].line);
    }
    jt_topo_leaves_free (&l);
    jt_diags_free (&d);
    return buf;
}

int main (void)
{
    static const struct {
        const char *name, *text;
        jt_topo_kind_t kind;
        const char *want;
    } cases[] = {
        { "tree: the test cluster's file",
          "SwitchName=domA Nodes=gpu[01-04]\nSwitchName=domB Nodes=gpu[05-08]\n"
          "SwitchName=west Switches=domA,domB\n", JT_TOPO_TREE,
          "domA=gpu[01-04]@1 domB=gpu[05-08]@2" },
        { "tree: keys in any case, other keys skipped, tabs",
          "switchname=s1\tLinkSpeed=100 NODES=n[1-2]\n", JT_TOPO_TREE, "s1=n[1-2]@1" },
        { "tree: comments and blank lines",
          "# top\n\nSwitchName=s1 Nodes=n1 # SwitchName=s2 Nodes=n2\n#SwitchName=s3 Nodes=n3\n",
          JT_TOPO_TREE, "s1=n1@3" },
        { "tree: a continued line is one record, at its first line",
          "SwitchName=s1 \\\n  Nodes=n[1-4]\nSwitchName=s2 Nodes=n5\n", JT_TOPO_TREE,
          "s1=n[1-4]@1 s2=n5@3" },
        { "tree: blocks are not switches", "BlockName=b1 Nodes=n1\n", JT_TOPO_TREE, "" },
        { "block: base blocks, BlockSizes skipped",
          "BlockName=blkA Nodes=gpu[01-04]\nBlockName=blkB Nodes=gpu[05-08]\nBlockSizes=4,8\n",
          JT_TOPO_BLOCK, "blkA=gpu[01-04]@1 blkB=gpu[05-08]@2" },
        { "block: switches are not blocks", "SwitchName=s1 Nodes=n1\n", JT_TOPO_BLOCK, "" },
        { "no newline at the end", "SwitchName=s1 Nodes=n1", JT_TOPO_TREE, "s1=n1@1" },
        { "an empty file", "", JT_TOPO_TREE, "" },
        { "a record without nodes is no leaf", "SwitchName=s1\nSwitchName=s2 Nodes=\n",
          JT_TOPO_TREE, "" },
        { "an empty name", "SwitchName=s1 Nodes=n1\nSwitchName= Nodes=n2\n", JT_TOPO_TREE,
          "ERR topology.conf:2:1: SwitchName= without a name" },
        { "a name twice", "SwitchName=s1 Nodes=n1\nSwitchName=s2 Nodes=n2\n"
          "SwitchName=s1 Nodes=n3\n", JT_TOPO_TREE,
          "ERR topology.conf:3:1: SwitchName=s1 again (line 1 has it)" },
        { "a comment does not continue", "SwitchName=s1 Nodes=n1 # \\\nSwitchName=s2 Nodes=n2\n",
          JT_TOPO_TREE, "s1=n1@1 s2=n2@2" },
    };
    char *big;

    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
        is (leaves (cases[i].text, cases[i].kind), cases[i].want, "%s", cases[i].name);

    /* Bounds: a value past JT_TOPOCONF_VALUE_MAX; a NUL inside is a blank. */
    if (!(big = malloc (JT_TOPOCONF_VALUE_MAX + 64)))
        bail_out ("malloc");
    strcpy (big, "SwitchName=s1 Nodes=");
    memset (big + strlen (big), 'n', JT_TOPOCONF_VALUE_MAX + 1);
    big[20 + JT_TOPOCONF_VALUE_MAX + 1] = '\0';
    is (leaves (big, JT_TOPO_TREE), "ERR topology.conf:1:15: a value of 65537 bytes, more "
        "than 65536", "a host list past its bound");
    free (big);
    {
        const char t[] = "SwitchName=s1\0Nodes=n1\n";
        jt_topo_leaves_t l;
        jt_diags_t d;
        jt_diags_init (&d);
        ok (jt_topoconf_leaves ("t", t, sizeof (t) - 1, JT_TOPO_TREE, &l, &d) == 0
            && l.n == 1 && strcmp (l.v[0].nodes, "n1") == 0, "a NUL is a blank");
        jt_topo_leaves_free (&l);
        ok (jt_topoconf_leaves ("t", t, (size_t) JT_TOPOCONF_MAX + 1, JT_TOPO_TREE, &l,
                                &d) < 0 && l.n == 0, "a text past JT_TOPOCONF_MAX is refused "
            "before it is read");
        jt_diags_free (&d);
    }
    jt_topo_leaves_free (NULL);
    return done_testing ();
}
