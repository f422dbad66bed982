#!/usr/bin/env python3
# layers.py - TAP: libjobtree's wings and the ledger's layers run one way
# (HACKING.md, "The wings of src/lib").
#
# Two graphs over src/lib, each checked against the same table below:
#  - includes: every #include "..." of src/lib/**/*.[ch] and of the public
#    headers (include/jobtree/*.h), resolved as the compiler does (the
#    file's own folder, then src/lib, then include/);
#  - calls: every jt_ symbol an object of the built library uses, resolved
#    to the object that defines it (nm over $JT_BUILDDIR/src/lib/**/*.o, one
#    object per source file of src/lib; skipped when there is no build).
# A file of a wing may use its own wing and the wings ALLOWED lists; inside
# the ledger a file may use its own layer and the layers below it; and no
# two files of the ledger reach each other (no circle), whatever their
# layers.
#
#   tests/lib/layers.py                 TAP (make check)
#   tests/lib/layers.py --report        files per folder, back edges,
#                                       circles, the largest files
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
import os
import re
import subprocess
import sys
from collections import defaultdict

# ---- the table -------------------------------------------------------------

# util: generic tools; policy: the calculus and every decision (the root of
# src/lib); ledger: the record of decisions, which replays and verifies them
# with the policy's own rules (Cover's payer, the activation lottery); sim:
# the simulator, which drives the policy. Nothing uses sim or the ledger
# from below; sim and the ledger never use each other.
ALLOWED = {
    'util': {'util'},
    'policy': {'policy', 'util'},
    'ledger': {'ledger', 'policy', 'util'},
    'sim': {'sim', 'policy', 'util'},
    'umbrella': {'umbrella', 'util', 'policy', 'ledger', 'sim'},
}

# include/jobtree/*.h not listed here are the policy's; jobtree.h is the
# umbrella for programs outside the library and nothing inside includes it.
PUBLIC = {
    'error.h': 'util', 'map.h': 'util', 'readfile.h': 'util',
    'jsonloc.h': 'util', 'timeutil.h': 'util', 'libc_tune.h': 'util',
    'ledger.h': 'ledger', 'ledger_checkpoint.h': 'ledger',
    'ledger_client.h': 'ledger', 'ledger_lease.h': 'ledger',
    'ledger_sink.h': 'ledger',
    'sim.h': 'sim',
    'jobtree.h': 'umbrella',
}

# The ledger's layers, bottom first (file names without src/lib/ledger/).
# Its public headers (jobtree/ledger*.h) declare every layer's functions,
# so the call graph is what holds a layer to its place; the private
# headers belong to the layer that defines what they declare.
LEDGER_LAYERS = [
    ('record', ['ledger_record.c', 'ledger_record.h', 'ledger_reader.c',
                'ledger_writer.c', 'ledger_conn.c', 'ledger_conn.h']),
    ('codec', ['ledger_codec.h', 'ledger_event_activation.c',
               'ledger_event_checkpoint.c']),
    ('event', ['ledger_event.c', 'ledger_event_json.c',
               'ledger_event_int.h']),
    ('built', ['ledger_activation.c', 'ledger_lease.c',
               'ledger_client.c']),
    ('time', ['ledger_fold_times.h', 'ledger_fold_time.c']),
    ('rules', ['ledger_fold_rules.c']),
    ('fold', ['ledger_fold.h', 'ledger_fold.c', 'ledger_fold_activation.c',
              'ledger_fold_query.c', 'ledger_fold_report.c']),
    ('checkpoint', ['ledger_checkpoint_int.h', 'ledger_checkpoint.c',
                    'ledger_checkpoint_restore.c', 'ledger_checkpoint_read.c']),
    ('replay', ['ledger_fold_replay.c']),
    ('sink', ['ledger_sink.c']),
]
LEVEL = {f: i for i, (_, fs) in enumerate(LEDGER_LAYERS) for f in fs}
LAYER_NAME = [n for n, _ in LEDGER_LAYERS]

WING_DIRS = {'util': 'util', 'ledger': 'ledger', 'sim': 'sim'}

# ---- the tree ---------------------------------------------------------------

