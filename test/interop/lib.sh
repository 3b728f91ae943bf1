# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# shellcheck disable=SC2034  # the IOP_ variables are the runners' too
# lib.sh - the machinery the interop runners share (sourced, not run):
# results and the closing line, EAL memory flags, dpdk-testpmd as the
# boot-time vhost-user peer, the guest boot (optionally with QEMU as the
# vhost-user server, so that each case's process can connect), commands in
# the guest, one host DPDK application per case on the vhost-user socket,
# tcpdump in the guest and the checks of its capture (tshark, icrc_check.py),
# and the teardown on exit, failure or signal. README.md lists the
# functions; each is described where it is defined.
#
# A runner:
#   . "$(dirname "$0")/lib.sh"
#   IOP_RECONNECT=1           # optional: one DPDK process per case
#   iop_init pingpong PP pp ndk-pp
#   iop_prepare --capture "$NDK_PINGPONG" || exit 1
#   for mtu in $IOP_MTUS; do
#       iop_boot_guest "$mtu" && iop_release_boot_server "$mtu" || continue
#       iop_case_begin NAME; ...; iop_case_end "summary"
#       iop_guest_end "$mtu"
#   done
# iop_init installs the traps: teardown and the closing lines
# "$IOP_LABEL: N passed, N failed, N skipped" happen on exit, whatever the
# cause; the exit status is 1 when anything failed.
#
# Settings a runner may give before iop_init: IOP_LABEL (interop: the
# closing lines' prefix), IOP_LCORES (0-1: the EAL lcores of the host
# application of a case), IOP_CASE_TIMEOUT (default 120 s, each side of a
# case), IOP_RECONNECT (0), IOP_SUMMARY_HEAD (the title of the per-case
# lines). iop_init reads the runner's environment (ENV is its prefix, e.g.
# PP): ENV_NS, ENV_MTUS (1500 4200), ENV_LCORES, ENV_DPDK_MEM (EAL memory
# flags; default --in-memory with >= 128 free 2 MB hugepages, else
# --no-huge -m 512), ENV_CASE_TIMEOUT, ENV_NDK_MAC, ENV_TXQLEN (frames the
# guest's eth1 queues: its root qdisc a pfifo of that many, and netem's
# limit; default the kernel's 1,000); and TESTPMD, PYTHON.

# The caller's NS, if any, before common.sh gives it its default: the base
# of every runner's namespace (iop_init).
IOP_NS_BASE=${NS:-ndk}
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=guest/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/guest/common.sh"

IOP_HERE=$NDK_INTEROP_SRC
# Loss, reordering and the frames they cost (iop_netem...).
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=lib-netem.sh
. "$IOP_HERE/lib-netem.sh"
IOP_GUESTBIN=$IOP_HERE/guest
IOP_LABEL=interop
IOP_LCORES=0-1
IOP_CASE_TIMEOUT=120
IOP_RECONNECT=0
IOP_SUMMARY_HEAD=cases:
IOP_CAP_FIELDS= # more tshark fields for iop_capture_check's .tsv (any time)
TESTPMD=${TESTPMD:-dpdk-testpmd}
PYTHON=${PYTHON:-python3}

# The addresses every runner uses (README.md, "The guest").
IOP_HOST_ADDR=10.77.0.1      # the bridge in the namespace: TCP exchanges
IOP_GUEST_IP=10.77.0.11/24   # guest eth0 (rxe0)
IOP_GUEST_IP1=10.77.1.11/24  # guest eth1 (rxe1), on the vhost-user port
IOP_NDK_IP=10.77.1.1         # the host DPDK application's adapter
# RoCEv2 over IPv6 (the *_FAMILY=6 runs): the adapter's IPv6 address (its
# GID index 1 in our tools: ::ffff:<ip> is 0) and eth1's, which rxe1 lists
# as GID index 2 (0: link-local, 1: IPv4-mapped).
IOP_NDK_IP6=fd77:1::1
IOP_GUEST_IP6=fd77:1::11
IOP_GUEST_GID6=2
# The vhost PMD's default MAC for port 0 (rte_eth_vhost.c): the same in
# every process, which a static ARP entry in the guest can rely on.
IOP_NDK_MAC=56:48:4f:53:54:00

# State
IOP_PASS=0
IOP_FAIL=0
IOP_SKIP=0
IOP_SUMMARY=() # one line per case, printed at the end
IOP_WHY=()     # the current case's failure reasons
IOP_CASE=
IOP_CASE_T0=
IOP_TP_PID=
IOP_TP_FD=
IOP_APP_PID=
IOP_APP_PREFIX=
IOP_APP_N=0
IOP_NETEM_NAME= # the netem profile in effect (iop_netem_profiles)
IOP_NETEM_SPEC= # its netem arguments
IOP_T_START=$(now_ms)

# --- set-up and results ------------------------------------------------------

