#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-perf.sh - the `perf_rxe` interop test (suite interop_perf): stock
# perftest 4.5 (ib_write_bw, ib_read_bw, ib_send_bw, ib_read_lat,
# ib_send_lat) on Linux Soft-RoCE (rxe1 in the harness's QEMU guest) against
# ndk-perf on the host, whose adapter (10.77.1.1) is the guest's eth1
# (vhost-user), in both roles, at guest MTU 1500 (RDMA MTU 1024).
#
# The machinery is run-pingpong.sh's, copied: one guest booted through a
# qemu-system-x86_64 wrapper that makes the vhost-user chardev reconnect,
# dpdk-testpmd as the boot-time server, then one fresh ndk-perf process per
# case as the vhost-user server on the same socket; guest-server cases use a
# permanent ARP entry for our adapter (ndk-perf connects before its port is
# up, as ndk-pingpong does). Unlike ibv_rc_pingpong, perftest's server exits
# at once while rxe1 is DOWN, so in guest-server cases ndk-perf starts first
# (its client retries TCP for 10 s) and the guest's server once rxe1 is
# ACTIVE. tcpdump in the guest captures eth1 per case;
# tshark decodes it (no malformed frame) and icrc_check.py verifies every
# RoCEv2 ICRC and header (no message-structure checks: those are
# ibv_rc_pingpong's) and a minimum frame count.
#
# A case passes when both sides exit 0 and print a perftest result row
# ("SIZE ITERS ..."; not the server of read_lat, passive in perftest 4.5,
# which prints none: there its address lines) and the capture verifies. Ends with
# "interop_perf: N passed, N failed, 0 skipped".
#
# env: NDK_INTEROP_WORK (this test uses its perf/ subdirectory)
#      NDK_PERF (default build/app/ndk-perf/ndk-perf)  TESTPMD=dpdk-testpmd
#      PF_MTUS="1500"  PF_ROLES="guest-client guest-server"
#      PF_TESTS="write_bw read_bw send_bw read_lat send_lat"
#      PF_CASES="2:1000 65536:100 1048576:10:bw" (SIZE:ITERS; a third field limits it to
#      bw or lat tests, e.g. 1048576:10:bw)  PF_CASE_TIMEOUT=60
#      PF_LCORES=0-1  PF_DPDK_MEM  PF_NS=ndk-perf  PYTHON=python3
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
GUEST=$HERE/guest
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=guest/common.sh
. "$GUEST/common.sh"

