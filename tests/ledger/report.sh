#!/bin/bash
# tests/ledger/report.sh - `jobtree report` against golden outputs (checked
# by hand against tests/data/ledger/events.jsonl), and the contrib wrappers.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/lib.sh"

mk_ledger "$data/events.jsonl" "$tmp/l.jtl"
L="$tmp/l.jtl"
# The goldens count open leases up to the ledger's last event (05:00):
# without --now they would run until the current time.
T=2026-01-01T05:00:00Z
golden () {   # golden FILE DESCRIPTION -- REPORT ARGS...
    local f=$1 d=$2 k=$4; shift 4
    is "$("$jobtree" report "$k" --now "$T" "$@" 2>&1)" "$(cat "$data/$f")" "$d"
}
golden leases.P.out "leases -P" -- leases -P "$L"
golden runs.pn.out "runs -p -n" -- runs -p -n "$L"
golden usage.out "usage table" -- usage "$L"
golden usage.range.out "usage -S/-E clips intervals" -- usage -P \
    -S 2026-01-01T01:30:00Z -E 2026-01-01T02:30:00Z "$L"
golden reservations.json "reservations --json" -- reservations --json "$L"
golden leases.jobs.out "leases -j with -o FIELD%WIDTH" -- leases -j 101,c1:103 \
    -o lease%10,reason,seed,gpuhours%8 "$L"
golden leases.filter.out "leases --envelope -A -P -n" -- leases --envelope vis-a100 \
    -A vision -P -n -o Lease,Nodes,End "$L"
# A lease that starts at the ledger's last instant is running: it is listed.
{ cat "$data/events.jsonl"
  echo '{"v":1,"type":"Start","id":"ctld:1:99","time":1767250000,"lease":"c1:104:0","run":"c1:104","group":"0","nodes":["a03"],"gpus":8,"role":"Active","envelope":"west-h100","owner":"rai","start":1767250000}'
} > "$tmp/late.jsonl"
mk_ledger "$tmp/late.jsonl" "$tmp/late.jtl"
is "$("$jobtree" report leases -P -n -j 104 -o Lease,End "$tmp/late.jtl" 2>&1)" \
   "c1:104:0|Running" "a lease started at the last event is listed as running"

# A live ledger: a lease started ten hours ago still runs. Without --now
# it counts up to now (1 GPU x 10 h; "10.00" for the first 18 s after t0),
# not up to its own start, the ledger's last event (0.00 and PeakGPUs 0).
t0=$(( $(date +%s) - 36000 ))
echo '{"v":1,"type":"Start","id":"ctld:1:1","time":'$t0',"lease":"c1:7:0","run":"c1:7","group":"0","nodes":["a01"],"gpus":1,"role":"Active","envelope":"west-h100","owner":"rai","start":'$t0'}' \
    > "$tmp/live.jsonl"
mk_ledger "$tmp/live.jsonl" "$tmp/live.jtl"
is "$("$jobtree" report usage -P -n -o Owner,Envelope,Leases,PeakGPUs,GPUHours "$tmp/live.jtl" 2>&1)" \
   "rai|west-h100|1|1|10.00" "running leases count up to now by default"
is "$("$jobtree" report usage -P -n -o PeakGPUs,GPUHours --now $((t0 + 1800)) "$tmp/live.jtl" 2>&1)" \
   "1|0.50" "--now pins the instant"
# A lease started at now is running at now: its GPUs are in the peak (the
# demo reads its report seconds after the runs start), its hours are 0.
is "$("$jobtree" report usage -P -n -o PeakGPUs,GPUHours --now $t0 "$tmp/live.jtl" 2>&1)" \
   "1|0.00" "a lease started at now counts in PeakGPUs"

