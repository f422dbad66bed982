# tests/doc/lib.sh - the documented examples, extracted and classified, for
# the doc-tests (POSIX sh + awk; source it after tests/tap/tap.sh):
#
#   tests/doc/examples.sh              (make check) runs every example that
#                                      needs no cluster, checks the rest are
#                                      classified, counts them
#   tests/cluster/t1090-doc-examples.sh  runs every example that needs a
#                                      cluster, on one cluster started once
#
# An example is a fenced block (```) or an indented code block of README.md
# or docs/*.md, or a .nf/.fi (.EX/.EE) block of docs/man/*; new files are
# found by these globs. Each
# example gets a kind, by its form first:
#
#   transcript  its first line starts with "$ ": each "$ COMMAND" (with "\"
#               continuations) runs, and what it prints (stdout and stderr)
#               must be exactly the lines after it, up to the next "$ "; a
#               line "..." stands for any lines. jobtree runs offline, from
#               the top of the checkout; sbatch, srun, salloc, squeue,
#               scontrol, sinfo on the cluster (cluster-transcript)
#   commands    every command line (blank lines and "# comments" aside) is
#               a jobtree command (offline: exit 0), or every one an sbatch
#               command (cluster: accepted, and a job with a Jobtree option
#               gets its record)
#
# and else by its entry in tests/doc/examples.list, which also overrides the
# form. An example that has neither fails: a new example is either run or
# listed with the reason it is not (tests/doc/README.md). A list entry that
# matches no example fails too.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.

doc_srcdir=${srcdir:-${JT_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}}

# The documents, in a fixed order (sorted names).
doc_files () {
    (cd "$doc_srcdir" && ls README.md docs/*.md docs/man/* 2>/dev/null | LC_ALL=C sort)
}

# doc_extract DIR: one example per file DIR/NNNN (its text, roff escapes
# undone) and DIR/NNNN.meta ("FILE LINE LANG": LINE is the block's first
# content line). Prints the number of examples.
doc_extract () {
    _dir=$1
    mkdir -p "$_dir"
    (cd "$doc_srcdir" && doc_files | while read -r _f; do
        case "$_f" in
        docs/man/*) _man=1 ;;
        *) _man=0 ;;
        esac
        awk -v file="$_f" -v man="$_man" -v dir="$_dir" '
        function unroff(s) {
            gsub(/\\f[BIRP]/, "", s); gsub(/\\-/, "-", s); gsub(/\\\(aq/, "\047", s)
            gsub(/\\\(dq/, "\"", s); gsub(/\\&/, "", s); gsub(/\\e/, "\\", s)
            gsub(/\\\\/, "\\", s)
            return s
        }
        function start(lang) {
            n = 0; lang0 = lang; inb = 1; first = FNR + 1
        }
        function finish() {
            inb = 0
            while ((getline c < (dir "/count")) > 0) k = c
            close(dir "/count")
            k++
            printf "%d\n", k > (dir "/count"); close(dir "/count")
            out = sprintf("%s/%04d", dir, k)
            printf "" > out
            for (i = 1; i <= n; i++) print buf[i] > out
            close(out)
            printf "%s %d %s\n", file, first, (lang0 == "" ? "-" : lang0) > (out ".meta")
            close(out ".meta")
        }
        # an indented code block: 4 spaces in, after a blank line that
        # follows neither a list item nor an indented line (a list'"'"'s own
        # paragraphs are indented too)
        man == 0 && inind {
            if ($0 ~ /^[ \t]*$/) { buf[++n] = ""; next }
            if ($0 ~ /^    /) { buf[++n] = substr($0, 5); next }
            while (n > 0 && buf[n] == "") n--
            inind = 0; finish()
        }
        man == 0 && !inb && $0 ~ /^    [^ ]/ && prevblank && lastnb !~ /^[ \t]*([-*+]|[0-9]+\.)[ \t]/ && lastnb !~ /^  / && lastnb != "" {
            start("-"); first = FNR; inind = 1; buf[++n] = substr($0, 5); next
        }
        man == 0 && /^[ \t]*```/ {
            if (!inb) { l = $0; sub(/^[ \t]*```/, "", l); sub(/[ \t].*/, "", l); start(l) }
            else finish()
            prevblank = 0; lastnb = "```"
            next
        }
        man == 0 && !inb { prevblank = ($0 ~ /^[ \t]*$/); if (!prevblank) lastnb = $0 }
        man == 1 && /^\.(nf|EX)([ \t]|$)/ { if (!inb) start(""); next }
        man == 1 && /^\.(fi|EE)([ \t]|$)/ { if (inb) finish(); next }
        inb {
            l = $0
            if (man) { if (l ~ /^\.(RS|RE|sp|br|in)([ \t]|$)/) next; l = unroff(l) }
            buf[++n] = l
        }
        END {
            if (inind) { while (n > 0 && buf[n] == "") n--; finish() }
            else if (inb) printf "%s:%d: unterminated example block\n", file, first > "/dev/stderr"
        }
        ' "$_f"
    done)
    cat "$_dir/count" 2>/dev/null || echo 0
}

