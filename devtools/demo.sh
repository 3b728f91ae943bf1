#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build, then run the demo: two adapters on an in-memory net_ring link move
# data with RDMA WRITE, READ and SEND and print throughput and counters.
set -euo pipefail
cd "$(dirname "$0")/.."
bash devtools/setup.sh
free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)
if [ "$free" -ge 256 ]; then
	mem="--in-memory"
else
	mem="--no-huge -m 1024 --file-prefix=ndk-demo-$$"
fi
# shellcheck disable=SC2086
exec ./build/app/ndk-demo/ndk-demo -l 0-1 --no-pci $mem \
	--log-level=lib.eal:error -- "$@"
