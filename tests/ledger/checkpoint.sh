#!/bin/sh
# tests/ledger/checkpoint.sh - jobtree-ledgerd's checkpoints around a crash
# (issue 9): the daemon is killed (SIGKILL, as a power cut; its test hook
# JT_LEDGERD_TEST_CRASH) right before and right after it writes a
# checkpoint, restarted, sent every event again; each acknowledged event is
# in the ledger once, the restart starts from the checkpoint when it was
# written, and `jobtree verify` (every checkpoint against the full fold)
# and `jobtree verify --from-checkpoint` pass.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

ledgerd=$builddir/src/ledgerd/jobtree-ledgerd
command -v python3 > /dev/null || bail_out "python3 is needed"

# send SOCK FROM TO: Start events FROM..TO, one at a time, each waiting for
# its reply; prints how many were answered OK (stops at a closed socket).
send () {
    python3 - "$@" <<'EOF'
import socket, sys
sock, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sock)
f = s.makefile("rwb")
ok = 0
for i in range(a, b + 1):
    ev = ('{"v":1,"type":"Start","id":"s%d","time":%d,"lease":"L%03d","run":"c:%d",'
          '"group":"0","nodes":["n%03d"],"gpus":1,"role":"Active","envelope":"e1",'
          '"owner":"rai","start":%d}' % (i, 100 + i, i, i, i, 100 + i))
    try:
        f.write(ev.encode() + b"\n")
        f.flush()
        line = f.readline()
    except OSError:
        break
    if not line.startswith(b"OK "):
        break
    ok += 1
print(ok)
EOF
}

# wait_ready SOCK PID: until the socket accepts, or the daemon is gone.
wait_ready () {
    python3 - "$1" "$2" <<'EOF'
import os, socket, sys, time
for _ in range(4000):
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sys.argv[1])
        s.close()
        sys.exit(0)
    except OSError:
        pass
    try:
        os.kill(int(sys.argv[2]), 0)
    except OSError:
        sys.exit(1)
    time.sleep(0.005)
sys.exit(1)
EOF
}

start () {  # start DIR LOG [CRASH]
    JT_LEDGERD_TEST_CRASH=${3:-} "$ledgerd" -F -d "$1" -S "$1.sock" -u "$(id -u)" \
        --checkpoint-every 10 --checkpoint-interval 0 2>> "$2" &
    pid=$!
    wait_ready "$1.sock" "$pid" || { cat "$2" >&2; bail_out "the daemon did not start"; }
}

for point in none checkpoint-before checkpoint-after; do
    dir=$tmp/$point
    log=$tmp/$point.log
    mkdir -m 0700 "$dir"
    start "$dir" "$log" "$point"
    acked=$(send "$dir.sock" 1 25)
    if [ "$point" = none ]; then
        is "$acked" 25 "$point: 25 events acknowledged"
        kill -TERM "$pid"
        wait "$pid"
        is "$?" 0 "$point: a clean stop"
    else
        wait "$pid"
        is "$?" 137 "$point: killed at the checkpoint (SIGKILL)"
        is "$acked" 10 "$point: the 10 events before it were acknowledged"
    fi
    : > "$log.2"
    start "$dir" "$log.2"
    case $point in
        checkpoint-before) want='checkpoints: full fold of 10 records' ;;
        *) want='checkpoints: from the checkpoint at seq [0-9]+ \(after seq [0-9]+\)' ;;
    esac
    like "$(cat "$log.2")" "$want" "$point: the restart's fold: $want"
    is "$(send "$dir.sock" 1 30)" 30 "$point: every event sent again, all acknowledged"
    kill -TERM "$pid"
    wait "$pid"
    out=$("$jobtree" verify "$dir")
    rc=$?
    is "$rc" 0 "$point: verify (every checkpoint against the full fold) exits 0"
    like "$out" '30 leases started, 0 ended, 30 open' "$point: each event once"
    out=$("$jobtree" verify --from-checkpoint "$dir")
    is "$?" 0 "$point: verify --from-checkpoint exits 0"
    like "$out" 'from the checkpoint at seq [0-9]+' "$point: ... from the last checkpoint"
    [ "$rc" -eq 0 ] || diag "$(cat "$log" "$log.2")"
    if [ "$point" = none ]; then
        # report over a window after the checkpoint's closed leases: read
        # from it; the segments named one by one are read from genesis
        a=$("$jobtree" report usage -P -S 1970-01-01T00:01:50Z --now 1970-01-01T01:00:00Z "$dir")
        b=$("$jobtree" report usage -P -S 1970-01-01T00:01:50Z --now 1970-01-01T01:00:00Z "$dir"/ledger-*.jtl)
        is "$a" "$b" "$point: report usage from the checkpoint == from genesis"
        like "$a" 'rai\|e1\|' "$point: ... and it reports the leases"
    fi
