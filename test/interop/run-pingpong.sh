#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-pingpong.sh - the `pingpong_rxe` interop test: rdma-core's
# ibv_rc_pingpong on Linux Soft-RoCE (rxe1 in the harness's QEMU guest)
# against ndk-pingpong on the host, whose adapter is the guest's eth1
# (vhost-user), in both roles, at guest MTU 1500 (RDMA MTU 1024) and 4200
# (RDMA MTU 4096), for message sizes 2 B, 4 KiB, 64 KiB and 1 MiB.
#
# One guest per MTU, booted once; every case then runs a fresh ndk-pingpong
# process as the vhost-user server on the same socket path. QEMU can follow
# that only as a reconnecting vhost-user client (`-chardev
# socket,...,reconnect=1`): run-guest.sh does not declare the chardev that
# way, so this script boots the guest through a qemu-system-x86_64 wrapper
# (written into the work dir, first in PATH for run-guest.sh only) that adds
# `,reconnect=1` to the vhost-user chardev and changes nothing else. QEMU
# only starts with a server present, so dpdk-testpmd serves the socket
# during the boot and quits; from then on eth1's carrier (and rxe1) goes
# down whenever a DPDK process exits and comes back when the next one
# starts, which every case checks.
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
# Cleans up on exit, failure or signal: no QEMU, ndk-pingpong, testpmd,
# namespace or tap is left, nor the DPDK runtime dirs it created. Ends with
# "interop: N passed, N failed, 0 skipped".
#
# env: NDK_INTEROP_WORK (default build/interop; this test uses its
#        pingpong/ subdirectory)  NDK_PINGPONG (the binary; default
#        build/app/ndk-pingpong/ndk-pingpong)  TESTPMD=dpdk-testpmd
#      PP_MTUS="1500 4200"  PP_ROLES="guest-client guest-server"
#      PP_CASES="2:300 4096:200 65536:40 1048576:8" (SIZE:ITERS)
#      PP_LCORES=0-1  PP_DPDK_MEM (EAL memory flags; default --in-memory
#      with free hugepages, else --no-huge -m 512)  PP_NS=ndk-pingpong
#      PP_CASE_TIMEOUT=120 (s, each side of a case)  PYTHON=python3
#      and run-guest.sh's BOOT, BOOT_TIMEOUT, ACCEL
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
GUEST=$HERE/guest
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=guest/common.sh
. "$GUEST/common.sh"

