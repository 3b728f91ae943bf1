#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run a libFuzzer target of test/fuzz (doc/testing.md).
#
#   bash devtools/fuzz.sh TARGET [seconds]   fuzz for a time (default 60)
#   bash devtools/fuzz.sh --runs N [TARGET...]  N inputs each (CI; default
#                                            every target)
#
# TARGET: packet (parser, ICRC, CM MADs), rx (responder/completer of a live
# QP pair), config (ndk-roced's configuration), attach (the attach
# protocol's requests). Builds build-fuzz/ with clang, libFuzzer, ASan and
# UBSan on first use. The corpus grows in build-fuzz/corpus/TARGET (seeded
# from test/data and config/, plus test/fuzz/regress/TARGET); a failing
# input is written to build-fuzz/crashes/TARGET-*: fix the bug and add the
# input to test/fuzz/regress/TARGET, which the unit suite replays.
# Ends with "fuzz: N passed, N failed" (targets).
set -uo pipefail
cd "$(dirname "$0")/.."
B=${NDK_FUZZ_BUILD:-build-fuzz}
ALL="packet rx config attach"

runs=""
if [ "${1:-}" = --runs ]; then
	runs=${2:?--runs needs a number}
	shift 2
	targets=${*:-$ALL}
else
	targets=${1:?usage: fuzz.sh TARGET [seconds] | --runs N [TARGET...]}
	secs=${2:-60}
fi
for t in $targets; do
	case " $ALL " in
	*" $t "*) ;;
	*) echo "fuzz.sh: no target '$t' ($ALL)" >&2; exit 2 ;;
	esac
done

if [ ! -f "$B/build.ninja" ]; then
	CC=clang meson setup "$B" --buildtype=debugoptimized -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false || exit 1
fi
ninja -C "$B" test/fuzz/seeds $(for t in $targets; do
	echo "test/fuzz/fuzz-$t"; done) >/dev/null || exit 1

export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
mkdir -p "$B/crashes"
pass=0 fail=0
for t in $targets; do
	regress=test/fuzz/regress/$t
	if [ -n "$runs" ]; then
		# A scratch corpus: the same seeds and inputs on every CI run.
		corpus=$(mktemp -d)
		limit=(-runs="$runs" -seed=1)
	else
		corpus=$B/corpus/$t
		mkdir -p "$corpus"
		limit=(-max_total_time="$secs")
	fi
	if [ -n "$runs" ]; then
		echo "== fuzz $t: $runs inputs"
	else
		echo "== fuzz $t: $secs s"
	fi
	# -close_fd_mask=2: the targets' own stderr (every refused config
	# says why) is silenced; libFuzzer and the sanitizers still report.
	"$B/test/fuzz/fuzz-$t" "${limit[@]}" -close_fd_mask=2 \
		-print_final_stats=1 -artifact_prefix="$B/crashes/$t-" \
		"$corpus" "$B/test/fuzz/seeds/$t" "$regress" \
		> "$B/fuzz-$t.log" 2>&1
	rc=$?
	grep -E "^#[0-9]+.(INITED|DONE)|stat::number_of_executed_units" \
		"$B/fuzz-$t.log" | sed 's/^/   /'
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "   FAILED (exit $rc): $B/fuzz-$t.log, input in $B/crashes/"
		grep -E "ERROR|SUMMARY|FUZZ CHECK" "$B/fuzz-$t.log" | head -5
	fi
	[ -n "$runs" ] && rm -rf "$corpus"
done
echo "fuzz: $pass passed, $fail failed"
[ $fail -eq 0 ]
