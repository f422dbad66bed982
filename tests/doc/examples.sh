#!/bin/sh
# tests/doc/examples.sh - every example of README.md, docs/*.md and
# docs/man/* (tests/doc/lib.sh finds them) is run, checked, or listed as not
# runnable with its reason (tests/doc/examples.list); the examples that need
# a cluster are counted here and run by tests/cluster/t1090-doc-examples.sh.
# One TAP line per example; a new example that is neither run nor listed
# fails, and so does a list entry that no longer matches an example.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
. "$(dirname "$0")/../tap/jobtree.sh"
. "$srcdir/tests/doc/lib.sh"

for f in README.md docs/user-guide.md tests/doc/examples.list; do
    [ -f "$srcdir/$f" ] || {
        echo "1..0 # SKIP no $f: not a whole source tree (a dist tarball holds some docs only)"
        exit 0
    }
done
[ -x "$jobtree" ] || bail_out "$jobtree not built"
docparse=$builddir/tests/doc/docparse
[ -x "$docparse" ] || bail_out "$docparse not built"
PATH=$builddir/src/cli:$PATH
export PATH

# The top of a checkout, for the examples to run in: the source tree's
# entries linked, except data/ (the Philly trace's first 2,000 jobs, so a
# documented `jobtree sim` on it takes a second) and build/ (this build's
# jobtree); what an example writes (sim-out, w150.csv) stays in here.
top=$tmp/top
mkdir -p "$top/data" "$top/build/src/cli"
for f in "$srcdir"/* "$srcdir"/.ci; do
    case "${f##*/}" in data|build|build-*) continue ;; esac
    [ -e "$f" ] && ln -s "$f" "$top/${f##*/}"
done
ln -s "$srcdir/data/README.md" "$top/data/README.md"
head -n 2001 "$srcdir/data/philly_2017_pollux.csv" > "$top/data/philly_2017_pollux.csv" ||
    bail_out "no data/philly_2017_pollux.csv"
ln -s "$jobtree" "$top/build/src/cli/jobtree"

ex=$tmp/ex
total=$(doc_extract "$ex")
n_run=0 n_file=0 n_cluster=0 n_listed=0 n_bad=0

# Every list entry names an existing file and picks out some example.
doc_entries > "$tmp/entries"
for e in "$ex"/[0-9][0-9][0-9][0-9]; do
    printf '%s %s\n' "$(cut -d' ' -f1 "$e.meta")" "$e"
done > "$tmp/index"
while IFS='	' read -r n file text kind; do
    hit=0
    for e in $(awk -v f="$file" '$1 == f { print $2 }' "$tmp/index"); do
        grep -qF -- "$text" "$e" && { hit=1; break; }
    done
    [ $hit -eq 1 ] || {
        ok 1 "tests/doc/examples.list:$n: no example of $file contains '$text' (remove the entry or fix it)"
        n_bad=$((n_bad + 1))
    }
done < "$tmp/entries"

# run_offline EX NAME: each command line of EX from the top of the checkout,
# exit 0 each.
run_offline () {
    doc_commands "$1" > "$1.cmds"
    rc=0
    while IFS= read -r c; do
        (cd "$top" && sh -c "$c") > "$1.out" 2>&1 || {
            rc=1
            diag "$c: exit status $?"
            sed 's/^/  /' "$1.out" | head -n 20 | while IFS= read -r l; do diag "$l"; done
        }
    done < "$1.cmds"
    ok $rc "$2"
}

# run_script EX NAME: EX as one shell script (sh -e), in a fresh copy of
# the top (its links), exit 0.
run_script () {
    rm -rf "$tmp/run" && cp -a "$top" "$tmp/run"
    if (cd "$tmp/run" && sh -e "$1") > "$1.out" 2>&1; then ok 0 "$2"
    else ok 1 "$2"; tail -n 20 "$1.out" | sed 's/^/# /'; fi
}

# check_transcript EX NAME
check_transcript () {
    rm -rf "$tmp/run" && cp -a "$top" "$tmp/run"
    doc_transcript_run "$1" "$tmp/run"
    if doc_match "$1.want" "$1.got"; then ok 0 "$2"
    else ok 1 "$2"; diff -u "$1.want" "$1.got" | sed 's/^/# /'; fi
}

# check_cmd NAME CMD...: exit 0, else its output as diagnostics.
check_cmd () {
    name=$1; shift
    if "$@" > "$tmp/out" 2>&1; then ok 0 "$name"
    else ok 1 "$name"; sed 's/^/# /' "$tmp/out" | head -n 20; fi
}

for e in "$ex"/[0-9][0-9][0-9][0-9]; do
    w=$(doc_where "$e")
    read -r kind arg1 rest <<EOF
$(doc_kind "$e")
EOF
    listed=
    if [ "$kind" = list ]; then
        listed=" (tests/doc/examples.list:$arg1)"
        read -r kind arg1 rest <<EOF
