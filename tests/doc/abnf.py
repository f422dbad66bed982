#!/usr/bin/env python3
# tests/doc/abnf.py - a documented grammar checked against real text: the
# doc-test's `grammar` kinds (tests/doc/examples.list). The example is ABNF
# (RFC 5234) rules; every line of standard input, with its LF, must be an
# instance of the first rule. Prints the first line that is not, and exits 1.
#
#   tests/doc/abnf.py GRAMMAR < TEXT
#
# What it reads of ABNF: rules `name = elements ; comment` (a line of its
# own; a line starting with `;` is a comment), quoted strings (compared
# exactly), %xHH and %xHH-HH, rule names (the core rules DIGIT, OCTET, SP,
# LF, HEXDIG and ALPHA are RFC 5234's unless the grammar defines them),
# concatenation, `/`, ( ) groups, repetition n*m, *m, n*, n. One thing ABNF
# cannot write: `len OCTET` where `len` is a rule the same rule matched
# earlier is read as the ledger format says, as many octets as that number
# (docs/ledger-format.md, section 2).
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
import re
import sys

CORE = {
    "DIGIT": "%x30-39", "OCTET": "%x00-FF", "SP": "%x20", "LF": "%x0A",
    "HEXDIG": 'DIGIT / "A" / "B" / "C" / "D" / "E" / "F"',
    "ALPHA": "%x41-5A / %x61-7A",
}


def rules_of(text):
    rules, order = {}, []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(";"):
            continue
        m = re.match(r"([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$", line)
        if not m:
            sys.exit("abnf.py: not a rule: %s" % line)
        body = re.sub(r'\s*;[^"]*$', "", m.group(2))
        rules[m.group(1)] = body
        order.append(m.group(1))
    for k, v in CORE.items():
        rules.setdefault(k, v)
    return rules, order


TOKEN = re.compile(r'\s*(?:(?P<str>"[^"]*")|(?P<hex>%x[0-9A-Fa-f]+(?:-[0-9A-Fa-f]+)?)'
                   r'|(?P<rep>\d*\*\d*|\d+)|(?P<name>[A-Za-z][A-Za-z0-9-]*)'
                   r'|(?P<op>[/()]))')


class Grammar:
    def __init__(self, rules):
        self.rules = rules
        self.counts = []        # rules whose value counts a later OCTET run
        self.seen = []          # rules the first rule matched so far (named)

    def tokens(self, body):
        out, pos = [], 0
        while pos < len(body):
            if body[pos:].strip() == "":
                break
            m = TOKEN.match(body, pos)
            if not m:
                sys.exit("abnf.py: cannot read %r" % body[pos:])
            out.append((m.lastgroup, m.group(m.lastgroup)))
            pos = m.end()
        return out

    def regex(self, name, depth=0, top=False):
        if depth > 20:
            sys.exit("abnf.py: rule %s recurses" % name)
        if name not in self.rules:
            sys.exit("abnf.py: rule %s is used but not defined" % name)
        toks = self.tokens(self.rules[name])
        rx, _ = self.alternation(toks, 0, depth, top)
        return rx

    def alternation(self, toks, i, depth, top):
        alts = []
        while True:
            rx, i = self.concatenation(toks, i, depth, top)
            alts.append(rx)
            if i < len(toks) and toks[i] == ("op", "/"):
                i += 1
                continue
            return "(?:" + "|".join(alts) + ")", i

    def concatenation(self, toks, i, depth, top):
        parts = []
        while i < len(toks) and toks[i] not in (("op", "/"), ("op", ")")):
            lo, hi = 1, 1
            if toks[i][0] == "rep":
                r = toks[i][1]
                if "*" in r:
                    a, b = r.split("*")
                    lo, hi = int(a or 0), (int(b) if b else None)
                else:
                    lo = hi = int(r)
                i += 1
            kind, val = toks[i]
            i += 1
            if kind == "name" and val in self.seen \
                    and i < len(toks) and toks[i] == ("name", "OCTET"):
                # `len OCTET`: as many octets as the earlier len said
                i += 1
                self.counts.append(val)
                parts.append("(?P<n_%s>[\\x00-\\xff]*)" % val.replace("-", "_"))
                continue
            if kind == "str":
                el = re.escape(val[1:-1].encode()).decode("latin-1")
            elif kind == "hex":
                a, _, b = val[2:].partition("-")
                el = ("[\\x%02x-\\x%02x]" % (int(a, 16), int(b, 16)) if b
                      else "\\x%02x" % int(a, 16))
            elif kind == "name":
                el = self.regex(val, depth + 1)
                if top and val not in self.seen:
                    self.seen.append(val)
                    el = "(?P<v_%s>%s)" % (val.replace("-", "_"), el)
            elif val == "(":
                el, i = self.alternation(toks, i, depth, top)
                if toks[i] != ("op", ")"):
                    sys.exit("abnf.py: ( without )")
                i += 1
            else:
                sys.exit("abnf.py: unexpected %s" % val)
            parts.append("(?:%s){%d,%s}" % (el, lo, "" if hi is None else hi))
        return "".join(parts), i


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: abnf.py GRAMMAR < TEXT")
    with open(sys.argv[1], encoding="utf-8") as f:
        rules, order = rules_of(f.read())
    if not order:
        sys.exit("abnf.py: no rule in %s" % sys.argv[1])
    g = Grammar(rules)
    rx = re.compile(("^" + g.regex(order[0], top=True) + "$").encode("latin-1"), re.S)
    n = 0
    for line in sys.stdin.buffer:
        n += 1
        m = rx.match(line)
        bad = None
        if not m:
            bad = "is not a %s" % order[0]
        for c in g.counts:
            if m and len(m.group("n_" + c.replace("-", "_"))) != int(m.group("v_" + c.replace("-", "_"))):
                bad = "its %s says %s octets, %d follow" % (
                    c, m.group("v_" + c.replace("-", "_")).decode(),
                    len(m.group("n_" + c.replace("-", "_"))))
        if bad:
            print("line %d %s: %s" % (n, bad, line[:160].decode("utf-8", "replace")))
            return 1
    if n == 0:
        print("no text to check")
        return 1
    print("%d lines, each a %s" % (n, order[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
