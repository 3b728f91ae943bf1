#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-tokens.sh - the `tokens_rxe` interop test: ndk-roce's remote tokens
# against Linux Soft-RoCE's (rxe1 in the harness's QEMU guest), SEND with
# Invalidate in both directions.
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
# Boot as in run-pingpong.sh: QEMU through a wrapper that makes the
# vhost-user chardev reconnecting (reconnect=1), dpdk-testpmd serving the
# socket during the boot, then tok_host as the vhost-user server. One
# guest, one MTU (1500, RDMA MTU 1024), one tok_host process. The guest
# resolves our address through a static ARP entry (the vhost PMD's MAC is
# stable); we resolve the guest's by ARP.
#
# Cleans up on exit, failure or signal: no QEMU, tok_host, testpmd,
# namespace or tap is left, nor the DPDK runtime dirs it created. Ends with
# "interop: N passed, N failed, 0 skipped" (tok_host's cases included).
#
# The machinery below (guest access, DPDK memory flags, testpmd, the QEMU
# wrapper, stale clean-up, the guest's capture) is run-pingpong.sh's,
# written again function by function until test/interop/lib.sh holds it.
#
# env: NDK_INTEROP_WORK (default build/interop; this test uses tokens/)
#      TOK_HOST, RXE_TOKPEER (the binaries; default build/test/interop/...)
#      TOK_NS=ndk-tok  TOK_CASES (tok_host's case filter: a substring)
#      TOK_LCORES=0-1  TOK_DPDK_MEM (EAL memory flags; default --in-memory
#      with free hugepages, else --no-huge -m 512)  TOK_TIMEOUT=240 (s)
#      TESTPMD=dpdk-testpmd  PYTHON=python3
#      and run-guest.sh's BOOT, BOOT_TIMEOUT, ACCEL
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
GUEST=$HERE/guest
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=guest/common.sh
. "$GUEST/common.sh"

export NDK_INTEROP_IMAGE
export NDK_INTEROP_WORK=$NDK_INTEROP_WORK/tokens
export NS=${TOK_NS:-ndk-tok}
export HOSTIP=10.77.0.1/24
GUEST_NAME=tok
GUEST_IP=10.77.0.11/24  # eth0: the control connection
GUEST_IP1=10.77.1.11/24 # eth1, rxe1: on the vhost-user port
NDK_IP=10.77.1.1        # our adapter
NDK_MAC=56:48:4f:53:54:00 # the vhost PMD's default MAC (stable)
MTU=1500
RMTU=1024
TOK_PORT=18600
LCORES=${TOK_LCORES:-0-1}
RUN_T=${TOK_TIMEOUT:-240}
BUILD=$NDK_INTEROP_ROOT/build/test/interop
TOK_HOST=${TOK_HOST:-$BUILD/tok_host}
RXE_TOKPEER=${RXE_TOKPEER:-$BUILD/rxe_tokpeer}
TESTPMD=${TESTPMD:-dpdk-testpmd}
PYTHON=${PYTHON:-python3}
W=$NDK_INTEROP_WORK
SOCK=$W/vhost.sock
D=$(guest_dir "$GUEST_NAME")
PREFIX=ndk-tok-$$ # DPDK file prefixes: $PREFIX-tp, $PREFIX-host

pass=0
fail=0
tp_pid=
tp_fd=
host_pid=
t_start=$(now_ms)

ok() {
	pass=$((pass + 1))
	echo "  PASS $1"
}

ko() {
	fail=$((fail + 1))
	echo "  FAIL $1${2:+: $2}"
}

# --- the guest (as run-pingpong.sh) ---------------------------------------
gx() { # gx [-t SECS] 'cmd': run in the guest, output and status
	local t=60
	if [ "$1" = -t ]; then
		t=$2
		shift 2
	fi
	"$GUEST/guest-exec.sh" -t "$t" "$GUEST_NAME" "$@"
}

gxb() { "$GUEST/guest-exec.sh" -b "$GUEST_NAME" "$@"; }

gxw() { "$GUEST/guest-exec.sh" -t "$1" -w "$2" "$GUEST_NAME"; }

