/*
 * jobtree/ledger.h - the ledger: immutable scheduling events, their on-disk
 * records (checksummed, sequenced, hash-chained), the one reader, the
 * group-commit writer and the fold of events into live state with the
 * calculus's invariants.
 *
 * The on-disk format is specified in docs/ledger-format.md; the client that
 * sends events to the jobtree-ledgerd sidecar is in jobtree/ledger_client.h.
 * Nothing here knows about Slurm.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_LEDGER_H
#define JOBTREE_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "activate.h"
#include "budget.h"
#include "error.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Events ---------------------------------------------------------- */

typedef enum jt_ev_type {
    JT_EV_NONE = 0,
    JT_EV_START,                /* a lease starts */
    JT_EV_END,                  /* a lease ends (with a reason) */
    JT_EV_RES_CREATE,           /* a Plan-Later reservation is created */
    JT_EV_RES_ACTIVATE,
    JT_EV_RES_RELEASED,
    JT_EV_BUDGET_LOADED,        /* budget files (hashes) and envelope caps */
    JT_EV_NODE_FAIL,
    JT_EV_ACTIVATION,           /* who gave way to a reservation (the lottery) */
    JT_EV_CHECKPOINT,           /* a part of the fold's state after record upTo
                                 * (jobtree/ledger_checkpoint.h) */
} jt_ev_type_t;

/* A lease's role is the snapshot's jt_role_t: JT_ROLE_ACTIVE, JT_ROLE_SPARE,
 * JT_ROLE_BORROWED (paid by a sponsor's envelope). */
typedef jt_role_t jt_lease_role_t;

typedef enum jt_end_reason {
    JT_REASON_NONE = 0,
    JT_REASON_END,              /* the run (or the group) finished */
    JT_REASON_SWAP,             /* replaced by a spare */
    JT_REASON_SHRINK,           /* malleable shrink */
    JT_REASON_RANDOM_PREEMPT,   /* lottery victim; seed is published */
    JT_REASON_RECLAIMED_BY_SPARE,
    JT_REASON_FAIL,             /* node failure */
    JT_REASON_JOB_GONE,         /* closed at reconciliation: job no longer in Slurm */
    JT_REASON_DROP_SPARE,       /* a spare dropped so a reservation could activate */
} jt_end_reason_t;

typedef struct jt_ev_file {
    char *path;
    char sha256[65];            /* lowercase hex */
} jt_ev_file_t;

/* An envelope's caps as loaded, embedded in BudgetLoaded so that `jobtree
 * verify` checks the budget invariants from the ledger alone. */
typedef struct jt_ev_cap {
    char *envelope;
    char *owner;
    int64_t concurrency;        /* C */
    double max_gpu_hours;       /* B (already resolved: never < 0) */
    int64_t start, end;         /* window [start, end) */
} jt_ev_cap_t;

/* An Activation's record of jt_activate (jobtree/activate.h): the chosen
 * alternative's needs, every holder in the request's order, and the cuts in
 * the order they were made. Pools are named ("west/A", "envelope:NAME"). */
typedef struct jt_ev_need {
    char *pool;
    int64_t deficit;            /* GPUs missing (<= 0: none) */
} jt_ev_need_t;

typedef struct jt_ev_holder {
    char *run, *owner;
    int group;                  /* group index in its run */
    jt_lease_role_t role;
    int64_t gpus;               /* held in pool (>= 1) */
    char *pool;
    int64_t run_gpus;           /* "runGPUs": the run's GPUs, spares excluded */
    int64_t min_gpus;           /* "minGPUs": malleable minimum (<= runGPUs) */
} jt_ev_holder_t;

typedef struct jt_ev_cut {
    char *run;
    int group;
    jt_cut_kind_t kind;         /* "DropSpare", "Shrink", "RandomPreempt" */
} jt_ev_cut_t;

/* Bounds of an Activation, refused beyond (a verifier replays it: its cost
 * must not depend on a number a writer chose). GPU counts and groups are
 * at most JT_RUN_GPUS_MAX (jobtree/run.h); a deficit's magnitude at most
 * JT_EV_HOLDERS_MAX * JT_RUN_GPUS_MAX. */
#define JT_EV_HOLDERS_MAX 65536
#define JT_EV_NEEDS_MAX 1024

/* Bounds of every event, refused beyond (docs/ledger-format.md, section 4):
 * times (time, start, end, a window's start and end) are in
 * [0, JT_EV_TIME_MAX] (9999-12-31T23:59:59Z, the last RFC 3339 instant), a
 * lease's or a reservation's gpus in [1, JT_RUN_GPUS_MAX]. So a fold adds
 * at most 2^20 GPUs per lease, and GPUs x seconds stay below 2^58. */
#define JT_EV_TIME_MAX INT64_C (253402300799)

/* A BudgetLoaded records the budget content itself ("budgets": Cover's
 * rules: families, lending, aggregate caps) when its canonical text is at
 * most this many bytes, and its SHA-256 ("budgetsSha256") always; larger
 * content is recorded by its hash alone (verify then says what it could not
 * check). The rest of a payload (files, caps) is bound by the record. */
#define JT_EV_BUDGETS_MAX 262144

/* One event. Which fields are meaningful depends on type (see
 * docs/ledger-format.md, "Events"); unused strings are NULL, unused
 * integers 0. Every string is owned by the event (malloc'd). Times are
 * epoch seconds, UTC. */
