/*
 * snapshot_json.c - unit tests of the snapshot JSON reader and writer:
 * node states (jobtree's and Slurm's words), flavor from the label, every
 * error with its path and line:col, the round trip parse(to_json(s)) == s,
 * and truncated input.
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

#include "jobtree/snapshot.h"
#include "fixtures.h"
#include "tap.h"

static const char good[] =
    "{ \"time\": \"2026-03-01T12:00:00Z\",\n"
    "  \"nodes\": [\n"
    "    { \"name\": \"b01\", \"flavor\": \"h100\", \"gpus\": 8, \"usedGPUs\": 4,\n"
    "      \"state\": \"MIXED\", \"labels\": { \"region\": \"west\", \"cluster\": \"c1\",\n"
    "      \"fabric.domain\": \"B\", \"rack\": \"r2\" } },\n"
    "    { \"name\": \"a01\", \"gpus\": 8, \"state\": \"idle+drain\",\n"
    "      \"labels\": { \"gpu.flavor\": \"h100\", \"region\": \"west\",\n"
    "                  \"cluster\": \"c1\", \"fabric.domain\": \"A\" } },\n"
    "    { \"name\": \"a02\", \"flavor\": \"h100\", \"gpus\": 8, \"state\": \"down*\",\n"
    "      \"labels\": { \"region\": \"west\", \"cluster\": \"c1\", \"fabric.domain\": \"A\" } },\n"
    "    { \"name\": \"cpu1\" }\n"
    "  ],\n"
    "  \"leases\": [ { \"run\": \"c1:1\", \"group\": 1, \"owner\": \"rai\",\n"
    "                \"envelope\": \"west-h100\", \"nodes\": [\"b01\"], \"gpus\": 4,\n"
    "                \"role\": \"borrowed\", \"start\": \"2026-03-01T10:00:00Z\",\n"
    "                \"end\": \"2026-03-01T14:00:00Z\" } ] }\n";

/* The text of a snapshot of one node n1 of 8 GPUs with the given members,
 * and of that node with one lease with the given members. */
#define NODE(members) "{\"nodes\":[{\"name\":\"n1\",\"gpus\":8" members "}]}"
#define LEASE(members) \
    "{\"nodes\":[{\"name\":\"n1\",\"gpus\":8}],\n\"leases\":[{\"run\":\"r\"," \
    "\"owner\":\"o\",\"envelope\":\"e\",\"gpus\":8" members "}]}"

static void state_is (const char *word, jt_node_state_t want)
{
    char text[256];
    jt_snapshot_t *s;
    snprintf (text, sizeof (text), "{\"nodes\":[{\"name\":\"n\",\"state\":\"%s\"}]}",
              word);
    is (fx_parse_snapshot (text, &s), "", "state '%s' parses", word);
    ok (s && s->nodes[0].state == want, "state '%s' is %s", word,
        jt_node_state_str (want));
    jt_snapshot_destroy (s);
}

