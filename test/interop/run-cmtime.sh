#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-cmtime.sh - the `cmtime_rxe` interop test: rdma-core's cmtime (many
# rdma_cm connections set up at once, then torn down) on Linux Soft-RoCE
# (rxe1 in the harness's QEMU guest) against ndk-cmtime on the host, both
# ways: the kernel's IB CM faces our connection manager with hundreds or
# thousands of handshakes in flight.
#
# Per case (role x connections; a fresh ndk-cmtime process per case):
#   guest-client  `ndk-cmtime` (server) on the host, then `cmtime -s
#                 10.77.1.1 -c N` in the guest: every connection is
#                 accepted on its own QP, established and disconnected;
#                 cmtime reports no error event, our server counts N
#                 accepted and none refused.
#   guest-server  `cmtime` (server) in the guest, then `ndk-cmtime -s
#                 <guest> -c N` on the host: no connection fails, every one
#                 is disconnected (DREQ/DREP).
# Both print cmtime's table (connect / disconnect total ms, us per
# connection). The guest captures eth1: tshark must decode it (no
# malformed frame) and icrc_check.py must verify every ICRC of the MADs.
#
# env: NDK_INTEROP_WORK (this test uses its cmtime/ subdirectory)
#      NDK_CMTIME (default build/app/ndk-cmtime/ndk-cmtime)  TESTPMD  PYTHON
#      CT_MTUS="1500"  CT_ROLES="guest-client guest-server"
#      CT_CASES="200 2000" (connections)  CT_LCORES  CT_DPDK_MEM
#      CT_NS=ndk-cmtime  CT_CASE_TIMEOUT=120
set -euo pipefail
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

IOP_RECONNECT=1
IOP_SUMMARY_HEAD="cases (connections; set-up and tear-down, us per connection):"
CT_MTUS=${CT_MTUS:-1500}
iop_init cmtime CT ct ndk-ct
ROLES=${CT_ROLES:-guest-client guest-server}
CASES=${CT_CASES:-200 2000}
CASE_T=$IOP_CASE_TIMEOUT
NDK_CMTIME=${NDK_CMTIME:-$NDK_INTEROP_ROOT/build/app/ndk-cmtime/ndk-cmtime}
W=$IOP_WORK
GUEST_ADDR=${IOP_GUEST_IP1%/*}
NDK_ADDR=$IOP_NDK_IP

# row LOG STEP: cmtime's "us / conn" of STEP in LOG ("?" if none)
row() {
	awk -v s="$2" -F: '$1 ~ "^"s" *$" { n = split($2, f, " "); print f[n]; found = 1 }
		END { if (!found) print "?" }' "$1"
}

# guest_listening: cmtime has a listening cm_id in the guest (~10 s)
guest_listening() {
	local i
	for ((i = 0; i < 100; i++)); do
		iop_gx "rdma res show cm_id 2>/dev/null | grep -q 'state LISTEN'" &&
			return 0
		sleep 0.1
	done
	return 1
}

# run_case MTU ROLE N
run_case() {
	local mtu=$1 role=$2 n=$3
	local name="mtu$mtu-$role-$n" L gid nrc=0 grc=0 got cli
	L=$W/logs/$name
	iop_case_begin "$name"
	echo "interop: case $name: cmtime on rxe1 as the ${role#guest-}," \
		"ndk-cmtime as the" \
		"$([ "$role" = guest-client ] && echo server || echo client)," \
		"$n connections at once"

	iop_expect_link_down
	iop_capture_start "$name" 400 || true

	if [ "$role" = guest-client ]; then
		cli=$L.guest.log
		iop_app_start "$L.ndk.log" "$NDK_CMTIME" --ip "$NDK_ADDR" \
			--stats
		iop_gh -t $((CASE_T + 60)) "run-active 30 $CASE_T cmtime -s $NDK_ADDR -c $n" \
			>"$cli" 2>&1 || grc=$?
		iop_app_kill
		got=$(sed -n 's/^ndk-cmtime: \([0-9]*\) connection(s) accepted, \([0-9]*\) refused$/\1 \2/p' \
			"$L.ndk.log")
		[ "$got" = "$n 0" ] ||
			iop_why "ndk-cmtime accepted/refused: '${got:-none}', want '$n 0'"
		! grep -q '^event: ' "$cli" ||
			iop_why "cmtime: $(grep -c '^event: ' "$cli") error event(s)"
	else
		cli=$L.ndk.log
		gid=$(iop_gxb "sh /share/iop-guest.sh run-watch 60 $((CASE_T + 30)) cmtime") ||
			gid=none
		if guest_listening; then
			iop_app_start "$cli" "$NDK_CMTIME" --ip "$NDK_ADDR" \
				-s "$GUEST_ADDR" -c "$n" --stats
			iop_app_wait || nrc=$?
		else
			iop_why "cmtime is not listening in the guest"
			nrc=99
		fi
		iop_gx "pkill cmtime || killall cmtime" >/dev/null 2>&1 || true
		iop_gxw 60 "$gid" >"$L.guest.log" 2>&1 || true
		! grep -q 'connections failed' "$cli" ||
			iop_why "$(grep 'connections failed' "$cli")"
	fi
	iop_capture_stop "$name"

	[ "$nrc" = 0 ] || iop_why "ndk-cmtime exit status $nrc"
	[ "$grc" = 0 ] || iop_why "cmtime exit status $grc"
	[ "$(row "$cli" disconnect)" != "?" ] ||
		iop_why "the client printed no table"
	{ grep -h '^link: ' "$L.guest.log" || true; } | sed 's/^/    guest /'
	if [ ${#IOP_WHY[@]} -gt 0 ]; then
		iop_tail ndk-cmtime "$L.ndk.log" 30
		iop_tail cmtime "$L.guest.log" 15
	fi
	iop_capture_check --ndk-ip "$NDK_ADDR" --guest-ip "$GUEST_ADDR" \
		--ndk-mac "$IOP_NDK_MAC" --min-roce $((n * 4))
	iop_case_end "$n; connect $(row "$cli" connect) us, disconnect $(row "$cli" disconnect) us; $IOP_CAP_SUM, $IOP_CAP_MALFORMED malformed"
}

# --- one MTU: boot, every case, stop ---------------------------------------
cmtime_mtu() {
	local mtu=$1 role c
	iop_boot_guest "$mtu" && iop_release_boot_server "$mtu" || return 0
	for role in $ROLES; do
		iop_gh "arp-dynamic $IOP_NDK_IP" >/dev/null 2>&1 || true
		for c in $CASES; do
			run_case "$mtu" "$role" "$c"
		done
	done
	iop_guest_end "$mtu"
}

# --- main ------------------------------------------------------------------
if iop_prepare --capture "$NDK_CMTIME"; then
	for mtu in $IOP_MTUS; do
		cmtime_mtu "$mtu"
	done
fi