typedef struct jt_event {
    jt_ev_type_t type;
    char *id;                   /* unique event id: idempotent resends */
    int64_t time;               /* when it happened */
    char *lease;                /* Start/End: lease id (End matches Start) */
    char *run;                  /* "cluster:jobid" */
    char *group;                /* group index / component path */
    char **nodes;
    size_t nnodes;
    int64_t gpus;
    jt_lease_role_t role;
    char *envelope;             /* paying envelope */
    char *owner;                /* owner of the run (the borrower if Borrowed) */
    int64_t start;              /* lease start / reservation earliest start */
    int64_t end;                /* End: lease end */
    jt_end_reason_t reason;     /* End */
    uint64_t seed;              /* End with RandomPreempt, Activation: the
                                 * published lottery seed */
    char *reservation;          /* reservation id */
    jt_ev_file_t *files;        /* BudgetLoaded */
    size_t nfiles;
    jt_ev_cap_t *caps;          /* BudgetLoaded */
    size_t ncaps;
    char budgets_sha256[65];    /* BudgetLoaded: SHA-256 (hex) of the canonical
                                 * budget content (jt_budgets_to_json); "" when
                                 * not recorded (the previous format) */
    jt_budgets_t *budgets;      /* BudgetLoaded: that content, finalized and
                                 * owned by the event; NULL when only its hash
                                 * is recorded (over JT_EV_BUDGETS_MAX) or none */
    char *scope;                /* Activation: published with the seed */
    jt_ev_need_t *needs;        /* Activation */
    size_t nneeds;
    jt_ev_holder_t *holders;    /* Activation */
    size_t nholders;
    jt_ev_cut_t *cuts;          /* Activation */
    size_t ncuts;
    bool resolved;              /* Activation: every need covered */
    char *note;                 /* optional free text */
    char *conformance;          /* Start, optional: the conformance fingerprint
                                 * the group's nodes share, or "mixed"
                                 * (jobtree/conformance.h); NULL: none known */
    /* Checkpoint (written by jobtree-ledgerd only): part `part` of `parts`
     * of the fold's state after record up_to; state is this part's state
     * object as canonical JSON text, state_sha256 the SHA-256 (hex) of every
     * part's state text concatenated in part order. */
    uint64_t up_to;
    int64_t part, parts;
    char state_sha256[65];
    char *state;
    /* Private to the read path (ledger_event_json.c): an event the reader
     * parses for the fold, which never changes it, has its strings (id,
     * lease, run, ...) in one block after the struct, allocated and freed
     * with it; jt_event_destroy frees only the strings outside it. NULL in
     * every event a caller gets (jt_event_create, jt_event_from_json*,
     * jt_record_event): each string its own allocation. */
    char *strs;
    size_t strs_size, strs_used;
} jt_event_t;

/* Zeroed event of the given type. NULL on ENOMEM. */
jt_event_t *jt_event_create (jt_ev_type_t type);
void jt_event_destroy (jt_event_t *ev);

/* Replace *field with a copy of s (NULL clears). 0, or -1 on ENOMEM. */
int jt_event_set (char **field, const char *s);
int jt_event_add_node (jt_event_t *ev, const char *node);
int jt_event_add_file (jt_event_t *ev, const char *path, const char *sha256);
int jt_event_add_cap (jt_event_t *ev, const jt_ev_cap_t *cap);
/* Append a copy (strings copied; NULL strings become ""). 0, or -1 on
 * ENOMEM. */
int jt_event_add_need (jt_event_t *ev, const jt_ev_need_t *need);
int jt_event_add_holder (jt_event_t *ev, const jt_ev_holder_t *holder);
int jt_event_add_cut (jt_event_t *ev, const jt_ev_cut_t *cut);

/* A BudgetLoaded event for a finalized budget set: every file with its
 * SHA-256, every envelope's resolved caps (B = jt_envelope_gpu_hours_cap),
 * the SHA-256 of the set's canonical content (jt_budgets_to_json) and,
 * when that text is at most JT_EV_BUDGETS_MAX bytes, the content (a copy).
 * NULL with err. */
jt_event_t *jt_event_budget_loaded (const jt_budgets_t *b, const char *id,
                                    int64_t time, jt_error_t *err);

/* The Activation event of a decision of jt_activate: reservation (must be
 * req->resv_id), run (the preemptor), req->scope, req->time as the event
 * time, a->rho as its seed, the needs of alternative alt (a->alt; the first
 * alternative's when alt is req->nalts, none was coverable), every holder
 * of req in its order, a's cuts in order and a->resolved. pool_names[i]
 * names pool i (jt_need_t.pool, jt_holder_t.pool); the pools named must be
 * distinct. NULL with err (a pool out of range, a bound passed, ENOMEM). */
jt_event_t *jt_event_activation (const char *id, const char *reservation,
                                 const char *run, const jt_activation_req_t *req,
                                 size_t alt, const char *const *pool_names,
                                 size_t npools, const jt_activation_t *a,
                                 jt_error_t *err);

/* Recompute an Activation from its event alone: its seed is
 * jt_lottery_seed (scope, reservation, time), and jt_activate over its
 * holders (in order) and its one alternative (its needs) makes exactly its
 * cuts (run, group, kind, in order) and its `resolved`. Returns 0 when
 * everything matches, 1 with a one-line explanation of the first mismatch
 * in why (len bytes), -1 with errno ENOMEM, or EINVAL when ev is not a
 * valid Activation (why says). out (may be NULL) receives the recomputed decision, its cuts
 * indexing ev->holders (jt_activation_free it; its draws' run ids point
 * into ev). */
