#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ndk-nvmf-perf against ndk-nvmf-tgt over net_memif (two processes, one
# lcore each), with enough 4 KiB I/Os at queue depth 32 to wrap memif's
# rings many times, in both directions (random reads and writes, data
# verified; --verify counts the write and the read). Both ends print their adapter's counters (--stats); the test
# checks that the link neither invents nor floods frames:
#
# - each end received at most what the other sent (a point-to-point link
#   that loses nothing may deliver fewer frames, never more);
# - frames received per I/O stay below 8 on each end (a 4 KiB I/O is a
#   few frames: capsule, data, response, ACKs);
# - no CM MAD beyond the connections' own, no frame for an unknown QP;
# - ndk-nvmf-perf registers its buffers: in-capsule writes go out of them
#   without a copy (its "not copied" count), except with
#   --copy-in-capsule (the copy path, also verified) or --no-in-capsule;
#   with --region-key keyed I/O uses the region's one remote token (and
#   only then);
# - SIGINT ends a timed run as its time would (case sigint).
#
#   nvmf_memif.sh <ndk-nvmf-tgt> <ndk-nvmf-perf>
#
# NVMF_MEMIF_BSIZE (8192): memif's buffer size on both ends. A frame
# longer than one buffer is a descriptor chain, which DPDK 22.11's memif
# corrupts (doc/performance.md); with 2048 (memif's default) this test
# fails: the host receives orders of magnitude more frames than the
# target sent. NVMF_MEMIF_IOS (4000): I/Os per case.
#
# Ends with "nvmf_memif: N passed, N failed, N skipped"; exit 77 (meson:
# skipped) if memif is not available.

set -u

TGT=${1:?usage: nvmf_memif.sh <ndk-nvmf-tgt> <ndk-nvmf-perf>}
PERF=${2:?usage: nvmf_memif.sh <ndk-nvmf-tgt> <ndk-nvmf-perf>}
BSIZE=${NVMF_MEMIF_BSIZE:-8192}
IOS=${NVMF_MEMIF_IOS:-4000}
# shellcheck disable=SC1091 source=memif_lib.sh
. "$(dirname "$0")/memif_lib.sh"
memif_begin ndknm nvmf_memif
NQN=nqn.2026-11.org.ndk-roce:memif

cat >"$TMP/tgt.conf" <<EOF
subsystem $NQN allow_any_host
namespace mem:32M bs=4096
listen 10.77.2.1 4420
EOF

# counter FILE NAME: the adapter counter's value (0 when not printed).
counter() {
	local v
	v=$(awk -v n="$2" '$1 == n { print $2; exit }' "$1")
	echo "${v:-0}"
}

