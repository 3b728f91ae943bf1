# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Shared settings of the interop guest scripts (sourced, not run).
#
# Every file the harness writes lives under $NDK_INTEROP_WORK (default:
# build/interop in the source tree's build directory), never in the sources:
#   $NDK_INTEROP_IMAGE     vmlinuz, initramfs.cpio.gz, image.stamp, debs/
#   $NDK_INTEROP_WORK/guests/NAME/
#                          console.log, console.sock, mon.sock, qemu.pid,
#                          share/ (the guest's /share, 9p) with share/jobs/
# Network: one private namespace $NS holding bridge $BR with $HOSTIP; every
# guest has a tap t-NAME on that bridge (its eth0). Nothing routes out of it.

# shellcheck disable=SC2034  # the variables are used by the sourcing scripts

NDK_INTEROP_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NDK_INTEROP_ROOT=$(cd "$NDK_INTEROP_SRC/../.." && pwd)
NDK_INTEROP_WORK=${NDK_INTEROP_WORK:-$NDK_INTEROP_ROOT/build/interop}
NDK_INTEROP_IMAGE=${NDK_INTEROP_IMAGE:-$NDK_INTEROP_WORK/image}
NS=${NS:-ndk-interop}
BR=${BR:-br0}
HOSTIP=${HOSTIP:-10.77.0.1/24}

# guest_dir NAME: the run directory of guest NAME
guest_dir() {
	printf '%s/guests/%s\n' "$NDK_INTEROP_WORK" "$1"
}

# guest_mac NAME PREFIX: a stable MAC for a guest NIC, PREFIX:xx:xx:xx with
# the bytes taken from md5(NAME). eth0 uses 52:54:00 and NAME, eth1
# 52:54:01 and NAME-1.
guest_mac() {
	printf '%s' "$1" | md5sum |
		sed "s/^\(..\)\(..\)\(..\).*/$2:\1:\2:\3/"
}

# now_ms: wall clock in milliseconds
now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# secs_since MS: seconds elapsed since now_ms said MS, one decimal
secs_since() {
	local d=$(($(now_ms) - $1))
	printf '%d.%d' $((d / 1000)) $((d % 1000 / 100))
}