# iop_init SUBDIR ENV GUEST_NAME PREFIX: the runner's work dir
# ($NDK_INTEROP_WORK/SUBDIR, exported as NDK_INTEROP_WORK for the guest
# scripts; ENV_SUBDIR replaces SUBDIR, and a 6 follows it when ENV_FAMILY
# is 6: each test of the suite keeps its logs and captures apart), its
# settings from the environment variables ENV_* (above), its namespace
# (ENV_NS; default NS-SUBDIR, with NS the caller's or ndk, SUBDIR as the
# work dir's), guest and DPDK file prefix base
# (PREFIX-<pid>-...: unique per run). Sets IOP_WORK, IOP_SOCK (the
# vhost-user socket), IOP_GUEST_NAME, IOP_GDIR (the guest's run dir),
# IOP_MTUS, IOP_LCORES, IOP_DPDK_MEM; removes what a previous run killed
# hard left behind and installs the traps.
iop_init() {
	local env=$2 v sub
	v=${env}_SUBDIR
	sub=${!v:-$1}
	v=${env}_FAMILY
	[ "${!v:-4}" != 6 ] || sub=${sub}6
	v=${env}_NS
	export NS=${!v:-$IOP_NS_BASE-$sub}
	v=${env}_MTUS
	IOP_MTUS=${!v:-1500 4200}
	v=${env}_LCORES
	IOP_LCORES=${!v:-$IOP_LCORES}
	v=${env}_DPDK_MEM
	IOP_DPDK_MEM=${!v:-}
	v=${env}_CASE_TIMEOUT
	IOP_CASE_TIMEOUT=${!v:-$IOP_CASE_TIMEOUT}
	v=${env}_NDK_MAC
	IOP_NDK_MAC=${!v:-$IOP_NDK_MAC}
	v=${env}_TXQLEN
	IOP_TXQLEN=${!v:-}
	export NDK_INTEROP_IMAGE
	export NDK_INTEROP_WORK=$NDK_INTEROP_WORK/$sub
	export HOSTIP=$IOP_HOST_ADDR/24
	IOP_GUEST_NAME=$3
	IOP_PREFIX_BASE=$4
	IOP_PREFIX=$4-$$
	IOP_WORK=$NDK_INTEROP_WORK
	IOP_SOCK=$IOP_WORK/vhost.sock
	# IOP_RECONNECT=1: QEMU serves the socket (run-guest.sh VHOST_SERVER=1)
	# for the whole boot, and each DPDK process connects to it as a client
	# the moment its port starts: no wait for a reconnect timer (QEMU's
	# chardev retries once a second).
	IOP_VDEV=net_vhost0,iface=$IOP_SOCK,queues=1
	[ "$IOP_RECONNECT" != 1 ] || IOP_VDEV=$IOP_VDEV,client=1
	IOP_GDIR=$(guest_dir "$IOP_GUEST_NAME")
	mkdir -p "$IOP_WORK/logs"
	trap iop_finish EXIT
	trap 'exit 143' TERM
	trap 'exit 130' INT
	iop_stale_cleanup
	rm -rf "$IOP_WORK/pcap" "$IOP_WORK"/logs/*
}

# iop_pass MSG / iop_fail MSG [WHY] / iop_skip MSG: count and print a result
iop_pass() {
	IOP_PASS=$((IOP_PASS + 1))
	echo "  PASS $1"
}

iop_fail() {
	IOP_FAIL=$((IOP_FAIL + 1))
	echo "  FAIL $1${2:+: $2}"
}

iop_skip() {
	IOP_SKIP=$((IOP_SKIP + 1))
	echo "  SKIP $1"
}

# iop_check NAME CMD...: one check, passed when CMD succeeds
iop_check() {
	local name=$1
	shift
	if "$@"; then iop_pass "$name"; else iop_fail "$name"; fi
}

# iop_step NAME CMD...: CMD, a step that reports through iop_why (e.g.
# iop_capture_stop), as a check of its own: passed when CMD gave no reason,
# else failed with the reasons it gave, which stay the current case's too.
# CMD's exit status is not looked at.
iop_step() {
	local name=$1 n=${#IOP_WHY[@]}
	shift
	"$@" || true
	if [ ${#IOP_WHY[@]} = "$n" ]; then
		iop_pass "$name"
	else
		iop_fail "$name" "$(
			IFS=';'
			echo "${IOP_WHY[*]:n}"
		)"
	fi
}

# iop_case_begin NAME: start a case (its name, clock, no reasons yet)
iop_case_begin() {
	IOP_CASE=$1
	IOP_CASE_T0=$(now_ms)
	IOP_WHY=()
}

# iop_why REASON: the current case fails, for REASON
iop_why() {
	IOP_WHY+=("$1")
}

# iop_case_end SUMMARY: pass or fail the current case (failed when it has
# reasons, which are printed) and keep "PASS|FAIL NAME: SUMMARY" for the end
iop_case_end() {
	local t verdict=PASS
	t=$(secs_since "$IOP_CASE_T0")
	[ ${#IOP_WHY[@]} = 0 ] || verdict=FAIL
	IOP_SUMMARY+=("$verdict $IOP_CASE: $1")
	if [ "$verdict" = PASS ]; then
		iop_pass "$IOP_CASE ($t s)"
	else
		iop_fail "$IOP_CASE ($t s)" "$(
			IFS=';'
			echo "${IOP_WHY[*]}"
		)"
	fi
}

# iop_rdma_mtu MTU: rxe's path MTU for a guest MTU (1500 -> 1024, 4200 -> 4096)
iop_rdma_mtu() {
	local m=$1
	echo $((m >= 4200 ? 4096 : m >= 2200 ? 2048 : 1024))
}

# iop_tail TITLE FILE LINES: the end of a log, EAL/vhost lines left out
iop_tail() {
	echo "    --- $1 ($2):"
	{ grep -Ev '^(EAL|VHOST_CONFIG|TELEMETRY):' "$2" 2>/dev/null || true; } |
		tail -n "$3" | sed 's/^/    /'
}

# --- DPDK --------------------------------------------------------------------

# iop_dpdk_mem PREFIX: EAL memory flags, always with a file prefix of ours
# (even --in-memory creates /var/run/dpdk/<prefix>), removed after the
# process by iop_rm_prefix
iop_dpdk_mem() {
	local free
	if [ -n "${IOP_DPDK_MEM:-}" ]; then
		echo "$IOP_DPDK_MEM --file-prefix=$1"
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

# iop_rm_prefix PREFIX: the DPDK runtime dirs of a process that has exited
iop_rm_prefix() {
	[ -z "$1" ] || rm -rf "/var/run/dpdk/$1" "${XDG_RUNTIME_DIR:-/tmp}/dpdk/$1"
}

# iop_testpmd_start LOG [TESTPMD_ARGS...]: interactive dpdk-testpmd on
# $IOP_SOCK ($IOP_VDEV: its server, or with IOP_RECONNECT=1 a client of the
# guest's QEMU that connects when QEMU is up) on lcores 0-1 (it wants a
# forwarding lcore), its commands read from a FIFO we hold open
# (iop_tp_cmd), its stdout line-buffered. Ready when port 0 has started (it
# prints its MAC); the link stays down until the guest's NIC is connected.
iop_testpmd_start() {
	local log=$1 i
	shift
	iop_testpmd_stop
	rm -f "$IOP_WORK/testpmd.in"
	[ "$IOP_RECONNECT" = 1 ] || rm -f "$IOP_SOCK"
	: >"$log"
	mkfifo "$IOP_WORK/testpmd.in"
	exec {IOP_TP_FD}<>"$IOP_WORK/testpmd.in"
	# shellcheck disable=SC2046  # EAL memory flags are words
	stdbuf -oL "$TESTPMD" -l 0-1 --no-pci \
		$(iop_dpdk_mem "$IOP_PREFIX-tp") \
		--vdev "$IOP_VDEV" -- -i "$@" \
		<&"$IOP_TP_FD" >"$log" 2>&1 &
	IOP_TP_PID=$!
	echo "$IOP_TP_PID" >"$IOP_WORK/testpmd.pid"
	for ((i = 0; i < 300; i++)); do
		if { [ "$IOP_RECONNECT" = 1 ] || [ -S "$IOP_SOCK" ]; } &&
			grep -Eq '^Port 0: ([0-9A-F]{2}:){5}[0-9A-F]{2}$' "$log"; then
			return 0
		fi
		kill -0 "$IOP_TP_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "  testpmd did not start:"
	tail -n 15 "$log" | sed 's/^/    /'
	iop_testpmd_stop
	return 1
}

# iop_tp_cmd 'testpmd command'
iop_tp_cmd() {
	[ -n "$IOP_TP_PID" ] || return 1
	{ echo "$1" >&"$IOP_TP_FD"; } 2>/dev/null
}

# iop_testpmd_stop: stop forwarding (testpmd prints its counters), quit,
# make sure it is gone, remove its socket (not QEMU's) and runtime dir
iop_testpmd_stop() {
	local i
	[ -n "$IOP_TP_PID" ] || return 0
	iop_tp_cmd stop || true
	iop_tp_cmd quit || true
	for ((i = 0; i < 100; i++)); do
		kill -0 "$IOP_TP_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$IOP_TP_PID" 2>/dev/null || true
	wait "$IOP_TP_PID" 2>/dev/null || true
	exec {IOP_TP_FD}>&-
	IOP_TP_PID=
	rm -f "$IOP_WORK/testpmd.pid" "$IOP_WORK/testpmd.in"
	[ "$IOP_RECONNECT" = 1 ] || rm -f "$IOP_SOCK"
	iop_rm_prefix "$IOP_PREFIX-tp"
}

# iop_app_start LOG BIN ARGS...: a host DPDK application on the vhost-user
# socket for a case (the client of the guest's QEMU with IOP_RECONNECT=1):
# `BIN -l $IOP_LCORES --no-pci <memory flags> --vdev $IOP_VDEV -- ARGS` in
# the namespace, in the
# background, under `timeout --foreground $IOP_CASE_TIMEOUT` (which keeps it
# in our process group: a runner that kills the group reaches it). Its pid
# (timeout's) in IOP_APP_PID; iop_app_wait collects it.
iop_app_start() {
	local log=$1 bin=$2
	shift 2
	[ "$IOP_RECONNECT" = 1 ] || rm -f "$IOP_SOCK"
	IOP_APP_N=$((IOP_APP_N + 1))
	IOP_APP_PREFIX=$IOP_PREFIX-$IOP_APP_N
	# shellcheck disable=SC2046  # EAL memory flags are words
	ip netns exec "$NS" timeout --foreground -k 5 "$IOP_CASE_TIMEOUT" \
		"$bin" -l "$IOP_LCORES" --no-pci $(iop_dpdk_mem "$IOP_APP_PREFIX") \
		--vdev "$IOP_VDEV" -- "$@" >"$log" 2>&1 &
	IOP_APP_PID=$!
	echo "$IOP_APP_PID" >"$IOP_WORK/app.pid"
}

# iop_app_wait: wait for the application; its exit status (99: none running)
iop_app_wait() {
	local rc=0
	[ -n "$IOP_APP_PID" ] || return 99
	wait "$IOP_APP_PID" || rc=$?
	IOP_APP_PID=
	rm -f "$IOP_WORK/app.pid"
	iop_rm_prefix "$IOP_APP_PREFIX"
	IOP_APP_PREFIX=
	return "$rc"
}

# iop_app_kill: SIGTERM to the application (timeout passes it on), collect it
iop_app_kill() {
	[ -n "$IOP_APP_PID" ] || return 0
	kill "$IOP_APP_PID" 2>/dev/null || true
	iop_app_wait || true
}

# iop_app_stop_after LOG REGEX SECS: once the application's LOG has a line
# matching REGEX (grep -E), SIGINT to it SECS seconds later: a run of fixed
# length ends when what it waits for has happened (ndk-nvmf-perf ends as if
# its time were up). Returns when the application has exited by itself or
# been told to stop; collect it with iop_app_wait.
iop_app_stop_after() {
	local log=$1 re=$2 secs=$3
	[ -n "$IOP_APP_PID" ] || return 0
	while kill -0 "$IOP_APP_PID" 2>/dev/null; do
		if grep -Eq "$re" "$log" 2>/dev/null; then
			sleep "$secs"
			kill -INT "$IOP_APP_PID" 2>/dev/null || true
			return 0
		fi
		sleep 0.2
	done
}

# iop_host_listening [PORT]: until the application listens on TCP PORT
# (18515) in the namespace; fails if it exits first or after 30 s
iop_host_listening() {
	local i port=${1:-18515}
	for ((i = 0; i < 300; i++)); do
		[ -n "$(ip netns exec "$NS" ss -Hltn "sport = :$port" 2>/dev/null)" ] &&
			return 0
		[ -z "$IOP_APP_PID" ] || kill -0 "$IOP_APP_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# --- the guest ------------------------------------------------------------

# iop_gx [-t SECS] 'cmd': run a command in the guest (default limit 60 s);
# its output and exit status
iop_gx() {
	local t=60
	if [ "$1" = -t ]; then
		t=$2
		shift 2
	fi
	"$IOP_GUESTBIN/guest-exec.sh" -t "$t" "$IOP_GUEST_NAME" "$@"
}

# iop_gxb 'cmd': start a command in the guest in the background; prints
# its job id
iop_gxb() { "$IOP_GUESTBIN/guest-exec.sh" -b "$IOP_GUEST_NAME" "$@"; }

# iop_gxw SECS ID: wait up to SECS for background job ID; its output and
# exit status (124 on timeout)
iop_gxw() { "$IOP_GUESTBIN/guest-exec.sh" -t "$1" -w "$2" "$IOP_GUEST_NAME"; }

# iop_gh 'CMD ARGS': a command of the guest helper (iop_write_guest_helper)
iop_gh() {
	local t=60
	if [ "$1" = -t ]; then
		t=$2
		shift 2
	fi
	iop_gx -t "$t" "sh /share/iop-guest.sh $*"
}

# iop_write_guest_helper: the guest's half of the machinery, a busybox sh
# script at /share/iop-guest.sh (iop_boot_guest writes it). Its commands:
#   state                       rxe1 state, eth1 carrier, GID 1 (one line)
#   waitactive SECS             until rxe1 is ACTIVE; prints "link: ..."
#   arp-static IP MAC           a permanent eth1 neighbour
#   arp-dynamic IP              delete it (dynamic ARP again)
#   ip6 ADDR/LEN GIDIDX         eth1's IPv6 address, until rxe1's GID
#                               GIDIDX is set
#   nd-dynamic IP6              forget an IPv6 neighbour of eth1
#   netem ARGS                  sch_netem on eth1's egress (tc qdisc
#                               replace ... netem ARGS; "off": removed)
#   netem-in ARGS               the same on eth1's ingress (through ifb0)
#                               (netem's limit: 1000 or txqlen's N)
#   txqlen N                    eth1's root qdisc a pfifo of N frames
#   counters                    rxe1's hw_counters and eth1's qdisc
#                               counters, "name=value ..." on one line
#   capture NAME SNAPLEN        "before: <state>", then tcpdump on eth1
#                               into /tmp/NAME.pcap (runs until
#                               capture-stop: start it with iop_gxb)
#   capture-stop NAME           stop it once the file stops growing, copy
#                               it to /share/pcap/NAME.pcap
#   listening PORT              a TCP socket listens on PORT
#   run-active WAIT T CMD...    "before: <state>", wait up to WAIT s for
#                               rxe1 ACTIVE (exit 3 if not), then CMD
#                               under `timeout T`
#   run-watch WAIT T CMD...     "before: <state>", CMD under `timeout T`
#                               at once while the link is watched for up to
#                               WAIT s; "link: ..." when it ends
iop_write_guest_helper() {
	cat >"$IOP_GDIR/share/iop-guest.sh" <<'EOF'
#!/bin/sh
# iop-guest.sh CMD ARGS - the guest's side of test/interop/lib.sh
P=/sys/class/infiniband/rxe1/ports/1
up() { cut -d' ' -f1 /proc/uptime; }
# the frames eth1's qdiscs hold (txqlen; 1000, the kernel's default)
qlen() { cat /tmp/iop-qlen 2>/dev/null || echo 1000; }
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
waitactive) waitactive "$1" ;;
arp-static) arp -i eth1 -d "$1" 2>/dev/null; arp -i eth1 -s "$1" "$2" && ip neigh show dev eth1 ;;
arp-dynamic) arp -i eth1 -d "$1" 2>/dev/null; ip neigh show dev eth1; true ;;
ip6) # ip6 ADDR/LEN GIDIDX: eth1's IPv6 address (no duplicate address
	# detection: the DPDK side comes and goes), until rxe1 lists it
	echo 0 >/proc/sys/net/ipv6/conf/eth1/accept_dad
	ip -6 addr add "$1" dev eth1
	n=0
	while [ $n -lt 100 ]; do
		g=$(cat $P/gids/$2)
		[ "$g" != 0000:0000:0000:0000:0000:0000:0000:0000 ] && break
		n=$((n + 1))
		sleep 0.1
	done
	echo "rxe1 GID $2: $(cat $P/gids/$2)" ;;
nd-dynamic) ip -6 neigh del "$1" dev eth1 2>/dev/null; ip -6 neigh show dev eth1; true ;;
netem) # iproute2's tc by its path: busybox sh prefers its own applet
	modprobe sch_netem 2>/dev/null
	if [ "$1" != off ]; then
		/usr/bin/tc qdisc replace dev eth1 root netem limit "$(qlen)" "$@"
	elif [ -f /tmp/iop-qlen ]; then
		/usr/bin/tc qdisc replace dev eth1 root pfifo limit "$(qlen)"
	else /usr/bin/tc qdisc del dev eth1 root 2>/dev/null; true; fi &&
	/usr/bin/tc qdisc show dev eth1 ;;
netem-in) # netem-in ARGS: sch_netem on what eth1 receives: an ingress
	# qdisc redirects every frame to ifb0, whose root qdisc is netem ("off":
	# removed). tcpdump on eth1 still sees every frame (taps come first).
	for m in ifb sch_ingress cls_matchall act_mirred sch_netem; do
		modprobe $m 2>/dev/null
	done
	if [ "$1" = off ]; then
		/usr/bin/tc qdisc del dev eth1 ingress 2>/dev/null
		/usr/bin/tc qdisc del dev ifb0 root 2>/dev/null; true
	else
		ip link set ifb0 mtu "$(cat /sys/class/net/eth1/mtu)" up &&
		/usr/bin/tc qdisc replace dev ifb0 root netem \
			limit "$(qlen)" "$@" && {
		/usr/bin/tc qdisc show dev eth1 ingress | grep -q ingress ||
		{ /usr/bin/tc qdisc add dev eth1 handle ffff: ingress &&
		/usr/bin/tc filter add dev eth1 parent ffff: matchall action \
			mirred egress redirect dev ifb0; }; }
	fi && /usr/bin/tc qdisc show dev ifb0 && /usr/bin/tc qdisc show dev eth1 ingress ;;
txqlen) # txqlen N: eth1's root qdisc a pfifo of N frames (netem's limit
	# too, both ways)
	echo "$1" >/tmp/iop-qlen &&
	/usr/bin/tc qdisc replace dev eth1 root pfifo limit "$1" &&
	/usr/bin/tc qdisc show dev eth1 ;;
counters) # rxe1's hw_counters and eth1's root qdisc counters: name=value
	for f in $P/hw_counters/*; do
		printf '%s=%s ' "${f##*/}" "$(cat "$f")"
	done
	/usr/bin/tc -s qdisc show dev eth1 | sed -n 's/.*Sent \([0-9]*\) bytes \([0-9]*\) pkt (dropped \([0-9]*\), overlimits [0-9]* requeues \([0-9]*\)).*/qdisc_pkts=\2 qdisc_dropped=\3 qdisc_requeues=\4/p' | head -n 1 ;;
