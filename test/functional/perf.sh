#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ndk-perf between two processes on one host: a server and a client, each
# one DPDK process with one lcore (so the test loops poll the adapter;
# two cases give the server a poller lcore), joined by a net_memif link,
# exchanging QP data over TCP on 127.0.0.1 as perftest does. Every test
# runs briefly with --verify at 64 B and 64 KiB, path MTU 1024 and 4096,
# plus variants (-D, -a, -q, -I, -l, -u, JSON, MAC by ARP, an ib_* link name),
# and ndk-perf's raw-ethdev modes (--raw, --raw-baseline: frames counted,
# ordered and checked byte for byte) and --loss. Both processes must exit
# 0 and the client must print perftest's header (or the raw one) and a
# result row. Correctness only: speed is never asserted.
#
#   perf.sh /path/to/ndk-perf
#
# Ends with "perf: N passed, N failed, N skipped"; exits 1 if any failed.

set -u

PERF=${1:?usage: perf.sh /path/to/ndk-perf}
TMP=$(mktemp -d /tmp/ndkperf-$$.XXXX)
# Run a copy: a build relinking the program meanwhile must not break us.
cp "$PERF" "$TMP/ndk-perf" || exit 1
PERF=$TMP/ndk-perf
PIDS=()
passed=0
failed=0
skipped=0

cleanup() {
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$TMP" /tmp/ndkperf-$$-*.sock
	rm -rf /var/run/dpdk/ndkperf-$$-* 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A crash leaves a core in the process's working directory (the kernel's
# default core_pattern "core"): run the processes in $TMP and show the
# stack of any core when a case fails (an intermittent SIGSEGV was seen
# once under heavy load and never reproduced since).
PERF=$(realpath "$PERF")
cd "$TMP" || exit 1
ulimit -c unlimited 2>/dev/null || true

# backtraces: the stacks of the cores in $TMP, then remove them
backtraces() {
	local c
	for c in "$TMP"/core*; do
		[ -f "$c" ] || continue
		echo "--- core $c:"
		if command -v gdb >/dev/null; then
			gdb -q -batch -ex 'thread apply all bt 12' "$PERF" "$c" 2>&1 |
				grep -E '^(#|Thread|Program terminated)' | head -n 60
		fi
		rm -f "$c"
	done
}

# Hugepages if enough are free for both processes, else plain memory.
free_pages=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages \
	2>/dev/null || echo 0)
if [ "$free_pages" -ge 256 ]; then
	mem_args() { echo "--in-memory"; }
else
	mem_args() { echo "--no-huge -m 512 --file-prefix=ndkperf-$$-$1"; }
fi
EAL_COMMON="--no-pci --log-level=lib.eal:error --log-level=pmd.net.memif:error"

