#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ndk-rping between two processes on this host, each with its own adapter
# on one end of a net_memif link (lcores 0 and 1). The connection is made
# by the connection manager (IB CM over QP1: REQ, REP, RTU, DREQ, DREP);
# every case runs rping's loop (SEND, RDMA READ, SEND, RDMA WRITE, SEND)
# with -V and checks that both sides exit 0 and print every ping's data.
#
#   rping.sh <path to ndk-rping>
#
# Ends with "rping: N passed, N failed, N skipped"; exit 0 if none failed,
# 77 (meson: skipped) if memif is not available. See pingpong.sh for the
# memif settings (bsize=8192, server first); ndk-rping stops polling and
# waits before it closes its port, so neither side polls while the other
# disconnects.

set -u

BIN=${1:?usage: rping.sh <ndk-rping binary>}
COUNT=${NDKRP_COUNT:-20}
# shellcheck disable=SC1091 source=memif_lib.sh
. "$(dirname "$0")/memif_lib.sh"
memif_begin ndkrp rping

IP_S=10.77.0.11
IP_C=10.77.0.12
# The adapters' addresses and the one the client connects to (see the
# IPv6 cases at the end).
OPTS_S=(--ip "$IP_S")
OPTS_C=(--ip "$IP_C")
SRV_A=$IP_S

# run_case NAME SIZE MTU [extra server options]
run_case() {
	local name=$1 size=$2 mtu=$3
	shift 3
	local sock=$TMP/$name.sock why="" s_pid c_pid s_rc c_rc n
	local eal=(--no-pci --no-huge -m 256)

	timeout 120 "$BIN" -l 0 "${eal[@]}" --file-prefix="ndkrp-$$-$name-s" \
		--vdev="net_memif0,role=server,socket=$sock,bsize=8192" \
		-- -s "${OPTS_S[@]}" --mtu "$mtu" -S "$size" -v "$@" \
		>"$TMP/$name.s.out" 2>"$TMP/$name.s.err" &
	s_pid=$!
	PIDS=("$s_pid")
	memif_wait_server "$sock"
	timeout 120 "$BIN" -l 1 "${eal[@]}" --file-prefix="ndkrp-$$-$name-c" \
		--vdev="net_memif0,role=client,socket=$sock,bsize=8192" \
		-- -c -a "$SRV_A" "${OPTS_C[@]}" --mtu "$mtu" -S "$size" \
		-C "$COUNT" -v -V >"$TMP/$name.c.out" 2>"$TMP/$name.c.err" &
	c_pid=$!
	PIDS+=("$c_pid")
	wait "$c_pid"
	c_rc=$?
	wait "$s_pid"
	s_rc=$?
	PIDS=()

	if [ "$s_rc" != 0 ] || [ "$c_rc" != 0 ]; then
		why="exit status: server $s_rc, client $c_rc"
	else
		n=$(grep -c '^ping data: rdma-ping-[0-9]*: [A-Za-z]' \
			"$TMP/$name.c.out")
		[ "$n" = "$COUNT" ] || why="client printed $n of $COUNT pings"
		n=$(grep -c '^server ping data: rdma-ping-[0-9]*: ' \
			"$TMP/$name.s.out")
		[ "$n" = "$COUNT" ] || why="server printed $n of $COUNT pings"
	fi
	if [ -z "$why" ]; then
		PASSED=$((PASSED + 1))
		printf 'ok     %-12s size %5s mtu %4s\n' "$name" "$size" "$mtu"
		return
	fi
	FAILED=$((FAILED + 1))
	printf 'FAILED %-12s size %5s mtu %4s: %s\n' "$name" "$size" "$mtu" \
		"$why"
	for f in "$TMP/$name".{s,c}.{out,err}; do
		echo "--- ${f##*/}"
		grep -Ev '^(EAL|TELEMETRY): ' "$f" | tail -15
	done
}

run_case s64_m1024 64 1024
run_case s4096_m1024 4096 1024
run_case s65535_m4096 65535 4096
run_case debug_s100 100 4096 -d
# The CM over IPv6: a dual-stack server listening on the IPv6 wildcard
# (both families), an IPv6-only client connecting to fd77::11.
OPTS_S=(--ip "$IP_S" --ip6 fd77::11)
OPTS_C=(--ip6 fd77::12)
SRV_A=fd77::11
run_case ip6_s4096 4096 1024
# The same server, an IPv4 client: the IPv6 wildcard takes it too.
OPTS_C=(--ip "$IP_C")
SRV_A=$IP_S
run_case dual_v4_s64 64 4096

echo "rping: $PASSED passed, $FAILED failed, 0 skipped"
[ "$FAILED" = 0 ]
