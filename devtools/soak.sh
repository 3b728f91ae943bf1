#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Soak ndk-roced for a time (default one hour) under injected loss,
# duplication and reordering, with attached applications connecting,
# echoing and closing all the while; then check that every message was
# verified, no QP is stuck, the counters add up and the daemons' memory is
# back to its start (devtools/soak.py tells what exactly).
#
#   bash devtools/soak.sh [seconds]
#
# Needs root (it mounts a hugetlbfs) and 256 free 2 MB hugepages; builds
# build/ first. Ends with "soak: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-3600}
B=${NDK_SOAK_BUILD:-build}
ninja -C "$B" app/ndk-roced/ndk-roced app/ndk-perf/ndk-perf \
	test/daemon/roced-peer >/dev/null || exit 1
exec python3 devtools/soak.py "$B/app/ndk-roced/ndk-roced" \
	"$B/test/daemon/roced-peer" "$PWD" "$B/app/ndk-perf/ndk-perf" "$secs"
