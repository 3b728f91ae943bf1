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
# namespace or tap is left. Ends with "interop: N passed, N failed".
#
# env: NDK_INTEROP_WORK (default build/interop)  SMOKE_MTUS="1500 4200"
#      TESTPMD=dpdk-testpmd  SMOKE_LCORES=0-1  SMOKE_DPDK_MEM (EAL memory
#      flags; default --in-memory with free hugepages, else --no-huge)
#      and run-guest.sh's BOOT, BOOT_TIMEOUT, ACCEL
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
GUEST=$HERE/guest
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=guest/common.sh
. "$GUEST/common.sh"

# The smoke's guests and namespace are its own: it never touches guests a
# developer runs in the default namespace.
export NDK_INTEROP_IMAGE
export NDK_INTEROP_WORK=$NDK_INTEROP_WORK/smoke
export NS=${SMOKE_NS:-ndk-smoke}
export HOSTIP=10.77.0.1/24
GUEST_NAME=smoke
GUEST_IP=10.77.0.11/24
GUEST_IP1=10.77.1.11/24 # eth1, on the vhost-user port
DPDK_IP=10.77.1.1       # answered by testpmd's icmpecho engine
MTUS=${SMOKE_MTUS:-1500 4200}
TESTPMD=${TESTPMD:-dpdk-testpmd}
LCORES=${SMOKE_LCORES:-0-1}
W=$NDK_INTEROP_WORK
SOCK=$W/vhost.sock

pass=0
fail=0
tp_pid=
tp_fd=
t_start=$(now_ms)

ok() {
	pass=$((pass + 1))
	echo "  PASS $1"
}

ko() {
	fail=$((fail + 1))
	echo "  FAIL $1${2:+: $2}"
}

# check NAME CMD...: one check, passed when CMD succeeds
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else ko "$name"; fi
}

gexec() {
	"$GUEST/guest-exec.sh" -t 60 "$GUEST_NAME" "$@"
}

# --- testpmd, the vhost-user server ---------------------------------------
# EAL memory flags: --in-memory with enough free 2 MB hugepages (it leaves
# no files), else --no-huge with a file prefix of ours, removed on stop.
DPDK_PREFIX=ndk-smoke
dpdk_mem() {
	local free
	if [ -n "${SMOKE_DPDK_MEM:-}" ]; then
		echo "$SMOKE_DPDK_MEM"
		return
	fi
	free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages \
		2>/dev/null || echo 0)
	if [ "$free" -ge 128 ]; then
		echo "--in-memory"
	else
		echo "--no-huge -m 512 --file-prefix=$DPDK_PREFIX"
	fi
}

# start_testpmd LOG: interactive testpmd, its commands read from a FIFO we
# hold open (tp_cmd), its stdout line-buffered so the log can be followed.
# Ready when port 0 has started (it prints its MAC); the link stays down
# until a guest connects. Forwarding starts once the guest is up, leaving
# the CPU to TCG and to whatever else shares this 2-core machine meanwhile.
start_testpmd() {
	local log=$1 i
	stop_testpmd
	rm -f "$SOCK" "$W/testpmd.in"
	: >"$log"
	mkfifo "$W/testpmd.in"
	exec {tp_fd}<>"$W/testpmd.in"
	# shellcheck disable=SC2046  # EAL memory flags are words
	stdbuf -oL "$TESTPMD" -l "$LCORES" --no-pci $(dpdk_mem) \
		--vdev "net_vhost0,iface=$SOCK,queues=1" -- \
		-i --forward-mode=icmpecho --total-num-mbufs=16384 \
		<&"$tp_fd" >"$log" 2>&1 &
	tp_pid=$!
	echo "$tp_pid" >"$W/testpmd.pid"
	for ((i = 0; i < 300; i++)); do
		if [ -S "$SOCK" ] &&
			grep -Eq '^Port 0: ([0-9A-F]{2}:){5}[0-9A-F]{2}$' "$log"; then
			return 0
		fi
		kill -0 "$tp_pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "  testpmd did not start:"
	tail -n 15 "$log" | sed 's/^/    /'
	stop_testpmd
	return 1
}

# tp_cmd 'testpmd command'
tp_cmd() {
	[ -n "$tp_pid" ] || return 1
	{ echo "$1" >&"$tp_fd"; } 2>/dev/null
}

# stop_testpmd: stop forwarding (testpmd prints its counters), quit, and
# make sure it is gone.
stop_testpmd() {
	local i
	[ -n "$tp_pid" ] || return 0
	tp_cmd stop || true
	tp_cmd quit || true
	for ((i = 0; i < 100; i++)); do
		kill -0 "$tp_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$tp_pid" 2>/dev/null || true
	sleep 0.2
	kill -9 "$tp_pid" 2>/dev/null || true
	wait "$tp_pid" 2>/dev/null || true
	exec {tp_fd}>&-
	tp_pid=
	rm -f "$W/testpmd.pid" "$W/testpmd.in" "$SOCK"
	rm -rf "/var/run/dpdk/$DPDK_PREFIX"
}

# A previous run killed hard may have left its testpmd (ours only: by pid
# file and name) and guest behind.
stale_cleanup() {
	local pid
	"$GUEST/stop-guest.sh" --all
	[ -f "$W/testpmd.pid" ] || return 0
	pid=$(cat "$W/testpmd.pid")
	if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dpdk-testpmd ]; then
		kill "$pid" 2>/dev/null || true
		sleep 1
		kill -9 "$pid" 2>/dev/null || true
	fi
	rm -f "$W/testpmd.pid"
}

cleanup() {
	"$GUEST/stop-guest.sh" --all || true
	stop_testpmd
}