# The list: "FILE | TEXT | KIND ARGS" lines; TEXT is a piece of the
# example's text that picks it out (first match in FILE wins for nothing:
# every example of FILE containing TEXT gets the entry).
doc_list=$doc_srcdir/tests/doc/examples.list

# doc_entries: the list without comments and blank lines, "|" fields trimmed,
# as FILE<TAB>TEXT<TAB>KIND, with the list's line number first.
doc_entries () {
    awk -F'|' '/^[ \t]*(#|$)/ { next }
        { for (i = 1; i <= 3; i++) { gsub(/^[ \t]+|[ \t]+$/, "", $i) }
          k = $3; for (i = 4; i <= NF; i++) k = k "|" $i
          printf "%d\t%s\t%s\t%s\n", NR, $1, $2, k }' "$doc_list"
}

# doc_listed EX: the list entries of example file EX ("LINENO<TAB>KIND"),
# one per line.
doc_listed () {
    _f=$(cut -d' ' -f1 "$1.meta")
    doc_entries | while IFS='	' read -r _n _file _text _kind; do
        [ "$_file" = "$_f" ] || continue
        grep -qF -- "$_text" "$1" && printf '%s\t%s\n' "$_n" "$_kind"
    done
}

# The command lines of example EX: blank and comment lines dropped, "\"
# continuations joined, trailing "# comment" dropped.
doc_commands () {
    awk '{ l = $0 }
         c != "" { l = c " " l; c = "" }
         /\\$/ { sub(/[ \t]*\\$/, "", l); c = l; next }
         { sub(/[ \t]+#.*$/, "", l); sub(/^[ \t]+/, "", l) }
         l == "" || l ~ /^#/ { next }
         { print l }' "$1"
}

doc_cluster_cmd_re='^(sbatch|srun|salloc|squeue|scontrol|sinfo)( |$)'

# doc_kind EX: the example's kind and arguments, one line:
#   list N KIND...        from the list's line N
#   transcript | cluster-transcript | commands | cluster-commands
#   unclassified          neither
#   ambiguous N M         two list entries
doc_kind () {
    _l=$(doc_listed "$1")
    case "$(printf '%s' "$_l" | grep -c .)" in
    0) ;;
    1) printf 'list %s\n' "$(printf '%s' "$_l" | tr '\t' ' ')"; return ;;
    *) printf 'ambiguous %s\n' "$(printf '%s\n' "$_l" | cut -f1 | tr '\n' ' ')"; return ;;
    esac
    if head -n 1 "$1" | grep -q '^\$ '; then
        if grep '^\$ ' "$1" | sed 's/^\$ //' | grep -Eq "$doc_cluster_cmd_re"; then
            echo cluster-transcript
        else
            echo transcript
        fi
        return
    fi
    _lang=$(cut -d' ' -f3 "$1.meta")
    case "$_lang" in sh|bash|console|-) ;; *) echo unclassified; return ;; esac
    _cmds=$(doc_commands "$1")
    if [ -n "$_cmds" ] && ! printf '%s\n' "$_cmds" | grep -qv '^jobtree '; then
        echo commands
    elif [ -n "$_cmds" ] && ! printf '%s\n' "$_cmds" | grep -qv '^sbatch '; then
        echo cluster-commands
    else
        echo unclassified
    fi
}

# doc_where EX: "FILE:LINE" of the example.
doc_where () { awk '{ printf "%s:%s", $1, $2 }' "$1.meta"; }

