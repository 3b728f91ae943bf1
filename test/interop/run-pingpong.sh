#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-pingpong.sh - the `pingpong_rxe` interop test: rdma-core's
# ibv_rc_pingpong on Linux Soft-RoCE (rxe1 in the harness's QEMU guest)
# against ndk-pingpong on the host, whose adapter is the guest's eth1
# (vhost-user), in both roles, at guest MTU 1500 (RDMA MTU 1024) and 4200
# (RDMA MTU 4096), for message sizes 2 B, 4 KiB, 64 KiB and 1 MiB.
#
# One guest per MTU, booted once; every case then runs a fresh ndk-pingpong
# process on the same vhost-user socket. QEMU is the socket's server
# (run-guest.sh VHOST_SERVER=1: `-chardev socket,...,server=on`) and each
# DPDK process its client (`net_vhost0,...,client=1`), which connects the
# moment its port starts. QEMU only starts the guest once a client has
# connected, so dpdk-testpmd is the client during the boot and quits; from
# then on eth1's carrier (and rxe1) goes down whenever a DPDK process exits
# and comes back when the next one starts, which every case checks.
#
# Per case (role x size, per MTU):
#   guest-client  ndk-pingpong server in the namespace (listening on the
#                 bridge), then `ibv_rc_pingpong -d rxe1 -g 1 ... 10.77.0.1`
#                 in the guest once rxe1 is ACTIVE again. The guest resolves
#                 our address with ARP (our adapter answers).
#   guest-server  `ibv_rc_pingpong -d rxe1 -g 1 ...` in the guest, then the
#                 ndk-pingpong client connecting to the guest's eth0. The
#                 guest moves its QP to RTR as soon as our address arrives,
#                 i.e. while eth1 is still down (ndk-pingpong connects before
#                 its port is up) and Linux has flushed the ARP cache on the
#                 carrier loss: rxe's RTR would fail ("Failed to modify QP to
#                 RTR"), so these cases use a permanent ARP entry for our
#                 adapter, whose MAC is stable (the vhost PMD's default).
# Both sides use -c (--chk) and must exit 0 with their "bytes in"/"iters in"
# lines; ibv_rc_pingpong's own check ("invalid data in page") must stay
# silent. tcpdump in the guest captures eth1 for each case (pcaps in
# $W/pcap); each capture is decoded by tshark (no malformed frame allowed)
# and every RoCEv2 frame's ICRC recomputed by icrc_check.py, which also
# requires exactly the SEND packets the run implies, in both directions.
#
# With PP_SRQ_QPS=N the guest runs ibv_srq_pingpong -q N instead (N RC
# QPs receiving through one SRQ, its TCP exchange of 256 addresses) and
# ndk-pingpong its SRQ mode (-q N): every QPN/PSN pair must match across
# the two logs, both sides print their result lines, and the capture's
# ICRCs are all recomputed (the message count per QP is not fixed in that
# tool, so no per-QP SEND structure is required, only the RoCEv2 frames of
# at least 2 x iters messages).
#
# Cleans up on exit, failure or signal: no QEMU, ndk-pingpong, testpmd,
# namespace or tap is left, nor the DPDK runtime dirs it created (lib.sh).
# Ends with "interop: N passed, N failed, N skipped".
#
# env: NDK_INTEROP_WORK (default build/interop; this test uses its
#        pingpong/ subdirectory)  NDK_PINGPONG (the binary; default
#        build/app/ndk-pingpong/ndk-pingpong)  TESTPMD=dpdk-testpmd
#      PP_MTUS="1500 4200"  PP_ROLES="guest-client guest-server"
#      PP_CASES="2:300 4096:200 65536:40 1048576:8" (SIZE:ITERS)
#      PP_LCORES=0-1  PP_DPDK_MEM (EAL memory flags; default --in-memory
#      with free hugepages, else --no-huge -m 512)  PP_NS=ndk-pingpong
#      PP_CASE_TIMEOUT=120 (s, each side of a case)  PYTHON=python3
#      PP_SRQ_QPS (unset: ibv_rc_pingpong; N: ibv_srq_pingpong -q N)
#      PP_FAMILY=4 (6: RoCEv2 over IPv6: eth1 gets $IOP_GUEST_IP6, rxe1
#        uses its GID 2, ndk-pingpong a dual-stack adapter with
#        $IOP_NDK_IP6 as GID 1; the guest finds us by neighbour discovery
#        in both roles: busybox cannot make a permanent IPv6 neighbour,
#        and rxe's RTR does not need one, its first frames wait for the
#        answer)
#      and run-guest.sh's BOOT, BOOT_TIMEOUT, ACCEL
set -euo pipefail
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

