#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-guest.sh NAME IP/PREFIX - boot one Soft-RoCE guest (make-image.sh) under
# QEMU, headless and in the background, and wait until its job agent is up.
#
# eth0: a virtio-net NIC on tap t-NAME, enslaved to bridge $BR in the private
#       namespace $NS, which also holds the host address $HOSTIP (TCP with the
#       guest goes from `ip netns exec $NS ...` to IP). rxe0 runs on it.
# eth1: only with VHOST_SOCK and IP1: a virtio-net NIC backed by vhost-user,
#       i.e. by a DPDK process serving `--vdev net_vhost0,iface=$VHOST_SOCK`
#       (start it first: it is the server, QEMU connects). With
#       VHOST_SERVER=1 the roles swap: QEMU serves the socket and the DPDK
#       process connects to it as a client (`...,client=1`), before or after
#       the boot (it retries every second); QEMU waits for the first one
#       before the guest starts, and takes each later one as it comes, the
#       guest's eth1 down in between. Guest memory is a shared memfd so the
#       DPDK process can map it. rxe1 runs on it.
# MTU applies to both NICs, the tap and the bridge: 1500 gives RDMA path MTU
# 1024, 4200 gives 4096.
#
# Files in $NDK_INTEROP_WORK/guests/NAME: console.log (serial console),
# console.sock (interactive root shell: socat -,raw,echo=0
# UNIX-CONNECT:console.sock), mon.sock (QEMU monitor), qemu.pid, qemu.log
# (QEMU's own messages), guest.env
# (addresses, MACs, boot time), share/ (the guest's /share; jobs in
# share/jobs, see guest-exec.sh; tcpdump in share/tools).
#
# env: VHOST_SOCK=/path IP1=A.B.C.D/NN  second NIC (eth1, rxe1)
#      VHOST_SERVER=1 (QEMU is the vhost-user server of VHOST_SOCK)
#      MTU=1500  ACCEL=tcg|kvm  SMP=1  MEM=1024 (MiB)  BOOT_TIMEOUT=120 (s)
#      BOOT=pvh|bzimage (default pvh when make-image.sh made vmlinux)
#      DETACH=1 (QEMU in its own session: survives the caller's group)
#      NS=ndk-interop  BR=br0  HOSTIP=10.77.0.1/24  NDK_INTEROP_WORK
#      NDK_INTEROP_IMAGE
# ACCEL defaults to tcg: KVM on these machines is paravirtual and cannot boot
# a stock kernel.
set -euo pipefail
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

usage="usage: run-guest.sh NAME IP/PREFIX"
NAME=${1:?$usage}
IP=${2:?$usage}
MTU=${MTU:-1500}
ACCEL=${ACCEL:-tcg}
SMP=${SMP:-1}
MEM=${MEM:-1024}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-120}
TAP=t-$NAME
D=$(guest_dir "$NAME")

[ ${#TAP} -le 15 ] || { echo "run-guest: name $NAME too long" >&2; exit 2; }
# BOOT=pvh boots the uncompressed kernel through its PVH entry point with
# the uncompressed initramfs (~6 s to a ready guest under TCG); BOOT=bzimage
# the compressed ones (~20 s), as Debian ships them. Same kernel, same files.
if [ -z "${BOOT:-}" ]; then
	BOOT=bzimage
	[ -f "$NDK_INTEROP_IMAGE/vmlinux" ] && BOOT=pvh
fi
case $BOOT in
pvh) kernel=vmlinux initrd=initramfs.cpio ;;
bzimage) kernel=vmlinuz initrd=initramfs.cpio.gz ;;
*) echo "run-guest: BOOT=pvh or bzimage" >&2; exit 2 ;;
esac
for f in "$kernel" "$initrd"; do
	[ -f "$NDK_INTEROP_IMAGE/$f" ] ||
		{ echo "run-guest: no $NDK_INTEROP_IMAGE/$f (make-image.sh)" >&2; exit 2; }
done
if [ -f "$D/qemu.pid" ] && kill -0 "$(cat "$D/qemu.pid")" 2>/dev/null; then
	echo "run-guest: $NAME is already running" >&2
	exit 1
fi
if [ -n "${VHOST_SOCK:-}" ]; then
	: "${IP1:?set IP1=A.B.C.D/NN for the vhost-user NIC}"
	if [ "${VHOST_SERVER:-0}" != 1 ] && [ ! -S "$VHOST_SOCK" ]; then
		echo "run-guest: no vhost-user server at $VHOST_SOCK" \
			"(start the DPDK side first)" >&2
		exit 2
	fi
fi

# --- namespace, bridge and tap; serialised for guests booted in parallel ---
mkdir -p "$NDK_INTEROP_WORK"
(
	flock 9
	[ -e "/run/netns/$NS" ] || ip netns add "$NS"
	ip -n "$NS" link set lo up
	if ! ip -n "$NS" link show "$BR" >/dev/null 2>&1; then
		ip -n "$NS" link add "$BR" type bridge
		ip -n "$NS" addr add "$HOSTIP" dev "$BR"
	fi
	ip -n "$NS" link set "$BR" mtu "$MTU" up
	ip -n "$NS" link del "$TAP" 2>/dev/null || true
	ip -n "$NS" tuntap add dev "$TAP" mode tap
	ip -n "$NS" link set "$TAP" mtu "$MTU" master "$BR" up
) 9>"$NDK_INTEROP_WORK/.net.lock"

