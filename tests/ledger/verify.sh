#!/bin/bash
# tests/ledger/verify.sh - `jobtree verify` on ledgers written by an
# independent shell implementation of docs/ledger-format.md: OK output, one
# exit status per class of problem, each at the right sequence number.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

# The data ledger's lease c1:103:0 ends RandomPreempt: the lottery of an
# Activation (c1:104's reservation, at 05:00, in domain west/A) took its run.
# Its seed is the first 16 hex digits of SHA-256(scope|reservation|time).
resv=c1:104:resv:1767242000
seed=$(printf '%s' "west/A|$resv|2026-01-01T05:00:00Z" | sha256sum | cut -c1-16)
act='{"v":1,"type":"Activation","id":"'$resv':activation:1767243600","time":1767243600,'
act=$act'"reservation":"'$resv'","run":"c1:104","scope":"west/A","seed":"'$seed'",'
act=$act'"needs":[{"pool":"west/A","deficit":16}],"holders":[{"run":"c1:103",'
act=$act'"owner":"rai","group":0,"role":"Active","gpus":16,"pool":"west/A",'
act=$act'"runGPUs":16,"minGPUs":16}],"cuts":[{"run":"c1:103","group":0,'
act=$act'"cut":"RandomPreempt"}],"resolved":true}'
ev="$tmp/events.jsonl"
sed -e "13a\\$act" -e '14s/"seed":"[0-9a-f]*"/"seed":"'$seed'"/' "$data/events.jsonl" > "$ev"
mk_ledger "$ev" "$tmp/good.jtl"
out=$("$jobtree" verify "$tmp/good.jtl"); rc=$?
is "$rc" 0 "a good ledger verifies"
is "$(echo "$out" | head -1)" \
   "OK 15 records in 1 segments; 5 leases started, 4 ended, 1 open; 2 envelopes (2 with caps checked)" \
   "OK line with counts"
is "$(echo "$out" | sed -n 2p)" "lotteries 1 recomputed, as recorded" \
   "the Activation's lottery is recomputed"
head=$(echo "$out" | sed -n 's/^head //p')
is "$head" "15:$(tail -1 "$tmp/good.jtl" | awk '{print $NF}')" "head anchor is the last hash"

# segments in a directory, chain continuing across them
mkdir "$tmp/dir"
head -6 "$tmp/good.jtl" > "$tmp/dir/ledger-00000000000000000001.jtl"
tail -n +7 "$tmp/good.jtl" > "$tmp/dir/ledger-00000000000000000007.jtl"
out=$("$jobtree" verify "$tmp/dir" | head -1); rc=$?
is "$out" "OK 15 records in 2 segments; 5 leases started, 4 ended, 1 open; 2 envelopes (2 with caps checked)" \
   "a directory of two segments verifies"
mv "$tmp/dir/ledger-00000000000000000007.jtl" "$tmp/dir/ledger-00000000000000000008.jtl"
"$jobtree" verify "$tmp/dir" > "$tmp/out"; rc=$?
is "$rc" 6 "misnamed segment: exit 6 (BADSEQ)"
is "$(cut -d' ' -f1-5 "$tmp/out")" "FAIL BADSEQ at seq 7" "  at seq 7"

check () {    # check FILE WANT_RC WANT_PREFIX DESCRIPTION [VERIFY-ARGS]
    local f=$1 want=$2 prefix=$3 desc=$4; shift 4
    "$jobtree" verify "$@" "$f" > "$tmp/out" 2>&1; local rc=$?
    is "$rc" "$want" "$desc: exit $want"
    is "$(cut -c1-${#prefix} "$tmp/out")" "$prefix" "$desc: $prefix"
}

# record-level tampering
sed '3s/"a03"/"a04"/' "$tmp/good.jtl" > "$tmp/t.jtl"
check "$tmp/t.jtl" 4 "FAIL CORRUPT at seq 3" "changed payload byte in record 3"
sed '15s/"End"/"Enb"/' "$tmp/good.jtl" > "$tmp/t.jtl"
check "$tmp/t.jtl" 4 "FAIL CORRUPT at seq 15" "changed last record (complete: damage, not torn)"
head -c -20 "$tmp/good.jtl" > "$tmp/t.jtl"
check "$tmp/t.jtl" 3 "FAIL TRUNCATED at seq 15" "last record cut short (a torn write)"
sed 's/$/\r/' "$tmp/good.jtl" > "$tmp/t.jtl"
check "$tmp/t.jtl" 4 "FAIL CORRUPT at seq 1" "CRLF-converted segment"
{ cat "$tmp/good.jtl"; printf 'garbage\n'; } > "$tmp/t.jtl"
check "$tmp/t.jtl" 4 "FAIL CORRUPT at seq 16" "a whole garbage line after the last record"
sed '5d' "$tmp/good.jtl" > "$tmp/t.jtl"
check "$tmp/t.jtl" 6 "FAIL BADSEQ at seq 5" "deleted record 5"
awk 'NR == 2 { l2 = $0; next } NR == 3 { print; print l2; next } { print }' "$tmp/good.jtl" > "$tmp/t.jtl"
check "$tmp/t.jtl" 6 "FAIL BADSEQ at seq 2" "swapped records 2 and 3"
sed '15d' "$tmp/good.jtl" > "$tmp/t.jtl"
check "$tmp/t.jtl" 7 "FAIL BADHEAD at seq 15" "cut tail against the head anchor" \
    --head "$head"