IOP_RECONNECT=1
IOP_SUMMARY_HEAD="cases (frames: RoCEv2 in the capture; retx: SEND packets seen again, ndk->guest / guest->ndk):"
iop_init pingpong PP pp ndk-pp
ROLES=${PP_ROLES:-guest-client guest-server}
CASES=${PP_CASES:-2:300 4096:200 65536:40 1048576:8}
CASE_T=$IOP_CASE_TIMEOUT
NDK_PINGPONG=${NDK_PINGPONG:-$NDK_INTEROP_ROOT/build/app/ndk-pingpong/ndk-pingpong}
W=$IOP_WORK
FAMILY=${PP_FAMILY:-4}
SRQ_QPS=${PP_SRQ_QPS:-}
TOOL=ibv_rc_pingpong
QOPT=()
if [ -n "$SRQ_QPS" ]; then
	TOOL=ibv_srq_pingpong
	QOPT=(-q "$SRQ_QPS")
fi
if [ "$FAMILY" = 6 ]; then
	G_GID=$IOP_GUEST_GID6
	NDK_ADDR=(--ip "$IOP_NDK_IP" --ip6 "$IOP_NDK_IP6")
	N_GID=1
	CAP_NDK=$IOP_NDK_IP6
	CAP_GUEST=$IOP_GUEST_IP6
else
	G_GID=1
	NDK_ADDR=(--ip "$IOP_NDK_IP")
	N_GID=0
	CAP_NDK=$IOP_NDK_IP
	CAP_GUEST=${IOP_GUEST_IP1%/*}
fi

# --- one case ----------------------------------------------------------------
# addr_field LOG WHICH FIELD: QPN or PSN of the "local"/"remote" address line
addr_field() {
	sed -n "s/^ *$2 address: .* $3 \\(0x[0-9a-f]*\\).*/\\1/p" "$1" | head -n 1
}

# addr_list LOG WHICH: "QPN PSN" of every "local"/"remote" address line
addr_list() {
	sed -n "s/^ *$2 address: .* QPN \(0x[0-9a-f]*\), PSN \(0x[0-9a-f]*\).*/\1 \2/p" "$1"
}

# result_lines LOG: the two lines ibv_rc_pingpong prints at the end
result_lines() {
	grep -E '^[0-9]+ (bytes|iters) in [0-9.]+ seconds' "$1" || true
}

