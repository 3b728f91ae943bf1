#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-perf.sh - the `perf_rxe` interop test (suite interop): stock
# perftest 4.5 (ib_send_bw, ib_write_bw, ib_read_bw, ib_read_lat,
# ib_send_lat) on Linux Soft-RoCE (rxe1 in the harness's QEMU guest) against
# ndk-perf on the host, whose adapter (10.77.1.1) is the guest's eth1
# (vhost-user), in both roles (guest client -> ndk-perf server, ndk-perf
# client -> guest server), at guest MTU 1500 (RDMA MTU 1024) and 4200 (RDMA
# MTU 4096), 2 B, 64 KiB and 1 MiB per test: 72 cases; then perftest's
# modes (PF_MODES: -b, -R) in both roles at MTU 4200: 18 cases. With -R
# there is no TCP: each client names the other's RoCE address.
#
# The machinery is lib.sh's, shared with run-pingpong.sh: one guest whose
# QEMU serves the vhost-user socket, dpdk-testpmd its client during the
# boot, then one fresh ndk-perf process per case as the client on the same
# socket; guest-server
# cases use a permanent ARP entry for our adapter (ndk-perf connects before
# its port is up, as ndk-pingpong does). Unlike ibv_rc_pingpong, perftest's
# server exits at once while rxe1 is DOWN, so in guest-server cases ndk-perf
# starts first (its client retries TCP for 10 s) and the guest's server once
# rxe1 is ACTIVE. Both sides run with -u 18 (QP ACK timeout ~1 s): with
# perftest's 67 ms a stalling TCG guest makes both sides retransmit what
# was only late, and READs snowball (README.md). tcpdump in the guest
# captures eth1 per case; tshark decodes it (no malformed frame) and
# icrc_check.py verifies every RoCEv2 ICRC and header, that FIRST/MIDDLE
# data packets carry the path MTU (no message-structure checks: those are
# ibv_rc_pingpong's) and a minimum frame count.
#
# A case passes when both sides exit 0, print a perftest result row
# ("SIZE ITERS ..."; not the server of read_lat, passive in perftest 4.5,
# which prints none: there its address lines) and the path MTU expected,
# and the capture verifies. Ends with
# "interop: N passed, N failed, N skipped".
#
# env: NDK_INTEROP_WORK (this test uses its perf/ subdirectory)
#      NDK_PERF (default build/app/ndk-perf/ndk-perf)  TESTPMD=dpdk-testpmd
#      PF_MTUS="1500 4200"  PF_ROLES="guest-client guest-server"
#      PF_TESTS="write_bw read_bw send_bw read_lat send_lat write_lat"
#      PF_CASES="2:1000:bw 65536:50:bw 1048576:5:bw 2:100:lat 65536:10:lat
#        1048576:5:lat" (SIZE:ITERS[:KIND[:MAX[:PROFILES]]]: KIND limits a
#        case to the bw or lat tests or to some, e.g. read_bw,write_bw; MAX
#        fails the case when its frames per frame needed exceed MAX, e.g.
#        1.05; PROFILES, comma-separated, limits it to those of PF_NETEM)
#      PF_QP_TIMEOUT=18 (-u; empty: perftest's 14)
#      PF_MODES="write_bw:65536:50:-b send_bw:65536:50:-b read_bw:65536:50:-b
#        send_bw:65536:20:-R write_bw:65536:20:-R,-q,2 read_bw:65536:20:-R
#        send_lat:2:50:-R write_lat:2:50:-R read_lat:2:50:-R"
#        (TEST:SIZE:ITERS:OPTIONS[:MAX], options comma-separated, given to
#        both sides, MAX as PF_CASES': perftest's modes beyond the plain
#        run, after the netem profiles (none in effect), both roles, at the
#        guest MTU PF_MODE_MTU, default the last of PF_MTUS; "all": every
#        one; -a drops -s, -D drops -n)
#      PF_MODE_MTU_TESTS (default PF_TESTS: at PF_MODE_MTU, when PF_MODES
#        has modes, the plain cases of these tests only, where the modes
#        cover the others: the CI matrix keeps send_lat there, which none
#        of its modes runs)
#      PF_CASE_TIMEOUT=60  PF_LCORES=1 (ndk-perf's)  PF_DPDK_MEM
#      PF_NDK_OPTS (more ndk-perf options, e.g. "--loss 1": drop 1 % of
#        the frames it receives, READ responses and requests alike)
#      PF_NETEM (netem profiles, "NAME=SPEC;NAME=SPEC...": every role's
#        cases run once per profile, named with -NAME, with sch_netem on
#        the guest's eth1 as SPEC says (lib.sh's iop_netem: netem's
#        arguments for both ways, e.g. "loss 1%" or "delay 1ms reorder
#        25%", "out:ARGS" for what the guest sends only, "in:ARGS" for what
#        it receives only, "off" for none); frames per frame needed then
#        count the guest's frames netem dropped before its capture too)
#      PF_TXQLEN (frames the guest's eth1 queues: a pfifo of that many
#        as its root qdisc, and netem's limit: rxe streams READ responses
#        with no flow control, and the kernel's 1,000 overflow when
#        ndk-perf polls late)
#      PF_GUEST_OPTS (more options for perftest in the guest only, e.g.
#        "--tclass=2": rxe's frames ECT(0))
#      PF_NDK_OPTS_<NAME>, PF_GUEST_OPTS_<NAME> (more options for the
#        cases of netem profile NAME)
#      PF_CNP (1, or the netem profiles it applies to, comma-separated:
#        congestion notification: with "--bottleneck ..." marking rxe's
#        ECT frames CE before our adapter, a case also needs CE marks
#        counted and CNPs sent by our adapter, CNPs from us in the
#        capture, and rxe1's error counters unchanged)
#      PF_SUBDIR=perf (this run's directory under NDK_INTEROP_WORK, and
#        its namespace $NS-<it>)  PF_NS=ndk-perf  PYTHON=python3
#      PF_FAMILY=4 (6: over IPv6, as run-pingpong.sh's PP_FAMILY: eth1 gets
#        $IOP_GUEST_IP6, perftest uses rxe1's GID 2 (-x 2), ndk-perf a
#        dual-stack adapter announcing $IOP_NDK_IP6 (-x 1); neighbour
#        discovery in both roles)
set -euo pipefail
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

