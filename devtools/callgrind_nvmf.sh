#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Instructions (callgrind Ir) per I/O of NVMe-oF over memif (bsize=8192),
# as devtools/callgrind.sh does for ndk-perf: one side under callgrind,
# the other native. Ir do not depend on the machine's load; the number of
# polls that find nothing does (the native side descheduled), so they are
# counted and taken out:
#
#   SIDE=host (default): ndk-nvmf-perf under callgrind, collecting its
#     poll loop (poll_all: the adapter poll, the queue polls and every
#     completion callback with the next submission), against a native
#     ndk-nvmf-tgt. The host counts the run's polls that found nothing
#     and, after the run, polls 2000 times with nothing in flight
#     (np_idle_sample): those give the Ir of an idle poll.
#   SIDE=target: ndk-nvmf-tgt under callgrind, collecting
#     ndk_nvmf_tgt_poll (adapter poll, commands, memory namespace copies,
#     responses), against a native ndk-nvmf-perf. Callgrind dumps its
#     profile at each connection request and disconnection
#     (--dump-before=nvmf_rdma_connect_event, nvmf_rdma_disconnect_event):
#     the polls before the first request, which all find nothing, give
#     the Ir of an idle poll; the figures are those from the first request
#     to the last disconnection, whose idle polls the target counts
#     (ndk_nvmf_tgt_stats.idle_polls: polls that found nothing while a
#     queue pair was connected). The native host runs with
#     --strict-timeout (no adaptive retransmission to the slow target);
#     the target's rx_duplicate is printed: duplicates add Ir.
#
#   devtools/callgrind_nvmf.sh "-w randread -o 4096 -q 1 -N 20000" [OUT]
#
# Once the host prints its workload, the valgrinded process is reniced
# (CG_NICE, 10) so that the native one, favoured, leaves fewer idle polls.
# Per I/O = (Ir collected - idle polls x Ir per idle poll) / I/Os; an idle
# poll during the run has queues (target: their CQs; host: I/Os in
# flight) to look at, which the sample's have not, so that figure is high
# by a few tens of Ir per idle poll. RUNS runs (3), the fewest Ir per I/O
# kept; with runs whose idle polls differ, the Ir per idle poll of the
# runs themselves is also fitted (least squares) and the Ir per I/O it
# gives printed: the better figure when the fit is not rejected. Prints
# the Ir per I/O, the polls per I/O, and per I/O the inclusive Ir of the
# top functions under the collected one (these include the idle polls:
# swr_poll, memif's RX, swr_rtx_advance, the CQ polls); leaves
# callgrind.out (target: the part from the I/O queue's connection to the
# first disconnection) in OUT (default /tmp/ndk-cgn-<pid>). The target
# takes --queue-depth 256 (QD 128 needs 129 entries); valgrind runs with
# --fair-sched=yes (else the busy-polling main thread starves the thread
# that answers memif's control channel).
set -eu
ARGS=$1
OUT=$(realpath -m "${2:-/tmp/ndk-cgn-$$}")
BUILD=${BUILD:-build}
NTGT=$BUILD/app/ndk-nvmf-tgt/ndk-nvmf-tgt
NPERF=$BUILD/app/ndk-nvmf-perf/ndk-nvmf-perf
SOCK=$OUT/memif.sock
NQN=nqn.2026-11.org.ndk-roce:cg
EAL="--no-pci --log-level=lib.eal:error --log-level=pmd.net.memif:error"
VS="socket=$SOCK,socket-abstract=no,bsize=8192"
mkdir -p "$OUT"
ITERS=$(echo "$ARGS" | sed -n 's/.*-N \([0-9]*\).*/\1/p')
[ -n "$ITERS" ] || { echo "callgrind_nvmf.sh: give -N COUNT" >&2; exit 1; }
cat >"$OUT/tgt.conf" <<EOF
subsystem $NQN allow_any_host
namespace mem:64M bs=4096
listen 10.0.0.1 4420
EOF

TPID=""
cleanup() { [ -n "$TPID" ] && kill "$TPID" 2>/dev/null; rm -f "$SOCK"; }
trap cleanup EXIT

RUNS=${RUNS:-3}
SIDE=${SIDE:-host}
CG_MEM="--no-huge -m 512 --file-prefix=cgn$$"
NATIVE_MEM="--in-memory"
if [ "$SIDE" = target ]; then
	COLLECT=ndk_nvmf_tgt_poll
else
	COLLECT='poll_all*'
