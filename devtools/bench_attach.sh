#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# What attaching to ndk-roced costs (doc/performance.md, "Attached
# applications"): the same ndk-perf tests run
#
#   embedded  two ndk-perf processes over net_memif (--in-memory), one
#             lcore each: server -l 0 (memif server), client -l 1 (its
#             test loop polls the adapter inline)
#   poller    the same, the client with a polling lcore of its own:
#             -l 0,1, the test loop on lcore 0, ndk_poller on lcore 1
#   attached  the same server; the client attached to an ndk-roced whose
#             port is the memif client (polled on the daemon's lcore 1),
#             the client process itself on lcore ALCORE (default 0)
#
# "poller" and "attached" have the same threads on the same cores (the
# server and the client's test loop on core 0, the polling loop on core
# 1): their ratio is the price of the process boundary. "embedded" has a
# busy thread less. Per figure it prints the medians of RUNS runs of each
# mode and the ratios of the medians:
#
#   write64  write_bw -s 64, MsgRate (Mops/s)
#   read64k  read_bw -s 65536 -m 4096, BW (Gbit/s)
#   readlat  read_lat -s 8, typical (p50) latency (usec)
#
# On a 2-core machine the attached mode runs three busy processes on two
# cores (server, daemon, client): its figures include that contention,
# which a machine with a core per poller would not have.
#
# Every command is written to OUT/commands.txt as run, every output kept
# in OUT/, the load average logged before every run (OUT/load.txt).
#
#   devtools/bench_attach.sh [FIGURE ...]     (default: all)
#
# Environment: RUNS (3), SECS (4: -D seconds per BW run), LAT_ITERS
# (1000), ALCORE (0), BUILD (build), OUT (bench-out/attach-<date>).
# Needs root (it mounts a hugetlbfs for the daemon) and 512 free 2 MB
# hugepages. A benchmark, not a test: it asserts nothing.

set -u
cd "$(dirname "$0")/.." || exit 1

RUNS=${RUNS:-3}
SECS=${SECS:-4}
LAT_ITERS=${LAT_ITERS:-1000}
ALCORE=${ALCORE:-0}
BUILD=${BUILD:-build}
OUT=${OUT:-bench-out/attach-$(date +%Y%m%d-%H%M%S)}
PERF=$BUILD/app/ndk-perf/ndk-perf
ROCED=$BUILD/app/ndk-roced/ndk-roced
EAL="--no-pci --log-level=lib.eal:error --log-level=pmd.net.memif:error"
SOCK=/tmp/ndk-bench-attach-$$.sock
PORT=$((19000 + $$ % 1000))
PREFIX=ndk-bench-attach-$$
HUGE=/tmp/ndk-bench-attach-$$.huge

# shellcheck source=devtools/bench_lib.sh
. devtools/bench_lib.sh
bench_check bench_attach "$PERF" "$ROCED"
mkdir -p "$OUT" "$HUGE"
mount -t hugetlbfs nodev "$HUGE" || {
	echo "bench_attach: cannot mount a hugetlbfs (root?)" >&2
	exit 1
}
: >"$OUT/commands.txt"
: >"$OUT/load.txt"
RESULTS=$OUT/results.txt
: >"$RESULTS"

SPID=""
CPID=""
DPID=""
# Interrupted: client first, then the daemon, then the server.
cleanup() {
	[ -n "$CPID" ] && kill "$CPID" 2>/dev/null && wait "$CPID" 2>/dev/null
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	rm -f "$SOCK"
	umount "$HUGE" 2>/dev/null
	rmdir "$HUGE" 2>/dev/null
}
trap cleanup EXIT

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "n/a") printf "%.3f\n", a / b; else print "n/a" }'; }
bw_field() { # FILE FIELD(4 BW average, 5 MsgRate)
	grep -E '^ [0-9]+([[:space:]]+[0-9.]+){4}[[:space:]]*$' "$1" |
		sed -n 1p | awk -v f="$2" '{ print $f }'
}
lat_field() { # FILE FIELD(5 typical)
	grep -E '^ [0-9]+([[:space:]]+[0-9.]+){8}[[:space:]]*$' "$1" |
		sed -n 1p | awk -v f="$2" '{ print $f }'
}

