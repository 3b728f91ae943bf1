#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-nvmf.sh - the `nvmf_rxe` interop test: the Linux 6.1 kernel's NVMe
# over Fabrics host (nvme-rdma on rxe1, driven by nvme-cli in the
# harness's QEMU guest) against ndk-nvmf-tgt on the host, whose adapter is
# the guest's eth1 (vhost-user), at guest MTU 1500 (RDMA MTU 1024) and 4200
# (RDMA MTU 4096).
#
# One case per MTU, a fresh ndk-nvmf-tgt serving subsystem $NQN to the
# host NQN $HOSTNQN only, with two namespaces: 1 in hugepage memory, 2 a
# file on the host (its I/O on the target's io_uring worker thread):
#   1. `nvme discover` lists the subsystem; with another host NQN it does
#      not, and `nvme connect` with that NQN is refused;
#   2. `nvme connect -t rdma -a 10.77.1.1 -s 4420 -n $NQN
#      --nr-write-queues=1 --nr-poll-queues=1`: /dev/nvme0n1 and
#      /dev/nvme0n2 appear with the configured sizes, and the host maps
#      three I/O queues (default, read, poll: one each for the guest's one
#      CPU; dmesg's "mapped 1/1/1 default/read/poll queues");
#   3. on each namespace, `dd oflag=direct` writes of 4 KiB to 1 MiB at
#      random offsets (aligned to their size), each read back with
#      `iflag=direct` and compared;
#   4. mkfs.ext4 on namespace 1, a directory tree copied in, unmounted,
#      caches dropped, mounted again and compared;
#   5. the target is stopped (its counters at exit must show a controller
#      with three I/O queues and commands beyond the Connect on at least
#      two: writes go to the default queue, reads to the read queue) and
#      started again: the kernel host reconnects
#      by itself (--reconnect-delay 1), namespace 2 (the file) still holds
#      what was written before, and new I/O on both verifies;
#   6. `nvme disconnect`: the target frees every queue pair and controller
#      (its counters at exit: qpairs 0, ctrlrs 0, inflight 0).
# Then, per MTU, the same target attached to ndk-roced (a DPDK secondary
# process; the daemon serves the vhost-user NIC, on a hugetlbfs of this
# run's own): discover, connect, dd on both namespaces, disconnect, the
# target left with nothing (skipped without 256 free hugepages).
# The guest captures eth1: tshark must decode it, icrc_check.py verify every
# RoCEv2 ICRC, and nvmf_inv_check.py find SEND with Invalidate (opcode 17h)
# carrying the key of the command that asked for it (keyed SGL sub-type
# Fh, which nvme-rdma uses for every data transfer), and no such command
# answered without it.
#
# env: NDK_INTEROP_WORK (this test uses its nvmf/ subdirectory)
#      NDK_NVMF_TGT (default build/app/ndk-nvmf-tgt/ndk-nvmf-tgt)
#      NDK_ROCED (default build/app/ndk-roced/ndk-roced)  TESTPMD
#      PYTHON  NV_MTUS="1500 4200"  NV_LCORES=0-1  NV_DPDK_MEM
#      NV_NS=ndk-nvmf  NV_CASE_TIMEOUT=300
#      NV_ATTACHED_MTUS (the MTUs with an attached case; default: every
#        one of NV_MTUS)
#      NV_CONNECT_OPTS (extra nvme connect options of the main case,
#        default "--nr-write-queues=1 --nr-poll-queues=1")
#      NV_MIN_IO_QUEUES (I/O queues the host must make; default 3)
set -euo pipefail
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

