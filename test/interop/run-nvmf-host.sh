#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-nvmf-host.sh - the `nvmf_host_rxe` interop test: our NVMe-oF host
# (lib/nvmf/host through ndk-nvmf-perf) against the Linux kernel's target,
# nvmet + nvmet-rdma on Soft-RoCE (rxe1 in the harness's QEMU guest), at
# guest MTU 1500 (RDMA MTU 1024) and 4200 (RDMA MTU 4096).
#
# Per MTU the guest boots and its target is configured through configfs:
# subsystem $NVMF_NQN (allow_any_host), namespace 1 on a 64 MiB file in
# the guest's RAM (buffered I/O: the initramfs has no O_DIRECT), port 1 on
# eth1's address, trtype rdma, adrfam ipv4, trsvcid 4420. Then per case a
# fresh ndk-nvmf-perf (on the guest's vhost-user socket) connects (RDMA CM with the
# NVMe/RDMA private data, Fabrics Connect, CC.EN, Identify, an I/O queue),
# runs --verify -w randrw (each I/O writes a pattern at a random offset,
# reads it back and compares) and disconnects (CC.SHN):
#   4k        4 KiB: writes as in-capsule data, reads by keyed SGL
#   4k-keyed  4 KiB with --no-in-capsule: writes by keyed SGL too (the
#             target RDMA READs them)
#   64k, 1m   64 KiB (over four I/O queues, each of which must carry
#             I/O) and 1 MiB: keyed SGLs, multi-packet RDMA
#   bad-nqn   (first MTU only) a subsystem NQN the target does not have:
#             Connect must fail with the target's status, decoded
#   discover  (first MTU only) ndk-nvmf-perf --discover: our discovery
#             client reads nvmet's discovery log page, which must list
#             the subsystem (rdma, ipv4, NVM subsystem, the guest's
#             address, 4420)
#   aen       (first MTU only) namespace 2 added through configfs while
#             ndk-nvmf-perf runs: its asynchronous event (notice,
#             namespace attribute changed, log page 04h) must arrive and
#             the changed namespace list it reads must name 2; the run
#             ends (SIGINT) a second after that list was read
#   reconnect (first MTU only) verified randrw with --ctrl-loss-tmo 30 s
#             while nvmet's port loses the subsystem for 3 s (configfs
#             link removed and made again): ndk-nvmf-perf must reconnect
#             by itself, carry on and verify every read; the run ends
#             (SIGINT) after 3 s of I/O on the new connection
# Each must exit 0 with no mismatch and no error; the guest captures eth1:
# tshark must decode it, icrc_check.py must verify every ICRC, and
# nvmf_inv_check.py must find the target's SEND with Invalidate frames,
# each naming the token and CID of a command that asked for it with the
# invalidate sub-type, every such command answered so (at least as many
# as ndk-nvmf-perf counted as remote invalidations).
#
# env: NDK_INTEROP_WORK (this test uses its nvmf-host/ subdirectory)
#      NDK_NVMF_PERF (default build/app/ndk-nvmf-perf/ndk-nvmf-perf)
#      TESTPMD PYTHON  NH_MTUS="1500 4200"  NH_CASES (below)  NH_LCORES=0-1
#      NH_DPDK_MEM  NH_NS=ndk-nvmf-host  NH_CASE_TIMEOUT=180
#      NH_PERF="randread:4096:1 randread:4096:32" (PATTERN:SIZE:QD ...):
#      timed runs (NH_PERF_T=10 s, no verify) after the cases, for
#      figures; not run unless set; they pass when ndk-nvmf-perf exits 0
set -euo pipefail
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

