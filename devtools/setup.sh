#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install what ndk-roce needs on Debian 12 (as root), reserve 2 MB hugepages
# and build into ./build. Idempotent: later runs only rebuild.
set -euo pipefail
cd "$(dirname "$0")/.."

# libibverbs-dev: rxe_tokpeer, the verbs program the tokens_rxe interop test
# runs in the rxe guest (built only when meson finds it).
# tshark: decodes dpdk-dumpcap's capture in the daemon suite's dumpcap case
# (which is skipped without it). clang, libclang-rt-14-dev: libFuzzer and
# the sanitizers' runtime for the fuzz targets (devtools/fuzz.sh).
# liburing-dev: lib/nvmf's file and block-device namespaces do their I/O
# with io_uring on a worker thread, never a system call on the lcore
# (without it only memory namespaces exist).
PKGS="dpdk-dev libdpdk-dev libnuma-dev meson ninja-build pkg-config gcc python3
	libibverbs-dev tshark liburing-dev clang libclang-rt-14-dev"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "== installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	# tshark's wireshark-common asks whether non-root users may capture:
	# answer no (the tests run as root) so nothing prompts.
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# 2 MB hugepages for --in-memory EAL; tests fall back to --no-huge without.
want=${NDK_HUGEPAGES:-1024}
hp=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
if [ -w "$hp" ] && [ "$(cat "$hp")" -lt "$want" ]; then
	echo "$want" > "$hp" 2>/dev/null || true
fi
echo "== hugepages: $(cat "$hp" 2>/dev/null || echo 0) x 2 MB"

if [ ! -f build/build.ninja ]; then
	meson setup build --buildtype=debugoptimized
elif ! python3 -c 'import json, sys
o = json.load(open("build/meson-info/intro-buildoptions.json"))
sys.exit(not any(x["name"] == "pkgconfig.relocatable" and x["value"] for x in o))'; then
	# A build directory made before libndk.pc was relocatable (the
	# install suite builds against a DESTDIR copy).
	meson configure build -Dpkgconfig.relocatable=true
fi
ninja -C build
