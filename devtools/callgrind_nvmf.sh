#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Instructions (callgrind Ir) per I/O of NVMe-oF over memif (bsize=8192),
# as devtools/callgrind.sh does for ndk-perf: one side under callgrind,
# the other native. Ir do not depend on the machine's load.
#
#   SIDE=host (default): ndk-nvmf-perf under callgrind, collecting its
#     poll loop (poll_all: the adapter poll, the queue polls and every
#     completion callback with the next submission), against a native
#     ndk-nvmf-tgt.
#   SIDE=target: ndk-nvmf-tgt under callgrind, collecting
#     ndk_nvmf_tgt_poll (adapter poll, commands, memory namespace copies,
#     responses), against a native ndk-nvmf-perf. The native host's
#     adaptive retransmission may resend to the slow target: the target's
#     rx_duplicate is printed; those frames add Ir. The target polls
#     before the host connects and after it leaves, and its own loop
#     (queue pairs, timers) runs on every poll: give a large -N and read
#     its figure as an upper bound.
#
#   devtools/callgrind_nvmf.sh "-w randread -o 4096 -q 1 -N 20000" [OUT]
#
# Polls that find nothing add Ir: RUNS runs (3), the fewest Ir per I/O
# kept. Prints Ir per I/O of the collected function and of the top
# functions under it (inclusive); leaves callgrind.out in OUT (default
# /tmp/ndk-cgn-<pid>).
set -eu
ARGS=$1
OUT=${2:-/tmp/ndk-cgn-$$}
BUILD=${BUILD:-build}
NTGT=$BUILD/app/ndk-nvmf-tgt/ndk-nvmf-tgt
NPERF=$BUILD/app/ndk-nvmf-perf/ndk-nvmf-perf
SOCK=$OUT/memif.sock
NQN=nqn.2026-11.org.ndk-roce:cg
EAL="--no-pci --log-level=lib.eal:error --log-level=pmd.net.memif:error"
VS="socket=$SOCK,socket-abstract=no,bsize=8192"
mkdir -p "$OUT"
ITERS=$(echo "$ARGS" | sed -n 's/.*-N \([0-9]*\).*/\1/p')
[ -n "$ITERS" ] || { echo "callgrind_nvmf.sh: give -N COUNT" >&2; exit 1; }
cat >"$OUT/tgt.conf" <<EOF
subsystem $NQN allow_any_host
namespace mem:64M bs=4096
listen 10.0.0.1 4420
EOF

TPID=""
cleanup() { [ -n "$TPID" ] && kill "$TPID" 2>/dev/null; rm -f "$SOCK"; }
trap cleanup EXIT

RUNS=${RUNS:-3}
SIDE=${SIDE:-host}
CG_MEM="--no-huge -m 512 --file-prefix=cgn$$"
NATIVE_MEM="--in-memory"
if [ "$SIDE" = target ]; then
	COLLECT=ndk_nvmf_tgt_poll
else
	COLLECT='poll_all*'
fi
best="" bestir=""
for run in $(seq "$RUNS"); do
	VG="valgrind --tool=callgrind --callgrind-out-file=$OUT/callgrind.out.$run --toggle-collect=$COLLECT ${CG_OPTS:-}"
	TPRE="" TMEM=$NATIVE_MEM HPRE=$VG HMEM=$CG_MEM
	if [ "$SIDE" = target ]; then
		TPRE=$VG TMEM=$CG_MEM HPRE="" HMEM=$NATIVE_MEM
	fi
	rm -f "$SOCK"
	# shellcheck disable=SC2086
	timeout 900 $TPRE $NTGT -l 0 $EAL $TMEM \
		--vdev net_memif0,role=server,$VS -- -c "$OUT/tgt.conf" \
		--ip 10.0.0.1 --stats >"$OUT/target.log" 2>&1 &
	TPID=$!
	for _ in $(seq 1800); do
		grep -q '^ndk-nvmf-tgt: ready' "$OUT/target.log" && break
		sleep 0.1
	done
	# shellcheck disable=SC2086
	timeout 900 $HPRE $NPERF -l 1 $EAL $HMEM \
		--vdev net_memif0,role=client,$VS -- -a 10.0.0.1 -n $NQN \
		--ip 10.0.0.2 --stats $ARGS >"$OUT/host.log" 2>&1 || true
	kill -INT "$TPID" 2>/dev/null || true
	wait "$TPID" || true
	TPID=""
	sleep 1 # let valgrind finish its output file
	ir=$(callgrind_annotate --inclusive=yes "$OUT/callgrind.out.$run" 2>/dev/null |
		awk -v c="${COLLECT%\*}" '$0 ~ (":" c "[^ ]* \\[") && a == "" {
			v = $1; gsub(",", "", v); a = v }
		END { printf "%.0f\n", a }')
	echo "run $run: $ir Ir collected; target rx_duplicate" \
		"$(awk '$1 == "rx_duplicate" { print $2 }' "$OUT/target.log")" >&2
	if [ -z "$best" ] || [ "$ir" -lt "$bestir" ]; then
		best=$run
		bestir=$ir
	fi
done
cp "$OUT/callgrind.out.$best" "$OUT/callgrind.out"
echo "# ndk-nvmf-perf $ARGS, $SIDE under callgrind: Ir per I/O (inclusive),"
echo "# $ITERS I/Os, collected: $COLLECT"
callgrind_annotate --inclusive=yes "$OUT/callgrind.out" 2>/dev/null |
	awk -v n="$ITERS" -v tot="$bestir" '/^ *[0-9,]+ .*:.*\[/ {
		v = $1; gsub(",", "", v); f = $0; sub(/^.*:/, "", f)
		sub(/ \[.*/, "", f)
		if (f in seen) next
		seen[f] = 1; ir[f] = v + 0; order[++k] = f }
	END {
		printf "%10.1f collected\n", tot / n
		for (i = 1; i <= k; i++) {
			f = order[i]
			if (ir[f] / n >= 20 && ir[f] < tot)
				printf "%10.1f %s\n", ir[f] / n, f
		}
	}' | head -40
