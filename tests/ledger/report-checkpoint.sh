#!/bin/sh
# tests/ledger/report-checkpoint.sh - `jobtree report` from checkpoints
# (issue 35): on generated ledgers with several checkpoints (tests/ledger/
# mkckpt.c, written as jobtree-ledgerd writes them), every report over
# random windows is byte for byte the report of a full read
# (--full-replay); most of them read from a checkpoint (-v says so).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

mkckpt=$builddir/tests/ledger/mkckpt
[ -x "$mkckpt" ] || bail_out "no $mkckpt"

# compare DIR SEED FIRST LAST: random windows, every report; prints
# "same differ fromckpt total"
compare () {
    dir=$1 seed=$2 first=$3 last=$4
    same=0 differ=0 from=0 total=0
    span=$((last - first + 1))
    i=0
    while [ $i -lt 8 ]; do
        # a deterministic stream of numbers from the seed (no $RANDOM in sh)
        r=$(( (seed * 7919 + i * 104729) % 1000003 ))
        s=$(( first + (r * 31) % span ))
        e=$(( s + (r * 17) % span ))
        now=$(( last + (r % 5000) ))
        case $((i % 4)) in
        0) win="" ;;                        # all time
        1) win="-S $s" ;;                   # from s on
        2) win="-S $s -E $e" ;;             # a window
        3) win="-S $((last - 86400 < first ? first : last - 86400))"  # the last day
           now=$(( s + (r % 3000) )) ;;     # --now inside the ledger
        esac
        for kind in usage leases runs reservations; do
            a=$("$jobtree" report $kind -P -n --now $now $win -v "$dir" 2> "$tmp/err") ||
                bail_out "report $kind $win: $(cat "$tmp/err")"
            b=$("$jobtree" report $kind -P -n --now $now $win --full-replay "$dir" 2>&1) ||
                bail_out "report $kind $win --full-replay: $b"
            total=$((total + 1))
            grep -q "from the checkpoint" "$tmp/err" && from=$((from + 1))
            if [ "$a" = "$b" ]; then
                same=$((same + 1))
            else
                differ=$((differ + 1))
                { echo "seed $seed: report $kind --now $now $win: $(cat "$tmp/err")"
                  printf '%s\n' "$a" > "$tmp/a"
                  printf '%s\n' "$b" > "$tmp/b"
                  diff "$tmp/a" "$tmp/b" | head -5; } >> "$tmp/diag"
            fi
        done
        i=$((i + 1))
    done
    echo "$same $differ $from $total"
}

for spec in "11 3000 250 8192" "12 2500 180 4096" "-u 13 2500 200 8192" "14 1500 0 8192"; do
    set -- $spec
    unordered=
    [ "$1" = -u ] && { unordered=-u; shift; }
    seed=$1 every=$3
    dir=$tmp/l$seed
    out=$("$mkckpt" $unordered "$dir" $1 $2 $3 $4) || bail_out "mkckpt $spec: $out"
    set -- $out
    first=$1 last=$2 nckpt=$3
    if [ "$every" = 0 ]; then # no checkpoint: reports read the whole ledger
        is "$nckpt" 0 "seed $seed: a ledger without checkpoints"
    else
        [ "$nckpt" -ge 5 ]
        ok $? "seed $seed: $nckpt checkpoints"
    fi
    : > "$tmp/diag"
    set -- $(compare "$dir" "$seed" "$first" "$last")
    [ -s "$tmp/diag" ] && diag "$(cat "$tmp/diag")"
    is "$2" 0 "seed $seed (${unordered:-in time order}): $1 of $4 reports the same as the full read's"
    if [ "$nckpt" -gt 0 ]; then
        [ "$3" -gt $(( $4 / 3 )) ]
        ok $? "seed $seed: $3 of $4 reports read from a checkpoint"
    fi
done

# A damaged checkpoint (its state is not its stateSha256; the chain is
# intact, written from the document alone) is not read silently: a
# warning on stderr, and the report of the whole ledger.
state='{"counters":{"events":1,"starts":1,"ends":0,"lotteries":0,"lastTime":101,"closedUntil":0},"envelopes":[{"name":"e1","capped":false,"concurrency":0,"maxGpuHours":0.0,"windowStart":0,"windowEnd":0,"active":2,"borrowed":0,"peak":2,"closedGpuS":0,"closedBorrowedGpuS":0,"openStartSum":202,"openBorrowedStartSum":0}],"budgets":{"loads":0,"loadsNoContent":0,"firstNoContent":0,"lastSeq":0,"lastSha256":"","files":[]},"usage":{"resvClosedUntil":0,"firstStart":101,"groups":[{"owner":"rai","envelope":"e1","leases":0,"gpuS":0,"borrowedGpuS":0,"last":101,"open":2,"peak":0,"ordered":true}]},"leases":[{"lease":"L1","run":"c:1","group":"0","nodes":["n1"],"gpus":2,"role":"Active","envelope":"e1","owner":"rai","start":101,"seq":1}],"reservations":[]}'
start='{"v":1,"type":"Start","id":"s1","time":101,"lease":"L1","run":"c:1","group":"0","nodes":["n1"],"gpus":2,"role":"Active","envelope":"e1","owner":"rai","start":101}'
end='{"v":1,"type":"End","id":"e1","time":200,"lease":"L1","run":"c:1","group":"0","nodes":["n1"],"gpus":2,"role":"Active","envelope":"e1","owner":"rai","start":101,"end":200,"reason":"End"}'
good=$(printf '%s' "$state" | sha256sum | cut -c1-64)
for sha in $good aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; do
    printf '%s\n' "$start" \
        "{\"v\":1,\"type\":\"Checkpoint\",\"id\":\"checkpoint:1:1\",\"time\":150,\"upTo\":1,\"part\":1,\"parts\":1,\"stateSha256\":\"$sha\",\"state\":$state}" \
        "$end" > "$tmp/d.jsonl"
    rm -rf "$tmp/d" && mkdir "$tmp/d"
    mk_ledger "$tmp/d.jsonl" "$tmp/d/ledger-00000000000000000001.jtl"
    for win in "" "-S 150"; do
        a=$("$jobtree" report usage -P -n --now 300 $win -v "$tmp/d" 2> "$tmp/err")
        b=$("$jobtree" report usage -P -n --now 300 $win --full-replay "$tmp/d" 2>&1)
        if [ "$sha" = "$good" ]; then
            is "$a|$(grep -c 'from the checkpoint' "$tmp/err")" "$b|1" \
               "a checkpoint written from the document serves 'usage ${win:-(all time)}'"
        else
            is "$a" "$b" "a damaged checkpoint: usage ${win:-(all time)} is the full read's"
            like "$(cat "$tmp/err")" "warning: checkpoint at seq 2 refused: .*stateSha256" \
                 "... and says so on stderr"
        fi
    done
done
done_testing
