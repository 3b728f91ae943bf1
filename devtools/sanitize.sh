#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The unit, functional and daemon suites built with AddressSanitizer,
# UndefinedBehaviorSanitizer and LeakSanitizer (gcc, build-asan/). The first
# report ends the program with a non-zero status, so the test fails.
#
#   bash devtools/sanitize.sh [suite...]  (default: unit functional daemon)
#
# devtools/test.sh (the CI) runs the functional and daemon suites only
# here: each test once, instrumented.
#
# Logs: build-asan/meson-logs/<suite>.txt. doc/testing.md tells more.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${NDK_SAN_BUILD:-build-asan}
SUITES=${*:-unit functional daemon}

if [ ! -f "$B/build.ninja" ]; then
	# -Db_lundef=false: the sanitizers' runtime comes with the
	# executables, so shared objects (libndk.so) keep undefined
	# references to it.
	meson setup "$B" --buildtype=debugoptimized \
		-Db_sanitize=address,undefined -Db_lundef=false || exit 1
fi
# Only what the suites run (not the interop programs, examples and
# benchmarks): the instrumented build is the slow part on 2 CPUs. Meson
# regenerates first if the tree changed, so that the list is today's.
ninja -C "$B" build.ninja >/dev/null || exit 1
targets=$(SUITES="$SUITES" python3 - "$B" <<'PY'
import json, os, subprocess, sys
b = sys.argv[1]
intro = lambda what: json.loads(subprocess.check_output(
    ['meson', 'introspect', b, '--' + what]))
want = set()
for t in intro('tests'):
    if any(s.split(':')[-1] in os.environ['SUITES'].split()
           for s in t['suite']):
        want.update(t['depends'])
for t in intro('targets'):
    if t['id'] in want:
        for f in t['filename']:
            print(os.path.relpath(f, os.path.abspath(b)))
PY
) || exit 1
ninja -C "$B" $targets || exit 1

# halt_on_error: stop at the first report (UBSan otherwise prints and goes
# on). detect_leaks: LeakSanitizer at exit (on by default on x86_64; said
# here so nothing turns it off). devtools/lsan.supp: DPDK's own
# allocations that it never frees, each named and explained there.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:print_summary=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:print_summary=1"
export LSAN_OPTIONS="suppressions=$PWD/devtools/lsan.supp:print_suppressions=0"

rc=0
for s in $SUITES; do
	np=1
	[ "$s" = unit ] && np=2
	# Instrumented code runs 2-3 times slower: the same timeouts, tripled.
	meson test -C "$B" --no-rebuild --suite "$s" \
		--print-errorlogs \
		--num-processes "$np" --timeout-multiplier 3 \
		--logbase "$s" || rc=1
done
exit $rc