top = os.environ.get('JT_SRCDIR') or os.path.join(os.path.dirname(
    os.path.abspath(__file__)), '..', '..')
top = os.path.abspath(top)
build = os.environ.get('JT_BUILDDIR')
lib = os.path.join(top, 'src', 'lib')
inc = os.path.join(top, 'include')


def rel(p):
    return os.path.relpath(p, top)


def wing_of(path):
    """The wing of a file of src/lib or include/jobtree (a path from top)."""
    parts = path.split('/')
    if parts[0] == 'include':
        return PUBLIC.get(parts[-1], 'policy')
    if len(parts) == 3:                 # src/lib/x.c
        return 'policy'
    return {v: k for k, v in WING_DIRS.items()}.get(parts[2], '?' + parts[2])


def level_of(path):
    """The ledger layer of a file of src/lib/ledger, None elsewhere."""
    parts = path.split('/')
    if parts[:3] != ['src', 'lib', 'ledger']:
        return None
    return LEVEL.get(parts[-1], -1)


def sources():
    out = []
    for d, _, fs in os.walk(lib):
        for f in fs:
            if f.endswith(('.c', '.h')):
                out.append(rel(os.path.join(d, f)))
    for f in os.listdir(os.path.join(inc, 'jobtree')):
        if f.endswith('.h'):
            out.append(rel(os.path.join(inc, 'jobtree', f)))
    return sorted(out)


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(path):
    """(line, target path) of each quoted include that resolves in the tree."""
    text = open(os.path.join(top, path), encoding='utf-8').read()
    here = os.path.dirname(os.path.join(top, path))
    for m in INCLUDE.finditer(text):
        name = m.group(1)
        line = text.count('\n', 0, m.start()) + 1
        for d in (here, lib, inc):
            p = os.path.normpath(os.path.join(d, name))
            if os.path.isfile(p):
                yield line, rel(p)
                break


def include_edges(files):
    edges = []
    for f in files:
        for line, t in includes(f):
            if t != f and (t.startswith('src/lib/') or t.startswith('include/')):
                edges.append((f, t, '%s:%d' % (f, line)))
    return edges


def objects():
    """{source .c: object path} for the built library, or None."""
    if not build:
        return None
    out = {}
    for f in sources():
        if not f.endswith('.c') or not f.startswith('src/lib/'):
            continue
        o = os.path.join(build, f[:-2] + '.o')
        if not os.path.isfile(o):
            return None
        out[f] = o
    return out


def call_edges(objs):
    defs, uses = {}, defaultdict(set)
    for src, o in objs.items():
        r = subprocess.run(['nm', '-P', o], capture_output=True, text=True,
                           check=True)
        for ln in r.stdout.splitlines():
            p = ln.split()
            if len(p) < 2 or not p[0].startswith('jt_'):
                continue
            if p[1] == 'U':
                uses[src].add(p[0])
            elif p[1] in 'TDBRCVW':
                defs[p[0]] = src
    edges = []
    for src, syms in uses.items():
        for s in sorted(syms):
            d = defs.get(s)
            if d and d != src:
                edges.append((src, d, '%s calls %s (%s)' % (src, s, d)))
    return edges


# ---- the rules --------------------------------------------------------------

def wrong_way(edges):
    """Edges that break the table: (where, why)."""
    bad = []
    for a, b, where in edges:
        wa, wb = wing_of(a), wing_of(b)
        if wa.startswith('?') or wb.startswith('?'):
            bad.append((where, 'a folder of src/lib with no wing in the table'))
        elif wb == 'umbrella':
            bad.append((where, 'jobtree.h is for programs outside the library'))
        elif wb not in ALLOWED.get(wa, ()):
            bad.append((where, 'the %s wing may not use the %s wing' % (wa, wb)))
        la, lb = level_of(a), level_of(b)
        if la == -1 or (lb == -1 and b.startswith('src/')):
            bad.append((where, 'a ledger file with no layer in the table'))
        elif la is not None and lb is not None and lb > la:
            bad.append((where, 'ledger layer %s may not use layer %s above it'
                        % (LAYER_NAME[la], LAYER_NAME[lb])))
    return bad


