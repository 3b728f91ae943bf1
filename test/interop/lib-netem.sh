# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# lib-netem.sh - part of lib.sh (which sources it): loss and reordering on
# the guest's eth1 both ways (sch_netem on what it sends, and through ifb0
# on what it receives; the guest helper's `netem` and `netem-in`), a run's
# cases once per netem profile, and what the guest's counters and the
# capture say a case cost: rxe1's hw_counters, the qdisc's drops and the
# RoCEv2 frames sent per frame needed.

# iop_netem SPEC: sch_netem on the guest's eth1 for a profile: SPEC is
# netem's arguments for both ways (what the guest sends and what it
# receives), "out:ARGS" or "in:ARGS" for one way only, or "off"; prints
# tc's view of both; fails when tc does
iop_netem() {
	local out=$1 in=$1
	case $1 in
	out:*) out=${1#out:} in=off ;;
	in:*) in=${1#in:} out=off ;;
	esac
	iop_gh "netem $out" && iop_gh "netem-in $in"
}

# iop_netem_profiles PROFILES FUNC ARGS...: FUNC ARGS once per netem
# profile of PROFILES ("NAME=SPEC;NAME=SPEC...", SPEC as iop_netem's),
# with IOP_NETEM_NAME set to NAME (the runners add it to their case names)
# and IOP_NETEM_SPEC to its netem arguments
# and netem set as SPEC says (a pass; a failure skips the profile);
# netem is off again at the end. Empty PROFILES: FUNC ARGS once, no netem.
iop_netem_profiles() {
	local profs p out
	IFS=';' read -r -a profs <<<"$1"
	shift
	if [ ${#profs[@]} = 0 ]; then
		"$@"
		return 0
	fi
	for p in "${profs[@]}"; do
		IOP_NETEM_NAME=${p%%=*}
		IOP_NETEM_SPEC=${p#*=}
		if out=$(iop_netem "${p#*=}" 2>&1); then
			iop_pass "netem $IOP_NETEM_NAME (${p#*=}): $(tr '\n' ' ' <<<"$out")"
			"$@"
		else
			iop_fail "netem $IOP_NETEM_NAME (${p#*=})" "$out"
		fi
	done
	IOP_NETEM_NAME=
	# shellcheck disable=SC2034 # read by the runners
	IOP_NETEM_SPEC=
	iop_netem off >/dev/null 2>&1 || true
}

# iop_counters_delta BEFORE AFTER: what changed between two outputs of
# the guest helper's `counters` ("name=value ..."), as "name +N ..."
# ("none" when nothing did)
iop_counters_delta() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x, " "); for (i = 1; i <= n; i++) {
			split(x[i], kv, "="); old[kv[1]] = kv[2] }
		n = split(b, x, " "); for (i = 1; i <= n; i++) {
			split(x[i], kv, "=")
			d = kv[2] - old[kv[1]]
			if (d != 0) { printf "%s%s %+d", sep, kv[1], d; sep = ", " } }
		if (sep == "") printf "none"
		print "" }'
}

# iop_qdisc_dropped COUNTERS: eth1's qdisc drops in an output of the guest
# helper's `counters`: frames the guest sent (netem's or a full queue's
# drops) that its capture, taken after the qdisc, cannot show
iop_qdisc_dropped() {
	sed -n 's/.*qdisc_dropped=\([0-9]*\).*/\1/p' <<<"$1" | grep . || echo 0
}

# iop_frames_ratio NEED BEFORE AFTER [MAX]: after iop_capture_check, the
# RoCEv2 frames sent per frame needed (NEED): the capture's, plus the
# guest's frames its eth1 qdisc dropped (netem or a full queue) between the
# two outputs of the guest helper's `counters` BEFORE and AFTER, which
# never reached the capture; prints what changed in those counters and the
# ratio (added to IOP_CAP_SUM); the case fails above MAX.
iop_frames_ratio() {
	local need=$1 max=${4:-} roce drop ratio
	echo "    rxe1 and eth1's qdisc: $(iop_counters_delta "$2" "$3")"
	roce=$(sed -n 's/^\([0-9]*\) frames,.*/\1/p' <<<"$IOP_CAP_SUM")
	[ "${roce:-0}" -gt 0 ] || return 0
	drop=$(($(iop_qdisc_dropped "$3") - $(iop_qdisc_dropped "$2")))
	roce=$((roce + drop))
	ratio=$(awk -v a="$roce" -v b="$need" 'BEGIN { printf "%.3f", a / b }')
	echo "    frames: $roce RoCEv2 sent ($drop of them dropped by the" \
		"guest's qdisc before its capture), $need needed: $ratio per" \
		"frame needed${max:+ (at most $max)}"
	[ -z "$max" ] || awk -v r="$ratio" -v m="$max" 'BEGIN { exit !(r <= m) }' ||
		iop_why "$ratio frames per frame needed, more than $max"
	IOP_CAP_SUM="$IOP_CAP_SUM, $ratio per frame needed"
}

# iop_netem_case PROFILES: a case limited to PROFILES (comma-separated
# names; empty: every one) runs in the current profile
iop_netem_case() {
	[ -z "$1" ] || [[ ,$1, == *",$IOP_NETEM_NAME,"* ]]
}