# wait_listen PORT PID: until something listens on TCP PORT (no connect:
# the server accepts one connection only), or PID is gone, or 10 s.
wait_listen() {
	local hex
	hex=$(printf ':%04X$' "$1")
	for _ in $(seq 200); do
		awk -v p="$hex" '$2 ~ p && $4 == "0A" { found = 1 }
			END { exit !found }' /proc/net/tcp && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# Ports: a block of our own, away from perftest's 18515.
# Below the kernel's ephemeral range (32768 on): a port there may be held
# by any outgoing connection on the host ("Couldn't listen to port").
port_base=$((20000 + ($$ % 1270) * 10))
case_no=0

# run_pair "SERVER ARGS" "CLIENT ARGS" [PROGRAM]
# Run a server and a client; sets so and co (their output files), src and
# crc (their exit codes). Environment: SERVER_LCORES (default 0; "0-1"
# gives the server a poller lcore, sharing the client's), NO_PEER_MAC=1
# (the adapters find each other's MAC by ARP), MEMIF (more net_memif
# arguments for both ports; default ",bsize=8192": a frame at path MTU
# 4096 in one buffer, since DPDK 22.11's memif corrupts chains of
# descriptors, and a flood of stale slots it then replays stalls a
# latency test until its timeout (doc/performance.md, "A link defect"),
# RDMA_CM=1 (-R: the client names the server's
# RoCE address; no TCP).
run_pair() {
	local sargs=$1 cargs=$2 prog=${3:-$PERF}
	local n=$case_no sock="/tmp/ndkperf-$$-$case_no.sock"
	local port=$((port_base + case_no % 10))
	local srv cli smac cmac speer="" cpeer=""

	so="$TMP/$n.server"
	co="$TMP/$n.client"
	case_no=$((case_no + 1))
	smac=$(printf '02:00:00:00:%02x:01' $((n % 256)))
	cmac=$(printf '02:00:00:00:%02x:02' $((n % 256)))
	if [ -z "${NO_PEER_MAC:-}" ]; then
		speer="--peer-mac $cmac"
		cpeer="--peer-mac $smac"
	fi
	rm -f "$sock"
	# shellcheck disable=SC2046,SC2086
	timeout 40 "$prog" -l "${SERVER_LCORES:-0}" $(mem_args s$n) $EAL_COMMON \
		--vdev "net_memif0,role=server,socket=$sock,socket-abstract=no,mac=$smac${MEMIF-,bsize=8192}" -- \
		$sargs --ip 10.77.$((n % 256)).1 $speer -p "$port" \
		>"$so" 2>&1 &
	srv=$!
	PIDS+=("$srv")
	# The memif client must connect once the server's port has started;
	# the server listens on TCP only after that (with -R it does not
	# listen on TCP at all: the client tries its CM connection again
	# until the server's listener answers).
	if [ -n "${RDMA_CM:-}" ]; then
		sleep 0.5
	else
		wait_listen "$port" "$srv"
	fi
	# shellcheck disable=SC2046,SC2086
	timeout 40 "$prog" -l 1 $(mem_args c$n) $EAL_COMMON \
		--vdev "net_memif0,role=client,socket=$sock,socket-abstract=no,mac=$cmac${MEMIF-,bsize=8192}" -- \
		$cargs --ip 10.77.$((n % 256)).2 $cpeer -p "$port" \
		"$([ -n "${RDMA_CM:-}" ] && echo 10.77.$((n % 256)).1 || echo 127.0.0.1)" \
		>"$co" 2>&1 &
	cli=$!
	PIDS+=("$cli")
	wait "$cli"
	crc=$?
	wait "$srv"
	src=$?
	PIDS=()
}

# run_case NAME "SERVER ARGS" "CLIENT ARGS" SIZE [PROGRAM]
# The test name is the first word of the arguments (unless PROGRAM is an
# ib_* link, which implies it). SIZE is the row the client must print.
# Environment: run_pair's, and CHECK (a further shell condition on $so,
# $co).
run_case() {
	local name=$1 size=$4 why=""

	run_pair "$2" "$3" "${5:-$PERF}"
	[ "$src" -eq 0 ] || why="server exit $src"
	[ "$crc" -eq 0 ] || why="$why client exit $crc"
	grep -Eq '^ Data ex. method : (Ethernet|rdma_cm)|^ +Raw ethdev test' "$co" ||
		why="$why no header"
	grep -Eq "^ $size +[0-9]+ +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+" "$co" ||
		why="$why no result row"
	if grep -q '^ Data verification: FAILED' "$co" "$so"; then
		why="$why verification failed"
	fi
	if [ -z "$why" ] && [ -n "${CHECK:-}" ]; then
		eval "$CHECK" || why="$why check failed: $CHECK"
	fi
	if [ -z "$why" ]; then
		passed=$((passed + 1))
		printf 'ok   %s\n' "$name"
	else
		failed=$((failed + 1))
		printf 'FAIL %s:%s\n' "$name" "$why"
		echo "--- server output:"; tail -n 30 "$so"
		echo "--- client output:"; tail -n 30 "$co"
		backtraces
	fi
}

start=$(date +%s)

# The matrix: six tests x two sizes x two path MTUs, data checked.
for mtu in 1024 4096; do
	for size in 64 65536; do
		for t in send_bw write_bw read_bw; do
			a="$t -s $size -m $mtu -n 200 --verify"
			run_case "$t -s $size -m $mtu" "$a" "$a" "$size"
		done
		for t in send_lat write_lat read_lat; do
			a="$t -s $size -m $mtu -n 100 --verify"
			run_case "$t -s $size -m $mtu" "$a" "$a" "$size"
		done
	done
done

# Variants: duration mode, every size, several QPs, inline, Gbit/s + JSON.
# The WRITE server prints the client's report, which came over TCP.
CHECK="[ \"\$(grep '^ 65536 ' \$so)\" = \"\$(grep '^ 65536 ' \$co)\" ]" \
run_case "write_bw -D 1" "write_bw -D 1 --verify" "write_bw -D 1 --verify" \
	65536
run_case "send_lat -D 1" "send_lat -D 1 --verify" "send_lat -D 1 --verify" 2
run_case "read_bw -a" "read_bw -a -n 5 --verify" "read_bw -a -n 5 --verify" \
	8388608
run_case "write_lat -a" "write_lat -a -n 10 --verify" \
	"write_lat -a -n 10 --verify" 8388608
run_case "send_bw -q 4 -I 64" "send_bw -q 4 -s 64 -I 64 -n 500 --verify" \
	"send_bw -q 4 -s 64 -I 64 -n 500 --verify" 64
# --use_srq: the receives from one shared receive queue; one QP with
# every byte checked, then four QPs sharing it (their receives land in
# each other's buffers: no --verify).
a="send_bw --use_srq -s 4096 -m 1024 -n 200 --verify"
run_case "send_bw --use_srq" "$a" "$a" 4096
a="send_bw --use_srq -q 4 -s 64 -r 64 -n 500"
run_case "send_bw --use_srq -q 4" "$a" "$a" 64
# Bidirectional (-b): both sides run the initiator loop (and the SEND
# side's receives), both print the sum of both reports, every byte checked.
for t in write_bw send_bw read_bw; do
	a="$t -b -s 4096 -n 200 --verify"
	CHECK="grep -q 'Bidirectional BW' \$co && [ \"\$(grep '^ 4096 ' \$so)\" = \"\$(grep '^ 4096 ' \$co)\" ]" \
	run_case "$t -b" "$a" "$a" 4096
done
a="send_bw -b -s 64 -q 2 -r 32 -n 400 --verify"
run_case "send_bw -b -q 2 -r 32" "$a" "$a" 64
# -R: the exchange on an RC connection of its own and every QP connected
# through the connection manager (no TCP), each test, several QPs, -b.
for a in "send_bw -s 4096 -n 200" "write_bw -s 4096 -q 4 -n 100" \
	"read_bw -s 65536 -n 50" "send_lat -n 100" "write_lat -n 100" \
	"read_lat -n 100" "send_bw -b -s 4096 -n 100"; do
	RDMA_CM=1 CHECK="grep -q '^ Data ex. method : rdma_cm' \$co && grep -q '^ rdma_cm QPs.*: ON' \$so" \
	run_case "${a%% *} -R ${a#* }" "$a -R --verify" "$a -R --verify" \
		"$(case $a in *_lat*) echo 2 ;; *65536*) echo 65536 ;; *) echo 4096 ;; esac)"
done
# -z: only the exchange over such a connection, the QPs connected from
# its keys; --use_old_post_send is accepted (no effect).
a="send_bw -z -s 4096 -n 200 --use_old_post_send"
RDMA_CM=1 CHECK="grep -q '^ Data ex. method : rdma_cm' \$co && grep -q '^ rdma_cm QPs.*: OFF' \$so" \
run_case "send_bw -z" "$a --verify" "$a --verify" 4096
# Post lists (-l): chains of 16 requests, 15 with DEFER and one doorbell
# each, every byte checked; a list not a multiple of the CQ moderation
# (several QPs, SEND's receiver posting a burst's receives at once); a
# READ list of multi-frame messages.
for t in write_bw send_bw read_bw; do
	a="$t -s 64 -l 16 -n 1600 --verify --stats"
	CHECK="grep -q '^ Post List       : 16' \$co && grep -q '^ QP counters: 1600 posted, 1500 with DEFER, 100 chains of 1600 requests (longest 16)' \$co" \
	run_case "$t -l 16" "$a" "$a" 64
done
a="send_bw -s 4096 -m 1024 -q 2 -l 8 -Q 4 -r 64 -n 400 --verify --stats"
CHECK="grep -q '^ QP counters: 800 posted, 700 with DEFER, 100 chains' \$co" \
run_case "send_bw -q 2 -l 8 -Q 4" "$a" "$a" 4096
a="read_bw -s 65536 -m 4096 -l 4 -n 40 --verify"
MEMIF=",bsize=8192" run_case "read_bw -l 4 -s 65536" "$a" "$a" 65536
# Many QPs, few outstanding each: QPs leave the active list while they
# wait for ACKs (timer wheel), the client posts to those a completion freed.
a="write_bw -q 512 -s 64 -t 8 -Q 8 -n 40 --verify"
run_case "write_bw -q 512 -t 8 -Q 8" "$a" "$a" 64
a="read_bw -q 64 -s 4096 -t 4 -Q 2 -n 20 --verify"
run_case "read_bw -q 64 -t 4 -Q 2" "$a" "$a" 4096
CHECK="grep -q 'BW_average' $TMP/json.out && grep -q 'Gb/sec' \$co" \
run_case "write_bw --report_gbits --out_json" "write_bw -s 4096 -n 100" \
	"write_bw -s 4096 -n 100 --report_gbits --out_json \
	 --out_json_file=$TMP/json.out" 4096
# The server's adapter polled by an ndk_poller on a worker lcore.
SERVER_LCORES=0-1 run_case "write_bw with a poller lcore" \
	"write_bw -s 4096 -n 200 --verify" "write_bw -s 4096 -n 200 --verify" 4096
SERVER_LCORES=0-1 run_case "send_lat with a poller lcore" \
	"send_lat -n 50 --verify" "send_lat -n 50 --verify" 2
# No --peer-mac: the provider resolves the peer's MAC by ARP. Whichever
# side sends first asks (write_lat: the server, as perftest; but an early
# frame may come from either); the other learns the MAC from the request.
NO_PEER_MAC=1 CHECK="grep -q arp_replies_rcvd \$co \$so &&
	grep -q arp_replies_sent \$co \$so" run_case \
	"write_lat, peer MAC by ARP" "write_lat -n 100 --verify --stats" \
	"write_lat -n 100 --verify --stats" 2
# Invoked through a link named like perftest's program.
ln -s "$PERF" "$TMP/ib_read_lat"
run_case "ib_read_lat (link name)" "-s 8 -n 50" "-s 8 -n 50" 8 \
	"$TMP/ib_read_lat"
# Raw-ethdev modes: the test's frames over the same port, every frame's
# length, order and bytes checked (--verify), one way (BW) or ping-pong
# (LAT); multi-frame messages in both directions; --raw-frame.
for t in write_bw read_bw send_lat read_lat; do
	a="$t -s 4096 -m 1024 -n 200 --raw --verify"
	run_case "$t --raw -s 4096 -m 1024" "$a" "$a" 4096
done
a="send_bw -s 64 -D 1 --raw --verify"
run_case "send_bw --raw -D 1" "$a" "$a" 64
a="write_lat -n 100 --raw --raw-frame 60 --verify"
run_case "write_lat --raw --raw-frame 60" "$a" "$a" 60
# MTU 4096 frames span three of memif's default 2 KiB buffers, and DPDK
# 22.11's memif loses about one in a thousand of those: give it 8 KiB
# buffers (see doc/performance.md).
a="read_bw -s 65536 -m 4096 -n 100 --raw --verify"
MEMIF=",bsize=8192" run_case "read_bw --raw -m 4096 (bsize 8192)" "$a" "$a" \
	65536
# Raw first, then the test on the same port, then the ratio line.
CHECK="grep -q '^ RoCE/raw: BW average' \$co && grep -q '^ RoCE/raw:' \$so && grep -q '^ raw phases: best of 3 by frame rate' \$co" \
run_case "write_bw --raw-baseline" "write_bw -s 4096 -n 200 --raw-baseline \
	--verify" "write_bw -s 4096 -n 200 --raw-baseline --verify" 4096
CHECK="grep -q '^ RoCE-raw: t_typical' \$co" run_case "read_lat --raw-baseline" \
	"read_lat -s 8 -n 200 --raw-baseline --verify" \
	"read_lat -s 8 -n 200 --raw-baseline --verify" 8
# Both sides must ask for the same raw mode; they fail, saying so.
run_pair "write_bw -n 100 --raw" "write_bw -n 100"
if [ "$src" -ne 0 ] && [ "$crc" -ne 0 ] &&
   grep -q 'not in a raw mode' "$so"; then
	passed=$((passed + 1)); echo "ok   --raw on one side only is refused"
else
	failed=$((failed + 1)); echo "FAIL --raw on one side only"
	tail -n 5 "$so" "$co"
fi
# --loss: 1 % of the frames each side receives dropped (lib/netem); RC
# retransmission still delivers every byte.
CHECK="grep -Eq '^ --loss: [0-9]+ frames received, [1-9][0-9]* dropped' \$co" \
run_case "write_bw --loss 1" "write_bw -s 65536 -n 200 --loss 1 --verify" \
	"write_bw -s 65536 -n 200 --loss 1 --verify --stats" 65536

# perftest's QP timeout (4.096 us * 2^18, ~1 s: no effect on a healthy link).
run_case "write_bw -u 18" "write_bw -s 4096 -n 200 -u 18 --verify" \
	"write_bw -s 4096 -n 200 -u 18 --verify" 4096

# refused NAME REASON ARGS...: ndk-perf must fail with ARGS, saying REASON
# (a grep pattern).
refused() {
	local name=$1 reason=$2
	shift 2
	if "$PERF" --no-pci --no-huge -m 64 --file-prefix=ndkperf-$$-r \
		--log-level=lib.eal:error -- "$@" --ip 10.0.0.1 \
		>"$TMP/r.out" 2>&1; then
		failed=$((failed + 1)); echo "FAIL $name was accepted"
	elif grep -q "$reason" "$TMP/r.out"; then
		passed=$((passed + 1)); echo "ok   $name refused with a reason"
	else
		failed=$((failed + 1)); echo "FAIL $name: no reason given"
		cat "$TMP/r.out"
	fi
}
# Options perftest has and we refuse must say why and fail.
refused "-R with --raw" "not with -R" write_bw -R --raw
refused "-R to a host name" "RoCE IPv4 address" write_bw -R localhost
# perftest's -u 0 means no timeout; ours cannot express it.
refused "-u 0" "QP timeout should be between 1 and 31" write_bw -u 0
# perftest's post list rules.
refused "-l 3 -Q 2" "Post list size must be a multiple of CQ moderation" \
	write_bw -l 3 -Q 2
refused "-l 16 -n 100" "multiple of post list size" write_bw -l 16 -n 100
refused "-l with a LAT test" "BW tests only" write_lat -l 4
refused "-b with a LAT test" "only available in BW test" send_lat -b
refused "--use_srq with WRITE" "SEND tests only" write_bw --use_srq

echo "($(($(date +%s) - start)) s)"
echo "perf: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
