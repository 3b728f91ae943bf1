#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-rping.sh - the `rping_rxe` interop test: rdma-core's rping on Linux
# Soft-RoCE (rxe1 in the harness's QEMU guest) against ndk-rping on the
# host, whose adapter is the guest's eth1 (vhost-user). Unlike
# ibv_rc_pingpong and perftest, rping connects with rdma_cm: the kernel's
# IB CM on QP1 (REQ, REP, RTU, DREQ, DREP MADs with RDMA-CM's IP service
# ID and header) faces our connection manager (NDK connectors/listeners),
# both ways, at guest MTU 1500 (RDMA MTU 1024) and 4200 (RDMA MTU 4096).
#
# Per case (role x size, per MTU; a fresh ndk-rping process per case on
# the guest's vhost-user socket, served by its QEMU, as lib.sh sets up):
#   guest-client  `ndk-rping -s` on the host, then `rping -c -a 10.77.1.1
#                 -V` in the guest once rxe1 is ACTIVE: our listener gets
#                 the REQ, accepts (REP), takes the RTU.
#   guest-server  `rping -s -a 10.77.1.11` in the guest (ready when
#                 `rdma res show cm_id` lists it listening), then
#                 `ndk-rping -c -V` on the host: our connector sends the REQ
#                 and the RTU.
# Every ping is rping's loop: the client SENDs its source buffer's address,
# the server RDMA READs it and SENDs "go", the client SENDs its sink's, the
# server RDMA WRITEs the data there and SENDs "go", the client compares
# (-V). Both sides must exit 0 and print every ping ("ping data:" /
# "server ping data:"); the client disconnects (DREQ/DREP). The guest
# captures eth1: tshark must decode it (no malformed frame), show the five
# CM messages, and icrc_check.py must verify every RoCEv2 ICRC, the MADs'
# included.
#
# env: NDK_INTEROP_WORK (this test uses its rping/ subdirectory)
#      NDK_RPING (default build/app/ndk-rping/ndk-rping)  TESTPMD  PYTHON
#      RP_MTUS="1500 4200"  RP_ROLES="guest-client guest-server"
#      RP_CASES="64:20 4096:10 65535:5" (SIZE:COUNT[:PROFILES]: PROFILES,
#        comma-separated, limits a case to those of RP_NETEM)  RP_LCORES=0-1
#      RP_DPDK_MEM  RP_NS=ndk-rping  RP_CASE_TIMEOUT=120
#      RP_SUBDIR=rping (this run's directory under NDK_INTEROP_WORK, and
#        its namespace $NS-<it>)
#      RP_FAMILY=4 (6: the CM and RoCEv2 over IPv6: eth1 gets
#        $IOP_GUEST_IP6, ndk-rping a dual-stack adapter with $IOP_NDK_IP6;
#        rping -a takes the IPv6 addresses, the RDMA-CM header of the REQ
#        is the IPv6 one)
#      RP_NETEM (netem profiles on the guest's eth1, "NAME=SPEC;...", as
#        run-perf.sh's PF_NETEM: each role's cases once per profile, named
#        with -NAME)
set -euo pipefail
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