capture) # capture NAME SNAPLEN: "before: <state>", tcpdump on eth1 until
	# capture-stop
	echo "before: $(state)"
	echo $$ >"/tmp/$1.tcpdump.pid"
	rm -f "/tmp/$1.pcap"
	# --immediate-mode: TPACKET_V2, frame by frame; the default TPACKET_V3
	# ring lost frames here without counting them as drops, and its last
	# block on SIGINT. The ring (-B, KiB) is cut in slots of the snapshot
	# length (eth1 has GRO, so libpcap would size them for 64 KiB frames
	# and a 64 MiB ring would hold ~1000): a snapshot length just above
	# the largest frame gives ~15000-40000 slots. A frame longer than it
	# would show as truncated in icrc_check.py.
	# From /tmp when iop_boot_guest copied it there (not read over 9p
	# at every start).
	t=/share/tools/tcpdump
	[ -x /tmp/tools/tcpdump ] && t=/tmp/tools/tcpdump
	exec "$t" --immediate-mode -U -B 65536 -s "$2" -n \
		-i eth1 -w "/tmp/$1.pcap" ;;
capture-stop) # capture-stop NAME: stop tcpdump, hand the file to the host
	pid=$(cat "/tmp/$1.tcpdump.pid")
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
	rm -f "/tmp/$1.tcpdump.pid"
	mkdir -p /share/pcap
	cp "/tmp/$1.pcap" /share/pcap/ && rm -f "/tmp/$1.pcap" ;;