# --- DPDK memory flags (as run-pingpong.sh) -------------------------------
# dpdk_mem PREFIX: EAL memory flags, always with a file prefix of ours (even
# --in-memory creates /var/run/dpdk/<prefix>), removed after the process.
dpdk_mem() {
	local free
	if [ -n "${TOK_DPDK_MEM:-}" ]; then
		echo "$TOK_DPDK_MEM --file-prefix=$1"
		return
	fi
	free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages \
		2>/dev/null || echo 0)
	if [ "$free" -ge 128 ]; then
		echo "--in-memory --file-prefix=$1"
	else
		echo "--no-huge -m 512 --file-prefix=$1"
	fi
}

rm_prefix() {
	[ -z "$1" ] || rm -rf "/var/run/dpdk/$1" "${XDG_RUNTIME_DIR:-/tmp}/dpdk/$1"
}

# --- the boot-time vhost-user server: testpmd, idle (as run-pingpong.sh) ---
start_testpmd() {
	local log=$1 i
	rm -f "$SOCK" "$W/testpmd.in"
	mkfifo "$W/testpmd.in"
	exec {tp_fd}<>"$W/testpmd.in"
	# shellcheck disable=SC2046  # EAL memory flags are words
	stdbuf -oL "$TESTPMD" -l "$LCORES" --no-pci $(dpdk_mem "$PREFIX-tp") \
		--vdev "net_vhost0,iface=$SOCK,queues=1" -- -i \
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
	tail -n 15 "$log" | sed 's/^/    /'
	stop_testpmd
	return 1
}

stop_testpmd() {
	local i
	[ -n "$tp_pid" ] || return 0
	{ echo quit >&"$tp_fd"; } 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do
		kill -0 "$tp_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$tp_pid" 2>/dev/null || true
	wait "$tp_pid" 2>/dev/null || true
	exec {tp_fd}>&-
	tp_pid=
	rm -f "$W/testpmd.pid" "$W/testpmd.in" "$SOCK"
	rm_prefix "$PREFIX-tp"
}

# --- the QEMU wrapper: a reconnecting vhost-user chardev (as run-pingpong.sh)
write_qemu_wrapper() {
	local real
	real=$(command -v qemu-system-x86_64) || return 1
	mkdir -p "$W/bin"
	cat >"$W/bin/qemu-system-x86_64" <<EOF
#!/bin/bash
# Written by run-tokens.sh: run-guest.sh's QEMU with ,reconnect=1 on the
# vhost-user chardev (id vh0), so that tok_host can be a new vhost-user
# server on the socket testpmd served during the boot.
args=()
for a in "\$@"; do
	case \$a in
	socket,id=vh0,*reconnect=*) ;;
	socket,id=vh0,*) a="\$a,reconnect=1" ;;
	esac
	args+=("\$a")
done
exec $real "\${args[@]}"
EOF
	chmod +x "$W/bin/qemu-system-x86_64"
}

# --- the guest's half, as a script in its share (busybox sh) --------------
write_guest_helper() {
	cat >"$D/share/tok-guest.sh" <<'EOF'
#!/bin/sh
# tok-guest.sh CMD ARGS - the guest's side of run-tokens.sh
P=/sys/class/infiniband/rxe1/ports/1
cmd=$1
shift
case $cmd in
state) echo "rxe1 $(cut -d' ' -f2 $P/state), eth1 carrier $(cat /sys/class/net/eth1/carrier), GID 1 $(cat $P/gids/1)" ;;
arp-static) arp -i eth1 -d "$1" 2>/dev/null; arp -i eth1 -s "$1" "$2" && ip neigh show dev eth1 ;;
capture) # capture NAME SNAPLEN: tcpdump on eth1 until capture-stop
	# (the settings of run-pingpong.sh's pp-guest.sh: TPACKET_V2, a
	# snapshot length just above the largest frame, a 64 MiB ring)
	echo $$ >/tmp/tcpdump.pid
	rm -f "/tmp/$1.pcap"
	exec /share/tools/tcpdump --immediate-mode -U -B 65536 -s "$2" -n \
		-i eth1 -w "/tmp/$1.pcap" ;;
