# SPDX-License-Identifier: BSD-3-Clause
#
# Sourced by the functional scripts that run ndk-roce tools as two
# processes over net_memif (rping.sh, cmtime.sh, nvmf_memif.sh).
#
# memif_begin TAG NAME: a scratch directory $TMP (/tmp/TAG-PID.*), $PIDS
# (processes killed at exit), $PASSED/$FAILED counters, and at exit the
# removal of $TMP and of the DPDK runtime directories of file prefixes
# TAG-PID-*; if the memif PMD is not installed, prints NAME's "skipped"
# lines and exits 77 (meson: skipped).

memif_cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$TMP" /var/run/dpdk/"$MEMIF_TAG"-$$-* \
		"${XDG_RUNTIME_DIR:-/tmp}"/dpdk/"$MEMIF_TAG"-$$-*
}

memif_begin() {
	MEMIF_TAG=$1
	TMP=$(mktemp -d "/tmp/$1-$$.XXXXXX")
	PIDS=()
	PASSED=0
	FAILED=0
	trap memif_cleanup EXIT
	trap 'exit 130' INT TERM
	if ! ldconfig -p 2>/dev/null | grep -q librte_net_memif &&
	   ! ls /usr/lib/*/dpdk/pmds-*/librte_net_memif.so* >/dev/null 2>&1; then
		echo "$2: the DPDK memif PMD is not installed: skipped"
		echo "$2: 0 passed, 0 failed, 1 skipped"
		exit 77
	fi
}

# memif_wait_server SOCK: until a memif server listens on SOCK (abstract by
# default: looked up in the kernel's socket table), at most ~10 s
memif_wait_server() {
	for _ in $(seq 100); do
		grep -q "$1" /proc/net/unix && return 0
		sleep 0.1
	done
	return 1
}