export NDK_INTEROP_IMAGE
export NDK_INTEROP_WORK=$NDK_INTEROP_WORK/pingpong
export NS=${PP_NS:-ndk-pingpong}
export HOSTIP=10.77.0.1/24
HOST_ADDR=${HOSTIP%/*}
GUEST_NAME=pp
GUEST_IP=10.77.0.11/24  # eth0: the TCP exchange
GUEST_IP1=10.77.1.11/24 # eth1, rxe1: on the vhost-user port
NDK_IP=10.77.1.1        # our adapter
# The vhost PMD's default MAC for port 0 (rte_eth_vhost.c): stable across
# processes, which the guest-server cases' static ARP entry relies on.
NDK_MAC=${PP_NDK_MAC:-56:48:4f:53:54:00}
MTUS=${PP_MTUS:-1500 4200}
ROLES=${PP_ROLES:-guest-client guest-server}
CASES=${PP_CASES:-2:300 4096:200 65536:40 1048576:8}
LCORES=${PP_LCORES:-0-1}
CASE_T=${PP_CASE_TIMEOUT:-120}
NDK_PINGPONG=${NDK_PINGPONG:-$NDK_INTEROP_ROOT/build/app/ndk-pingpong/ndk-pingpong}
TESTPMD=${TESTPMD:-dpdk-testpmd}
PYTHON=${PYTHON:-python3}
W=$NDK_INTEROP_WORK
SOCK=$W/vhost.sock
D=$(guest_dir "$GUEST_NAME")
PREFIX=ndk-pp-$$ # DPDK file prefixes: $PREFIX-N, removed after each run

pass=0
fail=0
summary=() # one line per case, printed at the end
tp_pid=
tp_fd=
ndk_pid=
ndk_prefix=
ndk_n=0
t_start=$(now_ms)

ok() {
	pass=$((pass + 1))
	echo "  PASS $1"
}

ko() {
	fail=$((fail + 1))
	echo "  FAIL $1${2:+: $2}"
}

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

# dpdk_mem PREFIX: EAL memory flags, always with a file prefix of ours (even
# --in-memory creates /var/run/dpdk/<prefix>), removed after the process.
dpdk_mem() {
	local free
	if [ -n "${PP_DPDK_MEM:-}" ]; then
		echo "$PP_DPDK_MEM --file-prefix=$1"
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

# --- the boot-time vhost-user server: testpmd, idle -----------------------
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

# --- ndk-pingpong, one process per case -----------------------------------
# ndk_start LOG OPTS...: the vhost-user server on $SOCK, in the namespace.
# `timeout --foreground` keeps it in our process group (a runner that kills
# the group reaches it).
ndk_start() {
	local log=$1
	shift
	rm -f "$SOCK"
	ndk_n=$((ndk_n + 1))
	ndk_prefix=$PREFIX-$ndk_n
	# shellcheck disable=SC2046  # EAL memory flags are words
	ip netns exec "$NS" timeout --foreground -k 5 "$CASE_T" \
		"$NDK_PINGPONG" -l "$LCORES" --no-pci $(dpdk_mem "$ndk_prefix") \
		--vdev "net_vhost0,iface=$SOCK,queues=1" -- \
		--ip "$NDK_IP" "$@" >"$log" 2>&1 &
	ndk_pid=$!
	echo "$ndk_pid" >"$W/ndk.pid"
}

# ndk_wait: its exit status
ndk_wait() {
	local rc=0
	[ -n "$ndk_pid" ] || return 99
	wait "$ndk_pid" || rc=$?
	ndk_pid=
	rm -f "$W/ndk.pid"
	rm_prefix "$ndk_prefix"
	ndk_prefix=
	return "$rc"
}

# ndk_pid is `timeout`, which passes SIGTERM on to ndk-pingpong.
ndk_kill() {
	[ -n "$ndk_pid" ] || return 0
	kill "$ndk_pid" 2>/dev/null || true
	ndk_wait || true
}

# --- guest side -----------------------------------------------------------
# The guest's half of a case, as a script in its share (busybox sh).
write_guest_helper() {
	cat >"$D/share/pp-guest.sh" <<'EOF'
#!/bin/sh
# pp-guest.sh CMD ARGS - the guest's side of run-pingpong.sh
P=/sys/class/infiniband/rxe1/ports/1
up() { cut -d' ' -f1 /proc/uptime; }
state() {
	echo "rxe1 $(cut -d' ' -f2 $P/state), eth1 carrier $(cat /sys/class/net/eth1/carrier), GID 1 $(cat $P/gids/1)"
}
# waitactive SECS: until rxe1 is ACTIVE again (a DPDK process serves eth1)
waitactive() {
	u0=$(up)
	n=0
	while ! grep -q ACTIVE $P/state && [ $n -lt $(($1 * 20)) ]; do
		n=$((n + 1))
		sleep 0.05
	done
	echo "link: $(state), after $(awk "BEGIN { printf \"%.2f\", $(up) - $u0 }") s"
	grep -q ACTIVE $P/state
}
cmd=$1
shift
case $cmd in
state) state ;;
arp-static) arp -i eth1 -d "$1" 2>/dev/null; arp -i eth1 -s "$1" "$2" && ip neigh show dev eth1 ;;
arp-dynamic) arp -i eth1 -d "$1" 2>/dev/null; ip neigh show dev eth1; true ;;
capture) # capture NAME SNAPLEN: tcpdump on eth1 until capture-stop
	echo $$ >/tmp/tcpdump.pid
	rm -f "/tmp/$1.pcap"
	# --immediate-mode: TPACKET_V2, frame by frame; the default TPACKET_V3
	# ring lost frames here without counting them as drops, and its last
	# block on SIGINT. The ring (-B, KiB) is cut in slots of the snapshot
	# length (eth1 has GRO, so libpcap would size them for 64 KiB frames
	# and a 64 MiB ring would hold ~1000): a snapshot length just above
	# the largest frame gives ~15000-40000 slots. A frame longer than it
	# would show as truncated in icrc_check.py.
	exec /share/tools/tcpdump --immediate-mode -U -B 65536 -s "$2" -n \
		-i eth1 -w "/tmp/$1.pcap" ;;
capture-stop) # capture-stop NAME: stop tcpdump, hand the file to the host
	pid=$(cat /tmp/tcpdump.pid)
	# Under TCG tcpdump lags behind bursts by hundreds of frames, kept in
	# its ring; SIGINT would drop them. Nothing new arrives (the DPDK side
	# is gone, eth1 down): wait until it has written everything out (-U:
	# the file grows frame by frame).
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
listening) grep -q ':4853 00000000:0000 0A' /proc/net/tcp ;; # port 18515
client) # client TIMEOUT ARGS: wait for the link, run ibv_rc_pingpong
	t=$1
	shift
	waitactive 30 || exit 3
	timeout "$t" ibv_rc_pingpong -d rxe1 "$@" ;;
server) # server TIMEOUT ARGS: ibv_rc_pingpong server, reporting the link
	t=$1
	shift
	echo "before: $(state)"
	waitactive 60 >/tmp/waitactive.out &
	w=$!
	timeout "$t" ibv_rc_pingpong -d rxe1 "$@"
	rc=$?
	wait $w
	cat /tmp/waitactive.out
	exit $rc ;;
*) echo "pp-guest.sh: $cmd?"; exit 2 ;;
esac
EOF
}

# The QEMU wrapper: the vhost-user chardev becomes a reconnecting client.
write_qemu_wrapper() {
	local real
	real=$(command -v qemu-system-x86_64) || return 1
	mkdir -p "$W/bin"
	cat >"$W/bin/qemu-system-x86_64" <<EOF
#!/bin/bash
# Written by run-pingpong.sh: run-guest.sh's QEMU with ,reconnect=1 on the
# vhost-user chardev (id vh0), so that each DPDK process can be a new
# vhost-user server on the same socket.
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

# --- cleanup ---------------------------------------------------------------
# A previous run killed hard may have left its guest, testpmd or
# ndk-pingpong (ours only: by pid file and our socket on the command line).
stale_cleanup() {
	local pid f p
	"$GUEST/stop-guest.sh" --all
	for f in testpmd ndk; do
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
	# DPDK runtime dirs of runs that died without cleaning up
	for d in /var/run/dpdk/ndk-pp-*; do
		[ -d "$d" ] || continue
		p=${d#/var/run/dpdk/ndk-pp-}
		p=${p%%-*}
		kill -0 "$p" 2>/dev/null || rm -rf "$d"
	done
}

cleanup() {
	ndk_kill
	"$GUEST/stop-guest.sh" --all || true
	stop_testpmd
	rm -f "$SOCK"
	rm -rf /var/run/dpdk/"$PREFIX"-* "${XDG_RUNTIME_DIR:-/tmp}"/dpdk/"$PREFIX"-*
}

kill_all() {
	# shellcheck disable=SC2046  # pids
	[ -z "$ndk_pid" ] ||
		kill -9 $(pgrep -P "$ndk_pid" 2>/dev/null) "$ndk_pid" 2>/dev/null || true
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
	if [ ${#summary[@]} -gt 0 ]; then
		echo "interop: cases (frames: RoCEv2 in the capture; retx: SEND packets seen again, ndk->guest / guest->ndk):"
		printf '  %s\n' "${summary[@]}"
	fi
	echo "interop: total $(secs_since "$t_start") s"
	echo "interop: $pass passed, $fail failed, 0 skipped"
	[ "$fail" = 0 ] || exit 1
}
trap finish EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# --- one case ----------------------------------------------------------------
# addr_field LOG WHICH FIELD: QPN or PSN of the "local"/"remote" address line
addr_field() {
	sed -n "s/^ *$2 address: .* $3 \\(0x[0-9a-f]*\\).*/\\1/p" "$1" | head -n 1
}