capture-stop) # capture-stop NAME: stop tcpdump once its file stops growing
	pid=$(cat /tmp/tcpdump.pid)
	last=-1
	n=0
	while [ $n -lt 100 ]; do
		size=$(stat -c %s "/tmp/$1.pcap" 2>/dev/null || echo 0)
		[ "$size" = "$last" ] && break
		last=$size
		n=$((n + 1))
		sleep 0.3
	done
	kill -INT "$pid"
	n=0
	while kill -0 "$pid" 2>/dev/null && [ $n -lt 200 ]; do
		n=$((n + 1))
		sleep 0.05
	done
	mkdir -p /share/pcap
	cp "/tmp/$1.pcap" /share/pcap/ && rm -f "/tmp/$1.pcap" ;;
listening) # listening PORT: a TCP listener on PORT
	grep -qi ":$(printf '%04X' "$1") 00000000:0000 0A" /proc/net/tcp ;;
peer) # peer SECS PORT: rxe_tokpeer until BYE
	timeout "$1" /share/rxe_tokpeer -d rxe1 -g 1 -p "$2" -t "$1" ;;
*) echo "tok-guest.sh: $cmd?"; exit 2 ;;
esac
EOF
}

# --- tok_host: the vhost-user server on $SOCK, in the namespace ------------
# `timeout --foreground` keeps it in our process group (a runner that kills
# the group reaches it).
host_start() {
	local log=$1
	shift
	rm -f "$SOCK"
	# shellcheck disable=SC2046  # EAL memory flags are words
	ip netns exec "$NS" timeout --foreground -k 5 "$RUN_T" \
		"$TOK_HOST" -l "$LCORES" --no-pci $(dpdk_mem "$PREFIX-host") \
		--log-level=lib.eal:error \
		--vdev "net_vhost0,iface=$SOCK,queues=1" -- \
		--ip "$NDK_IP" --guest "${GUEST_IP%/*}" \
		--guest-ip1 "${GUEST_IP1%/*}" --port "$TOK_PORT" \
		--mtu "$RMTU" "$@" >"$log" 2>&1 &
	host_pid=$!
	echo "$host_pid" >"$W/host.pid"
}

host_wait() {
	local rc=0
	[ -n "$host_pid" ] || return 99
	wait "$host_pid" || rc=$?
	host_pid=
	rm -f "$W/host.pid"
	rm_prefix "$PREFIX-host"
	return "$rc"
}

# host_pid is `timeout`, which passes SIGTERM on to tok_host.
host_kill() {
	[ -n "$host_pid" ] || return 0
	kill "$host_pid" 2>/dev/null || true
	host_wait || true
}