# The daemon the attached client uses: memif client port, lcore 1.
daemon_start() { # LOG
	local conf=$OUT/roced.conf

	cat >"$conf" <<EOF
[eal]
lcores = 1
hugepages = yes
memory = 256
huge-dir = $HUGE
file-prefix = $PREFIX
[daemon]
linger-ms = 200
[echo]
enabled = no
[port m0]
device = net_memif0,role=client,socket=$SOCK,socket-abstract=no,mac=02:00:00:00:00:02
ip = 10.0.0.2/24
EOF
	"$ROCED" -f "$conf" >"$1" 2>&1 &
	DPID=$!
	for _ in $(seq 400); do
		grep -q 'ndk-roced: ready' "$1" && return 0
		kill -0 "$DPID" 2>/dev/null || break
		sleep 0.05
	done
	echo "bench_attach: the daemon did not start (see $1)" >&2
	return 1
}

# run MODE NAME RUN "TEST ARGS": one server/client pair.
run() {
	local mode=$1 name=$2 r=$3 args=$4
	local so="$OUT/$mode.$name.$r.server" co="$OUT/$mode.$name.$r.client"
	local scmd ccmd

	scmd="$PERF -l 0 $EAL --in-memory --vdev net_memif0,role=server,socket=$SOCK,socket-abstract=no,mac=02:00:00:00:00:01 -- $args --ip 10.0.0.1 --peer-mac 02:00:00:00:00:02 -p $PORT"
	if [ "$mode" != attached ]; then
		local l=1

		[ "$mode" = poller ] && l=0,1
		ccmd="$PERF -l $l $EAL --in-memory --vdev net_memif0,role=client,socket=$SOCK,socket-abstract=no,mac=02:00:00:00:00:02 -- $args --ip 10.0.0.2 --peer-mac 02:00:00:00:00:01 -p $PORT 127.0.0.1"
	else
		ccmd="$PERF -l $ALCORE $EAL --proc-type=secondary --file-prefix $PREFIX --huge-dir $HUGE -- $args --ip 10.0.0.2 --ethdev net_memif0 --peer-mac 02:00:00:00:00:01 -p $PORT 127.0.0.1"
	fi
	if [ "$r" = 1 ]; then
		{ echo "# $mode $name (server, [daemon: $OUT/roced.conf,] then client)"
		  echo "$scmd"; echo "$ccmd"; echo; } >>"$OUT/commands.txt"
	fi
	bench_server "$scmd" "$so"
	if [ "$mode" = attached ] &&
	   ! daemon_start "$OUT/$mode.$name.$r.daemon"; then
		kill "$SPID"; wait "$SPID"; SPID=""
		return
	fi
	bench_client "$ccmd" "$co" "$so" "$mode $name run $r"
	if [ -n "$DPID" ]; then
		kill -TERM "$DPID"
		wait "$DPID" || echo "bench_attach: $mode $name run $r: daemon exit $? (see $OUT/$mode.$name.$r.daemon)" >&2
		DPID=""
	fi
}

# figure NAME KIND(bw FIELD | lat FIELD) UNIT "TEST ARGS"
figure() {
	local name=$1 kind=$2 f=$3 unit=$4 args=$5
	local emb="" pol="" att="" me mp ma

	for r in $(seq "$RUNS"); do
		for mode in embedded poller attached; do
			run "$mode" "$name" "$r" "$args"
			local v
			v=$("${kind}_field" "$OUT/$mode.$name.$r.client" "$f")
			case $mode in
			embedded) emb="$emb $v" ;;
			poller) pol="$pol $v" ;;
			*) att="$att $v" ;;
			esac
		done
	done
	me=$(tr ' ' '\n' <<<"$emb" | grep . | median)
	mp=$(tr ' ' '\n' <<<"$pol" | grep . | median)
	ma=$(tr ' ' '\n' <<<"$att" | grep . | median)
	printf '%-8s embedded %s | poller %s | attached %s %s | attached/poller %s | attached/embedded %s   (runs: embedded%s; poller%s; attached%s)\n' \
		"$name" "$me" "$mp" "$ma" "$unit" "$(ratio "$ma" "$mp")" \
		"$(ratio "$ma" "$me")" "$emb" "$pol" "$att" | tee -a "$RESULTS"
}

fig_write64() { figure write64 bw 5 Mops/s "write_bw -s 64 -D $SECS"; }
fig_read64k() {
	figure read64k bw 4 Gbit/s \
		"read_bw -s 65536 -m 4096 -D $SECS --report_gbits"
}
fig_readlat() { figure readlat lat 5 usec "read_lat -s 8 -n $LAT_ITERS"; }

figs=${*:-write64 read64k readlat}
echo "bench_attach: $(nproc) cores, RUNS=$RUNS SECS=$SECS LAT_ITERS=$LAT_ITERS ALCORE=$ALCORE, load $(cut -d' ' -f1-3 /proc/loadavg), out $OUT" |
	tee -a "$RESULTS"
for f in $figs; do
	"fig_$f"
done
