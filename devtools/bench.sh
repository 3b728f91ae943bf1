#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The figures of doc/performance.md, each next to its raw-ethdev baseline
# from the same run: on memif each run is raw, RoCE, raw (ndk-perf --raw,
# three server/client pairs back to back, judged together: see phases());
# on net_ring ndk-demo --raw-baseline:
#
#   memif    two processes over net_memif on hugepages (--in-memory), one
#            lcore each (-l 0 server, -l 1 client)
#   memif-zc the same with the client's memif in zero-copy mode
#            (zero-copy=yes, which needs --single-file-segments)
#   ring     two lcores in one process over a crossed net_ring pair
#            (ndk-demo: lcore 0 posts, lcore 1 polls both adapters)
#
# Every figure is run RUNS times; the table has, per memif speed, the
# median of each number and the median of the per-run ratios. Every command is written to
# OUT/commands.txt exactly as run, every output kept in OUT/.
#
#   devtools/bench.sh [FIGURE ...]      (default: all)
#
# Environment: RUNS (3), SECS (4: -D seconds per phase), LAT_ITERS
# (100000), POST_LIST (16: write64 and send64's -l), BSIZE (2048, memif's default buffer size; 8192 keeps MTU 4096
# frames in one buffer, see doc/performance.md), BUILD (build), OUT
# (bench-out/<date>).
# Figures: read64k read64k-zc write64 send64 frame64 readlat qps4096
# loss1 srq ring.
#
# A benchmark, not a test: it asserts nothing. The machine is shared:
# the load average is logged before every run (OUT/load.txt).

set -u
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
SECS=${SECS:-4}
LAT_ITERS=${LAT_ITERS:-100000}
POST_LIST=${POST_LIST:-16}
BSIZE=${BSIZE:-2048}
BUILD=${BUILD:-build}
OUT=${OUT:-bench-out/$(date +%Y%m%d-%H%M%S)}
PERF=$BUILD/app/ndk-perf/ndk-perf
DEMO=$BUILD/app/ndk-demo/ndk-demo
EAL="--no-pci --in-memory --log-level=lib.eal:error --log-level=pmd.net.memif:error"
SOCK=/tmp/ndk-bench-$$.sock
PORT=$((19000 + $$ % 1000))

# shellcheck source=devtools/bench_lib.sh
. devtools/bench_lib.sh
bench_check bench "$PERF" "$DEMO"
mkdir -p "$OUT"
: >"$OUT/commands.txt"
: >"$OUT/load.txt"
RESULTS=$OUT/results.txt
: >"$RESULTS"

SPID=""
CPID=""
# Interrupted: the client first, so memif is not torn down under a
# polling peer (platform notes).
cleanup() {
	[ -n "$CPID" ] && kill "$CPID" 2>/dev/null && wait "$CPID" 2>/dev/null
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	rm -f "$SOCK"
}
trap cleanup EXIT


# memif_run NAME RUN "TEST ARGS" [CLIENT EAL EXTRA] [CLIENT VDEV EXTRA]
# One server/client pair; the same test arguments on both sides.
memif_run() {
	local name=$1 run=$2 args=$3 ceal=${4:-} cvdev=${5:-}
	local so="$OUT/$name.$run.server" co="$OUT/$name.$run.client"
	local b=",bsize=$BSIZE"
	local scmd ccmd

	[ "$BSIZE" = 2048 ] && b=""
	scmd="$PERF -l 0 $EAL --vdev net_memif0,role=server,socket=$SOCK,socket-abstract=no,mac=02:00:00:00:00:01$b -- $args --ip 10.0.0.1 --peer-mac 02:00:00:00:00:02 -p $PORT"
	ccmd="$PERF -l 1 $EAL $ceal --vdev net_memif0,role=client,socket=$SOCK,socket-abstract=no,mac=02:00:00:00:00:02$b$cvdev -- $args --ip 10.0.0.2 --peer-mac 02:00:00:00:00:01 -p $PORT 127.0.0.1"
	if [ "$run" = 1 ]; then
		{ echo "# $name (server, then client once it listens)"
		  echo "$scmd"; echo "$ccmd"; echo; } >>"$OUT/commands.txt"
	fi
	bench_server "$scmd" "$so"
	bench_client "$ccmd" "$co" "$so" "$name run $run"
}

