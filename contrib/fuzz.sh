#!/bin/bash
# fuzz.sh - build and run the libFuzzer targets (tests/fuzz/, docs/fuzzing.md).
#
#   contrib/fuzz.sh --smoke [SECS]   every target: its regression inputs,
#                                    then SECS (default 10) over the seeds;
#                                    fails on any crash (CI runs this)
#   contrib/fuzz.sh TARGET MINUTES   one target for MINUTES (e.g. fuzz_plan 10)
#   contrib/fuzz.sh --all MINUTES    every target for MINUTES each
#   contrib/fuzz.sh --list           the targets
#
# Builds in build-fuzz/ (CC=clang --enable-sanitizers --enable-fuzzing).
# Corpora grow in build-fuzz/corpus/TARGET/ (seeded from tests/data and
# etc/); crashes are written to build-fuzz/crashes/TARGET/. A crash is a
# defect: fix it in the parser, add a unit test, and keep the input in
# tests/fuzz/regress/TARGET/ so every smoke run replays it.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bdir=${JT_FUZZ_BUILD:-$top/build-fuzz}
targets=(fuzz_budget fuzz_run fuzz_snapshot fuzz_options fuzz_config fuzz_text
         fuzz_event fuzz_ledger fuzz_record fuzz_plan fuzz_nodemap fuzz_admit
         fuzz_constraint fuzz_sim fuzz_checkpoint fuzz_topoconf fuzz_lastgood)

usage () { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }

build () {
    cd "$top" || exit 1
    if [ ! -x configure ] || [ configure.ac -nt configure ]; then
        autoreconf -fi >/dev/null 2>&1 || { echo "fuzz: autoreconf failed" >&2; exit 1; }
    fi
    command -v clang >/dev/null || { echo "fuzz: clang not found (contrib/install-deps.sh)" >&2; exit 1; }
    mkdir -p "$bdir"
    if [ ! -f "$bdir/Makefile" ]; then
        (cd "$bdir" && "$top/configure" CC=clang --enable-sanitizers --enable-fuzzing \
            >configure.out 2>&1) || { tail -n 20 "$bdir/configure.out" >&2; exit 1; }
    fi
    make -C "$bdir" -j"$(nproc)" fuzz >"$bdir/make.out" 2>&1 \
        || { grep -E 'error' "$bdir/make.out" | head -n 20 >&2; exit 1; }
}

# seed CORPUSDIR FILES...: copy existing files in (names kept unique)
seed () {
    local dir=$1 f; shift
    mkdir -p "$dir"
    for f in "$@"; do
        [ -f "$f" ] && cp "$f" "$dir/seed-$(echo "$f" | tr '/' '_')"
    done
}
# seed_text CORPUSDIR NAME TEXT
seed_text () { mkdir -p "$1"; printf '%s' "$3" > "$1/seed-$2"; }

# ledger_seeds CORPUSDIR: event sequences for fuzz_ledger (one payload a
# line; the target chains them into a segment): a run's reservation
# created, created again under another id (the newer replaces the open
# one), released under the old id, activated; a resend of a Create; two
# runs' reservations interleaved with leases and a node failure; Borrowed
# leases under recorded budget content (Cover's rules in verify).
ledger_seeds () {
    local dir=$1 ev=$top/tests/data/ledger/events.jsonl bl content sha
    mkdir -p "$dir"
    bl=$(sed -n 1p "$ev")
    cr () { printf '{"v":1,"type":"ReservationCreate","id":"%s","time":%s,"reservation":"%s","run":"%s","envelope":"west-h100","owner":"rai","nodes":["a01","a02"],"gpus":16,"start":1767240000}\n' "$@"; }
    rel () { printf '{"v":1,"type":"Reservation%s","id":"%s","time":%s,"reservation":"%s","run":"%s"}\n' "$@"; }
    { echo "$bl"
      cr r1 1767232800 c1:103:resv:1767232800 c1:103
      cr r2 1767236400 c1:103:resv:1767236400 c1:103
      rel Released r3 1767237000 c1:103:resv:1767232800 c1:103
      rel Activate r4 1767240000 c1:103:resv:1767236400 c1:103
      sed -n 12p "$ev"; } > "$dir/seed-resv-replaced"
    { echo "$bl"
      cr r1 1767232800 c1:103:resv:1767232800 c1:103
      cr r2 1767232900 c1:103:resv:1767232800 c1:103
      cr r3 1767233000 c1:104:resv:1767233000 c1:104
      sed -n 2,3p "$ev"
      cr r4 1767234000 c1:104:resv:1767234000 c1:104
      rel Released r5 1767235000 c1:104:resv:1767234000 c1:104
      cr r6 1767236000 c1:104:resv:1767236000 c1:104
      sed -n 6,7p "$ev"
      echo '{"v":1,"type":"NodeFail","id":"r7","time":1767236400,"nodes":["a01"],"run":"c1:103"}'
      rel Activate r8 1767240000 c1:103:resv:1767232800 c1:103
      cr r9 1767240000 c1:104:resv:1767240000 c1:104
      rel Released r10 1767241000 c1:104:resv:1767240000 c1:104; } > "$dir/seed-resv-runs"
    content='[{"owner":"rai","envelopes":[{"name":"west-h100","flavor":"h100","selector":{"region":"west"},"start":"2026-01-01T00:00:00Z","end":"2027-01-01T00:00:00Z","concurrency":32,"maxGPUHours":1000.0,"lending":{"allow":true,"to":["vision"],"maxConcurrency":8}}],"aggregateCaps":[{"name":"all-h100","flavor":"h100","envelopes":["west-h100"],"maxConcurrency":32}]},{"owner":"vision","envelopes":[{"name":"vis-a100","flavor":"a100","selector":{},"start":"2026-01-01T00:00:00Z","end":"2027-01-01T00:00:00Z","concurrency":16,"maxGPUHours":100.0}]}]'
    sha=$(printf '%s' "$content" | sha256sum | cut -c1-64)
    { echo "${bl%\}},\"budgetsSha256\":\"$sha\",\"budgets\":$content}"
      sed -n 2,12p "$ev"; } > "$dir/seed-budgets-borrowed"
}

