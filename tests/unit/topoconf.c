/*
 * topoconf.c - unit tests of topology.conf (jobtree/topoconf.h): the
 * leaves (switches with nodes under topology/tree, blocks with nodes under
 * topology/block), Slurm's syntax (case, comments, continuation lines),
 * records that are not leaves, the errors with file:line:col; the switch
 * tree above the leaves by level, topology/block's BlockSizes and its
 * aggregated blocks, as Slurm's plugins build them; topology.yaml's cluster
 * default read into the same (skipped without libyaml).
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

/* A test host list reader: names between commas outside brackets, each
 * "pre[a-b,c]" expanded with a's width (enough of Slurm's syntax here). */
static int t_expand (void *arg, const char *expr, char ***v, size_t *n)
{
    size_t cap = 64, k = 0;
    const char *q = expr;

    (void) arg;
    if (!(*v = calloc (cap, sizeof (**v))))
        return -1;
    while (*q) {
        const char *c = q, *br;
        int depth = 0;
        while (*c && (depth || *c != ',')) {
            depth += *c == '[' ? 1 : *c == ']' ? -1 : 0;
            c++;
        }
        if (depth)
            goto bad;
        br = memchr (q, '[', (size_t) (c - q));
        if (!br) {
            if (k == cap)
                goto bad;       /* enough for these tests */
            (*v)[k++] = strndup (q, (size_t) (c - q));
        } else {
            const char *r = br + 1;
            while (r < c && *r != ']') {
                char *e;
                long lo = strtol (r, &e, 10), hi = lo;
                int w = (int) (e - r);
                if (e == r)
                    goto bad;
                if (*e == '-')
                    hi = strtol (e + 1, &e, 10);
                for (long x = lo; x <= hi; x++) {
                    char b[256];
                    if (k == cap) {
                        char **nv = realloc (*v, 2 * cap * sizeof (*nv));
                        if (!nv)
                            goto bad;
                        *v = nv;
                        cap *= 2;
                    }
                    snprintf (b, sizeof (b), "%.*s%0*ld", (int) (br - q), q, w, x);
                    (*v)[k++] = strdup (b);
                }
                r = *e == ',' ? e + 1 : e;
            }
        }
        q = *c ? c + 1 : c;
    }
    *n = k;
    return 0;
bad:
    for (size_t i = 0; i < k; i++)
        free ((*v)[i]);
    free (*v);
    *v = NULL;
    return -1;
}

/* "b1,b2" -> "b[1-2]" for names of one prefix and consecutive numbers;
 * NULL (keep the list) otherwise. */
static char *t_ranged (void *arg, const char *list)
{
    char pre[64], *out;
    long lo = -1, hi = -1;
    const char *q = list;

    (void) arg;
    while (*q) {
        size_t l = strcspn (q, ","), d = l;
        while (d > 0 && q[d - 1] >= '0' && q[d - 1] <= '9')
            d--;
        if (d == l || d >= sizeof (pre))
            return NULL;
        long x = strtol (q + d, NULL, 10);
        if (lo < 0) {
            memcpy (pre, q, d);
            pre[d] = '\0';
            lo = hi = x;
        } else if (strlen (pre) != d || strncmp (pre, q, d) || x != hi + 1)
            return NULL;
        else
            hi = x;
        q += l + (q[l] == ',');
    }
    if (lo < 0 || !(out = malloc (strlen (pre) + 48)))
        return NULL;
    sprintf (out, lo == hi ? "%s%ld" : "%s[%ld-%ld]", pre, lo, hi);
    return out;
}

static const jt_topo_hosts_t t_hosts = { t_expand, t_ranged, NULL };

static const char *dump (int rc, jt_topo_leaves_t *l, jt_diags_t *d, char *buf, size_t cap);

static const char *levels (const char *text, jt_topo_kind_t kind)
{
    static char buf[8192];
    jt_topo_leaves_t l;
    jt_diags_t d;

    jt_diags_init (&d);
    return dump (jt_topoconf_read ("topology.conf", text, strlen (text), kind, &t_hosts,
                                   &l, &d), &l, &d, buf, sizeof (buf));
}