# result_lines LOG: the two lines ibv_rc_pingpong prints at the end
result_lines() {
	grep -E '^[0-9]+ (bytes|iters) in [0-9.]+ seconds' "$1" || true
}

# host_listening: ndk-pingpong's TCP server is up in the namespace
host_listening() {
	local i
	for ((i = 0; i < 300; i++)); do
		[ -n "$(ip netns exec "$NS" ss -Hltn 'sport = :18515' 2>/dev/null)" ] &&
			return 0
		kill -0 "$ndk_pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

guest_listening() {
	local i
	for ((i = 0; i < 100; i++)); do
		gx "sh /share/pp-guest.sh listening" && return 0
		sleep 0.1
	done
	return 1
}

# run_case MTU RDMA_MTU ROLE SIZE ITERS
run_case() {
	local mtu=$1 rmtu=$2 role=$3 size=$4 iters=$5
	local name="mtu$mtu-$role-$size" L t0 why=() cap_id gid
	local nrc=0 grc=0 state st tcpd pcap out='' malformed='' i
	local opts=(-g 1 -m "$rmtu" -s "$size" -n "$iters" -c)
	L=$W/logs/$name
	t0=$(now_ms)
	echo "interop: case $name: ibv_rc_pingpong on rxe1 as the" \
		"${role#guest-}, ndk-pingpong as the" \
		"$([ "$role" = guest-client ] && echo server || echo client)," \
		"${size} B x $iters, RDMA MTU $rmtu"

	# The previous DPDK process is gone: eth1 and rxe1 must be down.
	state=$(gx "sh /share/pp-guest.sh state" 2>&1) || true
	echo "    before: $state"
	case $state in
	"rxe1 DOWN, eth1 carrier 0,"*) ;;
	*) why+=("rxe1/eth1 not down before the run: $state") ;;
	esac

	cap_id=$(gxb "sh /share/pp-guest.sh capture $name $((mtu + 64))") ||
		cap_id=none
	st=1
	for ((i = 0; i < 100; i++)); do
		if grep -q 'listening on eth1' "$D/share/jobs/$cap_id.out" 2>/dev/null; then
			st=0
			break
		fi
		sleep 0.1
	done
	[ "$st" = 0 ] || why+=("tcpdump did not start")

	if [ "$role" = guest-client ]; then
		ndk_start "$L.ndk.log" "${opts[@]}"
		if host_listening; then
			gx -t $((CASE_T + 60)) "sh /share/pp-guest.sh client $CASE_T ${opts[*]} $HOST_ADDR" \
				>"$L.guest.log" 2>&1 || grc=$?
		else
			why+=("ndk-pingpong is not listening on TCP 18515")
			grc=99
			kill "$ndk_pid" 2>/dev/null || true
		fi
		ndk_wait || nrc=$?
	else
		gid=$(gxb "sh /share/pp-guest.sh server $CASE_T ${opts[*]}") || gid=none
		if guest_listening; then
			ndk_start "$L.ndk.log" "${opts[@]}" "${GUEST_IP%/*}"
			ndk_wait || nrc=$?
		else
			why+=("ibv_rc_pingpong is not listening in the guest")
			nrc=99
		fi
		gxw $((CASE_T + 60)) "$gid" >"$L.guest.log" 2>&1 || grc=$?
	fi

	# Stop the capture once both sides are gone, fetch it.
	gx -t 120 "sh /share/pp-guest.sh capture-stop $name" >/dev/null 2>&1 ||
		why+=("capture-stop failed")
	tcpd=$(gxw 30 "$cap_id" 2>&1) || true
	mkdir -p "$W/pcap"
	pcap=$W/pcap/$name.pcap
	mv -f "$D/share/pcap/$name.pcap" "$pcap" 2>/dev/null ||
		why+=("no capture file")

	# Verdicts: both sides
	[ "$nrc" = 0 ] || why+=("ndk-pingpong exit status $nrc")
	[ "$grc" = 0 ] || why+=("ibv_rc_pingpong exit status $grc")
	[ "$(result_lines "$L.ndk.log" | wc -l)" = 2 ] ||
		why+=("ndk-pingpong printed no result lines")
	[ "$(result_lines "$L.guest.log" | wc -l)" = 2 ] ||
		why+=("ibv_rc_pingpong printed no result lines")
	! grep -q 'invalid data' "$L.guest.log" ||
		why+=("ibv_rc_pingpong --chk: $(grep -c 'invalid data' "$L.guest.log") invalid pages")
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
		why+=("the QPN/PSN exchange does not match")
	fi
	{ grep -h '^link: ' "$L.guest.log" || true; } | sed 's/^/    guest /'
	result_lines "$L.guest.log" | sed 's/^/    ibv_rc_pingpong: /'
	result_lines "$L.ndk.log" | sed 's/^/    ndk-pingpong:    /'
	if [ -n "${why[*]}" ]; then
		echo "    --- ndk-pingpong ($L.ndk.log, EAL/vhost lines left out):"
		{ grep -Ev '^(EAL|VHOST_CONFIG|TELEMETRY):' "$L.ndk.log" || true; } |
			tail -n 25 | sed 's/^/    /'
		echo "    --- ibv_rc_pingpong ($L.guest.log):"
		tail -n 15 "$L.guest.log" | sed 's/^/    /'
	fi

	# The capture: tcpdump's counters, tshark, the ICRC of every frame.
	local capt recv drop
	capt=$(sed -n 's/^\([0-9]*\) packets captured$/\1/p' <<<"$tcpd")
	recv=$(sed -n 's/^\([0-9]*\) packets received by filter$/\1/p' <<<"$tcpd")
	drop=$(sed -n 's/^\([0-9]*\) packets dropped by kernel$/\1/p' <<<"$tcpd")
	echo "    tcpdump: ${capt:-?} captured, ${recv:-?} received by filter," \
		"${drop:-?} dropped by kernel"
	if [ -z "$capt" ] || [ "$capt" != "$recv" ] || [ "$drop" != 0 ]; then
		why+=("tcpdump lost frames")
	fi
	if [ -f "$pcap" ]; then
		local n_ib per_msg
		tshark -r "$pcap" --disable-heuristic rpcrdma_infiniband \
			-T fields -e frame.number -e eth.src -e ip.src -e ip.dst \
			-e infiniband.bth.opcode -e infiniband.bth.destqp \
			-e infiniband.bth.psn -e _ws.col.Info \
			>"$W/pcap/$name.tsv" 2>"$W/pcap/$name.tshark.err" ||
			why+=("tshark could not decode $pcap")
		n_ib=$(awk -F'\t' '$5 != ""' "$W/pcap/$name.tsv" | wc -l)
		malformed=$(tshark -r "$pcap" --disable-heuristic rpcrdma_infiniband \
			-Y _ws.malformed 2>/dev/null | wc -l) || malformed=error
		echo "    tshark: $(wc -l <"$W/pcap/$name.tsv") frames," \
			"$n_ib InfiniBand (RoCEv2), $malformed malformed"
		[ "$malformed" = 0 ] || why+=("tshark: $malformed malformed frames")
		per_msg=$(((size + rmtu - 1) / rmtu))
		out=$("$PYTHON" "$HERE/icrc_check.py" "$pcap" \
			--ndk-ip "$NDK_IP" --guest-ip "${GUEST_IP1%/*}" \
			--ndk-mac "$NDK_MAC" --size "$size" --mtu "$rmtu" \
			--iters "$iters" ${nq:+--ndk-qpn "$nq"} ${gq:+--guest-qpn "$gq"} \
			${np:+--ndk-psn "$np"} ${gp:+--guest-psn "$gp"} \
			--min-roce $((2 * iters * per_msg + 2)) 2>&1) ||
			why+=("icrc_check: the capture does not verify")
		sed 's/^/    /' <<<"$out"
		local roce_py
		roce_py=$(sed -n 's/.* frames, \([0-9]*\) RoCEv2:.*/\1/p' <<<"$out")
		[ "$roce_py" = "$n_ib" ] ||
			why+=("tshark counts $n_ib RoCEv2 frames, icrc_check ${roce_py:-?}")
	fi

	local sum rx
	sum=$(sed -n 's/.* \([0-9]*\) RoCEv2: ICRC \([0-9]*\) ok, \([0-9]*\) bad;.*/\1 frames, ICRC \2 ok \3 bad/p' <<<"$out")
	rx=$(sed -n 's/.*(\([0-9]*\) distinct PSNs, expected [0-9]*; \([0-9]*\) retransmitted).*/\2/p' <<<"$out" | paste -sd/)
	summary+=("$([ -z "${why[*]}" ] && echo PASS || echo FAIL) $name: ${iters}x${size} B; ndk $(result_lines "$L.ndk.log" | sed -n 's/.* seconds = \(.*\)/\1/p' | paste -sd, | sed 's/,/, /'); ${sum:-no capture}, ${malformed:-?} malformed, retx ${rx:-?}")
	if [ -z "${why[*]}" ]; then
		ok "$name ($(secs_since "$t0") s)"
	else
		ko "$name ($(secs_since "$t0") s)" "$(
			IFS=';'
			echo "${why[*]}"
		)"
	fi
}