listening) # listening PORT
	grep -q ":$(printf %04X "$1") 00000000:0000 0A" /proc/net/tcp ;;
run-active) # run-active WAIT TIMEOUT CMD...
	w=$1
	t=$2
	shift 2
	echo "before: $(state)"
	waitactive "$w" || exit 3
	timeout "$t" "$@" ;;
run-watch) # run-watch WAIT TIMEOUT CMD...
	w=$1
	t=$2
	shift 2
	echo "before: $(state)"
	waitactive "$w" >/tmp/waitactive.out &
	wp=$!
	timeout "$t" "$@"
	rc=$?
	wait $wp
	cat /tmp/waitactive.out
	exit $rc ;;
*) echo "iop-guest.sh: $cmd?"; exit 2 ;;
esac
EOF
}

# iop_guest_listening [PORT]: until a guest process listens on TCP PORT
# (18515); fails after ~10 s
iop_guest_listening() {
	local i
	for ((i = 0; i < 100; i++)); do
		iop_gh "listening ${1:-18515}" && return 0
		sleep 0.1
	done
	return 1
}

# iop_prepare [--capture] [BIN...]: what every run needs before a boot:
# dpdk-testpmd, the executables BIN, with --capture tshark, $PYTHON and
# icrc_check.py's self-test, and the guest image (make-image.sh, cached).
# Fails (counted) on the first miss.
iop_prepare() {
	local capture=0 bin
	if [ "${1:-}" = --capture ]; then
		capture=1
		shift
	fi
	if ! command -v "$TESTPMD" >/dev/null; then
		iop_fail "dpdk-testpmd" "not found (apt-get install dpdk-dev)"
		return 1
	fi
	for bin in "$@"; do
		if [ ! -x "$bin" ]; then
			iop_fail "$(basename "$bin")" "no executable $bin (build first)"
			return 1
		fi
	done
	if [ "$capture" = 1 ]; then
		if ! command -v tshark >/dev/null || ! command -v "$PYTHON" >/dev/null; then
			iop_fail "tools" "tshark and $PYTHON are needed"
			return 1
		fi
		if ! "$PYTHON" "$IOP_HERE/icrc_check.py" --self-test >/dev/null; then
			iop_fail "icrc_check.py --self-test"
			return 1
		fi
	fi
	if ! "$IOP_GUESTBIN/make-image.sh" "$NDK_INTEROP_IMAGE" \
		>"$IOP_WORK/make-image.log" 2>&1; then
		tail -n 20 "$IOP_WORK/make-image.log" | sed 's/^/    /'
		iop_fail "guest image" "see $IOP_WORK/make-image.log"
		return 1
	fi
	echo "$IOP_LABEL: $(tail -n 1 "$IOP_WORK/make-image.log"), $(secs_since "$IOP_T_START") s"
}