IOP_RECONNECT=1
IOP_CASE_TIMEOUT=300
IOP_SUMMARY_HEAD="cases (frames: RoCEv2 in the capture):"
iop_init nvmf NV nv ndk-nv
NDK_NVMF_TGT=${NDK_NVMF_TGT:-$NDK_INTEROP_ROOT/build/app/ndk-nvmf-tgt/ndk-nvmf-tgt}
NDK_ROCED=${NDK_ROCED:-$NDK_INTEROP_ROOT/build/app/ndk-roced/ndk-roced}
ROCED_PID=
ATT_PID=
HUGE=$IOP_WORK/huge
W=$IOP_WORK
GUEST_ADDR=${IOP_GUEST_IP1%/*}
NQN=nqn.2026-11.io.ndk-roce:interop
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:6e646b2d-726f-6365-0000-000000000001
HOSTID=6e646b2d-726f-6365-0000-000000000001
OTHERNQN=nqn.2014-08.org.nvmexpress:uuid:6e646b2d-726f-6365-0000-0000000000ff
MEM_MB=64
FILE_MB=32
SIZES="4096 8192 16384 65536 131072 262144 524288 1048576"
# The guest has one CPU: nvme-rdma makes one I/O queue of each kind
# (default, read, poll) that it is asked for, so three in all.
NV_CONNECT_OPTS=${NV_CONNECT_OPTS---nr-write-queues=1 --nr-poll-queues=1}
NV_MIN_IO_QUEUES=${NV_MIN_IO_QUEUES:-3}

# The guest's half: /share/nvmf-guest.sh CMD ARGS (busybox sh).
write_guest_script() {
	cat >"$IOP_GDIR/share/nvmf-guest.sh" <<'EOF'
#!/bin/sh
# nvmf-guest.sh CMD ARGS - the guest's side of run-nvmf.sh
A=10.77.1.1
cmd=$1
shift
case $cmd in
modules) for m in nvme-rdma crc32c_generic ext4; do modprobe $m || exit 1; done
	echo "modules: $(lsmod | awk '$1 ~ /^(nvme_rdma|nvme_fabrics|nvme_core|ext4)$/ { printf "%s ", $1 }')" ;;
discover) # discover HOSTNQN: the discovery log's subsystem NQNs
	timeout 60 nvme discover -t rdma -a $A -s 4420 --hostnqn "$1" >/tmp/disc.out 2>&1
	rc=$?
	sed -n 's/^subnqn: *//p' /tmp/disc.out
	grep -m1 'Number of Records' /tmp/disc.out
	exit $rc ;;
connect) # connect NQN HOSTNQN HOSTID [NVME-CONNECT-OPTIONS]
	n=$1 h=$2 i=$3
	shift 3
	timeout 60 nvme connect -t rdma -a $A -s 4420 -n "$n" --hostnqn "$h" \
		--hostid "$i" --reconnect-delay 1 --ctrl-loss-tmo 120 "$@" ;;
queues) # queues: nvme0's queue count (admin included) and blk-mq's map
	echo "queue_count $(cat /sys/class/nvme/nvme0/queue_count 2>/dev/null || echo ?)"
	echo "hw queues $(ls /sys/block/nvme0n1/mq 2>/dev/null | wc -l)"
	dmesg | grep -o 'mapped [0-9]*/[0-9]*/[0-9]* default/read/poll queues' | tail -n 1 ;;
refused) # refused NQN HOSTNQN: connect must fail
	if timeout 60 nvme connect -t rdma -a $A -s 4420 -n "$1" --hostnqn "$2" 2>&1; then
		echo "connect with $2 was accepted"; exit 1
	fi
	echo "refused as it should be" ;;
wait-dev) # wait-dev DEV...: until they exist (30 s); their sizes in bytes
	for d in "$@"; do
		n=0
		while [ ! -b "$d" ] && [ $n -lt 300 ]; do n=$((n + 1)); sleep 0.1; done
		[ -b "$d" ] || { echo "no $d"; exit 1; }
		echo "$d $(($(cat /sys/block/${d#/dev/}/size) * 512))"
	done ;;
io) # io DEV SIZE:SLOT...: write SIZE bytes at SLOT*SIZE, read back, compare
	d=$1
	shift
	for io in "$@"; do
		s=${io%%:*}
		k=${io#*:}
		dd if=/dev/urandom of=/tmp/w bs="$s" count=1 2>/dev/null
		dd if=/tmp/w of="$d" bs="$s" count=1 seek="$k" oflag=direct 2>/dev/null ||
			{ echo "write $s at $k failed"; exit 1; }
		dd if="$d" of=/tmp/r bs="$s" count=1 skip="$k" iflag=direct 2>/dev/null ||
			{ echo "read $s at $k failed"; exit 1; }
		cmp /tmp/w /tmp/r || { echo "$d: $s B at $((s * k)) differs"; exit 1; }
		echo "ok $s B at $((s * k))"
	done ;;
keep) # keep DEV SLOT: 64 KiB of data kept in /tmp/keep, at SLOT*64 KiB
	dd if=/dev/urandom of=/tmp/keep bs=65536 count=1 2>/dev/null
	dd if=/tmp/keep of="$1" bs=65536 count=1 seek="$2" oflag=direct 2>/dev/null &&
		sync && echo "kept 64 KiB at $(($2 * 65536))" ;;
