#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# NVMe-oF figures of doc/performance.md: ndk-nvmf-perf against
# ndk-nvmf-tgt over net_memif (two processes on hugepages, --in-memory,
# one lcore each: -l 0 target, -l 1 host), each beside ndk-perf on the
# same link (the same memif settings and lcores) in the same run. A run
# of a figure is three phases back to back: ndk-perf, NVMe-oF, ndk-perf;
# the NVMe-oF phase is judged against the mean of the two ndk-perf phases
# beside it, and a run whose two ndk-perf phases differ by more than 20 %
# is reported and left out of the medians (memif's speed is the host's
# and changes in time: doc/performance.md, "memif's two speeds").
#
#   devtools/bench_nvmf.sh [FIGURE ...]      (default: all)
#
# Figures (NVMe-oF | ndk-perf beside it):
#   randread   4 KiB random read IOPS at QD 1, 32, 128 | read_bw -s 4096 op rate
#   randwrite  4 KiB random write IOPS at QD 1, 32, 128 | write_bw -s 4096 op rate
#   seq128k    128 KiB sequential read and write MiB/s at QD 32 | read_bw / write_bw -s 131072 MiB/s
#   lat        4 KiB random read and write p50 / p99 at QD 1 | read_lat -s 4096 t_typical / 99 %
#
# memif runs with bsize=8192 on both ends (frames of path MTU 4096 must
# not be chained: doc/performance.md, "A link defect"), path MTU 4096.
# Environment: RUNS (3), SECS (4: seconds per phase), QDS (queue depths
# of randread/randwrite: "1 32 128"), BUILD (build),
# OUT (bench-out/nvmf-<date>). Every command is written to
# OUT/commands.txt exactly as run, every output kept in OUT/, the load
# average logged before every phase (OUT/load.txt) and printed with the
# results (OUT/results.txt).
#
# A benchmark, not a test: it asserts nothing.

set -u
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
SECS=${SECS:-4}
QDS=${QDS:-1 32 128}
BUILD=${BUILD:-build}
OUT=${OUT:-bench-out/nvmf-$(date +%Y%m%d-%H%M%S)}
PERF=$BUILD/app/ndk-perf/ndk-perf
NTGT=$BUILD/app/ndk-nvmf-tgt/ndk-nvmf-tgt
NPERF=$BUILD/app/ndk-nvmf-perf/ndk-nvmf-perf
EAL="--no-pci --in-memory --log-level=lib.eal:error --log-level=pmd.net.memif:error"
SOCK=/tmp/ndk-bench-nvmf-$$.sock
PORT=$((20000 + $$ % 1000))
NQN=nqn.2026-11.org.ndk-roce:bench
VS=socket=$SOCK,socket-abstract=no,bsize=8192
VSRV="net_memif0,role=server,$VS,mac=02:00:00:00:00:01"
VCLI="net_memif0,role=client,$VS,mac=02:00:00:00:00:02"

# shellcheck source=devtools/bench_lib.sh
. devtools/bench_lib.sh
bench_check bench_nvmf "$PERF" "$NTGT" "$NPERF"
mkdir -p "$OUT"
: >"$OUT/commands.txt"
: >"$OUT/load.txt"
RESULTS=$OUT/results.txt
: >"$RESULTS"
cat >"$OUT/tgt.conf" <<EOF
subsystem $NQN allow_any_host
namespace mem:256M bs=4096
listen 10.0.0.1 4420
EOF

SPID=""
CPID=""
cleanup() {
	[ -n "$CPID" ] && kill "$CPID" 2>/dev/null && wait "$CPID" 2>/dev/null
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	rm -f "$SOCK"
}
trap cleanup EXIT

note_cmds() { # NAME SERVER-CMD CLIENT-CMD: once per phase name
	grep -qx "# $1" "$OUT/commands.txt" ||
		{ echo "# $1"; echo "$2"; echo "$3"; echo; } >>"$OUT/commands.txt"
}