export NDK_INTEROP_IMAGE
export NDK_INTEROP_WORK=$NDK_INTEROP_WORK/perf
export NS=${PF_NS:-ndk-perf}
export HOSTIP=10.77.0.1/24
HOST_ADDR=${HOSTIP%/*}
GUEST_NAME=perf
GUEST_IP=10.77.0.11/24
GUEST_IP1=10.77.1.11/24
NDK_IP=10.77.1.1
NDK_MAC=${PF_NDK_MAC:-56:48:4f:53:54:00}
MTUS=${PF_MTUS:-1500}
ROLES=${PF_ROLES:-guest-client guest-server}
TESTS=${PF_TESTS:-write_bw read_bw send_bw read_lat send_lat}
CASES=${PF_CASES:-2:1000 65536:100 1048576:10:bw}
LCORES=${PF_LCORES:-0-1}
CASE_T=${PF_CASE_TIMEOUT:-60}
NDK_PERF=${NDK_PERF:-$NDK_INTEROP_ROOT/build/app/ndk-perf/ndk-perf}
TESTPMD=${TESTPMD:-dpdk-testpmd}
PYTHON=${PYTHON:-python3}
W=$NDK_INTEROP_WORK
SOCK=$W/vhost.sock
D=$(guest_dir "$GUEST_NAME")
PREFIX=ndk-pf-$$

pass=0
fail=0
summary=()
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

gx() {
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
	if [ -n "${PF_DPDK_MEM:-}" ]; then
		echo "$PF_DPDK_MEM --file-prefix=$1"
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

# --- ndk-perf, one process per case -----------------------------------
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
		"$NDK_PERF" -l "$LCORES" --no-pci $(dpdk_mem "$ndk_prefix") \
		--vdev "net_vhost0,iface=$SOCK,queues=1" -- \
		"$1" --ip "$NDK_IP" "${@:2}" >"$log" 2>&1 &
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

# ndk_pid is `timeout`, which passes SIGTERM on to ndk-perf.
ndk_kill() {
	[ -n "$ndk_pid" ] || return 0
	kill "$ndk_pid" 2>/dev/null || true
	ndk_wait || true
}

# The QEMU wrapper: the vhost-user chardev becomes a reconnecting client.
write_qemu_wrapper() {
	local real
	real=$(command -v qemu-system-x86_64) || return 1
	mkdir -p "$W/bin"
	cat >"$W/bin/qemu-system-x86_64" <<EOF
#!/bin/bash
# Written by run-perf.sh: run-guest.sh's QEMU with ,reconnect=1 on the
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
# ndk-perf (ours only: by pid file and our socket on the command line).
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
	for d in /var/run/dpdk/ndk-pf-*; do
		[ -d "$d" ] || continue
		p=${d#/var/run/dpdk/ndk-pf-}
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

# --- guest side -----------------------------------------------------------
write_guest_helper() {
	cat >"$D/share/pf-guest.sh" <<'EOF'
#!/bin/sh
# pf-guest.sh CMD ARGS - the guest's side of run-perf.sh
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
client) # client TIMEOUT TEST ARGS: wait for the link, run ib_TEST
	t=$1
	x=$2
	shift 2
	waitactive 30 || exit 3
	timeout "$t" ib_$x -d rxe1 -x 1 "$@" ;;
server) # server TIMEOUT TEST ARGS: once rxe1 is ACTIVE, the ib_TEST server
	# (perftest checks the port at start and exits while it is DOWN)
	t=$1
	x=$2
	shift 2
	echo "before: $(state)"
	waitactive 30 || exit 3
	timeout "$t" ib_$x -d rxe1 -x 1 "$@" ;;
*) echo "pf-guest.sh: $cmd?"; exit 2 ;;
esac
EOF
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
		echo "interop_perf: cases (guest row / ndk-perf row; frames: RoCEv2 in the capture):"
		printf '  %s\n' "${summary[@]}"
	fi
	echo "interop_perf: total $(secs_since "$t_start") s"
	echo "interop_perf: $pass passed, $fail failed, 0 skipped"
	[ "$fail" = 0 ] || exit 1
}
trap finish EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# result_row LOG SIZE ITERS: perftest's result row ("SIZE ITERS numbers")
result_row() {
	grep -E "^ *$2 +$3 +[0-9]" "$1" 2>/dev/null | head -n 1 | tr -s ' \t' ' ' | sed 's/^ //' || true
}

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

# run_case MTU RDMA_MTU ROLE TEST SIZE ITERS
run_case() {
	local mtu=$1 rmtu=$2 role=$3 test=$4 size=$5 iters=$6
	local name="mtu$mtu-$role-$test-$size" L t0 why=() cap_id gid
	local nrc=0 grc=0 state st tcpd pcap out='' malformed='' i grow nrow
	local opts=(-s "$size" -n "$iters")
	L=$W/logs/$name
	t0=$(now_ms)
	echo "interop_perf: case $name: ib_$test on rxe1 as the ${role#guest-}," \
		"ndk-perf as the $([ "$role" = guest-client ] && echo server || echo client)," \
		"${size} B x $iters, RDMA MTU $rmtu"

	state=$(gx "sh /share/pf-guest.sh state" 2>&1) || true
	echo "    before: $state"
	case $state in
	"rxe1 DOWN, eth1 carrier 0,"*) ;;
	*) why+=("rxe1/eth1 not down before the run: $state") ;;
	esac

	cap_id=$(gxb "sh /share/pf-guest.sh capture $name $((mtu + 64))") ||
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
		ndk_start "$L.ndk.log" "$test" "${opts[@]}" --stats
		if host_listening; then
			gx -t $((CASE_T + 60)) "sh /share/pf-guest.sh client $CASE_T $test ${opts[*]} $HOST_ADDR" \
				>"$L.guest.log" 2>&1 || grc=$?
		else
			why+=("ndk-perf is not listening on TCP 18515")
			grc=99
			kill "$ndk_pid" 2>/dev/null || true
		fi
		ndk_wait || nrc=$?
	else
		# perftest's server refuses to start while rxe1 is DOWN ("Port
		# number 1 state is Down"), i.e. before a DPDK process serves eth1:
		# start ndk-perf first (its client retries the TCP connection for
		# 10 s), the guest's server once rxe1 is ACTIVE.
		ndk_start "$L.ndk.log" "$test" "${opts[@]}" --stats "${GUEST_IP%/*}"
		gid=$(gxb "sh /share/pf-guest.sh server $CASE_T $test ${opts[*]}") || gid=none
		ndk_wait || nrc=$?
		gxw $((CASE_T + 60)) "$gid" >"$L.guest.log" 2>&1 || grc=$?
	fi

	gx -t 120 "sh /share/pf-guest.sh capture-stop $name" >/dev/null 2>&1 ||
		why+=("capture-stop failed")
	tcpd=$(gxw 30 "$cap_id" 2>&1) || true
	mkdir -p "$W/pcap"
	pcap=$W/pcap/$name.pcap
	mv -f "$D/share/pcap/$name.pcap" "$pcap" 2>/dev/null ||
		why+=("no capture file")

	[ "$nrc" = 0 ] || why+=("ndk-perf exit status $nrc")
	[ "$grc" = 0 ] || why+=("ib_$test exit status $grc")
	grow=$(result_row "$L.guest.log" "$size" "$iters")
	nrow=$(result_row "$L.ndk.log" "$size" "$iters")
	# perftest 4.5's read_lat server is passive and prints no result row
	# (stock ib_read_lat as the server does not either): from the server of
	# read_lat only its address lines are required.
	if [ "$test" = read_lat ] && [ "$role" = guest-server ] && [ -z "$grow" ]; then
		grep -q 'remote address:' "$L.guest.log" 2>/dev/null &&
			grow="(server: no row, as perftest)" ||
			why+=("ib_$test printed no remote address")
	fi
	if [ "$test" = read_lat ] && [ "$role" = guest-client ] && [ -z "$nrow" ]; then
		grep -q 'remote address:' "$L.ndk.log" 2>/dev/null &&
			nrow="(server: no row, as perftest)" ||
			why+=("ndk-perf printed no remote address")
	fi
	[ -n "$grow" ] || why+=("ib_$test printed no result row")
	[ -n "$nrow" ] || why+=("ndk-perf printed no result row")
	{ grep -h '^link: ' "$L.guest.log" 2>/dev/null || true; } | sed 's/^/    guest /'
	echo "    ib_$test: ${grow:-(no row)}"
	echo "    ndk-perf:  ${nrow:-(no row)}"
	if [ -n "${why[*]}" ]; then
		echo "    --- ndk-perf ($L.ndk.log, EAL/vhost lines left out):"
		{ grep -Ev '^(EAL|VHOST_CONFIG|TELEMETRY):' "$L.ndk.log" || true; } |
			tail -n 40 | sed 's/^/    /'
		echo "    --- ib_$test ($L.guest.log):"
		{ tail -n 25 "$L.guest.log" 2>/dev/null || true; } | sed 's/^/    /'
	fi

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
			"$n_ib InfiniBand (RoCEv2), $malformed malformed;" \
			"opcodes: $(awk -F'\t' '$5 != "" { print $5 }' "$W/pcap/$name.tsv" |
				sort | uniq -c | awk '{ printf "%s x%s ", $2, $1 }')"
		[ "$malformed" = 0 ] || why+=("tshark: $malformed malformed frames")
		# At least the data of one direction: N messages of ceil(S/M) packets.
		per_msg=$(((size + rmtu - 1) / rmtu))
		out=$("$PYTHON" "$HERE/icrc_check.py" "$pcap" \
			--min-roce $((iters * per_msg)) 2>&1) ||
			why+=("icrc_check: the capture does not verify")
		sed 's/^/    /' <<<"$out"
		local roce_py
		roce_py=$(sed -n 's/.* frames, \([0-9]*\) RoCEv2:.*/\1/p' <<<"$out")
		[ "$roce_py" = "$n_ib" ] ||
			why+=("tshark counts $n_ib RoCEv2 frames, icrc_check ${roce_py:-?}")
	fi

	local sum
	sum=$(sed -n 's/.* \([0-9]*\) RoCEv2: ICRC \([0-9]*\) ok, \([0-9]*\) bad.*/\1 frames, ICRC \2 ok \3 bad/p' <<<"$out" | head -n 1)
	summary+=("$([ -z "${why[*]}" ] && echo PASS || echo FAIL) $name: ${iters}x${size} B; guest [${grow:-none}] ndk [${nrow:-none}]; ${sum:-no capture}, ${malformed:-?} malformed")
	if [ -z "${why[*]}" ]; then
		ok "$name ($(secs_since "$t0") s)"
	else
		ko "$name ($(secs_since "$t0") s)" "$(
			IFS=';'
			echo "${why[*]}"
		)"
	fi
}