for junk in "${head}x" "$head " "0$head" "+$head" "${head%?}" " $head" "${head}:1"; do
    "$jobtree" verify --head "$junk" "$tmp/good.jtl" > "$tmp/out" 2>&1; rc=$?
    is "$rc" 2 "--head '$junk': not SEQ:HASH, refused (exit 2)"
done
# an empty last segment must be named for the next seq (a crash after rotation)
cp "$tmp/dir/ledger-00000000000000000008.jtl" "$tmp/dir/ledger-00000000000000000007.jtl"
rm "$tmp/dir/ledger-00000000000000000008.jtl"
: > "$tmp/dir/ledger-00000000000000000016.jtl"
out=$("$jobtree" verify "$tmp/dir" | head -1)
is "$out" "OK 15 records in 3 segments; 5 leases started, 4 ended, 1 open; 2 envelopes (2 with caps checked)" \
   "an empty last segment named for the next seq is fine"
mv "$tmp/dir/ledger-00000000000000000016.jtl" "$tmp/dir/ledger-00000000000000000099.jtl"
check "$tmp/dir" 6 "FAIL BADSEQ at seq 16" "a misnamed empty last segment (a stray touch)"
sed '1s/"time":1767225600/"time":1767225601/' "$ev" > "$tmp/other.jsonl"
mk_ledger "$tmp/other.jsonl" "$tmp/other.jtl"
{ head -2 "$tmp/other.jtl"; tail -n +3 "$tmp/good.jtl"; } > "$tmp/t.jtl"
check "$tmp/t.jtl" 5 "FAIL BADCHAIN at seq 3" "records 1-2 from another ledger"

# invariants, from the events alone
variant () {   # variant SED-SCRIPT WANT_RC PREFIX DESCRIPTION [VERIFY-ARGS]
    local script=$1; shift
    sed "$script" "$ev" > "$tmp/v.jsonl"
    mk_ledger "$tmp/v.jsonl" "$tmp/v.jtl"
    check "$tmp/v.jtl" "$@"
}
variant '5s/"c01"/"a01"/' 10 "FAIL node-overlap at seq 5" "node in two active leases"
variant '4s/"gpus":8/"gpus":16/;10s/"gpus":8/"gpus":16/' 11 \
    "FAIL concurrency at seq 4" "envelope over its concurrency"
variant '1s/"maxGPUHours":100.0/"maxGPUHours":10.0/' 12 \
    "FAIL gpu-hours at seq 15" "open lease over the GPU-hours cap by the last event"
variant '2d' 14 "FAIL unmatched-end at seq 5" "End without its Start"
variant '9s/ctld:1:9/ctld:1:8/' 9 "FAIL duplicate-id at seq 9" "event id used twice"
variant '1s/"start":1767225600,"end":1798761600}/"start":1767232800,"end":1798761600}/' 13 \
    "FAIL window at seq 5" "lease before its envelope's window"
variant '9s/"nodes":\["b01"\]/"nodes": ["b01"]/' 8 "FAIL bad-event at seq 9" \
    "non-canonical payload"
# "at every instant" is lease time (issue 9): forged ledgers, each chain
# recomputed by the independent writer, that verified OK while the
# invariants followed event order and the latest caps in seq order
appended () {  # appended SED-SCRIPT LINE... : $ev edited, then the lines
    local script=$1; shift
    { sed "$script" "$ev"; printf '%s\n' "$@"; } > "$tmp/v.jsonl"
    mk_ledger "$tmp/v.jsonl" "$tmp/v.jtl"
}
lease () {     # lease TYPE ID RUN GPUS NODE START [END]: lease RUN:0 of vis-a100
    local t=$6
    [ -n "$7" ] && t=$7
    printf '{"v":1,"type":"%s","id":"%s","time":%s,"lease":"%s:0","run":"%s",' \
        "$1" "$2" "$t" "$3" "$3"
    printf '"group":"0","nodes":["%s"],"gpus":%s,"role":"Active",' "$5" "$4"
    printf '"envelope":"vis-a100","owner":"vision","start":%s' "$6"
    if [ -n "$7" ]; then printf ',"end":%s,"reason":"End"}' "$7"; else printf '}'; fi
}
appended '' "$(lease Start x:1 c1:200 8 a01 1767229200)"
check "$tmp/v.jtl" 10 "FAIL node-overlap at seq 16" \
    "a Start backdated onto a node while an older lease held it"