int jt_event_activation_replay (const jt_event_t *ev, jt_activation_t *out,
                                char *why, size_t len);

/* Check the fields required by ev->type. 0, or -1 with err. */
int jt_event_validate (const jt_event_t *ev, jt_error_t *err);

/* Canonical JSON (fixed key order, compact, no trailing newline) of a valid
 * event; the caller frees it. NULL with err if invalid or on ENOMEM. */
char *jt_event_to_json (const jt_event_t *ev, jt_error_t *err);

/* Parse and validate one event. Unknown keys are refused. NULL with err. */
jt_event_t *jt_event_from_json (const char *text, size_t len, jt_error_t *err);

/* The same, and *canonical = whether text is the event's canonical form,
 * byte for byte (what jt_event_to_json of the result would print; a Start
 * or End is checked on the parsed tree, without building a second one). */
jt_event_t *jt_event_from_json_canon (const char *text, size_t len, bool *canonical,
                                      jt_error_t *err);

/* Names as used in the JSON ("Start", "RandomPreempt", ...) and back
 * (JT_EV_NONE / JT_REASON_NONE for unknown names). A lease's role is named
 * and parsed by jt_role_str / jt_role_parse (jobtree/snapshot.h: the one
 * role table, "?" for an unknown role). */
const char *jt_ev_type_str (jt_ev_type_t t);
const char *jt_end_reason_str (jt_end_reason_t r);
jt_ev_type_t jt_ev_type_parse (const char *s);
jt_end_reason_t jt_end_reason_parse (const char *s);

/* ---- Records ----------------------------------------------------------- */

/* A record line: "JT1 <seq> <prev> <len> <payload> <hash>\n" where hash is
 * the SHA-256 of everything before the space that precedes it. */
#define JT_LEDGER_MAGIC "JT1"
#define JT_LEDGER_GENESIS \
    "0000000000000000000000000000000000000000000000000000000000000000"
#define JT_LEDGER_MAX_PAYLOAD (1024 * 1024)
/* Segment files are "ledger-<20-digit first seq>.jtl" in the ledger dir. */
#define JT_LEDGER_SEGMENT_FMT "ledger-%020llu.jtl"

/* Format one record into a malloc'd *line (length *linelen) and its hash
 * into hash (hex, 65 bytes). The payload must not contain '\n'.
 * 0, or -1 with err. */
int jt_record_format (uint64_t seq, const char *prev, const char *payload,
                      size_t len, char **line, size_t *linelen, char hash[65],
                      jt_error_t *err);

typedef struct jt_record {
    uint64_t seq;
    char prev[65];
    char hash[65];
    const char *payload;        /* points into the parsed buffer */
    size_t len;
    size_t size;                /* bytes of the whole line, '\n' included */
    /* Where it is (set by jt_ledger_read for its callback, not by
     * jt_record_parse): its segment file and its byte offset there. */
    const char *file;
    uint64_t offset;
    /* What a jt_ledger_pre_t's parse made of it on the reader's second
     * thread, or NULL (then the callback does that work itself). Set by
     * jt_ledger_read_pre for its callback; released after the callback. */
    void *pre;
} jt_record_t;

typedef enum jt_record_status {
    JT_RECORD_OK = 0,
    JT_RECORD_INCOMPLETE,       /* buffer ends before the record does */
    JT_RECORD_MALFORMED,        /* not the grammar */
    JT_RECORD_BADHASH,          /* grammar fine, hash does not match */
    JT_RECORD_BADTERM,          /* complete up to its hash, but the next byte
                                 * is not LF (a CRLF conversion, a damaged
                                 * terminator): damage, never a torn write */
} jt_record_status_t;

/* Parse the record at the start of buf (avail bytes). On OK fills rec. */
jt_record_status_t jt_record_parse (const char *buf, size_t avail,
                                    jt_record_t *rec);

/* ---- Reader ------------------------------------------------------------ */

typedef enum jt_ledger_status {
    JT_LEDGER_OK = 0,
    JT_LEDGER_EMPTY,            /* no records at all */
    JT_LEDGER_TRUNCATED,        /* torn tail: only unusable bytes after the
                                   last good record of the last segment */
    JT_LEDGER_CORRUPT,          /* bad record with good records after it,
                                   or damage in a non-last segment */
    JT_LEDGER_BADCHAIN,         /* prev hash does not match */
    JT_LEDGER_BADSEQ,           /* sequence gap, repeat or misnamed segment */
    JT_LEDGER_BADHEAD,          /* does not reach the expected head anchor */
    JT_LEDGER_IOERR,
} jt_ledger_status_t;

#define JT_LEDGER_PATH_MAX 4096

typedef struct jt_ledger_result {
    jt_ledger_status_t status;
    uint64_t nrecords;
    uint64_t nsegments;
    uint64_t last_seq;          /* 0 if none */
    char last_hash[65];         /* genesis if none */
    /* The first problem (status != OK/EMPTY): the sequence number the bad
     * record should have had, the file and byte offset where it starts. */
    uint64_t bad_seq;
    uint64_t bad_offset;
    char bad_file[JT_LEDGER_PATH_MAX];
    char msg[256];
    /* The last segment and the size of its good prefix (for the writer). */
    char last_file[JT_LEDGER_PATH_MAX];
    uint64_t last_good_size;
    /* CORRUPT in the last segment (a damaged tail: complete records or
     * whole lines after the last good record, which a torn write cannot
     * leave); only an operator may cut it (jt_ledger_writer_opts_t). */
    bool tail_damage;
    /* Writer only: the durable head recorded in the ledger directory
     * (JT_LEDGER_HEAD_FILE; 0 when there was none) and the first seq the
     * recovery had to give up, acknowledged ones included, when an operator
     * allowed it (0: none). */
    uint64_t durable_seq;
    uint64_t cut_seq;
} jt_ledger_result_t;