kept) # kept DEV SLOT: the 64 KiB of `keep` read back
	dd if="$1" of=/tmp/r bs=65536 count=1 skip="$2" iflag=direct 2>/dev/null &&
		cmp /tmp/keep /tmp/r && echo "64 KiB at $(($2 * 65536)) still there" ;;
fs) # fs DEV: mkfs.ext4, a tree copied in, remounted, compared
	mkfs.ext4 -q -F "$1" || exit 1
	mkdir -p /mnt/t
	mount -t ext4 "$1" /mnt/t || exit 1
	cp -a /usr/lib/x86_64-linux-gnu /mnt/t/lib && dd if=/dev/urandom of=/mnt/t/big bs=1M count=8 2>/dev/null &&
		cp /mnt/t/big /tmp/big && umount /mnt/t || exit 1
	echo 3 >/proc/sys/vm/drop_caches
	mount -t ext4 "$1" /mnt/t || exit 1
	diff -r /usr/lib/x86_64-linux-gnu /mnt/t/lib && cmp /tmp/big /mnt/t/big || { umount /mnt/t; exit 1; }
	echo "ext4: $(find /mnt/t | wc -l) entries, $(du -sk /mnt/t | cut -f1) KiB verified after remount"
	umount /mnt/t && rm -f /tmp/big && e2fsck -fn "$1" >/dev/null 2>&1 && echo "e2fsck clean" ;;
state) cat /sys/class/nvme/nvme0/state 2>/dev/null || echo none ;;
wait-live) # wait-live SECS: until nvme0 is live again
	n=0
	while [ "$(cat /sys/class/nvme/nvme0/state 2>/dev/null)" != live ] && [ $n -lt $(($1 * 10)) ]; do
		n=$((n + 1)); sleep 0.1
	done
	echo "nvme0 $(cat /sys/class/nvme/nvme0/state 2>/dev/null) after $((n / 10)) s"
	[ "$(cat /sys/class/nvme/nvme0/state 2>/dev/null)" = live ] ;;
disconnect) timeout 60 nvme disconnect -n "$1" ;;
dmesg) dmesg | grep -E 'nvme|EXT4' | tail -n "${1:-15}" ;;
*) echo "nvmf-guest.sh: $cmd?"; exit 2 ;;
esac
EOF
}

# ng WHY CMD ARGS: a command of nvmf-guest.sh, its output (NG_OUT)
# indented into the case log; the case fails for WHY when it does
NG_OUT=
ng() {
	local why=$1 rc=0
	shift
	NG_OUT=$(iop_gx -t 240 "sh /share/nvmf-guest.sh $*" 2>&1) || rc=$?
	sed 's/^/      /' <<<"$NG_OUT" | tail -n 12
	[ "$rc" = 0 ] || iop_why "$why (exit $rc)"
	return "$rc"
}