/* Errors, each with its path and line:col. */
static const struct parse_case {
    const char *text, *want, *name;
} parse_errors[] = {
    { NODE (",\"state\":\"sleeping\""),
      "s.json:1:33: nodes[0].state: unknown node state 'sleeping': use up, down or "
      "drain (or Slurm's idle, mixed, allocated, drained, ...)\n", "bad state" },
    { NODE (",\"state\":\"+\""),
      "s.json:1:33: nodes[0].state: unknown node state '+': use up, down or "
      "drain (or Slurm's idle, mixed, allocated, drained, ...)\n", "bare plus" },
    { NODE (",\"usedGPUs\":9"),
      "s.json:1:33: nodes[0].usedGPUs: usedGPUs=9 exceeds gpus=8\n", "used > gpus" },
    { NODE (",\"usedGPUs\":-1"),
      "s.json:1:33: nodes[0].usedGPUs: must be at least 0, got -1\n", "used < 0" },
    { "{\"nodes\":[{\"name\":\"n1\",\"gpus\":99999999999}]}",
      "s.json:1:24: nodes[0].gpus: 99999999999 is too large (the limit is 1048576)\n",
      "huge gpus" },
    { "{\"nodes\":[{\"name\":\"n1\",\"gpus\":\"8\"}]}",
      "s.json:1:24: nodes[0].gpus: expected an integer, got a string\n",
      "gpus as a string" },
    { NODE (",\"flavor\":\"a100\",\"labels\":{\"gpu.flavor\":\"h100\"}"),
      "s.json:1:33: nodes[0].flavor: flavor 'a100' contradicts label "
      "gpu.flavor=h100\n", "flavor contradiction" },
    { NODE (",\"labels\":{\"rack\":7}"),
      "s.json:1:43: nodes[0].labels.rack: expected a string, got an integer\n",
      "label not a string" },
    { NODE (",\"lables\":{}"),
      "s.json:1:33: nodes[0].lables: unknown field 'lables'; did you mean "
      "'labels'?\n", "typo in node" },
    { "{\"nodes\":[{\"name\":\"n1\"},\n{\"name\":\"n1\"}]}",
      "s.json:2:2: nodes[1].name: duplicate node name 'n1' (first defined at line "
      "1)\n", "duplicate node" },
    { "{\"nodes\":[{\"gpus\":8}]}",
      "s.json:1:11: nodes[0].name: missing required field 'name'\n", "nameless node" },
    { "{\"nodes\":[{\"name\":\"n 1\"}]}",
      "s.json:1:12: nodes[0].name: 'n 1' must not contain spaces or control "
      "characters\n", "node name with a space" },
    { "{\"nodes\":{}}",
      "s.json:1:2: nodes: expected an array, got an object\n", "nodes not an array" },
    { "{}",
      "s.json:1:1: nodes: missing required field 'nodes'\n", "no nodes" },
    { "{\"nodes\":[],\"time\":\"noon\"}",
      "s.json:1:13: time: invalid time 'noon': expected RFC 3339 like "
      "2026-01-01T00:00:00Z\n", "bad time" },
    { LEASE (",\"nodes\":[\"n2\"]"),
      "s.json:2:67: leases[0].nodes[0]: unknown node 'n2': no node of the snapshot "
      "has that name\n", "lease on an unknown node" },
    { LEASE (",\"nodes\":[]"),
      "s.json:2:58: leases[0].nodes: a lease needs at least one node\n",
      "lease without nodes" },
    { LEASE (",\"nodes\":[\"n1\"],\"role\":\"Owner\""),
      "s.json:2:73: leases[0].role: unknown role 'Owner': use Active, Spare or "
      "Borrowed\n", "bad role" },
    { LEASE (",\"nodes\":[\"n1\"],\"start\":5"),
      "s.json:2:73: leases[0].start: expected a string, got an integer\n",
      "start as a number" },
    { LEASE (",\"nodes\":[\"n1\"],\"start\":\"2026-03-01T10:00:00Z\","
             "\"end\":\"2026-03-01T09:00:00Z\""),
      "s.json:2:104: leases[0].end: end is before start: a lease's expected end"
      " is its start plus its time limit\n", "end before start" },
    { LEASE (",\"nodes\":[\"n1\",\"n1\"]"),
      "s.json:2:72: leases[0].nodes[1]: node 'n1' is listed twice\n",
      "lease lists a node twice" },
    { "{\"nodes\":[{\"name\":\"n1\",\"gpus\":8}],\n\"leases\":[{\"run\":\"r\","
      "\"owner\":\"o\",\"envelope\":\"e\",\"gpus\":9,\"nodes\":[\"n1\"]}]}",
      "s.json:2:49: leases[0].gpus: gpus=9 exceeds the 8 GPUs of the lease's nodes\n",
      "lease larger than its nodes" },
    { LEASE (""), "s.json:2:11: leases[0].nodes: missing required field 'nodes'\n",
      "lease without nodes field" },
    { LEASE (",\"nodes\":[\"n1\"],\"minGPUs\":-8"),
      "s.json:2:73: leases[0].minGPUs: must be at least 0, got -8\n",
      "a negative malleable minimum" },
};