/* Called for each good record in order; return 0 to go on, -1 to stop
 * (jt_ledger_read then fails with the callback's err). */
typedef int (*jt_ledger_record_f) (const jt_record_t *rec, void *arg,
                                   jt_error_t *err);

/* Read a ledger: paths are segment files or directories of segments (taken
 * in name order). Checks every record's grammar and hash, the sequence
 * (1, 2, ...), the chain (first prev = genesis) and segment names. Stops at
 * the first problem. Returns 0 when the outcome is in res (any status,
 * including problems with the data), -1 when the callback failed or on
 * ENOMEM (err). `head` ("SEQ:HASH" anchor, may be NULL) makes a ledger that
 * does not contain that record at that seq a BADHEAD. */
int jt_ledger_read (const char *const *paths, size_t npaths, const char *head,
                    jt_ledger_record_f cb, void *arg, jt_ledger_result_t *res,
                    jt_error_t *err);

/* Work done ahead of the callback, on the threads that check the hashes of
 * a large segment's records (all but a share the callback's thread does
 * itself; see threads below): parse(rec,
 * arg) runs on such a thread, before the callback of any record before
 * rec, and returns what the callback finds in rec->pre (NULL: nothing);
 * release(p) frees it after the callback, on the thread that ran its
 * parse (when that thread next takes a chunk, or at the end of the walk;
 * on another only when no memory could be had to hand it over). Both must
 * be thread-safe. */
typedef struct jt_ledger_pre {
    void *(*parse) (const jt_record_t *rec, void *arg);
    void (*release) (void *p);
    void *arg;
    /* Threads reading a large segment, the callback's included: 0 for two
     * (one helper); 1 for the callback's alone (the sequential walk, every
     * parse on the callback's thread); T for T - 1 helpers (at most 256),
     * each hashing and parsing a chunk of its own, and the callback's
     * thread taking a waiting chunk too whenever the one it needs next is
     * not done. The outcome is the same whatever the number. */
    unsigned threads;
    /* NULL, or a hint: ahead(rec, cb's arg) runs on the callback's thread a
     * few records before the callback of rec, rec->pre set, rec parsed
     * ahead and good so far; the callback may fetch into the cache what
     * rec will need (a fold's index slot): not a step of its work, which
     * must be the same without it. */
    void (*ahead) (const jt_record_t *rec, void *cb_arg);
} jt_ledger_pre_t;

/* jt_ledger_read with pre (NULL: none). The outcome, the records given to
 * cb and their order are jt_ledger_read's. */
int jt_ledger_read_pre (const char *const *paths, size_t npaths, const char *head,
                        const jt_ledger_pre_t *pre, jt_ledger_record_f cb, void *arg,
                        jt_ledger_result_t *res, jt_error_t *err);

/* For tests of a whole command (jobtree verify's JOBTREE_VERIFY_CHUNK):
 * from now on, in this process, every segment however small is read in
 * chunks of `records` records (1 to 65536) on a multi-threaded read, as a
 * large one is. Not thread-safe: call it before any read. 0, or -1 when
 * records is out of range. */
int jt_ledger_read_test_chunks (size_t records);

/* Events parsed ahead (jt_event_from_json_canon; canonical: with the
 * canonical flag, for verify), taken in the callback by jt_record_event. */
void jt_ledger_pre_events (jt_ledger_pre_t *pre, bool canonical);

/* rec's event, the caller's to destroy: the one parsed ahead, or parsed
 * now. Results (event, flag, err) are jt_event_from_json_canon's. */
jt_event_t *jt_record_event (const jt_record_t *rec, bool *canonical, jt_error_t *err);

/* jt_record_event, the event parsed ahead left to its release (*owned
 * false: the caller must not destroy it nor keep it past the callback;
 * true: it was parsed now, the caller's to destroy). The release then
 * frees it on the thread that parsed it (jt_ledger_read_pre), not here. */
jt_event_t *jt_record_event_ref (const jt_record_t *rec, bool *canonical, bool *owned,
                                 jt_error_t *err);

/* Whether rec's event was parsed ahead, and then *h = jt_str_hash64 of its
 * id, computed where it was parsed. */
bool jt_record_event_id_hash (const jt_record_t *rec, uint64_t *h);

const char *jt_ledger_status_str (jt_ledger_status_t s);

/* Parse a head anchor "SEQ:HASH" strictly: seq from 1 without leading zeros,
 * ':', 64 lowercase hex digits, nothing after. 0, or -1. */
int jt_ledger_head_parse (const char *s, uint64_t *seq, char hash[65]);

/* Sorted list of segment paths in dir (malloc'd array of malloc'd strings).
 * 0 or -1 with err. */
int jt_ledger_segments (const char *dir, char ***paths, size_t *n,
                        jt_error_t *err);
void jt_ledger_segments_free (char **paths, size_t n);

/* paths (segment files, or directories read with jt_ledger_segments) as
 * segment files in order, into *files (free with jt_ledger_segments_free).
 * 0, or -1 with err set. */
int jt_ledger_expand_paths (const char *const *paths, size_t npaths,
                            char ***files, size_t *nfiles, jt_error_t *err);

/* ---- Writer ------------------------------------------------------------ */

typedef struct jt_ledger_writer jt_ledger_writer_t;