# iop_boot_guest MTU [TESTPMD_ARGS...]: testpmd on the socket (with
# TESTPMD_ARGS), then guest $IOP_GUEST_NAME boots (eth0 $IOP_GUEST_IP, eth1
# $IOP_GUEST_IP1 on the socket; QEMU its server with IOP_RECONNECT=1, and
# testpmd connects when it is up) and gets the guest helper and a copy of
# /share/tools in its /tmp. Counts a pass or a failure;
# testpmd keeps running (iop_release_boot_server, iop_testpmd_stop). Sets
# IOP_BOOT (seconds) and IOP_MTU_T0.
iop_boot_guest() {
	local mtu=$1
	shift
	IOP_MTU_T0=$(now_ms)
	echo "$IOP_LABEL: MTU $mtu (RDMA MTU $(iop_rdma_mtu "$mtu"))"
	if ! iop_testpmd_start "$IOP_WORK/testpmd-$mtu.log" "$@"; then
		iop_fail "MTU $mtu: testpmd, the boot-time vhost-user peer"
		return 1
	fi
	if ! VHOST_SERVER=$IOP_RECONNECT MTU=$mtu VHOST_SOCK=$IOP_SOCK \
		IP1=$IOP_GUEST_IP1 \
		"$IOP_GUESTBIN/run-guest.sh" "$IOP_GUEST_NAME" "$IOP_GUEST_IP" \
		>"$IOP_WORK/boot-$mtu.log" 2>&1; then
		sed 's/^/    /' "$IOP_WORK/boot-$mtu.log"
		iop_fail "MTU $mtu: guest boot"
		iop_testpmd_stop
		return 1
	fi
	IOP_BOOT=$(sed -n 's/^BOOT_SECONDS=//p' "$IOP_GDIR/guest.env")
	sed 's/^/    /' "$IOP_WORK/boot-$mtu.log"
	iop_write_guest_helper
	# tcpdump and its libraries (~10 MB) into the guest's RAM, once.
	iop_gx "cp -a /share/tools /tmp/tools" >/dev/null 2>&1 || true
	[ -z "$IOP_TXQLEN" ] ||
		echo "$IOP_LABEL: eth1's queue: $(iop_gh "txqlen $IOP_TXQLEN" 2>&1)"
	iop_pass "MTU $mtu: guest up in $IOP_BOOT s"
}