# --- clean-up -------------------------------------------------------------
# A previous run killed hard may have left its guest, testpmd or tok_host
# (ours only: by pid file and our socket on the command line).
stale_cleanup() {
	local pid f p d
	"$GUEST/stop-guest.sh" --all
	for f in testpmd host; do
		[ -f "$W/$f.pid" ] || continue
		pid=$(cat "$W/$f.pid")
		for p in $(pgrep -P "$pid" 2>/dev/null) "$pid"; do
			if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF "iface=$SOCK,"; then
				kill -9 "$p" 2>/dev/null || true
			fi
		done
		rm -f "$W/$f.pid"
	done
	rm -f "$SOCK"
	for d in /var/run/dpdk/ndk-tok-*; do
		[ -d "$d" ] || continue
		p=${d#/var/run/dpdk/ndk-tok-}
		p=${p%%-*}
		kill -0 "$p" 2>/dev/null || rm -rf "$d"
	done
}

cleanup() {
	host_kill
	"$GUEST/stop-guest.sh" --all || true
	stop_testpmd
	rm -f "$SOCK"
	rm -rf /var/run/dpdk/"$PREFIX"-* "${XDG_RUNTIME_DIR:-/tmp}"/dpdk/"$PREFIX"-*
}

kill_all() {
	# shellcheck disable=SC2046  # pids
	[ -z "$host_pid" ] ||
		kill -9 $(pgrep -P "$host_pid" 2>/dev/null) "$host_pid" 2>/dev/null || true
	[ -z "$tp_pid" ] || kill -9 "$tp_pid" 2>/dev/null || true
	"$GUEST/stop-guest.sh" --kill --all || true
}

finish() {
	local rc=$?
	trap - EXIT
	[ "$rc" -le 128 ] || kill_all
	cleanup
	if [ "$rc" != 0 ] && [ "$fail" = 0 ]; then
		ko "aborted" "exit status $rc"
	fi
	echo "interop: total $(secs_since "$t_start") s"
	echo "interop: $pass passed, $fail failed, 0 skipped"
	[ "$fail" = 0 ] || exit 1
}
trap finish EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# --- the guest: boot with testpmd serving eth1, then without it -----------
boot_guest() {
	local boot qpid out i
	if ! start_testpmd "$W/testpmd.log"; then
		ko "testpmd, the boot-time vhost-user server"
		return 1
	fi
	if ! PATH=$W/bin:$PATH MTU=$MTU VHOST_SOCK=$SOCK IP1=$GUEST_IP1 \
		"$GUEST/run-guest.sh" "$GUEST_NAME" "$GUEST_IP" >"$W/boot.log" 2>&1; then
		sed 's/^/    /' "$W/boot.log"
		ko "guest boot"
		stop_testpmd
		return 1
	fi
	boot=$(sed -n 's/^BOOT_SECONDS=//p' "$D/guest.env")
	sed 's/^/    /' "$W/boot.log"
	qpid=$(cat "$D/qemu.pid")
	write_guest_helper
	cp "$RXE_TOKPEER" "$D/share/rxe_tokpeer"
	# The boot server leaves; QEMU must notice, the guest lose its carrier.
	stop_testpmd
	out=
	for ((i = 0; i < 50; i++)); do
		out=$(gx "sh /share/tok-guest.sh state" 2>&1) || true
		case $out in "rxe1 DOWN, eth1 carrier 0,"*) break ;; esac
		sleep 0.2
	done
	if tr '\0' ' ' <"/proc/$qpid/cmdline" | grep -q 'socket,id=vh0,[^ ]*reconnect=1' &&
		[[ $out == "rxe1 DOWN, eth1 carrier 0,"* ]]; then
		ok "guest up in $boot s, vhost-user chardev reconnect=1; testpmd gone: $out"
		return 0
	fi
	ko "guest with a reconnecting vhost-user NIC" \
		"$(tr '\0' ' ' <"/proc/$qpid/cmdline" | grep -o 'socket,id=vh0[^ ]*'); $out"
	return 1
}