def header_unit(path):
    """A header and its .c are one file of the graph (x.h -> x.c)."""
    if path.endswith('.h') and path.startswith('src/'):
        c = path[:-2] + '.c'
        if os.path.isfile(os.path.join(top, c)):
            return c
    return path


def circles(edges, keep=lambda p: True, unit=lambda p: p):
    """Strongly connected components of more than one file (Tarjan); unit
    maps a file to the node it counts as (e.g. a header to its .c)."""
    if unit is True:
        unit = header_unit
    elif unit is False:
        unit = lambda p: p
    g = defaultdict(set)
    for a, b, _ in edges:
        a, b = unit(a), unit(b)
        if a != b and keep(a) and keep(b):
            g[a].add(b)
            g.setdefault(b, set())
    index, low, stack, on, out = {}, {}, [], set(), []
    n = [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            c = []
            while True:
                w = stack.pop()
                on.discard(w)
                c.append(w)
                if w == v:
                    break
            if len(c) > 1:
                out.append(sorted(c))
    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


# ---- main -------------------------------------------------------------------

def report():
    files = sources()
    folders = defaultdict(int)
    for f in files:
        if f.endswith('.c') or f.endswith('.h'):
            folders[os.path.dirname(f)] += 1
    print('files per folder:')
    for d in sorted(folders):
        print('  %-22s %d' % (d, folders[d]))
    inc_e = include_edges(files)
    objs = objects()
    call_e = call_edges(objs) if objs else []
    for name, e in (('includes', inc_e), ('calls', call_e)):
        bad = wrong_way(e)
        print('%s: %d edges, %d back edges' % (name, len(e), len(bad)))
        for where, why in bad:
            print('  %s: %s' % (where, why))
    for name, e, u in (('calls', call_e, False), ('includes', inc_e, False),
                       ('includes and calls, a private header one with its .c',
                        inc_e + call_e, True)):
        allc = circles(e, unit=u)
        print('circles (%s): %d' % (name, len(allc)))
        for c in allc:
            print('  ' + ' <-> '.join(c))
    sizes = []
    for f in files:
        if f.endswith('.c'):
            sizes.append((sum(1 for _ in open(os.path.join(top, f))), f))
    print('largest files of src/lib:')
    for n, f in sorted(sizes, reverse=True)[:10]:
        print('  %5d %s' % (n, f))


def tap():
    files = sources()
    n = 0
    fail = 0

    def ok(cond, msg, diags=()):
        nonlocal n, fail
        n += 1
        print('%s %d - %s' % ('ok' if cond else 'not ok', n, msg))
        for d in diags:
            print('# ' + d)
        if not cond:
            fail += 1

    unknown = [f for f in files if f.startswith('src/lib/')
               and (wing_of(f).startswith('?') or level_of(f) == -1)]
    ok(not unknown, 'every file of src/lib has a wing (and in the ledger a layer)',
       ['no place in tests/lib/layers.py: ' + f for f in unknown])
    inc_e = include_edges(files)
    bad = wrong_way(inc_e)
    ok(not bad, 'includes run one way: wings and ledger layers (%d includes)'
       % len(inc_e), ['%s: %s' % b for b in bad])
    objs = objects()
    if objs is None:
        n += 1
        print('ok %d # SKIP no built library (JT_BUILDDIR unset or not built)' % n)
        n += 1
        print('ok %d # SKIP no built library' % n)
        call_e = []
    else:
        call_e = call_edges(objs)
        bad = wrong_way(call_e)
        ok(not bad, 'calls run one way: wings and ledger layers (%d calls between files)'
           % len(call_e), ['%s: %s' % b for b in bad])
        c = circles(call_e, lambda p: level_of(p) is not None)
        ok(not c, 'no circle of calls inside the ledger',
           [' <-> '.join(x) for x in c])
    c = circles(inc_e, lambda p: level_of(p) is not None)
    ok(not c, 'no circle of includes inside the ledger', [' <-> '.join(x) for x in c])
    print('1..%d' % n)
    return 1 if fail else 0


if __name__ == '__main__':
    if sys.argv[1:] == ['--report']:
        report()
        sys.exit(0)
    sys.exit(tap())