$rest
EOF
        args=$(printf '%s %s' "$arg1" "$rest" | sed 's/ *$//')
        # a sed script after commands/transcript: applied before running
        case "$kind" in commands|transcript|script|cluster-commands|cluster-transcript|cluster-script)
            [ -n "$args" ] && { sed -e "$args" "$e" > "$e.sub" && mv "$e.sub" "$e"; } ;;
        esac
    else
        args=
    fi
    case "$kind" in
    transcript)
        check_transcript "$e" "$w: transcript$listed"; n_run=$((n_run + 1)) ;;
    commands)
        run_offline "$e" "$w: commands$listed"; n_run=$((n_run + 1)) ;;
    script)
        run_script "$e" "$w: script$listed"; n_run=$((n_run + 1)) ;;
    cluster-*)
        skip "$w: $kind, run by tests/cluster/t1090-doc-examples.sh$listed"
        n_cluster=$((n_cluster + 1)) ;;
    budget)
        d=$tmp/budgets.$(basename "$e")
        mkdir -p "$d"
        [ -n "$args" ] && cp "$srcdir/$args"/*.json "$d/"
        owner=$(sed -n 's/.*"owner": *"\([^"]*\)".*/\1/p' "$e" | head -n 1)
        cp "$e" "$d/${owner:-example}.json"
        check_cmd "$w: budget file: jobtree check${args:+ with the others of $args}$listed" \
            "$jobtree" check "$d"
        n_file=$((n_file + 1)) ;;
    run)
        check_cmd "$w: run file: jobtree plan on etc/budgets, etc/snapshot.json$listed" \
            "$jobtree" plan --budgets "$srcdir/etc/budgets" \
            --snapshot "$srcdir/etc/snapshot.json" --run "$e"
        n_file=$((n_file + 1)) ;;
    snapshot)
        check_cmd "$w: snapshot file: jobtree check etc/budgets --snapshot$listed" \
            "$jobtree" check "$srcdir/etc/budgets" --snapshot "$e"
        n_file=$((n_file + 1)) ;;
    conf)
        check_cmd "$w: jobtree.conf: read by libjobtree$listed" "$docparse" conf "$e"
        n_file=$((n_file + 1)) ;;
    record)
        check_cmd "$w: admin_comment record: read by libjobtree$listed" "$docparse" record "$e"
        n_file=$((n_file + 1)) ;;
    output)
        # the example's lines, in order, among what the commands print
        { echo ...; sed 's/$/\n.../' "$e"; } > "$e.want"
        (cd "$top" && sh -c "$args") > "$e.got" 2>&1
        if doc_match "$e.want" "$e.got"; then ok 0 "$w: output of $args$listed"
        else ok 1 "$w: output of $args$listed"; sed 's/^/# got: /' "$e.got" | head -n 20; fi
        n_run=$((n_run + 1)) ;;
    schema)
        # the example's lines, placeholders arg1 standing for values, are
        # among what the command prints (doc_schema)
        (cd "$top" && sh -c "$rest") > "$e.got" 2>&1
        if why=$(doc_schema "$arg1" "$e" "$e.got"); then ok 0 "$w: schema, of what $rest prints$listed"
        else ok 1 "$w: schema, of what $rest prints$listed"; diag "$why"
             sed 's/^/# got: /' "$e.got" | head -n 20; fi
        n_run=$((n_run + 1)) ;;
    grammar)
        (cd "$top" && sh -c "$args") > "$e.got" 2>&1
        if why=$(python3 "$srcdir/tests/doc/abnf.py" "$e" < "$e.got"); then ok 0 "$w: grammar: $why, of what $args prints$listed"
        else ok 1 "$w: grammar, of what $args prints$listed"; diag "$why"; fi
        n_run=$((n_run + 1)) ;;
    found-in)
        if [ ! -f "$srcdir/$arg1" ]; then
            ok 1 "$w: $arg1 is missing (a dist tarball: add it to EXTRA_DIST in mk/doctest.am)$listed"
        elif [ -n "$rest" ]; then
            if grep -qF -- "$rest" "$srcdir/$arg1" 2>/dev/null; then
                ok 0 "$w: '$rest' is in $arg1$listed"
            else
                ok 1 "$w: $arg1 does not hold '$rest'$listed"
            fi
        else
            # a line's trailing comment (blanks, then #) is the doc's, not the file's
            miss=$(while IFS= read -r l; do
                       l=$(printf '%s' "$l" | sed 's/[[:space:]][[:space:]]*#.*$//')
                       [ -z "$l" ] || grep -qF -- "$l" "$srcdir/$arg1" || echo "$l"
                   done < "$e")
            ok "$([ -z "$miss" ]; echo $?)" "$w: every line is in $arg1$listed"
            [ -z "$miss" ] || diag "not in $arg1: $miss"
        fi
        n_file=$((n_file + 1)) ;;
    skip)
        skip "$w: not run: $args$listed"; n_listed=$((n_listed + 1)) ;;
    ambiguous)
        ok 1 "$w: two entries of tests/doc/examples.list pick it out (lines $arg1 $rest)"
        n_bad=$((n_bad + 1)) ;;
    *)
        ok 1 "$w: example neither run nor listed: give it a kind in tests/doc/examples.list (tests/doc/README.md)"
        head -n 3 "$e" | sed 's/^/#   /'
        n_bad=$((n_bad + 1)) ;;
    esac
done

diag "$total examples: $n_run run here, $n_file checked as files or by a named test, $n_cluster on the cluster (t1090), $n_listed listed as not runnable, $n_bad unclassified or stale"
done_testing