done

# killed right after the checkpoint's write, whose last bytes then never
# reached the disk (a torn write): the checkpoint was never acknowledged,
# and the durable head is saved after the checkpoint's write (the kill comes
# first), so start-up cuts it as a torn tail
dir=$tmp/torn
mkdir -m 0700 "$dir"
start "$dir" "$tmp/torn.log" checkpoint-after
is "$(send "$dir.sock" 1 25)" 10 "torn: 10 acknowledged before the checkpoint"
wait "$pid"
seg=$(ls "$dir"/ledger-*.jtl | tail -n 1)
last=$(tail -n 1 "$seg" | wc -c)
truncate -s "-$((last / 2))" "$seg"
head_seq=$(cut -d: -f1 "$dir/ledgerd.head" 2> /dev/null || echo 0)
ok "$([ "${head_seq:-0}" -le 10 ]; echo $?)" "torn: the durable head ($head_seq) is before the checkpoint"
: > "$tmp/torn.log.2"
start "$dir" "$tmp/torn.log.2"
like "$(cat "$tmp/torn.log.2")" 'truncated a torn tail: .* \(seq 11\)' \
    "torn: the half-written checkpoint is cut at start-up"
like "$(cat "$tmp/torn.log.2")" 'checkpoints: full fold of 10 records' \
    "torn: the restart folds from genesis"
is "$(send "$dir.sock" 1 30)" 30 "torn: every event sent again, all acknowledged"
kill -TERM "$pid"
wait "$pid"
"$jobtree" verify -q "$dir"
is "$?" 0 "torn: verify exits 0"

# a checkpoint of three parts whose write was cut short after part 1 (a
# power cut keeps a prefix of the write): part 1 is a complete record, so
# start-up keeps it, and the daemon writes parts 2 and 3 again from its
# fold (nothing came after: the same state, the same stateSha256)
dir=$tmp/parts
mkdir -m 0700 "$dir"
JT_LEDGERD_TEST_CRASH=checkpoint-after "$ledgerd" -F -d "$dir" -S "$dir.sock" \
    -u "$(id -u)" --checkpoint-every 4000 --checkpoint-interval 0 2>> "$tmp/parts.log" &
pid=$!
wait_ready "$dir.sock" "$pid" || bail_out "the daemon did not start"
n=$(python3 - "$dir.sock" <<'EOF2'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
evs = b"".join((('{"v":1,"type":"Start","id":"p%d","time":%d,"lease":"P%05d","run":"c:%d",'
                 '"group":"0","nodes":["p%05d"],"gpus":1,"role":"Active","envelope":"e1",'
                 '"owner":"rai","start":%d}\n') % (i, 100 + i, i, i, i, 100 + i)).encode()
               for i in range(1, 4001))
s.sendall(evs)
f = s.makefile("rb")
print(sum(1 for _ in range(4000) if f.readline().startswith(b"OK ")))
EOF2
)
is "$n" 4000 "parts: 4000 events acknowledged"
wait "$pid"
seg=$(ls "$dir"/ledger-*.jtl | tail -n 1)
is "$(grep -c '"type":"Checkpoint","id":"checkpoint:4000:' "$seg")" 3 \
    "parts: a checkpoint of 3 parts was written"
keep=$(($(wc -c < "$seg") - $(tail -n 2 "$seg" | wc -c)))
truncate -s "$keep" "$seg"
: > "$tmp/parts.log.2"
start "$dir" "$tmp/parts.log.2"
like "$(cat "$tmp/parts.log.2")" 'completed the checkpoint at seq 4001 \(its write was cut short after part 1 of 3\): parts 2\.\.3 written at seq 4002' \
    "parts: start-up completes the checkpoint"