appended '' "$(lease End x:1 c1:102 8 c01 1767229200 1767240000)" \
    "$(lease Start x:2 c1:201 16 c02 1767236400)"
check "$tmp/v.jtl" 11 "FAIL concurrency at seq 17" \
    "16 + 8 GPUs on a C=16 envelope, the older lease's End emitted first"
raise='{"v":1,"type":"BudgetLoaded","id":"x:3","time":1767243600,"files":[],"caps":'
raise=$raise'[{"envelope":"vis-a100","owner":"vision","concurrency":16,"maxGPUHours":100.0,'
raise=$raise'"start":1767225600,"end":1798761600}]}'
appended '1s/"maxGPUHours":100.0/"maxGPUHours":10.0/' "$raise"
check "$tmp/v.jtl" 12 "FAIL gpu-hours at seq 16" \
    "GPU-hours over B while it was in force, B raised by a later BudgetLoaded"
variant '1s/"start":1767225600,"end":1798761600}/"start":1767225600,"end":1767236400}/' 13 \
    "FAIL window at seq 5" "a lease still open after its window's end"
variant '10s/"owner":"vision"/"owner":"rai"/' 14 "FAIL bad-interval at seq 10" \
    "an End whose owner is not its Start's"
variant '1s/{"envelope":"west-h100"/{"envelope":"vis-a100"/' 8 "FAIL bad-event at seq 1" \
    "a caps list naming an envelope twice"
# lotteries, recomputed from the Activation alone
variant '14s/"seed":"[0-9a-f]*"/"seed":"0123456789abcdef"/' 15 "FAIL lottery at seq 14" \
    "an Activation whose seed is not its lottery seed"
variant '14s/"resolved":true/"resolved":false/' 15 "FAIL lottery at seq 14" \
    "an Activation whose outcome is not what it recomputes to"
variant '14s/"deficit":16/"deficit":32/' 15 "FAIL lottery at seq 14" \
    "an Activation whose needs do not give its cuts"
variant '14d' 15 "FAIL lottery at seq 14" \
    "a RandomPreempt End without the Activation that took its run"
variant '15s/"seed":"[0-9a-f]*"/"seed":"0123456789abcdef"/' 15 "FAIL lottery at seq 15" \
    "a RandomPreempt End whose seed is another lottery's"
# an auditor's own budget files override the caps recorded in the ledger
mkdir "$tmp/budgets"
cat > "$tmp/budgets/rai.json" <<'JSON'
{ "owner": "rai",
  "envelopes": [ { "name": "west-h100", "flavor": "h100", "selector": {},
                   "start": "2026-01-01T00:00:00Z", "end": "2027-01-01T00:00:00Z",
                   "concurrency": 16 } ] }
JSON
cat > "$tmp/budgets/vision.json" <<'JSON'
{ "owner": "vision",
  "envelopes": [ { "name": "vis-a100", "flavor": "a100", "selector": {},
                   "start": "2026-01-01T00:00:00Z", "end": "2027-01-01T00:00:00Z",
                   "concurrency": 16, "maxGPUHours": 100 } ] }
JSON
# they must be the budgets loaded last: here the ledger's BudgetLoaded is of
# the previous format (files, no content), so its files are compared
check "$tmp/good.jtl" 20 "FAIL budget-hash at seq 1" \
    "--budgets: other files than the ones the ledger loaded last" --budgets "$tmp/budgets"
files='"files":[{"path":"/etc/jobtree/budgets/rai.json","sha256":"'
files=$files$(sha256sum < "$tmp/budgets/rai.json" | cut -c1-64)'"},'
files=$files'{"path":"/etc/jobtree/budgets/vision.json","sha256":"'
files=$files$(sha256sum < "$tmp/budgets/vision.json" | cut -c1-64)'"}]'
variant '1s|"files":\[[^]]*\]|'"$files"'|' 11 "FAIL concurrency at seq 3" \
    "--budgets caps replace the recorded ones" --budgets "$tmp/budgets"
