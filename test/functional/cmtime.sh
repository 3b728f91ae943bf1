#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ndk-cmtime between two processes on this host, each with its own adapter
# on one end of a net_memif link, one lcore each (the main thread polls):
# the client sets up N connections at once to the server's listener, then
# tears them all down. Checks that both exit 0, that no connection failed,
# that the client printed cmtime's table and the server accepted N, none
# refused. N = 16,384 takes every ephemeral port of the client's address.
#
#   cmtime.sh <path to ndk-cmtime>
#
# Ends with "cmtime: N passed, N failed, N skipped"; exit 0 if none failed,
# 77 (meson: skipped) if memif is not available. memif settings as in
# pingpong.sh (bsize=8192, server first).

set -u

BIN=${1:?usage: cmtime.sh <ndk-cmtime binary>}
# shellcheck disable=SC1091 source=memif_lib.sh
. "$(dirname "$0")/memif_lib.sh"
memif_begin ndkct cmtime

# run_case NAME N SERVER_OPTS CLIENT_OPTS SERVER_ADDR
run_case() {
	local name=$1 n=$2 sopts=$3 copts=$4 srv=$5
	local sock=$TMP/$name.sock why="" s_pid s_rc c_rc got
	local eal=(--no-pci --no-huge -m 1024)

	# shellcheck disable=SC2086  # option lists are words
	timeout 300 "$BIN" -l 0 "${eal[@]}" --file-prefix="ndkct-$$-$name-s" \
		--vdev="net_memif0,role=server,socket=$sock,bsize=8192" \
		-- $sopts >"$TMP/$name.s.out" 2>"$TMP/$name.s.err" &
	s_pid=$!
	PIDS=("$s_pid")
	memif_wait_server "$sock"
	# shellcheck disable=SC2086
	timeout 240 "$BIN" -l 1 "${eal[@]}" --file-prefix="ndkct-$$-$name-c" \
		--vdev="net_memif0,role=client,socket=$sock,bsize=8192" \
		-- $copts -s "$srv" -c "$n" --stats \
		>"$TMP/$name.c.out" 2>"$TMP/$name.c.err"
	c_rc=$?
	kill -TERM "$s_pid" 2>/dev/null
	wait "$s_pid"
	s_rc=$?
	PIDS=()

	got=$(sed -n 's/^ndk-cmtime: \([0-9]*\) connection(s) accepted, \([0-9]*\) refused$/\1 \2/p' \
		"$TMP/$name.s.out")
	if [ "$s_rc" != 0 ] || [ "$c_rc" != 0 ]; then
		why="exit status: server $s_rc, client $c_rc"
	elif grep -q 'connections failed' "$TMP/$name.c.out"; then
		why=$(grep 'connections failed' "$TMP/$name.c.out")
	elif ! grep -q '^disconnect *:' "$TMP/$name.c.out"; then
		why="the client printed no table"
	elif [ "$got" != "$n 0" ]; then
		why="server accepted/refused '$got', want '$n 0'"
	fi
	if [ -z "$why" ]; then
		PASSED=$((PASSED + 1))
		printf 'ok     %-10s %5s connections: %s\n' "$name" "$n" \
			"$(grep -E '^(connect|disconnect) *:' "$TMP/$name.c.out" |
			   awk -F: '{ n = split($2, f, " ");
				      printf "%s %s us/conn  ", $1, f[n] }')"
		return
	fi
	FAILED=$((FAILED + 1))
	printf 'FAILED %-10s %5s connections: %s\n' "$name" "$n" "$why"
	for f in "$TMP/$name".{s,c}.{out,err}; do
		echo "--- ${f##*/}"
		grep -Ev '^(EAL|TELEMETRY): ' "$f" | tail -15
	done
}

run_case v4_1k 1024 "--ip 10.78.0.11" "--ip 10.78.0.12" 10.78.0.11
# 16,384 connects at once: the server holds them all (--backlog), as a
# server expecting that many must; beyond its backlog the CM refuses them
# (REJ, cm_backlog_rejects), which functional cm_scale checks.
run_case v4_16k 16384 "--ip 10.78.0.11 --backlog 16384" "--ip 10.78.0.12" \
	10.78.0.11
# IPv6 (the CM's IPv6 header), a dual-stack server.
run_case v6_1k 1024 "--ip 10.78.0.11 --ip6 fd78::11" "--ip6 fd78::12" \
	fd78::11

echo "cmtime: $PASSED passed, $FAILED failed, 0 skipped"
[ "$FAILED" = 0 ]
