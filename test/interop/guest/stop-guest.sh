#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# stop-guest.sh NAME... - stop guests started by run-guest.sh (QEMU monitor
# "quit", then SIGTERM, then SIGKILL) and delete their taps.
# stop-guest.sh --all   - stop every guest under $NDK_INTEROP_WORK/guests and
#                         delete the namespace $NS (bridge included).
# stop-guest.sh --kill ... - SIGKILL at once (for a caller about to be killed)
# Quiet and successful when there is nothing to stop.
set -euo pipefail
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

all=0
hard=0
if [ "${1:-}" = --kill ]; then
	hard=1
	shift
fi
names=("$@")
if [ "${1:-}" = --all ]; then
	all=1
	names=()
	if [ -d "$NDK_INTEROP_WORK/guests" ]; then
		for d in "$NDK_INTEROP_WORK"/guests/*/; do
			[ -d "$d" ] && names+=("$(basename "$d")")
		done
	fi
fi

# gone PID TENTHS: wait up to TENTHS x 0.1 s for PID to exit
gone() {
	local i
	for ((i = 0; i < $2; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	! kill -0 "$1" 2>/dev/null
}

for n in "${names[@]}"; do
	D=$(guest_dir "$n")
	if [ -f "$D/qemu.pid" ]; then
		pid=$(cat "$D/qemu.pid")
		# Only our QEMU: the pid file may be stale.
		cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" || true)
		if [[ $cmd == *qemu-system-x86_64*"$D/"* ]] && [ "$hard" = 1 ]; then
			kill -9 "$pid" 2>/dev/null || true
		elif [[ $cmd == *qemu-system-x86_64*"$D/"* ]]; then
			if [ -S "$D/mon.sock" ]; then
				echo quit | timeout 2 socat - "UNIX-CONNECT:$D/mon.sock" \
					>/dev/null 2>&1 || true
			fi
			gone "$pid" 30 || kill "$pid" 2>/dev/null || true
			gone "$pid" 30 || kill -9 "$pid" 2>/dev/null || true
			gone "$pid" 30 || echo "stop-guest: $n: qemu $pid survives" >&2
		fi
		rm -f "$D/qemu.pid"
	fi
	ip -n "$NS" link del "t-$n" 2>/dev/null || true
done
if [ "$all" = 1 ] && [ -e "/run/netns/$NS" ]; then
	ip netns del "$NS"
fi
exit 0