# Family sharing: vision runs on its sibling rai's envelope (role Active,
# no lending ACL needed). Those hours are borrowed by vision and lent by
# rai, not owned: Sponsor rai with OwnedGPUHours would bill rai's own
# column for them.
B='{"v":1,"type":"BudgetLoaded","id":"ctld:1:1","time":1767225600,"files":[{"path":"/etc/jobtree/budgets/rai.json","sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}],"caps":[{"envelope":"rai-west","owner":"rai","concurrency":32,"maxGPUHours":1000.0,"start":1767225600,"end":1798761600}]}'
lease () {  # lease SEQ RUN OWNER ROLE: Start at 00:00 and End at 01:00, 8 GPUs on rai-west
    printf '{"v":1,"type":"%s","id":"ctld:1:%s","time":%s,"lease":"c1:%s:0","run":"c1:%s","group":"0","nodes":["a0%s"],"gpus":8,"role":"%s","envelope":"rai-west","owner":"%s","start":1767225600%s}\n' \
        Start "$1" 1767225600 "$2" "$2" "$1" "$4" "$3" "" \
        End "$1$1" 1767229200 "$2" "$2" "$1" "$4" "$3" ',"end":1767229200,"reason":"End"'
}
{ echo "$B"; lease 2 201 rai Active; lease 3 202 vision Active; } > "$tmp/family.jsonl"
mk_ledger "$tmp/family.jsonl" "$tmp/family.jtl"
is "$("$jobtree" report usage -P "$tmp/family.jtl" 2>&1)" \
"Owner|Envelope|Sponsor|Leases|PeakGPUs|OwnedGPUHours|BorrowedGPUHours|GPUHours
rai|rai-west|rai|1|8|8.00|0.00|8.00
vision|rai-west|rai|1|8|0.00|8.00|8.00" "a sibling's use of an owner's envelope is borrowed, not owned"
is "$("$jobtree" report runs -P -n -o Run,OwnedGPUHours,BorrowedGPUHours "$tmp/family.jtl" 2>&1)" \
"c1:201|8.00|0.00
c1:202|0.00|8.00" "and so in the runs report"
PATH="$builddir/src/cli:$PATH" sh "$srcdir/contrib/report/borrowed-vs-owned.sh" "$tmp/family.jtl" > "$tmp/out" 2>&1
is "$(cat "$tmp/out")" "Sponsor|Borrower|Envelope|GPUHours|PeakGPUs
rai|vision|rai-west|8.00|8" "the sponsor lent them (borrowed-vs-owned.sh)"

# Lease ids as the select plugin writes them (run:start:group) differ only
# at their end: the default table shows them whole (it cut them to
# "jobtree:4242:17+", and every lease of the run looked alike), and so
# the run and an envelope name longer than its column; a width given with
# -o still cuts, as sacct does.
ids () {  # ids GROUP
    printf '{"v":1,"type":"Start","id":"jobtree:4242:1767225600:g%s:start","time":1767225600,"lease":"jobtree:4242:1767225600:g%s","run":"jobtree:4242","group":"%s","nodes":["a0%s"],"gpus":8,"role":"Active","envelope":"research-west-h100","owner":"rai","start":1767225600}\n' "$1" "$1" "$1" "$1"
}
{ ids 0; ids 1; } > "$tmp/ids.jsonl"
mk_ledger "$tmp/ids.jsonl" "$tmp/ids.jtl"
is "$("$jobtree" report leases --now 2026-01-01T01:00:00Z "$tmp/ids.jtl" 2>&1)" \
"Lease                      Run            Group  Owner      Envelope           Role       GPUs Start                End                  Reason             GPUHours
-------------------------- -------------- ------ ---------- ------------------ -------- ------ -------------------- -------------------- ---------------- ----------
jobtree:4242:1767225600:g0 jobtree:4242   0      rai        research-west-h100 Active        8 2026-01-01T00:00:00Z Running                                     8.00
jobtree:4242:1767225600:g1 jobtree:4242   1      rai        research-west-h100 Active        8 2026-01-01T00:00:00Z Running                                     8.00" \
   "the default table does not cut lease ids (nor envelope names)"
is "$("$jobtree" report leases -n -o Lease%12 --now 2026-01-01T01:00:00Z "$tmp/ids.jtl" 2>&1)" \
"jobtree:424+
jobtree:424+" "a width given with -o cuts"

"$jobtree" report usage -o Owner,Bogus "$L" > "$tmp/out" 2>&1
is "$?" 2 "unknown field: usage error"
is "$(head -c 38 "$tmp/out")" "jobtree report: unknown field 'Bogus';" "and names it"
sed '3s/"a03"/"a04"/' "$L" > "$tmp/bad.jtl"
"$jobtree" report usage "$tmp/bad.jtl" > /dev/null 2>&1
is "$?" 1 "a damaged ledger is refused"

PATH="$builddir/src/cli:$PATH"; export PATH
is "$(sh "$srcdir/contrib/report/chargeback.sh" 2026-01 --now "$T" "$L")" \
"# GPU-hours by account, 2026-01-01T00:00:00Z .. 2026-02-01T00:00:00Z
Account|OwnedGPUHours|BorrowedGPUHours|GPUHours
rai|64.00|0.00|64.00
vision|32.00|16.00|48.00" "contrib chargeback.sh for one month"
is "$(sh "$srcdir/contrib/report/borrowed-vs-owned.sh" --now "$T" "$L")" \
"Sponsor|Borrower|Envelope|GPUHours|PeakGPUs
rai|vision|west-h100|16.00|8" "contrib borrowed-vs-owned.sh per sponsor"
done_testing
