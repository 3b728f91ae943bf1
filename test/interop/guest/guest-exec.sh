#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# guest-exec.sh [-b] [-t SECS] NAME 'shell command' - run a command in guest
# NAME (busybox sh, as root) through its 9p job agent (~0.1 s round trip).
# guest-exec.sh -w ID [-t SECS] NAME - wait for background job ID.
#
#   default  wait for it, print its stdout+stderr, exit with its status
#   -b       start it and return at once, printing the job id; the output
#            goes to guests/NAME/share/jobs/ID.out, the status to ID.rc
#            when it ends (for servers: ibv_rc_pingpong, ib_write_bw, ...)
#   -w ID    wait for the background job ID as if it had been waited for
#   -t SECS  give up waiting after SECS (default 120) and exit 124; the
#            command itself goes on in the guest (wrap it in `timeout`)
# A waited-for job's files are removed unless KEEP_JOBS=1.
set -euo pipefail
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

bg=0
tmo=120
id=
while getopts bt:w: o; do
	case $o in
	b) bg=1 ;;
	t) tmo=$OPTARG ;;
	w) id=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
NAME=${1:?usage: guest-exec.sh [-b] [-t SECS] NAME 'command' | -w ID NAME}
shift
J="$(guest_dir "$NAME")/share/jobs"
[ -f "$J/ready" ] || { echo "guest-exec: guest $NAME is not up" >&2; exit 2; }

if [ -z "$id" ]; then
	[ $# -gt 0 ] || { echo "guest-exec: no command" >&2; exit 2; }
	id=$(date +%s%N)$$
	printf '%s\n' "$*" >"$J/.$id.tmp"
	mv "$J/.$id.tmp" "$J/$id.sh" # atomic: the agent only picks up *.sh
	if [ "$bg" = 1 ]; then
		echo "$id"
		exit 0
	fi
elif [ ! -e "$J/$id.sh" ] && [ ! -e "$J/$id.run" ]; then
	echo "guest-exec: no job $id in $NAME" >&2
	exit 2
fi

# The guest's agent looks for jobs every 0.1 s; looking for the result
# every 0.02 s (bash's SECONDS, no fork but sleep's) takes most of the
# host's share out of each command's round trip.
deadline=$((SECONDS + tmo))
while [ ! -f "$J/$id.rc" ]; do
	if [ "$SECONDS" -ge "$deadline" ]; then
		cat "$J/$id.out" 2>/dev/null || true
		echo "guest-exec: $NAME: timeout after $tmo s" >&2
		exit 124
	fi
	sleep 0.02
done
cat "$J/$id.out"
rc=$(cat "$J/$id.rc")
[ -n "${KEEP_JOBS:-}" ] || rm -f "$J/$id.run" "$J/$id.out" "$J/$id.rc"
exit "$rc"
