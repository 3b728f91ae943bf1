#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-tokens.sh - the `tokens_rxe` interop test: ndk-roce's remote tokens
# against Linux Soft-RoCE's (rxe1 in the harness's QEMU guest), SEND with
# Invalidate in both directions, at guest MTU 1500 (RDMA MTU 1024) and
# 4200 (RDMA MTU 4096).
#
#   host (namespace $NS)                      guest (rxe1 on eth1)
#   tok_host: our adapter 10.77.1.1 on the    rxe_tokpeer (our verbs program,
#   vhost-user port of eth1; ndk.h only  <--> built on the host against
#   TCP control (tok_proto.h) to eth0         libibverbs-dev, run from /share)
#
# tok_host drives the cases (tok_cases.c) and prints one line per check;
# rxe_tokpeer creates QPs, type-2 windows and MRs, checks its memory and
# reports its completions on request. The guest captures eth1 for the whole
# run; the capture is decoded by tshark (no malformed frame) and every
# RoCEv2 frame's ICRC recomputed by icrc_check.py, and the frames the cases
# imply must be there: SEND_ONLY with Invalidate both ways, rxe's remote
# access NAKs to us, ours to rxe, and our invalid-request NAKs for the
# tokens we refuse to invalidate (at least as many as the cases caused:
# a spurious retransmission may add some).
#
# The machinery is lib.sh's: per MTU one guest, whose QEMU serves the
# vhost-user socket (testpmd its client during the boot), then one tok_host
# process (all cases) as the client; the capture and its checks. The guest resolves our
# address through a static ARP entry (the vhost PMD's MAC is stable); we
# resolve the guest's by ARP. Per MTU one case (mtuN) sums it up; it fails
# when any of its checks does.
#
# Cleans up on exit, failure or signal (lib.sh). Ends with "interop: N
# passed, N failed, N skipped", tok_host's cases included.
#
# env: NDK_INTEROP_WORK (this test uses its tokens/ subdirectory)
#      TOK_HOST, RXE_TOKPEER (the binaries; default build/test/interop/...)
#      TOK_MTUS="1500 4200"  TOK_CASES (tok_host's case filter: a substring;
#      the frame minimums are then not checked)  TOK_NS=ndk-tokens
#      TOK_LCORES=0-1  TOK_DPDK_MEM  TOK_CASE_TIMEOUT=240 (s; TOK_TIMEOUT
#      too)  TESTPMD  PYTHON; and run-guest.sh's BOOT, BOOT_TIMEOUT, ACCEL
#      TOK_FAMILY=4 (6: every QP over IPv6, as run-pingpong.sh's PP_FAMILY:
#        eth1 gets $IOP_GUEST_IP6, rxe_tokpeer uses rxe1's GID 2, tok_host a
#        dual-stack adapter announcing $IOP_NDK_IP6; neighbour discovery
#        both ways)  TOK_SUBDIR=tokens (this run's directory under
#        NDK_INTEROP_WORK, and its namespace $NS-<it>)
set -euo pipefail
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

