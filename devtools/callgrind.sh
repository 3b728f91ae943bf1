#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Instructions (callgrind Ir) per operation of the ndk-perf client's
# measured loop (bw_run_client, inclusive), against a native server over
# net_memif. Ir do not depend on the machine's load, unlike the bench.
# SIDE=server valgrinds the server instead (everything under swr_poll, the
# responder) against a native client; give a long ACK timeout (-u 22) so
# the native client does not retransmit to the slow server. With
# COLLECT=bw_run_server a SEND server's whole receive loop is collected
# (its CQ polls and receive re-posts too).
#
#   devtools/callgrind.sh "write_bw -s 64 -n 200000" [OUT]
#   devtools/callgrind.sh "write_bw -s 65536 -m 4096 -n 2000"
#
# Prints Ir per op of bw_run_client and of the top functions under it
# (inclusive), and leaves callgrind.out in OUT (default /tmp/ndk-cg-<pid>).
# A function callgrind lists twice (code inlined from another file: one
# line with its object, one without) counts by its largest line, its
# whole inclusive cost.
# Polls that find nothing (the native server descheduled on a loaded
# machine) add Ir, never remove them: the script runs RUNS times (3) and
# keeps the run with the fewest Ir per op. CG_OPTS adds valgrind options
# (CG_OPTS=--cache-sim=yes: then callgrind_annotate --show=Ir,D1mr,DLmr
# OUT/callgrind.out for the simulated cache misses).
# Both memif ends take BSIZE-byte buffers (8192: a frame at path MTU 4096
# in one buffer, which this DPDK's memif needs to carry it intact and
# swroce to send payloads zero-copy from their region).
# ZC=1 puts the client's memif in zero-copy mode (zero-copy=yes with
# --single-file-segments), as bench.sh's memif-zc set-up.
# The client runs on --no-huge memory under valgrind; valgrind's CPU has
# no VPCLMULQDQ, so the CRC runs on its 128-bit PCLMULQDQ path there (in
# AVX's encoding: pclmul-avx-4x128).
set -eu
ARGS=$1
OUT=${2:-/tmp/ndk-cg-$$}
BUILD=${BUILD:-build}
PERF=$BUILD/app/ndk-perf/ndk-perf
SOCK=$OUT/memif.sock
PORT=$((20000 + $$ % 1000))
EAL="--no-pci --log-level=lib.eal:error --log-level=pmd.net.memif:error"
mkdir -p "$OUT"
rm -f "$SOCK"
ITERS=$(echo "$ARGS" | sed -n 's/.*-n \([0-9]*\).*/\1/p')
[ -n "$ITERS" ] || { echo "callgrind.sh: give -n ITERS" >&2; exit 1; }

SPID=""
cleanup() { [ -n "$SPID" ] && kill "$SPID" 2>/dev/null; rm -f "$SOCK"; }
trap cleanup EXIT

RUNS=${RUNS:-3}
BSIZE=${BSIZE:-8192}
CZC="" CSEG=""
if [ "${ZC:-0}" = 1 ]; then
	CZC=",zero-copy=yes" CSEG="--single-file-segments"
fi
SIDE=${SIDE:-client}
# The valgrinded side runs on --no-huge memory, the other on hugepages.
CG_MEM="--no-huge -m 512 --file-prefix=cg$$"
NATIVE_MEM="--in-memory"
if [ "$SIDE" = server ]; then
	# The server's work is all in its polls; COLLECT=bw_run_server takes
	# a SEND receiver's whole loop (its CQ polls and receive re-posts).
	COLLECT=${COLLECT:-swr_poll}
	SUB=none
else
	COLLECT=bw_run_client
	SUB=perf_bw_compute
fi
best=""
for run in $(seq "$RUNS"); do
	VG="valgrind --tool=callgrind --callgrind-out-file=$OUT/callgrind.out.$run --toggle-collect=$COLLECT ${CG_OPTS:-}"
	SPRE="" SMEM=$NATIVE_MEM CPRE=$VG CMEM=$CG_MEM
	if [ "$SIDE" = server ]; then
		SPRE=$VG SMEM=$CG_MEM CPRE="" CMEM=$NATIVE_MEM
	fi
	# shellcheck disable=SC2086
	timeout 900 $SPRE $PERF -l 0 $EAL $SMEM \
		--vdev net_memif0,role=server,socket=$SOCK,socket-abstract=no,mac=02:00:00:00:00:01,bsize=$BSIZE \
		-- $ARGS --ip 10.0.0.1 --peer-mac 02:00:00:00:00:02 -p $PORT \
		>"$OUT/server.log" 2>&1 &
	SPID=$!
	for _ in $(seq 1200); do
		ss -ltn 2>/dev/null | grep -q ":$PORT " && break
		sleep 0.05
	done
	# shellcheck disable=SC2086
	timeout 900 $CPRE $PERF -l 1 $EAL $CMEM $CSEG \
		--vdev net_memif0,role=client,socket=$SOCK,socket-abstract=no,mac=02:00:00:00:00:02,bsize=$BSIZE$CZC \
		-- $ARGS --ip 10.0.0.2 --peer-mac 02:00:00:00:00:01 -p $PORT 127.0.0.1 \
		>"$OUT/client.log" 2>&1
	wait "$SPID" || true
	SPID=""
	ir=$(callgrind_annotate --inclusive=yes "$OUT/callgrind.out.$run" 2>/dev/null |
		awk -v c="$COLLECT" -v s="$SUB" '
		     $0 ~ (":" c "( \\[|$)") { v = $1; gsub(",", "", v); if (v + 0 > a) a = v + 0 }
		     $0 ~ (":" s "( \\[|$)") { v = $1; gsub(",", "", v); if (v + 0 > b) b = v + 0 }
		     END { printf "%.0f\n", a - b }')
	echo "run $run: $ir Ir in the data path" >&2
	if [ -z "$best" ] || [ "$ir" -lt "$bestir" ]; then
		best=$run
		bestir=$ir
	fi
done
cp "$OUT/callgrind.out.$best" "$OUT/callgrind.out"
echo "# $ARGS, $SIDE: Ir per op (inclusive), $ITERS ops; data path ="
echo "# $COLLECT minus $SUB"
callgrind_annotate --inclusive=yes "$OUT/callgrind.out" 2>/dev/null |
	awk -v n="$ITERS" -v c="$COLLECT" -v s="$SUB" '/^ *[0-9,]+ \(.*\)  .*:/ {
		v = $1; gsub(",", "", v); f = $0; sub(/^.*:/, "", f)
		sub(/ \[.*/, "", f)
		if (f in seen) next
		seen[f] = 1; ir[f] = v + 0; order[++k] = f }
	END {
		dp = ir[c] - ir[s]
		printf "%10.1f data path\n", dp / n
		for (i = 1; i <= k; i++) {
			f = order[i]
			if (f ~ /^(main|perf_bw_run|bw_run_client|bw_run_server|bw_send_flow|perf_bw_compute|0x0*1ab70|\(below main\))$/ || f == c)
				continue
			if (ir[f] / n >= 5 && ir[f] < ir[c])
				printf "%10.1f %s\n", ir[f] / n, f
		}
	}' | head -40
