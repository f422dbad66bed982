/*
 * ledger_event.c - unit tests of the ledger event model: canonical JSON of
 * every event type (exact strings), parse/serialize round trips, refusals.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jobtree/ledger.h"
#include "tap.h"

static void roundtrip (const char *json, const char *name)
{
    jt_error_t err = { "" };
    jt_event_t *ev = jt_event_from_json (json, strlen (json), &err);
    ok (ev != NULL, "%s parses%s%s", name, ev ? "" : ": ", ev ? "" : err.text);
    char *out = ev ? jt_event_to_json (ev, &err) : NULL;
    is (out ? out : "(null)", json, "%s is canonical after a round trip", name);
    free (out);
    jt_event_destroy (ev);
}

static void refuse (const char *json, const char *want, const char *name)
{
    jt_error_t err = { "" };
    jt_event_t *ev = jt_event_from_json (json, strlen (json), &err);
    ok (ev == NULL, "%s is refused", name);
    is (err.text, want, "%s: message", name);
    jt_event_destroy (ev);
}

int main (void)
{
    jt_error_t err = { "" };
    jt_event_t *ev = jt_event_create (JT_EV_START);
    jt_event_set (&ev->id, "ctld:1:1");
    ev->time = 1767225600;
    jt_event_set (&ev->lease, "c1:42:0");
    jt_event_set (&ev->run, "c1:42");
    jt_event_set (&ev->group, "0");
    jt_event_add_node (ev, "a01");
    jt_event_add_node (ev, "a02");
    ev->gpus = 16;
    ev->role = JT_ROLE_ACTIVE;
    jt_event_set (&ev->envelope, "west-h100");
    jt_event_set (&ev->owner, "rai");
    ev->start = 1767225600;
    char *s = jt_event_to_json (ev, &err);
    is (s,
        "{\"v\":1,\"type\":\"Start\",\"id\":\"ctld:1:1\",\"time\":1767225600,"
        "\"lease\":\"c1:42:0\",\"run\":\"c1:42\",\"group\":\"0\","
        "\"nodes\":[\"a01\",\"a02\"],\"gpus\":16,\"role\":\"Active\","
        "\"envelope\":\"west-h100\",\"owner\":\"rai\",\"start\":1767225600}",
        "Start: canonical JSON in fixed key order");
    free (s);
    ev->type = JT_EV_END;
    ev->end = 1767229200;
    ev->reason = JT_REASON_RANDOM_PREEMPT;
    ev->seed = 0x0123456789abcdefULL;
    s = jt_event_to_json (ev, &err);
    is (s,
        "{\"v\":1,\"type\":\"End\",\"id\":\"ctld:1:1\",\"time\":1767225600,"
        "\"lease\":\"c1:42:0\",\"run\":\"c1:42\",\"group\":\"0\","
        "\"nodes\":[\"a01\",\"a02\"],\"gpus\":16,\"role\":\"Active\","
        "\"envelope\":\"west-h100\",\"owner\":\"rai\",\"start\":1767225600,"
        "\"end\":1767229200,\"reason\":\"RandomPreempt\",\"seed\":"
        "\"0123456789abcdef\"}",
        "End with RandomPreempt publishes the seed");
    if (s)
        roundtrip (s, "End");
    free (s);
    ev->end = 1;
    ok (jt_event_to_json (ev, &err) == NULL, "End before start refused");
    is (err.text, "end: 1 is before start 1767225600", "message names both");
    jt_event_destroy (ev);

    roundtrip ("{\"v\":1,\"type\":\"Start\",\"id\":\"x\",\"time\":5,\"lease\":\"L\","
               "\"run\":\"c:1\",\"group\":\"spare/0\",\"nodes\":[\"n1\"],\"gpus\":8,"
               "\"role\":\"Spare\",\"envelope\":\"e\",\"owner\":\"o\",\"start\":5,"
               "\"note\":\"a \\\"quoted\\\" /note\"}",
               "Start (Spare, note)");
    roundtrip ("{\"v\":1,\"type\":\"ReservationCreate\",\"id\":\"r1\",\"time\":7,"
               "\"reservation\":\"res-1\",\"run\":\"c:9\",\"envelope\":\"e\","
               "\"owner\":\"o\",\"nodes\":[],\"gpus\":64,\"start\":100}",
               "ReservationCreate");
    roundtrip ("{\"v\":1,\"type\":\"ReservationActivate\",\"id\":\"r2\",\"time\":100,"
               "\"reservation\":\"res-1\",\"run\":\"c:9\"}",
               "ReservationActivate");
    roundtrip ("{\"v\":1,\"type\":\"ReservationReleased\",\"id\":\"r3\",\"time\":101,"
               "\"reservation\":\"res-1\",\"run\":\"c:9\"}",
               "ReservationReleased");
    roundtrip ("{\"v\":1,\"type\":\"BudgetLoaded\",\"id\":\"b1\",\"time\":0,"
               "\"files\":[{\"path\":\"/etc/jobtree/budgets/rai.json\",\"sha256\":"
               "\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}],"
               "\"caps\":[{\"envelope\":\"west-h100\",\"owner\":\"rai\","
               "\"concurrency\":128,\"maxGPUHours\":500000.0,\"start\":0,"
               "\"end\":2000000000},{\"envelope\":\"x\",\"owner\":\"y\","
               "\"concurrency\":1,\"maxGPUHours\":0.5,\"start\":0,\"end\":10}]}",
               "BudgetLoaded");
    roundtrip ("{\"v\":1,\"type\":\"NodeFail\",\"id\":\"f1\",\"time\":9,"
               "\"nodes\":[\"a01\"],\"run\":\"c:1\"}",
               "NodeFail");

    refuse ("{\"v\":1,\"type\":\"NodeFail\",\"id\":\"f1\",\"time\":9,\"nodes\":[\"a\"],"
            "\"colour\":1}",
            "colour: unknown key", "unknown key");
    refuse ("{\"v\":2,\"type\":\"NodeFail\"}", "v: unsupported event version 2",
            "future version");
    refuse ("{\"v\":1,\"type\":\"Begin\",\"id\":\"a\",\"time\":1}",
            "type: unknown event type 'Begin'", "unknown type");
    refuse (
        "{\"v\":1,\"type\":\"NodeFail\",\"id\":\"f1\",\"time\":9,\"nodes\":[\"a\"]} x",
        "not a JSON object: unexpected character", "trailing bytes");
    refuse ("{\"v\":1,\"type\":\"End\",\"id\":\"x\",\"time\":5,\"lease\":\"L\","
            "\"run\":\"c:1\",\"group\":\"0\",\"nodes\":[\"n1\"],\"gpus\":8,"
            "\"role\":\"Active\",\"envelope\":\"e\",\"owner\":\"o\",\"start\":5,"
            "\"end\":6,\"reason\":\"RandomPreempt\"}",
            "seed: RandomPreempt needs its seed", "RandomPreempt without seed");
    refuse ("{\"v\":1,\"type\":\"Start\",\"id\":\"x\",\"time\":5,\"lease\":\"L\","
            "\"run\":\"c:1\",\"group\":\"0\",\"nodes\":[\"n1\"],\"gpus\":0,"
            "\"role\":\"Active\",\"envelope\":\"e\",\"owner\":\"o\",\"start\":5}",
            "gpus: must be >= 1, got 0", "zero GPUs");
    refuse ("{\"v\":1,\"type\":\"Start\",\"id\":\"x\",\"time\":5,\"lease\":\"L\","
            "\"run\":\"c:1\",\"group\":\"0\",\"nodes\":[\"n1\"],\"gpus\":1,"
            "\"role\":\"Lent\",\"envelope\":\"e\",\"owner\":\"o\",\"start\":5}",
            "role: unknown value 'Lent'", "unknown role");
    is (jt_end_reason_str (jt_end_reason_parse ("ReclaimedBySpare")),
        "ReclaimedBySpare", "reason names round trip");
    is (jt_role_str (JT_ROLE_BORROWED), "Borrowed", "role name");
    return done_testing ();
}