# perf_phase NAME RUN "TEST ARGS": ndk-perf, server then client.
perf_phase() {
	local so="$OUT/$1.$2.server" co="$OUT/$1.$2.client" scmd ccmd
	scmd="$PERF -l 0 $EAL --vdev $VSRV -- $3 -m 4096 --ip 10.0.0.1 --peer-mac 02:00:00:00:00:02 -p $PORT"
	ccmd="$PERF -l 1 $EAL --vdev $VCLI -- $3 -m 4096 --ip 10.0.0.2 --peer-mac 02:00:00:00:00:01 -p $PORT 127.0.0.1"
	note_cmds "$1 (ndk-perf: server, then client once it listens)" \
		"$scmd" "$ccmd"
	bench_server "$scmd" "$so"
	bench_client "$ccmd" "$co" "$so" "$1 run $2"
}

# nvmf_phase NAME RUN "NDK-NVMF-PERF ARGS": target, then host once ready.
nvmf_phase() {
	local to="$OUT/$1.$2.target" ho="$OUT/$1.$2.host" tcmd hcmd
	tcmd="$NTGT -l 0 $EAL --vdev $VSRV -- -c $OUT/tgt.conf --ip 10.0.0.1 --queue-depth 256 --stats"
	hcmd="$NPERF -l 1 $EAL --vdev $VCLI -- -a 10.0.0.1 -n $NQN --ip 10.0.0.2 -t $SECS --stats $3"
	note_cmds "$1 (NVMe-oF: target, then host once it is ready)" \
		"$tcmd" "$hcmd"
	log_load "$(basename "$ho")"
	rm -f "$SOCK"
	# shellcheck disable=SC2086
	timeout 300 $tcmd >"$to" 2>&1 &
	SPID=$!
	for _ in $(seq 300); do
		grep -q '^ndk-nvmf-tgt: ready' "$to" && break
		sleep 0.05
	done
	# shellcheck disable=SC2086
	timeout 300 $hcmd >"$ho" 2>&1 &
	CPID=$!
	wait "$CPID" || echo "bench_nvmf: $1 run $2: host failed (see $ho)" >&2
	CPID=""
	kill -INT "$SPID" 2>/dev/null
	wait "$SPID" || echo "bench_nvmf: $1 run $2: target failed (see $to)" >&2
	SPID=""
}

# ndk-perf rows: BW (bytes iters peak avg msgrate), LAT (... typical ...).
bw_field() { # FILE FIELD(4 BW average, 5 MsgRate)
	grep -E '^ [0-9]+([[:space:]]+[0-9.]+){4}[[:space:]]*$' "$1" |
		head -n 1 | awk -v f="$2" '{ print $f }'
}
lat_field() { # FILE FIELD(5 typical, 8 p99)
	grep -E '^ [0-9]+([[:space:]]+[0-9.]+){8}[[:space:]]*$' "$1" |
		head -n 1 | awk -v f="$2" '{ print $f }'
}
# ndk-nvmf-perf row "read|write IOPS MiB/s avg min p50 p99 p99.9".
nv_field() { # FILE ROW(read|write) FIELD(2 IOPS, 3 MiB/s, 6 p50, 7 p99)
	awk -v r="$2" -v f="$3" '$1 == r && NF == 8 { print $f; exit }' "$1"
}
# frames the host received per I/O and per frame the target sent.
nv_frames() { # HOST-FILE TARGET-FILE
	awk 'FNR == NR && $1 == "I/Os:" { io = $2 }
	     FNR == NR && $1 == "rx_packets" { hrx = $2 }
	     FNR != NR && $1 == "tx_packets" { ttx = $2 }
	     END { if (io > 0 && ttx > 0)
		printf "%.2f/%.3f", hrx / io, hrx / ttx; else print "n/a" }' "$1" "$2"
}

# judge NAME UNIT PERF-UNIT SCALE < "run nvmf perf1 perf2 frames" lines.
# SCALE turns ndk-perf's unit into NVMe-oF's, so that the ratio has none.
judge() {
	awk -v name="$1" -v unit="$2" -v punit="$3" -v scale="$4" "$AWK_MED"'
	{
		r = $1; v = $2; a = $3; b = $4
		detail = detail sprintf(" %s: ndk-perf %s, NVMe-oF %s, ndk-perf %s, rx/IO/rx-per-tx %s;",
			r, a, v, b, $5)
		if (v == "x" || a == "x" || b == "x" || a + 0 <= 0 || b + 0 <= 0) {
			out = out sprintf(" run %s incomplete;", r); next
		}
		hi = a + 0 > b + 0 ? a : b; lo = a + 0 > b + 0 ? b : a
		if ((hi - lo) / hi > 0.20) {
			out = out sprintf(" run %s left out (ndk-perf %s then %s);", r, a, b)
			next
		}
		n++; V = V " " v; P = P " " (a + b) / 2
		Q = Q " " sprintf("%.4f", v / ((a + b) / 2 * scale))
	}
	END {
		if (n)
			printf "%-18s %d run(s): NVMe-oF %s %s | ndk-perf %s %s | ratio %s\n",
				name, n, med(V), unit, med(P), punit, med(Q)
		else
			printf "%-18s no run with both ndk-perf phases within 20 %%\n", name
		if (out != "") printf "%-18s  %s\n", name, out
		printf "%-18s  phases:%s\n", name, detail
	}'
}

