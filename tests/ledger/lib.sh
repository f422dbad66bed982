# tests/ledger/lib.sh - shell helpers for the ledger tests: a TAP producer and
# an independent writer of the ledger format, written from
# docs/ledger-format.md with sha256sum(1) only (no libjobtree), so the
# tests also check that the document is enough to implement the format.

: "${JT_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${JT_BUILDDIR:=$PWD}"
JOBTREE="$JT_BUILDDIR/src/cli/jobtree"
DATA="$JT_SRCDIR/tests/data/ledger"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/jt-ledger-sh.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

t_n=0
t_fail=0
ok () {          # ok COND_STATUS DESCRIPTION
    t_n=$((t_n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $t_n - $2"; else echo "not ok $t_n - $2"; t_fail=1; fi
}
is () {          # is GOT WANT DESCRIPTION
    t_n=$((t_n + 1))
    if [ "$1" = "$2" ]; then echo "ok $t_n - $3"
    else
        echo "not ok $t_n - $3"; t_fail=1
        printf '%s\n' "# got:" "$1" | sed '2,$s/^/#   /'
        printf '%s\n' "# expected:" "$2" | sed '2,$s/^/#   /'
    fi
}
done_testing () { echo "1..$t_n"; exit $t_fail; }

# mk_ledger JSONL OUTFILE: one record per payload line, genesis prev, seq 1..
mk_ledger () {
    prev=0000000000000000000000000000000000000000000000000000000000000000
    seq=1
    : > "$2"
    while IFS= read -r p; do
        [ -n "$p" ] || continue
        len=$(printf '%s' "$p" | wc -c)
        body="JT1 $seq $prev $len $p"
        h=$(printf '%s' "$body" | sha256sum | cut -c1-64)
        printf '%s %s\n' "$body" "$h" >> "$2"
        prev=$h
        seq=$((seq + 1))
    done < "$1"
}