# run_case MTU RDMA_MTU ROLE SIZE ITERS
run_case() {
	local mtu=$1 rmtu=$2 role=$3 size=$4 iters=$5
	local name="mtu$mtu-$role-$size" L gid nrc=0 grc=0
	local opts=(-m "$rmtu" -s "$size" -n "$iters" -c "${QOPT[@]}")
	local gopts=(-g "$G_GID" "${opts[@]}") nopts=("${NDK_ADDR[@]}" -g "$N_GID" "${opts[@]}")
	L=$W/logs/$name
	iop_case_begin "$name"
	echo "interop: case $name: $TOOL${SRQ_QPS:+ -q $SRQ_QPS} on rxe1 as the" \
		"${role#guest-}, ndk-pingpong as the" \
		"$([ "$role" = guest-client ] && echo server || echo client)," \
		"${size} B x $iters, RDMA MTU $rmtu"

	# The previous DPDK process is gone: eth1 and rxe1 must be down.
	iop_capture_start "$name" $((mtu + 64)) || true
	iop_expect_link_down "$IOP_CAP_BEFORE"

	if [ "$role" = guest-client ]; then
		iop_app_start "$L.ndk.log" "$NDK_PINGPONG" "${nopts[@]}"
		if iop_host_listening 18515; then
			iop_gh -t $((CASE_T + 60)) "run-active 30 $CASE_T $TOOL -d rxe1 ${gopts[*]} $IOP_HOST_ADDR" \
				>"$L.guest.log" 2>&1 || grc=$?
		else
			iop_why "ndk-pingpong is not listening on TCP 18515"
			grc=99
			iop_app_kill
		fi
		iop_app_wait || nrc=$?
	else
		gid=$(iop_gxb "sh /share/iop-guest.sh run-watch 60 $CASE_T $TOOL -d rxe1 ${gopts[*]}") ||
			gid=none
		if iop_guest_listening 18515; then
			iop_app_start "$L.ndk.log" "$NDK_PINGPONG" \
				"${nopts[@]}" "${IOP_GUEST_IP%/*}"
			iop_app_wait || nrc=$?
		else
			iop_why "$TOOL is not listening in the guest"
			nrc=99
		fi
		iop_gxw $((CASE_T + 60)) "$gid" >"$L.guest.log" 2>&1 || grc=$?
	fi

	# Stop the capture once both sides are gone, fetch it.
	iop_capture_stop "$name"

	# Verdicts: both sides
	[ "$nrc" = 0 ] || iop_why "ndk-pingpong exit status $nrc"
	[ "$grc" = 0 ] || iop_why "$TOOL exit status $grc"
	[ "$(result_lines "$L.ndk.log" | wc -l)" = 2 ] ||
		iop_why "ndk-pingpong printed no result lines"
	[ "$(result_lines "$L.guest.log" | wc -l)" = 2 ] ||
		iop_why "$TOOL printed no result lines"
	! grep -q 'invalid data' "$L.guest.log" ||
		iop_why "$TOOL --chk: $(grep -c 'invalid data' "$L.guest.log") invalid pages"
	local nq np gq gp
	nq=$(addr_field "$L.ndk.log" local QPN)
	np=$(addr_field "$L.ndk.log" local PSN)
	gq=$(addr_field "$L.guest.log" local QPN)
	gp=$(addr_field "$L.guest.log" local PSN)
	if [ -z "$nq" ] || [ -z "$gq" ] ||
		[ "$(addr_field "$L.ndk.log" remote QPN)" != "$gq" ] ||
		[ "$(addr_field "$L.ndk.log" remote PSN)" != "$gp" ] ||
		[ "$(addr_field "$L.guest.log" remote QPN)" != "$nq" ] ||
		[ "$(addr_field "$L.guest.log" remote PSN)" != "$np" ]; then
		iop_why "the QPN/PSN exchange does not match"
	fi
	if [ -n "$SRQ_QPS" ]; then
		[ "$(addr_list "$L.ndk.log" local | wc -l)" = "$SRQ_QPS" ] &&
			[ "$(addr_list "$L.ndk.log" remote)" = "$(addr_list "$L.guest.log" local)" ] &&
			[ "$(addr_list "$L.guest.log" remote)" = "$(addr_list "$L.ndk.log" local)" ] ||
			iop_why "the $SRQ_QPS QPN/PSN pairs of the exchange do not match"
	fi
	{ grep -h '^link: ' "$L.guest.log" || true; } | sed 's/^/    guest /'
	result_lines "$L.guest.log" | sed "s/^/    $TOOL: /"
	result_lines "$L.ndk.log" | sed 's/^/    ndk-pingpong:    /'
	if [ ${#IOP_WHY[@]} -gt 0 ]; then
		iop_tail ndk-pingpong "$L.ndk.log" 25
		iop_tail "$TOOL" "$L.guest.log" 15
	fi

	# The capture: tshark, the ICRC of every frame and the SEND structure
	# (with an SRQ: ICRCs and the frame count only, see the top).
	local per_msg=$(((size + rmtu - 1) / rmtu)) rx
	if [ -n "$SRQ_QPS" ]; then
		iop_capture_check --ndk-ip "$CAP_NDK" --guest-ip "$CAP_GUEST" \
			--ndk-mac "$IOP_NDK_MAC" \
			--min-roce $((2 * iters * per_msg + 2))
		iop_case_end "${iters}x${size} B over $SRQ_QPS QPs; ndk $(result_lines "$L.ndk.log" | sed -n 's/.* seconds = \(.*\)/\1/p' | paste -sd, | sed 's/,/, /'); $IOP_CAP_SUM, $IOP_CAP_MALFORMED malformed"
		return
	fi
	iop_capture_check \
		--ndk-ip "$CAP_NDK" --guest-ip "$CAP_GUEST" \
		--ndk-mac "$IOP_NDK_MAC" --size "$size" --mtu "$rmtu" \
		--iters "$iters" ${nq:+--ndk-qpn "$nq"} ${gq:+--guest-qpn "$gq"} \
		${np:+--ndk-psn "$np"} ${gp:+--guest-psn "$gp"} \
		--min-roce $((2 * iters * per_msg + 2))
	rx=$(sed -n 's/.*(\([0-9]*\) distinct PSNs, expected [0-9]*; \([0-9]*\) retransmitted).*/\2/p' <<<"$IOP_CAP_OUT" | paste -sd/)
	iop_case_end "${iters}x${size} B; ndk $(result_lines "$L.ndk.log" | sed -n 's/.* seconds = \(.*\)/\1/p' | paste -sd, | sed 's/,/, /'); $IOP_CAP_SUM, $IOP_CAP_MALFORMED malformed, retx ${rx:-?}"
}

# --- one MTU: boot, every case, stop ---------------------------------------
pingpong_mtu() {
	local mtu=$1 rmtu role c size iters arp
	rmtu=$(iop_rdma_mtu "$mtu")
	# testpmd serves the socket during the boot, then leaves: QEMU must
	# notice, the guest lose its carrier.
	iop_boot_guest "$mtu" && iop_release_boot_server "$mtu" || return 0
	if [ "$FAMILY" = 6 ]; then
		echo "interop: $(iop_gh "ip6 $IOP_GUEST_IP6/64 $IOP_GUEST_GID6" 2>&1)"
	fi

	for role in $ROLES; do
		if [ "$FAMILY" = 6 ]; then
			arp=$(iop_gh "nd-dynamic $IOP_NDK_IP6" 2>&1) || true
		elif [ "$role" = guest-server ]; then
			arp=$(iop_gh "arp-static $IOP_NDK_IP $IOP_NDK_MAC" 2>&1) || true
		else
			arp=$(iop_gh "arp-dynamic $IOP_NDK_IP" 2>&1) || true
		fi
		echo "interop: MTU $mtu, $role cases; guest eth1 neighbours: ${arp:-none}"
		for c in $CASES; do
			size=${c%%:*}
			iters=${c#*:}
			run_case "$mtu" "$rmtu" "$role" "$size" "$iters"
		done
	done
	iop_guest_end "$mtu"
}

# --- main ------------------------------------------------------------------
if iop_prepare --capture "$NDK_PINGPONG"; then
	for mtu in $IOP_MTUS; do
		pingpong_mtu "$mtu"
	done
fi