/* The durable head in the ledger directory: "SEQ:HASH\n" of a record known
 * durable (docs/ledger-format.md, section 3). */
#define JT_LEDGER_HEAD_FILE "ledgerd.head"

typedef struct jt_ledger_writer_opts {
    uint64_t segment_max;       /* rotate at this size (0: 64 MiB) */
    jt_ledger_record_f cb;      /* sees every good record at recovery */
    void *arg;
    /* An operator's decision: cut a damaged tail (kept in
     * damaged-<seq>.bin) and accept a ledger that ends before its durable
     * head, losing records that may have been acknowledged. */
    bool truncate_damaged_tail;
    /* Fencing (one writer per ledger directory, jobtree-ledgerd(8)): take
     * the next epoch of JT_LEDGER_EPOCH_FILE at open, before the recovery
     * reads the ledger, and refuse any append (and any save of the durable
     * head) once the file holds another epoch: a writer that stalled while
     * another took the ledger over stops instead of writing after it. The
     * caller holds the directory's lock; the epoch is what still stops a
     * writer whose lock was lost (an NFS lease that expired). */
    bool fence;
    /* Recovery from a later segment (0: read the whole ledger): read from
     * the segment holding min (from_seq, the durable head's seq) to the
     * end, the first read record's prev trusted (a caller that indexed the
     * records before from_seq, jobtree-ledgerd's stamped id index). The
     * durable head's hash is still checked, and everything after it as in
     * a whole read; the segments before are not read. Without a durable
     * head the whole ledger is read. from_off: when not 0, record
     * from_seq's byte offset in its segment; when the durable head is not
     * before from_seq the read starts there (jt_ledger_read_at: that
     * record's hash checked, the chain anchored at it). */
    uint64_t from_seq;
    uint64_t from_off;
} jt_ledger_writer_opts_t;

/* The writers' epoch in the ledger directory (fence): one line
 * "<20-digit epoch> writing|stopped\n", rewritten in place. Not part of the
 * ledger (docs/ledger-format.md, section 1: other files). */
#define JT_LEDGER_EPOCH_FILE "ledgerd.epoch"

/* Open (creating) the ledger in dir for appending. Recovery reads it all
 * (or from o->from_seq on, above)
 * (o->cb sees every good record, e.g. to index event ids). A torn tail
 * (TRUNCATED: at most a prefix of one record) is copied to
 * dir/torn-<seq>.bin, cut off and reported in *res (status TRUNCATED,
 * bad_seq, bad_offset, bad_file). The ledger must still hold the durable
 * head of JT_LEDGER_HEAD_FILE (same seq, same hash). Anything else refuses
 * with err naming the file and offset: a damaged tail (CORRUPT with
 * res->tail_damage) or a ledger ending before its durable head only unless
 * o->truncate_damaged_tail (then res->cut_seq is the first seq given up).
 * The durable head is then saved for the ledger as recovered. Segments
 * rotate once they reach segment_max bytes. New files get mode 0640. NULL
 * with err. */
jt_ledger_writer_t *jt_ledger_writer_open_opts (const char *dir,
                                                const jt_ledger_writer_opts_t *o,
                                                jt_ledger_result_t *res,
                                                jt_error_t *err);

/* jt_ledger_writer_open_opts with segment_max, cb and arg only. */
jt_ledger_writer_t *jt_ledger_writer_open (const char *dir, uint64_t segment_max,
                                           jt_ledger_record_f cb, void *arg,
                                           jt_ledger_result_t *res,
                                           jt_error_t *err);

/* Append n payloads as one group commit: one write, one fdatasync. On
 * success returns 0 and *first_seq is the seq of payloads[0] (the others
 * follow). On any failure the segment is cut back to its last good size,
 * the writer refuses every later append (fail closed), and -1 is returned
 * with err: nothing of the batch may be acknowledged. */
int jt_ledger_writer_append (jt_ledger_writer_t *w, const char *const *payloads,
                             const size_t *lens, size_t n, uint64_t *first_seq,
                             jt_error_t *err);

/* jt_ledger_writer_append, and offsets[i] (if not NULL) receives the byte
 * offset of record i in jt_ledger_writer_segment (w) (a batch is never
 * split across segments). */
int jt_ledger_writer_append_at (jt_ledger_writer_t *w, const char *const *payloads,
                                const size_t *lens, size_t n, uint64_t *first_seq,
                                uint64_t *offsets, jt_error_t *err);

/* Save the head (last seq and hash, all durable) as the durable head, when
 * it changed: write JT_LEDGER_HEAD_FILE.tmp, fsync, rename, fsync the
 * directory (two syncs: keep it off the commit path). 0, or -1 with err. */
int jt_ledger_writer_save_head (jt_ledger_writer_t *w, jt_error_t *err);
/* The same in three steps, so that the syncs run off the thread that owns
 * the writer (jobtree-ledgerd's head thread): the head to save, 1 with
 * seq and hash (65 bytes) when it changed since the last save, after the
 * fence check (a fenced writer fails, as at a save), 0 when saved already,
 * -1 with err; the file written (touches no writer: any thread, one at a
 * time per directory); and the writer told, once written. */
int jt_ledger_writer_head_due (jt_ledger_writer_t *w, uint64_t *seq, char *hash,
                               jt_error_t *err);
int jt_ledger_head_write (const char *dir, uint64_t seq, const char *hash, jt_error_t *err);
void jt_ledger_writer_head_saved (jt_ledger_writer_t *w, uint64_t seq);
/* The seq of the durable head saved last. */
uint64_t jt_ledger_writer_saved_seq (const jt_ledger_writer_t *w);