/* The same of topology.yaml, its kind first ("tree: ...", "block: ...",
 * "other"). */
static const char *ylevels (const char *text)
{
    static char buf[8192];
    jt_topo_kind_t kind = JT_TOPO_TREE;
    jt_topo_leaves_t l;
    jt_diags_t d;
    int rc;
    size_t n;

    jt_diags_init (&d);
    rc = jt_topoyaml_read ("topology.yaml", text, strlen (text), &t_hosts, &kind, &l, &d);
    if (rc == 1) {
        snprintf (buf, sizeof (buf), "other%s", l.n || l.nup || d.n ? " but more" : "");
        jt_topo_leaves_free (&l);
        jt_diags_free (&d);
        return buf;
    }
    n = (size_t) snprintf (buf, sizeof (buf), "%s", rc < 0 ? "" : kind == JT_TOPO_BLOCK
                           ? "block: " : "tree: ");
    dump (rc, &l, &d, buf + n, sizeof (buf) - n);
    return buf;
}

/* "leaf^up1^up2 ... | upper/level@line ... | nodes,nodes (nsizes)", or
 * "ERR first-diagnostic"; frees l and d. */
static const char *dump (int rc, jt_topo_leaves_t *lp, jt_diags_t *dp, char *buf, size_t cap)
{
    jt_topo_leaves_t l = *lp;
    jt_diags_t d = *dp;
    size_t n = 0;

    buf[0] = '\0';
    if (rc < 0) {
        n = (size_t) snprintf (buf, cap, "ERR ");
        if (d.n)
            jt_diag_format (&d.v[0], buf + n, cap - n);
        if (l.n != 0 || l.v != NULL || l.nup != 0 || l.up != NULL || l.nblock != 0)
            snprintf (buf, cap, "ERR but leaves left");
    } else {
        for (size_t i = 0; i < l.n && n < cap; i++) {
            n += (size_t) snprintf (buf + n, cap - n, "%s%s", i ? " " : "",
                                    l.v[i].name);
            for (int k = 0; k < JT_LEVELS_MAX && n < cap; k++)
                if (l.v[i].up[k] >= 0)
                    n += (size_t) snprintf (buf + n, cap - n, "^%s",
                                            l.up[l.v[i].up[k]].name);
        }
        n += (size_t) snprintf (buf + n, cap - n, " |");
        for (size_t i = 0; i < l.nup && n < cap; i++)
            n += (size_t) snprintf (buf + n, cap - n, " %s/%d@%d",
                                    l.up[i].name, l.up[i].level, l.up[i].line);
        if (n < cap)
            n += (size_t) snprintf (buf + n, cap - n, " | levels %d", l.levels);
        for (size_t i = 0; i < l.nblock && n < cap; i++)
            n += (size_t) snprintf (buf + n, cap - n, "%s%u", i ? "," : " nodes ",
                                    l.block_nodes[i]);
        if (l.nsizes && n < cap)
            snprintf (buf + n, cap - n, " of %zu", l.nsizes);
    }
    jt_topo_leaves_free (lp);
    jt_diags_free (dp);
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

    static const struct {
        const char *name, *text;
        jt_topo_kind_t kind;
        const char *want;
    } lv[] = {
        /* the switch tree: each switch's level is 1 + its highest child's */
        { "tree: t2038's file, two levels above the leaves",
          "SwitchName=domA Nodes=gpu[01-04]\nSwitchName=domB Nodes=gpu[05-08]\n"
          "SwitchName=domC Nodes=gpu[09-12]\nSwitchName=domD Nodes=gpu[13-16]\n"
          "SwitchName=blk1 Switches=domA,domB\nSwitchName=blk2 Switches=domC,domD\n"
          "SwitchName=spine Switches=blk1,blk2\n", JT_TOPO_TREE,
          "domA^blk1^spine domB^blk1^spine domC^blk2^spine domD^blk2^spine | blk1/1@5 "
          "blk2/1@6 spine/2@7 | levels 2" },
        { "tree: blocks and a spine, children as a host list, parents before children",
          "SwitchName=spine Switches=blk[1-2]\n"
          "SwitchName=s1 Nodes=gpu[01-04]\nSwitchName=s2 Nodes=gpu[05-08]\n"
          "SwitchName=s3 Nodes=gpu[09-12]\nSwitchName=s4 Nodes=gpu[13-16]\n"
          "SwitchName=blk1 Switches=s[1-2]\nSwitchName=blk2 Switches=s[3-4]\n", JT_TOPO_TREE,
          "s1^blk1^spine s2^blk1^spine s3^blk2^spine s4^blk2^spine | spine/2@1 blk1/1@6 "
          "blk2/1@7 | levels 2" },
        { "tree: a switch over a leaf and a level-1 switch is of level 2; the leaf has "
          "no level 1",
          "SwitchName=a Nodes=n1\nSwitchName=b Nodes=n2\nSwitchName=m Switches=a\n"
          "SwitchName=top Switches=m,b\n", JT_TOPO_TREE,
          "a^m^top b^top | m/1@3 top/2@4 | levels 2" },
        { "tree: a leaf under two switches of a level takes the first in the file",
          "SwitchName=a Nodes=n1\nSwitchName=x Switches=a\nSwitchName=y Switches=a\n",
          JT_TOPO_TREE, "a^x | x/1@2 y/1@3 | levels 1" },
        { "tree: a leaf's Switches= is ignored, as Slurm does",
          "SwitchName=a Nodes=n1 Switches=b\nSwitchName=b Nodes=n2\n", JT_TOPO_TREE,
          "a b | | levels 0" },
        { "tree: levels past JT_LEVELS_MAX are counted, not kept",
          "SwitchName=l0 Nodes=n1\nSwitchName=l1 Switches=l0\nSwitchName=l2 Switches=l1\n"
          "SwitchName=l3 Switches=l2\nSwitchName=l4 Switches=l3\nSwitchName=l5 Switches=l4\n",
          JT_TOPO_TREE, "l0^l1^l2^l3^l4 | l1/1@2 l2/2@3 l3/3@4 l4/4@5 | levels 5" },
        { "tree: an unknown child",
          "SwitchName=a Nodes=n1\nSwitchName=top \\\n  Switches=a,zz\n", JT_TOPO_TREE,
          "ERR topology.conf:2:19: Switches: SwitchName=top: zz is no switch of this file" },
        { "tree: a switch that is its own child",
          "SwitchName=a Nodes=n1\nSwitchName=top Switches=a,top\n", JT_TOPO_TREE,
          "ERR topology.conf:2:16: Switches: SwitchName=top: a switch is not its own child" },
        { "tree: a loop is no tree",
          "SwitchName=a Nodes=n1\nSwitchName=x Switches=a,y\nSwitchName=y Switches=x\n",
          JT_TOPO_TREE, "ERR topology.conf:2:14: Switches: SwitchName=x: the switches make "
          "no tree (a loop, or more than 20 levels)" },
        { "tree: a host list that is none",
          "SwitchName=a Nodes=n1\nSwitchName=x Switches=a[1-\n", JT_TOPO_TREE,
          "ERR topology.conf:2:14: Switches: SwitchName=x: 'a[1-' is not a list of switches" },
        { "tree: an upper switch's name twice",
          "SwitchName=a Nodes=n1\nSwitchName=x Switches=a\nSwitchName=x Switches=a\n",
          JT_TOPO_TREE, "ERR topology.conf:3:1: SwitchName=x again (line 2 has it)" },
        /* topology/block: BlockSizes and the aggregated blocks */
        { "block: t2039's file, BlockSizes=4,8,16 over four base blocks",
          "BlockName=blkA Nodes=gpu[01-04]\nBlockName=blkB Nodes=gpu[05-08]\n"
          "BlockName=blkC Nodes=gpu[09-12]\nBlockName=blkD Nodes=gpu[13-16]\n"
          "BlockSizes=4,8,16\n", JT_TOPO_BLOCK,
          "blkA^blkA,blkB^blkA,blkB,blkC,blkD blkB^blkA,blkB^blkA,blkB,blkC,blkD "
          "blkC^blkC,blkD^blkA,blkB,blkC,blkD blkD^blkC,blkD^blkA,blkB,blkC,blkD | "
          "blkA,blkB/1@1 blkC,blkD/1@3 blkA,blkB,blkC,blkD/2@1 | levels 2 nodes 4,8,16 of 3" },
        { "block: numbered blocks are named as a ranged host list",
          "BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[3-4]\nBlockSizes=2,4\n",
          JT_TOPO_BLOCK, "b1^b[1-2] b2^b[1-2] | b[1-2]/1@1 | levels 1 nodes 2,4 of 2" },
        { "block: no BlockSizes: the first block's nodes, levels 1-16 base blocks while "
          "the one before holds fewer than the file has",
          "BlockName=b1 Nodes=n[1-3]\nBlockName=b2 Nodes=n[4-6]\nBlockName=b3 Nodes=n[7-9]\n",
          JT_TOPO_BLOCK, "b1^b[1-2]^b[1-3] b2^b[1-2]^b[1-3] b3^b[1-3] | b[1-2]/1@1 "
          "b[1-3]/2@1 | levels 2 nodes 3,6,12 of 3" },
        { "block: a short tail the level below holds makes no block of the level",
          "BlockName=b1 Nodes=n1\nBlockName=b2 Nodes=n2\nBlockName=b3 Nodes=n3\n"
          "BlockName=b4 Nodes=n4\nBlockName=b5 Nodes=n5\nBlockSizes=1,2,4,8\n", JT_TOPO_BLOCK,
          "b1^b[1-2]^b[1-4]^b[1-5] b2^b[1-2]^b[1-4]^b[1-5] b3^b[3-4]^b[1-4]^b[1-5] "
          "b4^b[3-4]^b[1-4]^b[1-5] b5^b[1-5] | b[1-2]/1@1 b[3-4]/1@3 b[1-4]/2@1 "
          "b[1-5]/3@1 | levels 3 nodes 1,2,4,8 of 4" },
        { "block: BlockSizes above the file's blocks stop at the first that holds them",
          "BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockSizes=4,8,16,32\n",
          JT_TOPO_BLOCK, "b1^b[1-2] b2^b[1-2] | b[1-2]/1@1 | levels 1 nodes 4,8 of 2" },
        { "block: levels BlockSizes skips are skipped",
          "BlockName=b1 Nodes=n1\nBlockName=b2 Nodes=n2\nBlockName=b3 Nodes=n3\n"
          "BlockName=b4 Nodes=n4\nBlockSizes=1,4\n", JT_TOPO_BLOCK,
          "b1^b[1-4] b2^b[1-4] b3^b[1-4] b4^b[1-4] | b[1-4]/1@1 | levels 1 nodes 1,4 of 2" },
        { "block: BlockSizes in a tree file is not read",
          "SwitchName=s Nodes=n1\nBlockSizes=x\n", JT_TOPO_TREE, "s | | levels 0" },
        { "block: a size that is no number",
          "BlockName=b1 Nodes=n1\nBlockSizes=4,8x\n", JT_TOPO_BLOCK,
          "ERR topology.conf:2:14: BlockSizes: '8x' is not a number of nodes" },
        { "block: an empty size",
          "BlockName=b1 Nodes=n1\nBlockSizes=4,,8\n", JT_TOPO_BLOCK,
          "ERR topology.conf:2:14: BlockSizes: '' is not a number of nodes" },
        { "block: a size of 0",
          "BlockName=b1 Nodes=n1\nBlockSizes=0\n", JT_TOPO_BLOCK,
          "ERR topology.conf:2:12: BlockSizes: 0 nodes: a block holds 1 to 1048576" },
        { "block: a size past 2^20",
          "BlockName=b1 Nodes=n1\nBlockSizes=4,1048577\n", JT_TOPO_BLOCK,
          "ERR topology.conf:2:14: BlockSizes: 1048577 nodes: a block holds 1 to 1048576" },
        { "block: a first size past 2^20",
          "BlockName=b1 Nodes=n1\nBlockSizes=1048577\n", JT_TOPO_BLOCK,
          "ERR topology.conf:2:12: BlockSizes: 1048577 nodes: a block holds 1 to 1048576" },
        { "block: the base block times 2^15, past 2^20",
          "BlockName=b1 Nodes=n1\nBlockSizes=64,2097152\n", JT_TOPO_BLOCK,
          "ERR topology.conf:2:15: BlockSizes: 2097152 nodes: a block holds 1 to 1048576" },
        { "block: a huge size does not wrap",
          "BlockName=b1 Nodes=n1\nBlockSizes=4,18446744073709551620\n", JT_TOPO_BLOCK,
          "ERR topology.conf:2:14: BlockSizes: 18446744073709551620 nodes: a block holds 1 "
          "to 1048576" },
        { "block: sizes not increasing",
          "BlockName=b1 Nodes=n1\nBlockSizes=8,8\n", JT_TOPO_BLOCK,
          "ERR topology.conf:2:14: BlockSizes: 8 is not above 8 before it" },
        { "block: a size that is not the base block times a power of two",
          "BlockName=b1 Nodes=n1\nBlockSizes=4,12\n", JT_TOPO_BLOCK,
          "ERR topology.conf:2:14: BlockSizes: 12 is not 4 (the base block) times a power "
          "of two up to 2^15" },
        { "block: a level past 2^15 base blocks",
          "BlockName=b1 Nodes=n1\nBlockSizes=1,65536\n", JT_TOPO_BLOCK,
          "ERR topology.conf:2:14: BlockSizes: 65536 is not 1 (the base block) times a power "
          "of two up to 2^15" },
        { "block: BlockSizes twice",
          "BlockName=b1 Nodes=n1\nBlockSizes=4\nBlockSizes=4,8\n", JT_TOPO_BLOCK,
          "ERR topology.conf:3:12: BlockSizes: again (line 2 has it)" },
        { "block: a base block of more than 2^20 nodes",
          "BlockName=b1 Nodes=n[1-1048577]\nBlockName=b2 Nodes=m1\n", JT_TOPO_BLOCK,
          "ERR topology.conf:1:1: Nodes: BlockName=b1: 1048577 nodes, more than a block "
          "may hold (1048576)" },
    };

    for (size_t i = 0; i < sizeof (lv) / sizeof (lv[0]); i++)
        is (levels (lv[i].text, lv[i].kind), lv[i].want, "%s", lv[i].name);

    static const struct {
        const char *name, *text, *want;
    } ya[] = {
        { "yaml: the man page's example: topo1, the cluster default, a tree",
          "---\n- topology: topo1\n  cluster_default: true\n  tree:\n    switches:\n"
          "      - switch: sw_root\n        children: s[1-2]\n      - switch: s1\n"
          "        nodes: node[01-02]\n      - switch: s2\n        nodes: node[03-04]\n"
          "- topology: topo2\n  cluster_default: false\n  block:\n    block_sizes:\n"
          "      - 4\n      - 16\n    blocks:\n      - block: b1\n        nodes: node[01-04]\n",
          "tree: s1^sw_root s2^sw_root | sw_root/1@6 | levels 1" },
        { "yaml: the cluster default need not come first; block_sizes and blocks",
          "- topology: t\n  tree:\n    switches:\n      - switch: s1\n        nodes: n1\n"
          "- topology: b\n  cluster_default: true\n  block:\n    block_sizes: [4, 8, 16]\n"
          "    blocks:\n      - {block: blkA, nodes: \"gpu[01-04]\"}\n"
          "      - block: blkB\n        nodes: gpu[05-08]\n      - {block: blkC, nodes: 'gpu[09-12]'}\n"
          "      - {block: blkD, nodes: [gpu13, gpu14, gpu15, gpu16]}\n",
          "block: blkA^blkA,blkB^blkA,blkB,blkC,blkD blkB^blkA,blkB^blkA,blkB,blkC,blkD "
          "blkC^blkC,blkD^blkA,blkB,blkC,blkD blkD^blkC,blkD^blkA,blkB,blkC,blkD | "
          "blkA,blkB/1@11 blkC,blkD/1@14 blkA,blkB,blkC,blkD/2@11 | levels 2 nodes 4,8,16 of 3" },
        { "yaml: no cluster default: the first",
          "- topology: a\n  tree:\n    switches:\n      - {switch: s1, nodes: n1}\n"
          "      - {switch: top, children: [s1]}\n- topology: b\n  flat: true\n",
          "tree: s1^top | top/1@5 | levels 1" },
        { "yaml: a default of another plugin", "- topology: r\n  cluster_default: true\n"
          "  ring:\n    rings:\n      - {ring: r0, nodes: \"n[1-8]\"}\n", "other" },
        { "yaml: an empty file", "", "other" },
        { "yaml: not YAML", "- topology: a\n  tree: [\n", "ERR topology.yaml:3:1: YAML: did "
          "not find expected node content while parsing a flow node" },
        { "yaml: not a sequence", "topology: a\n", "ERR topology.yaml:1:1: a sequence of "
          "topologies (topology.yaml(5))" },
        { "yaml: an item without its name", "- cluster_default: true\n  flat: true\n",
          "ERR topology.yaml:1:3: [0].topology: an item without its topology's name" },
        { "yaml: a switch without a name",
          "- topology: a\n  tree:\n    switches:\n      - nodes: n1\n",
          "ERR topology.yaml:4:9: tree.switches[0].switch: a switch without a name" },
        { "yaml: an unknown child, with the line",
          "- topology: a\n  tree:\n    switches:\n      - {switch: s1, nodes: n1}\n"
          "      - {switch: top, children: \"s[1-2]\"}\n",
          "ERR topology.yaml:5:33: tree.switches.children: switch=top: s2 is no switch of "
          "this file" },
        { "yaml: a bad block size, with its line and column",
          "- topology: b\n  block:\n    block_sizes: [4, 12]\n    blocks:\n"
          "      - {block: b1, nodes: n1}\n",
          "ERR topology.yaml:3:22: block.block_sizes: 12 is not 4 (the base block) times a "
          "power of two up to 2^15" },
        { "yaml: a huge block size",
          "- topology: b\n  block:\n    block_sizes: [99999999999999999999999]\n"
          "    blocks:\n      - {block: b1, nodes: n1}\n",
          "ERR topology.yaml:3:19: block.block_sizes: 99999999999999999999999 nodes: a block "
          "holds 1 to 1048576" },
        { "yaml: an alias is refused (no walk of a node twice)",
          "- topology: a\n  tree:\n    switches:\n      - &s {switch: s1, nodes: n1}\n"
          "      - *s\n",
          "ERR topology.yaml:4:9: tree.switches[1]: a node used twice (an alias) is not read "
          "here" },
        { "yaml: a name twice",
          "- topology: a\n  tree:\n    switches:\n      - {switch: s1, nodes: n1}\n"
          "      - {switch: s1, nodes: n2}\n",
          "ERR topology.yaml:5:1: switch=s1 again (line 4 has it)" },
        { "yaml: switches that are no sequence",
          "- topology: a\n  tree:\n    switches: {switch: s1}\n",
          "ERR topology.yaml:3:15: tree.switches: a sequence, not a mapping" },
        { "yaml: nodes that are a mapping",
          "- topology: a\n  tree:\n    switches:\n      - {switch: s1, nodes: {a: 1}}\n",
          "ERR topology.yaml:4:29: tree.switches[0].nodes: a host list or a sequence of "
          "them, not a mapping" },
    };

    if (!jt_topoyaml_available ())
        skip ((int) (sizeof (ya) / sizeof (ya[0])), "built without libyaml");
    else
        for (size_t i = 0; i < sizeof (ya) / sizeof (ya[0]); i++)
            is (ylevels (ya[i].text), ya[i].want, "%s", ya[i].name);

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