# Rows of a client output: "raw" (first) and "roce" (second), BW fields.
bw_field() { # FILE ROW(1|2) FIELD(4 BW average, 5 MsgRate)
	grep -E '^ [0-9]+([[:space:]]+[0-9.]+){4}[[:space:]]*$' "$1" |
		sed -n "$2p" | awk -v f="$3" '{ print $f }'
}
lat_field() { # FILE ROW FIELD(5 typical, 8 p99, 9 p99.9)
	grep -E '^ [0-9]+([[:space:]]+[0-9.]+){8}[[:space:]]*$' "$1" |
		sed -n "$2p" | awk -v f="$3" '{ print $f }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "") printf "%.4f\n", a / b }'; }

# Each figure's run is three phases, each its own server/client pair,
# back to back: raw, RoCE, raw. The RoCE phase is judged against the two
# raw phases beside it, never against a raw phase minutes away: memif's
# speed is the host's and changes in time (doc/performance.md, "memif's
# two speeds"). A run whose raw phases differ by more than 20 % is
# reported and left out of the medians. Every raw phase is named fast or
# slow from the figure's FAST_MIN (the slowest fast raw rate seen on this
# machine, halfway to the fastest slow one); a run counts in the mode its
# raw phases share, and each mode gets its own medians.

# phases NAME RUN "TEST ARGS" [CLIENT EAL] [CLIENT VDEV]: raw, RoCE, raw.
phases() {
	memif_run "$1-raw1" "$2" "$3 --raw" "${4:-}" "${5:-}"
	memif_run "$1" "$2" "$3" "${4:-}" "${5:-}"
	memif_run "$1-raw2" "$2" "$3 --raw" "${4:-}" "${5:-}"
}

# judge NAME UNIT FAST_MIN < "run roce raw1 raw2" lines: one row per mode
# (medians), the runs left out, and every phase with its mode.
judge() {
	awk -v name="$1" -v unit="$2" -v fmin="$3" "$AWK_MED"'
	function mode(v) { return v + 0 >= fmin ? "fast" : "slow" }
	{
		r = $1; roce = $2; a = $3; b = $4
		if (roce == "" || a == "" || b == "" || a + 0 <= 0 || b + 0 <= 0) {
			out = out sprintf(" run %s incomplete;", r); next
		}
		detail = detail sprintf(" %s: raw %s (%s), RoCE %s, raw %s (%s);",
			r, a, mode(a), roce, b, mode(b))
		hi = a + 0 > b + 0 ? a : b; lo = a + 0 > b + 0 ? b : a
		if ((hi - lo) / hi > 0.20 || mode(a) != mode(b)) {
			out = out sprintf(" run %s left out (raw %s then %s);", r, a, b)
			next
		}
		m = mode(a); raw = (a + b) / 2
		n[m]++; R[m] = R[m] " " roce; W[m] = W[m] " " raw
		Q[m] = Q[m] " " sprintf("%.4f", roce / raw)
	}
	END {
		for (k = 1; k <= 2; k++) {
			m = k == 1 ? "fast" : "slow"
			if (!n[m]) continue
			printf "%-10s %s mode, %d run(s): RoCE %s %s | raw %s %s | RoCE/raw %s\n",
				name, m, n[m], med(R[m]), unit, med(W[m]), unit, med(Q[m])
		}
		if (!n["fast"] && !n["slow"])
			printf "%-10s no run with both raw phases in one mode\n", name
		if (out != "") printf "%-10s  %s\n", name, out
		printf "%-10s  phases (FAST_MIN %s %s):%s\n", name, fmin, unit, detail
	}'
}

# One BW figure (field 4 BW average or 5 MsgRate), RUNS interleaved runs.
bw_figure() { # NAME FIELD UNIT FAST_MIN "TEST ARGS" [CLIENT EAL] [CLIENT VDEV]
	local name=$1 f=$2 unit=$3 fmin=$4 args=$5 ceal=${6:-} cvdev=${7:-}
	local r

	for r in $(seq "$RUNS"); do
		phases "$name" "$r" "$args" "$ceal" "$cvdev"
		echo "$r $(bw_field "$OUT/$name.$r.client" 1 "$f")" \
			"$(bw_field "$OUT/$name-raw1.$r.client" 1 "$f")" \
			"$(bw_field "$OUT/$name-raw2.$r.client" 1 "$f")"
	done | judge "$name" "$unit" "$fmin" | tee -a "$RESULTS"
}

fig_read64k() {
	bw_figure read64k 4 Gbit/s "${FAST_READ:-50}" \
		"read_bw -s 65536 -m 4096 -D $SECS --report_gbits"
}

fig_read64k_zc() {
	bw_figure read64k-zc 4 Gbit/s "${FAST_READ_ZC:-80}" \
		"read_bw -s 65536 -m 4096 -D $SECS --report_gbits" \
		"--single-file-segments" ",zero-copy=yes"
}