# --- one MTU: boot, every case, stop ---------------------------------------
pingpong_mtu() {
	local mtu=$1 rmtu t0 boot qpid out role c size iters arp
	case $mtu in
	1500) rmtu=1024 ;;
	4200) rmtu=4096 ;;
	*) rmtu=$((mtu >= 4200 ? 4096 : mtu >= 2200 ? 2048 : 1024)) ;;
	esac
	echo "interop: MTU $mtu (RDMA MTU $rmtu)"
	t0=$(now_ms)
	if ! start_testpmd "$W/testpmd-$mtu.log"; then
		ko "MTU $mtu: testpmd, the boot-time vhost-user server"
		return
	fi
	if ! PATH=$W/bin:$PATH MTU=$mtu VHOST_SOCK=$SOCK IP1=$GUEST_IP1 \
		"$GUEST/run-guest.sh" "$GUEST_NAME" "$GUEST_IP" >"$W/boot-$mtu.log" 2>&1; then
		sed 's/^/    /' "$W/boot-$mtu.log"
		ko "MTU $mtu: guest boot"
		stop_testpmd
		return
	fi
	boot=$(sed -n 's/^BOOT_SECONDS=//p' "$D/guest.env")
	sed 's/^/    /' "$W/boot-$mtu.log"
	qpid=$(cat "$D/qemu.pid")
	write_guest_helper
	# The boot server leaves; QEMU must notice, the guest lose its carrier.
	stop_testpmd
	out=
	for ((i = 0; i < 50; i++)); do
		out=$(gx "sh /share/pp-guest.sh state" 2>&1) || true
		case $out in "rxe1 DOWN, eth1 carrier 0,"*) break ;; esac
		sleep 0.2
	done
	if tr '\0' ' ' <"/proc/$qpid/cmdline" | grep -q 'socket,id=vh0,[^ ]*reconnect=1' &&
		[[ $out == "rxe1 DOWN, eth1 carrier 0,"* ]]; then
		ok "MTU $mtu: guest up in $boot s, vhost-user chardev reconnect=1; testpmd gone: $out"
	else
		ko "MTU $mtu: guest with a reconnecting vhost-user NIC" \
			"$(tr '\0' ' ' <"/proc/$qpid/cmdline" | grep -o 'socket,id=vh0[^ ]*'); $out"
		"$GUEST/stop-guest.sh" "$GUEST_NAME"
		return
	fi

	for role in $ROLES; do
		if [ "$role" = guest-server ]; then
			arp=$(gx "sh /share/pp-guest.sh arp-static $NDK_IP $NDK_MAC" 2>&1) || true
		else
			arp=$(gx "sh /share/pp-guest.sh arp-dynamic $NDK_IP" 2>&1) || true
		fi
		echo "interop: MTU $mtu, $role cases; guest eth1 neighbours: ${arp:-none}"
		for c in $CASES; do
			size=${c%%:*}
			iters=${c#*:}
			run_case "$mtu" "$rmtu" "$role" "$size" "$iters"
		done
	done

	out=$(gx "sh /share/pp-guest.sh state; rdma link show rxe1/1; cd /sys/class/net/eth1/statistics && for f in rx_packets tx_packets rx_dropped tx_dropped rx_errors tx_errors; do printf '%s %s  ' \$f \$(cat \$f); done; echo" 2>&1) || true
	sed 's/^/    guest at the end: /' <<<"$out"
	cp "$D/console.log" "$W/console-$mtu.log" 2>/dev/null || true
	cp "$D/qemu.log" "$W/qemu-$mtu.log" 2>/dev/null || true
	"$GUEST/stop-guest.sh" "$GUEST_NAME"
	echo "interop: MTU $mtu done in $(secs_since "$t0") s (boot $boot s)"
}

# --- main ------------------------------------------------------------------
mkdir -p "$W/logs"
stale_cleanup
rm -rf "$W/pcap" "$W"/logs/*
if ! command -v "$TESTPMD" >/dev/null; then
	ko "dpdk-testpmd" "not found (apt-get install dpdk-dev)"
elif [ ! -x "$NDK_PINGPONG" ]; then
	ko "ndk-pingpong" "no executable $NDK_PINGPONG (build first)"
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
	for mtu in $MTUS; do
		pingpong_mtu "$mtu"
	done
fi
