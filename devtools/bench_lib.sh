# SPDX-License-Identifier: BSD-3-Clause
#
# Helpers shared by devtools/bench.sh and devtools/bench_attach.sh
# (sourced). They use the caller's OUT, SOCK and PORT and set SPID/CPID so
# that the caller's cleanup can stop what runs.

# median of the numbers on stdin
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "n/a"; exit }
		if (NR % 2) print v[(NR + 1) / 2];
		else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# med(list): the median of a space-separated list for awk programs: prepend it,
# awk "$AWK_MED"'...'.
AWK_MED='
function med(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	if (n == 0) return "n/a"
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : sprintf("%.6g", (a[n / 2] + a[n / 2 + 1]) / 2)
}'

log_load() {
	echo "$(date +%T) $1: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/load.txt"
}

# bench_server CMD OUTPUT: start an ndk-perf server, wait until it listens
# on TCP $PORT (its adapter, hence its memif server port, is open then).
bench_server() {
	log_load "$(basename "$2")"
	rm -f "$SOCK"
	# shellcheck disable=SC2086
	timeout 300 $1 >"$2" 2>&1 &
	SPID=$!
	for _ in $(seq 200); do
		ss -ltn 2>/dev/null | grep -q ":$PORT " && break
		sleep 0.05
	done
}

# bench_client CMD OUTPUT SERVER-OUTPUT WHAT: run the client, then wait
# for the server started by bench_server.
bench_client() {
	# shellcheck disable=SC2086
	timeout 600 $1 >"$2" 2>&1 &
	CPID=$!
	wait "$CPID" || echo "bench: $4: client failed (see $2)" >&2
	CPID=""
	wait "$SPID" || echo "bench: $4: server failed (see $3)" >&2
	SPID=""
}

# bench_check NAME PROGRAM...: the programs are built, 512 hugepages free.
bench_check() {
	local name=$1 hp

	shift
	for x in "$@"; do
		[ -x "$x" ] || {
			echo "$name: build first (bash devtools/setup.sh)" >&2
			exit 1
		}
	done
	hp=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages)
	[ "$hp" -ge 512 ] || {
		echo "$name: needs 512 free 2 MB hugepages (have $hp)" >&2
		exit 1
	}
}