uint64_t jt_ledger_writer_last_seq (const jt_ledger_writer_t *w);
const char *jt_ledger_writer_last_hash (const jt_ledger_writer_t *w);
/* The path of the segment being appended to. */
const char *jt_ledger_writer_segment (const jt_ledger_writer_t *w);
/* Close; saves the durable head unless the writer failed. A fencing
 * writer that still holds the epoch marks it "stopped". */
void jt_ledger_writer_close (jt_ledger_writer_t *w);

/* Fencing (opts.fence): this writer's epoch (0: not fencing); whether it
 * took the ledger over from a writer that did not stop (its epoch was left
 * "writing": crashed, killed, or alive and stalled) and so appends to a
 * segment file of its own; and whether it stopped because another writer
 * took the ledger (every later append fails). */
uint64_t jt_ledger_writer_epoch (const jt_ledger_writer_t *w);
bool jt_ledger_writer_took_over (const jt_ledger_writer_t *w);
bool jt_ledger_writer_fenced (const jt_ledger_writer_t *w);

/* Read dir's JT_LEDGER_EPOCH_FILE strictly: 0 with *epoch (0 when there is
 * no file) and *writing, or -1 with err naming the file and the field. */
int jt_ledger_epoch_read (const char *dir, uint64_t *epoch, bool *writing,
                          jt_error_t *err);

/* ---- Fold and invariants ------------------------------------------------ */

typedef enum jt_violation_kind {
    JT_VIOL_NONE = 0,
    JT_VIOL_DUP_ID,             /* an event id appears twice */
    JT_VIOL_DUP_START,          /* Start of a lease id that is already open */
    JT_VIOL_UNMATCHED_END,      /* End without an open Start */
    JT_VIOL_BAD_INTERVAL,       /* an End that does not repeat its Start */
    JT_VIOL_NODE_OVERLAP,       /* a node in two leases at once */
    JT_VIOL_CONCURRENCY,        /* envelope over C */
    JT_VIOL_GPU_HOURS,          /* envelope over B */
    JT_VIOL_WINDOW,             /* lease outside its envelope's window */
    JT_VIOL_BAD_EVENT,          /* payload is not a valid, canonical event */
    JT_VIOL_LOTTERY,            /* an Activation that does not recompute, or a
                                 * RandomPreempt End that no Activation made */
    JT_VIOL_PAYER,              /* a lease's envelope could not pay for its
                                 * owner (Cover's family and lending ACL) */
    JT_VIOL_ROLE,               /* a lease's role is not the one Cover gives
                                 * its payer (Borrowed: a sponsor's) */
    JT_VIOL_LENDING,            /* an envelope's lending caps exceeded */
    JT_VIOL_AGGREGATE,          /* an aggregate cap exceeded */
    JT_VIOL_BUDGET_HASH,        /* verify --budgets: the files are not the
                                 * budgets the ledger last recorded */
    JT_VIOL_CHECKPOINT,         /* a Checkpoint whose parts are not complete and
                                 * consecutive after record upTo, or whose state
                                 * is not the fold of the records before it */
} jt_violation_kind_t;

typedef struct jt_violation {
    jt_violation_kind_t kind;
    uint64_t seq;
    char msg[256];
} jt_violation_t;

const char *jt_violation_str (jt_violation_kind_t k);

typedef struct jt_ledger_fold jt_ledger_fold_t;

/* Per-envelope live figures. */
typedef struct jt_fold_envelope {
    const char *name;
    const char *owner;          /* from the caps, NULL if no caps known */
    int64_t active_gpus;        /* all roles */
    int64_t borrowed_gpus;      /* role Borrowed */
    int64_t peak_gpus;
    double gpu_hours;           /* closed leases + open ones up to `now` */
    double borrowed_gpu_hours;
    double closed_gpu_hours;    /* closed leases only (all roles) */
    double closed_borrowed_gpu_hours; /* of which role Borrowed */
    bool capped;                /* caps known from a BudgetLoaded */
    int64_t concurrency;
    double max_gpu_hours;
} jt_fold_envelope_t;

jt_ledger_fold_t *jt_ledger_fold_create (void);
void jt_ledger_fold_destroy (jt_ledger_fold_t *f);

/* Also keep the history: every lease ever started and every reservation
 * (jt_ledger_fold_leases, jt_ledger_fold_reservations; `jobtree report`).
 * Ask before the first event. 0, or -1 with err (EINVAL: events already
 * applied; ENOMEM). */
int jt_ledger_fold_keep_history (jt_ledger_fold_t *f, jt_error_t *err);

/* Drop the event ids seen so far and stop remembering them: a long-lived
 * fold (the select plugin's) then holds open leases and envelopes only;
 * duplicate ids are no longer reported. Accepts NULL. */
void jt_ledger_fold_forget_ids (jt_ledger_fold_t *f);

/* Apply one event (seq is its record's). Returns 0 when it keeps every
 * invariant, 1 when it breaks one (*v filled; the state is still updated so
 * the fold can go on), -1 on ENOMEM (err). The invariants of lease time
 * (overlap, concurrency, GPU-hours, window) are checked here as events
 * arrive, in event order, with the latest caps: a live fold's view;
 * jt_ledger_verify checks them on the intervals instead. */
int jt_ledger_fold_apply (jt_ledger_fold_t *f, uint64_t seq,
                          const jt_event_t *ev, jt_violation_t *v,
                          jt_error_t *err);