IOP_RECONNECT=1
IOP_LCORES=1 # one lcore: the test loops poll the adapter, QEMU keeps a core
IOP_CASE_TIMEOUT=60
IOP_SUMMARY_HEAD="cases (guest row / ndk-perf row; frames: RoCEv2 in the capture):"
IOP_CAP_FIELDS=ipv6.src # column 11 of the .tsv (cnp_checks)
iop_init "${PF_SUBDIR:-perf}" PF perf ndk-pf
ROLES=${PF_ROLES:-guest-client guest-server}
TESTS=${PF_TESTS-write_bw read_bw send_bw read_lat send_lat write_lat}
CASES=${PF_CASES:-2:1000:bw 65536:50:bw 1048576:5:bw 2:100:lat 65536:10:lat 1048576:5:lat}
MODES=${PF_MODES-write_bw:65536:50:-b send_bw:65536:50:-b read_bw:65536:50:-b \
send_bw:65536:20:-R write_bw:65536:20:-R,-q,2 read_bw:65536:20:-R \
send_lat:2:50:-R write_lat:2:50:-R read_lat:2:50:-R}
MODE_MTU=${PF_MODE_MTU:-${IOP_MTUS##* }}
MODE_MTU_TESTS=${PF_MODE_MTU_TESTS-$TESTS}
QP_TIMEOUT=${PF_QP_TIMEOUT-18}
CASE_T=$IOP_CASE_TIMEOUT
NDK_PERF=${NDK_PERF:-$NDK_INTEROP_ROOT/build/app/ndk-perf/ndk-perf}
read -r -a NDK_OPTS <<<"${PF_NDK_OPTS:-}"
W=$IOP_WORK
FAMILY=${PF_FAMILY:-4}
G_GID=1
NDK_ADDR=(--ip "$IOP_NDK_IP")
if [ "$FAMILY" = 6 ]; then
	G_GID=$IOP_GUEST_GID6
	NDK_ADDR=(--ip "$IOP_NDK_IP" --ip6 "$IOP_NDK_IP6" -x 1)
fi

# result_row LOG SIZE ITERS: perftest's result row ("SIZE ITERS numbers")
result_row() {
	grep -E "^ *$2 +$3 +[0-9]" "$1" 2>/dev/null | head -n 1 | tr -s ' \t' ' ' | sed 's/^ //' || true
}

# cnp_checks NDK_LOG BEFORE AFTER RXE_DATA (PF_CNP): rxe1's error
# counters (BEFORE and AFTER: the guest helper's `counters`) did not move:
# rxe drops a CNP (it implements none) and goes on; when rxe sent the
# data (RXE_DATA 1), our adapter also saw CE marks and sent CNPs (its
# counters) and the capture holds CNPs (BTH opcode 0x81) from our address,
# every ICRC of them verified with the rest.
cnp_checks() {
	local tsv=${IOP_PCAP%.pcap}.tsv ce sent cnp c bad=
	ce=$(awk '$1 == "rx_ce" { print $2 }' "$1" | head -n 1)
	sent=$(awk '$1 == "cnp_sent" { print $2 }' "$1" | head -n 1)
	cnp=$(awk -F'\t' -v a="$IOP_NDK_IP" -v b="$IOP_NDK_IP6" \
		'$5 == 129 && ($3 == a || $3 == b || $11 == b) { n++ } END { print n + 0 }' \
		"$tsv" 2>/dev/null || echo 0)
	echo "    CNP: our adapter saw ${ce:-0} CE marks and sent ${sent:-0}" \
		"CNPs; the capture holds $cnp from us;" \
		"$(grep -h '^ --bottleneck:' "$1" || echo 'no bottleneck line')"
	if [ "$4" = 1 ]; then
		[ "${ce:-0}" -gt 0 ] || iop_why "no CE mark reached our adapter"
		[ "${sent:-0}" -gt 0 ] || iop_why "our adapter sent no CNP"
		[ "$cnp" -gt 0 ] || iop_why "no CNP from us in the capture"
	fi
	for c in retry_exceeded_err retry_rnr_exceeded_err send_err; do
		[ "$(sed -n "s/.*$c=\([0-9]*\).*/\1/p" <<<"$2")" = \
			"$(sed -n "s/.*$c=\([0-9]*\).*/\1/p" <<<"$3")" ] || bad+=" $c"
	done
	[ -z "$bad" ] || iop_why "rxe1's error counters moved:$bad"
	IOP_CAP_SUM="$IOP_CAP_SUM, $cnp CNPs to rxe"
}

# run_case MTU RDMA_MTU ROLE TEST SIZE ITERS [OPTIONS [MAX]]
# OPTIONS: more perftest options for both sides, comma-separated ("-b").
# MAX: the case fails with more frames per frame needed.
run_case() {
	local mtu=$1 rmtu=$2 role=$3 test=$4 size=$5 iters=$6 more=${7:-}
	local max=${8:-}
	local name="mtu$mtu-$role-$test-$size" L gid nrc=0 grc=0 grow nrow largest
	local cnt0 cnt1
	local opts=(-s "$size" -n "$iters" ${QP_TIMEOUT:+-u "$QP_TIMEOUT"}) t1 t2 t3
	local rit=$iters q
	if [ -n "$more" ]; then
		name="$name${more//,/}"
		IFS=, read -r -a more <<<"$more"
		# -a: every size, no -s (the 8 MiB row is checked); -D: a
		# duration, no -n (any count); -q N: BW rows count N x ITERS.
		case " ${more[*]} " in
		*" -a "*) opts=(-n "$iters" ${QP_TIMEOUT:+-u "$QP_TIMEOUT"})
			size=8388608 ;;
		*" -D "*) opts=(-s "$size" ${QP_TIMEOUT:+-u "$QP_TIMEOUT"})
			rit='[0-9]+' iters=1 ;;
		esac
		q=$(sed -n 's/.* -q \([0-9]*\) .*/\1/p' <<<" ${more[*]} ")
		[ -z "$q" ] || [ "${test#*_}" != bw ] || rit=$((iters * q))
		# -m M below the link's: both sides use M.
		q=$(sed -n 's/.* -m \([0-9]*\) .*/\1/p' <<<" ${more[*]} ")
		[ -z "$q" ] || [ "$q" -ge "$rmtu" ] || rmtu=$q
		opts+=("${more[@]}")
	fi
	name="$name${IOP_NETEM_NAME:+-$IOP_NETEM_NAME}"
	# The netem profile's own options (PF_NDK_OPTS_<NAME>, ...) and checks.
	local v nopts=("${NDK_OPTS[@]}") gopts=${PF_GUEST_OPTS:-} cnp=0 more_n
	if [ -n "$IOP_NETEM_NAME" ]; then
		v=PF_NDK_OPTS_$IOP_NETEM_NAME
		read -r -a more_n <<<"${!v:-}"
		nopts+=("${more_n[@]}")
		v=PF_GUEST_OPTS_$IOP_NETEM_NAME
		gopts+="${!v:+ ${!v}}"
	fi
	case ,${PF_CNP:-}, in
	*,1,*) cnp=1 ;;
	*",${IOP_NETEM_NAME:-(none)},"*) cnp=1 ;;
	esac
	local ib="ib_$test -d rxe1 -x $G_GID ${opts[*]}${gopts:+ $gopts}"
	# -R, -z: no TCP; each client names the server's RoCE address
	# (rxe1's, our adapter's) instead of the eth0 side.
	local cm=0 guest_to=$IOP_HOST_ADDR ndk_to=${IOP_GUEST_IP%/*}
	case " ${opts[*]} " in
	*" -R "* | *" -z "*)
		cm=1 guest_to=$IOP_NDK_IP ndk_to=${IOP_GUEST_IP1%/*} ;;
	esac
	L=$W/logs/$name
	iop_case_begin "$name"
	echo "$IOP_LABEL: case $name: ib_$test on rxe1 as the ${role#guest-}," \
		"ndk-perf as the $([ "$role" = guest-client ] && echo server || echo client)," \
		"${size} B x $iters, RDMA MTU $rmtu${more:+, ${more[*]}}${IOP_NETEM_NAME:+, netem $IOP_NETEM_NAME}"
	cnt0=$(iop_gh counters 2>/dev/null) || true

	iop_capture_start "$name" $((mtu + 64)) || true
	iop_expect_link_down "$IOP_CAP_BEFORE"
	t1=$(now_ms)

	if [ "$role" = guest-client ]; then
		iop_app_start "$L.ndk.log" "$NDK_PERF" "$test" "${NDK_ADDR[@]}" \
			"${opts[@]}" "${nopts[@]}" --stats
		# -R: our listener is up within moments of the port (rxe1
		# ACTIVE), long before perftest in the guest gets to connect.
		if [ "$cm" = 1 ] || iop_host_listening 18515; then
			iop_gh -t $((CASE_T + 60)) "run-active 30 $CASE_T $ib $guest_to" \
				>"$L.guest.log" 2>&1 || grc=$?
		else
			iop_why "ndk-perf is not listening on TCP 18515"
			grc=99
			iop_app_kill
		fi
		iop_app_wait || nrc=$?
	else
		# perftest's server refuses to start while rxe1 is DOWN ("Port
		# number 1 state is Down"), i.e. before a DPDK process serves eth1:
		# start ndk-perf first (its client retries the TCP connection for
		# 10 s), the guest's server once rxe1 is ACTIVE.
		iop_app_start "$L.ndk.log" "$NDK_PERF" "$test" "${NDK_ADDR[@]}" \
			"${opts[@]}" "${nopts[@]}" --stats "$ndk_to"
		gid=$(iop_gxb "sh /share/iop-guest.sh run-active 30 $CASE_T $ib") || gid=none
		iop_app_wait || nrc=$?
		iop_gxw $((CASE_T + 60)) "$gid" >"$L.guest.log" 2>&1 || grc=$?
	fi

	t2=$(now_ms)
	cnt1=$(iop_gh counters 2>/dev/null) || true
	iop_capture_stop "$name"
	t3=$(now_ms)

	# perftest times its figures with a CPU clock it calibrates at start
	# (cycles against gettimeofday, a straight line it must fit with r^2
	# >= 0.9). In a TCG guest that timing is sometimes too irregular: it
	# prints "Correlation coefficient r^2: ... < 0.9", then a bw test says
	# "Can't produce a report" (no row, exit 1, and its closing TCP
	# exchange fails at our end too) and a lat test prints a row of "inf".
	# That is the stock tool unable to time in this guest, not a transfer
	# failing: the case runs again, RETRY_CLOCK more times at most (said
	# so; run_case_clock). Its cause was the guest's clocksource watchdog
	# moving the guest off the TSC onto HPET under host load (three
	# failures in a row in one loaded run): run-guest.sh boots the guest
	# with tsc=reliable, so this should no longer be seen.
	if [ "${RETRY_CLOCK:-0}" -gt 0 ] &&
		grep -q 'Correlation coefficient r^2' "$L.guest.log" 2>/dev/null; then
		echo "    ib_$test could not calibrate its clock in the guest" \
			"($(grep -o 'Correlation coefficient r^2: [0-9.]* < 0.9' "$L.guest.log" | head -n 1 || true)): the case runs again"
		CASE_AGAIN=1
		return 0
	fi

	[ "$nrc" = 0 ] || iop_why "ndk-perf exit status $nrc"
	[ "$grc" = 0 ] || iop_why "ib_$test exit status $grc"
	grow=$(result_row "$L.guest.log" "$size" "$rit")
	nrow=$(result_row "$L.ndk.log" "$size" "$rit")
	# perftest 4.5's read_lat server is passive and prints no result row
	# (stock ib_read_lat as the server does not either): from the server of
	# read_lat only its address lines are required.
	if [ "$test" = read_lat ] && [ "$role" = guest-server ] && [ -z "$grow" ] &&
		grep -q 'remote address:' "$L.guest.log" 2>/dev/null; then
		grow="(server: no row, as perftest)"
	fi
	if [ "$test" = read_lat ] && [ "$role" = guest-client ] && [ -z "$nrow" ] &&
		grep -q 'remote address:' "$L.ndk.log" 2>/dev/null; then
		nrow="(server: no row, as perftest)"
	fi
	[ -n "$grow" ] || iop_why "ib_$test printed no result row"
	[ -n "$nrow" ] || iop_why "ndk-perf printed no result row"
	{ grep -h '^link: ' "$L.guest.log" 2>/dev/null || true; } | sed 's/^/    guest /'
	echo "    ib_$test: ${grow:-(no row)}"
	echo "    ndk-perf:  ${nrow:-(no row)}"
	if [ ${#IOP_WHY[@]} -gt 0 ]; then
		iop_tail ndk-perf "$L.ndk.log" 40
		iop_tail "ib_$test" "$L.guest.log" 25
	fi

	# Both sides use path MTU M: their headers say so, every FIRST/MIDDLE
	# data packet carries M bytes and the largest min(S, M).
	grep -Eq "^ *Mtu +: $rmtu\[B\]" "$L.ndk.log" ||
		iop_why "ndk-perf's path MTU is not $rmtu"
	grep -Eq "^ *Mtu +: $rmtu\[B\]" "$L.guest.log" ||
		iop_why "ib_$test's path MTU is not $rmtu"
	# At least the data of one direction: N messages of ceil(S/M) packets
	# (of both with -b).
	local ways=1
	case " ${opts[*]} " in *" -b "*) ways=2 ;; esac
	iop_capture_check --mtu "$rmtu" \
		--min-roce $((iters * ((size + rmtu - 1) / rmtu) * ways))
	# Frames sent per frame needed (both directions, against one data
	# frame per MTU of every message): retransmissions show here.
	iop_frames_ratio $((iters * ((size + rmtu - 1) / rmtu) * ways)) \
		"$cnt0" "$cnt1" "$max"
	# rxe sends the data (ECT, marked at our bottleneck) when it writes or
	# sends as the client or answers our READs; else only its ACKs or READ
	# requests, too few to queue.
	local rxe_data=0
	case $role-$test in
	guest-client-write_* | guest-client-send_* | guest-server-read_*) rxe_data=1 ;;
	esac
	[ "$cnp" = 0 ] ||
		cnp_checks "$L.ndk.log" "$cnt0" "$cnt1" "$rxe_data"
	largest=$(sed -n 's/.*; largest payload \([0-9]*\)$/\1/p' <<<"$IOP_CAP_OUT")
	local want=$((size < rmtu ? size : rmtu))
	# -R: the exchange's SENDs (perftest's 56-byte key messages) travel
	# as RoCE too.
	[ "$cm" = 0 ] || [ "$want" -ge 56 ] || want=56
	[ "${largest:-0}" = "$want" ] ||
		iop_why "largest payload ${largest:-?}, expected $want"
	echo "    times: set-up $(((t1 - IOP_CASE_T0) / 100)), run $(((t2 - t1) / 100))," \
		"capture hand-over $(((t3 - t2) / 100)), checks $((($(now_ms) - t3) / 100)) (0.1 s)"
	iop_case_end "${iters}x${size} B; guest [${grow:-none}] ndk [${nrow:-none}]; $IOP_CAP_SUM, $IOP_CAP_MALFORMED malformed"
}

# run_case_clock ARGS...: run_case ARGS, and again while stock perftest in
# the guest could not calibrate its clock (two more runs at most)
run_case_clock() {
	local left=2
	CASE_AGAIN=0
	RETRY_CLOCK=$left run_case "$@"
	while [ "$CASE_AGAIN" = 1 ]; do
		CASE_AGAIN=0
		left=$((left - 1))
		RETRY_CLOCK=$left run_case "$@"
	done
}

# perf_cases MTU RDMA_MTU ROLE: every test and case of PF_TESTS and PF_CASES
perf_cases() {
	local test c size iters kind max profs tests=$TESTS
	[ "$1" != "$MODE_MTU" ] || [ -z "$MODES" ] || tests=$MODE_MTU_TESTS
	for test in $tests; do
		for c in $CASES; do
			IFS=: read -r size iters kind max profs <<<"$c"
			iop_netem_case "$profs" || continue
			case ${kind:-all} in
			all) ;;
			bw | lat) [ "${test#*_}" = "$kind" ] || continue ;;
			*) [[ ,$kind, == *",$test,"* ]] || continue ;;
			esac
			run_case_clock "$1" "$2" "$3" "$test" "$size" "$iters" "" "$max"
		done
	done
}

perf_mtu() {
	local mtu=$1 rmtu role c size iters kind arp test out
	rmtu=$(iop_rdma_mtu "$mtu")
	iop_boot_guest "$mtu" && iop_release_boot_server "$mtu" || return 0
	if [ "$FAMILY" = 6 ]; then
		echo "$IOP_LABEL: $(iop_gh "ip6 $IOP_GUEST_IP6/64 $IOP_GUEST_GID6" 2>&1)"
	fi
	for role in $ROLES; do
		if [ "$FAMILY" = 6 ]; then
			arp=$(iop_gh "nd-dynamic $IOP_NDK_IP6" 2>&1) || true
		elif [ "$role" = guest-server ]; then
			arp=$(iop_gh "arp-static $IOP_NDK_IP $IOP_NDK_MAC" 2>&1) || true
		else
			arp=$(iop_gh "arp-dynamic $IOP_NDK_IP" 2>&1) || true
		fi
		echo "$IOP_LABEL: MTU $mtu, $role cases; guest eth1 neighbours: ${arp:-none}"
		iop_netem_profiles "${PF_NETEM:-}" perf_cases "$mtu" "$rmtu" "$role"
		[ "$MODE_MTU" = all ] || [ "$mtu" = "$MODE_MTU" ] || continue
		for c in $MODES; do
			IFS=: read -r test size iters kind max <<<"$c"
			run_case_clock "$mtu" "$rmtu" "$role" "$test" "$size" "$iters" "$kind" "$max"
		done
	done
	iop_guest_end "$mtu"
}

# --- main ------------------------------------------------------------------
if iop_prepare --capture "$NDK_PERF"; then
	for mtu in $IOP_MTUS; do
		perf_mtu "$mtu"
	done
fi