# doc_transcript_run EX DIR: run each "$ " command of a transcript from DIR
# with sh (prefixed by $doc_run, e.g. an env marking the cluster's jobs), its output (stdout then stderr, as a terminal shows both) into
# EX.got; the expected lines into EX.want, "..." kept. Then doc_match.
doc_transcript_run () {
    _ex=$1 _cwd=$2
    : > "$_ex.got"
    # Split into commands (with continuation lines) and expected outputs.
    awk -v base="$_ex" '
        /^\$ / { k++; cmd = base ".cmd" k; printf "%s\n", substr($0, 3) > cmd
                 cont = ($0 ~ /\\$/); out = base ".want" k; printf "" > out; next }
        cont { print > cmd; cont = ($0 ~ /\\$/); next }
        k { print > out }
        END { print k + 0 > (base ".ncmd") }' "$_ex"
    _k=1
    : > "$_ex.want"
    while [ "$_k" -le "$(cat "$_ex.ncmd")" ]; do
        printf '$ %s\n' "$(cat "$_ex.cmd$_k")" >> "$_ex.got"
        (cd "$_cwd" && $doc_run sh "$_ex.cmd$_k" 2>&1) >> "$_ex.got"
        printf '$ %s\n' "$(cat "$_ex.cmd$_k")" >> "$_ex.want"
        cat "$_ex.want$_k" >> "$_ex.want"
        _k=$((_k + 1))
    done
}

# doc_match WANT GOT: GOT's lines are WANT's, where a WANT line "..." matches
# any number of lines (also none); trailing blank lines are ignored.
doc_match () {
    awk 'NR == FNR { w[++nw] = $0; next } { g[++ng] = $0 }
        function m(i, j) {
            if (i > nw) return j > ng
            if (w[i] == "...") { for (t = j; t <= ng + 1; t++) if (m(i + 1, t)) return 1; return 0 }
            return j <= ng && w[i] == g[j] && m(i + 1, j + 1)
        }
        END {
            while (nw > 0 && w[nw] == "") nw--
            while (ng > 0 && g[ng] == "") ng--
            exit !m(1, 1)
        }' "$1" "$2"
}

# doc_schema SPECS EX OUT: the example EX is a schema: its lines are lines
# of OUT, in order (a line of OUT may lie between), where each placeholder
# of SPECS ("NAME" or "NAME=ERE", comma-separated; a word of EX equal to
# NAME, not inside a longer word) stands for a value (NAME's ERE, else any
# text), "..." for any text and ",..." for further items (also none); the
# rest of a line is literal. Prints the first line not found; 0 or 1.
doc_schema () {
    # SPECS through the environment, not -v: awk processes escapes in a -v
    # value, and gawk then drops the backslash of \{ where mawk keeps it
    # (a schema's ERE would differ with the machine's awk)
    _JT_DOC_SPECS=$1 awk '
    BEGIN {
        specs = ENVIRON["_JT_DOC_SPECS"]
        np = split(specs, s, ",")
        for (i = 1; i <= np; i++) {
            k = s[i]; v = ".+"; e = index(k, "=")
            if (e) { v = substr(k, e + 1); k = substr(k, 1, e - 1) }
            name[i] = k; re[i] = v
        }
    }
    function word(c) { return c ~ /[A-Za-z0-9_]/ }
    {
        l = $0; out = ""; p = 1; n = length(l)
        while (p <= n) {
            if (substr(l, p, 4) == ",...") { out = out "(,.*)?"; p += 4; continue }
            if (substr(l, p, 3) == "...") { out = out ".*"; p += 3; continue }
            best = 0
            for (i = 1; i <= np; i++) {
                m = length(name[i])
                if (substr(l, p, m) == name[i] && !(p > 1 && word(substr(l, p - 1, 1))) \
                    && !word(substr(l, p + m, 1)) && m > length(name[best]))
                    best = i
            }
            if (best) { out = out "(" re[best] ")"; p += length(name[best]); continue }
            c = substr(l, p, 1)
            if (index(".[]\\^$*+?(){}|", c)) out = out "\\" c
            else out = out c
            p++
        }
        if (l != "") print "^" out "$"
    }' "$2" > "$2.re"
    _from=1
    while IFS= read -r _re; do
        _at=$(tail -n "+$_from" "$3" | grep -n -E -m 1 -- "$_re" | cut -d: -f1)
        if [ -z "$_at" ]; then
            echo "no line of the output (from line $_from) matches: $_re"
            return 1
        fi
        _from=$((_from + _at))
    done < "$2.re"
    return 0
}