/* Counts: events, starts, ends, open leases. */
void jt_ledger_fold_counts (const jt_ledger_fold_t *f, uint64_t *events,
                            uint64_t *starts, uint64_t *ends, uint64_t *open);

/* Envelopes seen (in caps or leases), sorted by name; gpu_hours include
 * open leases up to time now. Returns the count and fills up to max. */
size_t jt_ledger_fold_envelopes (const jt_ledger_fold_t *f, int64_t now,
                                 jt_fold_envelope_t *out, size_t max);

/* One envelope's figures (as jt_ledger_fold_envelopes), found by name in
 * O(1): 0, or -1 with errno ENOENT when the fold has not seen it. */
int jt_ledger_fold_envelope (const jt_ledger_fold_t *f, const char *name,
                             int64_t now, jt_fold_envelope_t *out);

/* The BudgetLoaded events a fold applied, and what verify could check of
 * Cover's rules with them. */
typedef struct jt_fold_budgets {
    uint64_t loads;             /* BudgetLoaded events applied */
    uint64_t loads_no_content;  /* of which with no budget content recorded
                                 * (the previous format, or over
                                 * JT_EV_BUDGETS_MAX) */
    uint64_t first_no_content;  /* the seq of the first of those (0: none) */
    uint64_t last_seq;          /* the last BudgetLoaded's seq (0: none) */
    const char *last_sha256;    /* its budgetsSha256 ("" when not recorded) */
    const jt_ev_file_t *last_files; /* its files */
    size_t last_nfiles;
    /* Lease time (jt_ledger_verify) only: leases whose payer and role were
     * checked against recorded budget content, and leases that started
     * under budgets with no recorded content (or before any BudgetLoaded). */
    uint64_t leases_checked;
    uint64_t leases_unchecked;
} jt_fold_budgets_t;

/* Fill out (strings valid until the next apply or destroy). */
void jt_ledger_fold_budgets (const jt_ledger_fold_t *f, jt_fold_budgets_t *out);

/* Activation events applied, each recomputed (jt_event_activation_replay). */
uint64_t jt_ledger_fold_lotteries (const jt_ledger_fold_t *f);

/* The latest event time applied (0 before any). */
int64_t jt_ledger_fold_last_time (const jt_ledger_fold_t *f);

/* The latest end of a lease the fold closed (0 before any). */
int64_t jt_ledger_fold_closed_until (const jt_ledger_fold_t *f);

/* What the reports sum per owner and envelope, kept by every fold since
 * genesis (and carried by checkpoints): closed leases, their GPU-seconds
 * (integral) and those of role Borrowed; the peak of GPUs in lease time
 * over all its leases (closed, and open ones running on), kept while its
 * Starts and Ends come in time order (ordered; last: the latest instant of
 * one). */
typedef struct jt_fold_usage {
    const char *owner, *envelope;
    int64_t leases;
    double gpu_s, borrowed_gpu_s;
    int64_t peak, last;
    bool ordered;
} jt_fold_usage_t;

/* Every owner and envelope's usage, sorted by owner then envelope, in a
 * malloc'd *out (free it; strings valid until the next apply). 0, or -1
 * with err: ENOMEM, or EINVAL when the fold does not know them (restored
 * from a checkpoint that did not carry them). */
int jt_ledger_fold_usage (const jt_ledger_fold_t *f, jt_fold_usage_t **out, size_t *n,
                          jt_error_t *err);

/* The earliest start of a lease applied (-1: none), and the latest close
 * of a reservation (0: none); meaningful when jt_ledger_fold_usage is. */
int64_t jt_ledger_fold_first_start (const jt_ledger_fold_t *f);
int64_t jt_ledger_fold_resv_closed_until (const jt_ledger_fold_t *f);

/* A lease as the fold holds it (strings owned by the fold: an open lease's
 * are valid until the next apply, a history row's until destroy). */
typedef struct jt_fold_lease {
    const char *lease, *run, *group, *envelope, *owner;
    const char *const *nodes;
    size_t nnodes;
    int64_t gpus;
    jt_lease_role_t role;
    int64_t start;
    uint64_t seq;               /* of its Start */
    int64_t end;                /* -1 while open */
    jt_end_reason_t reason;     /* of its End (JT_REASON_NONE while open) */
    uint64_t seed;              /* of its End (RandomPreempt) */
    /* An open lease that the latest Activation cutting its run while it was
     * open cut: the reason its End is to carry (RandomPreempt with cut_seed
     * for every lease of a run the lottery took, Shrink or DropSpare for the
     * group's lease or spares), JT_REASON_NONE otherwise. */
    jt_end_reason_t cut;
    uint64_t cut_seed;
} jt_fold_lease_t;

/* Open leases, sorted by lease id. Fills up to max; returns the count. */
size_t jt_ledger_fold_open (const jt_ledger_fold_t *f, jt_fold_lease_t *out,
                            size_t max);

/* Open leases of run ("cluster:jobid"; NULL: all), sorted by lease id, in a
 * malloc'd *out (free it; *n entries). One pass over the open leases.
 * 0, or -1 with err on ENOMEM (*out NULL). */
int jt_ledger_fold_open_list (const jt_ledger_fold_t *f, const char *run,
                              jt_fold_lease_t **out, size_t *n, jt_error_t *err);

/* History (jt_ledger_fold_keep_history; none otherwise): every lease once,
 * as its first Start made it, closed by the first End that matched it while
 * open (end, reason, seed), sorted by lease id, in a malloc'd *out (free
 * it). 0, or -1 with err on ENOMEM. */