kill -TERM "$pid"
wait "$pid"
"$jobtree" verify -q "$dir"
is "$?" 0 "parts: verify exits 0 (the checkpoint is whole and right)"
like "$("$jobtree" verify --from-checkpoint "$dir")" 'from the checkpoint at seq 4001' \
    "parts: and it is the one a restart starts from"

# a checkpoint is the daemon's: a client may not send one
dir=$tmp/client
mkdir -m 0700 "$dir"
start "$dir" "$tmp/client.log"
reply=$(python3 - "$dir.sock" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
f = s.makefile("rwb")
f.write(b'{"v":1,"type":"Checkpoint","id":"checkpoint:1:1","time":1,"upTo":1,"part":1,'
        b'"parts":1,"stateSha256":"' + b"0" * 64 + b'","state":{}}\n')
f.flush()
print(f.readline().decode().strip())
EOF
)
like "$reply" '^ERR INVALID type: Checkpoint records are written by jobtree-ledgerd only' \
    "a client's Checkpoint is refused"
kill -TERM "$pid"
wait "$pid"

# a forged checkpoint (state changed, chain recomputed from the document):
# verify fails with its own exit status
printf '%s\n' \
    '{"v":1,"type":"Start","id":"s1","time":101,"lease":"L1","run":"c:1","group":"0","nodes":["n1"],"gpus":2,"role":"Active","envelope":"e1","owner":"rai","start":101}' \
    > "$tmp/f.jsonl"
mk_ledger "$tmp/f.jsonl" "$tmp/f.jtl"
state='{"counters":{"events":1,"starts":1,"ends":0,"lotteries":0,"lastTime":101,"closedUntil":0},"envelopes":[{"name":"e1","capped":false,"concurrency":0,"maxGpuHours":0.0,"windowStart":0,"windowEnd":0,"active":2,"borrowed":0,"peak":2,"closedGpuS":3600,"closedBorrowedGpuS":0,"openStartSum":202,"openBorrowedStartSum":0}],"budgets":{"loads":0,"loadsNoContent":0,"firstNoContent":0,"lastSeq":0,"lastSha256":"","files":[]},"leases":[{"lease":"L1","run":"c:1","group":"0","nodes":["n1"],"gpus":2,"role":"Active","envelope":"e1","owner":"rai","start":101,"seq":1}],"reservations":[]}'
sha=$(printf '%s' "$state" | sha256sum | cut -c1-64)
printf '%s\n' "$(cat "$tmp/f.jsonl")" \
    "{\"v\":1,\"type\":\"Checkpoint\",\"id\":\"checkpoint:1:1\",\"time\":200,\"upTo\":1,\"part\":1,\"parts\":1,\"stateSha256\":\"$sha\",\"state\":$state}" \
    > "$tmp/g.jsonl"
mk_ledger "$tmp/g.jsonl" "$tmp/g.jtl"
out=$("$jobtree" verify "$tmp/g.jtl")
is "$?" 21 "a forged checkpoint (3600 closed GPU-seconds that never were): exit 21"
like "$out" '^FAIL checkpoint-mismatch at seq 2: checkpoint after seq 1 is not the fold' \
    "... named checkpoint-mismatch at its seq"
mkdir "$tmp/g" && cp "$tmp/g.jtl" "$tmp/g/ledger-00000000000000000001.jtl"
out=$("$jobtree" verify --from-checkpoint "$tmp/g")
is "$?" 0 "--from-checkpoint trusts it (the documented difference)"
fixed=$(printf '%s' "$state" | sed 's/"closedGpuS":3600/"closedGpuS":0/')
sha=$(printf '%s' "$fixed" | sha256sum | cut -c1-64)
printf '%s\n' "$(cat "$tmp/f.jsonl")" \
    "{\"v\":1,\"type\":\"Checkpoint\",\"id\":\"checkpoint:1:1\",\"time\":200,\"upTo\":1,\"part\":1,\"parts\":1,\"stateSha256\":\"$sha\",\"state\":$fixed}" \
    > "$tmp/h.jsonl"
mk_ledger "$tmp/h.jsonl" "$tmp/h.jtl"
"$jobtree" verify -q "$tmp/h.jtl"
is "$?" 0 "the true state, written from the document alone, verifies"

done_testing