IOP_RECONNECT=1
IOP_CASE_TIMEOUT=${TOK_TIMEOUT:-240}
# Columns 11 to 13 of the capture's .tsv (count_frames, the IETH list).
IOP_CAP_FIELDS="infiniband.aeth.syndrome infiniband.ieth ipv6.src"
IOP_SUMMARY_HEAD="per MTU (tok_host's cases; RoCEv2 frames in the capture; SEND with Invalidate, remote access NAKs and invalid-request NAKs, ours/rxe's):"
iop_init "${TOK_SUBDIR:-tokens}" TOK tok ndk-tok
TOK_PORT=18600
T=$IOP_CASE_TIMEOUT
BUILD=$NDK_INTEROP_ROOT/build/test/interop
TOK_HOST=${TOK_HOST:-$BUILD/tok_host}
RXE_TOKPEER=${RXE_TOKPEER:-$BUILD/rxe_tokpeer}
GUEST_ADDR=${IOP_GUEST_IP1%/*}
NDK_ADDR=$IOP_NDK_IP
GUEST_GID=1
HOST_OPTS=(--ip "$IOP_NDK_IP" --guest-ip1 "$GUEST_ADDR")
FAMILY=${TOK_FAMILY:-4}
if [ "$FAMILY" = 6 ]; then
	GUEST_ADDR=$IOP_GUEST_IP6
	NDK_ADDR=$IOP_NDK_IP6
	GUEST_GID=$IOP_GUEST_GID6
	HOST_OPTS=(--ip "$IOP_NDK_IP" --ip6 "$IOP_NDK_IP6" --guest-ip6
		"$IOP_GUEST_IP6" --guest-gid "$IOP_GUEST_GID6")
fi

# verdict NAME [WHY]: one check printed and counted: passed without WHY,
# else failed for WHY (the case's reasons are the caller's to give)
verdict() {
	if [ -z "${2:-}" ]; then
		iop_pass "$1"
	else
		iop_fail "$1" "$2"
	fi
}

# tok_check NAME WHY CMD...: a check of the case: passed when CMD
# succeeds, else failed for WHY, and the case with it
tok_check() {
	local name=$1 why=$2
	shift 2
	if "$@"; then
		verdict "$name"
	else
		verdict "$name" "$why"
		iop_why "$why"
	fi
}

# host_results LOG: tok_host's output (EAL and vhost lines left out) and
# its cases counted with ours
host_results() {
	local line
	echo "interop: tok_host (EAL and vhost lines left out; $1):"
	{ grep -Ev '^(EAL|VHOST_CONFIG|TELEMETRY|USER1):' "$1" || true; } |
		sed 's/^/  | /'
	line=$(grep -E '^tokens_rxe: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' \
		"$1" || true)
	if [[ $line =~ ^tokens_rxe:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+) ]]; then
		IOP_PASS=$((IOP_PASS + BASH_REMATCH[1]))
		IOP_FAIL=$((IOP_FAIL + BASH_REMATCH[2]))
		IOP_SKIP=$((IOP_SKIP + BASH_REMATCH[3]))
		HOST_SUM="${BASH_REMATCH[1]} passed, ${BASH_REMATCH[2]} failed"
		[ "${BASH_REMATCH[2]}" = 0 ] ||
			iop_why "tok_host: ${BASH_REMATCH[2]} cases failed"
	else
		HOST_SUM="no result line"
		verdict "MTU $M: tok_host printed no result line" "see $1"
		iop_why "tok_host printed no result line"
	fi
}

# capture_checks: iop_capture_check's three checks, one line each (its
# reasons told apart by what they are about): tshark decodes the capture
# with nothing malformed, icrc_check.py verifies every frame, both count
# the same RoCEv2 frames
capture_checks() {
	local n=${#IOP_WHY[@]} r dec='' icrc='' cnt='' tsv=${IOP_PCAP%.pcap}.tsv
	iop_capture_check --ndk-ip "$NDK_ADDR" --guest-ip "$GUEST_ADDR" \
		--ndk-mac "$IOP_NDK_MAC" --min-roce 40
	for r in "${IOP_WHY[@]:n}"; do
		case $r in
		"tshark counts "*) cnt+="${cnt:+;}$r" ;;
		tshark*) dec+="${dec:+;}$r" ;;
		*) icrc+="${icrc:+;}$r" ;;
		esac
	done
	# No file: iop_capture_stop has said so; nothing was decoded.
	[ -f "$IOP_PCAP" ] || dec+="${dec:+;}no capture"
	verdict "MTU $M: tshark: $(wc -l 2>/dev/null <"$tsv" || echo 0) frames, $(count_frames "" "") RoCEv2, none malformed" "$dec"
	verdict "MTU $M: icrc_check: every ICRC and header good" "$icrc"
	verdict "MTU $M: tshark and icrc_check count the same RoCEv2 frames" "$cnt"
}

# count_frames SRC OPCODE [SYNDROME]: RoCEv2 frames of the capture from SRC
# (IPv4 or IPv6; any if empty) with that BTH opcode (decimal; any if empty) and, for ACK
# opcodes, that AETH syndrome (decimal; tshark may give a field twice,
# "a,a": the first is taken)
count_frames() {
	local tsv=${IOP_PCAP%.pcap}.tsv
	if [ ! -f "$tsv" ]; then
		echo 0
		return
	fi
	awk -F'\t' -v s="$1" -v o="$2" -v y="${3:-}" \
		'{ sub(/,.*/, "", $11) }
		$5 != "" && (s == "" || $3 == s || $13 == s) && (o == "" || $5 == o) &&
		(y == "" || $11 == y) { n++ } END { print n + 0 }' \
		"$tsv"
}

# expect_frames WHAT N MIN: at least MIN such frames (the cases imply them)
expect_frames() {
	tok_check "MTU $M: capture: $1: $2 (at least $3)" \
		"capture: $1: $2, expected at least $3" [ "$2" -ge "$3" ]
}

