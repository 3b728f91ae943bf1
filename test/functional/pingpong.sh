#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ndk-pingpong between two processes on this host: a server and a client,
# each with its own adapter on one end of a net_memif link (lcores 0 and 1),
# the QPN/PSN/GID exchange over TCP on 127.0.0.1. Every case runs
# ibv_rc_pingpong's loop with --chk and checks that both sides exit 0 and
# print their address and result lines.
#
#   pingpong.sh <path to ndk-pingpong>
#
# Environment: NDKPP_ITERS (default 300), NDKPP_NO_HUGE=1 forces --no-huge.
# Ends with "pingpong: N passed, N failed, N skipped"; exit 0 if none
# failed, 77 (meson: skipped) if memif is not available.
#
# memif notes:
# - bsize=8192: DPDK 22.11's memif copy TX path never clears the "next"
#   flag of the first descriptor of a packet, so once frames larger than a
#   memif buffer (2048 by default; 4096-byte RoCE MTU frames are ~4.2 KB)
#   have used a slot, a later one-descriptor frame in that slot (an ACK) is
#   chained to whatever follows and RX runs past the ring producer: floods
#   of stale and corrupt frames. With buffers larger than any frame nothing
#   is ever chained.
# - the memif server must exist before the client starts, and neither may
#   disconnect while the other polls (a PMD crash): ndk-pingpong orders its
#   own shutdown; the script starts the memif and TCP server first.

set -u

BIN=${1:?usage: pingpong.sh <ndk-pingpong binary>}
ITERS=${NDKPP_ITERS:-300}
TMP=$(mktemp -d /tmp/ndkpp-$$.XXXXXX)
PIDS=()
PASSED=0
FAILED=0
SKIPPED=0

cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	sleep 0.2
	for p in "${PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$TMP"
	rm -f /tmp/ndkpp-$$-*.sock
	# --no-huge runs leave their --file-prefix runtime directories.
	rm -rf /var/run/dpdk/ndkpp-$$-* "${XDG_RUNTIME_DIR:-/tmp}"/dpdk/ndkpp-$$-*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -x "$BIN" ]; then
	echo "pingpong: $BIN is not an executable"
	echo "pingpong: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
if ! ls /usr/lib/*/dpdk/pmds-*/librte_net_memif.so* >/dev/null 2>&1 &&
   ! ls /usr/local/lib*/dpdk/pmds-*/librte_net_memif.so* >/dev/null 2>&1 &&
   ! ldconfig -p 2>/dev/null | grep -q librte_net_memif; then
	echo "pingpong: the DPDK memif PMD is not installed: skipped"
	echo "pingpong: 0 passed, 0 failed, 1 skipped"
	exit 77
fi

# EAL memory: in-memory hugepages when enough are free, else plain memory.
free_huge=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
if [ "${NDKPP_NO_HUGE:-0}" != 1 ] && [ "${free_huge:-0}" -ge 256 ]; then
	eal_mem() { echo "--in-memory"; }
	echo "pingpong: EAL memory: hugepages (--in-memory), $free_huge free"
else
	eal_mem() { echo "--no-huge -m 512 --file-prefix=ndkpp-$$-$1"; }
	echo "pingpong: EAL memory: --no-huge (${free_huge:-0} hugepages free)"
fi