# run_case NAME [--sigint] [ndk-nvmf-perf options]: --sigint: a timed run
# (-t 120, not -N) ended by SIGINT once its workload has started; it must
# end as its time would (exit 0, results printed, I/Os done)
run_case() {
	local name=$1 sig=0 h_pid stop=(-N "$IOS")
	shift
	if [ "${1:-}" = --sigint ]; then
		sig=1
		stop=(-t 120)
		shift
	fi
	local sock=$TMP/$name.sock why="" t_pid h_rc t_rc ios
	local eal=(--no-pci --no-huge -m 512)
	local to=$TMP/$name.t.out ho=$TMP/$name.h.out
	local h_rx t_rx h_tx t_tx h_cm t_cm h_unk t_unk direct want_direct=any
	local region want_region=no
	case " $* " in
	*" --region-key "*) want_region=yes ;;
	esac
	case " $* " in
	*" --copy-in-capsule "* | *" --no-in-capsule "*) want_direct=no ;;
	*" -w randrw "* | *" -w randwrite "*) want_direct=yes ;;
	esac

	timeout 300 "$TGT" -l 0 "${eal[@]}" --file-prefix="ndknm-$$-$name-t" \
		--vdev="net_memif0,role=server,socket=$sock,socket-abstract=no,bsize=$BSIZE" \
		-- -c "$TMP/tgt.conf" --ip 10.77.2.1 --stats \
		>"$to" 2>"$TMP/$name.t.err" &
	t_pid=$!
	PIDS=("$t_pid")
	for _ in $(seq 300); do
		grep -q '^ndk-nvmf-tgt: ready' "$to" && break
		sleep 0.1
	done
	timeout 300 "$PERF" -l 1 "${eal[@]}" --file-prefix="ndknm-$$-$name-h" \
		--vdev="net_memif0,role=client,socket=$sock,socket-abstract=no,bsize=$BSIZE" \
		-- -a 10.77.2.1 -n "$NQN" --ip 10.77.2.2 -o 4096 -q 32 \
		"${stop[@]}" --stats "$@" >"$ho" 2>"$TMP/$name.h.err" &
	h_pid=$!
	PIDS+=("$h_pid")
	if [ "$sig" = 1 ]; then
		# GNU timeout passes the SIGINT on to ndk-nvmf-perf.
		for _ in $(seq 600); do
			grep -q '^workload: ' "$ho" && break
			kill -0 "$h_pid" 2>/dev/null || break
			sleep 0.1
		done
		sleep 1
		kill -INT "$h_pid" 2>/dev/null
	fi
	wait "$h_pid"
	h_rc=$?
	kill -INT "$t_pid" 2>/dev/null
	wait "$t_pid"
	t_rc=$?
	PIDS=()

	h_rx=$(counter "$ho" rx_packets)
	h_tx=$(counter "$ho" tx_packets)
	t_rx=$(counter "$to" rx_packets)
	t_tx=$(counter "$to" tx_packets)
	h_cm=$(counter "$ho" cm_rx)
	t_cm=$(counter "$to" cm_rx)
	h_unk=$(counter "$ho" rx_unknown_qpn)
	t_unk=$(counter "$to" rx_unknown_qpn)
	ios=$(sed -n 's/^I\/Os: \([0-9]*\) .*/\1/p' "$ho")
	direct=$(sed -n 's/^queues: .*in-capsule [0-9]* (\([0-9]*\) not copied).*/\1/p' "$ho")
	region=$(sed -n 's/^queues: .*keyed [0-9]* (\([0-9]*\) with the region.s key).*/\1/p' "$ho")
	if [ "$h_rc" != 0 ] || [ "$t_rc" != 0 ]; then
		why="exit status: host $h_rc, target $t_rc"
	elif [ "$want_direct" = yes ] && [ "${direct:-0}" = 0 ]; then
		why="no in-capsule write sent from the registered buffers"
	elif [ "$want_direct" = no ] && [ "${direct:-0}" != 0 ]; then
		why="$direct in-capsule writes not copied with --copy-in-capsule"
	elif [ "$want_region" = yes ] && [ "${region:-0}" = 0 ]; then
		why="no keyed I/O with the region's key (--region-key)"
	elif [ "$want_region" = no ] && [ "${region:-0}" != 0 ]; then
		why="$region keyed I/Os with the region's key without --region-key"
	elif [ "$sig" = 0 ] && [ "${ios:-0}" -lt "$IOS" ]; then
		why="host did ${ios:-no} I/Os of $IOS"
	elif [ "$sig" = 1 ] && ! grep -q '^stopped by signal 2 after ' "$ho"; then
		why="no 'stopped by signal 2' line: SIGINT did not end the run"
	elif [ "$sig" = 1 ] && [ "${ios:-0}" = 0 ]; then
		why="no I/O done before SIGINT"
	elif [ "$h_rx" -gt "$t_tx" ] || [ "$t_rx" -gt "$h_tx" ]; then
		why="more frames received than sent: host rx $h_rx of target tx $t_tx, target rx $t_rx of host tx $h_tx"
	elif [ "$h_rx" -ge $((8 * ios)) ] || [ "$t_rx" -ge $((8 * ios)) ]; then
		why="8 or more frames per I/O: host rx $h_rx, target rx $t_rx for $ios I/Os"
	elif [ "$h_cm" -gt 16 ] || [ "$t_cm" -gt 16 ]; then
		why="CM MADs received: host $h_cm, target $t_cm"
	elif [ "$h_unk" != 0 ] || [ "$t_unk" != 0 ]; then
		why="frames for unknown QPs: host $h_unk, target $t_unk"
	fi
	if [ -z "$why" ]; then
		PASSED=$((PASSED + 1))
		printf 'ok     %-14s %s I/Os: host rx %s tx %s, target rx %s tx %s\n' \
			"$name" "$ios" "$h_rx" "$h_tx" "$t_rx" "$t_tx"
		return
	fi
	FAILED=$((FAILED + 1))
	printf 'FAILED %-14s %s\n' "$name" "$why"
	for f in "$ho" "$TMP/$name.h.err" "$to" "$TMP/$name.t.err"; do
		echo "--- ${f##*/}"
		grep -Ev '^(EAL|TELEMETRY): ' "$f" | tail -40
	done
}

run_case randrw -w randrw -M 50 --verify
run_case randrw_copied -w randrw -M 50 --verify --copy-in-capsule
run_case write_keyed -w randwrite --no-in-capsule
run_case randrw_region -w randrw -M 50 --verify --region-key
run_case sigint --sigint -w randrw -M 50 --verify

echo "nvmf_memif: $PASSED passed, $FAILED failed, 0 skipped"
[ "$FAILED" = 0 ]