int main (void)
{
    jt_snapshot_t *s, *s2;
    char *js, *js2;

    is (fx_parse_snapshot (good, &s), "", "example parses");
    ok (s && s->finalized, "finalized");
    is_int (s->time, 1772366400, "time");
    is_int (s->nnodes, 4, "four nodes");
    is (s->nodes[0].name, "a01", "sorted by name");
    is (s->nodes[0].flavor, "h100", "flavor from the gpu.flavor label");
    ok (s->nodes[0].state == JT_NODE_DRAIN, "idle+drain is drain");
    ok (s->nodes[1].state == JT_NODE_DOWN, "down* is down");
    ok (s->nodes[2].state == JT_NODE_UP, "MIXED is up");
    is_int (s->nodes[2].used_gpus, 4, "usedGPUs");
    ok (s->nodes[3].flavor == NULL && s->nodes[3].gpus == 0, "CPU node");
    is_int (s->nodes[3].domain, -1, "node without fabric.domain has no domain");
    is_int (s->ndomains, 2, "two domains");
    is (s->domains[0].name, "west/c1/A", "domain name");
    is_int (s->nleases, 1, "one lease");
    ok (s->leases[0].role == JT_ROLE_BORROWED, "role is case-insensitive");
    is_int (s->leases[0].group, 1, "lease group");
    is_int (s->leases[0].start, 1772359200, "lease start");
    is_int (s->leases[0].end, 1772359200 + 4 * 3600, "lease's expected end");
    js = jt_snapshot_to_json (s);
    is (fx_parse_snapshot (js, &s2), "", "to_json parses back");
    js2 = s2 ? jt_snapshot_to_json (s2) : NULL;
    is (js2, js, "round trip is byte-identical");
    ok (s2 && s2->nnodes == s->nnodes && s2->ndomains == s->ndomains
        && s2->nleases == s->nleases && s2->time == s->time
        && s2->nodes[1].state == s->nodes[1].state
        && s2->leases[0].gpus == s->leases[0].gpus, "round trip keeps the model");
    is (js, "{\"time\":\"2026-03-01T12:00:00Z\",\"nodes\":[{\"name\":\"a01\",\"flavor\":"
        "\"h100\",\"gpus\":8,\"usedGPUs\":0,\"state\":\"drain\",\"labels\":{\"cluster\":"
        "\"c1\",\"fabric.domain\":\"A\",\"gpu.flavor\":\"h100\",\"region\":\"west\"}},"
        "{\"name\":\"a02\",\"flavor\":\"h100\",\"gpus\":8,\"usedGPUs\":0,\"state\":"
        "\"down\",\"labels\":{\"cluster\":\"c1\",\"fabric.domain\":\"A\",\"region\":"
        "\"west\"}},{\"name\":\"b01\",\"flavor\":\"h100\",\"gpus\":8,\"usedGPUs\":4,"
        "\"state\":\"up\",\"labels\":{\"cluster\":\"c1\",\"fabric.domain\":\"B\","
        "\"rack\":\"r2\",\"region\":\"west\"}},{\"name\":\"cpu1\",\"gpus\":0,"
        "\"usedGPUs\":0,\"state\":\"up\",\"labels\":{}}],\"leases\":[{\"run\":\"c1:1\","
        "\"group\":1,\"owner\":\"rai\",\"envelope\":\"west-h100\",\"nodes\":[\"b01\"],"
        "\"gpus\":4,\"role\":\"Borrowed\",\"start\":\"2026-03-01T10:00:00Z\","
        "\"end\":\"2026-03-01T14:00:00Z\"}]}",
        "canonical JSON");
    free (js);
    free (js2);
    jt_snapshot_destroy (s2);
    jt_snapshot_destroy (s);

    state_is ("up", JT_NODE_UP);
    state_is ("IDLE", JT_NODE_UP);
    state_is ("allocated", JT_NODE_UP);
    state_is ("completing", JT_NODE_UP);
    state_is ("mixed~", JT_NODE_UP);
    state_is ("down", JT_NODE_DOWN);
    state_is ("FAIL", JT_NODE_DOWN);
    state_is ("unknown", JT_NODE_DOWN);
    state_is ("not_responding", JT_NODE_DOWN);
    state_is ("idle+not_responding", JT_NODE_DOWN);
    state_is ("drain", JT_NODE_DRAIN);
    state_is ("Draining", JT_NODE_DRAIN);
    state_is ("drained", JT_NODE_DRAIN);
    state_is ("mixed+drain", JT_NODE_DRAIN);
    state_is ("down+drain", JT_NODE_DRAIN);

    is (fx_parse_snapshot ("{\"nodes\":[]}", &s), "", "empty cluster");
    is_int (s ? s->nnodes : 99, 0, "no nodes");
    jt_snapshot_destroy (s);

    /* a malleable run's minimum (jobtree plan --activate shrinks to it):
     * read, written back only when set */
    {
        jt_snapshot_t *m = NULL, *m2 = NULL;
        char *mj = NULL, *mj2 = NULL;
        is (fx_parse_snapshot (LEASE (",\"nodes\":[\"n1\"],\"minGPUs\":8"), &m), "",
            "a lease with minGPUs parses");
        is_int (m && m->nleases ? m->leases[0].min_gpus : -1, 8, "minGPUs read");
        mj = m ? jt_snapshot_to_json (m) : NULL;
        ok (mj && strstr (mj, "\"minGPUs\":8"), "minGPUs written back");
        is (mj ? fx_parse_snapshot (mj, &m2) : "no JSON", "", "and parses again");
        mj2 = m2 ? jt_snapshot_to_json (m2) : NULL;
        is (mj2, mj, "round trip with minGPUs is byte-identical");
        free (mj);
        free (mj2);
        jt_snapshot_destroy (m);
        jt_snapshot_destroy (m2);
    }
    for (size_t i = 0; i < sizeof (parse_errors) / sizeof (parse_errors[0]); i++)
        is (fx_parse_snapshot (parse_errors[i].text, NULL), parse_errors[i].want, "%s",
            parse_errors[i].name);

    /* every prefix of the example is an error, never a crash */
    is_int (fx_truncations (FX_SNAPSHOT, good), 0,
            "all %zu truncations are refused with a diagnostic", strlen (good) - 1);

    /* the shipped example: 16 nodes in 4 domains, and it round-trips */
    {
        char path[4096];
        const char *src = getenv ("JT_SRCDIR");
        jt_diags_t d;
        snprintf (path, sizeof (path), "%s/etc/snapshot.json", src ? src : "..");
        jt_diags_init (&d);
        s = jt_snapshot_load_file (path, &d);
        ok (s && d.n == 0, "etc/snapshot.json loads");
        ok (s && s->nnodes == 16 && s->ndomains == 4 && s->nleases == 2,
            "16 nodes, 4 domains, 2 leases");
        ok (s && !strcmp (s->domains[3].name, "west/c1/D")
            && s->domains[3].nnodes == 4, "domain D has gpu13..gpu16");
        is_int (s ? jt_snapshot_gpus_per_node (s, "h100") : 0, 8, "8 GPUs per node");
        js = s ? jt_snapshot_to_json (s) : NULL;
        is (js ? fx_parse_snapshot (js, &s2) : "no JSON", "", "example round-trips");
        js2 = s2 ? jt_snapshot_to_json (s2) : NULL;
        is (js2, js, "byte-identical");
        free (js);
        free (js2);
        jt_snapshot_destroy (s2);
        jt_snapshot_destroy (s);
        jt_diags_free (&d);
    }

    /* every single-byte corruption: parsed (and round-trips) or refused */
    size_t total;
    fx_doc_t kind = FX_SNAPSHOT;
    size_t bad = fx_corruptions (good, fx_round_trip, &kind, &total);
    is_int (bad, 0, "%zu corruptions: parsed and round-trips, or refused with a "
            "reason", total);
    return done_testing ();
}