free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# Is a TCP socket listening on port $1?
listening() {
	local hex
	hex=$(printf '%04X' "$1")
	awk -v p=":$hex" '$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}

MAC_S=02:4e:44:4b:00:01
MAC_C=02:4e:44:4b:00:02
IP_S=10.77.0.11
IP_C=10.77.0.12

# check_side <log> <size> <peer ip>: the address and result lines ($QPS
# of each address line: ibv_srq_pingpong prints one per QP).
QPS=1
check_side() {
	local log=$1 size=$2 peer=$3
	local bytes=$((size * ITERS * 2))
	local hexq='0x[0-9a-f]{6}'
	local mine='::ffff:10\.77\.0\.1[12]'

	if [ "$FAM" = 6 ]; then
		mine='fd77::1[12]'
		peer=${peer/10.77.0./fd77::}
	else
		peer=::ffff:${peer//./\\.}
	fi
	grep -Eq "^  local address:  LID 0x0000, QPN $hexq, PSN $hexq, GID $mine$" "$log" &&
	grep -Eq "^  remote address: LID 0x0000, QPN $hexq, PSN $hexq, GID $peer$" "$log" &&
	grep -Eq "^$bytes bytes in [0-9]+\.[0-9]{2} seconds = [0-9]+\.[0-9]{2} Mbit/sec$" "$log" &&
	grep -Eq "^$ITERS iters in [0-9]+\.[0-9]{2} seconds = [0-9]+\.[0-9]{2} usec/iter$" "$log" &&
	[ "$(grep -c '^  local address: ' "$log")" = "$QPS" ] &&
	[ "$(grep -c '^  remote address: ' "$log")" = "$QPS" ]
}

# With FAM=6 the adapters are dual-stack (fd77::11 beside 10.77.0.11, ...)
# and -g 1 picks their IPv6 GID: the QPs speak RoCEv2 over IPv6.
FAM=4
ip6_opts() {
	[ "$FAM" = 6 ] && echo "--ip6 ${1/10.77.0./fd77::} -g 1"
}

# run_case <name> <size> <mtu> <mac: static|arp> [extra options]
run_case() {
	local name=$1 size=$2 mtu=$3 mac=$4
	shift 4
	local extra=("$@")
	local port sock s_out s_err c_out c_err s_pid c_pid s_rc c_rc
	local s_mac=() c_mac=() why=""

	port=$(free_port)
	sock=/tmp/ndkpp-$$-$name.sock
	s_out=$TMP/$name.server.out s_err=$TMP/$name.server.err
	c_out=$TMP/$name.client.out c_err=$TMP/$name.client.err
	if [ "$mac" = static ]; then
		s_mac=(--peer-mac "$MAC_C")
		c_mac=(--peer-mac "$MAC_S")
	fi

	# shellcheck disable=SC2046 # eal_mem is meant to split
	timeout 120 "$BIN" -l 0 --no-pci $(eal_mem "$name-s") \
		--vdev="net_memif0,role=server,socket=$sock,mac=$MAC_S,bsize=8192" \
		-- --ip "$IP_S" $(ip6_opts "$IP_S") -p "$port" -s "$size" \
		-m "$mtu" -n "$ITERS" \
		-c "${s_mac[@]}" "${extra[@]}" >"$s_out" 2>"$s_err" &
	s_pid=$!
	PIDS+=("$s_pid")
	for _ in $(seq 300); do
		listening "$port" && break
		kill -0 "$s_pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! listening "$port"; then
		why="the server never listened on TCP port $port"
		kill -TERM "$s_pid" 2>/dev/null
	else
		# shellcheck disable=SC2046
		timeout 120 "$BIN" -l 1 --no-pci $(eal_mem "$name-c") \
			--vdev="net_memif0,role=client,socket=$sock,mac=$MAC_C,bsize=8192" \
			-- --ip "$IP_C" $(ip6_opts "$IP_C") -p "$port" \
			-s "$size" -m "$mtu" \
			-n "$ITERS" -c "${c_mac[@]}" "${extra[@]}" 127.0.0.1 \
			>"$c_out" 2>"$c_err" &
		c_pid=$!
		PIDS+=("$c_pid")
		wait "$c_pid"
		c_rc=$?
	fi
	wait "$s_pid"
	s_rc=$?
	PIDS=()
	rm -f "$sock"

	if [ -z "$why" ]; then
		if [ "$s_rc" != 0 ] || [ "$c_rc" != 0 ]; then
			why="exit status: server $s_rc, client $c_rc"
		elif ! check_side "$s_out" "$size" "$IP_C"; then
			why="server output is not ibv_rc_pingpong's"
		elif ! check_side "$c_out" "$size" "$IP_S"; then
			why="client output is not ibv_rc_pingpong's"
		fi
	fi
	if [ -z "$why" ]; then
		PASSED=$((PASSED + 1))
		printf 'ok     %-16s size %6s mtu %4s: %s\n' "$name" "$size" \
			"$mtu" "$(grep 'usec/iter' "$c_out")"
		return
	fi
	FAILED=$((FAILED + 1))
	printf 'FAILED %-16s size %6s mtu %4s: %s\n' "$name" "$size" "$mtu" \
		"$why"
	for f in "$s_out" "$s_err" "$c_out" "$c_err"; do
		[ -f "$f" ] || continue
		echo "--- ${f##*/}"
		grep -Ev '^(EAL|TELEMETRY): |mp action callback' "$f" | tail -25
	done
}

for mtu in 1024 4096; do
	for size in 1 4096 65536; do
		run_case "s${size}_m${mtu}" "$size" "$mtu" static
	done
done
# CQ events instead of busy polling; the peer MAC resolved by ARP.
run_case events_s65536 65536 1024 static -e
run_case arp_s4096 4096 1024 arp
# RoCEv2 over IPv6 (GID index 1), the peer resolved by neighbour discovery.
FAM=6
run_case ip6_s65536 65536 1024 static
run_case ip6_nd_s4096 4096 4096 arp
FAM=4
# ibv_srq_pingpong (-q): QPs sharing one SRQ, a SEND in flight on each, the
# exchange of 256 addresses; with -e; one receive per QP (-r = -q).
QPS=16
run_case srq_q16_s4096 4096 1024 static -q 16
QPS=4
run_case srq_q4_e_s65536 65536 4096 arp -q 4 -e
run_case srq_q4_r4_s1 1 1024 static -q 4 -r 4
QPS=1

echo "pingpong: $PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" = 0 ]