# who pays (issue 9): the budget content itself, written here from section
# 4.1 of the document (canonical form and its SHA-256) by the shell writer
content () {   # content LENDING-TO LENDING-MAX-C AGG-MAX-C
    printf '[{"owner":"rai","envelopes":[{"name":"west-h100","flavor":"h100",'
    printf '"selector":{"region":"west"},"start":"2026-01-01T00:00:00Z",'
    printf '"end":"2027-01-01T00:00:00Z","concurrency":32,"maxGPUHours":1000.0,'
    printf '"lending":{"allow":true,"to":["%s"],"maxConcurrency":%s}}],' "$1" "$2"
    printf '"aggregateCaps":[{"name":"all-h100","flavor":"h100","envelopes":["west-h100"],'
    printf '"maxConcurrency":%s}]},' "$3"
    printf '{"owner":"vision","envelopes":[{"name":"vis-a100","flavor":"a100",'
    printf '"selector":{},"start":"2026-01-01T00:00:00Z","end":"2027-01-01T00:00:00Z",'
    printf '"concurrency":16,"maxGPUHours":100.0}]}]'
}
with_content () {  # with_content LENDING-TO LENDING-MAX-C AGG-MAX-C [SED-SCRIPT]
    local c
    c=$(content "$1" "$2" "$3")
    { sed -n 1p "$ev" | sed 's/}$/,"budgetsSha256":"'"$(printf '%s' "$c" |
        sha256sum | cut -c1-64)"'","budgets":'"$c"'}/'; sed 1d "$ev"; } |
        sed "${4:-}" > "$tmp/v.jsonl"
    mk_ledger "$tmp/v.jsonl" "$tmp/v.jtl"
}
with_content vision 8 32
out=$("$jobtree" verify "$tmp/v.jtl"); rc=$?
is "$rc" 0 "a ledger recording its budget content verifies"
is "$(echo "$out" | sed -n 3p)" \
   "budgets 1 loaded; payer, role, lending and aggregate caps checked on 5 leases" \
   "  Cover's rules checked on every lease"
"$jobtree" verify "$tmp/good.jtl" > "$tmp/out"
is "$(sed -n 4p "$tmp/out" | cut -c1-115)" \
   "unchecked: 5 leases started under budgets whose content is not recorded (first: BudgetLoaded seq 1, previous format" \
   "the previous format still verifies, and verify says what it could not check"
with_content nlp 8 32
check "$tmp/v.jtl" 16 "FAIL payer at seq 4" \
    "a Borrowed lease from an envelope that does not lend to its owner"
with_content vision 8 32 '4s/"owner":"vision"/"owner":"rai"/;10s/"owner":"vision"/"owner":"rai"/'
check "$tmp/v.jtl" 17 "FAIL role at seq 4" "a Borrowed lease on its owner's own envelope"
with_content rai 8 32 '4s/"owner":"vision"/"owner":"rai"/;10s/"owner":"vision"/"owner":"rai"/'
check "$tmp/v.jtl" 17 "FAIL role at seq 4" \
    "a Borrowed lease on its owner's own envelope, even one lending to the owner"
with_content vision 8 32 '4s/"owner":"vision"/"owner":"cv"/;10s/"owner":"vision"/"owner":"cv"/'
check "$tmp/v.jtl" 16 "FAIL payer at seq 4" "a lease of an owner with no budget"
with_content vision 8 32 '4s/"Borrowed"/"Active"/;10s/"Borrowed"/"Active"/'
check "$tmp/v.jtl" 17 "FAIL role at seq 4" "a sponsor paying an Active lease"
with_content vision 4 32
check "$tmp/v.jtl" 18 "FAIL lending-cap at seq 4" "8 GPUs lent on a lending cap of 4"
with_content vision 8 24
check "$tmp/v.jtl" 19 "FAIL aggregate-cap at seq 4" "32 GPUs on an aggregate cap of 24"
with_content vision 8 32 '1s/"budgetsSha256":"./"budgetsSha256":"0/'
check "$tmp/v.jtl" 8 "FAIL bad-event at seq 1" "budget content that is not its hash's"
with_content vision 8 32 '1s/"concurrency":16,"maxGPUHours":100.0,"start"/"concurrency":15,"maxGPUHours":100.0,"start"/'
check "$tmp/v.jtl" 8 "FAIL bad-event at seq 1" "caps that are not the budget content's"
# the worked example of docs/ledger-format.md, rebuilt from the document
doc="$srcdir/docs/ledger-format.md"
sed -n '/^The three payloads/,/^have lengths/p' "$doc" | grep '^    ' |
    sed 's/^    //' | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' > "$tmp/doc.jsonl"
mk_ledger "$tmp/doc.jsonl" "$tmp/doc.jtl"
is "$(awk '{print $2, $NF}' "$tmp/doc.jtl")" \
   "$(grep '^    JT1 ' "$doc" | awk '{print $2, $NF}')" \
   "the document's worked example hashes are what its grammar gives"
"$jobtree" verify -q "$tmp/doc.jtl"
is "$?" 0 "and jobtree verify accepts it"
"$jobtree" verify "$tmp/missing" > /dev/null 2>&1
is "$?" 2 "unreadable ledger: exit 2"
done_testing
