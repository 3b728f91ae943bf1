#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Attached applications, step by step, printed like a terminal session:
# daemon A (the one applications attach to, hugepages on a hugetlbfs this
# script mounts) and daemon B (echo service, the far end) over net_memif;
# two applications (roced-peer) attach to A as DPDK secondary processes and
# echo through B; one is SIGKILLed; telemetry (dpdk-telemetry.py) shows
# /ndk/apps, /ndk/qps and /ndk/adapters before and after; then everything
# stops in order. Needs root, 256 free 2 MB hugepages and a built tree.
#
#   devtools/attach-demo.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
roced=$build/app/ndk-roced/ndk-roced
peer=$build/test/daemon/roced-peer
for f in "$roced" "$peer"; do
	[ -x "$f" ] || { echo "attach-demo: no $f (ninja -C $build)" >&2; exit 1; }
done
free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)
if [ "$free" -lt 256 ]; then
	echo "attach-demo: needs 256 free 2 MB hugepages ($free)" >&2
	exit 1
fi

tmp=$(mktemp -d /tmp/attach-demo-XXXXXX)
pa=attach-demo-a-$$
pb=attach-demo-b-$$
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	umount "$tmp/huge" 2>/dev/null || true
	rm -rf "$tmp" "/var/run/dpdk/$pa" "/var/run/dpdk/$pb"
}
trap cleanup EXIT

say() { printf '\n# %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
tel() {   # prefix command: one telemetry query, its JSON reply
	printf '$ echo %s | dpdk-telemetry.py -f %s\n' "$2" "$1"
	echo "$2" | dpdk-telemetry.py -f "$1" 2>&1 | sed -n '/^{/,$p' |
		grep -v '^-->' || true
}
wait_line() {   # file pattern: until the pattern shows up (60 s)
	for _ in $(seq 600); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "attach-demo: no '$2' in $1" >&2
	exit 1
}

mkdir -p "$tmp/huge"
mount -t hugetlbfs nodev "$tmp/huge"
cat > "$tmp/b.conf" <<EOF
[eal]
lcores = 0
hugepages = no
memory = 256
file-prefix = $pb
[daemon]
linger-ms = 500
[echo]
depth = 16
[port m0]
device = net_memif0,role=server,socket=$tmp/memif.sock,bsize=8192
ip = 10.9.0.1/24
EOF
cat > "$tmp/a.conf" <<EOF
[eal]
lcores = 1
hugepages = yes
memory = 256
huge-dir = $tmp/huge
file-prefix = $pa
[daemon]
linger-ms = 500
[echo]
enabled = no
[port m0]
device = net_memif0,role=client,socket=$tmp/memif.sock,bsize=8192
ip = 10.9.0.2/24
EOF

daemon() {   # name: start ndk-roced -f name.conf, wait until it is ready
	printf '$ %s -f %s.conf &\n' "$roced" "$1"
	"$roced" -f "$tmp/$1.conf" > "$tmp/$1.log" 2>&1 &
	pids+=($!)
	last=$!
	wait_line "$tmp/$1.log" 'ndk-roced: ready'
	grep 'ndk-roced:' "$tmp/$1.log" | tail -2
}

say "Daemon B: the far end, echo service on 10.9.0.1 (memif server)"
daemon b
b=$last

say "Daemon A: applications attach to it (hugepages, file prefix $pa)"
daemon a
a=$last

app() {   # name count: roced-peer attached to A, orders on a FIFO
	mkfifo "$tmp/$1.in"
	printf '$ roced-peer --proc-type=secondary --file-prefix=%s ' "$pa"
	printf -- '--huge-dir=huge -- --ip 10.9.0.2 --daemon 10.9.0.1 '
	printf -- '--count %s &   # %s\n' "$2" "$1"
	"$peer" -l 1 --no-pci --proc-type=secondary --file-prefix "$pa" \
		--huge-dir "$tmp/huge" --log-level=lib.eal:error -- \
		--ip 10.9.0.2 --daemon 10.9.0.1 --count "$2" \
		< "$tmp/$1.in" > "$tmp/$1.out" 2> "$tmp/$1.err" &
	pids+=($!)
	exec {app_fd}> "$tmp/$1.in"
}

say "Two applications attach to A and echo 4 KiB messages through B"
app app1 500
pid1=${pids[-1]}
fd1=$app_fd
app app2 1000000000
pid2=${pids[-1]}
wait_line "$tmp/app1.out" READY
wait_line "$tmp/app2.out" CONNECTED
echo "app1 (pid $pid1): $(grep -h -E 'CONNECTED|READY' "$tmp/app1.out" | tr '\n' ' ')"
echo "app2 (pid $pid2): $(grep -h CONNECTED "$tmp/app2.out") (echoing without end)"
tel "$pa" /ndk/apps
tel "$pa" /ndk/qps

say "SIGKILL app2 in the middle of its echoes"
run kill -9 "$pid2"
wait "$pid2" 2>/dev/null || true
wait_line "$tmp/a.log" "application pid $pid2 is gone"
sleep 0.5
grep -h "attach:" "$tmp/a.log"
tel "$pa" /ndk/apps
tel "$pa" /ndk/qps
say "/ndk/adapters of A (counters, drops by reason, ethdev counters)"
tel "$pa" /ndk/adapters
say "/ndk/port of A (received frames dropped, by reason)"
tel "$pa" /ndk/port

say "app1 is unharmed: it disconnects and closes"
echo disconnect >&"$fd1"
wait_line "$tmp/app1.out" DISCONNECTED
echo close >&"$fd1"
wait_line "$tmp/app1.out" CLOSED
echo "app1: $(grep -h -E 'DISCONNECTED|CLOSED' "$tmp/app1.out" | tr '\n' ' ')"
tel "$pa" /ndk/apps

say "Both daemons stop together (SIGTERM), linger, close their ports"
run kill -TERM "$a" "$b"
wait "$a" && echo "A exited 0"
wait "$b" && echo "B exited 0"
grep -h 'ndk-roced:' "$tmp/a.log" | tail -3
pids=()
