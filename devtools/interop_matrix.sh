# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# The interop suite's CI matrix (sourced by devtools/test.sh and
# devtools/interop_streak.sh): every test, both roles and both MTUs, with
# the sizes and modes below (test/interop/README.md, "The CI matrix").
# NDK_INTEROP_FULL=1 leaves them unset: every case of every runner (about
# twice as long). A variable already set is kept.
if [ "${NDK_INTEROP_FULL:-0}" != 1 ]; then
	export PP_CASES=${PP_CASES-4096:200 1048576:8}
	export RP_CASES=${RP_CASES-64:20 65535:5}
	export PF_CASES=${PF_CASES-65536:50:bw 2:100:lat}
	export PF_MODES=${PF_MODES-write_bw:65536:50:-b read_bw:65536:50:-b \
send_bw:65536:20:-R read_lat:2:50:-R write_lat:2:50:-R}
	# At MTU 4200 the modes above carry write_bw, read_bw, send_bw,
	# read_lat and write_lat: of the plain cases only send_lat runs there.
	export PF_MODE_MTU_TESTS=${PF_MODE_MTU_TESTS-send_lat}
	export NV_ATTACHED_MTUS=${NV_ATTACHED_MTUS-4200}
	export CT_CASES=${CT_CASES-1000}
fi
