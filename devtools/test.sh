#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build, then run every test suite with meson's runner. Prints a closing
# "N passed, N failed" line and exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$SECONDS
bash devtools/setup.sh || exit 1

rc=0
# timed NAME CMD...: CMD, then "== NAME: N s" (where CI's time goes)
timed() {
	local name=$1 t=$SECONDS r=0
	shift
	"$@" || r=1
	echo "== $name: $((SECONDS - t)) s"
	return $r
}
fuzz_step() {
	bash devtools/fuzz.sh --runs 2000 2>&1 | tee build/fuzz-ci.log
}
soak_step() {
	bash devtools/soak.sh 60 2>&1 | grep -v '^EAL:' | tee build/soak-ci.log
}
echo "== setup and build: $((SECONDS - T0)) s"
# Each run is "<build dir>:<suite>", logged as <build dir>/meson-logs/<suite>.json.
# The functional and daemon suites run once, in the sanitizer build
# (build-asan: the same tests with every memory access checked); the plain
# build's programs face the real peer in the interop suite.
RUNS="build:unit build:install build-asan:unit build-asan:functional"
RUNS="$RUNS build-asan:daemon build:interop"
for r in $RUNS; do rm -f "${r%%:*}/meson-logs/${r#*:}.json"; done
# Unit tests are light: run them in parallel.
timed unit meson test -C build --suite unit --print-errorlogs \
	--num-processes 2 --logbase unit || rc=1
# What an embedder gets: meson install, libndk.pc, an out-of-tree build of
# examples/hello_ndk; and the header boundaries (devtools/chkincs.py).
timed install meson test -C build --suite install --print-errorlogs \
	--num-processes 1 --logbase install || rc=1
# The unit, functional and daemon suites built with AddressSanitizer,
# UndefinedBehaviorSanitizer and LeakSanitizer in build-asan/: the first
# report ends the program (doc/testing.md). The functional suites busy-poll
# lcores, so they run one at a time on this 2-core machine.
timed sanitizers bash devtools/sanitize.sh unit functional daemon || rc=1
# Each libFuzzer target of test/fuzz (clang, build-fuzz/) for a fixed
# number of inputs from its seeds and regression inputs (devtools/fuzz.sh).
rm -f build/fuzz-ci.log build/soak-ci.log
timed fuzz fuzz_step || rc=1
# The soak, briefly: two daemons with lossy, duplicating, reordering links,
# attached applications connecting and closing; counters and memory checked
# at the end (devtools/soak.sh; an hour by default).
timed soak soak_step || rc=1
# Against Linux Soft-RoCE in a QEMU guest (test/interop/README.md): builds
# the guest image on first use (Debian packages only) and boots it under TCG;
# the matrix of devtools/interop_matrix.sh.
. devtools/interop_matrix.sh
timed interop meson test -C build --suite interop --print-errorlogs \
	--num-processes 1 --logbase interop || rc=1
echo "== all: $((SECONDS - T0)) s"

RUNS="$RUNS" python3 - <<'PY'
import json, os, re
p = f = s = 0
for run in os.environ['RUNS'].split():
    bdir, suite = run.split(':')
    log = f'{bdir}/meson-logs/{suite}.json'
    if not os.path.exists(log):
        f += 1
        print(f'{bdir} {suite}: no test log (the suite did not run)')
        continue
    for line in open(log):
        t = json.loads(line)
        r = t.get('result', '')
        # Each program ends with "<suite>: N passed, N failed, N skipped";
        # count its cases, and count the program as failed if it failed
        # without saying so (crash, timeout).
        m = re.findall(r'(\d+) passed, (\d+) failed, (\d+) skipped',
                       t.get('stdout', '') or '')
        if m:
            cp, cf, cs = map(int, m[-1])
            p += cp; f += cf; s += cs
            if r not in ('OK', 'SKIP') and cf == 0:
                f += 1
        elif r == 'OK': p += 1
        elif r == 'SKIP': s += 1
        else: f += 1
# The fuzz step (a case per target) and the soak (a case per check).
for step in ('fuzz', 'soak'):
    log = f'build/{step}-ci.log'
    m = re.findall(rf'^{step}: (\d+) passed, (\d+) failed',
                   open(log).read() if os.path.exists(log) else '', re.M)
    if m:
        p += int(m[-1][0]); f += int(m[-1][1])
    else:
        f += 1
        print(f'{step}: no result (the step did not finish)')
print(f"{p} passed, {f} failed, {s} skipped")
PY
exit $rc