# frame_checks: what the cases put on the wire (only when they all ran).
# Opcodes: 23 SEND_ONLY with Invalidate, 17 ACK; AETH syndromes: 97 NAK
# invalid request, 98 NAK remote access error. Sets FRAMES (the summary).
frame_checks() {
	local si_n si_g acc_g acc_n inv_n
	si_n=$(count_frames "$NDK_ADDR" 23)
	si_g=$(count_frames "$GUEST_ADDR" 23)
	acc_g=$(count_frames "$GUEST_ADDR" 17 98)
	acc_n=$(count_frames "$NDK_ADDR" 17 98)
	inv_n=$(count_frames "$NDK_ADDR" 17 97)
	FRAMES="SEND_INV $si_n/$si_g, access NAKs $acc_n/$acc_g, inv-req NAKs $inv_n/$(count_frames "$GUEST_ADDR" 17 97)"
	echo "    IETH R_Keys on the wire: $(awk -F'\t' '$5 == 23 { sub(/,.*/, "", $12); printf "%s from %s; ", $12, $3 $13 }' \
		"${IOP_PCAP%.pcap}.tsv" 2>/dev/null || true)"
	[ -z "${TOK_CASES:-}" ] || return 0
	expect_frames "our SEND_ONLY with Invalidate to rxe" "$si_n" 4
	expect_frames "rxe's SEND_ONLY with Invalidate to us" "$si_g" 5
	expect_frames "rxe's remote access NAKs to us" "$acc_g" 2
	expect_frames "our remote access NAKs to rxe" "$acc_n" 4
	expect_frames "our invalid-request NAKs to rxe (bad tokens)" "$inv_n" 3
}

# peer_done STATUS LOG: rxe_tokpeer exited 0 after BYE
peer_done() {
	[ "$1" = 0 ] && grep -q 'exit 0$' "$2"
}

# --- one MTU: boot, rxe_tokpeer and tok_host, the capture, stop -------------
tokens_mtu() {
	local rmtu arp peer_id hrc=0 prc=0 name=mtu$1 L
	M=$1 # the MTU, for the check names
	rmtu=$(iop_rdma_mtu "$M")
	L=$IOP_WORK/logs/$name
	iop_boot_guest "$M" && iop_release_boot_server "$M" || return 0
	cp "$RXE_TOKPEER" "$IOP_GDIR/share/rxe_tokpeer"
	iop_case_begin "$name"
	if [ "$FAMILY" = 6 ]; then
		echo "interop: $(iop_gh "ip6 $IOP_GUEST_IP6/64 $IOP_GUEST_GID6" 2>&1)"
		arp=$(iop_gh "nd-dynamic $IOP_NDK_IP6" 2>&1) || true
	else
		arp=$(iop_gh "arp-static $IOP_NDK_IP $IOP_NDK_MAC" 2>&1) || true
	fi
	echo "interop: MTU $M: guest eth1 neighbours: ${arp:-none}"
	iop_step "MTU $M: tcpdump captures the guest's eth1" \
		iop_capture_start "$name" $((M + 64))

	peer_id=$(iop_gxb "timeout $T /share/rxe_tokpeer -d rxe1 -g $GUEST_GID -p $TOK_PORT -t $T") ||
		peer_id=none
	if ! iop_guest_listening "$TOK_PORT"; then
		verdict "MTU $M: rxe_tokpeer is not listening in the guest" \
			"$(tail -n 5 "$IOP_GDIR/share/jobs/$peer_id.out" 2>/dev/null)"
		iop_why "rxe_tokpeer is not listening"
	fi

	# shellcheck disable=SC2086  # the case filter: one word or none
	iop_app_start "$L.tok_host.log" "$TOK_HOST" "${HOST_OPTS[@]}" \
		--guest "${IOP_GUEST_IP%/*}" --port "$TOK_PORT" --mtu "$rmtu" \
		${TOK_CASES:-}
	iop_app_wait || hrc=$?
	iop_gxw $((T + 30)) "$peer_id" >"$L.rxe_tokpeer.log" 2>&1 || prc=$?

	host_results "$L.tok_host.log"
	tok_check "MTU $M: tok_host exit status 0" "tok_host exit status $hrc" \
		[ "$hrc" = 0 ]
	tok_check "MTU $M: rxe_tokpeer served $(grep -c ' -> ' "$L.rxe_tokpeer.log") requests and exited 0 after BYE ($L.rxe_tokpeer.log)" \
		"rxe_tokpeer exit status $prc: $(tail -n 5 "$L.rxe_tokpeer.log" | tr '\n' ' ')" \
		peer_done "$prc" "$L.rxe_tokpeer.log"

	iop_step "MTU $M: tcpdump lost nothing" iop_capture_stop "$name"
	capture_checks
	frame_checks
	iop_case_end "tok_host $HOST_SUM; $IOP_CAP_SUM, $IOP_CAP_MALFORMED malformed; $FRAMES"
	iop_guest_end "$M"
}

# --- main ------------------------------------------------------------------
echo "interop: tokens_rxe: tok_host ($TOK_HOST) against rxe_tokpeer" \
	"($RXE_TOKPEER) on rxe1, guest MTUs $IOP_MTUS"
if iop_prepare --capture "$TOK_HOST" "$RXE_TOKPEER"; then
	for mtu in $IOP_MTUS; do
		tokens_mtu "$mtu"
	done
fi