# figure NAME UNIT PERF-UNIT "PERF ARGS" PERF-KIND(bw|lat) PERF-FIELD
#        "NVMF ARGS" NVMF-ROW NVMF-FIELD [SCALE: PERF-UNIT in UNIT, 1]
figure() {
	local name=$1 unit=$2 punit=$3 pargs=$4 pk=$5 pf=$6 nargs=$7
	local row=$8 nf=$9 scale=${10:-1} r a b v

	for r in $(seq "$RUNS"); do
		perf_phase "$name-perf1" "$r" "$pargs"
		nvmf_phase "$name" "$r" "$nargs"
		perf_phase "$name-perf2" "$r" "$pargs"
		if [ "$pk" = bw ]; then
			a=$(bw_field "$OUT/$name-perf1.$r.client" "$pf")
			b=$(bw_field "$OUT/$name-perf2.$r.client" "$pf")
		else
			a=$(lat_field "$OUT/$name-perf1.$r.client" "$pf")
			b=$(lat_field "$OUT/$name-perf2.$r.client" "$pf")
		fi
		v=$(nv_field "$OUT/$name.$r.host" "$row" "$nf")
		echo "$r ${v:-x} ${a:-x} ${b:-x} $(nv_frames "$OUT/$name.$r.host" "$OUT/$name.$r.target")"
	done | judge "$name" "$unit" "$punit" "$scale" | tee -a "$RESULTS"
	echo "load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$RESULTS"
}

PD="-D $SECS"
fig_randread() {
	local q
	for q in $QDS; do
		# ndk-perf's Mops/s against IOPS: x 1e6.
		figure "randread-qd$q" IOPS Mops/s "read_bw -s 4096 -t $q $PD" \
			bw 5 "-w randread -o 4096 -q $q" read 2 1000000
	done
}
fig_randwrite() {
	local q
	for q in $QDS; do
		figure "randwrite-qd$q" IOPS Mops/s "write_bw -s 4096 -t $q $PD" \
			bw 5 "-w randwrite -o 4096 -q $q" write 2 1000000
	done
}
fig_seq128k() {
	# ndk-perf's BW average is MB/s (10^6 B): 1 MB = 1/1.048576 MiB.
	figure seqread-128k MiB/s MB/s "read_bw -s 131072 $PD" bw 4 \
		"-w read -o 131072 -q 32" read 3 0.95367431640625
	figure seqwrite-128k MiB/s MB/s "write_bw -s 131072 $PD" bw 4 \
		"-w write -o 131072 -q 32" write 3 0.95367431640625
}
fig_lat() {
	figure lat-read-p50 us us "read_lat -s 4096 -n 20000" lat 5 \
		"-w randread -o 4096 -q 1" read 6
	figure lat-read-p99 us us "read_lat -s 4096 -n 20000" lat 8 \
		"-w randread -o 4096 -q 1" read 7
	figure lat-write-p50 us us "read_lat -s 4096 -n 20000" lat 5 \
		"-w randwrite -o 4096 -q 1" write 6
}

ALL="lat randread randwrite seq128k"
FIGS=${*:-$ALL}
echo "bench_nvmf: RUNS=$RUNS SECS=$SECS -> $OUT"
echo "bench_nvmf: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(git describe --always --dirty)" |
	tee -a "$RESULTS"
for f in $FIGS; do
	case $f in
	randread|randwrite|seq128k|lat) "fig_$f" ;;
	*)	echo "bench_nvmf: unknown figure $f (known: $ALL)" >&2; exit 2 ;;
	esac
done
echo "bench_nvmf: done; load $(cut -d' ' -f1-3 /proc/loadavg); results in $RESULTS"
