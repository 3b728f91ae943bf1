#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Header boundaries, checked the way the build keeps them.

Every header of the tree has an audience, decided by where it lives:

  public      lib/ndk/include/,       what applications include (installed)
              lib/nvmf/include/
  provider    lib/ndk/provider/,      what a provider implements against,
              lib/roce/, lib/netem/,  the wire format and link tools, and
              drivers/*/include/      each driver's export for its peers
  private     drivers/<d>/ (the rest) that driver's own
              app/<a>/, test/...      that program's or suite's own

Two checks, each a failure when broken:
 1. every header compiles alone (cc -fsyntax-only) with only the include
    folders its audience may see;
 2. every #include "x.h" in lib/, drivers/, app/, test/ and examples/ names
    a header its file may use: public headers include public ones only;
    a driver uses public, provider and its own headers (its white-box
    tests in drivers/<d>/test also the harness, test/common); an application
    public, provider, app/common and its own (its white-box tests in
    app/<a>/test also test/common and test/fuzz); a test also test/common
    and lib/nvmf's private headers (that library's white-box unit tests);
    an example public ones only.

  devtools/chkincs.py [--cc CC] [--no-compile]

Prints one line per violation and "chkincs: N passed, N failed" last.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), '..'))
SCANNED = ('lib', 'drivers', 'app', 'test', 'examples')
PUBLIC = ['lib/ndk/include', 'lib/nvmf/include']
# Libraries whose private headers the tests may use (white-box unit tests).
TESTED_LIBS = ['lib/nvmf']
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
INDIRECT_RE = re.compile(r'#\s*error\s+"include (\S+), not ')


def rel(p):
    return os.path.relpath(p, ROOT)


def walk(ext):
    for top in SCANNED:
        for d, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [x for x in dirs if x != 'build']
            for f in sorted(files):
                if f.endswith(ext):
                    yield rel(os.path.join(d, f))


def provider_dirs():
    dirs = ['lib/ndk/provider', 'lib/roce', 'lib/netem']
    drv = os.path.join(ROOT, 'drivers')
    for d in sorted(os.listdir(drv)):
        inc = os.path.join('drivers', d, 'include')
        if os.path.isdir(os.path.join(ROOT, inc)):
            dirs.append(inc)
    return dirs


def dirs_under(top):
    out = []
    for d, dirs, _ in os.walk(os.path.join(ROOT, top)):
        dirs[:] = [x for x in dirs if x != 'build']
        out.append(rel(d))
    return sorted(out)


def owner(path):
    """The unit a file belongs to: 'public', 'provider', or a folder."""
    parts = path.split('/')
    if any(path.startswith(p + '/') for p in PUBLIC):
        return 'public'
    if path.startswith('lib/ndk/provider/'):
        return 'provider'
    if parts[0] == 'lib':
        return 'lib/' + parts[1]
    if parts[0] == 'drivers':
        if len(parts) > 3 and parts[2] == 'include':
            return 'provider'
        return 'drivers/' + parts[1]
    if parts[0] in ('app', 'examples'):
        return parts[0] + '/' + parts[1]
    if parts[0] == 'test':
        return 'test/' + parts[1]
    return parts[0]


def allowed_dirs(path):
    """Include folders a file at @path may see."""
    o = owner(path)
    prov = provider_dirs()
    if o == 'public' or o.startswith('examples/'):
        return PUBLIC + ([os.path.dirname(path)] if o != 'public' else [])
    if o == 'provider':
        return PUBLIC + prov
    if o.startswith('lib/'):
        return PUBLIC + prov + dirs_under(o)
    if o.startswith('drivers/'):
        # A driver's white-box tests (drivers/<d>/test) use the harness.
        extra = ['test/common'] if path.startswith(o + '/test/') else []
        return PUBLIC + prov + dirs_under(o) + extra
    if o.startswith('app/'):
        # A program's white-box tests (app/<a>/test: ndk-roced's fuzz
        # targets) use the harness and the fuzz targets' common part.
        extra = ['test/common', 'test/fuzz'] \
            if path.startswith(o + '/test/') else []
        return PUBLIC + prov + ['app/common'] + dirs_under(o) + extra
    if o.startswith('test/'):
        tested = [d for t in TESTED_LIBS for d in dirs_under(t)
                  if d not in PUBLIC]
        return (PUBLIC + prov + ['app/common', 'test/common'] + tested +
                dirs_under(o))
    return PUBLIC


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cc', default=os.environ.get('CC', 'cc'))
    ap.add_argument('--no-compile', action='store_true')
    args = ap.parse_args()

    headers = list(walk('.h'))
    by_name = {}
    passed = failed = 0

    def bad(msg):
        nonlocal failed
        failed += 1
        print('chkincs: ' + msg)

    for h in headers:
        by_name.setdefault(os.path.basename(h), []).append(h)
    for name, paths in sorted(by_name.items()):
        if len(paths) > 1:
            bad('header name %s is not unique: %s' % (name, ' '.join(paths)))

    # 2. every quoted include names a header its file may use
    for src in list(walk('.c')) + headers:
        text = open(os.path.join(ROOT, src), errors='replace').read()
        ok_dirs = set(allowed_dirs(src)) | {os.path.dirname(src)}
        for inc in INCLUDE_RE.findall(text):
            name = os.path.basename(inc)
            targets = by_name.get(name)
            if not targets:
                continue        # generated or system header in quotes
            tdir = os.path.dirname(targets[0])
            if tdir in ok_dirs:
                passed += 1
            else:
                bad('%s includes %s (%s): across a boundary'
                    % (src, inc, targets[0]))

    # 1. every header compiles alone with its audience's include folders
    if not args.no_compile:
        dpdk = subprocess.run(['pkg-config', '--cflags', 'libdpdk'],
                              capture_output=True, text=True, check=True)
        base = shlex.split(dpdk.stdout) + ['-std=c11', '-D_GNU_SOURCE',
                                           '-DALLOW_EXPERIMENTAL_API']
        with tempfile.TemporaryDirectory() as tmp:
            for h in headers:
                # An indirect header (#error "include ndk.h, not x.h")
                # compiles as part of the header it names.
                text = open(os.path.join(ROOT, h)).read()
                m = INDIRECT_RE.search(text)
                if m:
                    h = by_name[m.group(1)][0]
                c = os.path.join(tmp, 'one.c')
                with open(c, 'w') as f:
                    f.write('#include "%s"\n' % os.path.basename(h))
                inc = []
                for d in [os.path.dirname(h)] + allowed_dirs(h):
                    inc += ['-I', os.path.join(ROOT, d)]
                r = subprocess.run([args.cc, '-fsyntax-only', '-Wall',
                                    '-Werror=implicit-function-declaration']
                                   + base + inc + [c],
                                   capture_output=True, text=True)
                if r.returncode == 0:
                    passed += 1
                else:
                    errs = [l for l in r.stderr.splitlines()
                            if 'error' in l] or ['?']
                    first = errs[0].replace(tmp + '/', '')
                    bad('%s does not compile alone: %s' % (h, first))

    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