# iop_release_boot_server MTU: testpmd leaves; QEMU must serve the
# vhost-user socket (server=on: the next DPDK process connects to it) and
# the guest lose eth1's carrier (rxe1 DOWN) until that process comes. Counts
# a pass or a failure (then stops the guest and fails).
iop_release_boot_server() {
	local mtu=$1 qpid out='' i
	qpid=$(cat "$IOP_GDIR/qemu.pid")
	iop_testpmd_stop
	for ((i = 0; i < 50; i++)); do
		out=$(iop_gh state 2>&1) || true
		case $out in "rxe1 DOWN, eth1 carrier 0,"*) break ;; esac
		sleep 0.2
	done
	if tr '\0' ' ' <"/proc/$qpid/cmdline" | grep -q 'socket,id=vh0,[^ ]*server=on' &&
		[ -S "$IOP_SOCK" ] && [[ $out == "rxe1 DOWN, eth1 carrier 0,"* ]]; then
		iop_pass "MTU $mtu: QEMU serves the vhost-user socket; testpmd gone: $out"
		return 0
	fi
	iop_fail "MTU $mtu: guest whose QEMU serves the vhost-user socket" \
		"$(tr '\0' ' ' <"/proc/$qpid/cmdline" | grep -o 'socket,id=vh0[^ ]*'); $out"
	"$IOP_GUESTBIN/stop-guest.sh" "$IOP_GUEST_NAME"
	return 1
}

# iop_expect_link_down [STATE]: prints "before: <state>" (STATE, e.g.
# IOP_CAP_BEFORE, or asked now); the current case fails unless rxe1 is DOWN
# and eth1 has no carrier (no DPDK process serves it)
iop_expect_link_down() {
	local state=${1:-}
	[ -n "$state" ] || state=$(iop_gh state 2>&1) || true
	echo "    before: $state"
	case $state in
	"rxe1 DOWN, eth1 carrier 0,"*) ;;
	*) iop_why "rxe1/eth1 not down before the run: $state" ;;
	esac
}