seeds () {
    local c=$bdir/corpus t d=$top/tests/data
    seed "$c/fuzz_budget" "$top"/etc/budgets/*.json "$d"/plan/budgets/*.json \
        "$d"/inputs/*/*.json "$top"/etc/slurm/test-cluster/budgets/*.json
    seed "$c/fuzz_run" "$top"/etc/runs/*.json "$d"/plan/runs/*.json
    seed "$c/fuzz_snapshot" "$top"/etc/snapshot.json "$d"/plan/snapshot*.json \
        "$d"/inputs/snap-*.json
    seed "$c/fuzz_config" "$top"/etc/slurm/jobtree.conf \
        "$top"/etc/slurm/test-cluster/jobtree.conf.in
    seed "$c/fuzz_ledger" "$d"/ledger/*.jtl "$d"/ledger/events.jsonl
    ledger_seeds "$c/fuzz_ledger"
    seed "$c/fuzz_event" "$d"/ledger/events.jsonl
    seed_text "$c/fuzz_config" score 'ScoreProfile=ckpt:checkpoint=0.6,wait=0.4
ScoreDefaultProfile=hpc-batch
ScorePartitionProfile=gpu:ml-training,p2:ckpt
ScoreReferenceWait=1h
ScoreScale=10000
ScoreDataReadiness=0.5
ScoreEnergyPrice=0.2
'
    seed_text "$c/fuzz_event" start-conformance '{"v":1,"type":"Start","id":"e1","time":1,"lease":"l1","run":"c1:1","group":"0","nodes":["a1"],"gpus":8,"role":"Active","envelope":"e","owner":"rai","start":1,"conformance":"3f9a0c2e1b7d4a65"}'
    seed_text "$c/fuzz_record" rec-conformance 'jobtree/1 {"run":{"owner":"rai","resources":{"gpuType":"h100","totalGPUs":16},"locality":{"groupGPUs":16,"allowCrossGroupSpread":true,"conformance":"strict"}},"funding":[],"fundedGPUs":16,"borrowedGPUs":0,"reason":"OK","bound":{"time":"2026-03-01T12:00:00Z","leases":[{"group":0,"envelope":"west-h100","role":"Active","gpus":16,"nodes":["a01","a02"],"conformance":"x"}]}}'
    seed_text "$c/fuzz_event" activation '{"v":1,"type":"Activation","id":"c1:104:resv:1767242000:activation:1767243600","time":1767243600,"reservation":"c1:104:resv:1767242000","run":"c1:104","scope":"envelope:rai-h100,west/A","seed":"0123456789abcdef","needs":[{"pool":"envelope:rai-h100","deficit":8},{"pool":"west/A","deficit":16}],"holders":[{"run":"c1:103","owner":"bob","group":0,"role":"Borrowed","gpus":16,"pool":"west/A","runGPUs":16,"minGPUs":16},{"run":"c1:103","owner":"bob","group":0,"role":"Borrowed","gpus":16,"pool":"envelope:rai-h100","runGPUs":16,"minGPUs":16}],"cuts":[{"run":"c1:103","group":0,"cut":"RandomPreempt"}],"resolved":true}'
    seed_text "$c/fuzz_checkpoint" one '{"v":1,"type":"Checkpoint","id":"checkpoint:1:1","time":200,"upTo":1,"part":1,"parts":1,"stateSha256":"c6628279d1425b0dcebd92b96623425da81ff2134e1b130139030a75b6045c52","state":{"counters":{"events":1,"starts":1,"ends":0,"lotteries":0,"lastTime":101,"closedUntil":0},"envelopes":[{"name":"e1","capped":false,"concurrency":0,"maxGpuHours":0.0,"windowStart":0,"windowEnd":0,"active":2,"borrowed":0,"peak":2,"closedGpuS":0,"closedBorrowedGpuS":0,"openStartSum":202,"openBorrowedStartSum":0}],"budgets":{"loads":0,"loadsNoContent":0,"firstNoContent":0,"lastSeq":0,"lastSha256":"","files":[]},"leases":[{"lease":"L1","run":"c:1","group":"0","nodes":["n1"],"gpus":2,"role":"Active","envelope":"e1","owner":"rai","start":101,"seq":1}],"reservations":[]}}'
    seed_text "$c/fuzz_checkpoint" usage '{"v":1,"type":"Checkpoint","id":"checkpoint:1:1","time":200,"upTo":1,"part":1,"parts":1,"stateSha256":"3dd62571c90fc8c3f3b975a56e2649ed634001f8bb85c4dab1ac9d7efd4baed6","state":{"counters":{"events":1,"starts":1,"ends":0,"lotteries":0,"lastTime":101,"closedUntil":0},"envelopes":[{"name":"e1","capped":false,"concurrency":0,"maxGpuHours":0.0,"windowStart":0,"windowEnd":0,"active":2,"borrowed":0,"peak":2,"closedGpuS":0,"closedBorrowedGpuS":0,"openStartSum":202,"openBorrowedStartSum":0}],"budgets":{"loads":0,"loadsNoContent":0,"firstNoContent":0,"lastSeq":0,"lastSha256":"","files":[]},"usage":{"resvClosedUntil":0,"firstStart":101,"groups":[{"owner":"rai","envelope":"e1","leases":0,"gpuS":0,"borrowedGpuS":0,"last":101,"open":2,"peak":0,"ordered":true}]},"leases":[{"lease":"L1","run":"c:1","group":"0","nodes":["n1"],"gpus":2,"role":"Active","envelope":"e1","owner":"rai","start":101,"seq":1}],"reservations":[]}}'
    seed_text "$c/fuzz_options" full $'JOBTREE_GROUP_GPUS=32\nJOBTREE_CROSS_GROUP_SPREAD=no\nJOBTREE_MALLEABLE=64:96:32\nJOBTREE_SPARES=1\nJOBTREE_CHECKPOINT=30m\nJOBTREE_BORROW=32\nJOBTREE_SPONSORS=vision,speech'
    seed_text "$c/fuzz_options" spank $'SPANK_JOBTREE_GROUP_GPUS=16\nSPANK_JOBTREE_BORROW=(null)'
    for t in "2026-03-01T12:00:00Z" "30m" "1-00:00:00" "90" "2h30m" \
             "fabric.domain=A,region=west,rack=r1,plain" "gres:gpu:h100:8" \
             "gpu:h100:8(S:0-1),nic:1" "gres/gpu:h100=8;gres:gpu:h100:4"; do
        seed_text "$c/fuzz_text" "$(echo "$t" | md5sum | cut -c1-8)" "$t"
    done
    seed_text "$c/fuzz_sim" jobtree $'id,submit_s,duration_s,time_limit_s,gpus,nodes,owner,flavor,options\nj1,0,100,100,8,,a,,\nj2,1,100,0,16,2,a,h100,--group-gpus=16 --borrow\np,2,30,60,1,,a,,\n'
    seed_text "$c/fuzz_sim" philly $'job_id,submit_s,duration_s,gpus,nodes,team,gpu_type\nphilly-r31567,0,2240194,8,,vc_7f04ca,\nphilly-r54650,235696,3256045,1,,vc_6214e9,\n'
    seed_text "$c/fuzz_constraint" one 'gpu.mem GE 80'
    seed_text "$c/fuzz_constraint" many 'rack.row LT 4;taint:maint NOT_EXISTS;tpu-name EQ v4-a;gpu.mem NE -0.5;nvlink EXISTS'
    seed_text "$c/fuzz_topoconf" tree $'# leaves\nSwitchName=domA Nodes=gpu[01-04] LinkSpeed=1\nSwitchName=top Switches=domA,domB\nswitchname=domB \\\n  nodes=gpu[05-08]\n'
    seed_text "$c/fuzz_topoconf" block $'BlockName=blkA Nodes=gpu[01-04]\nBlockName=blkB Nodes=gpu[05-08]\nBlockSizes=4,8\n'
    seed_text "$c/fuzz_topoconf" tree2 $'SwitchName=domA Nodes=gpu[01-04]\nSwitchName=domB Nodes=gpu[05-08]\nSwitchName=domC Nodes=gpu[09-12]\nSwitchName=domD Nodes=gpu[13-16]\nSwitchName=blk1 Switches=domA,domB\nSwitchName=blk2 Switches=domC,domD\nSwitchName=spine Switches=blk1,blk2\n'
    seed_text "$c/fuzz_topoconf" treebad $'SwitchName=a Nodes=n1\nSwitchName=x Switches=a,y\nSwitchName=y Switches=x\nSwitchName=z Switches=zz,z\n'
    seed_text "$c/fuzz_topoconf" block5 $'BlockName=b1 Nodes=n1\nBlockName=b2 Nodes=n2\nBlockName=b3 Nodes=n3\nBlockName=b4 Nodes=n4\nBlockName=b5 Nodes=n5\nBlockSizes=1,2,4,8\n'
    seed_text "$c/fuzz_topoconf" blockdefault $'BlockName=b1 Nodes=n1,n2,n3\nBlockName=b2\nBlockName=b3 Nodes=n7\n'
    seed_text "$c/fuzz_topoconf" yaml $'- topology: t\n  tree:\n    switches:\n      - switch: top\n        children: s[1-2]\n      - {switch: s1, nodes: "n[1-2]"}\n      - {switch: s2, nodes: [n3, n4]}\n- topology: b\n  cluster_default: true\n  block:\n    block_sizes: [4, 8]\n    blocks:\n      - {block: b1, nodes: "n[1-4]"}\n      - block: b2\n        nodes: n[5-8]\n'
    seed_text "$c/fuzz_topoconf" blockbad $'BlockName=b1 Nodes=n1\nBlockSizes=4,12,0,18446744073709551620\nBlockSizes=1\n'
    seed_text "$c/fuzz_lastgood" set '{"format":"jobtree-last-good/1","conf":{"path":"/etc/slurm/jobtree.conf","text":"UnfundedPolicy=passthrough\n"},"budgets":[{"path":"/b/rai.json","text":"{ \"owner\": \"rai\", \"envelopes\": [] }","sha256":"da0dc9edee8e8862fd2b505935345909ce98e88a91b2541152f682843995be4c"}]}'
    seed_text "$c/fuzz_admit" run $'@account=rai\n@node=gres:gpu:h100:8\n@nodes=4\n@time=10\nJOBTREE_GROUP_GPUS=16\nJOBTREE_MALLEABLE=16:64:16\nJOBTREE_SPARES=0\nJOBTREE_CHECKPOINT=30m\nJOBTREE_CROSS_GROUP_SPREAD=no'
    seed_text "$c/fuzz_admit" borrow $'@account=vision\n@job=gres:gpu:h100:16\nSPANK_JOBTREE_GROUP_GPUS=8\nSPANK_JOBTREE_SPONSORS=rai\nSPANK_JOBTREE_BORROW=16'
    seed_text "$c/fuzz_admit" socket $'@socket=gres/gpu:h100=2\n@sockets=2\n@nodes=2\nJOBTREE_SPARES=1\n@passthrough'
    seed_text "$c/fuzz_admit" plain $'@plain\n@node=gpu:8\n@nodes=200000\n@account=nobody'
    seed_text "$c/fuzz_admit" refuse $'@account=rai\n@node=gres:gpu:h100:4\n@nodes=3\nJOBTREE_GROUP_GPUS=12\nJOBTREE_MALLEABLE=32:64'
    seed_text "$c/fuzz_record" rec 'jobtree/1 {"run":{"owner":"rai","resources":{"gpuType":"h100","totalGPUs":16},"locality":{"groupGPUs":16}},"funding":[{"envelope":"west-h100","owner":"rai","source":"owner","firstGroup":0,"groups":1,"gpus":16}],"fundedGPUs":16,"borrowedGPUs":0,"reason":"OK","bound":{"time":"2026-03-01T12:00:00Z","leases":[{"group":0,"envelope":"west-h100","role":"Active","gpus":16,"nodes":["a01","a02"],"spares":[]}]}}'
    # nodes as the plugin and `jobtree snapshot` read them (fuzz_nodemap.c):
    # domain key, then name, features, GRES, GRES in use, allocated, flags, leaf
    seed_text "$c/fuzz_nodemap" cluster $'\na01\nfabric.domain=A,region=west,cluster=c1,rack=r1,ib\ngpu:h100:8(S:0-1)\ngpu:h100:2(IDX:0-1)\n0\n0\n\na02\nregion=west,cluster=c1\ngpu:h100:8\n-\n3\n16\ndomA\nb01\nregion=east\ngpu:8,nic:1\n-\n0\n256\ndomB\n\nfabric.domain=A\ngpu:h100:8\n-\n0\n0\n'
    seed_text "$c/fuzz_nodemap" rack $'rack\nc01\nrack=r1,fabric.domain=A\ngpu:a100:4,gpu:h100:4\ngpu:a100:1\n0\n1\n\nc02\nrack=r2\ngpu:h100:1048576\n-\n18446744073709551615\n8\nsw1'
    # one budget file that stands alone (no parent), the plan tests' snapshot
    local bud='{ "owner": "rai", "envelopes": [ { "name": "west-h100", "flavor": "h100", "selector": { "region": "west" }, "start": "2026-01-01T00:00:00Z", "end": "2027-01-01T00:00:00Z", "concurrency": 128, "maxGPUHours": 500000, "lending": { "allow": true, "to": ["vision"], "maxGPUs": 32 } } ], "aggregateCaps": [] }'
    mkdir -p "$c/fuzz_plan"
    for r in "$d"/plan/runs/*.json; do
        { printf '%s' "$bud"; printf '\n----\n'; cat "$d/plan/snapshot.json"
          printf '\n----\n'; cat "$r"; } > "$c/fuzz_plan/seed-$(basename "$r")"
    done
    for t in "${targets[@]}"; do mkdir -p "$c/$t" "$bdir/crashes/$t"; done
}

# run TARGET SECS: regressions once, then fuzz SECS seconds.
run () {
    local t=$1 secs=$2 exe=$bdir/tests/fuzz/$1 reg=$top/tests/fuzz/regress/$1 out
    out=$bdir/crashes/$t/log
    local opts=(-max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
                "-artifact_prefix=$bdir/crashes/$t/")
    if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
        if ! "$exe" "${opts[@]}" "$reg"/* >"$out.regress" 2>&1; then
            echo "fuzz: $t: a regression input fails again:"; tail -n 30 "$out.regress"
            return 1
        fi
    fi
    if ! "$exe" "${opts[@]}" -max_total_time="$secs" "$bdir/corpus/$t" >"$out" 2>&1; then
        echo "fuzz: $t: CRASH (input in $bdir/crashes/$t/):"; grep -A25 -m1 'ERROR:\|==ERROR\|deadly signal\|timeout' "$out" | head -n 40
        # the input itself when it is short, so that a CI log alone
        # reproduces it (base64 -d > f; build-fuzz/tests/fuzz/TARGET f)
        local a
        for a in "$bdir/crashes/$t"/{crash,leak,timeout,oom,slow-unit}-*; do
            [ -f "$a" ] || continue
            if [ "$(stat -c %s "$a")" -le 3072 ]; then
                echo "fuzz: $t: $(basename "$a") in base64:"; base64 -w 0 "$a"; echo
            else
                echo "fuzz: $t: $(basename "$a"): $(stat -c %s "$a") bytes"
            fi
        done
        return 1
    fi
    printf 'fuzz: %-14s ok: %s runs, %s, corpus %s\n' "$t" \
        "$(sed -n 's/^stat::number_of_executed_units: *//p' "$out")" \
        "$(grep -o 'cov: [0-9]*' "$out" | tail -n 1)" "$(ls "$bdir/corpus/$t" | wc -l)"
}

case "${1:-}" in
--list) printf '%s\n' "${targets[@]}"; exit 0 ;;
-h|--help) usage 0 ;;
--smoke) secs=${2:-10}; sel=("${targets[@]}") ;;
--all) secs=$(( ${2:?--all MINUTES} * 60 )); sel=("${targets[@]}") ;;
fuzz_*) secs=$(( ${2:?TARGET MINUTES} * 60 )); sel=("$1") ;;
*) usage ;;
esac
case "$secs" in ''|*[!0-9]*) echo "fuzz: time must be a whole number" >&2; exit 2 ;; esac
build
seeds
bad=0
for t in "${sel[@]}"; do run "$t" "$secs" || bad=1; done
[ $bad -eq 0 ] && echo "fuzz: all ${#sel[@]} targets clean" || echo "fuzz: FAILED"
exit $bad