# kill_all: on a signal. Meson kills the test's process group with SIGTERM,
# then with SIGKILL 0.5 s later: no time for orderly shutdowns.
kill_all() {
	[ -z "$tp_pid" ] || kill -9 "$tp_pid" 2>/dev/null || true
	"$GUEST/stop-guest.sh" --kill --all || true
}

# finish: on any exit (the end, an error, a signal): tear down, then the
# closing lines; an abnormal exit counts as a failure.
finish() {
	local rc=$?
	trap - EXIT
	[ "$rc" -le 128 ] || kill_all
	cleanup
	if [ "$rc" != 0 ] && [ "$fail" = 0 ]; then
		ko "aborted" "exit status $rc"
	fi
	echo "interop: total $(secs_since "$t_start") s"
	echo "interop: $pass passed, $fail failed"
	[ "$fail" = 0 ] || exit 1
}
trap finish EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

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
	id=$("$GUEST/guest-exec.sh" -b "$GUEST_NAME" \
		'echo guest-18515 | timeout 20 nc -l -p 18515')
	for ((i = 0; i < 50; i++)); do
		out=$(echo host-18515 | ip netns exec "$NS" \
			socat -T 5 - "TCP:${GUEST_IP%/*}:18515" 2>/dev/null) && break
		sleep 0.1
	done
	[ "$out" = guest-18515 ] || return 1
	[ "$("$GUEST/guest-exec.sh" -t 30 -w "$id" "$GUEST_NAME")" = host-18515 ]
}

smoke_mtu() {
	local mtu=$1 rdma_mtu t0 out boot
	case $mtu in
	1500) rdma_mtu=1024 ;;
	4200) rdma_mtu=4096 ;;
	*) rdma_mtu=unknown ;;
	esac
	echo "interop: MTU $mtu (RDMA MTU $rdma_mtu)"
	t0=$(now_ms)
	if ! start_testpmd "$W/testpmd-$mtu.log"; then
		ko "testpmd vhost-user server"
		return
	fi
	if ! MTU=$mtu VHOST_SOCK=$SOCK IP1=$GUEST_IP1 \
		"$GUEST/run-guest.sh" "$GUEST_NAME" "$GUEST_IP" >"$W/boot-$mtu.log" 2>&1; then
		sed 's/^/    /' "$W/boot-$mtu.log"
		ko "guest boot"
		stop_testpmd
		return
	fi
	boot=$(sed -n 's/^BOOT_SECONDS=//p' "$(guest_dir "$GUEST_NAME")/guest.env")
	ok "guest boot ($boot s)"
	sed 's/^/    /' "$W/boot-$mtu.log"
	tp_cmd start || true

	out=$(gexec 'rdma link show' 2>&1) || true
	check "rdma link: rxe1 on eth1" \
		grep -q '^link rxe1/1 state ACTIVE .*netdev eth1' <<<"$out"
	out=$(gexec 'ibv_devices' 2>&1) || true
	check "ibv_devices: rxe0 and rxe1" \
		test "$(grep -Ewo 'rxe[01]' <<<"$out" | sort -u | tr '\n' ' ')" = "rxe0 rxe1 "
	out=$(gexec "ping -c 3 -I eth1 $DPDK_IP" 2>&1) || true
	check "ping -c 3 -I eth1 $DPDK_IP" \
		grep -q '3 packets transmitted, 3 packets received' <<<"$out"
	# A full-sized frame (IP packet = MTU) proves the MTU on the whole path.
	out=$(gexec "ping -c 2 -s $((mtu - 28)) -I eth1 $DPDK_IP" 2>&1) || true
	check "ping -s $((mtu - 28)) (full $mtu-byte packets)" \
		grep -q '2 packets transmitted, 2 packets received' <<<"$out"
	out=$(gexec 'ibv_devinfo -d rxe1' 2>&1) || true
	check "rxe1 active_mtu $rdma_mtu" \
		grep -Eq "active_mtu:[[:space:]]+$rdma_mtu " <<<"$out"
	out=$(gexec 'cat /sys/class/infiniband/rxe1/ports/1/gids/1 \
		/sys/class/infiniband/rxe1/ports/1/gid_attrs/types/1' 2>&1) || true
	check "rxe1 GID index 1 = ::ffff:${GUEST_IP1%/*}, RoCE v2" \
		test "$out" = "$(ipv4_gid "${GUEST_IP1%/*}")"$'\nRoCE v2'
	check "TCP from netns $NS to ${GUEST_IP%/*}:18515 (eth0)" tcp_to_guest

	stop_testpmd
	"$GUEST/stop-guest.sh" "$GUEST_NAME"
	echo "  testpmd: $(grep -m1 -o 'RX-packets: *[0-9]*' "$W/testpmd-$mtu.log" |
		tr -s ' '), $(grep -m1 -o 'TX-packets: *[0-9]*' "$W/testpmd-$mtu.log" |
		tr -s ' ')"
	echo "interop: MTU $mtu done in $(secs_since "$t0") s (boot $boot s)"
}

# --- main ------------------------------------------------------------------
mkdir -p "$W"
stale_cleanup
if ! command -v "$TESTPMD" >/dev/null; then
	ko "dpdk-testpmd" "not found (apt-get install dpdk-dev)"
elif ! "$GUEST/make-image.sh" "$NDK_INTEROP_IMAGE" >"$W/make-image.log" 2>&1; then
	tail -n 20 "$W/make-image.log" | sed 's/^/    /'
	ko "guest image" "see $W/make-image.log"
else
	echo "interop: $(tail -n 1 "$W/make-image.log"), $(secs_since "$t_start") s"
	for mtu in $MTUS; do
		smoke_mtu "$mtu"
	done
fi