# iop_guest_end MTU: the guest's last state and eth1 counters, its console
# and QEMU logs kept as $IOP_WORK/{console,qemu}-MTU.log, the guest stopped
iop_guest_end() {
	local mtu=$1 out
	out=$(iop_gx "sh /share/iop-guest.sh state; rdma link show rxe1/1; cd /sys/class/net/eth1/statistics && for f in rx_packets tx_packets rx_dropped tx_dropped rx_errors tx_errors; do printf '%s %s  ' \$f \$(cat \$f); done; echo" 2>&1) || true
	sed 's/^/    guest at the end: /' <<<"$out"
	cp "$IOP_GDIR/console.log" "$IOP_WORK/console-$mtu.log" 2>/dev/null || true
	cp "$IOP_GDIR/qemu.log" "$IOP_WORK/qemu-$mtu.log" 2>/dev/null || true
	"$IOP_GUESTBIN/stop-guest.sh" "$IOP_GUEST_NAME"
	echo "$IOP_LABEL: MTU $mtu done in $(secs_since "$IOP_MTU_T0") s (boot ${IOP_BOOT:-?} s)"
}

# --- captures ------------------------------------------------------------------

# iop_capture_start NAME SNAPLEN: tcpdump on the guest's eth1 (a background
# job, IOP_CAP_ID), until iop_capture_stop NAME; the current case fails if
# it does not start within 10 s. SNAPLEN: the largest frame (MTU + 64).
# IOP_CAP_BEFORE: the guest's link state when it started (for
# iop_expect_link_down).
iop_capture_start() {
	local i out
	IOP_CAP_BEFORE=
	IOP_CAP_ID=$(iop_gxb "sh /share/iop-guest.sh capture $1 $2") || IOP_CAP_ID=none
	out=$IOP_GDIR/share/jobs/$IOP_CAP_ID.out
	# Up to 20 s: on a loaded host the TCG guest has taken more than 5 s
	# to start tcpdump.
	for ((i = 0; i < 400; i++)); do
		if grep -q 'listening on eth1' "$out" 2>/dev/null; then
			IOP_CAP_BEFORE=$(sed -n 's/^before: //p' "$out")
			return 0
		fi
		sleep 0.05
	done
	iop_why "tcpdump did not start"
	return 1
}

# iop_capture_stop NAME: stop the capture once nothing moves, fetch it to
# $IOP_WORK/pcap/NAME.pcap (IOP_PCAP) and print tcpdump's counters; the
# current case fails if the file is missing or tcpdump lost frames
iop_capture_stop() {
	local name=$1 tcpd capt recv drop
	iop_gh -t 120 "capture-stop $name" >/dev/null 2>&1 ||
		iop_why "capture-stop failed"
	tcpd=$(iop_gxw 30 "$IOP_CAP_ID" 2>&1) || true
	mkdir -p "$IOP_WORK/pcap"
	IOP_PCAP=$IOP_WORK/pcap/$name.pcap
	mv -f "$IOP_GDIR/share/pcap/$name.pcap" "$IOP_PCAP" 2>/dev/null ||
		iop_why "no capture file"
	capt=$(sed -n 's/^\([0-9]*\) packets captured$/\1/p' <<<"$tcpd")
	recv=$(sed -n 's/^\([0-9]*\) packets received by filter$/\1/p' <<<"$tcpd")
	drop=$(sed -n 's/^\([0-9]*\) packets dropped by kernel$/\1/p' <<<"$tcpd")
	echo "    tcpdump: ${capt:-?} captured, ${recv:-?} received by filter," \
		"${drop:-?} dropped by kernel"
	if [ -z "$capt" ] || [ "$capt" != "$recv" ] || [ "$drop" != 0 ]; then
		iop_why "tcpdump lost frames"
	fi
}