perf_mtu() {
	local mtu=$1 rmtu t0 boot qpid out role c size iters kind arp test
	case $mtu in
	1500) rmtu=1024 ;;
	4200) rmtu=4096 ;;
	*) rmtu=$((mtu >= 4200 ? 4096 : mtu >= 2200 ? 2048 : 1024)) ;;
	esac
	echo "interop_perf: MTU $mtu (RDMA MTU $rmtu)"
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
	stop_testpmd
	out=
	for ((i = 0; i < 50; i++)); do
		out=$(gx "sh /share/pf-guest.sh state" 2>&1) || true
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
			arp=$(gx "sh /share/pf-guest.sh arp-static $NDK_IP $NDK_MAC" 2>&1) || true
		else
			arp=$(gx "sh /share/pf-guest.sh arp-dynamic $NDK_IP" 2>&1) || true
		fi
		echo "interop_perf: MTU $mtu, $role cases; guest eth1 neighbours: ${arp:-none}"
		for test in $TESTS; do
			for c in $CASES; do
				IFS=: read -r size iters kind <<<"$c"
				case ${kind:-all} in
				all) ;;
				bw | lat) [ "${test#*_}" = "$kind" ] || continue ;;
				esac
				run_case "$mtu" "$rmtu" "$role" "$test" "$size" "$iters"
			done
		done
	done

	out=$(gx "sh /share/pf-guest.sh state; rdma link show rxe1/1; cd /sys/class/net/eth1/statistics && for f in rx_packets tx_packets rx_dropped tx_dropped rx_errors tx_errors; do printf '%s %s  ' \$f \$(cat \$f); done; echo" 2>&1) || true
	sed 's/^/    guest at the end: /' <<<"$out"
	cp "$D/console.log" "$W/console-$mtu.log" 2>/dev/null || true
	cp "$D/qemu.log" "$W/qemu-$mtu.log" 2>/dev/null || true
	"$GUEST/stop-guest.sh" "$GUEST_NAME"
	echo "interop_perf: MTU $mtu done in $(secs_since "$t0") s (boot $boot s)"
}

# --- main ------------------------------------------------------------------
mkdir -p "$W/logs"
stale_cleanup
rm -rf "$W/pcap" "$W"/logs/*
if ! command -v "$TESTPMD" >/dev/null; then
	ko "dpdk-testpmd" "not found (apt-get install dpdk-dev)"
elif [ ! -x "$NDK_PERF" ]; then
	ko "ndk-perf" "no executable $NDK_PERF (build first)"
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
	echo "interop_perf: $(tail -n 1 "$W/make-image.log"), $(secs_since "$t_start") s"
	for mtu in $MTUS; do
		perf_mtu "$mtu"
	done
fi