# 64 B operations in post lists of POST_LIST (16: one doorbell per list,
# CQ moderation 16), as perftest's -l; POST_LIST=1 posts them one by one.
fig_write64() {
	bw_figure write64 5 Mops/s "${FAST_SMALL:-12}" "write_bw -s 64 -D $SECS -l $POST_LIST"
}

fig_send64() {
	bw_figure send64 5 Mops/s "${FAST_SMALL:-12}" "send_bw -s 64 -D $SECS -l $POST_LIST"
}

# The link's 64-byte frame rate (no RoCE phase).
fig_frame64() {
	local v=""

	for r in $(seq "$RUNS"); do
		memif_run frame64 "$r" \
			"write_bw -s 64 -D $SECS --raw --raw-frame 64"
		v="$v $(bw_field "$OUT/frame64.$r.client" 1 5)"
	done
	printf '%-10s raw 64 B frames %s Mpps   (runs:%s)\n' frame64 \
		"$(tr ' ' '\n' <<<"$v" | grep . | median)" "$v" |
		tee -a "$RESULTS"
}

# READ 8 B latency, interleaved like the BW figures: raw, RoCE, raw. A
# latency has no mode band of its own here; a run whose raw p50s differ
# by more than 20 % is left out, as for the BW figures.
fig_readlat() {
	local r args="read_lat -s 8 -n $LAT_ITERS"

	for r in $(seq "$RUNS"); do
		phases readlat "$r" "$args"
		echo "$r $(lat_field "$OUT/readlat.$r.client" 1 5)" \
			"$(lat_field "$OUT/readlat.$r.client" 1 9)" \
			"$(lat_field "$OUT/readlat-raw1.$r.client" 1 5)" \
			"$(lat_field "$OUT/readlat-raw2.$r.client" 1 5)"
	done | awk "$AWK_MED"'
	{
		r = $1; p50 = $2; p999 = $3; a = $4; b = $5
		detail = detail sprintf(" %s: raw %s, RoCE %s (p99.9 %s), raw %s;",
			r, a, p50, p999, b)
		if (p50 == "" || a + 0 <= 0 || b + 0 <= 0) { out = out " run " r " incomplete;"; next }
		hi = a + 0 > b + 0 ? a : b; lo = a + 0 > b + 0 ? b : a
		if ((hi - lo) / hi > 0.20) { out = out sprintf(" run %s left out (raw %s then %s);", r, a, b); next }
		raw = (a + b) / 2; k++
		P = P " " p50; Q = Q " " p999; W = W " " raw
		D = D " " sprintf("%.3f", p50 - raw)
	}
	END {
		printf "readlat    %d run(s): RoCE p50 %s p99.9 %s usec | raw p50 %s usec | p50 RoCE-raw %s usec\n",
			k, med(P), med(Q), med(W), med(D)
		if (out != "") printf "readlat     %s\n", out
		printf "readlat     phases (p50, usec):%s\n", detail
	}' | tee -a "$RESULTS"
}

# Two RoCE runs compared: A against B (BW field 4 or 5), per-run ratio.
ab_figure() { # NAME FIELD UNIT LABEL_A "ARGS A" LABEL_B "ARGS B" [CEAL] [CVDEV]
	local name=$1 f=$2 unit=$3 la=$4 aa=$5 lb=$6 ab=$7
	local ceal=${8:-} cvdev=${9:-} va="" vb="" rat=""

	for r in $(seq "$RUNS"); do
		memif_run "$name-$lb" "$r" "$ab" "$ceal" "$cvdev"
		memif_run "$name-$la" "$r" "$aa" "$ceal" "$cvdev"
		local a b
		a=$(bw_field "$OUT/$name-$la.$r.client" 1 "$f")
		b=$(bw_field "$OUT/$name-$lb.$r.client" 1 "$f")
		va="$va $a"; vb="$vb $b"; rat="$rat $(ratio "$a" "$b")"
	done
	printf '%-10s %s %s %s | %s %s %s | %s/%s %s   (runs: %s%s; %s%s)\n' \
		"$name" "$la" "$(tr ' ' '\n' <<<"$va" | grep . | median)" \
		"$unit" "$lb" "$(tr ' ' '\n' <<<"$vb" | grep . | median)" \
		"$unit" "$la" "$lb" "$(tr ' ' '\n' <<<"$rat" | grep . | median)" \
		"$la" "$va" "$lb" "$vb" | tee -a "$RESULTS"
}