rm -rf "$D"
mkdir -p "$D/share/jobs"
# Tools that are not part of the image (tcpdump), at /share/tools in the guest
if [ -d "$NDK_INTEROP_IMAGE/tools" ]; then
	cp -a "$NDK_INTEROP_IMAGE/tools" "$D/share/tools"
fi
MAC=$(guest_mac "$NAME" 52:54:00)

accel=(-accel tcg -cpu max)
[ "$ACCEL" = kvm ] && accel=(-enable-kvm -cpu host)
# tsc=reliable: under TCG the guest's TSC is the host's clock, but a loaded
# host delays the guest's HPET reads enough that the clocksource watchdog
# marks the TSC unstable and the guest falls back to HPET: gettimeofday then
# becomes an emulated MMIO read with jitter of its own, and stock perftest,
# which calibrates rdtsc against gettimeofday at start, cannot fit its line
# ("Correlation coefficient r^2 < 0.9", no result row).
append="console=ttyS0 panic=-1 tsc=reliable rxe.name=$NAME rxe.ip=$IP rxe.mtu=$MTU"
eth1=()
MAC1=
if [ -n "${VHOST_SOCK:-}" ]; then
	MAC1=$(guest_mac "$NAME-1" 52:54:01)
	vh_server=
	[ "${VHOST_SERVER:-0}" != 1 ] || vh_server=,server=on,wait=off
	# vectors=0 (no MSI-X): QEMU 7.2 under TCG otherwise segfaults in
	# msix_set_vector_notifiers when vhost_net starts.
	# shellcheck disable=SC2054  # the commas are QEMU's
	eth1=(-object "memory-backend-memfd,id=mem,size=${MEM}M,share=on"
		-numa node,memdev=mem
		-chardev "socket,id=vh0,path=$VHOST_SOCK$vh_server"
		-netdev vhost-user,id=n1,chardev=vh0
		-device "virtio-net-pci,netdev=n1,mac=$MAC1,speed=10000,duplex=full,vectors=0,addr=0x4")
	append="$append rxe.ip1=$IP1"
fi

cat >"$D/guest.env" <<EOF
NAME=$NAME
BOOT=$BOOT
NS=$NS
TAP=$TAP
HOSTIP=$HOSTIP
MTU=$MTU
IP=$IP
MAC=$MAC
IP1=${IP1:-}
MAC1=$MAC1
VHOST_SOCK=${VHOST_SOCK:-}
EOF

# QEMU stays in the caller's process group (no -daemonize), so a test
# runner that kills its test's group (meson on timeout, ^C) takes the guest
# with it. DETACH=1 puts it in a session of its own instead.
detach=()
[ "${DETACH:-0}" = 1 ] && detach=(setsid)
t0=$(now_ms)
"${detach[@]}" ip netns exec "$NS" qemu-system-x86_64 "${accel[@]}" \
	-smp "$SMP" -m "$MEM" -nodefaults -display none -no-reboot \
	-kernel "$NDK_INTEROP_IMAGE/$kernel" -initrd "$NDK_INTEROP_IMAGE/$initrd" \
	-append "$append" \
	-chardev "socket,id=ser0,path=$D/console.sock,server=on,wait=off,logfile=$D/console.log" \
	-serial chardev:ser0 \
	-monitor "unix:$D/mon.sock,server=on,wait=off" \
	-netdev "tap,id=n0,ifname=$TAP,script=no,downscript=no" \
	-device "virtio-net-pci,netdev=n0,mac=$MAC,speed=10000,duplex=full,addr=0x3" \
	"${eth1[@]}" \
	-virtfs "local,path=$D/share,mount_tag=share,security_model=none,id=share" \
	</dev/null >"$D/qemu.log" 2>&1 &
qpid=$!
echo "$qpid" >"$D/qemu.pid"

# Wait for the guest's job agent.
ready="$D/share/jobs/ready"
deadline=$((t0 + BOOT_TIMEOUT * 1000))
while [ ! -f "$ready" ]; do
	why=
	kill -0 "$qpid" 2>/dev/null || why="qemu exited"
	[ "$(now_ms)" -lt "$deadline" ] || why="no job agent after ${BOOT_TIMEOUT} s"
	if [ -n "$why" ]; then
		echo "run-guest: $NAME: $why" >&2
		tail -n 5 "$D/qemu.log" >&2
		tail -n 20 "$D/console.log" >&2 2>/dev/null || true
		"$(dirname "$0")/stop-guest.sh" "$NAME"
		exit 1
	fi
	sleep 0.1
done
boot=$(secs_since "$t0")
uptime=$(cut -d' ' -f2 "$ready")
echo "BOOT_SECONDS=$boot" >>"$D/guest.env"
echo "$NAME up in $boot s ($BOOT, guest uptime $uptime s): eth0 $IP $MAC on $TAP" \
	"in netns $NS${MAC1:+, eth1 $IP1 $MAC1 on vhost-user $VHOST_SOCK}, mtu $MTU"