fi
# callgrind_annotate from /: run from the source tree, it names some files
# relatively and splits a function's costs between two names.
cga() { (cd / && callgrind_annotate "$@" 2>/dev/null); }
# Inclusive Ir of function $2 (a prefix) in callgrind file $1.
incl() {
	cga --inclusive=yes "$1" |
		awk -v c="$2" '$0 ~ (":" c "[^ ]* \\[") && a == "" {
			v = $1; gsub(",", "", v); a = v }
		END { printf "%.0f\n", a }'
}
# Calls of function $2 (a prefix) from caller $3 in file $1, and their
# inclusive Ir: "CALLS IR".
calls_from() {
	cga --tree=caller --inclusive=yes "$1" |
		awk -v c="$2" -v k="$3" '
		/^ *[0-9,]+ .* < / { l[++n] = $0; next }
		/^ *[0-9,]+ .* \* / {
			if ($0 ~ (":" c "[^ ]* \\[") && done == "") {
				for (i = 1; i <= n; i++)
					if (l[i] ~ (":" k "[^ ]* \\(")) {
						v = l[i]; sub(/^ */, "", v)
						sub(/ .*/, "", v); gsub(",", "", v)
						x = l[i]; sub(/.*\(/, "", x)
						sub(/x\).*/, "", x); gsub(",", "", x)
						done = x " " v
					}
			}
			n = 0; next }
		{ n = 0 }
		END { print (done == "" ? "0 0" : done) }'
}

best="" bestir="" bestidle="" bestpolls=""
rm -f "$OUT/runs.txt"
for run in $(seq "$RUNS"); do
	CGF=$OUT/callgrind.out.$run
	rm -f "$CGF" "$CGF".*
	VG="valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file=$CGF --toggle-collect=$COLLECT ${CG_OPTS:-}"
	TPRE="" TMEM=$NATIVE_MEM HPRE=$VG HMEM=$CG_MEM HOPTS=""
	if [ "$SIDE" = target ]; then
		TPRE="$VG --dump-before=nvmf_rdma_connect_event"
		TPRE="$TPRE --dump-before=nvmf_rdma_disconnect_event"
		TMEM=$CG_MEM HPRE="" HMEM=$NATIVE_MEM
		# No early duplicates from the native host to the slow target.
		HOPTS="--strict-timeout"
	fi
	rm -f "$SOCK"
	# shellcheck disable=SC2086
	timeout 900 $TPRE $NTGT -l 0 $EAL $TMEM \
		--vdev net_memif0,role=server,$VS -- -c "$OUT/tgt.conf" \
		--ip 10.0.0.1 --queue-depth 256 --stats >"$OUT/target.log" 2>&1 &
	TPID=$!
	for _ in $(seq 1800); do
		grep -q '^ndk-nvmf-tgt: ready' "$OUT/target.log" && break
		sleep 0.1
	done
	# shellcheck disable=SC2086
	timeout 900 $HPRE $NPERF -l 1 $EAL $HMEM \
		--vdev net_memif0,role=client,$VS -- -a 10.0.0.1 -n $NQN \
		--ip 10.0.0.2 --stats $HOPTS $ARGS >"$OUT/host.log" 2>&1 &
	HPID=$!
	# Once the I/O starts, the valgrinded side yields to the native one:
	# fewer polls that find nothing. Not before: slowed down more, it
	# would miss the link-up and connect timeouts.
	VPID=$HPID
	[ "$SIDE" = target ] && VPID=$TPID
	while kill -0 "$HPID" 2>/dev/null; do
		if grep -q '^workload:' "$OUT/host.log"; then
			renice -n "${CG_NICE:-10}" -p "$(pgrep -P "$VPID")" \
				>/dev/null 2>&1 || true
			break
		fi
		sleep 0.1
	done
	wait "$HPID" || true
	kill -INT "$TPID" 2>/dev/null || true
	wait "$TPID" || true
	TPID=""
	sleep 1 # let valgrind finish its output files
	if [ "$SIDE" = target ]; then
		# Part 1: before the first connection request, all idle.
		read -r cpolls cir <<<"$(calls_from "$CGF.1" "$COLLECT" main)"
		# Parts 2.. (not the last file, after the last disconnection).
		ir=0 polls=0
		for f in "$CGF".[2-9] "$CGF".[1-9][0-9]; do
			[ -f "$f" ] || continue
			ir=$((ir + $(incl "$f" "$COLLECT")))
			read -r p _ <<<"$(calls_from "$f" "$COLLECT" main)"
			polls=$((polls + p))
		done
		idle=$(awk '$1 == "ndk-nvmf-tgt:" && $2 == "polls" { i = $5 }
			END { print i + 0 }' "$OUT/target.log")
	else
		read -r cpolls cir <<<"$(calls_from "$CGF" "${COLLECT%\*}" \
			np_idle_sample)"
		ir=$(($(incl "$CGF" "${COLLECT%\*}") - cir))
		read -r polls idle <<<"$(sed -n 's/^polls: \([0-9]*\) in the run, \([0-9]*\) of them idle.*/\1 \2/p' \
			"$OUT/host.log")"
		polls=${polls:-0} idle=${idle:-0}
	fi
	if [ "$cpolls" -gt 0 ]; then
		cidle=$((cir / cpolls))
	else
		echo "run $run: no idle polls sampled (see $OUT/*.log)" >&2
		cidle=0
	fi
	net=$((ir - idle * cidle))
	echo "$ir $idle $polls $cidle" >>"$OUT/runs.txt"
	echo "run $run: $ir Ir collected, $polls polls ($idle idle, $cidle Ir" \
		"each): $net Ir net; target rx_duplicate" \
		"$(awk '$1 == "rx_duplicate" { print $2 }' "$OUT/target.log")" >&2
	if [ -z "$best" ] || [ "$net" -lt "$bestir" ]; then
		best=$run
		bestir=$net
		bestidle="$idle $cidle"
		bestpolls=$polls
	fi
done
if [ "$SIDE" = target ]; then
	# The part with the most Ir: the I/O queue's connection.
	big=$(grep -H '^summary:' "$OUT/callgrind.out.$best".[2-9] \
		"$OUT/callgrind.out.$best".[1-9][0-9] 2>/dev/null |
		sort -t' ' -k2 -n | tail -1 | cut -d: -f1)
	cp "$big" "$OUT/callgrind.out"
else
	cp "$OUT/callgrind.out.$best" "$OUT/callgrind.out"
fi
read -r bi bc <<<"$bestidle"
echo "# ndk-nvmf-perf $ARGS, $SIDE under callgrind: Ir per I/O (inclusive),"
echo "# $ITERS I/Os, collected: $COLLECT"
awk -v n="$ITERS" -v t="$bestir" -v p="$bestpolls" -v i="$bi" -v c="$bc" 'BEGIN {
	printf "%10.1f per I/O, idle polls taken out\n", t / n
	printf "%10.2f polls per I/O, %.2f of them idle at %d Ir each\n",
		p / n, i / n, c }'