# --- the run: capture, rxe_tokpeer, tok_host ------------------------------
# Sets tcpd (tcpdump's counters) and leaves the capture in $W/pcap.
run_tokens() {
	local arp cap_id peer_id hrc=0 prc=0 i st line
	arp=$(gx "sh /share/tok-guest.sh arp-static $NDK_IP $NDK_MAC" 2>&1) || true
	echo "interop: guest eth1 neighbours: ${arp:-none}"
	cap_id=$(gxb "sh /share/tok-guest.sh capture tokens $((MTU + 64))") ||
		cap_id=none
	st=1
	for ((i = 0; i < 100; i++)); do
		if grep -q 'listening on eth1' "$D/share/jobs/$cap_id.out" 2>/dev/null; then
			st=0
			break
		fi
		sleep 0.1
	done
	if [ "$st" = 0 ]; then
		ok "tcpdump captures the guest's eth1"
	else
		ko "tcpdump in the guest did not start"
	fi

	peer_id=$(gxb "sh /share/tok-guest.sh peer $RUN_T $TOK_PORT") || peer_id=none
	st=1
	for ((i = 0; i < 100; i++)); do
		if gx "sh /share/tok-guest.sh listening $TOK_PORT" 2>/dev/null; then
			st=0
			break
		fi
		sleep 0.1
	done
	if [ "$st" != 0 ]; then
		ko "rxe_tokpeer is not listening in the guest" \
			"$(tail -n 5 "$D/share/jobs/$peer_id.out" 2>/dev/null)"
	fi

	# shellcheck disable=SC2086  # the case filter: one word or none
	host_start "$W/tok_host.log" ${TOK_CASES:-}
	host_wait || hrc=$?
	gxw $((RUN_T + 30)) "$peer_id" >"$W/rxe_tokpeer.log" 2>&1 || prc=$?

	echo "interop: tok_host (EAL and vhost lines left out; $W/tok_host.log):"
	{ grep -Ev '^(EAL|VHOST_CONFIG|TELEMETRY|USER1):' "$W/tok_host.log" || true; } |
		sed 's/^/  | /'
	line=$(grep -E '^tokens_rxe: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' \
		"$W/tok_host.log" || true)
	if [[ $line =~ ^tokens_rxe:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		pass=$((pass + BASH_REMATCH[1]))
		fail=$((fail + BASH_REMATCH[2]))
	else
		ko "tok_host printed no result line"
	fi
	if [ "$hrc" = 0 ]; then
		ok "tok_host exit status 0"
	else
		ko "tok_host exit status $hrc"
	fi
	if [ "$prc" = 0 ] && grep -q 'exit 0$' "$W/rxe_tokpeer.log"; then
		ok "rxe_tokpeer served $(grep -c ' -> ' "$W/rxe_tokpeer.log") requests and exited 0 after BYE ($W/rxe_tokpeer.log)"
	else
		ko "rxe_tokpeer exit status $prc" "$(tail -n 5 "$W/rxe_tokpeer.log" | tr '\n' ' ')"
	fi

	gx -t 120 "sh /share/tok-guest.sh capture-stop tokens" >/dev/null 2>&1 ||
		ko "capture-stop failed"
	tcpd=$(gxw 30 "$cap_id" 2>&1) || true
	mkdir -p "$W/pcap"
	mv -f "$D/share/pcap/tokens.pcap" "$W/pcap/tokens.pcap" 2>/dev/null ||
		ko "no capture file"
}

# count_frames TSV SRC OPCODE [SYNDROME]: frames from SRC with that opcode
# (decimal) and, for ACK opcodes, that AETH syndrome (decimal)
count_frames() {
	awk -F'\t' -v s="$2" -v o="$3" -v y="${4:-}" \
		'$2 == s && $3 == o && (y == "" || $4 == y) { n++ } END { print n + 0 }' "$1"
}

# expect_frames WHAT N: at least N frames (the cases imply them)
expect_frames() {
	if [ "$2" -ge "$3" ]; then
		ok "capture: $1: $2 (at least $3)"
	else
		ko "capture: $1: $2, expected at least $3"
	fi
}

# --- the capture: tcpdump's counters, tshark, ICRCs, the frames expected ---
check_capture() {
	local pcap=$W/pcap/tokens.pcap tsv=$W/pcap/tokens.tsv capt recv drop
	local malformed out n_ib g=${GUEST_IP1%/*}
	capt=$(sed -n 's/^\([0-9]*\) packets captured$/\1/p' <<<"$tcpd")
	recv=$(sed -n 's/^\([0-9]*\) packets received by filter$/\1/p' <<<"$tcpd")
	drop=$(sed -n 's/^\([0-9]*\) packets dropped by kernel$/\1/p' <<<"$tcpd")
	if [ -n "$capt" ] && [ "$capt" = "$recv" ] && [ "$drop" = 0 ]; then
		ok "tcpdump: $capt captured, $recv received by filter, $drop dropped"
	else
		ko "tcpdump lost frames" "${capt:-?} captured, ${recv:-?} received, ${drop:-?} dropped"
	fi
	[ -f "$pcap" ] || return 0
	if ! tshark -r "$pcap" --disable-heuristic rpcrdma_infiniband \
		-T fields -e frame.number -e ip.src -e infiniband.bth.opcode \
		-e infiniband.aeth.syndrome -e infiniband.bth.destqp \
		-e infiniband.bth.psn -e infiniband.ieth -e _ws.col.Info -E occurrence=f \
		>"$tsv" 2>"$W/pcap/tokens.tshark.err"; then
		ko "tshark could not decode $pcap"
		return 0
	fi
	n_ib=$(awk -F'\t' '$3 != ""' "$tsv" | wc -l)
	malformed=$(tshark -r "$pcap" --disable-heuristic rpcrdma_infiniband \
		-Y _ws.malformed 2>/dev/null | wc -l) || malformed=error
	if [ "$malformed" = 0 ]; then
		ok "tshark: $(wc -l <"$tsv") frames, $n_ib InfiniBand (RoCEv2), none malformed"
	else
		ko "tshark: $malformed malformed frames"
	fi
	if out=$("$PYTHON" "$HERE/icrc_check.py" "$pcap" --ndk-ip "$NDK_IP" \
		--guest-ip "$g" --ndk-mac "$NDK_MAC" --min-roce 40 2>&1); then
		ok "icrc_check: every ICRC and header good"
	else
		ko "icrc_check: the capture does not verify"
	fi
	sed 's/^/    /' <<<"$out"
	n=$(sed -n 's/.* frames, \([0-9]*\) RoCEv2:.*/\1/p' <<<"$out")
	if [ "$n" = "$n_ib" ]; then
		ok "tshark and icrc_check both count $n_ib RoCEv2 frames"
	else
		ko "tshark counts $n_ib RoCEv2 frames, icrc_check ${n:-?}"
	fi

	# What the cases put on the wire (only when they all ran).
	[ -z "${TOK_CASES:-}" ] || return 0
	# opcodes: 23 SEND_ONLY with Invalidate, 17 ACK; syndromes: 97 NAK
	# invalid request, 98 NAK remote access error
	expect_frames "our SEND_ONLY with Invalidate to rxe" \
		"$(count_frames "$tsv" "$NDK_IP" 23)" 4
	expect_frames "rxe's SEND_ONLY with Invalidate to us" \
		"$(count_frames "$tsv" "$g" 23)" 5
	expect_frames "rxe's remote access NAKs to us" \
		"$(count_frames "$tsv" "$g" 17 98)" 2
	expect_frames "our remote access NAKs to rxe" \
		"$(count_frames "$tsv" "$NDK_IP" 17 98)" 4
	expect_frames "our invalid-request NAKs to rxe (bad tokens)" \
		"$(count_frames "$tsv" "$NDK_IP" 17 97)" 3
	echo "    IETH R_Keys on the wire: $(awk -F'\t' '$3 == 23 { printf "%s from %s; ", $7, $2 }' "$tsv")"
}

# --- main ------------------------------------------------------------------
mkdir -p "$W"
stale_cleanup
rm -rf "$W/pcap" "$W"/*.log
tcpd=
echo "interop: tokens_rxe: tok_host ($TOK_HOST) against rxe_tokpeer ($RXE_TOKPEER) on rxe1, MTU $MTU (RDMA MTU $RMTU)"
if ! command -v "$TESTPMD" >/dev/null; then
	ko "dpdk-testpmd" "not found (apt-get install dpdk-dev)"
elif [ ! -x "$TOK_HOST" ] || [ ! -x "$RXE_TOKPEER" ]; then
	ko "binaries" "no $TOK_HOST or $RXE_TOKPEER (build first; rxe_tokpeer needs libibverbs-dev)"
elif ! command -v tshark >/dev/null || ! command -v "$PYTHON" >/dev/null; then
	ko "tools" "tshark and $PYTHON are needed"
elif ! "$PYTHON" "$HERE/icrc_check.py" --self-test >/dev/null; then
	ko "icrc_check.py --self-test"
elif ! write_qemu_wrapper; then
	ko "qemu-system-x86_64" "not found"
elif ! "$GUEST/make-image.sh" "$NDK_INTEROP_IMAGE" >"$W/make-image.log" 2>&1; then
	tail -n 20 "$W/make-image.log" | sed 's/^/    /'
	ko "guest image" "see $W/make-image.log"
else
	echo "interop: $(tail -n 1 "$W/make-image.log"), $(secs_since "$t_start") s"
	if boot_guest; then
		run_tokens
		check_capture
		cp "$D/console.log" "$W/console.log" 2>/dev/null || true
		cp "$D/qemu.log" "$W/qemu.log" 2>/dev/null || true
		"$GUEST/stop-guest.sh" "$GUEST_NAME"
	fi
fi