int jt_ledger_fold_leases (const jt_ledger_fold_t *f, jt_fold_lease_t **out,
                           size_t *n, jt_error_t *err);

/* A reservation of the history: created by its first ReservationCreate;
 * activated/released are the times of the latest such events (-1: none);
 * closed is when the live fold closed it (the time of its
 * ReservationActivate or ReservationReleased while open, or of a newer
 * ReservationCreate of its run: -1 while open; history rows only). */
typedef struct jt_fold_reservation {
    const char *reservation, *run, *owner, *envelope;
    int64_t gpus;
    int64_t earliest;           /* earliest start */
    int64_t created, activated, released;
    int64_t closed;
    int64_t drawn;              /* open reservations: the time of its latest
                                 * Activation (the lottery or cuts drawn for
                                 * it), -1: none; checkpoints carry it */
} jt_fold_reservation_t;

/* Reservations of the history sorted by id, in a malloc'd *out (free it).
 * 0, or -1 with err on ENOMEM. */
int jt_ledger_fold_reservations (const jt_ledger_fold_t *f,
                                 jt_fold_reservation_t **out, size_t *n,
                                 jt_error_t *err);

/* Live reservations (kept by every fold, history or not): a run's open
 * reservation is its latest ReservationCreate not yet followed by a
 * ReservationActivate or ReservationReleased of that id. The run's open
 * reservation in O(1): 0 with *out filled (strings valid until the next
 * apply), or -1 with errno ENOENT when it has none. */
int jt_ledger_fold_open_resv (const jt_ledger_fold_t *f, const char *run,
                              jt_fold_reservation_t *out);

/* Every open reservation, sorted by id, in a malloc'd *out (free it).
 * 0, or -1 with err on ENOMEM. */
int jt_ledger_fold_open_resvs (const jt_ledger_fold_t *f,
                               jt_fold_reservation_t **out, size_t *n,
                               jt_error_t *err);

/* Use the caps of this BudgetLoaded event from now on and ignore the caps
 * of BudgetLoaded events applied later (an auditor's own budget files).
 * 0, or -1 on ENOMEM. */
int jt_ledger_fold_pin_caps (jt_ledger_fold_t *f, const jt_event_t *budget,
                             jt_error_t *err);

/* Read paths, check every payload (valid and canonical), fold it, and stop
 * at the first record problem (res->status) or the first violation of the
 * event pass (*v); then, when there is none, check the invariants of lease
 * time on every lease interval against the caps in force at each instant
 * (node overlap, concurrency, GPU-hours, window; docs/ledger-format.md,
 * section 5), *v receiving the one of smallest seq. caps (may be NULL)
 * pins the caps (jt_ledger_fold_pin_caps): the only epoch, in force at
 * every instant. Returns 0 when it ran, -1 on ENOMEM or a failing read
 * (err). *fold (if not NULL) receives the fold for the caller to query and
 * destroy. */
int jt_ledger_verify (const char *const *paths, size_t npaths, const char *head,
                      const jt_event_t *caps, jt_ledger_result_t *res,
                      jt_violation_t *v, jt_ledger_fold_t **fold, jt_error_t *err);

/* jt_ledger_verify on `threads` threads (jt_ledger_pre_t's threads: 0 for
 * jt_ledger_verify's two, 1 for the callback's thread alone). The hashes
 * and payloads of a large segment are checked and parsed on every thread;
 * the fold, its checkpoints and lease time stay on the caller's, in record
 * order. The results, *v's message included, are jt_ledger_verify's
 * whatever the number. */
int jt_ledger_verify_threads (const char *const *paths, size_t npaths, const char *head,
                              const jt_event_t *caps, unsigned threads,
                              jt_ledger_result_t *res, jt_violation_t *v,
                              jt_ledger_fold_t **fold, jt_error_t *err);

/* Who may pay a lease, by Cover's rules (jt_cover_source_of), as
 * jt_ledger_verify checks it (classes payer and role), for one Start at
 * the moment it is appended: load is the BudgetLoaded in force from its
 * time on (the latest by time, then seq, the caller has seen). The answer
 * is knowable only when load records budget content and start's `start`
 * is at or after load's time (an earlier start is under rules the caller
 * may not hold). Returns 1 when the Start breaks the rule (*kind
 * JT_VIOL_PAYER or JT_VIOL_ROLE, why: the reason, the lease not named), 0
 * when it keeps it or it is not knowable (*kind JT_VIOL_NONE), -1 with
 * errno ENOMEM. jobtree-ledgerd refuses such a Start. */
int jt_ledger_check_payer (const jt_event_t *load, const jt_event_t *start,
                           jt_violation_kind_t *kind, char *why, size_t len);

/* Rebuild live state (e.g. after a slurmctld restart): fold every event of
 * the ledger, counting violations instead of stopping (*nviolations, the
 * first in *first). Returns the fold, or NULL with err (res tells whether
 * the ledger itself read cleanly; a torn tail is accepted). */
jt_ledger_fold_t *jt_ledger_fold_replay (const char *const *paths, size_t npaths,
                                         jt_ledger_result_t *res,
                                         uint64_t *nviolations, jt_violation_t *first,
                                         jt_error_t *err);

/* jt_ledger_fold_replay of the segments in dir (jt_ledger_segments). */
jt_ledger_fold_t *jt_ledger_fold_replay_dir (const char *dir, jt_ledger_result_t *res,
                                             uint64_t *nviolations,
                                             jt_violation_t *first, jt_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* JOBTREE_LEDGER_H */