IOP_RECONNECT=1
IOP_CASE_TIMEOUT=180
IOP_SUMMARY_HEAD="cases (frames: RoCEv2 in the capture, CM MADs included):"
iop_init nvmf-host NH nh ndk-nh
# NAME:SIZE:COUNT:EXTRA (COUNT verify units: a write and a read each;
# EXTRA: options, '@' for a space)
CASES=${NH_CASES:-4k:4096:200: 4k-keyed:4096:100:--no-in-capsule 64k:65536:48:-P@4 1m:1048576:8:}
NDK_NVMF_PERF=${NDK_NVMF_PERF:-$NDK_INTEROP_ROOT/build/app/ndk-nvmf-perf/ndk-nvmf-perf}
NVMF_NQN=nqn.2026-11.org.ndk-roce:interop
W=$IOP_WORK
GUEST_ADDR=${IOP_GUEST_IP1%/*}
CASE_T=$IOP_CASE_TIMEOUT

# nvmet_setup: the kernel target in the guest, through configfs
nvmet_setup() {
	iop_gx -t 120 "set -e
modprobe nvmet-rdma
grep -q ' /sys/kernel/config ' /proc/mounts ||
	mount -t configfs none /sys/kernel/config
dd if=/dev/zero of=/tmp/nvmf-ns.img bs=1M count=64 2>/dev/null
S=/sys/kernel/config/nvmet/subsystems/$NVMF_NQN
mkdir \$S
echo 1 > \$S/attr_allow_any_host
mkdir \$S/namespaces/1
echo /tmp/nvmf-ns.img > \$S/namespaces/1/device_path
echo 1 > \$S/namespaces/1/buffered_io
echo 1 > \$S/namespaces/1/enable
P=/sys/kernel/config/nvmet/ports/1
mkdir \$P
echo rdma > \$P/addr_trtype
echo ipv4 > \$P/addr_adrfam
echo $GUEST_ADDR > \$P/addr_traddr
echo 4420 > \$P/addr_trsvcid
ln -s \$S \$P/subsystems/$NVMF_NQN
echo nvmet: \$(cat \$P/addr_trtype) \$(cat \$P/addr_traddr):\$(cat \$P/addr_trsvcid), inline \$(cat \$P/param_inline_data_size 2>/dev/null || echo ?) B, namespace \$(cat \$S/namespaces/1/device_path)
dmesg | grep -i nvmet | tail -n 3"
}

# num LOG REGEX: the number the regex's first group catches in LOG (or 0)
num() {
	local v
	v=$(sed -n "s/$2/\\1/p" "$1" | head -n 1)
	echo "${v:-0}"
}

# num_in TEXT REGEX: the same for a string
num_in() {
	local v
	v=$(sed -n "s/$2/\\1/p" <<<"$1" | head -n 1)
	echo "${v:-0}"
}

# run_case MTU RDMA_MTU NAME SIZE COUNT EXTRA
run_case() {
	local mtu=$1 rmtu=$2 name="mtu$1-$3" size=$4 count=$5 extra=$6
	local L=$W/logs/mtu$1-$3 nrc=0 verified mism errs rinv inv_out ninv nq busy
	iop_case_begin "$name"
	echo "interop: case $name: ndk-nvmf-perf against nvmet-rdma," \
		"--verify randrw, $count x (write, read) of $size B" \
		"${extra:+($extra) }at RDMA MTU $rmtu"
	iop_expect_link_down
	iop_capture_start "$name" $((mtu + 64)) || true
	# shellcheck disable=SC2086  # EXTRA: options
	iop_app_start "$L.ndk.log" "$NDK_NVMF_PERF" --ip "$IOP_NDK_IP" \
		--mtu "$rmtu" -a "$GUEST_ADDR" -n "$NVMF_NQN" -q 4 -o "$size" \
		-w randrw --verify -N "$count" --json="$L.json" $extra
	iop_app_wait || nrc=$?
	iop_capture_stop "$name"

	verified=$(num "$L.ndk.log" '^verify: \([0-9]*\) reads checked.*')
	mism=$(num "$L.ndk.log" '^verify: [0-9]* reads checked, \([0-9]*\) mismatches.*')
	errs=$(num "$L.ndk.log" '^I\/Os: .*errors \([0-9]*\)$')
	rinv=$(num "$L.ndk.log" '.*remote invalidations \([0-9]*\),.*')
	[ "$nrc" = 0 ] || iop_why "ndk-nvmf-perf exit status $nrc"
	[ "$verified" = "$count" ] ||
		iop_why "$verified of $count reads verified"
	[ "$mism" = 0 ] || iop_why "$mism mismatches"
	[ "$errs" = 0 ] || iop_why "$errs I/O errors"
	grep -q '^disconnected (controller shut down)' "$L.ndk.log" ||
		iop_why "no orderly disconnect"
	grep -h '^queues: ' "$L.ndk.log" | sed 's/^/    /' || true
	# -P N: N I/O queues granted, and every one of them carried I/O
	if [[ " $extra " =~ \ -P\ ([0-9]+)\  ]]; then
		nq=${BASH_REMATCH[1]}
		grep -h '^queue [0-9]*: ' "$L.ndk.log" | sed 's/^/    /' || true
		grep -q "^  $nq I/O queues" "$L.ndk.log" ||
			iop_why "nvmet did not grant $nq I/O queues"
		busy=$(grep -c '^queue [0-9]*: submitted [1-9]' "$L.ndk.log" || true)
		[ "$busy" = "$nq" ] || iop_why "I/O on $busy of $nq queues"
	fi
	iop_capture_check --ndk-ip "$IOP_NDK_IP" --guest-ip "$GUEST_ADDR" \
		--ndk-mac "$IOP_NDK_MAC" --min-roce $((count * 4))
	inv_out=$("$PYTHON" "$IOP_HERE/nvmf_inv_check.py" --require \
		--host-ip "$IOP_NDK_IP" --target-ip "$GUEST_ADDR" "$IOP_PCAP" 2>&1) ||
		iop_why "nvmf_inv_check: $(tail -n 1 <<<"$inv_out")"
	sed 's/^/    /' <<<"$inv_out"
	ninv=$(num_in "$inv_out" '.*with invalidate \([0-9]*\),.*')
	[ "$ninv" -ge "$rinv" ] ||
		iop_why "$ninv SEND with Invalidate captured, $rinv counted"
	if [ ${#IOP_WHY[@]} -gt 0 ]; then
		iop_tail ndk-nvmf-perf "$L.ndk.log" 30
	fi
	iop_case_end "${count}x${size} B verified $verified; remote invalidations $rinv; $ninv SEND w/ Inv in capture; $IOP_CAP_SUM, $IOP_CAP_MALFORMED malformed"
}

# perf_run MTU RDMA_MTU PATTERN SIZE QD: a timed run, its figures
perf_run() {
	local mtu=$1 rmtu=$2 name="mtu$1-perf-$3-$4-q$5" nrc=0 L
	L=$W/logs/$name
	iop_case_begin "$name"
	echo "interop: case $name: ${NH_PERF_T:-10} s of $3 $4 B at depth $5"
	iop_app_start "$L.ndk.log" "$NDK_NVMF_PERF" --ip "$IOP_NDK_IP" \
		--mtu "$rmtu" -a "$GUEST_ADDR" -n "$NVMF_NQN" -q "$5" -o "$4" \
		-w "$3" -t "${NH_PERF_T:-10}" --json="$L.json"
	iop_app_wait || nrc=$?
	[ "$nrc" = 0 ] || iop_why "ndk-nvmf-perf exit status $nrc"
	grep -E '^ +IOPS|^(read|write|total) ' "$L.ndk.log" | sed 's/^/    /' || true
	[ ${#IOP_WHY[@]} -eq 0 ] || iop_tail ndk-nvmf-perf "$L.ndk.log" 20
	iop_case_end "$(awk '$1 == "read" || $1 == "write" { printf "%s %s IOPS %s MiB/s p50 %s us p99 %s us; ", $1, $2, $3, $6, $7 }' "$L.ndk.log")"
}

# bad_nqn MTU RDMA_MTU: Connect to a subsystem the target lacks
bad_nqn() {
	local mtu=$1 rmtu=$2 name="mtu$1-bad-nqn" L=$W/logs/mtu$1-bad-nqn nrc=0
	iop_case_begin "$name"
	echo "interop: case $name: Connect to a subsystem nvmet does not have"
	iop_app_start "$L.ndk.log" "$NDK_NVMF_PERF" --ip "$IOP_NDK_IP" \
		--mtu "$rmtu" -a "$GUEST_ADDR" -n "$NVMF_NQN.absent" -N 1
	iop_app_wait || nrc=$?
	[ "$nrc" = 1 ] || iop_why "ndk-nvmf-perf exit status $nrc, expected 1"
	grep -q 'queue 0: Connect failed: SCT 1h SC 82h' "$L.ndk.log" ||
		iop_why "no Connect failure with the target's status"
	grep -h 'Connect failed' "$L.ndk.log" | sed 's/^/    /' || true
	[ ${#IOP_WHY[@]} -eq 0 ] || iop_tail ndk-nvmf-perf "$L.ndk.log" 20
	iop_case_end "Connect refused: $(sed -n 's/.*Connect failed: //p' "$L.ndk.log" | head -n 1)"
}

# discover MTU RDMA_MTU: nvmet's discovery log, read by our client
discover() {
	local mtu=$1 rmtu=$2 name="mtu$1-discover" L=$W/logs/mtu$1-discover
	local nrc=0 pat
	iop_case_begin "$name"
	echo "interop: case $name: ndk-nvmf-perf --discover against nvmet's" \
		"discovery subsystem"
	iop_app_start "$L.ndk.log" "$NDK_NVMF_PERF" --ip "$IOP_NDK_IP" \
		--mtu "$rmtu" -a "$GUEST_ADDR" --discover --kato 0
	iop_app_wait || nrc=$?
	[ "$nrc" = 0 ] || iop_why "ndk-nvmf-perf exit status $nrc"
	grep -h '^discovery log\|^entry ' "$L.ndk.log" | sed 's/^/    /' || true
	pat="^entry [0-9]*: trtype rdma adrfam ipv4 subtype nvme .*"
	pat="$pat traddr $GUEST_ADDR trsvcid 4420 subnqn $NVMF_NQN\$"
	grep -q "$pat" "$L.ndk.log" ||
		iop_why "no entry for $NVMF_NQN at $GUEST_ADDR:4420"
	[ ${#IOP_WHY[@]} -eq 0 ] || iop_tail ndk-nvmf-perf "$L.ndk.log" 20
	iop_case_end "$(sed -n 's/^discovery log at [^:]*:[0-9]*: //p' "$L.ndk.log")"
}

# ctrlr_count: how many controllers nvmet has created so far (a guest
# command run to its end: a background job started before the load may
# begin only after our host connected, so it cannot take the count itself)
ctrlr_count() {
	iop_gx -t 60 "dmesg | grep -c 'creating nvm controller'" 2>/dev/null |
		tr -dc '0-9'
}

# after_new_ctrlr N0 SECS: guest shell text that waits (at most 120 s)
# until nvmet has created more than N0 controllers, then SECS seconds
after_new_ctrlr() {
	local c="dmesg | grep -c 'creating nvm controller'"
	printf '%s' "i=0; while [ \$($c) -le $1 ] &&" \
		" [ \$i -lt 240 ]; do sleep 0.5; i=\$((i + 1)); done;" \
		" sleep $2;"
}

# aen MTU RDMA_MTU: nvmet gains namespace 2 while our host runs: the
# asynchronous event arrives and the changed namespace list names it
aen() {
	local mtu=$1 rmtu=$2 name="mtu$1-aen" L=$W/logs/mtu$1-aen nrc=0 job n0
	local S=/sys/kernel/config/nvmet/subsystems/$NVMF_NQN
	iop_case_begin "$name"
	echo "interop: case $name: nvmet adds namespace 2 while" \
		"ndk-nvmf-perf runs"
	# Everything but the enable beforehand: the guest (TCG) is slow.
	iop_gx -t 120 "set -e
dd if=/dev/zero of=/tmp/nvmf-ns2.img bs=1M count=8 2>/dev/null
mkdir $S/namespaces/2
echo /tmp/nvmf-ns2.img > $S/namespaces/2/device_path
echo 1 > $S/namespaces/2/buffered_io" >/dev/null 2>&1 ||
		iop_why "nvmet: cannot prepare namespace 2"
	# The enable from a guest job started before the load (under I/O
	# the TCG guest starts a command tens of seconds late), 5 s after
	# nvmet has created ndk-nvmf-perf's controller.
	n0=$(ctrlr_count)
	[ -n "$n0" ] || iop_why "nvmet: cannot count its controllers"
	job=$(iop_gxb "$(after_new_ctrlr "${n0:-0}" 5) echo 1 > $S/namespaces/2/enable
dmesg | grep nvmet | tail -n 2")
	iop_app_start "$L.ndk.log" "$NDK_NVMF_PERF" --ip "$IOP_NDK_IP" \
		--mtu "$rmtu" -a "$GUEST_ADDR" -n "$NVMF_NQN" -q 1 -o 4096 \
		-w randread -t "${NH_AEN_T:-40}"
	# -t is the bound: the run ends a second after the list was read.
	iop_app_stop_after "$L.ndk.log" '^event: changed namespaces:' 1
	iop_app_wait || nrc=$?
	iop_gxw 60 "$job" 2>&1 | sed 's/^/    /' ||
		iop_why "nvmet: cannot enable namespace 2"
	[ "$nrc" = 0 ] || iop_why "ndk-nvmf-perf exit status $nrc"
	grep -h '^event: ' "$L.ndk.log" | sed 's/^/    /' || true
	grep -q '^event: type 2 info 0 log page 0x4$' "$L.ndk.log" ||
		iop_why "no namespace attribute notice"
	grep -q '^event: changed namespaces: 2$' "$L.ndk.log" ||
		iop_why "the changed namespace list does not name namespace 2"
	# The later cases see namespace 1 only, as before.
	iop_gx -t 60 "echo 0 > $S/namespaces/2/enable; rmdir $S/namespaces/2
rm -f /tmp/nvmf-ns2.img" >/dev/null 2>&1 || true
	[ ${#IOP_WHY[@]} -eq 0 ] || iop_tail ndk-nvmf-perf "$L.ndk.log" 20
	iop_case_end "$(grep -c '^event: ' "$L.ndk.log") event lines"
}

# reconnect MTU RDMA_MTU: nvmet drops our controller (the subsystem
# unlinked from its port, linked again 3 s later) while ndk-nvmf-perf
# runs verified I/O: it reconnects by itself and carries on
reconnect() {
	local mtu=$1 rmtu=$2 name="mtu$1-reconnect" L=$W/logs/mtu$1-reconnect
	local P=/sys/kernel/config/nvmet/ports/1 nrc=0 job mism verified n0
	local S=/sys/kernel/config/nvmet/subsystems/$NVMF_NQN
	iop_case_begin "$name"
	echo "interop: case $name: nvmet drops the controller while" \
		"ndk-nvmf-perf runs, ctrl-loss-tmo 30 s"
	# Started in the guest before the load: under I/O the TCG guest
	# takes tens of seconds to start a command.
	n0=$(ctrlr_count)
	[ -n "$n0" ] || iop_why "nvmet: cannot count its controllers"
	job=$(iop_gxb "$(after_new_ctrlr "${n0:-0}" 5) rm $P/subsystems/$NVMF_NQN; sleep 3
ln -s $S $P/subsystems/$NVMF_NQN
dmesg | grep -E 'nvmet' | tail -n 4")
	iop_app_start "$L.ndk.log" "$NDK_NVMF_PERF" --ip "$IOP_NDK_IP" \
		--mtu "$rmtu" -a "$GUEST_ADDR" -n "$NVMF_NQN" -q 1 -o 4096 \
		-w randrw --verify -t "${NH_RECONNECT_T:-40}" --kato 5000 \
		--reconnect-delay 500 --ctrl-loss-tmo 30000
	# -t is the bound: the run ends 3 s of verified I/O after the
	# reconnect.
	iop_app_stop_after "$L.ndk.log" '^reconnected after' 3
	iop_app_wait || nrc=$?
	iop_gxw 60 "$job" 2>&1 | sed 's/^/    /' ||
		iop_why "nvmet: cannot unlink and link the subsystem"
	[ "$nrc" = 0 ] || iop_why "ndk-nvmf-perf exit status $nrc"
	grep -h '^connection lost\|^reconnect\|^verify:\|^I/Os:' \
		"$L.ndk.log" | sed 's/^/    /' || true
	grep -q '^reconnected after' "$L.ndk.log" ||
		iop_why "ndk-nvmf-perf did not reconnect"
	verified=$(num "$L.ndk.log" '^verify: \([0-9]*\) reads checked.*')
	mism=$(num "$L.ndk.log" '^verify: [0-9]* reads checked, \([0-9]*\) mismatches.*')
	[ "$mism" = 0 ] || iop_why "$mism mismatches"
	[ "$verified" -gt 0 ] || iop_why "nothing verified"
	[ ${#IOP_WHY[@]} -eq 0 ] || iop_tail ndk-nvmf-perf "$L.ndk.log" 20
	iop_case_end "$(sed -n 's/^reconnects/reconnects/p' "$L.ndk.log"), $verified reads verified"
}

# --- one MTU: boot, the target, every case, stop ------------------------
nvmf_mtu() {
	local mtu=$1 first=$2 rmtu c name rest size count extra out pat qd
	rmtu=$(iop_rdma_mtu "$mtu")
	iop_boot_guest "$mtu" && iop_release_boot_server "$mtu" || return 0
	iop_gh "arp-dynamic $IOP_NDK_IP" >/dev/null 2>&1 || true
	if out=$(nvmet_setup 2>&1); then
		sed 's/^/    /' <<<"$out"
		iop_pass "MTU $mtu: nvmet-rdma target configured"
	else
		sed 's/^/    /' <<<"$out"
		iop_fail "MTU $mtu: nvmet-rdma target configured"
		iop_guest_end "$mtu"
		return 0
	fi
	for c in $CASES; do
		name=${c%%:*}
		rest=${c#*:}
		size=${rest%%:*}
		rest=${rest#*:}
		count=${rest%%:*}
		extra=${rest#*:}
		extra=${extra//@/ }
		run_case "$mtu" "$rmtu" "$name" "$size" "$count" "$extra"
	done
	if [ "$first" = 1 ]; then
		bad_nqn "$mtu" "$rmtu"
		discover "$mtu" "$rmtu"
		aen "$mtu" "$rmtu"
		reconnect "$mtu" "$rmtu"
	fi
	for c in ${NH_PERF:-}; do
		IFS=: read -r pat size qd <<<"$c"
		perf_run "$mtu" "$rmtu" "$pat" "$size" "$qd"
	done
	iop_guest_end "$mtu"
}

# --- main ------------------------------------------------------------------
if iop_prepare --capture "$NDK_NVMF_PERF"; then
	first=1
	for mtu in $IOP_MTUS; do
		nvmf_mtu "$mtu" "$first"
		first=0
	done
fi
