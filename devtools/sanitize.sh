#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The unit, functional and daemon suites built with AddressSanitizer,
# UndefinedBehaviorSanitizer and LeakSanitizer (gcc, build-asan/). The first
# report ends the program with a non-zero status, so the test fails.
#
#   bash devtools/sanitize.sh [--ci] [suite...]  (default: unit functional
#                                                 daemon)
#
# --ci (devtools/test.sh): the functional suite without its *_2q variants
# and perf, to keep the whole CI run under 30 minutes on 2 CPUs. The _2q
# programs are their one-queue twins over two queues: what differs is QPN
# steering, which multiqueue (run) covers; perf runs ndk-perf between two
# processes over memif (85 s instrumented): the same engines the
# in-process programs drive, and ndk-perf itself runs instrumented,
# attached, in the daemon suite's perf_attached.
#
# Logs: build-asan/meson-logs/<suite>.txt. doc/testing.md tells more.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${NDK_SAN_BUILD:-build-asan}
ci=false
if [ "${1:-}" = --ci ]; then
	ci=true
	shift
fi
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
	sel=()
	if $ci && [ "$s" = functional ]; then
		# By name (within the suite: names repeat across suites):
		# every functional test but perf and the _2q ones.
		mapfile -t sel < <(meson test -C "$B" --no-rebuild --list \
			--suite functional 2>/dev/null |
			sed -n 's|^ndk-roce:functional / ||p' |
			grep -v -e '_2q$' -e '^perf$')
	fi
	# Instrumented code runs 2-3 times slower: the same timeouts, tripled.
	meson test -C "$B" --no-rebuild --suite "$s" "${sel[@]}" \
		--print-errorlogs \
		--num-processes "$np" --timeout-multiplier 3 \
		--logbase "$s" || rc=1
done
exit $rc