# iop_capture_check [ICRC_CHECK_ARGS...]: the capture IOP_PCAP decoded by
# tshark (fields in .tsv next to it: frame number, eth.src, ip.src, ip.dst,
# BTH opcode, dest QP, PSN, protocols, malformed, Info, then the fields
# named in IOP_CAP_FIELDS; no malformed frame allowed, see below)
# and verified by icrc_check.py with ICRC_CHECK_ARGS (its output indented);
# both must count the same RoCEv2 frames. Sets IOP_CAP_OUT (icrc_check's
# output), IOP_CAP_MALFORMED and IOP_CAP_SUM ("N frames, ICRC N ok N bad").
#
# Malformed: tshark's InfiniBand dissector guesses that a payload whose
# bytes 2-3 are zero is EtherType-framed (IPoIB style) and hands the rest to
# whatever protocol bytes 0-1 name; test data (perftest's is random) then
# decodes as, e.g., a malformed GOOSE packet. A malformation inside such a
# guess (protocol chain "...:infiniband:ethertype:..." or ending in
# ":infiniband:ethertype": a 2-byte payload, write_lat's counter, is too
# short for the guess) is counted apart, not failed, unless it is the IB
# layer's own ("Malformed Packet: IB");
# the frame's headers and ICRC are still icrc_check.py's to verify.
iop_capture_check() {
	local tsv=${IOP_PCAP%.pcap}.tsv n_ib roce_py guessed f extra=()
	IOP_CAP_OUT=
	IOP_CAP_MALFORMED='?'
	IOP_CAP_SUM="no capture"
	[ -f "$IOP_PCAP" ] || return 0
	for f in $IOP_CAP_FIELDS; do
		extra+=(-e "$f")
	done
	tshark -r "$IOP_PCAP" --disable-heuristic rpcrdma_infiniband \
		-T fields -e frame.number -e eth.src -e ip.src -e ip.dst \
		-e infiniband.bth.opcode -e infiniband.bth.destqp \
		-e infiniband.bth.psn -e frame.protocols -e _ws.malformed \
		-e _ws.col.Info "${extra[@]}" >"$tsv" 2>"${tsv%.tsv}.tshark.err" || {
		iop_why "tshark could not decode $IOP_PCAP"
		: >"$tsv"
	}
	n_ib=$(awk -F'\t' '$5 != ""' "$tsv" | wc -l)
	guessed=$(awk -F'\t' '$9 != "" && $8 ~ /:infiniband:ethertype(:|$)/' "$tsv" | wc -l)
	IOP_CAP_MALFORMED=$(awk -F'\t' '$9 != "" &&
		($8 !~ /:infiniband:ethertype(:|$)/ || $9 ~ /Malformed Packet: IB\]/)' \
		"$tsv" | wc -l)
	echo "    tshark: $(wc -l <"$tsv") frames," \
		"$n_ib InfiniBand (RoCEv2), $IOP_CAP_MALFORMED malformed" \
		"($guessed payloads malformed as tshark's EtherType guess: ignored);" \
		"opcodes: $(awk -F'\t' '$5 != "" { print $5 }' "$tsv" |
			sort -n | uniq -c | awk '{ printf "%s x%s ", $2, $1 }')"
	[ "$IOP_CAP_MALFORMED" = 0 ] ||
		iop_why "tshark: $IOP_CAP_MALFORMED malformed frames"
	IOP_CAP_OUT=$("$PYTHON" "$IOP_HERE/icrc_check.py" "$IOP_PCAP" "$@" 2>&1) ||
		iop_why "icrc_check: the capture does not verify"
	sed 's/^/    /' <<<"$IOP_CAP_OUT"
	roce_py=$(sed -n 's/.* frames, \([0-9]*\) RoCEv2:.*/\1/p' <<<"$IOP_CAP_OUT" |
		head -n 1)
	[ "$roce_py" = "$n_ib" ] ||
		iop_why "tshark counts $n_ib RoCEv2 frames, icrc_check ${roce_py:-?}"
	IOP_CAP_SUM=$(sed -n 's/.* \([0-9]*\) RoCEv2: ICRC \([0-9]*\) ok, \([0-9]*\) bad.*/\1 frames, ICRC \2 ok \3 bad/p' \
		<<<"$IOP_CAP_OUT" | head -n 1)
	IOP_CAP_SUM=${IOP_CAP_SUM:-no summary}
}

# --- teardown ----------------------------------------------------------------

# iop_stale_cleanup: what a previous run killed hard left behind (ours
# only): its guests, testpmd and application by pid file and our socket on
# their command line, the DPDK runtime dirs of dead runs of our prefix
iop_stale_cleanup() {
	local pid f p d
	"$IOP_GUESTBIN/stop-guest.sh" --all
	for f in testpmd app; do
		[ -f "$IOP_WORK/$f.pid" ] || continue
		pid=$(cat "$IOP_WORK/$f.pid")
		for p in $(pgrep -P "$pid" 2>/dev/null) "$pid"; do
			if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null |
				grep -qF "iface=$IOP_SOCK,"; then
				kill -9 "$p" 2>/dev/null || true
			fi
		done
		rm -f "$IOP_WORK/$f.pid"
	done
	rm -f "$IOP_SOCK"
	for d in /var/run/dpdk/"$IOP_PREFIX_BASE"-*; do
		[ -d "$d" ] || continue
		p=${d#/var/run/dpdk/"$IOP_PREFIX_BASE"-}
		p=${p%%-*}
		kill -0 "$p" 2>/dev/null || rm -rf "$d"
	done
}

# iop_cleanup: orderly teardown: application, guests, namespace, testpmd
iop_cleanup() {
	iop_app_kill
	"$IOP_GUESTBIN/stop-guest.sh" --all || true
	iop_testpmd_stop
	rm -f "$IOP_SOCK"
	rm -rf /var/run/dpdk/"$IOP_PREFIX"-* "${XDG_RUNTIME_DIR:-/tmp}"/dpdk/"$IOP_PREFIX"-*
}

# iop_kill_all: on a signal. Meson kills the test's process group with
# SIGTERM, then with SIGKILL 0.5 s later: no time for orderly shutdowns.
iop_kill_all() {
	# shellcheck disable=SC2046  # pids
	[ -z "$IOP_APP_PID" ] ||
		kill -9 $(pgrep -P "$IOP_APP_PID" 2>/dev/null) "$IOP_APP_PID" \
			2>/dev/null || true
	[ -z "$IOP_TP_PID" ] || kill -9 "$IOP_TP_PID" 2>/dev/null || true
	"$IOP_GUESTBIN/stop-guest.sh" --kill --all || true
}

# iop_finish: the EXIT trap (the end, an error, a signal): tear down, then
# the per-case lines and the closing lines; an abnormal exit counts as a
# failure; exit status 1 when anything failed
iop_finish() {
	local rc=$?
	trap - EXIT
	[ "$rc" -le 128 ] || iop_kill_all
	iop_cleanup
	if [ "$rc" != 0 ] && [ "$IOP_FAIL" = 0 ]; then
		iop_fail "aborted" "exit status $rc"
	fi
	if [ ${#IOP_SUMMARY[@]} -gt 0 ]; then
		echo "$IOP_LABEL: $IOP_SUMMARY_HEAD"
		printf '  %s\n' "${IOP_SUMMARY[@]}"
	fi
	echo "$IOP_LABEL: total $(secs_since "$IOP_T_START") s"
	echo "$IOP_LABEL: $IOP_PASS passed, $IOP_FAIL failed, $IOP_SKIP skipped"
	[ "$IOP_FAIL" = 0 ] || exit 1
}
