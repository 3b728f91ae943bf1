#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ndk-demo --raw-baseline, briefly: on the in-process net_ring pair, the
# raw-ethdev burst of each operation's frames (every frame's length,
# order and bytes checked with --verify) and then the RoCE run, whose
# data is checked too. Correctness only: speed is never asserted.
#
#   demo_raw.sh /path/to/ndk-demo
#
# Ends with "demo_raw: N passed, N failed"; exits 1 if any failed.

set -u

DEMO=${1:?usage: demo_raw.sh /path/to/ndk-demo}
OUT=$(mktemp /tmp/ndkdemo-raw-$$.XXXX)
trap 'rm -f "$OUT"; rm -rf /var/run/dpdk/ndkdemo-raw-$$ 2>/dev/null' EXIT

free_pages=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages \
	2>/dev/null || echo 0)
if [ "$free_pages" -ge 256 ]; then
	mem="--in-memory"
else
	mem="--no-huge -m 1024 --file-prefix=ndkdemo-raw-$$"
fi

passed=0
failed=0
# shellcheck disable=SC2086
timeout 120 "$DEMO" -l 0-1 --no-pci $mem --log-level=lib.eal:error -- \
	-t 0.2 -m 1024 -s 64,8K --raw-baseline --verify >"$OUT" 2>&1
rc=$?
# For each op and size a checked RoCE row with its ratio, right after its
# raw row (checked too).
for op in WRITE READ SEND; do
	for size in 64 8192; do
		row="^$op +$size +[0-9]+ .* 0 ok +[0-9]+\.[0-9]+$"
		if grep -Eq "$row" "$OUT" && grep -E -B1 "$row" "$OUT" |
		   head -n 1 | grep -Eq "^raw +$size +[0-9]+ .* 0 ok$"; then
			passed=$((passed + 1))
			echo "ok   $op $size B against its raw baseline"
		else
			failed=$((failed + 1))
			echo "FAIL $op $size B against its raw baseline"
		fi
	done
done
if [ "$rc" -eq 0 ] && grep -q '^PASS$' "$OUT"; then
	passed=$((passed + 1))
	echo "ok   ndk-demo exit 0"
else
	failed=$((failed + 1))
	echo "FAIL ndk-demo exit $rc"
fi
[ "$failed" -eq 0 ] || cat "$OUT"
echo "demo_raw: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