# Across runs, Ir = I/Os x (Ir per I/O) + idle polls x (Ir per idle poll
# in the run, queues with work in flight): fitted when the runs' idle
# polls differ by a fifth or more.
awk -v n="$ITERS" '{ t[NR] = $1; i[NR] = $2; st += $1; si += $2
		if (NR == 1 || $2 < lo) lo = $2
		if (NR == 1 || $2 > hi) hi = $2; c0 = $4 }
	END {
		if (NR < 2 || hi - lo < 0.2 * (si / NR) || hi == 0) exit
		mt = st / NR; mi = si / NR
		for (k = 1; k <= NR; k++) {
			sxy += (i[k] - mi) * (t[k] - mt)
			sxx += (i[k] - mi) ^ 2
		}
		c = sxy / sxx
		if (c < 0.8 * c0 || c > 4 * c0) {
			printf "# fit across %d runs rejected (%.0f Ir per idle poll)\n", NR, c
			exit
		}
		printf "%10.1f per I/O, fitted across %d runs (%.0f Ir per idle poll)\n",
			(mt - c * mi) / n, NR, c
	}' "$OUT/runs.txt"
echo "# functions (inclusive, idle polls included):"
cga --inclusive=yes "$OUT/callgrind.out" |
	awk -v n="$ITERS" '/^ *[0-9,]+ .*:.*\[/ {
		v = $1; gsub(",", "", v); f = $0; sub(/^.*:/, "", f)
		sub(/ \[.*/, "", f)
		if (f in seen) next
		seen[f] = 1; ir[f] = v + 0; order[++k] = f }
	END {
		for (i = 2; i <= k; i++) {
			f = order[i]
			if (ir[f] < ir[order[1]] && ir[f] / n >= 20)
				printf "%10.1f %s\n", ir[f] / n, f
		}
	}' | head -40
