#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-smoke.sh - the interop harness end to end, without ndk-roce: a DPDK
# process (dpdk-testpmd, icmpecho engine: it answers ARP and ICMP echo for any
# address) serves a vhost-user port; a Soft-RoCE guest boots with its eth1 on
# that port; the guest pings through it and shows rxe1 on eth1. Once per MTU
# (1500: RDMA MTU 1024, 4200: RDMA MTU 4096).
#
# Builds the guest image first (cached, see guest/make-image.sh). Everything
# it starts is stopped on exit, failure or signal included: no QEMU, testpmd,
# namespace or tap is left (lib.sh). Ends with "interop: N passed, N
# failed, N skipped".
#
# env: NDK_INTEROP_WORK (default build/interop)  SMOKE_MTUS="1500 4200"
#      TESTPMD=dpdk-testpmd (on lcores 0-1)  SMOKE_DPDK_MEM (EAL memory
#      flags; default --in-memory with free hugepages, else --no-huge)
#      SMOKE_NS=ndk-smoke  and run-guest.sh's BOOT, BOOT_TIMEOUT, ACCEL
set -euo pipefail
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# The smoke's guests and namespace are its own: it never touches guests a
# developer runs in the default namespace.
iop_init smoke SMOKE smoke ndk-smoke
DPDK_IP=$IOP_NDK_IP # answered by testpmd's icmpecho engine

# --- the checks in the guest ----------------------------------------------
# ipv4_gid A.B.C.D: the IPv4-mapped GID as sysfs prints it
ipv4_gid() {
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$a" "$b" "$c" "$d"
}

# tcp_to_guest: the path rdma-core's port-18515 exchange takes: a process
# in the namespace connects to the guest's eth0.
tcp_to_guest() {
	local id out i
	id=$(iop_gxb 'echo guest-18515 | timeout 20 nc -l -p 18515')
	for ((i = 0; i < 50; i++)); do
		out=$(echo host-18515 | ip netns exec "$NS" \
			socat -T 5 - "TCP:${IOP_GUEST_IP%/*}:18515" 2>/dev/null) && break
		sleep 0.1
	done
	[ "$out" = guest-18515 ] || return 1
	[ "$(iop_gxw 30 "$id")" = host-18515 ]
}

smoke_mtu() {
	local mtu=$1 rdma_mtu out log
	rdma_mtu=$(iop_rdma_mtu "$mtu")
	log=$IOP_WORK/testpmd-$mtu.log
	# Forwarding starts once the guest is up, leaving the CPU to TCG and
	# to whatever else shares this 2-core machine meanwhile.
	iop_boot_guest "$mtu" --forward-mode=icmpecho --total-num-mbufs=16384 ||
		return 0
	iop_tp_cmd start || true

	out=$(iop_gx 'rdma link show' 2>&1) || true
	iop_check "rdma link: rxe1 on eth1" \
		grep -q '^link rxe1/1 state ACTIVE .*netdev eth1' <<<"$out"
	out=$(iop_gx 'ibv_devices' 2>&1) || true
	iop_check "ibv_devices: rxe0 and rxe1" \
		test "$(grep -Ewo 'rxe[01]' <<<"$out" | sort -u | tr '\n' ' ')" = "rxe0 rxe1 "
	out=$(iop_gx "ping -c 3 -I eth1 $DPDK_IP" 2>&1) || true
	iop_check "ping -c 3 -I eth1 $DPDK_IP" \
		grep -q '3 packets transmitted, 3 packets received' <<<"$out"
	# A full-sized frame (IP packet = MTU) proves the MTU on the whole path.
	out=$(iop_gx "ping -c 2 -s $((mtu - 28)) -I eth1 $DPDK_IP" 2>&1) || true
	iop_check "ping -s $((mtu - 28)) (full $mtu-byte packets)" \
		grep -q '2 packets transmitted, 2 packets received' <<<"$out"
	out=$(iop_gx 'ibv_devinfo -d rxe1' 2>&1) || true
	iop_check "rxe1 active_mtu $rdma_mtu" \
		grep -Eq "active_mtu:[[:space:]]+$rdma_mtu " <<<"$out"
	out=$(iop_gx 'cat /sys/class/infiniband/rxe1/ports/1/gids/1 \
		/sys/class/infiniband/rxe1/ports/1/gid_attrs/types/1' 2>&1) || true
	iop_check "rxe1 GID index 1 = ::ffff:${IOP_GUEST_IP1%/*}, RoCE v2" \
		test "$out" = "$(ipv4_gid "${IOP_GUEST_IP1%/*}")"$'\nRoCE v2'
	iop_check "TCP from netns $NS to ${IOP_GUEST_IP%/*}:18515 (eth0)" tcp_to_guest

	iop_testpmd_stop
	echo "  testpmd: $(grep -m1 -o 'RX-packets: *[0-9]*' "$log" | tr -s ' ')," \
		"$(grep -m1 -o 'TX-packets: *[0-9]*' "$log" | tr -s ' ')"
	iop_guest_end "$mtu"
}

# --- main ------------------------------------------------------------------
# shellcheck disable=SC2119  # nothing to check but testpmd and the image
if iop_prepare; then
	for mtu in $IOP_MTUS; do
		smoke_mtu "$mtu"
	done
fi
