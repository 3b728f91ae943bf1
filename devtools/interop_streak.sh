#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run the interop suite N times in a row as CI runs it (devtools/test.sh:
# `meson test --suite interop --num-processes 1` with the matrix of
# devtools/interop_matrix.sh), keep what each run left, and print a table.
#
#   bash devtools/interop_streak.sh [-b BUILD] [--until HH:MM] N
#
# BUILD (default build) is built first, then each run uses it as it is
# (--no-rebuild): a run records the commit it ran on, "+dirty" when tracked
# files differed from it. Run k (numbered on from the runs already in
# BUILD/interop-runs/) keeps in BUILD/interop-runs/k/: meson.out (the
# runner's output), the meson test log (interop-run<k>.txt/.json), load.txt
# (/proc/loadavg every 30 s) and, per test work dir, its logs/, pcap/ and
# top-level logs. After each run a line goes to BUILD/interop-runs/table.txt:
# run, commit, start (UTC), duration, load (1-min average: mean and maximum
# of the samples), result, and each test's result and seconds. The table
# and the longest green streak are printed at the end.
#
# No run starts once BUILD/interop-runs/stop exists, nor (--until) when the
# longest run so far would end after HH:MM UTC. Exits 1 if a run failed.
# The caller's environment goes to the runners (NS, NDK_INTEROP_IMAGE, ...;
# test/interop/README.md): set NS when another tree runs the suite too.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
B=build
until_s=
while [ $# -gt 1 ]; do
	case $1 in
	-b) B=$2; shift 2 ;;
	--until) until_s=$(date -u -d "$2" +%s) || exit 2; shift 2 ;;
	*) break ;;
	esac
done
N=${1:?usage: interop_streak.sh [-b BUILD] [--until HH:MM] N}
K=$B/interop-runs
mkdir -p "$K"
# shellcheck source=devtools/interop_matrix.sh
. devtools/interop_matrix.sh
ninja -C "$B" >"$K/ninja.log" 2>&1 || {
	echo "interop_streak: build failed ($K/ninja.log)"
	exit 1
}

last=0
for d in "$K"/*/; do
	d=$(basename "$d")
	[[ $d =~ ^[0-9]+$ ]] && [ "$d" -gt "$last" ] && last=$d
done
rc_all=0
for ((i = last + 1; i <= last + N; i++)); do
	[ -e "$K/stop" ] && { echo "interop_streak: $K/stop: stopped"; break; }
	if [ -n "$until_s" ]; then
		need=$(awk '{ if ($4 + 0 > m) m = $4 + 0 } END { print m + 0 }' \
			"$K/table.txt" 2>/dev/null || echo 0)
		if [ $(($(date +%s) + need)) -gt "$until_s" ]; then
			echo "interop_streak: a run of ${need} s would end after" \
				"$(date -u -d "@$until_s" +%H:%M): stopped"
			break
		fi
	fi
	R=$K/$i
	mkdir -p "$R"
	commit=$(git rev-parse --short HEAD)
	git diff --quiet HEAD -- 2>/dev/null || commit=$commit+dirty
	t0=$(date +%s)
	(while :; do
		echo "$(date -u +%T) $(cut -d' ' -f1-3 /proc/loadavg)"
		sleep 30
	done) >"$R/load.txt" &
	sampler=$!
	meson test -C "$B" --suite interop --print-errorlogs --num-processes 1 \
		--no-rebuild --logbase "interop-run$i" >"$R/meson.out" 2>&1
	rc=$?
	kill "$sampler" 2>/dev/null
	wait "$sampler" 2>/dev/null
	t1=$(date +%s)
	[ "$rc" = 0 ] || rc_all=1
	cp "$B/meson-logs/interop-run$i".* "$R/" 2>/dev/null
	for d in "$B"/interop/*/; do
		n=$(basename "$d")
		case $n in guests | image | bin) continue ;; esac
		[ -d "$d/logs" ] || continue
		mkdir -p "$R/$n"
		cp -a "$d/logs" "$R/$n/" 2>/dev/null
		cp -a "$d/pcap" "$R/$n/" 2>/dev/null
		cp -a "$d"/*.log "$R/$n/" 2>/dev/null
	done
	python3 - "$R/interop-run$i.json" "$i" "$commit" "$t0" "$t1" "$rc" \
		"$R/load.txt" >>"$K/table.txt" <<'PY'
import json, sys, time
log, run, commit, t0, t1, rc, load = sys.argv[1:]
tests = []
try:
    for line in open(log):
        t = json.loads(line)
        tests.append('%s=%s(%d)' % (t['name'].split('/')[-1].strip(),
                                    t['result'], t['duration']))
except OSError:
    tests.append('no-test-log')
loads = [float(l.split()[1]) for l in open(load) if len(l.split()) > 1]
ok = rc == '0' and tests and all('=OK(' in t or '=SKIP(' in t
                                 for t in tests)
print('%s %s %s %d load=%.1f/%.1f %s %s' % (
    run, commit, time.strftime('%H:%M', time.gmtime(int(t0))),
    int(t1) - int(t0), sum(loads) / max(1, len(loads)), max(loads or [0]),
    'GREEN' if ok else 'RED(rc=%s)' % rc, ' '.join(tests)))
PY
	tail -n 1 "$K/table.txt"
done

echo "run commit start seconds load(mean/max) result tests"
cat "$K/table.txt"
awk '$6 == "GREEN" { if (c == "" || $2 == c) n++; else n = 1; c = $2 }
	$6 != "GREEN" { n = 0; c = "" }
	n > m { m = n; at = c }
	END { printf "longest green streak: %d (on %s)\n", m, at ? at : "-" }' \
	"$K/table.txt"
exit $rc_all