IOP_RECONNECT=1
IOP_SUMMARY_HEAD="cases (frames: RoCEv2 in the capture, CM MADs included):"
iop_init "${RP_SUBDIR:-rping}" RP rp ndk-rp
ROLES=${RP_ROLES:-guest-client guest-server}
CASES=${RP_CASES:-64:20 4096:10 65535:5}
CASE_T=$IOP_CASE_TIMEOUT
NDK_RPING=${NDK_RPING:-$NDK_INTEROP_ROOT/build/app/ndk-rping/ndk-rping}
W=$IOP_WORK
GUEST_ADDR=${IOP_GUEST_IP1%/*}
NDK_ADDR=$IOP_NDK_IP
NDK_OPTS=(--ip "$IOP_NDK_IP")
FAMILY=${RP_FAMILY:-4}
if [ "$FAMILY" = 6 ]; then
	GUEST_ADDR=$IOP_GUEST_IP6
	NDK_ADDR=$IOP_NDK_IP6
	NDK_OPTS+=(--ip6 "$IOP_NDK_IP6")
fi

# pings LOG PREFIX: lines of LOG that are rping's ping data
pings() {
	grep -c "^${2}ping data: rdma-ping-[0-9]*: " "$1" || true
}

# rping_status LOG STATUS: sets RPING_RC to rping's exit status STATUS, but
# to 0 for a spurious 255 of rdma-core 44's rping (Debian 12's): its CM
# thread handles the last event (DISCONNECTED), and when the main thread
# closes the event channel before that thread is back in
# rdma_get_cm_event(), the call fails with EBADF and the thread exits the
# process with -1 although the run was complete (rdma-core PR #1622 fixed
# it upstream: the thread is told to stop and joined before the channel
# goes). Only that exact ending counts: the DISCONNECT EVENT line, then
# "rdma_get_cm_event: Bad file descriptor", status 255; the pings, the
# data check and the capture's DREQ/DREP are checked as in any case. The
# log says so. The CM thread's DISCONNECT EVENT line may land inside the
# main thread's last ping line (both print to stdout: "...nopqserver
# DISCONNECT EVENT...", the rest of the ping on a later line).
rping_status() {
	RPING_RC=$2
	if [ "$2" = 255 ] &&
		awk '/(client|server) DISCONNECT EVENT\.\.\.$/ { d = 1 }
			d && /^rdma_get_cm_event: Bad file descriptor$/ { f = 1 }
			END { exit !f }' "$1"; then
		echo "    rping exited 255 after its DISCONNECTED event with" \
			"'rdma_get_cm_event: Bad file descriptor': rdma-core 44's" \
			"teardown race (its event channel closed under its CM" \
			"thread), not the exchange's: taken as 0"
		RPING_RC=0
	fi
}

# guest_listening: rping -s has a listening cm_id in the guest (~10 s)
guest_listening() {
	local i
	for ((i = 0; i < 100; i++)); do
		iop_gx "rdma res show cm_id 2>/dev/null | grep -q 'state LISTEN'" &&
			return 0
		sleep 0.1
	done
	return 1
}

# cm_messages: the CM messages of the capture's tshark fields, "REQ x1 ..."
cm_messages() {
	local tsv=${IOP_PCAP%.pcap}.tsv m out=
	for m in ConnectRequest ConnectReply ReadyToUse DisconnectRequest \
		DisconnectReply; do
		out="$out $m x$(grep -c "CM: $m" "$tsv" 2>/dev/null || true)"
	done
	echo "${out# }"
}

# run_case MTU RDMA_MTU ROLE SIZE COUNT
run_case() {
	local mtu=$1 rmtu=$2 role=$3 size=$4 count=$5
	local name="mtu$mtu-$role-$size${IOP_NETEM_NAME:+-$IOP_NETEM_NAME}"
	local L gid nrc=0 grc=0 cm srv cli cnt0 cnt1
	local gopts="-S $size -C $count -v"
	L=$W/logs/$name
	iop_case_begin "$name"
	echo "interop: case $name: rping on rxe1 as the ${role#guest-}," \
		"ndk-rping as the" \
		"$([ "$role" = guest-client ] && echo server || echo client)," \
		"$count pings of $size B, RDMA MTU $rmtu${IOP_NETEM_NAME:+, netem $IOP_NETEM_NAME}"
	cnt0=$(iop_gh counters 2>/dev/null) || true

	iop_expect_link_down
	iop_capture_start "$name" $((mtu + 64)) || true

	if [ "$role" = guest-client ]; then
		srv=$L.ndk.log
		cli=$L.guest.log
		iop_app_start "$srv" "$NDK_RPING" "${NDK_OPTS[@]}" \
			--mtu "$rmtu" -s -S "$size" -v
		iop_gh -t $((CASE_T + 60)) "run-active 30 $CASE_T rping -c -a $NDK_ADDR $gopts -V" \
			>"$cli" 2>&1 || grc=$?
		iop_app_wait || nrc=$?
	else
		srv=$L.guest.log
		cli=$L.ndk.log
		gid=$(iop_gxb "sh /share/iop-guest.sh run-watch 60 $CASE_T rping -s -a $GUEST_ADDR $gopts") ||
			gid=none
		if guest_listening; then
			iop_app_start "$cli" "$NDK_RPING" "${NDK_OPTS[@]}" \
				--mtu "$rmtu" -c -a "$GUEST_ADDR" -S "$size" \
				-C "$count" -v -V
			iop_app_wait || nrc=$?
		else
			iop_why "rping -s is not listening in the guest"
			nrc=99
		fi
		iop_gxw $((CASE_T + 60)) "$gid" >"$srv" 2>&1 || grc=$?
	fi
	cnt1=$(iop_gh counters 2>/dev/null) || true
	iop_capture_stop "$name"

	rping_status "$L.guest.log" "$grc"
	[ "$nrc" = 0 ] || iop_why "ndk-rping exit status $nrc"
	[ "$RPING_RC" = 0 ] || iop_why "rping exit status $grc"
	[ "$(pings "$cli" "")" = "$count" ] ||
		iop_why "the client printed $(pings "$cli" "") of $count pings"
	[ "$(pings "$srv" "server ")" = "$count" ] ||
		iop_why "the server printed $(pings "$srv" "server ") of $count pings"
	! grep -q 'data mismatch' "$cli" || iop_why "rping -V: data mismatch"
	{ grep -h '^link: ' "$L.guest.log" || true; } | sed 's/^/    guest /'
	if [ ${#IOP_WHY[@]} -gt 0 ]; then
		iop_tail ndk-rping "$L.ndk.log" 25
		iop_tail rping "$L.guest.log" 15
	fi

	# The capture: tshark, the CM handshake, every ICRC.
	iop_capture_check --ndk-ip "$NDK_ADDR" --guest-ip "$GUEST_ADDR" \
		--ndk-mac "$IOP_NDK_MAC" --min-roce $((count * 8 + 5))
	cm=$(cm_messages)
	echo "    CM: $cm"
	# Frames sent per frame needed: per ping the client's two SENDs, the
	# server's READ request, READ response and WRITE (ceil(S/M) frames
	# each) and two SENDs; five CM messages.
	iop_frames_ratio $((count * (2 * ((size + rmtu - 1) / rmtu) + 5) + 5)) \
		"$cnt0" "$cnt1"
	# The CM sends its RTU once, never again: with loss on the guest's
	# egress the guest's may be lost, and our side takes the first data
	# frame as it (the pings above show the connection went on).
	rtu='x[1-9]'
	if [ "$role" = guest-client ] && [[ $IOP_NETEM_SPEC == *loss* ]]; then
		rtu='x[0-9]'
		[[ ! $cm =~ ReadyToUse\ x0 ]] ||
			echo "    CM: the guest's ReadyToUse lost on the wire (implied by its first data)"
	fi
	[[ $cm =~ ConnectRequest\ x[1-9].*ConnectReply\ x[1-9].*ReadyToUse\ $rtu.*DisconnectRequest\ x[1-9].*DisconnectReply\ x[1-9] ]] ||
		iop_why "the capture lacks a CM message: $cm"
	iop_case_end "${count}x${size} B; $IOP_CAP_SUM, $IOP_CAP_MALFORMED malformed; $cm"
}

# rping_cases MTU RDMA_MTU ROLE: every case of RP_CASES
rping_cases() {
	local c size count profs
	for c in $CASES; do
		IFS=: read -r size count profs <<<"$c"
		iop_netem_case "$profs" || continue
		run_case "$1" "$2" "$3" "$size" "$count"
	done
}

# --- one MTU: boot, every case, stop ---------------------------------------
rping_mtu() {
	local mtu=$1 rmtu role c
	rmtu=$(iop_rdma_mtu "$mtu")
	iop_boot_guest "$mtu" && iop_release_boot_server "$mtu" || return 0
	if [ "$FAMILY" = 6 ]; then
		echo "interop: $(iop_gh "ip6 $IOP_GUEST_IP6/64 $IOP_GUEST_GID6" 2>&1)"
	fi
	for role in $ROLES; do
		iop_gh "arp-dynamic $IOP_NDK_IP" >/dev/null 2>&1 || true
		iop_gh "nd-dynamic $IOP_NDK_IP6" >/dev/null 2>&1 || true
		iop_netem_profiles "${RP_NETEM:-}" rping_cases "$mtu" "$rmtu" "$role"
	done
	iop_guest_end "$mtu"
}

# --- main ------------------------------------------------------------------
if iop_prepare --capture "$NDK_RPING"; then
	for mtu in $IOP_MTUS; do
		rping_mtu "$mtu"
	done
fi