# tgt_ready LOG: until ndk-nvmf-tgt prints "ready" (30 s)
tgt_ready() {
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q '^ndk-nvmf-tgt: ready' "$1" 2>/dev/null && return 0
		[ -n "$IOP_APP_PID" ] && kill -0 "$IOP_APP_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# io_list SEED: "SIZE:SLOT" for every size, SLOT random in the namespace
io_list() {
	local s out='' mb=$1
	for s in $SIZES; do
		out="$out $s:$((RANDOM % (mb * 1048576 / s)))"
	done
	echo "$out"
}

# tgt_stats LOG: the counters line ndk-nvmf-tgt printed at exit
tgt_stats() {
	grep '^ndk-nvmf-tgt: connects' "$1" | tail -n 1
}

# check_queues LOG: the target saw NV_MIN_IO_QUEUES I/O queues on one
# controller and commands beyond the Connect on at least two I/O queue ids
check_queues() {
	local line busy=0 qc
	line=$(grep '^ndk-nvmf-tgt: io_queues_max' "$1" | tail -n 1)
	echo "      ${line#ndk-nvmf-tgt: }"
	[[ $line =~ io_queues_max\ ([0-9]+) ]] &&
		[ "${BASH_REMATCH[1]}" -ge "$NV_MIN_IO_QUEUES" ] ||
		iop_why "the target saw fewer than $NV_MIN_IO_QUEUES I/O queues: $line"
	for qc in ${line#*qid_commands}; do
		[ "${qc%%:*}" -ge 1 ] && [ "${qc#*:}" -gt 1 ] && busy=$((busy + 1))
	done
	[ "$busy" -ge 2 ] || [ "$NV_MIN_IO_QUEUES" -lt 2 ] ||
		iop_why "commands on $busy I/O queue(s) only: $line"
}

run_case() {
	local mtu=$1 rmtu=$2 name L conf st inv q
	name="mtu$mtu-kernel-host"
	L=$W/logs/$name
	conf=$W/tgt.conf
	iop_case_begin "$name"
	echo "interop: case $name: nvme-rdma (Linux 6.1) against ndk-nvmf-tgt," \
		"RDMA MTU $rmtu"
	rm -f "$W/ns2.img"
	truncate -s "${FILE_MB}M" "$W/ns2.img"
	cat >"$conf" <<EOF
# run-nvmf.sh: one subsystem for one host, memory and file namespaces
listen $IOP_NDK_IP 4420
subsystem $NQN
host $HOSTNQN
namespace mem:${MEM_MB}M
namespace file:$W/ns2.img
EOF
	iop_expect_link_down
	iop_capture_start "$name" $((mtu + 64)) || true
	iop_app_start "$L.tgt1.log" "$NDK_NVMF_TGT" -c "$conf" \
		--ip "$IOP_NDK_IP" --mtu "$rmtu" --stats
	tgt_ready "$L.tgt1.log" || iop_why "ndk-nvmf-tgt did not start"
	echo "    1. discovery and host access"
	iop_gh "waitactive 30" | sed 's/^/      /' || iop_why "rxe1 not ACTIVE"
	ng "modules" modules || true
	ng "nvme discover" discover "$HOSTNQN" || true
	grep -qx "$NQN" <<<"$NG_OUT" ||
		iop_why "nvme discover does not list $NQN"
	ng "nvme discover (other host)" discover "$OTHERNQN" || true
	! grep -q "$NQN" <<<"$NG_OUT" ||
		iop_why "nvme discover lists $NQN to a host not allowed"
	ng "a host not allowed was accepted" refused "$NQN" "$OTHERNQN" || true
	echo "    2. connect ($NV_CONNECT_OPTS)"
	# shellcheck disable=SC2086 # the options are words
	ng "nvme connect" connect "$NQN" "$HOSTNQN" "$HOSTID" $NV_CONNECT_OPTS || true
	ng "namespaces" wait-dev /dev/nvme0n1 /dev/nvme0n2 || true
	if ! grep -qx "/dev/nvme0n1 $((MEM_MB * 1048576))" <<<"$NG_OUT" ||
		! grep -qx "/dev/nvme0n2 $((FILE_MB * 1048576))" <<<"$NG_OUT"; then
		iop_why "namespace sizes"
	fi
	ng "queues" queues || true
	if [[ $NG_OUT =~ mapped\ ([0-9]+)/([0-9]+)/([0-9]+)\ default ]]; then
		q=$((BASH_REMATCH[1] + BASH_REMATCH[2] + BASH_REMATCH[3]))
		[ "$q" -ge "$NV_MIN_IO_QUEUES" ] ||
			iop_why "the host mapped $q I/O queues, not $NV_MIN_IO_QUEUES"
	else
		iop_why "no 'mapped D/R/P default/read/poll queues' in dmesg"
	fi
	echo "    3. dd, 4 KiB to 1 MiB at random offsets"
	ng "dd on namespace 1" io /dev/nvme0n1 "$(io_list "$MEM_MB")" || true
	ng "dd on namespace 2" io /dev/nvme0n2 "$(io_list "$FILE_MB")" || true
	echo "    4. ext4"
	ng "ext4" fs /dev/nvme0n1 || true
	echo "    5. target restart, reconnect"
	ng "keep" keep /dev/nvme0n2 7 || true
	iop_app_kill
	st=$(tgt_stats "$L.tgt1.log")
	echo "      first target: ${st#ndk-nvmf-tgt: }"
	check_queues "$L.tgt1.log"
	iop_app_start "$L.tgt2.log" "$NDK_NVMF_TGT" -c "$conf" \
		--ip "$IOP_NDK_IP" --mtu "$rmtu" --stats
	tgt_ready "$L.tgt2.log" || iop_why "ndk-nvmf-tgt did not start again"
	ng "the host did not reconnect" wait-live 90 || true
	ng "file namespace after restart" kept /dev/nvme0n2 7 || true
	ng "dd after reconnect" io /dev/nvme0n1 "$(io_list "$MEM_MB")" || true
	ng "dd after reconnect" io /dev/nvme0n2 "$(io_list "$FILE_MB")" || true
	echo "    6. disconnect"
	ng "nvme disconnect" disconnect "$NQN" || true
	sleep 1
	iop_app_kill
	st=$(tgt_stats "$L.tgt2.log")
	echo "      second target: ${st#ndk-nvmf-tgt: }"
	[[ $st =~ ctrlrs\ 0\ qpairs\ 0\ inflight\ 0 ]] ||
		iop_why "the target did not free everything: $st"
	[[ $st =~ errors\ 0 ]] || iop_why "commands failed: $st"
	# The host came back by itself: its admin and I/O queue.
	[[ $st =~ connects\ ([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 2 ] ||
		iop_why "the host did not reconnect to the second target: $st"
	iop_capture_stop "$name"
	if [ ${#IOP_WHY[@]} -gt 0 ]; then
		ng "-" dmesg 20 || true
		iop_tail ndk-nvmf-tgt "$L.tgt2.log" 15
	fi

	iop_capture_check --ndk-ip "$IOP_NDK_IP" --guest-ip "$GUEST_ADDR" \
		--ndk-mac "$IOP_NDK_MAC" --min-roce 1000
	inv=$("$PYTHON" "$IOP_HERE/nvmf_inv_check.py" "$IOP_PCAP" \
		--host-ip "$GUEST_ADDR" --target-ip "$IOP_NDK_IP" --require 2>&1) ||
		iop_why "remote invalidation: $inv"
	sed 's/^/    /' <<<"$inv"
	iop_case_end "$IOP_CAP_SUM, $IOP_CAP_MALFORMED malformed; ${inv#nvmf_inv_check: }"
}

# --- attached to ndk-roced ---------------------------------------------------

# att_kill: the attached target, then the daemon, then our hugetlbfs
att_kill() {
	if [ -n "$ATT_PID" ]; then
		kill "$ATT_PID" 2>/dev/null || true
		wait "$ATT_PID" 2>/dev/null || true
	fi
	if [ -n "$ROCED_PID" ]; then
		kill "$ROCED_PID" 2>/dev/null || true
		wait "$ROCED_PID" 2>/dev/null || true
	fi
	ATT_PID=
	ROCED_PID=
	if mountpoint -q "$HUGE" 2>/dev/null; then
		umount "$HUGE" 2>/dev/null || true
	fi
}

# att_ready LOG PATTERN PID: until LOG matches PATTERN (30 s) while PID runs
att_ready() {
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# run_attached MTU RDMA_MTU: the target attached to ndk-roced
run_attached() {
	local mtu=$1 rmtu=$2 name L conf st inv free prefix
	name="mtu$mtu-kernel-host-attached"
	L=$W/logs/$name
	conf=$W/tgt.conf
	free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	if [ "${free:-0}" -lt 256 ]; then
		iop_skip "$name: fewer than 256 free hugepages"
		return 0
	fi
	iop_case_begin "$name"
	echo "interop: case $name: nvme-rdma against ndk-nvmf-tgt attached" \
		"to ndk-roced, RDMA MTU $rmtu"
	mkdir -p "$HUGE"
	mount -t hugetlbfs nodev "$HUGE" || iop_why "cannot mount hugetlbfs"
	prefix=$IOP_PREFIX-roced
	printf '%s\n' '[eal]' 'lcores = 1' 'hugepages = yes' 'memory = 256' \
		"huge-dir = $HUGE" "file-prefix = $prefix" '[daemon]' \
		'linger-ms = 500' '[echo]' 'enabled = no' '[port v0]' \
		"device = $IOP_VDEV" \
		"ip = $IOP_NDK_IP/24" "mtu = $rmtu" >"$W/roced.conf"
	iop_expect_link_down
	iop_capture_start "$name" $((mtu + 64)) || true
	ip netns exec "$NS" timeout -k 5 "$IOP_CASE_TIMEOUT" "$NDK_ROCED" \
		-f "$W/roced.conf" >"$L.roced.log" 2>&1 &
	ROCED_PID=$!
	att_ready "$L.roced.log" 'ndk-roced: ready' "$ROCED_PID" ||
		iop_why "ndk-roced did not start"
	ip netns exec "$NS" timeout -k 5 "$IOP_CASE_TIMEOUT" "$NDK_NVMF_TGT" \
		-l 0 --no-pci --proc-type=secondary --file-prefix "$prefix" \
		--huge-dir "$HUGE" --log-level=lib.eal:error -- -c "$conf" \
		--ip "$IOP_NDK_IP" --ethdev net_vhost0 --stats \
		>"$L.tgt.log" 2>&1 &
	ATT_PID=$!
	att_ready "$L.tgt.log" '^ndk-nvmf-tgt: ready' "$ATT_PID" ||
		iop_why "the attached ndk-nvmf-tgt did not start"
	iop_gh "waitactive 30" | sed 's/^/      /' || iop_why "rxe1 not ACTIVE"
	ng "nvme discover" discover "$HOSTNQN" || true
	grep -qx "$NQN" <<<"$NG_OUT" ||
		iop_why "nvme discover does not list $NQN"
	ng "nvme connect" connect "$NQN" "$HOSTNQN" "$HOSTID" || true
	ng "namespaces" wait-dev /dev/nvme0n1 /dev/nvme0n2 || true
	ng "dd on namespace 1" io /dev/nvme0n1 "$(io_list "$MEM_MB")" || true
	ng "dd on namespace 2" io /dev/nvme0n2 "$(io_list "$FILE_MB")" || true
	ng "nvme disconnect" disconnect "$NQN" || true
	sleep 1
	kill "$ATT_PID" 2>/dev/null || true
	wait "$ATT_PID" 2>/dev/null || iop_why "the attached target failed"
	ATT_PID=
	st=$(tgt_stats "$L.tgt.log")
	echo "      target: ${st#ndk-nvmf-tgt: }"
	[[ $st =~ ctrlrs\ 0\ qpairs\ 0\ inflight\ 0 ]] ||
		iop_why "the target did not free everything: $st"
	[[ $st =~ errors\ 0 ]] || iop_why "commands failed: $st"
	att_kill
	grep -q 'ndk-roced: stopped' "$L.roced.log" ||
		iop_why "ndk-roced did not stop cleanly"
	iop_capture_stop "$name"
	if [ ${#IOP_WHY[@]} -gt 0 ]; then
		ng "-" dmesg 20 || true
		iop_tail ndk-nvmf-tgt "$L.tgt.log" 10
		iop_tail ndk-roced "$L.roced.log" 10
	fi
	iop_capture_check --ndk-ip "$IOP_NDK_IP" --guest-ip "$GUEST_ADDR" \
		--min-roce 100
	inv=$("$PYTHON" "$IOP_HERE/nvmf_inv_check.py" "$IOP_PCAP" \
		--host-ip "$GUEST_ADDR" --target-ip "$IOP_NDK_IP" --require 2>&1) ||
		iop_why "remote invalidation: $inv"
	sed 's/^/    /' <<<"$inv"
	iop_case_end "$IOP_CAP_SUM, $IOP_CAP_MALFORMED malformed; ${inv#nvmf_inv_check: }"
}

nvmf_mtu() {
	local mtu=$1 rmtu
	rmtu=$(iop_rdma_mtu "$mtu")
	iop_boot_guest "$mtu" && iop_release_boot_server "$mtu" || return 0
	write_guest_script
	run_case "$mtu" "$rmtu"
	case " ${NV_ATTACHED_MTUS-$IOP_MTUS} " in
	*" $mtu "*) run_attached "$mtu" "$rmtu" ;;
	esac
	iop_guest_end "$mtu"
}

# --- main ------------------------------------------------------------------
# The attached case's target and daemon go first on any exit.
trap 'rc=$?; att_kill; (exit $rc); iop_finish' EXIT
if iop_prepare --capture "$NDK_NVMF_TGT" "$NDK_ROCED"; then
	for mtu in $IOP_MTUS; do
		nvmf_mtu "$mtu"
	done
fi