# 64-byte WRITEs over 4096 QPs in round-robin (8 outstanding each) against
# one QP (128 outstanding), both signalled every 8th: op rates.
fig_qps4096() {
	ab_figure qps 5 Mops/s 4096qp "write_bw -s 64 -q 4096 -t 8 -Q 8 -D $SECS" \
		1qp "write_bw -s 64 -q 1 -t 128 -Q 8 -D $SECS"
}

# READ 64 KiB at MTU 4096 with 1 % of the frames each side receives
# dropped, against the same without loss; on the zero-copy memif client,
# which loses no frames of its own (doc/performance.md).
fig_loss1() {
	ab_figure loss 4 Gbit/s lossy \
		"read_bw -s 65536 -m 4096 -D $SECS --report_gbits --loss 1" \
		clean "read_bw -s 65536 -m 4096 -D $SECS --report_gbits" \
		"--single-file-segments" ",zero-copy=yes"
}

# 64-byte SENDs over 16 QPs whose receives come from one shared receive
# queue (depth 16 x 64) against the same with a 64-deep receive queue per
# QP, in the same run: op rates. 32 SENDs in flight per QP (-t 32), so
# that neither side runs out of receives: with the default 128 the
# per-QP queues are RNR-bound (thousands of RNR NAKs a second) and the
# figure compares the RNR timer, not the receive queues.
fig_srq() {
	ab_figure srq 5 Mops/s srq \
		"send_bw -s 64 -q 16 -r 64 -t 32 -D $SECS --use_srq" \
		perqp "send_bw -s 64 -q 16 -r 64 -t 32 -D $SECS"
}

# net_ring in one process: ndk-demo's raw rows and RoCE rows.
fig_ring() {
	local cmd="$DEMO -l 0-1 --no-pci --in-memory --log-level=lib.eal:error -- -t $SECS -m 4096 -s 64,64K -o write,read,send --raw-baseline"

	{ echo "# ring (one process, two lcores)"; echo "$cmd"; echo; } \
		>>"$OUT/commands.txt"
	for r in $(seq "$RUNS"); do
		log_load "ring.$r"
		# shellcheck disable=SC2086
		timeout 600 $cmd >"$OUT/ring.$r.out" 2>&1 ||
			echo "bench: ring run $r failed" >&2
	done
	for op in WRITE READ SEND; do
		for size in 64 65536; do
			local g="" m="" rg="" rm="" rat=""
			for r in $(seq "$RUNS"); do
				local f="$OUT/ring.$r.out" row raw
				row=$(grep -E "^$op +$size " "$f" | head -n 1)
				raw=$(grep -E -B1 "^$op +$size " "$f" | head -n 1)
				g="$g $(awk '{ print $4 }' <<<"$row")"
				m="$m $(awk '{ print $5 }' <<<"$row")"
				rg="$rg $(awk '{ print $4 }' <<<"$raw")"
				rm="$rm $(awk '{ print $5 }' <<<"$raw")"
				rat="$rat $(awk '{ print $NF }' <<<"$row")"
			done
			printf '%-10s %-5s %6s B: RoCE %s Gbit/s %s Mops/s | raw %s Gbit/s %s Mops/s | RoCE/raw %s   (runs:%s)\n' \
				ring "$op" "$size" \
				"$(tr ' ' '\n' <<<"$g" | grep . | median)" \
				"$(tr ' ' '\n' <<<"$m" | grep . | median)" \
				"$(tr ' ' '\n' <<<"$rg" | grep . | median)" \
				"$(tr ' ' '\n' <<<"$rm" | grep . | median)" \
				"$(tr ' ' '\n' <<<"$rat" | grep . | median)" "$rat" |
				tee -a "$RESULTS"
		done
	done
}

ALL="read64k read64k-zc write64 send64 frame64 readlat qps4096 loss1 srq ring"
FIGS=${*:-$ALL}
echo "bench: RUNS=$RUNS SECS=$SECS LAT_ITERS=$LAT_ITERS BSIZE=$BSIZE -> $OUT"
echo "bench: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(git describe --always --dirty)" |
	tee -a "$RESULTS"
for f in $FIGS; do
	case $f in
	read64k|read64k-zc|write64|send64|frame64|readlat|qps4096|loss1|srq|ring)
		"fig_${f//-/_}" ;;
	*)	echo "bench: unknown figure $f (known: $ALL)" >&2; exit 2 ;;
	esac
done
echo "bench: done; load $(cut -d' ' -f1-3 /proc/loadavg); results in $RESULTS"
